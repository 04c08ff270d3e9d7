/* overlap_engine.c - exact interval algebra of one scope (overlap.md §3); contract in the header.
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
 * A flush measures everything before the watermark W, decides the held events there, and cuts the
 * unions at W. Measures never cross W twice: what is credited is exactly the part before W, and
 * what stays is exactly the part after it.
 *
 * With binning, a flush runs twice over the same data: first only to create the bins it will
 * touch (the one step that can run out of memory), then to credit them. A failed first pass
 * leaves at most a few empty bins behind, which the results never list. */
#include "analyze/common/overlap_engine.h"

#include <stdlib.h>
#include <string.h>

#ifndef dfs_ovl
#include "wire/pack.h"
#endif
#include "util/u64map.h"
#include "util/vec.h"

__extension__ typedef __int128 i128;

/* Buffers are compacted or pruned only after this many new items, so small ones are not sorted
 * again on every add. */
#define MIN_BATCH 32
#define MAX_BACKOFF 7 /* held_backoff: a store whose prunes drop little is pruned at 128-fold growth */

typedef struct ival {
    int64_t s, e;
} ival;

/* An undecided event. s moves up to a watermark once the part before it is known covered; s0
 * keeps the original start, whose bin gets the exposure. */
typedef struct held_ev {
    int64_t s, e, s0;
    double w;
} held_ev;

typedef DFS_VEC(ival) ival_vec;
typedef DFS_VEC(held_ev) held_vec;

typedef struct ovl_store {
    uint64_t classes; /* the set of classes of its events */
    ival_vec iv;      /* iv.v is iv_cut intervals into its allocation (see cut_union) */
    size_t iv_cut;
    size_t iv_done;   /* coalesced prefix of iv */
    bool checked;     /* its events are checked against R (needs_held) */
    held_vec held;
    size_t held_done; /* prefix of held sorted by s */
    unsigned held_backoff; /* held_due waits 2^this times longer: the last prune dropped little */
    size_t at;        /* where a flush's walk over the union is (union_walk) */
} ovl_store;

typedef DFS_VEC(ovl_store) store_vec;

#define STORE_MEMO 8

/* The last bin looked up, by its edges [lo, hi). Edges beyond int64 are clamped: a time at the
 * clamped edge then only misses the cursor and is looked up again, while the comparisons stay
 * 64-bit. */
typedef struct bin_cursor {
    bool have;
    int64_t lo, hi;
    int64_t key;
} bin_cursor;

typedef struct bin_store {
    int64_t *key;
    dfs_ovl_measure *m; /* nclasses per slot */
    size_t n, cap;
    dfs_u64map index;   /* key -> slot: updates arrive in any bin order */
    int64_t last_key;   /* the last bin looked up: consecutive updates mostly hit the same one */
    uint32_t last_slot;
    bool have_last;
    size_t *order;      /* non-empty slots by ascending key, built by dfs_ovl_finish */
    size_t norder;
} bin_store;

struct dfs_ovl {
    unsigned nclasses;
    int ref;
    int64_t bin_width, origin; /* bin_width 0: no binning */
    int64_t watermark;         /* highest flush so far, INT64_MIN before the first */
    bool skip_counts;          /* dfs_ovl_skip_counts */
    uint64_t late;
    bin_store bins;
    bin_cursor add_bin; /* of the last event's start */
    unsigned char *scratch; /* for the sorts */
    size_t scratch_cap;
    store_vec stores;
    dfs_u64map store_index;  /* class set -> store */
    /* Class sets seen lately and their stores, direct-mapped: events alternate among a few
     * stores (a set is never 0, so a zeroed slot matches nothing). */
    uint64_t memo_classes[STORE_MEMO];
    uint32_t memo_store[STORE_MEMO];
    uint32_t ref_store;      /* the store of R alone (pruning looks there), NO_STORE if none yet */
    ival_vec ref_joined;     /* R's union at a flush, when R's events lie in several stores */
    DFS_VEC(uint32_t) parts; /* the stores of the class a flush measures */
    dfs_ovl_measure total[]; /* per class */
};

#define NO_STORE UINT32_MAX

/* ---- arithmetic ---- */

/* Lengths and sums go through unsigned arithmetic: real traces stay far below 2^63 ns, and absurd
 * inputs must wrap rather than be undefined behaviour. */
static int64_t span_len(int64_t a, int64_t b) { return (int64_t)((uint64_t)b - (uint64_t)a); }

