/* NumPy .npy files (format versions 1.0, 2.0, 3.0; docs/kernels.md).
 *
 * Read: C-order arrays with descr '<f4' '<f8' '<f2' '<i4' '<i8' '<u4' '|i1'
 * '|b1' (f32 f64 f16 i32 i64 u32 i8 bool; the big-endian '>f4' '>f8' '>f2'
 * '>i4' '>i8' '>u4' are byte-swapped on load). Every
 * malformed input (bad magic, truncated or oversized data, lying or
 * overflowing shapes, fortran_order True, unterminated header, unknown
 * descr) is a TENSOR_ERR_FORMAT with a message, never a crash or over-read.
 * bf16 is rejected both ways: NumPy has no bfloat16 dtype.
 *
 * Write: version 1.0 (2.0 if the header needs it), little-endian, atomically
 * (a temporary NAME.tmpXXXXXX in the same directory, then rename). */
#ifndef SHARDC_NPY_H
#define SHARDC_NPY_H
#include <stddef.h>
#include "shardc/tensor.h"

TensorStatus npy_read(TensorCtx *ctx, const char *path, Tensor **out);
/* Decode a whole .npy image held in memory. */
TensorStatus npy_decode(TensorCtx *ctx, const void *bytes, size_t len, Tensor **out);
TensorStatus npy_write(TensorCtx *ctx, const char *path, const Tensor *t);
/* The same into an open file (fsynced, not closed); path names it in
 * messages. For callers that manage the file's name themselves. */
TensorStatus npy_write_fd(TensorCtx *ctx, int fd, const char *path, const Tensor *t);

#endif
