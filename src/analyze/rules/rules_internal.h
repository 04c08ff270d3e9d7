/* rules_internal.h - what the rule families (rules_system.c, rules_steps.c) share with the
 * collection and window driver of rules.c. Not part of the library's API. */
#ifndef DFS_RULES_INTERNAL_H
#define DFS_RULES_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/rules/rules.h"
#include "util/arena.h"
#include "util/numstat.h"
#include "util/strtab.h"

/* The system-metric dimensions the rules read (smdebug Dimension values). */
enum rl_dim {
    RL_DIM_OTHER,
    RL_DIM_CPU,     /* CPUUtilization */
    RL_DIM_GPU,     /* GPUUtilization */
    RL_DIM_GPU_MEM, /* GPUMemoryUtilization */
    RL_DIM_IO_WAIT, /* I/OWaitPercentage */
    RL_DIM_NETWORK, /* Algorithm */
    RL_DIM__COUNT
};

/* One system sample, in reader order. Labels index the analysis' own string table. */
typedef struct rl_sample {
    int64_t ts;      /* absolute ns */
    double value;
    dfs_str node;    /* NodeId */
    dfs_str dev;     /* Name: cpu0, gpu1, MemoryUsedPercent */
    uint8_t dim;     /* enum rl_dim */
    bool mem_used;   /* Name is MemoryUsedPercent (OverallSystemUsage matches it by name) */
} rl_sample;

/* A raw argument value kept for the details (pin_memory, num_workers). */
typedef struct rl_raw {
    uint8_t type; /* DFS_V_NONE, DFS_V_BOOL, DFS_V_INT, DFS_V_FLOAT, DFS_V_STR; other types: STR */
    int64_t i;
    double d;
    dfs_str s;
} rl_raw;

/* One framework event, in reader order. */
typedef struct rl_event {
    int64_t start, end; /* absolute ns */
    dfs_str node;       /* node id (smdebug: from the file name) */
    dfs_str phase;      /* process_name of its pid; "Unknown" when none; "" for non-smdebug sources */
    dfs_str name;
    dfs_str step_name;  /* the step group when a step (Step:ModeKeys.TRAIN, ProfilerStep, event/batch) */
    dfs_str step_num;   /* its step number as written ("12"); 0 when none */
    bool is_step;
    bool has_args_pid;
    int64_t args_pid;
    rl_raw pin_memory, num_workers;
} rl_event;

/* A small growable details tree, allocated from an arena. */
typedef struct rl_tree {
    dfs_arena *arena;
    bool failed;
} rl_tree;

