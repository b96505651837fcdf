/* The integer linear program (Alpa's formulation), solved with CBC:
 *   x[n][k] in {0,1}, sum_k x[n][k] = 1          one strategy per node
 *   e[u][i][j] in [0,1], sum_j e = x[p][i], sum_i e = x[c][j]
 *                                                 edge = product, exactly
 *   minimize sum x * (compute + collectives) + sum e * reshard
 *   per program point: A + live results + resharded copies <= budget,
 *   where A = sum x * argument bytes (arguments live throughout).
 * Tied nodes and edges share columns. When the budget is infeasible a
 * second program minimises the peak instead, to name the smallest budget
 * that works and where the peak is. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <coin/Cbc_C_Interface.h>
#include "autoshard/autoshard_internal.h"
#include "shardc/timer.h"

/* CBC's C interface, opened when a solve needs it: linked in, its C++
 * libraries' symbol relocations cost every shardc process 22M
 * instructions at start-up (5 ms; a third of make check), auto-shard or
 * not. */
typedef struct Cbc {
    void *lib;
    __typeof__(Cbc_newModel) *newModel;
    __typeof__(Cbc_deleteModel) *deleteModel;
    __typeof__(Cbc_loadProblem) *loadProblem;
    __typeof__(Cbc_setInteger) *setInteger;
    __typeof__(Cbc_setLogLevel) *setLogLevel;
    __typeof__(Cbc_setMaximumSeconds) *setMaximumSeconds;
    __typeof__(Cbc_setAllowableFractionGap) *setAllowableFractionGap;
    __typeof__(Cbc_setParameter) *setParameter;
    __typeof__(Cbc_solve) *solve;
    __typeof__(Cbc_isProvenInfeasible) *isProvenInfeasible;
    __typeof__(Cbc_isProvenOptimal) *isProvenOptimal;
    __typeof__(Cbc_numberSavedSolutions) *numberSavedSolutions;
    __typeof__(Cbc_getColSolution) *getColSolution;
} Cbc;

/* dlsym's object pointer as a function pointer (POSIX guarantees it). */
static bool cbc_sym(Cbc *c, void *slot, const char *name)
{
    void *f = dlsym(c->lib, name);
    memcpy(slot, &f, sizeof f);
    return f != NULL;
}

