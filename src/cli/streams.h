/* streams.h - where the commands write: `stdout` and `stderr` in the files of src/cli name the
 * streams of the call being run, which are the process' own unless an in-process caller captures
 * them (capture.h). Every CLI header includes this one, so a command's fprintf(stderr, ...) needs
 * no change to be captured, and new code is captured as well.
 *
 * Invariant: after this header, `stdout` and `stderr` are function calls, never assignable; the
 * standard streams themselves are never reassigned (other threads of the process keep theirs). */
#ifndef DFS_CLI_STREAMS_H
#define DFS_CLI_STREAMS_H
#include <stdio.h>

/* The calling thread's streams: the capture's memory streams while dfs_cli_capture runs on it,
 * else the process' stdout and stderr. */
FILE *dfs_cli_stdout(void);
FILE *dfs_cli_stderr(void);

#undef stdout
#undef stderr
#define stdout (dfs_cli_stdout())
#define stderr (dfs_cli_stderr())
#endif
