/* The interpreter's op dispatch: every op class on small programs parsed
 * from text, run with global semantics, against hand-computed values; then
 * calls, custom ops, shard_map assembly, memory release and errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "support.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/interp.h"
#include "shardc/kern_libs.h"
#include "shardc/parse.h"
#include "shardc/verify.h"

#define DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define VALS(...) ((const double[]){__VA_ARGS__})

enum { MAX_VALUES = 8 };

typedef struct Fixture {
    CapturedDiag cap;
    char *text;
    Module *module;
    InterpCtx ic;
    Tensor *inputs[MAX_VALUES];
    Tensor *results[MAX_VALUES];
} Fixture;

static int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    captured_diag_init(&f->cap);
    interp_ctx_init(&f->ic, &f->cap.diag);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    for (int i = 0; i < MAX_VALUES; i++) {
        tensor_release(f->inputs[i]);
        tensor_release(f->results[i]);
    }
    interp_ctx_free(&f->ic);
    module_free(f->module);
    free(f->text);
    captured_diag_free(&f->cap);
    free(f);
    return 0;
}

/* ---- helpers ------------------------------------------------------------------ */

static const char *diagnostics(Fixture *f)
{
    return captured_diag_text(&f->cap);
}

static void load(Fixture *f, const char *text)
{
    f->text = strdup(text);
    diag_add_source(&f->cap.diag, "<test>", f->text, strlen(f->text));
    f->module = parse_module("<test>", f->text, strlen(f->text), &f->cap.diag);
    if (!f->module || !verify_module(f->module, &f->cap.diag))
        fail_msg("module does not verify:\n%s", diagnostics(f));
}

/* Input i: a tensor of `type`'s dtype and shape holding `values`. */
static void input(Fixture *f, int i, DType dtype, int rank, const int64_t *dims, const double *values)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    assert_int_equal(tensor_new(&ctx, dtype, rank, dims, &f->inputs[i]), TENSOR_OK);
    for (int64_t k = 0; k < f->inputs[i]->count; k++)
        tensor_set_f64(f->inputs[i], k, values[k]);
}

static bool try_run(Fixture *f, const char *text)
{
    load(f, text);
    return interp_run_func(&f->ic, f->module, f->module->funcs[0], f->inputs, f->results);
}

static void run(Fixture *f, const char *text)
{
    if (!try_run(f, text))
        fail_msg("run failed:\n%s", diagnostics(f));
}

static void expect_near(Fixture *f, int i, DType dtype, int rank, const int64_t *dims, const double *values,
                        double tol)
{
    const Tensor *t = f->results[i];
    assert_non_null(t);
    assert_int_equal(t->dtype, dtype);
    assert_int_equal(t->rank, rank);
    for (int d = 0; d < rank; d++)
        assert_int_equal(t->dims[d], dims[d]);
    for (int64_t k = 0; k < t->count; k++) {
        double got = tensor_get_f64(t, k);
        if (!(fabs(got - values[k]) <= tol) && !(isnan(got) && isnan(values[k])))
            fail_msg("result %d element %lld: got %.9g, want %.9g", i, (long long)k, got, values[k]);
    }
}

static void expect(Fixture *f, int i, DType dtype, int rank, const int64_t *dims, const double *values)
{
    expect_near(f, i, dtype, rank, dims, values, 0.0);
}

/* ---- nullary ---------------------------------------------------------------------- */

