/* dataloader.c - SageMaker Debugger's PT_dataloader_analysis (dataloader.h). */
#include "analyze/dataloader/dataloader.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "analyze/common/concepts.h"
#include "analyze/common/predicate.h"
#include "util/hash.h"
#include "util/keymap.h"
#include "util/u64map.h"
#include "util/vec.h"

#define NO_ARGS UINT32_MAX
#define NO_LABEL UINT32_MAX
#define ABSURD_NS (INT64_C(7) * 86400 * 1000000000) /* the reader's "absurd duration" bound */

static const char *const set_names[DFS_DL_NSETS] = {"getnext", "initialize", "worker"};
static const char *const set_patterns[DFS_DL_NSETS] = {".*DataLoaderIter::GetNext", "DataLoaderIterInitialize",
                                                       "DataLoaderWorker"};
static const char *const init_types[DFS_DL_NINIT_TYPES] = {"_MultiProcessingDataLoaderIter.__init__",
                                                           "_SingleProcessDataLoaderIter.__init__"};
static const char *const wanted_extra[] = {"layer_name", "worker_id", "num_workers", "pin_memory", "Value", NULL};
enum { X_LAYER, X_WORKER, X_NW, X_PIN, X_VALUE, X_COUNT };

const char *dfs_dl_set_name(dfs_dl_set s)
{
    return (unsigned)s < DFS_DL_NSETS ? set_names[s] : "";
}

const char *dfs_dl_default_pattern(dfs_dl_set s)
{
    return (unsigned)s < DFS_DL_NSETS ? set_patterns[s] : "";
}

const char *dfs_dl_pin_name(dfs_dl_pin p)
{
    return p == DFS_DL_PIN_TRUE ? "True" : p == DFS_DL_PIN_FALSE ? "False" : "NA";
}

void dfs_dl_options_init(dfs_dl_options *o)
{
    memset(o, 0, sizeof *o);
    o->max_windows = 10;
}

/* ---- what the workers keep -------------------------------------------------------------------- */

typedef struct raw_args {
    dfs_str layer_name, name;
    int64_t step, worker_id, num_workers, pid;
    uint8_t pin;
    bool has_pid;
} raw_args;

typedef struct raw_ev {
    int64_t ts, dur, pid, tid;
    uint64_t offset;
    uint32_t file, args;
    dfs_str name, cat;
    char ph; /* 'X', 'B' or 'E' */
    bool bad_time;
} raw_ev;

typedef struct raw_sample {
    int64_t ts;
    double value;
    int64_t pid, tid; /* NodeId and Name when numeric */
    dfs_str pid_str, tid_str, type, dim;
    uint64_t offset;
    uint32_t file;
} raw_sample;

typedef struct part {
    DFS_VEC(raw_ev) evs;
    DFS_VEC(raw_args) args;
    DFS_VEC(raw_sample) samples;
    uint64_t *last_record; /* per file: offset + 1 of its last record, 0 when none */
    size_t nfiles;
    uint64_t no_value, no_time;
    dfs_str extra_id[X_COUNT];
    bool ids_known, failed;
} part;

typedef struct label_tab {
    DFS_VEC(char *) v;
    dfs_u64map index; /* content hash (re-mixed on a collision) -> label */
} label_tab;

struct dfs_dataloader {
    dfs_dl_options opt;
    dfs_consumer consumer;
    dfs_pred_set *match;      /* bit s: the regex of set s on name or phase */
    dfs_concepts *concepts;   /* the data-wait mapping and event classes */
    char *pattern[DFS_DL_NSETS];
    part total;
    const dfs_run *run;
    label_tab labels;
    uint32_t *file_node;      /* per file: node label */
    uint8_t *file_kind;       /* per file: mapping kind of its GetNext set */
    uint32_t *file_sys;       /* per file: index in sysfiles, NO_LABEL when not a system file */
    DFS_VEC(dfs_dl_event) events;
    DFS_VEC(size_t) event_args; /* per event: index in total.args or NO_ARGS */
    DFS_VEC(dfs_dl_sample) samples;
    DFS_VEC(dfs_dl_sysfile) sysfiles;
    DFS_VEC(dfs_dl_mapping) mappings;
    DFS_VEC(dfs_dl_row) rows[DFS_DL_NSETS];
    DFS_VEC(dfs_dl_gap) gaps;
    DFS_VEC(dfs_dl_window) windows;
    uint64_t bad_times;       /* events dropped while pairing for a time out of range */
    size_t *owned[8];         /* outlier index arrays */
    size_t nowned;
    dfs_dl_result result;
    bool finished, failed;
};

/* Mapping kinds of the GetNext set (init and worker are always REGEX or USER). */
enum { KIND_REGEX, KIND_KINETO, KIND_COMPOSER, KIND_DFTRACER, KIND_USER, KIND_COUNT };
static const char *const kind_names[KIND_COUNT] = {"smdebug", "kineto", "composer", "dftracer", "user"};

static void part_init(part *p)
{
    memset(p, 0, sizeof *p);
}

static void part_free(part *p)
{
    dfs_vec_free(&p->evs);
    dfs_vec_free(&p->args);
    dfs_vec_free(&p->samples);
    free(p->last_record);
    p->last_record = NULL;
}

static void *worker_begin(void *user)
{
    (void)user;
    part *p = malloc(sizeof *p);
    if (p)
        part_init(p);
    return p;
}

static void resolve_extra_ids(part *p, const dfs_run *run)
{
    for (int i = 0; i < X_COUNT; i++)
        p->extra_id[i] = dfs_str_find(run, wanted_extra[i], strlen(wanted_extra[i]));
    p->ids_known = true;
}

static int64_t int_or(const dfs_value *v, int64_t dflt)
{
    int64_t x;
    return dfs_value_int(v, &x) ? x : dflt;
}

/* smdebug's pin_memory: "True" only for a boolean true (a string "True" is "False"). */
static uint8_t pin_of(const dfs_value *v)
{
    return v->type == DFS_V_BOOL && v->as.i ? DFS_DL_PIN_TRUE : DFS_DL_PIN_FALSE;
}

/* The row arguments of an event; false when it has none. */
static bool take_args(const part *p, const dfs_event *ev, raw_args *a)
{
    *a = (raw_args){.step = -1, .worker_id = -1, .num_workers = -1, .pin = DFS_DL_PIN_NA};
    bool any = false;
    for (uint32_t i = 0; i < ev->nargs; i++) {
        const dfs_arg *g = &ev->args[i];
        const dfs_value *v = &g->val;
        bool str = v->type == DFS_V_STR, hit = true;
        if (g->key == DFS_KEY_STR(DFS_KEY_STEP_NUM))
            a->step = int_or(v, -1);
        else if (g->key == DFS_KEY_STR(DFS_KEY_PID))
            a->has_pid = dfs_value_int(v, &a->pid);
        else if (g->key == DFS_KEY_STR(DFS_KEY_NAME) && str)
            a->name = v->as.s;
        else if (g->key == p->extra_id[X_LAYER] && str)
            a->layer_name = v->as.s;
        else if (g->key == p->extra_id[X_WORKER])
            a->worker_id = int_or(v, -1);
        else if (g->key == p->extra_id[X_NW])
            a->num_workers = int_or(v, -1);
        else if (g->key == p->extra_id[X_PIN])
            a->pin = pin_of(v);
        else
            hit = false;
        any |= hit;
    }
    return any;
}

