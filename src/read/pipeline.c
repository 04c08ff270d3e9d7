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

#include "model/dups.h"
#include "read/pipeline.h"
#include "util/memlimit.h"

/* ---- the pool ------------------------------------------------------------------------------------- */

/* The consumers' worker_done for one worker: no batch reaches it afterwards. */
static void worker_done(pool *pl, worker *w)
{
    for (size_t c = 0; w->states && c < pl->nconsumers; c++)
        if (pl->consumers[c]->worker_done)
            pl->consumers[c]->worker_done(w->states[c], pl->run);
}

/* After a range of a file: the judgement of the file's duplicates once all its ranges are read
 * (the ranges of one file are consecutive tasks, in file order). A file cut between MPI ranks is
 * not checked. */
static void range_done(pool *pl, task *t)
{
    if (t->kind != TASK_RANGE || pl->run->share || !pl->ranges_left ||
        atomic_fetch_sub(&pl->ranges_left[t->file], 1) != 1)
        return;
    task *first = t - t->chunk;
    dfs_stream **streams = malloc(t->nchunks * sizeof *streams);
    if (!streams) /* the fold judges them */
        return;
    for (uint32_t c = 0; c < t->nchunks; c++)
        streams[c] = &first[c].st;
    dfs_dups_judge(&first->st.diag, t->file, streams, t->nchunks);
    free(streams);
}

/* dfs_options.cancelled: asked from the workers, between the pieces they read. */
static bool cancelled(const pool *pl)
{
    const dfs_options *o = &pl->run->opt;
    return o->cancelled && o->cancelled(o->cancel_ctx);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    pool *pl = w->pool;
    for (;;) {
        size_t i = atomic_fetch_add(&pl->next, 1);
        if (i >= pl->nitems)
            break;
        if (pl->phase == 1) {
            dfs_prepare_file(pl, pl->prep_files ? pl->prep_files[i] : i);
        } else if (pl->phase == 3) {
            task *t = &pl->tasks[pl->scan_items[i]];
            dfs_task_prescan(w, t, pl->carry[pl->carry_at[t->file] + t->chunk]);
        } else {
            task *t = &pl->tasks[i];
            if (cancelled(pl)) { /* the task's stream stays empty: the run's results are incomplete */
                atomic_store(&pl->cancelled, 1);
                continue;
            }
            dfs_task_run(w, t);
            range_done(pl, t);
            if (t->chunk + 1 == t->nchunks)
                atomic_fetch_add(&pl->files_done, 1);
        }
    }
    if (pl->phase == 2 && (w->index != 0 || !pl->seams))
        worker_done(pl, w);
    pthread_mutex_lock(&pl->lock);
    pl->running--;
    pthread_cond_signal(&pl->cond);
    pthread_mutex_unlock(&pl->lock);
    return NULL;
}

