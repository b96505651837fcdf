/* Showing values: arrays printed the way NumPy's str() prints them, and
 * device layouts drawn the way jax.debug.visualize_array_sharding draws
 * them.
 *
 * The array printer follows numpy/core/arrayprint.py (NumPy >= 1.14
 * defaults: precision 8, floatmode 'maxprec', linewidth 75, threshold
 * 1000, edgeitems 3): one element format is chosen for the whole array
 * from the elements shown, then _formatArray's recursion lays out the
 * brackets, separators and line wrapping. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/interp.h"
#include "shardc/layout.h"

enum { LINE_WIDTH = 75, SUMMARY_THRESHOLD = 1000, EDGE_ITEMS = 3, PRECISION = 8, NUM_TEXT = 64 };

/* ---- growable strings ------------------------------------------------------------- */

typedef struct StrBuf {
    char *data;
    size_t len, cap;
} StrBuf;

static void sb_append_n(StrBuf *sb, const char *s, size_t n)
{
    if (sb->len + n + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 64;
        while (cap < sb->len + n + 1)
            cap *= 2;
        char *data = realloc(sb->data, cap);
        if (!data)
            arena_out_of_memory(); /* printing a result cannot fail halfway sensibly */
        sb->data = data;
        sb->cap = cap;
    }
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

static void sb_append(StrBuf *sb, const char *s)
{
    sb_append_n(sb, s, strlen(s));
}

static void sb_repeat(StrBuf *sb, const char *s, int times)
{
    for (int i = 0; i < times; i++)
        sb_append(sb, s);
}

static const char *sb_str(const StrBuf *sb)
{
    return sb->data ? sb->data : "";
}

/* ---- shortest round-trip digits ---------------------------------------------------- */

/* Whether text reads back as v in t's element type. */
static bool round_trips(const char *text, double v, DType dtype)
{
    double back = strtod(text, NULL);
    if (dtype == DT_F32)
        return (float)back == (float)v;
    if (dtype == DT_BF16)
        return f32_to_bf16((float)back) == f32_to_bf16((float)v);
    if (dtype == DT_F16)
        return f64_to_f16(back) == f64_to_f16(v);
    return back == v;
}

/* "d.ddde+XX" -> the digits without the point or trailing zeros, and XX. */
static void e_notation_digits(const char *text, char *digits, int *exp10)
{
    const char *e = strchr(text, 'e');
    *exp10 = atoi(e + 1);
    int n = 0;
    for (const char *p = text; p < e; p++)
        if (*p != '.')
            digits[n++] = *p;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
}

/* The shortest decimal d.ddd x 10^exp10 that reads back as |v|: its digits
 * (no point) and exponent. v finite. */
static void shortest_digits(double v, DType dtype, char *digits, int *exp10)
{
    char text[NUM_TEXT];
    for (int sig = 1; sig <= 17; sig++) {
        snprintf(text, sizeof text, "%.*e", sig - 1, fabs(v));
        if (round_trips(text, fabs(v), dtype))
            break;
    }
    e_notation_digits(text, digits, exp10);
}

/* ---- float formats ---------------------------------------------------------------------------- */

typedef struct FloatFormat {
    DType dtype;
    bool exp;           /* scientific notation */
    int pad_left;       /* width of the integer part (with sign) */
    int pad_right;      /* width of the fraction (positional) */
    int precision;      /* fraction digits (scientific, zero-padded) */
    int exp_digits;     /* exponent width (scientific) */
} FloatFormat;

/* Positional text of finite v: shortest digits, at most PRECISION after the
 * point (rounded if longer), trailing zeros trimmed but the point kept. */
static void positional_text(double v, DType dtype, char *out)
{
    char digits[NUM_TEXT];
    int e;
    shortest_digits(v, dtype, digits, &e);
    int n = (int)strlen(digits);
    if (n - 1 - e > PRECISION) {
        snprintf(out, NUM_TEXT, "%.*f", PRECISION, v);
        size_t len = strlen(out);
        while (out[len - 1] == '0')
            out[--len] = '\0';
        return;
    }
    StrBuf sb = {0};
    sb_append(&sb, signbit(v) ? "-" : "");
    for (int i = 0; i <= (e < 0 ? 0 : e); i++)
        sb_append_n(&sb, e < 0 ? "0" : i < n ? &digits[i] : "0", 1);
    sb_append(&sb, ".");
    sb_repeat(&sb, "0", e < -1 ? -e - 1 : 0);
    if (n - 1 - e > 0)
        sb_append(&sb, digits + (e < 0 ? 0 : e + 1));
    snprintf(out, NUM_TEXT, "%s", sb_str(&sb));
    free(sb.data);
}

/* Scientific parts of finite v: sign and leading digit, fraction digits,
 * exponent (at most PRECISION fraction digits). */
static void scientific_parts(double v, DType dtype, char *lead, char *fraction, int *exp10)
{
    char digits[NUM_TEXT];
    shortest_digits(v, dtype, digits, exp10);
    if ((int)strlen(digits) > PRECISION + 1) {
        char text[NUM_TEXT];
        snprintf(text, sizeof text, "%.*e", PRECISION, fabs(v));
        e_notation_digits(text, digits, exp10);
    }
    snprintf(lead, NUM_TEXT, "%s%c", signbit(v) ? "-" : "", digits[0]);
    snprintf(fraction, NUM_TEXT, "%s", digits + 1);
}

typedef struct Visit {
    void (*fn)(void *user, int64_t flat);
    void *user;
} Visit;

/* Visit the elements NumPy would show (every one, or the summarised edges). */
static void visit_shown(const Tensor *t, bool summary, int dim, int64_t base, const Visit *v)
{
    if (dim == t->rank) {
        v->fn(v->user, base);
        return;
    }
    int64_t stride = 1, n = t->dims[dim];
    for (int d = dim + 1; d < t->rank; d++)
        stride *= t->dims[d];
    bool cut = summary && n > 2 * EDGE_ITEMS;
    for (int64_t i = 0; i < n; i++) {
        if (cut && i == EDGE_ITEMS)
            i = n - EDGE_ITEMS;
        visit_shown(t, summary, dim + 1, base + i * stride, v);
    }
}

typedef struct FloatScan {
    const Tensor *t;
    double max_abs, min_abs;   /* over finite non-zero values */
    bool any_finite, any_nan, any_posinf, any_neginf;
    FloatFormat *format;
    int frac_max, lead_max, exp_max;
} FloatScan;

static void scan_range(void *user, int64_t flat)
{
    FloatScan *s = user;
    double v = tensor_get_f64(s->t, flat);
    s->any_nan |= isnan(v);
    s->any_posinf |= isinf(v) && v > 0;
    s->any_neginf |= isinf(v) && v < 0;
    if (!isfinite(v))
        return;
    s->any_finite = true;
    double a = fabs(v);
    if (a != 0 && a > s->max_abs)
        s->max_abs = a;
    if (a != 0 && (s->min_abs == 0 || a < s->min_abs))
        s->min_abs = a;
}

static void scan_widths(void *user, int64_t flat)
{
    FloatScan *s = user;
    double v = tensor_get_f64(s->t, flat);
    if (!isfinite(v))
        return;
    char a[NUM_TEXT], b[NUM_TEXT];
    int e;
    if (s->format->exp) {
        scientific_parts(v, s->t->dtype, a, b, &e);
        int exp_len = snprintf(NULL, 0, "%d", abs(e));
        s->exp_max = exp_len > s->exp_max ? exp_len : s->exp_max;
    } else {
        positional_text(v, s->t->dtype, a);
        char *point = strchr(a, '.');
        *point = '\0';
        snprintf(b, sizeof b, "%s", point + 1);
    }
    int lead = (int)strlen(a), frac = (int)strlen(b);
    s->lead_max = lead > s->lead_max ? lead : s->lead_max;
    s->frac_max = frac > s->frac_max ? frac : s->frac_max;
}

static FloatFormat float_format(const Tensor *t, bool summary)
{
    FloatFormat f = {t->dtype, false, 0, 0, 0, 2};
    FloatScan s = {.t = t, .format = &f};
    visit_shown(t, summary, 0, 0, &(Visit){scan_range, &s});
    f.exp = s.max_abs != 0 && (s.max_abs >= 1e8 || s.min_abs < 1e-4 || s.max_abs / s.min_abs > 1000.0);
    visit_shown(t, summary, 0, 0, &(Visit){scan_widths, &s});
    f.pad_left = s.lead_max;
    f.precision = s.frac_max;
    f.exp_digits = s.exp_max > 2 ? s.exp_max : 2;
    f.pad_right = f.exp ? f.exp_digits + 2 + f.precision : s.frac_max;
    /* nan and inf must fit the width too (NumPy sizes for both as soon as
     * either occurs). */
    int offset = f.pad_right + 1, widest = 3 + (s.any_neginf ? 1 : 0) - offset;
    if ((s.any_nan || s.any_posinf || s.any_neginf) && widest > f.pad_left)
        f.pad_left = widest;
    return f;
}

static void format_nonfinite(StrBuf *sb, const FloatFormat *f, double v)
{
    const char *text = isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
    sb_repeat(sb, " ", f->pad_left + f->pad_right + 1 - (int)strlen(text));
    sb_append(sb, text);
}

static void format_float(StrBuf *sb, const FloatFormat *f, double v)
{
    if (!isfinite(v)) {
        format_nonfinite(sb, f, v);
        return;
    }
    char a[NUM_TEXT], b[NUM_TEXT], text[3 * NUM_TEXT];
    int e;
    if (f->exp) {
        scientific_parts(v, f->dtype, a, b, &e);
        sb_repeat(sb, " ", f->pad_left - (int)strlen(a));
        snprintf(text, sizeof text, "%s.%s", a, b);
        sb_append(sb, text);
        sb_repeat(sb, "0", f->precision - (int)strlen(b));
        snprintf(text, sizeof text, "e%c%0*d", e < 0 ? '-' : '+', f->exp_digits, abs(e));
        sb_append(sb, text);
        return;
    }
    positional_text(v, f->dtype, a);
    char *point = strchr(a, '.');
    sb_repeat(sb, " ", f->pad_left - (int)(point - a));
    sb_append(sb, a);
    sb_repeat(sb, " ", f->pad_right - (int)strlen(point + 1));
}

/* ---- element formats of every dtype ------------------------------------------------------------------ */

typedef struct ElementFormat {
    FloatFormat f;
    int int_width;
} ElementFormat;

/* An integer element as NumPy prints it: u64 past 2^63 - 1 too. */
static int int_text(char *buf, size_t size, int width, const Tensor *t, int64_t flat)
{
    if (t->dtype == DT_U64)
        return snprintf(buf, size, "%*llu", width, (unsigned long long)(uint64_t)tensor_get_i64(t, flat)); /* wraps back */
    return snprintf(buf, size, "%*lld", width, (long long)tensor_get_i64(t, flat));
}

typedef struct IntScan {
    const Tensor *t;
    int width;
} IntScan;

static void scan_int(void *user, int64_t flat)
{
    IntScan *s = user;
    char text[32];
    int len = int_text(text, sizeof text, 0, s->t, flat);
    s->width = len > s->width ? len : s->width;
}

static ElementFormat element_format(const Tensor *t, bool summary)
{
    ElementFormat ef = {0};
    if (dtype_is_float(t->dtype)) {
        ef.f = float_format(t, summary);
    } else if (dtype_is_int(t->dtype)) {
        IntScan s = {t, 0};
        visit_shown(t, summary, 0, 0, &(Visit){scan_int, &s});
        ef.int_width = s.width;
    }
    return ef;
}

/* A complex element as NumPy writes one alone (`1+2j`), at %g's 6
 * digits: not NumPy's column-aligned array layout, which --print leaves
 * out for complex results. */
static void format_complex(StrBuf *sb, const Tensor *t, int64_t flat)
{
    Tensor parts;
    tensor_complex_parts_view(t, &parts);
    char text[2 * NUM_TEXT];
    snprintf(text, sizeof text, "%g%+gj", tensor_get_f64(&parts, 2 * flat), tensor_get_f64(&parts, 2 * flat + 1));
    sb_append(sb, text);
}

static void format_element(StrBuf *sb, const Tensor *t, const ElementFormat *ef, int64_t flat)
{
    char text[NUM_TEXT];
    if (dtype_is_float(t->dtype)) {
        format_float(sb, &ef->f, tensor_get_f64(t, flat));
    } else if (dtype_is_complex(t->dtype)) {
        format_complex(sb, t, flat);
    } else if (dtype_is_int(t->dtype)) {
        int_text(text, sizeof text, ef->int_width, t, flat);
        sb_append(sb, text);
    } else {
        sb_append(sb, tensor_get_i64(t, flat) ? " True" : "False");
    }
}

/* ---- layout: NumPy's _formatArray -------------------------------------------------------------------- */

typedef struct ArrayLayout {
    const Tensor *t;
    ElementFormat format;
    bool summary;
    int64_t strides[SHARDC_MAX_RANK];
} ArrayLayout;

/* _extendLine: wrap before `word` if the line would grow past `width`
 * (unless the line holds nothing but the indent). */
static void extend_line(StrBuf *s, StrBuf *line, const char *word, int width, const char *indent)
{
    size_t indent_len = strlen(indent);
    if (line->len + strlen(word) > (size_t)width && line->len > indent_len) {
        while (line->len > 0 && line->data[line->len - 1] == ' ')
            line->data[--line->len] = '\0';
        sb_append(s, sb_str(line));
        sb_append(s, "\n");
        line->len = 0;
        sb_append(line, indent);
    }
    sb_append(line, word);
}

static void format_array(const ArrayLayout *a, int dim, int64_t base, const char *indent, int width,
                         StrBuf *out);

/* The items shown along dim: all, or EDGE_ITEMS at each end around "...". */
static bool dim_cut(const ArrayLayout *a, int dim)
{
    return a->summary && a->t->dims[dim] > 2 * EDGE_ITEMS;
}

static int64_t shown_index(const ArrayLayout *a, int dim, int64_t i)
{
    return dim_cut(a, dim) && i >= EDGE_ITEMS ? a->t->dims[dim] - 2 * EDGE_ITEMS + i : i;
}

static int64_t shown_count(const ArrayLayout *a, int dim)
{
    return dim_cut(a, dim) ? 2 * EDGE_ITEMS : a->t->dims[dim];
}

static void format_last_dim(const ArrayLayout *a, int dim, int64_t base, const char *indent, int width,
                            StrBuf *s)
{
    StrBuf line = {0}, word = {0};
    sb_append(&line, indent);
    int64_t n = shown_count(a, dim);
    for (int64_t i = 0; i < n; i++) {
        if (dim_cut(a, dim) && i == EDGE_ITEMS) {
            extend_line(s, &line, "...", width - 1, indent);
            sb_append(&line, " ");
        }
        word.len = 0;
        format_element(&word, a->t, &a->format, base + shown_index(a, dim, i) * a->strides[dim]);
        extend_line(s, &line, sb_str(&word), width - 1, indent);
        if (i + 1 < n)
            sb_append(&line, " ");
    }
    sb_append(s, sb_str(&line));
    free(line.data);
    free(word.data);
}

static void format_outer_dim(const ArrayLayout *a, int dim, int64_t base, const char *indent, int width,
                             StrBuf *s)
{
    StrBuf next = {0};
    sb_append(&next, indent);
    sb_append(&next, " ");
    int64_t n = shown_count(a, dim);
    int newlines = a->t->rank - dim - 1;
    for (int64_t i = 0; i < n; i++) {
        if (dim_cut(a, dim) && i == EDGE_ITEMS) {
            sb_append(s, indent);
            sb_append(s, "...");
            sb_repeat(s, "\n", newlines);
        }
        sb_append(s, indent);
        format_array(a, dim + 1, base + shown_index(a, dim, i) * a->strides[dim], sb_str(&next), width - 1, s);
        if (i + 1 < n)
            sb_repeat(s, "\n", newlines);
    }
    free(next.data);
}

/* One bracketed level: its items laid out after `indent`, which the
 * opening bracket then replaces. */
static void format_array(const ArrayLayout *a, int dim, int64_t base, const char *indent, int width,
                         StrBuf *out)
{
    StrBuf s = {0};
    if (dim == a->t->rank - 1)
        format_last_dim(a, dim, base, indent, width, &s);
    else
        format_outer_dim(a, dim, base, indent, width, &s);
    sb_append(out, "[");
    sb_append(out, sb_str(&s) + strlen(indent));
    sb_append(out, "]");
    free(s.data);
}

/* ---- scalars ------------------------------------------------------------------------------------------ */

/* A 0-d array prints as its element's str(): "12.0", "1e+20", "-3", "True". */
static void format_scalar(StrBuf *sb, const Tensor *t)
{
    char text[2 * NUM_TEXT], digits[NUM_TEXT];
    double v = tensor_get_f64(t, 0);
    int e;
    if (!dtype_is_float(t->dtype)) {
        if (t->dtype == DT_BOOL)
            snprintf(text, sizeof text, "%s", tensor_get_i64(t, 0) ? "True" : "False");
        else
            int_text(text, sizeof text, 0, t, 0);
    } else if (!isfinite(v)) {
        snprintf(text, sizeof text, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
    } else if (v == 0 || (fabs(v) >= 1e-4 && fabs(v) < 1e16)) {
        positional_text(v, t->dtype, text);
        if (text[strlen(text) - 1] == '.')
            strcat(text, "0");
    } else {
        shortest_digits(v, t->dtype, digits, &e);
        snprintf(text, sizeof text, "%s%c%s%se%c%02d", signbit(v) ? "-" : "", digits[0], digits[1] ? "." : "",
                 digits + 1, e < 0 ? '-' : '+', abs(e));
    }
    sb_append(sb, text);
}

void visualize_print_array_numpy(FILE *out, const Tensor *t)
{
    StrBuf sb = {0};
    if (t->rank == 0) {
        format_scalar(&sb, t);
    } else if (t->count == 0) {
        sb_append(&sb, "[]");
    } else {
        ArrayLayout a = {t, {{0}, 0}, t->count > SUMMARY_THRESHOLD, {0}};
        tensor_shape_strides(t->rank, t->dims, a.strides);
        a.format = element_format(t, a.summary);
        format_array(&a, 0, 0, " ", LINE_WIDTH, &sb);
    }
    fputs(sb_str(&sb), out);
    free(sb.data);
}

/* ---- sharding grids ------------------------------------------------------------------------------------ */

/* What a grid shows: rows along row_dim and columns along col_dim (-1: a
 * single row or column), for the devices whose blocks along the leading
 * sharded dims are lead_idx (a value of rank > 2 sharded on more than two
 * dims gets one grid per such block). */
typedef struct GridView {
    const Sharding *s;
    int row_dim, col_dim;
    int num_lead, lead[SHARDC_MAX_RANK];
    int64_t lead_idx[SHARDC_MAX_RANK];
} GridView;

typedef struct Grid {
    int64_t rows, cols;
    StrBuf *labels;    /* rows * cols: "CPU 0,1" */
    int *widths;       /* per column */
} Grid;

static int64_t block_of(const Mesh *mesh, int64_t position, const DimSharding *d)
{
    return d ? mesh_group_index(mesh, position, d->axes, d->num_axes) : 0;
}

static bool in_view(const GridView *v, int64_t position)
{
    for (int k = 0; k < v->num_lead; k++)
        if (block_of(v->s->mesh, position, &v->s->dims[v->lead[k]]) != v->lead_idx[k])
            return false;
    return true;
}

/* The devices holding each block, in ascending id order. */
static void grid_fill(Grid *g, const GridView *v)
{
    const Mesh *mesh = v->s->mesh;
    for (int64_t id = 0; id < mesh->num_devices; id++) {
        int64_t p = mesh_position_of(mesh, id);
        if (!in_view(v, p))
            continue;
        int64_t row = block_of(mesh, p, v->row_dim >= 0 ? &v->s->dims[v->row_dim] : NULL);
        int64_t col = block_of(mesh, p, v->col_dim >= 0 ? &v->s->dims[v->col_dim] : NULL);
        StrBuf *label = &g->labels[row * g->cols + col];
        char text[32];
        snprintf(text, sizeof text, "%s%lld", label->len ? "," : "CPU ", (long long)id);
        sb_append(label, text);
    }
    for (int64_t k = 0; k < g->rows * g->cols; k++) {
        int w = (int)g->labels[k].len + 2;
        if (w > g->widths[k % g->cols])
            g->widths[k % g->cols] = w;
    }
}

static void grid_border(FILE *out, const Grid *g, const char *left, const char *mid, const char *right)
{
    fputs(left, out);
    for (int64_t c = 0; c < g->cols; c++) {
        for (int i = 0; i < g->widths[c]; i++)
            fputs("─", out);
        fputs(c + 1 < g->cols ? mid : right, out);
    }
    fputc('\n', out);
}

static void grid_row(FILE *out, const Grid *g, int64_t r)
{
    fputs("│", out);
    for (int64_t c = 0; c < g->cols; c++) {
        const StrBuf *label = &g->labels[r * g->cols + c];
        int space = g->widths[c] - (int)label->len, left = space / 2;
        fprintf(out, "%*s%s%*s│", left, "", sb_str(label), space - left, "");
    }
    fputc('\n', out);
}

static void grid_print_text(FILE *out, const Grid *g)
{
    grid_border(out, g, "┌", "┬", "┐");
    for (int64_t r = 0; r < g->rows; r++) {
        if (r > 0)
            grid_border(out, g, "├", "┼", "┤");
        grid_row(out, g, r);
    }
    grid_border(out, g, "└", "┴", "┘");
}

enum { SVG_CELL_H = 40, SVG_CHAR_W = 8, SVG_TITLE_H = 24 };

/* A light colour per block, as visualize_array_sharding colours them. */
static void svg_fill(FILE *out, int64_t k)
{
    static const char *const palette[] = {"#c6dbef", "#fdd0a2", "#c7e9c0", "#dadaeb", "#fcbba1", "#d9d9d9",
                                          "#fee391", "#bcbddc"};
    fputs(palette[k % (int64_t)(sizeof palette / sizeof palette[0])], out);
}

static void svg_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else if (*s == '&')
            fputs("&amp;", out);
        else if (*s == '"')
            fputs("&quot;", out);
        else
            fputc(*s, out);
    }
}

