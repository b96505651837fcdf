/* Shardy's -sdy-populate-op-sharding-rules (populate_op_sharding_rules.cc,
 * getOrCreateShardingRule): every op the registry has a rule for gets it
 * as its sdy.sharding_rule attribute, and an op that already has one keeps
 * it. The rule is shardc's registry rule (rules_of_op), spelled over the
 * op's StableHLO operands: a reduction's init and a pad's value, which
 * shardc folds into the op, are scalar operands there (`[]` in the rule).
 * The attribute is kept on the op (Op.mlir) as if read, so the printer
 * writes it where MLIR sorts it. */
#include <stdlib.h>
#include <string.h>
#include "mlir/mlir_extra.h"
#include "shardc/mlir.h"
#include "shardc/rules.h"

typedef struct Populate {
    Module *m;
    DiagEngine *diag;
    bool conservative;
    bool *warned;       /* the unknown-custom-call warning was given (Shardy gives it once) */
} Populate;

static const char RULE_ATTR[] = "sdy.sharding_rule";

static bool has_rule(const Op *op)
{
    for (int i = 0; op->mlir && i < op->mlir->attrs.count; i++)
        if (strcmp(op->mlir->attrs.items[i].name, RULE_ATTR) == 0)
            return true;
    return op->kind == OP_CUSTOM && op_attr_get(op, ATTR_KEY_RULE);
}

/* The ops Shardy's registry leaves without a rule that shardc's gives one:
 * constants and iotas (Shardy's propagation does not need them) and
 * sdy.reshard, which it handles outside the registry. */
static bool shardy_has_none(const Op *op)
{
    switch (op->kind) {
    case OP_CONSTANT: case OP_IOTA: case OP_ZEROS: case OP_FULL: case OP_RESHARD: return true;
    default: return false;
    }
}

/* StableHLO operands shardc folds into the op: a reduction's init (one
 * per input), a pad's padding value when a constant. */
static int folded_scalars(const Op *op)
{
    switch (op->kind) {
    case OP_REDUCE_SUM: case OP_REDUCE_MAX: case OP_REDUCE_MIN:
    case OP_REDUCE_WINDOW: return op->num_operands == op->num_results ? op->num_results : 0;
    case OP_SELECT_AND_SCATTER: return op->num_operands == 2; /* else its init is an operand */
    case OP_PAD: return op->num_operands == 1; /* else its value is an operand */
    default: return 0;
    }
}

static OpShardingRule *with_scalar_operands(Arena *arena, const OpShardingRule *rule, int extra)
{
    OpShardingRule *out = arena_memdup(arena, rule, 1, sizeof *rule);
    TensorFactors *operands = ARENA_ARRAY(arena, TensorFactors, rule->num_operands + extra + 1);
    if (rule->num_operands)
        memcpy(operands, rule->operands, sizeof *operands * (size_t)rule->num_operands);
    out->operands = operands; /* the extra ones zeroed: rank 0 */
    out->num_operands += extra;
    return out;
}

/* Custom-call targets Shardy's registry knows to have no rule: no warning. */
static bool silent_target(const char *target)
{
    static const char *const targets[] = {"sdy_testonly", "tpu_custom_call", "xla_python_cpu_callback",
                                          "xla_python_gpu_callback", "xla_ffi_python_cpu_callback",
                                          "xla_ffi_python_gpu_callback", "xla.debug.Log"};
    for (size_t i = 0; i < sizeof targets / sizeof *targets; i++)
        if (strcmp(target, targets[i]) == 0)
            return true;
    return false;
}

/* Only a custom_call is one: a custom op read from another op (send,
 * recv, an unregistered dialect's) has its op name kept. */
static void warn_unknown(Populate *p, const Op *op)
{
    if (op->kind != OP_CUSTOM || !op->callee || silent_target(op->callee) || *p->warned ||
        (op->mlir && op->mlir->op_name))
        return;
    *p->warned = true;
    diag_warning(p->diag, op->loc, "custom call @%s is unknown to SDY sharding rule registry", op->callee);
}

/* The rule's text kept as the op's attribute (a copy of Op.mlir with one
 * more kept attribute). */
static void keep_rule(Module *m, Op *op, const OpShardingRule *rule)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    rule_print_sdy(f, rule);
    fclose(f);
    struct MlirExtra *x = ARENA_NEW(&m->arena, struct MlirExtra);
    if (op->mlir)
        *x = *op->mlir;
    MlirKeptAttr *attrs = ARENA_ARRAY(&m->arena, MlirKeptAttr, x->attrs.count + 1);
    if (x->attrs.count)
        memcpy(attrs, x->attrs.items, sizeof *attrs * (size_t)x->attrs.count);
    attrs[x->attrs.count] = (MlirKeptAttr){RULE_ATTR, arena_strdup(&m->arena, text)};
    x->attrs = (MlirKeptAttrs){x->attrs.count + 1, attrs};
    op->mlir = x;
    free(text);
}

static bool populate_op(Op *op, void *user)
{
    Populate *p = user;
    if (has_rule(op) || shardy_has_none(op))
        return true;
    OpShardingRule *rule = rules_of_op_conservative(&p->m->arena, p->diag, op, p->conservative);
    if (!rule) {
        warn_unknown(p, op);
        return true;
    }
    keep_rule(p->m, op, folded_scalars(op) ? with_scalar_operands(&p->m->arena, rule, folded_scalars(op)) : rule);
    return true;
}

void mlir_populate_op_sharding_rules(Module *m, bool conservative, DiagEngine *diag, bool *warned)
{
    Populate p = {m, diag, conservative, warned};
    ir_walk_module(m, &(IrWalker){.pre = populate_op, .user = &p, .scope = IR_WALK_ALL});
}
