/* test_rules.c - the SageMaker Debugger profiler rules (src/analyze/rules*.c) on hand-built
 * smdebug system and framework files (and a Composer file), with every expected count worked out
 * by hand in the comments: triggers and non-triggers, thresholds at the boundary (>= vs >), the
 * snapshot rule, patience, scan windows (empty windows re-check), the LoadBalancing bug, the
 * GPUMemoryIncrease off-by-one, the BatchSize quirk, OverallSystemUsage clamping and rounding,
 * rules without inputs, reader order, parameters, -j independence and the writers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "util/numstat.h"

#include "analyze/rules/rules.h"
#include "output/rules_report.h"

/* ---- building inputs -------------------------------------------------------------------------- */

typedef struct text {
    char *s;
    size_t n;
    FILE *f;
} text;

static void text_open(text *t)
{
    t->s = NULL;
    t->n = 0;
    t->f = open_memstream(&t->s, &t->n);
    assert_non_null(t->f);
}

static char *text_close(text *t)
{
    fclose(t->f);
    return t->s;
}

/* One smdebug system-metric line; `ts` is written as given (exact decimal seconds). */
static void sys_line(text *t, const char *node, const char *name, const char *dim, double v, const char *ts)
{
    fprintf(t->f, "{\"Type\":\"x\",\"Name\":\"%s\",\"Dimension\":\"%s\",\"Value\":%.17g,\"NodeId\":\"%s\","
                  "\"Timestamp\":%s}\n", name, dim, v, node, ts);
}

static char dir_buf[8][64];
static int dir_slot;

