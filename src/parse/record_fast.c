/* record_fast.c - the DFTracer layout fast paths of the record parser.
 *
 * DFTracer lines arrive at millions per second, nearly all in one key order:
 * {"id":..,"name":..,"cat":..[,"type":..],"pid":..,"tid":..[,"ts":..][,"dur":..],"ph":..
 * [,"args":{..}]}. Such records take a straight-line path, first from a structural index of their
 * quotes (rec_indexed_layout, when the record has no escapes and the buffer goes on past
 * it), else with sequential scans (rec_dftracer_layout); both are literal key compares
 * without dispatch, and read values with the readers of the general parser (record_internal.h,
 * record_value.c).
 *
 * Invariants: a path may look at bytes past the value it reads (up to r->safe, the end of the
 * caller's buffer), never past the record for what it accepts; anything unusual makes it give
 * up, and the caller (record.c) starts over on a reset record with the next path, so the results
 * never depend on which path ran (tests/unit/test_record.c checks this). bench/bench_framer.c
 * measures throughput. */
#include "parse/record_internal.h"

#include <string.h>

#include "parse/json.h"

/* ---- the sequential layout ------------------------------------------------------------------ */

/* The DFTracer layout, compact: {"id":..,"name":..,"cat":..[,"type":..],"pid":..,"tid":..
 * [,"ts":..][,"dur":..],"ph":..[,"args":{..}]}. Straight-line literal compares instead of the
 * key dispatch; the values go through the same functions as in member(). Returns the position
 * after the closing brace, or NULL as soon as the record looks different (the caller then
 * starts over with the general parser). */
const char *rec_dftracer_layout(rec *r, const char *s)
{
    const char *end = r->end;
    dfs_event *ev = r->ev;
    /* A value always follows a key: the literal must leave a byte for it (the value readers
     * look at *s; a record cut right after a key would be read past its end). */
#define EXPECT(lit) \
    (end - s > (ptrdiff_t)sizeof lit - 1 && memcmp(s, lit, sizeof lit - 1) == 0 ? \
         (s += sizeof lit - 1, true) : false)
#define TAKE(tk, call) \
    do { \
        r->seen |= SEEN(tk); \
        if (!(s = (call)) || s >= end) \
            return NULL; \
    } while (0)
    if (!EXPECT("{\"id\":"))
        return NULL;
    TAKE(TK_ID, rec_id_value(r, s));
    if (!EXPECT(",\"name\":"))
        return NULL;
    TAKE(TK_NAME, rec_str_value(r, s, &ev->name, &r->name_hints));
    if (!EXPECT(",\"cat\":"))
        return NULL;
    TAKE(TK_CAT, rec_str_value(r, s, &ev->cat, &r->cat_hints));
    if (EXPECT(",\"type\":"))
        TAKE(TK_TYPE, rec_type_value(r, s));
    if (!EXPECT(",\"pid\":"))
        return NULL;
    TAKE(TK_PID,
         rec_pid_value(r, s, SN_PID, &ev->pid, &ev->pid_str, DFS_EF_PID_STR, DFS_EF_HAS_PID));
    if (!EXPECT(",\"tid\":"))
        return NULL;
    TAKE(TK_TID,
         rec_pid_value(r, s, SN_TID, &ev->tid, &ev->tid_str, DFS_EF_TID_STR, DFS_EF_HAS_TID));
    if (EXPECT(",\"ts\":"))
        TAKE(TK_TS, rec_time_value(r, s, 3, SN_TS, &ev->ts, DFS_EF_HAS_TS, &r->ts_overflow));
    if (EXPECT(",\"dur\":"))
        TAKE(TK_DUR, rec_time_value(r, s, 3, SN_DUR, &ev->dur, DFS_EF_HAS_DUR, &r->dur_overflow));
    if (!EXPECT(",\"ph\":"))
        return NULL;
    TAKE(TK_PH, rec_ph_value(r, s));
    if (EXPECT(",\"args\":"))
        TAKE(TK_ARGS, rec_args_value(r, s));
    return *s == '}' ? s + 1 : NULL;
#undef TAKE
#undef EXPECT
}

