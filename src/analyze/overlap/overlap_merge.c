/* overlap_merge.c - overlap states combined: a worker's state moved into the total at its end (or
 * a rank's, as overlap_pack.c unpacks it), and the unit census by which a distributed run decides
 * which units a rank may measure entirely before its state travels (overlap.h, docs/MPI.md).
 *
 * Invariants: merging moves (engines, vectors and sets are taken over whole where the target has
 * none), so the source is only to be freed afterwards; a unit seen by two states keeps exact
 * intervals only if neither had flushed it, otherwise `conflict` is set and the pass asks for a
 * second one without streaming; the earliest sighting of a unit wins, so that nothing depends on
 * -j or on the order of merges. */
#include <stdlib.h>
#include <string.h>

#include "analyze/overlap/overlap_internal.h"
#include "wire/pack.h"

/* ===== merging worker states ===================================================================== */

static void merge_counters(scope *d, const scope *s)
{
    d->events += s->events;
    d->bin_events = dfs_bins_add(d->bin_events, s->bin_events);
    d->start = min64(d->start, s->start);
    d->end = max64(d->end, s->end);
    for (size_t c = 0; c < NCLS; c++) {
        d->sum[c] = sat_add(d->sum[c], s->sum[c]);
        d->count[c] += s->count[c];
    }
    if (!d->host)
        d->host = s->host;
    /* the earliest sighting wins, so late host resolution does not depend on -j */
    if (s->file < d->file || (s->file == d->file && s->offset < d->offset)) {
        d->file = s->file;
        d->offset = s->offset;
    }
}

static bool has_intervals(const scope *s)
{
    return s->eng || s->markers.n;
}

/* Two workers saw the unit: their intervals combine only if neither was flushed (a flushed engine
 * has measured its past without the other's events). Otherwise the pass is not exact. */
static void merge_intervals(wstate *into, scope *d, scope *s)
{
    if ((d->wm != INT64_MIN && has_intervals(s)) || (s->wm != INT64_MIN && has_intervals(d)))
        into->conflict = true;
    if (!d->eng) { /* the engine moves with its snapshots (d had none without an engine) */
        d->eng = s->eng;
        s->eng = NULL;
        d->wm = max64(d->wm, s->wm);
        i64_vec snaps = d->snaps;
        d->snaps = s->snaps;
        s->snaps = snaps;
    } else if (s->eng && !into->conflict && !dfs_ovl_merge(d->eng, s->eng)) {
        into->failed = true;
    }
    for (size_t i = 0; i < s->markers.n; i++)
        if (!dfs_vec_push(&d->markers, s->markers.v[i]))
            into->failed = true;
    for (size_t i = 0; i < s->bounds.n; i++)
        if (!dfs_vec_push(&d->bounds, s->bounds.v[i]))
            into->failed = true;
    d->missed |= s->missed;
}

/* Moves the units of `from` into `into`; map[i] = into's index of from's unit i. */
static bool merge_units(wstate *into, wstate *from, bool thread, uint32_t *map)
{
    scope_vec *src = thread ? &from->threads : &from->procs;
    scope_vec *dst = thread ? &into->threads : &into->procs;
    dfs_keymap *km = thread ? &into->tmap : &into->pmap;
    for (size_t i = 0; i < src->n; i++) {
        scope *s = &src->v[i];
        bool fresh;
        if (!dfs_keymap_get_or_put(km, &s->key, (uint32_t)dst->n, &map[i], &fresh) ||
            (fresh && !dfs_vec_reserve(dst, 1)))
            return false;
        if (fresh) {
            dst->v[dst->n++] = *s;
            s->eng = NULL; /* ownership moved */
            memset(&s->markers, 0, sizeof s->markers);
            memset(&s->bounds, 0, sizeof s->bounds);
            memset(&s->snaps, 0, sizeof s->snaps);
        } else {
            scope *d = &dst->v[map[i]];
            merge_counters(d, s);
            merge_intervals(into, d, s);
        }
        scope *d = &dst->v[map[i]];
        d->active = d->mark.idle = false;
        d->finalized = d->wm == INT64_MAX;
    }
    return true;
}

