/* record_internal.h - what the files of the record parser share (record.h is its interface):
 *   record.c         the entry point and the general parser (top-level keys in any order);
 *   record_fast.c    the DFTracer layout fast paths (the quote index, then sequential scans);
 *   record_value.c   the value readers: strings, numbers, the scalar fields, args and members;
 *   record_finish.c  what is derived once the record is known: phases, times, the dialect's
 *                    fields, metadata, hash references, problems and counts.
 *
 * The state of one record being parsed (rec) and the helpers that every path reads values with.
 * Those helpers are called per value on the hottest code of the program, so they live here as
 * static inline functions (HOT: always inlined), never as calls to another file; what crosses
 * files out of line is a slow path or a whole step (once per record or per args object). Every
 * function shared between the files is named rec_*. Stream state is not touched before the
 * record parsed completely (record_finish.c). */
#ifndef DFS_RECORD_INTERNAL_H
#define DFS_RECORD_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "parse/json.h"
#include "parse/record.h"

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

static inline void rec_note(rec *r, enum span_id id, const char *s, const char *e)
{
    r->spans[id] = (vspan){s, e};
    r->noted |= 1u << id;
}

/* Whether the key [k, k + n) starts with lit (the caller has checked n). */
#define KEY_IS(lit) (memcmp(k, lit, sizeof lit - 1) == 0)

static const uint64_t keep_bytes[9] = {0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF, 0xFFFFFFFFFF,
                                        0xFFFFFFFFFFFF, 0xFFFFFFFFFFFFFF, UINT64_MAX};

#define HOT static inline __attribute__((always_inline))

/* The slot of a string in the memo of recent strings: from its (zero padded) words. */
HOT dfs_memo_str *rec_memo_slot(dfs_rec_memo *m, const uint64_t w[4], size_t n)
{
    uint64_t h = (w[0] ^ (w[1] * UINT64_C(0x9E3779B97F4A7C15)) ^ (w[2] >> 7) ^ (w[3] << 3) ^ n) *
                 UINT64_C(0xD6E8FEB86659FD93);
    return &m->strs[h >> 56 & (DFS_MEMO_STRS - 1)];
}

HOT bool rec_memo_hit(const dfs_memo_str *e, const uint64_t w[4], size_t n)
{
    return e->len == n && e->w[0] == w[0] && e->w[1] == w[1] && e->w[2] == w[2] &&
           e->w[3] == w[3] && (e->id || n == 0);
}

/* Interns a string body through the memo of recent strings (bodies of at most 32 bytes without
 * escapes), else through the worker cache. *hints: what the parser derives from the text. */
dfs_str rec_intern_slow(rec *r, const char *body, size_t n, unsigned sf, uint8_t *hints);

/* Names and categories are short and repeat: a hit in the memo costs two loads and a few
 * compares, inlined; everything else goes through rec_intern_slow. */
HOT dfs_str rec_intern_hot(rec *r, const char *body, size_t n, unsigned sf, uint8_t *hints)
{
    dfs_rec_memo *m = r->memo;
    if (m && n <= 16 && !(sf & DFS_JF_ESCAPES) && r->safe - body >= 32) {
        uint64_t w[4] = {dfs_load64(body) & keep_bytes[n < 8 ? n : 8],
                         dfs_load64(body + 8) & keep_bytes[n > 8 ? n - 8 : 0], 0, 0};
        const dfs_memo_str *e = rec_memo_slot(m, w, n);
        if (rec_memo_hit(e, w, n)) {
            *hints = e->hints;
            return e->id;
        }
    }
    return rec_intern_slow(r, body, n, sf, hints);
}

HOT const char *rec_string_body(rec *r, const char *s, const char **body, size_t *n, unsigned *sf)
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

static inline bool rec_ends_token(const char *t, const char *end)
{
    return t >= end || *t == ',' || *t == '}' || *t == ']' || dfs_json_is_ws((unsigned char)*t);
}

static const int64_t pow10_i64[10] = {1, 10, 100, 1000, 10000, 100000, 1000000,
                                      10000000, 100000000, 1000000000};

/* The form nearly every number of a DFTracer line has: 1 to 16 plain digits, then a delimiter,
 * with room to read 17 bytes. Inlined where the values are read; the rest is the slow path. */

HOT bool rec_plain_number(const rec *r, const char *s, uint64_t *v, const char **after)
{
    if (r->safe - s < 17)
        return false;
    unsigned n = dfs_digits16(s, v);
    if (!n || s + n >= r->end || !rec_ends_token(s + n, r->end))
        return false;
    *after = s + n;
    return true;
}

/* The general readers of the scalar fields, for whatever rec_plain_number does not take. */
const char *rec_str_value_slow(rec *r, const char *s, dfs_str *out);
const char *rec_id_value_slow(rec *r, const char *s);
const char *rec_pid_value_slow(rec *r, const char *s, unsigned snbit, int64_t *num,
                               dfs_str *str, uint32_t str_flag, uint32_t has_flag);
const char *rec_time_value_slow(rec *r, const char *s, unsigned scale, unsigned snbit,
                                int64_t *out, uint32_t has_flag, bool *overflow);