/* ---- the indexed layout ------------------------------------------------------------------------
 *
 * The same DFTracer layout as rec_dftracer_layout, read from a structural index: one SIMD
 * pass lists the positions of the record's quotes (dfs_json_quote_index; records with escapes,
 * control or non-ASCII bytes are left to the other paths), which tells where each value must end
 * before it is read. The walk goes through that list with a counter (two quotes per key, two per
 * string value), so no position waits for the previous value to be decoded: values are read at
 * known lengths, or by the functions of member() (record.c) whose end must be the one the index
 * predicts, a well-predicted branch rather than a data dependency. Keys are checked as literals
 * (with their comma and colon) at the predicted places. The walk covers every byte of the record
 * with a literal, a value or a string body that holds no quote, so what this path accepts the
 * general parser reads the same way. */

/* Records longer than this take the other paths: they are rare, and the index costs stack. */
#define QIDX_RECORD_MAX 512

typedef struct qidx {
    const char *s;
    size_t len;
    size_t n;                         /* quotes */
    size_t i;                         /* the next quote not yet consumed */
    uint16_t q[QIDX_RECORD_MAX + 32]; /* their positions, then len - 1 as a sentinel */
} qidx;

/* The first n (<= 8) bytes of a string literal as a little-endian word, a constant for the
 * compiler (a memcpy into a local was built on the stack at run time). */
#define LIT_BYTE(lit, n, i) \
    ((i) < (n) ? (uint64_t)(unsigned char)(lit)[(i) < (n) ? (i) : 0] << (8 * (i)) : 0)
#define LIT_WORD(lit, n) \
    (LIT_BYTE(lit, n, 0) | LIT_BYTE(lit, n, 1) | LIT_BYTE(lit, n, 2) | LIT_BYTE(lit, n, 3) | \
     LIT_BYTE(lit, n, 4) | LIT_BYTE(lit, n, 5) | LIT_BYTE(lit, n, 6) | LIT_BYTE(lit, n, 7))

/* `,"key":` (at most 8 bytes) at pos, followed by at least one byte of the record. */
#define QX_KEY(x, pos, lit) \
    ((pos) + sizeof lit - 1 < (x)->len && \
     (dfs_load64((x)->s + (pos)) & keep_bytes[sizeof lit - 1]) == LIT_WORD(lit, sizeof lit - 1))

/* The predicted end of the value at v (< len): a string is the next quote pair; anything else
 * runs to the byte before the next quote (the comma before the next key) or, with the sentinel,
 * to the closing brace of the args before the record's own. 0 when the index rules the value
 * out (a last top-level value that is not a string, for instance, is left to the other paths). */
HOT size_t qx_value_end(qidx *x, size_t v)
{
    if (x->s[v] != '"') {
        size_t e = x->q[x->i] - 1u;
        return e > v ? e : 0;
    }
    if (x->i + 2 > x->n || x->q[x->i] != v)
        return 0;
    size_t e = x->q[x->i + 1] + 1u;
    x->i += 2;
    return e < x->len ? e : 0;
}

/* [v, e) holds 1 to 16 digits: their value, as rec_plain_number reads them. */
HOT bool qx_digits(const qidx *x, size_t v, size_t e, uint64_t *out)
{
    static const uint64_t pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                      100000000};
    const char *d = x->s + v;
    size_t n = e - v;
    if (n > 16 || dfs_digit_run16(d) < n)
        return false;
    *out = n <= 8 ? dfs_short_digits_value(d, (unsigned)n)
                  : dfs_eight_digits_value(dfs_load64(d)) * pow10[n - 8] +
                        dfs_short_digits_value(d + 8, (unsigned)(n - 8));
    return true;
}

/* name / cat: a string is known from the index and interned without another scan. */
HOT size_t qx_string(rec *r, qidx *x, size_t v, dfs_str *out, uint8_t *hints)
{
    size_t e = qx_value_end(x, v);
    if (!e)
        return 0;
    if (x->s[v] == '"')
        *out = rec_intern_hot(r, x->s + v + 1, e - v - 2, 0, hints);
    else if (rec_str_value_slow(r, x->s + v, out) != x->s + e)
        return 0;
    return e;
}

/* A plain number token of at most 15 digits filling [v, e) (what rec_skip_value reads
 * without its slow path), optionally negative, without leading zeros. */
