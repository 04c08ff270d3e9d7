/* twins.h - finding the repeated digests of a sequence: of each group of equal digests, every
 * entry after the first in sequence order is a "later twin".
 *
 * Meant for millions of entries found once at the end of a file, in passes that stream through
 * memory: one counting pass and one stable scatter of the entries into at most 1,024 buckets by
 * their top bits, then each bucket (a few thousand entries, in the caches) checked against a
 * small table. Per-entry work on a table as large as the sequence would miss the caches and the
 * TLB on nearly every entry. Scratch memory: 16 bytes per entry, freed before returning. */
#ifndef DFS_TWINS_H
#define DFS_TWINS_H
#include <stddef.h>
#include <stdint.h>

/* A digest (never 0) and where its entry is (an offset; any number the caller likes). */
typedef struct dfs_digest_at {
    uint64_t digest, at;
} dfs_digest_at;

/* The sequence: nparts arrays, one after the other (the pieces of a file need not be copied). */
typedef struct dfs_twins_seq {
    const dfs_digest_at *const *part;
    const size_t *len;
    size_t nparts;
} dfs_twins_seq;

/* Calls later(ctx, e.at) for every later twin e of the sequence, in no particular order; returns
 * how many there are, or SIZE_MAX (and calls nothing) when out of memory. */
size_t dfs_twins(dfs_twins_seq seq, void (*later)(void *ctx, uint64_t at), void *ctx);
#endif
