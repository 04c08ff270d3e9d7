/* overlap_engine_flush.c - the measurement of an exact interval engine (overlap_engine.h): a flush
 * to a watermark W, and the results it leaves.
 *
 * A flush measures everything before W, decides the held events there, and cuts the unions at W.
 * Measures never cross W twice: what is credited is exactly the part before W, and what stays is
 * exactly the part after it. A class's union is the union of its stores' unions, walked merged by
 * start; a class whose stores do not overlap one another is credited store by store instead.
 *
 * With binning, a flush runs twice over the same data: first only to create the bins it will
 * touch (the one step that can run out of memory), then to credit them. A failed first pass
 * leaves at most a few empty bins behind, which the results never list.
 *
 * Invariants: a flush fails only before it credits anything (sorting a store's buffers changes no
 * measure, so a retry counts nothing twice); it credits spans in ascending order; the watermark
 * only rises; dfs_ovl_finish lists the non-empty bins by ascending key. */
#include <stdlib.h>
#include <string.h>

#include "analyze/common/overlap_engine_internal.h"

/* ---- a pass ---- */

typedef struct pass {
    dfs_ovl *o;
    int64_t w; /* watermark */
    /* The bin last looked up and its measures: the spans of a sorted union mostly fall in the bin
     * of the previous one, which then needs no lookup either. m comes from the latest ovl_bin_slot
     * call, the only one that may have moved the measures (every lookup of a pass goes through
     * pass_bin), so it stays valid. */
    bin_cursor bin;
    dfs_ovl_measure *m;
    const ival *r; /* R's union, coalesced, as far as it starts before W (ref_view) */
    size_t rn;
} pass;

static dfs_ovl_measure *pass_bin_lookup(pass *p, int64_t t)
{
    p->m = ovl_bin_slot(p->o, ovl_cursor_key(p->o, &p->bin, t));
    return p->m;
}

/* The measures of the bin of t; NULL when out of memory (only while reserving: see
 * reserve_pass_bins). */
static inline dfs_ovl_measure *pass_bin(pass *p, int64_t t)
{
    if (p->m && t >= p->bin.lo && t < p->bin.hi)
        return p->m;
    return pass_bin_lookup(p, t);
}

/* The end of the piece of [pos, b) in the bin pass_bin last found: the next bin starts at hi. */
static int64_t piece_end(const pass *p, int64_t b) { return p->bin.hi < b ? p->bin.hi : b; }

/* ---- walking a class's union ----
 * A class's union is the union of its stores' coalesced unions: a walk merges them by start and
 * coalesces across them, up to W. A class mostly lies in one or two stores, so the next interval
 * is found by looking at each store's next one. */

typedef struct union_walk {
    ovl_store *stores;
    const uint32_t *part; /* the stores of the class */
    size_t nparts;
    int64_t w;
    bool have; /* cur: the next interval, read ahead */
    ival cur;
    /* The store with the lowest next start, which keeps the lead up to the next start of any
     * other store (until): a class in one store is read straight through. */
    ovl_store *lead;
    int64_t until;
} union_walk;

static union_walk walk_start(dfs_ovl *o, const uint32_t *part, size_t nparts, int64_t w)
{
    for (size_t k = 0; k < nparts; k++)
        o->stores.v[part[k]].at = 0;
    return (union_walk){.stores = o->stores.v, .part = part, .nparts = nparts, .w = w};
}

/* The start of a store's next interval, INT64_MAX when it has none. */
static int64_t next_start(const ovl_store *x) { return x->at < x->iv.n ? x->iv.v[x->at].s : INT64_MAX; }

/* Finds the store with the lowest next start and how long it leads; false when every store is
 * done or its next interval starts at or after W. */
static bool walk_lead(union_walk *wk)
{
    wk->lead = NULL;
    int64_t best = INT64_MAX;
    wk->until = INT64_MAX;
    for (size_t k = 0; k < wk->nparts; k++) {
        ovl_store *x = &wk->stores[wk->part[k]];
        int64_t s = next_start(x);
        if (s < best || !wk->lead) {
            wk->until = best;
            best = s;
            wk->lead = x;
        } else if (s < wk->until) {
            wk->until = s;
        }
    }
    return wk->lead && best < wk->w;
}