HOT bool qx_plain_number(const qidx *x, size_t v, size_t e)
{
    const char *d = x->s + v + (x->s[v] == '-');
    size_t m = (size_t)(x->s + e - d);
    return m >= 1 && m <= 15 && dfs_digit_run16(d) >= m && (m == 1 || *d != '0');
}

/* One arg when no consumer wants args: the hashes are read, markers and noted values recorded,
 * everything else only checked. False sends the arg to rec_arg_value. */
HOT bool qx_plain_arg(rec *r, qidx *x, size_t k, size_t kn, size_t v, size_t e)
{
    const char *s = x->s;
    uint64_t w = kn && kn <= 8 ? dfs_load64(s + k) & keep_bytes[kn] : 0;
    int kind = rec_plain_key_kind(w, kn);
    if (kind == PK_FHASH || kind == PK_HHASH) {
        uint64_t h = 0;
        if (dfs_digits20(s + v, &h) != e - v)
            return false;
        *(kind == PK_FHASH ? &r->ev->fhash : &r->ev->hhash) = h;
        r->dft_marker |= kind == PK_HHASH;
        return true;
    }
    if (kind == PK_OTHER || (s[v] != '"' && !qx_plain_number(x, v, e)))
        return false;
    if (kind == PK_MARKER)
        r->dft_marker = true;
    else if (kind != PK_NONE)
        rec_note(r, kind == PK_NAME ? SP_NAME : kind == PK_VALUE ? SP_VALUE
                : kind == PK_FNAME ? SP_FNAME : SP_HOST, s + v, s + e);
    return true;
}

HOT dfs_str qx_arg_key(rec *r, const char *k, size_t kn, uint64_t w, bool *numstr);

/* A hash written as plain digits when consumers want args: what hash_value does with it. */
HOT bool qx_wanted_hash(rec *r, const qidx *x, int kind, size_t k, size_t kn, uint64_t w, size_t v,
                        size_t e)
{
    const char *s = x->s;
    uint64_t h = 0;
    if (dfs_digits20(s + v, &h) != e - v)
        return false;
    *(kind == PK_FHASH ? &r->ev->fhash : &r->ev->hhash) = h;
    r->dft_marker |= kind == PK_HHASH;
    bool numstr;
    dfs_str key = qx_arg_key(r, s + k, kn, w, &numstr);
    if (!key)
        return true;
    dfs_value val = {.type = h > (uint64_t)INT64_MAX ? DFS_V_UINT : DFS_V_INT};
    val.as.u = h;
    return rec_push_arg(r, key, &val);
}

/* The key under which the consumers want the arg [k, k + kn) (0: none), remembered for keys of
 * at most 16 bytes (w: the first eight, zero padded, when kn <= 8): nearly every record asks
 * again for the same few keys. Two slots per hash, so that two frequent keys of one hash (level
 * and ret) do not evict each other. *numstr: whether a string value under the key that is a
 * number becomes that number. */
HOT dfs_str qx_arg_key(rec *r, const char *k, size_t kn, uint64_t w, bool *numstr)
{
    uint64_t w2 = 0;
    if (kn > 8 && kn <= 16) { /* the indexed layout may read 64 bytes past the record */
        w = dfs_load64(k);
        w2 = dfs_load64(k + 8) & keep_bytes[kn - 8];
    }
    dfs_rec_memo *m = r->memo;
    dfs_memo_argkey *e = m && w ? &m->argkeys[((w ^ w2) * KEY_HASH_MUL) >> 58 & (DFS_MEMO_ARGKEYS - 2)]
                                : NULL;
    if (e && e[0].w[0] == w && e[0].w[1] == w2) {
        *numstr = e[0].numstr;
        return e[0].key;
    }
    if (e && e[1].w[0] == w && e[1].w[1] == w2) {
        *numstr = e[1].numstr;
        return e[1].key;
    }
    int kid = dfs_key_lookup(k, kn);
    dfs_str key = rec_wanted_key(r, kid, k, kn, false);
    *numstr = !rec_keeps_strings(kid);
    if (e) /* the first key of a hash keeps its slot; later ones share the other */
        e[e[0].w[0] != 0] = (dfs_memo_argkey){{w, w2}, key, *numstr};
    return key;
}

