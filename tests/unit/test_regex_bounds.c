/* test_regex_bounds.c - the bounds on regular-expression searches (predicate.h): a search that
 * would backtrack for minutes stops at its bound and fails its predicate (never a silent "no
 * match"), the failure names the pattern, the column and the value, a failed predicate runs no more
 * searches, a set neither memoises nor hides it, the concepts name the concept; patterns that take
 * linear time from each position pass on long values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/common/concepts.h"
#include "analyze/common/predicate.h"
#include "read/run.h"
#include "testutil.h"

#define EVIL "func_name.str.contains(\"(a+)+$|X\")" /* the pattern: 2^n steps on n a's */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* n copies of c, then the tail: owned by the caller. */
static char *repeat(char c, size_t n, const char *tail)
{
    size_t m = strlen(tail);
    char *s = malloc(n + m + 1);
    assert_non_null(s);
    memset(s, c, n);
    memcpy(s + n, tail, m + 1);
    return s;
}

static dfs_pred_row name_row(const char *name)
{
    dfs_pred_row r;
    dfs_pred_row_init(&r);
    dfs_pred_row_set_text(&r, DFS_PRED_FUNC_NAME, name, strlen(name));
    return r;
}

static void limit_reached_is_a_failure(void **state)
{
    (void)state;
    dfs_pred *p = dfs_pred_parse(EVIL, NULL);
    assert_non_null(p);
    char *name = repeat('a', 40, "X0"); /* PCRE2's default limits: 0.1 s, then "no match" */
    dfs_pred_row r = name_row(name);
    double t0 = now_s();
    assert_false(dfs_pred_match(p, &r));
    assert_true(now_s() - t0 < 2.0);
    dfs_pred_error err;
    memset(&err, 0, sizeof err);
    assert_true(dfs_pred_failed(p, &err));
    assert_int_equal(err.column, 24); /* the string literal */
    assert_non_null(strstr(err.message, "the regular expression '(a+)+$|X' gave up on func_name 'aaaa"));
    assert_non_null(strstr(err.message, "(42 bytes)"));
    assert_non_null(strstr(err.message, "backtracking steps from one position"));

    /* failed for good: no more searches, and a value that would match is no match either */
    uint64_t evals = dfs_pred_regex_evals(p);
    dfs_pred_row x = name_row("X");
    assert_false(dfs_pred_match(p, &x));
    assert_int_equal(dfs_pred_regex_evals(p), evals);
    free(name);
    dfs_pred_free(p);
}

static void ordinary_searches_do_not_fail(void **state)
{
    (void)state;
    dfs_pred *p = dfs_pred_parse(EVIL, NULL);
    dfs_pred_row hit = name_row("X marks"), miss = name_row("aaab");
    assert_true(dfs_pred_match(p, &hit));
    assert_false(dfs_pred_match(p, &miss)); /* a few a's: well within the bound */
    assert_false(dfs_pred_failed(p, NULL));
    dfs_pred_free(p);

    /* Linear work from a position on a long value: `.*xyz` (tried from the start only) backtracks
     * over all of it. The bound grows with the value, so this is no failure however long. */
    p = dfs_pred_parse("func_name.str.contains(\".*xyz\")", NULL);
    char *name = repeat('x', 200000, "yqz");
    dfs_pred_row r = name_row(name);
    assert_false(dfs_pred_match(p, &r));
    assert_false(dfs_pred_failed(p, NULL));
    free(name);
    dfs_pred_free(p);
}

