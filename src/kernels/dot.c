/* einsum: a spec parser, a BLAS path for batched matmuls and a generic loop
 * nest for everything else.
 *
 * BLAS path (f32/f64, and bf16 widened to f32): with two operands, labels
 * fall into batch (both inputs and the output), contracting (both inputs
 * only), lhs-free and rhs-free. Labels private to one operand are summed out
 * first. Each operand is used in place when its layout already is
 * [batch, M, K] or the transposed [batch, K, M] (CblasTrans), and
 * transpose-copied otherwise; sgemm/dgemm runs once per batch element and
 * the [batch, M, N] result is permuted to the output order if needed.
 *
 * Generic path: one strided walk over every label (output labels outer,
 * summed labels inner), accumulating into the zeroed output in the element
 * type: f32 in f32, ints wrapping through unsigned, bool as OR of AND. A label
 * repeated within an operand gets the sum of its dims' strides: a diagonal. */
#include "shardc/kernels.h"
#include "kernels/kern_libs.h"
#include <stdlib.h>

#define UNUSED_TYPEDEF __attribute__((unused))

enum { EIN_LABELS = 26, EIN_SPEC_MAX = 128 };

typedef struct LabelSeq {
    int n;
    int8_t l[SHARDC_MAX_RANK];
} LabelSeq;

typedef struct EinsumSpec {
    int nin;
    LabelSeq in[2], out;
    int64_t size[EIN_LABELS]; /* -1: label unused */
} EinsumSpec;

/* ---- parsing ------------------------------------------------------------------ */

static TensorStatus parse_term(TensorCtx *ctx, const char *spec, const char **p, LabelSeq *seq)
{
    seq->n = 0;
    for (; **p >= 'a' && **p <= 'z'; (*p)++) {
        if (seq->n == SHARDC_MAX_RANK)
            return tensor_fail(ctx, TENSOR_ERR_ARG, "einsum \"%s\": a term has more than %d labels",
                               spec, SHARDC_MAX_RANK);
        seq->l[seq->n++] = (int8_t)(**p - 'a');
    }
    return TENSOR_OK;
}

/* NumPy's implicit output: labels used exactly once, alphabetically. */
static void implicit_output(EinsumSpec *es)
{
    int uses[EIN_LABELS] = {0};
    for (int i = 0; i < es->nin; i++)
        for (int d = 0; d < es->in[i].n; d++)
            uses[es->in[i].l[d]]++;
    es->out.n = 0;
    for (int l = 0; l < EIN_LABELS; l++)
        if (uses[l] == 1 && es->out.n < SHARDC_MAX_RANK)
            es->out.l[es->out.n++] = (int8_t)l;
}

/* The spec without blanks, or false if it does not fit. */
static bool compact_spec(const char *spec, char *buf)
{
    size_t n = 0;
    for (const char *p = spec; *p; p++) {
        if (*p == ' ' || *p == '\t')
            continue;
        if (n + 1 >= EIN_SPEC_MAX)
            return false;
        buf[n++] = *p;
    }
    buf[n] = '\0';
    return true;
}

static TensorStatus parse_spec(TensorCtx *ctx, const char *spec, EinsumSpec *es)
{
    char buf[EIN_SPEC_MAX];
    if (!compact_spec(spec, buf))
        return tensor_fail(ctx, TENSOR_ERR_ARG, "einsum spec is too long");
    const char *p = buf;
    TensorStatus st = TENSOR_OK;
    for (es->nin = 0; st == TENSOR_OK; p++) {
        if (es->nin == 2)
            return tensor_fail(ctx, TENSOR_ERR_ARG, "einsum \"%s\": more than 2 operands", spec);
        st = parse_term(ctx, spec, &p, &es->in[es->nin++]);
        if (*p != ',')
            break;
    }
    if (st == TENSOR_OK && p[0] == '-' && p[1] == '>') {
        p += 2;
        st = parse_term(ctx, spec, &p, &es->out);
    } else if (st == TENSOR_OK) {
        implicit_output(es);
    }
    if (st == TENSOR_OK && *p)
        return tensor_fail(ctx, TENSOR_ERR_ARG,
                           "einsum \"%s\": unexpected '%c' (labels are lower-case letters)", spec, *p);
    return st;
}

/* ---- label sizes -------------------------------------------------------------- */

