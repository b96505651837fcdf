/* NumPy .npy reading and writing (format spec: numpy.lib.format).
 *
 * The header is parsed with a bounded cursor that never reads past the
 * header length, and the data size the header promises must equal what the
 * file holds before anything is allocated, so hostile files fail cleanly. */
#include "shardc/npy.h"
#include "shardc/io.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.c stores tensor data raw and assumes a little-endian host"
#endif

static const char NPY_MAGIC[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
/* np.load refuses headers over 10000 bytes by default; be a bit laxer. */
enum { NPY_MAX_HEADER = 1 << 20, NPY_PREAMBLE_MAX = 12, NPY_ALIGN = 64 };

typedef struct NpyHeader {
    DType dtype;
    bool swap;   /* big-endian data */
    int rank;
    int64_t dims[SHARDC_MAX_RANK];
} NpyHeader;

/* ---- header dict --------------------------------------------------------------- */

typedef struct Cursor {
    const char *p, *end;
} Cursor;

static void skip_ws(Cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool eat(Cursor *c, char ch)
{
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

static bool eat_word(Cursor *c, const char *word)
{
    size_t n = strlen(word);
    skip_ws(c);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return false;
    c->p += n;
    return true;
}

/* A '...' or "..." literal without escapes, into out (cap bytes). */
static bool parse_string(Cursor *c, char *out, size_t cap)
{
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return false;
    char quote = *c->p++;
    size_t n = 0;
    for (; c->p < c->end && *c->p != quote; c->p++) {
        if (*c->p == '\\' || n + 1 >= cap)
            return false;
        out[n++] = *c->p;
    }
    if (c->p >= c->end)
        return false;
    c->p++;
    out[n] = '\0';
    return true;
}

/* A non-negative decimal dimension (Python 2 files may append 'L'). */
static bool parse_dim(Cursor *c, int64_t *value)
{
    skip_ws(c);
    if (c->p >= c->end || *c->p < '0' || *c->p > '9')
        return false;
    int64_t v = 0;
    for (; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++) {
        int digit = *c->p - '0';
        if (v > (INT64_MAX - digit) / 10)
            return false;
        v = v * 10 + digit;
    }
    if (c->p < c->end && *c->p == 'L')
        c->p++;
    *value = v;
    return true;
}

static TensorStatus parse_shape(TensorCtx *ctx, const char *name, Cursor *c, NpyHeader *h)
{
    if (!eat(c, '('))
        return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: 'shape' is not a tuple", name);
    for (h->rank = 0; !eat(c, ')');) {
        if (h->rank == SHARDC_MAX_RANK)
            return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: more than %d dimensions", name,
                               SHARDC_MAX_RANK);
        if (!parse_dim(c, &h->dims[h->rank++]))
            return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: bad or oversized dimension in 'shape'",
                               name);
        if (eat(c, ')'))
            break;
        if (!eat(c, ','))
            return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: malformed 'shape' tuple", name);
    }
    return TENSOR_OK;
}

static const struct {
    const char *descr;
    DType dtype;
    bool swap;
} descr_table[] = {
    {"<f4", DT_F32, false}, {"<f8", DT_F64, false}, {"<f2", DT_F16, false},
    {"<i4", DT_I32, false}, {"<i8", DT_I64, false}, {"<u4", DT_U32, false},
    {"|i1", DT_I8, false},  {"|b1", DT_BOOL, false}, {"=f4", DT_F32, false},
    {"=f8", DT_F64, false}, {"=f2", DT_F16, false}, {"=i4", DT_I32, false},
    {"=i8", DT_I64, false}, {"=u4", DT_U32, false}, {">f4", DT_F32, true},
    {">f8", DT_F64, true},  {">f2", DT_F16, true},  {">i4", DT_I32, true},
    {">i8", DT_I64, true},  {">u4", DT_U32, true},
    /* complex: little-endian only (a big-endian one would swap each part) */
    {"<c8", DT_C64, false}, {"=c8", DT_C64, false}, {"<c16", DT_C128, false}, {"=c16", DT_C128, false},
    {"<u8", DT_U64, false}, {"=u8", DT_U64, false}, {">u8", DT_U64, true},
};

static TensorStatus parse_descr(TensorCtx *ctx, const char *name, Cursor *c, NpyHeader *h)
{
    char descr[64];
    skip_ws(c);
    if (c->p < c->end && *c->p == '[')
        return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: structured arrays are not supported", name);
    if (!parse_string(c, descr, sizeof descr))
        return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: 'descr' is not a valid dtype string", name);
    for (size_t i = 0; i < sizeof descr_table / sizeof descr_table[0]; i++) {
        if (strcmp(descr, descr_table[i].descr) == 0) {
            h->dtype = descr_table[i].dtype;
            h->swap = descr_table[i].swap;
            return TENSOR_OK;
        }
    }
    if (strstr(descr, "bfloat16") || strcmp(descr, "<V2") == 0 || strcmp(descr, "|V2") == 0)
        return tensor_fail(ctx, TENSOR_ERR_FORMAT,
                           "%s: bf16 .npy files are not supported (NumPy has no bfloat16); "
                           "save as float32", name);
    return tensor_fail(ctx, TENSOR_ERR_FORMAT,
                       "%s: unsupported dtype '%s' (expected <f4, <f8, <f2, <i4, <i8, <u4, |i1, |b1, <c8 or <c16)", name,
                       descr);
}

static TensorStatus parse_fortran_order(TensorCtx *ctx, const char *name, Cursor *c)
{
    if (eat_word(c, "False"))
        return TENSOR_OK;
    if (eat_word(c, "True"))
        return tensor_fail(ctx, TENSOR_ERR_FORMAT,
                           "%s: Fortran-order arrays are not supported; save a C-order copy", name);
    return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: 'fortran_order' must be True or False", name);
}

enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4, KEY_ALL = 7 };

