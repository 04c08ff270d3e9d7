/* layered_internal.h - the aggregation state shared by layered.c (streaming and merging) and the
 * files that derive the views from it: layered_views.c (the finishing stages and the results),
 * layered_rows.c (rows, members and slots) and layered_columns.c (summaries and columns). Not a
 * public interface. */
#ifndef DFS_LAYERED_INTERNAL_H
#define DFS_LAYERED_INTERNAL_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/common/clocks.h"
#include "analyze/common/overlap_engine.h"
#include "analyze/common/postread.h"
#include "analyze/common/timebins.h"
#include "analyze/common/watermark.h"
#include "analyze/layered/layered.h"
#include "util/keymap.h"
#include "util/keyset.h"
#include "util/sortset.h"
#include "util/vec.h"

#define DFS_SIZE_BINS 12

/* The additive aggregate of one metric family (a layer, or one of its derived metrics) in one
 * cell. Times are integer ns, so sums are exact and identical for any -j. A family without size
 * columns stores only the fields before `size` (LAGG_TIME_UNITS units): most families are of that
 * kind, and memory grows with cells × families. */
typedef struct lagg {
    uint64_t count;
    int64_t time;
    int64_t time_min, time_max; /* per call */
    unsigned __int128 time_sq;  /* Σ dur² in ns² */
    uint64_t size;              /* Σ size of sized events (sized families only, from here on) */
    uint64_t sized;             /* events with a size */
    uint64_t size_min, size_max;
    unsigned __int128 size_sq;  /* Σ size² */
    uint64_t bins[DFS_SIZE_BINS];
} lagg;

/* Families are stored back to back in blocks of 16-byte units (the alignment of lagg). */
typedef struct lunit {
    _Alignas(16) unsigned char b[16];
} lunit;

#define LAGG_TIME_UNITS (offsetof(lagg, size) / sizeof(lunit))
#define LAGG_FULL_UNITS (sizeof(lagg) / sizeof(lunit))

/* A block starts with one unit saying which of its families hold anything (bit f: family f), so
 * that reading a cell touches only those: most derived families of a cell are empty, and the
 * views read every cell once per view. */
typedef struct block_head {
    uint64_t used;
    uint64_t unused; /* the head fills one unit, so that families stay aligned */
} block_head;

#define BLOCK_HEAD_UNITS (sizeof(block_head) / sizeof(lunit))

/* A time cell (one thread, one bin) keeps less: per family only what a view reads of each of its
 * members, in 64-bit words after the head: the count, the time and, in a sized family, the size
 * (SLIM_WORDS). A view's rows read their full families from the CELL_BIN and CELL_THREAD cells,
 * which sum the same events per bin and per thread. Time cells are most cells, and a slim block
 * is a fifth of a full one. */
enum { SLIM_COUNT = 0, SLIM_TIME = 1, SLIM_SIZE = 2 };
#define SLIM_WORDS(sized) ((sized) ? 3u : 2u)
#define BLOCK_HEAD_WORDS (sizeof(block_head) / sizeof(uint64_t))

/* A traced process as DFAnalyzer's proc_name sees it: (host, pid, tid). The host is kept as both
 * the resolved name (if any) and the hash, because the name may only be resolvable at the end. */
typedef struct proc_key {
    uint64_t hhash;
    dfs_str host;
    uint32_t pad;
    int64_t pid, tid;
} proc_key;

typedef struct proc_info {
    proc_key key;
    uint32_t file; /* where it was first seen, for late host resolution */
    uint64_t offset;
    int64_t first, last; /* a process: the span of its engine's events (the bin bound, timebins.h) */
    uint64_t bin_events; /* their bound on bins */
    uint64_t bins;       /* its bins as counted in the shared count */
} proc_info;

