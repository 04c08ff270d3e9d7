/* gpu.h - `dfscope gpu`: GPU analyses of PyTorch profiler (Kineto) traces, one input file per rank.
 *
 * Sections (any subset, --only): the temporal breakdown (idle, compute and other busy time of the
 * device), the kernel breakdown by type (with every overlap of computation, communication and
 * memory work) and by name (the biggest names, the rest as "others"), the overlap of
 * communication with computation, the idle time of each stream by cause, the length of each
 * stream's queue of launched kernels (and the time it was full), the memory bandwidth per kind of
 * copy, the launch statistics (CPU and GPU durations, launch delays) with HTA's outlier classes,
 * and the GPU user annotations by name with the kernels under each; on
 * request, the critical path of a window (gpu_cpath.c), the frequent kernel sequences (gpu_seq.c)
 * and straggler detection across ranks (gpu_strag.c). Two semantics:
 *   - exact (default): the whole trace at integer-ns precision; device work is what the shared
 *     classification (analyze/common/gpu_events.h) calls timed device work: kernels, copies, sets;
 *   - hta: Holistic Trace Analysis 0.6.1's numbers: its last-iteration filter, its rounding of
 *     fractional timestamps to whole µs, its event selection (any row with a numeric stream) and
 *     its name rules, so that every number equals HTA's.
 * All times of the result are ns (whole µs times 1000 under hta). The analysis keeps the complete
 * events of every input with a category (96 bytes each) and, per rank, its device work (104 bytes
 * each; the launch outliers 48 bytes per launch of each class, kept) and the critical path's graph (about 500 bytes per event of its window, skipped above
 * DFS_GPU_CP_MAX_EVENTS); time O(n log n) per rank.
 * Docs: docs/GPU.md. */
#ifndef DFS_GPU_H
#define DFS_GPU_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/common/analysis.h"
#include "analyze/common/gpu_events.h"
#include "analyze/common/predicate.h"
#include "dfscope.h"

enum {
    DFS_GPU_SEC_TEMPORAL = 1,
    DFS_GPU_SEC_KERNELS = 2,
    DFS_GPU_SEC_OVERLAP = 4,
    DFS_GPU_SEC_IDLE = 8,
    DFS_GPU_SEC_QUEUE = 16,
    DFS_GPU_SEC_MEMBW = 32,
    DFS_GPU_SEC_LAUNCH = 64,
    DFS_GPU_SEC_ANNOTATIONS = 128,
    DFS_GPU_SEC_ALL = 255,          /* the default: every section but the critical path */
    DFS_GPU_SEC_CRITICAL = 256,     /* only when asked: it builds a graph of the window's events */
    DFS_GPU_SEC_SEQUENCES = 512,    /* only when asked: it builds the call trees of every thread */
    DFS_GPU_SEC_STRAGGLERS = 1024,  /* only when asked: across ranks */
};

typedef enum dfs_gpu_semantics { DFS_GPU_EXACT, DFS_GPU_HTA } dfs_gpu_semantics;

typedef struct dfs_gpu_options {
    dfs_gpu_semantics semantics;
    unsigned sections;     /* DFS_GPU_SEC_* */
    size_t top_names;      /* by name: at most this many names per type (10) */
    double name_share;     /* ... and (exact) names up to this share of the type's time (0.8) */
    int64_t kernel_wait_ns; /* idle: a gap shorter than this, not waiting on the host, is the
                               kernels' own (30 µs) */
    bool skip_empty_files;  /* a file that gave no event has no rank (the report feeds the profiler
                               traces only: another file must not replace a rank); false */
    const char *cp_annotation; /* critical path: the window is the instances of the events whose
                                  name holds this ("ProfilerStep"; "" = the whole rank) */
    size_t cp_first, cp_last;  /* ...numbered 0.. in row order: these, both included (0, 0) */
    const char *cp_data_load;  /* ...a host event whose (shortened) name this regular expression
                                  finds loads data: its time on the path is data_loading, not
                                  cpu_bound (HTA's data_load_events); NULL or "": none */
    const char *seq_operator;  /* kernel sequences: of the operators whose name holds this ("") */
    size_t seq_min_len;        /* ...that launched at least this many kernels (3) */
    size_t straggler_candidates; /* stragglers: the latest this many ranks of each step are late,
                                    and at most this many ranks are named (2) */
    int64_t launch_runtime_ns; /* launch outliers: a launch call longer than this is a runtime
                                  outlier; one at most this long, longer than its kernel, launched a
                                  short kernel (50 µs) */
    int64_t launch_delay_ns;   /* ...a launch delay longer than this is a delay outlier (100 µs) */
    uint64_t queue_full;       /* queue: a stream whose queue holds at least this many launches
                                  blocks its host (1024) */
} dfs_gpu_options;

