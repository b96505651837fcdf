/* Output files of the command line and their removal on a signal. The
 * registry is per-process state, so it lives here and not in the library. */
#include "output.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "shardc/arena.h"

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

/* Only async-signal-safe calls: unlink, rmdir. */
static void remove_registered(void)
{
    for (CleanupNode *n = atomic_load(&cleanup_top); n; n = n->next)
        if (unlink(n->path) != 0)
            rmdir(n->path);
}

/* Only async-signal-safe calls: those above, sigaction (signal), raise. */
static void on_signal(int sig)
{
    remove_registered();
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
    /* exit() with outputs pending: out of memory (arena_out_of_memory) */
    atexit(remove_registered);
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
    if (!n) {
        /* It cannot be registered: remove it now (what is registered so
         * far goes at exit). */
        if (unlink(path) != 0)
            rmdir(path);
        arena_out_of_memory();
    }
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

const char *cli_file_message(const char *path, const char *msg)
{
    size_t n = strlen(path);
    return strncmp(msg, path, n) == 0 && strncmp(msg + n, ": ", 2) == 0 ? msg + n + 2 : msg;
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

/* ---- sets of files ---------------------------------------------------------------------------- */

static char *join_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (!path)
        arena_out_of_memory();
    snprintf(path, n, "%s/%s", dir, name);
    return path;
}

static void set_push(OutputSet *set, const char *path)
{
    cli_cleanup_push(path);
    set->registered++;
}

static void set_free(OutputSet *set)
{
    for (; set->registered > 0; set->registered--)
        cli_cleanup_pop();
    for (int i = 0; i < set->num_names; i++)
        free(set->names[i]);
    free(set->names);
    free(set->dir);
    free(set->temp_dir);
    memset(set, 0, sizeof *set);
}

bool cli_output_set_open(OutputSet *set, DiagEngine *diag, const char *dir)
{
    memset(set, 0, sizeof *set);
    /* The names first: running out of memory after mkdir would leave it. */
    set->dir = strdup(dir);
    if (!set->dir)
        arena_out_of_memory();
    set->temp_dir = join_path(dir, ".shardc-outputs.XXXXXX");
    struct stat st;
    sigset_t old;
    block_signals(true, &old); /* until what mkdir and mkdtemp make is registered */
    set->made_dir = mkdir(dir, 0777) == 0;
    bool ok = set->made_dir || (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
    if (!ok)
        diag_error(diag, (Loc){dir, 0, 0}, "cannot create directory: %s",
                   errno == EEXIST ? "a file of that name exists" : strerror(errno));
    if (ok && set->made_dir)
        set_push(set, dir);
    if (ok && !mkdtemp(set->temp_dir)) {
        diag_error(diag, (Loc){dir, 0, 0}, "cannot write into the directory: %s", strerror(errno));
        ok = false;
    } else if (ok) {
        set_push(set, set->temp_dir);
    }
    block_signals(false, &old);
    if (!ok)
        cli_output_set_abandon(set);
    return ok;
}

int cli_output_set_create(OutputSet *set, DiagEngine *diag, const char *name)
{
    char **names = realloc(set->names, (size_t)(set->num_names + 1) * sizeof *names);
    if (!names)
        arena_out_of_memory();
    set->names = names;
    char *path = join_path(set->temp_dir, name);
    char *copy = strdup(name);
    if (!copy)
        arena_out_of_memory();
    set_push(set, path); /* before it exists, so that nothing escapes removal */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        diag_error(diag, (Loc){set->dir, 0, 0}, "cannot create %s: %s", name, strerror(errno));
        free(copy);
    } else {
        set->names[set->num_names++] = copy;
    }
    free(path);
    return fd;
}

/* Remove what the set has put in place or written, DIR itself if it made it. */
static void remove_set(OutputSet *set, int renamed)
{
    for (int i = 0; i < set->num_names; i++) {
        char *path = join_path(i < renamed ? set->dir : set->temp_dir, set->names[i]);
        unlink(path);
        free(path);
    }
    rmdir(set->temp_dir);
    if (set->made_dir)
        rmdir(set->dir);
}

/* Each name's path in the temporary directory and in DIR, made before
 * anything is renamed: running out of memory halfway through the renames
 * would leave some of the set in place. */
static char **set_paths(const OutputSet *set)
{
    char **paths = calloc((size_t)(2 * set->num_names + 1), sizeof *paths);
    if (!paths)
        arena_out_of_memory();
    for (int i = 0; i < set->num_names; i++) {
        paths[2 * i] = join_path(set->temp_dir, set->names[i]);
        paths[2 * i + 1] = join_path(set->dir, set->names[i]);
    }
    return paths;
}

/* A rename failed after `renamed` files: remove the whole set. */
static void undo_commit(OutputSet *set, char **paths, int renamed)
{
    for (int i = 0; i < set->num_names; i++)
        unlink(paths[2 * i + (i < renamed)]);
    rmdir(set->temp_dir);
    if (set->made_dir)
        rmdir(set->dir);
}

bool cli_output_set_commit(OutputSet *set, DiagEngine *diag)
{
    cli_test_kill_at("outputs");
    char **paths = set_paths(set);
    int i = 0;
    for (; i < set->num_names; i++) {
        if (rename(paths[2 * i], paths[2 * i + 1]) != 0) {
            diag_error(diag, (Loc){paths[2 * i + 1], 0, 0}, "cannot write output file: %s", strerror(errno));
            break;
        }
    }
    bool ok = i == set->num_names;
    if (ok) {
        rmdir(set->temp_dir);
        io_sync_parent(set->temp_dir);
    } else {
        undo_commit(set, paths, i);
    }
    for (int k = 0; k < 2 * set->num_names; k++)
        free(paths[k]);
    free(paths);
    set_free(set);
    return ok;
}

void cli_output_set_abandon(OutputSet *set)
{
    if (set->temp_dir)
        remove_set(set, 0);
    set_free(set);
}
