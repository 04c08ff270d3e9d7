/* test_layered.c - layered analysis on hand-built traces with known answers: post-read rules,
 * size bins, metric formulas, the three semantics (exact u_ from interval overlap), views,
 * the origin check and its rerun, durations and the overlap percentage. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/preset.h"
#include "analyze/common/preview.h"
#include "analyze/layered/layered.h"
#include "analyze/layered/layered_internal.h"
#include "output/layered_report.h"
#include "testutil.h"

#define T0 INT64_C(1000000) /* µs: the first event (compute) starts here */

/* One process (host h1, pid 10): compute on thread 10, POSIX reads on thread 11. */
static const char *trace_text(void)
{
    return "[\n"
           "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":10,\"tid\":10,\"ph\":\"M\",\"args\":{\"name\":\"h1\",\"value\":1}}\n"
           "{\"id\":2,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":10,\"tid\":10,\"ph\":\"M\",\"args\":{\"name\":\"/p/lustre/data/f1\",\"value\":100}}\n"
           "{\"id\":3,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":10,\"tid\":10,\"ph\":\"M\",\"args\":{\"name\":\"/usr/lib/x.so\",\"value\":101}}\n"
           "{\"id\":4,\"name\":\"TorchFramework.compute\",\"cat\":\"ai_framework\",\"pid\":10,\"tid\":10,\"ts\":1000000,\"dur\":100,\"ph\":\"X\",\"args\":{\"hhash\":1}}\n"
           "{\"id\":5,\"name\":\"TorchFramework.compute\",\"cat\":\"ai_framework\",\"pid\":10,\"tid\":10,\"ts\":1000200,\"dur\":100,\"ph\":\"X\",\"args\":{\"hhash\":1}}\n"
           "{\"id\":6,\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":10,\"tid\":11,\"ts\":1000050,\"dur\":100,\"ph\":\"X\",\"args\":{\"hhash\":1,\"fhash\":100,\"ret\":4096}}\n"
           "{\"id\":7,\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":10,\"tid\":11,\"ts\":1000250,\"dur\":10,\"ph\":\"X\",\"args\":{\"hhash\":1,\"fhash\":100,\"ret\":\"1\"}}\n"
           "{\"id\":8,\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":10,\"tid\":11,\"ts\":1000400,\"dur\":50,\"ph\":\"X\",\"args\":{\"hhash\":1,\"fhash\":100,\"ret\":100}}\n"
           "{\"id\":9,\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":10,\"tid\":11,\"ts\":1000600,\"dur\":1,\"ph\":\"X\",\"args\":{\"hhash\":1,\"fhash\":100,\"ret\":1048576}}\n"
           "{\"id\":10,\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":10,\"tid\":11,\"ts\":1000700,\"dur\":1,\"ph\":\"X\",\"args\":{\"hhash\":1,\"fhash\":100,\"ret\":1048577}}\n"
           "{\"id\":11,\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":10,\"tid\":11,\"ts\":1000800,\"dur\":1,\"ph\":\"X\",\"args\":{\"hhash\":1,\"fhash\":100,\"ret\":4097}}\n"
           "{\"id\":12,\"name\":\"open64\",\"cat\":\"POSIX\",\"pid\":10,\"tid\":11,\"ts\":1000500,\"dur\":10,\"ph\":\"X\",\"args\":{\"hhash\":1,\"fhash\":101,\"ret\":3}}\n"
           "{\"id\":13,\"name\":\"DLIOBenchmark.__init__\",\"cat\":\"dlio_benchmark\",\"pid\":10,\"tid\":10,\"ts\":1000900,\"dur\":5,\"ph\":\"X\",\"args\":{\"hhash\":1}}\n"
           "{\"id\":14,\"name\":\"close\",\"cat\":\"POSIX\",\"pid\":10,\"tid\":11,\"ts\":2500000,\"dur\":7,\"ph\":\"X\",\"args\":{\"hhash\":1,\"fhash\":100,\"ret\":0}}\n"
           "]\n";
}

typedef struct fixture {
    dfs_preset *preset;
    dfs_run *run;
    dfs_layered *la;
    const dfs_layered_result *r;
} fixture;

/* summaries_only: as for the table output (dfs_layered_options). */
/* chunk_bytes > 0: the file is read in pieces of that size by two workers, so that a thread's
 * events of one bin may reach both (two cells of one key, which the views sum). */
/* The fixture's preset and analysis (views in that order, bins of 1 s). */
static void new_analysis(fixture *f, const char *preset, dfs_compat compat, int64_t origin_ns,
                         const dfs_view_type *views, size_t nviews, bool summaries_only)
{
    dfs_preset_error perr;
    f->preset = dfs_preset_load(preset, &perr);
    assert_non_null(f->preset);
    dfs_layered_options o = {.preset = f->preset, .compat = compat, .granularity_ns = INT64_C(1000000000),
                             .origin_ns = origin_ns, .summaries_only = summaries_only};
    for (size_t i = 0; i < nviews; i++) {
        o.order[o.norder++] = views[i];
        o.views |= 1u << views[i];
    }
    char err[256];
    f->la = dfs_layered_new(&o, err, sizeof err);
    assert_non_null(f->la);
}

static void analyse_text_as(fixture *f, const char *text, const char *preset, dfs_compat compat, int64_t origin_ns,
                            const dfs_view_type *views, size_t nviews, bool summaries_only, uint64_t chunk_bytes)
{
    new_analysis(f, preset, compat, origin_ns, views, nviews, summaries_only);
    const char *path = tu_temp_file(".pfw", text, strlen(text));
    f->run = tu_run(2, chunk_bytes, 0);
    assert_int_equal(dfs_run_add_path(f->run, path), DFS_OK);
    dfs_consumer *c[] = {dfs_layered_consumer(f->la)};
    assert_int_equal(dfs_run_read(f->run, c, 1), DFS_EXIT_OK);
    f->r = dfs_layered_finish(f->la, f->run);
}

static void analyse_text(fixture *f, const char *text, const char *preset, dfs_compat compat, int64_t origin_ns,
                         const dfs_view_type *views, size_t nviews)
{
    analyse_text_as(f, text, preset, compat, origin_ns, views, nviews, false, 0);
}

static void analyse(fixture *f, const char *preset, dfs_compat compat, int64_t origin_ns, const dfs_view_type *views,
                    size_t nviews)
{
    analyse_text(f, trace_text(), preset, compat, origin_ns, views, nviews);
}

static void fixture_free(fixture *f)
{
    dfs_layered_free(f->la);
    dfs_run_free(f->run);
    dfs_preset_free(f->preset);
}

static const dfs_layer_summary *layer(const fixture *f, size_t view, const char *name)
{
    for (size_t l = 0; l < f->r->nlayers; l++)
        if (strcmp(f->r->layers[l].name, name) == 0)
            return &f->r->views[view].layers[l];
    fail_msg("no layer %s", name);
    return NULL;
}

