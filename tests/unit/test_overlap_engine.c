/* test_overlap_engine.c - the exact interval-overlap engine: the worked examples of overlap.md §4,
 * edge cases (touching, zero-length, nested, duplicate, reference class, bins at negative times
 * and at int64 extremes), flush, merge, the memory bound, and a property test against a brute
 * force that marks every unit time step of every class in a boolean array; and out of memory, with
 * the engine compiled a second time into this file over a failing allocator (at the end).
 * testutil.h is not included: it would pull util/vec.h in before that second compilation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/common/overlap_engine.h"

enum { C = 0, I = 1, A = 2 }; /* compute is the reference in the examples */

typedef struct want {
    int64_t measure, with_ref, sum_dur;
    uint64_t count, exposed_count;
    double exposed_weight;
} want;

static void expect_measure_at(const dfs_ovl_measure *m, want w, int line)
{
    if (!m)
        fail_msg("line %d: no measure", line);
    if (m->measure != w.measure || m->with_ref != w.with_ref || m->sum_dur != w.sum_dur ||
        m->count != w.count || m->exposed_count != w.exposed_count ||
        m->exposed_weight != w.exposed_weight)
        fail_msg("line %d: got measure %lld with_ref %lld sum_dur %lld count %llu exposed %llu/%g, "
                 "want %lld %lld %lld %llu %llu/%g",
                 line, (long long)m->measure, (long long)m->with_ref, (long long)m->sum_dur,
                 (unsigned long long)m->count, (unsigned long long)m->exposed_count,
                 m->exposed_weight, (long long)w.measure, (long long)w.with_ref,
                 (long long)w.sum_dur, (unsigned long long)w.count,
                 (unsigned long long)w.exposed_count, w.exposed_weight);
}

/* EXPECT(m, measure, with_ref, sum_dur, count, exposed_count, exposed_weight) */
#define EXPECT(m, ...) expect_measure_at((m), (want){__VA_ARGS__}, __LINE__)

static dfs_ovl *make(unsigned n, int ref, int64_t g, int64_t origin)
{
    dfs_ovl *o = dfs_ovl_new(n, ref, g, origin);
    assert_non_null(o);
    return o;
}

static void add(dfs_ovl *o, unsigned c, int64_t s, int64_t e, double w)
{
    assert_true(dfs_ovl_add(o, c, s, e, w));
}

/* ---- overlap.md §4 ---- */

static void add_example1(dfs_ovl *o)
{
    add(o, C, 0, 10, 0);
    add(o, C, 20, 30, 0);
    add(o, I, 5, 15, 100);
    add(o, I, 25, 26, 200);
    add(o, I, 40, 45, 400);
    add(o, A, 12, 22, 7);
}

static void example1_three_classes(void **state)
{
    (void)state;
    dfs_ovl *o = make(3, C, 0, 0);
    add_example1(o);
    assert_true(dfs_ovl_finish(o));
    EXPECT(dfs_ovl_total(o, C), 20, 20, 20, 2, 0, 0);
    /* |I∩C| = 6: unoverlapped_io 10, unoverlapped_compute 14; [25,26) is the covered event */
    EXPECT(dfs_ovl_total(o, I), 16, 6, 16, 3, 2, 500);
    /* |A∩C| = 2: unoverlapped_app_io 8, unoverlapped_app_compute 18 */
    EXPECT(dfs_ovl_total(o, A), 10, 2, 10, 1, 1, 7);
    assert_int_equal(dfs_ovl_nbins(o), 0);
    assert_int_equal(dfs_ovl_held(o), 0);
    dfs_ovl_free(o);
}

/* The same with g = 10: clipped per bin, A∩C = [20,22) now lands in bin 2 (G0 misses it). */
static void example1_clipped_bins(void **state)
{
    (void)state;
    dfs_ovl *o = make(3, C, 10, 0);
    add_example1(o);
    assert_true(dfs_ovl_finish(o));
    assert_int_equal(dfs_ovl_nbins(o), 4);
    const int64_t keys[] = {0, 1, 2, 4};
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(dfs_ovl_bin_index(o, i), keys[i]);
    EXPECT(dfs_ovl_bin(o, 0, C), 10, 10, 10, 1, 0, 0);
    EXPECT(dfs_ovl_bin(o, 0, I), 5, 5, 10, 1, 1, 100);
    EXPECT(dfs_ovl_bin(o, 0, A), 0, 0, 0, 0, 0, 0);
    EXPECT(dfs_ovl_bin(o, 1, C), 0, 0, 0, 0, 0, 0);
    EXPECT(dfs_ovl_bin(o, 1, I), 5, 0, 0, 0, 0, 0);
    EXPECT(dfs_ovl_bin(o, 1, A), 8, 0, 10, 1, 1, 7);
    EXPECT(dfs_ovl_bin(o, 2, C), 10, 10, 10, 1, 0, 0);
    EXPECT(dfs_ovl_bin(o, 2, I), 1, 1, 1, 1, 0, 0);
    EXPECT(dfs_ovl_bin(o, 2, A), 2, 2, 0, 0, 0, 0);
    EXPECT(dfs_ovl_bin(o, 3, I), 5, 0, 5, 1, 1, 400);
    /* totals are unchanged by binning */
    EXPECT(dfs_ovl_total(o, I), 16, 6, 16, 3, 2, 500);
    EXPECT(dfs_ovl_total(o, A), 10, 2, 10, 1, 1, 7);
    dfs_ovl_free(o);
}

static void example2_touching_zero_nested(void **state)
{
    (void)state;
    dfs_ovl *o = make(2, C, 0, 0);
    add(o, I, 0, 5, 1);
    add(o, I, 5, 8, 2);
    add(o, I, 10, 10, 4);
    add(o, I, 20, 40, 8);
    add(o, I, 25, 30, 16);
    add(o, C, 30, 50, 0);
    assert_true(dfs_ovl_finish(o));
    /* |I| = 28, Σdur 33, |I∩C| = 10; the zero-length event counts but is never exposed, and
     * [25,30) nested in [20,40) is exposed on its own */
    EXPECT(dfs_ovl_total(o, I), 28, 10, 33, 5, 4, 27);
    EXPECT(dfs_ovl_total(o, C), 20, 20, 20, 1, 0, 0);
    dfs_ovl_free(o);
}

