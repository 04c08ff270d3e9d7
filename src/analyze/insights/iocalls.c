/* iocalls.c - the I/O calls consumer (iocalls.h): per worker an open-addressing table by call
 * name id, merged by id (one run interns a name once, whatever thread met it first) and then
 * ordered by content, so the result is the same for any -j. The access pattern keeps every data
 * call with an offset (64 bytes each) and sorts them at the end by file, process and time, so a
 * call's predecessor does not depend on which worker read it. */
#include "analyze/insights/iocalls.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/numstat.h"
#include "util/u64map.h"
#include "util/vec.h"

enum { SLOTS = 1024, CAT_CACHE = 64 };

typedef struct slot {
    dfs_str name; /* 0: free */
    bool data;    /* a read or write call: its size is what it returned */
    dfs_iocall v;
} slot;

/* The I/O of one file. */
typedef struct file_io {
    dfs_str name;
    uint64_t dur_ns, bytes;
} file_io;

typedef struct files {
    dfs_u64map index; /* name id -> position in v */
    DFS_VEC(file_io) v;
    bool nomem;
} files;

/* A read or write with an offset, for the access pattern. */
typedef struct access {
    dfs_str fname, host;
    int64_t pid, ts;
    uint64_t where; /* input file << 40 | record offset: a tie-break fixed by the input */
    uint64_t off, size, dur_ns;
} access;

/* The reads and writes of one process. */
typedef struct proc_io {
    dfs_str host;
    int64_t pid;
    uint64_t bytes, dur_ns;
} proc_io;

typedef struct worker {
    files f;
    DFS_VEC(access) acc;
    DFS_VEC(proc_io) procs;
    size_t last_proc; /* the process of the last call: batches hold one process's calls in a row */
    bool oom;
    slot t[SLOTS];
    dfs_iocall overflow; /* calls past SLOTS distinct names, kept in the total only */
    dfs_str cat_ids[CAT_CACHE];
    bool cat_io[CAT_CACHE];
    size_t ncats;
} worker;

struct dfs_iocalls {
    dfs_consumer consumer;
    worker merged;
    bool nomem;
    dfs_iocall *calls;
    char *names; /* the names' bytes, NUL-separated */
    char *hot_file, *random_file, *bw_slowest;
    char *top_names; /* the top files' names, NUL-separated */
    dfs_iocalls_result result;
};

static void file_add(files *f, dfs_str name, uint64_t dur_ns, uint64_t bytes)
{
    uint32_t at;
    if (!dfs_u64map_get(&f->index, name, &at)) {
        at = (uint32_t)f->v.n;
        if (!dfs_vec_push(&f->v, ((file_io){name, 0, 0})) || !dfs_u64map_put(&f->index, name, at)) {
            f->nomem = true;
            return;
        }
    }
    f->v.v[at].dur_ns += dur_ns;
    f->v.v[at].bytes += bytes;
}

static void files_free(files *f)
{
    dfs_u64map_free(&f->index);
    free(f->v.v);
}

static bool cat_is_io(worker *w, const dfs_run *run, dfs_str cat)
{
    for (size_t i = 0; i < w->ncats; i++)
        if (w->cat_ids[i] == cat)
            return w->cat_io[i];
    size_t len;
    const char *s = dfs_str_get(run, cat, &len);
    bool io = (len >= 5 && strncasecmp(s, "posix", 5) == 0) || (len >= 5 && strncasecmp(s, "stdio", 5) == 0);
    if (w->ncats < CAT_CACHE) {
        w->cat_ids[w->ncats] = cat;
        w->cat_io[w->ncats++] = io;
    }
    return io;
}

static void add(dfs_iocall *a, const dfs_iocall *b)
{
    a->count += b->count, a->dur_ns += b->dur_ns, a->sized += b->sized, a->bytes += b->bytes;
    a->under_4k += b->under_4k, a->under_4k_dur_ns += b->under_4k_dur_ns;
    a->under_1m += b->under_1m, a->under_1m_dur_ns += b->under_1m_dur_ns;
}

static bool name_is_data(const dfs_run *run, dfs_str name)
{
    size_t len;
    const char *s = dfs_str_get(run, name, &len);
    char buf[128];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), s);
    return dfs_iocall_is_data(buf);
}

