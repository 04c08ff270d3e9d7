/* tasks.h - DASF's three task analyses and the annotated task graph (`dfscope tasks`).
 *
 * spec/dasf-tasks.md: function_bottleneck, task_bottleneck and task_balance of DASF's
 * TraceAnalyser, reproduced column for column from `Compute`, `Managed Memory` and `Resource Usage`
 * events, plus the critical path of the task graph (the longest duration-weighted path).
 *
 * Two modes. The compatible mode (--compat dasf) copies DASF's quirks (spec section 5: per-worker
 * percentages, the resource window [end, end + duration] after the task, the first matching Compute
 * in iteration order attributed to the function name globally, integer/float column typing) and
 * gives DASF's numbers to the last bit wherever DASF succeeds. The default mode fixes the bugs: the
 * window is the task's own [end - duration, end], a sample goes to every task of its host running
 * then, per worker; Managed Memory seconds are counted per host; extra columns (job-wide share,
 * distinct keys, a repaired function name). Both modes fix the crashes (CPU-only traces, no Managed
 * Memory events, zero durations, no Compute events, torn records).
 *
 * Iteration order: the events are kept with their (file, offset) and sorted by it, which is DASF's
 * MultiEventDatabase order (files in the order given, each in file order) for any -j.
 * Cost: memory linear in the events kept (Compute, Managed Memory, Resource Usage; everything else
 * is only counted by name); time O(n log n), the resource attribution included (sort and sweep). */
#ifndef DFS_TASKS_H
#define DFS_TASKS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfscope.h"

typedef enum dfs_tasks_mode {
    DFS_TASKS_DEFAULT = 0, /* DASF's bugs fixed */
    DFS_TASKS_COMPAT,      /* DASF's TraceAnalyser, quirks included */
} dfs_tasks_mode;

/* The analyses, in DASF's fixed output order. */
enum {
    DFS_TASKS_FUNCTION = 1u << 0, /* function_bottleneck */
    DFS_TASKS_TASK = 1u << 1,     /* task_bottleneck */
    DFS_TASKS_BALANCE = 1u << 2,  /* task_balance */
    DFS_TASKS_CRITICAL = 1u << 3, /* critical_path (not in DASF) */
    DFS_TASKS_ALL = 0xf,
};

/* "function_bottleneck" ... "critical_path" -> DFS_TASKS_x; 0 when unknown. */
unsigned dfs_tasks_analysis_bit(const char *name);
/* The name of analysis i (its bit is 1 << i), or NULL past the last one. */
const char *dfs_tasks_analysis_name(unsigned i);

typedef struct dfs_tasks_options {
    dfs_tasks_mode mode;
    unsigned analyses;  /* DFS_TASKS_* bits; 0: DASF's three (compat) or all four (default) */
    bool fill_seconds;  /* default mode: task_balance rows for every second, values carried forward */
    double bucket_s;    /* default mode: task_balance bucket in seconds (0: 1 s) */
    bool graph_attrs;   /* also read args.shape and args.type (only the graph export shows them) */
} dfs_tasks_options;

void dfs_tasks_options_init(dfs_tasks_options *o);

/* ---- result tables ------------------------------------------------------------------------- */

typedef enum dfs_tk_type {
    DFS_TK_TEXT,
    DFS_TK_INT,
    DFS_TK_FLOAT,
} dfs_tk_type;

typedef struct dfs_tk_cell {
    bool missing;     /* not available (e.g. GPU columns of a CPU-only trace) */
    const char *s;    /* TEXT */
    size_t len;
    int64_t i;        /* INT */
    double f;         /* FLOAT (NaN prints as NaN) */
    char buf[32];     /* backing store for s when the text is made on the fly */
} dfs_tk_cell;

typedef struct dfs_tk_table dfs_tk_table;

