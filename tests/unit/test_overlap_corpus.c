/* test_overlap_corpus.c - `dfscope overlap` on the real traces against
 * reference/dlio-unet3d-hdf5-8rank.md §5 (exact process and global scopes, the G0 summary with
 * its approximate and "exact" modes, allocation, files, metrics by function), for any -j, cut
 * files and streaming budget; consistency with `dfscope analyze` (same totals per class); and
 * legacy-2023 (2023 format, a file given twice); Kineto clocks known only at the end of a file.
 * Skipped without the corpus. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/preset.h"
#include "analyze/common/preview.h"
#include "analyze/layered/layered.h"
#include "analyze/overlap/overlap.h"
#include "testutil.h"

#define DLIO "dftracer/dlio-unet3d-hdf5-8rank"
#define LEGACY "dftracer/legacy-2023"
#define US 1000

typedef struct cfg {
    const char *dir;
    const char *preset;
    const char *compute, *io, *app_io; /* instead of the preset's defaults */
    dfs_overlap_method method;
    dfs_overlap_scope scope;
    int64_t granularity_ns;
    int jobs;
    uint64_t chunk, hold;
    bool post_read, layer_classes;
} cfg;

typedef struct analysis {
    dfs_preset *preset;
    dfs_run *run;
    dfs_overlap *ov;
    const dfs_overlap_result *r;
    bool reran;
} analysis;

static bool pass(const cfg *c, const char *path, const dfs_overlap_options *o, analysis *an)
{
    char err[256];
    an->ov = dfs_overlap_new(o, err, sizeof err);
    if (!an->ov)
        fail_msg("%s", err);
    an->run = tu_run(c->jobs ? c->jobs : 1, c->chunk, 0);
    assert_int_equal(dfs_run_add_path(an->run, path), DFS_OK);
    dfs_consumer *cs[] = {dfs_overlap_consumer(an->ov)};
    int rc = dfs_run_read(an->run, cs, 1);
    assert_true(rc == DFS_EXIT_OK || rc == DFS_EXIT_DAMAGED);
    an->r = dfs_overlap_finish(an->ov, an->run);
    return an->r != NULL;
}

/* Reads as the CLI does: the preview's origin, the preset's default classes, a second pass when
 * the first asks for it. */
static void run(const cfg *c, analysis *an)
{
    memset(an, 0, sizeof *an);
    dfs_preset_error perr;
    an->preset = dfs_preset_load(c->preset ? c->preset : "dlio", &perr);
    assert_non_null(an->preset);
    char *path = (char *)tu_trace(c->dir ? c->dir : DLIO);
    dfs_options opt;
    dfs_options_init(&opt);
    dfs_preview pv;
    assert_int_equal(dfs_preview_run(&path, 1, &opt, 256 << 10, &pv), DFS_EXIT_OK);
    dfs_overlap_defaults d;
    dfs_overlap_defaults_for(an->preset, &d);
    dfs_overlap_options o = {.preset = an->preset, .compute = d.compute, .io = d.io, .app_io = d.app_io,
                             .epochs = d.epochs, .steps = d.steps, .method = c->method, .scope = c->scope,
                             .granularity_ns = c->granularity_ns, .origin_ns = pv.origin_ns,
                             .post_read = c->post_read, .hold_intervals = c->hold, .global = true};
    if (c->compute) {
        o.compute = c->compute;
        o.io = c->io;
        o.app_io = c->app_io;
    }
    if (c->layer_classes) { /* the layers of `dfscope analyze` */
        o.compute = "compute";
        o.io = "posix";
        o.app_io = "reader";
    }
    dfs_preview_free(&pv);
    if (pass(c, path, &o, an))
        return;
    dfs_overlap_rerun info;
    assert_true(dfs_overlap_needs_rerun(an->ov, &info));
    o.origin_ns = info.origin_ns;
    o.no_streaming |= info.no_streaming;
    dfs_file_clock *clocks = dfs_run_final_clocks(an->run); /* as the CLI does */
    o.clocks = clocks;
    o.nclocks = dfs_run_file_count(an->run);
    dfs_overlap_free(an->ov);
    dfs_run_free(an->run);
    an->reran = true;
    assert_true(pass(c, path, &o, an));
    free(clocks);
}

