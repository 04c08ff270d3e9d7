/* keymap.c - open addressing with linear probing. A slot holds its key and value side by side, so
 * that a lookup in a large map (tens of thousands of file names) waits for one cache line, not
 * two; a separate byte per slot tags it (see tag_of). */
#include "util/keymap.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

void dfs_keymap_init(dfs_keymap *m, size_t key_size)
{
    memset(m, 0, sizeof *m);
    m->key_size = key_size;
    /* slots of a multiple of 8 bytes, so that a key read in place is aligned for 64-bit fields */
    m->stride = (key_size + sizeof(uint32_t) + 7) / 8 * 8;
}

void dfs_keymap_free(dfs_keymap *m)
{
    free(m->slots);
    free(m->used);
    dfs_keymap_init(m, m->key_size);
}

/* used[i] is 0 for a free slot, else a 7-bit tag of the key's hash with the low bit set: most
 * mismatching slots are rejected by the tag without comparing keys. */
static unsigned char tag_of(uint64_t h)
{
    return (unsigned char)((h >> 56) | 1);
}

/* Whether the 64-bit words i of two keys are equal (a constant-size copy is a plain load). */
static bool word_equal(const unsigned char *a, const unsigned char *b, size_t i)
{
    uint64_t x, y;
    memcpy(&x, a + 8 * i, 8);
    memcpy(&y, b + 8 * i, 8);
    return x == y;
}

/* Whether two keys of n bytes are equal: the common sizes without a call to memcmp. */
static bool keys_equal(const unsigned char *a, const unsigned char *b, size_t n)
{
    uint32_t u, v;
    switch (n) {
    case 4:
        memcpy(&u, a, 4);
        memcpy(&v, b, 4);
        return u == v;
    case 8:
    case 16:
    case 24:
    case 32:
        for (size_t i = 0; i < n / 8; i++)
            if (!word_equal(a, b, i))
                return false;
        return true;
    default:
        return memcmp(a, b, n) == 0;
    }
}

static unsigned char *slot_key(const dfs_keymap *m, size_t i)
{
    return m->slots + i * m->stride;
}

static uint32_t slot_val(const dfs_keymap *m, size_t i)
{
    uint32_t v;
    memcpy(&v, slot_key(m, i) + m->key_size, sizeof v);
    return v;
}

static void slot_set(dfs_keymap *m, size_t i, const void *key, uint32_t val)
{
    memcpy(slot_key(m, i), key, m->key_size);
    memcpy(slot_key(m, i) + m->key_size, &val, sizeof val);
}

static size_t find_slot(const dfs_keymap *m, const void *key, uint64_t h, bool *found)
{
    size_t mask = m->cap - 1;
    size_t i = h & mask;
    unsigned char tag = tag_of(h);
    while (m->used[i]) {
        if (m->used[i] == tag && keys_equal(slot_key(m, i), key, m->key_size)) {
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
    n.slots = malloc(n.cap * n.stride);
    n.used = calloc(n.cap, 1);
    if (!n.slots || !n.used) {
        dfs_keymap_free(&n);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->used[i])
            continue;
        bool found;
        const unsigned char *k = slot_key(m, i);
        uint64_t h = dfs_hash64(k, m->key_size);
        size_t j = find_slot(&n, k, h, &found);
        memcpy(slot_key(&n, j), k, m->stride);
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
        *val = slot_val(m, i);
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
        slot_set(m, i, key, fresh);
        m->used[i] = tag_of(h);
        m->count++;
    }
    *val = slot_val(m, i);
    return true;
}

bool dfs_keymap_slot(const dfs_keymap *m, size_t i, const void **key, uint32_t *val)
{
    if (i >= m->cap || !m->used[i])
        return false;
    *key = slot_key(m, i);
    *val = slot_val(m, i);
    return true;
}