static double column(const dfs_view_result *v, size_t row, const char *name)
{
    for (size_t c = 0; c < v->ncolumns; c++)
        if (strcmp(v->columns[c], name) == 0)
            return v->cells[row * v->ncolumns + c];
    fail_msg("no column %s", name);
    return NAN;
}

static const dfs_view_type TIME_ONLY[] = {DFS_VIEW_TIME_RANGE};

static void test_post_read_and_raw_stats(void **state)
{
    (void)state;
    fixture f;
    analyse(&f, "dlio", DFS_COMPAT_DFANALYZER, T0 * 1000, TIME_ONLY, 1);
    assert_non_null(f.r);
    assert_int_equal(f.r->events, 11);
    assert_int_equal(f.r->dropped_files, 1);     /* open64 on /usr/lib */
    assert_int_equal(f.r->dropped_functions, 1); /* DLIOBenchmark.__init__ */
    assert_int_equal(f.r->post_read_events, 9);
    assert_int_equal(f.r->unique_files, 2);
    assert_int_equal(f.r->unique_hosts, 1);
    assert_int_equal(f.r->unique_processes, 1);
    assert_true(fabs(f.r->job_time_s - 1.500007) < 1e-12);
    /* the sum of the layer counts: each event once per layer it is in */
    uint64_t sum = 0;
    for (size_t l = 0; l < f.r->nlayers; l++)
        sum += f.r->views[0].layers[l].count;
    assert_int_equal(f.r->layer_count_total, sum);
    assert_int_equal(f.r->layer_count_total, 16); /* posix 7, reader_posix 7, compute 2 */
    fixture_free(&f);
}

static void test_layers_sizes_and_bins(void **state)
{
    (void)state;
    fixture f;
    analyse(&f, "dlio", DFS_COMPAT_DFANALYZER, T0 * 1000, TIME_ONLY, 1);
    const dfs_layer_summary *px = layer(&f, 0, "posix"), *rp = layer(&f, 0, "reader_posix");
    assert_int_equal(px->count, 7);
    assert_int_equal(rp->count, 7); /* /p/lustre/data -> posix_reader_lustre */
    assert_int_equal(px->size, 4096 + 1 + 100 + 1048576 + 1048577 + 4097);
    assert_int_equal(layer(&f, 0, "compute")->count, 2);
    assert_int_equal(layer(&f, 0, "checkpoint_posix")->count, 0);
    const dfs_view_result *v = &f.r->views[0];
    assert_int_equal(v->nrows, 2); /* bins 0 and 1 (the close at +1.5 s) */
    assert_int_equal(v->row_bins[0], 0);
    assert_int_equal(v->row_bins[1], 1);
    /* size bins are right-closed: 4096 and 1 MiB fall in the lower bin */
    assert_true(column(v, 0, "posix_size_bin_0_4kib_sum") == 3);
    assert_true(column(v, 0, "posix_size_bin_4kib_16kib_sum") == 1);
    assert_true(column(v, 0, "posix_size_bin_256kib_1mib_sum") == 1);
    assert_true(column(v, 0, "posix_size_bin_1mib_4mib_sum") == 1);
    /* derived families: read has the six preads, metadata the close (in bin 1) */
    assert_true(column(v, 0, "posix_read_count_sum") == 6);
    assert_true(isnan(column(v, 0, "posix_metadata_count_sum")));
    assert_true(column(v, 1, "posix_metadata_count_sum") == 1);
    assert_true(column(v, 1, "posix_close_count_sum") == 1);
    /* per-call statistics over the six preads (µs): 100, 10, 50, 1, 1, 1 */
    assert_true(fabs(column(v, 0, "posix_read_time_call_mean") - 163e-6 / 6) < 1e-15);
    assert_true(fabs(column(v, 0, "posix_read_time_call_max") - 100e-6) < 1e-15);
    assert_true(fabs(column(v, 0, "posix_read_time_call_min") - 1e-6) < 1e-15);
    /* bandwidth and ops on the row's busiest process */
    double tm = column(v, 0, "posix_time_proc_max");
    assert_true(fabs(tm - 163e-6) < 1e-15);
    assert_true(fabs(column(v, 0, "posix_ops") - 6 / tm) < 1e-6);
    assert_true(fabs(column(v, 0, "posix_bw") - (double)px->size / tm) < 1e-3);
    assert_true(fabs(column(v, 0, "posix_intensity") - 6.0 / (double)px->size) < 1e-18);
    fixture_free(&f);
}

static void test_reference_u_is_a_subtraction(void **state)
{
    (void)state;
    fixture f;
    analyse(&f, "dlio", DFS_COMPAT_DFANALYZER, T0 * 1000, TIME_ONLY, 1);
    const dfs_layer_summary *px = layer(&f, 0, "posix");
    /* bin 0: posix 163 µs on thread 11, compute 200 µs on thread 10: u = max(163 − 200, 0) = 0;
     * bin 1: the close alone, u = 7 µs */
    assert_true(px->has_u);
    assert_true(fabs(px->u_time_s - 7e-6) < 1e-15);
    assert_int_equal(px->u_count, 1);
    assert_false(layer(&f, 0, "compute")->has_u);
    fixture_free(&f);
}

static void test_exact_u_from_intervals(void **state)
{
    (void)state;
    fixture f;
    analyse(&f, "dlio", DFS_COMPAT_NONE, T0 * 1000, TIME_ONLY, 1);
    const dfs_layer_summary *px = layer(&f, 0, "posix");
    /* process scope: P = [50,150) [250,260) [400,450) [600,601) [700,701) [800,801) and the close;
     * C = [0,100) [200,300); |P| = 170, |P ∩ C| = 50 + 10 = 60, so u = 110 µs; exposed events:
     * all but the pread inside [200,300) */
    assert_true(fabs(px->u_base_s - 170e-6) < 1e-15);
    assert_true(fabs(px->u_time_s - 110e-6) < 1e-15);
    assert_int_equal(px->u_count, 6);
    assert_int_equal(px->u_size, 4096 + 100 + 1048576 + 1048577 + 4097);
    assert_int_equal(dfs_overlap_percent(px->u_time_s, px->u_base_s), 35);
    const dfs_view_result *v = &f.r->views[0];
    assert_true(fabs(column(v, 0, "u_posix_time_exact") - 103e-6) < 1e-15);
    assert_true(fabs(column(v, 1, "u_posix_time_exact") - 7e-6) < 1e-15);
    fixture_free(&f);
}

/* Exact u_ per time row when the bins are dense (a table places them) and when they are far
 * apart (a search does): the same answers. A pread of 2 s starts half-way into bin X − 2 and
 * crosses bin X − 1, where nothing starts, into bin X: the default mode splits it over the three
 * bins, so X − 1 is a row holding a second of it and no call. */
