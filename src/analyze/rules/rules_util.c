/* rules_util.c - what every rule family uses: NumPy's statistics, the details tree, the scan
 * window iterator and the aggregation of framework time (rules_internal.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/rules/rules_internal.h"
#include "util/keymap.h"
#include "util/numstat.h"
#include "util/vec.h"

/* ---- times ------------------------------------------------------------------------------------ */

double dfs_rules_seconds(int64_t ns)
{
    char buf[48];
    uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, sizeof buf, "%s%llu.%09llu", ns < 0 ? "-" : "", (unsigned long long)(mag / 1000000000u),
             (unsigned long long)(mag % 1000000000u));
    return strtod(buf, NULL);
}

double rl_max(const double *v, size_t n)
{
    double m = n ? v[0] : NAN;
    for (size_t i = 1; i < n; i++)
        if (v[i] > m)
            m = v[i];
    return m;
}

double rl_min(const double *v, size_t n)
{
    double m = n ? v[0] : NAN;
    for (size_t i = 1; i < n; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}

/* np.linspace(first, last, nbins + 1) */
static void linspace(double first, double last, size_t nbins, double *edges)
{
    double div = (double)nbins, delta = last - first, step = delta / div;
    for (size_t i = 0; i <= nbins; i++)
        edges[i] = (step == 0 ? (double)i / div * delta : (double)i * step) + first;
    edges[nbins] = last;
}

/* np.histogram with an integer bin count: the index from the position, corrected against the
 * edges themselves so that a value on an edge lands where the edges say. */
bool rl_histogram(const double *v, size_t n, size_t nbins, uint64_t *counts, double *edges)
{
    double first = INFINITY, last = -INFINITY; /* over the finite values (NumPy refuses others) */
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            first = v[i] < first ? v[i] : first;
            last = v[i] > last ? v[i] : last;
        }
    if (first > last) {
        first = 0;
        last = 1;
    }
    if (first == last) {
        first -= 0.5;
        last += 0.5;
    }
    linspace(first, last, nbins, edges);
    memset(counts, 0, nbins * sizeof *counts);
    for (size_t i = 0; i < n; i++) {
        double x = v[i];
        if (!(x >= first && x <= last))
            continue;
        double f = (x - first) / (last - first) * (double)nbins;
        size_t k = !(f >= 0) ? 0 : f >= (double)nbins ? nbins - 1 : (size_t)f;
        if (x < edges[k] && k > 0)
            k--;
        else if (k + 1 < nbins && x >= edges[k + 1])
            k++;
        counts[k]++;
    }
    return true;
}

void rl_box(rl_tree *t, dfs_rv *obj, const double *v, size_t n, double iqr_low)
{
    double p25 = dfs_quantile(v, n, 0.25), p75 = dfs_quantile(v, n, 0.75);
    rl_num(t, obj, "p25", p25);
    rl_num(t, obj, "p50", dfs_quantile(v, n, 0.50));
    rl_num(t, obj, "p75", p75);
    rl_num(t, obj, "p95", dfs_quantile(v, n, 0.95));
    double iqr = p75 - (isnan(iqr_low) ? p25 : iqr_low);
    double upper = p75 + 1.5 * iqr, lower = p25 - 1.5 * iqr;
    double mx = rl_max(v, n), mn = rl_min(v, n);
    rl_num(t, obj, "upper", upper < mx ? upper : mx);
    rl_num(t, obj, "lower", lower > mn ? lower : mn);
}

bool rl_list_push(rl_list *l, double v)
{
    return dfs_vec_push(l, v);
}

void rl_list_free(rl_list *l)
{
    dfs_vec_free(l);
}

/* ---- the details tree ------------------------------------------------------------------------ */

