/* overlap_engine_internal.h - what the files of the exact interval engine share: its state (the
 * stores, the bins, struct dfs_ovl), the arithmetic and bin lookups that both adding and flushing
 * do per item (static inline, so that each file keeps them inlined), and the few functions that
 * cross files. overlap_engine.c holds the stores (adding, compaction, merging),
 * overlap_engine_flush.c a flush and the results, overlap_engine_pack.c the engine on the wire.
 * Not a public interface: callers use overlap_engine.h. */
#ifndef DFS_OVERLAP_ENGINE_INTERNAL_H
#define DFS_OVERLAP_ENGINE_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/common/overlap_engine.h"
#include "util/u64map.h"
#include "util/vec.h"

__extension__ typedef __int128 i128;

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
    ival_vec iv;      /* iv.v is iv_cut intervals into its allocation (see ovl_cut_union) */
    size_t iv_cut;
    size_t iv_done;   /* coalesced prefix of iv */
    bool checked;     /* its events are checked against R (ovl_needs_held) */
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
static inline int64_t span_len(int64_t a, int64_t b) { return (int64_t)((uint64_t)b - (uint64_t)a); }

static inline void acc(int64_t *sum, int64_t v) { *sum = (int64_t)((uint64_t)*sum + (uint64_t)v); }

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static inline size_t max_size(size_t a, size_t b) { return a > b ? a : b; }

/* t - origin needs 65 bits for arbitrary int64 values, hence 128-bit bin arithmetic. */
static inline i128 ovl_bin_of(const dfs_ovl *o, int64_t t)
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
static inline int64_t sat64(i128 k)
{
    if (k > INT64_MAX)
        return INT64_MAX;
    return k < INT64_MIN ? INT64_MIN : (int64_t)k;
}

/* The key of the bin of t, through a cursor that remembers the last bin's edges [lo, hi): times
 * mostly fall in the bin of the previous one, which then costs no division. */
static inline int64_t ovl_cursor_key(const dfs_ovl *o, bin_cursor *cur, int64_t t)
{
    int64_t next_hi;
    if (cur->have && t >= cur->hi && cur->key > INT64_MIN && cur->key < INT64_MAX &&
        !__builtin_add_overflow(cur->hi, o->bin_width, &next_hi) && t < next_hi) {
        /* the next bin, where a walk mostly goes (unsaturated keys and edges are exact) */
        cur->lo = cur->hi;
        cur->hi = next_hi;
        cur->key++;
    } else if (!cur->have || t < cur->lo || t >= cur->hi) {
        i128 k = ovl_bin_of(o, t), lo = (i128)o->origin + k * o->bin_width;
        cur->lo = sat64(lo);
        cur->hi = sat64(lo + o->bin_width);
        cur->key = sat64(k);
        cur->have = true;
    }
    return cur->key;
}

static inline void ovl_measure_add(dfs_ovl_measure *dst, const dfs_ovl_measure *src)
{
    acc(&dst->measure, src->measure);
    acc(&dst->with_ref, src->with_ref);
    acc(&dst->sum_dur, src->sum_dur);
    dst->count += src->count;
    dst->exposed_count += src->exposed_count;
    dst->exposed_weight += src->exposed_weight;
}

/* ---- coalesced unions ---- */

/* Index of the first interval of a coalesced union [0, n) ending after t: the only one that can
 * contain t (ends grow with starts in a coalesced union). The answer is known to be >= `from`;
 * galloping from there makes a sweep with rising t cost O(log gap) a step, not O(log n). */
static inline size_t ovl_first_ending_after(const ival *u, size_t n, size_t from, int64_t t)
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

static inline bool ovl_covered_by(const ival *u, size_t n, size_t j, int64_t s, int64_t e)
{
    return j < n && u[j].s <= s && e <= u[j].e;
}

/* ---- shared between the engine's files ---- */

/* The measures of bin `key`, created if new; NULL when out of memory. */
dfs_ovl_measure *ovl_bin_slot(dfs_ovl *o, int64_t key);
/* Room for `extra` more intervals in a store's union; false when out of memory. */
bool ovl_iv_reserve(ovl_store *x, size_t extra);
/* Sorts a store's raw intervals into its coalesced union; false (nothing changed) when OOM. */
bool ovl_compact_union(dfs_ovl *o, ovl_store *x);
/* Sorts a store's held events by start; false when out of memory (nothing changed). */
bool ovl_sort_held(dfs_ovl *o, ovl_store *x);
/* Keeps only the part of a store's coalesced union at or after W. */
void ovl_cut_union(ovl_store *x, int64_t w);
/* ovl_store_of past its memo: the map, or a new store; NO_STORE when out of memory. */
uint32_t ovl_store_of_slow(dfs_ovl *o, uint64_t classes, unsigned slot);
/* Lists the non-empty bins by key (dfs_ovl_nbins and the like); false when out of memory. */
bool ovl_build_order(dfs_ovl *o);

/* ---- stores of class sets ---- */

/* Whether the events of a class set are checked against R: those of R itself are covered. */
static inline bool ovl_needs_held(const dfs_ovl *o, uint64_t classes)
{
    return o->ref >= 0 && !(classes >> o->ref & 1);
}

static inline uint64_t ovl_valid_classes(const dfs_ovl *o)
{
    return o->nclasses == 64 ? UINT64_MAX : (UINT64_C(1) << o->nclasses) - 1;
}

static inline unsigned ovl_memo_slot(uint64_t classes)
{
    return (unsigned)((classes * UINT64_C(0x9e3779b97f4a7c15)) >> 61) % STORE_MEMO;
}

/* The store of a class set, created empty if new; NO_STORE when out of memory (an empty store
 * may then be left behind, which changes no result). */
static inline uint32_t ovl_store_of(dfs_ovl *o, uint64_t classes)
{
    unsigned slot = ovl_memo_slot(classes);
    if (o->memo_classes[slot] == classes)
        return o->memo_store[slot];
    return ovl_store_of_slow(o, classes, slot);
}

#endif
