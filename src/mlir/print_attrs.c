/* MLIR syntax of types, numbers, dense constants, sdy shardings and
 * attribute dictionaries, as MLIR's AsmPrinter and the sdy/StableHLO
 * attribute printers write them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "print_internal.h"
#include "shardc/rule.h"

/* MLIR's printEscapedString: printable ASCII as is, `"` and `\` escaped,
 * anything else as \XX; runs of plain characters are copied whole. */
void mlir_print_string(Writer *out, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    writer_char(out, '\"');
    for (const unsigned char *c = (const unsigned char *)s; *c;) {
        const unsigned char *run = c;
        while (*c >= 0x20 && *c < 0x7f && *c != '"' && *c != '\\')
            c++;
        writer_bytes(out, (const char *)run, (size_t)(c - run));
        if (*c == '"' || *c == '\\') {
            writer_bytes(out, (const char[]){'\\', (char)*c}, 2);
            c++;
        } else if (*c) {
            writer_bytes(out, (const char[]){'\\', hex[*c >> 4], hex[*c & 15]}, 3);
            c++;
        }
    }
    writer_char(out, '\"');
}

/* ---- kept text -------------------------------------------------------------- */

/* A module's values share a few distinct shardings and types: each is
 * printed once and its text copied for every equal one after (printing
 * them was a sixth and another sixth of printing MLIR). */
static uint64_t hash_mix(uint64_t h, uint64_t x) { return (h ^ x) * 1099511628211ull; }

static MlirKeptText *kept_text_slot(const MlirTextCache *c, const void *key, uint64_t hash)
{
    size_t mask = (size_t)c->cap - 1;
    size_t i = (size_t)hash & mask;
    while (c->slots[i].key &&
           !(c->slots[i].hash == hash && (c->equal ? c->equal(c->slots[i].key, key) : c->slots[i].key == key)))
        i = (i + 1) & mask;
    return &c->slots[i];
}

static void grow_text_cache(MlirPrinter *p, MlirTextCache *c)
{
    MlirKeptText *old = c->slots;
    int old_cap = c->cap;
    c->cap = old_cap ? old_cap * 2 : 64;
    c->slots = ARENA_ARRAY(&p->arena, MlirKeptText, c->cap);
    for (int i = 0; i < old_cap; i++)
        if (old[i].key)
            *kept_text_slot(c, old[i].key, old[i].hash) = old[i];
}

/* The slot of key: its text when kept->key is set, else the free slot
 * for keep_text. */
static MlirKeptText *find_text(MlirPrinter *p, MlirTextCache *c, const void *key, uint64_t hash)
{
    if ((c->count + 1) * 2 > c->cap)
        grow_text_cache(p, c);
    return kept_text_slot(c, key, hash);
}

/* Writes the text kept for key; false (*slot: where to keep it) if none is. */
static bool print_kept(MlirPrinter *p, MlirTextCache *c, const void *key, uint64_t hash, MlirKeptText **slot)
{
    MlirKeptText *kept = find_text(p, c, key, hash);
    if (!kept->key) {
        *slot = kept;
        return false;
    }
    writer_bytes(p->out, kept->text, kept->len);
    return true;
}

/* Keeps what was written since mark as the text of key (which must
 * outlive the printer), unless a flush came between: kept the next time. */
static void keep_text(MlirPrinter *p, MlirTextCache *c, MlirKeptText *slot, const void *key, uint64_t hash,
                      WriterMark mark)
{
    size_t n;
    const char *text = writer_since(p->out, mark, &n);
    if (!text)
        return;
    char *copy = ARENA_ARRAY_UNINIT(&p->arena, char, n + 1);
    memcpy(copy, text, n);
    *slot = (MlirKeptText){key, hash, copy, n};
    c->count++;
}

static MlirTextMemo *memo_slot(MlirTextCache *c, const void *address)
{
    return &c->memo[((uintptr_t)address >> 4) & (MLIR_TEXT_MEMO - 1)];
}

/* Writes the text memoized for (address, tag); false if none is. */
static bool print_memoized(MlirPrinter *p, MlirTextCache *c, const void *address, int tag)
{
    const MlirTextMemo *m = memo_slot(c, address);
    if (!address || m->address != address || m->tag != tag)
        return false;
    writer_bytes(p->out, m->text, m->len);
    return true;
}

static void memoize(MlirTextCache *c, const void *address, int tag, const MlirKeptText *kept)
{
    if (address && kept->key)
        *memo_slot(c, address) = (MlirTextMemo){address, tag, kept->text, kept->len};
}

static bool shardings_equal(const void *a, const void *b) { return sharding_equal(a, b); }
static bool types_equal(const void *a, const void *b) { return type_equal(a, b); }

void mlir_text_caches_init(MlirPrinter *p)
{
    p->sharding_texts.equal = shardings_equal;
    p->type_texts.equal = types_equal;
}