static TensorStatus bind_operand(TensorCtx *ctx, const char *spec, EinsumSpec *es, int i,
                                 const Tensor *x)
{
    if (x->rank != es->in[i].n)
        return tensor_fail(ctx, TENSOR_ERR_SHAPE, "einsum \"%s\": operand %d has rank %d, its term %d labels",
                           spec, i, x->rank, es->in[i].n);
    for (int d = 0; d < x->rank; d++) {
        int8_t l = es->in[i].l[d];
        if (es->size[l] >= 0 && es->size[l] != x->dims[d])
            return tensor_fail(ctx, TENSOR_ERR_SHAPE, "einsum \"%s\": label '%c' has sizes %lld and %lld",
                               spec, 'a' + l, (long long)es->size[l], (long long)x->dims[d]);
        es->size[l] = x->dims[d];
    }
    return TENSOR_OK;
}

static TensorStatus bind_sizes(TensorCtx *ctx, const char *spec, EinsumSpec *es, int n,
                               const Tensor *const *ops)
{
    if (n != es->nin)
        return tensor_fail(ctx, TENSOR_ERR_ARG, "einsum \"%s\": spec has %d operands, got %d", spec,
                           es->nin, n);
    for (int l = 0; l < EIN_LABELS; l++)
        es->size[l] = -1;
    for (int i = 0; i < n; i++) {
        TensorStatus st = bind_operand(ctx, spec, es, i, ops[i]);
        if (st != TENSOR_OK)
            return st;
    }
    bool seen[EIN_LABELS] = {false};
    for (int d = 0; d < es->out.n; d++) {
        int8_t l = es->out.l[d];
        if (es->size[l] < 0 || seen[l])
            return tensor_fail(ctx, TENSOR_ERR_ARG, "einsum \"%s\": output label '%c' is %s", spec,
                               'a' + l, seen[l] ? "repeated" : "not in any operand");
        seen[l] = true;
    }
    return TENSOR_OK;
}

static bool seq_has(const LabelSeq *s, int8_t l)
{
    for (int i = 0; i < s->n; i++)
        if (s->l[i] == l)
            return true;
    return false;
}

static int seq_index(const LabelSeq *s, int8_t l)
{
    for (int i = 0; i < s->n; i++)
        if (s->l[i] == l)
            return i;
    return -1;
}

static bool seq_has_repeats(const LabelSeq *s)
{
    for (int i = 0; i < s->n; i++)
        if (seq_index(s, s->l[i]) != i)
            return true;
    return false;
}

static bool seq_equal(const LabelSeq *a, const LabelSeq *b)
{
    return a->n == b->n && memcmp(a->l, b->l, (size_t)a->n) == 0;
}

static LabelSeq seq_cat3(const LabelSeq *a, const LabelSeq *b, const LabelSeq *c)
{
    LabelSeq s = {0, {0}};
    const LabelSeq *parts[3] = {a, b, c};
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < parts[p]->n; i++)
            s.l[s.n++] = parts[p]->l[i];
    return s;
}

static void seq_dims(const EinsumSpec *es, const LabelSeq *s, int64_t *dims)
{
    for (int i = 0; i < s->n; i++)
        dims[i] = es->size[s->l[i]];
}

/* ---- generic path ---------------------------------------------------------------- */

#define F_PROD(x, y) ((x) * (y))
#define F_SUM(x, y) ((x) + (y))
#define I_PROD(x, y) ((E)((UE)(x) * (UE)(y)))
#define I_SUM(x, y) ((E)((UE)(x) + (UE)(y)))
#define B_PROD(x, y) ((E)((x) & (y)))
#define B_SUM(x, y) ((E)((x) | (y)))

typedef void (*DotRow)(char *y, const char *a, const char *b, const int64_t *st, int64_t n);

/* y[i] += a[i] * b[i] over a row, or with b == NULL, y[i] += a[i]. A zero
 * output stride (summed label innermost) accumulates in a register. */
