/* test_rules_corpus.c - the profiler rules on the shipped traces (reference/training-loop.md 2):
 * the smdebug fixtures (framework steps of merge_traces, the system-metric files, the corrupt
 * file, the system folder), the Kineto and Composer samples. The system-metric numbers were
 * derived by hand (and with an independent Python model of the spec's arithmetic) from the files:
 * see the comments. Skips (exit 77) without the corpus. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "analyze/rules/rules.h"

#define RES "smdebug/tests/profiler/resources/"

typedef struct outcome {
    dfs_rules *rs;
    const dfs_rules_result *r;
    int verdict;
    uint64_t bad_lines;
} outcome;

static outcome run_paths(const char *const *rel, size_t n, const dfs_rules_options *o)
{
    outcome out = {0};
    dfs_run *run = tu_run(2, 0, 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(dfs_run_add_path(run, tu_trace(rel[i])), DFS_OK);
    out.rs = dfs_rules_new(o);
    dfs_consumer *c[] = {dfs_rules_consumer(out.rs)};
    out.verdict = dfs_run_read(run, c, 1);
    out.bad_lines = dfs_run_problem_count(run, DFS_PROB_BAD_LINE);
    out.r = dfs_rules_finish(out.rs, run);
    assert_non_null(out.r);
    dfs_run_free(run);
    return out;
}

static outcome run_path(const char *rel, const dfs_rules_options *o)
{
    return run_paths(&rel, 1, o);
}

static const dfs_rule_result *rule(const outcome *o, dfs_rule_id id)
{
    for (size_t i = 0; i < o->r->nrules; i++)
        if (o->r->rules[i].id == id)
            return &o->r->rules[i];
    fail_msg("rule %s not in the result", dfs_rule_name(id));
    return NULL;
}

static const dfs_rv *member(const dfs_rv *obj, const char *key)
{
    for (const dfs_rv *c = obj ? obj->head : NULL; c; c = c->next)
        if (c->key && strcmp(c->key, key) == 0)
            return c;
    return NULL;
}

static double stat(const dfs_rv *details, const char *metric, const char *node, const char *key)
{
    const dfs_rv *v = member(member(member(details, metric), node), key);
    if (!v)
        fail_msg("no %s/%s/%s", metric, node, key);
    return v->type == DFS_RV_INT ? (double)v->as.i : v->as.d;
}

static void set(dfs_rules_options *o, const char *a)
{
    char err[256];
    assert_true(dfs_rules_set_param(o, a, err, sizeof err));
}

/* merge_traces: 30 TRAIN + 10 EVAL steps of node 905-b88ab1bb8259. StepOutlier counts 40
 * datapoints and evaluates nothing (at most 30 durations per name, needs more than 100); over
 * the 30 TRAIN steps the threshold is mean + 3 sigma = 5,194,595.6 us, flagging step 0 only. */
