/* Did-you-mean: the known name closest to a misspelt one, for the
 * diagnostics of unknown ops (src/front), flags and pass names (cli/). */
#ifndef SHARDC_SUGGEST_H
#define SHARDC_SUGGEST_H
#include <stddef.h>

/* The Levenshtein distance between a[0..alen) and b (NUL-terminated). */
size_t suggest_distance(const char *a, size_t alen, const char *b);

/* The candidate closest to word[0..len) (the first of equals), if it is
 * close enough to be the name meant -- at most a third of the longer
 * name's letters differ, or one is the other's prefix of 3 letters or
 * more -- else NULL. NULL entries are skipped. */
const char *suggest_closest(const char *word, size_t len, const char *const *candidates, size_t n);

#endif
