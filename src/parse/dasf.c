/* dasf.c - DASF length-prefixed msgpack records (spec/formats.md section 10).
 *
 * A record is an 8-byte big-endian length N and N bytes holding one msgpack map. Each payload is
 * walked twice: a bounds- and depth-checked pass validates all of it and finds the top-level
 * fields, then the event is built, decoding only the args the consumers want. Validating first
 * makes "not a valid map" a property of the bytes alone, so the counts never depend on what the
 * consumers asked for, and the second pass never meets a malformed value. */
#include "parse/dasf.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/ids.h"
#include "parse/framer.h"
#include "util/seenset.h"

#define DASF_PREFIX 8
#define DASF_DEFAULT_MAX_RECORD (UINT64_C(64) << 20)
/* The record map is depth 1; deeper values would only come from adversarial input, and the
 * bound keeps the recursive walks off the end of the stack. */
#define MP_MAX_DEPTH 64
#define NS_PER_S 1000000000
#define ABSURD_DUR_NS (INT64_C(604800) * NS_PER_S) /* 7 days, spec section 11 */

/* ---- msgpack reading ------------------------------------------------------------------------ */

typedef enum mp_kind {
    MP_ABSENT = 0,
    MP_NIL,
    MP_BOOL,
    MP_INT,    /* i: every integer that fits int64 */
    MP_UINT,   /* u: above INT64_MAX */
    MP_FLOAT,
    MP_STR,
    MP_ARRAY,
    MP_MAP,
    MP_OPAQUE, /* bin and ext: stepped over, never turned into values */
} mp_kind;

typedef struct mp_item {
    mp_kind kind;
    uint32_t len;    /* STR: bytes; ARRAY: items; MAP: pairs */
    const char *str;
    int64_t i;
    uint64_t u;
    double f;
} mp_item;

typedef struct mp_reader {
    const unsigned char *p, *end;
    bool too_deep;   /* why the last walk failed, for the diagnostic */
} mp_reader;

static size_t mp_left(const mp_reader *r) { return (size_t)(r->end - r->p); }

