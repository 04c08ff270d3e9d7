/* gpu_queue.c - the queue length of each stream of one rank: every launch adds one to the queue of
 * the stream its device work runs on, every start of device work launched in the trace takes one
 * off; the length after each of these events, summarised per stream (pandas' describe()).
 *
 * hta: the launches (in row order, one item per device event of their correlation) then the device
 * events (row order) are sorted by time with numpy's unstable sort, so equal times come in its
 * order; a device event before its launch makes the length negative. exact: sorted by time, a start
 * before a launch at the same instant, then by row.
 *
 * Blocked on a full queue: per stream, the time from each sample at or above the threshold to the
 * stream's next sample (the last sample has none), relative to the rank's trace duration (hta: its
 * latest start minus its earliest, and only the last such stream, as HTA keeps one row per rank;
 * exact: earliest start to latest end, every stream). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu_internal.h"
#include "util/vec.h"

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

static bool has_value(const int64_t *sorted, size_t n, int64_t v)
{
    return bsearch(&v, sorted, n, sizeof *sorted, cmp_i64) != NULL;
}

typedef DFS_VEC(item) item_vec;

/* The items of HTA's list: each launch once per device event of its correlation, then each device
 * event some launch names. NULL when out of memory. */
static item *list_items(const gpu_launch *l, size_t nl, const gpu_work *w, size_t n, size_t *m)
{
    gpu_corr_pos *bc = malloc((n ? n : 1) * sizeof *bc);
    int64_t *lc = malloc((nl ? nl : 1) * sizeof *lc);
    item_vec it = {0};
    size_t nb = 0;
    bool ok = bc && lc;
    for (size_t i = 0; ok && i < n; i++)
        if (w[i].corr != -1)
            bc[nb++] = (gpu_corr_pos){w[i].corr, i};
    if (ok)
        qsort(bc, nb, sizeof *bc, gpu_cmp_corr_pos);
    for (size_t i = 0; ok && i < nl; i++) {
        lc[i] = l[i].corr;
        for (size_t j = gpu_lower_bound(bc, nb, sizeof *bc, l[i].corr); ok && j < nb && bc[j].corr == l[i].corr; j++)
            ok = dfs_vec_push(&it, ((item){l[i].ts, w[bc[j].pos].stream, +1, it.n}));
    }
    if (ok)
        qsort(lc, nl, sizeof *lc, cmp_i64);
    for (size_t i = 0; ok && i < n; i++)
        if (w[i].corr != -1 && has_value(lc, nl, w[i].corr))
            ok = dfs_vec_push(&it, ((item){w[i].ts, w[i].stream, -1, it.n}));
    free(bc), free(lc);
    if (!ok || !it.v) {
        free(it.v);
        *m = 0;
        return ok ? malloc(sizeof(item)) : NULL; /* an empty list, not a failure */
    }
    *m = it.n;
    return it.v;
}

/* Sorts the items by time as the semantics says. */
static bool sort_items(const dfs_gpu_options *o, item *it, size_t m)
{
    if (o->semantics == DFS_GPU_HTA)
        return gpu_ssort_items(it, m, sizeof *it);
    qsort(it, m, sizeof *it, cmp_item);
    return true;
}

/* The blocked time of the stream whose samples (times t, lengths len) are [0..k); false when no
 * sample reaches the threshold. */
static bool blocked_of(const dfs_gpu_options *o, const int64_t *t, const double *len, size_t k, int64_t *ns)
{
    bool reached = false;
    *ns = 0;
    for (size_t i = 0; i < k; i++) {
        if (len[i] < (double)o->queue_full)
            continue;
        reached = true;
        if (i + 1 < k)
            *ns += t[i + 1] - t[i];
    }
    return reached;
}

static void add_blocked(const dfs_gpu_options *o, int64_t stream, int64_t ns, dfs_gpu_rank *out)
{
    int64_t span = o->semantics == DFS_GPU_HTA ? out->last_ts - out->first_ts : out->last_end - out->first_ts;
    if (o->semantics == DFS_GPU_HTA)
        out->nblocked = 0; /* HTA's dict of ranks: the last stream overwrites */
    out->blocked[out->nblocked++] =
        (dfs_gpu_queue_blocked){stream, ns, span > 0 ? (double)ns / (double)span : NAN};
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
    int64_t *streams = malloc((m ? m : 1) * sizeof *streams), *times = malloc((m ? m : 1) * sizeof *times);
    double *len = malloc((m ? m : 1) * sizeof *len);
    bool ok = streams && len && times;
    out->queue_full = o->queue_full;
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
    out->blocked = ok ? dfs_arena_alloc(keep, (distinct ? distinct : 1) * sizeof *out->blocked) : NULL;
    ok = ok && out->queue && out->blocked;
    for (size_t s = 0; ok && s < distinct; s++) {
        size_t k = 0;
        double run = 0;
        for (size_t i = 0; i < m; i++)
            if (it[i].stream == streams[s])
                times[k] = it[i].t, len[k++] = run += it[i].delta;
        int64_t blocked;
        if (blocked_of(o, times, len, k, &blocked))
            add_blocked(o, streams[s], blocked, out);
        dfs_gpu_queue_row *q = &out->queue[out->nqueue++];
        q->stream = streams[s];
        gpu_describe(len, k, &q->s);
    }
    free(it), free(streams), free(len), free(times);
    return ok;
}
