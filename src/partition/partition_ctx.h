/* State of partitioning one function (passes/partition.c and the
 * src/partition_*.c files it uses). */
#ifndef SHARDC_PARTITION_CTX_H
#define SHARDC_PARTITION_CTX_H
#include "shardc/partition.h"
#include "shardc/interner.h"
#include "shardc/rules.h"
#include "shardc/symtab.h"

/* A layout as versions keep it, one copy of each per function (a
 * function's values have a handful: values.c, pc_packed_layout). */
typedef struct PackedLayout {
    int rank;
    const int *counts;      /* axes per dim */
    const AxisRef *axes;    /* the dims' axes, major to minor, dim after dim */
    uint64_t hash;
    const char *text;       /* pc_format_layout's, once asked for (module arena) */
} PackedLayout;

/* One per-device version of a global value, with its layout. The first
 * version of a value has the value's own (propagated) sharding; reshards
 * for other consumers are cached as further versions. Every version lives
 * until the function is done, so the layout is stored compactly (a whole
 * DimAxes is 6 KB: 0.8 GB for a 1e5-op module, see bench/README.md) and
 * shared. */
typedef struct VersionPartial {
    ReductionKind combine;  /* how the pieces combine */
    int count;
    AxisRef axes[];         /* the axes a local value is a partial result over */
} VersionPartial;

typedef struct LocalVersion { /* 32 bytes: one per value at the compile's peak */
    Value *local;
    const PackedLayout *layout;
    const VersionPartial *partial; /* (an unreduced value, issue 16); NULL: none */
    struct LocalVersion *next;
} LocalVersion;

/* A padding predicate (axis_index * c + iota < N over a local shape)
 * already in the body: masks of the same dim, axes and shape share it. */
typedef struct PaddingMask {
    TensorType local;       /* the local shape (dtype bool) */
    int dim;
    int64_t global_size;
    AxisList axes;
    Value *real;            /* true where the element is not padding */
    struct PaddingMask *next;
} PaddingMask;

/* A per-device while op being filled: where its body's reshards of values
 * from outside the loop are emitted instead (loop-invariant: before the
 * loop, once, not once per iteration). */
typedef struct HoistPoint {
    Block *block;           /* the block holding the loop */
    Op *loop;               /* the per-device while op */
    int64_t executions;     /* runs of the block around the loop */
    struct PaddingMask *masks; /* the padding masks available before it */
    struct HoistPoint *outer;
} HoistPoint;

/* The names used in the body being built (names.c): those in `slots`,
 * and, until `holds_all`, the dotless names of top-level global values
 * taken unprobed (`unprobed`, marked by global id in `taken`). */
typedef struct NameSet {
    struct NameSlot *slots; /* open addressing (heap) */
    size_t cap, count;      /* cap a power of two */
    bool holds_all;         /* every name taken is in `slots` */
    const char **unprobed;  /* (heap) */
    size_t num_unprobed;
    uint8_t *taken;         /* a bit per global Value.id (heap) */
} NameSet;

typedef struct PartitionCtx {
    Module *module;
    DiagEngine *diag;
    PartitionStats *stats;
    const Mesh *mesh;
    Block *body;            /* the region being filled */
    LocalVersion **versions;/* by global Value.id; in `tables` */
    Arena tables;           /* side tables of this function only */
    struct LayoutIndex *layouts; /* the PackedLayouts in `tables`, by value (heap) */
    struct AssignmentCache *assignments; /* factor assignments by rule and shardings (heap;
                                            the entries in `tables`: assignments.c) */
    Interner shapes;        /* local types' dims, one copy each in the module's arena */
    int num_global_values;
    NameSet names;          /* names used in the body */
    Arena scratch;
    RuleCache rules;        /* the ops' rules, built once per kind of op */
    const char *reason;     /* why the collectives being emitted are needed */
    PaddingMask *masks;     /* in `tables` */
    struct HaloExchange *halos; /* in `tables` (window.c) */
    int64_t executions;     /* runs of the ops being emitted per program run
                               (loop trip counts; -1: unknown) */
    HoistPoint *hoist;      /* the innermost loop being filled, or NULL */
    Op *insert_before;      /* emit before this op of `body`; NULL: append */
    const AxisList *kept;   /* partial axes a value being resharded keeps
                               (collective_permutes keep their coordinate) */
    int partial_manual;     /* depth of partial-manual shard_map bodies being
                               partitioned: collectives there run whole */
    bool fewest_bytes;      /* --reshard-plan=fewest-bytes (ReshardOptions) */
    bool ok;
} PartitionCtx;

