/* Constants as Shardy's import and export spell them: its constant
 * splitter turns every stablehlo.constant into an sdy.constant (which
 * MLIR's folder does not merge back), and its export turns them back. */
#include <string.h>
#include "mlir/mlir_extra.h"
#include "shardc/mlir.h"

static void set_op_name(Module *m, Op *op, const char *name)
{
    struct MlirExtra *x = ARENA_NEW(&m->arena, struct MlirExtra);
    if (op->mlir)
        *x = *op->mlir;
    x->op_name = name;
    op->mlir = x;
}

typedef struct ConstantSpelling {
    Module *m;
    const char *name;   /* "sdy.constant", or NULL: stablehlo.constant */
} ConstantSpelling;

static bool respell(Op *op, void *user)
{
    const ConstantSpelling *c = user;
    if (op->kind == OP_CONSTANT)
        set_op_name(c->m, op, c->name);
    return true;
}

void mlir_spell_constants(Module *m, bool sdy)
{
    ConstantSpelling c = {m, sdy ? "sdy.constant" : NULL};
    ir_walk_module(m, &(IrWalker){.pre = respell, .user = &c, .scope = IR_WALK_ALL});
}
