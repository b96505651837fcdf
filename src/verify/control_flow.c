/* Verifier rules for control flow: while, case and optimization_barrier.
 * Carried values keep their type through a loop (StableHLO's while), each
 * branch of a case returns the case's result types, and a barrier is the
 * identity on its operands. */
#include "shardc/verify.h"

/* `got` (what a region holds at `loc`) must have type `want`. */
static bool expect_type_at(VerifyCtx *vc, Loc loc, const char *what, int i, const TensorType *want,
                           const Value *got, const char *whose)
{
    if (type_equal(want, &got->type))
        return true;
    char w[256], g[256];
    verify_format_type(w, sizeof w, want);
    verify_format_type(g, sizeof g, &got->type);
    diag_error(vc->diag, loc, "%s %d (%%%s) has type %s, but %s is %s", what, i, got->name, g, whose, w);
    return false;
}

/* A region's arguments: one per carried value, of the carried types. */
static bool check_region_args(VerifyCtx *vc, const Op *op, const Block *b, const char *label)
{
    if (b->num_args != op->num_operands) {
        diag_error(vc->diag, op->loc, "'while' carries %d value%s but its %s region takes %d argument%s",
                   op->num_operands, op->num_operands == 1 ? "" : "s", label, b->num_args,
                   b->num_args == 1 ? "" : "s");
        return false;
    }
    bool ok = true;
    for (int i = 0; i < b->num_args; i++)
        ok &= expect_type_at(vc, b->args[i]->loc, "argument", i, &op->operands[i]->type, b->args[i],
                             "the carried value");
    return ok;
}

static void check_cond_return(VerifyCtx *vc, const Block *cond)
{
    if (cond->num_returns != 1) {
        diag_error(vc->diag, cond->return_loc, "a 'while' cond region returns one bool[] value, not %d",
                   cond->num_returns);
        return;
    }
    const TensorType *t = &cond->returns[0]->type;
    if (t->rank != 0 || t->dtype != DT_BOOL) {
        char g[256];
        verify_format_type(g, sizeof g, t);
        diag_error(vc->diag, cond->return_loc, "a 'while' cond region returns a scalar bool[], but %%%s is %s",
                   cond->returns[0]->name, g);
    }
}

/* A block's returns against the types of `want` (values of one count). */
static void check_returns(VerifyCtx *vc, const Op *op, const Block *b, Value *const *want, int count,
                          const char *what)
{
    if (b->num_returns != count) {
        diag_error(vc->diag, b->return_loc, "%s returns %d value%s but '%s' has %d", what, b->num_returns,
                   b->num_returns == 1 ? "" : "s", op_info(op->kind)->name, count);
        return;
    }
    for (int i = 0; i < count; i++)
        expect_type_at(vc, b->return_loc, "returned value", i, &want[i]->type, b->returns[i],
                       op->kind == OP_WHILE ? "the carried value" : "the result");
}

void verify_while(VerifyCtx *vc, Op *op)
{
    if (op->num_regions != 2)
        return; /* the builder reported it */
    if (op->num_results != op->num_operands) {
        diag_error(vc->diag, op->loc, "'while' carries %d value%s but has %d result%s", op->num_operands,
                   op->num_operands == 1 ? "" : "s", op->num_results, op->num_results == 1 ? "" : "s");
        return;
    }
    for (int i = 0; i < op->num_results; i++)
        verify_expect_type(vc, op, &op->operands[i]->type, op->results[i]);
    if (check_region_args(vc, op, op->regions[0], "cond"))
        check_cond_return(vc, op->regions[0]);
    if (check_region_args(vc, op, op->regions[1], "do"))
        check_returns(vc, op, op->regions[1], op->operands, op->num_operands, "the body region");
}

void verify_case(VerifyCtx *vc, Op *op)
{
    /* A bool index (stablehlo.if) picks branch 0 for false, 1 for true. */
    const TensorType *t = &op->operands[0]->type;
    if (t->rank == 0 && t->dtype == DT_BOOL && op->num_regions != 2) {
        diag_error(vc->diag, op->loc, "a 'case' on a bool[] index has two branches (false, then true), not %d",
                   op->num_regions);
    } else if (t->rank != 0 || (t->dtype != DT_I32 && t->dtype != DT_BOOL)) {
        char g[256];
        verify_format_type(g, sizeof g, t);
        diag_error(vc->diag, op->loc, "the index of 'case' is a scalar i32[] (or bool[]), but %%%s is %s",
                   op->operands[0]->name, g);
    }
    for (int k = 0; k < op->num_regions; k++) {
        const Block *b = op->regions[k];
        if (b->num_args) {
            diag_error(vc->diag, b->args[0]->loc, "a 'case' branch takes no arguments (it sees the enclosing "
                       "values)");
            continue;
        }
        check_returns(vc, op, b, op->results, op->num_results, "the branch");
    }
}

void verify_optimization_barrier(VerifyCtx *vc, Op *op)
{
    if (op->num_results != op->num_operands) {
        diag_error(vc->diag, op->loc, "'optimization_barrier' has %d operand%s but %d result%s", op->num_operands,
                   op->num_operands == 1 ? "" : "s", op->num_results, op->num_results == 1 ? "" : "s");
        return;
    }
    for (int i = 0; i < op->num_results; i++)
        verify_expect_type(vc, op, &op->operands[i]->type, op->results[i]);
}

/* A named computation is a call written in place: its body takes the
 * operands' types and returns the result types. */
void verify_named_computation(VerifyCtx *vc, Op *op)
{
    const Block *b = op->num_regions == 1 ? op->regions[0] : NULL;
    if (!b) {
        diag_error(vc->diag, op->loc, "'named_computation' needs one body region");
        return;
    }
    if (b->num_args != op->num_operands) {
        diag_error(vc->diag, op->loc, "'named_computation' has %d operand%s but its body takes %d argument%s",
                   op->num_operands, op->num_operands == 1 ? "" : "s", b->num_args, b->num_args == 1 ? "" : "s");
        return;
    }
    for (int i = 0; i < b->num_args; i++)
        expect_type_at(vc, b->args[i]->loc, "argument", i, &op->operands[i]->type, b->args[i], "the operand");
    check_returns(vc, op, b, op->results, op->num_results, "the body");
}

void verify_after_all(VerifyCtx *vc, Op *op)
{
    for (int i = 0; i < op->num_operands; i++)
        if (op->operands[i]->type.dtype != DT_TOKEN)
            diag_error(vc->diag, op->loc, "'after_all' takes tokens, but operand %d (%%%s) is not a token[]", i,
                       op->operands[i]->name);
    if (op->results[0]->type.dtype != DT_TOKEN)
        diag_error(vc->diag, op->loc, "'after_all' returns a token[]");
}
