/* stats_analysis.c - `stats` as its drivers see it (analyze/common/analysis.h). No options (opt is
 * NULL), one pass, and every aggregate adds up across pieces, so inputs may be cut between ranks. */
#include "analyze/stats/stats.h"

#include <stdio.h>

#include "analyze/common/analysis.h"

static void *create(const void *opt, char *err, size_t errlen)
{
    (void)opt;
    dfs_stats *s = dfs_stats_new();
    if (!s)
        snprintf(err, errlen, "out of memory");
    return s;
}

static void destroy(void *obj) { dfs_stats_free(obj); }
static dfs_consumer *consumer(void *obj) { return dfs_stats_consumer(obj); }
static const void *finish(void *obj, const dfs_run *run) { return dfs_stats_finish(obj, run); }

static bool pack(void *obj, const dfs_run *run, dfs_pack *w)
{
    (void)run;
    return dfs_stats_pack(obj, w);
}

static bool merge(void *obj, dfs_run *run, dfs_unpack *r)
{
    (void)run;
    return dfs_stats_merge_packed(obj, r);
}

static bool may_cut(const void *opt)
{
    (void)opt;
    return true;
}

const dfs_analysis dfs_stats_analysis = {
    .name = "stats", .create = create, .destroy = destroy, .consumer = consumer, .finish = finish,
    .pack = pack, .merge = merge, .may_cut = may_cut};
