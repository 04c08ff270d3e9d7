/* test_steps.c - the concepts (src/analyze/common/concepts.c) and `dfscope steps` as a library
 * (src/analyze/steps*.c, src/output/steps_report.c) on hand-built traces: every source's step
 * windows and pairing rules, the unified metrics, the TensorBoard breakdown (device shift, step-0
 * rule, tail rule, priorities, rounding), every verdict and threshold, the fallbacks, robustness
 * counts, unavailable concepts, empty and zero cases, and determinism over -j. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util/numstat.h"

#include "analyze/common/concepts.h"
#include "analyze/steps/steps.h"
#include "output/steps_report.h"

#define US 1000 /* ns per µs: the traces below are in µs */

/* ---- building traces --------------------------------------------------------------------------- */

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->n + (size_t)n + 1 > t->cap) {
        t->cap = (t->n + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->n += (size_t)n;
}

typedef struct fixture {
    dfs_run *run;
    dfs_steps *steps;
    const dfs_steps_result *r;
} fixture;

/* Reads the paths (already written) with the steps consumer. */
static const dfs_steps_result *analyse_paths(fixture *f, const char *const *paths, size_t n,
                                             const dfs_steps_options *o, int jobs, uint64_t chunk)
{
    f->run = tu_run(jobs, chunk, 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(dfs_run_add_path(f->run, paths[i]), DFS_OK);
    dfs_pred_error err;
    f->steps = dfs_steps_new(o, &err, NULL);
    assert_non_null(f->steps);
    dfs_consumer *c[] = {dfs_steps_consumer(f->steps)};
    dfs_run_read(f->run, c, 1);
    f->r = dfs_steps_finish(f->steps, f->run);
    assert_non_null(f->r);
    return f->r;
}

static const dfs_steps_result *analyse(fixture *f, const text *t, const char *suffix, const dfs_steps_options *o)
{
    const char *p = tu_temp_file(suffix, t->s, t->n);
    return analyse_paths(f, &p, 1, o, 1, 0);
}

static void fixture_free(fixture *f)
{
    dfs_steps_free(f->steps);
    dfs_run_free(f->run);
    memset(f, 0, sizeof *f);
}

static char *json_of(const fixture *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    dfs_steps_report_opts ro = {.head = 0};
    dfs_steps_write_json(m, f->run, f->r, &ro);
    fclose(m);
    return buf;
}

#define M(step, metric) ((step).m[DFS_SM_##metric] / US)

/* ---- the concepts ------------------------------------------------------------------------------ */

static void test_concept_defaults_parse(void **state)
{
    (void)state;
    for (int s = 0; s < DFS_CSRC_COUNT; s++)
        for (int k = 0; k < DFS_CONCEPT_COUNT; k++) {
            const char *t = dfs_concept_default((dfs_concept_source)s, (dfs_concept)k);
            dfs_pred_error err;
            dfs_pred *p = t ? dfs_pred_parse(t, &err) : NULL;
            if (t && !p)
                fail_msg("%s/%s: %s", dfs_concept_source_name((dfs_concept_source)s),
                         dfs_concept_name((dfs_concept)k), err.message);
            dfs_pred_free(p);
        }
    assert_null(dfs_concept_default(DFS_CSRC_GENERIC, DFS_CONCEPT_STEP));
    assert_null(dfs_concept_default(DFS_CSRC_KINETO, DFS_CONCEPT_IO));
    assert_null(dfs_concept_default(DFS_CSRC_COUNT, DFS_CONCEPT_STEP));
    dfs_concept k;
    assert_true(dfs_concept_from_name("data-wait", &k));
    assert_int_equal(k, DFS_CONCEPT_DATA_WAIT);
    assert_true(dfs_concept_from_name("compute_host", &k));
    assert_false(dfs_concept_from_name("compute", &k));
    assert_false(dfs_concept_from_name("data-wait-x", &k));
    assert_string_equal(dfs_event_class_name(DFS_EVCLASS_TRANSFER), "transfer");
    assert_int_equal(dfs_concept_source_of(DFS_DIALECT_DFTRACER_V2), DFS_CSRC_DFTRACER);
    assert_int_equal(dfs_concept_source_of(DFS_DIALECT_KINETO), DFS_CSRC_KINETO);
    assert_int_equal(dfs_concept_source_of(DFS_DIALECT_CHROME), DFS_CSRC_GENERIC);
}

static void test_concept_overrides(void **state)
{
    (void)state;
    dfs_concept_overrides ov = {0};
    ov.text[DFS_CONCEPT_IO] = "off";
    ov.text[DFS_CONCEPT_STEP] = "name == \"iteration\"";
    dfs_pred_error err;
    dfs_concepts *c = dfs_concepts_new(&ov, &err, NULL);
    assert_non_null(c);
    assert_false(dfs_concepts_available(c, DFS_CSRC_DFTRACER, DFS_CONCEPT_IO));
    assert_string_equal(dfs_concepts_text(c, DFS_CSRC_GENERIC, DFS_CONCEPT_STEP), "name == \"iteration\"");
    assert_string_equal(dfs_concepts_text(c, DFS_CSRC_KINETO, DFS_CONCEPT_STEP), "name == \"iteration\"");
    assert_true(dfs_concepts_need_proc_name(c, DFS_CSRC_SMDEBUG));
    assert_false(dfs_concepts_need_proc_name(c, DFS_CSRC_KINETO));
    dfs_concepts_free(c);

    dfs_concept bad = DFS_CONCEPT_COUNT;
    ov.text[DFS_CONCEPT_TRANSFER] = "name ==";
    assert_null(dfs_concepts_new(&ov, &err, &bad));
    assert_int_equal(bad, DFS_CONCEPT_TRANSFER);
    assert_true(strlen(err.message) > 0);
    ov.text[DFS_CONCEPT_TRANSFER] = "nosuchcolumn == 1";
    assert_null(dfs_concepts_new(&ov, &err, &bad));
}

/* Classification of single events through a run: one line per event of a Chrome array. */
static void test_concept_classify(void **state)
{
    (void)state;
    text t = {0};
    add(&t, "{\"traceEvents\": [\n"
            "{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"volta_gemm\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":5},\n"
            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":5},\n"
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2},\n"
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":2},\n"
            "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1},\n"
            "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pinned -> Device)\",\"pid\":0,\"tid\":7,\"ts\":3,\"dur\":1},\n"
            "{\"ph\":\"i\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":3,\"s\":\"t\"}\n"
            "]}\n");
    const char *p = tu_temp_file(".json", t.s, t.n);
    dfs_run *run = tu_run(1, 0, 0);
    assert_int_equal(dfs_run_add_path(run, p), DFS_OK);
    dfs_run_read(run, NULL, 0);
    assert_int_equal(dfs_run_file(run, 0)->dialect, DFS_DIALECT_KINETO);
    dfs_concepts *c = dfs_concepts_new(NULL, NULL, NULL);
    assert_non_null(c);
    const char *names[] = {"volta_gemm", "ncclKernel_AllReduce",
                           "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "aten::mm",
                           "cudaLaunchKernel", "Memcpy HtoD (Pinned -> Device)"};
    const char *cats[] = {"Kernel", "kernel", "cpu_op", "cpu_op", "cuda_runtime", "gpu_memcpy"};
    const dfs_event_class want[] = {DFS_EVCLASS_COMPUTE, DFS_EVCLASS_TRANSFER, DFS_EVCLASS_DATA_WAIT,
                                    DFS_EVCLASS_COMPUTE, DFS_EVCLASS_OTHER,    DFS_EVCLASS_TRANSFER};
    for (size_t i = 0; i < 6; i++) {
        dfs_event ev = {.name = dfs_str_find(run, names[i], strlen(names[i])),
                        .cat = dfs_str_find(run, cats[i], strlen(cats[i])),
                        .phase = DFS_PHASE_COMPLETE, .pid = 1, .tid = 1};
        assert_int_equal(dfs_concepts_classify(c, run, DFS_CSRC_KINETO, &ev), want[i]);
        ev.phase = DFS_PHASE_COUNTER;
        assert_int_equal(dfs_concepts_match(c, run, DFS_CSRC_KINETO, &ev), 0);
    }
    dfs_event rt = {.name = dfs_str_find(run, "cudaLaunchKernel", 16), .cat = dfs_str_find(run, "cuda_runtime", 12),
                    .phase = DFS_PHASE_COMPLETE};
    assert_int_equal(dfs_concepts_match(c, run, DFS_CSRC_KINETO, &rt), DFS_CONCEPT_BIT(DFS_CONCEPT_RUNTIME));
    assert_int_equal(dfs_concepts_match(c, run, DFS_CSRC_GENERIC, &rt), 0);
    assert_int_equal(dfs_event_class_of(DFS_CONCEPT_BIT(DFS_CONCEPT_DATA_WAIT) | DFS_CONCEPT_BIT(DFS_CONCEPT_STEP)),
                     DFS_EVCLASS_DATA_WAIT);
    assert_int_equal(dfs_event_class_of(DFS_CONCEPT_BIT(DFS_CONCEPT_IO) | DFS_CONCEPT_BIT(DFS_CONCEPT_COMPUTE_HOST)),
                     DFS_EVCLASS_IO);
    dfs_concepts_free(c);
    dfs_run_free(run);
    free(t.s);
}

/* ---- statistics ---------------------------------------------------------------------------------- */

static void test_statistics(void **state)
{
    (void)state;
    double a[] = {800, 25000, 800};
    assert_true(fabs(dfs_steps_pruned_mean(a, 3) - 26600.0 / 3) < 1e-9); /* MAD 0: every value */
    double b[] = {1, 2, 3, 4, 100};                                       /* MAD 1: 1 and 100 go */
    assert_true(fabs(dfs_steps_pruned_mean(b, 5) - 3) < 1e-12);
    assert_true(isnan(dfs_steps_pruned_mean(b, 0)));
    double c[] = {4, 1, 3, 2};
    assert_true(dfs_median_inplace(c, 4) == 2.5);
    double d[] = {5, 1, 3};
    assert_true(dfs_median_inplace(d, 3) == 3);
    assert_true(isnan(dfs_median_inplace(d, 0)));
    assert_true(dfs_py_round(2.5, 0) == 2);   /* half to even */
    assert_true(dfs_py_round(3.5, 0) == 4);
    assert_true(dfs_py_round(0.125, 2) == 0.12);
    assert_true(dfs_py_round(2.675, 2) == 2.67); /* 2.67499999... in binary */
    assert_true(dfs_py_round(33.3703, 1) == 33.4);
}

/* ---- Kineto ------------------------------------------------------------------------------------ */

static void kineto_x(text *t, const char *cat, const char *name, int pid, const char *tid, long ts, long dur,
                     const char *args)
{
    add(t, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":%d,\"tid\":\"%s\",\"ts\":%ld,\"dur\":%ld,\"args\":{%s}}",
        cat, name, pid, tid, ts, dur, args);
}

static void kineto_launch(text *t, long rts, long kts, long kdur, int corr, const char *devcat, const char *name)
{
    char a[64];
    snprintf(a, sizeof a, "\"correlation\":%d", corr);
    kineto_x(t, "Runtime", "cudaLaunchKernel", 1, "1", rts, 2, a);
    kineto_x(t, devcat, name, 0, "stream 7", kts, kdur, a);
}

/* Five host steps (100-wide, the last two short); device work as worked out in the comments of
 * test_kineto_tensorboard. The 2021 writer's capitalised categories. */
static text kineto_trace(void)
{
    text t = {0};
    add(&t, "{\"schemaVersion\":1,\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}}");
    for (int i = 1; i <= 5; i++) {
        char n[32];
        snprintf(n, sizeof n, "ProfilerStep#%d", i);
        long s = 100 * i, d = i <= 3 ? 100 : i == 4 ? 50 : 10;
        if (i == 5)
            s = 450;
        kineto_x(&t, "Operator", n, 1, "1", s, d, "");
    }
    const char *dl = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
    kineto_x(&t, "Operator", dl, 1, "1", 100, 40, "");
    kineto_x(&t, "Operator", dl, 1, "1", 200, 10, "");
    kineto_x(&t, "Operator", "aten::conv", 1, "1", 140, 50, "");
    kineto_x(&t, "Operator", "aten::conv", 1, "1", 210, 80, "");
    kineto_x(&t, "Operator", "aten::conv", 1, "1", 300, 90, "");
    kineto_x(&t, "Operator", "aten::conv", 1, "1", 400, 40, "");
    kineto_x(&t, "Operator", "autograd::backward", 1, "2", 150, 100, ""); /* another thread */
    kineto_launch(&t, 40, 50, 70, 99, "Kernel", "early_kernel");  /* launched outside every step */
    /* the launches of step 1 (150) and 2 (220) */
    kineto_x(&t, "Runtime", "cudaLaunchKernel", 1, "1", 150, 5, "\"correlation\":1");
    kineto_x(&t, "Kernel", "k1", 0, "stream 7", 160, 70, "\"correlation\":1");
    kineto_x(&t, "Runtime", "cudaLaunchKernel", 1, "1", 220, 5, "\"correlation\":2");
    kineto_x(&t, "Kernel", "k2", 0, "stream 7", 240, 80, "\"correlation\":2");
    kineto_x(&t, "Runtime", "cudaMemcpyAsync", 1, "1", 310, 5, "\"correlation\":3");
    kineto_x(&t, "Memcpy", "Memcpy HtoD (Pageable -> Device)", 0, "stream 7", 330, 10, "\"correlation\":3");
    kineto_x(&t, "Runtime", "cudaLaunchKernel", 1, "1", 320, 2, "\"correlation\":4");
    kineto_x(&t, "Kernel", "k4", 0, "stream 7", 350, 10, "\"correlation\":4");
    kineto_launch(&t, 410, 420, 5, 5, "Kernel", "k5");
    add(&t, "\n]}\n");
    return t;
}

static void test_kineto_unified(void **state)
{
    (void)state;
    text t = kineto_trace();
    fixture f = {0};
    const dfs_steps_result *r = analyse(&f, &t, ".json", NULL);
    assert_int_equal(r->nruns, 1);
    const dfs_steps_run *run = &r->runs[0];
    assert_int_equal(run->source, DFS_CSRC_KINETO);
    assert_int_equal(run->strategy, DFS_STRAT_SPAN);
    assert_int_equal(run->nsteps, 5);
    const dfs_step *s = run->steps;
    assert_int_equal(s[0].number, 1);
    assert_int_equal(s[4].number, 5);
    assert_int_equal(s[0].flags, DFS_STEP_WARMUP);
    assert_int_equal(s[4].flags, DFS_STEP_LAST);
    assert_int_equal(s[2].flags, 0);
    /* step 1 [100, 200): D [100,140); kernels [100,120) and [160,200); conv [140,190) */
    assert_int_equal(M(s[0], STEP_TIME), 100);
    assert_int_equal(M(s[0], DATA_WAIT), 40);
    assert_int_equal(M(s[0], EXPOSED_WAIT), 20);
    assert_int_equal(M(s[0], COMPUTE_DEV), 60);
    assert_int_equal(M(s[0], COMPUTE_HOST), 50); /* the other thread's operator is not the loop's */
    assert_int_equal(M(s[0], TRANSFER), 0);
    assert_int_equal(M(s[0], EX_COMPUTE_DEV), 60);
    assert_int_equal(M(s[0], EX_RUNTIME), 5);
    assert_int_equal(M(s[0], EX_DATA_WAIT), 20);
    assert_int_equal(M(s[0], EX_COMPUTE_HOST), 15);
    assert_int_equal(M(s[0], EX_OTHER), 0);
    assert_true(s[0].m[DFS_SM_IO] == DFS_STEPS_NA && s[0].m[DFS_SM_EX_IO] == DFS_STEPS_NA);
    assert_false(run->available[DFS_SM_IO]);
    /* step 2 [200, 300): the wait [200,210) hides under k1 */
    assert_int_equal(M(s[1], DATA_WAIT), 10);
    assert_int_equal(M(s[1], EXPOSED_WAIT), 0);
    assert_int_equal(M(s[1], COMPUTE_DEV), 90);
    assert_int_equal(M(s[1], COMPUTE_HOST), 80);
    /* step 3 [300, 400): the copy is a transfer */
    assert_int_equal(M(s[2], TRANSFER), 10);
    assert_int_equal(M(s[2], COMPUTE_DEV), 30);
    assert_false(s[2].has_wait);
    assert_int_equal(M(s[4], EX_OTHER), 10);
    for (size_t i = 0; i < 5; i++) { /* the exclusive parts sum to the step */
        int64_t sum = 0;
        for (int m = DFS_SM_EX_COMPUTE_DEV; m <= DFS_SM_EX_OTHER; m++)
            sum += s[i].m[m] == DFS_STEPS_NA ? 0 : s[i].m[m];
        assert_int_equal(sum, s[i].m[DFS_SM_STEP_TIME]);
    }
    /* counted: steps 2-4 */
    assert_int_equal(run->counted.steps, 3);
    assert_int_equal(run->counted.sum[DFS_SM_STEP_TIME] / US, 250);
    assert_int_equal(run->counted.sum[DFS_SM_DATA_WAIT] / US, 10);
    assert_false(run->input_bound);
    assert_true(fabs(run->data_wait_fraction - 0.04) < 1e-12);
    assert_int_equal(run->verdicts[DFS_V_STORAGE_BOUND].state, DFS_VERDICT_UNAVAILABLE);
    assert_int_equal(run->counts.pageable_h2d, 1);
    assert_true(run->counts.single_process_loader);
    /* unavailable concepts are null in JSON, not 0 */
    char *json = json_of(&f);
    assert_non_null(strstr(json, "\"schema\": \"dfscope-steps/1\""));
    assert_non_null(strstr(json, "\"io_ns\": null"));
    assert_non_null(strstr(json, "\"input_bound\": false"));
    free(json);
    fixture_free(&f);
    free(t.s);
}

static void test_kineto_tensorboard(void **state)
{
    (void)state;
    text t = kineto_trace();
    fixture f = {0};
    const dfs_steps_result *r = analyse(&f, &t, ".json", NULL);
    const dfs_tb_result *tb = r->runs[0].tensorboard;
    assert_non_null(tb);
    assert_true(tb->device_shifted);
    /* step 5 launched nothing (dropped first), then step 4's 1 device event < 0.8 x 2 */
    assert_int_equal(tb->tail_removed, 2);
    assert_int_equal(tb->nsteps, 3);
    /* step 1 starts at the end of the early kernel (120): launched by no step, ended before 160 */
    assert_int_equal(tb->steps[0].start / US, 120);
    assert_int_equal(tb->steps[0].end / US, 230);
    assert_int_equal(tb->steps[1].start / US, 230);
    assert_int_equal(tb->steps[1].end / US, 320);
    assert_int_equal(tb->steps[2].start / US, 320);
    assert_int_equal(tb->steps[2].end / US, 400);
    static const int64_t want[3][DFS_TB_ROLE_COUNT] = {
        /* Kernel Memcpy Memset Comm Runtime DataLoader CPU Other */
        {70, 0, 0, 0, 5, 20, 15, 0},
        {80, 0, 0, 0, 0, 0, 10, 0},
        {10, 10, 0, 0, 2, 0, 48, 10},
    };
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < DFS_TB_ROLE_COUNT; k++)
            if (tb->steps[i].cost[k] / US != want[i][k])
                fail_msg("step %d %s: %lld", i, dfs_tb_role_name((dfs_tb_role)k), (long long)tb->steps[i].cost[k]);
    assert_true(tb->avg_total == 93);      /* 280 / 3 */
    assert_true(tb->avg[DFS_TB_KERNEL] == 53);
    assert_true(tb->avg[DFS_TB_DATALOADER] == 7); /* 6.67 */
    assert_true(tb->pct[DFS_TB_KERNEL] == 57.14);
    assert_true(tb->pct[DFS_TB_DATALOADER] == 7.14);
    assert_true(tb->input_hint);
    assert_false(tb->comm_hint);
    assert_true(tb->shown[DFS_TB_KERNEL]);
    assert_false(tb->shown[DFS_TB_COMMUNICATION]);
    assert_true(tb->gpu_utilization == 57.14); /* 160 of 280 */
    fixture_free(&f);
    free(t.s);
}

