/* clocks.h - which clock each input file's times went through while streaming, for the analyses
 * that bin time (layered analysis, overlap). A file's clock (Kineto base time, DFTracer v2
 * time_metric) may only be known at its end, so the clock used is remembered per file with the
 * file's earliest raw start: at the end, a clock that moved means a second pass, whose origin is
 * the earliest start under every file's final clock (a clock applies monotonically). */
#ifndef DFS_CLOCKS_H
#define DFS_CLOCKS_H
#include <stdbool.h>
#include <stdint.h>

#include "dfscope.h"
#include "util/keymap.h"
#include "util/vec.h"

/* The clock of one input as known at the end of a pass (dfs_file_info), to read again with. */
typedef struct dfs_file_clock {
    int64_t offset_ns;
    int32_t num, den;
} dfs_file_clock;

/* Every file's final clock, for the options of a second pass (malloc'd, [file count]; NULL when
 * out of memory). */
dfs_file_clock *dfs_run_final_clocks(const dfs_run *run);

typedef struct dfs_file_seen {
    dfs_file_clock clock; /* the clock the file's times went through */
    int64_t min_raw;      /* its earliest start on its own clock */
    bool have;
} dfs_file_seen;

typedef struct dfs_clock_track {
    dfs_keymap files; /* file index -> entry in seen */
    DFS_VEC(dfs_file_seen) seen;
    bool moved;       /* two batches of a file saw different clocks */
} dfs_clock_track;

void dfs_clock_track_init(dfs_clock_track *t);
void dfs_clock_track_free(dfs_clock_track *t);
/* The entry of `file`: the clock is given[file] when the caller knows the final clocks (a second
 * pass), else the file's current one. Valid until the next call; NULL when out of memory. */
dfs_file_seen *dfs_clock_track_file(dfs_clock_track *t, const dfs_run *run, const dfs_file_clock *given,
                                    size_t ngiven, uint32_t file);
/* Merges another thread's entries; false when out of memory. */
bool dfs_clock_track_merge(dfs_clock_track *into, const dfs_clock_track *from);
/* After reading: true when a clock moved; *origin (when *have_origin) is the earliest start under
 * every file's final clock, computed with `apply`. */
bool dfs_clock_track_settle(const dfs_clock_track *t, const dfs_run *run, const dfs_file_clock *given,
                            size_t ngiven, int64_t (*apply)(const dfs_file_clock *, int64_t), int64_t *origin,
                            bool *have_origin);
/* A raw time (or duration) under a file's clock scale; and a raw time under the whole clock,
 * saturating at the int64 limits instead of wrapping. */
int64_t dfs_clock_scale(const dfs_file_clock *c, int64_t t);
int64_t dfs_clock_apply(const dfs_file_clock *c, int64_t t);

/* Distributed runs (docs/MPI.md): a tracker on the wire, and back into an empty tracker
 * (false: a bad buffer or out of memory). */
struct dfs_pack;
struct dfs_unpack;
void dfs_clock_track_pack(struct dfs_pack *w, const dfs_clock_track *t);
bool dfs_clock_track_unpack(struct dfs_unpack *r, dfs_clock_track *t);
#endif
