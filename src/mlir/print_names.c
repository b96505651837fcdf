/* The MLIR printer's sets of value names (print_internal.h, MlirNameSet):
 * the names in the order added, chained by bucket, each bucket with a
 * filter that answers most look-ups without reading its chain. */
#include <string.h>
#include "print_internal.h"

/* Eight bytes a step, the last eight overlapping the step before (a
 * short name: two overlapping halves, or three of its bytes), then mixed
 * so that every bit the set uses depends on every byte: a byte a step
 * (FNV-1a) was a third of naming a value. */
uint64_t mlir_name_hash(const char *name)
{
    size_t n = strlen(name);
    const char *end = name + n;
    uint64_t h = 1469598103934665603ull ^ n, word;
    if (n >= 8) {
        for (; end - name > 8; name += 8) {
            memcpy(&word, name, 8);
            h = (h ^ word) * 0x9e3779b97f4a7c15ull;
            h ^= h >> 29;
        }
        memcpy(&word, end - 8, 8);
    } else if (n >= 4) {
        uint32_t first, last;
        memcpy(&first, name, 4);
        memcpy(&last, end - 4, 4);
        word = (uint64_t)last << 32 | first;
    } else {
        const unsigned char *u = (const unsigned char *)name;
        word = n ? (uint64_t)u[0] << 16 | (uint64_t)u[n / 2] << 8 | u[n - 1] : 0;
    }
    h ^= word; /* splitmix64's finalizer */
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

/* At most four names a bucket (one to four, as the buckets grow
 * fourfold), at most 12 of its 64 filter bits set: a name not there
 * passes the filter at most about once in 200 look-ups. */
enum { NAMES_PER_BUCKET = 4 };

/* The bucket from the low bits of the hash, the filter bits from the high ones. */
static uint64_t filter_bits(uint64_t hash)
{
    return 1ull << (hash >> 40 & 63) | 1ull << (hash >> 46 & 63) | 1ull << (hash >> 52 & 63);
}

static MlirNameBucket *bucket_of(const MlirNameSet *set, uint64_t hash)
{
    return &set->buckets[hash & (uint64_t)(set->num_buckets - 1)];
}

/* Chains entry k (the last of its bucket, as entries come in order). */
static void bucket_add(MlirNameSet *set, int k)
{
    MlirNameEntry *e = &set->entries[k];
    MlirNameBucket *b = bucket_of(set, e->hash);
    b->filter |= filter_bits(e->hash);
    e->next = b->head;
    b->head = k;
}

/* How much a set grows when full: a scope's size is not known before its
 * ops are named (counting them was a walk of the block, a cache miss an
 * op), and growing fourfold copies and rechains a third of the names
 * again, where doubling did them all again. Entries not yet used are
 * never touched. */
enum { NAME_SET_GROWTH = 4 };

static void grow_entries(MlirPrinter *p, MlirNameSet *set, int room)
{
    MlirNameEntry *entries = ARENA_ARRAY_UNINIT(&p->arena, MlirNameEntry, room);
    if (set->count)
        memcpy(entries, set->entries, sizeof *entries * (size_t)set->count);
    set->entries = entries;
    set->room = room;
}

/* num_buckets of them, refilled from the entries. */
static void rebucket(MlirPrinter *p, MlirNameSet *set, int num_buckets)
{
    set->num_buckets = num_buckets;
    set->buckets = ARENA_ARRAY_UNINIT(&p->arena, MlirNameBucket, num_buckets);
    for (int i = 0; i < num_buckets; i++)
        set->buckets[i] = (MlirNameBucket){0, -1};
    for (int k = 0; k < set->count; k++)
        bucket_add(set, k);
}

/* Room for one more entry; more buckets when they would hold more than
 * their share. */
static void name_set_reserve(MlirPrinter *p, MlirNameSet *set)
{
    if (set->count >= INT32_MAX / 4)
        arena_out_of_memory();
    if (set->count == set->room)
        grow_entries(p, set, set->room ? set->room * NAME_SET_GROWTH : 8);
    if (set->count >= set->num_buckets * NAMES_PER_BUCKET)
        rebucket(p, set, set->num_buckets ? set->num_buckets * NAME_SET_GROWTH : 4);
}

void mlir_name_set_expect(MlirPrinter *p, MlirNameSet *set, int64_t names)
{
    if (set->count || set->room || names <= 0 || names >= INT32_MAX / 4)
        return;
    int num_buckets = 4;
    while (num_buckets * NAMES_PER_BUCKET < names)
        num_buckets *= 2;
    grow_entries(p, set, (int)names);
    rebucket(p, set, num_buckets);
}

/* The entry of name in the bucket, or -1. */
static int chain_find(const MlirNameSet *set, const MlirNameBucket *b, const char *name, uint64_t hash)
{
    for (int k = b->head; k >= 0; k = set->entries[k].next)
        if (set->entries[k].hash == hash && strcmp(set->entries[k].name, name) == 0)
            return k;
    return -1;
}

int mlir_name_set_find(const MlirNameSet *set, const char *name, uint64_t hash)
{
    if (!set->count)
        return -1;
    const MlirNameBucket *b = bucket_of(set, hash);
    uint64_t bits = filter_bits(hash);
    return (b->filter & bits) == bits ? chain_find(set, b, name, hash) : -1;
}

bool mlir_name_set_has(const MlirNameSet *set, const char *name, uint64_t hash)
{
    return mlir_name_set_find(set, name, hash) >= 0;
}

bool mlir_name_set_add(MlirPrinter *p, MlirNameSet *set, const char *name, uint64_t hash)
{
    name_set_reserve(p, set);
    MlirNameBucket *b = bucket_of(set, hash);
    uint64_t bits = filter_bits(hash);
    if ((b->filter & bits) == bits && chain_find(set, b, name, hash) >= 0)
        return false;
    b->filter |= bits;
    set->entries[set->count] = (MlirNameEntry){name, hash, b->head};
    b->head = set->count++;
    return true;
}
