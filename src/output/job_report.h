/* job_report.h - `dfscope report` written: the terminal page and the dfscope-report/1 JSON
 * (job_report.c; what they hold: report/job_report.h, docs/REPORT.md). */
#ifndef DFS_OUTPUT_JOB_REPORT_H
#define DFS_OUTPUT_JOB_REPORT_H
#include <stdio.h>

#include "report/job_report.h"

void dfs_job_report_write_text(FILE *out, const dfs_job_report *r);
void dfs_job_report_write_json(FILE *out, const dfs_job_report *r);
#endif
