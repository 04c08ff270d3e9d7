/* layered_pack.c - the state of a layered analysis on the wire (layered.h, docs/MPI.md).
 *
 * A rank's merged state travels whole: processes, cells with every metric family, distinct-file
 * keys, the exact u_ interval engines (finished where they were read unless shared, so only their
 * totals and bins travel), events pending late hash resolution, the raw-statistics sets, the
 * post-read categories and the clock each file went through. Strings (hosts, file names,
 * categories) travel as text and come back as the receiver's ids; process indices are rebuilt.
 * The receiver merges it straight into its total, as it merges a worker's state. */
#include <stdlib.h>
#include <string.h>

#include "analyze/layered/layered_internal.h"
#include "wire/pack.h"

/* ---- writing ------------------------------------------------------------------------------------ */

static void pack_proc(dfs_pack *w, const proc_info *pi)
{
    dfs_pack_u64(w, pi->key.hhash);
    dfs_pack_str(w, pi->key.host);
    dfs_pack_i64(w, pi->key.pid);
    dfs_pack_i64(w, pi->key.tid);
    dfs_pack_u64(w, pi->file);
    dfs_pack_u64(w, pi->offset);
    dfs_pack_i64(w, pi->first);
    dfs_pack_i64(w, pi->last);
    dfs_pack_u64(w, pi->bin_events);
}

static void pack_lagg(dfs_pack *w, const lagg *a, bool sized)
{
    dfs_pack_u64(w, a->count);
    dfs_pack_i64(w, a->time);
    dfs_pack_i64(w, a->time_min);
    dfs_pack_i64(w, a->time_max);
    dfs_pack_u128(w, a->time_sq);
    if (!sized)
        return;
    dfs_pack_u64(w, a->size);
    dfs_pack_u64(w, a->sized);
    dfs_pack_u64(w, a->size_min);
    dfs_pack_u64(w, a->size_max);
    dfs_pack_u128(w, a->size_sq);
    for (int b = 0; b < DFS_SIZE_BINS; b++)
        dfs_pack_u64(w, a->bins[b]);
}

static void pack_cells(const dfs_layered *la, const acc *a, dfs_pack *w)
{
    dfs_pack_u64(w, a->cell_v.n);
    for (size_t i = 0; i < a->cell_v.n; i++) {
        const cell *c = &a->cell_v.v[i];
        dfs_pack_u64(w, c->key.layer);
        dfs_pack_u64(w, c->key.proc);
        dfs_pack_u64(w, c->key.kind);
        if (c->key.kind == CELL_FILE)
            dfs_pack_str(w, (dfs_str)c->key.axis);
        else
            dfs_pack_i64(w, c->key.axis);
        lunit *block = dfs_cell_block(a, c);
        unsigned l = c->key.layer;
        for (unsigned f = 0; f < la->nfam[l]; f++) {
            if (c->key.kind != CELL_TIME) {
                pack_lagg(w, dfs_fam(la, block, l, f), la->fam_sized[l][f]);
                continue;
            }
            const uint64_t *s = dfs_slim(la, block, l, f);
            for (unsigned wd = 0; wd < SLIM_WORDS(la->fam_sized[l][f]); wd++)
                dfs_pack_u64(w, s[wd]);
        }
    }
    dfs_pack_u64(w, a->nuniq.n); /* the tail may repeat keys: the receiver's set drops them */
    for (size_t i = 0; i < a->nuniq.n; i++) {
        nuniq_key k = dfs_nuniq_decode(a->nuniq.v[i]);
        dfs_pack_u64(w, k.group);
        dfs_pack_u64(w, k.layers);
        dfs_pack_u64(w, k.kind);
        dfs_pack_i64(w, k.axis);
        dfs_pack_str(w, (dfs_str)k.file);
    }
}

