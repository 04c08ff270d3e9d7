/* steps_report.c - tables, JSON and CSV of `dfscope steps` (steps_report.h). */
#include "output/steps_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/csv.h"
#include "output/escape.h"
#include "output/format.h"
#include "output/json.h"

/* ---- shared helpers ---------------------------------------------------------------------------- */

static const char *flag_text(uint8_t flags)
{
    static const char *const t[] = {"", "W", "L", "WL"};
    return t[flags & 3];
}

static double share(int64_t part, int64_t whole)
{
    return part == DFS_STEPS_NA || whole <= 0 ? NAN : (double)part / (double)whole;
}

/* ms with µs precision, or "-" */
static const char *ms_text(char *buf, size_t n, int64_t ns)
{
    if (ns == DFS_STEPS_NA)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.3f", (double)ns / 1e6);
    return buf;
}

static const char *pct_text(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.2f %%", 100 * v);
    return buf;
}

/* ---- tables --------------------------------------------------------------------------------- */

static const dfs_step_metric table_metrics[] = {
    DFS_SM_STEP_TIME, DFS_SM_DATA_WAIT,  DFS_SM_EXPOSED_WAIT, DFS_SM_COMPUTE_DEV,
    DFS_SM_COMPUTE_HOST, DFS_SM_TRANSFER, DFS_SM_IO,           DFS_SM_IO_IN_WAIT, DFS_SM_EX_OTHER};
static const char *const table_heads[] = {"step_time", "data_wait", "exposed", "comp_dev", "comp_host",
                                          "transfer",  "io",        "io_wait", "other"};
#define NTABLE (sizeof table_metrics / sizeof *table_metrics)

static void print_step_header(FILE *out)
{
    fprintf(out, "  %8s %-7s %5s %-2s", "step", "mode", "epoch", "");
    for (size_t c = 0; c < NTABLE; c++)
        fprintf(out, " %12s", table_heads[c]);
    fprintf(out, " %8s\n", "share");
}

static void print_step(FILE *out, const dfs_step *s)
{
    char b[32], e[16];
    snprintf(e, sizeof e, s->epoch >= 0 ? "%" PRId64 : "-", s->epoch);
    fprintf(out, "  %8" PRId64 " %-7s %5s %-2s", s->number, dfs_step_mode_name((dfs_step_mode)s->mode), e,
            flag_text(s->flags));
    for (size_t c = 0; c < NTABLE; c++)
        fprintf(out, " %12s", ms_text(b, sizeof b, s->m[table_metrics[c]]));
    fprintf(out, " %8s\n", pct_text(b, sizeof b, share(s->m[DFS_SM_DATA_WAIT], s->m[DFS_SM_STEP_TIME])));
}

/* A sum in the unit that reads best (54.687 s, 412.020 ms), or "-" when the trace lacks it. */
static const char *sum_text(char *buf, size_t n, int64_t ns)
{
    if (ns == DFS_STEPS_NA)
        snprintf(buf, n, "-");
    else
        dfs_fmt_duration(buf, n, ns);
    return buf;
}

static void print_agg(FILE *out, const char *label, const dfs_steps_agg *a)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32];
    int64_t t = a->sum[DFS_SM_STEP_TIME];
    fprintf(out, "  %-28s %llu steps, step time %s, data wait %s (%s), exposed %s (%s)\n", label,
            (unsigned long long)a->steps, sum_text(b1, sizeof b1, t), sum_text(b2, sizeof b2, a->sum[DFS_SM_DATA_WAIT]),
            pct_text(b3, sizeof b3, share(a->sum[DFS_SM_DATA_WAIT], t)),
            sum_text(b4, sizeof b4, a->sum[DFS_SM_EXPOSED_WAIT]),
            pct_text(b5, sizeof b5, share(a->sum[DFS_SM_EXPOSED_WAIT], t)));
    fprintf(out, "  %-28s compute dev %s, compute host %s, transfer %s, io %s, io in wait %s\n", "",
            sum_text(b1, sizeof b1, a->sum[DFS_SM_COMPUTE_DEV]), sum_text(b2, sizeof b2, a->sum[DFS_SM_COMPUTE_HOST]),
            sum_text(b3, sizeof b3, a->sum[DFS_SM_TRANSFER]), sum_text(b4, sizeof b4, a->sum[DFS_SM_IO]),
            sum_text(b5, sizeof b5, a->sum[DFS_SM_IO_IN_WAIT]));
}

