/* overlap_scopes.c - the scope records of an overlap analysis (a process or a thread) and their
 * exact measurement while streaming (overlap.h; the rule in analyze/common/watermark.h).
 *
 * A unit's engine holds its classes and their unions with compute (dfs_ov_union_mask). When a
 * worker holds more intervals than its budget, its units are flushed behind their watermarks, and
 * the engine's totals are snapshotted after every flush, so that an epoch or step [s, e) is
 * M(e) − M(s) of the snapshots at its ends (overlap_epochs.c).
 *
 * Invariants: a unit's snapshots are in ascending time, snap_stride values each; every marker
 * boundary is flushed exactly, in order, before anything past it, or the unit is marked missed
 * (the pass then asks for a second one without streaming); wm is the last watermark flushed to
 * (INT64_MIN: none, INT64_MAX: finalized); a pinned unit (read in pieces) is never flushed while
 * streaming, nor a process that expects markers and has none yet while its input is read. */
#include <stdlib.h>
#include <string.h>

#include "analyze/overlap/overlap_internal.h"

void dfs_overlap_scope_init(scope *s, const unit_key *k)
{
    memset(s, 0, sizeof *s);
    s->key = *k;
    s->start = INT64_MAX;
    s->end = INT64_MIN;
    s->mark = dfs_stream_mark_new();
    s->wm = INT64_MIN;
}

void dfs_overlap_scope_free(scope *s)
{
    dfs_ovl_free(s->eng);
    s->eng = NULL;
    dfs_vec_free(&s->markers);
    dfs_vec_free(&s->bounds);
    dfs_vec_free(&s->snaps);
}

/* ===== streaming flushes and snapshots ========================================================= */

dfs_ovl *dfs_ov_new_engine(const dfs_overlap *ov, unsigned nclasses, int ref, bool binned)
{
    return dfs_ovl_new(nclasses, ref, binned ? ov->opt.granularity_ns : 0, ov->opt.origin_ns);
}

/* The engine of a unit or of the global scope has no reference class: class c is at c, and c ∪ C
 * at nclasses + c − 1, so that |c ∩ C| = |c| + |C| − |c ∪ C|. Nothing but coalesced unions is
 * ever held (a reference class would also hold every event not yet known to be covered). */
dfs_ovl *dfs_ov_unit_engine(const dfs_overlap *ov)
{
    return dfs_ov_new_engine(ov, (unsigned)(2 * ov->nclasses - 1), -1, ov->need_bins);
}

void dfs_ov_engine_measures(const dfs_overlap *ov, const dfs_ovl *eng, const dfs_ovl_measure **m)
{
    for (size_t c = 0; c < 2 * ov->nclasses - 1; c++)
        m[c] = dfs_ovl_total(eng, (unsigned)c);
}

static size_t snap_stride(const dfs_overlap *ov)
{
    return 1 + 2 * ov->nclasses;
}

/* Records the engine's totals after a flush at t: M(t) = measure and |X ∩ C| before t. */
static void snapshot(wstate *w, scope *s, int64_t t)
{
    size_t stride = snap_stride(w->ov);
    if (!dfs_vec_reserve(&s->snaps, stride)) {
        w->failed = true;
        return;
    }
    int64_t *v = s->snaps.v + s->snaps.n;
    const dfs_ovl_measure *m[2 * NCLS];
    dfs_ov_engine_measures(w->ov, s->eng, m);
    v[0] = t;
    for (size_t c = 0; c < w->ov->nclasses; c++) {
        v[1 + 2 * c] = m[c]->measure;
        v[2 + 2 * c] = dfs_ov_union_with(w->ov, m, c);
    }
    s->snaps.n += stride;
}

