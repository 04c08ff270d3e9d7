/* test_dasf.c - the DASF length-prefixed msgpack reader (src/parse/dasf.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "model/dups.h"
#include "model/ids.h"
#include "parse/dasf.h"
#include "parse/framer.h"

#define DFS_DASF_MIN_RECORD 8 /* a length prefix, even for an empty payload */

/* ---- a small msgpack writer ----------------------------------------------------------------- */

typedef tu_bytes mpbuf;

/* width 0 picks the smallest form; otherwise 1 (str8), 2 or 4 */
static void w_strw(mpbuf *m, const char *s, size_t n, unsigned width)
{
    if (width == 0)
        width = n < 32 ? 0 : n < 256 ? 1 : n < 65536 ? 2 : 4;
    if (width == 0) {
        tu_put_byte(m, 0xa0 | (unsigned)n);
    } else {
        tu_put_byte(m, width == 1 ? 0xd9 : width == 2 ? 0xda : 0xdb);
        tu_put_be(m, n, width);
    }
    tu_put(m, s, n);
}

static void w_str(mpbuf *m, const char *s) { w_strw(m, s, strlen(s), 0); }

/* width 0: fix form; 2 or 4: map16/32 (array16/32) */
static void w_header(mpbuf *m, bool map, uint32_t n, unsigned width)
{
    if (width == 0 && n < 16) {
        tu_put_byte(m, (map ? 0x80 : 0x90) | n);
        return;
    }
    if (width == 0)
        width = n < 65536 ? 2 : 4;
    tu_put_byte(m, map ? (width == 4 ? 0xdf : 0xde) : (width == 4 ? 0xdd : 0xdc));
    tu_put_be(m, n, width);
}

static void w_map(mpbuf *m, uint32_t n) { w_header(m, true, n, 0); }
static void w_arr(mpbuf *m, uint32_t n) { w_header(m, false, n, 0); }
static void w_nil(mpbuf *m) { tu_put_byte(m, 0xc0); }

static void w_f64(mpbuf *m, double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    tu_put_byte(m, 0xcb);
    tu_put_be(m, v, 8);
}

static void w_f32(mpbuf *m, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    tu_put_byte(m, 0xca);
    tu_put_be(m, v, 4);
}

static void w_uint(mpbuf *m, uint64_t v, unsigned width) /* uint8..uint64 */
{
    tu_put_byte(m, width == 1 ? 0xcc : width == 2 ? 0xcd : width == 4 ? 0xce : 0xcf);
    tu_put_be(m, v, width);
}

static void w_int(mpbuf *m, int64_t v, unsigned width) /* int8..int64 */
{
    tu_put_byte(m, width == 1 ? 0xd0 : width == 2 ? 0xd1 : width == 4 ? 0xd2 : 0xd3);
    tu_put_be(m, (uint64_t)v, width);
}

static void kv_str(mpbuf *m, const char *k, const char *v)
{
    w_str(m, k);
    w_str(m, v);
}

static void kv_f64(mpbuf *m, const char *k, double v)
{
    w_str(m, k);
    w_f64(m, v);
}

/* Appends payload to file behind its 8-byte big-endian length. */
static void frame(mpbuf *file, const mpbuf *payload)
{
    tu_put_be(file, payload->n, 8);
    tu_put(file, payload->b, payload->n);
}

/* A typical record: Compute (X) or Managed Memory (I), with args {key, size}. */
static void add_record(mpbuf *file, const char *phase, double ts, double dur, const char *key)
{
    mpbuf pl = {0};
    bool x = strcmp(phase, "X") == 0;
    w_map(&pl, x ? 7 : 6);
    kv_str(&pl, "name", x ? "Compute" : "Managed Memory");
    kv_f64(&pl, "timestamp", ts);
    if (x)
        kv_f64(&pl, "duration", dur);
    kv_str(&pl, "phase", phase);
    kv_str(&pl, "process_id", "c096");
    kv_str(&pl, "thread_id", "worker-c096-1");
    w_str(&pl, "args");
    w_map(&pl, 2);
    kv_str(&pl, "key", key);
    w_str(&pl, "size");
    w_uint(&pl, 300048, 4);
    frame(file, &pl);
    free(pl.b);
}

/* Starts a record map with name/phase/timestamp-key already written; the caller writes the
 * timestamp value and `extra` more pairs. */
static void begin_record(mpbuf *pl, const char *phase, unsigned extra)
{
    w_map(pl, 3 + extra);
    kv_str(pl, "name", "Resource Usage");
    kv_str(pl, "phase", phase);
    w_str(pl, "timestamp");
}

/* ---- a parser context ----------------------------------------------------------------------- */

typedef struct fx {
    tu_parser t;
} fx;

enum want_mode { WANT_NONE, WANT_KEYS, WANT_ALL };

static fx *fx_new(enum want_mode mode)
{
    fx *x = calloc(1, sizeof *x);
    assert_non_null(x);
    tu_parser_init(&x->t, 3);
    if (mode == WANT_KEYS) {
        x->t.want.keys = DFS_KEYBIT(DFS_KEY_KEY) | DFS_KEYBIT(DFS_KEY_DEPENDENCIES);
        x->t.want.nextra = 1;
        x->t.want.extra[0] = "gpu_memory_used";
        x->t.want.extra_len[0] = strlen("gpu_memory_used");
        x->t.want.extra_id[0] = dfs_strtab_intern(x->t.table, "gpu_memory_used", 15);
    }
    x->t.want.all = mode == WANT_ALL;
    return x;
}

static void fx_free(fx *x)
{
    tu_parser_free(&x->t);
    free(x);
}

static uint64_t problems(const fx *x, dfs_problem p) { return x->t.st.diag.counts[p]; }

static size_t nevents(const fx *x) { return x->t.batch.events.n; }

static const dfs_event *event(const fx *x, size_t i)
{
    assert_true(i < x->t.batch.events.n);
    return &x->t.batch.events.v[i];
}

static bool str_eq(const fx *x, dfs_str s, const char *want)
{
    size_t n;
    const char *got = dfs_strtab_get(x->t.table, s, &n);
    return n == strlen(want) && memcmp(got, want, n) == 0;
}

static const dfs_value *arg(const fx *x, const dfs_event *ev, const char *key)
{
    dfs_str k = dfs_strtab_find(x->t.table, key, strlen(key));
    return k ? dfs_event_arg(ev, k) : NULL;
}

/* Feeds data like a reader does: pieces of `piece` bytes appended to a buffer of at most `cap`
 * bytes (0: unbounded), unconsumed bytes kept for the next call, DFS_FEED_FULL when the buffer is
 * full and DFS_FEED_FINAL with the last piece. */
