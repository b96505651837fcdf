/* The shardc command line: `shardc FILE.shir [options]`, `shardc rule ...`,
 * `shardc run ...`, `shardc opt ...`, `shardc help [COMMAND]`. */
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "cmd.h"
#include "shardc/suggest.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const CliCommand *command;
} commands[] = {
    {"run", cmd_run, &cmd_run_command},
    {"rule", cmd_rule, &cmd_rule_command},
    {"opt", cmd_opt, &cmd_opt_command},
};
enum { NUM_COMMANDS = sizeof commands / sizeof commands[0] };

/* The command nearest a mistyped name, or NULL. */
static const char *closest_command(const char *name)
{
    const char *names[NUM_COMMANDS + 1];
    for (int i = 0; i < NUM_COMMANDS; i++)
        names[i] = commands[i].name;
    names[NUM_COMMANDS] = "help";
    return suggest_closest(name, strlen(name), names, NUM_COMMANDS + 1);
}

static int unknown_command(const char *lead, const char *name)
{
    const char *near = closest_command(name);
    if (near)
        return cli_usage_error(&cmd_compile_command, "%sunknown command '%s'; did you mean '%s'?", lead, name, near);
    return cli_usage_error(&cmd_compile_command, "%sunknown command '%s'", lead, name);
}

/* shardc help [COMMAND]: the --help text of the command, or the top one. */
static int cmd_help(int argc, char **argv)
{
    if (argc > 2)
        return cli_usage_error(&cmd_compile_command, "help takes one command name");
    const CliCommand *cmd = argc < 2 || strcmp(argv[1], "help") == 0 ? &cmd_compile_command : NULL;
    for (int i = 0; !cmd && i < NUM_COMMANDS; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            cmd = commands[i].command;
    if (!cmd)
        return unknown_command("help: ", argv[1]);
    cli_print_help(stdout, cmd);
    return 0;
}

/* `shardc rnu f.shir`: a word that is no file but nearly a command. */
static int mistyped_command(const char *arg)
{
    bool word = arg[0] != '-' && !strchr(arg, '.') && !strchr(arg, '/') && access(arg, F_OK) != 0;
    return word && closest_command(arg) ? unknown_command("", arg) : -1;
}

int main(int argc, char **argv)
{
    for (int i = 0; argc >= 2 && i < NUM_COMMANDS; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "help") == 0)
        return cmd_help(argc - 1, argv + 1);
    int status = argc >= 2 ? mistyped_command(argv[1]) : -1;
    return status >= 0 ? status : cmd_compile(argc, argv);
}
