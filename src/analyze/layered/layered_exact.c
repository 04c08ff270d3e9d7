/* layered_exact.c - the exact u_ of the default mode: per traced process, an overlap engine over
 * the unoverlapped layers and compute (analyze/common/overlap_engine.h), flushed while streaming so that
 * memory follows what is in flight, not the trace.
 *
 * Streaming follows the rule `dfscope overlap` follows (analyze/common/watermark.h): a process is
 * measured and its intervals dropped behind its watermark, looked at only when the worker holds
 * more than its budget; when the worker moves to another input, the processes of the previous one
 * are flushed entirely at the next look.
 *
 * A file read in pieces (a large one, cut for the workers, or between MPI ranks) breaks the rule:
 * its pieces reach several workers in no set order, and the lines across the cuts come last. Its
 * processes are pinned: held whole, as without streaming, and measured at the end, where the
 * workers' engines merge exactly since none has flushed. Memory then follows those processes'
 * intervals; reading the input a second time, the alternative, would cost that and the time.
 *
 * The assumption is checked, not trusted: an event that starts behind its process's watermark
 * (the engine counts it late), or a process flushed by one worker and also seen by another (a
 * process written to several files), makes the pass ask for a second one without streaming
 * (dfs_layered_options.no_streaming), whose answer is exact in any order. */
#include <stdlib.h>

#include "analyze/layered/layered_internal.h"

static size_t held(const acc *a)
{
    size_t n = 0;
    for (size_t i = 0; i < a->active.n; i++)
        n += dfs_ovl_held(a->ovl.v[a->active.v[i]]);
    return n;
}

/* Measures a process behind its watermark, or entirely once its input has ended. */
static void flush_process(acc *a, uint32_t p)
{
    xstream *s = &a->xs.v[p];
    if (s->pinned) /* listed before it was pinned */
        return;
    int64_t w = dfs_stream_mark_watermark(&s->mark);
    if (w <= dfs_ovl_watermark(a->ovl.v[p]))
        return;
    if (!dfs_ovl_flush(a->ovl.v[p], w))
        a->failed = true;
    a->flushes++;
}

/* A process's engine: the layers are its classes, compute the reference. The cells count the
 * events already, so the engine only measures. Its bins feed only the time view's exact columns
 * (layered_rows.c); the summaries take the totals, so a run without columns needs no bins. */
static dfs_ovl *new_engine(const dfs_layered *la)
{
    int ref = la->compute >= 0 ? la->ovl_class[la->compute] : -1;
    int64_t bin_width = dfs_layered_needs_columns(&la->opt) ? la->opt.granularity_ns : 0;
    dfs_ovl *o = dfs_ovl_new(la->ovl_nclasses, ref, bin_width, la->opt.origin_ns);
    dfs_ovl_skip_counts(o);
    return o;
}

static void maybe_flush(const dfs_layered *la, acc *a)
{
    a->since_check = 0;
    uint64_t hold = dfs_hold_of(la->opt.hold_intervals);
    if (a->budget < hold)
        a->budget = hold;
    if (held(a) <= a->budget)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < a->active.n; i++) {
        uint32_t p = a->active.v[i];
        flush_process(a, p);
        if (a->xs.v[p].mark.idle && !dfs_ovl_held(a->ovl.v[p])) { /* done: its buffers serve the next */
            a->xs.v[p].active = false;
            dfs_ovl_renew(&a->ovl.v[p], new_engine(la), &a->spare);
        } else {
            a->active.v[kept++] = p;
        }
    }
    a->active.n = kept;
    a->budget = dfs_hold_next_budget(held(a), hold);
}

static void note_stream(const dfs_layered *la, acc *a, uint32_t p, int64_t start, int64_t end)
{
    xstream *s = &a->xs.v[p];
    dfs_stream_mark_note(&s->mark, start, end, false);
    if (!s->active) {
        if (!dfs_vec_push(&a->active, p)) {
            a->failed = true;
            return;
        }
        s->active = true;
    }
    if (++a->since_check >= a->check_every)
        maybe_flush(la, a);
}

void dfs_layered_exact_add(const dfs_layered *la, acc *a, uint32_t p, const lev *e, uint64_t mask, uint64_t size,
                           bool in_pieces)
{
    dfs_ovl **o = &a->ovl.v[p];
    if (!*o) {
        *o = a->spare ? a->spare : new_engine(la);
        a->spare = NULL;
        if (!*o) {
            a->failed = true;
            return;
        }
    }
    if (mask != a->last_mask) { /* a thread's events mostly repeat the last layers */
        a->last_classes = 0;
        for (uint64_t m = mask; m; m &= m - 1)
            a->last_classes |= UINT64_C(1) << la->ovl_class[__builtin_ctzll(m)];
        a->last_mask = mask;
    }
    int64_t end;
    (void)dfs_span_end(e->ts, e->dur, &end); /* it fits: the reading left out ends that do not */
    if (!dfs_ovl_add_mask(*o, a->last_classes, e->ts, end, (double)size)) {
        a->failed = true;
        return;
    }
    a->xs.v[p].pinned |= in_pieces;
    if (!la->opt.no_streaming && a->streaming && !a->xs.v[p].pinned)
        note_stream(la, a, p, e->ts, end);
}

void dfs_layered_exact_input_changed(acc *a)
{
    for (size_t i = 0; i < a->active.n; i++)
        a->xs.v[a->active.v[i]].mark.idle = true;
}

void dfs_layered_exact_merge(acc *into, uint32_t p, dfs_ovl **src)
{
    dfs_ovl **dst = &into->ovl.v[p];
    if (!*src)
        return;
    if (!*dst) {
        *dst = *src;
        *src = NULL;
        return;
    }
    /* both hold intervals of the process: exact only if neither measured a stretch alone */
    if (dfs_ovl_watermark(*dst) != INT64_MIN || dfs_ovl_watermark(*src) != INT64_MIN)
        into->stream_conflict = true;
    if (!dfs_ovl_merge(*dst, *src))
        into->failed = true;
}

const char *dfs_layered_exact_order_problem(const acc *a)
{
    if (a->stream_conflict)
        return "a process was flushed in one input stream and also seen in another";
    for (size_t p = 0; p < a->ovl.n; p++)
        if (dfs_ovl_late_events(a->ovl.v[p]))
            return "events arrived behind the streaming watermark";
    return NULL;
}
