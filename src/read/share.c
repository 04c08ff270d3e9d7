/* share.c - reading as one rank of a distributed run (run.h, docs/MPI.md): the pieces a rank
 * reads, and folding every rank's pieces, in file and piece order, into the file table exactly as
 * one process reading everything would. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse/framer.h"
#include "read/gzip.h"
#include "read/pipeline.h"
#include "read/run.h"
#include "read/sniff.h"

enum { SNIFF_BYTES = 64 * 1024, MAX_GZ_SEGMENTS = 4096 /* as pipeline.h's MAX_SEGMENTS */ };

/* The first SNIFF_BYTES of a gzipped input, inflated. */
static dfs_sniffed sniff_gzip(int fd, uint64_t size, unsigned char *head)
{
    dfs_gzreader *gz = dfs_gz_open(fd, size, 0, UINT64_MAX, NULL, 0);
    size_t have = 0;
    ssize_t got = 1;
    while (gz && have < SNIFF_BYTES && (got = dfs_gz_read(gz, (char *)head + have, SNIFF_BYTES - have)) > 0)
        have += (size_t)got;
    dfs_gz_close(gz);
    return dfs_sniff(head, have, got == 0);
}

dfs_cut dfs_input_cut(const char *path, uint64_t size, uint64_t gzip_segment_bytes)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return DFS_CUT_NONE;
    unsigned char *head = malloc(SNIFF_BYTES);
    ssize_t n = head ? pread(fd, head, SNIFF_BYTES, 0) : -1;
    dfs_cut cut = DFS_CUT_NONE;
    if (n > 0 && !dfs_gz_magic(head, (size_t)n)) {
        dfs_sniffed s = dfs_sniff(head, (size_t)n, (uint64_t)n >= size);
        /* as the pipeline decides (pipeline.c, line_oriented_plain) */
        if (s.format == DFS_FMT_JSON_LINES || s.format == DFS_FMT_DASF_TEXT ||
            (s.format == DFS_FMT_JSON_ARRAY && !s.structural))
            cut = DFS_CUT_PLAIN;
    } else if (n > 0 && gzip_segment_bytes && size > gzip_segment_bytes &&
               size / gzip_segment_bytes + 1 <= MAX_GZ_SEGMENTS) {
        dfs_sniffed s = sniff_gzip(fd, size, head);
        /* as prepare.c decides to read it in segments */
        if (s.format != DFS_FMT_NOT_A_TRACE && s.format != DFS_FMT_UNKNOWN && s.format != DFS_FMT_DASF &&
            !s.structural)
            cut = DFS_CUT_GZIP;
    }
    close(fd);
    free(head);
    return cut;
}

void dfs_piece_result_free(dfs_piece_result *r)
{
    for (size_t s = 0; s < r->streams.n; s++) {
        dfs_stream_free(r->streams.v[s]);
        free(r->streams.v[s]);
    }
    dfs_vec_free(&r->streams);
}

static int compare_pieces(const void *pa, const void *pb)
{
    const dfs_piece *a = pa, *b = pb;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

bool dfs_run_set_share(dfs_run *run, const dfs_piece *pieces, size_t n, const dfs_share_hooks *hooks)
{
    dfs_piece *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!copy)
        return false;
    if (n)
        memcpy(copy, pieces, n * sizeof *copy);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) /* pieces of files the run does not have are not read */
        if (copy[i].file < run->inputs.n && copy[i].count > 0 && copy[i].index < copy[i].count)
            copy[kept++] = copy[i];
    if (kept)
        qsort(copy, kept, sizeof *copy, compare_pieces);
    free(run->share);
    run->share = copy;
    run->nshare = kept;
    if (hooks)
        run->hooks = *hooks;
    return true;
}

static int compare_results(const void *pa, const void *pb)
{
    const dfs_piece_result *a = pa, *b = pb;
    return compare_pieces(&a->piece, &b->piece);
}

/* The facts of an input from its pieces: the first piece's, unreadable when any piece was. */
static void take_facts(dfs_input *in, const dfs_piece_result *first, const dfs_piece_result *end)
{
    in->info.size = first->size;
    in->info.format = first->format;
    in->info.dialect = first->dialect;
    in->info.gzip = first->gzip;
    in->info.unreadable = false;
    in->info.error = NULL;
    for (const dfs_piece_result *r = first; r < end; r++)
        if (r->unreadable && !in->info.unreadable) {
            in->info.unreadable = true;
            in->info.error = r->error ? r->error : "cannot open";
        }
}

/* Every piece of the input, once each, from 0 to count - 1. */
static bool complete(const dfs_piece_result *first, const dfs_piece_result *end)
{
    uint32_t count = first->piece.count;
    if ((size_t)(end - first) != count)
        return false;
    for (uint32_t k = 0; k < count; k++)
        if (first[k].piece.index != k || first[k].piece.count != count)
            return false;
    return true;
}

