/* overlap_finish.c - the end of an overlap pass: the pending events analysed, every unit measured,
 * the checks of whether the pass holds (a file's clock that moved, a time origin other than the
 * preview's, a streaming assumption that failed: overlap.h), then the result in ov->mem, with
 * its bins (overlap_bins.c) and its epochs and steps (overlap_epochs.c).
 *
 * Invariants: the result is built only from the merged state (ov->total) and only when the pass
 * holds; what could depend on -j is ordered by content (units by host, then pid and tid as
 * numbers; functions by name; the sizes of a function by size); exact class values come from
 * measures as |X|, |X ∩ C| and |C| (dfs_ov_exact_class), sums saturate. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/overlap/overlap_internal.h"

/* ===== finishing: checks =========================================================================== */

/* Events whose file hash was defined in another piece or file: resolved now, then analysed. */
static bool analyse_pending(dfs_overlap *ov, const dfs_run *run)
{
    wstate *t = &ov->total;
    if (!t->pending.n)
        return true;
    if (!t->cls && !(t->cls = dfs_postread_new(&ov->plan)))
        return false;
    t->have_last_proc = t->have_last_thread = false;
    for (size_t i = 0; i < t->pending.n && !t->failed; i++) {
        oev e = t->pending.v[i];
        e.fname = dfs_run_resolve_hash(run, DFS_HASH_FILE, e.file, e.offset, e.fhash);
        dfs_ov_analyse(t, run, &e);
    }
    dfs_vec_free(&t->pending);
    dfs_postread_failed(t->cls, "class", ov->failure, sizeof ov->failure);
    return !t->failed;
}

/* Did a file's clock change after its events were read? Also the true origin under every file's
 * final clock, for a second pass. */
static bool clocks_moved(const dfs_overlap *ov, const dfs_run *run, int64_t *origin)
{
    bool have;
    int64_t o = 0;
    bool moved = dfs_clock_track_settle(&ov->total.clocks, run, ov->opt.clocks, ov->opt.nclocks, dfs_clock_apply, &o,
                                        &have);
    if (have)
        *origin = o;
    return moved;
}

/* Did a streaming assumption fail in some unit (overlap.h)? */
static const char *order_problem(const wstate *t)
{
    if (t->conflict)
        return "a process was flushed in one input stream and also seen in another";
    const scope_vec *vecs[2] = {&t->procs, &t->threads};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < vecs[k]->n; i++) {
            const scope *s = &vecs[k]->v[i];
            if (s->missed)
                return "an epoch or step started before the streaming watermark";
            if (dfs_ovl_late_events(s->eng))
                return "events arrived behind the streaming watermark";
        }
    return NULL;
}

static void finalize_all(wstate *t)
{
    scope_vec *vecs[2] = {&t->procs, &t->threads};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < vecs[k]->n; i++)
            dfs_ov_finalize_scope(t, &vecs[k]->v[i]);
    if (t->global && !dfs_ovl_finish(t->global))
        t->failed = true;
    for (size_t i = 0; i < t->g0.n; i++)
        if (!dfs_ovl_finish(t->g0.v[i]))
            t->failed = true;
}

static void ask_rerun(dfs_overlap *ov, const char *reason, bool no_streaming)
{
    if (!ov->rerun)
        ov->rerun_info.reason = reason;
    ov->rerun = true;
    ov->rerun_info.no_streaming |= no_streaming;
}

/* Decides whether this pass holds; *shift converts the engines' provisional bin numbers. */
static void check_pass(dfs_overlap *ov, const dfs_run *run, int64_t *shift)
{
    wstate *t = &ov->total;
    ov->rerun_info.origin_ns = t->have_time ? t->min_ts : ov->opt.origin_ns;
    ov->rerun_info.no_streaming = ov->opt.no_streaming;
    *shift = 0;
    if (ov->need_bins && t->have_time) {
        __int128 d = (__int128)ov->opt.origin_ns - t->min_ts, g = ov->opt.granularity_ns;
        if (d % g != 0 || d / g > INT32_MAX || d / g < INT32_MIN)
            ask_rerun(ov, "the time origin differs from the preview's", false);
        else
            *shift = (int64_t)(d / g);
    }
    int64_t origin = ov->rerun_info.origin_ns;
    if (clocks_moved(ov, run, &origin)) { /* includes batches of one file with different clocks */
        ov->rerun_info.origin_ns = origin;
        ask_rerun(ov, "a file's clock became known only at its end", false);
    }
    const char *why = ov->opt.no_streaming ? NULL : order_problem(t);
    if (why)
        ask_rerun(ov, why, true);
}

