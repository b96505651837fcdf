/* Printing shardc IR as StableHLO + Shardy (sdy) MLIR, exactly as sdy_opt
 * prints it (docs/mlir.md, "Printing"): the module, meshes, functions,
 * value naming and blocks. How each op kind prints is print_ops.c's;
 * attribute and type syntax print_attrs.c's. */
#include <stdlib.h>
#include <string.h>
#include "print_internal.h"
#include "shardc/mlir.h"

/* ---- op forms ------------------------------------------------------------ */

/* mlir_op_form and mlir_op_canonical_name search mlir_ops.def; each op
 * asks more than once (naming, then printing), so the answers are looked
 * up once per module. */
static void find_forms(MlirPrinter *p)
{
    for (int k = 0; k < OP_COUNT; k++) {
        p->forms[k] = mlir_op_form((OpKind)k);
        p->canonical[k] = mlir_op_canonical_name((OpKind)k);
    }
}

const MlirOpForm *mlir_form_of(const MlirPrinter *p, const Op *op)
{
    return (unsigned)op->kind < OP_COUNT ? p->forms[op->kind] : mlir_op_form(op->kind);
}

const char *mlir_printed_canonical_name(const MlirPrinter *p, OpKind kind)
{
    return (unsigned)kind < OP_COUNT ? p->canonical[kind] : mlir_op_canonical_name(kind);
}

const char *mlir_printed_op_name(const MlirPrinter *p, const Op *op)
{
    if (op->mlir && op->mlir->op_name)
        return op->mlir->op_name;
    return mlir_printed_canonical_name(p, op->kind);
}

/* ---- naming ------------------------------------------------------------- */

static void name_ops_through(MlirPrinter *p, MlirScope *s, const Op *last);

void mlir_scope_init(MlirScope *s, MlirPrinter *p, MlirScope *parent, MlirScope *counters)
{
    /* a first pass would have named the enclosing blocks whole by now */
    if (parent)
        name_ops_through(p, parent, NULL);
    if (counters)
        name_ops_through(p, counters, NULL);
    memset(s, 0, sizeof *s);
    s->parent = parent;
    if (counters) {
        s->next_value = counters->next_value;
        s->next_arg = counters->next_arg;
        s->next_conflict = counters->next_conflict;
    }
}

static bool scope_taken(const MlirScope *s, const char *name, uint64_t hash)
{
    for (; s; s = s->parent)
        if (mlir_name_set_has(&s->used, name, hash))
            return true;
    return false;
}

const char *mlir_scope_unique(MlirPrinter *p, MlirScope *s, const char *base)
{
    /* a free name costs one look-up of s: the add says whether s had it */
    uint64_t hash = mlir_name_hash(base);
    if (!scope_taken(s->parent, base, hash) && mlir_name_set_add(p, &s->used, base, hash))
        return base;
    char buf[256];
    do {
        snprintf(buf, sizeof buf, "%.200s_%d", base, s->next_conflict++);
        hash = mlir_name_hash(buf);
    } while (scope_taken(s, buf, hash));
    const char *name = arena_strdup(&p->arena, buf);
    mlir_name_set_add(p, &s->used, name, hash);
    return name;
}

static const char *number_name(MlirPrinter *p, const char *prefix, int n)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%s%d", prefix, n);
    return arena_strdup(&p->arena, buf);
}

static void set_name(MlirPrinter *p, const Value *v, const char *name)
{
    if (v->id >= 0 && v->id < p->m->num_values)
        p->names[v->id] = name;
}

/* MLIR's name for a value an op defines: its asm name (%cst) if it asks
 * for one, else the next number; in .shir naming, the name as written. */
static const char *result_name(MlirPrinter *p, MlirScope *s, const Value *v, const char *asm_name)
{
    if (!p->renumber)
        return mlir_scope_unique(p, s, v->name);
    if (asm_name)
        return mlir_scope_unique(p, s, asm_name);
    return number_name(p, "", s->next_value++);
}

