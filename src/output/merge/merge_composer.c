/* merge_composer.c - `dfscope merge --compat composer`: the output of Composer's merge_traces
 * (spec training-loop.md section 2.5), byte for byte.
 *
 * Composer loads each file with Python's json module and writes every record again with
 * json.dump, so each record is written from its original text, re-serialised the same way
 * (merge_python.c), with only "ts" and "pid" replaced. Ranks and clocks come from the first reading pass (the merge
 * consumer), the records from a second, sequential pass over each file in argument order.
 *
 * Where Composer fails (a file without global_rank or clock_sync_timestamp_us, an event without
 * a name, damaged JSON), this mode keeps going the way the default mode does, and says so. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/merge/merge_internal.h"
#include "parse/framer.h"
#include "parse/json.h"
#include "read/gzip.h"
#include "read/sniff.h"
#include "util/hash.h"
#include "util/strtab.h"
#include "util/u64map.h"

/* ---- reading a file record by record, with each record's text ------------------------------------ */

typedef int (*rec_fn)(void *ctx, const char *rec, const char *end);

typedef struct seqread {
    dfs_strtab *table;
    dfs_strcache *strs;
    dfs_batchbuf batch;
    dfs_options opt;
    dfs_want_set want;
    dfs_pctx p;
    dfs_stream st;
    dfs_framer fr;
    int fd;
    dfs_gzreader *gz;
    char *buf;
    size_t have, cap;
    uint64_t offset;       /* stream offset of buf[0] */
    uint64_t skipped;      /* records whose text is not strict JSON */
} seqread;

static bool seq_open(seqread *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (r->fd < 0 || fstat(r->fd, &st) != 0)
        return false;
    unsigned char magic[2];
    if (pread(r->fd, magic, 2, 0) == 2 && dfs_gz_magic(magic, 2)) {
        r->gz = dfs_gz_open(r->fd, (uint64_t)st.st_size, 0, UINT64_MAX, NULL, 0);
        if (!r->gz)
            return false;
    }
    r->table = dfs_strtab_new();
    r->strs = r->table ? dfs_strcache_new(r->table) : NULL;
    dfs_batchbuf_init(&r->batch);
    dfs_options_init(&r->opt);
    dfs_pctx_init(&r->p, r->table, r->strs, &r->want, &r->opt, &r->batch);
    dfs_stream_init(&r->st, 0, 0, 0);
    r->p.st = &r->st;
    return r->strs != NULL;
}

static void seq_close(seqread *r)
{
    if (r->table) {
        dfs_stream_free(&r->st);
        dfs_pctx_free(&r->p);
        dfs_batchbuf_free(&r->batch);
        dfs_strcache_free(r->strs);
        dfs_strtab_free(r->table);
    }
    if (r->gz)
        dfs_gz_close(r->gz);
    if (r->fd >= 0)
        close(r->fd);
    free(r->buf);
}

/* Appends up to `want` bytes; returns the count (0 at the end), -1 on an error. */
static ssize_t seq_more(seqread *r, size_t want)
{
    if (r->have + want > r->cap) {
        size_t cap = r->cap ? r->cap : want;
        while (cap < r->have + want)
            cap *= 2;
        char *nb = realloc(r->buf, cap);
        if (!nb)
            return -1;
        r->buf = nb;
        r->cap = cap;
    }
    ssize_t n;
    if (r->gz) {
        n = dfs_gz_read(r->gz, r->buf + r->have, want);
    } else {
        do
            n = read(r->fd, r->buf + r->have, want);
        while (n < 0 && errno == EINTR);
    }
    if (n > 0)
        r->have += (size_t)n;
    return n;
}

static int seq_deliver(seqread *r, rec_fn fn, void *ctx)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < r->batch.events.n; i++) {
        uint64_t off = r->batch.events.v[i].offset;
        if (off < r->offset || off - r->offset >= r->have)
            continue;
        const char *rec = r->buf + (off - r->offset), *end = r->buf + r->have;
        unsigned flags = 0;
        const char *e = dfs_json_skip(rec, end, false, &flags);
        if (e)
            rc = fn(ctx, rec, e);
        else
            r->skipped++;
    }
    dfs_batchbuf_clear(&r->batch);
    return rc;
}

enum { SEQ_BLOCK = 1 << 20, SEQ_HEAD = 64 * 1024 };

