/* detail.c - the report page's detail (detail.h) from the report's analyses of one read: the
 * breakdown per rank (overlap's processes, the steps' runs or the DASF workers), the time series
 * (the layered analysis's time view, when the page asked for its rows), the steps of the run that
 * holds the slowest step, the I/O by size bin, call and file, the DASF functions and workers, and
 * the problems of the input.
 *
 * Invariants: nothing here grows with the events beyond temporaries (detail.h's bounds); a series
 * longer than its bound is merged into wider bins, never cut; a list keeps its largest entries,
 * ties by name, so the page does not depend on -j. */
#include "report/detail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu.h"
#include "report/report.h"
#include "report/report_internal.h"

/* ---- per rank ---- */

static int cmp_rank(const void *a, const void *b)
{
    const dfs_detail_rank *x = a, *y = b;
    if (x->span_s != y->span_s)
        return x->span_s > y->span_s ? -1 : 1;
    return strcmp(x->label, y->label);
}

/* Keeps the longest spans: a straggler is drawn first. */
static void add_rank(dfs_report_detail *d, dfs_detail_rank *all, const dfs_detail_rank *r)
{
    all[d->ranks_total++] = *r;
}

static void keep_ranks(dfs_report_detail *d, dfs_detail_rank *all)
{
    qsort(all, d->ranks_total, sizeof *all, cmp_rank);
    d->nranks = d->ranks_total < DFS_DETAIL_RANKS ? d->ranks_total : DFS_DETAIL_RANKS;
    memcpy(d->ranks, all, d->nranks * sizeof *all);
}

static bool overlap_ranks(const dfs_report_results *r, const dfs_job_report *rep, dfs_report_detail *d)
{
    const dfs_overlap_result *ov = r->ov;
    dfs_detail_rank *all = calloc(ov->nprocesses, sizeof *all);
    if (!all)
        return false;
    for (size_t i = 0; i < ov->nprocesses; i++) {
        dfs_detail_rank x = {0};
        snprintf(x.label, sizeof x.label, "%s", ov->per_process[i].key);
        x.span_s = dfs_report_process_part(ov, &ov->per_process[i], "span");
        for (size_t k = 0; k < rep->nparts; k++)
            x.part_s[k] = dfs_report_process_part(ov, &ov->per_process[i], rep->parts[k].id);
        add_rank(d, all, &x);
    }
    keep_ranks(d, all);
    free(all);
    return true;
}

/* A part of the steps' breakdown as the sum of its metrics over a run's steps (s). */
static double run_part(const dfs_steps_run *run, const char *id)
{
    static const struct {
        const char *id;
        dfs_step_metric m[2];
    } map[] = {{"compute", {DFS_SM_EX_COMPUTE_DEV, DFS_SM_EX_COMPUTE_HOST}},
               {"data_wait_exposed", {DFS_SM_EX_DATA_WAIT, DFS_SM_COUNT}},
               {"io_exposed", {DFS_SM_EX_IO, DFS_SM_COUNT}},
               {"transfer", {DFS_SM_EX_TRANSFER, DFS_SM_COUNT}},
               {"runtime", {DFS_SM_EX_RUNTIME, DFS_SM_COUNT}},
               {"other", {DFS_SM_EX_OTHER, DFS_SM_COUNT}},
               {"span", {DFS_SM_STEP_TIME, DFS_SM_COUNT}}};
    double s = 0;
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        for (int k = 0; k < 2 && strcmp(map[i].id, id) == 0; k++) {
            dfs_step_metric m = map[i].m[k];
            if (m < DFS_SM_COUNT && run->available[m] && run->all.sum[m] != DFS_STEPS_NA)
                s += (double)run->all.sum[m] / 1e9;
        }
    return s;
}

static void run_label(char *buf, size_t n, const dfs_steps_run *run)
{
    if (run->rank >= 0)
        snprintf(buf, n, "rank %lld, %s", (long long)run->rank, run->name);
    else
        snprintf(buf, n, "%s", run->name);
}

static bool step_ranks(const dfs_steps_result *st, const dfs_job_report *rep, dfs_report_detail *d)
{
    dfs_detail_rank *all = calloc(st->nruns, sizeof *all);
    if (!all)
        return false;
    for (size_t i = 0; i < st->nruns; i++) {
        if (!st->runs[i].nsteps)
            continue;
        dfs_detail_rank x = {0};
        run_label(x.label, sizeof x.label, &st->runs[i]);
        x.span_s = run_part(&st->runs[i], "span");
        for (size_t k = 0; k < rep->nparts; k++)
            x.part_s[k] = run_part(&st->runs[i], rep->parts[k].id);
        add_rank(d, all, &x);
    }
    keep_ranks(d, all);
    free(all);
    return true;
}

