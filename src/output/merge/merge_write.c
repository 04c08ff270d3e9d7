/* merge_write.c - the default merge's Chrome JSON writer, fed by the k-way merge of merge_spill.c
 * following the plan of merge_plan.c, and the output sink (gzip or not). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/json.h"
#include "output/merge/merge_internal.h"
#include "output/textout.h"
#include "parse/json.h"

typedef struct mwriter {
    mplan *plan;
    FILE *out;
    dfs_jw jw;                 /* at depth 0: a string escaper */
    dfs_arena arena;           /* the args of the record being written */
    dfs_merge_report *rep;
    bool first;                /* no record written yet */
    bool post_done;
} mwriter;

/* ---- output primitives: unlocked stdio (the writer is the stream's only user) ------------------- */

static void put_c(mwriter *w, char c)
{
    fputc_unlocked(c, w->out);
}

static void put_s(mwriter *w, const char *s)
{
    fwrite_unlocked(s, 1, strlen(s), w->out);
}

static void put_u64(mwriter *w, uint64_t v)
{
    char buf[24];
    int n = 0;
    do {
        buf[sizeof buf - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    fwrite_unlocked(buf + sizeof buf - n, 1, (size_t)n, w->out);
}

static void put_i64(mwriter *w, int64_t v)
{
    if (v < 0)
        put_c(w, '-');
    put_u64(w, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

/* Plain printable ASCII without quote or backslash: written as is; anything else goes through
 * the JSON writer's escaping. */
static void put_text(mwriter *w, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
            dfs_jw_str(&w->jw, NULL, s, n);
            return;
        }
    }
    put_c(w, '"');
    fwrite_unlocked(s, 1, n, w->out);
    put_c(w, '"');
}

/* ---- writing values ------------------------------------------------------------------------------------ */

/* µs with the ns as decimals when there are some. */
static void put_us(mwriter *w, int64_t ns)
{
    uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    unsigned frac = (unsigned)(mag % 1000);
    if (ns < 0)
        put_c(w, '-');
    put_u64(w, mag / 1000);
    if (!frac)
        return;
    w->rep->sub_us = true;
    char digits[4];
    snprintf(digits, sizeof digits, "%03u", frac);
    for (int i = 2; i > 0 && digits[i] == '0'; i--)
        digits[i] = '\0';
    put_c(w, '.');
    put_s(w, digits);
}

static void put_str(mwriter *w, dfs_str s)
{
    size_t n;
    const char *t = dfs_str_get(w->plan->run, s, &n);
    put_text(w, t ? t : "", t ? n : 0);
}

static void put_key(mwriter *w, bool *first, const char *key)
{
    if (!*first)
        put_c(w, ',');
    *first = false;
    put_text(w, key, strlen(key));
    put_c(w, ':');
}

static bool is_hash_key(dfs_str k)
{
    return k == DFS_KEY_STR(DFS_KEY_FHASH) || k == DFS_KEY_STR(DFS_KEY_HHASH);
}

/* A number that was written as a string stays a string (hashes in hexadecimal). */
static void put_number(mwriter *w, dfs_str key, const dfs_value *v)
{
    char buf[40];
    if (!(v->flags & DFS_VF_FROM_STRING) && v->type != DFS_V_FLOAT) {
        if (v->type == DFS_V_UINT)
            put_u64(w, v->as.u);
        else
            put_i64(w, v->as.i);
        return;
    }
    if (v->type == DFS_V_FLOAT) {
        if (!isfinite(v->as.f)) {
            put_s(w, "null");
            return;
        }
        mjson_float(v->as.f, buf);
    } else if ((v->flags & DFS_VF_FROM_STRING) && is_hash_key(key)) {
        snprintf(buf, sizeof buf, "%016llx", (unsigned long long)v->as.u);
    } else if (v->type == DFS_V_UINT) {
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)v->as.u);
    } else {
        snprintf(buf, sizeof buf, "%lld", (long long)v->as.i);
    }
    if (v->flags & DFS_VF_FROM_STRING)
        put_text(w, buf, strlen(buf));
    else
        put_s(w, buf);
}