#define DOT_ROW(DT, T, U, PROD, SUM)                                                  \
    static void dot_##DT(char *yp, const char *ap, const char *bp, const int64_t *st,  \
                         int64_t n)                                                    \
    {                                                                                  \
        typedef T E;                                                                   \
        typedef U UE UNUSED_TYPEDEF;                                                   \
        E *y = (E *)(void *)yp;                                                        \
        const E *a = (const E *)(const void *)ap, *b = (const E *)(const void *)bp;    \
        E acc = *y;                                                                    \
        for (int64_t i = 0; i < n; i++) {                                              \
            E term = b ? PROD(a[i * st[1]], b[i * st[2]]) : a[i * st[1]];              \
            if (st[0] == 0)                                                            \
                acc = SUM(acc, term);                                                  \
            else                                                                       \
                y[i * st[0]] = SUM(y[i * st[0]], term);                                \
        }                                                                              \
        if (st[0] == 0)                                                                \
            *y = acc;                                                                  \
    }
DOT_ROW(F32, float, float, F_PROD, F_SUM)
DOT_ROW(F64, double, double, F_PROD, F_SUM)
DOT_ROW(I8, int8_t, uint8_t, I_PROD, I_SUM)
DOT_ROW(I32, int32_t, uint32_t, I_PROD, I_SUM)
DOT_ROW(I64, int64_t, uint64_t, I_PROD, I_SUM)
DOT_ROW(U32, uint32_t, uint32_t, I_PROD, I_SUM)
DOT_ROW(U64, uint64_t, uint64_t, I_PROD, I_SUM)
DOT_ROW(BOOL, uint8_t, uint8_t, B_PROD, B_SUM)

/* bf16 and f16 are computed in f32 (einsum_half). */
static const DotRow dot_rows[DT_COUNT] = {
    [DT_F32] = dot_F32, [DT_F64] = dot_F64, [DT_I8] = dot_I8, [DT_I32] = dot_I32,
    [DT_I64] = dot_I64, [DT_U32] = dot_U32, [DT_U64] = dot_U64, [DT_BOOL] = dot_BOOL,
};

typedef struct DotJob {
    DotRow row;
    char *y;
    const char *a, *b;
    size_t size;
} DotJob;

static void dot_job_row(void *user, const int64_t *off, const int64_t *st, int64_t n)
{
    const DotJob *job = user;
    const char *b = job->b ? job->b + (size_t)off[2] * job->size : NULL;
    job->row(job->y + (size_t)off[0] * job->size, job->a + (size_t)off[1] * job->size, b, st, n);
}

/* Per-label strides of t: a repeated label sums its dims' strides. */
static void label_strides(const Tensor *t, const LabelSeq *s, int64_t *per_label)
{
    int64_t st[SHARDC_MAX_RANK];
    tensor_shape_strides(t->rank, t->dims, st);
    for (int l = 0; l < EIN_LABELS; l++)
        per_label[l] = 0;
    for (int d = 0; d < s->n; d++)
        per_label[s->l[d]] += st[d];
}

static TensorStatus einsum_generic(TensorCtx *ctx, const EinsumSpec *es,
                                   const Tensor *const *ops, Tensor **out)
{
    int64_t dims[NDITER_MAX_DIMS], strides[3][NDITER_MAX_DIMS], per_label[3][EIN_LABELS];
    seq_dims(es, &es->out, dims);
    TensorStatus st = tensor_new(ctx, ops[0]->dtype, es->out.n, dims, out);
    if (st != TENSOR_OK)
        return st;
    label_strides(*out, &es->out, per_label[0]);
    for (int i = 0; i < es->nin; i++)
        label_strides(ops[i], &es->in[i], per_label[i + 1]);
    int8_t order[EIN_LABELS];
    int n = 0;
    for (int d = 0; d < es->out.n; d++)
        order[n++] = es->out.l[d];
    for (int8_t l = 0; l < EIN_LABELS; l++)
        if (es->size[l] >= 0 && !seq_has(&es->out, l))
            order[n++] = l;
    for (int j = 0; j < n; j++) {
        dims[j] = es->size[order[j]];
        for (int op = 0; op <= es->nin; op++)
            strides[op][j] = per_label[op][order[j]];
    }
    NdIter it;
    nditer_init(&it, n, dims, es->nin + 1, strides);
    DotJob job = {dot_rows[ops[0]->dtype], (*out)->data, ops[0]->data,
                  es->nin == 2 ? ops[1]->data : NULL, dtype_size(ops[0]->dtype)};
    nditer_run(&it, dot_job_row, &job);
    return TENSOR_OK;
}