static TensorStatus parse_entry(TensorCtx *ctx, const char *name, Cursor *c, NpyHeader *h,
                                unsigned *seen)
{
    static const char *const keys[] = {"descr", "fortran_order", "shape"};
    char key[32];
    skip_ws(c);
    if (c->p == c->end)
        return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: unterminated header dict", name);
    if (!parse_string(c, key, sizeof key) || !eat(c, ':'))
        return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: malformed header dict entry", name);
    for (unsigned i = 0; i < 3; i++) {
        if (strcmp(key, keys[i]) != 0)
            continue;
        if (*seen & (1u << i))
            return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: header repeats '%s'", name, key);
        *seen |= 1u << i;
        return i == 0 ? parse_descr(ctx, name, c, h)
               : i == 1 ? parse_fortran_order(ctx, name, c)
               : parse_shape(ctx, name, c, h);
    }
    return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: unexpected header key '%s'", name, key);
}

static TensorStatus parse_dict(TensorCtx *ctx, const char *name, const char *text, size_t len,
                               NpyHeader *h)
{
    Cursor c = {text, text + len};
    unsigned seen = 0;
    if (!eat(&c, '{'))
        return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: header is not a dict", name);
    while (!eat(&c, '}')) {
        TensorStatus st = parse_entry(ctx, name, &c, h, &seen);
        if (st != TENSOR_OK)
            return st;
        if (eat(&c, '}'))
            break;
        if (!eat(&c, ','))
            return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: unterminated header dict", name);
    }
    if (seen != KEY_ALL)
        return tensor_fail(ctx, TENSOR_ERR_FORMAT,
                           "%s: header lacks one of 'descr', 'fortran_order', 'shape'", name);
    skip_ws(&c);
    if (c.p != c.end)
        return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: junk after the header dict", name);
    return TENSOR_OK;
}

/* ---- preamble and data --------------------------------------------------------- */

/* Magic, version and header length from the first `avail` bytes. */
static TensorStatus parse_preamble(TensorCtx *ctx, const char *name, const uint8_t *b,
                                   size_t avail, size_t *start, size_t *hlen)
{
    if (avail < 10 || memcmp(b, NPY_MAGIC, sizeof NPY_MAGIC) != 0)
        return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: not a .npy file (%s)", name,
                           avail < 10 ? "too short" : "bad magic");
    if (b[6] < 1 || b[6] > 3)
        return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: unsupported .npy version %u.%u", name,
                           b[6], b[7]);
    *start = b[6] == 1 ? 10 : 12;
    if (avail < *start)
        return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: truncated preamble", name);
    *hlen = (size_t)b[8] | (size_t)b[9] << 8;
    if (b[6] > 1)
        *hlen |= (size_t)b[10] << 16 | (size_t)b[11] << 24;
    if (*hlen > NPY_MAX_HEADER)
        return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: header of %zu bytes is too large", name,
                           *hlen);
    return TENSOR_OK;
}