static void done(analysis *an)
{
    dfs_overlap_free(an->ov);
    dfs_run_free(an->run);
    dfs_preset_free(an->preset);
}

/* ----- §5.1: exact, process scope -------------------------------------------------------------- */

typedef struct proc_expect {
    const char *pid;
    long long C, I, I_sum, A, A_sum; /* µs */
} proc_expect;

static const proc_expect procs[] = {
    {"1028567", 34044769, 16131312, 16256094, 19046846, 38040704},
    {"1028568", 34044157, 15807183, 15964638, 18116420, 36178946},
    {"1028569", 34044592, 16308951, 16447102, 19144611, 38235158},
    {"1028570", 34044802, 16461090, 16612514, 19343316, 38632654},
    {"1028571", 34044557, 16532793, 16686065, 19433694, 38814448},
    {"1028572", 34044500, 16110526, 16262918, 18854671, 37661230},
    {"1028573", 34043500, 16223189, 16390629, 18483029, 36913738},
    {"1028574", 34044707, 15453533, 15598988, 17783298, 35515577},
};

static void check_process(const dfs_overlap_values *v, long long C, long long I, long long A)
{
    assert_int_equal(v->cls[DFS_OVC_COMPUTE].time, C * US);
    assert_int_equal(v->cls[DFS_OVC_IO].time, I * US);
    assert_int_equal(v->cls[DFS_OVC_APP_IO].time, A * US);
    assert_int_equal(v->cls[DFS_OVC_IO].with_compute, 0);
    assert_int_equal(v->cls[DFS_OVC_APP_IO].with_compute, 0);
    /* a synchronous loader: nothing is hidden */
    assert_int_equal(v->cls[DFS_OVC_IO].unoverlapped, I * US);
    assert_int_equal(v->cls[DFS_OVC_IO].compute_unoverlapped, C * US);
}

static void check_process_units(const dfs_overlap_result *r)
{
    assert_int_equal(r->nprocesses, 8);
    for (size_t i = 0; i < 8; i++) {
        const dfs_overlap_unit *u = &r->per_process[i];
        assert_string_equal(u->pid, procs[i].pid);
        assert_string_equal(u->host, "corona171");
        check_process(&u->v, procs[i].C, procs[i].I, procs[i].A);
        assert_int_equal(u->v.cls[DFS_OVC_IO].sum_dur, procs[i].I_sum * US);
        assert_int_equal(u->v.cls[DFS_OVC_APP_IO].sum_dur, procs[i].A_sum * US);
    }
}

static void check_exact_processes(const dfs_overlap_result *r)
{
    check_process_units(r);
    check_process(&r->summary, 272355584, 129028577, 150205885);
    assert_int_equal(r->summary.cls[DFS_OVC_IO].sum_dur, 130218948LL * US);
    assert_int_equal(r->summary.cls[DFS_OVC_APP_IO].sum_dur, 299992455LL * US);
    assert_int_equal(r->summary.cls[DFS_OVC_COMPUTE].events, 200);
    assert_int_equal(r->summary.cls[DFS_OVC_IO].events, 10581);
    assert_int_equal(r->summary.cls[DFS_OVC_APP_IO].events, 4008);
    check_process(&r->max, 34044802, 16532793, 19433694);
    check_process(&r->min, 34043500, 15453533, 17783298);
}

