/* steps.h - training steps of the unified model (`dfscope steps`; spec: training-loop.md §4).
 *
 * Per run (an input file, i.e. a rank; smdebug framework files: a node; a merged Composer trace:
 * each rank, pid = rank), the step windows of the
 * run's loop lane are built from the concepts of analyze/common/concepts.h (defaults chosen from the
 * file's dialect, or the user's predicates):
 *   - span sources (Kineto ProfilerStep#N, smdebug Step:ModeKeys.*): each STEP event is a step;
 *   - paired sources (Composer, DFTracer): a STEP marker opens the step and the STEP_END marker
 *     closes it; with args.count / args.step both must carry the same value (dft_ai fetch.iter ..
 *     fetch.block, DLIO loop.iter .. loop.yield), else the latest open marker is taken (Composer:
 *     event/dataloader B .. event/batch E, by stack, never by the batch arg);
 *   - fallbacks: Composer end markers alone (event/batch); smdebug data-wait starts as anchors
 *     (step = one start to the next); DFTracer compute calls as anchors inside each epoch window
 *     when the loop markers and the compute calls disagree in number (legacy DLIO loses the last
 *     batch's markers of every epoch): step = previous compute end (or the epoch start) to this
 *     compute's end, and its data wait the gap before the compute.
 * Per step the metrics of §4.3 are measured with the overlap engine (analyze/common/overlap_engine.h):
 * step_time, data_wait (inclusive), exposed_data_wait (D minus device compute and transfers),
 * compute_dev, compute_host (minus D), transfer, io, io_in_wait and an exclusive breakdown by
 * priority (C_dev, X, runtime, D, C_host, I, other) that sums to step_time. A metric whose concept
 * the source lacks is unavailable (DFS_STEPS_NA), not zero.
 * The first step of the run and of every (epoch, mode) stretch is flagged warm-up, the run's last
 * step is flagged last; flagged steps stay out of the project's verdicts unless asked
 * (include_flagged). The compatible verdicts (Composer's rule, smdebug's outlier rules) use every
 * step, as the systems they copy. Kineto runs also get the TensorBoard plugin's step-time
 * breakdown (§3.2; steps_tb.c).
 *
 * Cost: the events matching some concept (Kineto: every complete event, for the plugin's
 * breakdown) are kept, about 90 bytes each; time O(n log n). All times here are absolute ns. */
#ifndef DFS_STEPS_H
#define DFS_STEPS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/common/concepts.h"
#include "dfscope.h"

#define DFS_STEPS_NA INT64_MIN /* a metric the source cannot measure */

typedef struct dfs_steps_options {
    dfs_concept_overrides concepts;
    bool include_flagged;        /* verdicts over every step, warm-up and last included */
    double wait_threshold;       /* input-bound: exposed wait share above this (default 0.05) */
    double outlier_factor;       /* slow fetches / batches: >= factor x median (default 2) */
    int64_t outlier_floor_ns;    /* ...and at least this long (default 1 ms): a ratio of tiny times
                                    is no slowness a user can act on */
    double storage_threshold;    /* storage-bound: io_in_wait / data_wait above this (0.5) */
    double outlier_sigma;        /* step outliers: > mean + sigma x stddev (3) */
    unsigned outlier_min_steps;  /* step outliers need more steps than this (100) */
    unsigned composer_min_points; /* Composer's rule needs this many waits (10) */
} dfs_steps_options;

void dfs_steps_options_init(dfs_steps_options *o);

/* Per-step metrics, in ns. The EX_* parts are exclusive and sum to STEP_TIME. */
typedef enum dfs_step_metric {
    DFS_SM_STEP_TIME,
    DFS_SM_DATA_WAIT,
    DFS_SM_EXPOSED_WAIT,
    DFS_SM_COMPUTE_DEV,
    DFS_SM_COMPUTE_HOST,
    DFS_SM_TRANSFER,
    DFS_SM_IO,
    DFS_SM_IO_IN_WAIT,
    DFS_SM_EX_COMPUTE_DEV,
    DFS_SM_EX_TRANSFER,
    DFS_SM_EX_RUNTIME,
    DFS_SM_EX_DATA_WAIT,
    DFS_SM_EX_COMPUTE_HOST,
    DFS_SM_EX_IO,
    DFS_SM_EX_OTHER,
    DFS_SM_COUNT
} dfs_step_metric;