/* Allocate the tensor once the header's promise matches the data bytes. */
static TensorStatus alloc_for_data(TensorCtx *ctx, const char *name, const NpyHeader *h,
                                   uint64_t data_len, Tensor **out)
{
    int64_t count;
    if (!tensor_shape_count(h->rank, h->dims, &count))
        return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: shape has too many elements", name);
    uint64_t item = dtype_size(h->dtype);
    if (data_len % item != 0 || data_len / item != (uint64_t)count)
        return tensor_fail(ctx, TENSOR_ERR_FORMAT,
                           "%s: header promises %lld elements of %llu bytes, file holds %llu data "
                           "bytes", name, (long long)count, (unsigned long long)item,
                           (unsigned long long)data_len);
    TensorStatus st = tensor_new_uninit(ctx, h->dtype, h->rank, h->dims, out);
    if (st == TENSOR_OK)
        return st;
    /* The allocator's message names no file; every other one here does. */
    char why[TENSOR_MSG_SIZE];
    memcpy(why, ctx->msg, sizeof why);
    return tensor_fail(ctx, st, "%s: %s", name, why);
}

/* Byte-swap big-endian data; force bools to 0/1 (kernels rely on it). */
static void finish_data(Tensor *t, const NpyHeader *h)
{
    uint8_t *bytes = t->data;
    size_t size = dtype_size(t->dtype);
    for (int64_t i = 0; h->swap && i < t->count; i++)
        for (size_t lo = 0, hi = size - 1; lo < hi; lo++, hi--) {
            uint8_t tmp = bytes[(size_t)i * size + lo];
            bytes[(size_t)i * size + lo] = bytes[(size_t)i * size + hi];
            bytes[(size_t)i * size + hi] = tmp;
        }
    for (int64_t i = 0; t->dtype == DT_BOOL && i < t->count; i++)
        bytes[i] = bytes[i] != 0;
}

TensorStatus npy_decode(TensorCtx *ctx, const void *bytes, size_t len, Tensor **out)
{
    static const char name[] = "<memory>";
    const uint8_t *b = bytes;
    NpyHeader h;
    size_t start, hlen;
    *out = NULL;
    TensorStatus st = parse_preamble(ctx, name, b, len, &start, &hlen);
    if (st == TENSOR_OK && hlen > len - start)
        st = tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: truncated header", name);
    if (st == TENSOR_OK)
        st = parse_dict(ctx, name, (const char *)b + start, hlen, &h);
    if (st == TENSOR_OK)
        st = alloc_for_data(ctx, name, &h, len - start - hlen, out);
    if (st != TENSOR_OK)
        return st;
    memcpy((*out)->data, b + start + hlen, (*out)->nbytes);
    finish_data(*out, &h);
    return TENSOR_OK;
}

/* ---- files ------------------------------------------------------------------------ */

static TensorStatus read_header(TensorCtx *ctx, const char *path, FILE *f, uint64_t size,
                                NpyHeader *h, uint64_t *data_start)
{
    uint8_t pre[NPY_PREAMBLE_MAX];
    size_t start, hlen, got = fread(pre, 1, sizeof pre, f);
    TensorStatus st = parse_preamble(ctx, path, pre, got, &start, &hlen);
    if (st != TENSOR_OK)
        return st;
    if (size < start + hlen)
        return tensor_fail(ctx, TENSOR_ERR_FORMAT, "%s: truncated header", path);
    char *text = malloc(hlen + 1);
    if (!text)
        return tensor_fail(ctx, TENSOR_ERR_NOMEM, "%s: out of memory", path);
    if (fseek(f, (long)start, SEEK_SET) != 0 || fread(text, 1, hlen, f) != hlen)
        st = tensor_fail(ctx, TENSOR_ERR_IO, "%s: cannot read the header", path);
    else
        st = parse_dict(ctx, path, text, hlen, h);
    free(text);
    *data_start = start + hlen;
    return st;
}

static TensorStatus read_open_file(TensorCtx *ctx, const char *path, FILE *f, Tensor **out)
{
    struct stat sb;
    NpyHeader h;
    uint64_t data_start = 0;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode))
        return tensor_fail(ctx, TENSOR_ERR_IO, "%s: not a regular file", path);
    uint64_t size = (uint64_t)sb.st_size;
    TensorStatus st = read_header(ctx, path, f, size, &h, &data_start);
    if (st == TENSOR_OK)
        st = alloc_for_data(ctx, path, &h, size - data_start, out);
    if (st != TENSOR_OK)
        return st;
    if (fread((*out)->data, 1, (*out)->nbytes, f) != (*out)->nbytes) {
        tensor_release(*out);
        *out = NULL;
        return tensor_fail(ctx, TENSOR_ERR_IO, "%s: file shrank while reading", path);
    }
    finish_data(*out, &h);
    return TENSOR_OK;
}

