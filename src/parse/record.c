/* record.c - one JSON object to one dfs_event (spec/formats.md sections 4 to 9, 11, 12).
 *
 * One pass over the object: each top-level key is dispatched on its bytes, values are converted
 * in place (exact integer times, string numbers, string pids), args are kept only when a
 * consumer wants them and are otherwise skipped without being built. Whatever the model needs
 * from args (hashes, metadata names and values, the v2 cfg) is noted as a span of the record
 * text and decoded at the end, once the whole record is known, since keys come in any order.
 * Stream state (definitions, names, clock, dialect, counts, problems) is only touched after the
 * record parsed completely, so a failed strict parse can be retried leniently.
 *
 * Speed (DFTracer lines arrive at millions per second): records in the DFTracer key order
 * take a straight-line path, first from a structural index of their quotes (indexed_layout,
 * when the record has no escapes and the buffer goes on past it), else with sequential scans
 * (dftracer_layout); both are literal key compares without dispatch. Other records take the
 * general loop, where the key of the same position in the previous record is tried first.
 * Args written without spaces go through a compact loop that, when no consumer wants args,
 * only reads the hashes. Digit runs are found with SSE2 and converted eight at a
 * time; names and categories are found in a small memo of recent strings before the worker's
 * string cache. The fast paths may look at bytes past the value they read (up to r->safe, the
 * end of the caller's buffer), never past the record for what they accept; anything unusual
 * falls back to the general code, so the results never depend on which path ran
 * (tests/unit/test_record.c checks this). bench/bench_framer.c measures throughput. */
#include "parse/record.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "parse/json.h"

/* Records looked at for a dialect signature before settling on generic Chrome (finish). */
#define DIALECT_PATIENCE 4096

/* Durations above 7 days are absurd (spec section 11): 604,800,000,000 µs in ns. */
#define ABSURD_DUR_NS INT64_C(604800000000000)

enum top_key {
    TK_OTHER, TK_ID, TK_NAME, TK_CAT, TK_PID, TK_TID, TK_TS, TK_DUR, TK_PH, TK_ARGS, TK_TYPE,
    /* smdebug system metrics */
    TK_SM_TYPE, TK_SM_NAME, TK_SM_DIMENSION, TK_SM_NODEID, TK_SM_TIMESTAMP,
    /* DASF text records */
    TK_D_TIMESTAMP, TK_D_DURATION, TK_D_PHASE, TK_D_PROCESS, TK_D_THREAD,
};
#define SEEN(tk) (1u << (tk))

/* Which of id/pid/tid/ts/dur were written as numeric strings. */
enum { SN_ID = 1, SN_PID = 2, SN_TID = 4, SN_TS = 8, SN_DUR = 16 };

/* What the parser needs to know about a name or category, derived once per distinct string. */
enum {
    H_TYPE = 0x0F,     /* the DFTracer type a category implies (POSIX/STDIO 3, sys 7, MPI 10) */
    H_DFTRACER = 0x10, /* "dftracer" */
    H_END = 0x20,      /* "end" */
    H_KINETO = 0x40,   /* a category only Kineto writes */
};

/* Values noted for the end of the parse. */
enum span_id {
    SP_NAME, SP_VALUE, SP_CFG, SP_FNAME, SP_HOST, SP_START,  /* args */
    SP_SM_TYPE, SP_SM_NAME, SP_SM_DIM, SP_SM_NODE, SP_SM_TIME, /* smdebug system metric keys */
    SP__COUNT
};

typedef struct vspan {
    const char *s, *e; /* the value's text */
} vspan;

typedef struct rec {
    dfs_pctx *p;
    dfs_event *ev;
    dfs_rec_memo *memo;
    const char *end;
    const char *safe;   /* bytes up to here may be read ahead (>= end): fast paths look past
                           the value they read, never past this */
    uint64_t offset;
    unsigned mode;      /* DFS_REC_* */
    bool lenient;
    bool empty;         /* "{}" */
    bool plain_want;    /* consumers want no args: only the parser's own keys matter */
    bool skip_markers;  /* they want args, but neither p_idx nor level (nor names any other) */
    unsigned jflags;    /* DFS_JF_* of everything scanned */
    unsigned strnum;    /* SN_* */
    uint32_t seen;      /* SEEN(TK_*) */
    uint32_t noted;     /* 1 << SP_* for the spans that are set */
    char ph;            /* as written; 0 when absent */
    bool ph_int;        /* v2 integer ph */
    bool ph_bad;        /* ph present but not one letter or a small integer */
    bool ts_overflow, dur_overflow;
    bool type_int;      /* an integer `type` key */
    bool type_bad;
    bool dft_marker;    /* args.hhash, p_idx or level: DFTracer v1 */
    uint8_t name_hints, cat_hints;
    size_t nargs;       /* kept args, in p->argtmp[0..nargs) */
    int64_t d_ts, d_dur; /* DASF text timestamp / duration */
    char d_phase;
    vspan spans[SP__COUNT]; /* valid where noted; keep last (not cleared per record) */
} rec;

