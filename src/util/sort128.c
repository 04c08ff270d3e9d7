/* sort128.c - least-significant-byte-first radix sort of 128-bit keys.
 *
 * One pass over the keys counts every byte position at once (16 × 256 counters); a position where
 * one value holds all n keys cannot change the order and is skipped. Each remaining position is a
 * stable counting pass from one array into the other, so bytes never sorted keep their order. */
#include "util/sort128.h"

#include <string.h>

#define DIGITS 16

static unsigned digit_of(const dfs_key128 *k, unsigned d)
{
    uint64_t word = d < 8 ? k->lo : k->hi;
    return (unsigned)(word >> (8 * (d & 7))) & 0xff;
}

static void count_digits(const dfs_key128 *v, size_t n, size_t (*counts)[256])
{
    memset(counts, 0, DIGITS * sizeof *counts);
    for (size_t i = 0; i < n; i++) {
        uint64_t lo = v[i].lo, hi = v[i].hi;
        for (unsigned d = 0; d < 8; d++) {
            counts[d][(lo >> (8 * d)) & 0xff]++;
            counts[8 + d][(hi >> (8 * d)) & 0xff]++;
        }
    }
}

/* Stable scatter of src by digit d into dst. */
static void scatter(const dfs_key128 *src, dfs_key128 *dst, size_t n, unsigned d, const size_t *count)
{
    size_t start[256], at = 0;
    for (unsigned b = 0; b < 256; b++) {
        start[b] = at;
        at += count[b];
    }
    for (size_t i = 0; i < n; i++)
        dst[start[digit_of(&src[i], d)]++] = src[i];
}

void dfs_sort128(dfs_key128 *v, dfs_key128 *tmp, size_t n, unsigned payload_bytes)
{
    if (n < 2)
        return;
    size_t counts[DIGITS][256];
    count_digits(v, n, counts);
    dfs_key128 *src = v, *dst = tmp;
    for (unsigned d = payload_bytes; d < DIGITS; d++) {
        if (counts[d][digit_of(&v[0], d)] == n) /* every key has this byte */
            continue;
        scatter(src, dst, n, d, counts[d]);
        dfs_key128 *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
}

size_t dfs_unique128(dfs_key128 *v, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || v[m - 1].hi != v[i].hi || v[m - 1].lo != v[i].lo)
            v[m++] = v[i];
    return m;
}
