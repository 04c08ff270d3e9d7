/* rules_steps.c - the rules over framework events: Dataloader, StepOutlier and
 * MaxInitializationTime (spec/training-loop.md 1.4). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/rules/rules_internal.h"
#include "util/keymap.h"
#include "util/u64map.h"
#include "util/vec.h"

static bool any_sample(const rl_sample *s)
{
    (void)s;
    return true;
}

static bool any_event(const rl_event *e)
{
    (void)e;
    return true;
}

static bool cpu_sample(const rl_sample *s)
{
    return s->dim == RL_DIM_CPU;
}

static bool step_event(const rl_event *e)
{
    return e->is_step;
}

static void raw_detail(rl_ctx *c, dfs_rv *obj, const char *key, const rl_raw *v)
{
    switch (v->type) {
    case DFS_V_BOOL: rl_bool(&c->tree, obj, key, v->i != 0); break;
    case DFS_V_INT: rl_int(&c->tree, obj, key, v->i); break;
    case DFS_V_FLOAT: rl_num(&c->tree, obj, key, v->d); break;
    case DFS_V_STR: rl_str(&c->tree, obj, key, rl_label(c, v->s)); break;
    default: rl_null(&c->tree, obj, key); break;
    }
}

/* ---- Dataloader ------------------------------------------------------------------------------ */

typedef struct dl_state {
    rl_ctx *c;
    bool compat;
    double min_thr, max_thr, patience, max_items;
    size_t cores;
    rl_list parallel;         /* distinct args.pid per second, every window */
    rl_list durations;        /* s */
    rl_raw pin_memory, num_workers;
    int prefetch;             /* compat: -1 None, 0 False, 1 True; clean: 0 or 1 */
    uint64_t datapoints, violations;
    bool checked, details;
    int64_t median;
    dfs_keymap second_pid;    /* {second, pid} seen this window */
    dfs_u64map seconds;       /* second -> index in per_second (this window) */
    DFS_VEC(uint64_t) per_second;
} dl_state;

/* Cores are learned once, from the first window with CPU samples: distinct Names there. */
static bool dl_learn_cores(dl_state *s, const rl_window *w)
{
    if (s->cores)
        return true;
    dfs_u64map names;
    dfs_u64map_init(&names);
    bool ok = true;
    for (size_t i = 0; ok && i < w->nsamples; i++)
        if (s->c->samples[w->samples[i]].dim == RL_DIM_CPU)
            ok = dfs_u64map_put(&names, s->c->samples[w->samples[i]].dev, 1);
    s->cores = names.count;
    dfs_u64map_free(&names);
    return ok;
}

static bool dl_record(dl_state *s, const rl_event *e)
{
    s->datapoints++;
    if (!rl_list_push(&s->durations, (double)(e->end - e->start) / 1e9))
        return false;
    int64_t second = e->start / 1000000000; /* int(start_us / 1e6) */
    uint32_t at;
    if (!dfs_u64map_get(&s->seconds, (uint64_t)second, &at)) {
        at = (uint32_t)s->per_second.n;
        if (!dfs_u64map_put(&s->seconds, (uint64_t)second, at) || !dfs_vec_push(&s->per_second, 0))
            return false;
    }
    if (!e->has_args_pid)
        return true;
    int64_t key[2] = {second, e->args_pid};
    uint32_t dummy;
    bool inserted;
    if (!dfs_keymap_get_or_put(&s->second_pid, key, 0, &dummy, &inserted))
        return false;
    s->per_second.v[at] += inserted;
    return true;
}

static bool dl_event(dl_state *s, const rl_event *e)
{
    if (s->parallel.n > (size_t)s->max_items)
        s->parallel.n = 0;
    rl_ctx *c = s->c;
    if (e->phase && e->phase == c->dataloader_init) {
        if (e->pin_memory.type)
            s->pin_memory = e->pin_memory;
        if (e->num_workers.type)
            s->num_workers = e->num_workers;
    }
    bool loader = e->phase && (e->phase == c->dataloader_worker || e->phase == c->dataloader_iter);
    if (loader) {
        if (!dl_record(s, e))
            return false;
        if (s->compat)
            s->prefetch = -1;
    }
    if (strstr(rl_label(c, e->name), "Prefetch"))
        s->prefetch = 1;
    return true;
}

