/* windowing.c - the window of `dfscope timeline` before drawing (windowing.h). A relative or open
 * window needs the trace's span, which only a reading can tell: a first pass of the timeline
 * analysis that measures the span only (bounds_only). What that pass learns about every file's
 * final clock and concept source is handed to the drawing pass, as a second pass of the analysis
 * would have it, so the drawing reads once more at most. */
#include "cli/windowing.h"

#include <stdlib.h>

#include "output/timeline_report.h"

void dfs_cli_windowing_init(dfs_cli_windowing *w, dfs_tlw_options *opt)
{
    *w = (dfs_cli_windowing){.opt = opt};
    dfs_tl_parse_window(":", &w->window, NULL, 0);
}

int dfs_cli_windowing_set(dfs_cli_windowing *w, const char *cmd, const char *text)
{
    char err[256];
    w->text = text;
    if (dfs_tl_parse_window(text, &w->window, err, sizeof err))
        return -1;
    fprintf(stderr, "dfscope %s: --window: %s\n", cmd, err);
    return DFS_EXIT_USAGE;
}

/* The trace's span as the user reads it back. */
static void print_span(const char *what, int64_t a, int64_t b)
{
    char x[48], y[48];
    fprintf(stderr, "%s %s to %s s", what, dfs_tl_fmt_seconds(x, sizeof x, a), dfs_tl_fmt_seconds(y, sizeof y, b));
}

static bool nothing_to_draw(const dfs_tlw_result *r)
{
    if (r->have_span)
        return false;
    fprintf(stderr, "dfscope timeline: the inputs hold no timed spans or counters; nothing to draw\n");
    return true;
}

bool dfs_cli_windowing_misses(const dfs_cli_windowing *w, const dfs_tlw_result *r)
{
    const dfs_tl_options *d = &w->opt->draw;
    if (nothing_to_draw(r))
        return true;
    if (d->end_ns > r->trace_start_ns && d->start_ns <= r->trace_end_ns)
        return false;
    fprintf(stderr, "dfscope timeline: ");
    print_span("the window", d->start_ns, d->end_ns);
    print_span(" lies outside the trace, which spans", r->trace_start_ns, r->trace_end_ns);
    fprintf(stderr, "; nothing written\n");
    return true;
}

/* The window in absolute times (trace_start_ns and trace_end_ns are read only when it needs
 * them); false when it cannot be (said). */
static bool resolve(dfs_cli_windowing *w, int64_t trace_start_ns, int64_t trace_end_ns)
{
    char err[256];
    dfs_tl_options *d = &w->opt->draw;
    if (dfs_tl_window_resolve(&w->window, trace_start_ns, trace_end_ns, &d->start_ns, &d->end_ns, err, sizeof err))
        return true;
    fprintf(stderr, "dfscope timeline: --window %s: %s\n", w->text ? w->text : ":", err);
    return false;
}

/* The measuring pass's writer: every file's final clock and source for the drawing pass (what the
 * analysis' second pass would get), and the window on the trace's span. */
static int measured(void *user, const dfs_cli_result *res)
{
    dfs_cli_windowing *w = user;
    const dfs_tlw_result *r = res->result;
    w->clocks = dfs_run_final_clocks(res->run);
    /* Not prepare_rerun: the drawing reading is the measuring one's successor, not the analysis'
     * own second pass, and may itself need one (more lanes than a picture draws). */
    if (!w->clocks || !dfs_tlw_options_use_run(w->opt, res->run, w->clocks))
        return dfs_cli_error("timeline", DFS_EXIT_OUTPUT, "out of memory");
    if (nothing_to_draw(r) || !resolve(w, r->trace_start_ns, r->trace_end_ns) || dfs_cli_windowing_misses(w, r))
        return DFS_EXIT_USAGE;
    w->measured = true;
    return DFS_EXIT_OK;
}

int dfs_cli_windowing_resolve(dfs_cli_windowing *w, dfs_cli_args *b)
{
    if (!dfs_tl_window_needs_span(&w->window))
        return resolve(w, 0, 0) ? DFS_EXIT_OK : DFS_EXIT_USAGE;
    dfs_tlw_options bounds;
    dfs_tlw_options_init(&bounds);
    bounds.bounds_only = true;
    const dfs_cli_job job = {
        .cmd = "timeline", .an = &dfs_timeline_analysis, .opt = &bounds, .write = measured, .user = w};
    int rc = dfs_cli_run_analysis(&b->common, b->paths, b->npaths, &job);
    b->common.quiet = true; /* the problems are reported once */
    /* damage and missing paths are left to the drawing pass, which reads the same inputs */
    return w->measured ? DFS_EXIT_OK : rc;
}

void dfs_cli_windowing_free(dfs_cli_windowing *w)
{
    free((void *)w->opt->sources);
    w->opt->sources = NULL;
    free(w->clocks);
    w->clocks = NULL;
}
