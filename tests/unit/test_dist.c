/* test_dist.c - distributed runs without MPI: the partition of the inputs over ranks, the packed
 * buffers (every type, strings into another run's table, damaged buffers), the streams a rank
 * sends, and the interval engine on the wire (docs/MPI.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/overlap_engine.h"
#include "dist/partition.h"
#include "dist/runpack.h"
#include "read/run.h"
#include "testutil.h"
#include "wire/pack.h"

/* ---- the partition ---------------------------------------------------------------------------- */

/* Every input is covered exactly once by its pieces, in order, each on a valid rank. */
static void check_cover(const dfs_partition *p, const dfs_part_input *in, size_t n)
{
    size_t at = 0;
    for (size_t f = 0; f < n; f++) {
        assert_true(at < p->n);
        uint32_t count = p->pieces[at].count;
        assert_true(count >= 1);
        uint64_t expect_start = 0;
        for (uint32_t k = 0; k < count; k++, at++) {
            const dfs_piece *pc = &p->pieces[at];
            assert_int_equal(pc->file, f);
            assert_int_equal(pc->index, k);
            assert_int_equal(pc->count, count);
            assert_int_equal(pc->start, expect_start);
            assert_true(pc->stop > pc->start);
            expect_start = pc->stop;
            assert_true(p->rank[at] >= 0 && p->rank[at] < p->nranks);
        }
        assert_true(expect_start == UINT64_MAX);
        if (count > 1)
            assert_true(in[f].unit > 0);
    }
    assert_int_equal(at, p->n);
}

static void partition_whole_files_balanced(void **state)
{
    (void)state;
    dfs_part_input in[16];
    for (size_t i = 0; i < 16; i++)
        in[i] = (dfs_part_input){(uint64_t)(i + 1) << 20, false};
    dfs_partition p;
    assert_true(dfs_partition_make(&p, in, 16, 3, 0));
    check_cover(&p, in, 16);
    assert_int_equal(p.n, 16);
    /* largest first to the least loaded: within 4/3 of the lower bound (total / ranks) */
    uint64_t total = 0, max = 0;
    for (int r = 0; r < 3; r++) {
        total += p.load[r];
        max = p.load[r] > max ? p.load[r] : max;
    }
    assert_true(max * 3 <= total * 4 / 3 + 3 * (16u << 20));
    assert_true(max - (total / 3) < (4u << 20)); /* LPT on 1..16 MiB is nearly perfect */
    dfs_partition_free(&p);
}

static void partition_is_deterministic(void **state)
{
    (void)state;
    dfs_part_input in[40];
    for (size_t i = 0; i < 40; i++)
        in[i] = (dfs_part_input){(i * 7919 % 97) << 14, i % 3 == 0};
    dfs_partition a, b;
    assert_true(dfs_partition_make(&a, in, 40, 5, 1u << 20));
    assert_true(dfs_partition_make(&b, in, 40, 5, 1u << 20));
    assert_int_equal(a.n, b.n);
    assert_memory_equal(a.pieces, b.pieces, a.n * sizeof *a.pieces);
    assert_memory_equal(a.rank, b.rank, a.n * sizeof *a.rank);
    check_cover(&a, in, 40);
    dfs_partition_free(&a);
    dfs_partition_free(&b);
}

static void partition_cuts_only_splittable_large(void **state)
{
    (void)state;
    dfs_part_input in[4] = {{10u << 20, 1}, {10u << 20, 0}, {1u << 20, 1}, {0, 1}};
    dfs_partition p;
    assert_true(dfs_partition_make(&p, in, 4, 2, 3u << 20));
    check_cover(&p, in, 4);
    assert_int_equal(p.pieces[0].count, 4); /* 10 MiB in pieces of 3 MiB */
    assert_int_equal(p.pieces[1].start, 3u << 20);
    assert_int_equal(p.pieces[4].count, 1); /* not splittable */
    assert_int_equal(p.pieces[5].count, 1); /* small */
    assert_int_equal(p.pieces[6].count, 1); /* empty */
    assert_int_equal(p.n, 7);
    dfs_partition_free(&p);
    assert_true(dfs_partition_make(&p, in, 4, 2, 0)); /* piece 0: nothing is cut */
    assert_int_equal(p.n, 4);
    dfs_partition_free(&p);
}

