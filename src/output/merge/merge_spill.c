/* merge_spill.c - sorted runs of encoded records, in memory or in temporary files, and their
 * k-way merge with a binary heap.
 *
 * A reading thread fills its buffer until its share of the memory budget is used; the buffer is
 * then sorted (by file, then in the file's own order) and written as one run to the thread's
 * temporary file, one segment per input file. After reading, the segments are merged in the
 * global order. Each segment read from a file needs a read buffer: when there are more of them
 * than half the budget can buffer (the fan-in), intermediate passes merge the oldest ones into
 * a single segment of a new temporary file, first in first out, until the rest fits. Temporary
 * files are unlinked at creation: nothing is left behind, whatever happens. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/merge/merge_internal.h"

struct msrc {
    int fd;
    uint64_t size;   /* bytes written */
    unsigned live;   /* segments that still read from it */
};

#define MIN_READ_BUFFER (4u << 10)
#define MAX_READ_BUFFER (1u << 20)

static size_t read_buffer_size(uint64_t memory)
{
    uint64_t b = memory / 64;
    return (size_t)(b < MIN_READ_BUFFER ? MIN_READ_BUFFER : b > MAX_READ_BUFFER ? MAX_READ_BUFFER : b);
}

static size_t fan_in(uint64_t memory)
{
    uint64_t f = memory / 2 / read_buffer_size(memory);
    return f < 2 ? 2 : (size_t)f;
}

/* ---- keys ------------------------------------------------------------------------------------------ */

static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }
static int cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

static int64_t local_key(uint8_t cls, int64_t ts)
{
    return cls == MCLS_META ? 0 : ts;
}

/* The order inside a thread's buffer: by file, then the file's own order. */
static int cmp_entry(const void *pa, const void *pb)
{
    const mentry *a = pa, *b = pb;
    int c = cmp_u64(a->file, b->file);
    if (!c)
        c = cmp_u64(a->cls, b->cls);
    if (!c)
        c = cmp_i64(local_key(a->cls, a->ts), local_key(b->cls, b->ts));
    return c ? c : cmp_u64(a->offset, b->offset);
}

static int cmp_key(const mkey *a, const mkey *b)
{
    int c = cmp_u64(a->cls, b->cls);
    if (!c)
        c = cmp_i64(a->t, b->t);
    if (!c)
        c = cmp_u64(a->file, b->file);
    return c ? c : cmp_u64(a->offset, b->offset);
}

static mkey key_of(const unsigned char *rec, mabs_fn abs_ts, const void *ctx)
{
    mhdr h;
    memcpy(&h, rec, sizeof h);
    mkey k = {h.cls, 0, h.file, h.offset};
    if (h.cls != MCLS_META)
        k.t = h.ts == INT64_MIN ? INT64_MIN : abs_ts(ctx, h.file, h.ts);
    return k;
}

/* ---- temporary files ---------------------------------------------------------------------------------- */

static void set_error(mstore *s, int e, const char *what)
{
    pthread_mutex_lock(&s->lock);
    if (!s->err) {
        s->err = e ? e : EIO;
        snprintf(s->errmsg, sizeof s->errmsg, "%s in %s: %s", what, s->tmpdir, strerror(s->err));
    }
    pthread_mutex_unlock(&s->lock);
}

static msrc *src_new(mstore *s)
{
    size_t n = strlen(s->tmpdir) + 32;
    char *path = malloc(n);
    msrc *src = calloc(1, sizeof *src);
    if (!path || !src) {
        free(path);
        free(src);
        set_error(s, ENOMEM, "cannot create a temporary file");
        return NULL;
    }
    snprintf(path, n, "%s/dfscope-merge-XXXXXX", s->tmpdir);
    src->fd = mkostemp(path, O_CLOEXEC);
    if (src->fd < 0) {
        set_error(s, errno, "cannot create a temporary file");
        free(path);
        free(src);
        return NULL;
    }
    unlink(path);
    free(path);
    pthread_mutex_lock(&s->lock);
    bool ok = dfs_vec_push(&s->srcs, src);
    pthread_mutex_unlock(&s->lock);
    if (!ok) {
        close(src->fd);
        free(src);
        set_error(s, ENOMEM, "cannot create a temporary file");
        return NULL;
    }
    return src;
}

static void src_release(msrc *src)
{
    if (src && --src->live == 0 && src->fd >= 0) {
        close(src->fd);
        src->fd = -1;
    }
}

