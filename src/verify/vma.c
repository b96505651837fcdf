/* JAX's varying manual axes (check_vma): how each op changes them, and the
 * report of the values whose out_specs promise replication. */

/* How each op changes the varying manual axes of its operands, following
 * JAX's abstract-evaluation rules in jax/_src/lax/parallel.py. JAX casts
 * a collective's operand to varying over the collective's axes first
 * (insert_collective_pvary, bind_psum_invariant), so:
 *   - psum, pmean, pmax, pmin (psum_invariant): invariant over their axes;
 *   - all_gather, psum_scatter (reduce_scatter), ppermute, all_to_all
 *     (collective_vma_rule): varying over the operand's axes and theirs;
 *   - axis_index: varying over exactly its axes;
 *   - any other op: the union of its operands' (implicit pvary). */
#include "shardc/layout.h"
#include "shardc/vma.h"
#include "shardc/explicit.h"

typedef enum { VMA_UNION, VMA_INVARIANT_OVER_AXES, VMA_VARYING_OVER_AXES, VMA_EXACTLY_AXES } VmaEffect;

static VmaEffect effect_of(OpKind kind)
{
    switch (kind) {
    case OP_PSUM: case OP_PMEAN: case OP_PMAX: case OP_PMIN: case OP_ALL_REDUCE:
        return VMA_INVARIANT_OVER_AXES;
    case OP_ALL_GATHER: case OP_PSUM_SCATTER: case OP_REDUCE_SCATTER: case OP_PPERMUTE: case OP_ALL_TO_ALL:
    case OP_ALL_SLICE: case OP_REPLICATED_TO_UNREDUCED: case OP_SHARDED_TO_UNREDUCED:
        return VMA_VARYING_OVER_AXES;
    case OP_AXIS_INDEX:
        return VMA_EXACTLY_AXES;
    default:
        return VMA_UNION;
    }
}

/* Add (or remove) the collective's `axes` in out. Only whole axes are
 * removed: a psum over part of an axis leaves the value varying over the
 * rest of it. */
static void apply_axes(const Mesh *mesh, const Op *op, bool add, AxisSet out)
{
    const AttrValue *axes = op_attr_get(op, ATTR_KEY_AXES);
    for (int i = 0; axes && axes->kind == ATTR_ARRAY && i < axes->u.array.count; i++) {
        const AttrValue *item = axes->u.array.items[i];
        AxisRef r;
        if (item->kind != ATTR_STRING || !axis_ref_parse(mesh, item->u.s, &r))
            continue;
        if (add)
            axis_set_add(out, r.axis);
        else if (axis_ref_is_full(mesh, r))
            axis_set_del(out, r.axis);
    }
}

void vma_result(const Mesh *mesh, const Op *op, AxisSet operands, AxisSet out)
{
    VmaEffect effect = effect_of(op->kind);
    axis_set_copy(out, operands);
    if (effect == VMA_UNION || !mesh)
        return;
    if (effect == VMA_EXACTLY_AXES)
        axis_set_clear(out);
    apply_axes(mesh, op, effect != VMA_INVARIANT_OVER_AXES, out);
}

void vma_add_all_axes(AxisSet out, const Mesh *mesh)
{
    for (int k = 0; k < mesh->num_axes; k++)
        axis_set_add(out, k);
}

/* Unreduced axes count too: an unreduced in_spec hands each device a
 * partial value, an unreduced out_spec sums the devices' (issue 16). */
void vma_add_sharding_axes(AxisSet out, const Sharding *s)
{
    for (int d = 0; s && d < s->rank; d++)
        for (int k = 0; k < s->dims[d].num_axes; k++)
            axis_set_add(out, s->dims[d].axes[k].axis);
    for (int k = 0; s && k < s->num_unreduced; k++)
        axis_set_add(out, s->unreduced[k].axis);
}

void vma_format(TextBuf *t, const Mesh *mesh, AxisSet axes)
{
    textbuf_add(t, "{");
    const char *sep = "";
    for (int k = 0; k < mesh->num_axes; k++) {
        if (!axis_set_has(axes, k))
            continue;
        textbuf_add(t, "%s%s", sep, mesh->axes[k].name);
        sep = ",";
    }
    textbuf_add(t, "}");
}

