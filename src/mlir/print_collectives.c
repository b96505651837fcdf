/* Collectives as JAX lowers them in a shard_map body (and as Shardy's
 * convert-global-to-local prints them): stablehlo.all_reduce,
 * all_gather, reduce_scatter, all_to_all and collective_permute in MLIR's
 * generic form, over replica groups of global device ids
 * (use_global_device_ids), each with its own channel handle.
 *
 * JAX spells the untiled (stacked) forms with reshapes around the tiled
 * op: all_gather(tiled=false) gathers a broadcast_in_dim that adds the
 * stacking dim; psum_scatter(tiled=false) reshapes the scattered dim
 * away; all_to_all(tiled=false) adds the concat dim and drops the split
 * one (and read back as the reshapes and tiled collective they are). pmean,
 * axis_index, all_slice, replicated_to_unreduced and sharded_to_unreduced
 * have no single StableHLO op and print in the generic "shardc.<op>" form
 * (outside a shard_map, the last two are Shardy's sdy ops). */
#include <stdlib.h>
#include <string.h>
#include "print_internal.h"
#include "shardc/layout.h"

typedef struct Collective {
    const Mesh *mesh;
    int num_axes;
    AxisRef axes[AXIS_LIST_MAX];
    const char *body;       /* the reducer's stablehlo op, or NULL */
    bool mesh_axes;         /* groups printed as mesh axes (mesh_axes_groups) */
} Collective;

/* Its `mesh`, else its shard_map's, else the module's only one. */
static const Mesh *collective_mesh(const MlirPrinter *p, const Op *op)
{
    const Mesh *mesh = op_attr_mesh(p->m, op, ATTR_KEY_MESH);
    for (const Block *b = op->parent; !mesh && b && b->parent_op; b = b->parent_op->parent)
        mesh = op_attr_mesh(p->m, b->parent_op, ATTR_KEY_MESH);
    return mesh ? mesh : p->m->num_meshes == 1 ? p->m->meshes[0] : NULL;
}

static const char *reducer(const Op *op, DType dt)
{
    if (op->kind != OP_ALL_REDUCE && op->kind != OP_REDUCE_SCATTER)
        return mlir_reduce_body(op->kind, dt);
    const char *r = op_attr_string(op, ATTR_KEY_REDUCTION);
    if (!r || strcmp(r, "sum") == 0)
        return mlir_reduce_body(OP_PSUM, dt);
    if (strcmp(r, "max") == 0 || strcmp(r, "min") == 0)
        return mlir_reduce_body(r[1] == 'a' ? OP_PMAX : OP_PMIN, dt);
    return NULL; /* mean: no StableHLO reducer */
}

/* False (the op then prints generically) for collectives with no
 * StableHLO spelling or whose mesh or axes do not resolve. */
static bool resolve(const MlirPrinter *p, const Op *op, Collective *c)
{
    memset(c, 0, sizeof *c);
    if (op->num_operands != 1 || op->num_results != 1)
        return false;
    if (op->kind != OP_COLLECTIVE_PERMUTE) {
        const AttrValue *axes = op_attr_get(op, ATTR_KEY_AXES);
        if (!axes || axes->kind != ATTR_ARRAY || axes->u.array.count > AXIS_LIST_MAX)
            return false;
        c->mesh = collective_mesh(p, op);
        for (int i = 0; c->mesh && i < axes->u.array.count; i++) {
            const AttrValue *a = axes->u.array.items[i];
            if (a->kind != ATTR_STRING || !axis_ref_parse(c->mesh, a->u.s, &c->axes[c->num_axes++]))
                return false;
        }
    } else {
        const Sharding *src = op_attr_sharding(op, ATTR_KEY_SOURCE), *dst = op_attr_sharding(op, ATTR_KEY_TARGET);
        c->mesh = src && dst && src->mesh == dst->mesh ? src->mesh : NULL;
    }
    bool reduces = op->kind == OP_PSUM || op->kind == OP_PMAX || op->kind == OP_PMIN ||
                   op->kind == OP_ALL_REDUCE || op->kind == OP_PSUM_SCATTER || op->kind == OP_REDUCE_SCATTER;
    if (reduces)
        c->body = reducer(op, op->operands[0]->type.dtype);
    c->mesh_axes = op_attr_bool(op, ATTR_KEY_MESH_AXES_GROUPS);
    return c->mesh && c->mesh->num_devices > 0 && (!reduces || c->body);
}

