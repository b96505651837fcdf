/* Explicit-axis rules of einsum (dot_general) and of the window ops
 * (slice, pad, concatenate, top_k, sort). */

/* einsum: jnp.einsum turns a two-operand einsum into lax.dot_general, and
 * JAX's _dot_general_sharding_rule decides the result:
 *   - batch labels (in both operands and the output) and contracting labels
 *     (in both operands, not the output) must be sharded consistently:
 *     where both operands shard one, they must use the same axes;
 *   - a contracting label sharded on both sides is ambiguous (the result
 *     could be sharded or partial): an error unless out_sharding says;
 *   - the result takes the lhs's sharding for batch labels and each
 *     operand's for its free labels (an axis then sharding two result dims
 *     is the usual duplicate-axis error).
 * A label of one operand that the output drops is summed out first
 * (reduce_sum), which drops its sharding; one-operand einsums are only
 * such sums and a transpose. */
#include "shardc/einsum.h"
#include "shardc/explicit.h"
#include "shardc/layout.h"

static int label_pos(const char *labels, int count, char c)
{
    for (int i = 0; i < count; i++)
        if (labels[i] == c)
            return i;
    return -1;
}

static bool in_output(const EinsumSpec *e, char c)
{
    return label_pos(e->output, e->output_rank, c) >= 0;
}

/* The operands' specs of the shared labels that are (batch) or are not
 * (contracting) in the output, in lhs order. */
static void shared_specs(ExplicitCtx *cx, const EinsumSpec *e, XSpec *const *in, bool batch, XSpec **lhs,
                         XSpec **rhs)
{
    *lhs = xspec_replicated(cx->arena, e->input_rank[0]);
    *rhs = xspec_replicated(cx->arena, e->input_rank[0]);
    (*lhs)->rank = (*rhs)->rank = 0;
    for (int i = 0; i < e->input_rank[0]; i++) {
        char c = e->inputs[0][i];
        int j = label_pos(e->inputs[1], e->input_rank[1], c);
        if (j < 0 || in_output(e, c) != batch)
            continue;
        (*lhs)->dims[(*lhs)->rank++] = in[0]->dims[i];
        (*rhs)->dims[(*rhs)->rank++] = in[1]->dims[j];
    }
}

/* JAX's _check_specs_match: where both sides shard a dim, they agree. */
static bool consistent(const XSpec *lhs, const XSpec *rhs)
{
    for (int d = 0; d < lhs->rank; d++)
        if (lhs->dims[d].count && rhs->dims[d].count && !xdim_equal(&lhs->dims[d], &rhs->dims[d]))
            return false;
    return true;
}

static bool both_sharded(const XSpec *lhs, const XSpec *rhs)
{
    for (int d = 0; d < lhs->rank; d++)
        if (lhs->dims[d].count && rhs->dims[d].count)
            return true;
    return false;
}

/* "<head><lhs><middle><rhs><tail>" at the op. */
static bool report_pair(ExplicitCtx *cx, const Op *op, const char *head, const XSpec *lhs, const char *middle,
                        const XSpec *rhs, const char *tail)
{
    TextBuf t;
    textbuf_init(&t);
    textbuf_add(&t, "%s", head);
    xspec_format_tuple(&t, cx->mesh, lhs);
    textbuf_add(&t, "%s", middle);
    xspec_format_tuple(&t, cx->mesh, rhs);
    diag_error(cx->diag, op->loc, "%s%s", t.text, tail);
    return false;
}

static bool check_dot_general(ExplicitCtx *cx, const Op *op, const EinsumSpec *e, XSpec *const *in)
{
    XSpec *lhs_batch, *rhs_batch, *lhs_contracting, *rhs_contracting;
    shared_specs(cx, e, in, true, &lhs_batch, &rhs_batch);
    shared_specs(cx, e, in, false, &lhs_contracting, &rhs_contracting);
    if (!consistent(lhs_batch, rhs_batch))
        return report_pair(cx, op, "dot_general requires lhs batch dimensions and rhs batch dimensions to have the "
                           "consistent sharding, got ", lhs_batch, " and ", rhs_batch, ".");
    if (!consistent(lhs_contracting, rhs_contracting))
        return report_pair(cx, op, "dot_general requires contracting dimensions to have consistent sharding, got ",
                           lhs_contracting, " and ", rhs_contracting, ".");
    if (both_sharded(lhs_contracting, rhs_contracting))
        return report_pair(cx, op, "Contracting dimensions are sharded and it is ambiguous how the output should be "
                           "sharded. Please specify the output sharding via the `out_sharding` parameter. Got "
                           "lhs_contracting_spec=", lhs_contracting, " and rhs_contracting_spec=", rhs_contracting, "");
    return true;
}

bool explicit_rule_einsum(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    EinsumSpec e;
    char error[128];
    int col;
    if (!op->str || !einsum_parse(op->str, &e, error, sizeof error, &col))
        return false; /* the verifier reported it */
    if (e.num_inputs == 2 && !check_dot_general(cx, op, &e, in))
        return false;
    out[0] = xspec_replicated(cx->arena, e.output_rank);
    for (int i = 0; i < e.output_rank; i++) {
        int p = label_pos(e.inputs[0], e.input_rank[0], e.output[i]);
        int q = e.num_inputs == 2 ? label_pos(e.inputs[1], e.input_rank[1], e.output[i]) : -1;
        out[0]->dims[i] = p >= 0 ? in[0]->dims[p] : in[1]->dims[q];
    }
    return true;
}

