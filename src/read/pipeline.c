/* pipeline.c - reading every input once, in parallel, and streaming events to the consumers.
 *
 * Reading has phases over a pool of worker threads (pipeline.h names the modules):
 *  1. prepare: each file is opened, its head decompressed if gzipped, and sniffed. A large
 *     uncompressed line-oriented file is cut into byte-range chunks; a large multi-member gzip
 *     file into segments at confirmed member starts.
 *  1b. pre-scan: the chunks of a cut file are scanned for hash definitions (prescan.c).
 *  2. read: each task (a whole file, a chunk or a segment) is parsed into its own dfs_stream by
 *     one worker, and its events go to that worker's consumer states batch by batch.
 * How files are cut never changes an answer: everything that spans pieces is settled when the
 * pieces are folded (run.c), and the pre-scan gives every piece the hash definitions before it.
 * After the pool stops, the lines that straddle gzip segments are parsed, and the streams are
 * folded into the files in order (run.c).
 *
 * Memory is bounded by (threads x (read buffer + one batch)) plus the per-file metadata. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "read/pipeline.h"

/* ---- the pool ------------------------------------------------------------------------------------- */

static void *worker_main(void *arg)
{
    worker *w = arg;
    pool *pl = w->pool;
    for (;;) {
        size_t i = atomic_fetch_add(&pl->next, 1);
        if (i >= pl->nitems)
            break;
        if (pl->phase == 1) {
            dfs_prepare_file(pl, i);
        } else if (pl->phase == 3) {
            size_t k = pl->scan_items[i];
            dfs_task_prescan(w, &pl->tasks[k], pl->carry[k]);
        } else {
            task *t = &pl->tasks[i];
            dfs_task_run(w, t);
            if (t->chunk + 1 == t->nchunks)
                atomic_fetch_add(&pl->files_done, 1);
        }
    }
    pthread_mutex_lock(&pl->lock);
    pl->running--;
    pthread_cond_signal(&pl->cond);
    pthread_mutex_unlock(&pl->lock);
    return NULL;
}

static void report_progress(pool *pl, uint64_t bytes_total)
{
    const dfs_options *o = &pl->run->opt;
    if (o->progress)
        o->progress(o->progress_ctx, atomic_load(&pl->files_done), pl->run->inputs.n,
                    atomic_load(&pl->bytes_done), bytes_total);
}

/* Runs the current phase on all workers and waits, reporting progress meanwhile. */
static void run_phase(pool *pl, worker *workers, unsigned nworkers, int phase, size_t nitems,
                      uint64_t bytes_total)
{
    pl->phase = phase;
    pl->nitems = nitems;
    atomic_store(&pl->next, 0);
    pthread_t *threads = calloc(nworkers, sizeof *threads);
    unsigned started = 0;
    pl->running = 0;
    for (unsigned i = 0; threads && i < nworkers; i++) {
        pthread_mutex_lock(&pl->lock);
        pl->running++;
        pthread_mutex_unlock(&pl->lock);
        if (pthread_create(&threads[i], NULL, worker_main, &workers[i]) != 0) {
            pthread_mutex_lock(&pl->lock);
            pl->running--;
            pthread_mutex_unlock(&pl->lock);
            break;
        }
        started++;
    }
    if (started == 0) { /* no thread could start: do the work on this one */
        pl->running = 1;
        worker_main(&workers[0]);
    }
    pthread_mutex_lock(&pl->lock);
    while (pl->running > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 250 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&pl->cond, &pl->lock, &ts);
        if (phase == 2) {
            pthread_mutex_unlock(&pl->lock);
            report_progress(pl, bytes_total);
            pthread_mutex_lock(&pl->lock);
        }
    }
    pthread_mutex_unlock(&pl->lock);
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    free(threads);
}

static bool line_oriented_plain(const prepared *pr)
{
    return !pr->gzip && (pr->sniff.format == DFS_FMT_JSON_LINES || pr->sniff.format == DFS_FMT_DASF_TEXT ||
                         (pr->sniff.format == DFS_FMT_JSON_ARRAY && !pr->sniff.structural));
}

/* The size of the pieces large plain files are cut into. Cutting costs a pre-scan and gains only
 * when the other inputs cannot keep the workers busy, so unless --chunk says otherwise nothing is
 * cut for one worker, and for more, pieces are sized for about four per worker over all plain
 * line-oriented input, between 32 MiB and 1 GiB. Answers do not depend on it
 * (docs/ARCHITECTURE.md, "Pieces do not change answers"). */