static void test_nullary(void **state)
{
    Fixture *f = *state;
    run(f, "func @main() -> (f32[2,2], i32[2,3], f64[3], bf16[2], bool[2]) {\n"
           "  %c = constant {value = [[1.0, 2.0], [3, 4.5]]} : f32[2,2]\n"
           "  %i = iota {dimension = 1} : i32[2,3]\n"
           "  %z = zeros : f64[3]\n"
           "  %u = full {value = 1.5} : bf16[2]\n"
           "  %b = constant {value = [true, false]} : bool[2]\n"
           "  return %c, %i, %z, %u, %b\n}\n");
    expect(f, 0, DT_F32, 2, DIMS(2, 2), VALS(1, 2, 3, 4.5));
    expect(f, 1, DT_I32, 2, DIMS(2, 3), VALS(0, 1, 2, 0, 1, 2));
    expect(f, 2, DT_F64, 1, DIMS(3), VALS(0, 0, 0));
    expect(f, 3, DT_BF16, 1, DIMS(2), VALS(1.5, 1.5));
    expect(f, 4, DT_BOOL, 1, DIMS(2), VALS(1, 0));
}

static void test_constant_splat(void **state)
{
    Fixture *f = *state;
    run(f, "func @main() -> i64[2,2] {\n"
           "  %c = constant {value = 7} : i64[2,2]\n"
           "  return %c\n}\n");
    expect(f, 0, DT_I64, 2, DIMS(2, 2), VALS(7, 7, 7, 7));
}

/* ---- elementwise ----------------------------------------------------------------------- */

static void test_unary_ops(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_F32, 1, DIMS(2), VALS(1, 4));
    run(f, "func @main(%x: f32[2]) -> (f32[2], f32[2], f32[2], f32[2], f32[2], f32[2], f32[2], f32[2]) {\n"
           "  %a = neg %x : f32[2]\n"
           "  %b = abs %a : f32[2]\n"
           "  %c = sqrt %x : f32[2]\n"
           "  %d = rsqrt %x : f32[2]\n"
           "  %e = log %x : f32[2]\n"
           "  %g = exp %e : f32[2]\n"
           "  %h = relu %a : f32[2]\n"
           "  %l = logistic %a : f32[2]\n"
           "  return %a, %b, %c, %d, %e, %g, %h, %l\n}\n");
    expect(f, 0, DT_F32, 1, DIMS(2), VALS(-1, -4));
    expect(f, 1, DT_F32, 1, DIMS(2), VALS(1, 4));
    expect_near(f, 2, DT_F32, 1, DIMS(2), VALS(1, 2), 1e-6);
    expect_near(f, 3, DT_F32, 1, DIMS(2), VALS(1, 0.5), 1e-6);
    expect_near(f, 4, DT_F32, 1, DIMS(2), VALS(0, log(4.0)), 1e-6);
    expect_near(f, 5, DT_F32, 1, DIMS(2), VALS(1, 4), 1e-5);
    expect(f, 6, DT_F32, 1, DIMS(2), VALS(0, 0));
    expect_near(f, 7, DT_F32, 1, DIMS(2), VALS(1 / (1 + exp(1.0)), 1 / (1 + exp(4.0))), 1e-6);
}

static void test_trig_and_gelu(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_F64, 1, DIMS(2), VALS(0.5, -1));
    run(f, "func @main(%x: f64[2]) -> (f64[2], f64[2], f64[2], f64[2], f64[2]) {\n"
           "  %s = sin %x : f64[2]\n"
           "  %c = cos %x : f64[2]\n"
           "  %t = tanh %x : f64[2]\n"
           "  %g = gelu %x : f64[2]\n"
           "  %e = gelu %x {approximate = false} : f64[2]\n"
           "  return %s, %c, %t, %g, %e\n}\n");
    double k = sqrt(2 / M_PI), a = 0.5, b = -1;
    expect_near(f, 0, DT_F64, 1, DIMS(2), VALS(sin(a), sin(b)), 1e-12);
    expect_near(f, 1, DT_F64, 1, DIMS(2), VALS(cos(a), cos(b)), 1e-12);
    expect_near(f, 2, DT_F64, 1, DIMS(2), VALS(tanh(a), tanh(b)), 1e-12);
    expect_near(f, 3, DT_F64, 1, DIMS(2),
                VALS(0.5 * a * (1 + tanh(k * (a + 0.044715 * a * a * a))),
                     0.5 * b * (1 + tanh(k * (b + 0.044715 * b * b * b)))), 1e-12);
    expect_near(f, 4, DT_F64, 1, DIMS(2), VALS(0.5 * a * (1 + erf(a / sqrt(2))), 0.5 * b * (1 + erf(b / sqrt(2)))),
                1e-12);
}

