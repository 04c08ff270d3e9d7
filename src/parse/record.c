/* record.c - one JSON object to one dfs_event (spec/formats.md sections 4 to 9, 11, 12): the
 * entry point and the general parser.
 *
 * One pass over the object: each top-level key is dispatched on its bytes, values are converted
 * in place (exact integer times, string numbers, string pids), args are kept only when a
 * consumer wants them and are otherwise skipped without being built. Whatever the model needs
 * from args (hashes, metadata names and values, the v2 cfg) is noted as a span of the record
 * text and decoded at the end, once the whole record is known, since keys come in any order.
 * Stream state (definitions, names, clock, dialect, counts, problems) is only touched after the
 * record parsed completely (record_finish.c), so a failed strict parse can be retried leniently.
 *
 * Records in the DFTracer key order take the fast paths of record_fast.c first. Other records
 * take the general loop here, where the key of the same position in the previous record is
 * tried first; values are read by record_value.c. Every path starts from a reset record and
 * event, so the results never depend on which path ran (tests/unit/test_record.c checks this). */
#include "parse/record.h"

#include <string.h>

#include "parse/json.h"
#include "parse/record_internal.h"

/* ---- top-level keys ------------------------------------------------------------------------ */

static int top_key(const char *k, size_t n, unsigned mode)
{
    bool dasf = mode & DFS_REC_DASF_TEXT;
    switch (n) {
    case 2:
        if (k[0] == 'i' && k[1] == 'd') return TK_ID;
        if (k[0] == 't' && k[1] == 's') return TK_TS;
        if (k[0] == 'p' && k[1] == 'h') return TK_PH;
        break;
    case 3:
        if (KEY_IS("cat")) return TK_CAT;
        if (KEY_IS("pid")) return TK_PID;
        if (KEY_IS("tid")) return TK_TID;
        if (KEY_IS("dur")) return TK_DUR;
        break;
    case 4:
        if (KEY_IS("name")) return TK_NAME;
        if (KEY_IS("args")) return TK_ARGS;
        if (KEY_IS("type")) return TK_TYPE;
        if (KEY_IS("Type")) return TK_SM_TYPE;
        if (KEY_IS("Name")) return TK_SM_NAME;
        break;
    case 5:
        if (dasf && KEY_IS("phase")) return TK_D_PHASE;
        break;
    case 6:
        if (KEY_IS("NodeId")) return TK_SM_NODEID;
        break;
    case 8:
        if (dasf && KEY_IS("duration")) return TK_D_DURATION;
        break;
    case 9:
        if (KEY_IS("Dimension")) return TK_SM_DIMENSION;
        if (KEY_IS("Timestamp")) return TK_SM_TIMESTAMP;
        if (dasf && KEY_IS("timestamp")) return TK_D_TIMESTAMP;
        if (dasf && KEY_IS("thread_id")) return TK_D_THREAD;
        break;
    case 10:
        if (dasf && KEY_IS("process_id")) return TK_D_PROCESS;
        break;
    default:
        break;
    }
    return TK_OTHER;
}

/* Key prediction: does s start with the literal "key": of tk? (*len: the literal's length) */
static bool key_literal_at(const char *s, int tk, size_t *len)
{
#define L(lit) (*len = sizeof lit - 1, memcmp(s, lit, sizeof lit - 1) == 0)
    switch (tk) {
    case TK_ID: return L("\"id\":");
    case TK_NAME: return L("\"name\":");
    case TK_CAT: return L("\"cat\":");
    case TK_PID: return L("\"pid\":");
    case TK_TID: return L("\"tid\":");
    case TK_TS: return L("\"ts\":");
    case TK_DUR: return L("\"dur\":");
    case TK_PH: return L("\"ph\":");
    case TK_ARGS: return L("\"args\":");
    case TK_TYPE: return L("\"type\":");
    default: return false;
    }
#undef L
}

/* ---- top level ----------------------------------------------------------------------------- */

static const char *other_value(rec *r, const char *k, size_t n, const char *s)
{
    dfs_str key = rec_wanted_key(r, -1, k, n, true);
    if (!key)
        return rec_skip_value(r, s);
    dfs_value v;
    unsigned opts = (r->lenient ? DFS_JV_LENIENT : 0) | DFS_JV_NUMSTR;
    const char *e = dfs_json_value(r->p, s, r->end, opts, r->nargs, &v, &r->jflags);
    if (e && !rec_push_arg(r, key, &v))
        return NULL;
    return e;
}

