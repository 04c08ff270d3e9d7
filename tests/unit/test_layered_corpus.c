/* test_layered_corpus.c - `dfscope analyze` semantics against reference/dlio-unet3d-hdf5-8rank.md:
 * the README table (dfanalyzer-sum, §3), the G3 numbers (dfanalyzer, §4), and the numbers
 * DFAnalyzer itself printed (§6: dlio-g2, 5 s bins, time_range and proc_name views, both the
 * author's and the LLNL version), at -j1 and -j2 with small pieces. Skipped without the corpus. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/preset.h"
#include "analyze/common/preview.h"
#include "analyze/layered/layered.h"
#include "output/layered_report.h"
#include "testutil.h"

#define DIR "dftracer/dlio-unet3d-hdf5-8rank"
#define NONE (-1.0)

typedef struct expect {
    const char *layer;
    double time;   /* s */
    uint64_t count;
    double size;   /* bytes; NONE: null */
    double u_time; /* NONE: the layer has no u_ */
    uint64_t u_count;
    double u_size; /* NONE: null */
    uint64_t files, procs;
} expect;

typedef struct setup {
    const char *preset;
    dfs_compat compat;
    int64_t granularity_ns;
    dfs_view_type views[2];
    size_t nviews;
} setup;

typedef struct analysis {
    dfs_preset *preset;
    dfs_run *run;
    dfs_layered *la;
    const dfs_layered_result *r;
} analysis;

/* Reads the fixture with the provisional origin from the preview, as the CLI does. */
static void run_analysis(const setup *s, int jobs, uint64_t chunk, analysis *an)
{
    dfs_preset_error perr;
    an->preset = dfs_preset_load(s->preset, &perr);
    assert_non_null(an->preset);
    char *path = (char *)tu_trace(DIR);
    dfs_options o;
    dfs_options_init(&o);
    dfs_preview pv;
    assert_int_equal(dfs_preview_run(&path, 1, &o, 256 << 10, &pv), DFS_EXIT_OK);
    assert_true(pv.have_origin);
    dfs_layered_options lo = {.preset = an->preset, .compat = s->compat, .granularity_ns = s->granularity_ns,
                              .origin_ns = pv.origin_ns};
    for (size_t i = 0; i < s->nviews; i++) {
        lo.order[lo.norder++] = s->views[i];
        lo.views |= 1u << s->views[i];
    }
    char err[256];
    an->la = dfs_layered_new(&lo, err, sizeof err);
    assert_non_null(an->la);
    an->run = tu_run(jobs, chunk, 0);
    assert_int_equal(dfs_run_add_path(an->run, path), DFS_OK);
    dfs_consumer *c[] = {dfs_layered_consumer(an->la)};
    assert_int_equal(dfs_run_read(an->run, c, 1), DFS_EXIT_OK);
    an->r = dfs_layered_finish(an->la, an->run);
    assert_non_null(an->r); /* the fixture's first line holds its origin: no second pass */
    dfs_preview_free(&pv);
}

static void analysis_free(analysis *an)
{
    dfs_layered_free(an->la);
    dfs_run_free(an->run);
    dfs_preset_free(an->preset);
}

static void close_to(const char *what, const char *layer, double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("%s of %s: got %.9f, want %.9f", what, layer, got, want);
}

static void check_layers(const analysis *an, size_t view, const expect *e, size_t n)
{
    const dfs_view_result *v = &an->r->views[view];
    for (size_t i = 0; i < n; i++) {
        size_t l = 0;
        while (l < an->r->nlayers && strcmp(an->r->layers[l].name, e[i].layer) != 0)
            l++;
        assert_true(l < an->r->nlayers);
        const dfs_layer_summary *s = &v->layers[l];
        close_to("time", e[i].layer, s->time_s, e[i].time, 5e-7);
        if (s->count != e[i].count)
            fail_msg("count of %s: got %llu, want %llu", e[i].layer, (unsigned long long)s->count,
                     (unsigned long long)e[i].count);
        if (e[i].size == NONE)
            assert_true(!s->sized || s->size == 0);
        else
            close_to("size", e[i].layer, (double)s->size, e[i].size, 0.5);
        if (e[i].u_time == NONE) {
            assert_false(s->has_u);
        } else {
            assert_true(s->has_u);
            close_to("u_time", e[i].layer, s->u_time_s, e[i].u_time, 5e-7);
            if (s->u_count != e[i].u_count)
                fail_msg("u_count of %s: got %llu, want %llu", e[i].layer, (unsigned long long)s->u_count,
                         (unsigned long long)e[i].u_count);
            close_to("u_size", e[i].layer, e[i].u_size == NONE ? NONE : (double)s->u_size, e[i].u_size, 0.5);
        }
        if (s->num_files != e[i].files || s->num_processes != e[i].procs)
            fail_msg("files/processes of %s: got %llu/%llu, want %llu/%llu", e[i].layer,
                     (unsigned long long)s->num_files, (unsigned long long)s->num_processes,
                     (unsigned long long)e[i].files, (unsigned long long)e[i].procs);
        if (s->count && s->time_s > 0)
            close_to("ops", e[i].layer, s->ops, (double)e[i].count / e[i].time, 1e-9 * s->ops + 1e-6);
    }
}

