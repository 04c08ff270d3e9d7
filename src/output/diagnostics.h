/* diagnostics.h - the problem report every command prints on stderr after reading. */
#ifndef DFS_DIAGNOSTICS_H
#define DFS_DIAGNOSTICS_H
#include <stdbool.h>
#include <stdio.h>

#include "dfscope.h"

/* One line per problem kind with its count and first examples (file:line, offset, detail).
 * Legal variants (class V) are only listed when verbose, except not_a_trace (an input skipped),
 * unmapped_read (files read the slower way, under a memory limit), and duplicate_record with
 * duplicates_unchecked (followed by a line on what the duplicates do to the numbers: kept, or
 * dropped when dedup, the run's --dedup). */
void dfs_report_problems(FILE *out, const dfs_run *run, int verbose, bool dedup);
/* The same problems in at most four lines, for a terminal: one line of counts per kind, the first
 * example of the first two kinds, and `more` (e.g. how to get the full report) when something
 * was left out, and the duplicates' line as in the full report. Nothing when there is nothing to
 * report. */
void dfs_report_problems_brief(FILE *out, const dfs_run *run, int verbose, bool dedup, const char *more);
#endif