static void pack_lev(dfs_pack *w, const lev *e)
{
    dfs_pack_i64(w, e->ts);
    dfs_pack_i64(w, e->dur);
    dfs_pack_u64(w, e->fhash);
    dfs_pack_u64(w, e->hhash);
    dfs_pack_u64(w, e->offset);
    dfs_pack_i64(w, e->pid);
    dfs_pack_i64(w, e->tid);
    dfs_pack_str(w, e->cat);
    dfs_pack_str(w, e->name);
    dfs_pack_str(w, e->fname);
    dfs_pack_str(w, e->host);
    dfs_pack_u64(w, e->file);
    dfs_pack_bool(w, e->has_size_sum);
    dfs_pack_u64(w, e->size_sum);
    dfs_pack_u64(w, e->ret);
    dfs_pack_u64(w, e->image_size);
    dfs_pack_u64(w, e->arg_truths);
}

static void pack_counters(dfs_pack *w, const acc *a)
{
    uint64_t v[] = {a->events,          a->no_duration, a->bad_time,     a->other_phases, a->dropped_files,
                    a->dropped_functions, a->post_read,   a->layer_events, a->post_read_dur,
                    a->on_purpose,      a->on_purpose_dur};
    dfs_pack_u64s(w, v, sizeof v / sizeof *v);
    dfs_pack_bool(w, a->have_time);
    dfs_pack_i64(w, a->min_ts);
    dfs_pack_i64(w, a->max_end);
    dfs_pack_bool(w, a->failed);
    dfs_pack_bool(w, a->stream_conflict);
    dfs_pack_bool(w, a->bins_over);
    dfs_pack_u64(w, a->run_bin_events);
    dfs_pack_u64(w, a->spread_cells);
    dfs_pack_u64(w, a->spread_ns);
    dfs_pack_u64(w, a->flushes);
}

bool dfs_layered_pack(const dfs_layered *la, const dfs_run *run, dfs_pack *w)
{
    (void)run;
    const acc *a = &la->total;
    pack_counters(w, a);
    dfs_pack_u64(w, a->proc_v.n);
    for (size_t i = 0; i < a->proc_v.n; i++)
        pack_proc(w, &a->proc_v.v[i]);
    pack_cells(la, a, w);
    dfs_pack_u64(w, a->pproc_v.n);
    for (size_t i = 0; i < a->pproc_v.n; i++) {
        pack_proc(w, &a->pproc_v.v[i]);
        dfs_ovl_pack(a->ovl.v[i], w);
    }
    dfs_pack_u64(w, a->pending.n);
    for (size_t i = 0; i < a->pending.n; i++)
        pack_lev(w, &a->pending.v[i]);
    dfs_pack_named_sortset(w, &a->fhashes);
    dfs_pack_named_keys(w, &a->hhashes);
    dfs_pack_i64_keys(w, &a->pids);
    dfs_pack_texts(w, (const char *const *)a->cat_texts.v, a->cat_texts.n);
    dfs_pack_u64(w, a->unlayered.n);
    for (size_t i = 0; i < a->unlayered.n; i++) {
        dfs_pack_text(w, a->unlayered.v[i].category, strlen(a->unlayered.v[i].category));
        dfs_pack_u64(w, a->unlayered.v[i].events);
        dfs_pack_u64(w, a->unlayered.v[i].dur_ns);
    }
    dfs_clock_track_pack(w, &a->clocks);
    dfs_pack_bool(w, a->wall_over);
    dfs_ovl_pack(a->wall, w); /* never finished before the merge: it travels as its unions */
    return !w->failed && !a->failed;
}

/* ---- reading ------------------------------------------------------------------------------------ */

static void unpack_proc(dfs_unpack *r, proc_info *pi)
{
    memset(pi, 0, sizeof *pi); /* keys are hashed as bytes: padding included */
    pi->key.hhash = dfs_unpack_u64(r);
    pi->key.host = dfs_unpack_str(r);
    pi->key.pid = dfs_unpack_i64(r);
    pi->key.tid = dfs_unpack_i64(r);
    pi->file = dfs_unpack_u32(r);
    pi->offset = dfs_unpack_u64(r);
    pi->first = dfs_unpack_i64(r);
    pi->last = dfs_unpack_i64(r);
    pi->bin_events = dfs_unpack_u64(r);
}

