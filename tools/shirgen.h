/* shirgen: a random .shir program generator for differential testing
 * (docs/testing.md, "Random differential testing").
 *
 * A program is built in memory with the IR API (include/shardc/ir.h) and
 * printed with print_module, so everything shirgen writes is canonical
 * .shir. Generation is a pure function of GenOpts: the RNG state lives in
 * the Gen struct, nothing is global.
 *
 * The generated programs are meant for `shardc run`, which compares the
 * SPMD program against the single-device one. Two things keep a correct
 * compiler from "failing" on them:
 *   - magnitudes stay bounded (GenVal.bound) and logs, square roots and
 *     divisions only see operands >= 1, so rounding noise stays far below
 *     the comparison tolerance;
 *   - ops whose result jumps when their input moves by one ulp (compare,
 *     argmax, top_k indices, float->int convert) only take values that are
 *     bit-identical in both runs (GenVal.exact): sums over a sharded dim
 *     are reassociated by the partitioner, so they are not exact. */
#ifndef SHIRGEN_H
#define SHIRGEN_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "shardc/ir.h"

/* ---- options ---------------------------------------------------------------- */

/* Feature switches (--no=NAME,...), so a campaign can steer around a known
 * bug or narrow down which construct a failure needs. */
enum {
    FEAT_CUSTOM = 1u << 0,
    FEAT_PARTITION_FN = 1u << 1,
    FEAT_SHARD_MAP = 1u << 2,
    FEAT_CALL = 1u << 3,
    FEAT_BF16 = 1u << 4,
    FEAT_SUB_AXES = 1u << 5,
    FEAT_PRIORITIES = 1u << 6,
    FEAT_DEVICE_IDS = 1u << 7,
    FEAT_EMPTY = 1u << 8,       /* zero-sized dims (top_k k=0, empty slices) */
    FEAT_CONSTRAINTS = 1u << 9, /* sharding_constraint / reshard */
    FEAT_RESULT_SHARDINGS = 1u << 10,
    /* slice/pad/concatenate may change a dim to any size; off: changed dims
     * stay multiples of the device count (steers around propagation making
     * such dims uneven, docs/testing.md) */
    FEAT_ODD_RESIZE = 1u << 11,
    FEAT_CONTROL_FLOW = 1u << 12, /* while (counted loops) and case */
    FEAT_ALL = (1u << 13) - 1,
};

typedef struct GenOpts {
    uint64_t seed;
    int num_ops;        /* top-level ops in the entry function */
    int max_devices;    /* mesh size cap */
    int64_t max_elems;  /* element count cap per tensor */
    bool uneven;        /* shardings that do not divide their dim */
    bool unreduced;     /* float shardings unreduced over an unused axis (issue 16) */
    unsigned features;  /* FEAT_* bits that may be used */
} GenOpts;

void gen_default_opts(GenOpts *o);
/* "custom,shard_map,..." -> FEAT_* bits; false on an unknown name. */
bool gen_parse_features(const char *list, unsigned *out);
/* The names of the FEAT_* bits, comma-separated after prefix. */
void gen_print_features(FILE *out, const char *prefix, unsigned bits);

/* ---- random numbers ------------------------------------------------------------ */

typedef struct Rng {
    uint64_t state;
} Rng;

void rng_seed(Rng *r, uint64_t seed);
uint64_t rng_u64(Rng *r);
int rng_below(Rng *r, int n);          /* uniform in [0, n), n >= 1 */
int rng_range(Rng *r, int lo, int hi); /* uniform in [lo, hi] */
bool rng_pct(Rng *r, int percent);     /* true with the given chance */
double rng_unit(Rng *r);               /* uniform in [0, 1) */
void rng_shuffle(Rng *r, int *items, int n);

/* ---- generator state -------------------------------------------------------------- */

/* What the generator knows about a value it may use as an operand. */
typedef struct GenVal {
    Value *v;
    double bound;   /* |x| <= bound (numeric types) */
    bool exact;     /* bit-identical in the reference and the SPMD run */
    uint32_t vma;   /* manual axes it varies over (shard_map bodies) */
} GenVal;

typedef enum { SCOPE_ENTRY, SCOPE_FUNC, SCOPE_MANUAL } ScopeKind;

/* A block being filled and the values visible in it. */
typedef struct GenScope {
    ScopeKind kind;
    Block *block;
    GenVal *vals;
    int count, cap;
    Func *func;             /* the function the block belongs to */
    uint32_t manual_axes;   /* SCOPE_MANUAL: bit per mesh axis */
    bool is_callee;         /* a `call` target: inlined, so any op may appear */
    bool control;           /* a while or case region: no control flow nested in it */
    struct GenScope *outer;
} GenScope;