static void print_epochs(FILE *out, const dfs_steps_run *r)
{
    if (!r->nepochs)
        return;
    char b[6][32];
    fprintf(out, "\n  epochs (ms)\n  %6s %-7s %12s %5s %12s %12s %12s %12s %12s\n", "epoch", "mode", "window", "steps",
            "data_wait", "marked_wait", "comp_host", "io_in_wait", "tail");
    for (size_t i = 0; i < r->nepochs; i++) {
        const dfs_steps_epoch *e = &r->epochs[i];
        fprintf(out, "  %6" PRId64 " %-7s %12s %5llu %12s %12s %12s %12s %12s\n", e->epoch, dfs_step_mode_name(e->mode),
                ms_text(b[0], 32, e->end - e->start), (unsigned long long)e->steps,
                ms_text(b[1], 32, r->available[DFS_SM_DATA_WAIT] ? e->data_wait : DFS_STEPS_NA),
                ms_text(b[2], 32, r->available[DFS_SM_DATA_WAIT] ? e->marked_wait : DFS_STEPS_NA),
                ms_text(b[3], 32, r->available[DFS_SM_COMPUTE_HOST] ? e->compute_host : DFS_STEPS_NA),
                ms_text(b[4], 32, r->available[DFS_SM_IO_IN_WAIT] ? e->io_in_wait : DFS_STEPS_NA),
                ms_text(b[5], 32, e->tail));
    }
}

static void print_tb(FILE *out, const dfs_tb_result *tb)
{
    if (!tb)
        return;
    fprintf(out, "\n  TensorBoard plugin step breakdown (us; %s%s)\n  %8s %9s",
            tb->device_shifted ? "steps moved to the device side" : "host steps",
            tb->synthetic_step ? "; no ProfilerStep: one step over the host events" : "", "step", "Total");
    for (int r = 0; r < DFS_TB_ROLE_COUNT; r++)
        if (tb->shown[r])
            fprintf(out, " %13s", dfs_tb_role_name((dfs_tb_role)r));
    fputc('\n', out);
    for (size_t i = 0; i < tb->nsteps; i++) {
        fprintf(out, "  %8" PRId64 " %9.0f", tb->steps[i].number, (double)tb->steps[i].total / 1000);
        for (int r = 0; r < DFS_TB_ROLE_COUNT; r++)
            if (tb->shown[r])
                fprintf(out, " %13.0f", (double)tb->steps[i].cost[r] / 1000);
        fputc('\n', out);
    }
    fprintf(out, "  %8s %9.0f", "average", tb->avg_total);
    for (int r = 0; r < DFS_TB_ROLE_COUNT; r++)
        if (tb->shown[r]) {
            char cell[40];
            snprintf(cell, sizeof cell, "%.0f (%.2f%%)", tb->avg[r], tb->pct[r]);
            fprintf(out, " %13s", cell);
        }
    if (tb->device_events)
        fprintf(out, "\n  GPU utilization %.2f %%; %s removed by the tail rule\n", tb->gpu_utilization,
                tb->tail_removed ? "steps" : "no step");
    else if (tb->range_events) /* range measurements: device events, but their times are placeholders */
        fprintf(out, "\n  GPU utilization n/a: the run's %" PRIu64 " device events are CUPTI range-profiler "
                     "measurements (counters, no kernel timing); %s removed by the tail rule\n",
                tb->range_events, tb->tail_removed ? "steps" : "no step");
    else /* 0 % would read as an idle GPU */
        fprintf(out, "\n  GPU utilization n/a: no device event (kernel, memory copy, memset) was recognised in this "
                     "run; %s removed by the tail rule\n",
                tb->tail_removed ? "steps" : "no step");
    if (tb->input_hint)
        fprintf(out, "  plugin: \"This run has high time cost on input data loading. %.1f%% of the step time is in "
                     "DataLoader.\"\n",
                tb->pct[DFS_TB_DATALOADER]);
    if (tb->comm_hint)
        fprintf(out, "  plugin: communication takes more than 10 %% of the step time\n");
}

static void print_verdicts(FILE *out, const dfs_run *run, const dfs_steps_run *r)
{
    fprintf(out, "\n  verdicts\n");
    for (int v = 0; v < DFS_V_COUNT; v++) {
        const dfs_steps_verdict *d = &r->verdicts[v];
        fprintf(out, "  %-21s %-14s %s\n", dfs_verdict_name((dfs_verdict_id)v), dfs_verdict_state_name(d->state),
                d->evidence);
        for (size_t i = 0; i < d->nitems && i < 5; i++) {
            const dfs_verdict_item *it = &d->items[i];
            char t[40], dur[40];
            dfs_fmt_duration(dur, sizeof dur, (int64_t)llround(it->value)); /* ns, in the unit that fits */
            if (it->name) {
                size_t n;
                const char *s = dfs_str_get(run, it->name, &n);
                fprintf(out, "  %24s ", "");
                dfs_term_pad(out, s, n, 20);
                fprintf(out, " %8llu calls %14s in waits\n", (unsigned long long)it->count, dur);
            } else if (it->step >= 0) {
                fprintf(out, "  %24s step %-8" PRId64 " %14s  from %s\n", "", it->step, dur,
                        dfs_fmt_time(t, sizeof t, it->start));
            } else {
                fprintf(out, "  %24s %14s  from %s\n", "", dur, dfs_fmt_time(t, sizeof t, it->start));
            }
        }
        if (d->nitems > 5)
            fprintf(out, "  %24s ... %zu more\n", "", d->nitems - 5);
    }
}

