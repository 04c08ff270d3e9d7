/* tasks_tables.c - the result tables of the task analyses: their columns, types as DASF's pandas
 * infers them, row labels and cells, read on demand from the rows the other steps built.
 *
 * Invariants: tk_make_tables puts the rows in output order once (duration descending, NaN last,
 * ties in creation order: a stable sort, spec quirk 12); from then on the tables only read the
 * analysis, making each cell when asked; the compatible mode shows DASF's columns only, the first
 * ones of each table. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/tasks/tasks_internal.h"

/* ---- tables ----------------------------------------------------------------------------------- */

static const char *const fn_cols[] = {
    "Host", "GPU", "Function", "Duration (s)", "Percentage of total time (%)",
    "Mean GPU Utilization (%)", "Mean GPU Memory Used (GB)", "Mean Data Size (MB)",
    "Mean Throughput (MB/s)", "Num Tasks (chunks)", "Mean Task time (s)",
    /* default mode only (its Function is the event's name, else its key's: never DASF's cut) */
    "Share of job time (%)", "Distinct Keys"};
static const char *const task_cols[] = {
    "Host", "GPU", "Task Key", "Duration (s)", "Percentage of total time (%)", "Memory usage (Mb)",
    /* default mode only */
    "Share of job time (%)", "Executions", "Function"};
static const char *const path_cols[] = {"Task Key", "Function", "Host", "GPU", "Duration (s)",
                                        "Path time (s)"};
static const char *const name_cols[] = {"Name", "Count", "Total Duration (s)", "Mean Duration (s)",
                                        "Percentage of total time (%)"};

static const dfs_tk_type fn_types_compat[] = {DFS_TK_TEXT, DFS_TK_TEXT, DFS_TK_TEXT, DFS_TK_FLOAT,
                                        DFS_TK_FLOAT, DFS_TK_FLOAT, DFS_TK_FLOAT, DFS_TK_FLOAT,
                                        DFS_TK_FLOAT, DFS_TK_INT, DFS_TK_FLOAT, DFS_TK_FLOAT,
                                        DFS_TK_INT, DFS_TK_TEXT};

#define FN_COMPAT_COLS 11
#define TASK_COMPAT_COLS 6

static void cell_text(dfs_tk_cell *o, const char *s, size_t n)
{
    o->s = s;
    o->len = n;
}

static void cell_label(const dfs_tasks *t, uint32_t label, dfs_tk_cell *o)
{
    o->s = dfs_tasks_str(t, label, &o->len);
}

static void cell_host(const dfs_tasks *t, uint32_t label, dfs_tk_cell *o)
{
    cell_label(t, label, o);
    if (t->host_int)
        o->i = strtoll(o->s, NULL, 10);
}

/* DASF: thread_id.split("-")[-1]. */
static void cell_gpu(const dfs_tasks *t, uint32_t label, dfs_tk_cell *o)
{
    size_t n;
    const char *s = dfs_tasks_str(t, label, &n), *dash = memrchr(s, '-', n);
    if (dash)
        cell_text(o, dash + 1, n - (size_t)(dash + 1 - s));
    else
        cell_text(o, s, n);
}

static double percent(double share, double whole) { return whole == 0 ? 0 : share / whole * 100; }

static double job_total(const dfs_tasks *t)
{
    double sum = 0;
    for (size_t i = 0; i < t->workers.n; i++)
        sum += t->workers.v[i].fn_total;
    return sum;
}

/* Mean GPU columns: DASF's per-name lists (compatible) or the row's own samples (default). */
static void cell_gpu_mean(const dfs_tasks *t, const fn_row *r, bool util, dfs_tk_cell *o)
{
    pynum sum = util ? r->util_sum : r->mem_sum;
    uint64_t n = util ? r->util_n : r->mem_n;
    if (t->opt.mode == DFS_TASKS_COMPAT) {
        const gpu_stat *g = tk_gpu_stat_of((dfs_tasks *)t, r->name, false);
        sum = g ? (util ? g->util_sum : g->mem_sum) : tk_py_int(0);
        n = g ? (util ? g->util_n : g->mem_n) : 0;
    } else if (!t->result.gpu_available) {
        o->missing = true;
        return;
    }
    double mean = n ? tk_py_double(sum) / (double)n : 0;
    o->f = util ? mean : mean / 1e9;
    o->i = 0; /* the integer 0 of an empty list, when the column stays integer */
}

