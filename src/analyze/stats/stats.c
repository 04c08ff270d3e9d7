#include "analyze/stats/stats.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/common/jobs.h"
#include "analyze/stats/stats_internal.h"

void dfs_stats_part_init(part *p)
{
    memset(p, 0, sizeof *p);
    dfs_u64map_init(&p->name_index);
    dfs_u64map_init(&p->cat_index);
    dfs_u64map_init(&p->hosts);
    dfs_u64map_init(&p->fnames);
    dfs_keyset_init(&p->procs, sizeof(proc_key));
    dfs_keyset_init(&p->threads, sizeof(proc_key));
    dfs_keyset_init(&p->unresolved, sizeof(ref_key));
    dfs_keyset_init(&p->pid_hosts, sizeof(proc_key));
}

void dfs_stats_part_free(part *p)
{
    dfs_u64map_free(&p->name_index);
    dfs_u64map_free(&p->cat_index);
    dfs_u64map_free(&p->hosts);
    dfs_u64map_free(&p->fnames);
    dfs_keyset_free(&p->procs);
    dfs_keyset_free(&p->threads);
    dfs_keyset_free(&p->unresolved);
    dfs_keyset_free(&p->pid_hosts);
    dfs_vec_free(&p->names);
    dfs_vec_free(&p->cats);
    dfs_vec_free(&p->spans);
}

void dfs_stats_add_named(dfs_u64map *index, name_vec *v, dfs_str cat, dfs_str name, uint64_t count,
                      int64_t dur)
{
    uint64_t key = (uint64_t)cat << 32 | name;
    uint32_t i;
    if (!dfs_u64map_get(index, key, &i)) {
        dfs_stats_name n = {cat, name, 0, 0};
        if (!dfs_vec_push(v, n))
            return;
        i = (uint32_t)(v->n - 1);
        dfs_u64map_put(index, key, i);
    }
    v->v[i].count += count;
    v->v[i].dur_ns += dur;
}

void dfs_stats_add_span(part *p, uint32_t file, int64_t start, int64_t end)
{
    if (!dfs_vec_extend_zeroed(&p->spans, (size_t)file + 1))
        return;
    span *s = &p->spans.v[file];
    if (!s->have || start < s->min)
        s->min = start;
    if (!s->have || end > s->max)
        s->max = end;
    s->have = true;
}

/* Aggregated DFTracer records fold dft_cnt calls: the total is dur_sum, else dur x count. */
static void event_weight(const dfs_event *ev, uint64_t *count, int64_t *dur)
{
    *count = 1;
    *dur = (ev->flags & DFS_EF_HAS_DUR) && !(ev->flags & DFS_EF_BAD_TIME) ? ev->dur : 0;
    if (ev->phase != DFS_PHASE_AGGREGATED)
        return;
    int64_t cnt, sum;
    if (dfs_value_int(dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_DFT_CNT)), &cnt) && cnt > 0)
        *count = (uint64_t)cnt;
    if (dfs_value_int(dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_DUR_SUM)), &sum))
        *dur = sum * 1000; /* args are in the unit of ts: µs */
    else
        *dur *= (int64_t)*count;
}

static void note_reference(part *p, const dfs_event *ev, dfs_hash_kind kind, uint64_t hash, dfs_str resolved)
{
    if (resolved) {
        dfs_u64map_put(kind == DFS_HASH_FILE ? &p->fnames : &p->hosts, resolved, 1);
    } else if (hash) {
        ref_key k = {hash, ev->file, (uint32_t)kind};
        dfs_keyset_add(&p->unresolved, &k);
    }
}

static void count_thread(part *p, const dfs_event *ev)
{
    bool resolved = ev->host != 0;
    proc_key k = {ev->pid, (ev->flags & DFS_EF_HAS_TID) ? ev->tid : 0, resolved ? 0 : ev->hhash,
                  ev->host, resolved ? 0 : ev->file};
    if (p->have_last_thread && memcmp(&k, &p->last_thread, sizeof k) == 0)
        return;
    p->last_thread = k;
    p->have_last_thread = true;
    if (resolved || ev->hhash) {
        proc_key seen = {ev->pid, 0, k.hhash, ev->host, ev->file};
        dfs_keyset_add(&p->pid_hosts, &seen);
    }
    if (ev->flags & DFS_EF_HAS_TID)
        dfs_keyset_add(&p->threads, &k);
    k.tid = 0;
    dfs_keyset_add(&p->procs, &k);
}

