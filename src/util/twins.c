/* twins.c - the later twins of twins.h: partitioned by the digests' top bits, each bucket checked
 * in order (the scatter is stable, so an entry's twins before it in the sequence are before it in
 * its bucket) against an open-addressing table sized for the largest bucket. */
#include "util/twins.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_BITS = 10, PER_BUCKET = 1024 };

/* Checks one bucket; table has mask + 1 slots (0 marks an empty one), all 0 on entry and on
 * return. */
static size_t check_bucket(const dfs_digest_at *b, size_t m, uint64_t *table, size_t mask,
                           void (*later)(void *, uint64_t), void *ctx)
{
    size_t found = 0;
    for (size_t i = 0; i < m; i++) {
        uint64_t d = b[i].digest;
        size_t s = (size_t)d & mask;
        while (table[s] && table[s] != d)
            s = (s + 1) & mask;
        if (table[s]) {
            later(ctx, b[i].at);
            found++;
        } else {
            table[s] = d;
        }
    }
    for (size_t i = 0; i < m; i++) { /* clear what was set: cheaper than the whole table */
        size_t s = (size_t)b[i].digest & mask;
        while (table[s]) {
            table[s] = 0;
            s = (s + 1) & mask;
        }
    }
    return found;
}

static size_t bucket_of(uint64_t digest, unsigned bits)
{
    return bits ? (size_t)(digest >> (64 - bits)) : 0;
}

size_t dfs_twins(dfs_twins_seq seq, void (*later)(void *ctx, uint64_t at), void *ctx)
{
    size_t n = 0;
    for (size_t k = 0; k < seq.nparts; k++)
        n += seq.len[k];
    if (n < 2)
        return 0;
    unsigned bits = 0;
    while (bits < MAX_BITS && (n >> bits) > PER_BUCKET)
        bits++;
    size_t nb = (size_t)1 << bits;
    size_t *start = calloc(nb + 1, sizeof *start);
    dfs_digest_at *tmp = malloc(n * sizeof *tmp);
    size_t *fill = malloc(nb * sizeof *fill);
    if (!start || !tmp || !fill) {
        free(start);
        free(tmp);
        free(fill);
        return SIZE_MAX;
    }
    for (size_t k = 0; k < seq.nparts; k++)
        for (size_t i = 0; i < seq.len[k]; i++)
            start[bucket_of(seq.part[k][i].digest, bits) + 1]++;
    size_t largest = 0;
    for (size_t b = 0; b < nb; b++) {
        largest = start[b + 1] > largest ? start[b + 1] : largest;
        start[b + 1] += start[b];
    }
    memcpy(fill, start, nb * sizeof *fill);
    for (size_t k = 0; k < seq.nparts; k++)
        for (size_t i = 0; i < seq.len[k]; i++)
            tmp[fill[bucket_of(seq.part[k][i].digest, bits)]++] = seq.part[k][i];
    size_t slots = 16;
    while (slots < 2 * largest)
        slots *= 2;
    uint64_t *table = calloc(slots, sizeof *table);
    size_t found = SIZE_MAX;
    if (table) {
        found = 0;
        for (size_t b = 0; b < nb; b++)
            found += check_bucket(tmp + start[b], start[b + 1] - start[b], table, slots - 1, later, ctx);
    }
    free(table);
    free(start);
    free(tmp);
    free(fill);
    return found;
}
