/* rules.h - the SageMaker Debugger profiler rules (`dfscope rules`), spec/training-loop.md 1.4.
 *
 * Ten rules (Dataloader, IOBottleneck, CPUBottleneck, LowGPUUtilization, StepOutlier,
 * MaxInitializationTime, BatchSize, LoadBalancing, GPUMemoryIncrease, OverallSystemUsage), each
 * reporting what the reference's ProfilerReport holds: RuleTriggered, Violations, Details,
 * Datapoints and RuleParameters, plus whether the rule could be evaluated at all and why not
 * ("no GPUUtilization samples": a rule never guesses missing inputs).
 *
 * Inputs. System samples: smdebug system-metric lines (Dimension, Name, NodeId, Value,
 * Timestamp), and the `cpu` counter of Composer traces (cpu_percent, one series per rank) and its
 * `memory/virtual` counter (used / (used + available), as MemoryUsedPercent). Framework events:
 * every timed complete event of smdebug framework, Horovod and TF-profiler files (their phase is
 * the process_name of their pid), and the steps of other sources: Kineto `ProfilerStep#N`, Composer
 * `event/batch` B/E pairs. Files without an absolute clock are left out (and named in the notes).
 *
 * Window mechanics (the reference's `invoke`): every rule keeps its state across scan windows of
 * scan_interval_us (60 s), from the first data time to the last. A system sample belongs to the
 * window of its timestamp, a framework event to the window of its start (the reference queries
 * overlap and inclusive bounds, which sees items on a boundary twice; here each item is seen once).
 * Inside a window, items keep reader order: files by the number their name starts with (the
 * reference sorts files by that timestamp), then by path, each in file order. Rules that re-check
 * their condition in every window (LowGPUUtilization, BatchSize, StepOutlier, the bottlenecks,
 * LoadBalancing, MaxInitializationTime) do so in windows without new data as well.
 *
 * Modes: the clean mode (default) fixes the reference's bugs that change results: LoadBalancing
 * compares every pair of GPUs of a node (the reference compares none: it never fires),
 * GPUMemoryIncrease compares the moving average with the one a sample before (the reference's
 * previous window holds window-1 values, ending two before the last), BatchSize's memory box plot
 * uses the memory's own p25 (the reference mixes in the GPU utilization's), the bottleneck details
 * label the I/O count as such (the reference files it under "CPUs"), Dataloader's `prefetch` says
 * whether any Prefetch event was seen. The compatible mode (--compat smdebug) keeps all of them.
 *
 * Statistics as NumPy computes them: linear-interpolation quantiles, pairwise summation for
 * means and population standard deviations, np.histogram's binning; times are exact integers. */
#ifndef DFS_RULES_H
#define DFS_RULES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfscope.h"

typedef enum dfs_rules_mode {
    DFS_RULES_CLEAN = 0, /* reference bugs fixed (default) */
    DFS_RULES_COMPAT,    /* the reference's behaviour, quirks included */
} dfs_rules_mode;

/* In the order of the reference's rule_evaluation list (Dataloader first, as in the spec). */
typedef enum dfs_rule_id {
    DFS_RULE_DATALOADER,
    DFS_RULE_IO_BOTTLENECK,
    DFS_RULE_CPU_BOTTLENECK,
    DFS_RULE_LOW_GPU,
    DFS_RULE_STEP_OUTLIER,
    DFS_RULE_MAX_INIT,
    DFS_RULE_BATCH_SIZE,
    DFS_RULE_LOAD_BALANCING,
    DFS_RULE_GPU_MEMORY_INCREASE,
    DFS_RULE_OVERALL_SYSTEM_USAGE,
    DFS_RULE__COUNT
} dfs_rule_id;

#define DFS_RULES_MAX_PARAMS 8

/* "IOBottleneck" ... */
const char *dfs_rule_name(dfs_rule_id r);
/* The rule of a name (case-insensitive); false when unknown. */
bool dfs_rule_find(const char *name, size_t len, dfs_rule_id *out);

/* ---- parameters ------------------------------------------------------------------------------ */

typedef enum dfs_rule_param_kind {
    DFS_RP_NUMBER,   /* any finite number */
    DFS_RP_COUNT,    /* an integer >= 0 */
    DFS_RP_POSITIVE, /* an integer >= 1 */
    DFS_RP_SECONDS,  /* a number > 0 */
    DFS_RP_TEXT,     /* a string; "None" is the reference's None */
} dfs_rule_param_kind;

