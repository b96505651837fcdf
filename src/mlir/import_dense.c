/* dense<...> literals, as MLIR prints them: a splat (`dense<1.0>`), nested
 * lists of ints, floats or bools (`dense<[[1, 2], [3, 4]]>`), float
 * elements written as their bits (`0xFF800000` is -inf in f32, what MLIR
 * prints for infinities and NaNs), and the whole tensor as one hex string
 * of its little-endian bytes (`dense<"0x0000803F...">`). They become a
 * constant's `value` (ops.def TENSOR: a scalar for a splat, else nested
 * lists) or, for replica groups and pairs, a matrix of ints. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mlir/import_internal.h"
#include "shardc/tensor.h"

typedef struct DenseParser {
    ImportCtx *ic;
    const char *p, *end;
    Loc loc;
    DType dtype;
    const char *what;
    bool failed;
    int part;       /* of complex elements: 0 the real parts, 1 the imaginary ones */
    bool any_imag;  /* a complex element with a nonzero imaginary part was read */
    bool imag_ok;   /* that is no error (constants take both parts) */
} DenseParser;

static void dense_error(DenseParser *dp, const char *msg)
{
    if (!dp->failed)
        diag_error(dp->ic->diag, dp->loc, "%s: %s", dp->what, msg);
    dp->failed = true;
}

static void skip_space(DenseParser *dp)
{
    while (dp->p < dp->end && (*dp->p == ' ' || *dp->p == '\n' || *dp->p == '\t' || *dp->p == '\r'))
        dp->p++;
}

/* The text between `dense<` and its `>`; false if a is not a dense literal. */
static bool dense_body(const MlirAttr *a, const char **start, const char **end)
{
    const char *raw = a->raw ? strstr(a->raw, "dense<") : NULL;
    if (a->kind != MA_DENSE || !raw)
        return false;
    const char *p = raw + 6;
    int depth = 1;
    bool quoted = false;
    for (*start = p; *p; p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (!quoted && *p == '<')
            depth++;
        else if (!quoted && *p == '>' && --depth == 0)
            break;
    }
    *end = p;
    return *p == '>';
}

static double float_from_bits(DType dt, uint64_t bits)
{
    if (dt == DT_F64) {
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
    }
    if (dt == DT_F16)
        return f16_to_f32((uint16_t)bits);
    uint32_t b32 = dt == DT_BF16 ? (uint32_t)(bits << 16) : (uint32_t)bits;
    float f;
    memcpy(&f, &b32, sizeof f);
    return f;
}

