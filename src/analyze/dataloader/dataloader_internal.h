/* dataloader_internal.h - what the files of the data-loader analysis share (dataloader.h): what
 * the reading workers keep of the events, the analysis object, and the steps dfs_dl_finish calls
 * across files. Not a public interface.
 *
 * The files: dataloader.c (options, construction, the streaming consumer and the merge of the
 * workers' parts), dataloader_finish.c (dfs_dl_finish: labels, framework events, the three row
 * sets, system-metric files and samples, in that order) and dataloader_outliers.c (the statistics
 * and outliers of §1.3, batch time, the window queries and the window reports).
 *
 * Invariants: the workers write only their own part, and the analysis object is written only by
 * worker_end (the merge) and by dfs_dl_finish's steps, one after the other; after dfs_dl_finish's
 * events step, events are in start order (then file, offset), and every later order is by content,
 * file and offset, so results are identical for any -j. */
#ifndef DFS_DATALOADER_INTERNAL_H
#define DFS_DATALOADER_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/common/concepts.h"
#include "analyze/common/predicate.h"
#include "analyze/dataloader/dataloader.h"
#include "util/u64map.h"
#include "util/vec.h"

#define NO_ARGS UINT32_MAX
#define NO_LABEL UINT32_MAX
/* The args of the row fields, looked up by name: indices into dataloader.c's wanted_extra. */
enum { X_LAYER, X_WORKER, X_NW, X_PIN, X_VALUE, X_COUNT };

/* ---- what the workers keep -------------------------------------------------------------------- */

typedef struct raw_args {
    dfs_str layer_name, name;
    int64_t step, worker_id, num_workers, pid;
    uint8_t pin;
    bool has_pid;
} raw_args;

typedef struct raw_ev {
    int64_t ts, dur, pid, tid;
    uint64_t offset;
    uint32_t file, args;
    dfs_str name, cat;
    char ph; /* 'X', 'B' or 'E' */
    bool bad_time;
} raw_ev;

typedef struct raw_sample {
    int64_t ts;
    double value;
    int64_t pid, tid; /* NodeId and Name when numeric */
    dfs_str pid_str, tid_str, type, dim;
    uint64_t offset;
    uint32_t file;
} raw_sample;

typedef struct part {
    DFS_VEC(raw_ev) evs;
    DFS_VEC(raw_args) args;
    DFS_VEC(raw_sample) samples;
    uint64_t *last_record; /* per file: offset + 1 of its last record, 0 when none */
    size_t nfiles;
    uint64_t no_value, no_time;
    dfs_str extra_id[X_COUNT];
    bool ids_known, failed;
} part;

typedef struct label_tab {
    DFS_VEC(char *) v;
    dfs_u64map index; /* content hash (re-mixed on a collision) -> label */
} label_tab;

struct dfs_dataloader {
    dfs_dl_options opt;
    dfs_consumer consumer;
    dfs_pred_set *match;      /* bit s: the regex of set s on name or phase */
    dfs_concepts *concepts;   /* the data-wait mapping and event classes */
    char *pattern[DFS_DL_NSETS];
    part total;
    const dfs_run *run;
    label_tab labels;
    uint32_t *file_node;      /* per file: node label */
    uint8_t *file_kind;       /* per file: mapping kind of its GetNext set */
    uint32_t *file_sys;       /* per file: index in sysfiles, NO_LABEL when not a system file */
    DFS_VEC(dfs_dl_event) events;
    DFS_VEC(size_t) event_args; /* per event: index in total.args or NO_ARGS */
    DFS_VEC(dfs_dl_sample) samples;
    DFS_VEC(dfs_dl_sysfile) sysfiles;
    DFS_VEC(dfs_dl_mapping) mappings;
    DFS_VEC(dfs_dl_row) rows[DFS_DL_NSETS];
    DFS_VEC(dfs_dl_gap) gaps;
    DFS_VEC(dfs_dl_window) windows;
    uint64_t bad_times;       /* events dropped while pairing for a time out of range */
    size_t *owned[8];         /* outlier index arrays */
    size_t nowned;
    dfs_dl_result result;
    bool finished, failed;
    char failure[512];        /* a regex over its bound: no result (dataloader.h) */
};

/* Three-way comparison of two integers. */
static inline int dl_cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

/* dataloader_outliers.c */
/* The analyses of §1.3 on the published rows: initializations, workers, GetNext, batch time. */
bool dl_analyse(dfs_dataloader *d);
/* The window reports of the GetNext and batch outliers (at most max_windows of each kind). */
bool dl_build_windows(dfs_dataloader *d);
#endif
