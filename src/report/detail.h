/* detail.h - what the report's page draws beyond the job report (job_report.h): the breakdown per
 * rank, the job's time series, the steps of one run, the I/O by size, call and file, the DASF
 * functions and workers, and the input's problems. Built from the report's analyses of the same
 * read (detail.c); the HTML writer (output/report_html.c) draws it.
 *
 * Invariants: every array is bounded by the constants below whatever the input (a long series is
 * merged into at most DFS_DETAIL_BINS or DFS_DETAIL_STEPS display bins, lists keep their top
 * entries and count the rest), so the page's size does not grow with the events; a rank's parts
 * are aligned with the job report's parts and sum to its span; strings from traces are raw here
 * (pointers into the results, which outlive the detail) and escaped by the writer. */
#ifndef DFS_REPORT_DETAIL_H
#define DFS_REPORT_DETAIL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfscope.h"
#include "report/job_report.h"

enum {
    DFS_DETAIL_RANKS = 48,    /* ranks drawn (the longest spans first) */
    DFS_DETAIL_BINS = 160,    /* display bins of the time series */
    DFS_DETAIL_SERIES = 6,    /* layers drawn in the time series */
    DFS_DETAIL_MARKS = 64,    /* epoch marks */
    DFS_DETAIL_STEPS = 160,   /* display bins of the step chart */
    DFS_DETAIL_SIZES = 12,    /* access-size bins */
    DFS_DETAIL_TOP = 10,      /* files, calls, functions, workers listed */
    DFS_DETAIL_PROBLEMS = 12, /* kinds of input problems listed */
    DFS_DETAIL_PICTURE_MAX = 512 << 10, /* bytes of the timeline picture's SVG, else none */
};

typedef struct dfs_detail_rank {
    char label[96];
    double span_s;                        /* what its parts sum to */
    double part_s[DFS_REPORT_MAX_PARTS];  /* aligned with dfs_job_report.parts */
} dfs_detail_rank;

typedef struct dfs_detail_series {
    const char *name;              /* a layer of the preset */
    double busy[DFS_DETAIL_BINS];  /* process-seconds per second of the bin: mean busy processes */
} dfs_detail_series;

/* The job over time (DFTracer inputs: the layered analysis's time bins). */
typedef struct dfs_detail_time {
    size_t n;                      /* display bins; 0: no series */
    double bin_s;                  /* width of one display bin */
    dfs_detail_series layers[DFS_DETAIL_SERIES];
    size_t nlayers;
    const char *io_layer;          /* the sized layer the bandwidth and operations are of; NULL: none */
    double bytes_per_s[DFS_DETAIL_BINS], ops_per_s[DFS_DETAIL_BINS];
    double marks_s[DFS_DETAIL_MARKS]; /* epoch starts, seconds from the job's start */
    size_t nmarks;
} dfs_detail_time;

typedef struct dfs_detail_step {
    int64_t first, last;           /* the step numbers the bin covers */
    double step_s, wait_s;         /* its slowest step and that step's data wait not hidden */
    bool outlier;                  /* at least twice the median step */
    bool epoch_start;              /* a new epoch starts in the bin */
} dfs_detail_step;

/* The steps of one run: the one holding the slowest step. */
typedef struct dfs_detail_steps {
    char run[128];
    size_t n, total;               /* display bins; the run's steps */
    size_t per_bin;                /* steps merged into one bin */
    double median_s;
    bool have_wait;
    int64_t slowest;               /* its number */
    double slowest_s;
    bool past_warmup;              /* warm-up and last steps were left out of that choice (and slower) */
    dfs_detail_step v[DFS_DETAIL_STEPS];
} dfs_detail_steps;

typedef struct dfs_detail_named {
    const char *name;
    uint64_t count, bytes;
    double s;
} dfs_detail_named;

typedef struct dfs_detail_io {
    const char *size_layer;        /* the layer whose access sizes are binned; NULL: no sizes */
    char size_label[DFS_DETAIL_SIZES][24];
    uint64_t size_count[DFS_DETAIL_SIZES];
    size_t nsizes;
    dfs_detail_named calls[DFS_DETAIL_TOP];
    size_t ncalls, calls_total;
    double read_s, write_s, metadata_s, other_s;
    uint64_t read_bytes, write_bytes;
    dfs_detail_named files_by_time[DFS_DETAIL_TOP], files_by_bytes[DFS_DETAIL_TOP];
    size_t nfiles, files_total;
} dfs_detail_io;

typedef struct dfs_detail_dasf {
    char function_label[DFS_DETAIL_TOP][112];
    double function_s[DFS_DETAIL_TOP];
    size_t nfunctions, functions_total;
    char worker_label[DFS_DETAIL_RANKS][112];
    double worker_s[DFS_DETAIL_RANKS];
    size_t nworkers, workers_total;
    double path_s, wall_s;
    size_t path_tasks;
} dfs_detail_dasf;

/* The GPU analysis the report runs on its profiler traces (report.h): per rank, the device's time
 * (temporal), by kernel type and its idle time by cause, summed over the streams. */
typedef struct dfs_detail_gpu_rank {
    long long rank;
    double compute_s, other_busy_s, idle_s;
    double type_s[8];              /* by DFS_GPU_KTYPE mask: computation 1, communication 2, memory 4, overlaps */
    double idle_cause_s[3];        /* host wait, kernel wait, other */
} dfs_detail_gpu_rank;

typedef struct dfs_detail_gpu {
    dfs_detail_gpu_rank ranks[DFS_DETAIL_RANKS];
    size_t nranks, ranks_total, no_device;
} dfs_detail_gpu;

typedef struct dfs_detail_problem {
    const char *code;
    uint64_t count;
    bool damage;
    const char *file;              /* the first example's file; NULL without one */
    uint64_t line, offset;
    char detail[96];
} dfs_detail_problem;

typedef struct dfs_report_detail {
    dfs_detail_rank ranks[DFS_DETAIL_RANKS];
    size_t nranks, ranks_total;
    dfs_detail_time time;
    dfs_detail_steps steps;
    dfs_detail_io io;
    bool have_io;
    dfs_detail_dasf dasf;
    bool have_dasf;
    dfs_detail_gpu gpu;
    bool have_gpu;
    /* the timeline picture of the slowest step (an SVG document, drawn by the timeline analysis on
     * another read: cmd_report.c), at most DFS_DETAIL_PICTURE_MAX bytes, owned by whoever set it;
     * NULL: none */
    char *timeline_svg;
    size_t timeline_len;
    char timeline_what[200];
    dfs_detail_problem problems[DFS_DETAIL_PROBLEMS];
    size_t nproblems;
} dfs_report_detail;

struct dfs_report_results;
struct dfs_gpu_result;
/* Whether the inputs hold device events (the steps' Kineto runs counted some): the page's GPU
 * section then shows the GPU analysis' result. */
bool dfs_report_detail_wants_gpu(const struct dfs_report_results *r);
/* The GPU section from the GPU analysis's result (temporal, kernels and idle sections). */
void dfs_report_detail_gpu(const struct dfs_gpu_result *g, dfs_report_detail *d);
/* Fills d from the analyses' results for the report rep built from them. Allocation-free beyond
 * temporaries; false when out of memory. */
bool dfs_report_detail_build(const dfs_run *run, const struct dfs_report_results *r, const dfs_job_report *rep,
                             dfs_report_detail *d);
#endif
