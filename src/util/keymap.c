#include "util/keymap.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

void dfs_keymap_init(dfs_keymap *m, size_t key_size)
{
    memset(m, 0, sizeof *m);
    m->key_size = key_size;
}

void dfs_keymap_free(dfs_keymap *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    dfs_keymap_init(m, m->key_size);
}

/* used[i] is 0 for a free slot, else a 7-bit tag of the key's hash with the low bit set: most
 * mismatching slots are rejected by the tag without comparing keys. */
static unsigned char tag_of(uint64_t h)
{
    return (unsigned char)((h >> 56) | 1);
}

static size_t find_slot(const dfs_keymap *m, const void *key, uint64_t h, bool *found)
{
    size_t mask = m->cap - 1;
    size_t i = h & mask;
    unsigned char tag = tag_of(h);
    while (m->used[i]) {
        if (m->used[i] == tag && memcmp(m->keys + i * m->key_size, key, m->key_size) == 0) {
            *found = true;
            return i;
        }
        i = (i + 1) & mask;
    }
    *found = false;
    return i;
}

static bool grow(dfs_keymap *m)
{
    dfs_keymap n;
    dfs_keymap_init(&n, m->key_size);
    n.cap = m->cap ? m->cap * 2 : 64;
    n.keys = malloc(n.cap * n.key_size);
    n.vals = malloc(n.cap * sizeof *n.vals);
    n.used = calloc(n.cap, 1);
    if (!n.keys || !n.vals || !n.used) {
        dfs_keymap_free(&n);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->used[i])
            continue;
        bool found;
        const unsigned char *k = m->keys + i * m->key_size;
        uint64_t h = dfs_hash64(k, m->key_size);
        size_t j = find_slot(&n, k, h, &found);
        memcpy(n.keys + j * n.key_size, k, n.key_size);
        n.vals[j] = m->vals[i];
        n.used[j] = tag_of(h);
        n.count++;
    }
    dfs_keymap_free(m);
    *m = n;
    return true;
}

bool dfs_keymap_get(const dfs_keymap *m, const void *key, uint32_t *val)
{
    if (!m->cap)
        return false;
    bool found;
    size_t i = find_slot(m, key, dfs_hash64(key, m->key_size), &found);
    if (found)
        *val = m->vals[i];
    return found;
}

bool dfs_keymap_get_or_put(dfs_keymap *m, const void *key, uint32_t fresh, uint32_t *val, bool *inserted)
{
    if ((m->count + 1) * 4 > m->cap * 3 && !grow(m))
        return false;
    bool found;
    uint64_t h = dfs_hash64(key, m->key_size);
    size_t i = find_slot(m, key, h, &found);
    *inserted = !found;
    if (!found) {
        memcpy(m->keys + i * m->key_size, key, m->key_size);
        m->vals[i] = fresh;
        m->used[i] = tag_of(h);
        m->count++;
    }
    *val = m->vals[i];
    return true;
}
