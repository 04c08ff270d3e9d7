/* timeline_analysis.c - the timeline window as its drivers see it (analyze/common/analysis.h).
 * A second pass when a file's clock or dialect became known only at its end: it reads again with
 * every file's final clock and source (the options own the sources array, malloc'd). */
#include "analyze/timeline/tlwindow.h"

#include <stdlib.h>

#include "analyze/common/analysis.h"

static void *create(const void *opt, char *err, size_t errlen) { return dfs_tlw_new(opt, err, errlen); }
static void destroy(void *obj) { dfs_tlw_free(obj); }
static dfs_consumer *consumer(void *obj) { return dfs_tlw_consumer(obj); }
static const void *finish(void *obj, const dfs_run *run) { return dfs_tlw_finish(obj, run); }
static const char *failure(const void *obj) { return dfs_tlw_failure(obj); }
static bool needs_rerun(const void *obj) { return dfs_tlw_needs_rerun(obj); }

static const char *prepare_rerun(const void *obj, const dfs_run *run, const dfs_file_clock *clocks, void *opt_)
{
    (void)obj;
    dfs_tlw_options *opt = opt_;
    free((void *)opt->sources);
    opt->clocks = clocks;
    opt->sources = dfs_tlw_final_sources(run);
    opt->nfiles = opt->sources ? dfs_run_file_count(run) : 0;
    return "a file's clock or dialect became known only at its end";
}

const dfs_analysis dfs_timeline_analysis = {
    .name = "timeline", .create = create, .destroy = destroy, .consumer = consumer, .finish = finish,
    .failure = failure, .needs_rerun = needs_rerun, .prepare_rerun = prepare_rerun};
