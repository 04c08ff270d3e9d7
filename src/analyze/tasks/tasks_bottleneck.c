/* tasks_bottleneck.c - the rows of function_bottleneck and task_bottleneck (spec 4.2, 4.3), and
 * the Resource Usage samples attributed to them (spec 4.2, quirks 3-6).
 *
 * Invariants: rows are made in iteration order and then relabelled worker by worker, so a row's
 * index is DASF's label; the rows' sums are taken in iteration order with Python's arithmetic (the
 * same last bit as DASF); the attribution sorts and sweeps in O(n log n) instead of DASF's scan:
 * the compatible mode gives a sample to the first Compute in iteration order whose window holds
 * it, by function name; the default mode to every function row with a task running on the
 * sample's host then, once per row. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/tasks/tasks_internal.h"
#include "util/u64map.h"
#include "util/vec.h"

/* ---- rows of function_bottleneck and task_bottleneck (spec 4.2, 4.3) -------------------------- */

static bool index_of(dfs_u64map *m, uint64_t key, size_t n, uint32_t *out, bool *created)
{
    *created = !dfs_u64map_get(m, key, out);
    if (!*created)
        return true;
    *out = (uint32_t)n;
    return dfs_u64map_put(m, key, *out);
}

static bool worker_of(dfs_tasks *t, dfs_u64map *m, const tk_compute *c, uint32_t *w)
{
    bool created;
    if (!index_of(m, (uint64_t)c->host << 32 | c->worker, t->workers.n, w, &created))
        return false;
    tk_worker k = {c->host, c->worker, 0, 0};
    return !created || dfs_vec_push(&t->workers, k);
}

static bool fn_row_of(dfs_tasks *t, dfs_u64map *m, uint32_t w, const tk_compute *c, size_t i,
                      uint32_t *r)
{
    bool created;
    if (!index_of(m, (uint64_t)w << 32 | c->name, t->fn.n, r, &created))
        return false;
    fn_row row = {.worker = w, .name = c->name, .first = i,
                  .data_sum = tk_py_int(0), .thr_sum = tk_py_int(0), .util_sum = tk_py_int(0),
                  .mem_sum = tk_py_int(0)};
    return !created || dfs_vec_push(&t->fn, row);
}

static bool task_row_of(dfs_tasks *t, dfs_u64map *m, uint32_t w, const tk_compute *c, size_t i,
                        uint32_t *r)
{
    bool created;
    if (!index_of(m, (uint64_t)w << 32 | c->key, t->tasks.n, r, &created))
        return false;
    task_row row = {.worker = w, .key = c->key, .name = c->name, .first = i};
    return !created || dfs_vec_push(&t->tasks, row);
}

/* Accumulates every Compute event into its rows, in iteration order (DASF's float sums). */
static bool accumulate_rows(dfs_tasks *t, const pynum *input)
{
    dfs_u64map wm, fm, tm, distinct;
    dfs_u64map_init(&wm), dfs_u64map_init(&fm), dfs_u64map_init(&tm), dfs_u64map_init(&distinct);
    const part *p = &t->total;
    bool ok = true, clean = t->opt.mode == DFS_TASKS_DEFAULT;
    for (size_t i = 0; ok && i < p->computes.n; i++) {
        const tk_compute *c = &p->computes.v[i];
        uint32_t w, f, k, unused, node = t->compute_node[i];
        bool is_new = false;
        ok = worker_of(t, &wm, c, &w) && fn_row_of(t, &fm, w, c, i, &f) &&
             task_row_of(t, &tm, w, c, i, &k) &&
             (!clean || index_of(&distinct, (uint64_t)f << 32 | c->key, 0, &unused, &is_new));
        if (!ok)
            break;
        fn_row *fr = &t->fn.v[f];
        fr->dur += c->dur;
        fr->count++;
        fr->distinct += is_new;
        fr->data_sum = tk_py_add(fr->data_sum, input[node]);
        fr->thr_sum = tk_py_add(fr->thr_sum, tk_py_float(t->nodes[node].throughput));
        t->compute_fn[i] = f;
        t->tasks.v[k].dur += c->dur;
        t->tasks.v[k].count++;
    }
    dfs_u64map_free(&wm), dfs_u64map_free(&fm), dfs_u64map_free(&tm), dfs_u64map_free(&distinct);
    return ok;
}

/* DASF's rows: worker by worker (first Compute of each), within a worker by first appearance.
 * Rows are created in order of first appearance, so a stable bucketing by worker gives that
 * order in linear time. Row index = DASF's label afterwards; map_out (if any) maps old -> new. */
