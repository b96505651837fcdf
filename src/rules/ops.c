/* The built-in sharding rules of every op class (the registry in registry.c
 * dispatches to them): nullary and elementwise ops, shape ops, sort, top_k
 * and argmax, reshape, reductions and einsum. Each section follows Shardy's
 * op_sharding_rule_registry.cc for its ops. */

/* Rules of ops without operands and of elementwise ops (Shardy's
 * buildPointwise), extended to NumPy broadcasting. */
#include "shardc/rules.h"
#include <string.h>
#include "shardc/einsum.h"

/* constant, iota, zeros, full: each result dim can be generated sharded
 * (iota from the shard's offset), so each is a pass-through factor that
 * propagation may carry to users and back. */
OpShardingRule *rules_nullary(RuleBuilder *b)
{
    const TensorType *t = rule_builder_type(b, 0);
    for (int d = 0; d < t->rank; d++)
        rule_builder_add_pointwise(b, d, t->dims[d], FACTOR_PASS_THROUGH);
    return rule_builder_build(b);
}

/* One factor per result dim, shared by every operand dim aligned with it
 * (right-aligned, as NumPy broadcasts) that has the same size. An operand
 * dim of size 1 stretched to a bigger result dim takes no part: like the
 * input dim of Shardy's BroadcastInDimOp rule, it gets its own factor of
 * size 1 (from the builder's build). Operands of lower rank simply lack
 * the leading dims. For equal shapes this is exactly buildPointwise. */
OpShardingRule *rules_elementwise(RuleBuilder *b)
{
    const Op *op = b->op;
    const TensorType *out = &op->results[0]->type;
    for (int d = 0; d < out->rank; d++) {
        int f = rule_builder_new_factor(b, out->dims[d], FACTOR_PASS_THROUGH);
        rule_builder_map(b, op->num_operands, d, f);
        for (int i = 0; i < op->num_operands; i++) {
            const TensorType *in = &op->operands[i]->type;
            int in_dim = d - (out->rank - in->rank);
            if (in_dim >= 0 && in->dims[in_dim] == out->dims[d])
                rule_builder_map(b, i, in_dim, f);
        }
    }
    return rule_builder_build(b);
}

/* convert, and bitcast_convert (Shardy's BitcastConvertOp): between
 * element types of one width, pointwise; between widths the type with the
 * narrower elements has one more, minor dim (the ratio of the widths),
 * which needs replication, and the dims both share are pointwise. */
OpShardingRule *rules_convert(RuleBuilder *b)
{
    const TensorType *in = rule_builder_type(b, 0), *out = rule_builder_type(b, 1);
    if (in->rank == out->rank)
        return rules_elementwise(b);
    int shared = in->rank < out->rank ? in->rank : out->rank;
    for (int d = 0; d < shared; d++)
        rule_builder_add_in_out(b, d, d, in->dims[d], FACTOR_PASS_THROUGH);
    if (in->rank < out->rank)
        rule_builder_add_in_out(b, RULE_NULL_DIM, shared, out->dims[shared], FACTOR_NEED_REPLICATION);
    else
        rule_builder_add_in_out(b, shared, RULE_NULL_DIM, in->dims[shared], FACTOR_NEED_REPLICATION);
    return rule_builder_build(b);
}

/* Rules of data-movement ops: transpose, broadcast, concatenate, slice and
 * pad (Shardy's TransposeOp, BroadcastInDimOp, ConcatenateOp, SliceOp and
 * PadOp cases; conservative propagation as RuleBuilder.conservative says). */

/* Factors in result order: result dim d is operand dim permutation[d]. */
OpShardingRule *rules_transpose(RuleBuilder *b)
{
    const TensorType *in = rule_builder_type(b, 0);
    int64_t perm[SHARDC_MAX_RANK];
    int n = op_attr_ints(b->op, ATTR_KEY_PERMUTATION, perm, SHARDC_MAX_RANK);
    for (int d = 0; d < n; d++)
        rule_builder_add_in_out(b, (int)perm[d], d, in->dims[perm[d]], FACTOR_PASS_THROUGH);
    return rule_builder_build(b);
}