/* Calls fn for every record of the file, in file order. Returns fn's first non-zero result, or
 * -1 when the file cannot be read. Files that are not JSON traces have no records here. */
static int seq_read(const char *path, rec_fn fn, void *ctx, uint64_t *skipped)
{
    seqread r;
    bool ok = seq_open(&r, path);
    ssize_t n = 1;
    while (ok && r.have < SEQ_HEAD && n > 0)
        ok = (n = seq_more(&r, SEQ_HEAD)) >= 0;
    dfs_sniffed sn = ok ? dfs_sniff((const unsigned char *)r.buf, r.have, n == 0) : (dfs_sniffed){0};
    bool json = sn.format == DFS_FMT_JSON_LINES || sn.format == DFS_FMT_JSON_ARRAY ||
                sn.format == DFS_FMT_JSON_OBJECT;
    int rc = ok ? 0 : -1;
    if (ok && json) {
        dfs_framer_init(&r.fr, sn.format, sn.structural);
        for (bool final = false; !rc && !final;) {
            n = seq_more(&r, SEQ_BLOCK);
            final = n <= 0;
            int flags = final ? DFS_FEED_FINAL : (r.have >= r.opt.max_record ? DFS_FEED_FULL : 0);
            size_t used = dfs_framer_feed(&r.fr, &r.p, r.buf, r.have, r.offset, flags);
            if (final)
                dfs_framer_finish(&r.fr, &r.p);
            rc = seq_deliver(&r, fn, ctx);
            if (final)
                break;
            used = used > r.have ? r.have : used;
            memmove(r.buf, r.buf + used, r.have - used);
            r.have -= used;
            r.offset += used;
        }
        rc = rc ? rc : n < 0 ? -1 : 0;
    }
    *skipped += r.skipped;
    seq_close(&r);
    return rc;
}

/* ---- the merge ---------------------------------------------------------------------------------- */

typedef struct cthread {       /* one (rank, thread) already given its 99999 marker */
    int64_t rank;
    char *tid;                 /* canonical text */
    uint32_t next;
} cthread;

typedef struct cback {         /* rank -> the thread of its last MulBackward0 */
    int64_t rank;
    char *tid;                 /* the tid as json.dump writes it */
} cback;

typedef struct cfile {
    bool has_rank, has_clock;
    int64_t rank, clock;
} cfile;

typedef struct cmerge {
    const dfs_run *run;
    FILE *out;
    dfs_merge_report *rep;
    cfile *files;
    uint32_t file;             /* the file being written */
    int64_t diff_us;
    bool first;
    dfs_u64map heads;          /* hash of (rank, tid) -> first cthread of its chain */
    DFS_VEC(cthread) threads;
    DFS_VEC(cback) backs;
    dfs_bytebuf rec, tmp;
    bool oom;
} cmerge;

static void put_record(cmerge *c, const char *text, size_t n, bool comma_always)
{
    if (!c->first || comma_always)
        fputc(',', c->out);
    fputs("\n    ", c->out);
    fwrite(text, 1, n, c->out);
    c->first = false;
}

static void put_marker(cmerge *c, int64_t rank, const char *tid, int sort_index, bool comma_always)
{
    char head[96];
    snprintf(head, sizeof head, "{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": %lld, \"tid\": ",
             (long long)rank);
    c->tmp.n = 0;
    dfs_bytebuf_puts(&c->tmp, head);
    dfs_bytebuf_puts(&c->tmp, tid);
    snprintf(head, sizeof head, ", \"args\": {\"sort_index\": %d}}", sort_index);
    dfs_bytebuf_puts(&c->tmp, head);
    c->oom |= c->tmp.oom;
    if (!c->tmp.oom)
        put_record(c, c->tmp.v, c->tmp.n, comma_always);
}

/* Python's set equality of tids: 7 == 7.0 == True; "7" is another thread. */
static void canonical_tid(const char *text, char *buf, size_t cap)
{
    if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
        snprintf(buf, cap, "%d", text[0] == 't');
        return;
    }
    char *end;
    double d = strtod(text, &end);
    bool number = text[0] == '-' || (text[0] >= '0' && text[0] <= '9');
    if (number && *end == '\0' && strpbrk(text, ".eE") && isfinite(d) && d == floor(d) &&
        fabs(d) < 9.2e18) {
        snprintf(buf, cap, "%lld", (long long)d);
        return;
    }
    snprintf(buf, cap, "%s", text);
}

