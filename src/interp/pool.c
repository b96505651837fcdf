/* The worker pool: workers sleep on a condition variable between jobs; a
 * job hands out indices through an atomic counter, so a worker that finishes
 * early takes the next device (the devices' kernels need not cost the same).
 * Workers get the stack a device thread had: an op may run calls 64 deep. */
#include "interp/pool.h"
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

enum { WORKER_STACK_BYTES = 8 << 20 };

struct InterpPool {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    pthread_t *threads;
    int num_threads;       /* started */
    uint64_t generation;   /* bumped per job */
    bool stop;
    int busy;              /* workers still in the current job */
    InterpPoolFn fn;
    void *user;
    int64_t n;
    int64_t next;          /* atomic: the next index to hand out */
};

static void take_indices(InterpPool *p)
{
    for (;;) {
        int64_t i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (i >= p->n)
            return;
        p->fn(p->user, i);
    }
}

static void *worker_main(void *arg)
{
    InterpPool *p = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop)
            break;
        seen = p->generation;
        pthread_mutex_unlock(&p->lock);
        take_indices(p);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

InterpPool *interp_pool_new(int threads)
{
    InterpPool *p = calloc(1, sizeof *p);
    if (!p || !(p->threads = calloc((size_t)(threads > 1 ? threads : 1), sizeof *p->threads))) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, WORKER_STACK_BYTES);
    for (int k = 1; k < threads && pthread_create(&p->threads[p->num_threads], &attr, worker_main, p) == 0; k++)
        p->num_threads++;
    pthread_attr_destroy(&attr);
    return p;
}

void interp_pool_run(InterpPool *p, int64_t n, InterpPoolFn fn, void *user)
{
    if (!p || p->num_threads == 0 || n < 2) {
        for (int64_t i = 0; i < n; i++)
            fn(user, i);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->user = user;
    p->n = n;
    p->next = 0;
    p->busy = p->num_threads;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    take_indices(p);
    pthread_mutex_lock(&p->lock);
    while (p->busy > 0)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

void interp_pool_free(InterpPool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int k = 0; k < p->num_threads; k++)
        pthread_join(p->threads[k], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p);
}

int interp_default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}
