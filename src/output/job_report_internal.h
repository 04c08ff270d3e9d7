/* job_report_internal.h - what the report's writers share (job_report.c for the terminal and
 * JSON, report_html.c for the page): the evidence templates, the glossary, durations. */
#ifndef DFS_JOB_REPORT_INTERNAL_H
#define DFS_JOB_REPORT_INTERNAL_H
#include <stddef.h>

#include "analyze/insights/insights.h"
#include "report/job_report.h"

/* Where a rendered template goes: put takes the template's own text, put_raw a metric's place
 * (text from a trace, escaped by the sink for its context). */
typedef struct dfs_jr_sink {
    void (*put)(void *ctx, const char *s, size_t n);
    void (*put_raw)(void *ctx, const char *s, size_t n);
    void *ctx;
} dfs_jr_sink;

/* An evidence template with {metric} as its value and {metric.where} as its place. */
void dfs_jr_render(const dfs_jr_sink *k, const char *t, const dfs_metrics *ms);
/* The glossary's definition of a figure's id ("compute", "wall_time"), NULL when none. */
const char *dfs_jr_define(const char *id);
/* A kind's count: "18,279 records (18,039 events, 240 metadata)", or "75 events" without metadata
 * records: the analyses count events, `dfscope stats` records, and neither may contradict it. */
char *dfs_jr_kind_count(char *buf, size_t n, const dfs_report_kind *k);
/* A duration from seconds, auto-scaled ("12.346 s"); "n/a" when not finite. */
char *dfs_jr_seconds(char *buf, size_t n, double s);
#endif