/* True the first time (rank, tid) is seen. */
static bool new_thread(cmerge *c, int64_t rank, const char *tid_text)
{
    size_t n = strlen(tid_text) + 32;
    char *canon = malloc(n);
    if (!canon) {
        c->oom = true;
        return false;
    }
    canonical_tid(tid_text, canon, n);
    uint64_t h = dfs_hash64(canon, strlen(canon)) ^ dfs_mix64((uint64_t)rank);
    uint32_t head = UINT32_MAX;
    dfs_u64map_get(&c->heads, h, &head);
    for (uint32_t i = head; i != UINT32_MAX; i = c->threads.v[i].next) {
        if (c->threads.v[i].rank == rank && strcmp(c->threads.v[i].tid, canon) == 0) {
            free(canon);
            return false;
        }
    }
    cthread t = {rank, canon, head};
    if (!dfs_vec_push(&c->threads, t) || !dfs_u64map_put(&c->heads, h, (uint32_t)(c->threads.n - 1))) {
        free(canon);
        c->oom = true;
        return false;
    }
    return true;
}

static void set_backward(cmerge *c, int64_t rank, const char *tid_text)
{
    char *t = strdup(tid_text);
    if (!t) {
        c->oom = true;
        return;
    }
    for (size_t i = 0; i < c->backs.n; i++) {
        if (c->backs.v[i].rank == rank) {
            free(c->backs.v[i].tid);
            c->backs.v[i].tid = t;
            return;
        }
    }
    cback b = {rank, t};
    if (!dfs_vec_push(&c->backs, b)) {
        free(t);
        c->oom = true;
    }
}

/* The top-level members of a record: where its pid, tid and name are. */
typedef struct rec_view {
    const char *pid, *pid_end, *tid, *tid_end, *name, *name_end;
} rec_view;

static bool view_record(const char *rec, const char *end, rec_view *v)
{
    pymembers ms = {0};
    dfs_bytebuf keys = {0};
    memset(v, 0, sizeof *v);
    bool ok = mpy_members(rec, end, &ms, &keys) != NULL && !keys.oom;
    for (size_t i = 0; ok && i < ms.n; i++) { /* the last of repeated keys wins */
        const pymember *m = &ms.v[i];
        if (mpy_key_is(&keys, m, "pid"))
            v->pid = m->v, v->pid_end = m->vend;
        else if (mpy_key_is(&keys, m, "tid"))
            v->tid = m->v, v->tid_end = m->vend;
        else if (mpy_key_is(&keys, m, "name"))
            v->name = m->v, v->name_end = m->vend;
    }
    dfs_vec_free(&ms);
    dfs_bytebuf_free(&keys);
    return ok;
}

static bool text_is(const char *s, const char *e, const char *lit)
{
    return s && (size_t)(e - s) == strlen(lit) && memcmp(s, lit, (size_t)(e - s)) == 0;
}

/* The rank of a record: its file's global rank, or (when the file has none) its own pid. */
static bool record_rank(const cmerge *c, const rec_view *v, int64_t *rank)
{
    const cfile *f = &c->files[c->file];
    if (f->has_rank) {
        *rank = f->rank;
        return true;
    }
    dfs_jnum num;
    if (dfs_json_number(v->pid, v->pid_end, &num) != v->pid_end || !num.is_int || num.overflow)
        return false;
    *rank = num.neg ? -(int64_t)num.mag : (int64_t)num.mag;
    return true;
}