static void merge_approx(wstate *into, const wstate *from, const uint32_t *tmap)
{
    size_t n = into->ov->nclasses;
    for (size_t i = 0; i < from->akeys.n && !into->failed; i++) {
        approx_key k = from->akeys.v[i];
        k.thread = tmap[k.thread];
        uint32_t idx;
        bool fresh;
        if (!dfs_keymap_get_or_put(&into->amap, &k, (uint32_t)into->akeys.n, &idx, &fresh) ||
            (fresh && (!dfs_vec_push(&into->akeys, k) || !dfs_vec_reserve(&into->asums, n)))) {
            into->failed = true;
            return;
        }
        if (fresh) {
            memset(into->asums.v + into->asums.n, 0, n * sizeof *into->asums.v);
            into->asums.n += n;
        }
        for (size_t c = 0; c < n; c++)
            into->asums.v[(size_t)idx * n + c] =
                sat_add(into->asums.v[(size_t)idx * n + c], from->asums.v[i * n + c]);
    }
}

static void merge_g0(wstate *into, wstate *from)
{
    for (size_t i = 0; i < from->g0.n && !into->failed; i++) {
        uint32_t idx;
        if (dfs_u64map_get(&into->g0map, (uint64_t)from->g0bins.v[i], &idx)) {
            into->failed |= !dfs_ovl_merge(into->g0.v[idx], from->g0.v[i]);
            continue;
        }
        if (!dfs_vec_reserve(&into->g0, 1) || !dfs_vec_reserve(&into->g0bins, 1) ||
            !dfs_u64map_put(&into->g0map, (uint64_t)from->g0bins.v[i], (uint32_t)into->g0.n)) {
            into->failed = true;
            return;
        }
        into->g0.v[into->g0.n++] = from->g0.v[i];
        into->g0bins.v[into->g0bins.n++] = from->g0bins.v[i];
        from->g0.v[i] = NULL;
    }
}

#define SWAP(T, a, b) \
    do {               \
        T swap_ = (a); \
        (a) = (b);     \
        (b) = swap_;   \
    } while (0)

static void merge_functions(wstate *into, wstate *from)
{
    if (!into->funcs.n && !into->skeys.n) { /* the first state merged: taken over whole */
        SWAP(dfs_keymap, into->fmap, from->fmap);
        SWAP(dfs_keymap, into->smap, from->smap);
        SWAP(func_vec, into->funcs, from->funcs);
        SWAP(size_key_vec, into->skeys, from->skeys);
        SWAP(u64_vec, into->scounts, from->scounts);
        return;
    }
    for (size_t i = 0; i < from->funcs.n && !into->failed; i++) {
        const func_acc *f = &from->funcs.v[i];
        uint32_t idx;
        bool fresh;
        if (!dfs_keymap_get_or_put(&into->fmap, &f->name, (uint32_t)into->funcs.n, &idx, &fresh) ||
            (fresh && !dfs_vec_push(&into->funcs, ((func_acc){.name = f->name})))) {
            into->failed = true;
            return;
        }
        into->funcs.v[idx].count += f->count;
        into->funcs.v[idx].sized += f->sized;
        into->funcs.v[idx].bytes += f->bytes;
    }
    for (size_t i = 0; i < from->skeys.n && !into->failed; i++) {
        uint32_t idx;
        bool fresh;
        if (!dfs_keymap_get_or_put(&into->smap, &from->skeys.v[i], (uint32_t)into->skeys.n, &idx, &fresh) ||
            (fresh && (!dfs_vec_push(&into->skeys, from->skeys.v[i]) || !dfs_vec_push(&into->scounts, 0)))) {
            into->failed = true;
            return;
        }
        into->scounts.v[idx] += from->scounts.v[i];
    }
}

static void merge_set(wstate *into, dfs_keyset *d, dfs_keyset *s)
{
    if (!d->count) { /* taken over whole (key sizes agree: the same set of another state) */
        SWAP(dfs_keyset, *d, *s);
        return;
    }
    const void *k;
    size_t it = 0;
    while ((k = dfs_keyset_next(s, &it)))
        dfs_ov_set_add(into, d, k);
}

