/* sort with a comparator region (StableHLO's sort): each lane along `dim`
 * is ordered by the sort kernel's merge sort of indices, which runs the comparator
 * on (lhs_0, rhs_0, lhs_1, rhs_1, ...) scalars per comparison. Merge sort
 * is stable, so is_stable needs nothing more. A lane's scalars are made
 * once, so a comparison costs one region run and no copies. */
#include <stdlib.h>
#include <string.h>
#include "interp/interp_internal.h"

typedef struct SortRun {
    ExecCtx *x;
    const Op *op;
    int n;                 /* operands */
    int64_t len;           /* lane length */
    Tensor **scalars;      /* scalars[k * n + j]: element k of operand j's lane */
    Tensor **args;         /* 2n comparator arguments */
    bool ok;
} SortRun;

/* True if lane element a must come before b; a failed comparator run
 * clears r->ok and answers false, and the sort then stops mattering. */
static bool sort_before(void *user, int64_t a, int64_t b)
{
    SortRun *r = user;
    if (!r->ok)
        return false;
    for (int j = 0; j < r->n; j++) {
        r->args[2 * j] = r->scalars[a * r->n + j];
        r->args[2 * j + 1] = r->scalars[b * r->n + j];
    }
    Tensor *res = NULL;
    r->ok = exec_region(r->x, r->op->regions[0], r->args, &res);
    bool before = r->ok && ((const uint8_t *)res->data)[0] != 0;
    tensor_release(res);
    return before;
}

static void sort_release_scalars(SortRun *r)
{
    for (int64_t i = 0; i < r->len * r->n; i++) {
        tensor_release(r->scalars[i]);
        r->scalars[i] = NULL;
    }
}

/* One lane: `base` is its first element's flat offset, `step` the stride
 * along dim. */
static bool sort_lane(SortRun *r, Tensor *const *in, Tensor **out, int64_t base, int64_t step, int64_t *idx,
                      int64_t *tmp)
{
    for (int64_t k = 0; k < r->len; k++)
        for (int j = 0; j < r->n; j++)
            if (!exec_scalar_of(r->x, r->op, in[j], base + k * step, &r->scalars[k * r->n + j]))
                return false;
    kern_stable_sort_indices(idx, tmp, r->len, sort_before, r);
    for (int j = 0; r->ok && j < r->n; j++) {
        size_t size = dtype_size(in[j]->dtype);
        for (int64_t k = 0; k < r->len; k++)
            memcpy((char *)out[j]->data + (size_t)(base + k * step) * size,
                   (const char *)in[j]->data + (size_t)(base + idx[k] * step) * size, size);
    }
    sort_release_scalars(r);
    return r->ok;
}

static bool sort_lanes(SortRun *r, Tensor *const *in, Tensor **out, int64_t dim)
{
    int64_t inner = 1, outer = 1;
    for (int d = 0; d < in[0]->rank; d++)
        *(d < dim ? &outer : d > dim ? &inner : &r->len) *= in[0]->dims[d];
    int64_t *idx = malloc((size_t)(r->len + 1) * sizeof *idx), *tmp = malloc((size_t)(r->len + 1) * sizeof *tmp);
    r->scalars = calloc((size_t)(r->len * r->n + 1), sizeof *r->scalars);
    bool ok = idx && tmp && r->scalars ? true : exec_fail(r->x, r->op, "out of memory");
    for (int64_t o = 0; ok && o < outer; o++)
        for (int64_t i = 0; ok && i < inner; i++)
            ok = sort_lane(r, in, out, o * r->len * inner + i, inner, idx, tmp);
    if (r->scalars)
        sort_release_scalars(r);
    free(r->scalars);
    free(idx);
    free(tmp);
    return ok;
}

bool exec_sort_region(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int n = op->num_operands;
    for (int j = 0; j < n; j++)
        if (!exec_kernel(x, op, tensor_new_for_type(&x->tensors, &op->results[j]->type, &out[j])))
            return false;
    Tensor *args[2 * n + 1];
    SortRun r = {.x = x, .op = op, .n = n, .len = 1, .args = args, .ok = true};
    return sort_lanes(&r, in, out, op_attr_int(op, ATTR_KEY_DIM));
}
