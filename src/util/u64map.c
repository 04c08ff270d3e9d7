#include "util/u64map.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

void dfs_u64map_init(dfs_u64map *m) { memset(m, 0, sizeof *m); }

void dfs_u64map_free(dfs_u64map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

void dfs_u64map_clear(dfs_u64map *m)
{
    if (m->used)
        memset(m->used, 0, m->cap);
    m->count = 0;
}

static bool grow(dfs_u64map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    dfs_u64map n = {calloc(cap, sizeof(uint64_t)), calloc(cap, sizeof(uint32_t)), calloc(cap, 1), cap, 0};
    if (!n.keys || !n.vals || !n.used) {
        dfs_u64map_free(&n);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i])
            dfs_u64map_put(&n, m->keys[i], m->vals[i]);
    dfs_u64map_free(m);
    *m = n;
    return true;
}

bool dfs_u64map_put(dfs_u64map *m, uint64_t key, uint32_t val)
{
    if ((m->count + 1) * 4 > m->cap * 3 && !grow(m))
        return false;
    size_t mask = m->cap - 1;
    size_t i = dfs_mix64(key) & mask;
    while (m->used[i] && m->keys[i] != key)
        i = (i + 1) & mask;
    if (!m->used[i]) {
        m->used[i] = 1;
        m->keys[i] = key;
        m->count++;
    }
    m->vals[i] = val;
    return true;
}

bool dfs_u64map_get(const dfs_u64map *m, uint64_t key, uint32_t *val)
{
    if (!m->cap)
        return false;
    size_t mask = m->cap - 1;
    for (size_t i = dfs_mix64(key) & mask; m->used[i]; i = (i + 1) & mask) {
        if (m->keys[i] == key) {
            *val = m->vals[i];
            return true;
        }
    }
    return false;
}