static bool dl_check(dl_state *s)
{
    for (size_t i = 0; i < s->per_second.n; i++)
        if (!rl_list_push(&s->parallel, (double)s->per_second.v[i]))
            return false;
    double m = dfs_median(s->parallel.v, s->parallel.n);
    if (isnan(m))
        return false;
    s->median = (int64_t)m; /* int(np.median(...)) */
    s->details = true;
    if ((double)s->parallel.n <= s->patience || (!s->cores && !s->compat))
        return true;
    s->checked = true;
    double cores = (double)s->cores;
    m = (double)s->median;
    s->violations += m < cores * (s->min_thr / 100);
    s->violations += m > cores * (s->max_thr / 100);
    return true;
}

static bool dl_window(dl_state *s, const rl_window *w)
{
    if (!dl_learn_cores(s, w))
        return false;
    dfs_u64map_clear(&s->seconds);
    dfs_keymap_free(&s->second_pid);
    dfs_keymap_init(&s->second_pid, 2 * sizeof(int64_t));
    s->per_second.n = 0;
    for (size_t i = 0; i < w->nevents; i++)
        if (!dl_event(s, &s->c->events[w->events[i]]))
            return false;
    return !s->per_second.n || dl_check(s);
}

static void dl_details(dl_state *s, dfs_rv *d)
{
    rl_ctx *c = s->c;
    if (!s->details)
        return;
    if (s->pin_memory.type)
        raw_detail(c, d, "pin_memory", &s->pin_memory);
    if (s->num_workers.type)
        raw_detail(c, d, "num_workers", &s->num_workers);
    if (s->prefetch >= 0)
        rl_bool(&c->tree, d, "prefetch", s->prefetch == 1);
    rl_int(&c->tree, d, "cores", (int64_t)s->cores);
    rl_int(&c->tree, d, "dataloaders", s->median);
    if (!s->durations.n)
        return;
    dfs_rv *t = rl_obj(&c->tree, d, "dataloading_time");
    rl_num(&c->tree, t, "p25", dfs_quantile(s->durations.v, s->durations.n, 0.25));
    rl_num(&c->tree, t, "p50", dfs_quantile(s->durations.v, s->durations.n, 0.50));
    rl_num(&c->tree, t, "p95", dfs_quantile(s->durations.v, s->durations.n, 0.95));
    uint64_t counts[100];
    double edges[101];
    rl_histogram(s->durations.v, s->durations.n, 100, counts, edges);
    rl_counts(&c->tree, t, "probs", counts, 100);
    rl_nums(&c->tree, t, "binedges", edges, 101);
}

static void dl_outcome(dl_state *s, rl_out *o)
{
    bool any_cpu = false;
    for (size_t i = 0; i < s->c->nsamples && !any_cpu; i++)
        any_cpu = s->c->samples[i].dim == RL_DIM_CPU;
    o->res->evaluated = s->checked;
    if (!s->datapoints)
        rl_set_reason(o, "no DataLoaderWorker or DataLoaderIter events");
    else if (!any_cpu)
        rl_set_reason(o, "no CPUUtilization samples: the number of cores is unknown");
    else if (!s->checked)
    {
        rl_set_reason(o, "%zu per-second counts of parallel data loaders (needs more than patience=%g)",
                      s->parallel.n, s->patience);
        rl_set_enable(o, s->parallel.n, "patience", NULL);
    }
    if (s->checked)
        rl_set_summary(o, "%lld parallel data loaders (median) for %zu cores", (long long)s->median,
                       s->cores);
}

bool rl_rule_dataloader(rl_ctx *c, rl_out *o)
{
    const dfs_rule_id R = DFS_RULE_DATALOADER;
    dl_state s = {.c = c, .compat = c->opt->mode == DFS_RULES_COMPAT,
                  .min_thr = rl_param(c, R, "min_threshold"), .max_thr = rl_param(c, R, "max_threshold"),
                  .patience = rl_param(c, R, "patience"), .max_items = rl_param(c, R, "max_datapoints")};
    dfs_keymap_init(&s.second_pid, 2 * sizeof(int64_t));
    dfs_u64map_init(&s.seconds);
    rl_windows it;
    bool ok = rl_windows_init(&it, c, rl_param(c, R, "scan_interval_us"), cpu_sample, any_event);
    rl_window w;
    while (ok && rl_windows_next(&it, &w))
        ok = w.last || dl_window(&s, &w);
    o->res->windows = it.nwindows;
    rl_windows_free(&it);
    if (ok) {
        dl_details(&s, o->details);
        o->res->datapoints = s.datapoints;
        o->res->violations = s.violations;
        o->res->triggered = s.violations > 0;
        dl_outcome(&s, o);
    }
    rl_list_free(&s.parallel);
    rl_list_free(&s.durations);
    dfs_keymap_free(&s.second_pid);
    dfs_u64map_free(&s.seconds);
    dfs_vec_free(&s.per_second);
    return ok;
}