static void drive(fx *x, const unsigned char *data, size_t len, size_t piece, size_t cap)
{
    size_t bufcap = cap ? cap : len;
    unsigned char *buf = malloc(bufcap + 1);
    size_t have = 0, fed = 0;
    uint64_t base = 0;
    assert_non_null(buf);
    for (;;) {
        size_t take = len - fed < piece ? len - fed : piece;
        if (take > bufcap - have)
            take = bufcap - have;
        memcpy(buf + have, data + fed, take);
        have += take;
        fed += take;
        int flags = fed == len ? DFS_FEED_FINAL : 0;
        if (!flags && have == bufcap)
            flags |= DFS_FEED_FULL;
        size_t used = dfs_dasf_feed(&x->t.p, buf, have, base, flags);
        assert_true(used <= have);
        if (flags & DFS_FEED_FINAL) {
            assert_int_equal(used, have);
            break;
        }
        if (flags & DFS_FEED_FULL)
            assert_true(used > 0);
        memmove(buf, buf + used, have - used);
        have -= used;
        base += used;
    }
    dfs_stream *whole = &x->t.st; /* the file read whole: its duplicates judged, as a worker does */
    dfs_dups_judge(&x->t.st.diag, x->t.st.file, &whole, 1);
    free(buf);
}

static fx *read_all(const mpbuf *file, enum want_mode mode)
{
    fx *x = fx_new(mode);
    drive(x, file->b, file->n, file->n ? file->n : 1, 0);
    return x;
}

/* ---- comparing two readings ----------------------------------------------------------------- */

static bool value_same(const fx *a, const dfs_value *va, const fx *b, const dfs_value *vb);

static bool args_same(const fx *a, const dfs_arg *xa, const fx *b, const dfs_arg *xb, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        size_t la, lb;
        const char *ka = dfs_strtab_get(a->t.table, xa[i].key, &la);
        const char *kb = dfs_strtab_get(b->t.table, xb[i].key, &lb);
        if (la != lb || memcmp(ka, kb, la) || !value_same(a, &xa[i].val, b, &xb[i].val))
            return false;
    }
    return true;
}

static bool value_same(const fx *a, const dfs_value *va, const fx *b, const dfs_value *vb)
{
    if (va->type != vb->type || va->len != vb->len)
        return false;
    switch (va->type) {
    case DFS_V_STR: {
        size_t la, lb;
        const char *sa = dfs_strtab_get(a->t.table, va->as.s, &la);
        const char *sb = dfs_strtab_get(b->t.table, vb->as.s, &lb);
        return la == lb && memcmp(sa, sb, la) == 0;
    }
    case DFS_V_LIST:
    case DFS_V_MAP: return args_same(a, va->as.items, b, vb->as.items, va->len);
    case DFS_V_FLOAT: return memcmp(&va->as.f, &vb->as.f, sizeof va->as.f) == 0;
    case DFS_V_UINT: return va->as.u == vb->as.u;
    case DFS_V_INT:
    case DFS_V_BOOL: return va->as.i == vb->as.i;
    default: return true;
    }
}

static void assert_same_reading(const fx *a, const fx *b)
{
    assert_int_equal(a->t.st.records, b->t.st.records);
    assert_int_equal(a->t.st.bad_records, b->t.st.bad_records);
    assert_memory_equal(a->t.st.diag.counts, b->t.st.diag.counts, sizeof a->t.st.diag.counts);
    assert_memory_equal(a->t.st.phase_counts, b->t.st.phase_counts, sizeof a->t.st.phase_counts);
    assert_memory_equal(a->t.st.ph_written, b->t.st.ph_written, sizeof a->t.st.ph_written);
    for (int p = 0; p < DFS_PROB__COUNT; p++) {
        assert_int_equal(a->t.st.diag.examples[p].n, b->t.st.diag.examples[p].n);
        for (size_t i = 0; i < a->t.st.diag.examples[p].n; i++)
            assert_int_equal(a->t.st.diag.examples[p].v[i].offset,
                             b->t.st.diag.examples[p].v[i].offset);
    }
    assert_int_equal(nevents(a), nevents(b));
    for (size_t i = 0; i < nevents(a); i++) {
        const dfs_event *ea = event(a, i), *eb = event(b, i);
        assert_int_equal(ea->ts, eb->ts);
        assert_int_equal(ea->dur, eb->dur);
        assert_int_equal(ea->pid, eb->pid);
        assert_int_equal(ea->tid, eb->tid);
        assert_int_equal(ea->offset, eb->offset);
        assert_int_equal(ea->flags, eb->flags);
        assert_int_equal(ea->phase, eb->phase);
        assert_int_equal(ea->ph, eb->ph);
        assert_int_equal(ea->nargs, eb->nargs);
        assert_true(args_same(a, ea->args, b, eb->args, ea->nargs));
    }
}

/* Every piece size from 1 byte up (and a few capped buffers) reads like one whole buffer. */
static void assert_piece_invariant(const mpbuf *file, size_t max_piece)
{
    fx *whole = read_all(file, WANT_ALL);
    for (size_t piece = 1; piece <= max_piece && piece <= file->n; piece++) {
        fx *x = fx_new(WANT_ALL);
        drive(x, file->b, file->n, piece, 0);
        assert_same_reading(whole, x);
        fx_free(x);
    }
    fx_free(whole);
}

/* ---- corpus --------------------------------------------------------------------------------- */

static bool load_corpus(const char *name, mpbuf *out)
{
    char rel[256];
    snprintf(rel, sizeof rel, "dasf/%s", name);
    const char *path = tu_trace(rel);
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f)
        return false;
    unsigned char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        tu_put(out, chunk, n);
    fclose(f);
    return true;
}

static const struct {
    const char *file;
    uint64_t records;
} corpus[] = {
    {"Tutorial_5_Profile-ResourceMonitor-c096.reconstructed.msgpack", 10},
    {"Tutorial_5_Profile-TracePlugin-c096.reconstructed.msgpack", 11},
    {"test_analysis_integration_events.synthetic.msgpack", 3},
    {"test_analysis_setUp_events.synthetic.msgpack", 4},
};

static void test_corpus_counts(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
        mpbuf file = {0};
        if (!load_corpus(corpus[i].file, &file))
            skip();
        fx *x = read_all(&file, WANT_KEYS);
        assert_int_equal(x->t.st.records, corpus[i].records);
        assert_int_equal(nevents(x), corpus[i].records);
        assert_int_equal(x->t.st.bad_records, 0);
        assert_int_equal(dfs_diag_damage(&x->t.st.diag), 0);
        assert_int_equal(x->t.st.dialect, DFS_DIALECT_DASF);
        assert_true(x->t.st.relative_time);
        fx_free(x);
        free(file.b);
    }
}

