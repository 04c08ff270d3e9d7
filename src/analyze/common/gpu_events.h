/* gpu_events.h - the one classification of the GPU (and other accelerator) events of a PyTorch
 * profiler (Kineto) trace, shared by the analyses: what kind of event it is (device work such as
 * a kernel, a memory copy or set, a synchronisation, a range profiler's measurement; or a host
 * call of the runtime or driver), which vendor's, whether it launches device work, and the device,
 * stream and correlation its args name. CUDA, ROCm/HIP (which keeps Kineto's `cuda_runtime`
 * category), MTIA and CUPTI range-profiler traces, old (2021: `Kernel`, `Runtime`) and new
 * category spellings alike.
 *
 * Invariants: a kind depends on the category only (case-insensitive), vendor and launch on the
 * category and name; nothing here keeps state, so any thread may call it. A kind added later goes
 * before DFS_GPU_KIND_COUNT and says in dfs_gpu_device_side / dfs_gpu_timed what it is; callers
 * switch on the kinds they know and treat others as DFS_GPU_NONE. */
#ifndef DFS_GPU_EVENTS_H
#define DFS_GPU_EVENTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfscope.h"

typedef enum dfs_gpu_kind {
    DFS_GPU_NONE = 0,     /* not a GPU event (host operators, Python, annotations, flows...) */
    DFS_GPU_KERNEL,       /* device: a kernel (`kernel`, `Kernel`), an MTIA device op (`mtia_ccp_events`) */
    DFS_GPU_MEMCPY,       /* device: a memory copy (`gpu_memcpy`, `Memcpy`) */
    DFS_GPU_MEMSET,       /* device: a memory set (`gpu_memset`, `Memset`) */
    DFS_GPU_SYNC,         /* device: a synchronisation (`cuda_sync`: Stream Sync, Event Sync...) */
    DFS_GPU_RANGE,        /* device: a CUPTI range profiler's counters of one kernel or range
                             (`cuda_profiler_range`); its times are placeholders, not a duration */
    DFS_GPU_ANNOTATION,   /* device: a user range on a device lane (`gpu_user_annotation`) */
    DFS_GPU_RUNTIME,      /* host: a runtime API call (`cuda_runtime`, `Runtime`, `hip_runtime`,
                             `mtia_runtime`, `xpu_runtime`, `privateuse1_runtime`) */
    DFS_GPU_DRIVER,       /* host: a driver API call (`cuda_driver`, `xpu_driver`, `privateuse1_driver`) */
    DFS_GPU_KIND_COUNT
} dfs_gpu_kind;

typedef enum dfs_gpu_vendor {
    DFS_GPU_VENDOR_UNKNOWN = 0, /* a device event that does not say (CUDA and ROCm kernels look alike) */
    DFS_GPU_VENDOR_CUDA,        /* cuda... / cu... runtime and driver calls, CUPTI ranges */
    DFS_GPU_VENDOR_ROCM,        /* hip... calls */
    DFS_GPU_VENDOR_MTIA,        /* mtia_* categories, runFunction launches */
} dfs_gpu_vendor;

typedef struct dfs_gpu_event {
    dfs_gpu_kind kind;
    dfs_gpu_vendor vendor;
    bool launch;          /* a runtime call that puts work on a device (cudaLaunchKernel, hipMemcpyAsync...) */
    int64_t device;       /* args.device, else a device-side event's pid (Kineto's device lane); -1 unknown */
    int64_t stream;       /* args.stream when a number (ROCm runtime's "0x0" is none); -1 none */
    int64_t correlation;  /* args.correlation, linking a launch and its device event; -1 none */
} dfs_gpu_event;

/* What device work does, for the breakdowns of `dfscope gpu`: bits, so that the types running at
 * once make a mask. */
typedef enum dfs_gpu_ktype {
    DFS_GPU_KT_COMPUTATION = 1,
    DFS_GPU_KT_COMMUNICATION = 2, /* collectives and point-to-point transfers (NCCL, RCCL, HCCL) */
    DFS_GPU_KT_MEMORY = 4,        /* copies and sets */
    DFS_GPU_KT_OTHER = 8,         /* syncs, waits: in no breakdown */
} dfs_gpu_ktype;

/* "COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER" (Holistic Trace Analysis' spelling). */
const char *dfs_gpu_ktype_name(dfs_gpu_ktype t);
/* The type of device work of this kind and name: copies and sets are memory, kernels named as
 * collectives (nccl..., rccl..., hccl..., or holding ncclKernel / ncclDevKernel) communication,
 * other kernels computation, anything else other. */
dfs_gpu_ktype dfs_gpu_ktype_of(dfs_gpu_kind k, const char *name, size_t n);
/* Holistic Trace Analysis' type of a name, whatever the event (its rules, anchored at the start):
 * communication for nccl..., hip..., hccl... or a name holding ncclKernel; memory for Memcpy...,
 * Memset..., dma...; other for names of launches, MTIA jobs and waits, and any name holding
 * Memcpy, Memset, dma or Sync; computation for the rest. */
dfs_gpu_ktype dfs_gpu_ktype_hta(const char *name, size_t n);

/* "kernel", "memcpy", "memset", "sync", "range", "annotation", "runtime", "driver", "none". */
const char *dfs_gpu_kind_name(dfs_gpu_kind k);
/* "GPU", or "MTIA": what a device of this vendor is called on a lane label. */
const char *dfs_gpu_device_word(dfs_gpu_vendor v);

/* The kind of an event of category cat (n bytes). */
dfs_gpu_kind dfs_gpu_kind_of(const char *cat, size_t n);
/* Runs on the device (kernel .. annotation). */
bool dfs_gpu_device_side(dfs_gpu_kind k);
/* Device work whose start and duration are measured: kernels, copies, sets (not syncs, which are
 * waits, nor range measurements, whose times are placeholders, nor annotations). */
bool dfs_gpu_timed_work(dfs_gpu_kind k);
/* A runtime call that launches device work (kernels, async copies and sets), CUDA, HIP or MTIA. */
bool dfs_gpu_is_launch(const char *name, size_t n);
/* The vendor an event of this kind, category and name belongs to. */
dfs_gpu_vendor dfs_gpu_vendor_of(dfs_gpu_kind k, const char *cat, size_t cat_len, const char *name,
                                 size_t name_len);

/* The whole classification of one event. The args are read when present: a consumer that wants
 * device and stream asks for DFS_KEY_STREAM and DFS_KEY_CORRELATION (well-known) and "device"
 * (extra, or all args). An event without a category is DFS_GPU_NONE. */
void dfs_gpu_classify(const dfs_run *run, const dfs_event *ev, dfs_gpu_event *out);
#endif