/* "step_time", "data_wait", "exposed_data_wait", "compute_dev", "compute_host", "transfer", "io",
 * "io_in_wait", "ex_compute_dev", ..., "ex_other". */
const char *dfs_step_metric_name(dfs_step_metric m);

typedef enum dfs_step_mode { DFS_MODE_TRAIN, DFS_MODE_EVAL, DFS_MODE_PREDICT, DFS_MODE_COUNT } dfs_step_mode;
const char *dfs_step_mode_name(dfs_step_mode m); /* "train", "eval", "predict" */

#define DFS_STEP_WARMUP 0x1u /* first step of the run or of an (epoch, mode) stretch */
#define DFS_STEP_LAST 0x2u   /* last step of the run (possibly truncated) */

typedef struct dfs_step {
    int64_t number;          /* ProfilerStep#N, step_num, args.count / step, else 1-based index */
    int64_t start, end;      /* absolute ns */
    int64_t epoch;           /* -1 unknown */
    uint8_t mode;            /* dfs_step_mode */
    uint8_t flags;           /* DFS_STEP_* */
    bool has_wait;           /* a data-wait marker lies in the step (a datapoint of the rules) */
    int64_t m[DFS_SM_COUNT]; /* DFS_STEPS_NA when unavailable */
} dfs_step;

/* Sums over a set of steps. */
typedef struct dfs_steps_agg {
    uint64_t steps;
    uint64_t waits;            /* steps with a data-wait marker */
    int64_t sum[DFS_SM_COUNT]; /* DFS_STEPS_NA when unavailable */
    double median_step_time;   /* ns; NaN without steps */
    double median_data_wait;   /* ns; NaN without steps or without D */
} dfs_steps_agg;

typedef struct dfs_steps_mode_agg {
    dfs_step_mode mode;
    dfs_steps_agg all, counted; /* every step; the steps the verdicts use */
} dfs_steps_mode_agg;

/* One epoch (or mode) window holding steps. */
typedef struct dfs_steps_epoch {
    int64_t epoch;           /* args.epoch, else 1-based ordinal */
    dfs_step_mode mode;
    int64_t start, end;      /* the window (absolute ns) */
    uint64_t steps;
    int64_t step_time, data_wait, compute_host, io_in_wait; /* sums over its steps (ns) */
    int64_t marked_wait;     /* |D markers ∩ window| (differs from data_wait with anchored steps) */
    int64_t lead, tail;      /* window start to first step, last step end to window end */
} dfs_steps_epoch;

typedef enum dfs_verdict_state {
    DFS_VERDICT_NO,
    DFS_VERDICT_YES,
    DFS_VERDICT_NOT_EVALUATED, /* too few datapoints */
    DFS_VERDICT_UNAVAILABLE,   /* the trace lacks the concept */
} dfs_verdict_state;
const char *dfs_verdict_state_name(dfs_verdict_state s); /* "no", "yes", "not_evaluated", "unavailable" */

/* One listed item of a verdict (an outlier, an I/O call name). */
typedef struct dfs_verdict_item {
    int64_t step;            /* step number, or -1 */
    int64_t start, end;      /* the item's window, absolute ns (0 when none) */
    double value;            /* ns (durations, gaps) */
    dfs_str name;            /* I/O call names; 0 otherwise */
    uint64_t count;
} dfs_verdict_item;

typedef enum dfs_verdict_id {
    DFS_V_INPUT_BOUND,       /* Σ exposed wait / Σ step time > threshold (TensorBoard's rule) */
    DFS_V_COMPOSER,          /* Composer PR #1374 pruned-mean rule */
    DFS_V_SLOW_FETCHES,      /* smdebug: data_wait >= 2 x median */
    DFS_V_SLOW_BATCHES,      /* smdebug: gap between data-wait starts >= 2 x median */
    DFS_V_STEP_OUTLIERS,     /* smdebug StepOutlier */
    DFS_V_STORAGE_BOUND,     /* io_in_wait / data_wait > threshold */
    DFS_V_COUNT
} dfs_verdict_id;
/* "input_bound", "composer_input_bound", "slow_fetches", "slow_batches", "step_outliers",
 * "storage_bound". */
