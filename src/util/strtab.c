#include "util/strtab.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/hash.h"

const char *const dfs_key_names[DFS_KEY__COUNT] = {
    "ret", "size", "size_sum", "offset", "count", "fhash", "hhash", "epoch", "step", "correlation",
    "stream", "fname", "hostname", "level", "p_idx", "dft_cnt", "dur_sum", "ret_sum", "image_idx",
    "image_size", "step_num", "External id", "key", "dependencies", "dependents", "name", "value",
    "sort_index", "cmd_hash", "exec_hash", "cwd", "pid", "thread_id", "batch", "fd", "state",
    "type", "shape", "dtype",
};

enum { PAGE_BITS = 16, PAGE_SIZE = 1 << PAGE_BITS, MAX_PAGES = 1 << 15 };

typedef struct entry {
    const char *s;
    uint32_t len;
    uint64_t hash;
} entry;

struct dfs_strtab {
    pthread_mutex_t lock;
    entry *pages[MAX_PAGES]; /* id -> entry, never reallocated */
    uint32_t count;
    uint32_t *slots;         /* open addressing over ids; 0 = empty (id 0 is never stored here) */
    size_t nslots;
    dfs_arena bytes;
    uint64_t lost;
};

static entry *entry_at(const dfs_strtab *t, dfs_str id)
{
    return &t->pages[id >> PAGE_BITS][id & (PAGE_SIZE - 1)];
}

static int rehash(dfs_strtab *t)
{
    size_t n = t->nslots ? t->nslots * 2 : 1024;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (uint32_t id = 1; id < t->count; id++) {
        size_t i = entry_at(t, id)->hash & (n - 1);
        while (slots[i])
            i = (i + 1) & (n - 1);
        slots[i] = id;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = n;
    return 0;
}

/* Caller holds the lock. */
static dfs_str lookup_locked(dfs_strtab *t, const char *s, size_t n, uint64_t h, size_t *slot)
{
    size_t mask = t->nslots - 1;
    size_t i = h & mask;
    for (uint32_t id; (id = t->slots[i]) != 0; i = (i + 1) & mask) {
        const entry *e = entry_at(t, id);
        if (e->hash == h && e->len == n && memcmp(e->s, s, n) == 0)
            return id;
    }
    *slot = i;
    return 0;
}

static dfs_str insert_locked(dfs_strtab *t, const char *s, size_t n, uint64_t h)
{
    size_t slot;
    dfs_str id = lookup_locked(t, s, n, h, &slot);
    if (id)
        return id;
    if (t->count >= (uint32_t)MAX_PAGES * PAGE_SIZE - 1 || n > UINT32_MAX)
        goto lost;
    if ((t->count + 1) * 2 > t->nslots) {
        if (rehash(t) != 0)
            goto lost;
        lookup_locked(t, s, n, h, &slot);
    }
    id = t->count;
    if (!t->pages[id >> PAGE_BITS]) {
        t->pages[id >> PAGE_BITS] = calloc(PAGE_SIZE, sizeof(entry));
        if (!t->pages[id >> PAGE_BITS])
            goto lost;
    }
    char *copy = dfs_arena_strdup(&t->bytes, s, n);
    if (!copy)
        goto lost;
    *entry_at(t, id) = (entry){copy, (uint32_t)n, h};
    t->slots[slot] = id;
    t->count++;
    return id;
lost:
    t->lost++;
    return 0;
}

dfs_strtab *dfs_strtab_new(void)
{
    dfs_strtab *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    pthread_mutex_init(&t->lock, NULL);
    dfs_arena_init(&t->bytes, 256 * 1024);
    t->pages[0] = calloc(PAGE_SIZE, sizeof(entry));
    if (!t->pages[0] || rehash(t) != 0) {
        dfs_strtab_free(t);
        return NULL;
    }
    t->pages[0][0] = (entry){"", 0, dfs_hash64("", 0)};
    t->count = 1;
    for (int k = 0; k < DFS_KEY__COUNT; k++) {
        const char *s = dfs_key_names[k];
        if (dfs_strtab_intern(t, s, strlen(s)) != DFS_KEY_STR(k)) {
            dfs_strtab_free(t);
            return NULL;
        }
    }
    return t;
}

void dfs_strtab_free(dfs_strtab *t)
{
    if (!t)
        return;
    for (size_t p = 0; p < MAX_PAGES && t->pages[p]; p++)
        free(t->pages[p]);
    free(t->slots);
    dfs_arena_free(&t->bytes);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

/* ---- NUL ----------------------------------------------------------------------------------- */

/* A string with a NUL byte (raw, or \u0000 decoded) is stored with U+FFFD in its place: every
 * C-string view of an interned string is then the whole string. */
typedef struct nul_free {
    const char *s;
    size_t n;
    char *heap;
    char local[256];
} nul_free;

/* False when out of memory; free c->heap in any case. */
static bool without_nul(nul_free *c, const char *s, size_t n)
{
    size_t nuls = 0;
    for (const char *p = s, *end = s + n; (p = memchr(p, 0, (size_t)(end - p))) != NULL; p++)
        nuls++;
    c->n = n + 2 * nuls;
    c->heap = c->n <= sizeof c->local ? NULL : malloc(c->n);
    char *out = c->n <= sizeof c->local ? c->local : c->heap;
    c->s = out;
    if (!out)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i]) {
            *out++ = s[i];
        } else {
            memcpy(out, "\xEF\xBF\xBD", 3);
            out += 3;
        }
    }
    return true;
}