struct dfs_tk_table {
    const char *title;        /* "Function bottleneck" (the report banner) */
    const char *name;         /* "function_bottleneck" (CSV file stem, JSON key) */
    size_t ncols;
    const char *const *cols;  /* column names */
    const dfs_tk_type *types; /* column types as DASF's pandas infers them */
    size_t nrows;             /* rows, in output order */
    /* The row label (DASF's DataFrame index) and the cells of output row `row`. */
    int64_t (*label)(const dfs_tk_table *t, size_t row);
    void (*cell)(const dfs_tk_table *t, size_t row, size_t col, dfs_tk_cell *out);
    const void *ctx;
    /* Tables and CSV show the row label as DASF's pandas does (compat); the default leaves out
     * that shuffled index, which means nothing to a reader (JSON always has it as "label"). */
    bool show_index;
};

/* ---- the annotated task graph ---------------------------------------------------------------- */

typedef struct dfs_tasks_node {
    dfs_str key;
    bool has_attrs;         /* a Compute event named it (not only referenced) */
    bool on_path;           /* on the critical path */
    dfs_str name, type;     /* args.name, args.type of its last Compute event */
    const char *shape;      /* args.shape as text, e.g. "[100, 100]"; "" when none */
    double size;            /* bytes (args.size of the last Compute event) */
    double duration;        /* s (of the last Compute event) */
    double input_size;      /* bytes: sum of the sizes of its distinct predecessors */
    double throughput;      /* bytes/s: input_size / duration (0 when the duration is 0) */
} dfs_tasks_node;

typedef struct dfs_tasks_graph {
    const dfs_tasks_node *nodes;
    size_t nnodes;
    const uint32_t *succ_start; /* CSR: successors of node i are succ[succ_start[i]..[i+1]) */
    const uint32_t *succ;
    size_t nedges;
} dfs_tasks_graph;

/* ---- the result ---------------------------------------------------------------------------- */

typedef struct dfs_tasks_result {
    dfs_tasks_mode mode;
    unsigned analyses;            /* what ran (DFS_TASKS_*) */
    bool legacy;                  /* no Compute / Managed Memory / Resource Usage at all: `names` */
    bool gpu_available;           /* some Resource Usage sample has gpu_utilization/gpu_memory_used */
    uint64_t computes;            /* Compute events used */
    uint64_t managed;             /* Managed Memory events used */
    uint64_t samples;             /* Resource Usage events */
    uint64_t samples_attributed;  /* samples attributed to at least one task */
    /* Critical path */
    double path_seconds;          /* its length: sum of the durations on it */
    size_t path_tasks;
    size_t cycle_nodes;           /* tasks in dependency cycles, left out of the path */
    const char *const *notes;     /* what the reader of the output must know (warnings included) */
    size_t nnotes;
    dfs_tk_table function, task, balance, critical, names;
    dfs_tasks_graph graph;
} dfs_tasks_result;

typedef struct dfs_tasks dfs_tasks;

dfs_tasks *dfs_tasks_new(const dfs_tasks_options *o);
void dfs_tasks_free(dfs_tasks *t);
dfs_consumer *dfs_tasks_consumer(dfs_tasks *t);
/* After dfs_run_read. NULL when out of memory. The result lives as long as `t` and `run`. */
const dfs_tasks_result *dfs_tasks_finish(dfs_tasks *t, const dfs_run *run);
/* Text of a string or label id used in the tables (host and worker labels may be numbers). */
const char *dfs_tasks_str(const dfs_tasks *t, dfs_str s, size_t *len);

/* Helpers shared with the tests. */
/* DASF's function-name derivation (spec 3.4) into buf; returns the length. */
size_t dfs_tasks_dasf_name(const char *key, size_t len, char *buf, size_t cap);
/* The repaired name of the default mode: tuple punctuation and a trailing hex or uuid token gone. */
size_t dfs_tasks_repaired_name(const char *key, size_t len, char *buf, size_t cap);
/* The analysis for its drivers (analyze/common/analysis.h; tasks_analysis.c), opt: dfs_tasks_options. */
extern const struct dfs_analysis dfs_tasks_analysis;
#endif
