/* timeline.h - an SVG picture of a time window: one lane per thread (grouped by source, host and
 * process), spans coloured by class and stacked by nesting depth, one small line chart per counter,
 * a labelled time axis and a legend. `dfscope timeline` draws with it, and so can any analysis that
 * wants to show a window (the data-loader report draws its outlier windows).
 *
 * Use: dfs_tl_new(window), dfs_tl_lane() + dfs_tl_add_span() / dfs_tl_add_counter() for whatever
 * overlaps the window (anything else is ignored, so a caller may feed everything it streams), then
 * dfs_tl_write() or dfs_tl_write_file(). Strings are copied; times are ns on one common clock
 * (absolute ns since the epoch when the window is absolute; the axis then names the window's start
 * as a UTC time).
 *
 * Size bounds: a span narrower than one pixel is not kept: its time is added to a per-pixel busy
 * total of its lane and class, drawn as busy bars. Counter samples are folded into per-pixel
 * minimum / maximum / last value. So memory and SVG size grow with width x (lanes + counters) plus
 * the spans at least one pixel wide (at most width x depth per lane for properly nested spans),
 * never with the number of events in the window.
 *
 * Lanes are bounded too: at most dfs_tl_lane_limit(width) of them (1000, fewer on very wide
 * pictures) are kept and drawn one by one. The others are folded: each keeps only its counts (for
 * the summary), its spans go into the per-pixel busy bars of one shared row, "other lanes".
 * Which lanes stand alone is the caller's choice (options.kept, say the busiest of an earlier
 * collection: dfs_tl_busiest); without one, a timeline that receives spans on more lanes than the
 * limit folds them all (dfs_tl_crowded), and the picture is that one row. Every decision depends on
 * the set of spans only, never on the order they arrive or on how timelines were merged.
 *
 * Not thread-safe: one dfs_timeline per thread, or the caller serialises. */
#ifndef DFS_TIMELINE_H
#define DFS_TIMELINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dfscope.h"

/* Event classes, in legend order. */
typedef enum dfs_tl_class {
    DFS_TL_COMPUTE = 0,  /* model work, host or device */
    DFS_TL_DATA_WAIT,    /* the loop waits for the next batch */
    DFS_TL_IO,           /* storage calls */
    DFS_TL_TRANSFER,     /* copies, memsets, communication */
    DFS_TL_OTHER,
    DFS_TL_NCLASS
} dfs_tl_class;

/* "compute", "data wait", "I/O", "transfer", "other". */
const char *dfs_tl_class_name(dfs_tl_class c);

typedef struct dfs_tl_options {
    int64_t start_ns, end_ns; /* the window [start, end); end > start */
    unsigned width_px;        /* width of the time area (default 1200; 200..20000) */
    unsigned max_lanes;       /* 0 = every lane; else the busiest max_lanes, the rest counted */
    unsigned max_depth;       /* rows per lane before deeper spans fold into the last row (default 6) */
    const char *title;        /* heading; NULL = "dfscope timeline" */
    const char *subtitle;     /* second line, e.g. the inputs; NULL = none */
    const uint64_t *kept;     /* with nkept (at most the lane limit): the lanes kept on their own, by
                                 dfs_tl_lane_fingerprint (copied); every other lane is folded. NULL:
                                 every lane on its own up to the limit, all folded beyond */
    size_t nkept;
} dfs_tl_options;

void dfs_tl_options_init(dfs_tl_options *o);

/* The most lanes kept on their own at a width: 1000, and at most 4,000,000 lane pixels (200 lanes
 * at 20,000 px), which bounds the busy bars' memory to about 240 MB per timeline. */
unsigned dfs_tl_lane_limit(unsigned width_px);

/* Identity and labels of a lane. Lanes with equal (source, host, pid, tid) are the same lane.
 * Lanes are ordered by source, host, pid, tid; a pid or tid written as a string (pid_str /
 * tid_str set, the number a synthetic id) sorts after the numeric ones, by its text. NULL
 * strings are empty. */
typedef struct dfs_tl_lane_key {
    const char *source;  /* input or rank label, "" when there is one input */
    const char *host;
    int64_t pid, tid;
    const char *pid_str; /* the pid as the trace wrote it when not a number, else NULL */
    const char *tid_str;
    const char *process; /* process name (M process_name), NULL = none */
    const char *thread;  /* thread name (M thread_name), NULL = none */
} dfs_tl_lane_key;

typedef struct dfs_timeline dfs_timeline;

