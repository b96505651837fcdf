/* The canonical printer. Attributes print sorted by name, shardings in
 * Shardy's syntax, types JAX-style; the output parses back to the same IR. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/io.h"
#include "shardc/print.h"

void print_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(out, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", out);
        else if (*s == '\t')
            fputs("\\t", out);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

void print_float(FILE *out, double v)
{
    if (isnan(v)) {
        fputs("nan", out);
        return;
    }
    if (isinf(v)) {
        fputs(v < 0 ? "-inf" : "inf", out);
        return;
    }
    char buf[40];
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(buf, sizeof buf, "%.*g", precision, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, out);
    if (!strpbrk(buf, ".e"))
        fputs(".0", out);
}

void print_axis_ref(FILE *out, const Mesh *mesh, AxisRef r)
{
    print_string(out, mesh->axes[r.axis].name);
    if (!axis_ref_is_full(mesh, r))
    {
        fputs(":(", out);
        io_put_int(out, (long long)r.pre_size);
        fputc(')', out);
        io_put_int(out, (long long)r.size);
    }
}

static void print_dim(FILE *out, const Mesh *mesh, const DimSharding *dim)
{
    fputc('{', out);
    for (int k = 0; k < dim->num_axes; k++) {
        if (k)
            fputs(", ", out);
        print_axis_ref(out, mesh, dim->axes[k]);
    }
    if (!dim->is_closed)
        fputs(dim->num_axes ? ", ?" : "?", out);
    fputc('}', out);
    if (dim->priority != PRIORITY_NONE)
    {
        fputc('p', out);
        io_put_int(out, dim->priority);
    }
}

static void print_axis_set(FILE *out, const Mesh *mesh, const char *key, const AxisRef *axes, int count)
{
    fputs(", ", out);
    fputs(key, out);
    fputc('{', out);
    for (int k = 0; k < count; k++) {
        if (k)
            fputs(", ", out);
        print_axis_ref(out, mesh, axes[k]);
    }
    fputc('}', out);
}

void print_sharding(FILE *out, const Sharding *s)
{
    /* fputs, not fprintf, here and below: the printer's hot paths (a
     * format with a `*` width takes glibc's slow positional path) */
    fputs("<@", out);
    fputs(s->mesh ? s->mesh->name : "?", out);
    fputs(", [", out);
    for (int d = 0; d < s->rank; d++) {
        if (d)
            fputs(", ", out);
        print_dim(out, s->mesh, &s->dims[d]);
    }
    fputc(']', out);
    if (s->num_replicated)
        print_axis_set(out, s->mesh, "replicated=", s->replicated, s->num_replicated);
    if (s->num_unreduced)
        print_axis_set(out, s->mesh, s->unreduced_op == UNREDUCED_MAX ? "unreduced=max"
                                     : s->unreduced_op == UNREDUCED_MIN ? "unreduced=min" : "unreduced=",
                       s->unreduced, s->num_unreduced);
    fputc('>', out);
}

/* `,` after an entry, then a new line indented by `indent` (>= 0). */
static void new_line_at(FILE *out, bool after_entry, int indent)
{
    fputs(after_entry ? ",\n" : "\n", out);
    io_put_spaces(out, indent);
}

static int compare_named_attrs(const void *a, const void *b)
{
    return strcmp(((const NamedAttr *)a)->name, ((const NamedAttr *)b)->name);
}

/* `{a = 1, b = 2}` sorted by name; indent >= 0 puts each entry on a line
 * of its own at that indent. */
static bool attrs_sorted(const NamedAttr *attrs, int count)
{
    for (int i = 1; i < count; i++)
        if (strcmp(attrs[i - 1].name, attrs[i].name) > 0)
            return false;
    return true;
}

