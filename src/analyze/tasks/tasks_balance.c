/* tasks_balance.c - task_balance (spec 4.4, quirks 7, 9, 10): the tasks each worker held, from the
 * Managed Memory events, per second (or bucket) from the start.
 *
 * Invariants: columns are the distinct worker labels sorted by text; entries are sorted by
 * (column, slot) and one per pair is kept, the last in iteration order (compatible) or in time
 * (default); row labels follow pandas' construction of DASF's frame (compatible) or count rows. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "analyze/tasks/tasks_internal.h"
#include "util/u64map.h"
#include "util/vec.h"

/* --fill-seconds never makes more rows than this (a clock jump would make billions). */
#define MAX_FILL_ROWS 10000000u

/* ---- task_balance (spec 4.4, quirks 7, 9, 10) ------------------------------------------------- */

/* Compatible: the last event of a (second, worker) in file order wins; default: the last in time. */
static int cmp_bal(const void *a, const void *b, void *ctx)
{
    const bool by_time = *(const bool *)ctx;
    const bal_entry *x = a, *y = b;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    if (by_time && x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The slot of a timestamp: int() truncation (DASF) or floor into buckets; false if unusable. */
static bool slot_of(const dfs_tasks *t, double ts, int64_t *slot)
{
    double v = t->opt.mode == DFS_TASKS_COMPAT ? trunc(ts) : floor(ts / t->opt.bucket_s);
    if (!(v > -9e18 && v < 9e18))
        return false;
    *slot = (int64_t)v;
    return true;
}

/* Columns: the distinct worker labels sorted by text; entries get their column index. */
static bool balance_columns(dfs_tasks *t, bal_entry *e, size_t n, const uint32_t *label)
{
    dfs_u64map cols;
    dfs_u64map_init(&cols);
    t->bal_cols = malloc((n ? n : 1) * sizeof *t->bal_cols);
    bool ok = t->bal_cols != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        uint32_t c;
        if (!dfs_u64map_get(&cols, label[i], &c)) {
            t->bal_cols[t->nbal_cols++] = label[i];
            ok = dfs_u64map_put(&cols, label[i], 0);
        }
    }
    if (ok)
        tk_sort_ctx(t->bal_cols, t->nbal_cols, sizeof *t->bal_cols, tk_cmp_label_text, t);
    for (size_t c = 0; ok && c < t->nbal_cols; c++)
        ok = dfs_u64map_put(&cols, t->bal_cols[c], (uint32_t)c);
    for (size_t i = 0; ok && i < n; i++)
        dfs_u64map_get(&cols, label[i], &e[i].col);
    dfs_u64map_free(&cols);
    return ok;
}

/* Slots from each host's first slot (default) or from the global first one (compatible). */
static bool shift_slots(dfs_tasks *t, bal_entry *e, size_t n, const uint32_t *host)
{
    bool per_host = t->opt.mode == DFS_TASKS_DEFAULT;
    dfs_u64map first;
    dfs_u64map_init(&first);
    DFS_VEC(int64_t) starts = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        uint32_t k, h = per_host ? host[i] : 0;
        if (!dfs_u64map_get(&first, h, &k)) {
            ok = dfs_vec_push(&starts, e[i].slot) && dfs_u64map_put(&first, h, (uint32_t)(starts.n - 1));
        } else if (e[i].slot < starts.v[k]) {
            starts.v[k] = e[i].slot;
        }
    }
    for (size_t i = 0; ok && i < n; i++) {
        uint32_t k;
        dfs_u64map_get(&first, per_host ? host[i] : 0, &k);
        e[i].slot -= starts.v[k];
    }
    dfs_vec_free(&starts);
    dfs_u64map_free(&first);
    return ok;
}

/* Keeps the winner of each (column, slot): the last of its run after sorting. */
static size_t keep_last(bal_entry *e, size_t n)
{
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t first = e[i].order;
        if (out && e[out - 1].col == e[i].col && e[out - 1].slot == e[i].slot) {
            out--;
            first = e[out].first < first ? e[out].first : first;
        }
        e[out] = e[i];
        e[out++].first = first;
    }
    return out;
}

/* DASF's row labels. pandas builds the frame from {second: {worker: tasks}} column by column:
 * workers in order of first appearance (seconds ascending, then first event within a second),
 * rows the union of each worker's seconds in that order (sorted when there is one worker); the
 * label is the position there, kept when the rows are sorted by second. */
typedef struct col_rank {
    uint32_t col;
    int64_t slot;
    uint64_t first;
} col_rank;

