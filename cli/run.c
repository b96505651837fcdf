/* `shardc run`: run a program twice -- as written (the reference, global
 * semantics) and compiled to its SPMD form on simulated devices -- and
 * compare the results (docs/interpreter.md). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "shardc/kern_libs.h"
#include "cmd.h"
#include "shardc/config.h"
#include "shardc/limits.h"
#include "shardc/interp.h"
#include "output.h"
#include "shardc/kernels.h"
#include "shardc/npy.h"
#include "shardc/origin.h"
#include "shardc/parse.h"
#include "shardc/partition.h"
#include "shardc/pass.h"
#include "shardc/print.h"
#include "shardc/timer.h"
#include "run_dist.h"
#include "run_trace.h"

typedef struct RunArgs {
    CliCommon common;       /* --func, --max-bytes, --config, --rules */
    const char *file, *inputs, *outputs_dir, *reference;
    const char *reference_func; /* --reference-func: the reference is this function of FILE */
    const char *transport;  /* --transport: "local" or "mpi" */
    const char *trace;      /* --trace: the Trace Event JSON file to write */
    uint64_t seed;
    int64_t max_steps;      /* --max-steps: iterations a while may run; 0: the default */
    int threads;            /* --threads: lockstep workers; 0: one per core */
    bool engine_threads;    /* --engine=threads: one thread per device everywhere */
    bool print, visualize, stats, have_rtol, have_atol;
    double rtol, atol;
} RunArgs;

/* ---- flags ---------------------------------------------------------------------------- */

static RunArgs *run_args(CliParse *p) { return p->args; }

static int check(bool ok) { return ok ? CLI_OK : CLI_BAD; }

static bool parse_number(const char *text, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(text, &end);
    return *text && !*end && errno == 0 && isfinite(*out) && *out >= 0;
}

static int flag_file(CliParse *p, const char *v) { return cli_take_one(&run_args(p)->file, v); }

static int flag_inputs(CliParse *p, const char *v) { run_args(p)->inputs = v; return check(*v); }
static int flag_outputs(CliParse *p, const char *v) { run_args(p)->outputs_dir = v; return check(*v); }
static int flag_reference(CliParse *p, const char *v) { run_args(p)->reference = v; return check(*v); }
static int flag_reference_func(CliParse *p, const char *v)
{
    run_args(p)->reference_func = v + (v[0] == '@');
    return check(*v && v[v[0] == '@']);
}
static int flag_trace(CliParse *p, const char *v) { run_args(p)->trace = v; return check(*v); }
static int flag_transport(CliParse *p, const char *v)
{
    run_args(p)->transport = v;
    return check(strcmp(v, "local") == 0 || strcmp(v, "mpi") == 0);
}
static int flag_print(CliParse *p, const char *v) { run_args(p)->print = true; return CLI_OK; }
static int flag_visualize(CliParse *p, const char *v) { run_args(p)->visualize = true; return CLI_OK; }
static int flag_stats(CliParse *p, const char *v) { run_args(p)->stats = true; return CLI_OK; }
static int flag_rtol(CliParse *p, const char *v)
{
    RunArgs *a = run_args(p);
    return check(a->have_rtol = parse_number(v, &a->rtol));
}
static int flag_atol(CliParse *p, const char *v)
{
    RunArgs *a = run_args(p);
    return check(a->have_atol = parse_number(v, &a->atol));
}

static int flag_seed(CliParse *p, const char *v)
{
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(v, &end, 10);
    run_args(p)->seed = seed;
    return check(*v && *v != '-' && !*end && errno == 0);
}

static int flag_max_steps(CliParse *p, const char *v)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    run_args(p)->max_steps = n;
    return check(*v && !*end && errno == 0 && n > 0);
}

static int flag_threads(CliParse *p, const char *v)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    run_args(p)->threads = (int)n;
    return check(*v && !*end && errno == 0 && n > 0 && n <= 1024);
}

static int flag_engine(CliParse *p, const char *v)
{
    run_args(p)->engine_threads = strcmp(v, "threads") == 0;
    return check(strcmp(v, "lockstep") == 0 || strcmp(v, "threads") == 0);
}

