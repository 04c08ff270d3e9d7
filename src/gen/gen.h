/* gen.h - deterministic synthetic DLIO-like training traces (the `dfscope gen` subcommand).
 *
 * One file per rank, written in one of the DFTracer generations or Chrome JSON, with the layout
 * of spec/formats.md section 5: a DLIO application with epochs, steps, data-loader and reader
 * spans, compute, checkpoints, POSIX/STDIO calls underneath with real-looking sizes, offsets and
 * return values, fork pairs and hash metadata. Records are written when a call ends, so parents
 * follow their children and timestamps step backwards as in real traces.
 *
 * Determinism: the bytes of a file depend only on the options (never on the time, the host or the
 * number of threads). Compressed output is deterministic for a given ISA-L build.
 * Memory is bounded (a few MiB per worker) whatever the requested size. */
#ifndef DFS_GEN_H
#define DFS_GEN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum dfs_gen_format {
    DFS_GEN_2023,   /* dlio_profiler 2023: string numbers, clear names, `[` and no `]` */
    DFS_GEN_V1,     /* DFTracer 1.0.8: `[`..`]`, u64 integer hashes, M records with hhash */
    DFS_GEN_V1_H16, /* DFTracer develop 2024: 16-bit integer hashes */
    DFS_GEN_V2,     /* DFTracer 2.x NDJSON: integer ph, type, hex hashes, aggregated + counters */
    DFS_GEN_CHROME, /* Chrome object form {"traceEvents":[...]} */
    DFS_GEN__COUNT
} dfs_gen_format;

typedef enum dfs_gen_workload {
    DFS_GEN_UNET3D,   /* few large NPZ samples per step, long compute */
    DFS_GEN_RESNET50, /* many small JPEG samples per step, short compute */
    DFS_GEN__WORKLOADS
} dfs_gen_workload;

typedef struct dfs_gen_options {
    const char *out_dir;       /* created when missing */
    dfs_gen_format format;     /* default DFS_GEN_V1 */
    dfs_gen_workload workload; /* default DFS_GEN_UNET3D */
    unsigned ranks;            /* files, one per rank (default 8) */
    uint64_t total_bytes;      /* uncompressed bytes across all files; 0: use events_per_rank */
    uint64_t events_per_rank;  /* records per file when total_bytes is 0 (default 20000) */
    uint64_t seed;             /* default 1 */
    bool gzip;                 /* .gz output; v2 is multi-member (one member per member_bytes) */
    uint64_t member_bytes;     /* text per gzip member for v2 (default 16 MiB) */
    int jobs;                  /* files written in parallel; <= 0: one per core */
} dfs_gen_options;

typedef struct dfs_gen_file {
    char *path;             /* final path */
    uint64_t records;       /* JSON records written (metadata included) */
    uint64_t bytes;         /* uncompressed bytes */
    uint64_t disk_bytes;    /* bytes on disk */
    uint32_t gzip_members;  /* 0 when not compressed */
} dfs_gen_file;

typedef struct dfs_gen_report {
    dfs_gen_file *files;    /* in rank order */
    size_t nfiles;
    uint64_t records, bytes, disk_bytes;
    double seconds;         /* wall time of the generation */
} dfs_gen_report;

void dfs_gen_options_init(dfs_gen_options *o);

/* Writes every file (each to a temporary name renamed into place). Returns a dfs_status:
 * DFS_ERR_USAGE for invalid options, DFS_ERR_IO when a file cannot be written, DFS_ERR_NOMEM.
 * On failure err holds a one-line reason and no partial file is left behind. `out` may be NULL;
 * otherwise free it with dfs_gen_report_free (also after a failure). */
int dfs_gen_write(const dfs_gen_options *o, dfs_gen_report *out, char *err, size_t errlen);
void dfs_gen_report_free(dfs_gen_report *r);

/* File name of a rank's output (no directory), e.g. "trace-3-of-8.pfw.gz". Returns the length
 * that was needed (as snprintf). */
int dfs_gen_file_name(const dfs_gen_options *o, unsigned rank, char *buf, size_t cap);

const char *dfs_gen_format_name(dfs_gen_format f);       /* "2023", "v1", ... */
bool dfs_gen_parse_format(const char *s, dfs_gen_format *out);
const char *dfs_gen_workload_name(dfs_gen_workload w);   /* "unet3d", "resnet50" */
bool dfs_gen_parse_workload(const char *s, dfs_gen_workload *out);
/* "4096", "128M", "2G", "1.5G", "64KiB": binary multiples (k = 1024). False on junk or zero. */
bool dfs_gen_parse_size(const char *s, uint64_t *out);
#endif