static void exact_rows_with_gap(int64_t x)
{
    char text[2048];
    long long t0 = 1000000, cross = t0 + (x - 2) * 1000000 + 500000, last = t0 + x * 1000000 + 600000;
    snprintf(text, sizeof text,
             "{\"name\":\"TorchFramework.compute\",\"cat\":\"ai_framework\",\"pid\":1,\"tid\":1,\"ts\":%lld,"
             "\"dur\":100,\"ph\":\"X\"}\n"
             "{\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":2,\"ts\":%lld,\"dur\":100,\"ph\":\"X\","
             "\"args\":{\"fname\":\"/d/f\",\"ret\":10}}\n"
             "{\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":2,\"ts\":%lld,\"dur\":2000000,\"ph\":\"X\","
             "\"args\":{\"fname\":\"/d/f\",\"ret\":30}}\n"
             "{\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":2,\"ts\":%lld,\"dur\":7,\"ph\":\"X\","
             "\"args\":{\"fname\":\"/d/f\",\"ret\":20}}\n",
             t0, t0 + 50, cross, last);
    static const dfs_view_type views[] = {DFS_VIEW_TIME_RANGE, DFS_VIEW_PROC_NAME, DFS_VIEW_PROC_ID};
    fixture f;
    analyse_text(&f, text, "dlio", DFS_COMPAT_NONE, t0 * 1000, views, 3);
    assert_non_null(f.r);
    const dfs_view_result *tv = &f.r->views[0], *tid = &f.r->views[1], *pid = &f.r->views[2];
    assert_int_equal(tv->nrows, 4);
    assert_int_equal(tv->row_bins[0], 0);
    assert_int_equal(tv->row_bins[1], x - 2);
    assert_int_equal(tv->row_bins[2], x - 1);
    assert_int_equal(tv->row_bins[3], x);
    assert_true(fabs(column(tv, 0, "u_posix_time_exact") - 50e-6) < 1e-12); /* 100 µs, half under compute */
    assert_true(fabs(column(tv, 1, "u_posix_time_exact") - 0.5) < 1e-12);
    assert_true(fabs(column(tv, 2, "u_posix_time_exact") - 1) < 1e-12);
    assert_true(fabs(column(tv, 3, "u_posix_time_exact") - (0.5 + 7e-6)) < 1e-12);
    assert_true(column(tv, 1, "posix_count_sum") == 1);
    assert_true(column(tv, 2, "posix_count_sum") == 0);
    assert_true(fabs(column(tv, 2, "posix_time_sum") - 1) < 1e-12);
    assert_true(isnan(column(tv, 2, "posix_time_call_max"))); /* no call starts there */
    assert_true(column(tv, 3, "posix_count_sum") == 1);
    assert_true(fabs(column(tv, 3, "posix_time_sum") - (0.5 + 7e-6)) < 1e-12);
    const dfs_layer_summary *px = layer(&f, 0, "posix"); /* the engine's totals: bin X − 1 too */
    assert_true(fabs(px->u_time_s - (2 + 57e-6)) < 1e-12);
    assert_int_equal(px->u_count, 3);
    assert_int_equal(px->u_size, 60);
    /* a thread's row in the process view has its bins as members: at most one pread starting in
     * each, at most a second of pread time in each; the calls are whole */
    assert_int_equal(tid->nrows, 2);
    assert_true(column(tid, 1, "posix_count_sum") == 3);
    assert_true(column(tid, 1, "posix_count_proc_max") == 1);
    assert_true(fabs(column(tid, 1, "posix_time_proc_max") - 1) < 1e-12);
    assert_true(fabs(column(tid, 1, "posix_time_call_max") - 2) < 1e-12);
    assert_true(fabs(column(tid, 1, "posix_time_sum") - (2 + 107e-6)) < 1e-12);
    assert_int_equal(pid->nrows, 1);
    assert_true(fabs(column(pid, 0, "u_posix_time_exact") - (2 + 57e-6)) < 1e-12);
    fixture_free(&f);
}

static void test_exact_rows_dense_and_sparse_bins(void **state)
{
    (void)state;
    exact_rows_with_gap(3);
    exact_rows_with_gap(100000);
}

static void test_sum_semantics_and_process_views(void **state)
{
    (void)state;
    static const dfs_view_type views[] = {DFS_VIEW_PROC_NAME, DFS_VIEW_THREAD_ID, DFS_VIEW_FILE_NAME};
    fixture f;
    analyse(&f, "dlio", DFS_COMPAT_DFANALYZER_SUM, T0 * 1000, views, 3);
    const dfs_view_result *pv = &f.r->views[0];
    assert_int_equal(pv->nrows, 2);
    assert_string_equal(pv->row_keys[0], "app#h1#10#10");
    assert_string_equal(pv->row_keys[1], "app#h1#10#11");
    /* per thread u = max(L − C, 0): thread 11 has 170 µs of POSIX and no compute */
    const dfs_layer_summary *px = layer(&f, 0, "posix");
    assert_true(fabs(px->u_time_s - 170e-6) < 1e-15);
    assert_int_equal(px->num_processes, 0);
    assert_int_equal(f.r->views[1].nrows, 2);
    const dfs_view_result *fv = &f.r->views[2];
    assert_int_equal(fv->nrows, 1);
    assert_string_equal(fv->row_keys[0], "/p/lustre/data/f1");
    assert_int_equal(layer(&f, 2, "posix")->count, 7);
    assert_int_equal(layer(&f, 2, "compute")->count, 0); /* no file: not in the file view */
    assert_int_equal(fv->total_files, 1);
    fixture_free(&f);
}

static void test_origin_check_and_shift(void **state)
{
    (void)state;
    fixture f;
    analyse(&f, "dlio", DFS_COMPAT_DFANALYZER, T0 * 1000 + 500000000, TIME_ONLY, 1);
    assert_null(f.r); /* half a bin off: the bins cannot be shifted */
    int64_t origin = 0;
    assert_true(dfs_layered_needs_rerun(f.la, &origin));
    assert_int_equal(origin, T0 * 1000);
    fixture_free(&f);
    analyse(&f, "dlio", DFS_COMPAT_DFANALYZER, T0 * 1000 + INT64_C(3000000000), TIME_ONLY, 1);
    assert_non_null(f.r); /* three whole bins off: shifted */
    assert_int_equal(f.r->views[0].row_bins[0], 0);
    assert_int_equal(f.r->views[0].row_bins[1], 1);
    fixture_free(&f);
}

/* Zero and empty cases: a layer whose only event lasts 0 ns has no rate; an empty layer has no
 * time, no rate and no row values. */
static void test_zero_and_empty(void **state)
{
    (void)state;
    static const char text[] =
        "{\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":5000000,\"dur\":0,\"ph\":\"X\","
        "\"args\":{\"fname\":\"/d/f\",\"ret\":100}}\n";
    fixture f;
    analyse_text(&f, text, "posix", DFS_COMPAT_DFANALYZER, INT64_C(5000000000), TIME_ONLY, 1);
    assert_non_null(f.r);
    const dfs_layer_summary *px = layer(&f, 0, "posix");
    assert_int_equal(px->count, 1);
    assert_true(px->time_s == 0);
    assert_int_equal(px->size, 100);
    assert_true(isnan(px->ops) && isnan(px->bandwidth));
    assert_int_equal(px->num_files, 1);
    const dfs_view_result *v = &f.r->views[0];
    assert_true(isnan(column(v, 0, "posix_ops")) && isnan(column(v, 0, "posix_bw")));
    assert_true(column(v, 0, "posix_intensity") == 0.01);
    assert_true(isnan(column(v, 0, "posix_write_count_sum"))); /* no write: null, not 0 */
    assert_true(isnan(column(v, 0, "posix_time_proc_std")));  /* one process: ddof 1 undefined */
    assert_true(column(v, 0, "posix_time_call_std") == 0);
    fixture_free(&f);
}

