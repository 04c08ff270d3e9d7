/* tlwindow.c - what `dfscope timeline` reads: the window syntax, and a consumer that feeds a
 * dfs_timeline with the spans and counter samples of a window (tlwindow.h). */
#include "analyze/timeline/tlwindow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/gpu_events.h"
#include "util/keymap.h"
#include "util/vec.h"

/* ===== the window syntax ===================================================================== */

static const struct {
    const char *name;
    int64_t ns;
} time_units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}, {"", 1000000000},
                  {"m", INT64_C(60000000000)}, {"min", INT64_C(60000000000)}, {"h", INT64_C(3600000000000)}};

static bool unit_ns(const char *s, size_t n, int64_t *ns)
{
    for (size_t i = 0; i < sizeof time_units / sizeof *time_units; i++)
        if (strlen(time_units[i].name) == n && memcmp(time_units[i].name, s, n) == 0) {
            *ns = time_units[i].ns;
            return true;
        }
    return false;
}

/* DIGITS[.DIGITS][UNIT], exactly: the fraction keeps up to 18 digits. */
static bool parse_time(const char *s, size_t n, int64_t *out, char *err, size_t errlen)
{
    __int128 whole = 0, frac = 0, scale = 1;
    size_t i = 0, digits = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
        if ((whole = whole * 10 + (s[i] - '0')) > (__int128)INT64_MAX)
            break;
    if (i < n && s[i] == '.')
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
            if (scale < (__int128)1000000000000000000) {
                frac = frac * 10 + (s[i] - '0');
                scale *= 10;
            }
    int64_t unit;
    if (digits == 0 || !unit_ns(s + i, n - i, &unit)) {
        snprintf(err, errlen, "'%.*s' is not a time (a number with an optional unit ns, us, ms, s, m, h)",
                 (int)n, s);
        return false;
    }
    __int128 v = whole * unit + frac * unit / scale;
    if (whole > (__int128)INT64_MAX || v > (__int128)INT64_MAX) {
        snprintf(err, errlen, "'%.*s' is too large", (int)n, s);
        return false;
    }
    *out = (int64_t)v;
    return true;
}

static bool parse_bound(const char *s, size_t n, dfs_tl_bound *b, char *err, size_t errlen)
{
    b->ns = 0;
    if (n == 0) {
        b->kind = DFS_TLB_OPEN;
        return true;
    }
    if (s[0] == '-') {
        snprintf(err, errlen, "'%.*s': times are not negative (use +TIME for a time after the trace's start)",
                 (int)n, s);
        return false;
    }
    b->kind = s[0] == '+' ? DFS_TLB_RELATIVE : DFS_TLB_ABSOLUTE;
    size_t skip = b->kind == DFS_TLB_RELATIVE;
    return parse_time(s + skip, n - skip, &b->ns, err, errlen);
}

bool dfs_tl_parse_window(const char *text, dfs_tl_window *out, char *err, size_t errlen)
{
    const char *colon = text ? strchr(text, ':') : NULL;
    if (!colon || strchr(colon + 1, ':')) {
        snprintf(err, errlen,
                 "expected START:END (e.g. 1623142623.5:1623142623.7, +1.5:+2, +500ms:, :), not '%s'",
                 text ? text : "");
        return false;
    }
    return parse_bound(text, (size_t)(colon - text), &out->start, err, errlen) &&
           parse_bound(colon + 1, strlen(colon + 1), &out->end, err, errlen);
}

bool dfs_tl_window_needs_span(const dfs_tl_window *w)
{
    return w->start.kind != DFS_TLB_ABSOLUTE || w->end.kind != DFS_TLB_ABSOLUTE;
}

static bool resolve_bound(const dfs_tl_bound *b, int64_t trace_start, int64_t open, int64_t *out)
{
    if (b->kind == DFS_TLB_OPEN)
        *out = open;
    else if (b->kind == DFS_TLB_ABSOLUTE)
        *out = b->ns;
    else
        return !__builtin_add_overflow(trace_start, b->ns, out);
    return true;
}

