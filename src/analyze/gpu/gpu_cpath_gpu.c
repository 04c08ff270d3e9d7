/* gpu_cpath_gpu.c - the device side of the critical path graph (gpu_cpath.c builds the rest):
 * each kernel's own time; what it waited for before starting — its launch when the stream was
 * empty and idle at the launch, else the previous kernel of its stream when that ended less than
 * 1.5 ms before (the gap between them), and a kernel of another stream it was made to wait for
 * through a CUDA event; and host calls waiting for the device (stream, context and event
 * synchronisations). A zero-weight edge from every launch to its kernel keeps causality.
 *
 * As Holistic Trace Analysis 0.6.1 does it: the queue lengths are those of the whole rank; the
 * kernel a cudaEventRecord stands for is the one of the latest launch (in time, any thread) on
 * the stream the record is on; the kernel that waits for it is the one of the next launch after
 * cudaStreamWaitEvent from the same thread to the waiting stream; rows go by start (synchronisations
 * by end), sorted as numpy sorts under hta.
 *
 * Invariants: only rows of the window get edges; a kernel whose launch decides its edge but is
 * not in the window stops the analysis (DFS_GPU_CP_NO_LAUNCH_NODE), as HTA stops. */
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu_cpath_graph.h"

#define NO GPU_NO_ROW
#define NO_LEN INT64_MIN

static bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* An item of a list sorted by time: the time leads, as gpu_ssort_items wants. */
typedef struct item {
    int64_t t;
    int64_t key1, key2, key3; /* what the item is grouped by */
    int64_t delta;            /* a queue change, or a launch id */
    size_t row;
    size_t seq;
} item;

