/* overlap_engine.c - exact interval algebra of one scope (overlap.md §3; the contract is in
 * overlap_engine.h): the engine's life, its stores, and adding and merging events.
 *
 * Events are stored once per distinct set of classes (a store), however many classes they belong
 * to: a layer event mostly belongs to several (POSIX - All and POSIX - Reader), and storing it per
 * class would repeat every step below. Each class keeps only its measures; its union is the union
 * of the stores whose set contains it, merged on the fly when a flush measures it. A store holds
 * two arrays:
 *  - iv: the union of its events. iv[0, iv_done) is coalesced (sorted, disjoint, touching ones
 *    merged); the rest are raw intervals added since, merged in by compaction (sort + coalesce)
 *    when they double it;
 *  - held (only for stores compared with a reference R, i.e. whose set does not contain R): the
 *    events whose exposure is not decided yet. Exposure is a property of the event (is it inside
 *    R's union?), so it is decided once per event and credited to every class of the set. An
 *    event is dropped as soon as it is known to be covered by R (R's union only grows), or
 *    decided at a flush once R is final over it. An event whose set contains R is covered by
 *    itself and never held.
 *
 * The engine's other files: overlap_engine_flush.c (a flush to a watermark, and the results) and
 * overlap_engine_pack.c (an engine on the wire); overlap_engine_internal.h holds what they share.
 *
 * Invariants kept here: held[0, held_done) is sorted by start; an add or a merge reserves all it
 * may allocate before it changes anything, so that out of memory leaves the engine as it was (but
 * for spare capacity, and empty bins or stores, which change no result); buffers are compacted or
 * pruned only when they have doubled (amortised), never on every add. */
#include "analyze/common/overlap_engine.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/common/overlap_engine_internal.h"

/* Buffers are compacted or pruned only after this many new items, so small ones are not sorted
 * again on every add. */
#define MIN_BATCH 32
#define MAX_BACKOFF 7 /* held_backoff: a store whose prunes drop little is pruned at 128-fold growth */

/* ---- bins ---- */

static bool bins_grow(bin_store *b, unsigned nclasses)
{
    size_t cap = b->cap ? b->cap * 2 : 16;
    int64_t *key = realloc(b->key, cap * sizeof *key);
    if (!key)
        return false;
    b->key = key;
    dfs_ovl_measure *m = realloc(b->m, cap * nclasses * sizeof *m);
    if (!m)
        return false;
    b->m = m;
    b->cap = cap;
    return true;
}

/* The measures (one per class) of bin `key`, created empty if new; NULL when out of memory. The
 * pointer is valid until the next bin is created. */
dfs_ovl_measure *ovl_bin_slot(dfs_ovl *o, int64_t key)
{
    bin_store *b = &o->bins;
    uint32_t slot;
    if (b->have_last && b->last_key == key)
        return b->m + (size_t)b->last_slot * o->nclasses;
    if (dfs_u64map_get(&b->index, (uint64_t)key, &slot)) {
        b->have_last = true;
        b->last_key = key;
        b->last_slot = slot;
        return b->m + (size_t)slot * o->nclasses;
    }
    if (b->n >= UINT32_MAX || (b->n == b->cap && !bins_grow(b, o->nclasses)))
        return NULL;
    if (!dfs_u64map_put(&b->index, (uint64_t)key, (uint32_t)b->n))
        return NULL;
    dfs_ovl_measure *m = b->m + b->n * o->nclasses;
    memset(m, 0, o->nclasses * sizeof *m);
    b->key[b->n++] = key;
    return m;
}

static void bins_clear(bin_store *b)
{
    dfs_u64map_clear(&b->index);
    b->n = b->norder = 0;
    b->have_last = false;
}

static void bins_free(bin_store *b)
{
    free(b->key);
    free(b->m);
    free(b->order);
    dfs_u64map_free(&b->index);
}

