/* Einsums and reductions in StableHLO, as JAX lowers jnp.einsum and
 * lax.reduce_*: a two-operand einsum is a stablehlo.dot_general (batch
 * dims, then the lhs's free dims, then the rhs's), followed by a
 * stablehlo.transpose when the einsum's output is in another order, and
 * preceded by a stablehlo.reduce of an operand's labels that appear
 * nowhere else; a one-operand einsum is a reduce and/or a transpose. These
 * read back as the ops they are (the same computation, spelled as more
 * than one .shir op). A reduce's made-up init constant is marked
 * shardc.implicit_constant: the importer folds it into the reduce. */
#include <limits.h>
#include <math.h>
#include <string.h>
#include "print_internal.h"
#include "shardc/einsum.h"

enum { MAXR = SHARDC_MAX_RANK };

typedef struct EinsumPlan {
    int num_inputs;
    int num_summed[2];
    int64_t summed[2][MAXR];    /* dims of input i reduced away before the dot */
    char kept[2][MAXR + 1];     /* input i's labels after that reduce */
    int num_batch, num_contract;
    int64_t lhs_batch[MAXR], rhs_batch[MAXR], lhs_contract[MAXR], rhs_contract[MAXR];
    char canon[MAXR + 1];       /* the dot_general's (or reduce's) output labels */
    int64_t perm[MAXR];         /* output dim j is canon dim perm[j] */
    bool transpose;
} EinsumPlan;

static int label_at(const char *labels, int n, char c)
{
    for (int i = 0; i < n; i++)
        if (labels[i] == c)
            return i;
    return -1;
}

/* The lowercase letters among labels, as bits ('a' is bit 0). */
static uint32_t letter_set(const char *labels, int n)
{
    uint32_t set = 0;
    for (int i = 0; i < n; i++)
        if (labels[i] >= 'a' && labels[i] <= 'z')
            set |= 1u << (labels[i] - 'a');
    return set;
}

static void keep_or_sum(const EinsumSpec *spec, int i, EinsumPlan *e)
{
    int other = 1 - i, nk = 0;
    for (int d = 0; d < spec->input_rank[i]; d++) {
        char c = spec->inputs[i][d];
        bool elsewhere = label_at(spec->output, spec->output_rank, c) >= 0 ||
                         (spec->num_inputs == 2 && label_at(spec->inputs[other], spec->input_rank[other], c) >= 0);
        if (elsewhere)
            e->kept[i][nk++] = c;
        else
            e->summed[i][e->num_summed[i]++] = d;
    }
    e->kept[i][nk] = 0;
}

/* dot_general's dims: batch labels in the output's order (so that no
 * transpose is needed for them), contracting ones in letter order (the
 * importer letters them in the order they were written; the einsum's rule
 * orders them so too). */
static void plan_dot(const EinsumSpec *spec, EinsumPlan *e)
{
    const char *lhs = e->kept[0], *rhs = e->kept[1];
    int nl = (int)strlen(lhs), nr = (int)strlen(rhs), nc = 0;
    for (int j = 0; j < spec->output_rank; j++) {
        int a = label_at(lhs, nl, spec->output[j]), b = label_at(rhs, nr, spec->output[j]);
        if (a >= 0 && b >= 0) {
            e->lhs_batch[e->num_batch] = a;
            e->rhs_batch[e->num_batch++] = b;
            e->canon[nc++] = spec->output[j];
        }
    }
    /* letters of both operands and not of the output, found by bit */
    uint32_t shared = letter_set(lhs, nl) & letter_set(rhs, nr) & ~letter_set(spec->output, spec->output_rank);
    for (char c = 'a'; c <= 'z'; c++) {
        if (shared >> (c - 'a') & 1) {
            int a = label_at(lhs, nl, c), b = label_at(rhs, nr, c);
            e->lhs_contract[e->num_contract] = a;
            e->rhs_contract[e->num_contract++] = b;
        }
    }
    for (int a = 0; a < nl; a++)
        if (label_at(rhs, nr, lhs[a]) < 0)
            e->canon[nc++] = lhs[a];
    for (int b = 0; b < nr; b++)
        if (label_at(lhs, nl, rhs[b]) < 0)
            e->canon[nc++] = rhs[b];
    e->canon[nc] = 0;
}

