/* windowing.h - what `dfscope timeline` does before drawing (windowing.c): its --window, resolved
 * to absolute times on the trace's clock, by a first pass over the inputs that measures the trace's
 * span when the window is relative or open, or that finds the training step of --step N and
 * --slowest-step; and the check of a result against that window. */
#ifndef DFS_CLI_WINDOWING_H
#define DFS_CLI_WINDOWING_H
#include <stdbool.h>

#include "analyze/steps/steps.h"
#include "analyze/timeline/tlwindow.h"
#include "cli/command.h"

typedef struct dfs_cli_windowing {
    dfs_tl_window window;   /* --window as parsed (default ':', the whole trace) */
    const char *text;       /* --window as given; NULL for the default */
    dfs_tlw_options *opt;   /* the drawing pass's: the window (draw.start_ns, end_ns) goes there,
                               and after a measuring pass every file's final clock and source */
    dfs_file_clock *clocks; /* of the measuring pass */
    bool measured;          /* the measuring pass found the window within the trace */
    /* --step N / --slowest-step: the window is a training step, found by a reading of the steps
     * analysis with the picture's concepts (step_number 0 and !slowest_step: --window) */
    int64_t step_number;
    bool slowest_step;
    char step_text[160];    /* the step chosen, for the picture's subtitle ("" for --window) */
} dfs_cli_windowing;

/* The whole trace, for the drawing options opt (which outlive w). */
void dfs_cli_windowing_init(dfs_cli_windowing *w, dfs_tlw_options *opt);
/* --window START:END: -1 to go on, or a usage error's code (said). */
int dfs_cli_windowing_set(dfs_cli_windowing *w, const char *cmd, const char *text);
/* --step N: the window is step N (on every run that has it); slowest: the longest step of any
 * run, warm-up and last steps left out when others exist. -1 to go on, or a usage error (said). */
int dfs_cli_windowing_set_step(dfs_cli_windowing *w, const char *cmd, int64_t number, bool slowest);
/* The window in absolute times, after a measuring pass over the command's inputs when it needs
 * the trace's span (the drawing pass then reports no problem again: quiet). DFS_EXIT_OK, or the
 * exit code to stop with (said). */
int dfs_cli_windowing_resolve(dfs_cli_windowing *w, dfs_cli_args *b);
/* True, and said, when the result holds nothing to draw or lies outside the window. */
bool dfs_cli_windowing_misses(const dfs_cli_windowing *w, const dfs_tlw_result *r);
void dfs_cli_windowing_free(dfs_cli_windowing *w);
/* The step --slowest-step draws (and its run), NULL without steps: for a picture of it elsewhere
 * (the report's page). */
const dfs_step *dfs_cli_slowest_step(const dfs_steps_result *r, const dfs_steps_run **run);
#endif
