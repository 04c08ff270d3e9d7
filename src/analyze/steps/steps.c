/* steps.c - `dfscope steps`: reading, classification, B/E pairing and runs (steps.h). The step
 * windows and metrics of one run are in steps_run.c, the verdicts in steps_verdict.c, the
 * TensorBoard breakdown in steps_tb.c. */
#include "analyze/steps/steps.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/event_args.h"
#include "analyze/steps/steps_internal.h"

/* ---- names and options -------------------------------------------------------------------- */

static const char *const metric_names[DFS_SM_COUNT] = {
    "step_time",   "data_wait",      "exposed_data_wait", "compute_dev",     "compute_host",
    "transfer",    "io",             "io_in_wait",        "ex_compute_dev",  "ex_transfer",
    "ex_runtime",  "ex_data_wait",   "ex_compute_host",   "ex_io",           "ex_other",
};

const char *dfs_step_metric_name(dfs_step_metric m)
{
    return (unsigned)m < DFS_SM_COUNT ? metric_names[m] : NULL;
}

const char *dfs_step_mode_name(dfs_step_mode m)
{
    static const char *const names[DFS_MODE_COUNT] = {"train", "eval", "predict"};
    return (unsigned)m < DFS_MODE_COUNT ? names[m] : NULL;
}

const char *dfs_step_strategy_name(dfs_step_strategy s)
{
    static const char *const names[] = {"none", "span", "paired", "end_spans", "wait_anchors",
                                        "compute_anchors"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : NULL;
}

void dfs_steps_options_init(dfs_steps_options *o)
{
    memset(o, 0, sizeof *o);
    o->wait_threshold = 0.05;
    o->outlier_factor = 2.0;
    o->outlier_floor_ns = 1000000;
    o->storage_threshold = 0.5;
    o->outlier_sigma = 3.0;
    o->outlier_min_steps = 100;
    o->composer_min_points = 10;
}

/* ---- owned memory ------------------------------------------------------------------------- */

void *st_alloc(st_owned *owned, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (p && !dfs_vec_push(owned, p)) {
        free(p);
        p = NULL;
    }
    return p;
}

char *st_printf(st_owned *owned, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = st_alloc(owned, (size_t)n + 1, 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- the analysis object and its consumer ------------------------------------------------- */

typedef struct st_part {
    dfs_concepts *concepts;
    st_ev_vec evs;
    bool failed;
} st_part;

static const char *const extra_keys[] = {"external id", NULL};

static void *worker_begin(void *user)
{
    dfs_steps *s = user;
    st_part *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->concepts = dfs_concepts_new(&s->opt.concepts, NULL, NULL);
    if (!p->concepts) {
        free(p);
        return NULL;
    }
    return p;
}

static int64_t arg_int(const dfs_event *ev, dfs_str key)
{
    int64_t v;
    const dfs_value *a = dfs_event_arg(ev, key);
    return a && dfs_value_int(a, &v) ? v : ST_NONE;
}

/* An arg that is not a well-known key, found by its text (no lock, unlike dfs_str_find). */
static int64_t arg_int_named(const dfs_run *run, const dfs_event *ev, const char *key)
{
    int64_t v;
    const dfs_value *a = dfs_event_arg_named(run, ev, key, strlen(key));
    return a && dfs_value_int(a, &v) ? v : ST_NONE;
}

static int64_t first_present(int64_t a, int64_t b, int64_t c)
{
    return a != ST_NONE ? a : b != ST_NONE ? b : c;
}

/* Events worth keeping: those of some concept; every complete Kineto event (the plugin's
 * breakdown reads them all); every smdebug event, whose phase (process name) is known only once
 * the file has been read. The concepts are matched again when the final dialect is known. */
static bool worth_keeping(st_part *p, const dfs_run *run, dfs_concept_source src, const dfs_event *ev,
                          uint64_t arg_truths)
{
    if (!(ev->flags & DFS_EF_HAS_TS) || (ev->flags & DFS_EF_BAD_TIME))
        return false;
    if (ev->phase != DFS_PHASE_COMPLETE && ev->phase != DFS_PHASE_BEGIN && ev->phase != DFS_PHASE_END)
        return false;
    if ((src == DFS_CSRC_KINETO && ev->phase == DFS_PHASE_COMPLETE) || dfs_concepts_need_proc_name(p->concepts, src))
        return true;
    return dfs_concepts_match_answered(p->concepts, run, src, ev, arg_truths) != 0;
}

/* The event as kept; false when its end does not fit int64 (the reader counted a time_overflow). */
static bool kept_event(const dfs_run *run, dfs_concept_source src, const dfs_event *ev, uint64_t arg_truths,
                       st_ev *out)
{
    st_ev k = {
        .start = ev->ts,
        .end = ev->ts,
        .pid = ev->pid,
        .tid = ev->tid,
        .lane_pid = ev->pid,
        .lane_tid = ev->tid,
        .key = first_present(arg_int(ev, DFS_KEY_STR(DFS_KEY_COUNT)), arg_int(ev, DFS_KEY_STR(DFS_KEY_STEP)),
                             arg_int(ev, DFS_KEY_STR(DFS_KEY_STEP_NUM))),
        .epoch = arg_int(ev, DFS_KEY_STR(DFS_KEY_EPOCH)),
        .batch = arg_int(ev, DFS_KEY_STR(DFS_KEY_BATCH)),
        .corr = arg_int(ev, DFS_KEY_STR(DFS_KEY_CORRELATION)),
        .ext = arg_int(ev, DFS_KEY_STR(DFS_KEY_EXTERNAL_ID)),
        .offset = ev->offset,
        .file = ev->file,
        .name = ev->name,
        .cat = ev->cat,
        .fname = ev->fname,
        .host = ev->host,
        .phase = ev->phase,
        .arg_truths = arg_truths,
    };
    if (ev->phase == DFS_PHASE_COMPLETE && (ev->flags & DFS_EF_HAS_DUR) && !dfs_span_end(ev->ts, ev->dur, &k.end))
        return false;
    if (k.ext == ST_NONE && src == DFS_CSRC_KINETO)
        k.ext = arg_int_named(run, ev, extra_keys[0]);
    if (src == DFS_CSRC_SMDEBUG) { /* spec §1.1: args.pid / args.thread_id replace pid / tid */
        int64_t pid = arg_int(ev, DFS_KEY_STR(DFS_KEY_PID)), tid = arg_int(ev, DFS_KEY_STR(DFS_KEY_THREAD_ID));
        k.lane_pid = pid != ST_NONE ? pid : k.lane_pid;
        k.lane_tid = tid != ST_NONE ? tid : k.lane_tid;
    }
    *out = k;
    return true;
}

static void on_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    st_part *p = state;
    if (!p || p->failed)
        return;
    dfs_concept_source src = dfs_concept_source_of(dfs_run_file(run, b->file)->dialect);
    for (size_t i = 0; i < b->count && !p->failed; i++) {
        const dfs_event *ev = &b->events[i];
        uint64_t truths = dfs_concepts_arg_truths(p->concepts, run, ev); /* its arguments go with the batch */
        st_ev k;
        if (worth_keeping(p, run, src, ev, truths) && kept_event(run, src, ev, truths, &k) &&
            !dfs_vec_push(&p->evs, k))
            p->failed = true;
    }
}

static void worker_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    dfs_steps *s = user;
    st_part *p = state;
    if (!p) {
        s->failed = true;
        return;
    }
    s->failed |= p->failed;
    dfs_concepts_failed(p->concepts, s->failure, sizeof s->failure);
    if (!s->evs.n) {
        s->evs = p->evs;
        p->evs.v = NULL;
    } else if (p->evs.n && dfs_vec_reserve(&s->evs, p->evs.n)) {
        memcpy(s->evs.v + s->evs.n, p->evs.v, p->evs.n * sizeof *p->evs.v);
        s->evs.n += p->evs.n;
    } else if (p->evs.n) {
        s->failed = true;
    }
    free(p->evs.v);
    dfs_concepts_free(p->concepts);
    free(p);
}

dfs_steps *dfs_steps_new(const dfs_steps_options *o, dfs_pred_error *err, dfs_concept *bad)
{
    dfs_steps *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (o)
        s->opt = *o;
    else
        dfs_steps_options_init(&s->opt);
    s->concepts = dfs_concepts_new(&s->opt.concepts, err, bad);
    if (!s->concepts) {
        free(s);
        return NULL;
    }
    s->consumer = (dfs_consumer){
        .user = s,
        .want = {.keys = DFS_KEYBIT(DFS_KEY_COUNT) | DFS_KEYBIT(DFS_KEY_STEP) | DFS_KEYBIT(DFS_KEY_STEP_NUM) |
                         DFS_KEYBIT(DFS_KEY_EPOCH) | DFS_KEYBIT(DFS_KEY_CORRELATION) |
                         DFS_KEYBIT(DFS_KEY_EXTERNAL_ID) | DFS_KEYBIT(DFS_KEY_PID) |
                         DFS_KEYBIT(DFS_KEY_THREAD_ID) | DFS_KEYBIT(DFS_KEY_BATCH),
                 .extra = extra_keys},
        .worker_begin = worker_begin,
        .on_batch = on_batch,
        .worker_end = worker_end,
    };
    dfs_concepts_want(s->concepts, &s->consumer.want, extra_keys);
    return s;
}

void dfs_steps_free(dfs_steps *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->owned.n; i++)
        free(s->owned.v[i]);
    dfs_vec_free(&s->owned);
    dfs_vec_free(&s->evs);
    dfs_vec_free(&s->done);
    dfs_vec_free(&s->covered);
    dfs_concepts_free(s->concepts);
    free(s);
}