static void report_progress(pool *pl, uint64_t disk_total)
{
    const dfs_options *o = &pl->run->opt;
    if (o->progress)
        o->progress(o->progress_ctx, atomic_load(&pl->files_done), pl->run->inputs.n,
                    atomic_load(&pl->bytes_done), atomic_load(&pl->disk_done), disk_total);
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

static bool add_task(pool *pl, task_vec *tasks, task t)
{
    dfs_stream_init(&t.st, t.file, t.chunk, pl->run->opt.max_examples);
    return dfs_vec_push(tasks, t);
}

/* The tasks of one whole input: itself, its chunks, or its gzip segments. */
static bool plan_file(pool *pl, uint32_t i, uint64_t chunk, task_vec *tasks)
{
    dfs_run *run = pl->run;
    dfs_input *in = &run->inputs.v[i];
    prepared *pr = &pl->prep[i];
    if (in->info.unreadable || pr->sniff.format == DFS_FMT_NOT_A_TRACE || pr->sniff.format == DFS_FMT_UNKNOWN)
        return true;
    uint32_t n = 1;
    task_kind kind = TASK_WHOLE;
    /* --dedup drops a duplicate before it becomes an event, so one worker reads the file whole */
    bool may_cut = !run->opt.preview_bytes && !run->opt.dedup;
    if (line_oriented_plain(pr) && in->info.size > chunk && may_cut) {
        kind = TASK_RANGE;
        n = (uint32_t)((in->info.size + chunk - 1) / chunk);
    } else if (pr->npoints > 1 && may_cut) {
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
        if (!add_task(pl, tasks, t))
            return false;
    }
    return true;
}

/* A piece of a file cut between ranks: one range task when the file is read in line-aligned
 * ranges; otherwise the file cannot be cut, and the rank of its first piece reads it whole. */
static bool plan_piece(pool *pl, const dfs_piece *p, uint64_t chunk, task_vec *tasks)
{
    if (p->count == 1)
        return plan_file(pl, p->file, chunk, tasks);
    dfs_run *run = pl->run;
    prepared *pr = &pl->prep[p->file];
    if (run->inputs.v[p->file].info.unreadable)
        return true;
    bool may_cut = !run->opt.preview_bytes && !run->opt.dedup; /* as in plan_file */
    if (pr->marks && may_cut)
        return dfs_share_gz_plan(pl, p, tasks);
    if (!line_oriented_plain(pr) || !may_cut)
        return p->index != 0 || plan_file(pl, p->file, UINT64_MAX, tasks);
    task t = {.file = p->file, .chunk = p->index, .nchunks = p->count, .kind = TASK_RANGE, .start = p->start,
              .stop = p->stop};
    return add_task(pl, tasks, t);
}

static bool plan_tasks(pool *pl, unsigned nworkers)
{
    dfs_run *run = pl->run;
    const uint64_t chunk = chunk_size(pl, nworkers);
    task_vec tasks = {0};
    bool ok = true;
    if (run->share)
        for (size_t k = 0; k < run->nshare && ok; k++) {
            size_t before = tasks.n;
            ok = plan_piece(pl, &run->share[k], chunk, &tasks);
            for (size_t j = before; j < tasks.n; j++)
                tasks.v[j].piece = k;
        }
    else
        for (uint32_t i = 0; i < run->inputs.n && ok; i++)
            ok = plan_file(pl, i, chunk, &tasks);
    pl->tasks = tasks.v;
    pl->ntasks = tasks.n;
    pl->ranges_left = calloc(run->inputs.n ? run->inputs.n : 1, sizeof *pl->ranges_left);
    for (size_t t = 0; pl->ranges_left && t < pl->ntasks; t++)
        if (pl->tasks[t].kind == TASK_RANGE && pl->tasks[t].chunk == 0)
            atomic_init(&pl->ranges_left[pl->tasks[t].file], pl->tasks[t].nchunks);
    return ok && pl->ranges_left;
}

/* The lines cut by gzip segment boundaries: the tail of segment k-1 followed by the head of
 * segment k, parsed in order on worker 0 (the pool has stopped). */
static void read_junctions(pool *pl, worker *w, stream_vec *extra, uint32_t file, size_t first_task,
                           size_t end_task)
{
    task *tasks = pl->tasks;
    if (atomic_load(&pl->cancelled)) /* segments were left unread: their heads and tails are not there */
        return;
    for (size_t k = first_task + 1; k < end_task; k++) {
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
            dfs_worker_begin_stream(w, st, true);
            dfs_framer_feed(&fr, &w->pctx, joined, len, prev->tail_offset, DFS_FEED_FINAL);
            dfs_worker_deliver(w, file, true);
        }
        free(joined);
    }
}

/* The streams of tasks [first, end) of one input in fold order: segment k, then the junction
 * after it (allocated into *extra), and last the damage of a gzip input that is not a trace. */
static void order_streams(pool *pl, worker *w0, uint32_t file, size_t first, size_t end, stream_vec *extra,
                          stream_vec *ordered)
{
    if (first < end && pl->tasks[first].kind == TASK_GZ_SEGMENT)
        read_junctions(pl, w0, extra, file, first, end);
    for (size_t t = first; t < end; t++) {
        dfs_vec_push(ordered, &pl->tasks[t].st);
        if (t - first < extra->n)
            dfs_vec_push(ordered, extra->v[t - first]);
    }
    if (pl->prep[file].gz_damage)
        dfs_vec_push(ordered, pl->prep[file].gz_damage);
}

static void free_streams(stream_vec *v)
{
    for (size_t s = 0; s < v->n; s++) {
        dfs_stream_free(v->v[s]);
        free(v->v[s]);
    }
    dfs_vec_free(v);
}

