/* gpu_ssort.c - numpy 1.24's argsort(kind="quicksort"), an introsort that does not keep equal keys
 * in input order, and pandas' descending sort over it. Holistic Trace Analysis orders its tables
 * with it, so ties come out in its order only when sorted the same way. Also numpy's around() and
 * the searches by correlation the sections share.
 *
 * Invariants: the permutation depends on the keys and their input order only; no allocation
 * (the stack of pending ranges is bounded by the recursion budget, 2 log2 n). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu_internal.h"

enum { SMALL = 15, STACK = 128 };

static void swap(size_t *p, size_t a, size_t b)
{
    size_t t = p[a];
    p[a] = p[b];
    p[b] = t;
}

/* Moves tmp down from a[i] in the max-heap a[1..n] (1-based); the larger child wins only if
 * strictly larger. */
static void sift_down(const int64_t *v, size_t *a, size_t i, size_t n, size_t tmp)
{
    for (size_t j = i << 1; j <= n; j += j) {
        if (j < n && v[a[j]] < v[a[j + 1]])
            j++;
        if (!(v[tmp] < v[a[j]]))
            break;
        a[i] = a[j];
        i = j;
    }
    a[i] = tmp;
}

/* numpy's aheapsort on p[0..n). */
static void heap_sort(const int64_t *v, size_t *p, size_t n)
{
    size_t *a = p - 1; /* 1-based */
    for (size_t l = n >> 1; l > 0; --l)
        sift_down(v, a, l, n, a[l]);
    while (n > 1) {
        size_t tmp = a[n];
        a[n] = a[1];
        sift_down(v, a, 1, --n, tmp);
    }
}

static void insertion_sort(const int64_t *v, size_t *p, size_t lo, size_t hi)
{
    for (size_t i = lo + 1; i <= hi; i++) {
        size_t vi = p[i], j = i;
        while (j > lo && v[vi] < v[p[j - 1]]) {
            p[j] = p[j - 1];
            j--;
        }
        p[j] = vi;
    }
}

/* One partition of p[lo..hi] around a median of three; returns the pivot's place. */
static size_t partition(const int64_t *v, size_t *p, size_t lo, size_t hi)
{
    size_t mid = lo + (hi - lo) / 2;
    if (v[p[mid]] < v[p[lo]])
        swap(p, mid, lo);
    if (v[p[hi]] < v[p[mid]])
        swap(p, hi, mid);
    if (v[p[mid]] < v[p[lo]])
        swap(p, mid, lo);
    int64_t pivot = v[p[mid]];
    swap(p, mid, hi - 1);
    size_t i = lo, j = hi - 1;
    for (;;) {
        do
            i++;
        while (v[p[i]] < pivot);
        do
            j--;
        while (pivot < v[p[j]]);
        if (i >= j)
            break;
        swap(p, i, j);
    }
    swap(p, i, hi - 1);
    return i;
}

void gpu_ssort(const int64_t *v, size_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = i;
    if (n < 2)
        return;
    struct {
        size_t lo, hi;
        int budget;
    } stack[STACK];
    int sp = 0, budget = 0;
    for (size_t m = n; m > 1; m >>= 1)
        budget += 2;
    size_t lo = 0, hi = n - 1;
    for (;;) {
        if (budget < 0) {
            heap_sort(v, p + lo, hi - lo + 1);
        } else {
            while (hi - lo > SMALL) {
                size_t i = partition(v, p, lo, hi);
                budget--;
                if (i - lo < hi - i) {
                    stack[sp].lo = i + 1, stack[sp].hi = hi, stack[sp++].budget = budget;
                    hi = i - 1;
                } else {
                    stack[sp].lo = lo, stack[sp].hi = i - 1, stack[sp++].budget = budget;
                    lo = i + 1;
                }
            }
            insertion_sort(v, p, lo, hi);
        }
        if (sp == 0)
            break;
        sp--;
        lo = stack[sp].lo, hi = stack[sp].hi, budget = stack[sp].budget;
    }
}

void gpu_ssort_desc(const int64_t *v, size_t *p, size_t n)
{
    /* pandas: the reversed keys sorted ascending, mapped back, the order reversed (so small ties
     * keep input order) */
    int64_t *rev = malloc(n * sizeof *rev);
    size_t *q = malloc(n * sizeof *q);
    if (n && (!rev || !q)) {
        for (size_t i = 0; i < n; i++)
            p[i] = i;
        free(rev);
        free(q);
        return;
    }
    for (size_t i = 0; i < n; i++)
        rev[i] = v[n - 1 - i];
    gpu_ssort(rev, q, n);
    for (size_t i = 0; i < n; i++)
        p[n - 1 - i] = n - 1 - q[i];
    free(rev);
    free(q);
}

double gpu_around(double x, int d)
{
    double scale = 1;
    for (int i = 0; i < d; i++)
        scale *= 10;
    return rint(x * scale) / scale;
}

bool gpu_ssort_items(void *items, size_t n, size_t size)
{
    int64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    char *copy = malloc((n ? n : 1) * size);
    bool ok = keys && perm && copy;
    for (size_t i = 0; ok && i < n; i++)
        memcpy(&keys[i], (char *)items + i * size, sizeof *keys);
    if (ok && n) {
        memcpy(copy, items, n * size);
        gpu_ssort(keys, perm, n);
        for (size_t i = 0; i < n; i++)
            memcpy((char *)items + i * size, copy + perm[i] * size, size);
    }
    free(keys), free(perm), free(copy);
    return ok;
}

int gpu_cmp_corr_pos(const void *a, const void *b)
{
    const gpu_corr_pos *x = a, *y = b;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

size_t gpu_lower_bound(const void *base, size_t n, size_t size, int64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t v;
        memcpy(&v, (const char *)base + mid * size, sizeof v);
        if (v < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
