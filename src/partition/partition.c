/* The partitioner's driver: each function becomes one SPMD program — a
 * shard_map over all mesh axes whose body is the per-device program, built
 * op by op (src/partition/ops.c) with the collectives the shardings need.
 * Compile cost does not depend on the number of devices: nothing here
 * loops over devices. */
#include <stdio.h>
#include <string.h>
#include "shardc/layout.h"
#include "partition/partition_ctx.h"
#include "shardc/verify.h"

/* False (stop) at a custom op naming the function. */
static bool names_other(Op *op, void *func)
{
    const Func *f = func;
    const char *p = op->kind == OP_CUSTOM ? op_attr_symbol(op, ATTR_KEY_PARTITION) : NULL;
    return !(op->kind == OP_CUSTOM && (strcmp(op->callee, f->name) == 0 || (p && strcmp(p, f->name) == 0)));
}

/* Functions that custom ops of the global program use as implementation
 * or partition function keep their global form. (Custom ops in shard_map
 * bodies are not looked at.) A module that never held a custom op is not
 * walked: on a large one the walk is a cache miss per op for nothing. */
static bool used_by_custom_op(const Module *m, const Func *f)
{
    return m->ops_created[OP_CUSTOM] > 0 &&
           !ir_walk_module(m, &(IrWalker){.pre = names_other, .user = (void *)f, .scope = IR_WALK_GLOBAL});
}

/* Every sharding of the function is on one mesh. (Dims need not divide:
 * uneven ones are padded, docs/partitioning.md "Uneven dims".) A mesh equal
 * to it by value, or the empty placeholder mesh (whose shardings shard
 * nothing), is taken as it. */
static bool check_sharding(PartitionCtx *pc, Sharding **s, const char *what, Loc loc)
{
    if (!*s || (*s)->mesh == pc->mesh)
        return true;
    if (mesh_equal((*s)->mesh, pc->mesh) || mesh_is_empty((*s)->mesh)) {
        Sharding *clone = sharding_clone(&pc->module->arena, *s);
        clone->mesh = pc->mesh;
        *s = clone;
        return true;
    }
    diag_error(pc->diag, loc, "%s is sharded on mesh '@%s' but the function on '@%s'; one mesh per "
               "function is supported", what, (*s)->mesh->name, pc->mesh->name);
    return false;
}

static bool check_value(PartitionCtx *pc, Value *v)
{
    char what[256];
    if (!v->sharding || v->sharding->mesh == pc->mesh) /* the common case: no name to format */
        return true;
    snprintf(what, sizeof what, "%%%s", v->name);
    return check_sharding(pc, &v->sharding, what, v->loc);
}

typedef struct MeshCheck {
    PartitionCtx *pc;
    bool ok;
} MeshCheck;

static bool check_value_mesh(Value *v, void *user)
{
    MeshCheck *c = user;
    c->ok &= check_value(c->pc, v);
    return true;
}

/* Values of shard_map bodies are per-device: their mesh is the body's.
 * The function's result shardings too are on its mesh (one on another
 * mesh became out_specs whose axes meant the other mesh's, and a division
 * by zero: tests/partition/result_other_mesh.shir). */
static bool check_func(PartitionCtx *pc, const Func *f)
{
    MeshCheck c = {pc, true};
    ir_walk(f->body, &(IrWalker){.value = check_value_mesh, .user = &c, .scope = IR_WALK_GLOBAL});
    for (int j = 0; j < f->num_results; j++) {
        char what[256];
        snprintf(what, sizeof what, "result %d of '@%s'", j, f->name);
        c.ok &= check_sharding(pc, &f->result_shardings[j], what, f->result_locs ? f->result_locs[j] : f->loc);
    }
    return c.ok;
}