dfs_consumer *dfs_steps_consumer(dfs_steps *s) { return &s->consumer; }
const dfs_concepts *dfs_steps_concepts(const dfs_steps *s) { return s->concepts; }
const char *dfs_steps_failure(const dfs_steps *s) { return s->failure[0] ? s->failure : NULL; }

/* ---- classification under the final dialects ---------------------------------------------- */

static dfs_concept_source file_source(const dfs_run *run, uint32_t file)
{
    return dfs_concept_source_of(dfs_run_file(run, file)->dialect);
}

static uint32_t classify(dfs_steps *s, const dfs_run *run, const st_ev *k)
{
    dfs_event ev = {
        .ts = k->start, .pid = k->pid, .tid = k->tid, .name = k->name, .cat = k->cat,
        .fname = k->fname, .host = k->host, .file = k->file, .phase = k->phase,
    };
    return dfs_concepts_match_answered(s->concepts, run, file_source(run, k->file), &ev, k->arg_truths);
}

/* Keeps the events of some concept (and Kineto's complete events), with their bits. */
static void classify_all(dfs_steps *s, const dfs_run *run)
{
    size_t w = 0;
    for (size_t i = 0; i < s->evs.n; i++) {
        st_ev *k = &s->evs.v[i];
        k->bits = classify(s, run, k);
        bool kineto = file_source(run, k->file) == DFS_CSRC_KINETO && k->phase == DFS_PHASE_COMPLETE;
        if (k->bits || kineto)
            s->evs.v[w++] = *k;
    }
    s->evs.n = w;
}