/* A gzipped input is cut at multiples of its unit (the gzip segment size), so the ranks find
 * the member starts one process would; never more than DFS_PARTITION_MAX_PIECES pieces. */
static void partition_gzip_units(void **state)
{
    (void)state;
    dfs_part_input in[2] = {{10u << 20, 4u << 20}, {UINT64_C(1) << 40, 1}};
    dfs_partition p;
    assert_true(dfs_partition_make(&p, in, 2, 2, 3u << 20));
    check_cover(&p, in, 2);
    assert_int_equal(p.pieces[0].count, 3); /* pieces of 4 MiB: 0, 4, 8 */
    assert_int_equal(p.pieces[1].start, 4u << 20);
    assert_int_equal(p.pieces[2].start, 8u << 20);
    assert_true(p.pieces[3].count <= DFS_PARTITION_MAX_PIECES);
    dfs_partition_free(&p);
}

static void partition_more_ranks_than_inputs(void **state)
{
    (void)state;
    dfs_part_input in[2] = {{100, false}, {200, false}};
    dfs_partition p;
    assert_true(dfs_partition_make(&p, in, 2, 8, 0));
    check_cover(&p, in, 2);
    assert_int_equal(p.rank[1], 0); /* the larger first, to rank 0 */
    assert_int_equal(p.rank[0], 1);
    for (int r = 0; r < 8; r++) {
        dfs_piece *mine;
        size_t n = dfs_partition_share(&p, r, &mine);
        assert_int_equal(n, r < 2 ? 1 : 0);
        free(mine);
    }
    dfs_partition_free(&p);
    assert_true(dfs_partition_make(&p, in, 0, 4, 0)); /* no inputs at all */
    assert_int_equal(p.n, 0);
    dfs_partition_free(&p);
}

static void partition_ties_go_round(void **state)
{
    (void)state;
    dfs_part_input in[6];
    for (size_t i = 0; i < 6; i++)
        in[i] = (dfs_part_input){1000, false};
    dfs_partition p;
    assert_true(dfs_partition_make(&p, in, 6, 3, 0));
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(p.rank[i], (int)(i % 3));
    dfs_partition_free(&p);
}

static void piece_size_rule(void **state)
{
    (void)state;
    assert_int_equal(dfs_partition_piece_bytes(0, 4), 32u << 20);
    assert_int_equal(dfs_partition_piece_bytes(UINT64_C(8) << 30, 2), UINT64_C(1) << 30);
    assert_int_equal(dfs_partition_piece_bytes(UINT64_C(1) << 30, 0), 256u << 20);
}

/* ---- packed buffers --------------------------------------------------------------------------- */

