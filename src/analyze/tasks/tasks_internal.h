/* tasks_internal.h - what the files of the task analyses share (tasks.h): the Python numbers
 * DASF's sums are reproduced with, what is kept of the events, the derived rows, the analysis
 * object, and the steps dfs_tasks_finish runs in order. Not a public interface.
 *
 * The files: tasks.c (the object, its steps in order, notes, labels, name derivation),
 * tasks_read.c (the consumer: what is kept of each event, and the legacy per-name durations),
 * tasks_graph.c (the annotated task graph and its critical path), tasks_bottleneck.c (the rows of
 * function_bottleneck and task_bottleneck, and the resource samples attributed to them),
 * tasks_balance.c (task_balance) and tasks_tables.c (the result tables' columns and cells).
 *
 * Invariants every file relies on: after dfs_tasks_finish's sort, total.computes, total.managed and
 * total.samples are in iteration order (file, then offset), so an index into them is DASF's
 * iteration index; a label is a dfs_str of the run, or with OWN_BIT one of the analysis' own. */
#ifndef DFS_TASKS_INTERNAL_H
#define DFS_TASKS_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/common/stack_key.h"
#include "analyze/tasks/tasks.h"
#include "util/strtab.h"
#include "util/u64map.h"
#include "util/vec.h"

/* Labels (hosts, workers, shapes) are string ids: of the run's table, or with OWN_BIT of the
 * analysis' own table (numbers written as process or thread ids, "None", shapes). */
#define OWN_BIT 0x80000000u
#define MAX_NOTES 24

/* ---- Python numbers --------------------------------------------------------------------------
 * DASF sums sizes and GPU readings with Python's sum(): integers stay exact integers until a float
 * joins. Keeping the distinction gives the same last bit and the same integer/float column types. */

typedef struct pynum {
    union {
        int64_t i;
        double f;
    } v;
    bool is_int;
} pynum;

/* Python's int, Python's float, and a number's value as a float. */
static inline pynum tk_py_int(int64_t i) { return (pynum){.v.i = i, .is_int = true}; }
static inline pynum tk_py_float(double f) { return (pynum){.v.f = f, .is_int = false}; }
static inline double tk_py_double(pynum a) { return a.is_int ? (double)a.v.i : a.v.f; }

/* Python's a + b: exact while both are integers and the sum fits, a float from then on. */
static inline pynum tk_py_add(pynum a, pynum b)
{
    int64_t s;
    if (a.is_int && b.is_int && !__builtin_add_overflow(a.v.i, b.v.i, &s))
        return tk_py_int(s);
    return tk_py_float(tk_py_double(a) + tk_py_double(b));
}

/* ---- what is kept of the events ------------------------------------------------------------- */

typedef struct tk_compute {
    uint64_t offset;
    uint32_t file;
    dfs_str key, name, type;
    uint32_t shape;          /* own label, 0: none */
    uint32_t host, worker;   /* labels */
    uint32_t nin, nout;      /* dependencies, dependents: refs[refs_at ..] */
    uint64_t refs_at;
    double end, dur;         /* the written timestamp (task end) and duration, s */
    pynum size;
} tk_compute;

typedef struct tk_managed {
    uint64_t offset;
    uint32_t file;
    uint32_t host, worker;
    double ts;
    pynum tasks;
} tk_managed;

enum { HAS_UTIL = 1, HAS_MEM = 2 };

typedef struct tk_sample {
    uint64_t offset;
    uint32_t file;
    uint32_t host;
    double t;
    pynum util, mem;
    unsigned has;            /* HAS_UTIL | HAS_MEM */
} tk_sample;

/* Events of other names (legacy traces): durations by name; B/E kept for pairing. */
typedef struct tk_other {
    dfs_str name;
    uint64_t count;
    int64_t dur_ns;
} tk_other;

typedef struct tk_edge_ev {
    uint64_t offset;
    dfs_stack_key stack; /* (pid, tid, name) */
    int64_t ts;
    uint32_t file;
    bool begin;
} tk_edge_ev;

/* Why events were left out or patched, for the notes. */
typedef struct tk_counts {
    uint64_t compute_not_complete, compute_no_time, compute_no_key, compute_no_name, compute_no_size;
    uint64_t compute_bad_ref;
    uint64_t managed_bad, sample_bad_time, sample_no_gpu, sample_gpu_partial;
} tk_counts;

typedef struct tk_ids {
    dfs_str compute, managed, resource, raw_ts, raw_dur, tasks, gpu_util, gpu_mem;
} tk_ids;

/* One reading worker's events (and, merged, the whole run's). */
typedef struct part {
    DFS_VEC(tk_compute) computes;
    DFS_VEC(dfs_str) refs;
    DFS_VEC(tk_managed) managed;
    DFS_VEC(tk_sample) samples;
    DFS_VEC(tk_other) other;
    DFS_VEC(tk_edge_ev) edges;
    dfs_u64map other_index;
    tk_counts n;
    tk_ids ids;
    dfs_strcache *own;
    char *text;              /* scratch for shapes and numbers */
    size_t text_len, text_cap;
    bool failed;             /* out of memory */
    bool dasf_names;         /* a Compute event without args.name is named as DASF does (compat) */
} part;

/* ---- derived structures --------------------------------------------------------------------- */

typedef struct tk_worker {
    uint32_t host, worker;
    double fn_total, task_total; /* Σ of its rows' durations, in row order (DASF's sum()) */
} tk_worker;

typedef struct fn_row {
    uint32_t worker;         /* index in workers */
    dfs_str name;
    uint64_t first;          /* compute index of its first event */
    uint64_t count, distinct;
    double dur;
    pynum data_sum, thr_sum;
    pynum util_sum, mem_sum; /* default mode: this row's samples */
    uint64_t util_n, mem_n;
} fn_row;

