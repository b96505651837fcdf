/* MLIR syntax of types, numbers, dense constants, sdy shardings and
 * attribute dictionaries, as MLIR's AsmPrinter and the sdy/StableHLO
 * attribute printers write them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/io.h"
#include "print_internal.h"
#include "shardc/rule.h"

/* MLIR's printEscapedString: printable ASCII as is, `"` and `\` escaped,
 * anything else as \XX; runs of plain characters are copied whole. */
static void piece_string(MlirPiece *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    mlir_piece_add(b, "\"", 1);
    for (const unsigned char *c = (const unsigned char *)s; *c;) {
        const unsigned char *run = c;
        while (*c >= 0x20 && *c < 0x7f && *c != '"' && *c != '\\')
            c++;
        mlir_piece_add(b, (const char *)run, (size_t)(c - run));
        if (*c == '"' || *c == '\\') {
            mlir_piece_add(b, (const char[]){'\\', (char)*c}, 2);
            c++;
        } else if (*c) {
            mlir_piece_add(b, (const char[]){'\\', hex[*c >> 4], hex[*c & 15]}, 3);
            c++;
        }
    }
    mlir_piece_add(b, "\"", 1);
}

void mlir_print_string(FILE *out, const char *s)
{
    MlirPiece b = {.out = out};
    piece_string(&b, s);
    mlir_piece_flush(&b);
}

/* ---- types ---------------------------------------------------------------- */

static void piece_type(MlirPiece *b, const TensorType *t)
{
    if (t->dtype == DT_TOKEN) {
        mlir_piece_str(b, dtype_mlir_name(DT_TOKEN));
        return;
    }
    mlir_piece_add(b, "tensor<", 7);
    for (int i = 0; i < t->rank; i++) {
        mlir_piece_int(b, (long long)t->dims[i]);
        mlir_piece_add(b, "x", 1);
    }
    mlir_piece_str(b, dtype_mlir_name(t->dtype));
    mlir_piece_add(b, ">", 1);
}

void mlir_print_type(FILE *out, const TensorType *t)
{
    MlirPiece b = {.out = out};
    piece_type(&b, t);
    mlir_piece_flush(&b);
}

static void piece_types(MlirPiece *b, const MlirVal *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (i)
            mlir_piece_add(b, ", ", 2);
        piece_type(b, &v[i].type);
    }
}

static void piece_fn_type(MlirPiece *b, const MlirVal *in, int n_in, const MlirVal *res, int n_res)
{
    mlir_piece_add(b, "(", 1);
    piece_types(b, in, n_in);
    mlir_piece_add(b, ") -> ", 5);
    if (n_res != 1)
        mlir_piece_add(b, "(", 1);
    piece_types(b, res, n_res);
    if (n_res != 1)
        mlir_piece_add(b, ")", 1);
}

void mlir_print_fn_type(FILE *out, const MlirVal *in, int n_in, const MlirVal *res, int n_res)
{
    MlirPiece b = {.out = out};
    piece_fn_type(&b, in, n_in, res, n_res);
    mlir_piece_flush(&b);
}

void mlir_print_same_type(FILE *out, const MlirVal *in, int n_in, const MlirVal *res)
{
    bool same = true;
    for (int i = 0; i < n_in; i++)
        same &= type_equal(&in[i].type, &res->type);
    MlirPiece b = {.out = out};
    mlir_piece_add(&b, " : ", 3);
    if (same)
        piece_type(&b, &res->type);
    else
        piece_fn_type(&b, in, n_in, res, 1);
    mlir_piece_flush(&b);
}

void mlir_print_ints(FILE *out, const int64_t *v, int n)
{
    MlirPiece b = {.out = out};
    mlir_piece_add(&b, "[", 1);
    for (int i = 0; i < n; i++) {
        if (i)
            mlir_piece_add(&b, ", ", 2);
        mlir_piece_int(&b, (long long)v[i]);
    }
    mlir_piece_add(&b, "]", 1);
    mlir_piece_flush(&b);
}

