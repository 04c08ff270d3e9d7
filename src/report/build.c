/* build.c - from the report's analyses to the job report (report/job_report.h):
 * the job's facts, the breakdown of its wall time, the named metrics the rules read, the
 * insights and the verdict.
 *
 * The breakdown of a DFTracer job is exact and per process (overlap's interval algebra), then
 * averaged over the processes: with C the compute, A the data wait (the app-level reads), K the
 * checkpoint events and I the I/O calls of a process of span S,
 *   compute = |C|, data wait not hidden = |A \ C|, checkpoint not hidden = |(A ∪ K) \ C| − |A \ C|,
 *   I/O not hidden = |(A ∪ K ∪ I) \ C| − |(A ∪ K) \ C|, other = S − |C| − |(A ∪ K ∪ I) \ C|,
 * disjoint by construction, so they sum to S. Without a DFTracer process that computes or does
 * I/O, the steps' exclusive breakdown (each instant of a step to one concept, steps.h) over the
 * runs' steps is used; for DASF databases, each worker's task compute against the longest span.
 * The GPU's numbers (gpu_metrics.c) and the system samples' (system_metrics.c) are no parts of it:
 * they feed their rules and the verdict (compute-bound from the GPUs' own compute share; system
 * samples alone get theirs from their utilizations).
 *
 * Invariants: a metric is set only when its source measured it (a missing one makes the rules
 * that need it "not evaluated", never a zero); times at stake are wall-clock seconds per rank
 * (sums over ranks divided by their count), comparable with the wall time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/input_kinds.h"
#include "analyze/common/jobs.h"
#include "read/run.h"
#include "report/report.h"
#include "report/report_internal.h"

/* The commands that answer for a kind the report leaves out (kinds.c names the kinds). */
static const char *const kind_commands[DFS_KIND_COUNT] = {
    [DFS_KIND_DFTRACER] = "dfscope analyze, dfscope overlap",
    [DFS_KIND_PROFILER] = "dfscope steps, dfscope timeline",
    [DFS_KIND_CHROME] = "dfscope timeline, dfscope steps",
    [DFS_KIND_COMPOSER] = "dfscope steps",
    [DFS_KIND_SMDEBUG_FRAMEWORK] = "dfscope steps, dfscope dataloader, dfscope rules",
    [DFS_KIND_SMDEBUG_SYSTEM] = "dfscope rules",
    [DFS_KIND_DASF] = "dfscope tasks",
};

/* ---- the job ---- */

static void job_facts(const dfs_run *run, bool steps_found, bool tasks_found, bool device_found,
                      bool samples_found, dfs_job_report *rep)
{
    uint64_t files[DFS_KIND_COUNT] = {0}, events[DFS_KIND_COUNT] = {0}, metadata[DFS_KIND_COUNT] = {0};
    bool first = true;
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        const dfs_file_info *f = dfs_run_file(run, i);
        rep->files++;
        rep->events += f->records;
        rep->metadata += f->phase_counts[DFS_PHASE_METADATA];
        int k = dfs_input_kind_of(f->dialect);
        if (k >= 0)
            files[k]++, events[k] += f->records, metadata[k] += f->phase_counts[DFS_PHASE_METADATA];
        if (!f->have_span)
            continue;
        int64_t a = dfs_file_abs_ns(f, f->span_start_ns), b = dfs_file_abs_ns(f, f->span_end_ns);
        if (!dfs_jobs_on_wall_clock(f, a)) /* a clock near 0 would stretch the span back to 1970 */
            continue;
        rep->start_ns = first || a < rep->start_ns ? a : rep->start_ns;
        rep->end_ns = first || b > rep->end_ns ? b : rep->end_ns;
        first = false;
    }
    rep->timed = !first;
    rep->wall_s = rep->timed ? (double)(rep->end_ns - rep->start_ns) / 1e9 : NAN;
    for (int k = 0; k < DFS_KIND_COUNT; k++) {
        if (!files[k])
            continue;
        /* the kinds whose training steps the steps analysis reads are analysed when it found some */
        bool stepped = k == DFS_KIND_PROFILER || k == DFS_KIND_CHROME || k == DFS_KIND_COMPOSER ||
                       k == DFS_KIND_SMDEBUG_FRAMEWORK;
        bool analysed = k == DFS_KIND_DFTRACER || (stepped && steps_found) || (k == DFS_KIND_DASF && tasks_found) ||
                        (k == DFS_KIND_PROFILER && device_found) || (k == DFS_KIND_SMDEBUG_SYSTEM && samples_found);
        const char *why = analysed ? NULL
                          : stepped                ? "no training step found in them"
                          : k == DFS_KIND_DASF    ? "no Compute event found in them"
                                    : "not analysed by the report yet";
        rep->kinds[rep->nkinds++] = (dfs_report_kind){dfs_input_kind_name(k), files[k], events[k], analysed, why,
                                                      analysed ? NULL : kind_commands[k], metadata[k]};
    }
}

/* ---- the breakdown ---- */

static int class_index(const dfs_overlap_result *ov, const char *name)
{
    for (size_t i = 0; i < ov->nclasses; i++)
        if (strcmp(ov->class_names[i], name) == 0)
            return ov->class_texts[i] ? (int)i : -1;
    return -1;
}

static double unhidden(const dfs_overlap_unit *u, int cls)
{
    return cls >= 0 ? (double)u->v.cls[cls].unoverlapped / 1e9 : 0;
}

typedef struct split {
    double span, compute, wait, ckpt, io, other;
} split;

/* One process's split of its span (the formulas at the top). */
static split split_of(const dfs_overlap_result *ov, const dfs_overlap_unit *u)
{
    int c = class_index(ov, "compute"), a = class_index(ov, "app_io");
    int wk = class_index(ov, DFS_REPORT_CLASS_WAIT_CKPT), st = class_index(ov, DFS_REPORT_CLASS_STALL);
    split s = {.span = (double)u->v.total_time / 1e9};
    s.compute = c >= 0 ? (double)u->v.cls[c].time / 1e9 : 0;
    s.wait = unhidden(u, a);
    double wait_ckpt = wk >= 0 ? unhidden(u, wk) : s.wait, stall = st >= 0 ? unhidden(u, st) : wait_ckpt;
    s.ckpt = fmax(wait_ckpt - s.wait, 0);
    s.io = fmax(stall - wait_ckpt, 0);
    s.other = fmax(s.span - s.compute - stall, 0);
    return s;
}