/* What a cell sums, and how its block is laid out:
 *  CELL_TIME   (layer, thread, bin): a slim block (the members of the time and process views);
 *  CELL_FILE   (layer, thread, file): a full block (the members of the file view, which also sum
 *              into its rows);
 *  CELL_BIN    (layer, bin; proc 0): a full block, the sum of the bin's time cells;
 *  CELL_THREAD (layer, thread; axis 0): a full block, the sum of the thread's time cells.
 * A staged event reaches its CELL_TIME, CELL_BIN and CELL_THREAD cells together (layered_cells.c),
 * so each exists exactly when the others do. */
enum cell_kind { CELL_TIME = 0, CELL_FILE = 1, CELL_BIN = 2, CELL_THREAD = 3 };

typedef struct cell_key {
    uint32_t layer;
    uint32_t proc;
    int64_t axis; /* time bin, or the file name's dfs_str */
    uint32_t kind;
    uint32_t pad;
} cell_key;

typedef struct cell {
    cell_key key;
    uint32_t agg;  /* first unit of the cell's block in its pool (layout: dfs_layered.fam_off) */
    uint32_t pool; /* index in acc.pools */
} cell;

/* The cells' blocks, in pools of a fixed size that never grow (layered_cells.c): new cells go to
 * the last pool, and merging another state moves its pools in whole instead of copying hundreds
 * of megabytes of blocks. */
typedef DFS_VEC(lunit) unit_pool;

/* Distinct files: (bin, file) for time rows and (proc, file) for process rows, each with the
 * layers it was seen in. They are kept in a sortset as 128-bit keys: hi the axis; lo the kind,
 * the file, a group of NUNIQ_GROUP layers and the group's layers as bits. An event of several
 * size layers (a read is in posix and reader_posix) adds one key, not one per layer; the same
 * (kind, axis, file) may appear with several masks, which sort next to each other and are joined
 * when the views count (layered_rows.c). */
#define NUNIQ_GROUP 29u /* layers per key: 64 bits = kind (1) + file (32) + group (2) + layers (29) */
#define NUNIQ_GROUP_MASK ((UINT32_C(1) << NUNIQ_GROUP) - 1)

typedef struct nuniq_key {
    uint32_t group;  /* the key's layers are group * NUNIQ_GROUP + b for its bits b */
    uint32_t layers; /* within NUNIQ_GROUP_MASK */
    uint32_t kind;   /* CELL_TIME: axis is a bin; CELL_FILE: axis is a proc */
    int64_t axis;
    uint64_t file;   /* a dfs_str */
} nuniq_key;

static inline dfs_key128 dfs_nuniq_encode(const nuniq_key *k)
{
    return (dfs_key128){(uint64_t)k->axis, (uint64_t)k->kind << 63 | (uint64_t)(uint32_t)k->file << 31 |
                                               (uint64_t)k->group << NUNIQ_GROUP | k->layers};
}

static inline nuniq_key dfs_nuniq_decode(dfs_key128 k)
{
    return (nuniq_key){.group = (uint32_t)(k.lo >> NUNIQ_GROUP) & 3, .layers = (uint32_t)k.lo & NUNIQ_GROUP_MASK,
                       .kind = (uint32_t)(k.lo >> 63), .axis = (int64_t)k.hi, .file = (uint32_t)(k.lo >> 31)};
}

/* Whether two keys differ only in their layers (the same file of the same axis and group). */
static inline bool dfs_nuniq_same_file(dfs_key128 a, dfs_key128 b)
{
    return a.hi == b.hi && a.lo >> NUNIQ_GROUP == b.lo >> NUNIQ_GROUP;
}

/* An event reduced to what the analysis reads (pending events wait in this form for late
 * resolution of their file hash). */
typedef struct lev {
    int64_t ts, dur; /* absolute ns */
    uint64_t fhash, hhash, offset;
    int64_t pid, tid;
    dfs_str cat, name, fname, host;
    uint32_t file;
    bool has_size_sum;
    uint64_t size_sum, ret, image_size;
    uint64_t arg_truths; /* the plan's argument tests answered while it was read (postread.h) */
} lev;

/* The time cells of one (thread, layer): bins [base, base + len) with their cell index + 1 (0: no
 * cell yet), and the cell count that bounds the window (layered_cells.c). */
