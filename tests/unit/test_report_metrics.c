/* test_report_metrics.c - the report's metrics from results built by hand, and the rules that read
 * them firing at their thresholds and not just past them:
 *   - GPU (report/gpu_metrics.c, from a gpu result): busy, idle and compute shares of the device
 *     span, the host-wait share of the streams' idle time and the launch wait beyond the data
 *     wait, communication overlapped or not; ranks without device work left out;
 *   - system (report/system_metrics.c, from a profiler-rules result): utilization and I/O wait
 *     quantiles of OverallSystemUsage (the node that makes the case), the bottleneck shares of
 *     CPUBottleneck and IOBottleneck only where those were evaluated. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "report/report.h"
#include "testutil.h"

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
    dfs_insight_rules *r = tu_shipped_rules();
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

/* The metrics of one rank (rank_of's arguments) and whether each GPU rule fires on them. */
static void one_rank(double idle, double compute, double host_wait, double other, double comm, double alone,
                     dfs_metrics *m, bool fired[3])
{
    dfs_gpu_idle_row rows[2];
    dfs_gpu_type_row types[2];
    dfs_gpu_rank r = rank_of(0, idle, compute, host_wait, other, rows, comm, alone, types);
    dfs_gpu_result g = {.ranks = &r, .nranks = 1};
    dfs_metrics_init(m);
    assert_true(dfs_report_gpu_metrics(m, &g));
    dfs_insight_rules *rules = tu_shipped_rules();
    fired[0] = fires(rules, m, "low-gpu-utilization");
    fired[1] = fires(rules, m, "gpu-host-wait");
    fired[2] = fires(rules, m, "gpu-comm-exposed");
    dfs_insight_rules_free(rules);
}

static void gpu_rules_fire_at_their_thresholds_not_past(void **state)
{
    (void)state;
    dfs_metrics m;
    bool fired[3];
    one_rank(6, 3, 4, 2, 2, 1.5, &m, fired);
    assert_true(fired[0] && fired[1] && fired[2]);
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
    dfs_metrics m;
    bool fired[3];
    one_rank(0.5, 9, 0.4, 0.1, 1, 0.2, &m, fired);
    assert_false(fired[0] || fired[1] || fired[2]);
    dfs_metrics_free(&m);
}

/* ---- system metrics ---- */

/* A usage group of OverallSystemUsage's details: nodes with their p95 and p50 (percent). */
typedef struct usage_group {
    dfs_rv group, node[2], p95[2], p50[2];
} usage_group;

static void group_of(usage_group *u, const char *key, const char *const names[2], const double p95[2],
                     const double p50[2], dfs_rv *details)
{
    u->group = (dfs_rv){.type = DFS_RV_OBJ, .key = key, .head = &u->node[0], .tail = &u->node[1], .n = 2};
    for (int i = 0; i < 2; i++) {
        u->p95[i] = (dfs_rv){.type = DFS_RV_NUM, .key = "p95", .as.d = p95[i], .next = &u->p50[i]};
        u->p50[i] = (dfs_rv){.type = DFS_RV_NUM, .key = "p50", .as.d = p50[i]};
        u->node[i] = (dfs_rv){.type = DFS_RV_OBJ, .key = names[i], .head = &u->p95[i], .tail = &u->p50[i], .n = 2,
                              .next = i ? NULL : &u->node[1]};
    }
    u->group.next = details->head;
    details->head = &u->group;
    details->n++;
}

