/* tasks_read.c - the consumer of the task analyses: what the reading workers keep of each event
 * (Compute, Managed Memory, Resource Usage; every other name only counted, B/E kept for pairing),
 * the merge of their parts, and at the end the per-name durations of legacy traces.
 *
 * Invariants: a worker writes only its own part; each part's events stay in the order the worker
 * met them (file order within a piece), with their (file, offset), so that dfs_tasks_finish can
 * restore iteration order for any -j; refs_at indexes the part's refs, rebased on merging; labels
 * made here (numbers, "None", shapes) go through the worker's cache into the analysis' own table
 * and carry OWN_BIT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/tasks/tasks_internal.h"
#include "parse/dasf.h"
#include "util/shortest.h"
#include "util/strtab.h"
#include "util/u64map.h"
#include "util/vec.h"

/* ---- parts ---------------------------------------------------------------------------------- */

void tk_part_init(part *p)
{
    memset(p, 0, sizeof *p);
    dfs_u64map_init(&p->other_index);
}

void tk_part_free(part *p)
{
    dfs_vec_free(&p->computes);
    dfs_vec_free(&p->refs);
    dfs_vec_free(&p->managed);
    dfs_vec_free(&p->samples);
    dfs_vec_free(&p->other);
    dfs_vec_free(&p->edges);
    dfs_u64map_free(&p->other_index);
    dfs_strcache_free(p->own);
    free(p->text);
    p->own = NULL;
    p->text = NULL;
}

/* ---- numeric args, as Python numbers ------------------------------------------------------- */

static bool value_num(const dfs_value *v, pynum *out)
{
    if (!v)
        return false;
    switch (v->type) {
    case DFS_V_INT:
    case DFS_V_BOOL: *out = tk_py_int(v->as.i); return true;
    case DFS_V_UINT: *out = tk_py_float((double)v->as.u); return true;
    case DFS_V_FLOAT: *out = tk_py_float(v->as.f); return true;
    default: return false;
    }
}

/* ---- labels --------------------------------------------------------------------------------- */

static uint32_t own_label(part *p, const char *s, size_t n)
{
    dfs_str id = dfs_strcache_intern(p->own, s, n);
    return id ? id | OWN_BIT : 0;
}

/* process_id / thread_id as DASF's Python sees them: a string, a number or None. */
static uint32_t id_label(part *p, bool has, bool is_str, dfs_str str, int64_t num)
{
    if (is_str)
        return str;
    if (!has)
        return own_label(p, "None", 4);
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)num);
    return own_label(p, buf, (size_t)n);
}

static uint32_t host_label(part *p, const dfs_event *ev)
{
    return id_label(p, ev->flags & DFS_EF_HAS_PID, ev->flags & DFS_EF_PID_STR, ev->pid_str, ev->pid);
}

static uint32_t worker_label(part *p, const dfs_event *ev)
{
    return id_label(p, ev->flags & DFS_EF_HAS_TID, ev->flags & DFS_EF_TID_STR, ev->tid_str, ev->tid);
}

/* ---- shapes as text ------------------------------------------------------------------------- */

static bool text_put(part *p, const char *s, size_t n)
{
    if (p->text_len + n + 1 > p->text_cap) {
        size_t cap = p->text_cap ? p->text_cap : 64;
        while (cap < p->text_len + n + 1)
            cap *= 2;
        char *t = realloc(p->text, cap);
        if (!t)
            return false;
        p->text = t;
        p->text_cap = cap;
    }
    memcpy(p->text + p->text_len, s, n);
    p->text_len += n;
    return true;
}