/* One engine per scope, and the Σ threads / global rows of the table. */
static void example3_scopes(void **state)
{
    (void)state;
    dfs_ovl *t11 = make(2, C, 0, 0), *t12 = make(2, C, 0, 0), *t23 = make(2, C, 0, 0);
    dfs_ovl *p1 = make(2, C, 0, 0), *global = make(2, C, 0, 0);
    add(t11, C, 0, 100, 0);
    add(t12, I, 50, 150, 0);
    add(t23, I, 0, 40, 0);
    add(p1, C, 0, 100, 0);
    add(p1, I, 50, 150, 0);
    assert_true(dfs_ovl_merge(global, t11));
    assert_true(dfs_ovl_merge(global, t12));
    assert_true(dfs_ovl_merge(global, t23));
    assert_true(dfs_ovl_finish(p1));
    assert_true(dfs_ovl_finish(global));
    EXPECT(dfs_ovl_total(p1, C), 100, 100, 100, 1, 0, 0);
    EXPECT(dfs_ovl_total(p1, I), 100, 50, 100, 1, 1, 0);
    EXPECT(dfs_ovl_total(global, C), 100, 100, 100, 1, 0, 0);
    /* global: |I| = 140, |I∩C| = 90 (unoverlapped_io 50, unoverlapped_compute 10) */
    EXPECT(dfs_ovl_total(global, I), 140, 90, 140, 2, 1, 0);
    assert_int_equal(dfs_ovl_held(t12), 0); /* merged sources are left empty */
    EXPECT(dfs_ovl_total(t12, I), 0, 0, 0, 0, 0, 0);
    dfs_ovl *threads[] = {t11, t12, t23, p1, global};
    for (size_t i = 0; i < 5; i++)
        dfs_ovl_free(threads[i]);
}

static void example4_bin_edges(void **state)
{
    (void)state;
    dfs_ovl *o = make(2, C, 100, 0);
    add(o, C, 0, 60, 0);
    add(o, I, 60, 100, 1);
    add(o, I, 90, 130, 1);
    assert_true(dfs_ovl_finish(o));
    EXPECT(dfs_ovl_total(o, C), 60, 60, 60, 1, 0, 0);
    EXPECT(dfs_ovl_total(o, I), 70, 0, 80, 2, 2, 2);
    assert_int_equal(dfs_ovl_nbins(o), 2);
    EXPECT(dfs_ovl_bin(o, 0, I), 40, 0, 80, 2, 2, 2);
    EXPECT(dfs_ovl_bin(o, 0, C), 60, 60, 60, 1, 0, 0);
    EXPECT(dfs_ovl_bin(o, 1, I), 30, 0, 0, 0, 0, 0);
    EXPECT(dfs_ovl_bin(o, 1, C), 0, 0, 0, 0, 0, 0);
    dfs_ovl_free(o);
}

/* ---- edge cases ---- */

static void duplicates_and_touching_reference(void **state)
{
    (void)state;
    dfs_ovl *o = make(2, C, 0, 0);
    for (int i = 0; i < 3; i++)
        add(o, I, 10, 20, 5); /* re-flushed buffer: union once, Σdur and count thrice */
    add(o, C, 0, 12, 0);
    add(o, C, 12, 20, 0); /* touches: [0,20) covers the I events exactly */
    add(o, C, 20, 20, 0);
    assert_true(dfs_ovl_finish(o));
    EXPECT(dfs_ovl_total(o, I), 10, 10, 30, 3, 0, 0);
    EXPECT(dfs_ovl_total(o, C), 20, 20, 20, 3, 0, 0);
    dfs_ovl_free(o);
}

/* Nested events with an earlier start and a later end than a covered one must still be checked:
 * [0,100) is exposed through the hole [50,51), [10,20) and [60,70) are covered. */
static void nested_exposure(void **state)
{
    (void)state;
    dfs_ovl *o = make(2, C, 0, 0);
    add(o, C, 0, 50, 0);
    add(o, C, 51, 100, 0);
    add(o, I, 60, 70, 1);
    add(o, I, 0, 100, 2);
    add(o, I, 10, 20, 4);
    add(o, I, 5, 51, 8);
    add(o, I, 50, 51, 16);
    add(o, I, 51, 52, 32);
    assert_true(dfs_ovl_finish(o));
    EXPECT(dfs_ovl_total(o, I), 100, 99, 10 + 100 + 10 + 46 + 1 + 1, 6, 3, 26);
    dfs_ovl_free(o);
}

static void no_reference_and_masks(void **state)
{
    (void)state;
    dfs_ovl *o = make(3, -1, 0, 0);
    assert_true(dfs_ovl_add_mask(o, 1u << I | 1u << A, 0, 10, 3));
    add(o, C, 5, 20, 0);
    assert_true(dfs_ovl_add_mask(o, 0, 5, 20, 0)); /* no class: nothing */
    assert_false(dfs_ovl_add_mask(o, 1u << 3, 5, 20, 0));
    assert_false(dfs_ovl_add(o, 3, 5, 20, 0));
    assert_true(dfs_ovl_finish(o));
    EXPECT(dfs_ovl_total(o, I), 10, 0, 10, 1, 0, 0);
    EXPECT(dfs_ovl_total(o, A), 10, 0, 10, 1, 0, 0);
    EXPECT(dfs_ovl_total(o, C), 15, 0, 15, 1, 0, 0);
    assert_null(dfs_ovl_total(o, 3));
    assert_null(dfs_ovl_bin(o, 0, 0));
    dfs_ovl_free(o);
}

/* A layer event in the reference and another class at once is covered by itself. */
static void mask_with_reference(void **state)
{
    (void)state;
    dfs_ovl *o = make(2, C, 0, 0);
    assert_true(dfs_ovl_add_mask(o, 3, 0, 10, 1));
    add(o, C, 20, 25, 0);
    add(o, I, 12, 13, 1);
    add(o, I, -5, -1, 1);
    add(o, I, 30, 20, 1); /* negative length: treated as zero-length */
    assert_true(dfs_ovl_finish(o));
    EXPECT(dfs_ovl_total(o, I), 15, 10, 15, 4, 2, 2);
    EXPECT(dfs_ovl_total(o, C), 15, 15, 15, 2, 0, 0);
    dfs_ovl_free(o);
}