/* ---- sorting ----
 * Both item types (ival, held_ev) begin with their key s. A compaction sorts only the items added
 * since the last one, then merges them into the sorted prefix from the back: events that arrive
 * roughly in time order land at the end, so the prefix is not even read. The merge sort and the
 * merge are specialised by the compiler for the two constant item sizes. */

enum { SORT_BLOCK = 32 }; /* insertion-sorted first: near-linear on nearly sorted input */

static int64_t item_key(const unsigned char *item)
{
    int64_t k;
    memcpy(&k, item, sizeof k);
    return k;
}

static inline void insertion_sort(unsigned char *v, size_t n, size_t size)
{
    unsigned char item[sizeof(held_ev)];
    for (size_t i = 1; i < n; i++) {
        int64_t k = item_key(v + i * size);
        size_t j = i;
        while (j > 0 && item_key(v + (j - 1) * size) > k)
            j--;
        if (j == i)
            continue;
        memcpy(item, v + i * size, size);
        memmove(v + (j + 1) * size, v + j * size, (i - j) * size);
        memcpy(v + j * size, item, size);
    }
}

/* out = the sorted runs a and b merged; out overlaps neither. */
static inline void merge_runs(unsigned char *out, const unsigned char *a, size_t na,
                              const unsigned char *b, size_t nb, size_t size)
{
    size_t i = 0, j = 0;
    for (; i < na && j < nb; out += size) {
        bool take_b = item_key(b + j * size) < item_key(a + i * size);
        memcpy(out, take_b ? b + j++ * size : a + i++ * size, size);
    }
    memcpy(out, a + i * size, (na - i) * size);
    memcpy(out + (na - i) * size, b + j * size, (nb - j) * size);
}

/* Bottom-up merge sort of v[0, n), with room for n items in tmp. */
static inline void sort_items(unsigned char *v, size_t n, size_t size, unsigned char *tmp)
{
    for (size_t i = 0; i < n; i += SORT_BLOCK)
        insertion_sort(v + i * size, n - i < SORT_BLOCK ? n - i : SORT_BLOCK, size);
    unsigned char *from = v, *to = tmp;
    for (size_t width = SORT_BLOCK; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = n - lo < width ? n : lo + width;
            size_t hi = n - lo < 2 * width ? n : lo + 2 * width;
            merge_runs(to + lo * size, from + lo * size, mid - lo, from + mid * size, hi - mid,
                       size);
        }
        unsigned char *t = from;
        from = to;
        to = t;
    }
    if (from != v)
        memcpy(v, from, n * size);
}

/* Merges the sorted run tmp[0, nb) into the sorted v[0, na), in place from the back (v has room
 * for na + nb items). Returns the lowest index written: v before it has not moved. */
static inline size_t merge_from_back(unsigned char *v, size_t na, const unsigned char *tmp,
                                     size_t nb, size_t size)
{
    size_t i = na, j = nb, k = na + nb;
    while (j > 0) {
        k--;
        if (i > 0 && item_key(v + (i - 1) * size) > item_key(tmp + (j - 1) * size))
            memcpy(v + k * size, v + --i * size, size);
        else
            memcpy(v + k * size, tmp + --j * size, size);
    }
    return k;
}

/* The scratch buffer of the sorts, shared by all classes of the engine. */
static bool scratch_reserve(dfs_ovl *o, size_t bytes)
{
    if (bytes <= o->scratch_cap)
        return true;
    size_t cap = max_size(bytes, 2 * o->scratch_cap);
    unsigned char *p = realloc(o->scratch, cap);
    if (!p)
        return false;
    o->scratch = p;
    o->scratch_cap = cap;
    return true;
}

/* Whether v[done, n) is sorted (the return value) and whether it also starts at or after the end
 * of the sorted v[0, done) (*after): one read of the tail, which spares the sort, and then the
 * merge, their copies. */