static void count_event(part *p, const dfs_event *ev)
{
    if (ev->phase == DFS_PHASE_METADATA)
        return;
    uint64_t count;
    int64_t dur;
    event_weight(ev, &count, &dur);
    dfs_stats_add_named(&p->name_index, &p->names, ev->cat, ev->name, count, dur);
    if (ev->flags & DFS_EF_HAS_PID)
        count_thread(p, ev);
    if (ev->host) {
        if (ev->host != p->last_host)
            dfs_u64map_put(&p->hosts, ev->host, 1);
        p->last_host = ev->host;
    } else if (ev->hhash) {
        note_reference(p, ev, DFS_HASH_HOST, ev->hhash, 0);
    }
    if (ev->fname && ev->fname == p->last_fname)
        ; /* already counted */
    else if (ev->fname || ev->fhash)
        note_reference(p, ev, DFS_HASH_FILE, ev->fhash, ev->fname);
    p->last_fname = ev->fname;
    int64_t end;
    if ((ev->flags & DFS_EF_HAS_TS) && !(ev->flags & DFS_EF_BAD_TIME) &&
        dfs_span_end(ev->ts, dur > 0 && ev->phase != DFS_PHASE_AGGREGATED ? dur : 0, &end))
        dfs_stats_add_span(p, ev->file, ev->ts, end);
}

static void *worker_begin(void *user)
{
    (void)user;
    part *p = malloc(sizeof *p);
    if (p)
        dfs_stats_part_init(p);
    return p;
}

static void on_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    (void)run;
    part *p = state;
    if (!p)
        return;
    for (size_t i = 0; i < b->count; i++)
        count_event(p, &b->events[i]);
}

static void merge_u64set(dfs_u64map *into, const dfs_u64map *from)
{
    for (size_t i = 0; i < from->cap; i++)
        if (from->used[i])
            dfs_u64map_put(into, from->keys[i], from->vals[i]);
}

static void merge_keyset(dfs_keyset *into, const dfs_keyset *from)
{
    size_t it = 0;
    for (const void *k; (k = dfs_keyset_next(from, &it)) != NULL;)
        dfs_keyset_add(into, k);
}

void dfs_stats_merge_part(part *t, const part *p)
{
    for (size_t i = 0; i < p->names.n; i++)
        dfs_stats_add_named(&t->name_index, &t->names, p->names.v[i].cat, p->names.v[i].name,
                  p->names.v[i].count, p->names.v[i].dur_ns);
    merge_keyset(&t->procs, &p->procs);
    merge_keyset(&t->threads, &p->threads);
    merge_keyset(&t->unresolved, &p->unresolved);
    merge_keyset(&t->pid_hosts, &p->pid_hosts);
    merge_u64set(&t->hosts, &p->hosts);
    merge_u64set(&t->fnames, &p->fnames);
    for (uint32_t f = 0; f < p->spans.n; f++)
        if (p->spans.v[f].have) {
            dfs_stats_add_span(t, f, p->spans.v[f].min, p->spans.v[f].max);
        }
}

static void worker_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    dfs_stats *s = user;
    part *p = state;
    if (!p)
        return;
    dfs_stats_merge_part(&s->total, p);
    dfs_stats_part_free(p);
    free(p);
}

dfs_stats *dfs_stats_new(void)
{
    dfs_stats *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    dfs_stats_part_init(&s->total);
    s->consumer = (dfs_consumer){
        .user = s,
        .want = {.keys = DFS_KEYBIT(DFS_KEY_DFT_CNT) | DFS_KEYBIT(DFS_KEY_DUR_SUM)},
        .worker_begin = worker_begin,
        .on_batch = on_batch,
        .worker_end = worker_end,
    };
    return s;
}

void dfs_stats_free(dfs_stats *s)
{
    if (!s)
        return;
    dfs_stats_part_free(&s->total);
    free(s);
}

dfs_consumer *dfs_stats_consumer(dfs_stats *s) { return &s->consumer; }

/* Sorted by total duration, then count, then contents (not ids), so any -j gives one order. */
static int compare_names(const void *pa, const void *pb, void *ctx)
{
    const dfs_run *run = ctx;
    const dfs_stats_name *a = pa, *b = pb;
    if (a->dur_ns != b->dur_ns)
        return a->dur_ns > b->dur_ns ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    int c = dfs_str_cmp(run, a->cat, b->cat);
    return c ? c : dfs_str_cmp(run, a->name, b->name);
}

/* References unresolved while streaming: resolve them against the whole run now. */
static void resolve_late(dfs_stats *s, const dfs_run *run)
{
    part *t = &s->total;
    size_t it = 0;
    for (const ref_key *k; (k = dfs_keyset_next(&t->unresolved, &it)) != NULL;) {
        dfs_str str = dfs_run_resolve_hash(run, (dfs_hash_kind)k->kind, k->file, UINT64_MAX, k->hash);
        if (str)
            dfs_u64map_put(k->kind == DFS_HASH_FILE ? &t->fnames : &t->hosts, str, 1);
        else
            s->result.unresolved_hashes++;
    }
}