/* §5.2: all ranks merged */
static void check_global(const dfs_overlap_values *g)
{
    assert_int_equal(g->cls[DFS_OVC_COMPUTE].time, 37114514LL * US);
    assert_int_equal(g->cls[DFS_OVC_IO].time, 19716082LL * US);
    assert_int_equal(g->cls[DFS_OVC_APP_IO].time, 20240221LL * US);
    assert_int_equal(g->cls[DFS_OVC_IO].with_compute, 2304714LL * US);
    assert_int_equal(g->cls[DFS_OVC_APP_IO].with_compute, 2899952LL * US);
    assert_int_equal(g->cls[DFS_OVC_IO].unoverlapped, 17411368LL * US);
    assert_int_equal(g->cls[DFS_OVC_IO].compute_unoverlapped, 34809800LL * US);
    assert_int_equal(g->cls[DFS_OVC_APP_IO].unoverlapped, 17340269LL * US);
    assert_int_equal(g->cls[DFS_OVC_APP_IO].compute_unoverlapped, 34214562LL * US);
}

/* The same answers whatever the parallelism, the cutting of files and the streaming budget (the
 * cut files and the tiny budgets make the first pass fail its checks: the second decides). */
static const cfg variants[] = {
    {.jobs = 1},
    {.jobs = 2},
    {.jobs = 2, .chunk = 64 << 10},
    {.jobs = 3, .chunk = 16 << 10, .hold = 64},
    {.jobs = 1, .hold = 1},
    {.jobs = 2, .hold = 1000},
};

static void test_exact_process_scope(void **state)
{
    (void)state;
    tu_require_corpus();
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
        analysis an;
        run(&variants[i], &an);
        assert_int_equal(an.r->method, DFS_OVERLAP_EXACT);
        check_exact_processes(an.r);
        check_global(&an.r->global);
        done(&an);
    }
}

static void test_exact_thread_and_global_scope(void **state)
{
    (void)state;
    tu_require_corpus();
    analysis an;
    cfg c = {.scope = DFS_OVERLAP_THREAD, .jobs = 2};
    run(&c, &an);
    const dfs_overlap_result *r = an.r;
    assert_int_equal(r->summary.cls[DFS_OVC_IO].time, 130218948LL * US); /* no same-thread POSIX nesting */
    assert_int_equal(r->max.cls[DFS_OVC_IO].time, 16531338LL * US);
    assert_int_equal(r->summary.cls[DFS_OVC_APP_IO].time, 150205885LL * US);
    assert_int_equal(r->max.cls[DFS_OVC_IO].with_compute, 0);
    assert_int_equal(r->max.cls[DFS_OVC_APP_IO].with_compute, 0);
    assert_int_equal(r->summary_units, r->nthreads);
    check_process_units(r); /* the process units come along */
    done(&an);
    c.scope = DFS_OVERLAP_GLOBAL;
    run(&c, &an);
    check_global(&an.r->summary);
    assert_int_equal(an.r->summary_units, 1);
    done(&an);
}

/* Epochs: DLIOBenchmark._train markers, labelled by their args.epoch; all compute is inside them. */
static void test_epochs(void **state)
{
    (void)state;
    tu_require_corpus();
    analysis an;
    cfg c = {.jobs = 2};
    run(&c, &an);
    const dfs_overlap_result *r = an.r;
    assert_int_equal(r->nepochs, 5);
    int64_t compute = 0, io = 0;
    for (size_t i = 0; i < r->nepochs; i++) {
        char label[24];
        snprintf(label, sizeof label, "%zu", i + 1);
        assert_string_equal(r->epochs[i].label, label);
        assert_int_equal(r->epochs[i].units, 8);
        assert_int_equal(r->epochs[i].v.cls[DFS_OVC_IO].with_compute, 0);
        compute += r->epochs[i].v.cls[DFS_OVC_COMPUTE].time;
        io += r->epochs[i].v.cls[DFS_OVC_IO].time;
    }
    assert_int_equal(compute, 272355584LL * US);
    assert_true(io < r->summary.cls[DFS_OVC_IO].time); /* some I/O happens before the first epoch */
    for (size_t i = 0; i < r->nprocesses; i++)
        assert_int_equal(r->per_process[i].nepochs, 5);
    done(&an);
}