static const char *temp_dir(void)
{
    char *d = dir_buf[dir_slot++ & 7];
    snprintf(d, 64, "/tmp/dfscope-rules-XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

static void put_file(const char *dir, const char *name, const char *data)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(data, f);
    fclose(f);
}

static void put_text(const char *dir, const char *name, text *t)
{
    char *s = text_close(t);
    put_file(dir, name, s);
    free(s);
}

static void remove_dir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* An smdebug framework file: the start record, process names, then the caller's events. */
static void fw_begin(text *t, long long start_us)
{
    text_open(t);
    fprintf(t->f, "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": "
                  "{\"start_time_since_epoch_in_micros\": %lld}}", start_us);
}

static void fw_phase(text *t, int pid, const char *phase)
{
    fprintf(t->f, ",\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": {\"name\": \"%s\"}}", pid,
            phase);
}

static void fw_event(text *t, int pid, const char *name, long long ts, long long dur, const char *args)
{
    fprintf(t->f, ",\n{\"name\": \"%s\", \"pid\": %d, \"ph\": \"X\", \"ts\": %lld, \"dur\": %lld, \"args\": {%s}}",
            name, pid, ts, dur, args ? args : "");
}

static void fw_end(text *t, const char *dir, const char *name)
{
    fputs("\n]\n", t->f);
    put_text(dir, name, t);
}

/* ---- running ---------------------------------------------------------------------------------- */

typedef struct outcome {
    dfs_rules *rs;
    const dfs_rules_result *r;
    int verdict;
} outcome;

static outcome run_jobs(const char *path, const dfs_rules_options *o, int jobs)
{
    outcome out = {0};
    dfs_run *run = tu_run(jobs, 0, 0);
    assert_int_equal(dfs_run_add_path(run, path), DFS_OK);
    out.rs = dfs_rules_new(o);
    assert_non_null(out.rs);
    dfs_consumer *c[] = {dfs_rules_consumer(out.rs)};
    out.verdict = dfs_run_read(run, c, 1);
    out.r = dfs_rules_finish(out.rs, run);
    assert_non_null(out.r);
    dfs_run_free(run);
    return out;
}

static outcome run(const char *path, const dfs_rules_options *o)
{
    return run_jobs(path, o, 1);
}

static void done(outcome *o)
{
    dfs_rules_free(o->rs);
}

static const dfs_rule_result *rule(const outcome *o, dfs_rule_id id)
{
    for (size_t i = 0; i < o->r->nrules; i++)
        if (o->r->rules[i].id == id)
            return &o->r->rules[i];
    fail_msg("rule %s not in the result", dfs_rule_name(id));
    return NULL;
}

/* details["a"]["b"]... ("a/b"); array items by index ("bottlenecks/0/GPUs"); a key may hold a
 * slash ("I/O/algo-1/max"). */
static const dfs_rv *at(const dfs_rv *v, const char *path)
{
    while (v && *path) {
        const dfs_rv *found = NULL;
        size_t k = 0, idx = (size_t)strtoul(path, NULL, 10), len = strcspn(path, "/");
        for (const dfs_rv *c = v->head; c && !found; c = c->next, k++) {
            size_t n = c->key ? strlen(c->key) : 0;
            if (v->type == DFS_RV_ARR ? k == idx
                                      : strncmp(path, c->key, n) == 0 && (path[n] == '/' || !path[n])) {
                found = c;
                len = v->type == DFS_RV_ARR ? len : n;
            }
        }
        v = found;
        path += len + (path[len] == '/');
    }
    return v;
}

static double num(const dfs_rv *details, const char *path)
{
    const dfs_rv *v = at(details, path);
    if (!v)
        fail_msg("no detail %s", path);
    return v->type == DFS_RV_INT ? (double)v->as.i : v->as.d;
}

static int64_t count_sum(const dfs_rv *arr)
{
    int64_t n = 0;
    for (const dfs_rv *c = arr ? arr->head : NULL; c; c = c->next)
        n += c->as.i;
    return n;
}

static void set(dfs_rules_options *o, const char *a)
{
    char err[256];
    if (!dfs_rules_set_param(o, a, err, sizeof err))
        fail_msg("%s", err);
}

static void only(dfs_rules_options *o, dfs_rule_id id)
{
    dfs_rules_options_init(o);
    o->selected = 1u << id;
}

/* ---- times ------------------------------------------------------------------------------------ */

static void test_seconds(void **state)
{
    (void)state;
    /* the decimal text of the ns, as Python's float() of the written timestamp reads it */
    assert_true(dfs_rules_seconds(1591160699457089400LL) == 1591160699.4570894);
    assert_true(dfs_rules_seconds(-1500000000LL) == -1.5);
}

/* ---- parameters ---------------------------------------------------------------------------- */

static void test_parameters(void **state)
{
    (void)state;
    dfs_rules_options o;
    dfs_rules_options_init(&o);
    char err[256];
    assert_true(dfs_rules_set_param(&o, "stepoutlier.stddev=2.5", err, sizeof err));
    assert_true(dfs_rules_set_param(&o, "StepOutlier.mode=Step:ModeKeys.EVAL", err, sizeof err));
    assert_false(dfs_rules_set_param(&o, "Nope.x=1", err, sizeof err));
    assert_non_null(strstr(err, "unknown rule 'Nope'"));
    assert_false(dfs_rules_set_param(&o, "LowGPUUtilization.nope=1", err, sizeof err));
    assert_non_null(strstr(err, "no parameter 'nope'"));
    assert_false(dfs_rules_set_param(&o, "LowGPUUtilization.window=0", err, sizeof err)); /* >= 1 */
    assert_non_null(strstr(err, "an integer >= 1"));
    assert_false(dfs_rules_set_param(&o, "LowGPUUtilization.patience=1.5", err, sizeof err));
    assert_false(dfs_rules_set_param(&o, "IOBottleneck.threshold=abc", err, sizeof err));
    assert_false(dfs_rules_set_param(&o, "IOBottleneck.threshold=nan", err, sizeof err));
    assert_false(dfs_rules_set_param(&o, "threshold=3", err, sizeof err));
    assert_true(dfs_rules_set_param(&o, "IOBottleneck.threshold=-5", err, sizeof err)); /* any number */
    assert_false(dfs_rules_select(&o, "LowGPUUtilization,bogus", err, sizeof err));
    assert_non_null(strstr(err, "bogus"));
    assert_false(dfs_rules_select(&o, ",", err, sizeof err));
    assert_true(dfs_rules_select(&o, "loadbalancing,StepOutlier", err, sizeof err));
    assert_int_equal(o.selected, (1u << DFS_RULE_LOAD_BALANCING) | (1u << DFS_RULE_STEP_OUTLIER));

    /* RuleParameters as the reference writes them, overrides included */
    const char *dir = temp_dir();
    text t;
    text_open(&t);
    sys_line(&t, "algo-1", "cpu0", "CPUUtilization", 1, "1600000000.0");
    put_text(dir, "1600000000.algo-1.json", &t);
    outcome out = run(dir, &o);
    assert_int_equal(out.r->nrules, 2);
    assert_string_equal(rule(&out, DFS_RULE_STEP_OUTLIER)->parameters,
                        "threshold:2.5\nmode:Step:ModeKeys.EVAL\nn_outliers:10\nstddev:2.5");
    assert_string_equal(rule(&out, DFS_RULE_LOAD_BALANCING)->parameters, "threshold:0.2\npatience:1000");
    done(&out);
    dfs_rules_options_init(&o);
    out = run(dir, &o);
    assert_int_equal(out.r->nrules, DFS_RULE__COUNT);
    assert_string_equal(rule(&out, DFS_RULE_OVERALL_SYSTEM_USAGE)->parameters, "");
    assert_string_equal(rule(&out, DFS_RULE_DATALOADER)->parameters, "min_threshold:70\nmax_threshold:200");
    assert_string_equal(rule(&out, DFS_RULE_IO_BOTTLENECK)->parameters,
                        "threshold:50\nio_threshold:50\ngpu_threshold:10\npatience:1000");
    assert_string_equal(rule(&out, DFS_RULE_BATCH_SIZE)->parameters,
                        "cpu_threshold_p95:70\ngpu_threshold_p95:70\ngpu_memory_threshold_p95:70\npatience:1000\nwindow:500");
    done(&out);
    remove_dir(dir);
    dfs_rule_id id;
    assert_true(dfs_rule_find("gpumemoryincrease", 17, &id));
    assert_int_equal(id, DFS_RULE_GPU_MEMORY_INCREASE);
    const dfs_rule_param_info *p;
    assert_int_equal(dfs_rule_params(DFS_RULE_MAX_INIT, &p), 2);
    assert_string_equal(p[0].name, "threshold");
}

/* ---- snapshots and the bottleneck rules ------------------------------------------------------ */

/* Six samples (base 1600000000 s):
 *   .000 GPU gpu0 5 (low)   opens S1
 *   .015 I/O 60 (high)      |.015 - .000| <= .02: S1            -> S1 low + high: a bottleneck
 *   .030 I/O 70 (high)      .030 from S1's first sample: opens S2 (only .015 from the previous one)
 *   .040 GPU gpu0 50        S2 (not low)
 *   .050 GPU gpu1 5 (low)   exactly .020 from S2's first: not more, so S2 -> S2 a bottleneck
 *   .051 I/O 80 (high)      .021: opens S3 (high only)
 * 3 snapshots, 2 bottlenecks, low GPU in 2 snapshots. */
static void snapshot_samples(text *t)
{
    sys_line(t, "algo-1", "gpu0", "GPUUtilization", 5, "1600000000.000");
    sys_line(t, "algo-1", "", "I/OWaitPercentage", 60, "1600000000.015");
    sys_line(t, "algo-1", "", "I/OWaitPercentage", 70, "1600000000.030");
    sys_line(t, "algo-1", "gpu0", "GPUUtilization", 50, "1600000000.040");
    sys_line(t, "algo-1", "gpu1", "GPUUtilization", 5, "1600000000.050");
    sys_line(t, "algo-1", "", "I/OWaitPercentage", 80, "1600000000.051");
}

static void test_snapshots(void **state)
{
    (void)state;
    const char *dir = temp_dir();
    text t;
    text_open(&t);
    snapshot_samples(&t);
    put_text(dir, "1600000000.algo-1.json", &t);
    dfs_rules_options o;
    only(&o, DFS_RULE_IO_BOTTLENECK);
    outcome out = run(dir, &o); /* default patience 1000: 3 snapshots are not enough */
    const dfs_rule_result *r = rule(&out, DFS_RULE_IO_BOTTLENECK);
    assert_false(r->evaluated);
    assert_string_equal(r->reason, "3 snapshots (needs more than patience=1000)");
    assert_int_equal(r->datapoints, 3);
    assert_int_equal(r->violations, 2); /* Violations counts bottlenecks even before patience */
    assert_int_equal(r->triggered, 0);
    assert_int_equal(num(r->details, "low_gpu_utilization"), 2);
    assert_true(num(r->details, "bottlenecks/0/timestamp") == 1600000000.0);
    assert_true(num(r->details, "bottlenecks/1/timestamp") == 1600000000.03);
    assert_int_equal(num(r->details, "bottlenecks/1/GPUs"), 1);
    assert_int_equal(num(r->details, "bottlenecks/1/IOs"), 1); /* clean: labelled as I/O */
    done(&out);

    set(&o, "IOBottleneck.patience=3"); /* 3 snapshots, not more than 3: still not checked */
    out = run(dir, &o);
    assert_false(rule(&out, DFS_RULE_IO_BOTTLENECK)->evaluated);
    done(&out);

    set(&o, "IOBottleneck.patience=2"); /* 2/3 = 66.7 % > 50 %: triggered in the one window */
    o.mode = DFS_RULES_COMPAT;
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_IO_BOTTLENECK);
    assert_true(r->evaluated);
    assert_null(r->reason);
    assert_int_equal(r->triggered, 1);
    assert_int_equal(r->violations, 2);
    assert_int_equal(r->windows, 1);
    assert_int_equal(num(r->details, "bottlenecks/1/CPUs"), 1); /* compat: the reference's label */
    done(&out);

    set(&o, "IOBottleneck.threshold=66.67"); /* 66.666... is not above 66.67 */
    out = run(dir, &o);
    assert_int_equal(rule(&out, DFS_RULE_IO_BOTTLENECK)->triggered, 0);
    done(&out);

    /* a wider snapshot window: .051 is within .03 of .030, so only S1 and S2 */
    set(&o, "IOBottleneck.snapshot_window_s=0.03");
    out = run(dir, &o);
    assert_int_equal(rule(&out, DFS_RULE_IO_BOTTLENECK)->datapoints, 2);
    done(&out);
    remove_dir(dir);
}

/* Thresholds are strict: GPU < gpu_threshold, I/O and CPU > their thresholds. */
static void test_bottleneck_boundaries(void **state)
{
    (void)state;
    const char *dir = temp_dir();
    text t;
    text_open(&t);
    /* four snapshots one second apart */
    sys_line(&t, "algo-1", "gpu0", "GPUUtilization", 10, "1600000000.0");   /* == 10: not low */
    sys_line(&t, "algo-1", "", "I/OWaitPercentage", 90, "1600000000.0");
    sys_line(&t, "algo-1", "gpu0", "GPUUtilization", 9.99, "1600000001.0"); /* low */
    sys_line(&t, "algo-1", "", "I/OWaitPercentage", 50, "1600000001.0");    /* == 50: not high */
    sys_line(&t, "algo-1", "cpu0", "CPUUtilization", 90, "1600000001.0");   /* == 90: not high */
    sys_line(&t, "algo-1", "gpu0", "GPUUtilization", 0, "1600000002.0");
    sys_line(&t, "algo-1", "", "I/OWaitPercentage", 50.01, "1600000002.0"); /* bottleneck */
    sys_line(&t, "algo-1", "cpu0", "CPUUtilization", 90.5, "1600000002.0");  /* bottleneck */
    sys_line(&t, "algo-1", "gpu0", "GPUUtilization", 1, "1600000003.0");
    sys_line(&t, "algo-1", "", "I/OWaitPercentage", 99, "1600000003.0");    /* bottleneck */
    put_text(dir, "1600000000.algo-1.json", &t);
    dfs_rules_options o;
    dfs_rules_options_init(&o);
    o.selected = (1u << DFS_RULE_IO_BOTTLENECK) | (1u << DFS_RULE_CPU_BOTTLENECK);
    set(&o, "IOBottleneck.patience=3");
    set(&o, "CPUBottleneck.patience=3");
    outcome out = run(dir, &o);
    /* I/O: bottlenecks in snapshots 3 and 4: 2/4 = 50 %, not above 50 */
    const dfs_rule_result *io = rule(&out, DFS_RULE_IO_BOTTLENECK);
    assert_int_equal(io->datapoints, 4);
    assert_int_equal(io->violations, 2);
    assert_int_equal(num(io->details, "low_gpu_utilization"), 3);
    assert_true(io->evaluated);
    assert_int_equal(io->triggered, 0);
    /* CPU: one bottleneck (snapshot 3) */
    const dfs_rule_result *cpu = rule(&out, DFS_RULE_CPU_BOTTLENECK);
    assert_int_equal(cpu->violations, 1);
    assert_int_equal(cpu->triggered, 0);
    done(&out);
    set(&o, "IOBottleneck.threshold=49.99");
    out = run(dir, &o);
    assert_int_equal(rule(&out, DFS_RULE_IO_BOTTLENECK)->triggered, 1);
    done(&out);
    remove_dir(dir);
}

/* A condition that holds is counted again in every scan window, also in windows without data. */
static void test_windows(void **state)
{
    (void)state;
    const char *dir = temp_dir();
    text t;
    text_open(&t);
    snapshot_samples(&t);
    /* +300 s: window 5; a fourth snapshot without a bottleneck makes it 2/4 = 50 % */
    sys_line(&t, "algo-1", "", "I/OWaitPercentage", 0, "1600000300.000");
    put_text(dir, "1600000000.algo-1.json", &t);
    dfs_rules_options o;
    only(&o, DFS_RULE_IO_BOTTLENECK);
    set(&o, "IOBottleneck.patience=2");
    outcome out = run(dir, &o);
    const dfs_rule_result *r = rule(&out, DFS_RULE_IO_BOTTLENECK);
    /* windows 0..5: 0 (data, 2/3), 1-4 (empty, still 2/3) trigger; 5 (2/4) does not */
    assert_int_equal(r->windows, 6);
    assert_int_equal(r->triggered, 5);
    assert_int_equal(r->datapoints, 4);
    done(&out);
    /* 120 s windows: window 0 holds the first six samples, window 2 the last one */
    set(&o, "IOBottleneck.scan_interval_us=120000000");
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_IO_BOTTLENECK);
    assert_int_equal(r->windows, 3);
    assert_int_equal(r->triggered, 2);
    done(&out);
    remove_dir(dir);
}