static bool relabel(void *rows, size_t n, size_t size, size_t nworkers, uint32_t (*worker)(const void *),
                    uint32_t *map_out)
{
    if (n == 0)
        return true;
    size_t *start = calloc(nworkers + 1, sizeof *start);
    char *copy = malloc(n * size);
    if (!start || !copy) {
        free(start), free(copy);
        return false;
    }
    memcpy(copy, rows, n * size);
    for (size_t i = 0; i < n; i++)
        start[worker(copy + i * size) + 1]++;
    for (size_t w = 0; w < nworkers; w++)
        start[w + 1] += start[w];
    for (size_t i = 0; i < n; i++) {
        size_t to = start[worker(copy + i * size)]++;
        memcpy((char *)rows + to * size, copy + i * size, size);
        if (map_out)
            map_out[i] = (uint32_t)to;
    }
    free(start), free(copy);
    return true;
}

static uint32_t fn_worker(const void *r) { return ((const fn_row *)r)->worker; }
static uint32_t task_worker(const void *r) { return ((const task_row *)r)->worker; }

/* Per-worker totals: Python's sum() over the worker's rows in row order. */
static uint64_t worker_totals(dfs_tasks *t)
{
    for (size_t i = 0; i < t->fn.n; i++)
        t->workers.v[t->fn.v[i].worker].fn_total += t->fn.v[i].dur;
    for (size_t i = 0; i < t->tasks.n; i++)
        t->workers.v[t->tasks.v[i].worker].task_total += t->tasks.v[i].dur;
    uint64_t zero = 0;
    for (size_t i = 0; i < t->workers.n; i++)
        zero += t->workers.v[i].fn_total == 0;
    return zero;
}

bool tk_build_rows(dfs_tasks *t, const pynum *input)
{
    size_t n = t->total.computes.n;
    uint32_t *map = NULL;
    t->compute_fn = malloc((n ? n : 1) * sizeof *t->compute_fn);
    bool ok = t->compute_fn && accumulate_rows(t, input) &&
              (map = malloc((t->fn.n ? t->fn.n : 1) * sizeof *map)) != NULL &&
              relabel(t->fn.v, t->fn.n, sizeof *t->fn.v, t->workers.n, fn_worker, map) &&
              relabel(t->tasks.v, t->tasks.n, sizeof *t->tasks.v, t->workers.n, task_worker, NULL);
    if (ok)
        for (size_t i = 0; i < n; i++)
            t->compute_fn[i] = map[t->compute_fn[i]];
    free(map);
    if (!ok)
        return false;
    tk_count_note(t, worker_totals(t),
                  "worker(s) with a total duration of 0: percentages 0 (DASF fails on them)");
    return true;
}

/* ---- resource attribution (spec 4.2, quirks 3-6) ---------------------------------------------- */

#define NO_MATCH UINT32_MAX

typedef struct window {
    double lo;
    uint32_t idx; /* Compute index = iteration order */
} window;

static int cmp_window(const void *a, const void *b)
{
    const window *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_sample_time(const void *a, const void *b, void *ctx)
{
    const tk_sample *s = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (s[i].t != s[j].t)
        return s[i].t < s[j].t ? -1 : 1;
    return (i > j) - (i < j);
}

/* A binary min-heap of Compute indexes: the active window that comes first in iteration order. */
typedef struct heap {
    uint32_t *v;
    size_t n;
} heap;

static void heap_push(heap *h, uint32_t x)
{
    size_t i = h->n++;
    while (i > 0 && h->v[(i - 1) / 2] > x) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = x;
}

static void heap_pop(heap *h)
{
    uint32_t x = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1] < h->v[c])
            c++;
        if (h->v[c] >= x)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = x;
}

static double window_end(const tk_compute *c) { return c->end + c->dur; }

/* DASF's join without its O(samples x events) scan: windows [end, end + duration] sorted by start,
 * samples by time; a window enters the heap when it starts and leaves once it has ended (lazily:
 * an ended window below the top is dropped when it surfaces, and stays ended for later samples). */
static bool sweep_first_match(const part *p, uint32_t *match)
{
    size_t nc = p->computes.n, ns = p->samples.n, nw = 0, no = 0;
    window *w = malloc((nc ? nc : 1) * sizeof *w);
    uint32_t *order = malloc((ns ? ns : 1) * sizeof *order);
    heap h = {malloc((nc ? nc : 1) * sizeof(uint32_t)), 0};
    if (!w || !order || !h.v) {
        free(w), free(order), free(h.v);
        return false;
    }
    for (size_t i = 0; i < nc; i++) {
        const tk_compute *c = &p->computes.v[i];
        if (!isnan(c->end) && !isnan(window_end(c)) && window_end(c) >= c->end)
            w[nw++] = (window){c->end, (uint32_t)i};
    }
    tk_sort_any(w, nw, sizeof *w, cmp_window);
    for (size_t i = 0; i < ns; i++) {
        match[i] = NO_MATCH;
        if (!isnan(p->samples.v[i].t))
            order[no++] = (uint32_t)i;
    }
    tk_sort_ctx(order, no, sizeof *order, cmp_sample_time, p->samples.v);
    size_t next = 0;
    for (size_t k = 0; k < no; k++) {
        double t = p->samples.v[order[k]].t;
        while (next < nw && w[next].lo <= t)
            heap_push(&h, w[next++].idx);
        while (h.n && window_end(&p->computes.v[h.v[0]]) < t)
            heap_pop(&h);
        if (h.n)
            match[order[k]] = h.v[0];
    }
    free(w), free(order), free(h.v);
    return true;
}