static void acc(int64_t *sum, int64_t v) { *sum = (int64_t)((uint64_t)*sum + (uint64_t)v); }

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static size_t max_size(size_t a, size_t b) { return a > b ? a : b; }

/* t - origin needs 65 bits for arbitrary int64 values, hence 128-bit bin arithmetic. */
static i128 bin_of(const dfs_ovl *o, int64_t t)
{
    int64_t d64;
    if (!__builtin_sub_overflow(t, o->origin, &d64)) { /* common case: no 128-bit division */
        int64_t q = d64 / o->bin_width;
        return d64 % o->bin_width < 0 ? q - 1 : q;
    }
    i128 d = (i128)t - o->origin, q = d / o->bin_width;
    return d % o->bin_width < 0 ? q - 1 : q;
}

/* A 128-bit bin index or edge saturated to int64. Only |t - origin| / g > 2^63 (g = 1 and times
 * at opposite ends of int64) can saturate a key. */
static int64_t sat64(i128 k)
{
    if (k > INT64_MAX)
        return INT64_MAX;
    return k < INT64_MIN ? INT64_MIN : (int64_t)k;
}

/* The key of the bin of t, through a cursor that remembers the last bin's edges [lo, hi): times
 * mostly fall in the bin of the previous one, which then costs no division. */
static int64_t cursor_key(const dfs_ovl *o, bin_cursor *cur, int64_t t)
{
    int64_t next_hi;
    if (cur->have && t >= cur->hi && cur->key > INT64_MIN && cur->key < INT64_MAX &&
        !__builtin_add_overflow(cur->hi, o->bin_width, &next_hi) && t < next_hi) {
        /* the next bin, where a walk mostly goes (unsaturated keys and edges are exact) */
        cur->lo = cur->hi;
        cur->hi = next_hi;
        cur->key++;
    } else if (!cur->have || t < cur->lo || t >= cur->hi) {
        i128 k = bin_of(o, t), lo = (i128)o->origin + k * o->bin_width;
        cur->lo = sat64(lo);
        cur->hi = sat64(lo + o->bin_width);
        cur->key = sat64(k);
        cur->have = true;
    }
    return cur->key;
}

static void measure_add(dfs_ovl_measure *dst, const dfs_ovl_measure *src)
{
    acc(&dst->measure, src->measure);
    acc(&dst->with_ref, src->with_ref);
    acc(&dst->sum_dur, src->sum_dur);
    dst->count += src->count;
    dst->exposed_count += src->exposed_count;
    dst->exposed_weight += src->exposed_weight;
}

static bool measure_empty(const dfs_ovl_measure *m)
{
    return !m->measure && !m->with_ref && !m->sum_dur && !m->count && !m->exposed_count &&
           m->exposed_weight == 0;
}

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
static dfs_ovl_measure *bin_slot(dfs_ovl *o, int64_t key)
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
static bool iv_reserve(ovl_store *x, size_t extra)
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
static bool compact_union(dfs_ovl *o, ovl_store *x)
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

static bool sort_held(dfs_ovl *o, ovl_store *x)
{
    if (x->held_done == x->held.n)
        return true;
    if (sort_tail(o, (unsigned char *)x->held.v, x->held_done, x->held.n, sizeof(held_ev)) ==
        SIZE_MAX)
        return false;
    x->held_done = x->held.n;
    return true;
}

/* Index of the first interval of a coalesced union [0, n) ending after t: the only one that can
 * contain t (ends grow with starts in a coalesced union). The answer is known to be >= `from`;
 * galloping from there makes a sweep with rising t cost O(log gap) a step, not O(log n). */
