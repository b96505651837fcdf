/* Unit tests of .npy reading and writing: round trips, the exact header
 * layout, other versions and byte orders, and hostile files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "shardc/kernels.h"
#include "shardc/npy.h"

#define DIMS(...) ((const int64_t[]){__VA_ARGS__})

/* ---- helpers ----------------------------------------------------------------- */

static int make_dir(void **state)
{
    char tmpl[] = "/tmp/shardc_npy_XXXXXX";
    char *dir = mkdtemp(tmpl);
    *state = dir ? strdup(dir) : NULL;
    return dir ? 0 : -1;
}

static int remove_dir(void **state)
{
    char *dir = *state;
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (rmdir(path) != 0)
            unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    free(dir);
    return 0;
}

static const char *path_in(const char *dir, const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", dir, name);
    return buf;
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void write_file(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    fclose(f);
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t *buf = malloc(1 << 16);
    *len = fread(buf, 1, 1 << 16, f);
    fclose(f);
    return buf;
}

/* An exactly sized .npy image (so ASan catches any over-read). */
static uint8_t *npy_image(int major, const char *dict, const void *data, size_t data_len,
                          size_t *len)
{
    size_t pre = major == 1 ? 10 : 12, hlen = strlen(dict);
    *len = pre + hlen + data_len;
    uint8_t *b = malloc(*len);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (uint8_t)major;
    b[7] = 0;
    for (size_t i = 0; i < pre - 8; i++)
        b[8 + i] = (uint8_t)(hlen >> (8 * i));
    memcpy(b + pre, dict, hlen);
    if (data_len)
        memcpy(b + pre + hlen, data, data_len);
    return b;
}

static Tensor *decode_ok(const uint8_t *bytes, size_t len)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *t;
    if (npy_decode(&ctx, bytes, len, &t) != TENSOR_OK)
        fail_msg("decode failed: %s", ctx.msg);
    return t;
}

static void expect_format_error(const uint8_t *bytes, size_t len, const char *what)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *t;
    TensorStatus st = npy_decode(&ctx, bytes, len, &t);
    if (st != TENSOR_ERR_FORMAT)
        fail_msg("%s: status %d, message '%s'", what, (int)st, ctx.msg);
    assert_null(t);
    assert_true(ctx.msg[0] != '\0');
}

static Tensor *round_trip(const char *dir, const Tensor *t)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    char path[4096];
    Tensor *back;
    path_in(dir, "t.npy", path, sizeof path);
    if (npy_write(&ctx, path, t) != TENSOR_OK || npy_read(&ctx, path, &back) != TENSOR_OK)
        fail_msg("round trip: %s", ctx.msg);
    assert_int_equal(back->dtype, t->dtype);
    assert_int_equal(back->rank, t->rank);
    for (int d = 0; d < t->rank; d++)
        assert_int_equal(back->dims[d], t->dims[d]);
    if (t->nbytes)
        assert_memory_equal(back->data, t->data, t->nbytes);
    return back;
}

/* ---- round trips ---------------------------------------------------------------- */

static void test_round_trip_dtypes(void **state)
{
    static const DType dtypes[] = {DT_F32, DT_F64, DT_I32, DT_I64, DT_BOOL};
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    for (int i = 0; i < 5; i++) {
        Tensor *t;
        assert_int_equal(kern_random(&ctx, dtypes[i], 3, DIMS(3, 4, 5), 11, (uint64_t)i, &t),
                         TENSOR_OK);
        tensor_release(round_trip(*state, t));
        tensor_release(t);
    }
    assert_int_equal(count_files(*state), 1);
}

static void test_round_trip_shapes(void **state)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    static const int ranks[] = {0, 1, 2, 4};
    static const int64_t dims[][4] = {{0}, {7}, {0, 3}, {1, 1, 1, 1}};
    for (int i = 0; i < 4; i++) {
        Tensor *t;
        assert_int_equal(kern_random(&ctx, DT_F64, ranks[i], dims[i], 5, 0, &t), TENSOR_OK);
        tensor_release(round_trip(*state, t));
        tensor_release(t);
    }
}

