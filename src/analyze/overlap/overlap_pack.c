/* overlap_pack.c - the state of an overlap analysis on the wire (overlap.h, docs/MPI.md).
 *
 * A rank's merged state travels whole: its process and thread units (counters, interval engines
 * - finished where they were read unless another rank has the same unit -, markers, pending
 * boundaries and snapshots), the global and G0 engines, the approximate sums, the I/O function
 * sizes, the allocation sets, events pending late hash resolution and the clock each file went
 * through. Strings travel as text; thread indices are rebuilt. Classification caches stay home.
 * The receiver merges it as it merges a worker's state (dfs_overlap_merge_state). */
#include <stdlib.h>
#include <string.h>

#include "analyze/overlap/overlap_internal.h"
#include "wire/pack.h"

/* ---- writing ------------------------------------------------------------------------------------ */

static void pack_label(dfs_pack *w, const label *l)
{
    dfs_pack_u64(w, l->kind);
    dfs_pack_i64(w, l->i);
    dfs_pack_str(w, l->s);
}

static void pack_i64s(dfs_pack *w, const int64_t *v, size_t n)
{
    dfs_pack_u64(w, n);
    dfs_pack_i64s(w, v, n);
}

static void pack_scope(const dfs_overlap *ov, dfs_pack *w, const scope *s)
{
    dfs_pack_u64(w, s->key.hhash);
    dfs_pack_str(w, s->key.host);
    dfs_pack_i64(w, s->key.pid);
    dfs_pack_i64(w, s->key.tid);
    dfs_pack_str(w, s->host);
    dfs_pack_str(w, s->pid_str);
    dfs_pack_str(w, s->tid_str);
    dfs_pack_u64(w, s->file);
    dfs_pack_u64(w, s->offset);
    dfs_pack_i64(w, s->start);
    dfs_pack_i64(w, s->end);
    dfs_pack_u64(w, s->events);
    dfs_pack_u64(w, s->bin_events);
    for (size_t c = 0; c < ov->nclasses; c++) {
        dfs_pack_i64(w, s->sum[c]);
        dfs_pack_u64(w, s->count[c]);
    }
    dfs_ovl_pack(s->eng, w);
    int64_t stream[] = {s->mark.t_end, s->mark.lag, s->mark.mlag, s->wm};
    dfs_pack_i64s(w, stream, sizeof stream / sizeof *stream);
    dfs_pack_bool(w, s->missed);
    dfs_pack_u64(w, s->markers.n);
    for (size_t i = 0; i < s->markers.n; i++) {
        const marker *m = &s->markers.v[i];
        dfs_pack_i64(w, m->s);
        dfs_pack_i64(w, m->e);
        pack_label(w, &m->lab);
        dfs_pack_u64(w, m->kind);
    }
    pack_i64s(w, s->bounds.v, s->bounds.n);
    pack_i64s(w, s->snaps.v, s->snaps.n);
}

static void pack_oev(dfs_pack *w, const oev *e)
{
    int64_t ints[] = {e->ts, e->end, e->pid, e->tid, e->ret, e->image_size};
    dfs_pack_i64s(w, ints, sizeof ints / sizeof *ints);
    dfs_pack_u64(w, e->fhash);
    dfs_pack_u64(w, e->hhash);
    dfs_pack_u64(w, e->offset);
    dfs_str strs[] = {e->cat, e->name, e->fname, e->host, e->pid_str, e->tid_str};
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        dfs_pack_str(w, strs[i]);
    dfs_pack_u64(w, e->file);
    dfs_pack_bool(w, e->has_size_sum);
    for (int k = 0; k < NMARKS; k++)
        pack_label(w, &e->lab[k]);
    dfs_pack_u64(w, e->arg_truths);
}

