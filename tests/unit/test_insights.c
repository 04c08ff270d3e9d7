/* test_insights.c - the report's rule engine (analyze/insights/insights.h): every shipped rule fires
 * exactly at its thresholds and not just below them, severity follows the time at stake, --param
 * and --rules change what they say, rule files are checked with the place of a fault, and a rule
 * missing a metric is not evaluated rather than fired. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/insights/insights_internal.h"
#include "analyze/insights/iocalls.h"
#include "testutil.h"

static bool fired(const dfs_insights *in, const char *id)
{
    for (size_t i = 0; i < in->n; i++)
        if (strcmp(in->v[i].id, id) == 0)
            return true;
    return false;
}

/* The metrics that put every condition of the rule at its threshold, its stake at 1 s. */
static void at_threshold(const insight_rule *rule, dfs_metrics *m)
{
    dfs_metrics_init(m);
    for (size_t k = 0; k < rule->nconds; k++)
        dfs_metrics_set(m, rule->conds[k].metric, rule->conds[k].threshold, DFS_MU_RATIO, "here");
    if (rule->stake)
        dfs_metrics_set(m, rule->stake, 1.0, DFS_MU_SECONDS, NULL);
}

static bool fires_with(const dfs_insight_rules *r, const dfs_metrics *m, const char *id)
{
    dfs_insights in;
    assert_true(dfs_insights_eval(r, m, 100.0, &in));
    bool f = fired(&in, id);
    dfs_insights_free(&in);
    return f;
}

static void every_rule_fires_at_its_threshold_not_below(void **state)
{
    (void)state;
    dfs_insight_rules *r = tu_shipped_rules();
    assert_true(r->n >= 14);
    for (size_t i = 0; i < r->n; i++) {
        const insight_rule *rule = &r->v[i];
        dfs_metrics m;
        at_threshold(rule, &m);
        if (!fires_with(r, &m, rule->id))
            fail_msg("%s does not fire at its thresholds", rule->id);
        for (size_t k = 0; k < rule->nconds; k++) {
            const insight_cond *c = &rule->conds[k];
            double off = nextafter(c->threshold, c->at_most ? INFINITY : -INFINITY);
            dfs_metrics_set(&m, c->metric, off, DFS_MU_RATIO, NULL);
            if (fires_with(r, &m, rule->id))
                fail_msg("%s fires with %s just past its threshold %g", rule->id, c->metric, c->threshold);
            dfs_metrics_set(&m, c->metric, c->threshold, DFS_MU_RATIO, NULL);
        }
        dfs_metrics_free(&m);
    }
    dfs_insight_rules_free(r);
}

static void a_missing_metric_is_not_evaluated(void **state)
{
    (void)state;
    dfs_insight_rules *r = tu_shipped_rules();
    dfs_metrics m;
    dfs_metrics_init(&m);
    dfs_metrics_set(&m, "exposed_wait_share", 0.5, DFS_MU_SHARE, NULL); /* no exposed_wait_s */
    dfs_metrics_set(&m, "not_a_number", NAN, DFS_MU_SHARE, NULL);      /* never set */
    assert_null(dfs_metrics_get(&m, "not_a_number"));
    dfs_insights in;
    assert_true(dfs_insights_eval(r, &m, 10, &in));
    assert_false(fired(&in, "input-bound"));
    bool skipped = false;
    for (size_t i = 0; i < in.nskipped; i++)
        if (strcmp(in.skipped[i].id, "input-bound") == 0)
            skipped = strcmp(in.skipped[i].missing, "exposed_wait_s") == 0;
    assert_true(skipped);
    dfs_insights_free(&in);
    dfs_metrics_free(&m);
    dfs_insight_rules_free(r);
}

