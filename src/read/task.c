/* task.c - reading one task: a whole file, a byte-range chunk of a plain file, or a segment of
 * a multi-member gzip file, through the right parser into the task's stream, handing the events
 * to the worker's consumer states block by block. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse/dasf.h"
#include "read/mapguard.h"
#include "read/pipeline.h"

/* ---- byte sources ------------------------------------------------------------------------------ */

ssize_t dfs_source_read(source *s, char *out, size_t cap)
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

/* The first line start at or after pos (pos itself when it follows a '\n', else the byte after
 * the next '\n'), or limit when none comes before it: the scan reads no further than limit, which
 * is at most the file size. Both neighbours of a chunk boundary compute the same answer. */
uint64_t dfs_line_start_at_or_after(int fd, uint64_t pos, uint64_t limit)
{
    if (pos == 0 || pos >= limit)
        return pos >= limit ? limit : 0;
    char buf[65536];
    uint64_t at = pos - 1;
    while (at < limit) {
        size_t want = limit - at < sizeof buf ? (size_t)(limit - at) : sizeof buf;
        ssize_t n = pread(fd, buf, want, (off_t)at);
        if (n <= 0)
            return limit;
        char *nl = memchr(buf, '\n', (size_t)n);
        if (nl)
            return at + (uint64_t)(nl - buf) + 1;
        at += (uint64_t)n;
    }
    return limit;
}

void dfs_task_range(task *t, int fd, uint64_t size)
{
    if (t->range_known)
        return;
    uint64_t stop = t->stop < size ? t->stop : size;
    /* No line starts before the nominal stop: the search for the stop would end at the same line
     * start, so the range is empty and only the task where that line begins scans it to its end. */
    t->from = dfs_line_start_at_or_after(fd, t->start, stop);
    t->to = t->from >= stop ? t->from : dfs_line_start_at_or_after(fd, t->stop, size);
    t->range_known = true;
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

bool dfs_task_in_pieces(const task *t)
{
    return t->nchunks != 1; /* share.c's segments of a gzip input cut between ranks have no count */
}

/* The stream's span grows by the batch's timed events (what dfs_file_info.have_span says):
 * one pass over a batch that is in cache, so that every command knows each file's span. */
static void note_span(dfs_stream *st, const dfs_batchbuf *b)
{
    for (size_t i = 0; i < b->events.n; i++) {
        const dfs_event *ev = &b->events.v[i];
        if (ev->phase == DFS_PHASE_METADATA || (ev->flags & (DFS_EF_HAS_TS | DFS_EF_BAD_TIME)) != DFS_EF_HAS_TS)
            continue;
        int64_t dur = ev->dur > 0 && ev->phase != DFS_PHASE_AGGREGATED ? ev->dur : 0, end;
        if (!dfs_span_end(ev->ts, dur, &end))
            end = ev->ts;
        if (!st->have_span || ev->ts < st->span_min)
            st->span_min = ev->ts;
        if (!st->have_span || end > st->span_max)
            st->span_max = end;
        st->have_span = true;
    }
}

void dfs_worker_deliver(worker *w, uint32_t file, bool in_pieces)
{
    dfs_batchbuf *b = &w->batch;
    if (b->events.n == 0)
        return;
    if (w->pctx.st)
        note_span(w->pctx.st, b);
    dfs_batch batch = {b->events.v, b->events.n, file, in_pieces};
    for (size_t c = 0; c < w->pool->nconsumers; c++)
        w->pool->consumers[c]->on_batch(w->states[c], w->pool->run, &batch);
    dfs_batchbuf_clear(b);
}

bool dfs_worker_buffer(worker *w, size_t need)
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
    dfs_worker_deliver(w, t->file, dfs_task_in_pieces(t));
    return used > len ? len : used;
}

static void finish_stream(worker *w, task *t, feeder *f)
{
    if (t->chunk + 1 == t->nchunks && f->format != DFS_FMT_DASF) {
        dfs_framer_finish(&f->framer, &w->pctx);
        dfs_worker_deliver(w, t->file, dfs_task_in_pieces(t));
    }
}

/* Counts n bytes read (decompressed) and the bytes of the file they took, for the progress line. */
static void count_bytes(worker *w, task *t, uint64_t n, uint64_t on_disk)
{
    atomic_fetch_add(&w->pool->bytes_done, n);
    atomic_fetch_add(&w->pool->disk_done, on_disk);
    t->st.bytes_in += n;
}

/* Where a source is in its file: the compressed bytes consumed, or the plain position. */
static uint64_t disk_position(const source *s) { return s->gz ? dfs_gz_consumed(s->gz) : s->pos; }

/* ---- a file that changes while it is read -------------------------------------------------------
 * A task reads the bytes its file had when the inputs were listed: bytes appended later are not
 * read. A file found shorter than that (truncated, rotated, rewritten in place) ends the task's
 * read where its bytes end now, reported once per task as incomplete_file at that offset; the
 * line cut there is reported as the torn last line of any crashed file. */