/* Python's repr of a shape, the way DASF's graph node holds it ("[100, 100]"). */
static bool repr_value(part *p, const dfs_run *run, const dfs_value *v, unsigned depth)
{
    char buf[40];
    int n = 0;
    switch (v->type) {
    case DFS_V_INT: n = snprintf(buf, sizeof buf, "%lld", (long long)v->as.i); break;
    case DFS_V_UINT: n = snprintf(buf, sizeof buf, "%llu", (unsigned long long)v->as.u); break;
    case DFS_V_FLOAT: n = (int)dfs_py_repr(v->as.f, buf); break;
    case DFS_V_BOOL: n = snprintf(buf, sizeof buf, "%s", v->as.i ? "True" : "False"); break;
    case DFS_V_STR: {
        size_t len;
        const char *s = dfs_str_get(run, v->as.s, &len);
        return text_put(p, "'", 1) && text_put(p, s, len) && text_put(p, "'", 1);
    }
    case DFS_V_LIST:
    case DFS_V_MAP: {
        bool list = v->type == DFS_V_LIST;
        if (!text_put(p, list ? "[" : "{", 1))
            return false;
        for (uint32_t i = 0; i < v->len && depth < 8; i++) {
            if ((i && !text_put(p, ", ", 2)) || !repr_value(p, run, &v->as.items[i].val, depth + 1))
                return false;
        }
        return text_put(p, list ? "]" : "}", 1);
    }
    default: n = snprintf(buf, sizeof buf, "None"); break;
    }
    return text_put(p, buf, (size_t)n);
}

static uint32_t shape_label(part *p, const dfs_run *run, const dfs_value *v)
{
    if (!v)
        return 0;
    p->text_len = 0;
    if (!repr_value(p, run, v, 0))
        return 0;
    return own_label(p, p->text, p->text_len);
}

/* ---- reading -------------------------------------------------------------------------------- */

static dfs_str find_str(const dfs_run *run, dfs_str known, const char *s)
{
    return known ? known : dfs_str_find(run, s, strlen(s));
}

/* Names are interned as the parser meets them: one not found yet is looked for again later. */
static void refresh_ids(part *p, const dfs_run *run)
{
    tk_ids *d = &p->ids;
    d->compute = find_str(run, d->compute, "Compute");
    d->managed = find_str(run, d->managed, "Managed Memory");
    d->resource = find_str(run, d->resource, "Resource Usage");
    d->raw_ts = find_str(run, d->raw_ts, DFS_DASF_RAW_TIMESTAMP);
    d->raw_dur = find_str(run, d->raw_dur, DFS_DASF_RAW_DURATION);
    d->tasks = find_str(run, d->tasks, "tasks");
    d->gpu_util = find_str(run, d->gpu_util, "gpu_utilization");
    d->gpu_mem = find_str(run, d->gpu_mem, "gpu_memory_used");
}

static const dfs_value *arg_of(const dfs_event *ev, dfs_str key)
{
    return key ? dfs_event_arg(ev, key) : NULL;
}

static dfs_str str_arg(const dfs_event *ev, dfs_str key, bool *found)
{
    const dfs_value *v = arg_of(ev, key);
    *found = v && v->type == DFS_V_STR;
    return *found ? v->as.s : 0;
}

/* The written timestamp in seconds: DASF's float when the reader kept it, else from the ns times
 * (the text format, or another reader). For complete events the written value is the end. */
static bool written_time(const part *p, const dfs_event *ev, double *out)
{
    pynum n;
    if (value_num(arg_of(ev, p->ids.raw_ts), &n)) {
        *out = tk_py_double(n);
        return true;
    }
    if (!(ev->flags & DFS_EF_HAS_TS))
        return false;
    int64_t ns;
    if (!dfs_span_end(ev->ts, ev->phase == DFS_PHASE_COMPLETE && (ev->flags & DFS_EF_HAS_DUR) ? ev->dur : 0, &ns))
        return false;
    *out = (double)ns / 1e9;
    return true;
}

static bool written_duration(const part *p, const dfs_event *ev, double *out)
{
    pynum n;
    if (value_num(arg_of(ev, p->ids.raw_dur), &n)) {
        *out = tk_py_double(n);
        return true;
    }
    if (!(ev->flags & DFS_EF_HAS_DUR))
        return false;
    *out = (double)ev->dur / 1e9;
    return true;
}

/* Appends the string items of a list arg to refs; returns how many. */
static uint32_t add_refs(part *p, const dfs_value *v)
{
    uint32_t n = 0;
    if (!v || v->type != DFS_V_LIST)
        return 0;
    for (uint32_t i = 0; i < v->len; i++) {
        const dfs_value *item = &v->as.items[i].val;
        if (item->type != DFS_V_STR) {
            p->n.compute_bad_ref++;
            continue;
        }
        if (!dfs_vec_push(&p->refs, item->as.s)) {
            p->failed = true;
            break;
        }
        n++;
    }
    return n;
}