gpu_stat *tk_gpu_stat_of(dfs_tasks *t, dfs_str name, bool create)
{
    uint32_t i;
    if (dfs_u64map_get(&t->gpu_index, name, &i))
        return &t->gpu_stats.v[i];
    gpu_stat s = {tk_py_int(0), tk_py_int(0), 0, 0};
    if (!create || !dfs_vec_push(&t->gpu_stats, s) ||
        !dfs_u64map_put(&t->gpu_index, name, (uint32_t)(t->gpu_stats.n - 1)))
        return NULL;
    return &t->gpu_stats.v[t->gpu_stats.n - 1];
}

/* Compatible mode: each sample to the function name of the first Compute (in iteration order)
 * whose window holds it, globally; the lists grow in sample order as DASF appends them. */
static bool attribute_compat(dfs_tasks *t)
{
    const part *p = &t->total;
    uint32_t *match = malloc((p->samples.n ? p->samples.n : 1) * sizeof *match);
    if (!match || !sweep_first_match(p, match)) {
        free(match);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < p->samples.n; i++) {
        if (match[i] == NO_MATCH)
            continue;
        const tk_sample *s = &p->samples.v[i];
        t->result.samples_attributed++;
        gpu_stat *g = tk_gpu_stat_of(t, p->computes.v[match[i]].name, true);
        if (!(ok = g != NULL))
            break;
        if (s->has & HAS_UTIL)
            g->util_sum = tk_py_add(g->util_sum, s->util), g->util_n++;
        if (s->has & HAS_MEM)
            g->mem_sum = tk_py_add(g->mem_sum, s->mem), g->mem_n++;
    }
    free(match);
    t->gpu_int_column = true;
    for (size_t i = 0; ok && i < t->fn.n; i++) {
        const gpu_stat *g = tk_gpu_stat_of(t, t->fn.v[i].name, false);
        if (g && g->util_n)
            t->gpu_int_column = false;
    }
    return ok;
}

/* Default mode: samples sorted by (host, time) with prefix sums; each function row's task
 * intervals [end - duration, end] merged, so a sample counts once per row that ran during it. */
typedef struct host_sample {
    uint32_t host;
    double t;
    uint32_t idx;
} host_sample;

typedef struct row_window {
    uint32_t row, host;
    double lo, hi;
} row_window;