static void test_corpus_trace_plugin(void **state)
{
    (void)state;
    mpbuf file = {0};
    if (!load_corpus(corpus[1].file, &file))
        skip();
    fx *x = read_all(&file, WANT_KEYS);
    const dfs_event *ev = event(x, 0);
    assert_true(str_eq(x, ev->name, "Compute"));
    assert_true(str_eq(x, ev->cat, "dasf"));
    assert_int_equal(ev->phase, DFS_PHASE_COMPLETE);
    assert_int_equal(ev->ph, 'X');
    assert_int_equal(ev->offset, 0);
    assert_int_equal(ev->file, 3);
    assert_int_equal(ev->dur, llround(0.050518035888671875 * 1e9));
    assert_int_equal(ev->ts + ev->dur, llround(3837.884328029 * 1e9));
    assert_true(ev->flags & DFS_EF_HAS_TS);
    assert_true(ev->flags & DFS_EF_HAS_DUR);
    assert_false(ev->flags & DFS_EF_BAD_TIME);
    assert_true(ev->flags & DFS_EF_PID_STR);
    assert_true(ev->flags & DFS_EF_TID_STR);
    assert_true(str_eq(x, ev->pid_str, "c096"));
    assert_true(str_eq(x, ev->host, "c096"));
    assert_true(str_eq(x, ev->tid_str, "worker-c096-2"));
    assert_int_equal(ev->pid, dfs_synthetic_id("c096", 4));
    assert_true(ev->pid < 0);
    assert_int_equal(ev->tid, dfs_synthetic_id("worker-c096-2", 13));
    assert_int_equal(ev->nargs, 2); /* key and dependencies wanted; gpu_memory_used absent */
    const dfs_value *key = arg(x, ev, "key");
    assert_non_null(key);
    assert_int_equal(key->type, DFS_V_STR);
    assert_true(str_eq(x, key->as.s, "getGPUs-42237764-1836-4be8-ae62-948ce02e1d6a"));
    const dfs_value *deps = dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_DEPENDENCIES));
    assert_non_null(deps);
    assert_int_equal(deps->type, DFS_V_LIST);
    assert_int_equal(deps->len, 0);
    assert_null(dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_SIZE)));

    ev = event(x, 1);
    assert_true(str_eq(x, ev->name, "Managed Memory"));
    assert_int_equal(ev->ph, 'I');
    assert_int_equal(ev->offset, 286);
    assert_int_equal(ev->ts, llround(3907.782270047 * 1e9));
    assert_false(ev->flags & DFS_EF_HAS_DUR);

    ev = event(x, 6); /* the first Compute with a dependency */
    deps = dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_DEPENDENCIES));
    assert_int_equal(deps->len, 1);
    assert_true(str_eq(x, deps->as.items[0].val.as.s,
                       "original-array-64bef1cc631f078a2e8f3d2c24d62e99"));
    assert_int_equal(x->t.st.phase_counts[DFS_PHASE_COMPLETE], 6);
    assert_int_equal(x->t.st.phase_counts[DFS_PHASE_INSTANT], 5);
    assert_int_equal(x->t.st.ph_written['X'], 6);
    assert_int_equal(x->t.st.ph_written['I'], 5);
    fx_free(x);
    free(file.b);
}

static void test_corpus_resource_monitor(void **state)
{
    (void)state;
    mpbuf file = {0};
    if (!load_corpus(corpus[0].file, &file))
        skip();
    fx *x = read_all(&file, WANT_ALL);
    const dfs_event *ev = event(x, 0);
    assert_true(str_eq(x, ev->name, "Resource Usage"));
    assert_int_equal(ev->phase, DFS_PHASE_INSTANT);
    assert_int_equal(ev->ts, llround(3869.01274743 * 1e9));
    assert_true(ev->flags & DFS_EF_HAS_PID);
    assert_false(ev->flags & (DFS_EF_HAS_TID | DFS_EF_TID_STR)); /* thread_id is nil */
    assert_int_equal(ev->nargs, 10);
    const dfs_value *v = arg(x, ev, "gpu_memory_used");
    assert_int_equal(v->type, DFS_V_INT);
    assert_int_equal(v->as.i, 3158966272);
    v = arg(x, ev, "host_net_io.read_bps");
    assert_int_equal(v->type, DFS_V_FLOAT);
    assert_true(fabs(v->as.f - 10685583.118998485) < 1e-6);
    v = arg(x, ev, "cpu");
    assert_int_equal(v->type, DFS_V_FLOAT);
    assert_true(v->as.f == 40.2);
    v = arg(x, ev, "memory");
    assert_int_equal(v->as.i, 2744729600);
    assert_int_equal(event(x, 9)->offset, 2772);
    fx_free(x);
    free(file.b);
}

static void test_corpus_pieces(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
        mpbuf file = {0};
        if (!load_corpus(corpus[i].file, &file))
            skip();
        assert_piece_invariant(&file, file.n);
        free(file.b);
    }
}

/* A read buffer smaller than the largest records: those are dropped, the rest read. */
static void test_corpus_full_buffer(void **state)
{
    (void)state;
    mpbuf file = {0};
    if (!load_corpus(corpus[1].file, &file))
        skip();
    for (size_t piece = 1; piece <= 64; piece++) {
        fx *x = fx_new(WANT_ALL);
        drive(x, file.b, file.n, piece, 300);
        assert_int_equal(x->t.st.records, 8); /* three records of 348-351 bytes do not fit */
        assert_int_equal(x->t.st.bad_records, 3);
        assert_int_equal(problems(x, DFS_PROB_BAD_RECORD), 3);
        assert_int_equal(problems(x, DFS_PROB_TORN_RECORD), 0);
        assert_int_equal(event(x, 7)->offset, 2354);
        fx_free(x);
    }
    free(file.b);
}

/* ---- framing -------------------------------------------------------------------------------- */

static void test_clean_records(void **state)
{
    (void)state;
    mpbuf file = {0};
    add_record(&file, "X", 100.0, 2.0, "task-1");
    add_record(&file, "I", 105.0, 0, "task-1");
    add_record(&file, "B", 106.0, 0, "b");
    add_record(&file, "E", 107.0, 0, "e");
    fx *x = read_all(&file, WANT_NONE);
    assert_int_equal(x->t.st.records, 4);
    assert_int_equal(nevents(x), 4);
    assert_int_equal(event(x, 0)->ts, INT64_C(98000000000));
    assert_int_equal(event(x, 0)->dur, INT64_C(2000000000));
    assert_int_equal(event(x, 0)->nargs, 0);
    assert_int_equal(event(x, 2)->phase, DFS_PHASE_BEGIN);
    assert_int_equal(event(x, 3)->phase, DFS_PHASE_END);
    assert_int_equal(event(x, 3)->ts, INT64_C(107000000000));
    assert_int_equal(x->t.st.ph_written['B'], 1);
    assert_int_equal(x->t.st.ph_written['E'], 1);
    assert_int_equal(dfs_diag_damage(&x->t.st.diag), 0);
    fx_free(x);
    free(file.b);
}

static void test_empty_stream(void **state)
{
    (void)state;
    fx *x = fx_new(WANT_ALL);
    assert_int_equal(dfs_dasf_feed(&x->t.p, (const unsigned char *)"", 0, 0, DFS_FEED_FINAL), 0);
    assert_int_equal(x->t.st.records, 0);
    assert_int_equal(dfs_diag_damage(&x->t.st.diag), 0);
    fx_free(x);
}

