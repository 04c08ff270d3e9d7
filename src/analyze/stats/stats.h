/* stats.h - `dfscope stats`: what is in a set of traces.
 * A consumer that counts events by category and name (with total durations), distinct processes,
 * threads, hosts and accessed files, and the time span. Per-worker partial results are merged at
 * the end; the result does not depend on the number of threads. */
#ifndef DFS_STATS_H
#define DFS_STATS_H
#include <stdbool.h>
#include <stdint.h>

#include "dfscope.h"

typedef struct dfs_stats dfs_stats;

typedef struct dfs_stats_name {
    dfs_str cat, name;     /* name is 0 in the per-category table */
    uint64_t count;        /* events (aggregated records count their folded calls) */
    int64_t dur_ns;        /* total duration of the timed ones */
} dfs_stats_name;

typedef struct dfs_stats_result {
    const dfs_stats_name *cats;   /* sorted by total duration, then count, then name */
    size_t ncats;
    const dfs_stats_name *names;
    size_t nnames;
    uint64_t processes, threads, hosts, files_accessed;
    uint64_t unresolved_hashes;   /* distinct references never defined anywhere in the run */
    bool have_time;
    bool relative_time;           /* the span comes from files with relative clocks only */
    int64_t start_ns, end_ns;     /* first start, last end (absolute ns when !relative_time) */
} dfs_stats_result;

dfs_stats *dfs_stats_new(void);
void dfs_stats_free(dfs_stats *s);
dfs_consumer *dfs_stats_consumer(dfs_stats *s);
/* After dfs_run_read: late hash resolution and sorting. */
const dfs_stats_result *dfs_stats_finish(dfs_stats *s, const dfs_run *run);

/* Distributed runs (stats_pack.c, docs/MPI.md): the merged state of a rank (after dfs_run_read,
 * before finishing) on the wire, strings as text; merging one into another is the merge of two
 * workers' states. false when out of memory or (merge) a damaged buffer. */
struct dfs_pack;
struct dfs_unpack;
bool dfs_stats_pack(const dfs_stats *s, struct dfs_pack *w);
bool dfs_stats_merge_packed(dfs_stats *s, struct dfs_unpack *r);
/* The analysis for its drivers (analyze/common/analysis.h; stats_analysis.c), opt NULL. */
extern const struct dfs_analysis dfs_stats_analysis;
#endif