typedef struct Gen {
    Rng rng;
    GenOpts opts;
    Module *m;
    Mesh *mesh;
    GenScope *scope;
    int next_value;     /* %vN names */
    int next_func;      /* @fN names */
    int next_factor;    /* rule factor names */
    bool inexact_bf16;  /* a bf16 value was reassociated: looser tolerance */
    int depth;          /* nested function/region generation */
} Gen;

/* ---- shirgen.c: the program ------------------------------------------------------ */

Module *gen_program(const GenOpts *opts, double *tolerance);

/* ---- shirgen_ir.c: building IR ----------------------------------------------------- */

Arena *gen_arena(Gen *g);
const char *gen_name(Gen *g, const char *prefix, int n);
TensorType gen_type(Gen *g, DType dt, int rank, const int64_t *dims);
int64_t type_elems(const TensorType *t);
/* A new op in the current scope with results of the given types. */
Op *gen_op(Gen *g, OpKind kind, Value **operands, int n, const TensorType *types, int nres);
void gen_set_attr(Gen *g, Op *op, AttrKey key, AttrValue *v);
AttrValue *attr_i(Gen *g, int64_t i);
AttrValue *attr_f(Gen *g, double f);
AttrValue *attr_b(Gen *g, bool b);
AttrValue *attr_s(Gen *g, const char *s);
AttrValue *attr_sym(Gen *g, const char *s);
AttrValue *attr_ints(Gen *g, const int64_t *v, int n);
AttrValue *attr_list(Gen *g, AttrValue **items, int n);
AttrValue *attr_shard(Gen *g, Sharding *s);
AttrValue *attr_axes(Gen *g, const int *axes, int n);

/* ---- shirgen_scope.c: value pools ---------------------------------------------------- */

GenVal *scope_add(Gen *g, Value *v, double bound, bool exact, uint32_t vma);
void scope_push(Gen *g, GenScope *s, ScopeKind kind, Block *block, Func *f);
void scope_pop(Gen *g);
Func *gen_func_new(Gen *g, const char *name);
Value *func_add_arg(Gen *g, Func *f, TensorType t);
Value *block_add_arg(Gen *g, Block *b, TensorType t, const char *name);
void func_set_results(Gen *g, Func *f, Value **vals, int n);

/* Operand filters for gen_pick. */
typedef struct Pick {
    unsigned dtypes;    /* bit per DType; 0 = any */
    int min_rank, max_rank;
    bool need_exact;
    double max_bound;   /* 0 = any */
    const TensorType *shape_like; /* exactly this shape (not dtype), or NULL */
} Pick;

unsigned dt_bit(DType dt);
enum { DTS_FLOAT = 1u << DT_F32 | 1u << DT_F64 | 1u << DT_BF16, DTS_INT = 1u << DT_I32 | 1u << DT_I64,
       DTS_NUM = DTS_FLOAT | DTS_INT, DTS_BOOL = 1u << DT_BOOL };
Pick pick_any(unsigned dtypes);
GenVal *gen_pick(Gen *g, const Pick *p);
/* gen_pick, or else a fresh input of a random type that p accepts. */
GenVal *gen_operand(Gen *g, const Pick *p);
/* A value of exactly type t: an existing one, a new argument or a nullary op. */
GenVal *gen_value_of(Gen *g, const TensorType *t, bool need_exact);
DType gen_dtype(Gen *g, unsigned allowed);
TensorType gen_shape(Gen *g, DType dt, int rank);
GenVal *gen_fresh(Gen *g, const TensorType *t);
GenVal *gen_input(Gen *g, const TensorType *t);

/* ---- shirgen_num.c: keeping numbers well conditioned ---------------------------------- */

/* x with |x| <= limit (tanh for floats), or x itself. */
GenVal *gen_bounded(Gen *g, GenVal *x, double limit);
/* x >= 1 (abs + 1), for log, sqrt, rsqrt, division and pow bases. */
GenVal *gen_positive(Gen *g, GenVal *x);
GenVal *gen_result(Gen *g, Op *op, int i, double bound, bool exact, uint32_t vma);
bool exact_of(GenVal **ops, int n);
uint32_t vma_of(GenVal **ops, int n);
double cap_bound(DType dt, double b);
GenVal *gen_full(Gen *g, DType dt, double value, const TensorType *shape_like);
/* Whether a sum of n elements of dt that the partitioner may reorder stays
 * within tolerance: bf16 rounds every partial sum, so only short ones. */