static AttrValue *number_value(DenseParser *dp, const char *text, size_t len, Loc loc)
{
    char buf[64];
    if (len >= sizeof buf) {
        dense_error(dp, "a number is too long");
        return NULL;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    bool hex = len > 2 && (buf[0] == '0') && (buf[1] == 'x' || buf[1] == 'X');
    char *stop;
    errno = 0;
    DType part = dtype_complex_part(dp->dtype); /* a complex number's parts are floats */
    if (dtype_is_float(part)) {
        AttrValue *v = attr_new(dp->ic->arena, ATTR_FLOAT, loc);
        v->u.f = hex ? float_from_bits(part, strtoull(buf, &stop, 16)) : strtod(buf, &stop);
        if (*stop)
            dense_error(dp, "expected a float");
        return v;
    }
    AttrValue *v = attr_new(dp->ic->arena, ATTR_INT, loc);
    v->u.i = strtoll(buf, &stop, hex ? 16 : 10);
    if (*stop || errno == ERANGE)
        dense_error(dp, dtype_is_int(dp->dtype) ? "expected an integer" : "expected true or false");
    return v;
}

static AttrValue *parse_element(DenseParser *dp);

/* `(re,im)` of a complex tensor: the part dp->part asks for, since an IR
 * constant holds real numbers (a complex one gets imaginary part 0); a
 * nonzero imaginary part is an error unless the caller takes both parts
 * (mlir_imp_dense_part). */
static AttrValue *parse_complex(DenseParser *dp)
{
    const char *start = ++dp->p, *comma = memchr(start, ',', (size_t)(dp->end - start));
    const char *close = comma ? memchr(comma, ')', (size_t)(dp->end - comma)) : NULL;
    if (!dtype_is_complex(dp->dtype) || !close) {
        dense_error(dp, dtype_is_complex(dp->dtype) ? "expected (real, imaginary)" : "a complex element in a tensor of real numbers");
        return NULL;
    }
    AttrValue *re = number_value(dp, start, (size_t)(comma - start), dp->loc);
    const char *im_start = comma + 1 + strspn(comma + 1, " ");
    AttrValue *im = number_value(dp, im_start, (size_t)(close - im_start), dp->loc);
    dp->p = close + 1;
    dp->any_imag |= im && im->u.f != 0;
    if (!dp->failed && dp->any_imag && !dp->imag_ok)
        dense_error(dp, "a complex literal with a nonzero imaginary part is read only as a value (complex of "
                        "two real constants), not where shardc takes the literal itself (a pad's padding value, "
                        "a reduce's init, an attribute)");
    return dp->part ? im : re;
}

static AttrValue *parse_list(DenseParser *dp)
{
    AttrValue *list = attr_new(dp->ic->arena, ATTR_ARRAY, dp->loc);
    MlirList items = {0};
    dp->p++; /* [ */
    skip_space(dp);
    while (!dp->failed && dp->p < dp->end && *dp->p != ']') {
        arena_list_push(&dp->ic->scratch, &items, parse_element(dp));
        skip_space(dp);
        if (dp->p < dp->end && *dp->p == ',')
            dp->p++;
        else if (dp->p >= dp->end || *dp->p != ']')
            dense_error(dp, "expected ',' or ']'");
    }
    if (dp->p >= dp->end)
        dense_error(dp, "a list is not closed");
    dp->p++;
    list->u.array.count = items.count;
    list->u.array.items = arena_memdup(dp->ic->arena, items.items, (size_t)items.count, sizeof(AttrValue *));
    return list;
}

static AttrValue *parse_element(DenseParser *dp)
{
    skip_space(dp);
    if (dp->p >= dp->end) {
        dense_error(dp, "expected an element");
        return NULL;
    }
    if (*dp->p == '[')
        return parse_list(dp);
    if (*dp->p == '(')
        return parse_complex(dp);
    const char *start = dp->p;
    while (dp->p < dp->end && !strchr(",] \t\n", *dp->p))
        dp->p++;
    size_t len = (size_t)(dp->p - start);
    if ((len == 4 && strncmp(start, "true", 4) == 0) || (len == 5 && strncmp(start, "false", 5) == 0)) {
        if (dp->dtype != DT_BOOL)
            dense_error(dp, "a bool element in a tensor of numbers");
        AttrValue *v = attr_new(dp->ic->arena, ATTR_BOOL, dp->loc);
        v->u.b = len == 4;
        return v;
    }
    if (dp->dtype == DT_BOOL)
        dense_error(dp, "expected true or false");
    return number_value(dp, start, len, dp->loc);
}

/* Nested lists of t's shape from flat elements (dim d on). */
static AttrValue *nest(ImportCtx *ic, const TensorType *t, int d, AttrValue **flat, int64_t *next, Loc loc)
{
    if (d == t->rank)
        return flat[(*next)++];
    AttrValue *list = attr_new(ic->arena, ATTR_ARRAY, loc);
    list->u.array.count = (int)t->dims[d];
    list->u.array.items = ARENA_ARRAY(ic->arena, AttrValue *, t->dims[d]);
    for (int64_t i = 0; i < t->dims[d]; i++)
        list->u.array.items[i] = nest(ic, t, d + 1, flat, next, loc);
    return list;
}

/* An elem-byte integer's bits as a value: two's complement unless unsigned. */
static int64_t sign_extend(uint64_t bits, size_t elem, bool is_unsigned)
{
    if (is_unsigned || elem >= 8)
        return (int64_t)bits;
    uint64_t sign = UINT64_C(1) << (elem * 8 - 1);
    return (int64_t)((bits ^ sign) - sign);
}

/* Element i of little-endian bytes, elem bytes each. */
static AttrValue *hex_element(DenseParser *dp, const unsigned char *bytes, int64_t i, size_t elem)
{
    uint64_t bits = 0;
    for (size_t k = elem; k-- > 0;)
        bits = bits << 8 | bytes[(size_t)i * elem + k];
    if (dp->dtype == DT_BOOL) {
        AttrValue *v = attr_new(dp->ic->arena, ATTR_BOOL, dp->loc);
        v->u.b = bits != 0;
        return v;
    }
    if (dtype_is_float(dp->dtype)) {
        AttrValue *v = attr_new(dp->ic->arena, ATTR_FLOAT, dp->loc);
        v->u.f = float_from_bits(dp->dtype, bits);
        return v;
    }
    AttrValue *v = attr_new(dp->ic->arena, ATTR_INT, dp->loc);
    v->u.i = sign_extend(bits, elem, dtype_is_unsigned(dp->dtype));
    return v;
}

/* `"0x..."`: the whole tensor's bytes, or one element's for a splat. */
static AttrValue *parse_hex(DenseParser *dp, const TensorType *t)
{
    const char *s = dp->p + 3, *close = memchr(s, '"', (size_t)(dp->end - s));
    size_t digits = close ? (size_t)(close - s) : 0, elem = dtype_size(t->dtype);
    int64_t n = 1;
    type_num_elements(t, &n);
    if (dtype_is_complex(t->dtype)) {
        dense_error(dp, "hex literals of complex tensors are not supported");
        return NULL;
    }
    if (!close || digits % 2 || (digits / 2 != elem && (int64_t)(digits / 2) != n * (int64_t)elem)) {
        dense_error(dp, "the hex string does not hold one element or the whole tensor of its type");
        return NULL;
    }
    unsigned char *bytes = arena_alloc(&dp->ic->scratch, digits / 2 + 1);
    for (size_t i = 0; i < digits / 2; i++) {
        int hi = mlir_hex_digit(s[2 * i]), lo = mlir_hex_digit(s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            dense_error(dp, "bad hex digit");
            return NULL;
        }
        bytes[i] = (unsigned char)(hi << 4 | lo);
    }
    dp->p = close + 1;
    if (digits / 2 == elem)
        return hex_element(dp, bytes, 0, elem);
    AttrValue **flat = ARENA_ARRAY(&dp->ic->scratch, AttrValue *, n + 1);
    for (int64_t i = 0; i < n; i++)
        flat[i] = hex_element(dp, bytes, i, elem);
    int64_t next = 0;
    return nest(dp->ic, t, 0, flat, &next, dp->loc);
}

static AttrValue *parse_dense(DenseParser *dp, const TensorType *t)
{
    if (!type_is_static(t)) { /* MLIR's DenseElementsAttr parser's words */
        dense_error(dp, "elements literal type must have static shape");
        return NULL;
    }
    skip_space(dp);
    if (dp->p == dp->end) { /* dense<>: no elements */
        int64_t n = 1, next = 0;
        type_num_elements(t, &n);
        if (n == 0)
            return nest(dp->ic, t, 0, NULL, &next, dp->loc);
        dense_error(dp, "an empty literal for a tensor with elements");
        return NULL;
    }
    if (dp->end - dp->p > 3 && strncmp(dp->p, "\"0x", 3) == 0)
        return parse_hex(dp, t);
    AttrValue *v = parse_element(dp);
    skip_space(dp);
    if (!dp->failed && dp->p != dp->end)
        dense_error(dp, "unexpected text after the elements");
    return dp->failed ? NULL : v;
}

AttrValue *mlir_imp_dense(ImportCtx *ic, const MlirAttr *a, const TensorType *t)
{
    DenseParser dp = {.ic = ic, .loc = mlir_imp_loc(ic, a->loc), .dtype = t->dtype, .what = "dense literal"};
    if (!dense_body(a, &dp.p, &dp.end)) {
        diag_error(ic->diag, dp.loc, "expected a dense<...> literal");
        return NULL;
    }
    return parse_dense(&dp, t);
}

AttrValue *mlir_imp_dense_part(ImportCtx *ic, const MlirAttr *a, const TensorType *t, int part, bool *any_imag)
{
    DenseParser dp = {.ic = ic, .loc = mlir_imp_loc(ic, a->loc), .dtype = t->dtype, .what = "dense literal",
                      .part = part, .imag_ok = true};
    if (!dense_body(a, &dp.p, &dp.end)) {
        diag_error(ic->diag, dp.loc, "expected a dense<...> literal");
        return NULL;
    }
    AttrValue *v = parse_dense(&dp, t);
    *any_imag = dp.any_imag;
    return v;
}

/* The dims of the literal's type `tensor<2x4xi64>` (`dense<...> : type`). */
static bool literal_type(ImportCtx *ic, const MlirAttr *a, TensorType *t)
{
    if (a->type && a->type->kind == MT_TENSOR && a->type->rank == 2) {
        *t = type_make(&ic->scratch, DT_I64, 2, a->type->dims);
        return true;
    }
    const char *text = a->type_text ? a->type_text : mlir_attr_raw(&ic->scratch, a);
    const char *tail = text ? strstr(text, "tensor<") : NULL;
    long long rows, cols;
    if (!tail || sscanf(tail, "tensor<%lldx%lldx", &rows, &cols) != 2 || rows < 0 || cols < 0)
        return false;
    *t = type_make(&ic->scratch, DT_I64, 2, (int64_t[]){rows, cols});
    return true;
}

static bool flatten_matrix(DenseParser *dp, const AttrValue *v, const TensorType *t, int64_t *out)
{
    if (v->kind == ATTR_INT) { /* a splat */
        for (int64_t i = 0; i < t->dims[0] * t->dims[1]; i++)
            out[i] = v->u.i;
        return true;
    }
    if (v->kind != ATTR_ARRAY || v->u.array.count != t->dims[0])
        return false;
    for (int r = 0; r < v->u.array.count; r++) {
        const AttrValue *row = v->u.array.items[r];
        if (row->kind != ATTR_ARRAY || row->u.array.count != t->dims[1])
            return false;
        for (int c = 0; c < row->u.array.count; c++) {
            if (row->u.array.items[c]->kind != ATTR_INT)
                return false;
            out[r * t->dims[1] + c] = row->u.array.items[c]->u.i;
        }
    }
    return true;
}

bool mlir_imp_dense_matrix(ImportCtx *ic, const MlirAttr *a, const char *what, int64_t **out, int *rows,
                           int *cols)
{
    DenseParser dp = {.ic = ic, .loc = mlir_imp_loc(ic, a->loc), .dtype = DT_I64, .what = what};
    TensorType t;
    if (!dense_body(a, &dp.p, &dp.end) || !literal_type(ic, a, &t) || t.dims[0] * t.dims[1] > INT32_MAX) {
        diag_error(ic->diag, dp.loc, "%s must be a dense<...> literal of a 2-d integer tensor", what);
        return false;
    }
    const AttrValue *v = parse_dense(&dp, &t);
    *rows = (int)t.dims[0];
    *cols = (int)t.dims[1];
    *out = ARENA_ARRAY(&ic->scratch, int64_t, t.dims[0] * t.dims[1] + 1);
    if (v && !flatten_matrix(&dp, v, &t, *out))
        dense_error(&dp, "the elements do not have the shape of its type");
    return !dp.failed;
}