double dfs_report_process_part(const dfs_overlap_result *ov, const dfs_overlap_unit *u, const char *id)
{
    split s = split_of(ov, u);
    const struct {
        const char *id;
        double v;
    } parts[] = {{"span", s.span}, {"compute", s.compute}, {"data_wait_exposed", s.wait},
                 {"io_exposed", s.io}, {"checkpoint_exposed", s.ckpt}, {"other", s.other}};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (strcmp(parts[i].id, id) == 0)
            return parts[i].v;
    return 0;
}

static bool overlap_breakdown(const dfs_overlap_result *ov, dfs_job_report *rep, split *mean)
{
    int c = ov ? class_index(ov, "compute") : -1, io = ov ? class_index(ov, "io") : -1;
    bool computes = c >= 0 && ov->summary.cls && ov->summary.cls[c].events;
    bool does_io = io >= 0 && ov->summary.cls && ov->summary.cls[io].events;
    if (!ov || !ov->nprocesses || !(computes || does_io))
        return false;
    memset(mean, 0, sizeof *mean);
    for (size_t i = 0; i < ov->nprocesses; i++) {
        split s = split_of(ov, &ov->per_process[i]);
        mean->span += s.span, mean->compute += s.compute, mean->wait += s.wait;
        mean->ckpt += s.ckpt, mean->io += s.io, mean->other += s.other;
    }
    double n = (double)ov->nprocesses;
    *mean = (split){mean->span / n, mean->compute / n, mean->wait / n, mean->ckpt / n, mean->io / n, mean->other / n};
    rep->breakdown_basis = "exact per process (interval overlap), then the mean over the processes of their spans";
    rep->breakdown_wall_s = mean->span;
    dfs_report_part parts[] = {{"compute", "compute", mean->compute},
                               {"data_wait_exposed", "data wait not hidden", mean->wait},
                               {"io_exposed", "I/O not hidden", mean->io},
                               {"checkpoint_exposed", "checkpoint not hidden", mean->ckpt},
                               {"other", "other", mean->other}};
    /* a class the preset does not define is no part (its time is in "other"), not a zero */
    bool defined[] = {c >= 0, class_index(ov, "app_io") >= 0, io >= 0, true, true};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (defined[i])
            rep->parts[rep->nparts++] = parts[i];
    rep->ranks = ov->nprocesses;
    rep->ranks_what = ov->nprocesses == 1 ? "process" : "processes";
    return true;
}

/* The mean over the runs of a metric's sum over all their steps (s); NAN when no run has it. */
static double ex_sum(const dfs_steps_result *st, dfs_step_metric m)
{
    double s = 0;
    bool any = false;
    for (size_t i = 0; i < st->nruns; i++)
        if (st->runs[i].available[m] && st->runs[i].all.sum[m] != DFS_STEPS_NA)
            s += (double)st->runs[i].all.sum[m], any = true;
    return any ? s / 1e9 / (double)st->nruns : NAN;
}

static bool steps_breakdown(const dfs_steps_result *st, dfs_job_report *rep)
{
    if (!st || !st->total.steps || !st->nruns)
        return false;
    rep->breakdown_basis = "the steps' exclusive breakdown (each instant of a step counted once), mean over the "
                           "runs; time outside the steps is not in it";
    rep->breakdown_wall_s = ex_sum(st, DFS_SM_STEP_TIME);
    double dev = ex_sum(st, DFS_SM_EX_COMPUTE_DEV), host = ex_sum(st, DFS_SM_EX_COMPUTE_HOST);
    dfs_report_part parts[] = {
        {"compute", "compute", (isfinite(dev) ? dev : 0) + (isfinite(host) ? host : 0)},
        {"data_wait_exposed", "data wait not hidden", ex_sum(st, DFS_SM_EX_DATA_WAIT)},
        {"io_exposed", "I/O not hidden", ex_sum(st, DFS_SM_EX_IO)},
        {"transfer", "copies and collectives", ex_sum(st, DFS_SM_EX_TRANSFER)},
        {"runtime", "runtime calls (launches)", ex_sum(st, DFS_SM_EX_RUNTIME)},
        {"other", "other", ex_sum(st, DFS_SM_EX_OTHER)}};
    /* a concept the source lacks is no part (its time is in "other"), not a zero */
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (isfinite(parts[i].seconds))
            rep->parts[rep->nparts++] = parts[i];
    rep->ranks = st->nruns;
    rep->ranks_what = st->nruns == 1 ? "run" : "runs";
    return true;
}

/* ---- metrics ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorted in place); NAN when n is 0. */
static double median(double *v, size_t n)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double share(double part, double whole)
{
    return whole > 0 ? part / whole : NAN;
}

/* The data wait: its share from the steps (the verdicts' counted steps), its time from the overlap
 * breakdown when there is one (else every step's); without steps, both from the breakdown. */