typedef struct time_row {
    int64_t base;
    uint32_t *slot;
    uint32_t len, cap;
    uint32_t ncells, spilled;
    uint32_t total; /* the (thread, layer)'s CELL_THREAD cell + 1; 0: none yet */
} time_row;

typedef DFS_VEC(time_row) time_row_vec;

/* Time-cell updates staged before they reach the cells (layered_cells.c): a thread's events of one
 * bin, summed per kind of event, where a kind is what classification says of it (its layers and
 * derived-metric texts). An event then costs one sum instead of one per layer and family. */
#define DFS_STAGE_SLOTS 8  /* threads staged at once, by thread index modulo */
#define DFS_STAGE_KINDS 16 /* kinds of event per staged (thread, bin) */

typedef struct stage_kind {
    uint64_t layers, match; /* dfs_pr_event's */
    lagg sum;               /* sized */
} stage_kind;

typedef struct stage_slot {
    bool used;
    unsigned nkinds;
    unsigned last; /* the kind added to last: a thread mostly repeats a call */
    uint32_t proc;
    int64_t bin;
    stage_kind kind[DFS_STAGE_KINDS];
} stage_slot;

typedef struct dfs_stage {
    stage_slot slot[DFS_STAGE_SLOTS];
} dfs_stage;

/* Streaming state of a process's exact engine (layered_exact.c, analyze/common/watermark.h). */
typedef struct xstream {
    dfs_stream_mark mark;
    bool active;        /* listed in acc.active */
    bool pinned;        /* seen in a file read in pieces: held whole, never flushed while streaming */
} xstream;

typedef struct acc {
    dfs_keymap procs; /* proc_key -> index */
    DFS_VEC(proc_info) proc_v;
    time_row_vec rows;     /* [thread index * nlayers + layer] */
    time_row_vec bin_rows; /* [layer]: the CELL_BIN cells */
    dfs_keymap cells;       /* cell_key -> index: file cells, and time cells outside their row */
    DFS_VEC(cell) cell_v;
    DFS_VEC(uint32_t) bin_cells; /* the CELL_BIN cells' indices in cell_v, in order */
    DFS_VEC(unit_pool) pools;
    uint32_t filling[2]; /* index + 1 of the pools being filled with cells and with totals */
    dfs_sortset nuniq; /* nuniq_key */
    dfs_keymap pmap; /* processes: proc_key with tid 0 -> index (the scope of exact overlap) */
    DFS_VEC(proc_info) pproc_v;
    DFS_VEC(dfs_ovl *) ovl; /* per process (exact mode) */
    DFS_VEC(xstream) xs;    /* per process, beside ovl */
    DFS_VEC(uint32_t) active; /* processes whose engines may hold intervals */
    dfs_ovl *spare;           /* a retired engine's buffers, for the next process (dfs_ovl_renew) */
    /* The default mode's wall time (layered_wall.c): one engine over every process, class l the
     * union of layer l's events, never flushed (inputs are not read in time order), so it holds
     * the run's busy periods per layer, at most dfs_layered_wall_bound intervals per worker; past that
     * it is dropped and wall_over says the wall times are not measured. */
    dfs_ovl *wall;
    bool wall_over;
    uint32_t wall_since_check;
    uint64_t last_mask, last_classes; /* the last layers added to an engine, as its classes */
    uint64_t budget, since_check, check_every, flushes; /* streaming (layered_exact.c) */
    bool streaming;       /* a worker's state: flush engines behind their watermarks */
    bool stream_conflict; /* a flushed engine met another of its process (a second pass is needed) */
    /* A key may have several cells: a merge appended cells of a thread both sides knew, or cells
     * were looked up after a merge (late-resolved events, MPI), which finds none of the appended
     * ones. Without it, each member of the time view is one cell (layered_rows.c). */
    bool cells_repeat;
    DFS_VEC(lev) pending;
    dfs_sortset fhashes;       /* raw statistics' files: {1, hash} or {2, name id} as {hi, lo} */
    dfs_keyset hhashes, pids;
    DFS_VEC(char *) cat_texts; /* post-read categories seen (auto completeness check) */
    /* post-read events in no layer, by category: a preset that leaves most of a trace out is said */
    DFS_VEC(dfs_layered_unlayered) unlayered;
    dfs_clock_track clocks;    /* the clock each file went through (analyze/common/clocks.h) */
    uint64_t events, no_duration, bad_time, other_phases;
    uint64_t dropped_files, dropped_functions, post_read;
    uint64_t post_read_dur; /* Σ dur (ns) of the post-read events: what share of time is in no layer */
    uint64_t on_purpose, on_purpose_dur; /* events in no layer that the preset leaves out on purpose */
    uint64_t layer_events; /* Σ over staged events of their layer count: the time cells' total count */
    bool have_time;
    int64_t min_ts, max_end;
    /* the bound on time bins (timebins.h): the run's span and each process engine's, added to the
     * shared count as they grow; over it, the engines take no more events (the spans still grow) */
    uint64_t run_bin_events, run_bins;
    /* the time cells that events split over several bins add beyond their start bins: Σ (bins
     * reached − 1) × layers, and Σ dur × layers (ns, saturating) that scales it to a coarser width */
    uint64_t spread_cells, spread_ns;
    bool bins_over;
    bool failed; /* out of memory */
} acc;

