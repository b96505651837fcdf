/* The collectives on simulated devices: every collective in shard_map
 * bodies on small meshes (1-D, 2-D, sub-axes, device_ids orders) against
 * hand-computed results, including the seed 003 numbers, and the local
 * transport on its own (ordering, matching, abort). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "support.h"
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/interp.h"
#include "shardc/parse.h"
#include "shardc/transport.h"
#include "shardc/verify.h"
#include "interp/pool.h"

#define DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define VALS(...) ((const double[]){__VA_ARGS__})

enum { MAX_RESULTS = 8 };

typedef struct Fixture {
    CapturedDiag cap;
    char *text;
    Module *module;
    InterpCtx ic;
    Tensor *results[MAX_RESULTS];
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
    for (int i = 0; i < MAX_RESULTS; i++)
        tensor_release(f->results[i]);
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

/* Run the first function of `text` (which builds its own inputs). */
static void run(Fixture *f, const char *text)
{
    load(f, text);
    if (!interp_run_func(&f->ic, f->module, f->module->funcs[0], NULL, f->results))
        fail_msg("run failed:\n%s", diagnostics(f));
}

/* Result i has this shape and these values (exactly: every test value is
 * a small integer). */
static void expect(Fixture *f, int i, int rank, const int64_t *dims, const double *values)
{
    const Tensor *t = f->results[i];
    assert_non_null(t);
    assert_int_equal(t->rank, rank);
    for (int d = 0; d < rank; d++)
        assert_int_equal(t->dims[d], dims[d]);
    for (int64_t k = 0; k < t->count; k++)
        if (tensor_get_f64(t, k) != values[k])
            fail_msg("result %d element %lld: got %g, want %g", i, (long long)k, tensor_get_f64(t, k), values[k]);
}

/* A 1-D program: @main builds arange(n) as f32 (or i32 via `dtype`), runs
 * one shard_map with `specs` over mesh `mesh`, and returns its result. */
static void run_map(Fixture *f, const char *mesh, int n, const char *specs, const char *body, const char *local,
                    const char *result)
{
    char text[4096];
    snprintf(text, sizeof text,
             "mesh @m = <%s>\n"
             "func @main() -> %s {\n"
             "  %%i = iota {dimension = 0} : i32[%d]\n"
             "  %%x = convert %%i : f32[%d]\n"
             "  %%r = shard_map %%x {mesh = @m, %s} (%%b: %s) {\n%s\n  } : %s\n"
             "  return %%r\n}\n",
             mesh, result, n, n, specs, local, body, result);
    run(f, text);
}

/* ---- seed 003 ----------------------------------------------------------------- */

static void test_seed_psum(void **state)
{
    Fixture *f = *state;
    run(f, "mesh @m = <\"device_axis\"=4>\n"
           "func @main() -> f32[1,2] {\n"
           "  %i = iota {dimension = 0} : i32[8]\n"
           "  %f = convert %i : f32[8]\n"
           "  %d = reshape %f : f32[4,2]\n"
           "  %r = shard_map %d {mesh = @m, in_specs = [<@m, [{\"device_axis\"}, {}]>],\n"
           "      out_specs = [<@m, [{}, {}]>]} (%b: f32[1,2]) {\n"
           "    %s = psum %b {axes = [\"device_axis\"]} : f32[1,2]\n"
           "    return %s\n"
           "  } : f32[1,2]\n"
           "  return %r\n}\n");
    expect(f, 0, 2, DIMS(1, 2), VALS(12, 16));
}

static void test_seed_all_gather_tiled(void **state)
{
    Fixture *f = *state;
    run_map(f, "\"g\"=4", 4, "in_specs = [<@m, [{\"g\"}]>], out_specs = [<@m, [{\"g\"}]>]",
            "    %a = all_gather %b {axes = [\"g\"], axis = 0, tiled = true} : f32[4]\n    return %a", "f32[1]",
            "f32[16]");
    expect(f, 0, 1, DIMS(16), VALS(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3));
}

static void test_seed_all_gather_stacked(void **state)
{
    Fixture *f = *state;
    run_map(f, "\"g\"=4", 4, "in_specs = [<@m, [{\"g\"}]>], out_specs = [<@m, [{}, {}]>], check_vma = false",
            "    %a = all_gather %b {axes = [\"g\"], axis = 0, tiled = false} : f32[4,1]\n    return %a", "f32[1]",
            "f32[4,1]");
    expect(f, 0, 2, DIMS(4, 1), VALS(0, 1, 2, 3));
}

static void test_seed_psum_scatter(void **state)
{
    Fixture *f = *state;
    run(f, "mesh @m = <\"s\"=4>\n"
           "func @main() -> (f32[4], f32[4,1]) {\n"
           "  %i = iota {dimension = 0} : i32[16]\n"
           "  %f = convert %i : f32[16]\n"
           "  %d = reshape %f : f32[4,4]\n"
           "  %r = shard_map %d {mesh = @m, in_specs = [<@m, [{\"s\"}, {}]>], out_specs = [<@m, [{\"s\"}]>]}\n"
           "      (%b: f32[1,4]) {\n"
           "    %p = psum_scatter %b {axes = [\"s\"], scatter_dimension = 1, tiled = false} : f32[1]\n"
           "    return %p\n"
           "  } : f32[4]\n"
           "  %t = shard_map %d {mesh = @m, in_specs = [<@m, [{\"s\"}, {}]>], out_specs = [<@m, [{\"s\"}, {}]>]}\n"
           "      (%c: f32[1,4]) {\n"
           "    %q = psum_scatter %c {axes = [\"s\"], scatter_dimension = 1, tiled = true} : f32[1,1]\n"
           "    return %q\n"
           "  } : f32[4,1]\n"
           "  return %r, %t\n}\n");
    expect(f, 0, 1, DIMS(4), VALS(24, 28, 32, 36));
    expect(f, 1, 2, DIMS(4, 1), VALS(24, 28, 32, 36));
}