/* ---- LowGPUUtilization ----------------------------------------------------------------------- */

static void test_low_gpu(void **state)
{
    (void)state;
    const char *dir = temp_dir();
    text t;
    text_open(&t);
    /* gpu0: 80 80 80 5 -> last 4: p95 80 (> 70), p5 16.25; gpu1: 50 x 4 -> p95 50 < 70 */
    const char *ts[] = {"1600000000.0", "1600000001.0", "1600000002.0", "1600000003.0"};
    double g0[] = {80, 80, 80, 5};
    for (int i = 0; i < 4; i++) {
        sys_line(&t, "algo-1", "gpu0", "GPUUtilization", g0[i], ts[i]);
        sys_line(&t, "algo-1", "gpu1", "GPUUtilization", 50, ts[i]);
    }
    /* window 3: one more 50 for gpu1 */
    sys_line(&t, "algo-1", "gpu1", "GPUUtilization", 50, "1600000180.0");
    put_text(dir, "1600000000.algo-1.json", &t);
    dfs_rules_options o;
    only(&o, DFS_RULE_LOW_GPU);
    outcome out = run(dir, &o);
    const dfs_rule_result *r = rule(&out, DFS_RULE_LOW_GPU);
    assert_false(r->evaluated);
    assert_string_equal(r->reason, "at most 5 GPUUtilization values per GPU (needs more than patience=1000)");
    assert_int_equal(r->datapoints, 5); /* the last GPU visited: gpu1 */
    done(&out);

    set(&o, "LowGPUUtilization.patience=3");
    set(&o, "LowGPUUtilization.window=4");
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_LOW_GPU);
    /* gpu1 under-utilized in windows 0, 1, 2 (empty), 3; gpu0 neither (p5 16.25 >= 10) */
    assert_true(r->evaluated);
    assert_int_equal(r->violations, 4);
    assert_int_equal(r->triggered, 4);
    assert_int_equal(r->windows, 4);
    assert_string_equal(at(r->details, "algo-1/gpu1/condition")->as.s, "under-utilized");
    assert_true(num(r->details, "algo-1/gpu1/gpu_95") == 50);
    assert_true(num(r->details, "algo-1/gpu1/upper") == 50);
    assert_null(at(r->details, "algo-1/gpu0"));
    done(&out);

    set(&o, "LowGPUUtilization.threshold_p5=16.26"); /* gpu0 fluctuates now: 16.25 < 16.26 */
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_LOW_GPU);
    assert_int_equal(r->violations, 4 + 4); /* gpu0 in windows 0-3 as well */
    assert_string_equal(at(r->details, "algo-1/gpu0/condition")->as.s, "fluctuating");
    assert_true(num(r->details, "algo-1/gpu0/gpu_5") == 16.25);
    done(&out);

    set(&o, "LowGPUUtilization.threshold_p5=10");
    set(&o, "LowGPUUtilization.threshold_p95=50"); /* gpu1's p95 50 is not below 50 */
    out = run(dir, &o);
    assert_int_equal(rule(&out, DFS_RULE_LOW_GPU)->violations, 0);
    done(&out);

    /* reset beyond max_datapoints: gpu1 has 4 values in window 0 (> 3): every list is emptied
     * after the check, so window 3 sees one value for gpu1 */
    set(&o, "LowGPUUtilization.threshold_p95=70");
    set(&o, "LowGPUUtilization.max_datapoints=3");
    set(&o, "LowGPUUtilization.patience=0");
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_LOW_GPU);
    assert_int_equal(r->datapoints, 1);
    /* window 0: gpu1 violates (gpu0 p95 80, p5 16.25: no); windows 1, 2: empty lists, nothing;
     * window 3: gpu1 [50] violates */
    assert_int_equal(r->violations, 2);
    done(&out);
    remove_dir(dir);
}

/* ---- StepOutlier ----------------------------------------------------------------------------- */

/* Five TRAIN steps of 1, 1, 1, 1 and 5 s: mean 1.8, sigma 1.6. */
static const char *step_dir(const long long *dur_us, int n, bool late_sample)
{
    const char *dir = temp_dir();
    text t;
    fw_begin(&t, 1600000000000000LL);
    fw_phase(&t, 1, "Step:ModeKeys.TRAIN");
    long long ts = 0;
    char args[64];
    for (int i = 0; i < n; i++) {
        snprintf(args, sizeof args, "\"pid\": 905, \"step_num\": \"%d\"", i);
        fw_event(&t, 1, "Step:ModeKeys.TRAIN", ts, dur_us[i], args);
        ts += dur_us[i] + 100000;
    }
    fw_end(&t, dir, "1600000100000000_node1_pythontimeline.json");
    if (late_sample) { /* window 2 */
        text_open(&t);
        sys_line(&t, "algo-1", "cpu0", "CPUUtilization", 1, "1600000150.0");
        put_text(dir, "1600000150.algo-1.json", &t);
    }
    return dir;
}