static void init_ctx(PartitionCtx *pc, Module *m, DiagEngine *diag, PartitionStats *stats, const Mesh *mesh)
{
    memset(pc, 0, sizeof *pc);
    pc->module = m;
    pc->diag = diag;
    pc->stats = stats;
    pc->mesh = mesh;
    pc->executions = 1;
    pc->ok = true;
    arena_init(&pc->scratch);
    arena_init(&pc->tables);
    rule_cache_init(&pc->rules);
    pc->num_global_values = m->num_values;
    /* Not in the module's arena: one table per function, each as large as
     * the module, took num_funcs * num_values memory. */
    pc->versions = ARENA_ARRAY(&pc->tables, LocalVersion *, m->num_values + 1);
    interner_init(&pc->shapes, &m->arena);
}

/* What building the body needs and the shard_map around it does not: its
 * specs are made after (the partitioner's peak of memory). */
static void release_tables(PartitionCtx *pc)
{
    arena_free(&pc->tables);
    pc->versions = NULL;
    pc->masks = NULL;
    pc->halos = NULL;
    pc_free_layouts(pc);
    pc_free_assignments(pc);
    interner_free(&pc->shapes);
    pc_names_free(pc);
    rule_cache_free(&pc->rules);
}

static void free_ctx(PartitionCtx *pc)
{
    release_tables(pc);
    arena_free(&pc->scratch);
}

/* The region's arguments: one per-device value per function argument. */
static Block *begin_body(PartitionCtx *pc, Func *f)
{
    Block *body = ARENA_NEW(&pc->module->arena, Block);
    body->parent_func = f;
    body->num_args = f->body->num_args;
    body->args = ARENA_ARRAY(&pc->module->arena, Value *, body->num_args + 1);
    for (int i = 0; i < body->num_args; i++) {
        const Value *arg = f->body->args[i];
        DimAxes layout;
        pc_layout_of(&layout, arg);
        Value *local = pc_new_local_value(pc, arg, pc_local_type(pc, &arg->type, &layout));
        local->block = body;
        local->index = i;
        body->args[i] = local;
        AxisList partial; /* an unreduced argument comes in as its partials */
        pc_unreduced_of(&partial, arg->sharding);
        pc_add_partial_version(pc, arg, local, &layout, &partial, pc_unreduced_kind(arg->sharding));
    }
    pc->body = body;
    return body;
}

static const Sharding *result_sharding(const Func *f, int j)
{
    return f->result_shardings[j] ? f->result_shardings[j] : f->body->returns[j]->sharding;
}

static AttrValue *specs_attr(PartitionCtx *pc, Sharding *const *specs, int count)
{
    AttrValue *a = attr_new(&pc->module->arena, ATTR_ARRAY, (Loc){0});
    a->u.array.count = count;
    a->u.array.items = ARENA_ARRAY(&pc->module->arena, AttrValue *, count + 1);
    for (int i = 0; i < count; i++) {
        DimAxes layout;
        reshard_dim_axes_from_sharding(&layout, specs[i], specs[i] ? specs[i]->rank : 0);
        Sharding *spec = pc_sharding_in(pc, &pc->scratch, &layout);
        if (specs[i] && specs[i]->num_unreduced) { /* the shard_map sums them (docs/partitioning.md) */
            spec->num_unreduced = specs[i]->num_unreduced;
            spec->unreduced = specs[i]->unreduced;
            spec->unreduced_op = specs[i]->unreduced_op;
        }
        /* one copy of each: a model's weights share a handful */
        a->u.array.items[i] = attr_new(&pc->module->arena, ATTR_SHARDING, (Loc){0});
        a->u.array.items[i]->u.sharding = module_intern_sharding(pc->module, spec);
    }
    return a;
}

static AttrValue *symbol_attr(PartitionCtx *pc, const char *name)
{
    AttrValue *a = attr_new(&pc->module->arena, ATTR_SYMBOL, (Loc){0});
    a->u.s = name;
    return a;
}