static uint64_t chunk_size(const pool *pl, unsigned nworkers)
{
    const dfs_run *run = pl->run;
    if (run->opt.chunk_bytes)
        return run->opt.chunk_bytes;
    if (nworkers == 1)
        return UINT64_MAX;
    uint64_t total = 0;
    for (size_t i = 0; i < run->inputs.n; i++)
        if (line_oriented_plain(&pl->prep[i]))
            total += run->inputs.v[i].info.size;
    uint64_t size = total / (4 * (uint64_t)nworkers);
    const uint64_t min = UINT64_C(32) << 20, max = UINT64_C(1) << 30;
    return size < min ? min : size > max ? max : size;
}

static bool plan_tasks(pool *pl, unsigned nworkers)
{
    dfs_run *run = pl->run;
    const uint64_t chunk = chunk_size(pl, nworkers);
    DFS_VEC(task) tasks = {0};
    for (uint32_t i = 0; i < run->inputs.n; i++) {
        dfs_input *in = &run->inputs.v[i];
        prepared *pr = &pl->prep[i];
        if (in->info.unreadable || pr->sniff.format == DFS_FMT_NOT_A_TRACE ||
            pr->sniff.format == DFS_FMT_UNKNOWN)
            continue;
        uint32_t n = 1;
        task_kind kind = TASK_WHOLE;
        if (line_oriented_plain(pr) && in->info.size > chunk && !run->opt.preview_bytes) {
            kind = TASK_RANGE;
            n = (uint32_t)((in->info.size + chunk - 1) / chunk);
        } else if (pr->npoints > 1 && !run->opt.preview_bytes) {
            kind = TASK_GZ_SEGMENT;
            n = (uint32_t)pr->npoints;
        }
        for (uint32_t c = 0; c < n; c++) {
            task t = {.file = i, .chunk = c, .nchunks = n, .kind = kind};
            if (kind == TASK_RANGE) {
                t.start = (uint64_t)c * chunk;
                t.stop = t.start + chunk;
            } else if (kind == TASK_GZ_SEGMENT) {
                t.start = pr->points[c];
                t.stop = c + 1 < n ? pr->points[c + 1] : UINT64_MAX;
            }
            dfs_stream_init(&t.st, i, c, run->opt.max_examples);
            if (!dfs_vec_push(&tasks, t))
                return false;
        }
    }
    pl->tasks = tasks.v;
    pl->ntasks = tasks.n;
    return true;
}

/* The lines cut by gzip segment boundaries: the tail of segment k-1 followed by the head of
 * segment k, parsed in order on worker 0 (the pool has stopped). */
static void read_junctions(pool *pl, worker *w, stream_vec *extra, uint32_t file,
                           size_t first_task)
{
    task *tasks = pl->tasks;
    for (size_t k = first_task + 1; k < pl->ntasks && tasks[k].file == file; k++) {
        task *prev = &tasks[k - 1], *cur = &tasks[k];
        size_t len = prev->tail_len + cur->head_len;
        dfs_stream *st = malloc(sizeof *st);
        char *joined = malloc(len ? len : 1);
        if (!st || !joined || !dfs_vec_push(extra, st)) {
            free(st);
            free(joined);
            continue;
        }
        dfs_stream_init(st, file, prev->chunk, pl->run->opt.max_examples);
        memcpy(joined, prev->tail, prev->tail_len);
        memcpy(joined + prev->tail_len, cur->head, cur->head_len);
        if (len) {
            dfs_framer fr;
            dfs_framer_init(&fr, pl->prep[file].sniff.format, false);
            dfs_worker_begin_stream(w, st);
            dfs_framer_feed(&fr, &w->pctx, joined, len, prev->tail_offset, DFS_FEED_FINAL);
            dfs_worker_deliver(w, file);
        }
        free(joined);
    }
}

