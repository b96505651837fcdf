/* Generator for rng_bit_generator (issue 18): random bits, sharded as
 * their users want them, must be the same bits on every device count. */
#include "shirgen.h"

static Op *state_constant(Gen *g)
{
    TensorType st = gen_type(g, DT_U64, 1, (const int64_t[]){2});
    Op *c = gen_op(g, OP_CONSTANT, NULL, 0, &st, 1);
    AttrValue *items[2] = {attr_i(g, rng_range(&g->rng, 0, 1 << 20)), attr_i(g, rng_range(&g->rng, 0, 1 << 20))};
    gen_set_attr(g, c, ATTR_KEY_VALUE, attr_list(g, items, 2));
    return c;
}

/* A constant u64[2] state, i32 bits shaped like a value in scope (so they
 * combine with it) or at random, then shifted right by 28: the bits span
 * the whole i32 range, which later ops (exp, pow, shift counts) do not
 * want; [0, 16) is what integer inputs hold. The new state is unused. */
bool gen_rng_bit_generator(Gen *g, OpKind kind)
{
    Pick p = pick_any(DTS_NUM);
    GenVal *like = rng_pct(&g->rng, 60) ? gen_pick(g, &p) : NULL;
    TensorType bits = like ? gen_type(g, DT_I32, like->v->type.rank, like->v->type.dims)
                           : gen_shape(g, DT_I32, rng_range(&g->rng, 0, 3));
    Op *state = state_constant(g);
    TensorType rt[2] = {state->results[0]->type, bits};
    Op *op = gen_op(g, kind, &state->results[0], 1, rt, 2);
    if (rng_pct(&g->rng, 50))
        gen_set_attr(g, op, ATTR_KEY_RNG_ALGORITHM, attr_s(g, rng_pct(&g->rng, 50) ? "THREE_FRY" : "DEFAULT"));
    TensorType scalar = gen_type(g, DT_I32, 0, NULL);
    Op *count = gen_op(g, OP_FULL, NULL, 0, &scalar, 1);
    gen_set_attr(g, count, ATTR_KEY_VALUE, attr_i(g, 28));
    Op *shift = gen_op(g, OP_SHIFT_RIGHT_LOGICAL, (Value *[]){op->results[1], count->results[0]}, 2, &bits, 1);
    gen_result(g, shift, 0, 16, true, 0);
    return true;
}