static void the_bound_follows_the_value(void **state)
{
    (void)state;
    assert_int_equal(dfs_pred_regex_step_limit(0), DFS_PRED_REGEX_BUDGET);
    assert_int_equal(dfs_pred_regex_step_limit(99), DFS_PRED_REGEX_BUDGET / 100);
    assert_int_equal(dfs_pred_regex_step_limit(1000000), 1000000 + DFS_PRED_REGEX_MIN_STEPS);
    assert_int_equal(dfs_pred_regex_step_limit((size_t)1 << 40), UINT32_MAX);
    /* A long value of short runs: every position backtracks under its bound (2^17 steps), and the
     * whole search stays near the budget rather than positions x bound. */
    char *name = malloc(20 * 1000 + 1);
    for (size_t i = 0; i < 1000; i++)
        memcpy(name + 20 * i, "aaaaaaaaaaaaaaaaaaaX", 20);
    name[20 * 1000] = '\0';
    dfs_pred *p = dfs_pred_parse("func_name.str.contains(\"(a+)+$\")", NULL);
    dfs_pred_row r = name_row(name);
    double t0 = now_s();
    (void)dfs_pred_match(p, &r);
    assert_true(now_s() - t0 < 5.0);
    dfs_pred_error err;
    assert_true(dfs_pred_failed(p, &err)); /* 2^17 steps exceed 10^7 / 20001 */
    assert_non_null(strstr(err.message, "(20000 bytes)"));
    free(name);
    dfs_pred_free(p);
}

static void a_set_reports_its_failed_member(void **state)
{
    (void)state;
    const char *texts[] = {"cat == \"POSIX\"", EVIL};
    dfs_pred_error err;
    dfs_pred_set *s = dfs_pred_set_new(texts, 2, &err);
    assert_non_null(s);
    char *name = repeat('a', 40, "X1");
    dfs_pred_row r = name_row(name);
    dfs_pred_row_set_text(&r, DFS_PRED_CAT, "POSIX", 5);
    uint32_t ids[DFS_PRED_NTEXT] = {1, 2};
    assert_false(dfs_pred_set_failed(s, NULL));
    assert_int_equal(dfs_pred_set_eval(s, &r, ids), 1); /* the failed member answers UNKNOWN */
    memset(&err, 0, sizeof err);
    assert_true(dfs_pred_set_failed(s, &err));
    assert_int_equal(err.index, 1);
    dfs_pred_set_stats st;
    dfs_pred_set_stats_get(s, &st);
    assert_int_equal(st.keys, 0); /* a failed answer is not memoised */

    char msg[512] = "";
    dfs_pred_note_failure(msg, sizeof msg, "class io", texts[err.index], &err);
    assert_non_null(strstr(msg, "class io: predicate " EVIL ": the regular expression"));
    dfs_pred_note_failure(msg, sizeof msg, "class other", "x", &err); /* the first one stays */
    assert_non_null(strstr(msg, "class io: "));
    free(name);
    dfs_pred_set_free(s);
}

static void concepts_name_the_failed_concept(void **state)
{
    (void)state;
    dfs_concept_overrides ov;
    memset(&ov, 0, sizeof ov);
    ov.text[DFS_CONCEPT_IO] = EVIL;
    dfs_pred_error err;
    dfs_concepts *c = dfs_concepts_new(&ov, &err, NULL);
    assert_non_null(c);
    dfs_run *run = tu_run(1, 0, 0);
    char *name = repeat('a', 40, "X2");
    dfs_str id = dfs_run_intern(run, name, strlen(name));
    dfs_event ev = {.phase = DFS_PHASE_COMPLETE, .name = id, .pid = 1, .tid = 1};
    char msg[512] = "";
    assert_false(dfs_concepts_failed(c, msg, sizeof msg));
    (void)dfs_concepts_match(c, run, DFS_CSRC_GENERIC, &ev);
    assert_true(dfs_concepts_failed(c, msg, sizeof msg));
    assert_non_null(strstr(msg, "concept io: predicate " EVIL ": the regular expression '(a+)+$|X' gave up"));
    free(name);
    dfs_run_free(run);
    dfs_concepts_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(limit_reached_is_a_failure),
        cmocka_unit_test(ordinary_searches_do_not_fail),
        cmocka_unit_test(the_bound_follows_the_value),
        cmocka_unit_test(a_set_reports_its_failed_member),
        cmocka_unit_test(concepts_name_the_failed_concept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