/* The next interval of any of the stores by start, if it starts before W. */
static bool walk_pop(union_walk *wk, ival *out)
{
    ovl_store *x = wk->lead;
    if (!x || x->at >= x->iv.n || x->iv.v[x->at].s > wk->until) {
        if (!walk_lead(wk))
            return false;
        x = wk->lead;
    }
    if (x->iv.v[x->at].s >= wk->w)
        return false;
    *out = x->iv.v[x->at++];
    return true;
}

/* The next interval of the class's coalesced union that starts before W (its end is not
 * clipped). */
static bool walk_next(union_walk *wk, ival *out)
{
    if (!wk->have && !(wk->have = walk_pop(wk, &wk->cur)))
        return false;
    ival next;
    bool more;
    while ((more = walk_pop(wk, &next)) && next.s <= wk->cur.e) /* touching intervals merge */
        wk->cur.e = max64(wk->cur.e, next.e);
    *out = wk->cur;
    if (more)
        wk->cur = next;
    wk->have = more;
    return true;
}

/* The stores whose set contains class c, into o->parts (reserved for every store). */
static size_t parts_of(dfs_ovl *o, unsigned c)
{
    size_t n = 0;
    for (size_t i = 0; i < o->stores.n; i++)
        if (o->stores.v[i].classes >> c & 1)
            o->parts.v[n++] = (uint32_t)i;
    return n;
}

/* ---- crediting ----
 * A flush credits spans in ascending order, each split at the bin edges, and every span of one
 * walk goes to the same classes. So what they add to a bin is summed first, in a tally, and added
 * to each class only when the walk moves to another bin; the totals likewise at its end. All the
 * sums but exposed_weight are integers; the weights are byte counts, whole numbers whose sums are
 * exact in a double in any order. */

typedef struct tally {
    uint64_t cls;       /* the classes credited */
    bool in_ref;        /* the spans are R's own: all of each lies in R */
    size_t j;           /* R's first interval that can meet the next span */
    dfs_ovl_measure *m; /* the bin being summed: NULL before the first, and without bins */
    dfs_ovl_measure bin, total;
} tally;

static tally tally_start(uint64_t cls, bool in_ref) { return (tally){.cls = cls, .in_ref = in_ref}; }

/* Adds what was summed for the current bin to each class there. */
static void tally_spill(tally *t)
{
    if (t->m)
        for (uint64_t k = t->cls; k; k &= k - 1)
            ovl_measure_add(&t->m[__builtin_ctzll(k)], &t->bin);
    ovl_measure_add(&t->total, &t->bin);
    t->bin = (dfs_ovl_measure){0};
}

static void tally_end(pass *p, tally *t)
{
    tally_spill(t);
    for (uint64_t k = t->cls; k; k &= k - 1)
        ovl_measure_add(&p->o->total[__builtin_ctzll(k)], &t->total);
}

/* Makes the bin of t the one summed (every bin a pass asks for exists: reserve_pass_bins). */
static void tally_at(pass *p, tally *tl, int64_t t)
{
    dfs_ovl_measure *m = pass_bin(p, t);
    if (m != tl->m) {
        tally_spill(tl);
        tl->m = m;
    }
}

/* |R ∩ [a, b)|. Spans come in ascending order, so R's intervals that end by a are behind every
 * later span too (*j): the two-pointer sweep of overlap.md §3.5. */
static int64_t ref_overlap(const pass *p, int64_t a, int64_t b, size_t *j)
{
    while (*j < p->rn && p->r[*j].e <= a)
        (*j)++;
    int64_t sum = 0;
    for (size_t k = *j; k < p->rn && p->r[k].s < b; k++) {
        int64_t lo = max64(a, p->r[k].s), hi = min64(b, p->r[k].e);
        if (lo < hi)
            acc(&sum, span_len(lo, hi));
    }
    return sum;
}