static void put_value(mwriter *w, dfs_str key, const dfs_value *v);

static void put_items(mwriter *w, const dfs_value *v)
{
    bool map = v->type == DFS_V_MAP;
    put_c(w, map ? '{' : '[');
    for (uint32_t i = 0; i < v->len; i++) {
        if (i)
            put_c(w, ',');
        if (map) {
            put_str(w, v->as.items[i].key);
            put_c(w, ':');
        }
        put_value(w, v->as.items[i].key, &v->as.items[i].val);
    }
    put_c(w, map ? '}' : ']');
}

static void put_value(mwriter *w, dfs_str key, const dfs_value *v)
{
    switch (v->type) {
    case DFS_V_BOOL: put_s(w, v->as.i ? "true" : "false"); break;
    case DFS_V_INT: case DFS_V_UINT: case DFS_V_FLOAT: put_number(w, key, v); break;
    case DFS_V_STR: put_str(w, v->as.s); break;
    case DFS_V_LIST: case DFS_V_MAP: put_items(w, v); break;
    default: put_s(w, "null"); break;
    }
}

/* ---- writing records ---------------------------------------------------------------------------- */

static void begin_record(mwriter *w)
{
    put_s(w, w->first ? "\n" : ",\n");
    w->first = false;
}

static void put_pid(mwriter *w, bool *first, const moutlane *l)
{
    if (!l || !l->has_pid)
        return;
    put_key(w, first, "pid");
    if (l->is_str)
        put_str(w, l->pid_str);
    else
        put_i64(w, l->pid);
}

static void put_tid(mwriter *w, bool *first, uint32_t flags, int64_t tid, dfs_str tid_str)
{
    if (!(flags & DFS_EF_HAS_TID))
        return;
    put_key(w, first, "tid");
    if (flags & DFS_EF_TID_STR)
        put_str(w, tid_str);
    else
        put_i64(w, tid);
}

static void write_mark(mwriter *w, const mmark *mk)
{
    const mplan *p = w->plan;
    const moutlane *l = &p->out.v[mk->out];
    bool first = true;
    begin_record(w);
    put_c(w, '{');
    put_key(w, &first, "name");
    put_s(w, mk->kind == MARK_PROCESS_NAME ? "\"process_name\"" : "\"thread_sort_index\"");
    put_key(w, &first, "cat");
    put_s(w, "\"\"");
    put_key(w, &first, "ph");
    put_s(w, "\"M\"");
    put_pid(w, &first, l);
    put_tid(w, &first, mk->tflags, mk->tid, mk->tid_str);
    put_key(w, &first, "args");
    if (mk->kind == MARK_PROCESS_NAME) {
        char num[32];
        size_t n;
        const char *name = l->orig_is_str ? dfs_str_get(p->run, l->pid_str, &n) : NULL;
        if (!name || !n) {
            snprintf(num, sizeof num, l->orig_is_str ? "\"\"" : "%lld", (long long)l->orig_pid);
            name = num;
            n = strlen(num);
        }
        put_s(w, "{\"name\":");
        size_t need = n + strlen(p->files[l->file].base) + 8;
        char *t = malloc(need);
        int len = t ? snprintf(t, need, "%.*s (%s)", (int)n, name, p->files[l->file].base) : 0;
        put_text(w, t ? t : name, t ? (size_t)len : n);
        free(t);
        put_c(w, '}');
    } else {
        put_s(w, mk->kind == MARK_SORT_FIRST ? "{\"sort_index\":1}" : "{\"sort_index\":99999}");
    }
    put_c(w, '}');
    w->rep->inserted++;
}

/* The letter a Chrome viewer understands: DFTracer v2 integers become letters, an aggregated
 * DFTracer record (no Chrome equivalent) and an X without dur become instants. 0: leave out. */