static void test_seed_ppermute_ring(void **state)
{
    Fixture *f = *state;
    run_map(f, "\"r\"=4", 4, "in_specs = [<@m, [{\"r\"}]>], out_specs = [<@m, [{\"r\"}]>]",
            "    %p = ppermute %b {axes = [\"r\"], perm = [[0, 1], [1, 2], [2, 3], [3, 0]]} : f32[1]\n    return %p",
            "f32[1]", "f32[4]");
    expect(f, 0, 1, DIMS(4), VALS(3, 0, 1, 2));
}

static void test_seed_all_to_all(void **state)
{
    Fixture *f = *state;
    run_map(f, "\"d\"=4", 16, "in_specs = [<@m, [{\"d\"}]>], out_specs = [<@m, [{\"d\"}]>]",
            "    %a = all_to_all %b {axes = [\"d\"], split_axis = 0, concat_axis = 0, tiled = true} : f32[4]\n"
            "    return %a",
            "f32[4]", "f32[16]");
    expect(f, 0, 1, DIMS(16), VALS(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
}

/* ---- more shapes and options ---------------------------------------------------- */

static void test_ppermute_non_destination_gets_zeros(void **state)
{
    Fixture *f = *state;
    run_map(f, "\"r\"=4", 4, "in_specs = [<@m, [{\"r\"}]>], out_specs = [<@m, [{\"r\"}]>]",
            "    %p = ppermute %b {axes = [\"r\"], perm = [[2, 0], [3, 3]]} : f32[1]\n    return %p", "f32[1]",
            "f32[4]");
    expect(f, 0, 1, DIMS(4), VALS(2, 0, 0, 3));
}

/* Untiled: split dim (of the group size) removed, a new dim at concat_axis:
 * device i gets R[c, j] = x_j[i, c]. */
static void test_all_to_all_untiled(void **state)
{
    Fixture *f = *state;
    run(f, "mesh @m = <\"x\"=2>\n"
           "func @main() -> f32[6,2] {\n"
           "  %i = iota {dimension = 0} : i32[12]\n"
           "  %f = convert %i : f32[12]\n"
           "  %d = reshape %f : f32[4,3]\n"
           "  %r = shard_map %d {mesh = @m, in_specs = [<@m, [{\"x\"}, {}]>], out_specs = [<@m, [{\"x\"}, {}]>]}\n"
           "      (%b: f32[2,3]) {\n"
           "    %a = all_to_all %b {axes = [\"x\"], split_axis = 0, concat_axis = 1} : f32[3,2]\n"
           "    return %a\n"
           "  } : f32[6,2]\n"
           "  return %r\n}\n");
    expect(f, 0, 2, DIMS(6, 2), VALS(0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11));
}

/* Tiled with different split and concat dims: a [2,4] block per device;
 * split dim 1 into 2 chunks, concatenate the received chunks along dim 0. */
static void test_all_to_all_tiled_moves_dims(void **state)
{
    Fixture *f = *state;
    run(f, "mesh @m = <\"x\"=2>\n"
           "func @main() -> f32[8,2] {\n"
           "  %i = iota {dimension = 0} : i32[16]\n"
           "  %f = convert %i : f32[16]\n"
           "  %d = reshape %f : f32[4,4]\n"
           "  %r = shard_map %d {mesh = @m, in_specs = [<@m, [{\"x\"}, {}]>], out_specs = [<@m, [{\"x\"}, {}]>]}\n"
           "      (%b: f32[2,4]) {\n"
           "    %a = all_to_all %b {axes = [\"x\"], split_axis = 1, concat_axis = 0, tiled = true} : f32[4,2]\n"
           "    return %a\n"
           "  } : f32[8,2]\n"
           "  return %r\n}\n");
    /* device 0: left halves of rows 0-1 (its own) then of rows 2-3; device 1: right halves. */
    expect(f, 0, 2, DIMS(8, 2), VALS(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15));
}

static void test_all_gather_untiled_inner_axis(void **state)
{
    Fixture *f = *state;
    run_map(f, "\"x\"=2", 4, "in_specs = [<@m, [{\"x\"}]>], out_specs = [<@m, [{}, {}]>], check_vma = false",
            "    %a = all_gather %b {axes = [\"x\"], axis = 1} : f32[2,2]\n    return %a", "f32[2]", "f32[2,2]");
    expect(f, 0, 2, DIMS(2, 2), VALS(0, 2, 1, 3));
}

static void test_all_gather_tiled_inner_axis(void **state)
{
    Fixture *f = *state;
    run(f, "mesh @m = <\"x\"=2>\n"
           "func @main() -> f32[2,4] {\n"
           "  %i = iota {dimension = 0} : i32[8]\n"
           "  %f = convert %i : f32[8]\n"
           "  %d = reshape %f : f32[2,4]\n"
           "  %r = shard_map %d {mesh = @m, in_specs = [<@m, [{}, {\"x\"}]>], out_specs = [<@m, [{}, {}]>],\n"
           "      check_vma = false} (%b: f32[2,2]) {\n"
           "    %a = all_gather %b {axes = [\"x\"], axis = 1, tiled = true} : f32[2,4]\n"
           "    return %a\n"
           "  } : f32[2,4]\n"
           "  return %r\n}\n");
    expect(f, 0, 2, DIMS(2, 4), VALS(0, 1, 2, 3, 4, 5, 6, 7));
}

/* A 2x2 mesh; device (x, y) holds [2x + y]. */
static void run_2d(Fixture *f, const char *body, const char *out_spec, const char *result)
{
    char specs[512];
    snprintf(specs, sizeof specs, "in_specs = [<@m, [{\"x\", \"y\"}]>], out_specs = [%s]", out_spec);
    run_map(f, "\"x\"=2, \"y\"=2", 4, specs, body, "f32[1]", result);
}

static void test_reductions_over_two_axes(void **state)
{
    Fixture *f = *state;
    run_2d(f, "    %s = pmax %b {axes = [\"x\", \"y\"]} : f32[1]\n    return %s", "<@m, [{}]>", "f32[1]");
    expect(f, 0, 1, DIMS(1), VALS(3));
}

static void test_pmin_pmean(void **state)
{
    Fixture *f = *state;
    run_2d(f, "    %s = pmin %b {axes = [\"y\", \"x\"]} : f32[1]\n"
              "    %m = pmean %b {axes = [\"x\", \"y\"]} : f32[1]\n"
              "    %t = add %s, %m : f32[1]\n    return %t",
           "<@m, [{}]>", "f32[1]");
    expect(f, 0, 1, DIMS(1), VALS(1.5));
}

/* psum over one axis of two: groups {0,1} and {2,3}; untiled along y. */
static void test_psum_one_axis_of_two(void **state)
{
    Fixture *f = *state;
    run_2d(f, "    %s = psum %b {axes = [\"y\"]} : f32[1]\n    return %s", "<@m, [{\"x\"}]>", "f32[2]");
    expect(f, 0, 1, DIMS(2), VALS(1, 5));
}

/* axis_index over ["y", "x"]: 2y + x, listed axes major first. */
static void test_axis_index_order(void **state)
{
    Fixture *f = *state;
    run_2d(f, "    %i = axis_index {axes = [\"y\", \"x\"]} : i32[]\n"
              "    %c = convert %i : f32[]\n"
              "    %r = broadcast %c {dims = []} : f32[1]\n    return %r",
           "<@m, [{\"x\", \"y\"}]>", "f32[4]");
    expect(f, 0, 1, DIMS(4), VALS(0, 2, 1, 3));
}

/* Sub-axes of x=4 (Shardy: "x":(m)k is the middle dim of x reshaped to
 * [m, k, 4 / (m k)]): "x":(1)2 is c / 2, "x":(2)2 is c % 2. */
static void test_sub_axis_collectives(void **state)
{
    Fixture *f = *state;
    run_map(f, "\"x\"=4", 4, "in_specs = [<@m, [{\"x\"}]>], out_specs = [<@m, [{\"x\"}]>]",
            "    %lo = psum %b {axes = [\"x:(1)2\"]} : f32[1]\n"
            "    %i = axis_index {axes = [\"x:(2)2\"]} : i32[]\n"
            "    %c = convert %i : f32[]\n"
            "    %h = mul %c, %c : f32[]\n"
            "    %t = full {value = 100.0} : f32[]\n"
            "    %k = mul %h, %t : f32[]\n"
            "    %r = add %lo, %k : f32[1]\n    return %r",
            "f32[1]", "f32[4]");
    /* "x":(1)2 is the major half (c / 2): the psum groups agree on c % 2,
     * {0, 2} and {1, 3}: 2, 4, 2, 4; "x":(2)2 is c % 2: + 100 * (c % 2)^2. */
    expect(f, 0, 1, DIMS(4), VALS(2, 104, 2, 104));
}

/* device_ids reorders ids, not positions: collectives follow positions. */
static void test_device_ids_order(void **state)
{
    Fixture *f = *state;
    run_map(f, "\"x\"=4, device_ids=[3, 1, 0, 2]", 4, "in_specs = [<@m, [{\"x\"}]>], out_specs = [<@m, [{\"x\"}]>]",
            "    %i = axis_index {axes = [\"x\"]} : i32[]\n"
            "    %c = convert %i : f32[]\n"
            "    %p = ppermute %b {axes = [\"x\"], perm = [[0, 3], [1, 0], [2, 1], [3, 2]]} : f32[1]\n"
            "    %r = add %p, %c : f32[1]\n    return %r",
            "f32[1]", "f32[4]");
    expect(f, 0, 1, DIMS(4), VALS(1, 3, 5, 3));
    /* Peaks are kept by device id: every device held blocks. */
    for (int id = 0; id < 4; id++)
        assert_true(f->ic.stats.device_peak_bytes[id] > 0);
}

/* ---- partitioner collectives --------------------------------------------------------- */

/* The most any device received (or sent) in collectives of `kind`. */
static int64_t measured(const Fixture *f, OpKind kind, bool sent)
{
    return cost_tally_per_device(&f->ic.stats.traffic, cost_kind_slot(kind), sent);
}

static void test_all_slice(void **state)
{
    Fixture *f = *state;
    run_map(f, "\"x\"=4", 8, "in_specs = [<@m, [{}]>], out_specs = [<@m, [{\"x\"}]>]",
            "    %s = all_slice %b {axes = [\"x\"], dim = 0} : f32[2]\n    return %s", "f32[8]", "f32[8]");
    expect(f, 0, 1, DIMS(8), VALS(0, 1, 2, 3, 4, 5, 6, 7));
    assert_int_equal(measured(f, OP_ALL_SLICE, false), 0);
}

static void test_all_reduce_kinds(void **state)
{
    Fixture *f = *state;
    run_2d(f, "    %a = all_reduce %b {axes = [\"x\", \"y\"], reduction = \"max\"} : f32[1]\n"
              "    %m = all_reduce %b {axes = [\"x\"], reduction = \"mean\"} : f32[1]\n"
              "    %s = all_reduce %b {axes = [\"y\"]} : f32[1]\n"
              "    %t = add %a, %m : f32[1]\n"
              "    %u = add %t, %s : f32[1]\n    return %u",
           "<@m, [{\"x\", \"y\"}]>", "f32[4]");
    /* max 3; mean over x: (y=0) 1, (y=1) 2; sum over y: 1, 1, 5, 5. */
    expect(f, 0, 1, DIMS(4), VALS(3 + 1 + 1, 3 + 2 + 1, 3 + 1 + 5, 3 + 2 + 5));
}

static void test_reduce_scatter(void **state)
{
    Fixture *f = *state;
    run(f, "mesh @m = <\"x\"=2>\n"
           "func @main() -> f32[4] {\n"
           "  %i = iota {dimension = 0} : i32[8]\n"
           "  %f = convert %i : f32[8]\n"
           "  %d = reshape %f : f32[2,4]\n"
           "  %r = shard_map %d {mesh = @m, in_specs = [<@m, [{\"x\"}, {}]>], out_specs = [<@m, [{}, {\"x\"}]>]}\n"
           "      (%b: f32[1,4]) {\n"
           "    %s = reduce_scatter %b {axes = [\"x\"], dim = 1, reduction = \"min\"} : f32[1,2]\n"
           "    return %s\n"
           "  } : f32[1,4]\n"
           "  %o = reshape %r : f32[4]\n"
           "  return %o\n}\n");
    expect(f, 0, 1, DIMS(4), VALS(0, 1, 2, 3));
}

/* [{"x","y"}] -> [{"y","x"}]: device (x, y) fetches block 2y + x from the
 * device (y, x); assembled under the source layout that is [0, 2, 1, 3]. */
static void test_collective_permute_transpose(void **state)
{
    Fixture *f = *state;
    run_2d(f, "    %p = collective_permute %b {source = <@m, [{\"x\", \"y\"}]>,\n"
              "        target = <@m, [{\"y\", \"x\"}]>} : f32[1]\n"
              "    return %p",
           "<@m, [{\"x\", \"y\"}]>", "f32[4]");
    expect(f, 0, 1, DIMS(4), VALS(0, 2, 1, 3));
}

/* [{"x"}] (replicated over y) -> [{"y"}]: device (1,0) serves two others,
 * so the exchange takes two rounds; the global value is unchanged. */
static void test_collective_permute_fan_out(void **state)
{
    Fixture *f = *state;
    run_map(f, "\"x\"=2, \"y\"=2", 2, "in_specs = [<@m, [{\"x\"}]>], out_specs = [<@m, [{\"y\"}]>]",
            "    %p = collective_permute %b {source = <@m, [{\"x\"}]>, target = <@m, [{\"y\"}]>} : f32[1]\n"
            "    return %p",
            "f32[1]", "f32[2]");
    expect(f, 0, 1, DIMS(2), VALS(0, 1));
    /* (1,0) -> (0,1) and (1,1); (0,0) -> (1,0): three remote blocks of 4
     * bytes, received one by each of three devices, two sent by (1,0). */
    assert_int_equal(measured(f, OP_COLLECTIVE_PERMUTE, false), 4);
    assert_int_equal(measured(f, OP_COLLECTIVE_PERMUTE, true), 8);
}

/* ---- statistics and errors ------------------------------------------------------------ */

/* shardc/cost.h: the bandwidth-optimal bytes, rounded up (a scalar
 * all-reduce is not free), and every collective kind has a slot. */
static void test_cost_definition(void **state)
{
    (void)state;
    assert_int_equal(cost_collective_received(OP_ALL_REDUCE, 4, 32768, 32768), 49152);
    assert_int_equal(cost_collective_received(OP_PSUM, 8, 4, 4), 8);
    assert_int_equal(cost_collective_received(OP_ALL_GATHER, 4, 8, 32), 24);
    assert_int_equal(cost_collective_received(OP_REDUCE_SCATTER, 4, 32, 8), 24);
    assert_int_equal(cost_collective_received(OP_ALL_TO_ALL, 4, 32, 32), 24);
    assert_int_equal(cost_collective_received(OP_COLLECTIVE_PERMUTE, 1, 16, 16), 16);
    assert_int_equal(cost_collective_received(OP_ALL_SLICE, 4, 32, 8), 0);
    assert_int_equal(cost_collective_received(OP_ALL_REDUCE, 1, 32, 32), 0);
    for (int k = 0; k < OP_COUNT; k++)
        if (op_info((OpKind)k)->op_class == OPC_COLLECTIVE) {
            assert_true(cost_kind_slot((OpKind)k) >= 0);
            assert_int_equal(cost_slot_kind(cost_kind_slot((OpKind)k)), k);
        }
}

static void test_traffic_counts(void **state)
{
    Fixture *f = *state;
    run_map(f, "\"g\"=4", 8, "in_specs = [<@m, [{\"g\"}]>], out_specs = [<@m, [{}]>]",
            "    %s = psum %b {axes = [\"g\"]} : f32[2]\n    return %s", "f32[2]", "f32[2]");
    /* a ring all-reduce over 4 devices: each receives (and sends) 2 x 3/4
     * of its 8 bytes; one call. */
    assert_int_equal(measured(f, OP_PSUM, false), 12);
    assert_int_equal(measured(f, OP_PSUM, true), 12);
    assert_int_equal(f->ic.stats.traffic.calls[cost_kind_slot(OP_PSUM)], 1);
    assert_int_equal(f->ic.stats.shard_map_runs, 1);
}

static void test_collective_outside_shard_map(void **state)
{
    Fixture *f = *state;
    load(f, "mesh @m = <\"x\"=2>\n"
            "func @main(%a: f32[2]) -> f32[2] {\n"
            "  %s = psum %a {axes = [\"x\"]} : f32[2]\n"
            "  return %s\n}\n");
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *in = NULL;
    assert_int_equal(tensor_new(&ctx, DT_F32, 1, DIMS(2), &in), TENSOR_OK);
    assert_false(interp_run_func(&f->ic, f->module, f->module->funcs[0], &in, f->results));
    assert_non_null(strstr(diagnostics(f), "outside a shard_map"));
    assert_null(f->results[0]);
    tensor_release(in);
}

/* A failure on the devices is reported once, at the op, with the lowest
 * failing device, and nobody waits forever at the psum after it. */
static void test_device_failure_reported(void **state)
{
    Fixture *f = *state;
    load(f, "mesh @m = <\"x\"=4>\n"
            "func @main() -> f32[4] {\n"
            "  %i = iota {dimension = 0} : i32[4]\n"
            "  %x = convert %i : f32[4]\n"
            "  %r = shard_map %x {mesh = @m, in_specs = [<@m, [{\"x\"}]>], out_specs = [<@m, [{\"x\"}]>]}\n"
            "      (%b: f32[1]) {\n"
            "    %p = collective_permute %b {source = <@m, [{\"x\"}]>, target = <@m, [{\"x\"}]>} : f32[1]\n"
            "    %s = psum %p {axes = [\"x\"]} : f32[1]\n"
            "    return %s\n"
            "  } : f32[4]\n"
            "  return %r\n}\n");
    /* Break the program after verification: the permute's target names
     * another mesh, which only the device running it can notice. */
    const Op *map = f->module->funcs[0]->body->last;
    NamedAttr *target = (NamedAttr *)op_attr_find(map->region->first, ATTR_KEY_TARGET);
    Sharding *bad = sharding_clone(&f->module->arena, target->value->u.sharding);
    Mesh *other = calloc(1, sizeof *other);
    *other = *bad->mesh;
    bad->mesh = other;
    target->value->u.sharding = bad;
    assert_false(interp_run_func(&f->ic, f->module, f->module->funcs[0], NULL, f->results));
    assert_non_null(strstr(diagnostics(f), "device 0: 'collective_permute' source and target"));
    assert_null(strstr(diagnostics(f), "stopped"));
    free(other);
}

/* ---- the transport on its own -------------------------------------------------------------- */

enum { WORKERS = 4 };

typedef struct Worker {
    Transport *t;
    int64_t self;
    TransportStatus status;
    float sum[2];
    int mode;
} Worker;

static void *worker_main(void *arg)
{
    Worker *w = arg;
    int64_t members[WORKERS] = {0, 1, 2, 3};
    TransportGroup g = {WORKERS, w->self, members};
    float mine[2] = {(float)w->self, 1e8f};
    if (w->mode == 1 && w->self == 2) {
        w->t->ops->abort(w->t);
        w->status = TRANSPORT_ABORTED;
        return NULL;
    }
    w->status = w->t->ops->allreduce(w->t, &g, (TransportReduction){DT_F32, RED_SUM}, mine, w->sum, 2);
    return NULL;
}

static void run_workers(Worker *w, int mode)
{
    Transport *t = transport_local_new(WORKERS, WORKERS);
    pthread_t threads[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        w[i] = (Worker){t, i, TRANSPORT_OK, {0, 0}, mode};
        pthread_create(&threads[i], NULL, worker_main, &w[i]);
    }
    for (int i = 0; i < WORKERS; i++)
        pthread_join(threads[i], NULL);
    t->ops->destroy(t);
}

/* Every member adds in group-index order, so all get identical bits. */
static void test_transport_allreduce_identical(void **state)
{
    (void)state;
    Worker w[WORKERS];
    run_workers(w, 0);
    for (int i = 0; i < WORKERS; i++) {
        assert_int_equal(w[i].status, TRANSPORT_OK);
        assert_true(w[i].sum[0] == 6.0f);
        assert_memory_equal(&w[i].sum[1], &w[0].sum[1], sizeof(float));
    }
}

static void test_transport_abort(void **state)
{
    (void)state;
    Worker w[WORKERS];
    run_workers(w, 1);
    for (int i = 0; i < WORKERS; i++)
        assert_int_equal(w[i].status, TRANSPORT_ABORTED);
}

static void test_transport_sendrecv_mismatch(void **state)
{
    (void)state;
    Transport *t = transport_local_new(1, 1);
    float a = 1, b = 0;
    assert_int_equal(t->ops->sendrecv(t, 0, &a, sizeof a, 0, &b, sizeof b, 0), TRANSPORT_OK);
    assert_true(b == 1);
    assert_int_equal(t->ops->sendrecv(t, 0, &a, sizeof a, -1, &b, sizeof b, 0), TRANSPORT_MISMATCH);
    assert_int_equal(t->ops->barrier(t, 0), TRANSPORT_ABORTED);
    t->ops->destroy(t);
}

/* ---- bit-identical reductions on 8 devices ------------------------------------------------ */

/* The all-reduce is a reduce-scatter (member k combines slice k of every
 * send, in group order) and an all-gather; small vectors are combined whole
 * by every member. In the lockstep transport the group's first record holds
 * the result, combined a chunk at a time by whichever calls take the
 * chunks. Either way every member, in every repetition, must get exactly
 * the bits of the serial sum ((s0 + s1) + s2) + ... of its group. */
enum { VEC_DEVICES = 8, VEC_REPS = 12, VEC_POOL_THREADS = 3 };

typedef struct VecCase {
    TransportReduction red;
    bool scatter;           /* reduce_scatter of count elements per member */
    bool lockstep;          /* the lockstep transport on a pool, else threads */
    int64_t count, group;   /* groups of `group` consecutive devices */
    bool shared;            /* lockstep's allreduce_shared: one result tensor per group */
} VecCase;

typedef struct VecWorker {
    Transport *t;
    const VecCase *c;
    int64_t self;
    const float *send;
    float *recv;
    Tensor *send_tensor, *result; /* allreduce_shared */
    TransportStatus status;
} VecWorker;

/* Deterministic values over many binades, so the order of the sum shows. */
static float vec_value(int64_t member, int64_t i)
{
    uint32_t h = (uint32_t)(i * 2654435761u) ^ (uint32_t)(member * 40503u + 17u);
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    float mantissa = (float)((int32_t)(h % 2001u) - 1000);
    return ldexpf(mantissa, (int)((h >> 16) % 40u) - 20);
}

static void vec_call(VecWorker *w)
{
    int64_t members[VEC_DEVICES], first = w->self / w->c->group * w->c->group;
    for (int64_t k = 0; k < w->c->group; k++)
        members[k] = first + k;
    TransportGroup g = {w->c->group, w->self - first, members};
    if (w->c->shared)
        w->status = w->t->ops->allreduce_shared(w->t, &g, w->c->red, w->send_tensor, &w->result);
    else if (w->c->scatter)
        w->status = w->t->ops->reduce_scatter(w->t, &g, w->c->red, w->send, w->recv, w->c->count);
    else
        w->status = w->t->ops->allreduce(w->t, &g, w->c->red, w->send, w->recv, w->c->count);
}

/* allreduce_shared's send: send[k] as a tensor; its result copied to recv[k]. */
static void vec_shared_begin(VecWorker *w)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    assert_int_equal(tensor_new_uninit(&ctx, DT_F32, 1, &w->c->count, &w->send_tensor), TENSOR_OK);
    memcpy(w->send_tensor->data, w->send, sizeof(float) * (size_t)w->c->count);
}

static void vec_shared_end(VecWorker *w)
{
    assert_non_null(w->result);
    assert_int_equal(w->result->count, w->c->count);
    memcpy(w->recv, w->result->data, sizeof(float) * (size_t)w->c->count);
    tensor_release(w->result);
    tensor_release(w->send_tensor);
}

static void *vec_worker_main(void *arg)
{
    vec_call(arg);
    return NULL;
}

static void vec_pool_call(void *user, int64_t k)
{
    vec_call(&((VecWorker *)user)[k]);
}

/* Run one all-reduce (or reduce-scatter): on 8 threads, or in the lockstep
 * transport's two passes on a pool; recv[k] per member. */
static void vec_run(const VecCase *c, InterpPool *pool, float **send, float **recv)
{
    Transport *t = c->lockstep ? transport_lockstep_new(VEC_DEVICES) : transport_local_new(VEC_DEVICES, VEC_DEVICES);
    VecWorker w[VEC_DEVICES];
    for (int k = 0; k < VEC_DEVICES; k++) {
        w[k] = (VecWorker){t, c, k, send[k], recv[k], NULL, NULL, TRANSPORT_MISMATCH};
        if (c->shared)
            vec_shared_begin(&w[k]);
    }
    if (c->lockstep) {
        for (int pass = 0; pass < 2; pass++) {
            transport_lockstep_pass(t, pass == 1);
            interp_pool_run(pool, VEC_DEVICES, vec_pool_call, w);
            for (int k = 0; k < VEC_DEVICES && pass == 0; k++)
                assert_null(w[k].result); /* the publish pass receives nothing */
        }
    } else {
        pthread_t threads[VEC_DEVICES];
        for (int k = 0; k < VEC_DEVICES; k++)
            pthread_create(&threads[k], NULL, vec_worker_main, &w[k]);
        for (int k = 0; k < VEC_DEVICES; k++)
            pthread_join(threads[k], NULL);
    }
    for (int k = 0; k < VEC_DEVICES; k++)
        assert_int_equal(w[k].status, TRANSPORT_OK);
    t->ops->destroy(t);
    for (int k = 0; k < VEC_DEVICES && c->shared; k++)
        vec_shared_end(&w[k]); /* after the transport is gone */
}

static float vec_combine(ReduceOp op, float a, float b)
{
    if (op == RED_SUM)
        return a + b;
    if (a != a || b != b)
        return a != a ? a : b;
    return op == RED_MAX ? (a > b ? a : b) : (a < b ? a : b);
}

/* want[d] = the serial group-order reduction of device d's group. */
static void vec_expect(const VecCase *c, float **send, int64_t total, float **want)
{
    for (int d = 0; d < VEC_DEVICES; d++) {
        int first = (int)(d / c->group * c->group);
        for (int64_t i = 0; i < total; i++) {
            want[d][i] = send[first][i];
            for (int k = first + 1; k < first + c->group; k++)
                want[d][i] = vec_combine(c->red.op, want[d][i], send[k][i]);
        }
    }
}

/* Every member's result equals the serial group-order reduction, bit for
 * bit, in each of VEC_REPS runs. */
static void check_vec(VecCase c)
{
    int64_t total = c.scatter ? c.count * c.group : c.count;
    float *send[VEC_DEVICES], *recv[VEC_DEVICES], *want[VEC_DEVICES];
    InterpPool *pool = c.lockstep ? interp_pool_new(VEC_POOL_THREADS) : NULL;
    for (int k = 0; k < VEC_DEVICES; k++) {
        send[k] = malloc(sizeof(float) * (size_t)total);
        recv[k] = malloc(sizeof(float) * (size_t)c.count);
        want[k] = malloc(sizeof(float) * (size_t)total);
        for (int64_t i = 0; i < total; i++)
            send[k][i] = c.red.op != RED_SUM && i % 97 == k ? NAN : vec_value(k, i);
    }
    vec_expect(&c, send, total, want);
    for (int rep = 0; rep < VEC_REPS; rep++) {
        vec_run(&c, pool, send, recv);
        for (int k = 0; k < VEC_DEVICES; k++)
            assert_memory_equal(recv[k], want[k] + (c.scatter ? k % c.group * c.count : 0),
                                sizeof(float) * (size_t)c.count);
    }
    for (int k = 0; k < VEC_DEVICES; k++) {
        free(send[k]);
        free(recv[k]);
        free(want[k]);
    }
    interp_pool_free(pool);
}

static void check_vec_reduction(ReduceOp op, bool scatter, int64_t count)
{
    check_vec((VecCase){{DT_F32, op}, scatter, false, count, VEC_DEVICES, false});
}

static void test_transport_allreduce_bit_identical(void **state)
{
    (void)state;
    check_vec_reduction(RED_SUM, false, 40007); /* reduce-scatter + all-gather, uneven slices */
    check_vec_reduction(RED_SUM, false, 1000);  /* small: combined whole by every member */
    check_vec_reduction(RED_SUM, false, 17);    /* fewer elements than a slice's line */
    check_vec_reduction(RED_MAX, false, 40007); /* NaN propagates from any member */
    check_vec_reduction(RED_MIN, false, 999);
}

static void test_transport_reduce_scatter_bit_identical(void **state)
{
    (void)state;
    check_vec_reduction(RED_SUM, true, 5003);
    check_vec_reduction(RED_MAX, true, 33);
}

/* The lockstep all-reduce: several 32 KiB chunks and a short last one
 * (40007 floats), shared by 3 pool threads; one group of 8 and two groups
 * of 4 (each group's result in its own first record); into each member's
 * buffer (allreduce) and as one tensor per group (allreduce_shared, which
 * the engine calls; the tensor outlives the transport). */
static void test_lockstep_allreduce_bit_identical(void **state)
{
    (void)state;
    for (int shared = 0; shared < 2; shared++) {
        check_vec((VecCase){{DT_F32, RED_SUM}, false, true, 40007, 8, shared});
        check_vec((VecCase){{DT_F32, RED_SUM}, false, true, 40007, 4, shared});
        check_vec((VecCase){{DT_F32, RED_MAX}, false, true, 40007, 4, shared});
        check_vec((VecCase){{DT_F32, RED_MIN}, false, true, 999, 8, shared}); /* one chunk */
        check_vec((VecCase){{DT_F32, RED_SUM}, false, true, 8192, 2, shared}); /* exactly one chunk */
    }
    check_vec((VecCase){{DT_F32, RED_SUM}, true, true, 5003, 4, false});
}

/* ---- the lockstep transport's in-place collectives --------------------------------------- */

/* allgather_shared, reduce_scatter_shared and alltoall_shared on 8
 * devices in groups of `group`, each send an f32[outer, group, inner]
 * (its blocks: [:, k, :]), the result's blocks [:, k, :] of another
 * [outer2, group, inner2] layout (outer2 * inner2 = outer * inner), run in
 * the two lockstep passes on 3 pool threads; blocks of 3 * 5000 floats
 * span two 32 KiB pieces whose edge falls inside a run. */
enum { IP_GATHER, IP_SCATTER, IP_EXCHANGE };

typedef struct InPlaceCase {
    int kind;
    int64_t group, outer, inner, outer2, inner2;
} InPlaceCase;

typedef struct InPlaceRun {
    const InPlaceCase *c;
    Transport *t;
    bool complete;          /* the pass: publish (results NULL), then complete */
    Tensor *send[VEC_DEVICES], *result[VEC_DEVICES];
    TransportStatus status[VEC_DEVICES];
} InPlaceRun;

static void in_place_call(void *user, int64_t d)
{
    InPlaceRun *r = user;
    const InPlaceCase *c = r->c;
    int64_t members[VEC_DEVICES], first = d / c->group * c->group;
    for (int64_t k = 0; k < c->group; k++)
        members[k] = first + k;
    TransportGroup g = {c->group, d - first, members};
    TransportBlocks from = {(size_t)c->outer, sizeof(float) * (size_t)c->inner};
    TransportBlocks into = {(size_t)c->outer2, sizeof(float) * (size_t)c->inner2};
    Tensor **result = r->complete ? &r->result[d] : NULL;
    Transport *t = r->t;
    if (c->kind == IP_GATHER)
        r->status[d] = t->ops->allgather_shared(t, &g, r->send[d], into, result);
    else if (c->kind == IP_SCATTER)
        r->status[d] = t->ops->reduce_scatter_shared(t, &g, (TransportReduction){DT_F32, RED_SUM}, r->send[d], from,
                                                     result);
    else
        r->status[d] = t->ops->alltoall_shared(t, &g, r->send[d], from, into, result);
}

/* Element e of block k of a [outer, n, inner] layout. */
static int64_t block_elem(int64_t outer, int64_t n, int64_t inner, int64_t k, int64_t e)
{
    (void)outer;
    return e / inner * n * inner + k * inner + e % inner;
}

/* What member i's result holds at element e (of its own part). */
static float in_place_want(const InPlaceCase *c, InPlaceRun *r, int64_t first, int64_t i, int64_t e)
{
    int64_t n = c->group;
    const float *s[VEC_DEVICES];
    for (int64_t k = 0; k < n; k++)
        s[k] = r->send[first + k]->data;
    if (c->kind == IP_SCATTER) {
        float acc = s[0][block_elem(c->outer, n, c->inner, i, e)];
        for (int64_t k = 1; k < n; k++)
            acc += s[k][block_elem(c->outer, n, c->inner, i, e)];
        return acc;
    }
    /* e as (row, sender k, column) of the result's layout; its logical index in block k */
    int64_t k = e / c->inner2 % n, logical = e / (n * c->inner2) * c->inner2 + e % c->inner2;
    if (c->kind == IP_GATHER)
        return s[k][logical];
    return s[k][block_elem(c->outer, n, c->inner, i, logical)];
}

static int64_t in_place_send_count(const InPlaceCase *c)
{
    return c->kind == IP_GATHER ? c->outer * c->inner : c->outer * c->group * c->inner;
}

static void in_place_begin(InPlaceRun *r)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    int64_t count = in_place_send_count(r->c);
    r->t = transport_lockstep_new(VEC_DEVICES);
    for (int d = 0; d < VEC_DEVICES; d++) {
        assert_int_equal(tensor_new_uninit(&ctx, DT_F32, 1, &count, &r->send[d]), TENSOR_OK);
        for (int64_t e = 0; e < count; e++)
            ((float *)r->send[d]->data)[e] = vec_value(d, e);
    }
}

