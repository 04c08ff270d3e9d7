/* dataloader.h - SageMaker Debugger's PT_dataloader_analysis (`dfscope dataloader`), spec
 * training-loop.md §1.1-§1.3, on smdebug framework traces and system-metric files, and on any
 * trace whose events map onto the same concepts.
 *
 * Three row sets are built from the framework events (X events, and B/E pairs): GetNext,
 * initialize and worker. An event belongs to a set when a regular-expression search succeeds on
 * its name or on its phase (the process name of its pid in its file, "Unknown" when none). The
 * patterns are smdebug's (`.*DataLoaderIter::GetNext`, `DataLoaderIterInitialize`,
 * `DataLoaderWorker`) unless the user gives one for every input. For Kineto, Composer and
 * DFTracer inputs, whose events never carry these names, GetNext is mapped onto the data-wait
 * concept D of the unified model (analyze/common/concepts.h: `enumerate(DataLoader)#…__next__` spans,
 * `event/dataloader` markers, `fetch.iter` / `loop.iter`), so that batch time works there too;
 * the result lists every mapping that was applied, with the files and rows it matched.
 *
 * Four analyses follow (§1.3): iterator initializations per iterator type, worker processes,
 * GetNext calls and batch time (gaps between consecutive GetNext starts per node and pid, the rows
 * sorted by end: nesting gives negative gaps, kept and counted). Outliers are values >= 2 x the
 * median, sorted by value descending then start. Every GetNext and batch outlier defines a window
 * whose report lists the system samples in it (start <= t <= end) per (node, dimension, name) and
 * the framework events overlapping it (kept unless end < window start or window end < start).
 *
 * Reading rules (§1.1): times are absolute (file clocks applied); smdebug B/E pair on one stack
 * per pid (Composer: per pid, tid and name; others: per pid and tid); an E on an empty stack, a
 * pair or an X with a negative duration is dropped and counted; a B never closed is counted.
 * A system-metric file whose only corrupt line is its last one (a file still being written) is
 * used and the skipped line counted; a file with a corrupt line elsewhere is rejected, as smdebug
 * fails on it: its samples are left out and the result says so.
 *
 * Cost: memory linear in the framework events and system samples (a few dozen bytes each); time
 * O(n log n). Results are identical for any -j (everything is ordered by content, file and offset).
 */
#ifndef DFS_DATALOADER_H
#define DFS_DATALOADER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfscope.h"

typedef enum dfs_dl_set {
    DFS_DL_GETNEXT,
    DFS_DL_INIT,
    DFS_DL_WORKER,
    DFS_DL_NSETS
} dfs_dl_set;

/* "getnext", "initialize", "worker". */
const char *dfs_dl_set_name(dfs_dl_set s);
/* smdebug's default pattern of a set. */
const char *dfs_dl_default_pattern(dfs_dl_set s);

typedef struct dfs_dl_options {
    const char *pattern[DFS_DL_NSETS]; /* a regex for every input instead of the defaults; NULL: defaults */
    size_t max_windows;                /* window reports per outlier kind, largest first; 0 = all */
} dfs_dl_options;

void dfs_dl_options_init(dfs_dl_options *o); /* defaults; max_windows 10 */

/* pin_memory as smdebug reports it: "True" only for a boolean true, "False" for any other value,
 * "NA" when absent. */
typedef enum dfs_dl_pin { DFS_DL_PIN_NA, DFS_DL_PIN_FALSE, DFS_DL_PIN_TRUE } dfs_dl_pin;
const char *dfs_dl_pin_name(dfs_dl_pin p);

/* A framework event: an X event or a B/E pair, on the absolute clock (ns). */
typedef struct dfs_dl_event {
    int64_t start, end;
    int64_t pid, tid;   /* as recorded (the pid of the phase) */
    uint64_t offset;    /* of the X or B record */
    uint32_t file;
    dfs_str name, cat;
    dfs_str phase;      /* process name of pid; 0 = "Unknown" */
    uint32_t node;      /* label index (dfs_dl_label) */
    uint8_t cls;        /* dfs_event_class of analyze/common/concepts.h (GetNext rows: data wait) */
} dfs_dl_event;

