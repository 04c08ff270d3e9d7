/* sortset.h - a set of 128-bit keys built by appending: a sorted distinct prefix and a tail of
 * keys added since, which is sorted and merged in when it outgrows the prefix.
 *
 * For sets that are mostly written and read once at the end (the distinct files of every
 * (layer, time bin), millions of keys, most of them new when added): an append costs a store,
 * where a hash set pays cache misses on every insert and rehashes as it grows. Memory stays within
 * about twice the distinct keys (plus DFS_SORTSET_MIN_TAIL), however many repeats are added. */
#ifndef DFS_SORTSET_H
#define DFS_SORTSET_H
#include <stdbool.h>
#include <stddef.h>

#include "util/sort128.h"

#define DFS_SORTSET_MIN_TAIL 65536

typedef struct dfs_sortset {
    dfs_key128 *v; /* v, n, cap: a DFS_VEC (util/vec.h) */
    size_t n, cap;
    size_t sorted; /* v[0..sorted) is sorted and distinct */
} dfs_sortset;

void dfs_sortset_init(dfs_sortset *s);
void dfs_sortset_free(dfs_sortset *s);
/* false when out of memory (the set is unchanged then). */
bool dfs_sortset_add(dfs_sortset *s, dfs_key128 k);
/* Appends n keys at once (merging two sets: no compaction on the way, the next one sorts them
 * in). false when out of memory (the set is unchanged then). */
bool dfs_sortset_append(dfs_sortset *s, const dfs_key128 *keys, size_t n);
/* Sorts and deduplicates everything: afterwards v[0..n) are the distinct keys in order. */
bool dfs_sortset_compact(dfs_sortset *s);
/* Rewrites keys in place: rekey changes a key (and returns true) or leaves it (false); the keys
 * must stay distinct. A compacted set stays compacted when the changed keys are still in order
 * among themselves (checked, not trusted): they and the unchanged ones are two sorted runs, merged
 * back into one. Otherwise the keys are left for the next compaction to sort. false when out of
 * memory (the keys are rewritten all the same, and left for the next compaction). */
bool dfs_sortset_rekey(dfs_sortset *s, bool (*rekey)(dfs_key128 *k, void *ctx), void *ctx);
/* The number of distinct keys (compacts first; SIZE_MAX when out of memory). */
size_t dfs_sortset_count(dfs_sortset *s);
#endif
