/* Reading sources and writing outputs atomically. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "shardc/arena.h"
#include "shardc/io.h"

static char *read_stream(FILE *in, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, in);
        if (n < cap - 1)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            return NULL;
        }
        buf = bigger;
        cap *= 2;
    }
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

char *io_read_source(DiagEngine *diag, const char *path, size_t *len)
{
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *in = is_stdin ? stdin : fopen(path, "rb");
    if (!in) {
        diag_error(diag, (Loc){path, 0, 0}, "cannot open: %s", strerror(errno));
        return NULL;
    }
    char *text = read_stream(in, len);
    bool failed = ferror(in);
    if (!is_stdin)
        fclose(in);
    if (!text || failed) {
        diag_error(diag, (Loc){path, 0, 0}, "cannot read: %s", text ? strerror(errno) : "out of memory");
        free(text);
        return NULL;
    }
    return text;
}

/* mkstemp creates the file 0600; give it the mode the target has (or, for
 * a new file, what the umask allows), as a plain fopen would. */
static void set_output_mode(int fd, const char *path)
{
    struct stat st;
    mode_t mode;
    if (stat(path, &st) == 0) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    (void)fchmod(fd, mode); /* best effort: the contents matter more */
}

/* A device or FIFO (-o /dev/null, /dev/stdout) is written in place:
 * renaming a temporary file over it would replace the device itself. */
static bool open_in_place(OutputFile *out, DiagEngine *diag, const char *path)
{
    out->stream = fopen(path, "w");
    if (!out->stream) {
        diag_error(diag, (Loc){path, 0, 0}, "cannot open output file: %s", strerror(errno));
        return false;
    }
    out->path = strdup(path);
    if (!out->path)
        arena_out_of_memory();
    return true;
}

static bool is_special_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

void io_sync_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        (void)fsync(fd); /* best effort: some file systems refuse it for directories */
        close(fd);
    }
    free(dir);
}

bool io_output_open(OutputFile *out, DiagEngine *diag, const char *path)
{
    memset(out, 0, sizeof *out);
    if (!path || strcmp(path, "-") == 0) {
        out->stream = stdout;
        return true;
    }
    if (is_special_file(path))
        return open_in_place(out, diag, path);
    size_t n = strlen(path);
    out->path = strdup(path);
    out->temp_path = malloc(n + 16);
    if (!out->path || !out->temp_path)
        arena_out_of_memory();
    snprintf(out->temp_path, n + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(out->temp_path);
    if (fd >= 0)
        set_output_mode(fd, path);
    if (fd < 0 || !(out->stream = fdopen(fd, "w"))) {
        diag_error(diag, (Loc){path, 0, 0}, "cannot create output file: %s", strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(out->temp_path); /* it exists: do not leave it behind */
        }
        free(out->temp_path);
        out->temp_path = NULL;
        io_output_abandon(out);
        return false;
    }
    return true;
}

bool io_output_commit(OutputFile *out, DiagEngine *diag)
{
    if (!out->temp_path) { /* stdout, or a file written in place */
        bool ok = fflush(out->stream) == 0 && !ferror(out->stream);
        if (out->stream != stdout)
            ok = fclose(out->stream) == 0 && ok;
        if (!ok)
            diag_error(diag, (Loc){out->path ? out->path : "<stdout>", 0, 0}, "cannot write output: %s",
                       strerror(errno));
        free(out->path);
        memset(out, 0, sizeof *out);
        return ok;
    }
    /* On disk before the rename, so that a crash leaves the old file or
     * the whole new one, never an empty one under the target's name. */
    bool ok = fflush(out->stream) == 0 && !ferror(out->stream) && fsync(fileno(out->stream)) == 0;
    ok = fclose(out->stream) == 0 && ok;
    out->stream = NULL;
    if (!ok || rename(out->temp_path, out->path) != 0) {
        diag_error(diag, (Loc){out->path, 0, 0}, "cannot write output file: %s", strerror(errno));
        io_output_abandon(out);
        return false;
    }
    io_sync_parent(out->path);
    free(out->temp_path);
    free(out->path);
    out->temp_path = out->path = NULL;
    return true;
}

void io_output_abandon(OutputFile *out)
{
    if (out->stream && out->stream != stdout)
        fclose(out->stream);
    if (out->temp_path)
        unlink(out->temp_path);
    free(out->temp_path);
    free(out->path);
    memset(out, 0, sizeof *out);
}
