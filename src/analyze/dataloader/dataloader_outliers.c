/* dataloader_outliers.c - the analyses of §1.3 and their windows: count, median, max and outliers
 * (>= 2 x the median) of iterator initializations, worker processes, GetNext calls and batch time,
 * then the window report of each outlier, built with the window queries (dfs_dl_events_in,
 * dfs_dl_samples_in).
 *
 * Invariants: the medians are taken exactly (twice the median in 128-bit integers), so the outlier
 * test never rounds; outliers are ordered by value descending, then start, then index; the
 * queries read only the published result, which dfs_dl_finish publishes before these run. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/dataloader/dataloader_internal.h"
#include "util/vec.h"

static const char *const init_types[DFS_DL_NINIT_TYPES] = {"_MultiProcessingDataLoaderIter.__init__",
                                                           "_SingleProcessDataLoaderIter.__init__"};

static bool str_equals(const dfs_run *run, dfs_str s, const char *text)
{
    size_t n;
    const char *t = dfs_str_get(run, s, &n);
    return n == strlen(text) && memcmp(t, text, n) == 0;
}

/* ---- statistics and outliers ------------------------------------------------------------------ */

typedef struct stat_item {
    int64_t value, tie; /* ns; tie = start, for the order of equal values */
    size_t id;          /* what the outlier list reports */
} stat_item;

static int cmp_item_value(const void *a, const void *b)
{
    const stat_item *x = a, *y = b;
    int c = dl_cmp_i64(x->value, y->value);
    return c ? c : dl_cmp_i64((int64_t)x->id, (int64_t)y->id);
}

/* Value descending, then start, then id: the project's order for ties. */
static int cmp_item_outlier(const void *a, const void *b)
{
    const stat_item *x = a, *y = b;
    int c = dl_cmp_i64(y->value, x->value);
    if (!c)
        c = dl_cmp_i64(x->tie, y->tie);
    return c ? c : dl_cmp_i64((int64_t)x->id, (int64_t)y->id);
}

/* count, median (mean of the two middle values), max and the outliers (value >= 2 x median);
 * items is reordered. false when out of memory. */
static bool make_stats(dfs_dataloader *d, stat_item *items, size_t n, dfs_dl_stats *st)
{
    *st = (dfs_dl_stats){.count = n, .median_us = NAN, .max_us = NAN};
    if (n == 0)
        return true;
    qsort(items, n, sizeof *items, cmp_item_value);
    /* twice the median, exactly: the outlier test is value >= 2 x median */
    __int128 twice = n % 2 ? (__int128)items[n / 2].value * 2
                           : (__int128)items[n / 2 - 1].value + items[n / 2].value;
    st->median_us = (double)twice / 2000.0;
    st->max_us = (double)items[n - 1].value / 1000.0;
    size_t first = n;
    while (first > 0 && (__int128)items[first - 1].value >= twice)
        first--;
    size_t k = n - first;
    if (k == 0)
        return true;
    if (d->nowned == sizeof d->owned / sizeof *d->owned)
        return false;
    size_t *out = malloc(k * sizeof *out);
    if (!out)
        return false;
    d->owned[d->nowned++] = out;
    qsort(items + first, k, sizeof *items, cmp_item_outlier);
    for (size_t i = 0; i < k; i++)
        out[i] = items[first + i].id;
    st->outliers = out;
    st->noutliers = k;
    return true;
}

/* Duration statistics of the rows of a set (ids: row indices) that satisfy `keep` (NULL: all). */
static bool row_stats(dfs_dataloader *d, int s, bool (*keep)(const dfs_dataloader *, const dfs_dl_row *, const void *),
                      const void *ctx, dfs_dl_stats *st)
{
    const dfs_dl_row *rows = d->rows[s].v;
    size_t n = d->rows[s].n, m = 0;
    stat_item *items = malloc((n ? n : 1) * sizeof *items);
    if (!items)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!keep || keep(d, &rows[i], ctx))
            items[m++] = (stat_item){rows[i].end - rows[i].start, rows[i].start, i};
    bool ok = make_stats(d, items, m, st);
    free(items);
    return ok;
}

static bool metric_is(const dfs_dataloader *d, const dfs_dl_row *r, const void *type)
{
    return str_equals(d->run, r->metric, type);
}

/* 1. Iterator initializations, per iterator type. */
static bool analyse_inits(dfs_dataloader *d)
{
    size_t typed = 0;
    for (int k = 0; k < DFS_DL_NINIT_TYPES; k++) {
        dfs_dl_init_type *it = &d->result.init[k];
        it->type = init_types[k];
        it->pin_memory = DFS_DL_PIN_NA;
        it->num_workers = -1;
        if (!row_stats(d, DFS_DL_INIT, metric_is, init_types[k], &it->stats))
            return false;
        typed += it->stats.count;
        for (size_t i = 0; i < d->rows[DFS_DL_INIT].n; i++) {
            const dfs_dl_row *r = &d->rows[DFS_DL_INIT].v[i];
            if (metric_is(d, r, init_types[k])) { /* the first value, as pandas' unique()[0] */
                it->pin_memory = r->pin_memory;
                it->num_workers = r->num_workers;
                break;
            }
        }
    }
    d->result.init_other = d->rows[DFS_DL_INIT].n - typed;
    return true;
}

