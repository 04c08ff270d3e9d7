/* record_value.c - the value readers of the record parser: arg keys and the consumers' wants,
 * strings (interned through the memo of recent strings), numbers, the scalar fields (id, pid,
 * tid, ts, dur, ph, type) past their inline fast forms (record_internal.h), args and members.
 *
 * Invariants: a reader returns the position after the value it read, or NULL when the record is
 * malformed there; it never reads past r->end for what it accepts (r->safe bounds look-ahead
 * loads only); it writes the event, r, p->argtmp and the string tables, never stream state.
 * Args are kept only when a consumer wants them (r->nargs, p->argtmp); what the parser itself
 * needs from args is read whatever the consumers want: the hashes, and the spans of the values
 * noted for record_finish.c. Args written without spaces take a compact loop that, when no
 * consumer wants args, only reads the hashes. Digit runs are found with SSE2 and converted eight
 * at a time. */
#include "parse/record_internal.h"

#include <stdlib.h>
#include <string.h>

#include "parse/json.h"

/* ---- keys ---------------------------------------------------------------------------------- */

int dfs_key_lookup(const char *k, size_t n)
{
#define K(lit, id) if (k[0] == lit[0] && KEY_IS(lit)) return id
    switch (n) {
    case 2: K("fd", DFS_KEY_FD); break;
    case 3:
        K("ret", DFS_KEY_RET); K("key", DFS_KEY_KEY); K("cwd", DFS_KEY_CWD); K("pid", DFS_KEY_PID);
        break;
    case 4:
        K("size", DFS_KEY_SIZE); K("step", DFS_KEY_STEP); K("name", DFS_KEY_NAME);
        K("type", DFS_KEY_TYPE);
        break;
    case 5:
        K("count", DFS_KEY_COUNT); K("fhash", DFS_KEY_FHASH); K("hhash", DFS_KEY_HHASH);
        K("level", DFS_KEY_LEVEL); K("p_idx", DFS_KEY_P_IDX); K("epoch", DFS_KEY_EPOCH);
        K("fname", DFS_KEY_FNAME); K("value", DFS_KEY_VALUE); K("batch", DFS_KEY_BATCH);
        K("state", DFS_KEY_STATE); K("shape", DFS_KEY_SHAPE); K("dtype", DFS_KEY_DTYPE);
        break;
    case 6: K("offset", DFS_KEY_OFFSET); K("stream", DFS_KEY_STREAM); break;
    case 7:
        K("dft_cnt", DFS_KEY_DFT_CNT); K("dur_sum", DFS_KEY_DUR_SUM); K("ret_sum", DFS_KEY_RET_SUM);
        break;
    case 8:
        K("size_sum", DFS_KEY_SIZE_SUM); K("hostname", DFS_KEY_HOSTNAME);
        K("step_num", DFS_KEY_STEP_NUM); K("cmd_hash", DFS_KEY_CMD_HASH);
        break;
    case 9:
        K("image_idx", DFS_KEY_IMAGE_IDX); K("exec_hash", DFS_KEY_EXEC_HASH);
        K("thread_id", DFS_KEY_THREAD_ID);
        break;
    case 10:
        K("image_size", DFS_KEY_IMAGE_SIZE); K("dependents", DFS_KEY_DEPENDENTS);
        K("sort_index", DFS_KEY_SORT_INDEX);
        break;
    case 11: K("correlation", DFS_KEY_CORRELATION); K("External id", DFS_KEY_EXTERNAL_ID); break;
    case 12: K("dependencies", DFS_KEY_DEPENDENCIES); break;
    default: break;
    }
#undef K
    return -1;
}

/* The interned key under which an arg is kept, or 0 when no consumer wants it. Top-level keys
 * that the model does not know (e.g. smdebug "Value", Chrome "bp") are kept only when named. */
