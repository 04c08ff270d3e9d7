/* steps_verdict.c - the verdicts of spec §4.4 with their evidence, and the usual remedies. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/steps/steps_internal.h"
#include "util/numstat.h"

#define SMDEBUG_MAX_OUTLIERS 10 /* StepOutlier triggers above this many outliers */
#define COMPOSER_MIN_WAIT_NS 1e6
#define COMPOSER_MIN_SHARE 0.01
#define MAX_IO_ITEMS 10

const char *dfs_verdict_state_name(dfs_verdict_state s)
{
    static const char *const names[] = {"no", "yes", "not_evaluated", "unavailable"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : NULL;
}

const char *dfs_verdict_name(dfs_verdict_id v)
{
    static const char *const names[DFS_V_COUNT] = {"input_bound",   "composer_input_bound", "slow_fetches",
                                                   "slow_batches",  "step_outliers",        "storage_bound"};
    return (unsigned)v < DFS_V_COUNT ? names[v] : NULL;
}

/* ---- statistics ------------------------------------------------------------------------------ */

double dfs_steps_pruned_mean(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return NAN;
    memcpy(tmp, v, n * sizeof *tmp);
    double med = dfs_median_inplace(tmp, n);
    for (size_t i = 0; i < n; i++)
        tmp[i] = fabs(v[i] - med);
    double mad = dfs_median_inplace(tmp, n), sum = 0;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (mad == 0 || fabs(v[i] - med) / mad < 2.0) {
            sum += v[i];
            kept++;
        }
    }
    free(tmp);
    return kept ? sum / (double)kept : med;
}

/* ---- helpers ------------------------------------------------------------------------------ */

static double ms(double ns) { return ns / 1e6; }

static int cmp_items(const void *pa, const void *pb)
{
    const dfs_verdict_item *a = pa, *b = pb;
    if (a->value != b->value)
        return a->value > b->value ? -1 : 1;
    return (a->start > b->start) - (a->start < b->start);
}

static bool keep_items(dfs_steps_verdict *v, dfs_verdict_item *items, size_t n, st_owned *owned)
{
    if (n > 1)
        qsort(items, n, sizeof *items, cmp_items);
    dfs_verdict_item *copy = st_alloc(owned, n, sizeof *copy);
    if (!copy)
        return false;
    if (n)
        memcpy(copy, items, n * sizeof *items);
    v->items = copy;
    v->nitems = n;
    return true;
}

static void unavailable(dfs_steps_verdict *v, const char *what)
{
    v->state = DFS_VERDICT_UNAVAILABLE;
    snprintf(v->evidence, sizeof v->evidence, "%s", what);
}

/* ---- TensorBoard's rule on the project's steps -------------------------------------------- */

static void input_bound(dfs_steps_run *r, const dfs_steps_options *opt)
{
    dfs_steps_verdict *v = &r->verdicts[DFS_V_INPUT_BOUND];
    const dfs_steps_agg *a = &r->counted;
    v->threshold = opt->wait_threshold;
    v->datapoints = a->steps;
    if (!r->available[DFS_SM_EXPOSED_WAIT])
        return unavailable(v, "no data-wait concept in this trace");
    if (a->steps == 0 || a->sum[DFS_SM_STEP_TIME] <= 0) {
        v->state = DFS_VERDICT_NOT_EVALUATED;
        snprintf(v->evidence, sizeof v->evidence, "no steps");
        return;
    }
    double t = (double)a->sum[DFS_SM_STEP_TIME];
    v->value = (double)a->sum[DFS_SM_EXPOSED_WAIT] / t;
    v->state = v->value > opt->wait_threshold ? DFS_VERDICT_YES : DFS_VERDICT_NO;
    snprintf(v->evidence, sizeof v->evidence,
             "exposed data wait %.2f %% of step time over %llu steps%s (inclusive wait %.2f %%); threshold %.2f %%",
             100 * v->value, (unsigned long long)a->steps,
             r->counted_is_all ? "" : " (warm-up and last excluded)",
             100 * (double)a->sum[DFS_SM_DATA_WAIT] / t, 100 * opt->wait_threshold);
}