static void test_step_outlier(void **state)
{
    (void)state;
    long long dur[] = {1000000, 1000000, 1000000, 1000000, 5000000};
    const char *dir = step_dir(dur, 5, true);
    dfs_rules_options o;
    only(&o, DFS_RULE_STEP_OUTLIER);
    outcome out = run(dir, &o);
    const dfs_rule_result *r = rule(&out, DFS_RULE_STEP_OUTLIER);
    assert_false(r->evaluated);
    assert_string_equal(r->reason, "no step name has more than min_steps=100 steps on one node "
                                   "(most: 5 Step:ModeKeys.TRAIN on node1)");
    assert_int_equal(r->datapoints, 5);
    done(&out);

    set(&o, "StepOutlier.min_steps=5"); /* 5 durations: not more than 5 */
    out = run(dir, &o);
    assert_false(rule(&out, DFS_RULE_STEP_OUTLIER)->evaluated);
    done(&out);

    set(&o, "StepOutlier.min_steps=4");
    set(&o, "StepOutlier.stddev=1");
    set(&o, "StepOutlier.n_outliers=0");
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_STEP_OUTLIER);
    /* threshold 1.8 + 1.6 = 3.4: the 5 s step is the outlier; 1 > 0 -> a violation in windows
     * 0 (data), 1 and 2 (the late system sample extends the run) */
    assert_true(r->evaluated);
    assert_int_equal(r->windows, 3);
    assert_int_equal(r->violations, 3);
    assert_int_equal(r->triggered, 3);
    assert_true(fabs(num(r->details, "step_details/0/threshold") - 3.4) < 1e-12);
    assert_int_equal(num(r->details, "step_details/0/number_of_outliers"), 1);
    assert_string_equal(at(r->details, "step_details/0/step_numbers/0")->as.s, "4");
    assert_true(num(r->details, "step_details/0/step_stats/max") == 5);
    assert_true(num(r->details, "step_details/0/stddev") == 1.6);
    assert_string_equal(at(r->details, "step_details/0/phase")->as.s, "Step:ModeKeys.TRAIN");
    /* the normal steps' histogram: four equal values -> one bin, range 0.5..1.5 */
    assert_int_equal(num(r->details, "step_details/0/probs/50"), 4);
    assert_true(num(r->details, "step_details/0/binedges/0") == 0.5);
    done(&out);

    set(&o, "StepOutlier.n_outliers=1"); /* 1 outlier is not more than 1 */
    out = run(dir, &o);
    assert_int_equal(rule(&out, DFS_RULE_STEP_OUTLIER)->violations, 0);
    assert_true(rule(&out, DFS_RULE_STEP_OUTLIER)->evaluated);
    done(&out);
    remove_dir(dir);

    /* equal steps: sigma 0, threshold = the duration, nothing is above it */
    long long same[] = {1000000, 1000000, 1000000, 1000000, 1000000};
    dir = step_dir(same, 5, false);
    set(&o, "StepOutlier.n_outliers=0");
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_STEP_OUTLIER);
    assert_true(r->evaluated);
    assert_int_equal(num(r->details, "step_details/0/number_of_outliers"), 0);
    assert_int_equal(r->violations, 0);
    done(&out);

    /* `mode` adds events named exactly so */
    dfs_rules_options_init(&o);
    o.selected = 1u << DFS_RULE_STEP_OUTLIER;
    set(&o, "StepOutlier.mode=cpu_work");
    text t;
    fw_begin(&t, 1600000000000000LL);
    fw_phase(&t, 1, "cpu_functions");
    fw_event(&t, 1, "cpu_work", 0, 10, NULL);
    fw_event(&t, 1, "cpu_work2", 20, 10, NULL);
    fw_end(&t, dir, "1600000100000000_node1_pythontimeline.json");
    out = run(dir, &o);
    assert_int_equal(rule(&out, DFS_RULE_STEP_OUTLIER)->datapoints, 1);
    done(&out);
    remove_dir(dir);
}

/* ---- Dataloader ------------------------------------------------------------------------------ */

/* Two cores; twelve DataLoaderWorker events, each in its own second with one args.pid: twelve
 * per-second counts of 1, median 1 (int), against 2 * 70 % = 1.4 and 2 * 200 % = 4. */
static const char *loader_dir(bool prefetch_first, int workers)
{
    const char *dir = temp_dir();
    text t;
    text_open(&t);
    sys_line(&t, "algo-1", "cpu0", "CPUUtilization", 10, "1600000000.5");
    sys_line(&t, "algo-1", "cpu1", "CPUUtilization", 10, "1600000000.5");
    put_text(dir, "1600000000.algo-1.json", &t);
    fw_begin(&t, 1600000000000000LL);
    fw_phase(&t, 1, "DataLoaderWorker");
    fw_phase(&t, 2, "DataLoaderIterInitialize");
    fw_phase(&t, 3, "cpu_functions");
    if (prefetch_first)
        fw_event(&t, 3, "PrefetchDataset", 50, 10, NULL);
    fw_event(&t, 2, "_MultiProcessingDataLoaderIter.__init__", 100, 50, "\"pin_memory\": true, \"num_workers\": 2");
    char args[64];
    for (int i = 0; i < workers; i++) {
        snprintf(args, sizeof args, "\"pid\": %d, \"worker_id\": %d", 100 + i % 2, i % 2);
        fw_event(&t, 1, "DataLoaderWorker", (long long)i * 1000000 + 1000, 1000, args);
    }
    fw_end(&t, dir, "1600000100000000_node1_pythontimeline.json");
    return dir;
}

static void test_dataloader(void **state)
{
    (void)state;
    const char *dir = loader_dir(true, 12);
    dfs_rules_options o;
    only(&o, DFS_RULE_DATALOADER);
    outcome out = run(dir, &o);
    const dfs_rule_result *r = rule(&out, DFS_RULE_DATALOADER);
    assert_true(r->evaluated);
    assert_int_equal(r->datapoints, 12);
    assert_int_equal(r->violations, 1); /* 1 < 1.4 */
    assert_int_equal(r->triggered, 1);
    assert_int_equal(num(r->details, "cores"), 2);
    assert_int_equal(num(r->details, "dataloaders"), 1);
    assert_true(at(r->details, "pin_memory")->as.b);
    assert_int_equal(num(r->details, "num_workers"), 2);
    assert_true(at(r->details, "prefetch")->as.b); /* clean: a Prefetch event was seen */
    assert_true(num(r->details, "dataloading_time/p50") == 0.001);
    assert_int_equal(count_sum(at(r->details, "dataloading_time/probs")), 12);
    assert_int_equal(at(r->details, "dataloading_time/binedges")->n, 101);
    done(&out);

    o.mode = DFS_RULES_COMPAT; /* the reference forgets the Prefetch seen before a loader event */
    out = run(dir, &o);
    assert_null(at(rule(&out, DFS_RULE_DATALOADER)->details, "prefetch"));
    done(&out);

    o.mode = DFS_RULES_CLEAN;
    set(&o, "Dataloader.min_threshold=50"); /* 1 < 2 * 50 % = 1.0 is false */
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_DATALOADER);
    assert_true(r->evaluated);
    assert_int_equal(r->violations, 0);
    assert_int_equal(r->triggered, 0);
    done(&out);

    set(&o, "Dataloader.min_threshold=70");
    set(&o, "Dataloader.patience=12"); /* 12 counts, not more than 12 */
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_DATALOADER);
    assert_false(r->evaluated);
    assert_string_equal(r->reason, "12 per-second counts of parallel data loaders (needs more than patience=12)");
    assert_int_equal(r->violations, 0);
    done(&out);
    remove_dir(dir);

    /* no CPU samples: the number of cores is unknown, the rule says so */
    dir = loader_dir(false, 12);
    char path[256];
    snprintf(path, sizeof path, "%s/1600000100000000_node1_pythontimeline.json", dir);
    dfs_rules_options_init(&o);
    o.selected = 1u << DFS_RULE_DATALOADER;
    out = run(path, &o);
    r = rule(&out, DFS_RULE_DATALOADER);
    assert_false(r->evaluated);
    assert_string_equal(r->reason, "no CPUUtilization samples: the number of cores is unknown");
    assert_int_equal(r->violations, 0);
    assert_int_equal(r->datapoints, 12);
    done(&out);
    o.mode = DFS_RULES_COMPAT; /* the reference compares with 0 cores: 1 > 0 * 200 % */
    out = run(path, &o);
    assert_int_equal(rule(&out, DFS_RULE_DATALOADER)->violations, 1);
    done(&out);
    remove_dir(dir);
}

