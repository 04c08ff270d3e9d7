/* seenset.h - a set of 64-bit record digests: "have these bytes been seen before?".
 *
 * Duplicate detection (model/dups.h) keeps one per file being read. Invariants: a digest is never
 * 0 (dfs_digest64 maps 0 to 1; 0 marks an empty slot); the table is a power of two, at most half
 * full (linear probing stays short); it never holds more than `max` digests, so its memory is at
 * most 16 x max bytes when max is a power of two, and past that, adding answers "full".
 * Clearing keeps the table for the next file, so a worker allocates it once. */
#ifndef DFS_SEENSET_H
#define DFS_SEENSET_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct dfs_seenset {
    uint64_t *slot;
    size_t mask;    /* slots - 1, or 0 before the first add */
    size_t count;
    size_t max;
} dfs_seenset;

typedef enum dfs_seen { DFS_SEEN_NEW, DFS_SEEN_AGAIN, DFS_SEEN_FULL } dfs_seen;

static inline uint64_t dfs_digest_lane(uint64_t lane, uint64_t w)
{
    lane += w * UINT64_C(0xc2b2ae3d27d4eb4f);
    lane = lane << 31 | lane >> 33;
    return lane * UINT64_C(0x9e3779b97f4a7c15);
}

/* A 64-bit digest of n bytes, never 0: four independent lanes of 8 bytes, so that a long record
 * is digested at several bytes per cycle (records are digested on the hot path of reading). */
static inline uint64_t dfs_digest64(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t a = UINT64_C(0x60ea27eeadc0b5d6) ^ n, b = UINT64_C(0xc2b2ae3d27d4eb4f), c = n, d = ~n;
    for (; n >= 32; n -= 32, p += 32) {
        uint64_t w[4];
        memcpy(w, p, sizeof w);
        a = dfs_digest_lane(a, w[0]);
        b = dfs_digest_lane(b, w[1]);
        c = dfs_digest_lane(c, w[2]);
        d = dfs_digest_lane(d, w[3]);
    }
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        a = dfs_digest_lane(a ^ b, w);
        b = c;
        c = d;
        d = a;
    }
    uint64_t tail = 0;
    memcpy(&tail, p, n);
    uint64_t h = (a << 1 | a >> 63) ^ (b << 7 | b >> 57) ^ (c << 12 | c >> 52) ^ (d << 18 | d >> 46);
    h = dfs_digest_lane(h, tail ^ (uint64_t)n << 56);
    h ^= h >> 29;
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    h ^= h >> 32;
    return h ? h : 1;
}

void dfs_seenset_init(dfs_seenset *s, size_t max);
void dfs_seenset_free(dfs_seenset *s);
/* Empties the set, keeping its table. */
void dfs_seenset_clear(dfs_seenset *s);
/* Whether d is in the set (d != 0). */
int dfs_seenset_has(const dfs_seenset *s, uint64_t d);
/* Adds d (d != 0): NEW when it was not there, AGAIN when it was, FULL when it was not there and
 * the set holds `max` digests already or cannot grow (nothing is added). */
dfs_seen dfs_seenset_add(dfs_seenset *s, uint64_t d);

/* Starts loading the slot of d, to be added after other work (hides a cache miss). */
static inline void dfs_seenset_prefetch(const dfs_seenset *s, uint64_t d)
{
    if (s->mask)
        __builtin_prefetch(&s->slot[d & s->mask]);
}
#endif
