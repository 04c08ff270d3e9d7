/* overlap_internal.h - the state of an overlap analysis and what its files share: overlap.c (the
 * plan and the life of the analysis), overlap_events.c (the consumer), overlap_scopes.c (scope
 * records, streaming flushes), overlap_merge.c (merging states, the census), overlap_finish.c (the
 * checks and the result), overlap_bins.c, overlap_epochs.c (the result's bins, epochs and steps)
 * and overlap_pack.c (the state on the wire, for distributed runs). Not a public interface. */
#ifndef DFS_OVERLAP_INTERNAL_H
#define DFS_OVERLAP_INTERNAL_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/common/clocks.h"
#include "analyze/common/overlap_engine.h"
#include "analyze/common/postread.h"
#include "analyze/common/timebins.h"
#include "analyze/common/watermark.h"
#include "analyze/overlap/overlap.h"
#include "util/arena.h"
#include "util/keymap.h"
#include "util/keyset.h"
#include "util/u64map.h"
#include "util/vec.h"

#define NCLS DFS_OVERLAP_MAX_CLASSES
#define FUNC_MEMO 64      /* direct-mapped caches in front of the function and size maps */
#define SIZE_MEMO 256

enum { MARK_EPOCH = 0, MARK_STEP = 1, NMARKS = 2 };
enum { LAYER_MARK = 100 }; /* layer_class values from here on name a marker kind */

/* ===== per-worker state ========================================================================= */

/* A marker's args.epoch / args.step: a number, a string, or none (then its ordinal is used). */
typedef struct label {
    uint8_t kind; /* 0 none, 1 integer, 2 string */
    int64_t i;
    dfs_str s;
} label;

typedef struct marker {
    int64_t s, e;
    label lab;
    uint8_t kind; /* MARK_EPOCH / MARK_STEP */
} marker;

typedef DFS_VEC(int64_t) i64_vec;

/* A process (tid 0, in the process map) or a thread. The host is keyed by its hash when the trace
 * has one, so a unit seen before and after its HH record is one unit. 32 bytes, no padding. */
typedef struct unit_key {
    uint64_t hhash;
    dfs_str host;  /* only when hhash is 0 (2023 format: host names in clear) */
    uint32_t pad;
    int64_t pid, tid;
} unit_key;

typedef struct scope {
    unit_key key;
    dfs_str host, pid_str, tid_str; /* as seen (host resolved when known) */
    uint32_t file;                  /* first sighting, for late host resolution */
    uint64_t offset;
    int64_t start, end;
    uint64_t bin_events;            /* its class events' bound on bins (timebins.h) */
    uint64_t bins;                  /* its bins as counted in the shared count */
    uint64_t events;
    int64_t sum[NCLS];
    uint64_t count[NCLS];
    dfs_ovl *eng;                   /* exact method; NULL until the first class event */
    /* streaming */
    dfs_stream_mark mark;           /* latest end, longest class event and marker (watermark.h) */
    int64_t wm;                     /* last watermark flushed to (INT64_MIN: none) */
    bool finalized, active, missed;
    bool pinned;                    /* seen in a file read in pieces: never flushed while streaming */
    DFS_VEC(marker) markers;
    i64_vec bounds;                 /* marker boundaries not flushed yet */
    i64_vec snaps;                  /* per flush: t, then (measure, |X ∩ C|) per class */
} scope;

typedef DFS_VEC(scope) scope_vec;

typedef struct active_ref {
    uint8_t thread; /* 0: procs, 1: threads */
    uint32_t idx;
} active_ref;

/* One event reduced to what the analysis reads (pending events wait in this form). */
typedef struct oev {
    int64_t ts, end;  /* absolute ns, end >= ts */
    uint64_t fhash, hhash, offset;
    int64_t pid, tid;
    dfs_str cat, name, fname, host, pid_str, tid_str;
    uint32_t file;
    bool has_size_sum;
    /* the args only I/O events and markers need */
    int64_t ret, image_size;
    label lab[NMARKS];
    uint64_t arg_truths; /* the plan's argument tests answered while it was read (postread.h) */
} oev;

typedef struct approx_key {
    int64_t bin;
    uint32_t thread;
    uint32_t pad;
} approx_key;

typedef struct func_acc {
    dfs_str name;
    uint64_t count, sized;
    unsigned __int128 bytes;
} func_acc;

typedef struct size_key {
    dfs_str name;
    uint32_t pad;
    uint64_t size;
} size_key;

typedef DFS_VEC(func_acc) func_vec;
typedef DFS_VEC(size_key) size_key_vec;
typedef DFS_VEC(uint64_t) u64_vec;