/* ===== finishing: values ============================================================================ */

bool dfs_ov_values_init(dfs_overlap *ov, dfs_overlap_values *v)
{
    memset(v, 0, sizeof *v);
    v->start = INT64_MAX;
    v->end = INT64_MIN;
    v->cls = dfs_arena_alloc(&ov->mem, ov->nclasses * sizeof *v->cls);
    if (!v->cls)
        return false;
    memset(v->cls, 0, ov->nclasses * sizeof *v->cls);
    return true;
}

void dfs_ov_set_span(dfs_overlap_values *v, int64_t start, int64_t end)
{
    v->start = start;
    v->end = end;
    v->total_time = end > start ? sat_sub(end, start) : 0;
}

/* Exact class values from measures: |X|, |X ∩ C| and |C|. */
void dfs_ov_exact_class(dfs_overlap_class_values *cv, size_t c, int64_t measure, int64_t with, int64_t cmeasure)
{
    bool is_c = c == DFS_OVC_COMPUTE;
    cv->time = measure;
    cv->with_compute = is_c ? measure : with;
    cv->unoverlapped = is_c ? 0 : measure - with;
    cv->compute_unoverlapped = is_c ? 0 : cmeasure - with;
}

void dfs_ov_class_add(dfs_overlap_class_values *d, const dfs_overlap_class_values *s)
{
    d->time = sat_add(d->time, s->time);
    d->with_compute = sat_add(d->with_compute, s->with_compute);
    d->unoverlapped = sat_add(d->unoverlapped, s->unoverlapped);
    d->compute_unoverlapped = sat_add(d->compute_unoverlapped, s->compute_unoverlapped);
    d->sum_dur = sat_add(d->sum_dur, s->sum_dur);
    d->events += s->events;
}

void dfs_ov_values_add(const dfs_overlap *ov, dfs_overlap_values *d, const dfs_overlap_values *s)
{
    d->start = min64(d->start, s->start);
    d->end = max64(d->end, s->end);
    d->total_time = sat_add(d->total_time, s->total_time);
    d->events += s->events;
    for (size_t c = 0; c < ov->nclasses; c++)
        dfs_ov_class_add(&d->cls[c], &s->cls[c]);
}

/* Measures of a unit engine (overlap of c with C from |c| + |C| − |c ∪ C|) into class values. */
void dfs_ov_union_values(const dfs_overlap *ov, const dfs_ovl_measure *const *m, dfs_overlap_class_values *cls)
{
    int64_t cm = m[DFS_OVC_COMPUTE]->measure;
    for (size_t c = 0; c < ov->nclasses; c++)
        dfs_ov_exact_class(&cls[c], c, m[c]->measure, dfs_ov_union_with(ov, m, c), cm);
}

void dfs_ov_engine_values(const dfs_overlap *ov, const dfs_ovl *eng, dfs_overlap_values *v)
{
    const dfs_ovl_measure *m[2 * NCLS];
    if (!eng)
        return;
    dfs_ov_engine_measures(ov, eng, m);
    dfs_ov_union_values(ov, m, v->cls);
}

static void counters_values(const dfs_overlap *ov, const scope *s, dfs_overlap_values *v)
{
    dfs_ov_set_span(v, s->start, s->end);
    v->events = s->events;
    for (size_t c = 0; c < ov->nclasses; c++) {
        v->cls[c].sum_dur = s->sum[c];
        v->cls[c].events = s->count[c];
    }
}

/* ----- unit names ----- */

static const char *host_text(dfs_overlap *ov, const dfs_run *run, const scope *s)
{
    dfs_str h = s->host;
    if (!h && s->key.hhash)
        h = dfs_run_resolve_hash(run, DFS_HASH_HOST, s->file, s->offset, s->key.hhash);
    if (!h && s->key.host)
        h = s->key.host;
    char buf[32];
    size_t n;
    if (h) {
        const char *t = dfs_str_get(run, h, &n);
        return dfs_arena_strdup(&ov->mem, t, n);
    }
    if (s->key.hhash) {
        snprintf(buf, sizeof buf, "%016" PRIx64, s->key.hhash);
        return dfs_arena_strdup(&ov->mem, buf, strlen(buf));
    }
    return "unknown";
}