static void test_torn_record(void **state)
{
    (void)state;
    mpbuf file = {0};
    add_record(&file, "X", 1.0, 0.5, "a");
    add_record(&file, "I", 2.0, 0, "b");
    size_t good = file.n;
    add_record(&file, "I", 3.0, 0, "c");
    file.n -= 20; /* cut the third record's payload */
    fx *x = read_all(&file, WANT_ALL);
    assert_int_equal(x->t.st.records, 2);
    assert_int_equal(problems(x, DFS_PROB_TORN_RECORD), 1);
    assert_int_equal(x->t.st.diag.examples[DFS_PROB_TORN_RECORD].v[0].offset, good);
    assert_int_equal(problems(x, DFS_PROB_BAD_RECORD), 0);
    fx_free(x);
    assert_piece_invariant(&file, file.n);

    file.n = good + 8; /* a prefix and no payload at all */
    x = read_all(&file, WANT_ALL);
    assert_int_equal(x->t.st.records, 2);
    assert_int_equal(problems(x, DFS_PROB_TORN_RECORD), 1);
    fx_free(x);
    free(file.b);
}

static void test_oversized_length(void **state)
{
    (void)state;
    mpbuf file = {0};
    add_record(&file, "I", 1.0, 0, "small");
    size_t big_at = file.n;
    mpbuf pl = {0};
    begin_record(&pl, "I", 1);
    w_f64(&pl, 2.0);
    w_str(&pl, "args");
    w_map(&pl, 1);
    w_str(&pl, "blob");
    char text[3000];
    memset(text, 'z', sizeof text);
    w_strw(&pl, text, sizeof text, 0);
    frame(&file, &pl);
    add_record(&file, "I", 3.0, 0, "after");
    free(pl.b);

    /* max_record 1000: the 3 KB record is skipped by its length, reading goes on */
    for (size_t piece = 1; piece <= file.n; piece += piece < 40 ? 1 : 97) {
        fx *x = fx_new(WANT_ALL);
        x->t.opt.max_record = 1000;
        drive(x, file.b, file.n, piece, 0);
        assert_int_equal(x->t.st.records, 2);
        assert_int_equal(x->t.st.bad_records, 1);
        assert_int_equal(problems(x, DFS_PROB_BAD_RECORD), 1);
        assert_int_equal(x->t.st.diag.examples[DFS_PROB_BAD_RECORD].v[0].offset, big_at);
        assert_int_equal(problems(x, DFS_PROB_TORN_RECORD), 0);
        assert_true(str_eq(x, dfs_event_arg(event(x, 1), DFS_KEY_STR(DFS_KEY_KEY))->as.s,
                           "after"));
        fx_free(x);
    }
    free(file.b);

    /* a length of 2^64-1 at the end: not a record, and the stream ends inside it */
    file = (mpbuf){0};
    add_record(&file, "I", 1.0, 0, "small");
    tu_put_be(&file, UINT64_MAX, 8);
    tu_put(&file, "abc", 3);
    fx *x = read_all(&file, WANT_ALL);
    assert_int_equal(x->t.st.records, 1);
    assert_int_equal(problems(x, DFS_PROB_BAD_RECORD), 1);
    assert_int_equal(problems(x, DFS_PROB_TORN_RECORD), 1);
    fx_free(x);
    assert_piece_invariant(&file, file.n);
    free(file.b);
}

static void test_zero_length(void **state)
{
    (void)state;
    mpbuf file = {0};
    tu_put_be(&file, 0, 8);
    add_record(&file, "I", 1.0, 0, "a");
    tu_put_be(&file, 0, 8);
    fx *x = read_all(&file, WANT_ALL);
    assert_int_equal(x->t.st.records, 1);
    assert_int_equal(x->t.st.bad_records, 2);
    assert_int_equal(problems(x, DFS_PROB_BAD_RECORD), 2);
    assert_int_equal(event(x, 0)->offset, 8);
    assert_int_equal(problems(x, DFS_PROB_TRAILING_GARBAGE), 0);
    fx_free(x);
    assert_piece_invariant(&file, file.n);
    free(file.b);
}

static void test_unknown_phase(void **state)
{
    (void)state;
    mpbuf file = {0}, pl = {0};
    begin_record(&pl, "Q", 0);
    w_f64(&pl, 1.0);
    frame(&file, &pl);
    pl.n = 0;
    begin_record(&pl, "XX", 0);
    w_f64(&pl, 2.0);
    frame(&file, &pl);
    add_record(&file, "I", 3.0, 0, "ok");
    fx *x = read_all(&file, WANT_ALL);
    assert_int_equal(x->t.st.records, 3);
    assert_int_equal(nevents(x), 3);
    assert_int_equal(problems(x, DFS_PROB_UNKNOWN_PHASE), 2);
    assert_int_equal(x->t.st.phase_counts[DFS_PHASE_OTHER], 2);
    assert_int_equal(x->t.st.ph_written['?'], 2);
    assert_int_equal(event(x, 0)->phase, DFS_PHASE_OTHER);
    assert_int_equal(event(x, 0)->ph, '?');
    assert_int_equal(event(x, 0)->ts, INT64_C(1000000000));
    fx_free(x);
    free(file.b);
    free(pl.b);
}

/* Each payload is bad; a good record follows each one. */
static void test_bad_payloads(void **state)
{
    (void)state;
    mpbuf file = {0}, pl = {0};
    size_t nbad = 0;
    /* no name */
    w_map(&pl, 2);
    kv_str(&pl, "phase", "I");
    kv_f64(&pl, "timestamp", 1.0);
    frame(&file, &pl);
    nbad++;
    /* no phase */
    pl.n = 0;
    w_map(&pl, 2);
    kv_str(&pl, "name", "Compute");
    kv_f64(&pl, "timestamp", 1.0);
    frame(&file, &pl);
    nbad++;
    /* no timestamp */
    pl.n = 0;
    w_map(&pl, 2);
    kv_str(&pl, "name", "Compute");
    kv_str(&pl, "phase", "I");
    frame(&file, &pl);
    nbad++;
    /* timestamp of the wrong type */
    pl.n = 0;
    begin_record(&pl, "I", 0);
    w_str(&pl, "soon");
    frame(&file, &pl);
    nbad++;
    /* an array, not a map */
    pl.n = 0;
    w_arr(&pl, 2);
    w_str(&pl, "name");
    w_str(&pl, "Compute");
    frame(&file, &pl);
    nbad++;
    /* a byte after the map */
    pl.n = 0;
    begin_record(&pl, "I", 0);
    w_f64(&pl, 1.0);
    tu_put_byte(&pl, 0xc0);
    frame(&file, &pl);
    nbad++;
    /* the map is cut by N */
    pl.n = 0;
    begin_record(&pl, "I", 0);
    w_f64(&pl, 1.0);
    pl.n -= 3;
    frame(&file, &pl);
    nbad++;
    /* the never-used tag 0xc1 */
    pl.n = 0;
    begin_record(&pl, "I", 1);
    w_f64(&pl, 1.0);
    w_str(&pl, "args");
    tu_put_byte(&pl, 0xc1);
    frame(&file, &pl);
    nbad++;
    /* a count the bytes cannot hold */
    pl.n = 0;
    begin_record(&pl, "I", 1);
    w_f64(&pl, 1.0);
    w_str(&pl, "args");
    tu_put_byte(&pl, 0xdd);
    tu_put_be(&pl, UINT32_MAX, 4);
    frame(&file, &pl);
    nbad++;
    add_record(&file, "I", 9.0, 0, "good");
    fx *x = read_all(&file, WANT_ALL);
    assert_int_equal(x->t.st.records, 1);
    assert_int_equal(x->t.st.bad_records, nbad);
    assert_int_equal(problems(x, DFS_PROB_BAD_RECORD), nbad);
    assert_int_equal(nevents(x), 1);
    assert_int_equal(event(x, 0)->ts, INT64_C(9000000000));
    fx_free(x);
    assert_piece_invariant(&file, file.n);
    free(file.b);
    free(pl.b);
}

