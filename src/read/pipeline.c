/* pipeline.c - reading every input once, in parallel, and streaming events to the consumers.
 *
 * Reading has two phases over a pool of worker threads:
 *  1. prepare: each file is opened, its head decompressed if gzipped, and sniffed. A large
 *     uncompressed line-oriented file is cut into byte-range chunks; a large multi-member gzip
 *     file into segments at confirmed member starts.
 *  2. read: each task (a whole file, a chunk or a segment) is parsed into its own dfs_stream by
 *     one worker, and its events go to that worker's consumer states batch by batch.
 * The cut depends only on the file (its size and its members), never on the number of threads,
 * so every result is the same for any -j. After the pool stops, the lines that straddle gzip
 * segments are parsed, and the streams are folded into the files in order (run.c).
 *
 * Memory is bounded by (threads x (read buffer + one batch)) plus the per-file metadata. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "model/batch.h"
#include "parse/dasf.h"
#include "parse/framer.h"
#include "read/gzip.h"
#include "read/run.h"
#include "read/sniff.h"

enum {
    BLOCK = 1 << 20,          /* bytes read per step */
    HEAD = 64 * 1024,         /* bytes sniffed */
    MAP_WINDOW = 16 << 20,    /* bytes of a plain file mapped at a time */
    MAX_SEGMENTS = 4096,
};

typedef enum task_kind { TASK_WHOLE, TASK_RANGE, TASK_GZ_SEGMENT } task_kind;

typedef struct task {
    uint32_t file;
    uint32_t chunk;
    uint32_t nchunks;
    task_kind kind;
    uint64_t start, stop;      /* RANGE: nominal byte range; GZ_SEGMENT: compressed range */
    dfs_stream st;
    /* A gzip segment cannot know whether the previous one ended inside a line: it keeps its
     * first line (head) and its unfinished last line (tail) for the junction pass. */
    char *head, *tail;
    size_t head_len, tail_len;
    uint64_t tail_offset;
} task;

typedef DFS_VEC(dfs_stream *) stream_vec;

typedef struct prepared {
    dfs_sniffed sniff;
    bool gzip;
    uint64_t points[MAX_SEGMENTS];
    size_t npoints;
} prepared;

typedef struct worker {
    struct pool *pool;
    unsigned index;
    dfs_strcache *strs;
    dfs_batchbuf batch;
    dfs_pctx pctx;
    void **states;             /* one per consumer */
    char *buf;
    size_t cap;
} worker;

typedef struct pool {
    dfs_run *run;
    dfs_consumer *const *consumers;
    size_t nconsumers;
    dfs_want_set want;
    prepared *prep;            /* one per input */
    task *tasks;
    size_t ntasks;
    dfs_u64map (*carry)[3];    /* per task: definitions found by the pre-scan (hash -> string) */
    size_t *scan_items;        /* tasks to pre-scan */
    atomic_size_t next;        /* next item of the current phase */
    size_t nitems;
    int phase;                 /* 1 prepare, 2 read, 3 pre-scan */
    atomic_uint_fast64_t bytes_done;
    atomic_uint_fast64_t files_done;
    atomic_int failed_alloc;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned running;
} pool;

/* ---- byte sources ------------------------------------------------------------------------------ */

typedef struct source {
    int fd;
    dfs_gzreader *gz;
    uint64_t pos, end;         /* plain files: the byte range still to read */
} source;

static ssize_t source_read(source *s, char *out, size_t cap)
{
    if (s->gz)
        return dfs_gz_read(s->gz, out, cap);
    if (s->pos >= s->end)
        return 0;
    if (cap > s->end - s->pos)
        cap = (size_t)(s->end - s->pos);
    ssize_t n;
    do
        n = pread(s->fd, out, cap, (off_t)s->pos);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        s->pos += (uint64_t)n;
    return n;
}

/* The first line start at or after pos: pos itself when it follows a '\n', else the byte after
 * the next '\n'. Both neighbours of a chunk boundary compute the same answer. */