static void invalid_arguments(void **state)
{
    (void)state;
    assert_null(dfs_ovl_new(0, -1, 0, 0));
    assert_null(dfs_ovl_new(DFS_OVL_MAX_CLASSES + 1, -1, 0, 0));
    assert_null(dfs_ovl_new(2, 2, 0, 0));
    assert_null(dfs_ovl_new(2, -2, 0, 0));
    dfs_ovl *o = make(DFS_OVL_MAX_CLASSES, 63, 0, 0);
    assert_true(dfs_ovl_add_mask(o, UINT64_MAX, 0, 10, 1));
    assert_true(dfs_ovl_finish(o));
    EXPECT(dfs_ovl_total(o, 63), 10, 10, 10, 1, 0, 0);
    EXPECT(dfs_ovl_total(o, 0), 10, 10, 10, 1, 0, 0);
    dfs_ovl *b = make(DFS_OVL_MAX_CLASSES, 62, 0, 0);
    assert_false(dfs_ovl_merge(o, b)); /* another reference */
    dfs_ovl_free(b);
    b = make(DFS_OVL_MAX_CLASSES, 63, 10, 0);
    assert_false(dfs_ovl_merge(o, b)); /* another binning */
    dfs_ovl_free(b);
    b = make(DFS_OVL_MAX_CLASSES, 63, 0, 0);
    dfs_ovl_skip_counts(b);
    assert_false(dfs_ovl_merge(o, b)); /* one counts, the other does not */
    dfs_ovl_free(b);
    assert_true(dfs_ovl_merge(o, o));
    dfs_ovl_free(o);
    dfs_ovl_free(NULL);
}

/* ---- bins ---- */

/* Origin 100, g 30: [40,75) is in bins -2 ([40,70)) and -1; [70,100) ends exactly on the edge of
 * bin 0 and must not create it; [100,101) starts exactly on it. */
static void bins_negative_and_edges(void **state)
{
    (void)state;
    dfs_ovl *o = make(2, C, 30, 100);
    add(o, I, 40, 75, 1);
    add(o, C, 70, 100, 0);
    add(o, I, 100, 101, 1);
    add(o, I, 9, 10, 1); /* (9 - 100) / 30 = -3.03: bin -4, not -3 */
    assert_true(dfs_ovl_finish(o));
    assert_int_equal(dfs_ovl_nbins(o), 4);
    assert_int_equal(dfs_ovl_bin_index(o, 0), -4);
    assert_int_equal(dfs_ovl_bin_index(o, 1), -2);
    assert_int_equal(dfs_ovl_bin_index(o, 2), -1);
    assert_int_equal(dfs_ovl_bin_index(o, 3), 0);
    EXPECT(dfs_ovl_bin(o, 0, I), 1, 0, 1, 1, 1, 1);
    EXPECT(dfs_ovl_bin(o, 1, I), 30, 0, 35, 1, 1, 1);
    EXPECT(dfs_ovl_bin(o, 2, I), 5, 5, 0, 0, 0, 0);
    EXPECT(dfs_ovl_bin(o, 2, C), 30, 30, 30, 1, 0, 0);
    EXPECT(dfs_ovl_bin(o, 3, I), 1, 0, 1, 1, 1, 1);
    EXPECT(dfs_ovl_bin(o, 3, C), 0, 0, 0, 0, 0, 0);
    dfs_ovl_free(o);
}

/* t - origin needs 65 bits here. Bin k = floor(-(2^64 - 1) / 7) = -2635249153387078803 starts
 * 6 below INT64_MIN, so [INT64_MIN, INT64_MIN + 5) splits 1 + 4 across bins k and k + 1. */
static void bins_at_int64_extremes(void **state)
{
    (void)state;
    dfs_ovl *o = make(1, -1, 7, INT64_MAX);
    add(o, 0, INT64_MIN, INT64_MIN + 5, 0);
    assert_true(dfs_ovl_finish(o));
    assert_int_equal(dfs_ovl_nbins(o), 2);
    assert_true(dfs_ovl_bin_index(o, 0) == INT64_C(-2635249153387078803));
    assert_true(dfs_ovl_bin_index(o, 1) == INT64_C(-2635249153387078802));
    EXPECT(dfs_ovl_bin(o, 0, 0), 1, 0, 5, 1, 0, 0);
    EXPECT(dfs_ovl_bin(o, 1, 0), 4, 0, 0, 0, 0, 0);
    dfs_ovl_free(o);

    /* floor((2^64 - 11) / 1000) = 18446744073709551, the end's bin too */
    o = make(2, 0, 1000, INT64_MIN);
    add(o, 1, INT64_MAX - 10, INT64_MAX, 3);
    assert_true(dfs_ovl_finish(o));
    assert_int_equal(dfs_ovl_nbins(o), 1);
    assert_true(dfs_ovl_bin_index(o, 0) == INT64_C(18446744073709551));
    EXPECT(dfs_ovl_bin(o, 0, 1), 10, 0, 10, 1, 1, 3);
    dfs_ovl_free(o);
}

/* ---- flush ---- */

/* I [10,80) crosses W = 50 with [10,50) covered: it stays held and is decided by the C event that
 * arrives after the flush. I [20,70) crosses W with [45,50) uncovered: exposed at the flush. */
