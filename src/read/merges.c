/* merges.c - the merge check of merges.h. The candidates and the inputs smaller than them are read
 * once more, in a run of their own whose string table makes equal texts equal ids; each timed
 * event becomes a digest of everything but its time, plus its time from its process's first in
 * its file. A candidate is then taken apart: every smaller input whose digests it holds (as a
 * multiset) is subtracted whole, and a candidate left empty by at least two is a merge. */
#include <stdlib.h>
#include <string.h>

#include "read/merges.h"
#include "util/hash.h"
#include "util/vec.h"

/* One timed event of a probed file: its time is made relative once every event is in. */
typedef struct sighting {
    uint32_t file;
    int64_t pid, ts;
    uint64_t what;   /* digest of the event without its time */
} sighting;

typedef DFS_VEC(sighting) sighting_vec;

typedef struct collector {
    sighting_vec all;
    bool nomem;
} collector;

static uint64_t fold(uint64_t h, uint64_t x) { return dfs_mix64(h ^ (x + UINT64_C(0x9e3779b97f4a7c15))); }

enum { MAX_ARG_DEPTH = 8 }; /* deeper args count by their shape only */

static uint64_t digest_args(uint64_t h, const dfs_arg *args, uint32_t n, int depth);

/* A number digests by its value, however it is written: a merger may write 5.0 as 5. */
static uint64_t digest_number(uint64_t h, const dfs_value *v)
{
    if (v->type == DFS_V_FLOAT && v->as.f >= -0x1p63 && v->as.f < 0x1p63 && v->as.f == (double)(int64_t)v->as.f)
        return fold(fold(h, DFS_V_INT), (uint64_t)(int64_t)v->as.f);
    if (v->type == DFS_V_FLOAT) {
        uint64_t bits;
        memcpy(&bits, &v->as.f, sizeof bits);
        return fold(fold(h, DFS_V_FLOAT), bits);
    }
    return fold(fold(h, v->type == DFS_V_UINT ? DFS_V_UINT : DFS_V_INT), v->as.u);
}

static uint64_t digest_value(uint64_t h, const dfs_value *v, int depth)
{
    switch (v->type) {
    case DFS_V_INT:
    case DFS_V_UINT:
    case DFS_V_FLOAT: return digest_number(h, v);
    case DFS_V_BOOL: return fold(fold(h, v->type), (uint64_t)v->as.i);
    case DFS_V_STR: return fold(fold(h, v->type), v->as.s);
    case DFS_V_LIST:
    case DFS_V_MAP: /* len counts the items of these only */
        h = fold(fold(h, v->type), v->len);
        return depth < MAX_ARG_DEPTH ? digest_args(h, v->as.items, v->len, depth + 1) : h;
    default: return fold(h, v->type);
    }
}

static uint64_t digest_args(uint64_t h, const dfs_arg *args, uint32_t n, int depth)
{
    for (uint32_t i = 0; i < n; i++)
        h = digest_value(fold(h, args[i].key), &args[i].val, depth);
    return h;
}

static uint64_t digest_event(const dfs_event *e)
{
    uint64_t h = fold(0, (uint64_t)e->name << 32 | e->cat);
    h = fold(h, (uint64_t)(uint8_t)e->ph << 40 | (uint64_t)e->phase << 32 | e->type);
    h = fold(h, (uint64_t)e->tid);
    h = fold(h, (e->flags & DFS_EF_HAS_DUR) ? (uint64_t)e->dur : UINT64_MAX);
    h = fold(h, e->id);
    h = fold(h, fold(e->fhash, e->hhash));
    h = fold(h, (uint64_t)e->fname << 32 | e->host);
    h = fold(h, (uint64_t)e->pid_str << 32 | e->tid_str);
    h = fold(h, e->flags & ~(uint32_t)DFS_EF_BAD_TIME);
    return digest_args(h, e->args, e->nargs, 0);
}

static void *begin(void *user)
{
    (void)user;
    return calloc(1, sizeof(collector));
}

/* What a merger leaves out of its merge: Composer's drops records without a process or a thread
 * and its profiler's own lanes (a thread named "PyTorch Profiler (N)"). */
static bool merger_drops(const dfs_run *run, const dfs_event *e)
{
    if (!(e->flags & DFS_EF_HAS_PID) || !(e->flags & DFS_EF_HAS_TID))
        return true;
    size_t n;
    const char *t = (e->flags & DFS_EF_TID_STR) ? dfs_str_get(run, e->tid_str, &n) : NULL;
    return t && memmem(t, n, "PyTorch Profiler", 16) != NULL;
}

