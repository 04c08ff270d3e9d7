/* dataloader_report.h - output of `dfscope dataloader`: the report as tables, one JSON document
 * (schema "dfscope-dataloader/1"), CSV files, and per outlier window a Chrome-JSON slice and an
 * SVG picture (analyze/timeline/timeline.h). */
#ifndef DFS_DATALOADER_REPORT_H
#define DFS_DATALOADER_REPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analyze/dataloader/dataloader.h"
#include "output/atomic.h"

typedef struct dfs_dl_report_options {
    size_t window_events;    /* framework events listed per window (0 = all) */
    const char *windows_dir; /* where dfs_dl_write_windows put the slices (named in the report); NULL: none */
} dfs_dl_report_options;

/* smdebug's time text, "%Y-%m-%dT%H:%M:%S:%f" (a colon before the microseconds), UTC. */
char *dfs_dl_fmt_time(char *buf, size_t n, int64_t ns);

void dfs_dl_write_text(FILE *out, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_report_options *o);
void dfs_dl_write_json(FILE *out, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_report_options *o);

/* Creates dir and writes summary.csv, outliers.csv, rows.csv and window_metrics.csv, each
 * atomically, none over an input of guard (may be NULL). Returns 0, or -1 with a message in err. */
int dfs_dl_write_csv_dir(const char *dir, const dfs_run *run, const dfs_dl_result *r, dfs_output_guard *guard,
                         char *err, size_t errlen);

/* The file name of a window's slice or picture: "getnext-1.json", "batch-2.svg"... */
void dfs_dl_window_file(char *buf, size_t n, const dfs_dl_window *w, const char *ext);

/* Creates dir and writes, for every window, its Chrome-JSON slice (the framework events
 * overlapping it, the system samples in it as counters) and its SVG picture, none over an input
 * of guard (may be NULL: every name is checked before the first file is written). Returns 0, or
 * -1 with a message in err. */
int dfs_dl_write_windows(const char *dir, const dfs_run *run, const dfs_dl_result *r, dfs_output_guard *guard,
                         char *err, size_t errlen);
#endif