static int cmp_host_sample(const void *a, const void *b)
{
    const host_sample *x = a, *y = b;
    if (x->host != y->host)
        return x->host < y->host ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_row_window(const void *a, const void *b)
{
    const row_window *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* First position in hs[0..n) at or after (host, t) (after, when `after`). */
static size_t sample_bound(const host_sample *hs, size_t n, uint32_t host, double t, bool after)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        bool before = hs[mid].host < host || (hs[mid].host == host && (after ? hs[mid].t <= t : hs[mid].t < t));
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct prefix {
    double *util, *mem;
    uint64_t *util_n, *mem_n;
    int32_t *cover;
} prefix;

static bool build_prefix(const part *p, host_sample *hs, size_t n, prefix *x)
{
    x->util = malloc((n + 1) * sizeof *x->util);
    x->mem = malloc((n + 1) * sizeof *x->mem);
    x->util_n = malloc((n + 1) * sizeof *x->util_n);
    x->mem_n = malloc((n + 1) * sizeof *x->mem_n);
    x->cover = calloc(n + 1, sizeof *x->cover);
    if (!x->util || !x->mem || !x->util_n || !x->mem_n || !x->cover)
        return false;
    x->util[0] = x->mem[0] = 0;
    x->util_n[0] = x->mem_n[0] = 0;
    for (size_t k = 0; k < n; k++) {
        const tk_sample *s = &p->samples.v[hs[k].idx];
        bool u = s->has & HAS_UTIL, m = s->has & HAS_MEM;
        x->util[k + 1] = x->util[k] + (u ? tk_py_double(s->util) : 0);
        x->util_n[k + 1] = x->util_n[k] + u;
        x->mem[k + 1] = x->mem[k] + (m ? tk_py_double(s->mem) : 0);
        x->mem_n[k + 1] = x->mem_n[k] + m;
    }
    return true;
}

static void prefix_free(prefix *x)
{
    free(x->util), free(x->mem), free(x->util_n), free(x->mem_n), free(x->cover);
}

static void credit_interval(dfs_tasks *t, const host_sample *hs, size_t n, const prefix *x,
                            const row_window *w)
{
    size_t a = sample_bound(hs, n, w->host, w->lo, false), b = sample_bound(hs, n, w->host, w->hi, true);
    if (a >= b)
        return;
    fn_row *r = &t->fn.v[w->row];
    r->util_sum = tk_py_float(tk_py_double(r->util_sum) + (x->util[b] - x->util[a]));
    r->mem_sum = tk_py_float(tk_py_double(r->mem_sum) + (x->mem[b] - x->mem[a]));
    r->util_n += x->util_n[b] - x->util_n[a];
    r->mem_n += x->mem_n[b] - x->mem_n[a];
    x->cover[a]++;
    x->cover[b]--;
}

static size_t row_windows(const dfs_tasks *t, row_window *w)
{
    const part *p = &t->total;
    size_t nw = 0;
    for (size_t i = 0; i < p->computes.n; i++) {
        const tk_compute *c = &p->computes.v[i];
        double lo = c->end - c->dur;
        if (!isnan(lo) && !isnan(c->end) && c->dur >= 0)
            w[nw++] = (row_window){t->compute_fn[i], c->host, lo, c->end};
    }
    tk_sort_any(w, nw, sizeof *w, cmp_row_window);
    return nw;
}

static bool attribute_clean(dfs_tasks *t)
{
    const part *p = &t->total;
    size_t ns = p->samples.n, n = 0;
    host_sample *hs = malloc((ns ? ns : 1) * sizeof *hs);
    row_window *w = malloc((p->computes.n ? p->computes.n : 1) * sizeof *w);
    prefix x = {0};
    bool ok = hs && w;
    for (size_t i = 0; ok && i < ns; i++)
        if (!isnan(p->samples.v[i].t))
            hs[n++] = (host_sample){p->samples.v[i].host, p->samples.v[i].t, (uint32_t)i};
    if (ok) {
        tk_sort_any(hs, n, sizeof *hs, cmp_host_sample);
        ok = build_prefix(p, hs, n, &x);
    }
    size_t nw = ok ? row_windows(t, w) : 0;
    for (size_t i = 0; i < nw;) { /* merge each row's overlapping intervals */
        row_window cur = w[i++];
        for (; i < nw && w[i].row == cur.row && w[i].lo <= cur.hi; i++)
            cur.hi = w[i].hi > cur.hi ? w[i].hi : cur.hi;
        credit_interval(t, hs, n, &x, &cur);
    }
    int64_t cover = 0;
    for (size_t k = 0; ok && k < n; k++)
        t->result.samples_attributed += (cover += x.cover[k]) > 0;
    prefix_free(&x);
    free(hs), free(w);
    return ok;
}

bool tk_attribute_samples(dfs_tasks *t)
{
    const tk_counts *n = &t->total.n;
    dfs_tasks_result *r = &t->result;
    r->gpu_available = r->samples > n->sample_no_gpu;
    bool ok = t->opt.mode == DFS_TASKS_COMPAT ? attribute_compat(t) : attribute_clean(t);
    if (r->legacy || !(r->analyses & (DFS_TASKS_FUNCTION | DFS_TASKS_TASK)))
        return ok;
    if (r->samples == 0)
        tk_note(t, "no Resource Usage samples: the GPU columns are %s",
                t->opt.mode == DFS_TASKS_COMPAT ? "0" : "unavailable");
    else if (!r->gpu_available)
        tk_note(t, "CPU-only trace: no Resource Usage sample has gpu_utilization or gpu_memory_used; "
                "GPU columns unavailable%s", t->opt.mode == DFS_TASKS_COMPAT ? " (shown as 0; DASF fails here)" : "");
    else if (n->sample_no_gpu || n->sample_gpu_partial)
        tk_note(t, "%llu Resource Usage sample(s) lack gpu_utilization or gpu_memory_used: they add nothing to that column",
                (unsigned long long)(n->sample_no_gpu + n->sample_gpu_partial));
    if (r->samples)
        tk_note(t, "%llu of %llu Resource Usage samples attributed to a task (%s)",
                (unsigned long long)r->samples_attributed, (unsigned long long)r->samples,
                t->opt.mode == DFS_TASKS_COMPAT
                 ? "DASF's window [timestamp, timestamp + duration] after the task end, first Compute in file order, by function name"
                 : "the task's own interval [end - duration, end] on the same host, every task running then, per worker");
    return ok;
}