static void wait_metrics(dfs_metrics *m, const dfs_steps_result *st, const split *ov_split, bool have_split,
                         bool has_wait_class)
{
    double exposed = 0, step = 0, wait = 0, io_in_wait = 0, exposed_all = 0, worst = -1;
    bool have_io = false;
    char where[200] = "";
    size_t runs = 0;
    for (size_t i = 0; st && i < st->nruns; i++) {
        const dfs_steps_run *r = &st->runs[i];
        const int64_t *c = r->counted.sum, *a = r->all.sum;
        if (!r->available[DFS_SM_EXPOSED_WAIT] || !r->counted.steps || c[DFS_SM_STEP_TIME] <= 0)
            continue;
        runs++;
        exposed += (double)c[DFS_SM_EXPOSED_WAIT], step += (double)c[DFS_SM_STEP_TIME];
        wait += (double)c[DFS_SM_DATA_WAIT], exposed_all += (double)a[DFS_SM_EXPOSED_WAIT];
        if (r->available[DFS_SM_IO_IN_WAIT] && c[DFS_SM_IO_IN_WAIT] != DFS_STEPS_NA) {
            have_io = true;
            io_in_wait += (double)c[DFS_SM_IO_IN_WAIT];
        }
        double s = (double)c[DFS_SM_EXPOSED_WAIT] / (double)c[DFS_SM_STEP_TIME];
        if (s > worst) {
            worst = s;
            if (r->rank >= 0)
                snprintf(where, sizeof where, "rank %lld, %s: %.1f %%", (long long)r->rank, r->name, 100 * s);
            else
                snprintf(where, sizeof where, "%s: %.1f %%", r->name, 100 * s);
        }
    }
    if (runs) {
        /* the time is the breakdown's when there is one, so that the page says one number for it */
        double wait_s = have_split && has_wait_class ? ov_split->wait : exposed_all / 1e9 / (double)runs;
        dfs_metrics_set(m, "exposed_wait_share", share(exposed, step), DFS_MU_SHARE, where);
        dfs_metrics_set(m, "exposed_wait_s", wait_s, DFS_MU_SECONDS, NULL);
        if (have_io && wait > 0) {
            /* the part of the data wait not hidden that the I/O calls account for: never above it */
            double storage = io_in_wait / wait;
            dfs_metrics_set(m, "storage_share_of_wait", storage, DFS_MU_SHARE, NULL);
            dfs_metrics_set(m, "io_in_wait_s", wait_s * fmin(storage, 1), DFS_MU_SECONDS, NULL);
        }
    } else if (have_split && has_wait_class) {
        dfs_metrics_set(m, "exposed_wait_share", share(ov_split->wait, ov_split->span), DFS_MU_SHARE,
                        "of the wall time, no steps");
        dfs_metrics_set(m, "exposed_wait_s", ov_split->wait, DFS_MU_SECONDS, NULL);
    }
}

/* Random against sequential access, from the data calls with an offset; none without offsets. */
static void pattern_metrics(dfs_metrics *m, const dfs_iocalls_result *io, double ranks)
{
    if (!io->pattern_ops)
        return;
    char where[1100] = "";
    if (io->random_file)
        snprintf(where, sizeof where, "%s, %.1f %% of its calls", io->random_file,
                 100 * share((double)io->random_file_ops, (double)io->random_file_pattern_ops));
    dfs_metrics_set(m, "io_pattern_ops", (double)io->pattern_ops, DFS_MU_COUNT, NULL);
    dfs_metrics_set(m, "io_random_ops", (double)io->random_ops, DFS_MU_COUNT, NULL);
    dfs_metrics_set(m, "io_random_share", share((double)io->random_ops, (double)io->pattern_ops), DFS_MU_SHARE,
                    io->random_file ? where : NULL);
    dfs_metrics_set(m, "io_random_s", (double)io->random_dur_ns / 1e9 / ranks, DFS_MU_SECONDS, NULL);
}

/* The bandwidth each process achieves in its reads and writes: the slowest against the median. */
static void bandwidth_metrics(dfs_metrics *m, const dfs_iocalls_result *io)
{
    if (!io->bw_processes)
        return;
    double dur = (double)io->bw_slowest_dur_ns / 1e9, bytes = (double)io->bw_slowest_bytes;
    dfs_metrics_set(m, "io_bw_ranks", (double)io->bw_processes, DFS_MU_COUNT, NULL);
    dfs_metrics_set(m, "io_bw_bytes", (double)io->bw_bytes, DFS_MU_BYTES, NULL);
    dfs_metrics_set(m, "io_rank_bw_min", io->bw_min, DFS_MU_BYTES, io->bw_slowest);
    dfs_metrics_set(m, "io_rank_bw_median", io->bw_median, DFS_MU_BYTES, NULL);
    dfs_metrics_set(m, "io_rank_bw_min_over_median", share(io->bw_min, io->bw_median), DFS_MU_RATIO,
                    io->bw_slowest);
    dfs_metrics_set(m, "io_rank_bw_bytes", bytes, DFS_MU_BYTES, io->bw_slowest);
    dfs_metrics_set(m, "io_rank_bw_data_s", dur, DFS_MU_SECONDS, io->bw_slowest);
    if (io->bw_median > 0)
        dfs_metrics_set(m, "io_rank_bw_excess_s", fmax(dur - bytes / io->bw_median, 0), DFS_MU_SECONDS,
                        io->bw_slowest);
}

static bool io_metrics(dfs_metrics *m, const dfs_iocalls_result *io, double ranks)
{
    const dfs_iocall *t = &io->total;
    if (!t->count || ranks <= 0)
        return true;
    dfs_metrics_set(m, "io_time_s", (double)t->dur_ns / 1e9 / ranks, DFS_MU_SECONDS, NULL);
    dfs_metrics_set(m, "top_io_call_share", share((double)io->calls[0].dur_ns, (double)t->dur_ns), DFS_MU_SHARE,
                    io->calls[0].name);
    dfs_metrics_set(m, "top_io_call_s", (double)io->calls[0].dur_ns / 1e9 / ranks, DFS_MU_SECONDS, io->calls[0].name);
    if (t->sized) {
        dfs_metrics_set(m, "sized_ops", (double)t->sized, DFS_MU_COUNT, NULL);
        dfs_metrics_set(m, "small_4k_share", share((double)t->under_4k, (double)t->sized), DFS_MU_SHARE, NULL);
        dfs_metrics_set(m, "small_4k_ops", (double)t->under_4k, DFS_MU_COUNT, NULL);
        dfs_metrics_set(m, "small_4k_s", (double)t->under_4k_dur_ns / 1e9 / ranks, DFS_MU_SECONDS, NULL);
        dfs_metrics_set(m, "small_1m_share", share((double)t->under_1m, (double)t->sized), DFS_MU_SHARE, NULL);
        dfs_metrics_set(m, "small_1m_ops", (double)t->under_1m, DFS_MU_COUNT, NULL);
        dfs_metrics_set(m, "small_1m_s", (double)t->under_1m_dur_ns / 1e9 / ranks, DFS_MU_SECONDS, NULL);
    }
    if (io->files) {
        dfs_metrics_set(m, "files_accessed", (double)io->files, DFS_MU_COUNT, NULL);
        dfs_metrics_set(m, "median_file_bytes", io->median_file_bytes, DFS_MU_BYTES, NULL);
        dfs_metrics_set(m, "hot_file_share", share((double)io->hot_file_dur_ns, (double)io->named_dur_ns),
                        DFS_MU_SHARE, io->hot_file);
        dfs_metrics_set(m, "hot_file_s", (double)io->hot_file_dur_ns / 1e9 / ranks, DFS_MU_SECONDS, io->hot_file);
    }
    pattern_metrics(m, io, ranks);
    bandwidth_metrics(m, io);
    double meta = 0, data = 0;
    for (size_t i = 0; i < io->ncalls; i++) {
        if (dfs_iocall_is_data(io->calls[i].name))
            data += (double)io->calls[i].dur_ns;
        else if (dfs_iocall_is_metadata(io->calls[i].name))
            meta += (double)io->calls[i].dur_ns;
    }
    dfs_metrics_set(m, "metadata_s", meta / 1e9 / ranks, DFS_MU_SECONDS, NULL);
    if (data > 0) {
        dfs_metrics_set(m, "data_io_s", data / 1e9 / ranks, DFS_MU_SECONDS, NULL);
        dfs_metrics_set(m, "metadata_over_data", meta / data, DFS_MU_RATIO, NULL);
    }
    return !m->nomem;
}

