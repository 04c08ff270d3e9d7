/* watermark.h - the streaming rule of the exact interval engines, shared by `analyze` (its exact
 * u_, layered_exact.c) and `overlap` (overlap.c).
 *
 * DFTracer writes an event when it ends, one file per process, in order. So once a stream (the
 * events of one process, or thread, read from one input) has its latest end at T, its longest
 * event so far L and its longest epoch or step marker M, no event still to come from that input
 * starts before the watermark W = T − max(2L, M): behind W its engine may measure and drop its
 * intervals. A stream whose worker has moved on to another input is idle, and W = T. The rule is
 * checked by the engines (events behind a flushed watermark are counted late), not trusted.
 *
 * A worker looks at what its streams hold every so many events and flushes only when they hold
 * more than its budget (the hold, `--hold`), so small runs never flush and never depend on order;
 * after a flush the budget is twice what stays held, so a wide window is looked at again only
 * once it has doubled. */
#ifndef DFS_WATERMARK_H
#define DFS_WATERMARK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Intervals a worker holds before it flushes: few enough that what a flush reads (48 bytes an
 * interval) is still in the caches that the adds wrote it to (docs/PERFORMANCE.md,
 * "Exact interval engines": 1 Mi cost 5 to 10 % more time on v1, and 90 MB more memory). */
#define DFS_HOLD_DEFAULT (UINT64_C(1) << 14)
#define DFS_HOLD_CHECK_EVERY 4096u           /* events between two looks at what a worker holds */

typedef struct dfs_stream_mark {
    int64_t t_end; /* latest end; INT64_MIN before any event */
    int64_t lag;   /* longest event */
    int64_t mlag;  /* longest marker (overlap's epochs and steps) */
    bool idle;     /* its worker moved on to another input */
} dfs_stream_mark;

static inline dfs_stream_mark dfs_stream_mark_new(void)
{
    return (dfs_stream_mark){.t_end = INT64_MIN};
}

/* The length of [start, end), saturated (absurd clocks must not overflow). */
static inline int64_t dfs_stream_span(int64_t start, int64_t end)
{
    int64_t r;
    return __builtin_sub_overflow(end, start, &r) ? (start < 0 ? INT64_MAX : INT64_MIN) : r;
}

/* An event (or a marker) of the stream arrived: its input is being read again. */
static inline void dfs_stream_mark_note(dfs_stream_mark *m, int64_t start, int64_t end, bool marker)
{
    int64_t len = dfs_stream_span(start, end);
    if (end > m->t_end)
        m->t_end = end;
    if (marker && len > m->mlag)
        m->mlag = len;
    if (!marker && len > m->lag)
        m->lag = len;
    m->idle = false;
}

/* W: how far the stream's engine may be measured now. */
static inline int64_t dfs_stream_mark_watermark(const dfs_stream_mark *m)
{
    if (m->idle)
        return m->t_end;
    int64_t twice = m->lag > INT64_MAX / 2 ? INT64_MAX : 2 * m->lag, back = twice > m->mlag ? twice : m->mlag;
    return dfs_stream_span(back, m->t_end);
}

/* The hold of a run: the option, or the default. */
static inline uint64_t dfs_hold_of(uint64_t option)
{
    return option ? option : DFS_HOLD_DEFAULT;
}

/* Events between two looks: fewer than DFS_HOLD_CHECK_EVERY for a small hold, which would
 * otherwise be overrun many times between looks. */
static inline uint64_t dfs_hold_check_every(uint64_t hold)
{
    return hold / 4 < DFS_HOLD_CHECK_EVERY ? hold / 4 + 1 : DFS_HOLD_CHECK_EVERY;
}

/* The budget after a flush that left `held` intervals held. */
static inline uint64_t dfs_hold_next_budget(size_t held, uint64_t hold)
{
    return (uint64_t)held * 2 > hold ? (uint64_t)held * 2 : hold;
}
#endif