bool dfs_tl_window_resolve(const dfs_tl_window *w, int64_t trace_start, int64_t trace_end, int64_t *start,
                           int64_t *end, char *err, size_t errlen)
{
    if (!resolve_bound(&w->start, trace_start, trace_start, start) ||
        !resolve_bound(&w->end, trace_start, trace_end, end)) {
        snprintf(err, errlen, "the window is beyond the clock's range");
        return false;
    }
    if (w->end.kind == DFS_TLB_OPEN && *end <= *start && *start < INT64_MAX)
        *end = *start + 1;
    if (*end <= *start) {
        snprintf(err, errlen, "the window is empty: its end is not after its start");
        return false;
    }
    int64_t span;
    if (__builtin_sub_overflow(*end, *start, &span)) { /* a trace with absurd times, whole */
        snprintf(err, errlen, "the window is longer than 292 years, more than the clock measures; give a shorter "
                              "one (--window START:END)");
        return false;
    }
    return true;
}

/* ===== the consumer ========================================================================== */

/* What one pass learnt about an input. */
typedef struct file_fact {
    dfs_file_clock clock; /* the clock its times went through */
    int64_t min_raw, max_raw; /* earliest start and latest end on its own clock */
    uint8_t source;       /* the concept source its events were classed with */
    bool seen, have;
} file_fact;

/* B/E records (paired after reading) and spans waiting for the process names: the event without
 * its args (their memory is the batch's), with the answers of the concepts' argument tests. */
typedef struct held {
    dfs_event ev;
    uint64_t arg_truths;
} held;

/* A lane: input (when the event has no host; UINT32_MAX otherwise), host, pid, tid. */
typedef struct lane_key {
    uint32_t src;
    dfs_str host;
    int64_t pid, tid;
} lane_key;

/* What the device events drawn on a lane say of it (gpu_events.h), merged so that any order of
 * events and workers agrees: the smallest device and stream named, the largest vendor. */
typedef struct lane_device {
    bool seen;            /* a device-side event was drawn on the lane */
    uint8_t vendor;       /* dfs_gpu_vendor */
    int64_t device;       /* -1: none named */
    int64_t stream;       /* -1: none named */
} lane_device;

typedef struct lane_ident {
    lane_key key;
    uint32_t file;        /* the first input it was seen in: where its names are looked up */
    dfs_str pid_str, tid_str;
    uint32_t lane;        /* in the part's timeline */
    lane_device dev;
} lane_ident;

typedef struct part {
    const dfs_tlw *owner;
    dfs_timeline *tl;     /* NULL when measuring bounds only */
    dfs_concepts *concepts;
    bool late_class[DFS_CSRC_COUNT]; /* the source's predicates read proc_name */
    dfs_keymap lane_index;           /* lane_key -> lanes: the lanes with a span in the window */
    DFS_VEC(lane_ident) lanes;
    dfs_keymap seen;                 /* lane_key -> 0: every lane of a timed span or B/E record */
    lane_key last_seen;              /* the last one noted: events come in runs of one thread */
    bool have_last;
    DFS_VEC(held) held;
    file_fact *files;
    size_t nfiles;
    dfs_str value_key;    /* "Value" (smdebug system metrics) */
    bool moved;           /* a file's clock or source changed between its batches */
    uint64_t bad_time;
    uint64_t unmatched_begin, unmatched_end;
    bool failed;
} part;

struct dfs_tlw {
    dfs_tlw_options opt;
    dfs_concept_overrides overrides;
    dfs_consumer consumer;
    part main;
    dfs_tlw_result result;
    bool rerun;
    char failure[512]; /* a concept predicate over its regex bound: no result (tlwindow.h) */
    uint64_t *kept; /* a rerun for the lanes: the busiest, to keep on their own */
    size_t nkept;
};

static const char *const wanted_extra[] = {"Value", NULL};

void dfs_tlw_options_init(dfs_tlw_options *o)
{
    memset(o, 0, sizeof *o);
    dfs_tl_options_init(&o->draw);
}

static bool part_init(part *p, const dfs_tlw *w, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->owner = w;
    dfs_keymap_init(&p->lane_index, sizeof(lane_key));
    dfs_keymap_init(&p->seen, sizeof(lane_key));
    if (w->opt.bounds_only)
        return true;
    dfs_pred_error perr;
    dfs_concept bad = DFS_CONCEPT_COUNT;
    p->concepts = dfs_concepts_new(&w->overrides, &perr, &bad);
    if (!p->concepts) {
        snprintf(err, errlen, "%s%s%s", bad < DFS_CONCEPT_COUNT ? dfs_concept_name(bad) : "",
                 bad < DFS_CONCEPT_COUNT ? ": " : "", perr.message);
        return false;
    }
    for (int s = 0; s < DFS_CSRC_COUNT; s++)
        p->late_class[s] = dfs_concepts_need_proc_name(p->concepts, (dfs_concept_source)s);
    p->tl = dfs_tl_new(&w->opt.draw);
    if (!p->tl)
        snprintf(err, errlen, "cannot draw this window (out of memory, or a width outside 200..20000)");
    return p->tl != NULL;
}

