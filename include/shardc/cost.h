/* The one definition of what a collective costs (docs/partitioning.md,
 * "Cost metrics"). `shardc --stats`, `shardc run --stats` and the
 * auto-sharding cost model all count bytes with this function, so their
 * figures can be compared number for number. */
#ifndef SHARDC_COST_H
#define SHARDC_COST_H
#include <stdint.h>
#include "shardc/ir.h"

/* Bytes one device of a group of `n` receives in collective `kind` under
 * the bandwidth-optimal algorithm, from its local operand and result
 * bytes: all-reduces (psum, pmean, pmax, pmin, all_reduce) 2(n-1)/n of the
 * operand (ring reduce-scatter + all-gather), all_gather the n-1 blocks it
 * lacks, reduce-scatters and all_to_all (n-1)/n of the operand, a permute
 * its whole result (when its source is another device: the caller's
 * business), all_slice and axis_index nothing. Fractions round up, so a
 * scalar all-reduce is not free. Sent bytes equal received bytes for every
 * kind but the permutes, where a device sends its operand to each other
 * device that takes it. */
int64_t cost_collective_received(OpKind kind, int64_t n, int64_t in_bytes, int64_t out_bytes);

/* The collective kinds, numbered 0..COST_KINDS-1 (-1: not a collective). */
enum { COST_KINDS = 15 };
int cost_kind_slot(OpKind kind);
OpKind cost_slot_kind(int slot);

/* Traffic by device and collective kind: what the partitioner counts from
 * the program text (stats_count_program) and what the interpreter measures
 * running it have this one shape, and are compared as such. */
typedef struct CostTally {
    int64_t devices;                /* by device id, 0..devices-1 */
    int64_t calls[COST_KINDS];      /* executions per run of the program */
    int64_t *received;              /* [devices][COST_KINDS] bytes received */
    int64_t *sent;                  /* [devices][COST_KINDS] bytes sent */
    bool overflow;                  /* a sum passed INT64_MAX */
} CostTally;

/* Sized for `devices` (grows, keeping counts); false when out of memory. */
bool cost_tally_reserve(CostTally *t, int64_t devices);
void cost_tally_free(CostTally *t);
void cost_tally_add(CostTally *t, int64_t device, int slot, int64_t sent, int64_t received);
/* The most any device received (sent: false) or sent of kind `slot`, or
 * of every kind (slot -1). */
int64_t cost_tally_per_device(const CostTally *t, int slot, bool sent);
/* to += from, device by device. */
void cost_tally_merge(CostTally *to, const CostTally *from);

#endif
