/* A small pool of worker threads for the lockstep engine (lockstep.c):
 * interp_pool_run(p, n, fn, user) calls fn(user, i) for every i in [0, n) on the
 * workers and the calling thread, and returns when all are done. */
#ifndef SHARDC_INTERP_POOL_H
#define SHARDC_INTERP_POOL_H
#include <stdint.h>

typedef struct InterpPool InterpPool;
typedef void (*InterpPoolFn)(void *user, int64_t i);

/* threads in all, the caller counting as one (threads - 1 are started).
 * NULL if out of memory or no thread would start. */
InterpPool *interp_pool_new(int threads);
/* A NULL pool runs the calls in order on the caller. */
void interp_pool_run(InterpPool *p, int64_t n, InterpPoolFn fn, void *user);
void interp_pool_free(InterpPool *p);
/* The default number of threads: the machine's online cores. */
int interp_default_threads(void);

#endif