static void part_free(part *p)
{
    dfs_tl_free(p->tl);
    dfs_concepts_free(p->concepts);
    dfs_keymap_free(&p->lane_index);
    dfs_keymap_free(&p->seen);
    dfs_vec_free(&p->lanes);
    dfs_vec_free(&p->held);
    free(p->files);
    memset(p, 0, sizeof *p);
}

/* ----- clocks ----- */

static dfs_file_clock clock_now(const dfs_tlw *w, const dfs_run *run, uint32_t file)
{
    if (w->opt.clocks && file < w->opt.nfiles)
        return w->opt.clocks[file];
    const dfs_file_info *fi = dfs_run_file(run, file);
    return (dfs_file_clock){fi->clock_offset_ns, fi->clock_scale_num, fi->clock_scale_den};
}

static uint8_t source_now(const dfs_tlw *w, const dfs_run *run, uint32_t file)
{
    if (w->opt.sources && file < w->opt.nfiles)
        return w->opt.sources[file];
    return (uint8_t)dfs_concept_source_of(dfs_run_file(run, file)->dialect);
}

uint8_t *dfs_tlw_final_sources(const dfs_run *run)
{
    size_t n = dfs_run_file_count(run);
    uint8_t *s = calloc(n ? n : 1, 1);
    for (size_t i = 0; s && i < n; i++)
        s[i] = (uint8_t)dfs_concept_source_of(dfs_run_file(run, i)->dialect);
    return s;
}

bool dfs_tlw_options_use_run(dfs_tlw_options *o, const dfs_run *run, const dfs_file_clock *clocks)
{
    free((void *)o->sources);
    o->clocks = clocks;
    o->sources = dfs_tlw_final_sources(run);
    o->nfiles = o->sources ? dfs_run_file_count(run) : 0;
    return o->sources != NULL;
}

static bool same_clock(const dfs_file_clock *a, const dfs_file_clock *b)
{
    return a->offset_ns == b->offset_ns && a->num == b->num && a->den == b->den;
}

/* The facts of a batch's file, noting a clock or source that changed since its last batch. */
static file_fact *fact_of(part *p, const dfs_tlw *w, const dfs_run *run, uint32_t file)
{
    if (!p->files) {
        p->nfiles = dfs_run_file_count(run);
        p->files = calloc(p->nfiles ? p->nfiles : 1, sizeof *p->files);
        if (!p->files)
            return NULL;
    }
    if (file >= p->nfiles)
        return NULL;
    file_fact *f = &p->files[file];
    dfs_file_clock c = clock_now(w, run, file);
    uint8_t s = source_now(w, run, file);
    if (f->seen && (!same_clock(&f->clock, &c) || f->source != s))
        p->moved = true;
    f->clock = c;
    f->source = s;
    f->seen = true;
    return f;
}

static void note_extent(file_fact *f, int64_t start, int64_t end)
{
    if (!f->have || start < f->min_raw)
        f->min_raw = start;
    if (!f->have || end > f->max_raw)
        f->max_raw = end;
    f->have = true;
}

/* ----- lanes ----- */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static const char *str_of(const dfs_run *run, dfs_str s)
{
    return s ? dfs_str_get(run, s, NULL) : NULL;
}

static dfs_tl_lane_key timeline_key(const dfs_run *run, const lane_ident *id, bool with_names)
{
    dfs_tl_lane_key k = {
        .source = id->key.src == UINT32_MAX ? "" : base_name(dfs_run_file(run, id->key.src)->path),
        .host = str_of(run, id->key.host),
        .pid = id->key.pid,
        .tid = id->key.tid,
        .pid_str = str_of(run, id->pid_str),
        .tid_str = str_of(run, id->tid_str),
    };
    if (with_names) {
        k.process = str_of(run, dfs_run_process_name(run, id->file, id->key.pid));
        k.thread = str_of(run, dfs_run_thread_name(run, id->file, id->key.pid, id->key.tid));
    }
    return k;
}

