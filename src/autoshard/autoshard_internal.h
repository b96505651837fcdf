/* The auto-sharding search's graph (internal to src/autoshard/): one node
 * per function argument and per op, each with its candidate strategies,
 * and one edge per use of a value, with the resharding cost of every pair
 * of the producer's and the consumer's strategies. */
#ifndef SHARDC_AUTOSHARD_INTERNAL_H
#define SHARDC_AUTOSHARD_INTERNAL_H
#include "shardc/autoshard.h"
#include "shardc/partition.h"
#include "shardc/rules.h"

/* Whole mesh axes only, a few per dim: what the search enumerates. */
enum { AS_MAX_RANK = 8, AS_MAX_DIM_AXES = 4, AS_MAX_AXES = 8, AS_MAX_TENSORS = 16 };

/* Seconds charged per byte a value keeps per device: far below any
 * collective's or FLOP's cost (4 GB: 0.4 us, under one alpha), it only
 * breaks ties, for the smaller footprint (a weight sharded as its use
 * needs, not replicated and sliced). Not smaller: a 16 KB difference must
 * stay above CBC's 1e-7 tolerances on an objective in microseconds. */
#define AS_BYTE_TIEBREAK 1e-16

/* One tensor's sharding: per dim, mesh axis indices major to minor. */
typedef struct AsLayout {
    int8_t rank;
    int8_t n[AS_MAX_RANK];
    int8_t ax[AS_MAX_RANK][AS_MAX_DIM_AXES];
} AsLayout;

typedef struct AsStrategy {
    AsLayout *layouts;      /* per tensor: operands, then results (an argument: itself) */
    uint32_t partial;       /* axes of reduction factors: results pending an all-reduce */
    double compute, comm;   /* seconds: FLOPs / devices, the all-reduce of partials */
    int64_t comm_bytes;     /* bytes per device of that all-reduce */
    int64_t result_bytes;   /* bytes per device of the results */
} AsStrategy;

typedef struct AsNode {
    Op *op;                 /* NULL: a function argument */
    Value *arg;
    int num_operands, num_tensors;
    int num_strategies;
    AsStrategy *strategies;
    uint64_t signature;     /* op kind, types and attributes, for layer tying */
    int rep;                /* the node whose strategy it shares (itself if none) */
    int col;                /* first one-hot column (of its rep) */
    int chosen;
    int last_use;           /* index of the last op node using a result */
} AsNode;

typedef struct AsEdge {
    int from, from_tensor;  /* producer node and the result's tensor index */
    int to, to_tensor;      /* consumer node and the operand's tensor index */
    double *cost;           /* [from strategy * to's count + to strategy] seconds */
    int64_t *bytes;         /* ... bytes per device of the reshard */
    int64_t *transient;     /* ... bytes of the resharded copy (0 if none) */
    int rep, col;           /* the edge whose columns it shares, its first column */
} AsEdge;

typedef struct AsCosts {
    double alpha[AS_MAX_AXES], beta[AS_MAX_AXES];
    double flops_per_second;
    bool fewest_bytes;  /* reshards planned as the partitioner will
                           (AutoShardOptions.fewest_bytes_reshards) */
} AsCosts;

/* The planner's working space (a ReshardPlan is 400 KB): one per graph. */
typedef struct AsScratch {
    DimAxes from, to;
    ReshardPlan plan;
} AsScratch;

typedef struct AsGraph {
    Arena arena;
    Module *module;
    Func *func;
    const Mesh *mesh;
    AsCosts costs;
    int num_nodes, node_cap;
    AsNode *nodes;
    int num_edges, edge_cap;
    AsEdge *edges;
    int *value_node, *value_tensor; /* by Value.id: producer node, tensor index */
    int num_ops;            /* op nodes (program points) */
    AsScratch *scratch;
} AsGraph;

/* graph.c */
/* Room for `need` elements in a realloc'd array of *cap (doubling). */
bool autoshard_grow(void **p, int *cap, int need, size_t elem);
bool autoshard_build(AsGraph *g, DiagEngine *diag, Func *f, const Mesh *mesh, const AsCosts *costs);
void autoshard_graph_free(AsGraph *g);
/* strategy.c */
bool autoshard_op_strategies(AsGraph *g, AsNode *n, DiagEngine *diag);
bool autoshard_arg_strategies(AsGraph *g, AsNode *n, const Sharding *annotation, DiagEngine *diag);
bool autoshard_layout_from_sharding(AsLayout *out, const Sharding *s, int rank);
bool autoshard_layout_allowed(const AsLayout *l, const Sharding *annotation);
/* cost.c */
void autoshard_costs_init(AsCosts *c, const Mesh *mesh, const Config *config);
double autoshard_plan_cost(const AsGraph *g, const TensorType *t, const AsLayout *from, uint32_t partial,
                           const AsLayout *to, int64_t *bytes);
int64_t autoshard_layout_bytes(const Mesh *mesh, const TensorType *t, const AsLayout *l);
void autoshard_edge_costs(AsGraph *g, AsEdge *e);
const TensorType *autoshard_tensor_type(const AsNode *n, int t);
void autoshard_print_layout(char *buf, size_t size, const Mesh *mesh, const AsLayout *l);
/* tie.c */
int autoshard_tie(AsGraph *g);
/* ilp.c */
typedef struct AsSolve {
    double time_limit;
    int64_t memory_budget;
    int variables, constraints;
    double seconds, cpu_seconds;    /* wall and CPU time of tying the edges, costing and solving */
    bool found, infeasible;
    bool solver_missing;    /* CBC's library could not be opened */
    double min_budget;      /* when infeasible: the smallest peak any plan reaches */
    int peak_point;         /* ... and the op node index where it is reached */
} AsSolve;
void autoshard_solve(AsGraph *g, AsSolve *s);
void autoshard_greedy(AsGraph *g);
/* Per-device live bytes at op node index `point` under the chosen strategies. */
int64_t autoshard_live_bytes(const AsGraph *g, int point);
/* apply.c */
void autoshard_apply(AsGraph *g);
/* Sharding constraints where the partitioner would choose another assignment. */
void autoshard_pin(AsGraph *g);
void autoshard_explain(const AsGraph *g, AutoShardReport *r);
void autoshard_report_add(AutoShardReport *r, const char *text);
double autoshard_chosen_cost(const AsGraph *g, int64_t *bytes);

#endif