/* One op of the engine: the publish pass, then the complete pass. */
static void in_place_op(InPlaceRun *r, InterpPool *pool)
{
    r->complete = false;
    transport_lockstep_pass(r->t, false);
    interp_pool_run(pool, VEC_DEVICES, in_place_call, r); /* result NULL: the publish pass receives nothing */
    r->complete = true;
    transport_lockstep_pass(r->t, true);
    interp_pool_run(pool, VEC_DEVICES, in_place_call, r);
}

/* Every member's result is its part of one tensor per group, as defined. */
static void in_place_verify(InPlaceRun *r)
{
    const InPlaceCase c = *r->c;
    int64_t count = in_place_send_count(&c);
    int64_t part = c.kind == IP_SCATTER ? count / c.group : c.kind == IP_GATHER ? count * c.group : count;
    for (int64_t d = 0; d < VEC_DEVICES; d++) {
        int64_t first = d / c.group * c.group, i = d - first, at = c.kind == IP_GATHER ? 0 : i * part;
        assert_int_equal(r->status[d], TRANSPORT_OK);
        assert_ptr_equal(r->result[d], r->result[first]); /* one tensor per group */
        for (int64_t e = 0; e < part; e++) {
            float got = ((float *)r->result[d]->data)[at + e], want = in_place_want(&c, r, first, i, e);
            assert_memory_equal(&got, &want, sizeof got);
        }
    }
}