static int64_t smaller_named(int64_t a, int64_t b)
{
    return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

static void device_merge(lane_device *into, const lane_device *from)
{
    if (!from->seen)
        return;
    into->vendor = from->vendor > into->vendor ? from->vendor : into->vendor;
    into->device = into->seen ? smaller_named(into->device, from->device) : from->device;
    into->stream = into->seen ? smaller_named(into->stream, from->stream) : from->stream;
    into->seen = true;
}

/* The part's timeline lane of an identity (created when new); UINT32_MAX when out of memory. */
static uint32_t lane_of_ident(part *p, const dfs_run *run, const lane_ident *in)
{
    uint32_t idx;
    bool fresh;
    if (!dfs_keymap_get_or_put(&p->lane_index, &in->key, (uint32_t)p->lanes.n, &idx, &fresh))
        return UINT32_MAX;
    if (!fresh) {
        if (idx >= p->lanes.n)
            return UINT32_MAX;
        lane_ident *id = &p->lanes.v[idx];
        id->file = in->file < id->file ? in->file : id->file;
        device_merge(&id->dev, &in->dev);
        return id->lane;
    }
    lane_ident id = *in;
    dfs_tl_lane_key k = timeline_key(run, &id, false);
    id.lane = dfs_tl_lane(p->tl, &k);
    if (id.lane == UINT32_MAX || !dfs_vec_push(&p->lanes, id))
        return UINT32_MAX;
    return id.lane;
}

/* What a device event says of its lane (gpu_events.h); nothing for any other event. */
static lane_device device_of(const dfs_run *run, const dfs_event *ev)
{
    lane_device d = {.seen = false, .device = -1, .stream = -1};
    dfs_gpu_event g;
    dfs_gpu_classify(run, ev, &g);
    if (dfs_gpu_device_side(g.kind))
        d = (lane_device){.seen = true, .vendor = (uint8_t)g.vendor, .device = g.device, .stream = g.stream};
    return d;
}

/* The lane an event is drawn on. */
static lane_key key_of(const part *p, const dfs_event *ev)
{
    lane_key k;
    memset(&k, 0, sizeof k); /* hashed as bytes: no stray padding */
    k.src = p->nfiles > 1 && !ev->host ? ev->file : UINT32_MAX;
    k.host = ev->host;
    k.pid = ev->pid;
    k.tid = ev->tid;
    return k;
}

/* A lane that holds something drawable (a complete event, a B/E pair), in the window or not: the
 * lanes seen but not drawn are counted in the picture (dfs_tl_set_empty_lanes). */
static void note_lane(part *p, const dfs_event *ev)
{
    lane_key k = key_of(p, ev);
    uint32_t v;
    bool fresh;
    if (p->have_last && memcmp(&k, &p->last_seen, sizeof k) == 0)
        return;
    if (!dfs_keymap_get_or_put(&p->seen, &k, 0, &v, &fresh))
        p->failed = true;
    p->last_seen = k;
    p->have_last = true;
}

static uint32_t lane_of(part *p, const dfs_run *run, const dfs_event *ev)
{
    lane_ident id;
    memset(&id, 0, sizeof id);
    id.dev = device_of(run, ev);
    id.key = key_of(p, ev);
    id.file = ev->file;
    id.pid_str = ev->pid_str;
    id.tid_str = ev->tid_str;
    return lane_of_ident(p, run, &id);
}

/* ----- spans and counters ----- */

static dfs_tl_class class_of(part *p, const dfs_run *run, uint8_t source, const dfs_event *ev,
                             uint64_t arg_truths)
{
    switch (dfs_concepts_classify_answered(p->concepts, run, (dfs_concept_source)source, ev, arg_truths)) {
    case DFS_EVCLASS_COMPUTE: return DFS_TL_COMPUTE;
    case DFS_EVCLASS_DATA_WAIT: return DFS_TL_DATA_WAIT;
    case DFS_EVCLASS_IO: return DFS_TL_IO;
    case DFS_EVCLASS_TRANSFER: return DFS_TL_TRANSFER;
    default: return DFS_TL_OTHER;
    }
}

static bool overlaps(const dfs_tl_options *o, int64_t start, int64_t dur)
{
    int64_t end;
    if (!dfs_span_end(start, dur, &end))
        return false; /* the file's clock took the end out of int64: left out, as bad times are */
    return dur == 0 ? start >= o->start_ns && start < o->end_ns : start < o->end_ns && end > o->start_ns;
}

/* Draws an event as a span [ts, ts + dur) on its file's clock; the phase may be B (a pair). */
static void draw_span(part *p, const dfs_run *run, const file_fact *f, const dfs_event *ev, uint64_t arg_truths,
                      int64_t dur, const dfs_tl_options *o)
{
    int64_t start = dfs_clock_apply(&f->clock, ev->ts), d = dfs_clock_scale(&f->clock, dur);
    if (!overlaps(o, start, d))
        return;
    uint32_t lane = lane_of(p, run, ev);
    size_t len;
    const char *name = dfs_str_get(run, ev->name, &len);
    if (lane == UINT32_MAX ||
        dfs_tl_add_span(p->tl, lane, start, d, name, len, class_of(p, run, f->source, ev, arg_truths)) != DFS_OK)
        p->failed = true;
}

static void hold(part *p, const dfs_run *run, const dfs_event *ev)
{
    held h = {*ev, dfs_concepts_arg_truths(p->concepts, run, ev)};
    h.ev.nargs = 0;
    h.ev.args = NULL;
    if (!dfs_vec_push(&p->held, h))
        p->failed = true;
}

static bool numeric(const dfs_value *v, double *out)
{
    switch (v->type) {
    case DFS_V_INT:
    case DFS_V_BOOL: *out = (double)v->as.i; return true;
    case DFS_V_UINT: *out = (double)v->as.u; return true;
    case DFS_V_FLOAT: *out = v->as.f; return true;
    default: return false;
    }
}

/* One chart per counter name and numeric arg ("cpu: cpu_percent"); smdebug system metrics carry
 * one "Value": their chart is host, dimension and device ("algo-1 CPUUtilization cpu0"). */
static void draw_counter(part *p, const dfs_run *run, const file_fact *f, const dfs_event *ev)
{
    int64_t t = dfs_clock_apply(&f->clock, ev->ts);
    const char *host = str_of(run, ev->host), *name = str_of(run, ev->name);
    for (uint32_t i = 0; i < ev->nargs; i++) {
        double v;
        if (!numeric(&ev->args[i].val, &v))
            continue;
        char label[512];
        if (ev->args[i].key == p->value_key && p->value_key)
            snprintf(label, sizeof label, "%s%s%s%s%s", host ? host : "", host ? " " : "", name ? name : "",
                     ev->tid_str ? " " : "", ev->tid_str ? str_of(run, ev->tid_str) : "");
        else
            snprintf(label, sizeof label, "%s%s%s: %s", host ? host : "", host ? " " : "", name ? name : "",
                     str_of(run, ev->args[i].key));
        if (dfs_tl_add_counter(p->tl, label, strlen(label), t, v) != DFS_OK)
            p->failed = true;
    }
}

static bool timed(part *p, const dfs_event *ev, bool need_dur)
{
    bool ok = (ev->flags & DFS_EF_HAS_TS) && !(ev->flags & DFS_EF_BAD_TIME) &&
              (!need_dur || ((ev->flags & DFS_EF_HAS_DUR) && ev->dur >= 0));
    p->bad_time += !ok;
    return ok;
}

static void on_event(part *p, const dfs_tlw *w, const dfs_run *run, file_fact *f, const dfs_event *ev)
{
    int64_t end;
    switch (ev->phase) {
    case DFS_PHASE_COMPLETE:
        if (!timed(p, ev, true))
            return;
        note_extent(f, ev->ts, dfs_span_end(ev->ts, ev->dur, &end) ? end : INT64_MAX);
        if (p->tl)
            note_lane(p, ev);
        if (p->tl && p->late_class[f->source]) { /* classed after reading, with the process names */
            if (overlaps(&w->opt.draw, dfs_clock_apply(&f->clock, ev->ts), dfs_clock_scale(&f->clock, ev->dur)))
                hold(p, run, ev);
        } else if (p->tl) {
            draw_span(p, run, f, ev, dfs_concepts_arg_truths(p->concepts, run, ev), ev->dur, &w->opt.draw);
        }
        return;
    case DFS_PHASE_BEGIN:
    case DFS_PHASE_END:
        if (!timed(p, ev, false))
            return;
        note_extent(f, ev->ts, ev->ts);
        if (p->tl)
            hold(p, run, ev); /* its lane is noted when it pairs: an unpaired record draws nothing */
        return;
    case DFS_PHASE_COUNTER:
        if (!timed(p, ev, false))
            return;
        note_extent(f, ev->ts, ev->ts);
        if (p->tl)
            draw_counter(p, run, f, ev);
        return;
    default: return;
    }
}

static void *worker_begin(void *user)
{
    dfs_tlw *w = user;
    part *p = malloc(sizeof *p);
    char err[256];
    if (p && !part_init(p, w, err, sizeof err)) {
        part_free(p);
        p->failed = true; /* reported by dfs_tlw_finish as out of memory */
    }
    return p;
}

static void on_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    part *p = state;
    if (!p || p->failed)
        return;
    const dfs_tlw *w = p->owner;
    if (!p->value_key)
        p->value_key = dfs_str_find(run, "Value", 5);
    file_fact *f = fact_of(p, w, run, b->file);
    if (!f) {
        p->failed = true;
        return;
    }
    for (size_t i = 0; i < b->count && !p->failed; i++)
        on_event(p, w, run, f, &b->events[i]);
}