static const vspan *span(const rec *r, enum span_id id)
{
    return (r->noted & (1u << id)) ? &r->spans[id] : NULL;
}

static void note(rec *r, enum span_id id, const char *s, const char *e)
{
    r->spans[id] = (vspan){s, e};
    r->noted |= 1u << id;
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

/* ---- keys ---------------------------------------------------------------------------------- */

#define KEY_IS(lit) (memcmp(k, lit, sizeof lit - 1) == 0)

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

static dfs_str wanted_key(const rec *r, int kid, const char *k, size_t n, bool top)
{
    if (r->plain_want)
        return 0;
    if (!memchr(k, '\\', n))
        return want_lookup(r, kid, k, n, top);
    /* A key written with escapes ("s\u0069ze") is the key it decodes to, as nested keys are.
     * Rare, so the decoding may cost an allocation. */
    char local[256];
    char *buf = n <= sizeof local ? local : malloc(n);
    if (!buf)
        return 0;
    size_t len = dfs_json_unescape(k, n, buf);
    dfs_str key = want_lookup(r, top ? kid : dfs_key_lookup(buf, len), buf, len, top);
    if (buf != local)
        free(buf);
    return key;
}

static bool push_arg(rec *r, dfs_str key, const dfs_value *v)
{
    if (!dfs_json_argtmp(r->p, r->nargs + 1))
        return false;
    r->p->argtmp[r->nargs++] = (dfs_arg){key, *v};
    return true;
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

static const uint64_t keep_bytes[9] = {0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF, 0xFFFFFFFFFF,
                                        0xFFFFFFFFFFFF, 0xFFFFFFFFFFFFFF, UINT64_MAX};

#define HOT static inline __attribute__((always_inline))

/* The slot of a string in the memo of recent strings: from its (zero padded) words. */
HOT dfs_memo_str *memo_slot(dfs_rec_memo *m, const uint64_t w[4], size_t n)
{
    uint64_t h = (w[0] ^ (w[1] * UINT64_C(0x9E3779B97F4A7C15)) ^ (w[2] >> 7) ^ (w[3] << 3) ^ n) *
                 UINT64_C(0xD6E8FEB86659FD93);
    return &m->strs[h >> 56 & (DFS_MEMO_STRS - 1)];
}

HOT bool memo_hit(const dfs_memo_str *e, const uint64_t w[4], size_t n)
{
    return e->len == n && e->w[0] == w[0] && e->w[1] == w[1] && e->w[2] == w[2] &&
           e->w[3] == w[3] && (e->id || n == 0);
}

/* Interns a string body through the memo of recent strings (bodies of at most 32 bytes without
 * escapes), else through the worker cache. *hints: text_hints of the string. */
static dfs_str intern_slow(rec *r, const char *body, size_t n, unsigned sf, uint8_t *hints)
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
    dfs_memo_str *e = memo_slot(m, w, n);
    if (memo_hit(e, w, n)) {
        *hints = e->hints;
        return e->id;
    }
    dfs_str id = dfs_strcache_intern(r->p->strs, body, n);
    *hints = text_hints(body, n);
    if (id || n == 0)
        *e = (dfs_memo_str){{w[0], w[1], w[2], w[3]}, (uint32_t)n, id, *hints};
    return id;
}

/* Names and categories are short and repeat: a hit in the memo costs two loads and a few
 * compares, inlined; everything else goes through intern_slow. */
HOT dfs_str intern_hot(rec *r, const char *body, size_t n, unsigned sf, uint8_t *hints)
{
    dfs_rec_memo *m = r->memo;
    if (m && n <= 16 && !(sf & DFS_JF_ESCAPES) && r->safe - body >= 32) {
        uint64_t w[4] = {dfs_load64(body) & keep_bytes[n < 8 ? n : 8],
                         dfs_load64(body + 8) & keep_bytes[n > 8 ? n - 8 : 0], 0, 0};
        const dfs_memo_str *e = memo_slot(m, w, n);
        if (memo_hit(e, w, n)) {
            *hints = e->hints;
            return e->id;
        }
    }
    return intern_slow(r, body, n, sf, hints);
}

HOT const char *string_body(rec *r, const char *s, const char **body, size_t *n, unsigned *sf)
{
    *sf = 0;
    const char *e = dfs_json_string_end_fast(s, r->end, r->safe, r->lenient, sf);
    if (!e)
        return NULL;
    r->jflags |= *sf & ~DFS_JF_ESCAPES;
    *body = s + 1;
    *n = (size_t)(e - 1 - *body);
    return e;
}

/* ---- numbers ------------------------------------------------------------------------------- */

static inline bool ends_token(const char *t, const char *end)
{
    return t >= end || *t == ',' || *t == '}' || *t == ']' || dfs_json_is_ws((unsigned char)*t);
}

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
    return t > s && ends_token(t, end) ? t : NULL;
}