static const char *aux_name(MlirPrinter *p, MlirScope *s, const Op *op, const MlirAux *aux)
{
    if (p->renumber)
        return aux->asm_name ? mlir_scope_unique(p, s, aux->asm_name) : number_name(p, "", s->next_value++);
    const char *base = op->num_results ? op->results[0]->name : "v";
    size_t nb = strnlen(base, 200), nr = strnlen(aux->role, 50);
    char *buf = ARENA_ARRAY_UNINIT(&p->arena, char, nb + nr + 2); /* the scope keeps it */
    memcpy(buf, base, nb);
    buf[nb] = '.';
    memcpy(buf + nb + 1, aux->role, nr);
    buf[nb + 1 + nr] = '\0';
    return mlir_scope_unique(p, s, buf);
}

/* The asm names StableHLO's ops give their results (getAsmResultNames),
 * or NULL: rng_bit_generator's `%output_state, %output` (its per-device
 * form prints generically, numbered). */
static const char *const *result_asm_names(const Op *op)
{
    static const char *const rng[] = {"output_state", "output"};
    if (op->kind == OP_RNG_BIT_GENERATOR && op->num_results == 2 && !op_attr_get(op, ATTR_KEY_GLOBAL_SHAPE))
        return rng;
    return NULL;
}

/* Whether MLIR numbers the op's results as one group (`%0:2`, used as `%0#1`). */
static bool results_grouped(const MlirPrinter *p, const Op *op)
{
    return p->renumber && op->num_results > 1 && !result_asm_names(op);
}

static void name_op(MlirPrinter *p, MlirScope *s, const Op *op)
{
    const MlirOpForm *form = mlir_form_of(p, op);
    MlirAux aux[MLIR_MAX_AUX];
    int n = form->plan ? form->plan(p, op, aux) : 0;
    if (n && op->id >= 0 && op->id < p->m->num_ops) {
        p->aux[op->id] = ARENA_ARRAY(&p->arena, const char *, n + 1); /* NULL-terminated */
        for (int i = 0; i < n; i++)
            p->aux[op->id][i] = aux_name(p, s, op, &aux[i]);
    }
    /* stablehlo.constant names its result %cst (floats) or %c (integers) */
    const char *asm_name = NULL;
    if (op->kind == OP_CONSTANT && strcmp(mlir_printed_op_name(p, op), "sdy.constant") != 0)
        asm_name = dtype_is_float(op->results[0]->type.dtype) ? "cst" : "c";
    if (results_grouped(p, op)) {
        const char *group = number_name(p, "", s->next_value++);
        for (int i = 0; i < op->num_results; i++)
            set_name(p, op->results[i], group);
        return;
    }
    const char *const *names = result_asm_names(op);
    for (int i = 0; i < op->num_results; i++)
        set_name(p, op->results[i], result_name(p, s, op->results[i], names ? names[i] : asm_name));
}

void mlir_name_block(MlirScope *s, const Block *b) { s->unnamed = b->first; }

/* Names the ops of s's block not named yet, up to `last` (NULL: all). */
static void name_ops_through(MlirPrinter *p, MlirScope *s, const Op *last)
{
    while (s->unnamed) {
        const Op *op = s->unnamed;
        s->unnamed = op->next;
        name_op(p, s, op);
        if (op == last)
            return;
    }
}

/* Ops named a run at a time ahead of printing them: the run's ops are
 * still in the core's cache when printed, and the cache misses of naming
 * them (the ops, their values, the name sets' buckets) overlap, where
 * naming each op just before printing it waited for each in turn. */
enum { NAMING_RUN = 32 };

/* Names op, not named yet, and the ops after it up to a run (ops are
 * named in order: the first not named is op itself). A first pass would
 * have named them all before printing any: printing never looks at the
 * names of ops after the one it prints. */
static void name_run_from(MlirPrinter *p, MlirScope *s, const Op *op)
{
    if (s->unnamed != op)
        return;
    for (int i = 0; i < NAMING_RUN && s->unnamed; i++) {
        const Op *next = s->unnamed;
        s->unnamed = next->next;
        name_op(p, s, next);
    }
}

static void name_args(MlirPrinter *p, MlirScope *s, const Block *b)
{
    for (int i = 0; i < b->num_args; i++)
        set_name(p, b->args[i],
                 p->renumber ? number_name(p, "arg", s->next_arg++) : mlir_scope_unique(p, s, b->args[i]->name));
}