static void test_trailing_bytes(void **state)
{
    (void)state;
    for (size_t k = 1; k <= 7; k++) {
        mpbuf file = {0};
        add_record(&file, "I", 1.0, 0, "a");
        size_t end = file.n;
        tu_put(&file, "\0\0\0\0\0\0\0", k);
        fx *x = read_all(&file, WANT_ALL);
        assert_int_equal(x->t.st.records, 1);
        assert_int_equal(problems(x, DFS_PROB_TRAILING_GARBAGE), 1);
        assert_int_equal(x->t.st.diag.examples[DFS_PROB_TRAILING_GARBAGE].v[0].offset, end);
        assert_int_equal(problems(x, DFS_PROB_TORN_RECORD), 0);
        fx_free(x);
        assert_piece_invariant(&file, file.n);
        free(file.b);
    }
}

/* ---- msgpack coverage ----------------------------------------------------------------------- */

typedef void (*writer)(mpbuf *m);
static void w_fixpos(mpbuf *m) { tu_put_byte(m, 0x07); }
static void w_fixneg(mpbuf *m) { tu_put_byte(m, 0xfd); } /* -3 */
static void w_u8(mpbuf *m) { w_uint(m, 200, 1); }
static void w_u16(mpbuf *m) { w_uint(m, 60000, 2); }
static void w_u32(mpbuf *m) { w_uint(m, 4000000000u, 4); }
static void w_u64(mpbuf *m) { w_uint(m, 9000000000u, 8); }
static void w_i8(mpbuf *m) { w_int(m, -100, 1); }
static void w_i16(mpbuf *m) { w_int(m, -30000, 2); }
static void w_i32(mpbuf *m) { w_int(m, -2000000000, 4); }
static void w_i64(mpbuf *m) { w_int(m, -9000000000, 8); }
static void w_fl32(mpbuf *m) { w_f32(m, 1.5f); }
static void w_fl64(mpbuf *m) { w_f64(m, 3869.01274743); }

static const struct {
    const char *what;
    writer w;
    int64_t value; /* as an integer arg; floats: 0 */
    int64_t ts_ns;
} widths[] = {
    {"fixint+", w_fixpos, 7, INT64_C(7000000000)},
    {"fixint-", w_fixneg, -3, INT64_C(-3000000000)},
    {"uint8", w_u8, 200, INT64_C(200000000000)},
    {"uint16", w_u16, 60000, INT64_C(60000000000000)},
    {"uint32", w_u32, 4000000000, INT64_C(4000000000000000000)},
    {"uint64", w_u64, 9000000000, INT64_C(9000000000000000000)},
    {"int8", w_i8, -100, INT64_C(-100000000000)},
    {"int16", w_i16, -30000, INT64_C(-30000000000000)},
    {"int32", w_i32, -2000000000, INT64_C(-2000000000000000000)},
    {"int64", w_i64, -9000000000, INT64_C(-9000000000000000000)},
    {"float32", w_fl32, 0, INT64_C(1500000000)},
    {"float64", w_fl64, 0, INT64_C(3869012747430)},
};

static void test_number_widths_as_timestamp(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        mpbuf file = {0}, pl = {0};
        begin_record(&pl, "I", 0);
        widths[i].w(&pl);
        frame(&file, &pl);
        fx *x = read_all(&file, WANT_NONE);
        assert_int_equal(x->t.st.records, 1);
        const dfs_event *ev = event(x, 0);
        if (ev->ts != widths[i].ts_ns)
            fail_msg("%s: ts %lld", widths[i].what, (long long)ev->ts);
        assert_true(ev->flags & DFS_EF_HAS_TS);
        assert_int_equal(problems(x, DFS_PROB_TIME_OVERFLOW), 0);
        fx_free(x);
        free(file.b);
        free(pl.b);
    }
}

static void test_number_widths_as_args(void **state)
{
    (void)state;
    size_t n = sizeof widths / sizeof widths[0];
    mpbuf file = {0}, pl = {0};
    begin_record(&pl, "I", 1);
    w_f64(&pl, 1.0);
    w_str(&pl, "args");
    w_map(&pl, (uint32_t)n + 3);
    for (size_t i = 0; i < n; i++) {
        w_str(&pl, widths[i].what);
        widths[i].w(&pl);
    }
    w_str(&pl, "big");
    w_uint(&pl, UINT64_MAX, 8);
    w_str(&pl, "t");
    tu_put_byte(&pl, 0xc3);
    w_str(&pl, "nothing");
    w_nil(&pl);
    frame(&file, &pl);
    fx *x = read_all(&file, WANT_ALL);
    const dfs_event *ev = event(x, 0);
    assert_int_equal(ev->nargs, n + 3);
    for (size_t i = 0; i < n; i++) {
        const dfs_value *v = arg(x, ev, widths[i].what);
        assert_non_null(v);
        if (widths[i].value) {
            assert_int_equal(v->type, DFS_V_INT);
            assert_int_equal(v->as.i, widths[i].value);
        } else {
            assert_int_equal(v->type, DFS_V_FLOAT);
        }
    }
    assert_true(arg(x, ev, "float32")->as.f == 1.5);
    assert_true(arg(x, ev, "float64")->as.f == 3869.01274743);
    assert_int_equal(arg(x, ev, "big")->type, DFS_V_UINT);
    assert_true(arg(x, ev, "big")->as.u == UINT64_MAX);
    assert_int_equal(arg(x, ev, "t")->type, DFS_V_BOOL);
    assert_int_equal(arg(x, ev, "t")->as.i, 1);
    assert_int_equal(arg(x, ev, "nothing")->type, DFS_V_NULL);
    fx_free(x);
    free(file.b);
    free(pl.b);
}