static void system_metrics_take_the_node_that_makes_the_case(void **state)
{
    (void)state;
    static const char *const nodes[2] = {"algo-1", "algo-2"};
    dfs_rv details = {.type = DFS_RV_OBJ};
    usage_group cpu, gpu;
    group_of(&cpu, "CPU", nodes, (double[]){40, 95}, (double[]){30, 80}, &details);
    group_of(&gpu, "GPU", nodes, (double[]){60, 20}, (double[]){50, 10}, &details);
    dfs_rule_result rules[3] = {
        {.id = DFS_RULE_IO_BOTTLENECK, .evaluated = false, .violations = 9, .datapoints = 10},
        {.id = DFS_RULE_CPU_BOTTLENECK, .evaluated = true, .violations = 6, .datapoints = 12},
        {.id = DFS_RULE_OVERALL_SYSTEM_USAGE, .evaluated = true, .details = &details},
    };
    dfs_rules_result r = {.samples = 40, .rules = rules, .nrules = 3};
    dfs_metrics m;
    dfs_metrics_init(&m);
    assert_true(dfs_report_system_metrics(&m, &r));
    assert_true(fabs(value(&m, "sys_cpu_p95") - 0.95) < 1e-12);
    assert_true(fabs(value(&m, "sys_cpu_p50") - 0.80) < 1e-12);
    assert_string_equal(dfs_metrics_get(&m, "sys_cpu_p95")->where, "algo-2");
    assert_true(fabs(value(&m, "sys_gpu_p95") - 0.20) < 1e-12);
    assert_string_equal(dfs_metrics_get(&m, "sys_gpu_p95")->where, "algo-2");
    assert_int_equal(value(&m, "sys_nodes"), 2);
    assert_int_equal(value(&m, "sys_samples"), 40);
    assert_true(fabs(value(&m, "sys_cpu_bottleneck_share") - 0.5) < 1e-12);
    /* IOBottleneck was not evaluated, and there were no I/O wait samples: neither is a zero */
    assert_null(dfs_metrics_get(&m, "sys_io_bottleneck_share"));
    assert_null(dfs_metrics_get(&m, "sys_io_wait_p95"));
    at_and_past(&m, "sys-low-gpu-utilization", "sys-low-gpu-utilization.max_p95", "sys_gpu_p95", true);
    at_and_past(&m, "sys-cpu-saturated", "sys-cpu-saturated.min_p95", "sys_cpu_p95", false);
    at_and_past(&m, "sys-cpu-bottleneck", "sys-cpu-bottleneck.share", "sys_cpu_bottleneck_share", false);
    dfs_insight_rules *shipped_rules = tu_shipped_rules();
    assert_true(fires(shipped_rules, &m, "sys-low-gpu-utilization"));
    assert_true(fires(shipped_rules, &m, "sys-cpu-saturated"));
    assert_true(fires(shipped_rules, &m, "sys-cpu-bottleneck"));
    assert_false(fires(shipped_rules, &m, "sys-io-wait"));
    dfs_insight_rules_free(shipped_rules);
    dfs_metrics_free(&m);
}

static void io_wait_and_its_bottleneck(void **state)
{
    (void)state;
    static const char *const nodes[2] = {"algo-1", "algo-2"};
    dfs_rv details = {.type = DFS_RV_OBJ};
    usage_group io;
    group_of(&io, "I/O", nodes, (double[]){55, 70}, (double[]){20, 30}, &details);
    dfs_rule_result rules[2] = {
        {.id = DFS_RULE_IO_BOTTLENECK, .evaluated = true, .violations = 3, .datapoints = 4},
        {.id = DFS_RULE_OVERALL_SYSTEM_USAGE, .evaluated = true, .details = &details},
    };
    dfs_rules_result r = {.samples = 8, .rules = rules, .nrules = 2};
    dfs_metrics m;
    dfs_metrics_init(&m);
    assert_true(dfs_report_system_metrics(&m, &r));
    assert_string_equal(dfs_metrics_get(&m, "sys_io_wait_p95")->where, "algo-2");
    at_and_past(&m, "sys-io-wait", "sys-io-wait.min_p95", "sys_io_wait_p95", false);
    at_and_past(&m, "sys-io-bottleneck", "sys-io-bottleneck.share", "sys_io_bottleneck_share", false);
    assert_null(dfs_metrics_get(&m, "sys_cpu_p95"));
    dfs_metrics_free(&m);
}

static void no_samples_no_system_metric(void **state)
{
    (void)state;
    dfs_rules_result r = {.samples = 0};
    dfs_metrics m;
    dfs_metrics_init(&m);
    assert_true(dfs_report_system_metrics(&m, &r));
    assert_true(dfs_report_system_metrics(&m, NULL));
    assert_int_equal(m.n, 0);
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
        cmocka_unit_test(system_metrics_take_the_node_that_makes_the_case),
        cmocka_unit_test(io_wait_and_its_bottleneck),
        cmocka_unit_test(no_samples_no_system_metric),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