/* Explicit-axis rules of the ops that move data within dims: concatenate,
 * slice, pad, sort and top_k (JAX: lax.py and slicing.py). Each keeps its
 * operand's sharding; what they check is whether that is well defined. */

static void spec_list(TextBuf *t, const Mesh *mesh, XSpec *const *specs, int count, const char *sep)
{
    for (int i = 0; i < count; i++) {
        textbuf_add(t, i ? sep : "");
        xspec_format_pspec(t, mesh, specs[i]);
    }
}

/* All operands must have one sharding (JAX's _concatenate_sharding_rule). */
bool explicit_rule_concatenate(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    for (int i = 1; i < op->num_operands; i++) {
        if (xspec_equal(in[i], in[0]))
            continue;
        TextBuf t;
        textbuf_init(&t);
        spec_list(&t, cx->mesh, in, op->num_operands, ", ");
        diag_error(cx->diag, op->loc, "All operands should have the same sharding. Got shardings %s", t.text);
        return false;
    }
    out[0] = in[0];
    return true;
}

/* JAX prints a spec entry with str(): dp, or ('dp', 'mp'). */
static void entry_str(TextBuf *t, const Mesh *mesh, const XDim *d)
{
    if (d->count != 1) {
        xdim_format(t, mesh, d);
        return;
    }
    char name[128];
    axis_ref_format(name, sizeof name, mesh, d->axes[0]);
    textbuf_add(t, "%s", name);
}

/* slice, pad and dynamic_slice keep the operand's sharding; a dim whose size changes may
 * stay sharded only if the new size still divides by its shards (JAX's
 * _get_sharding_for_varying_out_shape). */
bool explicit_rule_slice_pad(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    const TensorType *a = &op->operands[0]->type, *r = &op->results[0]->type;
    for (int d = 0; d < a->rank; d++) {
        const XDim *dim = &in[0]->dims[d];
        int64_t shards = xdim_shards(dim);
        if (a->dims[d] == r->dims[d] || !dim->count || r->dims[d] % shards == 0)
            continue;
        TextBuf t;
        textbuf_init(&t);
        entry_str(&t, cx->mesh, dim);
        diag_error(cx->diag, op->loc, "%s on sharded dims where out dim (%lld) is not divisble by mesh axes (%lld) "
                   "with spec (%s) is not implemented.",
                   op->kind == OP_PAD ? "padding" : op->kind == OP_DYNAMIC_SLICE ? "dynamic_slice" : "slicing",
                   (long long)r->dims[d], (long long)shards, t.text);
        return false;
    }
    out[0] = in[0];
    return true;
}

/* Sorting needs the whole sorted dim on every device (JAX's
 * _sort_abstract_eval). */
bool explicit_rule_sort(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    int64_t d = op_attr_int(op, ATTR_KEY_DIM);
    for (int i = 0; i < op->num_operands; i++) {
        if (d >= 0 && d < in[i]->rank && in[i]->dims[d].count) {
            TextBuf t;
            textbuf_init(&t);
            xspec_format_pspec(&t, cx->mesh, in[i]);
            diag_error(cx->diag, op->loc, "Arguments to sort must be unsharded over the sorting dimension. Got arg "
                       "sharding=%s and sorting dimension=%lld", t.text, (long long)d);
            return false;
        }
        out[i] = in[i];
    }
    return true;
}

/* top_k works along the last dim, which must not be sharded (JAX's
 * _top_k_abstract_eval); values and indices keep the operand's sharding. */
bool explicit_rule_top_k(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    int last = in[0]->rank - 1;
    if (last >= 0 && in[0]->dims[last].count) {
        TextBuf t;
        textbuf_init(&t);
        xspec_format_type(&t, cx->mesh, in[0], &op->operands[0]->type);
        diag_error(cx->diag, op->loc, "The input should be unsharded over the axis along which to compute the top_k "
                   "values. Got input type=%s and axis=%d", t.text, last);
        return false;
    }
    for (int i = 0; i < op->num_results; i++)
        out[i] = in[0];
    return true;
}

/* fft transforms its last len(fft_length) dims whole, so in explicit mode
 * they must be unsharded (shardc's rule, in the manner of top_k's: the
 * batch dims keep the operand's sharding). */
bool explicit_rule_fft(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    int64_t len[SHARDC_MAX_RANK];
    int first = in[0]->rank - op_attr_ints(op, ATTR_KEY_FFT_LENGTH, len, SHARDC_MAX_RANK);
    for (int d = first < 0 ? 0 : first; d < in[0]->rank; d++) {
        if (!in[0]->dims[d].count)
            continue;
        TextBuf t;
        textbuf_init(&t);
        xspec_format_type(&t, cx->mesh, in[0], &op->operands[0]->type);
        diag_error(cx->diag, op->loc, "fft needs its transformed dims unsharded; got operand type=%s, dim %d "
                   "sharded", t.text, d);
        return false;
    }
    out[0] = in[0];
    return true;
}
