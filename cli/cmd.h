/* The subcommands of the shardc binary. Each takes its own argv (argv[0]
 * is the program or the subcommand's name) and returns the process exit
 * status: 0 success, 1 errors in the input, 2 bad usage. */
#ifndef SHARDC_CMD_H
#define SHARDC_CMD_H

struct CliCommand;

/* shardc FILE.shir [-o OUT] [--emit=...] ...: compile (the default). */
int cmd_compile(int argc, char **argv);

/* shardc run FILE.shir [--func=NAME] [--seed=N] [--inputs=a.npy,...]
 * [--outputs=DIR] [--print] [--visualize] [--rtol=X --atol=Y] [--stats]
 * [--reference=GLOBAL.shir]: run the program as written and as compiled to
 * SPMD on simulated devices, and compare (docs/interpreter.md). */
int cmd_run(int argc, char **argv);

/* shardc rule 'RULE' [--types '...'] [--size f=N]... [--reduction f,...]
 * [--need-replication f,...] [--permutation f,...] */
int cmd_rule(int argc, char **argv);

/* shardc opt FILE.mlir [-split-input-file] [-verify-diagnostics]
 * [-sdy-PASS[=OPTIONS]]... [-o OUT]: sdy_opt's command line (cli/opt.c). */
int cmd_opt(int argc, char **argv);

/* Their flag tables, for the usage lines of `shardc --help` and for
 * `shardc help COMMAND`. */
extern const struct CliCommand cmd_compile_command, cmd_run_command, cmd_rule_command, cmd_opt_command;

#endif