static bool write_at(int fd, const unsigned char *p, size_t n, uint64_t at, int *err)
{
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, (off_t)at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            *err = w < 0 ? errno : ENOSPC;
            return false;
        }
        p += w;
        n -= (size_t)w;
        at += (uint64_t)w;
    }
    return true;
}

/* Appends to a source through a buffer. */
typedef struct mtw {
    msrc *src;
    unsigned char *buf;
    size_t n, cap;
    int err;
} mtw;

static bool tw_flush(mtw *w)
{
    if (w->n && !w->err && write_at(w->src->fd, w->buf, w->n, w->src->size, &w->err))
        w->src->size += w->n;
    w->n = 0;
    return !w->err;
}

static bool tw_put(mtw *w, const unsigned char *p, size_t n)
{
    if (w->n + n > w->cap && !tw_flush(w))
        return false;
    if (n > w->cap) {
        if (write_at(w->src->fd, p, n, w->src->size, &w->err))
            w->src->size += n;
        return !w->err;
    }
    memcpy(w->buf + w->n, p, n);
    w->n += n;
    return true;
}

static bool add_segment(mstore *s, msrc *src, uint64_t off, uint64_t len, const mentry *recs,
                        size_t nrecs)
{
    mseg seg = {src, off, len, recs, nrecs};
    if (src)
        src->live++;
    return dfs_vec_push(&s->segs, seg);
}

/* ---- reading threads' buffers --------------------------------------------------------------------- */

void mbuf_init(mbuf *b, size_t block)
{
    memset(b, 0, sizeof *b);
    dfs_arena_init(&b->arena, block);
}

void mbuf_free(mbuf *b)
{
    dfs_arena_free(&b->arena);
    dfs_vec_free(&b->idx);
}

unsigned char *mbuf_add(mbuf *b, const mhdr *h)
{
    unsigned char *rec = dfs_arena_alloc(&b->arena, h->size);
    mentry e = {h->ts, h->offset, h->file, h->cls, rec};
    if (!rec || !dfs_vec_push(&b->idx, e))
        return NULL;
    memcpy(rec, h, sizeof *h);
    b->bytes += h->size + sizeof e;
    return rec;
}

/* One segment per file of the sorted buffer: [i, j) of the same file. */
static size_t file_end(const mbuf *b, size_t i)
{
    size_t j = i;
    while (j < b->idx.n && b->idx.v[j].file == b->idx.v[i].file)
        j++;
    return j;
}

/* Writes the entries [i, j) (one input file) as one segment of the thread's file. */
static bool spill_segment(mstore *s, mbuf *b, mtw *w, size_t i, size_t j)
{
    uint64_t start = b->spill->size; /* the buffer is empty between segments */
    bool ok = true;
    for (size_t k = i; ok && k < j; k++) {
        uint32_t size;
        memcpy(&size, b->idx.v[k].rec, sizeof size);
        ok = tw_put(w, b->idx.v[k].rec, size);
    }
    ok = ok && tw_flush(w);
    pthread_mutex_lock(&s->lock);
    ok = ok && add_segment(s, b->spill, start, b->spill->size - start, NULL, 0);
    if (ok)
        s->bytes_spilled += b->spill->size - start;
    pthread_mutex_unlock(&s->lock);
    return ok;
}

bool mstore_spill(mstore *s, mbuf *b)
{
    if (b->idx.n == 0)
        return true;
    qsort(b->idx.v, b->idx.n, sizeof *b->idx.v, cmp_entry);
    atomic_store(&s->spilled, true);
    if (!b->spill && !(b->spill = src_new(s)))
        return false;
    unsigned char buf[64 << 10];
    mtw w = {b->spill, buf, 0, sizeof buf, 0};
    pthread_mutex_lock(&s->lock);
    b->spill->live++; /* the thread's own hold while it writes */
    pthread_mutex_unlock(&s->lock);
    bool ok = true;
    for (size_t i = 0; ok && i < b->idx.n;) {
        size_t j = file_end(b, i);
        ok = spill_segment(s, b, &w, i, j);
        i = j;
    }
    pthread_mutex_lock(&s->lock);
    s->runs_spilled++;
    src_release(b->spill);
    pthread_mutex_unlock(&s->lock);
    if (!ok)
        set_error(s, w.err ? w.err : ENOMEM, "cannot write a temporary file");
    dfs_arena_reset(&b->arena);
    b->idx.n = 0;
    b->bytes = 0;
    return ok;
}