typedef struct task_row {
    uint32_t worker;
    dfs_str key, name;
    uint32_t label;          /* creation index, once the rows are in output order */
    uint64_t first, count;
    double dur;
    double mem;              /* args.size of the key's last Compute, anywhere */
} task_row;

typedef struct gpu_stat {    /* compatible mode: per function name, global */
    pynum util_sum, mem_sum;
    uint64_t util_n, mem_n;
} gpu_stat;

typedef struct bal_entry {
    uint32_t col;
    int64_t slot;            /* seconds (or buckets) from the start */
    double ts;
    uint64_t order;          /* iteration index of the winning event */
    uint64_t first;          /* ... and of the first event of its (column, slot) */
    pynum tasks;
} bal_entry;

typedef struct name_row {
    dfs_str name;
    uint64_t count;
    int64_t dur_ns;
} name_row;

struct dfs_tasks {
    dfs_consumer consumer;
    dfs_tasks_options opt;
    dfs_strtab *own;
    part total;
    const dfs_run *run;
    /* graph */
    dfs_tasks_node *nodes;
    size_t nnodes;
    uint32_t *node_last;     /* last Compute of each node, UINT32_MAX when none */
    uint32_t *compute_node;  /* node of each Compute */
    uint32_t *compute_fn;    /* function row of each Compute */
    uint32_t *pred_start, *pred, *succ_start, *succ;
    size_t nedges;
    uint32_t *path;
    size_t npath;
    double *path_end;
    /* tables */
    DFS_VEC(tk_worker) workers;
    DFS_VEC(fn_row) fn;
    DFS_VEC(task_row) tasks;
    uint32_t *fn_order;      /* output order of the function rows */
    dfs_u64map gpu_index;    /* function name -> gpu_stats */
    DFS_VEC(gpu_stat) gpu_stats;
    bool gpu_int_column;     /* compatible: no row got a sample, the GPU column stays integer */
    dfs_tk_type fn_types[14];
    bool host_int;           /* every host is a number: pandas makes Host an integer column */
    /* task_balance */
    uint32_t *bal_cols;      /* column labels, sorted by text */
    size_t nbal_cols;
    bal_entry *bal;          /* sorted by (col, slot) */
    size_t nbal;
    size_t *bal_col_start;
    int64_t *bal_rows;       /* the row slots */
    int64_t *bal_labels;     /* their labels (not with bal_fill: the row number) */
    size_t nbal_rows;
    bool bal_fill;
    const char **bal_names;
    dfs_tk_type *bal_types;
    /* legacy */
    DFS_VEC(name_row) names;
    int64_t names_total_ns;
    /* output */
    char *notes[MAX_NOTES];
    size_t nnotes;
    dfs_tasks_result result;
};

/* Events in iteration order: by file, then by offset in it. */
#define SEQ_CMP(a, b)                                                                              \
    ((a)->file != (b)->file ? ((a)->file < (b)->file ? -1 : 1)                                     \
                            : (a)->offset != (b)->offset ? ((a)->offset < (b)->offset ? -1 : 1) : 0)

/* tasks.c */
/* qsort on an array that may be empty (NULL). */
void tk_sort_any(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* qsort_r on an array that may be empty (NULL). */
void tk_sort_ctx(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *, void *), void *ctx);
/* Adds a note for the reader of the output (the first MAX_NOTES only). */
void tk_note(dfs_tasks *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The note "<count> <what>", when count is not zero. */
void tk_count_note(dfs_tasks *t, uint64_t count, const char *what);
/* qsort_r order of two labels (uint32_t) by their text; ctx is the const dfs_tasks. */
int tk_cmp_label_text(const void *a, const void *b, void *ctx);

/* tasks_read.c */
/* An empty part (a reading worker's events, or the merged total). */
void tk_part_init(part *p);
/* Releases what a part holds (not the part itself). */
void tk_part_free(part *p);
/* Sets t->consumer: the keys the reader must hand over and the hooks that keep the events. */
void tk_consumer_init(dfs_tasks *t);
/* The event_durations rows of legacy traces, B/E paired (after the read). */
bool tk_build_names(dfs_tasks *t);

/* tasks_graph.c */
/* The annotated task graph; *input_out (malloc'd) gets each node's input size as DASF sums it. */
bool tk_build_graph(dfs_tasks *t, pynum **input_out);
/* The longest duration-weighted path of the graph, and the nodes left out on cycles. */
bool tk_critical_path(dfs_tasks *t);
/* A node's weight on the critical path: its duration in s, 0 when unknown or not positive. */
double tk_node_weight(const dfs_tasks_node *n);

/* tasks_bottleneck.c */
/* The function and task rows, from the Compute events and the nodes' input sizes. */
bool tk_build_rows(dfs_tasks *t, const pynum *input);
/* Attributes the Resource Usage samples to the rows (by the mode's rules), with their notes. */
bool tk_attribute_samples(dfs_tasks *t);
/* The compatible mode's GPU readings of a function name; made when `create`, else NULL if none. */
gpu_stat *tk_gpu_stat_of(dfs_tasks *t, dfs_str name, bool create);

/* tasks_balance.c */
/* The task_balance columns, entries and rows, from the Managed Memory events. */
bool tk_build_balance(dfs_tasks *t);
/* The value of worker column c (0-based) at output row r; false when there is none. */
bool tk_balance_value(const dfs_tasks *t, size_t r, size_t c, pynum *out);

/* tasks_tables.c */
/* The result tables: the rows put in output order, columns and types per mode. */
bool tk_make_tables(dfs_tasks *t);
#endif
