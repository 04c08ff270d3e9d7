/* test_gpu_sections.c - the arithmetic of `dfscope gpu`'s sections on hand-built device work:
 * numpy's unstable sort (the tie order HTA's tables inherit), numpy's rounding, HTA's kernel types
 * by name, the unions and overlap sweeps, the "others" rule of the by-name breakdown (HTA's quantile
 * of cumulative sums against the exact top-k by share), the idle categories, the queue lengths and
 * the memory bandwidth. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze/gpu/gpu_internal.h"

static void ssort_small_is_insertion(void **state)
{
    (void)state;
    int64_t v[] = {3, 1, 2, 1, 3};
    size_t p[5];
    gpu_ssort(v, p, 5);
    size_t want[] = {1, 3, 2, 0, 4}; /* ties keep input order below 16 items */
    assert_memory_equal(p, want, sizeof want);
    gpu_ssort_desc(v, p, 5);
    size_t want_desc[] = {0, 4, 2, 1, 3}; /* pandas: ties of a descending sort keep input order */
    assert_memory_equal(p, want_desc, sizeof want_desc);
}

/* Above 16 items the partition moves equal keys: the same keys, another tie order than a stable
 * sort's, and still sorted. */
static void ssort_large_is_sorted_and_unstable(void **state)
{
    (void)state;
    enum { N = 40 };
    int64_t v[N];
    size_t p[N];
    for (size_t i = 0; i < N; i++)
        v[i] = (int64_t)(i % 3);
    gpu_ssort(v, p, N);
    bool stable = true, seen[N] = {false};
    for (size_t i = 0; i < N; i++) {
        assert_false(seen[p[i]]);
        seen[p[i]] = true;
        if (i)
            assert_true(v[p[i - 1]] <= v[p[i]]);
        if (i && v[p[i - 1]] == v[p[i]] && p[i - 1] > p[i])
            stable = false;
    }
    assert_false(stable);
}

static void around_is_numpy(void **state)
{
    (void)state;
    assert_true(gpu_around(100.0 * (10.0 / 90.0), 2) == 11.11);
    assert_true(gpu_around(0.125, 2) == 0.12); /* half to even on the scaled double */
    assert_true(gpu_around(37.5, 0) == 38);
    assert_true(gpu_around(12.25, 1) == 12.2);
}

static void hta_types_by_name(void **state)
{
    (void)state;
#define T(s) dfs_gpu_ktype_hta(s, strlen(s))
    assert_int_equal(T("ncclKernel_AllReduce"), DFS_GPU_KT_COMMUNICATION);
    assert_int_equal(T("hipMemcpyAsync"), DFS_GPU_KT_COMMUNICATION);
    assert_int_equal(T("void foo<ncclKernel>"), DFS_GPU_KT_COMMUNICATION);
    assert_int_equal(T("Memcpy HtoD (Pageable -> Device)"), DFS_GPU_KT_MEMORY);
    assert_int_equal(T("dma_copy"), DFS_GPU_KT_MEMORY);
    assert_int_equal(T("Stream Sync"), DFS_GPU_KT_OTHER);
    assert_int_equal(T("SyncBatchNormKernel"), DFS_GPU_KT_OTHER); /* any name holding Sync */
    assert_int_equal(T("cudaLaunchKernel"), DFS_GPU_KT_OTHER);
    assert_int_equal(T("void at::native::vectorized_elementwise_kernel"), DFS_GPU_KT_COMPUTATION);
#undef T
    assert_int_equal(dfs_gpu_ktype_of(DFS_GPU_KERNEL, "SyncBatchNormKernel", 19), DFS_GPU_KT_COMPUTATION);
    assert_int_equal(dfs_gpu_ktype_of(DFS_GPU_MEMSET, "Memset (Device)", 15), DFS_GPU_KT_MEMORY);
    assert_int_equal(dfs_gpu_ktype_of(DFS_GPU_KERNEL, "rcclKernel", 10), DFS_GPU_KT_COMMUNICATION);
}

static gpu_work kernel(const char *name, dfs_gpu_ktype t, int64_t ts_us, int64_t dur_us)
{
    return (gpu_work){.ts = ts_us * 1000, .end = (ts_us + dur_us) * 1000, .name = name, .name_len = strlen(name),
                      .type = t, .stream = 7, .queued = true};
}

static dfs_gpu_options opts(dfs_gpu_semantics sem, unsigned sections)
{
    dfs_gpu_options o;
    dfs_gpu_options_init(&o);
    o.semantics = sem;
    o.sections = sections;
    return o;
}

