/* signals.h - what a signal that ends dfscope does first (signals.c). */
#ifndef DFS_CLI_SIGNALS_H
#define DFS_CLI_SIGNALS_H

/* SIGINT, SIGTERM, SIGHUP and SIGPIPE, unless ignored when dfscope started (nohup, a shell's
 * background job): remove the temporaries of unfinished outputs, then end by the signal (the
 * shell's status 128+N). Called once, first thing in main. */
void dfs_cli_catch_signals(void);
#endif
