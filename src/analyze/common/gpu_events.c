/* gpu_events.c - the GPU event classification (gpu_events.h): tables of categories and launch
 * calls, and the args that name device, stream and correlation. Pure functions of their input. */
#include "analyze/common/gpu_events.h"

#include <string.h>
#include <strings.h>

#include "analyze/common/event_args.h"

static bool text_is(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && strncasecmp(s, lit, n) == 0;
}

static bool starts_with(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n >= m && memcmp(s, lit, m) == 0;
}

const char *dfs_gpu_kind_name(dfs_gpu_kind k)
{
    static const char *const names[DFS_GPU_KIND_COUNT] = {"none",  "kernel",     "memcpy",  "memset", "sync",
                                                          "range", "annotation", "runtime", "driver"};
    return (unsigned)k < DFS_GPU_KIND_COUNT ? names[k] : "none";
}

const char *dfs_gpu_device_word(dfs_gpu_vendor v)
{
    return v == DFS_GPU_VENDOR_MTIA ? "MTIA" : "GPU";
}

/* Kineto's activity types as written (its ActivityType names), with the 2021 spellings. */
static const struct {
    const char *cat;
    dfs_gpu_kind kind;
} categories[] = {
    {"kernel", DFS_GPU_KERNEL},           {"mtia_ccp_events", DFS_GPU_KERNEL},
    {"gpu_memcpy", DFS_GPU_MEMCPY},       {"memcpy", DFS_GPU_MEMCPY},
    {"gpu_memset", DFS_GPU_MEMSET},       {"memset", DFS_GPU_MEMSET},
    {"cuda_sync", DFS_GPU_SYNC},          {"cuda_profiler_range", DFS_GPU_RANGE},
    {"gpu_user_annotation", DFS_GPU_ANNOTATION},
    {"cuda_runtime", DFS_GPU_RUNTIME},    {"runtime", DFS_GPU_RUNTIME},
    {"hip_runtime", DFS_GPU_RUNTIME},     {"mtia_runtime", DFS_GPU_RUNTIME},
    {"xpu_runtime", DFS_GPU_RUNTIME},     {"privateuse1_runtime", DFS_GPU_RUNTIME},
    {"cuda_driver", DFS_GPU_DRIVER},      {"xpu_driver", DFS_GPU_DRIVER},
    {"privateuse1_driver", DFS_GPU_DRIVER},
};

dfs_gpu_kind dfs_gpu_kind_of(const char *cat, size_t n)
{
    for (size_t i = 0; cat && i < sizeof categories / sizeof *categories; i++)
        if (text_is(cat, n, categories[i].cat))
            return categories[i].kind;
    return DFS_GPU_NONE;
}

bool dfs_gpu_device_side(dfs_gpu_kind k)
{
    return k >= DFS_GPU_KERNEL && k <= DFS_GPU_ANNOTATION;
}

bool dfs_gpu_timed_work(dfs_gpu_kind k)
{
    return k == DFS_GPU_KERNEL || k == DFS_GPU_MEMCPY || k == DFS_GPU_MEMSET;
}

/* The runtime calls that queue device work. MTIA's launch is one call of its runtime. */
static const char *const launches[] = {
    "cudaLaunchKernel", "cudaLaunchKernelExC",      "cuLaunchKernel", "cuLaunchKernelEx",
    "cudaMemcpyAsync",  "cudaMemsetAsync",          "hipLaunchKernel", "hipExtModuleLaunchKernel",
    "hipMemcpyAsync",   "hipMemsetAsync",           "hipMemcpyWithStream",
    "runFunction - job_prep_and_submit_for_execution",
};

bool dfs_gpu_is_launch(const char *name, size_t n)
{
    for (size_t i = 0; name && i < sizeof launches / sizeof *launches; i++)
        if (strlen(launches[i]) == n && memcmp(name, launches[i], n) == 0)
            return true;
    return false;
}

dfs_gpu_vendor dfs_gpu_vendor_of(dfs_gpu_kind k, const char *cat, size_t cat_len, const char *name,
                                 size_t name_len)
{
    if (k == DFS_GPU_NONE)
        return DFS_GPU_VENDOR_UNKNOWN;
    if ((cat && cat_len >= 5 && strncasecmp(cat, "mtia_", 5) == 0) ||
        (name && starts_with(name, name_len, "runFunction")))
        return DFS_GPU_VENDOR_MTIA;
    if (k == DFS_GPU_RANGE || (cat && text_is(cat, cat_len, "cuda_sync")))
        return DFS_GPU_VENDOR_CUDA;
    if (k != DFS_GPU_RUNTIME && k != DFS_GPU_DRIVER)
        return DFS_GPU_VENDOR_UNKNOWN; /* a kernel's name does not tell CUDA from HIP */
    if (name && starts_with(name, name_len, "hip"))
        return DFS_GPU_VENDOR_ROCM;
    if (name && starts_with(name, name_len, "cu"))
        return DFS_GPU_VENDOR_CUDA;
    return DFS_GPU_VENDOR_UNKNOWN;
}

