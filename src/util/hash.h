/* hash.h - a fast non-cryptographic 64-bit hash for interning and hash tables. */
#ifndef DFS_HASH_H
#define DFS_HASH_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t dfs_mix64(uint64_t x)
{
    x ^= x >> 32;
    x *= UINT64_C(0xd6e8feb86659fd93);
    x ^= x >> 32;
    x *= UINT64_C(0xd6e8feb86659fd93);
    x ^= x >> 32;
    return x;
}

/* Eight bytes a step; the tail is read with one memcpy so short strings stay cheap. */
static inline uint64_t dfs_hash64(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ (n * UINT64_C(0xff51afd7ed558ccd));
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ dfs_mix64(w)) * UINT64_C(0x9fb21c651e98df25);
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h ^= dfs_mix64(w ^ n);
    return dfs_mix64(h);
}
#endif