static void test_merge_traces_steps(void **state)
{
    (void)state;
    dfs_rules_options o;
    dfs_rules_options_init(&o);
    outcome out = run_path(RES "merge_traces", &o);
    assert_int_equal(out.verdict, DFS_EXIT_OK);
    assert_int_equal(out.r->steps, 40);
    const dfs_rule_result *r = rule(&out, DFS_RULE_STEP_OUTLIER);
    assert_int_equal(r->datapoints, 40);
    assert_false(r->evaluated);
    assert_string_equal(r->reason, "no step name has more than min_steps=100 steps on one node "
                                   "(most: 30 Step:ModeKeys.TRAIN on 905-b88ab1bb8259)");
    assert_int_equal(r->violations, 0);
    r = rule(&out, DFS_RULE_DATALOADER); /* TF data-iterator events do not match */
    assert_int_equal(r->datapoints, 0);
    assert_false(r->evaluated);
    r = rule(&out, DFS_RULE_MAX_INIT); /* the first step starts with the data: no violation */
    assert_true(r->evaluated);
    assert_int_equal(r->datapoints, 40);
    assert_int_equal(r->violations, 0);
    assert_true(member(member(r->details, "step_num"), "first")->as.d == 1594662608090195.0);
    /* no system metrics: every system rule says so */
    assert_string_equal(rule(&out, DFS_RULE_LOW_GPU)->reason, "no GPUUtilization samples");
    assert_false(rule(&out, DFS_RULE_OVERALL_SYSTEM_USAGE)->evaluated);
    dfs_rules_free(out.rs);

    set(&o, "StepOutlier.min_steps=29");
    out = run_path(RES "merge_traces", &o);
    r = rule(&out, DFS_RULE_STEP_OUTLIER);
    assert_true(r->evaluated);
    const dfs_rv *groups = member(r->details, "step_details");
    assert_int_equal(groups->n, 1); /* EVAL has 10 steps: not more than 29 */
    const dfs_rv *train = groups->head;
    assert_string_equal(member(train, "phase")->as.s, "Step:ModeKeys.TRAIN");
    assert_string_equal(member(train, "node")->as.s, "905-b88ab1bb8259");
    double thr_us = member(train, "threshold")->as.d * 1e6;
    assert_true(fabs(thr_us - 5194595.6) < 0.05);
    assert_int_equal(member(train, "number_of_outliers")->as.i, 1);
    assert_string_equal(member(train, "step_numbers")->head->as.s, "0");
    assert_true(member(member(train, "step_stats"), "max")->as.d == 9.020725);
    assert_true(member(member(train, "step_stats"), "min")->as.d == 0.083633);
    assert_int_equal(r->violations, 0); /* 1 outlier is not more than n_outliers = 10 */
    dfs_rules_free(out.rs);
}

/* 1591160699.algo-1.json: 14 samples at 14 distinct timestamps (1591160699.457 ..
 * 1591170699.457, one node, 2 CPUs, 2 GPUs): 14 snapshots, one with a low GPU (gpu0 8.00),
 * 167 scan windows of 60 s. Per timestamp CPU sums 4.76, 5.30, 54.76, 44.76 over 2 cores:
 * max 27.38, p99 (54.46 / 2) 27.23, p95 26.63, p50 (50.06 / 2 / 2) 12.51, min 2.38. GPU sums
 * 8, 14.76, 34.76, 24.76 over 2 GPUs; GPU memory 14.76, 24.76, 43.76, 74.76, 84.76, 47.76. */
static void test_system_file(void **state)
{
    (void)state;
    dfs_rules_options o;
    dfs_rules_options_init(&o);
    outcome out = run_path(RES "1591160699.algo-1.json", &o);
    assert_int_equal(out.verdict, DFS_EXIT_OK);
    assert_int_equal(out.r->samples, 14);
    const dfs_rule_result *r = rule(&out, DFS_RULE_CPU_BOTTLENECK);
    assert_int_equal(r->windows, 167);
    assert_int_equal(r->datapoints, 14);
    assert_int_equal(member(r->details, "low_gpu_utilization")->as.i, 1);
    assert_int_equal(r->violations, 0); /* no CPU value above 90 */
    assert_string_equal(r->reason, "14 snapshots (needs more than patience=1000)");
    assert_string_equal(rule(&out, DFS_RULE_IO_BOTTLENECK)->reason, "no I/OWaitPercentage samples");
    assert_int_equal(rule(&out, DFS_RULE_LOW_GPU)->datapoints, 2);          /* gpu1: 14.76, 24.76 */
    assert_int_equal(rule(&out, DFS_RULE_BATCH_SIZE)->datapoints, 4);       /* 4 CPU timestamps */
    assert_int_equal(rule(&out, DFS_RULE_LOAD_BALANCING)->datapoints, 2);   /* gpu1, last GPU sample */
    assert_int_equal(rule(&out, DFS_RULE_GPU_MEMORY_INCREASE)->datapoints, 4); /* gpu1 memory */
    assert_false(rule(&out, DFS_RULE_MAX_INIT)->evaluated); /* no framework trace */
    r = rule(&out, DFS_RULE_OVERALL_SYSTEM_USAGE);
    assert_true(r->evaluated);
    assert_int_equal(r->datapoints, 4);
    const dfs_rv *d = r->details;
    double cpu[] = {27.38, 27.23, 26.63, 12.51, 2.38}, gpu[] = {17.38, 17.23, 16.63, 9.88, 4},
           mem[] = {42.38, 42.13, 41.13, 22.88, 7.38};
    const char *keys[] = {"max", "p99", "p95", "p50", "min"};
    for (int i = 0; i < 5; i++) {
        assert_true(stat(d, "CPU", "algo-1", keys[i]) == cpu[i]);
        assert_true(stat(d, "GPU", "algo-1", keys[i]) == gpu[i]);
        assert_true(stat(d, "GPU memory", "algo-1", keys[i]) == mem[i]);
    }
    assert_null(member(d, "I/O"));
    for (size_t i = 0; i < out.r->nrules; i++)
        assert_int_equal(out.r->rules[i].triggered, 0);
    dfs_rules_free(out.rs);
}

