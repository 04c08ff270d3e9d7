/* test_merge_corpus.c - `dfscope merge` on the corpus: Composer's reference merge reproduced byte
 * for byte (--compat composer) and as a set of events (default mode, sorted, its bugs fixed),
 * the re-merge relabelling bug fixed, and every other dialect merged into one valid trace
 * (reference/training-loop.md section 3). Skips (77) without the corpus. */
#include "mergetest.h"

#define RANK0 "composer/ep0-ba5-rank0.synthetic.json"
#define RANK1 "composer/ep0-ba5-rank1.synthetic.json"
#define MERGED "composer/merged_trace.from_synthetic.json"

static const char *out_path(const char *suffix)
{
    return tu_temp_file(suffix, "", 0);
}

static size_t count_pid(const mt_events *es, int64_t pid)
{
    size_t n = 0;
    for (size_t i = 0; i < es->n; i++)
        n += es->v[i].pid == pid;
    return n;
}

static size_t count_text(const mt_events *es, const char *needle)
{
    size_t n = 0;
    for (size_t i = 0; i < es->n; i++)
        n += strstr(es->v[i].text, needle) != NULL;
    return n;
}

static void test_compat_byte_for_byte(void **state)
{
    (void)state;
    const char *in[] = {tu_trace(RANK0), tu_trace(RANK1)};
    const char *out = out_path(".json");
    dfs_merge_report rep;
    assert_int_equal(mt_merge(in, 2, 1 << 20, true, 2, out, &rep), DFS_EXIT_OK);
    assert_int_equal(rep.events_out, 124);
    assert_int_equal(rep.inserted, 10);
    assert_int_equal(rep.dropped, 2);
    assert_int_equal(rep.files[1].shift_ns, -1400000);
    assert_int_equal(rep.nwarnings, 0);
    dfs_merge_report_free(&rep);
    size_t n, m;
    char *got = mt_slurp(out, &n), *want = mt_slurp(tu_trace(MERGED), &m);
    assert_int_equal(n, m);
    assert_memory_equal(got, want, n);
    free(got);
    free(want);
    unlink(out);
}

static void test_default_same_events(void **state)
{
    (void)state;
    const char *in[] = {tu_trace(RANK0), tu_trace(RANK1)};
    const char *out = out_path(".json");
    dfs_merge_report rep;
    assert_int_equal(mt_merge(in, 2, 1 << 20, false, 2, out, &rep), DFS_EXIT_OK);
    assert_int_equal(rep.events_in, 126);
    assert_int_equal(rep.dropped, 2);
    assert_int_equal(rep.inserted, 10);
    assert_int_equal(rep.files[0].shift_ns, 0);
    assert_int_equal(rep.files[1].shift_ns, -1400000);
    assert_int_equal(rep.remapped, 0);
    dfs_merge_report_free(&rep);
    mt_events got = mt_read(out), want = mt_read(tu_trace(MERGED));
    assert_int_equal(got.rc, DFS_EXIT_OK);
    for (int p = 0; p < DFS_PROB__COUNT; p++) /* not even a legal variant */
        assert_int_equal(got.problems[p], 0);
    assert_int_equal(got.n, 134);
    assert_true(mt_sorted(&got));
    assert_int_equal(count_pid(&got, 0), 67);
    assert_int_equal(count_pid(&got, 1), 67);
    /* rank 1 moved by -1400 us: its batch-2 event/dataloader B */
    assert_int_equal(count_text(&got, "B|event/dataloader||ts=1713999999999400000|pid=1"), 1);
    assert_int_equal(count_text(&got, "junk"), 0);
    assert_true(mt_same_events(&got, &want));
    mt_free(&got);
    mt_free(&want);
    unlink(out);
}

/* Composer relabels the 67 rank-1 records of a merged file as pid 0 when it merges it again;
 * here they stay on pid 1, shifted once. */