/* The check_vma error, in the words of JAX's _inout_vma_error
 * (jax/_src/shard_map.py): an error at the out_specs entry that makes the
 * promise, and a note at the body's `return` with JAX's advice. */

/* The spec as JAX prints it: PartitionSpec('x',), trailing replicated
 * dims dropped (P() is what one writes for "replicated"). */
static void spec_format(TextBuf *t, const Mesh *mesh, const Sharding *s)
{
    XDim dims[SHARDC_MAX_RANK + 1];
    XSpec view = {0, dims};
    for (int d = 0; d < s->rank && d < SHARDC_MAX_RANK; d++) {
        dims[d] = (XDim){s->dims[d].num_axes, s->dims[d].axes};
        if (s->dims[d].num_axes)
            view.rank = d + 1;
    }
    xspec_format_pspec(t, mesh, &view);
}

static int first_axis(const Mesh *mesh, AxisSet s)
{
    for (int k = 0; k < mesh->num_axes; k++)
        if (axis_set_has(s, k))
            return k;
    return 0;
}

/* JAX's two phrasings: one mesh axis left out of the spec, or several. */
static void promise_text(TextBuf *t, const VmaFailure *f, AxisSet mentioned)
{
    AxisSet unmentioned = axis_set_new(f->scratch, f->varying.words);
    vma_add_all_axes(unmentioned, f->mesh);
    axis_set_remove(unmentioned, mentioned);
    if (axis_set_count(unmentioned) > 1) {
        textbuf_add(t, "is only varying across mesh axes ");
        vma_format(t, f->mesh, mentioned);
        textbuf_add(t, " and not ");
        axis_set_intersect(unmentioned, f->varying);
        vma_format(t, f->mesh, unmentioned);
        textbuf_add(t, ", but it was inferred to be possibly varying over ");
        vma_format(t, f->mesh, f->varying);
        return;
    }
    textbuf_add(t, "is replicated across mesh axis '%s', but could not infer replication over any axes",
                f->mesh->axes[first_axis(f->mesh, f->failing)].name);
}

/* The mesh's shape and axis names as Python tuples: (2,) ('x',). */
static void mesh_text(TextBuf *t, const Mesh *mesh)
{
    textbuf_add(t, "the mesh given has shape (");
    for (int k = 0; k < mesh->num_axes; k++)
        textbuf_add(t, "%s%lld", k ? ", " : "", (long long)mesh->axes[k].size);
    textbuf_add(t, mesh->num_axes == 1 ? ",) with corresponding axis names (" : ") with corresponding axis names (");
    for (int k = 0; k < mesh->num_axes; k++)
        textbuf_add(t, "%s'%s'", k ? ", " : "", mesh->axes[k].name);
    textbuf_add(t, mesh->num_axes == 1 ? ",)" : ")");
}

void vma_report(DiagEngine *diag, const VmaFailure *f)
{
    const Sharding *spec = f->out_spec->u.sharding;
    const char *name = f->returned->name;
    TextBuf t;
    textbuf_init(&t);
    spec_format(&t, f->mesh, spec);
    textbuf_add(&t, " which implies that the corresponding output value %%%s ", name);
    AxisSet mentioned = axis_set_new(f->scratch, f->varying.words);
    vma_add_sharding_axes(mentioned, spec);
    promise_text(&t, f, mentioned);
    diag_error(diag, f->out_spec->loc, "shard_map was given out_specs which require replication which can't be "
               "statically inferred given the mesh: out_specs[%d] is %s", f->result, t.text);
    textbuf_init(&t);
    mesh_text(&t, f->mesh);
    textbuf_add(&t, "; check if %%%s is meant to be replicated over ", name);
    vma_format(&t, f->mesh, f->failing);
    textbuf_add(&t, ": if not, revise out_specs[%d]; if so, make it invariant first (psum, pmean, pmax or pmin over ",
                f->result);
    vma_format(&t, f->mesh, f->failing);
    diag_note(diag, f->shard_map->region->return_loc, "%s) or disable the check with check_vma = false (JAX: "
              "check_vma=False)", t.text);
}