static bool cbc_open(Cbc *c)
{
    *c = (Cbc){0};
    c->lib = dlopen("libCbcSolver.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!c->lib)
        c->lib = dlopen("libCbcSolver.so", RTLD_NOW | RTLD_LOCAL);
    if (!c->lib)
        return false;
    bool ok = cbc_sym(c, &c->newModel, "Cbc_newModel") & cbc_sym(c, &c->deleteModel, "Cbc_deleteModel") &
              cbc_sym(c, &c->loadProblem, "Cbc_loadProblem") & cbc_sym(c, &c->setInteger, "Cbc_setInteger") &
              cbc_sym(c, &c->setLogLevel, "Cbc_setLogLevel") &
              cbc_sym(c, &c->setMaximumSeconds, "Cbc_setMaximumSeconds") & cbc_sym(c, &c->solve, "Cbc_solve") &
              cbc_sym(c, &c->setAllowableFractionGap, "Cbc_setAllowableFractionGap") &
              cbc_sym(c, &c->setParameter, "Cbc_setParameter") &
              cbc_sym(c, &c->isProvenInfeasible, "Cbc_isProvenInfeasible") &
              cbc_sym(c, &c->isProvenOptimal, "Cbc_isProvenOptimal") &
              cbc_sym(c, &c->numberSavedSolutions, "Cbc_numberSavedSolutions") &
              cbc_sym(c, &c->getColSolution, "Cbc_getColSolution");
    if (!ok) {
        dlclose(c->lib);
        c->lib = NULL;
    }
    return ok;
}

/* The rows being built: a dense accumulator for the current one, and the
 * matrix so far as (row, col, value) triplets, loaded into CBC at once
 * (adding rows one by one reallocates its matrix each time). */
typedef struct Row {
    double *acc;        /* dense accumulator by column */
    int *touched;
    int num_touched;
    int nz, nz_cap, rows, row_cap;
    int *t_row, *t_col;
    double *t_val;
    double *lo, *hi;    /* per row */
    bool failed;
    /* Memory rows already loaded, by content: a tied layer's program
     * points give the same rows as the first copy's (same columns, same
     * bytes), so only the distinct ones are kept and the ILP's size does
     * not grow with the depth. */
    int *start;         /* per row: its first triplet */
    int *seen;          /* open-addressing table of row indices, -1 empty */
    int seen_size, seen_count;
} Row;

/* The relative gap to the LP bound at which CBC stops. */
#define AS_GAP 0.01

static int first_op(const AsGraph *g) { return g->num_nodes - g->num_ops; }

/* Edge reps: edges whose end nodes' reps and tensors agree share columns. */
static void tie_edges(AsGraph *g)
{
    size_t size = 1;
    while (size < 2 * (size_t)g->num_edges + 2)
        size *= 2;
    int *table = malloc(sizeof(int) * size);
    for (size_t i = 0; table && i < size; i++)
        table[i] = -1;
    for (int e = 0; e < g->num_edges; e++) {
        AsEdge *edge = &g->edges[e];
        int p = g->nodes[edge->from].rep, c = g->nodes[edge->to].rep;
        edge->rep = e;
        if (!table)
            continue;
        size_t h = ((size_t)p * 1000003u + (size_t)c * 10007u + (size_t)edge->from_tensor * 131u +
                    (size_t)edge->to_tensor) & (size_t)(size - 1);
        for (; table[h] >= 0; h = (h + 1) & (size - 1)) {
            const AsEdge *o = &g->edges[table[h]];
            if (g->nodes[o->from].rep == p && g->nodes[o->to].rep == c && o->from_tensor == edge->from_tensor &&
                o->to_tensor == edge->to_tensor) {
                edge->rep = table[h];
                break;
            }
        }
        if (edge->rep == e)
            table[h] = e;
    }
    free(table);
}

static int assign_columns(AsGraph *g)
{
    int cols = 0;
    for (int n = 0; n < g->num_nodes; n++) {
        AsNode *node = &g->nodes[n];
        if (node->rep == n) {
            node->col = cols;
            cols += node->num_strategies;
        } else
            node->col = g->nodes[node->rep].col;
    }
    for (int e = 0; e < g->num_edges; e++) {
        AsEdge *edge = &g->edges[e];
        if (edge->rep == e) {
            edge->col = cols;
            cols += g->nodes[edge->from].num_strategies * g->nodes[edge->to].num_strategies;
            autoshard_edge_costs(g, edge);
        } else
            edge->col = g->edges[edge->rep].col;
    }
    return cols;
}

/* ---- rows ---- */

static void row_add(Row *r, int col, double v)
{
    if (r->acc[col] == 0)
        r->touched[r->num_touched++] = col;
    r->acc[col] += v;
    if (r->acc[col] == 0)
        r->acc[col] = 1e-300; /* stays touched */
}

static bool reserve(Row *r, int nz)
{
    int cap = r->nz_cap;
    bool ok = autoshard_grow((void **)&r->t_row, &cap, nz, sizeof(int));
    cap = r->nz_cap;
    ok = ok && autoshard_grow((void **)&r->t_col, &cap, nz, sizeof(int));
    cap = r->nz_cap;
    ok = ok && autoshard_grow((void **)&r->t_val, &cap, nz, sizeof(double));
    if (ok)
        r->nz_cap = cap;
    cap = r->row_cap;
    ok = ok && autoshard_grow((void **)&r->lo, &cap, r->rows + 1, sizeof(double));
    cap = r->row_cap;
    ok = ok && autoshard_grow((void **)&r->hi, &cap, r->rows + 1, sizeof(double));
    cap = r->row_cap;
    ok = ok && autoshard_grow((void **)&r->start, &cap, r->rows + 1, sizeof(int));
    if (ok)
        r->row_cap = cap;
    return ok;
}

/* 'E': = rhs, 'L': <= rhs. */
static void row_flush(Row *r, char sense, double rhs, int *rows)
{
    if (!r->failed && !reserve(r, r->nz + r->num_touched))
        r->failed = true;
    if (!r->failed)
        r->start[r->rows] = r->nz;
    for (int i = 0; i < r->num_touched; i++) {
        int c = r->touched[i];
        if (!r->failed && (r->acc[c] > 1e-200 || r->acc[c] < -1e-200)) {
            r->t_row[r->nz] = r->rows;
            r->t_col[r->nz] = c;
            r->t_val[r->nz++] = r->acc[c];
        }
        r->acc[c] = 0;
    }
    r->num_touched = 0;
    if (!r->failed) {
        r->lo[r->rows] = sense == 'E' ? rhs : -1e300;
        r->hi[r->rows] = rhs;
        r->rows++;
    }
    (*rows)++;
}

static void one_hot_rows(const AsGraph *g, Row *r, int *rows)
{
    for (int n = 0; n < g->num_nodes; n++) {
        const AsNode *node = &g->nodes[n];
        if (node->rep != n)
            continue;
        for (int k = 0; k < node->num_strategies; k++)
            row_add(r, node->col + k, 1);
        row_flush(r, 'E', 1, rows);
    }
}

static void edge_rows(const AsGraph *g, Row *r, int *rows)
{
    for (int e = 0; e < g->num_edges; e++) {
        const AsEdge *edge = &g->edges[e];
        if (edge->rep != e)
            continue;
        const AsNode *p = &g->nodes[edge->from], *c = &g->nodes[edge->to];
        int kp = p->num_strategies, kc = c->num_strategies;
        for (int i = 0; i < kp; i++) {
            for (int j = 0; j < kc; j++)
                row_add(r, edge->col + i * kc + j, 1);
            row_add(r, p->col + i, -1);
            row_flush(r, 'E', 0, rows);
        }
        for (int j = 0; j < kc; j++) {
            for (int i = 0; i < kp; i++)
                row_add(r, edge->col + i * kc + j, 1);
            row_add(r, c->col + j, -1);
            row_flush(r, 'E', 0, rows);
        }
    }
}

/* ---- distinct memory rows ---- */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The accumulated row's hash, its touched columns sorted (so that equal
 * rows give equal triplets whatever order their terms came in). */