/* smdebug system keys are only meaningful once the record is known to be a metric sample. */
static const char *noted_top(rec *r, const char *k, size_t n, const char *s, enum span_id sp)
{
    const char *e = other_value(r, k, n, s);
    if (e)
        rec_note(r, sp, s, e);
    return e;
}

static const char *dasf_phase_value(rec *r, const char *s)
{
    const char *body;
    size_t n;
    unsigned sf;
    if (*s != '"')
        return rec_skip_value(r, s);
    const char *e = rec_string_body(r, s, &body, &n, &sf);
    if (e)
        r->d_phase = n == 1 ? body[0] : '?';
    return e;
}

static const char *member(rec *r, int tk, const char *k, size_t n, const char *s)
{
    dfs_event *ev = r->ev;
    r->seen |= SEEN(tk);
    switch (tk) {
    case TK_ID: return rec_id_value(r, s);
    case TK_NAME: return rec_str_value(r, s, &ev->name, &r->name_hints);
    case TK_CAT: return rec_str_value(r, s, &ev->cat, &r->cat_hints);
    case TK_PID:
        return rec_pid_value(r, s, SN_PID, &ev->pid, &ev->pid_str, DFS_EF_PID_STR, DFS_EF_HAS_PID);
    case TK_TID:
        return rec_pid_value(r, s, SN_TID, &ev->tid, &ev->tid_str, DFS_EF_TID_STR, DFS_EF_HAS_TID);
    case TK_TS: return rec_time_value(r, s, 3, SN_TS, &ev->ts, DFS_EF_HAS_TS, &r->ts_overflow);
    case TK_DUR: return rec_time_value(r, s, 3, SN_DUR, &ev->dur, DFS_EF_HAS_DUR, &r->dur_overflow);
    case TK_PH: return rec_ph_value(r, s);
    case TK_ARGS: return rec_args_value(r, s);
    case TK_TYPE: return rec_type_value(r, s);
    case TK_SM_TYPE: return noted_top(r, k, n, s, SP_SM_TYPE);
    case TK_SM_DIMENSION: return noted_top(r, k, n, s, SP_SM_DIM);
    case TK_SM_NAME: return noted_top(r, k, n, s, SP_SM_NAME);
    case TK_SM_NODEID: return noted_top(r, k, n, s, SP_SM_NODE);
    case TK_SM_TIMESTAMP: return noted_top(r, k, n, s, SP_SM_TIME);
    /* legacy DASF writes X timestamps in epoch seconds but B/E ones in epoch milliseconds (a
     * writer bug, dasf-tasks.md §2); the phase may come later, so read as ms and scale X later */
    case TK_D_TIMESTAMP:
        return rec_time_value(r, s, 6, 0, &r->d_ts, DFS_EF_HAS_TS, &r->ts_overflow);
    case TK_D_DURATION: /* seconds */
        return rec_time_value(r, s, 9, 0, &r->d_dur, DFS_EF_HAS_DUR, &r->dur_overflow);
    case TK_D_PHASE: return dasf_phase_value(r, s);
    case TK_D_PROCESS:
        return rec_pid_value(r, s, 0, &ev->pid, &ev->pid_str, DFS_EF_PID_STR, DFS_EF_HAS_PID);
    case TK_D_THREAD:
        return rec_pid_value(r, s, 0, &ev->tid, &ev->tid_str, DFS_EF_TID_STR, DFS_EF_HAS_TID);
    default: return other_value(r, k, n, s);
    }
}

/* The key at s, trying first the key the previous record had at this position. Returns the
 * value's position and sets *tk, *k, *kn. */
static const char *top_member_key(rec *r, const char *s, size_t index, int *tk, const char **k,
                                  size_t *kn)
{
    dfs_rec_memo *m = r->memo;
    bool memo = m && index < DFS_MEMO_KEYS;
    size_t len;
    if (memo && m->order[index] && r->end - s >= 8 && key_literal_at(s, m->order[index], &len)) {
        *tk = m->order[index];
        *k = s + 1;
        *kn = len - 3;
        s += len;
        if (s < r->end && dfs_json_is_ws((unsigned char)*s))
            s = dfs_json_ws(s, r->end);
        return s < r->end ? s : NULL;
    }
    s = rec_member_key(r, s, k, kn);
    *tk = s ? top_key(*k, *kn, r->mode) : TK_OTHER;
    if (memo)
        m->order[index] = (uint8_t)(*tk <= TK_TYPE ? *tk : TK_OTHER);
    return s;
}

