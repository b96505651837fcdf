/* Generator for rng_bit_generator (issue 18): random bits, sharded as
 * their users want them, must be the same bits on every device count. */
#include "shirgen.h"

static Op *state_constant(Gen *g, int n)
{
    TensorType st = gen_type(g, DT_U64, 1, (const int64_t[]){n});
    Op *c = gen_op(g, OP_CONSTANT, NULL, 0, &st, 1);
    AttrValue *items[3];
    for (int i = 0; i < n; i++)
        items[i] = attr_i(g, rng_range(&g->rng, 0, 1 << 20));
    gen_set_attr(g, c, ATTR_KEY_VALUE, attr_list(g, items, n));
    return c;
}

/* THREE_FRY, DEFAULT (left unwritten or written) or PHILOX, whose state
 * is u64[2] or u64[3]. */
static const char *pick_algorithm(Gen *g, int *state_size)
{
    static const char *const names[] = {NULL, "DEFAULT", "THREE_FRY", "PHILOX"};
    const char *alg = names[rng_below(&g->rng, 4)];
    *state_size = alg && alg[0] == 'P' && rng_pct(&g->rng, 50) ? 3 : 2;
    return alg;
}

/* A constant state, i32 or i8 bits (8-bit ones are the low bits of the
 * 32-bit ones) shaped like a value in scope (so they combine with it) or
 * at random, then shifted right by 28 (i8: 4): the bits span the whole
 * type's range, which later ops (exp, pow, shift counts) do not want;
 * [0, 16) is what integer inputs hold. The new state is unused. */
bool gen_rng_bit_generator(Gen *g, OpKind kind)
{
    Pick p = pick_any(DTS_NUM);
    GenVal *like = rng_pct(&g->rng, 60) ? gen_pick(g, &p) : NULL;
    DType dt = rng_pct(&g->rng, 25) ? DT_I8 : DT_I32;
    TensorType bits = like ? gen_type(g, dt, like->v->type.rank, like->v->type.dims)
                           : gen_shape(g, dt, rng_range(&g->rng, 0, 3));
    int state_size;
    const char *alg = pick_algorithm(g, &state_size);
    Op *state = state_constant(g, state_size);
    TensorType rt[2] = {state->results[0]->type, bits};
    Op *op = gen_op(g, kind, &state->results[0], 1, rt, 2);
    if (alg)
        gen_set_attr(g, op, ATTR_KEY_RNG_ALGORITHM, attr_s(g, alg));
    TensorType scalar = gen_type(g, dt, 0, NULL);
    Op *count = gen_op(g, OP_FULL, NULL, 0, &scalar, 1);
    gen_set_attr(g, count, ATTR_KEY_VALUE, attr_i(g, dt == DT_I8 ? 4 : 28));
    Op *shift = gen_op(g, OP_SHIFT_RIGHT_LOGICAL, (Value *[]){op->results[1], count->results[0]}, 2, &bits, 1);
    gen_result(g, shift, 0, 16, true, 0);
    return true;
}