/* ----- §5.3: the G0 summary with these classes, 1 s bins ---------------------------------------- */

static void check_g0(const dfs_overlap_values *g, long long A, long long uA, long long uAC, long long C, long long I,
                     long long uI, long long uC)
{
    assert_int_equal(g->cls[DFS_OVC_APP_IO].time, A * US);
    assert_int_equal(g->cls[DFS_OVC_APP_IO].unoverlapped, uA * US);
    assert_int_equal(g->cls[DFS_OVC_APP_IO].compute_unoverlapped, uAC * US);
    assert_int_equal(g->cls[DFS_OVC_COMPUTE].time, C * US);
    assert_int_equal(g->cls[DFS_OVC_IO].time, I * US);
    assert_int_equal(g->cls[DFS_OVC_IO].unoverlapped, uI * US);
    assert_int_equal(g->cls[DFS_OVC_IO].compute_unoverlapped, uC * US);
}

static void test_g0_approximate(void **state)
{
    (void)state;
    tu_require_corpus();
    for (int j = 1; j <= 2; j++) {
        analysis an;
        cfg c = {.method = DFS_OVERLAP_APPROXIMATE, .granularity_ns = 1000000000, .jobs = j, .chunk = j == 2 ? 64 << 10 : 0};
        run(&c, &an);
        const dfs_overlap_result *r = an.r;
        assert_int_equal(r->method, DFS_OVERLAP_APPROXIMATE);
        assert_int_equal((r->global.total_time + 500000) / 1000000, 56695); /* 56.695 sec */
        check_g0(&r->global, 43018551, 21665880, 19501584, 40854255, 18489813, 8491179, 30855621);
        assert_int_equal(r->max_bin_thread_io, 1221906LL * US);
        assert_int_equal(r->suggested_granularity_ns, 3LL * 1000000000); /* G0 says "2e6" (truncated) */
        assert_true(r->nbins > 0 && r->nbins <= 57); /* the bins where a class event starts */
        done(&an);
    }
}

static void test_g0_exact(void **state)
{
    (void)state;
    tu_require_corpus();
    analysis an;
    cfg c = {.method = DFS_OVERLAP_G0_EXACT, .granularity_ns = 1000000000, .jobs = 2};
    run(&c, &an);
    check_g0(&an.r->global, 22486171, 19563208, 40636574, 43559537, 21436765, 19119089, 41241861);
    assert_int_equal(an.r->nprocesses, 0); /* global only */
    done(&an);
}

static const dfs_overlap_function *function(const dfs_overlap_result *r, const char *name)
{
    for (size_t i = 0; i < r->nfunctions; i++)
        if (strcmp(r->functions[i].name, name) == 0)
            return &r->functions[i];
    fail_msg("no function %s", name);
    return NULL;
}

static void test_allocation_and_functions(void **state)
{
    (void)state;
    tu_require_corpus();
    analysis an;
    cfg c = {.jobs = 2};
    run(&c, &an);
    const dfs_overlap_result *r = an.r;
    assert_int_equal(r->nodes, 1);
    assert_int_equal(r->processes, 8);
    assert_int_equal(r->compute_threads, 8);
    assert_int_equal(r->io_threads, 56);
    assert_int_equal(r->events, 18039);
    assert_int_equal(r->files, 166);
    const dfs_overlap_function *f = function(r, "pread");
    assert_int_equal(f->count, 7200);
    assert_true(f->min == 8 && f->p25 == 80 && f->median == 512 && f->p75 == 512 && f->max == 146579449);
    assert_true(fabs(f->mean - 16286884.556) < 1e-3);
    f = function(r, "write");
    assert_true(f->count == 1 && f->min == 11420 && f->max == 11420 && f->median == 11420);
    static const struct { const char *name; uint64_t count; } unsized[] = {
        {"__fxstat", 800}, {"__fxstat64", 1}, {"__lxstat", 800}, {"__xstat64", 48}, {"close", 801}, {"fork", 96},
        {"lseek64", 1},    {"mkdir", 16},     {"open", 800},     {"open64", 1},     {"opendir", 16}};
    for (size_t i = 0; i < sizeof unsized / sizeof *unsized; i++) {
        f = function(r, unsized[i].name);
        assert_int_equal(f->count, unsized[i].count);
        assert_int_equal(f->sized, 0);
    }
    assert_int_equal(r->nfunctions, 13);
    done(&an);
}

