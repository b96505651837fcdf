/* sdy_opt prints shardings as Shardy's passes leave them, which is not how
 * shardc's propagation leaves them: Shardy keeps the dims a user wrote
 * closed closed and every other dim open, with the axes propagation added
 * (`{"a", ?}`), where shardc closes every dim. `shardc opt` remembers the
 * shardings as written before its passes and reopens the others after them
 * (cli_remember_shardings, cli_reopen_propagated); its pipeline then closes
 * every dim as Shardy's export does (cli_close_shardings). */
#ifndef SHARDC_CLI_OPT_SHARDINGS_H
#define SHARDC_CLI_OPT_SHARDINGS_H
#include "shardc/ir.h"

/* The shardings as written (NULL for none): values' by id, functions'
 * results by function and position. */
typedef struct CliWritten {
    Arena *arena;
    const Sharding **values;
    int num_values;  /* values made by the passes (ids from here on) had none */
    const Sharding ***results;
    int num_funcs;
} CliWritten;

bool cli_remember_shardings(Module *m, CliWritten *w);
/* Each dim closed only where the user wrote it closed; a sharding that says
 * nothing (`[{?}, {?}]`) is none; a result without one takes its returned
 * value's. */
void cli_reopen_propagated(Module *m, CliWritten *w);
void cli_written_free(CliWritten *w);
/* Shardy keeps a data-flow edge's sharding on its sdy.data_flow_edge op
 * only, not on the op whose result the edge is (a while or case). */
void cli_edge_shardings_on_edges(Module *m);
/* Shardy's export: every dim closed, sharding constraints become reshards. */
void cli_close_shardings(Module *m);

#endif