static dfs_str want_lookup(const rec *r, int kid, const char *k, size_t n, bool top)
{
    const dfs_want_set *w = r->p->want;
    if (kid >= 0 && !top && (w->all || (w->keys & DFS_KEYBIT(kid))))
        return DFS_KEY_STR(kid);
    for (size_t i = 0; i < w->nextra; i++)
        if (w->extra_len[i] == n && memcmp(w->extra[i], k, n) == 0)
            return w->extra_id[i];
    if (w->all && !top)
        return kid >= 0 ? DFS_KEY_STR(kid) : dfs_strcache_intern(r->p->strs, k, n);
    return 0;
}

dfs_str rec_wanted_key(const rec *r, int kid, const char *k, size_t n, bool top)
{
    if (r->plain_want)
        return 0;
    if (!memchr(k, '\\', n))
        return want_lookup(r, kid, k, n, top);
    /* A key written with escapes ("s\u0069ze") is the key it decodes to, as nested keys are.
     * Rare, so the decoding may cost an allocation. */
    char local[256];
    char *buf = n <= sizeof local ? local : malloc(n);
    if (!buf) {
        r->p->nomem = true;
        return 0;
    }
    size_t len = dfs_json_unescape(k, n, buf);
    dfs_str key = want_lookup(r, top ? kid : dfs_key_lookup(buf, len), buf, len, top);
    if (buf != local)
        free(buf);
    return key;
}

/* ---- strings ------------------------------------------------------------------------------- */

static uint8_t text_hints(const char *t, size_t n)
{
#define IS(lit) (n == sizeof lit - 1 && memcmp(t, lit, sizeof lit - 1) == 0)
    if (IS("POSIX") || IS("STDIO"))
        return 3;
    if (IS("sys"))
        return 7;
    if (IS("MPI"))
        return 10;
    if (IS("dftracer"))
        return H_DFTRACER;
    if (IS("end"))
        return H_END;
    if (IS("cpu_op") || IS("kernel") || IS("ac2g") || IS("Operator") || IS("Runtime"))
        return H_KINETO;
    return 0;
#undef IS
}

/* Interns a string body through the memo of recent strings (bodies of at most 32 bytes without
 * escapes), else through the worker cache. *hints: text_hints of the string. */
dfs_str rec_intern_slow(rec *r, const char *body, size_t n, unsigned sf, uint8_t *hints)
{
    dfs_rec_memo *m = r->memo;
    if (!m || (sf & DFS_JF_ESCAPES) || n > 32 || r->safe - body < 32) {
        dfs_str id = dfs_json_intern(r->p, body, n, sf);
        size_t len;
        const char *t = dfs_strtab_get(r->p->table, id, &len);
        *hints = text_hints(t, len);
        return id;
    }
    /* The 32 bytes at body with the bytes past the string cleared (little-endian: the low
     * bytes of a word come first). */
    uint64_t w[4];
    for (size_t i = 0; i < 4; i++) {
        size_t left = n > 8 * i ? n - 8 * i : 0;
        w[i] = dfs_load64(body + 8 * i) & keep_bytes[left < 8 ? left : 8];
    }
    dfs_memo_str *e = rec_memo_slot(m, w, n);
    if (rec_memo_hit(e, w, n)) {
        *hints = e->hints;
        return e->id;
    }
    dfs_str id = dfs_strcache_intern(r->p->strs, body, n);
    *hints = text_hints(body, n);
    if (id || n == 0)
        *e = (dfs_memo_str){{w[0], w[1], w[2], w[3]}, (uint32_t)n, id, *hints};
    return id;
}

/* ---- numbers ------------------------------------------------------------------------------- */

/* A plain unsigned integer token over the whole u64 range (20 digits), or NULL. */
static inline const char *uint_token(const char *s, const char *end, uint64_t *v)
{
    const char *t = dfs_json_digits(s, end, v);
    if (t - s == 19 && t < end && dfs_is_digit(*t)) {
        uint64_t d = (uint64_t)(*t - '0');
        if (*v > (UINT64_MAX - d) / 10)
            return NULL;
        *v = *v * 10 + d;
        t++;
    }
    return t > s && rec_ends_token(t, end) ? t : NULL;
}

