/* test_steps_corpus.c - `dfscope steps` on ../shared/traces reproduces reference/training-loop.md
 * exactly: the TensorBoard plugin's step breakdown of the three Kineto ResNet-50 traces (§1.3,
 * both asserted tables and the computed span-2 table), the unified numbers of §1.4 and the
 * input-bound verdicts (nw0 yes, nw4 no), the smdebug merge_traces figures of §2, the Composer
 * table and verdicts of §3.3 and the DLIO 8-rank worked example of §4. Skips without the corpus. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util/numstat.h"

#include "analyze/steps/steps.h"

#define KINETO "kineto/resnet50-dataloader/"
#define NW0 KINETO "resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz"
#define NW4_SPAN1 KINETO "resnet50_num_workers_4__worker0.1623212756351.pt.trace.json.gz"
#define NW4_SPAN2 KINETO "resnet50_num_workers_4__worker0.1623213129365.pt.trace.json.gz"
#define US 1000

typedef struct fixture {
    dfs_run *run;
    dfs_steps *steps;
    const dfs_steps_result *r;
} fixture;

static const dfs_steps_result *analyse(fixture *f, const char *const *rel, size_t n)
{
    f->run = tu_run(2, 0, 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(dfs_run_add_path(f->run, tu_trace(rel[i])), DFS_OK);
    f->steps = dfs_steps_new(NULL, NULL, NULL);
    assert_non_null(f->steps);
    dfs_consumer *c[] = {dfs_steps_consumer(f->steps)};
    assert_int_equal(dfs_run_read(f->run, c, 1), DFS_EXIT_OK);
    f->r = dfs_steps_finish(f->steps, f->run);
    assert_non_null(f->r);
    return f->r;
}

static const dfs_steps_run *analyse_one(fixture *f, const char *rel)
{
    const dfs_steps_result *r = analyse(f, &rel, 1);
    assert_int_equal(r->nruns, 1);
    return &r->runs[0];
}

static void fixture_free(fixture *f)
{
    dfs_steps_free(f->steps);
    dfs_run_free(f->run);
}

static int64_t us(int64_t ns)
{
    assert_int_equal(ns % US, 0); /* µs traces give whole µs */
    return ns / US;
}

/* ---- §1.3: the TensorBoard plugin's breakdown ------------------------------------------------- */

/* step, total, Kernel, Memcpy, Memset, Runtime, DataLoader, CPU Exec, Other */
typedef int64_t tb_row[9];

static const dfs_tb_role tb_cols[] = {DFS_TB_KERNEL,  DFS_TB_MEMCPY,     DFS_TB_MEMSET,  DFS_TB_RUNTIME,
                                      DFS_TB_DATALOADER, DFS_TB_CPU_EXEC, DFS_TB_OTHER};

static void check_tb(const dfs_tb_result *tb, const tb_row *rows, const tb_row avg, const double *pct)
{
    assert_non_null(tb);
    assert_true(tb->device_shifted);
    assert_int_equal(tb->tail_removed, 0);
    assert_int_equal(tb->nsteps, 6);
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(tb->steps[i].number, rows[i][0]);
        assert_int_equal(us(tb->steps[i].total), rows[i][1]);
        for (size_t c = 0; c < 7; c++)
            if (us(tb->steps[i].cost[tb_cols[c]]) != rows[i][c + 2])
                fail_msg("step %lld %s: %lld, expected %lld", (long long)rows[i][0], dfs_tb_role_name(tb_cols[c]),
                         (long long)us(tb->steps[i].cost[tb_cols[c]]), (long long)rows[i][c + 2]);
    }
    assert_true(tb->avg_total == (double)avg[1]);
    for (size_t c = 0; c < 7; c++) {
        if (tb->avg[tb_cols[c]] != (double)avg[c + 2] || tb->pct[tb_cols[c]] != pct[c])
            fail_msg("average %s: %.0f (%.2f %%), expected %lld (%.2f %%)", dfs_tb_role_name(tb_cols[c]),
                     tb->avg[tb_cols[c]], tb->pct[tb_cols[c]], (long long)avg[c + 2], pct[c]);
        assert_true(tb->shown[tb_cols[c]]);
    }
    assert_false(tb->shown[DFS_TB_COMMUNICATION]); /* no collectives: no column */
}