static uint64_t load_be(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* Consumes n bytes; NULL when fewer remain. */
static const unsigned char *mp_take(mp_reader *r, uint64_t n)
{
    if (mp_left(r) < n)
        return NULL;
    const unsigned char *s = r->p;
    r->p += n;
    return s;
}

static bool mp_be(mp_reader *r, unsigned width, uint64_t *out)
{
    const unsigned char *s = mp_take(r, width);
    if (!s)
        return false;
    *out = load_be(s, width);
    return true;
}

static bool set_unsigned(mp_item *it, uint64_t v)
{
    if (v > (uint64_t)INT64_MAX) {
        it->kind = MP_UINT;
        it->u = v;
    } else {
        it->kind = MP_INT;
        it->i = (int64_t)v;
    }
    return true;
}

static bool read_uint(mp_reader *r, unsigned width, mp_item *it)
{
    uint64_t v;
    return mp_be(r, width, &v) && set_unsigned(it, v);
}

static bool read_int(mp_reader *r, unsigned width, mp_item *it)
{
    uint64_t v;
    if (!mp_be(r, width, &v))
        return false;
    if (width < 8 && (v >> (8 * width - 1)) & 1)
        v |= ~UINT64_C(0) << (8 * width); /* sign-extend */
    memcpy(&it->i, &v, sizeof v);       /* two's complement reinterpretation, no overflow */
    it->kind = MP_INT;
    return true;
}

static bool read_float(mp_reader *r, unsigned width, mp_item *it)
{
    uint64_t v;
    if (!mp_be(r, width, &v))
        return false;
    it->kind = MP_FLOAT;
    if (width == 4) {
        uint32_t w = (uint32_t)v;
        float f;
        memcpy(&f, &w, sizeof f);
        it->f = f;
    } else {
        memcpy(&it->f, &v, sizeof v);
    }
    return true;
}

static bool read_str(mp_reader *r, uint64_t n, mp_item *it)
{
    const unsigned char *s = mp_take(r, n);
    if (!s)
        return false;
    it->kind = MP_STR;
    it->str = (const char *)s;
    it->len = (uint32_t)n;
    return true;
}

/* Every element takes at least one byte, so a count the remaining bytes cannot hold is rejected
 * here, before anything is allocated or looped over for it. */
static bool read_container(mp_reader *r, mp_kind kind, uint64_t n, mp_item *it)
{
    uint64_t min_bytes = kind == MP_MAP ? 2 * n : n;
    if (min_bytes > mp_left(r))
        return false;
    it->kind = kind;
    it->len = (uint32_t)n;
    return true;
}

/* str8/16/32, array16/32, map16/32: a big-endian count then the body. */
static bool read_counted(mp_reader *r, unsigned width, mp_kind kind, mp_item *it)
{
    uint64_t n;
    if (!mp_be(r, width, &n))
        return false;
    return kind == MP_STR ? read_str(r, n, it) : read_container(r, kind, n, it);
}

/* bin8/16/32 (type_bytes 0) and ext8/16/32 (one type byte after the length). */
static bool read_blob(mp_reader *r, unsigned width, unsigned type_bytes, mp_item *it)
{
    uint64_t n;
    if (!mp_be(r, width, &n) || !mp_take(r, n + type_bytes))
        return false;
    it->kind = MP_OPAQUE;
    return true;
}

/* fixext 1/2/4/8/16: a type byte and a fixed body. */
static bool read_fixext(mp_reader *r, unsigned body, mp_item *it)
{
    it->kind = MP_OPAQUE;
    return mp_take(r, 1 + body) != NULL;
}

static bool read_tagged(mp_reader *r, unsigned t, mp_item *it)
{
    if (t >= 0xcc && t <= 0xcf)
        return read_uint(r, 1u << (t - 0xcc), it);
    if (t >= 0xd0 && t <= 0xd3)
        return read_int(r, 1u << (t - 0xd0), it);
    if (t >= 0xd4 && t <= 0xd8)
        return read_fixext(r, 1u << (t - 0xd4), it);
    switch (t) {
    case 0xc0: it->kind = MP_NIL; return true;
    case 0xc2:
    case 0xc3: it->kind = MP_BOOL; it->i = t == 0xc3; return true;
    case 0xc4: return read_blob(r, 1, 0, it);
    case 0xc5: return read_blob(r, 2, 0, it);
    case 0xc6: return read_blob(r, 4, 0, it);
    case 0xc7: return read_blob(r, 1, 1, it);
    case 0xc8: return read_blob(r, 2, 1, it);
    case 0xc9: return read_blob(r, 4, 1, it);
    case 0xca: return read_float(r, 4, it);
    case 0xcb: return read_float(r, 8, it);
    case 0xd9: return read_counted(r, 1, MP_STR, it);
    case 0xda: return read_counted(r, 2, MP_STR, it);
    case 0xdb: return read_counted(r, 4, MP_STR, it);
    case 0xdc: return read_counted(r, 2, MP_ARRAY, it);
    case 0xdd: return read_counted(r, 4, MP_ARRAY, it);
    case 0xde: return read_counted(r, 2, MP_MAP, it);
    case 0xdf: return read_counted(r, 4, MP_MAP, it);
    default: return false; /* 0xc1 is never used */
    }
}

/* Reads one value's header: scalars and strings whole, containers only their count. */
static bool mp_next(mp_reader *r, mp_item *it)
{
    const unsigned char *tag = mp_take(r, 1);
    if (!tag)
        return false;
    unsigned t = *tag;
    if (t <= 0x7f)
        return set_unsigned(it, t);
    if (t >= 0xe0) {
        it->kind = MP_INT;
        it->i = (int64_t)t - 256;
        return true;
    }
    if (t <= 0x8f)
        return read_container(r, MP_MAP, t & 0x0f, it);
    if (t <= 0x9f)
        return read_container(r, MP_ARRAY, t & 0x0f, it);
    if (t <= 0xbf)
        return read_str(r, t & 0x1f, it);
    return read_tagged(r, t, it);
}

static uint64_t child_count(const mp_item *it)
{
    if (it->kind == MP_MAP)
        return 2 * (uint64_t)it->len;
    return it->kind == MP_ARRAY ? it->len : 0;
}

/* Consumes one complete value at nesting depth `depth`; false when it is cut, malformed or nests
 * deeper than MP_MAX_DEPTH. Linear in the bytes: every item consumes at least one. */
static bool mp_skip(mp_reader *r, unsigned depth)
{
    mp_item it;
    if (depth > MP_MAX_DEPTH) {
        r->too_deep = true;
        return false;
    }
    if (!mp_next(r, &it))
        return false;
    uint64_t n = child_count(&it);
    for (uint64_t i = 0; i < n; i++)
        if (!mp_skip(r, depth + 1))
            return false;
    return true;
}

/* Reads a map key. A key that is not a string (legal msgpack, never written by DASF) is stepped
 * over whole, containers included, and false is returned so the caller drops the pair. */
static bool read_key(mp_reader *r, unsigned depth, mp_item *key)
{
    const unsigned char *start = r->p;
    if (mp_next(r, key) && key->kind == MP_STR)
        return true;
    r->p = start;
    mp_skip(r, depth);
    return false;
}

static bool str_is(const mp_item *s, const char *lit)
{
    size_t n = strlen(lit);
    return s->len == n && memcmp(s->str, lit, n) == 0;
}

/* ---- the record map ------------------------------------------------------------------------- */

typedef struct dasf_fields {
    mp_item name, timestamp, duration, phase, pid, tid;
    const unsigned char *args, *args_end; /* the args value, or NULL */
} dasf_fields;

static mp_item *scalar_field(dasf_fields *f, const mp_item *key)
{
    if (str_is(key, "name"))
        return &f->name;
    if (str_is(key, "timestamp"))
        return &f->timestamp;
    if (str_is(key, "duration"))
        return &f->duration;
    if (str_is(key, "phase"))
        return &f->phase;
    if (str_is(key, "process_id"))
        return &f->pid;
    if (str_is(key, "thread_id"))
        return &f->tid;
    return NULL;
}

/* Remembers the value v..end of a known key; a repeated key wins over the earlier one. */
static void note_field(dasf_fields *f, const mp_item *key, const unsigned char *v,
                       const unsigned char *end)
{
    if (str_is(key, "args")) {
        f->args = v;
        f->args_end = end;
        return;
    }
    mp_item *dst = scalar_field(f, key);
    mp_reader vr = {v, end, false};
    if (dst && !mp_next(&vr, dst))
        dst->kind = MP_ABSENT;
}

static bool is_number(const mp_item *it)
{
    return it->kind == MP_INT || it->kind == MP_UINT || it->kind == MP_FLOAT;
}

static const char *check_fields(const dasf_fields *f)
{
    if (f->name.kind != MP_STR)
        return "name missing or not a string";
    if (f->phase.kind != MP_STR)
        return "phase missing or not a string";
    if (!is_number(&f->timestamp))
        return "timestamp missing or not a number";
    return NULL;
}

/* Validates the payload and locates the fields; returns why the record is bad, or NULL. */
static const char *scan_record(const unsigned char *payload, size_t n, dasf_fields *f)
{
    memset(f, 0, sizeof *f);
    mp_reader whole = {payload, payload + n, false};
    if (n == 0)
        return "empty payload";
    if (!mp_skip(&whole, 1))
        return whole.too_deep ? "msgpack nested deeper than 64" : "malformed or cut msgpack";
    if (whole.p != whole.end)
        return "bytes after the record map";
    mp_reader r = {payload, payload + n, false};
    mp_item top;
    if (!mp_next(&r, &top) || top.kind != MP_MAP)
        return "payload is not a msgpack map";
    for (uint32_t i = 0; i < top.len; i++) {
        mp_item key;
        bool keep = read_key(&r, 2, &key);
        const unsigned char *v = r.p;
        mp_skip(&r, 2);
        if (keep)
            note_field(f, &key, v, r.p);
    }
    return check_fields(f);
}

/* ---- values and args ------------------------------------------------------------------------ */

static bool decode_value(dfs_pctx *p, mp_reader *r, unsigned depth, dfs_value *v);

static dfs_str intern(dfs_pctx *p, const char *s, size_t n)
{
    return dfs_strcache_intern(p->strs, s, n);
}

/* Out of memory for the items: the value stays an empty container and the reader moves on. */
static dfs_arg *alloc_items(dfs_pctx *p, mp_reader *r, const mp_item *it, unsigned depth)
{
    dfs_arg *items = it->len ? dfs_arena_alloc(&p->batch->pool, it->len * sizeof *items) : NULL;
    if (!items) {
        uint64_t n = child_count(it);
        for (uint64_t i = 0; i < n; i++)
            mp_skip(r, depth + 1);
    }
    return items;
}

static void decode_list(dfs_pctx *p, mp_reader *r, unsigned depth, const mp_item *it, dfs_value *v)
{
    dfs_arg *items = alloc_items(p, r, it, depth);
    uint32_t kept = 0;
    for (uint32_t i = 0; items && i < it->len; i++) {
        items[kept].key = 0;
        if (decode_value(p, r, depth + 1, &items[kept].val))
            kept++;
    }
    v->type = DFS_V_LIST;
    v->len = kept;
    v->as.items = items;
}

static void decode_map(dfs_pctx *p, mp_reader *r, unsigned depth, const mp_item *it, dfs_value *v)
{
    dfs_arg *items = alloc_items(p, r, it, depth);
    uint32_t kept = 0;
    for (uint32_t i = 0; items && i < it->len; i++) {
        mp_item key;
        if (!read_key(r, depth + 1, &key)) {
            mp_skip(r, depth + 1);
            continue;
        }
        items[kept].key = intern(p, key.str, key.len);
        if (decode_value(p, r, depth + 1, &items[kept].val))
            kept++;
    }
    v->type = DFS_V_MAP;
    v->len = kept;
    v->as.items = items;
}

/* Decodes one validated value; false for bin/ext, which are dropped. */
static bool decode_value(dfs_pctx *p, mp_reader *r, unsigned depth, dfs_value *v)
{
    mp_item it;
    memset(v, 0, sizeof *v);
    if (depth > MP_MAX_DEPTH || !mp_next(r, &it))
        return false;
    switch (it.kind) {
    case MP_NIL: v->type = DFS_V_NULL; return true;
    case MP_BOOL: v->type = DFS_V_BOOL; v->as.i = it.i; return true;
    case MP_INT: v->type = DFS_V_INT; v->as.i = it.i; return true;
    case MP_UINT: v->type = DFS_V_UINT; v->as.u = it.u; return true;
    case MP_FLOAT: v->type = DFS_V_FLOAT; v->as.f = it.f; return true;
    case MP_STR: v->type = DFS_V_STR; v->as.s = intern(p, it.str, it.len); return true;
    case MP_ARRAY: decode_list(p, r, depth, &it, v); return true;
    case MP_MAP: decode_map(p, r, depth, &it, v); return true;
    default: return false;
    }
}

static bool wants_any(const dfs_want_set *w)
{
    return w && (w->all || w->keys || w->nextra);
}

/* Whether a top-level arg is wanted, and its key id. Well-known and extra keys are matched by
 * their bytes, so without all_args no key is interned just to be looked at. */
static bool wanted_key(dfs_pctx *p, const mp_item *key, dfs_str *id)
{
    const dfs_want_set *w = p->want;
    for (uint64_t bits = w->keys; bits; bits &= bits - 1) {
        int k = __builtin_ctzll(bits);
        if (k < DFS_KEY__COUNT && str_is(key, dfs_key_names[k])) {
            *id = DFS_KEY_STR(k);
            return true;
        }
    }
    for (size_t i = 0; i < w->nextra && i < DFS_WANT_MAX_EXTRA; i++) {
        if (w->extra[i] && w->extra_len[i] == key->len &&
            memcmp(w->extra[i], key->str, key->len) == 0) {
            *id = w->extra_id[i] ? w->extra_id[i] : intern(p, key->str, key->len);
            return true;
        }
    }
    if (!w->all)
        return false;
    *id = intern(p, key->str, key->len);
    return true;
}

static bool argtmp_push(dfs_pctx *p, size_t n, dfs_str key, const dfs_value *v)
{
    if (n == p->argtmp_cap) {
        size_t cap = p->argtmp_cap ? 2 * p->argtmp_cap : 16;
        dfs_arg *a = realloc(p->argtmp, cap * sizeof *a);
        if (!a) {
            p->nomem = true;
            return false;
        }
        p->argtmp = a;
        p->argtmp_cap = cap;
    }
    p->argtmp[n] = (dfs_arg){key, *v};
    return true;
}

/* The record's own field behind a raw pseudo-arg name (dasf.h), or NULL. */
static const mp_item *raw_field(const dasf_fields *f, const char *name, size_t len)
{
    size_t tn = sizeof DFS_DASF_RAW_TIMESTAMP - 1, dn = sizeof DFS_DASF_RAW_DURATION - 1;
    if (len == tn && memcmp(name, DFS_DASF_RAW_TIMESTAMP, tn) == 0)
        return &f->timestamp;
    if (len == dn && memcmp(name, DFS_DASF_RAW_DURATION, dn) == 0)
        return &f->duration;
    return NULL;
}

/* The raw timestamp and duration a consumer asked for, as written: the event's ns times are
 * rounded, and analyses that must match DASF to the last bit need the float seconds. */
static size_t raw_times(dfs_pctx *p, const dasf_fields *f, size_t n)
{
    const dfs_want_set *w = p->want;
    for (size_t i = 0; i < w->nextra && i < DFS_WANT_MAX_EXTRA; i++) {
        const mp_item *it = w->extra[i] ? raw_field(f, w->extra[i], w->extra_len[i]) : NULL;
        if (!it || (it->kind != MP_INT && it->kind != MP_FLOAT))
            continue;
        dfs_value v = {.type = it->kind == MP_INT ? DFS_V_INT : DFS_V_FLOAT};
        if (it->kind == MP_INT)
            v.as.i = it->i;
        else
            v.as.f = it->f;
        dfs_str id = w->extra_id[i] ? w->extra_id[i] : intern(p, w->extra[i], w->extra_len[i]);
        if (!argtmp_push(p, n, id, &v))
            break;
        n++;
    }
    return n;
}

/* The wanted top-level args, copied into the batch pool; returns their count. */
static uint32_t decode_args(dfs_pctx *p, const dasf_fields *f, const dfs_arg **out)
{
    *out = NULL;
    if (!wants_any(p->want))
        return 0;
    size_t n = raw_times(p, f, 0);
    mp_reader r = {f->args, f->args_end, false};
    mp_item map;
    if (!f->args || !mp_next(&r, &map) || map.kind != MP_MAP)
        map.len = 0;
    for (uint32_t i = 0; i < map.len; i++) {
        mp_item key;
        dfs_value v;
        if (!read_key(&r, 3, &key)) {
            mp_skip(&r, 3);
            continue;
        }
        dfs_str id;
        if (!wanted_key(p, &key, &id)) {
            mp_skip(&r, 3);
            continue;
        }
        if (!decode_value(p, &r, 3, &v))
            continue;
        if (!argtmp_push(p, n, id, &v))
            break; /* out of memory: keep the args decoded so far */
        n++;
    }
    dfs_arg *args = n ? dfs_arena_alloc(&p->batch->pool, n * sizeof *args) : NULL;
    if (!args)
        return 0;
    memcpy(args, p->argtmp, n * sizeof *args);
    *out = args;
    return (uint32_t)n;
}

/* ---- event fields --------------------------------------------------------------------------- */

/* Seconds as written to ns; false when not finite or beyond int64 ns. A binary double is already
 * rounded, so llround(x * 1e9) is the best possible result (spec section 4). */
static bool seconds_to_ns(const mp_item *it, int64_t *ns)
{
    switch (it->kind) {
    case MP_INT: return !__builtin_mul_overflow(it->i, (int64_t)NS_PER_S, ns);
    case MP_FLOAT: {
        double x = it->f * 1e9;
        if (!isfinite(x) || x >= 0x1p63 || x < -0x1p63)
            return false;
        *ns = llround(x);
        return true;
    }
    default: return false; /* MP_UINT is above INT64_MAX seconds */
    }
}

static void time_problem(dfs_pctx *p, dfs_event *ev, dfs_problem prob, const char *what)
{
    ev->flags |= DFS_EF_BAD_TIME;
    dfs_diag_add(&p->st->diag, prob, p->st->file, 0, ev->offset, "%s", what);
}

/* DASF batches from several workers interleave, so backward steps of the written clock are
 * normal; they are counted for information only. */
static void note_order(dfs_pctx *p, int64_t written, uint64_t offset)
{
    dfs_stream *st = p->st;
    if (st->have_last_ts && written < st->last_ts)
        dfs_diag_add(&st->diag, DFS_PROB_TS_REGRESSION, st->file, 0, offset,
                     "timestamp steps back %.9f s",
                     ((double)st->last_ts - (double)written) / 1e9);
    st->last_ts = written;
    st->have_last_ts = true;
}

static void check_duration(dfs_pctx *p, dfs_event *ev)
{
    if (ev->dur < 0)
        time_problem(p, ev, DFS_PROB_NEGATIVE_DUR, "negative duration");
    else if (ev->dur > ABSURD_DUR_NS)
        time_problem(p, ev, DFS_PROB_ABSURD_DUR, "duration above 7 days");
}

/* Complete events: the written timestamp is the task END, so ts = end - dur and ts + dur gives
 * back the written value exactly. */
static void set_complete_times(dfs_pctx *p, dfs_event *ev, const dasf_fields *f, bool end_ok,
                               int64_t end)
{
    int64_t dur;
    if (!is_number(&f->duration)) {
        dfs_diag_add(&p->st->diag, DFS_PROB_X_WITHOUT_DUR, p->st->file, 0, ev->offset,
                     "complete event without duration");
    } else if (!seconds_to_ns(&f->duration, &dur)) {
        time_problem(p, ev, DFS_PROB_TIME_OVERFLOW, "duration not finite or beyond int64 ns");
    } else {
        ev->dur = dur;
        ev->flags |= DFS_EF_HAS_DUR;
        check_duration(p, ev);
    }
    if (!end_ok)
        return;
    if (!(ev->flags & DFS_EF_HAS_DUR)) {
        ev->ts = end;
    } else if (__builtin_sub_overflow(end, ev->dur, &ev->ts)) {
        ev->ts = 0;
        time_problem(p, ev, DFS_PROB_TIME_OVERFLOW, "timestamp - duration beyond int64 ns");
        return;
    }
    ev->flags |= DFS_EF_HAS_TS;
}

static void set_times(dfs_pctx *p, dfs_event *ev, const dasf_fields *f)
{
    int64_t written = 0;
    bool ok = seconds_to_ns(&f->timestamp, &written);
    if (!ok)
        time_problem(p, ev, DFS_PROB_TIME_OVERFLOW, "timestamp not finite or beyond int64 ns");
    else
        note_order(p, written, ev->offset);
    if (ev->ph == 'X') {
        set_complete_times(p, ev, f, ok, written);
    } else if (ok) {
        ev->ts = written;
        ev->flags |= DFS_EF_HAS_TS;
    }
}

/* process_id / thread_id: a host or worker string gets a synthetic id; nil or absent: nothing. */
static void set_id(dfs_pctx *p, const mp_item *v, int64_t *id, dfs_str *str, uint32_t *flags,
                   uint32_t has_flag, uint32_t str_flag)
{
    switch (v->kind) {
    case MP_STR:
        *str = intern(p, v->str, v->len);
        *id = dfs_synthetic_id(v->str, v->len);
        *flags |= has_flag | str_flag;
        break;
    case MP_INT: *id = v->i; *flags |= has_flag; break;
    case MP_UINT: *id = INT64_MAX; *flags |= has_flag; break;
    case MP_FLOAT:
        if (v->f >= -0x1p63 && v->f < 0x1p63 && v->f == trunc(v->f)) {
            *id = (int64_t)v->f;
            *flags |= has_flag;
        }
        break;
    default: break;
    }
}

static char phase_letter(const mp_item *phase)
{
    if (phase->len == 1 && phase->str[0] && strchr("XIBE", phase->str[0]))
        return phase->str[0];
    return '?';
}

static dfs_phase phase_of(char ph)
{
    switch (ph) {
    case 'X': return DFS_PHASE_COMPLETE;
    case 'I': return DFS_PHASE_INSTANT;
    case 'B': return DFS_PHASE_BEGIN;
    case 'E': return DFS_PHASE_END;
    default: return DFS_PHASE_OTHER;
    }
}

static void count_record(dfs_pctx *p, const dasf_fields *f, char ph, uint64_t offset)
{
    dfs_stream *st = p->st;
    st->records++;
    st->phase_counts[phase_of(ph)]++;
    st->ph_written[(unsigned char)ph]++;
    if (ph == '?')
        dfs_diag_add(&st->diag, DFS_PROB_UNKNOWN_PHASE, st->file, 0, offset, "phase \"%.*s\"",
                     (int)(f->phase.len > 16 ? 16 : f->phase.len), f->phase.str);
}

static void emit_event(dfs_pctx *p, const dasf_fields *f, uint64_t offset)
{
    dfs_event *ev = dfs_batchbuf_push(p->batch);
    if (!ev)
        return;
    ev->offset = offset;
    ev->file = p->st->file;
    ev->ph = phase_letter(&f->phase);
    ev->phase = (uint8_t)phase_of(ev->ph);
    ev->name = intern(p, f->name.str, f->name.len);
    ev->cat = intern(p, "dasf", 4);
    set_times(p, ev, f);
    set_id(p, &f->pid, &ev->pid, &ev->pid_str, &ev->flags, DFS_EF_HAS_PID, DFS_EF_PID_STR);
    set_id(p, &f->tid, &ev->tid, &ev->tid_str, &ev->flags, DFS_EF_HAS_TID, DFS_EF_TID_STR);
    if (ev->flags & DFS_EF_PID_STR)
        ev->host = ev->pid_str; /* DASF's process_id is the host name */
    ev->nargs = decode_args(p, f, &ev->args);
}

static void parse_record(dfs_pctx *p, const unsigned char *payload, size_t n, uint64_t offset)
{
    dfs_stream *st = p->st;
    dasf_fields f;
    const char *why = scan_record(payload, n, &f);
    if (why) {
        st->bad_records++;
        dfs_diag_add(&st->diag, DFS_PROB_BAD_RECORD, st->file, 0, offset, "%s", why);
        return;
    }
    /* a twin of an earlier record of the file (pctx.h): under --dedup neither a record nor an event */
    uint64_t digest = dfs_digest64(payload, n);
    if (dfs_pctx_drop_duplicate(p, digest, offset))
        return;
    dfs_pctx_note_record(p, digest, offset);
    count_record(p, &f, phase_letter(&f.phase), offset);
    emit_event(p, &f, offset);
}

/* ---- framing -------------------------------------------------------------------------------- */

/* The stream ended inside a record being skipped: it is torn as well as unusable. */
static void skip_overran(dfs_pctx *p, uint64_t end_offset)
{
    dfs_diag_add(&p->st->diag, DFS_PROB_TORN_RECORD, p->st->file, 0, end_offset,
                 "stream ends %llu bytes before the end of a skipped record",
                 (unsigned long long)p->skip_pending);
    p->skip_pending = 0;
}

/* Drops a record of payload length n starting at rec[0] (rem bytes available); what is not in
 * the buffer yet is skipped by the next feeds. */
static size_t skip_record(dfs_pctx *p, size_t rem, uint64_t n, uint64_t offset, int flags)
{
    if (n <= rem - DASF_PREFIX)
        return DASF_PREFIX + (size_t)n;
    p->skip_pending = n - (rem - DASF_PREFIX);
    if (flags & DFS_FEED_FINAL)
        skip_overran(p, offset + rem);
    return rem;
}

static size_t continue_skip(dfs_pctx *p, size_t len, uint64_t offset, int flags)
{
    if (!p->skip_pending)
        return 0;
    size_t take = p->skip_pending < len ? (size_t)p->skip_pending : len;
    p->skip_pending -= take;
    if (p->skip_pending && (flags & DFS_FEED_FINAL))
        skip_overran(p, offset + len);
    return take;
}

static uint64_t max_record(const dfs_pctx *p)
{
    return p->opt && p->opt->max_record ? p->opt->max_record : DASF_DEFAULT_MAX_RECORD;
}

/* Fewer than 8 bytes: a length prefix still to come, or (at the end) garbage. */
static size_t short_tail(dfs_pctx *p, size_t rem, uint64_t offset, bool final, bool full)
{
    dfs_stream *st = p->st;
    if (final) {
        dfs_diag_add(&st->diag, DFS_PROB_TRAILING_GARBAGE, st->file, 0, offset,
                     "%zu bytes after the last record", rem);
        return rem;
    }
    if (!full)
        return 0;
    /* Only with a buffer shorter than a length prefix: drop the bytes to make progress. */
    st->bad_records++;
    dfs_diag_add(&st->diag, DFS_PROB_BAD_RECORD, st->file, 0, offset,
                 "%zu bytes too short to frame", rem);
    return rem;
}

/* A record that will never be parsed: longer than max_record, or (under DFS_FEED_FULL) longer
 * than the caller's buffer. */
static size_t drop_record(dfs_pctx *p, size_t rem, uint64_t n, uint64_t offset, int flags,
                          const char *why)
{
    dfs_stream *st = p->st;
    st->bad_records++;
    dfs_diag_add(&st->diag, DFS_PROB_BAD_RECORD, st->file, 0, offset, "record of %llu bytes %s",
                 (unsigned long long)n, why);
    return skip_record(p, rem, n, offset, flags);
}

/* One record at rec[0..rem); returns the bytes consumed, 0 to wait for more input. `alone`: no
 * byte of this feed was consumed before, so under DFS_FEED_FULL something must be. */
static size_t next_record(dfs_pctx *p, const unsigned char *rec, size_t rem, uint64_t offset,
                          int flags, bool alone)
{
    bool final = flags & DFS_FEED_FINAL, full = (flags & DFS_FEED_FULL) && alone;
    if (rem < DASF_PREFIX)
        return short_tail(p, rem, offset, final, full);
    uint64_t n = load_be(rec, DASF_PREFIX);
    if (n > max_record(p))
        return drop_record(p, rem, n, offset, flags, "above max_record");
    if (n <= rem - DASF_PREFIX) {
        parse_record(p, rec + DASF_PREFIX, (size_t)n, offset);
        return DASF_PREFIX + (size_t)n;
    }
    if (final) {
        dfs_diag_add(&p->st->diag, DFS_PROB_TORN_RECORD, p->st->file, 0, offset,
                     "record of %llu bytes cut by the end of the stream", (unsigned long long)n);
        return rem;
    }
    return full ? drop_record(p, rem, n, offset, flags, "does not fit the read buffer") : 0;
}

size_t dfs_dasf_feed(dfs_pctx *p, const unsigned char *buf, size_t len, uint64_t offset, int flags)
{
    p->st->dialect = DFS_DIALECT_DASF;
    p->st->relative_time = true; /* per-host monotonic clock */
    p->line = 0;
    size_t pos = continue_skip(p, len, offset, flags);
    while (pos < len) {
        size_t used = next_record(p, buf + pos, len - pos, offset + pos, flags, pos == 0);
        if (used == 0)
            break;
        pos += used;
    }
    return pos;
}
