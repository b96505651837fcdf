/* Unit tests of the sub-axis algebra and sharding projections. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "shardc/layout.h"
#include "shardc/propagate.h"

static const MeshAxis axes4x2[] = {{"x", 4, false, {0}}, {"y", 2, false, {0}}};
static const Mesh mesh = {"m", {0}, 2, (MeshAxis *)axes4x2, 8, NULL};

static void test_prefix_and_contains(void **state)
{
    AxisRef x = {0, 1, 4}, x12 = {0, 1, 2}, x22 = {0, 2, 2};
    assert_true(axis_ref_prefix_of(x12, x));
    assert_false(axis_ref_prefix_of(x22, x));
    assert_true(axis_ref_contains(x, x22));
    assert_false(axis_ref_contains(x12, x22));
    assert_true(axis_ref_overlaps(x, x22));
    assert_false(axis_ref_overlaps(x12, x22));
}

static void test_prefix_without_overlap(void **state)
{
    AxisRef x = {0, 1, 4}, x22 = {0, 2, 2}, out;
    assert_true(axis_ref_prefix_without_overlap(x, x22, &out));
    assert_true(axis_ref_equal(out, (AxisRef){0, 1, 2}));
    assert_false(axis_ref_prefix_without_overlap(x22, x, &out));
    AxisRef y = {1, 1, 2};
    assert_true(axis_ref_prefix_without_overlap(x, y, &out));
    assert_true(axis_ref_equal(out, x));
}

/* Uneven shards (docs/partitioning.md "Uneven dims"): 10 rows on "x"=4
 * are 3 per device, device x=3 holding 1 real row; 2 rows on ("x","y") = 8
 * shards are 1 per device, 6 of them wholly padding. */
static void test_uneven_blocks(void **state)
{
    AxisRef x = {0, 1, 4}, xy[] = {{0, 1, 4}, {1, 1, 2}};
    DimSharding dims[] = {{1, &x, true, -1}, {0, NULL, true, -1}};
    Sharding s = {.mesh = &mesh, .rank = 2, .dims = dims};
    int64_t shape[] = {10, 5}, offsets[2], sizes[2], local[2];
    TensorType t = {DT_F32, 2, shape};
    sharding_local_dims(&s, &t, local);
    assert_int_equal(local[0], 3);
    assert_int_equal(local[1], 5);
    int64_t want_offsets[] = {0, 3, 6, 9}, want_sizes[] = {3, 3, 3, 1};
    for (int64_t k = 0; k < 4; k++) {
        sharding_block(&s, &t, k * 2, offsets, sizes); /* position = x * 2 + y */
        assert_int_equal(offsets[0], want_offsets[k]);
        assert_int_equal(sizes[0], want_sizes[k]);
        assert_int_equal(sizes[1], 5);
    }
    dims[0] = (DimSharding){2, xy, true, -1};
    shape[0] = 2;
    sharding_local_dims(&s, &t, local);
    assert_int_equal(local[0], 1);
    sharding_block(&s, &t, 1, offsets, sizes);
    assert_int_equal(offsets[0], 1);
    assert_int_equal(sizes[0], 1);
    sharding_block(&s, &t, 5, offsets, sizes);
    assert_int_equal(offsets[0], 2);
    assert_int_equal(sizes[0], 0);
}

static void test_merge_sub_axes(void **state)
{
    AxisList list = {0};
    axis_list_add_or_merge(&list, (AxisRef){0, 1, 2}, &mesh);
    axis_list_add_or_merge(&list, (AxisRef){0, 2, 2}, &mesh);
    assert_int_equal(list.count, 1);
    assert_true(axis_ref_is_full(&mesh, list.axes[0]));
    axis_list_add_or_merge(&list, (AxisRef){1, 1, 2}, &mesh);
    assert_int_equal(list.count, 2);
}

static void test_strict_prefix(void **state)
{
    AxisList a = {1, {{0, 1, 2}}}, b = {1, {{0, 1, 4}}}, c = {2, {{0, 1, 4}, {1, 1, 2}}}, empty = {0};
    assert_true(axis_list_strict_prefix(&a, &b));
    assert_true(axis_list_strict_prefix(&b, &c));
    assert_true(axis_list_strict_prefix(&empty, &a));
    assert_false(axis_list_strict_prefix(&b, &b));
    assert_false(axis_list_strict_prefix(&c, &b));
}

/* A rule with one tensor of one dim made of factors (2, 4), as a reshape
 * [8] <- [2, 4] would have. */
static OpShardingRule *compound_rule(Arena *arena)
{
    OpShardingRule *r = ARENA_NEW(arena, OpShardingRule);
    r->num_factors = 2;
    r->factors = ARENA_ARRAY(arena, Factor, 2);
    r->factors[0] = (Factor){"i", 2, FACTOR_PASS_THROUGH};
    r->factors[1] = (Factor){"j", 4, FACTOR_PASS_THROUGH};
    r->num_operands = 1;
    r->operands = ARENA_NEW(arena, TensorFactors);
    r->operands->rank = 1;
    r->operands->dims = ARENA_NEW(arena, DimFactors);
    r->operands->dims->count = 2;
    r->operands->dims->factors = ARENA_ARRAY(arena, int, 2);
    r->operands->dims->factors[1] = 1;
    return r;
}

