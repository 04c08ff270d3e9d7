/* bytebuf.h - a byte buffer built piece by piece that remembers running out of memory.
 *
 * A writer appends without checking each piece and looks at `oom` once, when it is done: after
 * the first failure nothing more is appended, so the contents are a prefix of what was meant and
 * must be thrown away. The first three fields are those of a DFS_VEC, so the vec.h macros work. */
#ifndef DFS_BYTEBUF_H
#define DFS_BYTEBUF_H
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "util/vec.h"

typedef struct dfs_bytebuf {
    char *v;
    size_t n, cap;
    bool oom; /* an append failed: the contents are incomplete */
} dfs_bytebuf;

static inline void dfs_bytebuf_put(dfs_bytebuf *b, const void *p, size_t n)
{
    if (b->oom || !dfs_vec_reserve(b, n)) {
        b->oom = true;
        return;
    }
    if (n)
        memcpy(b->v + b->n, p, n);
    b->n += n;
}

static inline void dfs_bytebuf_puts(dfs_bytebuf *b, const char *s)
{
    dfs_bytebuf_put(b, s, strlen(s));
}

static inline void dfs_bytebuf_free(dfs_bytebuf *b)
{
    dfs_vec_free(b);
    b->oom = false;
}
#endif