/* The size of an event comes from the first of a repeated arg (as dfs_event_arg reads it), and a
 * number written as a string counts as that number. */
static void test_repeated_and_string_args(void **state)
{
    (void)state;
    static const char text[] =
        "{\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":5000000,\"dur\":2,\"ph\":\"X\","
        "\"args\":{\"fname\":\"/d/f\",\"ret\":100,\"ret\":7}}\n"
        "{\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":5000010,\"dur\":2,\"ph\":\"X\","
        "\"args\":{\"fname\":\"/d/f\",\"ret\":\"250\"}}\n";
    fixture f;
    analyse_text(&f, text, "posix", DFS_COMPAT_DFANALYZER, INT64_C(5000000000), TIME_ONLY, 1);
    assert_non_null(f.r);
    const dfs_layer_summary *px = layer(&f, 0, "posix");
    assert_int_equal(px->count, 2);
    assert_int_equal(px->size, 350);
    fixture_free(&f);
}

static void test_size_bin_edges(void **state)
{
    (void)state;
    assert_int_equal(dfs_size_bin(1), 0);
    assert_int_equal(dfs_size_bin(4096), 0);
    assert_int_equal(dfs_size_bin(4097), 1);
    assert_int_equal(dfs_size_bin(16384), 1);
    assert_int_equal(dfs_size_bin(1048576), 4);
    assert_int_equal(dfs_size_bin(1048577), 5);
    assert_int_equal(dfs_size_bin(UINT64_C(4) << 30), 10);
    assert_int_equal(dfs_size_bin((UINT64_C(4) << 30) + 1), 11);
    assert_int_equal(dfs_size_bin(UINT64_MAX), 11);
    assert_int_equal(dfs_size_bin(0), 0);
    for (int k = 0; k < 11; k++) { /* every edge 4 KiB · 4^k belongs to the bin it closes */
        uint64_t edge = UINT64_C(4096) << (2 * k);
        assert_int_equal(dfs_size_bin(edge - 1), k);
        assert_int_equal(dfs_size_bin(edge), k);
        assert_int_equal(dfs_size_bin(edge + 1), k + 1);
        assert_int_equal(dfs_size_bin(edge / 2), k); /* 2^(11 + 2k): inside bin k */
    }
    assert_string_equal(dfs_size_bin_suffix[11], "4gib_plus");
}

static void test_durations(void **state)
{
    (void)state;
    int64_t ns;
    assert_true(dfs_parse_duration_ns("5s", &ns) && ns == INT64_C(5000000000));
    assert_true(dfs_parse_duration_ns("500ms", &ns) && ns == 500000000);
    assert_true(dfs_parse_duration_ns("2m", &ns) && ns == INT64_C(120000000000));
    assert_true(dfs_parse_duration_ns("1h", &ns) && ns == INT64_C(3600000000000));
    assert_true(dfs_parse_duration_ns("250us", &ns) && ns == 250000);
    assert_true(dfs_parse_duration_ns("0.5", &ns) && ns == 500000000);
    assert_true(dfs_parse_duration_ns("3", &ns) && ns == INT64_C(3000000000));
    assert_false(dfs_parse_duration_ns("0", &ns));
    assert_false(dfs_parse_duration_ns("-1s", &ns));
    assert_false(dfs_parse_duration_ns("5x", &ns));
    assert_false(dfs_parse_duration_ns("", &ns));
    assert_false(dfs_parse_duration_ns("1e30s", &ns));
    assert_false(dfs_parse_duration_ns("0.1ns", &ns));
}

static void test_overlap_percent(void **state)
{
    (void)state;
    assert_int_equal(dfs_overlap_percent(1, 8), 88);  /* 87.5 rounds to even */
    assert_int_equal(dfs_overlap_percent(3, 8), 62);  /* 62.5 rounds to even */
    assert_int_equal(dfs_overlap_percent(0, 5), 100);
    assert_int_equal(dfs_overlap_percent(9, 5), 0);   /* clamped */
    assert_int_equal(dfs_overlap_percent(1, 0), -1);  /* value 0: "(----)" */
    assert_int_equal(dfs_overlap_percent(NAN, 5), -1);
}

static void test_views_and_compat_names(void **state)
{
    (void)state;
    assert_int_equal(dfs_view_parse("time_range"), DFS_VIEW_TIME_RANGE);
    assert_int_equal(dfs_view_parse("pid"), DFS_VIEW_PROC_ID);
    assert_int_equal(dfs_view_parse("host"), DFS_VIEW_HOST_NAME);
    assert_int_equal(dfs_view_parse("nope"), -1);
    assert_string_equal(dfs_view_name(DFS_VIEW_FILE_NAME), "file_name");
    assert_string_equal(dfs_compat_name(DFS_COMPAT_DFANALYZER_SUM), "dfanalyzer-sum");
    assert_string_equal(dfs_compat_name(DFS_COMPAT_NONE), "exact");
}

/* A preset of one layer `all` (category x) with one derived metric d<i> per function f<i>. */
static const char *families_preset(int funcs)
{
    char yaml[8192];
    int n = snprintf(yaml, sizeof yaml,
                     "name: families\ndescription: one derived metric per function\ngeneration: g3\n"
                     "time_boundary: all\nauto_layers: false\ndetect_categories: []\nbase: posix\nlayers:\n"
                     "  - name: all\n    predicate: 'cat == \"x\"'\n    parent: null\n    derived:\n");
    for (int i = 0; i < funcs; i++)
        n += snprintf(yaml + n, sizeof yaml - (size_t)n, "      - {name: d%d, predicate: 'func_name == \"f%d\"'}\n", i, i);
    snprintf(yaml + n, sizeof yaml - (size_t)n, "additional_metrics: []\n");
    return tu_temp_file(".yaml", yaml, strlen(yaml));
}

/* More threads than staging slots and more kinds of event in a (thread, bin) than a slot holds:
 * 20 threads, 24 functions each counted by its own derived metric. In each second the threads
 * first call f0..f11 interleaved (slots evicted at every event), then each calls f0..f23 in a row
 * (a slot overflows its kinds). Every family must count exactly its events. */
