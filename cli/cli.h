/* Subcommands of the shardc binary. Each returns the process exit status:
 * 0 success, 1 errors in the input, 2 bad usage. */
#ifndef SHARDC_CLI_H
#define SHARDC_CLI_H
#include "cmd.h"

#define SHARDC_VERSION "0.1.0"

/* shardc FILE.shir [-o OUT] [--emit=...] ... (argv[0] is the program) */
int cmd_compile(int argc, char **argv);

#endif
