/* Output files of the command line, and their removal when shardc exits
 * (out of memory: arena_out_of_memory) or a signal (SIGTERM, SIGHUP,
 * SIGINT) stops it before they are complete: the library writes a
 * temporary beside each output and renames it into place (shardc/io.h);
 * the command line, which owns the process, removes the temporaries still
 * registered. cli_output_open/commit/abandon are declared in cli.h. */
#ifndef SHARDC_CLI_OUTPUT_H
#define SHARDC_CLI_OUTPUT_H
#include <stdbool.h>
#include "cli.h"

/* A set of files in DIR that appears whole or not at all (--outputs=DIR):
 * the files are written into a temporary directory inside DIR and renamed
 * into place on commit; after an error, or on a signal, what was written
 * is removed (and DIR too when it did not exist before). */
typedef struct OutputSet {
    char *dir, *temp_dir;
    bool made_dir;
    char **names;       /* the files created so far, in temp_dir */
    int num_names;
    int registered;     /* paths pushed on the cleanup stack */
} OutputSet;

bool cli_output_set_open(OutputSet *set, DiagEngine *diag, const char *dir);
/* NAME created in the set: a descriptor open for writing, or -1 (reported). */
int cli_output_set_create(OutputSet *set, DiagEngine *diag, const char *name);
bool cli_output_set_commit(OutputSet *set, DiagEngine *diag);
void cli_output_set_abandon(OutputSet *set);

/* Register a file or directory to remove if shardc exits or a signal
 * stops it, and drop the last one registered (last in, first out); then
 * every registered path is removed, last first (a directory once its
 * files are gone), and a signal ends the process as it would have. */
void cli_cleanup_push(const char *path);
void cli_cleanup_pop(void);

/* A library message about a file ("PATH: truncated header") without its
 * leading "PATH: ", for a diagnostic already located at PATH. */
const char *cli_file_message(const char *path, const char *msg);

/* Test hook (docs/testing.md): when SHARDC_TEST_KILL_AT names `point`,
 * shardc sends itself SIGTERM there, to test the removal deterministically. */
void cli_test_kill_at(const char *point);

#endif
