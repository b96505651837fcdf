/* The built-in op sharding-rule registry: for every op class, the factors
 * (sizes, kinds, Shardy names) and each tensor dim's factors, checked on
 * ops parsed from .shir text and verified; the cases follow Shardy's
 * op_sharding_rule_registry.mlir where the op exists there. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "support.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/ir_clone.h"
#include "shardc/parse.h"
#include "shardc/rules.h"
#include "shardc/verify.h"

typedef struct Fixture {
    Arena arena;        /* rules */
    CapturedDiag cap;
    char *text;         /* the module text, alive while diag may quote it */
    Module *module;
} Fixture;

static int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    arena_init(&f->arena);
    captured_diag_init(&f->cap);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    if (f->module)
        module_free(f->module);
    free(f->text);
    captured_diag_free(&f->cap);
    arena_free(&f->arena);
    free(f);
    return 0;
}

/* ---- helpers ---- */

static const char *diagnostics(Fixture *f)
{
    return captured_diag_text(&f->cap);
}

/* Parse and verify a whole module; NULL (diagnostics kept) on errors. */
static Module *load(Fixture *f, const char *text)
{
    free(f->text);
    f->text = strdup(text);
    diag_add_source(&f->cap.diag, "<test>", f->text, strlen(f->text));
    f->module = parse_module("<test>", f->text, strlen(f->text), &f->cap.diag);
    if (f->module && !verify_module(f->module, &f->cap.diag))
        return NULL;
    return f->module;
}

/* One function @t(args) holding `ops`, for the common case. */
static Module *load_func(Fixture *f, const char *args, const char *ops)
{
    char text[4096];
    snprintf(text, sizeof text, "mesh @mesh = <\"x\"=2, \"y\"=2>\nfunc @t(%s) {\n%s\n  return\n}\n", args, ops);
    Module *m = load(f, text);
    if (!m)
        fail_msg("module does not verify:\n%s", diagnostics(f));
    return m;
}

static const Op *find_op(const Block *b, const char *result)
{
    for (const Op *op = b->first; op; op = op->next) {
        if (op->num_results && strcmp(op->results[0]->name, result) == 0)
            return op;
        const Op *inner = op->region ? find_op(op->region, result) : NULL;
        if (inner)
            return inner;
    }
    return NULL;
}

static const Op *op_defining(Fixture *f, const char *result)
{
    for (int i = 0; i < f->module->num_funcs; i++) {
        const Op *op = find_op(f->module->funcs[i]->body, result);
        if (op)
            return op;
    }
    fail_msg("no op defines %%%s", result);
    return NULL;
}

/* The rule of the op defining `result` (without its %). */
static OpShardingRule *rule_of(Fixture *f, const char *result)
{
    return rules_of_op(&f->arena, &f->cap.diag, op_defining(f, result));
}

static OpShardingRule *rule_for(Fixture *f, const char *args, const char *ops, const char *result)
{
    load_func(f, args, ops);
    OpShardingRule *rule = rule_of(f, result);
    assert_non_null(rule);
    return rule;
}

static void expect_factor(const OpShardingRule *rule, int index, int64_t size, FactorKind kind)
{
    assert_true(index < rule->num_factors);
    assert_int_equal(rule->factors[index].size, size);
    assert_int_equal(rule->factors[index].kind, kind);
}

/* Factor sizes, all of one kind except those `expect_factor` fixes. */
static void expect_sizes(const OpShardingRule *rule, int count, const int64_t *sizes)
{
    assert_int_equal(rule->num_factors, count);
    for (int i = 0; i < count; i++)
        assert_int_equal(rule->factors[i].size, sizes[i]);
}

/* Dim `dim` of `t` maps to exactly the `count` factors given, in order. */
static void expect_dim(const TensorFactors *t, int dim, int count, ...)
{
    assert_true(dim < t->rank);
    assert_int_equal(t->dims[dim].count, count);
    va_list ap;
    va_start(ap, count);
    for (int k = 0; k < count; k++)
        assert_int_equal(t->dims[dim].factors[k], va_arg(ap, int));
    va_end(ap);
}

