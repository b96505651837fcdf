/* The front end on in-memory text: parse_module, verify_module and
 * print_module. Round trips are fixpoints; values and ops get dense ids;
 * shardings resolve to axis indices and sub-axes; errors are counted in the
 * DiagEngine and written where it says. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "support.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/parse.h"
#include "shardc/print.h"
#include "shardc/verify.h"

typedef struct Fixture {
    CapturedDiag cap;
    Module *modules[4];
    char *texts[4];
    int count;
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
    for (int i = 0; i < f->count; i++) {
        module_free(f->modules[i]);
        free(f->texts[i]);
    }
    captured_diag_free(&f->cap);
    free(f);
    return 0;
}

static const char *diagnostics(Fixture *f)
{
    return captured_diag_text(&f->cap);
}

/* Parse a copy of text (it must outlive the diagnostics quoting it). */
static Module *parse(Fixture *f, const char *text)
{
    assert_true(f->count < 4);
    char *copy = strdup(text);
    diag_add_source(&f->cap.diag, "mem.shir", copy, strlen(copy));
    Module *m = parse_module("mem.shir", copy, strlen(copy), &f->cap.diag);
    f->texts[f->count] = copy;
    f->modules[f->count++] = m;
    return m;
}

/* Parse and verify; the module must be free of errors. */
static Module *parse_ok(Fixture *f, const char *text)
{
    Module *m = parse(f, text);
    if (!m || !verify_module(m, &f->cap.diag))
        fail_msg("unexpected diagnostics:\n%s", diagnostics(f));
    return m;
}

static char *print_to_string(const Module *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    print_module(out, m);
    fclose(out);
    return text;
}

static const char megatron[] =
    "mesh @mesh = <\"data\"=2, \"model\"=4>\n"
    "# Megatron MLP\n"
    "func @mlp(%x: f32[16,1024] {sharding = <@mesh, [{\"data\"}, {}]>},\n"
    "          %w1: f32[1024,4096] {sharding = <@mesh, [{}, {\"model\"}]>},\n"
    "          %w2: f32[4096,1024] {sharding = <@mesh, [{\"model\"}, {}]>}) -> f32[16,1024] {\n"
    "  %h = einsum \"bh,hf->bf\" %x, %w1 : f32[16,4096]\n"
    "  %a = gelu %h : f32[16,4096]\n"
    "  %y = einsum \"bf,fh->bh\" %a, %w2 : f32[16,1024]\n"
    "  return %y\n"
    "}\n";

static const char features[] =
    "mesh @m = <\"x\"=8, \"y\"=2 explicit, device_ids=[15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]>\n"
    "mesh @n = <\"z\"=2>\n"
    "func @f(%a: f32[8,4] {sharding = <@m, [{\"x\":(1)2, ?}p1, {\"x\":(4)2}], replicated={\"y\", \"x\":(2)2}>},\n"
    "        %s: f32[] {sharding = <@n, []>}) -> (f32[8,4] {sharding = <@m, []>}, f32[8,1]) {\n"
    "  %v, %i = top_k %a {k = 1, shardings = [<@m, [{\"x\"}, {}]>, <@m, [{?}, {?}]>]} : f32[8,1], i32[8,1]\n"
    "  %c = constant {value = [[1.5], [-2.0], [3.0], [inf], [nan], [0.0], [1e-07], [7]]} : f32[8,1]\n"
    "  %r = shard_map %a {mesh = @m, in_specs = [<@m, [{\"x\"}, {}]>], out_specs = [<@m, [{\"x\"}, {}]>],\n"
    "                     manual_axes = [\"x\"], check_vma = false} (%l: f32[1,4]) {\n"
    "    %p = psum %l {axes = [\"x\"]} : f32[1,4]\n"
    "    return %p\n"
    "  } : f32[8,4]\n"
    "  %w = call @g(%c) : f32[8,1]\n"
    "  return %r, %w\n"
    "}\n"
    "func @g(%q: f32[8,1]) -> f32[8,1] {\n"
    "  %z = neg %q {out_sharding = <@m, [{\"x\"}, {}]>} : f32[8,1]\n"
    "  return %z\n"
    "}\n";

/* print(parse(print(parse(text)))) == print(parse(text)) */
static void check_fixpoint(Fixture *f, const char *text)
{
    Module *m = parse_ok(f, text);
    char *first = print_to_string(m);
    Module *again = parse_ok(f, first);
    char *second = print_to_string(again);
    assert_string_equal(first, second);
    free(first);
    free(second);
}

static void test_round_trip_megatron(void **state) { check_fixpoint(*state, megatron); }
static void test_round_trip_features(void **state) { check_fixpoint(*state, features); }

