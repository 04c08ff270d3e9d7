/* capture.h - running a dfscope command in-process with its output in memory: the entry of the
 * Python binding (python/), so that a notebook's numbers are the CLI's own JSON, computed by the
 * same code, with the same exit code and the same diagnostics. main() is the same dispatch with
 * the process' streams (main.c).
 *
 * Invariants: a capture writes nothing to the process' stdout or stderr; its streams belong to the
 * calling thread only (thread-local), so other threads keep writing to theirs. Commands parse
 * their options with getopt, whose state is the process': run one command at a time (the
 * binding holds a lock). No command reads stdin. */
#ifndef DFS_CLI_CAPTURE_H
#define DFS_CLI_CAPTURE_H
#include <stdbool.h>
#include <stddef.h>

#include "cli/streams.h"
#include "dfscope.h"

/* Runs `dfscope argv[1] argv[2]...` (argv[0] is the program's name); returns the exit code. */
int dfs_cli_dispatch(int argc, char **argv);

typedef struct dfs_cli_capture {
    /* In: optional, the reads of the command stop early when it returns true (dfs_options). */
    bool (*cancelled)(void *ctx);
    void *cancel_ctx;
    /* Out: what the command wrote to stdout (its report: JSON with --format json) and to stderr
     * (diagnostics, warnings, errors), each NUL-terminated; free with dfs_cli_capture_free. */
    char *out, *err;
    size_t out_len, err_len;
} dfs_cli_capture;

/* dfs_cli_dispatch with the command's stdout and stderr into cap->out and cap->err. Returns the
 * exit code (enum dfs_exit), or DFS_EXIT_OUTPUT when the memory streams cannot be made. */
int dfs_cli_capture_run(int argc, char **argv, dfs_cli_capture *cap);
void dfs_cli_capture_free(dfs_cli_capture *cap);

/* Gives o the capture's cancel hook when the calling thread runs a capture (dfs_cli_open). */
void dfs_cli_capture_options(dfs_options *o);
#endif