/* ---- the time series ---- */

/* The column of a view named PREFIX_SUFFIX, or -1. */
static long column(const dfs_view_result *v, const char *prefix, const char *suffix)
{
    size_t lp = strlen(prefix), ls = strlen(suffix);
    for (size_t c = 0; c < v->ncolumns; c++) {
        const char *n = v->columns[c];
        if (strncmp(n, prefix, lp) == 0 && n[lp] == '_' && strcmp(n + lp + 1, suffix) == 0 && strlen(n) == lp + 1 + ls)
            return (long)c;
    }
    return -1;
}

static double cell(const dfs_view_result *v, size_t row, long col)
{
    double x = col >= 0 ? v->cells[row * v->ncolumns + (size_t)col] : NAN;
    return isfinite(x) ? x : 0;
}

static bool is_leaf(const dfs_layered_result *lay, size_t i)
{
    for (size_t k = 0; k < lay->nlayers; k++)
        if (lay->layers[k].parent == (int)i)
            return false;
    return true;
}

/* The leaf layers (the time the wrapping ones only repeat) most busy first. */
static void pick_layers(const dfs_layered_result *lay, const dfs_view_result *v, dfs_detail_time *t)
{
    bool taken[DFS_REPORT_MAX_LAYERS * 4] = {0};
    while (t->nlayers < DFS_DETAIL_SERIES) {
        long best = -1;
        for (size_t i = 0; i < lay->nlayers && i < sizeof taken; i++)
            if (!taken[i] && is_leaf(lay, i) && v->layers[i].count &&
                (best < 0 || v->layers[i].time_s > v->layers[best].time_s))
                best = (long)i;
        if (best < 0)
            return;
        taken[best] = true;
        t->layers[t->nlayers++].name = lay->layers[best].name;
    }
}

/* The first sized layer with events: what bandwidth and access sizes are of ("posix"). */
static const char *sized_layer(const dfs_layered_result *lay, const dfs_view_result *v)
{
    for (size_t i = 0; i < lay->nlayers; i++)
        if (lay->layers[i].size_layer && v->layers[i].count && v->layers[i].sized)
            return lay->layers[i].name;
    return NULL;
}

static void epoch_marks(const dfs_steps_result *st, int64_t origin, dfs_detail_time *t)
{
    if (!st || !st->nruns)
        return;
    const dfs_steps_run *run = &st->runs[0];
    for (size_t i = 0; i < run->nepochs && t->nmarks < DFS_DETAIL_MARKS; i++)
        if (run->epochs[i].mode == DFS_MODE_TRAIN)
            t->marks_s[t->nmarks++] = (double)(run->epochs[i].start - origin) / 1e9;
}

static void time_series(const dfs_layered_result *lay, const dfs_steps_result *st, dfs_detail_time *t)
{
    const dfs_view_result *v = lay && lay->nviews ? &lay->views[0] : NULL;
    if (!v || v->type != DFS_VIEW_TIME_RANGE || !v->nrows || !v->row_bins || !(lay->granularity_s > 0))
        return;
    int64_t last = 0;
    for (size_t r = 0; r < v->nrows; r++)
        last = v->row_bins[r] > last ? v->row_bins[r] : last;
    size_t span = (size_t)last + 1, per = (span + DFS_DETAIL_BINS - 1) / DFS_DETAIL_BINS;
    t->n = (span + per - 1) / per;
    t->bin_s = (double)per * lay->granularity_s;
    pick_layers(lay, v, t);
    t->io_layer = sized_layer(lay, v);
    long cols[DFS_DETAIL_SERIES];
    for (size_t k = 0; k < t->nlayers; k++)
        cols[k] = column(v, t->layers[k].name, "time_sum");
    long bytes = t->io_layer ? column(v, t->io_layer, "size_sum") : -1;
    long ops = t->io_layer ? column(v, t->io_layer, "count_sum") : -1;
    for (size_t r = 0; r < v->nrows; r++) {
        if (v->row_bins[r] < 0)
            continue;
        size_t b = (size_t)v->row_bins[r] / per;
        for (size_t k = 0; k < t->nlayers; k++)
            t->layers[k].busy[b] += cell(v, r, cols[k]) / t->bin_s;
        t->bytes_per_s[b] += cell(v, r, bytes) / t->bin_s;
        t->ops_per_s[b] += cell(v, r, ops) / t->bin_s;
    }
    epoch_marks(st, lay->origin_ns, t);
}