/* One arg when consumers want args: hashes, plain numbers under keys the parser has no use of
 * its own for, and such numbers written as strings where the key takes them as numbers, become
 * the values the general readers would make of them; plain strings no consumer wants are
 * skipped. False sends the arg to rec_arg_value. */
HOT bool qx_wanted_arg(rec *r, qidx *x, size_t k, size_t kn, size_t v, size_t e)
{
    const char *s = x->s;
    uint64_t w = kn && kn <= 8 ? dfs_load64(s + k) & keep_bytes[kn] : 0;
    int kind = rec_plain_key_kind(w, kn);
    bool str = s[v] == '"';
    if (kind == PK_FHASH || kind == PK_HHASH)
        return !str && qx_wanted_hash(r, x, kind, k, kn, w, v, e);
    if ((kind != PK_NONE && kind != PK_MARKER) || (!str && !qx_plain_number(x, v, e)))
        return false;
    r->dft_marker |= kind == PK_MARKER;
    if (kind == PK_MARKER && r->skip_markers)
        return true; /* skipped without asking the memo: DFTracer writes both in every record */
    bool numstr;
    dfs_str key = qx_arg_key(r, s + k, kn, w, &numstr);
    if (!key)
        return true; /* skipped: a plain string or number */
    /* "123": a number where the key takes one (DFS_JV_NUMSTR), as rec_arg_value reads it */
    if (str && (!numstr || !qx_plain_number(x, v + 1, e - 1)))
        return false;
    bool neg = s[v + str] == '-';
    uint64_t n = 0;
    if (!qx_digits(x, v + str + neg, e - str, &n))
        return false;
    dfs_value val = {.type = DFS_V_INT, .flags = str ? DFS_VF_FROM_STRING : 0};
    val.as.i = neg ? -(int64_t)n : (int64_t)n;
    return rec_push_arg(r, key, &val);
}

/* The args object at pos (x->s[pos] == '{'); returns the position after its closing brace,
 * or 0. */
static size_t qx_args(rec *r, qidx *x, size_t pos)
{
    const char *s = x->s;
    if (s[++pos] == '}')
        return pos + 1;
    for (;;) {
        if (x->i + 2 > x->n || x->q[x->i] != pos)
            return 0;
        size_t c = x->q[x->i + 1];
        x->i += 2;
        if (c + 2 >= x->len || s[c + 1] != ':')
            return 0;
        size_t k = pos + 1, kn = c - k, v = c + 2;
        size_t e = qx_value_end(x, v);
        if (!e)
            return 0;
        bool done = r->plain_want ? qx_plain_arg(r, x, k, kn, v, e)
                                  : qx_wanted_arg(r, x, k, kn, v, e);
        if (!done && rec_arg_value(r, s + k, kn, s + v) != s + e)
            return 0;
        if (s[e] == '}')
            return e + 1;
        if (s[e] != ',')
            return 0;
        pos = e + 1;
    }
}

/* id / pid / tid: plain digits at their known length, else the general reader. */
HOT size_t qx_id(rec *r, qidx *x, size_t v)
{
    size_t e = qx_value_end(x, v);
    uint64_t n;
    if (e && qx_digits(x, v, e, &n)) {
        r->ev->id = n;
        r->ev->flags |= DFS_EF_HAS_ID;
        return e;
    }
    return e && rec_id_value(r, x->s + v) == x->s + e ? e : 0;
}

HOT size_t qx_pid(rec *r, qidx *x, size_t v, unsigned snbit, int64_t *num, dfs_str *str,
                  uint32_t str_flag, uint32_t has_flag)
{
    size_t e = qx_value_end(x, v);
    uint64_t n;
    if (e && qx_digits(x, v, e, &n)) {
        *num = (int64_t)n;
        r->ev->flags |= has_flag;
        return e;
    }
    return e && rec_pid_value(r, x->s + v, snbit, num, str, str_flag, has_flag) == x->s + e ? e : 0;
}