static dfs_rv *node(rl_tree *t, dfs_rv *parent, const char *key, dfs_rv_type type)
{
    dfs_rv *v = dfs_arena_alloc(t->arena, sizeof *v);
    if (!v) {
        t->failed = true;
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->type = type;
    v->key = parent && parent->type == DFS_RV_OBJ ? key : NULL;
    if (parent) {
        if (parent->tail)
            parent->tail->next = v;
        else
            parent->head = v;
        parent->tail = v;
        parent->n++;
    }
    return v;
}

dfs_rv *rl_obj(rl_tree *t, dfs_rv *parent, const char *key)
{
    return node(t, parent, key, DFS_RV_OBJ);
}

dfs_rv *rl_arr(rl_tree *t, dfs_rv *parent, const char *key)
{
    return node(t, parent, key, DFS_RV_ARR);
}

void rl_num(rl_tree *t, dfs_rv *parent, const char *key, double v)
{
    dfs_rv *x = node(t, parent, key, DFS_RV_NUM);
    if (x)
        x->as.d = v;
}

void rl_int(rl_tree *t, dfs_rv *parent, const char *key, int64_t v)
{
    dfs_rv *x = node(t, parent, key, DFS_RV_INT);
    if (x)
        x->as.i = v;
}

void rl_bool(rl_tree *t, dfs_rv *parent, const char *key, bool v)
{
    dfs_rv *x = node(t, parent, key, DFS_RV_BOOL);
    if (x)
        x->as.b = v;
}

void rl_null(rl_tree *t, dfs_rv *parent, const char *key)
{
    node(t, parent, key, DFS_RV_NULL);
}

void rl_str(rl_tree *t, dfs_rv *parent, const char *key, const char *s)
{
    dfs_rv *x = node(t, parent, key, DFS_RV_STR);
    if (x)
        x->as.s = s ? s : "";
}

const char *rl_fmt(rl_tree *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    size_t len = (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
    char *s = dfs_arena_strdup(t->arena, buf, len);
    if (!s)
        t->failed = true;
    return s ? s : "";
}

void rl_nums(rl_tree *t, dfs_rv *parent, const char *key, const double *v, size_t n)
{
    dfs_rv *a = rl_arr(t, parent, key);
    for (size_t i = 0; a && i < n; i++)
        rl_num(t, a, NULL, v[i]);
}

void rl_counts(rl_tree *t, dfs_rv *parent, const char *key, const uint64_t *v, size_t n)
{
    dfs_rv *a = rl_arr(t, parent, key);
    for (size_t i = 0; a && i < n; i++)
        rl_int(t, a, NULL, (int64_t)v[i]);
}

void rl_set_reason(rl_out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->reason, sizeof o->reason, fmt, ap);
    va_end(ap);
}

void rl_set_enable(rl_out *o, size_t values, const char *param1, const char *param2)
{
    o->enable[0] = 0;
    if (values < 2) /* a window or patience of 0 is no setting */
        return;
    const char *name = dfs_rule_name(o->res->id);
    if (param2)
        snprintf(o->enable, sizeof o->enable, "--param %s.%s=%zu --param %s.%s=%zu", name, param1, values - 1, name,
                 param2, values - 1);
    else
        snprintf(o->enable, sizeof o->enable, "--param %s.%s=%zu", name, param1, values - 1);
}

void rl_set_summary(rl_out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->summary, sizeof o->summary, fmt, ap);
    va_end(ap);
}

/* ---- scan windows ---------------------------------------------------------------------------- */

typedef struct win_item {
    uint64_t k;
    uint32_t idx;
} win_item;