/* One factor per result dim, in result order, shared with the operand dim
 * mapped to it (`dims`). An operand dim of size 1 stretched in place to a
 * bigger result dim gets its own size-1 factor, added just before. */
OpShardingRule *rules_broadcast(RuleBuilder *b)
{
    const TensorType *in = rule_builder_type(b, 0), *out = rule_builder_type(b, 1);
    int64_t dims[SHARDC_MAX_RANK];
    int out_to_in[SHARDC_MAX_RANK];
    int n = op_attr_ints(b->op, ATTR_KEY_DIMS, dims, SHARDC_MAX_RANK);
    for (int d = 0; d < out->rank; d++)
        out_to_in[d] = RULE_NULL_DIM;
    for (int i = 0; i < n; i++)
        out_to_in[dims[i]] = i;
    for (int d = 0; d < out->rank; d++) {
        int in_dim = out_to_in[d];
        if (in_dim != RULE_NULL_DIM && in->dims[in_dim] == 1 && out->dims[d] != 1) {
            rule_builder_add_in_out(b, in_dim, RULE_NULL_DIM, 1, FACTOR_PASS_THROUGH);
            in_dim = RULE_NULL_DIM;
        }
        rule_builder_add_in_out(b, in_dim, d, out->dims[d], FACTOR_PASS_THROUGH);
    }
    return rule_builder_build(b);
}

/* Shardy's findOperandBeforeSlice: a slice's operand, else the value. */
static const Value *before_slice(const Value *v)
{
    return v->def && v->def->kind == OP_SLICE ? v->def->operands[0] : v;
}

/* Shardy's kind for the concatenated dim: a permutation when the operands
 * are pieces moved into place (all slices, or slices of one value
 * concatenated with it), else need_replication. */
static FactorKind concat_dim_kind(const Op *op)
{
    bool all_slices = true, any_slice = false, one_source = true;
    for (int i = 0; i < op->num_operands; i++) {
        bool slice = op->operands[i]->def && op->operands[i]->def->kind == OP_SLICE;
        all_slices &= slice;
        any_slice |= slice;
        one_source &= before_slice(op->operands[i]) == before_slice(op->operands[0]);
    }
    return all_slices || (one_source && any_slice) ? FACTOR_PERMUTATION : FACTOR_NEED_REPLICATION;
}

/* Pointwise over the result shape; the concatenated dim one factor of the
 * result's size (concat_dim_kind), none under conservative propagation
 * (the dims then get size-1 factors: never sharded). */
OpShardingRule *rules_concatenate(RuleBuilder *b)
{
    const TensorType *out = &b->op->results[0]->type;
    int64_t concat_dim = op_attr_int(b->op, ATTR_KEY_DIM);
    for (int d = 0; d < out->rank; d++) {
        if (d != concat_dim)
            rule_builder_add_pointwise(b, d, out->dims[d], FACTOR_PASS_THROUGH);
        else if (!b->conservative)
            rule_builder_add_pointwise(b, d, out->dims[d], concat_dim_kind(b->op));
    }
    return rule_builder_build(b);
}

/* A pad whose low and high padding cancel keeps the dim's size but shifts
 * its elements (low = -1, high = 1): each result element
 * then comes from another position, so the dim is resized for the rule
 * too (difftest seeds 300016 and 303625: a pass-through factor kept the
 * dim sharded and each device cropped its own block). */
static bool pad_shifts_dim(const Op *op, int d)
{
    int64_t lo[SHARDC_MAX_RANK], hi[SHARDC_MAX_RANK];
    if (op->kind != OP_PAD || op_attr_ints(op, ATTR_KEY_LOW, lo, SHARDC_MAX_RANK) <= d ||
        op_attr_ints(op, ATTR_KEY_HIGH, hi, SHARDC_MAX_RANK) <= d)
        return false;
    return lo[d] != 0 || hi[d] != 0;
}

