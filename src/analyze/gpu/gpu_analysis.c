/* gpu_analysis.c - the gpu analysis as its drivers see it (analyze/common/analysis.h): one pass,
 * not distributed (under a launcher every rank runs it whole, as one process would). */
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

const dfs_analysis dfs_gpu_analysis = {
    .name = "gpu", .create = create, .destroy = destroy, .consumer = consumer, .finish = finish};
