/* record_finish.c - what the record parser derives once a record is known (keys come in any
 * order): the phase, exact times and their checks, the DFTracer type, the fields of smdebug system
 * metrics and DASF text records, metadata (hash definitions, process and thread names, clock
 * offsets, the v2 end record), hash references, the record's problems, the stream's dialect and
 * its counts.
 *
 * Invariants: this is the only place where a record touches the stream's state (definitions,
 * names, clock, dialect, counts, problems), and it runs only after the record parsed completely,
 * so a strict parse that fails can be retried leniently with nothing to undo. Problems are
 * counted once per record, whatever path parsed it. */
#include "parse/record_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "parse/json.h"

/* Records looked at for a dialect signature before settling on generic Chrome (finish). */
#define DIALECT_PATIENCE 4096

/* Durations above 7 days are absurd (spec section 11): 604,800,000,000 µs in ns. */
#define ABSURD_DUR_NS INT64_C(604800000000000)

static const vspan *span(const rec *r, enum span_id id)
{
    return (r->noted & (1u << id)) ? &r->spans[id] : NULL;
}

/* ---- problems ------------------------------------------------------------------------------ */

/* Counts a problem of the record; formats an example only while examples are still kept. */
static void problem(const rec *r, dfs_problem prob, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void problem(const rec *r, dfs_problem prob, const char *fmt, ...)
{
    dfs_stream *st = r->p->st;
    if (st->diag.counts[prob] >= st->diag.max_examples) {
        dfs_diag_count(&st->diag, prob, 1);
        return;
    }
    char detail[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    dfs_diag_add(&st->diag, prob, st->file, r->p->line, r->offset, "%s", detail);
}

/* ---- after the parse: phases, times, metadata, counts ---------------------------------------- */

static const char *str_text(const rec *r, dfs_str s, size_t *n)
{
    return dfs_strtab_get(r->p->table, s, n);
}

static bool str_is(const rec *r, dfs_str s, const char *lit)
{
    size_t n;
    const char *t = str_text(r, s, &n);
    return n == strlen(lit) && memcmp(t, lit, n) == 0;
}

static bool str_starts(const rec *r, dfs_str s, const char *lit)
{
    size_t n, m = strlen(lit);
    const char *t = str_text(r, s, &n);
    return n >= m && memcmp(t, lit, m) == 0;
}

static dfs_phase letter_phase(const rec *r, char c)
{
    switch (c) {
    case 'X': return DFS_PHASE_COMPLETE;
    case 'B': return DFS_PHASE_BEGIN;
    case 'E': return DFS_PHASE_END;
    case 'i': case 'I': case 'R': return DFS_PHASE_INSTANT;
    case 'C': return DFS_PHASE_COUNTER;
    case 'A': return DFS_PHASE_AGGREGATED;
    case 'M': return DFS_PHASE_METADATA;
    case 's': case 't': case 'f': return DFS_PHASE_FLOW;
    case 'b': case 'n': case 'e': case 'S': case 'T': case 'p': case 'F': return DFS_PHASE_ASYNC;
    case 'P': case 'N': case 'O': case 'D': case 'V': case 'v': case 'c': case '(': case ')':
    case '=':
        problem(r, DFS_PROB_IGNORED_PHASE, "ph '%c' is not analysed", c);
        return DFS_PHASE_OTHER;
    default:
        problem(r, DFS_PROB_UNKNOWN_PHASE, "unknown ph '%c'", c);
        return DFS_PHASE_OTHER;
    }
}

static dfs_phase v2_phase(const rec *r, char c)
{
    switch (c) {
    case '1': return DFS_PHASE_COMPLETE;
    case '2': return DFS_PHASE_COUNTER;
    case '3': return DFS_PHASE_AGGREGATED;
    case '4': return DFS_PHASE_METADATA;
    default:
        problem(r, DFS_PROB_UNKNOWN_PHASE, "unknown integer ph %c", c);
        return DFS_PHASE_OTHER;
    }
}

static bool is_smdebug_system(const rec *r)
{
    const uint32_t both = SEEN(TK_SM_DIMENSION) | SEEN(TK_SM_TIMESTAMP);
    return !(r->seen & SEEN(TK_PH)) && (r->seen & both) == both;
}

/* smdebug system metrics: name = Dimension (the metric), cat = Type (cpu, gpu...), pid = NodeId
 * (also the host), tid = Name (the device: cpu0, gpu1), ts = Timestamp in seconds. */
static void smdebug_fields(rec *r)
{
    dfs_event *ev = r->ev;
    uint8_t hints;
    if (span(r, SP_SM_TYPE))
        rec_str_value(r, r->spans[SP_SM_TYPE].s, &ev->cat, &hints);
    if (span(r, SP_SM_DIM))
        rec_str_value(r, r->spans[SP_SM_DIM].s, &ev->name, &hints);
    if (span(r, SP_SM_NAME))
        rec_pid_value(r, r->spans[SP_SM_NAME].s, 0, &ev->tid, &ev->tid_str, DFS_EF_TID_STR,
                      DFS_EF_HAS_TID);
    if (span(r, SP_SM_NODE))
        rec_pid_value(r, r->spans[SP_SM_NODE].s, 0, &ev->pid, &ev->pid_str, DFS_EF_PID_STR,
                      DFS_EF_HAS_PID);
    if (ev->pid_str)
        ev->host = ev->pid_str;
    if (span(r, SP_SM_TIME))
        rec_time_value(r, r->spans[SP_SM_TIME].s, 9, 0, &ev->ts, DFS_EF_HAS_TS, &r->ts_overflow);
}

static void set_phase(rec *r)
{
    dfs_event *ev = r->ev;
    if (r->mode & DFS_REC_DASF_TEXT) {
        char c = r->d_phase ? r->d_phase : '?';
        ev->ph = c;
        ev->phase = c == 'X' ? DFS_PHASE_COMPLETE : c == 'B' ? DFS_PHASE_BEGIN
                  : c == 'E' ? DFS_PHASE_END : c == 'I' ? DFS_PHASE_INSTANT : DFS_PHASE_OTHER;
        if (ev->phase == DFS_PHASE_OTHER)
            problem(r, DFS_PROB_UNKNOWN_PHASE, "DASF phase '%c'", c);
        return;
    }
    if (r->ph == 'X' && !r->ph_int) {
        ev->ph = 'X';
        ev->phase = DFS_PHASE_COMPLETE;
        return;
    }
    if (r->ph) {
        ev->ph = r->ph;
        ev->phase = (uint8_t)(r->ph_int ? v2_phase(r, r->ph) : letter_phase(r, r->ph));
        return;
    }
    ev->ph = '?';
    ev->phase = DFS_PHASE_OTHER;
    if (is_smdebug_system(r))
        ev->phase = DFS_PHASE_COUNTER; /* a metric sample */
    else
        problem(r, DFS_PROB_UNKNOWN_PHASE, r->ph_bad ? "ph is not one letter" : "no ph");
}

/* DASF text: the written timestamp is the task end for X records; units per phase (above). */
static void dasf_times(rec *r)
{
    dfs_event *ev = r->ev;
    ev->cat = dfs_strcache_intern(r->p->strs, "dasf", 4);
    if (ev->pid_str)
        ev->host = ev->pid_str; /* DASF process ids are host names */
    if (ev->flags & DFS_EF_HAS_DUR)
        ev->dur = r->d_dur;
    if (!(ev->flags & DFS_EF_HAS_TS))
        return;
    ev->ts = r->d_ts;
    bool ms = ev->phase == DFS_PHASE_BEGIN || ev->phase == DFS_PHASE_END;
    if (!ms && __builtin_mul_overflow(r->d_ts, 1000, &ev->ts)) { /* seconds, read as ms */
        ev->flags &= ~DFS_EF_HAS_TS;
        r->ts_overflow = true;
        return;
    }
    if (ev->phase == DFS_PHASE_COMPLETE && (ev->flags & DFS_EF_HAS_DUR) &&
        __builtin_sub_overflow(ev->ts, r->d_dur, &ev->ts)) {
        ev->flags &= ~DFS_EF_HAS_TS;
        r->ts_overflow = true;
    }
}

static void check_times(rec *r)
{
    dfs_event *ev = r->ev;
    if (r->ts_overflow || r->dur_overflow) {
        ev->flags |= DFS_EF_BAD_TIME;
        problem(r, DFS_PROB_TIME_OVERFLOW, "%s outside the int64 ns range",
                r->ts_overflow ? "ts" : "dur");
    }
    if (ev->phase == DFS_PHASE_COMPLETE && !(ev->flags & DFS_EF_HAS_DUR) && !r->dur_overflow) {
        problem(r, DFS_PROB_X_WITHOUT_DUR, "complete event without dur");
        ev->phase = DFS_PHASE_INSTANT;
    }
    if (!(ev->flags & DFS_EF_HAS_DUR))
        return;
    if (ev->dur < 0) {
        ev->flags |= DFS_EF_BAD_TIME;
        problem(r, DFS_PROB_NEGATIVE_DUR, "dur %lld ns", (long long)ev->dur);
    } else if (ev->dur > ABSURD_DUR_NS) {
        ev->flags |= DFS_EF_BAD_TIME;
        problem(r, DFS_PROB_ABSURD_DUR, "dur %lld us is over 7 days", (long long)(ev->dur / 1000));
    }
    /* An aggregated record's dur is a sum, not a span: it has no end. */
    int64_t end;
    if ((ev->flags & (DFS_EF_HAS_TS | DFS_EF_BAD_TIME)) == DFS_EF_HAS_TS && ev->phase != DFS_PHASE_AGGREGATED &&
        !dfs_span_end(ev->ts, ev->dur, &end)) {
        ev->flags |= DFS_EF_BAD_TIME;
        problem(r, DFS_PROB_TIME_OVERFLOW, "ts + dur outside the int64 ns range");
    }
}

static void set_type(rec *r)
{
    if (!r->type_int)
        r->ev->type = r->cat_hints & H_TYPE; /* inferred from cat */
    else if (r->type_bad)
        problem(r, DFS_PROB_UNKNOWN_TYPE, "unknown DFTracer type");
}

/* A noted arg value that is a string: its interned content, or 0. */
static dfs_str span_string(rec *r, enum span_id id)
{
    const vspan *v = span(r, id);
    if (!v || *v->s != '"')
        return 0;
    unsigned sf = 0;
    const char *e = dfs_json_string_end(v->s, v->e, r->lenient, &sf);
    if (!e)
        return 0;
    return dfs_json_intern(r->p, v->s + 1, (size_t)(e - 1 - (v->s + 1)), sf);
}

static bool span_hash(const rec *r, enum span_id id, uint64_t *out)
{
    const vspan *v = span(r, id);
    if (!v)
        return false;
    if (*v->s == '"')
        return dfs_json_hex_u64(v->s + 1, (size_t)(v->e - v->s - 2), out);
    dfs_jnum num;
    if (dfs_json_number(v->s, v->e, &num) != v->e || !num.is_int || num.neg || num.overflow)
        return false;
    *out = num.mag;
    return true;
}

/* A time in µs written as a number or a numeric string, to ns. */
static bool span_time_us(const rec *r, enum span_id id, int64_t *out)
{
    const vspan *v = span(r, id);
    if (!v)
        return false;
    const char *s = v->s, *e = v->e;
    if (*s == '"') {
        s++;
        e--;
    }
    return e > s && dfs_json_time_ns(s, (size_t)(e - s), 3, out) == DFS_TIME_OK;
}

static void set_clock_offset(rec *r, enum span_id id)
{
    int64_t ns;
    if (span_time_us(r, id, &ns)) {
        r->p->st->has_clock_offset = true;
        r->p->st->clock_offset_ns = ns;
    }
}

static void dftracer_hash_def(rec *r, dfs_hash_kind kind)
{
    uint64_t hash;
    dfs_str s = span_string(r, SP_NAME);
    if (s && span_hash(r, SP_VALUE, &hash))
        dfs_stream_define(r->p->st, kind, hash, s, r->offset, r->p->line);
}

static void name_def(rec *r, bool is_thread)
{
    dfs_str s = span_string(r, SP_NAME);
    if (!s)
        return;
    dfs_namedef d = {r->ev->pid, r->ev->tid, s, is_thread};
    dfs_vec_push(&r->p->st->names, d);
}

static bool is_start_time_name(rec *r)
{
    dfs_str s = span_string(r, SP_NAME);
    return s && str_is(r, s, "start_time_since_epoch_in_micros");
}

static void metadata_record(rec *r)
{
    size_t n;
    const char *name = str_text(r, r->ev->name, &n);
    if (n == 2 && name[1] == 'H' && (name[0] == 'F' || name[0] == 'H' || name[0] == 'S')) {
        dftracer_hash_def(r, name[0] == 'F' ? DFS_HASH_FILE
                           : name[0] == 'H' ? DFS_HASH_HOST : DFS_HASH_STRING);
        return;
    }
    bool process = n == 12 && memcmp(name, "process_name", 12) == 0;
    bool thread = n == 11 && memcmp(name, "thread_name", 11) == 0;
    if (process && span(r, SP_START))
        set_clock_offset(r, SP_START); /* smdebug framework start record */
    else if (process && span(r, SP_VALUE) && is_start_time_name(r))
        set_clock_offset(r, SP_VALUE); /* the older form of the same record */
    else if (process || thread)
        name_def(r, thread);
}

/* The v2 `end` record closes the file and may change the time unit (spec section 5.7). */
static void end_record(rec *r)
{
    dfs_stream *st = r->p->st;
    if (r->ph_int)
        st->saw_close = true;
    const vspan *cfg = span(r, SP_CFG);
    if (!cfg)
        return;
    const char *tm = dfs_json_object_get(cfg->s, cfg->e, "time_metric", 11);
    if (!tm || *tm != '"')
        return;
    static const struct { const char *name; int32_t num, den; } units[] = {
        {"\"NS\"", 1, 1000}, {"\"US\"", 1, 1}, {"\"MS\"", 1000, 1}, {"\"SEC\"", 1000000, 1},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t n = strlen(units[i].name);
        if ((size_t)(cfg->e - tm) >= n && memcmp(tm, units[i].name, n) == 0) {
            st->scale_num = units[i].num;
            st->scale_den = units[i].den;
        }
    }
}

/* The nearest preceding definition in the stream, remembered for the next record: most
 * references of a file repeat the host hash and often the file hash. */
static dfs_str resolve(rec *r, dfs_hash_kind kind, uint64_t hash)
{
    dfs_stream *st = r->p->st;
    dfs_rec_memo *m = r->memo;
    if (!m)
        return dfs_stream_resolve(st, kind, hash);
    if (m->stream != st || m->defs_seen != st->defs.n) {
        memset(m->hash, 0, sizeof m->hash);
        m->stream = st;
        m->defs_seen = st->defs.n;
    }
    if (m->hash[kind] != hash) {
        m->hash[kind] = hash;
        m->resolved[kind] = dfs_stream_resolve(st, kind, hash);
    }
    return m->resolved[kind];
}

static void resolve_refs(rec *r)
{
    dfs_event *ev = r->ev;
    dfs_stream *st = r->p->st;
    if (span(r, SP_FNAME))
        ev->fname = span_string(r, SP_FNAME); /* 2023: names in clear */
    if (span(r, SP_HOST))
        ev->host = span_string(r, SP_HOST);
    if (ev->fhash) {
        dfs_str s = resolve(r, DFS_HASH_FILE, ev->fhash);
        if (s)
            ev->fname = s;
        else
            st->unresolved_refs++;
    }
    if (ev->hhash) {
        dfs_str s = resolve(r, DFS_HASH_HOST, ev->hhash);
        if (s)
            ev->host = s;
        else
            st->unresolved_refs++;
    }
}

static void string_problems(const rec *r)
{
    if (r->jflags & DFS_JF_CONTROL)
        problem(r, DFS_PROB_CONTROL_CHAR, "raw control byte in a string");
    if (r->jflags & DFS_JF_BAD_UTF8)
        problem(r, DFS_PROB_INVALID_UTF8, "invalid UTF-8 in a string");
    if (r->jflags & DFS_JF_REPAIRED)
        problem(r, DFS_PROB_REPAIRED_QUOTE, "unescaped quote or backslash taken literally");
    if (r->jflags & DFS_JF_INT_OVERFLOW)
        problem(r, DFS_PROB_INT_OVERFLOW, "integer beyond 64 bits saturated");
    if (r->jflags & DFS_JF_NONFINITE)
        problem(r, DFS_PROB_NONFINITE_NUMBER, "NaN or Infinity");
}

static void record_problems(rec *r)
{
    if (r->jflags & ~DFS_JF_ESCAPES)
        string_problems(r);
    if (r->strnum)
        problem(r, DFS_PROB_STRING_NUMBER, "number written as a string");
    bool has_cat = (r->seen & SEEN(TK_CAT)) || (r->mode & DFS_REC_DASF_TEXT) ||
                   (is_smdebug_system(r) && (r->seen & SEEN(TK_SM_TYPE)));
    if (!has_cat)
        dfs_diag_count(&r->p->st->diag, DFS_PROB_MISSING_CAT, 1);
}

static void ts_order(rec *r)
{
    dfs_event *ev = r->ev;
    dfs_stream *st = r->p->st;
    if (ev->phase != DFS_PHASE_COMPLETE ||
        (ev->flags & (DFS_EF_BAD_TIME | DFS_EF_HAS_TS)) != DFS_EF_HAS_TS)
        return;
    if (st->have_last_ts && ev->ts < st->last_ts)
        problem(r, DFS_PROB_TS_REGRESSION, "ts goes back %lld us",
                (long long)((st->last_ts - ev->ts) / 1000));
    st->last_ts = ev->ts;
    st->have_last_ts = true;
}

static bool all_digits(const rec *r, dfs_str s)
{
    size_t n;
    const char *t = str_text(r, s, &n);
    for (size_t i = 0; i < n; i++)
        if (t[i] < '0' || t[i] > '9')
            return false;
    return n > 0;
}

/* The dialect this record tells (spec section 1), or UNKNOWN when it looks generic. */
static dfs_dialect record_dialect(rec *r)
{
    dfs_event *ev = r->ev;
    bool meta = ev->phase == DFS_PHASE_METADATA;
    if (r->mode & DFS_REC_DASF_TEXT)
        return DFS_DIALECT_DASF;
    if (is_smdebug_system(r))
        return DFS_DIALECT_SMDEBUG_SYSTEM;
    if ((r->strnum & SN_TS) && (r->strnum & (SN_ID | SN_PID | SN_TID)))
        return DFS_DIALECT_DFTRACER_2023;
    if (r->ph_int || r->type_int)
        return DFS_DIALECT_DFTRACER_V2;
    if ((r->ph == 'X' || r->ph == 'M') && (r->dft_marker || (r->cat_hints & H_DFTRACER)))
        return DFS_DIALECT_DFTRACER_V1;
    bool process_name = meta && str_is(r, ev->name, "process_name");
    if (process_name && (span(r, SP_START) || (span(r, SP_VALUE) && is_start_time_name(r))))
        return DFS_DIALECT_SMDEBUG_FRAMEWORK;
    if ((meta && (str_is(r, ev->name, "global_rank") ||
                  str_is(r, ev->name, "clock_sync_timestamp_us"))) ||
        ((ev->phase == DFS_PHASE_BEGIN || ev->phase == DFS_PHASE_END) &&
         str_starts(r, ev->name, "event/")))
        return DFS_DIALECT_COMPOSER;
    if (r->cat_hints & H_KINETO)
        return DFS_DIALECT_KINETO;
    if (process_name) {
        dfs_str s = span_string(r, SP_NAME);
        if (s && (str_starts(r, s, "/host:") || str_starts(r, s, "/device:")))
            return DFS_DIALECT_TF_PROFILER;
    }
    if (str_starts(r, ev->name, "NEGOTIATE_") || str_is(r, ev->name, "CYCLE_START") ||
        (!(r->seen & SEEN(TK_TID)) && all_digits(r, ev->name)))
        return DFS_DIALECT_HOROVOD;
    return DFS_DIALECT_UNKNOWN;
}

static void update_dialect(rec *r)
{
    dfs_stream *st = r->p->st;
    dfs_dialect d = record_dialect(r);
    if (d == DFS_DIALECT_UNKNOWN)
        return;
    st->dialect = d;
    if (d == DFS_DIALECT_HOROVOD || d == DFS_DIALECT_TF_PROFILER)
        st->relative_time = true;
}

static void count_record(rec *r)
{
    dfs_stream *st = r->p->st;
    if (r->mode & DFS_REC_RECOVERED) {
        st->recovered++;
        return;
    }
    st->records++;
    st->phase_counts[r->ev->phase]++;
    st->ph_written[(unsigned char)r->ev->ph & 0x7F]++;
}

static bool keep_args(rec *r)
{
    dfs_arg *a = dfs_arena_alloc(&r->p->batch->pool, r->nargs * sizeof *a);
    if (!a)
        return false;
    memcpy(a, r->p->argtmp, r->nargs * sizeof *a);
    r->ev->args = a;
    r->ev->nargs = (uint32_t)r->nargs;
    return true;
}

void rec_finish_event(rec *r)
{
    dfs_event *ev = r->ev;
    dfs_stream *st = r->p->st;
    ev->offset = r->offset;
    ev->file = st->file;
    set_phase(r);
    if (r->mode & DFS_REC_DASF_TEXT)
        dasf_times(r);
    else if (is_smdebug_system(r))
        smdebug_fields(r);
    check_times(r);
    set_type(r);
    if (ev->phase == DFS_PHASE_METADATA)
        metadata_record(r);
    else if ((r->name_hints & H_END) && (r->cat_hints & H_DFTRACER))
        end_record(r);
    resolve_refs(r);
    record_problems(r);
    ts_order(r);
    if (st->dialect == DFS_DIALECT_UNKNOWN && st->records < DIALECT_PATIENCE)
        update_dialect(r);
    count_record(r);
    if (r->nargs && !keep_args(r))
        ev->nargs = 0;
}

void rec_finish_empty(rec *r)
{
    dfs_stream *st = r->p->st;
    problem(r, DFS_PROB_EMPTY_RECORD, "{}");
    if (r->mode & DFS_REC_RECOVERED) {
        st->recovered++;
        return;
    }
    st->records++;
    st->phase_counts[DFS_PHASE_OTHER]++;
    st->ph_written['?']++;
}
