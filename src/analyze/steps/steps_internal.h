/* steps_internal.h - what steps.c, steps_tb.c and steps_verdict.c share (not a public API). */
#ifndef DFS_STEPS_INTERNAL_H
#define DFS_STEPS_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>

#include "analyze/common/overlap_engine.h"
#include "analyze/steps/steps.h"
#include "util/u64map.h"
#include "util/vec.h"

#define ST_NONE INT64_MIN /* an absent argument */

/* A kept event; after pairing, an interval in absolute ns. */
typedef struct st_ev {
    int64_t start, end;       /* while reading: ts on the file clock, ts + dur (X) or ts (B/E) */
    int64_t pid, tid;         /* as read (the process name is looked up by this pid) */
    int64_t lane_pid, lane_tid; /* smdebug: args.pid / args.thread_id when present */
    int64_t key;              /* args.count, else args.step, else args.step_num */
    int64_t epoch;            /* args.epoch */
    int64_t batch;            /* args.batch (Composer: the step number, never a pairing key) */
    int64_t corr, ext;        /* Kineto args.correlation; External id (operators and kernels) */
    uint64_t offset;
    uint32_t file, run;
    dfs_str name, cat, fname, host;
    uint32_t bits;            /* DFS_CONCEPT_BIT of the concepts it belongs to */
    uint8_t phase;            /* dfs_phase */
    uint64_t arg_truths;      /* the concepts' argument tests answered while it was read */
} st_ev;

typedef DFS_VEC(st_ev) st_ev_vec;

/* Owned allocations of a result, freed with the analysis. */
typedef DFS_VEC(void *) st_owned;

/* ---- runs and their order (steps.c) ------------------------------------------------------------
 * One process lists the runs by the file that opened each (tier 0: a file, an smdebug node at its
 * first file, a merged Composer trace's first rank), then the further ranks of merged Composer
 * traces by (file, pid) (tier 1). The key puts runs finished on other ranks in that order. */
typedef struct st_run_key {
    uint32_t tier, file;
    int64_t pid;
} st_run_key;

/* A finished run and its place. */
typedef struct st_done {
    dfs_steps_run run;
    st_run_key key;
} st_done;

typedef DFS_VEC(st_done) st_done_vec;
typedef DFS_VEC(uint32_t) st_file_vec;

struct dfs_steps {
    dfs_steps_options opt;
    dfs_consumer consumer;
    dfs_concepts *concepts; /* the finishing thread's classifier */
    st_ev_vec evs;          /* kept events of every worker (not yet finished) */
    bool failed;
    char failure[512];      /* a concept predicate over its regex bound: no result (steps.h) */
    bool folded;            /* a distributed rank other than 0: its files are folded before the census */
    st_owned owned;
    st_done_vec done;       /* runs finished where they were read (distributed runs, steps_pack.c) */
    st_file_vec covered;    /* the files of those runs */
    dfs_steps_result result;
};

/* The file name of a path (a pointer into it). */
const char *st_base_name(const char *path);
/* Does the file make a run (a readable trace, smdebug system files excepted)? */
bool st_makes_run(const dfs_file_info *f);
/* The name of the run the file belongs to: its smdebug node (copied to buf; *by_node: runs of
 * that name join), else its base name. by_node_only: the node field whatever the dialect, NULL
 * when the name has none. */
const char *st_run_name(const dfs_file_info *f, bool by_node_only, char *buf, size_t cap, bool *by_node);
/* Finishes the runs of the kept events (every file that makes a run, but those with skip[file])
 * and appends them to out with their keys, in one process's order, and their files to covered
 * (may be NULL). The kept events are consumed. false when out of memory. */
bool st_finish_runs(dfs_steps *s, const dfs_run *run, const uint8_t *skip, st_done_vec *out, st_file_vec *covered);