/* ----- merging the workers ----- */

static void merge_facts(part *into, const part *from)
{
    for (size_t i = 0; i < from->nfiles && i < into->nfiles; i++) {
        const file_fact *x = &from->files[i];
        file_fact *y = &into->files[i];
        if (!x->seen)
            continue;
        if (y->seen && (!same_clock(&x->clock, &y->clock) || x->source != y->source))
            into->moved = true;
        y->clock = x->clock;
        y->source = x->source;
        y->seen = true;
        if (x->have)
            note_extent(y, x->min_raw, x->max_raw);
    }
}

static bool merge_part(part *into, const dfs_run *run, const part *from)
{
    if (!into->files && from->files) {
        into->nfiles = from->nfiles;
        if (!(into->files = calloc(into->nfiles ? into->nfiles : 1, sizeof *into->files)))
            return false;
    }
    merge_facts(into, from);
    into->moved |= from->moved;
    into->bad_time += from->bad_time;
    if (!dfs_vec_reserve(&into->held, from->held.n))
        return false;
    if (from->held.n)
        memcpy(into->held.v + into->held.n, from->held.v, from->held.n * sizeof *from->held.v);
    into->held.n += from->held.n;
    if (!into->tl)
        return true;
    for (size_t i = 0; i < from->seen.cap; i++) {
        const void *key;
        uint32_t v;
        bool fresh;
        if (dfs_keymap_slot(&from->seen, i, &key, &v) && !dfs_keymap_get_or_put(&into->seen, key, 0, &v, &fresh))
            return false;
    }
    for (size_t i = 0; i < from->lanes.n; i++)
        if (lane_of_ident(into, run, &from->lanes.v[i]) == UINT32_MAX)
            return false;
    return dfs_tl_merge(into->tl, from->tl) == DFS_OK;
}

