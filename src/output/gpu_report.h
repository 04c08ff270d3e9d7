/* gpu_report.h - the output of `dfscope gpu`: the table (the temporal breakdown per rank first),
 * the JSON document (schema dfscope-gpu/1) and one CSV file per section with Holistic Trace
 * Analysis' file names and columns. */
#ifndef DFS_GPU_REPORT_H
#define DFS_GPU_REPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analyze/gpu/gpu.h"

typedef enum dfs_gpu_csv {
    DFS_GPU_CSV_TEMPORAL,     /* temporal_breakdown.csv */
    DFS_GPU_CSV_TYPES,        /* gpu_kernel_breakdown_0.csv */
    DFS_GPU_CSV_NAMES,        /* gpu_kernel_breakdown_1.csv */
    DFS_GPU_CSV_OVERLAP,      /* comm_comp_overlap.csv */
    DFS_GPU_CSV_IDLE,         /* idle_time_breakdown_0.csv */
    DFS_GPU_CSV_IDLE_STATS,   /* idle_time_breakdown_1.csv */
    DFS_GPU_CSV_QUEUE,        /* queue_length_summary.csv */
    DFS_GPU_CSV_MEMBW,        /* memory_bw_summary.csv */
    DFS_GPU_CSV_ANNOTATIONS,  /* gpu_user_annotation_breakdown.csv */
    DFS_GPU_CSV_CRITICAL,     /* critical_path.csv (HTA prints its summary; the columns are ours) */
    DFS_GPU_CSV_SEQUENCES,    /* cuda_kernel_sequences.csv (HTA's columns, and the rank) */
    DFS_GPU_CSV_STRAGGLERS,   /* stragglers.csv (HTA returns a list of ranks; the columns are ours) */
    DFS_GPU_CSV_LAUNCH_OUTLIERS, /* cuda_kernel_launch_outliers.csv (HTA plots them; the columns are ours) */
    DFS_GPU_CSV_QUEUE_BLOCKED,   /* queue_blocked.csv (HTA's columns of its blocked-time table) */
    DFS_GPU_CSV_ANNOTATED,       /* gpu_kernels_by_annotation.csv (the columns are ours) */
    DFS_GPU_CSV__COUNT
} dfs_gpu_csv;

/* The file name of a CSV table. */
const char *dfs_gpu_csv_name(dfs_gpu_csv t);
/* Does the result hold this table (its section ran and some rank has device work)? */
bool dfs_gpu_csv_present(const dfs_gpu_result *r, dfs_gpu_csv t);
void dfs_gpu_write_csv(FILE *out, const dfs_gpu_result *r, dfs_gpu_csv t);
/* The launch statistics of the rank at index `rank` of r (HTA's cuda_kernel_launch_stats_describe_
 * <rank>.csv); all ranks in one file with a rank column when `rank` is r->nranks. */
void dfs_gpu_write_launch_csv(FILE *out, const dfs_gpu_result *r, size_t rank);
void dfs_gpu_write_json(FILE *out, const dfs_gpu_result *r);
/* `names`: rows of the by-name breakdown shown per rank and type (0 = all). */
void dfs_gpu_write_text(FILE *out, const dfs_gpu_result *r, size_t names);
#endif