static void test_convert(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_F32, 1, DIMS(3), VALS(-1.7, 0, 2.5));
    run(f, "func @main(%x: f32[3]) -> (i32[3], bool[3], f64[3]) {\n"
           "  %i = convert %x : i32[3]\n"
           "  %b = convert %x : bool[3]\n"
           "  %d = convert %b : f64[3]\n"
           "  return %i, %b, %d\n}\n");
    expect(f, 0, DT_I32, 1, DIMS(3), VALS(-1, 0, 2));
    expect(f, 1, DT_BOOL, 1, DIMS(3), VALS(1, 0, 1));
    expect(f, 2, DT_F64, 1, DIMS(3), VALS(1, 0, 1));
}

static void test_binary_broadcasting(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_F32, 2, DIMS(2, 2), VALS(1, 2, 3, 4));
    input(f, 1, DT_F32, 1, DIMS(2), VALS(10, 20));
    run(f, "func @main(%a: f32[2,2], %b: f32[2]) -> (f32[2,2], f32[2,2], f32[2,2], f32[2,2], f32[2,2], f32[2,2], "
           "f32[2,2]) {\n"
           "  %add = add %a, %b : f32[2,2]\n"
           "  %sub = sub %a, %b : f32[2,2]\n"
           "  %mul = mul %a, %b : f32[2,2]\n"
           "  %div = div %b, %a : f32[2,2]\n"
           "  %max = max %a, %b : f32[2,2]\n"
           "  %min = min %a, %b : f32[2,2]\n"
           "  %pow = pow %a, %a : f32[2,2]\n"
           "  return %add, %sub, %mul, %div, %max, %min, %pow\n}\n");
    expect(f, 0, DT_F32, 2, DIMS(2, 2), VALS(11, 22, 13, 24));
    expect(f, 1, DT_F32, 2, DIMS(2, 2), VALS(-9, -18, -7, -16));
    expect(f, 2, DT_F32, 2, DIMS(2, 2), VALS(10, 40, 30, 80));
    expect(f, 3, DT_F32, 2, DIMS(2, 2), VALS(10, 10, 10.0f / 3.0f, 5));
    expect(f, 4, DT_F32, 2, DIMS(2, 2), VALS(10, 20, 10, 20));
    expect(f, 5, DT_F32, 2, DIMS(2, 2), VALS(1, 2, 3, 4));
    expect(f, 6, DT_F32, 2, DIMS(2, 2), VALS(1, 4, 27, 256));
}

/* lax.div on integers truncates toward zero. */
static void test_integer_division(void **state)
{
    Fixture *f = *state;
    run(f, "func @main() -> i32[2] {\n"
           "  %a = constant {value = [-7, 7]} : i32[2]\n"
           "  %b = full {value = 2} : i32[]\n"
           "  %q = div %a, %b : i32[2]\n"
           "  return %q\n}\n");
    expect(f, 0, DT_I32, 1, DIMS(2), VALS(-3, 3));
}

static void test_compare_select(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_F32, 1, DIMS(3), VALS(1, 5, 3));
    input(f, 1, DT_F32, 1, DIMS(3), VALS(2, 5, 1));
    run(f, "func @main(%a: f32[3], %b: f32[3]) -> (bool[3], f32[3], bool[3]) {\n"
           "  %lt = compare %a, %b {direction = \"lt\"} : bool[3]\n"
           "  %s = select %lt, %a, %b : f32[3]\n"
           "  %eq = compare %a, %b {direction = \"eq\"} : bool[3]\n"
           "  return %lt, %s, %eq\n}\n");
    expect(f, 0, DT_BOOL, 1, DIMS(3), VALS(1, 0, 0));
    expect(f, 1, DT_F32, 1, DIMS(3), VALS(1, 5, 1));
    expect(f, 2, DT_BOOL, 1, DIMS(3), VALS(0, 1, 0));
}

