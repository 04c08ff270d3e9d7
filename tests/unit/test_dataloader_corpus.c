/* test_dataloader_corpus.c - `dfscope dataloader` on ../shared/traces: the smdebug assertions of
 * reference/training-loop.md §2 that concern reading and windows (event counts per file, node
 * ids, window counts, folder reads, the Horovod timeline, the corrupt system-metric file) through
 * the analysis' own window queries; the merge_traces batch-time numbers with the GetNext pattern
 * pointed at IteratorGetNextOp::DoCompute; "the events are not present" for all four analyses on
 * every fixture with the default patterns; and the GetNext mappings of the Kineto, Composer and
 * DFTracer samples. Skips without the corpus. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "analyze/dataloader/dataloader.h"
#include "output/dataloader_report.h"

#define RES "smdebug/tests/profiler/resources/"
#define SEC(s, frac4) ((int64_t)(s) * 1000000000 + (int64_t)(frac4) * 100000) /* s.ffff -> ns */
#define US(us) ((int64_t)(us) * 1000)

typedef struct analysis {
    dfs_run *run;
    dfs_dataloader *d;
    const dfs_dl_result *r;
    int rc;
} analysis;

static void analyse_pattern(analysis *a, const char *rel, const char *getnext)
{
    char err[256];
    dfs_dl_options o;
    dfs_dl_options_init(&o);
    o.pattern[DFS_DL_GETNEXT] = getnext;
    a->run = tu_run(2, 0, 0);
    assert_int_equal(dfs_run_add_path(a->run, tu_trace(rel)), DFS_OK);
    a->d = dfs_dl_new(&o, err, sizeof err);
    assert_non_null(a->d);
    dfs_consumer *c[] = {dfs_dl_consumer(a->d)};
    a->rc = dfs_run_read(a->run, c, 1);
    a->r = dfs_dl_finish(a->d, a->run);
    assert_non_null(a->r);
}

static void analyse(analysis *a, const char *rel)
{
    analyse_pattern(a, rel, NULL);
}

static void done(analysis *a)
{
    dfs_dl_free(a->d);
    dfs_run_free(a->run);
}

static size_t samples_in(const analysis *a, int64_t start, int64_t end, const char *type)
{
    return dfs_dl_samples_in(a->r, a->run, start, end, type, NULL);
}

/* All samples of a window are of `type`. */
static bool all_of_type(const analysis *a, int64_t start, int64_t end, const char *type)
{
    return samples_in(a, start, end, NULL) == samples_in(a, start, end, type);
}