static void expect_sdy(Fixture *f, const OpShardingRule *rule, const char *expected)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&buf, &len);
    rule_print_sdy(s, rule);
    fclose(s);
    char *copy = arena_strdup(&f->arena, buf);
    free(buf);
    assert_string_equal(copy, expected);
}

#define SIZES(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__}

/* ---- elementwise ---- */

static void test_pointwise_same_shape(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[2,1,4]", "%r = add %a, %a : f32[2,1,4]", "r");
    expect_sizes(r, SIZES(2, 1, 4));
    assert_false(r->is_custom);
    for (int d = 0; d < 3; d++) {
        expect_factor(r, d, r->factors[d].size, FACTOR_PASS_THROUGH);
        expect_dim(&r->operands[0], d, 1, d);
        expect_dim(&r->operands[1], d, 1, d);
        expect_dim(&r->results[0], d, 1, d);
    }
}

static void test_pointwise_factor_names(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[2,1,4]", "%r = neg %a : f32[2,1,4]", "r");
    assert_string_equal(r->factors[0].name, "i");
    assert_string_equal(r->factors[1].name, "j");
    assert_string_equal(r->factors[2].name, "k");
}

static void test_unary_convert_and_sharding_ops(void **state)
{
    Fixture *f = *state;
    load_func(f, "%a: f32[8,4]",
              "  %e = exp %a : f32[8,4]\n  %c = convert %e : i32[8,4]\n"
              "  %s = sharding_constraint %c {sharding = <@mesh, [{\"x\"}, {}]>} : i32[8,4]\n"
              "  %h = reshard %s {sharding = <@mesh, [{}, {\"y\"}]>} : i32[8,4]");
    const char *names[] = {"e", "c", "s", "h"};
    for (int i = 0; i < 4; i++)
        expect_sdy(f, rule_of(f, names[i]), "#sdy.op_sharding_rule<([i, j])->([i, j]) {i=8, j=4}>");
}

static void test_broadcast_lower_rank_operand(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[16,8], %b: f32[8]", "%r = add %a, %b : f32[16,8]", "r");
    expect_sizes(r, SIZES(16, 8));
    assert_int_equal(r->operands[1].rank, 1);
    expect_dim(&r->operands[1], 0, 1, 1);
    expect_dim(&r->results[0], 0, 1, 0);
}

static void test_broadcast_scalar_operand(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: i32[8,16], %s: i32[]", "%r = mul %a, %s : i32[8,16]", "r");
    expect_sizes(r, SIZES(8, 16));
    assert_int_equal(r->operands[1].rank, 0);
}

/* The stretched size-1 dim gets its own size-1 factor, after the shared
 * ones, so it can never be sharded like the result dim it stretches to. */
static void test_broadcast_size_one_dim(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[4,1], %b: f32[1,8]", "%r = sub %a, %b : f32[4,8]", "r");
    expect_sizes(r, SIZES(4, 8, 1, 1));
    expect_dim(&r->operands[0], 0, 1, 0);
    expect_dim(&r->operands[0], 1, 1, 2);
    expect_dim(&r->operands[1], 0, 1, 3);
    expect_dim(&r->operands[1], 1, 1, 1);
    expect_dim(&r->results[0], 1, 1, 1);
    expect_factor(r, 2, 1, FACTOR_PASS_THROUGH);
}

static void test_compare_and_select(void **state)
{
    Fixture *f = *state;
    load_func(f, "%p: bool[], %q: bool[4,1], %a: f32[4,8], %b: f32[8]",
              "  %c = compare %a, %b {direction = \"ge\"} : bool[4,8]\n"
              "  %s = select %p, %a, %a : f32[4,8]\n  %t = select %q, %b, %a : f32[4,8]");
    expect_sdy(f, rule_of(f, "c"), "#sdy.op_sharding_rule<([i, j], [j])->([i, j]) {i=4, j=8}>");
    expect_sdy(f, rule_of(f, "s"), "#sdy.op_sharding_rule<([], [i, j], [i, j])->([i, j]) {i=4, j=8}>");
    expect_sdy(f, rule_of(f, "t"), "#sdy.op_sharding_rule<([i, k], [j], [i, j])->([i, j]) {i=4, j=8, k=1}>");
}

/* ---- nullary ---- */