/* I/O time per process (overlap's I/O class, nested calls once): the busiest against the median. */
static bool rank_io_metrics(dfs_metrics *m, const dfs_overlap_result *ov)
{
    int io = ov ? class_index(ov, "io") : -1;
    if (io < 0 || ov->nprocesses < 1 || !ov->summary.cls[io].events)
        return true;
    double *v = malloc(ov->nprocesses * sizeof *v);
    if (!v)
        return false;
    size_t top = 0;
    for (size_t i = 0; i < ov->nprocesses; i++) {
        v[i] = (double)ov->per_process[i].v.cls[io].time / 1e9;
        if (v[i] > v[top])
            top = i;
    }
    double max = v[top];
    const char *key = ov->per_process[top].key;
    double med = median(v, ov->nprocesses);
    free(v);
    dfs_metrics_set(m, "io_rank_max_s", max, DFS_MU_SECONDS, key);
    dfs_metrics_set(m, "io_rank_median_s", med, DFS_MU_SECONDS, NULL);
    dfs_metrics_set(m, "io_rank_excess_s", max - med, DFS_MU_SECONDS, key);
    if (med > 0)
        dfs_metrics_set(m, "io_rank_max_over_median", max / med, DFS_MU_RATIO, key);
    return !m->nomem;
}

static double mean_step(const dfs_steps_run *r)
{
    return r->counted.steps ? (double)r->counted.sum[DFS_SM_STEP_TIME] / (double)r->counted.steps : NAN;
}

static void run_label(char *buf, size_t n, const dfs_steps_run *r)
{
    if (r->rank >= 0)
        snprintf(buf, n, "rank %lld, %s", (long long)r->rank, r->name);
    else
        snprintf(buf, n, "%s", r->name);
}

/* Mean step per run: the slowest run against the median run. */
static bool rank_step_metrics(dfs_metrics *m, const dfs_steps_result *st)
{
    double *v = malloc((st->nruns ? st->nruns : 1) * sizeof *v);
    if (!v)
        return false;
    size_t n = 0, top = 0;
    for (size_t i = 0; i < st->nruns; i++) {
        double x = mean_step(&st->runs[i]);
        if (!isfinite(x))
            continue;
        if (!n || x > mean_step(&st->runs[top]))
            top = i;
        v[n++] = x;
    }
    double med = median(v, n);
    free(v);
    if (n < 1)
        return true;
    char where[200];
    run_label(where, sizeof where, &st->runs[top]);
    double max = mean_step(&st->runs[top]);
    dfs_metrics_set(m, "step_ranks", (double)n, DFS_MU_COUNT, NULL);
    if (med > 0)
        dfs_metrics_set(m, "step_rank_max_over_median", max / med, DFS_MU_RATIO, where);
    dfs_metrics_set(m, "step_rank_excess_s", (max - med) * (double)st->runs[top].counted.steps / 1e9,
                    DFS_MU_SECONDS, where);
    return !m->nomem;
}

/* Step outliers over the counted steps of every run, and each run's first step. */
static bool step_metrics(dfs_metrics *m, const dfs_steps_result *st)
{
    size_t total = 0;
    for (size_t i = 0; i < st->nruns; i++)
        total += st->runs[i].nsteps;
    if (!total)
        return true;
    double *v = malloc(total * sizeof *v);
    if (!v)
        return false;
    size_t n = 0;
    const dfs_step *slow = NULL;
    const dfs_steps_run *slow_run = NULL;
    for (size_t i = 0; i < st->nruns; i++)
        for (size_t k = 0; k < st->runs[i].nsteps; k++) {
            const dfs_step *s = &st->runs[i].steps[k];
            if ((s->flags & (DFS_STEP_WARMUP | DFS_STEP_LAST)) && !st->runs[i].counted_is_all)
                continue;
            v[n++] = (double)s->m[DFS_SM_STEP_TIME];
            if (!slow || s->m[DFS_SM_STEP_TIME] > slow->m[DFS_SM_STEP_TIME])
                slow = s, slow_run = &st->runs[i];
        }
    double med = median(v, n);
    double excess = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] >= 2 * med)
            excess += v[i] - med;
    free(v);
    dfs_metrics_set(m, "steps", (double)n, DFS_MU_COUNT, NULL);
    if (slow && med > 0) {
        char where[240], run[200];
        run_label(run, sizeof run, slow_run);
        snprintf(where, sizeof where, "step %lld of %s", (long long)slow->number, run);
        dfs_metrics_set(m, "step_max_s", (double)slow->m[DFS_SM_STEP_TIME] / 1e9, DFS_MU_SECONDS, where);
        dfs_metrics_set(m, "step_median_s", med / 1e9, DFS_MU_SECONDS, NULL);
        dfs_metrics_set(m, "step_max_over_median", (double)slow->m[DFS_SM_STEP_TIME] / med, DFS_MU_RATIO, where);
        dfs_metrics_set(m, "step_outlier_excess_s", excess / 1e9 / (double)st->nruns, DFS_MU_SECONDS, NULL);
    }
    return !m->nomem;
}