static void print_attr_dict_at(FILE *out, const NamedAttr *attrs, int count, int indent)
{
    /* Most dicts are written in order already: copied and sorted only when
     * not (glibc's qsort is a stable merge sort, so that is the same). */
    NamedAttr *sorted = NULL;
    if (!attrs_sorted(attrs, count)) {
        if (!(sorted = malloc(sizeof(NamedAttr) * (size_t)count)))
            arena_out_of_memory();
        memcpy(sorted, attrs, sizeof(NamedAttr) * (size_t)count);
        qsort(sorted, (size_t)count, sizeof(NamedAttr), compare_named_attrs);
        attrs = sorted;
    }
    fputc('{', out);
    for (int i = 0; i < count; i++) {
        if (indent >= 0)
            new_line_at(out, i > 0, indent);
        else if (i)
            fputs(", ", out);
        fputs(attrs[i].name, out);
        fputs(" = ", out);
        print_attr_value(out, attrs[i].value);
    }
    fputc('}', out);
    free(sorted);
}

static void print_attr_dict(FILE *out, const NamedAttr *attrs, int count)
{
    print_attr_dict_at(out, attrs, count, -1);
}

void print_attr_value(FILE *out, const AttrValue *v)
{
    switch (v->kind) {
    case ATTR_INT: io_put_int(out, (long long)v->u.i); break;
    case ATTR_FLOAT: print_float(out, v->u.f); break;
    case ATTR_BOOL: fputs(v->u.b ? "true" : "false", out); break;
    case ATTR_STRING: print_string(out, v->u.s); break;
    case ATTR_SYMBOL: fputc('@', out); fputs(v->u.s, out); break;
    case ATTR_SHARDING: print_sharding(out, v->u.sharding); break;
    case ATTR_DICT: print_attr_dict(out, v->u.dict.items, v->u.dict.count); break;
    case ATTR_ARRAY:
        fputc('[', out);
        for (int i = 0; i < v->u.array.count; i++) {
            if (i)
                fputs(", ", out);
            print_attr_value(out, v->u.array.items[i]);
        }
        fputc(']', out);
        break;
    }
}

/* Printing modules, functions and ops. */

static void print_value_list(FILE *out, Value *const *values, int count)
{
    for (int i = 0; i < count; i++) {
        fputs(i ? ", %" : "%", out);
        fputs(values[i]->name, out);
    }
}

/* A dict too long for one line, one attribute a line under the op (a
 * shard_map's specs ran to 970 characters: golden diffs became unreadable). */
static void print_dict_lines(FILE *out, const AttrValue *dict, int indent)
{
    fputc(' ', out);
    print_attr_dict_at(out, dict->u.dict.items, dict->u.dict.count, indent + 6);
}

/* The dict's length printed on one line. */
static size_t dict_width(const AttrValue *dict)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return 0;
    print_attr_value(mem, dict);
    fclose(mem);
    free(text);
    return len;
}

enum { SHARD_MAP_LINE = 100 };

/* An op's attributes plus its result shardings, as one sorted dict; a
 * shard_map's on lines of their own when they would not fit one. */
