/* Shared by the collectives' files (collectives.c, collectives_permute.c). */
#ifndef SHARDC_COLLECTIVES_INTERNAL_H
#define SHARDC_COLLECTIVES_INTERNAL_H
#include "interp/interp_internal.h"

enum { GROUP_MAX_AXES = 16 };

/* The caller's group for a collective's `axes`. */
typedef struct Group {
    TransportGroup t;
    AxisRef refs[GROUP_MAX_AXES];
    int num_refs;
    int64_t *members;   /* owned; t.members points here */
} Group;

/* The op runs on a device, on that device's mesh; false (reported) if not. */
bool collective_device(ExecCtx *x, const Op *op);
bool group_resolve(ExecCtx *x, const Op *op, Group *g);
void group_free(Group *g);
/* A transport status as success or a failure at op. */
bool collective_transport_result(ExecCtx *x, const Op *op, TransportStatus status);
/* Record bytes this device received from others for op's kind. */
/* What the device sent and received in op (shardc/cost.h). */
void collective_count_traffic(ExecCtx *x, const Op *op, int64_t sent, int64_t received);
/* ... for the kinds whose sent and received bytes are alike. */
void collective_count_symmetric(ExecCtx *x, const Op *op, int64_t n, int64_t in_bytes, int64_t out_bytes);
bool collective_new_tensor(ExecCtx *x, const Op *op, DType dtype, int rank, const int64_t *dims, Tensor **out);

bool exec_collective_permute(ExecCtx *x, const Op *op, const Tensor *in, Tensor **out);

#endif
