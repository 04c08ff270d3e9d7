/* test_timebins.c - the bound on time bins (src/analyze/common/timebins.h): what a unit counts
 * (the smaller of its span's bins and its events' bins), that counting grows monotonically and
 * the same in any order, saturation at absurd values, and the refusal's suggested granularity. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

#include "analyze/common/timebins.h"

#define MS INT64_C(1000000)
#define S INT64_C(1000000000)

static void test_covered(void **state)
{
    (void)state;
    assert_int_equal(dfs_bins_covered(0, 0, MS), 1);
    assert_int_equal(dfs_bins_covered(5, 4, MS), 1);           /* an inverted span: one bin */
    assert_int_equal(dfs_bins_covered(0, MS, MS), 2);          /* any origin: it may straddle two */
    assert_int_equal(dfs_bins_covered(0, MS + 1, MS), 3);
    assert_int_equal(dfs_bins_covered(INT64_MIN, INT64_MAX, 1), UINT64_MAX); /* saturates */
    assert_int_equal(dfs_bins_event(MS - 1, MS), 1);
    assert_int_equal(dfs_bins_event(3 * MS, MS), 4);
    assert_int_equal(dfs_bins_add(UINT64_MAX - 1, 5), UINT64_MAX);
}

/* A unit's count is min(span bins, event bins), grown event by event. */
static void test_grow(void **state)
{
    (void)state;
    uint64_t counted = 0, events = 0, total = 0;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (int i = 0; i < 100; i++) { /* short events every 10 ms over 1 s, 1 ms bins */
        int64_t ts = i * 10 * MS, end = ts + MS / 2;
        first = ts < first ? ts : first;
        last = end > last ? end : last;
        events += dfs_bins_event(end - ts, MS);
        total += dfs_bins_grow(&counted, events, first, last, MS);
    }
    assert_int_equal(counted, 100); /* sparse: the events bound it, not the 992 bins of the span */
    assert_int_equal(total, counted);
    /* one long event: now the span bounds it */
    events += dfs_bins_event(10 * S, MS);
    last = 10 * S;
    total += dfs_bins_grow(&counted, events, first, last, MS);
    assert_int_equal(counted, dfs_bins_covered(0, 10 * S, MS));
    assert_int_equal(total, counted);
    assert_int_equal(dfs_bins_grow(&counted, events, first, last, MS), 0); /* nothing new */
}

static void test_refusal(void **state)
{
    (void)state;
    dfs_bin_tally t;
    dfs_bin_tally_init(&t, 1);
    dfs_bin_tally_run(&t, 0, S, UINT64_MAX);
    for (int i = 0; i < 3; i++)
        dfs_bin_tally_unit(&t, 0, S, UINT64_MAX);
    dfs_bin_tally_unit(&t, 7, 3, 5); /* no binned event: not a unit */
    assert_true(dfs_bin_tally_over(&t));
    assert_int_equal(t.units, 3);
    char msg[320];
    dfs_bin_tally_refusal(&t, "processes", msg, sizeof msg);
    assert_non_null(strstr(msg, "--granularity 1ns makes 4000000004 time bins"));
    assert_non_null(strstr(msg, "and 3 processes' own"));
    /* 1us: 4 spans of 1,000,001 bins, over; 2us is the finest 1-2-5 step that fits by spans alone */
    assert_non_null(strstr(msg, "use --granularity 2us or coarser"));
    dfs_bin_tally u;
    dfs_bin_tally_init(&u, 2000);
    dfs_bin_tally_run(&u, 0, S, UINT64_MAX);
    for (int i = 0; i < 3; i++)
        dfs_bin_tally_unit(&u, 0, S, UINT64_MAX);
    assert_false(dfs_bin_tally_over(&u));
    /* sparse units fit at any granularity */
    dfs_bin_tally_init(&u, 1);
    dfs_bin_tally_run(&u, 0, 365 * 86400 * S, 2);
    assert_false(dfs_bin_tally_over(&u));
    assert_int_equal(u.bins, 2);
    /* too many units for any granularity: no number suggested */
    dfs_bin_tally_init(&u, S);
    for (uint64_t i = 0; i < DFS_TIME_BINS_MAX / 2 + 1; i++)
        dfs_bin_tally_unit(&u, 0, 1, 1);
    assert_int_equal(u.bins, DFS_TIME_BINS_MAX / 2 + 1);
    u.bins = DFS_TIME_BINS_MAX + 1;
    dfs_bin_tally_refusal(&u, "threads", msg, sizeof msg);
    assert_non_null(strstr(msg, "use a coarser --granularity"));
}

/* Cells of long events beyond their start bins count, and scale the suggestion: a run of 1 s at
 * 1 us (1,000,001 bins) whose events reach 3,000,000 cells more is over; the finest width at which
 * the span and the spread cells (3 s of durations in cells) fit is 1 us x 4 s / 4e6 -> 2 us. */
static void test_spread(void **state)
{
    (void)state;
    dfs_bin_tally t;
    dfs_bin_tally_init(&t, 1000);
    dfs_bin_tally_run(&t, 0, S, UINT64_MAX);
    assert_false(dfs_bin_tally_over(&t));
    dfs_bin_tally_spread(&t, 3000000, 3 * S);
    assert_true(dfs_bin_tally_over(&t));
    assert_int_equal(t.bins, 4000001);
    char msg[320];
    dfs_bin_tally_refusal(&t, "processes", msg, sizeof msg);
    assert_non_null(strstr(msg, "--granularity 1us makes 4000001 time bins (the run's 1.000 s, and 3000000 more that "
                                "events longer than a bin reach)"));
    assert_non_null(strstr(msg, "use --granularity 2us or coarser"));
    dfs_bin_tally_spread(&t, UINT64_MAX, UINT64_MAX); /* saturates, never wraps */
    assert_int_equal(t.bins, UINT64_MAX);
    /* the shared fitting rule: 1 span of 10 s in 1,003 bins (each span counts length / g + 2): 10 ms is the finest; none for too many spans */
    assert_int_equal(dfs_bins_fitting_width(10 * (unsigned __int128)S, 1, 1003, 1), 10000000);
    assert_int_equal(dfs_bins_fitting_width(10 * (unsigned __int128)S, 501, 1002, 1), 0);
    char w[32];
    dfs_bins_width_text(w, sizeof w, 1500000);
    assert_string_equal(w, "1500us");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_covered),
        cmocka_unit_test(test_grow),
        cmocka_unit_test(test_refusal),
        cmocka_unit_test(test_spread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
