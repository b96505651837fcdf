/* Sharding origins and the --explain report. */
#include <string.h>
#include "shardc/origin.h"
#include "shardc/print.h"

void origins_init(OriginTable *t, Arena *arena, int num_values)
{
    t->num_values = num_values;
    t->dims = ARENA_ARRAY(arena, DimOrigin *, num_values + 1);
}

DimOrigin *origins_of(OriginTable *t, Arena *arena, const Value *v)
{
    if (!t->dims[v->id])
        t->dims[v->id] = ARENA_ARRAY(arena, DimOrigin, v->type.rank + 1);
    return t->dims[v->id];
}

static void print_loc(FILE *out, Loc loc) { fprintf(out, "%s:%d:%d", loc.file, loc.line, loc.col); }

/* Follow dim d of v back to its annotation, one line per hop; each hop
 * continues at the source's dim that held the axes. */
static void explain_dim(FILE *out, OriginTable *t, const Value *v, int d)
{
    const Value *cur = v;
    for (int guard = 0; cur && guard < 10000; guard++) {
        /* Values made after propagation (the partitioner's shard_map
         * results) are past the table. */
        bool recorded = cur->id < t->num_values && t->dims[cur->id];
        const DimOrigin *o = recorded ? &t->dims[cur->id][d < cur->type.rank ? d : 0] : NULL;
        if (!o || (!o->from && !o->via && !o->loc.file)) {
            fputs("      (no origin recorded)\n", out);
            return;
        }
        if (!o->from) {
            if (o->via)
                fprintf(out, "      from the in_specs of '%s' at ", op_info(o->via->kind)->name);
            else
                fputs("      from a function result's annotation at ", out);
            print_loc(out, o->loc.file ? o->loc : o->via->loc);
            fputc('\n', out);
            return;
        }
        if (!o->via) {
            fprintf(out, "      annotated on %%%s at ", o->from->name);
            print_loc(out, o->loc.file ? o->loc : o->from->loc);
            fputc('\n', out);
            return;
        }
        fprintf(out, "      from %%%s through '%s' at ", o->from->name, op_info(o->via->kind)->name);
        print_loc(out, o->via->loc);
        fputc('\n', out);
        d = o->from_dim;
        cur = o->from;
    }
}

static void explain_value(FILE *out, OriginTable *t, const Value *v)
{
    fprintf(out, "%%%s: ", v->name);
    if (!v->sharding) {
        fputs("no sharding\n", out);
        return;
    }
    print_sharding(out, v->sharding);
    fputc('\n', out);
    for (int d = 0; d < v->sharding->rank; d++) {
        if (!v->sharding->dims[d].num_axes)
            continue;
        fprintf(out, "  dim %d {", d);
        for (int k = 0; k < v->sharding->dims[d].num_axes; k++) {
            if (k)
                fputs(", ", out);
            print_axis_ref(out, v->sharding->mesh, v->sharding->dims[d].axes[k]);
        }
        fputs("}\n", out);
        explain_dim(out, t, v, d);
    }
}

typedef struct Explain {
    FILE *out;
    OriginTable *t;
    const char *name;   /* the one value to explain, or NULL for all */
} Explain;

static bool explain_named(Value *v, void *user)
{
    const Explain *e = user;
    if (!e->name || strcmp(e->name, v->name) == 0)
        explain_value(e->out, e->t, v);
    return true;
}

static bool other_name(Value *v, void *name)
{
    return strcmp(v->name, name) != 0; /* false: found, stop */
}

bool origins_check_name(const Module *m, const char *name, DiagEngine *diag)
{
    if (!ir_walk_module(m, &(IrWalker){.value = other_name, .user = (void *)name, .scope = IR_WALK_GLOBAL}))
        return true;
    diag_error(diag, (Loc){m->file, 0, 0}, "--explain=%%%s: no value %%%s in the program", name, name);
    return false;
}

void origins_explain(FILE *out, OriginTable *t, const Module *m, const char *name)
{
    /* Propagation does not enter shard_map bodies: nothing to explain there. */
    Explain e = {out, t, name};
    for (int i = 0; i < m->num_funcs; i++) {
        fprintf(out, "# @%s\n", m->funcs[i]->name);
        ir_walk(m->funcs[i]->body, &(IrWalker){.value = explain_named, .user = &e, .scope = IR_WALK_GLOBAL});
    }
}
