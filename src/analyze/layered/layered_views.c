/* layered_views.c - from merged cells to views: the finishing steps after the merge, run as jobs in
 * two stages (each view's first half in layered_rows.c, its second half in layered_columns.c),
 * then the results and their release.
 *
 * Invariants: a job writes only its own view, set or engine, and reads what no job of its stage
 * writes, so the answer does not depend on how many workers run the jobs or in what order; the
 * results point into views_mem, which lives until dfs_layered_free_views. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/layered/layered_internal.h"

/* ----- assembly ------------------------------------------------------------------------------ */

/* The finishing steps after the merge run as jobs that workers take in turn, in two stages.
 * Stage 1 holds what reads only the merged cells and what stage 2 waits for: each view's first
 * half, the compaction of the distinct-file keys (the views' and the raw statistics'), and each
 * process's last engine flush (often most of its work). Stage 2 holds each view's second half. A
 * job writes only its own view, set or engine, and reads what no job of its stage writes. The
 * largest jobs (the views, then the keys) come first, so that the many small ones fill in behind
 * them: the time view's members (when it keeps them, or groups cells) and the keys' sort then run
 * side by side. */
typedef struct finish_plan {
    dfs_layered *la;
    views_mem *vm;
    const dfs_run *run;
    int64_t shift;
    int stage;
    atomic_size_t next;
    atomic_bool failed;
} finish_plan;

static size_t stage_jobs(const finish_plan *p)
{
    return p->stage == 1 ? p->vm->nviews + 2 + p->la->total.ovl.n : p->vm->nviews;
}

static bool run_job(finish_plan *p, size_t j)
{
    views_mem *vm = p->vm;
    acc *a = &p->la->total;
    if (j < vm->nviews)
        return p->stage == 1 ? dfs_layered_view_members(p->la, vm, &vm->views[j], p->run, p->shift)
                             : dfs_layered_view_rest(p->la, vm, &vm->views[j], p->run, p->shift);
    if (j == vm->nviews)
        return dfs_sortset_compact(&a->nuniq) && dfs_sortset_compact(&a->fhashes);
    if (j == vm->nviews + 1)
        return dfs_layered_wall_finish(a);
    dfs_ovl *o = a->ovl.v[j - vm->nviews - 2];
    return !o || dfs_ovl_finish(o);
}

static void *finish_worker(void *arg)
{
    finish_plan *p = *(finish_plan **)arg;
    size_t j;
    while (!atomic_load(&p->failed) && (j = atomic_fetch_add(&p->next, 1)) < stage_jobs(p))
        if (!run_job(p, j))
            atomic_store(&p->failed, true);
    return NULL;
}

#define MAX_WORKERS 8 /* threads of the finishing steps, at most */

/* Runs fn on n workers (w: n items of `size` bytes): worker 0 here, the others on threads of
 * their own, or here as well when a thread cannot start (slower, same answer). */
static void run_workers(void *(*fn)(void *), void *w, size_t size, size_t n)
{
    pthread_t threads[MAX_WORKERS];
    bool started[MAX_WORKERS] = {false};
    for (size_t i = 1; i < n; i++)
        started[i] = pthread_create(&threads[i], NULL, fn, (char *)w + i * size) == 0;
    fn(w);
    for (size_t i = 1; i < n; i++) {
        if (started[i])
            pthread_join(threads[i], NULL);
        else
            fn((char *)w + i * size);
    }
}

/* How many workers share `jobs` independent jobs: the run's jobs, at most one per job. */
static size_t workers_for(const dfs_run *run, size_t jobs)
{
    size_t n = dfs_run_jobs(run);
    if (n > jobs)
        n = jobs;
    if (n > MAX_WORKERS)
        n = MAX_WORKERS;
    return n < 1 ? 1 : n;
}

static bool run_stage(finish_plan *p, int stage)
{
    p->stage = stage;
    atomic_store(&p->next, 0);
    finish_plan *w[MAX_WORKERS];
    size_t n = workers_for(p->run, stage_jobs(p));
    for (size_t i = 0; i < n; i++)
        w[i] = p;
    run_workers(finish_worker, w, sizeof *w, n);
    return !atomic_load(&p->failed);
}

static void view_totals(const dfs_layered *la, const views_mem *vm, dfs_view_result *r)
{
    for (size_t v = 0; v < vm->nviews; v++) {
        if (vm->views[v].type == DFS_VIEW_FILE_NAME)
            r->total_files = vm->views[v].nrows;
        if (vm->views[v].type == DFS_VIEW_PROC_NAME)
            r->total_processes = vm->views[v].nrows;
    }
    bool have_files = la->opt.views >> DFS_VIEW_FILE_NAME & 1, have_procs = la->opt.views >> DFS_VIEW_PROC_NAME & 1;
    for (size_t l = 0; l < NL(la); l++) {
        if (!have_files)
            r->total_files += r->layers[l].num_files;
        if (!have_procs && r->layers[l].num_processes > r->total_processes)
            r->total_processes = r->layers[l].num_processes;
    }
}

/* Most time first; then by name, so that the order depends on the events only. */
static int unlayered_first(const void *pa, const void *pb)
{
    const dfs_layered_unlayered *a = pa, *b = pb;
    if (a->dur_ns != b->dur_ns)
        return a->dur_ns > b->dur_ns ? -1 : 1;
    if (a->events != b->events)
        return a->events > b->events ? -1 : 1;
    return strcmp(a->category, b->category);
}

