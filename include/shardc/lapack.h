/* JAX's CPU linear-algebra custom_call targets, lapack_<s|d|c|z><routine>_ffi
 * (jaxlib/cpu/lapack_kernels.cc), that shardc runs: their names, and the
 * operands and results of each routine. Shared by the verifier, the rules,
 * the MLIR printer and the kernels (src/kernels/lapack.c). */
#ifndef SHARDC_LAPACK_H
#define SHARDC_LAPACK_H
#include <stdbool.h>
#include "shardc/dtype.h"

typedef enum {
    LAPACK_POTRF, /* a -> factor, info */
    LAPACK_GETRF, /* a -> lu, ipiv (1-based), info */
    LAPACK_GEQRF, /* a -> r and reflectors, taus */
    LAPACK_ORGQR, /* a, taus -> q (ungqr on complex types) */
    LAPACK_SYEVD, /* a -> eigenvectors, eigenvalues (real), info (heevd on complex types) */
    LAPACK_GESDD, /* a -> a (overwritten), s (real), u, vt, info */
    LAPACK_TRSM,  /* a, b -> x */
    LAPACK_ROUTINE_COUNT
} LapackRoutine;

typedef struct LapackTarget {
    LapackRoutine routine;
    DType dtype; /* DT_F32 (s), DT_F64 (d), DT_C64 (c) or DT_C128 (z) */
} LapackTarget;

/* "lapack_spotrf_ffi" -> {LAPACK_POTRF, DT_F32}; false for any other name. */
bool lapack_target_parse(const char *name, LapackTarget *out);
/* Whether the name is JAX's form of a LAPACK target, known or not. */
bool lapack_is_target_name(const char *name);
int lapack_num_operands(LapackRoutine r);
int lapack_num_results(LapackRoutine r);
/* The routine's part of the name on element type dt ("potrf"; "ungqr"
 * and "heevd" for orgqr and syevd on complex types). */
const char *lapack_routine_name(LapackRoutine r, DType dt);
/* Whether result (or operand, when `operand`) i of the routine is a
 * matrix (its last two dims), not a vector or the info. */
bool lapack_is_matrix(LapackRoutine r, bool operand, int i);
/* The targets shardc runs, for messages. */
#define LAPACK_KNOWN_TARGETS                                                                                   \
    "lapack_{s,d}{potrf,getrf,geqrf,orgqr,syevd,gesdd,trsm}_ffi and "                                          \
    "lapack_{c,z}{potrf,getrf,geqrf,ungqr,heevd,gesdd,trsm}_ffi"

#endif