/* ---- types ---------------------------------------------------------------- */

static void print_type_text(Writer *out, const TensorType *t)
{
    if (t->dtype == DT_TOKEN) {
        writer_str(out, dtype_mlir_name(DT_TOKEN));
        return;
    }
    writer_str(out, t->rank == SHARDC_UNRANKED ? "tensor<*x" : "tensor<");
    for (int i = 0; i < t->rank; i++) {
        if (t->dims[i] == TYPE_DYNAMIC_DIM)
            writer_char(out, '?');
        else
            writer_int(out, (long long)t->dims[i]);
        writer_char(out, 'x');
    }
    writer_str(out, dtype_mlir_name(t->dtype));
    writer_char(out, '>');
}

static uint64_t type_hash(const TensorType *t)
{
    uint64_t h = hash_mix(hash_mix(1469598103934665603ull, (uint64_t)t->dtype), (uint64_t)t->rank);
    for (int i = 0; i < t->rank; i++)
        h = hash_mix(h, (uint64_t)t->dims[i]);
    return h;
}

/* Memoized by its dims array (a scalar's is NULL: hashed), which the
 * module's arena keeps unchanged while printing. */
void mlir_print_type(MlirPrinter *p, const TensorType *t)
{
    int tag = (int)t->dtype * (SHARDC_MAX_RANK + 1) + t->rank;
    if (print_memoized(p, &p->type_texts, t->dims, tag))
        return;
    uint64_t hash = type_hash(t);
    MlirKeptText *kept = find_text(p, &p->type_texts, t, hash);
    if (kept->key) {
        writer_bytes(p->out, kept->text, kept->len);
    } else {
        WriterMark mark = writer_mark(p->out);
        print_type_text(p->out, t);
        TensorType *key = ARENA_NEW(&p->arena, TensorType); /* t may be a caller's copy */
        *key = *t;
        keep_text(p, &p->type_texts, kept, key, hash, mark);
    }
    memoize(&p->type_texts, t->dims, tag, kept);
}

static void print_types(MlirPrinter *p, const MlirVal *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (i)
            writer_str(p->out, ", ");
        mlir_print_type(p, &v[i].type);
    }
}

void mlir_print_fn_type(MlirPrinter *p, const MlirVal *in, int n_in, const MlirVal *res, int n_res)
{
    writer_char(p->out, '(');
    print_types(p, in, n_in);
    writer_str(p->out, ") -> ");
    if (n_res != 1)
        writer_char(p->out, '(');
    print_types(p, res, n_res);
    if (n_res != 1)
        writer_char(p->out, ')');
}

/* Types of one shape share their dims (the readers share them per shape):
 * comparing those first spares most of the calls. */
static bool same_type(const TensorType *a, const TensorType *b)
{
    if (a->dims == b->dims && a->rank == b->rank)
        return a->dtype == b->dtype;
    return type_equal(a, b);
}

void mlir_print_same_type(MlirPrinter *p, const MlirVal *in, int n_in, const MlirVal *res)
{
    bool same = true;
    for (int i = 0; i < n_in; i++)
        same &= same_type(&in[i].type, &res->type);
    writer_str(p->out, " : ");
    if (same)
        mlir_print_type(p, &res->type);
    else
        mlir_print_fn_type(p, in, n_in, res, 1);
}

void mlir_print_ints(Writer *out, const int64_t *v, int n)
{
    writer_char(out, '[');
    for (int i = 0; i < n; i++) {
        if (i)
            writer_str(out, ", ");
        writer_int(out, (long long)v[i]);
    }
    writer_char(out, ']');
}

/* ---- floats ----------------------------------------------------------------- */

/* v rounded to a float type's precision (round to nearest even; the
 * 16-bit types' range limits are not modelled). */
static double round_to(double v, DType dt)
{
    size_t size = dtype_size(dt);
    if (size >= 8 || !isfinite(v) || v == 0)
        return v;
    if (size == 4)
        return (float)v;
    int bits = strcmp(dtype_name(dt), "bf16") == 0 ? 8 : 11, e;
    double m = frexp(v, &e);
    return ldexp(nearbyint(ldexp(m, bits)), e - bits);
}

/* The bits of a float of type dt, for MLIR's hex form. */
static unsigned long long float_bits(double v, DType dt)
{
    size_t size = dtype_size(dt);
    if (size >= 8) {
        unsigned long long u;
        memcpy(&u, &v, sizeof u);
        return u;
    }
    float f = (float)v;
    unsigned int u;
    memcpy(&u, &f, sizeof u);
    if (size == 4)
        return u;
    if (strcmp(dtype_name(dt), "bf16") == 0)
        return u >> 16;
    unsigned int sign = (u >> 16) & 0x8000; /* f16: only the specials reach here */
    return sign | (isnan(v) ? 0x7E00 : 0x7C00);
}