/* The corrupt copy: the reader skips the cut last line and reports it (bad_line, exit 1; the
 * reference skips it silently); 13 samples remain, the last GPU memory value (47.76) is gone:
 * 151 windows; GPU memory sums 14.76 24.76 43.76 74.76 84.76 over 2 GPUs: max 42.38, p99
 * (84.76 - 10 * 0.04) / 2 = 42.18, p95 41.38, p50 43.76 / 2 = 21.88, min 7.38. */
static void test_corrupt_file(void **state)
{
    (void)state;
    dfs_rules_options o;
    dfs_rules_options_init(&o);
    outcome out = run_path(RES "1591160699.algo-1.json.corrupt", &o);
    assert_int_equal(out.verdict, DFS_EXIT_DAMAGED);
    assert_int_equal(out.bad_lines, 1);
    assert_int_equal(out.r->samples, 13);
    assert_int_equal(rule(&out, DFS_RULE_CPU_BOTTLENECK)->datapoints, 13);
    assert_int_equal(rule(&out, DFS_RULE_CPU_BOTTLENECK)->windows, 151);
    assert_int_equal(rule(&out, DFS_RULE_GPU_MEMORY_INCREASE)->datapoints, 3);
    const dfs_rv *d = rule(&out, DFS_RULE_OVERALL_SYSTEM_USAGE)->details;
    assert_true(stat(d, "GPU memory", "algo-1", "max") == 42.38);
    assert_true(stat(d, "GPU memory", "algo-1", "p99") == 42.18);
    assert_true(stat(d, "GPU memory", "algo-1", "p95") == 41.38);
    assert_true(stat(d, "GPU memory", "algo-1", "p50") == 21.88);
    assert_true(stat(d, "GPU memory", "algo-1", "min") == 7.38);
    dfs_rules_free(out.rs);
}

/* test_traces/system/incremental: 14 + 32 + 32 samples (78, 68 CPU); the last two files hold 32
 * cores each at one timestamp: 14 + 1 + 1 = 16 snapshots; 9792 windows from 1591160699.457 to
 * 1591748169.232. 32 cores in all: CPU per timestamp 4.76, 5.30, 54.76, 44.76 and the two
 * 32-core sums, each over 32: max 4.72, p99 4.7, p95 4.62, p50 1.55, min 0.15. */
static void test_system_folder(void **state)
{
    (void)state;
    dfs_rules_options o;
    dfs_rules_options_init(&o);
    outcome out = run_path(RES "test_traces/system/incremental", &o);
    assert_int_equal(out.r->samples, 78);
    const dfs_rule_result *r = rule(&out, DFS_RULE_CPU_BOTTLENECK);
    assert_int_equal(r->datapoints, 16);
    assert_int_equal(r->windows, 9792);
    r = rule(&out, DFS_RULE_OVERALL_SYSTEM_USAGE);
    assert_int_equal(r->datapoints, 6);
    double cpu[] = {4.72, 4.7, 4.62, 1.55, 0.15};
    const char *keys[] = {"max", "p99", "p95", "p50", "min"};
    for (int i = 0; i < 5; i++)
        assert_true(stat(r->details, "CPU", "algo-1", keys[i]) == cpu[i]);
    assert_int_equal(rule(&out, DFS_RULE_BATCH_SIZE)->datapoints, 6); /* one total per timestamp */
    /* with the patience lowered, the reference's other rules run on the folder too */
    dfs_rules_free(out.rs);
    set(&o, "CPUBottleneck.patience=15");
    set(&o, "CPUBottleneck.cpu_threshold=4");
    out = run_path(RES "test_traces/system/incremental", &o);
    r = rule(&out, DFS_RULE_CPU_BOTTLENECK);
    /* the only low-GPU snapshot (gpu0 8.00 at 1591160899.757) has no CPU sample: 0 bottlenecks */
    assert_true(r->evaluated);
    assert_int_equal(r->violations, 0);
    assert_int_equal(r->triggered, 0);
    dfs_rules_free(out.rs);
}

