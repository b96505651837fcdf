/* Synthetic transformer-like .shir modules for the compiler-scaling benchmark.
 *
 *   gen_transformer [-u] [-n OPS | -l LAYERS] [-d DATA] [-m MODEL] [-o FILE]
 *
 * Writes one function of L pre-norm transformer layers on a 2-D mesh
 * <"data"=DATA, "model"=MODEL>: per layer a layer norm, Megatron attention
 * (per-head Q/K/V projections column-parallel over "model", softmax with
 * max subtraction, row-parallel output projection), a residual add, a
 * second layer norm, a Megatron MLP (W1 column-, W2 row-parallel) and a
 * second residual add. The activation is [batch, seq, embed] sharded
 * [{"data"}, {}, {}]; weights carry the Megatron shardings, layer-norm
 * scales are replicated. -n picks the smallest L with at least OPS ops.
 * The shapes do not depend on the mesh (every dim divides 64 x 16), so the
 * same module can be compiled for 8, 64 or 512 devices.
 *
 * -u writes the same program unannotated but for the input's batch dim
 * (the input of the auto-sharding benchmark, bench/auto_shard.sh).
 *
 * The number of ops written (return excluded) goes to stderr as
 * "ops N layers L". */
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BATCH = 64, SEQ = 128, EMBED = 512, HEADS = 16, HEAD_DIM = 32, FFN = 2048 };

/* ops emitted per layer by emit_layer (kept in sync by a check in main) */
enum { LAYERNORM_OPS = 10, ATTENTION_OPS = 13, MLP_OPS = 3, LAYER_OPS = 2 * LAYERNORM_OPS + ATTENTION_OPS + MLP_OPS + 2 };

static long ops_written;

