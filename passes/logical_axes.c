/* The logical-axes pass, right after verify: with --config, the config's
 * meshes join the module and every `logical = [...]` annotation becomes
 * the sharding the chosen rule set gives it, so propagation starts from
 * ordinary user shardings. Without --config, logical names stay as written
 * (they print and round-trip), and only an --emit that needs shardings
 * reports them: guessing "replicated" would silently change the program. */
#include <stdio.h>
#include "shardc/config.h"
#include "shardc/logical_axes.h"
#include "shardc/pass.h"

/* A place logical names may sit: a block argument, an op result or a
 * function result, with the sharding slot they resolve into. */
enum { WHAT_SIZE = 160 };

typedef struct LogicalSite {
    LogicalAxes **logical;
    Sharding **sharding;
    const TensorType *type;
    char what[WHAT_SIZE];   /* the value, for messages */
    bool in_region;         /* inside a shard_map body */
} LogicalSite;

typedef bool (*SiteVisit)(LogicalSite *site, void *user);

typedef struct SiteWalk {
    SiteVisit visit;
    void *user;
    bool ok;
} SiteWalk;

static bool visit_value(Value *v, void *user)
{
    SiteWalk *w = user;
    if (!v->logical)
        return true;
    const Block *home = v->def ? v->def->parent : v->block;
    LogicalSite site = {&v->logical, &v->sharding, &v->type, "", home->parent_op != NULL};
    snprintf(site.what, sizeof site.what, "%%%s", v->name);
    w->ok &= w->visit(&site, w->user);
    return true;
}

static bool visit_module(Module *m, SiteVisit visit, void *user)
{
    SiteWalk w = {visit, user, true};
    for (int f = 0; f < m->num_funcs; f++) {
        Func *func = m->funcs[f];
        ir_walk(func->body, &(IrWalker){.value = visit_value, .user = &w});
        for (int i = 0; func->result_logical && i < func->num_results; i++) {
            if (!func->result_logical[i])
                continue;
            LogicalSite site = {&func->result_logical[i], &func->result_shardings[i], &func->result_types[i],
                                "", false};
            snprintf(site.what, sizeof site.what, "result %d of '@%s'", i, func->name);
            w.ok &= visit(&site, user);
        }
    }
    return w.ok;
}

typedef struct SiteCount {
    int count;
    Loc first;
    char first_what[WHAT_SIZE];
} SiteCount;

static bool count_site(LogicalSite *site, void *user)
{
    SiteCount *sc = user;
    if (sc->count++ == 0) {
        sc->first = (*site->logical)->loc;
        snprintf(sc->first_what, sizeof sc->first_what, "%s", site->what);
    }
    return true;
}

/* One error, not one per value: the fix is the same for all of them. */
static bool report_no_config(const SiteCount *sites, DiagEngine *diag)
{
    diag_error(diag, sites->first, "%s has logical axis names but no rules to resolve them: pass "
               "--config=FILE.yaml (%d value%s of the module use%s logical names)", sites->first_what,
               sites->count, sites->count == 1 ? "" : "s", sites->count == 1 ? "s" : "");
    return false;
}

static bool resolve_site(LogicalSite *site, void *user)
{
    const LogicalResolver *r = user;
    const LogicalAxes *names = *site->logical;
    if (site->in_region) {
        diag_error(r->diag, names->loc, "logical axis names are not allowed in a shard_map body: it is per-device "
                   "code, and its layout is the shard_map's in_specs and out_specs");
        return false;
    }
    Sharding *s = logical_resolve(r, names, site->type, site->what);
    if (!s)
        return false;
    *site->sharding = s;
    *site->logical = NULL;
    return true;
}

/* The rule set's `mesh:`, else the config's only mesh, else the file's. */
static const Mesh *rules_mesh(const Module *m, const Config *c, DiagEngine *diag, Loc use)
{
    const RuleSet *rs = c->rules;
    if (!rs) {
        diag_error(diag, use, "logical axis names need rules, but the config has no 'logical_axis_rules'");
        return NULL;
    }
    const char *name = rs->mesh ? rs->mesh : c->num_meshes == 1 ? c->meshes[0]->name : NULL;
    const Mesh *mesh = name ? module_find_mesh(m, name) : m->num_meshes == 1 ? m->meshes[0] : NULL;
    if (!mesh && name)
        diag_error(diag, rs->mesh_loc, "rule set '%s' is for mesh '@%s', which neither the config nor %s declares",
                   rs->name, name, m->file);
    else if (!mesh && m->num_meshes == 0)
        diag_error(diag, rs->loc, "rule set '%s' has no mesh: neither the config nor %s declares one", rs->name,
                   m->file);
    else if (!mesh)
        diag_error(diag, rs->loc, "rule set '%s' must name its mesh ('mesh: NAME'): %s declares %d meshes",
                   rs->name, m->file, m->num_meshes);
    return mesh && config_rule_set_check_axes(rs, mesh, diag) ? mesh : NULL;
}

static bool run_logical_axes(Module *m, PassContext *ctx)
{
    const Config *c = ctx->options->config;
    SiteCount sites = {0};
    if (m->logical_annotations)
        visit_module(m, count_site, &sites);
    if (!c)
        return sites.count == 0 || ctx->options->emit < EMIT_PROPAGATED || report_no_config(&sites, ctx->diag);
    if (!logical_merge_meshes(m, c, ctx->diag))
        return false;
    if (sites.count == 0)
        return true;
    LogicalResolver resolver = {&m->arena, ctx->diag, c->rules, NULL};
    resolver.mesh = rules_mesh(m, c, ctx->diag, sites.first);
    return resolver.mesh && visit_module(m, resolve_site, &resolver);
}

const Pass pass_logical_axes = {"logical-axes", EMIT_IR, run_logical_axes, NULL};
