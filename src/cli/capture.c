/* capture.c - the calling thread's streams (streams.h) and the in-process run of a command with
 * its output in memory (capture.h).
 *
 * The current capture is thread-local: it is the context of the call running on this thread,
 * set on entry and cleared on the way out, never seen by another thread; outside a capture every
 * thread writes to the process' streams. */
#include "cli/capture.h"

#include <stdlib.h>

/* This file names the process' own streams: the redefinitions of streams.h stop here. */
#undef stdout
#undef stderr

static _Thread_local dfs_cli_capture *current;
static _Thread_local FILE *cur_out, *cur_err;

FILE *dfs_cli_stdout(void)
{
    return cur_out ? cur_out : stdout;
}

FILE *dfs_cli_stderr(void)
{
    return cur_err ? cur_err : stderr;
}

void dfs_cli_capture_options(dfs_options *o)
{
    if (current && current->cancelled) {
        o->cancelled = current->cancelled;
        o->cancel_ctx = current->cancel_ctx;
    }
}

int dfs_cli_capture_run(int argc, char **argv, dfs_cli_capture *cap)
{
    cap->out = cap->err = NULL;
    cap->out_len = cap->err_len = 0;
    FILE *out = open_memstream(&cap->out, &cap->out_len);
    FILE *err = open_memstream(&cap->err, &cap->err_len);
    if (!out || !err) {
        if (out)
            fclose(out);
        if (err)
            fclose(err);
        dfs_cli_capture_free(cap);
        return DFS_EXIT_OUTPUT;
    }
    current = cap;
    cur_out = out;
    cur_err = err;
    int rc = dfs_cli_dispatch(argc, argv);
    current = NULL;
    cur_out = cur_err = NULL;
    bool ok = fclose(out) == 0;
    ok = fclose(err) == 0 && ok; /* both closed: the buffers hold what was written, NUL-terminated */
    if (!ok || !cap->out || !cap->err) {
        dfs_cli_capture_free(cap);
        return DFS_EXIT_OUTPUT;
    }
    return rc;
}

void dfs_cli_capture_free(dfs_cli_capture *cap)
{
    free(cap->out);
    free(cap->err);
    cap->out = cap->err = NULL;
    cap->out_len = cap->err_len = 0;
}
