/* gpu_launch.c - the launch statistics of one rank: every pair of a host event and a device event
 * sharing a correlation that one of the listed launch calls has (a call with two device events
 * gives two pairs), and per pair the call's duration, the device event's and the delay from the
 * call's end to the device event's start (never below 0); pandas' describe() of each column and of
 * the correlations. Which calls are listed is the caller's (HTA's shorter list under hta).
 *
 * The same pairs fall into HTA's outlier classes: short (call <= the runtime threshold and kernel
 * shorter than the call), runtime (call > the runtime threshold), delay (delay > the delay
 * threshold); thresholds compare integer ns, so HTA's whole-µs values compare as HTA compares
 * them. Each class keeps all its pairs, the worst first. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu_internal.h"

/* Sorted keys of the listed calls' correlations; *n = how many. */
static int64_t *listed_corrs(const gpu_host *h, size_t nh, size_t *n)
{
    int64_t *c = malloc((nh ? nh : 1) * sizeof *c);
    gpu_corr_pos *k = malloc((nh ? nh : 1) * sizeof *k);
    size_t m = 0;
    if (c && k) {
        for (size_t i = 0; i < nh; i++)
            if (h[i].listed)
                k[m] = (gpu_corr_pos){h[i].corr, m}, m++;
        qsort(k, m, sizeof *k, gpu_cmp_corr_pos);
        size_t d = 0;
        for (size_t i = 0; i < m; i++)
            if (!d || c[d - 1] != k[i].corr)
                c[d++] = k[i].corr;
        m = d;
    }
    free(k);
    *n = m;
    return c;
}

static bool listed(const int64_t *c, size_t n, int64_t corr)
{
    size_t k = gpu_lower_bound(c, n, sizeof *c, corr);
    return k < n && c[k] == corr;
}

typedef struct pair {
    const gpu_host *x;
    const gpu_work *d;
} pair;

/* Every pair of a listed correlation (host events by correlation, then their device events by
 * correlation and place); *np = how many. NULL when out of memory. */
static pair *pairs_of(const gpu_host *h, size_t nh, const gpu_work *w, size_t n, size_t *np)
{
    size_t nc;
    int64_t *c = listed_corrs(h, nh, &nc);
    gpu_corr_pos *hk = malloc((nh ? nh : 1) * sizeof *hk), *dk = malloc((n ? n : 1) * sizeof *dk);
    pair *p = NULL;
    size_t nhk = 0, ndk = 0, m = 0;
    bool ok = c && hk && dk;
    for (size_t i = 0; ok && i < nh; i++)
        if (listed(c, nc, h[i].corr))
            hk[nhk++] = (gpu_corr_pos){h[i].corr, i};
    for (size_t i = 0; ok && i < n; i++)
        if (w[i].corr != -1 && listed(c, nc, w[i].corr))
            dk[ndk++] = (gpu_corr_pos){w[i].corr, i};
    if (ok) {
        qsort(hk, nhk, sizeof *hk, gpu_cmp_corr_pos);
        qsort(dk, ndk, sizeof *dk, gpu_cmp_corr_pos);
    }
    for (int pass = 0; ok && pass < 2; pass++) { /* count, then fill */
        m = 0;
        for (size_t i = 0, j = 0; i < nhk; i++) {
            while (j < ndk && dk[j].corr < hk[i].corr)
                j++;
            for (size_t k = j; k < ndk && dk[k].corr == hk[i].corr; k++, m++)
                if (pass)
                    p[m] = (pair){&h[hk[i].pos], &w[dk[k].pos]};
        }
        if (!pass)
            ok = (p = malloc((m ? m : 1) * sizeof *p)) != NULL;
    }
    free(c), free(hk), free(dk);
    *np = ok ? m : 0;
    return ok ? p : NULL;
}

static int64_t delay_of(const pair *p)
{
    int64_t delay = p->d->ts - p->x->ts - p->x->dur;
    return delay > 0 ? delay : 0;
}

const char *dfs_gpu_outlier_class_name(dfs_gpu_outlier_class c)
{
    static const char *const names[DFS_GPU_OUT_CLASSES] = {"short", "runtime", "delay"};
    return (unsigned)c < DFS_GPU_OUT_CLASSES ? names[c] : "?";
}

