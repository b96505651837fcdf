/* Tensor types (shape queries, printing) and the dtype table. */
#include "shardc/writer.h"
#include "shardc/type.h"
#include <stdbool.h>
#include <string.h>
#include "shardc/checked.h"
#include "shardc/dtype.h"

bool type_is_static(const TensorType *t)
{
    if (t->rank < 0)
        return false;
    for (int i = 0; i < t->rank; i++)
        if (t->dims[i] < 0)
            return false;
    return true;
}

bool type_num_elements(const TensorType *t, int64_t *out)
{
    return t->rank >= 0 && size_product(t->dims, t->rank, out); /* size_product refuses dynamic dims */
}

bool type_same_shape(const TensorType *a, const TensorType *b)
{
    if (a->rank != b->rank)
        return false;
    if (a->dims == b->dims) /* interned shapes (the .shir reader's, the partitioner's) share their dims */
        return true;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

bool type_equal(const TensorType *a, const TensorType *b)
{
    return a->dtype == b->dtype && type_same_shape(a, b);
}

TensorType type_make(Arena *arena, DType dtype, int rank, const int64_t *dims)
{
    TensorType t = {dtype, rank, NULL};
    t.dims = arena_memdup(arena, dims, (size_t)rank, sizeof *dims);
    return t;
}

bool type_bitcast_shape(DType from, int rank, const int64_t *dims, DType to, int *out_rank, int64_t *out_dims)
{
    size_t wide = dtype_size(from), narrow = dtype_size(to);
    bool complex = dtype_class(from) == DTC_COMPLEX || dtype_class(to) == DTC_COMPLEX;
    if (from == DT_BOOL || to == DT_BOOL || (complex && (wide != narrow || dtype_class(from) != dtype_class(to))))
        return false;
    if (wide == narrow) {
        *out_rank = rank;
    } else if (wide > narrow) {
        if (rank >= SHARDC_MAX_RANK)
            return false;
        out_dims[rank] = (int64_t)(wide / narrow);
        *out_rank = rank + 1;
    } else if (rank == 0 || dims[rank - 1] != (int64_t)(narrow / wide)) {
        return false;
    } else {
        *out_rank = rank - 1;
    }
    for (int d = 0; d < *out_rank && d < rank; d++)
        out_dims[d] = dims[d];
    return true;
}

void type_print_to(Writer *out, const TensorType *t)
{
    writer_str(out, dtype_name(t->dtype));
    writer_char(out, '[');
    for (int i = 0; i < t->rank; i++) {
        if (i)
            writer_char(out, ',');
        writer_int(out, (long long)t->dims[i]);
    }
    writer_char(out, ']');
}

void type_mlir_text(char *buf, size_t n, const TensorType *t)
{
    if (t->dtype == DT_TOKEN) {
        snprintf(buf, n, "%s", dtype_mlir_name(DT_TOKEN));
        return;
    }
    size_t len = (size_t)snprintf(buf, n, t->rank == SHARDC_UNRANKED ? "tensor<*x" : "tensor<");
    for (int d = 0; d < t->rank && len < n; d++) {
        if (t->dims[d] == TYPE_DYNAMIC_DIM)
            len += (size_t)snprintf(buf + len, n - len, "?x");
        else
            len += (size_t)snprintf(buf + len, n - len, "%lldx", (long long)t->dims[d]);
    }
    if (len < n)
        snprintf(buf + len, n - len, "%s>", dtype_mlir_name(t->dtype));
}

void type_print(FILE *stream, const TensorType *t)
{
    Writer out;
    writer_init(&out, stream);
    type_print_to(&out, t);
    writer_flush(&out);
}


static const struct {
    const char *name;
    size_t size;
    DTypeClass cls;
    const char *mlir;
} dtype_table[] = {
#define X(e, s, n, c, m) {s, n, c, m},
    SHARDC_DTYPES(X)
#undef X
};

const char *dtype_name(DType dt) { return dtype_table[dt].name; }
const char *dtype_mlir_name(DType dt) { return dtype_table[dt].mlir; }
size_t dtype_size(DType dt) { return dtype_table[dt].size; }
DTypeClass dtype_class(DType dt) { return dtype_table[dt].cls; }
bool dtype_is_float(DType dt) { return dtype_table[dt].cls == DTC_FLOAT; }
bool dtype_is_complex(DType dt) { return dtype_table[dt].cls == DTC_COMPLEX; }
DType dtype_complex_part(DType dt) { return dt == DT_C64 ? DT_F32 : dt == DT_C128 ? DT_F64 : dt; }

bool dtype_complex_of(DType part, DType *out)
{
    *out = part == DT_F32 ? DT_C64 : DT_C128;
    return part == DT_F32 || part == DT_F64;
}

bool dtype_is_int(DType dt) { return dtype_table[dt].cls == DTC_SINT || dtype_table[dt].cls == DTC_UINT; }
bool dtype_is_unsigned(DType dt) { return dtype_table[dt].cls == DTC_UINT; }

bool dtype_int_range(DType dt, int64_t *lo, int64_t *hi)
{
    DTypeClass cls = dtype_table[dt].cls;
    if (cls == DTC_FLOAT || cls == DTC_TOKEN || cls == DTC_COMPLEX)
        return false;
    int bits = 8 * (int)dtype_table[dt].size;
    if (cls == DTC_BOOL) {
        *lo = 0;
        *hi = 1;
    } else if (cls == DTC_UINT) { /* u64: literals and attributes are int64, so its range stops there */
        *lo = 0;
        *hi = bits >= 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << bits) - 1);
    } else {
        *hi = (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
        *lo = -*hi - 1;
    }
    return true;
}

/* The entry whose spelling (the .shir one, or with `mlir` the MLIR one) is
 * name[0..len). */
static bool parse_spelling(const char *name, size_t len, bool mlir, DType *out)
{
    for (int i = 0; i < DT_COUNT; i++) {
        const char *s = mlir ? dtype_table[i].mlir : dtype_table[i].name;
        if (strlen(s) == len && memcmp(s, name, len) == 0) {
            *out = (DType)i;
            return true;
        }
    }
    return false;
}

bool dtype_parse(const char *name, size_t len, DType *out) { return parse_spelling(name, len, false, out); }
bool dtype_parse_mlir(const char *name, size_t len, DType *out) { return parse_spelling(name, len, true, out); }
