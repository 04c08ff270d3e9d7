/* overlap_report.h - `dfscope overlap` output: the console summary (G0's panel, overlap.md §2.4,
 * with the exact values beside the sums, maxima and minima over the scope's units), the JSON
 * document (schema dfscope-overlap/1, docs/CLI.md) and CSV tables.
 *
 * Every time is written in seconds, from exact integer ns. Field names of a unit (JSON keys and
 * CSV columns): total_time_s, app_io_s, unoverlapped_app_io_s, unoverlapped_app_compute_s,
 * compute_s, io_s, unoverlapped_io_s, unoverlapped_compute_s, io_compute_overlap_s,
 * app_io_compute_overlap_s, overlap_fraction_io, then Σ dur and event counts, then per extra class
 * X: X_s, unoverlapped_X_s, unoverlapped_X_compute_s, X_compute_overlap_s (and its sum and counts).
 */
#ifndef DFS_OVERLAP_REPORT_H
#define DFS_OVERLAP_REPORT_H
#include <stdbool.h>
#include <stdio.h>

#include "analyze/overlap/overlap.h"

#define DFS_OVERLAP_SCHEMA "dfscope-overlap/1"

typedef struct dfs_overlap_report_context {
    const char *preset_source; /* "given" or "auto-detected" */
    bool reran;                /* a second pass was needed */
    const char *rerun_reason;
    bool absolute_clock;       /* the times are dates (no input has a relative clock): tables print them in UTC */
} dfs_overlap_report_context;

void dfs_overlap_write_text(FILE *out, const dfs_overlap_result *r, const dfs_overlap_report_context *ctx);
void dfs_overlap_write_json(FILE *out, const dfs_overlap_result *r, const dfs_overlap_report_context *ctx);

/* The CSV tables, each a file of its own (the CLI writes them into a directory). */
typedef enum dfs_overlap_csv {
    DFS_OVERLAP_CSV_UNITS,     /* overlap.csv: every unit, then summary, max, min, global */
    DFS_OVERLAP_CSV_BINS,      /* bins.csv */
    DFS_OVERLAP_CSV_EPOCHS,    /* epochs.csv: per process, then the totals */
    DFS_OVERLAP_CSV_STEPS,     /* steps.csv */
    DFS_OVERLAP_CSV_FUNCTIONS, /* functions.csv */
    DFS_OVERLAP_CSV__COUNT
} dfs_overlap_csv;

const char *dfs_overlap_csv_name(dfs_overlap_csv t); /* "overlap.csv", ... */
/* False when the table has nothing to write for this result (e.g. no bins). */
bool dfs_overlap_csv_present(const dfs_overlap_result *r, dfs_overlap_csv t);
void dfs_overlap_write_csv(FILE *out, const dfs_overlap_result *r, dfs_overlap_csv t);

/* "18K" for 18,039: rounded to 3 significant digits, base-1000 suffixes (G0's Events Recorded). */
char *dfs_overlap_fmt_count(char *buf, size_t n, uint64_t v);
#endif
