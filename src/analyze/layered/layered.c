/* layered.c - layered analysis: the streaming pass (classification and per-cell aggregation in
 * per-worker states), the merge, and the checks that decide whether the provisional origin held.
 * Deriving views from the merged cells is in layered_views.c (with layered_rows.c and
 * layered_columns.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/layered/layered_internal.h"
#include "util/hash.h"

const char *const dfs_size_bin_suffix[DFS_SIZE_BINS] = {
    "0_4kib",    "4kib_16kib",  "16kib_64kib",  "64kib_256kib", "256kib_1mib", "1mib_4mib",
    "4mib_16mib", "16mib_64mib", "64mib_256mib", "256mib_1gib",  "1gib_4gib",   "4gib_plus"};

/* Right-closed bins (lo, hi] with edges 4 KiB · 4^k = 2^(12 + 2k) (spec §6.3): bin k holds the
 * sizes whose ceil(log2) is 12 + 2k − 1 or 12 + 2k. */
int dfs_size_bin(uint64_t size)
{
    if (size <= 4096)
        return 0;
    int ceil_log2 = 64 - __builtin_clzll(size - 1);
    int b = (ceil_log2 - 11) / 2;
    return b < DFS_SIZE_BINS - 1 ? b : DFS_SIZE_BINS - 1;
}

void dfs_lagg_init(lagg *a, bool sized)
{
    memset(a, 0, sized ? sizeof *a : offsetof(lagg, size));
    a->time_min = INT64_MAX;
    a->time_max = INT64_MIN;
    if (sized)
        a->size_min = UINT64_MAX;
}

void dfs_block_init(const dfs_layered *la, unsigned l, lunit *block)
{
    *(block_head *)(void *)block = (block_head){0};
    for (unsigned f = 0; f < la->nfam[l]; f++)
        dfs_lagg_init(dfs_fam(la, block, l, f), la->fam_sized[l][f]);
}

void dfs_cell_init(const dfs_layered *la, uint32_t kind, unsigned l, lunit *block)
{
    if (kind == CELL_TIME) {
        memset(block, 0, la->slim_units[l] * sizeof(lunit));
        return;
    }
    dfs_block_init(la, l, block);
    if (kind == CELL_BIN)
        *dfs_bin_members(la, block, l) = (bin_members){0};
}

void dfs_slim_merge(const dfs_layered *la, lunit *block, unsigned l, unsigned f, const lagg *from)
{
    if (!from->count && !from->time)
        return;
    uint64_t *w = dfs_slim(la, block, l, f);
    w[SLIM_COUNT] += from->count;
    w[SLIM_TIME] += (uint64_t)from->time;
    if (la->fam_sized[l][f])
        w[SLIM_SIZE] += from->size;
    dfs_block_mark(block, f);
}

void dfs_slim_block_merge(const dfs_layered *la, unsigned l, lunit *into, const lunit *from)
{
    for (uint64_t m = dfs_block_used(from); m; m &= m - 1) {
        unsigned f = (unsigned)__builtin_ctzll(m);
        const uint64_t *s = dfs_slim(la, (lunit *)from, l, f);
        uint64_t *d = dfs_slim(la, into, l, f);
        for (unsigned i = 0; i < SLIM_WORDS(la->fam_sized[l][f]); i++)
            d[i] += s[i];
        dfs_block_mark(into, f);
    }
}

void dfs_fam_merge(const dfs_layered *la, lunit *block, unsigned l, unsigned f, const lagg *from)
{
    if (!from->count && !from->time)
        return;
    lagg *into = dfs_fam(la, block, l, f);
    if (la->sums_only) { /* (see dfs_fam_add) */
        into->count += from->count;
        into->time += from->time;
        if (la->fam_sized[l][f])
            into->size += from->size;
    } else {
        dfs_lagg_merge(into, from, la->fam_sized[l][f]);
    }
    dfs_block_mark(block, f);
}

void dfs_block_merge(const dfs_layered *la, unsigned l, lunit *into, const lunit *from)
{
    for (uint64_t m = dfs_block_used(from); m; m &= m - 1) {
        unsigned f = (unsigned)__builtin_ctzll(m);
        dfs_fam_merge(la, into, l, f, dfs_fam(la, (lunit *)from, l, f));
    }
}

void dfs_lagg_add(lagg *a, int64_t dur, uint64_t size, bool with_size)
{
    a->count++;
    a->time += dur;
    a->time_sq += (unsigned __int128)((uint64_t)dur) * (uint64_t)dur;
    if (dur < a->time_min)
        a->time_min = dur;
    if (dur > a->time_max)
        a->time_max = dur;
    if (!with_size || size == 0)
        return;
    a->size += size;
    a->sized++;
    a->size_sq += (unsigned __int128)size * size;
    if (size < a->size_min)
        a->size_min = size;
    if (size > a->size_max)
        a->size_max = size;
    a->bins[dfs_size_bin(size)]++;
}

/* ----- names ---------------------------------------------------------------------------------- */

static const char *const view_names[DFS_VIEW__COUNT] = {"time_range", "proc_name", "file_name",
                                                         "host_name",  "proc_id",   "thread_id"};

const char *dfs_view_name(dfs_view_type v)
{
    return (unsigned)v < DFS_VIEW__COUNT ? view_names[v] : "?";
}

/* The short name of each view, in the order of view_names. */
static const char *const view_aliases[DFS_VIEW__COUNT] = {"time", "proc", "file", "host", "pid", "tid"};

const char *dfs_view_alias(dfs_view_type v)
{
    return (unsigned)v < DFS_VIEW__COUNT ? view_aliases[v] : "?";
}

int dfs_view_parse(const char *name)
{
    for (int v = 0; v < DFS_VIEW__COUNT; v++)
        if (strcmp(name, view_names[v]) == 0 || strcmp(name, view_aliases[v]) == 0)
            return v;
    return -1;
}

const char *dfs_compat_name(dfs_compat c)
{
    return c == DFS_COMPAT_DFANALYZER ? "dfanalyzer" : c == DFS_COMPAT_DFANALYZER_SUM ? "dfanalyzer-sum" : "exact";
}

/* ----- per-worker state --------------------------------------------------------------------- */

void dfs_layered_acc_init(acc *a)
{
    memset(a, 0, sizeof *a);
    dfs_keymap_init(&a->procs, sizeof(proc_key));
    dfs_keymap_init(&a->cells, sizeof(cell_key));
    dfs_sortset_init(&a->nuniq);
    dfs_keymap_init(&a->pmap, sizeof(proc_key));
    dfs_sortset_init(&a->fhashes);
    dfs_keyset_init(&a->hhashes, 2 * sizeof(uint64_t));
    dfs_keyset_init(&a->pids, sizeof(int64_t));
    dfs_clock_track_init(&a->clocks);
    a->min_ts = INT64_MAX;
    a->max_end = INT64_MIN;
}

