/* timeline_analysis.c - the timeline window as its drivers see it (analyze/common/analysis.h).
 * A second pass when a file's clock or dialect became known only at its end, or when the window
 * has more lanes than a picture draws on their own: it reads again with every file's final clock
 * and source, and the busiest lanes to keep (the options own the sources and kept arrays,
 * malloc'd), and asks for no third. */
#include "analyze/timeline/tlwindow.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/common/analysis.h"

static void *create(const void *opt, char *err, size_t errlen) { return dfs_tlw_new(opt, err, errlen); }
static void destroy(void *obj) { dfs_tlw_free(obj); }
static dfs_consumer *consumer(void *obj) { return dfs_tlw_consumer(obj); }
static const void *finish(void *obj, const dfs_run *run) { return dfs_tlw_finish(obj, run); }
static const char *failure(const void *obj) { return dfs_tlw_failure(obj); }
static bool needs_rerun(const void *obj) { return dfs_tlw_needs_rerun(obj); }

static const char *prepare_rerun(const void *obj, const dfs_run *run, const dfs_file_clock *clocks, void *opt_)
{
    dfs_tlw_options *opt = opt_;
    dfs_tlw_options_use_run(opt, run, clocks);
    opt->last_pass = true;
    size_t n;
    const uint64_t *kept = dfs_tlw_kept_lanes(obj, &n);
    free((void *)opt->draw.kept);
    opt->draw.kept = NULL;
    opt->draw.nkept = 0;
    if (!kept)
        return "a file's clock or dialect became known only at its end";
    uint64_t *copy = malloc((n ? n : 1) * sizeof *copy);
    if (copy && n)
        memcpy(copy, kept, n * sizeof *copy);
    opt->draw.kept = copy; /* out of memory: every lane folded, as a last pass does */
    opt->draw.nkept = copy ? n : 0;
    return "more lanes than a picture draws on their own: the second reading keeps the busiest";
}

const dfs_analysis dfs_timeline_analysis = {
    .name = "timeline", .create = create, .destroy = destroy, .consumer = consumer, .finish = finish,
    .failure = failure, .needs_rerun = needs_rerun, .prepare_rerun = prepare_rerun};