/* The first step of each run against that run's median step: the worst run. */
static bool first_step_metrics(dfs_metrics *m, const dfs_steps_result *st)
{
    double worst = 0, excess = 0;
    char where[240] = "";
    size_t runs = 0;
    for (size_t i = 0; i < st->nruns; i++) {
        const dfs_steps_run *r = &st->runs[i];
        if (r->nsteps < 3)
            continue;
        double *v = malloc(r->nsteps * sizeof *v);
        if (!v)
            return false;
        for (size_t k = 0; k < r->nsteps; k++)
            v[k] = (double)r->steps[k].m[DFS_SM_STEP_TIME];
        double first = v[0], med = median(v, r->nsteps);
        free(v);
        if (!(med > 0))
            continue;
        runs++;
        excess += fmax(first - med, 0);
        if (first / med > worst) {
            worst = first / med;
            char run[200];
            run_label(run, sizeof run, r);
            snprintf(where, sizeof where, "step %lld of %s", (long long)r->steps[0].number, run);
        }
    }
    if (runs) {
        dfs_metrics_set(m, "first_step_over_median", worst, DFS_MU_RATIO, where);
        dfs_metrics_set(m, "first_step_excess_s", excess / 1e9 / (double)runs, DFS_MU_SECONDS, NULL);
    }
    return !m->nomem;
}

/* Step time drift: each run's last epoch (of train steps) against its first, by mean step; the
 * worst run, and the time the drift cost over the last epoch's steps, mean over the runs. */
static void drift_metrics(dfs_metrics *m, const dfs_steps_result *st)
{
    double worst = 0, excess = 0;
    char where[240] = "";
    size_t runs = 0;
    for (size_t i = 0; i < st->nruns; i++) {
        const dfs_steps_run *r = &st->runs[i];
        const dfs_steps_epoch *first = NULL, *last = NULL;
        for (size_t k = 0; k < r->nepochs; k++)
            if (r->epochs[k].mode == DFS_MODE_TRAIN && r->epochs[k].steps) {
                first = first ? first : &r->epochs[k];
                last = &r->epochs[k];
            }
        if (!first || first == last)
            continue;
        double a = (double)first->step_time / (double)first->steps, b = (double)last->step_time / (double)last->steps;
        if (!(a > 0))
            continue;
        runs++;
        excess += fmax(b - a, 0) * (double)last->steps;
        if (b / a > worst) {
            char run[200];
            worst = b / a;
            run_label(run, sizeof run, r);
            snprintf(where, sizeof where, "epoch %lld against epoch %lld of %s", (long long)last->epoch,
                     (long long)first->epoch, run);
        }
    }
    if (runs) {
        dfs_metrics_set(m, "step_drift", worst, DFS_MU_RATIO, where);
        dfs_metrics_set(m, "step_drift_excess_s", excess / 1e9 / (double)runs, DFS_MU_SECONDS, NULL);
    }
}

static void loader_metrics(dfs_metrics *m, const dfs_steps_result *st)
{
    uint64_t single = 0, pageable = 0, pinned = 0;
    double transfer = 0;
    bool have_transfer = false;
    for (size_t i = 0; i < st->nruns; i++) {
        const dfs_steps_run *r = &st->runs[i];
        single += r->counts.single_process_loader;
        pageable += r->counts.pageable_h2d, pinned += r->counts.pinned_h2d;
        if (r->available[DFS_SM_TRANSFER] && r->all.sum[DFS_SM_TRANSFER] != DFS_STEPS_NA) {
            transfer += (double)r->all.sum[DFS_SM_TRANSFER];
            have_transfer = true;
        }
    }
    if (st->nruns)
        dfs_metrics_set(m, "single_process_loader_runs", (double)single, DFS_MU_COUNT, NULL);
    if (pageable + pinned) {
        dfs_metrics_set(m, "pageable_h2d", (double)pageable, DFS_MU_COUNT, NULL);
        dfs_metrics_set(m, "pageable_h2d_share", share((double)pageable, (double)(pageable + pinned)), DFS_MU_SHARE,
                        NULL);
    }
    if (have_transfer)
        dfs_metrics_set(m, "transfer_s", transfer / 1e9 / (double)st->nruns, DFS_MU_SECONDS, NULL);
}

/* Files whose clock is not the wall clock (relative, or starting before 2000) beside files on it:
 * they are analysed, but stand outside the job's span and its grouping. Measured only when some
 * file is on the wall clock; DASF's per-host clocks are monotonic by design and not counted. */
static void clock_metrics(dfs_metrics *m, const dfs_run *run)
{
    uint64_t on = 0, off = 0;
    const char *first_off = NULL;
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        const dfs_file_info *f = dfs_run_file(run, i);
        if (!f->have_span || f->dialect == DFS_DIALECT_DASF)
            continue;
        if (dfs_jobs_on_wall_clock(f, dfs_file_abs_ns(f, f->span_start_ns)))
            on++;
        else if (!off++)
            first_off = f->path;
    }
    if (on)
        dfs_metrics_set(m, "off_clock_files", (double)off, DFS_MU_COUNT, first_off);
}