static void test_remerge_keeps_pids(void **state)
{
    (void)state;
    const char *in[] = {tu_trace(MERGED), tu_trace(RANK0), tu_trace(RANK1)};
    const char *out = out_path(".json");
    dfs_merge_report rep;
    assert_int_equal(mt_merge(in, 3, 1 << 20, false, 2, out, &rep), DFS_EXIT_OK);
    assert_int_equal(rep.files[0].shift_ns, 0);
    assert_int_equal(rep.files[1].shift_ns, 0);
    assert_int_equal(rep.files[2].shift_ns, -1400000);
    dfs_merge_report_free(&rep);
    mt_events got = mt_read(out), old = mt_read(tu_trace(MERGED));
    /* the old merged file holds the same records as the rank files: once sorted, each copy
     * is a duplicate (a legal variant, not damage) */
    assert_int_equal(got.damage, 0);
    assert_int_equal(got.problems[DFS_PROB_DUPLICATE_RECORD], 134);
    assert_true(mt_sorted(&got));
    /* 134 old + 124 new + 8 thread markers + 2 backward markers */
    assert_int_equal(got.n, 268);
    assert_int_equal(count_pid(&got, 1), 134);
    assert_int_equal(count_pid(&got, 0), 134);
    size_t on_pid1 = 0;
    for (size_t i = 0; i < old.n; i++) {
        if (old.v[i].pid != 1)
            continue;
        on_pid1++;
        assert_true(count_text(&got, old.v[i].text) >= 1);
    }
    assert_int_equal(on_pid1, 67);
    mt_free(&got);
    mt_free(&old);
    unlink(out);

    /* the compatible mode reproduces the bug: {0: 203, 1: 67} */
    out = out_path(".json");
    assert_int_equal(mt_merge(in, 3, 1 << 20, true, 2, out, NULL), DFS_EXIT_OK);
    got = mt_read(out);
    assert_int_equal(got.n, 270);
    assert_int_equal(count_pid(&got, 0), 203);
    assert_int_equal(count_pid(&got, 1), 67);
    mt_free(&got);
    unlink(out);
}

/* The same output from memory and through temporary files, with 1 or 2 threads. */
static void test_spill_equals_memory(void **state)
{
    (void)state;
    const char *in[] = {tu_trace(RANK0), tu_trace("hta/critical_path/alexnet"),
                        tu_trace("dftracer/dlio-unet3d-hdf5-8rank/trace-0-of-8.pfw"),
                        tu_trace("dftracer/dlio-unet3d-hdf5-8rank/trace-1-of-8.pfw"), tu_trace(RANK1)};
    const char *a = out_path(".json"), *b = out_path(".json"), *c = out_path(".json");
    dfs_merge_report rep;
    assert_int_equal(mt_merge(in, 5, 1 << 30, false, 2, a, &rep), DFS_EXIT_OK);
    assert_int_equal(rep.runs_spilled, 0);
    dfs_merge_report_free(&rep);
    assert_int_equal(mt_merge(in, 5, 64 << 10, false, 2, b, &rep), DFS_EXIT_OK);
    assert_true(rep.runs_spilled > 10);
    assert_true(rep.merge_passes > 0);
    dfs_merge_report_free(&rep);
    assert_int_equal(mt_merge(in, 5, 1 << 20, false, 1, c, NULL), DFS_EXIT_OK);
    size_t na, nb, nc;
    char *ta = mt_slurp(a, &na), *tb = mt_slurp(b, &nb), *tc = mt_slurp(c, &nc);
    assert_int_equal(na, nb);
    assert_memory_equal(ta, tb, na);
    assert_int_equal(na, nc);
    assert_memory_equal(ta, tc, na);
    free(ta);
    free(tb);
    free(tc);
    unlink(a);
    unlink(b);
    unlink(c);
}

/* Kineto (absolute and base-time), smdebug framework and system files, DFTracer of every
 * generation, Chrome JSON: one valid trace, sorted, every event kept. */