/* ---- Composer PR #1374 (every step with a wait, as Composer counts them) ------------------- */

static bool composer_rule(dfs_steps_run *r, const dfs_steps_options *opt)
{
    dfs_steps_verdict *v = &r->verdicts[DFS_V_COMPOSER];
    if (!r->available[DFS_SM_DATA_WAIT]) {
        unavailable(v, "no data-wait concept in this trace");
        return true;
    }
    double *w = calloc(r->nsteps + 1, sizeof *w), *b = calloc(r->nsteps + 1, sizeof *b);
    if (!w || !b) {
        free(w);
        free(b);
        return false;
    }
    size_t n = 0;
    for (size_t i = 0; i < r->nsteps; i++) {
        if (!r->steps[i].has_wait)
            continue;
        w[n] = (double)r->steps[i].m[DFS_SM_DATA_WAIT];
        b[n++] = (double)(r->steps[i].m[DFS_SM_STEP_TIME] - r->steps[i].m[DFS_SM_DATA_WAIT]);
    }
    v->datapoints = n;
    v->value = dfs_steps_pruned_mean(w, n);
    v->reference = dfs_steps_pruned_mean(b, n);
    v->threshold = COMPOSER_MIN_WAIT_NS;
    free(w);
    free(b);
    double share = v->reference > 0 ? v->value / v->reference : NAN;
    bool evaluated = n >= opt->composer_min_points;
    if (evaluated)
        v->state = v->value > COMPOSER_MIN_SHARE * v->reference && v->value > COMPOSER_MIN_WAIT_NS ? DFS_VERDICT_YES
                                                                                                   : DFS_VERDICT_NO;
    else
        v->state = DFS_VERDICT_NOT_EVALUATED;
    if (n == 0) /* no mean to show: words, not nan */
        snprintf(v->evidence, sizeof v->evidence, "not evaluated: no step has a data wait (needs %u)",
                 opt->composer_min_points);
    else if (isnan(share))
        snprintf(v->evidence, sizeof v->evidence,
                 "%s%zu data-wait datapoints: pruned-mean wait %.3f ms; the batch time without it is 0, so no share"
                 "%s",
                 evaluated ? "" : "not evaluated, ", n, ms(v->value), evaluated ? "" : " (needs 10)");
    else
        snprintf(v->evidence, sizeof v->evidence,
                 "%s%zu data-wait datapoints: pruned-mean wait %.3f ms, %.2f %% of the pruned-mean batch time %.3f ms "
                 "(limits 1 %% and 1 ms)%s",
                 evaluated ? "" : "not evaluated, ", n, ms(v->value), 100 * share, ms(v->reference),
                 evaluated ? "" : " (needs 10)");
    return true;
}

/* ---- smdebug's outlier rules -------------------------------------------------------------- */

/* An outlier is at least factor x the median and at least the floor: the ratio alone would call a
 * 0.065 ms wait slow next to a 0.032 ms median. */
static double outlier_limit(const dfs_steps_options *opt, double median)
{
    double by_ratio = opt->outlier_factor * median;
    return by_ratio > (double)opt->outlier_floor_ns ? by_ratio : (double)opt->outlier_floor_ns;
}