/* The grid as rectangles at vertical offset y; returns its height. */
static int grid_print_svg(FILE *out, const Grid *g, int y)
{
    int x = 0;
    for (int64_t c = 0; c < g->cols; c++) {
        int w = g->widths[c] * SVG_CHAR_W;
        for (int64_t r = 0; r < g->rows; r++) {
            int64_t k = r * g->cols + c;
            fprintf(out, "<rect x=\"%d\" y=\"%lld\" width=\"%d\" height=\"%d\" stroke=\"black\" fill=\"", x,
                    (long long)(y + r * SVG_CELL_H), w, SVG_CELL_H);
            svg_fill(out, k);
            fprintf(out, "\"/>\n<text x=\"%d\" y=\"%lld\" text-anchor=\"middle\" dominant-baseline=\"middle\">",
                    x + w / 2, (long long)(y + r * SVG_CELL_H + SVG_CELL_H / 2));
            svg_text(out, sb_str(&g->labels[k]));
            fputs("</text>\n", out);
        }
        x += w;
    }
    return (int)g->rows * SVG_CELL_H;
}

static int grid_width(const Grid *g)
{
    int w = 0;
    for (int64_t c = 0; c < g->cols; c++)
        w += g->widths[c] * SVG_CHAR_W;
    return w;
}

