#include "util/arena.h"

#include <stdlib.h>
#include <string.h>

struct dfs_arena_block {
    dfs_arena_block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

void dfs_arena_init(dfs_arena *a, size_t block_size)
{
    a->first = a->cur = NULL;
    a->block_size = block_size ? block_size : 64 * 1024;
}

/* A new empty block of at least n bytes, linked right after the current one. */
static dfs_arena_block *insert_block(dfs_arena *a, size_t n)
{
    size_t size = n > a->block_size ? n : a->block_size;
    dfs_arena_block *b = malloc(sizeof *b + size);
    if (!b)
        return NULL;
    b->size = size;
    b->used = 0;
    if (a->cur) {
        b->next = a->cur->next;
        a->cur->next = b;
    } else {
        b->next = a->first;
        a->first = b;
    }
    return b;
}

void *dfs_arena_alloc(dfs_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    dfs_arena_block *b = a->cur;
    if (!b || b->size - b->used < n) {
        /* the blocks after cur are empty: take the first one that is large enough */
        dfs_arena_block *next = b ? b->next : a->first;
        while (next && next->size < n)
            next = next->next;
        b = next ? next : insert_block(a, n);
        if (!b)
            return NULL;
        if (a->cur && a->cur->next != b) { /* keep "every block after cur is empty" */
            dfs_arena_block *prev = a->cur;
            while (prev->next != b)
                prev = prev->next;
            prev->next = b->next;
            b->next = a->cur->next;
            a->cur->next = b;
        }
        a->cur = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

char *dfs_arena_strdup(dfs_arena *a, const char *s, size_t n)
{
    char *p = dfs_arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void dfs_arena_reset(dfs_arena *a)
{
    for (dfs_arena_block *b = a->first; b; b = b->next)
        b->used = 0;
    a->cur = a->first;
}

void dfs_arena_free(dfs_arena *a)
{
    dfs_arena_block *b = a->first;
    while (b) {
        dfs_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->first = a->cur = NULL;
}