/* ---- contraction and reductions ------------------------------------------------------------ */

static void test_einsum(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_F32, 2, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
    input(f, 1, DT_F32, 2, DIMS(3, 1), VALS(1, 0, -1));
    run(f, "func @main(%a: f32[2,3], %b: f32[3,1]) -> (f32[2,1], f32[3,2], f32[]) {\n"
           "  %m = einsum \"ij,jk->ik\" %a, %b : f32[2,1]\n"
           "  %t = einsum \"ij->ji\" %a : f32[3,2]\n"
           "  %s = einsum \"ij->\" %a : f32[]\n"
           "  return %m, %t, %s\n}\n");
    expect(f, 0, DT_F32, 2, DIMS(2, 1), VALS(-2, -2));
    expect(f, 1, DT_F32, 2, DIMS(3, 2), VALS(1, 4, 2, 5, 3, 6));
    expect(f, 2, DT_F32, 0, NULL, VALS(21));
}

static void test_reductions(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_F32, 2, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 9));
    run(f, "func @main(%a: f32[2,3]) -> (f32[2], f32[3], f32[], f32[2], f32[2,3]) {\n"
           "  %s = reduce_sum %a {dims = [1]} : f32[2]\n"
           "  %m = reduce_max %a {dims = [0]} : f32[3]\n"
           "  %n = reduce_min %a {dims = [0, 1]} : f32[]\n"
           "  %e = reduce_mean %a {dims = [1]} : f32[2]\n"
           "  %k = reduce_sum %a {dims = []} : f32[2,3]\n"
           "  return %s, %m, %n, %e, %k\n}\n");
    expect(f, 0, DT_F32, 1, DIMS(2), VALS(6, 18));
    expect(f, 1, DT_F32, 1, DIMS(3), VALS(4, 5, 9));
    expect(f, 2, DT_F32, 0, NULL, VALS(1));
    expect(f, 3, DT_F32, 1, DIMS(2), VALS(2, 6));
    expect(f, 4, DT_F32, 2, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 9));
}

/* ---- data movement --------------------------------------------------------------------------- */

static void test_shape_ops(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_I32, 2, DIMS(2, 3), VALS(0, 1, 2, 3, 4, 5));
    run(f, "func @main(%a: i32[2,3]) -> (i32[3,2], i32[6], i32[2,2,3], i32[4,3]) {\n"
           "  %t = transpose %a {permutation = [1, 0]} : i32[3,2]\n"
           "  %r = reshape %a : i32[6]\n"
           "  %b = broadcast %a {dims = [1, 2]} : i32[2,2,3]\n"
           "  %c = concatenate %a, %a {dim = 0} : i32[4,3]\n"
           "  return %t, %r, %b, %c\n}\n");
    expect(f, 0, DT_I32, 2, DIMS(3, 2), VALS(0, 3, 1, 4, 2, 5));
    expect(f, 1, DT_I32, 1, DIMS(6), VALS(0, 1, 2, 3, 4, 5));
    expect(f, 2, DT_I32, 3, DIMS(2, 2, 3), VALS(0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5));
    expect(f, 3, DT_I32, 2, DIMS(4, 3), VALS(0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5));
}

