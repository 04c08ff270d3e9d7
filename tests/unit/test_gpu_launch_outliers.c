/* test_gpu_launch_outliers.c - the launch outliers, the time blocked on a full queue and the
 * attribution of device work to GPU user annotations of `dfscope gpu`, on hand-built work: a call
 * with two device events (two pairs, one per class test), thresholds at and 1 ns past a value; a
 * stream whose only sample at the threshold is its last (reached, no time); HTA's one row per rank;
 * and the painting of many overlapping annotations against a brute-force attribution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze/gpu/gpu_internal.h"

static dfs_gpu_options opts(dfs_gpu_semantics sem)
{
    dfs_gpu_options o;
    dfs_gpu_options_init(&o);
    o.semantics = sem;
    return o;
}

static gpu_work work(const char *name, int64_t stream, int64_t corr, int64_t ts, int64_t dur)
{
    return (gpu_work){.ts = ts, .end = ts + dur, .name = name, .name_len = strlen(name), .stream = stream,
                      .corr = corr, .pid = 0, .tid = stream};
}

/* Call 1 (50 us) launched two kernels: two pairs, both short (10 and 20 us); call 2 lasts 50.001 us
 * and its kernel starts 100.001 us after it: a runtime and a delay outlier by 1 ns; call 3 has no
 * device event and is no pair. */
static void outlier_classes(void **state)
{
    (void)state;
    gpu_host h[] = {{0, 50000, 1, true}, {100000, 50001, 2, true}, {300000, 5000, 3, true}};
    gpu_work w[] = {work("a", 7, 1, 60000, 10000), work("b", 8, 1, 60000, 20000), work("c", 7, 2, 250002, 5000)};
    dfs_gpu_options o = opts(DFS_GPU_EXACT);
    dfs_gpu_rank r = {0};
    dfs_arena keep;
    dfs_arena_init(&keep, 4096);
    assert_true(gpu_launch_stats(&o, h, 3, w, 3, &r, &keep));
    assert_int_equal(r.launch.cpu_us.count, 3);
    const dfs_gpu_outlier_set *s = r.launch.outliers;
    assert_int_equal(s[DFS_GPU_OUT_SHORT].count, 2);
    assert_int_equal(s[DFS_GPU_OUT_SHORT].total_ns, 100000); /* the call counts once per pair */
    assert_int_equal(s[DFS_GPU_OUT_RUNTIME].count, 1);
    assert_int_equal(s[DFS_GPU_OUT_RUNTIME].rows[0].cpu_ns, 50001);
    assert_int_equal(s[DFS_GPU_OUT_DELAY].count, 1);
    assert_int_equal(s[DFS_GPU_OUT_DELAY].rows[0].delay_ns, 100001);
    assert_string_equal(s[DFS_GPU_OUT_DELAY].rows[0].name, "c");
    o.launch_runtime_ns = 50001, o.launch_delay_ns = 100001; /* at the values: no outlier */
    dfs_gpu_rank x = {0};
    assert_true(gpu_launch_stats(&o, h, 3, w, 3, &x, &keep));
    assert_int_equal(x.launch.outliers[DFS_GPU_OUT_RUNTIME].count, 0);
    assert_int_equal(x.launch.outliers[DFS_GPU_OUT_DELAY].count, 0);
    assert_int_equal(x.launch.outliers[DFS_GPU_OUT_SHORT].count, 3); /* call 2 is short now */
    dfs_arena_free(&keep);
}

/* Stream 7: launches at 0 and 1, kernels at 4 and 6: lengths 1, 2, 1, 0. Stream 9: its kernel at 2
 * starts before its launch at 8: -1, 0: at threshold 0 only the last sample reaches it. */
