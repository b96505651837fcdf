/* Did-you-mean by edit distance (suggest.h). */
#include <stdlib.h>
#include <string.h>
#include "shardc/suggest.h"

enum { SUGGEST_MAX_LEN = 64 };  /* longer names are not typos worth a hint */

/* One row of the dynamic programme at a time, on the stack. */
size_t suggest_distance(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b);
    if (alen > SUGGEST_MAX_LEN || blen > SUGGEST_MAX_LEN)
        return (size_t)-1;
    size_t row[SUGGEST_MAX_LEN + 1];
    for (size_t j = 0; j <= blen; j++)
        row[j] = j;
    for (size_t i = 1; i <= alen; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= blen; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[blen];
}

const char *suggest_closest(const char *word, size_t len, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t best_dist = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        if (!candidates[i])
            continue;
        size_t d = suggest_distance(word, len, candidates[i]);
        size_t longer = len > strlen(candidates[i]) ? len : strlen(candidates[i]);
        if (d < best_dist && d > 0 && d * 2 <= longer) {
            best = candidates[i];
            best_dist = d;
        }
    }
    return best;
}