static bool plan_einsum(const Op *op, EinsumPlan *e)
{
    EinsumSpec spec;
    char error[128];
    int col;
    memset(e, 0, sizeof *e);
    if (!op->str || !einsum_parse(op->str, &spec, error, sizeof error, &col) || spec.num_inputs != op->num_operands)
        return false;
    e->num_inputs = spec.num_inputs;
    for (int i = 0; i < spec.num_inputs; i++)
        keep_or_sum(&spec, i, e);
    if (spec.num_inputs == 2)
        plan_dot(&spec, e);
    else
        memcpy(e->canon, e->kept[0], sizeof e->canon);
    if ((int)strlen(e->canon) != spec.output_rank)
        return false;
    for (int j = 0; j < spec.output_rank; j++) {
        e->perm[j] = label_at(e->canon, spec.output_rank, spec.output[j]);
        e->transpose |= e->perm[j] != j;
    }
    return true;
}

/* stablehlo.dot where the importer read one and it still is a plain
 * matrix/vector product. */
static bool prints_as_dot(const Op *op, const EinsumPlan *e)
{
    if (!op->mlir || !op->mlir->op_name || strcmp(op->mlir->op_name, "stablehlo.dot") != 0)
        return false;
    int nl = (int)strlen(e->kept[0]), nr = (int)strlen(e->kept[1]);
    return e->num_inputs == 2 && !e->num_summed[0] && !e->num_summed[1] && !e->transpose && !e->num_batch &&
           nl <= 2 && nr <= 2 && e->num_contract == 1 && e->lhs_contract[0] == nl - 1 && e->rhs_contract[0] == 0;
}

static const char *const_name(DType dt) { return dtype_is_float(dt) ? "cst" : "c"; }

/* Keeps e as the plan of the spec text the set has just added. */
static void keep_plan(MlirPrinter *p, const EinsumPlan *e)
{
    int k = p->einsum_specs.count - 1;
    if (k >= p->einsum_plans_room) {
        int room = p->einsum_plans_room ? p->einsum_plans_room * 2 : 8;
        const void **plans = ARENA_ARRAY_UNINIT(&p->arena, const void *, room);
        if (k)
            memcpy(plans, p->einsum_plans, sizeof *plans * (size_t)k);
        p->einsum_plans = plans;
        p->einsum_plans_room = room;
    }
    p->einsum_plans[k] = e;
}

/* The plan of op's spec: worked out once per distinct spec text (parsing
 * specs was a tenth of printing a transformer, whose layers repeat a few
 * of them), or NULL when it has none. Each op has its own copy of the
 * text: it is hashed a word at a time, once (symtab's byte-a-step hash
 * was a fifth of planning an einsum). */
static const EinsumPlan *shared_plan(MlirPrinter *p, const Op *op)
{
    if (!op->str)
        return NULL;
    uint64_t hash = mlir_name_hash(op->str);
    int k = mlir_name_set_find(&p->einsum_specs, op->str, hash);
    if (k >= 0) {
        const EinsumPlan *kept = p->einsum_plans[k];
        return kept->num_inputs == op->num_operands ? kept : NULL;
    }
    EinsumPlan *e = ARENA_ARRAY_UNINIT(&p->arena, EinsumPlan, 1);
    if (!plan_einsum(op, e))
        return NULL;
    mlir_name_set_add(p, &p->einsum_specs, op->str, hash); /* op->str outlives the printer */
    keep_plan(p, e);
    return e;
}

/* The einsum's plan, kept for mlir_emit_einsum. */
int mlir_plan_einsum(MlirPrinter *p, const Op *op, MlirAux *aux)
{
    const EinsumPlan *plan = shared_plan(p, op);
    int n = 0;
    if (!plan)
        return 0;
    if (op->id >= 0 && op->id < p->m->num_ops)
        p->plans[op->id] = plan;
    for (int i = 0; i < plan->num_inputs; i++) {
        if (!plan->num_summed[i])
            continue;
        aux[n++] = (MlirAux){"init", const_name(op->operands[i]->type.dtype)};
        if (plan->num_inputs == 2 || plan->transpose)
            aux[n++] = (MlirAux){"sum", NULL};
    }
    if (plan->num_inputs == 2 && plan->transpose)
        aux[n++] = (MlirAux){"dot_general", NULL};
    return n;
}