static void on_batch(void *state, const dfs_run *run, const dfs_batch *batch)
{
    collector *c = state;
    if (!c)
        return;
    for (size_t i = 0; i < batch->count && !c->nomem; i++) {
        const dfs_event *e = &batch->events[i];
        if (!(e->flags & DFS_EF_HAS_TS) || (e->flags & DFS_EF_BAD_TIME) || merger_drops(run, e))
            continue;
        sighting s = {.file = batch->file, .pid = e->pid, .ts = e->ts, .what = digest_event(e)};
        c->nomem = !dfs_vec_push(&c->all, s);
    }
}

static void end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    collector *into = user, *c = state;
    if (!c) {
        into->nomem = true;
        return;
    }
    into->nomem |= c->nomem;
    if (!into->nomem && c->all.n) {
        if (dfs_vec_reserve(&into->all, c->all.n)) {
            memcpy(into->all.v + into->all.n, c->all.v, c->all.n * sizeof *c->all.v);
            into->all.n += c->all.n;
        } else {
            into->nomem = true;
        }
    }
    dfs_vec_free(&c->all);
    free(c);
}

static int by_file_pid_ts(const void *a, const void *b)
{
    const sighting *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The probed files' event keys, each file's sorted: keys[off[f] .. off[f + 1]). */
typedef struct keyed {
    uint64_t *keys;
    size_t *off;
} keyed;

static bool key_events(sighting_vec *all, size_t nfiles, keyed *k)
{
    k->keys = malloc((all->n ? all->n : 1) * sizeof *k->keys);
    k->off = calloc(nfiles + 1, sizeof *k->off);
    if (!k->keys || !k->off)
        return false;
    if (all->n)
        qsort(all->v, all->n, sizeof *all->v, by_file_pid_ts);
    int64_t first = 0;
    for (size_t i = 0; i < all->n; i++) {
        const sighting *s = &all->v[i];
        if (i == 0 || s->file != s[-1].file || s->pid != s[-1].pid)
            first = s->ts;
        k->keys[i] = fold(fold(s->what, (uint64_t)s->pid), (uint64_t)s->ts - (uint64_t)first);
        k->off[s->file + 1]++;
    }
    for (size_t f = 0; f < nfiles; f++)
        k->off[f + 1] += k->off[f];
    for (size_t f = 0; f < nfiles; f++)
        if (k->off[f + 1] > k->off[f])
            qsort(k->keys + k->off[f], k->off[f + 1] - k->off[f], sizeof *k->keys, by_u64);
    return true;
}

/* What is left of a candidate: its distinct keys, sorted, and how many of each remain. */
typedef struct remains {
    const uint64_t *key;
    size_t *count;
    size_t n;
} remains;

static size_t find_key(const remains *r, uint64_t key)
{
    const uint64_t *at = r->n ? bsearch(&key, r->key, r->n, sizeof *r->key, by_u64) : NULL;
    return at ? (size_t)(at - r->key) : SIZE_MAX;
}

/* Subtracts the sorted keys v[0..n) from r when r holds every one of them; else leaves r alone. */
static bool take_whole(remains *r, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j] == v[i])
            j++;
        size_t at = find_key(r, v[i]);
        if (at == SIZE_MAX || r->count[at] < j - i)
            return false;
        i = j;
    }
    for (size_t i = 0; i < n; i++)
        r->count[find_key(r, v[i])]--;
    return true;
}

/* A candidate's keys (sorted) as distinct keys and counts; the keys are compacted in place. */
static bool remains_of(uint64_t *v, size_t n, remains *r)
{
    r->count = malloc((n ? n : 1) * sizeof *r->count);
    if (!r->count)
        return false;
    r->key = v;
    r->n = 0;
    for (size_t i = 0; i < n; i++) {
        if (r->n && v[r->n - 1] == v[i]) {
            r->count[r->n - 1]++;
        } else {
            v[r->n] = v[i];
            r->count[r->n++] = 1;
        }
    }
    return true;
}

static bool all_taken(const remains *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->count[i])
            return false;
    return true;
}

typedef struct probe {
    size_t *input;      /* probed file -> index among the given inputs */
    bool *candidate;    /* by probed file */
    size_t n;
} probe;

/* Judges probed candidate c against every smaller probed file; appends the merge when it is one.
 * False when out of memory. */
static bool judge(const probe *p, const keyed *k, const uint64_t *sizes, size_t c, dfs_merges *out)
{
    size_t n = k->off[c + 1] - k->off[c];
    uint64_t *mine = malloc((n ? n : 1) * sizeof *mine);
    size_t *src = malloc(p->n * sizeof *src);
    remains r = {0};
    bool ok = mine && src;
    if (ok && n) {
        memcpy(mine, k->keys + k->off[c], n * sizeof *mine);
        ok = remains_of(mine, n, &r);
    }
    size_t nsrc = 0;
    for (size_t f = 0; ok && n && f < p->n; f++) {
        size_t m = k->off[f + 1] - k->off[f];
        if (f != c && m && sizes[p->input[f]] < sizes[p->input[c]] && take_whole(&r, k->keys + k->off[f], m))
            src[nsrc++] = p->input[f];
    }
    if (ok && n && nsrc >= 2 && all_taken(&r)) {
        dfs_merge *grown = realloc(out->v, (out->n + 1) * sizeof *grown);
        ok = grown != NULL;
        if (ok) {
            out->v = grown;
            out->v[out->n++] = (dfs_merge){.merged = p->input[c], .sources = src, .nsources = nsrc};
            src = NULL;
        }
    }
    free(r.count);
    free(mine);
    free(src);
    return ok;
}

