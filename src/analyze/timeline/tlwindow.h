/* tlwindow.h - the reading side of `dfscope timeline`: a consumer that keeps what overlaps a time
 * window and draws it with analyze/timeline/timeline.h, plus the window syntax of --window.
 *
 * What is drawn: complete events (X) and B/E pairs as spans on the lane of their (input when the
 * event has no host, host, pid, tid), classed by the concepts of analyze/common/concepts.h (the file's
 * dialect picks the defaults; the user's overrides apply); counters (Chrome C records: one chart
 * per counter name and numeric arg; smdebug system metrics: one per host, dimension and device).
 * Instants, flows, async and metadata records are not drawn (metadata names the lanes).
 *
 * Streaming: complete events and counter samples outside the window are dropped as they arrive,
 * and what is inside goes straight into a per-thread dfs_timeline, whose size is bounded by the
 * window's pixels (timeline.h). Two kinds of records are held until the end, one dfs_event (112 bytes) each:
 * every B/E record (a pair can only be matched, by a stack per input, pid, tid and name, once both
 * ends are read) and the complete events inside the window whose class depends on the process
 * name (smdebug phases), which is known only after reading.
 *
 * Clocks: event times go through each file's clock (Kineto base time, smdebug start time,
 * DFTracer v2 time_metric), which may only be known at the file's end. The pass remembers the
 * clock and the concept source used per file; when either differs from the file's final one,
 * dfs_tlw_finish asks for a second pass with the final ones (dfs_tlw_needs_rerun).
 *
 * Lanes: a window with spans on more lanes than the picture draws on their own (timeline.h) is
 * read twice, like a moved clock: the first pass folds every lane but counts how busy each is,
 * and the second keeps the busiest (--lanes N of them, else the limit), folding the rest into the
 * row "other lanes". Memory stays that of the limit, whatever the number of lanes.
 *
 * Trace span: the earliest start and latest end of the drawable records (spans, B/E records,
 * counter samples) under the final clocks, for relative and open windows and for the "window
 * outside the trace" check. A bounds_only pass measures just that (no args parsed). */
#ifndef DFS_TLWINDOW_H
#define DFS_TLWINDOW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/common/clocks.h"
#include "analyze/common/concepts.h"
#include "analyze/timeline/timeline.h"
#include "dfscope.h"

/* ----- the --window syntax -----
 *   START:END   each side empty (open: the trace's start or end), an absolute time, or "+TIME"
 *               relative to the trace's start. TIME is a decimal number with an optional unit
 *               ns, us, ms, s (default), m, h: "1623142623.636", "+1.5", "+500ms", "12.3s".
 * Absolute times are on the trace's clock (seconds since the epoch for most traces). Decimals are
 * read exactly (no floating point), down to the nanosecond. */
typedef enum dfs_tl_bound_kind { DFS_TLB_OPEN, DFS_TLB_ABSOLUTE, DFS_TLB_RELATIVE } dfs_tl_bound_kind;

typedef struct dfs_tl_bound {
    dfs_tl_bound_kind kind;
    int64_t ns;
} dfs_tl_bound;

typedef struct dfs_tl_window {
    dfs_tl_bound start, end;
} dfs_tl_window;

/* false and a message in err on a syntax error, a negative time or an overflow. */
bool dfs_tl_parse_window(const char *text, dfs_tl_window *out, char *err, size_t errlen);
/* Whether resolving needs the trace's span (an open or relative bound). */
bool dfs_tl_window_needs_span(const dfs_tl_window *w);
/* The absolute window; trace_start/end are read only when needed. false and err when the window
 * is empty, inverted, or longer than INT64_MAX ns. An open end is the trace's end (one ns past the
 * start at least). */
bool dfs_tl_window_resolve(const dfs_tl_window *w, int64_t trace_start, int64_t trace_end, int64_t *start,
                           int64_t *end, char *err, size_t errlen);

/* ----- the consumer ----- */

typedef struct dfs_tlw_options {
    dfs_tl_options draw;           /* the absolute window, width, lanes, depth, title */
    bool bounds_only;              /* measure the trace's span only */
    const dfs_concept_overrides *concepts; /* NULL: every source's defaults */
    /* A second pass: every file's final clock and concept source (dfs_concept_source), [nfiles]. */
    const dfs_file_clock *clocks;
    const uint8_t *sources;
    size_t nfiles;
    /* The reading that draws (a second pass): never asks for another; too many lanes then fold. */
    bool last_pass;
} dfs_tlw_options;

void dfs_tlw_options_init(dfs_tlw_options *o);

typedef struct dfs_tlw_result {
    dfs_timeline *tl;              /* the picture (NULL for bounds_only); owned by the dfs_tlw */
    bool have_span;                /* the inputs hold a drawable timed record */
    int64_t trace_start_ns, trace_end_ns;
    uint64_t unmatched_begin;      /* B records without their E (never given an invented end) */
    uint64_t unmatched_end;        /* E records without a B */
    uint64_t bad_time;             /* records left out: no time, negative or absurd duration */
} dfs_tlw_result;

typedef struct dfs_tlw dfs_tlw;

/* NULL and a message in err for a bad predicate override, a bad window or out of memory. */
dfs_tlw *dfs_tlw_new(const dfs_tlw_options *opt, char *err, size_t errlen);
void dfs_tlw_free(dfs_tlw *w);
dfs_consumer *dfs_tlw_consumer(dfs_tlw *w);
/* After dfs_run_read. NULL when a second pass is needed (dfs_tlw_needs_rerun), on a failure
 * (dfs_tlw_failure) or out of memory. */
const dfs_tlw_result *dfs_tlw_finish(dfs_tlw *w, const dfs_run *run);
bool dfs_tlw_needs_rerun(const dfs_tlw *w);
/* Why there is no result when a concept predicate's regular expression reached its bound (the
 * message names the concept and predicate: analyze/common/predicate.h); NULL otherwise. */
const char *dfs_tlw_failure(const dfs_tlw *w);
/* After a NULL finish that needs a rerun: fills the final clocks' companion, every file's concept
 * source ([dfs_run_file_count], malloc'd; NULL when out of memory). */
uint8_t *dfs_tlw_final_sources(const dfs_run *run);
/* Gives the options every file's final clock (borrowed) and concept source (owned by o, replacing
 * what it held): what a reading after the one that measured run needs, whether or not that reading
 * is the analysis' own second pass. False when out of memory. */
bool dfs_tlw_options_use_run(dfs_tlw_options *o, const dfs_run *run, const dfs_file_clock *clocks);
/* After a NULL finish that needs a rerun: the lanes the second pass keeps on its own (sorted
 * fingerprints, for draw.kept; owned by w), or NULL with *n 0 when the lanes were not the reason. */
const uint64_t *dfs_tlw_kept_lanes(const dfs_tlw *w, size_t *n);
/* The analysis for its drivers (analyze/common/analysis.h; timeline_analysis.c), opt: dfs_tlw_options. */
extern const struct dfs_analysis dfs_timeline_analysis;
#endif
