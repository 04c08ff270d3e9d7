/* tasks.c - DASF's task analyses, the annotated task graph and its critical path (tasks.h). */
#include "analyze/tasks/tasks.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/dasf.h"
#include "util/shortest.h"
#include "util/strtab.h"
#include "util/u64map.h"
#include "util/vec.h"

/* Labels (hosts, workers, shapes) are string ids: of the run's table, or with OWN_BIT of the
 * analysis' own table (numbers written as process or thread ids, "None", shapes). */
#define OWN_BIT 0x80000000u
/* --fill-seconds never makes more rows than this (a clock jump would make billions). */
#define MAX_FILL_ROWS 10000000u
#define MAX_NOTES 24

/* ---- Python numbers --------------------------------------------------------------------------
 * DASF sums sizes and GPU readings with Python's sum(): integers stay exact integers until a float
 * joins. Keeping the distinction gives the same last bit and the same integer/float column types. */

typedef struct pynum {
    union {
        int64_t i;
        double f;
    } v;
    bool is_int;
} pynum;

static pynum py_int(int64_t i) { return (pynum){.v.i = i, .is_int = true}; }
static pynum py_float(double f) { return (pynum){.v.f = f, .is_int = false}; }
static double py_double(pynum a) { return a.is_int ? (double)a.v.i : a.v.f; }

static pynum py_add(pynum a, pynum b)
{
    int64_t s;
    if (a.is_int && b.is_int && !__builtin_add_overflow(a.v.i, b.v.i, &s))
        return py_int(s);
    return py_float(py_double(a) + py_double(b));
}

static bool value_num(const dfs_value *v, pynum *out)
{
    if (!v)
        return false;
    switch (v->type) {
    case DFS_V_INT:
    case DFS_V_BOOL: *out = py_int(v->as.i); return true;
    case DFS_V_UINT: *out = py_float((double)v->as.u); return true;
    case DFS_V_FLOAT: *out = py_float(v->as.f); return true;
    default: return false;
    }
}

/* ---- what is kept of the events ------------------------------------------------------------- */

typedef struct tk_compute {
    uint64_t offset;
    uint32_t file;
    dfs_str key, name, type;
    uint32_t shape;          /* own label, 0: none */
    uint32_t host, worker;   /* labels */
    uint32_t nin, nout;      /* dependencies, dependents: refs[refs_at ..] */
    uint64_t refs_at;
    double end, dur;         /* the written timestamp (task end) and duration, s */
    pynum size;
} tk_compute;

typedef struct tk_managed {
    uint64_t offset;
    uint32_t file;
    uint32_t host, worker;
    double ts;
    pynum tasks;
} tk_managed;

enum { HAS_UTIL = 1, HAS_MEM = 2 };

typedef struct tk_sample {
    uint64_t offset;
    uint32_t file;
    uint32_t host;
    double t;
    pynum util, mem;
    unsigned has;            /* HAS_UTIL | HAS_MEM */
} tk_sample;

/* Events of other names (legacy traces): durations by name; B/E kept for pairing. */
typedef struct tk_other {
    dfs_str name;
    uint64_t count;
    int64_t dur_ns;
} tk_other;

typedef struct tk_edge_ev {
    uint64_t offset;
    uint32_t file;
    dfs_str name;
    int64_t pid, tid, ts;
    bool begin;
} tk_edge_ev;

/* Why events were left out or patched, for the notes. */
typedef struct tk_counts {
    uint64_t compute_not_complete, compute_no_time, compute_no_key, compute_no_name, compute_no_size;
    uint64_t compute_bad_ref;
    uint64_t managed_bad, sample_bad_time, sample_no_gpu, sample_gpu_partial;
} tk_counts;

typedef struct tk_ids {
    dfs_str compute, managed, resource, raw_ts, raw_dur, tasks, gpu_util, gpu_mem;
} tk_ids;

/* One reading worker's events (and, merged, the whole run's). */
typedef struct part {
    DFS_VEC(tk_compute) computes;
    DFS_VEC(dfs_str) refs;
    DFS_VEC(tk_managed) managed;
    DFS_VEC(tk_sample) samples;
    DFS_VEC(tk_other) other;
    DFS_VEC(tk_edge_ev) edges;
    dfs_u64map other_index;
    tk_counts n;
    tk_ids ids;
    dfs_strcache *own;
    char *text;              /* scratch for shapes and numbers */
    size_t text_len, text_cap;
    bool failed;             /* out of memory */
} part;

static void part_init(part *p)
{
    memset(p, 0, sizeof *p);
    dfs_u64map_init(&p->other_index);
}

static void part_free(part *p)
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

/* ---- derived structures --------------------------------------------------------------------- */

typedef struct tk_worker {
    uint32_t host, worker;
    double fn_total, task_total; /* Σ of its rows' durations, in row order (DASF's sum()) */
} tk_worker;

typedef struct fn_row {
    uint32_t worker;         /* index in workers */
    dfs_str name;
    dfs_str first_key;
    uint64_t first;          /* compute index of its first event */
    uint64_t count, distinct;
    double dur;
    pynum data_sum, thr_sum;
    pynum util_sum, mem_sum; /* default mode: this row's samples */
    uint64_t util_n, mem_n;
} fn_row;

typedef struct task_row {
    uint32_t worker;
    dfs_str key, name;
    uint32_t label;          /* creation index, once the rows are in output order */
    uint64_t first, count;
    double dur;
    double mem;              /* args.size of the key's last Compute, anywhere */
} task_row;

typedef struct gpu_stat {    /* compatible mode: per function name, global */
    pynum util_sum, mem_sum;
    uint64_t util_n, mem_n;
} gpu_stat;

typedef struct bal_entry {
    uint32_t col;
    int64_t slot;            /* seconds (or buckets) from the start */
    double ts;
    uint64_t order;          /* iteration index of the winning event */
    uint64_t first;          /* ... and of the first event of its (column, slot) */
    pynum tasks;
} bal_entry;

typedef struct name_row {
    dfs_str name;
    uint64_t count;
    int64_t dur_ns;
} name_row;

struct dfs_tasks {
    dfs_consumer consumer;
    dfs_tasks_options opt;
    dfs_strtab *own;
    part total;
    const dfs_run *run;
    /* graph */
    dfs_tasks_node *nodes;
    size_t nnodes;
    uint32_t *node_last;     /* last Compute of each node, UINT32_MAX when none */
    uint32_t *compute_node;  /* node of each Compute */
    uint32_t *compute_fn;    /* function row of each Compute */
    uint32_t *pred_start, *pred, *succ_start, *succ;
    size_t nedges;
    uint32_t *path;
    size_t npath;
    double *path_end;
    /* tables */
    DFS_VEC(tk_worker) workers;
    DFS_VEC(fn_row) fn;
    DFS_VEC(task_row) tasks;
    uint32_t *fn_order;      /* output order of the function rows */
    dfs_u64map gpu_index;    /* function name -> gpu_stats */
    DFS_VEC(gpu_stat) gpu_stats;
    bool gpu_int_column;     /* compatible: no row got a sample, the GPU column stays integer */
    dfs_tk_type fn_types[14];
    bool host_int;           /* every host is a number: pandas makes Host an integer column */
    /* task_balance */
    uint32_t *bal_cols;      /* column labels, sorted by text */
    size_t nbal_cols;
    bal_entry *bal;          /* sorted by (col, slot) */
    size_t nbal;
    size_t *bal_col_start;
    int64_t *bal_rows;       /* the row slots */
    int64_t *bal_labels;     /* their labels (not with bal_fill: the row number) */
    size_t nbal_rows;
    bool bal_fill;
    const char **bal_names;
    dfs_tk_type *bal_types;
    /* legacy */
    DFS_VEC(name_row) names;
    int64_t names_total_ns;
    /* output */
    char *notes[MAX_NOTES];
    size_t nnotes;
    dfs_tasks_result result;
};

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

const char *dfs_tasks_str(const dfs_tasks *t, dfs_str s, size_t *len)
{
    if (s & OWN_BIT)
        return dfs_strtab_get(t->own, s & ~OWN_BIT, len);
    return dfs_str_get(t->run, s, len);
}

static bool label_is_number(const dfs_tasks *t, uint32_t label)
{
    size_t n;
    const char *s = dfs_tasks_str(t, label, &n);
    if (!(label & OWN_BIT) || n == 0)
        return false;
    for (size_t i = s[0] == '-'; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
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
        *out = py_double(n);
        return true;
    }
    if (!(ev->flags & DFS_EF_HAS_TS))
        return false;
    int64_t ns = ev->ts + (ev->phase == DFS_PHASE_COMPLETE && (ev->flags & DFS_EF_HAS_DUR) ? ev->dur : 0);
    *out = (double)ns / 1e9;
    return true;
}