static void time_span(dfs_stats *s, const dfs_run *run)
{
    dfs_stats_result *r = &s->result;
    for (int relative = 0; relative < 2 && !r->have_time; relative++) {
        for (uint32_t f = 0; f < s->total.spans.n; f++) {
            const span *sp = &s->total.spans.v[f];
            const dfs_file_info *fi = dfs_run_file(run, f);
            if (!sp->have || !fi)
                continue;
            int64_t a = dfs_file_abs_ns(fi, sp->min), b = dfs_file_abs_ns(fi, sp->max);
            /* wall clocks first; a clock near 0 (before 2000) is told as offsets, not as 1970 */
            if (dfs_jobs_on_wall_clock(fi, a) == (relative == 1))
                continue;
            if (!r->have_time || a < r->start_ns)
                r->start_ns = a;
            if (!r->have_time || b > r->end_ns)
                r->end_ns = b;
            r->have_time = true;
            r->relative_time = relative == 1;
        }
    }
}

static dfs_str resolve_host(const proc_key *k, const dfs_run *run)
{
    return k->host ? k->host : dfs_run_resolve_hash(run, DFS_HASH_HOST, k->file, UINT64_MAX, k->hhash);
}

/* Hosts named by the events of each (file, pid), sorted for lookup; resolved once. */
typedef struct pid_host {
    uint32_t file;
    int64_t pid;
    dfs_str host;   /* 0 when the hash was never defined */
    uint64_t hhash;
} pid_host;

typedef struct host_index {
    pid_host *v;
    size_t n;
    const dfs_run *run;
} host_index;

static int compare_pid_hosts(const void *pa, const void *pb, void *ctx)
{
    const pid_host *a = pa, *b = pb;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->host != b->host) /* the smallest host by content first: independent of event order */
        return !a->host ? 1 : !b->host ? -1 : dfs_str_cmp(ctx, a->host, b->host);
    return (a->hhash > b->hhash) - (a->hhash < b->hhash);
}

static bool build_host_index(host_index *x, const dfs_keyset *pid_hosts, const dfs_run *run)
{
    x->run = run;
    x->n = 0;
    x->v = malloc((pid_hosts->count ? pid_hosts->count : 1) * sizeof *x->v);
    if (!x->v)
        return false;
    size_t it = 0;
    for (const proc_key *h; (h = dfs_keyset_next(pid_hosts, &it)) != NULL;)
        x->v[x->n++] = (pid_host){h->file, h->pid, resolve_host(h, run), h->hhash};
    qsort_r(x->v, x->n, sizeof *x->v, compare_pid_hosts, (void *)run);
    return true;
}

/* The first entry of (file, pid) in the index: its preferred host, or its hash. */
static void host_of_pid(const host_index *x, proc_key *k)
{
    size_t lo = 0, hi = x->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const pid_host *m = &x->v[mid];
        if (m->file < k->file || (m->file == k->file && m->pid < k->pid))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < x->n && x->v[lo].file == k->file && x->v[lo].pid == k->pid) {
        k->host = x->v[lo].host;
        k->hhash = x->v[lo].host ? 0 : x->v[lo].hhash;
    }
}

/* Counts distinct processes or threads once every host is resolved. */
static uint64_t count_resolved(const dfs_keyset *set, const host_index *hosts, const dfs_run *run)
{
    dfs_keyset final;
    dfs_keyset_init(&final, sizeof(proc_key));
    size_t it = 0;
    for (const proc_key *k; (k = dfs_keyset_next(set, &it)) != NULL;) {
        proc_key r = *k;
        if (r.hhash)
            r.host = resolve_host(&r, run);
        else if (!r.host)
            host_of_pid(hosts, &r);
        if (r.host) /* a host that stays unknown keeps its hash as identity */
            r.hhash = 0;
        r.file = 0;
        dfs_keyset_add(&final, &r);
    }
    uint64_t n = final.count;
    dfs_keyset_free(&final);
    return n;
}

const dfs_stats_result *dfs_stats_finish(dfs_stats *s, const dfs_run *run)
{
    part *t = &s->total;
    dfs_stats_result *r = &s->result;
    resolve_late(s, run);
    for (size_t i = 0; i < t->names.n; i++) /* categories are the names summed by category */
        dfs_stats_add_named(&t->cat_index, &t->cats, t->names.v[i].cat, 0, t->names.v[i].count, t->names.v[i].dur_ns);
    if (t->names.n) /* qsort_r must not be given a null array, even empty */
        qsort_r(t->names.v, t->names.n, sizeof *t->names.v, compare_names, (void *)run);
    if (t->cats.n)
        qsort_r(t->cats.v, t->cats.n, sizeof *t->cats.v, compare_names, (void *)run);
    r->names = t->names.v;
    r->nnames = t->names.n;
    r->cats = t->cats.v;
    r->ncats = t->cats.n;
    host_index hosts;
    if (build_host_index(&hosts, &t->pid_hosts, run)) {
        r->processes = count_resolved(&t->procs, &hosts, run);
        r->threads = count_resolved(&t->threads, &hosts, run);
        free(hosts.v);
    }
    r->hosts = t->hosts.count;
    r->files_accessed = t->fnames.count;
    time_span(s, run);
    return r;
}