static void test_time_overflow(void **state)
{
    (void)state;
    mpbuf file = {0}, pl = {0};
    begin_record(&pl, "I", 0);
    w_uint(&pl, UINT64_MAX, 8); /* seconds beyond int64 ns */
    frame(&file, &pl);
    pl.n = 0;
    begin_record(&pl, "I", 0);
    w_f64(&pl, NAN);
    frame(&file, &pl);
    pl.n = 0;
    begin_record(&pl, "X", 1);
    w_f64(&pl, 10.0);
    kv_f64(&pl, "duration", INFINITY);
    frame(&file, &pl);
    pl.n = 0;
    begin_record(&pl, "I", 0);
    w_int(&pl, 9300000000, 8); /* just beyond int64 ns */
    frame(&file, &pl);
    fx *x = read_all(&file, WANT_ALL);
    assert_int_equal(x->t.st.records, 4);
    assert_int_equal(problems(x, DFS_PROB_TIME_OVERFLOW), 4);
    for (size_t i = 0; i < 4; i++)
        assert_true(event(x, i)->flags & DFS_EF_BAD_TIME);
    assert_false(event(x, 0)->flags & DFS_EF_HAS_TS);
    assert_false(event(x, 2)->flags & DFS_EF_HAS_DUR);
    fx_free(x);
    free(file.b);
    free(pl.b);
}

static void test_durations(void **state)
{
    (void)state;
    mpbuf file = {0}, pl = {0};
    add_record(&file, "X", 10.0, -1.0, "negative");
    add_record(&file, "X", 1e7, 8 * 86400.0, "absurd");
    begin_record(&pl, "X", 0); /* no duration */
    w_f64(&pl, 5.0);
    frame(&file, &pl);
    add_record(&file, "X", 3869.01274743, 0.050518035888671875, "exact");
    fx *x = read_all(&file, WANT_NONE);
    assert_int_equal(x->t.st.records, 4);
    assert_int_equal(problems(x, DFS_PROB_NEGATIVE_DUR), 1);
    assert_int_equal(problems(x, DFS_PROB_ABSURD_DUR), 1);
    assert_int_equal(problems(x, DFS_PROB_X_WITHOUT_DUR), 1);
    assert_true(event(x, 0)->flags & DFS_EF_BAD_TIME);
    assert_true(event(x, 1)->flags & DFS_EF_BAD_TIME);
    assert_int_equal(event(x, 2)->ts, INT64_C(5000000000));
    assert_false(event(x, 2)->flags & DFS_EF_HAS_DUR);
    assert_int_equal(event(x, 2)->phase, DFS_PHASE_COMPLETE);
    const dfs_event *ev = event(x, 3);
    assert_int_equal(ev->ts + ev->dur, llround(3869.01274743 * 1e9));
    assert_int_equal(ev->dur, llround(0.050518035888671875 * 1e9));
    fx_free(x);
    free(file.b);
    free(pl.b);
}

static void test_ids(void **state)
{
    (void)state;
    mpbuf file = {0}, pl = {0};
    begin_record(&pl, "I", 2);
    w_f64(&pl, 1.0);
    w_str(&pl, "process_id");
    w_uint(&pl, 4242, 2);
    w_str(&pl, "thread_id");
    w_int(&pl, -7, 1);
    frame(&file, &pl);
    pl.n = 0;
    begin_record(&pl, "I", 1); /* no ids at all */
    w_f64(&pl, 2.0);
    w_str(&pl, "thread_id");
    w_nil(&pl);
    frame(&file, &pl);
    fx *x = read_all(&file, WANT_NONE);
    const dfs_event *ev = event(x, 0);
    assert_int_equal(ev->pid, 4242);
    assert_int_equal(ev->tid, -7);
    assert_int_equal(ev->flags & (DFS_EF_HAS_PID | DFS_EF_HAS_TID | DFS_EF_PID_STR |
                                  DFS_EF_TID_STR),
                     DFS_EF_HAS_PID | DFS_EF_HAS_TID);
    assert_int_equal(ev->pid_str, 0);
    ev = event(x, 1);
    assert_int_equal(ev->flags & (DFS_EF_HAS_PID | DFS_EF_HAS_TID), 0);
    fx_free(x);
    free(file.b);
    free(pl.b);
}

static void test_string_widths(void **state)
{
    (void)state;
    char *long16 = malloc(300), *long32 = malloc(70000);
    memset(long16, 'a', 300);
    memset(long32, 'b', 70000);
    mpbuf file = {0}, pl = {0};
    w_map(&pl, 4);
    w_strw(&pl, "name", 4, 1);
    w_strw(&pl, "Compute", 7, 1); /* str8 */
    w_strw(&pl, "phase", 5, 2);
    w_strw(&pl, "I", 1, 4);
    w_strw(&pl, "timestamp", 9, 4);
    w_f64(&pl, 1.0);
    w_str(&pl, "args");
    w_map(&pl, 3);
    w_strw(&pl, "s16", 3, 2);
    w_strw(&pl, long16, 300, 2);
    w_strw(&pl, "s32", 3, 4);
    w_strw(&pl, long32, 70000, 4);
    w_str(&pl, "empty");
    w_str(&pl, "");
    frame(&file, &pl);
    fx *x = read_all(&file, WANT_ALL);
    const dfs_event *ev = event(x, 0);
    assert_true(str_eq(x, ev->name, "Compute"));
    assert_int_equal(ev->ph, 'I');
    size_t n;
    const dfs_value *v = arg(x, ev, "s16");
    dfs_strtab_get(x->t.table, v->as.s, &n);
    assert_int_equal(n, 300);
    v = arg(x, ev, "s32");
    const char *s = dfs_strtab_get(x->t.table, v->as.s, &n);
    assert_int_equal(n, 70000);
    assert_memory_equal(s, long32, 70000);
    v = arg(x, ev, "empty");
    assert_int_equal(v->type, DFS_V_STR);
    assert_int_equal(v->as.s, 0);
    fx_free(x);
    free(file.b);
    free(pl.b);
    free(long16);
    free(long32);
}

