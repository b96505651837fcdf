/* mlir_print_module: the IR as sdy_opt prints StableHLO + sdy MLIR. Values
 * are numbered as MLIR numbers them (%argN for block arguments, %N for op
 * results, %cst/%c for float/int constants, with _N suffixes); each op
 * prints in its custom form where mlir_ops.def names one and print.c
 * knows it, else in the generic form "shardc.<op>"(...). */
#include <stdlib.h>
#include <string.h>
#include "mlir/mlir_extra.h"
#include "shardc/mlir.h"
#include "shardc/print.h"

typedef struct Printer {
    FILE *out;
    const Module *m;
    const char **names;     /* by Value.id */
    int next_arg, next_result, next_cst, next_c;
} Printer;

/* ---- names and types ---- */

static const char *new_name(Printer *p, const char *prefix, int *counter, bool suffix_first)
{
    char buf[48];
    int n = (*counter)++;
    if (suffix_first || n > 0)
        snprintf(buf, sizeof buf, suffix_first ? "%s%d" : "%s_%d", prefix, suffix_first ? n : n - 1);
    else
        snprintf(buf, sizeof buf, "%s", prefix);
    char *s = malloc(strlen(buf) + 1);
    strcpy(s, buf);
    (void)p;
    return s;
}

static void name_value(Printer *p, const Value *v)
{
    if (v->id >= 0 && v->id < p->m->num_values && !p->names[v->id]) {
        if (!v->def)
            p->names[v->id] = new_name(p, "arg", &p->next_arg, true);
        else if (v->def->kind == OP_CONSTANT && dtype_is_float(v->type.dtype))
            p->names[v->id] = new_name(p, "cst", &p->next_cst, false);
        else if (v->def->kind == OP_CONSTANT)
            p->names[v->id] = new_name(p, "c", &p->next_c, false);
    }
}

static const char *vname(Printer *p, const Value *v)
{
    return v->id >= 0 && v->id < p->m->num_values && p->names[v->id] ? p->names[v->id] : "<?>";
}

static void print_type(Printer *p, const TensorType *t)
{
    fputs("tensor<", p->out);
    for (int d = 0; d < t->rank; d++)
        fprintf(p->out, "%lldx", (long long)t->dims[d]);
    fprintf(p->out, "%s>", dtype_mlir_name(t->dtype)); /* i1, ui32 */
}

static void print_types(Printer *p, Value **vs, int n)
{
    for (int i = 0; i < n; i++) {
        if (i)
            fputs(", ", p->out);
        print_type(p, &vs[i]->type);
    }
}

/* `: (a, b) -> c` (or `-> (c, d)`). */
static void print_function_type(Printer *p, const Op *op)
{
    fputs(" : (", p->out);
    print_types(p, op->operands, op->num_operands);
    fputs(") -> ", p->out);
    if (op->num_results != 1)
        fputc('(', p->out);
    print_types(p, op->results, op->num_results);
    if (op->num_results != 1)
        fputc(')', p->out);
}

static void print_operands(Printer *p, Value **vs, int n)
{
    for (int i = 0; i < n; i++)
        fprintf(p->out, "%s%%%s", i ? ", " : "", vname(p, vs[i]));
}

/* ---- shardings ---- */

static void print_axis(Printer *p, const Mesh *mesh, AxisRef r)
{
    fprintf(p->out, "\"%s\"", mesh->axes[r.axis].name);
    if (!axis_ref_is_full(mesh, r))
        fprintf(p->out, ":(%lld)%lld", (long long)r.pre_size, (long long)r.size);
}

static void print_tensor_sharding(Printer *p, const Sharding *s)
{
    fprintf(p->out, "<@%s, [", s->mesh->name);
    for (int d = 0; d < s->rank; d++) {
        const DimSharding *dim = &s->dims[d];
        fputs(d ? ", {" : "{", p->out);
        for (int a = 0; a < dim->num_axes; a++) {
            if (a)
                fputs(", ", p->out);
            print_axis(p, s->mesh, dim->axes[a]);
        }
        if (!dim->is_closed)
            fputs(dim->num_axes ? ", ?" : "?", p->out);
        fputc('}', p->out);
        if (dim->priority != PRIORITY_NONE)
            fprintf(p->out, "p%d", dim->priority);
    }
    fputc(']', p->out);
    if (s->num_replicated) {
        fputs(", replicated={", p->out);
        for (int a = 0; a < s->num_replicated; a++) {
            if (a)
                fputs(", ", p->out);
            print_axis(p, s->mesh, s->replicated[a]);
        }
        fputc('}', p->out);
    }
    fputc('>', p->out);
}