static void release_results(InPlaceRun *r)
{
    for (int d = 0; d < VEC_DEVICES; d++) {
        tensor_release(r->result[d]);
        r->result[d] = NULL;
    }
}

static void check_in_place(InPlaceCase c, InterpPool *pool)
{
    InPlaceRun r = {&c, NULL, false, {0}, {0}, {0}};
    in_place_begin(&r);
    in_place_op(&r, pool);
    r.t->ops->destroy(r.t); /* the results outlive the transport */
    in_place_verify(&r);
    release_results(&r);
    for (int d = 0; d < VEC_DEVICES; d++)
        tensor_release(r.send[d]);
}

/* A group's result tensor is reused by the group's next call only once
 * every member has let go of it: while a member holds it, the next call
 * writes a new one and the held one keeps its values. */
static void test_lockstep_result_reuse(void **state)
{
    (void)state;
    InPlaceCase c = {IP_EXCHANGE, 4, 3, 5000, 5, 3000};
    InPlaceRun r = {&c, NULL, false, {0}, {0}, {0}};
    InterpPool *pool = interp_pool_new(VEC_POOL_THREADS);
    in_place_begin(&r);
    in_place_op(&r, pool);
    Tensor *held = tensor_retain(r.result[0]);
    release_results(&r);
    in_place_op(&r, pool); /* held: a new tensor */
    assert_ptr_not_equal(r.result[0], held);
    in_place_verify(&r);
    Tensor *second = r.result[0]; /* alive: the transport holds it */
    for (int d = 0; d < 4; d++) {
        tensor_release(r.result[d]);
        r.result[d] = tensor_retain(held);
    }
    in_place_verify(&r); /* held keeps the first call's values (the second's too) */
    tensor_release(held);
    release_results(&r);
    in_place_op(&r, pool); /* nobody holds either: the group's last one is reused */
    assert_ptr_equal(r.result[0], second);
    in_place_verify(&r);
    r.t->ops->destroy(r.t);
    release_results(&r);
    for (int d = 0; d < VEC_DEVICES; d++)
        tensor_release(r.send[d]);
    interp_pool_free(pool);
}