static void unpack_lagg(dfs_unpack *r, lagg *a, bool sized)
{
    a->count = dfs_unpack_u64(r);
    a->time = dfs_unpack_i64(r);
    a->time_min = dfs_unpack_i64(r);
    a->time_max = dfs_unpack_i64(r);
    a->time_sq = dfs_unpack_u128(r);
    if (!sized)
        return;
    a->size = dfs_unpack_u64(r);
    a->sized = dfs_unpack_u64(r);
    a->size_min = dfs_unpack_u64(r);
    a->size_max = dfs_unpack_u64(r);
    a->size_sq = dfs_unpack_u128(r);
    for (int b = 0; b < DFS_SIZE_BINS; b++)
        a->bins[b] = dfs_unpack_u64(r);
}

/* The packed state is merged straight into the total, as merge_acc merges a worker's: processes
 * first (their indices translated through `map`), then the cells into the total's cells. */
typedef struct merging {
    dfs_layered *la;
    acc *into;
    dfs_unpack *r;
    uint32_t *map; /* packed process index -> the total's */
    size_t nmap;
} merging;

static bool merge_cell(merging *m)
{
    dfs_unpack *r = m->r;
    cell_key k;
    memset(&k, 0, sizeof k);
    k.layer = dfs_unpack_u32(r);
    uint32_t proc = dfs_unpack_u32(r);
    k.kind = dfs_unpack_u32(r);
    k.axis = k.kind == CELL_FILE ? (int64_t)dfs_unpack_str(r) : dfs_unpack_i64(r);
    if (r->bad || k.layer >= m->la->plan.nlayers || proc >= m->nmap || k.kind > CELL_THREAD)
        return false;
    k.proc = m->map[proc];
    lunit *block = dfs_layered_cell(m->la, m->into, &k);
    if (!block)
        return false;
    for (unsigned f = 0; f < m->la->nfam[k.layer]; f++) {
        bool sized = m->la->fam_sized[k.layer][f];
        lagg a;
        dfs_lagg_init(&a, sized);
        if (k.kind != CELL_TIME) {
            unpack_lagg(r, &a, sized);
            dfs_fam_merge(m->la, block, k.layer, f, &a);
            continue;
        }
        a.count = dfs_unpack_u64(r);
        a.time = (int64_t)dfs_unpack_u64(r);
        if (sized)
            a.size = dfs_unpack_u64(r);
        dfs_slim_merge(m->la, block, k.layer, f, &a);
    }
    return !r->bad;
}

/* A received key's layers: some, within its group, and all of them layers of the preset. */
static bool nuniq_layers_valid(const dfs_layered *la, const nuniq_key *k)
{
    if (!k->layers || k->layers > NUNIQ_GROUP_MASK || k->group > (DFS_PRESET_MAX_LAYERS - 1) / NUNIQ_GROUP)
        return false;
    unsigned highest = k->group * NUNIQ_GROUP + 31u - (unsigned)__builtin_clz(k->layers);
    return highest < la->plan.nlayers;
}

static bool merge_cells(merging *m)
{
    m->into->cells_repeat = true; /* its lookups miss the cells local merges appended */
    size_t n = dfs_unpack_count(m->r, 8);
    for (size_t i = 0; i < n; i++)
        if (!merge_cell(m))
            return false;
    n = dfs_unpack_count(m->r, 5);
    for (size_t i = 0; i < n && !m->r->bad; i++) {
        nuniq_key k;
        memset(&k, 0, sizeof k);
        k.group = dfs_unpack_u32(m->r);
        k.layers = dfs_unpack_u32(m->r);
        k.kind = dfs_unpack_u32(m->r);
        k.axis = dfs_unpack_i64(m->r);
        k.file = dfs_unpack_str(m->r);
        if (k.kind == CELL_FILE) { /* the axis is a process */
            if (k.axis < 0 || (uint64_t)k.axis >= m->nmap)
                return false;
            k.axis = m->map[k.axis];
        }
        if (!nuniq_layers_valid(m->la, &k) || k.kind > CELL_FILE ||
            !dfs_sortset_add(&m->into->nuniq, dfs_nuniq_encode(&k)))
            return false;
    }
    return !m->r->bad;
}