/* ---- 4. batch time ---------------------------------------------------------------------------- */

static int cmp_batch_order(const void *a, const void *b, void *ctx)
{
    const dfs_dataloader *d = ctx;
    const dfs_dl_row *x = &d->rows[DFS_DL_GETNEXT].v[*(const size_t *)a];
    const dfs_dl_row *y = &d->rows[DFS_DL_GETNEXT].v[*(const size_t *)b];
    int c = x->node == y->node ? 0 : strcmp(d->labels.v.v[x->node], d->labels.v.v[y->node]);
    if (!c && !(c = dl_cmp_i64(x->pid, y->pid)) && !(c = dl_cmp_i64(x->end, y->end)) &&
        !(c = dl_cmp_i64(x->start, y->start)))
        c = dl_cmp_i64((int64_t)x->event, (int64_t)y->event);
    return c;
}

/* GetNext rows sorted by (node, pid, end); within a group, each row's start minus the previous
 * row's start (sorting by end but differencing starts: nested calls give negative gaps). */
static bool make_gaps(dfs_dataloader *d, const size_t *order, size_t n)
{
    const dfs_dl_row *rows = d->rows[DFS_DL_GETNEXT].v;
    for (size_t i = 0; i < n; i++) {
        const dfs_dl_row *r = &rows[order[i]];
        const dfs_dl_row *p = i > 0 ? &rows[order[i - 1]] : NULL;
        if (!p || p->node != r->node || p->pid != r->pid) {
            d->result.batch_groups++;
            continue;
        }
        dfs_dl_gap g = {.prev_start = p->start, .start = r->start, .row = order[i]};
        if (__builtin_sub_overflow(r->start, p->start, &g.gap))
            g.gap = r->start > p->start ? INT64_MAX : INT64_MIN;
        if (g.gap < 0)
            d->result.negative_gaps++;
        if (!dfs_vec_push(&d->gaps, g))
            return false;
    }
    return true;
}

static bool analyse_batches(dfs_dataloader *d)
{
    size_t n = d->rows[DFS_DL_GETNEXT].n;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return false;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof *order, cmp_batch_order, d);
    bool ok = make_gaps(d, order, n);
    free(order);
    stat_item *items = ok ? malloc((d->gaps.n ? d->gaps.n : 1) * sizeof *items) : NULL;
    if (!items)
        return false;
    for (size_t i = 0; i < d->gaps.n; i++)
        items[i] = (stat_item){d->gaps.v[i].gap, d->gaps.v[i].prev_start, i};
    ok = make_stats(d, items, d->gaps.n, &d->result.batch);
    free(items);
    return ok;
}

/* ---- the analyses, in order ------------------------------------------------------------------ */

bool dl_analyse(dfs_dataloader *d)
{
    return analyse_inits(d) && row_stats(d, DFS_DL_WORKER, NULL, NULL, &d->result.workers) &&
           row_stats(d, DFS_DL_GETNEXT, NULL, NULL, &d->result.getnext) && analyse_batches(d);
}

/* ---- window queries --------------------------------------------------------------------------- */

/* An index list that keeps counting when memory runs out (*out is then NULL). */
typedef struct index_list {
    size_t **out;
    size_t count, cap;
} index_list;

static void index_add(index_list *l, size_t i)
{
    if (l->out && l->count == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        size_t *nv = realloc(*l->out, l->cap * sizeof *nv);
        if (!nv) {
            free(*l->out);
            *l->out = NULL;
            l->out = NULL;
        } else {
            *l->out = nv;
        }
    }
    if (l->out)
        (*l->out)[l->count] = i;
    l->count++;
}

/* The first of n records (of `size` bytes, sorted by the int64 time at `offset`) whose time is
 * >= t. */
