/* Verifier of the lapack op (JAX's lapack_*_ffi custom_calls): a target
 * shardc runs, its backend_config letters, and the operand and result
 * types jaxlib's FFI handler takes and returns (lapack_kernels.cc). */
#include <string.h>
#include "shardc/lapack.h"
#include "shardc/verify.h"

/* Each routine's attributes and the letters each may hold. */
typedef struct LetterAttr {
    AttrKey key;
    const char *letters;
} LetterAttr;

static const LetterAttr letter_attrs[LAPACK_ROUTINE_COUNT][4] = {
    [LAPACK_POTRF] = {{ATTR_KEY_UPLO, "LU"}},
    [LAPACK_SYEVD] = {{ATTR_KEY_UPLO, "LU"}, {ATTR_KEY_MODE, "VN"}},
    [LAPACK_GESDD] = {{ATTR_KEY_MODE, "ASN"}},
    [LAPACK_TRSM] = {{ATTR_KEY_SIDE, "LR"}, {ATTR_KEY_UPLO, "LU"}, {ATTR_KEY_TRANS_X, "NTC"}, {ATTR_KEY_DIAG, "NU"}},
};

static const LetterAttr *find_letter_attr(LapackRoutine r, AttrKey key)
{
    for (int i = 0; i < 4 && letter_attrs[r][i].letters; i++)
        if (letter_attrs[r][i].key == key)
            return &letter_attrs[r][i];
    return NULL;
}

static void check_letters(VerifyCtx *vc, const Op *op, LapackTarget t)
{
    LapackRoutine r = t.routine;
    const char *routine = lapack_routine_name(r, t.dtype);
    static const AttrKey keys[] = {ATTR_KEY_UPLO, ATTR_KEY_MODE, ATTR_KEY_SIDE, ATTR_KEY_TRANS_X, ATTR_KEY_DIAG};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const LetterAttr *want = find_letter_attr(r, keys[i]);
        const char *v = op_attr_string(op, keys[i]), *name = attr_key_name(keys[i]);
        if (!want && op_attr_find(op, keys[i]))
            diag_error(vc->diag, op_attr_loc(op, keys[i]), "'lapack' %s takes no '%s'", routine, name);
        else if (want && !v)
            diag_error(vc->diag, op->loc, "'lapack' %s needs '%s' (one of \"%s\")", routine, name,
                       want->letters);
        else if (want && (strlen(v) != 1 || !strchr(want->letters, v[0])))
            diag_error(vc->diag, op_attr_loc(op, keys[i]), "'lapack' %s: '%s' must be one letter of \"%s\", got \"%s\"",
                       routine, name, want->letters, v);
    }
}

/* The result types, built from operand 0's batch dims and matrix. */
typedef struct Want {
    TensorType types[5];
    int64_t dims[5][SHARDC_MAX_RANK];
} Want;

/* The real type of a complex one's parts, a real one itself: the type of
 * eigenvalues and singular values. */
static DType real_of(DType dt) { return dtype_is_complex(dt) ? dtype_complex_part(dt) : dt; }

/* Result i: the batch dims, then `extra` dims (0, 1 or 2 of them). */
static void want_type(Want *w, int i, const TensorType *a, DType dt, int extra, int64_t d0, int64_t d1)
{
    int nb = a->rank - 2;
    memcpy(w->dims[i], a->dims, sizeof(int64_t) * (size_t)nb);
    w->dims[i][nb] = d0;
    w->dims[i][nb + 1] = d1;
    w->types[i] = (TensorType){dt, nb + extra, w->dims[i]};
}

/* gesdd's u and vt: m x m and n x n (mode A), else m x k and k x n (S;
 * N as the op writes them: JAX gives full_matrices' shapes); the singular
 * values are real (f32 of c64). */
static void want_svd(Want *w, const Op *op, const TensorType *a, int64_t m, int64_t n, int64_t k)
{
    const char *mode = op_attr_string(op, ATTR_KEY_MODE);
    const TensorType *u = op->num_results > 2 ? &op->results[2]->type : NULL;
    bool full = mode && (mode[0] == 'A' || (mode[0] == 'N' && u && u->rank == a->rank && u->dims[a->rank - 1] == m));
    want_type(w, 1, a, real_of(a->dtype), 1, k, 0);
    want_type(w, 2, a, a->dtype, 2, m, full ? m : k);
    want_type(w, 3, a, a->dtype, 2, full ? n : k, n);
    want_type(w, 4, a, DT_I32, 0, 0, 0);
}