/* ---- BLAS path ------------------------------------------------------------------- */

typedef struct MatmulPlan {
    LabelSeq batch, m, n, k;
    int64_t B, M, N, K;
} MatmulPlan;

static int64_t seq_product(const EinsumSpec *es, const LabelSeq *s)
{
    int64_t p = 1;
    for (int i = 0; i < s->n; i++)
        p *= es->size[s->l[i]];
    return p;
}

/* Classify labels; false if this is not a plain batched matmul. */
static bool plan_matmul(const EinsumSpec *es, MatmulPlan *p)
{
    const LabelSeq *a = &es->in[0], *b = &es->in[1], *out = &es->out;
    *p = (MatmulPlan){0};
    for (int i = 0; i < out->n; i++) {
        int8_t l = out->l[i];
        LabelSeq *group = seq_has(a, l) ? (seq_has(b, l) ? &p->batch : &p->m) : &p->n;
        group->l[group->n++] = l;
    }
    for (int i = 0; i < a->n; i++)
        if (seq_has(b, a->l[i]) && !seq_has(out, a->l[i]))
            p->k.l[p->k.n++] = a->l[i];
    if (p->batch.n + p->m.n + p->k.n != a->n || p->batch.n + p->n.n + p->k.n != b->n)
        return false; /* a label private to one operand */
    p->B = seq_product(es, &p->batch);
    p->M = seq_product(es, &p->m);
    p->N = seq_product(es, &p->n);
    p->K = seq_product(es, &p->k);
    return p->M <= INT32_MAX && p->N <= INT32_MAX && p->K <= INT32_MAX;
}

/* A dense copy of a strided view for this kernel alone (x itself if it is
 * dense). It is charged to nobody: the view already counts its bytes, and
 * a device's peak must not depend on whether a kernel read it in place. */
static TensorStatus scratch_dense(TensorCtx *ctx, const Tensor *x, Tensor **out)
{
    TensorCtx scratch;
    tensor_ctx_init(&scratch, NULL);
    TensorStatus st = tensor_contiguous(&scratch, (Tensor *)x, out);
    if (st != TENSOR_OK)
        return tensor_fail(ctx, st, "%s", scratch.msg);
    return st;
}

/* A strided view (tensor.h) BLAS reads in place: a matrix whose rows are
 * apart by its leading dimension -- no batch, one label for its rows and
 * one for its columns (two labels of one group would flatten its dims). */
static bool blas_view(const Tensor *x, const LabelSeq *g0, const LabelSeq *g1, const LabelSeq *g2)
{
    return x->rank == 2 && g0->n == 0 && g1->n == 1 && g2->n == 1 && x->strides[1] == 1 &&
           x->strides[0] >= x->dims[1] && x->strides[0] <= INT32_MAX;
}

/* x laid out as g0+g1+g2 (trans = false) or g0+g2+g1 (trans = true): used in
 * place if it already is, else transposed to g0+g1+g2. A strided view is
 * read in place through its leading dimension (*ld) when BLAS can, else
 * made dense first; *ld is 0 for a dense layout. */
static TensorStatus arrange(TensorCtx *ctx, const Tensor *x, const LabelSeq *labels,
                            const LabelSeq *g0, const LabelSeq *g1, const LabelSeq *g2,
                            Tensor **out, bool *trans, int64_t *ld)
{
    LabelSeq plain = seq_cat3(g0, g1, g2), swapped = seq_cat3(g0, g2, g1);
    *trans = !seq_equal(labels, &plain) && seq_equal(labels, &swapped);
    bool in_place = seq_equal(labels, &plain) || *trans;
    *ld = x->strided && in_place && blas_view(x, g0, g1, g2) ? x->strides[0] : 0;
    if (x->strided && !*ld) {
        Tensor *dense = NULL;
        TensorStatus st = scratch_dense(ctx, x, &dense);
        if (st == TENSOR_OK)
            st = arrange(ctx, dense, labels, g0, g1, g2, out, trans, ld);
        tensor_release(dense);
        return st;
    }
    if (in_place) {
        *out = tensor_retain((Tensor *)x);
        return TENSOR_OK;
    }
    int64_t perm[SHARDC_MAX_RANK];
    for (int i = 0; i < plain.n; i++)
        perm[i] = seq_index(labels, plain.l[i]);
    return kern_transpose(ctx, x, perm, out);
}