/* The dims drawn: the sharded ones, the last two as rows and columns and
 * any before them one grid per block; unsharded values of rank 2 draw
 * dims 0 and 1 as JAX does, other unsharded values one box. */
static void choose_dims(GridView *v, const Sharding *s, const TensorType *type)
{
    int sharded[SHARDC_MAX_RANK], n = 0;
    for (int d = 0; d < type->rank; d++)
        if (s->dims[d].num_axes)
            sharded[n++] = d;
    *v = (GridView){.s = s, .row_dim = -1, .col_dim = -1};
    if (type->rank <= 2) {
        v->row_dim = type->rank == 2 ? 0 : -1;
        v->col_dim = type->rank - 1;
        return;
    }
    v->col_dim = n ? sharded[n - 1] : -1;
    v->row_dim = n > 1 ? sharded[n - 2] : -1;
    for (int k = 0; k + 2 < n; k++)
        v->lead[v->num_lead++] = sharded[k];
}

static int64_t view_extent(const Sharding *s, int dim)
{
    return dim >= 0 ? sharding_dim_shards(s, dim) : 1;
}

/* One grid of view v: text to out, or SVG at y (returning its height and
 * widening *width to its own). */
static int draw_grid(FILE *out, const GridView *v, bool svg, int y, int *width)
{
    Grid g = {view_extent(v->s, v->row_dim), view_extent(v->s, v->col_dim), NULL, NULL};
    g.labels = calloc((size_t)(g.rows * g.cols), sizeof *g.labels);
    g.widths = calloc((size_t)g.cols, sizeof *g.widths);
    int height = 0;
    if (g.labels && g.widths) {
        grid_fill(&g, v);
        if (svg) {
            height = grid_print_svg(out, &g, y);
            *width = grid_width(&g) > *width ? grid_width(&g) : *width;
        } else {
            grid_print_text(out, &g);
        }
    }
    for (int64_t k = 0; g.labels && k < g.rows * g.cols; k++)
        free(g.labels[k].data);
    free(g.labels);
    free(g.widths);
    return height;
}