/* Shardy's addPointwiseWithDiffTypeForMismatch: one factor per dim of the
 * operand's size; a dim whose size changes (sliced, strided or padded) is a
 * permutation factor, since keeping it sharded means shifting data between
 * devices (the start, stride and padding are static); conservative
 * propagation blocks propagation along it. A pad's scalar value operand
 * takes no part. */
OpShardingRule *rules_slice_or_pad(RuleBuilder *b)
{
    const TensorType *in = rule_builder_type(b, 0), *out = &b->op->results[0]->type; /* a pad's value: operand 1 */
    for (int d = 0; d < in->rank; d++) {
        bool resized = in->dims[d] != out->dims[d] || pad_shifts_dim(b->op, d);
        int f = rule_builder_add_pointwise(b, d, in->dims[d], resized ? FACTOR_PERMUTATION : FACTOR_PASS_THROUGH);
        if (resized && b->conservative) /* Shardy's mismatchFactorIsBlocked */
            rule_builder_block(b, f);
    }
    return rule_builder_build(b);
}

/* Shardy's ReverseOp: pointwise, the reversed dims permutation factors
 * (a sharded one's blocks move to the mirrored devices). */
OpShardingRule *rules_reverse(RuleBuilder *b)
{
    const TensorType *t = rule_builder_type(b, 0);
    int64_t dims[SHARDC_MAX_RANK];
    int n = op_attr_ints(b->op, ATTR_KEY_DIMS, dims, SHARDC_MAX_RANK);
    for (int d = 0; d < t->rank; d++) {
        bool reversed = false;
        for (int i = 0; i < n; i++)
            reversed |= dims[i] == d;
        rule_builder_add_pointwise(b, d, t->dims[d], reversed ? FACTOR_PERMUTATION : FACTOR_PASS_THROUGH);
    }
    return rule_builder_build(b);
}

/* Shardy's DynamicSliceOp (addPointwiseWithDiffTypeForMismatch with
 * kNeedReplication, blocked): a dim the slice shortens needs replication
 * and propagates nothing, since the start is only known at run time. The
 * scalar start indices take no part. */
OpShardingRule *rules_dynamic_slice(RuleBuilder *b)
{
    const TensorType *in = rule_builder_type(b, 0), *out = &b->op->results[0]->type;
    for (int d = 0; d < in->rank; d++)
        rule_builder_add_pointwise(b, d, in->dims[d],
                                   in->dims[d] != out->dims[d] ? FACTOR_NEED_REPLICATION : FACTOR_PASS_THROUGH);
    OpShardingRule *rule = rule_builder_build(b);
    bool *blocked = ARENA_ARRAY(b->arena, bool, rule->num_factors + 1);
    for (int f = 0; f < rule->num_factors; f++) /* factor f is dim f's; size-1 extras come after */
        blocked[f] = f < in->rank && rule->factors[f].kind == FACTOR_NEED_REPLICATION;
    rule->blocked = blocked;
    return rule;
}

/* A value a constant op makes (Shardy's ConstantLike start indices). */
static bool is_constant(const Value *v)
{
    return v->def && (v->def->kind == OP_CONSTANT || v->def->kind == OP_FULL || v->def->kind == OP_ZEROS);
}

/* Shardy's DynamicUpdateSliceOp: a dim the update spans whole is one
 * pass-through factor of operand, update and result; a dim it covers in
 * part gets a pass-through factor of operand and result, and one of the
 * update alone that needs replication (pass-through when every start
 * index is a constant). */