static bool slow_fetches(dfs_steps_run *r, const dfs_steps_options *opt, st_owned *owned)
{
    dfs_steps_verdict *v = &r->verdicts[DFS_V_SLOW_FETCHES];
    if (!r->available[DFS_SM_DATA_WAIT]) {
        unavailable(v, "no data-wait concept in this trace");
        return true;
    }
    double *w = calloc(r->nsteps + 1, sizeof *w);
    dfs_verdict_item *items = calloc(r->nsteps + 1, sizeof *items);
    if (!w || !items) {
        free(w);
        free(items);
        return false;
    }
    size_t n = 0, k = 0;
    for (size_t i = 0; i < r->nsteps; i++)
        if (r->steps[i].has_wait)
            w[n++] = (double)r->steps[i].m[DFS_SM_DATA_WAIT];
    v->datapoints = n;
    v->reference = dfs_median_inplace(w, n);
    v->threshold = outlier_limit(opt, v->reference);
    for (size_t i = 0; n && i < r->nsteps; i++) {
        const dfs_step *s = &r->steps[i];
        double d = (double)s->m[DFS_SM_DATA_WAIT];
        if (s->has_wait && d > 0 && d >= v->threshold)
            items[k++] = (dfs_verdict_item){.step = s->number, .start = s->start, .end = s->end, .value = d};
    }
    v->value = (double)k;
    v->state = n == 0 ? DFS_VERDICT_NOT_EVALUATED : k ? DFS_VERDICT_YES : DFS_VERDICT_NO;
    if (n == 0)
        snprintf(v->evidence, sizeof v->evidence, "no step has a data wait to compare");
    else
        snprintf(v->evidence, sizeof v->evidence, "%zu of %zu data waits >= %.3g x the median %.3f ms and >= %.3f ms",
                 k, n, opt->outlier_factor, ms(v->reference), ms((double)opt->outlier_floor_ns));
    bool ok = keep_items(v, items, k, owned);
    free(w);
    free(items);
    return ok;
}

static int cmp_by_lane_end(const void *pa, const void *pb)
{
    const st_wait_marker *a = pa, *b = pb;
    if (a->lane_pid != b->lane_pid)
        return a->lane_pid < b->lane_pid ? -1 : 1;
    if (a->lane_tid != b->lane_tid)
        return a->lane_tid < b->lane_tid ? -1 : 1;
    if (a->end != b->end)
        return a->end < b->end ? -1 : 1;
    return (a->start > b->start) - (a->start < b->start);
}

/* smdebug's batch time (§1.3): per lane, sorted by end, start minus the previous start; negative
 * gaps (nested or interleaved waits) are kept and counted. */
static bool slow_batches(dfs_steps_run *r, const st_verdict_input *in, st_owned *owned)
{
    dfs_steps_verdict *v = &r->verdicts[DFS_V_SLOW_BATCHES];
    if (!r->available[DFS_SM_DATA_WAIT]) {
        unavailable(v, "no data-wait concept in this trace");
        return true;
    }
    size_t n = in->nmarkers;
    st_wait_marker *mk = malloc((n + 1) * sizeof *mk);
    double *gaps = malloc((n + 1) * sizeof *gaps);
    dfs_verdict_item *items = malloc((n + 1) * sizeof *items);
    bool ok = mk && gaps && items;
    size_t ng = 0, k = 0;
    if (ok) {
        if (n)
            memcpy(mk, in->markers, n * sizeof *mk);
        qsort(mk, n, sizeof *mk, cmp_by_lane_end);
        for (size_t i = 1; i < n; i++) {
            if (mk[i].lane_pid != mk[i - 1].lane_pid || mk[i].lane_tid != mk[i - 1].lane_tid)
                continue;
            int64_t g = mk[i].start - mk[i - 1].start;
            r->counts.negative_gaps += g < 0;
            items[ng] = (dfs_verdict_item){.step = -1, .start = mk[i - 1].start, .end = mk[i].start, .value = (double)g};
            gaps[ng++] = (double)g;
        }
        v->datapoints = ng;
        v->reference = dfs_median_inplace(gaps, ng);
        v->threshold = outlier_limit(in->opt, v->reference);
        for (size_t i = 0; i < ng; i++)
            if (items[i].value > 0 && items[i].value >= v->threshold)
                items[k++] = items[i];
        v->value = (double)k;
        v->state = ng == 0 ? DFS_VERDICT_NOT_EVALUATED : k ? DFS_VERDICT_YES : DFS_VERDICT_NO;
        if (ng == 0)
            snprintf(v->evidence, sizeof v->evidence, "fewer than two data-wait starts on a lane: no batch time");
        else
            snprintf(v->evidence, sizeof v->evidence,
                     "%zu of %zu gaps between data-wait starts >= %.3g x the median %.3f ms and >= %.3f ms", k, ng,
                     in->opt->outlier_factor, ms(v->reference), ms((double)in->opt->outlier_floor_ns));
        ok = keep_items(v, items, k, owned);
    }
    free(mk);
    free(gaps);
    free(items);
    return ok;
}