static int cmp_item(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* By time: numpy's order under hta, else stable. */
static bool sort_items(const cp_graph *g, item *it, size_t n)
{
    if (g->hta)
        return gpu_ssort_items(it, n, sizeof *it);
    qsort(it, n, sizeof *it, cmp_item);
    return true;
}

static bool is_launch(const gpu_cp_row *r)
{
    return r->stream == -1 && r->partner != NO && dfs_gpu_is_launch(r->name, strlen(r->name));
}

/* The first of c[0..n) (sorted by correlation) with this correlation, or where it would be. */
static size_t corr_first(const gpu_corr_pos *c, size_t n, int64_t corr)
{
    return gpu_lower_bound(c, n, sizeof *c, corr);
}

typedef struct grp {
    int64_t a, b, c;
    int64_t v;
} grp;

/* The running value of group (a, b, c) in g[0..*n), added with `init` when new; NULL when full. */
static int64_t *group(grp *g, size_t *n, size_t cap, int64_t a, int64_t b, int64_t c, int64_t init)
{
    for (size_t i = 0; i < *n; i++)
        if (g[i].a == a && g[i].b == b && g[i].c == c)
            return &g[i].v;
    if (*n == cap)
        return NULL;
    g[*n] = (grp){a, b, c, init};
    return &g[(*n)++].v;
}

/* The queue length of each stream after each launch and each device event's start, over the
 * whole rank: len[row] (the last value of a row listed more than once), NO_LEN when not listed. */
static bool queue_lengths(const cp_graph *g, int64_t *len)
{
    const gpu_cp_row *r = g->r;
    size_t n = g->nrows, nd = 0, nl = 0, m = 0;
    gpu_corr_pos *dev = malloc((n ? n : 1) * sizeof *dev), *lc = malloc((n ? n : 1) * sizeof *lc);
    bool ok = dev && lc;
    for (size_t i = 0; ok && i < n; i++) {
        len[i] = NO_LEN;
        if (r[i].stream != -1)
            dev[nd++] = (gpu_corr_pos){r[i].corr, i};
        else if (is_launch(&r[i]))
            lc[nl++] = (gpu_corr_pos){r[i].corr, i};
    }
    item *it = NULL;
    size_t cap = 0;
    if (ok) {
        qsort(dev, nd, sizeof *dev, gpu_cmp_corr_pos);
        qsort(lc, nl, sizeof *lc, gpu_cmp_corr_pos);
        for (size_t i = 0; i < nl; i++)
            for (size_t j = corr_first(dev, nd, lc[i].corr); j < nd && dev[j].corr == lc[i].corr; j++)
                cap++;
        cap += nd;
        it = malloc((cap ? cap : 1) * sizeof *it);
        ok = it != NULL;
    }
    for (size_t i = 0; ok && i < n; i++) /* launches in row order, each once per device event */
        if (r[i].stream == -1 && is_launch(&r[i]))
            for (size_t j = corr_first(dev, nd, r[i].corr); j < nd && dev[j].corr == r[i].corr; j++)
                it[m] = (item){.t = r[i].ts, .key1 = r[dev[j].pos].stream, .delta = 1, .row = i, .seq = m}, m++;
    for (size_t i = 0; ok && i < n; i++) {
        if (r[i].stream == -1)
            continue;
        size_t j = corr_first(lc, nl, r[i].corr);
        if (j < nl && lc[j].corr == r[i].corr)
            it[m] = (item){.t = r[i].ts, .key1 = r[i].stream, .delta = -1, .row = i, .seq = m}, m++;
    }
    grp *run = malloc((m ? m : 1) * sizeof *run);
    size_t nrun = 0;
    ok = ok && run && sort_items(g, it, m);
    for (size_t i = 0; ok && i < m; i++) {
        int64_t *v = group(run, &nrun, m, it[i].key1, 0, 0, 0);
        *v += it[i].delta;
        len[it[i].row] = *v;
    }
    free(dev), free(lc), free(it), free(run);
    return ok;
}

/* A launch with its device event: the launch table HTA numbers its launches by. */
typedef struct launch {
    size_t row;
    int64_t kstream, gpu; /* the stream and the device (its pid) of the device event */
} launch;

static bool launches(const cp_graph *g, launch **out, size_t *nout)
{
    const gpu_cp_row *r = g->r;
    size_t n = g->nrows, m = 0;
    item *it = malloc((n ? n : 1) * sizeof *it);
    launch *l = malloc((n ? n : 1) * sizeof *l);
    bool ok = it && l;
    for (size_t i = 0; ok && i < n; i++)
        if (is_launch(&r[i]))
            it[m] = (item){.t = r[i].ts, .row = i, .seq = m}, m++;
    ok = ok && sort_items(g, it, m);
    *nout = 0;
    for (size_t i = 0; ok && i < m; i++) {
        const gpu_cp_row *k = &r[r[it[i].row].partner];
        if (k->stream != -1 && k->partner != NO)
            l[(*nout)++] = (launch){it[i].row, k->stream, k->pid};
    }
    free(it);
    if (!ok)
        free(l), l = NULL;
    *out = l;
    return ok;
}

static bool any_named(const cp_graph *g, const char *name)
{
    for (size_t i = 0; i < g->nrows; i++)
        if (streq(g->r[i].name, name))
            return true;
    return false;
}

/* For each cudaEventRecord's correlation that a wait names: the latest launch (by time, any
 * thread) to the (device, stream) the wait says the record is on. prev[row of the record] = the
 * launch's row. */
static bool record_launches(const cp_graph *g, const launch *l, size_t nl, size_t *prev)
{
    const gpu_cp_row *r = g->r;
    size_t n = g->nrows, nw = 0, m = 0, nrun = 0;
    gpu_corr_pos *w = malloc((n ? n : 1) * sizeof *w);
    item *it = malloc((n + nl ? n + nl : 1) * sizeof *it);
    grp *run = malloc((n + nl ? n + nl : 1) * sizeof *run);
    bool ok = w && it && run;
    for (size_t i = 0; ok && i < n; i++) {
        prev[i] = NO;
        if (r[i].wait_stream > -1)
            w[nw++] = (gpu_corr_pos){r[i].wait_corr, i};
    }
    if (ok)
        qsort(w, nw, sizeof *w, gpu_cmp_corr_pos);
    for (size_t i = 0; ok && i < nl; i++)
        it[m] = (item){.t = r[l[i].row].ts, .key1 = l[i].gpu, .key2 = l[i].kstream, .delta = (int64_t)i,
                       .row = l[i].row, .seq = m},
        m++;
    item *rec = it + m;
    size_t nrec = 0, nall = 0;
    for (size_t i = 0; ok && i < n; i++) /* every record by time (numpy's order), then those a wait names */
        if (streq(r[i].name, "cudaEventRecord"))
            rec[nall] = (item){.t = r[i].ts, .row = i, .seq = nall}, nall++;
    ok = ok && sort_items(g, rec, nall);
    for (size_t i = 0; ok && i < nall; i++) {
        size_t row = rec[i].row, j = corr_first(w, nw, r[row].corr);
        if (j < nw && w[j].corr == r[row].corr)
            rec[nrec++] = (item){.t = r[row].ts, .key1 = r[w[j].pos].pid, .key2 = r[w[j].pos].wait_stream,
                                 .delta = -1, .row = row};
    }
    for (size_t i = 0; ok && i < nrec; i++)
        rec[i].seq = m + i;
    m += nrec;
    ok = ok && sort_items(g, it, m);
    for (size_t i = 0; ok && i < m; i++) {
        int64_t *v = group(run, &nrun, m, it[i].key1, it[i].key2, 0, -1);
        if (it[i].delta >= 0)
            *v = it[i].delta > *v ? it[i].delta : *v;
        else if (*v >= 0)
            prev[it[i].row] = l[*v].row;
    }
    free(w), free(it), free(run);
    return ok;
}

/* For each cudaStreamWaitEvent: the next launch after it (by time) from its thread to the stream
 * that waits. next[row of the call] = the launch's row. */
static bool wait_launches(const cp_graph *g, const launch *l, size_t nl, size_t *next)
{
    const gpu_cp_row *r = g->r;
    size_t n = g->nrows, m = 0, nw = 0, nrun = 0;
    item *it = malloc((n + nl ? n + nl : 1) * sizeof *it);
    grp *run = malloc((n + nl ? n + nl : 1) * sizeof *run);
    bool ok = it && run;
    for (size_t i = 0; ok && i < n; i++)
        next[i] = NO;
    for (size_t i = 0; ok && i < nl; i++) {
        const gpu_cp_row *x = &r[l[i].row];
        it[m] = (item){.t = x->ts, .key1 = x->pid, .key2 = x->tid, .key3 = l[i].kstream, .delta = (int64_t)i,
                       .row = l[i].row, .seq = m},
        m++;
    }
    item *wt = it + m;
    size_t nall = 0;
    for (size_t i = 0; ok && i < n; i++) /* every call by time (numpy's order), then those with a wait */
        if (streq(r[i].name, "cudaStreamWaitEvent") && r[i].partner != NO)
            wt[nall] = (item){.t = r[i].ts, .row = i, .seq = nall}, nall++;
    ok = ok && sort_items(g, wt, nall);
    for (size_t i = 0; ok && i < nall; i++) {
        const gpu_cp_row *x = &r[wt[i].row], *k = &r[x->partner];
        if (k->stream != -1 && k->partner != NO)
            wt[nw++] = (item){.t = x->ts, .key1 = x->pid, .key2 = x->tid, .key3 = k->stream, .delta = -1,
                              .row = wt[i].row};
    }
    for (size_t i = 0; ok && i < nw; i++)
        wt[i].seq = m + i;
    m += nw;
    ok = ok && sort_items(g, it, m);
    for (size_t i = m; ok && i-- > 0;) {
        int64_t *v = group(run, &nrun, m, it[i].key1, it[i].key2, it[i].key3, INT64_MAX);
        if (it[i].delta >= 0)
            *v = it[i].delta < *v ? it[i].delta : *v;
        else if (*v != INT64_MAX)
            next[it[i].row] = l[*v].row;
    }
    free(it), free(run);
    return ok;
}

/* What the kernel pass keeps. */
typedef struct device {
    cp_graph *g;
    int64_t *qlen;
    size_t *rec_prev, *wait_next, *sync_src;
    gpu_corr_pos *recs; /* the records with a launch, by correlation */
    size_t nrecs;
    bool records, waits;
    grp *last;    /* per stream: the end node of its latest kernel (v), in order of first use */
    size_t nlast, caplast;
} device;

static size_t last_of(const device *d, int64_t stream)
{
    for (size_t i = 0; i < d->nlast; i++)
        if (d->last[i].a == stream)
            return (size_t)d->last[i].v;
    return NO;
}

static bool sync_to_host(device *d, size_t node, size_t host)
{
    size_t e = host == NO ? NO : d->g->end_of[host];
    return node == NO || e == NO || cp_add(d->g, node, e, CP_SYNC, false, NO);
}

/* A synchronisation row: host calls wait for the device, or a kernel is made to wait for another. */
static bool on_sync(device *d, size_t i)
{
    cp_graph *g = d->g;
    const gpu_cp_row *x = &g->r[i];
    bool wait = streq(x->name, "Stream Wait Event"), event = streq(x->name, "Event Sync");
    if (wait || event) {
        if (!d->records || x->wait_corr < 0)
            return true;
        size_t j = corr_first(d->recs, d->nrecs, x->wait_corr);
        size_t src = j < d->nrecs && d->recs[j].corr == x->wait_corr ? g->r[d->rec_prev[d->recs[j].pos]].partner : NO;
        if (src == NO)
            return true;
        if (event)
            return sync_to_host(d, g->end_of[src], x->partner);
        size_t next = d->waits && x->partner != NO ? d->wait_next[x->partner] : NO;
        size_t dest = next == NO ? NO : g->r[next].partner;
        if (dest != NO)
            d->sync_src[dest] = src;
        return true;
    }
    if (streq(x->name, "Context Sync")) {
        for (size_t s = 0; s < d->nlast; s++)
            if (!sync_to_host(d, (size_t)d->last[s].v, x->partner))
                return false;
        return true;
    }
    if (streq(x->name, "Stream Sync"))
        return sync_to_host(d, last_of(d, x->stream), x->partner);
    return true;
}

static bool set_last(device *d, int64_t stream, size_t node)
{
    int64_t *v = group(d->last, &d->nlast, d->caplast, stream, 0, 0, 0);
    if (!v)
        return false;
    *v = (int64_t)node;
    return true;
}

/* b - a < slack, without overflow for times far apart. */
static bool close_after(int64_t a, int64_t b, int64_t slack)
{
    return b <= a || (uint64_t)b - (uint64_t)a < (uint64_t)slack;
}

/* A kernel: its own time, then what it waited for. */
static bool on_kernel(device *d, size_t i)
{
    cp_graph *g = d->g;
    const gpu_cp_row *x = &g->r[i];
    size_t s = g->start_of[i], e = g->end_of[i], last = last_of(d, x->stream);
    if (!cp_add(g, s, e, CP_OPERATOR, false, NO))
        return false;
    size_t src = d->sync_src[i], src_end = src == NO ? NO : g->end_of[src];
    d->sync_src[i] = NO;
    if (src_end != NO && !cp_add(g, src_end, s, CP_SYNC, false, NO))
        return false;
    size_t rt = x->partner;
    int64_t rts = rt == NO ? 0 : g->r[rt].ts;
    bool launched = false;
    if (rt != NO && d->qlen[rt] == 1 && d->qlen[i] == 0 && (last == NO || g->ts[last] < rts) &&
        (src_end == NO || g->ts[src_end] < rts)) {
        if (g->start_of[rt] == NO) {
            g->status = DFS_GPU_CP_NO_LAUNCH_NODE;
            return true;
        }
        if (!cp_add(g, g->start_of[rt], s, CP_LAUNCH, false, NO))
            return false;
        launched = true;
    } else if (last != NO && close_after(g->ts[last], g->ts[s], g->slack_ns) &&
               (src_end == NO || g->ts[src_end] < g->ts[last])) {
        if (!cp_add(g, last, s, CP_KERNEL_KERNEL, false, NO))
            return false;
    }
    if (!launched && rt != NO && g->start_of[rt] != NO && !cp_add(g, g->start_of[rt], s, CP_LAUNCH, true, NO))
        return false;
    return set_last(d, x->stream, e);
}

/* The window's device rows by start (synchronisations by end). */
static size_t *device_rows(const cp_graph *g, size_t *m)
{
    item *it = malloc((g->nclip ? g->nclip : 1) * sizeof *it);
    size_t *rows = malloc((g->nclip ? g->nclip : 1) * sizeof *rows);
    size_t n = 0;
    for (size_t k = 0; it && rows && k < g->nclip; k++) {
        const gpu_cp_row *x = &g->r[g->clip[k]];
        bool dev = x->stream != -1 || streq(x->name, "Event Sync") || streq(x->name, "Context Sync");
        if (dev && (x->corr >= 0 || x->partner != NO))
            it[n] = (item){.t = streq(x->cat, "cuda_sync") ? x->ts + x->dur : x->ts, .row = g->clip[k], .seq = n}, n++;
    }
    if (!it || !rows || !sort_items(g, it, n)) {
        free(it), free(rows);
        return NULL;
    }
    for (size_t k = 0; k < n; k++)
        rows[k] = it[k].row;
    free(it);
    *m = n;
    return rows;
}

bool cp_add_device(cp_graph *g)
{
    size_t n = g->nrows, cells = n ? n : 1, nl = 0, m = 0;
    device d = {.g = g, .qlen = malloc(cells * sizeof(int64_t)), .rec_prev = malloc(cells * sizeof(size_t)),
                .wait_next = malloc(cells * sizeof(size_t)), .sync_src = malloc(cells * sizeof(size_t)),
                .last = malloc(cells * sizeof(grp)), .caplast = cells};
    launch *l = NULL;
    size_t *rows = NULL;
    bool ok = d.qlen && d.rec_prev && d.wait_next && d.sync_src && d.last && queue_lengths(g, d.qlen) &&
              launches(g, &l, &nl);
    d.records = ok && any_named(g, "cudaEventRecord");
    d.waits = ok && any_named(g, "cudaStreamWaitEvent") && any_named(g, "Stream Wait Event");
    ok = ok && (!d.records || record_launches(g, l, nl, d.rec_prev)) && (!d.waits || wait_launches(g, l, nl, d.wait_next));
    d.recs = ok ? malloc(cells * sizeof *d.recs) : NULL;
    ok = ok && d.recs;
    for (size_t i = 0; ok && d.records && i < n; i++)
        if (d.rec_prev[i] != NO)
            d.recs[d.nrecs++] = (gpu_corr_pos){g->r[i].corr, i};
    if (ok)
        qsort(d.recs, d.nrecs, sizeof *d.recs, gpu_cmp_corr_pos);
    ok = ok && (rows = device_rows(g, &m)) != NULL;
    for (size_t i = 0; ok && i < n; i++)
        d.sync_src[i] = NO;
    for (size_t k = 0; ok && k < m && g->status == DFS_GPU_CP_OK; k++)
        ok = streq(g->r[rows[k]].cat, "cuda_sync") ? on_sync(&d, rows[k]) : on_kernel(&d, rows[k]);
    free(d.qlen), free(d.rec_prev), free(d.wait_next), free(d.sync_src), free(d.last), free(d.recs), free(l), free(rows);
    return ok;
}