/* ---- StepOutlier ----------------------------------------------------------------------------- */

typedef struct so_group {
    dfs_str node, name;
    rl_list durations;               /* s */
    DFS_VEC(dfs_str) numbers;        /* step numbers, as written */
} so_group;

typedef struct so_state {
    rl_ctx *c;
    double stddev, n_outliers, min_steps;
    dfs_keymap idx;                  /* {node, name} -> group */
    DFS_VEC(so_group) groups;
    uint64_t datapoints, violations, triggered;
    uint64_t last_v, last_t;         /* increments of the last check, repeated in idle windows */
    bool checked;
    rl_fw_agg *agg;
    /* first start/end of each (node, step number) in the current window */
    dfs_keymap intervals;
    DFS_VEC(int64_t) spans;          /* start, end pairs */
} so_state;

static so_group *so_group_of(so_state *s, const rl_event *e)
{
    dfs_str key[2] = {e->node, e->step_name};
    uint32_t at;
    bool inserted;
    if (!dfs_keymap_get_or_put(&s->idx, key, (uint32_t)s->groups.n, &at, &inserted))
        return NULL;
    if (inserted && !dfs_vec_push(&s->groups, ((so_group){.node = e->node, .name = e->step_name})))
        return NULL;
    return &s->groups.v[at];
}

static bool so_event(so_state *s, const rl_event *e)
{
    s->datapoints++;
    so_group *g = so_group_of(s, e);
    if (!g || !rl_list_push(&g->durations, (double)(e->end - e->start) / 1e9) ||
        !dfs_vec_push(&g->numbers, e->step_num))
        return false;
    dfs_str key[2] = {e->node, e->step_num};
    uint32_t at;
    bool inserted;
    if (!dfs_keymap_get_or_put(&s->intervals, key, (uint32_t)(s->spans.n / 2), &at, &inserted))
        return false;
    return !inserted || (dfs_vec_push(&s->spans, e->start) && dfs_vec_push(&s->spans, e->end));
}

static double so_threshold(const so_state *s, const so_group *g)
{
    return dfs_mean_np(g->durations.v, g->durations.n) +
           dfs_std_np(g->durations.v, g->durations.n) * s->stddev;
}

/* Framework events inside the outlier steps of this window (the reference's aggregation). */
static bool so_aggregate(so_state *s, const so_group *g, double thr, const rl_window *w)
{
    if (!s->agg && !(s->agg = rl_fw_agg_new()))
        return false;
    for (size_t i = 0; i < g->durations.n; i++) {
        dfs_str key[2] = {g->node, g->numbers.v[i]};
        uint32_t at;
        if (g->durations.v[i] > thr && dfs_keymap_get(&s->intervals, key, &at) &&
            !rl_fw_agg_span(s->agg, s->c, w, s->spans.v[2 * at], s->spans.v[2 * at + 1]))
            return false;
    }
    return true;
}

static bool so_check(so_state *s, const rl_window *w)
{
    s->last_v = s->last_t = 0;
    for (size_t i = 0; i < s->groups.n; i++) {
        const so_group *g = &s->groups.v[i];
        if ((double)g->durations.n <= s->min_steps)
            continue;
        s->checked = true;
        double thr = so_threshold(s, g);
        uint64_t n = 0;
        for (size_t k = 0; k < g->durations.n; k++)
            n += g->durations.v[k] > thr;
        if ((double)n <= s->n_outliers)
            continue;
        s->last_v += n;
        s->last_t++;
        if (w && w->nevents && !so_aggregate(s, g, thr, w))
            return false;
    }
    s->violations += s->last_v;
    s->triggered += s->last_t;
    return true;
}

static bool so_window(so_state *s, const rl_window *w)
{
    dfs_keymap_free(&s->intervals);
    dfs_keymap_init(&s->intervals, 2 * sizeof(dfs_str));
    s->spans.n = 0;
    for (size_t i = 0; i < w->nevents; i++) {
        const rl_event *e = &s->c->events[w->events[i]];
        if (e->is_step && !so_event(s, e))
            return false;
    }
    return so_check(s, w);
}