/* A rejected value is "bad value in 'ARG'" (no `error` text). */
static const CliFlag run_flags[] = {
    {NULL, CLI_BARE, flag_file, "more than one input file: '%s'", "FILE.shir"},
    CLI_FLAG_FUNC,
    {"--seed", CLI_JOINED, flag_seed, NULL, "[--seed=N]"},
    {"--inputs", CLI_JOINED, flag_inputs, NULL, "[--inputs=a.npy,b.npy,...]"},
    {"--outputs", CLI_JOINED, flag_outputs, NULL, "[--outputs=DIR]"},
    {"--print", CLI_BARE, flag_print, NULL, "[--print]"},
    {"--visualize", CLI_BARE, flag_visualize, NULL, "[--visualize]"},
    {"--rtol", CLI_JOINED, flag_rtol, NULL, "[--rtol=X]"},
    {"--atol", CLI_JOINED, flag_atol, NULL, "[--atol=Y]"},
    CLI_FLAGS_CONFIG(CLI_CONFIG_SYNOPSIS),
    CLI_FLAG_MAX_BYTES,
    CLI_FLAG_INPUT_FORMAT,
    CLI_FLAGS_AUTO_SHARD,
    CLI_FLAG_RESHARD_PLAN,
    {"--stats", CLI_BARE, flag_stats, NULL, "[--stats]"},
    {"--reference", CLI_JOINED, flag_reference, NULL, "[--reference=GLOBAL.shir]"},
    {"--reference-func", CLI_JOINED, flag_reference_func, "--reference-func needs a function name",
     "[--reference-func=NAME]"},
    {"--transport", CLI_JOINED, flag_transport, NULL, "[--transport=local|mpi]"},
    {"--max-steps", CLI_JOINED, flag_max_steps, NULL, "[--max-steps=N]"},
    {"--threads", CLI_JOINED, flag_threads, NULL, "[--threads=N]"},
    {"--engine", CLI_JOINED, flag_engine, NULL, "[--engine=lockstep|threads]"},
    {"--trace", CLI_JOINED, flag_trace, NULL, "[--trace=FILE.json]"},
    CLI_FLAGS_WARNINGS,
    CLI_FLAGS_HELP,
};

const CliCommand cmd_run_command = {
    .name = "shardc run",
    .summary = "run FILE partitioned on simulated devices; compare with it as written",
    CLI_TABLE(run_flags),
    .description =
        "Runs the entry function (--func, else @main, else the only public function) as\n"
        "written, then compiled to its partitioned SPMD form on simulated devices, and compares the results.\n"
        "With --reference, FILE is already partitioned and GLOBAL.shir is the\n"
        "reference; with --reference-func=NAME, function NAME of FILE is (e.g. the plain\n"
        "function a shard_map program implements). Inputs are .npy files or pseudo-random values from --seed.\n"
        "--transport=mpi runs device d on MPI rank d (mpirun -n DEVICES, build-mpi/shardc);\n"
        "an --inputs name with {device} names one file per device (docs/distributed.md).\n",
    .help_on_error = true,
    .missing_positional = "no input file",
};

static int parse_run_args(int argc, char **argv, RunArgs *a)
{
    memset(a, 0, sizeof *a);
    int status = cli_parse(&cmd_run_command, argc, argv, a, &a->common);
    if (status < 0 && a->reference && a->reference_func)
        return cli_usage_error(&cmd_run_command, "--reference and --reference-func both name the reference: give one");
    return status;
}

/* ---- programs ---------------------------------------------------------------------------- */

typedef struct Program {
    char *text;
    size_t len;
    Module *module;
    const Func *entry;
    PartitionStats stats;   /* what partitioning inserted, for --stats */
} Program;

static const Func *find_entry(DiagEngine *diag, const Module *m, const char *name)
{
    const Func *f = name ? module_find_func(m, name) : NULL;
    if (name && !f)
        diag_error(diag, (Loc){m->file, 0, 0}, "no function @%s", name);
    return f;
}

/* Parse, verify and compile `path` up to `emit`; false (reported) on errors.
 * `read` is a program already read from the same path, or NULL. */