static void print_list(FILE *out, const char *title, const char *const *items, size_t n)
{
    if (n)
        fprintf(out, "\n  %s\n", title);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  - %s\n", items[i]);
}

static void print_counts(FILE *out, const dfs_steps_counts *c)
{
    fprintf(out,
            "\n  robustness: %llu orphan E, %llu unterminated B, %llu negative durations, %llu unpaired step "
            "starts, %llu unpaired step ends, %llu overlapping waits, %llu negative batch gaps\n",
            (unsigned long long)c->orphan_end, (unsigned long long)c->unterminated, (unsigned long long)c->negative,
            (unsigned long long)c->unpaired_start, (unsigned long long)c->unpaired_end,
            (unsigned long long)c->overlapping_waits, (unsigned long long)c->negative_gaps);
}

static void print_run(FILE *out, const dfs_run *run, const dfs_steps_run *r, size_t head)
{
    fputs("run ", out);
    dfs_term_puts(out, r->name); /* a path */
    fprintf(out, "\n  source %s, steps by %s", dfs_concept_source_name(r->source),
            dfs_step_strategy_name(r->strategy));
    if (r->rank >= 0)
        fprintf(out, ", rank %" PRId64, r->rank);
    if (r->strategy != DFS_STRAT_NONE)
        fprintf(out, ", loop lane pid %" PRId64 " tid %" PRId64, r->loop_pid, r->loop_tid);
    fprintf(out, "; %zu steps (W warm-up, L last: left out of the verdicts)\n\n", r->nsteps);
    if (r->nsteps) {
        fprintf(out, "  times in ms\n");
        print_step_header(out);
        size_t shown = head && head < r->nsteps ? head : r->nsteps;
        for (size_t i = 0; i < shown; i++)
            print_step(out, &r->steps[i]);
        if (shown < r->nsteps)
            fprintf(out, "  ... %zu more steps (--head 0 shows all)\n", r->nsteps - shown);
        fputc('\n', out);
        print_agg(out, "all steps", &r->all);
        print_agg(out, r->counted_is_all ? "counted (every step)" : "counted (W and L excluded)", &r->counted);
        for (size_t m = 0; r->nmodes > 1 && m < r->nmodes; m++)
            print_agg(out, dfs_step_mode_name(r->modes[m].mode), &r->modes[m].all);
    }
    print_epochs(out, r);
    print_tb(out, r->tensorboard);
    print_verdicts(out, run, r);
    print_list(out, "remedies", r->remedies, r->nremedies);
    print_list(out, "notes", r->notes, r->nnotes);
    print_counts(out, &r->counts);
}

/* ---- the job first: its verdict, then the runs slowest first ---------------------------------- */

/* The steps a run's verdicts use, or all of them when none is counted. */
static const dfs_steps_agg *run_agg(const dfs_steps_run *r)
{
    return r->counted.steps ? &r->counted : &r->all;
}

static int64_t mean_step(const dfs_steps_run *r)
{
    const dfs_steps_agg *a = run_agg(r);
    return a->steps ? a->sum[DFS_SM_STEP_TIME] / (int64_t)a->steps : 0;
}

/* order[] = the runs by mean step, slowest first, in run order among equals (a stable insertion
 * sort: runs are ranks or files, a few thousand at most). */
static void sort_slowest_first(const dfs_steps_run *runs, size_t *order, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 && mean_step(&runs[order[j - 1]]) < mean_step(&runs[i])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
}

/* What each verdict says when it is yes, for a reader without docs/STEPS.md. */
static const char *verdict_meaning(dfs_verdict_id v)
{
    static const char *const m[DFS_V_COUNT] = {
        [DFS_V_INPUT_BOUND] = "exposed data wait above the threshold",
        [DFS_V_COMPOSER] = "Composer's rule: the mean wait is over 1 % of the batch time and 1 ms",
        [DFS_V_SLOW_FETCHES] = "some data waits are at least twice the median (and 1 ms)",
        [DFS_V_SLOW_BATCHES] = "some batches take at least twice the median batch time",
        [DFS_V_STEP_OUTLIERS] = "steps above the mean + 3 standard deviations",
        [DFS_V_STORAGE_BOUND] = "I/O calls take most of the data wait",
    };
    return (unsigned)v < DFS_V_COUNT && m[v] ? m[v] : "";
}

