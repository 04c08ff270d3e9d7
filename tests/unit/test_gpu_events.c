/* test_gpu_events.c - the shared GPU event classification (analyze/common/gpu_events.h) on
 * hand-made events of each vendor's shape: CUDA (2021 and current categories), ROCm (HIP calls
 * under cuda_runtime, "0x0" streams), MTIA (device ops, runtime, runFunction launch) and the CUPTI
 * range profiler (measurements without a stream), plus host events that are not GPU events. */
#include <string.h>

#include "analyze/common/gpu_events.h"
#include "read/run.h"
#include "testutil.h"

typedef struct fixture {
    dfs_run *run;
    dfs_arg args[4];
} fixture;

static dfs_str S(fixture *f, const char *s)
{
    return dfs_run_intern(f->run, s, strlen(s));
}

static dfs_value num(int64_t v)
{
    return (dfs_value){.type = DFS_V_INT, .as.i = v};
}

/* An event of category cat and name, on pid/tid, with up to three args (stream, device,
 * correlation; a negative value leaves the arg out). */
static dfs_event event(fixture *f, const char *cat, const char *name, int64_t pid, int64_t tid, int64_t stream,
                       int64_t device, int64_t corr)
{
    dfs_event ev;
    memset(&ev, 0, sizeof ev);
    ev.cat = cat ? S(f, cat) : 0;
    ev.name = S(f, name);
    ev.pid = pid;
    ev.tid = tid;
    ev.phase = DFS_PHASE_COMPLETE;
    ev.args = f->args;
    if (stream >= 0)
        f->args[ev.nargs++] = (dfs_arg){DFS_KEY_STR(DFS_KEY_STREAM), num(stream)};
    if (device >= 0)
        f->args[ev.nargs++] = (dfs_arg){S(f, "device"), num(device)};
    if (corr >= 0)
        f->args[ev.nargs++] = (dfs_arg){DFS_KEY_STR(DFS_KEY_CORRELATION), num(corr)};
    return ev;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->run = tu_run(1, 0, 0);
    *state = f;
    return f->run ? 0 : -1;
}

static int teardown(void **state)
{
    fixture *f = *state;
    dfs_run_free(f->run);
    free(f);
    return 0;
}

static dfs_gpu_event classify(fixture *f, dfs_event ev)
{
    dfs_gpu_event g;
    dfs_gpu_classify(f->run, &ev, &g);
    return g;
}

static void cuda(void **state)
{
    fixture *f = *state;
    dfs_gpu_event k = classify(f, event(f, "kernel", "volta_sgemm_128x64_nn", 0, 7, 7, 0, 42));
    assert_int_equal(k.kind, DFS_GPU_KERNEL);
    assert_true(dfs_gpu_device_side(k.kind) && dfs_gpu_timed_work(k.kind));
    assert_int_equal(k.device, 0);
    assert_int_equal(k.stream, 7);
    assert_int_equal(k.correlation, 42);
    dfs_gpu_event l = classify(f, event(f, "cuda_runtime", "cudaLaunchKernel", 1234, 1234, -1, -1, 42));
    assert_int_equal(l.kind, DFS_GPU_RUNTIME);
    assert_true(l.launch && !dfs_gpu_device_side(l.kind));
    assert_int_equal(l.vendor, DFS_GPU_VENDOR_CUDA);
    assert_int_equal(l.device, -1); /* a host call names no device */
    assert_int_equal(l.correlation, 42);
    dfs_gpu_event c = classify(f, event(f, "cuda_runtime", "cudaStreamSynchronize", 1234, 1234, -1, -1, 43));
    assert_false(c.launch);
    assert_int_equal(classify(f, event(f, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 7, 7, 0, 44)).kind,
                     DFS_GPU_MEMCPY);
    assert_int_equal(classify(f, event(f, "gpu_memset", "Memset (Device)", 0, 7, 7, 0, 45)).kind, DFS_GPU_MEMSET);
    dfs_gpu_event s = classify(f, event(f, "cuda_sync", "Context Sync", 0, 0, -1, 0, 46));
    assert_int_equal(s.kind, DFS_GPU_SYNC);
    assert_true(dfs_gpu_device_side(s.kind) && !dfs_gpu_timed_work(s.kind));
    assert_int_equal(classify(f, event(f, "cuda_driver", "cuLaunchKernel", 1, 1, -1, -1, 47)).kind, DFS_GPU_DRIVER);
    assert_int_equal(classify(f, event(f, "gpu_user_annotation", "fwd", 0, 7, -1, -1, -1)).kind,
                     DFS_GPU_ANNOTATION);
    /* 2021: capitalised categories, the device from the pid when args.device is absent */
    dfs_gpu_event old = classify(f, event(f, "Kernel", "gemm", 1, 7, 7, -1, 3));
    assert_int_equal(old.kind, DFS_GPU_KERNEL);
    assert_int_equal(old.device, 1);
    assert_int_equal(classify(f, event(f, "Runtime", "cudaLaunchKernel", 9, 9, -1, -1, 3)).kind, DFS_GPU_RUNTIME);
    assert_int_equal(classify(f, event(f, "Memcpy", "Memcpy DtoH", 1, 7, 7, -1, 4)).kind, DFS_GPU_MEMCPY);
}