/* ---- MaxInitializationTime ------------------------------------------------------------------ */

/* System samples every 30 s over windows 0..5 (T0 = 1600000000); a framework file with a step
 * at T0 + step_s (or none); threshold 2 minutes: windows k with k * 60 s > 120 s, i.e. k >= 3. */
static const char *init_dir(long long step_s, bool framework)
{
    const char *dir = temp_dir();
    text t;
    text_open(&t);
    char ts[32];
    for (int i = 0; i <= 10; i++) {
        snprintf(ts, sizeof ts, "%d.0", 1600000000 + 30 * i);
        sys_line(&t, "algo-1", "cpu0", "CPUUtilization", 1, ts);
    }
    put_text(dir, "1600000000.algo-1.json", &t);
    if (!framework)
        return dir;
    fw_begin(&t, 1600000000000000LL);
    fw_phase(&t, 1, "Step:ModeKeys.TRAIN");
    fw_phase(&t, 2, "cpu_functions");
    fw_event(&t, 2, "setup", 1000, 1000, NULL);
    if (step_s >= 0)
        fw_event(&t, 1, "Step:ModeKeys.TRAIN", step_s * 1000000, 1000, "\"step_num\": \"0\"");
    fw_end(&t, dir, "1600000400000000_node1_pythontimeline.json");
    return dir;
}

static void test_max_init(void **state)
{
    (void)state;
    dfs_rules_options o;
    only(&o, DFS_RULE_MAX_INIT);
    set(&o, "MaxInitializationTime.threshold=2");
    struct {
        long long step_s;
        bool framework;
        uint64_t violations;
    } cases[] = {
        {240, true, 1},  /* step in window 4: only window 3 is late without a step */
        {180, true, 0},  /* exactly T0 + 180 s opens window 3: the step is seen there */
        {179, true, 0},  /* window 2 */
        {-1, true, 3},   /* no step at all: windows 3, 4, 5 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *dir = init_dir(cases[i].step_s, cases[i].framework);
        outcome out = run(dir, &o);
        const dfs_rule_result *r = rule(&out, DFS_RULE_MAX_INIT);
        assert_true(r->evaluated);
        assert_int_equal(r->windows, 6);
        assert_int_equal(r->violations, cases[i].violations);
        assert_int_equal(r->triggered, cases[i].violations);
        assert_int_equal(r->datapoints, cases[i].step_s >= 0);
        assert_true(num(r->details, "job_start") == 1600000000.0);
        assert_true(num(r->details, "job_end") == 1600000300.0);
        if (cases[i].step_s >= 0)
            assert_true(num(r->details, "step_num/first") == 1600000000000000.0 + cases[i].step_s * 1e6);
        done(&out);
        remove_dir(dir);
    }
    set(&o, "MaxInitializationTime.threshold=1.99"); /* 119.4 s: window 2 is late too */
    const char *dir = init_dir(-1, true);
    outcome out = run(dir, &o);
    assert_int_equal(rule(&out, DFS_RULE_MAX_INIT)->violations, 4);
    done(&out);
    remove_dir(dir);
    /* no framework trace: whether training started is unknown */
    dir = init_dir(-1, false);
    out = run(dir, &o);
    const dfs_rule_result *r = rule(&out, DFS_RULE_MAX_INIT);
    assert_false(r->evaluated);
    assert_int_equal(r->violations, 0);
    assert_non_null(strstr(r->reason, "no framework trace"));
    done(&out);
    remove_dir(dir);
}

/* ---- BatchSize ------------------------------------------------------------------------------- */

/* Five timestamps; per timestamp cpu0 + cpu1 over 2 cores = 20, 20, 10, 5, 20; gpu0 at 0;
 * gpu0 memory 1000, 10, 20, 30, 40. window 2, patience 2: last two CPU totals p95 19.25 < 70,
 * GPU p95 0, memory p95 over [30, 40] 39.5 < 70: one violation. */
static void test_batch_size(void **state)
{
    (void)state;
    const char *dir = temp_dir();
    text t;
    text_open(&t);
    double c0[] = {10, 20, 5, 0, 40}, c1[] = {30, 20, 15, 10, 0}, mem[] = {1000, 10, 20, 30, 40};
    char ts[32];
    for (int i = 0; i < 5; i++) {
        snprintf(ts, sizeof ts, "%d.0", 1600000000 + i);
        sys_line(&t, "algo-1", "cpu0", "CPUUtilization", c0[i], ts);
        sys_line(&t, "algo-1", "cpu1", "CPUUtilization", c1[i], ts);
        sys_line(&t, "algo-1", "gpu0", "GPUUtilization", 0, ts);
        sys_line(&t, "algo-1", "gpu0", "GPUMemoryUtilization", mem[i], ts);
    }
    put_text(dir, "1600000000.algo-1.json", &t);
    dfs_rules_options o;
    only(&o, DFS_RULE_BATCH_SIZE);
    outcome out = run(dir, &o);
    const dfs_rule_result *r = rule(&out, DFS_RULE_BATCH_SIZE);
    assert_false(r->evaluated);
    assert_int_equal(r->datapoints, 5);
    done(&out);

    set(&o, "BatchSize.window=2");
    set(&o, "BatchSize.patience=2");
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_BATCH_SIZE);
    assert_true(r->evaluated);
    assert_int_equal(r->violations, 1);
    assert_int_equal(r->triggered, 1);
    /* CPU totals sorted 5 10 20 20 20: p25 10, p50 20, IQR 10, upper min(35, 20), lower max(-5, 5) */
    assert_true(num(r->details, "algo-1/cpu/p25") == 10);
    assert_true(num(r->details, "algo-1/cpu/p50") == 20);
    assert_true(num(r->details, "algo-1/cpu/upper") == 20);
    assert_true(num(r->details, "algo-1/cpu/lower") == 5);
    /* memory 10 20 30 40 1000: p25 20, p75 40, IQR 20: upper 70, lower max(-10, 10) */
    assert_true(num(r->details, "algo-1/gpu0_memory/upper") == 70);
    assert_true(num(r->details, "algo-1/gpu0_memory/lower") == 10);
    done(&out);

    o.mode = DFS_RULES_COMPAT; /* IQR = memory p75 40 - GPU utilization p25 0: upper 100 */
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_BATCH_SIZE);
    assert_true(num(r->details, "algo-1/gpu0_memory/upper") == 100);
    assert_true(num(r->details, "algo-1/gpu0_memory/lower") == 10);
    done(&out);

    o.mode = DFS_RULES_CLEAN;
    set(&o, "BatchSize.cpu_threshold_p95=19.25"); /* 19.25 is not below 19.25 */
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_BATCH_SIZE);
    assert_true(r->evaluated);
    assert_int_equal(r->violations, 0);
    done(&out);
    remove_dir(dir);

    /* without GPU memory samples the rule says so */
    dir = temp_dir();
    text_open(&t);
    sys_line(&t, "algo-1", "cpu0", "CPUUtilization", 1, "1600000000.0");
    sys_line(&t, "algo-1", "gpu0", "GPUUtilization", 1, "1600000000.0");
    put_text(dir, "1600000000.algo-1.json", &t);
    out = run(dir, &o);
    assert_string_equal(rule(&out, DFS_RULE_BATCH_SIZE)->reason, "no GPUMemoryUtilization samples");
    done(&out);
    remove_dir(dir);
}