static void test_slice_pad(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_F32, 1, DIMS(5), VALS(0, 1, 2, 3, 4));
    run(f, "func @main(%a: f32[5]) -> (f32[2], f32[3], f32[6]) {\n"
           "  %s = slice %a {start = [1], limit = [5], stride = [2]} : f32[2]\n"
           "  %t = slice %a {start = [2], limit = [5]} : f32[3]\n"
           "  %p = pad %s {low = [1], high = [2], interior = [1], value = -1.0} : f32[6]\n"
           "  return %s, %t, %p\n}\n");
    expect(f, 0, DT_F32, 1, DIMS(2), VALS(1, 3));
    expect(f, 1, DT_F32, 1, DIMS(3), VALS(2, 3, 4));
    expect(f, 2, DT_F32, 1, DIMS(6), VALS(-1, 1, -1, 3, -1, -1));
}

static void test_sort_top_k_argmax(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_F32, 2, DIMS(2, 3), VALS(3, 1, 2, 5, 6, 4));
    run(f, "func @main(%a: f32[2,3]) -> (f32[2,3], f32[2,2], i32[2,2], i32[2], f32[2,3]) {\n"
           "  %s = sort %a {dim = 1} : f32[2,3]\n"
           "  %v, %i = top_k %a {k = 2} : f32[2,2], i32[2,2]\n"
           "  %m = argmax %a {dim = 1} : i32[2]\n"
           "  %d = sort %a {dim = 0, descending = true} : f32[2,3]\n"
           "  return %s, %v, %i, %m, %d\n}\n");
    expect(f, 0, DT_F32, 2, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
    expect(f, 1, DT_F32, 2, DIMS(2, 2), VALS(3, 2, 6, 5));
    expect(f, 2, DT_I32, 2, DIMS(2, 2), VALS(0, 2, 1, 0));
    expect(f, 3, DT_I32, 1, DIMS(2), VALS(0, 1));
    expect(f, 4, DT_F32, 2, DIMS(2, 3), VALS(5, 6, 4, 3, 1, 2));
}

/* ---- structure ------------------------------------------------------------------------------------ */

static void test_sharding_ops_are_identities(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_F32, 1, DIMS(4), VALS(1, 2, 3, 4));
    run(f, "mesh @m = <\"x\"=2 explicit, \"y\"=2>\n"
           "func @main(%a: f32[4]) -> (f32[4], f32[4]) {\n"
           "  %c = sharding_constraint %a {sharding = <@m, [{\"y\"}]>} : f32[4]\n"
           "  %r = reshard %a {sharding = <@m, [{\"x\"}]>} : f32[4]\n"
           "  return %c, %r\n}\n");
    expect(f, 0, DT_F32, 1, DIMS(4), VALS(1, 2, 3, 4));
    expect(f, 1, DT_F32, 1, DIMS(4), VALS(1, 2, 3, 4));
}

static void test_call_and_custom(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_F32, 1, DIMS(2), VALS(1, 2));
    run(f, "func @main(%a: f32[2]) -> (f32[2], f32[2]) {\n"
           "  %c = call @twice(%a) : f32[2]\n"
           "  %d = custom @twice(%c) {rule = \"i -> i\"} : f32[2]\n"
           "  return %c, %d\n}\n"
           "func @twice(%x: f32[2]) -> f32[2] {\n"
           "  %y = add %x, %x : f32[2]\n"
           "  return %y\n}\n");
    expect(f, 0, DT_F32, 1, DIMS(2), VALS(2, 4));
    expect(f, 1, DT_F32, 1, DIMS(2), VALS(4, 8));
}

static void test_recursion_is_an_error(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_F32, 1, DIMS(1), VALS(1));
    assert_false(try_run(f, "func @main(%a: f32[1]) -> f32[1] {\n"
                            "  %c = call @main(%a) : f32[1]\n"
                            "  return %c\n}\n"));
    assert_non_null(strstr(diagnostics(f), "calls nest deeper than"));
    assert_null(f->results[0]);
}