static void check_tb_nw0(const dfs_steps_run *r)
{
    static const tb_row rows[] = {
        {5, 187948, 98598, 1941, 90, 2796, 69317, 14091, 1115}, {6, 175153, 98570, 1947, 89, 2762, 57669, 12968, 1148},
        {7, 179733, 98596, 1931, 91, 2877, 61257, 13768, 1213}, {8, 174564, 98623, 1938, 89, 2841, 56453, 13420, 1200},
        {9, 182172, 98504, 1937, 87, 2788, 62690, 15025, 1141}, {10, 165983, 98641, 1798, 88, 3381, 48185, 12773, 1117},
    };
    static const tb_row avg = {0, 177592, 98589, 1915, 89, 2908, 59262, 13674, 1156};
    static const double pct[] = {55.51, 1.08, 0.05, 1.64, 33.37, 7.7, 0.65};
    check_tb(r->tensorboard, rows, avg, pct);
    assert_true(r->tensorboard->input_hint); /* "33.4% of the step time is in DataLoader" */
    assert_true(dfs_py_round(r->tensorboard->pct[DFS_TB_DATALOADER], 1) == 33.4);
    assert_true(r->tensorboard->gpu_utilization == 55.51);
    assert_true(dfs_py_round(100.0 * (double)us(r->tensorboard->steps[0].cost[DFS_TB_KERNEL]) / 187948, 2) ==
                52.46); /* the tooltip of step 5's Kernel */
}

static void test_tb_nw4_span1(void **state)
{
    (void)state;
    static const tb_row rows[] = {
        {5, 182306, 99778, 3606, 98, 41028, 4341, 27460, 5995}, {6, 126183, 99208, 2948, 98, 3406, 0, 16404, 4119},
        {7, 127181, 99114, 2949, 98, 3417, 6, 19521, 2076},     {8, 123079, 99021, 2975, 97, 3544, 0, 15464, 1978},
        {9, 163461, 98791, 3596, 97, 8275, 1370, 43905, 7427},  {10, 124198, 98956, 2885, 98, 3714, 1400, 13235, 3910},
    };
    static const tb_row avg = {0, 141068, 99145, 3160, 98, 10564, 1186, 22665, 4251};
    static const double pct[] = {70.28, 2.24, 0.07, 7.49, 0.84, 16.07, 3.01};
    fixture f = {0};
    const dfs_steps_run *r = analyse_one(&f, NW4_SPAN1);
    check_tb(r->tensorboard, rows, avg, pct);
    assert_false(r->tensorboard->input_hint); /* 0.84 % <= 5 % */
    assert_false(r->input_bound);
    fixture_free(&f);
}

static void check_tb_nw4_span2(const dfs_steps_run *r)
{
    static const tb_row rows[] = {
        {16, 170134, 99384, 2866, 98, 46518, 1716, 14941, 4611}, {17, 122520, 99116, 2887, 98, 3807, 11, 14889, 1712},
        {18, 123217, 98770, 2877, 99, 3558, 11, 16501, 1401},    {19, 118625, 98901, 2832, 97, 3326, 6, 12301, 1162},
        {20, 119738, 99162, 2855, 97, 2816, 7, 12858, 1943},     {21, 202617, 98930, 2991, 98, 3460, 0, 14389, 82749},
    };
    static const tb_row avg = {0, 142808, 99044, 2885, 98, 10581, 292, 14313, 15596};
    static const double pct[] = {69.35, 2.02, 0.07, 7.41, 0.2, 10.02, 10.92};
    check_tb(r->tensorboard, rows, avg, pct);
    assert_false(r->tensorboard->input_hint);
}