static size_t first_from(const void *base, size_t n, size_t size, size_t offset, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t v;
        memcpy(&v, (const char *)base + mid * size + offset, sizeof v);
        if (v < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t dfs_dl_events_in(const dfs_dl_result *r, int64_t start, int64_t end, size_t **out)
{
    if (out)
        *out = NULL;
    int64_t from;
    if (__builtin_sub_overflow(start, r->max_duration, &from))
        from = INT64_MIN;
    index_list l = {.out = out};
    size_t first = first_from(r->events, r->nevents, sizeof *r->events, offsetof(dfs_dl_event, start), from);
    for (size_t i = first; i < r->nevents && r->events[i].start <= end; i++) {
        if (r->events[i].end < start)
            continue;
        index_add(&l, i);
    }
    return l.count;
}

size_t dfs_dl_samples_in(const dfs_dl_result *r, const dfs_run *run, int64_t start, int64_t end,
                         const char *type, size_t **out)
{
    if (out)
        *out = NULL;
    size_t first = first_from(r->samples, r->nsamples, sizeof *r->samples, offsetof(dfs_dl_sample, t), start);
    index_list l = {.out = out};
    for (size_t i = first; i < r->nsamples && r->samples[i].t <= end; i++) {
        if (type && !str_equals(run, r->samples[i].type, type))
            continue;
        index_add(&l, i);
    }
    return l.count;
}

/* ---- 5. window reports ------------------------------------------------------------------------ */

static int cmp_label(const dfs_dataloader *d, uint32_t a, uint32_t b)
{
    return a == b ? 0 : strcmp(d->labels.v.v[a], d->labels.v.v[b]);
}

static int cmp_sample_group(const void *a, const void *b, void *ctx)
{
    const dfs_dataloader *d = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const dfs_dl_sample *x = &d->samples.v[i], *y = &d->samples.v[j];
    int c = cmp_label(d, x->node, y->node);
    if (!c && x->dim != y->dim)
        c = dfs_str_cmp(d->run, x->dim, y->dim);
    if (!c)
        c = cmp_label(d, x->name, y->name);
    return c ? c : dl_cmp_i64((int64_t)i, (int64_t)j);
}

/* The samples of a window grouped by (node, dimension, name), with min / mean / max. */
static bool window_metrics(dfs_dataloader *d, size_t *idx, size_t n, dfs_dl_window *w)
{
    if (n == 0)
        return true;
    qsort_r(idx, n, sizeof *idx, cmp_sample_group, d);
    dfs_dl_metric *m = malloc(n * sizeof *m);
    if (!m)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const dfs_dl_sample *s = &d->samples.v[idx[i]];
        dfs_dl_metric *cur = k ? &m[k - 1] : NULL;
        if (!cur || cur->node != s->node || cur->dim != s->dim || cur->name != s->name) {
            m[k++] = (dfs_dl_metric){.node = s->node, .name = s->name, .dim = s->dim, .type = s->type,
                                     .min = s->value, .max = s->value};
            cur = &m[k - 1];
        }
        cur->count++;
        cur->mean += s->value; /* the sum until the end */
        cur->min = s->value < cur->min ? s->value : cur->min;
        cur->max = s->value > cur->max ? s->value : cur->max;
    }
    for (size_t i = 0; i < k; i++)
        m[i].mean /= (double)m[i].count;
    w->metrics = m;
    w->nmetrics = k;
    return true;
}

static bool add_window(dfs_dataloader *d, dfs_dl_window_kind kind, size_t rank, size_t outlier, int64_t a,
                       int64_t b)
{
    dfs_dl_window w = {.kind = kind, .rank = rank, .outlier = outlier, .start = a < b ? a : b, .end = a < b ? b : a};
    size_t *ev = NULL, *sm = NULL;
    w.nevents = dfs_dl_events_in(&d->result, w.start, w.end, &ev);
    size_t ns = dfs_dl_samples_in(&d->result, d->run, w.start, w.end, NULL, &sm);
    bool ok = (w.nevents == 0 || ev) && (ns == 0 || sm) && window_metrics(d, sm, ns, &w);
    free(sm);
    for (size_t i = 0; ok && i < w.nevents; i++) {
        int64_t end = d->events.v[ev[i]].end;
        w.finishing_inside += end >= w.start && end <= w.end;
    }
    w.events = ev;
    if (ok && dfs_vec_push(&d->windows, w))
        return true;
    free(ev);
    free((void *)w.metrics);
    return false;
}

static size_t windows_of(const dfs_dataloader *d, const dfs_dl_stats *st)
{
    size_t max = d->opt.max_windows;
    return max && st->noutliers > max ? max : st->noutliers;
}

bool dl_build_windows(dfs_dataloader *d)
{
    const dfs_dl_stats *g = &d->result.getnext, *b = &d->result.batch;
    size_t ng = windows_of(d, g), nb = windows_of(d, b);
    d->result.windows_skipped = g->noutliers - ng + b->noutliers - nb;
    for (size_t k = 0; k < ng; k++) {
        const dfs_dl_row *r = &d->rows[DFS_DL_GETNEXT].v[g->outliers[k]];
        if (!add_window(d, DFS_DL_WIN_GETNEXT, k, g->outliers[k], r->start, r->end))
            return false;
    }
    for (size_t k = 0; k < nb; k++) {
        const dfs_dl_gap *gap = &d->gaps.v[b->outliers[k]];
        if (!add_window(d, DFS_DL_WIN_BATCH, k, b->outliers[k], gap->prev_start, gap->start))
            return false;
    }
    return true;
}
