/* gen_internal.h - what the generators of src/gen share: error reasons, paths and the report.
 *
 * Both entry points (dfs_gen_write, gen.c; dfs_gen_dasf_write, gen_dasf.c) keep the contract of
 * gen.h: a failure leaves a one-line reason in the caller's buffer, and the report's totals are
 * the sums over its files. */
#ifndef DFS_GEN_INTERNAL_H
#define DFS_GEN_INTERNAL_H
#include <stddef.h>
#include <time.h>

#include "gen/gen.h"

/* Writes the reason into err (when there is room) and returns status. */
int gen_fail(char *err, size_t errlen, int status, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "dir/name", malloc'd; NULL when out of memory. */
char *gen_join_path(const char *dir, const char *name);
/* The report's records and bytes: the sums over its files. */
void gen_report_sum(dfs_gen_report *r);
/* Wall seconds since t0 (CLOCK_MONOTONIC). */
double gen_seconds_since(const struct timespec *t0);
#endif