static void test_nullary(void **state)
{
    Fixture *f = *state;
    load_func(f, "", "  %i = iota {dimension = 1} : i32[4,16]\n  %s = full {value = 2} : i32[]\n"
                     "  %z = zeros : f32[3]\n  %c = constant {value = [1, 2]} : i32[2]");
    OpShardingRule *r = rule_of(f, "i");
    assert_int_equal(r->num_operands, 0);
    expect_sizes(r, SIZES(4, 16));
    expect_factor(r, 1, 16, FACTOR_PASS_THROUGH);
    expect_dim(&r->results[0], 1, 1, 1);
    expect_sdy(f, rule_of(f, "s"), "#sdy.op_sharding_rule<()->([])>");
    expect_sdy(f, rule_of(f, "z"), "#sdy.op_sharding_rule<()->([i]) {i=3}>");
    expect_sdy(f, rule_of(f, "c"), "#sdy.op_sharding_rule<()->([i]) {i=2}>");
}

/* ---- einsum ---- */

static void test_einsum_matmul(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[8,32], %b: f32[32,16]",
                                 "%r = einsum \"mk,kn->mn\" %a, %b : f32[8,16]", "r");
    expect_sizes(r, SIZES(8, 16, 32));
    expect_factor(r, 0, 8, FACTOR_PASS_THROUGH);
    expect_factor(r, 1, 16, FACTOR_PASS_THROUGH);
    expect_factor(r, 2, 32, FACTOR_REDUCTION);
    expect_dim(&r->operands[0], 0, 1, 0);
    expect_dim(&r->operands[0], 1, 1, 2);
    expect_dim(&r->operands[1], 0, 1, 2);
    expect_dim(&r->operands[1], 1, 1, 1);
    expect_dim(&r->results[0], 0, 1, 0);
    expect_dim(&r->results[0], 1, 1, 1);
}

static void test_einsum_batch_and_contract(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[4,8,32], %b: f32[32,4,16]",
                                 "%r = einsum \"bik,kbj->jbi\" %a, %b : f32[16,4,8]", "r");
    /* batch b, lhs free i, rhs free j, contracted k */
    expect_sizes(r, SIZES(4, 8, 16, 32));
    expect_factor(r, 0, 4, FACTOR_PASS_THROUGH);
    expect_factor(r, 3, 32, FACTOR_REDUCTION);
    expect_dim(&r->operands[1], 1, 1, 0);
    expect_dim(&r->operands[1], 0, 1, 3);
    expect_dim(&r->results[0], 0, 1, 2);
    expect_dim(&r->results[0], 1, 1, 0);
    expect_dim(&r->results[0], 2, 1, 1);
}

static void test_einsum_one_sided_sum(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[2,3,5], %b: f32[5,7,11]",
                                 "%r = einsum \"xak,kby->ab\" %a, %b : f32[3,7]", "r");
    expect_sdy(*state, r, "#sdy.op_sharding_rule<([k, i, l], [l, j, m])->([i, j]) "
                          "{i=3, j=7, k=2, l=5, m=11} reduction={k, l, m}>");
}

static void test_einsum_single_input(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[2,64,13]", "%r = einsum \"abc->ca\" %a : f32[13,2]", "r");
    expect_sizes(r, SIZES(2, 64, 13));
    expect_factor(r, 1, 64, FACTOR_REDUCTION);
    expect_dim(&r->results[0], 0, 1, 2);
    expect_dim(&r->results[0], 1, 1, 0);
}

/* 26 labels: factor 18 and up are named z_1, z_2, ... as Shardy prints. */
static void test_einsum_many_factor_names(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1], %b: f32[1,1,1,1,1,1,1,1,1,1]",
                                 "%r = einsum \"abcdefghijklmnop,qrstuvwxyz->\" %a, %b : f32[]", "r");
    assert_int_equal(r->num_factors, 26);
    assert_string_equal(r->factors[17].name, "z");
    assert_string_equal(r->factors[18].name, "z_1");
    assert_string_equal(r->factors[25].name, "z_8");
    expect_factor(r, 25, 1, FACTOR_REDUCTION);
}

/* ---- reductions ---- */