/* ---- reductions ------------------------------------------------------------------ */

const char *mlir_reduce_body(OpKind kind, DType dt)
{
    if (dt == DT_BOOL)
        return kind == OP_REDUCE_MIN || kind == OP_PMIN ? "stablehlo.and" : "stablehlo.or";
    if (kind == OP_REDUCE_MAX || kind == OP_PMAX)
        return "stablehlo.maximum";
    if (kind == OP_REDUCE_MIN || kind == OP_PMIN)
        return "stablehlo.minimum";
    return "stablehlo.add";
}

/* The identity of the reduction: 0, -inf / the least integer for max,
 * +inf / the greatest for min (false / true for bool). */
void mlir_print_reduce_identity(Writer *out, OpKind kind, DType dt)
{
    bool max = kind == OP_REDUCE_MAX, min = kind == OP_REDUCE_MIN;
    int64_t low = 0, high = 0;
    dtype_int_range(dt, &low, &high);
    writer_str(out, "dense<");
    if (dt == DT_BOOL)
        writer_str(out, min ? "true" : "false");
    else if (dtype_is_float(dt))
        mlir_print_float(out, max ? -INFINITY : min ? INFINITY : 0, dt);
    else
        writer_int(out, (long long)(max ? low : min ? high : 0));
    writer_str(out, "> : tensor<");
    writer_str(out, dtype_mlir_name(dt));
    writer_char(out, '>');
}

void mlir_emit_reduce_head(MlirPrinter *p, MlirVal x, MlirVal init, const char *body_op, const int64_t *dims,
                           int n)
{
    writer_str(p->out, "stablehlo.reduce(");
    mlir_print_val(p, x);
    writer_str(p->out, " init: ");
    mlir_print_val(p, init);
    writer_str(p->out, ") applies ");
    writer_str(p->out, body_op);
    writer_str(p->out, " across dimensions = ");
    mlir_print_ints(p->out, dims, n);
}

static void print_init_constant(MlirPrinter *p, const Op *op, int k, OpKind kind, DType dt, int indent)
{
    mlir_print_aux_def(p, op, k, indent);
    writer_str(p->out, "stablehlo.constant {shardc.implicit_constant} ");
    mlir_print_reduce_identity(p->out, kind, dt);
    writer_char(p->out, '\n');
}

/* ` : (tensor<x>, tensor<dt>) -> tensor<r>` of a reduce. */
static void print_reduce_type(MlirPrinter *p, MlirVal x, MlirVal init, MlirVal res)
{
    MlirVal in[2] = {x, init};
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, in, 2, &res, 1);
}

static int aux_count(const MlirPrinter *p, const Op *op)
{
    int n = 0;
    const char *const *names = op->id >= 0 && op->id < p->m->num_ops ? p->aux[op->id] : NULL;
    while (names && names[n])
        n++;
    return n;
}

/* The init a reduce read from MLIR was written with, while it is defined
 * before the reduce in its block; else a constant is made up. */
int mlir_plan_reduce(MlirPrinter *p, const Op *op, MlirAux *aux)
{
    const Value *init = op->mlir ? op->mlir->init : NULL;
    if (mlir_visible_name(p, init, op->parent))
        return 0;
    aux[0] = (MlirAux){"init", const_name(op->operands[0]->type.dtype)};
    return 1;
}

MlirVal mlir_print_reduce_init(MlirPrinter *p, const Op *op, OpKind kind, int indent)
{
    DType dt = op->operands[0]->type.dtype;
    const Value *kept = op->mlir ? op->mlir->init : NULL;
    if (aux_count(p, op) || !kept) {
        print_init_constant(p, op, 0, kind, dt, indent);
        return mlir_aux_val(p, op, 0, (TensorType){dt, 0, NULL});
    }
    return mlir_val(p, kept);
}

void mlir_emit_reduce(MlirPrinter *p, const Op *op, int indent)
{
    MlirVal x = mlir_val(p, op->operands[0]), res = mlir_val(p, op->results[0]);
    DType dt = x.type.dtype;
    MlirVal init = mlir_print_reduce_init(p, op, op->kind, indent);
    int64_t dims[MAXR];
    int n = op_attr_ints(op, ATTR_KEY_DIMS, dims, MAXR);
    mlir_print_defs(p, op, indent);
    mlir_emit_reduce_head(p, x, init, mlir_reduce_body(op->kind, dt), dims, n > 0 ? n : 0);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = (const AttrKey[]){ATTR_KEY_DIMS, 0}});
    print_reduce_type(p, x, init, res);
    writer_char(p->out, '\n');
}