/* Folds every file's streams in order: segment k, then the junction after it. */
static void fold_all(pool *pl, worker *w0)
{
    dfs_run *run = pl->run;
    size_t t = 0;
    for (uint32_t i = 0; i < run->inputs.n; i++) {
        dfs_input *in = &run->inputs.v[i];
        stream_vec streams = {0}, extra = {0}, ordered = {0};
        size_t first = t;
        while (t < pl->ntasks && pl->tasks[t].file == i)
            dfs_vec_push(&streams, &pl->tasks[t++].st);
        if (first < t && pl->tasks[first].kind == TASK_GZ_SEGMENT)
            read_junctions(pl, w0, &extra, i, first);
        for (size_t s = 0; s < streams.n; s++) {
            dfs_vec_push(&ordered, streams.v[s]);
            if (s < extra.n)
                dfs_vec_push(&ordered, extra.v[s]);
        }
        if (pl->prep[i].gz_damage)
            dfs_vec_push(&ordered, pl->prep[i].gz_damage);
        if (in->info.unreadable)
            dfs_diag_add(&run->diag, DFS_PROB_UNREADABLE, i, 0, 0, "%s", in->info.error);
        else if (in->info.format == DFS_FMT_NOT_A_TRACE)
            dfs_diag_add(&run->diag, DFS_PROB_NOT_A_TRACE, i, 0, 0, "%s",
                         pl->prep[i].sniff.why ? pl->prep[i].sniff.why : "not a trace");
        dfs_run_fold_file(run, i, ordered.v, ordered.n);
        if (first < t && pl->prep[i].gzip) {
            in->info.gzip_members = 0;
            for (size_t k = first; k < t; k++)
                in->info.gzip_members += pl->tasks[k].st.gzip_members;
        }
        for (size_t s = 0; s < extra.n; s++) {
            dfs_stream_free(extra.v[s]);
            free(extra.v[s]);
        }
        dfs_vec_free(&streams);
        dfs_vec_free(&extra);
        dfs_vec_free(&ordered);
    }
}

/* Chunks after the first of a split file resolve hashes defined in earlier chunks: every chunk
 * but the last is scanned for its definitions first, and each chunk is given its predecessors'. */
static bool prescan_chunks(pool *pl, worker *workers, unsigned nworkers)
{
    pl->carry = calloc(pl->ntasks ? pl->ntasks : 1, sizeof *pl->carry);
    pl->scan_items = calloc(pl->ntasks ? pl->ntasks : 1, sizeof *pl->scan_items);
    if (!pl->carry || !pl->scan_items)
        return false;
    size_t n = 0;
    for (size_t t = 0; t < pl->ntasks; t++) {
        for (int k = 0; k < 3; k++)
            dfs_u64map_init(&pl->carry[t][k]);
        task *tk = &pl->tasks[t];
        if (tk->kind == TASK_RANGE && tk->chunk + 1 < tk->nchunks)
            pl->scan_items[n++] = t;
        if (tk->kind == TASK_RANGE && tk->chunk > 0) {
            tk->st.before = (const dfs_u64map(*)[3])pl->carry + (t - tk->chunk);
            tk->st.nbefore = tk->chunk;
        }
    }
    if (n)
        run_phase(pl, workers, n < nworkers ? (unsigned)n : nworkers, 3, n, 0);
    return true;
}

static unsigned default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

static void compile_wants(dfs_want_set *ws, dfs_strtab *strs, dfs_consumer *const *cs, size_t n)
{
    memset(ws, 0, sizeof *ws);
    for (size_t c = 0; c < n; c++) {
        ws->keys |= cs[c]->want.keys;
        ws->all |= cs[c]->want.all_args;
        for (const char *const *e = cs[c]->want.extra; e && *e; e++) {
            bool seen = false;
            for (size_t i = 0; i < ws->nextra; i++)
                seen |= strcmp(ws->extra[i], *e) == 0;
            if (seen || ws->nextra == DFS_WANT_MAX_EXTRA)
                continue;
            ws->extra[ws->nextra] = *e;
            ws->extra_len[ws->nextra] = strlen(*e);
            ws->extra_id[ws->nextra] = dfs_strtab_intern(strs, *e, strlen(*e));
            ws->nextra++;
        }
    }
}

static bool workers_init(pool *pl, worker *ws, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        worker *w = &ws[i];
        w->pool = pl;
        w->index = i;
        w->strs = dfs_strcache_new(pl->run->strs);
        w->states = calloc(pl->nconsumers ? pl->nconsumers : 1, sizeof *w->states);
        if (!w->strs || !w->states)
            return false;
        dfs_batchbuf_init(&w->batch);
        dfs_pctx_init(&w->pctx, pl->run->strs, w->strs, &pl->want, &pl->run->opt, &w->batch);
        for (size_t c = 0; c < pl->nconsumers; c++)
            w->states[c] = pl->consumers[c]->worker_begin
                               ? pl->consumers[c]->worker_begin(pl->consumers[c]->user)
                               : NULL;
    }
    return true;
}

