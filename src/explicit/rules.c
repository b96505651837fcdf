/* The explicit-axis sharding rule of every op class (JAX:
 * jax/_src/lax/lax.py, `_*_sharding_rule`): the table, the short rules and
 * broadcasting. einsum and window ops are in rules_einsum.c, reshape in
 * rules_reshape.c. */

/* The explicit-axis sharding rule of every op class, and the short rules
 * (JAX: jax/_src/lax/lax.py, `_*_sharding_rule`). Longer rules live in
 * explicit_rules_*.c. */
#include <string.h>
#include "shardc/explicit.h"

/* Nullary ops have no sharded input: JAX's jnp.zeros, lax.full and
 * lax.iota are replicated unless given out_sharding. Collectives only
 * appear in per-device code (partition functions), which has no global
 * type to speak of. */
static bool rule_replicated(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    for (int i = 0; i < op->num_results; i++)
        out[i] = xspec_replicated(cx->arena, op->results[i]->type.rank);
    return true;
}

/* Unary elementwise ops, convert and sharding_constraint keep their
 * operand's type, sharding included. */
static bool rule_same(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    out[0] = in[0];
    return true;
}

/* bitcast_convert (JAX's _bitcast_convert_type_sharding_rule): to a
 * narrower type the new minor dim is replicated; to a wider one the
 * operand's minor dim is dropped; one width (and convert) keeps the spec. */
static bool rule_convert(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    int rank = op->results[0]->type.rank;
    if (rank == in[0]->rank)
        return rule_same(cx, op, in, out);
    out[0] = xspec_replicated(cx->arena, rank);
    for (int d = 0; d < rank && d < in[0]->rank; d++)
        out[0]->dims[d] = in[0]->dims[d];
    return true;
}

/* optimization_barrier: each result is its operand; a (variadic) scatter:
 * each result is its input, as JAX types lax.scatter's result. */
static bool rule_barrier(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    (void)cx;
    for (int i = 0; i < op->num_results; i++)
        out[i] = in[i];
    return true;
}

/* transpose: result dim i is operand dim permutation[i]. */
static bool rule_transpose(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    int64_t perm[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, ATTR_KEY_PERMUTATION, perm, SHARDC_MAX_RANK);
    out[0] = xspec_replicated(cx->arena, n);
    for (int i = 0; i < n; i++)
        out[0]->dims[i] = in[0]->dims[perm[i]];
    return true;
}

/* The operand's spec without the listed dims: a reduced dim's sharding
 * disappears with the dim (JAX's _reduce_op_sharding_rule). */
static XSpec *drop_dims(ExplicitCtx *cx, const XSpec *s, const int64_t *dims, int count)
{
    XSpec *r = xspec_replicated(cx->arena, s->rank);
    r->rank = 0;
    for (int d = 0; d < s->rank; d++) {
        bool dropped = false;
        for (int i = 0; i < count; i++)
            dropped |= dims[i] == d;
        if (!dropped)
            r->dims[r->rank++] = s->dims[d];
    }
    return r;
}

static bool rule_reduce(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    int64_t dims[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, ATTR_KEY_DIMS, dims, SHARDC_MAX_RANK);
    out[0] = drop_dims(cx, in[0], dims, n < 0 ? 0 : n);
    return true;
}

/* A reduce with a body: every result drops the reduced dims of input 0. */
static bool rule_reduce_region(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    for (int j = 0; j < op->num_results; j++)
        rule_reduce(cx, op, in, &out[j]);
    return true;
}

/* argmax drops its dim like a reduction (JAX's _argminmax_sharding_rule). */
static bool rule_argmax(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    int64_t d = op_attr_int(op, ATTR_KEY_DIM);
    out[0] = drop_dims(cx, in[0], &d, 1);
    return true;
}

/* broadcast (lax.broadcast_in_dim): operand dim i keeps its sharding at
 * result dim dims[i]; the new dims are replicated. */
static bool rule_broadcast(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    int64_t dims[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, ATTR_KEY_DIMS, dims, SHARDC_MAX_RANK);
    out[0] = xspec_replicated(cx->arena, op->results[0]->type.rank);
    for (int i = 0; i < n && i < in[0]->rank; i++)
        out[0]->dims[dims[i]] = in[0]->dims[i];
    return true;
}

/* reshard sets the type's sharding to its target (jax.sharding.reshard);
 * sharding_constraint is the identity on types. */
static bool rule_sharding_op(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    if (op->kind != OP_RESHARD)
        return rule_same(cx, op, in, out);
    out[0] = xspec_of_sharding(cx->arena, cx->mesh, op->results[0]->sharding, op->results[0]->type.rank);
    return true;
}

/* shard_map results are typed by their out_specs (JAX's unshard_aval). */
static bool rule_shard_map(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    for (int i = 0; i < op->num_results; i++) {
        const Sharding *s = op_attr_sharding_at(op, ATTR_KEY_OUT_SPECS, i);
        out[i] = xspec_of_sharding(cx->arena, cx->mesh, s, op->results[i]->type.rank);
    }
    return true;
}

static bool any_operand_sharded(const Op *op, XSpec *const *in)
{
    for (int i = 0; i < op->num_operands; i++)
        for (int d = 0; d < in[i]->rank; d++)
            if (in[i]->dims[d].count)
                return true;
    return false;
}

/* custom ops (and calls, normally inlined by now) have no rule: JAX
 * raises for ops without a sharding rule once a sharded operand reaches
 * them; replicated operands give replicated results. */
