/* Rule strings: stage one (parse/validate) and stage two (bind), with the
 * cases of JAX's tests/custom_partitioning_sharding_rule_test.py ported
 * one by one, plus Shardy's verifier checks and shardc's own additions. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/rule.h"

typedef struct Fixture {
    Arena arena;
    DiagEngine diag;
    FILE *stream;
    char *out;
    size_t out_len;
} Fixture;

static int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    arena_init(&f->arena);
    f->stream = open_memstream(&f->out, &f->out_len);
    diag_init(&f->diag, f->stream);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    fclose(f->stream);
    free(f->out);
    diag_free(&f->diag);
    arena_free(&f->arena);
    free(f);
    return 0;
}

/* ---- helpers ---- */

static RuleString *parse(Fixture *f, const char *text, const RuleStringOptions *opts)
{
    return rule_string_parse(&f->arena, &f->diag, text, (Loc){"<rule>", 1, 1}, opts);
}

/* The first diagnostic line written so far. */
static const char *first_diag(Fixture *f)
{
    fflush(f->stream);
    const char *text = f->out ? f->out : "";
    const char *eol = strchr(text, '\n');
    return arena_strndup(&f->arena, text, eol ? (size_t)(eol - text) : strlen(text));
}

static void expect_parse_error(Fixture *f, const char *text, const RuleStringOptions *opts,
                               const char *expected)
{
    assert_null(parse(f, text, opts));
    assert_string_equal(first_diag(f), expected);
    assert_int_equal(f->diag.errors, 1);
}

/* Python's repr of a tuple of strings/tuples, as JAX's __str__ prints it. */
static void repr_tensor(FILE *s, const RuleTensor *t)
{
    int items = t->rank + (t->has_ellipsis ? 1 : 0);
    fputc('(', s);
    if (t->has_ellipsis)
        fprintf(s, "'\xE2\x80\xA6%s'%s", t->ellipsis_group, t->rank ? ", " : "");
    for (int d = 0; d < t->rank; d++) {
        const RuleDim *dim = &t->dims[d];
        if (d)
            fputs(", ", s);
        if (dim->count > 1)
            fputc('(', s);
        for (int k = 0; k < dim->count; k++)
            fprintf(s, "%s'%s'", k ? ", " : "", dim->names[k]);
        if (dim->count > 1)
            fputc(')', s);
    }
    fputs(items == 1 ? ",)" : ")", s);
}

static void repr_tensors(FILE *s, const RuleTensor *tensors, int count)
{
    fputc('(', s);
    for (int i = 0; i < count; i++) {
        if (i)
            fputs(", ", s);
        repr_tensor(s, &tensors[i]);
    }
    fputs(count == 1 ? ",)" : ")", s);
}

static void repr_special(FILE *s, const char *kind, const char **names, int count)
{
    if (count == 0)
        return;
    fprintf(s, " %s=(", kind);
    for (int i = 0; i < count; i++)
        fprintf(s, "%s'%s'", i ? ", " : "", names[i]);
    fputs(count == 1 ? ",)" : ")", s);
}

static char *repr(Fixture *f, const RuleString *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&buf, &len);
    fputs("SdyShardingRule(", s);
    repr_tensors(s, r->operands, r->num_operands);
    fputs(", ", s);
    repr_tensors(s, r->results, r->num_results);
    fputs(", {", s);
    for (int i = 0; i < r->num_sizes; i++)
        fprintf(s, "%s'%s': %lld", i ? ", " : "", r->sizes[i].name, (long long)r->sizes[i].size);
    fputc('}', s);
    repr_special(s, "reduction_factors", r->reduction, r->num_reduction);
    repr_special(s, "need_replication_factors", r->need_replication, r->num_need_replication);
    repr_special(s, "permutation_factors", r->permutation, r->num_permutation);
    fputc(')', s);
    fclose(s);
    char *copy = arena_strdup(&f->arena, buf);
    free(buf);
    return copy;
}

static void expect_repr(Fixture *f, const char *text, const RuleStringOptions *opts,
                        const char *expected)
{
    RuleString *r = parse(f, text, opts);
    if (!r)
        fail_msg("unexpected error: %s", first_diag(f));
    assert_string_equal(repr(f, r), expected);
}

/* "16,32|" is two types: f32[16,32] and a scalar (an empty entry). */
static TensorType *types_of(Fixture *f, const char *spec, int *count)
{
    *count = 0;
    if (!spec)
        return NULL;
    TensorType *types = ARENA_ARRAY(&f->arena, TensorType, strlen(spec) + 1);
    const char *p = spec;
    for (;;) {
        int64_t dims[SHARDC_MAX_RANK];
        int rank = 0;
        while (*p && *p != '|') {
            char *end;
            dims[rank++] = strtoll(p, &end, 10);
            p = *end == ',' ? end + 1 : end;
        }
        types[(*count)++] = type_make(&f->arena, DT_F32, rank, dims);
        if (!*p++)
            return types;
    }
}

