/* numstat.c - NumPy- and Python-compatible statistics (numstat.h). */
#include "util/numstat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dfs_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double dfs_median_inplace(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, dfs_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double *copy_of(const double *v, size_t n)
{
    double *c = malloc(n * sizeof *c);
    if (c)
        memcpy(c, v, n * sizeof *c);
    return c;
}

double dfs_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *c = copy_of(v, n);
    if (!c)
        return NAN;
    double m = dfs_median_inplace(c, n);
    free(c);
    return m;
}

/* NumPy >= 1.22 'linear': index (n-1)q, and a lerp that counts down from the upper value once
 * the fraction reaches one half (that is how NumPy keeps the result monotonic). */
double dfs_quantile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double h = (double)(n - 1) * q;
    double lo_f = floor(h);
    size_t lo = lo_f <= 0 ? 0 : (size_t)lo_f;
    if (lo > n - 1)
        lo = n - 1;
    size_t hi = lo + 1 < n ? lo + 1 : n - 1;
    double t = h - lo_f, a = sorted[lo], b = sorted[hi];
    double diff = b - a;
    return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

double dfs_quantile(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double *c = copy_of(v, n);
    if (!c)
        return NAN;
    qsort(c, n, sizeof *c, dfs_cmp_double);
    double r = dfs_quantile_sorted(c, n, q);
    free(c);
    return r;
}

/* np.add.reduce over contiguous doubles: 8 interleaved accumulators per block of up to 128
 * values, halves beyond that. Matching it keeps means and deviations bit-identical. */
static double pairwise_sum(const double *a, size_t n)
{
    if (n < 8) {
        double res = 0.;
        for (size_t i = 0; i < n; i++)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        memcpy(r, a, sizeof r);
        size_t i = 8;
        for (; i < n - (n % 8); i += 8)
            for (size_t j = 0; j < 8; j++)
                r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

double dfs_mean_np(const double *v, size_t n)
{
    return n ? (0. + pairwise_sum(v, n)) / (double)n : NAN;
}

double dfs_std_np(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double mean = dfs_mean_np(v, n);
    double *sq = malloc(n * sizeof *sq);
    if (!sq)
        return NAN;
    for (size_t i = 0; i < n; i++)
        sq[i] = (v[i] - mean) * (v[i] - mean);
    double var = (0. + pairwise_sum(sq, n)) / (double)n;
    free(sq);
    return sqrt(var);
}

double dfs_py_round(double x, int digits)
{
    if (!isfinite(x) || digits < 0 || digits > 6)
        return x;
    char buf[400];
    snprintf(buf, sizeof buf, "%.*f", digits, x);
    return strtod(buf, NULL);
}