static bool in_class(const dfs_gpu_launch_stats *l, dfs_gpu_outlier_class c, const dfs_gpu_launch_outlier *r)
{
    switch (c) {
    case DFS_GPU_OUT_SHORT: return r->cpu_ns <= l->runtime_ns && r->gpu_ns < r->cpu_ns;
    case DFS_GPU_OUT_RUNTIME: return r->cpu_ns > l->runtime_ns;
    default: return r->delay_ns > l->delay_ns;
    }
}

/* The class's measure: what makes a launch of it worse. */
static int64_t measure(dfs_gpu_outlier_class c, const dfs_gpu_launch_outlier *r)
{
    return c == DFS_GPU_OUT_DELAY ? r->delay_ns : r->cpu_ns;
}

static int cmp_worst_by(dfs_gpu_outlier_class c, const dfs_gpu_launch_outlier *x, const dfs_gpu_launch_outlier *y)
{
    int64_t a = measure(c, x), b = measure(c, y);
    if (a != b)
        return a > b ? -1 : 1;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    if (x->launch_ts != y->launch_ts)
        return x->launch_ts < y->launch_ts ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int cmp_worst_cpu(const void *a, const void *b) { return cmp_worst_by(DFS_GPU_OUT_RUNTIME, a, b); }
static int cmp_worst_delay(const void *a, const void *b) { return cmp_worst_by(DFS_GPU_OUT_DELAY, a, b); }

/* The outlier classes of the pairs p[0..m). */
static bool outliers(const dfs_gpu_options *o, const pair *p, size_t m, dfs_gpu_launch_stats *l, dfs_arena *keep)
{
    l->runtime_ns = o->launch_runtime_ns;
    l->delay_ns = o->launch_delay_ns;
    for (int c = 0; c < DFS_GPU_OUT_CLASSES; c++) {
        dfs_gpu_outlier_set *s = &l->outliers[c];
        *s = (dfs_gpu_outlier_set){0};
        for (int pass = 0; pass < 2; pass++) { /* count, then fill */
            size_t k = 0;
            for (size_t i = 0; i < m; i++) {
                const gpu_work *d = p[i].d;
                dfs_gpu_launch_outlier r = {.name = d->name, .corr = p[i].x->corr, .launch_ts = p[i].x->ts,
                                            .cpu_ns = p[i].x->dur, .gpu_ns = d->end - d->ts, .delay_ns = delay_of(&p[i])};
                if (!in_class(l, (dfs_gpu_outlier_class)c, &r))
                    continue;
                if (pass)
                    s->rows[k] = r, s->total_ns += measure((dfs_gpu_outlier_class)c, &r);
                k++;
            }
            s->count = k;
            if (!pass && !(s->rows = dfs_arena_alloc(keep, (k ? k : 1) * sizeof *s->rows)))
                return false;
        }
        qsort(s->rows, s->count, sizeof *s->rows, c == DFS_GPU_OUT_DELAY ? cmp_worst_delay : cmp_worst_cpu);
    }
    return true;
}

bool gpu_launch_stats(const dfs_gpu_options *o, const gpu_host *h, size_t nh, const gpu_work *w, size_t n,
                      dfs_gpu_rank *out, dfs_arena *keep)
{
    size_t m;
    pair *p = pairs_of(h, nh, w, n, &m);
    double *col[4] = {NULL, NULL, NULL, NULL};
    bool ok = p != NULL;
    for (int k = 0; ok && k < 4; k++)
        ok = (col[k] = malloc((m ? m : 1) * sizeof *col[k])) != NULL;
    for (size_t i = 0; ok && i < m; i++) {
        col[0][i] = (double)p[i].x->corr;
        col[1][i] = (double)p[i].x->dur / 1000;
        col[2][i] = (double)(p[i].d->end - p[i].d->ts) / 1000;
        col[3][i] = (double)delay_of(&p[i]) / 1000;
    }
    if (ok) {
        gpu_describe(col[0], m, &out->launch.correlation);
        gpu_describe(col[1], m, &out->launch.cpu_us);
        gpu_describe(col[2], m, &out->launch.gpu_us);
        gpu_describe(col[3], m, &out->launch.delay_us);
        ok = outliers(o, p, m, &out->launch, keep);
    }
    for (int k = 0; k < 4; k++)
        free(col[k]);
    free(p);
    return ok;
}
