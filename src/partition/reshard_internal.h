/* The reshard planner's private parts (reshard_plan.c, reshard_shardy.c,
 * reshard_axes.c). */
#ifndef SHARDC_RESHARD_INTERNAL_H
#define SHARDC_RESHARD_INTERNAL_H
#include "shardc/partition.h"

/* Axes of all dims of one side of a reshard, sub-axes split: more than a
 * mesh's axes ever come to. */
enum { RESHARD_MAX_AXES = 64 };

/* ---- axis lists (reshard_axes.c) ---- */
bool reshard_list_insert(AxisList *l, int at, AxisRef a);
void reshard_list_erase(AxisList *l, int at);
int reshard_list_find(const AxisList *l, AxisRef a);
/* Whether a divides b or b divides a. */
bool reshard_sizes_divisible(int64_t a, int64_t b);
bool reshard_prefix_without_overlap(const Mesh *mesh, AxisRef a, AxisRef b, AxisRef *out);
void reshard_sort_axes(AxisRef *axes, int count);
/* Shardy's alignSubAxesByDecomposition: split the axes of `lists` where
 * they overlap the (sorted, disjoint) `ordered` axes in part; of two
 * sides, each by the other. False if a list overflows. */
bool reshard_align_lists(const Mesh *mesh, AxisList *lists, int n, const AxisRef *ordered, int count);
bool reshard_align_both(const Mesh *mesh, AxisList *in, AxisList *out, int n);

/* ---- the planners ---- */
typedef struct ReshardRequest {
    const Mesh *mesh;
    const int64_t *shape;   /* the global dims; NULL: every size divides */
    const DimAxes *from, *to; /* partial results already reduced */
    bool reorder_devices;   /* the target's mesh orders the devices otherwise */
} ReshardRequest;

/* Shardy's CollectiveInserter (reshard_shardy.c), appending its steps to
 * `plan`. False if its two rounds do not reach the target (axes whose
 * sizes do not divide each other) or a list overflows. */
bool reshard_plan_shardy(ReshardPlan *plan, const ReshardRequest *req);
/* Copy the dims below in's rank (a whole DimAxes is 6 KB). */
void reshard_dim_axes_copy(DimAxes *out, const DimAxes *in);
bool reshard_add_step(ReshardPlan *plan, ReshardStepKind kind, int dim, int src_dim, const AxisList *axes,
                      const DimAxes *after);

#endif
