/* timebins.c - the tally of a run's binned units at its end and the refusal that names a
 * granularity that fits (timebins.h). The suggestion bounds each unit by its span alone, from the
 * summed lengths: it may be coarser than needed for sparse units, never too fine. */
#include "analyze/common/timebins.h"

#include <inttypes.h>
#include <stdio.h>

void dfs_bin_tally_init(dfs_bin_tally *t, int64_t width)
{
    *t = (dfs_bin_tally){.width = width};
}

static void add_bins(dfs_bin_tally *t, uint64_t n)
{
    t->bins = dfs_bins_add(t->bins, n);
}

static uint64_t unit_bins(const dfs_bin_tally *t, int64_t start, int64_t end, uint64_t events)
{
    uint64_t span = dfs_bins_covered(start, end, t->width);
    return span < events ? span : events;
}

void dfs_bin_tally_run(dfs_bin_tally *t, int64_t start, int64_t end, uint64_t events)
{
    if (end < start || !events)
        return;
    t->run_start = start;
    t->run_end = end;
    t->have_run = true;
    add_bins(t, unit_bins(t, start, end, events));
}

void dfs_bin_tally_unit(dfs_bin_tally *t, int64_t start, int64_t end, uint64_t events)
{
    if (end < start || !events) /* a unit without a binned event */
        return;
    t->units++;
    t->length += (unsigned __int128)((__int128)end - start);
    add_bins(t, unit_bins(t, start, end, events));
}

void dfs_bin_tally_spread(dfs_bin_tally *t, uint64_t cells, uint64_t ns)
{
    t->spread = dfs_bins_add(t->spread, cells);
    t->spread_ns = dfs_bins_add(t->spread_ns, ns);
    add_bins(t, cells);
}

/* A duration as --granularity takes it, in the largest unit that holds it whole: "1500ms". */
void dfs_bins_width_text(char *buf, size_t n, int64_t ns)
{
    static const struct {
        int64_t ns;
        const char *unit;
    } units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};
    size_t u = 0;
    while (ns % units[u].ns != 0)
        u++;
    snprintf(buf, n, "%" PRId64 "%s", ns / units[u].ns, units[u].unit);
}

int64_t dfs_bins_fitting_width(unsigned __int128 length, uint64_t spans, uint64_t room, int64_t width)
{
    if (2 * (unsigned __int128)spans >= room)
        return 0;
    unsigned __int128 need = length / (room - 2 * (unsigned __int128)spans) + 1;
    for (int64_t mag = 1; mag <= INT64_MAX / 10; mag *= 10)
        for (int64_t f = 1; f <= 5; f += f == 1 ? 1 : 3)
            if ((unsigned __int128)(f * mag) >= need && f * mag > width)
                return f * mag;
    return 0;
}

/* The finest 1-2-5 granularity whose count fits, or 0 when the units alone are too many. */
static int64_t fitting_width(const dfs_bin_tally *t)
{
    unsigned __int128 length = t->length + t->spread_ns +
                               (t->have_run ? (unsigned __int128)((__int128)t->run_end - t->run_start) : 0);
    return dfs_bins_fitting_width(length, t->units + t->have_run, DFS_TIME_BINS_MAX, t->width);
}

void dfs_bin_tally_refusal(const dfs_bin_tally *t, const char *units, char *buf, size_t n)
{
    char given[32], fit[32], unit_part[96] = "", spread_part[96] = "";
    dfs_bins_width_text(given, sizeof given, t->width);
    if (t->units)
        snprintf(unit_part, sizeof unit_part, ", and %" PRIu64 " %s' own", t->units, units);
    if (t->spread)
        snprintf(spread_part, sizeof spread_part, ", and %" PRIu64 " more that events longer than a bin reach",
                 t->spread);
    double run_s = t->have_run ? ((double)t->run_end - (double)t->run_start) / 1e9 : 0;
    int len = snprintf(buf, n,
                       "--granularity %s makes %" PRIu64 " time bins (the run's %.3f s%s%s), more than the %" PRIu64
                       " an analysis keeps",
                       given, t->bins, run_s, unit_part, spread_part, DFS_TIME_BINS_MAX);
    if (len < 0 || (size_t)len >= n)
        return;
    int64_t w = fitting_width(t);
    if (w) {
        dfs_bins_width_text(fit, sizeof fit, w);
        snprintf(buf + len, n - (size_t)len, ": use --granularity %s or coarser", fit);
    } else {
        snprintf(buf + len, n - (size_t)len, ": use a coarser --granularity");
    }
}

void dfs_bins_workers_refusal(char *buf, size_t n)
{
    snprintf(buf, n,
             "the time bins the workers held together passed the bound (%" PRIu64 "), the run's alone do not: "
             "read again with -j 1, or a coarser --granularity",
             DFS_TIME_BINS_MAX);
}
