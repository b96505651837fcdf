/* The verifier: types and shapes of every op, shardings against their mesh
 * and rank, manual regions against their specs. Shared by passes/verify.c. */
#ifndef SHARDC_VERIFY_H
#define SHARDC_VERIFY_H
#include "shardc/diag.h"
#include "shardc/einsum.h"
#include "shardc/ir.h"

/* An einsum spec parsed during one walk, by its text: a program repeats a
 * few (the synthetic transformer's six, in every layer). */
enum { VERIFY_EINSUM_MEMO = 8 };
typedef struct VerifyEinsum {
    const char *text;
    EinsumSpec spec;
} VerifyEinsum;

typedef struct VerifyCtx {
    Module *module;
    DiagEngine *diag;
    const Func *func;       /* the function being verified */
    const Op *region_op;    /* innermost enclosing shard_map, or NULL */
    const Mesh *region_mesh;
    int errors_before;
    bool external_targets;
    VerifyEinsum einsums[VERIFY_EINSUM_MEMO]; /* the specs parsed last, text NULL in unused ones */
    int next_einsum;                          /* the entry the next new spec replaces */
} VerifyCtx;

bool verify_module(Module *m, DiagEngine *diag);
/* The same, where a custom op whose callee the module does not define may
 * call a target of the runtime (`shardc opt` reads custom_calls it never
 * runs; every stage that needs the op's meaning verifies without this). */
bool verify_module_targets(Module *m, DiagEngine *diag, bool external_targets);
/* The same, the sharding groups checked only if `groups`. */
bool verify_module_checks(Module *m, DiagEngine *diag, bool external_targets, bool groups);

/* Per-op checks: its attributes against the op table (verify_op_attrs),
 * then its class's check (the table in ops.c, one entry per line of
 * opclasses.def). */
void verify_op(VerifyCtx *vc, Op *op);
/* A constant's value: a scalar (splat) or nested lists of the type's shape. */
void verify_constant_value(VerifyCtx *vc, const Op *op, const AttrValue *v, const TensorType *t,
                           bool allow_nested);
/* The per-class checks of other files: einsum, reductions, data movement
 * (shape_ops.c); call, custom, sharding ops (verify.c); shard_map
 * (shard_map.c); collectives (collectives.c). */
void verify_einsum(VerifyCtx *vc, Op *op);
void verify_reduce(VerifyCtx *vc, Op *op);
void verify_reduce_region(VerifyCtx *vc, Op *op);
void verify_transpose(VerifyCtx *vc, Op *op);
void verify_reshape(VerifyCtx *vc, Op *op);
void verify_broadcast(VerifyCtx *vc, Op *op);
void verify_concatenate(VerifyCtx *vc, Op *op);
void verify_slice(VerifyCtx *vc, Op *op);
void verify_reverse(VerifyCtx *vc, Op *op);
void verify_dynamic_slice(VerifyCtx *vc, Op *op);
void verify_dynamic_update_slice(VerifyCtx *vc, Op *op);
/* gather.c */
void verify_gather(VerifyCtx *vc, Op *op);
void verify_scatter_op(VerifyCtx *vc, Op *op);
/* window.c */
void verify_convolution(VerifyCtx *vc, Op *op);
void verify_reduce_window(VerifyCtx *vc, Op *op);
void verify_select_and_scatter(VerifyCtx *vc, Op *op);
void verify_pad(VerifyCtx *vc, Op *op);
void verify_top_k(VerifyCtx *vc, Op *op);
/* complex numbers and fft (src/verify/fft.c) */
void verify_complex_part(VerifyCtx *vc, Op *op);
void verify_fft(VerifyCtx *vc, Op *op);
/* False (reported) if the op has a complex operand or result (the first:
 * `first_complex`, or NULL) and does not take them, or takes them in a way it
 * refuses (compare lt, convert to a real type). */
bool verify_complex_ok(VerifyCtx *vc, const Op *op, const Value *first_complex);
void verify_rng_bit_generator(VerifyCtx *vc, Op *op); /* issue 18 (h33) */
void verify_sort_or_argmax(VerifyCtx *vc, Op *op);
void verify_sort(VerifyCtx *vc, Op *op); /* sort.c */
/* linalg.c */
void verify_cholesky(VerifyCtx *vc, Op *op);
void verify_triangular_solve(VerifyCtx *vc, Op *op);
void verify_batch_norm(VerifyCtx *vc, Op *op);
/* lapack.c: JAX's lapack_*_ffi custom_calls */
void verify_lapack(VerifyCtx *vc, Op *op);
void verify_call(VerifyCtx *vc, Op *op);
void verify_custom(VerifyCtx *vc, Op *op);
void verify_sharding_op(VerifyCtx *vc, Op *op);
void verify_data_flow_edge(VerifyCtx *vc, Op *op);
void verify_barrier(VerifyCtx *vc, Op *op);
void verify_group(VerifyCtx *vc, Op *op);
/* The module-wide checks of sharding groups (groups.c). */
void verify_sharding_groups(VerifyCtx *vc);
void verify_shard_map(VerifyCtx *vc, Op *op);
void verify_collective(VerifyCtx *vc, Op *op);
/* StableHLO's collectives over replica groups (group_collectives.c). */
void verify_group_collective(VerifyCtx *vc, Op *op);
/* while, case and optimization_barrier (control_flow.c). */
void verify_while(VerifyCtx *vc, Op *op);
void verify_case(VerifyCtx *vc, Op *op);
void verify_optimization_barrier(VerifyCtx *vc, Op *op);
void verify_named_computation(VerifyCtx *vc, Op *op);
void verify_after_all(VerifyCtx *vc, Op *op);
/* A custom op's rule string, parsed and bound to its types (verify_custom.c). */
void verify_custom_rule(VerifyCtx *vc, Op *op);
/* The mesh collectives in this context work on (see docs/language.md). */
const Mesh *verify_collective_mesh(VerifyCtx *vc, const Op *op);
/* A sharding against the value type it annotates; normalises `<@m, []>`
 * on a ranked value to closed, replicated dims. */
void verify_value_sharding(VerifyCtx *vc, Sharding **sharding, const TensorType *type, Loc loc,
                           const char *what);

/* Attributes against the op table (verify/attrs.c): unknown names,
 * out_sharding, and each attribute the op takes against its type. */
void verify_op_attrs(VerifyCtx *vc, const Op *op);
/* Whether the op's attribute is present (or optional) and of its type:
 * the op's own checks skip one that verify_op_attrs reported. */
bool verify_attr_valid(const Op *op, AttrKey key);
/* An int attribute that is a dim of rank `rank` (or absent with its
 * default); false after reporting. */
bool verify_dim_attr(VerifyCtx *vc, const Op *op, AttrKey key, int rank, int64_t *out);
/* A list of mesh-axis names resolved against `mesh` into axis indices. */
int verify_mesh_axes(VerifyCtx *vc, const Op *op, AttrKey key, const Mesh *mesh, int *out, int max);
/* The same for collectives' axes, which may name sub-axes ("x:(1)2"). */
int verify_axis_refs(VerifyCtx *vc, const Op *op, AttrKey key, const Mesh *mesh, AxisRef *out, int max);

void verify_expect_type(VerifyCtx *vc, const Op *op, const TensorType *want, const Value *got);
/* NumPy broadcasting of shapes a and b into out (rank = max rank). */
bool verify_broadcast_shapes(const TensorType *a, const TensorType *b, TensorType *out, int64_t *dims_out);
void verify_format_type(char *buf, size_t len, const TensorType *t);

#endif