static uint64_t row_hash(Row *r)
{
    qsort(r->touched, (size_t)r->num_touched, sizeof(int), cmp_int);
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < r->num_touched; i++) {
        uint64_t bits;
        memcpy(&bits, &r->acc[r->touched[i]], sizeof bits);
        h = (h ^ (uint64_t)r->touched[i]) * 0x100000001b3ull;
        h = (h ^ bits) * 0x100000001b3ull;
    }
    return h;
}

/* Whether loaded row `k` has exactly the accumulated row's terms. */
static bool row_equals(const Row *r, int k)
{
    int at = r->start[k], end = k + 1 < r->rows ? r->start[k + 1] : r->nz, n = 0;
    for (int i = 0; i < r->num_touched; i++) {
        int c = r->touched[i];
        if (r->acc[c] > 1e-200 || r->acc[c] < -1e-200) {
            if (at + n >= end || r->t_col[at + n] != c || r->t_val[at + n] != r->acc[c])
                return false;
            n++;
        }
    }
    return at + n == end;
}

/* Drops the accumulated row if an equal one was loaded (true), else
 * records that the next row loaded is this one. */
static bool row_duplicate(Row *r)
{
    if (!r->seen || r->failed)
        return false;
    size_t mask = (size_t)r->seen_size - 1, h = (size_t)row_hash(r) & mask;
    for (; r->seen[h] >= 0; h = (h + 1) & mask)
        if (row_equals(r, r->seen[h])) {
            for (int i = 0; i < r->num_touched; i++)
                r->acc[r->touched[i]] = 0;
            r->num_touched = 0;
            return true;
        }
    r->seen[h] = r->rows;
    return false;
}

/* Live bytes at op point t as a row (without the arguments' column A). */
static void live_row(const AsGraph *g, Row *r, int t)
{
    int at = first_op(g) + t;
    for (int n = first_op(g); n <= at; n++) {
        const AsNode *node = &g->nodes[n];
        if (n == at || node->last_use >= at)
            for (int k = 0; k < node->num_strategies; k++)
                row_add(r, node->col + k, (double)node->strategies[k].result_bytes);
    }
    for (int e = 0; e < g->num_edges; e++) {
        const AsEdge *edge = &g->edges[e], *rep = &g->edges[edge->rep];
        if (edge->to != at)
            continue;
        int count = g->nodes[edge->from].num_strategies * g->nodes[edge->to].num_strategies;
        for (int k = 0; k < count; k++)
            if (rep->transient[k])
                row_add(r, edge->col + k, (double)rep->transient[k]);
    }
}