const char *dfs_gpu_ktype_name(dfs_gpu_ktype t)
{
    switch (t) {
    case DFS_GPU_KT_COMPUTATION: return "COMPUTATION";
    case DFS_GPU_KT_COMMUNICATION: return "COMMUNICATION";
    case DFS_GPU_KT_MEMORY: return "MEMORY";
    default: return "OTHER";
    }
}

static bool holds(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(s + i, lit, m) == 0)
            return true;
    return false;
}

dfs_gpu_ktype dfs_gpu_ktype_of(dfs_gpu_kind k, const char *name, size_t n)
{
    if (k == DFS_GPU_MEMCPY || k == DFS_GPU_MEMSET)
        return DFS_GPU_KT_MEMORY;
    if (k != DFS_GPU_KERNEL)
        return DFS_GPU_KT_OTHER;
    if (name && (starts_with(name, n, "nccl") || starts_with(name, n, "rccl") || starts_with(name, n, "hccl") ||
                 holds(name, n, "ncclKernel") || holds(name, n, "ncclDevKernel")))
        return DFS_GPU_KT_COMMUNICATION;
    return DFS_GPU_KT_COMPUTATION;
}

/* `cuda` then, anywhere later, `LaunchKernel`: HTA's regular expression cuda.*LaunchKernel. */
static bool cuda_launch_name(const char *s, size_t n)
{
    return starts_with(s, n, "cuda") && holds(s + 4, n - 4, "LaunchKernel");
}

dfs_gpu_ktype dfs_gpu_ktype_hta(const char *name, size_t n)
{
    static const char *const not_compute[] = {"nccl",   "hip",    "hccl",  "runFunction", "job_exe",
                                              "packet", "pe_exe", "cpum_exe_subgraph",
                                              "collective_subgraph_execution", "Stream Wait Event"};
    if (!name)
        name = "", n = 0;
    if (starts_with(name, n, "nccl") || starts_with(name, n, "hip") || starts_with(name, n, "hccl") ||
        holds(name, n, "ncclKernel"))
        return DFS_GPU_KT_COMMUNICATION;
    if (starts_with(name, n, "Memcpy") || starts_with(name, n, "Memset") || starts_with(name, n, "dma"))
        return DFS_GPU_KT_MEMORY;
    for (size_t i = 0; i < sizeof not_compute / sizeof *not_compute; i++)
        if (starts_with(name, n, not_compute[i]))
            return DFS_GPU_KT_OTHER;
    if (cuda_launch_name(name, n) || holds(name, n, "Memcpy") || holds(name, n, "Memset") || holds(name, n, "dma") ||
        holds(name, n, "Sync"))
        return DFS_GPU_KT_OTHER;
    return DFS_GPU_KT_COMPUTATION;
}

static int64_t arg_number(const dfs_event *ev, dfs_str key)
{
    int64_t v;
    const dfs_value *a = dfs_event_arg(ev, key);
    return a && dfs_value_int(a, &v) ? v : -1;
}

/* args.device: not a well-known key, found by its text (no lock, unlike dfs_str_find). */
static int64_t arg_device(const dfs_run *run, const dfs_event *ev)
{
    int64_t v;
    const dfs_value *a = dfs_event_arg_named(run, ev, "device", 6);
    return a && dfs_value_int(a, &v) ? v : -1;
}

void dfs_gpu_classify(const dfs_run *run, const dfs_event *ev, dfs_gpu_event *out)
{
    *out = (dfs_gpu_event){.kind = DFS_GPU_NONE, .device = -1, .stream = -1, .correlation = -1};
    if (!ev->cat)
        return;
    size_t cat_len, name_len = 0;
    const char *cat = dfs_str_get(run, ev->cat, &cat_len);
    const char *name = ev->name ? dfs_str_get(run, ev->name, &name_len) : NULL;
    out->kind = dfs_gpu_kind_of(cat, cat_len);
    if (out->kind == DFS_GPU_NONE)
        return;
    out->vendor = dfs_gpu_vendor_of(out->kind, cat, cat_len, name, name_len);
    out->launch = out->kind == DFS_GPU_RUNTIME && dfs_gpu_is_launch(name, name_len);
    out->stream = arg_number(ev, DFS_KEY_STR(DFS_KEY_STREAM));
    out->stream = out->stream < 0 ? -1 : out->stream;
    out->correlation = arg_number(ev, DFS_KEY_STR(DFS_KEY_CORRELATION));
    if (!dfs_gpu_device_side(out->kind))
        return;
    out->device = arg_device(run, ev);
    if (out->device < 0 && !(ev->flags & DFS_EF_PID_STR) && ev->pid >= 0)
        out->device = ev->pid; /* Kineto writes a device event's pid as its device */
}