static void print_op_attrs(FILE *out, const Op *op, int indent)
{
    Arena scratch;
    arena_init(&scratch);
    int count = op->num_attrs;
    NamedAttr *attrs = ARENA_ARRAY(&scratch, NamedAttr, op->num_attrs + 2);
    if (op->num_attrs) /* attrs is NULL then, and memcpy's source must not be */
        memcpy(attrs, op->attrs, sizeof(NamedAttr) * (size_t)op->num_attrs);
    bool any_sharding = false;
    const Mesh *mesh = NULL;
    for (int i = 0; i < op->num_results; i++) {
        any_sharding |= op->results[i]->sharding != NULL;
        if (op->results[i]->sharding)
            mesh = op->results[i]->sharding->mesh;
    }
    if (any_sharding) {
        AttrValue *v;
        if (op->num_results == 1) {
            v = attr_new(&scratch, ATTR_SHARDING, op->loc);
            v->u.sharding = op->results[0]->sharding;
        } else {
            v = attr_new(&scratch, ATTR_ARRAY, op->loc);
            v->u.array.count = op->num_results;
            v->u.array.items = ARENA_ARRAY(&scratch, AttrValue *, op->num_results);
            for (int i = 0; i < op->num_results; i++) {
                AttrValue *item = attr_new(&scratch, ATTR_SHARDING, op->loc);
                const Value *r = op->results[i];
                item->u.sharding = r->sharding ? r->sharding
                                               : sharding_new_open(&scratch, mesh, r->type.rank);
                v->u.array.items[i] = item;
            }
        }
        const char *name = op->num_results == 1 ? "sharding" : "shardings";
        attrs[count++] = (NamedAttr){.name = name, .loc = op->loc, .value = v};
    }
    if (op->num_results == 1 && op->results[0]->logical)
        attrs[count++] = (NamedAttr){.name = "logical", .loc = op->loc,
                                     .value = print_logical_axes_attr(&scratch, op->results[0]->logical)};
    if (count) {
        AttrValue dict = {.kind = ATTR_DICT, .u.dict = {count, attrs}};
        if (op->kind == OP_SHARD_MAP && dict_width(&dict) > SHARD_MAP_LINE) {
            print_dict_lines(out, &dict, indent);
        } else {
            fputc(' ', out);
            print_attr_value(out, &dict);
        }
    }
    arena_free(&scratch);
}

static void print_block_args(FILE *out, const Block *b, int indent, bool one_per_line)
{
    fputc('(', out);
    for (int i = 0; i < b->num_args; i++) {
        const Value *v = b->args[i];
        if (one_per_line)
            new_line_at(out, i > 0, indent + 4);
        else if (i)
            fputs(", ", out);
        fputc('%', out);
        fputs(v->name, out);
        fputs(": ", out);
        type_print(out, &v->type);
        print_value_layout(out, v->sharding, v->logical);
    }
    fputc(')', out);
}

static void print_block_body(FILE *out, const Block *b, int indent, const PrintHooks *hooks)
{
    for (const Op *op = b->first; op; op = op->next)
        print_op(out, op, indent + 2, hooks);
    io_put_spaces(out, indent + 2);
    fputs("return", out);
    if (b->num_returns)
        fputc(' ', out);
    print_value_list(out, b->returns, b->num_returns);
    fputc('\n', out);
    io_put_spaces(out, indent);
    fputc('}', out);
}

void print_op(FILE *out, const Op *op, int indent, const PrintHooks *hooks)
{
    if (hooks && hooks->before_op)
        hooks->before_op(out, op, indent, hooks->user);
    io_put_spaces(out, indent);
    print_value_list(out, op->results, op->num_results);
    if (op->num_results)
        fputs(" = ", out);
    fputs(op_info(op->kind)->name, out);
    if (op->str) {
        fputc(' ', out);
        print_string(out, op->str);
    }
    if (op->callee) {
        fputs(" @", out);
        fputs(op->callee, out);
        fputc('(', out);
        print_value_list(out, op->operands, op->num_operands);
        fputc(')', out);
    } else if (op->num_operands) {
        fputc(' ', out);
        print_value_list(out, op->operands, op->num_operands);
    }
    print_op_attrs(out, op, indent);
    if (op->region) {
        fputc(' ', out);
        print_block_args(out, op->region, indent + 2, op->kind == OP_SHARD_MAP && op->region->num_args > 2);
        fputs(" {\n", out);
        print_block_body(out, op->region, indent, hooks);
    }
    for (int i = 0; i < op->num_regions; i++) {
        fputc(' ', out);
        print_block_args(out, op->regions[i], indent, false);
        fputs(" {\n", out);
        print_block_body(out, op->regions[i], indent, hooks);
    }
    if (op->num_results) /* a result-less op's types are its operands' */
        fputs(" : ", out);
    for (int i = 0; i < op->num_results; i++) {
        if (i)
            fputs(", ", out);
        type_print(out, &op->results[i]->type);
    }
    fputc('\n', out);
}

