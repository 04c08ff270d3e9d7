/* gpu_launch.c - the launch statistics of one rank: every pair of a host event and a device event
 * sharing a correlation that one of the listed launch calls has (a call with two device events
 * gives two pairs), and per pair the call's duration, the device event's and the delay from the
 * call's end to the device event's start (never below 0); pandas' describe() of each column and of
 * the correlations. Which calls are listed is the caller's (HTA's shorter list under hta). */
#include <math.h>
#include <stdlib.h>

#include "analyze/gpu/gpu_internal.h"

typedef struct key_pos {
    int64_t corr;
    size_t pos;
} key_pos;

static int cmp_key_pos(const void *a, const void *b)
{
    const key_pos *x = a, *y = b;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static void to_public(double *v, size_t n, dfs_gpu_stats *out)
{
    gpu_stats s;
    gpu_describe(v, n, &s);
    *out = (dfs_gpu_stats){.count = s.count, .mean = s.mean, .std = s.std, .min = s.min, .p25 = s.p25,
                           .p50 = s.p50, .p75 = s.p75, .max = s.max};
}

/* Sorted keys of the listed calls' correlations; *n = how many. */
static int64_t *listed_corrs(const gpu_host *h, size_t nh, size_t *n)
{
    int64_t *c = malloc((nh ? nh : 1) * sizeof *c);
    key_pos *k = malloc((nh ? nh : 1) * sizeof *k);
    size_t m = 0;
    if (c && k) {
        for (size_t i = 0; i < nh; i++)
            if (h[i].listed)
                k[m] = (key_pos){h[i].corr, m}, m++;
        qsort(k, m, sizeof *k, cmp_key_pos);
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
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c[mid] < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && c[lo] == corr;
}

bool gpu_launch_stats(const gpu_host *h, size_t nh, const gpu_work *w, size_t n, dfs_gpu_rank *out)
{
    size_t nc;
    int64_t *c = listed_corrs(h, nh, &nc);
    key_pos *hk = malloc((nh ? nh : 1) * sizeof *hk), *dk = malloc((n ? n : 1) * sizeof *dk);
    bool ok = c && hk && dk;
    size_t nhk = 0, ndk = 0, pairs = 0;
    for (size_t i = 0; ok && i < nh; i++)
        if (listed(c, nc, h[i].corr))
            hk[nhk++] = (key_pos){h[i].corr, i};
    for (size_t i = 0; ok && i < n; i++)
        if (w[i].corr != -1 && listed(c, nc, w[i].corr))
            dk[ndk++] = (key_pos){w[i].corr, i};
    if (ok) {
        qsort(hk, nhk, sizeof *hk, cmp_key_pos);
        qsort(dk, ndk, sizeof *dk, cmp_key_pos);
    }
    for (size_t i = 0, j = 0; ok && i < nhk; i++) { /* count the pairs */
        while (j < ndk && dk[j].corr < hk[i].corr)
            j++;
        for (size_t k = j; k < ndk && dk[k].corr == hk[i].corr; k++)
            pairs++;
    }
    double *col[4] = {NULL, NULL, NULL, NULL};
    for (int k = 0; ok && k < 4; k++)
        ok = (col[k] = malloc((pairs ? pairs : 1) * sizeof *col[k])) != NULL;
    size_t m = 0;
    for (size_t i = 0, j = 0; ok && i < nhk; i++) {
        while (j < ndk && dk[j].corr < hk[i].corr)
            j++;
        const gpu_host *x = &h[hk[i].pos];
        for (size_t k = j; k < ndk && dk[k].corr == hk[i].corr; k++, m++) {
            const gpu_work *d = &w[dk[k].pos];
            int64_t delay = d->ts - x->ts - x->dur;
            col[0][m] = (double)x->corr;
            col[1][m] = (double)x->dur / 1000;
            col[2][m] = (double)(d->end - d->ts) / 1000;
            col[3][m] = (double)(delay > 0 ? delay : 0) / 1000;
        }
    }
    if (ok) {
        to_public(col[0], m, &out->launch.correlation);
        to_public(col[1], m, &out->launch.cpu_us);
        to_public(col[2], m, &out->launch.gpu_us);
        to_public(col[3], m, &out->launch.delay_us);
    }
    for (int k = 0; k < 4; k++)
        free(col[k]);
    free(c), free(hk), free(dk);
    return ok;
}