static void health_metrics(dfs_metrics *m, const dfs_run *run, const dfs_layered_result *lay)
{
    clock_metrics(m, run);
    dfs_metrics_set(m, "damaged_records", (double)dfs_run_damage_total(run), DFS_MU_COUNT, NULL);
    /* under --dedup the duplicates are dropped already: the report says so, not to drop them */
    dfs_metrics_set(m, run->opt.dedup ? "duplicates_dropped" : "duplicate_records",
                    (double)dfs_run_problem_count(run, DFS_PROB_DUPLICATE_RECORD), DFS_MU_COUNT, NULL);
    if (lay && lay->layer_count_total && lay->post_read_dur_ns) {
        const char *top = lay->nunlayered ? lay->unlayered[0].category : NULL;
        char where[160];
        if (top)
            snprintf(where, sizeof where, "most in category %s", top);
        dfs_metrics_set(m, "unlayered_share", share((double)lay->unlayered_dur_ns, (double)lay->post_read_dur_ns),
                        DFS_MU_SHARE, top ? where : NULL);
        dfs_metrics_set(m, "unlayered_s", (double)lay->unlayered_dur_ns / 1e9, DFS_MU_SECONDS, NULL);
    }
}

static void layers_of(const dfs_layered_result *lay, dfs_job_report *rep)
{
    if (!lay || !lay->layer_count_total || !lay->nviews)
        return;
    const dfs_view_result *v = &lay->views[0];
    for (size_t i = 0; i < lay->nlayers && rep->nlayers < DFS_REPORT_MAX_LAYERS; i++) {
        const dfs_layer_summary *s = &v->layers[i];
        if (!s->count)
            continue;
        rep->layers[rep->nlayers++] = (dfs_report_layer){
            lay->layers[i].name, s->wall_s, s->time_s, s->has_u ? s->u_base_s : NAN, s->has_u ? s->u_time_s : NAN,
            s->count};
    }
}

/* ---- DASF task databases ---- */

enum { FN_HOST, FN_GPU, FN_FUNCTION, FN_DURATION }; /* the function table's first columns (tasks.h) */

typedef struct worker_time {
    char host[64], gpu[32];
    double s;
} worker_time;

typedef struct fn_time {
    char name[96];
    double s;
} fn_time;

static void cell_text(const dfs_tk_table *t, size_t row, size_t col, char *buf, size_t n)
{
    dfs_tk_cell c = {0};
    t->cell(t, row, col, &c);
    snprintf(buf, n, "%.*s", (int)(c.len < n ? c.len : n - 1), c.s ? c.s : "");
}

/* Adds s to the entry named by key in v[0..*n) (a linear search: workers and functions are few
 * next to the events), or appends it; false when cap is reached. */
static bool add_worker(worker_time *v, size_t *n, size_t cap, const char *host, const char *gpu, double s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(v[i].host, host) == 0 && strcmp(v[i].gpu, gpu) == 0)
            return v[i].s += s, true;
    if (*n == cap)
        return false;
    v[*n] = (worker_time){.s = s};
    snprintf(v[*n].host, sizeof v[*n].host, "%s", host);
    snprintf(v[(*n)++].gpu, sizeof v->gpu, "%s", gpu);
    return true;
}

static bool add_fn(fn_time *v, size_t *n, size_t cap, const char *name, double s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(v[i].name, name) == 0)
            return v[i].s += s, true;
    if (*n == cap)
        return false;
    v[*n].s = s;
    snprintf(v[(*n)++].name, sizeof v->name, "%s", name);
    return true;
}

/* The longest span of a DASF file (each host has its own clock; a span is a duration on it). */
static double dasf_wall(const dfs_run *run)
{
    int64_t best = 0;
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        const dfs_file_info *f = dfs_run_file(run, i);
        if (f->dialect == DFS_DIALECT_DASF && f->have_span && f->span_end_ns - f->span_start_ns > best)
            best = f->span_end_ns - f->span_start_ns;
    }
    return (double)best / 1e9;
}

static void dasf_facts(dfs_metrics *m, const dfs_run *run, const dfs_tasks_result *tk, dfs_job_report *rep,
                       worker_time *w, size_t nw, const fn_time *f, size_t nf, double total)
{
    const fn_time *top = &f[0];
    for (size_t i = 1; i < nf; i++)
        if (f[i].s > top->s || (f[i].s == top->s && strcmp(f[i].name, top->name) < 0))
            top = &f[i];
    const worker_time *busiest = &w[0];
    double *v = malloc(nw * sizeof *v);
    for (size_t i = 0; i < nw; i++) {
        if (w[i].s > busiest->s)
            busiest = &w[i];
        if (v)
            v[i] = w[i].s;
    }
    double med = v ? median(v, nw) : NAN, wall = dasf_wall(run), per_worker = total / (double)nw;
    free(v);
    char where[128];
    dfs_metrics_set(m, "task_workers", (double)nw, DFS_MU_COUNT, NULL);
    dfs_metrics_set(m, "top_function_share", top->s / total, DFS_MU_SHARE, top->name);
    dfs_metrics_set(m, "top_function_s", top->s / (double)nw, DFS_MU_SECONDS, top->name);
    snprintf(where, sizeof where, "%s, GPU %s", busiest->host, busiest->gpu);
    if (med > 0)
        dfs_metrics_set(m, "task_worker_max_over_median", busiest->s / med, DFS_MU_RATIO, where);
    dfs_metrics_set(m, "task_worker_excess_s", busiest->s - med, DFS_MU_SECONDS, where);
    if (wall > 0 && tk->path_tasks) {
        dfs_metrics_set(m, "critical_path_s", tk->path_seconds, DFS_MU_SECONDS, NULL);
        dfs_metrics_set(m, "critical_path_share", tk->path_seconds / wall, DFS_MU_SHARE, NULL);
    }
    if (rep->nparts || !(wall > 0) || per_worker > wall)
        return; /* threads of a worker overlapping: no split of its wall time */
    rep->breakdown_basis = "Compute events' durations per worker (host, GPU), mean over the workers, against the "
                           "longest database span";
    rep->breakdown_wall_s = wall;
    rep->parts[rep->nparts++] = (dfs_report_part){"compute", "task compute", per_worker};
    rep->parts[rep->nparts++] = (dfs_report_part){"other", "other", wall - per_worker};
    rep->ranks = nw;
    rep->ranks_what = nw == 1 ? "worker" : "workers";
    dfs_metrics_set(m, "wall_s", wall, DFS_MU_SECONDS, NULL);
}

/* Task time per worker and per function from the function table (durations of Compute events),
 * the critical path against the wall time, and a breakdown of a worker's wall time. */