/* ---- floats ----------------------------------------------------------------- */

/* v rounded to a float type's precision (round to nearest even; the
 * 16-bit types' range limits are not modelled). */
static double round_to(double v, DType dt)
{
    size_t size = dtype_size(dt);
    if (size >= 8 || !isfinite(v) || v == 0)
        return v;
    if (size == 4)
        return (float)v;
    int bits = strcmp(dtype_name(dt), "bf16") == 0 ? 8 : 11, e;
    double m = frexp(v, &e);
    return ldexp(nearbyint(ldexp(m, bits)), e - bits);
}

/* The bits of a float of type dt, for MLIR's hex form. */
static unsigned long long float_bits(double v, DType dt)
{
    size_t size = dtype_size(dt);
    if (size >= 8) {
        unsigned long long u;
        memcpy(&u, &v, sizeof u);
        return u;
    }
    float f = (float)v;
    unsigned int u;
    memcpy(&u, &f, sizeof u);
    if (size == 4)
        return u;
    if (strcmp(dtype_name(dt), "bf16") == 0)
        return u >> 16;
    unsigned int sign = (u >> 16) & 0x8000; /* f16: only the specials reach here */
    return sign | (isnan(v) ? 0x7E00 : 0x7C00);
}

static bool reads_back(const char *text, double want, DType dt)
{
    double got = round_to(strtod(text, NULL), dt);
    return memcmp(&got, &want, sizeof got) == 0;
}

static int mantissa_bits(DType dt)
{
    size_t size = dtype_size(dt);
    return size >= 8 ? 53 : size == 4 ? 24 : strcmp(dtype_name(dt), "bf16") == 0 ? 8 : 11;
}

/* APFloat::toString's default form: 2 + bits * 59 / 196 significant
 * digits, trailing zeros dropped; scientific (`1.5E+20`) when plain
 * notation would need more than 3 padding zeros or more digits than
 * that, else plain (`1234.5`, `0.00123`, or `123456792`, with no '.'). */