static bool keep_event(part *p, const dfs_event *ev)
{
    if (!(ev->flags & DFS_EF_HAS_TS)) {
        p->no_time++;
        return true;
    }
    raw_ev r = {.ts = ev->ts, .dur = ev->dur, .pid = ev->pid, .tid = ev->tid, .offset = ev->offset,
                .file = ev->file, .args = NO_ARGS, .name = ev->name, .cat = ev->cat,
                .ph = ev->phase == DFS_PHASE_COMPLETE ? 'X' : ev->phase == DFS_PHASE_BEGIN ? 'B' : 'E'};
    /* An absurd but positive duration (Horovod's rotated files) is kept, as smdebug keeps it. */
    r.bad_time = (ev->flags & DFS_EF_BAD_TIME) && !(ev->dur > ABSURD_NS) && ev->dur >= 0;
    raw_args a;
    if (r.ph != 'E' && take_args(p, ev, &a)) {
        if (p->args.n >= NO_ARGS || !dfs_vec_push(&p->args, a))
            return false;
        r.args = (uint32_t)(p->args.n - 1);
    }
    return dfs_vec_push(&p->evs, r);
}

static bool keep_sample(part *p, const dfs_event *ev)
{
    const dfs_value *v = p->extra_id[X_VALUE] ? dfs_event_arg(ev, p->extra_id[X_VALUE]) : NULL;
    double value;
    if (v && v->type == DFS_V_FLOAT)
        value = v->as.f;
    else if (v && (v->type == DFS_V_INT || v->type == DFS_V_UINT))
        value = v->type == DFS_V_INT ? (double)v->as.i : (double)v->as.u;
    else
        value = NAN;
    if (!(ev->flags & DFS_EF_HAS_TS) || isnan(value)) {
        p->no_value++;
        return true;
    }
    raw_sample s = {.ts = ev->ts, .value = value, .pid = ev->pid, .tid = ev->tid, .pid_str = ev->pid_str,
                    .tid_str = ev->tid_str, .type = ev->cat, .dim = ev->name, .offset = ev->offset,
                    .file = ev->file};
    return dfs_vec_push(&p->samples, s);
}

/* Where each file's last record is: a system file's bad line after it is its last line. */
static bool note_last_record(part *p, const dfs_run *run, const dfs_batch *b)
{
    size_t n = dfs_run_file_count(run);
    if (b->file >= n)
        return true;
    if (!p->last_record) {
        p->last_record = calloc(n, sizeof *p->last_record);
        if (!p->last_record)
            return false;
        p->nfiles = n;
    }
    uint64_t end = b->events[b->count - 1].offset + 1;
    if (end > p->last_record[b->file])
        p->last_record[b->file] = end;
    return true;
}

static void on_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    part *p = state;
    if (!p || p->failed || b->count == 0)
        return;
    if (!p->ids_known)
        resolve_extra_ids(p, run);
    if (!note_last_record(p, run, b)) {
        p->failed = true;
        return;
    }
    for (size_t i = 0; i < b->count && !p->failed; i++) {
        const dfs_event *ev = &b->events[i];
        if (ev->phase == DFS_PHASE_COUNTER && ev->ph == '?') /* an smdebug system-metric line */
            p->failed = !keep_sample(p, ev);
        else if (ev->phase == DFS_PHASE_COMPLETE || ev->phase == DFS_PHASE_BEGIN || ev->phase == DFS_PHASE_END)
            p->failed = !keep_event(p, ev);
    }
}

static bool merge_last_records(part *into, const part *from)
{
    if (!from->last_record)
        return true;
    if (!into->last_record) {
        into->last_record = calloc(from->nfiles, sizeof *into->last_record);
        if (!into->last_record)
            return false;
        into->nfiles = from->nfiles;
    }
    for (size_t f = 0; f < from->nfiles && f < into->nfiles; f++)
        if (from->last_record[f] > into->last_record[f])
            into->last_record[f] = from->last_record[f];
    return true;
}

static bool merge_part(part *into, const part *from)
{
    size_t base = into->args.n;
    if (base + from->args.n >= NO_ARGS || !dfs_vec_reserve(&into->args, from->args.n) ||
        !dfs_vec_reserve(&into->evs, from->evs.n) || !dfs_vec_reserve(&into->samples, from->samples.n))
        return false;
    if (from->args.n)
        memcpy(into->args.v + into->args.n, from->args.v, from->args.n * sizeof *from->args.v);
    into->args.n += from->args.n;
    for (size_t i = 0; i < from->evs.n; i++) {
        raw_ev e = from->evs.v[i];
        if (e.args != NO_ARGS)
            e.args += (uint32_t)base;
        into->evs.v[into->evs.n++] = e;
    }
    if (from->samples.n)
        memcpy(into->samples.v + into->samples.n, from->samples.v, from->samples.n * sizeof *from->samples.v);
    into->samples.n += from->samples.n;
    into->no_value += from->no_value;
    into->no_time += from->no_time;
    return merge_last_records(into, from);
}

static void worker_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    dfs_dataloader *d = user;
    part *p = state;
    if (!p || p->failed || !merge_part(&d->total, p))
        d->total.failed = true;
    if (p) {
        part_free(p);
        free(p);
    }
}

/* ---- construction ----------------------------------------------------------------------------- */

/* `func_name.str.contains("R") | proc_name.str.contains("R")`: a search on the name or the phase. */
static char *regex_predicate(const char *re)
{
    size_t n = strlen(re);
    char *esc = malloc(2 * n + 1);
    if (!esc)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (re[i] == '\\' || re[i] == '"')
            esc[k++] = '\\';
        esc[k++] = re[i];
    }
    esc[k] = '\0';
    size_t len = 2 * k + 80;
    char *text = malloc(len);
    if (text)
        snprintf(text, len, "func_name.str.contains(\"%s\") | proc_name.str.contains(\"%s\")", esc, esc);
    free(esc);
    return text;
}

static bool build_matchers(dfs_dataloader *d, char *err, size_t errlen)
{
    const char *texts[DFS_DL_NSETS];
    for (int s = 0; s < DFS_DL_NSETS; s++) {
        const char *re = d->opt.pattern[s] ? d->opt.pattern[s] : set_patterns[s];
        d->pattern[s] = regex_predicate(re);
        if (!d->pattern[s]) {
            snprintf(err, errlen, "out of memory");
            return false;
        }
        texts[s] = d->pattern[s];
    }
    dfs_pred_error pe;
    d->match = dfs_pred_set_new(texts, DFS_DL_NSETS, &pe);
    if (!d->match) {
        int s = pe.index < DFS_DL_NSETS ? (int)pe.index : 0;
        snprintf(err, errlen, "the %s pattern '%s' is not a valid regular expression: %s", set_names[s],
                 d->opt.pattern[s] ? d->opt.pattern[s] : set_patterns[s], pe.message);
        return false;
    }
    d->concepts = dfs_concepts_new(NULL, &pe, NULL);
    if (!d->concepts) {
        snprintf(err, errlen, "%s", pe.message);
        return false;
    }
    return true;
}

