/* format.h - human formatting of numbers, durations, sizes and times for tables. */
#ifndef DFS_FORMAT_H
#define DFS_FORMAT_H
#include <stddef.h>
#include <stdint.h>

char *dfs_fmt_count(char *buf, size_t n, uint64_t v);     /* 1,234,567 */
char *dfs_fmt_duration(char *buf, size_t n, int64_t ns);  /* 12.346 s, 1.200 ms, 350 ns */
char *dfs_fmt_bytes(char *buf, size_t n, uint64_t bytes); /* 1.5 MB (decimal units) */
char *dfs_fmt_time(char *buf, size_t n, int64_t ns);      /* 2024-09-26T21:41:47.985825Z */
#endif