/* ---- runs ----------------------------------------------------------------------------------
 * A run is an input file (a rank), except smdebug framework files: those of one node (the second
 * '_' field of the file name, spec §1.1) form one run, since a node's steps and its data waits
 * sit in different files. Files that are not traces, and smdebug system files, make no run. */

const char *st_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The node field of an smdebug framework file name into buf; false when the name has no such
 * field. */
static bool smdebug_node(const char *path, char *buf, size_t cap)
{
    const char *b = st_base_name(path), *u1 = strchr(b, '_');
    const char *u2 = u1 ? strchr(u1 + 1, '_') : NULL;
    if (!u2 || (size_t)(u2 - u1 - 1) >= cap || u2 == u1 + 1)
        return false;
    memcpy(buf, u1 + 1, (size_t)(u2 - u1 - 1));
    buf[u2 - u1 - 1] = '\0';
    return true;
}

bool st_makes_run(const dfs_file_info *f)
{
    return !f->unreadable && f->format != DFS_FMT_NOT_A_TRACE && f->format != DFS_FMT_UNKNOWN &&
           f->dialect != DFS_DIALECT_SMDEBUG_SYSTEM;
}

const char *st_run_name(const dfs_file_info *f, bool by_node_only, char *buf, size_t cap, bool *by_node)
{
    bool sm = by_node_only || f->dialect == DFS_DIALECT_SMDEBUG_FRAMEWORK;
    *by_node = sm && smdebug_node(f->path, buf, cap);
    return *by_node ? buf : by_node_only ? NULL : st_base_name(f->path);
}

