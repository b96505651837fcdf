/* Verifier rules of gather and scatter: StableHLO's constraints on their
 * dimension numbers (gather_c1..c23, scatter_c1..c24), each a located
 * error at the attribute it concerns. */
#include <string.h>
#include "shardc/gather.h"
#include "shardc/verify.h"

/* A dim list: each entry in [0, rank), none twice, and ascending if
 * `sorted`. */
static bool check_list(VerifyCtx *vc, const Op *op, AttrKey key, const int64_t *dims, int n, int rank,
                       const char *of, bool sorted)
{
    for (int i = 0; i < n; i++) {
        const char *why = NULL;
        if (dims[i] < 0 || dims[i] >= rank)
            why = "out of range for the rank of";
        else if (gather_dims_find(dims, i, dims[i]) >= 0)
            why = "listed twice in";
        else if (sorted && i > 0 && dims[i] < dims[i - 1])
            why = "not in ascending order in";
        if (why) {
            diag_error(vc->diag, op_attr_loc(op, key), "'%s' entry %lld is %s %s (rank %d)", attr_key_name(key),
                       (long long)dims[i], why, of, rank);
            return false;
        }
    }
    return true;
}

/* No dim of b is also in a (collapsed or start-mapped dims against the
 * batching dims). */
static bool check_disjoint(VerifyCtx *vc, const Op *op, AttrKey ka, const int64_t *a, int na, AttrKey kb,
                           const int64_t *b, int nb)
{
    for (int i = 0; i < nb; i++)
        if (gather_dims_has(a, na, b[i])) {
            diag_error(vc->diag, op_attr_loc(op, kb), "'%s' and '%s' both list operand dim %lld", attr_key_name(ka),
                       attr_key_name(kb), (long long)b[i]);
            return false;
        }
    return true;
}

/* The keys of the five lists, in GatherDims order, for gather and scatter. */
typedef struct DimKeys {
    AttrKey offset, collapsed, operand_batching, index_batching, map;
} DimKeys;

static const DimKeys gather_keys = {ATTR_KEY_OFFSET_DIMS, ATTR_KEY_COLLAPSED_SLICE_DIMS,
                                    ATTR_KEY_OPERAND_BATCHING_DIMS, ATTR_KEY_START_INDICES_BATCHING_DIMS,
                                    ATTR_KEY_START_INDEX_MAP};
static const DimKeys scatter_keys = {ATTR_KEY_UPDATE_WINDOW_DIMS, ATTR_KEY_INSERTED_WINDOW_DIMS,
                                     ATTR_KEY_INPUT_BATCHING_DIMS, ATTR_KEY_SCATTER_INDICES_BATCHING_DIMS,
                                     ATTR_KEY_SCATTER_DIMS_TO_OPERAND_DIMS};

/* The batching dims of operand and indices pair up with equal sizes, and
 * the index vector dim is not one of them (gather_c13..c17). */
static bool check_batching(VerifyCtx *vc, const Op *op, const GatherDims *g, const DimKeys *k)
{
    const TensorType *x = &op->operands[0]->type, *idx = &op->operands[op_gather_indices_index(op)]->type;
    if (!check_list(vc, op, k->index_batching, g->index_batching, g->num_index_batching, idx->rank, "the indices",
                    false))
        return false;
    if (g->num_index_batching != g->num_operand_batching) {
        diag_error(vc->diag, op_attr_loc(op, k->index_batching), "'%s' must list as many dims (%d) as '%s' (%d)",
                   attr_key_name(k->index_batching), g->num_index_batching, attr_key_name(k->operand_batching),
                   g->num_operand_batching);
        return false;
    }
    for (int i = 0; i < g->num_index_batching; i++) {
        int64_t a = g->operand_batching[i], b = g->index_batching[i];
        if (b == g->index_vector_dim || x->dims[a] != idx->dims[b]) {
            diag_error(vc->diag, op_attr_loc(op, k->index_batching),
                       b == g->index_vector_dim ? "'%s' entry %lld is the index vector dim"
                                                : "'%s' entry %lld has another size than operand batching dim %lld",
                       attr_key_name(k->index_batching), (long long)b, (long long)a);
            return false;
        }
    }
    return true;
}