const char *dfs_verdict_name(dfs_verdict_id v);

typedef struct dfs_steps_verdict {
    dfs_verdict_state state;
    double value;            /* the measured share (0..1), or ns for Composer's pruned mean */
    double threshold;        /* share, or the outlier limit in ns */
    double reference;        /* Composer: pruned mean of step - wait (ns); others: median (ns) */
    uint64_t datapoints;
    char evidence[320];      /* one sentence, numbers included */
    const dfs_verdict_item *items;
    size_t nitems;
} dfs_steps_verdict;

/* The TensorBoard plugin's step breakdown (spec §3.2), Kineto runs only. */
typedef enum dfs_tb_role {
    DFS_TB_KERNEL, DFS_TB_MEMCPY, DFS_TB_MEMSET, DFS_TB_COMMUNICATION, DFS_TB_RUNTIME,
    DFS_TB_DATALOADER, DFS_TB_CPU_EXEC, DFS_TB_OTHER, DFS_TB_ROLE_COUNT
} dfs_tb_role;
const char *dfs_tb_role_name(dfs_tb_role r); /* "Kernel", "Memcpy", ..., "CPU Exec", "Other" */

typedef struct dfs_tb_step {
    int64_t number;
    int64_t start, end;                   /* device-shifted window (absolute ns) */
    int64_t cost[DFS_TB_ROLE_COUNT];      /* ns */
    int64_t total;                        /* end - start */
} dfs_tb_step;

typedef struct dfs_tb_result {
    bool device_shifted;     /* some step launched device work: windows moved to the device side */
    size_t tail_removed;     /* steps dropped by the tail rule */
    bool synthetic_step;     /* no ProfilerStep: one step over the host events */
    const dfs_tb_step *steps;
    size_t nsteps;
    double avg[DFS_TB_ROLE_COUNT];   /* µs, rounded half to even as Python's round() */
    double avg_total;                /* µs, rounded */
    double pct[DFS_TB_ROLE_COUNT];   /* 100·part/total, 2 decimals */
    bool shown[DFS_TB_ROLE_COUNT];   /* the plugin's column visibility */
    double gpu_utilization;          /* % (2 decimals): kernel union inside steps / steps time */
    uint64_t device_events;          /* kernels (MTIA device ops included), memory copies and memsets
                                        recognised (0: the 0 % above means no device event was
                                        recognised, not an idle device) */
    uint64_t range_events;           /* CUPTI range-profiler measurements: device events whose times
                                        are placeholders, left out of the utilization */
    bool input_hint;                 /* DataLoader share > 5 %: "high time cost on input data loading" */
    bool comm_hint;                  /* communication share > 10 % */
} dfs_tb_result;

/* Damage and oddities, never dropped silently (§4.5). */
typedef struct dfs_steps_counts {
    uint64_t orphan_end;        /* E without B */
    uint64_t unterminated;      /* B never closed */
    uint64_t negative;          /* durations below zero (dropped) */
    uint64_t unpaired_start;    /* step markers that opened no complete step */
    uint64_t unpaired_end;      /* end markers without an open step (steps of their own) */
    uint64_t overlapping_waits; /* data-wait spans overlapping another on the same lane */
    uint64_t negative_gaps;     /* smdebug-style batch gaps below zero */
    uint64_t other_lanes;       /* step markers on lanes other than the loop lane (ignored) */
    uint64_t pageable_h2d, pinned_h2d; /* Kineto Memcpy HtoD (Pageable / Pinned -> Device) */
    bool single_process_loader; /* Kineto: _SingleProcessDataLoaderIter (num_workers = 0) */
} dfs_steps_counts;

typedef enum dfs_step_strategy {
    DFS_STRAT_NONE,          /* no steps found */
    DFS_STRAT_SPAN,
    DFS_STRAT_PAIRED,
    DFS_STRAT_END_SPANS,     /* Composer fallback: event/batch alone */
    DFS_STRAT_WAIT_ANCHORS,  /* smdebug fallback: data-wait starts */
    DFS_STRAT_COMPUTE_ANCHORS, /* DFTracer fallback: compute calls per epoch */
} dfs_step_strategy;
const char *dfs_step_strategy_name(dfs_step_strategy s);