static void test_reduce(void **state)
{
    Fixture *f = *state;
    load_func(f, "%a: f32[2,64,13]",
              "  %s = reduce_sum %a {dims = [1]} : f32[2,13]\n  %m = reduce_max %a {dims = [2, 0]} : f32[64]");
    OpShardingRule *r = rule_of(f, "s");
    expect_sizes(r, SIZES(2, 64, 13));
    expect_factor(r, 0, 2, FACTOR_PASS_THROUGH);
    expect_factor(r, 1, 64, FACTOR_REDUCTION);
    expect_dim(&r->operands[0], 1, 1, 1);
    expect_dim(&r->results[0], 1, 1, 2);
    r = rule_of(f, "m");
    expect_factor(r, 0, 2, FACTOR_REDUCTION);
    expect_factor(r, 1, 64, FACTOR_PASS_THROUGH);
    expect_factor(r, 2, 13, FACTOR_REDUCTION);
    expect_dim(&r->results[0], 0, 1, 1);
}

static void test_argmax_needs_replication(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[4,32,8]", "%r = argmax %a {dim = 1} : i32[4,8]", "r");
    expect_sizes(r, SIZES(4, 32, 8));
    expect_factor(r, 1, 32, FACTOR_NEED_REPLICATION);
    expect_factor(r, 2, 8, FACTOR_PASS_THROUGH);
    expect_dim(&r->results[0], 1, 1, 2);
}

/* ---- data movement ---- */

static void test_transpose(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[256,32,64,100]",
                                 "%r = transpose %a {permutation = [3, 1, 0, 2]} : f32[100,32,256,64]", "r");
    expect_sdy(*state, r, "#sdy.op_sharding_rule<([k, j, l, i])->([i, j, k, l]) {i=100, j=32, k=256, l=64}>");
}

static void test_broadcast_op(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[2,3,5,1,7]",
                                 "%r = broadcast %a {dims = [0, 2, 1, 3, 4]} : f32[2,5,3,11,7,13]", "r");
    expect_sizes(r, SIZES(2, 5, 3, 1, 11, 7, 13));
    expect_dim(&r->operands[0], 3, 1, 3);
    expect_dim(&r->results[0], 3, 1, 4);
    expect_dim(&r->results[0], 5, 1, 6);
}

static void test_concatenate(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[4,3], %b: f32[4,5]",
                                 "%r = concatenate %a, %b {dim = 1} : f32[4,8]", "r");
    expect_sizes(r, SIZES(4, 8));
    expect_factor(r, 1, 8, FACTOR_NEED_REPLICATION);
    expect_dim(&r->operands[0], 1, 1, 1);
    expect_dim(&r->operands[1], 1, 1, 1);
}

/* Shardy's concat(slice(x), x): pieces moved into place, a permutation;
 * conservative propagation gives the dim no factor (size-1 ones). */
static void test_concatenate_of_slices(void **state)
{
    Fixture *f = *state;
    load_func(f, "%a: f32[4,6]",
              "  %s = slice %a {start = [0, 0], limit = [4, 2]} : f32[4,2]\n"
              "  %r = concatenate %s, %a {dim = 1} : f32[4,8]");
    OpShardingRule *r = rule_of(f, "r");
    expect_factor(r, 1, 8, FACTOR_PERMUTATION);
    r = rules_of_op_conservative(&f->arena, &f->cap.diag, op_defining(f, "r"), true);
    assert_int_equal(r->num_factors, 4); /* i=4, then a size-1 factor per concatenated dim */
    expect_factor(r, 1, 1, FACTOR_PASS_THROUGH);
    expect_dim(&r->results[0], 1, 1, 3);
}

static void test_slice_and_pad(void **state)
{
    Fixture *f = *state;
    load_func(f, "%a: f32[32,4,8]",
              "  %s = slice %a {start = [0, 1, 4], limit = [32, 2, 8], stride = [1, 1, 2]} : f32[32,1,2]\n"
              "  %p = pad %a {low = [0, 0, 1], high = [0, 0, 0]} : f32[32,4,9]");
    OpShardingRule *r = rule_of(f, "s");
    expect_sizes(r, SIZES(32, 4, 8));
    expect_factor(r, 0, 32, FACTOR_PASS_THROUGH);
    expect_factor(r, 1, 4, FACTOR_PERMUTATION);
    expect_factor(r, 2, 8, FACTOR_PERMUTATION);
    expect_dim(&r->results[0], 2, 1, 2);
    r = rule_of(f, "p");
    expect_factor(r, 1, 4, FACTOR_PASS_THROUGH);
    expect_factor(r, 2, 8, FACTOR_PERMUTATION);
}