typedef struct wstate {
    dfs_overlap *ov;
    dfs_postread *cls;
    dfs_keymap pmap, tmap;
    scope_vec procs, threads;
    uint32_t last_proc, last_thread;
    bool have_last_proc, have_last_thread;
    dfs_ovl *global;
    bool have_time;
    int64_t min_ts, max_end;
    dfs_keymap amap;               /* approx_key -> entry */
    DFS_VEC(approx_key) akeys;
    DFS_VEC(int64_t) asums;        /* nclasses per entry */
    dfs_u64map g0map;              /* start bin -> index in g0 */
    DFS_VEC(dfs_ovl *) g0;
    DFS_VEC(int64_t) g0bins;
    dfs_keymap fmap;               /* function name -> func_acc */
    func_vec funcs;
    dfs_keymap smap;               /* size_key -> count */
    size_key_vec skeys;
    u64_vec scounts;
    dfs_keymap rmap;               /* (cat, name) -> size rule (G0's, overlap.md §1) */
    dfs_keyset files, hosts, pids, ctids, itids;
    /* one-entry caches in front of the sets and maps: neighbouring events mostly repeat */
    uint64_t last_file[2], last_host[2];
    int64_t last_pid, last_ctid, last_itid;
    bool have_pid, have_ctid, have_itid;
    dfs_keymap canon;              /* file name -> the first file name with the same suffix markers */
    DFS_VEC(uint32_t) canon_bits;  /* pairs (markers, file name) */
    dfs_str last_fname, last_canon;
    struct func_memo {             /* (cat, name) -> function record and size rule */
        dfs_str cat, name;
        uint32_t func;
        bool rule, used;
    } fmemo[FUNC_MEMO];
    struct size_memo {             /* (name, size) -> its entry in skeys */
        size_key key;
        uint32_t idx;
        bool used;
    } smemo[SIZE_MEMO];
    uint64_t events, no_duration, other_phases, bad_time, negative, dropped_files, dropped_functions;
    DFS_VEC(oev) pending;
    dfs_clock_track clocks;        /* the clock each file went through (analyze/common/clocks.h) */
    /* the input stream this worker is reading, and its units with unflushed intervals */
    bool have_file, in_pieces; /* in_pieces: dfs_batch.in_pieces of the input */
    uint32_t cur_file;
    DFS_VEC(active_ref) active;
    dfs_ovl *spare;                /* a retired unit's engine buffers, for the next unit (dfs_ovl_renew) */
    /* the bound on time bins (timebins.h): the bins of the run's span and of each binned unit's,
     * added to the shared count as they grow; over it, events only widen the spans */
    uint64_t run_bin_events, run_bins;
    bool bins_over;
    uint64_t since_check, check_every, budget, flushes;
    bool no_stream;                /* the merged state: events added at the end never flush */
    bool conflict, failed;
} wstate;

struct dfs_overlap {
    dfs_overlap_options opt;
    dfs_preset raw_preset;         /* the preset, without its ignore lists unless post_read */
    dfs_preset_layer layers[NCLS + NMARKS];
    int layer_class[NCLS + NMARKS]; /* class index, or LAYER_MARK + marker kind */
    size_t nlayers;
    dfs_layer_plan plan;
    size_t nclasses;
    const char *class_names[NCLS];
    const char *class_texts[NCLS];
    const char *mark_texts[NMARKS];
    bool needs_fname;              /* the classes read the file name or the suffixed category */
    bool canon_files;              /* the classification reads a file name only for its suffix markers */
    bool expect_markers;           /* epoch or step predicates are given */
    bool need_threads, need_bins, exact, want_global;
    dfs_consumer consumer;
    wstate total;
    bool rerun;
    dfs_overlap_rerun rerun_info;
    char failure[512];             /* a class predicate over its regex bound, or too many time bins: no result (overlap.h) */
    atomic_uint_least64_t bins_counted; /* the workers' time bins together (timebins.h) */
    dfs_arena mem;                 /* the result */
    dfs_overlap_result result;
};

/* ===== small arithmetic (saturating where sums of durations could overflow) ===================== */

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static inline int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

static inline int64_t sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_sub_overflow(a, b, &r) ? (b < 0 ? INT64_MAX : INT64_MIN) : r;
}

/* ===== shared helpers (per event: inline here) ==================================================== */

/* The key of an event's process (thread false) or thread unit. */
static inline unit_key dfs_ov_key_of(const oev *e, bool thread)
{
    unit_key k = {.hhash = e->hhash, .host = e->hhash ? 0 : e->host, .pid = e->pid, .tid = thread ? e->tid : 0};
    return k;
}

/* The engine classes of an event of classes cm in a unit engine, which holds class c at c and
 * c ∪ C at nclasses + c − 1 (dfs_ov_unit_engine). */
static inline uint64_t dfs_ov_union_mask(const dfs_overlap *ov, uint64_t cm)
{
    size_t n = ov->nclasses;
    uint64_t m = cm;
    for (size_t c = 1; c < n; c++)
        if ((cm >> c & 1) || (cm & 1))
            m |= UINT64_C(1) << (n + c - 1);
    return m;
}

/* |c ∩ C| from the measures m[] of a unit engine's classes (totals or one bin). */
static inline int64_t dfs_ov_union_with(const dfs_overlap *ov, const dfs_ovl_measure *const *m, size_t c)
{
    int64_t cm = m[DFS_OVC_COMPUTE]->measure;
    return c == DFS_OVC_COMPUTE ? cm : m[c]->measure + cm - m[ov->nclasses + c - 1]->measure;
}

