/* The output file a command is writing, removed if the process exits before
 * committing it: the library's answer to running out of memory is to exit
 * (arena_out_of_memory), and a half-written temporary file must not stay
 * behind. Process state, so it lives in the command line, not the library. */
#include <stdlib.h>
#include <unistd.h>
#include "cli.h"

static OutputFile *guarded;

static void remove_guarded(void)
{
    if (guarded && guarded->temp_path)
        unlink(guarded->temp_path);
}

static void guard(OutputFile *out)
{
    static bool registered;
    if (!registered)
        registered = atexit(remove_guarded) == 0;
    guarded = out;
}

bool cli_output_open(OutputFile *out, DiagEngine *diag, const char *path)
{
    if (!io_output_open(out, diag, path))
        return false;
    guard(out);
    return true;
}

bool cli_output_commit(OutputFile *out, DiagEngine *diag)
{
    guard(NULL);
    return io_output_commit(out, diag);
}

void cli_output_abandon(OutputFile *out)
{
    guard(NULL);
    io_output_abandon(out);
}
