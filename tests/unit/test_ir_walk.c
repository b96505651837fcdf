/* ir_walk: the order of its callbacks, the regions each scope enters,
 * stopping early, and ops removed or inserted while walking. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "support.h"
#include <stdio.h>
#include <string.h>
#include "shardc/parse.h"

static const char program[] =
    "mesh @m = <\"x\"=2>\n"
    "func @f(%a: f32[4]) -> f32[4] {\n"
    "  %b = neg %a : f32[4]\n"
    "  %s = shard_map %b {mesh = @m, in_specs = [<@m, [{\"x\"}]>], out_specs = [<@m, [{\"x\"}]>]}\n"
    "      (%l: f32[2]) {\n"
    "    %n = exp %l : f32[2]\n"
    "    return %n\n"
    "  } : f32[4]\n"
    "  %c = abs %s : f32[4]\n"
    "  return %c\n"
    "}\n"
    "func @g(%z: f32[4]) -> f32[4] {\n"
    "  %y = neg %z : f32[4]\n"
    "  return %y\n"
    "}\n";

/* What the callbacks saw, as "pre:b value:b ..." (ops by their result). */
typedef struct Trace {
    char text[1024];
    const char *stop_at;    /* pre of this op returns false */
    Module *m;
} Trace;

static void note(Trace *t, const char *what, const char *name)
{
    size_t n = strlen(t->text);
    snprintf(t->text + n, sizeof t->text - n, "%s%s:%s", n ? " " : "", what, name);
}

static const char *block_name(const Block *b) { return b->parent_op ? "region" : b->parent_func->name; }

static bool on_enter(Block *b, void *user)
{
    note(user, "enter", block_name(b));
    return true;
}

static bool on_value(Value *v, void *user)
{
    note(user, "value", v->name);
    return true;
}

static bool on_pre(Op *op, void *user)
{
    Trace *t = user;
    note(t, "pre", op->results[0]->name);
    return !t->stop_at || strcmp(t->stop_at, op->results[0]->name) != 0;
}

static bool on_post(Op *op, void *user)
{
    note(user, "post", op->results[0]->name);
    return true;
}

static bool on_leave(Block *b, void *user)
{
    note(user, "leave", block_name(b));
    return true;
}

static Module *parse(CapturedDiag *cap)
{
    captured_diag_init(cap);
    Module *m = parse_module("mem.shir", program, strlen(program), &cap->diag);
    assert_non_null(m);
    assert_string_equal(captured_diag_text(cap), "");
    return m;
}

static Trace walk(IrWalkScope scope, const char *stop_at, bool *finished)
{
    CapturedDiag cap;
    Trace t = {.stop_at = stop_at};
    t.m = parse(&cap);
    IrWalker w = {on_enter, on_value, on_pre, on_post, on_leave, &t, scope};
    *finished = ir_walk_module(t.m, &w);
    module_free(t.m);
    captured_diag_free(&cap);
    return t;
}

static void test_order(void **state)
{
    bool finished;
    Trace t = walk(IR_WALK_ALL, NULL, &finished);
    assert_true(finished);
    assert_string_equal(t.text, "enter:f value:a pre:b value:b post:b pre:s value:s enter:region value:l "
                        "pre:n value:n post:n leave:region post:s pre:c value:c post:c leave:f "
                        "enter:g value:z pre:y value:y post:y leave:g");
}

static void test_scopes(void **state)
{
    bool finished;
    const char *shallow = "enter:f value:a pre:b value:b post:b pre:s value:s post:s pre:c value:c post:c "
                          "leave:f enter:g value:z pre:y value:y post:y leave:g";
    assert_string_equal(walk(IR_WALK_GLOBAL, NULL, &finished).text, shallow);
    assert_string_equal(walk(IR_WALK_BLOCK, NULL, &finished).text, shallow);
}

static void test_early_stop(void **state)
{
    bool finished;
    Trace t = walk(IR_WALK_ALL, "n", &finished);
    assert_false(finished);
    assert_string_equal(t.text, "enter:f value:a pre:b value:b post:b pre:s value:s enter:region value:l pre:n");
    t = walk(IR_WALK_ALL, "c", &finished);
    assert_false(finished);
    assert_string_equal(t.text + strlen(t.text) - 5, "pre:c");
}

/* Removes every op but abs, and inserts a copy of each op after it. */
static bool remove_and_insert(Op *op, void *user)
{
    Trace *t = user;
    note(t, "pre", op->results[0]->name);
    Op *copy = op_new(t->m, OP_NEG, op->loc);
    copy->num_results = 1;
    copy->results = op->results;
    block_insert_before(op->parent, op->next, copy);
    if (op->kind != OP_ABS)
        block_remove(op->parent, op);
    return true;
}

static void test_removal(void **state)
{
    CapturedDiag cap;
    Trace t = {0};
    t.m = parse(&cap);
    Func *f = module_find_func(t.m, "f");
    IrWalker w = {.pre = remove_and_insert, .post = on_post, .user = &t};
    assert_true(ir_walk(f->body, &w));
    /* The removed shard_map's body is not entered; the copies are not visited. */
    assert_string_equal(t.text, "pre:b pre:s pre:c post:c");
    int ops = 0;
    for (const Op *op = f->body->first; op; op = op->next)
        ops++;
    assert_int_equal(ops, 4);
    assert_int_equal(f->body->first->kind, OP_NEG);
    assert_int_equal(f->body->last->kind, OP_NEG);
    module_free(t.m);
    captured_diag_free(&cap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_scopes),
        cmocka_unit_test(test_early_stop),
        cmocka_unit_test(test_removal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