static bool any_result_sharding(const Op *op)
{
    for (int i = 0; i < op->num_results; i++)
        if (op->results[i]->sharding)
            return true;
    return false;
}

static void print_kept(Printer *p, const MlirKeptAttrs *kept, bool *first)
{
    for (int i = 0; kept && i < kept->count; i++) {
        fprintf(p->out, "%s%s", *first ? "" : ", ", kept->items[i].name);
        if (kept->items[i].text)
            fprintf(p->out, " = %s", kept->items[i].text);
        *first = false;
    }
}

/* The op's attribute dict: its kept MLIR attributes and sdy.sharding. */
static void print_attr_dict(Printer *p, const Op *op, bool sharding)
{
    const MlirKeptAttrs *kept = op->mlir ? &op->mlir->attrs : NULL;
    bool has_sharding = sharding && any_result_sharding(op);
    if (!has_sharding && (!kept || !kept->count))
        return;
    fputs(" {", p->out);
    bool first = true;
    print_kept(p, kept, &first);
    if (has_sharding) {
        fprintf(p->out, "%ssdy.sharding = #sdy.sharding_per_value<[", first ? "" : ", ");
        const Mesh *mesh = NULL;
        for (int i = 0; i < op->num_results && !mesh; i++)
            mesh = op->results[i]->sharding ? op->results[i]->sharding->mesh : NULL;
        for (int i = 0; i < op->num_results; i++) {
            if (i)
                fputs(", ", p->out);
            const Value *v = op->results[i];
            if (v->sharding) {
                print_tensor_sharding(p, v->sharding);
                continue;
            }
            fprintf(p->out, "<@%s, [", mesh->name);  /* open: nothing known */
            for (int d = 0; d < v->type.rank; d++)
                fputs(d ? ", {?}" : "{?}", p->out);
            fputs("]>", p->out);
        }
        fputs("]>", p->out);
    }
    fputc('}', p->out);
}

/* ---- ops ---- */

static const char *mlir_name_of(const Op *op, int *form)
{
    static const struct { OpKind kind; const char *name; int form; } table[] = {
#define SAME 0
#define FUNC 1
#define SPECIAL 2
#define MLIR_OP(kind, name, form) {OP_##kind, name, form},
#include "mlir/mlir_ops.def"
#undef MLIR_OP
#undef SAME
#undef FUNC
#undef SPECIAL
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (table[i].kind == op->kind) {
            *form = table[i].form;
            return op->mlir && op->mlir->op_name ? op->mlir->op_name : table[i].name;
        }
    }
    return NULL;
}

static void print_ints(Printer *p, const int64_t *v, int n)
{
    fputc('[', p->out);
    for (int i = 0; i < n; i++)
        fprintf(p->out, "%s%lld", i ? ", " : "", (long long)v[i]);
    fputc(']', p->out);
}

/* The dims of an einsum "bh,hf->bf" as dot_general's: batching (in both
 * inputs and the output), contracting (in both inputs only). False when
 * the output is not batch, lhs-free, rhs-free in order. */
static bool dot_dims(const Op *op, int64_t dims[4][SHARDC_MAX_RANK], int n[4])
{
    const char *spec = op->str, *comma = spec ? strchr(spec, ',') : NULL, *arrow = spec ? strstr(spec, "->") : NULL;
    if (!comma || !arrow || op->num_operands != 2)
        return false;
    const char *lhs = spec, *rhs = comma + 1, *out = arrow + 2;
    int nl = (int)(comma - lhs), nr = (int)(arrow - rhs);
    char expect[64];
    int ne = 0;
    memset(n, 0, sizeof(int) * 4);
    for (int i = 0; i < nl; i++) {
        const char *in_r = memchr(rhs, lhs[i], (size_t)nr), *in_o = strchr(out, lhs[i]);
        if (in_r) {
            int k = in_o ? 0 : 2;
            dims[k][n[k]++] = i;
            dims[k + 1][n[k + 1]++] = in_r - rhs;
        }
    }
    for (int i = 0; i < n[0]; i++)
        expect[ne++] = lhs[dims[0][i]];
    for (int i = 0; i < nl; i++)
        if (!memchr(rhs, lhs[i], (size_t)nr))
            expect[ne++] = lhs[i];
    for (int i = 0; i < nr; i++)
        if (!memchr(lhs, rhs[i], (size_t)nl))
            expect[ne++] = rhs[i];
    return (int)strlen(out) == ne && strncmp(out, expect, (size_t)ne) == 0;
}

