/* signals.c - SIGINT, SIGTERM, SIGHUP and SIGPIPE end dfscope without leaving a temporary behind
 * (signals.h). The handler removes the temporaries of the outputs being written (atomic.h keeps
 * them in the one table a handler may read), restores the default action and raises the signal
 * again, so that the process dies of it: a shell sees 128+N, a parent sees WIFSIGNALED, and a
 * previous output stays as it was (only a complete temporary is ever renamed over it).
 *
 * Any thread may take the signal: the handler uses only async-signal-safe calls (unlink through
 * dfs_atomic_discard_all, sigaction, raise), and temporaries live only while the main thread
 * writes, after the worker threads of the reading have ended. SIGPIPE is caught like the others
 * (stdout closed by `| head`: exit 141, nothing said), unless dfscope started with it ignored:
 * then a write fails with EPIPE and dfscope says "cannot write the output" once (exit 4). */
#include "cli/signals.h"

#include <signal.h>
#include <stddef.h>

#include "output/atomic.h"

static const int caught[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

static void on_fatal_signal(int sig)
{
    dfs_atomic_discard_all();
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig); /* blocked until the handler returns, then fatal */
}

void dfs_cli_catch_signals(void)
{
    struct sigaction sa = {.sa_handler = on_fatal_signal};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof caught / sizeof *caught; i++)
        sigaddset(&sa.sa_mask, caught[i]); /* one handler at a time */
    for (size_t i = 0; i < sizeof caught / sizeof *caught; i++) {
        struct sigaction old;
        if (sigaction(caught[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(caught[i], &sa, NULL);
    }
}