const char *rec_skip_value(rec *r, const char *s)
{
    const char *t = s + (*s == '-');
    if (r->safe - t >= 16 && dfs_is_digit(*t)) {
        unsigned n = dfs_digit_run16(t);
        if (n < 16 && t + n < r->end && rec_ends_token(t + n, r->end) && (n == 1 || *t != '0'))
            return t + n;
    }
    if (t < r->end && dfs_is_digit(*t)) {
        const char *d = t;
        while (t < r->end && dfs_is_digit(*t))
            t++;
        if (rec_ends_token(t, r->end) && (t - d == 1 || *d != '0'))
            return t;
    } else if (*s == '"') {
        return dfs_json_string_end_fast(s, r->end, r->safe, r->lenient, &r->jflags);
    }
    return dfs_json_skip(s, r->end, r->lenient, &r->jflags);
}

/* An integral number token: exact for integers, rounded for decimals ("68.0"). */
const char *rec_int_token(rec *r, const char *s, int64_t *out, bool *ok)
{
    uint64_t v;
    bool neg = *s == '-';
    const char *t = uint_token(s + neg, r->end, &v);
    if (t && v <= (uint64_t)INT64_MAX) {
        *out = neg ? -(int64_t)v : (int64_t)v;
        *ok = true;
        return t;
    }
    dfs_jnum num;
    const char *e = dfs_json_number(s, r->end, &num);
    if (!e)
        return NULL;
    *ok = false;
    if (num.nonfinite) {
        r->jflags |= DFS_JF_NONFINITE;
        return e;
    }
    if (num.is_int) {
        dfs_value val;
        dfs_jnum_value(&num, &val, &r->jflags);
        *out = val.type == DFS_V_UINT ? (int64_t)val.as.u : val.as.i;
        *ok = true;
        return e;
    }
    dfs_time_status ts = dfs_json_time_ns(s, (size_t)(e - s), 0, out);
    if (ts == DFS_TIME_OVERFLOW)
        r->jflags |= DFS_JF_INT_OVERFLOW;
    *ok = ts == DFS_TIME_OK;
    return e;
}

/* ---- scalar fields ------------------------------------------------------------------------- */

/* A string field (name, cat) whose value is not a string (the callers intern strings inline):
 * numbers keep their text (Horovod writes numeric names), anything else is skipped. */
const char *rec_str_value_slow(rec *r, const char *s, dfs_str *out)
{
    dfs_jnum num;
    const char *e = dfs_json_number(s, r->end, &num);
    if (e) {
        *out = dfs_strcache_intern(r->p->strs, s, (size_t)(e - s));
        return e;
    }
    return rec_skip_value(r, s);
}

/* A stable id for a non-numeric string pid/tid, derived from the string's content (not its
 * intern id) so it is the same for any thread count: the table keeps dfs_hash64 of every string,
 * which makes this equal to dfs_synthetic_id (model/ids.h) without hashing again. */
static int64_t synthetic_id(const rec *r, dfs_str s)
{
    uint64_t h = dfs_strtab_hash(r->p->table, s);
    return -(int64_t)(h >> 2) - 1;
}

/* pid / tid: a number, a numeric string (string_number) or any other string (synthetic id). */
const char *rec_pid_value_slow(rec *r, const char *s, unsigned snbit, int64_t *num,
                               dfs_str *str, uint32_t str_flag, uint32_t has_flag)
{
    if (*s == '"') {
        const char *body;
        size_t n;
        unsigned sf;
        const char *e = rec_string_body(r, s, &body, &n, &sf);
        if (!e)
            return NULL;
        dfs_value v;
        if (!(sf & DFS_JF_ESCAPES) && dfs_json_string_number(body, n, &v, &r->jflags) &&
            dfs_value_int(&v, num)) {
            r->strnum |= snbit;
            r->ev->flags |= has_flag;
            return e;
        }
        uint8_t hints;
        *str = rec_intern_hot(r, body, n, sf, &hints);
        *num = synthetic_id(r, *str);
        r->ev->flags |= has_flag | str_flag;
        return e;
    }
    if (*s == 'n')
        return rec_skip_value(r, s);
    bool ok;
    const char *e = rec_int_token(r, s, num, &ok);
    if (!e)
        return rec_skip_value(r, s);
    if (ok)
        r->ev->flags |= has_flag;
    return e;
}