dfs_rv *rl_obj(rl_tree *t, dfs_rv *parent, const char *key);
dfs_rv *rl_arr(rl_tree *t, dfs_rv *parent, const char *key);
void rl_num(rl_tree *t, dfs_rv *parent, const char *key, double v);
void rl_int(rl_tree *t, dfs_rv *parent, const char *key, int64_t v);
void rl_bool(rl_tree *t, dfs_rv *parent, const char *key, bool v);
void rl_null(rl_tree *t, dfs_rv *parent, const char *key);
void rl_str(rl_tree *t, dfs_rv *parent, const char *key, const char *s);
/* A key or string made on the fly (copied into the arena). */
const char *rl_fmt(rl_tree *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Numbers as an array; `n` values. */
void rl_nums(rl_tree *t, dfs_rv *parent, const char *key, const double *v, size_t n);
void rl_counts(rl_tree *t, dfs_rv *parent, const char *key, const uint64_t *v, size_t n);

/* Everything a rule reads. */
typedef struct rl_ctx {
    const dfs_rules_options *opt;
    dfs_strtab *labels;      /* the strings of samples and events */
    const rl_sample *samples;
    size_t nsamples;
    const rl_event *events;
    size_t nevents;
    bool has_steps_source;
    bool have_time;
    int64_t t0, t_end;       /* first and last data time (ns) */
    rl_tree tree;
    dfs_str dataloader_worker, dataloader_iter, dataloader_init; /* phase labels (0 if unseen) */
} rl_ctx;

const char *rl_label(const rl_ctx *c, dfs_str s);
double rl_param(const rl_ctx *c, dfs_rule_id r, const char *name);
const char *rl_param_text(const rl_ctx *c, dfs_rule_id r, const char *name);

/* ---- scan windows ------------------------------------------------------------------------------ */

/* One scan window with data for a rule. `idle_before` empty windows precede it (the rule re-checks
 * its condition in each of them, with no new data). The last window returned has no data: it
 * carries the empty windows up to the end of the data. */
typedef struct rl_window {
    uint64_t k;              /* window index (0 = the first) */
    uint64_t idle_before;    /* windows without data just before this one */
    int64_t start;           /* its start (ns) */
    const uint32_t *samples; /* indices into ctx->samples, reader order */
    size_t nsamples;
    const uint32_t *events;  /* indices into ctx->events, reader order */
    size_t nevents;
    bool last;               /* the closing pseudo-window: no data */
} rl_window;

typedef struct rl_windows {
    const rl_ctx *c;
    int64_t interval;
    uint32_t *s_idx, *e_idx; /* sorted by (window, reader order) */
    uint64_t *s_win, *e_win;
    size_t ns, ne, si, ei;
    uint64_t next_k;         /* the first window not yet returned */
    uint64_t nwindows;
    bool done;
} rl_windows;

/* keep_sample / keep_event choose the items this rule reads (NULL: none). */
bool rl_windows_init(rl_windows *w, const rl_ctx *c, double interval_us,
                     bool (*keep_sample)(const rl_sample *), bool (*keep_event)(const rl_event *));
bool rl_windows_next(rl_windows *w, rl_window *out);
void rl_windows_free(rl_windows *w);

/* ---- statistics --------------------------------------------------------------------------------- */

/* A growable list of doubles. */
typedef struct rl_list {
    double *v;
    size_t n, cap;
} rl_list;

bool rl_list_push(rl_list *l, double v);
void rl_list_free(rl_list *l);
double rl_max(const double *v, size_t n);
double rl_min(const double *v, size_t n);
/* np.histogram(v, bins=nbins) (uniform bins over [min, max]); counts[nbins], edges[nbins + 1]. */
bool rl_histogram(const double *v, size_t n, size_t nbins, uint64_t *counts, double *edges);
/* Box-plot statistics (p25, p50, p75, p95, upper, lower) of v[0..n) into obj; `iqr_low` replaces
 * p25 in the IQR when not NaN (BatchSize's quirk). */
void rl_box(rl_tree *t, dfs_rv *obj, const double *v, size_t n, double iqr_low);

/* ---- the rules ------------------------------------------------------------------------------- */

typedef struct rl_out {
    dfs_rule_result *res;
    dfs_rv *details;
    char reason[256];
    char summary[256];
    char enable[160];
} rl_out;

void rl_set_reason(rl_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rl_set_summary(rl_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A rule that needs more values than the inputs hold (values > every named parameter): the
 * --param settings of the rule that let it run, each at values - 1 ("" below 2 values). */
void rl_set_enable(rl_out *o, size_t values, const char *param1, const char *param2);

/* Framework-event time aggregated around bottleneck instants or inside outlier steps. */
typedef struct rl_fw_agg rl_fw_agg;
rl_fw_agg *rl_fw_agg_new(void);
void rl_fw_agg_free(rl_fw_agg *a);
/* Events of the window active at instant t (start < t < end). */
bool rl_fw_agg_instant(rl_fw_agg *a, const rl_ctx *c, const rl_window *w, int64_t t);
/* Events of the window inside [start, end]. */
bool rl_fw_agg_span(rl_fw_agg *a, const rl_ctx *c, const rl_window *w, int64_t start, int64_t end);
void rl_fw_agg_details(rl_fw_agg *a, rl_ctx *c, dfs_rv *details);

/* Each returns false when out of memory. */
bool rl_rule_dataloader(rl_ctx *c, rl_out *o);
bool rl_rule_step_outlier(rl_ctx *c, rl_out *o);
bool rl_rule_max_init(rl_ctx *c, rl_out *o);
bool rl_rule_bottleneck(rl_ctx *c, rl_out *o, bool io);
bool rl_rule_low_gpu(rl_ctx *c, rl_out *o);
bool rl_rule_batch_size(rl_ctx *c, rl_out *o);
bool rl_rule_load_balancing(rl_ctx *c, rl_out *o);
bool rl_rule_gpu_memory_increase(rl_ctx *c, rl_out *o);
bool rl_rule_overall_system_usage(rl_ctx *c, rl_out *o);
#endif