static bool rule_none(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    if (!any_operand_sharded(op, in))
        return rule_replicated(cx, op, in, out);
    diag_error(cx->diag, op->loc, "sharding rule for %s is not implemented (JAX: \"sharding rule for %s is not "
               "implemented. Please file an issue at https://github.com/jax-ml/jax/issues. You can work around "
               "this error by dropping that operation into full auto sharding mode via: "
               "`jax.sharding.auto_axes(fun, out_shardings=...)`\"); give the op out_sharding, or reshard its "
               "operands to be replicated along explicit axes", op_info(op->kind)->name, op_info(op->kind)->name);
    return false;
}

/* One rule per op class (opclasses.def): a class without one does not
 * compile. */

static const ExplicitRule rules_by_class[OPC_COUNT] = {
#define OPCLASS(cls, verify, rule, explicit, partition, exec) [cls] = explicit,
#include "shardc/opclasses.def"
#undef OPCLASS
};

/* Out of range, like an op with no rule (JAX raises once sharded
 * operands reach it). */
ExplicitRule explicit_rule(OpClass op_class)
{
    return (unsigned)op_class < OPC_COUNT ? rules_by_class[op_class] : rule_none;
}

/* Elementwise ops with NumPy broadcasting: JAX's
 * broadcasting_sharding_rule (jax/_src/lax/lax.py). Dims are zipped after
 * rank promotion (jnp adds leading dims of size 1, replicated):
 *   - equal shardings stay;
 *   - else the shardings of the non-trivial operands (not a replicated dim
 *     of size 1) must agree, or one of them is replicated: sharded +
 *     replicated gives sharded;
 *   - two different shardings on one dim are an error.
 * select is jnp.where: its three operands are first broadcast to one
 * sharding by lax.broadcast_shardings, which is the same rule. */

enum { MAX_ZIPPED = 3 };

typedef struct Zipped {
    int count;
    XSpec *specs[MAX_ZIPPED];   /* promoted to the result's rank */
    int64_t sizes[MAX_ZIPPED][SHARDC_MAX_RANK];
} Zipped;

/* jnp's rank promotion: leading dims of size 1, replicated. A scalar
 * becomes all size-1 dims and so takes no part in the rule; lax's rule
 * leaves scalars out altogether (`with_scalars` false), which only shows
 * in the error message. */
static void zip_operands(ExplicitCtx *cx, const Op *op, XSpec *const *in, bool with_scalars, Zipped *z)
{
    int rank = op->results[0]->type.rank;
    z->count = 0;
    for (int i = 0; i < op->num_operands && i < MAX_ZIPPED; i++) {
        const TensorType *t = &op->operands[i]->type;
        if (t->rank == 0 && !with_scalars)
            continue;
        int lead = rank - t->rank;
        XSpec *p = xspec_replicated(cx->arena, rank);
        for (int d = 0; d < rank; d++) {
            z->sizes[z->count][d] = d < lead ? 1 : t->dims[d - lead];
            if (d >= lead)
                p->dims[d] = in[i]->dims[d - lead];
        }
        z->specs[z->count++] = p;
    }
}

static bool all_equal(const XDim *const *dims, int n)
{
    for (int i = 1; i < n; i++)
        if (!xdim_equal(dims[i], dims[0]))
            return false;
    return true;
}

/* The rule for dim d; false if two operands shard it differently. */
static bool zip_dim(const Zipped *z, int d, XDim *out)
{
    const XDim *all[MAX_ZIPPED] = {NULL}, *nontrivial[MAX_ZIPPED] = {NULL};
    int n = 0;
    for (int i = 0; i < z->count; i++) {
        all[i] = &z->specs[i]->dims[d];
        if (!(z->sizes[i][d] == 1 && all[i]->count == 0))
            nontrivial[n++] = all[i];
    }
    *out = (XDim){0, NULL};
    if (z->count == 0)
        return true;
    if (all_equal(all, z->count) || (n > 0 && all_equal(nontrivial, n))) {
        *out = all_equal(all, z->count) ? *all[0] : *nontrivial[0];
        return true;
    }
    for (int i = 0; i < z->count; i++) {
        if (all[i]->count == 0)
            continue;
        if (out->count && !xdim_equal(out, all[i]))
            return false;
        *out = *all[i];
    }
    return true;
}

static void report_incompatible(ExplicitCtx *cx, const Op *op, const char *name, const Zipped *z)
{
    TextBuf t;
    textbuf_init(&t);
    textbuf_add(&t, "%s got incompatible shardings for broadcasting: ", name);
    for (int i = 0; i < z->count; i++) {
        textbuf_add(&t, i ? ", " : "");
        xspec_format_tuple(&t, cx->mesh, z->specs[i]);
    }
    diag_error(cx->diag, op->loc, "%s.", t.text);
}

static bool broadcast_rule(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out, const char *name,
                           bool with_scalars)
{
    int rank = op->results[0]->type.rank;
    Zipped z;
    zip_operands(cx, op, in, with_scalars, &z);
    out[0] = xspec_replicated(cx->arena, rank);
    for (int d = 0; d < rank; d++) {
        if (!zip_dim(&z, d, &out[0]->dims[d])) {
            report_incompatible(cx, op, name, &z);
            return false;
        }
    }
    return true;
}

/* JAX names the rule after the lax primitive: add, mul, ..., and the
 * comparison's direction (lt, eq, ...). */
bool explicit_rule_elementwise(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    const char *name = op_info(op->kind)->name;
    if (op->kind == OP_COMPARE)
        name = op_attr_string(op, ATTR_KEY_DIRECTION);
    return broadcast_rule(cx, op, in, out, name, false);
}

bool explicit_rule_select(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    return broadcast_rule(cx, op, in, out, "broadcast_shardings", true);
}