/* A Compute event's function name. DASF's plugin records key[2:last '-'] as the name, which cuts
 * "getGPUs-<uuid>" to "tGPUs-<part of the uuid>" and "original-array-<hash>" to "iginal-array";
 * without args.name, DASF's analyser fails. The compatible mode keeps (or makes) that cut name;
 * the default names such a function by its key, repaired (dfs_tasks_repaired_name). */
static dfs_str function_name(part *p, const dfs_run *run, dfs_str key_str, dfs_str written)
{
    size_t n, len = 0;
    const char *key = dfs_str_get(run, key_str, &n), *name = written ? dfs_str_get(run, written, &len) : NULL;
    char cut[256], buf[256];
    size_t cut_len = dfs_tasks_dasf_name(key, n, cut, sizeof cut);
    if (p->dasf_names)
        return written ? written : own_label(p, cut, cut_len);
    if (written && !(len == cut_len && memcmp(name, cut, len) == 0))
        return written; /* a name of its own */
    return own_label(p, buf, dfs_tasks_repaired_name(key, n, buf, sizeof buf));
}

static void add_compute(part *p, const dfs_run *run, const dfs_event *ev)
{
    tk_compute c = {.offset = ev->offset, .file = ev->file};
    bool found;
    if (ev->phase != DFS_PHASE_COMPLETE) {
        p->n.compute_not_complete++;
        return;
    }
    if (!written_time(p, ev, &c.end) || !written_duration(p, ev, &c.dur)) {
        p->n.compute_no_time++;
        return;
    }
    c.key = str_arg(ev, DFS_KEY_STR(DFS_KEY_KEY), &found);
    if (!found) {
        p->n.compute_no_key++;
        return;
    }
    c.name = str_arg(ev, DFS_KEY_STR(DFS_KEY_NAME), &found);
    p->n.compute_no_name += !found; /* DASF fails on it */
    c.name = function_name(p, run, c.key, found ? c.name : 0);
    c.type = str_arg(ev, DFS_KEY_STR(DFS_KEY_TYPE), &found);
    if (!value_num(arg_of(ev, DFS_KEY_STR(DFS_KEY_SIZE)), &c.size)) {
        c.size = tk_py_int(0);
        p->n.compute_no_size++;
    }
    c.shape = shape_label(p, run, arg_of(ev, DFS_KEY_STR(DFS_KEY_SHAPE)));
    c.host = host_label(p, ev);
    c.worker = worker_label(p, ev);
    c.refs_at = p->refs.n;
    c.nin = add_refs(p, arg_of(ev, DFS_KEY_STR(DFS_KEY_DEPENDENCIES)));
    c.nout = add_refs(p, arg_of(ev, DFS_KEY_STR(DFS_KEY_DEPENDENTS)));
    if (!dfs_vec_push(&p->computes, c))
        p->failed = true;
}

static void add_managed(part *p, const dfs_event *ev)
{
    tk_managed m = {.offset = ev->offset, .file = ev->file};
    if (!written_time(p, ev, &m.ts) || !value_num(arg_of(ev, p->ids.tasks), &m.tasks)) {
        p->n.managed_bad++;
        return;
    }
    m.host = host_label(p, ev);
    m.worker = worker_label(p, ev);
    if (!dfs_vec_push(&p->managed, m))
        p->failed = true;
}

static void add_sample(part *p, const dfs_event *ev)
{
    tk_sample s = {.offset = ev->offset, .file = ev->file};
    if (!written_time(p, ev, &s.t)) {
        p->n.sample_bad_time++;
        return;
    }
    s.host = host_label(p, ev);
    s.has = (value_num(arg_of(ev, p->ids.gpu_util), &s.util) ? HAS_UTIL : 0) |
            (value_num(arg_of(ev, p->ids.gpu_mem), &s.mem) ? HAS_MEM : 0);
    p->n.sample_no_gpu += s.has == 0;
    p->n.sample_gpu_partial += s.has == HAS_UTIL || s.has == HAS_MEM;
    if (!dfs_vec_push(&p->samples, s))
        p->failed = true;
}

