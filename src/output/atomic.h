/* atomic.h - output files that appear whole or not at all, never over an input.
 * Data goes to a temporary file beside the target, which replaces the target only when
 * everything was written and flushed; a failure leaves any previous file untouched, and so does a
 * fatal signal once the process calls dfs_atomic_discard_all from its handler. A target that is a
 * symlink is followed (its target is replaced, the link kept); a device or FIFO is written
 * directly; a replaced file keeps its mode (and owner, when allowed). Every file opened here is
 * first checked against the inputs (dfs_output_guard). */
#ifndef DFS_ATOMIC_H
#define DFS_ATOMIC_H
#include <stdbool.h>
#include <stdio.h>

#include "dfscope.h"

/* What no output may overwrite: the files of the run (by device and inode: dfs_run_holds_file). A
 * refusal is remembered, so that a caller can tell it from a failure to write (exit 2, not 4). */
typedef struct dfs_output_guard {
    const dfs_run *inputs; /* NULL: nothing is refused */
    bool refused;
} dfs_output_guard;

typedef struct dfs_atomic_file {
    FILE *fp;
    char *target; /* the path given, its symlinks followed */
    char *temp;   /* NULL when the target is written directly (a device or FIFO) */
    int slot;     /* of the temporary in the registry dfs_atomic_discard_all empties */
} dfs_atomic_file;

/* True, and guard->refused set and the reason in err, when path names one of the inputs. */
bool dfs_output_refused(dfs_output_guard *guard, const char *path, char *err, size_t errlen);
/* Opens the temporary file (or the device), after the guard's check (guard may be NULL).
 * Returns 0, or an errno value (message in err; EEXIST when the guard refused). */
int dfs_atomic_open(dfs_atomic_file *f, const char *path, dfs_output_guard *guard, char *err, size_t errlen);
/* Flushes, syncs and renames into place; or discards when !keep. Returns 0 or an errno value. */
int dfs_atomic_close(dfs_atomic_file *f, bool keep, char *err, size_t errlen);
/* Removes every temporary still open. Async-signal-safe: for a handler of a fatal signal. */
void dfs_atomic_discard_all(void);
/* True when path names the same file as one of the inputs (never overwrite an input). */
bool dfs_same_file(const char *a, const char *b);
/* mkdir -p: creates dir and its missing parents. Returns 0, or an errno value with the reason
 * ("cannot create D: ..." or "D is not a directory") in err. */
int dfs_make_dirs(const char *dir, char *err, size_t errlen);
#endif