OpShardingRule *rules_dynamic_update_slice(RuleBuilder *b)
{
    const Op *op = b->op;
    const TensorType *in = rule_builder_type(b, 0), *upd = rule_builder_type(b, 1);
    bool constant_starts = true;
    for (int i = 2; i < op->num_operands; i++)
        constant_starts &= is_constant(op->operands[i]);
    for (int d = 0; d < in->rank; d++) {
        if (in->dims[d] == upd->dims[d]) {
            rule_builder_add_pointwise(b, d, in->dims[d], FACTOR_PASS_THROUGH);
            continue;
        }
        int f = rule_builder_new_factor(b, in->dims[d], FACTOR_PASS_THROUGH);
        rule_builder_map(b, 0, d, f);
        rule_builder_map(b, op->num_operands, d, f);
        f = rule_builder_new_factor(b, upd->dims[d], constant_starts ? FACTOR_PASS_THROUGH : FACTOR_NEED_REPLICATION);
        rule_builder_map(b, 1, d, f);
    }
    return rule_builder_build(b);
}

/* Rules of sort and top_k (Shardy's SortOp case and its mhlo.topk custom
 * call case). */

/* Shardy's SortOp rule: pointwise over every operand and result, the
 * sorted dim need_replication, and also blocked_propagation when every
 * other dim has size 1 (nothing else to shard: propagating the sorted
 * dim's sharding would only force a gather). */
OpShardingRule *rules_sort(RuleBuilder *b)
{
    const TensorType *in = rule_builder_type(b, 0);
    int64_t sort_dim = op_attr_int(b->op, ATTR_KEY_DIM);
    bool other_dim_sharable = false;
    int sort_factor = -1;
    for (int d = 0; d < in->rank; d++)
        other_dim_sharable |= d != sort_dim && in->dims[d] > 1;
    for (int d = 0; d < in->rank; d++) {
        if (d != sort_dim)
            rule_builder_add_pointwise(b, d, in->dims[d], FACTOR_PASS_THROUGH);
        else
            sort_factor = rule_builder_add_pointwise(b, d, in->dims[d], FACTOR_NEED_REPLICATION);
    }
    OpShardingRule *rule = rule_builder_build(b);
    if (rule && sort_factor >= 0 && !other_dim_sharable) {
        bool *blocked = ARENA_ARRAY(b->arena, bool, rule->num_factors + 1);
        blocked[sort_factor] = true;
        rule->blocked = blocked;
    }
    return rule;
}

/* Shardy's mhlo.topk rule (addPointwiseIfDimSizesMatch of operand and
 * values): the batch dims are shared by the operand and both results; the
 * last dim gets no shared factor, so the operand, the values and the
 * indices each get their own size-1 factor there: never sharded. Shardy
 * shares the last dim when k equals its size; shardc does not, because
 * top_k of a shard is not a shard of the top_k even then. */
OpShardingRule *rules_top_k(RuleBuilder *b)
{
    const TensorType *in = rule_builder_type(b, 0);
    for (int d = 0; d + 1 < in->rank; d++)
        rule_builder_add_pointwise(b, d, in->dims[d], FACTOR_PASS_THROUGH);
    return rule_builder_build(b);
}

/* The reshape rule, exactly Shardy's ReshapeOp case: walk the input and
 * output dims together, splitting them into factors so that every factor
 * is a contiguous run of elements in both (a compound dim such as [ij] is
 * sharded by the axes of i, then j; propagation turns a factor that only
 * part of an axis covers into a sub-axis). Sizes that do not divide each
 * other are split at their gcd, leaving factors that belong to only one
 * side (which stop propagation there). */

typedef struct ReshapeWalk {
    const TensorType *in, *out;
    int in_dim, out_dim;
    /* Products of the dims entered so far, and of the factors given out. */
    int64_t dims_in, dims_out, factors_in, factors_out;
} ReshapeWalk;

/* Shardy's getNextFactorIfDivereged, for the side whose factors are behind. */
static int64_t next_factor_if_diverged(int64_t next, int64_t next_gcd, int64_t smaller, int64_t larger)
{
    /* A factor that makes both sides' products meet again. */
    if (larger % smaller == 0 && next % (larger / smaller) == 0)
        return larger / smaller;
    /* Otherwise one that keeps the gcd of the next factors for later. */
    if (next > next_gcd)
        return next / next_gcd;
    return next;
}