/* lda/ldb 0: the dense leading dimension. */
static void gemm_batches(const KernLibFns *blas, DType dtype, const MatmulPlan *p, bool ta, bool tb, const void *a, int64_t lda_view,
                         const void *b, int64_t ldb_view, void *c)
{
    int M = (int)p->M, N = (int)p->N, K = (int)p->K;
    int lda = lda_view ? (int)lda_view : ta ? M : K, ldb = ldb_view ? (int)ldb_view : tb ? K : N, ldc = N;
    enum CBLAS_TRANSPOSE opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
    if (M == 0 || N == 0 || K == 0)
        return; /* the zeroed output is already the answer */
    for (int64_t i = 0; i < p->B; i++) {
        if (dtype == DT_F32)
            blas->cblas_sgemm(CblasRowMajor, opa, opb, M, N, K, 1.0f, (const float *)a + i * M * K, lda,
                              (const float *)b + i * K * N, ldb, 0.0f, (float *)c + i * M * N, ldc);
        else
            blas->cblas_dgemm(CblasRowMajor, opa, opb, M, N, K, 1.0, (const double *)a + i * M * K, lda,
                              (const double *)b + i * K * N, ldb, 0.0, (double *)c + i * M * N, ldc);
    }
}

/* Permute the [batch, m, n] product to the output label order. */
static TensorStatus finish_output(TensorCtx *ctx, const EinsumSpec *es, const LabelSeq *order,
                                  Tensor *c, Tensor **out)
{
    if (seq_equal(order, &es->out)) {
        *out = c;
        return TENSOR_OK;
    }
    int64_t perm[SHARDC_MAX_RANK];
    for (int i = 0; i < es->out.n; i++)
        perm[i] = seq_index(order, es->out.l[i]);
    TensorStatus st = kern_transpose(ctx, c, perm, out);
    tensor_release(c);
    return st;
}

static TensorStatus einsum_blas(TensorCtx *ctx, const EinsumSpec *es, const MatmulPlan *p,
                                const Tensor *const *ops, Tensor **out)
{
    const KernLibFns *blas = kern_libs_fns(ctx);
    *out = NULL;
    if (!blas)
        return ctx->status;
    Tensor *a = NULL, *b = NULL, *c = NULL;
    bool ta, tb;
    int64_t lda = 0, ldb = 0;
    LabelSeq order = seq_cat3(&p->batch, &p->m, &p->n);
    int64_t dims[SHARDC_MAX_RANK];
    seq_dims(es, &order, dims);
    TensorStatus st = arrange(ctx, ops[0], &es->in[0], &p->batch, &p->m, &p->k, &a, &ta, &lda);
    if (st == TENSOR_OK)
        st = arrange(ctx, ops[1], &es->in[1], &p->batch, &p->k, &p->n, &b, &tb, &ldb);
    if (st == TENSOR_OK)
        st = tensor_new(ctx, ops[0]->dtype, order.n, dims, &c);
    if (st == TENSOR_OK) {
        gemm_batches(blas, ops[0]->dtype, p, ta, tb, a->data, lda, b->data, ldb, c->data);
        st = finish_output(ctx, es, &order, c, out);
    }
    tensor_release(a);
    tensor_release(b);
    return st;
}

/* Sum out the labels of operand i that occur nowhere else, so the rest is a
 * plain batched matmul. *x is a new reference either way. */
static TensorStatus sum_private_labels(TensorCtx *ctx, EinsumSpec *es, int i, const Tensor *in,
                                       Tensor **x)
{
    const LabelSeq *other = &es->in[1 - i];
    LabelSeq kept = {0, {0}};
    int64_t axes[SHARDC_MAX_RANK];
    int naxes = 0;
    for (int d = 0; d < es->in[i].n; d++) {
        int8_t l = es->in[i].l[d];
        if (seq_has(other, l) || seq_has(&es->out, l))
            kept.l[kept.n++] = l;
        else
            axes[naxes++] = d;
    }
    es->in[i] = kept;
    if (naxes == 0) {
        *x = tensor_retain((Tensor *)in);
        return TENSOR_OK;
    }
    Tensor *dense = NULL;
    TensorStatus st = scratch_dense(ctx, in, &dense);
    if (st == TENSOR_OK)
        st = kern_reduce(ctx, RED_SUM, dense, naxes, axes, x);
    tensor_release(dense);
    return st;
}