/* A string field (name, cat): a string is interned here, anything else by rec_str_value_slow. */
HOT const char *rec_str_value(rec *r, const char *s, dfs_str *out, uint8_t *hints)
{
    if (*s != '"')
        return rec_str_value_slow(r, s, out);
    const char *body;
    size_t n;
    unsigned sf;
    const char *e = rec_string_body(r, s, &body, &n, &sf);
    if (e)
        *out = rec_intern_hot(r, body, n, sf, hints);
    return e;
}

HOT const char *rec_id_value(rec *r, const char *s)
{
    uint64_t v;
    const char *e;
    if (rec_plain_number(r, s, &v, &e)) {
        r->ev->id = v;
        r->ev->flags |= DFS_EF_HAS_ID;
        return e;
    }
    return rec_id_value_slow(r, s);
}

HOT const char *rec_pid_value(rec *r, const char *s, unsigned snbit, int64_t *num, dfs_str *str,
                              uint32_t str_flag, uint32_t has_flag)
{
    uint64_t v;
    const char *e;
    if (rec_plain_number(r, s, &v, &e)) {
        *num = (int64_t)v; /* at most 16 digits */
        r->ev->flags |= has_flag;
        return e;
    }
    return rec_pid_value_slow(r, s, snbit, num, str, str_flag, has_flag);
}

HOT const char *rec_time_value(rec *r, const char *s, unsigned scale, unsigned snbit,
                               int64_t *out, uint32_t has_flag, bool *overflow)
{
    uint64_t v;
    const char *e;
    if (rec_plain_number(r, s, &v, &e) && v <= (uint64_t)(INT64_MAX / pow10_i64[scale])) {
        *out = (int64_t)v * pow10_i64[scale];
        r->ev->flags |= has_flag;
        return e;
    }
    return rec_time_value_slow(r, s, scale, snbit, out, has_flag, overflow);
}

/* Skips any value (record_value.c): plain numbers and strings quickly, anything else in full. */
const char *rec_skip_value(rec *r, const char *s);
/* ph: one letter, or a v2 integer (sets r->ph, ph_int, ph_bad). */
const char *rec_ph_value(rec *r, const char *s);

/* An integral number token: exact for integers, rounded for decimals ("68.0"); *ok: whether it
 * gave a value. */
const char *rec_int_token(rec *r, const char *s, int64_t *out, bool *ok);

/* type: a DFTracer v2 integer type (sets ev->type, r->type_int, type_bad). Inline where it is
 * read, as on every record of a v2 trace. */
static inline const char *rec_type_value(rec *r, const char *s)
{
    int64_t v;
    bool ok = false;
    const char *e = NULL;
    if (*s == '-' || dfs_is_digit(*s))
        e = rec_int_token(r, s, &v, &ok);
    if (!e)
        return rec_skip_value(r, s); /* a non-numeric type says nothing about DFTracer */
    r->type_int = true;
    if (ok && v >= 1 && v <= 14)
        r->ev->type = (uint16_t)v;
    else
        r->type_bad = true;
    return e;
}

static inline bool rec_push_arg(rec *r, dfs_str key, const dfs_value *v)
{
    if (!dfs_json_argtmp(r->p, r->nargs + 1))
        return false;
    r->p->argtmp[r->nargs++] = (dfs_arg){key, *v};
    return true;
}

/* Keys whose numeric-looking strings are names, not numbers. */
static inline bool rec_keeps_strings(int kid)
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
HOT int rec_plain_key_kind(uint64_t w, size_t kn)
{
    if (kn > 8 || kn == 0)
        return kn == 32 ? PK_OTHER : PK_NONE; /* maybe start_time_since_epoch_in_micros */
    unsigned slot = (unsigned)((w * KEY_HASH_MUL) >> 60);
    return key_kinds[slot].w == w ? key_kinds[slot].kind : PK_NONE;
}

/* ---- out of line, between the files -------------------------------------------------------- */

/* The interned key under which an arg (top: a top-level key) is kept, or 0 when unwanted. */
dfs_str rec_wanted_key(const rec *r, int kid, const char *k, size_t n, bool top);
/* One arg [k, k + n) whose value is at s: read, noted or skipped; the position after it. */
const char *rec_arg_value(rec *r, const char *k, size_t n, const char *s);
/* The args value at s (an object, else skipped); the position after it, NULL when malformed. */
const char *rec_args_value(rec *r, const char *s);
/* Reads `"key"` and the colon at s; returns the value's position. */
const char *rec_member_key(rec *r, const char *s, const char **k, size_t *kn);
/* After a member's value: ',' (returns the next key's position, *more = true) or '}'. */
const char *rec_after_member(rec *r, const char *s, bool *more);

/* The DFTracer layout from the quote index (record_fast.c); false sends the record elsewhere. */
bool rec_indexed_layout(rec *r, const char *s);
/* The DFTracer layout by sequential scans: the position after '}', or NULL (record_fast.c). */
const char *rec_dftracer_layout(rec *r, const char *s);

/* After a parse (record_finish.c): completes the event and counts it in the stream ... */
void rec_finish_event(rec *r);
/* ... or counts a "{}" record. */
void rec_finish_empty(rec *r);
#endif