static char chrome_ph(const dfs_event *ev)
{
    if (ev->ph == '?')
        return ev->phase == DFS_PHASE_COUNTER ? 'C' : 0;
    if (ev->phase == DFS_PHASE_AGGREGATED || (ev->phase == DFS_PHASE_INSTANT && (ev->ph == 'X' || ev->ph == '1')))
        return 'i';
    switch (ev->ph) {
    case '1': return 'X';
    case '2': return 'C';
    case '4': return 'M';
    default: return ev->ph;
    }
}

static bool value_is(const mwriter *w, const dfs_value *v, const char *lit)
{
    return v->type == DFS_V_STR && mstr_is(w->plan->run, v->as.s, lit);
}

/* An arg that is one of the top-level keys asked for as extras, and belongs at the top level
 * for this phase (the reader cannot tell a top-level "s" from an args.s). */
static bool top_level_extra(const mwriter *w, const dfs_event *ev, char ph, const dfs_arg *a)
{
    const mstrs *s = &w->plan->str;
    if (!a->key)
        return false;
    if (a->key == s->s)
        return ph == 'i' && (value_is(w, &a->val, "g") || value_is(w, &a->val, "p") ||
                             value_is(w, &a->val, "t"));
    if (a->key == s->bp)
        return ev->phase == DFS_PHASE_FLOW && value_is(w, &a->val, "e");
    if (a->key == s->bind_id || a->key == s->flow_in || a->key == s->flow_out)
        return ev->phase == DFS_PHASE_COMPLETE || ev->phase == DFS_PHASE_BEGIN ||
               ev->phase == DFS_PHASE_END || ev->phase == DFS_PHASE_ASYNC;
    return false;
}

static bool has_arg(const dfs_event *ev, dfs_str key)
{
    return key && dfs_event_arg(ev, key) != NULL;
}

/* The args of an event: all of them, minus the top-level extras, plus the resolved DFTracer
 * file and host names, with a renumbered lane's process name saying where it came from. */
static void put_args(mwriter *w, const dfs_event *ev, char ph, const moutlane *lane)
{
    const mplan *p = w->plan;
    bool first = true, rename = lane && lane->remapped && ev->phase == DFS_PHASE_METADATA &&
                               p->str.process_name && ev->name == p->str.process_name;
    put_c(w, '{');
    for (uint32_t i = 0; i < ev->nargs; i++) {
        const dfs_arg *a = &ev->args[i];
        if (top_level_extra(w, ev, ph, a))
            continue;
        if (!first)
            put_c(w, ',');
        first = false;
        put_str(w, a->key);
        put_c(w, ':');
        if (rename && a->key == DFS_KEY_STR(DFS_KEY_NAME) && a->val.type == DFS_V_STR) {
            size_t n;
            const char *t = dfs_str_get(p->run, a->val.as.s, &n);
            const char *base = p->files[ev->file].base;
            size_t need = n + strlen(base) + 4;
            char *s = malloc(need);
            if (s) {
                int len = snprintf(s, need, "%.*s (%s)", (int)n, t ? t : "", base);
                put_text(w, s, (size_t)len);
                free(s);
                continue;
            }
        }
        put_value(w, a->key, &a->val);
    }
    dfs_str fname = ev->fname, host = ev->host;
    if (!fname && ev->fhash)
        fname = dfs_run_resolve_hash(p->run, DFS_HASH_FILE, ev->file, ev->offset, ev->fhash);
    if (!host && ev->hhash)
        host = dfs_run_resolve_hash(p->run, DFS_HASH_HOST, ev->file, ev->offset, ev->hhash);
    if (fname && ev->fhash && !has_arg(ev, p->str.fname)) {
        put_key(w, &first, "fname");
        put_str(w, fname);
    }
    if (host && ev->hhash && !has_arg(ev, p->str.hostname)) {
        put_key(w, &first, "hostname");
        put_str(w, host);
    }
    put_c(w, '}');
}