/* ---- reshape ---- */

static void test_reshape_split(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[4,12]", "%r = reshape %a : f32[4,2,3,2]", "r");
    expect_sizes(r, SIZES(4, 2, 3, 2));
    expect_dim(&r->operands[0], 1, 3, 1, 2, 3);
    expect_dim(&r->results[0], 1, 1, 1);
    expect_dim(&r->results[0], 3, 1, 3);
}

static void test_reshape_merge(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[2,4]", "%r = reshape %a : f32[8]", "r");
    expect_sizes(r, SIZES(2, 4));
    expect_dim(&r->operands[0], 0, 1, 0);
    expect_dim(&r->operands[0], 1, 1, 1);
    expect_dim(&r->results[0], 0, 2, 0, 1);
}

/* 6x4 -> 4x6: split at the gcd 2, then factors of one side only until the
 * sides meet again: ([ij, mn])->([ik, ln]). */
static void test_reshape_non_divisible(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[6,4]", "%r = reshape %a : f32[4,6]", "r");
    expect_sizes(r, SIZES(2, 3, 2, 3, 2, 2));
    expect_dim(&r->operands[0], 0, 2, 0, 1);
    expect_dim(&r->operands[0], 1, 2, 4, 5);
    expect_dim(&r->results[0], 0, 2, 0, 2);
    expect_dim(&r->results[0], 1, 2, 3, 5);
}

static void test_reshape_no_common_divisor(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[3,2]", "%r = reshape %a : f32[2,3]", "r");
    expect_sdy(*state, r, "#sdy.op_sharding_rule<([i, l])->([j, k]) {i=3, j=2, k=3, l=2}>");
}

static void test_reshape_size_one_dims(void **state)
{
    Fixture *f = *state;
    load_func(f, "%a: f32[1,8,4], %b: f32[32], %c: f32[1,1]",
              "  %r = reshape %a : f32[8,1,4,1]\n  %s = reshape %b : f32[8,1,4]\n  %t = reshape %c : f32[]");
    expect_sdy(f, rule_of(f, "r"),
               "#sdy.op_sharding_rule<([i, j, l])->([j, k, l, m]) {i=1, j=8, k=1, l=4, m=1}>");
    expect_sdy(f, rule_of(f, "s"), "#sdy.op_sharding_rule<([ik])->([i, j, k]) {i=8, j=1, k=4}>");
    expect_sdy(f, rule_of(f, "t"), "#sdy.op_sharding_rule<([i, j])->([]) {i=1, j=1}>");
}

static void test_reshape_swap_and_merge(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[4,7,5,8]", "%r = reshape %a : f32[14,10,8]", "r");
    expect_sdy(*state, r, "#sdy.op_sharding_rule<([ij, l, n, o])->([ik, mn, o]) "
                          "{i=2, j=2, k=7, l=7, m=2, n=5, o=8}>");
}

static void test_reshape_zero_elements_has_no_rule(void **state)
{
    Fixture *f = *state;
    load_func(f, "%a: f32[4,0]", "  %r = reshape %a : f32[0,8]");
    assert_null(rule_of(f, "r"));
}

/* ---- sort, top_k ---- */

static void test_sort(void **state)
{
    Fixture *f = *state;
    load_func(f, "%a: f32[4,32,8], %b: i32[1,4,1]",
              "  %s = sort %a {dim = 0} : f32[4,32,8]\n  %t = sort %b {dim = 1} : i32[1,4,1]");
    OpShardingRule *r = rule_of(f, "s");
    expect_factor(r, 0, 4, FACTOR_NEED_REPLICATION);
    expect_factor(r, 1, 32, FACTOR_PASS_THROUGH);
    /* every other dim of size 1: Shardy blocks the sorted dim's factor */
    r = rule_of(f, "t");
    expect_sizes(r, SIZES(1, 4, 1));
    expect_factor(r, 1, 4, FACTOR_NEED_REPLICATION);
    assert_true(r->blocked && r->blocked[1] && !r->blocked[0]);
}