/* ---- LoadBalancing --------------------------------------------------------------------------- */

/* algo-1: gpu0 at 10, gpu1 at 90, gpu2 at 10, gpu3 at 99 (outside the bins), 3 values each;
 * algo-2: one GPU. Disjoint histograms: distance sqrt(ln 2) = 0.8326. */
static void test_load_balancing(void **state)
{
    (void)state;
    const char *dir = temp_dir();
    text t;
    text_open(&t);
    char ts[32];
    for (int i = 0; i < 3; i++) {
        snprintf(ts, sizeof ts, "%d.0", 1600000000 + i);
        sys_line(&t, "algo-1", "gpu0", "GPUUtilization", 10, ts);
        sys_line(&t, "algo-1", "gpu1", "GPUUtilization", 90, ts);
        sys_line(&t, "algo-1", "gpu3", "GPUUtilization", 99, ts);
        sys_line(&t, "algo-2", "gpu0", "GPUUtilization", 50, ts);
        sys_line(&t, "algo-1", "gpu2", "GPUUtilization", 10, ts);
    }
    put_text(dir, "1600000000.algo-1.json", &t);
    dfs_rules_options o;
    only(&o, DFS_RULE_LOAD_BALANCING);
    set(&o, "LoadBalancing.patience=2");
    outcome out = run(dir, &o);
    const dfs_rule_result *r = rule(&out, DFS_RULE_LOAD_BALANCING);
    /* pairs gpu0-gpu1 and gpu1-gpu2 differ; gpu0-gpu2 are equal; gpu3 has no histogram */
    assert_true(r->evaluated);
    assert_int_equal(r->violations, 2);
    assert_int_equal(r->triggered, 2);
    assert_int_equal(r->datapoints, 3); /* the GPU of the last sample has 3 values */
    assert_true(fabs(num(r->details, "algo-1/distances/gpu0/gpu1") - sqrt(log(2))) < 1e-12);
    assert_int_equal(num(r->details, "algo-1/workloads/gpu1/45"), 3);
    assert_null(at(r->details, "algo-2"));
    done(&out);

    set(&o, "LoadBalancing.threshold=0"); /* equal histograms: distance 0 is not above 0 */
    out = run(dir, &o);
    assert_int_equal(rule(&out, DFS_RULE_LOAD_BALANCING)->violations, 2);
    done(&out);

    o.mode = DFS_RULES_COMPAT; /* the reference test: threshold 0, no violation */
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_LOAD_BALANCING);
    assert_false(r->evaluated);
    assert_int_equal(r->violations, 0);
    assert_int_equal(r->triggered, 0);
    assert_int_equal(r->datapoints, 3);
    assert_non_null(strstr(r->reason, "never fires"));
    done(&out);

    o.mode = DFS_RULES_CLEAN;
    set(&o, "LoadBalancing.patience=3"); /* 3 values are not more than 3 */
    out = run(dir, &o);
    assert_false(rule(&out, DFS_RULE_LOAD_BALANCING)->evaluated);
    done(&out);
    remove_dir(dir);
}

/* ---- GPUMemoryIncrease ----------------------------------------------------------------------- */

/* gpu0 memory 0, 0, 0, 30, 30 with window 3. The reference compares mean(last 3) with the mean
 * of values[-4:-2] (2 values): at the 5th value 20 - 0 = 20. The clean mode compares with the
 * previous moving average values[-4:-1]: 20 - 10 = 10 (and 10 - 0 at the 4th value). */
static void test_gpu_memory_increase(void **state)
{
    (void)state;
    const char *dir = temp_dir();
    text t;
    text_open(&t);
    double v[] = {0, 0, 0, 30, 30};
    char ts[32];
    for (int i = 0; i < 5; i++) {
        snprintf(ts, sizeof ts, "%d.0", 1600000000 + i);
        sys_line(&t, "algo-1", "gpu0", "GPUMemoryUtilization", v[i], ts);
    }
    put_text(dir, "1600000000.algo-1.json", &t);
    dfs_rules_options o;
    only(&o, DFS_RULE_GPU_MEMORY_INCREASE);
    set(&o, "GPUMemoryIncrease.window=3");
    set(&o, "GPUMemoryIncrease.patience=0");
    set(&o, "GPUMemoryIncrease.increase=15");
    o.mode = DFS_RULES_COMPAT;
    outcome out = run(dir, &o);
    const dfs_rule_result *r = rule(&out, DFS_RULE_GPU_MEMORY_INCREASE);
    assert_true(r->evaluated);
    assert_int_equal(r->violations, 1);
    assert_int_equal(r->triggered, 1);
    assert_int_equal(r->datapoints, 5);
    assert_true(num(r->details, "algo-1/gpu0/increase") == 20);
    assert_true(num(r->details, "algo-1/gpu0/gpu_max") == 30);
    assert_true(num(r->details, "algo-1/gpu0/p50") == 0);
    done(&out);

    o.mode = DFS_RULES_CLEAN;
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_GPU_MEMORY_INCREASE);
    assert_true(r->evaluated);
    assert_int_equal(r->violations, 0);
    done(&out);
    set(&o, "GPUMemoryIncrease.increase=9.99"); /* clean: 10 > 9.99 at the 4th and 5th values */
    out = run(dir, &o);
    assert_int_equal(rule(&out, DFS_RULE_GPU_MEMORY_INCREASE)->violations, 2);
    done(&out);

    o.mode = DFS_RULES_COMPAT;
    set(&o, "GPUMemoryIncrease.increase=20"); /* 20 is not above 20 */
    out = run(dir, &o);
    assert_int_equal(rule(&out, DFS_RULE_GPU_MEMORY_INCREASE)->violations, 0);
    done(&out);
    set(&o, "GPUMemoryIncrease.increase=15");
    set(&o, "GPUMemoryIncrease.patience=5"); /* 5 values are not more than 5 */
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_GPU_MEMORY_INCREASE);
    assert_int_equal(r->violations, 0);
    assert_false(r->evaluated);
    done(&out);
    set(&o, "GPUMemoryIncrease.patience=0");
    set(&o, "GPUMemoryIncrease.window=4"); /* compat needs more than window + 1 = 5 values */
    out = run(dir, &o);
    assert_false(rule(&out, DFS_RULE_GPU_MEMORY_INCREASE)->evaluated);
    done(&out);
    remove_dir(dir);
}

/* ---- OverallSystemUsage --------------------------------------------------------------------- */