static int cmp_col_rank(const void *a, const void *b)
{
    const col_rank *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

static size_t row_of_slot(const dfs_tasks *t, int64_t slot)
{
    size_t lo = 0, hi = t->nbal_rows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->bal_rows[mid] < slot)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool balance_labels(dfs_tasks *t)
{
    t->bal_labels = malloc((t->nbal_rows ? t->nbal_rows : 1) * sizeof *t->bal_labels);
    col_rank *rank = malloc((t->nbal_cols ? t->nbal_cols : 1) * sizeof *rank);
    if (!t->bal_labels || !rank) {
        free(rank);
        return false;
    }
    bool union_order = t->opt.mode == DFS_TASKS_COMPAT && t->nbal_cols > 1;
    for (size_t r = 0; r < t->nbal_rows; r++)
        t->bal_labels[r] = union_order ? -1 : (int64_t)r;
    for (size_t c = 0; c < t->nbal_cols; c++) {
        rank[c] = (col_rank){(uint32_t)c, INT64_MAX, UINT64_MAX};
        for (size_t i = t->bal_col_start[c]; i < t->bal_col_start[c + 1]; i++) {
            col_rank here = {(uint32_t)c, t->bal[i].slot, t->bal[i].first};
            if (cmp_col_rank(&here, &rank[c]) < 0)
                rank[c] = here;
        }
    }
    tk_sort_any(rank, t->nbal_cols, sizeof *rank, cmp_col_rank);
    int64_t next = 0;
    for (size_t k = 0; union_order && k < t->nbal_cols; k++) {
        uint32_t c = rank[k].col;
        for (size_t i = t->bal_col_start[c]; i < t->bal_col_start[c + 1]; i++) {
            size_t r = row_of_slot(t, t->bal[i].slot);
            if (t->bal_labels[r] < 0)
                t->bal_labels[r] = next++;
        }
    }
    free(rank);
    return true;
}

static bool balance_rows(dfs_tasks *t)
{
    size_t n = t->nbal;
    int64_t *slots = malloc((n ? n : 1) * sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < n; i++)
        slots[i] = t->bal[i].slot;
    tk_sort_any(slots, n, sizeof *slots, cmp_i64);
    size_t rows = 0;
    for (size_t i = 0; i < n; i++)
        if (!rows || slots[rows - 1] != slots[i])
            slots[rows++] = slots[i];
    t->bal_rows = slots;
    t->nbal_rows = rows;
    if (!t->opt.fill_seconds || t->opt.mode == DFS_TASKS_COMPAT || !rows)
        return true;
    int64_t last = slots[rows - 1];
    if (last >= (int64_t)MAX_FILL_ROWS) {
        tk_note(t, "--fill-seconds ignored: the Managed Memory events span %lld slots", (long long)last + 1);
        return true;
    }
    t->bal_fill = true;
    t->nbal_rows = (size_t)last + 1;
    return true;
}

static bool balance_types(dfs_tasks *t)
{
    t->bal_col_start = calloc(t->nbal_cols + 1, sizeof *t->bal_col_start);
    t->bal_types = malloc((t->nbal_cols + 1) * sizeof *t->bal_types);
    t->bal_names = malloc((t->nbal_cols + 1) * sizeof *t->bal_names);
    if (!t->bal_col_start || !t->bal_types || !t->bal_names)
        return false;
    for (size_t i = 0; i < t->nbal; i++)
        t->bal_col_start[t->bal[i].col + 1]++;
    for (size_t c = 0; c < t->nbal_cols; c++)
        t->bal_col_start[c + 1] += t->bal_col_start[c];
    bool compat = t->opt.mode == DFS_TASKS_COMPAT;
    t->bal_names[0] = "Time Interval (seconds from begin)";
    t->bal_types[0] = compat || t->opt.bucket_s == 1 ? DFS_TK_INT : DFS_TK_FLOAT;
    for (size_t c = 0; c < t->nbal_cols; c++) {
        size_t a = t->bal_col_start[c], b = t->bal_col_start[c + 1], len;
        bool all_int = true;
        for (size_t i = a; i < b; i++)
            all_int = all_int && t->bal[i].tasks.is_int;
        /* pandas fills a missing second with NaN, which makes the column float */
        bool filled = compat && b - a < t->nbal_rows;
        t->bal_types[c + 1] = all_int && !filled ? DFS_TK_INT : DFS_TK_FLOAT;
        t->bal_names[c + 1] = dfs_tasks_str(t, t->bal_cols[c], &len);
    }
    return true;
}

bool tk_build_balance(dfs_tasks *t)
{
    const part *p = &t->total;
    size_t n = 0;
    t->bal = malloc((p->managed.n ? p->managed.n : 1) * sizeof *t->bal);
    uint32_t *label = malloc((p->managed.n ? p->managed.n : 1) * sizeof *label);
    uint32_t *host = malloc((p->managed.n ? p->managed.n : 1) * sizeof *host);
    bool ok = t->bal && label && host;
    for (size_t i = 0; ok && i < p->managed.n; i++) {
        const tk_managed *m = &p->managed.v[i];
        int64_t slot;
        if (!slot_of(t, m->ts, &slot)) {
            t->total.n.managed_bad++;
            continue;
        }
        t->bal[n] = (bal_entry){0, slot, m->ts, i, i, m->tasks};
        label[n] = m->worker;
        host[n++] = m->host;
    }
    bool by_time = t->opt.mode == DFS_TASKS_DEFAULT;
    ok = ok && balance_columns(t, t->bal, n, label) && shift_slots(t, t->bal, n, host);
    free(label), free(host);
    if (!ok)
        return false;
    tk_sort_ctx(t->bal, n, sizeof *t->bal, cmp_bal, &by_time);
    t->nbal = keep_last(t->bal, n);
    if (!balance_rows(t) || !balance_types(t) || (!t->bal_fill && !balance_labels(t)))
        return false;
    if (n == 0 && (t->result.analyses & DFS_TASKS_BALANCE) && !t->result.legacy)
        tk_note(t, "no Managed Memory events: task_balance has no rows (DASF fails here)");
    return true;
}

/* The value of column c (0-based worker column) at output row r; false when there is none. */
bool tk_balance_value(const dfs_tasks *t, size_t r, size_t c, pynum *out)
{
    int64_t slot = t->bal_fill ? (int64_t)r : t->bal_rows[r];
    size_t lo = t->bal_col_start[c], hi = t->bal_col_start[c + 1];
    while (lo < hi) { /* the first entry after slot */
        size_t mid = lo + (hi - lo) / 2;
        if (t->bal[mid].slot <= slot)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == t->bal_col_start[c])
        return false;
    const bal_entry *e = &t->bal[lo - 1];
    if (!t->bal_fill && e->slot != slot)
        return false;
    *out = e->tasks;
    return true;
}