/* ts / dur in µs. */
HOT size_t qx_time(rec *r, qidx *x, size_t v, unsigned snbit, int64_t *out,
                   uint32_t has_flag, bool *overflow)
{
    size_t e = qx_value_end(x, v);
    uint64_t n;
    if (e && qx_digits(x, v, e, &n) && n <= (uint64_t)(INT64_MAX / 1000)) {
        *out = (int64_t)n * 1000;
        r->ev->flags |= has_flag;
        return e;
    }
    return e && rec_time_value(r, x->s + v, 3, snbit, out, has_flag, overflow) == x->s + e ? e : 0;
}

HOT size_t qx_ph(rec *r, qidx *x, size_t v)
{
    size_t e = qx_value_end(x, v);
    const char *s = x->s + v;
    if (e == v + 3 && s[0] == '"' && s[1] > ' ' && s[1] < 0x7F) {
        r->ph = s[1];
        return e;
    }
    return e && rec_ph_value(r, s) == x->s + e ? e : 0;
}

HOT size_t qx_type(rec *r, qidx *x, size_t v)
{
    size_t e = qx_value_end(x, v);
    return e && rec_type_value(r, x->s + v) == x->s + e ? e : 0;
}

/* Takes the key literal at pos: v is where its value starts. */
#define QX_EXPECT(lit) (QX_KEY(&x, pos, lit) ? (v = pos + sizeof lit - 1, x.i += 2, true) : false)
/* Reads a value; its end becomes pos, 0 fails the path. */
#define QX_TAKE(tk, call) \
    do { \
        r->seen |= SEEN(tk); \
        if (!(pos = (call))) \
            return false; \
    } while (0)

bool rec_indexed_layout(rec *r, const char *s)
{
    qidx x;
    x.s = s;
    x.len = (size_t)(r->end - s);
    /* The index loads whole 64-byte groups (< len + 64), value readers up to 32 bytes past the
     * start of a value (< len + 32). */
    if (x.len > QIDX_RECORD_MAX || (size_t)(r->safe - s) < x.len + 64)
        return false;
    int nq = dfs_json_quote_index(s, x.len, x.q);
    if (nq < 0)
        return false;
    x.n = (size_t)nq;
    x.i = 0;
    x.q[x.n] = (uint16_t)(x.len - 1);
    dfs_event *ev = r->ev;
    size_t pos = 0, v = 0;
    if (!QX_EXPECT("{\"id\":"))
        return false;
    QX_TAKE(TK_ID, qx_id(r, &x, v));
    if (!QX_EXPECT(",\"name\":"))
        return false;
    QX_TAKE(TK_NAME, qx_string(r, &x, v, &ev->name, &r->name_hints));
    if (!QX_EXPECT(",\"cat\":"))
        return false;
    QX_TAKE(TK_CAT, qx_string(r, &x, v, &ev->cat, &r->cat_hints));
    if (QX_EXPECT(",\"type\":"))
        QX_TAKE(TK_TYPE, qx_type(r, &x, v));
    if (!QX_EXPECT(",\"pid\":"))
        return false;
    QX_TAKE(TK_PID, qx_pid(r, &x, v, SN_PID, &ev->pid, &ev->pid_str, DFS_EF_PID_STR,
                           DFS_EF_HAS_PID));
    if (!QX_EXPECT(",\"tid\":"))
        return false;
    QX_TAKE(TK_TID, qx_pid(r, &x, v, SN_TID, &ev->tid, &ev->tid_str, DFS_EF_TID_STR,
                           DFS_EF_HAS_TID));
    if (QX_EXPECT(",\"ts\":"))
        QX_TAKE(TK_TS, qx_time(r, &x, v, SN_TS, &ev->ts, DFS_EF_HAS_TS, &r->ts_overflow));
    if (QX_EXPECT(",\"dur\":"))
        QX_TAKE(TK_DUR, qx_time(r, &x, v, SN_DUR, &ev->dur, DFS_EF_HAS_DUR, &r->dur_overflow));
    if (!QX_EXPECT(",\"ph\":"))
        return false;
    QX_TAKE(TK_PH, qx_ph(r, &x, v));
    if (QX_EXPECT(",\"args\":")) {
        r->seen |= SEEN(TK_ARGS);
        if (s[v] != '{' || !(pos = qx_args(r, &x, v)))
            return false;
    }
    return pos + 1 == x.len && s[pos] == '}' && x.i == x.n;
}
#undef QX_TAKE
#undef QX_EXPECT