static void pack_round_trip_all_types(void **state)
{
    (void)state;
    dfs_run *from = dfs_run_new(NULL), *to = dfs_run_new(NULL);
    assert_non_null(from);
    assert_non_null(to);
    dfs_run_intern(to, "padding so that ids differ", 26);
    dfs_str hello = dfs_run_intern(from, "hello", 5), world = dfs_run_intern(from, "wörld", 6);
    static const uint64_t u[] = {0, 1, 127, 128, 300, UINT32_MAX, (uint64_t)UINT32_MAX + 1, UINT64_MAX};
    static const int64_t i[] = {0, -1, 1, -64, 64, INT64_MIN, INT64_MAX};
    const double f[] = {0.0, -0.0, 1.5, -1e300, 1e-310, INFINITY};
    dfs_pack w;
    dfs_pack_init(&w, from);
    for (size_t k = 0; k < sizeof u / sizeof *u; k++)
        dfs_pack_u64(&w, u[k]);
    for (size_t k = 0; k < sizeof i / sizeof *i; k++)
        dfs_pack_i64(&w, i[k]);
    for (size_t k = 0; k < sizeof f / sizeof *f; k++)
        dfs_pack_f64(&w, f[k]);
    dfs_pack_f64(&w, NAN);
    dfs_pack_u128(&w, ((unsigned __int128)UINT64_MAX << 64) | 42);
    dfs_pack_bool(&w, true);
    dfs_pack_bool(&w, false);
    dfs_pack_str(&w, hello);
    dfs_pack_str(&w, 0);
    dfs_pack_str(&w, world);
    dfs_pack_str(&w, hello); /* the dictionary holds it once */
    dfs_pack_text(&w, "a\0b", 3);
    dfs_pack_cstr(&w, NULL);
    dfs_pack_cstr(&w, "");
    void *buf;
    size_t len;
    assert_true(dfs_pack_finish(&w, &buf, &len));
    assert_int_equal(w.dict.n, 2);
    dfs_pack_free(&w);

    dfs_unpack r;
    assert_true(dfs_unpack_init(&r, to, buf, len));
    for (size_t k = 0; k < sizeof u / sizeof *u; k++)
        assert_true(dfs_unpack_u64(&r) == u[k]);
    for (size_t k = 0; k < sizeof i / sizeof *i; k++)
        assert_true(dfs_unpack_i64(&r) == i[k]);
    for (size_t k = 0; k < sizeof f / sizeof *f; k++) {
        double v = dfs_unpack_f64(&r);
        assert_memory_equal(&v, &f[k], sizeof v); /* bit for bit, -0.0 included */
    }
    assert_true(isnan(dfs_unpack_f64(&r)));
    assert_true(dfs_unpack_u128(&r) == (((unsigned __int128)UINT64_MAX << 64) | 42));
    assert_true(dfs_unpack_bool(&r));
    assert_false(dfs_unpack_bool(&r));
    dfs_str h = dfs_unpack_str(&r), z = dfs_unpack_str(&r), wo = dfs_unpack_str(&r), h2 = dfs_unpack_str(&r);
    size_t n;
    assert_int_equal(h, h2);
    assert_int_equal(z, 0);
    assert_string_equal(dfs_str_get(to, h, &n), "hello");
    assert_string_equal(dfs_str_get(to, wo, &n), "wörld");
    assert_true(h == dfs_str_find(to, "hello", 5) && h != hello); /* the receiver's own id */
    const char *t = dfs_unpack_text(&r, &n);
    assert_int_equal(n, 3);
    assert_memory_equal(t, "a\0b", 3);
    dfs_arena a;
    dfs_arena_init(&a, 256);
    assert_null(dfs_unpack_cstr(&r, &a));
    assert_string_equal(dfs_unpack_cstr(&r, &a), "");
    assert_true(dfs_unpack_ok(&r));
    dfs_arena_free(&a);
    dfs_unpack_free(&r);
    free(buf);
    dfs_run_free(from);
    dfs_run_free(to);
}

/* Every cut of a valid buffer reads as bad, never out of bounds (the sanitizers check). */
static void truncated_and_damaged_buffers(void **state)
{
    (void)state;
    dfs_run *run = dfs_run_new(NULL);
    dfs_pack w;
    dfs_pack_init(&w, run);
    dfs_pack_u64(&w, 3);
    for (int k = 0; k < 3; k++) {
        dfs_pack_str(&w, dfs_run_intern(run, "name", 4));
        dfs_pack_f64(&w, 2.5);
        dfs_pack_text(&w, "text", 4);
    }
    void *buf;
    size_t len;
    assert_true(dfs_pack_finish(&w, &buf, &len));
    dfs_pack_free(&w);
    for (size_t cut = 0; cut < len; cut++) {
        unsigned char *copy = malloc(cut ? cut : 1);
        memcpy(copy, buf, cut);
        dfs_unpack r;
        if (dfs_unpack_init(&r, run, copy, cut)) {
            size_t n = dfs_unpack_count(&r, 3);
            for (size_t k = 0; k < n; k++) {
                size_t tn;
                dfs_unpack_str(&r);
                dfs_unpack_f64(&r);
                dfs_unpack_text(&r, &tn);
            }
        }
        assert_false(dfs_unpack_ok(&r));
        dfs_unpack_free(&r);
        free(copy);
    }
    unsigned char *bad = malloc(len);
    memcpy(bad, buf, len);
    bad[0] = 'X'; /* the magic */
    dfs_unpack r;
    assert_false(dfs_unpack_init(&r, run, bad, len));
    dfs_unpack_free(&r);
    memcpy(bad, buf, len);
    bad[len - 1] = 0xff; /* a text length past the end, or an unterminated varint */
    assert_true(dfs_unpack_init(&r, run, bad, len));
    size_t n = dfs_unpack_count(&r, 3);
    for (size_t k = 0; k < n; k++) {
        size_t tn;
        dfs_unpack_str(&r);
        dfs_unpack_f64(&r);
        dfs_unpack_text(&r, &tn);
    }
    dfs_unpack_u64(&r);
    assert_false(dfs_unpack_ok(&r));
    dfs_unpack_free(&r);
    /* a count larger than what is left allocates nothing and is bad */
    dfs_pack_init(&w, NULL);
    dfs_pack_u64(&w, UINT64_C(1) << 40);
    void *big;
    size_t blen;
    assert_true(dfs_pack_finish(&w, &big, &blen));
    dfs_pack_free(&w);
    assert_true(dfs_unpack_init(&r, NULL, big, blen));
    assert_int_equal(dfs_unpack_count(&r, 1), 0);
    assert_true(r.bad);
    dfs_unpack_free(&r);
    free(big);
    free(bad);
    free(buf);
    dfs_run_free(run);
}