/* ---- §1.4: the unified model ---------------------------------------------------------------- */

/* step, step_time, data_wait, exposed_data_wait, compute_dev, transfer, compute_host */
typedef int64_t unified_row[7];

static const dfs_step_metric unified_cols[] = {DFS_SM_STEP_TIME,   DFS_SM_DATA_WAIT, DFS_SM_EXPOSED_WAIT,
                                               DFS_SM_COMPUTE_DEV, DFS_SM_TRANSFER,  DFS_SM_COMPUTE_HOST};

static void check_unified(const dfs_steps_run *r, const unified_row *rows, const unified_row sum)
{
    assert_int_equal(r->source, DFS_CSRC_KINETO);
    assert_int_equal(r->nsteps, 6);
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(r->steps[i].number, rows[i][0]);
        for (size_t c = 0; c < 6; c++)
            if (us(r->steps[i].m[unified_cols[c]]) != rows[i][c + 1])
                fail_msg("step %lld %s: %lld, expected %lld", (long long)rows[i][0],
                         dfs_step_metric_name(unified_cols[c]), (long long)us(r->steps[i].m[unified_cols[c]]),
                         (long long)rows[i][c + 1]);
    }
    for (size_t c = 0; c < 6; c++)
        assert_int_equal(us(r->all.sum[unified_cols[c]]), sum[c + 1]);
    assert_int_equal(r->steps[0].flags, DFS_STEP_WARMUP);
    assert_int_equal(r->steps[5].flags, DFS_STEP_LAST);
    assert_int_equal(r->all.sum[DFS_SM_IO], DFS_STEPS_NA); /* I/O: unavailable in Kineto */
    assert_int_equal(r->verdicts[DFS_V_STORAGE_BOUND].state, DFS_VERDICT_UNAVAILABLE);
    assert_int_equal(r->verdicts[DFS_V_COMPOSER].state, DFS_VERDICT_NOT_EVALUATED); /* 6 < 10 */
}

/* §1.3 and §1.4 of the num_workers=0 file */
static void test_unified_nw0(void **state)
{
    (void)state;
    static const unified_row rows[] = {
        {5, 176078, 68694, 68694, 87356, 2026, 64541},  {6, 173992, 68777, 57664, 97414, 2036, 62419},
        {7, 176918, 73418, 61218, 95822, 2021, 62127},  {8, 181259, 71425, 56522, 105246, 2030, 64630},
        {9, 176468, 70844, 62634, 92859, 2021, 63407},  {10, 164261, 62633, 48839, 96925, 1886, 60694},
    };
    static const unified_row sum = {0, 1048976, 415791, 355571, 575622, 12020, 377818};
    fixture f = {0};
    const dfs_steps_run *r = analyse_one(&f, NW0);
    check_tb_nw0(r); /* one reading for both views */
    check_unified(r, rows, sum);
    /* over all six steps, as the plugin counts them: 33.90 % exposed */
    assert_true(dfs_py_round(100.0 * 355571 / 1048976, 2) == 33.90);
    /* the project's default: first and last excluded */
    assert_int_equal(r->counted.steps, 4);
    assert_int_equal(us(r->counted.sum[DFS_SM_DATA_WAIT]), 284464);
    assert_int_equal(us(r->counted.sum[DFS_SM_STEP_TIME]), 708637);
    assert_int_equal(us(r->counted.sum[DFS_SM_EXPOSED_WAIT]), 238038);
    assert_true(dfs_py_round(100 * r->data_wait_fraction, 2) == 40.14);
    assert_true(dfs_py_round(100 * r->verdicts[DFS_V_INPUT_BOUND].value, 2) == 33.59);
    assert_true(r->input_bound);
    assert_int_equal(r->verdicts[DFS_V_INPUT_BOUND].state, DFS_VERDICT_YES);
    /* the evidence behind the remedies: num_workers = 0 and pageable copies */
    assert_true(r->counts.single_process_loader);
    assert_int_equal(r->counts.pageable_h2d, 12);
    assert_int_equal(r->counts.pinned_h2d, 0);
    bool pin = false, workers = false;
    for (size_t i = 0; i < r->nremedies; i++) {
        pin |= strstr(r->remedies[i], "pin_memory") != NULL;
        workers |= strstr(r->remedies[i], "num_workers=0") != NULL;
    }
    assert_true(pin && workers);
    fixture_free(&f);
}