dfs_str dfs_strtab_intern(dfs_strtab *t, const char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (memchr(s, 0, n)) {
        nul_free c;
        dfs_str id = without_nul(&c, s, n) ? dfs_strtab_intern(t, c.s, c.n) : 0;
        free(c.heap);
        return id;
    }
    uint64_t h = dfs_hash64(s, n);
    pthread_mutex_lock(&t->lock);
    dfs_str id = insert_locked(t, s, n, h);
    pthread_mutex_unlock(&t->lock);
    return id;
}

dfs_str dfs_strtab_find(dfs_strtab *t, const char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (memchr(s, 0, n)) {
        nul_free c;
        dfs_str id = without_nul(&c, s, n) ? dfs_strtab_find(t, c.s, c.n) : 0;
        free(c.heap);
        return id;
    }
    size_t slot;
    pthread_mutex_lock(&t->lock);
    dfs_str id = lookup_locked(t, s, n, dfs_hash64(s, n), &slot);
    pthread_mutex_unlock(&t->lock);
    return id;
}

const char *dfs_strtab_get(const dfs_strtab *t, dfs_str id, size_t *len)
{
    const entry *e = entry_at(t, id);
    if (len)
        *len = e->len;
    return e->s;
}

uint64_t dfs_strtab_hash(const dfs_strtab *t, dfs_str id)
{
    return entry_at(t, id)->hash;
}

size_t dfs_strtab_count(dfs_strtab *t)
{
    pthread_mutex_lock(&t->lock);
    size_t n = t->count;
    pthread_mutex_unlock(&t->lock);
    return n;
}

uint64_t dfs_strtab_lost(dfs_strtab *t)
{
    pthread_mutex_lock(&t->lock);
    uint64_t n = t->lost;
    pthread_mutex_unlock(&t->lock);
    return n;
}

/* ---- worker cache ---------------------------------------------------------------------------- */

typedef struct cslot {
    uint64_t hash;
    dfs_str id; /* 0 = empty */
} cslot;

struct dfs_strcache {
    dfs_strtab *table;
    cslot *slots;
    size_t nslots, used;
};

dfs_strcache *dfs_strcache_new(dfs_strtab *t)
{
    dfs_strcache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->table = t;
    c->nslots = 4096;
    c->slots = calloc(c->nslots, sizeof *c->slots);
    if (!c->slots) {
        free(c);
        return NULL;
    }
    return c;
}

void dfs_strcache_free(dfs_strcache *c)
{
    if (!c)
        return;
    free(c->slots);
    free(c);
}

static void cache_put(dfs_strcache *c, uint64_t h, dfs_str id)
{
    if ((c->used + 1) * 2 > c->nslots) {
        size_t n = c->nslots * 2;
        cslot *slots = calloc(n, sizeof *slots);
        if (!slots)
            return; /* the cache is only an accelerator */
        for (size_t i = 0; i < c->nslots; i++) {
            if (!c->slots[i].id)
                continue;
            size_t j = c->slots[i].hash & (n - 1);
            while (slots[j].id)
                j = (j + 1) & (n - 1);
            slots[j] = c->slots[i];
        }
        free(c->slots);
        c->slots = slots;
        c->nslots = n;
    }
    size_t i = h & (c->nslots - 1);
    while (c->slots[i].id)
        i = (i + 1) & (c->nslots - 1);
    c->slots[i] = (cslot){h, id};
    c->used++;
}

dfs_str dfs_strcache_intern(dfs_strcache *c, const char *s, size_t n)
{
    if (n == 0)
        return 0;
    uint64_t h = dfs_hash64(s, n);
    size_t mask = c->nslots - 1;
    for (size_t i = h & mask; c->slots[i].id; i = (i + 1) & mask) {
        if (c->slots[i].hash != h)
            continue;
        const entry *e = entry_at(c->table, c->slots[i].id);
        if (e->len == n && memcmp(e->s, s, n) == 0)
            return c->slots[i].id;
    }
    if (memchr(s, 0, n)) { /* only on a miss: the table holds the string without its NULs */
        nul_free clean;
        dfs_str id = without_nul(&clean, s, n) ? dfs_strcache_intern(c, clean.s, clean.n) : 0;
        free(clean.heap);
        return id;
    }
    pthread_mutex_lock(&c->table->lock);
    dfs_str id = insert_locked(c->table, s, n, h);
    pthread_mutex_unlock(&c->table->lock);
    if (id)
        cache_put(c, h, id);
    return id;
}
