/* overlap.h - I/O versus compute overlap (spec: overlap.md), the analysis behind `dfscope overlap`.
 *
 * Events are put in classes by predicates of the layered-analysis language (layered-analysis.md
 * §4) or by the names of the preset's layers: compute C, I/O I and app-level I/O A, which are
 * disjoint by the priority C > I > A (overlap.md §1), plus up to DFS_OVERLAP_MAX_EXTRA named extra
 * classes, which are independent of the priority and of each other. Every class is compared with C.
 * The predicates see the event's post-read columns (lower-cased category with its path suffixes,
 * io_cat, ...), but no event is dropped unless post_read is set: the default classes are taken on
 * the raw events, as reference/dlio-unet3d-hdf5-8rank.md §5 does.
 *
 * Methods:
 *  - DFS_OVERLAP_EXACT (default): interval algebra per scope unit (overlap.md §3): |X| is the
 *    measure of the union of X's intervals, |X ∩ C| exact, |X \ C| = |X| − |X ∩ C|; per time bin
 *    with the unions clipped to the bin (§3.4) when granularity_ns > 0; per epoch and step when
 *    marker predicates are given (the unions clipped to each marker event's interval).
 *  - DFS_OVERLAP_APPROXIMATE: the reference's (G0) per-bin estimate (§2.2): per bin of the event
 *    START, Σ dur per thread and class, the maximum over the unit's threads of each class
 *    independently, then max(X − C, 0) and max(C − X, 0) summed over bins.
 *  - DFS_OVERLAP_G0_EXACT: the reference's "exact" mode (§2.3), kept to show its double counting:
 *    per start bin, unions across ALL processes, unclipped. Global scope only.
 *
 * Scopes (§3.2): process = (host, pid), the default and the unit of `per_process`; thread =
 * (host, pid, tid); global = every event of the run. The exact and approximate methods always
 * give the process units, the thread units when the scope is thread. The global values come with
 * the approximate and G0 methods (they are the reference's numbers) and, for the exact method,
 * when asked (options.global or scope global): they need memory for the run's busy periods.
 * The result's summary is the sum over the scope's units with the maximum and minimum of each
 * field beside it (the global values themselves for the global scope); its total_time is the
 * run's span (first start to last end), not a sum.
 *
 * Memory (what bound holds):
 *  - process and thread units, exact method: a unit's events go to an interval engine (dfs_ovl)
 *    that holds only the coalesced union of each class and of each class with C (|X ∩ C| is
 *    |X| + |C| − |X ∪ C|; nothing is kept per event). When a worker holds more than
 *    hold_intervals intervals it flushes its units: a unit of the input it is reading is measured
 *    up to W = T − max(2L, M), T being the latest event end seen in the unit, L its longest class
 *    event and M its longest epoch/step marker (a marker is written when it ends, so its start is
 *    at least T − M when it arrives; a unit that expects markers is not flushed before its first
 *    one); a unit of an input the worker has finished is measured entirely and its buffers are
 *    given back. So when each process's events come from one input read in order by one worker
 *    (DFTracer writes one file per process, in completion order), a worker holds about
 *    max(hold_intervals, 2 × the intervals of its current units' last max(2L, M) of trace time),
 *    plus, for a unit that expects markers, its intervals before its first marker.
 *    The units of a file read in pieces (cut for the workers or between MPI ranks: its pieces
 *    arrive in no set order) are pinned: held whole and measured at the end, where the workers'
 *    engines merge exactly, since none has flushed them.
 *    The assumption is checked, not trusted: an event that starts before its unit's watermark, a
 *    unit flushed in one worker and also seen in another (a process in several files), or an
 *    epoch or step boundary that arrives behind the watermark makes
 *    dfs_overlap_finish ask for a second pass without streaming flushes (no_streaming), whose
 *    memory is the coalesced unions of all units. The answers never depend on the pass.
 *  - the exact global scope (only when asked) cannot be flushed, since inputs are not read in time
 *    order: each worker holds the coalesced unions of the run, O(busy periods), not O(events).
 *  - approximate: one sum per (start bin, thread, class); G0 exact: the unions of every bin.
 *  - sizes per I/O function: one counter per distinct (function, size): exact quantiles.
 *
 * Bins are numbered from the run's origin (the first event start), known only at the end: the
 * caller gives a provisional origin (dfs_preview_run) and reads again when it was wrong by other
 * than whole bins, as in layered.h. The same holds when a file's clock changes after the fact.
 *
 * Threads: dfs_overlap_consumer's state is per worker and merged in worker_end (map/reduce).
 */
#ifndef DFS_OVERLAP_H
#define DFS_OVERLAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/common/clocks.h"
#include "analyze/common/preset.h"
#include "analyze/common/preset.h"
#include "analyze/common/preview.h"
#include "dfscope.h"

#define DFS_OVERLAP_MAX_EXTRA 16
#define DFS_OVERLAP_MAX_CLASSES (3 + DFS_OVERLAP_MAX_EXTRA)