static void apfloat_default(char *out, double v, DType dt)
{
    int prec = 2 + mantissa_bits(dt) * 59 / 196, e10;
    char sci[64], digits[32];
    snprintf(sci, sizeof sci, "%.*e", prec - 1, fabs(v));
    int nd = 0;
    for (const char *c = sci; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9')
            digits[nd++] = *c;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = 0;
    e10 = atoi(strchr(sci, 'e') + 1);
    int exp = e10 - (nd - 1); /* the power of ten of the last digit */
    bool scientific = exp >= 0 ? exp > 3 || nd + exp > prec : e10 < 0 && -e10 > 3;
    char *o = out; /* 64 bytes: at most 17 digits, 3 zeros, sign, point, exponent */
    if (v < 0)
        *o++ = '-';
    if (scientific) {
        sprintf(o, "%c.%sE%c%d", digits[0], nd > 1 ? digits + 1 : "0", e10 < 0 ? '-' : '+', e10 < 0 ? -e10 : e10);
    } else if (exp >= 0) {
        o += sprintf(o, "%s", digits);
        for (int i = 0; i < exp; i++)
            *o++ = '0';
        *o = 0;
    } else if (e10 >= 0) {
        sprintf(o, "%.*s.%s", e10 + 1, digits, digits + e10 + 1);
    } else {
        o += sprintf(o, "0.");
        for (int i = 0; i < -e10 - 1; i++)
            *o++ = '0';
        strcpy(o, digits);
    }
}

/* MLIR's printFloatValue: APFloat::toString(6, 0, false) -- six
 * significant digits, padded with a zero to six decimals (`1.000000e+00`,
 * `1.000980e-01`) -- if that reads back exactly, else APFloat's default
 * form if it has a '.', else the hex bits (inf, nan, large integers). */
void mlir_print_float(FILE *out, double v, DType dt)
{
    char buf[64];
    v = round_to(v, dt);
    if (isfinite(v)) {
        snprintf(buf, sizeof buf, "%.5e", v);
        char *e = strchr(buf, 'e');
        memmove(e + 1, e, strlen(e) + 1);
        *e = '0';
        if (reads_back(buf, v, dt)) {
            fputs(buf, out);
            return;
        }
        apfloat_default(buf, v, dt);
        if (strchr(buf, '.')) {
            fputs(buf, out);
            return;
        }
    }
    fprintf(out, "0x%llX", float_bits(v, dt));
}

/* ---- dense constants ------------------------------------------------------------- */

typedef struct Leaves {
    int64_t count, max;
    const AttrValue **items;
} Leaves;

static void collect_leaves(const AttrValue *v, Leaves *l)
{
    if (v->kind == ATTR_ARRAY) {
        for (int i = 0; i < v->u.array.count; i++)
            collect_leaves(v->u.array.items[i], l);
    } else if (l->count < l->max) {
        l->items[l->count++] = v;
    } else {
        l->count++;
    }
}

static double leaf_float(const AttrValue *v)
{
    return v->kind == ATTR_FLOAT ? v->u.f : v->kind == ATTR_BOOL ? v->u.b : (double)v->u.i;
}

static int64_t leaf_int(const AttrValue *v)
{
    return v->kind == ATTR_INT ? v->u.i : v->kind == ATTR_BOOL ? v->u.b : (int64_t)v->u.f;
}

static bool leaves_equal(const AttrValue *a, const AttrValue *b, DType dt)
{
    dt = dtype_complex_part(dt);
    if (dtype_is_float(dt)) {
        double x = round_to(leaf_float(a), dt), y = round_to(leaf_float(b), dt);
        return memcmp(&x, &y, sizeof x) == 0;
    }
    return leaf_int(a) == leaf_int(b);
}

static void print_leaf(FILE *out, const AttrValue *v, DType dt)
{
    if (dtype_is_complex(dt)) { /* MLIR's (re,im); an IR constant's imaginary parts are 0 */
        fputc('(', out);
        mlir_print_float(out, leaf_float(v), dtype_complex_part(dt));
        fputc(',', out);
        mlir_print_float(out, 0.0, dtype_complex_part(dt));
        fputc(')', out);
    } else if (dtype_is_float(dt))
        mlir_print_float(out, leaf_float(v), dt);
    else if (dt == DT_BOOL)
        fputs(leaf_int(v) ? "true" : "false", out);
    else
        fprintf(out, "%lld", (long long)leaf_int(v));
}

/* Nested lists over dims [d, rank), from leaf *next on. */
static void print_nested(FILE *out, const Leaves *l, const TensorType *t, int d, int64_t *next)
{
    if (d == t->rank) {
        print_leaf(out, l->items[(*next)++], t->dtype);
        return;
    }
    fputc('[', out);
    for (int64_t i = 0; i < t->dims[d]; i++) {
        if (i)
            fputs(", ", out);
        print_nested(out, l, t, d + 1, next);
    }
    fputc(']', out);
}

/* MLIR prints a constant whose elements are all equal as a splat. */
void mlir_print_dense(FILE *out, const AttrValue *v, const TensorType *t)
{
    int64_t n = 1;
    type_num_elements(t, &n);
    const AttrValue **items = malloc(sizeof *items * (size_t)(n + 1));
    if (!items)
        arena_out_of_memory();
    Leaves l = {0, n + 1, items};
    collect_leaves(v, &l);
    bool splat = l.count >= 1 && n > 0;
    for (int64_t i = 1; splat && i < l.count; i++)
        splat = leaves_equal(items[0], items[i], t->dtype);
    fputs("dense<", out);
    if (splat) {
        print_leaf(out, items[0], t->dtype);
    } else if (l.count == n && n > 0) {
        int64_t next = 0;
        print_nested(out, &l, t, 0, &next);
    }
    fputs("> : ", out);
    mlir_print_type(out, t);
    free(items);
}

void mlir_print_dense_scalar(FILE *out, const AttrValue *v, DType dt)
{
    TensorType t = {dt, 0, NULL};
    mlir_print_dense(out, v, &t);
}

void mlir_print_dense_i64(FILE *out, const int64_t *v, int64_t rows, int64_t cols)
{
    bool splat = true;
    for (int64_t i = 1; splat && i < rows * cols; i++)
        splat = v[i] == v[0];
    fputs("dense<", out);
    if (splat) {
        fprintf(out, "%lld", (long long)v[0]);
    } else {
        fputc('[', out);
        for (int64_t r = 0; r < rows; r++) {
            fputs(r ? ", " : "", out);
            mlir_print_ints(out, v + r * cols, (int)cols);
        }
        fputc(']', out);
    }
    fprintf(out, "> : tensor<%lldx%lldxi64>", (long long)rows, (long long)cols);
}

/* ---- meshes and shardings ------------------------------------------------------- */

static bool is_iota(const Mesh *mesh)
{
    for (int64_t i = 0; mesh->device_ids && i < mesh->num_devices; i++)
        if (mesh->device_ids[i] != i)
            return false;
    return true;
}

/* device_ids print when they are not the row-major order, and always on
 * a mesh of no axes (`<[], device_ids=[0]>`, a maximal mesh). */
void mlir_print_mesh_literal(FILE *out, const Mesh *mesh)
{
    fputs("<[", out);
    for (int k = 0; k < mesh->num_axes; k++) {
        fputs(k ? ", " : "", out);
        mlir_print_string(out, mesh->axes[k].name);
        fprintf(out, "=%lld", (long long)mesh->axes[k].size);
    }
    fputc(']', out);
    if (mesh->device_ids && (!mesh->num_axes || !is_iota(mesh))) {
        fputs(", device_ids=", out);
        mlir_print_ints(out, mesh->device_ids, (int)mesh->num_devices);
    }
    fputc('>', out);
}

static void piece_axes(MlirPiece *b, const Mesh *mesh, const AxisRef *axes, int n)
{
    for (int k = 0; k < n; k++) {
        if (k)
            mlir_piece_add(b, ", ", 2);
        piece_string(b, mesh->axes[axes[k].axis].name);
        if (!axis_ref_is_full(mesh, axes[k])) {
            mlir_piece_add(b, ":(", 2);
            mlir_piece_int(b, (long long)axes[k].pre_size);
            mlir_piece_add(b, ")", 1);
            mlir_piece_int(b, (long long)axes[k].size);
        }
    }
}

void mlir_print_axes(FILE *out, const Mesh *mesh, const AxisRef *axes, int n)
{
    MlirPiece b = {.out = out};
    piece_axes(&b, mesh, axes, n);
    mlir_piece_flush(&b);
}

static bool module_mesh(const MlirPrinter *p, const Mesh *mesh)
{
    for (int i = 0; i < p->m->num_meshes; i++)
        if (p->m->meshes[i] == mesh)
            return mesh->name != NULL;
    return false;
}

static void print_mesh_ref(MlirPrinter *p, const Mesh *mesh)
{
    if (module_mesh(p, mesh)) {
        fputc('@', p->out);
        fputs(mesh->name, p->out);
    } else {
        fputs("mesh", p->out);
        mlir_print_mesh_literal(p->out, mesh);
    }
}

/* sdy's DimensionShardingAttr: {"a", ?}, {?}, {}, then a priority p<N>. */
static void piece_dims(MlirPiece *b, const Sharding *s)
{
    /* A maximal mesh has no axes to shard along: sdy writes its shardings
     * `[]` whatever the rank (the importer gives them closed dims). */
    bool maximal = s->mesh->num_axes == 0 && s->mesh->device_ids;
    for (int d = 0; d < s->rank && !maximal; d++) {
        const DimSharding *dim = &s->dims[d];
        mlir_piece_str(b, d ? ", {" : "{");
        piece_axes(b, s->mesh, dim->axes, dim->num_axes);
        if (!dim->is_closed)
            mlir_piece_str(b, dim->num_axes ? ", ?" : "?");
        mlir_piece_add(b, "}", 1);
        if (dim->priority != PRIORITY_NONE) {
            mlir_piece_add(b, "p", 1);
            mlir_piece_int(b, dim->priority);
        }
    }
}

/* `<@mesh, [...]...>` into b; a mesh written inline goes out directly
 * (b flushed first, so the order holds). */
static void piece_tensor_sharding(MlirPiece *b, MlirPrinter *p, const Sharding *s)
{
    if (module_mesh(p, s->mesh)) {
        mlir_piece_add(b, "<@", 2);
        mlir_piece_str(b, s->mesh->name);
    } else {
        mlir_piece_add(b, "<", 1);
        mlir_piece_flush(b);
        print_mesh_ref(p, s->mesh);
    }
    mlir_piece_add(b, ", [", 3);
    piece_dims(b, s);
    mlir_piece_add(b, "]", 1);
    if (s->num_replicated) {
        mlir_piece_str(b, ", replicated={");
        piece_axes(b, s->mesh, s->replicated, s->num_replicated);
        mlir_piece_add(b, "}", 1);
    }
    if (s->num_unreduced) {
        mlir_piece_str(b, ", unreduced=");
        mlir_piece_str(b, s->unreduced_op == UNREDUCED_SUM ? "" : sharding_unreduced_op_name(s->unreduced_op));
        mlir_piece_add(b, "{", 1);
        piece_axes(b, s->mesh, s->unreduced, s->num_unreduced);
        mlir_piece_add(b, "}", 1);
    }
    mlir_piece_add(b, ">", 1);
}

void mlir_print_tensor_sharding(MlirPrinter *p, const Sharding *s)
{
    MlirPiece b = {.out = p->out};
    piece_tensor_sharding(&b, p, s);
    mlir_piece_flush(&b);
}

void mlir_print_open_sharding(MlirPrinter *p, const Mesh *mesh, int rank)
{
    fputc('<', p->out);
    print_mesh_ref(p, mesh);
    fputs(", [", p->out);
    for (int d = 0; d < rank; d++)
        fputs(d ? ", {?}" : "{?}", p->out);
    fputs("]>", p->out);
}

static void print_closed_sharding(MlirPrinter *p, const Mesh *mesh, int rank)
{
    fputc('<', p->out);
    print_mesh_ref(p, mesh);
    fputs(", [", p->out);
    for (int d = 0; d < rank; d++)
        fputs(d ? ", {}" : "{}", p->out);
    fputs("]>", p->out);
}

/* #sdy.sharding_per_value of an op's results; a result with no sharding
 * is fully open on the mesh of the others (read from MLIR, where sdy_opt
 * gives such results a closed replicated sharding: fully closed). */
static void piece_result_shardings(MlirPiece *b, MlirPrinter *p, const Op *op)
{
    const Mesh *mesh = NULL;
    for (int i = 0; i < op->num_results && !mesh; i++)
        if (op->results[i]->sharding)
            mesh = op->results[i]->sharding->mesh;
    mlir_piece_str(b, "#sdy.sharding_per_value<[");
    for (int i = 0; i < op->num_results; i++) {
        const Value *r = op->results[i];
        if (i)
            mlir_piece_add(b, ", ", 2);
        if (r->sharding) {
            piece_tensor_sharding(b, p, r->sharding);
            continue;
        }
        mlir_piece_flush(b);
        if (p->renumber)
            print_closed_sharding(p, mesh, r->type.rank);
        else
            mlir_print_open_sharding(p, mesh, r->type.rank);
    }
    mlir_piece_add(b, "]>", 2);
}

/* ---- attribute values ------------------------------------------------------------ */

static void print_string_list(FILE *out, const AttrValue *v)
{
    fputc('[', out);
    for (int i = 0; v->kind == ATTR_ARRAY && i < v->u.array.count; i++) {
        const AttrValue *item = v->u.array.items[i];
        fputs(i ? ", " : "", out);
        mlir_print_string(out, item->kind == ATTR_STRING ? item->u.s : "");
    }
    fputc(']', out);
}

static void print_generic_value(MlirPrinter *p, const AttrValue *v, DType dt);

static void print_dict(MlirPrinter *p, const AttrValue *v)
{
    fputc('{', p->out);
    for (int i = 0; i < v->u.dict.count; i++) {
        fputs(i ? ", " : "", p->out);
        fputs(v->u.dict.items[i].name, p->out);
        fputs(" = ", p->out);
        print_generic_value(p, v->u.dict.items[i].value, DT_I64);
    }
    fputc('}', p->out);
}

/* A value by its own kind: numbers typed as dt (i64 where nothing says). */
static void print_generic_value(MlirPrinter *p, const AttrValue *v, DType dt)
{
    FILE *out = p->out;
    dt = dtype_complex_part(dt); /* a complex full's value: its real part */
    switch (v->kind) {
    case ATTR_INT:
        if (dtype_is_float(dt))
            mlir_print_float(out, (double)v->u.i, dt);
        else
            io_put_int(out, (long long)v->u.i);
        fputs(" : ", out);
        fputs(dtype_mlir_name(dt == DT_BOOL ? DT_I64 : dt), out);
        break;
    case ATTR_FLOAT:
        mlir_print_float(out, v->u.f, dtype_is_float(dt) ? dt : DT_F64);
        fputs(" : ", out);
        fputs(dtype_mlir_name(dtype_is_float(dt) ? dt : DT_F64), out);
        break;
    case ATTR_BOOL: fputs(v->u.b ? "true" : "false", out); break;
    case ATTR_STRING: mlir_print_string(out, v->u.s); break;
    case ATTR_SYMBOL: fputc('@', out); fputs(v->u.s, out); break;
    case ATTR_SHARDING:
        fputs("#sdy.sharding", out);
        mlir_print_tensor_sharding(p, v->u.sharding);
        break;
    case ATTR_DICT: print_dict(p, v); break;
    case ATTR_ARRAY:
        fputc('[', out);
        for (int i = 0; i < v->u.array.count; i++) {
            fputs(i ? ", " : "", out);
            print_generic_value(p, v->u.array.items[i], dt);
        }
        fputc(']', out);
        break;
    }
}

static void print_int_array(FILE *out, const AttrValue *v)
{
    int64_t ints[SHARDC_MAX_RANK];
    int n = attr_int_array(v, ints, SHARDC_MAX_RANK);
    fputs("array<i64", out);
    for (int i = 0; i < n; i++) {
        fputs(i ? ", " : ": ", out);
        io_put_int(out, (long long)ints[i]);
    }
    fputc('>', out);
}

static void print_shardings_value(MlirPrinter *p, const AttrValue *v)
{
    fputs("#sdy.sharding_per_value<[", p->out);
    for (int i = 0; v->kind == ATTR_ARRAY && i < v->u.array.count; i++) {
        const AttrValue *item = v->u.array.items[i];
        fputs(i ? ", " : "", p->out);
        if (item->kind == ATTR_SHARDING)
            mlir_print_tensor_sharding(p, item->u.sharding);
    }
    fputs("]>", p->out);
}

/* The op's attribute in MLIR syntax, as ops.def types it: INT `3 : i64`,
 * INTS `array<i64: 0, 1>`, AXES and NAMES string lists, TENSOR a dense
 * constant of the result type, SCALAR a number of the result's element
 * type, SHARDING(S) sdy attributes, PAIRS nested lists, SIZES a
 * dictionary. */
void mlir_print_attr_value(MlirPrinter *p, const Op *op, const NamedAttr *a)
{
    const OpAttrSpec *spec = op_attr_spec(op->kind, a->key);
    const TensorType *res = op->num_results ? &op->results[0]->type : NULL;
    DType dt = res ? res->dtype : DT_F32;
    switch (spec ? spec->type : ATYPE_COUNT) {
    case ATYPE_INTS: print_int_array(p->out, a->value); return;
    case ATYPE_AXES:
    case ATYPE_NAMES: print_string_list(p->out, a->value); return;
    case ATYPE_TENSOR:
        if (res) {
            mlir_print_dense(p->out, a->value, res);
            return;
        }
        break;
    case ATYPE_SCALAR: print_generic_value(p, a->value, dt); return;
    case ATYPE_SHARDINGS: print_shardings_value(p, a->value); return;
    default: break;
    }
    print_generic_value(p, a->value, DT_I64);
}

/* ---- attribute dictionaries ------------------------------------------------------- */

void mlir_attrs_init(MlirAttrList *l, MlirPrinter *p, const Op *op)
{
    l->p = p;
    l->op = op;
    l->count = 0;
    l->cap = MLIR_ATTR_INLINE;
    l->items = l->inline_items;
}

void mlir_attrs_add(MlirAttrList *l, const char *name, MlirItemKind kind, const void *ptr)
{
    if (l->count == l->cap) {
        MlirAttrItem *grown = ARENA_ARRAY(&l->p->arena, MlirAttrItem, l->cap * 2);
        memcpy(grown, l->items, sizeof *grown * (size_t)l->count);
        l->items = grown;
        l->cap *= 2;
    }
    l->items[l->count++] = (MlirAttrItem){name, kind, ptr};
}

void mlir_attrs_add_kept(MlirAttrList *l, const MlirKeptAttrs *kept)
{
    for (int i = 0; kept && i < kept->count; i++)
        mlir_attrs_add(l, kept->items[i].name, kept->items[i].text ? MLIR_ITEM_KEPT : MLIR_ITEM_UNIT,
                       &kept->items[i]);
}

/* `name = value` into b; the values not built in pieces go out directly,
 * after b is flushed. */
static void print_item(MlirAttrList *l, const MlirAttrItem *it, MlirPiece *b)
{
    FILE *out = l->p->out;
    mlir_piece_str(b, it->name);
    if (it->kind == MLIR_ITEM_UNIT)
        return;
    mlir_piece_add(b, " = ", 3);
    switch (it->kind) {
    case MLIR_ITEM_SHARDING:
        mlir_piece_str(b, "#sdy.sharding");
        piece_tensor_sharding(b, l->p, it->ptr);
        return;
    case MLIR_ITEM_SHARDINGS: piece_result_shardings(b, l->p, it->ptr); return;
    case MLIR_ITEM_KEPT: mlir_piece_str(b, ((const MlirKeptAttr *)it->ptr)->text); return;
    default: mlir_piece_flush(b); break;
    }
    switch (it->kind) {
    case MLIR_ITEM_RULE: rule_print_sdy(out, it->ptr); break;
    case MLIR_ITEM_LOGICAL: {
        const LogicalAxes *names = it->ptr;
        fputc('[', out);
        for (int d = 0; d < names->rank; d++) {
            fputs(d ? ", " : "", out);
            mlir_print_string(out, names->names[d]);
        }
        fputc(']', out);
        break;
    }
    case MLIR_ITEM_OP_ATTR: mlir_print_attr_value(l->p, l->op, it->ptr); break;
    case MLIR_ITEM_STRING: mlir_print_string(out, it->ptr); break;
    case MLIR_ITEM_SYMBOL: fputc('@', out); fputs(it->ptr, out); break;
    case MLIR_ITEM_KEPT:
    case MLIR_ITEM_SHARDING:
    case MLIR_ITEM_SHARDINGS:
    case MLIR_ITEM_UNIT: break; /* written above */
    }
}

/* Sorted by name (a stable insertion sort: the lists are short, and of
 * two items of one name the first added wins). */
void mlir_attrs_print(MlirAttrList *l)
{
    mlir_attrs_print_in(l, " {", "}");
}

void mlir_attrs_print_in(MlirAttrList *l, const char *open, const char *close)
{
    for (int i = 1; i < l->count; i++) {
        MlirAttrItem it = l->items[i];
        int j = i;
        for (; j > 0 && strcmp(l->items[j - 1].name, it.name) > 0; j--)
            l->items[j] = l->items[j - 1];
        l->items[j] = it;
    }
    if (!l->count)
        return;
    MlirPiece b = {.out = l->p->out};
    mlir_piece_str(&b, open);
    for (int i = 0; i < l->count; i++) {
        if (i && strcmp(l->items[i - 1].name, l->items[i].name) == 0)
            continue;
        if (i)
            mlir_piece_add(&b, ", ", 2);
        print_item(l, &l->items[i], &b);
    }
    mlir_piece_str(&b, close);
    mlir_piece_flush(&b);
}

static bool is_consumed(const AttrKey *consumed, AttrKey key)
{
    for (; consumed && *consumed != ATTR_KEY_NONE; consumed++)
        if (*consumed == key)
            return true;
    return false;
}

static bool is_skipped(const char *const *names, const char *name)
{
    for (; names && *names; names++)
        if (strcmp(*names, name) == 0)
            return true;
    return false;
}

void mlir_print_op_attrs(MlirPrinter *p, const Op *op, const MlirAttrOpts *opts)
{
    MlirAttrList l;
    mlir_attrs_init(&l, p, op);
    bool sharded = false;
    for (int i = 0; i < op->num_results; i++)
        sharded |= op->results[i]->sharding != NULL;
    if (sharded && !opts->no_shardings)
        mlir_attrs_add(&l, "sdy.sharding", MLIR_ITEM_SHARDINGS, op);
    if (opts->rule)
        mlir_attrs_add(&l, "sdy.sharding_rule", MLIR_ITEM_RULE, opts->rule);
    for (int i = 0; i < op->num_attrs; i++) {
        const NamedAttr *a = &op->attrs[i];
        const OpAttrSpec *spec = op_attr_spec(op->kind, a->key);
        if (is_consumed(opts->consumed, a->key) || (spec && spec->presence == ATTR_ANNOTATION))
            continue;
        const char *name = a->name;
        if (!opts->generic) {
            char buf[128];
            snprintf(buf, sizeof buf, "shardc.%.100s", a->name);
            name = arena_strdup(&p->arena, buf);
        }
        mlir_attrs_add(&l, name, MLIR_ITEM_OP_ATTR, a);
    }
    for (int i = 0; op->mlir && i < op->mlir->attrs.count; i++) {
        const MlirKeptAttr *a = &op->mlir->attrs.items[i];
        if (!is_skipped(opts->skip_kept, a->name))
            mlir_attrs_add(&l, a->name, a->text ? MLIR_ITEM_KEPT : MLIR_ITEM_UNIT, a);
    }
    if (opts->generic && op->str)
        mlir_attrs_add(&l, "spec", MLIR_ITEM_STRING, op->str);
    if (opts->generic && op->callee && !opts->no_callee)
        mlir_attrs_add(&l, "callee", MLIR_ITEM_SYMBOL, op->callee);
    for (const MlirKeptAttr *e = opts->extra; e && e->name; e++)
        mlir_attrs_add(&l, e->name, MLIR_ITEM_KEPT, e);
    mlir_attrs_print(&l);
}

void mlir_print_marker(MlirPrinter *p, const char *marker)
{
    fprintf(p->out, " {%s}", marker);
}