bool mstore_take(mstore *s, mbuf *b)
{
    if (atomic_load(&s->spilled))
        return mstore_spill(s, b);
    if (b->idx.n == 0)
        return true;
    qsort(b->idx.v, b->idx.n, sizeof *b->idx.v, cmp_entry);
    mkeep k = {b->arena, b->idx.v};
    if (!dfs_vec_push(&s->kept, k))
        return false;
    for (size_t i = 0; i < b->idx.n;) {
        size_t j = file_end(b, i);
        if (!add_segment(s, NULL, 0, 0, b->idx.v + i, j - i))
            return false;
        i = j;
    }
    /* the arena and the index now belong to the store */
    dfs_arena_init(&b->arena, b->arena.block_size);
    memset(&b->idx, 0, sizeof b->idx);
    b->bytes = 0;
    return true;
}

bool mstore_init(mstore *s, uint64_t memory, const char *tmpdir)
{
    memset(s, 0, sizeof *s);
    s->memory = memory;
    s->tmpdir = strdup(tmpdir);
    atomic_init(&s->spilled, false);
    pthread_mutex_init(&s->lock, NULL);
    return s->tmpdir != NULL;
}

void mstore_free(mstore *s)
{
    dfs_vec_free(&s->segs);
    for (size_t i = 0; i < s->srcs.n; i++) {
        if (s->srcs.v[i]->fd >= 0)
            close(s->srcs.v[i]->fd);
        free(s->srcs.v[i]);
    }
    dfs_vec_free(&s->srcs);
    for (size_t i = 0; i < s->kept.n; i++) {
        dfs_arena_free(&s->kept.v[i].arena);
        free(s->kept.v[i].idx);
    }
    dfs_vec_free(&s->kept);
    free(s->tmpdir);
    pthread_mutex_destroy(&s->lock);
}

/* ---- merging -------------------------------------------------------------------------------------- */

typedef struct mcur {
    mseg s;
    size_t i;                 /* in memory: the next entry */
    uint64_t pos;             /* in a file: bytes of the segment already read into buf */
    unsigned char *buf;
    size_t cap, at, have;     /* buffered bytes [at, have) */
    const unsigned char *rec; /* the current record ... */
    size_t size;              /* ... and its size (consumed when moving on) */
    mkey key;
} mcur;

/* At least `need` bytes buffered from at; false at the end of the segment or on a read error
 * (*err set). */
static bool cur_fill(mcur *c, size_t need, int *err)
{
    if (c->have - c->at >= need)
        return true;
    size_t avail = c->have - c->at;
    memmove(c->buf, c->buf + c->at, avail);
    c->have = avail;
    c->at = 0;
    if (need > c->cap) { /* a record longer than the read buffer */
        unsigned char *nb = realloc(c->buf, need);
        if (!nb) {
            *err = ENOMEM;
            return false;
        }
        c->buf = nb;
        c->cap = need;
    }
    while (c->have < need && c->pos < c->s.len) {
        size_t want = c->cap - c->have;
        if (want > c->s.len - c->pos)
            want = (size_t)(c->s.len - c->pos);
        ssize_t r = pread(c->s.src->fd, c->buf + c->have, want, (off_t)(c->s.off + c->pos));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            *err = r < 0 ? errno : EIO;
            return false;
        }
        c->have += (size_t)r;
        c->pos += (uint64_t)r;
    }
    return c->have >= need;
}

/* Moves to the next record: false at the end, or on an error (*err set). */
static bool cur_next(mcur *c, mabs_fn abs_ts, const void *ctx, int *err)
{
    if (!c->s.src) {
        if (c->i >= c->s.nrecs)
            return false;
        c->rec = c->s.recs[c->i++].rec;
        uint32_t size;
        memcpy(&size, c->rec, sizeof size);
        c->size = size;
    } else {
        c->at += c->size;
        c->size = 0;
        if (c->at == c->have && c->pos >= c->s.len)
            return false;
        uint32_t size;
        if (!cur_fill(c, sizeof(mhdr), err))
            goto damaged;
        memcpy(&size, c->buf + c->at, sizeof size);
        if (size < sizeof(mhdr) || !cur_fill(c, size, err))
            goto damaged;
        c->rec = c->buf + c->at;
        c->size = size;
    }
    c->key = key_of(c->rec, abs_ts, ctx);
    return true;
damaged:
    if (!*err)
        *err = EIO; /* a run that ends inside a record: the temporary file was cut */
    return false;
}

static bool cur_less(const mcur *a, const mcur *b)
{
    return cmp_key(&a->key, &b->key) < 0;
}