/* ---- einsum ------------------------------------------------------------------------- */

/* The type of labels `labels`, each sized as in `from` (dims). */
static TensorType labels_type(MlirPrinter *p, DType dt, const char *labels, const char *from, const int64_t *dims)
{
    int n = (int)strlen(labels), n_from = (int)strlen(from);
    TensorType t = {dt, n, ARENA_ARRAY(&p->arena, int64_t, n + 1)};
    for (int j = 0; j < n; j++)
        t.dims[j] = dims[label_at(from, n_from, labels[j])];
    return t;
}

typedef struct EinsumEmit {
    const Op *op;
    const EinsumPlan *e;
    int indent, next_aux;
} EinsumEmit;

/* `%r = ` of the next op: a made-up value, or the einsum's result. */
static MlirVal einsum_def(MlirPrinter *p, EinsumEmit *ee, TensorType t, bool last)
{
    if (last) {
        mlir_print_defs(p, ee->op, ee->indent);
        return mlir_val(p, ee->op->results[0]);
    }
    MlirVal v = mlir_aux_val(p, ee->op, ee->next_aux, t);
    mlir_print_aux_def(p, ee->op, ee->next_aux++, ee->indent);
    return v;
}

/* Operand i's type without the dims summed away. */
static TensorType kept_type(MlirPrinter *p, const EinsumPlan *e, int i, const TensorType *in)
{
    TensorType t = type_make(&p->arena, in->dtype, in->rank, in->dims);
    t.rank = 0;
    for (int d = 0, k = 0; d < in->rank; d++) {
        if (k < e->num_summed[i] && e->summed[i][k] == d)
            k++;
        else
            t.dims[t.rank++] = in->dims[d];
    }
    return t;
}

/* The sum over an operand's own labels, before the dot (or as the whole
 * of a one-operand einsum). */
static MlirVal emit_pre_reduce(MlirPrinter *p, EinsumEmit *ee, int i, bool last)
{
    const Op *op = ee->op;
    const EinsumPlan *e = ee->e;
    MlirVal x = mlir_val(p, op->operands[i]);
    DType dt = x.type.dtype;
    print_init_constant(p, op, ee->next_aux, OP_REDUCE_SUM, dt, ee->indent);
    MlirVal init = mlir_aux_val(p, op, ee->next_aux++, (TensorType){dt, 0, NULL});
    MlirVal r = einsum_def(p, ee, kept_type(p, e, i, &x.type), last);
    mlir_emit_reduce_head(p, x, init, "stablehlo.add", e->summed[i], e->num_summed[i]);
    if (last)
        mlir_print_op_attrs(p, op, &(MlirAttrOpts){0});
    print_reduce_type(p, x, init, r);
    writer_char(p->out, '\n');
    return r;
}

/* `, precision = [DEFAULT, DEFAULT]` from the precision_config kept from
 * MLIR (in either spelling), and `, algorithm = <...>`. */
static void print_precision(MlirPrinter *p, const Op *op)
{
    for (int i = 0; op->mlir && i < op->mlir->attrs.count; i++) {
        const MlirKeptAttr *a = &op->mlir->attrs.items[i];
        if (a->text && strcmp(a->name, "precision_config") == 0) {
            writer_str(p->out, ", precision = [");
            int words = 0;
            for (const char *s = a->text; *s;) {
                size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
                if (n) {
                    writer_printf(p->out, "%s%.*s", words++ ? ", " : "", (int)n, s);
                    s += n;
                } else {
                    s++;
                }
            }
            writer_char(p->out, ']');
        } else if (a->text && strcmp(a->name, "algorithm") == 0) {
            const char *t = strncmp(a->text, "#stablehlo.dot_algorithm", 24) == 0 ? a->text + 24 : a->text;
            writer_printf(p->out, ", algorithm = %s", t);
        }
    }
}

static const char *const dot_kept[] = {"precision_config", "algorithm", NULL};

