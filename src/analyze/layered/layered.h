/* layered.h - DFAnalyzer-style layered analysis (spec: layered-analysis.md): events are classified
 * into the layers of a preset after the post-read rules, aggregated per (layer, view value,
 * process) cell in one streaming pass with mergeable per-worker partials, then the views, the
 * per-layer summaries and the flat-view columns are derived.
 *
 * Semantics (docs/ANALYZE.md):
 *  - DFS_COMPAT_DFANALYZER      the reference's current numbers: tm = the busiest process's time
 *                               per view row (time_proc_max), summed over rows; process views take
 *                               the maximum over processes; u_ = per-row max(L − compute, 0).
 *  - DFS_COMPAT_DFANALYZER_SUM  its original README numbers: sums over processes everywhere.
 *  - DFS_COMPAT_NONE (default)  one aggregation per quantity: times are process-seconds (Σ over
 *                               threads of durations, each event split over the bins it overlaps,
 *                               so rows add up to the summary in every view), true distinct counts,
 *                               and u_ from exact per-process interval overlap (|L_p \ C_p|), so
 *                               u_ <= Σ_p |L_p| <= time.
 *
 * Time bins are relative to the run's origin (the first event start), which is only known after
 * reading. The caller supplies a provisional origin (from a preview of the files' heads); if the
 * true origin turns out not to be a whole number of bins away, or a file's clock changes times
 * after the fact, dfs_layered_finish says so and the caller reads again with the true origin
 * (dfs_layered_needs_rerun). Memory grows with cells (layers × rows × processes), not events;
 * the exact mode also holds the coalesced intervals of each process's u_ layers.
 */
#ifndef DFS_LAYERED_H
#define DFS_LAYERED_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/common/clocks.h"
#include "analyze/common/preset.h"
#include "dfscope.h"

typedef enum dfs_compat {
    DFS_COMPAT_NONE,
    DFS_COMPAT_DFANALYZER,
    DFS_COMPAT_DFANALYZER_SUM,
} dfs_compat;

typedef enum dfs_view_type {
    DFS_VIEW_TIME_RANGE,
    DFS_VIEW_PROC_NAME,
    DFS_VIEW_FILE_NAME,
    DFS_VIEW_HOST_NAME, /* logical views of proc_name */
    DFS_VIEW_PROC_ID,
    DFS_VIEW_THREAD_ID,
    DFS_VIEW__COUNT
} dfs_view_type;

const char *dfs_view_name(dfs_view_type v);
/* The view's short name: time, proc, file, host, pid, tid. */
const char *dfs_view_alias(dfs_view_type v);
/* Accepts the view names and the aliases host, pid, tid, proc, file, time. -1 if unknown. */
int dfs_view_parse(const char *name);
const char *dfs_compat_name(dfs_compat c);

typedef struct dfs_layered_options {
    const dfs_preset *preset;
    dfs_compat compat;
    unsigned views;            /* requested: bits (1u << dfs_view_type), in request order below */
    dfs_view_type order[DFS_VIEW__COUNT];
    size_t norder;
    int64_t granularity_ns;    /* time_range bin width */
    int64_t origin_ns;         /* provisional origin (absolute ns) */
    const char *const *auto_categories; /* `auto`: the lower-cased post-read categories, sorted */
    size_t nauto_categories;
    bool keep_ignored;         /* do not drop ignored files and functions */
    bool summaries_only;       /* no flat-view rows or columns (table output); additional metrics
                                  are still computed when the preset has them */
    bool views_fixed;          /* the caller chose the views, not the user (report's page): a
                                  refusal names no --views */
    const dfs_file_clock *clocks; /* a rerun: every file's final clock, indexed by file; else NULL */
    size_t nclocks;
    bool no_streaming;         /* exact u_: never flush before the end (a rerun; layered_exact.c) */
    bool bins_settled;         /* a rerun: the run's time bins are known to fit (analyze/common/timebins.h) */
    uint64_t hold_intervals;   /* exact u_: intervals a worker holds before flushing; 0: default */
    uint64_t wall_max_periods; /* wall time: busy periods a worker keeps (layered_wall.c); 0: default */
} dfs_layered_options;

/* Bytes per second etc. are doubles; NAN means null (JSON null, "-" in tables). */
typedef struct dfs_layer_summary {
    uint64_t count;
    double time_s;             /* §8.1 time; the default mode: time_sum_s, process-seconds */
    double time_sum_s;         /* Σ dur of the layer's events */
    bool sized;                /* size columns exist (size layer) */
    uint64_t size;
    double ops, bandwidth;
    uint64_t num_files, num_processes;
    bool has_u;                /* the layer has u_ columns */
    double u_time_s;
    uint64_t u_count;
    uint64_t u_size;           /* only when sized */
    double u_base_s;           /* what u_time_s is compared with for the overlap %: time_s, or in
                                  the exact mode Σ_p |L_p| (busy time without nesting) */
    double overhead_s;         /* Σ rows o_L (NAN: the layer has no children) */
    double wall_s;             /* the default mode: the union over processes of the layer's events,
                                  the same in every view (NAN under --compat or when not measured:
                                  dfs_layered_result.wall_over) */
} dfs_layer_summary;

typedef struct dfs_additional_summary {
    const char *name, *unit;
    uint64_t non_null;
    double min, mean, max;     /* NAN when non_null == 0 */
} dfs_additional_summary;