typedef struct dfs_steps_run {
    const char *name;          /* file base name, or the smdebug node */
    int64_t rank;              /* -1 unknown */
    dfs_concept_source source;
    dfs_step_strategy strategy;
    int64_t loop_pid, loop_tid;
    bool available[DFS_SM_COUNT];
    const dfs_step *steps;
    size_t nsteps;
    dfs_steps_agg all, counted;          /* counted: the steps the project's verdicts use */
    bool counted_is_all;                 /* no unflagged step left (or include_flagged) */
    const dfs_steps_mode_agg *modes;
    size_t nmodes;
    const dfs_steps_epoch *epochs;
    size_t nepochs;
    dfs_steps_verdict verdicts[DFS_V_COUNT];
    bool input_bound;                    /* verdicts[DFS_V_INPUT_BOUND] says yes */
    double data_wait_fraction;           /* Σ data_wait / Σ step_time over counted steps; NaN: none */
    const char *const *remedies;
    size_t nremedies;
    const char *const *notes;
    size_t nnotes;
    dfs_steps_counts counts;
    const dfs_tb_result *tensorboard;    /* Kineto runs; NULL otherwise */
} dfs_steps_run;

typedef struct dfs_steps_result {
    const dfs_steps_run *runs;
    size_t nruns;
    dfs_steps_agg total;                 /* every run's steps */
    int64_t epoch_window, epoch_tail;    /* Σ epoch windows, Σ tails (ns); 0 without epochs */
    int64_t marked_wait;                 /* Σ marked waits of the epochs */
    bool any_input_bound;
} dfs_steps_result;

typedef struct dfs_steps dfs_steps;

/* NULL on a bad predicate (*err, *bad as dfs_concepts_new) or out of memory (err says so). */
dfs_steps *dfs_steps_new(const dfs_steps_options *o, dfs_pred_error *err, dfs_concept *bad);
void dfs_steps_free(dfs_steps *s);
dfs_consumer *dfs_steps_consumer(dfs_steps *s);
/* After dfs_run_read. NULL when out of memory or on a failure. The result lives as long as `s`
 * and `run`. */
const dfs_steps_result *dfs_steps_finish(dfs_steps *s, const dfs_run *run);
const dfs_concepts *dfs_steps_concepts(const dfs_steps *s);
/* Why there is no result when a concept predicate's regular expression reached its bound (the
 * message names the concept and predicate: analyze/common/predicate.h); NULL otherwise. */
const char *dfs_steps_failure(const dfs_steps *s);

/* Distributed runs (steps_pack.c, docs/MPI.md, docs/STEPS.md). Inputs are never cut between ranks.
 * A rank other than 0 has its own files folded before the census (dfs_analysis.fold_share) and
 * says so with dfs_steps_set_folded; it then finishes, where it read them, the runs no other rank
 * has a file of (steps, epochs, aggregates, verdicts, notes: everything of dfs_steps_run) and
 * sends them finished, with the files they cover; the kept events of a run whose files are on
 * several ranks (smdebug nodes) travel as they are. Rank 0 finishes what it holds at
 * dfs_steps_finish and puts every run in one process's order. census lists the names of the
 * runs this rank's files may make (hashed); finish_local takes the names seen on several ranks
 * (sorted). Strings travel as text. */
struct dfs_pack;
struct dfs_unpack;
struct dfs_u64vec;
void dfs_steps_set_folded(dfs_steps *s);
bool dfs_steps_census(const dfs_steps *s, const dfs_run *run, struct dfs_u64vec *units);
bool dfs_steps_finish_local(dfs_steps *s, const dfs_run *run, const uint64_t *shared, size_t nshared);
bool dfs_steps_pack(const dfs_steps *s, const dfs_run *run, struct dfs_pack *w);
bool dfs_steps_merge_packed(dfs_steps *s, dfs_run *run, struct dfs_unpack *r);

/* Helpers shared with the tests. */
/* Composer PR #1374's pruned mean (spec §2.6): values with |x - median| / MAD < 2 (all when
 * MAD = 0), their mean; the median when none is kept; NaN for n = 0. Sorts a copy. */
double dfs_steps_pruned_mean(const double *v, size_t n);
/* The analysis for its drivers (analyze/common/analysis.h; steps_analysis.c), opt: dfs_steps_options. */
extern const struct dfs_analysis dfs_steps_analysis;
#endif
