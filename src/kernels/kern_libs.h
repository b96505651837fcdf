/* The numeric libraries' entry points the kernels call (OpenBLAS's CBLAS,
 * LAPACKE, FFTW in double and single precision), resolved with dlsym when
 * a kernel of a run first needs them (kern_libs.c; docs/interpreter.md,
 * "Numeric libraries"). Internal to the kernels: the kernels that call
 * them reach the table through their TensorCtx. */
#ifndef SHARDC_KERN_LIBS_INTERNAL_H
#define SHARDC_KERN_LIBS_INTERNAL_H
#include <cblas.h>
#include <fftw3.h>
#include <lapacke.h>
#include "shardc/kern_libs.h"
#include "shardc/tensor.h"

/* X(symbol) for each library's symbols the kernels call. A table field
 * carries the symbol's own name and type: `fns->cblas_sgemm(...)`. */
#define KERN_LIBS_OPENBLAS(X)                                                                          \
    X(openblas_set_num_threads) X(cblas_sgemm) X(cblas_dgemm) X(cblas_strsm) X(cblas_dtrsm)          \
    X(cblas_ctrsm) X(cblas_ztrsm)
#define KERN_LIBS_LAPACKE(X)                                                                           \
    X(LAPACKE_spotrf) X(LAPACKE_dpotrf) X(LAPACKE_cpotrf) X(LAPACKE_zpotrf)                          \
    X(LAPACKE_sgetrf) X(LAPACKE_dgetrf) X(LAPACKE_cgetrf) X(LAPACKE_zgetrf)                          \
    X(LAPACKE_sgeqrf) X(LAPACKE_dgeqrf) X(LAPACKE_cgeqrf) X(LAPACKE_zgeqrf)                          \
    X(LAPACKE_sorgqr) X(LAPACKE_dorgqr) X(LAPACKE_cungqr) X(LAPACKE_zungqr)                          \
    X(LAPACKE_ssyevd) X(LAPACKE_dsyevd) X(LAPACKE_cheevd) X(LAPACKE_zheevd)                          \
    X(LAPACKE_sgesdd) X(LAPACKE_dgesdd) X(LAPACKE_cgesdd) X(LAPACKE_zgesdd)
#define KERN_LIBS_FFTW(X)                                                                              \
    X(fftw_plan_many_dft) X(fftw_plan_many_dft_r2c) X(fftw_plan_many_dft_c2r) X(fftw_execute)        \
    X(fftw_destroy_plan)
#define KERN_LIBS_FFTWF(X)                                                                             \
    X(fftwf_plan_many_dft) X(fftwf_plan_many_dft_r2c) X(fftwf_plan_many_dft_c2r) X(fftwf_execute)    \
    X(fftwf_destroy_plan)

typedef struct KernLibFns {
#define KERN_LIBS_FIELD(sym) __typeof__(sym) *sym;
    KERN_LIBS_OPENBLAS(KERN_LIBS_FIELD)
    KERN_LIBS_LAPACKE(KERN_LIBS_FIELD)
    KERN_LIBS_FFTW(KERN_LIBS_FIELD)
    KERN_LIBS_FFTWF(KERN_LIBS_FIELD)
#undef KERN_LIBS_FIELD
} KernLibFns;

/* ctx's libraries, loaded now if no kernel of theirs has yet (safe from
 * every device thread at once). NULL, with the reason in ctx, when ctx
 * has none or they cannot be loaded. */
const KernLibFns *kern_libs_fns(TensorCtx *ctx);

#endif
