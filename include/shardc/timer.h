/* Timing a stage: wall time and the CPU time of the calling thread, and the
 * one line format of --time-passes (passes/pipeline.c times each pass,
 * cli/compile.c reading and parsing, and printing; `shardc run --stats`
 * times the two runs). */
#ifndef SHARDC_TIMER_H
#define SHARDC_TIMER_H
#include <stdio.h>

/* Seconds: a point in time from timer_start, or a span from timer_since. */
typedef struct Timer {
    double wall, cpu;
} Timer;

Timer timer_start(void);
Timer timer_since(Timer start);

/* "  STAGE   WALL ms   CPU ms cpu": the time since `start`. */
void timer_report(FILE *out, const char *stage, Timer start);

#endif