static void pack_methods(const dfs_overlap *ov, dfs_pack *w, const wstate *t)
{
    dfs_ovl_pack(t->global, w);
    dfs_pack_u64(w, t->akeys.n);
    for (size_t i = 0; i < t->akeys.n; i++) {
        dfs_pack_i64(w, t->akeys.v[i].bin);
        dfs_pack_u64(w, t->akeys.v[i].thread);
        for (size_t c = 0; c < ov->nclasses; c++)
            dfs_pack_i64(w, t->asums.v[i * ov->nclasses + c]);
    }
    dfs_pack_u64(w, t->g0.n);
    for (size_t i = 0; i < t->g0.n; i++) {
        dfs_pack_i64(w, t->g0bins.v[i]);
        dfs_ovl_pack(t->g0.v[i], w);
    }
    dfs_pack_u64(w, t->funcs.n);
    for (size_t i = 0; i < t->funcs.n; i++) {
        dfs_pack_str(w, t->funcs.v[i].name);
        dfs_pack_u64(w, t->funcs.v[i].count);
        dfs_pack_u64(w, t->funcs.v[i].sized);
        dfs_pack_u128(w, t->funcs.v[i].bytes);
    }
    dfs_pack_u64(w, t->skeys.n);
    for (size_t i = 0; i < t->skeys.n; i++) {
        dfs_pack_str(w, t->skeys.v[i].name);
        dfs_pack_u64(w, t->skeys.v[i].size);
        dfs_pack_u64(w, t->scounts.v[i]);
    }
}

bool dfs_overlap_pack(const dfs_overlap *ov, const dfs_run *run, dfs_pack *w)
{
    (void)run;
    const wstate *t = &ov->total;
    uint64_t counters[] = {t->events, t->no_duration, t->other_phases, t->bad_time, t->negative,
                           t->dropped_files, t->dropped_functions, t->flushes};
    dfs_pack_u64s(w, counters, sizeof counters / sizeof *counters);
    dfs_pack_bool(w, t->have_time);
    dfs_pack_i64(w, t->min_ts);
    dfs_pack_i64(w, t->max_end);
    dfs_pack_bool(w, t->conflict);
    dfs_pack_bool(w, t->bins_over);
    dfs_pack_u64(w, t->run_bin_events);
    const scope_vec *vecs[2] = {&t->procs, &t->threads};
    for (int k = 0; k < 2; k++) {
        dfs_pack_u64(w, vecs[k]->n);
        for (size_t i = 0; i < vecs[k]->n; i++)
            pack_scope(ov, w, &vecs[k]->v[i]);
    }
    pack_methods(ov, w, t);
    dfs_pack_named_keys(w, &t->files);
    dfs_pack_named_keys(w, &t->hosts);
    dfs_pack_i64_keys(w, &t->pids);
    dfs_pack_i64_keys(w, &t->ctids);
    dfs_pack_i64_keys(w, &t->itids);
    dfs_pack_u64(w, t->pending.n);
    for (size_t i = 0; i < t->pending.n; i++)
        pack_oev(w, &t->pending.v[i]);
    dfs_clock_track_pack(w, &t->clocks);
    return !w->failed && !t->failed;
}

/* ---- reading ------------------------------------------------------------------------------------ */

static void unpack_label(dfs_unpack *r, label *l)
{
    memset(l, 0, sizeof *l);
    uint64_t kind = dfs_unpack_u64(r);
    l->kind = (uint8_t)kind;
    l->i = dfs_unpack_i64(r);
    l->s = dfs_unpack_str(r);
    if (kind > 2)
        r->bad = true;
}

static bool unpack_i64s(dfs_unpack *r, i64_vec *v)
{
    size_t n = dfs_unpack_count(r, 1);
    if (r->bad || !dfs_vec_reserve(v, n))
        return false;
    for (size_t i = 0; i < n; i++)
        v->v[v->n++] = dfs_unpack_i64(r);
    return !r->bad;
}

static bool unpack_engine(dfs_unpack *r, dfs_ovl **o)
{
    *o = dfs_ovl_unpack(r);
    return !r->bad;
}

static bool unpack_markers(dfs_unpack *r, scope *s)
{
    size_t n = dfs_unpack_count(r, 6);
    for (size_t i = 0; i < n && !r->bad; i++) {
        marker m;
        memset(&m, 0, sizeof m);
        m.s = dfs_unpack_i64(r);
        m.e = dfs_unpack_i64(r);
        unpack_label(r, &m.lab);
        uint64_t kind = dfs_unpack_u64(r);
        m.kind = (uint8_t)kind;
        if (kind >= NMARKS || !dfs_vec_push(&s->markers, m))
            return false;
    }
    return !r->bad;
}

