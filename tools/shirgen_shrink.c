/* Test-case reduction for shirgen (tools/difftest.sh drives it): variant k
 * of a program is the program with the k-th candidate edit applied and the
 * dead code it leaves removed. The edits keep programs valid in almost all
 * cases (the driver re-checks every variant anyway):
 *   - remove all dead code, or one dead op (dead code can matter: its
 *     shardings propagate to live values);
 *   - drop one result of the entry function;
 *   - cut an op of the entry function: its results become new arguments;
 *   - bypass a one-result op: its uses take an operand of the same type;
 *   - drop a sharding (argument, result, op result) or a partition function;
 *   - drop a mesh's device order.
 * Unused entry arguments and unreferenced functions then go. */
#include <string.h>
#include "shardc/parse.h"
#include "shardc/print.h"
#include "shirgen.h"

typedef enum { ED_DCE, ED_REMOVE, ED_DROP_RESULT, ED_CUT, ED_BYPASS, ED_UNSHARD_VALUE,
               ED_UNSHARD_RESULT, ED_DROP_PARTITION, ED_DROP_DEVICE_IDS } EditKind;

typedef struct Edit {
    EditKind kind;
    Func *func;
    Op *op;
    Value *value;
    int index;
} Edit;

typedef struct Edits {
    Edit *items;
    int count, cap;
    Module *m;
    /* A partition function is written for one layout of its custom op's
     * operands and results, and for its implementation's exact semantics:
     * edits must leave those values' shardings, the ops pinning them and
     * both functions alone, or a correct compiler would "fail". */
    bool *pinned;       /* by Value.id */
    bool *frozen;       /* by function index */
    int *uses;          /* by Value.id */
} Edits;

static int *count_all_uses(Module *m);
static void remove_dead_code(Module *m);

static void add_edit(Edits *e, Edit ed)
{
    if (e->count == e->cap) {
        int cap = e->cap ? 2 * e->cap : 64;
        Edit *items = ARENA_ARRAY(&e->m->arena, Edit, cap);
        if (e->count)
            memcpy(items, e->items, sizeof(Edit) * (size_t)e->count);
        e->items = items, e->cap = cap;
    }
    e->items[e->count++] = ed;
}

static int find_func(const Module *m, const char *name)
{
    for (int i = 0; name && i < m->num_funcs; i++)
        if (strcmp(m->funcs[i]->name, name) == 0)
            return i;
    return -1;
}

static void mark_partitioned(Edits *e, const Block *b)
{
    for (const Op *op = b->first; op; op = op->next) {
        const char *part = op_attr_symbol(op, ATTR_KEY_PARTITION);
        if (op->kind != OP_CUSTOM || !part)
            continue;
        for (int i = 0; i < op->num_operands; i++)
            e->pinned[op->operands[i]->id] = true;
        for (int i = 0; i < op->num_results; i++)
            e->pinned[op->results[i]->id] = true;
        int fns[2] = {find_func(e->m, op->callee), find_func(e->m, part)};
        for (int k = 0; k < 2; k++)
            if (fns[k] >= 0)
                e->frozen[fns[k]] = true;
    }
}

static bool op_dead(const Edits *e, const Op *op)
{
    for (int i = 0; i < op->num_results; i++)
        if (e->uses[op->results[i]->id])
            return false;
    return true;
}

typedef struct FuncEdits {
    Edits *e;
    Func *f;
} FuncEdits;

/* Dead ops to remove one by one, and bypass candidates: each operand whose
 * type equals the single result's. */
static bool enum_op_edits(Op *op, void *user)
{
    FuncEdits *fe = user;
    Edits *e = fe->e;
    bool pinned = op->num_results == 1 && e->pinned[op->results[0]->id];
    if (op_dead(e, op))
        add_edit(e, (Edit){ED_REMOVE, fe->f, op, NULL, 0});
    for (int i = 0; op->num_results == 1 && !pinned && i < op->num_operands; i++)
        if (type_equal(&op->operands[i]->type, &op->results[0]->type))
            add_edit(e, (Edit){ED_BYPASS, fe->f, op, NULL, i});
    return true;
}

