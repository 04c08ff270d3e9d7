/* merge.h - `dfscope merge`: one Chrome trace from many (docs/MERGE.md).
 *
 * Default mode: every event of every input, re-emitted from the parsed dfs_event (all args kept)
 * on one absolute clock, metadata records first and then all events sorted by time. Inputs are
 * not sorted, so the consumer keeps encoded events in per-worker buffers that are sorted and
 * spilled to temporary files whenever the memory budget is reached; writing is a k-way merge of
 * the sorted runs with a heap (with intermediate passes when there are more runs than the
 * budget can buffer). Clocks: each file's own clock (Kineto base time, smdebug start time,
 * DFTracer v2 time_metric), plus the Composer clock-sync shift. Lanes: a pid is a global rank in
 * Composer files and a node in smdebug system metrics; elsewhere it is local to its file, and a
 * pid already taken by another file gets a fresh number (its process name says where it came
 * from). Composer's own merge rules (dropped profiler records, thread_sort_index markers) apply
 * to Composer files.
 *
 * Compatible mode (--compat composer): the byte-exact output of Composer's merge_traces (spec
 * training-loop.md section 2.5, steps 1-7), written from each record's original text in input
 * order; the inputs are read a second time, one after the other.
 *
 * Memory of the default mode: at most `memory` bytes of encoded events while reading (shared
 * between the reading threads), at most `memory` bytes of merge buffers while writing, plus the
 * run's string table (every distinct string of the inputs) and one entry per (file, pid) lane
 * and per (file, pid, tid) thread. */
#ifndef DFS_MERGE_H
#define DFS_MERGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dfscope.h"

#define DFS_MERGE_SCHEMA "dfscope-merge/1"
#define DFS_MERGE_MIN_MEMORY (64u << 10)
#define DFS_MERGE_DEFAULT_MEMORY (256u << 20)

typedef struct dfs_merge_options {
    uint64_t memory;      /* budget in bytes (>= DFS_MERGE_MIN_MEMORY); 0 (the default): 256 MiB,
                             or under an address-space limit (ulimit -v) a quarter of what is left
                             of it, said in the report's warnings */
    const char *tmpdir;   /* where runs are spilled; NULL: $TMPDIR, else /tmp */
    bool compat_composer; /* byte-compatible Composer merge (nothing is buffered) */
} dfs_merge_options;

void dfs_merge_options_init(dfs_merge_options *o);

/* What happened to one input. */
typedef struct dfs_merge_file {
    uint64_t events_in;     /* events read */
    uint64_t events_out;    /* events written (inserted markers not included) */
    uint64_t dropped;       /* Composer rules, records without ph */
    int64_t shift_ns;       /* Composer clock-sync shift applied on top of the file's clock */
    bool composer;          /* read as a Composer file */
    bool has_rank;
    int64_t rank;           /* lowest global_rank of a Composer file */
    bool aligned;           /* false: its times could not be put on the common clock */
    uint32_t lanes;         /* distinct pids */
    uint32_t remapped;      /* of which renumbered because another file had them */
} dfs_merge_file;

typedef struct dfs_merge_report {
    const char *mode;       /* "default" or "composer" */
    uint64_t events_in, events_out, dropped, inserted;
    uint64_t lanes, remapped;
    uint64_t runs_spilled, bytes_spilled;
    unsigned merge_passes;  /* intermediate passes before the final merge */
    bool sub_us;            /* some time has a fraction of a microsecond */
    size_t nfiles;
    dfs_merge_file *files;  /* [nfiles] */
    size_t nwarnings;
    char **warnings;        /* human sentences, e.g. a Composer file without clock sync */
} dfs_merge_report;

typedef struct dfs_merge dfs_merge;

/* NULL (reason in err) when the options are invalid or memory is short. */
dfs_merge *dfs_merge_new(const dfs_merge_options *o, char *err, size_t errlen);
void dfs_merge_free(dfs_merge *m);
/* The consumer to read the inputs with (one run, read once). */
dfs_consumer *dfs_merge_consumer(dfs_merge *m);

/* After dfs_run_read: writes the merged trace to out (the mode chosen at creation). Returns
 * DFS_OK, DFS_ERR_IO (temporary files, or out) or DFS_ERR_NOMEM, with the reason in err. The
 * report (may be NULL) is filled either way; free it with dfs_merge_report_free. */
dfs_status dfs_merge_write(dfs_merge *m, const dfs_run *run, FILE *out, dfs_merge_report *rep,
                           char *err, size_t errlen);
void dfs_merge_report_free(dfs_merge_report *rep);

/* The report as a table (text) or as JSON (schema DFS_MERGE_SCHEMA). */
void dfs_merge_report_text(FILE *out, const dfs_merge_report *rep, const dfs_run *run);
void dfs_merge_report_json(FILE *out, const dfs_merge_report *rep, const dfs_run *run);

/* A FILE that writes to fd, gzip-compressed (ISA-L) when gzip is true; fclose() finishes the
 * stream (its result tells whether every byte was written) and leaves fd open. */
FILE *dfs_merge_sink(int fd, bool gzip);

/* The merge for the reading driver (analyze/common/analysis.h; merge_analysis.c), opt:
 * dfs_merge_options. Its result is the merge itself, to write with dfs_merge_write. */
extern const struct dfs_analysis dfs_merge_analysis;
#endif