static bool untiled(const Op *op) { return !op_attr_bool(op, ATTR_KEY_TILED); }

int mlir_plan_collective(MlirPrinter *p, const Op *op, MlirAux *aux)
{
    Collective c;
    if (!resolve(p, op, &c) || !untiled(op))
        return 0;
    switch (op->kind) {
    case OP_ALL_GATHER: aux[0] = (MlirAux){"broadcast", NULL}; return 1;
    case OP_PSUM_SCATTER: aux[0] = (MlirAux){"reduce_scatter", NULL}; return 1;
    case OP_ALL_TO_ALL:
        if (op_attr_int(op, ATTR_KEY_SPLIT_AXIS) == op_attr_int(op, ATTR_KEY_CONCAT_AXIS))
            return 0;
        aux[0] = (MlirAux){"reshape", NULL};
        aux[1] = (MlirAux){"all_to_all", NULL};
        return 2;
    default: return 0;
    }
}

/* ---- device groups ------------------------------------------------------------ */

/* JAX's and Shardy's replica groups: the devices that agree on every
 * coordinate but those of the axes, each group in the axes' row-major
 * order, groups by their first member's position; global device ids. */
static int64_t *replica_groups(MlirPrinter *p, const Collective *c, int64_t *num_groups, int64_t *size)
{
    int64_t n = c->mesh->num_devices, s = axis_refs_size(c->axes, c->num_axes);
    int64_t *groups = ARENA_ARRAY(&p->arena, int64_t, n);
    int64_t *group_of = malloc(sizeof *group_of * (size_t)n);
    if (!group_of)
        arena_out_of_memory();
    int64_t g = 0;
    for (int64_t pos = 0; pos < n; pos++) {
        int64_t first = mesh_group_member(c->mesh, pos, c->axes, c->num_axes, 0);
        if (first == pos)
            group_of[pos] = g++; /* member 0 has the group's least position */
        int64_t k = group_of[first] * s + mesh_group_index(c->mesh, pos, c->axes, c->num_axes);
        groups[k] = mesh_device_id(c->mesh, pos);
    }
    free(group_of);
    *num_groups = g;
    *size = s;
    return groups;
}

/* ppermute: each [source, destination] pair of group indices, in every
 * group (JAX's _ppermute_lowering). */
static int64_t *ppermute_pairs(MlirPrinter *p, const Op *op, const Collective *c, int64_t *num_pairs)
{
    int64_t num_groups, size, pair[2];
    const int64_t *groups = replica_groups(p, c, &num_groups, &size);
    const AttrValue *perm = op_attr_get(op, ATTR_KEY_PERM);
    int n = perm && perm->kind == ATTR_ARRAY ? perm->u.array.count : 0;
    int64_t *pairs = ARENA_ARRAY(&p->arena, int64_t, 2 * num_groups * n + 2), k = 0;
    for (int64_t g = 0; g < num_groups; g++) {
        for (int i = 0; i < n; i++) {
            if (attr_int_array(perm->u.array.items[i], pair, 2) != 2 || pair[0] < 0 || pair[1] < 0 ||
                pair[0] >= size || pair[1] >= size)
                continue;
            pairs[2 * k] = groups[g * size + pair[0]];
            pairs[2 * k++ + 1] = groups[g * size + pair[1]];
        }
    }
    *num_pairs = k;
    return pairs;
}