static void test_top_k(void **state)
{
    OpShardingRule *r = rule_for(*state, "%a: f32[16,8]", "%v, %i = top_k %a {k = 8} : f32[16,8], i32[16,8]", "v");
    assert_int_equal(r->num_results, 2);
    expect_sizes(r, SIZES(16, 1, 1, 1));
    expect_dim(&r->operands[0], 0, 1, 0);
    expect_dim(&r->results[1], 0, 1, 0);
    expect_dim(&r->operands[0], 1, 1, 1);
    expect_dim(&r->results[0], 1, 1, 2);
    expect_dim(&r->results[1], 1, 1, 3);
}

/* ---- custom ops and ops without rules ---- */

static const char custom_module[] =
    "func @main(%x: f32[8,16], %k: i32[8]) -> (f32[8,2], i32[8,2]) {\n"
    "  %v, %i = custom @top2(%x, %k) {rule = \"b v, b -> b k, b k\", need_replication = [\"v\"]} "
    ": f32[8,2], i32[8,2]\n"
    "  return %v, %i\n}\n"
    "func @top2(%x: f32[8,16], %k: i32[8]) -> (f32[8,2], i32[8,2]) {\n"
    "  %v, %i = top_k %x {k = 2} : f32[8,2], i32[8,2]\n  return %v, %i\n}\n";

static void test_custom_rule(void **state)
{
    Fixture *f = *state;
    assert_non_null(load(f, custom_module));
    OpShardingRule *r = rule_of(f, "v");
    assert_true(r->is_custom);
    expect_sizes(r, SIZES(8, 16, 2));
    expect_factor(r, 1, 16, FACTOR_NEED_REPLICATION);
    expect_dim(&r->operands[1], 0, 1, 0);
    expect_dim(&r->results[1], 1, 1, 2);
}

static void test_custom_bad_option_attribute(void **state)
{
    Fixture *f = *state;
    const char *text =
        "func @main(%x: f32[8]) -> f32[8] {\n"
        "  %y = custom @id(%x) {rule = \"i -> i\", reduction = \"i\"} : f32[8]\n  return %y\n}\n"
        "func @id(%x: f32[8]) -> f32[8] {\n  return %x\n}\n";
    assert_null(load(f, text));
    assert_non_null(strstr(diagnostics(f), "error: 'reduction' must be a list of factor names"));
    RuleStringOptions opts;
    assert_false(rule_options_from_attrs(&f->arena, &f->cap.diag, op_defining(f, "y"), &opts));
}

static void test_rule_options_from_attrs(void **state)
{
    Fixture *f = *state;
    const char *text =
        "func @main(%x: f32[8,6]) -> f32[6,8] {\n"
        "  %y = custom @swap(%x) {rule = \"(a b) c -> c (a b)\", factor_sizes = {a = 2, b = 4}, "
        "permutation = [\"c\"], reduction = []} : f32[6,8]\n  return %y\n}\n"
        "func @swap(%x: f32[8,6]) -> f32[6,8] {\n  %y = transpose %x {permutation = [1, 0]} : f32[6,8]\n"
        "  return %y\n}\n";
    assert_non_null(load(f, text));
    RuleStringOptions opts;
    assert_true(rule_options_from_attrs(&f->arena, &f->cap.diag, op_defining(f, "y"), &opts));
    assert_int_equal(opts.num_sizes, 2);
    assert_string_equal(opts.sizes[1].name, "b");
    assert_int_equal(opts.sizes[1].size, 4);
    assert_int_equal(opts.num_permutation, 1);
    assert_string_equal(opts.permutation[0], "c");
    assert_int_equal(opts.num_reduction, 0);
    assert_int_equal(opts.num_need_replication, 0);
    expect_sdy(f, rule_of(f, "y"),
               "#sdy.op_sharding_rule<([ij, k])->([k, ij]) {i=2, j=4, k=6} permutation={k}, custom>");
}

/* The verifier binds a custom op's rule string once and keeps it: later
 * requests, and inlined copies on the same shapes, share it; a copy on
 * other shapes binds its own. */