/* A piece [a, b) of a span, inside one bin: its measure, and its with_ref whole (R's own) or as
 * far as R covers it. */
static void tally_piece(const pass *p, tally *t, int64_t a, int64_t b)
{
    int64_t len = span_len(a, b);
    acc(&t->bin.measure, len);
    acc(&t->bin.with_ref, t->in_ref ? len : ref_overlap(p, a, b, &t->j));
}

/* Credits a span [a, b) of a union, clipped to every bin it crosses. */
static void tally_span(pass *p, tally *t, int64_t a, int64_t b)
{
    if (!p->o->bin_width) {
        tally_piece(p, t, a, b);
        return;
    }
    for (int64_t pos = a; pos < b;) {
        tally_at(p, t, pos);
        int64_t end = piece_end(p, b);
        tally_piece(p, t, pos, end);
        pos = end;
    }
}

/* |X ∩ (-inf, W)| and |X ∩ R ∩ (-inf, W)| (for R itself: |R| twice). */
static void pass_class(pass *p, unsigned c, union_walk *wk)
{
    tally t = tally_start(UINT64_C(1) << c, (int)c == p->o->ref);
    ival u;
    while (walk_next(wk, &u))
        tally_span(p, &t, u.s, min64(u.e, p->w));
    tally_end(p, &t);
}

/* An exposed event counts in the bin of its original start. */
static void tally_exposed(pass *p, tally *t, const held_ev *ev)
{
    if (p->o->bin_width)
        tally_at(p, t, ev->s0);
    t->bin.exposed_count++;
    t->bin.exposed_weight += ev->w;
}

/* Without bins: the held events from i on that end by W and by the start of R's interval j are
 * exposed, none of R meeting them (R's intervals before j end by the start of the event that
 * looked j up, which none of these starts before); returns the first other one. Most of a store's
 * events, where R is elsewhere, are decided here without a search each. */
static size_t expose_before_ref(const pass *p, tally *t, const held_vec *h, size_t i, size_t j)
{
    int64_t until = min64(j < p->rn ? p->r[j].s : INT64_MAX, p->w);
    uint64_t n = 0;
    double weight = 0; /* (whole byte counts: exact in any order) */
    for (; i < h->n && h->v[i].e <= until; i++, n++)
        weight += h->v[i].w;
    t->bin.exposed_count += n;
    t->bin.exposed_weight += weight;
    return i;
}

/* Decides the held events of a store that start before W; R's union is final there. An event
 * ending by W is decided. One crossing W is exposed if [s, W) is not covered; otherwise only
 * [W, e) remains to check, and R's union may then be cut at W. The held events are sorted by
 * start, so the one interval of R that can contain s only moves forward, nested events included. */
static void pass_exposure(pass *p, ovl_store *x)
{
    held_vec *h = &x->held;
    tally t = tally_start(x->classes, false);
    size_t i, j = 0, kept = 0;
    for (i = 0; i < h->n && h->v[i].s < p->w; i++) {
        if (!p->o->bin_width && (i = expose_before_ref(p, &t, h, i, j)) == h->n)
            break;
        if (h->v[i].s >= p->w)
            break;
        held_ev ev = h->v[i];
        j = ovl_first_ending_after(p->r, p->rn, j, ev.s);
        bool crossing = ev.e > p->w;
        if (!ovl_covered_by(p->r, p->rn, j, ev.s, crossing ? p->w : ev.e)) {
            tally_exposed(p, &t, &ev);
        } else if (crossing) {
            ev.s = p->w; /* still sorted: every later event starts at or after W */
            h->v[kept++] = ev;
        }
    }
    tally_end(p, &t);
    if (h->n) {
        memmove(h->v + kept, h->v + i, (h->n - i) * sizeof *h->v);
        h->n = x->held_done = kept + (h->n - i);
    }
}

/* ---- flushing ---- */

