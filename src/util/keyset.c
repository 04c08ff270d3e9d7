#include "util/keyset.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

void dfs_keyset_init(dfs_keyset *s, size_t key_size)
{
    memset(s, 0, sizeof *s);
    s->key_size = key_size;
}

void dfs_keyset_free(dfs_keyset *s)
{
    free(s->keys);
    free(s->used);
    s->keys = s->used = NULL;
    s->cap = s->count = 0;
}

static size_t find_slot(const dfs_keyset *s, const void *key, bool *found)
{
    size_t mask = s->cap - 1;
    size_t i = dfs_hash64(key, s->key_size) & mask;
    while (s->used[i]) {
        if (memcmp(s->keys + i * s->key_size, key, s->key_size) == 0) {
            *found = true;
            return i;
        }
        i = (i + 1) & mask;
    }
    *found = false;
    return i;
}

static bool grow(dfs_keyset *s)
{
    dfs_keyset n;
    dfs_keyset_init(&n, s->key_size);
    n.cap = s->cap ? s->cap * 2 : 64;
    n.keys = malloc(n.cap * n.key_size);
    n.used = calloc(n.cap, 1);
    if (!n.keys || !n.used) {
        dfs_keyset_free(&n);
        return false;
    }
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->used[i])
            continue;
        bool found;
        size_t j = find_slot(&n, s->keys + i * s->key_size, &found);
        memcpy(n.keys + j * n.key_size, s->keys + i * s->key_size, n.key_size);
        n.used[j] = 1;
        n.count++;
    }
    dfs_keyset_free(s);
    *s = n;
    return true;
}

int dfs_keyset_add(dfs_keyset *s, const void *key)
{
    if ((s->count + 1) * 4 > s->cap * 3 && !grow(s))
        return -1;
    bool found;
    size_t i = find_slot(s, key, &found);
    if (found)
        return 0;
    memcpy(s->keys + i * s->key_size, key, s->key_size);
    s->used[i] = 1;
    s->count++;
    return 1;
}

bool dfs_keyset_has(const dfs_keyset *s, const void *key)
{
    if (!s->cap)
        return false;
    bool found;
    find_slot(s, key, &found);
    return found;
}

const void *dfs_keyset_next(const dfs_keyset *s, size_t *i)
{
    for (; *i < s->cap; (*i)++)
        if (s->used[*i])
            return s->keys + (*i)++ * s->key_size;
    return NULL;
}