const char *rec_id_value_slow(rec *r, const char *s)
{
    dfs_event *ev = r->ev;
    if (*s == '"') {
        const char *body;
        size_t n;
        unsigned sf;
        const char *e = rec_string_body(r, s, &body, &n, &sf);
        if (!e || (sf & DFS_JF_ESCAPES))
            return e;
        dfs_jnum num;
        if (n && dfs_json_number(body, body + n, &num) == body + n && num.is_int) {
            ev->id = num.neg ? 0 - num.mag : num.mag;
            ev->flags |= DFS_EF_HAS_ID;
            r->strnum |= SN_ID;
        } else if (n > 2 && body[0] == '0' && (body[1] | 0x20) == 'x' &&
                   dfs_json_hex_u64(body, n, &ev->id)) {
            ev->flags |= DFS_EF_HAS_ID; /* Chrome flow ids such as "0x402" */
        }
        return e;
    }
    uint64_t v;
    const char *t = dfs_json_digits(s, r->end, &v);
    if (t > s && rec_ends_token(t, r->end)) {
        ev->id = v;
        ev->flags |= DFS_EF_HAS_ID;
        return t;
    }
    dfs_jnum num;
    const char *e = dfs_json_number(s, r->end, &num);
    if (!e)
        return rec_skip_value(r, s);
    if (num.is_int) {
        if (num.overflow)
            r->jflags |= DFS_JF_INT_OVERFLOW;
        ev->id = num.neg ? 0 - num.mag : num.mag;
        ev->flags |= DFS_EF_HAS_ID;
    }
    return e;
}

/* A time field in units of 10^-scale s written as a number or a numeric string. */
const char *rec_time_value_slow(rec *r, const char *s, unsigned scale, unsigned snbit,
                                int64_t *out, uint32_t has_flag, bool *overflow)
{
    const char *text, *e;
    size_t n;
    if (*s == '"') {
        unsigned sf;
        e = rec_string_body(r, s, &text, &n, &sf);
        if (!e || (sf & DFS_JF_ESCAPES))
            return e;
    } else {
        uint64_t v;
        const char *t = dfs_json_digits(s, r->end, &v);
        if (t > s && rec_ends_token(t, r->end) && v <= (uint64_t)(INT64_MAX / pow10_i64[scale])) {
            *out = (int64_t)v * pow10_i64[scale];
            r->ev->flags |= has_flag;
            return t;
        }
        dfs_jnum num;
        e = dfs_json_number(s, r->end, &num);
        if (!e)
            return rec_skip_value(r, s); /* null, true, an object...: no time */
        if (num.nonfinite) { /* NaN or Infinity: no time, and damage like any unrepresentable one */
            *overflow = true;
            return e;
        }
        text = s;
        n = (size_t)(e - s);
    }
    int64_t v;
    switch (dfs_json_time_ns(text, n, scale, &v)) {
    case DFS_TIME_OK:
        *out = v;
        r->ev->flags |= has_flag;
        break;
    case DFS_TIME_OVERFLOW:
        *overflow = true;
        break;
    case DFS_TIME_INVALID:
        return e; /* a string that is not a number: no time */
    }
    if (*s == '"')
        r->strnum |= snbit;
    return e;
}

