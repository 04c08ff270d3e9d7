/* gpu_report_internal.h - what the writers of `dfscope gpu`'s output share: gpu_report.c (the
 * sections, the JSON document, HTA's CSV files) and gpu_report_launch.c (launch outliers, time on a
 * full queue, kernels per GPU user annotation). */
#ifndef DFS_GPU_REPORT_INTERNAL_H
#define DFS_GPU_REPORT_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/gpu/gpu.h"
#include "output/escape.h"
#include "output/json.h"

static inline double gpu_us(int64_t ns) { return (double)ns / 1000.0; }
/* A float as pandas writes it (Python's repr; NaN as an empty field), after a comma. */
void gpu_py_num(FILE *out, double v);
/* A rank as the tables name it: its number, and when another input names the same rank (exact
 * measures each file apart) its file's base name, escaped for the terminal. RANK(k) gives it in
 * a buffer of the expression's life. */
const char *gpu_rank_name(const dfs_gpu_rank *k, char *buf, size_t n);
#define RANK(k) gpu_rank_name((k), (char[DFS_TERM_STR_MAX + 32]){0}, DFS_TERM_STR_MAX + 32)

/* "12.34%", or "n/a" when not finite. */
const char *gpu_pct(char *buf, size_t n, double v);

/* Launch outliers: the findings that lead a rank's launch section, the worst of each class after
 * its statistics; the "outliers" object of a rank's "launch"; one CSV row per outlier. */
void gpu_text_launch_findings(FILE *out, const dfs_gpu_rank *k);
void gpu_text_launch_worst(FILE *out, const dfs_gpu_rank *k);
void gpu_json_launch_outliers(dfs_jw *w, const dfs_gpu_launch_stats *l);
bool gpu_has_launch_outliers(const dfs_gpu_result *r);
void gpu_csv_launch_outliers(FILE *out, const dfs_gpu_result *r);

/* Time blocked on a full queue: the finding of a rank's queue section, its JSON object, its CSV
 * (HTA's columns). */
void gpu_text_queue_blocked(FILE *out, const dfs_gpu_result *r, const dfs_gpu_rank *k);
void gpu_json_queue_blocked(dfs_jw *w, const dfs_gpu_rank *k);
bool gpu_has_queue_blocked(const dfs_gpu_result *r);
void gpu_csv_queue_blocked(FILE *out, const dfs_gpu_result *r);

/* Kernels attributed to GPU user annotations: a rank's table (`names` rows, 0 = all), JSON object
 * and CSV rows. */
void gpu_text_annotated(FILE *out, const dfs_gpu_rank *k, size_t names);
void gpu_json_annotated(dfs_jw *w, const dfs_gpu_rank *k);
void gpu_csv_annotated(FILE *out, const dfs_gpu_result *r);
#endif
