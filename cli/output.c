/* Output files of the command line and their removal on a signal. The
 * registry is per-process state, so it lives here and not in the library. */
#include "output.h"
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The registered paths: a stack whose nodes are complete before they
 * become its top, so the handler may walk it whenever it runs. Pushes and
 * pops run with the signals blocked in the calling thread. */
typedef struct CleanupNode {
    struct CleanupNode *next;
    char path[];
} CleanupNode;

static _Atomic(CleanupNode *) cleanup_top;
static const int cleanup_signals[] = {SIGTERM, SIGHUP, SIGINT};
static bool handlers_installed;

/* Only async-signal-safe calls: unlink, rmdir, sigaction (signal), raise. */
static void on_signal(int sig)
{
    for (CleanupNode *n = atomic_load(&cleanup_top); n; n = n->next)
        if (unlink(n->path) != 0)
            rmdir(n->path);
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: the usual death and exit status */
}

static void install_handlers(void)
{
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; i++) {
        struct sigaction old, sa = {0};
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        /* a signal ignored when shardc started (nohup) stays ignored */
        if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(cleanup_signals[i], &sa, NULL);
    }
    handlers_installed = true;
}

static void block_signals(bool block, sigset_t *old)
{
    if (block) {
        sigset_t set;
        sigemptyset(&set);
        for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; i++)
            sigaddset(&set, cleanup_signals[i]);
        pthread_sigmask(SIG_BLOCK, &set, old);
    } else {
        pthread_sigmask(SIG_SETMASK, old, NULL);
    }
}

void cli_cleanup_push(const char *path)
{
    size_t len = strlen(path) + 1;
    CleanupNode *n = malloc(sizeof *n + len);
    if (!n)
        return; /* the path is only left behind on a signal */
    memcpy(n->path, path, len);
    sigset_t old;
    block_signals(true, &old);
    if (!handlers_installed)
        install_handlers();
    n->next = atomic_load(&cleanup_top);
    atomic_store(&cleanup_top, n);
    block_signals(false, &old);
}

void cli_cleanup_pop(void)
{
    sigset_t old;
    block_signals(true, &old);
    CleanupNode *n = atomic_load(&cleanup_top);
    if (n)
        atomic_store(&cleanup_top, n->next);
    block_signals(false, &old);
    free(n);
}

void cli_test_kill_at(const char *point)
{
    const char *want = getenv("SHARDC_TEST_KILL_AT");
    if (want && strcmp(want, point) == 0)
        raise(SIGTERM);
}

bool cli_output_open(OutputFile *out, DiagEngine *diag, const char *path)
{
    /* blocked from before the temporary exists until it is registered */
    sigset_t old;
    block_signals(true, &old);
    bool ok = io_output_open(out, diag, path);
    if (ok && out->temp_path)
        cli_cleanup_push(out->temp_path);
    block_signals(false, &old);
    return ok;
}

bool cli_output_commit(OutputFile *out, DiagEngine *diag)
{
    bool registered = out->temp_path != NULL;
    cli_test_kill_at("output");
    bool ok = io_output_commit(out, diag);
    if (registered)
        cli_cleanup_pop();
    return ok;
}

void cli_output_abandon(OutputFile *out)
{
    bool registered = out->temp_path != NULL;
    io_output_abandon(out);
    if (registered)
        cli_cleanup_pop();
}

