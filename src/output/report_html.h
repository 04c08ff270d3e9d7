/* report_html.h - `dfscope report` as one self-contained HTML page (report_html.c; its sections
 * and size bound: docs/REPORT.md). */
#ifndef DFS_OUTPUT_REPORT_HTML_H
#define DFS_OUTPUT_REPORT_HTML_H
#include <stdio.h>

#include "report/detail.h"
#include "report/job_report.h"

void dfs_job_report_write_html(FILE *out, const dfs_job_report *r, const dfs_report_detail *d);
#endif