const char *rec_ph_value(rec *r, const char *s)
{
    if (*s == '"') {
        if (r->end - s >= 3 && s[2] == '"' && s[1] > ' ' && s[1] < 0x7F && s[1] != '\\') {
            r->ph = s[1];
            return s + 3;
        }
        const char *body;
        size_t n;
        unsigned sf;
        const char *e = rec_string_body(r, s, &body, &n, &sf);
        if (e)
            r->ph_bad = true;
        return e;
    }
    int64_t v;
    bool ok;
    const char *e = rec_int_token(r, s, &v, &ok);
    if (!e)
        return rec_skip_value(r, s);
    if (ok && v >= 0 && v <= 9) {
        r->ph = (char)('0' + v);
        r->ph_int = true;
    } else {
        r->ph_bad = true;
    }
    return e;
}


/* ---- args ---------------------------------------------------------------------------------- */

/* fhash / hhash: u64 or 16-bit integers, or hex strings (v1.0.6, v2). */
static const char *hash_value(rec *r, int kid, const char *k, size_t kn, const char *s,
                              uint64_t *out)
{
    dfs_value v = {0};
    const char *e;
    if (*s == '"') {
        const char *body;
        size_t n;
        unsigned sf;
        e = rec_string_body(r, s, &body, &n, &sf);
        if (e && !(sf & DFS_JF_ESCAPES) && dfs_json_hex_u64(body, n, out)) {
            v.type = *out > (uint64_t)INT64_MAX ? DFS_V_UINT : DFS_V_INT;
            v.flags = DFS_VF_FROM_STRING;
            v.as.u = *out;
        }
    } else {
        uint64_t x;
        unsigned len = r->safe - s >= 32 ? dfs_digits20(s, &x) : 0;
        const char *t = len && s + len < r->end && rec_ends_token(s + len, r->end)
                            ? s + len
                            : uint_token(s, r->end, &x);
        if (t) {
            e = t; /* the common case */
            *out = x;
            v.type = x > (uint64_t)INT64_MAX ? DFS_V_UINT : DFS_V_INT;
            v.as.u = x;
        } else {
            dfs_jnum num;
            e = dfs_json_number(s, r->end, &num);
            if (!e)
                return rec_skip_value(r, s);
            if (num.is_int && !num.neg) {
                *out = num.mag;
                dfs_jnum_value(&num, &v, &r->jflags);
            }
        }
    }
    if (e && v.type && !r->plain_want) {
        dfs_str key = rec_wanted_key(r, kid, k, kn, false);
        if (key)
            rec_push_arg(r, key, &v);
    }
    return e;
}

/* Args whose text the record needs at the end, whoever wants them. */
static int noted_arg(int kid, const char *k, size_t n)
{
    switch (kid) {
    case DFS_KEY_NAME: return SP_NAME;
    case DFS_KEY_VALUE: return SP_VALUE;
    case DFS_KEY_FNAME: return SP_FNAME;
    case DFS_KEY_HOSTNAME: return SP_HOST;
    case -1:
        if (n == 3 && KEY_IS("cfg"))
            return SP_CFG;
        if (n == 32 && KEY_IS("start_time_since_epoch_in_micros"))
            return SP_START;
        return -1;
    default: return -1;
    }
}

/* When no consumer wants args, only the keys the parser itself reads matter: is this one? */
static bool parser_key(const rec *r, const char *k, size_t n)
{
    if (n > 8)
        return n == 32 && KEY_IS("start_time_since_epoch_in_micros");
    if (r->safe - k >= 8)
        return rec_plain_key_kind(n ? dfs_load64(k) & keep_bytes[n] : 0, n) != PK_NONE;
    int kid = dfs_key_lookup(k, n); /* too close to the end of the buffer to load a word */
    return kid == DFS_KEY_FHASH || kid == DFS_KEY_HHASH || kid == DFS_KEY_P_IDX ||
           kid == DFS_KEY_LEVEL || kid == DFS_KEY_NAME || kid == DFS_KEY_VALUE ||
           kid == DFS_KEY_FNAME || kid == DFS_KEY_HOSTNAME || (n == 3 && KEY_IS("cfg"));
}