static void test_written_header_layout(void **state)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    char path[4096];
    Tensor *t;
    size_t len;
    assert_int_equal(kern_iota(&ctx, DT_F32, 1, DIMS(7), 0, &t), TENSOR_OK);
    assert_int_equal(npy_write(&ctx, path_in(*state, "h.npy", path, sizeof path), t), TENSOR_OK);
    uint8_t *b = read_file(path, &len);
    size_t hlen = (size_t)b[8] | (size_t)b[9] << 8;
    assert_memory_equal(b, "\x93NUMPY\x01\x00", 8);
    assert_int_equal((10 + hlen) % 64, 0);
    assert_int_equal(b[10 + hlen - 1], '\n');
    assert_int_equal(len, 10 + hlen + 28);
    assert_memory_equal(b + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (7,), }", 57);
    assert_memory_equal(b + 10 + hlen, t->data, 28);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0644);
    free(b);
    tensor_release(t);
}

static void test_scalar_and_matrix_headers(void **state)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    char path[4096];
    Tensor *s, *m;
    size_t len;
    assert_int_equal(kern_full(&ctx, DT_BOOL, 0, NULL, scalar_int(1), &s), TENSOR_OK);
    assert_int_equal(kern_full(&ctx, DT_I64, 2, DIMS(2, 3), scalar_int(-1), &m), TENSOR_OK);
    assert_int_equal(npy_write(&ctx, path_in(*state, "s.npy", path, sizeof path), s), TENSOR_OK);
    uint8_t *b = read_file(path, &len);
    assert_memory_equal(b + 10, "{'descr': '|b1', 'fortran_order': False, 'shape': (), }", 55);
    free(b);
    assert_int_equal(npy_write(&ctx, path, m), TENSOR_OK);
    b = read_file(path, &len);
    assert_memory_equal(b + 10, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", 59);
    free(b);
    tensor_release(s);
    tensor_release(m);
}

static void test_overwrite_leaves_no_temporaries(void **state)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    char path[4096];
    Tensor *a, *b, *back;
    assert_int_equal(kern_full(&ctx, DT_I32, 1, DIMS(3), scalar_int(1), &a), TENSOR_OK);
    assert_int_equal(kern_full(&ctx, DT_I32, 1, DIMS(5), scalar_int(2), &b), TENSOR_OK);
    path_in(*state, "o.npy", path, sizeof path);
    assert_int_equal(npy_write(&ctx, path, a), TENSOR_OK);
    assert_int_equal(npy_write(&ctx, path, b), TENSOR_OK);
    assert_int_equal(npy_read(&ctx, path, &back), TENSOR_OK);
    assert_int_equal(back->count, 5);
    assert_int_equal(count_files(*state), 1);
    tensor_release(a);
    tensor_release(b);
    tensor_release(back);
}

static void test_write_errors(void **state)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    char path[4096];
    Tensor *h, *f;
    assert_int_equal(kern_full(&ctx, DT_BF16, 1, DIMS(2), scalar_float(1), &h), TENSOR_OK);
    assert_int_equal(kern_full(&ctx, DT_F32, 1, DIMS(2), scalar_float(1), &f), TENSOR_OK);
    assert_int_equal(npy_write(&ctx, path_in(*state, "b.npy", path, sizeof path), h), TENSOR_ERR_DTYPE);
    assert_non_null(strstr(ctx.msg, "bfloat16"));
    assert_int_equal(npy_write(&ctx, path_in(*state, "no/such/dir.npy", path, sizeof path), f),
                     TENSOR_ERR_IO);
    assert_int_equal(count_files(*state), 0);
    tensor_release(h);
    tensor_release(f);
}

/* f16, i8 and u32 round-trip bit for bit, under NumPy's descr for each. */
static void test_round_trip_f16_i8_u32(void **state)
{
    static const struct {
        DType dtype;
        double edge; /* the value of largest magnitude */
        const char *header;
    } cases[] = {
        {DT_F16, 65504.0, "{'descr': '<f2', 'fortran_order': False, 'shape': (3, 4), }"},
        {DT_I8, -128, "{'descr': '|i1', 'fortran_order': False, 'shape': (3, 4), }"},
        {DT_U32, 4294967295.0, "{'descr': '<u4', 'fortran_order': False, 'shape': (3, 4), }"},
    };
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    char path[4096];
    for (int i = 0; i < 3; i++) {
        Tensor *t;
        size_t len;
        assert_int_equal(kern_random(&ctx, cases[i].dtype, 2, DIMS(3, 4), 3, (uint64_t)i, &t), TENSOR_OK);
        tensor_set_f64(t, 0, cases[i].edge);
        tensor_release(round_trip(*state, t));
        assert_int_equal(npy_write(&ctx, path_in(*state, "h.npy", path, sizeof path), t), TENSOR_OK);
        uint8_t *b = read_file(path, &len);
        assert_memory_equal(b + 10, cases[i].header, strlen(cases[i].header));
        free(b);
        tensor_release(t);
    }
}