static void cut_short(task *t, int fd, uint64_t pos, uint64_t *end, uint64_t at)
{
    struct stat now;
    bool known = fstat(fd, &now) == 0;
    if (known && (uint64_t)now.st_size < at)
        at = (uint64_t)now.st_size;
    if (at < pos)
        at = pos; /* the parser has taken those bytes already */
    if (at >= *end)
        return;
    *end = at;
    if (t->shrank)
        return;
    t->shrank = true;
    if (known)
        dfs_diag_add(&t->st.diag, DFS_PROB_INCOMPLETE_FILE, t->file, 0, at,
                     "the file shrank to %llu bytes while it was read", (unsigned long long)now.st_size);
    else
        dfs_diag_add(&t->st.diag, DFS_PROB_INCOMPLETE_FILE, t->file, 0, at, "the file shrank while it was read");
}

/* Says that a plain file (from `offset` on) is read with read() into the worker's buffer rather
 * than through a mapping, and why (a legal variant: information, never damage). */
static void note_unmapped(task *t, uint64_t offset, const char *why)
{
    dfs_diag_add(&t->st.diag, DFS_PROB_UNMAPPED_READ, t->file, 0, offset, "%s: read with read(), not mapped",
                 why);
}

/* Reads a task from a decompressing source, or a plain file that is not mapped (from src->pos),
 * through the worker's buffer. */