/* What gather and scatter share: the dim lists against the operand's and
 * the indices' ranks, the index vector dim and the start index map's
 * length. `window_rank` is the rank the offset dims index (gather's
 * result, scatter's updates). */
static bool check_common(VerifyCtx *vc, const Op *op, const GatherDims *g, const DimKeys *k, int window_rank)
{
    int ii = op_gather_indices_index(op);
    const TensorType *x = &op->operands[0]->type, *idx = &op->operands[ii]->type;
    const char *name = op_info(op->kind)->name;
    if (!dtype_is_int(idx->dtype)) {
        diag_error(vc->diag, op->loc, "'%s' indices %%%s must be integers, got %s", name, op->operands[ii]->name,
                   dtype_name(idx->dtype));
        return false;
    }
    if (g->index_vector_dim < 0 || g->index_vector_dim > idx->rank) {
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_INDEX_VECTOR_DIM),
                   "'index_vector_dim' %lld is out of range [0, %d] for the indices", (long long)g->index_vector_dim,
                   idx->rank);
        return false;
    }
    if (!check_list(vc, op, k->offset, g->offset, g->num_offset, window_rank,
                    op->kind == OP_GATHER ? "the result" : "the updates", true) ||
        !check_list(vc, op, k->collapsed, g->collapsed, g->num_collapsed, x->rank, "the operand", true) ||
        !check_list(vc, op, k->operand_batching, g->operand_batching, g->num_operand_batching, x->rank,
                    "the operand", true) ||
        !check_disjoint(vc, op, k->collapsed, g->collapsed, g->num_collapsed, k->operand_batching,
                        g->operand_batching, g->num_operand_batching) ||
        !check_list(vc, op, k->map, g->map, g->num_map, x->rank, "the operand", false) ||
        !check_disjoint(vc, op, k->operand_batching, g->operand_batching, g->num_operand_batching, k->map, g->map,
                        g->num_map) ||
        !check_batching(vc, op, g, k))
        return false;
    int batch = idx->rank - (g->index_vector_dim < idx->rank);
    if (batch + g->num_offset != window_rank) {
        diag_error(vc->diag, op_attr_loc(op, k->offset), "'%s' has %d dims, but the %s's rank %d is the indices' "
                   "batch dims (%d) and them", attr_key_name(k->offset), g->num_offset,
                   op->kind == OP_GATHER ? "result" : "updates", window_rank, batch);
        return false;
    }
    int64_t vector = g->index_vector_dim < idx->rank ? idx->dims[g->index_vector_dim] : 1;
    if (g->num_map != vector) {
        diag_error(vc->diag, op_attr_loc(op, k->map), "'%s' must list one operand dim per index vector entry (%lld), "
                   "got %d", attr_key_name(k->map), (long long)vector, g->num_map);
        return false;
    }
    if (x->rank != g->num_offset + g->num_collapsed + g->num_operand_batching) {
        diag_error(vc->diag, op_attr_loc(op, k->offset), "the operand's rank %d must be the number of '%s' (%d), "
                   "'%s' (%d) and '%s' (%d)", x->rank, attr_key_name(k->offset), g->num_offset,
                   attr_key_name(k->collapsed), g->num_collapsed, attr_key_name(k->operand_batching),
                   g->num_operand_batching);
        return false;
    }
    return true;
}

/* The batch (scatter) dims' sizes, the indices' dims but the index vector
 * dim, interleaved with `window` at the offset dims (gather_c22,
 * scatter_c5); returns the rank. */
static int combine_dims(const GatherDims *g, const TensorType *idx, const int64_t *window, int64_t *out)
{
    int rank = idx->rank - (g->index_vector_dim < idx->rank) + g->num_offset, b = 0, w = 0;
    for (int d = 0; d < rank; d++) {
        if (gather_dims_has(g->offset, g->num_offset, d)) {
            out[d] = window[w++];
            continue;
        }
        if (b == g->index_vector_dim)
            b++;
        out[d] = idx->dims[b++];
    }
    return rank;
}

/* The operand dims a window keeps: neither collapsed nor batching. */
static bool is_window_dim(const GatherDims *g, int64_t d)
{
    return !gather_dims_has(g->collapsed, g->num_collapsed, d) &&
           !gather_dims_has(g->operand_batching, g->num_operand_batching, d);
}