/* ---- the steps ---- */

static double step_wait(const dfs_steps_run *run, const dfs_step *s)
{
    dfs_step_metric m = run->available[DFS_SM_EXPOSED_WAIT] ? DFS_SM_EXPOSED_WAIT : DFS_SM_DATA_WAIT;
    return run->available[m] && s->m[m] != DFS_STEPS_NA ? (double)s->m[m] / 1e9 : 0;
}

/* The run holding the slowest of the steps the verdicts count (warm-up and last left out unless
 * a run has no other): the step the report's step-outliers insight names. */
static const dfs_steps_run *slowest_run(const dfs_steps_result *st, size_t *at)
{
    const dfs_steps_run *best = NULL;
    for (size_t i = 0; i < st->nruns; i++)
        for (size_t k = 0; k < st->runs[i].nsteps; k++) {
            const dfs_step *s = &st->runs[i].steps[k];
            if ((s->flags & (DFS_STEP_WARMUP | DFS_STEP_LAST)) && !st->runs[i].counted_is_all)
                continue;
            if (!best || s->m[DFS_SM_STEP_TIME] > best->steps[*at].m[DFS_SM_STEP_TIME])
                best = &st->runs[i], *at = k;
        }
    return best;
}

static void steps_of(const dfs_steps_result *st, dfs_detail_steps *s)
{
    size_t at = 0;
    const dfs_steps_run *run = st ? slowest_run(st, &at) : NULL;
    if (!run)
        return;
    run_label(s->run, sizeof s->run, run);
    s->total = run->nsteps;
    s->per_bin = (run->nsteps + DFS_DETAIL_STEPS - 1) / DFS_DETAIL_STEPS;
    s->n = (run->nsteps + s->per_bin - 1) / s->per_bin;
    s->median_s = isfinite(run->all.median_step_time) ? run->all.median_step_time / 1e9 : NAN;
    s->have_wait = run->available[DFS_SM_EXPOSED_WAIT] || run->available[DFS_SM_DATA_WAIT];
    s->slowest = run->steps[at].number;
    s->slowest_s = (double)run->steps[at].m[DFS_SM_STEP_TIME] / 1e9;
    for (size_t k = 0; k < run->nsteps; k++) {
        const dfs_step *x = &run->steps[k];
        s->past_warmup |= !run->counted_is_all && x->m[DFS_SM_STEP_TIME] > run->steps[at].m[DFS_SM_STEP_TIME];
        dfs_detail_step *b = &s->v[k / s->per_bin];
        double t = (double)x->m[DFS_SM_STEP_TIME] / 1e9;
        if (k % s->per_bin == 0)
            b->first = x->number;
        b->last = x->number;
        if (k % s->per_bin == 0 || t > b->step_s)
            b->step_s = t, b->wait_s = step_wait(run, x);
        b->outlier |= isfinite(s->median_s) && s->median_s > 0 && t >= 2 * s->median_s;
        b->epoch_start |= k > 0 && x->epoch != run->steps[k - 1].epoch;
    }
}

/* ---- I/O ---- */

static void io_calls(const dfs_iocalls_result *io, dfs_detail_io *o)
{
    o->calls_total = io->ncalls;
    for (size_t i = 0; i < io->ncalls; i++) {
        const dfs_iocall *c = &io->calls[i];
        double s = (double)c->dur_ns / 1e9;
        if (o->ncalls < DFS_DETAIL_TOP)
            o->calls[o->ncalls++] = (dfs_detail_named){c->name, c->count, c->bytes, s};
        bool data = dfs_iocall_is_data(c->name);
        bool write = data && strstr(c->name, "write") != NULL;
        if (data && !write)
            o->read_s += s, o->read_bytes += c->bytes;
        else if (write)
            o->write_s += s, o->write_bytes += c->bytes;
        else if (dfs_iocall_is_metadata(c->name))
            o->metadata_s += s;
        else
            o->other_s += s;
    }
}