static void op(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void op(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("  ", f);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    va_end(ap);
    ops_written++;
}

#define ACT "f32[64,128,512]"
#define ROW "f32[64,128]"

/* y = (x - mean) * rsqrt(var + eps) * gamma, over the embed dim. */
static void emit_layernorm(FILE *f, long l, const char *tag, const char *x, char *out, size_t outsz)
{
    op(f, "%%l%ld_%s_mu = reduce_mean %s {dims = [2]} : " ROW, l, tag, x);
    op(f, "%%l%ld_%s_mub = broadcast %%l%ld_%s_mu {dims = [0, 1]} : " ACT, l, tag, l, tag);
    op(f, "%%l%ld_%s_c = sub %s, %%l%ld_%s_mub : " ACT, l, tag, x, l, tag);
    op(f, "%%l%ld_%s_sq = mul %%l%ld_%s_c, %%l%ld_%s_c : " ACT, l, tag, l, tag, l, tag);
    op(f, "%%l%ld_%s_var = reduce_mean %%l%ld_%s_sq {dims = [2]} : " ROW, l, tag, l, tag);
    op(f, "%%l%ld_%s_r = rsqrt %%l%ld_%s_var : " ROW, l, tag, l, tag);
    op(f, "%%l%ld_%s_rb = broadcast %%l%ld_%s_r {dims = [0, 1]} : " ACT, l, tag, l, tag);
    op(f, "%%l%ld_%s_n = mul %%l%ld_%s_c, %%l%ld_%s_rb : " ACT, l, tag, l, tag, l, tag);
    op(f, "%%l%ld_%s_gb = broadcast %%g%ld_%s {dims = [2]} : " ACT, l, tag, l, tag);
    op(f, "%%l%ld_%s = mul %%l%ld_%s_n, %%l%ld_%s_gb : " ACT, l, tag, l, tag, l, tag);
    snprintf(out, outsz, "%%l%ld_%s", l, tag);
}

static void emit_layer(FILE *f, long l, const char *x, char *out, size_t outsz)
{
    char ln1[64], ln2[64];
    long before = ops_written;
    emit_layernorm(f, l, "ln1", x, ln1, sizeof ln1);
    op(f, "%%l%ld_q = einsum \"bse,ehd->bshd\" %s, %%wq%ld : f32[64,128,16,32]", l, ln1, l);
    op(f, "%%l%ld_k = einsum \"bse,ehd->bshd\" %s, %%wk%ld : f32[64,128,16,32]", l, ln1, l);
    op(f, "%%l%ld_v = einsum \"bse,ehd->bshd\" %s, %%wv%ld : f32[64,128,16,32]", l, ln1, l);
    op(f, "%%l%ld_s = einsum \"bshd,bthd->bhst\" %%l%ld_q, %%l%ld_k : f32[64,16,128,128]", l, l, l);
    op(f, "%%l%ld_smax = reduce_max %%l%ld_s {dims = [3]} : f32[64,16,128]", l, l);
    op(f, "%%l%ld_smaxb = broadcast %%l%ld_smax {dims = [0, 1, 2]} : f32[64,16,128,128]", l, l);
    op(f, "%%l%ld_z = sub %%l%ld_s, %%l%ld_smaxb : f32[64,16,128,128]", l, l, l);
    op(f, "%%l%ld_e = exp %%l%ld_z : f32[64,16,128,128]", l, l);
    op(f, "%%l%ld_den = reduce_sum %%l%ld_e {dims = [3]} : f32[64,16,128]", l, l);
    op(f, "%%l%ld_denb = broadcast %%l%ld_den {dims = [0, 1, 2]} : f32[64,16,128,128]", l, l);
    op(f, "%%l%ld_p = div %%l%ld_e, %%l%ld_denb : f32[64,16,128,128]", l, l, l);
    op(f, "%%l%ld_ctx = einsum \"bhst,bthd->bshd\" %%l%ld_p, %%l%ld_v : f32[64,128,16,32]", l, l, l);
    op(f, "%%l%ld_att = einsum \"bshd,hde->bse\" %%l%ld_ctx, %%wo%ld : " ACT, l, l, l);
    op(f, "%%l%ld_r1 = add %s, %%l%ld_att : " ACT, l, x, l);
    char r1[64];
    snprintf(r1, sizeof r1, "%%l%ld_r1", l);
    emit_layernorm(f, l, "ln2", r1, ln2, sizeof ln2);
    op(f, "%%l%ld_h = einsum \"bse,ef->bsf\" %s, %%w1_%ld : f32[64,128,2048]", l, ln2, l);
    op(f, "%%l%ld_a = gelu %%l%ld_h : f32[64,128,2048]", l, l);
    op(f, "%%l%ld_m = einsum \"bsf,fe->bse\" %%l%ld_a, %%w2_%ld : " ACT, l, l, l);
    op(f, "%%l%ld_y = add %%l%ld_r1, %%l%ld_m : " ACT, l, l, l);
    snprintf(out, outsz, "%%l%ld_y", l);
    if (ops_written - before != LAYER_OPS) {
        fprintf(stderr, "gen_transformer: internal error: %ld ops per layer, expected %d\n",
                ops_written - before, (int)LAYER_OPS);
        exit(1);
    }
}

static void emit_bare_args(FILE *f, long layers)
{
    fprintf(f, "func @transformer(%%x: " ACT " {sharding = <@mesh, [{\"data\"}, {?}, {?}]>}");
    for (long l = 0; l < layers; l++)
        fprintf(f, ",\n    %%g%ld_ln1: f32[512], %%wq%ld: f32[512,16,32], %%wk%ld: f32[512,16,32], %%wv%ld: f32[512,16,32]"
                ",\n    %%wo%ld: f32[16,32,512], %%g%ld_ln2: f32[512], %%w1_%ld: f32[512,2048], %%w2_%ld: f32[2048,512]",
                l, l, l, l, l, l, l, l);
    fprintf(f, ")\n    -> (" ACT ") {\n");
}

static void emit_args(FILE *f, long layers)
{
    fprintf(f, "func @transformer(%%x: " ACT " {sharding = <@mesh, [{\"data\"}, {}, {}]>}");
    for (long l = 0; l < layers; l++) {
        fprintf(f, ",\n    %%g%ld_ln1: f32[512] {sharding = <@mesh, [{}]>}", l);
        fprintf(f, ",\n    %%wq%ld: f32[512,16,32] {sharding = <@mesh, [{}, {\"model\"}, {}]>}", l);
        fprintf(f, ",\n    %%wk%ld: f32[512,16,32] {sharding = <@mesh, [{}, {\"model\"}, {}]>}", l);
        fprintf(f, ",\n    %%wv%ld: f32[512,16,32] {sharding = <@mesh, [{}, {\"model\"}, {}]>}", l);
        fprintf(f, ",\n    %%wo%ld: f32[16,32,512] {sharding = <@mesh, [{\"model\"}, {}, {}]>}", l);
        fprintf(f, ",\n    %%g%ld_ln2: f32[512] {sharding = <@mesh, [{}]>}", l);
        fprintf(f, ",\n    %%w1_%ld: f32[512,2048] {sharding = <@mesh, [{}, {\"model\"}]>}", l);
        fprintf(f, ",\n    %%w2_%ld: f32[2048,512] {sharding = <@mesh, [{\"model\"}, {}]>}", l);
    }
    fprintf(f, ")\n    -> (" ACT " {sharding = <@mesh, [{\"data\"}, {}, {}]>}) {\n");
}

static long parse_long(const char *flag, const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v <= 0) {
        fprintf(stderr, "gen_transformer: %s needs a positive integer, got '%s'\n", flag, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    long target_ops = 1000, layers = 0, data = 2, model = 4;
    bool bare = false;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-u") == 0) {
            bare = true;
            continue;
        }
        if (i + 1 == argc) {
            fprintf(stderr, "usage: gen_transformer [-u] [-n OPS | -l LAYERS] [-d DATA] [-m MODEL] [-o FILE]\n");
            return 2;
        }
        if (strcmp(a, "-n") == 0)
            target_ops = parse_long(a, argv[++i]);
        else if (strcmp(a, "-l") == 0)
            layers = parse_long(a, argv[++i]);
        else if (strcmp(a, "-d") == 0)
            data = parse_long(a, argv[++i]);
        else if (strcmp(a, "-m") == 0)
            model = parse_long(a, argv[++i]);
        else if (strcmp(a, "-o") == 0)
            path = argv[++i];
        else {
            fprintf(stderr, "gen_transformer: unknown option '%s'\n", a);
            return 2;
        }
    }
    if (BATCH % data || HEADS % model || FFN % model) {
        fprintf(stderr, "gen_transformer: data must divide %d and model %d\n", BATCH, HEADS);
        return 2;
    }
    if (!layers)
        layers = (target_ops + LAYER_OPS - 1) / LAYER_OPS;
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f) {
        fprintf(stderr, "gen_transformer: %s: %s\n", path, strerror(errno));
        return 1;
    }
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    fprintf(f, "# Generated by bench/gen_transformer: %ld transformer layers, mesh %ldx%ld.\n",
            layers, data, model);
    fprintf(f, "mesh @mesh = <\"data\"=%ld, \"model\"=%ld>\n\n", data, model);
    if (bare)
        emit_bare_args(f, layers);
    else
        emit_args(f, layers);
    char x[64] = "%x";
    for (long l = 0; l < layers; l++) {
        char y[64];
        emit_layer(f, l, x, y, sizeof y);
        memcpy(x, y, sizeof x);
    }
    fprintf(f, "  return %s\n}\n", x);
    if (fflush(f) != 0 || ferror(f) || (path && fclose(f) != 0)) {
        fprintf(stderr, "gen_transformer: write failed: %s\n", strerror(errno));
        return 1;
    }
    fprintf(stderr, "ops %ld layers %ld\n", ops_written, layers);
    return 0;
}