void dfs_layered_acc_free(acc *a)
{
    dfs_keymap_free(&a->procs);
    dfs_vec_free(&a->proc_v);
    dfs_layered_rows_free(a);
    dfs_keymap_free(&a->cells);
    dfs_vec_free(&a->cell_v);
    dfs_vec_free(&a->bin_cells);
    for (size_t i = 0; i < a->pools.n; i++)
        dfs_vec_free(&a->pools.v[i]);
    dfs_vec_free(&a->pools);
    dfs_sortset_free(&a->nuniq);
    dfs_keymap_free(&a->pmap);
    dfs_vec_free(&a->pproc_v);
    for (size_t i = 0; i < a->ovl.n; i++)
        dfs_ovl_free(a->ovl.v[i]);
    dfs_ovl_free(a->spare);
    dfs_ovl_free(a->wall);
    dfs_vec_free(&a->ovl);
    dfs_vec_free(&a->xs);
    dfs_vec_free(&a->active);
    dfs_vec_free(&a->pending);
    dfs_sortset_free(&a->fhashes);
    dfs_keyset_free(&a->hhashes);
    dfs_keyset_free(&a->pids);
    for (size_t i = 0; i < a->cat_texts.n; i++)
        free(a->cat_texts.v[i]);
    dfs_vec_free(&a->cat_texts);
    for (size_t i = 0; i < a->unlayered.n; i++)
        free(a->unlayered.v[i].category);
    dfs_vec_free(&a->unlayered);
    dfs_clock_track_free(&a->clocks);
}

/* Direct-mapped memos of a worker: a thread's events interleave with those of the process's
 * other threads, and a file's with those of the others being read, so a one-entry cache misses
 * at every switch, and each miss costs a hash table probe (a thread) or a set's append (a file). */
#define THREAD_MEMO 16 /* threads: key -> index */
#define FILE_MEMO 256  /* files lately added to the raw statistics' set */

typedef struct thread_slot {
    proc_key key;
    uint32_t idx;
    uint32_t process; /* the index of its process (exact mode) + 1; 0: not looked up yet */
    bool used;
} thread_slot;

/* The last (bin, file) of a thread counted among the distinct files, and the layers it was counted
 * for: a thread reads a file in a run of calls, so most events repeat it. */
typedef struct files_seen {
    int64_t bin;
    dfs_str file; /* 0: none */
    uint64_t layers;
} files_seen;

typedef struct worker_state {
    dfs_layered *la;
    acc a;
    dfs_postread *cls;
    const dfs_pr_front *front; /* cls's memo of whole answers (NULL when it reads per-event columns) */
    DFS_VEC(uint8_t) cat_used; /* classifier category ids of events kept by the post-read rules */
    DFS_VEC(dfs_layered_unlayered) unlayered; /* by classifier category id (category unset) */
    uint64_t files[FILE_MEMO][2]; /* {0, 0}: empty */
    /* Raw statistics: the (hash, name) of the last file looked at (a thread's calls repeat it,
     * and the memo above misses among many files) and of the last host added, as the event gives
     * them ({0, 0}, none, is never looked at); the last pid added. */
    uint64_t last_fhash, last_hhash;
    dfs_str last_fname, last_host;
    int64_t last_pid;
    bool have_pid;
    thread_slot threads[THREAD_MEMO];
    uint32_t cur_file; /* the input being read */
    bool have_file;
    bool in_pieces; /* it is read in pieces (dfs_batch.in_pieces) */
    dfs_stage stage; /* time-cell updates on their way to the cells (layered_cells.c) */
    DFS_VEC(files_seen) seen; /* [thread index] */
    bool have_bin; /* the last bin, and its bounds [bin_lo, bin_hi) */
    int64_t bin, bin_lo, bin_hi;
} worker_state;

/* Index of a process or thread key in (map, vec), adding it when new; UINT32_MAX when out of
 * memory. */
static uint32_t key_index(acc *a, dfs_keymap *map, void *vec_, const proc_key *k, const lev *e, bool *fresh)
{
    DFS_VEC(proc_info) *vec = vec_;
    uint32_t idx;
    if (!dfs_keymap_get_or_put(map, k, (uint32_t)vec->n, &idx, fresh)) {
        a->failed = true;
        return UINT32_MAX;
    }
    if (*fresh) {
        proc_info pi = {.key = *k, .file = e->file, .offset = e->offset, .first = INT64_MAX, .last = INT64_MIN};
        if (!dfs_vec_push(vec, pi)) {
            a->failed = true;
            return UINT32_MAX;
        }
    }
    return idx;
}

/* The key of e's thread, or with tid 0 of its process. */
static proc_key key_of(const lev *e, int64_t tid)
{
    return (proc_key){.hhash = e->hhash, .host = e->host, .pid = e->pid, .tid = tid};
}

static uint32_t proc_index(acc *a, const lev *e)
{
    proc_key k = key_of(e, e->tid);
    bool fresh;
    return key_index(a, &a->procs, &a->proc_v, &k, e, &fresh);
}

/* Whether k is the process (tid 0) or thread of e. Field by field, not memcmp against a key just
 * built on the stack: its narrow stores cannot forward to memcmp's wide loads, and the stall cost
 * a few percent of the run. */
static bool key_is(const proc_key *k, const lev *e, int64_t tid)
{
    return k->pid == e->pid && k->tid == tid && k->hhash == e->hhash && k->host == e->host;
}

/* The memo slot of an event's thread; NULL when out of memory. */
static thread_slot *thread_of(worker_state *w, acc *a, const lev *e)
{
    thread_slot *t = &w->threads[((uint64_t)e->pid * 31 + (uint64_t)e->tid) % THREAD_MEMO];
    if (t->used && key_is(&t->key, e, e->tid))
        return t;
    uint32_t idx = proc_index(a, e);
    if (idx == UINT32_MAX)
        return NULL;
    *t = (thread_slot){.key = key_of(e, e->tid), .idx = idx, .used = true};
    return t;
}

