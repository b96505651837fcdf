/* Explicit mesh axes (JAX's AxisType.Explicit, "sharding in types").
 *
 * Along axes a mesh declares `explicit`, a value's sharding is part of its
 * type, and every op's result sharding follows from its operands' by JAX's
 * per-op sharding rules (jax/_src/lax/lax.py `_*_sharding_rule`): decided
 * op by op, deterministically, never by propagation. The pass
 * (passes/explicit_axes.c) runs these rules before propagation and writes
 * the result into each value's sharding; auto axes stay with propagation.
 *
 * An XSpec is the explicit part of a sharding: JAX's
 * `jax.typeof(x).sharding.spec`, one entry per dim, explicit axes only. */
#ifndef SHARDC_EXPLICIT_H
#define SHARDC_EXPLICIT_H
#include "shardc/ir.h"
#include "shardc/textbuf.h"

/* The explicit axes sharding one dim, major to minor; none: replicated. */
typedef struct XDim {
    int count;
    const AxisRef *axes;
} XDim;

typedef struct XSpec {
    int rank;
    XDim *dims;
} XSpec;

typedef struct ExplicitCtx {
    DiagEngine *diag;
    const Mesh *mesh;   /* the function's mesh; it has explicit axes */
    Arena *arena;       /* specs live here until the pass ends */
    XSpec **specs;      /* by Value.id; NULL until the defining op ran */
} ExplicitCtx;

/* A rule gets the operands' specs (never NULL) and fills one spec per
 * result, or reports JAX's error at the op and returns false. */
typedef bool (*ExplicitRule)(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out);

/* The rule of an op class (explicit_rules.c). */
ExplicitRule explicit_rule(OpClass op_class);

/* Rules with a file of their own. */
bool explicit_rule_elementwise(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out);
bool explicit_rule_select(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out);
bool explicit_rule_einsum(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out);
bool explicit_rule_reshape(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out);
bool explicit_rule_concatenate(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out);
bool explicit_rule_slice_pad(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out);
bool explicit_rule_sort(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out);
bool explicit_rule_top_k(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out);
bool explicit_rule_fft(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out);

/* ---- writing the decisions into shardings (explicit_write.c) ------------- */

/* Whether v's own annotation (a result's `sharding`) agrees with spec on
 * every dim that states its explicit axes: a closed dim states all its
 * axes, an open one only those it names. */
bool explicit_annotation_agrees(ExplicitCtx *cx, const Value *v, const XSpec *spec);
/* Put v's spec into its sharding so that propagation keeps it. */
void explicit_write(Module *m, const ExplicitCtx *cx, Value *v);

/* ---- specs (explicit_spec.c) --------------------------------------------- */

XSpec *xspec_replicated(Arena *a, int rank);
/* The explicit part of s (replicated if s is NULL or on another mesh). */
XSpec *xspec_of_sharding(Arena *a, const Mesh *mesh, const Sharding *s, int rank);
/* A copy with its own dims array (axis lists are shared: never modified). */
XSpec *xspec_copy(Arena *a, const XSpec *s);
bool xdim_equal(const XDim *a, const XDim *b);
bool xspec_equal(const XSpec *a, const XSpec *b);
/* Number of shards of the dim: the product of its axes' sizes. */
int64_t xdim_shards(const XDim *d);
/* Whether an axis shards two dims; *dup is then the first such axis. */
bool xspec_duplicate(const XSpec *s, AxisRef *dup);
/* Whether the mesh axis of r is explicit. */
bool explicit_axis_is_explicit(const Mesh *mesh, AxisRef r);

/* ---- JAX's spellings, for messages (explicit_format.c) -------------------- */

/* A PartitionSpec entry: None, 'dp' or ('dp', 'mp'). */
void xdim_format(TextBuf *t, const Mesh *mesh, const XDim *d);
/* The spec as a Python tuple: ('dp', None); ('dp',) for one dim. */
void xspec_format_tuple(TextBuf *t, const Mesh *mesh, const XSpec *s);
/* PartitionSpec('dp', None). */
void xspec_format_pspec(TextBuf *t, const Mesh *mesh, const XSpec *s);
/* A JAX type with its sharding: float32[8@dp,4]. */
void xspec_format_type(TextBuf *t, const Mesh *mesh, const XSpec *s, const TensorType *type);
/* A shape as a Python tuple: (4, 6). */
void explicit_format_shape_tuple(TextBuf *t, const TensorType *type);

#endif