static void fn_cell(const dfs_tk_table *tab, size_t row, size_t col, dfs_tk_cell *o)
{
    const dfs_tasks *t = tab->ctx;
    const fn_row *r = &t->fn.v[t->fn_order[row]];
    const tk_worker *w = &t->workers.v[r->worker];
    double count = (double)r->count;
    switch (col) {
    case 0: cell_host(t, w->host, o); break;
    case 1: cell_gpu(t, w->worker, o); break;
    case 2: cell_label(t, r->name, o); break;
    case 3: o->f = r->dur; break;
    case 4: o->f = percent(r->dur, w->fn_total); break;
    case 5: cell_gpu_mean(t, r, true, o); break;
    case 6: cell_gpu_mean(t, r, false, o); break;
    case 7: o->f = tk_py_double(r->data_sum) / count / 1e6; break;
    case 8: o->f = tk_py_double(r->thr_sum) / count / 1e6; break;
    case 9: o->i = (int64_t)r->count; break;
    case 10: o->f = r->dur / count; break;
    case 11: o->f = percent(r->dur, job_total(t)); break;
    default: o->i = (int64_t)r->distinct; break;
    }
}

static void task_cell(const dfs_tk_table *tab, size_t row, size_t col, dfs_tk_cell *o)
{
    const dfs_tasks *t = tab->ctx;
    const task_row *r = &t->tasks.v[row];
    const tk_worker *w = &t->workers.v[r->worker];
    switch (col) {
    case 0: cell_host(t, w->host, o); break;
    case 1: cell_gpu(t, w->worker, o); break;
    case 2: cell_label(t, r->key, o); break;
    case 3: o->f = r->dur; break;
    case 4: o->f = percent(r->dur, w->task_total); break;
    case 5: o->f = r->mem / 1e6; break;
    case 6: o->f = percent(r->dur, job_total(t)); break;
    case 7: o->i = (int64_t)r->count; break;
    default: cell_label(t, r->name, o); break;
    }
}

static void balance_cell(const dfs_tk_table *tab, size_t row, size_t col, dfs_tk_cell *o)
{
    const dfs_tasks *t = tab->ctx;
    if (col == 0) {
        int64_t slot = t->bal_fill ? (int64_t)row : t->bal_rows[row];
        o->i = slot;
        o->f = (double)slot * (t->opt.bucket_s > 0 ? t->opt.bucket_s : 1);
        return;
    }
    pynum v;
    if (!tk_balance_value(t, row, col - 1, &v))
        v = tk_py_int(0);
    o->i = v.is_int ? v.v.i : (int64_t)v.v.f;
    o->f = tk_py_double(v);
}

static void path_cell(const dfs_tk_table *tab, size_t row, size_t col, dfs_tk_cell *o)
{
    const dfs_tasks *t = tab->ctx;
    const dfs_tasks_node *n = &t->nodes[t->path[row]];
    uint32_t last = t->node_last[t->path[row]];
    const tk_compute *c = last == UINT32_MAX ? NULL : &t->total.computes.v[last];
    switch (col) {
    case 0: cell_label(t, n->key, o); break;
    case 1: cell_label(t, n->name, o); break;
    case 2: c ? cell_label(t, c->host, o) : cell_text(o, "", 0); break;
    case 3: c ? cell_gpu(t, c->worker, o) : cell_text(o, "", 0); break;
    case 4: o->f = tk_node_weight(n); break;
    default: o->f = t->path_end[row]; break;
    }
}

static void name_cell(const dfs_tk_table *tab, size_t row, size_t col, dfs_tk_cell *o)
{
    const dfs_tasks *t = tab->ctx;
    const name_row *r = &t->names.v[row];
    switch (col) {
    case 0: cell_label(t, r->name, o); break;
    case 1: o->i = (int64_t)r->count; break;
    case 2: o->f = (double)r->dur_ns / 1e9; break;
    case 3: o->f = (double)r->dur_ns / 1e9 / (double)r->count; break;
    default: o->f = percent((double)r->dur_ns, (double)t->names_total_ns); break;
    }
}

static int64_t fn_label(const dfs_tk_table *tab, size_t row)
{
    return ((const dfs_tasks *)tab->ctx)->fn_order[row];
}

static int64_t task_label(const dfs_tk_table *tab, size_t row)
{
    return ((const dfs_tasks *)tab->ctx)->tasks.v[row].label;
}

static int64_t balance_label(const dfs_tk_table *tab, size_t row)
{
    const dfs_tasks *t = tab->ctx;
    return t->bal_fill ? (int64_t)row : t->bal_labels[row];
}

static int64_t row_label(const dfs_tk_table *tab, size_t row)
{
    (void)tab;
    return (int64_t)row;
}

/* Duration descending, NaN last, ties in creation order (a stable sort, spec quirk 12). */
typedef struct by_duration {
    double dur;
    uint32_t idx;
} by_duration;

static int cmp_by_duration(const void *a, const void *b)
{
    const by_duration *x = a, *y = b;
    if (x->dur != y->dur) {
        if (isnan(x->dur) || isnan(y->dur))
            return isnan(x->dur) ? 1 : -1;
        return x->dur > y->dur ? -1 : 1;
    }
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The output order of rows whose durations are dur[k * stride] (bytes). */
static uint32_t *sorted_order(const void *rows, size_t n, size_t stride, size_t dur_offset)
{
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    by_duration *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!order || !keys) {
        free(order), free(keys);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(&keys[i].dur, (const char *)rows + i * stride + dur_offset, sizeof(double));
        keys[i].idx = (uint32_t)i;
    }
    tk_sort_any(keys, n, sizeof *keys, cmp_by_duration);
    for (size_t i = 0; i < n; i++)
        order[i] = keys[i].idx;
    free(keys);
    return order;
}

