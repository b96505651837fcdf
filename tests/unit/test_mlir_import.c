/* The MLIR importer's side of the IR that .shir cannot show: what it keeps
 * on Op/Func/Module.mlir for the printer (kept attributes as written, the
 * MLIR op name of a dot, the init of a reduce and the padding value of a
 * pad, visibility, argument and result attributes, the module's name and
 * attributes) and what it leaves NULL. The mappings themselves are golden
 * tests (tests/mlir/). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "support.h"
#include <string.h>
#include "mlir/mlir_extra.h"
#include "mlir/mlir_import.h"
#include "mlir/mlir_parse_ctx.h"
#include "shardc/print.h"
#include "shardc/mlir.h"

typedef struct Fixture {
    CapturedDiag cap;
    Module *m;
    char *text;
} Fixture;

static int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    captured_diag_init(&f->cap);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    module_free(f->m);
    free(f->text);
    captured_diag_free(&f->cap);
    free(f);
    return 0;
}

static Module *read_ok(Fixture *f, const char *text)
{
    f->text = strdup(text);
    diag_add_source(&f->cap.diag, "mem.mlir", f->text, strlen(f->text));
    f->m = mlir_read_module("mem.mlir", f->text, strlen(f->text), &f->cap.diag);
    if (!f->m)
        fail_msg("unexpected diagnostics:\n%s", captured_diag_text(&f->cap));
    return f->m;
}

/* The op defining the value named `name` in f's body. */
static const Op *op_named(const Func *f, const char *name)
{
    for (const Op *op = f->body->first; op; op = op->next)
        for (int i = 0; i < op->num_results; i++)
            if (strcmp(op->results[i]->name, name) == 0)
                return op;
    fail_msg("no op defines %%%s", name);
    return NULL;
}

static const char *kept(const MlirKeptAttrs *attrs, const char *name)
{
    for (int i = 0; i < attrs->count; i++)
        if (strcmp(attrs->items[i].name, name) == 0)
            return attrs->items[i].text ? attrs->items[i].text : "(unit)";
    return NULL;
}

static const char module_text[] =
    "module @jit_f attributes {mhlo.num_partitions = 2 : i32, jax.uses_shape_polymorphism = false} {\n"
    "  sdy.mesh @mesh = <[\"x\"=2]>\n"
    "  func.func public @main(%arg0: tensor<4x8xf32> {jax.buffer_donor = true, sdy.sharding = "
    "#sdy.sharding<@mesh, [{\"x\"}, {}]>},\n"
    "                         %arg1: tensor<8xf32> {mhlo.sharding = \"{replicated}\"})\n"
    "      -> (tensor<4xf32> {jax.result_info = \"result\"}) {\n"
    "    %0 = stablehlo.dot %arg0, %arg1, precision = [HIGHEST, HIGHEST] : (tensor<4x8xf32>, tensor<8xf32>) -> "
    "tensor<4xf32>\n"
    "    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
    "    %1 = stablehlo.pad %0, %cst, low = [0], high = [4], interior = [0] : (tensor<4xf32>, tensor<f32>) -> "
    "tensor<8xf32>\n"
    "    %2 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : "
    "(tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>\n"
    "    %3 = stablehlo.compare GT, %2, %0, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>\n"
    "    %4 = stablehlo.select %3, %2, %0 {mhlo.frontend_attributes = {_xla_x = \"1\"}} : tensor<4xi1>, "
    "tensor<4xf32>\n"
    "    %5 = call @helper(%4) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "    return %5 : tensor<4xf32>\n"
    "  }\n"
    "  func.func private @helper(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
    "    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = \"\", mhlo.sharding = "
    "\"{devices=[2]<=[2]}\"} : (tensor<4xf32>) -> tensor<4xf32>\n"
    "    return %0 : tensor<4xf32>\n"
    "  }\n"
    "}\n";

static void test_module_and_funcs(void **state)
{
    Module *m = read_ok(*state, module_text);
    assert_non_null(m->mlir);
    assert_string_equal(m->mlir->module_name, "jit_f");
    assert_int_equal(m->mlir->attrs.count, 2);
    assert_string_equal(kept(&m->mlir->attrs, "mhlo.num_partitions"), "2 : i32");
    assert_string_equal(kept(&m->mlir->attrs, "jax.uses_shape_polymorphism"), "false");
    const Func *main_fn = m->funcs[0], *helper = m->funcs[1];
    assert_null(main_fn->mlir->visibility);
    assert_string_equal(helper->mlir->visibility, "private");
    assert_int_equal(main_fn->mlir->num_args, 2);
    /* sdy.sharding is the value's; the rest is kept */
    assert_int_equal(main_fn->mlir->arg_attrs[0].count, 1);
    assert_string_equal(kept(&main_fn->mlir->arg_attrs[0], "jax.buffer_donor"), "true");
    assert_non_null(main_fn->body->args[0]->sharding);
    /* {replicated} with a mesh in the module: read as a sharding, not kept */
    assert_int_equal(main_fn->mlir->arg_attrs[1].count, 0);
    assert_non_null(main_fn->body->args[1]->sharding);
    assert_int_equal(main_fn->mlir->num_results, 1);
    assert_string_equal(kept(&main_fn->mlir->result_attrs[0], "jax.result_info"), "\"result\"");
}

