/* Shardy's findCommonAxesHeuristic (explicit_reshards_util.cc): every
 * factor-axes pair some tensor holds (and each prefix of it) is a
 * candidate, scored by the total global size of the tensors that hold it
 * or extend it. The best valid candidate gives its factor those axes;
 * candidates of that factor that do not extend them are dropped, others
 * that overlap them are cut back; repeat until no candidate is left. An
 * empty sharding is never a candidate: a replicated tensor does not vote. */
#include <string.h>
#include "factor_choice.h"

typedef struct Candidate {
    int factor;
    AxisList axes;
    int64_t source_size;    /* global elements of the tensors holding (or extending) axes */
    int64_t sharding_size;  /* the sharding axes add beyond the factor's current axes */
    int precedence;         /* pass_through 3, reduction 2, permutation 1, need_replication 0 (Shardy's) */
} Candidate;

typedef struct Bag {
    Candidate *items;
    int count;
    const Mesh *mesh;
} Bag;

static bool bag_has(const Bag *bag, int f, const AxisList *axes)
{
    for (int i = 0; i < bag->count; i++)
        if (bag->items[i].factor == f && axis_list_equal(&bag->items[i].axes, axes))
            return true;
    return false;
}

static int64_t source_size(const FactorOffers *o, int f, const AxisList *axes)
{
    int64_t total = 0;
    for (int t = 0; t < o->p->num_tensors; t++) {
        const AxisList *held = factor_offer(o, t, f);
        if (axis_list_equal(held, axes) || axis_list_strict_prefix(axes, held))
            total += o->p->tensors[t].num_elements;
    }
    return total;
}

static void bag_fill(Bag *bag, const FactorOffers *o)
{
    const OpShardingRule *rule = o->p->rule;
    for (int t = 0; t < o->p->num_tensors; t++)
        for (int f = 0; f < rule->num_factors; f++) {
            AxisList prefix;
            axis_list_copy(&prefix, factor_offer(o, t, f));
            for (; prefix.count > 0; prefix.count--) {
                if (bag_has(bag, f, &prefix))
                    continue;
                FactorKind kind = rule->factors[f].kind;
                int precedence = kind == FACTOR_PASS_THROUGH ? 3 : kind == FACTOR_REDUCTION ? 2
                               : kind == FACTOR_PERMUTATION ? 1 : 0;
                bag->items[bag->count++] = (Candidate){f, prefix, source_size(o, f, &prefix),
                                                       axis_list_size(&prefix), precedence};
            }
        }
}

/* AxisRefAttr::operator<: by axis name, then a whole axis before the
 * sub-axes that do not start it, then sub-axes by (pre_size, size). */
static int axis_ref_cmp(const Mesh *mesh, AxisRef a, AxisRef b)
{
    int by_name = strcmp(mesh->axes[a.axis].name, mesh->axes[b.axis].name);
    if (by_name)
        return by_name;
    bool a_full = axis_ref_is_full(mesh, a), b_full = axis_ref_is_full(mesh, b);
    if (a_full || b_full) {
        if (a_full && b_full)
            return 0;
        return a_full ? (b.pre_size > 1 ? -1 : 1) : (a.pre_size == 1 ? -1 : 1);
    }
    if (a.pre_size != b.pre_size)
        return a.pre_size < b.pre_size ? -1 : 1;
    return a.size < b.size ? -1 : a.size > b.size;
}

/* FactorAxesCandidate::operator<, field by field; the larger wins. */
static int candidate_cmp(const Mesh *mesh, const Candidate *a, const Candidate *b)
{
    int64_t keys[4][2] = {{a->source_size, b->source_size}, {a->precedence, b->precedence},
                          {a->sharding_size, b->sharding_size}, {a->factor, b->factor}};
    for (int k = 0; k < 4; k++)
        if (keys[k][0] != keys[k][1])
            return keys[k][0] < keys[k][1] ? -1 : 1;
    if (a->axes.count != b->axes.count)
        return a->axes.count < b->axes.count ? -1 : 1;
    for (int i = 0; i < a->axes.count; i++) {
        int c = axis_ref_cmp(mesh, a->axes.axes[i], b->axes.axes[i]);
        if (c)
            return c;
    }
    return 0;
}

/* The best candidate whose factor is not behind a partly sharded one in a
 * compound dim (Shardy's factor dependencies), or -1. */
static int best_valid(const Bag *bag, const OpShardingRule *rule, const AxisList *out)
{
    int best = -1;
    for (int i = 0; i < bag->count; i++) {
        if (factor_assignment_behind_partial(rule, out, bag->items[i].factor))
            continue;
        if (best < 0 || candidate_cmp(bag->mesh, &bag->items[best], &bag->items[i]) < 0)
            best = i;
    }
    return best;
}

static void remove_at(Bag *bag, int i) { bag->items[i] = bag->items[--bag->count]; }

/* After `best` gave its factor its axes: the factor's candidates that do
 * not extend them go, candidates of other factors lose what overlaps
 * them (and go when nothing new is left), and sharding sizes are redone
 * as Shardy redoes them. */
static void prune(Bag *bag, const Candidate *best, const AxisList *out)
{
    for (int i = 0; i < bag->count;) {
        Candidate *c = &bag->items[i];
        const AxisList *current = &out[c->factor];
        if (c->factor == best->factor) {
            if (!axis_list_strict_prefix(&best->axes, &c->axes)) {
                remove_at(bag, i);
                continue;
            }
            c->sharding_size = axis_list_size(&c->axes) / axis_list_size(&best->axes);
        } else if (axis_list_truncate_without_overlap(&c->axes, &best->axes)) {
            if (axis_list_equal(&c->axes, current)) {
                remove_at(bag, i);
                continue;
            }
            c->sharding_size = axis_list_size(&c->axes) / axis_list_size(current);
        } else {
            c->sharding_size = axis_list_size(&c->axes);
        }
        i++;
    }
}

/* Each offer of n axes gives at most n candidates (its prefixes). */
static size_t max_candidates(const FactorOffers *o)
{
    size_t n = 1;
    for (int t = 0; t < o->p->num_tensors; t++)
        for (int f = 0; f < o->p->rule->num_factors; f++)
            n += (size_t)factor_offer(o, t, f)->count;
    return n;
}

void factor_assignment_by_candidates(AxisList *out, const FactorOffers *o, Arena *scratch)
{
    const ShardingProjection *p = o->p;
    Bag bag = {ARENA_ARRAY(scratch, Candidate, max_candidates(o)), 0, p->mesh};
    bag_fill(&bag, o);
    for (int b; bag.count && (b = best_valid(&bag, p->rule, out)) >= 0;) {
        Candidate best = bag.items[b];
        out[best.factor] = best.axes;
        prune(&bag, &best, out);
    }
}