static bool load_program(DiagEngine *diag, const char *path, EmitKind emit, const RunArgs *a, const Config *config,
                         const Program *read, const char *entry, Program *p)
{
    if (read)
        p->module = cli_parse_program(diag, path, &a->common, read->text, read->len);
    else
        p->module = cli_read_program(diag, path, &a->common, &p->text, &p->len);
    /* chosen before inlining, which would make a helper look like an entry */
    const char *func = p->module ? cli_entry_name(diag, p->module, entry) : NULL;
    CompileOptions options = {.emit = emit, .entry = func, .config = config, .max_bytes = a->common.max_bytes,
                              .auto_shard = a->common.auto_shard, .memory_budget = a->common.memory_budget,
                              .auto_shard_time = a->common.auto_shard_time,
                              .reshard_plan = a->common.reshard_plan};
    OriginTable origins = {0};
    PassContext ctx = {.diag = diag, .options = &options, .origins = &origins, .stats = &p->stats};
    return func && pipeline_run(p->module, &ctx) && diag->errors == 0 && (p->entry = find_entry(diag, p->module, func));
}

static bool same_signature(DiagEngine *diag, const Func *ref, const Func *spmd)
{
    bool same = ref->body->num_args == spmd->body->num_args && ref->num_results == spmd->num_results;
    for (int i = 0; same && i < ref->body->num_args; i++)
        same = type_equal(&ref->body->args[i]->type, &spmd->body->args[i]->type);
    for (int i = 0; same && i < ref->num_results; i++)
        same = type_equal(&ref->result_types[i], &spmd->result_types[i]);
    if (!same)
        diag_error(diag, spmd->loc, "@%s's signature differs from the reference's @%s", spmd->name, ref->name);
    return same;
}

/* ---- inputs --------------------------------------------------------------------------------- */

static bool check_input(DiagEngine *diag, const char *path, const Value *arg, Tensor **t)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *converted = NULL;
    /* NumPy has no bfloat16: a bf16 argument takes an f32 file, rounded. */
    if (arg->type.dtype == DT_BF16 && (*t)->dtype == DT_F32 &&
        tensor_convert(&ctx, *t, DT_BF16, &converted) == TENSOR_OK) {
        tensor_release(*t);
        *t = converted;
    }
    if (tensor_matches_type(*t, &arg->type))
        return true;
    char got[TENSOR_TYPE_STR_SIZE], want[256];
    FILE *s = fmemopen(want, sizeof want, "w");
    if (s) {
        type_print(s, &arg->type);
        fclose(s);
    }
    diag_error(diag, (Loc){path, 0, 0}, "the file holds %s, but argument %%%s is %s", tensor_type_str(*t, got), arg->name,
               s ? want : "?");
    return false;
}

static int count_files(const char *list)
{
    int n = 1;
    for (const char *p = list; *p; p++)
        n += *p == ',';
    return n;
}

static bool read_input(DiagEngine *diag, const char *path, const Value *arg, Tensor **t)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    if (npy_read(&ctx, path, t) != TENSOR_OK) {
        diag_error(diag, (Loc){path, 0, 0}, "%s", cli_file_message(path, ctx.msg));
        return false;
    }
    return check_input(diag, path, arg, t);
}

/* A global file, read by the root; or per-device files ({device}), read by
 * the devices holding distinct blocks of the SPMD argument. */
static bool read_one_input(DiagEngine *diag, RunDist *dist, const char *path, const Value *arg,
                           const Value *spmd_arg, Tensor **t)
{
    if (run_dist_is_pattern(path))
        return run_dist_read_pattern(dist, diag, path, spmd_arg, t) && (!*t || check_input(diag, path, arg, t));
    return !run_dist_is_root(dist) || read_input(diag, path, arg, t);
}

static bool read_inputs(DiagEngine *diag, RunDist *dist, const char *list, const Func *f, const Func *spmd,
                        Tensor **inputs)
{
    if (count_files(list) != f->body->num_args) {
        diag_error(diag, f->loc, "--inputs gives %d files for the %d arguments of @%s", count_files(list),
                   f->body->num_args, f->name);
        return false;
    }
    char *copy = strdup(list), *save = NULL;
    bool ok = copy != NULL;
    for (int i = 0; ok && i < f->body->num_args; i++) {
        char *path = strtok_r(i ? NULL : copy, ",", &save);
        if (!path)
            diag_error(diag, f->loc, "--inputs has an empty file name");
        ok = path && read_one_input(diag, dist, path, f->body->args[i], spmd->body->args[i], &inputs[i]);
    }
    free(copy);
    return ok;
}