/* §1.3 (computed) and §1.4 of the num_workers=4 span-2 file */
static void test_unified_nw4(void **state)
{
    (void)state;
    static const unified_row rows[] = {
        {16, 160076, 1703, 1703, 89955, 2960, 111476}, {17, 121940, 1411, 13, 98536, 2985, 71799},
        {18, 123110, 1347, 11, 98661, 2976, 74713},    {19, 117820, 1355, 11, 98100, 2929, 71585},
        {20, 127064, 1371, 6, 106420, 2955, 73219},    {21, 206514, 1353, 7, 102264, 3090, 65936},
    };
    static const unified_row sum = {0, 856524, 8540, 1751, 593936, 17895, 468728};
    fixture f = {0};
    const dfs_steps_run *r = analyse_one(&f, NW4_SPAN2);
    check_tb_nw4_span2(r);
    check_unified(r, rows, sum);
    assert_int_equal(us(r->counted.sum[DFS_SM_DATA_WAIT]), 5484);
    assert_int_equal(us(r->counted.sum[DFS_SM_STEP_TIME]), 489934);
    assert_int_equal(us(r->counted.sum[DFS_SM_EXPOSED_WAIT]), 41);
    assert_true(dfs_py_round(100 * r->data_wait_fraction, 2) == 1.12);
    assert_true(dfs_py_round(100 * r->verdicts[DFS_V_INPUT_BOUND].value, 4) == 0.0084);
    assert_false(r->input_bound);
    assert_int_equal(r->verdicts[DFS_V_INPUT_BOUND].state, DFS_VERDICT_NO);
    assert_int_equal(r->nremedies, 0);
    /* Σ exposed equals the plugin's Σ DataLoader: 1716 + 11 + 11 + 6 + 7 + 0 */
    assert_int_equal(us(r->all.sum[DFS_SM_EXPOSED_WAIT]), 1751);
    fixture_free(&f);
}

/* ---- §2: smdebug merge_traces ---------------------------------------------------------------- */

static double median_of_mode(const dfs_steps_run *r, dfs_step_mode mode, int64_t from_number)
{
    double v[64];
    size_t n = 0;
    for (size_t i = 0; i < r->nsteps && n < 64; i++)
        if (r->steps[i].mode == mode && r->steps[i].number >= from_number)
            v[n++] = (double)r->steps[i].m[DFS_SM_STEP_TIME] / US;
    return dfs_median_inplace(v, n);
}

static const dfs_step *step_of(const dfs_steps_run *r, dfs_step_mode mode, int64_t number)
{
    for (size_t i = 0; i < r->nsteps; i++)
        if (r->steps[i].mode == mode && r->steps[i].number == number)
            return &r->steps[i];
    fail_msg("no step %lld", (long long)number);
    return NULL;
}