static uint64_t line_start_at_or_after(int fd, uint64_t pos, uint64_t size)
{
    if (pos == 0 || pos >= size)
        return pos >= size ? size : 0;
    char buf[65536];
    uint64_t at = pos - 1;
    while (at < size) {
        ssize_t n = pread(fd, buf, sizeof buf, (off_t)at);
        if (n <= 0)
            return size;
        char *nl = memchr(buf, '\n', (size_t)n);
        if (nl)
            return at + (uint64_t)(nl - buf) + 1;
        at += (uint64_t)n;
    }
    return size;
}

/* ---- phase 1: prepare ---------------------------------------------------------------------------- */

static void mark_unreadable(dfs_input *in, const char *what)
{
    in->info.unreadable = true;
    in->info.error = what;
}

static void prepare_file(pool *pl, size_t i)
{
    dfs_input *in = &pl->run->inputs.v[i];
    prepared *pr = &pl->prep[i];
    pr->npoints = 1;
    pr->points[0] = 0;
    int fd = open(in->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        mark_unreadable(in, errno == EACCES ? "permission denied" : "cannot open");
        return;
    }
    struct stat st;
    if (fstat(fd, &st) == 0)
        in->info.size = (uint64_t)st.st_size;
    unsigned char *head = malloc(HEAD);
    if (!head) {
        atomic_store(&pl->failed_alloc, 1);
        close(fd);
        return;
    }
    ssize_t n = pread(fd, head, HEAD, 0);
    if (n < 0) {
        mark_unreadable(in, "read error");
    } else if (dfs_gz_magic(head, (size_t)n)) {
        pr->gzip = in->info.gzip = true;
        dfs_diag scratch;
        dfs_diag_init(&scratch, 0); /* problems are reported when the file is really read */
        dfs_gzreader *gz = dfs_gz_open(fd, in->info.size, 0, UINT64_MAX, &scratch, (uint32_t)i);
        size_t have = 0;
        ssize_t got = 1;
        while (gz && have < HEAD && (got = dfs_gz_read(gz, (char *)head + have, HEAD - have)) > 0)
            have += (size_t)got;
        pr->sniff = dfs_sniff(head, have, got == 0);
        dfs_gz_close(gz);
        dfs_diag_free(&scratch);
        if (pr->sniff.format != DFS_FMT_NOT_A_TRACE && in->info.size > pl->run->opt.gzip_segment_bytes &&
            !pr->sniff.structural && pr->sniff.format != DFS_FMT_DASF)
            pr->npoints = dfs_gz_split_points(fd, in->info.size, pl->run->opt.gzip_segment_bytes, pr->points,
                                              MAX_SEGMENTS);
    } else {
        pr->sniff = dfs_sniff(head, (size_t)n, (uint64_t)n >= in->info.size);
    }
    free(head);
    close(fd);
    if (!in->info.unreadable) {
        in->info.format = pr->sniff.format;
        in->info.dialect = pr->sniff.dialect;
    }
}

/* ---- phase 2: read ------------------------------------------------------------------------------- */

/* The first complete event of a stream: its time, offset and line (counted in the block just
 * fed, which is still in the buffer), for ts_regression across chunk boundaries. */