/* Size-1 dims get a factor of their own, whatever the other side does. */
static bool add_size_one_dim(RuleBuilder *b, ReshapeWalk *w)
{
    if (w->in_dim < w->in->rank && w->in->dims[w->in_dim] == 1) {
        rule_builder_add_in_out(b, w->in_dim++, RULE_NULL_DIM, 1, FACTOR_PASS_THROUGH);
        return true;
    }
    if (w->out_dim < w->out->rank && w->out->dims[w->out_dim] == 1) {
        rule_builder_add_in_out(b, RULE_NULL_DIM, w->out_dim++, 1, FACTOR_PASS_THROUGH);
        return true;
    }
    return false;
}

static void add_in_factor(RuleBuilder *b, ReshapeWalk *w, int64_t size)
{
    rule_builder_add_in_out(b, w->in_dim, RULE_NULL_DIM, size, FACTOR_PASS_THROUGH);
    w->factors_in *= size;
}

static void add_out_factor(RuleBuilder *b, ReshapeWalk *w, int64_t size)
{
    rule_builder_add_in_out(b, RULE_NULL_DIM, w->out_dim, size, FACTOR_PASS_THROUGH);
    w->factors_out *= size;
}

/* One step: a common factor when the sides are level and share a divisor,
 * else a factor for whichever side is behind (both when level). */
static void add_next_factors(RuleBuilder *b, ReshapeWalk *w)
{
    int64_t next_in = w->dims_in / w->factors_in, next_out = w->dims_out / w->factors_out;
    int64_t next_gcd = ir_gcd64(next_in, next_out);
    if (w->factors_in == w->factors_out && next_gcd > 1) {
        rule_builder_add_in_out(b, w->in_dim, w->out_dim, next_gcd, FACTOR_PASS_THROUGH);
        w->factors_in *= next_gcd;
        w->factors_out *= next_gcd;
    } else if (w->factors_in == w->factors_out) {
        add_in_factor(b, w, next_in);
        add_out_factor(b, w, next_out);
    } else if (w->factors_in < w->factors_out) {
        add_in_factor(b, w, next_factor_if_diverged(next_in, next_gcd, w->factors_in, w->factors_out));
    } else {
        add_out_factor(b, w, next_factor_if_diverged(next_out, next_gcd, w->factors_out, w->factors_in));
    }
}

static void reshape_step(RuleBuilder *b, ReshapeWalk *w)
{
    if (add_size_one_dim(b, w))
        return;
    /* Enter the next dim on a side whose current dim is used up. */
    if (w->in_dim < w->in->rank && w->dims_in == w->factors_in)
        w->dims_in *= w->in->dims[w->in_dim];
    if (w->out_dim < w->out->rank && w->dims_out == w->factors_out)
        w->dims_out *= w->out->dims[w->out_dim];
    add_next_factors(b, w);
    if (w->in_dim < w->in->rank && w->dims_in == w->factors_in)
        w->in_dim++;
    if (w->out_dim < w->out->rank && w->dims_out == w->factors_out)
        w->out_dim++;
}

/* No rule for zero elements, as in Shardy: the walk cannot split a 0, and
 * nothing is gained by propagating through an empty tensor. */
OpShardingRule *rules_reshape(RuleBuilder *b)
{
    ReshapeWalk w = {rule_builder_type(b, 0), rule_builder_type(b, 1), 0, 0, 1, 1, 1, 1};
    int64_t in_elements, out_elements;
    if (!type_num_elements(w.in, &in_elements) || !type_num_elements(w.out, &out_elements) ||
        in_elements == 0 || in_elements != out_elements)
        return NULL;
    while (w.in_dim < w.in->rank || w.out_dim < w.out->rank)
        reshape_step(b, &w);
    OpShardingRule *rule = rule_builder_build(b);
    rule->one_sided_replicated = true;
    return rule;
}