/* The job's verdict: exposed data wait over the counted steps of every run. */
static void print_job_verdict(FILE *out, const dfs_steps_result *r, const dfs_steps_report_opts *o)
{
    int64_t step = 0, exposed = 0;
    bool any_wait = false;
    for (size_t i = 0; i < r->nruns; i++) {
        const dfs_steps_agg *a = run_agg(&r->runs[i]);
        if (a->sum[DFS_SM_EXPOSED_WAIT] == DFS_STEPS_NA)
            continue;
        any_wait = true;
        step += a->sum[DFS_SM_STEP_TIME];
        exposed += a->sum[DFS_SM_EXPOSED_WAIT];
    }
    double limit = o->opt ? o->opt->wait_threshold : 0.05;
    if (!r->total.steps || !any_wait || step <= 0) {
        fprintf(out, "verdict: not evaluated: %s\n",
                !r->total.steps ? "no training step found"
                : !any_wait     ? "no data-wait concept in these traces (--data-wait names it)"
                                : "the steps take no time");
        return;
    }
    double s = (double)exposed / (double)step;
    fprintf(out, "verdict: %s: data wait not hidden by compute is %.1f %% of the step time (threshold %.0f %%)\n",
            s > limit ? "INPUT-BOUND" : "not input-bound", 100 * s, 100 * limit);
    for (int v = 0; v < DFS_V_COUNT; v++) {
        size_t yes = 0;
        for (size_t i = 0; i < r->nruns; i++)
            yes += r->runs[i].verdicts[v].state == DFS_VERDICT_YES;
        if (yes)
            fprintf(out, "         %s on %zu of %zu run%s: %s\n", dfs_verdict_name((dfs_verdict_id)v), yes, r->nruns,
                    r->nruns == 1 ? "" : "s", verdict_meaning((dfs_verdict_id)v));
    }
}

static void print_job_head(FILE *out, const dfs_steps_result *r, const dfs_steps_report_opts *o)
{
    char total[32], mean[32];
    int64_t sum = r->total.sum[DFS_SM_STEP_TIME];
    fprintf(out, "job: %zu run%s, %" PRIu64 " steps, step time %s%s", r->nruns, r->nruns == 1 ? "" : "s",
            r->total.steps, dfs_fmt_duration(total, sizeof total, sum > 0 ? sum : 0),
            r->nruns == 1 ? "" : " summed over the runs");
    if (r->total.steps)
        fprintf(out, " (mean step %s)", dfs_fmt_duration(mean, sizeof mean, sum / (int64_t)r->total.steps));
    fputc('\n', out);
    print_job_verdict(out, r, o);
}

/* One line per run, slowest mean step first: a straggler leads (in run order when there is no
 * memory to sort them). */
static void print_runs_table(FILE *out, const dfs_steps_result *r)
{
    size_t *order = malloc(r->nruns * sizeof *order);
    if (order)
        sort_slowest_first(r->runs, order, r->nruns);
    int width = 3; /* the longest run name, up to 64 columns */
    for (size_t i = 0; i < r->nruns; i++) {
        size_t n = strlen(r->runs[i].name);
        width = n > 64 ? 64 : (int)n > width ? (int)n : width;
    }
    fprintf(out, "\nruns, slowest first (mean step time over the counted steps: warm-up and last left out)\n");
    fprintf(out, "  %-*s %6s %6s %12s %14s  %s\n", width, "run", "rank", "steps", "mean step", "exposed wait",
            "verdicts (yes)");
    for (size_t k = 0; k < r->nruns; k++) {
        const dfs_steps_run *run = &r->runs[order ? order[k] : k];
        const dfs_steps_agg *a = run_agg(run);
        char rank[24] = "-", mean[32], wait[32];
        if (run->rank >= 0)
            snprintf(rank, sizeof rank, "%" PRId64, run->rank);
        fputs("  ", out);
        dfs_term_pad(out, run->name, strlen(run->name), (size_t)width);
        if (!a->steps)
            snprintf(mean, sizeof mean, "-");
        else
            dfs_fmt_duration(mean, sizeof mean, mean_step(run));
        fprintf(out, " %6s %6zu %12s %14s ", rank, run->nsteps, mean,
                pct_text(wait, sizeof wait, share(a->sum[DFS_SM_EXPOSED_WAIT], a->sum[DFS_SM_STEP_TIME])));
        const char *sep = " ";
        for (int v = 0; v < DFS_V_COUNT; v++)
            if (run->verdicts[v].state == DFS_VERDICT_YES) {
                fprintf(out, "%s%s", sep, dfs_verdict_name((dfs_verdict_id)v));
                sep = ", ";
            }
        fputs(*sep == ' ' ? " -\n" : "\n", out);
    }
    const dfs_steps_run *slow = &r->runs[order ? order[0] : 0], *fast = &r->runs[order ? order[r->nruns - 1] : 0];
    if (mean_step(fast) > 0) {
        char a[32], b[32];
        fprintf(out, "  mean step from %s to %s: the slowest run is %.1f %% slower than the fastest\n",
                dfs_fmt_duration(a, sizeof a, mean_step(fast)), dfs_fmt_duration(b, sizeof b, mean_step(slow)),
                100.0 * (double)(mean_step(slow) - mean_step(fast)) / (double)mean_step(fast));
    }
    if (slow->nremedies) {
        fputs("\nremedies (the slowest run, ", out);
        dfs_term_puts(out, slow->name);
        fputs(")\n", out);
        for (size_t i = 0; i < slow->nremedies; i++)
            fprintf(out, "  - %s\n", slow->remedies[i]);
    }
    free(order);
    fprintf(out, "\neach run's steps, epochs, verdicts with their evidence, and notes: --details\n");
}