/* Files without an absolute clock (raw Horovod, TF profiler) are named and left out. */
static void test_relative_clock(void **state)
{
    (void)state;
    dfs_rules_options o;
    dfs_rules_options_init(&o);
    outcome out = run_path(RES "horovod_timeline_small.json", &o);
    assert_int_equal(out.r->nnotes, 1);
    assert_non_null(strstr(out.r->notes[0], "no absolute clock (horovod)"));
    assert_int_equal(out.r->framework_events, 0);
    dfs_rules_free(out.rs);
}

/* Kineto: six ProfilerStep#N are the steps (nw0: #5..#10). */
static void test_kineto(void **state)
{
    (void)state;
    dfs_rules_options o;
    dfs_rules_options_init(&o);
    outcome out = run_path("kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz", &o);
    assert_int_equal(out.r->steps, 6);
    const dfs_rule_result *r = rule(&out, DFS_RULE_STEP_OUTLIER);
    assert_int_equal(r->datapoints, 6);
    assert_false(r->evaluated);
    assert_non_null(strstr(r->reason, "most: 6 ProfilerStep on"));
    r = rule(&out, DFS_RULE_MAX_INIT);
    assert_true(r->evaluated);
    assert_int_equal(r->violations, 0);
    assert_string_equal(rule(&out, DFS_RULE_OVERALL_SYSTEM_USAGE)->reason,
                        "no GPUUtilization, GPUMemoryUtilization, CPUUtilization, MemoryUsedPercent, "
                        "Algorithm or I/OWaitPercentage samples");
    dfs_rules_free(out.rs);
}

/* Composer: cpu_percent 39.5, 40.5, 41.5 per rank; memory/virtual used 123456789 / available
 * 987654321 -> 100 * 123456789 / 1111111110 = 11.11 %; three event/batch steps per rank. */
static void test_composer(void **state)
{
    (void)state;
    dfs_rules_options o;
    dfs_rules_options_init(&o);
    const char *files[] = {"composer/ep0-ba5-rank0.synthetic.json", "composer/ep0-ba5-rank1.synthetic.json"};
    outcome out = run_paths(files, 2, &o);
    assert_int_equal(out.r->samples, 12);
    assert_int_equal(out.r->steps, 6);
    const dfs_rule_result *r = rule(&out, DFS_RULE_OVERALL_SYSTEM_USAGE);
    assert_int_equal(r->datapoints, 3);
    const char *ranks[] = {"rank0", "rank1"};
    for (int i = 0; i < 2; i++) {
        assert_true(stat(r->details, "CPU", ranks[i], "max") == 41.5);
        assert_true(stat(r->details, "CPU", ranks[i], "p50") == 40.5);
        assert_true(stat(r->details, "CPU", ranks[i], "min") == 39.5);
        assert_true(stat(r->details, "CPU memory", ranks[i], "max") == 11.11);
    }
    r = rule(&out, DFS_RULE_STEP_OUTLIER);
    assert_int_equal(r->datapoints, 6);
    assert_non_null(strstr(r->reason, "most: 3 event/batch on rank0"));
    assert_string_equal(rule(&out, DFS_RULE_CPU_BOTTLENECK)->reason, "no GPUUtilization samples");
    dfs_rules_free(out.rs);
}

int main(void)
{
    tu_require_corpus();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_traces_steps), cmocka_unit_test(test_system_file),
        cmocka_unit_test(test_corrupt_file),       cmocka_unit_test(test_system_folder),
        cmocka_unit_test(test_relative_clock),     cmocka_unit_test(test_kineto),
        cmocka_unit_test(test_composer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