int dfs_run_fold_results(dfs_run *run)
{
    dfs_piece_result *r = run->results.v, *end = r + run->results.n;
    if (run->results.n)
        qsort(r, run->results.n, sizeof *r, compare_results);
    bool missing = false;
    DFS_VEC(dfs_stream *) ordered = {0};
    for (uint32_t i = 0; i < run->inputs.n; i++) {
        dfs_piece_result *first = r;
        while (r < end && r->piece.file == i)
            r++;
        if (first == r || !complete(first, r)) {
            missing = true;
            continue;
        }
        dfs_input *in = &run->inputs.v[i];
        take_facts(in, first, r);
        ordered.n = 0;
        bool read = false;
        for (dfs_piece_result *p = first; p < r; p++)
            for (size_t s = 0; s < p->streams.n; s++) {
                missing |= !dfs_vec_push(&ordered, p->streams.v[s]);
                read = true;
            }
        dfs_run_conclude_input(run, i, first->why, ordered.v, ordered.n, read);
    }
    dfs_vec_free(&ordered);
    run->read_done = true;
    return dfs_run_verdict(run, missing || r != end);
}

/* ---- gzipped inputs cut between ranks ------------------------------------------------------------
 * One process reads a multi-member gzipped input in segments that start at the first member at or
 * after each multiple of the gzip segment size T (prepare.c, gzip.h). The ranks' pieces of such
 * an input are multiples of T, so each rank finds, for the multiples in its pieces, the same
 * member starts, and reads the same segments. Segment offsets (start << 24 after the first) and
 * line numbers are then the ones one process reports. The line cut by the end of a segment is
 * parsed by the rank of that segment, which reads the next segment's head itself. */