static void enum_shardings(Edits *e, Func *f)
{
    for (int i = 0; i < f->body->num_args; i++)
        if (f->body->args[i]->sharding && !e->pinned[f->body->args[i]->id])
            add_edit(e, (Edit){ED_UNSHARD_VALUE, f, NULL, f->body->args[i], 0});
    for (int i = 0; i < f->num_results; i++)
        if (f->result_shardings[i] && !e->pinned[f->body->returns[i]->id])
            add_edit(e, (Edit){ED_UNSHARD_RESULT, f, NULL, NULL, i});
    for (Op *op = f->body->first; op; op = op->next) {
        for (int i = 0; op_info(op->kind)->op_class != OPC_SHARDING && i < op->num_results; i++)
            if (op->results[i]->sharding && !e->pinned[op->results[i]->id])
                add_edit(e, (Edit){ED_UNSHARD_VALUE, f, op, op->results[i], 0});
    }
}

static void enum_partitions(Edits *e, Func *f)
{
    for (Op *op = f->body->first; op; op = op->next)
        if (op->kind == OP_CUSTOM && op_attr_find(op, ATTR_KEY_PARTITION))
            add_edit(e, (Edit){ED_DROP_PARTITION, f, op, NULL, 0});
}

/* Coarse edits first: they remove the most when they keep the failure. */
static void enumerate_edits(Module *m, Edits *e)
{
    Func *entry = m->funcs[0];
    e->pinned = ARENA_ARRAY(&m->arena, bool, m->num_values + 1);
    e->frozen = ARENA_ARRAY(&m->arena, bool, m->num_funcs);
    for (int i = 0; i < m->num_funcs; i++)
        mark_partitioned(e, m->funcs[i]->body);
    e->uses = count_all_uses(m);
    add_edit(e, (Edit){ED_DCE, NULL, NULL, NULL, 0});
    for (int i = 0; entry->num_results > 1 && i < entry->num_results; i++)
        add_edit(e, (Edit){ED_DROP_RESULT, entry, NULL, NULL, i});
    enum_partitions(e, entry);
    for (Op *op = entry->body->first; op; op = op->next)
        add_edit(e, (Edit){ED_CUT, entry, op, NULL, 0});
    for (int i = 0; i < m->num_funcs; i++) {
        FuncEdits fe = {e, m->funcs[i]};
        if (!e->frozen[i])
            ir_walk(m->funcs[i]->body, &(IrWalker){.pre = enum_op_edits, .user = &fe});
    }
    enum_shardings(e, entry);
    for (int i = 0; i < m->num_meshes; i++)
        if (m->meshes[i]->device_ids)
            add_edit(e, (Edit){ED_DROP_DEVICE_IDS, NULL, NULL, NULL, i});
}

typedef struct Replace {
    const Value *from;
    Value *to;
} Replace;

static bool replace_in_operands(Op *op, void *user)
{
    const Replace *r = user;
    for (int i = 0; i < op->num_operands; i++)
        if (op->operands[i] == r->from)
            op->operands[i] = r->to;
    return true;
}

static bool replace_in_returns(Block *b, void *user)
{
    const Replace *r = user;
    for (int i = 0; i < b->num_returns; i++)
        if (b->returns[i] == r->from)
            b->returns[i] = r->to;
    return true;
}

static void replace_uses(Block *b, const Value *from, Value *to)
{
    Replace r = {from, to};
    ir_walk(b, &(IrWalker){.pre = replace_in_operands, .leave = replace_in_returns, .user = &r});
}

static void append_arg(Module *m, Block *b, Value *v)
{
    Value **args = ARENA_ARRAY(&m->arena, Value *, b->num_args + 1);
    if (b->num_args)
        memcpy(args, b->args, sizeof(Value *) * (size_t)b->num_args);
    v->def = NULL;
    v->block = b;
    v->index = b->num_args;
    args[b->num_args++] = v;
    b->args = args;
}

static void drop_result(Func *f, int k)
{
    for (int i = k; i + 1 < f->num_results; i++) {
        f->body->returns[i] = f->body->returns[i + 1];
        f->result_types[i] = f->result_types[i + 1];
        f->result_shardings[i] = f->result_shardings[i + 1];
        f->result_locs[i] = f->result_locs[i + 1];
        if (f->result_logical)
            f->result_logical[i] = f->result_logical[i + 1];
    }
    f->num_results--;
    f->body->num_returns--;
}

static void drop_attr(Op *op, AttrKey key)
{
    int n = 0;
    for (int i = 0; i < op->num_attrs; i++)
        if (op->attrs[i].key != key)
            op->attrs[n++] = op->attrs[i];
    op->num_attrs = n;
}