/* An smdebug system-metric sample as a Chrome counter: one series per device (Name). */
static void put_metric_args(mwriter *w, const dfs_event *ev)
{
    const dfs_value *v = w->plan->str.value ? dfs_event_arg(ev, w->plan->str.value) : NULL;
    put_c(w, '{');
    if (ev->flags & DFS_EF_TID_STR)
        put_str(w, ev->tid_str);
    else
        put_s(w, "\"value\"");
    put_c(w, ':');
    if (v)
        put_value(w, 0, v);
    else
        put_s(w, "null");
    put_c(w, '}');
}

static void put_extras(mwriter *w, bool *first, const dfs_event *ev, char ph)
{
    for (uint32_t i = 0; i < ev->nargs; i++) {
        const dfs_arg *a = &ev->args[i];
        if (!top_level_extra(w, ev, ph, a))
            continue;
        size_t n;
        const char *k = dfs_str_get(w->plan->run, a->key, &n);
        if (!*first)
            put_c(w, ',');
        *first = false;
        put_text(w, k, n);
        put_c(w, ':');
        put_value(w, a->key, &a->val);
    }
}

static void put_times(mwriter *w, bool *first, const dfs_event *ev, char ph)
{
    const mplan *p = w->plan;
    if (ev->flags & DFS_EF_HAS_TS) {
        put_key(w, first, "ts");
        put_us(w, mplan_abs(p, ev->file, ev->ts));
    }
    if ((ev->flags & DFS_EF_HAS_DUR) && ph == 'X') {
        put_key(w, first, "dur");
        put_us(w, mplan_dur(p, ev->file, ev->dur));
    }
}

static void write_event(mwriter *w, const dfs_event *ev)
{
    const mplan *p = w->plan;
    const mfileplan *fp = &p->files[ev->file];
    dfs_merge_file *rf = &w->rep->files[ev->file];
    char ph = chrome_ph(ev);
    if (!ph || (fp->composer && mcomposer_junk(p->run, ev))) {
        rf->dropped++;
        w->rep->dropped++;
        return;
    }
    const moutlane *lane = mplan_lane(p, ev);
    bool first = true, metric = ev->ph == '?';
    begin_record(w);
    put_c(w, '{');
    put_key(w, &first, "name");
    put_str(w, ev->name);
    put_key(w, &first, "cat"); /* always: some readers (HTA) drop records without one */
    put_str(w, ev->cat);
    put_key(w, &first, "ph");
    put_c(w, '"');
    put_c(w, ph);
    put_c(w, '"');
    put_times(w, &first, ev, ph);
    put_pid(w, &first, lane);
    if (!metric)
        put_tid(w, &first, ev->flags, ev->tid, ev->tid_str);
    if (ev->flags & DFS_EF_HAS_ID) {
        bool shifted = ev->phase == DFS_PHASE_FLOW || ev->phase == DFS_PHASE_ASYNC;
        put_key(w, &first, "id");
        put_u64(w, ev->id + (shifted ? fp->id_shift : 0));
    }
    put_extras(w, &first, ev, ph);
    put_key(w, &first, "args");
    if (metric)
        put_metric_args(w, ev);
    else
        put_args(w, ev, ph, lane);
    put_c(w, '}');
    rf->events_out++;
    w->rep->events_out++;
}

static void write_post_marks(mwriter *w)
{
    if (w->post_done)
        return;
    w->post_done = true;
    for (size_t i = 0; i < w->plan->post.n; i++)
        write_mark(w, &w->plan->post.v[i]);
}

static int emit_record(void *ctx, const unsigned char *rec, size_t size)
{
    mwriter *w = ctx;
    dfs_arena_reset(&w->arena);
    dfs_event ev;
    if (!mdecode(rec, size, &ev, &w->arena) || ev.file >= w->plan->nfiles)
        return -2;
    if (ev.phase != DFS_PHASE_METADATA)
        write_post_marks(w);
    write_event(w, &ev);
    return ferror(w->out) ? -1 : 0;
}

