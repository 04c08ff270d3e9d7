/* gpu_launch.c - the launch statistics of one rank: every pair of a host event and a device event
 * sharing a correlation that one of the listed launch calls has (a call with two device events
 * gives two pairs), and per pair the call's duration, the device event's and the delay from the
 * call's end to the device event's start (never below 0); pandas' describe() of each column and of
 * the correlations. Which calls are listed is the caller's (HTA's shorter list under hta). */
#include <math.h>
#include <stdlib.h>

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

bool gpu_launch_stats(const gpu_host *h, size_t nh, const gpu_work *w, size_t n, dfs_gpu_rank *out)
{
    size_t nc;
    int64_t *c = listed_corrs(h, nh, &nc);
    gpu_corr_pos *hk = malloc((nh ? nh : 1) * sizeof *hk), *dk = malloc((n ? n : 1) * sizeof *dk);
    bool ok = c && hk && dk;
    size_t nhk = 0, ndk = 0, pairs = 0;
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
        gpu_describe(col[0], m, &out->launch.correlation);
        gpu_describe(col[1], m, &out->launch.cpu_us);
        gpu_describe(col[2], m, &out->launch.gpu_us);
        gpu_describe(col[3], m, &out->launch.delay_us);
    }
    for (int k = 0; k < 4; k++)
        free(col[k]);
    free(c), free(hk), free(dk);
    return ok;
}