/* Whether input i may be a merge: two other inputs smaller than it, it at least 3/4 of the two
 * smallest of them together, and all of them together at least half its size (a merge is about
 * as large as what it merges; ranks of similar sizes are no candidates). */
static bool may_be_merge(const uint64_t *sizes, size_t n, size_t i)
{
    uint64_t a = UINT64_MAX, b = UINT64_MAX, below = 0;
    size_t smaller = 0;
    for (size_t j = 0; j < n; j++) {
        if (j == i || sizes[j] >= sizes[i] || sizes[j] == 0)
            continue;
        smaller++;
        below += sizes[j];
        if (sizes[j] < a) {
            b = a;
            a = sizes[j];
        } else if (sizes[j] < b) {
            b = sizes[j];
        }
    }
    return smaller >= 2 && 3 * (a + b) <= 4 * sizes[i] && 2 * below >= sizes[i];
}

/* Chooses the files to read again; false when there is nothing to check or too much to read. */
static bool plan_probe(const uint64_t *sizes, size_t n, probe *p)
{
    bool *cand = calloc(n, sizeof *cand);
    uint64_t biggest = 0;
    for (size_t i = 0; cand && i < n; i++) {
        cand[i] = may_be_merge(sizes, n, i);
        if (cand[i] && sizes[i] > biggest)
            biggest = sizes[i];
    }
    uint64_t total = 0;
    size_t m = 0;
    for (size_t i = 0; cand && biggest && i < n; i++)
        if (cand[i] || sizes[i] < biggest) {
            total += sizes[i];
            m++;
        }
    p->input = biggest && total <= DFS_MERGES_MAX_BYTES ? malloc(m * sizeof *p->input) : NULL;
    p->candidate = p->input ? malloc(m * sizeof *p->candidate) : NULL;
    p->n = 0;
    for (size_t i = 0; p->candidate && i < n; i++)
        if (cand[i] || sizes[i] < biggest) {
            p->candidate[p->n] = cand[i];
            p->input[p->n++] = i;
        }
    free(cand);
    return p->candidate != NULL;
}

/* Reads the probed files; their timed events, or false (a failed read, out of memory). */
static bool read_probe(const char *const *paths, const probe *p, const dfs_options *opt, collector *into)
{
    dfs_options o = *opt;
    o.progress = NULL;
    o.progress_ctx = NULL;
    dfs_run *run = dfs_run_new(&o);
    bool ok = run != NULL;
    for (size_t f = 0; ok && f < p->n; f++)
        ok = dfs_run_add_path(run, paths[p->input[f]]) == DFS_OK;
    ok = ok && dfs_run_file_count(run) == p->n; /* every probed file once, in order */
    dfs_consumer cons = {.user = into, .want = {.all_args = true}, .worker_begin = begin,
                         .on_batch = on_batch, .worker_end = end};
    dfs_consumer *list[] = {&cons};
    if (ok) {
        int rc = dfs_run_read(run, list, 1);
        ok = (rc == DFS_EXIT_OK || rc == DFS_EXIT_DAMAGED || rc == DFS_EXIT_STRICT) && !into->nomem;
    }
    dfs_run_free(run);
    return ok;
}

bool dfs_merges_find(const char *const *paths, const uint64_t *sizes, size_t n, const dfs_options *opt,
                     dfs_merges *out)
{
    memset(out, 0, sizeof *out);
    probe p = {0};
    if (n < 3 || !plan_probe(sizes, n, &p))
        return true;
    collector all = {0};
    keyed k = {0};
    bool ok = true;
    if (read_probe(paths, &p, opt, &all)) {
        ok = key_events(&all.all, p.n, &k);
        for (size_t c = 0; ok && c < p.n; c++)
            if (p.candidate[c])
                ok = judge(&p, &k, sizes, c, out);
    } else {
        ok = !all.nomem;
    }
    dfs_vec_free(&all.all);
    free(k.keys);
    free(k.off);
    free(p.input);
    free(p.candidate);
    if (!ok)
        dfs_merges_free(out);
    return ok;
}

void dfs_merges_free(dfs_merges *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i].sources);
    free(m->v);
    memset(m, 0, sizeof *m);
}