struct dfs_layered {
    dfs_layered_options opt;
    dfs_layer_plan plan;
    dfs_preset_layer *auto_layers; /* `auto` expansion, owned */
    char **auto_names;
    size_t nauto;
    unsigned nfam[DFS_PRESET_MAX_LAYERS];
    uint32_t fam_off[DFS_PRESET_MAX_LAYERS][DFS_PRESET_MAX_DERIVED + 1]; /* in units */
    bool fam_sized[DFS_PRESET_MAX_LAYERS][DFS_PRESET_MAX_DERIVED + 1];
    uint32_t block_units[DFS_PRESET_MAX_LAYERS];
    uint64_t size_layers; /* the layers with sizes (and distinct-file counts) */
    uint64_t fam_texts;   /* the derived texts (dfs_pr_event.match bits) some family takes */
    /* Families keep only their count, time and size: a run without columns reads nothing else
     * (the per-call statistics and size bins are columns), and the other fields keep their empty
     * values, which every merge takes as nothing added. */
    bool sums_only;
    size_t time_view_values; /* values per row of the time view's table; 0 without one */
    uint32_t slim_off[DFS_PRESET_MAX_LAYERS][DFS_PRESET_MAX_DERIVED + 1]; /* in words */
    uint32_t slim_units[DFS_PRESET_MAX_LAYERS];
    uint64_t ovl_classes; /* layers measured exactly: unoverlapped ones and compute */
    /* An engine's classes are only those layers, numbered in layer order (its bins hold every
     * class, so a class per layer would store and sum measures no event ever adds to). */
    uint8_t ovl_class[DFS_PRESET_MAX_LAYERS]; /* a layer's class, for the layers of ovl_classes */
    unsigned ovl_nclasses;
    int compute;          /* the layer named compute, or -1 */
    dfs_consumer consumer;
    acc total;
    bool rerun;
    bool rerun_no_streaming;  /* the rerun must not flush while streaming */
    bool rerun_bins_settled;  /* the rerun must not stop at the bin bound */
    atomic_uint_least64_t bins_counted; /* the workers' time bins together (timebins.h) */
    const char *rerun_reason; /* static text */
    char failure[512];        /* a predicate over its regex bound, or too many time bins: no result (layered.h) */
    int64_t true_origin;
    char **all_categories;
    size_t nall_categories;
    dfs_layered_result result;
    void *views_mem; /* owned by layered_views.c */
};

/* The block of a cell of a. */
static inline lunit *dfs_cell_block(const acc *a, const cell *c)
{
    return &a->pools.v[c->pool].v[c->agg];
}