static bool tail_sorted(const unsigned char *v, size_t done, size_t n, size_t size, bool *after)
{
    *after = done == 0 || done == n || item_key(v + done * size) >= item_key(v + (done - 1) * size);
    for (size_t i = done + 1; i < n; i++)
        if (item_key(v + i * size) < item_key(v + (i - 1) * size))
            return false;
    return true;
}

/* Sorts v[done, n) and merges it into the sorted v[0, done). Returns the lowest index that moved
 * or was added (done when the tail was already in place),
 * or SIZE_MAX when out of memory (nothing changed then). */
static size_t sort_tail(dfs_ovl *o, unsigned char *v, size_t done, size_t n, size_t size)
{
    size_t tail = n - done;
    bool after;
    bool sorted = tail_sorted(v, done, n, size, &after);
    if (sorted && after) /* the common case: items that arrived in time order */
        return done;
    if (!scratch_reserve(o, tail * size))
        return SIZE_MAX;
    if (!sorted) /* a sorted tail (a merged engine's, compacted first) is only merged */
        sort_items(v + done * size, tail, size, o->scratch);
    memcpy(o->scratch, v + done * size, tail * size);
    return merge_from_back(v, done, o->scratch, tail, size);
}

/* ---- the union's buffer ----
 * A flush cuts the measured front off a union. Moving what remains down at every flush would cost
 * O(kept) per flush, however little was cut; instead iv.v moves up in its allocation, and the
 * remainder is moved down only when the buffer is full, which the old way needed no less room for. */

static ival *iv_mem(const ovl_store *x) { return x->iv_cut ? x->iv.v - x->iv_cut : x->iv.v; }

/* Gives the cut front back to the buffer. */
static void iv_rebase(ovl_store *x)
{
    if (!x->iv_cut)
        return;
    ival *mem = iv_mem(x);
    memmove(mem, x->iv.v, x->iv.n * sizeof *mem);
    x->iv.v = mem;
    x->iv.cap += x->iv_cut;
    x->iv_cut = 0;
}

/* Room for `extra` more intervals; false when out of memory (nothing else changed). */
bool ovl_iv_reserve(ovl_store *x, size_t extra)
{
    if (x->iv.n + extra <= x->iv.cap)
        return true;
    iv_rebase(x);
    return dfs_vec_reserve(&x->iv, extra);
}

/* Drops the first k intervals. */
static void iv_cut_front(ovl_store *x, size_t k)
{
    if (k == x->iv.n) { /* nothing remains: the buffer restarts at its front for free */
        x->iv.v = iv_mem(x);
        x->iv.cap += x->iv_cut;
        x->iv_cut = 0;
    } else {
        x->iv.v += k;
        x->iv.cap -= k;
        x->iv_cut += k;
    }
    x->iv.n -= k;
}

/* ---- compaction ---- */

/* Sorts the raw intervals in and coalesces; touching intervals merge so that coverage by the union
 * is always coverage by a single interval (what the exposure checks rely on). Only what follows
 * the first moved interval needs coalescing again. False when out of memory (nothing changed). */
bool ovl_compact_union(dfs_ovl *o, ovl_store *x)
{
    if (x->iv_done == x->iv.n)
        return true;
    size_t from = sort_tail(o, (unsigned char *)x->iv.v, x->iv_done, x->iv.n, sizeof(ival));
    if (from == SIZE_MAX)
        return false;
    size_t w = from;
    for (size_t i = from; i < x->iv.n; i++) {
        ival cur = x->iv.v[i];
        if (w && cur.s <= x->iv.v[w - 1].e)
            x->iv.v[w - 1].e = max64(x->iv.v[w - 1].e, cur.e);
        else
            x->iv.v[w++] = cur;
    }
    x->iv.n = x->iv_done = w;
    return true;
}

bool ovl_sort_held(dfs_ovl *o, ovl_store *x)
{
    if (x->held_done == x->held.n)
        return true;
    if (sort_tail(o, (unsigned char *)x->held.v, x->held_done, x->held.n, sizeof(held_ev)) ==
        SIZE_MAX)
        return false;
    x->held_done = x->held.n;
    return true;
}