/* Rules of contractions and reductions: einsum (Shardy's DotGeneralOp
 * rule), reduce_* (ReduceOp) and argmax. */

/* Where an einsum label occurs: its dim in lhs, rhs and the output, or
 * RULE_NULL_DIM. */
typedef struct LabelDims {
    int dim[3];
} LabelDims;

enum { LHS, RHS, OUT };

/* Every input label's dims, by letter, in one pass over the terms (a
 * label occurs at most once in a term). The output is term OUT even when
 * there is one input. */
static void label_dims(const EinsumSpec *spec, LabelDims *where)
{
    const char *terms[3] = {spec->inputs[0], spec->inputs[1], spec->output};
    int ranks[3] = {spec->input_rank[0], spec->num_inputs > 1 ? spec->input_rank[1] : 0, spec->output_rank};
    for (int i = 0; i < 3; i++)
        for (int d = 0; d < ranks[i]; d++)
            where[terms[i][d] - 'a'] = (LabelDims){{RULE_NULL_DIM, RULE_NULL_DIM, RULE_NULL_DIM}};
    for (int i = 0; i < 3; i++)
        for (int d = 0; d < ranks[i]; d++)
            where[terms[i][d] - 'a'].dim[i] = d;
}

/* dot_general's factor order: batching, lhs non-contracting, rhs
 * non-contracting, then contracting. Labels summed away in one input only
 * (JAX reduces them before the dot_general) join the reduction group. */
enum { GROUP_BATCH, GROUP_LHS_FREE, GROUP_RHS_FREE, GROUP_REDUCTION, NUM_GROUPS };

static int label_group(LabelDims ld)
{
    if (ld.dim[OUT] == RULE_NULL_DIM)
        return GROUP_REDUCTION;
    if (ld.dim[LHS] != RULE_NULL_DIM && ld.dim[RHS] != RULE_NULL_DIM)
        return GROUP_BATCH;
    return ld.dim[LHS] != RULE_NULL_DIM ? GROUP_LHS_FREE : GROUP_RHS_FREE;
}

static void add_label_factor(RuleBuilder *b, const EinsumSpec *spec, LabelDims ld)
{
    int in = ld.dim[LHS] != RULE_NULL_DIM ? LHS : RHS;
    int64_t size = b->op->operands[in]->type.dims[ld.dim[in]];
    int f = rule_builder_new_factor(b, size, ld.dim[OUT] == RULE_NULL_DIM ? FACTOR_REDUCTION
                                                                          : FACTOR_PASS_THROUGH);
    for (int i = 0; i < spec->num_inputs; i++)
        rule_builder_map(b, i, ld.dim[i], f);
    rule_builder_map(b, spec->num_inputs, ld.dim[OUT], f);
}

/* The sort key of a label within its group, or -1 to keep its place:
 * batch labels by their output dim (dot_general's batching pairs are in
 * the output's order), contracted labels (summed, in both inputs) by
 * letter (the importer letters a dot_general's contracting dims in its
 * pairs' order; docs/rules.md); free labels and labels summed in one input
 * only stay where they were met. */
static int group_key(const LabelDims *where, int g, char label)
{
    LabelDims ld = where[label - 'a'];
    if (g == GROUP_BATCH)
        return ld.dim[OUT];
    if (g == GROUP_REDUCTION && ld.dim[LHS] != RULE_NULL_DIM && ld.dim[RHS] != RULE_NULL_DIM)
        return label;
    return -1;
}

/* Sorts the labels that have a key among themselves, by it, in the slots
 * they hold (a selection sort; the keys are distinct). */
static void order_group(const LabelDims *where, int g, char *labels, int n)
{
    for (int i = 0; i < n; i++) {
        if (group_key(where, g, labels[i]) < 0)
            continue;
        for (int j = i + 1; j < n; j++) {
            int kj = group_key(where, g, labels[j]);
            if (kj >= 0 && kj < group_key(where, g, labels[i])) {
                char t = labels[i];
                labels[i] = labels[j];
                labels[j] = t;
            }
        }
    }
}