/* Family f of a block of layer l. */
static inline lagg *dfs_fam(const dfs_layered *la, lunit *block, unsigned l, unsigned f)
{
    return (lagg *)(void *)(block + la->fam_off[l][f]);
}

/* Family f of a time cell's block of layer l: words SLIM_COUNT, SLIM_TIME and (sized) SLIM_SIZE. */
static inline uint64_t *dfs_slim(const dfs_layered *la, lunit *block, unsigned l, unsigned f)
{
    return (uint64_t *)(void *)block + la->slim_off[l][f];
}

/* What a bin's totals (CELL_BIN) keep after their families, for a time view whose members are
 * single cells (layered_rows.c): how many time cells of the (layer, bin) have events, and the
 * largest of their times (family 0), kept up to date as the cells are. They count the worker's
 * own cells, so they add up over workers only while no member may be split between them
 * (acc.cells_repeat). */
typedef struct bin_members {
    uint64_t n;
    int64_t top;
} bin_members;

#define BIN_MEMBERS_UNITS (sizeof(bin_members) / sizeof(lunit))

/* The units of a cell's block. */
static inline uint32_t dfs_cell_units(const dfs_layered *la, uint32_t kind, unsigned l)
{
    if (kind == CELL_TIME)
        return la->slim_units[l];
    return la->block_units[l] + (kind == CELL_BIN ? (uint32_t)BIN_MEMBERS_UNITS : 0);
}

static inline bin_members *dfs_bin_members(const dfs_layered *la, lunit *block, unsigned l)
{
    return (bin_members *)(void *)(block + la->block_units[l]);
}

/* The families of a block that hold anything (block_head). */
static inline uint64_t dfs_block_used(const lunit *block)
{
    return ((const block_head *)(const void *)block)->used;
}

static inline void dfs_block_mark(lunit *block, unsigned f)
{
    ((block_head *)(void *)block)->used |= UINT64_C(1) << f;
}

/* Whether family f of layer l takes an event whose derived texts are `match` (family 0, the
 * layer itself, takes every event of the layer). */
static inline bool dfs_fam_takes(const dfs_layered *la, unsigned l, unsigned f, uint64_t match)
{
    int t = f ? la->plan.derived_text[l][f - 1] : -1;
    return t < 0 || (match >> t & 1);
}

/* Whether a run builds the flat views' columns: they are what reads the derived families (read_,
 * write_, metadata_...), so a run without them (the table output of a preset without additional
 * metrics) aggregates only each layer's own family. */
static inline bool dfs_layered_needs_columns(const dfs_layered_options *o)
{
    return !o->summaries_only || o->preset->nadditional;
}

void dfs_lagg_init(lagg *a, bool sized);
void dfs_lagg_add(lagg *a, int64_t dur, uint64_t size, bool with_size);

/* Adds an event to a family: every sum, or in a run whose families keep only their count, time
 * and size (dfs_layered.sums_only) those. */
static inline void dfs_fam_add(const dfs_layered *la, lagg *a, int64_t dur, uint64_t size, bool with_size)
{
    if (!la->sums_only) {
        dfs_lagg_add(a, dur, size, with_size);
        return;
    }
    a->count++;
    a->time += dur;
    if (with_size)
        a->size += size;
}

/* Adds a family's sums into another (inline: the views merge millions). */
static inline void dfs_lagg_merge(lagg *into, const lagg *from, bool sized)
{
    if (!from->count && !from->time) /* empty (many derived families of a cell are); a piece of an
                                         event (the default mode's later bins) has time alone */
        return;
    into->count += from->count;
    into->time += from->time;
    into->time_sq += from->time_sq;
    if (from->time_min < into->time_min)
        into->time_min = from->time_min;
    if (from->time_max > into->time_max)
        into->time_max = from->time_max;
    if (!sized)
        return;
    into->size += from->size;
    into->sized += from->sized;
    into->size_sq += from->size_sq;
    if (from->size_min < into->size_min)
        into->size_min = from->size_min;
    if (from->size_max > into->size_max)
        into->size_max = from->size_max;
    for (int b = 0; b < DFS_SIZE_BINS; b++)
        into->bins[b] += from->bins[b];
}

