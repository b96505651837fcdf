/* reduce with a body (StableHLO's general reduce; JAX's argmax is one):
 * for each result element the body runs on scalars once per element
 * reduced, in row-major order of the reduced dims, from the inits: acc =
 * body(acc..., x...). Slow (a region run per element): the plain
 * reductions have kernels of their own (reduce_sum, ...). */
#include <stdlib.h>
#include <string.h>
#include "interp/interp_internal.h"
#include "shardc/gather.h"

typedef struct ReduceShape {
    int rank, num_kept, num_reduced;
    int kept[SHARDC_MAX_RANK], reduced[SHARDC_MAX_RANK];
    int64_t dims[SHARDC_MAX_RANK], strides[SHARDC_MAX_RANK];
    int64_t reduced_count;
} ReduceShape;

static void reduce_shape(ReduceShape *s, const Op *op, const Tensor *in)
{
    int64_t dims[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, ATTR_KEY_DIMS, dims, SHARDC_MAX_RANK);
    bool is_reduced[SHARDC_MAX_RANK] = {false};
    for (int i = 0; i < n; i++)
        is_reduced[dims[i]] = true;
    *s = (ReduceShape){.rank = in->rank, .reduced_count = 1};
    tensor_shape_strides(in->rank, in->dims, s->strides);
    for (int d = 0; d < in->rank; d++) {
        s->dims[d] = in->dims[d];
        if (is_reduced[d]) {
            s->reduced[s->num_reduced++] = d;
            s->reduced_count *= in->dims[d];
        } else {
            s->kept[s->num_kept++] = d;
        }
    }
}

/* Flat offset in the input of kept-dims element `out` and reduced-dims
 * element `r`, both row-major over their own dims. */
static int64_t input_offset(const ReduceShape *s, int64_t out, int64_t r)
{
    int64_t offset = 0;
    for (int k = s->num_kept - 1; k >= 0; k--) {
        int d = s->kept[k];
        offset += (out % s->dims[d]) * s->strides[d];
        out /= s->dims[d];
    }
    for (int k = s->num_reduced - 1; k >= 0; k--) {
        int d = s->reduced[k];
        offset += (r % s->dims[d]) * s->strides[d];
        r /= s->dims[d];
    }
    return offset;
}

/* A new scalar holding element i of t (sort_region.c's too). */
bool exec_scalar_of(ExecCtx *x, const Op *op, const Tensor *t, int64_t i, Tensor **out)
{
    if (!exec_kernel(x, op, tensor_new_uninit(&x->tensors, t->dtype, 0, NULL, out)))
        return false;
    size_t size = dtype_size(t->dtype);
    memcpy((*out)->data, (const char *)t->data + (size_t)i * size, size);
    return true;
}

static void release_n(Tensor **t, int n)
{
    for (int i = 0; i < n; i++) {
        tensor_release(t[i]);
        t[i] = NULL;
    }
}

/* One result element: the accumulators (args[0..n-1], the inits' copies)
 * folded with every reduced element through the body. */
static bool fold_element(ExecCtx *x, const Op *op, const ReduceShape *s, Tensor *const *in, int64_t o,
                         Tensor **args)
{
    int n = op->num_results;
    for (int i = 0; i < n; i++)
        if (!exec_scalar_of(x, op, in[n + i], 0, &args[i]))
            return false;
    for (int64_t r = 0; r < s->reduced_count; r++) {
        int64_t at = input_offset(s, o, r);
        for (int i = 0; i < n; i++)
            if (!exec_scalar_of(x, op, in[i], at, &args[n + i]))
                return false;
        Tensor *next[n];
        memset(next, 0, sizeof next);
        bool ok = exec_region(x, op->regions[0], args, next);
        release_n(args, 2 * n);
        memcpy(args, next, sizeof next);
        if (!ok)
            return false;
    }
    return true;
}

bool exec_reduce_region(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int n = op->num_results;
    ReduceShape s;
    reduce_shape(&s, op, in[0]);
    for (int j = 0; j < n; j++)
        if (!exec_kernel(x, op, tensor_new_for_type(&x->tensors, &op->results[j]->type, &out[j])))
            return false;
    Tensor **args = calloc((size_t)(2 * n), sizeof *args);
    if (!args)
        return exec_fail(x, op, "out of memory");
    bool ok = true;
    for (int64_t o = 0; ok && o < out[0]->count; o++) {
        ok = fold_element(x, op, &s, in, o, args);
        for (int j = 0; ok && j < n; j++) {
            size_t size = dtype_size(out[j]->dtype);
            memcpy((char *)out[j]->data + (size_t)o * size, args[j]->data, size);
        }
        release_n(args, 2 * n);
    }
    free(args);
    return ok;
}

/* ---- scatter with an update computation region ----------------------------- */

typedef struct ScatterRegion {
    ExecCtx *x;
    const Op *op;
    Tensor *const *upd; /* the N updates */
    Tensor **out;       /* the N results, copies of the inputs */
    Tensor **args;      /* 2N scalars, released after each element */
} ScatterRegion;

/* out_i[o] = region(out_0[o].., upd_0[u]..)_i, for every input i. */
static bool scatter_region_visit(void *user, int64_t o, int64_t u)
{
    ScatterRegion *s = user;
    int n = s->op->num_results;
    Tensor *next[n];
    memset(next, 0, sizeof next);
    bool ok = true;
    for (int i = 0; ok && i < n; i++)
        ok = exec_scalar_of(s->x, s->op, s->out[i], o, &s->args[i]) &&
             exec_scalar_of(s->x, s->op, s->upd[i], u, &s->args[n + i]);
    ok = ok && exec_region(s->x, s->op->regions[0], s->args, next);
    for (int i = 0; ok && i < n; i++) {
        size_t size = dtype_size(s->out[i]->dtype);
        memcpy((char *)s->out[i]->data + (size_t)o * size, next[i]->data, size);
    }
    release_n(s->args, 2 * n);
    release_n(next, n);
    return ok;
}

/* A scatter whose region is no known combiner: the region runs once per
 * update element, in the updates' order (slow, as reduce's body). */
bool exec_scatter_region(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int n = op->num_results;
    GatherDims g;
    op_gather_dims(op, &g);
    for (int i = 0; i < n; i++)
        if (!exec_kernel(x, op, tensor_clone(&x->tensors, in[i], &out[i])))
            return false;
    Tensor **args = calloc((size_t)(2 * n), sizeof *args);
    if (!args)
        return exec_fail(x, op, "out of memory");
    ScatterRegion s = {x, op, in + n + 1, out, args};
    TensorStatus st = kern_scatter_walk(&x->tensors, in[0], in[n], in[n + 1], &g, scatter_region_visit, &s);
    free(args);
    if (st != TENSOR_OK && !x->failed) /* else the region reported */
        return exec_kernel(x, op, st);
    return st == TENSOR_OK;
}
