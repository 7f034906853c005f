/* cli_help.h - help and the version, printed from the one table (agent/cli.c): the program's, and each command's. */
#pragma once

#include <stdio.h>

#include "agent/cli.h"

/*
 * cli_help_run() - CLI_CMD_HELP and CLI_CMD_VERSION as cli_parse() left them in @opt: the help
 * of opt->help_of (the program's for CLI_CMD__COUNT), or the version in opt->output, on stdout.
 * Return: the exit code: 0; EXIT_UNKNOWN when stdout failed.
 */
int cli_help_run(const struct cli_options *opt);

/*
 * cli_help_command() - the help of @cmd in @prog: its usage, what it does, its options only
 * (each with the meaning it has for @cmd; -o with the command's formats), examples, exit codes.
 */
void cli_help_command(enum cli_program prog, enum cli_command cmd, FILE *out);