static void flush_crossing_events(void **state)
{
    (void)state;
    dfs_ovl *o = make(2, C, 0, 0);
    add(o, C, 0, 45, 0);
    add(o, C, 45, 60, 0);
    add(o, I, 10, 80, 1);
    add(o, C, 0, 45, 0);
    add(o, I, 46, 70, 2);
    add(o, C, 200, 300, 0);
    assert_true(dfs_ovl_flush(o, 50));
    EXPECT(dfs_ovl_total(o, C), 50, 50, 205, 4, 0, 0); /* [0,50) so far */
    EXPECT(dfs_ovl_total(o, I), 40, 40, 94, 2, 0, 0);
    add(o, C, 60, 90, 0);
    add(o, C, 55, 56, 0);
    add(o, I, 100, 110, 4);
    assert_true(dfs_ovl_flush(o, 100));
    EXPECT(dfs_ovl_total(o, I), 70, 70, 104, 3, 0, 0);
    assert_true(dfs_ovl_finish(o));
    EXPECT(dfs_ovl_total(o, C), 190, 190, 236, 6, 0, 0);
    EXPECT(dfs_ovl_total(o, I), 80, 70, 104, 3, 1, 4);
    assert_int_equal(dfs_ovl_late_events(o), 0);
    dfs_ovl_free(o);

    o = make(2, C, 0, 0);
    add(o, C, 0, 45, 0);
    add(o, I, 20, 70, 1);
    assert_true(dfs_ovl_flush(o, 50));
    EXPECT(dfs_ovl_total(o, I), 30, 25, 50, 1, 1, 1); /* decided before the rest is known */
    add(o, C, 50, 100, 0);
    assert_true(dfs_ovl_finish(o));
    EXPECT(dfs_ovl_total(o, I), 50, 45, 50, 1, 1, 1);
    dfs_ovl_free(o);
}

static void late_events_are_counted(void **state)
{
    (void)state;
    dfs_ovl *o = make(2, C, 0, 0);
    add(o, C, 0, 10, 0);
    assert_true(dfs_ovl_flush(o, 100));
    add(o, I, 50, 60, 1); /* starts before the watermark: a caller bug, still counted */
    add(o, I, 100, 110, 1);
    assert_true(dfs_ovl_finish(o));
    assert_int_equal(dfs_ovl_late_events(o), 1);
    EXPECT(dfs_ovl_total(o, I), 20, 0, 20, 2, 2, 2);
    add(o, I, 0, 1, 1); /* after finish everything is late */
    assert_int_equal(dfs_ovl_late_events(o), 2);
    dfs_ovl_free(o);
}

/* A long in-order stream flushed every 64 events holds only what follows the watermark. */
static void flush_bounds_memory(void **state)
{
    (void)state;
    dfs_ovl *o = make(3, C, 1000, 0);
    size_t most = 0;
    const int64_t n = 200000;
    for (int64_t i = 0; i < n; i++) {
        int64_t t = i * 10;
        add(o, C, t, t + 6, 0);
        add(o, I, t + 4, t + 9, 1);   /* [t+6, t+9) exposed */
        add(o, A, t + 1, t + 3, 1);   /* covered */
        if (i % 64 == 63) {
            assert_true(dfs_ovl_flush(o, t + 5));
            most = dfs_ovl_held(o) > most ? dfs_ovl_held(o) : most;
        }
    }
    assert_true(dfs_ovl_finish(o));
    assert_true(most < 16);
    EXPECT(dfs_ovl_total(o, C), 6 * n, 6 * n, 6 * n, (uint64_t)n, 0, 0);
    EXPECT(dfs_ovl_total(o, I), 5 * n, 2 * n, 5 * n, (uint64_t)n, (uint64_t)n, (double)n);
    EXPECT(dfs_ovl_total(o, A), 2 * n, 2 * n, 2 * n, (uint64_t)n, 0, 0);
    assert_int_equal(dfs_ovl_nbins(o), (size_t)(n * 10 / 1000));
    EXPECT(dfs_ovl_bin(o, 7, I), 500, 200, 500, 100, 100, 100);
    dfs_ovl_free(o);
}

/* Without flushes, events covered by the reference are dropped as they come: memory follows the
 * unions, not the events. */
static void covered_events_are_not_held(void **state)
{
    (void)state;
    const int64_t n = 100000;
    dfs_ovl *o = make(2, C, 0, 0);
    add(o, C, 0, 20 * n, 0);
    for (int64_t i = 0; i < n; i++)
        add(o, I, i * 10, i * 10 + 15, 1);
    assert_true(dfs_ovl_held(o) < 200);
    assert_true(dfs_ovl_finish(o));
    EXPECT(dfs_ovl_total(o, I), 10 * n + 5, 10 * n + 5, 15 * n, (uint64_t)n, 0, 0);
    dfs_ovl_free(o);
}

/* Deeply nested events over a reference with one hole: a quadratic exposure check would time out. */
static void many_nested_events(void **state)
{
    (void)state;
    const int64_t n = 100000;
    dfs_ovl *o = make(2, C, 0, 0);
    add(o, C, 0, n, 0);
    add(o, C, n + 1, 2 * n, 0);
    for (int64_t i = n - 1; i >= 0; i--)
        add(o, I, i, 2 * n - i, 1); /* all contain the hole [n, n+1) */
    for (int64_t i = 0; i < n; i++)
        add(o, I, i, i + 1, 1);     /* all covered */
    assert_true(dfs_ovl_finish(o));
    EXPECT(dfs_ovl_total(o, I), 2 * n, 2 * n - 1, n * (n + 1) + n, (uint64_t)(2 * n),
           (uint64_t)n, (double)n);
    dfs_ovl_free(o);
}

/* ---- property test against a brute force ---- */

#define P_MAXC 4
#define P_MAXEV 400
#define P_T 256     /* every time lies in [0, P_T) */
#define P_BOFF 512  /* bins are k + P_BOFF in the dense expectation */
#define P_NBINS 1024

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

static unsigned below(rng *r, unsigned n) { return (unsigned)(rng_next(r) % n); }

typedef struct tev {
    int64_t s, e;
    double w;
    uint64_t mask;
} tev;

typedef struct tcase {
    unsigned nc;
    int ref;
    int64_t g, origin;
    size_t n;
    tev ev[P_MAXEV];
} tcase;

typedef struct expect {
    dfs_ovl_measure tot[P_MAXC];
    dfs_ovl_measure bin[P_NBINS][P_MAXC];
} expect;

static void make_case(rng *r, tcase *t, unsigned maxev)
{
    t->nc = 1 + below(r, P_MAXC);
    t->ref = (int)below(r, t->nc + 1) - 1;
    t->g = below(r, 3) ? 1 + below(r, 60) : 0;
    t->origin = t->g ? (int64_t)below(r, 401) - 100 : 0;
    t->n = below(r, maxev + 1);
    for (size_t i = 0; i < t->n; i++) {
        tev *e = &t->ev[i];
        if (i && !below(r, 8)) {
            *e = t->ev[below(r, (unsigned)i)]; /* duplicate */
            continue;
        }
        e->s = below(r, 200);
        e->e = e->s + (below(r, 6) ? 1 + below(r, 40) : 0);
        e->w = 1 + below(r, 1000);
        e->mask = UINT64_C(1) << below(r, t->nc);
        if (!below(r, 5))
            e->mask |= rng_next(r) & ((UINT64_C(1) << t->nc) - 1);
    }
}