static bool check_slice_sizes(VerifyCtx *vc, const Op *op, const GatherDims *g)
{
    const TensorType *x = &op->operands[0]->type;
    Loc loc = op_attr_loc(op, ATTR_KEY_SLICE_SIZES);
    if (g->num_slice_sizes != x->rank) {
        diag_error(vc->diag, loc, "'slice_sizes' must have one entry per operand dim (%d), got %d", x->rank,
                   g->num_slice_sizes);
        return false;
    }
    for (int d = 0; d < x->rank; d++) {
        int64_t s = g->slice_sizes[d], most = is_window_dim(g, d) ? x->dims[d] : (x->dims[d] < 1 ? x->dims[d] : 1);
        if (s < 0 || s > most) {
            diag_error(vc->diag, loc, "'slice_sizes' entry %d is %lld, not in [0, %lld]%s", d, (long long)s,
                       (long long)most, is_window_dim(g, d) ? "" : " (a collapsed or batching dim)");
            return false;
        }
    }
    return true;
}

void verify_gather(VerifyCtx *vc, Op *op)
{
    GatherDims g;
    op_gather_dims(op, &g);
    const TensorType *x = &op->operands[0]->type, *idx = &op->operands[1]->type;
    if (!check_common(vc, op, &g, &gather_keys, op->results[0]->type.rank) || !check_slice_sizes(vc, op, &g))
        return;
    int64_t window[SHARDC_MAX_RANK], dims[SHARDC_MAX_RANK];
    int w = 0;
    for (int d = 0; d < x->rank; d++)
        if (is_window_dim(&g, d))
            window[w++] = g.slice_sizes[d];
    TensorType want = {x->dtype, combine_dims(&g, idx, window, dims), dims};
    verify_expect_type(vc, op, &want, op->results[0]);
}

static bool combiner_fits(const char *c, DType dt)
{
    static const char *const any[] = {"add", "mul", "max", "min", "replace"};
    for (size_t i = 0; i < sizeof any / sizeof any[0]; i++)
        if (strcmp(c, any[i]) == 0)
            return true;
    return (strcmp(c, "and") == 0 || strcmp(c, "or") == 0) && (dt == DT_BOOL || dtype_is_int(dt));
}

/* scatter_c1, c3: every input, and every update, of one shape; c15:
 * update i has input i's element type (both are the region's E_i);
 * c16, c17: result i is input i's type. Whether the shapes agree. */
static bool check_variadic(VerifyCtx *vc, Op *op, int n)
{
    bool ok = true;
    for (int k = 0; k < 2; k++)
        for (int i = 1; i < n; i++) {
            const Value *a = op->operands[k * (n + 1)], *b = op->operands[k * (n + 1) + i];
            TensorType same = b->type;
            same.dtype = a->type.dtype;
            if (!type_equal(&same, &a->type)) {
                diag_error(vc->diag, op->loc, "the %s of 'scatter' have one shape (scatter_c%d), but %%%s and "
                           "%%%s differ", k ? "updates" : "inputs", k ? 3 : 1, a->name, b->name);
                ok = false;
            }
        }
    for (int i = 0; ok && i < n; i++)
        if (op->operands[n + 1 + i]->type.dtype != op->operands[i]->type.dtype) {
            diag_error(vc->diag, op->loc, "'scatter' update %%%s must have input %%%s's element type %s "
                       "(scatter_c15)", op->operands[n + 1 + i]->name, op->operands[i]->name,
                       dtype_name(op->operands[i]->type.dtype));
            ok = false;
        }
    for (int i = 0; i < n; i++)
        verify_expect_type(vc, op, &op->operands[i]->type, op->results[i]);
    return ok;
}

static bool scatter_body_scalar(VerifyCtx *vc, Loc loc, const Value *v, DType dt, const char *what, int i)
{
    if (v->type.rank == 0 && v->type.dtype == dt)
        return true;
    char got[128];
    verify_format_type(got, sizeof got, &v->type);
    diag_error(vc->diag, loc, "%s %d of the update computation of 'scatter' (%%%s) must be a %s[] scalar "
               "(scatter_c15), but is %s", what, i, v->name, dtype_name(dt), got);
    return false;
}