/* Communication: kernels of an nccl:* operator (by External id) and the operator itself. Without
 * launches inside the steps the windows stay the host spans and no tail rule applies. */
static void test_kineto_communication(void **state)
{
    (void)state;
    text t = {0};
    add(&t, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#7\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100}");
    kineto_x(&t, "cpu_op", "nccl:all_reduce", 1, "1", 10, 20, "\"External id\":5");
    kineto_x(&t, "kernel", "ncclKernel_AllReduce_RING", 0, "stream 7", 40, 30, "\"external id\":5"); /* the kernels spelling */
    kineto_x(&t, "kernel", "gemm", 0, "stream 7", 60, 20, "\"External id\":6");
    kineto_x(&t, "python_function", "forward", 1, "1", 0, 100, "");
    add(&t, "\n]}\n");
    fixture f = {0};
    const dfs_steps_result *r = analyse(&f, &t, ".json", NULL);
    const dfs_tb_result *tb = r->runs[0].tensorboard;
    assert_false(tb->device_shifted);
    assert_int_equal(tb->nsteps, 1);
    assert_int_equal(tb->steps[0].number, 7);
    assert_int_equal(tb->steps[0].cost[DFS_TB_KERNEL] / US, 20);
    assert_int_equal(tb->steps[0].cost[DFS_TB_COMMUNICATION] / US, 40); /* [10,30) + [40,60) */
    assert_int_equal(tb->steps[0].cost[DFS_TB_CPU_EXEC] / US, 0);       /* python_function is not counted */
    assert_int_equal(tb->steps[0].cost[DFS_TB_OTHER] / US, 40);
    assert_true(tb->shown[DFS_TB_COMMUNICATION]);
    assert_true(tb->comm_hint);
    /* unified: the nccl kernel is a transfer, not device compute */
    const dfs_step *s = &r->runs[0].steps[0];
    assert_int_equal(M(*s, COMPUTE_DEV), 20);
    assert_int_equal(M(*s, TRANSFER), 50);
    assert_true(r->runs[0].counted_is_all); /* one step: warm-up and last, so every step counts */
    fixture_free(&f);
    free(t.s);
}

/* No ProfilerStep at all: the plugin makes one step over the host events; the project finds no
 * step and says so. */
static void test_kineto_without_steps(void **state)
{
    (void)state;
    text t = {0};
    add(&t, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":20}");
    kineto_x(&t, "cpu_op", "aten::mul", 1, "1", 50, 10, "");
    add(&t, "\n]}\n");
    fixture f = {0};
    const dfs_steps_result *r = analyse(&f, &t, ".json", NULL);
    const dfs_steps_run *run = &r->runs[0];
    assert_int_equal(run->nsteps, 0);
    assert_int_equal(run->strategy, DFS_STRAT_NONE);
    assert_int_equal(run->verdicts[DFS_V_INPUT_BOUND].state, DFS_VERDICT_NOT_EVALUATED);
    assert_false(run->input_bound);
    assert_true(isnan(run->data_wait_fraction));
    assert_true(run->nnotes > 0);
    assert_non_null(strstr(run->notes[0], "no steps"));
    assert_true(run->tensorboard->synthetic_step);
    assert_int_equal(run->tensorboard->nsteps, 1);
    assert_int_equal(run->tensorboard->steps[0].total / US, 50);
    assert_int_equal(run->tensorboard->steps[0].cost[DFS_TB_CPU_EXEC] / US, 30);
    assert_false(run->tensorboard->shown[DFS_TB_KERNEL]);
    fixture_free(&f);
    free(t.s);
}

/* ---- Composer ---------------------------------------------------------------------------------- */

static void composer_be(text *t, const char *name, const char *cat, char ph, long ts)
{
    add(t, ",\n{\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"%c\", \"ts\": %ld, \"pid\": 0, \"tid\": 7, \"args\": "
           "{\"epoch\": 0, \"batch\": 1}}",
        name, cat, ph, ts);
}

/* n batches; batch i waits waits[i] µs for its data, then runs 100 µs (forward 60). */
static text composer_trace(const long *waits, size_t n)
{
    text t = {0};
    add(&t, "[\n{\"name\": \"global_rank\", \"ph\": \"M\", \"ts\": 0, \"pid\": 0, \"tid\": 7, \"args\": {\"value\": 0}}");
    long ts = 1000;
    for (size_t i = 0; i < n; i++) {
        composer_be(&t, "event/dataloader", "", 'B', ts);
        composer_be(&t, "event/dataloader", "", 'E', ts + waits[i]);
        ts += waits[i] + 5;
        composer_be(&t, "event/batch", "", 'B', ts);
        composer_be(&t, "event/forward", "", 'B', ts + 10);
        composer_be(&t, "event/forward", "", 'E', ts + 70);
        composer_be(&t, "event/batch", "", 'E', ts + 100);
        ts += 110;
    }
    return t;
}

static void test_composer_pairing(void **state)
{
    (void)state;
    const long waits[] = {800, 25000, 800};
    text t = composer_trace(waits, 3);
    composer_be(&t, "event/batch", "", 'E', 90000);      /* an orphan E (the save batch) */
    composer_be(&t, "event/dataloader", "", 'B', 90100); /* never closed */
    add(&t, "\n]\n");
    fixture f = {0};
    const dfs_steps_result *r = analyse(&f, &t, ".json", NULL);
    const dfs_steps_run *run = &r->runs[0];
    assert_int_equal(run->source, DFS_CSRC_COMPOSER);
    assert_int_equal(run->strategy, DFS_STRAT_PAIRED);
    assert_int_equal(run->rank, 0);
    assert_int_equal(run->nsteps, 3);
    assert_int_equal(M(run->steps[0], STEP_TIME), 905);
    assert_int_equal(M(run->steps[1], DATA_WAIT), 25000);
    assert_int_equal(M(run->steps[1], COMPUTE_HOST), 60);
    assert_int_equal(M(run->steps[1], EX_OTHER), 45);
    assert_int_equal(run->steps[1].number, 1); /* args.batch, never the pairing key */
    assert_int_equal(run->counts.orphan_end, 1);
    assert_int_equal(run->counts.unterminated, 1);
    assert_false(run->available[DFS_SM_TRANSFER]);
    /* Composer's rule: 3 < 10 datapoints; pruned mean of [800, 25000, 800] keeps all three */
    const dfs_steps_verdict *v = &run->verdicts[DFS_V_COMPOSER];
    assert_int_equal(v->state, DFS_VERDICT_NOT_EVALUATED);
    assert_int_equal(v->datapoints, 3);
    assert_true(fabs(v->value - 26600e3 / 3) < 1e-6);
    assert_true(fabs(v->reference - 105e3) < 1e-6);
    /* smdebug's rules: batch 2's wait is slow; the gaps 915 and 25115 have median 13015 */
    assert_int_equal(run->verdicts[DFS_V_SLOW_FETCHES].state, DFS_VERDICT_YES);
    assert_int_equal(run->verdicts[DFS_V_SLOW_FETCHES].nitems, 1);
    assert_true(run->verdicts[DFS_V_SLOW_FETCHES].items[0].value == 25000e3);
    assert_int_equal(run->verdicts[DFS_V_SLOW_BATCHES].state, DFS_VERDICT_NO);
    assert_true(run->verdicts[DFS_V_SLOW_BATCHES].reference == 13015e3);
    assert_true(run->input_bound); /* the one counted step waits 25000 of 25105 */
    assert_true(run->nremedies >= 2);
    fixture_free(&f);
    free(t.s);
}

static void test_composer_rule(void **state)
{
    (void)state;
    long waits[12];
    for (int i = 0; i < 12; i++)
        waits[i] = i == 5 ? 50000 : 2000;
    text t = composer_trace(waits, 12);
    add(&t, "\n]\n");
    fixture f = {0};
    const dfs_steps_result *r = analyse(&f, &t, ".json", NULL);
    const dfs_steps_verdict *v = &r->runs[0].verdicts[DFS_V_COMPOSER];
    assert_int_equal(v->datapoints, 12);
    assert_true(fabs(v->value - 6000e3) < 1e-6); /* MAD 0: every wait */
    assert_int_equal(v->state, DFS_VERDICT_YES);
    fixture_free(&f);
    free(t.s);

    for (int i = 0; i < 12; i++) /* above 1 % of the batch time but not above 1 ms */
        waits[i] = 900;
    t = composer_trace(waits, 12);
    add(&t, "\n]\n");
    r = analyse(&f, &t, ".json", NULL);
    v = &r->runs[0].verdicts[DFS_V_COMPOSER];
    assert_int_equal(v->state, DFS_VERDICT_NO);
    assert_true(r->runs[0].input_bound); /* TensorBoard's rule disagrees: 900 of 1005 */
    fixture_free(&f);
    free(t.s);
}

/* Without data-loader markers the event/batch spans are the steps. */
static void test_composer_end_spans(void **state)
{
    (void)state;
    text t = {0};
    add(&t, "[\n{\"name\": \"global_rank\", \"ph\": \"M\", \"ts\": 0, \"pid\": 3, \"tid\": 7, \"args\": {\"value\": 3}}");
    for (int i = 0; i < 3; i++) {
        composer_be(&t, "event/batch", "", 'B', 100 * i);
        composer_be(&t, "event/batch", "", 'E', 100 * i + 50);
    }
    add(&t, "\n]\n");
    fixture f = {0};
    const dfs_steps_result *r = analyse(&f, &t, ".json", NULL);
    assert_int_equal(r->runs[0].strategy, DFS_STRAT_END_SPANS);
    assert_int_equal(r->runs[0].nsteps, 3);
    assert_int_equal(M(r->runs[0].steps[2], STEP_TIME), 50);
    assert_int_equal(M(r->runs[0].steps[2], DATA_WAIT), 0);
    assert_false(r->runs[0].steps[2].has_wait);
    assert_int_equal(r->runs[0].verdicts[DFS_V_SLOW_FETCHES].state, DFS_VERDICT_NOT_EVALUATED);
    fixture_free(&f);
    free(t.s);
}

/* ---- DFTracer ------------------------------------------------------------------------------------ */

static void dft(text *t, const char *name, const char *cat, int tid, long ts, long dur, const char *args)
{
    add(t, "{\"id\":1,\"name\":\"%s\",\"cat\":\"%s\",\"pid\":9,\"tid\":%d,\"ts\":%ld,\"dur\":%ld,\"ph\":\"X\","
           "\"args\":{\"level\":1%s%s}}\n",
        name, cat, tid, ts, dur, *args ? "," : "", args);
}

/* dft_ai: fetch.iter / fetch.block paired by args.count inside a pipeline epoch; the loop left by
 * break loses its last block. */
static void test_dft_ai(void **state)
{
    (void)state;
    text t = {0};
    add(&t, "[\n");
    dft(&t, "train", "pipeline", 9, 0, 10000, "");
    dft(&t, "epoch.block", "pipeline", 9, 900, 8000, "\"epoch\":4");
    dft(&t, "fetch.iter", "dataloader", 9, 1000, 500, "\"count\":1");
    dft(&t, "read", "POSIX", 12, 1100, 300, "");       /* a worker's read inside the wait */
    dft(&t, "read", "POSIX", 12, 2000, 100, "");       /* outside every wait */
    dft(&t, "fetch.block", "dataloader", 9, 1500, 2000, "\"count\":1");
    dft(&t, "compute", "compute", 9, 1600, 1800, "");
    dft(&t, "forward", "compute", 9, 1600, 800, "");    /* nested: one anchor */
    dft(&t, "fetch.iter", "dataloader", 9, 3500, 1500, "\"count\":2");
    dft(&t, "open", "STDIO", 9, 3600, 1000, "");
    dft(&t, "fetch.block", "dataloader", 9, 5000, 2000, "\"count\":2");
    dft(&t, "compute", "compute", 9, 5100, 1800, "");
    dft(&t, "all_reduce", "comm", 9, 6800, 150, "");
    dft(&t, "fetch.iter", "dataloader", 9, 7000, 100, "\"count\":3"); /* break: no block */
    add(&t, "]\n");
    fixture f = {0};
    const dfs_steps_result *r = analyse(&f, &t, ".pfw", NULL);
    const dfs_steps_run *run = &r->runs[0];
    assert_int_equal(run->source, DFS_CSRC_DFTRACER);
    assert_int_equal(run->strategy, DFS_STRAT_PAIRED);
    assert_int_equal(run->nsteps, 2);
    assert_int_equal(run->counts.unpaired_start, 1);
    const dfs_step *s = run->steps;
    assert_int_equal(s[0].number, 1);
    assert_int_equal(s[0].epoch, 4);
    assert_int_equal(s[0].start / US, 1000);
    assert_int_equal(M(s[0], STEP_TIME), 2500);
    assert_int_equal(M(s[0], DATA_WAIT), 500);
    assert_int_equal(M(s[0], IO), 400);
    assert_int_equal(M(s[0], IO_IN_WAIT), 300);
    assert_int_equal(M(s[0], COMPUTE_HOST), 1800);
    assert_int_equal(M(s[1], DATA_WAIT), 1500);
    assert_int_equal(M(s[1], IO_IN_WAIT), 1000);
    assert_int_equal(M(s[1], TRANSFER), 150);
    assert_int_equal(M(s[1], EX_TRANSFER), 150);
    assert_int_equal(M(s[1], EX_COMPUTE_HOST), 1700); /* the comm call hides 100 of it */
    assert_true(s[0].m[DFS_SM_COMPUTE_DEV] == DFS_STEPS_NA);
    /* the epoch: one leaf window [900, 8900) holding both steps */
    assert_int_equal(run->nepochs, 1);
    assert_int_equal(run->epochs[0].epoch, 4);
    assert_int_equal(run->epochs[0].steps, 2);
    assert_int_equal(run->epochs[0].lead / US, 100);
    assert_int_equal(run->epochs[0].tail / US, 1900);
    assert_int_equal(run->epochs[0].marked_wait / US, 2100); /* the third fetch.iter counts too */
    /* two steps: both flagged, so the verdicts use both (1300 of 2000 wait in I/O) */
    assert_true(run->counted_is_all);
    const dfs_steps_verdict *v = &run->verdicts[DFS_V_STORAGE_BOUND];
    assert_int_equal(v->state, DFS_VERDICT_YES);
    assert_true(fabs(v->value - 0.65) < 1e-12);
    assert_int_equal(v->nitems, 2);
    size_t n;
    assert_string_equal(dfs_str_get(f.run, v->items[0].name, &n), "open");
    assert_true(v->items[0].value == 1000e3 && v->items[0].count == 1);
    assert_true(v->items[1].value == 300e3);
    bool faster_storage = false;
    for (size_t i = 0; i < run->nremedies; i++)
        faster_storage |= strstr(run->remedies[i], "faster storage") != NULL;
    assert_true(faster_storage);
    fixture_free(&f);
    free(t.s);
}

/* Legacy DLIO: the loop markers miss each epoch's last batch, so the compute calls anchor. */
static void test_dlio_compute_anchors(void **state)
{
    (void)state;
    text t = {0};
    add(&t, "[\n");
    for (int e = 0; e < 2; e++) {
        long base = e * 10000;
        char ep[32];
        snprintf(ep, sizeof ep, "\"epoch\":\"%d\"", e + 1);
        dft(&t, "DLIOBenchmark._train", "dlio_benchmark", 9, base, 1000, ep);
        for (int k = 0; k < 3; k++) {
            long c = base + 100 + 200 * k;
            char st[32];
            snprintf(st, sizeof st, "\"step\":\"%d\"", k + 1);
            if (k < 2) {
                dft(&t, "loop.iter", "data_loader", 9, c - 90, 90, st);
                dft(&t, "loop.yield", "data_loader", 9, c, 150, st);
            }
            dft(&t, "TorchFramework.compute", "ai_framework", 9, c, 100, "");
        }
        dft(&t, "pread", "POSIX", 9, base + 20, 60, "");
    }
    add(&t, "]\n");
    fixture f = {0};
    const dfs_steps_result *r = analyse(&f, &t, ".pfw", NULL);
    const dfs_steps_run *run = &r->runs[0];
    assert_int_equal(run->strategy, DFS_STRAT_COMPUTE_ANCHORS);
    assert_int_equal(run->nsteps, 6);
    assert_int_equal(run->steps[0].start / US, 0);
    assert_int_equal(run->steps[0].end / US, 200);
    assert_int_equal(M(run->steps[0], DATA_WAIT), 100);
    assert_int_equal(M(run->steps[0], IO_IN_WAIT), 60);
    assert_int_equal(M(run->steps[1], DATA_WAIT), 100);
    assert_int_equal(M(run->steps[1], COMPUTE_HOST), 100);
    assert_int_equal(run->steps[3].epoch, 2);
    assert_int_equal(run->steps[3].flags, DFS_STEP_WARMUP);
    assert_int_equal(run->nepochs, 2);
    assert_int_equal(run->epochs[0].tail / US, 400);
    assert_int_equal(run->epochs[0].data_wait / US, 300);
    assert_int_equal(run->epochs[0].marked_wait / US, 180);
    assert_int_equal(run->epochs[0].compute_host / US, 300);
    assert_int_equal(r->epoch_window / US, 2000);
    assert_int_equal(r->epoch_tail / US, 800);
    assert_true(run->input_bound);
    assert_non_null(strstr(run->notes[0], "anchored on compute calls"));
    fixture_free(&f);
    free(t.s);
}

/* ---- smdebug ------------------------------------------------------------------------------------ */

static void test_smdebug_node(void **state)
{
    (void)state;
    text steps = {0}, waits = {0};
    add(&steps, "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"start_time_since_epoch_in_micros\": 1000000}},\n"
                "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"Step:ModeKeys.TRAIN\"}},\n"
                "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 2, \"args\": {\"name\": \"Step:ModeKeys.EVAL\"}}");
    for (int i = 0; i < 4; i++)
        add(&steps, ",\n{\"name\": \"Step:ModeKeys.TRAIN\", \"pid\": 1, \"ph\": \"X\", \"ts\": %d, \"dur\": 90, "
                    "\"args\": {\"pid\": 905, \"step_num\": \"%d\"}}",
            100 * i, i);
    add(&steps, ",\n{\"name\": \"Step:ModeKeys.EVAL\", \"pid\": 2, \"ph\": \"X\", \"ts\": 400, \"dur\": 90, "
                "\"args\": {\"pid\": 905, \"step_num\": \"0\"}}\n]\n");
    /* the waits in another file of the node, on a phase pid of their own */
    add(&waits, "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"start_time_since_epoch_in_micros\": 1000000}},\n"
                "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"DataIterator\"}},\n"
                "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 3, \"args\": {\"name\": \"Forward\"}}");
    for (int i = 0; i < 5; i++)
        add(&waits, ",\n{\"ph\": \"X\", \"name\": \"IteratorGetNextOp::DoCompute\", \"ts\": %d, \"pid\": 1, \"dur\": %d}",
            100 * i, i == 2 ? 30 : 5);
    add(&waits, ",\n{\"ph\": \"X\", \"name\": \"dataset::GetNext\", \"ts\": 5, \"pid\": 1, \"dur\": 40}");
    add(&waits, ",\n{\"ph\": \"X\", \"name\": \"conv\", \"ts\": 10, \"pid\": 3, \"dur\": 50}\n]\n");
    const char *paths[2];
    paths[0] = tu_temp_file("_nodeA_pythontimeline.json", steps.s, steps.n);
    paths[1] = tu_temp_file("_nodeA_model_timeline.json", waits.s, waits.n);
    fixture f = {0};
    dfs_steps_options o;
    dfs_steps_options_init(&o);
    o.outlier_floor_ns = 1; /* microsecond waits: the ratio alone decides */
    const dfs_steps_result *r = analyse_paths(&f, paths, 2, &o, 1, 0);
    assert_int_equal(r->nruns, 1);
    const dfs_steps_run *run = &r->runs[0];
    assert_string_equal(run->name, "nodeA");
    assert_int_equal(run->source, DFS_CSRC_SMDEBUG);
    assert_int_equal(run->loop_pid, 905);
    assert_int_equal(run->nsteps, 5);
    assert_int_equal(run->steps[4].mode, DFS_MODE_EVAL);
    assert_int_equal(run->steps[4].number, 0);
    assert_int_equal(run->steps[4].flags, DFS_STEP_WARMUP | DFS_STEP_LAST);
    assert_int_equal(M(run->steps[0], DATA_WAIT), 5);       /* DoCompute only, not dataset::GetNext */
    assert_int_equal(M(run->steps[0], COMPUTE_HOST), 50);   /* the Forward phase */
    assert_int_equal(M(run->steps[2], DATA_WAIT), 30);
    assert_int_equal(run->nmodes, 2);
    assert_int_equal(run->modes[0].mode, DFS_MODE_TRAIN);
    assert_int_equal(run->modes[0].counted.steps, 3);
    /* slow fetches: 30 >= 2 x the median 5 */
    assert_int_equal(run->verdicts[DFS_V_SLOW_FETCHES].nitems, 1);
    assert_int_equal(run->verdicts[DFS_V_SLOW_FETCHES].items[0].step, 2);
    /* step outliers: 4 train steps, not evaluated */
    assert_int_equal(run->verdicts[DFS_V_STEP_OUTLIERS].state, DFS_VERDICT_NOT_EVALUATED);
    assert_int_equal(run->verdicts[DFS_V_STEP_OUTLIERS].datapoints, 4);
    assert_int_equal(run->verdicts[DFS_V_STORAGE_BOUND].state, DFS_VERDICT_UNAVAILABLE);
    fixture_free(&f);
    /* by default a slow fetch is also at least 1 ms: the 30 µs wait is not one */
    fixture g = {0};
    r = analyse_paths(&g, paths, 2, NULL, 1, 0);
    assert_int_equal(r->runs[0].verdicts[DFS_V_SLOW_FETCHES].state, DFS_VERDICT_NO);
    assert_int_equal(r->runs[0].verdicts[DFS_V_SLOW_FETCHES].nitems, 0);
    assert_true(r->runs[0].verdicts[DFS_V_SLOW_FETCHES].threshold == 1e6);
    fixture_free(&g);
    free(steps.s);
    free(waits.s);
}

/* Without Step events the data-wait starts anchor the steps; nested waits give negative gaps
 * (smdebug sorts by end and differences starts) and count as overlapping. */
static void test_smdebug_wait_anchors(void **state)
{
    (void)state;
    text t = {0};
    add(&t, "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"start_time_since_epoch_in_micros\": 0}}");
    const long starts[] = {0, 100, 200, 300, 320};
    const long durs[] = {10, 10, 50, 10, 5};
    for (int i = 0; i < 5; i++)
        add(&t, ",\n{\"ph\": \"X\", \"name\": \"_MultiProcessingDataLoaderIter::GetNext\", \"ts\": %ld, \"pid\": 4, \"dur\": %ld}",
            starts[i], durs[i]);
    add(&t, ",\n{\"ph\": \"X\", \"name\": \"_MultiProcessingDataLoaderIter::GetNext\", \"ts\": 210, \"pid\": 4, \"dur\": 5}\n]\n");
    fixture f = {0};
    const dfs_steps_result *r = analyse(&f, &t, "_n1_pythontimeline.json", NULL);
    const dfs_steps_run *run = &r->runs[0];
    assert_int_equal(run->strategy, DFS_STRAT_WAIT_ANCHORS);
    assert_int_equal(run->nsteps, 5); /* 6 starts */
    assert_int_equal(M(run->steps[0], STEP_TIME), 100);
    assert_int_equal(run->counts.overlapping_waits, 1);
    /* by end: 0,100,210(215),200(250),300,320 -> gaps 100,110,-10,100,20 */
    assert_int_equal(run->counts.negative_gaps, 1);
    assert_int_equal(run->verdicts[DFS_V_SLOW_BATCHES].datapoints, 5);
    assert_true(run->verdicts[DFS_V_SLOW_BATCHES].reference == 100e3);
    fixture_free(&f);
    free(t.s);
}

/* ---- generic traces, user predicates, thresholds, outliers ------------------------------------- */

static text generic_trace(size_t nsteps, long wait, long slow_every)
{
    text t = {0};
    add(&t, "[\n{\"ph\":\"X\",\"cat\":\"app\",\"name\":\"setup\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}");
    for (size_t i = 0; i < nsteps; i++) {
        long s = 1000 + (long)i * 1000, d = slow_every && i % (size_t)slow_every == 3 ? 900 : 100;
        add(&t, ",\n{\"ph\":\"X\",\"cat\":\"app\",\"name\":\"iteration\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":%ld}", s, d);
        add(&t, ",\n{\"ph\":\"X\",\"cat\":\"app\",\"name\":\"wait\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":%ld}", s, wait);
    }
    add(&t, "\n]\n");
    return t;
}

static void test_generic_needs_predicates(void **state)
{
    (void)state;
    text t = generic_trace(4, 5, 0);
    fixture f = {0};
    const dfs_steps_result *r = analyse(&f, &t, ".json", NULL);
    assert_int_equal(r->runs[0].source, DFS_CSRC_GENERIC);
    assert_int_equal(r->runs[0].nsteps, 0);
    assert_int_equal(r->runs[0].verdicts[DFS_V_INPUT_BOUND].state, DFS_VERDICT_UNAVAILABLE);
    assert_null(r->runs[0].tensorboard);
    fixture_free(&f);

    dfs_steps_options o;
    dfs_steps_options_init(&o);
    o.concepts.text[DFS_CONCEPT_STEP] = "name == \"iteration\"";
    o.concepts.text[DFS_CONCEPT_DATA_WAIT] = "name == \"wait\"";
    r = analyse(&f, &t, ".json", &o);
    const dfs_steps_run *run = &r->runs[0];
    assert_int_equal(run->nsteps, 4);
    assert_int_equal(M(run->steps[1], DATA_WAIT), 5);
    /* exactly 5 %: not above the threshold */
    assert_int_equal(run->verdicts[DFS_V_INPUT_BOUND].state, DFS_VERDICT_NO);
    assert_true(run->verdicts[DFS_V_INPUT_BOUND].value == 0.05);
    assert_false(run->available[DFS_SM_COMPUTE_HOST]);
    fixture_free(&f);

    o.wait_threshold = 0.0499;
    r = analyse(&f, &t, ".json", &o);
    assert_true(r->runs[0].input_bound);
    fixture_free(&f);

    o.include_flagged = true;
    r = analyse(&f, &t, ".json", &o);
    assert_int_equal(r->runs[0].counted.steps, 4);
    assert_true(r->runs[0].counted_is_all);
    fixture_free(&f);
    free(t.s);
}

/* StepOutlier: more than 100 steps per mode, > mean + 3 sigma, triggered beyond 10 outliers. */
static void test_step_outliers(void **state)
{
    (void)state;
    dfs_steps_options o;
    dfs_steps_options_init(&o);
    o.concepts.text[DFS_CONCEPT_STEP] = "name == \"iteration\"";
    fixture f = {0};
    text t = generic_trace(300, 1, 25); /* 12 slow steps of 300 */
    const dfs_steps_result *r = analyse(&f, &t, ".json", &o);
    const dfs_steps_verdict *v = &r->runs[0].verdicts[DFS_V_STEP_OUTLIERS];
    assert_int_equal(v->datapoints, 300);
    assert_int_equal(v->nitems, 12);
    assert_int_equal(v->state, DFS_VERDICT_YES);
    fixture_free(&f);
    free(t.s);

    t = generic_trace(300, 1, 30); /* 10 slow steps: listed, not triggered */
    r = analyse(&f, &t, ".json", &o);
    v = &r->runs[0].verdicts[DFS_V_STEP_OUTLIERS];
    assert_int_equal(v->nitems, 10);
    assert_int_equal(v->state, DFS_VERDICT_NO);
    fixture_free(&f);
    free(t.s);

    t = generic_trace(100, 1, 25); /* exactly 100: not evaluated */
    r = analyse(&f, &t, ".json", &o);
    assert_int_equal(r->runs[0].verdicts[DFS_V_STEP_OUTLIERS].state, DFS_VERDICT_NOT_EVALUATED);
    fixture_free(&f);
    free(t.s);
}

/* Zero-length steps and waits, an input with no events, a file that is not a trace. */
static void test_empty_and_zero(void **state)
{
    (void)state;
    dfs_steps_options o;
    dfs_steps_options_init(&o);
    o.concepts.text[DFS_CONCEPT_STEP] = "name == \"iteration\"";
    o.concepts.text[DFS_CONCEPT_DATA_WAIT] = "name == \"wait\"";
    text t = generic_trace(3, 0, 0);
    fixture f = {0};
    const dfs_steps_result *r = analyse(&f, &t, ".json", &o);
    assert_int_equal(r->runs[0].nsteps, 3);
    assert_true(r->runs[0].steps[1].has_wait); /* a zero-length wait is still a datapoint */
    assert_int_equal(r->runs[0].verdicts[DFS_V_SLOW_FETCHES].state, DFS_VERDICT_NO);
    assert_int_equal(r->runs[0].verdicts[DFS_V_INPUT_BOUND].state, DFS_VERDICT_NO);
    fixture_free(&f);
    free(t.s);

    text z = {0};
    add(&z, "[\n{\"ph\":\"X\",\"cat\":\"app\",\"name\":\"iteration\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":0}\n]\n");
    r = analyse(&f, &z, ".json", &o);
    assert_int_equal(r->runs[0].nsteps, 1);
    assert_int_equal(r->runs[0].steps[0].m[DFS_SM_STEP_TIME], 0);
    assert_int_equal(r->runs[0].verdicts[DFS_V_INPUT_BOUND].state, DFS_VERDICT_NOT_EVALUATED);
    fixture_free(&f);
    free(z.s);

    text e = {0};
    add(&e, "[\n]\n");
    r = analyse(&f, &e, ".json", NULL);
    assert_true(r->nruns <= 1);
    if (r->nruns)
        assert_int_equal(r->runs[0].nsteps, 0);
    assert_int_equal(r->total.steps, 0);
    fixture_free(&f);
    free(e.s);

    text junk = {0};
    add(&junk, "hello, this is not a trace\n");
    r = analyse(&f, &junk, ".txt", NULL);
    assert_int_equal(r->nruns, 0);
    char *json = json_of(&f);
    assert_non_null(strstr(json, "\"runs\": []"));
    free(json);
    fixture_free(&f);
    free(junk.s);
}

