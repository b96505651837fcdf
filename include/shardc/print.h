/* The canonical .shir printer: parse(print(m)) prints identically. */
#ifndef SHARDC_PRINT_H
#define SHARDC_PRINT_H
#include <stdio.h>
#include "shardc/ir.h"
#include "shardc/writer.h"

/* Optional per-op annotations (e.g. --emit=rules): called before each op
 * is printed, at the op's indentation; it should print whole comment lines
 * (to the stream, flushed up to the op). */
typedef struct PrintHooks {
    void (*before_op)(FILE *out, const Op *op, int indent, void *user);
    void *user;
} PrintHooks;

/* The printers write onto a Writer (the `_to` functions: shardc/writer.h,
 * buffered, no stdio call per token); the stdio entry points below wrap
 * one call in a writer of their own. */
void print_module(FILE *out, const Module *m);
void print_module_hooked(FILE *out, const Module *m, const PrintHooks *hooks);
void print_sharding(FILE *out, const Sharding *s);
void print_axis_ref(FILE *out, const Mesh *mesh, AxisRef r);
void print_attr_value(FILE *out, const AttrValue *v);
/* The module as a Graphviz digraph (print_dot.c): ops, arguments and
 * results as nodes with their types and shardings, uses as edges,
 * collectives highlighted with their bytes per device, regions as
 * clusters. */
void print_module_dot(FILE *out, const Module *m);

void print_module_hooked_to(Writer *out, const Module *m, const PrintHooks *hooks);
void print_func_to(Writer *out, const Func *f, const PrintHooks *hooks);
void print_op_to(Writer *out, const Op *op, int indent, const PrintHooks *hooks);
void print_sharding_to(Writer *out, const Sharding *s);
void print_axis_ref_to(Writer *out, const Mesh *mesh, AxisRef r);
void print_attr_value_to(Writer *out, const AttrValue *v);
/* Shortest decimal text that reads back as the same double, always with
 * a '.' or exponent so it stays a float literal. */
void print_float_to(Writer *out, double v);
void print_string_to(Writer *out, const char *s);
/* Logical axis names: the list, the same as an attribute
 * value for an op's attribute dict, and an argument's or result's
 * ` {sharding = ...}` / ` {logical = ...}` suffix. */
void print_logical_axes_to(Writer *out, const LogicalAxes *names);
AttrValue *print_logical_axes_attr(Arena *arena, const LogicalAxes *names);
void print_value_layout_to(Writer *out, const Sharding *sharding, const LogicalAxes *logical);

#endif