/* ---- factor assignments (assignments.c) ---- */
/* factor_assignment of op's factors under `rule` from the shardings and
 * types of its operands, then results, as `uneven` allows: a copy in
 * scratch the caller may change. `shared`: the rule outlives the op (the
 * rule cache's, or the op's bound rule), so the choice is kept for the
 * ops after with the same rule, shardings and types, with each tensor's
 * layout under it (factor_assignment_tensor_axes), given in *layouts
 * (NULL when not shared). */
AxisList *pc_factor_assignment(PartitionCtx *pc, const Op *op, const OpShardingRule *rule, bool shared,
                               UnevenPolicy uneven, const PackedLayout *const **layouts);
void pc_free_assignments(PartitionCtx *pc);

/* ---- dynamic_update_slice along sharded dims (dynamic.c) ---- */
/* The local ops of a dynamic_update_slice whose operand stays sharded
 * along a dim the update covers in part (operands local, `layout` the
 * operand's and result's); the last op gives the local result. NULL if no
 * such dim is sharded (then the op runs as it is). */
Op *pc_local_dynamic_update_slice(PartitionCtx *pc, const Op *op, Value **operands, const DimAxes *layout);
/* A `full` i64 scalar of value v. */
Value *pc_const_i64(PartitionCtx *pc, int64_t v, const char *name, Loc loc);
/* rng_bit_generator (random.c): operands[1..rank] become its block's
 * starts; false when its bits are not sharded (issue 18, h33). */
bool pc_rng_operands(PartitionCtx *pc, const Op *op, const DimAxes *bits_layout, Value **operands);

/* ---- gather and scatter (gather.c) ---- */
/* Clears the factors the local op cannot keep sharded (dims the indices do
 * not address, a scatter's reduction factors). */
void pc_gather_assignment(const Op *op, const OpShardingRule *rule, AxisList *assignment);
/* The local indices, moved into the frame of each device's block along
 * the sharded dims they address; for gather, *mask the starts inside the
 * block (else NULL). */
Value *pc_gather_indices(PartitionCtx *pc, const Op *op, Value **operands, const OpShardingRule *rule,
                         const AxisList *assignment, Value **mask);
void pc_gather_local_sizes(PartitionCtx *pc, const Op *global, Op *local);
Op *pc_gather_mask(PartitionCtx *pc, const Op *global, Op *local, Value *mask);
/* The local operand of a scatter-add whose partial results are summed
 * over `partial`: x on the first device, zeros on the others. */
Value *pc_scatter_operand_once(PartitionCtx *pc, Value *x, const AxisList *partial, Loc loc);
/* x on the first device of each group along `axes`, zeros on the others
 * (ops named prefix.*, the result `name`). */
Value *pc_first_of_group(PartitionCtx *pc, Value *x, const AxisList *axes, const char *prefix, const char *name,
                         Loc loc);

/* ---- windowed ops along sharded window dims (window.c) ---- */
/* A window dim of the operand kept sharded with a halo exchange. */
typedef struct HaloDim {
    int dim, window;        /* the operand's dim, the op's window index */
    int64_t lo, hi;         /* elements read from the previous, next block */
    int64_t stride;
    AxisList axes;
} HaloDim;
typedef struct WindowHalo {
    int count;
    HaloDim dims[SHARDC_MAX_RANK];
} WindowHalo;
/* A halo exchange already in a body: windowed ops reading the same halos
 * of the same local operand, padded alike, share it (a max-pool and its
 * gradient). */
