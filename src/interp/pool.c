/* The worker pool: workers sleep on a condition variable between jobs; a
 * job hands out indices through one atomic ticket (job number in the high
 * half, next index in the low), so a worker that finishes early takes the
 * next device, and a worker that wakes late -- the machine is busy -- finds
 * the job done or gone and takes nothing. The caller waits for the job's
 * items, not for every worker to check in: one descheduled worker does not
 * hold up an op it took no part in. Workers get the stack a device thread
 * had: an op may run calls 64 deep. */
#include "interp/pool.h"
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

enum { WORKER_STACK_BYTES = 8 << 20, WAIT_YIELDS = 64 };

struct InterpPool {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    pthread_t *threads;
    int num_threads;       /* started */
    uint32_t job;          /* the current job's number (under lock) */
    bool stop;
    InterpPoolFn fn;       /* the current job (under lock) */
    void *user;
    int64_t n;
    uint64_t ticket;       /* atomic: job << 32 | next index */
    int64_t finished;      /* atomic: items of the current job done */
};

/* Take and run items of job `job` until it has none left; the thread that
 * finishes the last one wakes the caller. */
static void take_indices(InterpPool *p, uint32_t job, InterpPoolFn fn, void *user, int64_t n)
{
    uint64_t t = __atomic_load_n(&p->ticket, __ATOMIC_ACQUIRE);
    for (;;) {
        if ((uint32_t)(t >> 32) != job || (int64_t)(t & 0xffffffffu) >= n)
            return;
        if (!__atomic_compare_exchange_n(&p->ticket, &t, t + 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            continue;
        fn(user, (int64_t)(t & 0xffffffffu));
        if (__atomic_add_fetch(&p->finished, 1, __ATOMIC_ACQ_REL) == n) {
            pthread_mutex_lock(&p->lock);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->lock);
        }
        t = __atomic_load_n(&p->ticket, __ATOMIC_ACQUIRE);
    }
}

static void *worker_main(void *arg)
{
    InterpPool *p = arg;
    uint32_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->job == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop)
            break;
        seen = p->job;
        InterpPoolFn fn = p->fn;
        void *user = p->user;
        int64_t n = p->n;
        pthread_mutex_unlock(&p->lock);
        take_indices(p, seen, fn, user, n);
        pthread_mutex_lock(&p->lock);
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
    if (!p || p->num_threads == 0 || n < 2 || n > 0xffffffffLL) {
        for (int64_t i = 0; i < n; i++)
            fn(user, i);
        return;
    }
    pthread_mutex_lock(&p->lock);
    uint32_t job = ++p->job;
    p->fn = fn;
    p->user = user;
    p->n = n;
    __atomic_store_n(&p->finished, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&p->ticket, (uint64_t)job << 32, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    take_indices(p, job, fn, user, n);
    for (int i = 0; i < WAIT_YIELDS && __atomic_load_n(&p->finished, __ATOMIC_ACQUIRE) < n; i++)
        sched_yield();
    pthread_mutex_lock(&p->lock);
    while (__atomic_load_n(&p->finished, __ATOMIC_ACQUIRE) < n)
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
