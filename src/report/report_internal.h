/* report_internal.h - what the report's files share inside src/report/: one process's part of the
 * breakdown (build.c's formulas), for the page's breakdown per rank (detail.c). */
#ifndef DFS_REPORT_INTERNAL_H
#define DFS_REPORT_INTERNAL_H
#include "analyze/overlap/overlap.h"

/* The seconds of part id (a dfs_report_part id, or "span" for what they sum to) of one process
 * of the overlap result; 0 for an id the overlap breakdown has not. */
double dfs_report_process_part(const dfs_overlap_result *ov, const dfs_overlap_unit *u, const char *id);
#endif