void dfs_block_init(const dfs_layered *la, unsigned l, lunit *block);
/* An empty block for a cell of this kind. */
void dfs_cell_init(const dfs_layered *la, uint32_t kind, unsigned l, lunit *block);
/* Adds the count, time and size of `from` into family f of a time cell's block of layer l (and
 * marks it used when not empty); adds a whole slim block into another. */
void dfs_slim_merge(const dfs_layered *la, lunit *block, unsigned l, unsigned f, const lagg *from);
void dfs_slim_block_merge(const dfs_layered *la, unsigned l, lunit *into, const lunit *from);
/* Adds `from` into family f of a block of layer l (and marks it used when not empty). */
void dfs_fam_merge(const dfs_layered *la, lunit *block, unsigned l, unsigned f, const lagg *from);
void dfs_block_merge(const dfs_layered *la, unsigned l, lunit *into, const lunit *from);
int dfs_size_bin(uint64_t size);
extern const char *const dfs_size_bin_suffix[DFS_SIZE_BINS];

void dfs_layered_acc_init(acc *a);
void dfs_layered_acc_free(acc *a);
/* The pieces of a merge, for merging a packed state straight into a total (layered_pack.c):
 * the families of a cell (created empty when new; NULL when out of memory); the index of a
 * process-and-thread (process: the process map) added when new, an earlier sighting replacing
 * the one kept (UINT32_MAX when out of memory); the scalar counters; a post-read category. */
lunit *dfs_layered_cell(dfs_layered *la, acc *a, const cell_key *k);
/* Stages an event of thread `proc` in `bin` (its layers and derived texts in pe) for the time cells
 * of its layers; moves everything staged into the cells of `a`. Whatever reads a's cells must
 * flush first. The default mode splits an event over the bins it overlaps: a piece brings `piece`
 * ns of time to its bin, and only the start bin's piece (e->start) brings the call itself (count,
 * size, per-call statistics of the whole duration). Unsplit, piece is the duration. */
typedef struct stage_piece {
    int64_t dur, piece;
    uint64_t size;
    bool start;
} stage_piece;
void dfs_stage_add(dfs_layered *la, acc *a, dfs_stage *s, uint32_t proc, int64_t bin, const dfs_pr_event *pe,
                   const stage_piece *e);
void dfs_stage_flush(dfs_layered *la, acc *a, dfs_stage *s);
/* The time row of (layer, thread), created empty when new; NULL when out of memory. */
time_row *dfs_layered_row(dfs_layered *la, acc *a, uint32_t layer, uint32_t proc);
void dfs_layered_rows_free(acc *a);
uint32_t dfs_layered_add_proc(acc *a, const proc_info *pi, bool process);
void dfs_layered_merge_counters(acc *into, const acc *from);
/* Adds count events of duration dur (ns) of category t that fell in no layer. */
void dfs_layered_add_unlayered(acc *a, const char *t, size_t len, uint64_t count, uint64_t dur);
void dfs_layered_add_category(acc *a, const char *t, size_t len);

/* layered_exact.c: adds an event to process p's engine (`mask`: its layers among ovl_classes),
 * flushing while streaming; the worker moved to another input; moves or merges a process's
 * engine into `into` (flagging a merge that streaming made inexact); why the pass cannot stand
 * (NULL: it can). */
void dfs_layered_exact_add(const dfs_layered *la, acc *a, uint32_t p, const lev *e, uint64_t mask, uint64_t size,
                           bool in_pieces);
void dfs_layered_exact_input_changed(acc *a);
void dfs_layered_exact_merge(acc *into, uint32_t p, dfs_ovl **src);
const char *dfs_layered_exact_order_problem(const acc *a);

/* layered_wall.c: adds an event of these layers to the run's wall engine (default mode); moves
 * or merges a worker's wall engine into `into`; finishes it (false on out of memory); the wall
 * time of each layer per time view row (time_range rows). */
