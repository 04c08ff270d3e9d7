/* test_report_gpu.c - the report's GPU metrics (report/gpu_metrics.c) from a gpu result built by
 * hand: busy, idle and compute shares of the device span, the host-wait share of the streams' idle
 * time and the launch wait beyond the data wait, communication overlapped or not; ranks without
 * device work left out; and the GPU rules (low-gpu-utilization, gpu-host-wait, gpu-comm-exposed)
 * firing on those metrics at their thresholds and not just past them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "report/report.h"

static double value(const dfs_metrics *m, const char *name)
{
    const dfs_metric *x = dfs_metrics_get(m, name);
    if (!x)
        fail_msg("metric %s missing", name);
    return x->value;
}

/* A rank of span 10 s: idle, compute and the rest busy; its streams idle host_wait and other
 * (seconds); comm s of communication, of which alone s with no computation under it. */
static dfs_gpu_rank rank_of(int64_t rank, double idle, double compute, double host_wait, double other,
                            dfs_gpu_idle_row rows[2], double comm, double alone, dfs_gpu_type_row types[2])
{
    rows[0] = (dfs_gpu_idle_row){.stream = 7, .category = DFS_GPU_HOST_WAIT, .idle_us = host_wait * 1e6};
    rows[1] = (dfs_gpu_idle_row){.stream = 7, .category = DFS_GPU_IDLE_OTHER, .idle_us = other * 1e6};
    types[0] = (dfs_gpu_type_row){.mask = DFS_GPU_KT_COMMUNICATION, .sum_ns = (int64_t)llround(alone * 1e9)};
    types[1] = (dfs_gpu_type_row){.mask = DFS_GPU_KT_COMMUNICATION | DFS_GPU_KT_COMPUTATION,
                                  .sum_ns = (int64_t)llround((comm - alone) * 1e9)};
    return (dfs_gpu_rank){.rank = rank,
                          .device_rows = 100,
                          .temporal = {.kernel_time_ns = INT64_C(10000000000),
                                       .idle_ns = (int64_t)llround(idle * 1e9),
                                       .compute_ns = (int64_t)llround(compute * 1e9)},
                          .idle = rows,
                          .nidle = 2,
                          .types = types,
                          .ntypes = comm > 0 ? 2 : 0,
                          .has_comm = comm > 0};
}

static void metrics_of_two_ranks_and_one_without_device_work(void **state)
{
    (void)state;
    dfs_gpu_idle_row idle[3][2];
    dfs_gpu_type_row types[3][2];
    dfs_gpu_rank ranks[3] = {rank_of(0, 6, 3, 4, 2, idle[0], 2, 1.5, types[0]),
                             rank_of(1, 4, 5, 3, 1, idle[1], 2, 0.5, types[1]),
                             {.rank = 2}}; /* no device work: no zero in the means */
    dfs_gpu_result g = {.ranks = ranks, .nranks = 3};
    dfs_metrics m;
    dfs_metrics_init(&m);
    dfs_metrics_set(&m, "exposed_wait_s", 1.0, DFS_MU_SECONDS, NULL);
    assert_true(dfs_report_gpu_metrics(&m, &g));
    assert_int_equal(value(&m, "gpu_ranks"), 2);
    assert_true(fabs(value(&m, "gpu_idle_s") - 5) < 1e-9);
    assert_true(fabs(value(&m, "gpu_idle_share") - 0.5) < 1e-9);
    assert_true(fabs(value(&m, "gpu_busy_share") - 0.5) < 1e-9);
    assert_true(fabs(value(&m, "gpu_compute_share") - 0.4) < 1e-9);
    assert_string_equal(dfs_metrics_get(&m, "gpu_idle_share")->where, "rank 0: 60.0 %");
    /* host wait: 7 of the streams' 10 s idle; per rank, each rank's idle times its own share */
    assert_true(fabs(value(&m, "gpu_host_wait_share") - 0.7) < 1e-9);
    double host_wait = (6 * 4.0 / 6 + 4 * 3.0 / 4) / 2;
    assert_true(fabs(value(&m, "gpu_host_wait_s") - host_wait) < 1e-9);
    assert_true(fabs(value(&m, "gpu_launch_wait_s") - (host_wait - 1)) < 1e-9);
    /* communication: 4 s, 2 s of it alone */
    assert_true(fabs(value(&m, "gpu_comm_s") - 2) < 1e-9);
    assert_true(fabs(value(&m, "gpu_comm_exposed_s") - 1) < 1e-9);
    assert_true(fabs(value(&m, "gpu_comm_overlap_share") - 0.5) < 1e-9);
    assert_true(fabs(value(&m, "gpu_comm_exposed_share") - 0.1) < 1e-9);
    assert_string_equal(dfs_metrics_get(&m, "gpu_comm_overlap_share")->where, "rank 0: 25.0 %");
    dfs_metrics_free(&m);
}

static void no_device_work_no_metric(void **state)
{
    (void)state;
    dfs_gpu_rank r = {.rank = 0};
    dfs_gpu_result g = {.ranks = &r, .nranks = 1};
    dfs_metrics m;
    dfs_metrics_init(&m);
    assert_true(dfs_report_gpu_metrics(&m, &g));
    assert_true(dfs_report_gpu_metrics(&m, NULL));
    assert_int_equal(m.n, 0);
    dfs_metrics_free(&m);
}