static const char *id_text(dfs_overlap *ov, const dfs_run *run, dfs_str str, int64_t id)
{
    char buf[32];
    size_t n;
    if (str) {
        const char *t = dfs_str_get(run, str, &n);
        return dfs_arena_strdup(&ov->mem, t, n);
    }
    snprintf(buf, sizeof buf, "%" PRId64, id);
    return dfs_arena_strdup(&ov->mem, buf, strlen(buf));
}

static bool unit_init(dfs_overlap *ov, const dfs_run *run, const scope *s, bool thread, dfs_overlap_unit *u)
{
    memset(u, 0, sizeof *u);
    if (!dfs_ov_values_init(ov, &u->v))
        return false;
    counters_values(ov, s, &u->v);
    u->host = host_text(ov, run, s);
    u->pid = id_text(ov, run, s->pid_str, s->key.pid);
    u->tid = thread ? id_text(ov, run, s->tid_str, s->key.tid) : NULL;
    if (!u->host || !u->pid || (thread && !u->tid))
        return false;
    size_t n = strlen(u->host) + strlen(u->pid) + (thread ? strlen(u->tid) : 0) + 3;
    char *key = dfs_arena_alloc(&ov->mem, n);
    if (!key)
        return false;
    if (thread)
        snprintf(key, n, "%s:%s:%s", u->host, u->pid, u->tid);
    else
        snprintf(key, n, "%s:%s", u->host, u->pid);
    u->key = key;
    return true;
}

static dfs_overlap_unit *make_units(dfs_overlap *ov, const dfs_run *run, const scope_vec *v, bool thread)
{
    dfs_overlap_unit *u = dfs_arena_alloc(&ov->mem, (v->n + 1) * sizeof *u);
    for (size_t i = 0; u && i < v->n; i++) {
        if (!unit_init(ov, run, &v->v[i], thread, &u[i]))
            return NULL;
        if (ov->exact)
            dfs_ov_engine_values(ov, v->v[i].eng, &u[i].v);
    }
    return u;
}

/* ----- I/O functions ----- */

typedef struct size_count {
    dfs_str name;
    uint64_t size, count;
} size_count;

static int cmp_size_count(const void *a, const void *b)
{
    const size_count *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return (x->size > y->size) - (x->size < y->size);
}

/* The value at 0-based rank r of sizes [a, b) sorted with multiplicities. */
static double size_at_rank(const size_count *v, size_t a, size_t b, uint64_t r)
{
    for (size_t i = a; i < b; i++) {
        if (r < v[i].count)
            return (double)v[i].size;
        r -= v[i].count;
    }
    return b > a ? (double)v[b - 1].size : NAN;
}

/* Linear interpolation between the order statistics, as pandas' quantile does. */
static double quantile(const size_count *v, size_t a, size_t b, uint64_t n, double p)
{
    double pos = p * (double)(n - 1);
    uint64_t k = (uint64_t)pos;
    double frac = pos - (double)k, lo = size_at_rank(v, a, b, k);
    if (frac == 0 || k + 1 >= n)
        return lo;
    return lo + frac * (size_at_rank(v, a, b, k + 1) - lo);
}

static int cmp_function(const void *a, const void *b)
{
    return strcmp(((const dfs_overlap_function *)a)->name, ((const dfs_overlap_function *)b)->name);
}

/* The run of sc (sorted by name, then size) that holds the sizes of `name`: [*lo, *hi). */
static void size_run(const size_count *sc, size_t n, dfs_str name, size_t *lo, size_t *hi)
{
    size_t a = 0, b = n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (sc[mid].name < name)
            a = mid + 1;
        else
            b = mid;
    }
    for (b = a; b < n && sc[b].name == name;)
        b++;
    *lo = a;
    *hi = b;
}