static void test_custom_rule_bound_once(void **state)
{
    Fixture *f = *state;
    const char *text =
        "func @main(%x: f32[8], %z: f32[4]) -> f32[8] {\n"
        "  %y = custom @id(%x) {rule = \"i -> i\"} : f32[8]\n  return %y\n}\n"
        "func @id(%x: f32[8]) -> f32[8] {\n  return %x\n}\n";
    Module *m = load(f, text);
    assert_non_null(m);
    const Op *op = op_defining(f, "y");
    assert_non_null(op_bound_rule(op));
    const OpShardingRule *kept = rule_of(f, "y");
    assert_ptr_equal(rule_of(f, "y"), kept);
    ValueMap map;
    value_map_init(&map, &f->arena);
    assert_ptr_equal(rules_of_op(&f->arena, &f->cap.diag, op_clone(m, op, &map, "same")), kept);
    value_map_put(&map, op->operands[0], m->funcs[0]->body->args[1]);
    const OpShardingRule *other = rules_of_op(&f->arena, &f->cap.diag, op_clone(m, op, &map, "other"));
    assert_ptr_not_equal(other, kept);
    expect_sdy(f, kept, "#sdy.op_sharding_rule<([i])->([i]) {i=8}, custom>");
    expect_sdy(f, other, "#sdy.op_sharding_rule<([i])->([i]) {i=4}, custom>");
}

static void test_no_rule_ops(void **state)
{
    Fixture *f = *state;
    const char *text =
        "mesh @mesh = <\"x\"=2>\n"
        "func @main(%a: f32[8]) -> (f32[8], f32[8]) {\n"
        "  %c = call @id(%a) : f32[8]\n"
        "  %m = shard_map %a {mesh = @mesh, in_specs = [<@mesh, [{\"x\"}]>], out_specs = [<@mesh, [{\"x\"}]>]}"
        " (%l: f32[4]) {\n    %s = psum %l {axes = [\"x\"]} : f32[4]\n    return %s\n  } : f32[8]\n"
        "  return %c, %m\n}\n"
        "func @id(%a: f32[8]) -> f32[8] {\n  return %a\n}\n";
    assert_non_null(load(f, text));
    assert_null(rule_of(f, "c"));
    assert_null(rule_of(f, "m"));
    assert_null(rule_of(f, "s"));
    assert_int_equal(f->cap.diag.errors, 0);
}

/* ---- the rule cache (propagation's and the partitioner's) ---- */

/* The rule of each op from a cache, printed as rules_of_op's is. */
static const OpShardingRule *cached(Fixture *f, RuleCache *c, const char *result)
{
    const Op *op = op_defining(f, result);
    const OpShardingRule *rule = rule_cache_get(c, &f->arena, &f->cap.diag, op);
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    FILE *sa = open_memstream(&a, &na), *sb = open_memstream(&b, &nb);
    rule_print_sdy(sa, rule);
    rule_print_sdy(sb, rules_of_op(&f->arena, &f->cap.diag, op));
    fclose(sa);
    fclose(sb);
    char *built = arena_strdup(&f->arena, b), *got = arena_strdup(&f->arena, a);
    free(a);
    free(b);
    assert_string_equal(got, built);
    return rule;
}

/* Ops alike (kind, spec string, attributes, types) share one rule; any
 * difference in those gives another; a custom op keeps its own (bound by
 * the verifier), even when another is alike. */