static void test_staging_many_threads_and_kinds(void **state)
{
    (void)state;
    enum { THREADS = 20, FUNCS = 24, ROUNDS = 3 };
    const char *preset = families_preset(FUNCS);
    size_t cap = (size_t)THREADS * FUNCS * ROUNDS * 2 * 128 + 16, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text, cap, "[\n");
    for (int r = 0; r < ROUNDS; r++)     /* round r lies in second r: every thread changes bin */
        for (int phase = 0; phase < 2; phase++)
            for (int i = 0; i < THREADS * FUNCS; i++) {
                int t = phase ? i / FUNCS : i % THREADS, f = phase ? i % FUNCS : i / THREADS;
                if (!phase && f >= FUNCS / 2)
                    break;
                len += (size_t)snprintf(text + len, cap - len,
                                        "{\"name\":\"f%d\",\"cat\":\"x\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":%d,"
                                        "\"ph\":\"X\"}\n",
                                        f, t + 1, 1000000 * r + 1000 * phase + 10 * f + 1, f + 1);
            }
    snprintf(text + len, cap - len, "]\n");
    fixture fx;
    static const dfs_view_type views[] = {DFS_VIEW_TIME_RANGE, DFS_VIEW_PROC_NAME};
    analyse_text(&fx, text, preset, DFS_COMPAT_DFANALYZER_SUM, 1000, views, 2);
    free(text);
    assert_non_null(fx.r);
    const dfs_view_result *tv = &fx.r->views[0], *pv = &fx.r->views[1];
    assert_int_equal(tv->nrows, ROUNDS);
    assert_int_equal(pv->nrows, THREADS);
    for (int f = 0; f < FUNCS; f++) {
        char name[64];
        int calls = f < FUNCS / 2 ? 2 : 1; /* per thread and second */
        snprintf(name, sizeof name, "all_d%d_count_sum", f);
        for (size_t row = 0; row < ROUNDS; row++)
            assert_true(column(tv, row, name) == THREADS * calls);
        for (size_t row = 0; row < THREADS; row++)
            assert_true(column(pv, row, name) == ROUNDS * calls);
        snprintf(name, sizeof name, "all_d%d_time_call_max", f);
        assert_true(fabs(column(pv, 0, name) - (f + 1) * 1e-6) < 1e-12);
    }
    assert_true(column(tv, 1, "all_count_sum") == THREADS * (FUNCS + FUNCS / 2));
    double us = FUNCS * (FUNCS + 1) / 2 + (FUNCS / 2) * (FUNCS / 2 + 1) / 2; /* one thread, one second */
    assert_true(fabs(column(tv, 2, "all_time_sum") - THREADS * us * 1e-6) < 1e-9);
    fixture_free(&fx);
}

static bool same_double(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

static void assert_same_summary(const dfs_layer_summary *a, const dfs_layer_summary *b)
{
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->size, b->size);
    assert_int_equal(a->sized, b->sized);
    assert_int_equal(a->num_files, b->num_files);
    assert_int_equal(a->num_processes, b->num_processes);
    assert_int_equal(a->has_u, b->has_u);
    assert_int_equal(a->u_count, b->u_count);
    assert_int_equal(a->u_size, b->u_size);
    const double x[] = {a->time_s, a->time_sum_s, a->ops, a->bandwidth, a->u_time_s, a->u_base_s, a->overhead_s};
    const double y[] = {b->time_s, b->time_sum_s, b->ops, b->bandwidth, b->u_time_s, b->u_base_s, b->overhead_s};
    for (size_t i = 0; i < sizeof x / sizeof *x; i++)
        assert_true(same_double(x[i], y[i]));
}

/* A table run (summaries only, a preset without additional metrics) aggregates only each layer's
 * own family, stages events that differ only in derived metrics as one kind, and measures exact
 * overlap without bins, and groups no members (its time view keeps each slot's largest member,
 * its process views only the totals): its summaries must be those of a run that builds every
 * column, in every semantics and view. The traces: the module's, the same on one thread (events
 * of several layer sets in a staged slot), 20 threads calling 24 functions (each its own derived
 * metric) over 3 seconds, whole and in pieces, and one thread doing the same under two spellings
 * of its process (two cells of every member). */
static void test_table_run_skips_derived_families(void **state)
{
    (void)state;
    static const dfs_view_type views[] = {DFS_VIEW_TIME_RANGE, DFS_VIEW_PROC_NAME, DFS_VIEW_FILE_NAME,
                                          DFS_VIEW_HOST_NAME,  DFS_VIEW_PROC_ID,   DFS_VIEW_THREAD_ID};
    static const dfs_compat modes[] = {DFS_COMPAT_NONE, DFS_COMPAT_DFANALYZER, DFS_COMPAT_DFANALYZER_SUM};
    /* 20 threads calling 24 functions over 3 seconds; twin: one thread doing the same, whose
     * every other event names its host "unknown", the name a process without a host gets: two
     * processes of the analysis, one row of the views (a member of two cells in every bin) */
    char *many = malloc(200000), *twin = malloc(200000);
    assert_non_null(many);
    assert_non_null(twin);
    char *texts_of[2] = {many, twin};
    for (int k = 0; k < 2; k++) {
        size_t len = (size_t)snprintf(texts_of[k], 200000, "[\n");
        for (int i = 0; i < 20 * 24 * 3; i++)
            len += (size_t)snprintf(texts_of[k] + len, 200000 - len,
                                    "{\"name\":\"f%d\",\"cat\":\"x\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":%d,\"ph\":\"X\"%s}\n",
                                    i % 24, k ? 1 : 1 + i / 24 % 20, 1000000 * (i / 480) + 13 * (i % 480) + 1, 1 + i % 7,
                                    k && i % 2 ? ",\"args\":{\"hostname\":\"unknown\"}" : "");
        snprintf(texts_of[k] + len, 200000 - len, "]\n");
    }
    /* the module's trace on one thread: compute and POSIX calls (kinds of other layers) share it */
    char *one = strdup(trace_text());
    assert_non_null(one);
    for (char *at; (at = strstr(one, "\"tid\":11"));)
        at[7] = '0';
    char *families = strdup(families_preset(24)); /* (temporary paths are reused after a few) */
    assert_non_null(families);
    /* many also in 4 KiB pieces read by two workers (a thread's cell of a bin may come from both) */
    const char *texts[] = {trace_text(), one, many, many, twin};
    const char *presets[] = {"posix", "dlio", families, families, families};
    const int64_t origins[] = {T0 * 1000, T0 * 1000, 1000, 1000, 1000}; /* ns: the first event of each */
    const uint64_t chunks[] = {0, 0, 0, 4096, 0};
    for (size_t x = 0; x < 5; x++)
        for (size_t m = 0; m < 3; m++) {
            fixture full, table;
            uint64_t chunk = chunks[x];
            analyse_text_as(&full, texts[x], presets[x], modes[m], origins[x], views, 6, false, chunk);
            analyse_text_as(&table, texts[x], presets[x], modes[m], origins[x], views, 6, true, chunk);
            assert_true(texts[x] != twin || table.la->total.proc_v.n == 2); /* one row, two processes */
            assert_non_null(full.r);
            assert_non_null(table.r);
            unsigned full_fams = 0, table_fams = 0;
            for (size_t l = 0; l < full.la->plan.nlayers; l++) {
                full_fams = full.la->nfam[l] > full_fams ? full.la->nfam[l] : full_fams;
                table_fams = table.la->nfam[l] > table_fams ? table.la->nfam[l] : table_fams;
            }
            assert_true(full_fams > 1); /* every preset here has derived metrics */
            assert_int_equal(table_fams, 1);
            assert_int_equal(full.r->nlayers, table.r->nlayers);
            for (size_t v = 0; v < 6; v++) {
                assert_true(full.r->views[v].ncolumns > 0);
                assert_int_equal(table.r->views[v].ncolumns, 0);
                for (size_t l = 0; l < full.r->nlayers; l++)
                    assert_same_summary(&full.r->views[v].layers[l], &table.r->views[v].layers[l]);
            }
            /* the exact engines measure per bin only for the time view's columns */
            size_t full_bins = 0, table_bins = 0;
            for (size_t p = 0; p < full.la->total.ovl.n; p++)
                full_bins += dfs_ovl_nbins(full.la->total.ovl.v[p]);
            for (size_t p = 0; p < table.la->total.ovl.n; p++)
                table_bins += dfs_ovl_nbins(table.la->total.ovl.v[p]);
            assert_true(modes[m] != DFS_COMPAT_NONE || strcmp(presets[x], "dlio") != 0 || full_bins > 0);
            assert_int_equal(table_bins, 0);
            fixture_free(&full);
            fixture_free(&table);
        }
    free(many);
    free(twin);
    free(one);
    free(families);
}