static void test_lockstep_in_place_collectives(void **state)
{
    (void)state;
    InterpPool *pool = interp_pool_new(VEC_POOL_THREADS);
    for (int kind = IP_GATHER; kind <= IP_EXCHANGE; kind++) {
        check_in_place((InPlaceCase){kind, 4, 3, 5000, 5, 3000}, pool);  /* two pieces per block */
        check_in_place((InPlaceCase){kind, 8, 1, 7, 7, 1}, pool);       /* one-element runs */
        check_in_place((InPlaceCase){kind, 2, 6, 4, 2, 12}, pool);
    }
    interp_pool_free(pool);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_seed_psum),
        T(test_seed_all_gather_tiled),
        T(test_seed_all_gather_stacked),
        T(test_seed_psum_scatter),
        T(test_seed_ppermute_ring),
        T(test_seed_all_to_all),
        T(test_ppermute_non_destination_gets_zeros),
        T(test_all_to_all_untiled),
        T(test_all_to_all_tiled_moves_dims),
        T(test_all_gather_untiled_inner_axis),
        T(test_all_gather_tiled_inner_axis),
        T(test_reductions_over_two_axes),
        T(test_pmin_pmean),
        T(test_psum_one_axis_of_two),
        T(test_axis_index_order),
        T(test_sub_axis_collectives),
        T(test_device_ids_order),
        T(test_all_slice),
        T(test_all_reduce_kinds),
        T(test_reduce_scatter),
        T(test_collective_permute_transpose),
        T(test_collective_permute_fan_out),
        cmocka_unit_test(test_cost_definition),
        T(test_traffic_counts),
        T(test_collective_outside_shard_map),
        T(test_device_failure_reported),
        cmocka_unit_test(test_transport_allreduce_identical),
        cmocka_unit_test(test_transport_abort),
        cmocka_unit_test(test_transport_sendrecv_mismatch),
        cmocka_unit_test(test_transport_allreduce_bit_identical),
        cmocka_unit_test(test_transport_reduce_scatter_bit_identical),
        cmocka_unit_test(test_lockstep_allreduce_bit_identical),
        cmocka_unit_test(test_lockstep_in_place_collectives),
        cmocka_unit_test(test_lockstep_result_reuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
