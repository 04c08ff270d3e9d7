/* analysis.h - one analysis as its drivers see it: the command line's two-pass reading driver
 * (cli/common.h: dfs_cli_run_analysis) and the distributed pass (dist/dist.h).
 *
 * Every analysis folder exports one constant descriptor, declared in its public header and defined
 * in its <name>_analysis.c (e.g. dfs_layered_analysis in layered/layered_analysis.c), whose hooks
 * forward to the analysis' own functions with untyped pointers: `opt` is the analysis' options
 * struct, `obj` the object create made. Descriptors are const and hold no state: what differs
 * between runs is in the options, which the hooks read.
 *
 * Required: create, destroy, consumer (or consumers), finish. The rest is optional (NULL):
 *   - consumers, for an analysis made of several that share one read (the report);
 *   - failure, for an analysis that can refuse its result for a reason of its own;
 *   - a second reading pass: needs_rerun and prepare_rerun (both or neither);
 *   - distributed runs under mpirun/srun: pack and merge make the analysis distributable; census
 *     and finish_local, fold_share, may_cut, rerun_pack and rerun_apply refine it.
 */
#ifndef DFS_ANALYSIS_H
#define DFS_ANALYSIS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/common/clocks.h"
#include "dfscope.h"
#include "util/arena.h"
#include "wire/pack.h"

typedef struct dfs_analysis {
    const char *name;
    /* A new analysis of these options; NULL with the reason (for the user) in err. */
    void *(*create)(const void *opt, char *err, size_t errlen);
    void (*destroy)(void *obj);
    dfs_consumer *(*consumer)(void *obj);
    /* Instead of consumer: several consumers fed by the same read (dfs_run_read takes them all);
     * returns how many it put in out (at most max). Only for an analysis without pack and merge:
     * the distributed pass feeds one consumer. consumer still returns the first. */
    size_t (*consumers)(void *obj, dfs_consumer **out, size_t max);
    /* The result after reading; NULL when a second pass is needed (needs_rerun says so), on a
     * failure (failure says so) or when out of memory. */
    const void *(*finish)(void *obj, const dfs_run *run);
    /* After reading (and again after finish): why the input makes this analysis' result void, for
     * the user, naming what failed (a predicate's regular expression over its bound:
     * analyze/common/predicate.h); NULL when nothing did. The command then exits
     * DFS_EXIT_USAGE, as for a bad predicate. */
    const char *(*failure)(const void *obj);

    /* ---- a second pass: the time origin was a guess from a preview, a file's clock may only be
     * known at its end ---- */
    bool (*needs_rerun)(const void *obj);
    /* Sets the second pass's options (origin, clocks: `clocks` holds every file's final clock and
     * outlives the pass) from the first pass's facts; returns why the rerun is needed. */
    const char *(*prepare_rerun)(const void *obj, const dfs_run *run, const dfs_file_clock *clocks, void *opt);

    /* ---- distributed runs (docs/MPI.md) ---- */
    /* Everything the analysis learnt from this rank's share, after dfs_run_read. */
    bool (*pack)(void *obj, const dfs_run *run, dfs_pack *w);
    /* Merges a packed state (strings interned into run) into obj. */
    bool (*merge)(void *obj, dfs_run *run, dfs_unpack *r);
    /* The identities (dfs_unit_hash) of the traced units holding exact interval state... */
    bool (*census)(void *obj, const dfs_run *run, dfs_u64vec *units);
    /* ...and finishing, here, the units no other rank has (shared: sorted, distinct). */
    bool (*finish_local)(void *obj, const dfs_run *run, const uint64_t *shared, size_t nshared);
    /* Do census and finish_local apply under these options? (NULL: whenever census is set.) An
     * analysis whose estimates add up across ranks holds no exact unit state in those modes. */
    bool (*exact_units)(const void *opt);
    /* finish_local reads the facts of this rank's files (final dialects, clocks, process names,
     * metadata: dfs_run_fold_results). Then a rank other than 0 folds its own pieces into its file
     * table before the census (it still sends them unfolded) and tells the analysis with this hook;
     * rank 0 folds every piece after the combine, as always. */
    void (*fold_share)(void *obj);
    /* May inputs be cut into byte ranges between ranks? (NULL: no) */
    bool (*may_cut)(const void *opt);
    /* Rank 0, after a pass that needs another: what the next pass must know... */
    bool (*rerun_pack)(const void *obj, const dfs_run *run, dfs_pack *w);
    /* ...applied to every rank's options (texts kept in `keep`; clocks outlive the pass); *reason
     * says why, for the output (a static text or one in keep). */
    bool (*rerun_apply)(void *opt, dfs_unpack *r, const dfs_file_clock *clocks, size_t nclocks, dfs_arena *keep,
                        const char **reason);
} dfs_analysis;

/* Can the analysis run distributed? (Without, every rank runs it whole, as without MPI.) */
static inline bool dfs_analysis_distributed(const dfs_analysis *an)
{
    return an->pack && an->merge;
}

/* Does the distributed pass take a census of the units under these options? */
static inline bool dfs_analysis_takes_census(const dfs_analysis *an, const void *opt)
{
    return an->census && an->finish_local && (!an->exact_units || an->exact_units(opt));
}

#endif
