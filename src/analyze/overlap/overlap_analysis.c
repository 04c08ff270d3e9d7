/* overlap_analysis.c - the overlap analysis as its drivers see it (analyze/common/analysis.h).
 * Two passes when the preview's origin, a clock or the streaming assumptions fail. Under MPI the
 * exact method needs every event of a process on one rank (whole files, a census of the units);
 * the approximate methods add up across pieces, so their inputs may be cut. */
#include "analyze/overlap/overlap.h"

#include "analyze/common/analysis.h"

static void *create(const void *opt, char *err, size_t errlen) { return dfs_overlap_new(opt, err, errlen); }
static void destroy(void *obj) { dfs_overlap_free(obj); }
static dfs_consumer *consumer(void *obj) { return dfs_overlap_consumer(obj); }
static const void *finish(void *obj, const dfs_run *run) { return dfs_overlap_finish(obj, run); }
static const char *failure(const void *obj) { return dfs_overlap_failure(obj); }
static bool needs_rerun(const void *obj) { return dfs_overlap_needs_rerun(obj, NULL); }

static const char *prepare_rerun(const void *obj, const dfs_run *run, const dfs_file_clock *clocks, void *opt_)
{
    dfs_overlap_options *opt = opt_;
    dfs_overlap_rerun info = {0};
    dfs_overlap_needs_rerun(obj, &info);
    opt->origin_ns = info.origin_ns;
    opt->no_streaming |= info.no_streaming;
    opt->bins_settled |= info.bins_settled;
    opt->clocks = clocks;
    opt->nclocks = dfs_run_file_count(run);
    return info.reason; /* static text */
}

static bool pack(void *obj, const dfs_run *run, dfs_pack *w) { return dfs_overlap_pack(obj, run, w); }
static bool merge(void *obj, dfs_run *run, dfs_unpack *r) { return dfs_overlap_merge_packed(obj, run, r); }
static bool census(void *obj, const dfs_run *run, dfs_u64vec *units) { return dfs_overlap_census(obj, run, units); }

static bool finish_local(void *obj, const dfs_run *run, const uint64_t *shared, size_t n)
{
    return dfs_overlap_finish_local(obj, run, shared, n);
}

static bool exact(const void *opt) { return ((const dfs_overlap_options *)opt)->method == DFS_OVERLAP_EXACT; }
static bool may_cut(const void *opt) { return !exact(opt); }

static bool rerun_pack(const void *obj, const dfs_run *run, dfs_pack *w)
{
    (void)run;
    dfs_overlap_rerun info = {0};
    dfs_overlap_needs_rerun(obj, &info);
    dfs_pack_i64(w, info.origin_ns);
    dfs_pack_bool(w, info.no_streaming);
    dfs_pack_bool(w, info.bins_settled);
    dfs_pack_cstr(w, info.reason);
    return !w->failed;
}

/* What prepare_rerun does, from rank 0's facts. */
static bool rerun_apply(void *opt_, dfs_unpack *r, const dfs_file_clock *clocks, size_t nclocks, dfs_arena *keep,
                        const char **reason)
{
    dfs_overlap_options *opt = opt_;
    opt->origin_ns = dfs_unpack_i64(r);
    opt->no_streaming |= dfs_unpack_bool(r);
    opt->bins_settled |= dfs_unpack_bool(r);
    *reason = dfs_unpack_cstr(r, keep);
    opt->clocks = clocks;
    opt->nclocks = nclocks;
    return !r->bad;
}

const dfs_analysis dfs_overlap_analysis = {
    .name = "overlap", .create = create, .destroy = destroy, .consumer = consumer, .finish = finish,
    .failure = failure, .needs_rerun = needs_rerun, .prepare_rerun = prepare_rerun, .pack = pack, .merge = merge, .census = census,
    .finish_local = finish_local, .exact_units = exact, .may_cut = may_cut, .rerun_pack = rerun_pack,
    .rerun_apply = rerun_apply};