static void worker_end(void *user, const dfs_run *run, void *state)
{
    dfs_tlw *w = user;
    part *p = state;
    if (!p || p->failed || !merge_part(&w->main, run, p))
        w->main.failed = true;
    if (p) {
        dfs_concepts_failed(p->concepts, w->failure, sizeof w->failure);
        part_free(p);
    }
    free(p);
}

/* ----- after reading ----- */

/* B/E pairing: one stack per (input, name, pid, tid), in file order. */
typedef struct pair_key {
    uint32_t file;
    dfs_str name;
    int64_t pid, tid;
} pair_key;

static int cmp_held(const void *a, const void *b)
{
    const dfs_event *x = &((const held *)a)->ev, *y = &((const held *)b)->ev;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

static void draw_held(part *p, const dfs_run *run, const held *h, int64_t dur)
{
    dfs_event ev = h->ev;
    ev.dur = dur;
    ev.flags |= DFS_EF_HAS_DUR;
    ev.phase = DFS_PHASE_COMPLETE;
    ev.ph = 'X';
    draw_span(p, run, &p->files[ev.file], &ev, h->arg_truths, dur, &p->owner->opt.draw);
}

/* Pairs the held B/E records and draws the pairs and the held complete events. */
static bool draw_held_records(part *p, const dfs_run *run)
{
    if (p->held.n)
        qsort(p->held.v, p->held.n, sizeof *p->held.v, cmp_held);
    uint32_t *below = malloc((p->held.n ? p->held.n : 1) * sizeof *below); /* the B under each open B */
    DFS_VEC(uint32_t) tops = {0};                                          /* per stack: its top B */
    dfs_keymap stacks;                                                     /* pair_key -> stack */
    dfs_keymap_init(&stacks, sizeof(pair_key));
    bool ok = below != NULL;
    for (size_t i = 0; ok && i < p->held.n && !p->failed; i++) {
        const held *hh = &p->held.v[i];
        const dfs_event *h = &hh->ev;
        if (h->phase == DFS_PHASE_COMPLETE) {
            draw_held(p, run, hh, h->dur);
            continue;
        }
        pair_key k = {h->file, h->name, h->pid, h->tid};
        uint32_t st;
        bool fresh;
        ok = dfs_keymap_get_or_put(&stacks, &k, (uint32_t)tops.n, &st, &fresh) &&
             (!fresh || dfs_vec_push(&tops, UINT32_MAX)) && st < tops.n;
        if (!ok)
            break;
        uint32_t top = tops.v[st];
        if (h->phase == DFS_PHASE_BEGIN) {
            below[i] = top;
            tops.v[st] = (uint32_t)i;
        } else if (top == UINT32_MAX) {
            p->unmatched_end++;
        } else {
            const held *b = &p->held.v[top];
            int64_t dur;
            tops.v[st] = below[top];
            if (h->ts >= b->ev.ts && !__builtin_sub_overflow(h->ts, b->ev.ts, &dur)) {
                note_lane(p, &b->ev);
                draw_held(p, run, b, dur);
            }
            else
                p->bad_time++;
        }
    }
    for (size_t s = 0; ok && s < tops.n; s++)
        for (uint32_t b = tops.v[s]; b != UINT32_MAX; b = below[b])
            p->unmatched_begin++;
    free(below);
    dfs_vec_free(&tops);
    dfs_keymap_free(&stacks);
    return ok && !p->failed;
}

/* Whether a file's clock or concept source differs from its final one. */
static bool facts_moved(const part *p, const dfs_tlw *w, const dfs_run *run)
{
    if (p->moved)
        return true;
    for (size_t i = 0; i < p->nfiles; i++) {
        const file_fact *f = &p->files[i];
        dfs_file_clock c = clock_now(w, run, (uint32_t)i);
        if (f->seen && (!same_clock(&f->clock, &c) || f->source != source_now(w, run, (uint32_t)i)))
            return true;
    }
    return false;
}

/* The drawable records' span under every file's final clock. */
static void trace_span(const part *p, const dfs_tlw *w, const dfs_run *run, dfs_tlw_result *r)
{
    for (size_t i = 0; i < p->nfiles; i++) {
        const file_fact *f = &p->files[i];
        if (!f->have)
            continue;
        dfs_file_clock c = clock_now(w, run, (uint32_t)i);
        int64_t a = dfs_clock_apply(&c, f->min_raw), b = dfs_clock_apply(&c, f->max_raw);
        if (!r->have_span || a < r->trace_start_ns)
            r->trace_start_ns = a;
        if (!r->have_span || b > r->trace_end_ns)
            r->trace_end_ns = b;
        r->have_span = true;
    }
}

/* A PyTorch profiler's device lane: it holds device events (kernels, copies, MTIA device ops,
 * CUPTI range measurements: gpu_events.h), which carry the device as pid (or args.device) and the
 * stream as tid (or args.stream); its process name is the host program's, which says nothing of
 * the device. Such a lane is labelled by device and stream: "GPU 0" / "stream 7", "MTIA 1". */
static void device_label(const dfs_run *run, const lane_ident *id, dfs_tl_lane_key *k, char *proc, char *thread,
                         size_t n)
{
    const lane_device *d = &id->dev;
    if (!d->seen || d->device < 0 || id->file >= dfs_run_file_count(run) ||
        dfs_run_file(run, id->file)->dialect != DFS_DIALECT_KINETO)
        return;
    snprintf(proc, n, "%s %" PRId64, dfs_gpu_device_word((dfs_gpu_vendor)d->vendor), d->device);
    k->process = proc;
    if ((!k->thread || !*k->thread) && (!k->tid_str || !*k->tid_str) && d->stream >= 0) {
        snprintf(thread, n, "stream %" PRId64, d->stream); /* no name in the trace: the stream its events name */
        k->thread = thread;
    }
}

/* The lanes seen in the trace that have nothing in the window. */
static size_t empty_lanes(const part *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->seen.cap; i++) {
        const void *key;
        uint32_t v;
        n += dfs_keymap_slot(&p->seen, i, &key, &v) && !dfs_keymap_get(&p->lane_index, key, &v);
    }
    return n;
}