static bool merge_procs(merging *m)
{
    m->nmap = dfs_unpack_count(m->r, 6);
    m->map = malloc((m->nmap + 1) * sizeof *m->map);
    for (size_t i = 0; m->map && i < m->nmap && !m->r->bad; i++) {
        proc_info pi;
        unpack_proc(m->r, &pi);
        if ((m->map[i] = dfs_layered_add_proc(m->into, &pi, false)) == UINT32_MAX)
            return false;
    }
    return m->map && !m->r->bad;
}

/* Each process's interval engine moves into the total, or merges with the one there. */
static bool merge_processes(merging *m)
{
    size_t n = dfs_unpack_count(m->r, 7);
    for (size_t i = 0; i < n && !m->r->bad; i++) {
        proc_info pi;
        unpack_proc(m->r, &pi);
        dfs_ovl *o = dfs_ovl_unpack(m->r);
        uint32_t idx = m->r->bad ? UINT32_MAX : dfs_layered_add_proc(m->into, &pi, true);
        bool ok = idx != UINT32_MAX;
        if (ok)
            dfs_layered_exact_merge(m->into, idx, &o);
        dfs_ovl_free(o);
        if (!ok || m->into->failed)
            return false;
    }
    return !m->r->bad;
}

static bool merge_pending(dfs_unpack *r, acc *into)
{
    size_t n = dfs_unpack_count(r, 16);
    for (size_t i = 0; i < n && !r->bad; i++) {
        lev e;
        memset(&e, 0, sizeof e);
        e.ts = dfs_unpack_i64(r);
        e.dur = dfs_unpack_i64(r);
        e.fhash = dfs_unpack_u64(r);
        e.hhash = dfs_unpack_u64(r);
        e.offset = dfs_unpack_u64(r);
        e.pid = dfs_unpack_i64(r);
        e.tid = dfs_unpack_i64(r);
        e.cat = dfs_unpack_str(r);
        e.name = dfs_unpack_str(r);
        e.fname = dfs_unpack_str(r);
        e.host = dfs_unpack_str(r);
        e.file = dfs_unpack_u32(r);
        e.has_size_sum = dfs_unpack_bool(r);
        e.size_sum = dfs_unpack_u64(r);
        e.ret = dfs_unpack_u64(r);
        e.image_size = dfs_unpack_u64(r);
        e.arg_truths = dfs_unpack_u64(r);
        if (!dfs_vec_push(&into->pending, e))
            return false;
    }
    return !r->bad;
}

static bool merge_clocks(dfs_unpack *r, acc *into)
{
    dfs_clock_track t;
    dfs_clock_track_init(&t);
    bool ok = dfs_clock_track_unpack(r, &t) && dfs_clock_track_merge(&into->clocks, &t);
    dfs_clock_track_free(&t);
    return ok;
}

static bool merge_rest(dfs_unpack *r, acc *into)
{
    if (!merge_pending(r, into) || !dfs_unpack_named_sortset(r, &into->fhashes) ||
        !dfs_unpack_named_keys(r, &into->hhashes) || !dfs_unpack_i64_keys(r, &into->pids))
        return false;
    size_t n = dfs_unpack_count(r, 1);
    for (size_t i = 0; i < n && !r->bad; i++) {
        size_t len;
        const char *t = dfs_unpack_text(r, &len);
        if (!r->bad)
            dfs_layered_add_category(into, t, len);
    }
    n = dfs_unpack_count(r, 3);
    for (size_t i = 0; i < n && !r->bad; i++) {
        size_t len;
        const char *t = dfs_unpack_text(r, &len);
        uint64_t events = dfs_unpack_u64(r), dur = dfs_unpack_u64(r);
        if (!r->bad)
            dfs_layered_add_unlayered(into, t, len, events, dur);
    }
    return !r->bad && merge_clocks(r, into);
}

/* The sender's wall engine (layered_wall.c) joins the total's, as a worker's would. */
static bool merge_wall(dfs_unpack *r, acc *into)
{
    acc from;
    memset(&from, 0, sizeof from); /* only its wall fields are used */
    from.wall_over = dfs_unpack_bool(r);
    from.wall = dfs_ovl_unpack(r);
    if (r->bad)
        return false;
    dfs_layered_wall_merge(into, &from);
    dfs_ovl_free(from.wall);
    return !into->failed;
}