dfs_dataloader *dfs_dl_new(const dfs_dl_options *o, char *err, size_t errlen)
{
    dfs_dataloader *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (o)
        d->opt = *o;
    else
        dfs_dl_options_init(&d->opt);
    part_init(&d->total);
    dfs_u64map_init(&d->labels.index);
    if (!build_matchers(d, err, errlen)) {
        dfs_dl_free(d);
        return NULL;
    }
    d->consumer = (dfs_consumer){
        .user = d,
        .want = {.keys = DFS_KEYBIT(DFS_KEY_STEP_NUM) | DFS_KEYBIT(DFS_KEY_PID) | DFS_KEYBIT(DFS_KEY_NAME),
                 .extra = wanted_extra},
        .worker_begin = worker_begin,
        .on_batch = on_batch,
        .worker_end = worker_end,
    };
    return d;
}

static void free_windows(dfs_dataloader *d)
{
    for (size_t i = 0; i < d->windows.n; i++) {
        free((void *)d->windows.v[i].metrics);
        free((void *)d->windows.v[i].events);
    }
    dfs_vec_free(&d->windows);
}

void dfs_dl_free(dfs_dataloader *d)
{
    if (!d)
        return;
    part_free(&d->total);
    dfs_pred_set_free(d->match);
    dfs_concepts_free(d->concepts);
    for (int s = 0; s < DFS_DL_NSETS; s++) {
        free(d->pattern[s]);
        dfs_vec_free(&d->rows[s]);
    }
    for (size_t i = 0; i < d->labels.v.n; i++)
        free(d->labels.v.v[i]);
    dfs_vec_free(&d->labels.v);
    dfs_u64map_free(&d->labels.index);
    free(d->file_node);
    free(d->file_kind);
    free(d->file_sys);
    dfs_vec_free(&d->events);
    dfs_vec_free(&d->event_args);
    dfs_vec_free(&d->samples);
    dfs_vec_free(&d->sysfiles);
    dfs_vec_free(&d->mappings);
    dfs_vec_free(&d->gaps);
    free_windows(d);
    for (size_t i = 0; i < d->nowned; i++)
        free(d->owned[i]);
    free(d);
}

dfs_consumer *dfs_dl_consumer(dfs_dataloader *d)
{
    return &d->consumer;
}

/* ---- labels ----------------------------------------------------------------------------------- */

static uint32_t label_intern(label_tab *t, const char *s, size_t n)
{
    uint64_t h = dfs_hash64(s, n);
    for (;;) {
        uint32_t at;
        if (!dfs_u64map_get(&t->index, h, &at))
            break;
        if (strlen(t->v.v[at]) == n && memcmp(t->v.v[at], s, n) == 0)
            return at;
        h = dfs_mix64(h + 1); /* a different text with the same hash: probe on */
    }
    char *copy = malloc(n + 1);
    if (!copy)
        return NO_LABEL;
    memcpy(copy, s, n);
    copy[n] = '\0';
    if (!dfs_vec_push(&t->v, copy) || !dfs_u64map_put(&t->index, h, (uint32_t)(t->v.n - 1))) {
        if (t->v.n && t->v.v[t->v.n - 1] == copy)
            t->v.n--;
        free(copy);
        return NO_LABEL;
    }
    return (uint32_t)(t->v.n - 1);
}