/* Folds every file's streams in order (run.c). */
static void fold_all(pool *pl, worker *w0)
{
    dfs_run *run = pl->run;
    size_t t = 0;
    for (uint32_t i = 0; i < run->inputs.n; i++) {
        stream_vec extra = {0}, ordered = {0};
        size_t first = t;
        while (t < pl->ntasks && pl->tasks[t].file == i)
            t++;
        order_streams(pl, w0, i, first, t, &extra, &ordered);
        dfs_run_conclude_input(run, i, pl->prep[i].sniff.why, ordered.v, ordered.n, first < t);
        free_streams(&extra);
        dfs_vec_free(&ordered);
    }
}

/* A stream the result of a piece owns: task streams are moved out of their task (which keeps a
 * fresh empty one), the others are heap streams already. */
static dfs_stream *own_stream(pool *pl, dfs_stream *st)
{
    bool in_task = pl->ntasks && st >= &pl->tasks[0].st && st <= &pl->tasks[pl->ntasks - 1].st;
    if (!in_task)
        return st;
    dfs_stream *moved = malloc(sizeof *moved);
    if (!moved)
        return NULL;
    *moved = *st;
    moved->before = NULL;
    moved->nbefore = 0;
    dfs_stream_init(st, st->file, st->chunk, 0);
    return moved;
}

/* Share mode: what each piece of the share taught, for the rank that folds every rank's pieces
 * (dfs_run_fold_results). Tasks follow the share's pieces in order. */
static bool collect_results(pool *pl, worker *w0)
{
    dfs_run *run = pl->run;
    size_t t = 0;
    bool ok = true;
    for (size_t k = 0; k < run->nshare; k++) {
        const dfs_piece *p = &run->share[k];
        const dfs_input *in = &run->inputs.v[p->file];
        prepared *pr = &pl->prep[p->file];
        dfs_piece_result r = {.piece = *p, .size = in->info.size, .format = in->info.format,
                              .dialect = in->info.dialect, .gzip = in->info.gzip,
                              .unreadable = in->info.unreadable, .error = in->info.error, .why = pr->sniff.why};
        size_t first = t;
        while (t < pl->ntasks && pl->tasks[t].piece == k)
            t++;
        stream_vec extra = {0}, ordered = {0};
        if (pr->marks) /* a cut gzipped input: each segment with the junction after it */
            for (size_t i = first; i < t; i++) {
                dfs_stream *junction = dfs_share_gz_junction(pl, w0, &pl->tasks[i]);
                dfs_vec_push(&ordered, &pl->tasks[i].st);
                if (junction && !dfs_vec_push(&ordered, junction)) {
                    dfs_stream_free(junction);
                    free(junction);
                    ok = false;
                }
            }
        else if (p->index == 0)
            order_streams(pl, w0, p->file, first, t, &extra, &ordered);
        else
            for (size_t i = first; i < t; i++)
                dfs_vec_push(&ordered, &pl->tasks[i].st);
        for (size_t s = 0; s < ordered.n; s++) {
            dfs_stream *own = own_stream(pl, ordered.v[s]);
            if (own && ordered.v[s] == pr->gz_damage)
                pr->gz_damage = NULL;
            if (own && !dfs_vec_push(&r.streams, own)) {
                dfs_stream_free(own);
                free(own);
                own = NULL;
            }
            ok &= own != NULL;
        }
        dfs_vec_free(&extra); /* its streams now belong to r */
        dfs_vec_free(&ordered);
        if (!dfs_vec_push(&run->results, r)) {
            dfs_piece_result_free(&r);
            ok = false;
        }
    }
    return ok;
}

/* One block of pre-scan results per input read in ranges, one entry per chunk or piece. */
static bool carry_blocks(pool *pl)
{
    size_t ninputs = pl->run->inputs.n;
    pl->carry_at = malloc((ninputs ? ninputs : 1) * sizeof *pl->carry_at);
    if (!pl->carry_at)
        return false;
    for (size_t i = 0; i < ninputs; i++)
        pl->carry_at[i] = SIZE_MAX;
    size_t total = 0;
    for (size_t t = 0; t < pl->ntasks; t++) {
        task *tk = &pl->tasks[t];
        if (tk->kind == TASK_RANGE && pl->carry_at[tk->file] == SIZE_MAX) {
            pl->carry_at[tk->file] = total;
            total += tk->nchunks;
        }
    }
    pl->carry = calloc(total ? total : 1, sizeof *pl->carry);
    if (!pl->carry)
        return false;
    pl->ncarry = total;
    for (size_t c = 0; c < total; c++)
        for (int k = 0; k < 3; k++)
            dfs_u64map_init(&pl->carry[c][k]);
    return true;
}