static void test_overall_system_usage(void **state)
{
    (void)state;
    const char *dir = temp_dir();
    text t;
    text_open(&t);
    /* one core: 2.675, 1.005, 0.125 -> max 2.67, p99 2.6416 -> 2.64, p95 2.508 -> 2.51,
     * p50 1.005 -> 1.0, min 0.125 -> 0.12 (Python's round) */
    sys_line(&t, "algo-1", "cpu0", "CPUUtilization", 2.675, "1600000000.0");
    sys_line(&t, "algo-1", "cpu0", "CPUUtilization", 1.005, "1600000001.0");
    sys_line(&t, "algo-1", "cpu0", "CPUUtilization", 0.125, "1600000002.0");
    /* network below zero: clamped to 0 */
    sys_line(&t, "algo-1", "eth0", "Algorithm", -5, "1600000000.0");
    sys_line(&t, "algo-1", "eth0", "Algorithm", -3, "1600000001.0");
    /* two GPUs at one timestamp: (50 + 30) / 2 */
    sys_line(&t, "algo-1", "gpu0", "GPUUtilization", 50, "1600000000.0");
    sys_line(&t, "algo-1", "gpu1", "GPUUtilization", 30, "1600000000.0");
    sys_line(&t, "algo-1", "", "I/OWaitPercentage", 20, "1600000000.0");
    sys_line(&t, "algo-1", "MemoryUsedPercent", "Memory", 55.555, "1600000000.0");
    put_text(dir, "1600000000.algo-1.json", &t);
    dfs_rules_options o;
    only(&o, DFS_RULE_OVERALL_SYSTEM_USAGE);
    outcome out = run(dir, &o);
    const dfs_rule_result *r = rule(&out, DFS_RULE_OVERALL_SYSTEM_USAGE);
    assert_true(r->evaluated);
    assert_int_equal(r->triggered, 0);
    assert_int_equal(r->datapoints, 3);
    const dfs_rv *d = r->details;
    assert_true(num(d, "CPU/algo-1/max") == 2.67);
    assert_true(num(d, "CPU/algo-1/p99") == 2.64);
    assert_true(num(d, "CPU/algo-1/p95") == 2.51);
    assert_true(num(d, "CPU/algo-1/p50") == 1.0);
    assert_true(num(d, "CPU/algo-1/min") == 0.12);
    assert_true(num(d, "Network/algo-1/max") == 0);
    assert_true(num(d, "Network/algo-1/min") == 0);
    assert_true(num(d, "GPU/algo-1/p50") == 40);
    assert_true(num(d, "I/O/algo-1/max") == 20);
    assert_true(num(d, "CPU memory/algo-1/max") == 55.55);
    assert_null(at(d, "GPU memory"));
    /* the reference's order of the metrics */
    assert_string_equal(d->head->key, "Network");
    done(&out);
    remove_dir(dir);

    /* GPU memory without GPU utilization: the number of GPUs is unknown */
    dir = temp_dir();
    text_open(&t);
    sys_line(&t, "algo-1", "gpu0", "GPUMemoryUtilization", 5, "1600000000.0");
    put_text(dir, "1600000000.algo-1.json", &t);
    out = run(dir, &o);
    r = rule(&out, DFS_RULE_OVERALL_SYSTEM_USAGE);
    assert_int_equal(at(r->details, "GPU memory")->type, DFS_RV_STR);
    assert_int_equal(r->datapoints, 0); /* no CPU node */
    done(&out);
    remove_dir(dir);
}

/* ---- no inputs, reader order, Composer, -j, writers ------------------------------------------ */

static void test_no_inputs(void **state)
{
    (void)state;
    static const char doc[] = "[{\"name\": \"x\", \"ph\": \"X\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1}]\n";
    const char *path = tu_temp_file(".json", doc, sizeof doc - 1);
    dfs_rules_options o;
    dfs_rules_options_init(&o);
    outcome out = run(path, &o);
    static const char *const reasons[DFS_RULE__COUNT] = {
        [DFS_RULE_DATALOADER] = "no DataLoaderWorker or DataLoaderIter events",
        [DFS_RULE_IO_BOTTLENECK] = "no GPUUtilization samples",
        [DFS_RULE_CPU_BOTTLENECK] = "no GPUUtilization samples",
        [DFS_RULE_LOW_GPU] = "no GPUUtilization samples",
        [DFS_RULE_STEP_OUTLIER] = "no step events (Step:ModeKeys.*, ProfilerStep#N, event/batch)",
        [DFS_RULE_MAX_INIT] = "no framework trace that records steps: whether the training loop started is unknown",
        [DFS_RULE_BATCH_SIZE] = "no CPUUtilization samples",
        [DFS_RULE_LOAD_BALANCING] = "no GPUUtilization samples",
        [DFS_RULE_GPU_MEMORY_INCREASE] = "no GPUMemoryUtilization samples",
        [DFS_RULE_OVERALL_SYSTEM_USAGE] = ("no GPUUtilization, GPUMemoryUtilization, CPUUtilization, "
                                           "MemoryUsedPercent, Algorithm or I/OWaitPercentage samples")};
    for (int i = 0; i < DFS_RULE__COUNT; i++) {
        const dfs_rule_result *r = rule(&out, (dfs_rule_id)i);
        assert_false(r->evaluated);
        assert_int_equal(r->triggered, 0);
        assert_int_equal(r->violations, 0);
        assert_string_equal(r->reason, reasons[i]);
    }
    assert_int_equal(out.r->framework_events, 0);
    done(&out);
    unlink(path);
}

/* Files are read in the order of the number their name starts with (900 before 1000), then by
 * path. 900.algo-1.json: .000 and .025; 1000.algo-1.json: .010. In that order .000 opens S1, .025
 * S2, .010 is within .02 of .025: 2 snapshots. In path order (1000 first) it would be 1. */
static void test_reader_order(void **state)
{
    (void)state;
    const char *dir = temp_dir();
    text t;
    text_open(&t);
    sys_line(&t, "algo-1", "cpu0", "CPUUtilization", 1, "1600000000.000");
    sys_line(&t, "algo-1", "cpu0", "CPUUtilization", 1, "1600000000.025");
    put_text(dir, "900.algo-1.json", &t);
    text_open(&t);
    sys_line(&t, "algo-1", "cpu0", "CPUUtilization", 1, "1600000000.010");
    put_text(dir, "1000.algo-1.json", &t);
    dfs_rules_options o;
    only(&o, DFS_RULE_CPU_BOTTLENECK);
    for (int jobs = 1; jobs <= 2; jobs++) {
        outcome out = run_jobs(dir, &o, jobs);
        assert_int_equal(rule(&out, DFS_RULE_CPU_BOTTLENECK)->datapoints, 2);
        done(&out);
    }
    remove_dir(dir);
}