/* Drops held events already covered by the coalesced prefix of R's own store. That is a subset of
 * R's final union, so "covered" is final; the others wait. R is compacted first only when that
 * costs no more than sorting the held events: a large R would otherwise be sorted again for
 * every prune of a small store. */
static void prune_held(dfs_ovl *o, ovl_store *x)
{
    ovl_store *r = o->ref_store == NO_STORE ? NULL : &o->stores.v[o->ref_store];
    if (r && r->iv.n <= x->held.n)
        ovl_compact_union(o, r); /* out of memory: prune against the older prefix */
    if (!ovl_sort_held(o, x) || !r)
        return;
    size_t kept = 0, j = 0, n = x->held.n;
    for (size_t i = 0; i < n; i++) {
        held_ev ev = x->held.v[i];
        j = ovl_first_ending_after(r->iv.v, r->iv_done, j, ev.s);
        if (!ovl_covered_by(r->iv.v, r->iv_done, j, ev.s, ev.e))
            x->held.v[kept++] = ev;
    }
    x->held.n = x->held_done = kept;
    /* Events that R does not cover (a synchronous loader's reads) stay until a flush whatever
     * is done: a prune that drops less than a quarter waits for eightfold growth, not double,
     * and each such prune after it waits twice as long again (up to MAX_BACKOFF). */
    if ((n - kept) * 4 >= n)
        x->held_backoff = 0;
    else if (x->held_backoff < 3)
        x->held_backoff = 3;
    else if (x->held_backoff < MAX_BACKOFF)
        x->held_backoff++;
}

/* "When the buffer doubles": amortised O(log n) per item over the whole stream. Out of memory
 * only postpones it. */
static bool union_due(const ovl_store *x) { return x->iv.n - x->iv_done >= max_size(x->iv_done, MIN_BATCH); }

static bool held_due(const ovl_store *x)
{
    return x->held.n - x->held_done >= max_size(x->held_done, MIN_BATCH) << x->held_backoff;
}

static void maybe_compact(dfs_ovl *o, ovl_store *x)
{
    if (union_due(x))
        ovl_compact_union(o, x);
    if (held_due(x))
        prune_held(o, x);
}

/* Keeps only the part of a coalesced union at or after W. */
void ovl_cut_union(ovl_store *x, int64_t w)
{
    if (!x->iv.n)
        return;
    size_t i = 0;
    while (i < x->iv.n && x->iv.v[i].e <= w)
        i++;
    iv_cut_front(x, i);
    x->iv_done = x->iv.n;
    if (x->iv.n && x->iv.v[0].s < w)
        x->iv.v[0].s = w;
}

/* ---- life cycle ---- */

dfs_ovl *dfs_ovl_new(unsigned nclasses, int ref, int64_t bin_width, int64_t origin)
{
    if (!nclasses || nclasses > DFS_OVL_MAX_CLASSES || ref < -1 || ref >= (int)nclasses)
        return NULL;
    dfs_ovl *o = calloc(1, sizeof *o + nclasses * sizeof(dfs_ovl_measure));
    if (!o)
        return NULL;
    o->nclasses = nclasses;
    o->ref = ref;
    o->bin_width = bin_width > 0 ? bin_width : 0;
    o->origin = bin_width > 0 ? origin : 0;
    o->watermark = INT64_MIN;
    o->ref_store = NO_STORE;
    dfs_u64map_init(&o->bins.index);
    dfs_u64map_init(&o->store_index);
    return o;
}

void dfs_ovl_skip_counts(dfs_ovl *o)
{
    if (o)
        o->skip_counts = true;
}

void dfs_ovl_free(dfs_ovl *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->stores.n; i++) {
        free(iv_mem(&o->stores.v[i]));
        dfs_vec_free(&o->stores.v[i].held);
    }
    dfs_vec_free(&o->stores);
    dfs_u64map_free(&o->store_index);
    dfs_vec_free(&o->ref_joined);
    dfs_vec_free(&o->parts);
    bins_free(&o->bins);
    free(o->scratch);
    free(o);
}