/* The slot of a name (taken when new), or NULL past SLOTS distinct names. */
static slot *slot_of(worker *w, const dfs_run *run, dfs_str name)
{
    for (size_t i = name % SLOTS, k = 0; k < SLOTS; k++, i = (i + 1) % SLOTS) {
        if (w->t[i].name == name)
            return &w->t[i];
        if (!w->t[i].name) {
            w->t[i].name = name;
            w->t[i].data = run && name_is_data(run, name);
            return &w->t[i];
        }
    }
    return NULL;
}

/* The bytes a call moved: what a read or write returned (when above 0), else args.size, as the
 * layered analysis sizes POSIX and STDIO calls; -1 when neither says. */
static int64_t size_of(const dfs_event *ev, bool data)
{
    int64_t v;
    const dfs_value *ret = data ? dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_RET)) : NULL;
    if (ret && dfs_value_int(ret, &v) && v > 0)
        return v;
    const dfs_value *size = dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_SIZE));
    return size && dfs_value_int(size, &v) && v >= 0 ? v : -1;
}

static void proc_add(worker *w, const proc_io *x)
{
    size_t i = w->last_proc;
    if (i >= w->procs.n || w->procs.v[i].host != x->host || w->procs.v[i].pid != x->pid)
        for (i = 0; i < w->procs.n; i++)
            if (w->procs.v[i].host == x->host && w->procs.v[i].pid == x->pid)
                break;
    if (i == w->procs.n && !dfs_vec_push(&w->procs, ((proc_io){x->host, x->pid, 0, 0}))) {
        w->oom = true;
        return;
    }
    w->procs.v[i].bytes += x->bytes, w->procs.v[i].dur_ns += x->dur_ns;
    w->last_proc = i;
}

/* A read or write: its process's bandwidth, and its access when it says its offset. */
static void data_call(worker *w, const dfs_event *ev, int64_t size)
{
    proc_add(w, &(proc_io){ev->host, ev->pid, (uint64_t)size, (uint64_t)ev->dur});
    int64_t off;
    const dfs_value *v = dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_OFFSET));
    if (!ev->fname || !v || !dfs_value_int(v, &off) || off < 0)
        return;
    access a = {ev->fname, ev->host, ev->pid, ev->ts, (uint64_t)ev->file << 40 | ev->offset, (uint64_t)off,
                (uint64_t)size, (uint64_t)ev->dur};
    if (!dfs_vec_push(&w->acc, a))
        w->oom = true;
}

static void on_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    worker *w = state;
    for (size_t i = 0; i < b->count; i++) {
        const dfs_event *ev = &b->events[i];
        if (ev->phase != DFS_PHASE_COMPLETE || !(ev->flags & DFS_EF_HAS_DUR) || (ev->flags & DFS_EF_BAD_TIME) ||
            ev->dur < 0 || !ev->name || !cat_is_io(w, run, ev->cat))
            continue;
        slot *sl = slot_of(w, run, ev->name);
        dfs_iocall c = {.count = 1, .dur_ns = (uint64_t)ev->dur};
        int64_t size = size_of(ev, sl ? sl->data : false);
        if (size >= 0) {
            c.sized = 1, c.bytes = (uint64_t)size;
            if (size < 4096)
                c.under_4k = 1, c.under_4k_dur_ns = c.dur_ns;
            if (size < (1 << 20))
                c.under_1m = 1, c.under_1m_dur_ns = c.dur_ns;
        }
        add(sl ? &sl->v : &w->overflow, &c);
        if (sl && sl->data && size >= 0)
            data_call(w, ev, size);
        if (ev->fname)
            file_add(&w->f, ev->fname, c.dur_ns, c.bytes);
    }
}

static void *worker_begin(void *user)
{
    (void)user;
    return calloc(1, sizeof(worker));
}

static void worker_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    dfs_iocalls *io = user;
    worker *w = state;
    if (!w) {
        io->nomem = true;
        return;
    }
    for (size_t i = 0; i < SLOTS; i++) {
        slot *sl = w->t[i].name ? slot_of(&io->merged, NULL, w->t[i].name) : NULL;
        if (w->t[i].name)
            add(sl ? &sl->v : &io->merged.overflow, &w->t[i].v);
    }
    add(&io->merged.overflow, &w->overflow);
    for (size_t i = 0; i < w->f.v.n; i++)
        file_add(&io->merged.f, w->f.v.v[i].name, w->f.v.v[i].dur_ns, w->f.v.v[i].bytes);
    io->nomem |= w->f.nomem || w->oom || !dfs_vec_append(&io->merged.acc, &w->acc);
    for (size_t i = 0; i < w->procs.n; i++)
        proc_add(&io->merged, &w->procs.v[i]);
    io->nomem |= io->merged.oom;
    files_free(&w->f);
    dfs_vec_free(&w->acc);
    dfs_vec_free(&w->procs);
    free(w);
}