/* The process (host, pid) of an event: the scope of exact overlap (overlap.md §3.2). */
static uint32_t process_index(acc *a, const lev *e)
{
    proc_key k = key_of(e, 0);
    bool fresh;
    uint32_t idx = key_index(a, &a->pmap, &a->pproc_v, &k, e, &fresh);
    xstream none = {.mark = dfs_stream_mark_new()};
    if (idx != UINT32_MAX && fresh && (!dfs_vec_push(&a->ovl, NULL) || !dfs_vec_push(&a->xs, none))) {
        a->failed = true;
        return UINT32_MAX;
    }
    return idx;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t bin_of(const dfs_layered *la, int64_t ts)
{
    /* ts − origin cannot overflow for any real clock; saturate for absurd ones */
    __int128 d = (__int128)ts - la->opt.origin_ns;
    if (d > INT64_MAX || d < INT64_MIN)
        return d > 0 ? INT64_MAX : INT64_MIN;
    return floor_div((int64_t)d, la->opt.granularity_ns);
}

/* The bin of ts, through the worker's last bin: events come nearly in time order. */
static int64_t bin_at(worker_state *w, const dfs_layered *la, int64_t ts)
{
    if (w->have_bin && ts >= w->bin_lo && ts < w->bin_hi)
        return w->bin;
    int64_t bin = bin_of(la, ts);
    __int128 lo = (__int128)bin * la->opt.granularity_ns + la->opt.origin_ns, hi = lo + la->opt.granularity_ns;
    /* (a saturated bin, or bounds beyond int64, are not kept) */
    w->have_bin = bin != INT64_MIN && bin != INT64_MAX && lo >= INT64_MIN && hi <= INT64_MAX;
    w->bin = bin;
    w->bin_lo = (int64_t)lo;
    w->bin_hi = (int64_t)hi;
    return bin;
}

static void add_to_layer(dfs_layered *la, acc *a, const lev *e, const dfs_pr_event *pe, unsigned l, uint32_t proc,
                         int64_t axis, uint32_t kind, uint64_t size)
{
    cell_key k = {.layer = l, .proc = proc, .axis = axis, .kind = kind};
    lunit *block = dfs_layered_cell(la, a, &k);
    if (!block)
        return;
    for (unsigned f = 0; f < la->nfam[l]; f++) {
        if (dfs_fam_takes(la, l, f, pe->match)) {
            dfs_fam_add(la, dfs_fam(la, block, l, f), e->dur, size, la->fam_sized[l][f]);
            dfs_block_mark(block, f);
        }
    }
}

/* Files seen by (layer, bin) and by (layer, thread) for the size layers `layers` of an event, for
 * the distinct-file counts. */
static void count_files(worker_state *w, acc *a, uint64_t layers, int64_t bin, uint32_t proc, dfs_str fname)
{
    if (!dfs_vec_extend_zeroed(&w->seen, (size_t)proc + 1)) {
        a->failed = true;
        return;
    }
    files_seen *s = &w->seen.v[proc];
    if (s->file != fname || s->bin != bin)
        *s = (files_seen){.bin = bin, .file = fname};
    for (uint64_t m = layers & ~s->layers; m;) { /* one key per group of layers (mostly one) */
        uint32_t g = (uint32_t)__builtin_ctzll(m) / NUNIQ_GROUP;
        uint32_t bits = (uint32_t)(m >> (g * NUNIQ_GROUP)) & NUNIQ_GROUP_MASK;
        nuniq_key k1 = {.group = g, .layers = bits, .kind = CELL_TIME, .axis = bin, .file = fname};
        nuniq_key k2 = {.group = g, .layers = bits, .kind = CELL_FILE, .axis = proc, .file = fname};
        if (!dfs_sortset_add(&a->nuniq, dfs_nuniq_encode(&k1)) ||
            !dfs_sortset_add(&a->nuniq, dfs_nuniq_encode(&k2))) {
            a->failed = true;
            return;
        }
        m &= ~((uint64_t)bits << (g * NUNIQ_GROUP));
    }
    s->layers |= layers;
}

/* A binned unit grew: with the workers' bins over the bound, this one's engines stop (timebins.h). */
static void count_bins(dfs_layered *la, acc *a, uint64_t *counted, uint64_t events, int64_t start, int64_t end)
{
    uint64_t add = dfs_bins_grow(counted, events, start, end, la->opt.granularity_ns);
    if (add && !la->opt.bins_settled &&
        atomic_fetch_add_explicit(&la->bins_counted, add, memory_order_relaxed) + add > DFS_TIME_BINS_MAX)
        a->bins_over = true;
}

/* An event split over `reach` bins in `nlayers` layers holds a time cell in each of them: the cells
 * beyond its start bins count against the bound too, or fine bins under long events (an epoch at
 * 1 ms) would fill memory with cells the run's span alone never counts. */
static void count_spread(dfs_layered *la, acc *a, int64_t dur, unsigned nlayers)
{
    uint64_t reach = dfs_bins_event(dur, la->opt.granularity_ns);
    if (reach < 2)
        return;
    uint64_t add = (reach - 1) > UINT64_MAX / nlayers ? UINT64_MAX : (reach - 1) * nlayers;
    a->spread_cells = dfs_bins_add(a->spread_cells, add);
    a->spread_ns = dfs_bins_add(a->spread_ns, (uint64_t)dur > UINT64_MAX / nlayers ? UINT64_MAX : (uint64_t)dur * nlayers);
    if (!la->opt.bins_settled &&
        atomic_fetch_add_explicit(&la->bins_counted, add, memory_order_relaxed) + add > DFS_TIME_BINS_MAX)
        a->bins_over = true;
}

/* (t: the event's thread, which remembers its process) */
static void add_exact(worker_state *w, acc *a, thread_slot *t, const lev *e, uint64_t layers, uint64_t size)
{
    uint64_t mask = layers & w->la->ovl_classes;
    if (!mask)
        return;
    if (!t->process) {
        uint32_t proc = process_index(a, e);
        if (proc == UINT32_MAX)
            return;
        t->process = proc + 1;
    }
    if (dfs_layered_needs_columns(&w->la->opt)) { /* its engine keeps bins: its span counts */
        proc_info *pi = &a->pproc_v.v[t->process - 1];
        int64_t end;
        pi->first = e->ts < pi->first ? e->ts : pi->first;
        pi->last = __builtin_add_overflow(e->ts, e->dur, &end) ? INT64_MAX : end > pi->last ? end : pi->last;
        pi->bin_events = dfs_bins_add(pi->bin_events, dfs_bins_event(e->dur, w->la->opt.granularity_ns));
        count_bins(w->la, a, &pi->bins, pi->bin_events, pi->first, pi->last);
    }
    if (!a->bins_over)
        dfs_layered_exact_add(w->la, a, t->process - 1, e, mask, size, w->in_pieces);
}

static uint64_t lev_size(const dfs_pr_event *pe, const lev *e)
{
    switch (pe->size_rule) {
    case DFS_SIZE_FROM_SIZE_SUM:
        return e->size_sum;
    case DFS_SIZE_FROM_RET:
        return e->ret;
    case DFS_SIZE_FROM_IMAGE:
        return e->image_size;
    default:
        return 0;
    }
}

/* Stages an event in its start bin `bin`: whole (--compat: DFAnalyzer counts an event wholly in the
 * bin of its start), or split over the bins it overlaps, each getting only its overlap, so that a
 * bin never holds more of an event than its width and the pieces add up to the duration exactly
 * (integer ns). A saturated bin (an absurd clock) takes the whole event. */
static void stage_event(worker_state *w, dfs_layered *la, acc *a, uint32_t proc, int64_t bin,
                        const dfs_pr_event *pe, const lev *e, uint64_t size)
{
    stage_piece p = {.dur = e->dur, .piece = e->dur, .size = size, .start = true};
    int64_t g = la->opt.granularity_ns;
    __int128 hi = (__int128)bin * g + la->opt.origin_ns + g, end = (__int128)e->ts + e->dur;
    bool split = la->opt.compat == DFS_COMPAT_NONE && bin != INT64_MIN && bin != INT64_MAX && hi < end;
    if (split)
        p.piece = (int64_t)(hi - e->ts);
    dfs_stage_add(la, a, &w->stage, proc, bin, pe, &p);
    for (p.start = false; split && hi < end && bin < INT64_MAX - 1;) {
        __int128 lo = hi;
        hi = lo + g;
        p.piece = (int64_t)((hi < end ? hi : end) - lo);
        dfs_stage_add(la, a, &w->stage, proc, ++bin, pe, &p);
    }
}

/* Post-read classification and aggregation of one event whose file name is settled. */
static void analyse(worker_state *w, dfs_layered *la, acc *a, const dfs_run *run, const lev *e)
{
    dfs_pr_event pe;
    if (!dfs_pr_front_find(w->front, e->cat, e->name, e->fname, e->has_size_sum, &pe)) {
        dfs_pr_input in = {.cat = e->cat, .name = e->name, .fname = e->fname, .host = e->host,
                           .pid = e->pid, .tid = e->tid, .has_size_sum = e->has_size_sum,
                           .arg_truths = e->arg_truths};
        if (!dfs_postread_classify_miss(w->cls, run, &in, &pe)) {
            a->failed = true;
            return;
        }
    }
    if (!la->opt.keep_ignored && (pe.dropped_file || pe.dropped_func)) {
        a->dropped_files += pe.dropped_file;
        a->dropped_functions += !pe.dropped_file;
        return;
    }
    a->post_read++;
    if (!dfs_vec_extend_zeroed(&w->cat_used, (size_t)pe.cat + 1)) {
        a->failed = true;
        return;
    }
    w->cat_used.v[pe.cat] = 1;
    a->post_read_dur += (uint64_t)e->dur;
    if (!pe.layers && (pe.match & la->plan.left_out_texts)) { /* the preset's left_out: said apart */
        a->on_purpose++;
        a->on_purpose_dur += (uint64_t)e->dur;
        return;
    }
    if (!pe.layers) { /* counted, so that a preset leaving much of the trace out is said */
        if (!dfs_vec_extend_zeroed(&w->unlayered, (size_t)pe.cat + 1)) {
            a->failed = true;
            return;
        }
        w->unlayered.v[pe.cat].events++;
        w->unlayered.v[pe.cat].dur_ns += (uint64_t)e->dur;
        return;
    }
    thread_slot *thread = thread_of(w, a, e);
    if (!thread)
        return;
    uint32_t proc = thread->idx;
    uint64_t size = lev_size(&pe, e);
    if (la->opt.compat == DFS_COMPAT_NONE)
        count_spread(la, a, e->dur, (unsigned)__builtin_popcountll(pe.layers));
    if (!a->bins_over) { /* over the bin bound the pass is refused or read again: only spans matter */
        int64_t bin = bin_at(w, la, e->ts);
        bool file_view = (la->opt.views >> DFS_VIEW_FILE_NAME) & 1;
        stage_event(w, la, a, proc, bin, &pe, e, size);
        if (e->fname && (pe.layers & la->size_layers))
            count_files(w, a, pe.layers & la->size_layers, bin, proc, e->fname);
        if (e->fname && file_view)
            for (uint64_t m = pe.layers; m; m &= m - 1)
                add_to_layer(la, a, e, &pe, (unsigned)__builtin_ctzll(m), proc, (int64_t)e->fname, CELL_FILE, size);
    }
    if (la->opt.compat != DFS_COMPAT_NONE)
        return;
    add_exact(w, a, thread, e, pe.layers, size);
    if (!a->bins_over) /* the wall engine's bins are the run's, which count already */
        dfs_layered_wall_add(la, a, e, pe.layers);
}

static uint64_t u64_value(const dfs_value *v)
{
    if (v->type == DFS_V_UINT)
        return v->as.u;
    if (v->type == DFS_V_FLOAT)
        return v->as.f > 0 && v->as.f < 1.8e19 ? (uint64_t)v->as.f : 0;
    int64_t i;
    return dfs_value_int(v, &i) && i > 0 ? (uint64_t)i : 0;
}

/* The memo slot of a file (its hash, or its name's id). */
static uint64_t *recent_file(worker_state *w, uint64_t key)
{
    return w->files[((key ^ key >> 29) * UINT64_C(0x9e3779b97f4a7c15) >> 32) % FILE_MEMO];
}

static void raw_stats(worker_state *w, acc *a, const lev *e, int64_t end)
{
    a->events++;
    a->have_time = true;
    if (e->ts < a->min_ts)
        a->min_ts = e->ts;
    if (end > a->max_end)
        a->max_end = end;
    /* files and hosts by hash, or by name where the trace writes names (2023 format). A file
     * not added lately is appended to a sortset: most files are new, tens of thousands of them,
     * and a hash set's probe, or a table by name id, cost a cache miss for each one
     * (docs/PERFORMANCE.md, "Layered analysis"). */
    if ((e->fhash || e->fname) && (e->fhash != w->last_fhash || e->fname != w->last_fname)) {
        w->last_fhash = e->fhash;
        w->last_fname = e->fname;
        dfs_key128 file = {e->fhash ? 1 : 2, e->fhash ? e->fhash : e->fname};
        uint64_t *known = recent_file(w, file.lo);
        if (known[0] != file.hi || known[1] != file.lo) {
            a->failed |= !dfs_sortset_add(&a->fhashes, file);
            known[0] = file.hi;
            known[1] = file.lo;
        }
    }
    if ((e->hhash || e->host) && (e->hhash != w->last_hhash || e->host != w->last_host)) {
        uint64_t host[2] = {e->hhash ? 1 : 2, e->hhash ? e->hhash : e->host};
        a->failed |= dfs_keyset_add(&a->hhashes, host) < 0;
        w->last_hhash = e->hhash;
        w->last_host = e->host;
    }
    if (!w->have_pid || e->pid != w->last_pid) {
        a->failed |= dfs_keyset_add(&a->pids, &e->pid) < 0;
        w->last_pid = e->pid;
        w->have_pid = true;
    }
}

static bool to_lev(const dfs_event *ev, const dfs_file_clock *clk, lev *e)
{
    e->ts = dfs_clock_apply(clk, ev->ts);
    e->dur = dfs_clock_scale(clk, ev->dur);
    e->fhash = ev->fhash;
    e->hhash = ev->hhash;
    e->offset = ev->offset;
    e->pid = ev->pid;
    e->tid = ev->tid;
    e->cat = ev->cat;
    e->name = ev->name;
    e->fname = ev->fname;
    e->host = ev->host;
    e->file = ev->file;
    e->has_size_sum = false;
    e->size_sum = e->ret = e->image_size = 0;
    e->arg_truths = 0;
    /* one pass over the few args the parser kept, backwards: the first of a repeated key wins,
     * as with dfs_event_arg */
    for (uint32_t i = ev->nargs; i-- > 0;) {
        const dfs_arg *g = &ev->args[i];
        switch (g->key) {
        case DFS_KEY_STR(DFS_KEY_SIZE_SUM):
            e->has_size_sum = true;
            e->size_sum = u64_value(&g->val);
            break;
        case DFS_KEY_STR(DFS_KEY_RET):
            e->ret = u64_value(&g->val);
            break;
        case DFS_KEY_STR(DFS_KEY_IMAGE_SIZE):
            e->image_size = u64_value(&g->val);
            break;
        default:
            break;
        }
    }
    return true;
}

static void on_event(worker_state *w, const dfs_run *run, const dfs_event *ev, const dfs_file_clock *clk,
                     dfs_file_seen *fs)
{
    acc *a = &w->a;
    if (ev->phase == DFS_PHASE_METADATA)
        return;
    bool timed = (ev->flags & DFS_EF_HAS_TS) && (ev->flags & DFS_EF_HAS_DUR);
    if (ev->phase != DFS_PHASE_COMPLETE || !timed) {
        if (!(ev->flags & DFS_EF_HAS_DUR) && ev->phase != DFS_PHASE_COUNTER)
            a->no_duration++;
        else
            a->other_phases++;
        return;
    }
    if ((ev->flags & DFS_EF_BAD_TIME) || ev->dur < 0) {
        a->bad_time++;
        return;
    }
    lev e;
    int64_t end;
    to_lev(ev, clk, &e);
    if (w->la->plan.uses_args) /* the arguments are gone once the batch is: answered now */
        e.arg_truths = dfs_postread_arg_truths(w->cls, run, ev);
    if (!dfs_span_end(e.ts, e.dur, &end)) { /* the file's clock took the end out of int64 */
        a->bad_time++;
        return;
    }
    raw_stats(w, a, &e, end);
    /* time rows and cells: the default splits an event over the bins it overlaps, the compatible
     * modes put it in its start bin */
    a->run_bin_events = dfs_bins_add(a->run_bin_events, w->la->opt.compat == DFS_COMPAT_NONE
                                                           ? dfs_bins_event(e.dur, w->la->opt.granularity_ns)
                                                           : 1);
    count_bins(w->la, a, &a->run_bins, a->run_bin_events, a->min_ts, a->max_end);
    if (ev->ts < fs->min_raw)
        fs->min_raw = ev->ts;
    fs->have = true;
    if (e.fhash && !e.fname) { /* defined elsewhere: classify at the end, after late resolution */
        if (!dfs_vec_push(&a->pending, e))
            a->failed = true;
        return;
    }
    analyse(w, w->la, a, run, &e);
}

static void on_batch(void *state, const dfs_run *run, const dfs_batch *batch)
{
    worker_state *w = state;
    if (w->have_file && batch->file != w->cur_file)
        dfs_layered_exact_input_changed(&w->a);
    w->have_file = true;
    w->cur_file = batch->file;
    w->in_pieces = batch->in_pieces;
    const dfs_layered_options *o = &w->la->opt;
    dfs_file_seen *fs = dfs_clock_track_file(&w->a.clocks, run, o->clocks, o->nclocks, batch->file);
    if (!fs) {
        w->a.failed = true;
        return;
    }
    dfs_file_clock clk = fs->clock;
    for (size_t i = 0; i < batch->count; i++)
        on_event(w, run, &batch->events[i], &clk, fs);
}

static void worker_free(worker_state *w)
{
    dfs_vec_free(&w->cat_used);
    dfs_vec_free(&w->unlayered);
    dfs_vec_free(&w->seen);
    dfs_postread_free(w->cls);
    dfs_layered_acc_free(&w->a);
    free(w);
}

/* The post-read categories of the events a worker kept join the total's; then the worker goes. */
static void worker_retire(dfs_layered *la, worker_state *w)
{
    for (uint32_t c = 0; c < w->cat_used.n; c++) {
        size_t len;
        const char *t = dfs_postread_cat_text(w->cls, c, &len);
        if (w->cat_used.v[c])
            dfs_layered_add_category(&la->total, t, len);
        if (c < w->unlayered.n && w->unlayered.v[c].events)
            dfs_layered_add_unlayered(&la->total, t, len, w->unlayered.v[c].events, w->unlayered.v[c].dur_ns);
    }
    worker_free(w);
}

static void *worker_begin(void *user)
{
    dfs_layered *la = user;
    worker_state *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->la = la;
    dfs_layered_acc_init(&w->a);
    w->a.streaming = la->ovl_classes && !la->opt.no_streaming;
    w->a.check_every = dfs_hold_check_every(dfs_hold_of(la->opt.hold_intervals));
    w->cls = dfs_postread_new(&la->plan);
    if (!w->cls) {
        worker_free(w);
        return NULL;
    }
    w->front = dfs_postread_front(w->cls);
    return w;
}

/* ----- merging ------------------------------------------------------------------------------ */

static void merge_sets(acc *into, const acc *from)
{
    into->failed |= !dfs_sortset_append(&into->fhashes, from->fhashes.v, from->fhashes.n);
    const void *k;
    size_t it = 0;
    while ((k = dfs_keyset_next(&from->hhashes, &it)))
        into->failed |= dfs_keyset_add(&into->hhashes, k) < 0;
    it = 0;
    while ((k = dfs_keyset_next(&from->pids, &it)))
        into->failed |= dfs_keyset_add(&into->pids, k) < 0;
}

void dfs_layered_merge_counters(acc *into, const acc *from)
{
    into->events += from->events;
    into->no_duration += from->no_duration;
    into->bad_time += from->bad_time;
    into->other_phases += from->other_phases;
    into->dropped_files += from->dropped_files;
    into->dropped_functions += from->dropped_functions;
    into->post_read += from->post_read;
    into->post_read_dur += from->post_read_dur;
    into->on_purpose += from->on_purpose;
    into->on_purpose_dur += from->on_purpose_dur;
    into->layer_events += from->layer_events;
    into->failed |= from->failed;
    into->stream_conflict |= from->stream_conflict;
    into->bins_over |= from->bins_over;
    into->run_bin_events = dfs_bins_add(into->run_bin_events, from->run_bin_events);
    into->spread_cells = dfs_bins_add(into->spread_cells, from->spread_cells);
    into->spread_ns = dfs_bins_add(into->spread_ns, from->spread_ns);
    into->cells_repeat |= from->cells_repeat;
    into->flushes += from->flushes;
    if (from->have_time) {
        into->have_time = true;
        if (from->min_ts < into->min_ts)
            into->min_ts = from->min_ts;
        if (from->max_end > into->max_end)
            into->max_end = from->max_end;
    }
}

/* A distinct-file key of the merged state: a file key's thread through the map (time keys stay). */
static bool file_key_to(dfs_key128 *key, void *procmap)
{
    nuniq_key k = dfs_nuniq_decode(*key);
    if (k.kind != CELL_FILE)
        return false;
    k.axis = ((const uint32_t *)procmap)[k.axis];
    *key = dfs_nuniq_encode(&k);
    return true;
}

/* Moves the cells and distinct-file keys of `from` into `into`, with process indices translated
 * through `procmap` (from's index -> into's index). The cells are appended, not looked up: most
 * belong to threads `into` never saw, and a key both hold becomes two cells, which the views sum
 * like the several cells of any member (layered_rows.c). */
static void merge_cells(acc *into, acc *from, const uint32_t *procmap)
{
    size_t base = into->pools.n;
    size_t first_cell = into->cell_v.n;
    if (base + from->pools.n > UINT32_MAX || !dfs_vec_reserve(&into->pools, from->pools.n) ||
        !dfs_vec_reserve(&into->cell_v, from->cell_v.n) || !dfs_vec_reserve(&into->bin_cells, from->bin_cells.n)) {
        into->failed = true;
        return;
    }
    for (size_t i = 0; i < from->bin_cells.n; i++)
        into->bin_cells.v[into->bin_cells.n++] = (uint32_t)(first_cell + from->bin_cells.v[i]);
    for (size_t i = 0; i < from->pools.n; i++) /* moved: from keeps none */
        into->pools.v[into->pools.n++] = from->pools.v[i];
    from->pools.n = 0;
    for (size_t i = 0; i < from->cell_v.n; i++) {
        cell c = from->cell_v.v[i];
        c.key.proc = procmap[c.key.proc];
        c.pool += (uint32_t)base;
        into->cell_v.v[into->cell_v.n++] = c;
    }
    /* from's keys, sorted in its worker (worker_done), stay a sorted run when its threads keep
     * their order in into (new threads are numbered in turn): the final compaction then only
     * merges them in. Into's own tail is merged first, so that the run is all of its tail. */
    into->failed |= !dfs_sortset_rekey(&from->nuniq, file_key_to, (void *)procmap);
    if (into->nuniq.sorted != into->nuniq.n && from->nuniq.sorted == from->nuniq.n)
        into->failed |= !dfs_sortset_compact(&into->nuniq);
    into->failed |= !dfs_sortset_append(&into->nuniq, from->nuniq.v, from->nuniq.n);
    dfs_sortset_free(&from->nuniq);
}

/* Moves each process's interval state of `from` into `into`. */
static void merge_processes(acc *into, acc *from)
{
    for (size_t p = 0; p < from->pproc_v.n && !into->failed; p++) {
        uint32_t idx = dfs_layered_add_proc(into, &from->pproc_v.v[p], true);
        if (idx == UINT32_MAX)
            return;
        dfs_layered_exact_merge(into, idx, &from->ovl.v[p]);
    }
}

uint32_t dfs_layered_add_proc(acc *a, const proc_info *pi, bool process)
{
    lev e = {.hhash = pi->key.hhash, .host = pi->key.host, .pid = pi->key.pid, .tid = pi->key.tid,
             .file = pi->file, .offset = pi->offset};
    uint32_t idx = process ? process_index(a, &e) : proc_index(a, &e);
    if (idx == UINT32_MAX)
        return idx;
    proc_info *mine = process ? &a->pproc_v.v[idx] : &a->proc_v.v[idx];
    mine->first = pi->first < mine->first ? pi->first : mine->first;
    mine->last = pi->last > mine->last ? pi->last : mine->last;
    mine->bin_events = dfs_bins_add(mine->bin_events, pi->bin_events);
    if (process)
        return idx;
    /* the earliest sighting wins, so late host resolution does not depend on -j */
    if (pi->file < mine->file || (pi->file == mine->file && pi->offset < mine->offset)) {
        mine->file = pi->file;
        mine->offset = pi->offset;
    }
    return idx;
}

/* from's threads as into's (an index map); a thread both know may have cells on both sides. */
static uint32_t *merge_procs(acc *into, const acc *from)
{
    uint32_t *map = malloc((from->proc_v.n + 1) * sizeof *map);
    if (!map) {
        into->failed = true;
        return NULL;
    }
    size_t known = into->proc_v.n;
    for (size_t p = 0; p < from->proc_v.n; p++) {
        map[p] = dfs_layered_add_proc(into, &from->proc_v.v[p], false);
        if (map[p] == UINT32_MAX) {
            free(map);
            return NULL;
        }
        into->cells_repeat |= map[p] < known;
    }
    return map;
}

void dfs_layered_add_unlayered(acc *a, const char *t, size_t len, uint64_t count, uint64_t dur)
{
    for (size_t i = 0; i < a->unlayered.n; i++) { /* categories are few: a linear search */
        dfs_layered_unlayered *u = &a->unlayered.v[i];
        if (strlen(u->category) == len && memcmp(u->category, t, len) == 0) {
            u->events += count;
            u->dur_ns += dur;
            return;
        }
    }
    dfs_layered_unlayered u = {strndup(t, len), count, dur};
    if (!u.category || !dfs_vec_push(&a->unlayered, u)) {
        free(u.category);
        a->failed = true;
    }
}

/* Adds a post-read category to the run's list (they are few: a linear search will do). */
void dfs_layered_add_category(acc *a, const char *t, size_t len)
{
    for (size_t i = 0; i < a->cat_texts.n; i++)
        if (strlen(a->cat_texts.v[i]) == len && memcmp(a->cat_texts.v[i], t, len) == 0)
            return;
    char *copy = strndup(t, len);
    if (!copy || !dfs_vec_push(&a->cat_texts, copy)) {
        free(copy);
        a->failed = true;
    }
}

static void merge_acc(acc *into, acc *from)
{
    dfs_layered_merge_counters(into, from);
    merge_sets(into, from);
    into->failed |= !dfs_clock_track_merge(&into->clocks, &from->clocks);
    uint32_t *map = merge_procs(into, from);
    if (!map)
        return;
    merge_cells(into, from, map);
    free(map);
    merge_processes(into, from);
    dfs_layered_wall_merge(into, from);
    for (size_t i = 0; i < from->pending.n; i++)
        into->failed |= !dfs_vec_push(&into->pending, from->pending.v[i]);
    for (size_t i = 0; i < from->unlayered.n; i++) {
        const dfs_layered_unlayered *u = &from->unlayered.v[i];
        dfs_layered_add_unlayered(into, u->category, strlen(u->category), u->events, u->dur_ns);
    }
}

/* Nothing merged into it yet (its tables may still be allocated but hold nothing). */
static bool acc_is_empty(const acc *a)
{
    return !a->events && !a->no_duration && !a->bad_time && !a->other_phases && !a->proc_v.n && !a->cell_v.n &&
           !a->pproc_v.n && !a->pending.n && !a->nuniq.n && !a->clocks.seen.n && !a->cat_texts.n && !a->unlayered.n && !a->wall && !a->wall_over && !a->failed;
}

/* In the worker's own thread once it has nothing left to read, beside the workers still reading:
 * its staged sums go into its cells and its distinct-file keys (of the views and of the raw
 * statistics) are sorted, work the merge would otherwise do one worker after the other. */
static void worker_done(void *state, const dfs_run *run)
{
    (void)run;
    worker_state *w = state;
    if (!w)
        return;
    dfs_stage_flush(w->la, &w->a, &w->stage);
    w->a.failed |= !dfs_sortset_compact(&w->a.nuniq) || !dfs_sortset_compact(&w->a.fhashes);
}

static void worker_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    dfs_layered *la = user;
    worker_state *w = state;
    if (!w) {
        la->total.failed = true;
        return;
    }
    dfs_postread_failed(w->cls, "layer", la->failure, sizeof la->failure);
    dfs_stage_flush(la, &w->a, &w->stage);
    if (acc_is_empty(&la->total)) { /* the first worker's state becomes the total: no copy */
        acc empty = la->total;
        la->total = w->a;
        w->a = empty;
    } else {
        merge_acc(&la->total, &w->a);
    }
    worker_retire(la, w);
}