static void blocked_queue(void **state)
{
    (void)state;
    gpu_work w[] = {work("a", 7, 1, 4000, 1000), work("b", 7, 2, 6000, 1000), work("c", 9, 3, 2000, 1000)};
    for (size_t i = 0; i < 3; i++)
        w[i].order = i;
    gpu_launch l[] = {{0, 1}, {1000, 2}, {8000, 3}};
    dfs_gpu_options o = opts(DFS_GPU_EXACT);
    o.queue_full = 2;
    dfs_gpu_rank r = {.first_ts = 0, .last_ts = 8000, .last_end = 10000};
    dfs_arena keep;
    dfs_arena_init(&keep, 4096);
    assert_true(gpu_queue(&o, l, 3, w, 3, &r, &keep));
    assert_int_equal(r.nblocked, 1);
    assert_int_equal(r.blocked[0].stream, 7);
    assert_int_equal(r.blocked[0].blocked_ns, 3000); /* length 2 from 1 to 4 */
    assert_true(r.blocked[0].relative == 0.3);
    o.queue_full = 0;
    dfs_gpu_rank e = r;
    e.nqueue = e.nblocked = 0;
    assert_true(gpu_queue(&o, l, 3, w, 3, &e, &keep));
    assert_int_equal(e.nblocked, 2); /* every stream, stream 9 by its last sample alone */
    assert_int_equal(e.blocked[1].stream, 9);
    assert_int_equal(e.blocked[1].blocked_ns, 0);
    dfs_gpu_options h = opts(DFS_GPU_HTA);
    h.queue_full = 0;
    dfs_gpu_rank x = r;
    x.nqueue = x.nblocked = 0;
    assert_true(gpu_queue(&h, l, 3, w, 3, &x, &keep));
    assert_int_equal(x.nblocked, 1); /* HTA's row: the last stream */
    assert_int_equal(x.blocked[0].stream, 9);
    assert_true(x.blocked[0].relative == 0); /* of the last start (8) */
    dfs_arena_free(&keep);
}

static uint64_t next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 33;
}

/* The annotation a brute force gives w: the shortest of its lane that intersects it; ties to the
 * later start, then the later row (exact). */
static const char *brute(const gpu_work *a, size_t na, const gpu_work *w)
{
    const gpu_work *best = NULL;
    for (size_t i = 0; i < na; i++) {
        const gpu_work *x = &a[i];
        if (x->pid != w->pid || x->tid != w->tid || !(x->ts < w->end && w->ts < x->end))
            continue;
        int64_t d = x->end - x->ts, bd = best ? best->end - best->ts : 0;
        if (!best || d < bd || (d == bd && (x->ts > best->ts || (x->ts == best->ts && x->order > best->order))))
            best = x;
    }
    return best ? best->name : NULL;
}

/* 300 annotations over two lanes (nested, overlapping, equal durations) and 2,000 pieces of work on
 * three lanes: the per-name counts and times equal a brute force's. */
static void painting_is_brute_force(void **state)
{
    (void)state;
    enum { NA = 300, NW = 2000 };
    static const char *const names[] = {"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"};
    gpu_work *a = calloc(NA, sizeof *a), *w = calloc(NW, sizeof *w);
    assert_non_null(a);
    assert_non_null(w);
    uint64_t seed = 42;
    for (size_t i = 0; i < NA; i++) {
        int64_t ts = (int64_t)(next_random(&seed) % 100000), dur = (int64_t)(next_random(&seed) % 8) * 500;
        a[i] = work(names[i % 8], 7 + (int64_t)(i % 2), -1, ts, dur);
        a[i].order = NA - i; /* rows in reverse: the function sorts them back */
    }
    int64_t sums[9] = {0};
    uint64_t counts[9] = {0};
    for (size_t i = 0; i < NW; i++) {
        int64_t ts = (int64_t)(next_random(&seed) % 104000), dur = (int64_t)(next_random(&seed) % 3000);
        w[i] = work("k", 7 + (int64_t)(i % 3), 1, ts, dur);
    }
    for (size_t i = 0; i < NW; i++) {
        const char *n = brute(a, NA, &w[i]);
        size_t k = n ? (size_t)(n[1] - '0') : 8;
        counts[k]++, sums[k] += w[i].end - w[i].ts;
    }
    dfs_gpu_options o = opts(DFS_GPU_EXACT);
    dfs_gpu_rank r = {0};
    dfs_arena keep;
    dfs_arena_init(&keep, 4096);
    assert_true(gpu_annotated_kernels(&o, a, NA, w, NW, &r, &keep));
    assert_null(r.annotated[r.nannotated - 1].name);
    for (size_t i = 0; i < r.nannotated; i++) {
        size_t k = r.annotated[i].name ? (size_t)(r.annotated[i].name[1] - '0') : 8;
        assert_int_equal(r.annotated[i].kernels, counts[k]);
        assert_int_equal(r.annotated[i].kernel_ns, sums[k]);
        counts[k] = 0;
    }
    for (size_t k = 0; k < 9; k++)
        assert_int_equal(counts[k], 0); /* every name with work has its row */
    dfs_arena_free(&keep);
    free(a), free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(outlier_classes), cmocka_unit_test(blocked_queue),
                                       cmocka_unit_test(painting_is_brute_force)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
