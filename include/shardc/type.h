/* Tensor types: a dtype and a shape, written JAX-style f32[8,16]. Shapes
 * are static everywhere but in `shardc opt` (docs/mlir.md "What is
 * read"), which also reads MLIR's dynamic dims (`tensor<8x?xf32>`: a dim
 * TYPE_DYNAMIC_DIM, MLIR's ShapedType::kDynamic) and unranked tensors
 * (`tensor<*xf32>`: rank SHARDC_UNRANKED, dims NULL); every other reader
 * refuses them, so no stage past the readers meets one. */
#ifndef SHARDC_TYPE_H
#define SHARDC_TYPE_H
#include <stdint.h>
#include <stdio.h>
#include "shardc/arena.h"
#include "shardc/dtype.h"
#include "shardc/writer.h"

enum { SHARDC_MAX_RANK = 16, SHARDC_UNRANKED = -1 };
#define TYPE_DYNAMIC_DIM INT64_MIN

typedef struct TensorType {
    DType dtype;
    int rank;        /* 0 for scalars; SHARDC_UNRANKED (-1, never a count) for tensor<*xT> */
    int64_t *dims;   /* rank entries, arena-owned, TYPE_DYNAMIC_DIM for `?`; NULL for scalars */
} TensorType;

/* A rank and no dynamic dim: the only types shardc computes sizes of. */
_Bool type_is_static(const TensorType *t);
/* Number of elements; false if it overflows int64 or the type is not static. */
_Bool type_num_elements(const TensorType *t, int64_t *out);
_Bool type_equal(const TensorType *a, const TensorType *b);
_Bool type_same_shape(const TensorType *a, const TensorType *b);
TensorType type_make(Arena *arena, DType dtype, int rank, const int64_t *dims);
/* `f32[8,16]`, onto a writer or a stream. */
void type_print_to(Writer *out, const TensorType *t);
void type_print(FILE *out, const TensorType *t);
/* t as MLIR spells it in a message (tensor<8x?xf32>, tensor<*xf32>,
 * !stablehlo.token), into buf. */
void type_mlir_text(char *buf, size_t n, const TensorType *t);
/* StableHLO bitcast_convert's result shape for `dims` of `from` read as
 * `to`: the same shape for one bit width; to a narrower type one more
 * minor dim of the ratio; to a wider one the operand's minor dim, which
 * must be the ratio, dropped. False (out untouched) for bool, complex to
 * or from another class, or shapes that do not fit. */
_Bool type_bitcast_shape(DType from, int rank, const int64_t *dims, DType to, int *out_rank, int64_t *out_dims);

#endif