static bool fill_function(dfs_overlap *ov, const dfs_run *run, const func_acc *a, const size_count *sc, size_t n,
                          dfs_overlap_function *f)
{
    size_t len, lo, hi;
    const char *name = dfs_str_get(run, a->name, &len);
    *f = (dfs_overlap_function){.count = a->count, .sized = a->sized,
                                .bytes = a->bytes > UINT64_MAX ? UINT64_MAX : (uint64_t)a->bytes};
    f->name = dfs_arena_strdup(&ov->mem, name, len);
    if (!f->name)
        return false;
    const char *dot = strrchr(f->name, '.');
    f->short_name = dot ? dot + 1 : f->name;
    size_run(sc, n, a->name, &lo, &hi);
    bool any = a->sized > 0 && hi > lo;
    f->min = any ? (double)sc[lo].size : NAN;
    f->max = any ? (double)sc[hi - 1].size : NAN;
    f->mean = any ? (double)a->bytes / (double)a->sized : NAN;
    f->p25 = any ? quantile(sc, lo, hi, a->sized, 0.25) : NAN;
    f->median = any ? quantile(sc, lo, hi, a->sized, 0.5) : NAN;
    f->p75 = any ? quantile(sc, lo, hi, a->sized, 0.75) : NAN;
    return true;
}

static bool function_stats(dfs_overlap *ov, const dfs_run *run)
{
    const wstate *t = &ov->total;
    size_count *sc = malloc((t->skeys.n + 1) * sizeof *sc);
    dfs_overlap_function *f = dfs_arena_alloc(&ov->mem, (t->funcs.n + 1) * sizeof *f);
    if (!sc || !f) {
        free(sc);
        return false;
    }
    for (size_t i = 0; i < t->skeys.n; i++)
        sc[i] = (size_count){t->skeys.v[i].name, t->skeys.v[i].size, t->scounts.v[i]};
    qsort(sc, t->skeys.n, sizeof *sc, cmp_size_count);
    bool ok = true;
    for (size_t i = 0; ok && i < t->funcs.n; i++)
        ok = fill_function(ov, run, &t->funcs.v[i], sc, t->skeys.n, &f[i]);
    free(sc);
    if (!ok)
        return false;
    qsort(f, t->funcs.n, sizeof *f, cmp_function);
    ov->result.functions = f;
    ov->result.nfunctions = t->funcs.n;
    return true;
}

/* ----- summary and order ----- */

static int64_t pick(int64_t a, int64_t b, bool max) { return max ? max64(a, b) : min64(a, b); }

static uint64_t pick_u(uint64_t a, uint64_t b, bool max) { return max ? (a > b ? a : b) : (a < b ? a : b); }

/* Field by field maximum or minimum (the first unit initialises). */
static void values_extreme(const dfs_overlap *ov, dfs_overlap_values *d, const dfs_overlap_values *s, bool max,
                           bool first)
{
    d->total_time = first ? s->total_time : pick(d->total_time, s->total_time, max);
    d->events = first ? s->events : pick_u(d->events, s->events, max);
    for (size_t c = 0; c < ov->nclasses; c++) {
        dfs_overlap_class_values *x = &d->cls[c];
        const dfs_overlap_class_values *y = &s->cls[c];
        if (first) {
            *x = *y;
            continue;
        }
        x->time = pick(x->time, y->time, max);
        x->with_compute = pick(x->with_compute, y->with_compute, max);
        x->unoverlapped = pick(x->unoverlapped, y->unoverlapped, max);
        x->compute_unoverlapped = pick(x->compute_unoverlapped, y->compute_unoverlapped, max);
        x->sum_dur = pick(x->sum_dur, y->sum_dur, max);
        x->events = pick_u(x->events, y->events, max);
    }
}

static void values_copy(const dfs_overlap *ov, dfs_overlap_values *d, const dfs_overlap_values *s)
{
    dfs_overlap_class_values *cls = d->cls;
    *d = *s;
    d->cls = cls;
    memcpy(cls, s->cls, ov->nclasses * sizeof *cls);
}

static void summarise(dfs_overlap *ov, const dfs_overlap_unit *u, size_t n)
{
    dfs_overlap_result *r = &ov->result;
    if (ov->result.scope == DFS_OVERLAP_GLOBAL) {
        values_copy(ov, &r->summary, &r->global);
        values_copy(ov, &r->max, &r->global);
        values_copy(ov, &r->min, &r->global);
        r->summary_units = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        dfs_ov_values_add(ov, &r->summary, &u[i].v);
        values_extreme(ov, &r->max, &u[i].v, true, i == 0);
        values_extreme(ov, &r->min, &u[i].v, false, i == 0);
    }
    r->summary_units = n;
    dfs_ov_set_span(&r->summary, r->global.start, r->global.end); /* the run's span, not a sum */
    r->max.start = r->min.start = r->global.start;
    r->max.end = r->min.end = r->global.end;
}