static OpShardingRule *bind(Fixture *f, const char *text, const RuleStringOptions *opts,
                            const char *operands, const char *results)
{
    RuleString *r = parse(f, text, opts);
    if (!r)
        fail_msg("unexpected parse error: %s", first_diag(f));
    int num_operands, num_results;
    TensorType *ops = types_of(f, operands, &num_operands);
    TensorType *res = types_of(f, results, &num_results);
    return rule_string_bind(&f->arena, &f->diag, r, num_operands, ops, num_results, res);
}

static char *sdy(Fixture *f, const OpShardingRule *rule)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&buf, &len);
    rule_print_sdy(s, rule);
    fclose(s);
    char *copy = arena_strdup(&f->arena, buf);
    free(buf);
    return copy;
}

static void expect_sdy(Fixture *f, const char *text, const RuleStringOptions *opts,
                       const char *operands, const char *results, const char *expected)
{
    OpShardingRule *rule = bind(f, text, opts, operands, results);
    if (!rule)
        fail_msg("unexpected error: %s", first_diag(f));
    assert_string_equal(sdy(f, rule), expected);
}

static void expect_bind_error(Fixture *f, const char *text, const RuleStringOptions *opts,
                              const char *operands, const char *results, const char *expected)
{
    assert_null(bind(f, text, opts, operands, results));
    assert_string_equal(first_diag(f), expected);
    assert_int_equal(f->diag.errors, 1);
}

#define SIZES(...)                                                                            \
    (&(RuleStringOptions){                                                                    \
        .num_sizes = sizeof((RuleFactorSize[]){__VA_ARGS__}) / sizeof(RuleFactorSize),       \
        .sizes = (RuleFactorSize[]){__VA_ARGS__}})

#define NAMES(...) (const char *const[]){__VA_ARGS__}, \
    (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *))

/* ---- StrToSdyShardingRuleTest: errors ---- */

static void test_ellipsis_not_complete(void **state)
{
    expect_parse_error(*state, ".i -> j", NULL,
                       "<rule>:1:1: error: Character '.' must be used inside ellipsis '...'");
}

static void test_four_dots(void **state)
{
    expect_parse_error(*state, "....i -> j", NULL,
                       "<rule>:1:4: error: Character '.' must be used inside ellipsis '...'");
}

static void test_invalid_factor_name(void **state)
{
    expect_parse_error(*state, "2i -> j", NULL,
                       "<rule>:1:1: error: Factor names have to start with a letter, but got '2'");
}

static void test_factor_name_underscore(void **state)
{
    expect_parse_error(*state, "a _i -> j", NULL,
                       "<rule>:1:3: error: Factor names have to start with a letter, but got '_'");
}

static void test_compound_name_underscore(void **state)
{
    expect_parse_error(*state, "(a _b) -> j", NULL,
                       "<rule>:1:4: error: Factor names have to start with a letter, but got '_'");
}

/* JAX checks a tensor's names at its ',' but a digit when it is read. */
static void test_name_errors_in_jax_order(void **state)
{
    expect_parse_error(*state, "_a 2b -> j", NULL,
                       "<rule>:1:4: error: Factor names have to start with a letter, but got '2'");
}

static void test_missing_results(void **state)
{
    expect_parse_error(*state, "i", NULL, "<rule>:1:1: error: There is no -> in rule: 'i'");
}

static void test_two_arrows(void **state)
{
    expect_parse_error(*state, "i -> j -> k", NULL,
                       "<rule>:1:8: error: There is no -> in rule: 'i -> j -> k'");
}

static void test_missing_arrow_quotes_substituted_ellipsis(void **state)
{
    expect_parse_error(*state, "... i", NULL,
                       "<rule>:1:1: error: There is no -> in rule: '\xE2\x80\xA6 i'");
}

static void test_unbalanced_brackets(void **state)
{
    expect_parse_error(*state, "i j, k)->j", NULL, "<rule>:1:7: error: Brackets are not balanced");
}

static void test_unbalanced_brackets2(void **state)
{
    expect_parse_error(*state, "i (j k->j", NULL,
                       "<rule>:1:3: error: Brackets are not balanced in rule: 'i (j k'");
}

static void test_unbalanced_quotes_normalized_side(void **state)
{
    expect_parse_error(*state, " ...  i\t (j ->k", NULL,
                       "<rule>:1:10: error: Brackets are not balanced in rule: "
                       "'\xE2\x80\xA6 i (j'");
}

static void test_empty_compound_dim(void **state)
{
    expect_parse_error(*state, "i ( ) j k->j", NULL,
                       "<rule>:1:3: error: Brackets should contain at least two factors");
}