void dfs_steps_write_text(FILE *out, const dfs_run *run, const dfs_steps_result *r, const dfs_steps_report_opts *o)
{
    if (r->nruns == 0) {
        fprintf(out, "no runs: no trace file among the inputs\n");
        return;
    }
    print_job_head(out, r, o);
    if (r->nruns > 1 && !o->details && !r->total.steps) {
        fprintf(out, "\nno run has a step; why, for each run: --details\n");
        return;
    }
    if (r->nruns > 1 && !o->details) {
        print_runs_table(out, r);
        return;
    }
    for (size_t i = 0; i < r->nruns; i++) {
        fputc('\n', out);
        print_run(out, run, &r->runs[i], o->head);
    }
    if (r->nruns < 2)
        return;
    fprintf(out, "\nall %zu runs\n", r->nruns);
    print_agg(out, "every step of every run", &r->total);
    if (r->epoch_window) {
        char b1[32], b2[32], b3[32];
        fprintf(out, "  %-28s windows %s, tails %s, marked waits %s\n", "epochs",
                sum_text(b1, sizeof b1, r->epoch_window), sum_text(b2, sizeof b2, r->epoch_tail),
                sum_text(b3, sizeof b3, r->marked_wait));
    }
}

/* ---- JSON ----------------------------------------------------------------------------------- */

static void jw_ns(dfs_jw *w, const char *key, int64_t ns)
{
    if (ns == DFS_STEPS_NA)
        dfs_jw_null(w, key);
    else
        dfs_jw_int(w, key, ns);
}

static void jw_metric_key(char *buf, size_t n, dfs_step_metric m) { snprintf(buf, n, "%s_ns", dfs_step_metric_name(m)); }

static void json_agg(dfs_jw *w, const char *key, const dfs_steps_agg *a)
{
    char k[48];
    dfs_jw_object(w, key);
    dfs_jw_uint(w, "steps", a->steps);
    dfs_jw_uint(w, "waits", a->waits);
    for (int m = 0; m < DFS_SM_COUNT; m++) {
        jw_metric_key(k, sizeof k, (dfs_step_metric)m);
        jw_ns(w, k, a->sum[m]);
    }
    dfs_jw_double(w, "median_step_time_ns", a->median_step_time);
    dfs_jw_double(w, "median_data_wait_ns", a->median_data_wait);
    dfs_jw_object(w, "shares");
    for (int m = 1; m < DFS_SM_COUNT; m++)
        dfs_jw_double(w, dfs_step_metric_name((dfs_step_metric)m), share(a->sum[m], a->sum[DFS_SM_STEP_TIME]));
    dfs_jw_end(w);
    dfs_jw_end(w);
}

static void json_step(dfs_jw *w, const dfs_step *s)
{
    char k[48];
    dfs_jw_object(w, NULL);
    dfs_jw_int(w, "step", s->number);
    dfs_jw_cstr(w, "mode", dfs_step_mode_name((dfs_step_mode)s->mode));
    if (s->epoch >= 0)
        dfs_jw_int(w, "epoch", s->epoch);
    else
        dfs_jw_null(w, "epoch");
    dfs_jw_bool(w, "warmup", s->flags & DFS_STEP_WARMUP);
    dfs_jw_bool(w, "last", s->flags & DFS_STEP_LAST);
    dfs_jw_bool(w, "has_wait", s->has_wait);
    dfs_jw_int(w, "start_ns", s->start);
    dfs_jw_int(w, "end_ns", s->end);
    for (int m = 0; m < DFS_SM_COUNT; m++) {
        jw_metric_key(k, sizeof k, (dfs_step_metric)m);
        jw_ns(w, k, s->m[m]);
    }
    dfs_jw_end(w);
}

