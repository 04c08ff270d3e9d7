/* gpu_strag.c - straggler detection across ranks, as Holistic Trace Analysis 0.6.1's
 * get_potential_stragglers does it: the collective kernel whose duration varies most between
 * ranks (the mean over steps of the standard deviation over ranks) is the metric; in each step,
 * the ranks that start it latest (the `candidates` latest starts, ties included) are late there;
 * the ranks late in the most steps are the stragglers.
 *
 * Per rank (gpu_straggler_rows): each row's step — a host row (and a Triton cpu_op on stream 0)
 * takes the last ProfilerStep#N (in row order) it starts in, a kernel (stream > 0) its launch's,
 * other stream-0 rows none —, the time span of each step's rows, the profiler steps present, and
 * the rank's collectives (stream > 0, named ncclKernel..., in a step numbered above 0). Across
 * ranks (gpu_stragglers): the steps of all ranks; their mean length (the span of their rows over
 * their number); collectives shorter than 1% of it are ignored; per rank, stream, step and name
 * the last collective counts; starts and durations are in units of that mean length.
 *
 * Invariants: ranks come out by their number of late steps (descending), then rank (HTA's order on
 * ties may differ); nothing here prints. Memory: a few words per row while a rank is measured;
 * per rank its collectives and one span per step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu_internal.h"

#define NO GPU_NO_ROW
#define NO_ITER INT64_MIN

/* The N of "ProfilerStep <blanks> # <blanks> N"; false for any other name. */
static bool step_number(const char *name, int64_t *n)
{
    if (strncmp(name, "ProfilerStep", 12) != 0)
        return false;
    const char *p = name + 12;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p++ != '#')
        return false;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p < '0' || *p > '9')
        return false;
    int64_t v = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        v = v < INT64_MAX / 10 - 9 ? v * 10 + (*p - '0') : v;
    *n = v;
    return true;
}

typedef struct heap_item {
    size_t pos;
    int64_t end, iter;
} heap_item;

static void heap_push(heap_item *h, size_t *n, heap_item x)
{
    size_t i = (*n)++;
    while (i && h[(i - 1) / 2].pos < x.pos) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = x;
}

static void heap_pop(heap_item *h, size_t *n)
{
    heap_item x = h[--(*n)];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1].pos > h[c].pos)
            c++;
        if (h[c].pos <= x.pos)
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = x;
}

typedef struct by_ts {
    int64_t ts;
    size_t pos;
} by_ts;

