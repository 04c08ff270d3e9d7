/* steps_analysis.c - the steps analysis as its drivers see it (analyze/common/analysis.h). One
 * pass: absolute times come from each file's final clock, applied at the end. Under MPI a run
 * needs its files whole (B/E pairing, clocks known at a file's end): inputs are never cut, and
 * the runs of files on several ranks are found by a census. */
#include "analyze/steps/steps.h"

#include <stdio.h>

#include "analyze/common/analysis.h"

/* The analysis, or NULL with why: a predicate that does not parse (named), or no memory. */
static void *create(const void *opt, char *err, size_t errlen)
{
    dfs_pred_error perr;
    dfs_concept bad = DFS_CONCEPT_COUNT;
    dfs_steps *s = dfs_steps_new(opt, &perr, &bad);
    if (s)
        return s;
    if (bad < DFS_CONCEPT_COUNT)
        snprintf(err, errlen, "the %s predicate: %s", dfs_concept_name(bad), perr.message);
    else
        snprintf(err, errlen, "%s", perr.message);
    return NULL;
}

static void destroy(void *obj) { dfs_steps_free(obj); }
static dfs_consumer *consumer(void *obj) { return dfs_steps_consumer(obj); }
static const void *finish(void *obj, const dfs_run *run) { return dfs_steps_finish(obj, run); }
static const char *failure(const void *obj) { return dfs_steps_failure(obj); }
static bool pack(void *obj, const dfs_run *run, dfs_pack *w) { return dfs_steps_pack(obj, run, w); }
static bool merge(void *obj, dfs_run *run, dfs_unpack *r) { return dfs_steps_merge_packed(obj, run, r); }
static bool census(void *obj, const dfs_run *run, dfs_u64vec *units) { return dfs_steps_census(obj, run, units); }
static void fold_share(void *obj) { dfs_steps_set_folded(obj); }

static bool finish_local(void *obj, const dfs_run *run, const uint64_t *shared, size_t n)
{
    return dfs_steps_finish_local(obj, run, shared, n);
}

const dfs_analysis dfs_steps_analysis = {
    .name = "steps", .create = create, .destroy = destroy, .consumer = consumer, .finish = finish,
    .failure = failure, .pack = pack, .merge = merge, .census = census, .finish_local = finish_local, .fold_share = fold_share};