/* Each group in turn, its labels met in lhs order then rhs order and
 * ordered by order_group. A single-input einsum is a reduce (plus
 * transpose) in JAX: its factors follow the input dims, as in the
 * ReduceOp rule. */
OpShardingRule *rules_einsum(RuleBuilder *b)
{
    EinsumSpec spec;
    char error[160];
    int col;
    if (!einsum_parse(b->op->str, &spec, error, sizeof error, &col))
        return NULL;
    bool seen[26] = {false};
    LabelDims where[26]; /* by label: looked up for every label in every group */
    int group[26];
    label_dims(&spec, where);
    for (int i = 0; i < spec.num_inputs; i++)
        for (int d = 0; d < spec.input_rank[i]; d++)
            group[spec.inputs[i][d] - 'a'] = label_group(where[spec.inputs[i][d] - 'a']);
    /* One input: a single pass that takes every label in input order. */
    int first_group = spec.num_inputs == 1 ? NUM_GROUPS - 1 : 0;
    for (int g = first_group; g < NUM_GROUPS; g++) {
        char labels[2 * SHARDC_MAX_RANK];
        int n = 0;
        for (int i = 0; i < spec.num_inputs; i++)
            for (int d = 0; d < spec.input_rank[i]; d++) {
                char label = spec.inputs[i][d];
                if (seen[label - 'a'] || (spec.num_inputs == 2 && group[label - 'a'] != g))
                    continue;
                seen[label - 'a'] = true;
                labels[n++] = label;
            }
        if (spec.num_inputs == 2)
            order_group(where, g, labels, n);
        for (int k = 0; k < n; k++)
            add_label_factor(b, &spec, where[labels[k] - 'a']);
    }
    return rule_builder_build(b);
}

/* Shardy's ReduceOp rule: one factor per input dim in order, shared by
 * inputs 0..N-1 (N = the results; one for the plain reductions); a reduced
 * dim is a reduction factor (the plain reductions' partial results are
 * combined by an all-reduce of the same reducer: sum, max, min; mean as a
 * sum, then scaled), the others map to the next dim of each result.
 * Operands after the inputs (a reduce's scalar inits) have none.
 * `reduced_kind` lets argmax differ. */
static OpShardingRule *reduce_rule(RuleBuilder *b, const bool *reduced, FactorKind reduced_kind)
{
    const TensorType *in = rule_builder_type(b, 0);
    int inputs = b->op->num_results, out_dim = 0;
    for (int d = 0; d < in->rank; d++) {
        int f = rule_builder_new_factor(b, in->dims[d], reduced[d] ? reduced_kind : FACTOR_PASS_THROUGH);
        for (int i = 0; i < inputs; i++)
            rule_builder_map(b, i, d, f);
        for (int j = 0; !reduced[d] && j < inputs; j++)
            rule_builder_map(b, b->op->num_operands + j, out_dim, f);
        out_dim += !reduced[d];
    }
    return rule_builder_build(b);
}

/* Shardy's rule for stablehlo.reduce, whatever its body: the reduced dims
 * are reduction factors (reduce with a body: docs/rules.md "argmax"). */
OpShardingRule *rules_reduce(RuleBuilder *b)
{
    bool reduced[SHARDC_MAX_RANK] = {false};
    int64_t dims[SHARDC_MAX_RANK];
    int n = op_attr_ints(b->op, ATTR_KEY_DIMS, dims, SHARDC_MAX_RANK);
    for (int i = 0; i < n; i++)
        reduced[dims[i]] = true;
    return reduce_rule(b, reduced, FACTOR_REDUCTION);
}

/* JAX lowers argmax to a variadic reduce of (value, iota), which Shardy
 * gives a reduction factor. But a reduction factor promises that partial
 * results combine with an all-reduce, elementwise, and per-shard argmax
 * results are indices that do not: combining them needs each shard's
 * maximum value beside its index (offset by the shard's start). No factor
 * kind says "gather the partial pairs and reduce again", so the argmax dim
 * needs replication: the partitioner gathers it before the argmax. */
