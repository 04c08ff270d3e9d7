/* gpu_idle.c - the idle-time breakdown of one rank: per stream, each gap before a kernel, copy or
 * set is host_wait when its launch started after the previous one had ended (the device waited for
 * the host), kernel_wait when shorter than the threshold (30 µs), else other; a stream's first
 * kernel is other without a gap. Per stream and category the total and the statistics of the gaps
 * (pandas' describe: std with n-1, linear quartiles).
 *
 * hta: the kernels of a stream are ordered by numpy's unstable sort on their start, the previous
 * kernel is the previous row (gaps go negative where kernels overlap), totals and statistics are
 * rounded to 2 decimals. exact: ordered by start (then row), the previous end is the latest end so
 * far, so a gap is never negative. Streams come in order of first appearance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu_internal.h"
#include "util/numstat.h"

const char *dfs_gpu_idle_cat_name(dfs_gpu_idle_cat c)
{
    static const char *const names[DFS_GPU_IDLE_CATS] = {"host_wait", "kernel_wait", "other"};
    return (unsigned)c < DFS_GPU_IDLE_CATS ? names[c] : "other";
}

static int cmp_order(const void *a, const void *b)
{
    const gpu_work *x = a, *y = b;
    return (x->order > y->order) - (x->order < y->order);
}

static int cmp_start_order(const void *a, const void *b)
{
    const gpu_work *x = *(const gpu_work *const *)a, *y = *(const gpu_work *const *)b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static double rd2(const dfs_gpu_options *o, double v)
{
    return o->semantics == DFS_GPU_HTA && isfinite(v) ? gpu_around(v, 2) : v;
}

void gpu_describe(double *v, size_t n, dfs_gpu_stats *s)
{
    *s = (dfs_gpu_stats){.count = n, .mean = NAN, .std = NAN, .min = NAN, .p25 = NAN, .p50 = NAN, .p75 = NAN, .max = NAN};
    if (!n)
        return;
    qsort(v, n, sizeof *v, dfs_cmp_double);
    double ss = 0;
    s->mean = dfs_mean_np(v, n);
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - s->mean) * (v[i] - s->mean);
    s->std = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
    s->min = v[0];
    s->p25 = dfs_quantile_sorted(v, n, 0.25);
    s->p50 = dfs_quantile_sorted(v, n, 0.5);
    s->p75 = dfs_quantile_sorted(v, n, 0.75);
    s->max = v[n - 1];
}

/* describe() of the gaps g[0..n) (µs) into row, rounded as HTA rounds them. */
static void describe(const dfs_gpu_options *o, double *g, size_t n, dfs_gpu_idle_row *row)
{
    dfs_gpu_stats s;
    gpu_describe(g, n, &s);
    row->count = n;
    row->mean_us = rd2(o, s.mean);
    row->std_us = rd2(o, s.std);
    row->min_us = rd2(o, s.min);
    row->p25_us = rd2(o, s.p25);
    row->p50_us = rd2(o, s.p50);
    row->p75_us = rd2(o, s.p75);
    row->max_us = rd2(o, s.max);
}

/* The kernels of one stream (k[0..n), in row order) into its rows; gaps is scratch of n. */
static bool one_stream(const dfs_gpu_options *o, gpu_work **k, size_t n, double *gaps, dfs_gpu_idle_row *rows,
                       size_t *nrows)
{
    dfs_gpu_idle_cat *cat = malloc(n * sizeof *cat);
    int64_t *keys = malloc(n * sizeof *keys);
    size_t *perm = malloc(n * sizeof *perm);
    gpu_work **sorted = malloc(n * sizeof *sorted);
    double *gap_ns = malloc(n * sizeof *gap_ns); /* one gap per kernel, NaN for the first */
    bool ok = cat && keys && perm && sorted && gap_ns;
    if (ok && o->semantics == DFS_GPU_HTA) {
        for (size_t i = 0; i < n; i++)
            keys[i] = k[i]->ts;
        gpu_ssort(keys, perm, n);
        for (size_t i = 0; i < n; i++)
            sorted[i] = k[perm[i]];
    } else if (ok) {
        memcpy(sorted, k, n * sizeof *k);
        qsort(sorted, n, sizeof *sorted, cmp_start_order);
    }
    int64_t prev_end = 0;
    for (size_t i = 0; ok && i < n; i++) {
        const gpu_work *w = sorted[i];
        if (i == 0) {
            cat[i] = DFS_GPU_IDLE_OTHER, gap_ns[i] = NAN;
        } else {
            int64_t gap = w->ts - prev_end;
            if (o->semantics != DFS_GPU_HTA && gap < 0)
                gap = 0;
            gap_ns[i] = (double)gap;
            cat[i] = w->has_launch && w->launch_ts > prev_end ? DFS_GPU_HOST_WAIT
                     : gap < o->kernel_wait_ns                 ? DFS_GPU_KERNEL_WAIT
                                                               : DFS_GPU_IDLE_OTHER;
        }
        if (o->semantics == DFS_GPU_HTA || i == 0 || w->end > prev_end)
            prev_end = w->end;
    }
    bool present[DFS_GPU_IDLE_CATS] = {false};
    double total[DFS_GPU_IDLE_CATS] = {0}, stream_total = 0;
    for (size_t i = 0; ok && i < n; i++) {
        present[cat[i]] = true;
        if (!isnan(gap_ns[i]))
            total[cat[i]] += gap_ns[i] / 1000;
    }
    for (int c = 0; ok && c < DFS_GPU_IDLE_CATS; c++)
        if (present[c])
            stream_total += total[c] = rd2(o, total[c]);
    for (int c = 0; ok && c < DFS_GPU_IDLE_CATS; c++) {
        if (!present[c])
            continue;
        dfs_gpu_idle_row *r = &rows[(*nrows)++];
        *r = (dfs_gpu_idle_row){.stream = sorted[0]->stream, .category = (dfs_gpu_idle_cat)c, .idle_us = total[c]};
        r->ratio = stream_total != 0 ? rd2(o, total[c] / stream_total) : NAN;
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (cat[i] == (dfs_gpu_idle_cat)c && !isnan(gap_ns[i]))
                gaps[m++] = gap_ns[i] / 1000;
        describe(o, gaps, m, r);
    }
    free(cat), free(keys), free(perm), free(sorted), free(gap_ns);
    return ok;
}

bool gpu_idle(const dfs_gpu_options *o, gpu_work *w, size_t n, dfs_gpu_rank *out, dfs_arena *keep)
{
    qsort(w, n, sizeof *w, cmp_order);
    gpu_work **k = malloc((n ? n : 1) * sizeof *k);
    int64_t *streams = malloc((n ? n : 1) * sizeof *streams);
    double *gaps = malloc((n ? n : 1) * sizeof *gaps);
    bool ok = k && streams && gaps;
    size_t ns = 0;
    for (size_t i = 0; ok && i < n; i++) {
        if (!w[i].queued)
            continue;
        size_t s = 0;
        while (s < ns && streams[s] != w[i].stream)
            s++;
        if (s == ns)
            streams[ns++] = w[i].stream;
    }
    out->idle = ok ? dfs_arena_alloc(keep, (ns ? ns : 1) * DFS_GPU_IDLE_CATS * sizeof *out->idle) : NULL;
    ok = ok && out->idle;
    for (size_t s = 0; ok && s < ns; s++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (w[i].queued && w[i].stream == streams[s])
                k[m++] = &w[i];
        ok = one_stream(o, k, m, gaps, out->idle, &out->nidle);
    }
    free(k), free(streams), free(gaps);
    return ok;
}