static void unit_identity_by_host_text(void **state)
{
    (void)state;
    dfs_run *a = dfs_run_new(NULL), *b = dfs_run_new(NULL);
    dfs_run_intern(b, "x", 1);
    dfs_str ha = dfs_run_intern(a, "node1", 5), hb = dfs_run_intern(b, "node1", 5);
    assert_int_not_equal(ha, hb);
    assert_true(dfs_unit_hash(a, 7, ha, 42, 0) == dfs_unit_hash(b, 7, hb, 42, 0));
    assert_true(dfs_unit_hash(a, 7, ha, 42, 0) != dfs_unit_hash(a, 7, ha, 42, 1));
    assert_true(dfs_unit_hash(a, 7, ha, 42, 0) != dfs_unit_hash(a, 8, ha, 42, 0));
    assert_true(dfs_unit_hash(a, 0, 0, 42, 0) != dfs_unit_hash(a, 0, ha, 42, 0));
    dfs_run_free(a);
    dfs_run_free(b);
}

/* ---- streams ---------------------------------------------------------------------------------- */

static void stream_round_trip(void **state)
{
    (void)state;
    dfs_run *from = dfs_run_new(NULL), *to = dfs_run_new(NULL);
    assert_int_equal(dfs_run_add_listed(from, "/nonexistent/a", 10), DFS_OK);
    assert_int_equal(dfs_run_add_listed(to, "/nonexistent/a", 10), DFS_OK);
    dfs_run_intern(to, "shift", 5);
    dfs_stream s;
    dfs_stream_init(&s, 0, 3, 5);
    s.lines = 77;
    s.records = 1000;
    s.bad_records = 2;
    s.recovered = 1;
    s.phase_counts[DFS_PHASE_COMPLETE] = 900;
    s.ph_written['X'] = 900;
    s.ph_written['M'] = 100;
    s.dialect = DFS_DIALECT_DFTRACER_V1;
    s.have_last_ts = s.have_first_ts = s.saw_open = true;
    s.last_ts = -5;
    s.first_ts = INT64_MAX;
    s.first_ts_line = 4;
    s.first_ts_offset = 1234;
    s.has_clock_offset = true;
    s.clock_offset_ns = -99;
    s.scale_num = 1000;
    s.scale_den = 3;
    s.gzip_members = 2;
    s.bytes_in = 5555;
    s.unresolved_refs = 6;
    dfs_diag_add(&s.diag, DFS_PROB_BAD_LINE, 0, 12, 345, "unparsable: %s", "{x");
    dfs_diag_add(&s.diag, DFS_PROB_BAD_LINE, 0, 13, 400, "again");
    dfs_diag_count(&s.diag, DFS_PROB_STRING_NUMBER, 17);
    dfs_str path = dfs_run_intern(from, "/data/file.h5", 13), host = dfs_run_intern(from, "node7", 5);
    dfs_stream_define(&s, DFS_HASH_FILE, 0xabc, path, 10, 1);
    dfs_stream_define(&s, DFS_HASH_HOST, 0xdef, host, 20, 2);
    dfs_namedef nd = {.pid = 5, .tid = 6, .str = host, .is_thread = 1};
    dfs_vec_push(&s.names, nd);
    dfs_filemeta fm = {.key = path, .raw_json = host};
    dfs_vec_push(&s.meta, fm);

    dfs_pack w;
    dfs_pack_init(&w, from);
    dfs_pack_stream(&w, &s);
    void *buf;
    size_t len;
    assert_true(dfs_pack_finish(&w, &buf, &len));
    dfs_pack_free(&w);
    dfs_unpack r;
    assert_true(dfs_unpack_init(&r, to, buf, len));
    dfs_stream *t = dfs_unpack_stream(&r, to);
    assert_non_null(t);
    assert_true(dfs_unpack_ok(&r));
    assert_int_equal(t->chunk, 3);
    assert_int_equal(t->lines, 77);
    assert_int_equal(t->records, 1000);
    assert_int_equal(t->bad_records, 2);
    assert_int_equal(t->recovered, 1);
    assert_int_equal(t->phase_counts[DFS_PHASE_COMPLETE], 900);
    assert_int_equal(t->ph_written['M'], 100);
    assert_int_equal(t->dialect, DFS_DIALECT_DFTRACER_V1);
    assert_true(t->last_ts == -5 && t->first_ts == INT64_MAX && t->first_ts_line == 4 && t->first_ts_offset == 1234);
    assert_true(t->have_last_ts && t->have_first_ts && t->saw_open && !t->saw_close);
    assert_true(t->has_clock_offset && t->clock_offset_ns == -99 && t->scale_num == 1000 && t->scale_den == 3);
    assert_int_equal(t->gzip_members, 2);
    assert_int_equal(t->bytes_in, 5555);
    assert_int_equal(t->unresolved_refs, 6);
    assert_int_equal(t->diag.counts[DFS_PROB_BAD_LINE], 2);
    assert_int_equal(t->diag.counts[DFS_PROB_STRING_NUMBER], 17);
    assert_int_equal(t->diag.examples[DFS_PROB_BAD_LINE].n, 2);
    assert_int_equal(t->diag.examples[DFS_PROB_BAD_LINE].v[0].line, 12);
    assert_int_equal(t->diag.examples[DFS_PROB_BAD_LINE].v[1].offset, 400);
    assert_string_equal(t->diag.examples[DFS_PROB_BAD_LINE].v[0].detail, "unparsable: {x");
    size_t n;
    assert_int_equal(t->defs.n, 2);
    assert_true(t->defs.v[0].hash == 0xabc && t->defs.v[0].offset == 10 && t->defs.v[0].kind == DFS_HASH_FILE);
    assert_string_equal(dfs_str_get(to, t->defs.v[0].str, &n), "/data/file.h5");
    assert_string_equal(dfs_str_get(to, t->defs.v[1].str, &n), "node7");
    assert_true(t->names.n == 1 && t->names.v[0].pid == 5 && t->names.v[0].tid == 6 && t->names.v[0].is_thread);
    assert_string_equal(dfs_str_get(to, t->meta.v[0].raw_json, &n), "node7");
    dfs_unpack_free(&r);
    dfs_stream_free(t);
    free(t);
    /* a stream of a file the receiver does not have is refused */
    dfs_run *small = dfs_run_new(NULL);
    assert_true(dfs_unpack_init(&r, small, buf, len));
    assert_null(dfs_unpack_stream(&r, small));
    dfs_unpack_free(&r);
    dfs_run_free(small);
    free(buf);
    dfs_stream_free(&s);
    dfs_run_free(from);
    dfs_run_free(to);
}

