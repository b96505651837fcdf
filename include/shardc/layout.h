/* How a mesh lays out devices and how a sharding maps a global tensor onto
 * them. Shared by the partitioner (--emit=devices, byte counts) and the
 * interpreter (splitting, assembling, collective groups).
 *
 * A device's *position* is its row-major index over the mesh axes (the last
 * axis varies fastest); its *id* is device_ids[position], or the position
 * when the mesh gives no order. Collectives over axes A group the devices
 * that agree on every other coordinate; within a group a device's index is
 * row-major over A's coordinates in the order A lists them (JAX's
 * axis_index of a tuple of axes). */
#ifndef SHARDC_LAYOUT_H
#define SHARDC_LAYOUT_H
#include <stddef.h>
#include <stdint.h>
#include "shardc/ir.h"

int64_t mesh_device_id(const Mesh *mesh, int64_t position);
int64_t mesh_position_of(const Mesh *mesh, int64_t device_id);
/* Coordinate of position p along axis k. */
int64_t mesh_coord(const Mesh *mesh, int64_t position, int axis);
/* Coordinate of position p along a (sub-)axis "x":(pre)size:
 * coord / (|x| / (pre * size)) % size (pre counts the parts major to it). */
int64_t mesh_axis_ref_coord(const Mesh *mesh, int64_t position, AxisRef r);

/* Parse "x" or the sub-axis "x:(2)2" (as collectives' `axes` write them). */
bool axis_ref_parse(const Mesh *mesh, const char *text, AxisRef *out);
/* The text form axis_ref_parse reads. */
void axis_ref_format(char *buf, size_t len, const Mesh *mesh, AxisRef r);

/* Index of position p within its group over `axes` (row-major, first
 * listed most major), and the group's size. */
int64_t mesh_group_index(const Mesh *mesh, int64_t position, const AxisRef *axes, int num_axes);
int64_t axis_refs_size(const AxisRef *axes, int num_axes);
/* The position of the member with group index `index` in p's group. */
int64_t mesh_group_member(const Mesh *mesh, int64_t position, const AxisRef *axes, int num_axes, int64_t index);

/* The block of a global tensor that position p holds under sharding s:
 * per dim, offsets[d] and the number of real elements sizes[d]. A dim of
 * size N split n ways gives every shard ceil(N / n) elements (GSPMD's
 * padding, docs/partitioning.md "Uneven dims"): shard i starts at
 * i * ceil(N / n), and sizes[d] is less than the local dim (zero for
 * shards wholly past the end) when n does not divide N. */
void sharding_block(const Sharding *s, const TensorType *global, int64_t position, int64_t *offsets,
                    int64_t *sizes);
/* The per-device dims under s: ceil(dim / shards), padding included. */
void sharding_local_dims(const Sharding *s, const TensorType *global, int64_t *dims);
/* The per-device type under s (sharding_local_dims). */
TensorType sharding_local_type(Arena *arena, const Sharding *s, const TensorType *global);
/* Whether every dim divides by its shard count. */
bool sharding_divides(const Sharding *s, const TensorType *global);

/* The number of distinct blocks of s, and the block (row-major over dims)
 * the device at a mesh position holds. */
int64_t sharding_num_blocks(const Sharding *s);
int64_t sharding_block_id(const Sharding *s, int64_t position);

#endif