/* Touching work merges; overlapping types get their own label; communication half hidden. */
static void unions_and_overlap(void **state)
{
    (void)state;
    gpu_work w[] = {kernel("gemm", DFS_GPU_KT_COMPUTATION, 0, 10), kernel("gemm", DFS_GPU_KT_COMPUTATION, 10, 10),
                    kernel("nccl", DFS_GPU_KT_COMMUNICATION, 15, 10), kernel("Memcpy", DFS_GPU_KT_MEMORY, 40, 5)};
    dfs_gpu_options o = opts(DFS_GPU_EXACT, DFS_GPU_SEC_TEMPORAL | DFS_GPU_SEC_KERNELS | DFS_GPU_SEC_OVERLAP);
    dfs_gpu_rank r = {0};
    dfs_arena keep;
    dfs_arena_init(&keep, 4096);
    assert_true(gpu_sections(&o, w, 4, &r, &keep));
    assert_int_equal(r.temporal.kernel_time_ns, 45000);
    assert_int_equal(r.temporal.idle_ns, 15000);
    assert_int_equal(r.temporal.compute_ns, 20000);
    assert_int_equal(r.temporal.non_compute_ns, 10000);
    assert_true(fabs(r.overlap_pct - 50.0) < 1e-12);
    int64_t by_mask[8] = {0};
    for (size_t i = 0; i < r.ntypes; i++)
        by_mask[r.types[i].mask] = r.types[i].sum_ns;
    assert_int_equal(by_mask[1], 15000);
    assert_int_equal(by_mask[3], 5000);
    assert_int_equal(by_mask[2], 5000);
    assert_int_equal(by_mask[4], 5000);
    assert_int_equal(r.types[0].mask, 1); /* biggest first */
    dfs_arena_free(&keep);
}

/* Twelve names of two kernels each, totals 120, 110, ..., 10: HTA's q = 744 sends the last three
 * to others (sum 60, max 30, min 10, mean 20, std 10) and shows each kept name's total as its
 * max, min and mean; exact keeps the names up to 80% of the time (the one crossing it included). */
static void others_rule(void **state)
{
    (void)state;
    static char names[12][8];
    gpu_work w[24];
    for (int i = 0; i < 12; i++) {
        snprintf(names[i], sizeof names[i], "k%02d", i);
        int64_t half = (12 - i) * 5;
        w[2 * i] = kernel(names[i], DFS_GPU_KT_COMPUTATION, 1000 * i, half);
        w[2 * i + 1] = kernel(names[i], DFS_GPU_KT_COMPUTATION, 1000 * i + 500, half);
    }
    dfs_arena keep;
    dfs_arena_init(&keep, 4096);
    dfs_gpu_options o = opts(DFS_GPU_HTA, DFS_GPU_SEC_KERNELS);
    dfs_gpu_rank r = {0};
    assert_true(gpu_sections(&o, w, 24, &r, &keep));
    assert_int_equal(r.nnames, 10);
    const dfs_gpu_name_row *others = NULL, *k00 = NULL;
    for (size_t i = 0; i < r.nnames; i++) {
        if (strcmp(r.names[i].name, "others") == 0)
            others = &r.names[i];
        if (strcmp(r.names[i].name, "k00") == 0)
            k00 = &r.names[i];
    }
    assert_non_null(others);
    assert_non_null(k00);
    assert_int_equal(others->sum_ns, 60000);
    assert_int_equal(others->max_ns, 30000);
    assert_int_equal(others->min_ns, 10000);
    assert_true(fabs(others->mean_ns - 20000) < 1e-6 && fabs(others->std_ns - 10000) < 1e-6);
    assert_int_equal(k00->max_ns, 120000);
    assert_int_equal(k00->min_ns, 120000);
    assert_true(k00->std_ns == 0);

    dfs_gpu_options e = opts(DFS_GPU_EXACT, DFS_GPU_SEC_KERNELS);
    dfs_gpu_rank x = {0};
    assert_true(gpu_sections(&e, w, 24, &x, &keep));
    /* the time before each name: k06 570 < 0.8 * 780 = 624, kept (it crosses the share); k07 630:
     * others from there: 7 names and others */
    assert_int_equal(x.nnames, 8);
    for (size_t i = 0; i < x.nnames; i++)
        if (strcmp(x.names[i].name, "k00") == 0)
            assert_int_equal(x.names[i].max_ns, 60000); /* statistics of kernels */
    dfs_arena_free(&keep);
}

