/* Varying manual axes (VMA) of a loop's carried values. While a body is
 * generated its carried arguments are taken to vary as their initial
 * values do, but an iteration can add axes (a ppermute of the carry) and
 * hand them on to another carried value in the next, so the loop's results
 * vary over the fixpoint of the body's effect, which is what out_specs
 * must name. JAX's rules are written out again here rather than taken from
 * the compiler's check_vma, so that the generator does not trust what it
 * tests. */
#include <string.h>
#include "shirgen.h"

/* The mesh axes an op's `axes` attribute names. */
static uint32_t axes_mask(const Gen *g, const Op *op)
{
    const AttrValue *axes = op_attr_get(op, ATTR_KEY_AXES);
    uint32_t mask = 0;
    for (int i = 0; axes && axes->kind == ATTR_ARRAY && i < axes->u.array.count; i++)
        for (int k = 0; k < g->mesh->num_axes; k++)
            if (axes->u.array.items[i]->kind == ATTR_STRING && !strcmp(axes->u.array.items[i]->u.s, g->mesh->axes[k].name))
                mask |= 1u << k;
    return mask;
}

/* JAX's abstract evaluation: reductions make a value invariant over their
 * axes, the other collectives varying over theirs, axis_index varies over
 * exactly its axes, everything else over the union of its operands'. */
static uint32_t op_vma(const Gen *g, const Op *op, const uint32_t *vma)
{
    uint32_t in = 0;
    for (int i = 0; i < op->num_operands; i++)
        in |= vma[op->operands[i]->id];
    switch (op->kind) {
    case OP_PSUM: case OP_PMEAN: case OP_PMAX: case OP_PMIN: return in & ~axes_mask(g, op);
    case OP_ALL_GATHER: case OP_PSUM_SCATTER: case OP_PPERMUTE: case OP_ALL_TO_ALL: return in | axes_mask(g, op);
    case OP_AXIS_INDEX: return axes_mask(g, op);
    default: return in;
    }
}

/* One iteration: the body's values given the carried ones; whether a
 * carried value gained an axis. */
static bool iterate(const Gen *g, const Block *body, uint32_t *vma, uint32_t *carried, int n)
{
    for (int i = 0; i < n && i < body->num_args; i++)
        vma[body->args[i]->id] = carried[i];
    for (const Op *op = body->first; op; op = op->next)
        for (int r = 0; r < op->num_results; r++)
            vma[op->results[r]->id] = op_vma(g, op, vma);
    bool grew = false;
    for (int i = 0; i < n && i < body->num_returns; i++) {
        uint32_t next = carried[i] | vma[body->returns[i]->id];
        grew |= next != carried[i];
        carried[i] = next;
    }
    return grew;
}

void gen_loop_vma(Gen *g, const Block *body, const GenScope *known, uint32_t *carried, int n)
{
    uint32_t *vma = ARENA_ARRAY(gen_arena(g), uint32_t, g->m->num_values + 1);
    for (const GenScope *s = known; s; s = s->outer)
        for (int i = 0; i < s->count; i++)
            vma[s->vals[i].v->id] |= s->vals[i].vma;
    while (iterate(g, body, vma, carried, n)) {
    }
}