void dfs_gpu_options_init(dfs_gpu_options *o);
/* Parses a --only list ("temporal,kernels"); false on an unknown name (*bad points at it). */
bool dfs_gpu_parse_sections(const char *list, unsigned *out, const char **bad, size_t *badlen);
/* "temporal", "kernels", "overlap", "idle", "queue", "membw", "launch", "annotations",
 * "critical-path", "sequences", "stragglers". */
const char *dfs_gpu_section_name(unsigned section);

typedef struct dfs_gpu_temporal {
    int64_t idle_ns, compute_ns, non_compute_ns, kernel_time_ns;
    double idle_pct, compute_pct, non_compute_pct; /* hta: rounded to 2 decimals as HTA rounds */
} dfs_gpu_temporal;

/* One label of the by-type breakdown: the types that ran at once ("COMPUTATION overlapping
 * COMMUNICATION"). */
typedef struct dfs_gpu_type_row {
    unsigned mask;       /* DFS_GPU_KTYPE bits: 1 computation, 2 communication, 4 memory */
    int64_t sum_ns;
    double percentage;   /* of the rank's total; hta: rounded to 1 decimal */
} dfs_gpu_type_row;

typedef struct dfs_gpu_name_row {
    const char *name;    /* the kernel's name, or "others" */
    dfs_gpu_ktype type;
    uint64_t count;      /* kernels (others: kernels of every member) */
    int64_t sum_ns, max_ns, min_ns;
    double mean_ns, std_ns; /* std with n-1; NaN for one value under exact, 0 under hta */
} dfs_gpu_name_row;

/* Why a stream was idle before a kernel: its launch came after the stream ran dry (the host was
 * late), a short gap between kernels, or anything else (and a stream's first kernel). */
typedef enum dfs_gpu_idle_cat { DFS_GPU_HOST_WAIT, DFS_GPU_KERNEL_WAIT, DFS_GPU_IDLE_OTHER, DFS_GPU_IDLE_CATS } dfs_gpu_idle_cat;
/* "host_wait", "kernel_wait", "other". */
const char *dfs_gpu_idle_cat_name(dfs_gpu_idle_cat c);

/* One idle category of one stream, with the statistics of its gaps (µs; hta: each rounded to 2
 * decimals as HTA rounds; NaN where it has no value: no gap, or one for the std). */
typedef struct dfs_gpu_idle_row {
    int64_t stream;
    dfs_gpu_idle_cat category;
    double idle_us, ratio; /* ratio: of the stream's idle time; NaN when that is 0 */
    uint64_t count;
    double mean_us, std_us, min_us, p25_us, p50_us, p75_us, max_us;
} dfs_gpu_idle_row;

/* pandas' describe() of a column: NaN where there is no value. */
typedef struct dfs_gpu_stats {
    uint64_t count;
    double mean, std, min, p25, p50, p75, max;
} dfs_gpu_stats;

/* The queue length of one stream (kernels launched and not yet started), sampled at every launch
 * and every start: pandas' describe() of the samples, unrounded. */
typedef struct dfs_gpu_queue_row {
    int64_t stream;
    dfs_gpu_stats s;
} dfs_gpu_queue_row;

