/* What a collective costs: include/shardc/cost.h. */
#include <stdlib.h>
#include <string.h>
#include "shardc/cost.h"

/* ceil(a * (n-1) / n) without overflow for any size a tensor may have. */
static int64_t fraction_up(int64_t a, int64_t n)
{
    int64_t whole = a / n * (n - 1), rest = a % n * (n - 1);
    return whole + rest / n + (rest % n != 0);
}

int64_t cost_collective_received(OpKind kind, int64_t n, int64_t in_bytes, int64_t out_bytes)
{
    if (kind == OP_PPERMUTE || kind == OP_COLLECTIVE_PERMUTE)
        return out_bytes; /* whatever the group: one block from one other device */
    if (n <= 1)
        return 0;
    switch (kind) {
    case OP_PSUM: case OP_PMEAN: case OP_PMAX: case OP_PMIN: case OP_ALL_REDUCE:
        return 2 * fraction_up(in_bytes, n);
    case OP_ALL_GATHER:
        return in_bytes * (n - 1);
    case OP_PSUM_SCATTER: case OP_REDUCE_SCATTER: case OP_ALL_TO_ALL:
        return fraction_up(in_bytes, n);
    default:
        return 0;
    }
}

static const OpKind slot_kinds[COST_KINDS] = {
    OP_PSUM, OP_PMEAN, OP_PMAX, OP_PMIN, OP_ALL_GATHER, OP_PSUM_SCATTER, OP_PPERMUTE, OP_ALL_TO_ALL,
    OP_AXIS_INDEX, OP_ALL_SLICE, OP_ALL_REDUCE, OP_REDUCE_SCATTER, OP_COLLECTIVE_PERMUTE,
    OP_REPLICATED_TO_UNREDUCED, OP_SHARDED_TO_UNREDUCED,
};

int cost_kind_slot(OpKind kind)
{
    for (int i = 0; i < COST_KINDS; i++)
        if (slot_kinds[i] == kind)
            return i;
    return -1;
}

OpKind cost_slot_kind(int slot) { return slot_kinds[slot]; }

static bool grow(int64_t **cells, int64_t from, int64_t to)
{
    size_t row = sizeof **cells * COST_KINDS;
    if ((uint64_t)to > SIZE_MAX / row)
        return false;
    int64_t *grown = realloc(*cells, (size_t)to * row);
    if (!grown)
        return false;
    memset(grown + from * COST_KINDS, 0, (size_t)(to - from) * row);
    *cells = grown;
    return true;
}

bool cost_tally_reserve(CostTally *t, int64_t devices)
{
    if (devices <= t->devices)
        return true;
    if (!grow(&t->received, t->devices, devices) || !grow(&t->sent, t->devices, devices))
        return false;
    t->devices = devices;
    return true;
}

void cost_tally_free(CostTally *t)
{
    free(t->received);
    free(t->sent);
    memset(t, 0, sizeof *t);
}

void cost_tally_add(CostTally *t, int64_t device, int slot, int64_t sent, int64_t received)
{
    int64_t *in = &t->received[device * COST_KINDS + slot], *out = &t->sent[device * COST_KINDS + slot];
    t->overflow |= __builtin_add_overflow(*in, received, in) | __builtin_add_overflow(*out, sent, out);
}

int64_t cost_tally_per_device(const CostTally *t, int slot, bool sent)
{
    const int64_t *cells = sent ? t->sent : t->received;
    int first = slot < 0 ? 0 : slot, end = slot < 0 ? COST_KINDS : slot + 1;
    int64_t most = 0;
    for (int64_t d = 0; d < t->devices; d++) {
        int64_t sum = 0;
        for (int k = first; k < end; k++)
            sum += cells[d * COST_KINDS + k];
        most = sum > most ? sum : most;
    }
    return most;
}

void cost_tally_merge(CostTally *to, const CostTally *from)
{
    if (!cost_tally_reserve(to, from->devices))
        to->overflow = true;
    for (int k = 0; k < COST_KINDS; k++)
        to->overflow |= __builtin_add_overflow(to->calls[k], from->calls[k], &to->calls[k]);
    for (int64_t d = 0; d < from->devices && d < to->devices; d++)
        for (int k = 0; k < COST_KINDS; k++)
            cost_tally_add(to, d, k, from->sent[d * COST_KINDS + k], from->received[d * COST_KINDS + k]);
    to->overflow |= from->overflow;
}
