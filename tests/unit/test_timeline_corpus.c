/* test_timeline_corpus.c - `dfscope timeline` windows of real traces (src/analyze/timeline/tlwindow.c,
 * src/analyze/timeline/timeline.c): one training step of the ResNet-50 num_workers=0 Kineto trace (the
 * data-loader wait on the main thread while the GPU stream idles), the two Composer ranks with
 * their B/E markers and counters, smdebug system metrics. The expected counts were checked
 * against a plain Python count of the trace's records in the window. Skips (77) without the
 * corpus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "analyze/common/clocks.h"
#include "analyze/timeline/timeline.h"
#include "analyze/timeline/tlwindow.h"

static const dfs_tlw_result *read_window(const char *const *paths, size_t npaths, dfs_tlw_options *opt,
                                         dfs_tlw **tlw, dfs_run **run)
{
    dfs_options o;
    dfs_options_init(&o);
    o.jobs = 2;
    *run = dfs_run_new(&o);
    for (size_t i = 0; i < npaths; i++)
        assert_int_equal(dfs_run_add_path(*run, paths[i]), DFS_OK);
    char err[256];
    *tlw = dfs_tlw_new(opt, err, sizeof err);
    assert_non_null(*tlw);
    dfs_consumer *cs[] = {dfs_tlw_consumer(*tlw)};
    dfs_run_read(*run, cs, 1);
    const dfs_tlw_result *r = dfs_tlw_finish(*tlw, *run);
    assert_non_null(r); /* these traces have their clocks at the start: one pass */
    return r;
}

static void window_options(dfs_tlw_options *o, int64_t start_ns, int64_t end_ns)
{
    dfs_tlw_options_init(o);
    o->draw.start_ns = start_ns;
    o->draw.end_ns = end_ns;
}

static char *render(const dfs_timeline *tl)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(dfs_tl_write(tl, f), DFS_OK);
    fclose(f);
    return buf;
}

/* ProfilerStep#6 of the num_workers=0 run: [1623142623636318, 1623142623810310) us. */
static void test_kineto_step_window(void **state)
{
    (void)state;
    const char *path = tu_trace("kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz");
    dfs_tlw_options o;
    window_options(&o, INT64_C(1623142623636318000), INT64_C(1623142623810310000));
    dfs_tlw *tlw;
    dfs_run *run;
    const dfs_tlw_result *r = read_window(&path, 1, &o, &tlw, &run);
    assert_int_equal(r->trace_start_ns, INT64_C(1623142623460016000));
    assert_int_equal(r->trace_end_ns, INT64_C(1623142624525739000));
    dfs_tl_summary s;
    dfs_tl_summarize(r->tl, &s);
    assert_int_equal(s.lanes, 4);
    assert_int_equal(s.spans[DFS_TL_DATA_WAIT], 1);  /* the _SingleProcessDataLoaderIter.__next__ */
    assert_int_equal(s.spans[DFS_TL_TRANSFER], 54);  /* 52 memsets, 2 copies */
    assert_int_equal(s.spans[DFS_TL_COMPUTE], 1456 + 2494 + 1442); /* kernels, operators */
    assert_int_equal(s.spans[DFS_TL_OTHER], 1 + 1097 + 890 + 1);   /* step, runtime, runtime, trace */
    assert_int_equal(s.spans_drawn + s.spans_aggregated, 7436);
    dfs_tl_lane_info l[4];
    assert_int_equal(dfs_tl_lanes(r->tl, l, 4), 4);
    static const char *const threads[4] = {"", "thread 25738 (python)", "thread 25772 (python)", ""};
    static const uint64_t totals[4] = {1510, 3593, 2332, 1};
    for (int i = 0; i < 4; i++) {
        uint64_t n = 0;
        for (int c = 0; c < DFS_TL_NCLASS; c++)
            n += l[i].spans[c];
        assert_int_equal(n, totals[i]);
        assert_string_equal(l[i].key.thread, threads[i]);
    }
    assert_string_equal(l[0].key.tid_str, "stream 7");
    assert_string_equal(l[0].key.process, "GPU 0"); /* a device lane: by device, not the host program */
    assert_int_equal(l[1].key.pid, 25738);
    assert_int_equal(l[1].spans[DFS_TL_DATA_WAIT], 1);
    assert_string_equal(l[3].key.pid_str, "Traces");
    char *svg = render(r->tl);
    assert_non_null(strstr(svg, ">GPU 0 (pid 0) \xC2\xB7 stream 7</text>"));
    assert_non_null(strstr(svg, ">thread 25738 (python)</text>"));
    assert_non_null(strstr(svg, "<title>enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__&#10;data wait"));
    assert_true(strlen(svg) < 600000); /* 7,436 spans, most of them folded into busy bars */
    free(svg);
    dfs_tlw_free(tlw);
    dfs_run_free(run);
}