/* ---- reading other writers' files -------------------------------------------------- */

/* Images as np.save writes them, in both byte orders. */
static void test_decode_f16_i8_u32(void **state)
{
    (void)state;
    static const uint16_t le_f2[4] = {0x3c00, 0xc000, 0x7c00, 0x0001};
    static const uint8_t be_f2[4] = {0x3c, 0x00, 0x83, 0xff};
    static const int8_t i1[3] = {-128, 127, -1};
    static const uint8_t be_u4[8] = {0xff, 0xff, 0xff, 0xff, 0, 0, 1, 2};
    static const struct {
        const char *dict;
        const void *data;
        size_t len;
        DType dtype;
        double values[4];
    } cases[] = {
        {"{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }", le_f2, 8, DT_F16, {1, -2, INFINITY, 0x1p-24}},
        {"{'descr': '>f2', 'fortran_order': False, 'shape': (2,), }", be_f2, 4, DT_F16, {1, -0x3ffp-24, 0, 0}},
        {"{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }", i1, 3, DT_I8, {-128, 127, -1, 0}},
        {"{'descr': '>u4', 'fortran_order': False, 'shape': (2,), }", be_u4, 8, DT_U32, {4294967295.0, 258, 0, 0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        size_t len;
        uint8_t *b = npy_image(1, cases[c].dict, cases[c].data, cases[c].len, &len);
        Tensor *t = decode_ok(b, len);
        assert_int_equal(t->dtype, cases[c].dtype);
        for (int64_t i = 0; i < t->count; i++)
            assert_true(tensor_get_f64(t, i) == cases[c].values[i]);
        tensor_release(t);
        free(b);
    }
}


static void test_decode_versions(void **state)
{
    static const char dict[] = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }   \n";
    const int32_t data[2] = {-7, 9};
    for (int major = 1; major <= 3; major++) {
        size_t len;
        uint8_t *b = npy_image(major, dict, data, sizeof data, &len);
        Tensor *t = decode_ok(b, len);
        assert_int_equal(t->dtype, DT_I32);
        assert_memory_equal(t->data, data, sizeof data);
        tensor_release(t);
        free(b);
    }
}

static void test_big_endian_is_swapped(void **state)
{
    static const uint8_t be_i4[] = {0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe};
    static const uint8_t be_f8[] = {0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18};
    size_t len;
    uint8_t *b = npy_image(1, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,)}", be_i4, 8, &len);
    Tensor *t = decode_ok(b, len);
    assert_int_equal(tensor_get_i64(t, 0), 258);
    assert_int_equal(tensor_get_i64(t, 1), -2);
    tensor_release(t);
    free(b);
    b = npy_image(1, "{\"descr\": \">f8\", \"fortran_order\": False, \"shape\": ()}", be_f8, 8, &len);
    t = decode_ok(b, len);
    assert_float_equal(tensor_get_f64(t, 0), 3.141592653589793, 1e-15);
    tensor_release(t);
    free(b);
}

static void test_bools_normalised_and_py2_longs(void **state)
{
    static const uint8_t bools[6] = {0, 1, 2, 255, 0, 7};
    size_t len;
    uint8_t *b = npy_image(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2L, 3L), }",
                           bools, 6, &len);
    Tensor *t = decode_ok(b, len);
    assert_int_equal(t->rank, 2);
    assert_memory_equal(t->data, ((const uint8_t[]){0, 1, 1, 1, 0, 1}), 6);
    tensor_release(t);
    free(b);
}

/* ---- hostile inputs ------------------------------------------------------------------ */

typedef struct BadHeader {
    const char *what, *dict;
    size_t data_len;
} BadHeader;

