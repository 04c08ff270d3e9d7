/* cli.h - option-value parsing the dfscope subcommands share (args.c, common.c): usage errors in
 * one form, the --format values, bounded numbers. The commands themselves are declarations
 * (command.h). */
#ifndef DFS_CLI_H
#define DFS_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/streams.h"

int dfs_cli_parse_jobs(const char *s, int *jobs);  /* 0 on success */
/* Prints "dfscope CMD: WHAT 'ARG' (see 'dfscope CMD --help')" (without 'ARG' when arg is NULL)
 * and returns DFS_EXIT_USAGE. */
int dfs_cli_usage_error(const char *cmd, const char *what, const char *arg);
/* Ends a usage error's line on stderr: ". Did you mean 'QUOTEDGUESS'?" when guess is not NULL
 * (QUOTED: "--" for an option, "" for a value), else `otherwise`; then a newline. */
void dfs_cli_end_with_guess(const char *quoted, const char *guess, const char *otherwise);

typedef enum dfs_cli_format { DFS_CLI_TABLE, DFS_CLI_JSON, DFS_CLI_CSV } dfs_cli_format;
/* The value of --format (csv only where the command writes CSV): 0, or a usage error's code. */
int dfs_cli_parse_format(const char *cmd, const char *arg, bool csv_ok, dfs_cli_format *out);
/* A decimal integer in [lo, hi], nothing else in s. */
bool dfs_cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
/* A number in [lo, hi] (strtod syntax), nothing else in s. */
bool dfs_cli_parse_double(const char *s, double lo, double hi, double *out);
#endif