static void want_results(Want *w, const Op *op, LapackRoutine r)
{
    const TensorType *a = &op->operands[r == LAPACK_TRSM ? 1 : 0]->type;
    int64_t m = a->dims[a->rank - 2], n = a->dims[a->rank - 1], k = m < n ? m : n;
    w->types[0] = *a;
    switch (r) {
    case LAPACK_POTRF: want_type(w, 1, a, DT_I32, 0, 0, 0); break;
    case LAPACK_GETRF: want_type(w, 1, a, DT_I32, 1, k, 0); want_type(w, 2, a, DT_I32, 0, 0, 0); break;
    case LAPACK_GEQRF: want_type(w, 1, a, a->dtype, 1, k, 0); break;
    case LAPACK_SYEVD: want_type(w, 1, a, real_of(a->dtype), 1, n, 0); want_type(w, 2, a, DT_I32, 0, 0, 0); break;
    case LAPACK_GESDD: want_svd(w, op, a, m, n, k); break;
    default: break;
    }
}

/* Operands: matrices of the target's type and rank >= 2; potrf, syevd
 * and trsm's a square; orgqr's taus and trsm's b fit a. */
static bool check_operands(VerifyCtx *vc, const Op *op, LapackTarget t)
{
    const TensorType *a = &op->operands[0]->type;
    const char *name = lapack_routine_name(t.routine, t.dtype);
    if (op->num_operands != lapack_num_operands(t.routine) || op->num_results != lapack_num_results(t.routine)) {
        diag_error(vc->diag, op->loc, "'lapack' %s takes %d operand(s) and gives %d result(s)", name,
                   lapack_num_operands(t.routine), lapack_num_results(t.routine));
        return false;
    }
    for (int i = 0; i < op->num_operands; i++)
        if (op->operands[i]->type.dtype != t.dtype || op->operands[i]->type.rank < (i == 0 ? 2 : 1)) {
            diag_error(vc->diag, op->loc, "'lapack' %s operand %d must be %s of rank >= %d", name, i,
                       dtype_name(t.dtype), i == 0 ? 2 : 1);
            return false;
        }
    bool square = t.routine == LAPACK_POTRF || t.routine == LAPACK_SYEVD || t.routine == LAPACK_TRSM;
    if (square && a->dims[a->rank - 2] != a->dims[a->rank - 1]) {
        diag_error(vc->diag, op->loc, "'lapack' %s needs square matrices", name);
        return false;
    }
    return true;
}

/* orgqr: taus [batch, k] with k <= n <= m; trsm: b [batch, m, n] with a's
 * order m (side L) or n. */
static bool check_second(VerifyCtx *vc, const Op *op, LapackTarget t)
{
    const TensorType *a = &op->operands[0]->type, *b = op->num_operands > 1 ? &op->operands[1]->type : NULL;
    int nb = a->rank - 2;
    bool ok = true;
    if (t.routine == LAPACK_ORGQR)
        ok = b->rank == nb + 1 && b->dims[nb] <= a->dims[nb + 1] && a->dims[nb + 1] <= a->dims[nb];
    else if (t.routine == LAPACK_TRSM) {
        const char *side = op_attr_string(op, ATTR_KEY_SIDE);
        ok = b->rank == a->rank && b->dims[side && side[0] == 'R' ? nb + 1 : nb] == a->dims[nb];
    }
    for (int d = 0; ok && b && d < nb; d++)
        ok = a->dims[d] == b->dims[d];
    if (!ok)
        diag_error(vc->diag, op->loc, "'lapack' %s: operand 1 does not fit operand 0's batch dims and matrices",
                   lapack_routine_name(t.routine, t.dtype));
    return ok;
}

void verify_lapack(VerifyCtx *vc, Op *op)
{
    const char *target = verify_attr_valid(op, ATTR_KEY_TARGET) ? op_attr_string(op, ATTR_KEY_TARGET) : NULL;
    LapackTarget t;
    if (!target)
        return;
    if (!lapack_target_parse(target, &t)) {
        if (!vc->external_targets) /* shardc opt propagates what it cannot run */
            diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_TARGET), "unknown LAPACK target '%s': shardc runs "
                       LAPACK_KNOWN_TARGETS, target);
        return;
    }
    check_letters(vc, op, t);
    if (!check_operands(vc, op, t) || !check_second(vc, op, t))
        return;
    Want w;
    want_results(&w, op, t.routine);
    for (int i = 0; i < op->num_results; i++)
        verify_expect_type(vc, op, &w.types[i], op->results[i]);
}