/* A pid or tid as the trace wrote it: its string, else its number. */
static uint32_t id_label(dfs_dataloader *d, dfs_str s, int64_t num)
{
    if (s) {
        size_t n;
        const char *t = dfs_str_get(d->run, s, &n);
        return label_intern(&d->labels, t, n);
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%" PRId64, num);
    return label_intern(&d->labels, buf, (size_t)n);
}

static bool str_equals(const dfs_run *run, dfs_str s, const char *text)
{
    size_t n;
    const char *t = dfs_str_get(run, s, &n);
    return n == strlen(text) && memcmp(t, text, n) == 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* smdebug: the second '_'-separated field of the file name ("<end_us>_<node>_<suffix>.json");
 * other files (and smdebug files not named that way): the file name. */
static uint32_t node_of_file(dfs_dataloader *d, const dfs_file_info *fi)
{
    const char *b = base_name(fi->path);
    const char *u1 = strchr(b, '_');
    const char *u2 = u1 ? strchr(u1 + 1, '_') : NULL;
    if (fi->dialect == DFS_DIALECT_SMDEBUG_FRAMEWORK && u1 && u2 && u2 > u1 + 1)
        return label_intern(&d->labels, u1 + 1, (size_t)(u2 - u1 - 1));
    return label_intern(&d->labels, b, strlen(b));
}

const char *dfs_dl_label(const dfs_dl_result *r, uint32_t label)
{
    return label < r->nlabels ? r->labels[label] : "";
}

/* ---- framework events: X records and B/E pairs ---------------------------------------------- */

static int cmp_file_offset(const void *a, const void *b)
{
    const raw_ev *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return (x->ph > y->ph) - (x->ph < y->ph);
}

/* The stack a B or E record belongs to: smdebug pairs per pid, Composer per (pid, tid, name),
 * everything else per (pid, tid). Sorted by stack, then file order. */
typedef struct mark {
    int64_t pid, tid;
    dfs_str name;
    size_t ev; /* index in total.evs */
} mark;

static int cmp_mark(const void *a, const void *b)
{
    const mark *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return (x->ev > y->ev) - (x->ev < y->ev);
}

static bool same_stack(const mark *a, const mark *b)
{
    return a->pid == b->pid && a->tid == b->tid && a->name == b->name;
}

/* Whether dfs_file_abs_ns(fi, ts) stays in the int64 range: it does not check, and a huge
 * start time in a file's metadata would make it overflow. */
static bool abs_in_range(const dfs_file_info *fi, int64_t ts)
{
    bool scaled = fi->clock_scale_den > 0 && (fi->clock_scale_num != 1 || fi->clock_scale_den != 1);
    __int128 t = scaled ? (__int128)ts * fi->clock_scale_num / fi->clock_scale_den : ts;
    int64_t sum;
    return t >= INT64_MIN && t <= INT64_MAX && !__builtin_add_overflow((int64_t)t, fi->clock_offset_ns, &sum);
}

static bool add_event(dfs_dataloader *d, const dfs_file_info *fi, const raw_ev *first, int64_t raw_end,
                      bool bad_time)
{
    if (bad_time || !abs_in_range(fi, first->ts) || !abs_in_range(fi, raw_end)) {
        d->bad_times++;
        return true;
    }
    if (raw_end < first->ts) {
        d->result.negative_durations++;
        return true;
    }
    dfs_dl_event e = {.start = dfs_file_abs_ns(fi, first->ts), .end = dfs_file_abs_ns(fi, raw_end),
                      .pid = first->pid, .tid = first->tid, .offset = first->offset, .file = first->file,
                      .name = first->name, .cat = first->cat};
    int64_t dur;
    if (__builtin_sub_overflow(e.end, e.start, &dur)) { /* durations must fit: they are subtracted */
        d->bad_times++;
        return true;
    }
    if (dur > d->result.max_duration)
        d->result.max_duration = dur;
    return dfs_vec_push(&d->events, e) && dfs_vec_push(&d->event_args, first->args);
}

static bool pair_marks(dfs_dataloader *d, const dfs_file_info *fi, mark *m, size_t n)
{
    qsort(m, n, sizeof *m, cmp_mark);
    DFS_VEC(size_t) stack = {0};
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        if (i > 0 && !same_stack(&m[i], &m[i - 1])) {
            d->result.unclosed_begins += stack.n;
            stack.n = 0;
        }
        const raw_ev *r = &d->total.evs.v[m[i].ev];
        if (r->ph == 'B') {
            ok = dfs_vec_push(&stack, m[i].ev);
        } else if (stack.n == 0) {
            d->result.orphan_ends++;
        } else {
            const raw_ev *b = &d->total.evs.v[stack.v[--stack.n]];
            ok = add_event(d, fi, b, r->ts, b->bad_time || r->bad_time);
        }
    }
    d->result.unclosed_begins += stack.n;
    dfs_vec_free(&stack);
    return ok;
}

static mark mark_of(const raw_ev *r, size_t index, dfs_dialect dialect)
{
    mark m = {.pid = r->pid, .ev = index};
    if (dialect != DFS_DIALECT_SMDEBUG_FRAMEWORK)
        m.tid = r->tid;
    if (dialect == DFS_DIALECT_COMPOSER)
        m.name = r->name;
    return m;
}

/* One file's records (evs[from, to), in file order) into events. */
static bool file_events(dfs_dataloader *d, size_t from, size_t to)
{
    const raw_ev *evs = d->total.evs.v;
    const dfs_file_info *fi = dfs_run_file(d->run, evs[from].file);
    mark *marks = malloc((to - from) * sizeof *marks);
    if (!marks)
        return false;
    size_t nm = 0;
    bool ok = true;
    for (size_t i = from; i < to && ok; i++) {
        if (evs[i].ph != 'X')
            marks[nm++] = mark_of(&evs[i], i, fi->dialect);
        else if (__builtin_add_overflow(evs[i].ts, evs[i].dur, &(int64_t){0}))
            d->bad_times++;
        else
            ok = add_event(d, fi, &evs[i], evs[i].ts + evs[i].dur, evs[i].bad_time);
    }
    ok = ok && pair_marks(d, fi, marks, nm);
    free(marks);
    return ok;
}

typedef struct event_slot {
    dfs_dl_event e;
    size_t args;
} event_slot;

static int cmp_event_start(const void *a, const void *b)
{
    const dfs_dl_event *x = &((const event_slot *)a)->e, *y = &((const event_slot *)b)->e;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Sorts the events (with their args indices) by start, file and offset: a total order. */
static bool sort_events(dfs_dataloader *d)
{
    size_t n = d->events.n;
    if (n == 0)
        return true;
    event_slot *slots = malloc(n * sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < n; i++)
        slots[i] = (event_slot){d->events.v[i], d->event_args.v[i]};
    qsort(slots, n, sizeof *slots, cmp_event_start);
    for (size_t i = 0; i < n; i++) {
        d->events.v[i] = slots[i].e;
        d->event_args.v[i] = slots[i].args;
    }
    free(slots);
    return true;
}

static bool build_events(dfs_dataloader *d)
{
    raw_ev *evs = d->total.evs.v;
    size_t n = d->total.evs.n;
    if (n > 1)
        qsort(evs, n, sizeof *evs, cmp_file_offset);
    for (size_t from = 0; from < n;) {
        size_t to = from;
        while (to < n && evs[to].file == evs[from].file)
            to++;
        if (!file_events(d, from, to))
            return false;
        from = to;
    }
    return sort_events(d);
}

/* ---- the three row sets ----------------------------------------------------------------------- */

typedef struct phase_key {
    uint32_t file, pad;
    int64_t pid;
} phase_key;

/* The phase of a pid in a file: its process name (0 = "Unknown"), memoised. */
static bool phase_of(dfs_dataloader *d, dfs_keymap *memo, uint32_t file, int64_t pid, dfs_str *out)
{
    phase_key k = {.file = file, .pid = pid};
    uint32_t v;
    if (dfs_keymap_get(memo, &k, &v)) {
        *out = v;
        return true;
    }
    bool inserted;
    return dfs_keymap_get_or_put(memo, &k, dfs_run_process_name(d->run, file, pid), out, &inserted);
}

static int getnext_kind(const dfs_dataloader *d, dfs_dialect dialect)
{
    if (d->opt.pattern[DFS_DL_GETNEXT])
        return KIND_USER;
    dfs_concept_source src = dfs_concept_source_of(dialect);
    if (!dfs_concepts_available(d->concepts, src, DFS_CONCEPT_DATA_WAIT))
        return KIND_REGEX;
    switch (src) {
    case DFS_CSRC_KINETO: return KIND_KINETO;
    case DFS_CSRC_COMPOSER: return KIND_COMPOSER;
    case DFS_CSRC_DFTRACER: return KIND_DFTRACER;
    default: return KIND_REGEX;
    }
}

/* Per file: its node label and GetNext mapping, on first sight. */
static bool file_facts(dfs_dataloader *d, uint32_t file)
{
    if (d->file_node[file] != NO_LABEL)
        return true;
    const dfs_file_info *fi = dfs_run_file(d->run, file);
    d->file_node[file] = node_of_file(d, fi);
    d->file_kind[file] = (uint8_t)getnext_kind(d, fi->dialect);
    d->result.framework_files++;
    return d->file_node[file] != NO_LABEL;
}

static void set_text(const dfs_run *run, dfs_pred_row *row, uint32_t *ids, dfs_pred_col c, dfs_str s,
                     const char *fallback)
{
    size_t n = 0;
    const char *t = s ? dfs_str_get(run, s, &n) : fallback;
    if (!s)
        n = strlen(fallback);
    dfs_pred_row_set_text(row, c, t, n);
    ids[c] = s ? s : UINT32_MAX;
}

/* Bit s set: the event belongs to set s. Also sets its class for pictures. */
static unsigned match_event(dfs_dataloader *d, dfs_dl_event *e)
{
    const dfs_file_info *fi = dfs_run_file(d->run, e->file);
    dfs_pred_row row;
    uint32_t ids[DFS_PRED_NTEXT] = {0};
    dfs_pred_row_init(&row);
    set_text(d->run, &row, ids, DFS_PRED_FUNC_NAME, e->name, "");
    set_text(d->run, &row, ids, DFS_PRED_PROC_NAME, e->phase, "Unknown");
    unsigned bits = (unsigned)dfs_pred_set_eval(d->match, &row, ids);
    dfs_event fake = {.ts = e->start, .dur = e->end - e->start, .pid = e->pid, .tid = e->tid,
                      .name = e->name, .cat = e->cat, .file = e->file,
                      .flags = DFS_EF_HAS_TS | DFS_EF_HAS_DUR, .phase = DFS_PHASE_COMPLETE, .ph = 'X'};
    dfs_concept_source src = dfs_concept_source_of(fi->dialect);
    uint32_t concepts = dfs_concepts_match(d->concepts, d->run, src, &fake);
    int kind = d->file_kind[e->file];
    if (kind != KIND_REGEX && kind != KIND_USER) {
        bits &= ~1u;
        if (concepts & DFS_CONCEPT_BIT(DFS_CONCEPT_DATA_WAIT))
            bits |= 1u;
    }
    e->cls = (uint8_t)((bits & 1u) ? DFS_EVCLASS_DATA_WAIT : dfs_event_class_of(concepts));
    return bits;
}

static dfs_dl_row make_row(const dfs_dataloader *d, size_t i)
{
    const dfs_dl_event *e = &d->events.v[i];
    size_t ai = d->event_args.v[i];
    const raw_args *a = ai != NO_ARGS ? &d->total.args.v[ai] : NULL;
    dfs_dl_row r = {.start = e->start, .end = e->end, .pid = e->pid, .metric = e->name, .step = -1,
                    .worker_id = -1, .num_workers = -1, .pin_memory = DFS_DL_PIN_NA, .node = e->node,
                    .event = i};
    if (!a)
        return r;
    if (a->has_pid)
        r.pid = a->pid;
    r.metric = a->layer_name ? a->layer_name : a->name ? a->name : e->name;
    r.step = a->step;
    r.worker_id = a->worker_id;
    r.num_workers = a->num_workers;
    r.pin_memory = a->pin;
    return r;
}

/* Mapping counters: [set][kind] files and rows. */
typedef struct map_count {
    size_t files[DFS_DL_NSETS][KIND_COUNT];
    size_t rows[DFS_DL_NSETS][KIND_COUNT];
} map_count;

static int set_kind(const dfs_dataloader *d, int set, int file_kind)
{
    if (d->opt.pattern[set])
        return KIND_USER;
    return set == DFS_DL_GETNEXT ? file_kind : KIND_REGEX;
}

static bool classify_events(dfs_dataloader *d, map_count *mc)
{
    dfs_keymap memo;
    dfs_keymap_init(&memo, sizeof(phase_key));
    bool ok = true;
    for (size_t i = 0; i < d->events.n && ok; i++) {
        dfs_dl_event *e = &d->events.v[i];
        bool first = d->file_node[e->file] == NO_LABEL;
        ok = file_facts(d, e->file) && phase_of(d, &memo, e->file, e->pid, &e->phase);
        if (!ok)
            break;
        e->node = d->file_node[e->file];
        int fk = d->file_kind[e->file];
        for (int s = 0; first && s < DFS_DL_NSETS; s++)
            mc->files[s][set_kind(d, s, fk)]++;
        unsigned bits = match_event(d, e);
        for (int s = 0; s < DFS_DL_NSETS && ok; s++) {
            if (!(bits >> s & 1u))
                continue;
            mc->rows[s][set_kind(d, s, fk)]++;
            ok = dfs_vec_push(&d->rows[s], make_row(d, i));
        }
    }
    dfs_keymap_free(&memo);
    return ok;
}

static const char *mapping_pattern(dfs_dataloader *d, int set, int kind)
{
    switch (kind) {
    case KIND_USER: return d->opt.pattern[set];
    case KIND_KINETO: return dfs_concepts_text(d->concepts, DFS_CSRC_KINETO, DFS_CONCEPT_DATA_WAIT);
    case KIND_COMPOSER: return dfs_concepts_text(d->concepts, DFS_CSRC_COMPOSER, DFS_CONCEPT_DATA_WAIT);
    case KIND_DFTRACER: return dfs_concepts_text(d->concepts, DFS_CSRC_DFTRACER, DFS_CONCEPT_DATA_WAIT);
    default: return set_patterns[set];
    }
}

/* The mappings that applied to some file; with no framework file, the ones that would have. */
static bool list_mappings(dfs_dataloader *d, const map_count *mc)
{
    for (int s = 0; s < DFS_DL_NSETS; s++) {
        for (int k = 0; k < KIND_COUNT; k++) {
            bool fallback = d->result.framework_files == 0 && k == set_kind(d, s, KIND_REGEX);
            if (!mc->files[s][k] && !fallback)
                continue;
            bool concept = k != KIND_USER && k != KIND_REGEX;
            dfs_dl_mapping m = {.set = (dfs_dl_set)s, .source = kind_names[k],
                                .how = concept ? "concept" : "regex", .pattern = mapping_pattern(d, s, k),
                                .files = mc->files[s][k], .rows = mc->rows[s][k]};
            if (!dfs_vec_push(&d->mappings, m))
                return false;
        }
    }
    return true;
}

/* ---- de-duplication: rows identical in every field ------------------------------------------ */

static int cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

/* Equal fields give 0 before the last key (the event index, i.e. start order). */
static int cmp_row_fields(const dfs_dataloader *d, const dfs_dl_row *x, const dfs_dl_row *y)
{
    int c;
    if ((c = cmp_i64(x->start, y->start)) || (c = cmp_i64(x->end, y->end)) || (c = cmp_i64(x->pid, y->pid)) ||
        (c = cmp_i64(x->metric, y->metric)) || (c = cmp_i64(x->step, y->step)) ||
        (c = cmp_i64(x->worker_id, y->worker_id)) || (c = cmp_i64(x->num_workers, y->num_workers)) ||
        (c = cmp_i64(x->pin_memory, y->pin_memory)) || (c = cmp_i64(x->node, y->node)))
        return c;
    return cmp_i64(d->events.v[x->event].phase, d->events.v[y->event].phase);
}

static int cmp_row_dedup(const void *a, const void *b, void *ctx)
{
    const dfs_dl_row *x = a, *y = b;
    int c = cmp_row_fields(ctx, x, y);
    return c ? c : cmp_i64((int64_t)x->event, (int64_t)y->event);
}

static int cmp_row_event(const void *a, const void *b)
{
    const dfs_dl_row *x = a, *y = b;
    return (x->event > y->event) - (x->event < y->event);
}

/* Drops rows identical in every field, keeping the earliest in start order; the rows stay in
 * start order (interned ids only group equal texts here; they never decide the output order). */
static void dedup_rows(dfs_dataloader *d, int s)
{
    dfs_dl_row *v = d->rows[s].v;
    size_t n = d->rows[s].n, kept = 0;
    if (n < 2)
        return;
    qsort_r(v, n, sizeof *v, cmp_row_dedup, d);
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || cmp_row_fields(d, &v[i], &v[kept - 1]) != 0)
            v[kept++] = v[i];
    d->result.duplicates[s] = n - kept;
    d->rows[s].n = kept;
    qsort(v, kept, sizeof *v, cmp_row_event);
}

/* ---- statistics and outliers ------------------------------------------------------------------ */

typedef struct stat_item {
    int64_t value, tie; /* ns; tie = start, for the order of equal values */
    size_t id;          /* what the outlier list reports */
} stat_item;

static int cmp_item_value(const void *a, const void *b)
{
    const stat_item *x = a, *y = b;
    int c = cmp_i64(x->value, y->value);
    return c ? c : cmp_i64((int64_t)x->id, (int64_t)y->id);
}

/* Value descending, then start, then id: the project's order for ties. */
static int cmp_item_outlier(const void *a, const void *b)
{
    const stat_item *x = a, *y = b;
    int c = cmp_i64(y->value, x->value);
    if (!c)
        c = cmp_i64(x->tie, y->tie);
    return c ? c : cmp_i64((int64_t)x->id, (int64_t)y->id);
}

/* count, median (mean of the two middle values), max and the outliers (value >= 2 x median);
 * items is reordered. false when out of memory. */
static bool make_stats(dfs_dataloader *d, stat_item *items, size_t n, dfs_dl_stats *st)
{
    *st = (dfs_dl_stats){.count = n, .median_us = NAN, .max_us = NAN};
    if (n == 0)
        return true;
    qsort(items, n, sizeof *items, cmp_item_value);
    /* twice the median, exactly: the outlier test is value >= 2 x median */
    __int128 twice = n % 2 ? (__int128)items[n / 2].value * 2
                           : (__int128)items[n / 2 - 1].value + items[n / 2].value;
    st->median_us = (double)twice / 2000.0;
    st->max_us = (double)items[n - 1].value / 1000.0;
    size_t first = n;
    while (first > 0 && (__int128)items[first - 1].value >= twice)
        first--;
    size_t k = n - first;
    if (k == 0)
        return true;
    if (d->nowned == sizeof d->owned / sizeof *d->owned)
        return false;
    size_t *out = malloc(k * sizeof *out);
    if (!out)
        return false;
    d->owned[d->nowned++] = out;
    qsort(items + first, k, sizeof *items, cmp_item_outlier);
    for (size_t i = 0; i < k; i++)
        out[i] = items[first + i].id;
    st->outliers = out;
    st->noutliers = k;
    return true;
}

/* Duration statistics of the rows of a set (ids: row indices) that satisfy `keep` (NULL: all). */
static bool row_stats(dfs_dataloader *d, int s, bool (*keep)(const dfs_dataloader *, const dfs_dl_row *, const void *),
                      const void *ctx, dfs_dl_stats *st)
{
    const dfs_dl_row *rows = d->rows[s].v;
    size_t n = d->rows[s].n, m = 0;
    stat_item *items = malloc((n ? n : 1) * sizeof *items);
    if (!items)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!keep || keep(d, &rows[i], ctx))
            items[m++] = (stat_item){rows[i].end - rows[i].start, rows[i].start, i};
    bool ok = make_stats(d, items, m, st);
    free(items);
    return ok;
}