/* ----- `auto`: one layer per post-read category (spec §5.6) -------------------------------- */

static bool auto_skip(const char *c)
{
    return !*c || strcmp(c, "dftracer") == 0;
}

static char *auto_key(const char *cat)
{
    if (strcmp(cat, "app") == 0)
        return strdup("app_cat");
    char *k = strdup(cat);
    for (char *p = k; p && *p; p++)
        if (*p == '.')
            *p = '_';
    return k;
}

/* A double-quoted predicate literal of s. */
static char *quoted(const char *s)
{
    size_t n = strlen(s);
    char *q = malloc(2 * n + 3), *o = q;
    if (!q)
        return NULL;
    *o++ = '"';
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            *o++ = '\\';
        *o++ = *s;
    }
    *o++ = '"';
    *o = '\0';
    return q;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The categories and all their dotted prefixes, sorted and distinct (parents come first). */
static size_t auto_chain(const dfs_layered_options *opt, char ***out)
{
    DFS_VEC(char *) all = {0};
    for (size_t i = 0; i < opt->nauto_categories; i++) {
        const char *c = opt->auto_categories[i];
        if (auto_skip(c))
            continue;
        for (const char *dot = c; dot; dot = strchr(dot + 1, '.')) {
            size_t n = *dot == '.' ? (size_t)(dot - c) : strlen(c);
            char *p = strndup(c, n);
            if (!p || !dfs_vec_push(&all, p))
                free(p);
            if (*dot != '.')
                break;
        }
        char *p = strdup(c);
        if (!p || !dfs_vec_push(&all, p))
            free(p);
    }
    if (all.n)
        qsort(all.v, all.n, sizeof *all.v, cmp_str);
    size_t m = 0;
    for (size_t i = 0; i < all.n; i++) {
        if (m && strcmp(all.v[m - 1], all.v[i]) == 0)
            free(all.v[i]);
        else
            all.v[m++] = all.v[i];
    }
    *out = all.v;
    return m;
}