/* §3: the README table, G2-initial semantics (sums over processes), 1 s bins. */
static const expect readme[] = {
    {"app", 441.966973, 8, NONE, NONE, 0, NONE, 0, 8},
    {"training", 439.442298, 40, NONE, NONE, 0, NONE, 0, 8},
    {"compute", 272.355584, 200, NONE, NONE, 0, NONE, 0, 8},
    {"fetch_data", 126.178714, 160, NONE, 105.471272, 120, NONE, 0, 8},
    {"data_loader", 151.471156, 808, NONE, 83.234912, 438, NONE, 0, 8},
    {"data_loader_fork", 2.391901, 96, NONE, 2.391901, 96, NONE, 0, 35},
    {"reader", 299.992455, 4008, NONE, 179.857754, 1972, NONE, 0, 8},
    {"reader_posix_lustre", 127.811958, 10432, 117265568800.0, 69.964800, 5472, 62737081820.0, 32, 8},
    {"checkpoint", 0.013997, 8, NONE, 0.013997, 8, NONE, 0, 8},
    {"checkpoint_posix_lustre", 0.013767, 45, 11420, 0.013767, 45, 11420, 3, 8},
    {"checkpoint_posix_ssd", 0, 0, NONE, 0, 0, NONE, 0, 0},
    {"other_posix", 2.391901, 96, NONE, 2.391901, 96, NONE, 0, 35},
};

static void test_readme_table(void **state)
{
    (void)state;
    setup s = {"dlio-g2", DFS_COMPAT_DFANALYZER_SUM, INT64_C(1000000000), {DFS_VIEW_TIME_RANGE}, 1};
    analysis an;
    run_analysis(&s, 2, 64 << 10, &an);
    check_layers(&an, 0, readme, sizeof readme / sizeof *readme);
    assert_int_equal(an.r->layer_count_total, 15901);
    assert_true(fabs(an.r->job_time_s - 56.695354) < 1e-9);
    /* the printed overlap percentages, including the 46.4999979 % size case */
    const dfs_view_result *v = &an.r->views[0];
    const dfs_layer_summary *rpl = &v->layers[7];
    assert_int_equal(dfs_overlap_percent(rpl->u_time_s, rpl->u_base_s), 45);
    assert_int_equal(dfs_overlap_percent((double)rpl->u_count, (double)rpl->count), 48);
    assert_int_equal(dfs_overlap_percent((double)rpl->u_size, (double)rpl->size), 46);
    assert_int_equal(dfs_overlap_percent(v->layers[3].u_time_s, v->layers[3].time_s), 16);
    char bw[32];
    snprintf(bw, sizeof bw, "%.3f", rpl->bandwidth / 1048576.0);
    assert_string_equal(bw, "874.982");
    analysis_free(&an);
}

/* §4.3: G3 semantics and layer set, 1 s bins. */
static const expect g3[] = {
    {"app", 55.245983, 8, NONE, NONE, 0, NONE, 0, 8},
    {"training", 55.245983, 8, NONE, NONE, 0, NONE, 0, 8},
    {"epoch", 54.937481, 40, NONE, NONE, 0, NONE, 0, 8},
    {"compute", 40.854255, 200, NONE, NONE, 0, NONE, 0, 8},
    {"fetch_data", 16.888975, 160, NONE, NONE, 0, NONE, 0, 8},
    {"checkpoint", 0.004539, 8, NONE, NONE, 0, NONE, 0, 8},
    {"data_loader", 21.870756, 816, NONE, 10.013589, 348, NONE, 0, 8},
    {"data_loader_fork", 0.180824, 96, NONE, 0.180824, 96, NONE, 0, 35},
    {"reader", 21.479554, 3200, NONE, 9.650677, 1046, NONE, 0, 8},
    {"posix", 18.489813, 10581, 117265580220.0, 8.491179, 4344, 48372061062.0, 32, 35},
    {"reader_posix", 18.345610, 10432, 117265568800.0, 8.346976, 4195, 48372049642.0, 32, 8},
    {"checkpoint_posix", 0.004313, 45, 11420, NONE, 0, NONE, 3, 8},
};