static void test_smdebug_merge_traces(void **state)
{
    (void)state;
    fixture f = {0};
    const dfs_steps_run *r =
        analyse_one(&f, "smdebug/tests/profiler/resources/merge_traces/framework/pevents/2020071317");
    assert_string_equal(r->name, "905-b88ab1bb8259");
    assert_int_equal(r->strategy, DFS_STRAT_SPAN);
    assert_int_equal(r->loop_pid, 905);
    assert_int_equal(r->nsteps, 40);
    assert_int_equal(r->nmodes, 2);
    assert_int_equal(r->modes[0].all.steps, 30);
    assert_int_equal(r->modes[1].all.steps, 10);
    assert_int_equal(us(step_of(r, DFS_MODE_TRAIN, 0)->m[DFS_SM_STEP_TIME]), 9020725);
    assert_true(median_of_mode(r, DFS_MODE_TRAIN, 1) == 84231);
    assert_int_equal(us(step_of(r, DFS_MODE_EVAL, 0)->m[DFS_SM_STEP_TIME]), 2841712);
    assert_true(median_of_mode(r, DFS_MODE_EVAL, 1) == 162014);
    int64_t lo = INT64_MAX, hi = 0;
    for (int64_t k = 1; k <= 29; k++) {
        int64_t t = us(step_of(r, DFS_MODE_TRAIN, k)->m[DFS_SM_STEP_TIME]);
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
    }
    assert_int_equal(lo, 83633);
    assert_int_equal(hi, 87137);
    /* one DoCompute (the data wait) per step: 1969 in TRAIN step 0, then 24-65 */
    for (size_t i = 0; i < r->nsteps; i++)
        assert_true(r->steps[i].has_wait);
    assert_int_equal(us(step_of(r, DFS_MODE_TRAIN, 0)->m[DFS_SM_DATA_WAIT]), 1969);
    /* TRAIN steps 1-29 (the counted ones): 916 / 2,444,858 = 0.0375 % */
    assert_int_equal(r->modes[0].counted.steps, 29);
    assert_int_equal(us(r->modes[0].counted.sum[DFS_SM_DATA_WAIT]), 916);
    assert_int_equal(us(r->modes[0].counted.sum[DFS_SM_STEP_TIME]), 2444858);
    assert_false(r->input_bound);
    /* batch time on the 40 DoCompute starts: 39 gaps, median 85,156 µs, three outliers */
    const dfs_steps_verdict *b = &r->verdicts[DFS_V_SLOW_BATCHES];
    assert_int_equal(b->datapoints, 39);
    assert_true(b->reference == 85156e3);
    assert_int_equal(b->nitems, 3);
    static const int64_t gaps[] = {2608205, 2085947, 1354669};
    static const int64_t from[] = {1594662614814909, 1594662621170725, 1594662619816056};
    for (size_t i = 0; i < 3; i++) {
        assert_true(b->items[i].value == (double)gaps[i] * US);
        assert_int_equal(us(b->items[i].start), from[i]);
    }
    /* DoCompute durations: median 32, at least 2 x that 5332, 1969 and 65 µs; the 65 µs one is under
     * the 1 ms floor (a ratio of tiny waits is no slowness) */
    const dfs_steps_verdict *w = &r->verdicts[DFS_V_SLOW_FETCHES];
    assert_true(w->reference == 32e3);
    assert_true(w->threshold == 1e6);
    assert_int_equal(w->nitems, 2);
    assert_true(w->items[0].value == 5332e3 && w->items[1].value == 1969e3);
    /* StepOutlier: not evaluated (<= 100 per mode); mean + 3 sigma of the 30 TRAIN steps */
    const dfs_steps_verdict *o = &r->verdicts[DFS_V_STEP_OUTLIERS];
    assert_int_equal(o->state, DFS_VERDICT_NOT_EVALUATED);
    assert_int_equal(o->datapoints, 30);
    assert_true(fabs(o->threshold / US - 5194595.6) < 0.05);
    assert_int_equal(o->nitems, 1);
    assert_int_equal(o->items[0].step, 0);
    assert_int_equal(r->verdicts[DFS_V_STORAGE_BOUND].state, DFS_VERDICT_UNAVAILABLE);
    fixture_free(&f);
}

/* ---- §3.3: Composer ---------------------------------------------------------------------------- */

