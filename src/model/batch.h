/* batch.h - the events parsed from one block of input, before they are handed to consumers. */
#ifndef DFS_BATCH_H
#define DFS_BATCH_H
#include "dfscope.h"
#include "util/arena.h"
#include "util/vec.h"

typedef struct dfs_batchbuf {
    DFS_VEC(dfs_event) events;
    dfs_arena pool; /* args arrays and nested values of these events */
} dfs_batchbuf;

void dfs_batchbuf_init(dfs_batchbuf *b);
void dfs_batchbuf_free(dfs_batchbuf *b);
void dfs_batchbuf_clear(dfs_batchbuf *b);
/* A zeroed event at the end of the batch, or NULL when out of memory. */
dfs_event *dfs_batchbuf_push(dfs_batchbuf *b);
/* Drops the last pushed event (a record that turned out to be bad). */
void dfs_batchbuf_pop(dfs_batchbuf *b);
#endif