/* Bin of time t, computed independently of the engine. */
static int64_t ref_bin(const tcase *t, int64_t x)
{
    int64_t d = x - t->origin;
    return (d >= 0 ? d / t->g : -((-d + t->g - 1) / t->g)) + P_BOFF;
}

static void brute_force(const tcase *t, expect *x)
{
    static const dfs_ovl_measure zero;
    bool cov[P_MAXC][P_T] = {{false}};
    for (size_t c = 0; c < P_MAXC; c++) {
        x->tot[c] = zero;
        for (size_t k = 0; k < P_NBINS; k++)
            x->bin[k][c] = zero;
    }
    for (size_t i = 0; i < t->n; i++)
        for (unsigned c = 0; c < t->nc; c++)
            for (int64_t u = t->ev[i].s; (t->ev[i].mask >> c & 1) && u < t->ev[i].e; u++)
                cov[c][u] = true;
    for (unsigned c = 0; c < t->nc; c++) {
        for (int64_t u = 0; u < P_T; u++) {
            if (!cov[c][u])
                continue;
            bool both = t->ref >= 0 && cov[t->ref][u];
            x->tot[c].measure++;
            x->tot[c].with_ref += both;
            if (t->g) {
                x->bin[ref_bin(t, u)][c].measure++;
                x->bin[ref_bin(t, u)][c].with_ref += both;
            }
        }
    }
    for (size_t i = 0; i < t->n; i++) {
        const tev *e = &t->ev[i];
        bool exposed = false;
        for (int64_t u = e->s; t->ref >= 0 && u < e->e; u++)
            exposed |= !cov[t->ref][u];
        for (unsigned c = 0; c < t->nc; c++) {
            if (!(e->mask >> c & 1))
                continue;
            dfs_ovl_measure *m[2] = {&x->tot[c], t->g ? &x->bin[ref_bin(t, e->s)][c] : NULL};
            for (int j = 0; j < 2 && m[j]; j++) {
                m[j]->count++;
                m[j]->sum_dur += e->e - e->s;
                if (exposed && (int)c != t->ref) {
                    m[j]->exposed_count++;
                    m[j]->exposed_weight += e->w;
                }
            }
        }
    }
}

static bool same_measure(const dfs_ovl_measure *a, const dfs_ovl_measure *b)
{
    return a->measure == b->measure && a->with_ref == b->with_ref && a->sum_dur == b->sum_dur &&
           a->count == b->count && a->exposed_count == b->exposed_count &&
           a->exposed_weight == b->exposed_weight;
}

static bool bin_used(const expect *x, size_t k, unsigned nc)
{
    static const dfs_ovl_measure zero;
    for (unsigned c = 0; c < nc; c++)
        if (!same_measure(&x->bin[k][c], &zero))
            return true;
    return false;
}

static void compare(const tcase *t, const expect *x, dfs_ovl *o, uint64_t seed, const char *how)
{
    for (unsigned c = 0; c < t->nc; c++) {
        const dfs_ovl_measure *m = dfs_ovl_total(o, c);
        if (!same_measure(m, &x->tot[c]))
            fail_msg("seed %llu (%s): total of class %u: measure %lld/%lld with_ref %lld/%lld "
                     "sum %lld/%lld count %llu/%llu exposed %llu/%llu",
                     (unsigned long long)seed, how, c, (long long)m->measure,
                     (long long)x->tot[c].measure, (long long)m->with_ref,
                     (long long)x->tot[c].with_ref, (long long)m->sum_dur,
                     (long long)x->tot[c].sum_dur, (unsigned long long)m->count,
                     (unsigned long long)x->tot[c].count, (unsigned long long)m->exposed_count,
                     (unsigned long long)x->tot[c].exposed_count);
    }
    size_t i = 0;
    for (size_t k = 0; t->g && k < P_NBINS; k++) {
        if (!bin_used(x, k, t->nc))
            continue;
        if (i >= dfs_ovl_nbins(o) || dfs_ovl_bin_index(o, i) != (int64_t)k - P_BOFF)
            fail_msg("seed %llu (%s): bin %lld missing", (unsigned long long)seed, how,
                     (long long)k - P_BOFF);
        for (unsigned c = 0; c < t->nc; c++)
            if (!same_measure(dfs_ovl_bin(o, i, c), &x->bin[k][c]))
                fail_msg("seed %llu (%s): bin %lld class %u differs", (unsigned long long)seed,
                         how, (long long)k - P_BOFF, c);
        i++;
    }
    if (i != dfs_ovl_nbins(o))
        fail_msg("seed %llu (%s): %zu bins, want %zu", (unsigned long long)seed, how,
                 dfs_ovl_nbins(o), i);
    if (dfs_ovl_late_events(o) || dfs_ovl_held(o))
        fail_msg("seed %llu (%s): late or held after finish", (unsigned long long)seed, how);
}

/* Adds an event with add_mask or, at random, class by class (both mean the same). */
static void feed(dfs_ovl *o, const tev *e, rng *r)
{
    if (below(r, 2)) {
        assert_true(dfs_ovl_add_mask(o, e->mask, e->s, e->e, e->w));
        return;
    }
    for (unsigned c = 0; c < 64; c++)
        if (e->mask >> c & 1)
            assert_true(dfs_ovl_add(o, c, e->s, e->e, e->w));
}

