/* atomic.h - output files that appear whole or not at all.
 * Data goes to a temporary file beside the target, which replaces the target only when
 * everything was written and flushed; a failure leaves any previous file untouched. */
#ifndef DFS_ATOMIC_H
#define DFS_ATOMIC_H
#include <stdbool.h>
#include <stdio.h>

typedef struct dfs_atomic_file {
    FILE *fp;
    char *target;
    char *temp;
} dfs_atomic_file;

/* Opens the temporary file. Returns 0, or an errno value (message in err). */
int dfs_atomic_open(dfs_atomic_file *f, const char *path, char *err, size_t errlen);
/* Flushes, syncs and renames into place; or discards when !keep. Returns 0 or an errno value. */
int dfs_atomic_close(dfs_atomic_file *f, bool keep, char *err, size_t errlen);
/* True when path names the same file as one of the inputs (never overwrite an input). */
bool dfs_same_file(const char *a, const char *b);
/* mkdir -p: creates dir and its missing parents. Returns 0, or an errno value with the reason
 * ("cannot create D: ..." or "D is not a directory") in err. */
int dfs_make_dirs(const char *dir, char *err, size_t errlen);
#endif
