/* gpu_analysis.c - the gpu analysis as its drivers see it (analyze/common/analysis.h): one pass,
 * distributed under a launcher by whole files (a Kineto trace is one JSON document: never cut),
 * each rank's kept rows merged on rank 0, which runs the analysis (gpu_pack.c). */
#include <stdio.h>

#include "analyze/gpu/gpu.h"

static void *create(const void *opt, char *err, size_t errlen)
{
    dfs_gpu *g = dfs_gpu_new(opt);
    if (!g)
        snprintf(err, errlen, "out of memory");
    return g;
}

static void destroy(void *obj) { dfs_gpu_free(obj); }
static dfs_consumer *consumer(void *obj) { return dfs_gpu_consumer(obj); }
static const void *finish(void *obj, const dfs_run *run) { return dfs_gpu_finish(obj, run); }

static bool pack(void *obj, const dfs_run *run, dfs_pack *w)
{
    (void)run;
    return dfs_gpu_pack(obj, w);
}

static bool merge(void *obj, dfs_run *run, dfs_unpack *r) { return dfs_gpu_merge_packed(obj, run, r); }

const dfs_analysis dfs_gpu_analysis = {
    .name = "gpu", .create = create, .destroy = destroy, .consumer = consumer, .finish = finish,
    .pack = pack, .merge = merge};
