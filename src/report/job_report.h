/* job_report.h - what `dfscope report` tells about a job, as data: the library builds it from the
 * analyses of one read (report/build.c), the presentation writes it (output/job_report.c).
 *
 * Invariants: the breakdown's parts are disjoint and sum to breakdown_wall_s (the last part,
 * "other", is the remainder and never negative beyond rounding); every insight has evidence, a
 * remedy and a command (insights.h); strings that come from traces (paths, names, where-texts) are
 * raw here and escaped by whoever writes them. */
#ifndef DFS_JOB_REPORT_H
#define DFS_JOB_REPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/insights/insights.h"

enum { DFS_REPORT_MAX_KINDS = 8, DFS_REPORT_MAX_PARTS = 8, DFS_REPORT_MAX_LAYERS = 32, DFS_REPORT_MAX_NOTES = 8,
       DFS_REPORT_MAX_LEFT_OUT = 8 };

/* One kind of input and what the report does with it. */
typedef struct dfs_report_kind {
    const char *name;      /* "DFTracer traces" */
    uint64_t files, events;
    bool analysed;         /* the report's analyses cover it */
    const char *why;       /* when not: why ("no training step found in them") */
    const char *commands;  /* when not: the commands that answer for it */
    uint64_t metadata;     /* of its events (records), the metadata records (process names, ...) */
} dfs_report_kind;

/* One part of the wall-time breakdown. */
typedef struct dfs_report_part {
    const char *id;    /* "compute", "data_wait_exposed", ... (the glossary defines each) */
    const char *label; /* "compute" */
    double seconds;
} dfs_report_part;

/* One layer of the layered analysis (DFTracer inputs). */
typedef struct dfs_report_layer {
    const char *name;
    double wall_s, process_s, busy_s, unoverlapped_s; /* NAN: not measured */
    uint64_t ops;
} dfs_report_layer;

typedef struct dfs_job_report {
    /* the job */
    dfs_report_kind kinds[DFS_REPORT_MAX_KINDS];
    size_t nkinds;
    uint64_t files, events, ranks;
    const char *ranks_what;        /* "processes" or "runs" */
    bool timed;                    /* start and end are on the wall clock */
    int64_t start_ns, end_ns;
    double wall_s;                 /* end - start; NAN without times */
    /* where the wall time goes */
    const char *breakdown_basis;   /* how the parts were measured, one sentence */
    double breakdown_wall_s;       /* what the parts sum to */
    dfs_report_part parts[DFS_REPORT_MAX_PARTS];
    size_t nparts;
    /* the answer */
    char verdict[96];              /* "input-bound, storage-bound" */
    char verdict_why[200];
    dfs_insights insights;
    const dfs_metrics *metrics;
    /* detail */
    dfs_report_layer layers[DFS_REPORT_MAX_LAYERS];
    size_t nlayers;
    const char *preset;
    const char *analyses;          /* "layered, overlap, steps, I/O calls" */
    const char *second_pass;       /* why the inputs were read twice, or NULL */
    const char *notes[DFS_REPORT_MAX_NOTES];
    size_t nnotes;
    const char *more[6];           /* commands that show more, "dfscope overlap: ..." */
    size_t nmore;
    char *const *paths;            /* the inputs as given, for the commands shown */
    int npaths;
    /* inputs given but not read, because they repeat others (a merged trace beside its sources) */
    const char *left_out[DFS_REPORT_MAX_LEFT_OUT], *left_out_why[DFS_REPORT_MAX_LEFT_OUT];
    size_t nleft_out;
    uint64_t metadata;             /* of events (every record read), the metadata records */
} dfs_job_report;
#endif