static void test_composer_ranks(void **state)
{
    (void)state;
    const char *paths[2] = {tu_trace("composer/ep0-ba5-rank0.synthetic.json"),
                            tu_trace("composer/ep0-ba5-rank1.synthetic.json")};
    dfs_tlw_options o;
    window_options(&o, INT64_C(1714000000000000000), INT64_C(1714000000100000000));
    dfs_tlw *tlw;
    dfs_run *run;
    const dfs_tlw_result *r = read_window(paths, 2, &o, &tlw, &run);
    assert_int_equal(r->unmatched_begin, 0);
    assert_int_equal(r->unmatched_end, 0);
    dfs_tl_summary s;
    dfs_tl_summarize(r->tl, &s);
    uint64_t total = 0;
    for (int c = 0; c < DFS_TL_NCLASS; c++)
        total += s.spans[c];
    assert_int_equal(total, 2 * (18 + 4)); /* 18 B/E pairs and 4 X per rank */
    assert_int_equal(s.spans[DFS_TL_DATA_WAIT], 2 * 3); /* event/dataloader */
    assert_int_equal(s.counters, 6);  /* cpu, cuda memory, virtual used / available, disk, net */
    assert_int_equal(s.samples, 36);
    dfs_tl_lane_info l[16];
    size_t n = dfs_tl_lanes(r->tl, l, 16);
    assert_int_equal(n, 8);
    size_t loops = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(l[i].key.thread, "Training Loop") == 0) {
            loops++;
            assert_int_equal(l[i].spans[DFS_TL_DATA_WAIT], 3);
            assert_true(strstr(l[i].key.source, "rank") != NULL); /* one group per input */
        }
    assert_int_equal(loops, 2);
    char *svg = render(r->tl);
    assert_non_null(strstr(svg, ">cpu: cpu_percent</text>"));
    assert_non_null(strstr(svg, ">memory/virtual: used_gb</text>"));
    free(svg);
    dfs_tlw_free(tlw);
    dfs_run_free(run);
}

static void test_smdebug_system(void **state)
{
    (void)state;
    const char *path = tu_trace("smdebug/tests/profiler/resources/1591160699.algo-1.json");
    dfs_tlw_options o;
    window_options(&o, INT64_C(1591160600000000000), INT64_C(1591161800000000000));
    dfs_tlw *tlw;
    dfs_run *run;
    const dfs_tlw_result *r = read_window(&path, 1, &o, &tlw, &run);
    dfs_tl_summary s;
    dfs_tl_summarize(r->tl, &s);
    assert_int_equal(s.lanes, 0);
    assert_true(s.counters > 0);
    char *svg = render(r->tl);
    assert_non_null(strstr(svg, ">algo-1 CPUUtilization cpu0</text>"));
    free(svg);
    dfs_tlw_free(tlw);
    dfs_run_free(run);
}

int main(void)
{
    tu_require_corpus();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kineto_step_window),
        cmocka_unit_test(test_composer_ranks),
        cmocka_unit_test(test_smdebug_system),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
