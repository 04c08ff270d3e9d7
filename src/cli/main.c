/* main.c - the dfscope program: the signals that end it leave no temporary behind (signals.h),
 * then the command line is dispatched (dispatch.c). */
#include "cli/capture.h"
#include "cli/signals.h"

int main(int argc, char **argv)
{
    dfs_cli_catch_signals();
    return dfs_cli_dispatch(argc, argv);
}