static dfs_severity severity_at(const dfs_insight_rules *r, double stake, double wall)
{
    dfs_metrics m;
    dfs_metrics_init(&m);
    dfs_metrics_set(&m, "exposed_wait_share", 0.5, DFS_MU_SHARE, NULL);
    dfs_metrics_set(&m, "exposed_wait_s", stake, DFS_MU_SECONDS, NULL);
    dfs_insights in;
    assert_true(dfs_insights_eval(r, &m, wall, &in));
    assert_true(fired(&in, "input-bound"));
    dfs_severity s = in.v[0].severity;
    dfs_insights_free(&in);
    dfs_metrics_free(&m);
    return s;
}

static void severity_follows_the_time_at_stake(void **state)
{
    (void)state;
    dfs_insight_rules *r = tu_shipped_rules();
    assert_int_equal(severity_at(r, 25, 100), DFS_SEV_CRITICAL);
    assert_int_equal(severity_at(r, nextafter(25, 0), 100), DFS_SEV_WARNING);
    assert_int_equal(severity_at(r, 5, 100), DFS_SEV_WARNING);
    assert_int_equal(severity_at(r, nextafter(5, 0), 100), DFS_SEV_INFO);
    char err[256];
    assert_true(dfs_insight_rules_set_param(r, "severity.critical", "0.5", err, sizeof err));
    assert_int_equal(severity_at(r, 25, 100), DFS_SEV_WARNING);
    dfs_insight_rules_free(r);
}

static void params_move_thresholds(void **state)
{
    (void)state;
    dfs_insight_rules *r = tu_shipped_rules();
    char err[256];
    assert_true(dfs_insight_rules_set_param(r, "input-bound.share", "0.5", err, sizeof err));
    dfs_metrics m;
    dfs_metrics_init(&m);
    dfs_metrics_set(&m, "exposed_wait_s", 1, DFS_MU_SECONDS, NULL);
    dfs_metrics_set(&m, "exposed_wait_share", 0.5, DFS_MU_SHARE, NULL);
    assert_true(fires_with(r, &m, "input-bound"));
    dfs_metrics_set(&m, "exposed_wait_share", 0.49, DFS_MU_SHARE, NULL);
    assert_false(fires_with(r, &m, "input-bound"));
    dfs_metrics_free(&m);
    assert_false(dfs_insight_rules_set_param(r, "input-bound.shares", "0.5", err, sizeof err));
    assert_non_null(strstr(err, "Did you mean 'input-bound.share'"));
    assert_false(dfs_insight_rules_set_param(r, "input-bound.share", "half", err, sizeof err));
    assert_non_null(strstr(err, "takes a number"));
    dfs_insight_rules_free(r);
}

static void insights_are_ordered_by_time_at_stake(void **state)
{
    (void)state;
    dfs_insight_rules *r = tu_shipped_rules();
    dfs_metrics m;
    dfs_metrics_init(&m);
    dfs_metrics_set(&m, "exposed_wait_share", 0.5, DFS_MU_SHARE, NULL);
    dfs_metrics_set(&m, "exposed_wait_s", 2, DFS_MU_SECONDS, NULL);
    dfs_metrics_set(&m, "checkpoint_share", 0.3, DFS_MU_SHARE, NULL);
    dfs_metrics_set(&m, "checkpoint_unhidden_s", 3, DFS_MU_SECONDS, NULL);
    dfs_metrics_set(&m, "damaged_records", 4, DFS_MU_COUNT, NULL);
    dfs_insights in;
    assert_true(dfs_insights_eval(r, &m, 10, &in));
    assert_int_equal(in.n, 3);
    assert_string_equal(in.v[0].id, "checkpoint-stall");
    assert_string_equal(in.v[1].id, "input-bound");
    assert_string_equal(in.v[2].id, "damaged-input"); /* no stake: last, its own severity */
    assert_int_equal(in.v[2].severity, DFS_SEV_WARNING);
    for (size_t i = 0; i < in.n; i++)
        assert_true(in.v[i].nfacts >= 1 && in.v[i].remedy && in.v[i].command && in.v[i].evidence);
    dfs_insights_free(&in);
    dfs_metrics_free(&m);
    dfs_insight_rules_free(r);
}