/* Parses the object [s, end); false when it is not one well-formed object. */
static bool parse_object(rec *r, const char *s)
{
    s = dfs_json_ws(s + 1, r->end);
    if (s < r->end && *s == '}') {
        r->empty = true;
        return dfs_json_ws(s + 1, r->end) == r->end;
    }
    size_t index = 0;
    for (bool more = true; more; index++) {
        int tk;
        const char *k;
        size_t kn;
        s = top_member_key(r, s, index, &tk, &k, &kn);
        if (s)
            s = member(r, tk, k, kn, s);
        if (s)
            s = rec_after_member(r, s, &more);
        if (!s)
            return false;
    }
    return s == r->end || dfs_json_ws(s, r->end) == r->end;
}

/* ---- the entry point ----------------------------------------------------------------------- */

static bool want_nothing(const dfs_want_set *w)
{
    return !w || (!w->keys && !w->all && !w->nextra);
}

/* Whether no consumer keeps the marker keys p_idx and level (any named key counts as maybe). */
static bool skips_markers(const dfs_want_set *w)
{
    return w && !w->all && !w->nextra && !(w->keys & (DFS_KEYBIT(DFS_KEY_P_IDX) | DFS_KEYBIT(DFS_KEY_LEVEL)));
}

static void start(rec *r, dfs_pctx *p, dfs_event *ev, const char *end, const char *safe,
                  uint64_t offset, unsigned mode, dfs_rec_memo *memo, bool lenient)
{
    memset(r, 0, offsetof(rec, spans));
    r->p = p;
    r->ev = ev;
    r->memo = memo;
    r->end = end;
    r->safe = safe > end ? safe : end;
    r->offset = offset;
    r->mode = mode;
    r->lenient = lenient;
    r->plain_want = want_nothing(p->want);
    r->skip_markers = !r->plain_want && skips_markers(p->want);
}

/* The layout fast path first (strict mode, plain records only), then the general parser. */
static bool parse_into(rec *r, dfs_pctx *p, dfs_event *ev, const char *s, const char *end,
                       const char *safe, uint64_t offset, unsigned mode, dfs_rec_memo *memo,
                       bool lenient)
{
    start(r, p, ev, end, safe, offset, mode, memo, lenient);
    if (lenient) {
        memset(ev, 0, sizeof *ev);
        return parse_object(r, s);
    }
    if (mode & DFS_REC_GENERAL) {
        memset(ev, 0, sizeof *ev);
        return parse_object(r, s);
    }
    if (!(mode & DFS_REC_DASF_TEXT)) {
        if (rec_indexed_layout(r, s))
            return true;
        start(r, p, ev, end, safe, offset, mode, memo, lenient);
        memset(ev, 0, sizeof *ev);
        const char *e = rec_dftracer_layout(r, s);
        if (e && (e == end || dfs_json_ws(e, end) == end))
            return true;
        start(r, p, ev, end, safe, offset, mode, memo, lenient);
        memset(ev, 0, sizeof *ev);
    }
    return parse_object(r, s);
}

dfs_rec_status dfs_parse_record_ex(dfs_pctx *p, const char *s, size_t len, size_t avail,
                                   uint64_t offset, unsigned mode, dfs_rec_memo *memo)
{
    const char *end = s + len, *safe = s + (avail > len ? avail : len);
    while (end > s && dfs_json_is_ws((unsigned char)end[-1]))
        end--;
    if (end == s || *s != '{')
        return DFS_REC_BAD;
    if (memo && (memo->table != p->table || memo->want != p->want)) {
        memset(memo, 0, sizeof *memo);
        memo->table = p->table;
        memo->want = p->want;
    }
    dfs_event *ev = dfs_batchbuf_push(p->batch);
    if (!ev) {
        p->nomem = true;
        return DFS_REC_BAD;
    }
    rec r;
    bool ok = !(mode & DFS_REC_LENIENT) &&
              parse_into(&r, p, ev, s, end, safe, offset, mode, memo, false);
    if (!ok && !(mode & DFS_REC_STRICT))
        ok = parse_into(&r, p, ev, s, end, safe, offset, mode, memo, true);
    if (!ok) {
        dfs_batchbuf_pop(p->batch);
        return DFS_REC_BAD;
    }
    if (r.empty) {
        dfs_batchbuf_pop(p->batch);
        rec_finish_empty(&r);
        return DFS_REC_EMPTY;
    }
    rec_finish_event(&r);
    return DFS_REC_EVENT;
}

dfs_rec_status dfs_parse_record(dfs_pctx *p, const char *text, size_t len, uint64_t offset)
{
    return dfs_parse_record_ex(p, text, len, len, offset, 0, NULL);
}