OpShardingRule *rules_argmax(RuleBuilder *b)
{
    bool reduced[SHARDC_MAX_RANK] = {false};
    reduced[op_attr_int(b->op, ATTR_KEY_DIM)] = true;
    return reduce_rule(b, reduced, FACTOR_NEED_REPLICATION);
}

/* Shardy's FftOp: the dims before the last len(fft_length) are batch dims
 * (pass-through); the transformed dims need replication, each a factor of
 * the operand's size; the last one also blocks propagation when RFFT or
 * IRFFT make its operand and result sizes differ. */
OpShardingRule *rules_fft(RuleBuilder *b)
{
    const TensorType *in = rule_builder_type(b, 0), *out = &b->op->results[0]->type;
    int64_t len[SHARDC_MAX_RANK];
    int first = in->rank - op_attr_ints(b->op, ATTR_KEY_FFT_LENGTH, len, SHARDC_MAX_RANK);
    for (int d = 0; d < in->rank; d++)
        rule_builder_add_pointwise(b, d, in->dims[d], d < first ? FACTOR_PASS_THROUGH : FACTOR_NEED_REPLICATION);
    OpShardingRule *rule = rule_builder_build(b);
    bool *blocked = ARENA_ARRAY(b->arena, bool, rule->num_factors + 1);
    int last = in->rank - 1;
    if (last >= 0 && in->dims[last] != out->dims[last]) /* factor f is dim f's; size-1 extras come after */
        blocked[last] = true;
    rule->blocked = blocked;
    return rule;
}

/* A factor of dim `dim` of every operand (or every result) only. */
static void add_side_factor(RuleBuilder *b, bool results, int dim, int64_t size)
{
    const Op *op = b->op;
    int f = rule_builder_new_factor(b, size, FACTOR_NEED_REPLICATION);
    int first = results ? op->num_operands : 0, count = results ? op->num_results : op->num_operands;
    for (int t = first; t < first + count; t++)
        rule_builder_map(b, t, dim, f);
}

/* Shardy's AllReduceOp and CollectiveBroadcastOp: pointwise. Its
 * AllGatherOp, AllToAllOp and ReduceScatterOp: pointwise over
 * the dims the collective leaves alone, then the gathered / scattered /
 * split dim a need-replication factor of the operands and another of the
 * results, and likewise the concatenated dim of an all_to_all when it is
 * another dim. */
OpShardingRule *rules_group_collective(RuleBuilder *b)
{
    const Op *op = b->op;
    const TensorType *in = &op->operands[0]->type, *out = &op->results[0]->type;
    if (op->kind == OP_GROUP_ALL_REDUCE || op->kind == OP_GROUP_COLLECTIVE_BROADCAST) {
        for (int d = 0; d < in->rank; d++)
            rule_builder_add_pointwise(b, d, in->dims[d], FACTOR_PASS_THROUGH);
        return rule_builder_build(b);
    }
    bool a2a = op->kind == OP_GROUP_ALL_TO_ALL;
    int split = (int)op_attr_int(op, a2a ? ATTR_KEY_SPLIT_AXIS : ATTR_KEY_DIM);
    int concat = a2a ? (int)op_attr_int(op, ATTR_KEY_CONCAT_AXIS) : split;
    for (int d = 0; d < in->rank; d++)
        if (d != split && d != concat)
            rule_builder_add_pointwise(b, d, in->dims[d], FACTOR_PASS_THROUGH);
    add_side_factor(b, false, split, in->dims[split]);
    add_side_factor(b, true, split, out->dims[split]);
    if (concat != split) {
        add_side_factor(b, false, concat, in->dims[concat]);
        add_side_factor(b, true, concat, out->dims[concat]);
    }
    return rule_builder_build(b);
}
