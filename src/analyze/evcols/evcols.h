/* evcols.h - events as columns: a consumer of a dfs_run that keeps the columns a caller asks for,
 * of the events a predicate selects, and hands them back as whole arrays (the Python binding's
 * DataFrame of events; docs/PYTHON.md).
 *
 * Invariants: each worker appends to its own buffers (no lock while reading); the rows come back
 * in (file, offset) order, the order of the inputs and of the records in them, whatever -j read
 * them; strings come back as categoricals whose categories are sorted by content, so the codes are
 * the same for any -j too. Times are absolute ns (the file's clock applied once it is known).
 */
#ifndef DFS_EVCOLS_H
#define DFS_EVCOLS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfscope.h"

enum { DFS_EC_MAX_COLUMNS = 64, DFS_EC_MAX_WHERE_KEYS = 16 };

typedef enum dfs_ec_type {
    DFS_EC_INT64,    /* int64_t values */
    DFS_EC_UINT64,   /* uint64_t values */
    DFS_EC_FLOAT64,  /* double values, NaN where missing */
    DFS_EC_CATEGORY, /* int32_t codes into categories, -1 where missing */
} dfs_ec_type;

/* One column of the result. The arrays are malloc'd and handed over: whoever takes them sets the
 * pointer to NULL before dfs_evcols_free. The category texts point into the run's string table
 * or file table: valid while the run lives. */
typedef struct dfs_ec_column {
    const char *name;  /* as asked ("ts", "size" for "args.size") */
    dfs_ec_type type;
    void *values;      /* nrows items of the type (int32_t codes for a category) */
    uint8_t *missing;  /* nrows bytes, 1 where the value is missing; NULL when none is */
    const char **cat_text;
    size_t *cat_len;
    size_t ncats;
} dfs_ec_column;

typedef struct dfs_evcols dfs_evcols;

/* The column names a caller may ask for besides "args.KEY" (an argument of the events, by its
 * key), NULL-terminated. */
extern const char *const dfs_ec_builtin_columns[];

/* Columns by name (at most DFS_EC_MAX_COLUMNS), the predicate (the language of docs/PREDICATES.md
 * over cat, func_name, file_name, host, pid and tid; NULL or "" for every event) and the most rows
 * to return (0: all). NULL with the reason in err when a name or the predicate is not valid. */
dfs_evcols *dfs_evcols_new(const char *const *columns, size_t ncolumns, const char *where, uint64_t limit,
                           char *err, size_t errlen);
void dfs_evcols_free(dfs_evcols *ec);
/* The consumer to pass to dfs_run_read. */
dfs_consumer *dfs_evcols_consumer(dfs_evcols *ec);
/* After dfs_run_read: orders the rows and builds the columns. false when out of memory or when
 * the predicate could not be answered (a regular expression over its bounds), said in err. */
bool dfs_evcols_finish(dfs_evcols *ec, const dfs_run *run, char *err, size_t errlen);
size_t dfs_evcols_rows(const dfs_evcols *ec);
size_t dfs_evcols_ncolumns(const dfs_evcols *ec);
dfs_ec_column *dfs_evcols_column(dfs_evcols *ec, size_t i);
#endif
