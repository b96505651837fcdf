/* Einsum spec parsing. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "shardc/einsum.h"

static bool fail(char *error, size_t len, int *col, int at, const char *msg)
{
    snprintf(error, len, "%s", msg);
    *col = at;
    return false;
}

/* Read labels up to a delimiter; returns the number read or -1. */
static int read_term(const char *text, int *pos, char *labels, char *error, size_t len, int *col)
{
    int n = 0, p = *pos; /* a local: the stores to labels would make *pos be reloaded each char */
    uint32_t seen = 0;   /* by letter */
    for (char c; (c = text[p]) && c != ',' && c != '-'; p++) {
        if (c == ' ')
            continue;
        if (c < 'a' || c > 'z')
            return fail(error, len, col, p, "einsum labels must be lower-case letters"), -1;
        if (n == SHARDC_MAX_RANK)
            return fail(error, len, col, p, "too many labels in one einsum term"), -1;
        if (seen & (UINT32_C(1) << (c - 'a'))) {
            snprintf(error, len, "label '%c' repeats within one term (diagonals are not supported)", c);
            *col = p;
            return -1;
        }
        seen |= UINT32_C(1) << (c - 'a');
        labels[n++] = c;
    }
    *pos = p;
    return n;
}

bool einsum_parse(const char *text, EinsumSpec *spec, char *error, size_t error_len, int *error_col)
{
    memset(spec, 0, sizeof *spec);
    int pos = 0;
    for (;;) {
        if (spec->num_inputs == 2)
            return fail(error, error_len, error_col, pos, "einsum takes at most two inputs");
        int n = read_term(text, &pos, spec->inputs[spec->num_inputs], error, error_len, error_col);
        if (n < 0)
            return false;
        spec->input_rank[spec->num_inputs++] = n;
        if (text[pos] != ',')
            break;
        pos++;
    }
    if (strncmp(text + pos, "->", 2) != 0)
        return fail(error, error_len, error_col, pos, "einsum spec needs an explicit '->' output");
    pos += 2;
    int n = read_term(text, &pos, spec->output, error, error_len, error_col);
    if (n < 0)
        return false;
    if (text[pos])
        return fail(error, error_len, error_col, pos, "unexpected character after the einsum output");
    spec->output_rank = n;
    return true;
}