static bool reads_back(const char *text, double want, DType dt)
{
    double got = round_to(strtod(text, NULL), dt);
    return memcmp(&got, &want, sizeof got) == 0;
}

static int mantissa_bits(DType dt)
{
    size_t size = dtype_size(dt);
    return size >= 8 ? 53 : size == 4 ? 24 : strcmp(dtype_name(dt), "bf16") == 0 ? 8 : 11;
}

/* APFloat::toString's default form: 2 + bits * 59 / 196 significant
 * digits, trailing zeros dropped; scientific (`1.5E+20`) when plain
 * notation would need more than 3 padding zeros or more digits than
 * that, else plain (`1234.5`, `0.00123`, or `123456792`, with no '.'). */
static void apfloat_default(char *out, double v, DType dt)
{
    int prec = 2 + mantissa_bits(dt) * 59 / 196, e10;
    char sci[64], digits[32];
    snprintf(sci, sizeof sci, "%.*e", prec - 1, fabs(v));
    int nd = 0;
    for (const char *c = sci; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9')
            digits[nd++] = *c;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = 0;
    e10 = atoi(strchr(sci, 'e') + 1);
    int exp = e10 - (nd - 1); /* the power of ten of the last digit */
    bool scientific = exp >= 0 ? exp > 3 || nd + exp > prec : e10 < 0 && -e10 > 3;
    char *o = out; /* 64 bytes: at most 17 digits, 3 zeros, sign, point, exponent */
    if (v < 0)
        *o++ = '-';
    if (scientific) {
        sprintf(o, "%c.%sE%c%d", digits[0], nd > 1 ? digits + 1 : "0", e10 < 0 ? '-' : '+', e10 < 0 ? -e10 : e10);
    } else if (exp >= 0) {
        o += sprintf(o, "%s", digits);
        for (int i = 0; i < exp; i++)
            *o++ = '0';
        *o = 0;
    } else if (e10 >= 0) {
        sprintf(o, "%.*s.%s", e10 + 1, digits, digits + e10 + 1);
    } else {
        o += sprintf(o, "0.");
        for (int i = 0; i < -e10 - 1; i++)
            *o++ = '0';
        strcpy(o, digits);
    }
}

/* `0x7FC00000`: printf's "0x%llX" without printf (a max reduction's
 * identity, -inf, is printed so for every reduce). */
static void print_hex(Writer *out, unsigned long long bits)
{
    char text[2 + 16];
    int n = 0;
    do
        text[sizeof text - 1 - n++] = "0123456789ABCDEF"[bits & 15];
    while ((bits >>= 4) && n < 16);
    text[sizeof text - 1 - n++] = 'x';
    text[sizeof text - 1 - n++] = '0';
    writer_bytes(out, text + sizeof text - n, (size_t)n);
}

/* MLIR's printFloatValue: APFloat::toString(6, 0, false) -- six
 * significant digits, padded with a zero to six decimals (`1.000000e+00`,
 * `1.000980e-01`) -- if that reads back exactly, else APFloat's default
 * form if it has a '.', else the hex bits (inf, nan, large integers). */
void mlir_print_float(Writer *out, double v, DType dt)
{
    char buf[64];
    v = round_to(v, dt);
    if (v == 0) { /* what the rest gives for zero (a reduction's identity), without printf and strtod */
        writer_str(out, signbit(v) ? "-0.000000e+00" : "0.000000e+00");
        return;
    }
    if (isfinite(v)) {
        snprintf(buf, sizeof buf, "%.5e", v);
        char *e = strchr(buf, 'e');
        memmove(e + 1, e, strlen(e) + 1);
        *e = '0';
        if (reads_back(buf, v, dt)) {
            writer_str(out, buf);
            return;
        }
        apfloat_default(buf, v, dt);
        if (strchr(buf, '.')) {
            writer_str(out, buf);
            return;
        }
    }
    print_hex(out, float_bits(v, dt));
}

/* ---- dense constants ------------------------------------------------------------- */

typedef struct Leaves {
    int64_t count, max;
    const AttrValue **items;
} Leaves;

static void collect_leaves(const AttrValue *v, Leaves *l)
{
    if (v->kind == ATTR_ARRAY) {
        for (int i = 0; i < v->u.array.count; i++)
            collect_leaves(v->u.array.items[i], l);
    } else if (l->count < l->max) {
        l->items[l->count++] = v;
    } else {
        l->count++;
    }
}

static double leaf_float(const AttrValue *v)
{
    return v->kind == ATTR_FLOAT ? v->u.f : v->kind == ATTR_BOOL ? v->u.b : (double)v->u.i;
}

static int64_t leaf_int(const AttrValue *v)
{
    return v->kind == ATTR_INT ? v->u.i : v->kind == ATTR_BOOL ? v->u.b : (int64_t)v->u.f;
}

static bool leaves_equal(const AttrValue *a, const AttrValue *b, DType dt)
{
    dt = dtype_complex_part(dt);
    if (dtype_is_float(dt)) {
        double x = round_to(leaf_float(a), dt), y = round_to(leaf_float(b), dt);
        return memcmp(&x, &y, sizeof x) == 0;
    }
    return leaf_int(a) == leaf_int(b);
}

static void print_leaf(Writer *out, const AttrValue *v, DType dt)
{
    if (dtype_is_complex(dt)) { /* MLIR's (re,im); an IR constant's imaginary parts are 0 */
        writer_char(out, '(');
        mlir_print_float(out, leaf_float(v), dtype_complex_part(dt));
        writer_char(out, ',');
        mlir_print_float(out, 0.0, dtype_complex_part(dt));
        writer_char(out, ')');
    } else if (dtype_is_float(dt))
        mlir_print_float(out, leaf_float(v), dt);
    else if (dt == DT_BOOL)
        writer_str(out, leaf_int(v) ? "true" : "false");
    else
        writer_printf(out, "%lld", (long long)leaf_int(v));
}

/* Nested lists over dims [d, rank), from leaf *next on. */
static void print_nested(Writer *out, const Leaves *l, const TensorType *t, int d, int64_t *next)
{
    if (d == t->rank) {
        print_leaf(out, l->items[(*next)++], t->dtype);
        return;
    }
    writer_char(out, '[');
    for (int64_t i = 0; i < t->dims[d]; i++) {
        if (i)
            writer_str(out, ", ");
        print_nested(out, l, t, d + 1, next);
    }
    writer_char(out, ']');
}

/* MLIR prints a constant whose elements are all equal as a splat. */
void mlir_print_dense(Writer *out, const AttrValue *v, const TensorType *t)
{
    int64_t n = 1;
    type_num_elements(t, &n);
    /* As many slots as the value has leaves (one for a splat of any
     * size), never one per element of its type. */
    Leaves count = {0, 0, NULL};
    collect_leaves(v, &count);
    int64_t slots = count.count < n ? count.count : n;
    const AttrValue **items = malloc(sizeof *items * (size_t)(slots + 1));
    if (!items)
        arena_out_of_memory();
    Leaves l = {0, slots + 1, items};
    collect_leaves(v, &l);
    bool splat = l.count >= 1 && n > 0;
    for (int64_t i = 1; splat && i < l.count; i++)
        splat = leaves_equal(items[0], items[i], t->dtype);
    writer_str(out, "dense<");
    if (splat) {
        print_leaf(out, items[0], t->dtype);
    } else if (l.count == n && n > 0) {
        int64_t next = 0;
        print_nested(out, &l, t, 0, &next);
    }
    writer_str(out, "> : ");
    print_type_text(out, t);
    free(items);
}

void mlir_print_dense_scalar(Writer *out, const AttrValue *v, DType dt)
{
    TensorType t = {dt, 0, NULL};
    mlir_print_dense(out, v, &t);
}

void mlir_print_dense_i64(Writer *out, const int64_t *v, int64_t rows, int64_t cols)
{
    bool splat = true;
    for (int64_t i = 1; splat && i < rows * cols; i++)
        splat = v[i] == v[0];
    writer_str(out, "dense<");
    if (splat) {
        writer_printf(out, "%lld", (long long)v[0]);
    } else {
        writer_char(out, '[');
        for (int64_t r = 0; r < rows; r++) {
            writer_str(out, r ? ", " : "");
            mlir_print_ints(out, v + r * cols, (int)cols);
        }
        writer_char(out, ']');
    }
    writer_printf(out, "> : tensor<%lldx%lldxi64>", (long long)rows, (long long)cols);
}

/* ---- meshes and shardings ------------------------------------------------------- */

static bool is_iota(const Mesh *mesh)
{
    for (int64_t i = 0; mesh->device_ids && i < mesh->num_devices; i++)
        if (mesh->device_ids[i] != i)
            return false;
    return true;
}

/* device_ids print when they are not the row-major order, and always on
 * a mesh of no axes (`<[], device_ids=[0]>`, a maximal mesh). */
void mlir_print_mesh_literal(Writer *out, const Mesh *mesh)
{
    writer_str(out, "<[");
    for (int k = 0; k < mesh->num_axes; k++) {
        writer_str(out, k ? ", " : "");
        mlir_print_string(out, mesh->axes[k].name);
        writer_printf(out, "=%lld", (long long)mesh->axes[k].size);
    }
    writer_char(out, ']');
    if (mesh->device_ids && (!mesh->num_axes || !is_iota(mesh))) {
        writer_str(out, ", device_ids=");
        mlir_print_ints(out, mesh->device_ids, (int)mesh->num_devices);
    }
    writer_char(out, '>');
}

void mlir_print_axes(Writer *out, const Mesh *mesh, const AxisRef *axes, int n)
{
    for (int k = 0; k < n; k++) {
        if (k)
            writer_str(out, ", ");
        mlir_print_string(out, mesh->axes[axes[k].axis].name);
        if (!axis_ref_is_full(mesh, axes[k])) {
            writer_str(out, ":(");
            writer_int(out, (long long)axes[k].pre_size);
            writer_char(out, ')');
            writer_int(out, (long long)axes[k].size);
        }
    }
}

static bool module_mesh(const MlirPrinter *p, const Mesh *mesh)
{
    for (int i = 0; i < p->m->num_meshes; i++)
        if (p->m->meshes[i] == mesh)
            return mesh->name != NULL;
    return false;
}

static void print_mesh_ref(MlirPrinter *p, const Mesh *mesh)
{
    if (module_mesh(p, mesh)) {
        writer_char(p->out, '@');
        writer_str(p->out, mesh->name);
    } else {
        writer_str(p->out, "mesh");
        mlir_print_mesh_literal(p->out, mesh);
    }
}

/* sdy's DimensionShardingAttr: {"a", ?}, {?}, {}, then a priority p<N>. */
static void print_dims(Writer *out, const Sharding *s)
{
    /* A maximal mesh has no axes to shard along: sdy writes its shardings
     * `[]` whatever the rank (the importer gives them closed dims). */
    bool maximal = s->mesh->num_axes == 0 && s->mesh->device_ids;
    for (int d = 0; d < s->rank && !maximal; d++) {
        const DimSharding *dim = &s->dims[d];
        writer_str(out, d ? ", {" : "{");
        mlir_print_axes(out, s->mesh, dim->axes, dim->num_axes);
        if (!dim->is_closed)
            writer_str(out, dim->num_axes ? ", ?" : "?");
        writer_char(out, '}');
        if (dim->priority != PRIORITY_NONE) {
            writer_char(out, 'p');
            writer_int(out, dim->priority);
        }
    }
}

/* `<@mesh, [...]...>` */
static void print_tensor_sharding(MlirPrinter *p, const Sharding *s)
{
    Writer *out = p->out;
    if (module_mesh(p, s->mesh)) {
        writer_str(out, "<@");
        writer_str(out, s->mesh->name);
    } else {
        writer_char(out, '<');
        print_mesh_ref(p, s->mesh);
    }
    writer_str(out, ", [");
    print_dims(out, s);
    writer_char(out, ']');
    if (s->num_replicated) {
        writer_str(out, ", replicated={");
        mlir_print_axes(out, s->mesh, s->replicated, s->num_replicated);
        writer_char(out, '}');
    }
    if (s->num_unreduced) {
        writer_str(out, ", unreduced=");
        writer_str(out, s->unreduced_op == UNREDUCED_SUM ? "" : sharding_unreduced_op_name(s->unreduced_op));
        writer_char(out, '{');
        mlir_print_axes(out, s->mesh, s->unreduced, s->num_unreduced);
        writer_char(out, '}');
    }
    writer_char(out, '>');
}

/* A common sharding -- whole axes (fewer than 15 in the mesh), no
 * priorities, no replicated or unreduced axes -- has an exact code: a 1,
 * then a 4-bit symbol for each axis (its index + 1) and for each dim's end
 * (0 closed, 15 open), at most 15 symbols. Its text is found by mesh and
 * code: reading a value's sharding costs no sharding_hash and no
 * sharding_equal (they were a tenth of printing, equal shardings seldom
 * sharing an address). 0: not a common one. */
static uint64_t sharding_code(const Sharding *s)
{
    if (s->num_replicated || s->num_unreduced)
        return 0;
    uint64_t code = 1;
    int symbols = 0;
    for (int d = 0; d < s->rank; d++) {
        const DimSharding *dim = &s->dims[d];
        symbols += dim->num_axes + 1;
        if (dim->priority != PRIORITY_NONE || symbols > 15)
            return 0;
        for (const AxisRef *r = dim->axes; r && r < dim->axes + dim->num_axes; r++) { /* axes NULL: none */
            /* axis_ref_is_full, without copying the AxisRef into a call */
            if (r->axis >= 14 || r->pre_size != 1 || r->size != s->mesh->axes[r->axis].size)
                return 0;
            code = code << 4 | (uint64_t)(r->axis + 1);
        }
        code = code << 4 | (dim->is_closed ? 0u : 15u);
    }
    return code;
}

/* splitmix64's finalizer: a bijection, so the mixed code stays exact. */
static uint64_t mix_code(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void mlir_print_tensor_sharding(MlirPrinter *p, const Sharding *s)
{
    uint64_t code = sharding_code(s);
    MlirTextCache *c = code ? &p->sharding_codes : &p->sharding_texts;
    const void *key = code ? (const void *)s->mesh : s;
    uint64_t hash = code ? mix_code(code) : sharding_hash(s);
    MlirKeptText *slot;
    if (print_kept(p, c, key, hash, &slot))
        return;
    WriterMark mark = writer_mark(p->out);
    print_tensor_sharding(p, s);
    keep_text(p, c, slot, key, hash, mark);
}

void mlir_print_open_sharding(MlirPrinter *p, const Mesh *mesh, int rank)
{
    writer_char(p->out, '<');
    print_mesh_ref(p, mesh);
    writer_str(p->out, ", [");
    for (int d = 0; d < rank; d++)
        writer_str(p->out, d ? ", {?}" : "{?}");
    writer_str(p->out, "]>");
}

static void print_closed_sharding(MlirPrinter *p, const Mesh *mesh, int rank)
{
    writer_char(p->out, '<');
    print_mesh_ref(p, mesh);
    writer_str(p->out, ", [");
    for (int d = 0; d < rank; d++)
        writer_str(p->out, d ? ", {}" : "{}");
    writer_str(p->out, "]>");
}

/* #sdy.sharding_per_value of an op's results; a result with no sharding
 * is fully open on the mesh of the others (read from MLIR, where sdy_opt
 * gives such results a closed replicated sharding: fully closed). */
static void print_result_shardings(MlirPrinter *p, const Op *op)
{
    Writer *out = p->out;
    const Mesh *mesh = NULL;
    for (int i = 0; i < op->num_results && !mesh; i++)
        if (op->results[i]->sharding)
            mesh = op->results[i]->sharding->mesh;
    writer_str(out, "#sdy.sharding_per_value<[");
    for (int i = 0; i < op->num_results; i++) {
        const Value *r = op->results[i];
        if (i)
            writer_str(out, ", ");
        if (r->sharding) {
            mlir_print_tensor_sharding(p, r->sharding);
            continue;
        }
        if (p->renumber)
            print_closed_sharding(p, mesh, r->type.rank);
        else
            mlir_print_open_sharding(p, mesh, r->type.rank);
    }
    writer_str(out, "]>");
}

/* ---- attribute values ------------------------------------------------------------ */

static void print_string_list(Writer *out, const AttrValue *v)
{
    writer_char(out, '[');
    for (int i = 0; v->kind == ATTR_ARRAY && i < v->u.array.count; i++) {
        const AttrValue *item = v->u.array.items[i];
        writer_str(out, i ? ", " : "");
        mlir_print_string(out, item->kind == ATTR_STRING ? item->u.s : "");
    }
    writer_char(out, ']');
}

static void print_generic_value(MlirPrinter *p, const AttrValue *v, DType dt);

static void print_dict(MlirPrinter *p, const AttrValue *v)
{
    writer_char(p->out, '{');
    for (int i = 0; i < v->u.dict.count; i++) {
        writer_str(p->out, i ? ", " : "");
        writer_str(p->out, v->u.dict.items[i].name);
        writer_str(p->out, " = ");
        print_generic_value(p, v->u.dict.items[i].value, DT_I64);
    }
    writer_char(p->out, '}');
}

/* A value by its own kind: numbers typed as dt (i64 where nothing says). */
static void print_generic_value(MlirPrinter *p, const AttrValue *v, DType dt)
{
    Writer *out = p->out;
    dt = dtype_complex_part(dt); /* a complex full's value: its real part */
    switch (v->kind) {
    case ATTR_INT:
        if (dtype_is_float(dt))
            mlir_print_float(out, (double)v->u.i, dt);
        else
            writer_int(out, (long long)v->u.i);
        writer_str(out, " : ");
        writer_str(out, dtype_mlir_name(dt == DT_BOOL ? DT_I64 : dt));
        break;
    case ATTR_FLOAT:
        mlir_print_float(out, v->u.f, dtype_is_float(dt) ? dt : DT_F64);
        writer_str(out, " : ");
        writer_str(out, dtype_mlir_name(dtype_is_float(dt) ? dt : DT_F64));
        break;
    case ATTR_BOOL: writer_str(out, v->u.b ? "true" : "false"); break;
    case ATTR_STRING: mlir_print_string(out, v->u.s); break;
    case ATTR_SYMBOL: writer_char(out, '@'); writer_str(out, v->u.s); break;
    case ATTR_SHARDING:
        writer_str(out, "#sdy.sharding");
        mlir_print_tensor_sharding(p, v->u.sharding);
        break;
    case ATTR_DICT: print_dict(p, v); break;
    case ATTR_ARRAY:
        writer_char(out, '[');
        for (int i = 0; i < v->u.array.count; i++) {
            writer_str(out, i ? ", " : "");
            print_generic_value(p, v->u.array.items[i], dt);
        }
        writer_char(out, ']');
        break;
    }
}

static void print_int_array(Writer *out, const AttrValue *v)
{
    int64_t ints[SHARDC_MAX_RANK];
    int n = attr_int_array(v, ints, SHARDC_MAX_RANK);
    writer_str(out, "array<i64");
    for (int i = 0; i < n; i++) {
        writer_str(out, i ? ", " : ": ");
        writer_int(out, (long long)ints[i]);
    }
    writer_char(out, '>');
}

static void print_shardings_value(MlirPrinter *p, const AttrValue *v)
{
    writer_str(p->out, "#sdy.sharding_per_value<[");
    for (int i = 0; v->kind == ATTR_ARRAY && i < v->u.array.count; i++) {
        const AttrValue *item = v->u.array.items[i];
        writer_str(p->out, i ? ", " : "");
        if (item->kind == ATTR_SHARDING)
            mlir_print_tensor_sharding(p, item->u.sharding);
    }
    writer_str(p->out, "]>");
}

/* The op's attribute in MLIR syntax, as ops.def types it: INT `3 : i64`,
 * INTS `array<i64: 0, 1>`, AXES and NAMES string lists, TENSOR a dense
 * constant of the result type, SCALAR a number of the result's element
 * type, SHARDING(S) sdy attributes, PAIRS nested lists, SIZES a
 * dictionary. */
void mlir_print_attr_value(MlirPrinter *p, const Op *op, const NamedAttr *a)
{
    const OpAttrSpec *spec = op_attr_spec(op->kind, a->key);
    const TensorType *res = op->num_results ? &op->results[0]->type : NULL;
    DType dt = res ? res->dtype : DT_F32;
    switch (spec ? spec->type : ATYPE_COUNT) {
    case ATYPE_INTS: print_int_array(p->out, a->value); return;
    case ATYPE_AXES:
    case ATYPE_NAMES: print_string_list(p->out, a->value); return;
    case ATYPE_TENSOR:
        if (res) {
            mlir_print_dense(p->out, a->value, res);
            return;
        }
        break;
    case ATYPE_SCALAR: print_generic_value(p, a->value, dt); return;
    case ATYPE_SHARDINGS: print_shardings_value(p, a->value); return;
    default: break;
    }
    print_generic_value(p, a->value, DT_I64);
}

/* ---- attribute dictionaries ------------------------------------------------------- */

void mlir_attrs_init(MlirAttrList *l, MlirPrinter *p, const Op *op)
{
    l->p = p;
    l->op = op;
    l->count = 0;
    l->cap = MLIR_ATTR_INLINE;
    l->items = l->inline_items;
}

void mlir_attrs_grow(MlirAttrList *l)
{
    MlirAttrItem *grown = ARENA_ARRAY(&l->p->arena, MlirAttrItem, l->cap * 2);
    memcpy(grown, l->items, sizeof *grown * (size_t)l->count);
    l->items = grown;
    l->cap *= 2;
}

void mlir_attrs_add_kept(MlirAttrList *l, const MlirKeptAttrs *kept)
{
    for (int i = 0; kept && i < kept->count; i++)
        mlir_attrs_add(l, kept->items[i].name, kept->items[i].text ? MLIR_ITEM_KEPT : MLIR_ITEM_UNIT,
                       &kept->items[i]);
}

/* `name = value` (`name` alone for a unit attribute). */
static void print_item(MlirAttrList *l, const MlirAttrItem *it)
{
    Writer *out = l->p->out;
    writer_str(out, it->name);
    if (it->kind == MLIR_ITEM_UNIT)
        return;
    writer_str(out, " = ");
    switch (it->kind) {
    case MLIR_ITEM_SHARDING:
        writer_str(out, "#sdy.sharding");
        mlir_print_tensor_sharding(l->p, it->ptr);
        break;
    case MLIR_ITEM_SHARDINGS: print_result_shardings(l->p, it->ptr); break;
    case MLIR_ITEM_KEPT: writer_str(out, ((const MlirKeptAttr *)it->ptr)->text); break;
    case MLIR_ITEM_RULE: rule_print_sdy(writer_stream(out), it->ptr); break;
    case MLIR_ITEM_LOGICAL: {
        const LogicalAxes *names = it->ptr;
        writer_char(out, '[');
        for (int d = 0; d < names->rank; d++) {
            writer_str(out, d ? ", " : "");
            mlir_print_string(out, names->names[d]);
        }
        writer_char(out, ']');
        break;
    }
    case MLIR_ITEM_OP_ATTR: mlir_print_attr_value(l->p, l->op, it->ptr); break;
    case MLIR_ITEM_STRING: mlir_print_string(out, it->ptr); break;
    case MLIR_ITEM_SYMBOL: writer_char(out, '@'); writer_str(out, it->ptr); break;
    case MLIR_ITEM_UNIT: break; /* written above */
    }
}

const char mlir_sdy_sharding[] = "sdy.sharding";

/* The sharding of a dict that is one sdy.sharding item of a common
 * sharding (of a value, or of an op of one result), else NULL. */
static const Sharding *lone_sharding(const MlirAttrList *l)
{
    const MlirAttrItem *it = &l->items[0];
    if (l->count != 1 || it->name != mlir_sdy_sharding) /* (count first: items[0] may be unset) */
        return NULL;
    if (it->kind == MLIR_ITEM_SHARDING)
        return it->ptr;
    const Op *op = it->ptr;
    return it->kind == MLIR_ITEM_SHARDINGS && op->num_results == 1 ? op->results[0]->sharding : NULL;
}

/* Sorted by name (a stable insertion sort: the lists are short, and of
 * two items of one name the first added wins). The dict of most values
 * and ops, ` {sdy.sharding = #sdy.sharding<...>}` and ` {sdy.sharding =
 * #sdy.sharding_per_value<[...]>}` of a common sharding, is printed once
 * and copied after, kept by the sharding's code. */
void mlir_attrs_print(MlirAttrList *l)
{
    const Sharding *s = lone_sharding(l);
    uint64_t code = s ? sharding_code(s) : 0;
    if (!code) {
        mlir_attrs_print_in(l, " {", "}");
        return;
    }
    MlirPrinter *p = l->p;
    MlirTextCache *c = l->items[0].kind == MLIR_ITEM_SHARDING ? &p->value_dicts : &p->op_dicts;
    uint64_t hash = mix_code(code);
    MlirKeptText *slot;
    if (print_kept(p, c, s->mesh, hash, &slot))
        return;
    WriterMark mark = writer_mark(p->out);
    mlir_attrs_print_in(l, " {", "}");
    keep_text(p, c, slot, s->mesh, hash, mark);
}

void mlir_attrs_print_in(MlirAttrList *l, const char *open, const char *close)
{
    for (int i = 1; i < l->count; i++) {
        MlirAttrItem it = l->items[i];
        int j = i;
        for (; j > 0 && strcmp(l->items[j - 1].name, it.name) > 0; j--)
            l->items[j] = l->items[j - 1];
        l->items[j] = it;
    }
    if (!l->count)
        return;
    writer_str(l->p->out, open);
    for (int i = 0; i < l->count; i++) {
        if (i && strcmp(l->items[i - 1].name, l->items[i].name) == 0)
            continue;
        if (i)
            writer_str(l->p->out, ", ");
        print_item(l, &l->items[i]);
    }
    writer_str(l->p->out, close);
}

static bool is_consumed(const AttrKey *consumed, AttrKey key)
{
    for (; consumed && *consumed != ATTR_KEY_NONE; consumed++)
        if (*consumed == key)
            return true;
    return false;
}

static bool is_skipped(const char *const *names, const char *name)
{
    for (; names && *names; names++)
        if (strcmp(*names, name) == 0)
            return true;
    return false;
}

void mlir_print_op_attrs(MlirPrinter *p, const Op *op, const MlirAttrOpts *opts)
{
    MlirAttrList l;
    mlir_attrs_init(&l, p, op);
    bool sharded = false;
    for (int i = 0; i < op->num_results; i++)
        sharded |= op->results[i]->sharding != NULL;
    if (sharded && !opts->no_shardings)
        mlir_attrs_add(&l, mlir_sdy_sharding, MLIR_ITEM_SHARDINGS, op);
    if (opts->rule)
        mlir_attrs_add(&l, "sdy.sharding_rule", MLIR_ITEM_RULE, opts->rule);
    for (int i = 0; i < op->num_attrs; i++) {
        const NamedAttr *a = &op->attrs[i];
        const OpAttrSpec *spec = op_attr_spec(op->kind, a->key);
        if (is_consumed(opts->consumed, a->key) || (spec && spec->presence == ATTR_ANNOTATION))
            continue;
        const char *name = a->name;
        if (!opts->generic) {
            char buf[128];
            snprintf(buf, sizeof buf, "shardc.%.100s", a->name);
            name = arena_strdup(&p->arena, buf);
        }
        mlir_attrs_add(&l, name, MLIR_ITEM_OP_ATTR, a);
    }
    for (int i = 0; op->mlir && i < op->mlir->attrs.count; i++) {
        const MlirKeptAttr *a = &op->mlir->attrs.items[i];
        if (!is_skipped(opts->skip_kept, a->name))
            mlir_attrs_add(&l, a->name, a->text ? MLIR_ITEM_KEPT : MLIR_ITEM_UNIT, a);
    }
    if (opts->generic && op->str)
        mlir_attrs_add(&l, "spec", MLIR_ITEM_STRING, op->str);
    if (opts->generic && op->callee && !opts->no_callee)
        mlir_attrs_add(&l, "callee", MLIR_ITEM_SYMBOL, op->callee);
    for (const MlirKeptAttr *e = opts->extra; e && e->name; e++)
        mlir_attrs_add(&l, e->name, MLIR_ITEM_KEPT, e);
    if (opts->open)
        mlir_attrs_print_in(&l, opts->open, "}");
    else
        mlir_attrs_print(&l);
}

void mlir_print_marker(MlirPrinter *p, const char *marker)
{
    writer_printf(p->out, " {%s}", marker);
}
