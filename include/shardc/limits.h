/* Resource limits on hostile or oversized programs (docs/testing.md):
 * every value's tensor must fit in --max-bytes, so that a program whose
 * shapes promise terabytes is a diagnostic at compile time rather than a
 * failed allocation (or an OOM kill) at run time. `shardc run` holds the
 * interpreter's live tensors to the same cap. */
#ifndef SHARDC_LIMITS_H
#define SHARDC_LIMITS_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "shardc/diag.h"
#include "shardc/ir.h"

/* 64 GiB: far beyond every sample, well short of what malloc would grant. */
#define SHARDC_DEFAULT_MAX_BYTES ((int64_t)64 << 30)

struct CompileOptions;
/* options->max_bytes, or the default when it is 0. */
int64_t limits_max_bytes(const struct CompileOptions *options);
/* "N", or N with a binary suffix K, M, G or T (KiB...TiB), as --max-bytes
 * takes it. False for anything else, zero, or an overflow. */
bool limits_parse_bytes(const char *text, int64_t *out);
/* "3.6 TiB", "64 GiB", "512 bytes" into buf; returns buf. */
const char *limits_format_bytes(int64_t bytes, char *buf, size_t len);
/* The bytes of one tensor of `type`; false if that overflows int64. */
bool limits_type_bytes(const TensorType *type, int64_t *out);
/* Reports every value of m whose tensor is larger than max_bytes, at the
 * value. False if there was one. */
bool limits_check_values(const Module *m, int64_t max_bytes, DiagEngine *diag);

#endif
