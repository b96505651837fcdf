/* Did-you-mean by edit distance (suggest.h). */
#include <stdbool.h>
#include <string.h>
#include "shardc/suggest.h"

enum { SUGGEST_MAX_LEN = 64 };  /* longer names are not typos worth a hint */

/* Optimal string alignment: Levenshtein's insertions, deletions and
 * substitutions, and a swap of two neighbours ('rnu' for 'run') as one
 * edit. Three rows of the dynamic programme, on the stack. */
size_t suggest_distance(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b);
    if (alen > SUGGEST_MAX_LEN || blen > SUGGEST_MAX_LEN)
        return (size_t)-1;
    size_t rows[3][SUGGEST_MAX_LEN + 1];
    size_t *older = rows[0], *prev = rows[1], *row = rows[2];
    for (size_t j = 0; j <= blen; j++)
        prev[j] = j;
    for (size_t i = 1; i <= alen; i++) {
        row[0] = i;
        for (size_t j = 1; j <= blen; j++) {
            size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && older[j - 2] + 1 < best)
                best = older[j - 2] + 1;
            row[j] = best;
        }
        size_t *t = older;
        older = prev;
        prev = row;
        row = t;
    }
    return prev[blen];
}

/* A misspelling (a third of the letters differ at most), or a short form
 * of the name or the name of a short form ('negate' for 'neg'). */
static bool close_enough(const char *word, size_t len, const char *name, size_t d)
{
    size_t n = strlen(name), shorter = len < n ? len : n, longer = len > n ? len : n;
    bool prefix = shorter >= 3 && strncmp(word, name, shorter) == 0;
    return d * 3 <= longer || prefix;
}

/* Whether name cannot be the answer, judged from the lengths alone: the
 * distance is at least their difference. Skipping those saves computing
 * the distance to every candidate for every unknown word (a tenth of
 * fuzz_parse's time). */
static bool out_of_reach(const char *word, size_t len, const char *name, size_t best_dist)
{
    size_t n = strlen(name), diff = len > n ? len - n : n - len, longer = len > n ? len : n;
    if (diff >= best_dist)
        return true;
    size_t shorter = len < n ? len : n;
    bool prefix = shorter >= 3 && strncmp(word, name, shorter) == 0;
    return !prefix && diff * 3 > longer;
}

const char *suggest_closest(const char *word, size_t len, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t best_dist = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        if (!candidates[i] || out_of_reach(word, len, candidates[i], best_dist))
            continue;
        size_t d = suggest_distance(word, len, candidates[i]);
        if (d < best_dist && d > 0 && close_enough(word, len, candidates[i], d)) {
            best = candidates[i];
            best_dist = d;
        }
    }
    return best;
}