/* ---- the interval engine ---------------------------------------------------------------------- */

static dfs_ovl *travel(const dfs_ovl *o)
{
    dfs_pack w;
    dfs_pack_init(&w, NULL);
    dfs_ovl_pack(o, &w);
    void *buf;
    size_t len;
    assert_true(dfs_pack_finish(&w, &buf, &len));
    dfs_pack_free(&w);
    dfs_unpack r;
    assert_true(dfs_unpack_init(&r, NULL, buf, len));
    dfs_ovl *back = dfs_ovl_unpack(&r);
    assert_non_null(back);
    assert_true(dfs_unpack_ok(&r));
    dfs_unpack_free(&r);
    free(buf);
    return back;
}

static void expect_same(const dfs_ovl *a, const dfs_ovl *b, unsigned nclasses)
{
    for (unsigned c = 0; c < nclasses; c++) {
        const dfs_ovl_measure *x = dfs_ovl_total(a, c), *y = dfs_ovl_total(b, c);
        assert_true(x->measure == y->measure && x->with_ref == y->with_ref && x->sum_dur == y->sum_dur);
        assert_true(x->count == y->count && x->exposed_count == y->exposed_count);
        assert_true(x->exposed_weight == y->exposed_weight);
    }
    assert_int_equal(dfs_ovl_nbins(a), dfs_ovl_nbins(b));
    for (size_t i = 0; i < dfs_ovl_nbins(a); i++) {
        assert_int_equal(dfs_ovl_bin_index(a, i), dfs_ovl_bin_index(b, i));
        for (unsigned c = 0; c < nclasses; c++)
            assert_true(dfs_ovl_bin(a, i, c)->measure == dfs_ovl_bin(b, i, c)->measure &&
                        dfs_ovl_bin(a, i, c)->exposed_count == dfs_ovl_bin(b, i, c)->exposed_count);
    }
}