/* Events sorted by start in `order`, so a watermark splits them into a prefix and a suffix. */
static void sort_by_start(const tcase *t, size_t *order)
{
    for (size_t i = 0; i < t->n; i++) {
        size_t j = i;
        for (; j > 0 && t->ev[order[j - 1]].s > t->ev[i].s; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
}

/* Feeds the events of order[from, to) in a random order. */
static void feed_shuffled(dfs_ovl *o, const tcase *t, const size_t *order, size_t from, size_t to,
                          rng *r)
{
    size_t idx[P_MAXEV];
    size_t n = to - from;
    for (size_t i = 0; i < n; i++)
        idx[i] = order[from + i];
    for (size_t i = n; i > 1; i--) {
        size_t j = below(r, (unsigned)i), tmp = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = tmp;
    }
    for (size_t i = 0; i < n; i++)
        feed(o, &t->ev[idx[i]], r);
}

/* First index in order[] whose event starts at or after w. */
static size_t split_at(const tcase *t, const size_t *order, int64_t w)
{
    size_t i = 0;
    while (i < t->n && t->ev[order[i]].s < w)
        i++;
    return i;
}

/* Feeds order[from, stop) with flushes at random rising watermarks up to `limit`, sometimes
 * repeated or lower (allowed: later events still start after the highest one). */
static void feed_with_flushes(dfs_ovl *o, const tcase *t, const size_t *order, size_t from,
                              size_t stop, int64_t w, int64_t limit, rng *r)
{
    unsigned nflush = below(r, 6);
    for (unsigned f = 0; f < nflush; f++) {
        int64_t next = w + below(r, 80);
        next = next < limit ? next : limit;
        size_t to = split_at(t, order, next);
        if (to > stop)
            break;
        feed_shuffled(o, t, order, from, to, r);
        assert_true(dfs_ovl_flush(o, next));
        if (!below(r, 4))
            assert_true(dfs_ovl_flush(o, next - below(r, 100)));
        from = to;
        w = next;
    }
    feed_shuffled(o, t, order, from, stop, r);
}

static dfs_ovl *new_for(const tcase *t)
{
    return make(t->nc, t->ref, t->g, t->origin);
}

static void run_plain(const tcase *t, const size_t *order, rng *r, const expect *x, uint64_t seed)
{
    dfs_ovl *o = new_for(t);
    feed_shuffled(o, t, order, 0, t->n, r);
    assert_true(dfs_ovl_finish(o));
    compare(t, x, o, seed, "plain");
    dfs_ovl_free(o);
}

static void run_flushes(const tcase *t, const size_t *order, rng *r, const expect *x,
                        uint64_t seed)
{
    dfs_ovl *o = new_for(t);
    feed_with_flushes(o, t, order, 0, t->n, (int64_t)below(r, 30) - 10, INT64_MAX, r);
    assert_true(dfs_ovl_finish(o));
    compare(t, x, o, seed, "flushes");
    dfs_ovl_free(o);
}

/* Two unflushed halves of any split merged either way. */
static void run_merge(const tcase *t, const size_t *order, rng *r, const expect *x, uint64_t seed)
{
    dfs_ovl *a = new_for(t), *b = new_for(t);
    for (size_t i = 0; i < t->n; i++)
        feed(below(r, 2) ? a : b, &t->ev[order[i]], r);
    bool into_a = below(r, 2);
    assert_true(into_a ? dfs_ovl_merge(a, b) : dfs_ovl_merge(b, a));
    dfs_ovl *dst = into_a ? a : b, *src = into_a ? b : a;
    assert_int_equal(dfs_ovl_held(src), 0);
    assert_true(dfs_ovl_finish(dst));
    compare(t, x, dst, seed, "merge");
    assert_true(dfs_ovl_finish(src));
    assert_int_equal(dfs_ovl_nbins(src), 0);
    assert_int_equal(dfs_ovl_total(src, 0)->count, 0);
    dfs_ovl_free(a);
    dfs_ovl_free(b);
}

/* a gets the events before W1 with flushes up to W1; b the events in [W1, W2), unflushed; the
 * merge (either way) is exact because neither finalized anything of the other's time. The merged
 * engine then flushes and takes the rest. */
static void run_flush_merge(const tcase *t, const size_t *order, rng *r, const expect *x,
                            uint64_t seed)
{
    dfs_ovl *a = new_for(t), *b = new_for(t);
    int64_t w1 = below(r, 220), w2 = w1 + below(r, 60);
    size_t s1 = split_at(t, order, w1), s2 = split_at(t, order, w2);
    feed_with_flushes(a, t, order, 0, s1, 0, w1, r);
    assert_true(dfs_ovl_flush(a, w1));
    feed_shuffled(b, t, order, s1, s2, r);
    bool into_a = below(r, 2);
    assert_true(into_a ? dfs_ovl_merge(a, b) : dfs_ovl_merge(b, a));
    dfs_ovl *dst = into_a ? a : b;
    assert_true(dfs_ovl_flush(dst, w2));
    feed_with_flushes(dst, t, order, s2, t->n, w2, INT64_MAX, r);
    assert_true(dfs_ovl_finish(dst));
    compare(t, x, dst, seed, "flush+merge");
    dfs_ovl_free(a);
    dfs_ovl_free(b);
}

/* Events in about the order a trace writes them (by end: nested events after those they contain,
 * a few neighbours swapped), flushed now and then up to the earliest start still to come: the
 * union's in-order insertion and its front cuts take most of them. */
/* What an engine that skips counts (dfs_ovl_skip_counts) gives: the same measures and bins,
 * counts only of the events without length. */
static void expect_skipping_counts(const tcase *t, const expect *x, expect *y)
{
    *y = *x;
    for (unsigned c = 0; c < P_MAXC; c++) {
        y->tot[c].count = 0;
        y->tot[c].sum_dur = 0;
        for (size_t k = 0; k < P_NBINS; k++) {
            y->bin[k][c].count = 0;
            y->bin[k][c].sum_dur = 0;
        }
    }
    for (size_t i = 0; i < t->n; i++)
        for (unsigned c = 0; c < t->nc && t->ev[i].e == t->ev[i].s; c++) {
            if (!(t->ev[i].mask >> c & 1))
                continue;
            y->tot[c].count++;
            if (t->g)
                y->bin[ref_bin(t, t->ev[i].s)][c].count++;
        }
}

/* Events nearly in the order DFTracer writes them (by end, with some neighbours swapped), with
 * flushes at the lowest start still to come. With skip_counts, most adds take the engine's
 * in-order path (add_in_order), whose results must be the general path's. */
static void run_in_order(const tcase *t, rng *r, const expect *x, uint64_t seed, bool skip_counts)
{
    size_t idx[P_MAXEV];
    for (size_t i = 0; i < t->n; i++) {
        size_t j = i;
        for (; j > 0 && t->ev[idx[j - 1]].e > t->ev[i].e; j--)
            idx[j] = idx[j - 1];
        idx[j] = i;
    }
    for (size_t i = 1; i < t->n; i++)
        if (!below(r, 8)) {
            size_t tmp = idx[i - 1];
            idx[i - 1] = idx[i];
            idx[i] = tmp;
        }
    expect *y = NULL;
    dfs_ovl *o = new_for(t);
    if (skip_counts) {
        y = malloc(sizeof *y);
        assert_non_null(y);
        expect_skipping_counts(t, x, y);
        dfs_ovl_skip_counts(o);
    }
    for (size_t i = 0; i < t->n; i++) {
        feed(o, &t->ev[idx[i]], r);
        if (below(r, 8))
            continue;
        int64_t w = INT64_MAX;
        for (size_t k = i + 1; k < t->n; k++)
            w = t->ev[idx[k]].s < w ? t->ev[idx[k]].s : w;
        assert_true(dfs_ovl_flush(o, w == INT64_MAX ? 256 : w));
    }
    assert_true(dfs_ovl_finish(o));
    compare(t, y ? y : x, o, seed, skip_counts ? "in order, skipping counts" : "in order");
    dfs_ovl_free(o);
    free(y);
}

/* An engine that skips counts (dfs_ovl_skip_counts), flushed as run_flushes does. */
static void run_skip_counts(const tcase *t, const size_t *order, rng *r, const expect *x, uint64_t seed)
{
    expect *y = malloc(sizeof *y);
    assert_non_null(y);
    expect_skipping_counts(t, x, y);
    dfs_ovl *o = new_for(t);
    dfs_ovl_skip_counts(o);
    feed_with_flushes(o, t, order, 0, t->n, (int64_t)below(r, 30) - 10, INT64_MAX, r);
    assert_true(dfs_ovl_finish(o));
    compare(t, y, o, seed, "skip counts");
    dfs_ovl_free(o);
    free(y);
}

/* An engine retired once it holds nothing (dfs_ovl_renew): the fresh engine that takes its place
 * has its results, and the emptied one, kept as the spare, measures the next events as a new
 * engine would. A second retirement, with the spare taken, frees the emptied engine. */
static void run_renewed(const tcase *t, const size_t *order, rng *r, const expect *x, uint64_t seed)
{
    dfs_ovl *o = new_for(t), *spare = NULL;
    feed_shuffled(o, t, order, 0, t->n, r);
    assert_true(dfs_ovl_finish(o));
    dfs_ovl *was = o;
    dfs_ovl_renew(&o, new_for(t), &spare);
    assert_ptr_equal(spare, was);
    assert_ptr_not_equal(o, was);
    assert_true(dfs_ovl_finish(o));
    compare(t, x, o, seed, "renewed");
    assert_int_equal(dfs_ovl_nbins(spare), 0);
    feed_with_flushes(spare, t, order, 0, t->n, (int64_t)below(r, 30) - 10, INT64_MAX, r);
    assert_true(dfs_ovl_finish(spare));
    compare(t, x, spare, seed, "spare");
    dfs_ovl *kept = spare;
    dfs_ovl_renew(&o, new_for(t), &spare); /* the spare is taken: the emptied engine is freed */
    assert_ptr_equal(spare, kept);
    assert_true(dfs_ovl_finish(o));
    compare(t, x, o, seed, "renewed twice");
    dfs_ovl_free(o);
    dfs_ovl_free(spare);
}

/* Every case against the brute force, fed eight ways. */
static void run_property(uint64_t nseeds, uint64_t mult, unsigned maxev)
{
    expect *x = malloc(sizeof *x);
    assert_non_null(x);
    for (uint64_t seed = 1; seed <= nseeds; seed++) {
        rng r = {seed * mult};
        tcase t;
        size_t order[P_MAXEV];
        make_case(&r, &t, maxev);
        sort_by_start(&t, order);
        brute_force(&t, x);
        run_plain(&t, order, &r, x, seed);
        run_flushes(&t, order, &r, x, seed);
        run_merge(&t, order, &r, x, seed);
        run_flush_merge(&t, order, &r, x, seed);
        run_in_order(&t, &r, x, seed, false);
        run_in_order(&t, &r, x, seed, true);
        run_skip_counts(&t, order, &r, x, seed);
        run_renewed(&t, order, &r, x, seed);
    }
    free(x);
}

static void property_small_cases(void **state)
{
    (void)state;
    run_property(4000, UINT64_C(0x9e3779b97f4a7c15), 48);
}

/* Past the compaction and pruning thresholds: many events in the same small time range. */
static void property_large_cases(void **state)
{
    (void)state;
    run_property(300, UINT64_C(0xd1b54a32d192ed03), P_MAXEV);
}

/* ---- out of memory ----
 * The engine and its hash map are compiled a second time below, renamed (oom_*) so they cannot
 * clash with the library, with every allocation going through a counter that can fail the k-th
 * one. A scenario is run with each k in turn, every call retried until it succeeds: if a failed
 * call had changed anything, the retry would count it twice and the results would differ. */

static long alloc_countdown = -1; /* allocations before the one that fails; -1: none fails */
static long alloc_total;          /* allocations so far, to know how many k to try */

static bool alloc_allowed(void)
{
    alloc_total++;
    if (alloc_countdown < 0)
        return true;
    return alloc_countdown-- != 0;
}

static void *failing_malloc(size_t n) { return alloc_allowed() ? malloc(n) : NULL; }

static void *failing_calloc(size_t n, size_t m) { return alloc_allowed() ? calloc(n, m) : NULL; }

static void *failing_realloc(void *p, size_t n) { return alloc_allowed() ? realloc(p, n) : NULL; }

#undef DFS_OVERLAP_ENGINE_H
#define dfs_ovl oom_ovl
#define dfs_ovl_measure oom_ovl_measure
#define dfs_ovl_new oom_ovl_new
#define dfs_ovl_free oom_ovl_free
#define dfs_ovl_add oom_ovl_add
#define dfs_ovl_add_mask oom_ovl_add_mask
#define dfs_ovl_flush oom_ovl_flush
#define dfs_ovl_merge oom_ovl_merge
#define dfs_ovl_finish oom_ovl_finish
#define dfs_ovl_total oom_ovl_total
#define dfs_ovl_nbins oom_ovl_nbins
#define dfs_ovl_bin_index oom_ovl_bin_index
#define dfs_ovl_bin oom_ovl_bin
#define dfs_ovl_late_events oom_ovl_late_events
#define dfs_ovl_held oom_ovl_held
#define dfs_ovl_watermark oom_ovl_watermark
#define dfs_ovl_skip_counts oom_ovl_skip_counts
#define dfs_ovl_renew oom_ovl_renew
#define ovl_bin_slot oom_ovl_bin_slot
#define ovl_iv_reserve oom_ovl_iv_reserve
#define ovl_compact_union oom_ovl_compact_union
#define ovl_sort_held oom_ovl_sort_held
#define ovl_cut_union oom_ovl_cut_union
#define ovl_store_of_slow oom_ovl_store_of_slow
#define ovl_build_order oom_ovl_build_order
#define dfs_u64map oom_u64map
#define dfs_u64map_init oom_u64map_init
#define dfs_u64map_free oom_u64map_free
#define dfs_u64map_clear oom_u64map_clear
#define dfs_u64map_put oom_u64map_put
#define dfs_u64map_get oom_u64map_get
#define malloc(n) failing_malloc(n)
#define calloc(n, m) failing_calloc(n, m)
#define realloc(p, n) failing_realloc(p, n)
#include "analyze/common/overlap_engine.c"
#include "analyze/common/overlap_engine_flush.c"
#include "util/u64map.c"
#undef malloc
#undef calloc
#undef realloc

/* Retries a call until it succeeds, counting its failures. */
#define RETRY(failures, call)                                                                     \
    do {                                                                                          \
        while (!(call))                                                                           \
            (failures)++;                                                                         \
    } while (0)

static oom_ovl *oom_new(unsigned *failures)
{
    oom_ovl *o;
    while (!(o = oom_ovl_new(3, 0, 7, -3)))
        (*failures)++;
    return o;
}

/* Adds, masks, flushes, a merge and finish, past every compaction, pruning and growth threshold. */
static oom_ovl *oom_scenario(unsigned *failures)
{
    rng r = {42};
    oom_ovl *a = oom_new(failures), *b = oom_new(failures);
    for (int64_t round = 0; round < 6; round++) {
        for (int i = 0; i < 150; i++) {
            int64_t s = round * 400 + below(&r, 400), len = below(&r, 30);
            /* b's events lie later than all of a's, in more bins: merging them has to allocate */
            oom_ovl *to = round <= 2 && below(&r, 2) ? b : a;
            if (to == b) {
                s = 5000 + 4 * s;
                len *= 4;
            }
            int64_t e = s + len;
            unsigned c = below(&r, 3), mask = 1 + below(&r, 7); /* not redrawn by a retry */
            if (below(&r, 4))
                RETRY(*failures, oom_ovl_add(to, c, s, e, 1));
            else
                RETRY(*failures, oom_ovl_add_mask(to, mask, s, e, 2));
        }
        if (round == 2)
            RETRY(*failures, oom_ovl_merge(a, b)); /* b finalized nothing of a's time */
        if (round >= 1)
            RETRY(*failures, oom_ovl_flush(round > 2 ? a : b, round * 400 + 400));
    }
    oom_ovl_free(b);
    RETRY(*failures, oom_ovl_finish(a));
    return a;
}

static bool oom_same_result(const oom_ovl *x, const oom_ovl *y)
{
    if (oom_ovl_nbins(x) != oom_ovl_nbins(y))
        return false;
    for (unsigned c = 0; c < 3; c++) {
        const oom_ovl_measure *m = oom_ovl_total(x, c), *n = oom_ovl_total(y, c);
        if (memcmp(m, n, sizeof *m))
            return false;
        for (size_t i = 0; i < oom_ovl_nbins(x); i++)
            if (oom_ovl_bin_index(x, i) != oom_ovl_bin_index(y, i) ||
                memcmp(oom_ovl_bin(x, i, c), oom_ovl_bin(y, i, c), sizeof *m))
                return false;
    }
    return true;
}

static void out_of_memory_changes_nothing(void **state)
{
    (void)state;
    unsigned failures = 0;
    alloc_countdown = -1;
    alloc_total = 0;
    oom_ovl *clean = oom_scenario(&failures);
    long total = alloc_total;
    assert_int_equal(failures, 0);
    assert_true(total > 50 && oom_ovl_nbins(clean) > 64); /* the bin map had to grow */
    long failed_calls = 0; /* a failed compaction is only postponed, so not every k fails a call */
    for (long k = 0; k < total; k++) {
        failures = 0;
        alloc_countdown = k;
        oom_ovl *o = oom_scenario(&failures);
        if (failures > 1)
            fail_msg("allocation %ld: %u failed calls", k, failures);
        failed_calls += failures;
        if (!oom_same_result(o, clean))
            fail_msg("allocation %ld failing changed the result", k);
        oom_ovl_free(o);
    }
    assert_true(failed_calls > total / 2);
    alloc_countdown = -1;
    oom_ovl_free(clean);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(example1_three_classes),
        cmocka_unit_test(example1_clipped_bins),
        cmocka_unit_test(example2_touching_zero_nested),
        cmocka_unit_test(example3_scopes),
        cmocka_unit_test(example4_bin_edges),
        cmocka_unit_test(duplicates_and_touching_reference),
        cmocka_unit_test(nested_exposure),
        cmocka_unit_test(no_reference_and_masks),
        cmocka_unit_test(mask_with_reference),
        cmocka_unit_test(invalid_arguments),
        cmocka_unit_test(bins_negative_and_edges),
        cmocka_unit_test(bins_at_int64_extremes),
        cmocka_unit_test(flush_crossing_events),
        cmocka_unit_test(late_events_are_counted),
        cmocka_unit_test(flush_bounds_memory),
        cmocka_unit_test(covered_events_are_not_held),
        cmocka_unit_test(many_nested_events),
        cmocka_unit_test(property_small_cases),
        cmocka_unit_test(property_large_cases),
        cmocka_unit_test(out_of_memory_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
