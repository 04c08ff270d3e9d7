/* rules_analysis.c - the profiler rules as their drivers see them (analyze/common/analysis.h):
 * one pass, one process (not distributed). */
#include "analyze/rules/rules.h"

#include <stdio.h>

#include "analyze/common/analysis.h"

static void *create(const void *opt, char *err, size_t errlen)
{
    dfs_rules *rs = dfs_rules_new(opt);
    if (!rs)
        snprintf(err, errlen, "out of memory");
    return rs;
}

static void destroy(void *obj) { dfs_rules_free(obj); }
static dfs_consumer *consumer(void *obj) { return dfs_rules_consumer(obj); }
static const void *finish(void *obj, const dfs_run *run) { return dfs_rules_finish(obj, run); }

const dfs_analysis dfs_rules_analysis = {
    .name = "rules", .create = create, .destroy = destroy, .consumer = consumer, .finish = finish};
