/*
 * cli_commands.h - the subcommands of the pcwt tool. Each takes the arguments after its name
 * (argv[0] is the command name) and returns the process exit code (cli_report.h).
 */
#ifndef PCWT_CLI_COMMANDS_H
#define PCWT_CLI_COMMANDS_H

#include <stdio.h>

int cli_encode(int argc, char **argv);
int cli_decode(int argc, char **argv);
int cli_info(int argc, char **argv);

/* The text of pcwt --help. */
void cli_print_help(FILE *out);

#endif /* PCWT_CLI_COMMANDS_H */