static int on_record(void *ctx, const char *rec, const char *end)
{
    cmerge *c = ctx;
    rec_view v;
    dfs_merge_file *rf = &c->rep->files[c->file];
    if (!view_record(rec, end, &v)) {
        rf->dropped++;
        return c->oom ? -1 : 0;
    }
    c->tmp.n = 0;
    bool junk = !v.pid || !v.tid || !mpy_value(&c->tmp, v.tid, v.tid_end, 0);
    dfs_bytebuf_put(&c->tmp, "", 1);
    int64_t rank;
    if (junk || strstr(c->tmp.v, "PyTorch Profiler") || !record_rank(c, &v, &rank)) {
        rf->dropped++;
        c->rep->dropped++;
        return c->tmp.oom ? -1 : 0;
    }
    char *tid_text = strdup(c->tmp.v);
    char pid_text[32];
    snprintf(pid_text, sizeof pid_text, "%lld", (long long)rank);
    pyover ov = {c->diff_us, c->files[c->file].has_rank ? pid_text : NULL};
    c->rec.n = 0;
    bool ok = tid_text && mpy_object(&c->rec, rec, end, 0, &ov) == end && !c->rec.oom;
    if (ok) {
        if (new_thread(c, rank, tid_text)) {
            put_marker(c, rank, tid_text, 99999, false);
            c->rep->inserted++;
        }
        c->tmp.n = 0;
        if (v.name && mpy_value(&c->tmp, v.name, v.name_end, 0) &&
            text_is(c->tmp.v, c->tmp.v + c->tmp.n, "\"MulBackward0\""))
            set_backward(c, rank, tid_text);
        put_record(c, c->rec.v, c->rec.n, false);
        rf->events_out++;
        c->rep->events_out++;
    } else {
        rf->dropped++;
        c->rep->dropped++;
    }
    free(tid_text);
    c->oom |= !tid_text || c->rec.oom || c->tmp.oom;
    return c->oom || ferror(c->out) ? -1 : 0;
}

/* The integer value of an object-form file's top-level key. */
static bool meta_int(const dfs_run *run, uint32_t file, const char *key, int64_t *v)
{
    dfs_str raw = dfs_run_file_meta(run, file, key);
    size_t n;
    const char *t = raw ? dfs_str_get(run, raw, &n) : NULL;
    dfs_jnum num;
    if (!t || dfs_json_number(t, t + n, &num) != t + n || !num.is_int || num.overflow)
        return false;
    *v = num.neg ? -(int64_t)num.mag : (int64_t)num.mag;
    return true;
}

/* Steps 1-2: each file's rank and clock from its first global_rank and clock-sync records. */
static void file_ranks(const dfs_merge *m, const dfs_run *run, cfile *files, size_t n)
{
    uint64_t *rank_off = calloc(n ? n : 1, sizeof *rank_off);
    uint64_t *clock_off = calloc(n ? n : 1, sizeof *clock_off);
    for (size_t i = 0; rank_off && clock_off && i < m->seen.lanes.n; i++) {
        const mlane *l = &m->seen.lanes.v[i];
        cfile *f = &files[l->key.file];
        if (l->has_rank && l->rank_is_int && (!f->has_rank || l->rank_off < rank_off[l->key.file])) {
            f->has_rank = true;
            f->rank = l->rank;
            rank_off[l->key.file] = l->rank_off;
        }
        if (l->has_clock && (!f->has_clock || l->clock_off < clock_off[l->key.file])) {
            f->has_clock = true;
            f->clock = l->clock_us;
            clock_off[l->key.file] = l->clock_off;
        }
    }
    for (uint32_t f = 0; f < n; f++) {
        if (dfs_run_file(run, f)->format != DFS_FMT_JSON_OBJECT)
            continue;
        files[f].has_rank = meta_int(run, f, "global_rank", &files[f].rank);
        files[f].has_clock = meta_int(run, f, "clock_sync_timestamp_us", &files[f].clock);
    }
    free(rank_off);
    free(clock_off);
}

/* Step 3: the shift of each file, from the clock of the lowest rank (the last file of a rank
 * gives that rank's clock, as Composer's dict does). */
static int64_t file_diff(const cmerge *c, uint32_t file, size_t n)
{
    const cfile *f = &c->files[file];
    bool have_low = false, have_low_clock = false, have_mine = false;
    int64_t low = 0, low_clock = 0, mine = 0;
    for (size_t g = 0; g < n; g++)
        if (c->files[g].has_rank && c->files[g].has_clock && (!have_low || c->files[g].rank < low)) {
            have_low = true;
            low = c->files[g].rank;
        }
    for (size_t g = 0; g < n; g++) {
        const cfile *o = &c->files[g];
        if (!o->has_rank || !o->has_clock)
            continue;
        if (have_low && o->rank == low) {
            have_low_clock = true;
            low_clock = o->clock;
        }
        if (f->has_rank && o->rank == f->rank) {
            have_mine = true;
            mine = o->clock;
        }
    }
    if (!have_low_clock || !have_mine) {
        const char *path = dfs_run_file(c->run, file)->path;
        c->rep->files[file].aligned = false;
        mreport_warn(c->rep, "%s: no %s: merged unaligned (Composer would fail)", path,
                     f->has_rank ? "clock_sync_timestamp_us" : "global_rank");
        return 0;
    }
    __int128 d = (__int128)low_clock - mine; /* Python's ints do not overflow; these saturate */
    return d > INT64_MAX ? INT64_MAX : d < INT64_MIN ? INT64_MIN : (int64_t)d;
}