static void sift_down(mcur **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && cur_less(h[l], h[m]))
            m = l;
        if (r < n && cur_less(h[r], h[m]))
            m = r;
        if (m == i)
            return;
        mcur *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Merges the cursors (each positioned before its first record) into emit. */
static int merge_cursors(mcur *cs, size_t n, mabs_fn abs_ts, const void *ctx,
                         int (*emit)(void *, const unsigned char *, size_t), void *ectx, int *err)
{
    mcur **h = malloc((n ? n : 1) * sizeof *h);
    if (!h) {
        *err = ENOMEM;
        return -1;
    }
    size_t nh = 0;
    for (size_t i = 0; i < n; i++) {
        if (cur_next(&cs[i], abs_ts, ctx, err))
            h[nh++] = &cs[i];
        else if (*err)
            break;
    }
    int rc = *err ? -1 : 0;
    for (size_t i = nh / 2; !rc && i-- > 0;)
        sift_down(h, nh, i);
    while (!rc && nh > 0) {
        mcur *top = h[0];
        rc = emit(ectx, top->rec, top->size);
        if (rc)
            break;
        if (!cur_next(top, abs_ts, ctx, err)) {
            if (*err) {
                rc = -1;
                break;
            }
            h[0] = h[--nh];
        }
        sift_down(h, nh, 0);
    }
    free(h);
    return rc;
}

static bool cursors_open(mcur *cs, const mseg *segs, size_t n, size_t bufsize)
{
    for (size_t i = 0; i < n; i++) {
        memset(&cs[i], 0, sizeof cs[i]);
        cs[i].s = segs[i];
        if (segs[i].src) {
            cs[i].buf = malloc(bufsize);
            cs[i].cap = bufsize;
            if (!cs[i].buf)
                return false;
        }
    }
    return true;
}

static void cursors_close(mcur *cs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(cs[i].buf);
}

static int emit_to_file(void *ectx, const unsigned char *rec, size_t size)
{
    return tw_put(ectx, rec, size) ? 0 : -1;
}

static size_t file_segments(const mstore *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->segs.n; i++)
        n += s->segs.v[i].src != NULL;
    return n;
}

/* Merges the first `fan` file segments into one segment of a new temporary file. */
static bool merge_pass(mstore *s, size_t fan, size_t bufsize, mabs_fn abs_ts, const void *ctx)
{
    mseg *pick = malloc(fan * sizeof *pick);
    mcur *cs = calloc(fan, sizeof *cs);
    unsigned char *wbuf = malloc(bufsize);
    msrc *out = pick && cs && wbuf ? src_new(s) : NULL;
    bool ok = out != NULL;
    size_t k = 0, keep = 0;
    for (size_t i = 0; ok && i < s->segs.n; i++) {
        if (s->segs.v[i].src && k < fan)
            pick[k++] = s->segs.v[i];
        else
            s->segs.v[keep++] = s->segs.v[i];
    }
    if (ok)
        s->segs.n = keep;
    int err = 0;
    mtw w = {out, wbuf, 0, bufsize, 0};
    ok = ok && cursors_open(cs, pick, k, bufsize) &&
         merge_cursors(cs, k, abs_ts, ctx, emit_to_file, &w, &err) == 0 && tw_flush(&w) &&
         add_segment(s, out, 0, out->size, NULL, 0);
    if (!ok && !s->err)
        set_error(s, err ? err : w.err ? w.err : ENOMEM, "cannot merge temporary files");
    cursors_close(cs, k);
    for (size_t i = 0; i < k; i++)
        src_release(pick[i].src);
    s->passes++;
    free(pick);
    free(cs);
    free(wbuf);
    return ok;
}

int mstore_merge(mstore *s, mabs_fn abs_ts, const void *ctx,
                 int (*emit)(void *ectx, const unsigned char *rec, size_t size), void *ectx)
{
    if (s->err)
        return -1;
    size_t fan = fan_in(s->memory), bufsize = read_buffer_size(s->memory);
    while (file_segments(s) > fan)
        if (!merge_pass(s, fan, bufsize, abs_ts, ctx))
            return -1;
    size_t n = s->segs.n;
    mcur *cs = calloc(n ? n : 1, sizeof *cs);
    int err = 0, rc = -1;
    if (cs && cursors_open(cs, s->segs.v, n, bufsize))
        rc = merge_cursors(cs, n, abs_ts, ctx, emit, ectx, &err);
    else
        err = ENOMEM;
    if (rc < 0 && err)
        set_error(s, err, "cannot read a temporary file");
    if (cs)
        cursors_close(cs, n);
    free(cs);
    return rc;
}