static const char *value_name(const MlirPrinter *p, const Value *v)
{
    const char *name = v->id >= 0 && v->id < p->m->num_values ? p->names[v->id] : NULL;
    return name ? name : v->name;
}

MlirVal mlir_val(const MlirPrinter *p, const Value *v)
{
    bool grouped = v->def && results_grouped(p, v->def);
    return (MlirVal){value_name(p, v), grouped ? v->index : -1, v->type};
}

MlirVal mlir_aux_val(const MlirPrinter *p, const Op *op, int i, TensorType type)
{
    const char *const *names = op->id >= 0 && op->id < p->m->num_ops ? p->aux[op->id] : NULL;
    return (MlirVal){names ? names[i] : "?", -1, type};
}

const char *mlir_visible_name(const MlirPrinter *p, const Value *v, const Block *at)
{
    if (!v || !at || v->id < 0 || v->id >= p->m->num_values)
        return NULL;
    const Block *b = v->def ? v->def->parent : v->block;
    return b == at ? p->names[v->id] : NULL;
}

static void piece_val(Writer *out, MlirVal v)
{
    writer_char(out, '%');
    writer_str(out, v.name);
    if (v.index >= 0) {
        writer_char(out, '#');
        writer_int(out, v.index);
    }
}

void mlir_print_val(MlirPrinter *p, MlirVal v)
{
    piece_val(p->out, v);
}

void mlir_print_vals(MlirPrinter *p, const MlirVal *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (i)
            writer_str(p->out, ", ");
        piece_val(p->out, v[i]);
    }
}

void mlir_print_defs(MlirPrinter *p, const Op *op, int indent)
{
    writer_spaces(p->out, indent);
    if (!op->num_results)
        return;
    if (results_grouped(p, op)) {
        writer_printf(p->out, "%%%s:%d = ", value_name(p, op->results[0]), op->num_results);
        return;
    }
    for (int i = 0; i < op->num_results; i++) {
        if (i)
            writer_str(p->out, ", ");
        writer_char(p->out, '%');
        writer_str(p->out, value_name(p, op->results[i]));
    }
    writer_str(p->out, " = ");
}

void mlir_print_aux_def(MlirPrinter *p, const Op *op, int i, int indent)
{
    MlirVal v = mlir_aux_val(p, op, i, (TensorType){0});
    writer_spaces(p->out, indent);
    writer_char(p->out, '%');
    writer_str(p->out, v.name);
    writer_str(p->out, " = ");
}

/* ---- blocks and regions ---------------------------------------------------- */

static void print_terminator(MlirPrinter *p, const Block *b, int indent, const char *ret)
{
    writer_spaces(p->out, indent);
    writer_str(p->out, ret);
    if (!b->num_returns) {
        writer_char(p->out, '\n');
        return;
    }
    writer_char(p->out, ' ');
    for (int i = 0; i < b->num_returns; i++) {
        if (i)
            writer_str(p->out, ", ");
        mlir_print_val(p, mlir_val(p, b->returns[i]));
    }
    writer_str(p->out, " : ");
    for (int i = 0; i < b->num_returns; i++) {
        if (i)
            writer_str(p->out, ", ");
        mlir_print_type(p, &b->returns[i]->type);
    }
    writer_char(p->out, '\n');
}

void mlir_print_block_ops(MlirPrinter *p, MlirScope *s, const Block *b, int indent, const char *ret)
{
    MlirScope *outer = p->scope;
    p->scope = s;
    for (const Op *op = b->first; op; op = op->next) {
        name_run_from(p, s, op);
        mlir_form_of(p, op)->emit(p, op, indent);
    }
    print_terminator(p, b, indent, ret);
    p->scope = outer;
}

void mlir_region_open(MlirPrinter *p, MlirScope *s, const Block *b, bool isolated)
{
    mlir_scope_init(s, p, isolated && !p->renumber ? NULL : p->scope, p->scope);
    mlir_name_block(s, b);
    name_args(p, s, b);
}