static bool print_dot_general(Printer *p, const Op *op)
{
    int64_t dims[4][SHARDC_MAX_RANK];
    int n[4];
    if (!dot_dims(op, dims, n))
        return false;
    fputs("stablehlo.dot_general ", p->out);
    print_operands(p, op->operands, 2);
    if (n[0]) {
        fputs(", batching_dims = ", p->out);
        print_ints(p, dims[0], n[0]);
        fputs(" x ", p->out);
        print_ints(p, dims[1], n[1]);
    }
    fputs(", contracting_dims = ", p->out);
    print_ints(p, dims[2], n[2]);
    fputs(" x ", p->out);
    print_ints(p, dims[3], n[3]);
    print_attr_dict(p, op, true);
    print_function_type(p, op);
    return true;
}

/* `stablehlo.transpose %x, dims = [1, 0]` and broadcast_in_dim alike. */
static bool print_with_dims(Printer *p, const Op *op, const char *name, AttrKey key)
{
    int64_t dims[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, key, dims, SHARDC_MAX_RANK);
    if (n < 0 || op->num_operands != 1)
        return false;
    fprintf(p->out, "%s %%%s, dims = ", name, vname(p, op->operands[0]));
    print_ints(p, dims, n);
    print_attr_dict(p, op, true);
    print_function_type(p, op);
    return true;
}

static bool print_sharding_op(Printer *p, const Op *op, const char *name)
{
    const Sharding *s = op->results[0]->sharding;
    if (!s)
        return false;
    fprintf(p->out, "%s %%%s ", name, vname(p, op->operands[0]));
    print_tensor_sharding(p, s);
    print_attr_dict(p, op, false);
    fputs(" : ", p->out);
    print_type(p, &op->results[0]->type);
    return true;
}

static bool print_compare(Printer *p, const Op *op)
{
    const char *dir = op_attr_string(op, ATTR_KEY_DIRECTION);
    if (!dir)
        return false;
    fputs("stablehlo.compare  ", p->out);
    for (const char *c = dir; *c; c++)
        fputc(*c >= 'a' && *c <= 'z' ? *c - 32 : *c, p->out);
    fputs(", ", p->out);
    print_operands(p, op->operands, op->num_operands);
    print_attr_dict(p, op, true);
    print_function_type(p, op);
    return true;
}

static bool print_call(Printer *p, const Op *op)
{
    fprintf(p->out, "call @%s(", op->callee);
    print_operands(p, op->operands, op->num_operands);
    fputc(')', p->out);
    print_attr_dict(p, op, true);
    print_function_type(p, op);
    return true;
}

static void print_scalar_literal(Printer *p, const AttrValue *v, DType dt)
{
    if (v->kind == ATTR_BOOL)
        fputs(v->u.b ? "true" : "false", p->out);
    else if (dtype_is_float(dt))
        fprintf(p->out, "%.6e", v->kind == ATTR_FLOAT ? v->u.f : (double)v->u.i);
    else if (dt == DT_BOOL)
        fputs(v->u.i ? "true" : "false", p->out);
    else
        fprintf(p->out, "%lld", (long long)(v->kind == ATTR_FLOAT ? (int64_t)v->u.f : v->u.i));
}

static void print_literal(Printer *p, const AttrValue *v, DType dt)
{
    if (v->kind != ATTR_ARRAY) {
        print_scalar_literal(p, v, dt);
        return;
    }
    fputc('[', p->out);
    for (int i = 0; i < v->u.array.count; i++) {
        if (i)
            fputs(", ", p->out);
        print_literal(p, v->u.array.items[i], dt);
    }
    fputc(']', p->out);
}

static bool print_constant(Printer *p, const Op *op)
{
    const AttrValue *v = op_attr_get(op, ATTR_KEY_VALUE);
    if (!v)
        return false;
    fputs("stablehlo.constant", p->out);
    print_attr_dict(p, op, true);
    fputs(" dense<", p->out);
    print_literal(p, v, op->results[0]->type.dtype);
    fputs("> : ", p->out);
    print_type(p, &op->results[0]->type);
    return true;
}