/* A = the arguments' bytes; rows A + live(t) - M <= budget (M: peak column or none). */
static void memory_rows(const AsGraph *g, Row *r, int *rows, int a_col, int peak_col, double budget)
{
    r->seen_size = 2;
    while (r->seen_size < 2 * g->num_ops + 2)
        r->seen_size *= 2;
    r->seen = malloc(sizeof(int) * (size_t)r->seen_size);
    for (int i = 0; r->seen && i < r->seen_size; i++)
        r->seen[i] = -1;
    for (int n = 0; n < first_op(g); n++)
        for (int k = 0; k < g->nodes[n].num_strategies; k++)
            row_add(r, g->nodes[n].col + k, (double)g->nodes[n].strategies[k].result_bytes);
    row_add(r, a_col, -1);
    row_flush(r, 'E', 0, rows);
    for (int t = 0; t < g->num_ops; t++) {
        live_row(g, r, t);
        row_add(r, a_col, 1);
        if (peak_col >= 0)
            row_add(r, peak_col, -1);
        if (!row_duplicate(r))
            row_flush(r, 'L', peak_col >= 0 ? 0 : budget, rows);
    }
}

/* ---- the model ---- */

static void objective(const AsGraph *g, double *obj, bool peak)
{
    if (peak)
        return;
    for (int n = 0; n < g->num_nodes; n++) {
        const AsNode *node = &g->nodes[n];
        for (int k = 0; k < node->num_strategies; k++)
            obj[node->col + k] += (node->strategies[k].compute + node->strategies[k].comm +
                                   AS_BYTE_TIEBREAK * (double)node->strategies[k].result_bytes) * 1e6; /* in us */
    }
    for (int e = 0; e < g->num_edges; e++) {
        const AsEdge *edge = &g->edges[e], *rep = &g->edges[edge->rep];
        int count = g->nodes[edge->from].num_strategies * g->nodes[edge->to].num_strategies;
        for (int k = 0; k < count; k++)
            obj[edge->col + k] += rep->cost[k] * 1e6;
    }
}

static bool is_node_col(const AsGraph *g, int col)
{
    int first_edge_col = g->num_edges ? g->edges[0].col : col + 1;
    return col < first_edge_col;
}

/* The triplets as CBC's column-major matrix. */
static void load(const Cbc *cbc, Cbc_Model *m, const Row *r, int cols, const double *obj, const double *lo, const double *hi)
{
    CoinBigIndex *start = calloc((size_t)cols + 1, sizeof *start);
    int *index = malloc(sizeof(int) * ((size_t)r->nz + 1));
    double *value = malloc(sizeof(double) * ((size_t)r->nz + 1));
    if (start && index && value) {
        for (int i = 0; i < r->nz; i++)
            start[r->t_col[i] + 1]++;
        for (int c = 0; c < cols; c++)
            start[c + 1] += start[c];
        CoinBigIndex *fill = malloc(sizeof *fill * ((size_t)cols + 1));
        if (fill) {
            memcpy(fill, start, sizeof *fill * ((size_t)cols + 1));
            for (int i = 0; i < r->nz; i++) { /* rows in order: each column's stay sorted */
                CoinBigIndex k = fill[r->t_col[i]]++;
                index[k] = r->t_row[i];
                value[k] = r->t_val[i];
            }
            cbc->loadProblem(m, cols, r->rows, start, index, value, lo, hi, obj, r->lo, r->hi);
            free(fill);
        }
    }
    free(start);
    free(index);
    free(value);
}

static void free_rows(Row *r)
{
    free(r->acc);
    free(r->touched);
    free(r->t_row);
    free(r->t_col);
    free(r->t_val);
    free(r->lo);
    free(r->hi);
    free(r->start);
    free(r->seen);
}

/* Columns: the strategies' and edges' (then A, then M for the peak). */
static Cbc_Model *build(const Cbc *cbc, const AsGraph *g, int cols, bool peak, double budget, int *rows)
{
    bool memory = peak || budget > 0;
    int all = cols + memory + peak;
    Cbc_Model *m = cbc->newModel();
    double *obj = calloc((size_t)all + 1, sizeof *obj), *lo = calloc((size_t)all + 1, sizeof *lo);
    double *hi = malloc(sizeof(double) * ((size_t)all + 1));
    Row r = {.acc = calloc((size_t)all + 1, sizeof(double)), .touched = malloc(sizeof(int) * ((size_t)all + 1))};
    bool ok = m && obj && lo && hi && r.acc && r.touched;
    if (ok) {
        objective(g, obj, peak);
        for (int c = 0; c < all; c++)
            hi[c] = c < cols ? 1 : 1e300;
        if (peak)
            obj[cols + 1] = 1;
        one_hot_rows(g, &r, rows);
        edge_rows(g, &r, rows);
        if (memory)
            memory_rows(g, &r, rows, cols, peak ? cols + 1 : -1, budget);
        ok = !r.failed;
    }
    if (ok) {
        load(cbc, m, &r, all, obj, lo, hi);
        for (int c = 0; c < cols && is_node_col(g, c); c++)
            cbc->setInteger(m, c);
    }
    free(obj);
    free(lo);
    free(hi);
    free_rows(&r);
    if (!ok && m)
        cbc->deleteModel(m);
    return ok ? m : NULL;
}