/* Points p at R's union: the union of its one store as it is, or those of several joined into
 * ref_joined (up to W, which is all a flush reads). false when out of memory. */
static bool ref_view(dfs_ovl *o, pass *p)
{
    p->r = NULL;
    p->rn = 0;
    if (o->ref < 0)
        return true;
    size_t nparts = parts_of(o, (unsigned)o->ref), total = 0;
    if (nparts == 1) {
        const ovl_store *x = &o->stores.v[o->parts.v[0]];
        p->r = x->iv.v;
        p->rn = x->iv.n;
        return true;
    }
    for (size_t k = 0; k < nparts; k++)
        total += o->stores.v[o->parts.v[k]].iv.n;
    o->ref_joined.n = 0;
    if (!dfs_vec_reserve(&o->ref_joined, total))
        return false;
    union_walk wk = walk_start(o, o->parts.v, nparts, p->w);
    ival u;
    while (walk_next(&wk, &u))
        o->ref_joined.v[o->ref_joined.n++] = u;
    p->r = o->ref_joined.v;
    p->rn = o->ref_joined.n;
    return true;
}

/* The end of what a flush measures of a coalesced union: the end of its last interval that starts
 * before W (ends grow with starts), clipped to W; INT64_MIN when none does. */
static int64_t union_end_before(const ovl_store *x, int64_t w)
{
    size_t lo = 0, hi = x->iv.n; /* the first interval starting at or after W */
    if (hi && x->iv.v[hi - 1].s < w)
        lo = hi; /* the common case: all of it (a finish) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->iv.v[mid].s < w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? min64(x->iv.v[lo - 1].e, w) : INT64_MIN;
}

/* Creates the bins of [lo, hi) all at once when they are no more than the items a flush walks (a
 * few more bins cost nothing: empty ones are never listed), which spares a lookup per span.
 * false when there are more (or none): the caller reserves span by span. *ok: out of memory. */
static bool reserve_dense(pass *p, size_t items, bool *ok)
{
    dfs_ovl *o = p->o;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t k = 0; k < o->stores.n; k++) {
        const ovl_store *x = &o->stores.v[k];
        if (x->iv.n && x->iv.v[0].s < p->w) {
            lo = min64(lo, x->iv.v[0].s);
            hi = max64(hi, union_end_before(x, p->w));
        }
    }
    *ok = true;
    if (lo >= hi)
        return false;
    i128 first = ovl_bin_of(o, lo), last = ovl_bin_of(o, hi - 1);
    if (last - first >= (i128)items + 64 || first < INT64_MIN || last > INT64_MAX)
        return false;
    for (i128 k = first; k <= last; k++)
        if (!ovl_bin_slot(o, (int64_t)k)) {
            *ok = false;
            break;
        }
    return true;
}

/* Creates every bin that the flush will credit, before it changes anything, so that it cannot
 * fail halfway: the bins crossed by the stores' spans before W (a class's union and its
 * intersection with R lie inside its stores' spans) and those of the starts of the held events it
 * decides. A held event lies inside its store's union, and its start s0 is still its own unless a
 * flush cut it (then its start became that watermark, at most the engine's): only those are
 * looked at one by one when the spans' bins were made at once. */
static bool reserve_pass_bins(pass *p)
{
    size_t items = 0;
    for (size_t k = 0; k < p->o->stores.n; k++)
        items += p->o->stores.v[k].iv.n + p->o->stores.v[k].held.n;
    bool ok, dense = reserve_dense(p, items, &ok);
    if (!ok)
        return false;
    for (size_t k = 0; k < p->o->stores.n; k++) {
        const ovl_store *x = &p->o->stores.v[k];
        for (size_t i = 0; !dense && i < x->iv.n && x->iv.v[i].s < p->w; i++) {
            int64_t b = min64(x->iv.v[i].e, p->w);
            for (int64_t pos = x->iv.v[i].s; pos < b; pos = piece_end(p, b))
                if (!pass_bin(p, pos))
                    return false;
        }
        int64_t cut_up_to = dense ? p->o->watermark : INT64_MAX;
        for (size_t i = 0; i < x->held.n && x->held.v[i].s < p->w && x->held.v[i].s <= cut_up_to; i++)
            if (!pass_bin(p, x->held.v[i].s0))
                return false;
    }
    return true;
}