static bool print_reduce(Printer *p, const Op *op)
{
    const Value *init = op->mlir ? op->mlir->init : NULL;
    int64_t dims[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, ATTR_KEY_DIMS, dims, SHARDC_MAX_RANK);
    const char *body = op->kind == OP_REDUCE_SUM ? "add" : op->kind == OP_REDUCE_MAX ? "maximum" : "minimum";
    if (!init || n < 0 || init->id >= p->m->num_values || !p->names[init->id])
        return false;
    fprintf(p->out, "stablehlo.reduce(%%%s init: %%%s) applies stablehlo.%s across dimensions = ",
            vname(p, op->operands[0]), vname(p, init), body);
    print_ints(p, dims, n);
    print_attr_dict(p, op, true);
    fputs(" : (", p->out);
    print_type(p, &op->operands[0]->type);
    fputs(", ", p->out);
    print_type(p, &init->type);
    fputs(") -> ", p->out);
    print_type(p, &op->results[0]->type);
    return true;
}

static bool print_special(Printer *p, const Op *op)
{
    switch (op->kind) {
    case OP_EINSUM: return print_dot_general(p, op);
    case OP_TRANSPOSE: return print_with_dims(p, op, "stablehlo.transpose", ATTR_KEY_PERMUTATION);
    case OP_BROADCAST: return print_with_dims(p, op, "stablehlo.broadcast_in_dim", ATTR_KEY_DIMS);
    case OP_SHARDING_CONSTRAINT: return print_sharding_op(p, op, "sdy.sharding_constraint");
    case OP_RESHARD: return print_sharding_op(p, op, "sdy.reshard");
    case OP_COMPARE: return print_compare(p, op);
    case OP_CALL: return print_call(p, op);
    case OP_CONSTANT: return print_constant(p, op);
    case OP_REDUCE_SUM: case OP_REDUCE_MAX: case OP_REDUCE_MIN: return print_reduce(p, op);
    default: return false;
    }
}

static bool same_types(const Op *op)
{
    for (int i = 0; i < op->num_operands; i++)
        if (!type_equal(&op->operands[i]->type, &op->results[0]->type))
            return false;
    return op->num_results == 1;
}

/* `"shardc.gelu"(%x) {approximate = true} : (...) -> ...`: shardc's op as
 * it is, for ops with no StableHLO form here. */
static void print_generic(Printer *p, const Op *op)
{
    fprintf(p->out, "\"shardc.%s\"(", op_info(op->kind)->name);
    print_operands(p, op->operands, op->num_operands);
    fputc(')', p->out);
    bool any = op->num_attrs > 0 || op->str || op->callee;
    if (any) {
        fputs(" {", p->out);
        bool first = true;
        if (op->str) {
            fprintf(p->out, "spec = \"%s\"", op->str);
            first = false;
        }
        if (op->callee) {
            fprintf(p->out, "%scallee = @%s", first ? "" : ", ", op->callee);
            first = false;
        }
        for (int i = 0; i < op->num_attrs; i++) {
            fprintf(p->out, "%s%s = ", first ? "" : ", ", op->attrs[i].name);
            print_attr_value(p->out, op->attrs[i].value);
            first = false;
        }
        fputc('}', p->out);
    }
    print_function_type(p, op);
}

static void print_op_body(Printer *p, const Op *op)
{
    int form = -1;
    const char *name = mlir_name_of(op, &form);
    if (form == 2 && print_special(p, op))
        return;
    if (form == 0 && same_types(op)) {
        fprintf(p->out, "%s ", name);
        print_operands(p, op->operands, op->num_operands);
        print_attr_dict(p, op, true);
        fputs(" : ", p->out);
        print_type(p, &op->results[0]->type);
        return;
    }
    if (form == 1) {
        fprintf(p->out, "%s ", name);
        print_operands(p, op->operands, op->num_operands);
        print_attr_dict(p, op, true);
        print_function_type(p, op);
        return;
    }
    print_generic(p, op);
}