static bool has_child(char *const *cats, size_t n, size_t i)
{
    size_t len = strlen(cats[i]);
    return i + 1 < n && strncmp(cats[i + 1], cats[i], len) == 0 && cats[i + 1][len] == '.';
}

static int parent_of(char *const *cats, size_t i)
{
    const char *dot = strrchr(cats[i], '.');
    if (!dot)
        return 0; /* app */
    size_t n = (size_t)(dot - cats[i]);
    for (size_t j = i; j-- > 0;)
        if (strlen(cats[j]) == n && strncmp(cats[j], cats[i], n) == 0)
            return (int)j + 1;
    return 0;
}

static char *auto_predicate(const char *cat, bool parent)
{
    char *q = quoted(cat);
    if (!q)
        return NULL;
    char *dotted = malloc(strlen(cat) + 2);
    if (!dotted) {
        free(q);
        return NULL;
    }
    sprintf(dotted, "%s.", cat);
    char *qd = quoted(dotted);
    free(dotted);
    size_t cap = strlen(q) + (qd ? strlen(qd) : 0) + 64;
    char *p = malloc(cap);
    if (p && qd && parent)
        snprintf(p, cap, "cat == %s | cat.str.startswith(%s)", q, qd);
    else if (p)
        snprintf(p, cap, "cat == %s", q);
    free(q);
    free(qd);
    return p;
}