static void cmerge_free(cmerge *c)
{
    for (size_t i = 0; i < c->threads.n; i++)
        free(c->threads.v[i].tid);
    for (size_t i = 0; i < c->backs.n; i++)
        free(c->backs.v[i].tid);
    dfs_vec_free(&c->threads);
    dfs_vec_free(&c->backs);
    dfs_u64map_free(&c->heads);
    dfs_bytebuf_free(&c->rec);
    dfs_bytebuf_free(&c->tmp);
    free(c->files);
}

/* Events read and pids per file, from the first reading pass. */
static void count_inputs(const dfs_merge *m, const cfile *files, dfs_merge_report *rep, const dfs_run *run)
{
    for (size_t i = 0; i < m->seen.lanes.n; i++) {
        const mlane *l = &m->seen.lanes.v[i];
        rep->files[l->key.file].events_in += l->events;
        rep->files[l->key.file].lanes++;
        rep->events_in += l->events;
    }
    for (uint32_t f = 0; f < rep->nfiles; f++) {
        rep->files[f].has_rank = files[f].has_rank;
        rep->files[f].rank = files[f].rank;
        rep->files[f].composer = dfs_run_file(run, f)->dialect == DFS_DIALECT_COMPOSER;
    }
}

static dfs_status finish(cmerge *c, int rc, char *err, size_t errlen)
{
    dfs_status st = DFS_OK;
    if (c->oom) {
        snprintf(err, errlen, "out of memory");
        st = DFS_ERR_NOMEM;
    } else if (ferror(c->out)) {
        snprintf(err, errlen, "cannot write the output");
        st = DFS_ERR_IO;
    } else if (rc) {
        st = DFS_ERR_IO;
    }
    cmerge_free(c);
    return st;
}

dfs_status dfs_merge_write_composer(dfs_merge *m, const dfs_run *run, FILE *out,
                                    dfs_merge_report *rep, char *err, size_t errlen)
{
    size_t n = dfs_run_file_count(run);
    cmerge c = {.run = run, .out = out, .rep = rep, .first = true};
    dfs_u64map_init(&c.heads);
    c.files = calloc(n ? n : 1, sizeof *c.files);
    if (!mreport_init(rep, run, "composer") || !c.files) {
        cmerge_free(&c);
        snprintf(err, errlen, "out of memory");
        return DFS_ERR_NOMEM;
    }
    file_ranks(m, run, c.files, n);
    count_inputs(m, c.files, rep, run);
    fputc('[', out);
    int rc = 0;
    uint64_t skipped = 0;
    for (uint32_t f = 0; !rc && f < n; f++) {
        const dfs_file_info *fi = dfs_run_file(run, f);
        if (fi->unreadable || fi->format == DFS_FMT_NOT_A_TRACE)
            continue;
        c.file = f;
        c.diff_us = file_diff(&c, f, n);
        rep->files[f].shift_ns = c.diff_us > INT64_MAX / 1000 ? INT64_MAX
                                 : c.diff_us < INT64_MIN / 1000 ? INT64_MIN : c.diff_us * 1000;
        rc = seq_read(fi->path, on_record, &c, &skipped);
        if (rc && !c.oom && !ferror(out))
            snprintf(err, errlen, "%s: cannot read it again: %s", fi->path, strerror(errno ? errno : EIO));
    }
    for (size_t i = 0; !rc && i < c.backs.n; i++) {
        put_marker(&c, c.backs.v[i].rank, c.backs.v[i].tid, 1, true);
        rep->inserted++;
    }
    if (!rc)
        fputs("\n]\n", out);
    if (skipped)
        mreport_warn(rep, "%llu record(s) are not strict JSON and were left out",
                     (unsigned long long)skipped);
    return finish(&c, rc, err, errlen);
}