static void test_every_dialect(void **state)
{
    (void)state;
    const char *in[] = {
        tu_trace("hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"),
        tu_trace("hta/trace_filter"),
        tu_trace("smdebug/tests/profiler/resources/merge_traces"),
        tu_trace("smdebug/tests/profiler/resources/test_traces/system"),
        tu_trace("dftracer/cm1-48rank/cm1-DEFAULT-3537780-preload.pfw.gz"),
        tu_trace("dftracer/legacy-2023/dfanalyzer_test.pfw"),
        tu_trace("dftracer/edge-cases/synthetic-v2-multimember.pfw.gz"),
        tu_trace("chrome-json/flow_events_json_v1.json"),
    };
    const char *out = out_path(".json.gz");
    dfs_merge_report rep;
    assert_int_equal(mt_merge(in, sizeof in / sizeof *in, 256 << 10, false, 2, out, &rep), DFS_EXIT_OK);
    uint64_t written = rep.events_out, inserted = rep.inserted;
    assert_int_equal(rep.dropped, 0);
    assert_int_equal(rep.events_out, rep.events_in);
    assert_true(rep.remapped >= 1); /* the two trace_filter ranks share their pids */
    dfs_merge_report_free(&rep);
    mt_events got = mt_read(out);
    /* the synthetic v2 file repeats its records in four gzip members (duplicates, a legal
     * variant) and references host hashes it never defines, as its input does */
    assert_int_equal(got.problems[DFS_PROB_DUPLICATE_RECORD], 21);
    assert_int_equal(got.damage, got.problems[DFS_PROB_UNRESOLVED_HASH]);
    assert_int_equal(got.n, written + inserted);
    assert_true(mt_sorted(&got));
    /* smdebug system samples are counters of the node, one series per device */
    assert_true(count_text(&got, "C|CPUUtilization|cpu|") == 68);
    assert_true(count_text(&got, "pid='algo-1'") == 78);
    /* DFTracer file names resolved from their hashes */
    assert_true(count_text(&got, "fname='") > 1000);
    /* smdebug framework times on the epoch clock: a TRAIN step of 2020-07-13 */
    assert_true(count_text(&got, "X|Step:ModeKeys.TRAIN||ts=1594662608090195000|") == 1);
    mt_free(&got);
    unlink(out);
}

/* Damaged inputs: merged anyway, the damage reported in the verdict. */
static void test_damaged_inputs(void **state)
{
    (void)state;
    const char *in[] = {tu_trace("dftracer/edge-cases/synthetic-v2-truncated-tail.pfw.gz"),
                        tu_trace("dftracer/edge-cases/synthetic-v1-crashed.pfw"),
                        tu_trace("smdebug/tests/profiler/resources/1591160699.algo-1.json.corrupt")};
    const char *out = out_path(".json");
    dfs_merge_report rep;
    assert_int_equal(mt_merge(in, 3, 1 << 20, false, 2, out, &rep), DFS_EXIT_DAMAGED);
    assert_int_equal(rep.events_in, 19 + 3 + 13);
    assert_int_equal(rep.events_out, 35);
    uint64_t written = rep.events_out + rep.inserted;
    dfs_merge_report_free(&rep);
    mt_events got = mt_read(out);
    assert_int_equal(got.damage, got.problems[DFS_PROB_UNRESOLVED_HASH]);
    assert_int_equal(got.n, written);
    assert_true(mt_sorted(&got));
    mt_free(&got);
    unlink(out);
}

int main(void)
{
    tu_require_corpus();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compat_byte_for_byte), cmocka_unit_test(test_default_same_events),
        cmocka_unit_test(test_remerge_keeps_pids),   cmocka_unit_test(test_spill_equals_memory),
        cmocka_unit_test(test_every_dialect),        cmocka_unit_test(test_damaged_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