static void test_composer(void **state)
{
    (void)state;
    const char *rel[] = {"composer/ep0-ba5-rank0.synthetic.json", "composer/ep0-ba5-rank1.synthetic.json"};
    fixture f = {0};
    const dfs_steps_result *res = analyse(&f, rel, 2);
    assert_int_equal(res->nruns, 2);
    static const int64_t window[3][2] = {{100, 12300}, {12320, 48720}, {48740, 60940}};
    static const int64_t wait[3] = {800, 25000, 800};
    for (size_t k = 0; k < 2; k++) {
        const dfs_steps_run *r = &res->runs[k];
        assert_int_equal(r->source, DFS_CSRC_COMPOSER);
        assert_int_equal(r->rank, (int64_t)k);
        assert_int_equal(r->nsteps, 3);
        for (size_t i = 0; i < 3; i++) {
            const dfs_step *s = &r->steps[i];
            assert_int_equal(s->number, (int64_t)i + 2);
            if (k == 0) {
                assert_int_equal(us(s->start) - 1714000000000000, window[i][0]);
                assert_int_equal(us(s->end) - 1714000000000000, window[i][1]);
            }
            assert_int_equal(us(s->m[DFS_SM_STEP_TIME]), window[i][1] - window[i][0]);
            assert_int_equal(us(s->m[DFS_SM_DATA_WAIT]), wait[i]);
            assert_int_equal(us(s->m[DFS_SM_EXPOSED_WAIT]), wait[i]); /* the kernel overlaps no wait */
            assert_int_equal(us(s->m[DFS_SM_COMPUTE_HOST]), 11300);
            assert_int_equal(us(s->m[DFS_SM_EX_OTHER]), 100);
        }
        assert_int_equal(us(r->all.sum[DFS_SM_STEP_TIME]), 60800);
        assert_int_equal(us(r->all.sum[DFS_SM_DATA_WAIT]), 26600); /* 43.75 % */
        assert_int_equal(us(r->all.sum[DFS_SM_COMPUTE_HOST]), 33900);
        assert_int_equal(us(r->all.sum[DFS_SM_EX_OTHER]), 300);
        /* Composer PR #1374: 3 < 10 datapoints; otherwise "adding 8.867ms", 77.78 % of 11,400 */
        const dfs_steps_verdict *c = &r->verdicts[DFS_V_COMPOSER];
        assert_int_equal(c->state, DFS_VERDICT_NOT_EVALUATED);
        assert_int_equal(c->datapoints, 3);
        assert_true(dfs_py_round(c->value / 1e6, 3) == 8.867);
        assert_true(c->reference == 11400e3);
        assert_true(dfs_py_round(100 * c->value / c->reference, 2) == 77.78);
        assert_non_null(strstr(c->evidence, "not evaluated"));
        /* smdebug-style: batch 3's wait is slow (>= 1,600); gaps 12,220 and 36,420: no slow batch */
        const dfs_steps_verdict *sf = &r->verdicts[DFS_V_SLOW_FETCHES];
        assert_int_equal(sf->nitems, 1);
        assert_int_equal(sf->items[0].step, 3);
        assert_true(sf->reference == 800e3);
        const dfs_steps_verdict *sb = &r->verdicts[DFS_V_SLOW_BATCHES];
        assert_int_equal(sb->state, DFS_VERDICT_NO);
        assert_true(sb->reference == 24320e3);
        /* with the flagged first and last batches excluded only batch 3 remains: 68.68 % */
        assert_int_equal(r->counted.steps, 1);
        assert_true(dfs_py_round(100 * r->data_wait_fraction, 2) == 68.68);
        assert_true(r->input_bound);
    }
    fixture_free(&f);
}