/* The access sizes: the size-bin columns of the sized layer, summed over the time bins. */
static void io_sizes(const dfs_view_result *v, const char *layer, dfs_detail_io *o)
{
    char prefix[160];
    int lp = snprintf(prefix, sizeof prefix, "%s_size_bin_", layer);
    for (size_t c = 0; c < v->ncolumns && o->nsizes < DFS_DETAIL_SIZES; c++) {
        const char *n = v->columns[c];
        size_t len = strlen(n);
        if (lp <= 0 || strncmp(n, prefix, (size_t)lp) != 0 || len < (size_t)lp + 4 || strcmp(n + len - 4, "_sum"))
            continue;
        snprintf(o->size_label[o->nsizes], sizeof o->size_label[0], "%.*s", (int)(len - (size_t)lp - 4), n + lp);
        for (size_t r = 0; r < v->nrows; r++)
            o->size_count[o->nsizes] += (uint64_t)llround(cell(v, r, (long)c));
        o->nsizes++;
    }
    o->size_layer = o->nsizes ? layer : NULL;
}

static void io_files(const dfs_iocalls_result *io, dfs_detail_io *o)
{
    o->files_total = io->files;
    o->nfiles = io->ntop < DFS_DETAIL_TOP ? io->ntop : DFS_DETAIL_TOP;
    for (size_t i = 0; i < o->nfiles; i++) {
        const dfs_iocall_file *t = &io->top_by_time[i], *b = &io->top_by_bytes[i];
        o->files_by_time[i] = (dfs_detail_named){t->name, 0, t->bytes, (double)t->dur_ns / 1e9};
        o->files_by_bytes[i] = (dfs_detail_named){b->name, 0, b->bytes, (double)b->dur_ns / 1e9};
    }
}

static bool io_of(const dfs_report_results *r, dfs_report_detail *d)
{
    dfs_detail_io *o = &d->io;
    if (r->io && r->io->total.count) {
        io_calls(r->io, o);
        io_files(r->io, o);
        d->have_io = true;
    }
    const dfs_layered_result *lay = r->lay;
    if (lay && lay->nviews && d->time.io_layer) {
        d->have_io = true;
        io_sizes(&lay->views[0], d->time.io_layer, o);
    }
    return true;
}

/* ---- DASF ---- */

enum { TK_HOST, TK_GPU, TK_FUNCTION, TK_DURATION }; /* the function table's first columns (tasks.h) */

static void tk_text(const dfs_tk_table *t, size_t row, size_t col, char *buf, size_t n)
{
    dfs_tk_cell c = {0};
    t->cell(t, row, col, &c);
    snprintf(buf, n, "%.*s", (int)(c.len < n ? c.len : n - 1), c.s ? c.s : "");
}

typedef struct tally {
    char key[112];
    double s;
} tally;

/* Adds s under key: the table's rows are few (one per host, GPU and function). */
static void tally_add(tally *v, size_t *n, size_t cap, const char *key, double s)
{
    size_t i = 0;
    while (i < *n && strcmp(v[i].key, key) != 0)
        i++;
    if (i == *n && *n == cap)
        return;
    if (i == *n)
        snprintf(v[(*n)++].key, sizeof v->key, "%s", key);
    v[i].s += s;
}

static int cmp_tally(const void *a, const void *b)
{
    const tally *x = a, *y = b;
    return x->s != y->s ? (x->s > y->s ? -1 : 1) : strcmp(x->key, y->key);
}

static bool dasf_of(const dfs_run *run, const dfs_tasks_result *tk, dfs_report_detail *d)
{
    enum { CAP = 4096 };
    const dfs_tk_table *t = &tk->function;
    tally *fn = calloc(CAP, sizeof *fn), *wk = calloc(CAP, sizeof *wk);
    size_t nfn = 0, nwk = 0;
    if (!fn || !wk) {
        free(fn), free(wk);
        return false;
    }
    for (size_t r = 0; r < t->nrows && t->ncols > TK_DURATION; r++) {
        char host[64], gpu[32], name[96], worker[112];
        dfs_tk_cell c = {0};
        t->cell(t, r, TK_DURATION, &c);
        tk_text(t, r, TK_HOST, host, sizeof host);
        tk_text(t, r, TK_GPU, gpu, sizeof gpu);
        tk_text(t, r, TK_FUNCTION, name, sizeof name);
        snprintf(worker, sizeof worker, "%s, GPU %s", host, gpu);
        tally_add(fn, &nfn, CAP, name, isfinite(c.f) ? c.f : 0);
        tally_add(wk, &nwk, CAP, worker, isfinite(c.f) ? c.f : 0);
    }
    qsort(fn, nfn, sizeof *fn, cmp_tally);
    qsort(wk, nwk, sizeof *wk, cmp_tally);
    dfs_detail_dasf *o = &d->dasf;
    o->functions_total = nfn, o->workers_total = nwk;
    for (size_t i = 0; i < nfn && o->nfunctions < DFS_DETAIL_TOP; i++, o->nfunctions++) {
        snprintf(o->function_label[i], sizeof o->function_label[0], "%s", fn[i].key);
        o->function_s[i] = fn[i].s;
    }
    for (size_t i = 0; i < nwk && o->nworkers < DFS_DETAIL_RANKS; i++, o->nworkers++) {
        snprintf(o->worker_label[i], sizeof o->worker_label[0], "%s", wk[i].key);
        o->worker_s[i] = wk[i].s;
    }
    o->path_s = tk->path_seconds, o->path_tasks = tk->path_tasks;
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        const dfs_file_info *f = dfs_run_file(run, i);
        if (f->dialect == DFS_DIALECT_DASF && f->have_span)
            o->wall_s = fmax(o->wall_s, (double)(f->span_end_ns - f->span_start_ns) / 1e9);
    }
    free(fn), free(wk);
    d->have_dasf = true;
    return true;
}

