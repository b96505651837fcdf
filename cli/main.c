/* The shardc command line: `shardc FILE.shir [options]`, `shardc rule ...`,
 * `shardc run ...`, `shardc opt ...`. */
#include <string.h>
#include "cmd.h"

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "rule") == 0)
        return cmd_rule(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "opt") == 0)
        return cmd_opt(argc - 1, argv + 1);
    return cmd_compile(argc, argv);
}