/* in_specs split, out_specs tile or (along unmentioned axes) take device 0's block. */
static void test_shard_map_specs(void **state)
{
    Fixture *f = *state;
    run(f, "mesh @m = <\"x\"=2, \"y\"=2>\n"
           "func @main() -> (f32[4,2], f32[2,1]) {\n"
           "  %i = iota {dimension = 0} : i32[2,2]\n"
           "  %a = convert %i : f32[2,2]\n"
           "  %r, %s = shard_map %a {mesh = @m, in_specs = [<@m, [{\"x\"}, {}]>],\n"
           "      out_specs = [<@m, [{\"y\", \"x\"}, {}]>, <@m, [{\"x\"}, {}]>], check_vma = false} (%b: f32[1,2]) {\n"
           "    %j = axis_index {axes = [\"y\"]} : i32[]\n"
           "    %c = convert %j : f32[]\n"
           "    %t = full {value = 10.0} : f32[]\n"
           "    %u = mul %c, %t : f32[]\n"
           "    %v = add %b, %u : f32[1,2]\n"
           "    %w = slice %v {start = [0, 1], limit = [1, 2]} : f32[1,1]\n"
           "    return %v, %w\n"
           "  } : f32[4,2], f32[2,1]\n"
           "  return %r, %s\n}\n");
    /* block (y, x) of result 0 is row x + 10 y; result 1 untiles y (y = 0). */
    expect(f, 0, DT_F32, 2, DIMS(4, 2), VALS(0, 0, 1, 1, 10, 10, 11, 11));
    expect(f, 1, DT_F32, 2, DIMS(2, 1), VALS(0, 1));
}

/* manual_axes: the body is manual over "x" only and sees "y" globally. */
static void test_shard_map_manual_subset(void **state)
{
    Fixture *f = *state;
    run(f, "mesh @m = <\"x\"=2, \"y\"=3>\n"
           "func @main() -> f32[2] {\n"
           "  %i = iota {dimension = 0} : i32[4]\n"
           "  %a = convert %i : f32[4]\n"
           "  %r = shard_map %a {mesh = @m, manual_axes = [\"x\"], in_specs = [<@m, [{\"x\"}]>],\n"
           "      out_specs = [<@m, [{\"x\"}]>]} (%b: f32[2]) {\n"
           "    %s = reduce_sum %b {dims = [0]} : f32[]\n"
           "    %t = psum %s {axes = [\"x\"]} : f32[]\n"
           "    %u = broadcast %t {dims = []} : f32[1]\n"
           "    return %u\n"
           "  } : f32[2]\n"
           "  return %r\n}\n");
    expect(f, 0, DT_F32, 1, DIMS(2), VALS(6, 6));
    assert_int_equal(f->ic.stats.shard_map_runs, 1);
}

/* A shard_map inside a shard_map's body, manual over the other axis. */
static void test_nested_shard_map(void **state)
{
    Fixture *f = *state;
    run(f, "mesh @m = <\"x\"=2, \"y\"=2>\n"
           "func @main() -> f32[4] {\n"
           "  %i = iota {dimension = 0} : i32[4]\n"
           "  %a = convert %i : f32[4]\n"
           "  %r = shard_map %a {mesh = @m, manual_axes = [\"x\"], in_specs = [<@m, [{\"x\"}]>],\n"
           "      out_specs = [<@m, [{\"x\"}]>]} (%b: f32[2]) {\n"
           "    %q = shard_map %b {mesh = @m, manual_axes = [\"y\"], in_specs = [<@m, [{\"y\"}]>],\n"
           "        out_specs = [<@m, [{\"y\"}]>]} (%c: f32[1]) {\n"
           "      %s = psum %c {axes = [\"y\"]} : f32[1]\n"
           "      return %s\n"
           "    } : f32[2]\n"
           "    return %q\n"
           "  } : f32[4]\n"
           "  return %r\n}\n");
    expect(f, 0, DT_F32, 1, DIMS(4), VALS(1, 1, 5, 5));
    assert_int_equal(f->ic.stats.shard_map_runs, 3);
}

