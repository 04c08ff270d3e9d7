/* timeline_report.h - the summary `dfscope timeline` prints beside its picture: the window, the
 * trace's span, lanes drawn, spans per class, counters, and a line per lane (table or JSON). */
#ifndef DFS_TIMELINE_REPORT_H
#define DFS_TIMELINE_REPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/timeline/tlwindow.h"

/* Seconds with every digit ("-12.000000001"), as --window reads them back. */
char *dfs_tl_fmt_seconds(char *buf, size_t n, int64_t ns);
/* A time on the trace's clock: a UTC date on an epoch clock (dfs_fmt_epoch_clock), else "S.NNNNNNNNN s". */
char *dfs_tl_fmt_clock(char *buf, size_t n, int64_t t, bool epoch);

/* The summary of the picture written to `picture` for the window [start_ns, end_ns]. Returns false
 * when out of memory (nothing written). */
bool dfs_tl_write_summary(FILE *out, bool json, const char *picture, int64_t start_ns, int64_t end_ns,
                          const dfs_tlw_result *r);
#endif