static void test_container_widths(void **state)
{
    (void)state;
    mpbuf file = {0}, pl = {0};
    w_header(&pl, true, 4, 2); /* map16 record */
    kv_str(&pl, "name", "Compute");
    kv_str(&pl, "phase", "I");
    kv_f64(&pl, "timestamp", 1.0);
    w_str(&pl, "args");
    w_header(&pl, true, 3, 4); /* map32 args */
    w_str(&pl, "shape");
    w_header(&pl, false, 3, 2); /* array16 */
    w_uint(&pl, 10, 1);
    w_uint(&pl, 20, 2);
    tu_put_byte(&pl, 30);
    w_str(&pl, "dependencies");
    w_header(&pl, false, 2, 4); /* array32 */
    w_str(&pl, "task-0");
    w_str(&pl, "task-1");
    w_str(&pl, "nested");
    w_header(&pl, true, 2, 2); /* map16 value */
    w_str(&pl, "inner");
    w_map(&pl, 1);
    kv_str(&pl, "deep", "yes");
    w_str(&pl, "list");
    w_arr(&pl, 0);
    frame(&file, &pl);
    fx *x = read_all(&file, WANT_ALL);
    assert_int_equal(x->t.st.records, 1);
    const dfs_event *ev = event(x, 0);
    assert_int_equal(ev->nargs, 3);
    const dfs_value *v = dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_SHAPE));
    assert_int_equal(v->type, DFS_V_LIST);
    assert_int_equal(v->len, 3);
    assert_int_equal(v->as.items[2].val.as.i, 30);
    v = dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_DEPENDENCIES));
    assert_int_equal(v->len, 2);
    assert_true(str_eq(x, v->as.items[1].val.as.s, "task-1"));
    v = arg(x, ev, "nested");
    assert_int_equal(v->type, DFS_V_MAP);
    assert_int_equal(v->len, 2);
    assert_true(str_eq(x, v->as.items[0].key, "inner"));
    assert_true(str_eq(x, v->as.items[0].val.as.items[0].val.as.s, "yes"));
    assert_int_equal(v->as.items[1].val.type, DFS_V_LIST);
    fx_free(x);
    free(file.b);
    free(pl.b);
}

/* bin8/16/32, fixext 1-16 and ext8/16/32 are stepped over; the record keeps everything else. */
static void test_bin_ext_skipped(void **state)
{
    (void)state;
    static const unsigned char blobs[][12] = {
        {0xc4, 2, 'h', 'i'},
        {0xc5, 0, 1, 'x'},
        {0xc6, 0, 0, 0, 1, 'y'},
        {0xd4, 1, 9},
        {0xd5, 1, 9, 9},
        {0xd6, 1, 1, 2, 3, 4},
        {0xd7, 1, 1, 2, 3, 4, 5, 6, 7, 8},
        {0xc7, 1, 5, 'z'},
        {0xc8, 0, 1, 5, 'z'},
        {0xc9, 0, 0, 0, 1, 5, 'z'},
    };
    static const size_t sizes[] = {4, 4, 6, 3, 4, 6, 10, 4, 5, 7};
    unsigned char fixext16[18] = {0xd8, 1};
    mpbuf file = {0}, pl = {0};
    size_t nb = sizeof sizes / sizeof sizes[0];
    begin_record(&pl, "I", 2);
    w_f64(&pl, 1.0);
    tu_put(&pl, blobs[0], sizes[0]); /* a bin key: the pair is dropped */
    w_str(&pl, "ignored");
    w_str(&pl, "args");
    w_map(&pl, (uint32_t)nb + 3);
    for (size_t i = 0; i < nb; i++) {
        char key[8];
        snprintf(key, sizeof key, "b%zu", i);
        w_str(&pl, key);
        tu_put(&pl, blobs[i], sizes[i]);
    }
    w_str(&pl, "b16");
    tu_put(&pl, fixext16, sizeof fixext16);
    w_str(&pl, "list"); /* [1, bin, 2]: the bin item is dropped */
    w_arr(&pl, 3);
    tu_put_byte(&pl, 1);
    tu_put(&pl, blobs[0], sizes[0]);
    tu_put_byte(&pl, 2);
    w_str(&pl, "kept");
    tu_put_byte(&pl, 5);
    frame(&file, &pl);
    fx *x = read_all(&file, WANT_ALL);
    assert_int_equal(x->t.st.records, 1);
    assert_int_equal(x->t.st.bad_records, 0);
    const dfs_event *ev = event(x, 0);
    assert_int_equal(ev->nargs, 2);
    assert_int_equal(arg(x, ev, "kept")->as.i, 5);
    const dfs_value *v = arg(x, ev, "list");
    assert_int_equal(v->len, 2);
    assert_int_equal(v->as.items[1].val.as.i, 2);
    fx_free(x);
    free(file.b);

    /* a bin timestamp is no timestamp */
    file = (mpbuf){0};
    pl.n = 0;
    begin_record(&pl, "I", 0);
    tu_put(&pl, blobs[0], sizes[0]);
    frame(&file, &pl);
    x = read_all(&file, WANT_ALL);
    assert_int_equal(x->t.st.records, 0);
    assert_int_equal(problems(x, DFS_PROB_BAD_RECORD), 1);
    fx_free(x);
    free(file.b);
    free(pl.b);
}

static void nested_record(mpbuf *file, unsigned levels)
{
    mpbuf pl = {0};
    begin_record(&pl, "I", 1);
    w_f64(&pl, 1.0);
    w_str(&pl, "args");
    w_map(&pl, 1);
    w_str(&pl, "deep");
    for (unsigned i = 0; i < levels; i++)
        w_arr(&pl, 1);
    tu_put_byte(&pl, 1);
    frame(file, &pl);
    free(pl.b);
}

static void test_deep_nesting(void **state)
{
    (void)state;
    mpbuf file = {0};
    nested_record(&file, 60);      /* record, args, 60 lists, the int: depth 63 */
    nested_record(&file, 70);      /* too deep */
    nested_record(&file, 1000000); /* adversarial: a megabyte of 0x91 */
    add_record(&file, "I", 2.0, 0, "after");
    fx *x = read_all(&file, WANT_ALL);
    assert_int_equal(x->t.st.records, 2);
    assert_int_equal(problems(x, DFS_PROB_BAD_RECORD), 2);
    const dfs_value *v = arg(x, event(x, 0), "deep");
    for (int i = 0; i < 60; i++) {
        assert_int_equal(v->type, DFS_V_LIST);
        assert_int_equal(v->len, 1);
        v = &v->as.items[0].val;
    }
    assert_int_equal(v->as.i, 1);
    fx_free(x);
    x = read_all(&file, WANT_NONE); /* validity does not depend on what is wanted */
    assert_int_equal(x->t.st.records, 2);
    assert_int_equal(problems(x, DFS_PROB_BAD_RECORD), 2);
    fx_free(x);
    free(file.b);
}

static void test_want_filter(void **state)
{
    (void)state;
    mpbuf file = {0};
    add_record(&file, "I", 1.0, 0, "k");
    fx *x = read_all(&file, WANT_NONE);
    assert_int_equal(event(x, 0)->nargs, 0);
    assert_null(event(x, 0)->args);
    fx_free(x);
    x = read_all(&file, WANT_KEYS);
    assert_int_equal(event(x, 0)->nargs, 1);
    assert_non_null(dfs_event_arg(event(x, 0), DFS_KEY_STR(DFS_KEY_KEY)));
    fx_free(x);
    x = read_all(&file, WANT_ALL);
    assert_int_equal(event(x, 0)->nargs, 2);
    assert_int_equal(dfs_event_arg(event(x, 0), DFS_KEY_STR(DFS_KEY_SIZE))->as.i, 300048);
    fx_free(x);
    free(file.b);
}