typedef struct dfs_rule_param_info {
    const char *name;
    dfs_rule_param_kind kind;
    double def;      /* default (DFS_RP_TEXT: unused, the default is None) */
    const char *help;
} dfs_rule_param_info;

/* The parameters of a rule, in the order the reference lists them, then dfscope's extras. */
size_t dfs_rule_params(dfs_rule_id r, const dfs_rule_param_info **out);

typedef struct dfs_rules_options {
    dfs_rules_mode mode;
    uint32_t selected; /* bit (1u << dfs_rule_id) per rule to run; 0: all */
    double num[DFS_RULE__COUNT][DFS_RULES_MAX_PARAMS];
    const char *text[DFS_RULE__COUNT][DFS_RULES_MAX_PARAMS]; /* NULL: None; caller-owned */
} dfs_rules_options;

void dfs_rules_options_init(dfs_rules_options *o);
/* "Rule.param=value" (the rule name case-insensitive). Returns false with a message in err when
 * the rule or parameter is unknown or the value does not suit the parameter. */
bool dfs_rules_set_param(dfs_rules_options *o, const char *assignment, char *err, size_t errlen);
/* "LowGPUUtilization,StepOutlier" (or "all"): adds to o->selected. False with a message in err. */
bool dfs_rules_select(dfs_rules_options *o, const char *list, char *err, size_t errlen);

/* ---- details: a small JSON-like tree ---------------------------------------------------------- */

typedef enum dfs_rv_type {
    DFS_RV_NULL,
    DFS_RV_BOOL,
    DFS_RV_INT,
    DFS_RV_NUM, /* a double; not finite prints as null */
    DFS_RV_STR,
    DFS_RV_OBJ,
    DFS_RV_ARR,
} dfs_rv_type;

typedef struct dfs_rv dfs_rv;
struct dfs_rv {
    dfs_rv_type type;
    const char *key; /* member name inside an object, else NULL */
    union {
        bool b;
        int64_t i;
        double d;
        const char *s;
    } as;
    dfs_rv *head, *tail, *next; /* children (OBJ, ARR) in order */
    size_t n;                   /* number of children */
};

/* ---- the result ------------------------------------------------------------------------------ */

typedef struct dfs_rule_result {
    dfs_rule_id id;
    const char *name;
    bool evaluated;          /* the rule's check ran at least once on its inputs */
    const char *reason;      /* why not evaluated, or NULL */
    /* not evaluated for want of values: the parameters that let it run on these inputs
     * ("--param CPUBottleneck.patience=15"), or NULL */
    const char *enable;
    const char *recommendation; /* what to do when it triggers (every rule has one) */
    uint64_t triggered;      /* RuleTriggered */
    uint64_t violations;     /* Violations */
    uint64_t datapoints;     /* Datapoints */
    const char *parameters;  /* RuleParameters, as the reference writes it: "threshold:50\n..." */
    const dfs_rv *details;   /* Details (an object) */
    const char *summary;     /* one line for the table */
    uint64_t windows;        /* scan windows evaluated */
} dfs_rule_result;

typedef struct dfs_rules_result {
    dfs_rules_mode mode;
    uint64_t samples;            /* system samples used */
    uint64_t framework_events;   /* framework events kept */
    uint64_t steps;              /* of them, step events */
    bool has_steps_source;       /* a source that records steps (smdebug framework, Kineto, Composer) */
    bool have_time;              /* some sample or event has a time */
    int64_t first_ns, last_ns;   /* the data's time range (absolute) */
    const char *const *notes;
    size_t nnotes;
    const dfs_rule_result *rules; /* the selected rules, in dfs_rule_id order */
    size_t nrules;
} dfs_rules_result;

typedef struct dfs_rules dfs_rules;

dfs_rules *dfs_rules_new(const dfs_rules_options *o);
void dfs_rules_free(dfs_rules *r);
dfs_consumer *dfs_rules_consumer(dfs_rules *r);
/* After dfs_run_read. NULL when out of memory. The result lives as long as `r`. */
const dfs_rules_result *dfs_rules_finish(dfs_rules *r, const dfs_run *run);

/* Seconds as the decimal text of ns reads back (1591160699.4570894, not the nearest double of
 * ns / 1e9): what Python's float of the written timestamp is. */
double dfs_rules_seconds(int64_t ns);
/* The analysis for its drivers (analyze/common/analysis.h; rules_analysis.c), opt: dfs_rules_options. */
extern const struct dfs_analysis dfs_rules_analysis;
#endif
