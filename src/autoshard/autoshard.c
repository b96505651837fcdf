/* The auto-sharding driver: per function with a mesh, build the graph,
 * tie repeated layers, solve (or go greedy), write the shardings. */
#include <stdlib.h>
#include <string.h>
#include "autoshard/autoshard_internal.h"

/* The mesh a function is sharded on: that of its first sharding, else the
 * module's only non-empty mesh. */
static const Mesh *func_mesh(const Module *m, const Func *f)
{
    const Mesh *mesh = func_first_mesh(f);
    if (mesh)
        return mesh_is_empty(mesh) ? NULL : mesh;
    for (int i = 0; i < m->num_meshes; i++)
        if (!mesh_is_empty(m->meshes[i])) {
            if (mesh)
                return NULL; /* two meshes: which one is not ours to guess */
            mesh = m->meshes[i];
        }
    return mesh;
}

static void report_budget(DiagEngine *diag, const AsGraph *g, const AsSolve *s, int64_t budget)
{
    const Op *peak = s->peak_point >= 0 ? g->nodes[g->num_nodes - g->num_ops + s->peak_point].op : NULL;
    Loc loc = peak ? peak->loc : g->func->loc;
    diag_error(diag, loc, "auto-shard: no plan of @%s fits --memory-budget=%lld bytes per device", g->func->name,
               (long long)budget);
    if (peak && s->min_budget > 0)
        diag_note(diag, loc, "the peak is here, at %%%s ('%s'): the smallest feasible budget is %lld bytes per device",
                  peak->num_results ? peak->results[0]->name : "?", op_info(peak->kind)->name,
                  (long long)s->min_budget);
}

/* The --explain header of a function: the search's size and result. */
static void summary(const AsGraph *g, const AsSolve *s, int strategies, int tied, double cost, int64_t bytes,
                    int64_t peak, AutoShardReport *r)
{
    char line[512];
    snprintf(line, sizeof line, "# auto-shard @%s: %d ops, %d strategies, %d tied, %d variables, %d constraints; "
             "plan %.4g us, %lld bytes/device, peak %lld bytes/device; solved in %.3f s (cpu %.3f s)\n",
             g->func->name, g->num_ops, strategies, tied, s->variables, s->constraints, cost * 1e6, (long long)bytes,
             (long long)peak, s->seconds, s->cpu_seconds);
    autoshard_report_add(r, line);
}

static void account(const AsGraph *g, const AsSolve *s, int tied, bool explain, AutoShardReport *r)
{
    int strategies = 0;
    int64_t bytes, peak = 0;
    double cost = autoshard_chosen_cost(g, &bytes);
    for (int n = 0; n < g->num_nodes; n++)
        strategies += g->nodes[n].num_strategies;
    for (int t = 0; t < g->num_ops; t++) {
        int64_t live = autoshard_live_bytes(g, t);
        peak = live > peak ? live : peak;
    }
    if (explain)
        summary(g, s, strategies, tied, cost, bytes, peak, r);
    r->functions++;
    r->ops += g->num_ops;
    r->strategies += strategies;
    r->tied += tied;
    r->variables += s->variables;
    r->constraints += s->constraints;
    r->solve_seconds += s->seconds;
    r->predicted_seconds += cost;
    r->predicted_bytes += bytes;
    r->peak_bytes = peak > r->peak_bytes ? peak : r->peak_bytes;
}

/* False only after an error (an infeasible budget). */
static bool shard_func(Module *m, Func *f, const Mesh *mesh, DiagEngine *diag, const AutoShardOptions *o,
                       AutoShardReport *r)
{
    AsGraph g;
    bool ok = true;
    if (mesh->num_axes > AS_MAX_AXES) {
        diag_warning(diag, f->loc, "auto-shard: mesh @%s has more than %d axes; @%s is left to propagation",
                     mesh->name, AS_MAX_AXES, f->name);
        return true;
    }
    AsCosts costs;
    autoshard_costs_init(&costs, mesh, o->config);
    costs.fewest_bytes = o->fewest_bytes_reshards;
    if (autoshard_build(&g, diag, f, mesh, &costs)) {
        g.module = m;
        AsSolve s = {.time_limit = o->time_limit > 0 ? o->time_limit : AUTOSHARD_DEFAULT_SECONDS,
                     .memory_budget = o->memory_budget};
        int tied = 0;
        if (o->mode == AUTOSHARD_GREEDY) {
            autoshard_greedy(&g);
            s.found = true;
        } else {
            tied = autoshard_tie(&g);
            autoshard_solve(&g, &s);
        }
        if (s.infeasible) {
            report_budget(diag, &g, &s, o->memory_budget);
            ok = false;
        } else if (s.solver_missing)
            diag_warning(diag, f->loc, "auto-shard: CBC's library (libCbcSolver.so.3, Debian coinor-libcbc3) "
                         "cannot be opened; @%s is left to propagation (--auto-shard=greedy needs no solver)",
                         f->name);
        else if (!s.found)
            diag_warning(diag, f->loc, "auto-shard: the solver found no plan for @%s in %g s; it is left to "
                         "propagation", f->name, s.time_limit);
        else {
            account(&g, &s, tied, o->explain, r);
            if (o->explain)
                autoshard_explain(&g, r);
            autoshard_apply(&g);
            autoshard_pin(&g);
        }
    }
    autoshard_graph_free(&g);
    return ok;
}

/* Whether an op of the module names function `name` (a call's or custom
 * op's callee, a partition function's symbol): such a function is an
 * implementation, sharded by its caller's rule, not an entry. */
typedef struct Named { const char *name; bool found; } Named;

static bool names_func(Op *op, void *user)
{
    Named *n = user;
    if (op->callee && strcmp(op->callee, n->name) == 0)
        n->found = true;
    for (int i = 0; i < op->num_attrs && !n->found; i++) {
        const AttrValue *v = op->attrs[i].value;
        n->found = v && v->kind == ATTR_SYMBOL && strcmp(v->u.s, n->name) == 0;
    }
    return !n->found;
}

static bool is_named(const Module *m, const Func *f)
{
    Named n = {f->name, false};
    ir_walk_module(m, &(IrWalker){.pre = names_func, .user = &n});
    return n.found;
}

bool autoshard_module(Module *m, DiagEngine *diag, const AutoShardOptions *options, AutoShardReport *report)
{
    bool ok = true;
    for (int i = 0; i < m->num_funcs; i++) {
        Func *f = m->funcs[i];
        const Mesh *mesh = func_mesh(m, f);
        if (mesh && !f->called && !is_named(m, f))
            ok &= shard_func(m, f, mesh, diag, options, report);
    }
    return ok;
}

void autoshard_report_free(AutoShardReport *report)
{
    free(report->explain);
    report->explain = NULL;
}