static void print_func_results(FILE *out, const Func *f)
{
    bool any_sharding = false;
    for (int i = 0; i < f->num_results; i++)
        any_sharding |= f->result_shardings[i] != NULL || (f->result_logical && f->result_logical[i]);
    if (f->num_results == 0)
        return;
    fputs(" -> ", out);
    bool parens = f->num_results != 1 || any_sharding;
    if (parens)
        fputc('(', out);
    for (int i = 0; i < f->num_results; i++) {
        if (i)
            fputs(", ", out);
        type_print(out, &f->result_types[i]);
        print_value_layout(out, f->result_shardings[i], f->result_logical ? f->result_logical[i] : NULL);
    }
    if (parens)
        fputc(')', out);
}

void print_func(FILE *out, const Func *f, const PrintHooks *hooks)
{
    bool one_per_line = false;
    for (int i = 0; i < f->body->num_args; i++)
        one_per_line |= (f->body->args[i]->sharding || f->body->args[i]->logical) && f->body->num_args > 1;
    fprintf(out, "func @%s", f->name);
    print_block_args(out, f->body, 0, one_per_line);
    print_func_results(out, f);
    fputs(" {\n", out);
    print_block_body(out, f->body, 0, hooks);
    fputc('\n', out);
}

static void print_mesh(FILE *out, const Mesh *mesh)
{
    fprintf(out, "mesh @%s = <", mesh->name);
    for (int i = 0; i < mesh->num_axes; i++) {
        if (i)
            fputs(", ", out);
        print_string(out, mesh->axes[i].name);
        fprintf(out, "=%lld%s", (long long)mesh->axes[i].size, mesh->axes[i].is_explicit ? " explicit" : "");
    }
    if (mesh->device_ids) {
        fputs(mesh->num_axes ? ", device_ids=[" : "device_ids=[", out);
        for (int64_t k = 0; k < mesh->num_devices; k++)
            fprintf(out, "%s%lld", k ? ", " : "", (long long)mesh->device_ids[k]);
        fputc(']', out);
    }
    fputs(">\n", out);
}

void print_module(FILE *out, const Module *m) { print_module_hooked(out, m, NULL); }

void print_module_hooked(FILE *out, const Module *m, const PrintHooks *hooks)
{
    for (int i = 0; i < m->num_meshes; i++)
        print_mesh(out, m->meshes[i]);
    for (int i = 0; i < m->num_funcs; i++) {
        if (i || m->num_meshes)
            fputc('\n', out);
        print_func(out, m->funcs[i], hooks);
    }
}

/* Printing logical axis names, `logical = ["batch", ""]`, in the attribute
 * syntax they were written in, so unresolved names round-trip. */

AttrValue *print_logical_axes_attr(Arena *arena, const LogicalAxes *names)
{
    AttrValue *v = attr_new(arena, ATTR_ARRAY, names->loc);
    v->u.array.count = names->rank;
    v->u.array.items = ARENA_ARRAY(arena, AttrValue *, names->rank + 1);
    for (int d = 0; d < names->rank; d++) {
        v->u.array.items[d] = attr_new(arena, ATTR_STRING, names->locs[d]);
        v->u.array.items[d]->u.s = names->names[d];
    }
    return v;
}

void print_logical_axes(FILE *out, const LogicalAxes *names)
{
    fputc('[', out);
    for (int d = 0; d < names->rank; d++) {
        if (d)
            fputs(", ", out);
        print_string(out, names->names[d]);
    }
    fputc(']', out);
}

/* ` {sharding = <...>}` or ` {logical = [...]}` after an argument or
 * result type; nothing for a value with neither. */
void print_value_layout(FILE *out, const Sharding *sharding, const LogicalAxes *logical)
{
    if (sharding) {
        fputs(" {sharding = ", out);
        print_sharding(out, sharding);
        fputc('}', out);
    } else if (logical) {
        fputs(" {logical = ", out);
        print_logical_axes(out, logical);
        fputc('}', out);
    }
}