static bool random_inputs(DiagEngine *diag, uint64_t seed, const Func *f, Tensor **inputs)
{
    for (int i = 0; i < f->body->num_args; i++) {
        const TensorType *t = &f->body->args[i]->type;
        TensorCtx ctx;
        tensor_ctx_init(&ctx, NULL);
        if (kern_random(&ctx, t->dtype, t->rank, t->dims, seed, (uint64_t)i, &inputs[i]) != TENSOR_OK) {
            diag_error(diag, f->body->args[i]->loc, "cannot make input %%%s: %s", f->body->args[i]->name, ctx.msg);
            return false;
        }
    }
    return true;
}

/* ---- running ---------------------------------------------------------------------------------- */

typedef struct RunResult {
    InterpCtx interp;
    Tensor **outputs;
    double seconds;
} RunResult;

static bool run_program(const Program *p, Tensor **inputs, RunResult *r)
{
    r->outputs = calloc((size_t)p->entry->num_results + 1, sizeof *r->outputs);
    if (!r->outputs)
        arena_out_of_memory();
    kern_libs_preload(r->interp.libs); /* not in either run's time */
    Timer start = timer_start();
    bool ok = interp_run_func(&r->interp, p->module, p->entry, inputs, r->outputs);
    r->seconds = timer_since(start).wall;
    return ok;
}

static void run_result_free(RunResult *r, int num_outputs)
{
    for (int i = 0; r->outputs && i < num_outputs; i++)
        tensor_release(r->outputs[i]);
    free(r->outputs);
    interp_ctx_free(&r->interp);
}

/* ---- comparing ---------------------------------------------------------------------------------- */

typedef struct Tolerance {
    double rtol, atol;
} Tolerance;

/* The reference's largest magnitude (at least 1): float sums of many terms
 * differ by rounding in proportion to the values' scale, not to each
 * element, so the default absolute tolerance scales with it. */
static double magnitude(const Tensor *t)
{
    double m = 1.0;
    for (int64_t i = 0; i < t->count; i++) {
        double v = fabs(tensor_get_f64(t, i));
        if (v > m && isfinite(v))
            m = v;
    }
    return m;
}

/* Float dtypes from least to most precise (bits of mantissa 7, 10, 23, 52). */
static int precision_rank(DType dt)
{
    switch (dt) {
    case DT_BF16: return 1;
    case DT_F16: return 2;
    case DT_F32: case DT_C64: return 3;
    case DT_F64: case DT_C128: return 4;
    default: return 5; /* not a float: exact */
    }
}

typedef struct PathScan {
    bool *seen;         /* by Value.id */
    Value **stack;
    int top;
    DType least;
} PathScan;

static void scan_push(PathScan *ps, Value *v)
{
    if (v && !ps->seen[v->id]) {
        ps->seen[v->id] = true;
        ps->stack[ps->top++] = v;
    }
}

static bool scan_region_value(Value *v, void *user)
{
    scan_push(user, v);
    return true;
}

static bool scan_region_op(Op *op, void *user)
{
    for (int i = 0; i < op->num_operands; i++)
        scan_push(user, op->operands[i]);
    return true;
}

/* The least precise float dtype among the values returned value i of f
 * depends on, `result` if none is less precise: a bf16 matmul feeding an
 * f32 result rounds like bf16, and is checked with bf16's tolerance. */
static DType compute_dtype(const Module *m, const Func *f, int i, DType result)
{
    PathScan ps = {calloc((size_t)m->num_values + 1, sizeof(bool)),
                   calloc((size_t)m->num_values + 1, sizeof(Value *)), 0, result};
    if (!ps.seen || !ps.stack || i >= f->body->num_returns) {
        free(ps.seen);
        free(ps.stack);
        return result;
    }
    scan_push(&ps, f->body->returns[i]);
    while (ps.top > 0) {
        Value *v = ps.stack[--ps.top];
        if (precision_rank(v->type.dtype) < precision_rank(ps.least))
            ps.least = v->type.dtype;
        const Op *def = v->def;
        for (int k = 0; def && k < def->num_operands; k++)
            scan_push(&ps, def->operands[k]);
        for (int r = 0; def && r < def->num_regions + (def->region != NULL); r++)
            ir_walk(r < def->num_regions ? def->regions[r] : def->region,
                    &(IrWalker){.value = scan_region_value, .pre = scan_region_op, .user = &ps});
    }
    free(ps.seen);
    free(ps.stack);
    return ps.least;
}