const char *rec_arg_value(rec *r, const char *k, size_t n, const char *s)
{
    if (r->plain_want && !parser_key(r, k, n))
        return rec_skip_value(r, s);
    int kid = dfs_key_lookup(k, n);
    if (kid == DFS_KEY_FHASH)
        return hash_value(r, kid, k, n, s, &r->ev->fhash);
    if (kid == DFS_KEY_HHASH) {
        r->dft_marker = true;
        return hash_value(r, kid, k, n, s, &r->ev->hhash);
    }
    if (kid == DFS_KEY_P_IDX || kid == DFS_KEY_LEVEL)
        r->dft_marker = true;
    int sp = noted_arg(kid, k, n);
    dfs_str key = rec_wanted_key(r, kid, k, n, false);
    const char *e;
    if (key) {
        unsigned opts = (r->lenient ? DFS_JV_LENIENT : 0) |
                        (rec_keeps_strings(kid) ? 0 : DFS_JV_NUMSTR);
        dfs_value v;
        e = dfs_json_value(r->p, s, r->end, opts, r->nargs, &v, &r->jflags);
        if (e && !rec_push_arg(r, key, &v))
            return NULL;
    } else {
        e = rec_skip_value(r, s);
    }
    if (e && sp >= 0)
        rec_note(r, (enum span_id)sp, s, e);
    return e;
}

/* After a member's value: ',' (returns the next key's position, *more = true) or '}'. */
const char *rec_after_member(rec *r, const char *s, bool *more)
{
    const char *end = r->end;
    if (s < end && *s != ',' && *s != '}')
        s = dfs_json_ws(s, end);
    if (s < end && *s == ',') {
        s++;
        if (s < end && *s != '"')
            s = dfs_json_ws(s, end);
        if (s >= end)
            return NULL;
        *more = *s != '}'; /* a trailing comma inside the object is tolerated */
        return *more ? s : s + 1;
    }
    *more = false;
    return s < end && *s == '}' ? s + 1 : NULL;
}

/* Reads `"key"` and the colon at s; returns the value's position. */
const char *rec_member_key(rec *r, const char *s, const char **k, size_t *kn)
{
    const char *end = r->end;
    if (s >= end || *s != '"')
        return NULL;
    unsigned sf;
    s = rec_string_body(r, s, k, kn, &sf);
    if (!s)
        return NULL;
    if (s < end && *s != ':')
        s = dfs_json_ws(s, end);
    if (s >= end || *s != ':')
        return NULL;
    s++;
    if (s < end && dfs_json_is_ws((unsigned char)*s))
        s = dfs_json_ws(s, end);
    return s < end ? s : NULL;
}

/* Args keys are short and plain: the inline string scan and a colon right after; anything
 * unusual (escapes, control or non-ASCII bytes, spaces) goes through rec_member_key. */
static inline const char *arg_key(rec *r, const char *s, const char **k, size_t *kn)
{
    unsigned sf = 0;
    const char *q = r->lenient ? NULL : dfs_json_string_end_fast(s, r->end, r->safe, false, &sf);
    if (q && !sf && q < r->end && *q == ':') {
        *k = s + 1;
        *kn = (size_t)(q - 1 - *k);
        return q + 1;
    }
    return rec_member_key(r, s, k, kn);
}

/* The length of a plain scalar at v (digits, or a string without escapes) when it is directly
 * followed by ',' or '}', else 0. */
HOT size_t plain_scalar(const rec *r, const char *v)
{
    if (r->safe - v < 17)
        return 0;
    if (dfs_is_digit(*v) || (*v == '-' && dfs_is_digit(v[1]))) {
        const char *d = v + (*v == '-');
        unsigned n = dfs_digit_run16(d);
        if (n == 16 || (n > 1 && *d == '0'))
            return 0;
        return (size_t)(d + n - v);
    }
    if (*v == '"') {
        unsigned sf = 0;
        const char *e = dfs_json_string_end_fast(v, r->end, r->safe, false, &sf);
        return e && !sf ? (size_t)(e - v) : 0;
    }
    return 0;
}