static void add_other_named(part *p, dfs_str name, uint64_t count, int64_t dur_ns)
{
    uint32_t i;
    if (!dfs_u64map_get(&p->other_index, name, &i)) {
        tk_other o = {name, 0, 0};
        if (!dfs_vec_push(&p->other, o) || !dfs_u64map_put(&p->other_index, name, (uint32_t)(p->other.n - 1))) {
            p->failed = true;
            return;
        }
        i = (uint32_t)(p->other.n - 1);
    }
    p->other.v[i].count += count;
    p->other.v[i].dur_ns += dur_ns;
}

/* Other events, for the per-name statistics of legacy traces. B and E are paired at the end. */
static void add_other(part *p, const dfs_event *ev)
{
    if (ev->phase == DFS_PHASE_METADATA)
        return;
    if ((ev->phase == DFS_PHASE_BEGIN || ev->phase == DFS_PHASE_END) && (ev->flags & DFS_EF_HAS_TS)) {
        tk_edge_ev e = {.offset = ev->offset, .stack = {ev->pid, ev->tid, ev->name}, .ts = ev->ts,
                        .file = ev->file, .begin = ev->phase == DFS_PHASE_BEGIN};
        if (!dfs_vec_push(&p->edges, e))
            p->failed = true;
        return;
    }
    bool timed = ev->phase == DFS_PHASE_COMPLETE && (ev->flags & DFS_EF_HAS_DUR) &&
                 !(ev->flags & DFS_EF_BAD_TIME);
    add_other_named(p, ev->name, 1, timed ? ev->dur : 0);
}

static void *worker_begin(void *user)
{
    dfs_tasks *t = user;
    part *p = malloc(sizeof *p);
    if (!p)
        return NULL;
    tk_part_init(p);
    p->dasf_names = t->opt.mode == DFS_TASKS_COMPAT;
    p->own = dfs_strcache_new(t->own);
    if (!p->own)
        p->failed = true;
    return p;
}

static void on_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    part *p = state;
    if (!p || p->failed)
        return;
    refresh_ids(p, run);
    for (size_t i = 0; i < b->count && !p->failed; i++) {
        const dfs_event *ev = &b->events[i];
        if (ev->name == 0)
            add_other(p, ev);
        else if (ev->name == p->ids.compute)
            add_compute(p, run, ev);
        else if (ev->name == p->ids.managed)
            add_managed(p, ev);
        else if (ev->name == p->ids.resource)
            add_sample(p, ev);
        else
            add_other(p, ev);
    }
}

static void add_counts(tk_counts *into, const tk_counts *from)
{
    into->compute_not_complete += from->compute_not_complete;
    into->compute_no_time += from->compute_no_time;
    into->compute_no_key += from->compute_no_key;
    into->compute_no_name += from->compute_no_name;
    into->compute_no_size += from->compute_no_size;
    into->compute_bad_ref += from->compute_bad_ref;
    into->managed_bad += from->managed_bad;
    into->sample_bad_time += from->sample_bad_time;
    into->sample_no_gpu += from->sample_no_gpu;
    into->sample_gpu_partial += from->sample_gpu_partial;
}

/* The first worker's vectors are taken over whole: copying them would double the peak memory
 * of a run read by one worker. */
#define TAKE_OVER(dst, src) ((dst) = (src), (src).v = NULL, (src).n = (src).cap = 0)

static bool merge_part(part *t, part *p)
{
    if (!t->computes.n && !t->refs.n && !t->managed.n && !t->samples.n && !t->edges.n) {
        TAKE_OVER(t->computes, p->computes);
        TAKE_OVER(t->refs, p->refs);
        TAKE_OVER(t->managed, p->managed);
        TAKE_OVER(t->samples, p->samples);
        TAKE_OVER(t->edges, p->edges);
    }
    size_t base = t->refs.n, first = t->computes.n;
    if (!dfs_vec_append(&t->computes, &p->computes) || !dfs_vec_append(&t->refs, &p->refs) ||
        !dfs_vec_append(&t->managed, &p->managed) || !dfs_vec_append(&t->samples, &p->samples) ||
        !dfs_vec_append(&t->edges, &p->edges))
        return false;
    for (size_t i = first; i < t->computes.n; i++)
        t->computes.v[i].refs_at += base;
    for (size_t i = 0; i < p->other.n; i++)
        add_other_named(t, p->other.v[i].name, p->other.v[i].count, p->other.v[i].dur_ns);
    add_counts(&t->n, &p->n);
    return !t->failed;
}