/* §4.5: the G3 proc_name view. */
static const expect g3_proc[] = {
    {"epoch", 54.935754, 40, NONE, NONE, 0, NONE, 0, 0},
    {"compute", 34.044802, 200, NONE, NONE, 0, NONE, 0, 0},
    {"fetch_data", 16.360518, 160, NONE, NONE, 0, NONE, 0, 0},
    {"data_loader", 19.738648, 816, NONE, 0, 0, NONE, 0, 0},
    {"data_loader_fork", 0.167440, 96, NONE, 0.030641, 48, NONE, 0, 0},
    {"reader", 19.380754, 3200, NONE, 0, 0, NONE, 0, 0},
    {"posix", 16.531338, 10581, 117265580220.0, 0.030641, 48, 0, 27, 0},
    {"reader_posix", 16.375653, 10432, 117265568800.0, 0, 0, 0, 23, 0},
    {"checkpoint_posix", 0.003501, 45, 11420, NONE, 0, NONE, 3, 0},
};

static void test_g3(void **state)
{
    (void)state;
    setup s = {"dlio", DFS_COMPAT_DFANALYZER, INT64_C(1000000000), {DFS_VIEW_TIME_RANGE, DFS_VIEW_PROC_NAME}, 2};
    analysis an;
    run_analysis(&s, 1, 0, &an);
    check_layers(&an, 0, g3, sizeof g3 / sizeof *g3);
    check_layers(&an, 1, g3_proc, sizeof g3_proc / sizeof *g3_proc);
    assert_int_equal(an.r->events, 18039);
    assert_int_equal(an.r->unique_files, 166);
    assert_int_equal(an.r->unique_hosts, 1);
    assert_int_equal(an.r->unique_processes, 8);
    /* the 54.5015 % boundary case prints 55; overheads of §4.4 */
    const dfs_layer_summary *rp = &an.r->views[0].layers[10];
    assert_int_equal(dfs_overlap_percent(rp->u_time_s, rp->time_s), 55);
    static const struct { size_t layer; double o; } overheads[] = {
        {1, 39.471136}, {2, 47.578276}, {4, 6.725522}, {6, 0.396732}, {8, 3.140483}, {5, 0.001149}};
    for (size_t i = 0; i < sizeof overheads / sizeof *overheads; i++)
        close_to("overhead", an.r->layers[overheads[i].layer].name,
                 an.r->views[0].layers[overheads[i].layer].overhead_s, overheads[i].o, 5e-7);
    analysis_free(&an);
}

/* §6: what DFAnalyzer printed, dlio-g2 layers, 5 s bins. */
static const expect printed_time[] = {
    {"app", 55.245983, 8, NONE, NONE, 0, NONE, 0, 8},
    {"training", 54.937481, 40, NONE, NONE, 0, NONE, 0, 8},
    {"compute", 35.406906, 200, NONE, NONE, 0, NONE, 0, 8},
    {"fetch_data", 16.791711, 160, NONE, 1.561284, 24, NONE, 0, 8},
    {"data_loader", 20.422122, 808, NONE, 1.148434, 104, NONE, 0, 8},
    {"data_loader_fork", 0.16744, 96, NONE, 0, 0, NONE, 0, 56},
    {"reader", 40.304078, 4008, NONE, 10.016919, 1887, NONE, 0, 8},
    {"reader_posix_lustre", 17.191216, 10432, 117265568800.0, 0.752761, 1274, 14071868256.0, 96, 8},
    {"checkpoint", 0.004539, 8, NONE, 0, 0, NONE, 0, 8},
    {"checkpoint_posix_lustre", 0.004313, 45, 11420, 0, 0, 0, 3, 8},
    {"checkpoint_posix_ssd", 0, 0, NONE, 0, 0, NONE, 0, 0},
    {"other_posix", 0.16744, 96, NONE, 0, 0, NONE, 0, 56},
};