/* One unit into `s` (initialised); false on a bad buffer or no memory (s is then freed). */
static bool unpack_scope(const dfs_overlap *ov, dfs_unpack *r, scope *s)
{
    unit_key k;
    memset(&k, 0, sizeof k);
    k.hhash = dfs_unpack_u64(r);
    k.host = dfs_unpack_str(r);
    k.pid = dfs_unpack_i64(r);
    k.tid = dfs_unpack_i64(r);
    dfs_overlap_scope_init(s, &k);
    s->host = dfs_unpack_str(r);
    s->pid_str = dfs_unpack_str(r);
    s->tid_str = dfs_unpack_str(r);
    s->file = dfs_unpack_u32(r);
    s->offset = dfs_unpack_u64(r);
    s->start = dfs_unpack_i64(r);
    s->end = dfs_unpack_i64(r);
    s->events = dfs_unpack_u64(r);
    s->bin_events = dfs_unpack_u64(r);
    for (size_t c = 0; c < ov->nclasses; c++) {
        s->sum[c] = dfs_unpack_i64(r);
        s->count[c] = dfs_unpack_u64(r);
    }
    bool ok = unpack_engine(r, &s->eng);
    int64_t *stream[] = {&s->mark.t_end, &s->mark.lag, &s->mark.mlag, &s->wm};
    dfs_unpack_i64s(r, stream, sizeof stream / sizeof *stream);
    s->missed = dfs_unpack_bool(r);
    s->finalized = s->wm == INT64_MAX;
    ok = ok && unpack_markers(r, s) && unpack_i64s(r, &s->bounds) && unpack_i64s(r, &s->snaps);
    if (!ok || r->bad) {
        dfs_overlap_scope_free(s);
        return false;
    }
    return true;
}

static bool unpack_units(const dfs_overlap *ov, dfs_unpack *r, wstate *t, bool thread)
{
    dfs_keymap *map = thread ? &t->tmap : &t->pmap;
    scope_vec *vec = thread ? &t->threads : &t->procs;
    size_t n = dfs_unpack_count(r, 16);
    for (size_t i = 0; i < n && !r->bad; i++) {
        scope s;
        if (!unpack_scope(ov, r, &s))
            return false;
        uint32_t idx;
        bool fresh;
        if (!dfs_keymap_get_or_put(map, &s.key, (uint32_t)vec->n, &idx, &fresh) || !fresh || !dfs_vec_push(vec, s)) {
            dfs_overlap_scope_free(&s);
            return false;
        }
    }
    return !r->bad;
}

static bool unpack_approx(const dfs_overlap *ov, dfs_unpack *r, wstate *t)
{
    size_t n = dfs_unpack_count(r, 2 + ov->nclasses);
    for (size_t i = 0; i < n && !r->bad; i++) {
        approx_key k;
        memset(&k, 0, sizeof k);
        k.bin = dfs_unpack_i64(r);
        k.thread = dfs_unpack_u32(r);
        uint32_t idx;
        bool fresh;
        if (k.thread >= t->threads.n || !dfs_keymap_get_or_put(&t->amap, &k, (uint32_t)t->akeys.n, &idx, &fresh) ||
            !fresh || !dfs_vec_push(&t->akeys, k) || !dfs_vec_reserve(&t->asums, ov->nclasses))
            return false;
        for (size_t c = 0; c < ov->nclasses; c++)
            t->asums.v[t->asums.n++] = dfs_unpack_i64(r);
    }
    return !r->bad;
}

static bool unpack_g0(dfs_unpack *r, wstate *t)
{
    size_t n = dfs_unpack_count(r, 2);
    for (size_t i = 0; i < n && !r->bad; i++) {
        int64_t bin = dfs_unpack_i64(r);
        dfs_ovl *o;
        if (!unpack_engine(r, &o) || !o || !dfs_u64map_put(&t->g0map, (uint64_t)bin, (uint32_t)t->g0.n) ||
            !dfs_vec_push(&t->g0bins, bin) || !dfs_vec_push(&t->g0, o)) {
            dfs_ovl_free(o);
            return false;
        }
    }
    return !r->bad;
}