static void test_ops_keep(void **state)
{
    Module *m = read_ok(*state, module_text);
    const Func *f = m->funcs[0];
    const Op *dot = op_named(f, "0"), *pad = op_named(f, "1"), *reduce = op_named(f, "2");
    const Op *cmp = op_named(f, "3"), *sel = op_named(f, "4"), *call = op_named(f, "5"), *cst = op_named(f, "cst");
    assert_int_equal(dot->kind, OP_EINSUM);
    assert_string_equal(dot->str, "ab,b->a");
    assert_string_equal(dot->mlir->op_name, "stablehlo.dot");
    assert_string_equal(kept(&dot->mlir->attrs, "precision_config"), "[HIGHEST, HIGHEST]");
    assert_ptr_equal(pad->mlir->init, cst->results[0]);
    assert_ptr_equal(reduce->mlir->init, cst->results[0]);
    assert_int_equal(reduce->num_operands, 1);
    assert_string_equal(kept(&cmp->mlir->attrs, "compare_type"), "FLOAT");
    assert_non_null(kept(&sel->mlir->attrs, "mhlo.frontend_attributes"));
    assert_null(call->mlir); /* nothing to keep */
    assert_null(cst->mlir);
    assert_int_equal(dot->loc.line, 6);
    assert_int_equal(dot->loc.col, 5);
    const Op *constraint = m->funcs[1]->body->first;
    assert_int_equal(constraint->kind, OP_SHARDING_CONSTRAINT);
    assert_string_equal(constraint->mlir->op_name, "stablehlo.custom_call");
    assert_string_equal(kept(&constraint->mlir->attrs, "backend_config"), "\"\"");
    assert_null(kept(&constraint->mlir->attrs, "mhlo.sharding"));
    assert_non_null(constraint->results[0]->sharding);
}

/* Nothing of the AST stays referenced: the IR's strings and locations
 * live in the module (the reader frees the AST's arena). */
static void test_strings_owned(void **state)
{
    Fixture *f = *state;
    Module *m = read_ok(f, module_text);
    assert_ptr_equal(m->funcs[0]->loc.file, m->file);
    assert_ptr_equal(m->funcs[0]->body->first->loc.file, m->file);
    assert_string_equal(m->funcs[0]->body->args[0]->name, "arg0");
    assert_string_equal(m->meshes[0]->axes[0].name, "x");
}

/* With no mesh to put it on, {replicated} stays as written. */
static void test_replicated_without_mesh_kept(void **state)
{
    Module *m = read_ok(*state, "func.func @f(%arg0: tensor<4xf32> {mhlo.sharding = \"{replicated}\"}) -> "
                                "tensor<4xf32> {\n  return %arg0 : tensor<4xf32>\n}\n");
    assert_null(m->funcs[0]->body->args[0]->sharding);
    assert_string_equal(kept(&m->funcs[0]->mlir->arg_attrs[0], "mhlo.sharding"), "\"{replicated}\"");
    assert_int_equal(m->num_meshes, 0);
}

/* ---- read op by op, or whole (src/mlir/read.c) ---- */

static char *printed(Module *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    print_module(out, m);
    fclose(out);
    module_free(m);
    return text;
}

/* Ops whose operands are defined many ops before (the scalar constants a
 * reduce and a pad take in), across more than an arena chunk of AST. */
static char *long_module(void)
{
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len,
                            "sdy.mesh @m = <[\"x\"=2]>\n"
                            "func.func @main(%%a: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{\"x\"}, {}]>}) "
                            "-> tensor<10xf32> {\n"
                            "  %%zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
                            "  %%one = stablehlo.constant dense<1.000000e+00> : tensor<f32>\n"
                            "  %%v0 = stablehlo.abs %%a : tensor<8x4xf32>\n");
    for (int i = 1; i < 2000; i++)
        len += (size_t)snprintf(text + len, cap - len, "  %%v%d = stablehlo.add %%v%d, %%v%d : tensor<8x4xf32>\n",
                                i, i - 1, i / 2);
    snprintf(text + len, cap - len,
             "  %%r = stablehlo.reduce(%%v1999 init: %%zero) applies stablehlo.add across dimensions = [1] : "
             "(tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>\n"
             "  %%p = stablehlo.pad %%r, %%one, low = [1], high = [1], interior = [0] : (tensor<8xf32>, tensor<f32>) "
             "-> tensor<10xf32>\n"
             "  return %%p : tensor<10xf32>\n}\n#loc1 = loc(\"x.py\":1:2)\n");
    return text;
}