static const char *skip_value(rec *r, const char *s)
{
    const char *t = s + (*s == '-');
    if (r->safe - t >= 16 && dfs_is_digit(*t)) {
        unsigned n = dfs_digit_run16(t);
        if (n < 16 && t + n < r->end && ends_token(t + n, r->end) && (n == 1 || *t != '0'))
            return t + n;
    }
    if (t < r->end && dfs_is_digit(*t)) {
        const char *d = t;
        while (t < r->end && dfs_is_digit(*t))
            t++;
        if (ends_token(t, r->end) && (t - d == 1 || *d != '0'))
            return t;
    } else if (*s == '"') {
        return dfs_json_string_end_fast(s, r->end, r->safe, r->lenient, &r->jflags);
    }
    return dfs_json_skip(s, r->end, r->lenient, &r->jflags);
}

/* An integral number token: exact for integers, rounded for decimals ("68.0"). */
static const char *int_token(rec *r, const char *s, int64_t *out, bool *ok)
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

static const int64_t pow10_i64[10] = {1, 10, 100, 1000, 10000, 100000, 1000000,
                                      10000000, 100000000, 1000000000};

/* The form nearly every number of a DFTracer line has: 1 to 16 plain digits, then a delimiter,
 * with room to read 17 bytes. Inlined where the values are read; the rest is the slow path. */

HOT bool plain_number(const rec *r, const char *s, uint64_t *v, const char **after)
{
    if (r->safe - s < 17)
        return false;
    unsigned n = dfs_digits16(s, v);
    if (!n || s + n >= r->end || !ends_token(s + n, r->end))
        return false;
    *after = s + n;
    return true;
}

/* A string field (name, cat): strings are interned, numbers keep their text (Horovod writes
 * numeric names), anything else is skipped. */
static const char *str_value_slow(rec *r, const char *s, dfs_str *out, uint8_t *hints)
{
    if (*s == '"') {
        const char *body;
        size_t n;
        unsigned sf;
        const char *e = string_body(r, s, &body, &n, &sf);
        if (e)
            *out = intern_hot(r, body, n, sf, hints);
        return e;
    }
    dfs_jnum num;
    const char *e = dfs_json_number(s, r->end, &num);
    if (e) {
        *out = dfs_strcache_intern(r->p->strs, s, (size_t)(e - s));
        return e;
    }
    return skip_value(r, s);
}