/* Gives every lane its process and thread names (known once every file is read). */
static bool name_lanes(part *p, const dfs_run *run)
{
    for (size_t i = 0; i < p->lanes.n; i++) {
        dfs_tl_lane_key k = timeline_key(run, &p->lanes.v[i], true);
        char device[32], stream[32];
        device_label(run, &p->lanes.v[i], &k, device, stream, sizeof device);
        if (dfs_tl_lane(p->tl, &k) == UINT32_MAX)
            return false;
    }
    return true;
}

/* Too many lanes in a first pass: the busiest are kept on their own in the second. */
static bool choose_lanes(dfs_tlw *w, const dfs_timeline *tl)
{
    unsigned limit = dfs_tl_lane_limit(w->opt.draw.width_px);
    unsigned k = w->opt.draw.max_lanes && w->opt.draw.max_lanes < limit ? w->opt.draw.max_lanes : limit;
    w->kept = dfs_tl_busiest(tl, k, &w->nkept);
    return w->kept != NULL;
}

const dfs_tlw_result *dfs_tlw_finish(dfs_tlw *w, const dfs_run *run)
{
    part *p = &w->main;
    if (p->failed || w->failure[0])
        return NULL;
    bool moved = p->tl && facts_moved(p, w, run);
    /* the B/E pairs are drawn before the lanes are judged: they are spans on lanes too */
    if (p->tl && p->files && !draw_held_records(p, run))
        return NULL; /* out of memory (no files: nothing was read) */
    if (p->tl && dfs_tl_crowded(p->tl) && !w->opt.last_pass) {
        if (!choose_lanes(w, p->tl))
            return NULL;
        w->rerun = true;
    }
    if (moved || w->rerun) {
        w->rerun = true;
        return NULL;
    }
    dfs_tlw_result *r = &w->result;
    memset(r, 0, sizeof *r);
    trace_span(p, w, run, r);
    if (p->tl && !name_lanes(p, run))
        return NULL; /* out of memory */
    if (p->tl)
        dfs_tl_set_empty_lanes(p->tl, empty_lanes(p));
    if (dfs_concepts_failed(p->concepts, w->failure, sizeof w->failure))
        return NULL;
    r->tl = p->tl;
    r->unmatched_begin = p->unmatched_begin;
    r->unmatched_end = p->unmatched_end;
    r->bad_time = p->bad_time;
    return r;
}