static void assert_nothing_present(const analysis *a)
{
    for (int s = 0; s < DFS_DL_NSETS; s++)
        assert_int_equal(a->r->nrows[s], 0);
    assert_int_equal(a->r->init[0].stats.count + a->r->init[1].stats.count, 0);
    assert_int_equal(a->r->workers.count, 0);
    assert_int_equal(a->r->getnext.count, 0);
    assert_int_equal(a->r->ngaps, 0);
    assert_int_equal(a->r->nwindows, 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    dfs_dl_report_options o = {0};
    dfs_dl_write_text(f, a->run, a->r, &o);
    fclose(f);
    size_t n = 0;
    for (const char *p = buf; (p = strstr(p, "the events are not present")) != NULL; p++)
        n++;
    assert_int_equal(n, 4); /* initializations, workers, GetNext, batch time */
    free(buf);
}

/* ---- framework files -------------------------------------------------------------------------- */

static void t_model_timeline(void **state)
{
    (void)state;
    analysis a;
    analyse(&a, RES "1589314018481947000_1234-testhost_model_timeline.json");
    assert_int_equal(a.r->nevents, 49);
    assert_string_equal(dfs_dl_label(a.r, a.r->events[0].node), "1234-testhost");
    assert_int_equal(a.r->events[0].start, US(1589314018458743));
    int64_t last_end = 0;
    for (size_t i = 0; i < a.r->nevents; i++)
        last_end = a.r->events[i].end > last_end ? a.r->events[i].end : last_end;
    assert_int_equal(last_end, US(1589314018481947));
    assert_int_equal(dfs_dl_events_in(a.r, 0, SEC(1589314018, 4700), NULL), 39);
    assert_nothing_present(&a);
    done(&a);
}

static void t_framework_folder(void **state)
{
    (void)state;
    analysis a;
    analyse(&a, RES "test_traces/framework");
    assert_int_equal(a.r->framework_files, 4);
    assert_int_equal(dfs_dl_events_in(a.r, SEC(1589930980, 0), SEC(1589930995, 0), NULL), 4);
    done(&a);
    analyse(&a, RES "model_timeline_traces");
    assert_int_equal(a.r->nevents, 56 + 1 + 52);
    size_t *idx = NULL;
    assert_int_equal(dfs_dl_events_in(a.r, US(1590461127873222), US(1590461139949971), &idx), 54);
    assert_non_null(idx);
    assert_string_equal(dfs_dl_label(a.r, a.r->events[idx[0]].node), "0001");
    free(idx);
    done(&a);
}

static void t_horovod(void **state)
{
    (void)state;
    analysis a;
    analyse(&a, RES "horovod_timeline_traces/framework/pevents/2020070206/"
                    "1593673051473228_88359-8c859046be41.ant.amazon.com_horovod_timeline.json");
    assert_int_equal(a.r->nevents, 19);
    assert_int_equal(a.r->orphan_ends, 2);    /* the two E have no B in their pid */
    assert_int_equal(a.r->unclosed_begins, 4);
    assert_int_equal(a.r->events[0].start, US(1592860696000713));
    int64_t last_end = 0;
    for (size_t i = 0; i < a.r->nevents; i++)
        last_end = a.r->events[i].end > last_end ? a.r->events[i].end : last_end;
    assert_int_equal(last_end, US(1593673051473228));
    assert_int_equal(dfs_dl_events_in(a.r, US(1593673051473000), US(1593673051473228), NULL), 12);
    assert_string_equal(dfs_dl_label(a.r, a.r->events[0].node), "88359-8c859046be41.ant.amazon.com");
    done(&a);
    analyse(&a, RES "horovod_timeline_traces");
    assert_int_equal(a.r->framework_files, 1); /* the second file holds only M and i records */
    assert_int_equal(dfs_dl_events_in(a.r, US(1593673051472800), US(1593673051473100), NULL), 15);
    done(&a);
}

/* ---- system-metric files ---------------------------------------------------------------------- */

static void t_system_file(void **state)
{
    (void)state;
    analysis a;
    analyse(&a, RES "1591160699.algo-1.json");
    assert_int_equal(a.r->nsamples, 14);
    assert_string_equal(dfs_dl_label(a.r, a.r->samples[0].node), "algo-1");
    assert_int_equal(samples_in(&a, 0, SEC(1591170700, 4570), NULL), 14);
    assert_int_equal(samples_in(&a, 0, SEC(1591170700, 4570), "cpu"), 4);
    assert_int_equal(samples_in(&a, 0, SEC(1591167699, 9572), NULL), 11);
    assert_int_equal(samples_in(&a, SEC(1591169699, 4579), SEC(2591167699, 9572), NULL), 2);
    assert_true(all_of_type(&a, SEC(1591169699, 4579), SEC(2591167699, 9572), "gpu"));
    assert_int_equal(samples_in(&a, 0, 0, "gpu"), 0);
    assert_int_equal(a.r->origin, SEC(1591160699, 0));
    assert_int_equal(a.r->sysfiles[0].status, DFS_DL_SYS_OK);
    assert_int_equal(a.rc, DFS_EXIT_OK);
    done(&a);
}

/* The last line is cut after "NodeId":"algo-1": skipped, counted, reported by the reader. */
static void t_corrupt_system_file(void **state)
{
    (void)state;
    analysis a;
    analyse(&a, RES "1591160699.algo-1.json.corrupt");
    assert_int_equal(a.r->nsamples, 13);
    assert_int_equal(samples_in(&a, 0, SEC(1591170700, 4570), NULL), 13);
    assert_int_equal(samples_in(&a, 0, SEC(1591170700, 4570), "cpu"), 4);
    assert_int_equal(samples_in(&a, 0, SEC(1591167699, 9572), NULL), 11);
    assert_int_equal(samples_in(&a, SEC(1591169699, 4579), SEC(2591167699, 9572), NULL), 1);
    assert_int_equal(samples_in(&a, SEC(1591169699, 4579), SEC(2591167699, 9572), "gpu"), 1);
    assert_int_equal(samples_in(&a, 0, 0, "gpu"), 0);
    assert_int_equal(a.r->nsysfiles, 1);
    assert_int_equal(a.r->sysfiles[0].status, DFS_DL_SYS_LAST_LINE_SKIPPED);
    assert_int_equal(a.r->sysfiles[0].bad_lines, 1);
    assert_int_equal(a.r->last_lines_skipped, 1);
    assert_int_equal(a.r->rejected_files, 0);
    assert_int_equal(dfs_run_problem_count(a.run, DFS_PROB_BAD_LINE), 1); /* in the problem report */
    assert_int_equal(a.rc, DFS_EXIT_DAMAGED);
    done(&a);
}

static void t_system_folder(void **state)
{
    (void)state;
    analysis a;
    analyse(&a, RES "test_traces/system");
    assert_int_equal(a.r->nsysfiles, 3);
    assert_int_equal(samples_in(&a, SEC(1591100000, 0), SEC(1692300000, 0), NULL), 78);
    assert_int_equal(samples_in(&a, SEC(1591100000, 0), SEC(1692300000, 0), "cpu"), 68);
    assert_int_equal(samples_in(&a, SEC(1591100000, 0), SEC(1591167699, 0), NULL), 10);
    assert_int_equal(samples_in(&a, SEC(1591748165, 0), SEC(1600000000, 0), NULL), 32);
    assert_int_equal(a.r->origin, SEC(1591160699, 0)); /* the first system-metric file */
    done(&a);
}

/* ---- the analyses on the fixtures ------------------------------------------------------------- */

static void t_merge_traces_default(void **state)
{
    (void)state;
    analysis a;
    analyse(&a, RES "merge_traces");
    assert_int_equal(a.r->framework_files, 3);
    assert_int_equal(a.r->nevents, 1 + 661 + 40);
    assert_nothing_present(&a);
    done(&a);
}

static void t_every_fixture_default(void **state)
{
    (void)state;
    analysis a;
    analyse(&a, "smdebug");
    assert_true(a.r->framework_files >= 10);
    assert_nothing_present(&a);
    done(&a);
}

/* reference §2: smdebug-style batch time on the 40 DoCompute starts. */
static void t_merge_traces_docompute(void **state)
{
    (void)state;
    analysis a;
    analyse_pattern(&a, RES "merge_traces", "IteratorGetNextOp::DoCompute");
    const dfs_dl_result *r = a.r;
    assert_int_equal(r->nrows[DFS_DL_GETNEXT], 40);
    assert_true(r->getnext.median_us == 32);
    static const int64_t slow_fetch_us[] = {5332, 1969, 65};
    assert_int_equal(r->getnext.noutliers, 3);
    for (size_t k = 0; k < 3; k++) {
        const dfs_dl_row *row = &r->rows[DFS_DL_GETNEXT][r->getnext.outliers[k]];
        assert_int_equal(row->end - row->start, US(slow_fetch_us[k]));
    }
    assert_int_equal(r->ngaps, 39);
    assert_int_equal(r->batch_groups, 1);
    assert_int_equal(r->negative_gaps, 0);
    assert_true(r->batch.median_us == 85156);
    static const int64_t slow_batch_us[] = {2608205, 2085947, 1354669};
    static const char *const from[] = {"2020-07-13T17:50:14:814909", "2020-07-13T17:50:21:170725",
                                       "2020-07-13T17:50:19:816056"};
    assert_int_equal(r->batch.noutliers, 3);
    for (size_t k = 0; k < 3; k++) {
        const dfs_dl_gap *g = &r->gaps[r->batch.outliers[k]];
        char t[48];
        assert_int_equal(g->gap, US(slow_batch_us[k]));
        assert_string_equal(dfs_dl_fmt_time(t, sizeof t, g->prev_start), from[k]);
    }
    assert_int_equal(r->nwindows, 6);
    /* the TRAIN step 0 -> 1 batch: the DoCompute that opens it, the window's GetNext calls... */
    const dfs_dl_window *w = &r->windows[3];
    assert_int_equal(w->kind, DFS_DL_WIN_BATCH);
    assert_int_equal(w->end - w->start, US(2608205));
    assert_int_equal(w->nmetrics, 0); /* no system-metric file given */
    assert_true(w->nevents > 0 && w->finishing_inside <= w->nevents);
    done(&a);
}

/* ---- the mappings ----------------------------------------------------------------------------- */

static void t_kineto(void **state)
{
    (void)state;
    analysis a;
    analyse(&a, "kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz");
    const dfs_dl_result *r = a.r;
    assert_string_equal(r->mappings[0].source, "kineto");
    assert_int_equal(r->nrows[DFS_DL_GETNEXT], 6);
    assert_true(r->getnext.median_us == 69810.5 && r->getnext.max_us == 73418);
    assert_int_equal(r->getnext.noutliers, 0);
    assert_int_equal(r->ngaps, 5);
    assert_true(r->batch.median_us == 176532 && r->batch.max_us == 181326);
    assert_int_equal(r->batch.noutliers, 0);
    done(&a);
    analyse(&a, "kineto/resnet50-dataloader/resnet50_num_workers_4__worker0.1623213129365.pt.trace.json.gz");
    assert_true(a.r->getnext.median_us == 1363 && a.r->getnext.max_us == 1703);
    assert_true(a.r->batch.median_us == 123175);
    done(&a);
}

/* reference §3.3: waits 800, 25000, 800 (a slow fetch), gaps 12220 and 36420 (no slow batch). */
static void t_composer(void **state)
{
    (void)state;
    analysis a;
    analyse(&a, "composer/ep0-ba5-rank0.synthetic.json");
    const dfs_dl_result *r = a.r;
    assert_string_equal(r->mappings[0].source, "composer");
    assert_int_equal(r->nrows[DFS_DL_GETNEXT], 3);
    assert_true(r->getnext.median_us == 800);
    assert_int_equal(r->getnext.noutliers, 1);
    const dfs_dl_row *o = &r->rows[DFS_DL_GETNEXT][r->getnext.outliers[0]];
    assert_int_equal(o->end - o->start, US(25000));
    assert_int_equal(r->ngaps, 2);
    assert_int_equal(r->gaps[0].gap, US(12220));
    assert_int_equal(r->gaps[1].gap, US(36420));
    assert_true(r->batch.median_us == 24320);
    assert_int_equal(r->batch.noutliers, 0);
    done(&a);
}

static void t_dftracer(void **state)
{
    (void)state;
    analysis a;
    analyse(&a, "dftracer/dlio-unet3d-hdf5-8rank");
    const dfs_dl_result *r = a.r;
    assert_string_equal(r->mappings[0].source, "dftracer");
    assert_int_equal(r->mappings[0].files, 8);
    assert_int_equal(r->nrows[DFS_DL_GETNEXT], 8 * 20); /* loop.iter */
    assert_int_equal(r->batch_groups, 8);
    assert_int_equal(r->ngaps, 8 * 19);
    done(&a);
}

int main(void)
{
    tu_require_corpus();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_model_timeline),         cmocka_unit_test(t_framework_folder),
        cmocka_unit_test(t_horovod),                cmocka_unit_test(t_system_file),
        cmocka_unit_test(t_corrupt_system_file),    cmocka_unit_test(t_system_folder),
        cmocka_unit_test(t_merge_traces_default),   cmocka_unit_test(t_every_fixture_default),
        cmocka_unit_test(t_merge_traces_docompute), cmocka_unit_test(t_kineto),
        cmocka_unit_test(t_composer),               cmocka_unit_test(t_dftracer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