/* host_wait when the launch came after the previous kernel ended; kernel_wait under 30 µs. */
static void idle_categories(void **state)
{
    (void)state;
    gpu_work w[] = {kernel("a", DFS_GPU_KT_COMPUTATION, 0, 10), kernel("b", DFS_GPU_KT_COMPUTATION, 15, 10),
                    kernel("c", DFS_GPU_KT_COMPUTATION, 100, 10), kernel("d", DFS_GPU_KT_COMPUTATION, 200, 10)};
    for (size_t i = 0; i < 4; i++)
        w[i].order = i;
    w[2].has_launch = true, w[2].launch_ts = 90000; /* after b ended at 25 */
    w[3].has_launch = true, w[3].launch_ts = 50000; /* before c ended: other (gap 90) */
    dfs_gpu_options o = opts(DFS_GPU_EXACT, DFS_GPU_SEC_IDLE);
    dfs_gpu_rank r = {0};
    dfs_arena keep;
    dfs_arena_init(&keep, 4096);
    assert_true(gpu_idle(&o, w, 4, &r, &keep));
    assert_int_equal(r.nidle, 3);
    assert_int_equal(r.idle[0].category, DFS_GPU_HOST_WAIT);
    assert_true(r.idle[0].idle_us == 75);
    assert_int_equal(r.idle[1].category, DFS_GPU_KERNEL_WAIT);
    assert_true(r.idle[1].idle_us == 5);
    assert_int_equal(r.idle[2].category, DFS_GPU_IDLE_OTHER);
    assert_true(r.idle[2].idle_us == 90 && r.idle[2].count == 1 && isnan(r.idle[2].std_us));
    assert_true(fabs(r.idle[0].ratio - 75.0 / 170) < 1e-12);
    dfs_arena_free(&keep);
}

/* A device event that starts before its launch: HTA's queue goes to -1; exact counts it anyway. */
static void queue_lengths(void **state)
{
    (void)state;
    gpu_work w[] = {kernel("a", DFS_GPU_KT_COMPUTATION, 20, 10), kernel("b", DFS_GPU_KT_COMPUTATION, 30, 10)};
    w[0].corr = 1, w[1].corr = 2, w[0].order = 0, w[1].order = 1;
    gpu_launch l[] = {{10000, 1}, {35000, 2}}; /* b's launch at 35 comes after b started at 30 */
    dfs_arena keep;
    dfs_arena_init(&keep, 4096);
    dfs_gpu_options o = opts(DFS_GPU_HTA, DFS_GPU_SEC_QUEUE);
    dfs_gpu_rank r = {0};
    assert_true(gpu_queue(&o, l, 2, w, 2, &r, &keep));
    assert_int_equal(r.nqueue, 1);
    assert_int_equal(r.queue[0].s.count, 4); /* +1@10, -1@20, -1@30, +1@35: 1, 0, -1, 0 */
    assert_true(r.queue[0].s.min == -1 && r.queue[0].s.max == 1 && r.queue[0].s.mean == 0);
    dfs_arena_free(&keep);
}

/* Two copies of one kind overlap: 1 GB/s then 3 GB/s then 2 GB/s in use (the end at 0 is no sample). */
static void memory_bandwidth(void **state)
{
    (void)state;
    gpu_work w[] = {kernel("Memcpy HtoD (Pinned -> Device)", DFS_GPU_KT_MEMORY, 0, 10),
                    kernel("Memcpy HtoD (Pageable -> Device)", DFS_GPU_KT_MEMORY, 5, 10),
                    kernel("Memset (Device)", DFS_GPU_KT_MEMORY, 40, 0)};
    w[0].bw = 1.0, w[1].bw = 2.0, w[2].bw = 4.0;
    for (size_t i = 0; i < 3; i++)
        w[i].order = i;
    dfs_arena keep;
    dfs_arena_init(&keep, 4096);
    dfs_gpu_options o = opts(DFS_GPU_EXACT, DFS_GPU_SEC_MEMBW);
    dfs_gpu_rank r = {0};
    assert_true(gpu_membw(&o, w, 3, &r, &keep));
    assert_int_equal(r.nmembw, 1); /* exact: the zero-length set moves nothing */
    assert_string_equal(r.membw[0].name, "Memcpy HtoD");
    assert_int_equal(r.membw[0].s.count, 3);
    assert_true(r.membw[0].s.mean == 2 && r.membw[0].s.max == 3);
    dfs_gpu_options h = opts(DFS_GPU_HTA, DFS_GPU_SEC_MEMBW);
    dfs_gpu_rank x = {0};
    assert_true(gpu_membw(&h, w, 3, &x, &keep));
    assert_int_equal(x.nmembw, 2); /* hta: the set lasts 1 us */
    assert_string_equal(x.membw[1].name, "Memset");
    assert_true(x.membw[1].s.count == 1 && x.membw[1].s.max == 4);
    dfs_arena_free(&keep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ssort_small_is_insertion), cmocka_unit_test(ssort_large_is_sorted_and_unstable),
        cmocka_unit_test(around_is_numpy),          cmocka_unit_test(hta_types_by_name),
        cmocka_unit_test(unions_and_overlap),       cmocka_unit_test(others_rule),
        cmocka_unit_test(idle_categories),          cmocka_unit_test(queue_lengths),
        cmocka_unit_test(memory_bandwidth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
