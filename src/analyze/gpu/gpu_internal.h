/* gpu_internal.h - what the files of the gpu analysis share: the rows kept of every input, the
 * device work a rank's sections measure, and HTA's unstable sort (gpu_ssort.c).
 *
 * Invariants: rows of a file are in file order (by offset) once gpu_finish sorted them; times are
 * ns (whole µs times 1000 once HTA's rounding applied). */
#ifndef DFS_GPU_INTERNAL_H
#define DFS_GPU_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "analyze/gpu/gpu.h"
#include "util/arena.h"
#include "util/vec.h"

/* A complete event with a category, as HTA keeps them (a duration, a category other than Trace). */
typedef struct gpu_row {
    int64_t ts, dur;
    uint64_t offset;     /* its place in the file: HTA's row index order */
    int64_t stream;      /* args.stream when a number, else -1 */
    int64_t corr;        /* args.correlation, else -1 */
    dfs_str name, cat;
    double bw;           /* args["memory bandwidth (GB/s)"], else 0 */
    int64_t pid, tid;
    int64_t wait_stream, wait_corr; /* a CUDA event wait's args: the stream and the correlation of
                                       the cudaEventRecord it waits on, -1 none */
    uint32_t file;
    uint8_t kind;        /* dfs_gpu_kind */
} gpu_row;

/* The arg of a copy's bandwidth, as Kineto writes it. */
#define GPU_BW_ARG "memory bandwidth (GB/s)"
#define GPU_WAIT_STREAM_ARG "wait_on_stream"
#define GPU_WAIT_CORR_ARG "wait_on_cuda_event_record_corr_id"

/* A piece of device work a rank's sections measure. */
typedef struct gpu_work {
    int64_t ts, end;
    const char *name;
    size_t name_len;
    dfs_gpu_ktype type;
    int64_t stream;
    int64_t launch_ts;   /* the start of the launch that queued it, when known */
    bool has_launch;
    bool queued;         /* a kernel, copy or set: what the idle breakdown walks */
    int64_t corr;        /* args.correlation, -1 none */
    double bw;           /* GB/s of a copy or set */
    size_t order;        /* its row's place in the rank's rows (hta: after the filter's reordering) */
    int64_t pid, tid;    /* its lane (a GPU user annotation's too) */
} gpu_work;

/* A runtime call that launched device work (a launch of the shared list with a device event of its
 * correlation in the trace). */
typedef struct gpu_launch {
    int64_t ts, corr;
} gpu_launch;

/* pandas' describe() of v[0..n) (sorts v): count, mean, std (n-1), min, quartiles, max; NaN
 * where there is no value. */
void gpu_describe(double *v, size_t n, dfs_gpu_stats *s);

/* The queue lengths of one rank (launches in row order; reorders w). */
bool gpu_queue(const dfs_gpu_options *o, const gpu_launch *l, size_t nl, gpu_work *w, size_t n, dfs_gpu_rank *out,
               dfs_arena *keep);

/* A host event with a correlation (the launch side of the launch statistics). */
typedef struct gpu_host {
    int64_t ts, dur, corr;
    bool listed; /* one of the launch calls the statistics are about */
} gpu_host;

/* The launch statistics of one rank: pairs of a host event and a device event of one correlation
 * that a listed call has; and their outlier classes (o's thresholds). */
bool gpu_launch_stats(const dfs_gpu_options *o, const gpu_host *h, size_t nh, const gpu_work *w, size_t n,
                      dfs_gpu_rank *out, dfs_arena *keep);

/* The by-name breakdown of one rank's GPU user annotations a[0..na) (reordered; types overwritten)
 * and the attribution of its device work w[0..n) to them (gpu_annotated.c). */
bool gpu_annotations(const dfs_gpu_options *o, gpu_work *a, size_t na, const gpu_work *w, size_t n,
                     dfs_gpu_rank *out, dfs_arena *keep);
/* Each piece of device work w[0..n) to the shortest annotation a[0..na) of its (pid, tid) that
 * overlaps it (a reordered by row order); per annotation name, the work's count and time, and the
 * work in none (out->annotated). */
bool gpu_annotated_kernels(const dfs_gpu_options *o, gpu_work *a, size_t na, const gpu_work *w, size_t n,
                           dfs_gpu_rank *out, dfs_arena *keep);

/* The memory bandwidth per kind of copy of one rank (reorders w). */
bool gpu_membw(const dfs_gpu_options *o, gpu_work *w, size_t n, dfs_gpu_rank *out, dfs_arena *keep);