static bool metric_is(const dfs_dataloader *d, const dfs_dl_row *r, const void *type)
{
    return str_equals(d->run, r->metric, type);
}

/* 1. Iterator initializations, per iterator type. */
static bool analyse_inits(dfs_dataloader *d)
{
    size_t typed = 0;
    for (int k = 0; k < DFS_DL_NINIT_TYPES; k++) {
        dfs_dl_init_type *it = &d->result.init[k];
        it->type = init_types[k];
        it->pin_memory = DFS_DL_PIN_NA;
        it->num_workers = -1;
        if (!row_stats(d, DFS_DL_INIT, metric_is, init_types[k], &it->stats))
            return false;
        typed += it->stats.count;
        for (size_t i = 0; i < d->rows[DFS_DL_INIT].n; i++) {
            const dfs_dl_row *r = &d->rows[DFS_DL_INIT].v[i];
            if (metric_is(d, r, init_types[k])) { /* the first value, as pandas' unique()[0] */
                it->pin_memory = r->pin_memory;
                it->num_workers = r->num_workers;
                break;
            }
        }
    }
    d->result.init_other = d->rows[DFS_DL_INIT].n - typed;
    return true;
}

/* ---- 4. batch time ---------------------------------------------------------------------------- */

static int cmp_batch_order(const void *a, const void *b, void *ctx)
{
    const dfs_dataloader *d = ctx;
    const dfs_dl_row *x = &d->rows[DFS_DL_GETNEXT].v[*(const size_t *)a];
    const dfs_dl_row *y = &d->rows[DFS_DL_GETNEXT].v[*(const size_t *)b];
    int c = x->node == y->node ? 0 : strcmp(d->labels.v.v[x->node], d->labels.v.v[y->node]);
    if (!c && !(c = cmp_i64(x->pid, y->pid)) && !(c = cmp_i64(x->end, y->end)) && !(c = cmp_i64(x->start, y->start)))
        c = cmp_i64((int64_t)x->event, (int64_t)y->event);
    return c;
}