typedef DFS_VEC(dfs_steps_run) run_vec;
typedef DFS_VEC(st_run_key) key_vec;

/* The runs being built and where one process puts them (keys parallel to runs). */
typedef struct run_list {
    run_vec runs;
    key_vec keys;
} run_list;

static bool add_run(run_list *l, dfs_steps_run r, st_run_key k)
{
    if (!dfs_vec_reserve(&l->runs, 1) || !dfs_vec_reserve(&l->keys, 1))
        return false;
    l->runs.v[l->runs.n++] = r;
    l->keys.v[l->keys.n++] = k;
    return true;
}

/* Finds or creates the run named `name`, opened by `file`; UINT32_MAX when out of memory. */
static uint32_t run_named(dfs_steps *s, run_list *l, const char *name, bool shared, dfs_concept_source src,
                          uint32_t file)
{
    for (size_t i = 0; shared && i < l->runs.n; i++)
        if (strcmp(l->runs.v[i].name, name) == 0)
            return (uint32_t)i;
    dfs_steps_run r = {.rank = -1, .source = src};
    r.name = st_printf(&s->owned, "%s", name);
    if (!r.name || !add_run(l, r, (st_run_key){0, file, 0}))
        return UINT32_MAX;
    return (uint32_t)(l->runs.n - 1);
}

/* run_of[file] for every file (UINT32_MAX: none; skip[file]: left to another rank). false when
 * out of memory. */
static bool assign_runs(dfs_steps *s, const dfs_run *run, const uint8_t *skip, run_list *l, uint32_t *run_of)
{
    for (size_t f = 0; f < dfs_run_file_count(run); f++) {
        const dfs_file_info *info = dfs_run_file(run, f);
        run_of[f] = UINT32_MAX;
        if ((skip && skip[f]) || !st_makes_run(info))
            continue;
        char node[256];
        bool sm;
        const char *name = st_run_name(info, false, node, sizeof node, &sm);
        run_of[f] = run_named(s, l, name, sm, file_source(run, (uint32_t)f), (uint32_t)f);
        if (run_of[f] == UINT32_MAX)
            return false;
    }
    return true;
}

/* A merged Composer trace holds several ranks (pid = global rank on every record): each rank is a
 * run of its own, named "<file> [rank R]". */

typedef struct file_pid {
    uint32_t file;
    int64_t pid;
    uint32_t run;
} file_pid;

static int cmp_file_pid(const void *pa, const void *pb)
{
    const file_pid *a = pa, *b = pb;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    return (a->pid > b->pid) - (a->pid < b->pid);
}

static bool name_rank_runs(dfs_steps *s, run_list *l, file_pid *fp, size_t n)
{
    run_vec *runs = &l->runs;
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && fp[b].file == fp[a].file;)
            b++;
        uint32_t base = fp[a].run;
        const char *file = runs->v[base].name;
        for (size_t i = a; b - a > 1 && i < b; i++) {
            const char *name = st_printf(&s->owned, "%s [rank %lld]", file, (long long)fp[i].pid);
            if (!name)
                return false;
            if (i > a) {
                dfs_steps_run r = runs->v[base];
                if (!add_run(l, r, (st_run_key){1, fp[i].file, fp[i].pid}))
                    return false;
                fp[i].run = (uint32_t)(runs->n - 1);
            }
            runs->v[fp[i].run].name = name;
        }
    }
    return true;
}