/* A flat view: rows × columns of doubles (NAN = null), with the row keys as text. */
typedef struct dfs_view_result {
    dfs_view_type type;
    const dfs_layer_summary *layers; /* [nlayers], in layer order */
    const char *const *row_keys;     /* [nrows] */
    const int64_t *row_bins;         /* time_range: the bin index of each row; else NULL */
    size_t nrows;
    const char *const *columns;      /* [ncolumns] e.g. "posix_read_time_sum" */
    size_t ncolumns;
    const double *cells;             /* [nrows * ncolumns] */
    const dfs_additional_summary *additional;
    size_t nadditional;
    uint64_t total_files, total_processes; /* G2 summary rows (true counts) */
} dfs_view_result;

/* Post-read events of one category that fell in no layer of the preset. */
typedef struct dfs_layered_unlayered {
    char *category;
    uint64_t events;
    uint64_t dur_ns;   /* Σ of their durations */
} dfs_layered_unlayered;

typedef struct dfs_layered_result {
    dfs_compat compat;
    const dfs_preset *preset;
    const dfs_preset_layer *layers;  /* the analysed layers (auto expanded) */
    size_t nlayers;
    /* raw statistics (§2), on all events before post-read */
    double job_time_s;
    int64_t origin_ns;
    uint64_t events, unique_files, unique_hosts, unique_processes;
    uint64_t no_duration;        /* non-metadata records without ts/dur: not analysed */
    uint64_t bad_time;           /* negative or absurd durations: not analysed */
    uint64_t other_phases;       /* counters, instants, aggregated records: not layered */
    uint64_t dropped_files, dropped_functions, post_read_events;
    uint64_t post_read_dur_ns;   /* Σ of the post-read events' durations */
    uint64_t on_purpose_events;  /* post-read events in no layer that the preset's left_out selects */
    uint64_t on_purpose_dur_ns;
    /* post-read events in no layer, by category, most time first (a preset that leaves much of a
     * trace out is said: dfs_layered_left_out) */
    const dfs_layered_unlayered *unlayered;
    size_t nunlayered;
    uint64_t unlayered_events, unlayered_dur_ns;
    uint64_t layer_count_total;  /* G2 "Total Count": Σ of layer counts */
    uint64_t processes, threads; /* distinct (host, pid) and proc_name values after post-read */
    double granularity_s;
    uint64_t flushes;            /* exact u_: streaming flushes (how the pass went, not a finding) */
    bool wall_over;              /* the default mode's wall times were not measured: the layers were
                                    busy in more separate periods than a worker keeps (layered_wall.c) */
    uint64_t wall_max_periods;   /* that bound, per worker (dfs_layered_options') */
    const dfs_view_result *views; /* in request order */
    size_t nviews;
} dfs_layered_result;

typedef struct dfs_layered dfs_layered;

/* NULL and a message in err (if not NULL) on failure. */
dfs_layered *dfs_layered_new(const dfs_layered_options *opt, char *err, size_t errlen);
void dfs_layered_free(dfs_layered *la);
dfs_consumer *dfs_layered_consumer(dfs_layered *la);
/* After dfs_run_read. Returns NULL when out of memory, when a rerun is needed or on a failure. */
const dfs_layered_result *dfs_layered_finish(dfs_layered *la, const dfs_run *run);
/* Why there is no result: a layer or derived-metric predicate's regular expression reached its
 * bound (the message names the layer and predicate: analyze/common/predicate.h), or
 * granularity_ns asks for more time bins than a run keeps (the run's, and each process's where its
 * exact engine keeps bins for the columns; the message names the count and a granularity that
 * fits: analyze/common/timebins.h); NULL otherwise. */
const char *dfs_layered_failure(const dfs_layered *la);
/* After a NULL finish: true when the provisional assumptions failed; *origin_ns is the true
 * origin and *categories the complete category list (auto) to read again with. */
bool dfs_layered_needs_rerun(const dfs_layered *la, int64_t *origin_ns);
/* After a NULL finish: must the rerun do without streaming flushes (exact u_ met events out of
 * the order it assumed)? */
bool dfs_layered_rerun_no_streaming(const dfs_layered *la);
/* After a NULL finish: the workers stopped at the bin bound, which the whole run does not pass:
 * the rerun must not stop (dfs_layered_options.bins_settled). */
bool dfs_layered_rerun_bins_settled(const dfs_layered *la);
/* Why the rerun is needed (a static text), NULL without one. */
const char *dfs_layered_rerun_reason(const dfs_layered *la);
size_t dfs_layered_categories(const dfs_layered *la, const char *const **categories);

/* Distributed runs (layered_pack.c, docs/MPI.md): a rank's merged state (after dfs_run_read,
 * before finishing) on the wire with strings as text, and merged into another rank's as a
 * worker's would be. census lists the traced processes holding exact u_ interval state
 * (dfs_unit_hash), pending events' processes included; finish_local finishes, where they were
 * read, the processes no other rank has (shared: sorted), so they travel as totals and bins. */
struct dfs_pack;
struct dfs_unpack;
struct dfs_u64vec;
bool dfs_layered_pack(const dfs_layered *la, const dfs_run *run, struct dfs_pack *w);
bool dfs_layered_merge_packed(dfs_layered *la, dfs_run *run, struct dfs_unpack *r);
bool dfs_layered_census(const dfs_layered *la, const dfs_run *run, struct dfs_u64vec *units);
bool dfs_layered_finish_local(dfs_layered *la, const dfs_run *run, const uint64_t *shared, size_t nshared);

/* The analysis for its drivers (analyze/common/analysis.h; layered_analysis.c), opt: dfs_layered_options. */
extern const struct dfs_analysis dfs_layered_analysis;
#endif