/* ---- adding ---- */

/* ovl_store_of past its memo: the map, or a new store. */
__attribute__((noinline)) uint32_t ovl_store_of_slow(dfs_ovl *o, uint64_t classes, unsigned slot)
{
    uint32_t i;
    if (!dfs_u64map_get(&o->store_index, classes, &i)) {
        if (o->stores.n >= NO_STORE || !dfs_vec_reserve(&o->stores, 1) ||
            !dfs_u64map_put(&o->store_index, classes, (uint32_t)o->stores.n))
            return NO_STORE;
        i = (uint32_t)o->stores.n++;
        o->stores.v[i] = (ovl_store){.classes = classes, .checked = ovl_needs_held(o, classes)};
        if (o->ref >= 0 && classes == UINT64_C(1) << o->ref)
            o->ref_store = i;
    }
    o->memo_classes[slot] = classes;
    o->memo_store[slot] = i;
    return i;
}

/* Whether an add counts the event (count, sum_dur): always, unless the caller skips counts
 * (dfs_ovl_skip_counts), when only events without length are counted. */
static bool counts_event(const dfs_ovl *o, int64_t start, int64_t end)
{
    return !o->skip_counts || end == start;
}

/* Everything an add may allocate, before anything changes: a failure leaves only spare capacity
 * (and possibly an empty bin or store) behind. *bin: the measures of the start's bin (NULL
 * without bins), valid until the next bin is created; *store: the event's store (NULL for an
 * empty event, which is only counted). */
static bool reserve_event(dfs_ovl *o, uint64_t classes, int64_t start, int64_t end, dfs_ovl_measure **bin,
                          ovl_store **store)
{
    *bin = NULL;
    *store = NULL;
    if (o->bin_width && counts_event(o, start, end) &&
        !(*bin = ovl_bin_slot(o, ovl_cursor_key(o, &o->add_bin, start))))
        return false;
    if (end == start)
        return true;
    uint32_t i = ovl_store_of(o, classes);
    if (i == NO_STORE)
        return false;
    ovl_store *x = &o->stores.v[i];
    if (!ovl_iv_reserve(x, 1) || (x->checked && !dfs_vec_reserve(&x->held, 1)))
        return false;
    *store = x;
    return true;
}

/* Intervals of a store mostly arrive in time order (a thread's events are written as they end),
 * so an interval near the end of a fully coalesced union goes straight into it: the intervals it
 * overlaps or touches merge with it (each is absorbed once, so any number of them costs O(1)
 * amortised), and those entirely after it, at most NEAR_END, move up by one. Anything else (or
 * a union with raw intervals pending) is left to compaction. Room for one more item is reserved. */
enum { NEAR_END = 16 };

static bool insert_coalesced(ovl_store *x, int64_t s, int64_t e)
{
    ival *v = x->iv.v;
    size_t n = x->iv.n, hi = n, lo;
    if (x->iv_done != n)
        return false;
    for (; hi > 0 && v[hi - 1].s > e; hi--) /* [hi, n) lies entirely after [s, e) */
        if (n - hi >= NEAR_END)
            return false;
    for (lo = hi; lo > 0 && v[lo - 1].e >= s; lo--) /* [lo, hi) overlaps or touches it */
        ;
    if (lo < hi) {
        s = min64(s, v[lo].s);
        e = max64(e, v[hi - 1].e);
    }
    if (hi < n) /* mostly none: the interval is the last */
        memmove(v + lo + 1, v + hi, (n - hi) * sizeof *v);
    v[lo] = (ival){s, e};
    x->iv.n = x->iv_done = n - (hi - lo) + 1;
    return true;
}