static void raw_result(dfs_layered *la, views_mem *vm)
{
    dfs_layered_result *res = &la->result;
    acc *a = &la->total;
    if (a->unlayered.n > 1)
        qsort(a->unlayered.v, a->unlayered.n, sizeof *a->unlayered.v, unlayered_first);
    res->compat = la->opt.compat;
    res->preset = la->opt.preset;
    res->layers = la->plan.layers;
    res->nlayers = NL(la);
    res->origin_ns = a->have_time ? a->min_ts : 0;
    res->job_time_s = a->have_time ? dfs_layered_secs(a->max_end - a->min_ts) : 0;
    res->events = a->events;
    res->unique_files = a->fhashes.n; /* compacted by a finishing job */
    res->unique_hosts = a->hhashes.count;
    res->unique_processes = a->pids.count;
    res->no_duration = a->no_duration;
    res->bad_time = a->bad_time;
    res->other_phases = a->other_phases;
    res->dropped_files = a->dropped_files;
    res->dropped_functions = a->dropped_functions;
    res->post_read_events = a->post_read;
    res->post_read_dur_ns = a->post_read_dur;
    res->on_purpose_events = a->on_purpose;
    res->on_purpose_dur_ns = a->on_purpose_dur;
    res->unlayered = a->unlayered.v;
    res->nunlayered = a->unlayered.n;
    for (size_t i = 0; i < a->unlayered.n; i++) {
        res->unlayered_events += a->unlayered.v[i].events;
        res->unlayered_dur_ns += a->unlayered.v[i].dur_ns;
    }
    res->granularity_s = (double)la->opt.granularity_ns / 1e9;
    res->threads = vm->nprocs;
    res->layer_count_total = a->layer_events;
}

/* Is the time view's table (a row per bin holding events, every value) over its bound? Said in
 * la->failure, with a granularity at which as many bins would fit if the events spread like now,
 * and --views only when the user chooses the views (not on report's page). */
static bool time_view_too_large(dfs_layered *la, size_t nbins)
{
    size_t values = la->time_view_values;
    if (!values || (unsigned __int128)nbins * values <= DFS_TIME_VIEW_VALUES_MAX)
        return false;
    int64_t g = la->opt.granularity_ns;
    char given[32], fit[32] = "";
    dfs_bins_width_text(given, sizeof given, g);
    int64_t w = dfs_bins_fitting_width((unsigned __int128)nbins * (unsigned __int128)g, 0,
                                       DFS_TIME_VIEW_VALUES_MAX / values, g);
    if (w)
        dfs_bins_width_text(fit, sizeof fit, w);
    snprintf(la->failure, sizeof la->failure,
             "--granularity %s makes a time_range view of %zu rows of %zu values, more than the %" PRIu64
             " values a view keeps: use %s%s%s%s",
             given, nbins, values, DFS_TIME_VIEW_VALUES_MAX, w ? "--granularity " : "a coarser --granularity", fit,
             w ? " or coarser" : "", la->opt.views_fixed ? "" : ", or --views without time_range");
    return true;
}

bool dfs_layered_build_views(dfs_layered *la, const dfs_run *run, int64_t shift)
{

    views_mem *vm = calloc(1, sizeof *vm);
    if (!vm)
        return false;
    la->views_mem = vm;
    if (!dfs_layered_canonical_procs(la, vm, run) ||
        !(vm->bins = dfs_layered_distinct_bins(&la->total, shift, &vm->nbins)) || time_view_too_large(la, vm->nbins) ||
        !dfs_layered_bin_table(vm))
        return false;
    vm->views = calloc(la->opt.norder + 1, sizeof *vm->views);
    vm->results = calloc(la->opt.norder + 1, sizeof *vm->results);
    if (!vm->views || !vm->results)
        return false;
    for (size_t v = 0; v < la->opt.norder; v++)
        vm->views[v].type = la->opt.order[v];
    vm->nviews = la->opt.norder;
    finish_plan plan = {.la = la, .vm = vm, .run = run, .shift = shift};
    atomic_init(&plan.next, 0);
    atomic_init(&plan.failed, false);
    if (!run_stage(&plan, 1) || !run_stage(&plan, 2))
        return false;
    raw_result(la, vm);
    for (size_t v = 0; v < vm->nviews; v++) {
        view_build *vb = &vm->views[v];
        dfs_view_result *r = &vm->results[v];
        *r = (dfs_view_result){.type = vb->type, .layers = vb->summary, .row_keys = (const char *const *)vb->row_keys,
                               .row_bins = vb->type == DFS_VIEW_TIME_RANGE ? vb->row_bins : NULL,
                               .nrows = vb->nrows, .columns = (const char *const *)vb->columns.v,
                               .ncolumns = vb->columns.n, .cells = vb->cells.v,
                               .additional = vb->additional, .nadditional = vb->nadditional};
        view_totals(la, vm, r);
    }
    la->result.views = vm->results;
    la->result.nviews = vm->nviews;
    return true;
}

void dfs_layered_free_views(dfs_layered *la)
{
    views_mem *vm = la->views_mem;
    if (!vm)
        return;
    for (size_t v = 0; v < vm->nviews; v++) {
        view_build *vb = &vm->views[v];
        for (size_t i = 0; vb->row_keys && i < vb->nrows; i++)
            free(vb->row_keys[i]);
        free(vb->row_keys);
        free(vb->members);
        free(vb->rl);
        for (size_t c = 0; c < vb->columns.n; c++)
            free(vb->columns.v[c]);
        dfs_vec_free(&vb->columns);
        dfs_vec_free(&vb->cells);
        free(vb->summary);
        free(vb->additional);
        dfs_vec_free(&vb->tot_units);
        dfs_vec_free(&vb->units);
    }
    free(vm->views);
    free(vm->results);
    for (size_t p = 0; p < vm->nprocs; p++) {
        free(vm->procs[p].name);
        free(vm->procs[p].host);
    }
    free(vm->procs);
    free(vm->canon);
    free(vm->bins);
    free(vm->bin_pos);
    free(vm);
    la->views_mem = NULL;
}
