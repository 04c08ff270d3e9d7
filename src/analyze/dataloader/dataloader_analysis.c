/* dataloader_analysis.c - the data-loader analysis as its drivers see it
 * (analyze/common/analysis.h): one pass, one process (not distributed). */
#include "analyze/dataloader/dataloader.h"

#include "analyze/common/analysis.h"

static void *create(const void *opt, char *err, size_t errlen) { return dfs_dl_new(opt, err, errlen); }
static void destroy(void *obj) { dfs_dl_free(obj); }
static dfs_consumer *consumer(void *obj) { return dfs_dl_consumer(obj); }
static const void *finish(void *obj, const dfs_run *run) { return dfs_dl_finish(obj, run); }
static const char *failure(const void *obj) { return dfs_dl_failure(obj); }

const dfs_analysis dfs_dataloader_analysis = {
    .name = "dataloader", .create = create, .destroy = destroy, .consumer = consumer, .finish = finish,
    .failure = failure};