/* Numbers as numbers, anything else as text. */
static int cmp_id(const char *a, const char *b)
{
    char *ea, *eb;
    long long x = strtoll(a, &ea, 10), y = strtoll(b, &eb, 10);
    if (*a && *b && !*ea && !*eb && x != y)
        return x < y ? -1 : 1;
    return strcmp(a, b);
}

static int cmp_unit(const void *a, const void *b)
{
    const dfs_overlap_unit *x = a, *y = b;
    int c = strcmp(x->host, y->host);
    if (!c)
        c = cmp_id(x->pid, y->pid);
    if (!c && x->tid && y->tid)
        c = cmp_id(x->tid, y->tid);
    return c;
}

/* Drops units that kept no event (a thread seen only in dropped events) and sorts the rest. */
static size_t units_final(dfs_overlap_unit *u, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (u[i].v.events)
            u[m++] = u[i];
    qsort(u, m, sizeof *u, cmp_unit);
    return m;
}

/* ===== finishing: the result ======================================================================= */

static void result_header(dfs_overlap *ov)
{
    dfs_overlap_result *r = &ov->result;
    const wstate *t = &ov->total;
    r->method = ov->opt.method;
    r->scope = ov->opt.method == DFS_OVERLAP_G0_EXACT ? DFS_OVERLAP_GLOBAL : ov->opt.scope;
    r->preset = ov->opt.preset;
    r->nclasses = ov->nclasses;
    r->class_names = ov->class_names;
    r->class_texts = ov->class_texts;
    r->epochs_text = ov->mark_texts[MARK_EPOCH];
    r->steps_text = ov->mark_texts[MARK_STEP];
    r->post_read = ov->opt.post_read;
    r->granularity_ns = ov->need_bins ? ov->opt.granularity_ns : 0;
    r->origin_ns = t->have_time ? t->min_ts : 0;
    r->nodes = t->hosts.count;
    r->processes = t->pids.count;
    r->compute_threads = t->ctids.count;
    r->io_threads = t->itids.count;
    r->events = t->events;
    r->files = t->files.count;
    r->no_duration = t->no_duration;
    r->other_phases = t->other_phases;
    r->bad_time = t->bad_time;
    r->negative_durations = t->negative;
    r->dropped_files = t->dropped_files;
    r->dropped_functions = t->dropped_functions;
    r->streamed = !ov->opt.no_streaming && ov->exact;
    r->have_global = ov->want_global;
    r->flushes = t->flushes;
}

/* The global unit's span and counters (Σ over processes). */
static void global_counters(dfs_overlap *ov, const dfs_overlap_unit *pu, size_t np)
{
    dfs_overlap_values *g = &ov->result.global;
    const wstate *t = &ov->total;
    if (t->have_time)
        dfs_ov_set_span(g, t->min_ts, t->max_end);
    g->events = t->events;
    for (size_t c = 0; c < ov->nclasses; c++) {
        g->cls[c].sum_dur = 0;
        g->cls[c].events = 0;
        for (size_t i = 0; i < np; i++) {
            g->cls[c].sum_dur = sat_add(g->cls[c].sum_dur, pu[i].v.cls[c].sum_dur);
            g->cls[c].events += pu[i].v.cls[c].events;
        }
    }
}

static bool fill_method(dfs_overlap *ov, const dfs_run *run, int64_t shift, dfs_overlap_unit *pu, dfs_overlap_unit *tu)
{
    wstate *t = &ov->total;
    switch (ov->opt.method) {
    case DFS_OVERLAP_APPROXIMATE:
        return dfs_ov_approx_fill(ov, shift, pu, ov->opt.scope == DFS_OVERLAP_THREAD ? tu : NULL);
    case DFS_OVERLAP_G0_EXACT:
        return dfs_ov_g0_fill(ov, shift);
    default:
        dfs_ov_engine_values(ov, t->global, &ov->result.global);
        for (size_t i = 0; i < t->procs.n; i++)
            if (!dfs_ov_unit_segments(ov, run, &t->procs.v[i], &pu[i]))
                return false;
        return !ov->need_bins || dfs_ov_exact_bins(ov, shift);
    }
}

