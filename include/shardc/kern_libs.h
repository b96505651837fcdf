/* The numeric libraries of the kernels (OpenBLAS, LAPACKE, FFTW), opened
 * with dlopen when a kernel first needs them, not linked: linked, the
 * dynamic loader relocated them in every shardc process, 13M instructions
 * before a compile that never calls them (docs/interpreter.md, "Numeric
 * libraries"). A run owns one KernLibs (its InterpCtx does) and hands it
 * to the kernels in TensorCtx.libs. The libraries, once loaded, stay for
 * the rest of the process, as linked ones would. */
#ifndef SHARDC_KERN_LIBS_H
#define SHARDC_KERN_LIBS_H

typedef struct KernLibs KernLibs;

/* The libraries shardc loads, in the order it loads them. */
typedef enum { KERN_LIB_OPENBLAS, KERN_LIB_LAPACKE, KERN_LIB_FFTW, KERN_LIB_FFTWF, KERN_LIB_COUNT } KernLib;

/* Nothing loaded yet; NULL when out of memory. */
KernLibs *kern_libs_new(void);
/* The same with other file names for the libraries (sonames[KERN_LIB_...]),
 * so a test can name a missing or a wrong one. */
KernLibs *kern_libs_new_named(const char *const sonames[KERN_LIB_COUNT]);
/* Loads the libraries now, if nothing has yet; a failure is reported by
 * the first kernel that needs them. `shardc run` calls it before timing
 * its runs, so the first (the reference) does not carry the loading
 * (some 10 ms) in its time. NULL is a no-op. */
void kern_libs_preload(KernLibs *libs);
/* The table (the libraries stay loaded). NULL is a no-op. */
void kern_libs_free(KernLibs *libs);

#endif