/* NULL when the options are invalid (end <= start, width out of range) or out of memory. */
dfs_timeline *dfs_tl_new(const dfs_tl_options *opt);
void dfs_tl_free(dfs_timeline *tl);

/* The lane of key (created when new; names given later fill names still missing). Returns its
 * id, or UINT32_MAX when out of memory. */
uint32_t dfs_tl_lane(dfs_timeline *tl, const dfs_tl_lane_key *key);
/* A lane's identity (source, host, pid, tid) as a number, for dfs_tl_options.kept. */
uint64_t dfs_tl_lane_fingerprint(const dfs_tl_lane_key *key);

/* A span [start, start + dur) on a lane; ignored (DFS_OK) when it does not overlap the window.
 * dur 0 is an instant-like sliver. DFS_ERR_USAGE for a bad lane, class or negative dur. */
dfs_status dfs_tl_add_span(dfs_timeline *tl, uint32_t lane, int64_t start_ns, int64_t dur_ns,
                           const char *name, size_t name_len, dfs_tl_class cls);

/* A counter sample; one chart per distinct name; ignored outside [start, end]. NaN ignored. */
dfs_status dfs_tl_add_counter(dfs_timeline *tl, const char *name, size_t name_len, int64_t t_ns,
                              double value);

/* Adds everything of `from` (same window, width and kept lanes) into `into`: per-thread timelines
 * of one window are merged this way. DFS_ERR_USAGE when the windows or widths differ. */
dfs_status dfs_tl_merge(dfs_timeline *into, const dfs_timeline *from);

/* Lanes the caller saw in the trace with nothing in the window: they get no row (a lane is drawn
 * only with a span in the window), and the picture says how many were left out so. The count is
 * the caller's, who sees the events outside the window; merging keeps the larger. */
void dfs_tl_set_empty_lanes(dfs_timeline *tl, size_t n);

/* Whether spans came on more lanes than the limit with no kept lanes given: every lane is folded. */
bool dfs_tl_crowded(const dfs_timeline *tl);
/* The fingerprints of the k busiest lanes (summed span time in the window, then lane order),
 * sorted, for options.kept of a second collection. malloc'd, *n set; NULL when out of memory. */
uint64_t *dfs_tl_busiest(const dfs_timeline *tl, size_t k, size_t *n);

/* What the picture holds (after the adds; the same numbers the SVG shows). */
typedef struct dfs_tl_summary {
    size_t lanes;                     /* lanes that received a span in the window */
    size_t lanes_drawn;               /* on their own, after max_lanes */
    size_t lanes_other;               /* drawn together in the row "other lanes" (0: no such row) */
    size_t lanes_empty;               /* seen in the trace, nothing in the window: left out */
    size_t counters;                  /* counter charts */
    uint64_t spans[DFS_TL_NCLASS];    /* spans overlapping the window, by class (all lanes) */
    uint64_t spans_drawn;             /* kept as their own rectangle (drawn lanes) */
    uint64_t spans_aggregated;        /* folded into busy bars (drawn lanes) */
    uint64_t spans_other;             /* drawn in the row "other lanes" */
    uint64_t samples;                 /* counter samples in the window */
} dfs_tl_summary;

void dfs_tl_summarize(const dfs_timeline *tl, dfs_tl_summary *out);

/* One lane as the picture shows it (strings owned by the timeline, "" when absent). */
typedef struct dfs_tl_lane_info {
    dfs_tl_lane_key key;              /* every string set */
    uint64_t spans[DFS_TL_NCLASS];    /* spans overlapping the window, by class */
    uint64_t aggregated;              /* of which folded into busy bars */
    bool drawn;                       /* on its own; false: left out by max_lanes, or folded */
    bool other;                       /* drawn in the row "other lanes" */
} dfs_tl_lane_info;

/* The lanes holding spans in the window, in drawing order (source, host, pid, tid): writes up to
 * cap of them and returns how many there are (0 when out of memory). */
size_t dfs_tl_lanes(const dfs_timeline *tl, dfs_tl_lane_info *out, size_t cap);

/* Writes the SVG document. DFS_ERR_IO on a write error, DFS_ERR_NOMEM when out of memory. */
dfs_status dfs_tl_write(const dfs_timeline *tl, FILE *out);
struct dfs_output_guard; /* output/atomic.h, which this layer does not include */
/* Writes the SVG to path atomically (whole or not at all), not over an input of guard (may be
 * NULL). Returns 0, or -1 with a message in err. */
int dfs_tl_write_file(const dfs_timeline *tl, const char *path, struct dfs_output_guard *guard, char *err,
                      size_t errlen);
#endif
