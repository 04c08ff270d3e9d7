/* layered_analysis.c - the layered analysis as its drivers see it (analyze/common/analysis.h).
 * Two passes when the preview's origin, a file's clock or the categories turn out wrong. Under
 * MPI, the exact mode (true counts, exact u_ overlap) needs every event of a process on one rank:
 * whole files, and a census of the processes; the DFAnalyzer-compatible modes add up across
 * pieces, so their inputs may be cut and they hold no exact unit state. */
#include "analyze/layered/layered.h"

#include <string.h>

#include "analyze/common/analysis.h"

static void *create(const void *opt, char *err, size_t errlen) { return dfs_layered_new(opt, err, errlen); }
static void destroy(void *obj) { dfs_layered_free(obj); }
static dfs_consumer *consumer(void *obj) { return dfs_layered_consumer(obj); }
static const void *finish(void *obj, const dfs_run *run) { return dfs_layered_finish(obj, run); }
static const char *failure(const void *obj) { return dfs_layered_failure(obj); }
static bool needs_rerun(const void *obj) { return dfs_layered_needs_rerun(obj, NULL); }

static const char *prepare_rerun(const void *obj, const dfs_run *run, const dfs_file_clock *clocks, void *opt_)
{
    dfs_layered_options *opt = opt_;
    dfs_layered_needs_rerun(obj, &opt->origin_ns);
    const char *const *cats;
    size_t ncats = dfs_layered_categories(obj, &cats); /* owned by the first pass, which outlives the second */
    if (ncats) {
        opt->auto_categories = cats;
        opt->nauto_categories = ncats;
    }
    opt->clocks = clocks;
    opt->nclocks = dfs_run_file_count(run);
    opt->no_streaming |= dfs_layered_rerun_no_streaming(obj);
    opt->bins_settled |= dfs_layered_rerun_bins_settled(obj);
    return dfs_layered_rerun_reason(obj);
}

static bool pack(void *obj, const dfs_run *run, dfs_pack *w) { return dfs_layered_pack(obj, run, w); }
static bool merge(void *obj, dfs_run *run, dfs_unpack *r) { return dfs_layered_merge_packed(obj, run, r); }
static bool census(void *obj, const dfs_run *run, dfs_u64vec *units) { return dfs_layered_census(obj, run, units); }

static bool finish_local(void *obj, const dfs_run *run, const uint64_t *shared, size_t n)
{
    return dfs_layered_finish_local(obj, run, shared, n);
}

static bool exact(const void *opt) { return ((const dfs_layered_options *)opt)->compat == DFS_COMPAT_NONE; }
static bool may_cut(const void *opt) { return !exact(opt); }

static bool rerun_pack(const void *obj, const dfs_run *run, dfs_pack *w)
{
    (void)run;
    int64_t origin = 0;
    dfs_layered_needs_rerun(obj, &origin);
    const char *const *cats;
    size_t n = dfs_layered_categories(obj, &cats);
    const char *why = dfs_layered_rerun_reason(obj);
    dfs_pack_i64(w, origin);
    dfs_pack_bool(w, dfs_layered_rerun_no_streaming(obj));
    dfs_pack_bool(w, dfs_layered_rerun_bins_settled(obj));
    dfs_pack_text(w, why ? why : "", why ? strlen(why) : 0);
    dfs_pack_texts(w, cats, n);
    return !w->failed;
}

/* What prepare_rerun does, from rank 0's facts. */
static bool rerun_apply(void *opt_, dfs_unpack *r, const dfs_file_clock *clocks, size_t nclocks, dfs_arena *keep,
                        const char **reason)
{
    dfs_layered_options *opt = opt_;
    opt->origin_ns = dfs_unpack_i64(r);
    opt->no_streaming |= dfs_unpack_bool(r);
    opt->bins_settled |= dfs_unpack_bool(r);
    size_t why_len;
    const char *why = dfs_unpack_text(r, &why_len);
    if (r->bad || !(*reason = dfs_arena_strdup(keep, why, why_len)))
        return false;
    size_t n = dfs_unpack_count(r, 1);
    char **cats = n ? dfs_arena_alloc(keep, n * sizeof *cats) : NULL;
    if (n && !cats)
        return false;
    for (size_t i = 0; i < n && !r->bad; i++) {
        size_t len;
        const char *t = dfs_unpack_text(r, &len);
        if (!(cats[i] = dfs_arena_strdup(keep, t, len)))
            return false;
    }
    if (n) {
        opt->auto_categories = (const char *const *)cats;
        opt->nauto_categories = n;
    }
    opt->clocks = clocks;
    opt->nclocks = nclocks;
    return !r->bad;
}

const dfs_analysis dfs_layered_analysis = {
    .name = "analyze", .create = create, .destroy = destroy, .consumer = consumer, .finish = finish,
    .failure = failure, .needs_rerun = needs_rerun, .prepare_rerun = prepare_rerun, .pack = pack, .merge = merge, .census = census,
    .finish_local = finish_local, .exact_units = exact, .may_cut = may_cut, .rerun_pack = rerun_pack,
    .rerun_apply = rerun_apply};