static size_t first_ending_after(const ival *u, size_t n, size_t from, int64_t t)
{
    size_t lo = from, hi = from, step = 1;
    while (hi < n && u[hi].e <= t) { /* everything up to hi ends by t */
        lo = hi + 1;
        hi = n - hi > step ? hi + step : n;
        step *= 2;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u[mid].e <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool covered_by(const ival *u, size_t n, size_t j, int64_t s, int64_t e)
{
    return j < n && u[j].s <= s && e <= u[j].e;
}

/* Drops held events already covered by the coalesced prefix of R's own store. That is a subset of
 * R's final union, so "covered" is final; the others wait. R is compacted first only when that
 * costs no more than sorting the held events: a large R would otherwise be sorted again for
 * every prune of a small store. */
static void prune_held(dfs_ovl *o, ovl_store *x)
{
    ovl_store *r = o->ref_store == NO_STORE ? NULL : &o->stores.v[o->ref_store];
    if (r && r->iv.n <= x->held.n)
        compact_union(o, r); /* out of memory: prune against the older prefix */
    if (!sort_held(o, x) || !r)
        return;
    size_t kept = 0, j = 0, n = x->held.n;
    for (size_t i = 0; i < n; i++) {
        held_ev ev = x->held.v[i];
        j = first_ending_after(r->iv.v, r->iv_done, j, ev.s);
        if (!covered_by(r->iv.v, r->iv_done, j, ev.s, ev.e))
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

/* Whether the events of a class set are checked against R: those of R itself are covered. */
static bool needs_held(const dfs_ovl *o, uint64_t classes)
{
    return o->ref >= 0 && !(classes >> o->ref & 1);
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
        compact_union(o, x);
    if (held_due(x))
        prune_held(o, x);
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

static uint64_t valid_classes(const dfs_ovl *o)
{
    return o->nclasses == 64 ? UINT64_MAX : (UINT64_C(1) << o->nclasses) - 1;
}

static unsigned memo_slot(uint64_t classes)
{
    return (unsigned)((classes * UINT64_C(0x9e3779b97f4a7c15)) >> 61) % STORE_MEMO;
}

/* store_of past its memo: the map, or a new store. */
static __attribute__((noinline)) uint32_t store_of_slow(dfs_ovl *o, uint64_t classes, unsigned slot)
{
    uint32_t i;
    if (!dfs_u64map_get(&o->store_index, classes, &i)) {
        if (o->stores.n >= NO_STORE || !dfs_vec_reserve(&o->stores, 1) ||
            !dfs_u64map_put(&o->store_index, classes, (uint32_t)o->stores.n))
            return NO_STORE;
        i = (uint32_t)o->stores.n++;
        o->stores.v[i] = (ovl_store){.classes = classes, .checked = needs_held(o, classes)};
        if (o->ref >= 0 && classes == UINT64_C(1) << o->ref)
            o->ref_store = i;
    }
    o->memo_classes[slot] = classes;
    o->memo_store[slot] = i;
    return i;
}

/* The store of a class set, created empty if new; NO_STORE when out of memory (an empty store
 * may then be left behind, which changes no result). */
static inline uint32_t store_of(dfs_ovl *o, uint64_t classes)
{
    unsigned slot = memo_slot(classes);
    if (o->memo_classes[slot] == classes)
        return o->memo_store[slot];
    return store_of_slow(o, classes, slot);
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
        !(*bin = bin_slot(o, cursor_key(o, &o->add_bin, start))))
        return false;
    if (end == start)
        return true;
    uint32_t i = store_of(o, classes);
    if (i == NO_STORE)
        return false;
    ovl_store *x = &o->stores.v[i];
    if (!iv_reserve(x, 1) || (x->checked && !dfs_vec_reserve(&x->held, 1)))
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
    unsigned slot = memo_slot(classes);
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
    if (!o || (classes & ~valid_classes(o)))
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

/* ---- flushing ---- */

typedef struct pass {
    dfs_ovl *o;
    int64_t w; /* watermark */
    /* The bin last looked up and its measures: the spans of a sorted union mostly fall in the bin
     * of the previous one, which then needs no lookup either. m comes from the latest bin_slot
     * call, the only one that may have moved the measures (every lookup of a pass goes through
     * pass_bin), so it stays valid. */
    bin_cursor bin;
    dfs_ovl_measure *m;
    const ival *r; /* R's union, coalesced, as far as it starts before W (ref_view) */
    size_t rn;
} pass;

static dfs_ovl_measure *pass_bin_lookup(pass *p, int64_t t)
{
    p->m = bin_slot(p->o, cursor_key(p->o, &p->bin, t));
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
            measure_add(&t->m[__builtin_ctzll(k)], &t->bin);
    measure_add(&t->total, &t->bin);
    t->bin = (dfs_ovl_measure){0};
}

static void tally_end(pass *p, tally *t)
{
    tally_spill(t);
    for (uint64_t k = t->cls; k; k &= k - 1)
        measure_add(&p->o->total[__builtin_ctzll(k)], &t->total);
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
        j = first_ending_after(p->r, p->rn, j, ev.s);
        bool crossing = ev.e > p->w;
        if (!covered_by(p->r, p->rn, j, ev.s, crossing ? p->w : ev.e)) {
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
    i128 first = bin_of(o, lo), last = bin_of(o, hi - 1);
    if (last - first >= (i128)items + 64 || first < INT64_MIN || last > INT64_MAX)
        return false;
    for (i128 k = first; k <= last; k++)
        if (!bin_slot(o, (int64_t)k)) {
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
        j = first_ending_after(y->iv.v, y->iv.n, j, x->iv.v[i].s);
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

/* Keeps only the part of a coalesced union at or after W. */
static void cut_union(ovl_store *x, int64_t w)
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

bool dfs_ovl_flush(dfs_ovl *o, int64_t watermark)
{
    if (!o)
        return false;
    for (size_t k = 0; k < o->stores.n; k++)
        if (!compact_union(o, &o->stores.v[k]) || !sort_held(o, &o->stores.v[k]))
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
        cut_union(&o->stores.v[k], watermark);
    o->watermark = max64(o->watermark, watermark);
    return true;
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
    uint32_t i = store_of(dst, x->classes);
    if (i == NO_STORE)
        return NULL;
    ovl_store *y = &dst->stores.v[i];
    return iv_reserve(y, x->iv.n) && dfs_vec_reserve(&y->held, x->held.n) ? y : NULL;
}

static bool merge_reserve(dfs_ovl *dst, const dfs_ovl *src)
{
    for (size_t k = 0; k < src->stores.n; k++) {
        const ovl_store *x = &src->stores.v[k];
        if ((x->iv.n || x->held.n) && !merge_target(dst, x))
            return false;
    }
    for (size_t i = 0; i < src->bins.n; i++)
        if (!bin_slot(dst, src->bins.key[i]))
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
        compact_union(src, x);
        sort_held(src, x);
        if (x->iv.n || x->held.n)
            append_store(merge_target(dst, x), x); /* exists, with room: reserved */
    }
    for (unsigned c = 0; c < dst->nclasses; c++)
        measure_add(&dst->total[c], &src->total[c]);
    for (size_t i = 0; i < src->bins.n; i++) {
        dfs_ovl_measure *to = bin_slot(dst, src->bins.key[i]); /* exists: reserved */
        for (unsigned c = 0; c < dst->nclasses; c++)
            measure_add(&to[c], &src->bins.m[i * src->nclasses + c]);
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

/* ---- results ---- */

static int cmp_key(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Lists the non-empty bins by key. Sorting the keys and looking their slots up again keeps the
 * slots (and the index map) untouched. */
static bool build_order(dfs_ovl *o)
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
    return dfs_ovl_flush(o, INT64_MAX) && build_order(o);
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

/* ---- on the wire ---- */
#ifndef dfs_ovl /* see overlap_engine.h */

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
    if (r->bad || !classes || (classes & ~valid_classes(o)) || dfs_u64map_get(&o->store_index, classes, &seen))
        return false;
    uint32_t k = store_of(o, classes);
    if (k == NO_STORE)
        return false;
    ovl_store *x = &o->stores.v[k];
    size_t n = dfs_unpack_count(r, 2);
    size_t done = (size_t)dfs_unpack_u64(r);
    if (r->bad || done > n || !iv_reserve(x, n))
        return false;
    for (size_t i = 0; i < n; i++) {
        int64_t s = dfs_unpack_i64(r), e = dfs_unpack_i64(r); /* in this order */
        x->iv.v[i] = (ival){s, e};
    }
    x->iv.n = n;
    x->iv_done = done;
    n = dfs_unpack_count(r, 11);
    done = (size_t)dfs_unpack_u64(r);
    if (r->bad || done > n || (n && !needs_held(o, classes)) || !dfs_vec_reserve(&x->held, n))
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
        dfs_ovl_measure *m = bin_slot(o, dfs_unpack_i64(r));
        ok = m != NULL;
        for (unsigned c = 0; ok && c < o->nclasses; c++) {
            dfs_ovl_measure in;
            unpack_measure(r, &in);
            measure_add(&m[c], &in);
        }
    }
    /* a finished engine lists its bins (dfs_ovl_finish will not be called again on it) */
    if (ok && !r->bad && o->watermark == INT64_MAX)
        ok = build_order(o);
    if (!ok || r->bad) {
        r->bad = true;
        dfs_ovl_free(o);
        return NULL;
    }
    return o;
}
#endif
