/* main.c - the dfscope program: the signals that end it leave no temporary behind (signals.h),
 * the allocator fits an address-space limit, then the command line is dispatched (dispatch.c). */
#include <stdlib.h> /* and __GLIBC__ with it */
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli/capture.h"
#include "cli/signals.h"
#include "util/memlimit.h"

/* Under an address-space limit (ulimit -v), glibc's malloc reserves 64 MiB of address space for
 * each thread arena it opens, when threads happen to contend: a run's room then depended on
 * timing, and a budget fitted to the limit at the start (merge's sort buffer, the unmapped read)
 * failed in about one run in thirty. One arena keeps the room what the budget assumed. The
 * program owns its process; the Python package leaves the interpreter's allocator alone. */
static void fit_allocator_to_limit(void)
{
#ifdef __GLIBC__
    dfs_memlimit lim;
    if (dfs_memlimit_get(&lim))
        mallopt(M_ARENA_MAX, 1);
#endif
}

int main(int argc, char **argv)
{
    dfs_cli_catch_signals();
    fit_allocator_to_limit();
    return dfs_cli_dispatch(argc, argv);
}