static int cmp_win_item(const void *a, const void *b)
{
    const win_item *x = a, *y = b;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static uint64_t window_of(const rl_windows *w, int64_t t)
{
    return t <= w->c->t0 ? 0 : ((uint64_t)t - (uint64_t)w->c->t0) / (uint64_t)w->interval;
}

/* The start of window k, saturated (only reported, never compared). */
static int64_t window_start(const rl_windows *w, uint64_t k)
{
    int64_t off, start;
    if (k > (uint64_t)INT64_MAX || __builtin_mul_overflow((int64_t)k, w->interval, &off) ||
        __builtin_add_overflow(w->c->t0, off, &start))
        return INT64_MAX;
    return start;
}

/* The kept items as (window, index), sorted; the indices then the windows in two arrays. */
static bool sort_items(rl_windows *w, size_t n, bool (*keep_sample)(const rl_sample *),
                       bool (*keep_event)(const rl_event *), uint32_t **idx_out, uint64_t **win_out,
                       size_t *count)
{
    win_item *items = malloc((n ? n : 1) * sizeof *items);
    if (!items)
        return false;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (keep_event && keep_event(&w->c->events[i]))
            items[m++] = (win_item){window_of(w, w->c->events[i].start), (uint32_t)i};
        else if (keep_sample && keep_sample(&w->c->samples[i]))
            items[m++] = (win_item){window_of(w, w->c->samples[i].ts), (uint32_t)i};
    }
    bool sorted = true; /* the usual case: data in time order, nothing to sort */
    for (size_t i = 1; i < m && sorted; i++)
        sorted = cmp_win_item(&items[i - 1], &items[i]) <= 0;
    if (!sorted)
        qsort(items, m, sizeof *items, cmp_win_item);
    *idx_out = malloc((m ? m : 1) * sizeof **idx_out);
    *win_out = malloc((m ? m : 1) * sizeof **win_out);
    bool ok = *idx_out && *win_out;
    for (size_t i = 0; ok && i < m; i++) {
        (*idx_out)[i] = items[i].idx;
        (*win_out)[i] = items[i].k;
    }
    free(items);
    *count = m;
    return ok;
}

bool rl_windows_init(rl_windows *w, const rl_ctx *c, double interval_us,
                     bool (*keep_sample)(const rl_sample *), bool (*keep_event)(const rl_event *))
{
    memset(w, 0, sizeof *w);
    w->c = c;
    double ns = interval_us * 1000.0;
    w->interval = ns < 1000 ? 1000 : ns > 9e18 ? INT64_MAX : (int64_t)ns;
    w->nwindows = c->have_time ? window_of(w, c->t_end) + 1 : 0;
    return sort_items(w, keep_sample ? c->nsamples : 0, keep_sample, NULL, &w->s_idx, &w->s_win, &w->ns) &&
           sort_items(w, keep_event ? c->nevents : 0, NULL, keep_event, &w->e_idx, &w->e_win, &w->ne);
}

bool rl_windows_next(rl_windows *w, rl_window *out)
{
    memset(out, 0, sizeof *out);
    if (w->done)
        return false;
    bool more_s = w->si < w->ns, more_e = w->ei < w->ne;
    if (!more_s && !more_e) {
        out->k = w->nwindows;
        out->idle_before = w->nwindows > w->next_k ? w->nwindows - w->next_k : 0;
        out->start = window_start(w, w->nwindows);
        out->last = true;
        w->done = true;
        return true;
    }
    uint64_t k = UINT64_MAX;
    if (more_s)
        k = w->s_win[w->si];
    if (more_e && w->e_win[w->ei] < k)
        k = w->e_win[w->ei];
    out->k = k;
    out->idle_before = k - w->next_k;
    out->start = window_start(w, k);
    out->samples = w->s_idx + w->si;
    while (w->si < w->ns && w->s_win[w->si] == k)
        w->si++;
    out->nsamples = (size_t)(w->s_idx + w->si - out->samples);
    out->events = w->e_idx + w->ei;
    while (w->ei < w->ne && w->e_win[w->ei] == k)
        w->ei++;
    out->nevents = (size_t)(w->e_idx + w->ei - out->events);
    w->next_k = k + 1;
    return true;
}

void rl_windows_free(rl_windows *w)
{
    free(w->s_idx);
    free(w->s_win);
    free(w->e_idx);
    free(w->e_win);
    memset(w, 0, sizeof *w);
}