/* ----- consistency with `dfscope analyze` ---------------------------------------------------- */

static const dfs_layer_summary *layer(const dfs_layered_result *r, const char *name)
{
    for (size_t l = 0; l < r->nlayers; l++)
        if (strcmp(r->layers[l].name, name) == 0)
            return &r->views[0].layers[l];
    fail_msg("no layer %s", name);
    return NULL;
}

static void near(double a, double b)
{
    if (fabs(a - b) > 1e-6)
        fail_msg("%.9f != %.9f", a, b);
}

/* With the preset's post-read filter and its layers as classes, the class totals are analyze's:
 * Σ dur, Σ_p |L_p| (its exact u_ base) and Σ_p |L_p \ C_p| (its exact u_time). */
static void test_consistent_with_analyze(void **state)
{
    (void)state;
    tu_require_corpus();
    analysis an;
    cfg c = {.jobs = 2, .post_read = true, .layer_classes = true};
    run(&c, &an);
    dfs_preset_error perr;
    dfs_preset *p = dfs_preset_load("dlio", &perr);
    char *path = (char *)tu_trace(DLIO);
    dfs_options opt;
    dfs_options_init(&opt);
    dfs_preview pv;
    assert_int_equal(dfs_preview_run(&path, 1, &opt, 256 << 10, &pv), DFS_EXIT_OK);
    dfs_layered_options lo = {.preset = p, .compat = DFS_COMPAT_NONE, .granularity_ns = 1000000000,
                              .origin_ns = pv.origin_ns, .views = 1u << DFS_VIEW_TIME_RANGE,
                              .order = {DFS_VIEW_TIME_RANGE}, .norder = 1};
    char err[256];
    dfs_layered *la = dfs_layered_new(&lo, err, sizeof err);
    assert_non_null(la);
    dfs_run *lrun = tu_run(2, 0, 0);
    assert_int_equal(dfs_run_add_path(lrun, path), DFS_OK);
    dfs_consumer *cs[] = {dfs_layered_consumer(la)};
    assert_int_equal(dfs_run_read(lrun, cs, 1), DFS_EXIT_OK);
    const dfs_layered_result *lr = dfs_layered_finish(la, lrun);
    assert_non_null(lr);
    const dfs_overlap_result *r = an.r;
    static const struct { const char *layer; int cls; } pairs[] = {
        {"compute", DFS_OVC_COMPUTE}, {"posix", DFS_OVC_IO}, {"reader", DFS_OVC_APP_IO}};
    for (size_t i = 0; i < 3; i++) {
        const dfs_layer_summary *L = layer(lr, pairs[i].layer);
        const dfs_overlap_class_values *x = &r->summary.cls[pairs[i].cls];
        assert_int_equal(L->count, x->events);
        near(L->time_sum_s, (double)x->sum_dur / 1e9);
        if (pairs[i].cls == DFS_OVC_COMPUTE)
            continue;
        assert_true(L->has_u);
        near(L->u_base_s, (double)x->time / 1e9);
        near(L->u_time_s, (double)x->unoverlapped / 1e9);
    }
    assert_int_equal(r->dropped_functions, lr->dropped_functions);
    assert_int_equal(r->dropped_files, lr->dropped_files);
    dfs_layered_free(la);
    dfs_run_free(lrun);
    dfs_preview_free(&pv);
    dfs_preset_free(p);
    done(&an);
}

