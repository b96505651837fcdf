/* Mesh layout: positions, ids, coordinates, groups and shard blocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/layout.h"
#include "shardc/checked.h"

int64_t mesh_device_id(const Mesh *mesh, int64_t position)
{
    return mesh->device_ids ? mesh->device_ids[position] : position;
}

int64_t mesh_position_of(const Mesh *mesh, int64_t device_id)
{
    if (!mesh->device_ids)
        return device_id;
    for (int64_t p = 0; p < mesh->num_devices; p++)
        if (mesh->device_ids[p] == device_id)
            return p;
    return -1;
}

static int64_t axis_stride(const Mesh *mesh, int axis)
{
    int64_t stride = 1;
    for (int k = axis + 1; k < mesh->num_axes; k++)
        stride *= mesh->axes[k].size;
    return stride;
}

int64_t mesh_coord(const Mesh *mesh, int64_t position, int axis)
{
    return position / axis_stride(mesh, axis) % mesh->axes[axis].size;
}

/* A sub-axis "x":(pre)size is the middle dim of x reshaped to
 * [pre, size, |x| / (pre * size)] (Shardy): the pre-size counts the parts
 * major to it, so its coordinate strides over the parts minor to it. */
static int64_t sub_axis_stride(const Mesh *mesh, AxisRef r)
{
    return mesh->axes[r.axis].size / (r.pre_size * r.size);
}

int64_t mesh_axis_ref_coord(const Mesh *mesh, int64_t position, AxisRef r)
{
    return mesh_coord(mesh, position, r.axis) / sub_axis_stride(mesh, r) % r.size;
}

int64_t axis_refs_size(const AxisRef *axes, int num_axes)
{
    int64_t n = 1;
    for (int i = 0; i < num_axes; i++)
        n *= axes[i].size;
    return n;
}

int64_t mesh_group_index(const Mesh *mesh, int64_t position, const AxisRef *axes, int num_axes)
{
    int64_t index = 0;
    for (int i = 0; i < num_axes; i++)
        index = index * axes[i].size + mesh_axis_ref_coord(mesh, position, axes[i]);
    return index;
}

/* Replace p's (sub-)axis coordinates along `axes` by those of `index`. */
int64_t mesh_group_member(const Mesh *mesh, int64_t position, const AxisRef *axes, int num_axes, int64_t index)
{
    for (int i = num_axes - 1; i >= 0; i--) {
        AxisRef r = axes[i];
        int64_t want = index % r.size;
        index /= r.size;
        int64_t have = mesh_axis_ref_coord(mesh, position, r);
        position += (want - have) * sub_axis_stride(mesh, r) * axis_stride(mesh, r.axis);
    }
    return position;
}

/* Shards of a dim of `size` split `shards` ways hold ceil(size / shards)
 * elements each (GSPMD's padding); the last ones may hold fewer real
 * elements, or none. */
static int64_t padded_shard_size(int64_t size, int64_t shards)
{
    return size_ceil_div(size, shards);
}

void sharding_block(const Sharding *s, const TensorType *global, int64_t position, int64_t *offsets,
                    int64_t *sizes)
{
    for (int d = 0; d < global->rank; d++) {
        const DimSharding *dim = &s->dims[d];
        int64_t shards = axis_refs_size(dim->axes, dim->num_axes);
        int64_t index = mesh_group_index(s->mesh, position, dim->axes, dim->num_axes);
        int64_t local = padded_shard_size(global->dims[d], shards);
        offsets[d] = index * local;
        if (offsets[d] > global->dims[d])
            offsets[d] = global->dims[d];
        sizes[d] = global->dims[d] - offsets[d] < local ? global->dims[d] - offsets[d] : local;
    }
}

void sharding_local_dims(const Sharding *s, const TensorType *global, int64_t *dims)
{
    for (int d = 0; d < global->rank; d++)
        dims[d] = s && d < s->rank
                      ? padded_shard_size(global->dims[d], axis_refs_size(s->dims[d].axes, s->dims[d].num_axes))
                      : global->dims[d];
}

TensorType sharding_local_type(Arena *arena, const Sharding *s, const TensorType *global)
{
    TensorType t = type_make(arena, global->dtype, global->rank, global->dims);
    sharding_local_dims(s, global, t.dims);
    return t;
}

bool sharding_divides(const Sharding *s, const TensorType *global)
{
    for (int d = 0; s && d < global->rank && d < s->rank; d++)
        if (global->dims[d] % axis_refs_size(s->dims[d].axes, s->dims[d].num_axes) != 0)
            return false;
    return true;
}

bool axis_ref_parse(const Mesh *mesh, const char *text, AxisRef *out)
{
    const char *colon = strchr(text, ':');
    size_t name_len = colon ? (size_t)(colon - text) : strlen(text);
    for (int k = 0; k < mesh->num_axes; k++) {
        if (strlen(mesh->axes[k].name) != name_len || strncmp(mesh->axes[k].name, text, name_len) != 0)
            continue;
        *out = (AxisRef){k, 1, mesh->axes[k].size};
        if (!colon)
            return true;
        long long pre, size;
        char tail;
        int64_t product;
        if (sscanf(colon, ":(%lld)%lld%c", &pre, &size, &tail) != 2 || pre < 1 || size < 2 ||
            !size_mul(pre, size, &product) || mesh->axes[k].size % product != 0)
            return false;
        *out = (AxisRef){k, pre, size};
        return true;
    }
    return false;
}

void axis_ref_format(char *buf, size_t len, const Mesh *mesh, AxisRef r)
{
    if (axis_ref_is_full(mesh, r))
        snprintf(buf, len, "%s", mesh->axes[r.axis].name);
    else
        snprintf(buf, len, "%s:(%lld)%lld", mesh->axes[r.axis].name, (long long)r.pre_size, (long long)r.size);
}

/* Blocks of a sharding: how many distinct blocks its devices hold, and
 * which one the device at a mesh position holds (row-major over dims). */
int64_t sharding_num_blocks(const Sharding *s)
{
    int64_t n = 1;
    for (int d = 0; d < s->rank; d++)
        n *= sharding_dim_shards(s, d);
    return n;
}

int64_t sharding_block_id(const Sharding *s, int64_t position)
{
    int64_t id = 0;
    for (int d = 0; d < s->rank; d++) {
        const DimSharding *dim = &s->dims[d];
        id = id * sharding_dim_shards(s, d) + mesh_group_index(s->mesh, position, dim->axes, dim->num_axes);
    }
    return id;
}