/* The time a stream's queue length was at or above the full-queue threshold (from each sample at or
 * above it to the next sample), and that time's share of the rank's trace duration (NaN when that
 * is 0). */
typedef struct dfs_gpu_queue_blocked {
    int64_t stream;
    int64_t blocked_ns;
    double relative;     /* a fraction */
} dfs_gpu_queue_blocked;

/* The memory bandwidth of one kind of copy (Memcpy HtoD, Memset, ...): the bandwidth in use by
 * copies of that kind, sampled at every copy's start and end while above 0 (GB/s, as the trace's
 * args say), summarised with pandas' describe(). */
typedef struct dfs_gpu_membw_row {
    const char *name;
    dfs_gpu_stats s;
} dfs_gpu_membw_row;

/* Per launched kernel (a launch call and a device event of its correlation): the correlation, the
 * call's duration (cpu), the device event's (gpu) and the delay from the call's end to the device
 * event's start (0 when it started before), µs. */
/* HTA's three classes of launched kernels: short (a launch call at most the runtime threshold and
 * longer than its kernel), runtime outliers (a call longer than the runtime threshold) and delay
 * outliers (a launch delay longer than the delay threshold). A launch can be in two classes. */
typedef enum dfs_gpu_outlier_class {
    DFS_GPU_OUT_SHORT, DFS_GPU_OUT_RUNTIME, DFS_GPU_OUT_DELAY, DFS_GPU_OUT_CLASSES
} dfs_gpu_outlier_class;
/* "short", "runtime", "delay". */
const char *dfs_gpu_outlier_class_name(dfs_gpu_outlier_class c);

/* One launched kernel of an outlier class: its device event's name, its correlation, the launch
 * call's start (as in the trace) and the three durations. */
typedef struct dfs_gpu_launch_outlier {
    const char *name;
    int64_t corr, launch_ts;
    int64_t cpu_ns, gpu_ns, delay_ns;
} dfs_gpu_launch_outlier;

/* The launches of one class: how many, the time at stake (the sum of the class's measure: the
 * calls' durations for short and runtime, the delays for delay) and every one of them, the worst
 * first (by the measure, then correlation, then start). */
typedef struct dfs_gpu_outlier_set {
    uint64_t count;
    int64_t total_ns;
    dfs_gpu_launch_outlier *rows;
} dfs_gpu_outlier_set;

typedef struct dfs_gpu_launch_stats {
    dfs_gpu_stats correlation, cpu_us, gpu_us, delay_us;
    int64_t runtime_ns, delay_ns; /* the thresholds the classes used */
    dfs_gpu_outlier_set outliers[DFS_GPU_OUT_CLASSES];
} dfs_gpu_launch_stats;

/* The worst launches of a class the table and JSON show; CSV has all. */
#define DFS_GPU_OUTLIERS_SHOWN 5

/* The kernels attributed to one GPU user annotation name (each kernel to the shortest annotation
 * of its device lane that overlaps it), or to none (name NULL). */
typedef struct dfs_gpu_annotated {
    const char *name;
    uint64_t kernels;
    int64_t kernel_ns;
} dfs_gpu_annotated;

/* What bounds the critical path, by what each of its edges is: a host event's own time (cpu, or
 * data loading when its name matches cp_data_load), a communication kernel's, another kernel's or
 * copy's (compute), the gap between two kernels of a stream (kernel-kernel), the delay from a
 * launch to its kernel (launch), and zero-weight dependencies and synchronisations (dependency). */
typedef enum dfs_gpu_cp_class {
    DFS_GPU_CP_DEPENDENCY, DFS_GPU_CP_CPU, DFS_GPU_CP_DATA_LOADING, DFS_GPU_CP_COMMUNICATION, DFS_GPU_CP_COMPUTE,
    DFS_GPU_CP_KERNEL_KERNEL, DFS_GPU_CP_LAUNCH, DFS_GPU_CP_CLASSES
} dfs_gpu_cp_class;
/* HTA's names: "", "cpu_bound", "data_loading", "gpu_communication_bound", "gpu_compute_bound",
 * "gpu_kernel_kernel_overhead", "gpu_kernel_launch_overhead" (their code-point order). */
