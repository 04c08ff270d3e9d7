/* gpu_metrics.c - the report's GPU metrics, from the gpu analysis of the profiler traces (exact
 * semantics): how busy the devices are, why they idle (the streams' idle time by cause), and how
 * much of the communication runs with no computation under it.
 *
 * Every time is per device span: from a rank's first device event to its last (the gpu analysis'
 * temporal breakdown), so idle, busy and communication times are disjoint parts of it.
 *
 * Invariants: only ranks with device work count (a rank without any is no zero); a metric is set
 * only when its source measured it: the host-wait share only when some stream idled, the
 * communication metrics only when some rank ran communication kernels; times are seconds per
 * GPU rank (sums over those ranks divided by their number); a where-text names the worst rank. */
#include <math.h>
#include <stdio.h>

#include "report/report.h"

typedef struct gpu_sums {
    double ranks, span, idle, compute, host_wait, stream_idle, host_wait_idle, comm, comm_exposed;
    bool comm_seen;
    int64_t worst_idle_rank, worst_overlap_rank;
    double worst_idle, worst_overlap; /* the largest idle share, the smallest overlap share */
} gpu_sums;

/* A rank's host-wait share of its streams' idle time, and their idle time (µs). */
static double host_wait_share(const dfs_gpu_rank *r, double *stream_idle_us, double *host_wait_us)
{
    *stream_idle_us = *host_wait_us = 0;
    for (size_t i = 0; i < r->nidle; i++) {
        *stream_idle_us += r->idle[i].idle_us;
        if (r->idle[i].category == DFS_GPU_HOST_WAIT)
            *host_wait_us += r->idle[i].idle_us;
    }
    return *stream_idle_us > 0 ? *host_wait_us / *stream_idle_us : 0;
}

static void add_comm(const dfs_gpu_rank *r, gpu_sums *s)
{
    double comm = 0, exposed = 0;
    for (size_t i = 0; i < r->ntypes; i++) {
        unsigned mask = r->types[i].mask;
        if (!(mask & DFS_GPU_KT_COMMUNICATION))
            continue;
        comm += (double)r->types[i].sum_ns / 1e9;
        if (!(mask & DFS_GPU_KT_COMPUTATION))
            exposed += (double)r->types[i].sum_ns / 1e9;
    }
    if (!(comm > 0))
        return;
    double overlap = 1 - exposed / comm;
    if (!s->comm_seen || overlap < s->worst_overlap)
        s->worst_overlap = overlap, s->worst_overlap_rank = r->rank;
    s->comm_seen = true;
    s->comm += comm, s->comm_exposed += exposed;
}

static void add_rank(const dfs_gpu_rank *r, gpu_sums *s)
{
    const dfs_gpu_temporal *t = &r->temporal;
    double span = (double)t->kernel_time_ns / 1e9, idle = (double)t->idle_ns / 1e9;
    double stream_idle, host_wait_idle, hw = host_wait_share(r, &stream_idle, &host_wait_idle);
    double idle_share = idle / span;
    if (s->ranks == 0 || idle_share > s->worst_idle)
        s->worst_idle = idle_share, s->worst_idle_rank = r->rank;
    s->ranks++;
    s->span += span, s->idle += idle, s->compute += (double)t->compute_ns / 1e9;
    s->host_wait += idle * hw;
    s->stream_idle += stream_idle, s->host_wait_idle += host_wait_idle;
    add_comm(r, s);
}

static void set_comm(dfs_metrics *m, const gpu_sums *s)
{
    char where[64];
    snprintf(where, sizeof where, "rank %lld: %.1f %%", (long long)s->worst_overlap_rank, 100 * s->worst_overlap);
    dfs_metrics_set(m, "gpu_comm_s", s->comm / s->ranks, DFS_MU_SECONDS, NULL);
    dfs_metrics_set(m, "gpu_comm_exposed_s", s->comm_exposed / s->ranks, DFS_MU_SECONDS, NULL);
    dfs_metrics_set(m, "gpu_comm_exposed_share", s->comm_exposed / s->span, DFS_MU_SHARE, NULL);
    dfs_metrics_set(m, "gpu_comm_overlap_share", 1 - s->comm_exposed / s->comm, DFS_MU_SHARE, where);
}

bool dfs_report_gpu_metrics(dfs_metrics *m, const dfs_gpu_result *g)
{
    gpu_sums s = {0};
    for (size_t i = 0; g && i < g->nranks; i++)
        if (g->ranks[i].device_rows && g->ranks[i].temporal.kernel_time_ns > 0)
            add_rank(&g->ranks[i], &s);
    if (!s.ranks)
        return !m->nomem;
    char where[64];
    snprintf(where, sizeof where, "rank %lld: %.1f %%", (long long)s.worst_idle_rank, 100 * s.worst_idle);
    dfs_metrics_set(m, "gpu_ranks", s.ranks, DFS_MU_COUNT, NULL);
    dfs_metrics_set(m, "gpu_span_s", s.span / s.ranks, DFS_MU_SECONDS, NULL);
    dfs_metrics_set(m, "gpu_idle_s", s.idle / s.ranks, DFS_MU_SECONDS, NULL);
    dfs_metrics_set(m, "gpu_idle_share", s.idle / s.span, DFS_MU_SHARE, where);
    snprintf(where, sizeof where, "rank %lld: %.1f %%", (long long)s.worst_idle_rank, 100 * (1 - s.worst_idle));
    dfs_metrics_set(m, "gpu_busy_share", 1 - s.idle / s.span, DFS_MU_SHARE, where);
    dfs_metrics_set(m, "gpu_compute_share", s.compute / s.span, DFS_MU_SHARE, NULL);
    if (s.stream_idle > 0) {
        double host_wait = s.host_wait / s.ranks;
        const dfs_metric *data = dfs_metrics_get(m, "exposed_wait_s");
        dfs_metrics_set(m, "gpu_host_wait_share", s.host_wait_idle / s.stream_idle, DFS_MU_SHARE, NULL);
        dfs_metrics_set(m, "gpu_host_wait_s", host_wait, DFS_MU_SECONDS, NULL);
        /* the host is late for its launches, not because it waits for data (input-bound says that) */
        dfs_metrics_set(m, "gpu_launch_wait_s", fmax(host_wait - (data ? data->value : 0), 0), DFS_MU_SECONDS,
                        NULL);
    }
    if (s.comm_seen)
        set_comm(m, &s);
    return !m->nomem;
}