dfs_iocalls *dfs_iocalls_new(void)
{
    dfs_iocalls *io = calloc(1, sizeof *io);
    if (!io)
        return NULL;
    io->consumer = (dfs_consumer){.user = io,
                                  .want = {.keys = DFS_KEYBIT(DFS_KEY_SIZE) | DFS_KEYBIT(DFS_KEY_RET) |
                                                   DFS_KEYBIT(DFS_KEY_OFFSET)},
                                  .worker_begin = worker_begin,
                                  .on_batch = on_batch,
                                  .worker_end = worker_end};
    return io;
}

void dfs_iocalls_free(dfs_iocalls *io)
{
    if (!io)
        return;
    free(io->calls);
    free(io->names);
    free(io->hot_file);
    free(io->random_file);
    free(io->bw_slowest);
    free(io->top_names);
    files_free(&io->merged.f);
    dfs_vec_free(&io->merged.acc);
    dfs_vec_free(&io->merged.procs);
    free(io);
}

dfs_consumer *dfs_iocalls_consumer(dfs_iocalls *io)
{
    return &io->consumer;
}

static int by_time(const void *a, const void *b)
{
    const dfs_iocall *x = a, *y = b;
    if (x->dur_ns != y->dur_ns)
        return x->dur_ns > y->dur_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A copy of a run's string, NUL-terminated, into *dst (freed first); false when out of memory. */
static bool keep_text(char **dst, const char *s, size_t len)
{
    free(*dst);
    *dst = malloc(len + 1);
    if (!*dst)
        return false;
    memcpy(*dst, s, len);
    (*dst)[len] = '\0';
    return true;
}

/* Does x come before y: more of the key (time or bytes), then the first by name? */
static bool ahead(const dfs_run *run, const file_io *x, const file_io *y, bool by_bytes)
{
    uint64_t a = by_bytes ? x->bytes : x->dur_ns, b = by_bytes ? y->bytes : y->dur_ns;
    return a != b ? a > b : dfs_str_cmp(run, x->name, y->name) < 0;
}

/* The k first files by the key into top[0..k) (an insertion into k places: files may be many). */
static size_t top_k(const dfs_run *run, const files *f, bool by_bytes, const file_io **top)
{
    size_t k = 0;
    for (size_t i = 0; i < f->v.n; i++) {
        const file_io *x = &f->v.v[i];
        size_t at = k;
        while (at > 0 && ahead(run, x, top[at - 1], by_bytes))
            at--;
        if (at == DFS_IOCALLS_TOP_FILES)
            continue;
        k += k < DFS_IOCALLS_TOP_FILES;
        memmove(top + at + 1, top + at, (k - 1 - at) * sizeof *top);
        top[at] = x;
    }
    return k;
}

/* The names are copied: the result outlives no string-table assumption. */
static bool top_files(dfs_iocalls *io, const dfs_run *run)
{
    const file_io *t[DFS_IOCALLS_TOP_FILES], *b[DFS_IOCALLS_TOP_FILES];
    size_t k = top_k(run, &io->merged.f, false, t), bytes = 0, len;
    top_k(run, &io->merged.f, true, b);
    for (size_t i = 0; i < k; i++) {
        bytes += (dfs_str_get(run, t[i]->name, &len), len + 1);
        bytes += (dfs_str_get(run, b[i]->name, &len), len + 1);
    }
    free(io->top_names);
    char *p = io->top_names = malloc(bytes ? bytes : 1);
    if (!p)
        return false;
    dfs_iocalls_result *r = &io->result;
    for (size_t i = 0; i < 2 * k; i++) {
        const file_io *x = i < k ? t[i] : b[i - k];
        const char *s = dfs_str_get(run, x->name, &len);
        memcpy(p, s, len);
        p[len] = '\0';
        dfs_iocall_file *o = i < k ? &r->top_by_time[i] : &r->top_by_bytes[i - k];
        *o = (dfs_iocall_file){p, x->dur_ns, x->bytes};
        p += len + 1;
    }
    r->ntop = k;
    return true;
}

/* The files' facts: the hot file (the most time; ties to the first by name), the median bytes. */
static bool by_file(dfs_iocalls *io, const dfs_run *run)
{
    const files *f = &io->merged.f;
    dfs_iocalls_result *r = &io->result;
    if (f->nomem || io->merged.f.nomem)
        return false;
    r->files = f->v.n;
    if (!f->v.n)
        return true;
    uint64_t *bytes = malloc(f->v.n * sizeof *bytes);
    if (!bytes)
        return false;
    const file_io *hot = &f->v.v[0];
    for (size_t i = 0; i < f->v.n; i++) {
        const file_io *x = &f->v.v[i];
        bytes[i] = x->bytes;
        r->named_dur_ns += x->dur_ns;
        if (x->dur_ns > hot->dur_ns || (x->dur_ns == hot->dur_ns && dfs_str_cmp(run, x->name, hot->name) < 0))
            hot = x;
    }
    qsort(bytes, f->v.n, sizeof *bytes, cmp_u64);
    size_t n = f->v.n;
    r->median_file_bytes = n % 2 ? (double)bytes[n / 2] : ((double)bytes[n / 2 - 1] + (double)bytes[n / 2]) / 2;
    free(bytes);
    size_t len;
    const char *s = dfs_str_get(run, hot->name, &len);
    if (!keep_text(&io->hot_file, s, len))
        return false;
    r->hot_file = io->hot_file;
    r->hot_file_dur_ns = hot->dur_ns;
    return top_files(io, run);
}

static int cmp_access(const void *a, const void *b)
{
    const access *x = a, *y = b;
    if (x->fname != y->fname)
        return x->fname < y->fname ? -1 : 1;
    if (x->host != y->host)
        return x->host < y->host ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->where > y->where) - (x->where < y->where);
}