static void so_group_details(so_state *s, const so_group *g, dfs_rv *arr)
{
    rl_ctx *c = s->c;
    const double *v = g->durations.v;
    size_t n = g->durations.n;
    double thr = so_threshold(s, g), sd = dfs_std_np(v, n);
    dfs_rv *o = rl_obj(&c->tree, arr, NULL);
    rl_str(&c->tree, o, "node", rl_label(c, g->node));
    rl_str(&c->tree, o, "phase", rl_label(c, g->name));
    dfs_rv *st = rl_obj(&c->tree, o, "step_stats");
    rl_num(&c->tree, st, "mean", dfs_mean_np(v, n));
    rl_num(&c->tree, st, "max", rl_max(v, n));
    rl_num(&c->tree, st, "p99", dfs_quantile(v, n, 0.99));
    rl_num(&c->tree, st, "p95", dfs_quantile(v, n, 0.95));
    rl_num(&c->tree, st, "p50", dfs_quantile(v, n, 0.50));
    rl_num(&c->tree, st, "min", rl_min(v, n));
    rl_num(&c->tree, o, "threshold", thr);
    rl_num(&c->tree, o, "stddev", dfs_py_round(sd, 2));
    double *normal = malloc((n ? n : 1) * sizeof *normal);
    size_t m = 0, outliers = 0;
    dfs_rv *nums = rl_arr(&c->tree, o, "step_numbers");
    for (size_t i = 0; i < n; i++) {
        if (v[i] > thr) {
            outliers++;
            rl_str(&c->tree, nums, NULL, rl_label(c, g->numbers.v[i]));
        }
        if (normal && v[i] < thr)
            normal[m++] = v[i];
    }
    rl_int(&c->tree, o, "number_of_outliers", (int64_t)outliers);
    uint64_t counts[100];
    double edges[101];
    if (!normal) {
        c->tree.failed = true;
        return;
    }
    rl_histogram(normal, m, 100, counts, edges);
    rl_counts(&c->tree, o, "probs", counts, 100);
    rl_nums(&c->tree, o, "binedges", edges, 101);
    free(normal);
}

static void so_outcome(so_state *s, rl_out *o)
{
    rl_ctx *c = s->c;
    dfs_rv *arr = rl_arr(&c->tree, o->details, "step_details");
    const so_group *most = NULL;
    for (size_t i = 0; i < s->groups.n; i++) {
        const so_group *g = &s->groups.v[i];
        if ((double)g->durations.n > s->min_steps)
            so_group_details(s, g, arr);
        if (!most || g->durations.n > most->durations.n)
            most = g;
    }
    if (s->agg)
        rl_fw_agg_details(s->agg, c, o->details);
    o->res->evaluated = s->checked;
    if (!s->datapoints)
        rl_set_reason(o, "no step events (Step:ModeKeys.*, ProfilerStep#N, event/batch)");
    else if (!s->checked)
    {
        rl_set_reason(o, "no step name has more than min_steps=%g steps on one node (most: %zu %s on %s)",
                      s->min_steps, most->durations.n, rl_label(c, most->name), rl_label(c, most->node));
        rl_set_enable(o, most->durations.n, "min_steps", NULL);
    }
    rl_set_summary(o, "%llu step events in %zu groups", (unsigned long long)s->datapoints, s->groups.n);
}

static void so_free(so_state *s)
{
    for (size_t i = 0; i < s->groups.n; i++) {
        rl_list_free(&s->groups.v[i].durations);
        dfs_vec_free(&s->groups.v[i].numbers);
    }
    dfs_vec_free(&s->groups);
    dfs_vec_free(&s->spans);
    dfs_keymap_free(&s->idx);
    dfs_keymap_free(&s->intervals);
    rl_fw_agg_free(s->agg);
}

bool rl_rule_step_outlier(rl_ctx *c, rl_out *o)
{
    const dfs_rule_id R = DFS_RULE_STEP_OUTLIER;
    so_state s = {.c = c, .stddev = rl_param(c, R, "stddev"), .n_outliers = rl_param(c, R, "n_outliers"),
                  .min_steps = rl_param(c, R, "min_steps")};
    dfs_keymap_init(&s.idx, 2 * sizeof(dfs_str));
    dfs_keymap_init(&s.intervals, 2 * sizeof(dfs_str));
    rl_windows it;
    bool ok = rl_windows_init(&it, c, rl_param(c, R, "scan_interval_us"), NULL, any_event);
    rl_window w;
    while (ok && rl_windows_next(&it, &w)) {
        /* every empty window repeats the last check's outcome: same lists, same outliers */
        s.violations += s.last_v * w.idle_before;
        s.triggered += s.last_t * w.idle_before;
        ok = w.last || so_window(&s, &w);
    }
    o->res->windows = it.nwindows;
    rl_windows_free(&it);
    if (ok) {
        o->res->datapoints = s.datapoints;
        o->res->violations = s.violations;
        o->res->triggered = s.triggered;
        so_outcome(&s, o);
    }
    so_free(&s);
    return ok;
}