static void unpack_counters(dfs_unpack *r, acc *a)
{
    uint64_t *v[] = {&a->events,          &a->no_duration, &a->bad_time,     &a->other_phases, &a->dropped_files,
                     &a->dropped_functions, &a->post_read,   &a->layer_events, &a->post_read_dur,
                     &a->on_purpose,      &a->on_purpose_dur};
    dfs_unpack_u64s(r, v, sizeof v / sizeof *v);
    a->have_time = dfs_unpack_bool(r);
    a->min_ts = dfs_unpack_i64(r);
    a->max_end = dfs_unpack_i64(r);
    a->failed = dfs_unpack_bool(r);
    a->stream_conflict = dfs_unpack_bool(r);
    a->bins_over = dfs_unpack_bool(r);
    a->run_bin_events = dfs_unpack_u64(r);
    a->spread_cells = dfs_unpack_u64(r);
    a->spread_ns = dfs_unpack_u64(r);
    a->flushes = dfs_unpack_u64(r);
}

bool dfs_layered_merge_packed(dfs_layered *la, dfs_run *run, dfs_unpack *r)
{
    (void)run;
    acc counters; /* only its scalar fields are used */
    memset(&counters, 0, sizeof counters);
    unpack_counters(r, &counters);
    merging m = {.la = la, .into = &la->total, .r = r};
    bool ok = !r->bad && merge_procs(&m) && merge_cells(&m) && merge_processes(&m) && merge_rest(r, &la->total) &&
              merge_wall(r, &la->total);
    if (ok)
        dfs_layered_merge_counters(&la->total, &counters);
    free(m.map);
    if (!ok) {
        r->bad = true;
        la->total.failed = true;
    }
    return ok && !la->total.failed;
}

/* ---- the unit census ---------------------------------------------------------------------------- */

static uint64_t process_id(const dfs_run *run, uint64_t hhash, dfs_str host, int64_t pid)
{
    return dfs_unit_hash(run, hhash, host, pid, 0);
}

bool dfs_layered_census(const dfs_layered *la, const dfs_run *run, dfs_u64vec *units)
{
    const acc *a = &la->total;
    for (size_t p = 0; p < a->pproc_v.n; p++) {
        const proc_key *k = &a->pproc_v.v[p].key;
        if (a->ovl.v[p] && !dfs_vec_push(units, process_id(run, k->hhash, k->host, k->pid)))
            return false;
    }
    /* pending events join their process on the rank that finishes: it must not be finished here */
    for (size_t i = 0; la->ovl_classes && i < a->pending.n; i++) {
        const lev *e = &a->pending.v[i];
        if (!dfs_vec_push(units, process_id(run, e->hhash, e->host, e->pid)))
            return false;
    }
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static bool listed(const uint64_t *v, size_t n, uint64_t key)
{
    return n && bsearch(&key, v, n, sizeof *v, cmp_u64) != NULL;
}

bool dfs_layered_finish_local(dfs_layered *la, const dfs_run *run, const uint64_t *shared, size_t nshared)
{
    acc *a = &la->total;
    dfs_u64vec waiting = {0}; /* processes of this rank's pending events */
    for (size_t i = 0; la->ovl_classes && i < a->pending.n; i++)
        if (!dfs_vec_push(&waiting, process_id(run, a->pending.v[i].hhash, a->pending.v[i].host, a->pending.v[i].pid))) {
            dfs_vec_free(&waiting);
            return false;
        }
    if (waiting.n)
        qsort(waiting.v, waiting.n, sizeof *waiting.v, cmp_u64);
    bool ok = true;
    for (size_t p = 0; p < a->pproc_v.n && ok; p++) {
        const proc_key *k = &a->pproc_v.v[p].key;
        uint64_t id = process_id(run, k->hhash, k->host, k->pid);
        if (a->ovl.v[p] && !listed(shared, nshared, id) && !listed(waiting.v, waiting.n, id))
            ok = dfs_ovl_finish(a->ovl.v[p]);
    }
    dfs_vec_free(&waiting);
    return ok;
}
