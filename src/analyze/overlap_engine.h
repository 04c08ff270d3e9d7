/* overlap_engine.h - exact interval algebra for overlap questions (spec: overlap.md §3).
 *
 * One dfs_ovl accumulates the events of ONE scope (a thread, a process, or the whole trace) in up
 * to DFS_OVL_MAX_CLASSES classes (compute, I/O, app I/O, layers...). One class may be designated
 * the reference R (usually compute); for every class X the engine measures
 *     |X|            the measure of the union of X's intervals (nested and duplicate events once)
 *     sum_dur        Σ dur of X's events
 *     count          events of X (zero-length ones included)
 *     |X ∩ R|        so |X \ R| = |X| − |X ∩ R| and |R \ X| = |R| − |X ∩ R|
 *     exposed_count  events of X not entirely covered by R's union ("unoverlapped events")
 *     exposed_weight Σ weight (e.g. bytes) of those events
 * Intervals are half-open [start, end) in integer units (ns in dfscope); touching intervals merge;
 * zero-length intervals add nothing to any measure but count; negative lengths are the caller's
 * business (clamp to 0 before adding).
 *
 * Streaming and the memory bound: events may arrive in any order. The engine keeps them in
 * per-class buffers and compacts (sort + coalesce) when a buffer doubles. dfs_ovl_flush(W) tells
 * it that no event starting before W will be added any more: everything before W is measured,
 * added to the totals, and dropped. Memory is therefore bounded by the events that start after the
 * last watermark (plus, per class, the coalesced intervals that straddle it), not by the trace.
 * Without flushes memory is O(coalesced intervals) of the scope.
 *
 * Optional binning: with a bin width g > 0 and an origin o, measures are also accumulated per bin
 * k = floor((t − o) / g), each union clipped to [o + k·g, o + (k+1)·g) (overlap.md §3.4), so the
 * per-bin values sum exactly to the totals. Counts per bin go to the bin of the event's start.
 *
 * No global state; a dfs_ovl is used by one thread at a time. Two dfs_ovl of the same scope built
 * by different threads are combined with dfs_ovl_merge (both unflushed, or flushed to the same W).
 */
#ifndef DFS_OVERLAP_ENGINE_H
#define DFS_OVERLAP_ENGINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DFS_OVL_MAX_CLASSES 64

typedef struct dfs_ovl_measure {
    int64_t measure;         /* |X| */
    int64_t with_ref;        /* |X ∩ R| (for R itself: |R|) */
    int64_t sum_dur;         /* Σ dur */
    uint64_t count;          /* events */
    uint64_t exposed_count;  /* events not entirely inside R's union (R itself: 0) */
    double exposed_weight;   /* Σ weight of those */
} dfs_ovl_measure;

typedef struct dfs_ovl dfs_ovl;

/* nclasses ≤ DFS_OVL_MAX_CLASSES; ref = the reference class, or -1 for none (with_ref and exposed
 * then stay 0). bin_width ≤ 0: no binning. NULL on out of memory. */
dfs_ovl *dfs_ovl_new(unsigned nclasses, int ref, int64_t bin_width, int64_t origin);
void dfs_ovl_free(dfs_ovl *o);
/* Adds one event of class c. false on out of memory (the engine stays consistent). */
bool dfs_ovl_add(dfs_ovl *o, unsigned c, int64_t start, int64_t end, double weight);
/* Adds one event to every class whose bit is set in `classes` (a layer event belongs to several). */
bool dfs_ovl_add_mask(dfs_ovl *o, uint64_t classes, int64_t start, int64_t end, double weight);
/* Finalises everything before watermark W (see above). Adding an event that starts before an
 * earlier watermark afterwards is a caller bug: it is still counted, measured against what
 * remains, and counted in dfs_ovl_late_events. */
bool dfs_ovl_flush(dfs_ovl *o, int64_t watermark);
/* Moves everything of src into dst (same nclasses, ref and binning); src is left empty. */
bool dfs_ovl_merge(dfs_ovl *dst, dfs_ovl *src);
/* Finalises everything (flush to +infinity) and returns the totals of class c. */
bool dfs_ovl_finish(dfs_ovl *o);
const dfs_ovl_measure *dfs_ovl_total(const dfs_ovl *o, unsigned c);
/* Binned results after dfs_ovl_finish: the bins that hold anything, ascending. */
size_t dfs_ovl_nbins(const dfs_ovl *o);
int64_t dfs_ovl_bin_index(const dfs_ovl *o, size_t i);
const dfs_ovl_measure *dfs_ovl_bin(const dfs_ovl *o, size_t i, unsigned c);
uint64_t dfs_ovl_late_events(const dfs_ovl *o);
/* Intervals currently held (for tests of the memory bound). */
size_t dfs_ovl_held(const dfs_ovl *o);
#endif
