/* shirgen's random numbers and options. splitmix64: tiny, fast, and every
 * seed gives an independent, reproducible stream on every platform. */
#include <string.h>
#include "shirgen.h"

void rng_seed(Rng *r, uint64_t seed) { r->state = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull; }

uint64_t rng_u64(Rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int rng_below(Rng *r, int n) { return n <= 1 ? 0 : (int)(rng_u64(r) % (uint64_t)n); }

int rng_range(Rng *r, int lo, int hi) { return hi <= lo ? lo : lo + rng_below(r, hi - lo + 1); }

bool rng_pct(Rng *r, int percent) { return rng_below(r, 100) < percent; }

double rng_unit(Rng *r) { return (double)(rng_u64(r) >> 11) * 0x1p-53; }

void rng_shuffle(Rng *r, int *items, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rng_below(r, i + 1);
        int t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
}

void gen_default_opts(GenOpts *o)
{
    *o = (GenOpts){.seed = 1, .num_ops = 0, .max_devices = 16, .max_elems = 2048,
                   .uneven = false, .features = FEAT_ALL};
}

static const struct {
    const char *name;
    unsigned bit;
} feature_names[] = {
    {"custom", FEAT_CUSTOM}, {"partition_fn", FEAT_PARTITION_FN}, {"shard_map", FEAT_SHARD_MAP},
    {"call", FEAT_CALL}, {"bf16", FEAT_BF16}, {"sub_axes", FEAT_SUB_AXES},
    {"priorities", FEAT_PRIORITIES}, {"device_ids", FEAT_DEVICE_IDS}, {"empty", FEAT_EMPTY},
    {"constraints", FEAT_CONSTRAINTS}, {"result_shardings", FEAT_RESULT_SHARDINGS},
    {"odd_resize", FEAT_ODD_RESIZE},
    {"control_flow", FEAT_CONTROL_FLOW},
};

static bool feature_bit(const char *name, size_t len, unsigned *bit)
{
    for (size_t i = 0; i < sizeof feature_names / sizeof feature_names[0]; i++) {
        if (strlen(feature_names[i].name) == len && strncmp(feature_names[i].name, name, len) == 0) {
            *bit = feature_names[i].bit;
            return true;
        }
    }
    return false;
}

bool gen_parse_features(const char *list, unsigned *out)
{
    *out = 0;
    while (*list) {
        size_t len = strcspn(list, ",");
        unsigned bit;
        if (len && !feature_bit(list, len, &bit))
            return false;
        if (len)
            *out |= bit;
        list += len + (list[len] == ',');
    }
    return true;
}

void gen_print_features(FILE *out, const char *prefix, unsigned bits)
{
    const char *sep = prefix;
    for (size_t i = 0; i < sizeof feature_names / sizeof feature_names[0]; i++) {
        if (bits & feature_names[i].bit) {
            fprintf(out, "%s%s", sep, feature_names[i].name);
            sep = ",";
        }
    }
}