static void test_one_factor_compound_dim(void **state)
{
    expect_parse_error(*state, "i (j ) k->j", NULL,
                       "<rule>:1:3: error: Brackets should contain at least two factors");
}

static void test_nested_brackets(void **state)
{
    expect_parse_error(*state, "i (j (k))->j", NULL,
                       "<rule>:1:6: error: Compound factors should be one level, nested brackets "
                       "are not allowed");
}

static void test_unknown_char(void **state)
{
    expect_parse_error(*state, "i; j->j", NULL, "<rule>:1:2: error: Unknown character ';'");
}

static void test_unknown_single_char_ellipsis(void **state)
{
    expect_parse_error(*state, "\xE2\x80\xA6j->\xE2\x80\xA6j", NULL,
                       "<rule>:1:1: error: Unknown character '\xE2\x80\xA6'");
}

static void test_unknown_non_ascii_char(void **state)
{
    expect_parse_error(*state, "i \xC3\xA9 -> j", NULL,
                       "<rule>:1:3: error: Unknown character '\xC3\xA9'");
}

static void test_ellipsis_not_leading_dim(void **state)
{
    expect_parse_error(*state, "i ... -> j", NULL,
                       "<rule>:1:3: error: Ellipsis can only be used at the beginning of a "
                       "dimension");
}

static void test_ellipsis_after_name(void **state)
{
    expect_parse_error(*state, "i_j... -> j", NULL,
                       "<rule>:1:4: error: Ellipsis can only be used at the beginning of a "
                       "dimension");
}

static void test_ellipsis_inside_compound_dim(void **state)
{
    expect_parse_error(*state, "i, (..., j) -> j", NULL,
                       "<rule>:1:5: error: Ellipsis can only be used at the beginning of a "
                       "dimension");
}

static void test_two_ellipses(void **state)
{
    expect_parse_error(*state, "... ... -> j", NULL,
                       "<rule>:1:5: error: Ellipsis can only be used at the beginning of a "
                       "dimension");
}

static void test_digit_after_spaced_ellipsis(void **state)
{
    expect_parse_error(*state, "... 1 -> j", NULL,
                       "<rule>:1:5: error: Factor names have to start with a letter, but got '1'");
}

static void test_error_on_second_line(void **state)
{
    expect_parse_error(*state, "i j,\n  k; -> j", NULL,
                       "<rule>:2:4: error: Unknown character ';'");
}

/* ---- StrToSdyShardingRuleTest: accepted rules ---- */

static void test_scalar_operand_scalar_result(void **state)
{
    expect_repr(*state, "->", NULL, "SdyShardingRule(((),), ((),), {})");
}

static void test_one_scalar_operand(void **state)
{
    expect_repr(*state, "i j, , k->j", NULL,
                "SdyShardingRule((('i', 'j'), (), ('k',)), (('j',),), {})");
}

static void test_factor_elementwise_add(void **state)
{
    expect_repr(*state, "...0 i j, ...1 i j -> ...i j", NULL,
                "SdyShardingRule((('\xE2\x80\xA6" "0', 'i', 'j'), ('\xE2\x80\xA6" "1', 'i', "
                "'j')), (('\xE2\x80\xA6" "0', 'i', 'j'),), {})");
}

static void test_factor_vector_scalar_add(void **state)
{
    expect_repr(*state, "...87 i,  -> ...87 i", NULL,
                "SdyShardingRule((('\xE2\x80\xA6" "87', 'i'), ()), (('\xE2\x80\xA6" "87', "
                "'i'),), {})");
}

static void test_ellipsis_group_leading_zeros(void **state)
{
    expect_repr(*state, "...007 i -> ...7 i, ...000", NULL,
                "SdyShardingRule((('\xE2\x80\xA6" "7', 'i'),), (('\xE2\x80\xA6" "7', 'i'), "
                "('\xE2\x80\xA6" "0',)), {})");
}

static void test_factor_reshape_combining(void **state)
{
    expect_repr(*state, "i j -> (i j)", NULL,
                "SdyShardingRule((('i', 'j'),), ((('i', 'j'),),), {})");
}

static void test_factor_reshape_reordering(void **state)
{
    expect_repr(*state, "(j i) -> (i j)", SIZES({"i", 10}, {"j", 20}),
                "SdyShardingRule(((('j', 'i'),),), ((('i', 'j'),),), {'i': 10, 'j': 20})");
}

static void test_factor_compound_then_individual(void **state)
{
    expect_repr(*state, "(i j) (j k) i -> j k", NULL,
                "SdyShardingRule(((('i', 'j'), ('j', 'k'), 'i'),), (('j', 'k'),), {})");
}