static void test_canonical_print(void **state)
{
    Fixture *f = *state;
    Module *m = parse_ok(f, "func @f(%x: f32[4,8])->f32[8]{%s=reduce_sum %x{dims=[0]}:f32[8]\n"
                            "return %s}");
    char *text = print_to_string(m);
    assert_string_equal(text, "func @f(%x: f32[4,8]) -> f32[8] {\n"
                              "  %s = reduce_sum %x {dims = [0]} : f32[8]\n"
                              "  return %s\n"
                              "}\n");
    free(text);
}

static void test_empty_module(void **state)
{
    Fixture *f = *state;
    Module *m = parse_ok(f, "# nothing\n");
    assert_int_equal(m->num_funcs, 0);
    assert_int_equal(m->num_meshes, 0);
    char *text = print_to_string(m);
    assert_string_equal(text, "");
    free(text);
}

/* Values and ops are numbered densely in the order they are defined;
 * region values and ops share the module-wide numbering. */
static void test_ids(void **state)
{
    Fixture *f = *state;
    Module *m = parse_ok(f, megatron);
    const Func *fn = m->funcs[0];
    for (int i = 0; i < 3; i++)
        assert_int_equal(fn->body->args[i]->id, i);
    int op_id = 0, value_id = 3;
    for (const Op *op = fn->body->first; op; op = op->next) {
        assert_int_equal(op->id, op_id++);
        assert_int_equal(op->results[0]->id, value_id++);
        assert_ptr_equal(op->results[0]->def, op);
        assert_ptr_equal(op->parent, fn->body);
    }
    assert_int_equal(m->num_ops, 3);
    assert_int_equal(m->num_values, 6);
    assert_string_equal(fn->body->returns[0]->name, "y");
}

static void test_ops_and_operands(void **state)
{
    Fixture *f = *state;
    Module *m = parse_ok(f, megatron);
    const Op *h = m->funcs[0]->body->first;
    assert_int_equal(h->kind, OP_EINSUM);
    assert_string_equal(h->str, "bh,hf->bf");
    assert_int_equal(h->num_operands, 2);
    assert_ptr_equal(h->operands[0], m->funcs[0]->body->args[0]);
    assert_int_equal(h->loc.line, 6);
    assert_int_equal(h->loc.col, 8);
    const Op *a = h->next;
    assert_int_equal(a->kind, OP_GELU);
    assert_ptr_equal(a->operands[0], h->results[0]);
    assert_int_equal(a->results[0]->type.rank, 2);
    assert_int_equal(a->results[0]->type.dims[1], 4096);
}

/* An einsum's spec position lives out of line (OpAside): set only on the
 * ops that have one, shared by copies and copied, not changed, by setters. */
static void test_op_aside(void **state)
{
    Fixture *f = *state;
    Module *m = parse_ok(f, megatron);
    Op *h = m->funcs[0]->body->first;
    Op *gelu = h->next;
    assert_non_null(h->aside);
    assert_int_equal(op_str_loc(h).line, 6);
    assert_int_equal(op_str_loc(h).col, 15);
    assert_int_equal(op_callee_loc(h).line, 0);
    assert_null(gelu->aside); /* nothing to set: no aside made */
    op_set_str_loc(&m->arena, gelu, (Loc){0});
    assert_null(gelu->aside);
    Op copy = *h; /* shares the aside, as op_clone's copies do */
    op_set_callee_loc(&m->arena, &copy, (Loc){"mem.shir", 9, 2});
    assert_ptr_not_equal(copy.aside, h->aside);
    assert_int_equal(op_callee_loc(&copy).line, 9);
    assert_int_equal(op_str_loc(&copy).col, 15);
    assert_int_equal(op_callee_loc(h).line, 0);
}

/* Shardings resolve axis names to indices into the mesh's axes; whole axes
 * have pre-size 1 and the axis size; sub-axes keep theirs. */
static void test_sharding_resolution(void **state)
{
    Fixture *f = *state;
    Module *m = parse_ok(f, features);
    const Mesh *mesh = m->meshes[0];
    assert_int_equal(mesh->num_axes, 2);
    assert_int_equal(mesh->num_devices, 16);
    assert_false(mesh->axes[0].is_explicit);
    assert_true(mesh->axes[1].is_explicit);
    assert_int_equal(mesh->device_ids[0], 15);
    const Sharding *s = m->funcs[0]->body->args[0]->sharding;
    assert_ptr_equal(s->mesh, mesh);
    assert_int_equal(s->rank, 2);
    assert_false(s->dims[0].is_closed);
    assert_int_equal(s->dims[0].priority, 1);
    assert_int_equal(s->dims[0].num_axes, 1);
    assert_int_equal(s->dims[0].axes[0].axis, 0);
    assert_int_equal(s->dims[0].axes[0].pre_size, 1);
    assert_int_equal(s->dims[0].axes[0].size, 2);
    assert_true(s->dims[1].is_closed);
    assert_int_equal(s->dims[1].priority, PRIORITY_NONE);
    assert_int_equal(s->dims[1].axes[0].pre_size, 4);
    assert_false(axis_ref_is_full(mesh, s->dims[1].axes[0]));
    assert_int_equal(s->num_replicated, 2);
    assert_int_equal(s->replicated[0].axis, 1);
    assert_true(axis_ref_is_full(mesh, s->replicated[0]));
    assert_int_equal(s->replicated[1].pre_size, 2);
}