static void note_first_ts(dfs_stream *st, const dfs_batchbuf *b, const char *fed, uint64_t fed_offset,
                          size_t fed_len, uint64_t lines_before)
{
    for (size_t i = 0; i < b->events.n && !st->have_first_ts; i++) {
        const dfs_event *ev = &b->events.v[i];
        if (ev->phase != DFS_PHASE_COMPLETE ||
            (ev->flags & (DFS_EF_HAS_TS | DFS_EF_BAD_TIME)) != DFS_EF_HAS_TS)
            continue;
        st->first_ts = ev->ts;
        st->first_ts_offset = ev->offset;
        st->have_first_ts = true;
        if (fed && ev->offset >= fed_offset && ev->offset - fed_offset <= fed_len) {
            uint64_t lines = lines_before + 1;
            for (const char *p = fed, *end = fed + (ev->offset - fed_offset);
                 (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
                lines++;
            st->first_ts_line = lines;
        }
    }
}

static void deliver(worker *w, uint32_t file)
{
    dfs_batchbuf *b = &w->batch;
    if (b->events.n == 0)
        return;
    dfs_batch batch = {b->events.v, b->events.n, file};
    for (size_t c = 0; c < w->pool->nconsumers; c++)
        w->pool->consumers[c]->on_batch(w->states[c], w->pool->run, &batch);
    dfs_batchbuf_clear(b);
}

static bool ensure_capacity(worker *w, size_t need)
{
    if (need <= w->cap)
        return true;
    size_t cap = w->cap ? w->cap : 2 * BLOCK;
    while (cap < need)
        cap *= 2;
    char *nb = realloc(w->buf, cap);
    if (!nb)
        return false;
    w->buf = nb;
    w->cap = cap;
    return true;
}

typedef struct feeder {
    dfs_format format;
    bool line_mode;
    dfs_framer framer;
} feeder;

static size_t feed(worker *w, feeder *f, const char *buf, size_t len, uint64_t offset, int flags)
{
    if (f->format == DFS_FMT_DASF)
        return dfs_dasf_feed(&w->pctx, (const unsigned char *)buf, len, offset, flags);
    return dfs_framer_feed(&f->framer, &w->pctx, buf, len, offset, flags);
}

/* Keeps a gzip segment's first line aside (see struct task). Returns the bytes it took. */
static size_t take_head(task *t, const char *buf, size_t len, bool final, size_t limit)
{
    const char *nl = memchr(buf, '\n', len);
    if (!nl && !final && len < limit)
        return 0; /* wait for more bytes */
    size_t n = nl ? (size_t)(nl - buf) + 1 : len;
    if (n > limit)
        n = limit; /* an absurd first line: the junction pass will report it */
    t->head = malloc(n ? n : 1);
    if (t->head) {
        memcpy(t->head, buf, n);
        t->head_len = n;
    }
    return n;
}

static void keep_tail(task *t, const char *buf, size_t len, uint64_t offset)
{
    t->tail_offset = offset;
    t->tail = malloc(len ? len : 1);
    if (t->tail) {
        memcpy(t->tail, buf, len);
        t->tail_len = len;
    }
}

/* Feeds one piece of a stream and hands its events to the consumers; returns the bytes used. */
static size_t feed_piece(worker *w, task *t, feeder *f, const char *p, size_t len, uint64_t offset,
                         int flags)
{
    uint64_t lines_before = t->st.lines;
    size_t used = feed(w, f, p, len, offset, flags);
    if (!t->st.have_first_ts)
        note_first_ts(&t->st, &w->batch, f->line_mode ? p : NULL, offset, len, lines_before);
    deliver(w, t->file);
    return used > len ? len : used;
}

static void finish_stream(worker *w, task *t, feeder *f)
{
    if (t->chunk + 1 == t->nchunks && f->format != DFS_FMT_DASF) {
        dfs_framer_finish(&f->framer, &w->pctx);
        deliver(w, t->file);
    }
}

static void count_bytes(worker *w, task *t, uint64_t n)
{
    atomic_fetch_add(&w->pool->bytes_done, n);
    t->st.bytes_in += n;
}

/* Reads a task from a decompressing (or unmappable) source through the worker's buffer. */
static void read_buffered(worker *w, task *t, source *src, feeder *f)
{
    const uint64_t max_record = w->pool->run->opt.max_record;
    size_t have = 0;
    uint64_t offset = t->kind == TASK_GZ_SEGMENT && t->chunk > 0 ? t->start << 24 : t->start;
    bool need_head = t->kind == TASK_GZ_SEGMENT && t->chunk > 0;
    bool keeps_tail = t->kind == TASK_GZ_SEGMENT && t->chunk + 1 < t->nchunks;
    if (t->kind == TASK_RANGE)
        offset = src->pos;
    for (;;) {
        if (!ensure_capacity(w, have + BLOCK)) {
            atomic_store(&w->pool->failed_alloc, 1);
            break;
        }
        ssize_t n = source_read(src, w->buf + have, BLOCK);
        if (n < 0) {
            dfs_diag_add(&t->st.diag, DFS_PROB_UNREADABLE, t->file, 0, offset + have,
                         "read error: %s", strerror(errno));
            n = 0;
        }
        count_bytes(w, t, (uint64_t)n);
        have += (size_t)n;
        bool final = n == 0;
        size_t start = 0;
        if (need_head) {
            start = take_head(t, w->buf, have, final, (size_t)max_record);
            if (start == 0 && !final)
                continue;
            need_head = false;
            offset += start;
        }
        size_t len = have - start;
        if (final && keeps_tail) {
            const char *p = w->buf + start;
            size_t complete = len;
            while (complete > 0 && p[complete - 1] != '\n')
                complete--;
            keep_tail(t, p + complete, len - complete, offset + complete);
            len = complete;
        }
        int flags = final ? DFS_FEED_FINAL : (len >= max_record ? DFS_FEED_FULL : 0);
        size_t used = feed_piece(w, t, f, w->buf + start, len, offset, flags);
        if (final)
            break;
        offset += used;
        have = len - used;
        memmove(w->buf, w->buf + start + used, have);
    }
    finish_stream(w, t, f);
}

/* Reads the byte range [pos, end) of a plain file through a sliding read-only mapping, so the
 * bytes are parsed where the page cache holds them instead of being copied. The parser is fed
 * views of about BLOCK bytes; a view that ends inside a record is fed again, longer. The window
 * moves on as the parser advances and grows only for records longer than it (up to max_record),
 * so at most one window per worker is mapped. Returns false, having read nothing, when the file
 * cannot be mapped. */
static bool read_mapped(worker *w, task *t, int fd, uint64_t pos, uint64_t end, feeder *f)
{
    const uint64_t max_record = w->pool->run->opt.max_record;
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t window = MAP_WINDOW;
    bool first = true;
    while (pos < end || first) {
        uint64_t wstart = pos & ~(page - 1);
        uint64_t wend = end - wstart > window ? wstart + window : end;
        size_t wlen = (size_t)(wend - wstart);
        char *map = wlen ? mmap(NULL, wlen, PROT_READ, MAP_PRIVATE, fd, (off_t)wstart) : NULL;
        if (wlen && map == MAP_FAILED) {
            if (first)
                return false;
            dfs_diag_add(&t->st.diag, DFS_PROB_UNREADABLE, t->file, 0, pos, "cannot map: %s",
                         strerror(errno));
            break;
        }
        if (wlen)
            madvise(map, wlen, MADV_SEQUENTIAL);
        first = false;
        uint64_t started_at = pos;
        uint64_t view = BLOCK;
        for (;;) {
            uint64_t vend = wend - pos > view ? pos + view : wend;
            bool final = vend == end;
            size_t len = (size_t)(vend - pos);
            int flags = final ? DFS_FEED_FINAL : (len >= max_record ? DFS_FEED_FULL : 0);
            size_t used = feed_piece(w, t, f, map + (pos - wstart), len, pos, flags);
            count_bytes(w, t, used);
            pos += used;
            if (final)
                break;
            if (used == 0 && vend == wend)
                break; /* the record goes on past the window */
            view = used == 0 ? view * 2 : BLOCK;
        }
        if (wlen)
            munmap(map, wlen);
        if (pos == end)
            break;
        if (pos == started_at) { /* a record longer than the window: map more of it */
            uint64_t cap = max_record + 2 * page + BLOCK;
            window = window * 2 < cap ? window * 2 : cap;
        }
    }
    finish_stream(w, t, f);
    return true;
}

/* Parser state that must not leak from one stream into the next. */
static void begin_stream(worker *w, dfs_stream *st)
{
    dfs_pctx *p = &w->pctx;
    p->st = st;
    p->line = 0;
    p->prev_hash = 0;
    p->prev_len = 0;
    p->dedup_pos = 0;
    p->skip_pending = 0;
    memset(p->dedup_window, 0, sizeof p->dedup_window);
}

static void run_task(worker *w, task *t)
{
    dfs_run *run = w->pool->run;
    dfs_input *in = &run->inputs.v[t->file];
    prepared *pr = &w->pool->prep[t->file];
    begin_stream(w, &t->st);
    int fd = open(in->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        dfs_diag_add(&t->st.diag, DFS_PROB_UNREADABLE, t->file, 0, 0, "cannot open: %s",
                     strerror(errno));
        return;
    }
    source src = {.fd = fd, .pos = 0, .end = in->info.size};
    if (t->kind == TASK_RANGE) {
        src.pos = line_start_at_or_after(fd, t->start, in->info.size);
        src.end = line_start_at_or_after(fd, t->stop, in->info.size);
    } else if (pr->gzip) {
        src.gz = dfs_gz_open(fd, in->info.size, t->start, t->kind == TASK_GZ_SEGMENT ? t->stop : UINT64_MAX,
                             &t->st.diag, t->file);
        if (!src.gz) {
            atomic_store(&w->pool->failed_alloc, 1);
            close(fd);
            return;
        }
    }
    feeder f = {.format = pr->sniff.format,
                .line_mode = pr->sniff.format != DFS_FMT_DASF && !pr->sniff.structural};
    if (f.format != DFS_FMT_DASF)
        dfs_framer_init(&f.framer, pr->sniff.format, pr->sniff.structural);
    if (src.gz || !read_mapped(w, t, fd, src.pos, src.end, &f))
        read_buffered(w, t, &src, &f);
    if (src.gz) {
        /* complete members: a cut last member is reported as truncation, not as a member */
        t->st.gzip_members = dfs_gz_members(src.gz) - (dfs_gz_truncated(src.gz) ? 1 : 0);
        dfs_gz_close(src.gz);
    }
    close(fd);
}


/* ---- pre-scan: definitions of earlier chunks ----------------------------------------------------- */

/* The first `H"` in p[0..n), or NULL. The pre-scan runs over whole chunks, so it compares 16
 * bytes a step (SSE2 is baseline on x86-64) instead of calling memmem. */
static const char *find_h_quote(const char *p, size_t n)
{
    size_t i = 0;
#ifdef __SSE2__
    const __m128i h = _mm_set1_epi8('H'), q = _mm_set1_epi8('"');
    for (; i + 17 <= n; i += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(p + i + 1));
        int mask = _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, h), _mm_cmpeq_epi8(b, q)));
        if (mask)
            return p + i + (size_t)__builtin_ctz((unsigned)mask);
    }
