/* JAX custom_partitioning rule strings for generated custom ops. The
 * templates in shirgen_custom.c describe each tensor's dims as factor ids;
 * this file turns that into the rule text (factors named in order of first
 * appearance, so the special-factor lists come out in factor order as
 * Shardy requires), the factor-kind lists and factor_sizes. */
#include <string.h>
#include "shirgen.h"

int grule_factor(GRule *r, int64_t size)
{
    r->size[r->nfactors] = size;
    r->kind[r->nfactors] = FK_PASS;
    return r->nfactors++;
}

GRuleTensor *grule_tensor(GRule *r, bool result)
{
    GRuleTensor *t = &r->t[r->nops + r->nres];
    *t = (GRuleTensor){0};
    if (result)
        r->nres++;
    else
        r->nops++;
    return t;
}

void grule_dim(GRuleTensor *t, int f0, int f1) { t->dims[t->rank++] = (GRuleDim){{f0, f1}}; }

static bool tensor_uses(const GRuleTensor *t, int from, int f)
{
    for (int d = from; d < t->rank; d++)
        if (t->dims[d].f[0] == f || t->dims[d].f[1] == f)
            return true;
    return false;
}

/* Does tensor t start with the n simple, pass-through dims of `lead`? */
static bool tensor_has_lead(const GRule *r, const GRuleTensor *t, const GRuleTensor *lead, int n)
{
    if (t->rank < n)
        return false;
    for (int d = 0; d < n; d++)
        if (t->dims[d].f[1] >= 0 || t->dims[d].f[0] != lead->dims[d].f[0] || r->kind[t->dims[d].f[0]] != FK_PASS)
            return false;
    return true;
}

bool grule_try_ellipsis(GRule *r, int n)
{
    const GRuleTensor *lead = &r->t[0];
    int ells[GR_MAX_TENSORS];
    for (int i = 0; i < r->nops + r->nres; i++) {
        const GRuleTensor *t = &r->t[i];
        ells[i] = n > 0 && tensor_has_lead(r, t, lead, n) ? n : 0;
        for (int d = 0; d < n && d < lead->rank; d++)
            if (tensor_uses(t, ells[i], lead->dims[d].f[0]))
                return false; /* a lead factor outside the ellipsis */
    }
    for (int i = 0; i < r->nops + r->nres; i++)
        r->t[i].ell = ells[i];
    return n > 0;
}

void grule_sprinkle(Gen *g, GRule *r)
{
    for (int f = 0; f < r->nfactors; f++) {
        if (r->kind[f] != FK_PASS)
            continue;
        int x = rng_below(&g->rng, 100);
        r->kind[f] = x < 12 ? FK_NEED_REPLICATION : x < 20 ? FK_PERMUTATION : FK_PASS;
    }
}

typedef struct RuleNames {
    const char *name[GR_MAX_FACTORS];
    int order[GR_MAX_FACTORS];  /* factor ids in order of first appearance */
    int count;
    bool whole[GR_MAX_FACTORS]; /* names a whole dim somewhere */
} RuleNames;

static void name_factor(Gen *g, RuleNames *n, const int *letters, int f)
{
    if (f < 0 || n->name[f])
        return;
    char buf[2] = {(char)('a' + letters[n->count]), 0};
    n->name[f] = arena_strdup(gen_arena(g), buf);
    n->order[n->count++] = f;
}

static void name_factors(Gen *g, const GRule *r, RuleNames *n)
{
    int letters[26];
    for (int i = 0; i < 26; i++)
        letters[i] = i;
    rng_shuffle(&g->rng, letters, 26);
    *n = (RuleNames){0};
    for (int i = 0; i < r->nops + r->nres; i++) {
        for (int d = r->t[i].ell; d < r->t[i].rank; d++) {
            const GRuleDim *dim = &r->t[i].dims[d];
            name_factor(g, n, letters, dim->f[0]);
            name_factor(g, n, letters, dim->f[1]);
            if (dim->f[1] < 0)
                n->whole[dim->f[0]] = true;
        }
    }
}

static void append(char *buf, size_t cap, const char *s)
{
    size_t len = strlen(buf);
    snprintf(buf + len, cap - len, "%s", s);
}

static void tensor_text(const GRuleTensor *t, const RuleNames *n, char *buf, size_t cap)
{
    if (t->ell)
        append(buf, cap, "...");
    for (int d = t->ell; d < t->rank; d++) {
        const GRuleDim *dim = &t->dims[d];
        append(buf, cap, d > 0 || t->ell ? " " : "");
        if (dim->f[1] >= 0) {
            append(buf, cap, "(");
            append(buf, cap, n->name[dim->f[0]]);
            append(buf, cap, " ");
            append(buf, cap, n->name[dim->f[1]]);
            append(buf, cap, ")");
        } else {
            append(buf, cap, n->name[dim->f[0]]);
        }
    }
}

static void kind_list(Gen *g, Op *op, const GRule *r, const RuleNames *n, int kind, AttrKey attr)
{
    AttrValue *items[GR_MAX_FACTORS];
    int count = 0;
    for (int i = 0; i < n->count; i++)
        if (r->kind[n->order[i]] == kind)
            items[count++] = attr_s(g, n->name[n->order[i]]);
    if (count)
        gen_set_attr(g, op, attr, attr_list(g, items, count));
}

/* Factors that only appear inside compound dims have no size JAX can infer. */
static void factor_sizes(Gen *g, Op *op, const GRule *r, const RuleNames *n)
{
    NamedAttr *items = ARENA_ARRAY(gen_arena(g), NamedAttr, GR_MAX_FACTORS);
    int count = 0;
    for (int i = 0; i < n->count; i++)
        if (!n->whole[n->order[i]])
            items[count++] = (NamedAttr){.name = n->name[n->order[i]], .value = attr_i(g, r->size[n->order[i]])};
    if (!count)
        return;
    AttrValue *dict = attr_new(gen_arena(g), ATTR_DICT, (Loc){0});
    dict->u.dict.count = count;
    dict->u.dict.items = items;
    gen_set_attr(g, op, ATTR_KEY_FACTOR_SIZES, dict);
}

void grule_attrs(Gen *g, Op *op, const GRule *r)
{
    RuleNames n;
    name_factors(g, r, &n);
    char text[512] = "";
    for (int i = 0; i < r->nops + r->nres; i++) {
        append(text, sizeof text, i == 0 ? "" : i == r->nops ? " -> " : ", ");
        tensor_text(&r->t[i], &n, text, sizeof text);
    }
    gen_set_attr(g, op, ATTR_KEY_RULE, attr_s(g, text));
    kind_list(g, op, r, &n, FK_REDUCTION, ATTR_KEY_REDUCTION);
    kind_list(g, op, r, &n, FK_NEED_REPLICATION, ATTR_KEY_NEED_REPLICATION);
    kind_list(g, op, r, &n, FK_PERMUTATION, ATTR_KEY_PERMUTATION);
    factor_sizes(g, op, r, &n);
}