static bool expand_auto(dfs_layered *la)
{
    char **cats;
    size_t n = auto_chain(&la->opt, &cats);
    if (n + 1 > DFS_PRESET_MAX_LAYERS) {
        for (size_t i = 0; i < n; i++)
            free(cats[i]);
        free(cats);
        return false;
    }
    la->auto_layers = calloc(n + 1, sizeof *la->auto_layers);
    la->auto_names = calloc(3 * (n + 1), sizeof *la->auto_names);
    if (!la->auto_layers || !la->auto_names)
        return false;
    la->auto_layers[0] = la->opt.preset->layers[0]; /* app: every event */
    la->nauto = n + 1;
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        dfs_preset_layer *L = &la->auto_layers[i + 1];
        char *key = auto_key(cats[i]);
        for (size_t j = 1; key && j <= i; j++) /* a collision gets _2 */
            if (strcmp(la->auto_layers[j].name, key) == 0) {
                char *k2 = malloc(strlen(key) + 3);
                if (k2)
                    sprintf(k2, "%s_2", key);
                free(key);
                key = k2;
            }
        char *pred = auto_predicate(cats[i], has_child(cats, n, i));
        la->auto_names[3 * i] = key;
        la->auto_names[3 * i + 1] = pred;
        ok &= key && pred;
        L->name = L->display = key;
        L->predicate = pred;
        L->parent = parent_of(cats, i);
        L->size_layer = key && (strncmp(key, "posix", 5) == 0 || strncmp(key, "stdio", 5) == 0);
        free(cats[i]);
    }
    free(cats);
    return ok;
}