static bool unpack_functions(dfs_unpack *r, wstate *t)
{
    size_t n = dfs_unpack_count(r, 5);
    for (size_t i = 0; i < n && !r->bad; i++) {
        func_acc f = {.name = dfs_unpack_str(r)};
        f.count = dfs_unpack_u64(r);
        f.sized = dfs_unpack_u64(r);
        f.bytes = dfs_unpack_u128(r);
        uint32_t idx;
        bool fresh;
        if (!dfs_keymap_get_or_put(&t->fmap, &f.name, (uint32_t)t->funcs.n, &idx, &fresh) || !fresh ||
            !dfs_vec_push(&t->funcs, f))
            return false;
    }
    n = dfs_unpack_count(r, 3);
    for (size_t i = 0; i < n && !r->bad; i++) {
        size_key k;
        memset(&k, 0, sizeof k);
        k.name = dfs_unpack_str(r);
        k.size = dfs_unpack_u64(r);
        uint64_t count = dfs_unpack_u64(r);
        uint32_t idx;
        bool fresh;
        if (!dfs_keymap_get_or_put(&t->smap, &k, (uint32_t)t->skeys.n, &idx, &fresh) || !fresh ||
            !dfs_vec_push(&t->skeys, k) || !dfs_vec_push(&t->scounts, count))
            return false;
    }
    return !r->bad;
}

static bool unpack_pending(dfs_unpack *r, wstate *t)
{
    size_t n = dfs_unpack_count(r, 23);
    for (size_t i = 0; i < n && !r->bad; i++) {
        oev e;
        memset(&e, 0, sizeof e);
        int64_t *ints[] = {&e.ts, &e.end, &e.pid, &e.tid, &e.ret, &e.image_size};
        dfs_unpack_i64s(r, ints, sizeof ints / sizeof *ints);
        e.fhash = dfs_unpack_u64(r);
        e.hhash = dfs_unpack_u64(r);
        e.offset = dfs_unpack_u64(r);
        dfs_str *strs[] = {&e.cat, &e.name, &e.fname, &e.host, &e.pid_str, &e.tid_str};
        for (size_t k = 0; k < sizeof strs / sizeof *strs; k++)
            *strs[k] = dfs_unpack_str(r);
        e.file = dfs_unpack_u32(r);
        e.has_size_sum = dfs_unpack_bool(r);
        for (int k = 0; k < NMARKS; k++)
            unpack_label(r, &e.lab[k]);
        e.arg_truths = dfs_unpack_u64(r);
        if (!dfs_vec_push(&t->pending, e))
            return false;
    }
    return !r->bad;
}

static bool unpack_state(const dfs_overlap *ov, dfs_unpack *r, wstate *t)
{
    uint64_t *counters[] = {&t->events, &t->no_duration, &t->other_phases, &t->bad_time, &t->negative,
                            &t->dropped_files, &t->dropped_functions, &t->flushes};
    dfs_unpack_u64s(r, counters, sizeof counters / sizeof *counters);
    t->have_time = dfs_unpack_bool(r);
    t->min_ts = dfs_unpack_i64(r);
    t->max_end = dfs_unpack_i64(r);
    t->conflict = dfs_unpack_bool(r);
    t->bins_over = dfs_unpack_bool(r);
    t->run_bin_events = dfs_unpack_u64(r);
    return unpack_units(ov, r, t, false) && unpack_units(ov, r, t, true) && unpack_engine(r, &t->global) &&
           unpack_approx(ov, r, t) && unpack_g0(r, t) && unpack_functions(r, t) &&
           dfs_unpack_named_keys(r, &t->files) && dfs_unpack_named_keys(r, &t->hosts) &&
           dfs_unpack_i64_keys(r, &t->pids) && dfs_unpack_i64_keys(r, &t->ctids) && dfs_unpack_i64_keys(r, &t->itids) && unpack_pending(r, t) &&
           dfs_clock_track_unpack(r, &t->clocks);
}

bool dfs_overlap_merge_packed(dfs_overlap *ov, dfs_run *run, dfs_unpack *r)
{
    (void)run;
    wstate from;
    dfs_overlap_wstate_init(&from, ov);
    bool ok = unpack_state(ov, r, &from);
    if (!ok)
        r->bad = true;
    else
        dfs_overlap_merge_state(&ov->total, &from);
    dfs_overlap_wstate_free(&from);
    return ok && !ov->total.failed;
}