static void no_communication_no_comm_metric(void **state)
{
    (void)state;
    dfs_gpu_idle_row idle[2];
    dfs_gpu_type_row types[2];
    dfs_gpu_rank r = rank_of(0, 2, 8, 1, 1, idle, 0, 0, types);
    dfs_gpu_result g = {.ranks = &r, .nranks = 1};
    dfs_metrics m;
    dfs_metrics_init(&m);
    assert_true(dfs_report_gpu_metrics(&m, &g));
    assert_null(dfs_metrics_get(&m, "gpu_comm_s"));
    assert_null(dfs_metrics_get(&m, "gpu_comm_overlap_share"));
    /* without a data wait measured, the launch wait is the whole host wait */
    assert_true(fabs(value(&m, "gpu_launch_wait_s") - value(&m, "gpu_host_wait_s")) < 1e-12);
    dfs_metrics_free(&m);
}

static dfs_insight_rules *shipped(void)
{
    char err[512] = "";
    dfs_insight_rules *r = dfs_insight_rules_new();
    assert_non_null(r);
    if (!dfs_insight_rules_add_builtin(r, err, sizeof err))
        fail_msg("shipped rules: %s", err);
    return r;
}

static bool fires(const dfs_insight_rules *r, const dfs_metrics *m, const char *id)
{
    dfs_insights in;
    assert_true(dfs_insights_eval(r, m, 10.0, &in));
    bool f = false;
    for (size_t i = 0; i < in.n; i++)
        f |= strcmp(in.v[i].id, id) == 0;
    dfs_insights_free(&in);
    return f;
}

/* The rule fires with --param NAME at the metric's value and not with it one step past. */
static void at_and_past(const dfs_metrics *m, const char *id, const char *param, const char *metric, bool at_most)
{
    dfs_insight_rules *r = shipped();
    char err[256], v[64];
    double x = value(m, metric);
    snprintf(v, sizeof v, "%.17g", x);
    assert_true(dfs_insight_rules_set_param(r, param, v, err, sizeof err));
    if (!fires(r, m, id))
        fail_msg("%s does not fire with %s at its threshold %s", id, metric, v);
    snprintf(v, sizeof v, "%.17g", nextafter(x, at_most ? -INFINITY : INFINITY));
    assert_true(dfs_insight_rules_set_param(r, param, v, err, sizeof err));
    if (fires(r, m, id))
        fail_msg("%s fires with %s just past its threshold", id, metric);
    dfs_insight_rules_free(r);
}

static void gpu_rules_fire_at_their_thresholds_not_past(void **state)
{
    (void)state;
    dfs_gpu_idle_row idle[2];
    dfs_gpu_type_row types[2];
    dfs_gpu_rank r = rank_of(0, 6, 3, 4, 2, idle, 2, 1.5, types);
    dfs_gpu_result g = {.ranks = &r, .nranks = 1};
    dfs_metrics m;
    dfs_metrics_init(&m);
    assert_true(dfs_report_gpu_metrics(&m, &g));
    dfs_insight_rules *rules = shipped();
    assert_true(fires(rules, &m, "low-gpu-utilization"));
    assert_true(fires(rules, &m, "gpu-host-wait"));
    assert_true(fires(rules, &m, "gpu-comm-exposed"));
    dfs_insight_rules_free(rules);
    at_and_past(&m, "low-gpu-utilization", "low-gpu-utilization.max_share", "gpu_busy_share", true);
    at_and_past(&m, "gpu-host-wait", "gpu-host-wait.min_idle", "gpu_idle_share", false);
    at_and_past(&m, "gpu-host-wait", "gpu-host-wait.share", "gpu_host_wait_share", false);
    at_and_past(&m, "gpu-comm-exposed", "gpu-comm-exposed.share", "gpu_comm_exposed_share", false);
    at_and_past(&m, "gpu-comm-exposed", "gpu-comm-exposed.max_overlap", "gpu_comm_overlap_share", true);
    dfs_metrics_free(&m);
}

/* A busy device: no GPU rule fires at the shipped thresholds. */
static void a_busy_device_fires_nothing(void **state)
{
    (void)state;
    dfs_gpu_idle_row idle[2];
    dfs_gpu_type_row types[2];
    dfs_gpu_rank r = rank_of(0, 0.5, 9, 0.4, 0.1, idle, 1, 0.2, types);
    dfs_gpu_result g = {.ranks = &r, .nranks = 1};
    dfs_metrics m;
    dfs_metrics_init(&m);
    assert_true(dfs_report_gpu_metrics(&m, &g));
    dfs_insight_rules *rules = shipped();
    assert_false(fires(rules, &m, "low-gpu-utilization"));
    assert_false(fires(rules, &m, "gpu-host-wait"));
    assert_false(fires(rules, &m, "gpu-comm-exposed"));
    dfs_insight_rules_free(rules);
    dfs_metrics_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(metrics_of_two_ranks_and_one_without_device_work),
        cmocka_unit_test(no_device_work_no_metric),
        cmocka_unit_test(no_communication_no_comm_metric),
        cmocka_unit_test(gpu_rules_fire_at_their_thresholds_not_past),
        cmocka_unit_test(a_busy_device_fires_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