typedef struct mode_stats {
    size_t n;
    double mean, limit;
} mode_stats;

static mode_stats stats_of_mode(const dfs_steps_run *r, int mode, double sigma)
{
    mode_stats st = {0};
    double sum = 0, sq = 0;
    for (size_t i = 0; i < r->nsteps; i++) {
        if (r->steps[i].mode != mode)
            continue;
        st.n++;
        sum += (double)r->steps[i].m[DFS_SM_STEP_TIME];
    }
    if (!st.n)
        return st;
    st.mean = sum / (double)st.n;
    for (size_t i = 0; i < r->nsteps; i++) {
        double d = (double)r->steps[i].m[DFS_SM_STEP_TIME] - st.mean;
        sq += r->steps[i].mode == mode ? d * d : 0;
    }
    st.limit = st.mean + sigma * sqrt(sq / (double)st.n);
    return st;
}

static size_t outliers_of(const dfs_steps_run *r, int mode, double limit, dfs_verdict_item *items)
{
    size_t k = 0;
    for (size_t i = 0; i < r->nsteps; i++) {
        const dfs_step *s = &r->steps[i];
        if (s->mode == mode && (double)s->m[DFS_SM_STEP_TIME] > limit)
            items[k++] = (dfs_verdict_item){.step = s->number, .start = s->start, .end = s->end,
                                            .value = (double)s->m[DFS_SM_STEP_TIME]};
    }
    return k;
}

/* smdebug StepOutlier per mode: more than outlier_min_steps steps, step_time > mean + 3 sigma,
 * triggered beyond 10 outliers. When no mode has enough steps, the would-be outliers of the
 * largest mode are listed anyway (state not_evaluated). */
static bool step_outliers(dfs_steps_run *r, const dfs_steps_options *opt, st_owned *owned)
{
    dfs_steps_verdict *v = &r->verdicts[DFS_V_STEP_OUTLIERS];
    dfs_verdict_item *items = calloc(r->nsteps + 1, sizeof *items);
    if (!items)
        return false;
    mode_stats st[DFS_MODE_COUNT];
    int best = -1;
    bool any_eval = false, triggered = false;
    for (int m = 0; m < DFS_MODE_COUNT; m++) {
        st[m] = stats_of_mode(r, m, opt->outlier_sigma);
        any_eval |= st[m].n > opt->outlier_min_steps;
        if (st[m].n && (best < 0 || st[m].n > st[best].n))
            best = m;
    }
    size_t k = 0;
    for (int m = 0; m < DFS_MODE_COUNT; m++) {
        bool eval = st[m].n > opt->outlier_min_steps;
        if (any_eval ? !eval : m != best)
            continue;
        size_t c = outliers_of(r, m, st[m].limit, items + k);
        triggered |= eval && c > SMDEBUG_MAX_OUTLIERS;
        k += c;
    }
    if (best >= 0) {
        v->threshold = st[best].limit;
        v->reference = st[best].mean;
        v->datapoints = st[best].n;
    }
    v->value = (double)k;
    v->state = triggered ? DFS_VERDICT_YES : any_eval ? DFS_VERDICT_NO : DFS_VERDICT_NOT_EVALUATED;
    if (best < 0)
        snprintf(v->evidence, sizeof v->evidence, "not evaluated: no steps");
    else
        snprintf(v->evidence, sizeof v->evidence, "%s%zu steps above mean + %.3g sigma = %.3f ms (%llu %s steps%s)",
                 any_eval ? "" : "not evaluated, would flag ", k, opt->outlier_sigma, ms(v->threshold),
                 (unsigned long long)v->datapoints, dfs_step_mode_name((dfs_step_mode)best),
                 any_eval ? "" : "; needs more than 100 per mode");
    bool ok = keep_items(v, items, k, owned);
    free(items);
    return ok;
}

