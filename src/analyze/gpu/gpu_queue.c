/* gpu_queue.c - the queue length of each stream of one rank: every launch adds one to the queue of
 * the stream its device work runs on, every start of device work launched in the trace takes one
 * off; the length after each of these events, summarised per stream (pandas' describe()).
 *
 * hta: the launches (in row order, one item per device event of their correlation) then the device
 * events (row order) are sorted by time with numpy's unstable sort, so equal times come in its
 * order; a device event before its launch makes the length negative. exact: sorted by time, a start
 * before a launch at the same instant, then by row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu_internal.h"

typedef struct item {
    int64_t t, stream;
    int delta;
    size_t seq; /* its place in the unsorted list */
} item;

static int cmp_order(const void *a, const void *b)
{
    const gpu_work *x = a, *y = b;
    return (x->order > y->order) - (x->order < y->order);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_item(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->delta != y->delta)
        return x->delta < y->delta ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Device work by correlation, then row: positions into w. */
typedef struct by_corr {
    int64_t corr;
    size_t pos;
} by_corr;

static int cmp_by_corr(const void *a, const void *b)
{
    const by_corr *x = a, *y = b;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static size_t first_corr(const by_corr *v, size_t n, int64_t corr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].corr < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool has_value(const int64_t *sorted, size_t n, int64_t v)
{
    return bsearch(&v, sorted, n, sizeof *sorted, cmp_i64) != NULL;
}

/* The items of HTA's list: each launch once per device event of its correlation, then each device
 * event some launch names. *m = their number. */
static item *list_items(const gpu_launch *l, size_t nl, const gpu_work *w, size_t n, size_t *m)
{
    by_corr *bc = malloc((n ? n : 1) * sizeof *bc);
    int64_t *lc = malloc((nl ? nl : 1) * sizeof *lc);
    size_t cap = 2 * n + 1, k = 0, nb = 0;
    item *it = malloc(cap * sizeof *it);
    bool ok = bc && lc && it;
    for (size_t i = 0; ok && i < n; i++)
        if (w[i].corr != -1)
            bc[nb++] = (by_corr){w[i].corr, i};
    if (ok)
        qsort(bc, nb, sizeof *bc, cmp_by_corr);
    for (size_t i = 0; ok && i < nl; i++) {
        lc[i] = l[i].corr;
        for (size_t j = first_corr(bc, nb, l[i].corr); j < nb && bc[j].corr == l[i].corr; j++) {
            if (k == cap) {
                item *g = realloc(it, (cap *= 2) * sizeof *it);
                if (!g) {
                    ok = false;
                    break;
                }
                it = g;
            }
            it[k] = (item){l[i].ts, w[bc[j].pos].stream, +1, k};
            k++;
        }
    }
    if (ok)
        qsort(lc, nl, sizeof *lc, cmp_i64);
    for (size_t i = 0; ok && i < n; i++) {
        if (w[i].corr == -1 || !has_value(lc, nl, w[i].corr))
            continue;
        if (k == cap) {
            item *g = realloc(it, (cap *= 2) * sizeof *it);
            if (!g) {
                ok = false;
                break;
            }
            it = g;
        }
        it[k] = (item){w[i].ts, w[i].stream, -1, k};
        k++;
    }
    free(bc), free(lc);
    if (!ok) {
        free(it);
        return NULL;
    }
    *m = k;
    return it;
}

/* Sorts the items by time as the semantics says. */
static bool sort_items(const dfs_gpu_options *o, item *it, size_t m)
{
    if (o->semantics != DFS_GPU_HTA) {
        qsort(it, m, sizeof *it, cmp_item);
        return true;
    }
    int64_t *keys = malloc((m ? m : 1) * sizeof *keys);
    size_t *perm = malloc((m ? m : 1) * sizeof *perm);
    item *copy = malloc((m ? m : 1) * sizeof *copy);
    bool ok = keys && perm && copy;
    for (size_t i = 0; ok && i < m; i++)
        keys[i] = it[i].t, copy[i] = it[i];
    if (ok) {
        gpu_ssort(keys, perm, m);
        for (size_t i = 0; i < m; i++)
            it[i] = copy[perm[i]];
    }
    free(keys), free(perm), free(copy);
    return ok;
}

bool gpu_queue(const dfs_gpu_options *o, const gpu_launch *l, size_t nl, gpu_work *w, size_t n, dfs_gpu_rank *out,
               dfs_arena *keep)
{
    qsort(w, n, sizeof *w, cmp_order);
    size_t m = 0;
    item *it = list_items(l, nl, w, n, &m);
    if (!it || !sort_items(o, it, m)) {
        free(it);
        return false;
    }
    int64_t *streams = malloc((m ? m : 1) * sizeof *streams);
    double *len = malloc((m ? m : 1) * sizeof *len);
    bool ok = streams && len;
    size_t ns = 0;
    for (size_t i = 0; ok && i < m; i++)
        streams[ns++] = it[i].stream;
    if (ok)
        qsort(streams, ns, sizeof *streams, cmp_i64);
    size_t distinct = 0;
    for (size_t i = 0; ok && i < ns; i++)
        if (!distinct || streams[distinct - 1] != streams[i])
            streams[distinct++] = streams[i];
    out->queue = ok ? dfs_arena_alloc(keep, (distinct ? distinct : 1) * sizeof *out->queue) : NULL;
    ok = ok && out->queue;
    for (size_t s = 0; ok && s < distinct; s++) {
        size_t k = 0;
        double run = 0;
        for (size_t i = 0; i < m; i++)
            if (it[i].stream == streams[s])
                len[k++] = run += it[i].delta;
        gpu_stats st;
        gpu_describe(len, k, &st);
        out->queue[out->nqueue++] = (dfs_gpu_queue_row){.stream = streams[s], .count = k, .mean = st.mean,
                                                        .std = st.std, .min = st.min, .p25 = st.p25,
                                                        .p50 = st.p50, .p75 = st.p75, .max = st.max};
    }
    free(it), free(streams), free(len);
    return ok;
}
