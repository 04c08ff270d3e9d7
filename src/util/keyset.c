#include "util/keyset.h"

void dfs_keyset_init(dfs_keyset *s, size_t key_size)
{
    dfs_keymap_init(&s->map, key_size);
    s->count = 0;
}

void dfs_keyset_free(dfs_keyset *s)
{
    dfs_keymap_free(&s->map);
    s->count = 0;
}

int dfs_keyset_add(dfs_keyset *s, const void *key)
{
    uint32_t unused;
    bool fresh;
    if (!dfs_keymap_get_or_put(&s->map, key, 0, &unused, &fresh))
        return -1;
    s->count += fresh;
    return fresh ? 1 : 0;
}

bool dfs_keyset_has(const dfs_keyset *s, const void *key)
{
    uint32_t unused;
    return dfs_keymap_get(&s->map, key, &unused);
}

const void *dfs_keyset_next(const dfs_keyset *s, size_t *i)
{
    const void *k;
    uint32_t unused;
    for (; *i < s->map.cap; (*i)++)
        if (dfs_keymap_slot(&s->map, *i, &k, &unused)) {
            (*i)++;
            return k;
        }
    return NULL;
}