static void json_item(dfs_jw *w, const dfs_run *run, const dfs_verdict_item *it)
{
    dfs_jw_object(w, NULL);
    if (it->name) {
        size_t n;
        const char *s = dfs_str_get(run, it->name, &n);
        dfs_jw_str(w, "name", s, n);
        dfs_jw_uint(w, "calls", it->count);
        dfs_jw_double(w, "in_wait_ns", it->value);
    } else {
        if (it->step >= 0)
            dfs_jw_int(w, "step", it->step);
        dfs_jw_int(w, "start_ns", it->start);
        dfs_jw_int(w, "end_ns", it->end);
        dfs_jw_double(w, "value_ns", it->value);
    }
    dfs_jw_end(w);
}

static void json_verdicts(dfs_jw *w, const dfs_run *run, const dfs_steps_run *r)
{
    dfs_jw_object(w, "verdicts");
    for (int v = 0; v < DFS_V_COUNT; v++) {
        const dfs_steps_verdict *d = &r->verdicts[v];
        dfs_jw_object(w, dfs_verdict_name((dfs_verdict_id)v));
        dfs_jw_cstr(w, "state", dfs_verdict_state_name(d->state));
        if (d->state == DFS_VERDICT_UNAVAILABLE) {
            dfs_jw_null(w, "value");
        } else {
            dfs_jw_double(w, "value", d->value);
            dfs_jw_double(w, "threshold", d->threshold);
            dfs_jw_double(w, "reference", d->reference);
            dfs_jw_uint(w, "datapoints", d->datapoints);
        }
        dfs_jw_cstr(w, "evidence", d->evidence);
        dfs_jw_array(w, "items");
        for (size_t i = 0; i < d->nitems; i++)
            json_item(w, run, &d->items[i]);
        dfs_jw_end(w);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_strings(dfs_jw *w, const char *key, const char *const *s, size_t n)
{
    dfs_jw_array(w, key);
    for (size_t i = 0; i < n; i++)
        dfs_jw_cstr(w, NULL, s[i]);
    dfs_jw_end(w);
}

static void json_counts(dfs_jw *w, const dfs_steps_counts *c)
{
    dfs_jw_object(w, "robustness");
    dfs_jw_uint(w, "orphan_end", c->orphan_end);
    dfs_jw_uint(w, "unterminated_begin", c->unterminated);
    dfs_jw_uint(w, "negative_durations", c->negative);
    dfs_jw_uint(w, "unpaired_step_starts", c->unpaired_start);
    dfs_jw_uint(w, "unpaired_step_ends", c->unpaired_end);
    dfs_jw_uint(w, "overlapping_waits", c->overlapping_waits);
    dfs_jw_uint(w, "negative_batch_gaps", c->negative_gaps);
    dfs_jw_uint(w, "step_markers_off_loop_lane", c->other_lanes);
    dfs_jw_uint(w, "pageable_h2d_copies", c->pageable_h2d);
    dfs_jw_uint(w, "pinned_h2d_copies", c->pinned_h2d);
    dfs_jw_bool(w, "single_process_loader", c->single_process_loader);
    dfs_jw_end(w);
}

static void json_epochs(dfs_jw *w, const dfs_steps_run *r)
{
    dfs_jw_array(w, "epochs");
    for (size_t i = 0; i < r->nepochs; i++) {
        const dfs_steps_epoch *e = &r->epochs[i];
        bool d = r->available[DFS_SM_DATA_WAIT];
        dfs_jw_object(w, NULL);
        dfs_jw_int(w, "epoch", e->epoch);
        dfs_jw_cstr(w, "mode", dfs_step_mode_name(e->mode));
        dfs_jw_int(w, "start_ns", e->start);
        dfs_jw_int(w, "end_ns", e->end);
        dfs_jw_int(w, "window_ns", e->end - e->start);
        dfs_jw_uint(w, "steps", e->steps);
        dfs_jw_int(w, "step_time_ns", e->step_time);
        jw_ns(w, "data_wait_ns", d ? e->data_wait : DFS_STEPS_NA);
        jw_ns(w, "marked_wait_ns", d ? e->marked_wait : DFS_STEPS_NA);
        jw_ns(w, "compute_host_ns", r->available[DFS_SM_COMPUTE_HOST] ? e->compute_host : DFS_STEPS_NA);
        jw_ns(w, "io_in_wait_ns", r->available[DFS_SM_IO_IN_WAIT] ? e->io_in_wait : DFS_STEPS_NA);
        dfs_jw_int(w, "lead_ns", e->lead);
        dfs_jw_int(w, "tail_ns", e->tail);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_tb(dfs_jw *w, const dfs_tb_result *tb)
{
    if (!tb) {
        dfs_jw_null(w, "tensorboard");
        return;
    }
    dfs_jw_object(w, "tensorboard");
    dfs_jw_bool(w, "device_shifted", tb->device_shifted);
    dfs_jw_uint(w, "tail_removed", tb->tail_removed);
    dfs_jw_bool(w, "synthetic_step", tb->synthetic_step);
    dfs_jw_array(w, "columns");
    for (int r = 0; r < DFS_TB_ROLE_COUNT; r++)
        if (tb->shown[r])
            dfs_jw_cstr(w, NULL, dfs_tb_role_name((dfs_tb_role)r));
    dfs_jw_end(w);
    dfs_jw_array(w, "steps");
    for (size_t i = 0; i < tb->nsteps; i++) {
        const dfs_tb_step *s = &tb->steps[i];
        dfs_jw_object(w, NULL);
        dfs_jw_int(w, "step", s->number);
        dfs_jw_int(w, "start_ns", s->start);
        dfs_jw_int(w, "end_ns", s->end);
        dfs_jw_int(w, "total_ns", s->total);
        for (int r = 0; r < DFS_TB_ROLE_COUNT; r++)
            dfs_jw_int(w, dfs_tb_role_name((dfs_tb_role)r), s->cost[r]);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_object(w, "average_us");
    dfs_jw_double(w, "Total", tb->avg_total);
    for (int r = 0; r < DFS_TB_ROLE_COUNT; r++)
        dfs_jw_double(w, dfs_tb_role_name((dfs_tb_role)r), tb->avg[r]);
    dfs_jw_end(w);
    dfs_jw_object(w, "percent");
    for (int r = 0; r < DFS_TB_ROLE_COUNT; r++)
        dfs_jw_double(w, dfs_tb_role_name((dfs_tb_role)r), tb->pct[r]);
    dfs_jw_end(w);
    dfs_jw_double(w, "gpu_utilization_percent", tb->gpu_utilization);
    dfs_jw_uint(w, "device_events", tb->device_events); /* 0: the utilization above means none was recognised */
    if (tb->range_events) /* only in range-profiler runs: every other run's JSON stays as it was */
        dfs_jw_uint(w, "device_range_events", tb->range_events);
    dfs_jw_bool(w, "input_data_loading_hint", tb->input_hint);
    dfs_jw_bool(w, "communication_hint", tb->comm_hint);
    dfs_jw_end(w);
}

static void json_run(dfs_jw *w, const dfs_run *run, const dfs_steps_run *r)
{
    dfs_jw_object(w, NULL);
    dfs_jw_cstr(w, "name", r->name);
    if (r->rank >= 0)
        dfs_jw_int(w, "rank", r->rank);
    else
        dfs_jw_null(w, "rank");
    dfs_jw_cstr(w, "source", dfs_concept_source_name(r->source));
    dfs_jw_cstr(w, "strategy", dfs_step_strategy_name(r->strategy));
    if (r->strategy == DFS_STRAT_NONE) {
        dfs_jw_null(w, "loop_lane");
    } else {
        dfs_jw_object(w, "loop_lane");
        dfs_jw_int(w, "pid", r->loop_pid);
        dfs_jw_int(w, "tid", r->loop_tid);
        dfs_jw_end(w);
    }
    dfs_jw_uint(w, "steps", r->nsteps);
    dfs_jw_uint(w, "counted_steps", r->counted.steps);
    dfs_jw_double(w, "step_time_s", r->counted.steps ? (double)r->counted.sum[DFS_SM_STEP_TIME] / (double)r->counted.steps / 1e9 : NAN);
    dfs_jw_double(w, "data_wait_fraction", r->data_wait_fraction);
    dfs_jw_double(w, "exposed_data_wait_fraction",
                  share(r->counted.sum[DFS_SM_EXPOSED_WAIT], r->counted.sum[DFS_SM_STEP_TIME]));
    dfs_jw_bool(w, "input_bound", r->input_bound);
    dfs_jw_bool(w, "counted_is_all", r->counted_is_all);
    dfs_jw_object(w, "available");
    for (int m = 0; m < DFS_SM_COUNT; m++)
        dfs_jw_bool(w, dfs_step_metric_name((dfs_step_metric)m), r->available[m]);
    dfs_jw_end(w);
    json_agg(w, "all", &r->all);
    json_agg(w, "counted", &r->counted);
    dfs_jw_array(w, "modes");
    for (size_t i = 0; i < r->nmodes; i++) {
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "mode", dfs_step_mode_name(r->modes[i].mode));
        json_agg(w, "all", &r->modes[i].all);
        json_agg(w, "counted", &r->modes[i].counted);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    json_epochs(w, r);
    dfs_jw_array(w, "per_step");
    for (size_t i = 0; i < r->nsteps; i++)
        json_step(w, &r->steps[i]);
    dfs_jw_end(w);
    json_verdicts(w, run, r);
    json_strings(w, "remedies", r->remedies, r->nremedies);
    json_strings(w, "notes", r->notes, r->nnotes);
    json_counts(w, &r->counts);
    json_tb(w, r->tensorboard);
    dfs_jw_end(w);
}

static void json_options(dfs_jw *w, const dfs_steps_report_opts *o)
{
    dfs_jw_object(w, "options");
    if (o->opt) {
        dfs_jw_bool(w, "include_flagged", o->opt->include_flagged);
        dfs_jw_double(w, "wait_threshold", o->opt->wait_threshold);
        dfs_jw_double(w, "outlier_factor", o->opt->outlier_factor);
        dfs_jw_double(w, "storage_threshold", o->opt->storage_threshold);
    }
    dfs_jw_end(w);
}

void dfs_steps_write_json(FILE *out, const dfs_run *run, const dfs_steps_result *r, const dfs_steps_report_opts *o)
{
    dfs_jw w;
    dfs_jw_init(&w, out, true);
    dfs_jw_object(&w, NULL);
    dfs_jw_cstr(&w, "schema", "dfscope-steps/1");
    dfs_jw_cstr(&w, "dfscope_version", DFS_VERSION_STRING);
    json_options(&w, o);
    dfs_jw_array(&w, "runs");
    for (size_t i = 0; i < r->nruns; i++)
        json_run(&w, run, &r->runs[i]);
    dfs_jw_end(&w);
    dfs_jw_object(&w, "totals");
    dfs_jw_uint(&w, "runs", r->nruns);
    dfs_jw_bool(&w, "any_input_bound", r->any_input_bound);
    json_agg(&w, "steps", &r->total);
    dfs_jw_int(&w, "epoch_window_ns", r->epoch_window);
    dfs_jw_int(&w, "epoch_tail_ns", r->epoch_tail);
    dfs_jw_int(&w, "marked_wait_ns", r->marked_wait);
    dfs_jw_end(&w);
    dfs_jw_end(&w);
    fputc('\n', out);
}

/* ---- CSV ------------------------------------------------------------------------------------ */

void dfs_steps_write_csv(FILE *out, const dfs_steps_result *r)
{
    fputs("run,rank,source,step,mode,epoch,warmup,last,start_ns,end_ns", out);
    for (int m = 0; m < DFS_SM_COUNT; m++)
        fprintf(out, ",%s_ns", dfs_step_metric_name((dfs_step_metric)m));
    fputc('\n', out);
    for (size_t i = 0; i < r->nruns; i++) {
        const dfs_steps_run *run = &r->runs[i];
        for (size_t k = 0; k < run->nsteps; k++) {
            const dfs_step *s = &run->steps[k];
            dfs_csv_text(out, run->name);
            fputc(',', out);
            if (run->rank >= 0)
                fprintf(out, "%" PRId64, run->rank);
            fprintf(out, ",%s,%" PRId64 ",%s,", dfs_concept_source_name(run->source), s->number,
                    dfs_step_mode_name((dfs_step_mode)s->mode));
            if (s->epoch >= 0)
                fprintf(out, "%" PRId64, s->epoch);
            fprintf(out, ",%d,%d,%" PRId64 ",%" PRId64, (s->flags & DFS_STEP_WARMUP) != 0,
                    (s->flags & DFS_STEP_LAST) != 0, s->start, s->end);
            for (int m = 0; m < DFS_SM_COUNT; m++) {
                fputc(',', out);
                if (s->m[m] != DFS_STEPS_NA)
                    fprintf(out, "%" PRId64, s->m[m]);
            }
            fputc('\n', out);
        }
    }
}

/* ---- the concepts -------------------------------------------------------------------------- */

void dfs_steps_write_concepts(FILE *out, const dfs_concepts *c)
{
    for (int s = 0; s < DFS_CSRC_COUNT; s++) {
        bool any = false; /* generic shows only when the user gave it predicates */
        for (int k = 0; k < DFS_CONCEPT_COUNT; k++)
            any |= dfs_concepts_text(c, (dfs_concept_source)s, (dfs_concept)k) != NULL;
        if (!any)
            continue;
        fprintf(out, "%s\n", dfs_concept_source_name((dfs_concept_source)s));
        for (int k = 0; k < DFS_CONCEPT_COUNT; k++) {
            const char *t = dfs_concepts_text(c, (dfs_concept_source)s, (dfs_concept)k);
            fprintf(out, "  %-13s %s\n", dfs_concept_name((dfs_concept)k), t ? t : "(unavailable)");
        }
    }
}