/* The type of the dot_general's result before the einsum's transpose. */
static TensorType dot_type(MlirPrinter *p, const EinsumEmit *ee, MlirVal lhs, MlirVal rhs)
{
    const EinsumPlan *e = ee->e;
    char both[2 * MAXR + 1];
    size_t n0 = strlen(e->kept[0]), n1 = strlen(e->kept[1]);
    memcpy(both, e->kept[0], n0);
    memcpy(both + n0, e->kept[1], n1 + 1);
    int64_t dims[2 * MAXR];
    memcpy(dims, lhs.type.dims, sizeof(int64_t) * (size_t)lhs.type.rank);
    memcpy(dims + lhs.type.rank, rhs.type.dims, sizeof(int64_t) * (size_t)rhs.type.rank);
    return labels_type(p, ee->op->results[0]->type.dtype, e->canon, both, dims);
}

static MlirVal emit_dot(MlirPrinter *p, EinsumEmit *ee, MlirVal lhs, MlirVal rhs)
{
    const Op *op = ee->op;
    const EinsumPlan *e = ee->e;
    bool last = !e->transpose, dot = prints_as_dot(op, e);
    /* the last op defines the einsum's result, of its own type */
    MlirVal r = einsum_def(p, ee, last ? op->results[0]->type : dot_type(p, ee, lhs, rhs), last);
    MlirVal in[2] = {lhs, rhs};
    writer_str(p->out, dot ? "stablehlo.dot " : "stablehlo.dot_general ");
    mlir_print_vals(p, in, 2);
    if (!dot) {
        if (e->num_batch) {
            writer_str(p->out, ", batching_dims = ");
            mlir_print_ints(p->out, e->lhs_batch, e->num_batch);
            writer_str(p->out, " x ");
            mlir_print_ints(p->out, e->rhs_batch, e->num_batch);
        }
        writer_str(p->out, ", contracting_dims = ");
        mlir_print_ints(p->out, e->lhs_contract, e->num_contract);
        writer_str(p->out, " x ");
        mlir_print_ints(p->out, e->rhs_contract, e->num_contract);
    }
    print_precision(p, op);
    if (last)
        mlir_print_op_attrs(p, op, &(MlirAttrOpts){.skip_kept = dot_kept});
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, in, 2, &r, 1);
    writer_char(p->out, '\n');
    return r;
}

static void emit_transpose(MlirPrinter *p, EinsumEmit *ee, MlirVal x)
{
    const Op *op = ee->op;
    MlirVal r = einsum_def(p, ee, op->results[0]->type, true);
    writer_str(p->out, "stablehlo.transpose ");
    mlir_print_val(p, x);
    writer_str(p->out, ", dims = ");
    mlir_print_ints(p->out, ee->e->perm, op->results[0]->type.rank);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){0});
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, &x, 1, &r, 1);
    writer_char(p->out, '\n');
}

/* The plan mlir_plan_einsum kept, else one worked out into `fresh`; NULL
 * for a spec it cannot plan. */
static const EinsumPlan *einsum_plan_of(const MlirPrinter *p, const Op *op, EinsumPlan *fresh)
{
    const EinsumPlan *kept = op->id >= 0 && op->id < p->m->num_ops ? p->plans[op->id] : NULL;
    return kept ? kept : plan_einsum(op, fresh) ? fresh : NULL;
}

void mlir_emit_einsum(MlirPrinter *p, const Op *op, int indent)
{
    EinsumPlan fresh;
    const EinsumPlan *e = einsum_plan_of(p, op, &fresh);
    if (!e) {
        mlir_emit_generic(p, op, indent);
        return;
    }
    EinsumEmit ee = {op, e, indent, 0};
    MlirVal in[2];
    for (int i = 0; i < e->num_inputs; i++) {
        in[i] = mlir_val(p, op->operands[i]);
        if (e->num_summed[i]) {
            bool last = e->num_inputs == 1 && !e->transpose;
            in[i] = emit_pre_reduce(p, &ee, i, last);
            if (last)
                return;
        }
    }
    if (e->num_inputs == 2)
        in[0] = emit_dot(p, &ee, in[0], in[1]);
    if (e->num_inputs == 2 && !e->transpose)
        return;
    emit_transpose(p, &ee, in[0]);
}