static void apply_edit(Module *m, const Edit *e)
{
    switch (e->kind) {
    case ED_DCE: remove_dead_code(m); break;
    case ED_REMOVE: block_remove(e->op->parent, e->op); break;
    case ED_DROP_RESULT: drop_result(e->func, e->index); break;
    case ED_CUT:
        for (int i = 0; i < e->op->num_results; i++)
            append_arg(m, e->func->body, e->op->results[i]);
        block_remove(e->op->parent, e->op);
        break;
    case ED_BYPASS:
        replace_uses(e->func->body, e->op->results[0], e->op->operands[e->index]);
        block_remove(e->op->parent, e->op);
        break;
    case ED_UNSHARD_VALUE: e->value->sharding = NULL; break;
    case ED_UNSHARD_RESULT: e->func->result_shardings[e->index] = NULL; break;
    case ED_DROP_PARTITION: drop_attr(e->op, ATTR_KEY_PARTITION); break;
    case ED_DROP_DEVICE_IDS: m->meshes[e->index]->device_ids = NULL; break;
    }
}

static bool count_operand_uses(Op *op, void *uses)
{
    for (int i = 0; i < op->num_operands; i++)
        ((int *)uses)[op->operands[i]->id]++;
    return true;
}

static bool count_return_uses(Block *b, void *uses)
{
    for (int i = 0; i < b->num_returns; i++)
        ((int *)uses)[b->returns[i]->id]++;
    return true;
}

typedef struct DeadCode {
    const int *uses;
    bool changed;       /* an op went */
} DeadCode;

/* Remove an op none of whose results is used (the walk skips its body). */
static bool remove_if_dead(Op *op, void *user)
{
    DeadCode *d = user;
    bool live = false;
    for (int i = 0; i < op->num_results; i++)
        live |= d->uses[op->results[i]->id] > 0;
    if (!live) {
        block_remove(op->parent, op);
        d->changed = true;
    }
    return true;
}

static void remove_unused_args(Block *b, const int *uses)
{
    int n = 0;
    for (int i = 0; i < b->num_args; i++) {
        if (uses[b->args[i]->id] == 0)
            continue;
        b->args[i]->index = n;
        b->args[n++] = b->args[i];
    }
    b->num_args = n;
}

static int *count_all_uses(Module *m)
{
    int *uses = ARENA_ARRAY(&m->arena, int, m->num_values + 1);
    ir_walk_module(m, &(IrWalker){.pre = count_operand_uses, .leave = count_return_uses, .user = uses});
    return uses;
}

static void remove_dead_code(Module *m)
{
    for (bool changed = true; changed;) {
        DeadCode d = {count_all_uses(m), false};
        ir_walk_module(m, &(IrWalker){.pre = remove_if_dead, .user = &d});
        changed = d.changed;
    }
}

typedef struct Refs {
    const Module *m;
    bool *live;         /* by function index */
} Refs;

/* The functions an op names are live, and so are those they name. */
static bool mark_op_refs(Op *op, void *user)
{
    Refs *r = user;
    const char *part = op_attr_symbol(op, ATTR_KEY_PARTITION);
    int refs[2] = {find_func(r->m, op->callee), part ? find_func(r->m, part) : -1};
    for (int k = 0; k < 2; k++) {
        if (refs[k] >= 0 && !r->live[refs[k]]) {
            r->live[refs[k]] = true;
            ir_walk(r->m->funcs[refs[k]]->body, &(IrWalker){.pre = mark_op_refs, .user = r});
        }
    }
    return true;
}

static void remove_dead_funcs(Module *m)
{
    bool *live = ARENA_ARRAY(&m->arena, bool, m->num_funcs);
    live[0] = true;
    ir_walk(m->funcs[0]->body, &(IrWalker){.pre = mark_op_refs, .user = &(Refs){m, live}});
    int n = 0;
    for (int i = 0; i < m->num_funcs; i++)
        if (live[i])
            m->funcs[n++] = m->funcs[i];
    m->num_funcs = n;
}

int shrink_variant(const char *file, const char *text, size_t len, int k, FILE *out)
{
    DiagEngine diag;
    diag_init(&diag, stderr);
    diag_add_source(&diag, file, text, len);
    Module *m = parse_module(file, text, len, &diag);
    int status = m && m->num_funcs ? 3 : 1;
    Edits edits = {.m = m};
    if (m && m->num_funcs)
        enumerate_edits(m, &edits);
    if (status == 3 && k < edits.count) {
        apply_edit(m, &edits.items[k]);
        remove_unused_args(m->funcs[0]->body, count_all_uses(m));
        remove_dead_funcs(m);
        print_module(out, m);
        status = 0;
    }
    module_free(m);
    diag_free(&diag);
    return status;
}