static void test_projection_splits_axis(void **state)
{
    Arena arena;
    arena_init(&arena);
    OpShardingRule *rule = compound_rule(&arena);
    int64_t dims[1] = {8};
    TensorType t = {DT_F32, 1, dims};
    Sharding *s = sharding_new_open(&arena, &mesh, 1);
    AxisRef x = {0, 1, 4};
    s->dims[0].axes = &x;
    s->dims[0].num_axes = 1;
    const TensorType *types[1] = {&t};
    ShardingProjection p;
    projection_build(&p, &arena, rule, &mesh, &s, types, 1, 1);
    assert_int_equal(p.tensors[0].factors[0].axes.count, 1);
    assert_true(axis_ref_equal(p.tensors[0].factors[0].axes.axes[0], (AxisRef){0, 1, 2}));
    assert_true(axis_ref_equal(p.tensors[0].factors[1].axes.axes[0], (AxisRef){0, 2, 2}));
    Sharding *back = projection_to_sharding(&p, 0, s, &arena);
    assert_true(sharding_equal(back, s));
    arena_free(&arena);
}

/* A slice f32[4] -> f32[1]: one permutation factor of the operand's size
 * on both tensors' dim 0. */
static OpShardingRule *slice_rule(Arena *arena)
{
    OpShardingRule *r = ARENA_NEW(arena, OpShardingRule);
    r->num_factors = 1;
    r->factors = ARENA_NEW(arena, Factor);
    r->factors[0] = (Factor){"i", 4, FACTOR_PERMUTATION};
    r->num_operands = r->num_results = 1;
    TensorFactors *tensors = ARENA_ARRAY(arena, TensorFactors, 2);
    for (int t = 0; t < 2; t++) {
        tensors[t].rank = 1;
        tensors[t].dims = ARENA_NEW(arena, DimFactors);
        tensors[t].dims->count = 1;
        tensors[t].dims->factors = ARENA_NEW(arena, int);
    }
    r->operands = &tensors[0];
    r->results = &tensors[1];
    return r;
}

/* Each tensor's factor size is its dim's when the dim has one factor (the
 * sliced result: 1, not the factor's 4), else the factor's. */
static void test_projection_tensor_sizes(void **state)
{
    Arena arena;
    arena_init(&arena);
    int64_t in_dims[1] = {4}, out_dims[1] = {1}, flat[1] = {8};
    TensorType in = {DT_F32, 1, in_dims}, out = {DT_F32, 1, out_dims}, t8 = {DT_F32, 1, flat};
    const TensorType *types[2] = {&in, &out};
    Sharding *none[2] = {NULL, NULL};
    ShardingProjection p;
    projection_build(&p, &arena, slice_rule(&arena), &mesh, none, types, 1, 2);
    assert_int_equal(p.tensors[0].factors[0].size, 4);
    assert_int_equal(p.tensors[1].factors[0].size, 1);
    const TensorType *compound[1] = {&t8};
    projection_build(&p, &arena, compound_rule(&arena), &mesh, none, compound, 1, 1);
    assert_int_equal(p.tensors[0].factors[0].size, 2);
    assert_int_equal(p.tensors[0].factors[1].size, 4);
    arena_free(&arena);
}

/* "y" (2) from the slice's operand (4) onto its result (1): the factor is
 * the minor-most of its dim, so, as in Shardy, the result takes "y" and the
 * partitioner pads it. */
static void test_axis_onto_smaller_dim_padded(void **state)
{
    Arena arena;
    arena_init(&arena);
    int64_t in_dims[1] = {4}, out_dims[1] = {1};
    TensorType in = {DT_F32, 1, in_dims}, out = {DT_F32, 1, out_dims};
    const TensorType *types[2] = {&in, &out};
    Sharding *s[2] = {sharding_new_open(&arena, &mesh, 1), NULL};
    AxisRef y = {1, 1, 2};
    s[0]->dims[0].axes = &y;
    s[0]->dims[0].num_axes = 1;
    ShardingProjection p;
    projection_build(&p, &arena, slice_rule(&arena), &mesh, s, types, 1, 2);
    PropagationDirection dirs[1] = {DIR_BOTH};
    bool updated[2] = {false, false};
    factor_propagate(&p, PROPAGATION_AGGRESSIVE, dirs, false, updated, &arena);
    assert_true(updated[1]);
    assert_int_equal(p.tensors[1].factors[0].axes.count, 1);
    assert_true(axis_ref_equal(p.tensors[1].factors[0].axes.axes[0], y));
    arena_free(&arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefix_and_contains),
        cmocka_unit_test(test_prefix_without_overlap),
        cmocka_unit_test(test_merge_sub_axes),
        cmocka_unit_test(test_uneven_blocks),
        cmocka_unit_test(test_strict_prefix),
        cmocka_unit_test(test_projection_splits_axis),
        cmocka_unit_test(test_projection_tensor_sizes),
        cmocka_unit_test(test_axis_onto_smaller_dim_padded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
