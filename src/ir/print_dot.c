/* The program as a Graphviz digraph (`shardc FILE --emit=dot`, docs/cli.md):
 *   - a box per op: its results, its name, their types and shardings;
 *     collectives filled, with what they move and their bytes per device;
 *   - an ellipse per argument (function and region arguments) with its
 *     type and sharding, a double octagon per function result;
 *   - an edge per use, labelled with the type of the value used;
 *   - regions (shard_map bodies, loop bodies, branches, reduce bodies) as
 *     clusters: the op's box feeds the region's arguments (dashed) and the
 *     region's returned values meet in a second box, the op's results,
 *     which their users use.
 * Labels are the .shir spellings, escaped for Graphviz's quoted strings. */
#include <stdlib.h>
#include <string.h>
#include "shardc/print.h"

typedef struct DotPrinter {
    FILE *out;
    int next_cluster;
} DotPrinter;

/* s as the inside of a Graphviz quoted string. */
static void put_escaped(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"' || s[i] == '\\')
            fputc('\\', out);
        if (s[i] == '\n')
            fputs("\\n", out);
        else
            fputc(s[i], out);
    }
}

/* What fn prints, escaped: the printers write to a FILE. */
static void put_printed(FILE *out, void (*fn)(FILE *, const void *), const void *arg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return;
    fn(mem, arg);
    fclose(mem);
    put_escaped(out, text, len);
    free(text);
}

static void print_type_fn(FILE *out, const void *t) { type_print(out, t); }
static void print_sharding_fn(FILE *out, const void *s) { print_sharding(out, s); }
static void print_attr_fn(FILE *out, const void *v) { print_attr_value(out, v); }

/* A type and, when there is one, a sharding, on lines of their own. */
static void put_layout(FILE *out, const TensorType *type, const Sharding *sharding)
{
    fputs("\\n", out);
    put_printed(out, print_type_fn, type);
    if (sharding) {
        fputs("\\n", out);
        put_printed(out, print_sharding_fn, sharding);
    }
}

/* The node a use of v comes from. */
static void source_id(FILE *out, const Value *v)
{
    const Op *def = v->def;
    if (!def)
        fprintf(out, "\"v%d\"", v->id);
    else if (def->num_regions || def->region)
        fprintf(out, "\"op%d_out\"", def->id);
    else
        fprintf(out, "\"op%d\"", def->id);
}

/* An edge from v's node to node `to`, labelled with v's type. */
static void edge(DotPrinter *p, const Value *from, const char *to, const char *style)
{
    fputs("  ", p->out);
    source_id(p->out, from);
    fprintf(p->out, " -> \"%s\" [label=\"", to);
    put_printed(p->out, print_type_fn, &from->type);
    fprintf(p->out, "\"%s];\n", style);
}

/* A shard_map body argument shows its in_spec. */
static void arg_node(DotPrinter *p, const Value *v, const Sharding *spec)
{
    fprintf(p->out, "  \"v%d\" [shape=ellipse, label=\"%%%s", v->id, v->name);
    put_layout(p->out, &v->type, v->sharding ? v->sharding : spec);
    fputs("\"];\n", p->out);
}

static bool is_collective(const Op *op)
{
    return op_info(op->kind)->op_class == OPC_COLLECTIVE;
}

/* `%a, %b = name`, the result types and shardings, and for a collective
 * its axes and bytes per device. */
static void op_label(FILE *out, const Op *op)
{
    for (int i = 0; i < op->num_results; i++)
        fprintf(out, "%s%%%s", i ? ", " : "", op->results[i]->name);
    fprintf(out, "%s%s", op->num_results ? " = " : "", op_info(op->kind)->name);
    if (op->callee)
        fprintf(out, " @%s", op->callee);
    if (op->str) {
        fputs(" \\\"", out);
        put_escaped(out, op->str, strlen(op->str));
        fputs("\\\"", out);
    }
    if (is_collective(op)) {
        const AttrValue *axes = op_attr_get(op, ATTR_KEY_AXES);
        if (axes) {
            fputc(' ', out);
            put_printed(out, print_attr_fn, axes);
        }
        const AttrValue *bytes = op_attr_get(op, ATTR_KEY_BYTES_PER_DEVICE);
        if (bytes && bytes->kind == ATTR_INT)
            fprintf(out, "\\n%lld B/device", (long long)bytes->u.i);
    }
    for (int i = 0; i < op->num_results; i++)
        put_layout(out, &op->results[i]->type, op->results[i]->sharding);
}