#endif
    for (; i + 1 < n; i++)
        if (p[i] == 'H' && p[i + 1] == '"')
            return p + i;
    return NULL;
}

/* A DFTracer definition record names itself "FH", "HH" or "SH": look for H" after "F, "H or "S.
 * A false hit only costs parsing one line. */
static bool line_may_define(const char *line, size_t len)
{
    for (const char *p = line; (p = find_h_quote(p, len - (size_t)(p - line))) != NULL; p += 2) {
        if (p - line >= 2 && p[-2] == '"' && (p[-1] == 'F' || p[-1] == 'H' || p[-1] == 'S'))
            return true;
    }
    return false;
}

/* Parses the definition lines of complete lines in buf into the scratch stream (w->pctx.st). */
static void scan_block(worker *w, const char *buf, size_t len, uint64_t offset)
{
    size_t at = 0;
    while (at < len) {
        const char *hit = find_h_quote(buf + at, len - at);
        if (!hit)
            break;
        const char *start = hit;
        while (start > buf + at && start[-1] != '\n')
            start--;
        const char *end = memchr(hit, '\n', (size_t)(buf + len - hit));
        size_t line_len = (size_t)((end ? end : buf + len) - start);
        const char *brace = memchr(start, '{', line_len);
        if (brace && line_may_define(start, line_len)) {
            size_t n = line_len - (size_t)(brace - start);
            while (n > 0 && (brace[n - 1] == ' ' || brace[n - 1] == '\r' || brace[n - 1] == ',' ||
                             brace[n - 1] == '\t'))
                n--;
            dfs_parse_record(&w->pctx, brace, n, offset + (uint64_t)(brace - buf));
            dfs_batchbuf_clear(&w->batch);
        }
        at = end ? (size_t)(end - buf) + 1 : len;
    }
}

