/* numstat.h - statistics on doubles computed exactly as NumPy and Python compute them, so that the
 * analyses reproducing smdebug, Composer and the TensorBoard plugin (steps, rules, dataloader) print
 * the reference tools' numbers to the last digit. One implementation, shared.
 *
 * Conventions (spec training-loop.md): median = mean of the two middle values for an even count;
 * quantiles are NumPy's default 'linear' method; mean and population standard deviation use
 * NumPy's pairwise summation; NaN is returned for an empty input. */
#ifndef DFS_NUMSTAT_H
#define DFS_NUMSTAT_H
#include <stddef.h>

/* qsort comparator for doubles, ascending. */
int dfs_cmp_double(const void *a, const void *b);

/* np.median of v[0..n), sorting v in place. */
double dfs_median_inplace(double *v, size_t n);
/* np.median of a copy of v (v untouched); NaN also when out of memory. */
double dfs_median(const double *v, size_t n);

/* np.quantile(v, q) for q in [0, 1], method 'linear' (NumPy >= 1.22), of sorted values. */
double dfs_quantile_sorted(const double *sorted, size_t n, double q);
/* The same on unsorted values (sorts a copy). */
double dfs_quantile(const double *v, size_t n, double q);

/* np.mean and np.std (population, ddof 0), bit-identical to NumPy's pairwise summation. */
double dfs_mean_np(const double *v, size_t n);
double dfs_std_np(const double *v, size_t n);

/* Python's round(x, digits) for 0 <= digits <= 6: correctly rounded, ties to even on the exact
 * binary value (printf does exactly that). Other digit counts and non-finite x are returned as is. */
double dfs_py_round(double x, int digits);
#endif