typedef struct HaloExchange {
    const Value *x;
    const Block *body;
    WindowHalo halo;
    const AttrValue *fill;
    bool fill_ends;
    Value *haloed;
    struct HaloExchange *next;
} HaloExchange;
/* Clears the factors of window dims (and, with groups, of the dims the
 * groups split), then gives back its operand's axes to each window dim
 * whose blocks hold whole windows or can read a halo (recorded in *h). */
void pc_window_assignment(const Op *op, const OpShardingRule *rule, AxisList *assignment, WindowHalo *h);
/* The local operand x (laid out as `layout`) with its neighbours' halos
 * around it along h's dims; `fill` is the padding value (its uneven
 * padding masked to it, and the dim's ends set to it if fill_ends). An
 * exchange already in the body is reused. */
Value *pc_window_halo(PartitionCtx *pc, const Op *op, Value *x, const DimAxes *layout, const WindowHalo *h,
                      AttrValue *fill, bool fill_ends);
/* A select_and_scatter's local source with the padding of h's uneven dims
 * set to 0 (the windows past the dim's end scatter nothing). */
Value *pc_window_source(PartitionCtx *pc, const Op *op, Value *source, const DimAxes *layout, const WindowHalo *h);
/* The local op of `op` reads its halos instead of padding along h's dims.
 * A select_and_scatter's result, over its halos too, is folded back (each
 * halo added to its owner's block): the op giving the result's block. */
Op *pc_window_localize(PartitionCtx *pc, const Op *op, Op *local, const WindowHalo *h);
/* A reduction's identity as a value attribute of dtype (ops.c). */
AttrValue *pc_reduction_identity(PartitionCtx *pc, ReductionKind reduction, DType dtype);

/* ---- emission (partition_emit.c) ---- */
/* A reshard of `from` (a value defined outside the loops being filled)
 * that the partitioner may emit before the outermost loop it does not
 * depend on; NULL when it stays where it is needed (control_flow.c). */
HoistPoint *pc_hoist_target(const PartitionCtx *pc, const Value *from);
/* Count a collective in --stats, run as often as the ops being emitted. */
void pc_record_collective(PartitionCtx *pc, CollectiveRecord record);
/* ---- names (names.c) ---- */
/* base, or the first of base.1, base.2, ... not yet used in the body. */
const char *pc_unique_name(PartitionCtx *pc, const char *base);
Value *pc_new_value(PartitionCtx *pc, const char *base, TensorType type, Loc loc);
/* A per-device value of `global`, named as it unless taken (then sharing
 * its name's string). */
Value *pc_new_local_value(PartitionCtx *pc, const Value *global, TensorType type);
void pc_names_free(PartitionCtx *pc);
Op *pc_append_op(PartitionCtx *pc, OpKind kind, Loc loc, Value **operands, int num_operands);
/* Append a single-result op; its result is returned (and the op, if asked). */
Value *pc_emit1(PartitionCtx *pc, OpKind kind, Loc loc, Value **operands, int num_operands, const char *name,
                TensorType type, Op **op_out);
void pc_set_attr(PartitionCtx *pc, Op *op, AttrKey key, AttrValue *value);
AttrValue *pc_int_attr(PartitionCtx *pc, int64_t v);
AttrValue *pc_bool_attr(PartitionCtx *pc, bool v);
AttrValue *pc_string_attr(PartitionCtx *pc, const char *s);
AttrValue *pc_axes_attr(PartitionCtx *pc, const AxisList *axes);
AttrValue *pc_sharding_attr(PartitionCtx *pc, const DimAxes *layout);
/* The same, unreduced over `partial` (NULL: none). */
AttrValue *pc_partial_sharding_attr(PartitionCtx *pc, const DimAxes *layout, const AxisList *partial);
Sharding *pc_sharding(PartitionCtx *pc, const DimAxes *layout);
/* The same in `arena` (to be interned, say). */
Sharding *pc_sharding_in(PartitionCtx *pc, Arena *arena, const DimAxes *layout);
AttrValue *pc_int_array_attr(PartitionCtx *pc, const int64_t *values, int count);
AttrValue *pc_float_attr(PartitionCtx *pc, double v);
/* 0, or false for bool: a value attribute of a `full` or `pad` of dtype. */
AttrValue *pc_zero_attr(PartitionCtx *pc, DType dtype);
/* A dim of `size` split over `axes`: ceil(size / shards) per device, the
 * last shards padded (docs/partitioning.md "Uneven dims"). */