/* A system-metric sample (one line of a system file). */
typedef struct dfs_dl_sample {
    int64_t t;          /* ns */
    double value;
    dfs_str type, dim;  /* Type (cpu, gpu), Dimension (CPUUtilization...) */
    uint32_t node;      /* label of NodeId */
    uint32_t name;      /* label of Name (cpu0, gpu1) */
    uint32_t file;
} dfs_dl_sample;

/* A row of one of the three sets (the fields of §1.2; time strings are made by the report). */
typedef struct dfs_dl_row {
    int64_t start, end;    /* ns */
    int64_t pid;           /* args.pid when present, else the event's pid */
    dfs_str metric;        /* framework_metric: args.layer_name, else args.name, else the name */
    int64_t step;          /* int(args.step_num), else -1 */
    int64_t worker_id;     /* else -1 */
    int64_t num_workers;   /* else -1 */
    uint8_t pin_memory;    /* dfs_dl_pin */
    uint32_t node;         /* label */
    size_t event;          /* index in result->events */
} dfs_dl_row;

/* count, median and max of a list, and its outliers (>= 2 x median), largest first. */
typedef struct dfs_dl_stats {
    size_t count;
    double median_us, max_us;   /* NAN when count is 0 */
    const size_t *outliers;     /* indices (rows of the set, or gaps), value descending then start */
    size_t noutliers;
} dfs_dl_stats;

#define DFS_DL_NINIT_TYPES 2
typedef struct dfs_dl_init_type {
    const char *type;       /* "_MultiProcessingDataLoaderIter.__init__", "_SingleProcessDataLoaderIter.__init__" */
    dfs_dl_stats stats;     /* count 0: the type is not used */
    uint8_t pin_memory;     /* first value, in start order */
    int64_t num_workers;    /* first value; -1 when absent */
} dfs_dl_init_type;

typedef struct dfs_dl_gap {
    int64_t prev_start, start; /* ns */
    int64_t gap;               /* start - prev_start (negative when GetNext calls nest) */
    size_t row;                /* the GetNext row that starts the batch */
} dfs_dl_gap;

typedef enum dfs_dl_window_kind { DFS_DL_WIN_GETNEXT, DFS_DL_WIN_BATCH } dfs_dl_window_kind;

/* System samples of one (node, dimension, name) in a window. */
typedef struct dfs_dl_metric {
    uint32_t node, name;
    dfs_str dim, type;
    size_t count;
    double min, mean, max;
} dfs_dl_metric;

typedef struct dfs_dl_window {
    dfs_dl_window_kind kind;
    size_t rank;                 /* 0 = the largest outlier of its kind */
    size_t outlier;              /* GetNext: row index; batch: gap index */
    int64_t start, end;          /* ns */
    const dfs_dl_metric *metrics;
    size_t nmetrics;             /* sorted by node, dimension, name */
    const size_t *events;        /* framework events overlapping, by start */
    size_t nevents;
    size_t finishing_inside;     /* of which end inside [start, end] */
} dfs_dl_window;

/* How a set was matched on one source (dialect family), and what that gave. */
typedef struct dfs_dl_mapping {
    dfs_dl_set set;
    const char *source;   /* "smdebug" (also every format without a mapping), "kineto", "composer",
                             "dftracer"; "user" for a --getnext/--init/--worker pattern */
    const char *how;      /* "regex" (search on name or phase) or "concept" (a predicate) */
    const char *pattern;  /* the regex or the predicate text */
    size_t files;         /* framework files it was applied to */
    size_t rows;          /* rows it gave (before de-duplication) */
} dfs_dl_mapping;

typedef enum dfs_dl_sys_status {
    DFS_DL_SYS_OK,
    DFS_DL_SYS_LAST_LINE_SKIPPED, /* its only corrupt line was the last one: skipped, counted */
    DFS_DL_SYS_REJECTED,          /* a corrupt line that is not the last: the file is left out */
} dfs_dl_sys_status;

typedef struct dfs_dl_sysfile {
    uint32_t file;
    uint64_t bad_lines;
    uint64_t samples;      /* good lines read */
    dfs_dl_sys_status status;
} dfs_dl_sysfile;