void mlir_region_open_iter(MlirPrinter *p, MlirScope *s, const Block *b, const Block *names)
{
    mlir_scope_init(s, p, p->scope, p->scope);
    mlir_name_block(s, b);
    for (int i = 0; i < b->num_args; i++)
        set_name(p, b->args[i],
                 mlir_scope_unique(p, s, p->renumber || i >= names->num_args ? "iterArg" : names->args[i]->name));
}

const char *mlir_scope_arg(MlirPrinter *p, MlirScope *s, const char *shir_name)
{
    return p->renumber ? number_name(p, "arg", s->next_arg++) : mlir_scope_unique(p, s, shir_name);
}

const char *mlir_scope_value(MlirPrinter *p, MlirScope *s, const char *shir_name)
{
    return p->renumber ? number_name(p, "", s->next_value++) : mlir_scope_unique(p, s, shir_name);
}

/* ---- functions -------------------------------------------------------------- */

static const MlirKeptAttrs *kept_at(const MlirKeptAttrs *list, int count, int i)
{
    return list && i < count ? &list[i] : NULL;
}

/* ` {sdy.sharding = #sdy.sharding<...>, ...}` after an argument or result
 * type; nothing if there is nothing to say. */
static void print_value_attrs(MlirPrinter *p, const Sharding *sharding, const LogicalAxes *logical,
                              const MlirKeptAttrs *kept)
{
    MlirAttrList l;
    mlir_attrs_init(&l, p, NULL);
    if (sharding)
        mlir_attrs_add(&l, mlir_sdy_sharding, MLIR_ITEM_SHARDING, sharding);
    if (logical)
        mlir_attrs_add(&l, "shardc.logical", MLIR_ITEM_LOGICAL, logical);
    mlir_attrs_add_kept(&l, kept);
    mlir_attrs_print(&l);
}

static void print_func_results(MlirPrinter *p, const Func *f)
{
    const struct MlirExtra *x = f->mlir;
    bool bare = f->num_results == 1 && !f->result_shardings[0] && !(f->result_logical && f->result_logical[0]) &&
                !(x && kept_at(x->result_attrs, x->num_results, 0) && x->result_attrs[0].count);
    if (!f->num_results)
        return;
    writer_str(p->out, " -> ");
    if (!bare)
        writer_char(p->out, '(');
    for (int i = 0; i < f->num_results; i++) {
        writer_str(p->out, i ? ", " : "");
        mlir_print_type(p, &f->result_types[i]);
        print_value_attrs(p, f->result_shardings[i], f->result_logical ? f->result_logical[i] : NULL,
                          x ? kept_at(x->result_attrs, x->num_results, i) : NULL);
    }
    if (!bare)
        writer_char(p->out, ')');
}

/* ` attributes {...}` of a module or function: what was read, kept. */
static void print_kept_attributes(MlirPrinter *p, const MlirKeptAttrs *attrs)
{
    if (!attrs || !attrs->count)
        return;
    MlirAttrList l;
    mlir_attrs_init(&l, p, NULL);
    mlir_attrs_add_kept(&l, attrs);
    writer_str(p->out, " attributes");
    mlir_attrs_print(&l);
}

static void print_func(MlirPrinter *p, const Func *f)
{
    const struct MlirExtra *x = f->mlir;
    MlirScope s;
    mlir_scope_init(&s, p, NULL, NULL);
    /* the one function of a module names at most the module's values (and
     * the few the printer makes up); room for them saves growing the set */
    if (!p->renumber && p->m->num_funcs == 1)
        mlir_name_set_expect(p, &s.used, (int64_t)p->m->num_values + p->m->num_values / 8);
    mlir_name_block(&s, f->body);
    name_args(p, &s, f->body);
    writer_str(p->out, "  func.func ");
    if (x && x->visibility)
        writer_printf(p->out, "%s ", x->visibility);
    writer_printf(p->out, "@%s(", f->name);
    for (int i = 0; i < f->body->num_args; i++) {
        const Value *a = f->body->args[i];
        writer_str(p->out, i ? ", " : "");
        mlir_print_val(p, mlir_val(p, a));
        writer_str(p->out, ": ");
        mlir_print_type(p, &a->type);
        print_value_attrs(p, a->sharding, a->logical, x ? kept_at(x->arg_attrs, x->num_args, i) : NULL);
    }
    writer_char(p->out, ')');
    print_func_results(p, f);
    print_kept_attributes(p, x ? &x->attrs : NULL);
    writer_str(p->out, " {\n");
    mlir_print_block_ops(p, &s, f->body, 4, "return");
    writer_str(p->out, "  }\n");
}

