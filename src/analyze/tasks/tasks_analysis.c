/* tasks_analysis.c - DASF's task analyses as their drivers see them (analyze/common/analysis.h):
 * one pass, one process (not distributed). */
#include "analyze/tasks/tasks.h"

#include <stdio.h>

#include "analyze/common/analysis.h"

static void *create(const void *opt, char *err, size_t errlen)
{
    dfs_tasks *t = dfs_tasks_new(opt);
    if (!t)
        snprintf(err, errlen, "out of memory");
    return t;
}

static void destroy(void *obj) { dfs_tasks_free(obj); }
static dfs_consumer *consumer(void *obj) { return dfs_tasks_consumer(obj); }
static const void *finish(void *obj, const dfs_run *run) { return dfs_tasks_finish(obj, run); }

const dfs_analysis dfs_tasks_analysis = {
    .name = "tasks", .create = create, .destroy = destroy, .consumer = consumer, .finish = finish};