/* ----- the public API ------------------------------------------------------------------------ */

static int find_layer(const dfs_preset_layer *layers, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(layers[i].name, name) == 0)
            return (int)i;
    return -1;
}

dfs_layered *dfs_layered_new(const dfs_layered_options *opt, char *err, size_t errlen)
{
    dfs_layered *la = calloc(1, sizeof *la);
    if (!la) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    la->opt = *opt;
    if (la->opt.granularity_ns <= 0)
        la->opt.granularity_ns = INT64_C(1000000000);
    atomic_init(&la->bins_counted, 0);
    dfs_layered_acc_init(&la->total);
    const dfs_preset_layer *layers = opt->preset->layers;
    size_t nlayers = opt->preset->nlayers;
    if (opt->preset->auto_layers) {
        if (!expand_auto(la)) {
            snprintf(err, errlen, "auto preset: too many categories (at most %d layers) or out of memory",
                     DFS_PRESET_MAX_LAYERS);
            dfs_layered_free(la);
            return NULL;
        }
        layers = la->auto_layers;
        nlayers = la->nauto;
    }
    dfs_pred_error perr;
    if (!dfs_layer_plan_init(&la->plan, opt->preset, layers, nlayers, &perr)) {
        snprintf(err, errlen, "preset %s: %s", opt->preset->name, perr.message);
        dfs_layered_free(la);
        return NULL;
    }
    int compute = find_layer(layers, nlayers, "compute");
    la->compute = compute;
    bool any_unoverlapped = false;
    for (size_t l = 0; l < nlayers; l++)
        any_unoverlapped |= layers[l].unoverlapped && (int)l != compute;
    for (size_t l = 0; l < nlayers && any_unoverlapped; l++)
        if (compute >= 0 && (layers[l].unoverlapped || (int)l == compute)) {
            la->ovl_classes |= UINT64_C(1) << l;
            la->ovl_class[l] = (uint8_t)la->ovl_nclasses++;
        }
    la->sums_only = !dfs_layered_needs_columns(opt);
    for (size_t l = 0; l < nlayers; l++) {
        /* the derived families only feed the flat views' columns (layered_columns.c) */
        unsigned nderived = layers[l].nderived < DFS_PRESET_MAX_DERIVED ? layers[l].nderived : DFS_PRESET_MAX_DERIVED;
        la->nfam[l] = 1 + (dfs_layered_needs_columns(opt) ? nderived : 0);
        uint32_t units = BLOCK_HEAD_UNITS;
        for (unsigned f = 0; f < la->nfam[l]; f++) {
            int text = f ? la->plan.derived_text[l][f - 1] : -1;
            if (text >= 0)
                la->fam_texts |= UINT64_C(1) << text;
            la->fam_sized[l][f] = layers[l].size_layer && (f == 0 || layers[l].derived[f - 1].sized);
            la->fam_off[l][f] = units;
            units += (uint32_t)(la->fam_sized[l][f] ? LAGG_FULL_UNITS : LAGG_TIME_UNITS);
        }
        la->block_units[l] = units;
        if (layers[l].size_layer)
            la->size_layers |= UINT64_C(1) << l;
        uint32_t words = BLOCK_HEAD_WORDS;
        for (unsigned f = 0; f < la->nfam[l]; f++) {
            la->slim_off[l][f] = words;
            words += SLIM_WORDS(la->fam_sized[l][f]);
        }
        la->slim_units[l] = (uint32_t)((words * sizeof(uint64_t) + sizeof(lunit) - 1) / sizeof(lunit));
    }
    if (((opt->views >> DFS_VIEW_TIME_RANGE) & 1) && dfs_layered_needs_columns(opt)) {
        size_t n = dfs_layered_time_columns(la);
        la->time_view_values = n == SIZE_MAX ? 0 : n; /* out of memory counting: the views fail on their own */
    }
    la->consumer = (dfs_consumer){.user = la,
                                  .want = {.keys = DFS_POSTREAD_KEYS},
                                  .worker_begin = worker_begin,
                                  .on_batch = on_batch,
                                  .worker_done = worker_done,
                                  .worker_end = worker_end};
    dfs_layer_plan_want(&la->plan, &la->consumer.want);
    return la;
}