const char *dfs_gpu_cp_class_name(dfs_gpu_cp_class c);

/* Why a rank has no critical path. */
typedef enum dfs_gpu_cp_status {
    DFS_GPU_CP_OK,
    DFS_GPU_CP_NO_ANNOTATION,  /* no event's name holds the annotation */
    DFS_GPU_CP_NO_INSTANCE,    /* fewer instances than asked */
    DFS_GPU_CP_TOO_BIG,        /* more events in the window than DFS_GPU_CP_MAX_EVENTS */
    DFS_GPU_CP_EMPTY,          /* the window holds no edge */
    DFS_GPU_CP_NO_LAUNCH_NODE, /* a kernel's launch is no event of the window (HTA stops there) */
    DFS_GPU_CP_SYNC_SAME_STREAM, /* a synchronisation between kernels of one stream */
    DFS_GPU_CP_CYCLE,          /* the graph has a cycle */
    DFS_GPU_CP_ROOT_EDGE,      /* an operator edge belongs to no event (HTA's summary fails) */
    DFS_GPU_CP_DATA_LOAD_BOUND, /* the data-loading search reached the predicate language's bound */
} dfs_gpu_cp_status;
/* A short phrase for a status that is not OK. */
const char *dfs_gpu_cp_status_text(dfs_gpu_cp_status s);
/* The data-loading events of the critical path (cp_data_load): the predicate that searches a name
 * for regex, under the predicate language's bounds; NULL and *err (err may be NULL) when the regular
 * expression is invalid or out of memory. */
dfs_pred *dfs_gpu_data_load_pred(const char *regex, dfs_pred_error *err);

/* The graph holds 2 nodes and a few edges per event of the window (about 500 bytes each): a
 * window with more events than this is skipped (DFS_GPU_CP_TOO_BIG). */
#define DFS_GPU_CP_MAX_EVENTS 2000000u

/* The critical path of a window of one rank: the longest path through the graph of its host
 * events (call stacks, the runtime's lock), its kernels (per stream, from their launches) and the
 * synchronisations between them. */
typedef struct dfs_gpu_cpath {
    dfs_gpu_cp_status status;
    const char *window;        /* the name of the first instance of the window */
    int64_t start_ns, end_ns;  /* the window */
    int64_t length_ns;         /* the path's duration: the sum of its edges' weights */
    uint64_t path_nodes, graph_nodes, edges, events;
    int64_t class_ns[DFS_GPU_CP_CLASSES];
    uint64_t class_edges[DFS_GPU_CP_CLASSES]; /* a class with no edge on the path is absent */
    double class_pct[DFS_GPU_CP_CLASSES];     /* of length_ns; hta: rounded to 2 decimals */
} dfs_gpu_cpath;

/* A frequent kernel sequence: an operator's name and the names of the kernels it launched (in its
 * whole call tree, by start), joined by '|'; how many operators ran it, their kernels' total time
 * and their own. */
typedef struct dfs_gpu_seq_row {
    const char *pattern;
    size_t kernels;      /* names after the operator's */
    uint64_t count;
    int64_t gpu_ns, cpu_ns;
} dfs_gpu_seq_row;

struct gpu_strag_rank; /* what straggler detection keeps of a rank (gpu_internal.h) */