/* Composer: `cpu` and `memory/virtual` counters, event/batch B/E pairs (an orphan E dropped). */
static void test_composer(void **state)
{
    (void)state;
    static const char doc[] =
        "[\n"
        "{\"name\": \"global_rank\", \"ph\": \"M\", \"ts\": 1600000000000000, \"pid\": 0, \"tid\": 42, \"args\": {\"value\": 0}},\n"
        "{\"name\": \"event/batch\", \"cat\": \"\", \"ph\": \"B\", \"ts\": 1600000000000100, \"pid\": 0, \"tid\": 42, \"args\": {\"epoch\": 0, \"batch\": 2}},\n"
        "{\"name\": \"cpu\", \"cat\": \"cpu\", \"ph\": \"C\", \"ts\": 1600000000000200, \"pid\": 0, \"tid\": 42, \"args\": {\"cpu_percent\": 40.0}},\n"
        "{\"name\": \"memory/virtual\", \"cat\": \"memory\", \"ph\": \"C\", \"ts\": 1600000000000200, \"pid\": 0, \"tid\": 42, \"args\": {\"used_gb\": 1.0, \"available_gb\": 3.0}},\n"
        "{\"name\": \"event/batch\", \"cat\": \"\", \"ph\": \"E\", \"ts\": 1600000000001100, \"pid\": 0, \"tid\": 42, \"args\": {\"epoch\": 0, \"batch\": 3}},\n"
        "{\"name\": \"event/batch\", \"cat\": \"\", \"ph\": \"E\", \"ts\": 1600000000002000, \"pid\": 0, \"tid\": 42, \"args\": {\"epoch\": 0, \"batch\": 4}}\n"
        "]\n";
    const char *path = tu_temp_file(".json", doc, sizeof doc - 1);
    dfs_rules_options o;
    dfs_rules_options_init(&o);
    outcome out = run(path, &o);
    assert_int_equal(out.r->samples, 2);
    assert_int_equal(out.r->steps, 1);
    assert_true(out.r->has_steps_source);
    const dfs_rule_result *r = rule(&out, DFS_RULE_OVERALL_SYSTEM_USAGE);
    assert_true(num(r->details, "CPU/rank0/max") == 40);
    assert_true(num(r->details, "CPU memory/rank0/max") == 25);
    r = rule(&out, DFS_RULE_STEP_OUTLIER);
    assert_int_equal(r->datapoints, 1);
    r = rule(&out, DFS_RULE_MAX_INIT);
    assert_true(r->evaluated);
    assert_true(num(r->details, "step_num/first") == 1600000000000100.0);
    bool orphan_noted = false;
    for (size_t i = 0; i < out.r->nnotes; i++)
        orphan_noted |= strstr(out.r->notes[i], "1 E without a B dropped") != NULL;
    assert_true(orphan_noted);
    done(&out);
    unlink(path);
}

static char *render(const dfs_rules_result *r, void (*w)(FILE *, const dfs_rules_result *));

/* Absurd values and times: NaN, infinities, huge and negative numbers, timestamps from before
 * the epoch to the 23rd century. Every rule must finish (ASan/UBSan clean) with low patience. */
static void test_hostile_values(void **state)
{
    (void)state;
    static const char *const values[] = {"NaN", "Infinity", "-Infinity", "1e308", "-1e308", "0", "-0.0", "98", "98.0000001"};
    static const char *const times[] = {"0", "-5.5", "1600000000.0", "9000000000.0", "1600000000.01", "0.019"};
    static const char *const dims[] = {"CPUUtilization", "GPUUtilization", "GPUMemoryUtilization",
                                       "I/OWaitPercentage", "Algorithm", "Memory"};
    const char *dir = temp_dir();
    text t;
    text_open(&t);
    for (size_t i = 0; i < 60; i++)
        fprintf(t.f, "{\"Type\":\"x\",\"Name\":\"%s%zu\",\"Dimension\":\"%s\",\"Value\":%s,\"NodeId\":\"n%zu\",\"Timestamp\":%s}\n",
                i % 6 == 5 ? "MemoryUsedPercent" : "d", i % 3, dims[i % 6], values[i % 9], i % 2, times[i % 6]);
    put_text(dir, "1.algo-1.json", &t);
    dfs_rules_options o;
    dfs_rules_options_init(&o);
    static const char *const low[] = {
        "Dataloader.patience=0", "IOBottleneck.patience=0", "CPUBottleneck.patience=0",
        "LowGPUUtilization.patience=0", "LowGPUUtilization.window=1", "StepOutlier.min_steps=0",
        "BatchSize.patience=0", "BatchSize.window=1", "LoadBalancing.patience=0", "LoadBalancing.threshold=-1",
        "GPUMemoryIncrease.patience=0", "GPUMemoryIncrease.window=1", "LowGPUUtilization.max_datapoints=2",
        "GPUMemoryIncrease.max_datapoints=1", "LoadBalancing.max_datapoints=1"};
    for (size_t i = 0; i < sizeof low / sizeof *low; i++)
        set(&o, low[i]);
    for (int mode = 0; mode < 2; mode++) {
        o.mode = mode ? DFS_RULES_COMPAT : DFS_RULES_CLEAN;
        outcome out = run(dir, &o);
        assert_int_equal(out.r->nrules, DFS_RULE__COUNT);
        char *json = render(out.r, dfs_rules_write_json), *table = render(out.r, dfs_rules_write_text);
        assert_non_null(strstr(json, "dfscope-rules/1"));
        free(json);
        free(table);
        done(&out);
    }
    remove_dir(dir);
}

static char *render(const dfs_rules_result *r, void (*w)(FILE *, const dfs_rules_result *))
{
    text t;
    text_open(&t);
    w(t.f, r);
    return text_close(&t);
}

static void test_writers_and_jobs(void **state)
{
    (void)state;
    long long dur[] = {1000000, 1000000, 1000000, 1000000, 5000000};
    const char *dir = step_dir(dur, 5, true);
    text t;
    text_open(&t);
    snapshot_samples(&t);
    put_text(dir, "1600000000.algo-1.json", &t);
    dfs_rules_options o;
    dfs_rules_options_init(&o);
    set(&o, "IOBottleneck.patience=2");
    outcome a = run_jobs(dir, &o, 1), b = run_jobs(dir, &o, 2);
    char *ja = render(a.r, dfs_rules_write_json), *jb = render(b.r, dfs_rules_write_json);
    assert_string_equal(ja, jb);
    assert_non_null(strstr(ja, "\"schema\": \"dfscope-rules/1\""));
    assert_non_null(strstr(ja, "\"rule\": \"IOBottleneck\""));
    assert_non_null(strstr(ja, "\"RuleParameters\": \"threshold:50\\nio_threshold:50\\ngpu_threshold:10\\npatience:2\""));
    assert_non_null(strstr(ja, "\"evaluated\": false"));
    assert_non_null(strstr(ja, "\"reason\": \"no DataLoaderWorker or DataLoaderIter events\""));
    char *csv = render(a.r, dfs_rules_write_csv);
    assert_memory_equal(csv, "rule,evaluated,reason,RuleTriggered,Violations,Datapoints,RuleParameters,windows,summary\n", 86);
    /* windows 0 (2/3) and 1 (empty) trigger; the CPU sample of window 2 is a 4th snapshot: 2/4 */
    assert_non_null(strstr(csv, "\nIOBottleneck,true,,2,2,4,\"threshold:50\nio_threshold:50\ngpu_threshold:10\npatience:2\",3,"));
    char *table = render(a.r, dfs_rules_write_text);
    assert_non_null(strstr(table, "mode: clean"));
    assert_non_null(strstr(table, "IOBottleneck: TRIGGERED"));
    assert_non_null(strstr(table, "Dataloader: not evaluated"));
    free(ja);
    free(jb);
    free(csv);
    free(table);
    done(&a);
    done(&b);
    text_open(&t);
    dfs_rules_write_list(t.f);
    char *list = text_close(&t);
    assert_non_null(strstr(list, "StepOutlier\n  stddev"));
    assert_non_null(strstr(list, "min_steps"));
    free(list);
    remove_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seconds),
        cmocka_unit_test(test_parameters),
        cmocka_unit_test(test_snapshots),
        cmocka_unit_test(test_bottleneck_boundaries),
        cmocka_unit_test(test_windows),
        cmocka_unit_test(test_low_gpu),
        cmocka_unit_test(test_step_outlier),
        cmocka_unit_test(test_dataloader),
        cmocka_unit_test(test_max_init),
        cmocka_unit_test(test_batch_size),
        cmocka_unit_test(test_load_balancing),
        cmocka_unit_test(test_gpu_memory_increase),
        cmocka_unit_test(test_overall_system_usage),
        cmocka_unit_test(test_no_inputs),
        cmocka_unit_test(test_reader_order),
        cmocka_unit_test(test_composer),
        cmocka_unit_test(test_writers_and_jobs),
        cmocka_unit_test(test_hostile_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