/* The snapshot taken at exactly t, or NULL (snapshots are in ascending time). */
const int64_t *dfs_ov_snap_at(const dfs_overlap *ov, const scope *s, int64_t t)
{
    size_t stride = snap_stride(ov), lo = 0, hi = s->snaps.n / stride;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t mt = s->snaps.v[mid * stride];
        if (mt == t)
            return s->snaps.v + mid * stride;
        if (mt < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void flush_to(wstate *w, scope *s, int64_t t)
{
    if (!dfs_ovl_flush(s->eng, t)) {
        w->failed = true;
        return;
    }
    snapshot(w, s, t);
    s->wm = t;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Flushes exactly at every pending marker boundary up to `upto`, in order. */
static void flush_bounds(wstate *w, scope *s, int64_t upto)
{
    if (!s->bounds.n)
        return;
    qsort(s->bounds.v, s->bounds.n, sizeof *s->bounds.v, cmp_i64);
    size_t kept = 0;
    for (size_t i = 0; i < s->bounds.n; i++) {
        int64_t b = s->bounds.v[i];
        if (b > upto)
            s->bounds.v[kept++] = b;
        else if (b > s->wm)
            flush_to(w, s, b);
    }
    s->bounds.n = kept;
}

/* A marker boundary: flushed exactly later, or already snapshotted, or missed (the unit was
 * flushed past it before the marker arrived: a second pass without streaming is needed). */
void dfs_ov_add_bound(wstate *w, scope *s, int64_t b)
{
    if (s->eng && b < s->wm) {
        if (!dfs_ov_snap_at(w->ov, s, b))
            s->missed = true;
        return;
    }
    if (!dfs_vec_push(&s->bounds, b))
        w->failed = true;
}

/* Flushes a unit behind its watermark (analyze/common/watermark.h: W = T − max(2L, M), L its longest
 * class event and M its longest marker, while its input is being read; W = T once the worker has
 * moved on). A process that expects epoch or step markers is not flushed before its first one. */
static void flush_scope(wstate *w, scope *s, bool thread)
{
    if (!s->eng || s->finalized || s->pinned) /* pinned: listed before it was */
        return;
    if (!s->mark.idle && !thread && w->ov->expect_markers && !s->markers.n)
        return;
    int64_t W = dfs_stream_mark_watermark(&s->mark);
    if (W <= s->wm)
        return;
    flush_bounds(w, s, W);
    if (W > s->wm)
        flush_to(w, s, W);
    w->flushes++;
}

/* Measures everything of a unit (its remaining boundaries first), at the end. */
void dfs_ov_finalize_scope(wstate *w, scope *s)
{
    if (s->finalized)
        return;
    s->finalized = true;
    s->active = false;
    if (!s->eng)
        return;
    flush_bounds(w, s, INT64_MAX);
    if (!dfs_ovl_finish(s->eng))
        w->failed = true;
    s->wm = INT64_MAX;
}

static scope *active_scope(wstate *w, active_ref r)
{
    return r.thread ? &w->threads.v[r.idx] : &w->procs.v[r.idx];
}

/* The worker moved to another input: the units it was reading become idle. */
void dfs_ov_stream_ended(wstate *w)
{
    for (size_t i = 0; i < w->active.n; i++)
        active_scope(w, w->active.v[i])->mark.idle = true;
}

static size_t held_intervals(wstate *w)
{
    size_t held = 0;
    for (size_t i = 0; i < w->active.n; i++)
        held += dfs_ovl_held(active_scope(w, w->active.v[i])->eng);
    return held;
}

/* An idle unit whose intervals are all measured leaves the list; the buffers its engine grew to
 * the unit's peak serve the worker's next unit (dfs_ovl_renew). */
static void retire(wstate *w, scope *s)
{
    s->active = false;
    if (s->eng)
        dfs_ovl_renew(&s->eng, dfs_ov_unit_engine(w->ov), &w->spare);
}

/* Over budget: flushes every unit holding intervals; idle units that hold nothing more leave the
 * list. Nothing is flushed while the budget holds, so small runs never depend on order. */
void dfs_ov_maybe_flush(wstate *w)
{
    w->since_check = 0;
    if (held_intervals(w) <= w->budget)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < w->active.n; i++) {
        active_ref r = w->active.v[i];
        scope *s = active_scope(w, r);
        flush_scope(w, s, r.thread);
        if (s->mark.idle && !dfs_ovl_held(s->eng))
            retire(w, s);
        else
            w->active.v[kept++] = r;
    }
    w->active.n = kept;
    w->budget = dfs_hold_next_budget(held_intervals(w), dfs_hold_of(w->ov->opt.hold_intervals));
}