static void workers_end(pool *pl, worker *ws, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        worker *w = &ws[i];
        for (size_t c = 0; w->states && c < pl->nconsumers; c++)
            if (pl->consumers[c]->worker_end)
                pl->consumers[c]->worker_end(pl->consumers[c]->user, pl->run, w->states[c]);
        free(w->states);
        dfs_pctx_free(&w->pctx);
        dfs_batchbuf_free(&w->batch);
        dfs_strcache_free(w->strs);
        free(w->buf);
    }
}

int dfs_run_read(dfs_run *run, dfs_consumer *const *consumers, size_t n_consumers)
{
    if (run->read_done)
        return DFS_EXIT_USAGE;
    run->read_done = true;
    pool pl = {.run = run, .consumers = consumers, .nconsumers = n_consumers};
    pthread_mutex_init(&pl.lock, NULL);
    pthread_cond_init(&pl.cond, NULL);
    compile_wants(&pl.want, run->strs, consumers, n_consumers);
    unsigned nworkers = run->opt.jobs > 0 ? (unsigned)run->opt.jobs : default_jobs();
    pl.prep = calloc(run->inputs.n ? run->inputs.n : 1, sizeof *pl.prep);
    worker *workers = calloc(nworkers, sizeof *workers);
    int verdict = DFS_EXIT_OUTPUT;
    if (!pl.prep || !workers || !workers_init(&pl, workers, nworkers))
        goto out;
    unsigned prep_workers = run->inputs.n < nworkers ? (unsigned)run->inputs.n : nworkers;
    if (prep_workers)
        run_phase(&pl, workers, prep_workers, 1, run->inputs.n, 0);
    if (!plan_tasks(&pl, nworkers))
        goto out;
    if (!prescan_chunks(&pl, workers, nworkers))
        goto out;
    uint64_t bytes_total = 0;
    for (size_t i = 0; i < run->inputs.n; i++)
        bytes_total += run->inputs.v[i].info.size;
    unsigned read_workers = pl.ntasks < nworkers ? (unsigned)pl.ntasks : nworkers;
    if (read_workers)
        run_phase(&pl, workers, read_workers, 2, pl.ntasks, bytes_total);
    report_progress(&pl, bytes_total);
    fold_all(&pl, &workers[0]);
    /* a string the full (or out of memory) table could not keep would read as "": fail instead */
    if (atomic_load(&pl.failed_alloc) || dfs_strtab_lost(run->strs))
        goto out;
    bool unreadable = false;
    for (size_t i = 0; i < run->inputs.n; i++)
        unreadable |= run->inputs.v[i].info.unreadable;
    unreadable |= run->diag.counts[DFS_PROB_UNREADABLE] > 0;
    uint64_t damage = dfs_diag_damage(&run->diag);
    if (unreadable)
        verdict = DFS_EXIT_USAGE;
    else if (damage)
        verdict = run->opt.strict ? DFS_EXIT_STRICT : DFS_EXIT_DAMAGED;
    else
        verdict = DFS_EXIT_OK;
out:
    if (workers)
        workers_end(&pl, workers, nworkers);
    for (size_t t = 0; t < pl.ntasks; t++) {
        dfs_stream_free(&pl.tasks[t].st);
        free(pl.tasks[t].head);
        free(pl.tasks[t].tail);
    }
    for (size_t t = 0; pl.carry && t < pl.ntasks; t++)
        for (int k = 0; k < 3; k++)
            dfs_u64map_free(&pl.carry[t][k]);
    free(pl.carry);
    free(pl.scan_items);
    free(pl.tasks);
    for (size_t i = 0; pl.prep && i < run->inputs.n; i++) {
        free(pl.prep[i].points);
        if (pl.prep[i].gz_damage)
            dfs_stream_free(pl.prep[i].gz_damage);
        free(pl.prep[i].gz_damage);
    }
    free(pl.prep);
    free(workers);
    pthread_mutex_destroy(&pl.lock);
    pthread_cond_destroy(&pl.cond);
    return verdict;
}