void dfs_layered_free(dfs_layered *la)
{
    if (!la)
        return;
    dfs_layered_free_views(la);
    dfs_layered_acc_free(&la->total);
    for (size_t i = 0; la->auto_names && i < 3 * la->nauto; i++)
        free(la->auto_names[i]);
    free(la->auto_names);
    free(la->auto_layers);
    for (size_t i = 0; i < la->nall_categories; i++)
        free(la->all_categories[i]);
    free(la->all_categories);
    free(la);
}

dfs_consumer *dfs_layered_consumer(dfs_layered *la)
{
    return &la->consumer;
}

const char *dfs_layered_failure(const dfs_layered *la)
{
    return la->failure[0] ? la->failure : NULL;
}

/* Events whose file hash was defined in another piece or file: resolved now, then analysed. */
static bool analyse_pending(dfs_layered *la, const dfs_run *run)
{
    la->total.streaming = false; /* the engines are finished next: nothing to flush */
    if (!la->total.pending.n)
        return true;
    la->total.cells_repeat = true; /* their lookups miss the cells merges appended */
    worker_state *w = worker_begin(la);
    if (!w)
        return false;
    for (size_t i = 0; i < la->total.pending.n; i++) {
        lev e = la->total.pending.v[i];
        e.fname = dfs_run_resolve_hash(run, DFS_HASH_FILE, e.file, e.offset, e.fhash);
        analyse(w, la, &la->total, run, &e);
    }
    dfs_stage_flush(la, &la->total, &w->stage);
    dfs_postread_failed(w->cls, "layer", la->failure, sizeof la->failure);
    worker_retire(la, w);
    la->total.pending.n = 0; /* analysed once: a later call must not count them again */
    return !la->total.failed;
}

/* Did a file's clock change after its events were binned? Also the true origin under every
 * file's final clock, for a second pass. */
static bool clocks_moved(dfs_layered *la, const dfs_run *run)
{
    int64_t origin = 0;
    bool have;
    bool moved = dfs_clock_track_settle(&la->total.clocks, run, la->opt.clocks, la->opt.nclocks, dfs_clock_apply,
                                        &origin, &have);
    if (have)
        la->true_origin = origin;
    return moved;
}

/* `auto`: a category outside the provisional list means the layer set was incomplete. */
static bool categories_missing(dfs_layered *la)
{
    if (!la->opt.preset->auto_layers)
        return false;
    bool missing = false;
    const acc *a = &la->total;
    for (size_t i = 0; i < a->cat_texts.n; i++) {
        bool found = auto_skip(a->cat_texts.v[i]);
        for (size_t j = 0; j < la->opt.nauto_categories && !found; j++)
            found = strcmp(la->opt.auto_categories[j], a->cat_texts.v[i]) == 0;
        missing |= !found;
    }
    if (!missing)
        return false;
    la->all_categories = calloc(a->cat_texts.n + 1, sizeof *la->all_categories);
    for (size_t i = 0; la->all_categories && i < a->cat_texts.n; i++)
        la->all_categories[la->nall_categories++] = strdup(a->cat_texts.v[i]);
    if (la->all_categories)
        qsort(la->all_categories, la->nall_categories, sizeof *la->all_categories, cmp_str);
    return true;
}

/* Are the merged run's time bins (timebins.h) over the bound? Said in la->failure when `say`. */
static bool too_many_bins(dfs_layered *la, bool say)
{
    const acc *a = &la->total;
    dfs_bin_tally b;
    dfs_bin_tally_init(&b, la->opt.granularity_ns);
    if (a->have_time)
        dfs_bin_tally_run(&b, a->min_ts, a->max_end, a->run_bin_events);
    dfs_bin_tally_spread(&b, a->spread_cells, a->spread_ns);
    for (size_t p = 0; dfs_layered_needs_columns(&la->opt) && p < a->pproc_v.n; p++) {
        const proc_info *pi = &a->pproc_v.v[p];
        dfs_bin_tally_unit(&b, pi->first, pi->last, pi->bin_events);
    }
    if (!dfs_bin_tally_over(&b))
        return false;
    if (say)
        dfs_bin_tally_refusal(&b, "processes", la->failure, sizeof la->failure);
    return true;
}

const dfs_layered_result *dfs_layered_finish(dfs_layered *la, const dfs_run *run)
{
    if (la->total.failed)
        return NULL;
    /* times under a clock that moved are provisional: the second pass judges their bins */
    bool final_clocks = !clocks_moved(la, run);
    la->total.bins_over |= too_many_bins(la, false); /* then the pending events reach no engine */
    if (!analyse_pending(la, run) || la->failure[0])
        return NULL;
    if (final_clocks && too_many_bins(la, true)) /* before any engine measures its bins */
        return NULL;
    if (la->total.bins_over && final_clocks && la->opt.clocks) { /* a second pass cannot ask for a third */
        dfs_bins_workers_refusal(la->failure, sizeof la->failure);
        return NULL;
    }
    const acc *a = &la->total;
    int64_t shift = 0;
    if (a->have_time) {
        __int128 d = (__int128)la->opt.origin_ns - a->min_ts;
        la->true_origin = a->min_ts;
        if (d % la->opt.granularity_ns != 0 || d / la->opt.granularity_ns > INT32_MAX ||
            d / la->opt.granularity_ns < INT32_MIN)
            la->rerun = true;
        else
            shift = (int64_t)(d / la->opt.granularity_ns);
    }
    bool moved = clocks_moved(la, run), missing = categories_missing(la); /* both: they fill the rerun's facts */
    la->rerun |= moved || missing;
    const char *order = la->opt.no_streaming ? NULL : dfs_layered_exact_order_problem(a);
    if (order) {
        la->rerun = la->rerun_no_streaming = true;
        la->rerun_reason = order;
    } else if (la->rerun) {
        la->rerun_reason = "time origin, file clocks or categories";
    } else if (a->bins_over) { /* the workers stopped at the bound, which the whole run does not pass */
        la->rerun = true;
        la->rerun_reason = "the workers' time bins passed the bound together, the run's do not";
    }
    la->rerun_bins_settled = a->bins_over && final_clocks;
    if (la->rerun)
        return NULL;
    if (!dfs_layered_build_views(la, run, shift))
        return NULL;
    la->result.flushes = a->flushes;
    la->result.wall_over = la->opt.compat == DFS_COMPAT_NONE && a->wall_over;
    la->result.wall_max_periods = dfs_layered_wall_bound(&la->opt);
    return &la->result;
}

bool dfs_layered_needs_rerun(const dfs_layered *la, int64_t *origin_ns)
{
    if (la->rerun && origin_ns)
        *origin_ns = la->true_origin;
    return la->rerun;
}

bool dfs_layered_rerun_no_streaming(const dfs_layered *la)
{
    return la->rerun_no_streaming;
}

bool dfs_layered_rerun_bins_settled(const dfs_layered *la)
{
    return la->rerun_bins_settled;
}


const char *dfs_layered_rerun_reason(const dfs_layered *la)
{
    return la->rerun ? la->rerun_reason : NULL;
}

size_t dfs_layered_categories(const dfs_layered *la, const char *const **categories)
{
    *categories = (const char *const *)la->all_categories;
    return la->nall_categories;
}