typedef struct file_pattern {
    dfs_str name;
    uint64_t ops, random, random_dur_ns;
} file_pattern;

/* Keeps the file with the most random-access time (ties: the first by name) in the result. */
static bool note_file(dfs_iocalls *io, const dfs_run *run, const file_pattern *f, dfs_str *best)
{
    dfs_iocalls_result *r = &io->result;
    r->pattern_ops += f->ops, r->random_ops += f->random, r->random_dur_ns += f->random_dur_ns;
    if (!f->random || (*best && (f->random_dur_ns < r->random_file_dur_ns ||
                                 (f->random_dur_ns == r->random_file_dur_ns && dfs_str_cmp(run, f->name, *best) >= 0))))
        return true;
    *best = f->name;
    r->random_file_ops = f->random, r->random_file_pattern_ops = f->ops, r->random_file_dur_ns = f->random_dur_ns;
    size_t len;
    const char *s = dfs_str_get(run, f->name, &len);
    if (!keep_text(&io->random_file, s, len))
        return false;
    r->random_file = io->random_file;
    return true;
}

/* Sequential or random, each data call with an offset against its process's previous one on
 * the same file (iocalls.h). */
static bool pattern(dfs_iocalls *io, const dfs_run *run)
{
    access *a = io->merged.acc.v;
    size_t n = io->merged.acc.n;
    if (n)
        qsort(a, n, sizeof *a, cmp_access);
    dfs_str best = 0;
    file_pattern f = {0};
    for (size_t i = 0; i < n; i++) {
        if (i && a[i].fname != f.name && !note_file(io, run, &f, &best))
            return false;
        if (!i || a[i].fname != f.name)
            f = (file_pattern){.name = a[i].fname};
        const access *p = i ? &a[i - 1] : NULL;
        if (!p || p->fname != a[i].fname || p->host != a[i].host || p->pid != a[i].pid)
            continue; /* a process's first call on the file: nothing to compare it with */
        f.ops++;
        if (a[i].off < p->off + p->size)
            f.random++, f.random_dur_ns += a[i].dur_ns;
    }
    return !n || note_file(io, run, &f, &best);
}

/* "host:pid" of a process into buf. */
static void proc_name(const dfs_run *run, const proc_io *p, char *buf, size_t n)
{
    size_t len = 0;
    const char *h = p->host ? dfs_str_get(run, p->host, &len) : "";
    snprintf(buf, n, "%.*s%s%lld", (int)len, h, len ? ":" : "", (long long)p->pid);
}

