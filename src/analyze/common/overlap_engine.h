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
 * zero-length intervals add nothing to any measure but count and are never exposed; an end before
 * the start is taken as a zero-length event (clamping and warning is the caller's business).
 *
 * Streaming and the memory bound: events may arrive in any order. The engine keeps them in
 * buffers, one per distinct set of classes (an event is stored once, whatever the number of its
 * classes), and compacts (sort + coalesce) when a buffer doubles. Exposure needs each event of a
 * class X != R checked against R's final union, so such an event is kept until it is known
 * covered (dropped at once) or decided by a flush. dfs_ovl_flush(W) tells the engine that no
 * event starting before W will be added any more: everything before W is measured, added to the
 * totals, and dropped; an event crossing W is exposed at once if its part before W is not covered,
 * otherwise only its part after W is kept. Memory is therefore bounded by what starts after the
 * last watermark or crosses it, not by the trace. Without flushes it is the coalesced unions plus
 * the events of X not (yet) known to be covered by R.
 * Cost: O(n log n) per scope, near O(n) for events that arrive roughly in time order; a flush
 * also costs O(what it keeps), so flush per batch of events, not per event.
 *
 * Optional binning: with a bin width g > 0 and an origin o, measures are also accumulated per bin
 * k = floor((t − o) / g), each union clipped to [o + k·g, o + (k+1)·g) (overlap.md §3.4), so the
 * per-bin values sum exactly to the totals. count, sum_dur and exposed_* go to the bin of the
 * event's start. Bin arithmetic is exact for any int64 times (128-bit where needed); bin indices
 * saturate only beyond ±2^63. An interval costs one step per bin it crosses: the caller bounds the
 * number of bins (span / g), e.g. by clamping absurd durations first.
 *
 * No global state; a dfs_ovl is used by one thread at a time. Two dfs_ovl of the same scope built
 * by different threads are combined with dfs_ovl_merge. The merge is exact when neither side has
 * finalised (flushed) a time range in which the other has events: both unflushed, or one flushed
 * to W while the other holds only events that start at or after W. Two states that both flushed
 * overlapping events cannot be combined exactly (their unions were measured apart).
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

/* 1 ≤ nclasses ≤ DFS_OVL_MAX_CLASSES; ref = the reference class, or -1 for none (with_ref and
 * exposed then stay 0). bin_width ≤ 0: no binning. NULL on out of memory or invalid arguments. */
dfs_ovl *dfs_ovl_new(unsigned nclasses, int ref, int64_t bin_width, int64_t origin);
void dfs_ovl_free(dfs_ovl *o);
/* For a caller that counts events itself: count (and sum_dur, 0 for them) then count only the
 * events without length, which thereby still list their start bin as they would otherwise, and
 * adding an event with a length touches no bin: the bins it reaches are made when a flush
 * measures it. The bins listed stay the same. Call before the first add; engines merged
 * together must agree on it. */
void dfs_ovl_skip_counts(dfs_ovl *o);
/* Adds one event of class c. false on out of memory (nothing was added, the engine stays
 * consistent and the call may be retried) or when c ≥ nclasses. */
bool dfs_ovl_add(dfs_ovl *o, unsigned c, int64_t start, int64_t end, double weight);
/* Adds one event to every class whose bit is set in `classes` (a layer event belongs to several);
 * all or none of them. false as dfs_ovl_add, or for a bit ≥ nclasses. */
bool dfs_ovl_add_mask(dfs_ovl *o, uint64_t classes, int64_t start, int64_t end, double weight);
/* Finalises everything before watermark W (see above). Adding an event that starts before an
 * earlier watermark afterwards is a caller bug: it is still counted, measured against what
 * remains (its part before the watermark may be counted twice, and R's union there is gone), and
 * counted in dfs_ovl_late_events. false on out of memory (nothing was finalised). */
bool dfs_ovl_flush(dfs_ovl *o, int64_t watermark);
/* Moves everything of src into dst (same nclasses, ref and binning; see above for exactness); src
 * is left empty, as new. false (nothing moved) on out of memory or another configuration. */
bool dfs_ovl_merge(dfs_ovl *dst, dfs_ovl *src);
/* Retires an engine that holds nothing: its totals and bins move into `fresh` (new, of the same
 * configuration, owned from here), which takes its place. The emptied engine keeps the buffers it
 * grew to its peak and becomes *spare when that is NULL (it is freed otherwise): the caller's next
 * engine of this configuration starts from the spare instead of growing its buffers again, copy
 * by copy and page by page. So a caller keeps at most one peak's buffers besides what is held.
 * If fresh is NULL or the move fails, *o stays as it was (nothing is lost) and fresh is freed. */
void dfs_ovl_renew(dfs_ovl **o, dfs_ovl *fresh, dfs_ovl **spare);
/* Finalises everything (flush to +infinity) and lists the bins. Events added afterwards are late;
 * finishing again takes them in. */
bool dfs_ovl_finish(dfs_ovl *o);
/* The totals of class c so far (final after dfs_ovl_finish); NULL for c ≥ nclasses. */
const dfs_ovl_measure *dfs_ovl_total(const dfs_ovl *o, unsigned c);
/* Binned results after dfs_ovl_finish: the bins that hold anything, ascending. Pointers are valid
 * until the next add, merge or flush. */
size_t dfs_ovl_nbins(const dfs_ovl *o);
int64_t dfs_ovl_bin_index(const dfs_ovl *o, size_t i);
const dfs_ovl_measure *dfs_ovl_bin(const dfs_ovl *o, size_t i, unsigned c);
uint64_t dfs_ovl_late_events(const dfs_ovl *o);
/* The highest watermark flushed to (INT64_MAX once finished), INT64_MIN before any flush or
 * for NULL: a merge with another engine of the scope is exact only while both are INT64_MIN. */
int64_t dfs_ovl_watermark(const dfs_ovl *o);
/* Intervals and undecided events currently held (for tests of the memory bound). */
size_t dfs_ovl_held(const dfs_ovl *o);

/* Distributed runs (docs/MPI.md): the whole state on the wire, and back as an equal engine. The
 * engine may be NULL (none travels, none comes back); NULL back with the reader bad means a bad
 * buffer or no memory. A finished engine travels as its totals and bins only, since it holds
 * nothing else. (Left out where the engine is compiled again under other names, as
 * test_overlap_engine.c does over a failing allocator.) */
#ifndef dfs_ovl
struct dfs_pack;
struct dfs_unpack;
void dfs_ovl_pack(const dfs_ovl *o, struct dfs_pack *w);
dfs_ovl *dfs_ovl_unpack(struct dfs_unpack *r);
#endif
#endif