/* ---- storage-bound waits -------------------------------------------------------------------- */

static bool storage_bound(dfs_steps_run *r, const st_verdict_input *in, st_owned *owned)
{
    dfs_steps_verdict *v = &r->verdicts[DFS_V_STORAGE_BOUND];
    if (!r->available[DFS_SM_IO_IN_WAIT]) {
        unavailable(v, r->available[DFS_SM_DATA_WAIT] ? "no I/O concept in this trace" : "no data-wait concept in this trace");
        return true;
    }
    const dfs_steps_agg *a = &r->counted;
    v->threshold = in->opt->storage_threshold;
    v->datapoints = a->steps;
    if (a->sum[DFS_SM_DATA_WAIT] <= 0) {
        v->state = DFS_VERDICT_NOT_EVALUATED;
        snprintf(v->evidence, sizeof v->evidence, "no data wait to explain");
        return true;
    }
    v->value = (double)a->sum[DFS_SM_IO_IN_WAIT] / (double)a->sum[DFS_SM_DATA_WAIT];
    v->state = v->value > v->threshold ? DFS_VERDICT_YES : DFS_VERDICT_NO;
    size_t k = in->nio_names < MAX_IO_ITEMS ? in->nio_names : MAX_IO_ITEMS;
    dfs_verdict_item items[MAX_IO_ITEMS];
    for (size_t i = 0; i < k; i++)
        items[i] = (dfs_verdict_item){.step = -1, .value = (double)in->io_names[i].in_wait,
                                      .name = in->io_names[i].name, .count = in->io_names[i].count};
    size_t len;
    const char *top = k ? dfs_str_get(in->run, items[0].name, &len) : "";
    snprintf(v->evidence, sizeof v->evidence, "I/O calls cover %.2f %% of the data wait (threshold %.0f %%)%s%s",
             100 * v->value, 100 * v->threshold, k ? "; most in " : "", top);
    return keep_items(v, items, k, owned);
}

/* ---- remedies -------------------------------------------------------------------------------- */

static bool remedies(dfs_steps_run *r, st_owned *o)
{
    const char *list[4];
    size_t n = 0;
    bool input = r->input_bound || r->verdicts[DFS_V_COMPOSER].state == DFS_VERDICT_YES;
    if (input) {
        list[n++] = r->counts.single_process_loader
                        ? st_printf(o, "more data-loader workers: num_workers=0 (_SingleProcessDataLoaderIter) loads "
                                       "every batch on the training thread; use DataLoader(num_workers > 0)")
                        : st_printf(o, "more data-loader workers (num_workers), so that the next batch is ready "
                                       "when the step asks for it");
        if (r->counts.pageable_h2d)
            list[n++] = st_printf(o, "pin_memory=True: %llu host-to-device copies come from pageable memory "
                                     "(Memcpy HtoD (Pageable -> Device))",
                                  (unsigned long long)r->counts.pageable_h2d);
        list[n++] = st_printf(o, "prefetching: keep batches ahead of the loop (prefetch_factor, non_blocking "
                                 "copies, a prefetching loader)");
    }
    if (r->verdicts[DFS_V_STORAGE_BOUND].state == DFS_VERDICT_YES)
        list[n++] = st_printf(o, "faster storage or caching: %.1f %% of the data wait is spent in I/O calls",
                              100 * r->verdicts[DFS_V_STORAGE_BOUND].value);
    const char **arr = st_alloc(o, n, sizeof *arr);
    if (!arr)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(arr[i] = list[i]))
            return false;
    r->remedies = arr;
    r->nremedies = n;
    return true;
}

bool st_verdicts(dfs_steps_run *r, const st_verdict_input *in, st_owned *owned)
{
    input_bound(r, in->opt);
    r->input_bound = r->verdicts[DFS_V_INPUT_BOUND].state == DFS_VERDICT_YES;
    return composer_rule(r, in->opt) && slow_fetches(r, in->opt, owned) && slow_batches(r, in, owned) &&
           step_outliers(r, in->opt, owned) && storage_bound(r, in, owned) && remedies(r, owned);
}