/* <@m, []> on a ranked value becomes one closed, empty dim per dim once
 * verified; on a scalar it stays rank 0. Multi-result shardings land on
 * each result. */
static void test_replicated_and_result_shardings(void **state)
{
    Fixture *f = *state;
    Module *m = parse_ok(f, features);
    const Func *fn = m->funcs[0];
    const Sharding *r = fn->result_shardings[0];
    assert_int_equal(r->rank, 2);
    assert_true(r->dims[0].is_closed && r->dims[1].is_closed);
    assert_int_equal(r->dims[0].num_axes + r->dims[1].num_axes, 0);
    assert_int_equal(fn->body->args[1]->sharding->rank, 0);
    assert_null(fn->result_shardings[1]);
    const Op *top_k = fn->body->first;
    assert_int_equal(top_k->results[0]->sharding->dims[0].num_axes, 1);
    assert_false(top_k->results[1]->sharding->dims[0].is_closed);
    assert_int_equal(top_k->num_attrs, 1); /* shardings are not attributes */
}

static void test_region(void **state)
{
    Fixture *f = *state;
    Module *m = parse_ok(f, features);
    const Op *sm = m->funcs[0]->body->first->next->next;
    assert_int_equal(sm->kind, OP_SHARD_MAP);
    assert_non_null(sm->region);
    assert_ptr_equal(sm->region->parent_op, sm);
    assert_int_equal(sm->region->num_args, 1);
    assert_string_equal(sm->region->args[0]->name, "l");
    assert_int_equal(sm->region->first->kind, OP_PSUM);
    assert_ptr_equal(sm->region->returns[0], sm->region->first->results[0]);
}

/* Syntax and name errors: parse_module returns NULL, every error is counted
 * and written to the engine's stream with its location. */
static void test_errors_counted(void **state)
{
    Fixture *f = *state;
    Module *m = parse(f, "func @f(%x: f32[4]) -> f32[4] {\n  %y = neg %nope : f32[4]\n  return %q\n}\n"
                         "func @g() {\n  %a = = neg\n  return\n}\n");
    assert_null(m);
    assert_int_equal(f->cap.diag.errors, 3);
    const char *out = diagnostics(f);
    assert_non_null(strstr(out, "mem.shir:2:12: error: use of undefined value '%nope'\n"));
    assert_non_null(strstr(out, "mem.shir:3:10: error: use of undefined value '%q'\n  return %q\n         ^\n"));
    assert_non_null(strstr(out, "mem.shir:6:8: error: syntax error, unexpected '='"));
}

static void test_verify_errors_counted(void **state)
{
    Fixture *f = *state;
    Module *m = parse(f, "func @f(%x: f32[4]) -> f32[4] {\n  %y = neg %x : f32[5]\n  return %x\n}\n");
    assert_non_null(m);
    assert_int_equal(f->cap.diag.errors, 0);
    assert_false(verify_module(m, &f->cap.diag));
    assert_int_equal(f->cap.diag.errors, 1);
    assert_non_null(strstr(diagnostics(f), "mem.shir:2:3: error: 'neg' result %y should have type f32[4]"));
}

/* Only len bytes are parsed: the text need not end there. */
static void test_length_respected(void **state)
{
    Fixture *f = *state;
    const char text[] = "func @f() {\n  return\n}\n!!! not parsed";
    Module *m = parse_module("mem.shir", text, strlen(text) - strlen("!!! not parsed"), &f->cap.diag);
    assert_non_null(m);
    assert_int_equal(f->cap.diag.errors, 0);
    module_free(m);
}

/* Hostile input ends with a diagnostic, not a crash. */
static void test_deep_nesting(void **state)
{
    Fixture *f = *state;
    size_t depth = 100000;
    char *text = malloc(2 * depth + 100);
    char *p = text + sprintf(text, "func @f() {\n  %%c = constant {value = ");
    memset(p, '[', depth);
    p += depth;
    memset(p, ']', depth);
    strcpy(p + depth, "} : f32[]\n  return\n}\n");
    Module *m = parse(f, text);
    free(text);
    assert_null(m);
    assert_int_equal(f->cap.diag.errors, 1);
    assert_non_null(strstr(diagnostics(f), "nesting is too deep"));
}

/* Many arguments cost linear memory (the argument array doubles), not one
 * fresh copy of the array per argument. */