/* The defaults are those of the least precise float dtype on the path to
 * the result (compute_dtype); --rtol/--atol override them. */
static Tolerance tolerance_for(const Tensor *want, DType compute, const RunArgs *a)
{
    static const Tolerance defaults[DT_COUNT] = {
        /* bf16 and f16: about 5 and 10 units of their last place (2^-8, 2^-11) */
        [DT_F32] = {1e-4, 1e-4}, [DT_F64] = {1e-10, 1e-10}, [DT_BF16] = {2e-2, 2e-2},
        [DT_F16] = {5e-3, 5e-3},
    };
    DType dtype = want->dtype;
    Tolerance t = defaults[dtype_is_float(compute) && dtype_is_float(dtype) ? compute : dtype];
    if (dtype_is_float(dtype))
        t.atol *= magnitude(want);
    if (dtype_is_float(dtype) && a->have_rtol)
        t.rtol = a->rtol;
    if (dtype_is_float(dtype) && a->have_atol)
        t.atol = a->atol;
    return t;
}

typedef struct Errors {
    double max_abs, max_rel;
} Errors;

static double element_error(double got, double want, bool relative)
{
    if ((isnan(got) && isnan(want)) || (isinf(got) && got == want))
        return 0.0;
    double err = fabs(got - want);
    if (isnan(err))
        return INFINITY;
    return relative ? (err == 0 ? 0.0 : want == 0 ? INFINITY : err / fabs(want)) : err;
}

/* Element by element, without a converted copy: comparing must not need memory. */
static Errors errors_between(const Tensor *got, const Tensor *want)
{
    Errors e = {0, 0};
    for (int64_t i = 0; i < got->count; i++) {
        double x = tensor_get_f64(got, i), y = tensor_get_f64(want, i);
        e.max_abs = fmax(e.max_abs, element_error(x, y, false));
        e.max_rel = fmax(e.max_rel, element_error(x, y, true));
    }
    return e;
}

static const Sharding *result_sharding(const Func *f, int i)
{
    if (f->result_shardings && f->result_shardings[i])
        return f->result_shardings[i];
    return f->body->returns[i]->sharding;
}

static void print_value_header(const char *kind, int i, const char *name, const TensorType *type, const Sharding *s)
{
    printf("%s %d %%%s: ", kind, i, name);
    type_print(stdout, type);
    printf(" sharding=");
    if (s)
        print_sharding(stdout, s);
    else
        printf("none");
}

static void print_mismatch(const Tensor *got, const Tensor *want, const TensorDiff *diff)
{
    char a[TENSOR_TYPE_STR_SIZE], b[TENSOR_TYPE_STR_SIZE];
    if (!tensor_same_shape(got, want) || got->dtype != want->dtype) {
        printf("  the SPMD run gave %s, the reference %s\n", tensor_type_str(got, a), tensor_type_str(want, b));
        return;
    }
    printf("  %lld of %lld elements differ; first at flat index %lld: %.9g, reference %.9g\n",
           (long long)diff->mismatches, (long long)got->count, (long long)diff->first_index, diff->a_value,
           diff->b_value);
}

/* Complex results are compared part by part, each with its part type's
 * tolerance (a c64 result like f32 values): *got and *want become views
 * of their parts when they are comparable. */
static void comparable_parts(const Tensor **got, const Tensor **want, Tensor *got_parts, Tensor *want_parts)
{
    if ((*got)->dtype != (*want)->dtype || !tensor_same_shape(*got, *want))
        return;
    tensor_complex_parts_view(*got, got_parts);
    tensor_complex_parts_view(*want, want_parts);
    *got = got_parts;
    *want = want_parts;
}