static void read_buffered(worker *w, task *t, source *src, feeder *f)
{
    const uint64_t max_record = w->pool->run->opt.max_record;
    const uint64_t preview = w->pool->run->opt.preview_bytes;
    size_t have = 0;
    uint64_t offset = t->kind == TASK_GZ_SEGMENT && t->chunk > 0 ? t->start << 24 : t->start;
    bool need_head = t->kind == TASK_GZ_SEGMENT && t->chunk > 0;
    bool keeps_tail = t->kind == TASK_GZ_SEGMENT && t->chunk + 1 < t->nchunks;
    if (!src->gz)
        offset = src->pos;
    uint64_t disk_at = disk_position(src);
    for (;;) {
        if (!dfs_worker_buffer(w, have + BLOCK)) {
            atomic_store(&w->pool->failed_alloc, 1);
            break;
        }
        ssize_t n = dfs_source_read(src, w->buf + have, BLOCK);
        if (n < 0) {
            dfs_diag_add(&t->st.diag, DFS_PROB_UNREADABLE, t->file, 0, offset + have,
                         "read error: %s", strerror(errno));
            n = 0;
        } else if (n == 0 && !src->gz && src->pos < src->end) {
            cut_short(t, src->fd, src->pos, &src->end, src->pos);
        }
        uint64_t disk_now = disk_position(src);
        count_bytes(w, t, (uint64_t)n, disk_now > disk_at ? disk_now - disk_at : 0);
        disk_at = disk_now;
        have += (size_t)n;
        bool final = n == 0;
        if (preview && t->st.bytes_in >= preview && !final) {
            while (have > 0 && w->buf[have - 1] != '\n')
                have--; /* a preview ends at a line start */
            final = true;
        }
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

/* A mapped read of the byte range [pos, end) of a plain file. */
typedef struct mapped {
    worker *w;
    task *t;
    feeder *f;
    int fd;
    uint64_t pos, end;
} mapped;

/* Feeds the window [wstart, wend), mapped at `map` and guarded by g, from m->pos in views of
 * about BLOCK bytes; a view that ends inside a record is fed again, longer. Each view is touched
 * before it is parsed, so a file cut short is found before its vanished bytes reach the parser;
 * if it is cut while the view is parsed, the parser read NULs past the cut (reported as damage of
 * that view, never a crash) and the read ends there too. Returns true when the stream ended, false
 * when the record at m->pos goes on past the window. */
static bool feed_window(mapped *m, dfs_mapguard *g, const char *map, uint64_t wstart, uint64_t wend)
{
    const uint64_t max_record = m->w->pool->run->opt.max_record;
    uint64_t view = BLOCK;
    for (;;) {
        uint64_t limit = wend < m->end ? wend : m->end;
        uint64_t vend = limit - m->pos > view ? m->pos + view : limit;
        uint64_t present = wstart + dfs_mapguard_touch(g, (size_t)(m->pos - wstart), (size_t)(vend - wstart));
        if (present < vend) {
            cut_short(m->t, m->fd, m->pos, &m->end, present);
            vend = limit = m->end;
        }
        bool final = vend == m->end;
        size_t len = (size_t)(vend - m->pos);
        int flags = final ? DFS_FEED_FINAL : (len >= max_record ? DFS_FEED_FULL : 0);
        size_t used = feed_piece(m->w, m->t, m->f, map + (m->pos - wstart), len, m->pos, flags);
        count_bytes(m->w, m->t, used, used);
        m->pos += used;
        size_t gone;
        if (dfs_mapguard_vanished(g, &gone))
            cut_short(m->t, m->fd, m->pos, &m->end, wstart + gone);
        if (final)
            return true;
        if (used == 0 && vend == wend)
            return false;
        view = used == 0 ? view * 2 : BLOCK;
    }
}

/* Reads the byte range [src->pos, src->end) of a plain file through a sliding read-only mapping,
 * so the bytes are parsed where the page cache holds them instead of being copied. The window
 * moves on as the parser advances and grows only for records longer than it (up to max_record),
 * so at most one window per worker is mapped. The file's size is checked before each window and
 * the window is guarded (mapguard.h), so a file that shrinks ends the read, reported, instead of
 * faulting. Returns false when a window cannot be mapped: src->pos is then where reading must go
 * on, with read() (said as unmapped_read, but silently when even the first window of the file
 * cannot be mapped for another reason than memory: a file that does not support mapping). */
static bool read_mapped(worker *w, task *t, source *src, feeder *f)
{
    const uint64_t max_record = w->pool->run->opt.max_record;
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    mapped m = {w, t, f, src->fd, src->pos, src->end};
    uint64_t window = MAP_WINDOW;
    bool first = true;
    for (;;) {
        cut_short(t, m.fd, m.pos, &m.end, m.end);
        if (m.pos == m.end) {
            feed_piece(w, t, f, "", 0, m.pos, DFS_FEED_FINAL);
            break;
        }
        uint64_t wstart = m.pos & ~(page - 1);
        uint64_t wend = m.end - wstart > window ? wstart + window : m.end;
        size_t wlen = (size_t)(wend - wstart);
        char *map = mmap(NULL, wlen, PROT_READ, MAP_PRIVATE, m.fd, (off_t)wstart);
        dfs_mapguard g;
        if (map == MAP_FAILED || !dfs_mapguard_begin(&g, map, wlen)) {
            int err = errno;
            if (map != MAP_FAILED)
                munmap(map, wlen);
            if (!first || err == ENOMEM) {
                char why[64];
                snprintf(why, sizeof why, "cannot map (%s)", strerror(err));
                note_unmapped(t, m.pos, why);
            }
            src->pos = m.pos;
            src->end = m.end;
            return false;
        }
        first = false;
        madvise(map, wlen, MADV_SEQUENTIAL);
        uint64_t started_at = m.pos;
        bool ended = feed_window(&m, &g, map, wstart, wend);
        dfs_mapguard_end(&g);
        munmap(map, wlen);
        if (ended)
            break;
        if (m.pos == started_at) { /* a record longer than the window: map more of it */
            uint64_t cap = max_record + 2 * page + BLOCK;
            window = window * 2 < cap ? window * 2 : cap;
        }
    }
    finish_stream(w, t, f);
    return true;
}

/* Parser state that must not leak from one stream into the next. */
void dfs_worker_begin_stream(worker *w, dfs_stream *st, bool piece)
{
    dfs_pctx *p = &w->pctx;
    p->st = st;
    p->line = 0;
    p->skip_pending = 0;
    dfs_pctx_begin_dups(p, piece);
}

void dfs_task_run(worker *w, task *t)
{
    dfs_run *run = w->pool->run;
    dfs_input *in = &run->inputs.v[t->file];
    prepared *pr = &w->pool->prep[t->file];
    dfs_worker_begin_stream(w, &t->st, dfs_task_in_pieces(t));
    /* the pieces of a file cut between MPI ranks are read by several processes: not checked */
    w->pctx.dups_off = run->share && dfs_task_in_pieces(t);
    int fd = open(in->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        dfs_diag_add(&t->st.diag, DFS_PROB_UNREADABLE, t->file, 0, 0, "cannot open: %s",
                     strerror(errno));
        return;
    }
    source src = {.fd = fd, .pos = 0, .end = in->info.size};
    if (t->kind == TASK_RANGE) {
        dfs_task_range(t, fd, in->info.size);
        src.pos = t->from;
        src.end = t->to;
    } else if (run->opt.preview_bytes && !pr->gzip && src.end > run->opt.preview_bytes) {
        src.end = dfs_line_start_at_or_after(fd, run->opt.preview_bytes, in->info.size);
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
    bool map = !src.gz && !w->pool->unmapped;
    if (!src.gz && w->pool->unmapped && t->chunk == 0)
        note_unmapped(t, src.pos, w->pool->unmapped);
    if (!map || !read_mapped(w, t, &src, &f))
        read_buffered(w, t, &src, &f);
    if (!dfs_task_in_pieces(t)) /* a whole file: its duplicate check, on this worker */
        dfs_dups_judge(&t->st.diag, t->file, (dfs_stream *[]){&t->st}, 1);
    if (src.gz) {
        /* complete members: a cut last member is reported as truncation, not as a member */
        uint32_t begun = dfs_gz_members(src.gz);
        t->st.gzip_members = begun - (begun && dfs_gz_truncated(src.gz) ? 1 : 0);
        dfs_gz_close(src.gz);
    }
    close(fd);
}