/* Each process's bandwidth in its reads and writes: the lowest (named) and the median. */
static bool bandwidth(dfs_iocalls *io, const dfs_run *run)
{
    const proc_io *p = io->merged.procs.v;
    size_t n = io->merged.procs.n, k = 0;
    double *bw = malloc((n ? n : 1) * sizeof *bw);
    if (!bw)
        return false;
    const proc_io *slow = NULL;
    char name[192], slow_name[192] = "";
    for (size_t i = 0; i < n; i++) {
        if (!p[i].bytes || !p[i].dur_ns)
            continue;
        double x = (double)p[i].bytes / ((double)p[i].dur_ns / 1e9);
        bw[k++] = x;
        io->result.bw_bytes += p[i].bytes;
        proc_name(run, &p[i], name, sizeof name);
        double y = slow ? (double)slow->bytes / ((double)slow->dur_ns / 1e9) : 0;
        if (!slow || x < y || (x == y && strcmp(name, slow_name) < 0))
            slow = &p[i], snprintf(slow_name, sizeof slow_name, "%s", name);
    }
    dfs_iocalls_result *r = &io->result;
    r->bw_processes = k;
    if (k) {
        r->bw_median = dfs_median_inplace(bw, k);
        r->bw_min = bw[0];
        r->bw_slowest_bytes = slow->bytes, r->bw_slowest_dur_ns = slow->dur_ns;
    }
    free(bw);
    if (!k)
        return true;
    if (!keep_text(&io->bw_slowest, slow_name, strlen(slow_name)))
        return false;
    r->bw_slowest = io->bw_slowest;
    return true;
}

const dfs_iocalls_result *dfs_iocalls_finish(dfs_iocalls *io, const dfs_run *run)
{
    if (io->nomem)
        return NULL;
    size_t n = 0, bytes = 0;
    for (size_t i = 0; i < SLOTS; i++)
        if (io->merged.t[i].name) {
            size_t len;
            dfs_str_get(run, io->merged.t[i].name, &len);
            n++, bytes += len + 1;
        }
    free(io->calls);
    free(io->names);
    io->calls = calloc(n ? n : 1, sizeof *io->calls);
    io->names = malloc(bytes ? bytes : 1);
    if (!io->calls || !io->names)
        return NULL;
    dfs_iocall total = io->merged.overflow;
    char *p = io->names;
    for (size_t i = 0, k = 0; i < SLOTS; i++) {
        if (!io->merged.t[i].name)
            continue;
        size_t len;
        const char *s = dfs_str_get(run, io->merged.t[i].name, &len);
        memcpy(p, s, len);
        p[len] = '\0';
        io->calls[k] = io->merged.t[i].v;
        io->calls[k++].name = p;
        p += len + 1;
        add(&total, &io->merged.t[i].v);
    }
    qsort(io->calls, n, sizeof *io->calls, by_time);
    total.name = "all";
    io->result = (dfs_iocalls_result){io->calls, n, total, .median_file_bytes = NAN};
    return by_file(io, run) && pattern(io, run) && bandwidth(io, run) ? &io->result : NULL;
}

/* The call's base name: after the last '.', without a leading "__" or trailing "64". */
static bool base_is(const char *name, const char *const *words)
{
    const char *dot = strrchr(name, '.');
    const char *s = dot ? dot + 1 : name;
    while (*s == '_')
        s++;
    size_t len = strlen(s);
    if (len > 2 && strcmp(s + len - 2, "64") == 0)
        len -= 2;
    for (size_t i = 0; words[i]; i++)
        if (strlen(words[i]) == len && strncmp(s, words[i], len) == 0)
            return true;
    return false;
}

bool dfs_iocall_is_data(const char *name)
{
    static const char *const words[] = {"read",  "pread",  "readv",  "preadv", "write", "pwrite",
                                        "writev", "pwritev", "fread", "fwrite", "fgets", "fputs",
                                        "getc",  "putc",   "fgetc",  "fputc",  NULL};
    return base_is(name, words);
}

bool dfs_iocall_is_metadata(const char *name)
{
    static const char *const words[] = {"open",   "openat", "creat",  "close",   "fopen",   "fclose", "fdopen",
                                        "stat",   "fstat",  "lstat",  "xstat",   "fxstat",  "lxstat", "fstatat",
                                        "statx",  "lseek",  "fseek",  "ftell",   "access",  "faccessat",
                                        "unlink", "rename", "mkdir",  "rmdir",   "opendir", "readdir",
                                        "closedir", "fcntl", "dup",   "dup2",    "chmod",   "chown",
                                        "utime",  "truncate", "ftruncate", "readlink", "link", "symlink",
                                        "getcwd", "chdir",  NULL};
    return base_is(name, words);
}