static void print_results(Printer *p, const Op *op)
{
    if (op->num_results == 0)
        return;
    for (int i = 0; i < op->num_results; i++)
        name_value(p, op->results[i]);
    const Value *first = op->results[0];
    if (!p->names[first->id]) {
        char buf[32];
        snprintf(buf, sizeof buf, "%d", p->next_result++);
        char *s = malloc(strlen(buf) + 8);
        strcpy(s, buf);
        p->names[first->id] = s;
    }
    if (op->num_results == 1) {
        fprintf(p->out, "%%%s = ", p->names[first->id]);
        return;
    }
    char *base = (char *)p->names[first->id];
    for (int i = 0; i < op->num_results; i++) {
        char *s = malloc(strlen(base) + 16);
        sprintf(s, "%s#%d", base, i);
        p->names[op->results[i]->id] = s;
    }
    fprintf(p->out, "%%%s:%d = ", base, op->num_results);
    free(base);     /* each result now has its own name#i */
}

static void emit_block(Printer *p, const Block *b, int indent);

static void emit_op(Printer *p, const Op *op, int indent)
{
    fprintf(p->out, "%*s", indent, "");
    print_results(p, op);
    print_op_body(p, op);
    fputc('\n', p->out);
}

static void emit_block(Printer *p, const Block *b, int indent)
{
    for (const Op *op = b->first; op; op = op->next)
        emit_op(p, op, indent);
    fprintf(p->out, "%*sreturn", indent, "");
    if (b->num_returns) {
        fputc(' ', p->out);
        print_operands(p, b->returns, b->num_returns);
        fputs(" : ", p->out);
        print_types(p, b->returns, b->num_returns);
    }
    fputc('\n', p->out);
}

/* ---- functions, meshes, the module ---- */

static void print_value_sharding(Printer *p, const Sharding *s)
{
    if (!s)
        return;
    fputs(" {sdy.sharding = #sdy.sharding", p->out);
    print_tensor_sharding(p, s);
    fputc('}', p->out);
}

static void print_func_results(Printer *p, const Func *f)
{
    bool bare = f->num_results == 1 && !(f->result_shardings && f->result_shardings[0]);
    if (f->num_results == 0)
        return;
    fputs(" -> ", p->out);
    if (!bare)
        fputc('(', p->out);
    for (int r = 0; r < f->num_results; r++) {
        if (r)
            fputs(", ", p->out);
        print_type(p, &f->result_types[r]);
        print_value_sharding(p, f->result_shardings ? f->result_shardings[r] : NULL);
    }
    if (!bare)
        fputc(')', p->out);
}

static void emit_func(Printer *p, const Func *f)
{
    p->next_arg = p->next_result = p->next_cst = p->next_c = 0;
    fprintf(p->out, "  func.func %s@%s(", f->mlir && f->mlir->visibility ? "private " : "", f->name);
    for (int i = 0; i < f->body->num_args; i++) {
        const Value *a = f->body->args[i];
        name_value(p, a);
        fprintf(p->out, "%s%%%s: ", i ? ", " : "", vname(p, a));
        print_type(p, &a->type);
        print_value_sharding(p, a->sharding);
    }
    fputc(')', p->out);
    print_func_results(p, f);
    fputs(" {\n", p->out);
    emit_block(p, f->body, 4);
    fputs("  }\n", p->out);
}

static void print_mesh(Printer *p, const Mesh *mesh)
{
    fprintf(p->out, "  sdy.mesh @%s = <[", mesh->name);
    for (int a = 0; a < mesh->num_axes; a++)
        fprintf(p->out, "%s\"%s\"=%lld", a ? ", " : "", mesh->axes[a].name, (long long)mesh->axes[a].size);
    fputc(']', p->out);
    if (mesh->device_ids) {
        fputs(", device_ids=", p->out);
        print_ints(p, mesh->device_ids, (int)mesh->num_devices);
    }
    fputs(">\n", p->out);
}

void mlir_print_module(FILE *out, const Module *m)
{
    Printer p = {out, m, calloc((size_t)m->num_values + 1, sizeof(char *)), 0, 0, 0, 0};
    fputs("module {\n", out);
    for (int i = 0; i < m->num_meshes; i++)
        print_mesh(&p, m->meshes[i]);
    for (int i = 0; i < m->num_funcs; i++)
        emit_func(&p, m->funcs[i]);
    fputs("}\n", out);
    for (int i = 0; i < m->num_values; i++)
        free((char *)p.names[i]);
    free(p.names);
}