/* Allocation helpers that register the block in `owned`; NULL when out of memory. */
void *st_alloc(st_owned *owned, size_t n, size_t size);
char *st_printf(st_owned *owned, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- sweeping windows over intervals (steps_run.c) ----------------------------------------- */

/* An interval with the engine classes it belongs to. */
typedef struct st_piece {
    int64_t start, end;
    uint64_t mask;
    const st_ev *ev; /* NULL for a synthetic interval */
} st_piece;

typedef DFS_VEC(st_piece) st_piece_vec;

typedef struct st_sweep_fns {
    /* The bounds of window k (windows sorted by start). */
    void (*bounds)(const void *ctx, size_t k, int64_t *start, int64_t *end);
    /* Window k with the pieces that may overlap it (in start order); false stops the sweep. */
    bool (*visit)(void *ctx, size_t k, const st_piece *const *act, size_t n);
} st_sweep_fns;

/* Pieces sorted by start; a piece joins the active set when it starts before a window's end and
 * leaves it once it ends before a window's start. false when out of memory or visit failed. */
bool st_sweep(const st_piece *pieces, size_t np, size_t nwin, const st_sweep_fns *fns, void *ctx);
bool st_piece_overlaps(const st_piece *p, int64_t start, int64_t end);
/* A finished engine over the active pieces clipped to [start, end) (nclasses, reference ref);
 * NULL when out of memory. */
dfs_ovl *st_engine(const st_piece *const *act, size_t n, int64_t start, int64_t end, unsigned nclasses, int ref);

/* ---- per-step metrics (steps_measure.c) ---------------------------------------------------
 * The engine classes of a step: D (the reference), C_dev ∪ X, C_dev, C_host, X, I, then the
 * cumulative unions of the priority order C_dev, X, runtime, D, C_host, I. */

enum st_class { ST_K_D, ST_K_CDX, ST_K_CDEV, ST_K_CHOST, ST_K_X, ST_K_I, ST_K_CUM0, ST_K_CUM1, ST_K_CUM2, ST_K_CUM3, ST_K_CUM4, ST_K_CUM5, ST_K_N };

#define ST_KB(k) (UINT64_C(1) << (k))
#define ST_CUM_FROM(k) (((ST_KB(ST_K_CUM5) << 1) - 1) & ~(ST_KB(k) - 1))
#define ST_MASK_D (ST_KB(ST_K_D) | ST_CUM_FROM(ST_K_CUM3))
#define ST_MASK_CDEV (ST_KB(ST_K_CDX) | ST_KB(ST_K_CDEV) | ST_CUM_FROM(ST_K_CUM0))
#define ST_MASK_X (ST_KB(ST_K_CDX) | ST_KB(ST_K_X) | ST_CUM_FROM(ST_K_CUM1))
#define ST_MASK_RT ST_CUM_FROM(ST_K_CUM2)
#define ST_MASK_CHOST (ST_KB(ST_K_CHOST) | ST_CUM_FROM(ST_K_CUM4))
#define ST_MASK_I (ST_KB(ST_K_I) | ST_CUM_FROM(ST_K_CUM5))


typedef struct st_io_name {
    dfs_str name;
    uint64_t count;     /* I/O calls overlapping the counted steps' waits */
    int64_t in_wait;    /* Σ of their overlap with those waits (ns) */
} st_io_name;

/* Time and calls of I/O inside the waits of the counted steps, by call name. */
typedef struct st_io_acc {
    DFS_VEC(st_io_name) names;
    dfs_u64map index;      /* name -> index in names */
    DFS_VEC(st_piece) waits; /* the current step's waits, coalesced */
} st_io_acc;

/* Measures every step (sorted by start) over the pieces (sorted by start, masks ST_MASK_*); the
 * I/O of the counted steps' waits goes to acc. false when out of memory. */
bool st_measure_steps(dfs_step *steps, size_t nsteps, const st_piece *pieces, size_t np, st_io_acc *acc,
                      const bool *counted);
/* r->available from the concepts in force and the strategy (anchored steps have waits). */
void st_set_availability(dfs_steps_run *r, const dfs_concepts *c);
void st_blank_unavailable(dfs_step *steps, size_t n, const bool *avail);
/* Sums and medians of the selected steps (sel NULL: all; mode -1: every mode); scratch holds n. */
void st_aggregate(dfs_steps_agg *a, const dfs_step *st, size_t n, const bool *sel, int mode, const bool *avail,
                  double *scratch);
bool st_aggregate_modes(dfs_steps_run *r, const bool *counted, double *scratch, st_owned *owned);

/* ---- one run (steps_run.c) -------------------------------------------------------------- */

typedef struct st_run_ctx {
    const dfs_steps_options *opt;
    const dfs_run *run;
    st_owned *owned;
    const dfs_concepts *concepts;
} st_run_ctx;

/* Steps, metrics, epochs, aggregates, verdicts and (Kineto) the plugin's breakdown of one run,
 * from its intervals sorted by (start, end). r->name, source, rank and counts are set. false
 * when out of memory. */
bool st_analyse_run(dfs_steps_run *r, const st_ev *iv, size_t n, const st_run_ctx *ctx);

/* ---- the TensorBoard breakdown (steps_tb.c) ---------------------------------------------- */

/* Builds the plugin's breakdown from the run's intervals (sorted by start; Kineto types read from
 * the lower-cased cat). NULL when out of memory. */
const dfs_tb_result *st_tensorboard(const dfs_run *run, const st_ev *ev, size_t n, st_owned *owned);

/* ---- verdicts (steps_verdict.c) ----------------------------------------------------------- */

/* Facts the verdicts need beyond the steps. */
typedef struct st_wait_marker {
    int64_t start, end;
    int64_t lane_pid, lane_tid;
} st_wait_marker;

typedef struct st_verdict_input {
    const dfs_steps_options *opt;
    const dfs_run *run;
    const st_wait_marker *markers; /* the data-wait markers of the loop */
    size_t nmarkers;
    const st_io_name *io_names;    /* sorted by in_wait, descending */
    size_t nio_names;
} st_verdict_input;

/* Fills r->verdicts, r->input_bound, r->remedies (r->steps, aggregates and counts done). false
 * when out of memory. */
bool st_verdicts(dfs_steps_run *r, const st_verdict_input *in, st_owned *owned);
#endif