bool sum_ok(DType dt, int64_t n);

/* ---- shirgen_vma.c: varying manual axes through loops -------------------------------- */

/* The axes each of a loop's n carried values varies over after any number
 * of iterations: carried[] holds the initial values' on entry, the
 * fixpoint on return. `known` (the body's scope and those around it) gives
 * the VMA of the values the body captures. */
void gen_loop_vma(Gen *g, const Block *body, const GenScope *known, uint32_t *carried, int n);

/* ---- shirgen_mesh.c: meshes and shardings ------------------------------------------- */

Mesh *gen_mesh(Gen *g, const char *name);
/* A random sharding for t (NULL now and then when optional). */
Sharding *gen_sharding(Gen *g, const TensorType *t, bool closed_only);
/* A closed sharding using only whole axes that divide (shard_map specs,
 * pinned custom-op layouts); `avoid` masks axes already taken. */
Sharding *gen_spec(Gen *g, const TensorType *t, uint32_t avoid, int percent);
uint32_t sharding_axes(const Sharding *s);
/* The per-device type of t under a spec of whole axes. */
TensorType local_type(Gen *g, const TensorType *t, const Sharding *s);
Sharding *spec_empty(Gen *g, int rank);

/* ---- op generators (shirgen_ops*.c) ------------------------------------------------ */

typedef bool (*OpGenFn)(Gen *g, OpKind kind);
typedef struct OpGen {
    OpGenFn fn;
    int weight;         /* relative frequency */
    unsigned scopes;    /* bit per ScopeKind where the op may appear */
} OpGen;

/* The table, indexed by OpKind (include/shardc/ops.def). */
const OpGen *op_gen(OpKind kind);
/* One random op in the current scope; false if nothing fit. */
bool gen_one_op(Gen *g);
void gen_ops(Gen *g, int n);

bool gen_nullary(Gen *g, OpKind kind);
bool gen_unary(Gen *g, OpKind kind);
bool gen_convert(Gen *g, OpKind kind);
bool gen_binary(Gen *g, OpKind kind);
bool gen_compare(Gen *g, OpKind kind);
bool gen_select(Gen *g, OpKind kind);
bool gen_clamp(Gen *g, OpKind kind);
bool gen_bitcast(Gen *g, OpKind kind);
bool gen_einsum(Gen *g, OpKind kind);
bool gen_reduce(Gen *g, OpKind kind);
bool gen_transpose(Gen *g, OpKind kind);
bool gen_reshape(Gen *g, OpKind kind);
bool gen_broadcast(Gen *g, OpKind kind);
bool gen_concatenate(Gen *g, OpKind kind);
bool gen_slice(Gen *g, OpKind kind);
bool gen_pad(Gen *g, OpKind kind);
bool gen_reverse(Gen *g, OpKind kind);
bool gen_dynamic_slice(Gen *g, OpKind kind);
bool gen_dynamic_update_slice(Gen *g, OpKind kind);
bool gen_gather(Gen *g, OpKind kind);
bool gen_scatter(Gen *g, OpKind kind);
bool gen_convolution(Gen *g, OpKind kind);
bool gen_reduce_window(Gen *g, OpKind kind);
bool gen_select_and_scatter(Gen *g, OpKind kind);
bool gen_rng_bit_generator(Gen *g, OpKind kind); /* shirgen_ops_random.c (issue 18) */
/* A random window [start, limit) with stride of a dim of `size`, its
 * length a multiple of the resize unit (shirgen_ops_window.c). */
void slice_dim(Gen *g, int64_t size, int64_t *start, int64_t *limit, int64_t *stride);
bool gen_top_k(Gen *g, OpKind kind);
bool gen_sort(Gen *g, OpKind kind);
bool gen_argmax(Gen *g, OpKind kind);
/* shirgen_ops_linalg.c: cholesky, triangular_solve, batch_norm_* */
bool gen_cholesky(Gen *g, OpKind kind);
bool gen_triangular_solve(Gen *g, OpKind kind);
bool gen_batch_norm(Gen *g, OpKind kind);
bool gen_call(Gen *g, OpKind kind);
bool gen_custom(Gen *g, OpKind kind);
bool gen_constraint(Gen *g, OpKind kind);
bool gen_shard_map(Gen *g, OpKind kind);
bool gen_all_reduce(Gen *g, OpKind kind);
bool gen_all_gather(Gen *g, OpKind kind);
bool gen_psum_scatter(Gen *g, OpKind kind);
bool gen_ppermute(Gen *g, OpKind kind);
bool gen_all_to_all(Gen *g, OpKind kind);
bool gen_axis_index(Gen *g, OpKind kind);
bool gen_while(Gen *g, OpKind kind);
bool gen_reduce_region(Gen *g, OpKind kind);
/* A scatter's update region on op over n inputs of dtypes dts: return i
 * is kinds[i] ("add", "max" or "select", shirgen_control.c) of (cur_i,
 * upd_i). */