/* Read op by op, a module is the module read whole. */
static void test_streamed_as_whole(void **state)
{
    Fixture *f = *state;
    const char *texts[] = {module_text, NULL};
    char *long_text = long_module();
    texts[1] = long_text;
    for (int i = 0; i < 2; i++) {
        Module *streamed = mlir_read_streamed("mem.mlir", texts[i], strlen(texts[i]));
        assert_non_null(streamed);
        assert_int_equal(streamed->mlir->loc_aliases.count, i);
        Module *whole = mlir_read_whole("mem.mlir", texts[i], strlen(texts[i]), NULL, &f->cap.diag);
        assert_non_null(whole);
        char *a = printed(streamed), *b = printed(whole);
        assert_string_equal(a, b);
        free(a);
        free(b);
    }
    assert_non_null(strstr(long_text, "pad"));
    free(long_text);
}

/* A module of ops with what the scanner reads whole (a sharding dict, an
 * int array, a signature, a type ending the line), after a comment of
 * `pad` bytes, longer than a block of the scanner's input. */
static char *blocks_module(int pad)
{
    size_t cap = 2 * MLIR_LEX_BLOCK + 4096, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "//%*s\nsdy.mesh @m = <[\"x\"=2]>\n"
                            "func.func @main(%%a: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@m, [{\"x\"}, {}]>}) "
                            "-> tensor<4x4xf32> {\n  %%v0 = stablehlo.abs %%a : tensor<4x4xf32>\n", pad, "");
    int i = 1;
    for (; len - (size_t)pad < MLIR_LEX_BLOCK + 1024; i += 2)
        len += (size_t)snprintf(text + len, cap - len,
                                "  %%v%d = stablehlo.transpose %%v%d, dims = [1, 0] {sdy.sharding = "
                                "#sdy.sharding_per_value<[<@m, [{}, {\"x\"}]>]>} : (tensor<4x4xf32>) -> "
                                "tensor<4x4xf32>\n  %%v%d = stablehlo.add %%v%d, %%a : tensor<4x4xf32>\n",
                                i, i - 1, i + 1, i);
    snprintf(text + len, cap - len, "  return %%v%d : tensor<4x4xf32>\n}\n", i - 1);
    return text;
}

/* The scanner reads its input a block at a time: wherever a block ends
 * (here at each byte of one line of ops), even inside what it reads
 * whole, the module read is the same. */
static void test_block_boundaries(void **state)
{
    Fixture *f = *state;
    char *first = NULL;
    for (int pad = 0; pad < 200; pad++) {
        char *text = blocks_module(pad);
        Module *m = mlir_read_module("mem.mlir", text, strlen(text), &f->cap.diag);
        assert_non_null(m);
        char *out = printed(m);
        if (first)
            assert_string_equal(out, first);
        free(first == NULL ? NULL : out);
        first = first ? first : out;
        free(text);
    }
    assert_int_equal(f->cap.diag.errors, 0);
    free(first);
}

/* What needs the whole module first, and errors, are not read op by op;
 * mlir_read_module reads them whole. */
static void test_stream_falls_back(void **state)
{
    Fixture *f = *state;
    static const char *const texts[] = {
        /* a mesh after the function naming it */
        "func.func @f(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{\"x\"}]>}) -> tensor<8xf32> {\n"
        "  return %a : tensor<8xf32>\n}\nsdy.mesh @m = <[\"x\"=2]>\n",
        /* a tiled GSPMD string with no mesh: the mesh is made from all of them */
        "func.func @f(%a: tensor<8xf32> {mhlo.sharding = \"{devices=[2]0,1}\"}) -> tensor<8xf32> {\n"
        "  return %a : tensor<8xf32>\n}\n",
        /* an error: reported by the whole module's read */
        "func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {\n  return %b : tensor<8xf32>\n}\n",
    };
    for (int i = 0; i < 3; i++) {
        assert_null(mlir_read_streamed("mem.mlir", texts[i], strlen(texts[i])));
        Module *m = mlir_read_module("mem.mlir", texts[i], strlen(texts[i]), &f->cap.diag);
        assert_int_equal(m != NULL, i < 2);
        assert_int_equal(f->cap.diag.errors, i < 2 ? 0 : 1);
        module_free(m);
    }
    assert_non_null(strstr(captured_diag_text(&f->cap), "mem.mlir:2:10: error: use of undefined value '%b'"));
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_module_and_funcs),
        T(test_ops_keep),
        T(test_strings_owned),
        T(test_replicated_without_mesh_kept),
        T(test_streamed_as_whole),
        T(test_stream_falls_back),
        T(test_block_boundaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