static void test_factor_individual_then_compound(void **state)
{
    expect_repr(*state, "i j k -> (i j) (j k)", NULL,
                "SdyShardingRule((('i', 'j', 'k'),), ((('i', 'j'), ('j', 'k')),), {})");
}

static void test_factor_infer_k(void **state)
{
    expect_repr(*state, "i_ (j k)-> j foo (m bar_24)",
                SIZES({"k", 10}, {"m", 10}, {"bar_24", 20}),
                "SdyShardingRule((('i_', ('j', 'k')),), (('j', 'foo', ('m', 'bar_24')),), "
                "{'k': 10, 'm': 10, 'bar_24': 20})");
}

static void test_sdy_sharding_rule_str(void **state)
{
    expect_repr(*state, "i, j -> (j k)", SIZES({"k", 10}),
                "SdyShardingRule((('i',), ('j',)), ((('j', 'k'),),), {'k': 10})");
}

/* As in JAX, a ',' inside brackets ends the tensor and the compound dim
 * lands in the next one. */
static void test_comma_inside_compound(void **state)
{
    expect_repr(*state, "a (i, j) -> a", SIZES({"i", 2}, {"j", 3}),
                "SdyShardingRule((('a',), (('i', 'j'),)), (('a',),), {'i': 2, 'j': 3})");
}

static void test_whitespace_kinds(void **state)
{
    expect_repr(*state, "\ti\n j\r,\v\fk\x1f->  j  ", NULL,
                "SdyShardingRule((('i', 'j'), ('k',)), (('j',),), {})");
}

static void test_parsed_positions(void **state)
{
    RuleString *r = parse(*state, "b v, ...2 (x y) -> b", SIZES({"x", 2}, {"y", 3}));
    assert_non_null(r);
    assert_int_equal(r->num_operands, 2);
    assert_int_equal(r->operands[0].col, 0);
    assert_int_equal(r->operands[0].dims[1].col, 2);
    const RuleTensor *t = &r->operands[1];
    assert_true(t->has_ellipsis);
    assert_int_equal(t->ellipsis_rank, 2);
    assert_string_equal(t->ellipsis_group, "2");
    assert_int_equal(t->ellipsis_col, 5);
    assert_int_equal(t->col, 5);
    assert_int_equal(t->rank, 1);
    assert_int_equal(t->dims[0].count, 2);
    assert_int_equal(t->dims[0].col, 10);
    assert_int_equal(t->dims[0].name_cols[1], 13);
    assert_false(r->operands[0].has_ellipsis);
    assert_int_equal(r->operands[0].ellipsis_rank, -1);
    assert_int_equal(r->results[0].col, 19);
}

static void test_plain_ellipsis_rank_field(void **state)
{
    RuleString *r = parse(*state, "... i -> ...99999999999 i", NULL);
    assert_non_null(r);
    assert_int_equal(r->operands[0].ellipsis_rank, -1);
    assert_string_equal(r->operands[0].ellipsis_group, "0");
    assert_int_equal(r->results[0].ellipsis_rank, 2147483647);
    assert_string_equal(r->results[0].ellipsis_group, "99999999999");
}

/* ---- SdyShardingRule validation: factor sizes ---- */

static void test_factor_size_not_used(void **state)
{
    expect_parse_error(*state, "i->j", SIZES({"k", 10}),
                       "<rule>:1:1: error: Factor k is not used in the rule, but size is provided");
}

static void test_factor_size_not_necessary(void **state)
{
    expect_parse_error(*state, "i->j", SIZES({"i", 10}),
                       "<rule>:1:1: error: Factor i represents a whole dimension; do not "
                       "specify its size");
}

static void test_compound_factor_size_not_necessary(void **state)
{
    expect_parse_error(*state, "(i j) -> i", SIZES({"i", 10}, {"j", 20}),
                       "<rule>:1:10: error: Factor i represents a whole dimension; do not "
                       "specify its size");
}

static void test_factor_sizes_missing(void **state)
{
    expect_parse_error(*state, "i j -> (j k)", NULL,
                       "<rule>:1:11: error: Factor k is only used in compound factors; must "
                       "specify its size");
}

static void test_ellipsis_is_not_a_factor_name(void **state)
{
    expect_parse_error(*state, "... i -> ... i", SIZES({"...", 4}),
                       "<rule>:1:1: error: Factor ... is not used in the rule, but size is "
                       "provided");
}

static void test_negative_factor_size(void **state)
{
    expect_parse_error(*state, "(i j) -> k", SIZES({"i", -2}, {"j", 4}),
                       "<rule>:1:1: error: Factor i size must be non-negative, but got -2");
}

static void test_factor_size_twice(void **state)
{
    expect_parse_error(*state, "(i j) -> k", SIZES({"i", 2}, {"j", 4}, {"i", 2}),
                       "<rule>:1:1: error: Factor i size is provided more than once");
}