static bool split_ranks(dfs_steps *s, const dfs_run *run, run_list *runs)
{
    DFS_VEC(file_pid) fp = {0};
    bool ok = true;
    for (size_t i = 0; i < s->evs.n && ok; i++) {
        const st_ev *k = &s->evs.v[i];
        bool seen = fp.n && fp.v[fp.n - 1].file == k->file && fp.v[fp.n - 1].pid == k->pid;
        if (file_source(run, k->file) == DFS_CSRC_COMPOSER && !seen)
            ok = dfs_vec_push(&fp, ((file_pid){k->file, k->pid, k->run}));
    }
    size_t n = 0;
    if (ok && fp.n) {
        qsort(fp.v, fp.n, sizeof *fp.v, cmp_file_pid);
        for (size_t i = 0; i < fp.n; i++)
            if (n == 0 || cmp_file_pid(&fp.v[n - 1], &fp.v[i]) != 0)
                fp.v[n++] = fp.v[i];
        ok = name_rank_runs(s, runs, fp.v, n);
    }
    for (size_t i = 0; ok && n && i < s->evs.n; i++) {
        st_ev *k = &s->evs.v[i];
        file_pid key = {k->file, k->pid, 0};
        const file_pid *hit = file_source(run, k->file) == DFS_CSRC_COMPOSER
                                  ? bsearch(&key, fp.v, n, sizeof *fp.v, cmp_file_pid) : NULL;
        if (hit)
            k->run = hit->run;
    }
    dfs_vec_free(&fp);
    return ok;
}

/* ---- B/E pairing ---------------------------------------------------------------------------
 * One stack per (file, pid, tid, name) (Composer §2.3); smdebug pairs per (file, pid) whatever the
 * name (§1.1). Sorting the edges by that key and then by offset lets one pass pair every group.
 * Names are grouped by id: the grouping only has to be consistent, not ordered. */

typedef struct edge {
    uint32_t file;
    dfs_str name;
    int64_t pid, tid;
    uint64_t offset;
    size_t idx; /* in the kept events */
} edge;

static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }
static int cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

static int cmp_edges(const void *pa, const void *pb)
{
    const edge *a = pa, *b = pb;
    int c = cmp_u64(a->file, b->file);
    if (!c)
        c = cmp_i64(a->pid, b->pid);
    if (!c)
        c = cmp_i64(a->tid, b->tid);
    if (!c)
        c = cmp_u64(a->name, b->name);
    return c ? c : cmp_u64(a->offset, b->offset);
}

static bool same_group(const edge *a, const edge *b)
{
    return a->file == b->file && a->pid == b->pid && a->tid == b->tid && a->name == b->name;
}

static edge edge_of(const dfs_run *run, const st_ev *k, size_t idx)
{
    bool sm = file_source(run, k->file) == DFS_CSRC_SMDEBUG;
    return (edge){k->file, sm ? 0 : k->name, k->pid, sm ? 0 : k->tid, k->offset, idx};
}

/* An interval from a begin and its end; false when negative (counted, dropped). */
static bool close_interval(const st_ev *b, const st_ev *e, st_ev *out, dfs_steps_counts *n)
{
    *out = *b;
    out->end = e->start;
    if (out->end < out->start) {
        n->negative++;
        return false;
    }
    return true;
}

typedef DFS_VEC(size_t) idx_vec;

static bool pair_group(const st_ev *evs, const edge *g, size_t n, st_ev_vec *out, idx_vec *stack,
                       dfs_steps_run *runs)
{
    stack->n = 0;
    for (size_t i = 0; i < n; i++) {
        const st_ev *k = &evs[g[i].idx];
        dfs_steps_counts *c = &runs[k->run].counts;
        if (k->phase == DFS_PHASE_BEGIN) {
            if (!dfs_vec_push(stack, g[i].idx))
                return false;
        } else if (stack->n == 0) {
            c->orphan_end++;
        } else {
            st_ev iv;
            if (close_interval(&evs[stack->v[--stack->n]], k, &iv, c) && !dfs_vec_push(out, iv))
                return false;
        }
    }
    for (size_t i = 0; i < stack->n; i++)
        runs[evs[stack->v[i]].run].counts.unterminated++;
    return true;
}

