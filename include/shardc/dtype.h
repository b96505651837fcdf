/* Element types, shared by the IR, the interpreter and the .npy reader. */
#ifndef SHARDC_DTYPE_H
#define SHARDC_DTYPE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What an element type is, for the verifier's type rules and the kernels:
 * floats (bf16 and f16 are stored as bits and computed in f32), signed and
 * unsigned two's-complement integers (arithmetic wraps), bool, and
 * StableHLO's token (`token[]`, MLIR's !stablehlo.token: orders side
 * effects, holds no data; only calls, control flow, after_all and the
 * ops that pass values through take one, and it is never sharded), and
 * complex numbers (c64 and c128: a real and an imaginary f32 or f64, C's
 * float/double _Complex and NumPy's complex64/complex128 layout; only the
 * ops that verify_complex_ok lists take them, src/verify/ops.c). */
typedef enum { DTC_FLOAT, DTC_SINT, DTC_UINT, DTC_BOOL, DTC_TOKEN, DTC_COMPLEX } DTypeClass;

/* X(enum, spelling, byte size, class, MLIR spelling). The spellings are
 * JAX's short dtype names (jnp.float16 is f16, jnp.uint32 u32); MLIR's
 * builtin types spell unsigned integers ui32 and bool i1. */
#define SHARDC_DTYPES(X)                         \
    X(DT_F32, "f32", 4, DTC_FLOAT, "f32")        \
    X(DT_F64, "f64", 8, DTC_FLOAT, "f64")        \
    X(DT_BF16, "bf16", 2, DTC_FLOAT, "bf16")     \
    X(DT_F16, "f16", 2, DTC_FLOAT, "f16")        \
    X(DT_I8, "i8", 1, DTC_SINT, "i8")            \
    X(DT_I32, "i32", 4, DTC_SINT, "i32")         \
    X(DT_I64, "i64", 8, DTC_SINT, "i64")         \
    X(DT_U32, "u32", 4, DTC_UINT, "ui32")        \
    X(DT_U64, "u64", 8, DTC_UINT, "ui64")        \
    X(DT_BOOL, "bool", 1, DTC_BOOL, "i1")        \
    X(DT_TOKEN, "token", 1, DTC_TOKEN, "!stablehlo.token")     \
    X(DT_C64, "c64", 8, DTC_COMPLEX, "complex<f32>")          \
    X(DT_C128, "c128", 16, DTC_COMPLEX, "complex<f64>")
/* The spellings above, for messages; keep it in step with the table. */
#define SHARDC_DTYPE_SPELLINGS "f32, f64, bf16, f16, i8, i32, i64, u32, u64, bool, token, c64 or c128"

typedef enum {
#define X(e, s, n, c, m) e,
    SHARDC_DTYPES(X)
#undef X
    DT_COUNT
} DType;

const char *dtype_name(DType dt);
size_t dtype_size(DType dt);
DTypeClass dtype_class(DType dt);
bool dtype_is_float(DType dt);
bool dtype_is_complex(DType dt);
/* The type of a complex type's parts (c64: f32, c128: f64), and back
 * (f32: c64, f64: c128); other types map to themselves / false. */
DType dtype_complex_part(DType dt);
bool dtype_complex_of(DType part, DType *out);
/* Signed or unsigned integer (not bool). */
bool dtype_is_int(DType dt);
bool dtype_is_unsigned(DType dt);
/* The values an integer or bool type holds (bool: 0 and 1); false for
 * floats. */
bool dtype_int_range(DType dt, int64_t *lo, int64_t *hi);
/* Parse "f32" etc.; returns false for an unknown name. */
bool dtype_parse(const char *name, size_t len, DType *out);
/* The MLIR element type ("ui32", "i1"), and back. */
const char *dtype_mlir_name(DType dt);
bool dtype_parse_mlir(const char *name, size_t len, DType *out);

#endif
