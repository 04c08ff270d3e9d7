/* timebins.h - the bound on the time bins of --granularity, for the analyses that cut time into
 * bins (layered analysis: time rows, time cells and binned process engines; overlap: bins and
 * binned unit engines).
 *
 * What is counted: every binned unit (the run, and each unit whose own state is kept by bin: a
 * process's or thread's engine) counts the bins it can fill at most, the smaller of two bounds:
 * the bins its span [first start, last end) covers, ceil(length / granularity) + 1, and the bins
 * its events reach: the sum of floor(dur / granularity) + 1 over them where an event is spread
 * over its bins (engines), of 1 where only its start bin holds it (time rows and cells, the
 * approximate methods). Analyses whose events spread over their bins in several cells (analyze's
 * time cells: one per layer) add those cells beyond the start bins (dfs_bin_tally_spread). The
 * first is tight for a busy unit, the second for a sparse one (traces
 * of different days in one run) and for start bins, which the events bound anyway: only the
 * spreading of long events over fine bins is refused. Neither depends on the bins' origin. Their
 * sum over the merged run, taken at its end before any bin is measured, is the verdict: over
 * DFS_TIME_BINS_MAX the pass is refused, naming the count and a granularity that fits. It depends
 * on the events only, never on -j or on the input order.
 *
 * While reading, the workers add what their own units gain to one shared count, which bounds the
 * bin state they hold together; over the bound they stop feeding engines and only follow the
 * units. The shared count can exceed the merged one (two workers seeing one unit over the same
 * time count its span twice): then the verdict, taken at the end, may be "it fits", and the pass
 * asks for a second one that does not stop (bins_settled). So memory follows the bound, and the
 * answer the events.
 *
 * The bound: 4,000,000 bins (about 1.2 GB of overlap measures, 1.6 GB of analyze's cells), a million times
 * coarser than the nanoseconds a 64 MB trace of 150 s would otherwise be cut into; a run of 1000
 * processes busy for an hour fits at 1 s. */
#ifndef DFS_TIMEBINS_H
#define DFS_TIMEBINS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DFS_TIME_BINS_MAX UINT64_C(4000000)

/* The bins [start, end) covers at most, whatever the origin (saturating; width > 0). */
static inline uint64_t dfs_bins_covered(int64_t start, int64_t end, int64_t width)
{
    if (end <= start)
        return 1;
    unsigned __int128 len = (unsigned __int128)((__int128)end - start);
    unsigned __int128 n = (len + (unsigned __int128)width - 1) / (unsigned __int128)width + 1;
    return n > UINT64_MAX ? UINT64_MAX : (uint64_t)n;
}

/* What one event of length dur adds to its unit's event bound (without a division when short). */
static inline uint64_t dfs_bins_event(int64_t dur, int64_t width)
{
    return dur < width ? 1 : (uint64_t)(dur / width) + 1;
}

static inline uint64_t dfs_bins_add(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* A unit grew (its span to [start, end), its event bound to `events`): *counted, its bins so far
 * (0 for a new unit), follows; returns how many it gained. Costs a division only when the span
 * crosses a bin width. */
static inline uint64_t dfs_bins_grow(uint64_t *counted, uint64_t events, int64_t start, int64_t end, int64_t width)
{
    if (events <= *counted || (*counted && (__int128)end - start <= (__int128)(*counted - 1) * width))
        return 0;
    uint64_t span = dfs_bins_covered(start, end, width), now = span < events ? span : events;
    uint64_t add = now - *counted;
    *counted = now;
    return add;
}

/* The spans of a run at its end, for the verdict and the message. */
typedef struct dfs_bin_tally {
    int64_t width;
    uint64_t bins;       /* Σ dfs_bins_covered (saturating) */
    unsigned __int128 length; /* Σ lengths of the unit spans */
    uint64_t units;      /* unit spans counted (the run's apart) */
    uint64_t spread;     /* cells of events split over bins beyond their start bins (counted in bins) */
    uint64_t spread_ns;  /* what scales them: Σ their durations times their cells per bin */
    int64_t run_start, run_end;
    bool have_run;
} dfs_bin_tally;

void dfs_bin_tally_init(dfs_bin_tally *t, int64_t width);
/* The run's span and event bound; a unit's (nothing for a unit without a binned event). */
void dfs_bin_tally_run(dfs_bin_tally *t, int64_t start, int64_t end, uint64_t events);
void dfs_bin_tally_unit(dfs_bin_tally *t, int64_t start, int64_t end, uint64_t events);
/* The cells that events split over several bins hold beyond their start bins (`cells`), and
 * their durations times their layers (`ns`), which bounds those cells at any width g by ns / g. */
void dfs_bin_tally_spread(dfs_bin_tally *t, uint64_t cells, uint64_t ns);
static inline bool dfs_bin_tally_over(const dfs_bin_tally *t)
{
    return t->bins > DFS_TIME_BINS_MAX;
}
/* The refusal for the user, e.g. "--granularity 1us makes 2400000017 time bins (the run's 150.000
 * s, and 16 processes' own), more than the 4000000 an analysis keeps: use --granularity 1ms or
 * coarser". `units` names the units counted ("threads", "processes"). The granularity named is
 * the finest 1, 2 or 5 x 10^k ns whose span bounds fit: trying it never gives a second refusal. */
void dfs_bin_tally_refusal(const dfs_bin_tally *t, const char *units, char *buf, size_t n);
/* The finest 1, 2 or 5 x 10^k ns width, coarser than `width`, at which `spans` spans of summed
 * length `length` (ns) cover at most `room` bins (each at most length / g + 2), or 0 when the
 * spans alone are too many. */
int64_t dfs_bins_fitting_width(unsigned __int128 length, uint64_t spans, uint64_t room, int64_t width);
/* A width as --granularity takes it, in the largest unit that holds it whole: "1500ms". */
void dfs_bins_width_text(char *buf, size_t n, int64_t ns);
/* The refusal of a second pass (a clock moved) whose workers stopped at the bound together though
 * the run's bins alone fit: it cannot ask for a third. Rare: both a moved clock and one unit seen
 * by several workers over the same time, near the bound. */
void dfs_bins_workers_refusal(char *buf, size_t n);
#endif
