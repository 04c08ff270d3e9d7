/* merges.h - inputs that repeat the events of other inputs: a merged trace (Composer's
 * merged_trace.json, a `dfscope merge` output, any tool's merge) given beside the per-rank traces
 * it was made from, as a folder of a run's traces often holds. Read together, every event would be
 * counted twice.
 *
 * The rule, by content and never by file name: input M is a merge of inputs S1..Sk (k >= 2, each
 * smaller than M on disk) when M's timed events are exactly the timed events of S1..Sk together,
 * as multisets, where an event is compared on everything but its time (name, category, phase,
 * process, thread, duration, id, hashes, file and host names, every arg) and its time counts from
 * the first time of its process in its file. So a merge that shifts each process onto a common
 * clock (Composer aligns ranks by their clock_sync) is recognised, and one event missing, added or
 * changed makes M no merge. Untimed records (the sort indexes and names a merger adds) are left
 * out on both sides.
 *
 * The check reads inputs a second time, so it is bounded: it runs when at least three readable
 * inputs are given, only on a candidate M with two non-empty smaller inputs, M at least 3/4 of the
 * two smallest of them together and all of them together at least half M's size, and only
 * when the candidates and the inputs smaller than them total at most DFS_MERGES_MAX_BYTES on disk;
 * otherwise nothing is found. Events are compared by 64-bit
 * digests (a false match needs a digest collision among the events compared). */
#ifndef DFS_MERGES_H
#define DFS_MERGES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfscope.h"

#define DFS_MERGES_MAX_BYTES ((uint64_t)256 << 20)

/* One merge found: inputs[merged] repeats the events of inputs[sources[0..nsources)]. */
typedef struct dfs_merge {
    size_t merged;
    size_t *sources;
    size_t nsources;
} dfs_merge;

typedef struct dfs_merges {
    dfs_merge *v;
    size_t n;
} dfs_merges;

/* The input files paths[0..n) (sizes on disk in sizes[]), read with opt (workers, limits; its
 * progress is not called): the merges among them, none when the check does not apply or a read
 * fails. False when out of memory (out is then empty). */
bool dfs_merges_find(const char *const *paths, const uint64_t *sizes, size_t n, const dfs_options *opt,
                     dfs_merges *out);
void dfs_merges_free(dfs_merges *m);
#endif