/* ---- GPU ---- */

bool dfs_report_detail_wants_gpu(const dfs_report_results *r)
{
    for (size_t i = 0; r->st && i < r->st->nruns; i++)
        if (r->st->runs[i].tensorboard && r->st->runs[i].tensorboard->device_events)
            return true;
    return false;
}

static void gpu_rank(const dfs_gpu_rank *g, dfs_detail_gpu_rank *o)
{
    *o = (dfs_detail_gpu_rank){.rank = (long long)g->rank,
                               .compute_s = (double)g->temporal.compute_ns / 1e9,
                               .other_busy_s = (double)g->temporal.non_compute_ns / 1e9,
                               .idle_s = (double)g->temporal.idle_ns / 1e9};
    for (size_t i = 0; i < g->ntypes; i++)
        if (g->types[i].mask < 8)
            o->type_s[g->types[i].mask] += (double)g->types[i].sum_ns / 1e9;
    for (size_t i = 0; i < g->nidle; i++)
        if (g->idle[i].category < DFS_GPU_IDLE_CATS && isfinite(g->idle[i].idle_us))
            o->idle_cause_s[g->idle[i].category] += g->idle[i].idle_us / 1e6;
}

void dfs_report_detail_gpu(const dfs_gpu_result *g, dfs_report_detail *d)
{
    dfs_detail_gpu *o = &d->gpu;
    o->no_device = g->no_device;
    for (size_t i = 0; i < g->nranks; i++) {
        if (!g->ranks[i].device_rows)
            continue;
        o->ranks_total++;
        if (o->nranks < DFS_DETAIL_RANKS)
            gpu_rank(&g->ranks[i], &o->ranks[o->nranks++]);
    }
    d->have_gpu = o->nranks > 0;
}

/* ---- input health ---- */

static void problems_of(const dfs_run *run, dfs_report_detail *d)
{
    for (int p = 0; p < DFS_PROB__COUNT && d->nproblems < DFS_DETAIL_PROBLEMS; p++) {
        uint64_t n = dfs_run_problem_count(run, (dfs_problem)p);
        if (!n)
            continue;
        dfs_detail_problem *x = &d->problems[d->nproblems++];
        *x = (dfs_detail_problem){.code = dfs_problem_code((dfs_problem)p), .count = n,
                                  .damage = dfs_problem_class((dfs_problem)p) == 'D'};
        const dfs_example *ex = NULL;
        if (dfs_run_problem_examples(run, (dfs_problem)p, &ex) && ex) {
            x->file = dfs_run_file(run, ex->file)->path;
            x->line = ex->line, x->offset = ex->offset;
            snprintf(x->detail, sizeof x->detail, "%s", ex->detail);
        }
    }
}

bool dfs_report_detail_build(const dfs_run *run, const dfs_report_results *r, const dfs_job_report *rep,
                             dfs_report_detail *d)
{
    memset(d, 0, sizeof *d);
    bool ok = true;
    if (rep->nparts && r->ov && r->ov->nprocesses && strstr(rep->breakdown_basis, "interval overlap"))
        ok = overlap_ranks(r, rep, d);
    else if (rep->nparts && r->st && r->st->nruns && strstr(rep->breakdown_basis, "steps"))
        ok = step_ranks(r->st, rep, d);
    time_series(r->lay, r->st, &d->time);
    steps_of(r->st, &d->steps);
    ok = ok && io_of(r, d);
    if (ok && r->tk && r->tk->computes)
        ok = dasf_of(run, r->tk, d);
    problems_of(run, d);
    return ok;
}