#define DFS_WALL_MAX_HELD (UINT64_C(1) << 22) /* the default of dfs_layered_options.wall_max_periods */
uint64_t dfs_layered_wall_bound(const dfs_layered_options *o);
void dfs_layered_wall_add(const dfs_layered *la, acc *a, const lev *e, uint64_t layers);
void dfs_layered_wall_merge(acc *into, acc *from);
bool dfs_layered_wall_finish(acc *a);

/* layered_views.c: derives result.views from la->total (canonical, merged); frees them. */
bool dfs_layered_build_views(dfs_layered *la, const dfs_run *run, int64_t bin_shift);
void dfs_layered_free_views(dfs_layered *la);

/* ---- the views (layered_views.c, layered_rows.c, layered_columns.c) ----------------------------
 * A view row groups "members": for time_range and file_name rows the members are processes, for
 * host/pid/tid rows the processes of the group, and for proc_name rows the process's time bins
 * (so X_proc_* in the process view is the distribution over its bins, quirk 15). The time metric
 * tm of a row is the busiest member's time (time_proc_max) in non-process views, and the row's
 * time_sum in process views; in the dfanalyzer-sum semantics it is always time_sum. */

typedef struct canon_proc {
    char *name; /* app#host#pid#tid */
    char *host;
    char pid[24], tid[24];
} canon_proc;

/* One member of one (row, layer): its families, summed over the cells that fall in it. */
typedef struct member {
    uint32_t row, layer, id;
    uint32_t at; /* its block: the index of its cell in la->total, or in view_build.units when own */
    bool own;     /* several cells fell into this member: their sum is a copy */
} member;

typedef struct rowlayer {
    uint32_t first, n; /* members[first .. first+n) */
    lunit *tot;        /* the members' families summed, a block laid out as a cell's
                        * (dfs_layered_slot_fam); NULL when the slot has no member (tm is then NAN) */
    double tm;         /* seconds; NAN when the layer has no event in the row */
    int64_t top;       /* the largest member time (ns), where the members were summed unkept */
    uint64_t nfiles, nprocs;
    bool has_exact;
    int64_t u_exact; /* ns: an integer sum, the same in any merge order */
    bool has_wall;
    int64_t wall;    /* ns: the union over processes of the layer's events in the row (time view) */
    uint64_t u_exact_count;
    double u_exact_size;
} rowlayer;

typedef struct view_build {
    dfs_view_type type;
    char **row_keys;
    const int64_t *row_bins; /* time view: the run's bins (views_mem.bins), not a copy */
    size_t nrows;
    member *members;
    size_t nmembers;
    rowlayer *rl; /* [nrows * nlayers] */
    DFS_VEC(char *) columns;
    DFS_VEC(double) cells;
    dfs_layer_summary *summary;
    dfs_additional_summary *additional;
    size_t nadditional;
    DFS_VEC(lunit) units;     /* blocks of members that sum several cells */
    DFS_VEC(lunit) tot_units; /* blocks of the slots' totals */
} view_build;

typedef struct views_mem {
    int64_t *bins; /* every time bin (shifted), sorted: the time view's rows, the process view's
                    * member ids */
    size_t nbins;
    /* bin_index's answers for every bin from bins[0] to bins[nbins - 1], when the bins are dense
     * enough for such a table (NULL otherwise): cells, distinct-file keys and exact bins are
     * placed by the million, a binary search each would cost more than all else they do */
    uint32_t *bin_pos;
    canon_proc *procs;
    size_t nprocs;
    uint32_t *canon; /* total.proc_v index -> canon index */
    view_build *views;
    dfs_view_result *results;
    size_t nviews;
} views_mem;

/* The layers of a run. */
#define NL(la) ((la)->plan.nlayers)

/* Whether a view's rows are processes or groups of them (host, pid, tid), not bins or files. */
static inline bool dfs_layered_process_view(dfs_view_type v)
{
    return v == DFS_VIEW_PROC_NAME || v == DFS_VIEW_HOST_NAME || v == DFS_VIEW_PROC_ID ||
           v == DFS_VIEW_THREAD_ID;
}