static void rocm(void **state)
{
    fixture *f = *state;
    dfs_gpu_event k = classify(f, event(f, "kernel", "Cijk_Alik_Bljk_SB", 2, 0, 0, 2, 5));
    assert_int_equal(k.kind, DFS_GPU_KERNEL);
    assert_int_equal(k.stream, 0); /* ROCm kernels run on stream 0 */
    assert_int_equal(k.device, 2);
    /* ROCm keeps cuda_runtime for hip calls, whose stream is the text "0x0": no stream */
    dfs_event ev = event(f, "cuda_runtime", "hipLaunchKernel", 597913, 597913, -1, -1, 5);
    f->args[ev.nargs++] = (dfs_arg){DFS_KEY_STR(DFS_KEY_STREAM), {.type = DFS_V_STR, .as.s = S(f, "0x0")}};
    dfs_gpu_event l = classify(f, ev);
    assert_int_equal(l.kind, DFS_GPU_RUNTIME);
    assert_true(l.launch);
    assert_int_equal(l.vendor, DFS_GPU_VENDOR_ROCM);
    assert_int_equal(l.stream, -1);
    assert_true(classify(f, event(f, "cuda_runtime", "hipMemcpyWithStream", 1, 1, -1, -1, 6)).launch);
    assert_int_equal(classify(f, event(f, "hip_runtime", "hipMalloc", 1, 1, -1, -1, -1)).kind, DFS_GPU_RUNTIME);
}

static void mtia(void **state)
{
    fixture *f = *state;
    dfs_gpu_event k = classify(f, event(f, "mtia_ccp_events", "job_exe_mm", 1, 3, 3, 1, 11));
    assert_int_equal(k.kind, DFS_GPU_KERNEL);
    assert_true(dfs_gpu_timed_work(k.kind));
    assert_int_equal(k.vendor, DFS_GPU_VENDOR_MTIA);
    assert_int_equal(k.device, 1);
    assert_int_equal(k.stream, 3);
    assert_string_equal(dfs_gpu_device_word(k.vendor), "MTIA");
    dfs_gpu_event l =
        classify(f, event(f, "mtia_runtime", "runFunction - job_prep_and_submit_for_execution", 100, 100, -1, -1, 11));
    assert_int_equal(l.kind, DFS_GPU_RUNTIME);
    assert_true(l.launch);
    assert_int_equal(l.vendor, DFS_GPU_VENDOR_MTIA);
}

static void cupti_ranges(void **state)
{
    fixture *f = *state;
    dfs_gpu_event r = classify(f, event(f, "cuda_profiler_range", "fft2d_r2c_32x32", 0, 0, -1, -1, -1));
    assert_int_equal(r.kind, DFS_GPU_RANGE);
    assert_true(dfs_gpu_device_side(r.kind));
    assert_false(dfs_gpu_timed_work(r.kind)); /* placeholder times: no device time */
    assert_int_equal(r.device, 0);            /* the device from the pid */
    assert_int_equal(r.stream, -1);
    assert_string_equal(dfs_gpu_device_word(r.vendor), "GPU");
}

static void not_gpu(void **state)
{
    fixture *f = *state;
    static const char *const host[] = {"cpu_op", "user_annotation", "python_function", "ac2g", "Trace", "dftracer"};
    for (size_t i = 0; i < sizeof host / sizeof *host; i++) {
        dfs_gpu_event g = classify(f, event(f, host[i], "x", 1, 1, 0, -1, -1));
        assert_int_equal(g.kind, DFS_GPU_NONE);
        assert_int_equal(g.device, -1);
        assert_false(g.launch);
    }
    assert_int_equal(classify(f, event(f, NULL, "x", 1, 1, -1, -1, -1)).kind, DFS_GPU_NONE);
    assert_int_equal(dfs_gpu_kind_of("kern", 4), DFS_GPU_NONE); /* whole categories only */
    assert_int_equal(dfs_gpu_kind_of("KERNEL", 6), DFS_GPU_KERNEL);
    assert_false(dfs_gpu_is_launch("cudaLaunchKernelX", 17));
    /* a string pid names no device */
    dfs_event ev = event(f, "kernel", "k", -5, 1, -1, -1, -1);
    ev.flags |= DFS_EF_PID_STR;
    assert_int_equal(classify(f, ev).device, -1);
    for (int k = 0; k < DFS_GPU_KIND_COUNT; k++)
        assert_non_null(dfs_gpu_kind_name((dfs_gpu_kind)k));
    assert_string_equal(dfs_gpu_kind_name(DFS_GPU_RANGE), "range");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(cuda, setup, teardown),
        cmocka_unit_test_setup_teardown(rocm, setup, teardown),
        cmocka_unit_test_setup_teardown(mtia, setup, teardown),
        cmocka_unit_test_setup_teardown(cupti_ranges, setup, teardown),
        cmocka_unit_test_setup_teardown(not_gpu, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