static bool pair_edges(const dfs_steps *s, const dfs_run *run, st_ev_vec *out, dfs_steps_run *runs)
{
    DFS_VEC(edge) edges = {0};
    idx_vec stack = {0};
    bool ok = true;
    for (size_t i = 0; i < s->evs.n && ok; i++)
        if (s->evs.v[i].phase != DFS_PHASE_COMPLETE)
            ok = dfs_vec_push(&edges, edge_of(run, &s->evs.v[i], i));
    if (ok && edges.n)
        qsort(edges.v, edges.n, sizeof *edges.v, cmp_edges);
    for (size_t a = 0, b; ok && a < edges.n; a = b) {
        for (b = a + 1; b < edges.n && same_group(&edges.v[a], &edges.v[b]);)
            b++;
        ok = pair_group(s->evs.v, edges.v + a, b - a, out, &stack, runs);
    }
    dfs_vec_free(&edges);
    dfs_vec_free(&stack);
    return ok;
}

/* The intervals of every run in absolute ns: complete events and paired B/E, in that order. They
 * are built in the kept events' own array, the analysis's largest allocation, which is handed over
 * to `out` instead of being copied: the pairs, made first, take no more room than the begins and
 * ends they come from. */
static bool build_intervals(dfs_steps *s, const dfs_run *run, st_ev_vec *out, dfs_steps_run *runs)
{
    st_ev_vec paired = {0};
    if (!pair_edges(s, run, &paired, runs)) {
        dfs_vec_free(&paired);
        return false;
    }
    size_t w = 0;
    for (size_t i = 0; i < s->evs.n; i++) {
        const st_ev *k = &s->evs.v[i];
        if (k->phase != DFS_PHASE_COMPLETE)
            continue;
        if (k->end < k->start) {
            runs[k->run].counts.negative++;
            continue;
        }
        s->evs.v[w++] = *k;
    }
    if (paired.n)
        memcpy(s->evs.v + w, paired.v, paired.n * sizeof *paired.v);
    s->evs.n = w + paired.n;
    dfs_vec_free(&paired);
    *out = s->evs;
    memset(&s->evs, 0, sizeof s->evs);
    for (size_t i = 0; i < out->n; i++) {
        const dfs_file_info *f = dfs_run_file(run, out->v[i].file);
        out->v[i].start = dfs_file_abs_ns(f, out->v[i].start);
        out->v[i].end = dfs_file_abs_ns(f, out->v[i].end);
    }
    return true;
}

static int cmp_intervals(const void *pa, const void *pb)
{
    const st_ev *a = pa, *b = pb;
    int c = cmp_u64(a->run, b->run);
    if (!c)
        c = cmp_i64(a->start, b->start);
    if (!c)
        c = cmp_i64(a->end, b->end);
    if (!c)
        c = cmp_u64(a->file, b->file);
    return c ? c : cmp_u64(a->offset, b->offset);
}

/* ---- the result ----------------------------------------------------------------------------- */

static void add_agg(dfs_steps_agg *into, const dfs_steps_agg *a)
{
    into->steps += a->steps;
    into->waits += a->waits;
    for (int m = 0; m < DFS_SM_COUNT; m++) {
        if (a->sum[m] == DFS_STEPS_NA)
            continue;
        into->sum[m] = (into->sum[m] == DFS_STEPS_NA ? 0 : into->sum[m]) + a->sum[m];
    }
}

static void total_of_runs(dfs_steps_result *res)
{
    dfs_steps_agg *t = &res->total;
    memset(t, 0, sizeof *t);
    for (int m = 0; m < DFS_SM_COUNT; m++)
        t->sum[m] = DFS_STEPS_NA;
    t->median_step_time = t->median_data_wait = NAN;
    for (size_t i = 0; i < res->nruns; i++) {
        const dfs_steps_run *r = &res->runs[i];
        add_agg(t, &r->all);
        res->any_input_bound |= r->input_bound;
        for (size_t e = 0; e < r->nepochs; e++) {
            res->epoch_window += r->epochs[e].end - r->epochs[e].start;
            res->epoch_tail += r->epochs[e].tail;
            res->marked_wait += r->epochs[e].marked_wait;
        }
    }
}

