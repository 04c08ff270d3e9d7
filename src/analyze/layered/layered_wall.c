/* layered_wall.c - the default mode's wall time of each layer: the measure of the union of the
 * layer's events over every process and thread, so that a layer busy on 8 ranks at once for 1 s
 * counts 1 s (its process-seconds count 8).
 *
 * One overlap engine (analyze/common/overlap_engine.h) per worker, class l = layer l, with no
 * reference class: it holds only coalesced unions. It is never flushed, because the inputs are not
 * read in time order (a worker may read a file of the job's last minute before another worker
 * reads one of its first), so its memory is the run's busy periods per layer, not its events.
 * Workers' engines merge exactly, since none has flushed; so do the ranks' of an MPI run.
 *
 * The bound: a worker whose engine holds more than dfs_layered_wall_bound intervals (by default
 * DFS_WALL_MAX_HELD; checked every WALL_CHECK_EVERY events, and at once under a smaller bound than
 * that) drops it and sets wall_over: a trace whose layers are busy in more than
 * ~4 million separate periods has no wall times (the outputs say so), and everything else is
 * unchanged. The time view's bins of the engine are those of the run (granularity and origin), so
 * the per-bin wall times add up to the totals exactly. */
#include <stdlib.h>

#include "analyze/layered/layered_internal.h"

#define WALL_CHECK_EVERY 65536u

uint64_t dfs_layered_wall_bound(const dfs_layered_options *o)
{
    return o->wall_max_periods ? o->wall_max_periods : DFS_WALL_MAX_HELD;
}

static dfs_ovl *new_wall_engine(const dfs_layered *la)
{
    int64_t bin_width = dfs_layered_needs_columns(&la->opt) ? la->opt.granularity_ns : 0;
    dfs_ovl *o = dfs_ovl_new((unsigned)NL(la), -1, bin_width, la->opt.origin_ns);
    if (o)
        dfs_ovl_skip_counts(o); /* the cells count: the engine only measures */
    return o;
}

static void drop_wall(acc *a)
{
    dfs_ovl_free(a->wall);
    a->wall = NULL;
    a->wall_over = true;
}

void dfs_layered_wall_add(const dfs_layered *la, acc *a, const lev *e, uint64_t layers)
{
    if (a->wall_over || !layers || e->dur <= 0) /* a zero-length event adds nothing to a union */
        return;
    if (!a->wall && !(a->wall = new_wall_engine(la))) {
        a->failed = true;
        return;
    }
    int64_t end;
    (void)dfs_span_end(e->ts, e->dur, &end); /* it fits: the reading left out ends that do not */
    if (!dfs_ovl_add_mask(a->wall, layers, e->ts, end, 0)) {
        a->failed = true;
        return;
    }
    uint64_t bound = dfs_layered_wall_bound(&la->opt);
    if (++a->wall_since_check >= (bound < WALL_CHECK_EVERY ? 1 : WALL_CHECK_EVERY)) {
        a->wall_since_check = 0;
        if (dfs_ovl_held(a->wall) > bound)
            drop_wall(a);
    }
}

void dfs_layered_wall_merge(acc *into, acc *from)
{
    if (from->wall_over || into->wall_over) {
        dfs_ovl_free(from->wall);
        from->wall = NULL;
        if (!into->wall_over)
            drop_wall(into);
        return;
    }
    if (!from->wall)
        return;
    if (!into->wall) {
        into->wall = from->wall;
        from->wall = NULL;
        return;
    }
    if (!dfs_ovl_merge(into->wall, from->wall))
        into->failed = true;
}

bool dfs_layered_wall_finish(acc *a)
{
    return !a->wall || dfs_ovl_finish(a->wall);
}