/* Class indexes: the three fixed classes, then the extra classes in the order given. */
enum { DFS_OVC_COMPUTE = 0, DFS_OVC_IO = 1, DFS_OVC_APP_IO = 2, DFS_OVC_EXTRA = 3 };

typedef enum dfs_overlap_method {
    DFS_OVERLAP_EXACT,
    DFS_OVERLAP_APPROXIMATE,
    DFS_OVERLAP_G0_EXACT,
} dfs_overlap_method;

typedef enum dfs_overlap_scope {
    DFS_OVERLAP_PROCESS, /* the default (0) */
    DFS_OVERLAP_THREAD,
    DFS_OVERLAP_GLOBAL,
} dfs_overlap_scope;

const char *dfs_overlap_method_name(dfs_overlap_method m); /* "exact", "approximate", "g0-exact" */
const char *dfs_overlap_scope_name(dfs_overlap_scope s);   /* "thread", "process", "global" */

typedef struct dfs_overlap_class_def {
    const char *name;      /* [A-Za-z0-9_]+, not one of the fixed class names */
    const char *predicate; /* a predicate or a layer name of the preset */
} dfs_overlap_class_def;

/* The default classes and markers for a preset (static texts; NULL: none). The shipped DLIO
 * presets give reference §5's classes: C = the framework's compute calls, I = the categories
 * starting with posix or stdio, A = cat "reader", epochs = DLIOBenchmark._train. */
typedef struct dfs_overlap_defaults {
    const char *compute, *io, *app_io, *epochs, *steps;
} dfs_overlap_defaults;

void dfs_overlap_defaults_for(const dfs_preset *p, dfs_overlap_defaults *out);

typedef struct dfs_overlap_options {
    const dfs_preset *preset;      /* post-read rules, layer names; required */
    const char *compute, *io, *app_io; /* predicate or layer name; NULL: the class is empty */
    const dfs_overlap_class_def *extra;
    size_t nextra;
    const char *epochs, *steps;    /* marker predicates (or layer names); NULL: none */
    bool post_read;                /* drop the preset's ignored files and functions first */
    bool global;                   /* exact method: also the global scope (implied by scope global) */
    dfs_overlap_method method;
    dfs_overlap_scope scope;
    int64_t granularity_ns;        /* bin width; 0: no bins (exact only; the others need bins) */
    int64_t origin_ns;             /* provisional origin (absolute ns), for bins */
    const dfs_file_clock *clocks;  /* a rerun: every file's final clock, indexed by file */
    size_t nclocks;
    bool no_streaming;             /* never flush before the end (a rerun) */
    bool bins_settled;             /* a rerun: the run's time bins are known to fit (timebins.h) */
    uint64_t hold_intervals;       /* intervals a worker holds before flushing; 0: default */
} dfs_overlap_options;

/* One class within one unit, in ns. */
typedef struct dfs_overlap_class_values {
    int64_t time;                 /* exact: |X|; approximate: Σ over bins of the busiest thread's Σ dur */
    int64_t with_compute;         /* |X ∩ C|; approximate: Σ min(X_b, C_b) */
    int64_t unoverlapped;         /* |X \ C| (for C itself 0); approximate: Σ max(X_b − C_b, 0) */
    int64_t compute_unoverlapped; /* |C \ X| (for C itself 0); approximate: Σ max(C_b − X_b, 0) */
    int64_t sum_dur;              /* Σ dur (|X| < Σ dur: nested or duplicate events) */
    uint64_t events;
} dfs_overlap_class_values;

typedef struct dfs_overlap_values {
    int64_t start, end;  /* absolute ns: the unit's first event start and last event end */
    int64_t total_time;  /* end − start (bins and segments: their length) */
    uint64_t events;     /* complete events of the unit, any class */
    dfs_overlap_class_values *cls; /* [nclasses] */
} dfs_overlap_values;

/* An epoch or step: one marker event's interval [start, end), the unit's unions clipped to it.
 * Only times are known per segment (sum_dur and events are 0). */
typedef struct dfs_overlap_segment {
    const char *label;   /* the marker's args.epoch / args.step, else its ordinal in the unit (1-based) */
    uint64_t units;      /* in the totals over processes: how many processes had it */
    dfs_overlap_values v;
} dfs_overlap_segment;

typedef struct dfs_overlap_unit {
    const char *key;     /* "host:pid" or "host:pid:tid" (host "unknown" when the trace names none) */
    const char *host;
    const char *pid;     /* the pid as written (numbers as decimal text) */
    const char *tid;     /* NULL for processes */
    dfs_overlap_values v;
    const dfs_overlap_segment *epochs, *steps; /* processes, exact method: in time order */
    size_t nepochs, nsteps;
} dfs_overlap_unit;

typedef struct dfs_overlap_bin {
    int64_t index;       /* bin k covers [origin + k·g, origin + (k+1)·g) */
    dfs_overlap_values v;
} dfs_overlap_bin;

