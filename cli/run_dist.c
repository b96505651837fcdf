/* `shardc run --transport=mpi` (docs/distributed.md): joining the job,
 * checking the mesh against the number of processes, per-device input
 * files, summing the stats on the root, failing loudly, and agreeing on
 * the exit status. In-process (no world) these are the single-process
 * behaviour. */
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "run_dist.h"
#include "shardc/layout.h"
#include "shardc/npy.h"

enum { ROOT = 0 };

int run_dist_open(RunDist *d, const char *transport, int *argc, char ***argv)
{
    memset(d, 0, sizeof *d);
    d->diag_stream = stderr;
    if (!transport || strcmp(transport, "mpi") != 0)
        return -1;
    char err[256];
    d->world = transport_mpi_world_new(argc, argv, err, sizeof err);
    if (!d->world) {
        fprintf(stderr, "shardc run: --transport=mpi: %s\n", err);
        return 2;
    }
    /* The root reports diagnostics in full; the others keep theirs and
     * print the first line if they fail. */
    if (d->world->rank != ROOT && !(d->diag_stream = open_memstream(&d->diag_text, &d->diag_len)))
        d->diag_stream = stderr;
    return -1;
}

bool run_dist_is_root(const RunDist *d)
{
    return !d->world || d->world->rank == ROOT;
}

static const Mesh *shard_map_mesh(const Module *m, const Op *op)
{
    return op_attr_mesh(m, op, ATTR_KEY_MESH);
}

typedef struct MeshSizeCheck {
    const RunDist *d;
    DiagEngine *diag;
    const Module *m;
} MeshSizeCheck;

static bool check_mesh_size(Op *op, void *user)
{
    const MeshSizeCheck *c = user;
    const Mesh *mesh = op->kind == OP_SHARD_MAP ? shard_map_mesh(c->m, op) : NULL;
    if (!mesh || mesh->num_devices == c->d->world->size)
        return true;
    diag_error(c->diag, op->loc,
               "the mesh @%s has %lld devices, but the job has %lld process%s: run it with mpirun -n %lld "
               "(one device per process)",
               mesh->name, (long long)mesh->num_devices, (long long)c->d->world->size,
               c->d->world->size == 1 ? "" : "es", (long long)mesh->num_devices);
    return false;
}

bool run_dist_check_meshes(const RunDist *d, DiagEngine *diag, const Module *m, const Func *f)
{
    /* Not nested shard_maps: those run inside one device (src/interp/shard_map.c). */
    MeshSizeCheck c = {d, diag, m};
    return !d->world || ir_walk(f->body, &(IrWalker){.pre = check_mesh_size, .user = &c, .scope = IR_WALK_GLOBAL});
}

/* ---- per-device inputs --------------------------------------------------------------- */

static const char device_field[] = "{device}";

bool run_dist_is_pattern(const char *path)
{
    return strstr(path, device_field) != NULL;
}

/* The pattern with its first "{device}" replaced by the device id. */
static void pattern_path(const char *pattern, int64_t device, char *buf, size_t size)
{
    const char *at = strstr(pattern, device_field);
    snprintf(buf, size, "%.*s%lld%s", (int)(at - pattern), pattern, (long long)device,
             at + sizeof device_field - 1);
}