/* ---- SdyShardingRule validation: special factors ---- */

static void test_special_factors_str(void **state)
{
    RuleStringOptions opts = {0};
    const char *const reduction[] = {"j"};
    const char *const replication[] = {"i", "k"};
    opts.reduction = reduction;
    opts.num_reduction = 1;
    opts.need_replication = replication;
    opts.num_need_replication = 2;
    expect_repr(*state, "i j, j k -> i k", &opts,
                "SdyShardingRule((('i', 'j'), ('j', 'k')), (('i', 'k'),), {} "
                "reduction_factors=('j',) need_replication_factors=('i', 'k'))");
}

static void test_special_factors_duplicated(void **state)
{
    RuleStringOptions opts = {0};
    const char *const permutation[] = {"j", "k", "j"};
    opts.permutation = permutation;
    opts.num_permutation = 3;
    expect_parse_error(*state, "i j, j k -> i k", &opts,
                       "<rule>:1:1: error: permutation_factors contains duplicated factors");
}

static void test_special_factor_not_used(void **state)
{
    RuleStringOptions opts = {0};
    const char *const replication[] = {"i", "x"};
    opts.need_replication = replication;
    opts.num_need_replication = 2;
    expect_parse_error(*state, "i j, j k -> i k", &opts,
                       "<rule>:1:1: error: Factor x in need_replication_factors is not used in "
                       "the rule");
}

static void test_special_factor_in_two_sets(void **state)
{
    RuleStringOptions opts = {0};
    const char *const reduction[] = {"j"};
    const char *const permutation[] = {"k", "j"};
    opts.reduction = reduction;
    opts.num_reduction = 1;
    opts.permutation = permutation;
    opts.num_permutation = 2;
    expect_parse_error(*state, "i j, j k -> i k", &opts,
                       "<rule>:1:1: error: Factor j can only be in one of the reduction, need "
                       "replication, or permutation factor sets.");
}

/* ---- SdyShardingRuleConversionTest ---- */

static void test_conversion_mismatch_in_operands_num(void **state)
{
    expect_bind_error(*state, "i j-> i j", NULL, "16,32|16,32", "16,32",
                      "<rule>:1:1: error: Sharding rule has 1 operands, but the operation has 2 "
                      "operands");
}

static void test_conversion_mismatch_in_operands_rank(void **state)
{
    expect_bind_error(*state, "i j, i j k-> i j", NULL, "16,32|16,32", "16,32",
                      "<rule>:1:6: error: Sharding rule 1th operand has rank 3, but the "
                      "operation 1th operand has rank 2");
}

static void test_conversion_mismatch_in_results_num(void **state)
{
    expect_bind_error(*state, "i j, i j -> i j, i j", NULL, "16,32|16,32", "16,32",
                      "<rule>:1:13: error: Sharding rule has 2 results, but the operation has 1 "
                      "results");
}

static void test_conversion_mismatch_in_results_dim(void **state)
{
    expect_bind_error(*state, "i j, i j -> i j k", NULL, "16,32|16,32", "16,32",
                      "<rule>:1:13: error: Sharding rule 0th result has rank 3, but the "
                      "operation 0th result has rank 2");
}

/* JAX now keeps the smallest size a factor is seen with (it used to raise
 * "Factor j corresponds to two sizes: 32 and 64"). */
static void test_conversion_factor_has_two_sizes(void **state)
{
    expect_sdy(*state, "i j, i j -> i j", NULL, "16,32|16,32", "16,64",
               "#sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=16, j=32}, custom>");
}

static void test_conversion_smaller_size_wins(void **state)
{
    expect_sdy(*state, "i, i -> i", NULL, "8|4", "8",
               "#sdy.op_sharding_rule<([i], [i])->([i]) {i=4}, custom>");
}

static void test_conversion_batching_dim_has_two_sizes(void **state)
{
    expect_bind_error(*state, "..., ... -> ...", NULL, "16,32|16,32", "16,64",
                      "<rule>:1:13: error: Batching dimension 0_1 corresponds to two sizes: 32 "
                      "and 64");
}

static void test_conversion_invalid_batching_dim(void **state)
{
    expect_bind_error(*state, "... i j k, ... i j k -> ... i j k", NULL, "16,32|16,32", "16,32",
                      "<rule>:1:1: error: Sharding rule 0th operand has rank 3, but the "
                      "operation 0th operand has rank 2");
}

static void test_conversion_compound_dimension_size_mismatch(void **state)
{
    expect_bind_error(*state, "i j -> (i j)", NULL, "2,4", "9",
                      "<rule>:1:8: error: 0th result actual size 9 doesn't match the size 8 "
                      "derived from the compound factors ('i', 'j')");
}

