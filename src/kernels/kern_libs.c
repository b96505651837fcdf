/* Loading the numeric libraries when a run's first kernel needs them
 * (include/shardc/kern_libs.h). */
#include "kernels/kern_libs.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KERN_LIBS_UNLOADED, KERN_LIBS_LOADED, KERN_LIBS_FAILED };
enum { KERN_LIBS_ERROR_SIZE = 400 };

struct KernLibs {
    const char *sonames[KERN_LIB_COUNT];
    void *handles[KERN_LIB_COUNT];
    pthread_mutex_t lock; /* held while loading: devices' threads meet here */
    atomic_int state;     /* KERN_LIBS_*; fns and error are set before it leaves UNLOADED */
    KernLibFns fns;
    char error[KERN_LIBS_ERROR_SIZE];
};

static const char *const default_sonames[KERN_LIB_COUNT] = {
    [KERN_LIB_OPENBLAS] = "libopenblas.so.0",
    [KERN_LIB_LAPACKE] = "liblapacke.so.3",
    [KERN_LIB_FFTW] = "libfftw3.so.3",
    [KERN_LIB_FFTWF] = "libfftw3f.so.3",
};

KernLibs *kern_libs_new_named(const char *const sonames[KERN_LIB_COUNT])
{
    KernLibs *libs = calloc(1, sizeof *libs);
    if (!libs)
        return NULL;
    memcpy(libs->sonames, sonames, sizeof libs->sonames);
    pthread_mutex_init(&libs->lock, NULL);
    atomic_init(&libs->state, KERN_LIBS_UNLOADED);
    return libs;
}

KernLibs *kern_libs_new(void) { return kern_libs_new_named(default_sonames); }

/* The libraries stay loaded (no dlclose), as linked ones do: their state
 * is the process's, not a run's -- FFTW's planner tables (unloaded, they
 * would be memory nothing points to any more) and OpenBLAS's thread pool --
 * and the next run's dlopen finds them in place. */
void kern_libs_free(KernLibs *libs)
{
    if (!libs)
        return;
    pthread_mutex_destroy(&libs->lock);
    free(libs);
}

/* OpenBLAS goes into the global scope, as it was when linked: LAPACKE's
 * calls of LAPACK routines (dpotrf_, ...) then bind to OpenBLAS's own
 * implementations, not to those of the liblapack.so.3 LAPACKE depends on,
 * so results are bit for bit those of the linked build. */
static bool open_library(KernLibs *libs, KernLib lib)
{
    int global = lib == KERN_LIB_OPENBLAS ? RTLD_GLOBAL : RTLD_LOCAL;
    libs->handles[lib] = dlopen(libs->sonames[lib], RTLD_NOW | global);
    if (!libs->handles[lib])
        snprintf(libs->error, sizeof libs->error, "%s", dlerror());
    return libs->handles[lib] != NULL;
}

/* dlsym's object pointer into a function pointer slot (POSIX guarantees
 * the conversion works). */
static bool resolve(KernLibs *libs, KernLib lib, void *slot, const char *name)
{
    void *sym = dlsym(libs->handles[lib], name);
    memcpy(slot, &sym, sizeof sym);
    if (!sym)
        snprintf(libs->error, sizeof libs->error, "%s: no symbol %s", libs->sonames[lib], name);
    return sym != NULL;
}

static bool resolve_all(KernLibs *libs)
{
    KernLibFns *f = &libs->fns;
    bool ok = true;
#define KERN_LIBS_RESOLVE(sym) ok = ok && resolve(libs, lib, &f->sym, #sym);
    KernLib lib = KERN_LIB_OPENBLAS;
    KERN_LIBS_OPENBLAS(KERN_LIBS_RESOLVE)
    lib = KERN_LIB_LAPACKE;
    KERN_LIBS_LAPACKE(KERN_LIBS_RESOLVE)
    lib = KERN_LIB_FFTW;
    KERN_LIBS_FFTW(KERN_LIBS_RESOLVE)
    lib = KERN_LIB_FFTWF;
    KERN_LIBS_FFTWF(KERN_LIBS_RESOLVE)
#undef KERN_LIBS_RESOLVE
    return ok;
}

/* One BLAS thread, whatever the machine: OpenBLAS picks its kernel and
 * blocking by thread count, so results would otherwise depend on the core
 * count (docs/kernels.md, "Determinism"), and its workers would spin
 * against the simulated devices' threads. Set before any BLAS call. */
static void load(KernLibs *libs)
{
    bool ok = true;
    for (int i = 0; ok && i < KERN_LIB_COUNT; i++)
        ok = open_library(libs, (KernLib)i);
    ok = ok && resolve_all(libs);
    if (ok)
        libs->fns.openblas_set_num_threads(1);
    atomic_store_explicit(&libs->state, ok ? KERN_LIBS_LOADED : KERN_LIBS_FAILED, memory_order_release);
}

/* Loads libs unless some thread has (or has failed to). */
static void ensure_loaded(KernLibs *libs)
{
    if (atomic_load_explicit(&libs->state, memory_order_acquire) != KERN_LIBS_UNLOADED)
        return;
    pthread_mutex_lock(&libs->lock);
    if (atomic_load_explicit(&libs->state, memory_order_acquire) == KERN_LIBS_UNLOADED)
        load(libs);
    pthread_mutex_unlock(&libs->lock);
}

void kern_libs_preload(KernLibs *libs)
{
    if (libs)
        ensure_loaded(libs);
}

const KernLibFns *kern_libs_fns(TensorCtx *ctx)
{
    KernLibs *libs = ctx->libs;
    if (!libs) {
        tensor_fail(ctx, TENSOR_ERR_NOMEM, "no numeric libraries: none given to the kernels, or out of memory");
        return NULL;
    }
    ensure_loaded(libs);
    if (atomic_load_explicit(&libs->state, memory_order_acquire) == KERN_LIBS_FAILED) {
        tensor_fail(ctx, TENSOR_ERR_IO, "cannot load the numeric libraries: %s", libs->error);
        return NULL;
    }
    return &libs->fns;
}