/* ----- legacy-2023: string numbers, names in clear, the same file twice (.pfw and .pfw.gz) -------- */

static void test_legacy(void **state)
{
    (void)state;
    tu_require_corpus();
    analysis dir, one;
    cfg c = {.dir = LEGACY, .preset = "posix", .jobs = 2};
    run(&c, &dir);
    c.dir = LEGACY "/dfanalyzer_test.pfw";
    c.jobs = 1;
    run(&c, &one);
    assert_int_equal(dir.r->nprocesses, 2);
    const dfs_overlap_unit *u = NULL, *v = &one.r->per_process[0];
    for (size_t i = 0; i < dir.r->nprocesses; i++)
        if (strcmp(dir.r->per_process[i].host, "corona237") == 0)
            u = &dir.r->per_process[i];
    assert_non_null(u);
    assert_string_equal(u->key, "corona237:1338896");
    assert_string_equal(v->key, u->key);
    /* the duplicate file doubles Σ dur and the counts, not the union */
    assert_int_equal(u->v.cls[DFS_OVC_IO].time, v->v.cls[DFS_OVC_IO].time);
    assert_int_equal(u->v.cls[DFS_OVC_IO].sum_dur, 2 * v->v.cls[DFS_OVC_IO].sum_dur);
    assert_int_equal(u->v.cls[DFS_OVC_IO].events, 2 * v->v.cls[DFS_OVC_IO].events);
    assert_int_equal(v->v.cls[DFS_OVC_IO].events, 1012);
    assert_true(v->v.cls[DFS_OVC_IO].time > 0 && v->v.cls[DFS_OVC_IO].time <= v->v.cls[DFS_OVC_IO].sum_dur);
    assert_int_equal(dir.r->global.cls[DFS_OVC_IO].events, 2036);
    assert_null(dir.r->class_texts[DFS_OVC_COMPUTE]); /* the posix preset has no compute */
    assert_int_equal(dir.r->summary.cls[DFS_OVC_IO].unoverlapped, dir.r->summary.cls[DFS_OVC_IO].time);
    done(&dir);
    done(&one);
}

/* Kineto traces whose base time is only known at the end of the file: the second pass reads with
 * the final clocks and the origin computed under them; bins still sum to the totals, for any -j. */
static void test_clock_known_at_end(void **state)
{
    (void)state;
    tu_require_corpus();
    int64_t compute = -1;
    for (int j = 1; j <= 2; j++) {
        analysis an;
        cfg c = {.dir = "hta", .preset = "posix", .jobs = j, .granularity_ns = 100000000,
                 .compute = "cat.isin([\"kernel\", \"Kernel\"])", .io = "cat.str.startswith(\"cuda_runtime\")",
                 .app_io = "cat == \"cpu_op\""};
        run(&c, &an);
        assert_true(an.reran);
        int64_t binned = 0;
        for (size_t i = 0; i < an.r->nbins; i++)
            binned += an.r->bins[i].v.cls[DFS_OVC_COMPUTE].time;
        assert_int_equal(binned, an.r->summary.cls[DFS_OVC_COMPUTE].time);
        assert_true(an.r->summary.cls[DFS_OVC_COMPUTE].time > 0);
        if (compute >= 0)
            assert_int_equal(compute, an.r->summary.cls[DFS_OVC_COMPUTE].time);
        compute = an.r->summary.cls[DFS_OVC_COMPUTE].time;
        done(&an);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_process_scope),
        cmocka_unit_test(test_exact_thread_and_global_scope),
        cmocka_unit_test(test_epochs),
        cmocka_unit_test(test_g0_approximate),
        cmocka_unit_test(test_g0_exact),
        cmocka_unit_test(test_allocation_and_functions),
        cmocka_unit_test(test_consistent_with_analyze),
        cmocka_unit_test(test_legacy),
        cmocka_unit_test(test_clock_known_at_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
