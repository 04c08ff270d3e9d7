/* overlap_internal.h - the state of an overlap analysis, shared by overlap.c (streaming, merging,
 * finishing) and overlap_pack.c (the same state on the wire, for distributed runs). Not a public
 * interface. */
#ifndef DFS_OVERLAP_INTERNAL_H
#define DFS_OVERLAP_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>

#include "analyze/common/clocks.h"
#include "analyze/common/overlap_engine.h"
#include "analyze/common/postread.h"
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
    dfs_arena mem;                 /* the result */
    dfs_overlap_result result;
};

/* overlap.c */
void dfs_overlap_scope_init(scope *s, const unit_key *k);
void dfs_overlap_scope_free(scope *s);
void dfs_overlap_wstate_init(wstate *w, dfs_overlap *ov);
void dfs_overlap_wstate_free(wstate *w);
/* Moves another worker's or rank's state (strings of the same run) into `into`. */
void dfs_overlap_merge_state(wstate *into, wstate *from);
#endif
