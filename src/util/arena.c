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
    a->head = NULL;
    a->block_size = block_size ? block_size : 64 * 1024;
}

static dfs_arena_block *new_block(size_t size)
{
    dfs_arena_block *b = malloc(sizeof *b + size);
    if (!b)
        return NULL;
    b->next = NULL;
    b->size = size;
    b->used = 0;
    return b;
}

void *dfs_arena_alloc(dfs_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    dfs_arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > a->block_size ? n : a->block_size;
        dfs_arena_block *nb = new_block(size);
        if (!nb)
            return NULL;
        /* An oversized block goes behind the current one so the current one keeps filling. */
        if (b && n > a->block_size) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
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
    if (!a->head)
        return;
    dfs_arena_block *keep = a->head;
    dfs_arena_block *b = keep->next;
    while (b) {
        dfs_arena_block *next = b->next;
        free(b);
        b = next;
    }
    keep->next = NULL;
    keep->used = 0;
}

void dfs_arena_free(dfs_arena *a)
{
    dfs_arena_reset(a);
    free(a->head);
    a->head = NULL;
}
