/* while, case and optimization_barrier on global or per-device values.
 * Regions run in the values of the block around them (exec_region), so
 * what they capture is there; carried values pass from one iteration to
 * the next as references. */
#include <stdlib.h>
#include "interp/interp_internal.h"

bool exec_barrier(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    (void)x;
    for (int i = 0; i < op->num_results; i++)
        out[i] = tensor_retain(in[i]);
    return true;
}

static void release_all(Tensor **t, int n)
{
    for (int i = 0; i < n; i++) {
        tensor_release(t[i]);
        t[i] = NULL;
    }
}

/* The cond region on the carried values: its scalar bool. */
static bool loop_continues(ExecCtx *x, const Op *op, Tensor **carried, bool *go)
{
    Tensor *pred = NULL;
    if (!exec_region(x, op->regions[0], carried, &pred))
        return false;
    if (!pred)
        return exec_fail(x, op, "the cond region of 'while' returned no value");
    *go = tensor_get_i64(pred, 0) != 0;
    tensor_release(pred);
    return true;
}

bool exec_while(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int n = op->num_operands;
    Tensor **carried = calloc((size_t)n + 1, sizeof *carried), **next = calloc((size_t)n + 1, sizeof *next);
    bool ok = carried && next;
    for (int i = 0; ok && i < n; i++)
        carried[i] = tensor_retain(in[i]);
    bool go = true;
    for (int64_t step = 0; ok && (ok = loop_continues(x, op, carried, &go)) && go; step++) {
        if (step >= x->ic->max_steps) {
            ok = exec_fail(x, op, "'while' did not finish within %lld iterations (--max-steps)",
                           (long long)x->ic->max_steps);
            break;
        }
        ok = exec_region(x, op->regions[1], carried, next);
        release_all(carried, n);
        Tensor **t = carried;
        carried = next;
        next = t;
    }
    if (!carried || !next)
        ok = exec_fail(x, op, "out of memory");
    for (int i = 0; ok && i < n; i++) {
        out[i] = carried[i];
        carried[i] = NULL;
    }
    if (carried)
        release_all(carried, n);
    if (next)
        release_all(next, n);
    free(carried);
    free(next);
    return ok;
}

/* StableHLO's case: an index out of range runs the last branch. */
bool exec_case(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t index = tensor_get_i64(in[0], 0);
    if (index < 0 || index >= op->num_regions)
        index = op->num_regions - 1;
    return exec_region(x, op->regions[index], NULL, out);
}

/* A named computation runs its body once on its operands: a call. */
bool exec_named(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    return exec_region(x, op->regions[0], in, out);
}

/* A token holds no data: a new one, its byte 0. */
bool exec_after_all(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    (void)in;
    return exec_kernel(x, op, tensor_new(&x->tensors, DT_TOKEN, 0, NULL, out));
}