/* einsum_generic on dense copies of any strided views among ops. */
static TensorStatus einsum_dense(TensorCtx *ctx, const EinsumSpec *es, int n, const Tensor *const *ops,
                                 Tensor **out)
{
    Tensor *dense[2] = {NULL, NULL};
    TensorStatus st = TENSOR_OK;
    for (int i = 0; i < n && st == TENSOR_OK; i++)
        st = scratch_dense(ctx, ops[i], &dense[i]);
    if (st == TENSOR_OK)
        st = einsum_generic(ctx, es, (const Tensor *const *)dense, out);
    tensor_release(dense[0]);
    tensor_release(dense[1]);
    return st;
}

static TensorStatus einsum_matmul(TensorCtx *ctx, EinsumSpec *es, const Tensor *const *ops,
                                  Tensor **out)
{
    Tensor *x[2] = {NULL, NULL};
    MatmulPlan plan;
    TensorStatus st = sum_private_labels(ctx, es, 0, ops[0], &x[0]);
    if (st == TENSOR_OK)
        st = sum_private_labels(ctx, es, 1, ops[1], &x[1]);
    if (st == TENSOR_OK) {
        const Tensor *const reduced[2] = {x[0], x[1]};
        st = plan_matmul(es, &plan) ? einsum_blas(ctx, es, &plan, reduced, out)
                                    : einsum_dense(ctx, es, 2, reduced, out);
    }
    tensor_release(x[0]);
    tensor_release(x[1]);
    return st;
}

/* ---- entry points --------------------------------------------------------------- */

static TensorStatus einsum_half(TensorCtx *ctx, const char *spec, int n,
                                const Tensor *const *ops, EinsumPath path, Tensor **out)
{
    Tensor *wide[2] = {NULL, NULL}, *result = NULL;
    TensorStatus st = TENSOR_OK;
    for (int i = 0; i < n && st == TENSOR_OK; i++) {
        Tensor *dense = NULL;
        st = scratch_dense(ctx, ops[i], &dense);
        if (st == TENSOR_OK)
            st = tensor_convert(ctx, dense, DT_F32, &wide[i]);
        tensor_release(dense);
    }
    if (st == TENSOR_OK)
        st = kern_einsum_path(ctx, spec, n, (const Tensor *const *)wide, path, &result);
    if (st == TENSOR_OK)
        st = tensor_convert(ctx, result, ops[0]->dtype, out);
    tensor_release(wide[0]);
    tensor_release(wide[1]);
    tensor_release(result);
    return st;
}

static bool blas_eligible(const EinsumSpec *es, DType dtype)
{
    return es->nin == 2 && (dtype == DT_F32 || dtype == DT_F64) &&
           !seq_has_repeats(&es->in[0]) && !seq_has_repeats(&es->in[1]);
}

TensorStatus kern_einsum_path(TensorCtx *ctx, const char *spec, int n,
                              const Tensor *const *operands, EinsumPath path, Tensor **out)
{
    *out = NULL;
    EinsumSpec es;
    TensorStatus st = parse_spec(ctx, spec, &es);
    if (st == TENSOR_OK)
        st = bind_sizes(ctx, spec, &es, n, operands);
    if (st == TENSOR_OK && n == 2 && operands[0]->dtype != operands[1]->dtype)
        st = tensor_fail(ctx, TENSOR_ERR_DTYPE, "einsum \"%s\": operand dtypes differ (%s vs %s)",
                         spec, dtype_name(operands[0]->dtype), dtype_name(operands[1]->dtype));
    if (st != TENSOR_OK)
        return st;
    if (tensor_is_half(operands[0]->dtype))
        return einsum_half(ctx, spec, n, operands, path, out);
    if (path == EINSUM_AUTO && blas_eligible(&es, operands[0]->dtype))
        return einsum_matmul(ctx, &es, operands, out);
    return einsum_dense(ctx, &es, n, operands, out);
}

TensorStatus kern_einsum(TensorCtx *ctx, const char *spec, int n, const Tensor *const *operands,
                         Tensor **out)
{
    return kern_einsum_path(ctx, spec, n, operands, EINSUM_AUTO, out);
}