static void test_conversion_compound_product_past_int64(void **state)
{
    expect_bind_error(*state, "x (i j) -> x", SIZES({"i", 4000000000}, {"j", 4000000000}),
                      "3,5", "3",
                      "<rule>:1:3: error: 0th operand actual size 5 doesn't match the size "
                      "16000000000000000000 derived from the compound factors ('i', 'j')");
}

static void test_conversion_compound_zero_factor(void **state)
{
    expect_bind_error(*state, "x (i j) -> x", SIZES({"i", 0}, {"j", 10}), "3,5", "3",
                      "<rule>:1:3: error: 0th operand actual size 5 doesn't match the size 0 "
                      "derived from the compound factors ('i', 'j')");
}

static void test_conversion_mismatching_ellipsis_rank(void **state)
{
    expect_bind_error(*state, "..., ... -> ...", NULL, "16,32|16", "16,32",
                      "<rule>:1:6: error: Ellipsis represents different number of leading "
                      "dimensions 2 and 1");
}

static void test_conversion_compound_then_individual(void **state)
{
    expect_sdy(*state, "(i j) -> i j", NULL, "8", "2,4",
               "#sdy.op_sharding_rule<([ij])->([i, j]) {i=2, j=4}, custom>");
}

/* JAX's expectations predate Shardy printing ", custom"; JAX does build
 * these rules with is_custom=True. */
static void test_conversion_elementwise_rule_scalar_instance(void **state)
{
    expect_sdy(*state, "..., ... -> ...", NULL, "|", "",
               "#sdy.op_sharding_rule<([], [])->([]), custom>");
}

static void test_conversion_elementwise_rule_2d_instance(void **state)
{
    expect_sdy(*state, "..., ... -> ...", NULL, "16,32|16,32", "16,32",
               "#sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=16, j=32}, custom>");
}

static void test_conversion_vector_scalar_add_2d_instance(void **state)
{
    expect_sdy(*state, "...,  -> ...", NULL, "16,32|", "16,32",
               "#sdy.op_sharding_rule<([i, j], [])->([i, j]) {i=16, j=32}, custom>");
}

static void test_conversion_reshape_rule(void **state)
{
    expect_sdy(*state, "i j -> (i j)", NULL, "2,4", "8",
               "#sdy.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}, custom>");
}

static void test_conversion_contracting_dim_matmul(void **state)
{
    expect_sdy(*state, "... contracting_dim, contracting_dim k -> ... k", NULL, "16,32|32,8",
               "16,8",
               "#sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=16, j=32, k=8}, custom>");
}

static void test_conversion_multiple_batching_groups(void **state)
{
    expect_sdy(*state, "... j i, ...1 i j -> ...i j", NULL, "4,5,16,32|6,7,8,32,16",
               "4,5,32,16",
               "#sdy.op_sharding_rule<([i, j, k, l], [m, n, o, l, k])->([i, j, l, k]) "
               "{i=4, j=5, k=16, l=32, m=6, n=7, o=8}, custom>");
}

static void test_conversion_factor_table(void **state)
{
    OpShardingRule *rule = bind(*state, "... c, c (d e) -> ...", SIZES({"d", 2}, {"e", 3}),
                                "4,5|5,6", "4");
    assert_non_null(rule);
    assert_int_equal(rule->num_factors, 4);
    assert_string_equal(rule->factors[0].name, "?0_0");
    assert_string_equal(rule->factors[1].name, "c");
    assert_int_equal(rule->factors[3].size, 3);
    assert_true(rule->is_custom);
    assert_int_equal(rule->operands[1].dims[1].count, 2);
    assert_int_equal(rule->operands[1].dims[1].factors[0], 2);
    assert_int_equal(rule->results[0].dims[0].factors[0], 0);
}

/* ---- Shardy's verifier ---- */

static void test_shardy_reuse_factor_single_operand(void **state)
{
    expect_bind_error(*state, "i i -> i", NULL, "4,8", "4",
                      "<rule>:1:3: error: operand - cannot reuse factors for the same tensor "
                      "value");
}

static void test_shardy_reuse_factor_numbered(void **state)
{
    expect_bind_error(*state, "i, i -> i, (i j) i", SIZES({"j", 2}), "4|4", "4|8,4",
                      "<rule>:1:18: error: result 1 - cannot reuse factors for the same tensor "
                      "value");
}

static void test_shardy_size_one_in_compound(void **state)
{
    expect_bind_error(*state, "(i j) -> i j", NULL, "4", "1,4",
                      "<rule>:1:2: error: operand - dim mapping can't have a factor of size 1 if "
                      "there are multiple factors");
}

