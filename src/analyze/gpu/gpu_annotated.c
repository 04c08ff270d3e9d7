/* gpu_annotated.c - which GPU user annotation each piece of device work of a rank belongs to: the
 * annotations of its lane (pid, tid) whose span [ts, end) intersects the work's are applied from the
 * longest to the shortest, each overwriting the last, so the work ends with the shortest (the
 * innermost of nested ranges); per annotation name, the count and the time of its work, and the
 * work in no annotation.
 *
 * Order of application among equal durations: hta, numpy's unstable descending sort of the
 * annotations in row order (HTA sorts them so); exact, the later start applies last, then the later
 * row. Painting in reverse (the last applied first) gives each piece of work its answer once: a
 * skip list over the work sorted by (pid, tid, start) passes over work already painted, so the cost
 * is O((n + m) log n) plus the unpainted work a range's start bound cannot exclude (work starting
 * within the longest work's duration before the range). */
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu_internal.h"

static int cmp_order(const void *a, const void *b)
{
    const gpu_work *x = a, *y = b;
    return (x->order > y->order) - (x->order < y->order);
}

/* Longest first; equal: the earlier start, then the earlier row, so that the later applies last. */
static int cmp_apply_exact(const void *a, const void *b)
{
    const gpu_work *x = *(const gpu_work *const *)a, *y = *(const gpu_work *const *)b;
    int64_t dx = x->end - x->ts, dy = y->end - y->ts;
    if (dx != dy)
        return dx > dy ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* The annotations in the order they are applied (a in row order); NULL when out of memory. */
static const gpu_work **apply_order(const dfs_gpu_options *o, const gpu_work *a, size_t na)
{
    const gpu_work **p = malloc(na * sizeof *p);
    if (!p)
        return NULL;
    if (o->semantics != DFS_GPU_HTA) {
        for (size_t i = 0; i < na; i++)
            p[i] = &a[i];
        qsort(p, na, sizeof *p, cmp_apply_exact);
        return p;
    }
    int64_t *keys = malloc(na * sizeof *keys);
    size_t *perm = malloc(na * sizeof *perm);
    if (!keys || !perm) {
        free(keys), free(perm), free(p);
        return NULL;
    }
    for (size_t i = 0; i < na; i++)
        keys[i] = a[i].end - a[i].ts;
    gpu_ssort_desc(keys, perm, na);
    for (size_t i = 0; i < na; i++)
        p[i] = &a[perm[i]];
    free(keys), free(perm);
    return p;
}

/* A piece of work by its lane and start. */
typedef struct lane_key {
    int64_t pid, tid, ts;
    size_t pos; /* in w */
} lane_key;

static int cmp_lane(const lane_key *x, int64_t pid, int64_t tid, int64_t ts)
{
    if (x->pid != pid)
        return x->pid < pid ? -1 : 1;
    if (x->tid != tid)
        return x->tid < tid ? -1 : 1;
    return (x->ts > ts) - (x->ts < ts);
}

static int cmp_lane_key(const void *a, const void *b)
{
    const lane_key *x = a, *y = b;
    int c = cmp_lane(x, y->pid, y->tid, y->ts);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* The first key not below (pid, tid, ts). */
static size_t lane_lower(const lane_key *k, size_t n, int64_t pid, int64_t tid, int64_t ts)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_lane(&k[mid], pid, tid, ts) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The next unpainted position from i (path halving). */
static size_t next_free(size_t *skip, size_t i)
{
    while (skip[i] != i) {
        skip[i] = skip[skip[i]];
        i = skip[i];
    }
    return i;
}

/* Paints the work w (keys k[0..n), sorted) with the annotations applied last first: owner[pos] is
 * the annotation of w[pos], NULL none. */
static void paint(const gpu_work **apply, size_t na, const gpu_work *w, const lane_key *k, size_t n, size_t *skip,
                  const gpu_work **owner)
{
    int64_t longest = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t d = w[k[i].pos].end - w[k[i].pos].ts;
        longest = d > longest ? d : longest;
    }
    for (size_t i = 0; i <= n; i++)
        skip[i] = i;
    for (size_t r = na; r-- > 0;) {
        const gpu_work *x = apply[r];
        /* work intersecting [x->ts, x->end) starts before x->end and ends after x->ts, so it
         * starts after x->ts - longest */
        int64_t from = x->ts < INT64_MIN + longest ? INT64_MIN : x->ts - longest;
        size_t j = next_free(skip, lane_lower(k, n, x->pid, x->tid, from));
        while (j < n && k[j].pid == x->pid && k[j].tid == x->tid && k[j].ts < x->end) {
            const gpu_work *y = &w[k[j].pos];
            if (y->ts < x->end && x->ts < y->end) {
                owner[k[j].pos] = x;
                skip[j] = j + 1;
            }
            j = next_free(skip, j + 1);
        }
    }
}

typedef struct owned {
    const char *name;
    int64_t ns;
} owned;

static int cmp_owned(const void *a, const void *b)
{
    const owned *x = a, *y = b;
    return strcmp(x->name, y->name);
}

static int cmp_annotated(const void *a, const void *b)
{
    const dfs_gpu_annotated *x = a, *y = b;
    if (x->kernel_ns != y->kernel_ns)
        return x->kernel_ns > y->kernel_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Per name: the count and time of the work painted with it, by time; the unpainted work last. */
static bool tally(const gpu_work *w, size_t n, const gpu_work **owner, dfs_gpu_rank *out, dfs_arena *keep)
{
    owned *o = malloc((n ? n : 1) * sizeof *o);
    if (!o)
        return false;
    size_t m = 0;
    dfs_gpu_annotated none = {0};
    for (size_t i = 0; i < n; i++) {
        int64_t d = w[i].end - w[i].ts;
        if (owner[i])
            o[m++] = (owned){owner[i]->name, d};
        else
            none.kernels++, none.kernel_ns += d;
    }
    qsort(o, m, sizeof *o, cmp_owned);
    out->annotated = dfs_arena_alloc(keep, (m + 1) * sizeof *out->annotated);
    if (!out->annotated) {
        free(o);
        return false;
    }
    for (size_t i = 0; i < m;) {
        dfs_gpu_annotated *row = &out->annotated[out->nannotated++];
        *row = (dfs_gpu_annotated){.name = o[i].name};
        for (; i < m && strcmp(o[i].name, row->name) == 0; i++)
            row->kernels++, row->kernel_ns += o[i].ns;
    }
    qsort(out->annotated, out->nannotated, sizeof *out->annotated, cmp_annotated);
    out->annotated[out->nannotated++] = none;
    free(o);
    return true;
}

bool gpu_annotated_kernels(const dfs_gpu_options *o, gpu_work *a, size_t na, const gpu_work *w, size_t n,
                           dfs_gpu_rank *out, dfs_arena *keep)
{
    if (!na)
        return true; /* no annotation: nothing to attribute to */
    qsort(a, na, sizeof *a, cmp_order);
    const gpu_work **apply = apply_order(o, a, na);
    lane_key *k = malloc((n ? n : 1) * sizeof *k);
    size_t *skip = malloc((n + 1) * sizeof *skip);
    const gpu_work **owner = calloc(n ? n : 1, sizeof *owner);
    bool ok = apply && k && skip && owner;
    if (ok) {
        for (size_t i = 0; i < n; i++)
            k[i] = (lane_key){w[i].pid, w[i].tid, w[i].ts, i};
        qsort(k, n, sizeof *k, cmp_lane_key);
        paint(apply, na, w, k, n, skip, owner);
        ok = tally(w, n, owner, out, keep);
    }
    free(apply), free(k), free(skip), free(owner);
    return ok;
}
