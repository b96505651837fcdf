/* Sharding origins and the --explain report. */
#include <string.h>
#include "shardc/origin.h"
#include "shardc/print.h"

void origins_init(OriginTable *t, Arena *arena, int num_values)
{
    t->num_values = num_values;
    t->dims = ARENA_ARRAY(arena, DimOrigin *, num_values + 1);
    t->missing = ARENA_ARRAY(arena, char *, num_values + 1);
    t->num_funcs = t->funcs_capacity = 0;
    t->funcs = NULL;
}

void origins_add_missing(OriginTable *t, Arena *arena, const Value *v, const char *line)
{
    if (v->id >= t->num_values || (t->missing[v->id] && strstr(t->missing[v->id], line)))
        return;
    size_t old = t->missing[v->id] ? strlen(t->missing[v->id]) : 0, add = strlen(line);
    char *text = arena_alloc(arena, old + add + 1);
    if (old)
        memcpy(text, t->missing[v->id], old);
    memcpy(text + old, line, add + 1);
    t->missing[v->id] = text;
}

DimOrigin *origins_of(OriginTable *t, Arena *arena, const Value *v)
{
    if (!t->dims[v->id])
        t->dims[v->id] = ARENA_ARRAY(arena, DimOrigin, v->type.rank + 1);
    return t->dims[v->id];
}

typedef struct Snapshot {
    OriginFunc *func;
    Arena *arena;
    int capacity;
} Snapshot;

static bool snapshot_value(Value *v, void *user)
{
    Snapshot *s = user;
    OriginFunc *f = s->func;
    if (f->num_values == s->capacity) {
        int grown = s->capacity ? 2 * s->capacity : 16;
        const Value **values = ARENA_ARRAY(s->arena, const Value *, grown);
        const Sharding **shardings = ARENA_ARRAY(s->arena, const Sharding *, grown);
        if (f->num_values) {
            memcpy(values, f->values, sizeof *values * (size_t)f->num_values);
            memcpy(shardings, f->shardings, sizeof *shardings * (size_t)f->num_values);
        }
        f->values = values;
        f->shardings = shardings;
        s->capacity = grown;
    }
    f->values[f->num_values] = v;
    f->shardings[f->num_values++] = v->sharding ? sharding_clone(s->arena, v->sharding) : NULL;
    return true;
}

void origins_snapshot_func(OriginTable *t, Arena *arena, Func *f)
{
    if (t->num_funcs == t->funcs_capacity) {
        t->funcs_capacity = t->funcs_capacity ? 2 * t->funcs_capacity : 4;
        OriginFunc *funcs = ARENA_ARRAY(arena, OriginFunc, t->funcs_capacity);
        if (t->num_funcs)
            memcpy(funcs, t->funcs, sizeof *funcs * (size_t)t->num_funcs);
        t->funcs = funcs;
    }
    OriginFunc *of = &t->funcs[t->num_funcs++];
    *of = (OriginFunc){.name = f->name};
    Snapshot s = {of, arena, 0};
    /* Propagation does not enter shard_map bodies: nothing to explain there. */
    ir_walk(f->body, &(IrWalker){.value = snapshot_value, .user = &s, .scope = IR_WALK_GLOBAL});
}

static void print_loc(FILE *out, Loc loc) { fprintf(out, "%s:%d:%d", loc.file, loc.line, loc.col); }

/* Follow dim d of v back to its annotation, one line per hop; each hop
 * continues at the source's dim that held the axes. */
static void explain_dim(FILE *out, OriginTable *t, const Value *v, int d)
{
    const Value *cur = v;
    for (int guard = 0; cur && guard < 10000; guard++) {
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

static void explain_value(FILE *out, OriginTable *t, const Value *v, const Sharding *sharding)
{
    fprintf(out, "%%%s: ", v->name);
    if (!sharding) {
        fputs("no sharding\n", out);
        return;
    }
    print_sharding(out, sharding);
    fputc('\n', out);
    for (int d = 0; d < sharding->rank; d++) {
        if (!sharding->dims[d].num_axes)
            continue;
        fprintf(out, "  dim %d {", d);
        for (int k = 0; k < sharding->dims[d].num_axes; k++) {
            if (k)
                fputs(", ", out);
            print_axis_ref(out, sharding->mesh, sharding->dims[d].axes[k]);
        }
        fputs("}\n", out);
        explain_dim(out, t, v, d);
    }
    if (v->id < t->num_values && t->missing[v->id])
        fprintf(out, "  not taken from its neighbours:\n%s", t->missing[v->id]);
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
        explain_value(e->out, e->t, v, v->sharding);
    return true;
}

static bool other_name(Value *v, void *name)
{
    return strcmp(v->name, name) != 0; /* false: found, stop */
}

static bool snapshot_has(const OriginTable *t, const char *name)
{
    for (int i = 0; i < t->num_funcs; i++)
        for (int k = 0; k < t->funcs[i].num_values; k++)
            if (strcmp(t->funcs[i].values[k]->name, name) == 0)
                return true;
    return false;
}

bool origins_check_name(const OriginTable *t, const Module *m, const char *name, DiagEngine *diag)
{
    if ((t && snapshot_has(t, name)) ||
        !ir_walk_module(m, &(IrWalker){.value = other_name, .user = (void *)name, .scope = IR_WALK_GLOBAL}))
        return true;
    diag_error(diag, (Loc){m->file, 0, 0}, "--explain=%%%s: no value %%%s in the program", name, name);
    return false;
}

static void explain_snapshots(FILE *out, OriginTable *t, const char *name)
{
    for (int i = 0; i < t->num_funcs; i++) {
        const OriginFunc *f = &t->funcs[i];
        fprintf(out, "# @%s\n", f->name);
        for (int k = 0; k < f->num_values; k++)
            if (!name || strcmp(name, f->values[k]->name) == 0)
                explain_value(out, t, f->values[k], f->shardings[k]);
    }
}

void origins_explain(FILE *out, OriginTable *t, const Module *m, const char *name)
{
    if (t->num_funcs) {
        explain_snapshots(out, t, name);
        return;
    }
    /* Propagation did not run (--pass-pipeline without it): the module as it is. */
    Explain e = {out, t, name};
    for (int i = 0; i < m->num_funcs; i++) {
        fprintf(out, "# @%s\n", m->funcs[i]->name);
        ir_walk(m->funcs[i]->body, &(IrWalker){.value = explain_named, .user = &e, .scope = IR_WALK_GLOBAL});
    }
}
