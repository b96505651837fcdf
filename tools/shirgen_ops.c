/* The op generator table, indexed like include/shardc/ops.def, and the
 * elementwise generators. Each generator picks operands from the current
 * scope (or makes fresh inputs), emits its op and records the result's
 * bound, exactness and VMA. A generator returns false when the current
 * context cannot host the op; gen_one_op then draws another. */
#include <math.h>
#include "shirgen.h"

enum { S_ENTRY = 1 << SCOPE_ENTRY, S_FUNC = 1 << SCOPE_FUNC, S_MANUAL = 1 << SCOPE_MANUAL,
       S_ALL = S_ENTRY | S_FUNC | S_MANUAL, S_OUTER = S_ENTRY | S_FUNC };

/* Collectives the partitioner emits (all_slice, all_reduce, ...) have no
 * generator: they are not JAX-level ops a user writes. */
static const OpGen op_gens[OP_COUNT] = {
    [OP_CONSTANT] = {gen_nullary, 2, S_ALL}, [OP_IOTA] = {gen_nullary, 3, S_ALL},
    [OP_ZEROS] = {gen_nullary, 1, S_ALL}, [OP_FULL] = {gen_nullary, 1, S_ALL},
    [OP_NEG] = {gen_unary, 3, S_ALL}, [OP_ABS] = {gen_unary, 3, S_ALL},
    [OP_EXP] = {gen_unary, 3, S_ALL}, [OP_LOG] = {gen_unary, 3, S_ALL},
    [OP_TANH] = {gen_unary, 3, S_ALL}, [OP_SIN] = {gen_unary, 2, S_ALL},
    [OP_COS] = {gen_unary, 2, S_ALL}, [OP_SQRT] = {gen_unary, 2, S_ALL},
    [OP_RSQRT] = {gen_unary, 2, S_ALL}, [OP_RELU] = {gen_unary, 3, S_ALL},
    [OP_GELU] = {gen_unary, 2, S_ALL}, [OP_LOGISTIC] = {gen_unary, 2, S_ALL},
    [OP_CONVERT] = {gen_convert, 5, S_ALL},
    [OP_SIGN] = {gen_unary, 2, S_ALL}, [OP_NOT] = {gen_unary, 2, S_ALL},
    [OP_FLOOR] = {gen_unary, 1, S_ALL}, [OP_CEIL] = {gen_unary, 1, S_ALL},
    [OP_ROUND_NEAREST_EVEN] = {gen_unary, 1, S_ALL}, [OP_EXPM1] = {gen_unary, 2, S_ALL},
    [OP_LOG1P] = {gen_unary, 2, S_ALL}, [OP_ERF] = {gen_unary, 2, S_ALL},
    [OP_IS_FINITE] = {gen_unary, 1, S_ALL}, [OP_BITCAST_CONVERT] = {gen_bitcast, 2, S_ALL},
    [OP_ADD] = {gen_binary, 6, S_ALL}, [OP_SUB] = {gen_binary, 5, S_ALL},
    [OP_MUL] = {gen_binary, 6, S_ALL}, [OP_DIV] = {gen_binary, 3, S_ALL},
    [OP_MAX] = {gen_binary, 3, S_ALL}, [OP_MIN] = {gen_binary, 3, S_ALL},
    [OP_POW] = {gen_binary, 2, S_ALL},
    [OP_REM] = {gen_binary, 2, S_ALL}, [OP_ATAN2] = {gen_binary, 2, S_ALL},
    [OP_AND] = {gen_binary, 2, S_ALL}, [OP_OR] = {gen_binary, 2, S_ALL}, [OP_XOR] = {gen_binary, 2, S_ALL},
    [OP_SHIFT_LEFT] = {gen_binary, 1, S_ALL}, [OP_SHIFT_RIGHT_LOGICAL] = {gen_binary, 1, S_ALL},
    [OP_SHIFT_RIGHT_ARITHMETIC] = {gen_binary, 1, S_ALL}, [OP_CLAMP] = {gen_clamp, 3, S_ALL},
    [OP_COMPARE] = {gen_compare, 5, S_ALL}, [OP_SELECT] = {gen_select, 5, S_ALL},
    [OP_EINSUM] = {gen_einsum, 14, S_ALL},
    [OP_REDUCE_SUM] = {gen_reduce, 5, S_ALL}, [OP_REDUCE_MAX] = {gen_reduce, 3, S_ALL},
    [OP_REDUCE_MIN] = {gen_reduce, 3, S_ALL}, [OP_REDUCE_MEAN] = {gen_reduce, 3, S_ALL},
    [OP_TRANSPOSE] = {gen_transpose, 6, S_ALL}, [OP_RESHAPE] = {gen_reshape, 8, S_ALL},
    [OP_BROADCAST] = {gen_broadcast, 6, S_ALL}, [OP_CONCATENATE] = {gen_concatenate, 5, S_ALL},
    [OP_SLICE] = {gen_slice, 6, S_ALL}, [OP_PAD] = {gen_pad, 5, S_ALL},
    [OP_TOP_K] = {gen_top_k, 3, S_ALL}, [OP_SORT] = {gen_sort, 3, S_ALL},
    [OP_ARGMAX] = {gen_argmax, 3, S_ALL}, [OP_REDUCE] = {gen_reduce_region, 2, S_OUTER},
    [OP_REVERSE] = {gen_reverse, 3, S_OUTER}, [OP_DYNAMIC_SLICE] = {gen_dynamic_slice, 3, S_OUTER},
    [OP_DYNAMIC_UPDATE_SLICE] = {gen_dynamic_update_slice, 3, S_OUTER},
    [OP_GATHER] = {gen_gather, 4, S_OUTER}, [OP_SCATTER] = {gen_scatter, 3, S_OUTER},
    [OP_CONVOLUTION] = {gen_convolution, 4, S_OUTER}, [OP_REDUCE_WINDOW] = {gen_reduce_window, 4, S_OUTER},
    [OP_SELECT_AND_SCATTER] = {gen_select_and_scatter, 3, S_OUTER},
    /* linear algebra and batch norm (issue #18) */
    [OP_CHOLESKY] = {gen_cholesky, 2, S_ALL}, [OP_TRIANGULAR_SOLVE] = {gen_triangular_solve, 2, S_ALL},
    [OP_BATCH_NORM_INFERENCE] = {gen_batch_norm, 2, S_ALL}, [OP_BATCH_NORM_TRAINING] = {gen_batch_norm, 2, S_ALL},
    [OP_BATCH_NORM_GRAD] = {gen_batch_norm, 2, S_ALL},
    [OP_FFT] = {gen_fft, 5, S_OUTER}, /* complex numbers and fft (#18) */
    [OP_RNG_BIT_GENERATOR] = {gen_rng_bit_generator, 3, S_OUTER},
    [OP_CALL] = {gen_call, 3, S_OUTER}, [OP_CUSTOM] = {gen_custom, 10, S_OUTER},
    [OP_SHARDING_CONSTRAINT] = {gen_constraint, 7, S_ENTRY}, [OP_RESHARD] = {gen_constraint, 4, S_ENTRY},
    [OP_SHARD_MAP] = {gen_shard_map, 6, S_ENTRY},
    [OP_WHILE] = {gen_while, 4, S_ENTRY | S_MANUAL}, [OP_CASE] = {gen_case, 3, S_ENTRY | S_MANUAL},
    /* Heavy: in a shard_map body about half the ops are collectives. */
    [OP_PSUM] = {gen_all_reduce, 40, S_MANUAL}, [OP_PMEAN] = {gen_all_reduce, 15, S_MANUAL},
    [OP_PMAX] = {gen_all_reduce, 15, S_MANUAL}, [OP_PMIN] = {gen_all_reduce, 15, S_MANUAL},
    [OP_ALL_GATHER] = {gen_all_gather, 35, S_MANUAL}, [OP_PSUM_SCATTER] = {gen_psum_scatter, 30, S_MANUAL},
    [OP_PPERMUTE] = {gen_ppermute, 30, S_MANUAL}, [OP_ALL_TO_ALL] = {gen_all_to_all, 30, S_MANUAL},
    [OP_AXIS_INDEX] = {gen_axis_index, 20, S_MANUAL},
};

