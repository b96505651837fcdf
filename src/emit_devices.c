/* --emit=devices: the per-device view of partitioned programs — each
 * device's mesh coordinates, the global slice each argument and result
 * shard covers, and the concrete device group of each collective. */
#include <stdio.h>
#include "shardc/layout.h"
#include "shardc/partition.h"

static void print_slice(FILE *out, const Sharding *s, const TensorType *t, int64_t position)
{
    int64_t offsets[SHARDC_MAX_RANK], sizes[SHARDC_MAX_RANK], local[SHARDC_MAX_RANK];
    sharding_block(s, t, position, offsets, sizes);
    sharding_local_dims(s, t, local);
    bool padded = false;
    fputc('[', out);
    for (int d = 0; d < t->rank; d++) {
        fprintf(out, "%s%lld:%lld", d ? ", " : "", (long long)offsets[d], (long long)(offsets[d] + sizes[d]));
        padded |= sizes[d] != local[d];
    }
    fputc(']', out);
    /* An uneven dim's shard holds padding past the tensor's end. */
    for (int d = 0; padded && d < t->rank; d++)
        fprintf(out, "%s%lld", d ? "x" : " padded to ", (long long)local[d]);
}

static void print_group(FILE *out, const Mesh *mesh, const Op *op, int64_t position)
{
    const AttrValue *axes = op_attr_value(op, "axes");
    AxisRef refs[16];
    int n = 0;
    for (int i = 0; axes && i < axes->u.array.count && n < 16; i++)
        if (axis_ref_parse(mesh, axes->u.array.items[i]->u.s, &refs[n]))
            n++;
    int64_t size = axis_refs_size(refs, n);
    fprintf(out, "    %%%s = %s: group {", op->results[0]->name, op_info(op->kind)->name);
    for (int64_t k = 0; k < size; k++)
        fprintf(out, "%s%lld", k ? ", " : "", (long long)mesh_device_id(mesh, mesh_group_member(mesh, position, refs, n, k)));
    fputs("}\n", out);
}

static void print_device(FILE *out, const Op *smap, const Mesh *mesh, int64_t position)
{
    fprintf(out, "  device %lld (", (long long)mesh_device_id(mesh, position));
    for (int k = 0; k < mesh->num_axes; k++)
        fprintf(out, "%s%s=%lld", k ? ", " : "", mesh->axes[k].name, (long long)mesh_coord(mesh, position, k));
    fputs("):\n", out);
    const AttrValue *in = op_attr_value(smap, "in_specs"), *outs = op_attr_value(smap, "out_specs");
    for (int i = 0; i < smap->num_operands; i++) {
        fprintf(out, "    arg %%%s ", smap->operands[i]->name);
        print_slice(out, in->u.array.items[i]->u.sharding, &smap->operands[i]->type, position);
        fputc('\n', out);
    }
    for (int j = 0; j < smap->num_results; j++) {
        fprintf(out, "    result %d ", j);
        print_slice(out, outs->u.array.items[j]->u.sharding, &smap->results[j]->type, position);
        fputc('\n', out);
    }
    for (const Op *op = smap->region->first; op; op = op->next)
        if (op_info(op->kind)->op_class == OPC_COLLECTIVE && op->kind != OP_COLLECTIVE_PERMUTE)
            print_group(out, mesh, op, position);
}

void print_devices(FILE *out, const Module *m, int device)
{
    for (int i = 0; i < m->num_funcs; i++) {
        const Op *smap = m->funcs[i]->body->first;
        if (!smap || smap->kind != OP_SHARD_MAP || smap->next)
            continue;
        const Mesh *mesh = module_find_mesh(m, op_attr_value(smap, "mesh")->u.s);
        fprintf(out, "func @%s on @%s (%lld devices)\n", m->funcs[i]->name, mesh->name, (long long)mesh->num_devices);
        for (int64_t p = 0; p < mesh->num_devices; p++)
            if (device < 0 || mesh_device_id(mesh, p) == device)
                print_device(out, smap, mesh, p);
    }
}
