/* Verifier of rng_bit_generator: StableHLO's constraints (the state's
 * type and size by algorithm, the bits of an integer or float type), and
 * the start operands of the partitioner's per-device form. */
#include <string.h>
#include "shardc/verify.h"

/* The state's size StableHLO's (C2) allows for the algorithm: THREE_FRY
 * 2, PHILOX 2 or 3; DEFAULT is THREE_FRY in shardc. 0: unknown name. */
static int state_size_ok(const char *alg, int64_t n)
{
    if (strcmp(alg, "DEFAULT") == 0 || strcmp(alg, "THREE_FRY") == 0)
        return n == 2 ? 1 : -1;
    if (strcmp(alg, "PHILOX") == 0)
        return n == 2 || n == 3 ? 1 : -1;
    return 0;
}

static void verify_state(VerifyCtx *vc, Op *op)
{
    const TensorType *s = &op->operands[0]->type;
    const char *alg = op_attr_string(op, ATTR_KEY_RNG_ALGORITHM);
    if (s->rank != 1 || s->dtype != DT_U64) {
        diag_error(vc->diag, op->loc, "'rng_bit_generator' state %%%s must be a u64 vector, got a %s of rank %d",
                   op->operands[0]->name, dtype_name(s->dtype), s->rank);
        return;
    }
    int ok = state_size_ok(alg, s->dims[0]);
    if (ok == 0)
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_RNG_ALGORITHM),
                   "unknown rng_algorithm \"%s\" (expected DEFAULT, THREE_FRY or PHILOX)", alg);
    else if (ok < 0)
        diag_error(vc->diag, op->loc, "'rng_bit_generator' with %s takes a state of %s u64 elements, got %lld", alg,
                   alg[0] == 'P' ? "2 or 3" : "2", (long long)s->dims[0]);
    verify_expect_type(vc, op, s, op->results[0]);
}

/* The per-device form: global_shape the whole output's shape, one integer
 * scalar start per dim, and a block that fits in it. */
static void verify_block(VerifyCtx *vc, Op *op, const TensorType *bits)
{
    int64_t global[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, ATTR_KEY_GLOBAL_SHAPE, global, SHARDC_MAX_RANK);
    if (n != bits->rank || op->num_operands != 1 + bits->rank) {
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_GLOBAL_SHAPE),
                   "'rng_bit_generator' with global_shape takes %d dims and %d start operands (the bits' rank), "
                   "got %d and %d", bits->rank, bits->rank, n, op->num_operands - 1);
        return;
    }
    for (int d = 0; d < n; d++) {
        const TensorType *t = &op->operands[1 + d]->type;
        if (t->rank != 0 || !dtype_is_int(t->dtype))
            diag_error(vc->diag, op->loc, "'rng_bit_generator' start %%%s must be an integer scalar",
                       op->operands[1 + d]->name);
        else if (bits->dims[d] > global[d])
            diag_error(vc->diag, op->loc, "'rng_bit_generator' block dim %d (%lld) exceeds global_shape (%lld)", d,
                       (long long)bits->dims[d], (long long)global[d]);
    }
}

void verify_rng_bit_generator(VerifyCtx *vc, Op *op)
{
    if (!verify_attr_valid(op, ATTR_KEY_RNG_ALGORITHM) || !verify_attr_valid(op, ATTR_KEY_GLOBAL_SHAPE))
        return;
    verify_state(vc, op);
    const TensorType *bits = &op->results[1]->type;
    if (!dtype_is_int(bits->dtype) && !dtype_is_float(bits->dtype))
        diag_error(vc->diag, op->results[1]->loc, "'rng_bit_generator' bits must be of an integer or float type, "
                   "got %s", dtype_name(bits->dtype));
    if (op_attr_get(op, ATTR_KEY_GLOBAL_SHAPE))
        verify_block(vc, op, bits);
    else if (op->num_operands != 1)
        diag_error(vc->diag, op->loc, "'rng_bit_generator' takes one operand (the state), got %d",
                   op->num_operands);
}
