/* format.h - the one set of human formats of the product's tables: counts, durations, sizes,
 * rates and times. Machines' outputs (JSON, CSV) never use them: they keep raw numbers.
 *
 * Invariants: no scientific notation, ever (every number prints in fixed notation, thousands
 * grouped by commas); a value that does not exist prints as DFS_FMT_NA, never "nan"; each value
 * carries its own unit, chosen per value so that its number reads between 1 and 1000 (durations:
 * ns, us, ms, s up to 60, min up to 60, then h), with three decimals (one for sizes and rates,
 * whole numbers of bytes and nanoseconds). Sizes and rates are decimal: 1 KB = 1,000 bytes. */
#ifndef DFS_FORMAT_H
#define DFS_FORMAT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DFS_FMT_NA "n/a" /* a value that does not exist (no events, a division by zero) */

char *dfs_fmt_count(char *buf, size_t n, uint64_t v);           /* 1,234,567 */
char *dfs_fmt_fixed(char *buf, size_t n, double v, int decimals); /* 3,268.686; NaN: n/a */
char *dfs_fmt_plain(char *buf, size_t n, double v);             /* 4 significant digits: 0.0001234, 1,234.568 */
char *dfs_fmt_duration(char *buf, size_t n, int64_t ns);        /* 12.346 s, 1.200 ms, 350 ns, 7.366 min */
char *dfs_fmt_offset(char *buf, size_t n, int64_t ns);          /* signed: +12.345 ms, -3.000 us */
char *dfs_fmt_seconds(char *buf, size_t n, double s);           /* the same from seconds; 0 s; NaN: n/a */
char *dfs_fmt_bytes(char *buf, size_t n, uint64_t bytes);       /* 1.5 MB, 117.3 GB, 999 B */
char *dfs_fmt_size(char *buf, size_t n, double bytes);          /* the same from a double; NaN: n/a */
char *dfs_fmt_rate(char *buf, size_t n, double bytes_per_s);    /* Whether a time is on an epoch clock (after 1973), so that a picture or a summary names it as a
 * UTC date (dfs_fmt_time); a trace's relative clock starts near 0. */
static inline bool dfs_fmt_epoch_clock(int64_t ns)
{
    return ns >= INT64_C(100000000000000000);
}

/* 858.8 MB/s; NaN: n/a */
char *dfs_fmt_time(char *buf, size_t n, int64_t ns);            /* 2024-09-26T21:41:47.985825Z: ISO 8601 UTC, the fraction in groups of three digits, as many as it holds */
char *dfs_fmt_time_ns(char *buf, size_t n, int64_t ns);         /* 2024-09-26T21:41:47.985825000Z: always 9 digits */
#endif
