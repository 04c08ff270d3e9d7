/* mapguard.h - reading a mapped window of a file that may shrink underneath (read/ only).
 *
 * Touching a page of a file mapping that lies past the file's end raises SIGBUS. While a thread
 * holds a guard over its window, a SIGBUS on that window does not kill the process: the vanished
 * pages (from the faulting one to the window's end) are replaced by zero pages, the guard records
 * the offset, and the access goes on. The reader touches each view before parsing it
 * (dfs_mapguard_touch), so it normally learns of a shrunken file before parsing those bytes; if the
 * file shrinks between the touch and the parse, the parser reads NULs instead of faulting, and
 * dfs_mapguard_vanished tells the reader afterwards.
 *
 * Signal dispositions belong to the whole process, so this module keeps the one piece of
 * process-wide state of the library (a mutex, a count of the guards held, the disposition it
 * replaced): the SIGBUS handler is installed when the first guard of the process begins and the
 * previous disposition restored when the last one ends (unless the application changed it in the
 * meantime). A SIGBUS that is not a fault on a guarded window is handed to that previous
 * disposition: the application's handler is called, and the default still terminates the
 * process. */
#ifndef DFS_MAPGUARD_H
#define DFS_MAPGUARD_H
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct dfs_mapguard {
    char *base;                      /* the window, page aligned */
    size_t len;
    size_t page;
    volatile sig_atomic_t vanished;  /* a page of the window was past the file's end */
    volatile size_t vanished_at;     /* the first such page, as an offset in the window */
} dfs_mapguard;

/* Guards [base, base + len) for the calling thread (one guard per thread at a time); false when
 * the handler cannot be installed (then do not touch a mapping that may shrink). */
bool dfs_mapguard_begin(dfs_mapguard *g, char *base, size_t len);
void dfs_mapguard_end(dfs_mapguard *g);
/* Touches every page of [from, to) (offsets in the window), faulting them in; returns the
 * offset where the file's bytes end within it (`to` when all of them are still there). */
size_t dfs_mapguard_touch(dfs_mapguard *g, size_t from, size_t to);
/* Whether a page vanished since the guard began, and from which offset in the window on. */
bool dfs_mapguard_vanished(const dfs_mapguard *g, size_t *at);
#endif