static const expect printed_proc[] = {
    {"app", 55.245983, 8, NONE, NONE, 0, NONE, 0, 0},
    {"training", 54.935754, 40, NONE, NONE, 0, NONE, 0, 0},
    {"compute", 34.044802, 200, NONE, NONE, 0, NONE, 0, 0},
    {"fetch_data", 16.360518, 160, NONE, 0, 0, NONE, 0, 0},
    {"data_loader", 19.590856, 808, NONE, 0, 0, NONE, 0, 0},
    {"data_loader_fork", 0.16744, 96, NONE, 0.030641, 48, NONE, 0, 0},
    {"reader", 38.814448, 4008, NONE, 4.769891, 4008, NONE, 0, 0},
    {"reader_posix_lustre", 16.375653, 10432, 117265568800.0, 0, 0, 0, 23, 0},
    {"checkpoint_posix_lustre", 0.003501, 45, 11420, 0, 0, 0, 3, 0},
    {"other_posix", 0.16744, 96, NONE, 0.030641, 48, NONE, 0, 0},
};

static void test_dfanalyzer_printed(void **state)
{
    (void)state;
    setup s = {"dlio-g2", DFS_COMPAT_DFANALYZER, INT64_C(5000000000), {DFS_VIEW_TIME_RANGE, DFS_VIEW_PROC_NAME}, 2};
    analysis an;
    run_analysis(&s, 2, 64 << 10, &an);
    check_layers(&an, 0, printed_time, sizeof printed_time / sizeof *printed_time);
    check_layers(&an, 1, printed_proc, sizeof printed_proc / sizeof *printed_proc);
    assert_int_equal(an.r->layer_count_total, 15901);
    assert_int_equal(an.r->views[0].total_files, 99);
    assert_int_equal(an.r->views[1].total_files, 26);
    assert_int_equal(an.r->views[0].total_processes, 56);
    assert_int_equal(an.r->views[1].total_processes, 56);
    analysis_free(&an);
}

/* §6, LLNL version: the proc_name view summed over processes. */
static const expect llnl_proc[] = {
    {"app", 441.966973, 8, NONE, NONE, 0, NONE, 0, 0},
    {"compute", 272.355584, 200, NONE, NONE, 0, NONE, 0, 0},
    {"data_loader_fork", 2.391901, 96, NONE, 1.20153, 48, NONE, 0, 0},
    {"reader", 299.992455, 4008, NONE, 27.636871, 4008, NONE, 0, 0},
    {"reader_posix_lustre", 127.811958, 10432, 117265568800.0, 0, 0, 0, 23, 0},
    {"checkpoint_posix_lustre", 0.013767, 45, 11420, 0, 0, 0, 3, 0},
    {"other_posix", 2.391901, 96, NONE, 1.20153, 48, NONE, 0, 0},
};

static void test_dfanalyzer_sum_process_view(void **state)
{
    (void)state;
    setup s = {"dlio-g2", DFS_COMPAT_DFANALYZER_SUM, INT64_C(5000000000), {DFS_VIEW_PROC_NAME}, 1};
    analysis an;
    run_analysis(&s, 2, 0, &an);
    check_layers(&an, 0, llnl_proc, sizeof llnl_proc / sizeof *llnl_proc);
    analysis_free(&an);
}

/* Exact mode (§5.1): the loader is synchronous, so per process nothing of the I/O is hidden. */
static void test_exact_overlap(void **state)
{
    (void)state;
    setup s = {"dlio", DFS_COMPAT_NONE, INT64_C(1000000000), {DFS_VIEW_TIME_RANGE}, 1};
    analysis an;
    run_analysis(&s, 2, 64 << 10, &an);
    const dfs_layer_summary *px = &an.r->views[0].layers[9];
    assert_string_equal(an.r->layers[9].name, "posix");
    close_to("exact |I|", "posix", px->u_base_s, 129.028577, 5e-7);
    close_to("exact u", "posix", px->u_time_s, 129.028577, 5e-7);
    assert_int_equal(dfs_overlap_percent(px->u_time_s, px->u_base_s), 0);
    analysis_free(&an);
}

int main(void)
{
    tu_require_corpus();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_readme_table),
        cmocka_unit_test(test_g3),
        cmocka_unit_test(test_dfanalyzer_printed),
        cmocka_unit_test(test_dfanalyzer_sum_process_view),
        cmocka_unit_test(test_exact_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