static void test_many_arguments_linear_memory(void **state)
{
    Fixture *f = *state;
    enum { N = 20000 };
    char *text = malloc((size_t)N * 32 + 64), *p = text;
    p += sprintf(p, "func @f(");
    for (int i = 0; i < N; i++)
        p += sprintf(p, "%s%%a%d: f32[]", i ? ", " : "", i);
    strcpy(p, ") {\n  return\n}\n");
    Module *m = parse(f, text);
    free(text);
    assert_non_null(m);
    assert_int_equal(m->funcs[0]->body->num_args, N);
    assert_string_equal(m->funcs[0]->body->args[N - 1]->name, "a19999");
    assert_int_equal(m->funcs[0]->body->args[N - 1]->index, N - 1);
    assert_true(m->arena.bytes_allocated < (size_t)64 << 20);
}

/* flex takes an int length: a bigger text is refused before it is read. */
static void test_too_large(void **state)
{
    Fixture *f = *state;
    assert_null(parse_module("big.shir", "", (size_t)INT32_MAX + 1, &f->cap.diag));
    assert_int_equal(f->cap.diag.errors, 1);
    assert_non_null(strstr(diagnostics(f), "big.shir: error: the file is too large (2147483648 bytes"));
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

/* Values of one shape share its dims (the parse keeps one copy of each);
 * the names and the attribute names the IR keeps outlive the parse's
 * syntax arena (ASan: make check-asan). */
static void test_shapes_shared(void **state)
{
    Module *m = parse(*state, "func @f(%a: f32[4,8], %b: f32[4,8], %c: f32[8,4]) -> f32[4,8] {\n"
                              "  %s = add %a, %b : f32[4,8]\n"
                              "  %t = reduce_sum %s {dims = [1], my_note = 3} : f32[4]\n"
                              "  return %s\n"
                              "}\n");
    assert_non_null(m);
    Block *body = m->funcs[0]->body;
    Value *a = body->args[0], *b = body->args[1], *c = body->args[2];
    assert_ptr_equal(a->type.dims, b->type.dims);
    assert_ptr_equal(a->type.dims, body->first->results[0]->type.dims);
    assert_ptr_not_equal(a->type.dims, c->type.dims);
    assert_int_equal(c->type.dims[0], 8);
    assert_int_equal(c->type.dims[1], 4);
    assert_string_equal(b->name, "b");
    assert_string_equal(body->first->results[0]->name, "s");
    const Op *sum = body->first->next;
    assert_int_equal(sum->num_attrs, 2);
    assert_string_equal(sum->attrs[0].name, "dims");
    assert_int_equal(sum->attrs[0].key, ATTR_KEY_DIMS);
    assert_string_equal(sum->attrs[1].name, "my_note"); /* unknown: kept for the verifier's message */
    assert_int_equal(sum->attrs[1].key, ATTR_KEY_NONE);
}

/* module_intern_sharding: one copy per sharding (and loc), never the
 * argument itself; module_close_sharding closes every dim. */
static void test_shardings_interned(void **state)
{
    Module *m = parse_ok(*state, megatron);
    assert_non_null(m);
    const Sharding *written = m->funcs[0]->body->args[0]->sharding;
    Sharding *x = sharding_clone(&m->arena, written), *y = sharding_clone(&m->arena, written);
    Sharding *ix = module_intern_sharding(m, x);
    assert_ptr_not_equal(ix, x);
    assert_true(sharding_equal(ix, written));
    assert_ptr_equal(module_intern_sharding(m, y), ix);
    y->loc.line++; /* another place: another copy */
    assert_ptr_not_equal(module_intern_sharding(m, y), ix);
    y->loc = x->loc;
    y->dims[1].is_closed = !y->dims[1].is_closed;
    assert_ptr_not_equal(module_intern_sharding(m, y), ix);
    Sharding *open = sharding_new_open(&m->arena, written->mesh, 2);
    Sharding *closed = module_close_sharding(m, open, NULL, 0);
    assert_ptr_equal(module_close_sharding(m, NULL, written->mesh, 2), closed);
    for (int d = 0; d < 2; d++) {
        assert_true(closed->dims[d].is_closed);
        assert_int_equal(closed->dims[d].priority, PRIORITY_NONE);
    }
    assert_false(open->dims[0].is_closed); /* the argument is left as it was */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_shapes_shared), T(test_shardings_interned),
        T(test_round_trip_megatron), T(test_round_trip_features), T(test_canonical_print),
        T(test_empty_module), T(test_ids), T(test_ops_and_operands), T(test_op_aside), T(test_sharding_resolution),
        T(test_replicated_and_result_shardings), T(test_region), T(test_errors_counted),
        T(test_verify_errors_counted), T(test_length_respected), T(test_deep_nesting),
        T(test_many_arguments_linear_memory), T(test_too_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