static bool dasf_metrics(dfs_metrics *m, const dfs_run *run, const dfs_tasks_result *tk, dfs_job_report *rep)
{
    enum { CAP = 4096 };
    const dfs_tk_table *t = &tk->function;
    worker_time *w = calloc(CAP, sizeof *w);
    fn_time *f = calloc(CAP, sizeof *f);
    size_t nw = 0, nf = 0;
    bool ok = w && f;
    double total = 0;
    for (size_t r = 0; ok && r < t->nrows && t->ncols > FN_DURATION; r++) {
        char host[64], gpu[32], name[96];
        dfs_tk_cell d = {0};
        t->cell(t, r, FN_DURATION, &d);
        cell_text(t, r, FN_HOST, host, sizeof host);
        cell_text(t, r, FN_GPU, gpu, sizeof gpu);
        cell_text(t, r, FN_FUNCTION, name, sizeof name);
        total += d.f;
        add_worker(w, &nw, CAP, host, gpu, d.f);
        add_fn(f, &nf, CAP, name, d.f);
    }
    if (ok && nw && total > 0)
        dasf_facts(m, run, tk, rep, w, nw, f, nf, total);
    free(w);
    free(f);
    return ok && !m->nomem;
}

/* ---- GPU ---- */

static bool has_device_work(const dfs_gpu_result *g)
{
    for (size_t i = 0; g && i < g->nranks; i++)
        if (g->ranks[i].device_rows)
            return true;
    return false;
}

/* ---- verdict ---- */

/* System samples without a breakdown: their utilizations say the job is not held back by what
 * they measure; false without them. */
static bool system_verdict(dfs_job_report *rep)
{
    const dfs_metric *cpu = dfs_metrics_get(rep->metrics, "sys_cpu_p95");
    const dfs_metric *gpu = dfs_metrics_get(rep->metrics, "sys_gpu_p95");
    if (!cpu && !gpu)
        return false;
    char cpu_text[32] = "n/a", gpu_text[48] = "";
    if (cpu)
        snprintf(cpu_text, sizeof cpu_text, "%.1f %%", 100 * cpu->value);
    if (gpu)
        snprintf(gpu_text, sizeof gpu_text, ", GPU %.1f %%", 100 * gpu->value);
    snprintf(rep->verdict, sizeof rep->verdict, "no bottleneck found");
    snprintf(rep->verdict_why, sizeof rep->verdict_why,
             "system samples only (no steps): p95 utilization CPU %s%s, and no rule fired (%zu rules evaluated)",
             cpu_text, gpu_text, rep->insights.evaluated);
    return true;
}

static void verdict(dfs_job_report *rep)
{
    size_t used = 0;
    for (size_t i = 0; i < rep->insights.n; i++) {
        /* a rule without a verdict label (a slow first step) still heads the verdict when it costs
         * enough: "no bottleneck found" above a critical insight would contradict the page; one
         * without time at stake (the input's health: damage, duplicates, clocks) is about the
         * trace, not the job, and stays an insight */
        const dfs_insight *in = &rep->insights.v[i];
        const char *v = in->verdict ? in->verdict : isfinite(in->stake_s) ? in->title : NULL;
        if (!v || in->severity == DFS_SEV_INFO || strstr(rep->verdict, v))
            continue;
        /* a label that does not fit whole is left out, and the cut said, rather than cut mid-word */
        size_t len = strlen(v) + (used ? 2 : 0);
        if (used && used + len + 5 >= sizeof rep->verdict) {
            snprintf(rep->verdict + used, sizeof rep->verdict - used, ", ...");
            break;
        }
        used += (size_t)snprintf(rep->verdict + used, sizeof rep->verdict - used, "%s%s", used ? ", " : "", v);
        if (used >= sizeof rep->verdict)
            break;
    }
    if (used) {
        snprintf(rep->verdict_why, sizeof rep->verdict_why,
                 "from the rules that fired with a warning or worse (below), most time first");
        return;
    }
    double compute = rep->nparts && strcmp(rep->parts[0].id, "compute") == 0 ? rep->parts[0].seconds : 0;
    const dfs_metric *gpu_compute = rep->metrics ? dfs_metrics_get(rep->metrics, "gpu_compute_share") : NULL;
    const dfs_report_kind *left = NULL;
    for (size_t i = 0; i < rep->nkinds; i++)
        if (!rep->kinds[i].analysed && !left)
            left = &rep->kinds[i];
    if (gpu_compute && gpu_compute->value >= 0.5) {
        /* the device's own time says it better than the steps' compute, which counts host ops too */
        snprintf(rep->verdict, sizeof rep->verdict, "compute-bound");
        snprintf(rep->verdict_why, sizeof rep->verdict_why,
                 "the GPUs compute %.1f %% of their span (first to last device event) and no rule found time lost "
                 "to waiting", 100 * gpu_compute->value);
    } else if ((!rep->nparts || !(rep->breakdown_wall_s > 0)) && system_verdict(rep)) {
        /* system_verdict said it */
    } else if ((!rep->nparts || !(rep->breakdown_wall_s > 0)) && left) {
        snprintf(rep->verdict, sizeof rep->verdict, "no verdict");
        snprintf(rep->verdict_why, sizeof rep->verdict_why,
                 "%s: %s; for them: %s", left->name, left->why, left->commands);
    } else if (!rep->nparts || !(rep->breakdown_wall_s > 0)) {
        snprintf(rep->verdict, sizeof rep->verdict, "no verdict");
        snprintf(rep->verdict_why, sizeof rep->verdict_why,
                 "the analyses found no compute and no training steps to weigh the time against");
    } else if (compute / rep->breakdown_wall_s >= 0.5) {
        snprintf(rep->verdict, sizeof rep->verdict, "compute-bound");
        snprintf(rep->verdict_why, sizeof rep->verdict_why,
                 "compute is %.1f %% of the wall time and no rule found time lost to waiting", 100 * compute /
                 rep->breakdown_wall_s);
    } else {
        double waits = 0;
        for (size_t i = 0; i < rep->nparts; i++)
            if (strcmp(rep->parts[i].id, "compute") != 0 && strcmp(rep->parts[i].id, "other") != 0)
                waits += rep->parts[i].seconds;
        bool computes = rep->nparts && strcmp(rep->parts[0].id, "compute") == 0;
        double other = rep->parts[rep->nparts - 1].seconds / rep->breakdown_wall_s;
        /* mostly time the trace does not explain: no bottleneck in what it holds, but not "balanced" */
        snprintf(rep->verdict, sizeof rep->verdict, "%s",
                 !computes ? "not I/O-bound" : other >= 0.5 ? "no bottleneck found" : "balanced");
        if (!computes)
            snprintf(rep->verdict_why, sizeof rep->verdict_why,
                     "the waits the trace holds (I/O, data, checkpoint) not hidden are %.1f %% of the wall time; the "
                     "rest is untraced (no compute events); %zu rules evaluated",
                     100 * waits / rep->breakdown_wall_s, rep->insights.evaluated);
        else
            snprintf(rep->verdict_why, sizeof rep->verdict_why,
                     "no rule found time lost worth a warning (%zu rules evaluated): compute %.1f %%, waits not "
                     "hidden %.1f %%, other (untraced, idle) %.1f %% of the wall time",
                     rep->insights.evaluated, 100 * compute / rep->breakdown_wall_s,
                     100 * waits / rep->breakdown_wall_s, 100 * other);
    }
}

