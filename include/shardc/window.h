/* Windowed ops: StableHLO's convolution, reduce_window and
 * select_and_scatter. Their dimension numbers and window attributes are
 * read once (src/ir/window.c) and shared by the verifier, the sharding
 * rules, the kernels, the partitioner and the MLIR reader/printer. */
#ifndef SHARDC_WINDOW_H
#define SHARDC_WINDOW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "shardc/type.h"

/* A convolution's dimension numbers, as StableHLO's
 * `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`: which dim of the input,
 * kernel and output is the batch, the feature and the i-th spatial dim. */
typedef struct ConvDims {
    int num_spatial;
    int64_t in_batch, in_feature, in_spatial[SHARDC_MAX_RANK];
    int64_t k_in, k_out, k_spatial[SHARDC_MAX_RANK];
    int64_t out_batch, out_feature, out_spatial[SHARDC_MAX_RANK];
} ConvDims;

/* One window per windowed dim (a convolution's spatial dims, in order;
 * every dim of a reduce_window or select_and_scatter). */
typedef struct WindowDims {
    int n;
    int64_t size[SHARDC_MAX_RANK];      /* window size (a kernel's spatial size) */
    int64_t stride[SHARDC_MAX_RANK];
    int64_t lo[SHARDC_MAX_RANK], hi[SHARDC_MAX_RANK]; /* padding, may be negative */
    int64_t base_dil[SHARDC_MAX_RANK];  /* lhs_dilation / base_dilations */
    int64_t win_dil[SHARDC_MAX_RANK];   /* rhs_dilation / window_dilations */
} WindowDims;

/* Parses `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` for tensors of rank
 * `rank`; false with *err saying why. */
bool op_conv_dims_parse(const char *s, int rank, ConvDims *d, const char **err);
/* The string op_conv_dims_parse reads. */
void op_conv_dims_format(const ConvDims *d, char *buf, size_t len);

struct Op;
/* A verified convolution's dimension numbers. */
bool op_conv_dims(const struct Op *op, ConvDims *d);
/* A verified windowed op's windows (absent attributes: stride 1, no
 * padding, no dilation); a convolution's sizes are its kernel's. */
void op_window_dims(const struct Op *op, WindowDims *w);
/* The number of windows along dim i of an input of `size`: 0 if none fits. */
int64_t op_window_count(const WindowDims *w, int i, int64_t size);
/* A select_and_scatter's `direction`, the compare its select region makes
 * of the current and the next element: 0 "ge" (the default), 1 "gt",
 * 2 "le", 3 "lt" (kernels.h's WindowSelect); -1 for anything else. */
int op_select_direction(const struct Op *op);

#endif
