/* JAX's CPU linear-algebra custom_call targets, lapack_<s|d><routine>_ffi
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
    LAPACK_ORGQR, /* a, taus -> q */
    LAPACK_SYEVD, /* a -> eigenvectors, eigenvalues, info */
    LAPACK_GESDD, /* a -> a (overwritten), s, u, vt, info */
    LAPACK_TRSM,  /* a, b -> x */
    LAPACK_ROUTINE_COUNT
} LapackRoutine;

typedef struct LapackTarget {
    LapackRoutine routine;
    DType dtype; /* DT_F32 (s) or DT_F64 (d) */
} LapackTarget;

/* "lapack_spotrf_ffi" -> {LAPACK_POTRF, DT_F32}; false for any other name. */
bool lapack_target_parse(const char *name, LapackTarget *out);
/* Whether the name is JAX's form of a LAPACK target, known or not. */
bool lapack_is_target_name(const char *name);
int lapack_num_operands(LapackRoutine r);
int lapack_num_results(LapackRoutine r);
/* The routine's part of the name ("potrf"), for messages. */
const char *lapack_routine_name(LapackRoutine r);
/* Whether result (or operand, when `operand`) i of the routine is a
 * matrix (its last two dims), not a vector or the info. */
bool lapack_is_matrix(LapackRoutine r, bool operand, int i);
/* The targets shardc runs, for messages. */
#define LAPACK_KNOWN_TARGETS "lapack_{s,d}{potrf,getrf,geqrf,orgqr,syevd,gesdd,trsm}_ffi"

#endif