/* A row's place by its correlation (sorted by correlation, then place). */
typedef struct gpu_corr_pos {
    int64_t corr;
    size_t pos;
} gpu_corr_pos;
int gpu_cmp_corr_pos(const void *a, const void *b);

/* In an array of n items of `size` bytes sorted by their leading int64: the first item not below
 * key (n when none). */
size_t gpu_lower_bound(const void *base, size_t n, size_t size, int64_t key);
/* Sorts n items of `size` bytes by their leading int64 (a time) as numpy's argsort(kind="quicksort")
 * orders them; false when out of memory (the items are then untouched). */
bool gpu_ssort_items(void *items, size_t n, size_t size);

/* numpy 1.24's argsort(kind="quicksort") of keys v: the permutation into p (n entries). */
void gpu_ssort(const int64_t *v, size_t *p, size_t n);
/* pandas' sort_values(ascending=False) on top of it. */
void gpu_ssort_desc(const int64_t *v, size_t *p, size_t n);

/* numpy's around(x, d): rint(x * 10^d) / 10^d. */
double gpu_around(double x, int d);

/* The idle breakdown of one rank (reorders w). */
bool gpu_idle(const dfs_gpu_options *o, gpu_work *w, size_t n, dfs_gpu_rank *out, dfs_arena *keep);

#define GPU_NO_ROW SIZE_MAX

/* What the consumer keeps of the inputs (a worker's, then every worker's; under MPI every merged
 * rank's: gpu_pack.c). Rows in any order: dfs_gpu_finish sorts them by (file, offset), which is
 * why neither threads nor ranks change the answer. */
typedef struct gpu_kept {
    DFS_VEC(gpu_row) rows;
    DFS_VEC(bool) fractional; /* per file: a timestamp with a fraction of a µs (HTA rounds the file) */
    DFS_VEC(uint64_t) first;  /* per file: 1 + the offset of its first event (HTA's row #0), 0 none */
    bool oom;
} gpu_kept;

gpu_kept *gpu_kept_of(dfs_gpu *g);
/* The file has a timestamp with a fraction of a µs / an event at this offset (sets oom on failure). */
void gpu_note_fraction(gpu_kept *k, uint32_t file);
void gpu_note_first(gpu_kept *k, uint32_t file, uint64_t offset);

/* A row of a rank as the critical path and the kernel sequences read it, in the rank's row order (hta: after the
 * last-iteration filter's reordering; a row it keeps twice is here once). */
typedef struct gpu_cp_row {
    int64_t ts, dur;
    uint64_t index;      /* its place in the file: HTA's index */
    int64_t stream, corr, pid, tid, wait_stream, wait_corr;
    size_t partner;      /* HTA's index_correlation: the launch of a device row, the device row of
                            a launch (positions here), GPU_NO_ROW none */
    const char *name, *cat;
} gpu_cp_row;

/* A step's rows span [min_ts, max_end) (empty: min_ts > max_end). */
typedef struct gpu_iter_span {
    int64_t iter, min_ts, max_end;
} gpu_iter_span;

/* A collective kernel in a step. */
typedef struct gpu_coll {
    int64_t iter, stream, ts, dur;
    const char *name;
} gpu_coll;

struct gpu_strag_rank {
    int64_t *steps;      /* the profiler steps of the rank, ascending */
    size_t nsteps;
    gpu_iter_span *spans; /* per step */
    size_t nspans;
    gpu_coll *colls;     /* in row order */
    size_t ncolls;
};
typedef struct gpu_strag_rank gpu_strag_rank;

/* What straggler detection needs of one rank (out->strag); false when out of memory. */
bool gpu_straggler_rows(const gpu_cp_row *r, size_t n, dfs_gpu_rank *out, dfs_arena *keep);
/* Straggler detection across the ranks of res (res->stragglers); false when out of memory. */
bool gpu_stragglers(const dfs_gpu_options *o, dfs_gpu_result *res, dfs_arena *keep);

/* The frequent kernel sequences of one rank (out->seqs); false when out of memory. */
bool gpu_sequences(const dfs_gpu_options *o, const gpu_cp_row *r, size_t n, dfs_gpu_rank *out, dfs_arena *keep);

/* The critical path of one rank (out->cpath); false when out of memory. */
bool gpu_cpath(const dfs_gpu_options *o, const gpu_cp_row *r, size_t n, dfs_gpu_rank *out, dfs_arena *keep);

/* The sections of one rank from its device work (sorted by nothing in particular; reordered). */
bool gpu_sections(const dfs_gpu_options *o, gpu_work *w, size_t n, dfs_gpu_rank *out, dfs_arena *keep);
#endif