/* Sizes of one I/O function (class I events grouped by name; overlap.md §2.4). */
typedef struct dfs_overlap_function {
    const char *name;        /* the full name */
    const char *short_name;  /* the text after the last '.' */
    uint64_t count, sized;   /* events; of which with a size */
    uint64_t bytes;          /* Σ size */
    double min, p25, mean, median, p75, max; /* bytes, exact (linear interpolation); NAN when sized == 0 */
} dfs_overlap_function;

typedef struct dfs_overlap_result {
    dfs_overlap_method method;
    dfs_overlap_scope scope;
    const dfs_preset *preset;
    size_t nclasses;
    const char *const *class_names; /* "compute", "io", "app_io", then the extra names */
    const char *const *class_texts; /* the predicates used (layer names resolved); NULL: empty class */
    const char *epochs_text, *steps_text;
    bool post_read;
    int64_t granularity_ns;         /* 0: no bins */
    int64_t origin_ns;              /* the run's first event start (absolute ns) */
    /* allocation and dataset (overlap.md §2.4) */
    uint64_t nodes, processes, compute_threads, io_threads, events, files;
    /* records not analysed or adjusted */
    uint64_t no_duration, other_phases, bad_time, negative_durations;
    uint64_t dropped_files, dropped_functions;
    /* the summary over the scope's units; its total_time is the run's span */
    dfs_overlap_values summary, max, min;
    bool have_global;               /* the global values were computed (see overlap.h) */
    dfs_overlap_values global;      /* its span, event counts and Σ dur are always filled */
    uint64_t summary_units;
    const dfs_overlap_unit *per_process, *per_thread;
    size_t nprocesses, nthreads;
    const dfs_overlap_bin *bins;    /* ascending; the summary's scope */
    size_t nbins;
    const dfs_overlap_segment *epochs, *steps; /* totals over processes, by label, in time order */
    size_t nepochs, nsteps;
    const dfs_overlap_function *functions; /* by name */
    size_t nfunctions;
    /* approximate: the busiest (bin, thread) I/O time, and 2x it in whole seconds when it
     * exceeds the bin (G0's granularity warning, overlap.md §2.4) */
    int64_t max_bin_thread_io;
    int64_t suggested_granularity_ns; /* 0: none */
    /* how it ran */
    bool streamed;                  /* watermark flushes were allowed */
    uint64_t flushes;               /* streaming flushes done */
} dfs_overlap_result;

typedef struct dfs_overlap dfs_overlap;

/* NULL and a message in err on a bad class or option (the message names the class). */
dfs_overlap *dfs_overlap_new(const dfs_overlap_options *opt, char *err, size_t errlen);
void dfs_overlap_free(dfs_overlap *ov);
dfs_consumer *dfs_overlap_consumer(dfs_overlap *ov);
/* After dfs_run_read. NULL when out of memory, when a second pass is needed, or on a failure. */
const dfs_overlap_result *dfs_overlap_finish(dfs_overlap *ov, const dfs_run *run);
/* Why there is no result: a class predicate's regular expression reached its bound (the message
 * names the class and predicate: analyze/common/predicate.h), or granularity_ns asks for more time
 * bins than a run keeps (the message names the count and a granularity that fits:
 * analyze/common/timebins.h); NULL otherwise. */
const char *dfs_overlap_failure(const dfs_overlap *ov);

typedef struct dfs_overlap_rerun {
    int64_t origin_ns;   /* the true origin */
    bool no_streaming;   /* the streaming assumptions failed */
    bool bins_settled;   /* the workers stopped at the bin bound, which the whole run does not pass */
    const char *reason;  /* for the user */
} dfs_overlap_rerun;

/* After a NULL finish: true when a second pass is needed, with its settings. */
bool dfs_overlap_needs_rerun(const dfs_overlap *ov, dfs_overlap_rerun *out);

/* Distributed runs (overlap_pack.c, docs/MPI.md): a rank's merged state (after dfs_run_read,
 * before finishing) on the wire with strings as text, and merged into another rank's as a
 * worker's would be (units flushed on two ranks are a conflict, as between two workers, and ask
 * for a second pass without streaming). census lists the units holding interval state
 * (dfs_unit_hash; pending events' units included); finish_local measures here, entirely, the units
 * no other rank has (shared: sorted), so they travel as totals, bins and snapshots: all their
 * events are there, so this is exact whether the pass streams or not. */
struct dfs_pack;
struct dfs_unpack;
struct dfs_u64vec;
bool dfs_overlap_pack(const dfs_overlap *ov, const dfs_run *run, struct dfs_pack *w);
bool dfs_overlap_merge_packed(dfs_overlap *ov, dfs_run *run, struct dfs_unpack *r);
bool dfs_overlap_census(const dfs_overlap *ov, const dfs_run *run, struct dfs_u64vec *units);
bool dfs_overlap_finish_local(dfs_overlap *ov, const dfs_run *run, const uint64_t *shared, size_t nshared);
/* The analysis for its drivers (analyze/common/analysis.h; overlap_analysis.c), opt: dfs_overlap_options. */
extern const struct dfs_analysis dfs_overlap_analysis;
#endif
