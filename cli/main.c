/* The shardc command line: `shardc FILE.shir [options]`, `shardc rule ...`,
 * `shardc run ...`, `shardc opt ...`. */
#include <cblas.h>
#include <string.h>
#include "cmd.h"

int main(int argc, char **argv)
{
    /* One BLAS thread, whatever the machine: OpenBLAS picks its kernel and
     * blocking by thread count, so results would otherwise depend on the
     * core count (docs/kernels.md, "Determinism"), and its workers would
     * spin against the simulated devices' threads. */
    openblas_set_num_threads(1);
    if (argc >= 2 && strcmp(argv[1], "rule") == 0)
        return cmd_rule(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "opt") == 0)
        return cmd_opt(argc - 1, argv + 1);
    return cmd_compile(argc, argv);
}
