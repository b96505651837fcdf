/* File input and atomic file output. */
#ifndef SHARDC_IO_H
#define SHARDC_IO_H
#include <stdbool.h>
#include <stdio.h>
#include "shardc/diag.h"

/* Read a whole file ("-" is stdin) into a NUL-terminated malloc'd buffer.
 * On failure reports a diagnostic and returns NULL. */
char *io_read_source(DiagEngine *diag, const char *path, size_t *len);

/* An output file that appears only when committed: writes go to a
 * temporary file beside it, renamed over the target on commit. "-" or
 * NULL writes to stdout directly. */
typedef struct OutputFile {
    FILE *stream;
    char *path;
    char *temp_path;
} OutputFile;

bool io_output_open(OutputFile *out, DiagEngine *diag, const char *path);
/* Flush and rename into place; false (with a diagnostic) on failure. */
bool io_output_commit(OutputFile *out, DiagEngine *diag);
/* Drop the temporary file; the target is left untouched. */
void io_output_abandon(OutputFile *out);
/* fsync the directory holding path, so that a rename into it is on disk
 * (best effort). */
void io_sync_parent(const char *path);

#endif