static void more(dfs_job_report *rep, const dfs_report_results *r, bool dftracer)
{
    if (dftracer) {
        rep->more[rep->nmore++] = "dfscope analyze: time, operations and bandwidth per layer, process and file";
        rep->more[rep->nmore++] = "dfscope overlap: I/O against compute per process, time bin and epoch";
    }
    if (r->st && r->st->total.steps) {
        rep->more[rep->nmore++] = "dfscope steps --details: every step, its data wait and the verdicts' evidence";
        rep->more[rep->nmore++] = "dfscope timeline --slowest-step -o slow.svg: the slowest step, drawn";
    }
    if (r->rules && r->rules->samples)
        rep->more[rep->nmore++] = "dfscope rules: the SageMaker Debugger profiler rules over the system samples";
    if (has_device_work(r->gpu) && rep->nmore < 6)
        rep->more[rep->nmore++] = "dfscope gpu: device idle time by cause, kernels by type and name, communication "
                                  "overlap";
    if (r->tk && r->tk->computes && rep->nmore < 6)
        rep->more[rep->nmore++] = "dfscope tasks: function and task bottlenecks, worker balance, the critical path";
    for (size_t i = 0; i < rep->nkinds && rep->nmore < 6; i++)
        if (!rep->kinds[i].analysed)
            rep->more[rep->nmore++] = rep->kinds[i].commands;
}

bool dfs_report_build(const dfs_run *run, const dfs_report_results *r, const dfs_insight_rules *rules,
                      dfs_metrics *m, dfs_job_report *rep)
{
    memset(rep, 0, sizeof *rep);
    job_facts(run, r->st && r->st->total.steps, r->tk && r->tk->computes, has_device_work(r->gpu),
              r->rules && r->rules->samples, rep);
    split sp;
    bool have_split = overlap_breakdown(r->ov, rep, &sp);
    if (!have_split)
        steps_breakdown(r->st, rep);
    bool dftracer = r->lay != NULL;
    double ranks = rep->ranks ? (double)rep->ranks : 1;
    if (isfinite(rep->wall_s))
        dfs_metrics_set(m, "wall_s", rep->wall_s, DFS_MU_SECONDS, NULL);
    dfs_metrics_set(m, "ranks", (double)rep->ranks, DFS_MU_COUNT, NULL);
    wait_metrics(m, r->st, &sp, have_split, r->ov && class_index(r->ov, "app_io") >= 0);
    if (have_split) {
        dfs_metrics_set(m, "checkpoint_unhidden_s", sp.ckpt, DFS_MU_SECONDS, NULL);
        dfs_metrics_set(m, "checkpoint_share", share(sp.ckpt, sp.span), DFS_MU_SHARE, NULL);
        if (class_index(r->ov, "compute") >= 0)
            dfs_metrics_set(m, "compute_share", share(sp.compute, sp.span), DFS_MU_SHARE, NULL);
        dfs_metrics_set(m, "io_exposed_s", sp.io, DFS_MU_SECONDS, NULL);
        dfs_metrics_set(m, "io_exposed_share", share(sp.io, sp.span), DFS_MU_SHARE, NULL);
    }
    bool ok = io_metrics(m, r->io, ranks) && rank_io_metrics(m, r->ov) && dfs_report_gpu_metrics(m, r->gpu) &&
              dfs_report_system_metrics(m, r->rules);
    if (ok && r->st && r->st->nruns) {
        ok = rank_step_metrics(m, r->st) && step_metrics(m, r->st) && first_step_metrics(m, r->st);
        loader_metrics(m, r->st);
        drift_metrics(m, r->st);
    }
    if (ok && r->tk && r->tk->computes) {
        ok = dasf_metrics(m, run, r->tk, rep);
        dfs_metrics_set(m, "ranks", (double)rep->ranks, DFS_MU_COUNT, NULL);
    }
    health_metrics(m, run, r->lay);
    layers_of(r->lay, rep);
    rep->preset = r->lay && r->lay->preset ? r->lay->preset->name : NULL;
    rep->metrics = m;
    double wall = rep->breakdown_wall_s > 0 ? rep->breakdown_wall_s : rep->wall_s;
    if (!ok || m->nomem || !dfs_insights_eval(rules, m, isfinite(wall) ? wall : 0, &rep->insights))
        return false;
    for (size_t i = 0; i < rep->nkinds; i++)
        if (rep->kinds[i].commands && rep->nnotes < DFS_REPORT_MAX_NOTES)
            rep->notes[rep->nnotes++] = rep->kinds[i].name;
    verdict(rep);
    more(rep, r, dftracer);
    return true;
}

void dfs_report_build_free(dfs_job_report *rep)
{
    dfs_insights_free(&rep->insights);
}