static void prescan_task(worker *w, task *t, dfs_u64map carry[3])
{
    dfs_input *in = &w->pool->run->inputs.v[t->file];
    int fd = open(in->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return; /* the read phase reports it */
    dfs_stream scratch;
    dfs_stream_init(&scratch, t->file, t->chunk, 0);
    begin_stream(w, &scratch);
    source src = {.fd = fd};
    src.pos = line_start_at_or_after(fd, t->start, in->info.size);
    src.end = line_start_at_or_after(fd, t->stop, in->info.size);
    uint64_t offset = src.pos;
    size_t have = 0;
    for (;;) {
        if (!ensure_capacity(w, have + BLOCK))
            break;
        ssize_t n = source_read(&src, w->buf + have, BLOCK);
        if (n <= 0) {
            scan_block(w, w->buf, have, offset);
            break;
        }
        have += (size_t)n;
        size_t complete = have;
        while (complete > 0 && w->buf[complete - 1] != '\n')
            complete--;
        if (complete == 0 && have < w->pool->run->opt.max_record)
            continue;
        if (complete == 0)
            complete = have; /* an absurd line: scan it as it is */
        scan_block(w, w->buf, complete, offset);
        offset += complete;
        have -= complete;
        memmove(w->buf, w->buf + complete, have);
    }
    for (size_t d = 0; d < scratch.defs.n; d++)
        dfs_u64map_put(&carry[scratch.defs.v[d].kind], scratch.defs.v[d].hash, scratch.defs.v[d].str);
    dfs_stream_free(&scratch);
    w->pctx.st = NULL;
    close(fd);
}

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
            prepare_file(pl, i);
        } else if (pl->phase == 3) {
            size_t k = pl->scan_items[i];
            prescan_task(w, &pl->tasks[k], pl->carry[k]);
        } else {
            task *t = &pl->tasks[i];
            run_task(w, t);
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

static bool splits_into_ranges(const dfs_run *run, const dfs_input *in, const prepared *pr)
{
    if (pr->gzip || in->info.size <= run->opt.chunk_bytes)
        return false;
    return pr->sniff.format == DFS_FMT_JSON_LINES || pr->sniff.format == DFS_FMT_DASF_TEXT ||
           (pr->sniff.format == DFS_FMT_JSON_ARRAY && !pr->sniff.structural);
}

static bool plan_tasks(pool *pl)
{
    dfs_run *run = pl->run;
    DFS_VEC(task) tasks = {0};
    for (uint32_t i = 0; i < run->inputs.n; i++) {
        dfs_input *in = &run->inputs.v[i];
        prepared *pr = &pl->prep[i];
        if (in->info.unreadable || pr->sniff.format == DFS_FMT_NOT_A_TRACE ||
            pr->sniff.format == DFS_FMT_UNKNOWN)
            continue;
        uint32_t n = 1;
        task_kind kind = TASK_WHOLE;
        if (splits_into_ranges(run, in, pr)) {
            kind = TASK_RANGE;
            n = (uint32_t)((in->info.size + run->opt.chunk_bytes - 1) / run->opt.chunk_bytes);
        } else if (pr->npoints > 1) {
            kind = TASK_GZ_SEGMENT;
            n = (uint32_t)pr->npoints;
        }
        for (uint32_t c = 0; c < n; c++) {
            task t = {.file = i, .chunk = c, .nchunks = n, .kind = kind};
            if (kind == TASK_RANGE) {
                t.start = (uint64_t)c * run->opt.chunk_bytes;
                t.stop = t.start + run->opt.chunk_bytes;
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
            begin_stream(w, st);
            dfs_framer_feed(&fr, &w->pctx, joined, len, prev->tail_offset, DFS_FEED_FINAL);
            deliver(w, file);
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
    if (!plan_tasks(&pl))
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
    if (atomic_load(&pl.failed_alloc))
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
    free(pl.prep);
    free(workers);
    pthread_mutex_destroy(&pl.lock);
    pthread_cond_destroy(&pl.cond);
    return verdict;
}