int64_t pc_shard_size(int64_t size, const AxisList *axes);
TensorType pc_local_type(PartitionCtx *pc, const TensorType *global, const DimAxes *layout);
int64_t pc_type_bytes(const TensorType *t);
/* `[{"x"}, {}]`, arena-allocated (for --explain). */
const char *pc_format_layout(PartitionCtx *pc, const DimAxes *layout);
/* printf into the module arena. */
const char *pc_printf(PartitionCtx *pc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- values and reshards (partition_values.c) ---- */
/* The function's one copy of `layout` (in `tables`), and back. */
PackedLayout *pc_packed_layout(PartitionCtx *pc, const DimAxes *layout);
void pc_unpack_layout(DimAxes *out, const PackedLayout *layout);
/* The first version of `global` when it is laid out exactly as `layout`
 * and is no partial result (then what pc_find_version returns, found
 * without comparing layouts), else NULL. */
Value *pc_first_version_as(PartitionCtx *pc, const Value *global, const PackedLayout *layout);
/* What version v is partial over, and how its pieces combine (REDUCE_SUM
 * when over nothing). */
ReductionKind pc_version_partial(const LocalVersion *v, AxisList *out);
void pc_add_version(PartitionCtx *pc, const Value *global, Value *local, const DimAxes *layout);
/* Frees the index of the function's layouts (the layouts go with `tables`). */
void pc_free_layouts(PartitionCtx *pc);
/* A version that is a partial result over `partial` (NULL: none), its
 * pieces combined by `combine`. */
void pc_add_partial_version(PartitionCtx *pc, const Value *global, Value *local, const DimAxes *layout,
                            const AxisList *partial, ReductionKind combine);
/* The cached per-device value of `global` laid out as `want`, or NULL if
 * pc_local_as would have to reshard (emit collectives) to get it. */
Value *pc_find_version(PartitionCtx *pc, const Value *global, const DimAxes *want);
/* The per-device value of `global` laid out as `want`, resharding (and
 * caching) when needed; NULL after reporting an error. */
Value *pc_local_as(PartitionCtx *pc, const Value *global, const DimAxes *want, Loc loc);
/* pc_local_as for a version left partial over `keep` (combined by
 * `combine`): partial axes of `global` outside `keep` are reduced, axes of
 * `keep` it is not partial over are made so (replicated to unreduced). */
Value *pc_local_as_partial(PartitionCtx *pc, const Value *global, const DimAxes *want, const AxisList *keep,
                           ReductionKind combine, Loc loc);

/* ---- unreduced values (unreduced.c, issue 16) ---- */
/* The unreduced axes of a sharding as a list, and how they combine. */
void pc_unreduced_of(AxisList *out, const Sharding *s);
ReductionKind pc_unreduced_kind(const Sharding *s);
/* out = a without the axes of b. */
void pc_axes_minus(AxisList *out, const AxisList *a, const AxisList *b);
/* A replicated value made a partial one over `axes` (the first device
 * of each group keeps it, the others hold zeros; max and min need
 * nothing). */
Value *pc_replicated_to_unreduced(PartitionCtx *pc, Value *x, const AxisList *axes, ReductionKind combine, Loc loc);
/* x, laid out as `layout`, made unreduced over the axes `shed` takes off
 * the minor end of each dim (reshard_unreduced_split): each device puts
 * its block at its place in zeros, no communication (Shardy's
 * sharded_to_unreduced), one op per dim. */
Value *pc_sharded_to_unreduced(PartitionCtx *pc, Value *x, const TensorType *global, const DimAxes *layout,
                               const DimAxes *shed, Loc loc);
/* The partial axes operand i may keep into `op` (whose result 0 is
 * unreduced over `result`, combined by `combine`) given what each
 * operand is partial over; the others are reduced first. */
void pc_operand_keeps(const Op *op, const AxisList *result, ReductionKind combine, const AxisList *partial,
                      const ReductionKind *kinds, AxisList *keep);
/* Emit the collectives taking `local` (laid out as `from`, partial over
 * `partial`) to `to`. */
Value *pc_reshard(PartitionCtx *pc, Value *local, const TensorType *global, const DimAxes *from,
                  const AxisList *partial, ReductionKind reduction, const DimAxes *to, const char *base, Loc loc);
void pc_layout_of(DimAxes *out, const Value *global);
/* Whether two dims' axes are the same once sub-axes are merged. */
bool pc_axes_same(const AxisList *a, const AxisList *b);
/* Plan a reshard (reporting failure), emit a plan's collectives, or emit
 * one step with the given result type. */
bool pc_plan(PartitionCtx *pc, ReshardPlan *plan, const TensorType *global, const DimAxes *from,
             const AxisList *partial, const DimAxes *to, const char *base, Loc loc);
Value *pc_emit_plan(PartitionCtx *pc, Value *local, const TensorType *global, const ReshardPlan *plan,
                    const DimAxes *from, ReductionKind reduction, const char *base, Loc loc);
Value *pc_emit_step(PartitionCtx *pc, Value *in, TensorType type, const TensorType *global, const ReshardStep *s,
                    const DimAxes *before, ReductionKind reduction, const char *base, Loc loc);

/* ---- uneven dims (partition_padding.c) ----
 * A dim whose size its shards do not divide is padded: ceil(size / n) per
 * device, the padding's contents unspecified unless masked. */
bool pc_dim_uneven(const TensorType *global, const DimAxes *layout, int d);
bool pc_layout_uneven(const TensorType *global, const DimAxes *layout);
/* pc_reshard where `from` or `to` has an uneven dim: such dims, where the
 * layouts differ, are gathered whole (padding cut off) before the even
 * part of the plan and padded and sliced after it. */
Value *pc_reshard_uneven(PartitionCtx *pc, Value *local, const TensorType *global, const DimAxes *from,
                         const AxisList *partial, ReductionKind reduction, const DimAxes *to, const char *base,
                         Loc loc);
/* `local` (laid out as `layout`) with the padding of dim d set to `fill`,
 * so that a reduction over d does not see it. */
Value *pc_mask_padding(PartitionCtx *pc, Value *local, const TensorType *global, const DimAxes *layout, int d,
                       AttrValue *fill, Loc loc);
/* A merged all-to-all step (more than one move) as one all_to_all between
 * local reshapes and transposes (partition_all_to_all.c). */
Value *pc_emit_merged_all_to_all(PartitionCtx *pc, Value *in, const TensorType *global, const ReshardStep *s,
                                 const char *base, Loc loc);

/* ---- ops (partition_ops.c, partition_special.c) ---- */
void pc_partition_op(PartitionCtx *pc, Op *op);
void pc_partition_shard_map(PartitionCtx *pc, Op *op);
void pc_partition_custom(PartitionCtx *pc, Op *op);
/* while, case, optimization_barrier: regions partitioned once
 * (control_flow.c). */
void pc_partition_control_flow(PartitionCtx *pc, Op *op);
/* named_computation: the inline-calls pass inlines them first, so meeting
 * one (a --pass-pipeline without it) is a located error. */
void pc_partition_named(PartitionCtx *pc, Op *op);
/* Clone the ops of `body` into the region with its args bound to `args`;
 * fills `returns` with the clones of the returned values. */
void pc_inline_block(PartitionCtx *pc, const Block *body, Value **args, Value **returns);

#endif