/* "f32[4,8]" */
static const char *block_type_str(DType dtype, int rank, const int64_t *sizes, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s[", dtype_name(dtype));
    for (int k = 0; k < rank && n > 0 && (size_t)n < size; k++)
        n += snprintf(buf + n, size - (size_t)n, k ? ",%lld" : "%lld", (long long)sizes[k]);
    if (n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "]");
    return buf;
}

/* Device `device`'s block of arg from its file: the block's shape, the
 * argument's dtype (a bf16 argument takes an f32 file, rounded). */
static bool read_block(DiagEngine *diag, const char *pattern, int64_t device, const Value *arg,
                       const int64_t *sizes, Tensor **block)
{
    char path[4096], got[TENSOR_TYPE_STR_SIZE], want_str[TENSOR_TYPE_STR_SIZE];
    pattern_path(pattern, device, path, sizeof path);
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *raw = NULL;
    if (npy_read(&ctx, path, &raw) != TENSOR_OK) {
        diag_error(diag, (Loc){path, 0, 0}, "%s", cli_file_message(path, ctx.msg));
        return false;
    }
    DType want = arg->type.dtype;
    bool fits = raw->rank == arg->type.rank && (raw->dtype == want || (want == DT_BF16 && raw->dtype == DT_F32));
    for (int k = 0; fits && k < raw->rank; k++)
        fits = raw->dims[k] == sizes[k];
    bool ok = fits && tensor_convert(&ctx, raw, want, block) == TENSOR_OK;
    if (!fits)
        diag_error(diag, (Loc){path, 0, 0}, "the file holds %s, but device %lld's block of argument %%%s is %s",
                   tensor_type_str(raw, got), (long long)device, arg->name,
                   block_type_str(want, arg->type.rank, sizes, want_str, sizeof want_str));
    tensor_release(raw);
    return ok;
}

/* Whether a lower position holds the same block as p (its offsets). */
static bool held_lower(const Sharding *s, const TensorType *type, int64_t p, const int64_t *offsets)
{
    int64_t o[SHARDC_MAX_RANK], sz[SHARDC_MAX_RANK];
    for (int64_t q = 0; q < p; q++) {
        sharding_block(s, type, q, o, sz);
        if (memcmp(o, offsets, (size_t)type->rank * sizeof *o) == 0)
            return true;
    }
    return false;
}

/* The block position p holds (no sharding: the whole, on device 0). */
static void arg_block(const Sharding *s, const TensorType *type, int64_t p, int64_t *offsets, int64_t *sizes)
{
    if (s) {
        sharding_block(s, type, p, offsets, sizes);
        return;
    }
    memset(offsets, 0, (size_t)type->rank * sizeof *offsets);
    memcpy(sizes, type->dims, (size_t)type->rank * sizeof *sizes);
}

/* Which device reads which block: by device, the position whose block it
 * holds, for the lowest position holding each block (-1: none). */
typedef struct PatternPlan {
    int64_t devices;
    int64_t *position;
    size_t *bytes;
} PatternPlan;

static bool plan_pattern(const Value *arg, PatternPlan *plan)
{
    const Sharding *s = arg->sharding;
    plan->devices = s ? s->mesh->num_devices : 1;
    plan->position = malloc((size_t)plan->devices * sizeof *plan->position);
    plan->bytes = calloc((size_t)plan->devices, sizeof *plan->bytes);
    for (int64_t p = 0; plan->position && p < plan->devices; p++)
        plan->position[p] = -1;
    for (int64_t p = 0; plan->position && plan->bytes && p < plan->devices; p++) {
        int64_t offsets[SHARDC_MAX_RANK], sizes[SHARDC_MAX_RANK], device = s ? mesh_device_id(s->mesh, p) : 0;
        arg_block(s, &arg->type, p, offsets, sizes);
        if (s && held_lower(s, &arg->type, p, offsets))
            continue;
        plan->position[device] = p;
        plan->bytes[device] = dtype_size(arg->type.dtype);
        for (int k = 0; k < arg->type.rank; k++)
            plan->bytes[device] *= (size_t)sizes[k];
    }
    return plan->position && plan->bytes;
}

/* Put device `device`'s block (its bytes at data) in its place. */
static bool insert_piece(const Value *arg, const PatternPlan *plan, int64_t device, const void *data, Tensor *global)
{
    int64_t offsets[SHARDC_MAX_RANK], sizes[SHARDC_MAX_RANK];
    arg_block(arg->sharding, &arg->type, plan->position[device], offsets, sizes);
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *piece = NULL;
    bool ok = tensor_new_uninit(&ctx, arg->type.dtype, arg->type.rank, sizes, &piece) == TENSOR_OK;
    if (ok)
        memcpy(piece->data, data, piece->nbytes);
    ok = ok && tensor_insert_block(&ctx, global, piece, offsets) == TENSOR_OK;
    tensor_release(piece);
    return ok;
}

/* In-process: every block from its file, here. */
static bool read_all_pieces(DiagEngine *diag, const char *pattern, const Value *arg, const PatternPlan *plan,
                            Tensor *global)
{
    bool ok = true;
    for (int64_t dev = 0; ok && dev < plan->devices; dev++) {
        int64_t offsets[SHARDC_MAX_RANK], sizes[SHARDC_MAX_RANK];
        Tensor *block = NULL;
        if (plan->position[dev] < 0)
            continue;
        arg_block(arg->sharding, &arg->type, plan->position[dev], offsets, sizes);
        ok = read_block(diag, pattern, dev, arg, sizes, &block) && insert_piece(arg, plan, dev, block->data, global);
        tensor_release(block);
    }
    return ok;
}

/* Distributed: each holder reads its block; the root gathers them. */
static bool gather_pieces(RunDist *d, DiagEngine *diag, const char *pattern, const Value *arg,
                          const PatternPlan *plan, Tensor *global)
{
    TransportWorld *w = d->world;
    int64_t offsets[SHARDC_MAX_RANK], sizes[SHARDC_MAX_RANK];
    Tensor *mine = NULL;
    size_t total = 0;
    if (plan->position[w->rank] >= 0) {
        arg_block(arg->sharding, &arg->type, plan->position[w->rank], offsets, sizes);
        if (!read_block(diag, pattern, w->rank, arg, sizes, &mine))
            return false;
    }
    for (int64_t dev = 0; dev < plan->devices; dev++)
        total += plan->bytes[dev];
    char *packed = run_dist_is_root(d) ? malloc(total + 1) : NULL, *at = packed;
    bool ok = (packed || !run_dist_is_root(d)) &&
              w->ops->gather(w, mine ? mine->data : NULL, plan->bytes, packed) == TRANSPORT_OK;
    for (int64_t dev = 0; ok && packed && dev < plan->devices; dev++) {
        ok = plan->position[dev] < 0 || insert_piece(arg, plan, dev, at, global);
        at += plan->bytes[dev];
    }
    if (!ok)
        diag_error(diag, arg->loc, "cannot assemble argument %%%s from its per-device files", arg->name);
    tensor_release(mine);
    free(packed);
    return ok;
}

bool run_dist_read_pattern(RunDist *d, DiagEngine *diag, const char *pattern, const Value *arg, Tensor **out)
{
    PatternPlan plan = {0, NULL, NULL};
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    *out = NULL;
    bool ok = plan_pattern(arg, &plan);
    if (!ok)
        diag_error(diag, arg->loc, "out of memory");
    if (ok && d->world && plan.devices != d->world->size) {
        diag_error(diag, arg->loc, "per-device files for %%%s: its mesh has %lld devices, the job %lld processes",
                   arg->name, (long long)plan.devices, (long long)d->world->size);
        ok = false;
    }
    if (ok && run_dist_is_root(d) && tensor_new_for_type(&ctx, &arg->type, out) != TENSOR_OK) {
        diag_error(diag, arg->loc, "argument %%%s: %s", arg->name, ctx.msg);
        ok = false;
    }
    if (ok)
        ok = d->world ? gather_pieces(d, diag, pattern, arg, &plan, *out)
                      : read_all_pieces(diag, pattern, arg, &plan, *out);
    free(plan.position);
    free(plan.bytes);
    return ok;
}

/* ---- the same program on every rank --------------------------------------------------------- */

uint64_t run_dist_hash(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* "2, 3 and 5": the ranks whose fingerprint is not the root's. */
static int list_differing(FILE *out, const uint64_t *all, int64_t n)
{
    int count = 0;
    for (int64_t r = 1; r < n; r++)
        if (all[r] != all[ROOT])
            fprintf(out, "%s%lld", count++ ? ", " : "", (long long)r);
    return count;
}

static bool report_fingerprints(const RunDist *d, DiagEngine *diag, const uint64_t *all, Loc where)
{
    char *ranks = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&ranks, &len);
    int count = out ? list_differing(out, all, d->world->size) : 0;
    if (out)
        fclose(out);
    if (count)
        diag_error(diag, where,
                   "rank%s %s of %lld run%s a different program, mesh, inputs or options than rank 0 "
                   "(fingerprint %016llx, rank 0 %016llx): every rank must run the same command on the same files",
                   count == 1 ? "" : "s", ranks ? ranks : "?", (long long)d->world->size, count == 1 ? "s" : "",
                   (unsigned long long)all[d->world->rank], (unsigned long long)all[ROOT]);
    free(ranks);
    return count == 0;
}

bool run_dist_check_fingerprint(RunDist *d, DiagEngine *diag, uint64_t fingerprint, Loc where)
{
    if (!d->world)
        return true;
    int64_t n = d->world->size;
    uint64_t *all = calloc((size_t)n, sizeof *all);
    size_t *bytes = calloc((size_t)n, sizeof *bytes);
    bool ok = all && bytes;
    for (int64_t r = 0; ok && r < n; r++)
        bytes[r] = sizeof fingerprint;
    ok = ok && d->world->ops->gather(d->world, &fingerprint, bytes, all) == TRANSPORT_OK &&
         d->world->ops->broadcast(d->world, all, (size_t)n * sizeof *all) == TRANSPORT_OK &&
         report_fingerprints(d, diag, all, where);
    free(all);
    free(bytes);
    return ok;
}

/* ---- stats, failing, ending ---------------------------------------------------------------- */

/* Each process ran its own devices: their per-device figures are summed
 * (the others' entries are zero), and calls were counted by one process. */
bool run_dist_merge_stats(RunDist *d, InterpStats *stats)
{
    if (!d->world)
        return true;
    int64_t cells = stats->num_devices * COST_KINDS;
    int64_t n = COST_KINDS + 2 * cells + stats->num_devices + 1;
    int64_t *counts = calloc((size_t)n, sizeof *counts), *at = counts;
    if (!counts)
        return false;
    CostTally *t = &stats->traffic;
    int64_t *parts[] = {t->calls, t->received, t->sent, stats->device_peak_bytes, &stats->shard_map_runs};
    int64_t sizes[] = {COST_KINDS, cells, cells, stats->num_devices, 1};
    for (int i = 0; i < 5; at += sizes[i], i++)
        memcpy(at, parts[i], (size_t)sizes[i] * sizeof *counts);
    bool ok = d->world->ops->sum_to_root(d->world, counts, n) == TRANSPORT_OK;
    at = counts;
    for (int i = 0; ok && run_dist_is_root(d) && i < 5; at += sizes[i], i++)
        memcpy(parts[i], at, (size_t)sizes[i] * sizeof *counts);
    free(counts);
    return ok;
}

int run_dist_fail(RunDist *d)
{
    if (!d->world)
        return 1;
    if (!run_dist_is_root(d)) {
        fflush(d->diag_stream);
        const char *text = d->diag_text && d->diag_len ? d->diag_text : "failed (see the messages above)";
        fprintf(stderr, "shardc run: rank %lld of %lld: %.*s\n", (long long)d->world->rank,
                (long long)d->world->size, (int)strcspn(text, "\n"), text);
    }
    d->world->ops->fail(d->world);
    return 1;
}

int run_dist_close(RunDist *d, bool ok)
{
    int32_t verdict = ok ? 0 : 1;
    if (!d->world)
        return verdict;
    fflush(stdout);
    if (d->world->ops->broadcast(d->world, &verdict, sizeof verdict) != TRANSPORT_OK)
        return run_dist_fail(d);
    d->world->ops->close(d->world);
    if (d->diag_stream != stderr)
        fclose(d->diag_stream);
    free(d->diag_text);
    return verdict;
}