static bool build_result(dfs_overlap *ov, const dfs_run *run, int64_t shift)
{
    dfs_overlap_result *r = &ov->result;
    wstate *t = &ov->total;
    result_header(ov);
    if (!dfs_ov_values_init(ov, &r->summary) || !dfs_ov_values_init(ov, &r->max) || !dfs_ov_values_init(ov, &r->min) ||
        !dfs_ov_values_init(ov, &r->global))
        return false;
    dfs_overlap_unit *pu = make_units(ov, run, &t->procs, false);
    dfs_overlap_unit *tu = ov->opt.scope == DFS_OVERLAP_THREAD ? make_units(ov, run, &t->threads, true) : NULL;
    if (!pu || (ov->opt.scope == DFS_OVERLAP_THREAD && !tu) || !fill_method(ov, run, shift, pu, tu))
        return false;
    global_counters(ov, pu, t->procs.n);
    size_t np = units_final(pu, t->procs.n), nt = tu ? units_final(tu, t->threads.n) : 0;
    if (ov->opt.method != DFS_OVERLAP_G0_EXACT) {
        r->per_process = pu;
        r->nprocesses = np;
    }
    r->per_thread = tu;
    r->nthreads = nt;
    summarise(ov, r->scope == DFS_OVERLAP_THREAD ? tu : pu, r->scope == DFS_OVERLAP_THREAD ? nt : np);
    if (ov->exact && (!dfs_ov_segment_totals(ov, pu, np, false, &r->epochs, &r->nepochs) ||
                      !dfs_ov_segment_totals(ov, pu, np, true, &r->steps, &r->nsteps)))
        return false;
    return function_stats(ov, run);
}

/* ===== the public API ============================================================================== */

/* Are the merged run's time bins (timebins.h) over the bound? Said in ov->failure when `say`. */
static bool too_many_bins(dfs_overlap *ov, bool say)
{
    const wstate *t = &ov->total;
    if (!ov->need_bins)
        return false;
    dfs_bin_tally b;
    dfs_bin_tally_init(&b, ov->opt.granularity_ns);
    if (t->have_time)
        dfs_bin_tally_run(&b, t->min_ts, t->max_end, t->run_bin_events);
    const scope_vec *vecs[2] = {&t->procs, &t->threads};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; dfs_ov_binned_units(ov, k == 1) && i < vecs[k]->n; i++) {
            const scope *s = &vecs[k]->v[i];
            dfs_bin_tally_unit(&b, s->start, s->end, s->bin_events);
        }
    if (!dfs_bin_tally_over(&b))
        return false;
    const char *units = !ov->exact ? "threads" : t->threads.n ? "processes and threads" : "processes";
    if (say)
        dfs_bin_tally_refusal(&b, units, ov->failure, sizeof ov->failure);
    return true;
}

const dfs_overlap_result *dfs_overlap_finish(dfs_overlap *ov, const dfs_run *run)
{
    wstate *t = &ov->total;
    t->no_stream = true;
    if (t->failed)
        return NULL;
    int64_t origin;
    /* times under a clock that moved are provisional: the second pass judges their bins */
    bool final_clocks = !clocks_moved(ov, run, &origin);
    t->bins_over |= too_many_bins(ov, false); /* then the pending events only widen the spans */
    if (!analyse_pending(ov, run) || ov->failure[0])
        return NULL;
    if (final_clocks && too_many_bins(ov, true)) /* before any bin is measured */
        return NULL;
    if (t->bins_over && final_clocks && ov->opt.clocks) { /* a second pass cannot ask for a third */
        dfs_bins_workers_refusal(ov->failure, sizeof ov->failure);
        return NULL;
    }
    if (t->bins_over) { /* the workers stopped at the bound: read again without stopping */
        int64_t shift;
        check_pass(ov, run, &shift);
        ask_rerun(ov, "the workers' time bins passed the bound together, the run's do not", false);
        ov->rerun_info.bins_settled = final_clocks;
        return NULL;
    }
    finalize_all(t);
    if (t->failed)
        return NULL;
    int64_t shift;
    check_pass(ov, run, &shift);
    if (ov->rerun || !build_result(ov, run, shift))
        return NULL;
    return &ov->result;
}

const char *dfs_overlap_failure(const dfs_overlap *ov)
{
    return ov->failure[0] ? ov->failure : NULL;
}

bool dfs_overlap_needs_rerun(const dfs_overlap *ov, dfs_overlap_rerun *out)
{
    if (ov->rerun && out)
        *out = ov->rerun_info;
    return ov->rerun;
}