static void add_events(dfs_ovl *o, int64_t from, int64_t to, uint64_t seed)
{
    for (int64_t t = from; t < to; t += 7) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        unsigned c = (unsigned)(seed >> 60) % 3;
        int64_t dur = (int64_t)(seed >> 40) % 23;
        assert_true(dfs_ovl_add(o, c, t, t + dur, (double)(seed >> 54)));
    }
}

/* Unfinished halves merged after travelling == one engine with everything; a finished engine
 * travels as totals and bins and reads back the same. */
static void engine_halves_merge_to_whole(void **state)
{
    (void)state;
    dfs_ovl *whole = dfs_ovl_new(3, 0, 50, 3), *a = dfs_ovl_new(3, 0, 50, 3), *b = dfs_ovl_new(3, 0, 50, 3);
    add_events(whole, 0, 5000, 1);
    add_events(whole, 0, 5000, 2);
    add_events(a, 0, 5000, 1);
    add_events(b, 0, 5000, 2);
    dfs_ovl *ta = travel(a), *tb = travel(b);
    assert_true(dfs_ovl_merge(ta, tb));
    assert_true(dfs_ovl_finish(whole) && dfs_ovl_finish(ta));
    expect_same(whole, ta, 3);
    dfs_ovl *done = travel(whole); /* finished: lists its bins without finishing again */
    assert_int_equal(dfs_ovl_held(done), 0);
    expect_same(whole, done, 3);
    dfs_ovl_free(whole);
    dfs_ovl_free(a);
    dfs_ovl_free(b);
    dfs_ovl_free(ta);
    dfs_ovl_free(tb);
    dfs_ovl_free(done);
}

/* An engine that skips counts travels as one: merged with another that does, the same as one
 * engine with everything. */
static void engine_skipping_counts_travels(void **state)
{
    (void)state;
    dfs_ovl *whole = dfs_ovl_new(3, 0, 50, 3), *a = dfs_ovl_new(3, 0, 50, 3), *b = dfs_ovl_new(3, 0, 50, 3);
    dfs_ovl_skip_counts(whole);
    dfs_ovl_skip_counts(a);
    dfs_ovl_skip_counts(b);
    add_events(whole, 0, 3000, 3);
    add_events(whole, 0, 3000, 4);
    add_events(a, 0, 3000, 3);
    add_events(b, 0, 3000, 4);
    dfs_ovl *ta = travel(a);
    assert_true(dfs_ovl_merge(ta, b)); /* refused if the flag did not travel */
    assert_true(dfs_ovl_finish(whole) && dfs_ovl_finish(ta));
    expect_same(whole, ta, 3);
    dfs_ovl_free(whole);
    dfs_ovl_free(a);
    dfs_ovl_free(b);
    dfs_ovl_free(ta);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(partition_whole_files_balanced),
        cmocka_unit_test(partition_is_deterministic),
        cmocka_unit_test(partition_cuts_only_splittable_large),
        cmocka_unit_test(partition_gzip_units),
        cmocka_unit_test(partition_more_ranks_than_inputs),
        cmocka_unit_test(partition_ties_go_round),
        cmocka_unit_test(piece_size_rule),
        cmocka_unit_test(pack_round_trip_all_types),
        cmocka_unit_test(truncated_and_damaged_buffers),
        cmocka_unit_test(unit_identity_by_host_text),
        cmocka_unit_test(stream_round_trip),
        cmocka_unit_test(engine_halves_merge_to_whole),
        cmocka_unit_test(engine_skipping_counts_travels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