/* A consumer that gives each input file a worker state of its own, as if each had been read by a
 * worker of its own, whatever the pipeline's workers (one, so the states are used one at a time):
 * a thread written to two files then meets the merge every time, not when the scheduler says. */
typedef struct state_per_file {
    dfs_consumer *inner;
    void *state[4];
} state_per_file;

static void *spf_begin(void *user)
{
    return user;
}

static void spf_batch(void *worker_state, const dfs_run *run, const dfs_batch *batch)
{
    state_per_file *s = worker_state;
    assert_true(batch->file < 4);
    if (!s->state[batch->file])
        s->state[batch->file] = s->inner->worker_begin(s->inner->user);
    s->inner->on_batch(s->state[batch->file], run, batch);
}

static void spf_end(void *user, const dfs_run *run, void *worker_state)
{
    (void)worker_state;
    state_per_file *s = user;
    for (size_t i = 0; i < 4; i++)
        if (s->state[i]) {
            if (s->inner->worker_done)
                s->inner->worker_done(s->state[i], run);
            s->inner->worker_end(s->inner->user, run, s->state[i]);
        }
}

/* Analyses the texts as files, each with a worker state of its own (state_per_file). */
static void analyse_files_apart(fixture *f, const char *const *texts, size_t n, const char *preset, dfs_compat compat,
                                int64_t origin_ns, const dfs_view_type *views, size_t nviews, bool summaries_only)
{
    new_analysis(f, preset, compat, origin_ns, views, nviews, summaries_only);
    f->run = tu_run(1, 0, 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(dfs_run_add_path(f->run, tu_temp_file(".pfw", texts[i], strlen(texts[i]))), DFS_OK);
    state_per_file spf = {.inner = dfs_layered_consumer(f->la)};
    dfs_consumer wrap = {.user = &spf, .want = spf.inner->want, .worker_begin = spf_begin, .on_batch = spf_batch,
                         .worker_end = spf_end};
    dfs_consumer *c[] = {&wrap};
    assert_int_equal(dfs_run_read(f->run, c, 1), DFS_EXIT_OK);
    f->r = dfs_layered_finish(f->la, f->run);
}

/* A table run's time view takes each member's time straight from its cell when no member can be
 * several cells. Two files of one thread, each merged from a state of its own, give every
 * (layer, bin) of the thread two cells: the merge must say so, and the summaries must stay those
 * of a run that builds the columns (which groups the cells into members). Two files of two
 * threads share nothing: every member stays one cell. In the third case the first file's events
 * name a file that only the second defines: they wait for the end, unseen by the merge (which
 * then meets the thread once), and are looked up in the merged state, which misses the cells the
 * merge appended. */
static void test_merged_thread_cells_repeat(void **state)
{
    (void)state;
    static const dfs_view_type views[] = {DFS_VIEW_TIME_RANGE, DFS_VIEW_PROC_NAME, DFS_VIEW_FILE_NAME,
                                          DFS_VIEW_HOST_NAME,  DFS_VIEW_PROC_ID,   DFS_VIEW_THREAD_ID};
    static const dfs_compat modes[] = {DFS_COMPAT_NONE, DFS_COMPAT_DFANALYZER, DFS_COMPAT_DFANALYZER_SUM};
    char *families = strdup(families_preset(24));
    assert_non_null(families);
    for (int shared = 0; shared < 3; shared++) { /* two threads, one thread, one thread and late names */
        char *text[2];
        for (int k = 0; k < 2; k++) { /* the events of one thread over 3 seconds, every other one in each file */
            text[k] = malloc(120000);
            assert_non_null(text[k]);
            size_t len = (size_t)snprintf(text[k], 120000, "[\n");
            if (k == 1)
                len += (size_t)snprintf(text[k] + len, 120000 - len,
                                        "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
                                        "\"args\":{\"name\":\"/data/a\",\"value\":100}}\n");
            for (int i = k; i < 24 * 3 * 8; i += 2)
                len += (size_t)snprintf(text[k] + len, 120000 - len,
                                        "{\"name\":\"f%d\",\"cat\":\"x\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":%d,\"ph\":\"X\"%s}\n",
                                        i % 24, shared || k == 0 ? 1 : 2, 1000000 * (i / 192) + 13 * (i % 192) + 1,
                                        1 + i % 7, shared == 2 && k == 0 ? ",\"args\":{\"fhash\":100}" : "");
            snprintf(text[k] + len, 120000 - len, "]\n");
        }
        for (size_t m = 0; m < 3; m++) {
            fixture full, table;
            const char *texts[] = {text[0], text[1]};
            analyse_files_apart(&full, texts, 2, families, modes[m], 1000, views, 6, false);
            analyse_files_apart(&table, texts, 2, families, modes[m], 1000, views, 6, true);
            assert_non_null(full.r);
            assert_non_null(table.r);
            assert_int_equal(table.la->total.cells_repeat, shared > 0);
            assert_int_equal(table.la->total.proc_v.n, shared ? 1 : 2);
            for (size_t v = 0; v < 6; v++)
                for (size_t l = 0; l < full.r->nlayers; l++)
                    assert_same_summary(&full.r->views[v].layers[l], &table.r->views[v].layers[l]);
            fixture_free(&full);
            fixture_free(&table);
        }
        free(text[0]);
        free(text[1]);
    }
    free(families);
}

/* The rows of the time and process views take their totals from per-bin and per-thread sums kept
 * beside the slim time cells, their distributions over members from the time cells: both must
 * agree, also for a thread that comes back to a bin it left (its cells are then added to twice). */
static void test_row_totals_by_bin_and_thread(void **state)
{
    (void)state;
#define READ(id, pid, tid, ts, dur, ret)                                                                     \
    "{\"id\":" #id ",\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":" #pid ",\"tid\":" #tid ",\"ts\":" #ts \
    ",\"dur\":" #dur ",\"ph\":\"X\",\"args\":{\"hhash\":1,\"fhash\":100,\"ret\":" #ret "}}\n"
    static const char text[] =
        "[\n"
        "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":10,\"tid\":10,\"ph\":\"M\",\"args\":{\"name\":\"h1\",\"value\":1}}\n"
        "{\"id\":2,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":10,\"tid\":10,\"ph\":\"M\",\"args\":{\"name\":\"/p/lustre/data/f1\",\"value\":100}}\n"
        READ(3, 10, 11, 1000000, 10, 100) READ(4, 10, 11, 1000200, 20, 5000) READ(5, 10, 11, 2000100, 30, 2000000)
        READ(6, 10, 11, 1000300, 40, 1) READ(7, 10, 12, 1000500, 50, 10000) READ(8, 20, 21, 2000200, 60, 4096)
        READ(9, 20, 21, 2000300, 70, 3) "]\n";
#undef READ
    static const dfs_view_type views[] = {DFS_VIEW_TIME_RANGE, DFS_VIEW_PROC_NAME, DFS_VIEW_PROC_ID};
    fixture f;
    analyse_text(&f, text, "dlio", DFS_COMPAT_DFANALYZER, T0 * 1000, views, 3);
    assert_non_null(f.r);
    const dfs_view_result *tv = &f.r->views[0], *pv = &f.r->views[1], *iv = &f.r->views[2];
    assert_int_equal(tv->nrows, 2);
    /* bin 0: thread 11 (10 µs 100 B, 20 µs 5000 B, then back with 40 µs 1 B), thread 12 (50 µs) */
    assert_true(column(tv, 0, "posix_count_sum") == 4);
    assert_true(fabs(column(tv, 0, "posix_time_call_min") - 10e-6) < 1e-15);
    assert_true(fabs(column(tv, 0, "posix_time_call_max") - 50e-6) < 1e-15);
    assert_true(column(tv, 0, "posix_size_call_min") == 1);
    assert_true(column(tv, 0, "posix_size_call_max") == 10000);
    assert_true(column(tv, 0, "posix_size_sum") == 15101);
    assert_true(column(tv, 0, "posix_size_bin_0_4kib_sum") == 2);
    assert_true(column(tv, 0, "posix_size_bin_4kib_16kib_sum") == 2);
    assert_true(column(tv, 0, "posix_count_proc_max") == 3);
    assert_true(column(tv, 0, "posix_count_proc_min") == 1);
    assert_true(fabs(column(tv, 0, "posix_time_proc_max") - 70e-6) < 1e-15);
    assert_true(column(tv, 0, "posix_proc_name_nunique") == 2);
    /* bin 1: thread 11 (30 µs, 2 MB), thread 21 (60 and 70 µs) */
    assert_true(column(tv, 1, "posix_count_sum") == 3);
    assert_true(column(tv, 1, "posix_size_call_min") == 3);
    assert_true(column(tv, 1, "posix_size_bin_1mib_4mib_sum") == 1);
    assert_true(column(tv, 1, "posix_count_proc_max") == 2);
    assert_true(fabs(column(tv, 1, "posix_time_proc_max") - 130e-6) < 1e-15);
    /* threads: their totals over bins, their distributions over bins */
    assert_int_equal(pv->nrows, 3);
    assert_string_equal(pv->row_keys[0], "app#h1#10#11");
    assert_true(column(pv, 0, "posix_count_sum") == 4);
    assert_true(fabs(column(pv, 0, "posix_time_call_max") - 40e-6) < 1e-15);
    assert_true(column(pv, 0, "posix_size_sum") == 2005101);
    assert_true(column(pv, 0, "posix_count_proc_max") == 3);
    assert_true(column(pv, 0, "posix_count_proc_min") == 1);
    assert_true(column(pv, 2, "posix_size_call_max") == 4096);
    /* processes: the sums of their threads */
    assert_int_equal(iv->nrows, 2);
    assert_string_equal(iv->row_keys[0], "10");
    assert_true(column(iv, 0, "posix_count_sum") == 5);
    assert_true(column(iv, 0, "posix_size_call_max") == 2000000);
    assert_true(fabs(column(iv, 0, "posix_time_call_min") - 10e-6) < 1e-15);
    assert_true(column(iv, 0, "posix_count_proc_max") == 4);
    assert_true(column(iv, 0, "posix_count_proc_min") == 1);
    assert_true(column(iv, 1, "posix_count_sum") == 2);
    fixture_free(&f);
}

/* Distinct files are kept once per (bin or thread, file) with the layers they were seen in, in
 * groups of NUNIQ_GROUP layers: 33 size layers span two groups. Layer k takes the reads of files
 * f0..f(k % 4) only, so each layer's count of distinct files per bin and per thread is known, and
 * the same file reaches a row through several keys (threads, and events of different layers). */
static void test_distinct_files_over_layer_groups(void **state)
{
    (void)state;
    enum { LAYERS = 33, FILES = 4, THREADS = 3 };
    assert_true(LAYERS > NUNIQ_GROUP); /* two groups of layers */
    char yaml[16384];
    int n = snprintf(yaml, sizeof yaml,
                     "name: groups\ndescription: many size layers\ngeneration: g3\ntime_boundary: l0\n"
                     "auto_layers: false\ndetect_categories: []\nbase: posix\nlayers:\n");
    for (int k = 0; k < LAYERS; k++) {
        n += snprintf(yaml + n, sizeof yaml - (size_t)n,
                      "  - name: l%d\n    predicate: 'cat.str.contains(\"posix\") and func_name.isin([", k);
        for (int f = 0; f <= k % FILES; f++)
            n += snprintf(yaml + n, sizeof yaml - (size_t)n, "%s\"read%d\"", f ? ", " : "", f);
        n += snprintf(yaml + n, sizeof yaml - (size_t)n, "])'\n    parent: null\n    size_layer: true\n");
    }
    snprintf(yaml + n, sizeof yaml - (size_t)n, "additional_metrics: []\n");
    const char *preset = tu_temp_file(".yaml", yaml, strlen(yaml));
    char text[16384];
    size_t len = (size_t)snprintf(text, sizeof text, "[\n");
    for (int f = 0; f < FILES; f++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
                                "\"args\":{\"name\":\"/data/f%d\",\"value\":%d}}\n",
                                f, 100 + f);
    /* in each of 2 seconds, every thread reads every file twice with read<file index> */
    for (int sec = 0; sec < 2; sec++)
        for (int rep = 0; rep < 2; rep++)
            for (int t = 0; t < THREADS; t++)
                for (int f = 0; f < FILES; f++)
                    len += (size_t)snprintf(text + len, sizeof text - len,
                                            "{\"name\":\"read%d\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":%d,"
                                            "\"ts\":%d,\"dur\":5,\"ph\":\"X\",\"args\":{\"fhash\":%d,\"ret\":10}}\n",
                                            f, t + 1, 1000000 * sec + 100 * (rep * THREADS * FILES + t * FILES + f) + 1,
                                            100 + f);
    snprintf(text + len, sizeof text - len, "]\n");
    fixture fx;
    static const dfs_view_type views[] = {DFS_VIEW_TIME_RANGE, DFS_VIEW_PROC_NAME, DFS_VIEW_PROC_ID};
    analyse_text(&fx, text, preset, DFS_COMPAT_DFANALYZER, 1000, views, 3);
    assert_non_null(fx.r);
    const dfs_view_result *tv = &fx.r->views[0], *pv = &fx.r->views[1], *iv = &fx.r->views[2];
    assert_int_equal(tv->nrows, 2);
    assert_int_equal(pv->nrows, THREADS);
    assert_int_equal(iv->nrows, 1);
    for (int k = 0; k < LAYERS; k++) {
        char name[64];
        double files = k % FILES + 1;
        snprintf(name, sizeof name, "l%d_file_name_nunique", k);
        for (size_t row = 0; row < 2; row++)
            assert_true(column(tv, row, name) == files);
        for (size_t row = 0; row < THREADS; row++)
            assert_true(column(pv, row, name) == files);
        assert_true(column(iv, 0, name) == files); /* the threads' files, each counted once */
        snprintf(name, sizeof name, "l%d_count_sum", k);
        assert_true(column(tv, 0, name) == 2 * THREADS * files);
    }
    fixture_free(&fx);
}

/* The streaming rule (analyze/common/watermark.h): W = T − max(2L, M) while the input is read, T once
 * it is idle; saturated at both ends for absurd clocks; the hold's checks and budget. */
static void test_stream_watermark(void **state)
{
    (void)state;
    dfs_stream_mark m = dfs_stream_mark_new();
    assert_true(m.t_end == INT64_MIN);
    dfs_stream_mark_note(&m, 100, 130, false); /* L = 30 */
    dfs_stream_mark_note(&m, 150, 160, false); /* T = 160 */
    assert_true(dfs_stream_mark_watermark(&m) == 100);
    dfs_stream_mark_note(&m, 40, 150, true); /* a marker: M = 110 > 2L */
    assert_true(m.t_end == 160 && m.lag == 30 && m.mlag == 110);
    assert_true(dfs_stream_mark_watermark(&m) == 50);
    m.idle = true;
    assert_true(dfs_stream_mark_watermark(&m) == 160);
    dfs_stream_mark_note(&m, 170, 171, false); /* read again */
    assert_false(m.idle);
    assert_true(dfs_stream_mark_watermark(&m) == 171 - 110);
    dfs_stream_mark huge = dfs_stream_mark_new();
    dfs_stream_mark_note(&huge, INT64_MIN, INT64_MAX, false); /* the longest event saturates */
    assert_true(huge.lag == INT64_MAX);
    assert_true(dfs_stream_mark_watermark(&huge) == 0); /* T − max(2L, M) = MAX − MAX */
    dfs_stream_mark_note(&huge, INT64_MIN, -5, false);
    huge.t_end = -5;
    assert_true(dfs_stream_mark_watermark(&huge) == INT64_MIN); /* −5 − MAX underflows */
    assert_true(dfs_hold_of(0) == DFS_HOLD_DEFAULT && dfs_hold_of(7) == 7);
    assert_true(dfs_hold_check_every(DFS_HOLD_DEFAULT) == DFS_HOLD_CHECK_EVERY);
    assert_true(dfs_hold_check_every(2000) == 501);
    assert_true(dfs_hold_check_every(0) == 1);
    assert_true(dfs_hold_next_budget(10, 2000) == 2000);
    assert_true(dfs_hold_next_budget(1500, 2000) == 3000);
}

/* Enough cells to fill several pools (a pool never grows: a full one makes way for a new one), with
 * every cell still where its row and its totals find it. */
static void test_cells_over_several_pools(void **state)
{
    (void)state;
    enum { THREADS = 100, BINS = 120, FUNCS = 24 };
    const char *preset = families_preset(FUNCS);
    size_t cap = (size_t)THREADS * BINS * 128 + 16, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text, cap, "[\n");
    for (int b = 0; b < BINS; b++)
        for (int t = 0; t < THREADS; t++)
            len += (size_t)snprintf(text + len, cap - len,
                                    "{\"name\":\"f%d\",\"cat\":\"x\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":%d,\"ph\":\"X\"}\n",
                                    t % FUNCS, t + 1, 1000000 * b + t + 1, t + 1);
    snprintf(text + len, cap - len, "]\n");
    fixture fx;
    static const dfs_view_type views[] = {DFS_VIEW_TIME_RANGE, DFS_VIEW_PROC_NAME};
    analyse_text(&fx, text, preset, DFS_COMPAT_DFANALYZER, 1000, views, 2);
    free(text);
    assert_non_null(fx.r);
    assert_true(fx.la->total.pools.n >= 3); /* two of time cells at least, one of totals */
    const dfs_view_result *tv = &fx.r->views[0], *pv = &fx.r->views[1];
    assert_int_equal(tv->nrows, BINS);
    assert_int_equal(pv->nrows, THREADS);
    for (size_t row = 0; row < BINS; row++) {
        assert_true(column(tv, row, "all_count_sum") == THREADS);
        assert_true(column(tv, row, "all_count_proc_max") == 1);
        assert_true(fabs(column(tv, row, "all_time_call_max") - THREADS * 1e-6) < 1e-15);
        assert_true(column(tv, row, "all_d0_count_sum") == (THREADS + FUNCS - 1) / FUNCS);
    }
    for (size_t row = 0; row < THREADS; row++) { /* rows by name: app#host#1#<tid> */
        int tid = atoi(strrchr(pv->row_keys[row], '#') + 1);
        assert_true(column(pv, row, "all_count_sum") == BINS);
        assert_true(fabs(column(pv, row, "all_time_call_min") - tid * 1e-6) < 1e-15);
    }
    fixture_free(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_post_read_and_raw_stats),
        cmocka_unit_test(test_layers_sizes_and_bins),
        cmocka_unit_test(test_reference_u_is_a_subtraction),
        cmocka_unit_test(test_exact_u_from_intervals),
        cmocka_unit_test(test_exact_rows_dense_and_sparse_bins),
        cmocka_unit_test(test_sum_semantics_and_process_views),
        cmocka_unit_test(test_origin_check_and_shift),
        cmocka_unit_test(test_zero_and_empty),
        cmocka_unit_test(test_repeated_and_string_args),
        cmocka_unit_test(test_size_bin_edges),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_overlap_percent),
        cmocka_unit_test(test_views_and_compat_names),
        cmocka_unit_test(test_staging_many_threads_and_kinds),
        cmocka_unit_test(test_row_totals_by_bin_and_thread),
        cmocka_unit_test(test_table_run_skips_derived_families),
        cmocka_unit_test(test_merged_thread_cells_repeat),
        cmocka_unit_test(test_cells_over_several_pools),
        cmocka_unit_test(test_distinct_files_over_layer_groups),
        cmocka_unit_test(test_stream_watermark),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