static void read_choice(AsGraph *g, const double *sol)
{
    for (int n = 0; n < g->num_nodes; n++) {
        AsNode *node = &g->nodes[n];
        int best = 0;
        for (int k = 1; k < node->num_strategies; k++)
            if (sol[node->col + k] > sol[node->col + best])
                best = k;
        node->chosen = best;
    }
}

/* Solves; true when a solution was read into the nodes' `chosen`. */
static bool run(const Cbc *cbc, AsGraph *g, Cbc_Model *m, double time_limit, bool memory, bool *infeasible)
{
    cbc->setLogLevel(m, 0);
    cbc->setMaximumSeconds(m, time_limit);
    /* A plan within AS_GAP of the optimum is taken: under a budget the LP
     * bound is a few percent below the optimum and proving the last
     * percent took CBC 30 s on the benchmark (docs/auto_sharding.md). The
     * feasibility pump found nothing its diving heuristics do not, in
     * several times their time, and preprocessing (probing the one-hot
     * rows) took a third of an unbudgeted solve and left the budgeted
     * root further from the bound. All three settings are deterministic. */
    cbc->setAllowableFractionGap(m, AS_GAP);
    cbc->setParameter(m, "feas", "off");
    cbc->setParameter(m, "preprocess", "off");
    /* Without memory rows the LP is one-hot and edge rows only: presolving
     * it took twice as long as solving it (0.45 -> 0.15 s CPU at 2 layers
     * on data=8,model=8); under a budget presolve pays for itself. */
    if (!memory)
        cbc->setParameter(m, "presolve", "off");
    cbc->solve(m);
    *infeasible = cbc->isProvenInfeasible(m);
    const double *sol =
        cbc->numberSavedSolutions(m) > 0 || cbc->isProvenOptimal(m) ? cbc->getColSolution(m) : NULL;
    if (!sol || *infeasible)
        return false;
    read_choice(g, sol);
    return true;
}

int64_t autoshard_live_bytes(const AsGraph *g, int t)
{
    int64_t bytes = 0;
    int at = first_op(g) + t;
    for (int n = 0; n <= at; n++) {
        const AsNode *node = &g->nodes[n];
        if (n < first_op(g) || n == at || node->last_use >= at)
            bytes += node->strategies[node->chosen].result_bytes;
    }
    for (int e = 0; e < g->num_edges; e++) {
        const AsEdge *edge = &g->edges[e], *rep = &g->edges[edge->rep];
        if (edge->to == at)
            bytes += rep->transient[g->nodes[edge->from].chosen * g->nodes[edge->to].num_strategies +
                                    g->nodes[edge->to].chosen];
    }
    return bytes;
}

static void find_min_budget(const Cbc *cbc, AsGraph *g, AsSolve *s, int cols)
{
    int rows = 0;
    Cbc_Model *m = build(cbc, g, cols, true, 0, &rows);
    bool infeasible;
    if (m && run(cbc, g, m, s->time_limit, true, &infeasible)) {
        s->min_budget = 0;
        for (int t = 0; t < g->num_ops; t++) {
            double live = (double)autoshard_live_bytes(g, t);
            if (live > s->min_budget) {
                s->min_budget = live;
                s->peak_point = t;
            }
        }
    }
    if (m)
        cbc->deleteModel(m);
}

void autoshard_solve(AsGraph *g, AsSolve *s)
{
    Timer start = timer_start();
    tie_edges(g);
    int cols = assign_columns(g), rows = 0;
    Cbc cbc;
    s->solver_missing = !cbc_open(&cbc);
    Cbc_Model *m = s->solver_missing ? NULL : build(&cbc, g, cols, false, (double)s->memory_budget, &rows);
    s->variables = cols + (s->memory_budget > 0);
    s->constraints = rows;
    s->found = m && run(&cbc, g, m, s->time_limit, s->memory_budget > 0, &s->infeasible);
    if (m)
        cbc.deleteModel(m);
    s->peak_point = -1;
    if (s->infeasible)
        find_min_budget(&cbc, g, s, cols);
    if (cbc.lib)
        dlclose(cbc.lib);
    Timer spent = timer_since(start);
    s->seconds = spent.wall;
    s->cpu_seconds = spent.cpu;
}