TensorStatus npy_read(TensorCtx *ctx, const char *path, Tensor **out)
{
    *out = NULL;
    /* Non-blocking, so that a FIFO with no writer is refused as not a
     * regular file (read_open_file) instead of hanging in open(). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    int flags = fd < 0 ? -1 : fcntl(fd, F_GETFL);
    FILE *f = flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ? NULL : fdopen(fd, "rb");
    if (!f) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        return tensor_fail(ctx, TENSOR_ERR_IO, "%s: %s", path, strerror(err));
    }
    TensorStatus st = read_open_file(ctx, path, f, out);
    fclose(f);
    return st;
}

/* The preamble and padded header dict, as np.save writes them (version 1.0). */
static size_t format_header(const Tensor *t, char *buf, size_t cap)
{
    static const char *const descr[DT_COUNT] = {
        [DT_F32] = "<f4", [DT_F64] = "<f8", [DT_F16] = "<f2", [DT_I8] = "|i1",
        [DT_I32] = "<i4", [DT_I64] = "<i8", [DT_U32] = "<u4", [DT_U64] = "<u8", [DT_BOOL] = "|b1",
        [DT_TOKEN] = "|b1", /* a token is written as a 0-d bool False */
        [DT_C64] = "<c8", [DT_C128] = "<c16",
    };
    size_t n = 10;
    n += (size_t)snprintf(buf + n, cap - n, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                          descr[t->dtype]);
    for (int d = 0; d < t->rank; d++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? ", " : "", (long long)t->dims[d]);
    n += (size_t)snprintf(buf + n, cap - n, "%s), }", t->rank == 1 ? "," : "");
    while ((n + 1) % NPY_ALIGN != 0)
        buf[n++] = ' ';
    buf[n++] = '\n';
    memcpy(buf, NPY_MAGIC, sizeof NPY_MAGIC);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (char)((n - 10) & 0xff);
    buf[9] = (char)((n - 10) >> 8);
    return n;
}

static bool write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

static bool write_npy_fd(int fd, const Tensor *t)
{
    char header[32 * SHARDC_MAX_RANK + 192];
    size_t hlen = format_header(t, header, sizeof header);
    /* mkstemp creates 0600; give the result np.save's usual permissions. */
    return fchmod(fd, 0644) == 0 && write_all(fd, header, hlen) &&
           write_all(fd, t->data, t->nbytes) && fsync(fd) == 0;
}

static TensorStatus refuse_bf16(TensorCtx *ctx, const char *path)
{
    return tensor_fail(ctx, TENSOR_ERR_DTYPE,
                       "%s: bf16 cannot be written to .npy (NumPy has no bfloat16); convert "
                       "to f32 first", path);
}

TensorStatus npy_write_fd(TensorCtx *ctx, int fd, const char *path, const Tensor *t)
{
    if (t->dtype == DT_BF16)
        return refuse_bf16(ctx, path);
    if (!write_npy_fd(fd, t))
        return tensor_fail(ctx, TENSOR_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return TENSOR_OK;
}

TensorStatus npy_write(TensorCtx *ctx, const char *path, const Tensor *t)
{
    if (t->dtype == DT_BF16)
        return refuse_bf16(ctx, path);
    size_t len = strlen(path);
    char *tmp = malloc(len + sizeof ".tmpXXXXXX");
    if (!tmp)
        return tensor_fail(ctx, TENSOR_ERR_NOMEM, "%s: out of memory", path);
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmpXXXXXX", sizeof ".tmpXXXXXX");
    int fd = mkstemp(tmp);
    TensorStatus st = TENSOR_OK;
    if (fd < 0) {
        st = tensor_fail(ctx, TENSOR_ERR_IO, "%s: cannot create a temporary file: %s", path,
                         strerror(errno));
    } else {
        bool ok = write_npy_fd(fd, t);
        int err = errno;
        ok = close(fd) == 0 && ok;
        if (!ok || rename(tmp, path) != 0) {
            st = tensor_fail(ctx, TENSOR_ERR_IO, "%s: write failed: %s", path,
                             strerror(ok ? errno : err));
            unlink(tmp);
        } else {
            io_sync_parent(path);
        }
    }
    free(tmp);
    return st;
}