static void test_shardy_special_factors_sorted(void **state)
{
    RuleStringOptions opts = {0};
    const char *const replication[] = {"k", "i"};
    opts.need_replication = replication;
    opts.num_need_replication = 2;
    expect_bind_error(*state, "i j, j k -> i k", &opts, "2,3|3,4", "2,4",
                      "<rule>:1:1: error: indices of special factors must be sorted");
}

static void test_shardy_special_factors_printed(void **state)
{
    RuleStringOptions opts = {0};
    const char *const reduction[] = {"j"};
    const char *const replication[] = {"i", "l"};
    const char *const permutation[] = {"k"};
    opts.reduction = reduction;
    opts.num_reduction = 1;
    opts.need_replication = replication;
    opts.num_need_replication = 2;
    opts.permutation = permutation;
    opts.num_permutation = 1;
    expect_sdy(*state, "i j k l -> i k l", &opts, "2,3,5,7", "2,5,7",
               "#sdy.op_sharding_rule<([i, j, k, l])->([i, k, l]) {i=2, j=3, k=5, l=7} "
               "reduction={j} need_replication={i, l} permutation={k}, custom>");
}

/* Shardy names factors i..z, then z_1, z_2, ...; its own zz_1 test. */
static void test_factor_symbols_past_z(void **state)
{
    char buf[16];
    assert_string_equal(rule_factor_symbol(0, buf), "i");
    assert_string_equal(rule_factor_symbol(17, buf), "z");
    assert_string_equal(rule_factor_symbol(18, buf), "z_1");
    assert_string_equal(rule_factor_symbol(27, buf), "z_10");
    expect_sdy(*state,
               "a b c d e f g h i j, k l m n o p q r s t -> a b c d e f g h i j, "
               "k l m n o p q (r s) t",
               NULL, "2,2,2,2,2,2,2,2,2,2|2,2,2,2,2,2,2,2,2,2",
               "2,2,2,2,2,2,2,2,2,2|2,2,2,2,2,2,2,4,2",
               "#sdy.op_sharding_rule<([i, j, k, l, m, n, o, p, q, r], [s, t, u, v, w, x, y, "
               "z, z_1, z_2])->([i, j, k, l, m, n, o, p, q, r], [s, t, u, v, w, x, y, zz_1, "
               "z_2]) {i=2, j=2, k=2, l=2, m=2, n=2, o=2, p=2, q=2, r=2, s=2, t=2, u=2, v=2, "
               "w=2, x=2, y=2, z=2, z_1=2, z_2=2}, custom>");
}

/* ---- printing ---- */

static char *printed_table(Fixture *f, const OpShardingRule *rule)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&buf, &len);
    rule_print_table(s, rule);
    fclose(s);
    char *copy = arena_strdup(&f->arena, buf);
    free(buf);
    return copy;
}

static void test_print_table(void **state)
{
    OpShardingRule *rule = bind(*state, "... v, (v w) -> ... v", SIZES({"w", 2}), "8,16|32", "8,16");
    assert_non_null(rule);
    assert_string_equal(printed_table(*state, rule),
                        "factor  symbol  name  size  kind\n"
                        "     0  i       ?0_0     8  pass_through\n"
                        "     1  j       v       16  pass_through\n"
                        "     2  k       w        2  pass_through\n"
                        "operand 0: [?0_0, v]\n"
                        "operand 1: [(v w)]\n"
                        "result 0: [?0_0, v]\n");
}

static void test_print_rule_string(void **state)
{
    Fixture *f = *state;
    RuleStringOptions opts = *SIZES({"x", 2}, {"y", 3});
    const char *const reduction[] = {"b"};
    opts.reduction = reduction;
    opts.num_reduction = 1;
    RuleString *r = parse(f, "b v, -> ...3 (x y) b, ...", &opts);
    assert_non_null(r);
    char *buf = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&buf, &len);
    rule_string_print(s, r);
    fclose(s);
    assert_string_equal(buf, "operand 0: [b, v]\n"
                             "operand 1: []\n"
                             "result 0: [...3, (x y), b]\n"
                             "result 1: [...]\n"
                             "factor sizes: x=2, y=3\n"
                             "reduction: b\n");
    free(buf);
}

static void test_factor_kind_names(void **state)
{
    assert_string_equal(rule_factor_kind_name(FACTOR_PASS_THROUGH), "pass_through");
    assert_string_equal(rule_factor_kind_name(FACTOR_REDUCTION), "reduction");
    assert_string_equal(rule_factor_kind_name(FACTOR_NEED_REPLICATION), "need_replication");
    assert_string_equal(rule_factor_kind_name(FACTOR_PERMUTATION), "permutation");
}

/* ---- types ---- */