static void merge_scalars(wstate *into, const wstate *from)
{
    into->events += from->events;
    into->no_duration += from->no_duration;
    into->other_phases += from->other_phases;
    into->bad_time += from->bad_time;
    into->negative += from->negative;
    into->dropped_files += from->dropped_files;
    into->dropped_functions += from->dropped_functions;
    into->flushes += from->flushes;
    into->conflict |= from->conflict;
    into->failed |= from->failed;
    into->bins_over |= from->bins_over;
    into->run_bin_events = dfs_bins_add(into->run_bin_events, from->run_bin_events);
    if (from->have_time) {
        into->have_time = true;
        into->min_ts = min64(into->min_ts, from->min_ts);
        into->max_end = max64(into->max_end, from->max_end);
    }
}

static void merge_engines(wstate *into, wstate *from)
{
    if (!into->global) {
        into->global = from->global;
        from->global = NULL;
    } else if (from->global && !dfs_ovl_merge(into->global, from->global)) {
        into->failed = true;
    }
    merge_g0(into, from);
}

void dfs_overlap_merge_state(wstate *into, wstate *from)
{
    merge_scalars(into, from);
    uint32_t *pmap = malloc((from->procs.n + 1) * sizeof *pmap);
    uint32_t *tmap = malloc((from->threads.n + 1) * sizeof *tmap);
    if (!pmap || !tmap || !merge_units(into, from, false, pmap) || !merge_units(into, from, true, tmap))
        into->failed = true;
    else
        merge_approx(into, from, tmap);
    free(pmap);
    free(tmap);
    merge_engines(into, from);
    merge_functions(into, from);
    merge_set(into, &into->files, &from->files);
    merge_set(into, &into->hosts, &from->hosts);
    merge_set(into, &into->pids, &from->pids);
    merge_set(into, &into->ctids, &from->ctids);
    merge_set(into, &into->itids, &from->itids);
    into->failed |= !dfs_clock_track_merge(&into->clocks, &from->clocks);
    for (size_t i = 0; i < from->pending.n; i++)
        if (!dfs_vec_push(&into->pending, from->pending.v[i]))
            into->failed = true;
}

/* ===== distributed runs: the unit census ========================================================= */

/* A unit's identity across ranks: its key with the host as text; threads salted apart. */
static uint64_t unit_id(const dfs_run *run, const unit_key *k, bool thread)
{
    return dfs_unit_hash(run, k->hhash, k->host, k->pid, k->tid) ^ (thread ? UINT64_C(0x5bd1e9955bd1e995) : 0);
}

/* The units a pending event will join when it is analysed on the rank that finishes. */
static bool pending_units(const dfs_overlap *ov, const dfs_run *run, dfs_u64vec *out)
{
    for (size_t i = 0; i < ov->total.pending.n; i++) {
        const oev *e = &ov->total.pending.v[i];
        unit_key p = dfs_ov_key_of(e, false), t = dfs_ov_key_of(e, true);
        if (!dfs_vec_push(out, unit_id(run, &p, false)) ||
            (ov->need_threads && !dfs_vec_push(out, unit_id(run, &t, true))))
            return false;
    }
    return true;
}

bool dfs_overlap_census(const dfs_overlap *ov, const dfs_run *run, dfs_u64vec *units)
{
    const scope_vec *vecs[2] = {&ov->total.procs, &ov->total.threads};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < vecs[k]->n; i++) {
            const scope *sc = &vecs[k]->v[i];
            if (has_intervals(sc) && !dfs_vec_push(units, unit_id(run, &sc->key, k == 1)))
                return false;
        }
    return pending_units(ov, run, units);
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

bool dfs_overlap_finish_local(dfs_overlap *ov, const dfs_run *run, const uint64_t *shared, size_t nshared)
{
    wstate *t = &ov->total;
    dfs_u64vec waiting = {0};
    bool ok = pending_units(ov, run, &waiting);
    if (ok && waiting.n)
        qsort(waiting.v, waiting.n, sizeof *waiting.v, cmp_u64);
    scope_vec *vecs[2] = {&t->procs, &t->threads};
    for (int k = 0; ok && k < 2; k++)
        for (size_t i = 0; i < vecs[k]->n; i++) {
            scope *sc = &vecs[k]->v[i];
            uint64_t id = unit_id(run, &sc->key, k == 1);
            if (has_intervals(sc) && !listed(shared, nshared, id) && !listed(waiting.v, waiting.n, id))
                dfs_ov_finalize_scope(t, sc);
        }
    dfs_vec_free(&waiting);
    return ok && !t->failed;
}