/* ns as seconds. */
static inline double dfs_layered_secs(int64_t ns)
{
    return (double)ns / 1e9;
}

/* The cells that are a view's members: file cells in the file view, time cells elsewhere. */
static inline uint32_t dfs_layered_member_kind(const view_build *vb)
{
    return vb->type == DFS_VIEW_FILE_NAME ? CELL_FILE : CELL_TIME;
}

/* The block of a member: its own copy, or its single cell's. */
static inline lunit *dfs_layered_member_block(const dfs_layered *la, const view_build *vb, const member *m)
{
    return m->own ? &vb->units.v[m->at] : dfs_cell_block(&la->total, &la->total.cell_v.v[m->at]);
}

/* What a view reads of a member's family: its count, time and (sized family) size. */
typedef struct member_vals {
    uint64_t count;
    int64_t time;
    uint64_t size;
} member_vals;

/* Family f of a member, from its slim time cell or its full block. */
static inline member_vals dfs_layered_member_fam(const dfs_layered *la, const view_build *vb, const member *m,
                                                 unsigned f)
{
    lunit *block = dfs_layered_member_block(la, vb, m);
    bool sized = la->fam_sized[m->layer][f];
    if (dfs_layered_member_kind(vb) == CELL_TIME) {
        const uint64_t *w = dfs_slim(la, block, m->layer, f);
        return (member_vals){w[SLIM_COUNT], (int64_t)w[SLIM_TIME], sized ? w[SLIM_SIZE] : 0};
    }
    const lagg *a = dfs_fam(la, block, m->layer, f);
    return (member_vals){a->count, a->time, sized ? a->size : 0};
}

/* Family f of the totals of a slot of layer l (a slot with members). */
static inline const lagg *dfs_layered_slot_fam(const dfs_layered *la, const rowlayer *r, size_t l, unsigned f)
{
    return dfs_fam(la, r->tot, (unsigned)l, f);
}

/* layered_rows.c */
/* The canonical processes (app#host#pid#tid, sorted, distinct) and each process's among them. */
bool dfs_layered_canonical_procs(dfs_layered *la, views_mem *vm, const dfs_run *run);
/* The distinct time bins of the time cells (shifted), in order; NULL when out of memory. */
int64_t *dfs_layered_distinct_bins(const acc *a, int64_t shift, size_t *count);
/* Fills vm->bin_pos when the bins are dense enough; false only when out of memory. */
bool dfs_layered_bin_table(views_mem *vm);
/* A view's first half (stage 1), from the merged cells alone: its rows, members and slots. */
bool dfs_layered_view_members(dfs_layered *la, views_mem *vm, view_build *vb, const dfs_run *run, int64_t shift);
/* The distinct files of every slot, from the compacted distinct-file keys (stage 2). */
bool dfs_layered_count_files(dfs_layered *la, views_mem *vm, view_build *vb, int64_t shift);
/* Exact unoverlapped time per row, from the finished engines (exact mode, stage 2). */
void dfs_layered_exact_rows(dfs_layered *la, const views_mem *vm, view_build *vb, const dfs_run *run, int64_t shift);

/* layered_columns.c */
/* A view's second half (stage 2): its slots' files and exact times, summaries and columns. */
/* The time view holds its table whole until it is written (rows = the run's bins, every column of
 * every layer: a few hundred per layer), so its values are bounded apart from the bins: 2^26
 * values are 512 MiB of doubles, and the whole view about three times that (its rows' members
 * and the JSON or CSV text as it is written). */
#define DFS_TIME_VIEW_VALUES_MAX (UINT64_C(1) << 26)
/* The columns of the time view under la's preset and options; SIZE_MAX when out of memory. */
size_t dfs_layered_time_columns(const dfs_layered *la);
bool dfs_layered_view_rest(dfs_layered *la, views_mem *vm, view_build *vb, const dfs_run *run, int64_t shift);
#endif
