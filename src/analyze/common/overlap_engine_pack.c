/* overlap_engine_pack.c - an exact interval engine on the wire, for distributed runs (docs/MPI.md):
 * its configuration, totals, stores (unions and held events, with their sorted prefixes) and
 * bins, and back as an equal engine.
 *
 * An absent engine (NULL) travels as a flag alone, so a unit without one needs no case of its own.
 *
 * Invariants: unpacking checks what it reads (class sets valid and distinct, held events only in
 * stores compared with R, sorted prefixes within their buffers) and fails as a whole, freeing
 * what it built; a finished engine lists its bins again, since it will not be finished anew. Not
 * compiled where the engine is compiled under other names (test_overlap_engine.c). */
#include "analyze/common/overlap_engine_internal.h"
#include "wire/pack.h"

static void pack_measure(dfs_pack *w, const dfs_ovl_measure *m)
{
    dfs_pack_i64(w, m->measure);
    dfs_pack_i64(w, m->with_ref);
    dfs_pack_i64(w, m->sum_dur);
    dfs_pack_u64(w, m->count);
    dfs_pack_u64(w, m->exposed_count);
    dfs_pack_f64(w, m->exposed_weight);
}

static void unpack_measure(dfs_unpack *r, dfs_ovl_measure *m)
{
    m->measure = dfs_unpack_i64(r);
    m->with_ref = dfs_unpack_i64(r);
    m->sum_dur = dfs_unpack_i64(r);
    m->count = dfs_unpack_u64(r);
    m->exposed_count = dfs_unpack_u64(r);
    m->exposed_weight = dfs_unpack_f64(r);
}

void dfs_ovl_pack(const dfs_ovl *o, dfs_pack *w)
{
    dfs_pack_bool(w, o != NULL);
    if (!o)
        return;
    dfs_pack_u64(w, o->nclasses);
    dfs_pack_i64(w, o->ref);
    dfs_pack_i64(w, o->bin_width);
    dfs_pack_i64(w, o->origin);
    dfs_pack_bool(w, o->skip_counts);
    dfs_pack_i64(w, o->watermark);
    dfs_pack_u64(w, o->late);
    for (unsigned c = 0; c < o->nclasses; c++)
        pack_measure(w, &o->total[c]);
    dfs_pack_u64(w, o->stores.n);
    for (size_t k = 0; k < o->stores.n; k++) {
        const ovl_store *x = &o->stores.v[k];
        dfs_pack_u64(w, x->classes);
        dfs_pack_u64(w, x->iv.n);
        dfs_pack_u64(w, x->iv_done);
        for (size_t i = 0; i < x->iv.n; i++) {
            dfs_pack_i64(w, x->iv.v[i].s);
            dfs_pack_i64(w, x->iv.v[i].e);
        }
        dfs_pack_u64(w, x->held.n);
        dfs_pack_u64(w, x->held_done);
        for (size_t i = 0; i < x->held.n; i++) {
            dfs_pack_i64(w, x->held.v[i].s);
            dfs_pack_i64(w, x->held.v[i].e);
            dfs_pack_i64(w, x->held.v[i].s0);
            dfs_pack_f64(w, x->held.v[i].w);
        }
    }
    dfs_pack_u64(w, o->bins.n);
    for (size_t i = 0; i < o->bins.n; i++) {
        dfs_pack_i64(w, o->bins.key[i]);
        for (unsigned c = 0; c < o->nclasses; c++)
            pack_measure(w, &o->bins.m[i * o->nclasses + c]);
    }
}

/* One store: a class set not seen before in the buffer, and held events only where the set is
 * compared with R. */
static bool unpack_store(dfs_unpack *r, dfs_ovl *o)
{
    uint64_t classes = dfs_unpack_u64(r);
    uint32_t seen;
    if (r->bad || !classes || (classes & ~ovl_valid_classes(o)) || dfs_u64map_get(&o->store_index, classes, &seen))
        return false;
    uint32_t k = ovl_store_of(o, classes);
    if (k == NO_STORE)
        return false;
    ovl_store *x = &o->stores.v[k];
    size_t n = dfs_unpack_count(r, 2);
    size_t done = (size_t)dfs_unpack_u64(r);
    if (r->bad || done > n || !ovl_iv_reserve(x, n))
        return false;
    for (size_t i = 0; i < n; i++) {
        int64_t s = dfs_unpack_i64(r), e = dfs_unpack_i64(r); /* in this order */
        x->iv.v[i] = (ival){s, e};
    }
    x->iv.n = n;
    x->iv_done = done;
    n = dfs_unpack_count(r, 11);
    done = (size_t)dfs_unpack_u64(r);
    if (r->bad || done > n || (n && !ovl_needs_held(o, classes)) || !dfs_vec_reserve(&x->held, n))
        return false;
    for (size_t i = 0; i < n; i++) {
        held_ev *h = &x->held.v[i];
        h->s = dfs_unpack_i64(r);
        h->e = dfs_unpack_i64(r);
        h->s0 = dfs_unpack_i64(r);
        h->w = dfs_unpack_f64(r);
    }
    x->held.n = n;
    x->held_done = done;
    return !r->bad;
}

dfs_ovl *dfs_ovl_unpack(dfs_unpack *r)
{
    if (!dfs_unpack_bool(r))
        return NULL; /* none travelled, or the buffer is bad */
    uint64_t nclasses = dfs_unpack_u64(r);
    int64_t ref = dfs_unpack_i64(r), width = dfs_unpack_i64(r), origin = dfs_unpack_i64(r);
    dfs_ovl *o = r->bad || nclasses > DFS_OVL_MAX_CLASSES || ref < -1 || ref >= (int64_t)nclasses
                     ? NULL
                     : dfs_ovl_new((unsigned)nclasses, (int)ref, width, origin);
    if (!o) {
        r->bad = true;
        return NULL;
    }
    o->skip_counts = dfs_unpack_bool(r);
    o->watermark = dfs_unpack_i64(r);
    o->late = dfs_unpack_u64(r);
    for (unsigned c = 0; c < o->nclasses; c++)
        unpack_measure(r, &o->total[c]);
    size_t nstores = dfs_unpack_count(r, 5);
    bool ok = !r->bad;
    for (size_t k = 0; ok && k < nstores; k++)
        ok = unpack_store(r, o);
    size_t nbins = ok ? dfs_unpack_count(r, 1 + 6 * (size_t)o->nclasses) : 0;
    for (size_t i = 0; ok && i < nbins; i++) {
        dfs_ovl_measure *m = ovl_bin_slot(o, dfs_unpack_i64(r));
        ok = m != NULL;
        for (unsigned c = 0; ok && c < o->nclasses; c++) {
            dfs_ovl_measure in;
            unpack_measure(r, &in);
            ovl_measure_add(&m[c], &in);
        }
    }
    /* a finished engine lists its bins (dfs_ovl_finish will not be called again on it) */
    if (ok && !r->bad && o->watermark == INT64_MAX)
        ok = ovl_build_order(o);
    if (!ok || r->bad) {
        r->bad = true;
        dfs_ovl_free(o);
        return NULL;
    }
    return o;
}