static void write_trailer(mwriter *w)
{
    const mplan *p = w->plan;
    fprintf(w->out, "\n],\n\"displayTimeUnit\":\"%s\",\n\"otherData\":{\"generator\":\"dfscope %s merge\",\"inputs\":[",
            w->rep->sub_us ? "ns" : "ms", DFS_VERSION_STRING);
    for (size_t f = 0; f < p->nfiles; f++) {
        const dfs_file_info *fi = p->files[f].fi;
        fprintf(w->out, "%s\n{\"path\":", f ? "," : "");
        put_text(w, fi->path, strlen(fi->path));
        fprintf(w->out, ",\"dialect\":\"%s\",\"events\":%llu,\"clock_shift_ns\":%lld}",
                dfs_dialect_name(fi->dialect), (unsigned long long)w->rep->files[f].events_out,
                (long long)p->files[f].shift_ns);
    }
    put_s(w, "]}}\n");
}

dfs_status mwrite_default(dfs_merge *m, const dfs_run *run, FILE *out, dfs_merge_report *rep,
                          char *err, size_t errlen)
{
    mplan p;
    memset(&p, 0, sizeof p);
    if (!mreport_init(rep, run, "default") || !mplan_make(&p, m, run, rep)) {
        mplan_free(&p);
        snprintf(err, errlen, "out of memory");
        return DFS_ERR_NOMEM;
    }
    mplan_counts(&p, rep);
    mwriter w = {.plan = &p, .out = out, .rep = rep, .first = true};
    dfs_jw_init(&w.jw, out, false);
    dfs_arena_init(&w.arena, 64 << 10);
    fputs("{\"traceEvents\":[", out);
    for (size_t i = 0; i < p.pre.n; i++)
        write_mark(&w, &p.pre.v[i]);
    int rc = mstore_merge(&m->store, mplan_abs, &p, emit_record, &w);
    if (rc == 0) {
        write_post_marks(&w);
        write_trailer(&w);
    }
    rep->runs_spilled = m->store.runs_spilled;
    rep->bytes_spilled = m->store.bytes_spilled;
    rep->merge_passes = m->store.passes;
    dfs_arena_free(&w.arena);
    mplan_free(&p);
    dfs_status st = DFS_OK;
    if (rc == -2) {
        snprintf(err, errlen, "a temporary file was damaged while merging");
        st = DFS_ERR_IO;
    } else if (rc != 0 && m->store.err) {
        snprintf(err, errlen, "%s", m->store.errmsg);
        st = DFS_ERR_IO;
    } else if (rc != 0 || ferror(out)) {
        snprintf(err, errlen, "cannot write the output: %s", strerror(errno ? errno : EIO));
        st = DFS_ERR_IO;
    }
    return st;
}

/* ---- the output sink ---------------------------------------------------------------------------- */

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
    dfs_textout *o = cookie;
    for (size_t done = 0; done < size;) {
        size_t n = size - done < DFS_TEXTOUT_MAX_RECORD ? size - done : DFS_TEXTOUT_MAX_RECORD;
        dfs_textout_put(o, buf + done, n);
        done += n;
    }
    if (dfs_textout_error(o)) {
        errno = dfs_textout_error(o);
        return -1;
    }
    return (ssize_t)size;
}

static int sink_close(void *cookie)
{
    dfs_textout *o = cookie;
    int e = dfs_textout_finish(o);
    dfs_textout_free(o);
    if (e) {
        errno = e;
        return -1;
    }
    return 0;
}

FILE *dfs_merge_sink(int fd, bool gzip)
{
    dfs_textout *o = dfs_textout_new(fd, gzip, 0);
    if (!o)
        return NULL;
    cookie_io_functions_t io = {NULL, sink_write, NULL, sink_close};
    FILE *f = fopencookie(o, "w", io);
    if (!f)
        dfs_textout_free(o);
    return f;
}