/* "dims 1 (rows) x 3 (columns)" and, for a slice, which blocks. */
static void view_caption(StrBuf *sb, const GridView *v)
{
    char text[96];
    if (v->row_dim >= 0) {
        snprintf(text, sizeof text, "dim %d (rows) x ", v->row_dim);
        sb_append(sb, text);
    }
    if (v->col_dim >= 0) {
        snprintf(text, sizeof text, "dim %d (columns)", v->col_dim);
        sb_append(sb, text);
    }
    for (int k = 0; k < v->num_lead; k++) {
        snprintf(text, sizeof text, "%s dim %d block %lld of %lld", k ? "," : ";", v->lead[k],
                 (long long)v->lead_idx[k], (long long)sharding_dim_shards(v->s, v->lead[k]));
        sb_append(sb, text);
    }
}

/* The next block of the leading dims, row-major; false after the last. */
static bool next_slice(GridView *v)
{
    for (int k = v->num_lead - 1; k >= 0; k--) {
        if (++v->lead_idx[k] < sharding_dim_shards(v->s, v->lead[k]))
            return true;
        v->lead_idx[k] = 0;
    }
    return false;
}

void visualize_sharding(FILE *out, const Sharding *s, const TensorType *type)
{
    if (!s) {
        fputs("  (no sharding: replicated)\n", out);
        return;
    }
    if (s->rank != type->rank) {
        fprintf(out, "  (sharding of rank %d on a rank-%d value)\n", s->rank, type->rank);
        return;
    }
    GridView v;
    choose_dims(&v, s, type);
    int width = 0;
    do {
        if (type->rank > 2) {
            StrBuf caption = {0};
            view_caption(&caption, &v);
            fprintf(out, "  %s\n", sb_str(&caption));
            free(caption.data);
        }
        draw_grid(out, &v, false, 0, &width);
    } while (next_slice(&v));
}