static bool analyse_runs(dfs_steps *s, const dfs_run *run, dfs_steps_run *runs, size_t nruns, st_ev_vec *iv)
{
    if (iv->n)
        qsort(iv->v, iv->n, sizeof *iv->v, cmp_intervals);
    st_run_ctx ctx = {.opt = &s->opt, .run = run, .owned = &s->owned, .concepts = s->concepts};
    size_t a = 0;
    for (uint32_t r = 0; r < nruns; r++) {
        size_t b = a;
        while (b < iv->n && iv->v[b].run == r)
            b++;
        if (!st_analyse_run(&runs[r], b > a ? iv->v + a : NULL, b - a, &ctx))
            return false;
        a = b;
    }
    return true;
}

/* The run of every kept event (events of files that make no run go). */
static void events_to_runs(dfs_steps *s, const uint32_t *run_of, size_t nfiles)
{
    size_t w = 0;
    for (size_t i = 0; i < s->evs.n; i++) {
        st_ev *k = &s->evs.v[i];
        k->run = k->file < nfiles ? run_of[k->file] : UINT32_MAX;
        if (k->run != UINT32_MAX)
            s->evs.v[w++] = *k;
    }
    s->evs.n = w;
}

static bool hand_over(const run_list *l, const uint32_t *run_of, size_t nfiles, st_done_vec *out,
                      st_file_vec *covered)
{
    if (!dfs_vec_reserve(out, l->runs.n))
        return false;
    for (size_t i = 0; i < l->runs.n; i++)
        out->v[out->n++] = (st_done){l->runs.v[i], l->keys.v[i]};
    for (uint32_t f = 0; covered && f < nfiles; f++)
        if (run_of[f] != UINT32_MAX && !dfs_vec_push(covered, f))
            return false;
    return true;
}

bool st_finish_runs(dfs_steps *s, const dfs_run *run, const uint8_t *skip, st_done_vec *out, st_file_vec *covered)
{
    run_list l = {0};
    st_ev_vec iv = {0};
    size_t nfiles = dfs_run_file_count(run);
    uint32_t *run_of = calloc(nfiles ? nfiles : 1, sizeof *run_of);
    bool ok = run_of && assign_runs(s, run, skip, &l, run_of);
    if (ok) {
        classify_all(s, run);
        ok = !dfs_concepts_failed(s->concepts, s->failure, sizeof s->failure);
    }
    if (ok) {
        events_to_runs(s, run_of, nfiles);
        ok = split_ranks(s, run, &l) && build_intervals(s, run, &iv, l.runs.v) &&
             analyse_runs(s, run, l.runs.v, l.runs.n, &iv) && hand_over(&l, run_of, nfiles, out, covered);
    }
    free(run_of);
    dfs_vec_free(&iv);
    dfs_vec_free(&s->evs);
    dfs_vec_free(&l.runs);
    dfs_vec_free(&l.keys);
    return ok;
}

static int cmp_keys(const void *pa, const void *pb)
{
    const st_run_key *a = &((const st_done *)pa)->key, *b = &((const st_done *)pb)->key;
    if (a->tier != b->tier)
        return a->tier < b->tier ? -1 : 1;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    return cmp_i64(a->pid, b->pid);
}

/* The runs finished elsewhere (distributed runs) and here, in one process's order. */
const dfs_steps_result *dfs_steps_finish(dfs_steps *s, const dfs_run *run)
{
    if (s->failed || s->failure[0])
        return NULL;
    size_t nfiles = dfs_run_file_count(run);
    uint8_t *skip = calloc(nfiles ? nfiles : 1, 1);
    bool ok = skip != NULL;
    for (size_t i = 0; ok && i < s->covered.n; i++)
        if (s->covered.v[i] < nfiles)
            skip[s->covered.v[i]] = 1;
    ok = ok && st_finish_runs(s, run, skip, &s->done, NULL);
    free(skip);
    dfs_steps_run *runs = ok ? st_alloc(&s->owned, s->done.n, sizeof *runs) : NULL;
    if (!runs)
        return NULL;
    if (s->done.n > 1)
        qsort(s->done.v, s->done.n, sizeof *s->done.v, cmp_keys);
    for (size_t i = 0; i < s->done.n; i++)
        runs[i] = s->done.v[i].run;
    s->result.runs = runs;
    s->result.nruns = s->done.n;
    total_of_runs(&s->result);
    return &s->result;
}