HOT const char *str_value(rec *r, const char *s, dfs_str *out, uint8_t *hints)
{
    if (*s != '"')
        return str_value_slow(r, s, out, hints);
    const char *body;
    size_t n;
    unsigned sf;
    const char *e = string_body(r, s, &body, &n, &sf);
    if (e)
        *out = intern_hot(r, body, n, sf, hints);
    return e;
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
static const char *pid_value_slow(rec *r, const char *s, unsigned snbit, int64_t *num,
                                  dfs_str *str, uint32_t str_flag, uint32_t has_flag)
{
    if (*s == '"') {
        const char *body;
        size_t n;
        unsigned sf;
        const char *e = string_body(r, s, &body, &n, &sf);
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
        *str = intern_hot(r, body, n, sf, &hints);
        *num = synthetic_id(r, *str);
        r->ev->flags |= has_flag | str_flag;
        return e;
    }
    if (*s == 'n')
        return skip_value(r, s);
    bool ok;
    const char *e = int_token(r, s, num, &ok);
    if (!e)
        return skip_value(r, s);
    if (ok)
        r->ev->flags |= has_flag;
    return e;
}

static const char *id_value_slow(rec *r, const char *s)
{
    dfs_event *ev = r->ev;
    if (*s == '"') {
        const char *body;
        size_t n;
        unsigned sf;
        const char *e = string_body(r, s, &body, &n, &sf);
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
    if (t > s && ends_token(t, r->end)) {
        ev->id = v;
        ev->flags |= DFS_EF_HAS_ID;
        return t;
    }
    dfs_jnum num;
    const char *e = dfs_json_number(s, r->end, &num);
    if (!e)
        return skip_value(r, s);
    if (num.is_int) {
        if (num.overflow)
            r->jflags |= DFS_JF_INT_OVERFLOW;
        ev->id = num.neg ? 0 - num.mag : num.mag;
        ev->flags |= DFS_EF_HAS_ID;
    }
    return e;
}


/* A time field in units of 10^-scale s written as a number or a numeric string. */
static const char *time_value_slow(rec *r, const char *s, unsigned scale, unsigned snbit,
                                   int64_t *out, uint32_t has_flag, bool *overflow)
{
    const char *text, *e;
    size_t n;
    if (*s == '"') {
        unsigned sf;
        e = string_body(r, s, &text, &n, &sf);
        if (!e || (sf & DFS_JF_ESCAPES))
            return e;
    } else {
        uint64_t v;
        const char *t = dfs_json_digits(s, r->end, &v);
        if (t > s && ends_token(t, r->end) && v <= (uint64_t)(INT64_MAX / pow10_i64[scale])) {
            *out = (int64_t)v * pow10_i64[scale];
            r->ev->flags |= has_flag;
            return t;
        }
        dfs_jnum num;
        e = dfs_json_number(s, r->end, &num);
        if (!e)
            return skip_value(r, s); /* null, true, an object...: no time */
        if (num.nonfinite) {
            r->jflags |= DFS_JF_NONFINITE;
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

HOT const char *id_value(rec *r, const char *s)
{
    uint64_t v;
    const char *e;
    if (plain_number(r, s, &v, &e)) {
        r->ev->id = v;
        r->ev->flags |= DFS_EF_HAS_ID;
        return e;
    }
    return id_value_slow(r, s);
}

HOT const char *pid_value(rec *r, const char *s, unsigned snbit, int64_t *num, dfs_str *str,
                          uint32_t str_flag, uint32_t has_flag)
{
    uint64_t v;
    const char *e;
    if (plain_number(r, s, &v, &e)) {
        *num = (int64_t)v; /* at most 16 digits */
        r->ev->flags |= has_flag;
        return e;
    }
    return pid_value_slow(r, s, snbit, num, str, str_flag, has_flag);
}

HOT const char *time_value(rec *r, const char *s, unsigned scale, unsigned snbit, int64_t *out,
                           uint32_t has_flag, bool *overflow)
{
    uint64_t v;
    const char *e;
    if (plain_number(r, s, &v, &e) && v <= (uint64_t)(INT64_MAX / pow10_i64[scale])) {
        *out = (int64_t)v * pow10_i64[scale];
        r->ev->flags |= has_flag;
        return e;
    }
    return time_value_slow(r, s, scale, snbit, out, has_flag, overflow);
}

static const char *ph_value(rec *r, const char *s)
{
    if (*s == '"') {
        if (r->end - s >= 3 && s[2] == '"' && s[1] > ' ' && s[1] < 0x7F && s[1] != '\\') {
            r->ph = s[1];
            return s + 3;
        }
        const char *body;
        size_t n;
        unsigned sf;
        const char *e = string_body(r, s, &body, &n, &sf);
        if (e)
            r->ph_bad = true;
        return e;
    }
    int64_t v;
    bool ok;
    const char *e = int_token(r, s, &v, &ok);
    if (!e)
        return skip_value(r, s);
    if (ok && v >= 0 && v <= 9) {
        r->ph = (char)('0' + v);
        r->ph_int = true;
    } else {
        r->ph_bad = true;
    }
    return e;
}

static const char *type_value(rec *r, const char *s)
{
    int64_t v;
    bool ok = false;
    const char *e = NULL;
    if (*s == '-' || dfs_is_digit(*s))
        e = int_token(r, s, &v, &ok);
    if (!e)
        return skip_value(r, s); /* a non-numeric type says nothing about DFTracer */
    r->type_int = true;
    if (ok && v >= 1 && v <= 14)
        r->ev->type = (uint16_t)v;
    else
        r->type_bad = true;
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
        e = string_body(r, s, &body, &n, &sf);
        if (e && !(sf & DFS_JF_ESCAPES) && dfs_json_hex_u64(body, n, out)) {
            v.type = *out > (uint64_t)INT64_MAX ? DFS_V_UINT : DFS_V_INT;
            v.flags = DFS_VF_FROM_STRING;
            v.as.u = *out;
        }
    } else {
        uint64_t x;
        unsigned len = r->safe - s >= 32 ? dfs_digits20(s, &x) : 0;
        const char *t = len && s + len < r->end && ends_token(s + len, r->end)
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
                return skip_value(r, s);
            if (num.is_int && !num.neg) {
                *out = num.mag;
                dfs_jnum_value(&num, &v, &r->jflags);
            }
        }
    }
    if (e && v.type && !r->plain_want) {
        dfs_str key = wanted_key(r, kid, k, kn, false);
        if (key)
            push_arg(r, key, &v);
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

/* Keys whose numeric-looking strings are names, not numbers. */
static bool keeps_strings(int kid)
{
    return kid == DFS_KEY_NAME || kid == DFS_KEY_FNAME || kid == DFS_KEY_HOSTNAME ||
           kid == DFS_KEY_KEY || kid == DFS_KEY_CWD;
}

/* A key of at most 8 bytes as a little-endian word, for compares without a length switch. */
#define W8(a, b, c, d, e, f, g, h) \
    ((uint64_t)(a) | (uint64_t)(b) << 8 | (uint64_t)(c) << 16 | (uint64_t)(d) << 24 | \
     (uint64_t)(e) << 32 | (uint64_t)(f) << 40 | (uint64_t)(g) << 48 | (uint64_t)(h) << 56)

/* The arg keys the parser reads itself whatever the consumers want. */
enum {
    PK_NONE, PK_FHASH, PK_HHASH, PK_MARKER, PK_NAME, PK_VALUE, PK_FNAME, PK_HOST, PK_OTHER,
};

/* The keys of interest by a perfect hash of their word: (w * KEY_HASH_MUL) >> 60 gives each its
 * own slot of sixteen (the multiplier was searched for these nine keys), so that a lookup is one
 * compare, without a branch per key. Empty slots hold 0, which no key of 1 to 8 bytes is. */
#define KEY_HASH_MUL UINT64_C(0xb2221a58008a05a7)
static const struct {
    uint64_t w;
    uint8_t kind;
} key_kinds[16] = {
    [0] = {W8('p', '_', 'i', 'd', 'x', 0, 0, 0), PK_MARKER},
    [1] = {W8('c', 'f', 'g', 0, 0, 0, 0, 0), PK_OTHER},
    [4] = {W8('f', 'n', 'a', 'm', 'e', 0, 0, 0), PK_FNAME},
    [6] = {W8('n', 'a', 'm', 'e', 0, 0, 0, 0), PK_NAME},
    [8] = {W8('f', 'h', 'a', 's', 'h', 0, 0, 0), PK_FHASH},
    [9] = {W8('v', 'a', 'l', 'u', 'e', 0, 0, 0), PK_VALUE},
    [10] = {W8('h', 'o', 's', 't', 'n', 'a', 'm', 'e'), PK_HOST},
    [11] = {W8('l', 'e', 'v', 'e', 'l', 0, 0, 0), PK_MARKER},
    [15] = {W8('h', 'h', 'a', 's', 'h', 0, 0, 0), PK_HHASH},
};

/* w: the key's bytes as a zero-padded little-endian word (keys of at most 8 bytes). */
HOT int plain_key_kind(uint64_t w, size_t kn)
{
    if (kn > 8 || kn == 0)
        return kn == 32 ? PK_OTHER : PK_NONE; /* maybe start_time_since_epoch_in_micros */
    unsigned slot = (unsigned)((w * KEY_HASH_MUL) >> 60);
    return key_kinds[slot].w == w ? key_kinds[slot].kind : PK_NONE;
}

/* When no consumer wants args, only the keys the parser itself reads matter: is this one? */
static bool parser_key(const rec *r, const char *k, size_t n)
{
    if (n > 8)
        return n == 32 && KEY_IS("start_time_since_epoch_in_micros");
    if (r->safe - k >= 8)
        return plain_key_kind(n ? dfs_load64(k) & keep_bytes[n] : 0, n) != PK_NONE;
    int kid = dfs_key_lookup(k, n); /* too close to the end of the buffer to load a word */
    return kid == DFS_KEY_FHASH || kid == DFS_KEY_HHASH || kid == DFS_KEY_P_IDX ||
           kid == DFS_KEY_LEVEL || kid == DFS_KEY_NAME || kid == DFS_KEY_VALUE ||
           kid == DFS_KEY_FNAME || kid == DFS_KEY_HOSTNAME || (n == 3 && KEY_IS("cfg"));
}

static const char *arg_value(rec *r, const char *k, size_t n, const char *s)
{
    if (r->plain_want && !parser_key(r, k, n))
        return skip_value(r, s);
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
    dfs_str key = wanted_key(r, kid, k, n, false);
    const char *e;
    if (key) {
        unsigned opts = (r->lenient ? DFS_JV_LENIENT : 0) | (keeps_strings(kid) ? 0 : DFS_JV_NUMSTR);
        dfs_value v;
        e = dfs_json_value(r->p, s, r->end, opts, r->nargs, &v, &r->jflags);
        if (e && !push_arg(r, key, &v))
            return NULL;
    } else {
        e = skip_value(r, s);
    }
    if (e && sp >= 0)
        note(r, (enum span_id)sp, s, e);
    return e;
}

/* After a member's value: ',' (returns the next key's position, *more = true) or '}'. */
static const char *after_member(rec *r, const char *s, bool *more)
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
static const char *member_key(rec *r, const char *s, const char **k, size_t *kn)
{
    const char *end = r->end;
    if (s >= end || *s != '"')
        return NULL;
    unsigned sf;
    s = string_body(r, s, k, kn, &sf);
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
 * unusual (escapes, control or non-ASCII bytes, spaces) goes through member_key. */
static inline const char *arg_key(rec *r, const char *s, const char **k, size_t *kn)
{
    unsigned sf = 0;
    const char *q = r->lenient ? NULL : dfs_json_string_end_fast(s, r->end, r->safe, false, &sf);
    if (q && !sf && q < r->end && *q == ':') {
        *k = s + 1;
        *kn = (size_t)(q - 1 - *k);
        return q + 1;
    }
    return member_key(r, s, k, kn);
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
 * otherwise each pair goes through arg_value. Anything unusual goes to the general loop, which
 * starts over: returns NULL to say so. */
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
            v = arg_value(r, s + 1, kn, v);
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
        int kind = plain_key_kind(w, kn);
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
                note(r, kind == PK_NAME ? SP_NAME : kind == PK_VALUE ? SP_VALUE
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

static const char *args_value(rec *r, const char *s)
{
    if (*s != '{')
        return skip_value(r, s); /* args that are not an object carry nothing we use */
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
            s = arg_value(r, k, kn, s);
        else
            s = NULL;
        if (s)
            s = after_member(r, s, &more);
        if (!s)
            return NULL;
    }
    return s;
}

/* ---- top level ----------------------------------------------------------------------------- */

static const char *other_value(rec *r, const char *k, size_t n, const char *s)
{
    dfs_str key = wanted_key(r, -1, k, n, true);
    if (!key)
        return skip_value(r, s);
    dfs_value v;
    unsigned opts = (r->lenient ? DFS_JV_LENIENT : 0) | DFS_JV_NUMSTR;
    const char *e = dfs_json_value(r->p, s, r->end, opts, r->nargs, &v, &r->jflags);
    if (e && !push_arg(r, key, &v))
        return NULL;
    return e;
}

/* smdebug system keys are only meaningful once the record is known to be a metric sample. */
static const char *noted_top(rec *r, const char *k, size_t n, const char *s, enum span_id sp)
{
    const char *e = other_value(r, k, n, s);
    if (e)
        note(r, sp, s, e);
    return e;
}

static const char *dasf_phase_value(rec *r, const char *s)
{
    const char *body;
    size_t n;
    unsigned sf;
    if (*s != '"')
        return skip_value(r, s);
    const char *e = string_body(r, s, &body, &n, &sf);
    if (e)
        r->d_phase = n == 1 ? body[0] : '?';
    return e;
}

static const char *member(rec *r, int tk, const char *k, size_t n, const char *s)
{
    dfs_event *ev = r->ev;
    r->seen |= SEEN(tk);
    switch (tk) {
    case TK_ID: return id_value(r, s);
    case TK_NAME: return str_value(r, s, &ev->name, &r->name_hints);
    case TK_CAT: return str_value(r, s, &ev->cat, &r->cat_hints);
    case TK_PID:
        return pid_value(r, s, SN_PID, &ev->pid, &ev->pid_str, DFS_EF_PID_STR, DFS_EF_HAS_PID);
    case TK_TID:
        return pid_value(r, s, SN_TID, &ev->tid, &ev->tid_str, DFS_EF_TID_STR, DFS_EF_HAS_TID);
    case TK_TS: return time_value(r, s, 3, SN_TS, &ev->ts, DFS_EF_HAS_TS, &r->ts_overflow);
    case TK_DUR: return time_value(r, s, 3, SN_DUR, &ev->dur, DFS_EF_HAS_DUR, &r->dur_overflow);
    case TK_PH: return ph_value(r, s);
    case TK_ARGS: return args_value(r, s);
    case TK_TYPE: return type_value(r, s);
    case TK_SM_TYPE: return noted_top(r, k, n, s, SP_SM_TYPE);
    case TK_SM_DIMENSION: return noted_top(r, k, n, s, SP_SM_DIM);
    case TK_SM_NAME: return noted_top(r, k, n, s, SP_SM_NAME);
    case TK_SM_NODEID: return noted_top(r, k, n, s, SP_SM_NODE);
    case TK_SM_TIMESTAMP: return noted_top(r, k, n, s, SP_SM_TIME);
    /* legacy DASF writes X timestamps in epoch seconds but B/E ones in epoch milliseconds (a
     * writer bug, dasf-tasks.md §2); the phase may come later, so read as ms and scale X later */
    case TK_D_TIMESTAMP: return time_value(r, s, 6, 0, &r->d_ts, DFS_EF_HAS_TS, &r->ts_overflow);
    case TK_D_DURATION: /* seconds */
        return time_value(r, s, 9, 0, &r->d_dur, DFS_EF_HAS_DUR, &r->dur_overflow);
    case TK_D_PHASE: return dasf_phase_value(r, s);
    case TK_D_PROCESS:
        return pid_value(r, s, 0, &ev->pid, &ev->pid_str, DFS_EF_PID_STR, DFS_EF_HAS_PID);
    case TK_D_THREAD:
        return pid_value(r, s, 0, &ev->tid, &ev->tid_str, DFS_EF_TID_STR, DFS_EF_HAS_TID);
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
    s = member_key(r, s, k, kn);
    *tk = s ? top_key(*k, *kn, r->mode) : TK_OTHER;
    if (memo)
        m->order[index] = (uint8_t)(*tk <= TK_TYPE ? *tk : TK_OTHER);
    return s;
}

/* The DFTracer layout, compact: {"id":..,"name":..,"cat":..[,"type":..],"pid":..,"tid":..
 * [,"ts":..][,"dur":..],"ph":..[,"args":{..}]}. Straight-line literal compares instead of the
 * key dispatch; the values go through the same functions as in member(). Returns the position
 * after the closing brace, or NULL as soon as the record looks different (the caller then
 * starts over with the general parser). */
static const char *dftracer_layout(rec *r, const char *s)
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
    TAKE(TK_ID, id_value(r, s));
    if (!EXPECT(",\"name\":"))
        return NULL;
    TAKE(TK_NAME, str_value(r, s, &ev->name, &r->name_hints));
    if (!EXPECT(",\"cat\":"))
        return NULL;
    TAKE(TK_CAT, str_value(r, s, &ev->cat, &r->cat_hints));
    if (EXPECT(",\"type\":"))
        TAKE(TK_TYPE, type_value(r, s));
    if (!EXPECT(",\"pid\":"))
        return NULL;
    TAKE(TK_PID, pid_value(r, s, SN_PID, &ev->pid, &ev->pid_str, DFS_EF_PID_STR, DFS_EF_HAS_PID));
    if (!EXPECT(",\"tid\":"))
        return NULL;
    TAKE(TK_TID, pid_value(r, s, SN_TID, &ev->tid, &ev->tid_str, DFS_EF_TID_STR, DFS_EF_HAS_TID));
    if (EXPECT(",\"ts\":"))
        TAKE(TK_TS, time_value(r, s, 3, SN_TS, &ev->ts, DFS_EF_HAS_TS, &r->ts_overflow));
    if (EXPECT(",\"dur\":"))
        TAKE(TK_DUR, time_value(r, s, 3, SN_DUR, &ev->dur, DFS_EF_HAS_DUR, &r->dur_overflow));
    if (!EXPECT(",\"ph\":"))
        return NULL;
    TAKE(TK_PH, ph_value(r, s));
    if (EXPECT(",\"args\":"))
        TAKE(TK_ARGS, args_value(r, s));
    return *s == '}' ? s + 1 : NULL;
#undef TAKE
#undef EXPECT
}

/* ---- the indexed layout ------------------------------------------------------------------------
 *
 * The same DFTracer layout as dftracer_layout, read from a structural index: one SIMD pass lists
 * the positions of the record's quotes (dfs_json_quote_index; records with escapes, control or
 * non-ASCII bytes are left to the other paths), which tells where each value must end before it
 * is read. The walk goes through that list with a counter (two quotes per key, two per string
 * value), so no position waits for the previous value to be decoded: values are read at known
 * lengths, or by the functions of member() whose end must be the one the index predicts, a
 * well-predicted branch rather than a data dependency. Keys are checked as literals (with their
 * comma and colon) at the predicted places. The walk covers every byte of the record with a
 * literal, a value or a string body that holds no quote, so what this path accepts the general
 * parser reads the same way. */

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

/* [v, e) holds 1 to 16 digits: their value, as plain_number reads them. */
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
        *out = intern_hot(r, x->s + v + 1, e - v - 2, 0, hints);
    else if (str_value_slow(r, x->s + v, out, hints) != x->s + e)
        return 0;
    return e;
}

/* A plain number token of at most 15 digits filling [v, e) (what skip_value reads without its
 * slow path), optionally negative, without leading zeros. */
HOT bool qx_plain_number(const qidx *x, size_t v, size_t e)
{
    const char *d = x->s + v + (x->s[v] == '-');
    size_t m = (size_t)(x->s + e - d);
    return m >= 1 && m <= 15 && dfs_digit_run16(d) >= m && (m == 1 || *d != '0');
}

/* One arg when no consumer wants args: the hashes are read, markers and noted values recorded,
 * everything else only checked. False sends the arg to arg_value. */
HOT bool qx_plain_arg(rec *r, qidx *x, size_t k, size_t kn, size_t v, size_t e)
{
    const char *s = x->s;
    uint64_t w = kn && kn <= 8 ? dfs_load64(s + k) & keep_bytes[kn] : 0;
    int kind = plain_key_kind(w, kn);
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
        note(r, kind == PK_NAME ? SP_NAME : kind == PK_VALUE ? SP_VALUE
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
    return push_arg(r, key, &val);
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
    dfs_str key = wanted_key(r, kid, k, kn, false);
    *numstr = !keeps_strings(kid);
    if (e) /* the first key of a hash keeps its slot; later ones share the other */
        e[e[0].w[0] != 0] = (dfs_memo_argkey){{w, w2}, key, *numstr};
    return key;
}

/* One arg when consumers want args: hashes, plain numbers under keys the parser has no use of
 * its own for, and such numbers written as strings where the key takes them as numbers, become
 * the values the general readers would make of them; plain strings no consumer wants are
 * skipped. False sends the arg to arg_value. */
HOT bool qx_wanted_arg(rec *r, qidx *x, size_t k, size_t kn, size_t v, size_t e)
{
    const char *s = x->s;
    uint64_t w = kn && kn <= 8 ? dfs_load64(s + k) & keep_bytes[kn] : 0;
    int kind = plain_key_kind(w, kn);
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
    /* "123": a number where the key takes one (DFS_JV_NUMSTR), as arg_value reads it */
    if (str && (!numstr || !qx_plain_number(x, v + 1, e - 1)))
        return false;
    bool neg = s[v + str] == '-';
    uint64_t n = 0;
    if (!qx_digits(x, v + str + neg, e - str, &n))
        return false;
    dfs_value val = {.type = DFS_V_INT, .flags = str ? DFS_VF_FROM_STRING : 0};
    val.as.i = neg ? -(int64_t)n : (int64_t)n;
    return push_arg(r, key, &val);
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
        if (!done && arg_value(r, s + k, kn, s + v) != s + e)
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
    return e && id_value(r, x->s + v) == x->s + e ? e : 0;
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
    return e && pid_value(r, x->s + v, snbit, num, str, str_flag, has_flag) == x->s + e ? e : 0;
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
    return e && time_value(r, x->s + v, 3, snbit, out, has_flag, overflow) == x->s + e ? e : 0;
}

HOT size_t qx_ph(rec *r, qidx *x, size_t v)
{
    size_t e = qx_value_end(x, v);
    const char *s = x->s + v;
    if (e == v + 3 && s[0] == '"' && s[1] > ' ' && s[1] < 0x7F) {
        r->ph = s[1];
        return e;
    }
    return e && ph_value(r, s) == x->s + e ? e : 0;
}

HOT size_t qx_type(rec *r, qidx *x, size_t v)
{
    size_t e = qx_value_end(x, v);
    return e && type_value(r, x->s + v) == x->s + e ? e : 0;
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

static bool indexed_layout(rec *r, const char *s)
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
            s = after_member(r, s, &more);
        if (!s)
            return false;
    }
    return s == r->end || dfs_json_ws(s, r->end) == r->end;
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
        str_value(r, r->spans[SP_SM_TYPE].s, &ev->cat, &hints);
    if (span(r, SP_SM_DIM))
        str_value(r, r->spans[SP_SM_DIM].s, &ev->name, &hints);
    if (span(r, SP_SM_NAME))
        pid_value(r, r->spans[SP_SM_NAME].s, 0, &ev->tid, &ev->tid_str, DFS_EF_TID_STR,
                  DFS_EF_HAS_TID);
    if (span(r, SP_SM_NODE))
        pid_value(r, r->spans[SP_SM_NODE].s, 0, &ev->pid, &ev->pid_str, DFS_EF_PID_STR,
                  DFS_EF_HAS_PID);
    if (ev->pid_str)
        ev->host = ev->pid_str;
    if (span(r, SP_SM_TIME))
        time_value(r, r->spans[SP_SM_TIME].s, 9, 0, &ev->ts, DFS_EF_HAS_TS, &r->ts_overflow);
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

static void finish_event(rec *r)
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

static void finish_empty(rec *r)
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
        if (indexed_layout(r, s))
            return true;
        start(r, p, ev, end, safe, offset, mode, memo, lenient);
        memset(ev, 0, sizeof *ev);
        const char *e = dftracer_layout(r, s);
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
    if (!ev)
        return DFS_REC_BAD;
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
        finish_empty(&r);
        return DFS_REC_EMPTY;
    }
    finish_event(&r);
    return DFS_REC_EVENT;
}

dfs_rec_status dfs_parse_record(dfs_pctx *p, const char *text, size_t len, uint64_t offset)
{
    return dfs_parse_record_ex(p, text, len, len, offset, 0, NULL);
}