typedef struct dfs_gpu_rank {
    int64_t rank;
    const char *path;    /* the input file */
    bool shares_rank;    /* exact: another input names this rank too (each is measured apart) */
    uint64_t rows;       /* events kept (hta: after the last-iteration filter) */
    uint64_t device_rows;
    bool filtered;       /* hta: the last-iteration filter ran */
    dfs_gpu_temporal temporal;
    dfs_gpu_type_row *types;
    size_t ntypes;
    dfs_gpu_name_row *names; /* by (type, name) */
    size_t nnames;
    bool has_comm;
    double overlap_pct;  /* communication time hidden under computation */
    dfs_gpu_idle_row *idle; /* streams in order of first appearance, categories in enum order */
    size_t nidle;
    dfs_gpu_queue_row *queue; /* streams ascending */
    size_t nqueue;
    dfs_gpu_queue_blocked *blocked; /* streams that reached the threshold, ascending (hta: HTA's one
                                       row, the last of them) */
    size_t nblocked;
    uint64_t queue_full;      /* the threshold */
    int64_t first_ts, last_ts, last_end; /* the rank's events: earliest start, latest start and end */
    dfs_gpu_membw_row *membw; /* kinds in code-point order */
    size_t nmembw;
    uint64_t memory_rows;     /* copies and sets measured for membw */
    dfs_gpu_launch_stats launch;
    dfs_gpu_name_row *annotations; /* GPU user annotations by name (type unused) */
    size_t nannotations;
    uint64_t annotation_rows;
    dfs_gpu_annotated *annotated; /* by kernel time (descending), then name; no annotation last */
    size_t nannotated;
    dfs_gpu_cpath cpath;
    dfs_gpu_seq_row *seqs; /* by count (descending), then pattern */
    size_t nseqs;
    bool seq_failed;       /* hta: a host row of negative duration stops HTA's call graph */
    const struct gpu_strag_rank *strag;
} dfs_gpu_rank;

/* A rank late in some steps: it started the metric collective among the latest. */
typedef struct dfs_gpu_straggler {
    int64_t rank;
    uint64_t late_steps;
} dfs_gpu_straggler;

/* Straggler detection across ranks: the collective whose duration varies most between ranks, and
 * the ranks that start it latest in the most steps. */
typedef struct dfs_gpu_stragglers {
    const char *status;  /* NULL when it ran; else why not */
    size_t candidates;
    const char *kernel;  /* the metric collective, and its stream */
    int64_t stream;
    uint64_t iterations; /* profiler steps of all ranks */
    double mean_iter_ns; /* their mean length */
    dfs_gpu_straggler *ranks; /* by late steps (descending), then rank; at most `candidates` */
    size_t nranks;
} dfs_gpu_stragglers;

typedef struct dfs_gpu_result {
    dfs_gpu_semantics semantics;
    unsigned sections;
    dfs_gpu_rank *ranks; /* ascending rank, then input order */
    size_t nranks;
    size_t replaced;     /* hta: files whose rank a later file also had (the later one counts) */
    size_t shared;       /* exact: entries whose rank another entry also has */
    size_t no_device;    /* ranks without device events */
    bool annotated;      /* some input has GPU user annotations (before any filter) */
    dfs_gpu_stragglers stragglers;
} dfs_gpu_result;

/* A label's name: the set bits' type names joined by " overlapping " into buf. */
const char *dfs_gpu_mask_label(unsigned mask, char *buf, size_t len);

/* Orders by-type rows as HTA does (labels alphabetically, then by descending sum with numpy's tie
 * order) and sets their percentages of the rows' total; false when out of memory. */
bool dfs_gpu_order_types(dfs_gpu_semantics sem, dfs_gpu_type_row *rows, size_t n);

typedef struct dfs_gpu dfs_gpu;
dfs_gpu *dfs_gpu_new(const dfs_gpu_options *o);
void dfs_gpu_free(dfs_gpu *g);
dfs_consumer *dfs_gpu_consumer(dfs_gpu *g);
/* The result after reading; NULL when out of memory. */
const dfs_gpu_result *dfs_gpu_finish(dfs_gpu *g, const dfs_run *run);

/* Distributed runs (gpu_pack.c): what the consumer kept of this rank's share (false when it ran
 * out of memory), and another rank's kept state merged in (strings interned into run; false on a
 * malformed buffer or out of memory). */
bool dfs_gpu_pack(dfs_gpu *g, dfs_pack *w);
bool dfs_gpu_merge_packed(dfs_gpu *g, const dfs_run *run, dfs_unpack *r);

extern const dfs_analysis dfs_gpu_analysis;
#endif