/* ===== overlap.c ================================================================================== */

void dfs_overlap_wstate_init(wstate *w, dfs_overlap *ov);
void dfs_overlap_wstate_free(wstate *w);

/* ===== overlap_events.c =========================================================================== */

/* The consumer's callbacks (dfs_consumer). */
void *dfs_ov_worker_begin(void *user);
void dfs_ov_on_batch(void *state, const dfs_run *run, const dfs_batch *batch);
void dfs_ov_worker_end(void *user, const dfs_run *run, void *state);
/* Classification and every accumulation of one event whose file name is settled. */
void dfs_ov_analyse(wstate *w, const dfs_run *run, oev *e);
/* Adds a key to one of a state's sets (failed when out of memory). */
void dfs_ov_set_add(wstate *w, dfs_keyset *set, const void *key);

/* ===== overlap_scopes.c =========================================================================== */

void dfs_overlap_scope_init(scope *s, const unit_key *k);
void dfs_overlap_scope_free(scope *s);
/* A new engine of the run's binning (bins only when `binned`). */
dfs_ovl *dfs_ov_new_engine(const dfs_overlap *ov, unsigned nclasses, int ref, bool binned);
/* A new engine for a unit or the global scope (see dfs_ov_union_mask). */
dfs_ovl *dfs_ov_unit_engine(const dfs_overlap *ov);
/* m[c] = the totals of each of a unit engine's 2·nclasses − 1 classes. */
void dfs_ov_engine_measures(const dfs_overlap *ov, const dfs_ovl *eng, const dfs_ovl_measure **m);
/* The snapshot of a unit taken at exactly t, or NULL. */
const int64_t *dfs_ov_snap_at(const dfs_overlap *ov, const scope *s, int64_t t);
/* A marker boundary of a unit, to flush exactly (or the unit is marked missed). */
void dfs_ov_add_bound(wstate *w, scope *s, int64_t b);
/* Measures everything of a unit, its remaining boundaries first. */
void dfs_ov_finalize_scope(wstate *w, scope *s);
/* The worker moved to another input: the units it was reading become idle. */
void dfs_ov_stream_ended(wstate *w);
/* Over budget: flushes the worker's units behind their watermarks. */
void dfs_ov_maybe_flush(wstate *w);

/* ===== overlap_merge.c ============================================================================ */

/* Moves another worker's or rank's state (strings of the same run) into `into`. */
void dfs_overlap_merge_state(wstate *into, wstate *from);

/* ===== overlap_finish.c: values of the result ===================================================== */

/* Whether units of this scope keep state by time bin (their spans count in the bin bound). */
static inline bool dfs_ov_binned_units(const dfs_overlap *ov, bool thread)
{
    return ov->need_bins && (thread || ov->exact);
}

/* Empty values (span inverted, classes zero) with their class array in ov->mem; false on OOM. */
bool dfs_ov_values_init(dfs_overlap *ov, dfs_overlap_values *v);
void dfs_ov_set_span(dfs_overlap_values *v, int64_t start, int64_t end);
/* Exact class values from measures: |X|, |X ∩ C| and |C|. */
void dfs_ov_exact_class(dfs_overlap_class_values *cv, size_t c, int64_t measure, int64_t with, int64_t cmeasure);
void dfs_ov_class_add(dfs_overlap_class_values *d, const dfs_overlap_class_values *s);
void dfs_ov_values_add(const dfs_overlap *ov, dfs_overlap_values *d, const dfs_overlap_values *s);
/* A unit engine's measures (totals or one bin) as exact class values. */
void dfs_ov_union_values(const dfs_overlap *ov, const dfs_ovl_measure *const *m, dfs_overlap_class_values *cls);
/* A unit engine's totals as exact class values (nothing for NULL). */
void dfs_ov_engine_values(const dfs_overlap *ov, const dfs_ovl *eng, dfs_overlap_values *v);

/* ===== overlap_bins.c ============================================================================= */

/* The result's bins from the exact engines of the scope's units; false on OOM. */
bool dfs_ov_exact_bins(dfs_overlap *ov, int64_t shift);
/* The approximate method's values: the units', the global ones and the bins; false on OOM. */
bool dfs_ov_approx_fill(dfs_overlap *ov, int64_t shift, dfs_overlap_unit *pu, dfs_overlap_unit *tu);
/* The G0 exact method's bins and global values; false on OOM. */
bool dfs_ov_g0_fill(dfs_overlap *ov, int64_t shift);

/* ===== overlap_epochs.c =========================================================================== */

/* A process's epochs and steps into its result unit, in time order; false on OOM. */
bool dfs_ov_unit_segments(dfs_overlap *ov, const dfs_run *run, scope *s, dfs_overlap_unit *u);
/* Totals over processes of the epochs (steps false) or steps with the same label. */
bool dfs_ov_segment_totals(dfs_overlap *ov, const dfs_overlap_unit *u, size_t nu, bool steps,
                           const dfs_overlap_segment **out, size_t *nout);
#endif
