/* Reading the windowed ops' dimension numbers and windows
 * (shardc/window.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "shardc/ir.h"
#include "shardc/window.h"

static const char *skip_space(const char *s)
{
    while (*s == ' ')
        s++;
    return s;
}

/* One `[...]` of rank entries: the two letters' dims and the spatial
 * dims by their number; the end, or NULL with *err set. */
static const char *parse_list(const char *s, int rank, const char *letters, int64_t *first, int64_t *second,
                              int64_t *spatial, const char **err)
{
    bool seen[SHARDC_MAX_RANK] = {false};
    int count = 0, num_spatial = 0;
    *first = *second = -1;
    s = skip_space(s);
    if (*s != '[')
        return *err = "expected '['", NULL;
    s = skip_space(s + 1);
    while (*s != ']') {
        if (count == rank)
            return *err = "more entries than the rank", NULL;
        if (*s == letters[0] || *s == letters[1]) {
            int64_t *at = *s == letters[0] ? first : second;
            if (*at >= 0)
                return *err = "a dimension letter is listed twice", NULL;
            *at = count;
            s++;
        } else if (isdigit((unsigned char)*s)) {
            int i = 0;
            while (isdigit((unsigned char)*s) && i < 100)
                i = i * 10 + (*s++ - '0');
            if (i >= rank - 2 || seen[i])
                return *err = "spatial dims must be 0 .. rank-3, each once", NULL;
            seen[i] = true;
            spatial[i] = count;
            num_spatial++;
        } else {
            return *err = "unexpected character", NULL;
        }
        count++;
        s = skip_space(s);
        if (*s == ',')
            s = skip_space(s + 1);
        else if (*s != ']')
            return *err = "expected ',' or ']'", NULL;
    }
    if (count != rank || *first < 0 || *second < 0 || num_spatial != rank - 2)
        return *err = "each list must name every dim once", NULL;
    return s + 1;
}

bool op_conv_dims_parse(const char *s, int rank, ConvDims *d, const char **err)
{
    memset(d, 0, sizeof *d);
    if (rank < 2 || rank > SHARDC_MAX_RANK)
        return *err = "operands must have rank 2 or more", false;
    d->num_spatial = rank - 2;
    if (!(s = parse_list(s, rank, "bf", &d->in_batch, &d->in_feature, d->in_spatial, err)))
        return false;
    s = skip_space(s);
    if (*s != 'x')
        return *err = "expected 'x' between input and kernel", false;
    if (!(s = parse_list(s + 1, rank, "io", &d->k_in, &d->k_out, d->k_spatial, err)))
        return false;
    s = skip_space(s);
    if (strncmp(s, "->", 2) != 0)
        return *err = "expected '->' before the output", false;
    if (!(s = parse_list(s + 2, rank, "bf", &d->out_batch, &d->out_feature, d->out_spatial, err)))
        return false;
    if (*skip_space(s))
        return *err = "text after the output", false;
    return true;
}

static size_t format_list(char *buf, size_t len, int rank, char a, int64_t da, char b, int64_t db,
                          const int64_t *spatial, int num_spatial)
{
    size_t n = (size_t)snprintf(buf, len, "[");
    for (int d = 0; d < rank && n < len; d++) {
        const char *sep = d ? ", " : "";
        if (d == da || d == db) {
            n += (size_t)snprintf(buf + n, len - n, "%s%c", sep, d == da ? a : b);
            continue;
        }
        for (int i = 0; i < num_spatial; i++)
            if (spatial[i] == d)
                n += (size_t)snprintf(buf + n, len - n, "%s%d", sep, i);
    }
    if (n < len)
        n += (size_t)snprintf(buf + n, len - n, "]");
    return n;
}

void op_conv_dims_format(const ConvDims *d, char *buf, size_t len)
{
    int rank = d->num_spatial + 2;
    size_t n = format_list(buf, len, rank, 'b', d->in_batch, 'f', d->in_feature, d->in_spatial, d->num_spatial);
    if (n < len)
        n += (size_t)snprintf(buf + n, len - n, "x");
    if (n < len)
        n += format_list(buf + n, len - n, rank, 'i', d->k_in, 'o', d->k_out, d->k_spatial, d->num_spatial);
    if (n < len)
        n += (size_t)snprintf(buf + n, len - n, "->");
    if (n < len)
        format_list(buf + n, len - n, rank, 'b', d->out_batch, 'f', d->out_feature, d->out_spatial, d->num_spatial);
}

bool op_conv_dims(const Op *op, ConvDims *d)
{
    const char *s = op_attr_string(op, ATTR_KEY_DIM_NUMBERS), *err;
    return s && op_conv_dims_parse(s, op->operands[0]->type.rank, d, &err);
}

/* A list attribute of n entries, or `dflt` for each if absent. */
static void read_list(const Op *op, AttrKey key, int n, int64_t dflt, int64_t *out)
{
    if (op_attr_ints(op, key, out, SHARDC_MAX_RANK) != n)
        for (int i = 0; i < n; i++)
            out[i] = dflt;
}

static void read_padding(const Op *op, WindowDims *w)
{
    const AttrValue *p = op_attr_get(op, ATTR_KEY_PADDING);
    for (int i = 0; i < w->n; i++) {
        int64_t pair[2] = {0, 0};
        if (p && p->kind == ATTR_ARRAY && i < p->u.array.count && attr_int_array(p->u.array.items[i], pair, 2) != 2)
            pair[0] = pair[1] = 0;
        w->lo[i] = pair[0];
        w->hi[i] = pair[1];
    }
}

void op_window_dims(const Op *op, WindowDims *w)
{
    memset(w, 0, sizeof *w);
    if (op->kind == OP_CONVOLUTION) {
        ConvDims d;
        if (!op_conv_dims(op, &d))
            return;
        w->n = d.num_spatial;
        for (int i = 0; i < w->n; i++)
            w->size[i] = op->operands[1]->type.dims[d.k_spatial[i]];
        read_list(op, ATTR_KEY_LHS_DILATION, w->n, 1, w->base_dil);
        read_list(op, ATTR_KEY_RHS_DILATION, w->n, 1, w->win_dil);
    } else {
        w->n = op->operands[0]->type.rank;
        read_list(op, ATTR_KEY_WINDOW_DIMENSIONS, w->n, 1, w->size);
        read_list(op, ATTR_KEY_BASE_DILATIONS, w->n, 1, w->base_dil);
        read_list(op, ATTR_KEY_WINDOW_DILATIONS, w->n, 1, w->win_dil);
    }
    read_list(op, ATTR_KEY_WINDOW_STRIDES, w->n, 1, w->stride);
    read_padding(op, w);
}

int64_t op_window_count(const WindowDims *w, int i, int64_t size)
{
    int64_t padded = (size > 0 ? (size - 1) * w->base_dil[i] + 1 : 0) + w->lo[i] + w->hi[i];
    int64_t span = (w->size[i] - 1) * w->win_dil[i] + 1;
    if (w->size[i] <= 0 || padded < span || w->stride[i] <= 0)
        return 0;
    return (padded - span) / w->stride[i] + 1;
}

int op_select_direction(const Op *op)
{
    static const char *const names[] = {"ge", "gt", "le", "lt"};
    const char *d = op_attr_string(op, ATTR_KEY_DIRECTION);
    for (int i = 0; d && i < 4; i++)
        if (strcmp(d, names[i]) == 0)
            return i;
    return -1;
}