static const BadHeader bad_headers[] = {
    {"fortran order", "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", 8},
    {"bad fortran value", "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", 8},
    {"missing shape", "{'descr': '<f4', 'fortran_order': False, }", 8},
    {"duplicate key", "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", 8},
    {"unknown key", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", 8},
    {"unterminated dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ", 8},
    {"unterminated dict 2", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", 8},
    {"unterminated string", "{'descr': '<f4", 0},
    {"unterminated tuple", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3", 24},
    {"no dict", "['descr', '<f4']", 0},
    {"empty header", "", 0},
    {"junk after dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} xyz", 8},
    {"NUL in header", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\0", 8},
    {"long double", "{'descr': '<f16', 'fortran_order': False, 'shape': (2,), }", 32},
    {"unsigned 16", "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", 4},
    {"bfloat16", "{'descr': 'bfloat16', 'fortran_order': False, 'shape': (2,), }", 4},
    {"void2", "{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }", 4},
    {"structured", "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8},
    {"escaped string", "{'descr': '<f\\4', 'fortran_order': False, 'shape': (2,), }", 8},
    {"negative dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", 0},
    {"float dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0,), }", 8},
    {"dim overflows int64", "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 8},
    {"count overflows", "{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775807, 9223372036854775807), }", 8},
    {"bytes overflow", "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }", 0},
    {"lying shape (more)", "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }", 16},
    {"lying shape (fewer)", "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 16},
    {"data not whole items", "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", 12},
    {"rank 17", "{'descr': '|b1', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), }", 1},
    {"shape not tuple", "{'descr': '<f4', 'fortran_order': False, 'shape': 2, }", 8},
    {"missing colon", "{'descr' '<f4', 'fortran_order': False, 'shape': (2,), }", 8},
};

static void test_hostile_headers(void **state)
{
    uint8_t zeros[64] = {0};
    for (size_t i = 0; i < sizeof bad_headers / sizeof bad_headers[0]; i++) {
        const BadHeader *h = &bad_headers[i];
        size_t len, hlen = strcmp(h->what, "NUL in header") == 0 ? strlen(h->dict) + 1 : 0;
        uint8_t *b = npy_image(1, h->dict, zeros, h->data_len, &len);
        if (hlen) { /* npy_image stops at the NUL: put it back */
            free(b);
            b = malloc(10 + hlen + h->data_len);
            memcpy(b, "\x93NUMPY\x01\x00", 8);
            b[8] = (uint8_t)hlen;
            b[9] = 0;
            memcpy(b + 10, h->dict, hlen);
            memset(b + 10 + hlen, 0, h->data_len);
            len = 10 + hlen + h->data_len;
        }
        expect_format_error(b, len, h->what);
        free(b);
    }
}

static void test_hostile_preambles(void **state)
{
    static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
    uint8_t data[4] = {0};
    size_t len;
    uint8_t *b = npy_image(1, dict, data, 4, &len);
    expect_format_error(b, 0, "empty");
    expect_format_error(b, 5, "5 bytes");
    expect_format_error(b, 9, "9 bytes");
    expect_format_error(b, 30, "truncated header");
    expect_format_error(b, len - 1, "truncated data");
    b[0] = 'x';
    expect_format_error(b, len, "bad magic");
    b[0] = 0x93;
    b[6] = 9;
    expect_format_error(b, len, "version 9");
    b[6] = 2;
    expect_format_error(b, 11, "version 2 preamble cut");
    free(b);
    b = npy_image(2, dict, data, 4, &len);
    b[11] = 0x7f; /* header length ~2 GB */
    expect_format_error(b, len, "giant header length");
    free(b);
}

/* Every prefix and many single-byte corruptions of a valid file: each must
 * decode or fail cleanly (ASan/UBSan watch for over-reads and UB). */
static void test_fuzzed_images_never_crash(void **state)
{
    static const char dict[] = "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }\n";
    int64_t data[4] = {1, 2, 3, 4};
    size_t len;
    uint8_t *good = npy_image(1, dict, data, sizeof data, &len);
    for (size_t cut = 0; cut <= len; cut++) {
        uint8_t *b = malloc(cut ? cut : 1);
        memcpy(b, good, cut);
        TensorCtx ctx;
        tensor_ctx_init(&ctx, NULL);
        Tensor *t;
        TensorStatus st = npy_decode(&ctx, b, cut, &t);
        assert_int_equal(st == TENSOR_OK, cut == len);
        tensor_release(t);
        free(b);
    }
    for (uint64_t k = 0; k < 4000; k++) {
        uint8_t *b = malloc(len);
        memcpy(b, good, len);
        uint64_t r = rng_bits(99, 0, k);
        b[r % len] = (uint8_t)(r >> 32);
        TensorCtx ctx;
        tensor_ctx_init(&ctx, NULL);
        Tensor *t;
        TensorStatus st = npy_decode(&ctx, b, len, &t);
        assert_true(st == TENSOR_OK || (st == TENSOR_ERR_FORMAT && t == NULL && ctx.msg[0]));
        tensor_release(t);
        free(b);
    }
    free(good);
}

/* ---- files ---------------------------------------------------------------------------- */

static void expect_read_error(const char *path, TensorStatus want)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *t;
    TensorStatus st = npy_read(&ctx, path, &t);
    if (st != want)
        fail_msg("%s: status %d, message '%s'", path, (int)st, ctx.msg);
    assert_null(t);
    assert_non_null(strstr(ctx.msg, path));
}

static void test_read_file_errors(void **state)
{
    static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }";
    uint8_t data[16] = {0};
    char path[4096];
    size_t len;
    uint8_t *b = npy_image(1, dict, data, 16, &len);
    expect_read_error(path_in(*state, "missing.npy", path, sizeof path), TENSOR_ERR_IO);
    expect_read_error(*state, TENSOR_ERR_IO); /* a directory */
    write_file(path_in(*state, "empty.npy", path, sizeof path), b, 0);
    expect_read_error(path, TENSOR_ERR_FORMAT);
    write_file(path_in(*state, "cut_header.npy", path, sizeof path), b, 40);
    expect_read_error(path, TENSOR_ERR_FORMAT);
    write_file(path_in(*state, "cut_data.npy", path, sizeof path), b, len - 3);
    expect_read_error(path, TENSOR_ERR_FORMAT);
    write_file(path_in(*state, "ok.npy", path, sizeof path), b, len);
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *t;
    assert_int_equal(npy_read(&ctx, path, &t), TENSOR_OK);
    assert_int_equal(t->count, 4);
    tensor_release(t);
    free(b);
}

static void test_read_file_extra_bytes_and_lies(void **state)
{
    static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (4000000000000,), }";
    uint8_t data[20] = {0};
    char path[4096];
    size_t len;
    uint8_t *b = npy_image(1, dict, data, 20, &len);
    write_file(path_in(*state, "lie.npy", path, sizeof path), b, len);
    expect_read_error(path, TENSOR_ERR_FORMAT);
    free(b);
    b = npy_image(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", data, 20, &len);
    write_file(path_in(*state, "extra.npy", path, sizeof path), b, len);
    expect_read_error(path, TENSOR_ERR_FORMAT);
    free(b);
}

/* Under ASan, an allocation beyond its limit must fail as malloc does
 * (test_read_file_too_big_for_memory), not abort the test. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

/* A well-formed file too big to load (4 TiB of data, sparse, so it takes no
 * disk): the allocation fails, and the message names the file like every
 * other .npy message (it said only "out of memory allocating ... bytes"). */
static void test_read_file_too_big_for_memory(void **state)
{
    static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }";
    char path[4096];
    size_t len;
    uint8_t *b = npy_image(1, dict, NULL, 0, &len);
    write_file(path_in(*state, "huge.npy", path, sizeof path), b, len);
    free(b);
    if (truncate(path, (off_t)len + ((off_t)4 << 40)) != 0)
        skip(); /* a file system without room for sparse 4 TiB files */
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *t;
    assert_int_equal(npy_read(&ctx, path, &t), TENSOR_ERR_NOMEM);
    assert_null(t);
    assert_true(strncmp(ctx.msg, path, strlen(path)) == 0);
    assert_non_null(strstr(ctx.msg, ": out of memory allocating 4398046511104 bytes"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip_dtypes, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_round_trip_shapes, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_written_header_layout, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_scalar_and_matrix_headers, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_overwrite_leaves_no_temporaries, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_write_errors, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_round_trip_f16_i8_u32, make_dir, remove_dir),
        cmocka_unit_test(test_decode_f16_i8_u32),
        cmocka_unit_test(test_decode_versions),
        cmocka_unit_test(test_big_endian_is_swapped),
        cmocka_unit_test(test_bools_normalised_and_py2_longs),
        cmocka_unit_test(test_hostile_headers),
        cmocka_unit_test(test_hostile_preambles),
        cmocka_unit_test(test_fuzzed_images_never_crash),
        cmocka_unit_test_setup_teardown(test_read_file_errors, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_read_file_extra_bytes_and_lies, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_read_file_too_big_for_memory, make_dir, remove_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