/* ---- memory and errors ------------------------------------------------------------------------------ */

/* Each tensor is freed after its last use (an unused one at once): a chain
 * of negations holds at most two 4000-byte tensors, and nothing stays
 * charged after the run. */
static void test_release_after_last_use(void **state)
{
    Fixture *f = *state;
    run(f, "func @main() -> f32[1000] {\n"
           "  %a = full {value = 1.0} : f32[1000]\n"
           "  %unused = neg %a : f32[1000]\n"
           "  %b = neg %a : f32[1000]\n"
           "  %c = neg %b : f32[1000]\n"
           "  %d = neg %c : f32[1000]\n"
           "  return %d\n}\n");
    for (int64_t k = 0; k < 1000; k++)
        assert_true(tensor_get_f64(f->results[0], k) == -1.0);
    assert_int_equal(f->ic.stats.host_peak_bytes, 2 * 4000);
    assert_int_equal(f->ic.host_acct.current_bytes, 0);
    assert_null(f->results[0]->acct);
}

static void test_input_type_mismatch(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_F64, 1, DIMS(2), VALS(1, 2));
    assert_false(try_run(f, "func @main(%a: f32[2]) -> f32[2] {\n  return %a\n}\n"));
    assert_non_null(strstr(diagnostics(f), "input 0 (%a) is f64[2]"));
}

static void test_arguments_pass_through(void **state)
{
    Fixture *f = *state;
    input(f, 0, DT_F32, 1, DIMS(2), VALS(1, 2));
    input(f, 1, DT_F32, 1, DIMS(2), VALS(3, 4));
    run(f, "func @main(%a: f32[2], %unused: f32[2]) -> (f32[2], f32[2]) {\n  return %a, %a\n}\n");
    assert_ptr_equal(f->results[0], f->inputs[0]);
    assert_ptr_equal(f->results[1], f->inputs[0]);
}

/* A numeric library that cannot be loaded: the op that first needs it
 * fails with a located error, the run with it, and nothing crashes. */
static void test_numeric_library_missing(void **state)
{
    Fixture *f = *state;
    const char *const sonames[KERN_LIB_COUNT] = {"libshardc-test-missing.so.0", "liblapacke.so.3", "libfftw3.so.3",
                                                 "libfftw3f.so.3"};
    kern_libs_free(f->ic.libs);
    f->ic.libs = kern_libs_new_named(sonames);
    input(f, 0, DT_F32, 2, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
    input(f, 1, DT_F32, 2, DIMS(3, 1), VALS(1, 0, -1));
    assert_false(try_run(f, "func @main(%a: f32[2,3], %b: f32[3,1]) -> f32[2,1] {\n"
                            "  %n = neg %a : f32[2,3]\n"
                            "  %m = einsum \"ij,jk->ik\" %n, %b : f32[2,1]\n"
                            "  return %m\n}\n"));
    assert_non_null(strstr(diagnostics(f), "<test>:3:8: error: 'einsum': cannot load the numeric libraries: "
                                           "libshardc-test-missing.so.0"));
    assert_null(f->results[0]);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_nullary),
        T(test_constant_splat),
        T(test_unary_ops),
        T(test_trig_and_gelu),
        T(test_convert),
        T(test_binary_broadcasting),
        T(test_integer_division),
        T(test_compare_select),
        T(test_einsum),
        T(test_reductions),
        T(test_shape_ops),
        T(test_slice_pad),
        T(test_sort_top_k_argmax),
        T(test_sharding_ops_are_identities),
        T(test_call_and_custom),
        T(test_recursion_is_an_error),
        T(test_shard_map_specs),
        T(test_shard_map_manual_subset),
        T(test_nested_shard_map),
        T(test_release_after_last_use),
        T(test_input_type_mismatch),
        T(test_arguments_pass_through),
        T(test_numeric_library_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