static void test_type_basics(void **state)
{
    Fixture *f = *state;
    const int64_t dims[] = {8, 16};
    TensorType a = type_make(&f->arena, DT_F32, 2, dims);
    TensorType b = type_make(&f->arena, DT_BF16, 2, dims);
    TensorType scalar = type_make(&f->arena, DT_I32, 0, NULL);
    int64_t n;
    assert_true(type_num_elements(&a, &n));
    assert_int_equal(n, 128);
    assert_true(type_num_elements(&scalar, &n));
    assert_int_equal(n, 1);
    assert_null(scalar.dims);
    assert_true(type_same_shape(&a, &b));
    assert_false(type_equal(&a, &b));
    assert_true(type_equal(&a, &a));
    assert_false(type_same_shape(&a, &scalar));
}

static void test_type_overflow_and_print(void **state)
{
    Fixture *f = *state;
    const int64_t huge[] = {INT64_MAX / 2, 3};
    TensorType t = type_make(&f->arena, DT_F64, 2, huge);
    int64_t n;
    assert_false(type_num_elements(&t, &n));
    char *buf = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&buf, &len);
    const int64_t dims[] = {8, 16};
    TensorType a = type_make(&f->arena, DT_F32, 2, dims);
    TensorType scalar = type_make(&f->arena, DT_I32, 0, NULL);
    type_print(s, &a);
    fputc(' ', s);
    type_print(s, &scalar);
    fclose(s);
    assert_string_equal(buf, "f32[8,16] i32[]");
    free(buf);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_ellipsis_not_complete), T(test_four_dots), T(test_invalid_factor_name),
        T(test_factor_name_underscore), T(test_compound_name_underscore),
        T(test_name_errors_in_jax_order), T(test_missing_results), T(test_two_arrows),
        T(test_missing_arrow_quotes_substituted_ellipsis), T(test_unbalanced_brackets),
        T(test_unbalanced_brackets2), T(test_unbalanced_quotes_normalized_side),
        T(test_empty_compound_dim), T(test_one_factor_compound_dim), T(test_nested_brackets),
        T(test_unknown_char), T(test_unknown_single_char_ellipsis),
        T(test_unknown_non_ascii_char), T(test_ellipsis_not_leading_dim),
        T(test_ellipsis_after_name), T(test_ellipsis_inside_compound_dim),
        T(test_two_ellipses), T(test_digit_after_spaced_ellipsis),
        T(test_error_on_second_line), T(test_scalar_operand_scalar_result),
        T(test_one_scalar_operand), T(test_factor_elementwise_add),
        T(test_factor_vector_scalar_add), T(test_ellipsis_group_leading_zeros),
        T(test_factor_reshape_combining), T(test_factor_reshape_reordering),
        T(test_factor_compound_then_individual), T(test_factor_individual_then_compound),
        T(test_factor_infer_k), T(test_sdy_sharding_rule_str), T(test_comma_inside_compound),
        T(test_whitespace_kinds), T(test_parsed_positions), T(test_plain_ellipsis_rank_field),
        T(test_factor_size_not_used), T(test_factor_size_not_necessary),
        T(test_compound_factor_size_not_necessary), T(test_factor_sizes_missing),
        T(test_ellipsis_is_not_a_factor_name), T(test_negative_factor_size),
        T(test_factor_size_twice), T(test_special_factors_str),
        T(test_special_factors_duplicated), T(test_special_factor_not_used),
        T(test_special_factor_in_two_sets), T(test_conversion_mismatch_in_operands_num),
        T(test_conversion_mismatch_in_operands_rank),
        T(test_conversion_mismatch_in_results_num), T(test_conversion_mismatch_in_results_dim),
        T(test_conversion_factor_has_two_sizes), T(test_conversion_smaller_size_wins),
        T(test_conversion_batching_dim_has_two_sizes), T(test_conversion_invalid_batching_dim),
        T(test_conversion_compound_dimension_size_mismatch),
        T(test_conversion_compound_product_past_int64), T(test_conversion_compound_zero_factor),
        T(test_conversion_mismatching_ellipsis_rank),
        T(test_conversion_compound_then_individual),
        T(test_conversion_elementwise_rule_scalar_instance),
        T(test_conversion_elementwise_rule_2d_instance),
        T(test_conversion_vector_scalar_add_2d_instance), T(test_conversion_reshape_rule),
        T(test_conversion_contracting_dim_matmul), T(test_conversion_multiple_batching_groups),
        T(test_conversion_factor_table), T(test_shardy_reuse_factor_single_operand),
        T(test_shardy_reuse_factor_numbered), T(test_shardy_size_one_in_compound),
        T(test_shardy_special_factors_sorted), T(test_shardy_special_factors_printed),
        T(test_factor_symbols_past_z), T(test_print_table), T(test_print_rule_string),
        T(test_factor_kind_names), T(test_type_basics), T(test_type_overflow_and_print),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
