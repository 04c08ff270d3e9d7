/* dist.h - distributed analysis over MPI ranks (docs/MPI.md): the listing every rank shares, the
 * partition, the combined preview, and the distributed reading pass.
 *
 * The shape of a run: rank 0 lists the paths and broadcasts the list; every rank computes the
 * same partition (partition.h) and reads its share with the ordinary multithreaded pipeline;
 * partial results go up a binomial tree (each rank merges its children's packed states into its
 * own, packs the sum and sends it to its parent: log2(ranks) steps, no rank receives more than
 * log2(ranks) messages); rank 0 folds the files, finishes the analysis and writes. Nothing sends
 * events: a rank sends what it learnt about its inputs (runpack.h) and its analysis' mergeable
 * aggregates (the analysis' own pack), with strings as text (pack.h).
 *
 * Exact per-process state (interval unions) is finished where it was read, never shipped, unless
 * the unit census finds the same traced unit on two ranks (a process written to several files);
 * then that unit travels unfinished and is merged exactly on the way up.
 *
 * Failures: every rank goes through the same collectives whatever happens to it; a rank that fails
 * sends a failure (with its reason) instead of its state, and rank 0 decides for everybody.
 */
#ifndef DFS_DIST_H
#define DFS_DIST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/common/analysis.h"
#include "analyze/common/clocks.h"
#include "analyze/common/preview.h"
#include "dfscope.h"
#include "dist/comm.h"
#include "dist/partition.h"
#include "util/arena.h"
#include "util/vec.h"
#include "wire/pack.h"

/* An analysis runs distributed through its descriptor (analyze/common/analysis.h): pack and merge,
 * and census, finish_local, fold_share, may_cut, rerun_pack, rerun_apply when it has them. */

/* ---- the tree -------------------------------------------------------------------------------- */

/* One rank's part in a binomial-tree reduction to rank 0. merge takes a child's buffer (len 0: a
 * child that failed); pack makes this rank's buffer once its children are merged (false: send a
 * failure). Returns false when something failed in this rank's subtree (on rank 0: anywhere). */
typedef struct dfs_reduce_ops {
    bool (*merge)(void *ctx, const void *buf, size_t len);
    bool (*pack)(void *ctx, void **buf, size_t *len);
} dfs_reduce_ops;

bool dfs_dist_reduce(dfs_comm *c, const dfs_reduce_ops *ops, void *ctx, uint64_t *sent);

/* ---- the listing ----------------------------------------------------------------------------- */

typedef struct dfs_dist_listing {
    int rc;              /* -1: go on; else every rank stops with this exit code */
    bool bad_path;       /* a named path was missing (the exit code becomes 2, as without MPI) */
    uint64_t piece_bytes; /* the size inputs are cut at (rank 0 decides; dfs_partition_piece_bytes) */
    uint64_t gz_unit;    /* rank 0's gzip segment size: the unit of cut gzipped inputs */
    size_t n;
    char **paths;
    uint64_t *sizes;
    uint8_t *cut;        /* dfs_cut, as rank 0 sniffed it (only inputs above the piece size) */
} dfs_dist_listing;

/* Rank 0: the listing of an opened run (inputs in order) for `nranks` ranks; inputs larger than
 * the piece size (piece_bytes, or 0 for dfs_partition_piece_bytes) are sniffed for how they can be
 * cut (dfs_input_cut). */
bool dfs_dist_listing_of(dfs_dist_listing *l, const dfs_run *run, int nranks, uint64_t piece_bytes);
/* Rank 0's listing to every rank (rank 0 fills l first). false when out of memory: the rank
 * cannot go on, and says so at the next collective. */
bool dfs_dist_share_listing(dfs_comm *c, dfs_dist_listing *l);
void dfs_dist_listing_free(dfs_dist_listing *l);
/* A run of the listed inputs (no path is looked at again); NULL when out of memory. */
dfs_run *dfs_dist_listing_run(const dfs_dist_listing *l, const dfs_options *opt);
/* The partition of the listing over nranks ranks; inputs are cut only when may_cut. */
bool dfs_dist_partition(const dfs_dist_listing *l, int nranks, bool may_cut, dfs_partition *p);

/* ---- the preview ----------------------------------------------------------------------------- */

/* The preview of the inputs whose first piece this rank reads, combined over every rank (the
 * earliest start, the union of the categories), the same on every rank: what a preview of every
 * input by one process gives. DFS_EXIT_OUTPUT when some rank ran out of memory. */
int dfs_dist_preview(dfs_comm *c, const dfs_dist_listing *l, const dfs_partition *part, const dfs_options *opt,
                     uint64_t bytes, dfs_preview *out);

/* ---- a reading pass -------------------------------------------------------------------------- */

typedef struct dfs_dist_rank_stats {
    uint32_t rank;
    uint64_t pieces, bytes, events; /* pieces read, decompressed bytes, records */
    uint64_t sent;                  /* bytes this rank sent up the tree */
    double read_s, combine_s;       /* reading its share; census and combine (waiting included) */
} dfs_dist_rank_stats;

typedef struct dfs_dist_pass {
    bool failed;                    /* some rank failed (what rank 0 knows of every rank) */
    bool refused;                   /* ...because its input voids the analysis (analysis.h: failure) */
    char why[512];                  /* the first failure, with its rank */
    dfs_dist_rank_stats mine;       /* this rank's part */
    size_t own_results;             /* run->results[0, own_results) are this rank's pieces */
    DFS_VEC(dfs_dist_rank_stats) stats; /* after dfs_dist_gather_stats, on rank 0: every rank's */
} dfs_dist_pass;

void dfs_dist_pass_free(dfs_dist_pass *p);
/* Every rank's statistics to rank 0 (a collective; for --mpi-stats). */
bool dfs_dist_gather_stats(dfs_comm *c, dfs_dist_pass *p);

/* Reads this rank's share of the partition into run (which must be a fresh run of the listing)
 * with the consumer of obj (an analysis `an` of the options `opt`), then combines every rank's pieces and states to rank 0. Every rank
 * takes part in every collective whatever fails. On rank 0 afterwards, run->results holds every
 * piece (dfs_run_fold_results folds them) and obj the merged state. Returns false when this
 * rank's subtree failed (out->why says how). */
bool dfs_dist_read(dfs_comm *c, dfs_run *run, const dfs_partition *part, dfs_consumer *consumer, void *obj,
                   const dfs_analysis *an, const void *opt, dfs_dist_pass *out);
#endif
