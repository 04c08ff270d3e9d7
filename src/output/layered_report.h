/* layered_report.h - `dfscope analyze` output: the console summary of layered-analysis.md §8, the
 * versioned JSON document of docs/ANALYZE.md (a superset of DFAnalyzer's §9 JSON), and one CSV
 * per flat view. */
#ifndef DFS_LAYERED_REPORT_H
#define DFS_LAYERED_REPORT_H
#include <stdbool.h>
#include <stdio.h>

#include "analyze/layered/layered.h"

#define DFS_ANALYZE_SCHEMA "dfscope-analyze/1"

typedef struct dfs_report_context {
    const char *preset_source; /* "given" or "auto-detected" */
    bool reran;                /* a second pass was needed (origin, clocks, or order for exact u_) */
    const char *rerun_reason;  /* why (NULL: not said) */
    const char *const *inputs;
    size_t ninputs;
    bool absolute_clock;       /* the times are dates (no input has a relative clock): tables print them in UTC */
} dfs_report_context;

/* Python's round-half-even of 100·max(0, 1 − u/v); -1 when the value is 0 or u is null. */
int dfs_overlap_percent(double u, double v);

void dfs_layered_write_text(FILE *out, const dfs_layered_result *r, const dfs_report_context *ctx);
void dfs_layered_write_json(FILE *out, const dfs_layered_result *r, const dfs_report_context *ctx);
/* When more than DFS_LEFT_OUT_SHARE of the post-read events or of their time fall in no layer of
 * the preset: says so on err (how much, the largest categories left out, the preset's layers that
 * name them, how to count them) and returns true. */
#define DFS_LEFT_OUT_SHARE 0.05
bool dfs_layered_warn_left_out(FILE *err, const char *cmd, const dfs_layered_result *r);
/* One CSV of the flat view, and one of its per-layer summary. */
void dfs_layered_write_view_csv(FILE *out, const dfs_view_result *v);
void dfs_layered_write_summary_csv(FILE *out, const dfs_layered_result *r, const dfs_view_result *v);
#endif
