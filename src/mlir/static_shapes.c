/* Where dynamic dims and unranked tensors may be (docs/mlir.md "What is
 * read"). The reader reads them (import.c), so that Shardy's verifier
 * messages about them and `shardc opt`'s printing of them hold, but no
 * stage past the reader computes with their dims: reading for compile and
 * run refuses every such value (mlir_read_module_with), and `shardc opt`
 * lets them through its passes only as function arguments and results
 * that no op uses, which verification, the size census and propagation
 * skip as Shardy's propagation skips them. The first value found out of
 * place is reported at its definition, by name. */
#include <stdio.h>
#include "mlir/mlir_extra.h"
#include "mlir/print_internal.h"
#include "shardc/mlir.h"

typedef struct ShapeGate {
    MlirShapeScope scope;
    const char *what;       /* what takes static shapes only */
    bool propagating;       /* op results get Shardy's propagation message */
    DiagEngine *diag;
} ShapeGate;

static bool is_function_arg(const Value *v)
{
    return !v->def && v->block && v->block->parent_func && !v->block->parent_op;
}

static const char *shape_kind(const TensorType *t)
{
    return t->rank == SHARDC_UNRANKED ? "unranked" : "dynamic";
}

static const char *scope_rule(const ShapeGate *g)
{
    return g->scope == MLIR_SHAPES_STATIC ? "static shapes only"
                                          : "dynamic and unranked values only as function arguments and results that "
                                            "no op uses";
}

/* `%name has the dynamic type tensor<?x4xf32>: WHAT takes static shapes
 * only`, at the value (subject: `%name`, or a function's result). */
static bool refuse_value(const ShapeGate *g, const char *subject, const TensorType *t, Loc loc)
{
    char text[128];
    type_mlir_text(text, sizeof text, t);
    diag_error(g->diag, loc, "%s has the %s type %s: %s takes %s (docs/mlir.md)", subject, shape_kind(t), text,
               g->what, scope_rule(g));
    return false;
}

static bool refuse_named(const ShapeGate *g, const Value *v)
{
    char subject[256];
    snprintf(subject, sizeof subject, "%%%s", v->name);
    return refuse_value(g, subject, &v->type, v->loc);
}

/* An op's operand or result in `shardc opt`, where only function
 * boundaries may be dynamic; under propagation a result is refused in
 * Shardy's words (its allValidShapes). */
static bool refuse_op_value(const ShapeGate *g, const Op *op, const Value *v, bool result)
{
    char text[128];
    type_mlir_text(text, sizeof text, &v->type);
    if (result && g->propagating)
        diag_error(g->diag, op->loc, "'%s' op Shardy propagation only supports ranked tensors with a static shape. "
                   "type: %s", mlir_op_name(op), text);
    else
        diag_error(g->diag, op->loc, "'%s' op %s %%%s has the %s type %s: %s takes %s (docs/mlir.md)",
                   mlir_op_name(op), result ? "result" : "operand", v->name, shape_kind(&v->type), text, g->what,
                   scope_rule(g));
    return false;
}

/* Block arguments; op results are check_op's. */
static bool check_value(Value *v, void *user)
{
    const ShapeGate *g = user;
    if (v->def || type_is_static(&v->type) || (g->scope == MLIR_SHAPES_BOUNDARY && is_function_arg(v)))
        return true;
    return refuse_named(g, v);
}

/* Under propagation the results first, as Shardy checks them; then the
 * operands (function arguments are refused where an op uses them). */
static bool check_op(Op *op, void *user)
{
    const ShapeGate *g = user;
    for (int i = 0; i < op->num_results; i++) {
        Value *v = op->results[i];
        if (type_is_static(&v->type))
            continue;
        if (g->scope == MLIR_SHAPES_BOUNDARY)
            return refuse_op_value(g, op, v, true);
        return refuse_named(g, v);
    }
    for (int i = 0; g->scope == MLIR_SHAPES_BOUNDARY && i < op->num_operands; i++)
        if (!type_is_static(&op->operands[i]->type))
            return refuse_op_value(g, op, op->operands[i], false);
    return true;
}

static bool check_results(const ShapeGate *g, const Func *f)
{
    for (int i = 0; g->scope == MLIR_SHAPES_STATIC && i < f->num_results; i++) {
        if (!type_is_static(&f->result_types[i])) {
            char subject[256];
            snprintf(subject, sizeof subject, "result %d of @%s", i, f->name);
            return refuse_value(g, subject, &f->result_types[i], f->result_locs ? f->result_locs[i] : f->loc);
        }
    }
    return true;
}

bool mlir_check_shapes(const Module *m, MlirShapeScope scope, const char *what, bool propagating, DiagEngine *diag)
{
    if (m->mlir && !m->mlir->dynamic_types) /* read from MLIR with none */
        return true;
    ShapeGate g = {scope, what, propagating, diag};
    IrWalker walker = {.value = check_value, .pre = check_op, .user = &g};
    for (int i = 0; i < m->num_funcs; i++)
        if (!ir_walk(m->funcs[i]->body, &walker) || !check_results(&g, m->funcs[i]))
            return false;
    return true;
}