static const char my_rule[] = "rules:\n"
                              "  - id: input-bound\n"
                              "    when: [{metric: x, at_most: 2, param: most}]\n"
                              "    evidence: 'x is {x} at {x.where}'\n"
                              "    remedy: less x\n"
                              "    command: dfscope steps\n"
                              "    severity: info\n";

static void a_rule_file_replaces_by_id(void **state)
{
    (void)state;
    dfs_insight_rules *r = tu_shipped_rules();
    size_t n = r->n;
    char err[256];
    assert_true(dfs_insight_rules_add_text(r, my_rule, sizeof my_rule - 1, "mine.yaml", err, sizeof err));
    assert_int_equal(r->n, n);
    dfs_metrics m;
    dfs_metrics_init(&m);
    dfs_metrics_set(&m, "x", 2, DFS_MU_COUNT, NULL);
    assert_true(fires_with(r, &m, "input-bound"));
    dfs_metrics_set(&m, "x", nextafter(2, 3), DFS_MU_COUNT, NULL);
    assert_false(fires_with(r, &m, "input-bound"));
    dfs_metrics_free(&m);
    dfs_insight_rules_free(r);
}

static void expect_refused(const char *text, const char *says)
{
    dfs_insight_rules *r = dfs_insight_rules_new();
    char err[512] = "";
    assert_false(dfs_insight_rules_add_text(r, text, strlen(text), "bad.yaml", err, sizeof err));
    if (!strstr(err, says))
        fail_msg("expected '%s' in '%s'", says, err);
    assert_int_equal(r->n, 0);
    dfs_insight_rules_free(r);
}

static void bad_rule_files_are_refused_with_their_place(void **state)
{
    (void)state;
    expect_refused("rules:\n  - id: a\n    colour: red\n", "bad.yaml:3:5: unknown key 'colour'");
    expect_refused("rules:\n  - id: a\n    when: [{metric: x, at_least: 1, param: p}]\n    evidence: '{x}'\n"
                   "    command: c\n    severity: info\n",
                   "needs when, evidence, remedy and command");
    expect_refused("rules:\n  - id: a\n    when: [{metric: x, at_least: 1, param: p}]\n    evidence: 'no numbers'\n"
                   "    remedy: r\n    command: c\n    severity: info\n",
                   "evidence names no metric");
    expect_refused("rules:\n  - id: a\n    when: [{metric: x, at_least: one, param: p}]\n", "at_least takes a number");
    expect_refused("rules:\n  - id: a\n    when: [{metric: x, at_least: 1, param: p}]\n    evidence: '{x}'\n"
                   "    remedy: r\n    command: c\n",
                   "has no stake");
    expect_refused("rules: [\n", "bad.yaml:");
    expect_refused("severity: {critical: 0.01, warning: 0.5}\nrules: []\n", "critical must be above warning");
}

static void io_calls_are_told_apart(void **state)
{
    (void)state;
    assert_true(dfs_iocall_is_data("pread64"));
    assert_true(dfs_iocall_is_data("fwrite"));
    assert_false(dfs_iocall_is_data("open64"));
    assert_true(dfs_iocall_is_metadata("open64"));
    assert_true(dfs_iocall_is_metadata("__xstat64"));
    assert_true(dfs_iocall_is_metadata("posix.lseek64"));
    assert_false(dfs_iocall_is_metadata("fsync"));
    assert_false(dfs_iocall_is_data("fsync"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_rule_fires_at_its_threshold_not_below),
        cmocka_unit_test(a_missing_metric_is_not_evaluated),
        cmocka_unit_test(severity_follows_the_time_at_stake),
        cmocka_unit_test(params_move_thresholds),
        cmocka_unit_test(insights_are_ordered_by_time_at_stake),
        cmocka_unit_test(a_rule_file_replaces_by_id),
        cmocka_unit_test(bad_rule_files_are_refused_with_their_place),
        cmocka_unit_test(io_calls_are_told_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