/* The same answer for one and two workers reading small pieces. */
static void test_jobs_deterministic(void **state)
{
    (void)state;
    text t = kineto_trace();
    const char *p = tu_temp_file(".json", t.s, t.n);
    fixture a = {0}, b = {0};
    analyse_paths(&a, &p, 1, NULL, 1, 0);
    analyse_paths(&b, &p, 1, NULL, 2, 512);
    char *ja = json_of(&a), *jb = json_of(&b);
    assert_string_equal(ja, jb);
    free(ja);
    free(jb);
    fixture_free(&a);
    fixture_free(&b);
    free(t.s);
}

/* The CSV has a header and one row per step; the tables print without crashing. */
static void test_report_formats(void **state)
{
    (void)state;
    text t = kineto_trace();
    fixture f = {0};
    analyse(&f, &t, ".json", NULL);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    dfs_steps_write_csv(m, f.r);
    fclose(m);
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    assert_int_equal(lines, 6);
    assert_true(strncmp(buf, "run,rank,source,step,", 21) == 0);
    assert_non_null(strstr(buf, ",kineto,1,train,,1,0,")); /* run 1: warm-up, no epoch */
    free(buf);
    m = open_memstream(&buf, &len);
    dfs_steps_report_opts ro = {.head = 2};
    dfs_steps_write_text(m, f.run, f.r, &ro);
    fclose(m);
    assert_non_null(strstr(buf, "TensorBoard plugin step breakdown"));
    assert_non_null(strstr(buf, "... 3 more steps"));
    free(buf);
    m = open_memstream(&buf, &len);
    dfs_steps_write_concepts(m, dfs_steps_concepts(f.steps));
    fclose(m);
    assert_non_null(strstr(buf, "ProfilerStep#"));
    assert_non_null(strstr(buf, "(unavailable)"));
    free(buf);
    fixture_free(&f);
    free(t.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concept_defaults_parse),
        cmocka_unit_test(test_concept_overrides),
        cmocka_unit_test(test_concept_classify),
        cmocka_unit_test(test_statistics),
        cmocka_unit_test(test_kineto_unified),
        cmocka_unit_test(test_kineto_tensorboard),
        cmocka_unit_test(test_kineto_communication),
        cmocka_unit_test(test_kineto_without_steps),
        cmocka_unit_test(test_composer_pairing),
        cmocka_unit_test(test_composer_rule),
        cmocka_unit_test(test_composer_end_spans),
        cmocka_unit_test(test_dft_ai),
        cmocka_unit_test(test_dlio_compute_anchors),
        cmocka_unit_test(test_smdebug_node),
        cmocka_unit_test(test_smdebug_wait_anchors),
        cmocka_unit_test(test_generic_needs_predicates),
        cmocka_unit_test(test_step_outliers),
        cmocka_unit_test(test_empty_and_zero),
        cmocka_unit_test(test_jobs_deterministic),
        cmocka_unit_test(test_report_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