/* One result line; returns whether it matches. */
static bool report_result(const RunArgs *a, const Program *ref, const Program *spmd, int i, const Tensor *got_in,
                          const Tensor *want_in)
{
    Tensor got_parts, want_parts;
    const Tensor *got = got_in, *want = want_in;
    comparable_parts(&got, &want, &got_parts, &want_parts);
    DType compute = dtype_complex_part(compute_dtype(ref->module, ref->entry, i, want_in->dtype));
    Tolerance tol = tolerance_for(want, compute, a);
    TensorDiff diff = {0};
    bool same = tensor_allclose(got, want, tol.rtol, tol.atol, &diff);
    bool comparable = tensor_same_shape(got, want) && got->dtype == want->dtype;
    Errors e = comparable ? errors_between(got, want) : (Errors){INFINITY, INFINITY};
    print_value_header("result", i, ref->entry->body->returns[i]->name, &spmd->entry->result_types[i],
                       result_sharding(spmd->entry, i));
    printf(" max_abs_err=%.3g max_rel_err=%.3g %s", e.max_abs, e.max_rel, same ? "PASS" : "FAIL");
    if (dtype_is_float(want->dtype))
        printf(" (rtol=%.3g atol=%.3g%s%s)", tol.rtol, tol.atol, compute != want->dtype ? ", computed in " : "",
               compute != want->dtype ? dtype_name(compute) : "");
    printf("\n");
    if (!same)
        print_mismatch(got, want, &diff);
    if (a->visualize)
        visualize_sharding(stdout, result_sharding(spmd->entry, i), &spmd->entry->result_types[i]);
    if (a->print) {
        visualize_print_array_numpy(stdout, got_in);
        printf("\n");
    }
    if (a->print && !same) {
        printf("reference:\n");
        visualize_print_array_numpy(stdout, want_in);
        printf("\n");
    }
    return same;
}

static void visualize_arguments(const Program *spmd)
{
    const Block *body = spmd->entry->body;
    for (int i = 0; i < body->num_args; i++) {
        print_value_header("argument", i, body->args[i]->name, &body->args[i]->type, body->args[i]->sharding);
        printf("\n");
        visualize_sharding(stdout, body->args[i]->sharding, &body->args[i]->type);
    }
}

/* ---- outputs and stats ------------------------------------------------------------------------ */

static bool write_output(DiagEngine *diag, OutputSet *set, int i, const Tensor *result)
{
    char name[64];
    snprintf(name, sizeof name, "result_%d.npy", i);
    int fd = cli_output_set_create(set, diag, name);
    if (fd < 0)
        return false;
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *t = NULL;
    /* NumPy has no bfloat16: bf16 results are written as f32. */
    bool ok = tensor_convert(&ctx, result, result->dtype == DT_BF16 ? DT_F32 : result->dtype, &t) == TENSOR_OK &&
              npy_write_fd(&ctx, fd, name, t) == TENSOR_OK;
    ok = close(fd) == 0 && ok;
    tensor_release(t);
    if (!ok)
        diag_error(diag, (Loc){set->dir, 0, 0}, "%s", ctx.status != TENSOR_OK ? ctx.msg : strerror(errno));
    return ok;
}

/* The whole set of results, or none of it (cli_output_set_*). */
static bool write_outputs(DiagEngine *diag, const char *dir, Tensor **outputs, int n)
{
    OutputSet set;
    if (!cli_output_set_open(&set, diag, dir))
        return false;
    for (int i = 0; i < n; i++) {
        if (!write_output(diag, &set, i, outputs[i])) {
            cli_output_set_abandon(&set);
            return false;
        }
    }
    return cli_output_set_commit(&set, diag);
}

enum { LISTED_DEVICES = 16 };

/* Every device's peak on small meshes; the extremes on big ones. */
static void print_device_peaks(const InterpStats *s)
{
    printf("interpreter peak bytes per device (kernel scratch included):");
    if (s->num_devices <= LISTED_DEVICES) {
        for (int64_t d = 0; d < s->num_devices; d++)
            printf(" %lld:%lld", (long long)d, (long long)s->device_peak_bytes[d]);
        printf("\n");
        return;
    }
    int64_t lo = 0, hi = 0;
    for (int64_t d = 1; d < s->num_devices; d++) {
        lo = s->device_peak_bytes[d] < s->device_peak_bytes[lo] ? d : lo;
        hi = s->device_peak_bytes[d] > s->device_peak_bytes[hi] ? d : hi;
    }
    printf(" %lld devices, max %lld (device %lld), min %lld (device %lld)\n", (long long)s->num_devices,
           (long long)s->device_peak_bytes[hi], (long long)hi, (long long)s->device_peak_bytes[lo], (long long)lo);
}

