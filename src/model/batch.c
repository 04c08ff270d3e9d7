#include "model/batch.h"

#include <string.h>

void dfs_batchbuf_init(dfs_batchbuf *b)
{
    memset(b, 0, sizeof *b);
    dfs_arena_init(&b->pool, 256 * 1024);
}

void dfs_batchbuf_free(dfs_batchbuf *b)
{
    dfs_vec_free(&b->events);
    dfs_arena_free(&b->pool);
}

void dfs_batchbuf_clear(dfs_batchbuf *b)
{
    b->events.n = 0;
    dfs_arena_reset(&b->pool);
}

dfs_event *dfs_batchbuf_push(dfs_batchbuf *b)
{
    if (!dfs_vec_reserve(&b->events, 1))
        return NULL;
    dfs_event *ev = &b->events.v[b->events.n++];
    memset(ev, 0, sizeof *ev);
    return ev;
}

void dfs_batchbuf_pop(dfs_batchbuf *b)
{
    if (b->events.n)
        b->events.n--;
}