/* GetNext rows sorted by (node, pid, end); within a group, each row's start minus the previous
 * row's start (sorting by end but differencing starts: nested calls give negative gaps). */
static bool make_gaps(dfs_dataloader *d, const size_t *order, size_t n)
{
    const dfs_dl_row *rows = d->rows[DFS_DL_GETNEXT].v;
    for (size_t i = 0; i < n; i++) {
        const dfs_dl_row *r = &rows[order[i]];
        const dfs_dl_row *p = i > 0 ? &rows[order[i - 1]] : NULL;
        if (!p || p->node != r->node || p->pid != r->pid) {
            d->result.batch_groups++;
            continue;
        }
        dfs_dl_gap g = {.prev_start = p->start, .start = r->start, .row = order[i]};
        if (__builtin_sub_overflow(r->start, p->start, &g.gap))
            g.gap = r->start > p->start ? INT64_MAX : INT64_MIN;
        if (g.gap < 0)
            d->result.negative_gaps++;
        if (!dfs_vec_push(&d->gaps, g))
            return false;
    }
    return true;
}

static bool analyse_batches(dfs_dataloader *d)
{
    size_t n = d->rows[DFS_DL_GETNEXT].n;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return false;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof *order, cmp_batch_order, d);
    bool ok = make_gaps(d, order, n);
    free(order);
    stat_item *items = ok ? malloc((d->gaps.n ? d->gaps.n : 1) * sizeof *items) : NULL;
    if (!items)
        return false;
    for (size_t i = 0; i < d->gaps.n; i++)
        items[i] = (stat_item){d->gaps.v[i].gap, d->gaps.v[i].prev_start, i};
    ok = make_stats(d, items, d->gaps.n, &d->result.batch);
    free(items);
    return ok;
}

/* ---- system-metric files ---------------------------------------------------------------------- */

/* Whether text follows the line that starts at `offset` (the file's last good record): then the
 * one bad line is the last line. gzread reads plain and gzip files alike. */
