/* test_timeline_bounds.c - the bounds of the window picture (src/analyze/timeline/timeline.c,
 * src/output/timeline_svg.c) whatever it is given: the axis of windows up to the whole int64 clock,
 * spans far outside them, and the lane bound (lanes beyond the limit folded into the row "other
 * lanes"), which must not depend on the order spans arrive in or on how timelines are merged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "analyze/timeline/timeline.h"

#define MS INT64_C(1000000)

static dfs_timeline *window_of(int64_t start, int64_t end, unsigned width, const uint64_t *kept, size_t nkept)
{
    dfs_tl_options o;
    dfs_tl_options_init(&o);
    o.start_ns = start;
    o.end_ns = end;
    o.width_px = width;
    o.title = "bounds";
    o.kept = kept;
    o.nkept = nkept;
    dfs_timeline *tl = dfs_tl_new(&o);
    assert_non_null(tl);
    return tl;
}

static char *render(const dfs_timeline *tl)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(dfs_tl_write(tl, f), DFS_OK);
    fclose(f);
    return buf;
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static uint32_t lane_of(dfs_timeline *tl, int64_t pid, int64_t tid)
{
    dfs_tl_lane_key k = {.source = "", .host = "h", .pid = pid, .tid = tid};
    uint32_t id = dfs_tl_lane(tl, &k);
    assert_int_not_equal(id, UINT32_MAX);
    return id;
}

static void span(dfs_timeline *tl, uint32_t lane, int64_t start, int64_t dur, dfs_tl_class c)
{
    assert_int_equal(dfs_tl_add_span(tl, lane, start, dur, "s", 1, c), DFS_OK);
}

/* ===== the axis ================================================================================ */

static void test_axis_whole_clock(void **state)
{
    (void)state;
    static const struct {
        int64_t start, end;
    } windows[] = {{0, INT64_MAX}, {INT64_MIN, -1}, {INT64_MIN / 2, INT64_MAX / 2}, {-5, 5}, {0, 1}};
    static const unsigned widths[] = {200, 1200, 20000};
    for (size_t w = 0; w < sizeof windows / sizeof *windows; w++)
        for (size_t k = 0; k < 3; k++) {
            dfs_timeline *tl = window_of(windows[w].start, windows[w].end, widths[k], NULL, 0);
            uint32_t l = lane_of(tl, 1, 1);
            /* spans reaching far outside the window, both ways, wide and narrow */
            span(tl, l, INT64_MIN, INT64_MAX, DFS_TL_COMPUTE);
            span(tl, l, windows[w].start, INT64_MAX, DFS_TL_IO);
            span(tl, l, windows[w].end - 1, 0, DFS_TL_OTHER);
            char *svg = render(tl);
            size_t ticks = count(svg, "<line");
            assert_true(ticks >= 1);
            assert_true(ticks <= widths[k] / 100 + 2); /* about one per 110 px */
            free(svg);
            dfs_tl_free(tl);
        }
}

/* ===== the lane bound ========================================================================== */

static void test_lane_limit_by_width(void **state)
{
    (void)state;
    assert_int_equal(dfs_tl_lane_limit(1200), 1000);
    assert_int_equal(dfs_tl_lane_limit(4000), 1000);
    assert_int_equal(dfs_tl_lane_limit(5000), 800);
    assert_int_equal(dfs_tl_lane_limit(20000), 200);
    dfs_tl_options o;
    dfs_tl_options_init(&o);
    o.end_ns = 1;
    uint64_t kept[201] = {0};
    o.width_px = 20000;
    o.kept = kept;
    o.nkept = 201; /* more than the limit: refused */
    assert_null(dfs_tl_new(&o));
}

enum { NLANES = 1300 };

/* Lane i gets a span of its own length (busier lanes have larger i % 7), narrow or wide, plus a
 * nested one on every fifth; spans are cut into `parts` groups, given part by part. */
static void fill(dfs_timeline *tl, int part, int parts)
{
    for (int i = part; i < NLANES; i += parts) {
        uint32_t l = lane_of(tl, 1 + i % 9, i);
        int64_t start = (int64_t)(i % 97) * MS;
        span(tl, l, start, (i % 7 + 1) * (i % 3 ? 10000 : MS), (dfs_tl_class)(i % DFS_TL_NCLASS));
        if (i % 5 == 0)
            span(tl, l, start + 1000, 3 * MS, DFS_TL_IO);
    }
}

/* The picture of the same spans, given in `parts` timelines merged in order or backwards. */
static char *picture(int parts, bool backwards, const uint64_t *kept, size_t nkept, dfs_tl_summary *sum)
{
    dfs_timeline *all = window_of(0, 100 * MS, 1200, kept, nkept);
    for (int k = 0; k < parts; k++) {
        dfs_timeline *p = window_of(0, 100 * MS, 1200, kept, nkept);
        fill(p, backwards ? parts - 1 - k : k, parts);
        assert_int_equal(dfs_tl_merge(all, p), DFS_OK);
        dfs_tl_free(p);
    }
    dfs_tl_summarize(all, sum);
    char *svg = render(all);
    dfs_tl_free(all);
    return svg;
}

