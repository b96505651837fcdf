/* Unit tests of propagation's table of visit outcomes (outcomes.c): an
 * outcome is replayed only for the very inputs it was recorded with. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "propagate/propagation_state.h"

static const MeshAxis axes[] = {{"x", 2, false, {0}}};
static const Mesh mesh = {"m", {0}, 1, (MeshAxis *)axes, 2, NULL};

static void state_init(PropagationState *st)
{
    memset(st, 0, sizeof *st);
    arena_init(&st->work);
}

static const VisitOutcome *find(PropagationState *st, const OpShardingRule *rule, Sharding *const *in,
                                unsigned directions, bool elementwise)
{
    uint64_t hash = prop_outcome_hash(rule, in, 2, directions, elementwise);
    return prop_outcome_find(st, hash, rule, in, 2, directions, elementwise);
}

static void add(PropagationState *st, const OpShardingRule *rule, Sharding *const *in, unsigned directions,
                bool agreed, Sharding *const *out)
{
    uint64_t hash = prop_outcome_hash(rule, in, 2, directions, false);
    prop_outcome_add(st, hash, rule, in, 2, directions, false, agreed, out);
}

/* The same rule, shardings (by address), directions and elementwise-ness:
 * the recorded new shardings; any of them otherwise: nothing. A visit
 * that changed nothing is recorded without shardings. */
static void test_replayed_for_same_inputs_only(void **state)
{
    PropagationState st;
    state_init(&st);
    TensorType type = {DT_F32, 1, (int64_t[]){4}};
    OpShardingRule *rule = prop_identity_rule(&st.work, &type, 2), *other = prop_identity_rule(&st.work, &type, 2);
    Sharding *a = sharding_new_open(&st.work, &mesh, 1), *b = sharding_new_open(&st.work, &mesh, 1);
    Sharding *in[2] = {a, b}, *out[2] = {NULL, a}, *swapped[2] = {b, a};
    unsigned both = 4, forward = 3; /* say, two phases */
    assert_null(find(&st, rule, in, both, false));
    add(&st, rule, in, both, false, out);
    const VisitOutcome *o = find(&st, rule, in, both, false);
    assert_non_null(o);
    assert_false(prop_outcome_agreed(o));
    assert_null(prop_outcome_sharding(o, 0));
    assert_ptr_equal(prop_outcome_sharding(o, 1), a);
    assert_null(find(&st, other, in, both, false));
    assert_null(find(&st, rule, swapped, both, false));
    assert_null(find(&st, rule, in, forward, false));
    assert_null(find(&st, rule, in, both, true));
    add(&st, rule, in, forward, false, NULL);
    o = find(&st, rule, in, forward, false);
    assert_non_null(o);
    assert_false(prop_outcome_agreed(o));
    assert_null(prop_outcome_sharding(o, 1));
    arena_free(&st.work);
}

/* Agreement is recorded as such; the table grows past its first size and
 * keeps every outcome. */
static void test_agreed_and_growth(void **state)
{
    PropagationState st;
    state_init(&st);
    TensorType type = {DT_F32, 1, (int64_t[]){4}};
    unsigned both = 4;
    enum { N = 1000 };
    OpShardingRule *rules[N];
    Sharding *in[2] = {sharding_new_open(&st.work, &mesh, 1), sharding_new_open(&st.work, &mesh, 1)};
    Sharding *unchanged[2] = {NULL, NULL};
    for (int i = 0; i < N; i++) {
        rules[i] = prop_identity_rule(&st.work, &type, 2);
        add(&st, rules[i], in, both, i % 2 == 0, unchanged);
    }
    for (int i = 0; i < N; i++) {
        const VisitOutcome *o = find(&st, rules[i], in, both, false);
        assert_non_null(o);
        assert_int_equal(prop_outcome_agreed(o), i % 2 == 0);
    }
    arena_free(&st.work);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replayed_for_same_inputs_only),
        cmocka_unit_test(test_agreed_and_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