/* Task tables run to a million rows: they are put in output order once, so that writing them
 * reads memory in sequence. */
static bool tasks_in_output_order(dfs_tasks *t)
{
    size_t n = t->tasks.n;
    uint32_t *order = sorted_order(t->tasks.v, n, sizeof *t->tasks.v, offsetof(task_row, dur));
    task_row *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!order || !sorted) {
        free(order), free(sorted);
        return false;
    }
    const part *p = &t->total;
    for (size_t i = 0; i < n; i++) {
        task_row *r = &t->tasks.v[i];
        r->label = (uint32_t)i;
        r->mem = tk_py_double(p->computes.v[t->node_last[t->compute_node[r->first]]].size);
    }
    for (size_t i = 0; i < n; i++)
        sorted[i] = t->tasks.v[order[i]];
    free(t->tasks.v);
    t->tasks.v = sorted;
    t->tasks.cap = n;
    free(order);
    return true;
}

static void set_table(dfs_tk_table *tab, const char *title, const char *name, size_t ncols,
                      const char *const *cols, const dfs_tk_type *types, size_t nrows,
                      int64_t (*label)(const dfs_tk_table *, size_t),
                      void (*cell)(const dfs_tk_table *, size_t, size_t, dfs_tk_cell *),
                      const dfs_tasks *t)
{
    *tab = (dfs_tk_table){title, name, ncols, cols, types, nrows, label, cell, t,
                          .show_index = t->opt.mode == DFS_TASKS_COMPAT};
}

bool tk_make_tables(dfs_tasks *t)
{
    static const dfs_tk_type task_types_text[] = {DFS_TK_TEXT, DFS_TK_TEXT, DFS_TK_TEXT,
                                                  DFS_TK_FLOAT, DFS_TK_FLOAT, DFS_TK_FLOAT,
                                                  DFS_TK_FLOAT, DFS_TK_INT, DFS_TK_TEXT};
    static const dfs_tk_type task_types_int[] = {DFS_TK_INT, DFS_TK_TEXT, DFS_TK_TEXT,
                                                 DFS_TK_FLOAT, DFS_TK_FLOAT, DFS_TK_FLOAT,
                                                 DFS_TK_FLOAT, DFS_TK_INT, DFS_TK_TEXT};
    static const dfs_tk_type path_types[] = {DFS_TK_TEXT, DFS_TK_TEXT, DFS_TK_TEXT, DFS_TK_TEXT,
                                             DFS_TK_FLOAT, DFS_TK_FLOAT};
    static const dfs_tk_type name_types[] = {DFS_TK_TEXT, DFS_TK_INT, DFS_TK_FLOAT, DFS_TK_FLOAT,
                                             DFS_TK_FLOAT};
    bool compat = t->opt.mode == DFS_TASKS_COMPAT;
    t->fn_order = sorted_order(t->fn.v, t->fn.n, sizeof *t->fn.v, offsetof(fn_row, dur));
    if (!t->fn_order || !tasks_in_output_order(t))
        return false;
    memcpy(t->fn_types, fn_types_compat, sizeof t->fn_types);
    t->fn_types[0] = t->host_int ? DFS_TK_INT : DFS_TK_TEXT;
    t->fn_types[5] = compat && t->gpu_int_column ? DFS_TK_INT : DFS_TK_FLOAT;
    dfs_tasks_result *r = &t->result;
    set_table(&r->function, "Function bottleneck", "function_bottleneck",
              compat ? FN_COMPAT_COLS : sizeof fn_cols / sizeof *fn_cols, fn_cols, t->fn_types,
              t->fn.n, fn_label, fn_cell, t);
    set_table(&r->task, "Task bottleneck", "task_bottleneck",
              compat ? TASK_COMPAT_COLS : sizeof task_cols / sizeof *task_cols, task_cols,
              t->host_int ? task_types_int : task_types_text, t->tasks.n, task_label, task_cell, t);
    set_table(&r->balance, "Task balance", "task_balance", t->nbal_cols + 1, t->bal_names,
              t->bal_types, t->nbal_rows, balance_label, balance_cell, t);
    set_table(&r->critical, "Critical path", "critical_path", sizeof path_cols / sizeof *path_cols,
              path_cols, path_types, t->npath, row_label, path_cell, t);
    set_table(&r->names, "Event durations", "event_durations", sizeof name_cols / sizeof *name_cols,
              name_cols, name_types, t->names.n, row_label, name_cell, t);
    return true;
}
