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

/* The 128-bit product of a and b, folded to 64 bits: one multiplication mixes 16 input bytes. */
static inline uint64_t dfs_digest_mum(uint64_t a, uint64_t b)
{
    unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t dfs_digest_read(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* A 64-bit digest of n bytes, never 0. Records are digested on the hot path of reading, so a
 * step takes 32 bytes into two independent lanes of one 64x64->128 multiplication each (the
 * folded-product construction of wyhash-like hashes). The last step takes the last 32 bytes,
 * overlapping the one before (the length is mixed in); shorter inputs are zero-padded. */
static inline uint64_t dfs_digest64(const void *data, size_t n)
{
    const uint64_t k0 = UINT64_C(0xa0761d6478bd642f), k1 = UINT64_C(0xe7037ed1a0b428db),
                   k2 = UINT64_C(0x8ebc6af09c88c6e3), k3 = UINT64_C(0x589965cc75374cc3);
    const unsigned char *p = data;
    unsigned char pad[32] = {0};
    if (n < 32) {
        memcpy(pad, p, n);
        p = pad;
    }
    const unsigned char *last = n < 32 ? pad : p + n - 32;
    uint64_t a = k0 ^ n, b = k1 ^ (n << 17);
    for (; p < last; p += 32) {
        a = dfs_digest_mum(dfs_digest_read(p) ^ k1, dfs_digest_read(p + 8) ^ a);
        b = dfs_digest_mum(dfs_digest_read(p + 16) ^ k2, dfs_digest_read(p + 24) ^ b);
    }
    a = dfs_digest_mum(dfs_digest_read(last) ^ k1, dfs_digest_read(last + 8) ^ a);
    b = dfs_digest_mum(dfs_digest_read(last + 16) ^ k2, dfs_digest_read(last + 24) ^ b);
    uint64_t h = dfs_digest_mum(a ^ k3, b ^ k0 ^ n);
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
