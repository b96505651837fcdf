/* Stage timing for --time-passes and `shardc run --stats`. */
#include <time.h>
#include "shardc/timer.h"

static double clock_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The CPU time of this thread, not of the process: the passes are
 * single-threaded, and the process's CPU time would also count the OpenBLAS
 * pool's idle spinning. On a loaded machine it is the steadier measure
 * (bench/run.sh reads both). */
Timer timer_start(void)
{
    return (Timer){clock_seconds(CLOCK_MONOTONIC), clock_seconds(CLOCK_THREAD_CPUTIME_ID)};
}

Timer timer_since(Timer start)
{
    Timer now = timer_start();
    return (Timer){now.wall - start.wall, now.cpu - start.cpu};
}

void timer_report(FILE *out, const char *stage, Timer start)
{
    Timer t = timer_since(start);
    fprintf(out, "  %-24s %10.3f ms %10.3f ms cpu\n", stage, 1e3 * t.wall, 1e3 * t.cpu);
}