/* Chunks after the first of a split file resolve hashes defined in earlier chunks: every chunk
 * but the last is scanned for its definitions first, and each chunk is given its predecessors'. */
static bool prescan_chunks(pool *pl, worker *workers, unsigned nworkers)
{
    pl->scan_items = calloc(pl->ntasks ? pl->ntasks : 1, sizeof *pl->scan_items);
    if (!pl->scan_items || !carry_blocks(pl))
        return false;
    size_t n = 0;
    for (size_t t = 0; t < pl->ntasks; t++) {
        task *tk = &pl->tasks[t];
        if (tk->kind == TASK_RANGE && tk->chunk + 1 < tk->nchunks)
            pl->scan_items[n++] = t;
        if (tk->kind == TASK_RANGE && tk->chunk > 0) {
            tk->st.before = (const dfs_u64map(*)[3])pl->carry + pl->carry_at[tk->file];
            tk->st.nbefore = tk->chunk;
        }
    }
    if (n)
        run_phase(pl, workers, n < nworkers ? (unsigned)n : nworkers, 3, n, 0);
    return true;
}

/* Share mode: the definitions of the pieces other ranks read, for the pieces of files cut
 * between ranks (run.h). Always takes part in the exchange, also after a failure. */
static bool exchange_carry(pool *pl, bool ok)
{
    dfs_run *run = pl->run;
    DFS_VEC(dfs_carry_file) cut = {0};
    DFS_VEC(bool) known = {0};
    for (size_t k = 0; ok && k < run->nshare; k++) {
        const dfs_piece *p = &run->share[k];
        if (p->count < 2 || !pl->carry_at || pl->carry_at[p->file] == SIZE_MAX ||
            (cut.n && cut.v[cut.n - 1].file == p->file))
            continue;
        dfs_carry_file cf = {.file = p->file, .count = p->count, .carry = pl->carry + pl->carry_at[p->file]};
        ok = dfs_vec_push(&cut, cf);
    }
    size_t nknown = 0;
    for (size_t i = 0; ok && i < cut.n; i++)
        nknown += cut.v[i].count;
    ok = ok && dfs_vec_reserve(&known, nknown + 1);
    for (size_t i = 0, at = 0; ok && i < cut.n; i++) {
        cut.v[i].known = known.v + at;
        for (uint32_t c = 0; c < cut.v[i].count; c++)
            known.v[at + c] = false;
        at += cut.v[i].count;
    }
    for (size_t t = 0; ok && t < pl->ntasks; t++) { /* this rank's scanned pieces */
        task *tk = &pl->tasks[t];
        for (size_t i = 0; i < cut.n; i++)
            if (cut.v[i].file == tk->file && tk->kind == TASK_RANGE && tk->chunk + 1 < tk->nchunks)
                cut.v[i].known[tk->chunk] = true;
    }
    bool exchanged = !run->hooks.exchange || run->hooks.exchange(run->hooks.ctx, run, cut.v, ok ? cut.n : 0, !ok);
    dfs_vec_free(&cut);
    dfs_vec_free(&known);
    return ok && exchanged;
}

/* Under an address-space limit (ulimit -v) plain files are read with read() into the workers'
 * 1 MiB buffers rather than through 16 MiB mapping windows: slower, but what the analyses may
 * take is left to them (docs/FORMATS.md, "Files that change while they are read"). */
static void choose_reading(pool *pl)
{
    dfs_memlimit lim;
    if (!dfs_memlimit_get(&lim))
        return;
    snprintf(pl->unmapped_why, sizeof pl->unmapped_why, "address space limited to %llu MiB (ulimit -v)",
             (unsigned long long)(lim.limit >> 20));
    pl->unmapped = pl->unmapped_why;
}

static unsigned default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

unsigned dfs_run_jobs(const dfs_run *run)
{
    return run->opt.jobs > 0 ? (unsigned)run->opt.jobs : default_jobs();
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
        if (w->pctx.nomem) /* a record went unread for want of memory: no result */
            atomic_store(&pl->failed_alloc, 1);
        dfs_pctx_free(&w->pctx);
        dfs_batchbuf_free(&w->batch);
        dfs_strcache_free(w->strs);
        free(w->buf);
    }
}

