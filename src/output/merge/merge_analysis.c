/* merge_analysis.c - the merge as the reading driver sees it (analyze/common/analysis.h): one
 * pass, one process; what "finishing" leaves is the merge itself, written by dfs_merge_write
 * with the run at hand. */
#include "output/merge/merge.h"

#include "analyze/common/analysis.h"

static void *create(const void *opt, char *err, size_t errlen) { return dfs_merge_new(opt, err, errlen); }
static void destroy(void *obj) { dfs_merge_free(obj); }
static dfs_consumer *consumer(void *obj) { return dfs_merge_consumer(obj); }

static const void *finish(void *obj, const dfs_run *run)
{
    (void)run;
    return obj;
}

const dfs_analysis dfs_merge_analysis = {
    .name = "merge", .create = create, .destroy = destroy, .consumer = consumer, .finish = finish};