static int compare_pairs(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* collective_permute {source, target}: device d gets the block it holds
 * under the target from the device that holds it under the source and
 * agrees with d on every coordinate the source does not shard (as
 * Shardy's convert-global-to-local pairs them); pairs by source. */
static int64_t *permute_pairs(MlirPrinter *p, const Op *op, const Collective *c, int64_t *num_pairs)
{
    const Sharding *from = op_attr_sharding(op, ATTR_KEY_SOURCE), *to = op_attr_sharding(op, ATTR_KEY_TARGET);
    int64_t n = c->mesh->num_devices;
    int64_t *pairs = ARENA_ARRAY(&p->arena, int64_t, 2 * n + 2);
    for (int64_t dst = 0; dst < n; dst++) {
        int64_t src = dst;
        for (int d = 0; d < from->rank && d < to->rank; d++) {
            int64_t block = mesh_group_index(c->mesh, dst, to->dims[d].axes, to->dims[d].num_axes);
            src = mesh_group_member(c->mesh, src, from->dims[d].axes, from->dims[d].num_axes, block);
        }
        pairs[2 * dst] = mesh_device_id(c->mesh, src);
        pairs[2 * dst + 1] = mesh_device_id(c->mesh, dst);
    }
    qsort(pairs, (size_t)n, 2 * sizeof *pairs, compare_pairs);
    *num_pairs = n;
    return pairs;
}

/* ---- printing ------------------------------------------------------------------- */

/* The channel handle read with the op (kept as written), or NULL. */
static const char *kept_channel(const Op *op)
{
    for (int i = 0; op->mlir && i < op->mlir->attrs.count; i++)
        if (strcmp(op->mlir->attrs.items[i].name, "channel_handle") == 0)
            return op->mlir->attrs.items[i].text;
    return NULL;
}

int64_t mlir_kept_channel_handle(const Op *op)
{
    const char *text = kept_channel(op), *at = text ? strstr(text, "handle = ") : NULL;
    return at ? strtoll(at + strlen("handle = "), NULL, 10) : 0;
}

/* The op's own channel handle, else the next one (counted past the
 * largest kept one, as Shardy's getNextChannelId counts). */
static void print_channel(MlirPrinter *p, const Op *op)
{
    const char *kept = kept_channel(op);
    if (kept && !(p->channel_repeats && p->channel_repeats[op->id]))
        writer_printf(p->out, "channel_handle = %s", kept);
    else
        writer_printf(p->out, "channel_handle = #stablehlo.channel_handle<handle = %lld, type = 1>",
                (long long)p->next_channel++);
}

/* StableHLO's replica groups by mesh axes (what Shardy's
 * convert-global-to-local writes with enable-rgv3): whole axes only. */
static void print_mesh_axes_groups(MlirPrinter *p, const Collective *c)
{
    writer_printf(p->out, "replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @%s, axes = [", c->mesh->name);
    for (int i = 0; i < c->num_axes; i++)
        writer_printf(p->out, "%s#stablehlo.axis_ref<name = \"%s\">", i ? ", " : "",
                      c->mesh->axes[c->axes[i].axis].name);
    writer_str(p->out, "]>");
}

static void print_groups(MlirPrinter *p, const Collective *c)
{
    if (c->mesh_axes) {
        print_mesh_axes_groups(p, c);
        return;
    }
    int64_t num_groups, size;
    const int64_t *groups = replica_groups(p, c, &num_groups, &size);
    writer_str(p->out, "replica_groups = ");
    mlir_print_dense_i64(p->out, groups, num_groups, size);
}

/* `%r = "stablehlo.<name>"(%x) <{` with the properties that sort before
 * the channel handle (all_gather_dim), the channel handle and the groups;
 * the caller closes them. */
static void open_collective(MlirPrinter *p, const char *name, MlirVal def, MlirVal x, int indent)
{
    writer_printf(p->out, "%*s%%%s = \"stablehlo.%s\"(", indent, "", def.name, name);
    mlir_print_val(p, x);
    writer_str(p->out, ") <{");
}

/* The reducer region `({ ^bb0(%a: tensor<f32>, %b: tensor<f32>): ... })`,
 * a region nested in the block being printed. */
static void print_reducer(MlirPrinter *p, const char *body, DType dt, int indent)
{
    MlirScope s;
    mlir_scope_init(&s, p, p->scope, p->scope);
    const char *a = mlir_scope_arg(p, &s, "lhs"), *b = mlir_scope_arg(p, &s, "rhs");
    const char *r = mlir_scope_value(p, &s, "reduced");
    const char *t = dtype_mlir_name(dt);
    writer_printf(p->out, " ({\n%*s^bb0(%%%s: tensor<%s>, %%%s: tensor<%s>):\n", indent, "", a, t, b, t);
    writer_printf(p->out, "%*s%%%s = %s %%%s, %%%s : tensor<%s>\n", indent + 2, "", r, body, a, b, t);
    writer_printf(p->out, "%*sstablehlo.return %%%s : tensor<%s>\n%*s})", indent + 2, "", r, t, indent, "");
}

/* ` {attrs} : (x) -> r` and the newline; the attributes only on the op
 * that defines the shardc op's result. */
static void close_line(MlirPrinter *p, const Op *op, MlirVal x, MlirVal r, bool final)
{
    static const AttrKey consumed[] = {ATTR_KEY_AXES, ATTR_KEY_AXIS, ATTR_KEY_TILED, ATTR_KEY_SCATTER_DIMENSION,
                                       ATTR_KEY_SPLIT_AXIS, ATTR_KEY_CONCAT_AXIS, ATTR_KEY_PERM,
                                       ATTR_KEY_REDUCTION, ATTR_KEY_DIM, ATTR_KEY_SOURCE, ATTR_KEY_TARGET,
                                       ATTR_KEY_MESH_AXES_GROUPS, 0};
    /* the spelling of the groups chosen (global_to_local.c): they name
     * their devices, the mesh is not printed */
    static const AttrKey consumed_mesh[] = {ATTR_KEY_AXES, ATTR_KEY_AXIS, ATTR_KEY_TILED, ATTR_KEY_SCATTER_DIMENSION,
                                            ATTR_KEY_SPLIT_AXIS, ATTR_KEY_CONCAT_AXIS, ATTR_KEY_PERM,
                                            ATTR_KEY_REDUCTION, ATTR_KEY_DIM, ATTR_KEY_SOURCE, ATTR_KEY_TARGET,
                                            ATTR_KEY_MESH_AXES_GROUPS, ATTR_KEY_MESH, 0};
    static const char *const spelled[] = {"channel_handle", NULL};
    if (final)
        mlir_print_op_attrs(p, op, &(MlirAttrOpts){
            .consumed = op_attr_find(op, ATTR_KEY_MESH_AXES_GROUPS) ? consumed_mesh : consumed,
            .skip_kept = spelled});
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, &x, 1, &r, 1);
    writer_char(p->out, '\n');
}

/* The value an op line defines: the op's result when final, else made-up
 * value k of type t. */
static MlirVal line_def(MlirPrinter *p, const Op *op, bool final, int k, TensorType t)
{
    return final ? mlir_val(p, op->results[0]) : mlir_aux_val(p, op, k, t);
}

/* A reshape JAX puts around an untiled collective. */
static MlirVal emit_reshape(MlirPrinter *p, const Op *op, MlirVal x, MlirVal r, int indent, bool final)
{
    writer_printf(p->out, "%*s%%%s = stablehlo.reshape ", indent, "", r.name);
    mlir_print_val(p, x);
    close_line(p, op, x, r, final);
    return r;
}

static TensorType with_dim(MlirPrinter *p, const TensorType *t, int64_t at, int64_t size, bool insert)
{
    TensorType r = {t->dtype, t->rank + (insert ? 1 : 0), ARENA_ARRAY(&p->arena, int64_t, t->rank + 2)};
    for (int d = 0, s = 0; d < r.rank; d++)
        r.dims[d] = d == at && insert ? size : t->dims[s++];
    if (!insert && at < r.rank)
        r.dims[at] = size;
    return r;
}

static void emit_all_reduce(MlirPrinter *p, const Op *op, const Collective *c, int indent)
{
    MlirVal x = mlir_val(p, op->operands[0]), r = mlir_val(p, op->results[0]);
    open_collective(p, "all_reduce", r, x, indent);
    print_channel(p, op);
    writer_str(p->out, ", ");
    print_groups(p, c);
    writer_str(p->out, ", use_global_device_ids}>");
    print_reducer(p, c->body, x.type.dtype, indent);
    close_line(p, op, x, r, true);
}

static void emit_all_gather(MlirPrinter *p, const Op *op, const Collective *c, int indent)
{
    MlirVal x = mlir_val(p, op->operands[0]), r = mlir_val(p, op->results[0]);
    int64_t axis = op_attr_int(op, ATTR_KEY_AXIS);
    if (untiled(op)) {
        MlirVal b = mlir_aux_val(p, op, 0, with_dim(p, &x.type, axis, 1, true));
        int64_t dims[SHARDC_MAX_RANK];
        for (int d = 0; d < x.type.rank; d++)
            dims[d] = d < axis ? d : d + 1;
        writer_printf(p->out, "%*s%%%s = stablehlo.broadcast_in_dim ", indent, "", b.name);
        mlir_print_val(p, x);
        writer_str(p->out, ", dims = ");
        mlir_print_ints(p->out, dims, x.type.rank);
        close_line(p, op, x, b, false);
        x = b;
    }
    open_collective(p, "all_gather", r, x, indent);
    writer_printf(p->out, "all_gather_dim = %lld : i64, ", (long long)axis);
    print_channel(p, op);
    writer_str(p->out, ", ");
    print_groups(p, c);
    writer_str(p->out, ", use_global_device_ids}>");
    close_line(p, op, x, r, true);
}

static void emit_reduce_scatter(MlirPrinter *p, const Op *op, const Collective *c, int indent)
{
    MlirVal x = mlir_val(p, op->operands[0]);
    bool stacked = op->kind == OP_PSUM_SCATTER && untiled(op);
    int64_t dim = op_attr_int(op, op->kind == OP_PSUM_SCATTER ? ATTR_KEY_SCATTER_DIMENSION : ATTR_KEY_DIM);
    int64_t size = dim >= 0 && dim < x.type.rank ? x.type.dims[dim] / axis_refs_size(c->axes, c->num_axes) : 0;
    MlirVal r = line_def(p, op, !stacked, 0, with_dim(p, &x.type, dim, size, false));
    open_collective(p, "reduce_scatter", r, x, indent);
    print_channel(p, op);
    writer_str(p->out, ", ");
    print_groups(p, c);
    writer_printf(p->out, ", scatter_dimension = %lld : i64, use_global_device_ids}>", (long long)dim);
    print_reducer(p, c->body, x.type.dtype, indent);
    close_line(p, op, x, r, !stacked);
    if (stacked)
        emit_reshape(p, op, r, mlir_val(p, op->results[0]), indent, true);
}

static void emit_all_to_all(MlirPrinter *p, const Op *op, const Collective *c, int indent)
{
    MlirVal x = mlir_val(p, op->operands[0]);
    int64_t split = op_attr_int(op, ATTR_KEY_SPLIT_AXIS), concat = op_attr_int(op, ATTR_KEY_CONCAT_AXIS);
    int64_t n = axis_refs_size(c->axes, c->num_axes);
    bool stacked = untiled(op) && split != concat;
    if (stacked) { /* JAX: expand the concat dim, all_to_all, squeeze the split dim */
        concat += split < concat;
        split += split > concat;
        x = emit_reshape(p, op, x, mlir_aux_val(p, op, 0, with_dim(p, &x.type, concat, 1, true)), indent, false);
    }
    TensorType t = with_dim(p, &x.type, split, x.type.dims[split] / n, false);
    t.dims[concat] *= n;
    MlirVal r = line_def(p, op, !stacked, 1, t);
    open_collective(p, "all_to_all", r, x, indent);
    print_channel(p, op);
    writer_printf(p->out, ", concat_dimension = %lld : i64, ", (long long)concat);
    print_groups(p, c);
    writer_printf(p->out, ", split_count = %lld : i64, split_dimension = %lld : i64}>", (long long)n, (long long)split);
    close_line(p, op, x, r, !stacked);
    if (stacked)
        emit_reshape(p, op, r, mlir_val(p, op->results[0]), indent, true);
}

static void emit_permute(MlirPrinter *p, const Op *op, const Collective *c, int indent)
{
    MlirVal x = mlir_val(p, op->operands[0]), r = mlir_val(p, op->results[0]);
    int64_t num_pairs;
    const int64_t *pairs = op->kind == OP_PPERMUTE ? ppermute_pairs(p, op, c, &num_pairs)
                                                   : permute_pairs(p, op, c, &num_pairs);
    open_collective(p, "collective_permute", r, x, indent);
    print_channel(p, op);
    writer_str(p->out, ", source_target_pairs = ");
    if (num_pairs)
        mlir_print_dense_i64(p->out, pairs, num_pairs, 2);
    else
        writer_str(p->out, "dense<> : tensor<0x2xi64>");
    writer_str(p->out, "}>");
    close_line(p, op, x, r, true);
}

/* An all-reduce outside any shard_map, its result sharded: one Shardy's
 * explicit reshards insert where an unreduced value meets a use that needs
 * it reduced (issue 16), in the global view. */
static bool global_view(const Op *op)
{
    for (const Block *b = op->parent; b && b->parent_op; b = b->parent_op->parent)
        if (b->parent_op->kind == OP_SHARD_MAP && !op_is_partial_manual(b->parent_op))
            return false;
    return (op->kind == OP_ALL_REDUCE || op->kind == OP_REPLICATED_TO_UNREDUCED) && op->results[0]->sharding;
}

/* The rest of an sdy collective's line: `%x out_sharding=<...> : type`. */
static void sdy_operand_and_out_sharding(MlirPrinter *p, const Op *op)
{
    mlir_print_val(p, mlir_val(p, op->operands[0]));
    writer_str(p->out, " out_sharding=");
    mlir_print_tensor_sharding(p, op->results[0]->sharding);
    writer_str(p->out, " : ");
    mlir_print_type(p, &op->results[0]->type);
    writer_char(p->out, '\n');
}

/* `sdy.all_reduce [max] {"b"} %x out_sharding=<@m, [...]> : tensor<...>`,
 * `sdy.replicated_to_unreduced {"b"} %x out_sharding=...`. */
static void emit_sdy_all_reduce(MlirPrinter *p, const Op *op, const Collective *c, int indent)
{
    const char *r = op->kind == OP_ALL_REDUCE ? op_attr_string(op, ATTR_KEY_REDUCTION) : NULL;
    mlir_print_defs(p, op, indent);
    writer_printf(p->out, "sdy.%s %s%s{", op->kind == OP_ALL_REDUCE ? "all_reduce" : "replicated_to_unreduced",
            r && strcmp(r, "sum") ? r : "", r && strcmp(r, "sum") ? " " : "");
    mlir_print_axes(p->out, c->mesh, c->axes, c->num_axes);
    writer_str(p->out, "} ");
    sdy_operand_and_out_sharding(p, op);
}

/* What reshard-to-collectives makes (reshard_collectives.c): per-dim
 * axes as a sharding-valued `axes` attribute, outside any shard_map. */
static const Sharding *sdy_collective_axes(const Op *op)
{
    const AttrValue *a = op_attr_get(op, ATTR_KEY_AXES);
    return a && a->kind == ATTR_SHARDING && op->num_results == 1 && op->results[0]->sharding ? a->u.sharding
                                                                                              : NULL;
}

static const char *sdy_collective_name(OpKind kind)
{
    switch (kind) {
    case OP_ALL_GATHER: return "all_gather";
    case OP_ALL_SLICE: return "all_slice";
    case OP_REDUCE_SCATTER: return "reduce_scatter";
    case OP_ALL_TO_ALL: return "all_to_all";
    case OP_SHARDED_TO_UNREDUCED: return "sharded_to_unreduced";
    default: return "collective_permute";
    }
}

/* `sdy.all_gather [{"x"}, {}] %x out_sharding=<...> : tensor<...>`; an
 * all_to_all's list is `[{"x"}: 0->1, ...]`, a collective_permute has none. */
static void emit_sdy_collective(MlirPrinter *p, const Op *op, const Sharding *axes, int indent)
{
    const AttrValue *dims = op_attr_get(op, ATTR_KEY_DIMS);
    mlir_print_defs(p, op, indent);
    const char *r = op->kind == OP_REDUCE_SCATTER ? op_attr_string(op, ATTR_KEY_REDUCTION) : NULL;
    writer_printf(p->out, "sdy.%s %s%s", sdy_collective_name(op->kind), r && strcmp(r, "sum") ? r : "",
            r && strcmp(r, "sum") ? " " : "");
    for (int d = 0; op->kind != OP_COLLECTIVE_PERMUTE && d < axes->rank; d++) {
        writer_str(p->out, d ? ", {" : "[{");
        mlir_print_axes(p->out, axes->mesh, axes->dims[d].axes, axes->dims[d].num_axes);
        writer_char(p->out, '}');
        if (dims && dims->kind == ATTR_ARRAY && 2 * d + 1 < dims->u.array.count)
            writer_printf(p->out, ": %lld->%lld", (long long)dims->u.array.items[2 * d]->u.i,
                    (long long)dims->u.array.items[2 * d + 1]->u.i);
    }
    writer_str(p->out, op->kind != OP_COLLECTIVE_PERMUTE ? "] " : "");
    sdy_operand_and_out_sharding(p, op);
}

void mlir_emit_collective(MlirPrinter *p, const Op *op, int indent)
{
    const Sharding *axes = sdy_collective_axes(op);
    if (axes) {
        emit_sdy_collective(p, op, axes, indent);
        return;
    }
    Collective c;
    bool no_stablehlo = op->kind == OP_ALL_SLICE || op->kind == OP_SHARDED_TO_UNREDUCED ||
                        (op->kind == OP_REPLICATED_TO_UNREDUCED && !global_view(op));
    if (no_stablehlo || !resolve(p, op, &c)) {
        mlir_emit_generic(p, op, indent);
        return;
    }
    if (global_view(op)) {
        emit_sdy_all_reduce(p, op, &c, indent);
        return;
    }
    switch (op->kind) {
    case OP_ALL_GATHER: emit_all_gather(p, op, &c, indent); break;
    case OP_PSUM_SCATTER:
    case OP_REDUCE_SCATTER: emit_reduce_scatter(p, op, &c, indent); break;
    case OP_ALL_TO_ALL: emit_all_to_all(p, op, &c, indent); break;
    case OP_PPERMUTE:
    case OP_COLLECTIVE_PERMUTE: emit_permute(p, op, &c, indent); break;
    default: emit_all_reduce(p, op, &c, indent); break;
    }
}

/* ---- collectives over replica groups ------------------------------------------- */

static const char *group_op_name(OpKind kind)
{
    switch (kind) {
    case OP_GROUP_ALL_GATHER: return "all_gather";
    case OP_GROUP_ALL_TO_ALL: return "all_to_all";
    case OP_GROUP_REDUCE_SCATTER: return "reduce_scatter";
    case OP_GROUP_ALL_REDUCE: return "all_reduce";
    default: return "collective_broadcast";
    }
}

/* The attributes StableHLO spells as the op's properties, kept as read. */
static const char *const group_kept_props[] = {"replica_groups", "channel_handle", "use_global_device_ids", NULL};

static void add_group_prop(MlirAttrList *l, const Op *op, AttrKey key, const char *name)
{
    for (int i = 0; i < op->num_attrs; i++)
        if (op->attrs[i].key == key)
            mlir_attrs_add(l, name, MLIR_ITEM_OP_ATTR, &op->attrs[i]);
}

/* ` <{all_gather_dim = 1 : i64, channel_handle = ..., replica_groups = ...}>`:
 * shardc's attributes under StableHLO's names, the kept ones as read. */
static void print_group_props(MlirPrinter *p, const Op *op)
{
    MlirAttrList l;
    mlir_attrs_init(&l, p, op);
    switch (op->kind) {
    case OP_GROUP_ALL_GATHER: add_group_prop(&l, op, ATTR_KEY_DIM, "all_gather_dim"); break;
    case OP_GROUP_REDUCE_SCATTER: add_group_prop(&l, op, ATTR_KEY_DIM, "scatter_dimension"); break;
    case OP_GROUP_ALL_TO_ALL:
        add_group_prop(&l, op, ATTR_KEY_SPLIT_AXIS, "split_dimension");
        add_group_prop(&l, op, ATTR_KEY_CONCAT_AXIS, "concat_dimension");
        add_group_prop(&l, op, ATTR_KEY_GROUP_SIZE, "split_count");
        break;
    default: break;
    }
    for (int i = 0; op->mlir && i < op->mlir->attrs.count; i++) {
        const MlirKeptAttr *a = &op->mlir->attrs.items[i];
        for (const char *const *k = group_kept_props; *k; k++)
            if (strcmp(*k, a->name) == 0)
                mlir_attrs_add(&l, a->name, a->text ? MLIR_ITEM_KEPT : MLIR_ITEM_UNIT, a);
    }
    mlir_attrs_print_in(&l, " <{", "}>");
}

static bool has_kept_groups(const Op *op)
{
    for (int i = 0; op->mlir && i < op->mlir->attrs.count; i++)
        if (strcmp(op->mlir->attrs.items[i].name, "replica_groups") == 0)
            return true;
    return false;
}

/* `%r:2 = "stablehlo.all_gather"(%a, %b) <{...}> {sdy.sharding = ...} :
 * (...) -> (...)`, a reducer region after the properties of an
 * all_reduce or reduce_scatter: MLIR's generic form, as sdy_opt prints
 * them. One written in .shir has no replica groups to print and prints
 * as "shardc.group_all_gather"(...) with its attributes. */
void mlir_emit_group_collective(MlirPrinter *p, const Op *op, int indent)
{
    if (!has_kept_groups(op)) {
        mlir_emit_generic(p, op, indent);
        return;
    }
    static const AttrKey consumed[] = {ATTR_KEY_DIM, ATTR_KEY_SPLIT_AXIS, ATTR_KEY_CONCAT_AXIS, ATTR_KEY_GROUP_SIZE,
                                       ATTR_KEY_REDUCTION, 0};
    MlirVal *in = ARENA_ARRAY(&p->arena, MlirVal, op->num_operands + 1);
    MlirVal *res = ARENA_ARRAY(&p->arena, MlirVal, op->num_results + 1);
    for (int i = 0; i < op->num_operands; i++)
        in[i] = mlir_val(p, op->operands[i]);
    for (int i = 0; i < op->num_results; i++)
        res[i] = mlir_val(p, op->results[i]);
    mlir_print_defs(p, op, indent);
    writer_printf(p->out, "\"stablehlo.%s\"(", group_op_name(op->kind));
    mlir_print_vals(p, in, op->num_operands);
    writer_char(p->out, ')');
    print_group_props(p, op);
    if (op->kind == OP_GROUP_ALL_REDUCE || op->kind == OP_GROUP_REDUCE_SCATTER) {
        const char *r = op_attr_string(op, ATTR_KEY_REDUCTION);
        OpKind by = r && strcmp(r, "max") == 0 ? OP_PMAX : r && strcmp(r, "min") == 0 ? OP_PMIN : OP_PSUM;
        DType dt = op->operands[0]->type.dtype;
        print_reducer(p, mlir_reduce_body(by, dt), dt, indent);
    }
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = consumed, .skip_kept = group_kept_props});
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, in, op->num_operands, res, op->num_results);
    writer_char(p->out, '\n');
}