/* ---- classes measured store by store ----
 * A class whose stores' unions do not overlap one another (most classes: one store, or stores of
 * events that happen at different times) measures as the sum of its stores: |X| = Σ |x| and
 * |X ∩ R| = Σ |x ∩ R|. Such classes are credited while each store is walked once, all of a
 * store's classes at a time, instead of walking a shared store again for every class. */

/* Whether two coalesced unions overlap (touching is no overlap: it changes no measure). */
static bool unions_overlap(const ovl_store *x, const ovl_store *y)
{
    if (x->iv.n > y->iv.n) {
        const ovl_store *t = x;
        x = y;
        y = t;
    }
    size_t j = 0;
    for (size_t i = 0; i < x->iv.n; i++) {
        j = ovl_first_ending_after(y->iv.v, y->iv.n, j, x->iv.v[i].s);
        if (j < y->iv.n && y->iv.v[j].s < x->iv.v[i].e)
            return true;
    }
    return false;
}

enum { MAX_SEPARATE_PARTS = 4 }; /* beyond, a class is walked as one union */

/* The classes whose stores do not overlap one another (unions compacted, parts reserved). */
static uint64_t separable_classes(dfs_ovl *o)
{
    uint64_t sep = 0;
    for (unsigned c = 0; c < o->nclasses; c++) {
        size_t n = parts_of(o, c);
        bool apart = n <= MAX_SEPARATE_PARTS;
        for (size_t i = 0; apart && i < n; i++)
            for (size_t k = i + 1; apart && k < n; k++)
                apart = !unions_overlap(&o->stores.v[o->parts.v[i]], &o->stores.v[o->parts.v[k]]);
        sep |= (uint64_t)apart << c;
    }
    return sep;
}

/* |x ∩ (-inf, W)| and |x ∩ R ∩ (-inf, W)| into every class of cls (classes of x). The events of
 * a store whose set contains R are R's own: all of the store lies in R. */
static void pass_store(pass *p, const ovl_store *x, uint64_t cls)
{
    tally t = tally_start(cls, p->o->ref >= 0 && (x->classes >> p->o->ref & 1));
    /* without bins, a span ending by the start of R's interval t.j (the one ref_overlap looks at
     * first, or one before it) meets none of R: only its length counts */
    bool plain = !p->o->bin_width && !t.in_ref;
    int64_t next_ref = p->rn ? p->r[0].s : INT64_MAX;
    for (size_t i = 0; i < x->iv.n && x->iv.v[i].s < p->w; i++) {
        int64_t a = x->iv.v[i].s, b = min64(x->iv.v[i].e, p->w);
        if (plain && b <= next_ref) {
            acc(&t.bin.measure, span_len(a, b));
            continue;
        }
        if (t.m && a >= p->bin.lo && b <= p->bin.hi) /* inside the bin being summed: most spans */
            tally_piece(p, &t, a, b);
        else
            tally_span(p, &t, a, b);
        next_ref = t.j < p->rn ? p->r[t.j].s : INT64_MAX;
    }
    tally_end(p, &t);
}

/* Credits everything before W; every bin it touches exists (reserve_pass_bins). */
static void flush_pass(pass *p)
{
    dfs_ovl *o = p->o;
    uint64_t sep = separable_classes(o);
    for (size_t k = 0; k < o->stores.n; k++)
        if (o->stores.v[k].classes & sep)
            pass_store(p, &o->stores.v[k], o->stores.v[k].classes & sep);
    for (unsigned c = 0; c < o->nclasses; c++) {
        if (sep >> c & 1)
            continue;
        size_t nparts = parts_of(o, c);
        union_walk wk = walk_start(o, o->parts.v, nparts, p->w);
        pass_class(p, c, &wk);
    }
    for (size_t k = 0; k < o->stores.n; k++)
        if (o->stores.v[k].checked)
            pass_exposure(p, &o->stores.v[k]);
}