/* Composer's merged file holds both ranks (pid = rank): two runs, each as its rank file. */
static void test_composer_merged(void **state)
{
    (void)state;
    const char *rel = "composer/merged_trace.from_synthetic.json";
    fixture f = {0};
    const dfs_steps_result *res = analyse(&f, &rel, 1);
    assert_int_equal(res->nruns, 2);
    for (size_t k = 0; k < 2; k++) {
        const dfs_steps_run *r = &res->runs[k];
        char name[64];
        snprintf(name, sizeof name, "merged_trace.from_synthetic.json [rank %zu]", k);
        assert_string_equal(r->name, name);
        assert_int_equal(r->rank, (int64_t)k);
        assert_int_equal(r->nsteps, 3);
        assert_int_equal(r->counts.other_lanes, 0);
        assert_int_equal(us(r->all.sum[DFS_SM_STEP_TIME]), 60800);
        assert_int_equal(us(r->all.sum[DFS_SM_DATA_WAIT]), 26600);
        assert_int_equal(us(r->steps[0].m[DFS_SM_COMPUTE_DEV]), 80); /* its own rank's kernel only */
    }
    fixture_free(&f);
}

/* ---- §4: DLIO unet3d, 8 ranks ------------------------------------------------------------------ */

static void test_dlio_8rank(void **state)
{
    (void)state;
    const char *rel = "dftracer/dlio-unet3d-hdf5-8rank";
    fixture f = {0};
    const dfs_steps_result *res = analyse(&f, &rel, 1);
    assert_int_equal(res->nruns, 8);
    const dfs_steps_run *r0 = NULL;
    for (size_t i = 0; i < res->nruns; i++) {
        const dfs_steps_run *r = &res->runs[i];
        assert_int_equal(r->strategy, DFS_STRAT_COMPUTE_ANCHORS);
        assert_int_equal(r->nsteps, 25);
        assert_int_equal(r->nepochs, 5);
        assert_true(r->input_bound);
        assert_int_equal(r->verdicts[DFS_V_STORAGE_BOUND].state, DFS_VERDICT_YES);
        if (r->rank == 0)
            r0 = r;
    }
    assert_non_null(r0);
    assert_string_equal(r0->name, "trace-0-of-8.pfw");
    static const int64_t epochs[5][5] = {
        /* _train duration, gap-based wait, sum of loop.iter, POSIX/STDIO inside the waits */
        {15773289, 8850595, 6828832, 7537690},
        {10311954, 3458855, 2756363, 2590667},
        {9624433, 2782491, 2157432, 1995930},
        {9600694, 2767642, 2144426, 1998159},
        {9625384, 2782668, 2155594, 1999135},
    };
    for (size_t e = 0; e < 5; e++) {
        const dfs_steps_epoch *ep = &r0->epochs[e];
        assert_int_equal(ep->epoch, (int64_t)e + 1);
        assert_int_equal(ep->steps, 5);
        assert_int_equal(us(ep->end - ep->start), epochs[e][0]);
        assert_int_equal(us(ep->data_wait), epochs[e][1]);
        assert_int_equal(us(ep->marked_wait), epochs[e][2]);
        assert_int_equal(us(ep->io_in_wait), epochs[e][3]);
        assert_int_equal(ep->lead, 0);
    }
    /* all ranks: _train 439,442,298 = compute 272,355,584 + wait 165,108,360 + tail 1,978,354 */
    assert_int_equal(us(res->epoch_window), 439442298);
    assert_int_equal(us(res->total.sum[DFS_SM_COMPUTE_HOST]), 272355584);
    assert_int_equal(us(res->total.sum[DFS_SM_DATA_WAIT]), 165108360);
    assert_int_equal(us(res->epoch_tail), 1978354);
    assert_int_equal(us(res->marked_wait), 126178714);
    assert_int_equal(us(res->total.sum[DFS_SM_IO_IN_WAIT]), 128962944); /* 78.1 % of the wait */
    assert_true(dfs_py_round(100.0 * 128962944 / 165108360, 1) == 78.1);
    assert_true(res->any_input_bound);
    fixture_free(&f);
}

int main(void)
{
    tu_require_corpus();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tb_nw4_span1),    cmocka_unit_test(test_unified_nw0),
        cmocka_unit_test(test_unified_nw4),     cmocka_unit_test(test_smdebug_merge_traces),
        cmocka_unit_test(test_composer),        cmocka_unit_test(test_composer_merged),
        cmocka_unit_test(test_dlio_8rank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