static void test_crowded(void **state)
{
    (void)state;
    dfs_tl_summary s;
    char *one = picture(1, false, NULL, 0, &s);
    assert_int_equal(s.lanes, NLANES);
    assert_int_equal(s.lanes_drawn, 0);
    assert_int_equal(s.lanes_other, NLANES);
    assert_int_equal(s.spans_other, NLANES + (NLANES + 4) / 5);
    assert_non_null(strstr(one, ">1,300 other lanes</text>"));
    assert_non_null(strstr(one, "more than 1000 lanes: all 1,300 are drawn together"));
    assert_int_equal(count(one, "class=\"ll\""), 0); /* no lane of its own */
    /* the same whatever the split and the order */
    for (int parts = 2; parts <= 7; parts += 5)
        for (int back = 0; back < 2; back++) {
            char *svg = picture(parts, back, NULL, 0, &s);
            assert_string_equal(one, svg);
            free(svg);
        }
    free(one);
}

static void test_not_crowded_at_the_limit(void **state)
{
    (void)state;
    dfs_timeline *tl = window_of(0, 100 * MS, 1200, NULL, 0);
    for (int i = 0; i < 1000; i++)
        span(tl, lane_of(tl, 1, i), i * 1000, 500, DFS_TL_COMPUTE);
    for (int i = 0; i < 1000; i++) /* lanes without a span in the window do not count */
        span(tl, lane_of(tl, 2, i), 200 * MS, 500, DFS_TL_COMPUTE);
    assert_false(dfs_tl_crowded(tl));
    dfs_tl_summary s;
    dfs_tl_summarize(tl, &s);
    assert_int_equal(s.lanes_drawn, 1000);
    assert_int_equal(s.lanes_other, 0);
    span(tl, lane_of(tl, 3, 0), 0, 500, DFS_TL_COMPUTE); /* one more */
    assert_true(dfs_tl_crowded(tl));
    dfs_tl_free(tl);
}

static void test_kept_busiest(void **state)
{
    (void)state;
    dfs_timeline *first = window_of(0, 100 * MS, 1200, NULL, 0);
    fill(first, 0, 1);
    assert_true(dfs_tl_crowded(first));
    size_t n;
    uint64_t *kept = dfs_tl_busiest(first, 1000, &n);
    assert_non_null(kept);
    assert_int_equal(n, 1000);
    dfs_tl_free(first);
    dfs_tl_summary s;
    char *one = picture(1, false, kept, n, &s);
    assert_int_equal(s.lanes, NLANES);
    assert_int_equal(s.lanes_drawn, 1000);
    assert_int_equal(s.lanes_other, NLANES - 1000);
    assert_non_null(strstr(one, ">300 other lanes</text>"));
    assert_non_null(strstr(one, "300 lanes beyond the busiest 1000 share the last row"));
    for (int back = 0; back < 2; back++) {
        char *svg = picture(5, back, kept, n, &s);
        assert_string_equal(one, svg);
        free(svg);
    }
    /* the busiest are kept: every lane with a 7-step span (i % 7 == 6 and wide) is drawn */
    dfs_timeline *tl = window_of(0, 100 * MS, 1200, kept, n);
    fill(tl, 0, 1);
    dfs_tl_lane_info *info = calloc(NLANES, sizeof *info);
    assert_int_equal(dfs_tl_lanes(tl, info, NLANES), NLANES);
    size_t drawn = 0, other = 0;
    for (size_t i = 0; i < NLANES; i++) {
        drawn += info[i].drawn;
        other += info[i].other;
        assert_true(info[i].drawn != info[i].other);
        if (info[i].key.tid % 7 == 6 && info[i].key.tid % 3 == 0)
            assert_true(info[i].drawn);
    }
    assert_int_equal(drawn, 1000);
    assert_int_equal(other, NLANES - 1000);
    free(info);
    dfs_tl_free(tl);
    /* kept lanes and max_lanes below the limit: the others are left out, no other row */
    dfs_tl_options o;
    dfs_tl_options_init(&o);
    o.end_ns = 100 * MS;
    o.max_lanes = 10;
    o.kept = kept;
    o.nkept = n;
    tl = dfs_tl_new(&o);
    fill(tl, 0, 1);
    dfs_tl_summarize(tl, &s);
    assert_int_equal(s.lanes_drawn, 10);
    assert_int_equal(s.lanes_other, 0);
    char *svg = render(tl);
    assert_non_null(strstr(svg, "1,290 lanes omitted: the 10 busiest of 1300 are drawn"));
    assert_null(strstr(svg, "other lanes"));
    free(svg);
    dfs_tl_free(tl);
    free(kept);
    free(one);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_axis_whole_clock),
        cmocka_unit_test(test_lane_limit_by_width),
        cmocka_unit_test(test_crowded),
        cmocka_unit_test(test_not_crowded_at_the_limit),
        cmocka_unit_test(test_kept_busiest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