/* ---- framework time around bottlenecks and outlier steps ------------------------------------ */

typedef struct agg_total {
    dfs_str label;
    int64_t ns;
} agg_total;

typedef DFS_VEC(agg_total) agg_vec;

struct rl_fw_agg {
    dfs_keymap phase_idx, name_idx; /* label -> index in the vectors */
    agg_vec phases, names;
    bool failed;
};

rl_fw_agg *rl_fw_agg_new(void)
{
    rl_fw_agg *a = calloc(1, sizeof *a);
    if (a) {
        dfs_keymap_init(&a->phase_idx, sizeof(dfs_str));
        dfs_keymap_init(&a->name_idx, sizeof(dfs_str));
    }
    return a;
}

void rl_fw_agg_free(rl_fw_agg *a)
{
    if (!a)
        return;
    dfs_keymap_free(&a->phase_idx);
    dfs_keymap_free(&a->name_idx);
    dfs_vec_free(&a->phases);
    dfs_vec_free(&a->names);
    free(a);
}

static void agg_add(rl_fw_agg *a, dfs_keymap *m, agg_vec *v, dfs_str label, int64_t ns)
{
    uint32_t at;
    bool inserted;
    if (!dfs_keymap_get_or_put(m, &label, (uint32_t)v->n, &at, &inserted) ||
        (inserted && !dfs_vec_push(v, ((agg_total){label, 0})))) {
        a->failed = true;
        return;
    }
    v->v[at].ns += ns;
}

static void agg_event(rl_fw_agg *a, const rl_event *e)
{
    agg_add(a, &a->phase_idx, &a->phases, e->phase, e->end - e->start);
    if (!e->is_step)
        agg_add(a, &a->name_idx, &a->names, e->name, e->end - e->start);
}

bool rl_fw_agg_instant(rl_fw_agg *a, const rl_ctx *c, const rl_window *w, int64_t t)
{
    for (size_t i = 0; i < w->nevents; i++) {
        const rl_event *e = &c->events[w->events[i]];
        if (e->start < t && e->end > t)
            agg_event(a, e);
    }
    return !a->failed;
}

bool rl_fw_agg_span(rl_fw_agg *a, const rl_ctx *c, const rl_window *w, int64_t start, int64_t end)
{
    for (size_t i = 0; i < w->nevents; i++) {
        const rl_event *e = &c->events[w->events[i]];
        if (e->start >= start && e->end <= end)
            agg_event(a, e);
    }
    return !a->failed;
}

static int cmp_total(const void *x, const void *y, void *ctx)
{
    const agg_total *a = x, *b = y;
    if (a->ns != b->ns)
        return a->ns > b->ns ? -1 : 1;
    return strcmp(rl_label(ctx, a->label), rl_label(ctx, b->label));
}

static void agg_list(rl_ctx *c, dfs_rv *parent, const char *key, agg_vec *v)
{
    if (v->n > 1)
        qsort_r(v->v, v->n, sizeof *v->v, cmp_total, c);
    dfs_rv *arr = rl_arr(&c->tree, parent, key);
    for (size_t i = 0; arr && i < v->n && i < 20; i++) {
        dfs_rv *o = rl_obj(&c->tree, arr, NULL);
        rl_str(&c->tree, o, "name", rl_label(c, v->v[i].label));
        rl_num(&c->tree, o, "time_us", (double)v->v[i].ns / 1e3);
    }
}

/* The 20 phases and event names with the most time, in µs (the reference's pie charts). */
void rl_fw_agg_details(rl_fw_agg *a, rl_ctx *c, dfs_rv *details)
{
    if (!a->phases.n)
        return;
    dfs_rv *fw = rl_obj(&c->tree, details, "framework");
    agg_list(c, fw, "phases", &a->phases);
    agg_list(c, fw, "events", &a->names);
}