/* ---- MaxInitializationTime ------------------------------------------------------------------- */

typedef struct mi_state {
    double threshold_ns;
    int64_t interval;
    bool have_sys, have_first, have_last;
    int64_t sys_min, sys_max, first, last;
    uint64_t steps, violations;
} mi_state;

/* Windows k in [from, from + count) whose start is more than the threshold after the first. */
static uint64_t mi_late_windows(const mi_state *s, uint64_t from, uint64_t count)
{
    double kmin_f = s->threshold_ns < 0 ? 0 : floor(s->threshold_ns / (double)s->interval) + 1;
    uint64_t kmin = kmin_f > 1.8e19 ? UINT64_MAX : (uint64_t)kmin_f;
    while (kmin > 0 && (double)(kmin - 1) * (double)s->interval > s->threshold_ns)
        kmin--;
    while (kmin < UINT64_MAX && (double)kmin * (double)s->interval <= s->threshold_ns)
        kmin++;
    uint64_t lo = from > kmin ? from : kmin, hi = from + count;
    return hi > lo ? hi - lo : 0;
}

static void mi_window(mi_state *s, const rl_ctx *c, const rl_window *w)
{
    for (size_t i = 0; i < w->nsamples; i++) {
        int64_t t = c->samples[w->samples[i]].ts;
        s->sys_min = !s->have_sys || t < s->sys_min ? t : s->sys_min;
        s->sys_max = !s->have_sys || t > s->sys_max ? t : s->sys_max;
        s->have_sys = true;
    }
    for (size_t i = 0; i < w->nevents; i++) {
        const rl_event *e = &c->events[w->events[i]];
        s->steps++;
        if (!s->have_first) {
            s->first = e->start;
            s->have_first = true;
        } else {
            s->last = e->start;
            s->have_last = true;
        }
    }
}

bool rl_rule_max_init(rl_ctx *c, rl_out *o)
{
    const dfs_rule_id R = DFS_RULE_MAX_INIT;
    mi_state s = {.threshold_ns = rl_param(c, R, "threshold") * 60e9};
    rl_windows it;
    bool ok = rl_windows_init(&it, c, rl_param(c, R, "scan_interval_us"), any_sample, step_event);
    s.interval = it.interval;
    rl_window w;
    while (ok && rl_windows_next(&it, &w)) {
        if (!s.have_first)
            s.violations += mi_late_windows(&s, w.k - w.idle_before, w.idle_before);
        if (w.last)
            break;
        mi_window(&s, c, &w);
        if (!s.have_first)
            s.violations += mi_late_windows(&s, w.k, 1);
    }
    o->res->windows = it.nwindows;
    rl_windows_free(&it);
    if (!ok)
        return false;
    if (!c->has_steps_source)
        s.violations = 0;
    dfs_rv *d = o->details;
    if (s.have_sys) {
        rl_num(&c->tree, d, "job_start", dfs_rules_seconds(s.sys_min));
        rl_num(&c->tree, d, "job_end", dfs_rules_seconds(s.sys_max));
    }
    dfs_rv *sn = rl_obj(&c->tree, d, "step_num");
    if (s.have_first)
        rl_num(&c->tree, sn, "first", (double)s.first / 1e3);
    if (s.have_last)
        rl_num(&c->tree, sn, "last", (double)s.last / 1e3);
    o->res->datapoints = s.steps;
    o->res->violations = o->res->triggered = s.violations;
    o->res->evaluated = c->has_steps_source && c->have_time;
    if (!c->has_steps_source)
        rl_set_reason(o, "no framework trace that records steps: whether the training loop started is unknown");
    else if (!c->have_time)
        rl_set_reason(o, "no timed data");
    if (s.have_first)
        rl_set_summary(o, "first step %.3f s after the first data", (double)(s.first - c->t0) / 1e9);
    else if (o->res->evaluated)
        rl_set_summary(o, "no step seen");
    return true;
}