static void print_block(DotPrinter *p, const Block *b, const Op *owner, int region);

static void op_node(DotPrinter *p, const Op *op)
{
    bool regions = op->num_regions || op->region;
    fprintf(p->out, "  \"op%d\" [label=\"", op->id);
    if (regions)
        fprintf(p->out, "%s", op_info(op->kind)->name);
    else
        op_label(p->out, op);
    fprintf(p->out, "\"%s];\n", is_collective(op) ? ", style=filled, fillcolor=\"#f4cccc\", color=\"#cc0000\"" : "");
    char name[32];
    snprintf(name, sizeof name, "op%d", op->id);
    for (int i = 0; i < op->num_operands; i++)
        edge(p, op->operands[i], name, "");
    if (!regions)
        return;
    for (int k = 0; k < op->num_regions; k++)
        print_block(p, op->regions[k], op, k);
    if (op->region)
        print_block(p, op->region, op, 0);
    fprintf(p->out, "  \"op%d_out\" [label=\"", op->id);
    op_label(p->out, op);
    fputs("\"];\n", p->out);
}

static void print_ops(DotPrinter *p, const Block *b)
{
    for (const Op *op = b->first; op; op = op->next)
        op_node(p, op);
}

/* A region as a cluster: its arguments fed by the owner (dashed), its ops,
 * and its returned values into the owner's results box. */
static void print_block(DotPrinter *p, const Block *b, const Op *owner, int region)
{
    fprintf(p->out, "  subgraph cluster_%d {\n  label=\"%s region %d\"; style=dashed;\n", p->next_cluster++,
            op_info(owner->kind)->name, region);
    for (int i = 0; i < b->num_args; i++) {
        const Sharding *spec = owner->kind == OP_SHARD_MAP ? op_attr_sharding_at(owner, ATTR_KEY_IN_SPECS, i) : NULL;
        arg_node(p, b->args[i], spec);
    }
    print_ops(p, b);
    fputs("  }\n", p->out);
    /* after the cluster: an edge inside it would pull the owner in */
    for (int i = 0; i < b->num_args; i++)
        fprintf(p->out, "  \"op%d\" -> \"v%d\" [style=dashed];\n", owner->id, b->args[i]->id);
    char name[32];
    snprintf(name, sizeof name, "op%d_out", owner->id);
    for (int i = 0; i < b->num_returns; i++)
        edge(p, b->returns[i], name, ", style=dashed");
}

static void print_func_dot(DotPrinter *p, const Func *f)
{
    fprintf(p->out, "  subgraph cluster_%d {\n  label=\"@%s\";\n", p->next_cluster++, f->name);
    for (int i = 0; i < f->body->num_args; i++)
        arg_node(p, f->body->args[i], NULL);
    print_ops(p, f->body);
    for (int i = 0; i < f->num_results && i < f->body->num_returns; i++) {
        char name[300];
        snprintf(name, sizeof name, "%.200s_result%d", f->name, i);
        fprintf(p->out, "  \"%s\" [shape=doubleoctagon, label=\"result %d", name, i);
        put_layout(p->out, &f->result_types[i], f->result_shardings ? f->result_shardings[i] : NULL);
        fputs("\"];\n", p->out);
        edge(p, f->body->returns[i], name, "");
    }
    fputs("  }\n", p->out);
}

void print_module_dot(FILE *out, const Module *m)
{
    DotPrinter p = {out, 0};
    fputs("digraph shardc {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
          "  edge [fontname=\"monospace\", fontsize=9];\n",
          out);
    for (int i = 0; i < m->num_funcs; i++)
        print_func_dot(&p, m->funcs[i]);
    fputs("}\n", out);
}