const OpGen *op_gen(OpKind kind) { return &op_gens[kind]; }

/* Feature switches and nesting limits on top of the table's scopes. */
static bool op_enabled(const Gen *g, OpKind kind)
{
    unsigned f = g->opts.features;
    if (!op_gens[kind].fn || !(op_gens[kind].scopes & (1u << g->scope->kind)))
        return false;
    switch (kind) {
    case OP_CUSTOM: return (f & FEAT_CUSTOM) && (g->depth == 1 || g->scope->is_callee);
    case OP_CALL: return (f & FEAT_CALL) && g->depth == 1;
    case OP_SHARD_MAP: return (f & FEAT_SHARD_MAP) != 0;
    case OP_WHILE: case OP_CASE: return (f & FEAT_CONTROL_FLOW) && !g->scope->control;
    case OP_SHARDING_CONSTRAINT: case OP_RESHARD: return (f & FEAT_CONSTRAINTS) != 0;
    default: return true;
    }
}

/* The table's weight where the op may appear, else 0. In a shard_map body
 * the collectives' heavy weights would leave control flow in about one body
 * in fifty; weighted up, it is in about one in ten. */
static int op_weight(const Gen *g, OpKind kind)
{
    if (!op_enabled(g, kind))
        return 0;
    bool manual_control = g->scope->kind == SCOPE_MANUAL && (kind == OP_WHILE || kind == OP_CASE);
    return op_gens[kind].weight * (manual_control ? 5 : 1);
}

static OpKind draw_kind(Gen *g)
{
    int total = 0;
    for (int k = 0; k < OP_COUNT; k++)
        total += op_weight(g, (OpKind)k);
    int r = rng_below(&g->rng, total);
    for (int k = 0; k < OP_COUNT; k++) {
        int w = op_weight(g, (OpKind)k);
        if (r < w)
            return (OpKind)k;
        r -= w;
    }
    return OP_ADD;
}

/* Now and then pin an op's results with `sharding = <...>` (Shardy's
 * sharding on an op result), which propagation must respect. */
static void maybe_shard_results(Gen *g, Op *op)
{
    if (!op || g->scope->kind != SCOPE_ENTRY || !(g->opts.features & FEAT_RESULT_SHARDINGS))
        return;
    if (op->kind == OP_SHARD_MAP || op->kind == OP_CUSTOM || op_info(op->kind)->op_class == OPC_SHARDING)
        return;
    for (int i = 0; i < op->num_results; i++)
        if (!rng_pct(&g->rng, 93))
            op->results[i]->sharding = gen_sharding(g, &op->results[i]->type, false);
}

bool gen_one_op(Gen *g)
{
    for (int attempt = 0; attempt < 30; attempt++) {
        OpKind kind = draw_kind(g);
        if (op_gens[kind].fn(g, kind)) {
            maybe_shard_results(g, g->scope->block->last);
            return true;
        }
    }
    return false;
}

void gen_ops(Gen *g, int n)
{
    for (int i = 0; i < n; i++)
        gen_one_op(g);
}
