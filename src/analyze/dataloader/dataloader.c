/* dataloader.c - SageMaker Debugger's PT_dataloader_analysis (dataloader.h): options, the analysis
 * object's construction and release, and the streaming consumer: what the reading workers keep of
 * each framework event and system-metric line, and the merge of their parts. dfs_dl_finish and the
 * analyses are in dataloader_finish.c and dataloader_outliers.c (dataloader_internal.h).
 *
 * Invariants: a worker only appends to its own part, in the order its batches come, with each
 * record's (file, offset); a part's args indices point into its own args, rebased on merging; a
 * record with no usable time or value is only counted; nothing here depends on the order in which
 * the workers' parts are merged (dfs_dl_finish restores a total order). */
#include "analyze/dataloader/dataloader.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/concepts.h"
#include "analyze/common/predicate.h"
#include "analyze/dataloader/dataloader_internal.h"
#include "util/u64map.h"
#include "util/vec.h"

#define ABSURD_NS (INT64_C(7) * 86400 * 1000000000) /* the reader's "absurd duration" bound */

static const char *const set_names[DFS_DL_NSETS] = {"getnext", "initialize", "worker"};
static const char *const set_patterns[DFS_DL_NSETS] = {".*DataLoaderIter::GetNext", "DataLoaderIterInitialize",
                                                       "DataLoaderWorker"};
static const char *const wanted_extra[] = {"layer_name", "worker_id", "num_workers", "pin_memory", "Value", NULL};

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
    char *name = dfs_pred_contains_text("func_name", re), *phase = dfs_pred_contains_text("proc_name", re);
    size_t len = name && phase ? strlen(name) + strlen(phase) + 4 : 0;
    char *text = len ? malloc(len) : NULL;
    if (text)
        snprintf(text, len, "%s | %s", name, phase);
    free(name);
    free(phase);
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
