/* stats_report.h - `dfscope stats` output as tables or as the JSON document of docs/CLI.md. */
#ifndef DFS_STATS_REPORT_H
#define DFS_STATS_REPORT_H
#include <stdbool.h>
#include <stdio.h>

#include "analyze/stats/stats.h"

typedef struct dfs_timing {
    bool enabled;
    int jobs;
    double wall_s;
    uint64_t disk_bytes;    /* bytes of the input files */
    uint64_t text_bytes;    /* decompressed bytes parsed */
    uint64_t peak_rss_kb;
} dfs_timing;

void dfs_stats_write_text(FILE *out, const dfs_run *run, const dfs_stats_result *r, size_t top,
                          const dfs_timing *t);
void dfs_stats_write_json(FILE *out, const dfs_run *run, const dfs_stats_result *r, size_t top,
                          const dfs_timing *t);
#endif