/* Args written without spaces: one tight loop over the `"key":value` pairs. When no consumer
 * wants args, only the hashes are read and the few other values the parser uses are noted;
 * otherwise each pair goes through rec_arg_value. Anything unusual goes to the general loop,
 * which starts over: returns NULL to say so. */
static const char *args_compact(rec *r, const char *s)
{
    s++;
    if (s >= r->end) /* bounds before bytes: a record may end anywhere (a cut line) */
        return NULL;
    if (*s == '}')
        return s + 1;
    for (;;) {
        unsigned sf = 0;
        if (r->safe - s < 17 || *s != '"')
            return NULL;
        const char *q = dfs_json_string_end_fast(s, r->end, r->safe, false, &sf);
        if (!q || sf || r->end - q < 2 || *q != ':') /* the ':' and a value byte in the record */
            return NULL;
        size_t kn = (size_t)(q - s - 2);
        const char *v = q + 1;
        if (!r->plain_want) {
            v = rec_arg_value(r, s + 1, kn, v);
            if (!v || v >= r->end)
                return NULL;
            if (*v == '}')
                return v + 1;
            if (*v != ',')
                return NULL;
            s = v + 1;
            continue;
        }
        uint64_t w = kn && kn <= 8 ? dfs_load64(s + 1) & keep_bytes[kn] : 0;
        int kind = rec_plain_key_kind(w, kn);
        size_t n;
        uint64_t h = 0;
        if (kind == PK_FHASH || kind == PK_HHASH) {
            n = r->safe - v >= 32 ? dfs_digits20(v, &h) : 0;
            if (!n)
                return NULL;
        } else {
            n = plain_scalar(r, v);
            if (!n || kind == PK_OTHER)
                return NULL;
            if (kind == PK_MARKER)
                r->dft_marker = true;
            else if (kind != PK_NONE)
                rec_note(r, kind == PK_NAME ? SP_NAME : kind == PK_VALUE ? SP_VALUE
                        : kind == PK_FNAME ? SP_FNAME : SP_HOST, v, v + n);
        }
        v += n;
        if (v >= r->end || (*v != '}' && *v != ','))
            return NULL;
        if (kind == PK_FHASH || kind == PK_HHASH) {
            /* only now that the hash is known to be a whole token (not "73.8") */
            *(kind == PK_FHASH ? &r->ev->fhash : &r->ev->hhash) = h;
            r->dft_marker |= kind == PK_HHASH;
        }
        if (*v == '}')
            return v + 1;
        s = v + 1;
    }
}

const char *rec_args_value(rec *r, const char *s)
{
    if (*s != '{')
        return rec_skip_value(r, s); /* args that are not an object carry nothing we use */
    if (!r->lenient && !(r->mode & DFS_REC_GENERAL)) {
        size_t nargs = r->nargs;
        const char *e = args_compact(r, s);
        if (e)
            return e;
        r->nargs = nargs; /* start over: drop what the compact loop kept */
    }
    s = dfs_json_ws(s + 1, r->end);
    if (s < r->end && *s == '}')
        return s + 1;
    for (bool more = true; more;) {
        if (s >= r->end || *s != '"')
            return NULL;
        const char *k;
        size_t kn;
        s = arg_key(r, s, &k, &kn);
        if (s && s < r->end && dfs_json_is_ws((unsigned char)*s))
            s = dfs_json_ws(s, r->end);
        if (s && s < r->end)
            s = rec_arg_value(r, k, kn, s);
        else
            s = NULL;
        if (s)
            s = rec_after_member(r, s, &more);
        if (!s)
            return NULL;
    }
    return s;
}