static bool written_duration(const part *p, const dfs_event *ev, double *out)
{
    pynum n;
    if (value_num(arg_of(ev, p->ids.raw_dur), &n)) {
        *out = py_double(n);
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
    if (!found) { /* DASF fails; name it as DASF's plugin would have */
        p->n.compute_no_name++;
        size_t n;
        const char *key = dfs_str_get(run, c.key, &n);
        char buf[256];
        c.name = own_label(p, buf, dfs_tasks_dasf_name(key, n, buf, sizeof buf));
    }
    c.type = str_arg(ev, DFS_KEY_STR(DFS_KEY_TYPE), &found);
    if (!value_num(arg_of(ev, DFS_KEY_STR(DFS_KEY_SIZE)), &c.size)) {
        c.size = py_int(0);
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
        tk_edge_ev e = {ev->offset, ev->file, ev->name, ev->pid, ev->tid, ev->ts,
                        ev->phase == DFS_PHASE_BEGIN};
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
    part_init(p);
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
    part_free(p);
    free(p);
}

/* qsort and qsort_r, also for an empty (NULL) array. */
static void sort_any(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(v, n, size, cmp);
}

static void sort_ctx(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
                     void *ctx)
{
    if (n > 1)
        qsort_r(v, n, size, cmp, ctx);
}

/* ---- iteration order -------------------------------------------------------------------------- */

#define SEQ_CMP(a, b)                                                                              \
    ((a)->file != (b)->file ? ((a)->file < (b)->file ? -1 : 1)                                     \
                            : (a)->offset != (b)->offset ? ((a)->offset < (b)->offset ? -1 : 1) : 0)

static int cmp_compute(const void *a, const void *b) { return SEQ_CMP((const tk_compute *)a, (const tk_compute *)b); }
static int cmp_managed(const void *a, const void *b) { return SEQ_CMP((const tk_managed *)a, (const tk_managed *)b); }
static int cmp_sample(const void *a, const void *b) { return SEQ_CMP((const tk_sample *)a, (const tk_sample *)b); }

/* Workers hand over runs already in file order; one worker's reading needs no sort at all. */
static void sort_seq(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    const char *c = v;
    for (size_t i = 1; i < n; i++)
        if (cmp(c + (i - 1) * size, c + i * size) > 0) {
            sort_any(v, n, size, cmp);
            return;
        }
}

/* ---- notes ------------------------------------------------------------------------------------ */

static void note(dfs_tasks *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(dfs_tasks *t, const char *fmt, ...)
{
    if (t->nnotes >= MAX_NOTES)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *s = strdup(buf);
    if (s)
        t->notes[t->nnotes++] = s;
}

/* ---- the annotated task graph (spec 4.1) ------------------------------------------------------ */

typedef struct edge {
    uint32_t from, to;
} edge;

typedef struct graph_build {
    dfs_u64map index;              /* key -> node */
    DFS_VEC(dfs_tasks_node) nodes;
    DFS_VEC(uint32_t) last;
    DFS_VEC(edge) edges;
} graph_build;

/* networkx adds a node when it is first named, as a task or in an edge. */
static bool node_of(graph_build *g, dfs_str key, uint32_t *out)
{
    if (dfs_u64map_get(&g->index, key, out))
        return true;
    dfs_tasks_node n = {.key = key, .shape = ""};
    if (!dfs_vec_push(&g->nodes, n) || !dfs_vec_push(&g->last, UINT32_MAX))
        return false;
    *out = (uint32_t)(g->nodes.n - 1);
    return dfs_u64map_put(&g->index, key, *out);
}

static bool add_edge(graph_build *g, dfs_str from, dfs_str to)
{
    edge e;
    return node_of(g, from, &e.from) && node_of(g, to, &e.to) && dfs_vec_push(&g->edges, e);
}

static bool add_task_edges(dfs_tasks *t, graph_build *g, const tk_compute *c)
{
    const dfs_str *refs = t->total.refs.v + c->refs_at;
    for (uint32_t i = 0; i < c->nin; i++)
        if (!add_edge(g, refs[i], c->key))
            return false;
    for (uint32_t i = 0; i < c->nout; i++)
        if (!add_edge(g, c->key, refs[c->nin + i]))
            return false;
    return true;
}

/* Adjacency of one direction in first-insertion order, without parallel edges (a DiGraph). */
static bool build_csr(size_t nnodes, const edge *e, size_t ne, bool by_target, uint32_t **start_out,
                      uint32_t **adj_out, size_t *nadj)
{
    uint32_t *start = calloc(nnodes + 1, sizeof *start);
    uint32_t *adj = malloc((ne ? ne : 1) * sizeof *adj);
    uint32_t *mark = malloc((nnodes ? nnodes : 1) * sizeof *mark);
    if (!start || !adj || !mark) {
        free(start), free(adj), free(mark);
        return false;
    }
    for (size_t i = 0; i < ne; i++)
        start[(by_target ? e[i].to : e[i].from) + 1]++;
    for (size_t i = 0; i < nnodes; i++)
        start[i + 1] += start[i];
    uint32_t *fill = mark; /* fill cursors first, dedup marks afterwards */
    memcpy(fill, start, nnodes * sizeof *fill);
    for (size_t i = 0; i < ne; i++) {
        uint32_t x = by_target ? e[i].to : e[i].from;
        adj[fill[x]++] = by_target ? e[i].from : e[i].to;
    }
    for (size_t i = 0; i < nnodes; i++)
        mark[i] = UINT32_MAX;
    size_t out = 0;
    for (size_t x = 0; x < nnodes; x++) {
        uint32_t a = start[x], b = start[x + 1];
        start[x] = (uint32_t)out;
        for (uint32_t k = a; k < b; k++)
            if (mark[adj[k]] != x) {
                mark[adj[k]] = (uint32_t)x;
                adj[out++] = adj[k];
            }
    }
    start[nnodes] = (uint32_t)out;
    free(mark);
    *start_out = start;
    *adj_out = adj;
    *nadj = out;
    return true;
}

static void set_node_attrs(dfs_tasks *t, dfs_tasks_node *n, const tk_compute *c)
{
    size_t len;
    n->has_attrs = true;
    n->name = c->name;
    n->type = c->type;
    n->shape = c->shape ? dfs_tasks_str(t, c->shape, &len) : "";
    n->size = py_double(c->size);
    n->duration = c->dur;
}

/* input_data_size and throughput ("bandwidth") of every node, with Python's arithmetic. */
static uint64_t annotate_nodes(dfs_tasks *t, pynum *input)
{
    uint64_t zero = 0;
    for (size_t v = 0; v < t->nnodes; v++) {
        pynum sum = py_int(0);
        for (uint32_t k = t->pred_start[v]; k < t->pred_start[v + 1]; k++) {
            uint32_t u = t->node_last[t->pred[k]];
            sum = py_add(sum, u == UINT32_MAX ? py_int(0) : t->total.computes.v[u].size);
        }
        input[v] = sum;
        dfs_tasks_node *n = &t->nodes[v];
        n->input_size = py_double(sum);
        double dur = n->has_attrs ? n->duration : 1.0;
        if (dur == 0) { /* DASF: ZeroDivisionError */
            zero++;
            n->throughput = 0;
        } else {
            n->throughput = n->input_size / dur;
        }
    }
    return zero;
}

static bool build_graph(dfs_tasks *t, pynum **input_out)
{
    graph_build g;
    memset(&g, 0, sizeof g);
    dfs_u64map_init(&g.index);
    const part *p = &t->total;
    bool ok = (t->compute_node = malloc((p->computes.n ? p->computes.n : 1) * sizeof(uint32_t))) != NULL;
    for (size_t i = 0; ok && i < p->computes.n; i++) {
        const tk_compute *c = &p->computes.v[i];
        ok = node_of(&g, c->key, &t->compute_node[i]) && add_task_edges(t, &g, c);
        if (ok)
            g.last.v[t->compute_node[i]] = (uint32_t)i;
    }
    t->nodes = g.nodes.v;
    t->nnodes = g.nodes.n;
    t->node_last = g.last.v;
    size_t np = 0;
    ok = ok && build_csr(t->nnodes, g.edges.v, g.edges.n, true, &t->pred_start, &t->pred, &np) &&
         build_csr(t->nnodes, g.edges.v, g.edges.n, false, &t->succ_start, &t->succ, &t->nedges);
    dfs_vec_free(&g.edges);
    dfs_u64map_free(&g.index);
    pynum *input = ok ? malloc((t->nnodes ? t->nnodes : 1) * sizeof *input) : NULL;
    if (!input)
        return false;
    for (size_t v = 0; v < t->nnodes; v++)
        if (t->node_last[v] != UINT32_MAX)
            set_node_attrs(t, &t->nodes[v], &p->computes.v[t->node_last[v]]);
    dfs_vec_free(&t->total.refs); /* the edges hold them now */
    uint64_t zero = annotate_nodes(t, input);
    if (zero)
        note(t, "%llu task(s) with duration 0: throughput counted as 0 (DASF fails on them)",
             (unsigned long long)zero);
    *input_out = input;
    return true;
}

/* ---- rows of function_bottleneck and task_bottleneck (spec 4.2, 4.3) -------------------------- */

static bool index_of(dfs_u64map *m, uint64_t key, size_t n, uint32_t *out, bool *created)
{
    *created = !dfs_u64map_get(m, key, out);
    if (!*created)
        return true;
    *out = (uint32_t)n;
    return dfs_u64map_put(m, key, *out);
}

static bool worker_of(dfs_tasks *t, dfs_u64map *m, const tk_compute *c, uint32_t *w)
{
    bool created;
    if (!index_of(m, (uint64_t)c->host << 32 | c->worker, t->workers.n, w, &created))
        return false;
    tk_worker k = {c->host, c->worker, 0, 0};
    return !created || dfs_vec_push(&t->workers, k);
}

static bool fn_row_of(dfs_tasks *t, dfs_u64map *m, uint32_t w, const tk_compute *c, size_t i,
                      uint32_t *r)
{
    bool created;
    if (!index_of(m, (uint64_t)w << 32 | c->name, t->fn.n, r, &created))
        return false;
    fn_row row = {.worker = w, .name = c->name, .first_key = c->key, .first = i,
                  .data_sum = py_int(0), .thr_sum = py_int(0), .util_sum = py_int(0),
                  .mem_sum = py_int(0)};
    return !created || dfs_vec_push(&t->fn, row);
}

static bool task_row_of(dfs_tasks *t, dfs_u64map *m, uint32_t w, const tk_compute *c, size_t i,
                        uint32_t *r)
{
    bool created;
    if (!index_of(m, (uint64_t)w << 32 | c->key, t->tasks.n, r, &created))
        return false;
    task_row row = {.worker = w, .key = c->key, .name = c->name, .first = i};
    return !created || dfs_vec_push(&t->tasks, row);
}

/* Accumulates every Compute event into its rows, in iteration order (DASF's float sums). */
static bool accumulate_rows(dfs_tasks *t, const pynum *input)
{
    dfs_u64map wm, fm, tm, distinct;
    dfs_u64map_init(&wm), dfs_u64map_init(&fm), dfs_u64map_init(&tm), dfs_u64map_init(&distinct);
    const part *p = &t->total;
    bool ok = true, clean = t->opt.mode == DFS_TASKS_DEFAULT;
    for (size_t i = 0; ok && i < p->computes.n; i++) {
        const tk_compute *c = &p->computes.v[i];
        uint32_t w, f, k, unused, node = t->compute_node[i];
        bool is_new = false;
        ok = worker_of(t, &wm, c, &w) && fn_row_of(t, &fm, w, c, i, &f) &&
             task_row_of(t, &tm, w, c, i, &k) &&
             (!clean || index_of(&distinct, (uint64_t)f << 32 | c->key, 0, &unused, &is_new));
        if (!ok)
            break;
        fn_row *fr = &t->fn.v[f];
        fr->dur += c->dur;
        fr->count++;
        fr->distinct += is_new;
        fr->data_sum = py_add(fr->data_sum, input[node]);
        fr->thr_sum = py_add(fr->thr_sum, py_float(t->nodes[node].throughput));
        t->compute_fn[i] = f;
        t->tasks.v[k].dur += c->dur;
        t->tasks.v[k].count++;
    }
    dfs_u64map_free(&wm), dfs_u64map_free(&fm), dfs_u64map_free(&tm), dfs_u64map_free(&distinct);
    return ok;
}

/* DASF's rows: worker by worker (first Compute of each), within a worker by first appearance.
 * Rows are created in order of first appearance, so a stable bucketing by worker gives that
 * order in linear time. Row index = DASF's label afterwards; map_out (if any) maps old -> new. */
static bool relabel(void *rows, size_t n, size_t size, size_t nworkers, uint32_t (*worker)(const void *),
                    uint32_t *map_out)
{
    if (n == 0)
        return true;
    size_t *start = calloc(nworkers + 1, sizeof *start);
    char *copy = malloc(n * size);
    if (!start || !copy) {
        free(start), free(copy);
        return false;
    }
    memcpy(copy, rows, n * size);
    for (size_t i = 0; i < n; i++)
        start[worker(copy + i * size) + 1]++;
    for (size_t w = 0; w < nworkers; w++)
        start[w + 1] += start[w];
    for (size_t i = 0; i < n; i++) {
        size_t to = start[worker(copy + i * size)]++;
        memcpy((char *)rows + to * size, copy + i * size, size);
        if (map_out)
            map_out[i] = (uint32_t)to;
    }
    free(start), free(copy);
    return true;
}

static uint32_t fn_worker(const void *r) { return ((const fn_row *)r)->worker; }
static uint32_t task_worker(const void *r) { return ((const task_row *)r)->worker; }

/* Per-worker totals: Python's sum() over the worker's rows in row order. */
static uint64_t worker_totals(dfs_tasks *t)
{
    for (size_t i = 0; i < t->fn.n; i++)
        t->workers.v[t->fn.v[i].worker].fn_total += t->fn.v[i].dur;
    for (size_t i = 0; i < t->tasks.n; i++)
        t->workers.v[t->tasks.v[i].worker].task_total += t->tasks.v[i].dur;
    uint64_t zero = 0;
    for (size_t i = 0; i < t->workers.n; i++)
        zero += t->workers.v[i].fn_total == 0;
    return zero;
}

static bool build_rows(dfs_tasks *t, const pynum *input)
{
    size_t n = t->total.computes.n;
    uint32_t *map = NULL;
    t->compute_fn = malloc((n ? n : 1) * sizeof *t->compute_fn);
    bool ok = t->compute_fn && accumulate_rows(t, input) &&
              (map = malloc((t->fn.n ? t->fn.n : 1) * sizeof *map)) != NULL &&
              relabel(t->fn.v, t->fn.n, sizeof *t->fn.v, t->workers.n, fn_worker, map) &&
              relabel(t->tasks.v, t->tasks.n, sizeof *t->tasks.v, t->workers.n, task_worker, NULL);
    if (ok)
        for (size_t i = 0; i < n; i++)
            t->compute_fn[i] = map[t->compute_fn[i]];
    free(map);
    if (!ok)
        return false;
    uint64_t zero = worker_totals(t);
    if (zero)
        note(t, "%llu worker(s) with a total duration of 0: percentages 0 (DASF fails on them)",
             (unsigned long long)zero);
    return true;
}

/* ---- resource attribution (spec 4.2, quirks 3-6) ---------------------------------------------- */

#define NO_MATCH UINT32_MAX

typedef struct window {
    double lo;
    uint32_t idx; /* Compute index = iteration order */
} window;

static int cmp_window(const void *a, const void *b)
{
    const window *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_sample_time(const void *a, const void *b, void *ctx)
{
    const tk_sample *s = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (s[i].t != s[j].t)
        return s[i].t < s[j].t ? -1 : 1;
    return (i > j) - (i < j);
}

/* A binary min-heap of Compute indexes: the active window that comes first in iteration order. */
typedef struct heap {
    uint32_t *v;
    size_t n;
} heap;

static void heap_push(heap *h, uint32_t x)
{
    size_t i = h->n++;
    while (i > 0 && h->v[(i - 1) / 2] > x) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = x;
}

static void heap_pop(heap *h)
{
    uint32_t x = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1] < h->v[c])
            c++;
        if (h->v[c] >= x)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = x;
}

static double window_end(const tk_compute *c) { return c->end + c->dur; }

/* DASF's join without its O(samples x events) scan: windows [end, end + duration] sorted by start,
 * samples by time; a window enters the heap when it starts and leaves once it has ended (lazily:
 * an ended window below the top is dropped when it surfaces, and stays ended for later samples). */
static bool sweep_first_match(const part *p, uint32_t *match)
{
    size_t nc = p->computes.n, ns = p->samples.n, nw = 0, no = 0;
    window *w = malloc((nc ? nc : 1) * sizeof *w);
    uint32_t *order = malloc((ns ? ns : 1) * sizeof *order);
    heap h = {malloc((nc ? nc : 1) * sizeof(uint32_t)), 0};
    if (!w || !order || !h.v) {
        free(w), free(order), free(h.v);
        return false;
    }
    for (size_t i = 0; i < nc; i++) {
        const tk_compute *c = &p->computes.v[i];
        if (!isnan(c->end) && !isnan(window_end(c)) && window_end(c) >= c->end)
            w[nw++] = (window){c->end, (uint32_t)i};
    }
    sort_any(w, nw, sizeof *w, cmp_window);
    for (size_t i = 0; i < ns; i++) {
        match[i] = NO_MATCH;
        if (!isnan(p->samples.v[i].t))
            order[no++] = (uint32_t)i;
    }
    sort_ctx(order, no, sizeof *order, cmp_sample_time, p->samples.v);
    size_t next = 0;
    for (size_t k = 0; k < no; k++) {
        double t = p->samples.v[order[k]].t;
        while (next < nw && w[next].lo <= t)
            heap_push(&h, w[next++].idx);
        while (h.n && window_end(&p->computes.v[h.v[0]]) < t)
            heap_pop(&h);
        if (h.n)
            match[order[k]] = h.v[0];
    }
    free(w), free(order), free(h.v);
    return true;
}

static gpu_stat *gpu_stat_of(dfs_tasks *t, dfs_str name, bool create)
{
    uint32_t i;
    if (dfs_u64map_get(&t->gpu_index, name, &i))
        return &t->gpu_stats.v[i];
    gpu_stat s = {py_int(0), py_int(0), 0, 0};
    if (!create || !dfs_vec_push(&t->gpu_stats, s) ||
        !dfs_u64map_put(&t->gpu_index, name, (uint32_t)(t->gpu_stats.n - 1)))
        return NULL;
    return &t->gpu_stats.v[t->gpu_stats.n - 1];
}

/* Compatible mode: each sample to the function name of the first Compute (in iteration order)
 * whose window holds it, globally; the lists grow in sample order as DASF appends them. */
static bool attribute_compat(dfs_tasks *t)
{
    const part *p = &t->total;
    uint32_t *match = malloc((p->samples.n ? p->samples.n : 1) * sizeof *match);
    if (!match || !sweep_first_match(p, match)) {
        free(match);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < p->samples.n; i++) {
        if (match[i] == NO_MATCH)
            continue;
        const tk_sample *s = &p->samples.v[i];
        t->result.samples_attributed++;
        gpu_stat *g = gpu_stat_of(t, p->computes.v[match[i]].name, true);
        if (!(ok = g != NULL))
            break;
        if (s->has & HAS_UTIL)
            g->util_sum = py_add(g->util_sum, s->util), g->util_n++;
        if (s->has & HAS_MEM)
            g->mem_sum = py_add(g->mem_sum, s->mem), g->mem_n++;
    }
    free(match);
    t->gpu_int_column = true;
    for (size_t i = 0; ok && i < t->fn.n; i++) {
        const gpu_stat *g = gpu_stat_of(t, t->fn.v[i].name, false);
        if (g && g->util_n)
            t->gpu_int_column = false;
    }
    return ok;
}

/* Default mode: samples sorted by (host, time) with prefix sums; each function row's task
 * intervals [end - duration, end] merged, so a sample counts once per row that ran during it. */
typedef struct host_sample {
    uint32_t host;
    double t;
    uint32_t idx;
} host_sample;

typedef struct row_window {
    uint32_t row, host;
    double lo, hi;
} row_window;

static int cmp_host_sample(const void *a, const void *b)
{
    const host_sample *x = a, *y = b;
    if (x->host != y->host)
        return x->host < y->host ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_row_window(const void *a, const void *b)
{
    const row_window *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* First position in hs[0..n) at or after (host, t) (after, when `after`). */
static size_t sample_bound(const host_sample *hs, size_t n, uint32_t host, double t, bool after)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        bool before = hs[mid].host < host || (hs[mid].host == host && (after ? hs[mid].t <= t : hs[mid].t < t));
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct prefix {
    double *util, *mem;
    uint64_t *util_n, *mem_n;
    int32_t *cover;
} prefix;

static bool build_prefix(const part *p, host_sample *hs, size_t n, prefix *x)
{
    x->util = malloc((n + 1) * sizeof *x->util);
    x->mem = malloc((n + 1) * sizeof *x->mem);
    x->util_n = malloc((n + 1) * sizeof *x->util_n);
    x->mem_n = malloc((n + 1) * sizeof *x->mem_n);
    x->cover = calloc(n + 1, sizeof *x->cover);
    if (!x->util || !x->mem || !x->util_n || !x->mem_n || !x->cover)
        return false;
    x->util[0] = x->mem[0] = 0;
    x->util_n[0] = x->mem_n[0] = 0;
    for (size_t k = 0; k < n; k++) {
        const tk_sample *s = &p->samples.v[hs[k].idx];
        bool u = s->has & HAS_UTIL, m = s->has & HAS_MEM;
        x->util[k + 1] = x->util[k] + (u ? py_double(s->util) : 0);
        x->util_n[k + 1] = x->util_n[k] + u;
        x->mem[k + 1] = x->mem[k] + (m ? py_double(s->mem) : 0);
        x->mem_n[k + 1] = x->mem_n[k] + m;
    }
    return true;
}

static void prefix_free(prefix *x)
{
    free(x->util), free(x->mem), free(x->util_n), free(x->mem_n), free(x->cover);
}

static void credit_interval(dfs_tasks *t, const host_sample *hs, size_t n, const prefix *x,
                            const row_window *w)
{
    size_t a = sample_bound(hs, n, w->host, w->lo, false), b = sample_bound(hs, n, w->host, w->hi, true);
    if (a >= b)
        return;
    fn_row *r = &t->fn.v[w->row];
    r->util_sum = py_float(py_double(r->util_sum) + (x->util[b] - x->util[a]));
    r->mem_sum = py_float(py_double(r->mem_sum) + (x->mem[b] - x->mem[a]));
    r->util_n += x->util_n[b] - x->util_n[a];
    r->mem_n += x->mem_n[b] - x->mem_n[a];
    x->cover[a]++;
    x->cover[b]--;
}

static size_t row_windows(const dfs_tasks *t, row_window *w)
{
    const part *p = &t->total;
    size_t nw = 0;
    for (size_t i = 0; i < p->computes.n; i++) {
        const tk_compute *c = &p->computes.v[i];
        double lo = c->end - c->dur;
        if (!isnan(lo) && !isnan(c->end) && c->dur >= 0)
            w[nw++] = (row_window){t->compute_fn[i], c->host, lo, c->end};
    }
    sort_any(w, nw, sizeof *w, cmp_row_window);
    return nw;
}

static bool attribute_clean(dfs_tasks *t)
{
    const part *p = &t->total;
    size_t ns = p->samples.n, n = 0;
    host_sample *hs = malloc((ns ? ns : 1) * sizeof *hs);
    row_window *w = malloc((p->computes.n ? p->computes.n : 1) * sizeof *w);
    prefix x = {0};
    bool ok = hs && w;
    for (size_t i = 0; ok && i < ns; i++)
        if (!isnan(p->samples.v[i].t))
            hs[n++] = (host_sample){p->samples.v[i].host, p->samples.v[i].t, (uint32_t)i};
    if (ok) {
        sort_any(hs, n, sizeof *hs, cmp_host_sample);
        ok = build_prefix(p, hs, n, &x);
    }
    size_t nw = ok ? row_windows(t, w) : 0;
    for (size_t i = 0; i < nw;) { /* merge each row's overlapping intervals */
        row_window cur = w[i++];
        for (; i < nw && w[i].row == cur.row && w[i].lo <= cur.hi; i++)
            cur.hi = w[i].hi > cur.hi ? w[i].hi : cur.hi;
        credit_interval(t, hs, n, &x, &cur);
    }
    int64_t cover = 0;
    for (size_t k = 0; ok && k < n; k++)
        t->result.samples_attributed += (cover += x.cover[k]) > 0;
    prefix_free(&x);
    free(hs), free(w);
    return ok;
}

static bool attribute_samples(dfs_tasks *t)
{
    const tk_counts *n = &t->total.n;
    dfs_tasks_result *r = &t->result;
    r->gpu_available = r->samples > n->sample_no_gpu;
    bool ok = t->opt.mode == DFS_TASKS_COMPAT ? attribute_compat(t) : attribute_clean(t);
    if (r->legacy || !(r->analyses & (DFS_TASKS_FUNCTION | DFS_TASKS_TASK)))
        return ok;
    if (r->samples == 0)
        note(t, "no Resource Usage samples: the GPU columns are %s",
             t->opt.mode == DFS_TASKS_COMPAT ? "0" : "unavailable");
    else if (!r->gpu_available)
        note(t, "CPU-only trace: no Resource Usage sample has gpu_utilization or gpu_memory_used; "
                "GPU columns unavailable%s", t->opt.mode == DFS_TASKS_COMPAT ? " (shown as 0; DASF fails here)" : "");
    else if (n->sample_no_gpu || n->sample_gpu_partial)
        note(t, "%llu Resource Usage sample(s) lack gpu_utilization or gpu_memory_used: they add nothing to that column",
             (unsigned long long)(n->sample_no_gpu + n->sample_gpu_partial));
    if (r->samples)
        note(t, "%llu of %llu Resource Usage samples attributed to a task (%s)",
             (unsigned long long)r->samples_attributed, (unsigned long long)r->samples,
             t->opt.mode == DFS_TASKS_COMPAT
                 ? "DASF's window [timestamp, timestamp + duration] after the task end, first Compute in file order, by function name"
                 : "the task's own interval [end - duration, end] on the same host, every task running then, per worker");
    return ok;
}

/* ---- task_balance (spec 4.4, quirks 7, 9, 10) ------------------------------------------------- */

static int cmp_label_text(const void *a, const void *b, void *ctx)
{
    const dfs_tasks *t = ctx;
    size_t la, lb;
    const char *x = dfs_tasks_str(t, *(const uint32_t *)a, &la);
    const char *y = dfs_tasks_str(t, *(const uint32_t *)b, &lb);
    int c = memcmp(x, y, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

/* Compatible: the last event of a (second, worker) in file order wins; default: the last in time. */
static int cmp_bal(const void *a, const void *b, void *ctx)
{
    const bool by_time = *(const bool *)ctx;
    const bal_entry *x = a, *y = b;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    if (by_time && x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The slot of a timestamp: int() truncation (DASF) or floor into buckets; false if unusable. */
static bool slot_of(const dfs_tasks *t, double ts, int64_t *slot)
{
    double v = t->opt.mode == DFS_TASKS_COMPAT ? trunc(ts) : floor(ts / t->opt.bucket_s);
    if (!(v > -9e18 && v < 9e18))
        return false;
    *slot = (int64_t)v;
    return true;
}

/* Columns: the distinct worker labels sorted by text; entries get their column index. */
static bool balance_columns(dfs_tasks *t, bal_entry *e, size_t n, const uint32_t *label)
{
    dfs_u64map cols;
    dfs_u64map_init(&cols);
    t->bal_cols = malloc((n ? n : 1) * sizeof *t->bal_cols);
    bool ok = t->bal_cols != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        uint32_t c;
        if (!dfs_u64map_get(&cols, label[i], &c)) {
            t->bal_cols[t->nbal_cols++] = label[i];
            ok = dfs_u64map_put(&cols, label[i], 0);
        }
    }
    if (ok)
        sort_ctx(t->bal_cols, t->nbal_cols, sizeof *t->bal_cols, cmp_label_text, t);
    for (size_t c = 0; ok && c < t->nbal_cols; c++)
        ok = dfs_u64map_put(&cols, t->bal_cols[c], (uint32_t)c);
    for (size_t i = 0; ok && i < n; i++)
        dfs_u64map_get(&cols, label[i], &e[i].col);
    dfs_u64map_free(&cols);
    return ok;
}

/* Slots from each host's first slot (default) or from the global first one (compatible). */
static bool shift_slots(dfs_tasks *t, bal_entry *e, size_t n, const uint32_t *host)
{
    bool per_host = t->opt.mode == DFS_TASKS_DEFAULT;
    dfs_u64map first;
    dfs_u64map_init(&first);
    DFS_VEC(int64_t) starts = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        uint32_t k, h = per_host ? host[i] : 0;
        if (!dfs_u64map_get(&first, h, &k)) {
            ok = dfs_vec_push(&starts, e[i].slot) && dfs_u64map_put(&first, h, (uint32_t)(starts.n - 1));
        } else if (e[i].slot < starts.v[k]) {
            starts.v[k] = e[i].slot;
        }
    }
    for (size_t i = 0; ok && i < n; i++) {
        uint32_t k;
        dfs_u64map_get(&first, per_host ? host[i] : 0, &k);
        e[i].slot -= starts.v[k];
    }
    dfs_vec_free(&starts);
    dfs_u64map_free(&first);
    return ok;
}

/* Keeps the winner of each (column, slot): the last of its run after sorting. */
static size_t keep_last(bal_entry *e, size_t n)
{
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t first = e[i].order;
        if (out && e[out - 1].col == e[i].col && e[out - 1].slot == e[i].slot) {
            out--;
            first = e[out].first < first ? e[out].first : first;
        }
        e[out] = e[i];
        e[out++].first = first;
    }
    return out;
}

/* DASF's row labels. pandas builds the frame from {second: {worker: tasks}} column by column:
 * workers in order of first appearance (seconds ascending, then first event within a second),
 * rows the union of each worker's seconds in that order (sorted when there is one worker); the
 * label is the position there, kept when the rows are sorted by second. */
typedef struct col_rank {
    uint32_t col;
    int64_t slot;
    uint64_t first;
} col_rank;

static int cmp_col_rank(const void *a, const void *b)
{
    const col_rank *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

static size_t row_of_slot(const dfs_tasks *t, int64_t slot)
{
    size_t lo = 0, hi = t->nbal_rows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->bal_rows[mid] < slot)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool balance_labels(dfs_tasks *t)
{
    t->bal_labels = malloc((t->nbal_rows ? t->nbal_rows : 1) * sizeof *t->bal_labels);
    col_rank *rank = malloc((t->nbal_cols ? t->nbal_cols : 1) * sizeof *rank);
    if (!t->bal_labels || !rank) {
        free(rank);
        return false;
    }
    bool union_order = t->opt.mode == DFS_TASKS_COMPAT && t->nbal_cols > 1;
    for (size_t r = 0; r < t->nbal_rows; r++)
        t->bal_labels[r] = union_order ? -1 : (int64_t)r;
    for (size_t c = 0; c < t->nbal_cols; c++) {
        rank[c] = (col_rank){(uint32_t)c, INT64_MAX, UINT64_MAX};
        for (size_t i = t->bal_col_start[c]; i < t->bal_col_start[c + 1]; i++) {
            col_rank here = {(uint32_t)c, t->bal[i].slot, t->bal[i].first};
            if (cmp_col_rank(&here, &rank[c]) < 0)
                rank[c] = here;
        }
    }
    sort_any(rank, t->nbal_cols, sizeof *rank, cmp_col_rank);
    int64_t next = 0;
    for (size_t k = 0; union_order && k < t->nbal_cols; k++) {
        uint32_t c = rank[k].col;
        for (size_t i = t->bal_col_start[c]; i < t->bal_col_start[c + 1]; i++) {
            size_t r = row_of_slot(t, t->bal[i].slot);
            if (t->bal_labels[r] < 0)
                t->bal_labels[r] = next++;
        }
    }
    free(rank);
    return true;
}

static bool balance_rows(dfs_tasks *t)
{
    size_t n = t->nbal;
    int64_t *slots = malloc((n ? n : 1) * sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < n; i++)
        slots[i] = t->bal[i].slot;
    sort_any(slots, n, sizeof *slots, cmp_i64);
    size_t rows = 0;
    for (size_t i = 0; i < n; i++)
        if (!rows || slots[rows - 1] != slots[i])
            slots[rows++] = slots[i];
    t->bal_rows = slots;
    t->nbal_rows = rows;
    if (!t->opt.fill_seconds || t->opt.mode == DFS_TASKS_COMPAT || !rows)
        return true;
    int64_t last = slots[rows - 1];
    if (last >= (int64_t)MAX_FILL_ROWS) {
        note(t, "--fill-seconds ignored: the Managed Memory events span %lld slots", (long long)last + 1);
        return true;
    }
    t->bal_fill = true;
    t->nbal_rows = (size_t)last + 1;
    return true;
}

static bool balance_types(dfs_tasks *t)
{
    t->bal_col_start = calloc(t->nbal_cols + 1, sizeof *t->bal_col_start);
    t->bal_types = malloc((t->nbal_cols + 1) * sizeof *t->bal_types);
    t->bal_names = malloc((t->nbal_cols + 1) * sizeof *t->bal_names);
    if (!t->bal_col_start || !t->bal_types || !t->bal_names)
        return false;
    for (size_t i = 0; i < t->nbal; i++)
        t->bal_col_start[t->bal[i].col + 1]++;
    for (size_t c = 0; c < t->nbal_cols; c++)
        t->bal_col_start[c + 1] += t->bal_col_start[c];
    bool compat = t->opt.mode == DFS_TASKS_COMPAT;
    t->bal_names[0] = "Time Interval (seconds from begin)";
    t->bal_types[0] = compat || t->opt.bucket_s == 1 ? DFS_TK_INT : DFS_TK_FLOAT;
    for (size_t c = 0; c < t->nbal_cols; c++) {
        size_t a = t->bal_col_start[c], b = t->bal_col_start[c + 1], len;
        bool all_int = true;
        for (size_t i = a; i < b; i++)
            all_int = all_int && t->bal[i].tasks.is_int;
        /* pandas fills a missing second with NaN, which makes the column float */
        bool filled = compat && b - a < t->nbal_rows;
        t->bal_types[c + 1] = all_int && !filled ? DFS_TK_INT : DFS_TK_FLOAT;
        t->bal_names[c + 1] = dfs_tasks_str(t, t->bal_cols[c], &len);
    }
    return true;
}

static bool build_balance(dfs_tasks *t)
{
    const part *p = &t->total;
    size_t n = 0;
    t->bal = malloc((p->managed.n ? p->managed.n : 1) * sizeof *t->bal);
    uint32_t *label = malloc((p->managed.n ? p->managed.n : 1) * sizeof *label);
    uint32_t *host = malloc((p->managed.n ? p->managed.n : 1) * sizeof *host);
    bool ok = t->bal && label && host;
    for (size_t i = 0; ok && i < p->managed.n; i++) {
        const tk_managed *m = &p->managed.v[i];
        int64_t slot;
        if (!slot_of(t, m->ts, &slot)) {
            t->total.n.managed_bad++;
            continue;
        }
        t->bal[n] = (bal_entry){0, slot, m->ts, i, i, m->tasks};
        label[n] = m->worker;
        host[n++] = m->host;
    }
    bool by_time = t->opt.mode == DFS_TASKS_DEFAULT;
    ok = ok && balance_columns(t, t->bal, n, label) && shift_slots(t, t->bal, n, host);
    free(label), free(host);
    if (!ok)
        return false;
    sort_ctx(t->bal, n, sizeof *t->bal, cmp_bal, &by_time);
    t->nbal = keep_last(t->bal, n);
    if (!balance_rows(t) || !balance_types(t) || (!t->bal_fill && !balance_labels(t)))
        return false;
    if (n == 0 && (t->result.analyses & DFS_TASKS_BALANCE) && !t->result.legacy)
        note(t, "no Managed Memory events: task_balance has no rows (DASF fails here)");
    return true;
}

/* The value of column c (0-based worker column) at output row r; false when there is none. */
static bool balance_value(const dfs_tasks *t, size_t r, size_t c, pynum *out)
{
    int64_t slot = t->bal_fill ? (int64_t)r : t->bal_rows[r];
    size_t lo = t->bal_col_start[c], hi = t->bal_col_start[c + 1];
    while (lo < hi) { /* the first entry after slot */
        size_t mid = lo + (hi - lo) / 2;
        if (t->bal[mid].slot <= slot)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == t->bal_col_start[c])
        return false;
    const bal_entry *e = &t->bal[lo - 1];
    if (!t->bal_fill && e->slot != slot)
        return false;
    *out = e->tasks;
    return true;
}

/* ---- critical path ---------------------------------------------------------------------------- */

static double node_weight(const dfs_tasks_node *n)
{
    return n->has_attrs && isfinite(n->duration) && n->duration > 0 ? n->duration : 0;
}

/* Longest duration-weighted paths by Kahn's topological order: dist[v] is the longest path ending
 * with v, from[v] its predecessor on it (the first one reached on ties). Nodes on a cycle, or
 * behind one, never enter the order. */
typedef struct longest {
    uint32_t *order;   /* the nodes reached, in topological order */
    size_t reached;
    uint32_t *from;
    double *dist;
} longest;

static bool longest_paths(const dfs_tasks *t, longest *lp)
{
    size_t n = t->nnodes ? t->nnodes : 1, tail = 0;
    uint32_t *indeg = malloc(n * sizeof *indeg);
    double *into = calloc(n, sizeof *into);
    lp->order = malloc(n * sizeof *lp->order);
    lp->from = malloc(n * sizeof *lp->from);
    lp->dist = calloc(n, sizeof *lp->dist);
    bool ok = indeg && into && lp->order && lp->from && lp->dist;
    for (size_t v = 0; ok && v < t->nnodes; v++) {
        indeg[v] = t->pred_start[v + 1] - t->pred_start[v];
        lp->from[v] = UINT32_MAX;
        if (!indeg[v])
            lp->order[tail++] = (uint32_t)v;
    }
    for (size_t head = 0; ok && head < tail; head++) {
        uint32_t u = lp->order[head];
        lp->dist[u] = into[u] + node_weight(&t->nodes[u]);
        for (uint32_t k = t->succ_start[u]; k < t->succ_start[u + 1]; k++) {
            uint32_t v = t->succ[k];
            if (lp->from[v] == UINT32_MAX || lp->dist[u] > into[v])
                into[v] = lp->dist[u], lp->from[v] = u;
            if (--indeg[v] == 0)
                lp->order[tail++] = v;
        }
    }
    lp->reached = tail;
    free(indeg), free(into);
    return ok;
}

/* The path ending at the farthest node (the smallest index on ties), from its first task. */
static bool extract_path(dfs_tasks *t, const longest *lp)
{
    size_t best = SIZE_MAX;
    for (size_t k = 0; k < lp->reached; k++) {
        uint32_t v = lp->order[k];
        if (best == SIZE_MAX || lp->dist[v] > lp->dist[best] || (lp->dist[v] == lp->dist[best] && v < best))
            best = v;
    }
    for (uint32_t v = (uint32_t)best; best != SIZE_MAX && v != UINT32_MAX; v = lp->from[v])
        t->npath++;
    t->path = malloc((t->npath ? t->npath : 1) * sizeof *t->path);
    t->path_end = malloc((t->npath ? t->npath : 1) * sizeof *t->path_end);
    if (!t->path || !t->path_end)
        return false;
    size_t k = t->npath;
    for (uint32_t v = (uint32_t)best; best != SIZE_MAX && v != UINT32_MAX; v = lp->from[v]) {
        t->path[--k] = v;
        t->path_end[k] = lp->dist[v];
        t->nodes[v].on_path = true;
    }
    t->result.path_seconds = t->npath ? t->path_end[t->npath - 1] : 0;
    t->result.path_tasks = t->npath;
    return true;
}

static bool critical_path(dfs_tasks *t)
{
    longest lp = {0};
    bool ok = longest_paths(t, &lp) && extract_path(t, &lp);
    free(lp.order), free(lp.from), free(lp.dist);
    if (!ok)
        return false;
    t->result.cycle_nodes = t->nnodes - lp.reached;
    if (t->result.cycle_nodes)
        note(t, "%zu task(s) on or behind dependency cycles are left out of the critical path",
             t->result.cycle_nodes);
    return true;
}

/* ---- legacy traces: per-name durations -------------------------------------------------------- */

static int cmp_edge_ev(const void *a, const void *b)
{
    const tk_edge_ev *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return SEQ_CMP(x, y);
}

static bool same_thread_name(const tk_edge_ev *a, const tk_edge_ev *b)
{
    return a->pid == b->pid && a->tid == b->tid && a->name == b->name;
}

/* B/E per (process, thread, name), nested in file order; unmatched ones only count. */
static bool pair_edges(dfs_tasks *t)
{
    part *p = &t->total;
    sort_any(p->edges.v, p->edges.n, sizeof *p->edges.v, cmp_edge_ev);
    DFS_VEC(int64_t) open = {0};
    uint64_t unmatched = 0;
    for (size_t i = 0; i < p->edges.n; i++) {
        const tk_edge_ev *e = &p->edges.v[i];
        if (i && !same_thread_name(e, e - 1)) {
            unmatched += open.n;
            open.n = 0;
        }
        if (e->begin) {
            if (!dfs_vec_push(&open, e->ts)) {
                dfs_vec_free(&open);
                return false;
            }
        } else if (open.n) {
            add_other_named(p, e->name, 1, e->ts - open.v[--open.n]);
        } else {
            unmatched++;
        }
    }
    unmatched += open.n;
    dfs_vec_free(&open);
    if (unmatched)
        note(t, "%llu begin/end event(s) without a partner left out", (unsigned long long)unmatched);
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
    return cmp_label_text(&x->name, &y->name, (void *)t);
}

static bool build_names(dfs_tasks *t)
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
    sort_ctx(t->names.v, t->names.n, sizeof *t->names.v, cmp_name_row, t);
    return true;
}

/* ---- tables ----------------------------------------------------------------------------------- */

static const char *const fn_cols[] = {
    "Host", "GPU", "Function", "Duration (s)", "Percentage of total time (%)",
    "Mean GPU Utilization (%)", "Mean GPU Memory Used (GB)", "Mean Data Size (MB)",
    "Mean Throughput (MB/s)", "Num Tasks (chunks)", "Mean Task time (s)",
    /* default mode only */
    "Share of job time (%)", "Distinct Keys", "Function (repaired)"};
static const char *const task_cols[] = {
    "Host", "GPU", "Task Key", "Duration (s)", "Percentage of total time (%)", "Memory usage (Mb)",
    /* default mode only */
    "Share of job time (%)", "Executions", "Function"};
static const char *const path_cols[] = {"Task Key", "Function", "Host", "GPU", "Duration (s)",
                                        "Path time (s)"};
static const char *const name_cols[] = {"Name", "Count", "Total Duration (s)", "Mean Duration (s)",
                                        "Percentage of total time (%)"};

static const dfs_tk_type fn_types_compat[] = {DFS_TK_TEXT, DFS_TK_TEXT, DFS_TK_TEXT, DFS_TK_FLOAT,
                                        DFS_TK_FLOAT, DFS_TK_FLOAT, DFS_TK_FLOAT, DFS_TK_FLOAT,
                                        DFS_TK_FLOAT, DFS_TK_INT, DFS_TK_FLOAT, DFS_TK_FLOAT,
                                        DFS_TK_INT, DFS_TK_TEXT};

#define FN_COMPAT_COLS 11
#define TASK_COMPAT_COLS 6

static void cell_text(dfs_tk_cell *o, const char *s, size_t n)
{
    o->s = s;
    o->len = n;
}

static void cell_label(const dfs_tasks *t, uint32_t label, dfs_tk_cell *o)
{
    o->s = dfs_tasks_str(t, label, &o->len);
}

static void cell_host(const dfs_tasks *t, uint32_t label, dfs_tk_cell *o)
{
    cell_label(t, label, o);
    if (t->host_int)
        o->i = strtoll(o->s, NULL, 10);
}

/* DASF: thread_id.split("-")[-1]. */
static void cell_gpu(const dfs_tasks *t, uint32_t label, dfs_tk_cell *o)
{
    size_t n;
    const char *s = dfs_tasks_str(t, label, &n), *dash = memrchr(s, '-', n);
    if (dash)
        cell_text(o, dash + 1, n - (size_t)(dash + 1 - s));
    else
        cell_text(o, s, n);
}

static double percent(double share, double whole) { return whole == 0 ? 0 : share / whole * 100; }

static double job_total(const dfs_tasks *t)
{
    double sum = 0;
    for (size_t i = 0; i < t->workers.n; i++)
        sum += t->workers.v[i].fn_total;
    return sum;
}

/* Mean GPU columns: DASF's per-name lists (compatible) or the row's own samples (default). */
static void cell_gpu_mean(const dfs_tasks *t, const fn_row *r, bool util, dfs_tk_cell *o)
{
    pynum sum = util ? r->util_sum : r->mem_sum;
    uint64_t n = util ? r->util_n : r->mem_n;
    if (t->opt.mode == DFS_TASKS_COMPAT) {
        const gpu_stat *g = gpu_stat_of((dfs_tasks *)t, r->name, false);
        sum = g ? (util ? g->util_sum : g->mem_sum) : py_int(0);
        n = g ? (util ? g->util_n : g->mem_n) : 0;
    } else if (!t->result.gpu_available) {
        o->missing = true;
        return;
    }
    double mean = n ? py_double(sum) / (double)n : 0;
    o->f = util ? mean : mean / 1e9;
    o->i = 0; /* the integer 0 of an empty list, when the column stays integer */
}

static void fn_cell(const dfs_tk_table *tab, size_t row, size_t col, dfs_tk_cell *o)
{
    const dfs_tasks *t = tab->ctx;
    const fn_row *r = &t->fn.v[t->fn_order[row]];
    const tk_worker *w = &t->workers.v[r->worker];
    double count = (double)r->count;
    switch (col) {
    case 0: cell_host(t, w->host, o); break;
    case 1: cell_gpu(t, w->worker, o); break;
    case 2: cell_label(t, r->name, o); break;
    case 3: o->f = r->dur; break;
    case 4: o->f = percent(r->dur, w->fn_total); break;
    case 5: cell_gpu_mean(t, r, true, o); break;
    case 6: cell_gpu_mean(t, r, false, o); break;
    case 7: o->f = py_double(r->data_sum) / count / 1e6; break;
    case 8: o->f = py_double(r->thr_sum) / count / 1e6; break;
    case 9: o->i = (int64_t)r->count; break;
    case 10: o->f = r->dur / count; break;
    case 11: o->f = percent(r->dur, job_total(t)); break;
    case 12: o->i = (int64_t)r->distinct; break;
    default: {
        size_t n;
        const char *key = dfs_tasks_str(t, r->first_key, &n);
        o->len = dfs_tasks_repaired_name(key, n, o->buf, sizeof o->buf);
        o->s = o->buf;
        break;
    }
    }
}

static void task_cell(const dfs_tk_table *tab, size_t row, size_t col, dfs_tk_cell *o)
{
    const dfs_tasks *t = tab->ctx;
    const task_row *r = &t->tasks.v[row];
    const tk_worker *w = &t->workers.v[r->worker];
    switch (col) {
    case 0: cell_host(t, w->host, o); break;
    case 1: cell_gpu(t, w->worker, o); break;
    case 2: cell_label(t, r->key, o); break;
    case 3: o->f = r->dur; break;
    case 4: o->f = percent(r->dur, w->task_total); break;
    case 5: o->f = r->mem / 1e6; break;
    case 6: o->f = percent(r->dur, job_total(t)); break;
    case 7: o->i = (int64_t)r->count; break;
    default: cell_label(t, r->name, o); break;
    }
}

static void balance_cell(const dfs_tk_table *tab, size_t row, size_t col, dfs_tk_cell *o)
{
    const dfs_tasks *t = tab->ctx;
    if (col == 0) {
        int64_t slot = t->bal_fill ? (int64_t)row : t->bal_rows[row];
        o->i = slot;
        o->f = (double)slot * (t->opt.bucket_s > 0 ? t->opt.bucket_s : 1);
        return;
    }
    pynum v;
    if (!balance_value(t, row, col - 1, &v))
        v = py_int(0);
    o->i = v.is_int ? v.v.i : (int64_t)v.v.f;
    o->f = py_double(v);
}

static void path_cell(const dfs_tk_table *tab, size_t row, size_t col, dfs_tk_cell *o)
{
    const dfs_tasks *t = tab->ctx;
    const dfs_tasks_node *n = &t->nodes[t->path[row]];
    uint32_t last = t->node_last[t->path[row]];
    const tk_compute *c = last == UINT32_MAX ? NULL : &t->total.computes.v[last];
    switch (col) {
    case 0: cell_label(t, n->key, o); break;
    case 1: cell_label(t, n->name, o); break;
    case 2: c ? cell_label(t, c->host, o) : cell_text(o, "", 0); break;
    case 3: c ? cell_gpu(t, c->worker, o) : cell_text(o, "", 0); break;
    case 4: o->f = node_weight(n); break;
    default: o->f = t->path_end[row]; break;
    }
}

static void name_cell(const dfs_tk_table *tab, size_t row, size_t col, dfs_tk_cell *o)
{
    const dfs_tasks *t = tab->ctx;
    const name_row *r = &t->names.v[row];
    switch (col) {
    case 0: cell_label(t, r->name, o); break;
    case 1: o->i = (int64_t)r->count; break;
    case 2: o->f = (double)r->dur_ns / 1e9; break;
    case 3: o->f = (double)r->dur_ns / 1e9 / (double)r->count; break;
    default: o->f = percent((double)r->dur_ns, (double)t->names_total_ns); break;
    }
}

static int64_t fn_label(const dfs_tk_table *tab, size_t row)
{
    return ((const dfs_tasks *)tab->ctx)->fn_order[row];
}

static int64_t task_label(const dfs_tk_table *tab, size_t row)
{
    return ((const dfs_tasks *)tab->ctx)->tasks.v[row].label;
}

static int64_t balance_label(const dfs_tk_table *tab, size_t row)
{
    const dfs_tasks *t = tab->ctx;
    return t->bal_fill ? (int64_t)row : t->bal_labels[row];
}

static int64_t row_label(const dfs_tk_table *tab, size_t row)
{
    (void)tab;
    return (int64_t)row;
}

/* Duration descending, NaN last, ties in creation order (a stable sort, spec quirk 12). */
typedef struct by_duration {
    double dur;
    uint32_t idx;
} by_duration;

static int cmp_by_duration(const void *a, const void *b)
{
    const by_duration *x = a, *y = b;
    if (x->dur != y->dur) {
        if (isnan(x->dur) || isnan(y->dur))
            return isnan(x->dur) ? 1 : -1;
        return x->dur > y->dur ? -1 : 1;
    }
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The output order of rows whose durations are dur[k * stride] (bytes). */
static uint32_t *sorted_order(const void *rows, size_t n, size_t stride, size_t dur_offset)
{
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    by_duration *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!order || !keys) {
        free(order), free(keys);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(&keys[i].dur, (const char *)rows + i * stride + dur_offset, sizeof(double));
        keys[i].idx = (uint32_t)i;
    }
    sort_any(keys, n, sizeof *keys, cmp_by_duration);
    for (size_t i = 0; i < n; i++)
        order[i] = keys[i].idx;
    free(keys);
    return order;
}

/* Task tables run to a million rows: they are put in output order once, so that writing them
 * reads memory in sequence. */
static bool tasks_in_output_order(dfs_tasks *t)
{
    size_t n = t->tasks.n;
    uint32_t *order = sorted_order(t->tasks.v, n, sizeof *t->tasks.v, offsetof(task_row, dur));
    task_row *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!order || !sorted) {
        free(order), free(sorted);
        return false;
    }
    const part *p = &t->total;
    for (size_t i = 0; i < n; i++) {
        task_row *r = &t->tasks.v[i];
        r->label = (uint32_t)i;
        r->mem = py_double(p->computes.v[t->node_last[t->compute_node[r->first]]].size);
    }
    for (size_t i = 0; i < n; i++)
        sorted[i] = t->tasks.v[order[i]];
    free(t->tasks.v);
    t->tasks.v = sorted;
    t->tasks.cap = n;
    free(order);
    return true;
}

static void set_table(dfs_tk_table *tab, const char *title, const char *name, size_t ncols,
                      const char *const *cols, const dfs_tk_type *types, size_t nrows,
                      int64_t (*label)(const dfs_tk_table *, size_t),
                      void (*cell)(const dfs_tk_table *, size_t, size_t, dfs_tk_cell *),
                      const dfs_tasks *t)
{
    *tab = (dfs_tk_table){title, name, ncols, cols, types, nrows, label, cell, t};
}

static bool make_tables(dfs_tasks *t)
{
    static const dfs_tk_type task_types_text[] = {DFS_TK_TEXT, DFS_TK_TEXT, DFS_TK_TEXT,
                                                  DFS_TK_FLOAT, DFS_TK_FLOAT, DFS_TK_FLOAT,
                                                  DFS_TK_FLOAT, DFS_TK_INT, DFS_TK_TEXT};
    static const dfs_tk_type task_types_int[] = {DFS_TK_INT, DFS_TK_TEXT, DFS_TK_TEXT,
                                                 DFS_TK_FLOAT, DFS_TK_FLOAT, DFS_TK_FLOAT,
                                                 DFS_TK_FLOAT, DFS_TK_INT, DFS_TK_TEXT};
    static const dfs_tk_type path_types[] = {DFS_TK_TEXT, DFS_TK_TEXT, DFS_TK_TEXT, DFS_TK_TEXT,
                                             DFS_TK_FLOAT, DFS_TK_FLOAT};
    static const dfs_tk_type name_types[] = {DFS_TK_TEXT, DFS_TK_INT, DFS_TK_FLOAT, DFS_TK_FLOAT,
                                             DFS_TK_FLOAT};
    bool compat = t->opt.mode == DFS_TASKS_COMPAT;
    t->fn_order = sorted_order(t->fn.v, t->fn.n, sizeof *t->fn.v, offsetof(fn_row, dur));
    if (!t->fn_order || !tasks_in_output_order(t))
        return false;
    memcpy(t->fn_types, fn_types_compat, sizeof t->fn_types);
    t->fn_types[0] = t->host_int ? DFS_TK_INT : DFS_TK_TEXT;
    t->fn_types[5] = compat && t->gpu_int_column ? DFS_TK_INT : DFS_TK_FLOAT;
    dfs_tasks_result *r = &t->result;
    set_table(&r->function, "Function bottleneck", "function_bottleneck",
              compat ? FN_COMPAT_COLS : sizeof fn_cols / sizeof *fn_cols, fn_cols, t->fn_types,
              t->fn.n, fn_label, fn_cell, t);
    set_table(&r->task, "Task bottleneck", "task_bottleneck",
              compat ? TASK_COMPAT_COLS : sizeof task_cols / sizeof *task_cols, task_cols,
              t->host_int ? task_types_int : task_types_text, t->tasks.n, task_label, task_cell, t);
    set_table(&r->balance, "Task balance", "task_balance", t->nbal_cols + 1, t->bal_names,
              t->bal_types, t->nbal_rows, balance_label, balance_cell, t);
    set_table(&r->critical, "Critical path", "critical_path", sizeof path_cols / sizeof *path_cols,
              path_cols, path_types, t->npath, row_label, path_cell, t);
    set_table(&r->names, "Event durations", "event_durations", sizeof name_cols / sizeof *name_cols,
              name_cols, name_types, t->names.n, row_label, name_cell, t);
    return true;
}

/* ---- names ------------------------------------------------------------------------------------ */

static size_t copy_out(char *buf, size_t cap, const char *s, size_t n)
{
    if (cap == 0)
        return 0;
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return n;
}

size_t dfs_tasks_dasf_name(const char *key, size_t len, char *buf, size_t cap)
{
    const char *comma = memchr(key, ',', len);
    size_t head = comma ? (size_t)(comma - key) : len;
    if (head < 3) /* key[2:-1] is empty: one empty piece, dropped */
        return copy_out(buf, cap, "", 0);
    const char *s = key + 2, *dash = memrchr(s, '-', head - 3);
    return copy_out(buf, cap, s, dash ? (size_t)(dash - s) : 0);
}

static bool all_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F')))
            return false;
    return true;
}

/* "-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" at the end of s[0..n). */
static bool ends_with_uuid(const char *s, size_t n)
{
    static const size_t groups[] = {8, 4, 4, 4, 12};
    if (n < 37)
        return false;
    const char *p = s + n - 36;
    if (p[-1] != '-')
        return false;
    for (size_t g = 0; g < 5; g++) {
        if (!all_hex(p, groups[g]) || (g < 4 && p[groups[g]] != '-'))
            return false;
        p += groups[g] + 1;
    }
    return true;
}

size_t dfs_tasks_repaired_name(const char *key, size_t len, char *buf, size_t cap)
{
    const char *s = key;
    size_t n = len;
    if (n && s[0] == '(') { /* a tuple key: its first element, unquoted */
        s++, n--;
        char q = n && (s[0] == '\'' || s[0] == '"') ? s[0] : 0;
        s += q != 0, n -= q != 0;
        const char *end = q ? memchr(s, q, n) : NULL;
        for (size_t i = 0; !q && i < n && !end; i++)
            if (s[i] == ',' || s[i] == ')')
                end = s + i;
        n = end ? (size_t)(end - s) : n;
    }
    if (ends_with_uuid(s, n)) {
        n -= 37;
    } else {
        const char *dash = memrchr(s, '-', n);
        size_t tail = dash ? n - (size_t)(dash + 1 - s) : 0;
        if (dash && dash > s && tail >= 8 && all_hex(dash + 1, tail))
            n = (size_t)(dash - s);
    }
    return copy_out(buf, cap, s, n);
}

/* ---- the analysis object ---------------------------------------------------------------------- */

static const char *const analysis_names[] = {"function_bottleneck", "task_bottleneck",
                                             "task_balance", "critical_path"};

unsigned dfs_tasks_analysis_bit(const char *name)
{
    for (unsigned i = 0; i < 4; i++)
        if (strcmp(name, analysis_names[i]) == 0)
            return 1u << i;
    return 0;
}

void dfs_tasks_options_init(dfs_tasks_options *o)
{
    memset(o, 0, sizeof *o);
    o->bucket_s = 1;
}

static const char *const wanted_extra[] = {DFS_DASF_RAW_TIMESTAMP, DFS_DASF_RAW_DURATION, "tasks",
                                           "gpu_utilization", "gpu_memory_used", NULL};

dfs_tasks *dfs_tasks_new(const dfs_tasks_options *o)
{
    dfs_tasks *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->opt = *o;
    if (!(t->opt.bucket_s > 0) || t->opt.mode == DFS_TASKS_COMPAT)
        t->opt.bucket_s = 1;
    if (!t->opt.analyses)
        t->opt.analyses = t->opt.mode == DFS_TASKS_COMPAT ? DFS_TASKS_FUNCTION | DFS_TASKS_TASK | DFS_TASKS_BALANCE
                                                          : DFS_TASKS_ALL;
    t->own = dfs_strtab_new();
    if (!t->own) {
        free(t);
        return NULL;
    }
    part_init(&t->total);
    dfs_u64map_init(&t->gpu_index);
    t->consumer = (dfs_consumer){
        .user = t,
        .want = {.keys = DFS_KEYBIT(DFS_KEY_KEY) | DFS_KEYBIT(DFS_KEY_NAME) | DFS_KEYBIT(DFS_KEY_SIZE) |
                         DFS_KEYBIT(DFS_KEY_DEPENDENCIES) | DFS_KEYBIT(DFS_KEY_DEPENDENTS) |
                         (o->graph_attrs ? DFS_KEYBIT(DFS_KEY_TYPE) | DFS_KEYBIT(DFS_KEY_SHAPE) : 0),
                 .extra = wanted_extra},
        .worker_begin = worker_begin,
        .on_batch = on_batch,
        .worker_end = worker_end,
    };
    return t;
}

void dfs_tasks_free(dfs_tasks *t)
{
    if (!t)
        return;
    part_free(&t->total);
    free(t->nodes), free(t->node_last), free(t->compute_node), free(t->compute_fn);
    free(t->pred_start), free(t->pred), free(t->succ_start), free(t->succ);
    free(t->path), free(t->path_end);
    dfs_vec_free(&t->workers), dfs_vec_free(&t->fn), dfs_vec_free(&t->tasks);
    free(t->fn_order);
    dfs_u64map_free(&t->gpu_index);
    dfs_vec_free(&t->gpu_stats);
    free(t->bal_cols), free(t->bal), free(t->bal_col_start), free(t->bal_rows);
    free(t->bal_names), free(t->bal_types), free(t->bal_labels);
    dfs_vec_free(&t->names);
    for (size_t i = 0; i < t->nnotes; i++)
        free(t->notes[i]);
    dfs_strtab_free(t->own);
    free(t);
}

dfs_consumer *dfs_tasks_consumer(dfs_tasks *t) { return &t->consumer; }

static void input_notes(dfs_tasks *t)
{
    const tk_counts *n = &t->total.n;
    if (n->compute_not_complete)
        note(t, "%llu Compute event(s) that are not complete events (phase X) left out",
             (unsigned long long)n->compute_not_complete);
    if (n->compute_no_time)
        note(t, "%llu Compute event(s) without a usable timestamp or duration left out",
             (unsigned long long)n->compute_no_time);
    if (n->compute_no_key)
        note(t, "%llu Compute event(s) without a string args.key left out", (unsigned long long)n->compute_no_key);
    if (n->compute_no_name)
        note(t, "%llu Compute event(s) without args.name: named from the key as DASF's plugin does",
             (unsigned long long)n->compute_no_name);
    if (n->compute_no_size)
        note(t, "%llu Compute event(s) without a numeric args.size: size 0", (unsigned long long)n->compute_no_size);
    if (n->compute_bad_ref)
        note(t, "%llu dependency or dependent entries that are not strings ignored",
             (unsigned long long)n->compute_bad_ref);
    if (n->managed_bad)
        note(t, "%llu Managed Memory event(s) without a usable timestamp or numeric args.tasks left out",
             (unsigned long long)n->managed_bad);
    if (n->sample_bad_time)
        note(t, "%llu Resource Usage event(s) without a timestamp left out", (unsigned long long)n->sample_bad_time);
}

static void mode_notes(dfs_tasks *t)
{
    dfs_tasks_result *r = &t->result;
    if (r->legacy) {
        note(t, "no Compute, Managed Memory or Resource Usage events (legacy DASF text format, or not "
                "a DASF trace): per-name duration statistics instead of DASF's analyses");
        return;
    }
    if (r->computes == 0 && (r->analyses & (DFS_TASKS_FUNCTION | DFS_TASKS_TASK)))
        note(t, "no Compute events: the function and task tables are empty (DASF fails here)");
}

static bool host_labels_numeric(const dfs_tasks *t)
{
    for (size_t i = 0; i < t->workers.n; i++)
        if (!label_is_number(t, t->workers.v[i].host))
            return false;
    return t->workers.n > 0;
}

static bool analyse(dfs_tasks *t)
{
    pynum *input = NULL;
    bool ok = build_graph(t, &input) && build_rows(t, input);
    free(input);
    t->host_int = ok && host_labels_numeric(t);
    ok = ok && attribute_samples(t) && build_balance(t) && critical_path(t) && build_names(t) &&
         make_tables(t);
    return ok;
}

const dfs_tasks_result *dfs_tasks_finish(dfs_tasks *t, const dfs_run *run)
{
    part *p = &t->total;
    dfs_tasks_result *r = &t->result;
    t->run = run;
    if (p->failed)
        return NULL;
    sort_seq(p->computes.v, p->computes.n, sizeof *p->computes.v, cmp_compute);
    sort_seq(p->managed.v, p->managed.n, sizeof *p->managed.v, cmp_managed);
    sort_seq(p->samples.v, p->samples.n, sizeof *p->samples.v, cmp_sample);
    r->mode = t->opt.mode;
    r->analyses = t->opt.analyses;
    r->computes = p->computes.n;
    r->managed = p->managed.n;
    r->samples = p->samples.n;
    r->legacy = !r->computes && !r->managed && !r->samples && p->other.n + p->edges.n > 0;
    mode_notes(t);
    input_notes(t);
    if (!analyse(t))
        return NULL;
    r->notes = (const char *const *)t->notes;
    r->nnotes = t->nnotes;
    r->graph = (dfs_tasks_graph){t->nodes, t->nnodes, t->succ_start, t->succ, t->nedges};
    return r;
}
