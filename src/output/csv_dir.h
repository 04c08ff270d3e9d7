/* csv_dir.h - a directory of CSV files (--format csv -o DIR, tasks -o DIR): the directory made
 * when missing, then one file per table, each written atomically (atomic.h); the first failure
 * stops the writing. No file is written when one of them would overwrite an input. */
#ifndef DFS_CSV_DIR_H
#define DFS_CSV_DIR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "output/atomic.h"

/* One file of the directory: its name and what writes it (false when out of memory). */
typedef struct dfs_csv_file {
    char name[64];
    bool (*write)(FILE *out, const void *ctx, size_t which);
    size_t which; /* given to write: the index of a table or a view */
} dfs_csv_file;

/* Makes dir (and its missing parents when `parents`; else dir only, which may exist) and writes
 * the files into it, each given ctx, none over an input of guard (may be NULL). Returns 0, or -1
 * with the reason in err (guard->refused set when the reason is an input). */
int dfs_csv_dir_write(const char *dir, bool parents, const dfs_csv_file *files, size_t n, const void *ctx,
                      dfs_output_guard *guard, char *err, size_t errlen);
#endif