/* The inputs to prepare: every one, or (share mode) those of the share's pieces. */
static bool choose_prep_files(pool *pl)
{
    dfs_run *run = pl->run;
    pl->nprep = run->inputs.n;
    if (!run->share)
        return true;
    pl->prep_files = malloc((run->nshare ? run->nshare : 1) * sizeof *pl->prep_files);
    if (!pl->prep_files)
        return false;
    pl->nprep = 0;
    for (size_t k = 0; k < run->nshare; k++)
        if (!pl->nprep || pl->prep_files[pl->nprep - 1] != run->share[k].file)
            pl->prep_files[pl->nprep++] = run->share[k].file;
    return true;
}

static uint64_t bytes_to_read(const pool *pl)
{
    uint64_t total = 0;
    for (size_t i = 0; i < pl->nprep; i++)
        total += pl->run->inputs.v[pl->prep_files ? pl->prep_files[i] : i].info.size;
    return total;
}

/* Phase 2 and what follows: every task read, then the files folded (or, in share mode, what each
 * piece taught kept for the rank that folds them). Returns the verdict. */
static int read_and_conclude(pool *pl, worker *workers, unsigned nworkers)
{
    dfs_run *run = pl->run;
    uint64_t bytes_total = bytes_to_read(pl);
    unsigned read_workers = pl->ntasks < nworkers ? (unsigned)pl->ntasks : nworkers;
    /* lines across the seams of a file's pieces are parsed by worker 0 after the phase */
    for (size_t t = 0; t < pl->ntasks && !pl->seams; t++)
        pl->seams = pl->tasks[t].nchunks > 1;
    if (read_workers)
        run_phase(pl, workers, read_workers, 2, pl->ntasks, bytes_total);
    report_progress(pl, bytes_total);
    if (run->share) {
        bool kept = collect_results(pl, &workers[0]);
        if (pl->seams && read_workers)
            worker_done(pl, &workers[0]);
        return kept && !atomic_load(&pl->failed_alloc) && !dfs_strtab_lost(run->strs) ? DFS_EXIT_OK
                                                                                        : DFS_EXIT_OUTPUT;
    }
    fold_all(pl, &workers[0]);
    if (pl->seams && read_workers)
        worker_done(pl, &workers[0]);
    int verdict = dfs_run_verdict(run, atomic_load(&pl->failed_alloc));
    return atomic_load(&pl->cancelled) ? DFS_EXIT_OUTPUT : verdict;
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
    choose_reading(&pl);
    unsigned nworkers = dfs_run_jobs(run);
    pl.prep = calloc(run->inputs.n ? run->inputs.n : 1, sizeof *pl.prep);
    worker *workers = calloc(nworkers, sizeof *workers);
    int verdict = DFS_EXIT_OUTPUT;
    bool ok = pl.prep && workers && workers_init(&pl, workers, nworkers) && choose_prep_files(&pl);
    if (ok) {
        unsigned prep_workers = pl.nprep < nworkers ? (unsigned)pl.nprep : nworkers;
        if (prep_workers)
            run_phase(&pl, workers, prep_workers, 1, pl.nprep, 0);
        ok = plan_tasks(&pl, nworkers) && prescan_chunks(&pl, workers, nworkers);
    }
    if (run->share) /* every rank takes part, whatever happened so far */
        ok = exchange_carry(&pl, ok) && ok;
    if (ok)
        verdict = read_and_conclude(&pl, workers, nworkers);
    if (workers)
        workers_end(&pl, workers, nworkers);
    for (size_t t = 0; t < pl.ntasks; t++) {
        dfs_stream_free(&pl.tasks[t].st);
        free(pl.tasks[t].head);
        free(pl.tasks[t].tail);
    }
    for (size_t c = 0; pl.carry && c < pl.ncarry; c++)
        for (int k = 0; k < 3; k++)
            dfs_u64map_free(&pl.carry[c][k]);
    free(pl.carry);
    free(pl.carry_at);
    free(pl.prep_files);
    free(pl.scan_items);
    free(pl.tasks);
    free(pl.ranges_left);
    for (size_t i = 0; pl.prep && i < run->inputs.n; i++) {
        free(pl.prep[i].points);
        free(pl.prep[i].marks);
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