static bool bad_line_is_last(const char *path, uint64_t last_record)
{
    if (last_record == 0)
        return true; /* no good line at all: the bad line is the only one */
    gzFile f = gzopen(path, "rb");
    if (!f)
        return true; /* read a moment ago; the reader's verdict (one bad line) stands */
    bool after_newline = false, text = false;
    if (gzseek(f, (z_off_t)(last_record - 1), SEEK_SET) >= 0) {
        char buf[4096];
        int n;
        while (!text && (n = gzread(f, buf, sizeof buf)) > 0) {
            for (int i = 0; i < n && !text; i++) {
                if (buf[i] == '\n')
                    after_newline = true;
                else if (after_newline && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\r')
                    text = true;
            }
        }
    }
    gzclose(f);
    return text;
}

static dfs_dl_sys_status sys_status(const dfs_dataloader *d, uint32_t file, const dfs_file_info *fi)
{
    if (fi->bad_records == 0)
        return DFS_DL_SYS_OK;
    uint64_t last = file < d->total.nfiles ? d->total.last_record[file] : 0;
    if (fi->bad_records == 1 && bad_line_is_last(fi->path, last))
        return DFS_DL_SYS_LAST_LINE_SKIPPED;
    return DFS_DL_SYS_REJECTED;
}

static bool check_system_files(dfs_dataloader *d)
{
    size_t nf = dfs_run_file_count(d->run);
    for (size_t f = 0; f < nf; f++) {
        const dfs_file_info *fi = dfs_run_file(d->run, f);
        if (fi->dialect != DFS_DIALECT_SMDEBUG_SYSTEM)
            continue;
        dfs_dl_sysfile s = {.file = (uint32_t)f, .bad_lines = fi->bad_records, .samples = 0,
                            .status = sys_status(d, (uint32_t)f, fi)};
        d->result.last_lines_skipped += s.status == DFS_DL_SYS_LAST_LINE_SKIPPED;
        d->result.rejected_files += s.status == DFS_DL_SYS_REJECTED;
        d->file_sys[f] = (uint32_t)d->sysfiles.n;
        if (!dfs_vec_push(&d->sysfiles, s))
            return false;
    }
    return true;
}

static dfs_dl_sysfile *sysfile_of(dfs_dataloader *d, uint32_t file)
{
    uint32_t at = file < dfs_run_file_count(d->run) ? d->file_sys[file] : NO_LABEL;
    return at == NO_LABEL ? NULL : &d->sysfiles.v[at];
}

/* "<minute_epoch_s>.algo-<n>.json": the time in the name, in ns; false when not named so. */
static bool name_time(const char *path, int64_t *ns)
{
    const char *b = base_name(path);
    int64_t s = 0;
    size_t i = 0;
    for (; b[i] >= '0' && b[i] <= '9' && i < 11; i++) /* epoch seconds: ten digits until 2286 */
        s = s * 10 + (b[i] - '0');
    if (i == 0 || i > 10 || b[i] != '.')
        return false;
    *ns = s * 1000000000;
    return true;
}

/* The *_us columns count from the first system-metric file (its name's time, else its first
 * sample); without one they are absolute. */
static void set_origin(dfs_dataloader *d)
{
    d->result.origin = 0;
    d->result.origin_file = -1;
    for (size_t i = 0; i < d->sysfiles.n; i++) {
        const dfs_dl_sysfile *s = &d->sysfiles.v[i];
        int64_t t;
        if (s->status == DFS_DL_SYS_REJECTED)
            continue;
        if (!name_time(dfs_run_file(d->run, s->file)->path, &t)) {
            size_t k = 0;
            while (k < d->samples.n && d->samples.v[k].file != s->file)
                k++;
            if (k == d->samples.n)
                continue;
            t = d->samples.v[k].t;
        }
        if (d->result.origin_file < 0 || t < d->result.origin) {
            d->result.origin = t;
            d->result.origin_file = (int)s->file;
        }
    }
}

static int cmp_raw_sample(const void *a, const void *b)
{
    const raw_sample *x = a, *y = b;
    int c = cmp_i64(x->ts, y->ts);
    if (!c)
        c = cmp_i64(x->file, y->file);
    return c ? c : (x->offset > y->offset) - (x->offset < y->offset);
}

static bool build_samples(dfs_dataloader *d)
{
    raw_sample *raw = d->total.samples.v;
    size_t n = d->total.samples.n, kept = 0;
    for (size_t i = 0; i < n; i++) {
        dfs_dl_sysfile *sf = sysfile_of(d, raw[i].file);
        const dfs_file_info *fi = dfs_run_file(d->run, raw[i].file);
        if ((sf && sf->status == DFS_DL_SYS_REJECTED) || !abs_in_range(fi, raw[i].ts))
            continue;
        if (sf)
            sf->samples++;
        raw[kept] = raw[i];
        raw[kept++].ts = dfs_file_abs_ns(fi, raw[i].ts);
    }
    if (kept > 1)
        qsort(raw, kept, sizeof *raw, cmp_raw_sample);
    if (!dfs_vec_reserve(&d->samples, kept))
        return false;
    for (size_t i = 0; i < kept; i++) {
        dfs_dl_sample s = {.t = raw[i].ts, .value = raw[i].value, .type = raw[i].type, .dim = raw[i].dim,
                           .node = id_label(d, raw[i].pid_str, raw[i].pid),
                           .name = id_label(d, raw[i].tid_str, raw[i].tid), .file = raw[i].file};
        if (s.node == NO_LABEL || s.name == NO_LABEL)
            return false;
        d->samples.v[d->samples.n++] = s;
    }
    return true;
}

/* ---- window queries --------------------------------------------------------------------------- */

/* An index list that keeps counting when memory runs out (*out is then NULL). */
typedef struct index_list {
    size_t **out;
    size_t count, cap;
} index_list;

static void index_add(index_list *l, size_t i)
{
    if (l->out && l->count == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        size_t *nv = realloc(*l->out, l->cap * sizeof *nv);
        if (!nv) {
            free(*l->out);
            *l->out = NULL;
            l->out = NULL;
        } else {
            *l->out = nv;
        }
    }
    if (l->out)
        (*l->out)[l->count] = i;
    l->count++;
}

/* The first of n records (of `size` bytes, sorted by the int64 time at `offset`) whose time is
 * >= t. */
static size_t first_from(const void *base, size_t n, size_t size, size_t offset, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t v;
        memcpy(&v, (const char *)base + mid * size + offset, sizeof v);
        if (v < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t dfs_dl_events_in(const dfs_dl_result *r, int64_t start, int64_t end, size_t **out)
{
    if (out)
        *out = NULL;
    int64_t from;
    if (__builtin_sub_overflow(start, r->max_duration, &from))
        from = INT64_MIN;
    index_list l = {.out = out};
    size_t first = first_from(r->events, r->nevents, sizeof *r->events, offsetof(dfs_dl_event, start), from);
    for (size_t i = first; i < r->nevents && r->events[i].start <= end; i++) {
        if (r->events[i].end < start)
            continue;
        index_add(&l, i);
    }
    return l.count;
}

size_t dfs_dl_samples_in(const dfs_dl_result *r, const dfs_run *run, int64_t start, int64_t end,
                         const char *type, size_t **out)
{
    if (out)
        *out = NULL;
    size_t first = first_from(r->samples, r->nsamples, sizeof *r->samples, offsetof(dfs_dl_sample, t), start);
    index_list l = {.out = out};
    for (size_t i = first; i < r->nsamples && r->samples[i].t <= end; i++) {
        if (type && !str_equals(run, r->samples[i].type, type))
            continue;
        index_add(&l, i);
    }
    return l.count;
}

/* ---- 5. window reports ------------------------------------------------------------------------ */

static int cmp_label(const dfs_dataloader *d, uint32_t a, uint32_t b)
{
    return a == b ? 0 : strcmp(d->labels.v.v[a], d->labels.v.v[b]);
}

static int cmp_sample_group(const void *a, const void *b, void *ctx)
{
    const dfs_dataloader *d = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const dfs_dl_sample *x = &d->samples.v[i], *y = &d->samples.v[j];
    int c = cmp_label(d, x->node, y->node);
    if (!c && x->dim != y->dim)
        c = dfs_str_cmp(d->run, x->dim, y->dim);
    if (!c)
        c = cmp_label(d, x->name, y->name);
    return c ? c : cmp_i64((int64_t)i, (int64_t)j);
}

/* The samples of a window grouped by (node, dimension, name), with min / mean / max. */
static bool window_metrics(dfs_dataloader *d, size_t *idx, size_t n, dfs_dl_window *w)
{
    if (n == 0)
        return true;
    qsort_r(idx, n, sizeof *idx, cmp_sample_group, d);
    dfs_dl_metric *m = malloc(n * sizeof *m);
    if (!m)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const dfs_dl_sample *s = &d->samples.v[idx[i]];
        dfs_dl_metric *cur = k ? &m[k - 1] : NULL;
        if (!cur || cur->node != s->node || cur->dim != s->dim || cur->name != s->name) {
            m[k++] = (dfs_dl_metric){.node = s->node, .name = s->name, .dim = s->dim, .type = s->type,
                                     .min = s->value, .max = s->value};
            cur = &m[k - 1];
        }
        cur->count++;
        cur->mean += s->value; /* the sum until the end */
        cur->min = s->value < cur->min ? s->value : cur->min;
        cur->max = s->value > cur->max ? s->value : cur->max;
    }
    for (size_t i = 0; i < k; i++)
        m[i].mean /= (double)m[i].count;
    w->metrics = m;
    w->nmetrics = k;
    return true;
}

static bool add_window(dfs_dataloader *d, dfs_dl_window_kind kind, size_t rank, size_t outlier, int64_t a,
                       int64_t b)
{
    dfs_dl_window w = {.kind = kind, .rank = rank, .outlier = outlier, .start = a < b ? a : b, .end = a < b ? b : a};
    size_t *ev = NULL, *sm = NULL;
    w.nevents = dfs_dl_events_in(&d->result, w.start, w.end, &ev);
    size_t ns = dfs_dl_samples_in(&d->result, d->run, w.start, w.end, NULL, &sm);
    bool ok = (w.nevents == 0 || ev) && (ns == 0 || sm) && window_metrics(d, sm, ns, &w);
    free(sm);
    for (size_t i = 0; ok && i < w.nevents; i++) {
        int64_t end = d->events.v[ev[i]].end;
        w.finishing_inside += end >= w.start && end <= w.end;
    }
    w.events = ev;
    if (ok && dfs_vec_push(&d->windows, w))
        return true;
    free(ev);
    free((void *)w.metrics);
    return false;
}

static size_t windows_of(const dfs_dataloader *d, const dfs_dl_stats *st)
{
    size_t max = d->opt.max_windows;
    return max && st->noutliers > max ? max : st->noutliers;
}

static bool build_windows(dfs_dataloader *d)
{
    const dfs_dl_stats *g = &d->result.getnext, *b = &d->result.batch;
    size_t ng = windows_of(d, g), nb = windows_of(d, b);
    d->result.windows_skipped = g->noutliers - ng + b->noutliers - nb;
    for (size_t k = 0; k < ng; k++) {
        const dfs_dl_row *r = &d->rows[DFS_DL_GETNEXT].v[g->outliers[k]];
        if (!add_window(d, DFS_DL_WIN_GETNEXT, k, g->outliers[k], r->start, r->end))
            return false;
    }
    for (size_t k = 0; k < nb; k++) {
        const dfs_dl_gap *gap = &d->gaps.v[b->outliers[k]];
        if (!add_window(d, DFS_DL_WIN_BATCH, k, b->outliers[k], gap->prev_start, gap->start))
            return false;
    }
    return true;
}

/* ---- finish ----------------------------------------------------------------------------------- */

static void publish(dfs_dataloader *d)
{
    dfs_dl_result *r = &d->result;
    r->events = d->events.v;
    r->nevents = d->events.n;
    r->samples = d->samples.v;
    r->nsamples = d->samples.n;
    r->labels = (const char *const *)d->labels.v.v;
    r->nlabels = d->labels.v.n;
    r->sysfiles = d->sysfiles.v;
    r->nsysfiles = d->sysfiles.n;
    r->mappings = d->mappings.v;
    r->nmappings = d->mappings.n;
    for (int s = 0; s < DFS_DL_NSETS; s++) {
        r->rows[s] = d->rows[s].v;
        r->nrows[s] = d->rows[s].n;
    }
    r->gaps = d->gaps.v;
    r->ngaps = d->gaps.n;
    r->windows = d->windows.v;
    r->nwindows = d->windows.n;
    r->samples_without_value = d->total.no_value;
    r->bad_times = d->bad_times + d->total.no_time;
}

static bool per_file_tables(dfs_dataloader *d)
{
    size_t nf = dfs_run_file_count(d->run);
    d->file_node = malloc((nf ? nf : 1) * sizeof *d->file_node);
    d->file_sys = malloc((nf ? nf : 1) * sizeof *d->file_sys);
    d->file_kind = calloc(nf ? nf : 1, sizeof *d->file_kind);
    if (!d->file_node || !d->file_sys || !d->file_kind)
        return false;
    for (size_t f = 0; f < nf; f++)
        d->file_node[f] = d->file_sys[f] = NO_LABEL;
    return true;
}

static bool analyse(dfs_dataloader *d)
{
    return analyse_inits(d) && row_stats(d, DFS_DL_WORKER, NULL, NULL, &d->result.workers) &&
           row_stats(d, DFS_DL_GETNEXT, NULL, NULL, &d->result.getnext) && analyse_batches(d);
}

const dfs_dl_result *dfs_dl_finish(dfs_dataloader *d, const dfs_run *run)
{
    if (d->finished || d->failed)
        return d->finished ? &d->result : NULL; /* a failed finish is not retried half-built */
    d->run = run;
    map_count mc;
    memset(&mc, 0, sizeof mc);
    bool ok = !d->total.failed && per_file_tables(d) && build_events(d) && classify_events(d, &mc) &&
              list_mappings(d, &mc);
    for (int s = 0; ok && s < DFS_DL_NSETS; s++)
        dedup_rows(d, s);
    ok = ok && check_system_files(d) && build_samples(d);
    if (ok) {
        publish(d);
        set_origin(d);
    }
    ok = ok && analyse(d);
    if (ok)
        publish(d);
    ok = ok && build_windows(d);
    if (!ok) {
        d->failed = true;
        return NULL;
    }
    publish(d);
    d->finished = true;
    return &d->result;
}