static void svg_line(FILE *out, int y, const char *text)
{
    fprintf(out, "<text x=\"0\" y=\"%d\">", y);
    svg_text(out, text);
    fputs("</text>\n", out);
}

/* The grids of s below `title`, each under its caption, into out; the
 * height they take (and *width widened to theirs). */
static int svg_body(FILE *out, const Sharding *s, const TensorType *type, const char *title, int *width)
{
    svg_line(out, 16, title);
    int y = SVG_TITLE_H;
    if (!s || s->rank != type->rank) {
        svg_line(out, y + 14, s ? "(sharding of another rank)" : "(no sharding: replicated)");
        return y + SVG_TITLE_H;
    }
    GridView v;
    choose_dims(&v, s, type);
    do {
        StrBuf caption = {0};
        view_caption(&caption, &v);
        svg_line(out, y + 14, sb_str(&caption));
        free(caption.data);
        y += SVG_TITLE_H;
        y += draw_grid(out, &v, true, y, width) + 8;
    } while (next_slice(&v));
    return y;
}

void visualize_sharding_svg(FILE *out, const Sharding *s, const TensorType *type, const char *title)
{
    char *body = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&body, &len);
    if (!mem)
        arena_out_of_memory();
    int width = (int)strlen(title) * SVG_CHAR_W;
    int height = svg_body(mem, s, type, title, &width);
    fclose(mem);
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"monospace\" "
                 "font-size=\"12\">\n", width + 2, height + 2);
    fwrite(body, 1, len, out);
    fputs("</svg>\n", out);
    free(body);
}