bool dfs_ovl_flush(dfs_ovl *o, int64_t watermark)
{
    if (!o)
        return false;
    for (size_t k = 0; k < o->stores.n; k++)
        if (!ovl_compact_union(o, &o->stores.v[k]) || !ovl_sort_held(o, &o->stores.v[k]))
            return false; /* sorting changes nothing that a retry would count twice */
    o->parts.n = 0;
    if (!dfs_vec_reserve(&o->parts, o->stores.n + 1))
        return false;
    pass p = {.o = o, .w = watermark};
    if (!ref_view(o, &p) || (o->bin_width && !reserve_pass_bins(&p)))
        return false;
    p.bin = (bin_cursor){0}; /* the bins' measures may have moved since */
    p.m = NULL;
    flush_pass(&p);
    for (size_t k = 0; k < o->stores.n; k++)
        ovl_cut_union(&o->stores.v[k], watermark);
    o->watermark = max64(o->watermark, watermark);
    return true;
}

/* ---- results ---- */

static bool measure_empty(const dfs_ovl_measure *m)
{
    return !m->measure && !m->with_ref && !m->sum_dur && !m->count && !m->exposed_count &&
           m->exposed_weight == 0;
}

static int cmp_key(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Lists the non-empty bins by key. Sorting the keys and looking their slots up again keeps the
 * slots (and the index map) untouched. */
bool ovl_build_order(dfs_ovl *o)
{
    bin_store *b = &o->bins;
    int64_t *keys = malloc(max_size(b->n, 1) * sizeof *keys);
    size_t *order = realloc(b->order, max_size(b->n, 1) * sizeof *order);
    if (!keys || !order) {
        free(keys);
        if (order)
            b->order = order;
        return false;
    }
    b->order = order;
    size_t n = 0;
    for (size_t i = 0; i < b->n; i++) {
        bool empty = true;
        for (unsigned c = 0; c < o->nclasses && empty; c++)
            empty = measure_empty(&b->m[i * o->nclasses + c]);
        if (!empty)
            keys[n++] = b->key[i];
    }
    qsort(keys, n, sizeof *keys, cmp_key);
    for (size_t i = 0; i < n; i++) {
        uint32_t slot = 0;
        dfs_u64map_get(&b->index, (uint64_t)keys[i], &slot);
        order[i] = slot;
    }
    b->norder = n;
    free(keys);
    return true;
}

bool dfs_ovl_finish(dfs_ovl *o)
{
    return dfs_ovl_flush(o, INT64_MAX) && ovl_build_order(o);
}

const dfs_ovl_measure *dfs_ovl_total(const dfs_ovl *o, unsigned c)
{
    return o && c < o->nclasses ? &o->total[c] : NULL;
}

size_t dfs_ovl_nbins(const dfs_ovl *o) { return o ? o->bins.norder : 0; }

int64_t dfs_ovl_bin_index(const dfs_ovl *o, size_t i)
{
    return o && i < o->bins.norder ? o->bins.key[o->bins.order[i]] : 0;
}

const dfs_ovl_measure *dfs_ovl_bin(const dfs_ovl *o, size_t i, unsigned c)
{
    if (!o || i >= o->bins.norder || c >= o->nclasses)
        return NULL;
    return &o->bins.m[o->bins.order[i] * o->nclasses + c];
}

uint64_t dfs_ovl_late_events(const dfs_ovl *o) { return o ? o->late : 0; }

int64_t dfs_ovl_watermark(const dfs_ovl *o) { return o ? o->watermark : INT64_MIN; }

size_t dfs_ovl_held(const dfs_ovl *o)
{
    size_t n = 0;
    for (size_t k = 0; o && k < o->stores.n; k++)
        n += o->stores.v[k].iv.n + o->stores.v[k].held.n;
    return n;
}