/* ---- the module -------------------------------------------------------------- */

/* shardc's explicit axes (JAX's AxisType.Explicit) have no sdy spelling:
 * they print as the mesh op's discardable `shardc.explicit_axes`. */
static void print_mesh(MlirPrinter *p, const Mesh *mesh)
{
    writer_printf(p->out, "  sdy.mesh @%s = ", mesh->name);
    mlir_print_mesh_literal(p->out, mesh);
    int explicit = 0;
    for (int k = 0; k < mesh->num_axes; k++) {
        if (!mesh->axes[k].is_explicit)
            continue;
        writer_str(p->out, explicit++ ? ", " : " {shardc.explicit_axes = [");
        mlir_print_string(p->out, mesh->axes[k].name);
    }
    writer_str(p->out, explicit ? "]}\n" : "\n");
}

static void print_module_head(MlirPrinter *p, const Module *m)
{
    const struct MlirExtra *x = m->mlir;
    writer_str(p->out, "module");
    if (x && x->module_name)
        writer_printf(p->out, " @%s", x->module_name);
    print_kept_attributes(p, x ? &x->attrs : NULL);
    writer_str(p->out, " {\n");
}

/* The channel handles collectives keep (as read): the next new one is
 * past the largest; a copy of a collective (the partitioner's) repeats
 * its handle and takes a new one. An open-addressing set of handles. */
typedef struct KeptChannels {
    MlirPrinter *p;
    int64_t *set, cap;
} KeptChannels;

static bool seen_channel(KeptChannels *k, int64_t handle)
{
    int64_t i = handle % k->cap;
    for (; k->set[i]; i = (i + 1) % k->cap)
        if (k->set[i] == handle)
            return true;
    k->set[i] = handle;
    return false;
}

static bool kept_channel(Op *op, void *user)
{
    KeptChannels *k = user;
    int64_t kept = mlir_kept_channel_handle(op);
    if (kept <= 0)
        return true;
    if (kept >= k->p->next_channel)
        k->p->next_channel = kept + 1;
    k->p->channel_repeats[op->id] = seen_channel(k, kept);
    return true;
}

/* Only the MLIR importer keeps channel handles (and it always sets
 * Module.mlir): a module read from .shir has none, and skips the walk, a
 * cache miss an op. */
static void find_kept_channels(MlirPrinter *p, const Module *m)
{
    if (!m->mlir)
        return;
    KeptChannels k = {p, NULL, 2 * (int64_t)m->num_ops + 1};
    k.set = ARENA_ARRAY(&p->arena, int64_t, k.cap); /* zeroed: no handle is 0 here */
    p->channel_repeats = ARENA_ARRAY(&p->arena, bool, m->num_ops + 1);
    ir_walk_module(m, &(IrWalker){.pre = kept_channel, .user = &k});
}

void mlir_print_module(FILE *stream, const Module *m)
{
    Writer out;
    writer_init(&out, stream);
    MlirPrinter p = {.out = &out, .m = m, .renumber = m->mlir != NULL, .next_channel = 1};
    arena_init(&p.arena);
    find_kept_channels(&p, m);
    find_forms(&p);
    mlir_text_caches_init(&p);
    p.names = ARENA_ARRAY(&p.arena, const char *, m->num_values + 1);
    p.aux = ARENA_ARRAY(&p.arena, const char **, m->num_ops + 1);
    p.plans = ARENA_ARRAY(&p.arena, const void *, m->num_ops + 1);
    print_module_head(&p, m);
    for (int i = 0; i < m->num_meshes; i++)
        print_mesh(&p, m->meshes[i]);
    for (int i = 0; i < m->num_funcs; i++)
        print_func(&p, m->funcs[i]);
    writer_str(&out, "}\n");
    writer_flush(&out);
    arena_free(&p.arena);
}
