/* input_kinds.c - the kind of each dialect and its name (input_kinds.h). */
#include "analyze/common/input_kinds.h"

static const char *const kind_names[DFS_KIND_COUNT] = {
    [DFS_KIND_DFTRACER] = "DFTracer traces",
    [DFS_KIND_PROFILER] = "PyTorch or TensorFlow profiler traces",
    [DFS_KIND_CHROME] = "Chrome trace-event files",
    [DFS_KIND_COMPOSER] = "Composer traces",
    [DFS_KIND_SMDEBUG_FRAMEWORK] = "SageMaker Debugger framework traces",
    [DFS_KIND_SMDEBUG_SYSTEM] = "SageMaker Debugger system metrics",
    [DFS_KIND_DASF] = "DASF event databases",
};

int dfs_input_kind_of(dfs_dialect d)
{
    switch (d) {
    case DFS_DIALECT_DFTRACER_2023:
    case DFS_DIALECT_DFTRACER_V1:
    case DFS_DIALECT_DFTRACER_V2: return DFS_KIND_DFTRACER;
    case DFS_DIALECT_KINETO:
    case DFS_DIALECT_TF_PROFILER: return DFS_KIND_PROFILER;
    case DFS_DIALECT_CHROME: return DFS_KIND_CHROME;
    case DFS_DIALECT_COMPOSER: return DFS_KIND_COMPOSER;
    case DFS_DIALECT_SMDEBUG_FRAMEWORK:
    case DFS_DIALECT_HOROVOD: return DFS_KIND_SMDEBUG_FRAMEWORK;
    case DFS_DIALECT_SMDEBUG_SYSTEM: return DFS_KIND_SMDEBUG_SYSTEM;
    case DFS_DIALECT_DASF: return DFS_KIND_DASF;
    default: return -1;
    }
}

const char *dfs_input_kind_name(int k)
{
    return k >= 0 && k < DFS_KIND_COUNT ? kind_names[k] : NULL;
}