/* Close the region with the results laid out as the function returns them. */
static void end_body(PartitionCtx *pc, Func *f, Block *body)
{
    body->num_returns = f->num_results;
    body->returns = ARENA_ARRAY(&pc->module->arena, Value *, f->num_results + 1);
    body->return_loc = f->body->return_loc;
    for (int j = 0; j < f->num_results && pc->ok; j++) {
        DimAxes want;
        reshard_dim_axes_from_sharding(&want, result_sharding(f, j), f->result_types[j].rank);
        pc->reason = pc_printf(pc, "returned value %%%s laid out as result %d's sharding %s",
                               f->body->returns[j]->name, j, pc_format_layout(pc, &want));
        AxisList keep; /* a result kept unreduced is returned as its partials */
        pc_unreduced_of(&keep, result_sharding(f, j));
        body->returns[j] = pc_local_as_partial(pc, f->body->returns[j], &want, &keep,
                                               pc_unreduced_kind(result_sharding(f, j)), f->body->return_loc);
    }
}

static bool any_uneven(Value *const *values, int count, Sharding *const *specs)
{
    for (int i = 0; i < count; i++)
        if (specs[i] && !sharding_divides(specs[i], &values[i]->type))
            return true;
    return false;
}

static bool any_uneven_results(const Func *f, Sharding *const *specs)
{
    for (int j = 0; j < f->num_results; j++)
        if (specs[j] && !sharding_divides(specs[j], &f->result_types[j]))
            return true;
    return false;
}

/* The shard_map's j-th result keeps the returned value's name unless the
 * outer function already uses it (an argument, an earlier result): then
 * "result", "result.1", ... */
static const char *outer_result_name(SymTab *names, Arena *arena, const char *wanted)
{
    const char *name = wanted;
    char buf[64];
    for (int n = 0; symtab_get(names, name); n++) {
        if (n == 0)
            snprintf(buf, sizeof buf, "result");
        else
            snprintf(buf, sizeof buf, "result.%d", n);
        name = buf;
    }
    name = arena_strdup(arena, name);
    symtab_put(names, name, (void *)name);
    return name;
}

/* func @f(args) { %r = shard_map args {...} (locals) { body } ; return %r } */
static void install_spmd_body(PartitionCtx *pc, Func *f, Block *body)
{
    Module *m = pc->module;
    Op *smap = op_new(m, OP_SHARD_MAP, f->loc);
    smap->num_operands = f->body->num_args;
    smap->operands = f->body->args;
    smap->region = body;
    body->parent_op = smap;
    Sharding *in[f->body->num_args + 1], *out[f->num_results + 1];
    for (int i = 0; i < f->body->num_args; i++)
        in[i] = f->body->args[i]->sharding;
    for (int j = 0; j < f->num_results; j++)
        out[j] = (Sharding *)result_sharding(f, j);
    pc_set_attr(pc, smap, ATTR_KEY_MESH, symbol_attr(pc, pc->mesh->name));
    pc_set_attr(pc, smap, ATTR_KEY_IN_SPECS, specs_attr(pc, in, f->body->num_args));
    pc_set_attr(pc, smap, ATTR_KEY_OUT_SPECS, specs_attr(pc, out, f->num_results));
    if (any_uneven(f->body->args, f->body->num_args, in) || any_uneven_results(f, out))
        pc_set_attr(pc, smap, ATTR_KEY_PAD_UNEVEN, pc_bool_attr(pc, true));
    Block *outer = ARENA_NEW(&m->arena, Block);
    *outer = (Block){f->body->num_args, f->body->args, NULL, NULL, 0, NULL, f->body->return_loc, NULL, f};
    SymTab outer_names;
    symtab_init(&outer_names, NULL);
    for (int i = 0; i < outer->num_args; i++)
        symtab_put(&outer_names, outer->args[i]->name, outer->args[i]);
    smap->num_results = f->num_results;
    smap->results = ARENA_ARRAY(&m->arena, Value *, f->num_results + 1);
    outer->returns = smap->results;
    outer->num_returns = f->num_results;
    for (int j = 0; j < f->num_results; j++) {
        Value *r = value_new(m, outer_result_name(&outer_names, &m->arena, f->body->returns[j]->name),
                             f->result_types[j], f->body->return_loc);
        r->def = smap;
        r->index = j;
        r->sharding = out[j];
        smap->results[j] = r;
        f->result_shardings[j] = out[j];
    }
    symtab_free(&outer_names);
    for (int i = 0; i < outer->num_args; i++)
        outer->args[i]->block = outer;
    block_append(outer, smap);
    f->body = outer;
}