/* scatter_c15: the region takes (cur_0..cur_N-1, upd_0..upd_N-1) and
 * returns N scalars of the inputs' element types. */
static void check_update_region(VerifyCtx *vc, const Op *op, const Block *body, int n)
{
    if (body->num_args != 2 * n) {
        diag_error(vc->diag, op->loc, "the update computation of 'scatter' takes %d scalar arguments (the %d "
                   "current values, then the %d updates), not %d (scatter_c15)", 2 * n, n, n, body->num_args);
        return;
    }
    for (int i = 0; i < 2 * n; i++)
        scatter_body_scalar(vc, body->args[i]->loc, body->args[i], op->operands[i % n]->type.dtype, "argument", i);
    if (body->num_returns != n) {
        diag_error(vc->diag, body->return_loc, "the update computation of 'scatter' returns %d value%s, one per "
                   "input, not %d (scatter_c15)", n, n == 1 ? "" : "s", body->num_returns);
        return;
    }
    for (int i = 0; i < n; i++)
        scatter_body_scalar(vc, body->return_loc, body->returns[i], op->operands[i]->type.dtype, "returned value",
                            i);
}

/* Operand counts, and one update computation: `combiner` (one input
 * only) or a region, not both. */
static bool check_scatter_form(VerifyCtx *vc, Op *op, int n)
{
    const char *c = op_attr_string(op, ATTR_KEY_COMBINER);
    if (op->num_operands != 2 * n + 1) {
        diag_error(vc->diag, op->loc, "'scatter' takes N inputs, the indices and N updates: %d result%s need%s "
                   "%d operands, not %d", n, n == 1 ? "" : "s", n == 1 ? "s" : "", 2 * n + 1,
                   op->num_operands);
        return false;
    }
    if ((c != NULL) == (op->num_regions == 1)) {
        diag_error(vc->diag, c ? op_attr_loc(op, ATTR_KEY_COMBINER) : op->loc, c
                   ? "'scatter' takes either 'combiner' or an update computation region, not both"
                   : "'scatter' needs its update computation: a region (%%cur: ..., %%upd: ...) {... return %%new} "
                     "or 'combiner'");
        return false;
    }
    if (c && n != 1) {
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_COMBINER), "'combiner' names the update computation of "
                   "one input; a scatter of %d inputs takes a region", n);
        return false;
    }
    if (c && !combiner_fits(c, op->operands[0]->type.dtype)) {
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_COMBINER), "'combiner' must be \"add\", \"mul\", \"max\", "
                   "\"min\", \"replace\", or \"and\"/\"or\" for bool or integers; got \"%s\" for %s", c,
                   dtype_name(op->operands[0]->type.dtype));
        return false;
    }
    if (!c)
        check_update_region(vc, op, op->regions[0], n);
    return true;
}

void verify_scatter_op(VerifyCtx *vc, Op *op)
{
    int n = op->num_results;
    GatherDims g;
    op_gather_dims(op, &g);
    if (n < 1 || !check_scatter_form(vc, op, n) || !check_variadic(vc, op, n))
        return;
    const TensorType *x = &op->operands[0]->type, *idx = &op->operands[n]->type, *upd = &op->operands[n + 1]->type;
    if (!check_common(vc, op, &g, &scatter_keys, upd->rank))
        return;
    int64_t window[SHARDC_MAX_RANK], dims[SHARDC_MAX_RANK];
    int w = 0;
    for (int d = 0; d < x->rank; d++)
        if (is_window_dim(&g, d))
            window[w++] = x->dims[d];
    int rank = combine_dims(&g, idx, window, dims);
    bool fits = rank == upd->rank && upd->dtype == x->dtype;
    for (int d = 0; fits && d < rank; d++)
        fits = gather_dims_has(g.offset, g.num_offset, d) ? upd->dims[d] <= dims[d] : upd->dims[d] == dims[d];
    if (!fits) {
        char s[256];
        TensorType most = {x->dtype, rank, dims};
        verify_format_type(s, sizeof s, &most);
        diag_error(vc->diag, op->loc, "'scatter' updates %%%s must be %s, with window dims (update_window_dims) "
                   "no bigger", op->operands[n + 1]->name, s);
    }
}