static void worker_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    dfs_tasks *t = user;
    part *p = state;
    if (!p) {
        t->total.failed = true;
        return;
    }
    if (p->failed || !merge_part(&t->total, p))
        t->total.failed = true;
    tk_part_free(p);
    free(p);
}

/* ---- the consumer ------------------------------------------------------------------------------ */

static const char *const wanted_extra[] = {DFS_DASF_RAW_TIMESTAMP, DFS_DASF_RAW_DURATION, "tasks",
                                           "gpu_utilization", "gpu_memory_used", NULL};

void tk_consumer_init(dfs_tasks *t)
{
    t->consumer = (dfs_consumer){
        .user = t,
        .want = {.keys = DFS_KEYBIT(DFS_KEY_KEY) | DFS_KEYBIT(DFS_KEY_NAME) | DFS_KEYBIT(DFS_KEY_SIZE) |
                         DFS_KEYBIT(DFS_KEY_DEPENDENCIES) | DFS_KEYBIT(DFS_KEY_DEPENDENTS) |
                         (t->opt.graph_attrs ? DFS_KEYBIT(DFS_KEY_TYPE) | DFS_KEYBIT(DFS_KEY_SHAPE) : 0),
                 .extra = wanted_extra},
        .worker_begin = worker_begin,
        .on_batch = on_batch,
        .worker_end = worker_end,
    };
}

/* ---- legacy traces: per-name durations -------------------------------------------------------- */

static int cmp_edge_ev(const void *a, const void *b)
{
    const tk_edge_ev *x = a, *y = b;
    int c = dfs_stack_key_cmp(&x->stack, &y->stack);
    return c ? c : SEQ_CMP(x, y);
}

/* B/E per (process, thread, name), nested in file order; unmatched ones only count. */
static bool pair_edges(dfs_tasks *t)
{
    part *p = &t->total;
    tk_sort_any(p->edges.v, p->edges.n, sizeof *p->edges.v, cmp_edge_ev);
    DFS_VEC(int64_t) open = {0};
    uint64_t unmatched = 0;
    for (size_t i = 0; i < p->edges.n; i++) {
        const tk_edge_ev *e = &p->edges.v[i];
        if (i && !dfs_stack_key_same(&e->stack, &(e - 1)->stack)) {
            unmatched += open.n;
            open.n = 0;
        }
        if (e->begin) {
            if (!dfs_vec_push(&open, e->ts)) {
                dfs_vec_free(&open);
                return false;
            }
        } else if (open.n) {
            add_other_named(p, e->stack.name, 1, e->ts - open.v[--open.n]);
        } else {
            unmatched++;
        }
    }
    unmatched += open.n;
    dfs_vec_free(&open);
    tk_count_note(t, unmatched, "begin/end event(s) without a partner left out");
    return !p->failed;
}

static int cmp_name_row(const void *a, const void *b, void *ctx)
{
    const dfs_tasks *t = ctx;
    const name_row *x = a, *y = b;
    if (x->dur_ns != y->dur_ns)
        return x->dur_ns > y->dur_ns ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return tk_cmp_label_text(&x->name, &y->name, (void *)t);
}

bool tk_build_names(dfs_tasks *t)
{
    part *p = &t->total;
    if (!pair_edges(t))
        return false;
    for (size_t i = 0; i < p->other.n; i++) {
        name_row r = {p->other.v[i].name, p->other.v[i].count, p->other.v[i].dur_ns};
        if (!dfs_vec_push(&t->names, r))
            return false;
        t->names_total_ns += r.dur_ns;
    }
    tk_sort_ctx(t->names.v, t->names.n, sizeof *t->names.v, cmp_name_row, t);
    return true;
}
