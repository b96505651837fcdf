/* The canonical printer. Attributes print sorted by name, shardings in
 * Shardy's syntax, types JAX-style; the output parses back to the same IR. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/print.h"

/* `"..."` with `"`, `\\`, newline and tab escaped; runs of plain
 * characters are copied whole. */
void print_string_to(Writer *out, const char *s)
{
    writer_char(out, '"');
    for (;;) {
        const char *run = s;
        while (*s && *s != '"' && *s != '\\' && *s != '\n' && *s != '\t')
            s++;
        writer_bytes(out, run, (size_t)(s - run));
        if (!*s)
            break;
        writer_char(out, '\\');
        writer_char(out, *s == '\n' ? 'n' : *s == '\t' ? 't' : *s);
        s++;
    }
    writer_char(out, '"');
}

void print_float_to(Writer *out, double v)
{
    if (isnan(v)) {
        writer_str(out, "nan");
        return;
    }
    if (isinf(v)) {
        writer_str(out, v < 0 ? "-inf" : "inf");
        return;
    }
    char buf[40];
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(buf, sizeof buf, "%.*g", precision, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    writer_str(out, buf);
    if (!strpbrk(buf, ".e"))
        writer_str(out, ".0");
}

void print_axis_ref_to(Writer *out, const Mesh *mesh, AxisRef r)
{
    print_string_to(out, mesh->axes[r.axis].name);
    if (!axis_ref_is_full(mesh, r))
    {
        writer_str(out, ":(");
        writer_int(out, (long long)r.pre_size);
        writer_char(out, ')');
        writer_int(out, (long long)r.size);
    }
}

static void print_dim(Writer *out, const Mesh *mesh, const DimSharding *dim)
{
    writer_char(out, '{');
    for (int k = 0; k < dim->num_axes; k++) {
        if (k)
            writer_str(out, ", ");
        print_axis_ref_to(out, mesh, dim->axes[k]);
    }
    if (!dim->is_closed)
        writer_str(out, dim->num_axes ? ", ?" : "?");
    writer_char(out, '}');
    if (dim->priority != PRIORITY_NONE)
    {
        writer_char(out, 'p');
        writer_int(out, dim->priority);
    }
}

static void print_axis_set(Writer *out, const Mesh *mesh, const char *key, const AxisRef *axes, int count)
{
    writer_str(out, ", ");
    writer_str(out, key);
    writer_char(out, '{');
    for (int k = 0; k < count; k++) {
        if (k)
            writer_str(out, ", ");
        print_axis_ref_to(out, mesh, axes[k]);
    }
    writer_char(out, '}');
}

void print_sharding_to(Writer *out, const Sharding *s)
{
    /* fputs, not fprintf, here and below: the printer's hot paths (a
     * format with a `*` width takes glibc's slow positional path) */
    writer_str(out, "<@");
    writer_str(out, s->mesh ? s->mesh->name : "?");
    writer_str(out, ", [");
    for (int d = 0; d < s->rank; d++) {
        if (d)
            writer_str(out, ", ");
        print_dim(out, s->mesh, &s->dims[d]);
    }
    writer_char(out, ']');
    if (s->num_replicated)
        print_axis_set(out, s->mesh, "replicated=", s->replicated, s->num_replicated);
    if (s->num_unreduced)
        print_axis_set(out, s->mesh, s->unreduced_op == UNREDUCED_MAX ? "unreduced=max"
                                     : s->unreduced_op == UNREDUCED_MIN ? "unreduced=min" : "unreduced=",
                       s->unreduced, s->num_unreduced);
    writer_char(out, '>');
}

/* `,` after an entry, then a new line indented by `indent` (>= 0). */
static void new_line_at(Writer *out, bool after_entry, int indent)
{
    writer_str(out, after_entry ? ",\n" : "\n");
    writer_spaces(out, indent);
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

static void print_attr_dict_at(Writer *out, const NamedAttr *attrs, int count, int indent)
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
    writer_char(out, '{');
    for (int i = 0; i < count; i++) {
        if (indent >= 0)
            new_line_at(out, i > 0, indent);
        else if (i)
            writer_str(out, ", ");
        writer_str(out, attrs[i].name);
        writer_str(out, " = ");
        print_attr_value_to(out, attrs[i].value);
    }
    writer_char(out, '}');
    free(sorted);
}

static void print_attr_dict(Writer *out, const NamedAttr *attrs, int count)
{
    print_attr_dict_at(out, attrs, count, -1);
}

void print_attr_value_to(Writer *out, const AttrValue *v)
{
    switch (v->kind) {
    case ATTR_INT: writer_int(out, (long long)v->u.i); break;
    case ATTR_FLOAT: print_float_to(out, v->u.f); break;
    case ATTR_BOOL: writer_str(out, v->u.b ? "true" : "false"); break;
    case ATTR_STRING: print_string_to(out, v->u.s); break;
    case ATTR_SYMBOL: writer_char(out, '@'); writer_str(out, v->u.s); break;
    case ATTR_SHARDING: print_sharding_to(out, v->u.sharding); break;
    case ATTR_DICT: print_attr_dict(out, v->u.dict.items, v->u.dict.count); break;
    case ATTR_ARRAY:
        writer_char(out, '[');
        for (int i = 0; i < v->u.array.count; i++) {
            if (i)
                writer_str(out, ", ");
            print_attr_value_to(out, v->u.array.items[i]);
        }
        writer_char(out, ']');
        break;
    }
}

/* Printing modules, functions and ops. */

static void print_value_list(Writer *out, Value *const *values, int count)
{
    for (int i = 0; i < count; i++) {
        writer_str(out, i ? ", %" : "%");
        writer_str(out, values[i]->name);
    }
}

/* A dict too long for one line, one attribute a line under the op (a
 * shard_map's specs ran to 970 characters: golden diffs became unreadable). */
static void print_dict_lines(Writer *out, const AttrValue *dict, int indent)
{
    writer_char(out, ' ');
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

/* The op's result shardings as one attribute value: `sharding` of one
 * result (in *single, no allocation), `shardings` of several (an array in
 * scratch, a result with none open on the others' mesh); NULL if none. */
static AttrValue *result_shardings_attr(const Op *op, AttrValue *single, Arena *scratch, const char **name)
{
    const Mesh *mesh = NULL;
    for (int i = 0; i < op->num_results; i++)
        if (op->results[i]->sharding)
            mesh = op->results[i]->sharding->mesh;
    if (!mesh)
        return NULL;
    *name = op->num_results == 1 ? "sharding" : "shardings";
    if (op->num_results == 1) {
        *single = (AttrValue){.kind = ATTR_SHARDING, .loc = op->loc, .u.sharding = op->results[0]->sharding};
        return single;
    }
    AttrValue *v = attr_new(scratch, ATTR_ARRAY, op->loc);
    v->u.array.count = op->num_results;
    v->u.array.items = ARENA_ARRAY(scratch, AttrValue *, op->num_results);
    for (int i = 0; i < op->num_results; i++) {
        AttrValue *item = attr_new(scratch, ATTR_SHARDING, op->loc);
        const Value *r = op->results[i];
        item->u.sharding = r->sharding ? r->sharding : sharding_new_open(scratch, mesh, r->type.rank);
        v->u.array.items[i] = item;
    }
    return v;
}

/* An op's attributes plus its result shardings, as one sorted dict; a
 * shard_map's on lines of their own when they would not fit one. The
 * common op's dict is built on the stack: a scratch arena per op (a
 * malloc and a free) was a sixth of printing. */
static void print_op_attrs(Writer *out, const Op *op, int indent)
{
    enum { INLINE_ATTRS = 8 };
    NamedAttr inline_attrs[INLINE_ATTRS];
    AttrValue single;
    Arena scratch;
    arena_init(&scratch); /* allocates nothing until used */
    NamedAttr *attrs = op->num_attrs + 2 <= INLINE_ATTRS ? inline_attrs
                                                         : ARENA_ARRAY(&scratch, NamedAttr, op->num_attrs + 2);
    int count = op->num_attrs;
    if (op->num_attrs) /* op->attrs may be NULL then, and memcpy's source must not be */
        memcpy(attrs, op->attrs, sizeof(NamedAttr) * (size_t)op->num_attrs);
    const char *name = NULL;
    AttrValue *shardings = result_shardings_attr(op, &single, &scratch, &name);
    if (shardings)
        attrs[count++] = (NamedAttr){.name = name, .loc = op->loc, .value = shardings};
    if (op->num_results == 1 && op->results[0]->logical)
        attrs[count++] = (NamedAttr){.name = "logical", .loc = op->loc,
                                     .value = print_logical_axes_attr(&scratch, op->results[0]->logical)};
    if (count) {
        AttrValue dict = {.kind = ATTR_DICT, .u.dict = {count, attrs}};
        if (op->kind == OP_SHARD_MAP && dict_width(&dict) > SHARD_MAP_LINE) {
            print_dict_lines(out, &dict, indent);
        } else {
            writer_char(out, ' ');
            print_attr_value_to(out, &dict);
        }
    }
    arena_free(&scratch);
}

static void print_block_args(Writer *out, const Block *b, int indent, bool one_per_line)
{
    writer_char(out, '(');
    for (int i = 0; i < b->num_args; i++) {
        const Value *v = b->args[i];
        if (one_per_line)
            new_line_at(out, i > 0, indent + 4);
        else if (i)
            writer_str(out, ", ");
        writer_char(out, '%');
        writer_str(out, v->name);
        writer_str(out, ": ");
        type_print_to(out, &v->type);
        print_value_layout_to(out, v->sharding, v->logical);
    }
    writer_char(out, ')');
}

static void print_block_body(Writer *out, const Block *b, int indent, const PrintHooks *hooks)
{
    for (const Op *op = b->first; op; op = op->next)
        print_op_to(out, op, indent + 2, hooks);
    writer_spaces(out, indent + 2);
    writer_str(out, "return");
    if (b->num_returns)
        writer_char(out, ' ');
    print_value_list(out, b->returns, b->num_returns);
    writer_char(out, '\n');
    writer_spaces(out, indent);
    writer_char(out, '}');
}

void print_op_to(Writer *out, const Op *op, int indent, const PrintHooks *hooks)
{
    if (hooks && hooks->before_op)
        hooks->before_op(writer_stream(out), op, indent, hooks->user); /* stdio: flushed up to here */
    writer_spaces(out, indent);
    print_value_list(out, op->results, op->num_results);
    if (op->num_results)
        writer_str(out, " = ");
    writer_str(out, op_info(op->kind)->name);
    if (op->str) {
        writer_char(out, ' ');
        print_string_to(out, op->str);
    }
    if (op->callee) {
        writer_str(out, " @");
        writer_str(out, op->callee);
        writer_char(out, '(');
        print_value_list(out, op->operands, op->num_operands);
        writer_char(out, ')');
    } else if (op->num_operands) {
        writer_char(out, ' ');
        print_value_list(out, op->operands, op->num_operands);
    }
    print_op_attrs(out, op, indent);
    if (op->region) {
        writer_char(out, ' ');
        print_block_args(out, op->region, indent + 2, op->kind == OP_SHARD_MAP && op->region->num_args > 2);
        writer_str(out, " {\n");
        print_block_body(out, op->region, indent, hooks);
    }
    for (int i = 0; i < op->num_regions; i++) {
        writer_char(out, ' ');
        print_block_args(out, op->regions[i], indent, false);
        writer_str(out, " {\n");
        print_block_body(out, op->regions[i], indent, hooks);
    }
    if (op->num_results) /* a result-less op's types are its operands' */
        writer_str(out, " : ");
    for (int i = 0; i < op->num_results; i++) {
        if (i)
            writer_str(out, ", ");
        type_print_to(out, &op->results[i]->type);
    }
    writer_char(out, '\n');
}

static void print_func_results(Writer *out, const Func *f)
{
    bool any_sharding = false;
    for (int i = 0; i < f->num_results; i++)
        any_sharding |= f->result_shardings[i] != NULL || (f->result_logical && f->result_logical[i]);
    if (f->num_results == 0)
        return;
    writer_str(out, " -> ");
    bool parens = f->num_results != 1 || any_sharding;
    if (parens)
        writer_char(out, '(');
    for (int i = 0; i < f->num_results; i++) {
        if (i)
            writer_str(out, ", ");
        type_print_to(out, &f->result_types[i]);
        print_value_layout_to(out, f->result_shardings[i], f->result_logical ? f->result_logical[i] : NULL);
    }
    if (parens)
        writer_char(out, ')');
}

void print_func_to(Writer *out, const Func *f, const PrintHooks *hooks)
{
    bool one_per_line = false;
    for (int i = 0; i < f->body->num_args; i++)
        one_per_line |= (f->body->args[i]->sharding || f->body->args[i]->logical) && f->body->num_args > 1;
    writer_str(out, "func @");
    writer_str(out, f->name);
    print_block_args(out, f->body, 0, one_per_line);
    print_func_results(out, f);
    writer_str(out, " {\n");
    print_block_body(out, f->body, 0, hooks);
    writer_char(out, '\n');
}

static void print_mesh(Writer *out, const Mesh *mesh)
{
    writer_str(out, "mesh @");
    writer_str(out, mesh->name);
    writer_str(out, " = <");
    for (int i = 0; i < mesh->num_axes; i++) {
        if (i)
            writer_str(out, ", ");
        print_string_to(out, mesh->axes[i].name);
        writer_char(out, '=');
        writer_int(out, (long long)mesh->axes[i].size);
        if (mesh->axes[i].is_explicit)
            writer_str(out, " explicit");
    }
    if (mesh->device_ids) {
        writer_str(out, mesh->num_axes ? ", device_ids=[" : "device_ids=[");
        for (int64_t k = 0; k < mesh->num_devices; k++) {
            if (k)
                writer_str(out, ", ");
            writer_int(out, (long long)mesh->device_ids[k]);
        }
        writer_char(out, ']');
    }
    writer_str(out, ">\n");
}

void print_module_hooked_to(Writer *out, const Module *m, const PrintHooks *hooks)
{
    for (int i = 0; i < m->num_meshes; i++)
        print_mesh(out, m->meshes[i]);
    for (int i = 0; i < m->num_funcs; i++) {
        if (i || m->num_meshes)
            writer_char(out, '\n');
        print_func_to(out, m->funcs[i], hooks);
    }
}

/* The stdio entry points: a writer on the stream for the one call. */

void print_module(FILE *stream, const Module *m) { print_module_hooked(stream, m, NULL); }

void print_module_hooked(FILE *stream, const Module *m, const PrintHooks *hooks)
{
    Writer out;
    writer_init(&out, stream);
    print_module_hooked_to(&out, m, hooks);
    writer_flush(&out);
}

void print_sharding(FILE *stream, const Sharding *s)
{
    Writer out;
    writer_init(&out, stream);
    print_sharding_to(&out, s);
    writer_flush(&out);
}

void print_axis_ref(FILE *stream, const Mesh *mesh, AxisRef r)
{
    Writer out;
    writer_init(&out, stream);
    print_axis_ref_to(&out, mesh, r);
    writer_flush(&out);
}

void print_attr_value(FILE *stream, const AttrValue *v)
{
    Writer out;
    writer_init(&out, stream);
    print_attr_value_to(&out, v);
    writer_flush(&out);
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

void print_logical_axes_to(Writer *out, const LogicalAxes *names)
{
    writer_char(out, '[');
    for (int d = 0; d < names->rank; d++) {
        if (d)
            writer_str(out, ", ");
        print_string_to(out, names->names[d]);
    }
    writer_char(out, ']');
}

/* ` {sharding = <...>}` or ` {logical = [...]}` after an argument or
 * result type; nothing for a value with neither. */
void print_value_layout_to(Writer *out, const Sharding *sharding, const LogicalAxes *logical)
{
    if (sharding) {
        writer_str(out, " {sharding = ");
        print_sharding_to(out, sharding);
        writer_char(out, '}');
    } else if (logical) {
        writer_str(out, " {logical = ");
        print_logical_axes_to(out, logical);
        writer_char(out, '}');
    }
}