static void print_run_line(const char *label, const RunResult *r)
{
    const InterpStats *s = &r->interp.stats;
    printf("%s run: %.3f ms, %lld shard_map runs, host peak %lld bytes\n", label, 1e3 * r->seconds,
           (long long)s->shard_map_runs, (long long)s->host_peak_bytes);
}

/* Whether the run moved what the count says, kind by kind. */
static bool same_traffic(const CostTally *counted, const CostTally *measured)
{
    for (int k = 0; k < COST_KINDS; k++)
        if (counted->calls[k] != measured->calls[k] ||
            cost_tally_per_device(counted, k, false) != cost_tally_per_device(measured, k, false) ||
            cost_tally_per_device(counted, k, true) != cost_tally_per_device(measured, k, true))
            return false;
    return true;
}

/* The program's cost as `shardc --stats` counts it (the same text), then
 * what the run measured by the same definitions (docs/partitioning.md,
 * "Cost metrics"), and whether the two agree. */
static void print_run_stats(Program *spmd, const RunResult *ref_run, const RunResult *spmd_run)
{
    const InterpStats *s = &spmd_run->interp.stats;
    printf("stats:\n");
    print_run_line("reference", ref_run);
    print_run_line("spmd", spmd_run);
    printf("counted (as `shardc --stats` counts the program):\n");
    stats_count(&spmd->stats, spmd->module, spmd->entry->name);
    stats_print_table(stdout, &spmd->stats);
    printf("measured (the spmd run):\n");
    stats_print_tally(stdout, &s->traffic);
    print_device_peaks(s);
    const ProgramCost *c = &spmd->stats.cost;
    bool same = same_traffic(&c->tally, &s->traffic);
    printf("measured traffic %s the count%s\n", same ? "equals" : "differs from",
           same || !(c->unknown_trips || c->in_branches) ? "" : " (loops of unknown trip count or case branches)");
    stats_free(&spmd->stats);
}

/* ---- the command ---------------------------------------------------------------------------------- */

typedef struct RunSession {
    RunArgs args;
    DiagEngine diag;
    Program ref, spmd;
    Tensor **inputs;
    RunResult ref_run, spmd_run;
    Config *config;
    RunDist dist;           /* --transport=mpi: this process's place in the job */
    InterpTrace ref_trace, spmd_trace; /* --trace */
} RunSession;

/* What decides this process's results: the partitioned program as printed
 * (meshes and argument shapes included), the flags that change them, and
 * the reduction mode of the MPI transport. */
static uint64_t session_fingerprint(const RunSession *s)
{
    const RunArgs *a = &s->args;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out) {
        print_module(out, s->spmd.module);
        fprintf(out, "\nentry %s seed %llu max_steps %lld inputs %s reduce %s\n", s->spmd.entry->name,
                (unsigned long long)a->seed, (long long)a->max_steps, a->inputs ? a->inputs : "-",
                getenv("SHARDC_MPI_REDUCE") ? getenv("SHARDC_MPI_REDUCE") : "-");
        fclose(out);
    }
    uint64_t h = run_dist_hash(RUN_DIST_HASH_SEED, text ? text : "", text ? len : 0);
    free(text);
    return h;
}

static bool session_load(RunSession *s)
{
    const RunArgs *a = &s->args;
    const char *ref_path = a->reference ? a->reference : a->file;
    const Program *same_file = strcmp(ref_path, a->file) == 0 ? &s->ref : NULL;
    const char *ref_func = a->reference_func ? a->reference_func : a->common.func;
    if (!load_program(&s->diag, ref_path, EMIT_IR, a, s->config, NULL, ref_func, &s->ref) ||
        !load_program(&s->diag, a->file, a->reference ? EMIT_IR : EMIT_PARTITIONED, a, s->config, same_file,
                      a->common.func, &s->spmd) ||
        !same_signature(&s->diag, s->ref.entry, s->spmd.entry) ||
        !run_dist_check_meshes(&s->dist, &s->diag, s->spmd.module, s->spmd.entry) ||
        (s->dist.world && !run_dist_check_fingerprint(&s->dist, &s->diag, session_fingerprint(s), s->spmd.entry->loc)))
        return false;
    s->inputs = calloc((size_t)s->ref.entry->body->num_args + 1, sizeof *s->inputs);
    if (!s->inputs)
        arena_out_of_memory();
    if (a->inputs)
        return read_inputs(&s->diag, &s->dist, a->inputs, s->ref.entry, s->spmd.entry, s->inputs);
    return !run_dist_is_root(&s->dist) || random_inputs(&s->diag, a->seed, s->ref.entry, s->inputs);
}

