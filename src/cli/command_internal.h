/* command_internal.h - what the files of the command skeleton share (skeleton.c parses and runs,
 * options.c applies values and holds the shared option groups, help.c prints, kinds.c says what
 * the inputs are when a command found nothing in them). */
#ifndef DFS_CLI_COMMAND_INTERNAL_H
#define DFS_CLI_COMMAND_INTERNAL_H
#include "cli/command.h"

/* A command's options and those of its groups, in the order --help lists them. */
enum { DFS_CLI_MAX_OPTIONS = 64 };
typedef struct dfs_cli_optlist {
    const dfs_cli_option *v[DFS_CLI_MAX_OPTIONS];
    size_t n;
} dfs_cli_optlist;

void dfs_cli_collect_options(const dfs_cli_command *cmd, dfs_cli_optlist *out);
/* Applies a value (NULL for a flag) to args: -1 to go on, else the exit code to stop with. */
int dfs_cli_apply_option(const dfs_cli_command *cmd, const dfs_cli_option *o, void *args, const char *value);
/* "dfscope CMD: warning: WHAT in these inputs." then what the inputs are and the commands that
 * read them, on err (kinds.c). */
void dfs_cli_say_found_nothing(FILE *err, const char *cmd, const char *what, const dfs_run *run);

#endif