static void test_rule_cache_shares_alike_ops(void **state)
{
    Fixture *f = *state;
    const char *text =
        "mesh @mesh = <\"x\"=2>\n"
        "func @t(%x: f32[8,4], %y: f32[8,4], %z: f32[4,8], %w: f32[4]) {\n"
        "  %a = add %x, %y : f32[8,4]\n"
        "  %b = add %y, %x : f32[8,4]\n"
        "  %c = mul %x, %y : f32[8,4]\n"
        "  %d = add %z, %z : f32[4,8]\n"
        "  %e = einsum \"mk,kn->mn\" %x, %z : f32[8,8]\n"
        "  %g = einsum \"mk,kn->mn\" %x, %z : f32[8,8]\n"
        "  %h = einsum \"mk,nk->mn\" %x, %x : f32[8,8]\n"
        "  %i = broadcast %w {dims = [0]} : f32[4,4]\n"
        "  %j = broadcast %w {dims = [1]} : f32[4,4]\n"
        "  %k = broadcast %w {dims = [1]} : f32[4,4]\n"
        "  %s = custom @id(%x) {rule = \"i j -> i j\"} : f32[8,4]\n"
        "  %t = custom @id(%x) {rule = \"i j -> i j\"} : f32[8,4]\n"
        "  return\n}\n"
        "func @id(%a: f32[8,4]) -> f32[8,4] {\n  return %a\n}\n";
    if (!load(f, text))
        fail_msg("module does not verify:\n%s", diagnostics(f));
    RuleCache c;
    rule_cache_init(&c);
    assert_ptr_equal(cached(f, &c, "a"), cached(f, &c, "b"));
    assert_ptr_not_equal(cached(f, &c, "a"), cached(f, &c, "c"));
    assert_ptr_not_equal(cached(f, &c, "a"), cached(f, &c, "d"));
    assert_ptr_equal(cached(f, &c, "e"), cached(f, &c, "g"));
    assert_ptr_not_equal(cached(f, &c, "e"), cached(f, &c, "h"));
    assert_ptr_not_equal(cached(f, &c, "i"), cached(f, &c, "j"));
    assert_ptr_equal(cached(f, &c, "j"), cached(f, &c, "k"));
    assert_ptr_not_equal(cached(f, &c, "s"), cached(f, &c, "t"));
    assert_ptr_equal(cached(f, &c, "s"), rule_of(f, "s"));
    assert_int_equal(f->cap.diag.errors, 0);
    rule_cache_free(&c);
}

/* ---- printing ---- */

static void test_print_module_with_rules(void **state)
{
    Fixture *f = *state;
    const char *text =
        "func @main(%a: f32[2,4]) -> f32[8] {\n  %r = reshape %a : f32[8]\n  %c = call @id(%r) : f32[8]\n"
        "  return %c\n}\nfunc @id(%a: f32[8]) -> f32[8] {\n  return %a\n}\n";
    assert_non_null(load(f, text));
    char *buf = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&buf, &len);
    rule_print_module(s, f->module, &f->cap.diag);
    fclose(s);
    char *copy = arena_strdup(&f->arena, buf);
    free(buf);
    assert_string_equal(copy, "func @main(%a: f32[2,4]) -> f32[8] {\n"
                              "  # rule: #sdy.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}>\n"
                              "  %r = reshape %a : f32[8]\n"
                              "  %c = call @id(%r) : f32[8]\n"
                              "  return %c\n"
                              "}\n\n"
                              "func @id(%a: f32[8]) -> f32[8] {\n"
                              "  return %a\n"
                              "}\n");
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_pointwise_same_shape),
        T(test_pointwise_factor_names),
        T(test_unary_convert_and_sharding_ops),
        T(test_broadcast_lower_rank_operand),
        T(test_broadcast_scalar_operand),
        T(test_broadcast_size_one_dim),
        T(test_compare_and_select),
        T(test_nullary),
        T(test_einsum_matmul),
        T(test_einsum_batch_and_contract),
        T(test_einsum_one_sided_sum),
        T(test_einsum_single_input),
        T(test_einsum_many_factor_names),
        T(test_reduce),
        T(test_argmax_needs_replication),
        T(test_transpose),
        T(test_broadcast_op),
        T(test_concatenate),
        T(test_concatenate_of_slices),
        T(test_slice_and_pad),
        T(test_reshape_split),
        T(test_reshape_merge),
        T(test_reshape_non_divisible),
        T(test_reshape_no_common_divisor),
        T(test_reshape_size_one_dims),
        T(test_reshape_swap_and_merge),
        T(test_reshape_zero_elements_has_no_rule),
        T(test_sort),
        T(test_top_k),
        T(test_custom_rule),
        T(test_custom_bad_option_attribute),
        T(test_rule_options_from_attrs),
        T(test_custom_rule_bound_once),
        T(test_no_rule_ops),
        T(test_rule_cache_shares_alike_ops),
        T(test_print_module_with_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
