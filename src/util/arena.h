/* arena.h - bump allocation for per-run and per-batch data; freed all at once.
 * Blocks are kept in creation order; `cur` is the one being filled and every block after it is
 * empty. A reset empties all blocks but keeps them, so an arena reset after each batch reaches a
 * steady size and stops allocating (and page-faulting) memory. */
#ifndef DFS_ARENA_H
#define DFS_ARENA_H
#include <stddef.h>

typedef struct dfs_arena_block dfs_arena_block;

typedef struct dfs_arena {
    dfs_arena_block *first;
    dfs_arena_block *cur;
    size_t block_size;       /* default size of new blocks */
} dfs_arena;

void dfs_arena_init(dfs_arena *a, size_t block_size);
/* Memory aligned to 16 bytes; NULL only when the system is out of memory. */
void *dfs_arena_alloc(dfs_arena *a, size_t n);
char *dfs_arena_strdup(dfs_arena *a, const char *s, size_t n); /* NUL-terminated copy */
/* Empties every block, keeping them for reuse. */
void dfs_arena_reset(dfs_arena *a);
void dfs_arena_free(dfs_arena *a);
#endif