bool dfs_tlw_needs_rerun(const dfs_tlw *w)
{
    return w->rerun;
}

const char *dfs_tlw_failure(const dfs_tlw *w)
{
    return w->failure[0] ? w->failure : NULL;
}

const uint64_t *dfs_tlw_kept_lanes(const dfs_tlw *w, size_t *n)
{
    *n = w->nkept;
    return w->kept;
}

dfs_tlw *dfs_tlw_new(const dfs_tlw_options *opt, char *err, size_t errlen)
{
    dfs_tlw *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->opt = *opt;
    if (opt->concepts)
        w->overrides = *opt->concepts;
    w->opt.concepts = NULL;
    if (!part_init(&w->main, w, err, errlen)) {
        dfs_tlw_free(w);
        return NULL;
    }
    w->consumer = (dfs_consumer){.user = w, .worker_begin = worker_begin, .on_batch = on_batch,
                                 .worker_end = worker_end};
    if (!opt->bounds_only)
        w->consumer.want = (dfs_want){.all_args = true, .extra = wanted_extra};
    return w;
}

void dfs_tlw_free(dfs_tlw *w)
{
    if (!w)
        return;
    part_free(&w->main);
    free(w->kept);
    free(w);
}

dfs_consumer *dfs_tlw_consumer(dfs_tlw *w)
{
    return &w->consumer;
}