bool dfs_share_cuts(const dfs_run *run, uint32_t file)
{
    size_t lo = 0, hi = run->nshare;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (run->share[mid].file < file)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < run->nshare && run->share[lo].file == file && run->share[lo].count > 1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The positions whose member start a piece needs: its ends and the multiples of T inside. */
typedef DFS_VEC(uint64_t) pos_vec;

static bool piece_positions(const dfs_piece *p, uint64_t size, uint64_t seg, pos_vec *out)
{
    uint64_t end = p->stop < size ? p->stop : size;
    if (p->start && p->start < size && !dfs_vec_push(out, p->start))
        return false;
    for (uint64_t pos = (p->start / seg + 1) * seg; pos < end; pos += seg)
        if (!dfs_vec_push(out, pos))
            return false;
    return p->stop >= size || dfs_vec_push(out, p->stop);
}

void dfs_share_gz_marks(pool *pl, prepared *pr, int fd, uint32_t i)
{
    const dfs_run *run = pl->run;
    uint64_t size = run->inputs.v[i].info.size, seg = run->opt.gzip_segment_bytes;
    pos_vec pos = {0};
    bool ok = true;
    for (size_t k = 0; ok && k < run->nshare; k++)
        if (run->share[k].file == i)
            ok = piece_positions(&run->share[k], size, seg, &pos);
    if (ok && pos.n)
        qsort(pos.v, pos.n, sizeof *pos.v, cmp_u64);
    size_t n = 0;
    for (size_t k = 0; ok && k < pos.n; k++)
        if (!n || pos.v[n - 1] != pos.v[k])
            pos.v[n++] = pos.v[k];
    pr->marks = ok ? malloc((2 * n + 2) * sizeof *pr->marks) : NULL;
    for (size_t k = 0; pr->marks && k < n; k++) {
        uint64_t m = dfs_gz_member_at_or_after(fd, size, pos.v[k]);
        if (m == UINT64_MAX) {
            ok = false;
            break;
        }
        pr->marks[2 * k] = pos.v[k];
        pr->marks[2 * k + 1] = m;
        pr->nmarks = k + 1;
    }
    if (!ok || !pr->marks) {
        atomic_store(&pl->failed_alloc, 1);
        free(pr->marks);
        pr->marks = NULL;
        pr->nmarks = 0;
    } else if (!n) {
        pr->marks[0] = pr->marks[1] = 0; /* a share with no position to look up still plans */
        pr->nmarks = 1;
    }
    dfs_vec_free(&pos);
}

/* The member start looked up for `pos` (0 at 0, the size at or past it). */
static uint64_t mark_at(const prepared *pr, uint64_t pos, uint64_t size)
{
    if (pos == 0 || pos >= size)
        return pos == 0 ? 0 : size;
    size_t lo = 0, hi = pr->nmarks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pr->marks[2 * mid] < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < pr->nmarks && pr->marks[2 * lo] == pos ? pr->marks[2 * lo + 1] : size;
}

enum { LAST_CHUNK = UINT32_MAX - 1, NO_CHUNKS = UINT32_MAX };

static bool add_segment(pool *pl, const dfs_piece *p, uint64_t a, uint64_t b, uint64_t size, task_vec *tasks)
{
    uint64_t seg = pl->run->opt.gzip_segment_bytes;
    task t = {.file = p->file, .kind = TASK_GZ_SEGMENT, .start = a, .stop = b >= size ? UINT64_MAX : b,
              .nchunks = NO_CHUNKS};
    /* chunk only tells the first segment (0: no head to keep) and the last (no tail) */
    t.chunk = b >= size ? LAST_CHUNK : a == 0 ? 0 : (uint32_t)(a / seg + 1);
    if (a == 0 && b >= size) { /* one segment: the whole input, as one process reads it */
        t.kind = TASK_WHOLE;
        t.chunk = 0;
        t.nchunks = 1;
        t.stop = 0;
    }
    dfs_stream_init(&t.st, t.file, t.chunk, pl->run->opt.max_examples);
    return dfs_vec_push(tasks, t);
}

bool dfs_share_gz_plan(pool *pl, const dfs_piece *p, task_vec *tasks)
{
    const prepared *pr = &pl->prep[p->file];
    uint64_t size = pl->run->inputs.v[p->file].info.size, seg = pl->run->opt.gzip_segment_bytes;
    uint64_t start = p->index == 0 ? 0 : mark_at(pr, p->start, size);
    uint64_t stop = p->stop >= size ? size : mark_at(pr, p->stop, size);
    uint64_t a = start;
    for (uint64_t pos = (p->start / seg + 1) * seg; a < stop && pos < p->stop && pos < size; pos += seg) {
        uint64_t m = mark_at(pr, pos, size);
        if (m > a && m < stop) {
            if (!add_segment(pl, p, a, m, size, tasks))
                return false;
            a = m;
        }
    }
    return a >= stop || add_segment(pl, p, a, stop, size, tasks);
}

/* The first line of the segment starting at `from` (up to max_record bytes), read here. */
static char *next_head(pool *pl, int fd, uint64_t size, uint64_t from, size_t *len)
{
    uint64_t seg = pl->run->opt.gzip_segment_bytes, limit = pl->run->opt.max_record;
    uint64_t next = dfs_gz_member_at_or_after(fd, size, (from / seg + 1) * seg);
    dfs_gzreader *gz = dfs_gz_open(fd, size, from, next >= size ? UINT64_MAX : next, NULL, 0);
    char *buf = NULL;
    size_t have = 0, cap = 0;
    bool newline = false;
    while (gz && !newline && have < limit) {
        if (have == cap) {
            char *nb = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (!nb)
                break;
            buf = nb;
        }
        ssize_t n = dfs_gz_read(gz, buf + have, cap - have);
        if (n <= 0)
            break;
        newline = memchr(buf + have, '\n', (size_t)n) != NULL;
        have += (size_t)n;
    }
    dfs_gz_close(gz);
    const char *nl = have ? memchr(buf, '\n', have) : NULL;
    size_t n = nl ? (size_t)(nl - buf) + 1 : have;
    *len = n < limit ? n : (size_t)limit;
    return buf;
}

dfs_stream *dfs_share_gz_junction(pool *pl, worker *w, const task *t)
{
    if (t->kind != TASK_GZ_SEGMENT || t->chunk + 1 >= t->nchunks || !t->tail)
        return NULL;
    const dfs_input *in = &pl->run->inputs.v[t->file];
    int fd = open(in->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL; /* the segment's own read reported it */
    size_t head_len = 0;
    char *head = next_head(pl, fd, in->info.size, t->stop, &head_len);
    close(fd);
    dfs_stream *st = malloc(sizeof *st);
    char *joined = malloc(t->tail_len + head_len + 1);
    if (!st || !joined) {
        atomic_store(&pl->failed_alloc, 1);
        free(st);
        free(joined);
        free(head);
        return NULL;
    }
    dfs_stream_init(st, t->file, t->chunk, pl->run->opt.max_examples);
    memcpy(joined, t->tail, t->tail_len);
    if (head_len)
        memcpy(joined + t->tail_len, head, head_len);
    size_t len = t->tail_len + head_len;
    if (len) { /* as pipeline.c's read_junctions */
        dfs_framer fr;
        dfs_framer_init(&fr, pl->prep[t->file].sniff.format, false);
        dfs_worker_begin_stream(w, st, true);
        w->pctx.dups_off = true; /* a file cut between ranks is not checked for duplicates */
        dfs_framer_feed(&fr, &w->pctx, joined, len, t->tail_offset, DFS_FEED_FINAL);
        dfs_worker_deliver(w, t->file, true);
    }
    free(joined);
    free(head);
    return st;
}