static void count_event(dfs_ovl *o, uint64_t classes, dfs_ovl_measure *bin, int64_t len)
{
    for (uint64_t m = classes; m; m &= m - 1) {
        unsigned c = (unsigned)__builtin_ctzll(m);
        o->total[c].count++;
        acc(&o->total[c].sum_dur, len);
        if (bin) {
            bin[c].count++;
            acc(&bin[c].sum_dur, len);
        }
    }
}

static void store_event(dfs_ovl *o, ovl_store *x, int64_t start, int64_t end, double weight)
{
    bool raw = !insert_coalesced(x, start, end);
    if (raw)
        x->iv.v[x->iv.n++] = (ival){start, end}; /* the next compaction sorts it in */
    if (x->checked)
        x->held.v[x->held.n++] = (held_ev){start, end, start, weight};
    if ((raw && union_due(x)) || (x->checked && held_due(x))) /* checked here: most adds need neither */
        maybe_compact(o, x);
}

/* The common add in full, or false to leave it to the general path: a non-empty event in time
 * order (nothing late, starting at or after the start of its store's last interval, which is then
 * the only one it can meet), with room in the store's buffers, nothing to count (skip_counts) and
 * so no bin to look up. What it does is what the general path does with such an event: it is
 * insert_coalesced's case with nothing after the interval, then store_event. */
static inline bool add_in_order(dfs_ovl *o, uint64_t classes, int64_t start, int64_t end, double weight)
{
    unsigned slot = ovl_memo_slot(classes);
    if (!o->skip_counts || end <= start || start < o->watermark || o->memo_classes[slot] != classes)
        return false;
    ovl_store *x = &o->stores.v[o->memo_store[slot]];
    size_t n = x->iv.n;
    if (x->iv_done != n || n == x->iv.cap || (x->checked && x->held.n == x->held.cap) ||
        (n && x->iv.v[n - 1].s > start))
        return false;
    if (n && x->iv.v[n - 1].e >= start) { /* overlaps or touches the last interval */
        x->iv.v[n - 1].e = max64(x->iv.v[n - 1].e, end);
    } else {
        x->iv.v[n] = (ival){start, end};
        x->iv.n = x->iv_done = n + 1;
    }
    if (x->checked) {
        x->held.v[x->held.n++] = (held_ev){start, end, start, weight};
        if (held_due(x))
            maybe_compact(o, x);
    }
    return true;
}

/* Any add (noinline: the common one, above, then needs no registers saved). */
static __attribute__((noinline)) bool add_any(dfs_ovl *o, uint64_t classes, int64_t start, int64_t end,
                                               double weight)
{
    if (!o || (classes & ~ovl_valid_classes(o)))
        return false;
    if (!classes)
        return true;
    if (end < start)
        end = start;
    dfs_ovl_measure *bin;
    ovl_store *x;
    if (!reserve_event(o, classes, start, end, &bin, &x))
        return false;
    if (start < o->watermark)
        o->late++;
    if (counts_event(o, start, end))
        count_event(o, classes, bin, span_len(start, end));
    if (x) /* empty events have no measure and are never exposed */
        store_event(o, x, start, end, weight);
    return true;
}

bool dfs_ovl_add_mask(dfs_ovl *o, uint64_t classes, int64_t start, int64_t end, double weight)
{
    /* (a class set in the memo is valid: the general path put it there; 0 would match an unused
     * slot) */
    if (o && classes && add_in_order(o, classes, start, end, weight))
        return true;
    return add_any(o, classes, start, end, weight);
}

bool dfs_ovl_add(dfs_ovl *o, unsigned c, int64_t start, int64_t end, double weight)
{
    if (!o || c >= o->nclasses)
        return false;
    return dfs_ovl_add_mask(o, UINT64_C(1) << c, start, end, weight);
}

/* ---- merging ---- */

static bool same_config(const dfs_ovl *a, const dfs_ovl *b)
{
    return a->nclasses == b->nclasses && a->ref == b->ref && a->bin_width == b->bin_width &&
           a->origin == b->origin && a->skip_counts == b->skip_counts;
}