static bool session_report(RunSession *s)
{
    const RunArgs *a = &s->args;
    int n = s->ref.entry->num_results, failures = 0;
    /* Written first: no PASS is printed after an I/O error. */
    if (a->outputs_dir && !write_outputs(&s->diag, a->outputs_dir, s->spmd_run.outputs, n))
        return false;
    if (a->visualize)
        visualize_arguments(&s->spmd);
    for (int i = 0; i < n; i++)
        failures += !report_result(a, &s->ref, &s->spmd, i, s->spmd_run.outputs[i], s->ref_run.outputs[i]);
    if (a->trace && !cli_trace_write(&s->diag, a->trace, &s->ref_trace, &s->spmd_trace))
        return false;
    if (failures)
        printf("FAIL: %d of %d results differ from the reference\n", failures, n);
    else
        printf("PASS: %d %s the reference\n", n, n == 1 ? "result matches" : "results match");
    if (a->stats)
        print_run_stats(&s->spmd, &s->ref_run, &s->spmd_run);
    return failures == 0;
}

static void session_free(RunSession *s)
{
    int results = s->ref.entry ? s->ref.entry->num_results : 0, args = s->ref.entry ? s->ref.entry->body->num_args : 0;
    run_result_free(&s->ref_run, results);
    run_result_free(&s->spmd_run, results);
    if (s->args.trace) {
        interp_trace_free(&s->ref_trace);
        interp_trace_free(&s->spmd_trace);
    }
    for (int i = 0; s->inputs && i < args; i++)
        tensor_release(s->inputs[i]);
    free(s->inputs);
    module_free(s->ref.module);
    module_free(s->spmd.module);
    diag_free(&s->diag);
    config_free(s->config); /* after diag: diagnostics quote the YAML */
    free(s->ref.text);
    free(s->spmd.text);
}

int cmd_run(int argc, char **argv)
{
    RunSession s;
    memset(&s, 0, sizeof s);
    int status = parse_run_args(argc, argv, &s.args);
    if (status >= 0)
        return status;
    if ((status = run_dist_open(&s.dist, s.args.transport, &argc, &argv)) >= 0)
        return status;
    diag_init(&s.diag, s.dist.diag_stream);
    s.diag.warnings_as = s.args.common.warnings;
    if ((status = cli_load_config(&cmd_run_command, &s.args.common.config, &s.diag, &s.config)) >= 0) {
        session_free(&s);
        return s.dist.world ? run_dist_fail(&s.dist) : status;
    }
    interp_ctx_init(&s.ref_run.interp, &s.diag);
    interp_ctx_init(&s.spmd_run.interp, &s.diag);
    s.spmd_run.interp.world = s.dist.world;
    if (s.args.max_steps)
        s.ref_run.interp.max_steps = s.spmd_run.interp.max_steps = s.args.max_steps;
    s.ref_run.interp.threads = s.spmd_run.interp.threads = s.args.threads;
    if (s.args.trace) {
        interp_trace_init(&s.ref_trace);
        interp_trace_init(&s.spmd_trace);
        s.ref_run.interp.trace = &s.ref_trace;
        s.spmd_run.interp.trace = &s.spmd_trace;
    }
    if (s.args.engine_threads)
        s.ref_run.interp.engine = s.spmd_run.interp.engine = INTERP_ENGINE_THREADS;
    bool root = run_dist_is_root(&s.dist);
    bool ran = session_load(&s) && (!root || run_program(&s.ref, s.inputs, &s.ref_run)) &&
               run_program(&s.spmd, s.inputs, &s.spmd_run) &&
               (!s.args.stats || run_dist_merge_stats(&s.dist, &s.spmd_run.interp.stats));
    bool ok = ran && (!root || session_report(&s));
    session_free(&s);
    return ran ? run_dist_close(&s.dist, ok) : run_dist_fail(&s.dist);
}