/* False (stop) at a call or custom op naming the function, anywhere. */
static bool uses_other(Op *op, void *func)
{
    return names_other(op, func) && !(op->kind == OP_CALL && strcmp(op->callee, ((Func *)func)->name) == 0);
}

/* False (stop) at a collective outside shard_map bodies. */
static bool not_collective(Op *op, void *first)
{
    if (op_info(op->kind)->op_class != OPC_COLLECTIVE)
        return true;
    *(Op **)first = op;
    return false;
}

/* A function left global (no mesh) runs on the host when it is an entry:
 * a collective outside shard_map there has no devices, and `shardc run`
 * would refuse it. Functions called (from shard_map bodies, say) or used
 * by custom ops run per device, and may hold collectives. */
static bool host_runnable(Module *m, Func *f, DiagEngine *diag)
{
    Op *first = NULL;
    if (f->called || ir_walk(f->body, &(IrWalker){.pre = not_collective, .user = &first, .scope = IR_WALK_GLOBAL}) ||
        !ir_walk_module(m, &(IrWalker){.pre = uses_other, .user = f}))
        return true;
    diag_error(diag, first->loc, "'%s' outside any shard_map in '@%s', which no call or custom op uses: there "
               "are no devices to communicate with", op_info(first->kind)->name, f->name);
    return false;
}

/* A run's devices are numbered from 0 (the interpreter and the MPI ranks
 * index them so): a maximal mesh on another device is read, propagated
 * and printed, but its function is not partitioned. */
static bool check_maximal_device(const Func *f, const Mesh *mesh, DiagEngine *diag)
{
    if (mesh->num_axes || !mesh->device_ids || mesh->device_ids[0] == 0)
        return true;
    diag_error(diag, mesh->loc, "'@%s' is on maximal mesh '@%s' (device %lld): shardc partitions and runs a "
               "maximal mesh only on device 0", f->name, mesh->name, (long long)mesh->device_ids[0]);
    return false;
}

static bool partition_func(Module *m, Func *f, DiagEngine *diag, PartitionStats *stats, ReshardPlanChoice choice)
{
    const Mesh *mesh = func_first_mesh(f);
    if (!mesh || used_by_custom_op(m, f))
        return true;
    if (!check_maximal_device(f, mesh, diag))
        return false;
    PartitionCtx pc;
    init_ctx(&pc, m, diag, stats, mesh);
    pc.fewest_bytes = choice == RESHARD_PLAN_FEWEST_BYTES;
    if (!check_func(&pc, f)) {
        free_ctx(&pc);
        return false;
    }
    Block *body = begin_body(&pc, f);
    for (Op *op = f->body->first; op && pc.ok; op = op->next) {
        arena_reset(&pc.scratch);
        pc_partition_op(&pc, op);
    }
    end_body(&pc, f, body);
    release_tables(&pc);
    if (pc.ok)
        install_spmd_body(&pc, f, body);
    free_ctx(&pc);
    return pc.ok;
}

bool partition_module(Module *m, DiagEngine *diag, PartitionStats *stats, const PartitionOptions *opt)
{
    const char *counted = opt->counted;
    int errors = diag->errors;
    /* before partitioning replaces custom ops by their partition functions */
    for (int i = 0; i < m->num_funcs; i++)
        if (!func_first_mesh(m->funcs[i]) && !host_runnable(m, m->funcs[i], diag))
            return false;
    PartitionStats uncounted = {0};
    for (int i = 0; i < m->num_funcs; i++) {
        bool counts = !counted || strcmp(m->funcs[i]->name, counted) == 0;
        if (!partition_func(m, m->funcs[i], diag, counts ? stats : &uncounted, opt->reshard_plan))
            return false;
    }
    /* The SPMD program is .shir like any other: it must verify. */
    /* custom ops' targets were checked (or left to run time) by the first
     * verification: the partitioned program keeps the same ones */
    if (diag->errors == errors && !verify_module_targets(m, diag, true))
        diag_error(diag, (Loc){m->file, 0, 0}, "internal error: the partitioned program does not verify");
    return diag->errors == errors;
}