/* The store of dst for src's store x, with room for x's items; NULL when out of memory. */
static ovl_store *merge_target(dfs_ovl *dst, const ovl_store *x)
{
    uint32_t i = ovl_store_of(dst, x->classes);
    if (i == NO_STORE)
        return NULL;
    ovl_store *y = &dst->stores.v[i];
    return ovl_iv_reserve(y, x->iv.n) && dfs_vec_reserve(&y->held, x->held.n) ? y : NULL;
}

static bool merge_reserve(dfs_ovl *dst, const dfs_ovl *src)
{
    for (size_t k = 0; k < src->stores.n; k++) {
        const ovl_store *x = &src->stores.v[k];
        if ((x->iv.n || x->held.n) && !merge_target(dst, x))
            return false;
    }
    for (size_t i = 0; i < src->bins.n; i++)
        if (!ovl_bin_slot(dst, src->bins.key[i]))
            return false;
    return true;
}

static void reset(dfs_ovl *o)
{
    for (size_t k = 0; k < o->stores.n; k++) {
        ovl_store *x = &o->stores.v[k];
        x->iv.n = x->iv_done = x->held.n = x->held_done = 0;
        x->held_backoff = 0;
        iv_rebase(x); /* moves nothing: it is empty */
    }
    memset(o->total, 0, o->nclasses * sizeof *o->total);
    bins_clear(&o->bins);
    o->watermark = INT64_MIN;
    o->late = 0;
}

static void append_store(ovl_store *dst, const ovl_store *src)
{
    /* Appended after dst's sorted prefixes: the next compaction sorts them in. (memcpy must not
     * see the NULL of a never-used vector, even for 0 bytes.) */
    if (src->iv.n)
        memcpy(dst->iv.v + dst->iv.n, src->iv.v, src->iv.n * sizeof *src->iv.v);
    dst->iv.n += src->iv.n;
    if (src->held.n)
        memcpy(dst->held.v + dst->held.n, src->held.v, src->held.n * sizeof *src->held.v);
    dst->held.n += src->held.n;
}

bool dfs_ovl_merge(dfs_ovl *dst, dfs_ovl *src)
{
    if (!dst || !src || !same_config(dst, src))
        return false;
    if (dst == src)
        return true;
    if (!merge_reserve(dst, src))
        return false;
    for (size_t k = 0; k < src->stores.n; k++) {
        ovl_store *x = &src->stores.v[k];
        /* sorted first (cheap: only its raw tail is), it is a single run that dst's next
         * compaction merges in without sorting (out of memory: sorted there after all) */
        ovl_compact_union(src, x);
        ovl_sort_held(src, x);
        if (x->iv.n || x->held.n)
            append_store(merge_target(dst, x), x); /* exists, with room: reserved */
    }
    for (unsigned c = 0; c < dst->nclasses; c++)
        ovl_measure_add(&dst->total[c], &src->total[c]);
    for (size_t i = 0; i < src->bins.n; i++) {
        dfs_ovl_measure *to = ovl_bin_slot(dst, src->bins.key[i]); /* exists: reserved */
        for (unsigned c = 0; c < dst->nclasses; c++)
            ovl_measure_add(&to[c], &src->bins.m[i * src->nclasses + c]);
    }
    dst->late += src->late;
    dst->watermark = max64(dst->watermark, src->watermark);
    reset(src);
    for (size_t k = 0; k < dst->stores.n; k++)
        maybe_compact(dst, &dst->stores.v[k]);
    return true;
}

void dfs_ovl_renew(dfs_ovl **o, dfs_ovl *fresh, dfs_ovl **spare)
{
    if (!fresh || !dfs_ovl_merge(fresh, *o)) {
        dfs_ovl_free(fresh);
        return;
    }
    if (*spare) /* the merge left *o as new (reset): only its buffers differ */
        dfs_ovl_free(*o);
    else
        *spare = *o;
    *o = fresh;
}