typedef struct dfs_dl_result {
    /* inputs */
    size_t framework_files;          /* files with framework events */
    const dfs_dl_sysfile *sysfiles;  /* every smdebug system-metric file */
    size_t nsysfiles;
    size_t last_lines_skipped;       /* system files whose corrupt last line was skipped */
    size_t rejected_files;           /* system files left out */
    int64_t origin;                  /* ns: *_us columns are relative to it (0: absolute) */
    int origin_file;                 /* the system file that gave it; -1: none */
    /* reading */
    uint64_t orphan_ends, unclosed_begins;   /* B/E records left unpaired (dropped) */
    uint64_t negative_durations;             /* events dropped: end before start */
    uint64_t bad_times;                      /* events dropped: no time, or one out of the int64 ns range */
    uint64_t samples_without_value;          /* system lines without a numeric Value or Timestamp */
    /* events and samples, by start */
    const dfs_dl_event *events;
    size_t nevents;
    int64_t max_duration;            /* ns, of the longest event (bounds the window scans) */
    const dfs_dl_sample *samples;
    size_t nsamples;
    /* labels: node ids and device names */
    const char *const *labels;
    size_t nlabels;
    /* the sets */
    const dfs_dl_mapping *mappings;
    size_t nmappings;
    const dfs_dl_row *rows[DFS_DL_NSETS];   /* by start, duplicates dropped */
    size_t nrows[DFS_DL_NSETS];
    size_t duplicates[DFS_DL_NSETS];        /* rows dropped as identical in every field */
    /* 1. iterator initializations */
    dfs_dl_init_type init[DFS_DL_NINIT_TYPES];
    size_t init_other;                      /* initialize rows of neither type */
    /* 2. worker processes; 3. GetNext calls */
    dfs_dl_stats workers, getnext;
    /* 4. batch time (µs in stats) */
    const dfs_dl_gap *gaps;                 /* by node, pid, end */
    size_t ngaps;
    size_t batch_groups;                    /* (node, pid) groups with GetNext rows */
    size_t negative_gaps;
    dfs_dl_stats batch;
    /* 5. windows: GetNext outliers first, then batch outliers */
    const dfs_dl_window *windows;
    size_t nwindows;
    size_t windows_skipped;                 /* outliers beyond max_windows */
} dfs_dl_result;

typedef struct dfs_dataloader dfs_dataloader;

/* NULL when a pattern is not a valid regular expression (err says which and why) or out of memory. */
dfs_dataloader *dfs_dl_new(const dfs_dl_options *o, char *err, size_t errlen);
void dfs_dl_free(dfs_dataloader *d);
dfs_consumer *dfs_dl_consumer(dfs_dataloader *d);
/* After dfs_run_read; NULL when out of memory or on a failure. The result lives as long as d. */
const dfs_dl_result *dfs_dl_finish(dfs_dataloader *d, const dfs_run *run);
/* Why there is no result when a set's regular expression or a concept predicate reached its
 * bound (the message names the pattern: analyze/common/predicate.h); NULL otherwise. */
const char *dfs_dl_failure(const dfs_dataloader *d);

/* Text of a label; "" when out of range. */
const char *dfs_dl_label(const dfs_dl_result *r, uint32_t label);

/* Window queries (§1.1). Framework events overlapping [start, end] (ns): kept unless end < start
 * of the window or the window's end < start; system samples with start <= t <= end, only of
 * `type` when not NULL. The count is returned; when out is not NULL it receives a malloc'd array
 * of indices in start order (NULL when the count is 0 or out of memory: check *out). */
size_t dfs_dl_events_in(const dfs_dl_result *r, int64_t start, int64_t end, size_t **out);
size_t dfs_dl_samples_in(const dfs_dl_result *r, const dfs_run *run, int64_t start, int64_t end,
                         const char *type, size_t **out);
/* The analysis for its drivers (analyze/common/analysis.h; dataloader_analysis.c), opt: dfs_dl_options. */
extern const struct dfs_analysis dfs_dataloader_analysis;
#endif