#define MAX_SCATTER_INPUTS 2
void gen_scatter_region(Gen *g, Op *op, const DType *dts, const char *const *kinds, int n);
/* sort of (x, iota) with a comparator, for gen_sort; false if x does not fit. */
bool gen_sort_region(Gen *g, OpKind kind, GenVal *x);
bool gen_case(Gen *g, OpKind kind);
/* fft through complex values that never enter the pool (shirgen_ops_fft.c) */
bool gen_fft(Gen *g, OpKind kind);

/* Shape helpers shared by the generators. */
TensorType broadcast_partner(Gen *g, const TensorType *t, DType dt);
bool shapes_broadcast(const TensorType *a, const TensorType *b, TensorType *out, Gen *g);
GenVal *gen_unary_on(Gen *g, OpKind kind, GenVal *x);
GenVal *gen_binary_on(Gen *g, OpKind kind, GenVal *a, GenVal *b);
/* A random non-empty ordered subset of `allowed` (at most max axes) into
 * axes[]; returns its size and sets *mask; 0 if allowed is empty. */
int random_axes(Gen *g, uint32_t allowed, int max, int *axes, uint32_t *mask);
int64_t axes_size(const Gen *g, uint32_t mask);
/* The unit a resized dim must be a multiple of (1 with FEAT_ODD_RESIZE). */
int64_t resize_unit(const Gen *g);

/* ---- shirgen_rule.c: custom_partitioning rule strings -------------------------------- */

enum { GR_MAX_TENSORS = 6, GR_MAX_DIMS = 8, GR_MAX_FACTORS = 26 };
enum { FK_PASS, FK_REDUCTION, FK_NEED_REPLICATION, FK_PERMUTATION };

typedef struct GRuleDim {
    int f[2];           /* factor ids; f[1] >= 0 makes a compound dim (f[0] f[1]) */
} GRuleDim;

typedef struct GRuleTensor {
    int rank, ell;      /* ell leading dims are written as "..." */
    GRuleDim dims[GR_MAX_DIMS];
} GRuleTensor;

/* A rule under construction: templates add factors and tensors; the text
 * names factors in order of first appearance, as JAX numbers them. */
typedef struct GRule {
    GRuleTensor t[GR_MAX_TENSORS];
    int nops, nres;
    int nfactors;
    int64_t size[GR_MAX_FACTORS];
    int kind[GR_MAX_FACTORS];
} GRule;

int grule_factor(GRule *r, int64_t size);
GRuleTensor *grule_tensor(GRule *r, bool result);
void grule_dim(GRuleTensor *t, int f0, int f1);
/* Write `...` for the first n dims where all tensors agree; false if not. */
bool grule_try_ellipsis(GRule *r, int n);
/* Mark pass-through factors need_replication/permutation at random: always
 * sound (it only forbids sharding them). */
void grule_sprinkle(Gen *g, GRule *r);
/* rule, the factor-kind lists and factor_sizes on a custom op. */
void grule_attrs(Gen *g, Op *op, const GRule *r);

/* ---- shirgen_einsum (shirgen_ops_shape.c), shared with custom ops ---------------------- */

typedef struct Einsum {
    char a[8], b[8], out[12];   /* labels of each term */
    int na, nb, nout;
    int64_t size[26];           /* label -> size */
    int64_t contraction;        /* product of summed label sizes */
} Einsum;

void einsum_build(Gen *g, Einsum *e, const TensorType *ta, bool two);
TensorType einsum_type(Gen *g, const Einsum *e, const char *labels, int n, DType dt);
const char *einsum_spec(Gen *g, const Einsum *e, bool two);
bool einsum_has(const char *labels, int n, char l);

/* ---- shirgen_localize.c, shirgen_custom*.c ------------------------------------------- */

/* Re-emit impl's body in the current scope on per-device arguments;
 * false if an op has no local form (shirgen_localize.c). */
bool localize_body(Gen *g, const Block *impl, Value **args, Value **results);

/* ---- shirgen_shrink.c: test-case reduction ------------------------------------------ */

/* Print variant k of the module in `text` (one reduction step applied);
 * returns 0, 3 when k is past the last variant, 1 on a parse error. */
int shrink_variant(const char *file, const char *text, size_t len, int k, FILE *out);

#endif