static void test_duplicates_and_order(void **state)
{
    (void)state;
    mpbuf file = {0};
    add_record(&file, "I", 5.0, 0, "a");
    add_record(&file, "I", 5.0, 0, "a"); /* byte-identical neighbour */
    add_record(&file, "I", 4.0, 0, "b"); /* steps back */
    fx *x = read_all(&file, WANT_NONE);
    assert_int_equal(x->t.st.records, 3);
    assert_int_equal(nevents(x), 3);
    assert_int_equal(problems(x, DFS_PROB_DUPLICATE_RECORD), 1);
    assert_int_equal(problems(x, DFS_PROB_TS_REGRESSION), 1);
    fx_free(x);
    x = fx_new(WANT_NONE);
    x->t.opt.dedup = true;
    drive(x, file.b, file.n, file.n, 0);
    assert_int_equal(x->t.st.records, 2); /* a dropped duplicate is not a record of the file */
    assert_int_equal(nevents(x), 2);
    assert_int_equal(problems(x, DFS_PROB_DUPLICATE_RECORD), 1);
    fx_free(x);
    free(file.b);
}

/* The backward step between the extremes of int64 ns must not overflow. */
static void test_regression_extremes(void **state)
{
    (void)state;
    mpbuf file = {0}, pl = {0};
    begin_record(&pl, "I", 0);
    w_uint(&pl, 9000000000u, 8);
    frame(&file, &pl);
    pl.n = 0;
    begin_record(&pl, "I", 0);
    w_int(&pl, -9000000000, 8);
    frame(&file, &pl);
    fx *x = read_all(&file, WANT_NONE);
    assert_int_equal(x->t.st.records, 2);
    assert_int_equal(problems(x, DFS_PROB_TS_REGRESSION), 1);
    assert_int_equal(problems(x, DFS_PROB_TIME_OVERFLOW), 0);
    fx_free(x);
    free(file.b);
    free(pl.b);
}

/* ---- robustness ----------------------------------------------------------------------------- */

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void sample_file(mpbuf *file)
{
    mpbuf pl = {0};
    add_record(file, "X", 3837.884328029, 0.0505, "getGPUs-42237764");
    add_record(file, "I", 3907.78, 0, "('reshape-b153', 0, 0)");
    begin_record(&pl, "I", 3);
    w_f32(&pl, 2.5f);
    w_str(&pl, "args");
    w_header(&pl, true, 2, 2);
    w_str(&pl, "shape");
    w_header(&pl, false, 2, 4);
    w_int(&pl, -5, 2);
    w_uint(&pl, 70000, 4);
    w_str(&pl, "m");
    w_map(&pl, 1);
    w_str(&pl, "b");
    tu_put(&pl, "\xc4\x01z", 3);
    w_str(&pl, "process_id");
    w_int(&pl, 12, 8);
    kv_str(&pl, "thread_id", "t");
    frame(file, &pl);
    add_record(file, "B", 1.0, 0, "x");
    free(pl.b);
}

#ifndef DASF_FUZZ_ITERS
#define DASF_FUZZ_ITERS 4000 /* a few seconds under ASan; raise it for a longer local run */
#endif

static void test_garbage_never_crashes(void **state)
{
    (void)state;
    mpbuf base = {0};
    load_corpus(corpus[1].file, &base); /* real records when the corpus is there ... */
    sample_file(&base);                 /* ... and the synthetic shapes in any case */
    unsigned char *buf = malloc(base.n + 64);
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (int iter = 0; iter < DASF_FUZZ_ITERS; iter++) {
        size_t n = base.n;
        memcpy(buf, base.b, n);
        int flips = 1 + (int)(next_rand(&seed) % 8);
        for (int k = 0; k < flips; k++)
            buf[next_rand(&seed) % n] = (unsigned char)next_rand(&seed);
        if (next_rand(&seed) % 4 == 0)
            n = next_rand(&seed) % (n + 1);
        fx *whole = fx_new(WANT_ALL);
        drive(whole, buf, n, n ? n : 1, 0);
        assert_true(whole->t.st.records + whole->t.st.bad_records <= n / DFS_DASF_MIN_RECORD + 1);
        if (iter % 8 == 0) { /* and in pieces: the same reading */
            fx *x = fx_new(WANT_ALL);
            drive(x, buf, n, 1 + next_rand(&seed) % 64, 0);
            assert_same_reading(whole, x);
            fx_free(x);
        }
        fx_free(whole);
    }
    for (int iter = 0; iter < 2000; iter++) { /* pure noise behind a plausible length */
        size_t n = 8 + next_rand(&seed) % 200;
        for (size_t i = 0; i < n; i++)
            buf[i] = (unsigned char)next_rand(&seed);
        memset(buf, 0, 7);
        buf[7] = (unsigned char)(n - 8 - next_rand(&seed) % 4);
        fx *x = fx_new(WANT_ALL);
        drive(x, buf, n, 1 + next_rand(&seed) % 16, 0);
        fx_free(x);
    }
    free(buf);
    free(base.b);
}

static void test_synthetic_pieces(void **state)
{
    (void)state;
    mpbuf file = {0};
    sample_file(&file);
    tu_put_be(&file, 0, 8);                  /* N = 0 */
    tu_put_be(&file, 3, 8); /* a cut array, not a map */
    tu_put(&file, "\x91\x91\x91", 3);
    add_record(&file, "Q", 7.0, 0, "unknown");
    add_record(&file, "I", 8.0, 0, "torn");
    file.n -= 5;
    assert_piece_invariant(&file, file.n);
    free(file.b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_counts),
        cmocka_unit_test(test_corpus_trace_plugin),
        cmocka_unit_test(test_corpus_resource_monitor),
        cmocka_unit_test(test_corpus_pieces),
        cmocka_unit_test(test_corpus_full_buffer),
        cmocka_unit_test(test_clean_records),
        cmocka_unit_test(test_empty_stream),
        cmocka_unit_test(test_torn_record),
        cmocka_unit_test(test_oversized_length),
        cmocka_unit_test(test_zero_length),
        cmocka_unit_test(test_unknown_phase),
        cmocka_unit_test(test_bad_payloads),
        cmocka_unit_test(test_trailing_bytes),
        cmocka_unit_test(test_number_widths_as_timestamp),
        cmocka_unit_test(test_number_widths_as_args),
        cmocka_unit_test(test_time_overflow),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_ids),
        cmocka_unit_test(test_string_widths),
        cmocka_unit_test(test_container_widths),
        cmocka_unit_test(test_bin_ext_skipped),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_want_filter),
        cmocka_unit_test(test_duplicates_and_order),
        cmocka_unit_test(test_regression_extremes),
        cmocka_unit_test(test_garbage_never_crashes),
        cmocka_unit_test(test_synthetic_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