static int cmp_by_ts(const void *a, const void *b)
{
    const by_ts *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static bool host_like(const gpu_cp_row *r)
{
    return r->stream < 0 || (r->stream == 0 && strcmp(r->cat, "cpu_op") == 0);
}

/* iter[i] = the step of host row i: the last step in row order with ts <= t < end (a sweep in time
 * with the open steps in a heap by row position). */
static bool host_iterations(const gpu_cp_row *r, size_t n, int64_t *iter)
{
    by_ts *rows = malloc((n ? n : 1) * sizeof *rows), *steps = malloc((n ? n : 1) * sizeof *steps);
    heap_item *h = malloc((n ? n : 1) * sizeof *h);
    if (!rows || !steps || !h) {
        free(rows), free(steps), free(h);
        return false;
    }
    size_t nr = 0, ns = 0, nh = 0;
    int64_t num;
    for (size_t i = 0; i < n; i++) {
        iter[i] = NO_ITER;
        if (host_like(&r[i]))
            rows[nr++] = (by_ts){r[i].ts, i};
        if (host_like(&r[i]) && step_number(r[i].name, &num))
            steps[ns++] = (by_ts){r[i].ts, i};
    }
    qsort(rows, nr, sizeof *rows, cmp_by_ts);
    qsort(steps, ns, sizeof *steps, cmp_by_ts);
    for (size_t k = 0, s = 0; k < nr; k++) {
        int64_t t = rows[k].ts;
        for (; s < ns && steps[s].ts <= t; s++) {
            const gpu_cp_row *x = &r[steps[s].pos];
            step_number(x->name, &num);
            heap_push(h, &nh, (heap_item){steps[s].pos, x->ts + x->dur, num});
        }
        while (nh && h[0].end <= t)
            heap_pop(h, &nh);
        iter[rows[k].pos] = nh ? h[0].iter : -1;
    }
    free(rows), free(steps), free(h);
    return true;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static bool is_collective(const gpu_cp_row *r) { return strncmp(r->name, "ncclKernel", 10) == 0; }

bool gpu_straggler_rows(const gpu_cp_row *r, size_t n, dfs_gpu_rank *out, dfs_arena *keep)
{
    int64_t *iter = malloc((n ? n : 1) * sizeof *iter), *steps = malloc((n ? n : 1) * sizeof *steps);
    gpu_strag_rank *s = dfs_arena_alloc(keep, sizeof *s);
    bool ok = iter && steps && s && host_iterations(r, n, iter);
    size_t nsteps = 0, ncoll = 0, nspan = 0;
    for (size_t i = 0; ok && i < n; i++) {
        if (r[i].stream > 0)
            iter[i] = r[i].partner != NO ? iter[r[i].partner] : -1;
        int64_t num;
        if (step_number(r[i].name, &num))
            steps[nsteps++] = num;
        ncoll += r[i].stream > 0 && iter[i] > 0 && is_collective(&r[i]);
    }
    if (ok) {
        *s = (gpu_strag_rank){0};
        qsort(steps, nsteps, sizeof *steps, cmp_i64);
        for (size_t i = 0; i < nsteps; i++)
            if (!s->nsteps || steps[s->nsteps - 1] != steps[i])
                steps[s->nsteps++] = steps[i];
        s->steps = dfs_arena_alloc(keep, (s->nsteps ? s->nsteps : 1) * sizeof *s->steps);
        s->spans = dfs_arena_alloc(keep, (s->nsteps ? s->nsteps : 1) * sizeof *s->spans);
        s->colls = dfs_arena_alloc(keep, (ncoll ? ncoll : 1) * sizeof *s->colls);
        ok = s->steps && s->spans && s->colls;
    }
    for (size_t i = 0; ok && i < s->nsteps; i++) {
        s->steps[i] = steps[i];
        s->spans[nspan++] = (gpu_iter_span){steps[i], INT64_MAX, INT64_MIN};
    }
    for (size_t i = 0; ok && i < n; i++) {
        if (iter[i] == NO_ITER)
            continue;
        int64_t *hit = bsearch(&iter[i], s->steps, s->nsteps, sizeof *s->steps, cmp_i64);
        if (hit) { /* a row of a step this rank names; other ranks' steps are added across ranks */
            gpu_iter_span *sp = &s->spans[hit - s->steps];
            sp->min_ts = r[i].ts < sp->min_ts ? r[i].ts : sp->min_ts;
            sp->max_end = r[i].ts + r[i].dur > sp->max_end ? r[i].ts + r[i].dur : sp->max_end;
        }
        if (r[i].stream > 0 && iter[i] > 0 && is_collective(&r[i]))
            s->colls[s->ncolls++] = (gpu_coll){iter[i], r[i].stream, r[i].ts, r[i].dur, r[i].name};
    }
    s->nspans = nspan;
    out->strag = ok ? s : NULL;
    free(iter), free(steps);
    return ok;
}

/* ---- across ranks ---- */

typedef struct obs {
    int64_t stream;
    const char *name;
    int64_t iter;
    size_t rank;    /* index in the result's ranks */
    size_t seq;     /* its place among the rank's collectives */
    double start, dur;
} obs;

static int cmp_obs(const void *a, const void *b)
{
    const obs *x = a, *y = b;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    if (x->iter != y->iter)
        return x->iter < y->iter ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static double sample_std(const obs *o, size_t n)
{
    if (n < 2)
        return NAN;
    double m = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        m += o[i].dur;
    m /= (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (o[i].dur - m) * (o[i].dur - m);
    return sqrt(ss / (double)(n - 1));
}

/* The (stream, name) whose durations vary most between ranks: [*lo, *hi) of the sorted o. */
static bool metric_kernel(const obs *o, size_t n, size_t *lo, size_t *hi)
{
    double best = NAN;
    for (size_t i = 0; i < n;) {
        size_t j = i, steps = 0;
        double sum = 0;
        while (j < n && o[j].stream == o[i].stream && strcmp(o[j].name, o[i].name) == 0) {
            size_t k = j;
            while (k < n && o[k].stream == o[j].stream && o[k].iter == o[j].iter && strcmp(o[k].name, o[j].name) == 0)
                k++;
            double sd = sample_std(o + j, k - j);
            if (!isnan(sd))
                sum += sd, steps++;
            j = k;
        }
        double mean = steps ? sum / (double)steps : NAN;
        if (!isnan(mean) && (isnan(best) || mean > best))
            best = mean, *lo = i, *hi = j;
        i = j;
    }
    return !isnan(best);
}

static int cmp_desc_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

typedef struct late {
    int64_t rank;
    uint64_t count;
} late;

static int cmp_late(const void *a, const void *b)
{
    const late *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Counts, per rank, the steps in which it is among the `k` latest starts of o[lo..hi). */
static void count_late(const dfs_gpu_result *res, const obs *o, size_t lo, size_t hi, size_t k, late *l, double *buf)
{
    for (size_t i = 0; i < res->nranks; i++)
        l[i] = (late){res->ranks[i].rank, 0};
    for (size_t i = lo; i < hi;) {
        size_t j = i;
        while (j < hi && o[j].iter == o[i].iter)
            buf[j - i] = o[j].start, j++;
        qsort(buf, j - i, sizeof *buf, cmp_desc_double);
        double threshold = buf[(k < j - i ? k : j - i) - 1];
        for (size_t x = i; x < j; x++)
            l[o[x].rank].count += o[x].start >= threshold;
        i = j;
    }
}

/* The steps of all ranks, their mean length and first start; false when there is none. */
static bool step_scale(const dfs_gpu_result *res, int64_t *t_min, double *mean_iter, uint64_t *nsteps,
                       int64_t *all, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < res->nranks; i++)
        for (size_t k = 0; res->ranks[i].strag && k < res->ranks[i].strag->nsteps && n < cap; k++)
            all[n++] = res->ranks[i].strag->steps[k];
    qsort(all, n, sizeof *all, cmp_i64);
    size_t d = 0;
    for (size_t i = 0; i < n; i++)
        if (!d || all[d - 1] != all[i])
            all[d++] = all[i];
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < res->nranks; i++) {
        const gpu_strag_rank *s = res->ranks[i].strag;
        for (size_t k = 0; s && k < s->nspans; k++)
            if (s->spans[k].min_ts <= s->spans[k].max_end) {
                lo = s->spans[k].min_ts < lo ? s->spans[k].min_ts : lo;
                hi = s->spans[k].max_end > hi ? s->spans[k].max_end : hi;
            }
    }
    *nsteps = d;
    if (!d || lo > hi)
        return false;
    *t_min = lo;
    *mean_iter = ((double)hi - (double)lo) / (double)d;
    return *mean_iter > 0;
}

static size_t total_colls(const dfs_gpu_result *res)
{
    size_t n = 0;
    for (size_t i = 0; i < res->nranks; i++)
        n += res->ranks[i].strag ? res->ranks[i].strag->ncolls : 0;
    return n;
}

/* The observations, sorted: per rank, stream, step and name the last collective, long enough. */
static size_t observations(const dfs_gpu_result *res, int64_t t_min, double mean_iter, const int64_t *steps,
                           size_t nsteps, obs *o)
{
    size_t n = 0;
    for (size_t i = 0; i < res->nranks; i++) {
        const gpu_strag_rank *s = res->ranks[i].strag;
        for (size_t k = 0; s && k < s->ncolls; k++) {
            const gpu_coll *c = &s->colls[k];
            if (bsearch(&c->iter, steps, nsteps, sizeof *steps, cmp_i64) && (double)c->dur >= 0.01 * mean_iter)
                o[n++] = (obs){c->stream, c->name, c->iter, i, k, ((double)c->ts - (double)t_min) / mean_iter,
                               (double)c->dur / mean_iter};
        }
    }
    qsort(o, n, sizeof *o, cmp_obs);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) { /* the last of each (stream, name, step, rank) */
        bool last = i + 1 == n || o[i + 1].rank != o[i].rank || o[i + 1].iter != o[i].iter ||
                    o[i + 1].stream != o[i].stream || strcmp(o[i + 1].name, o[i].name) != 0;
        if (last)
            o[m++] = o[i];
    }
    return m;
}

bool gpu_stragglers(const dfs_gpu_options *o, dfs_gpu_result *res, dfs_arena *keep)
{
    dfs_gpu_stragglers *st = &res->stragglers;
    *st = (dfs_gpu_stragglers){.candidates = o->straggler_candidates};
    size_t steps_cap = 0, nc = total_colls(res);
    for (size_t i = 0; i < res->nranks; i++)
        steps_cap += res->ranks[i].strag ? res->ranks[i].strag->nsteps : 0;
    int64_t *steps = malloc((steps_cap ? steps_cap : 1) * sizeof *steps), t_min = 0;
    obs *ob = malloc((nc ? nc : 1) * sizeof *ob);
    double *buf = malloc((nc ? nc : 1) * sizeof *buf), mean_iter = 0;
    late *l = malloc((res->nranks ? res->nranks : 1) * sizeof *l);
    bool ok = steps && ob && buf && l;
    size_t lo = 0, hi = 0, n = 0;
    if (ok && res->nranks < 2)
        st->status = "fewer than two ranks";
    else if (ok && !step_scale(res, &t_min, &mean_iter, &st->iterations, steps, steps_cap))
        st->status = "no profiler steps (ProfilerStep#N) with events";
    else if (ok && (n = observations(res, t_min, mean_iter, steps, (size_t)st->iterations, ob)) == 0)
        st->status = "no collective (ncclKernel...) of at least 1% of a step";
    else if (ok) {
        if (!metric_kernel(ob, n, &lo, &hi))
            st->status = "no collective ran on two ranks in one step";
    }
    st->mean_iter_ns = mean_iter;
    if (ok && !st->status && st->candidates) {
        st->kernel = ob[lo].name, st->stream = ob[lo].stream;
        count_late(res, ob, lo, hi, st->candidates, l, buf);
        qsort(l, res->nranks, sizeof *l, cmp_late);
        st->ranks = dfs_arena_alloc(keep, st->candidates * sizeof *st->ranks);
        ok = st->ranks != NULL;
        for (size_t i = 0; ok && i < res->nranks && st->nranks < st->candidates; i++)
            if (l[i].count)
                st->ranks[st->nranks++] = (dfs_gpu_straggler){l[i].rank, l[i].count};
    }
    free(steps), free(ob), free(buf), free(l);
    return ok;
}
