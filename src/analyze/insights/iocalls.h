/* iocalls.h - the I/O calls of a run, by call name: how many, how long, how many bytes, and how
 * many moved under 4 KiB and under 1 MiB (the report's small-request and metadata rules); by the
 * file they name, the hot file and the median bytes per file (its file rules); the access pattern
 * of the reads and writes that carry an offset (args.offset: pread, pwrite and the like), per file
 * and process; and the bandwidth each process achieves in its reads and writes.
 *
 * Access pattern: a process's data calls on one file, in time order, each but the first compared
 * with the one before: sequential when it starts at or after where that one ended (offset + size:
 * consecutive, or forward over a gap), random when it starts before (a seek back). Calls without an offset take no part (a trace without offsets has no pattern: the
 * report says "not evaluated", never "sequential").
 * Bandwidth of a process (host and pid): Σ bytes moved by its read and write calls over Σ their
 * durations.
 *
 * An I/O call is a complete event with a duration whose category starts with "posix" or "stdio"
 * (any case): DFTracer's POSIX and STDIO layers. Its size is what a read or write returned (args.ret
 * above 0), else args.size, as the layered analysis sizes them.
 * Invariants: results do not depend on -j (workers merge by name content, calls are ordered by
 * time, then name; the hot file's ties by name); memory grows with distinct call and file names. */
#ifndef DFS_IOCALLS_H
#define DFS_IOCALLS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfscope.h"

typedef struct dfs_iocall {
    const char *name;
    uint64_t count, dur_ns;
    uint64_t sized, bytes;             /* calls with a size; Σ size */
    uint64_t under_4k, under_4k_dur_ns; /* sized calls moving < 4096 bytes */
    uint64_t under_1m, under_1m_dur_ns; /* < 1 MiB */
} dfs_iocall;

enum { DFS_IOCALLS_TOP_FILES = 10 };

/* One file the calls name: its I/O time and bytes. */
typedef struct dfs_iocall_file {
    const char *name;
    uint64_t dur_ns, bytes;
} dfs_iocall_file;

typedef struct dfs_iocalls_result {
    const dfs_iocall *calls; /* most time first */
    size_t ncalls;
    dfs_iocall total;        /* name "all" */
    /* by the file the calls name (their resolved file name; calls without one are left out) */
    uint64_t files;          /* distinct files */
    const char *hot_file;    /* the file with the most I/O time (ties: the first by name); NULL without files */
    uint64_t hot_file_dur_ns, named_dur_ns; /* its time; the time of the calls that name a file */
    double median_file_bytes; /* the median over the files of the bytes moved; NAN without files */
    /* access pattern (0 pattern_ops: no data call with an offset followed another on its file) */
    uint64_t pattern_ops, random_ops, random_dur_ns;
    const char *random_file;  /* the file with the most random-access time; NULL without one */
    uint64_t random_file_ops, random_file_pattern_ops, random_file_dur_ns;
    /* bandwidth per process, over the processes whose reads and writes moved bytes */
    uint64_t bw_processes;
    const char *bw_slowest;   /* "host:pid" of the lowest bandwidth (ties: the first by name) */
    double bw_min, bw_median; /* bytes per second */
    uint64_t bw_slowest_bytes, bw_slowest_dur_ns;
    uint64_t bw_bytes;        /* Σ bytes of those processes' reads and writes */
    /* the files with the most time, and with the most bytes, at most DFS_IOCALLS_TOP_FILES of each
     * (ties: by name); for the report's page */
    dfs_iocall_file top_by_time[DFS_IOCALLS_TOP_FILES], top_by_bytes[DFS_IOCALLS_TOP_FILES];
    size_t ntop;
} dfs_iocalls_result;

typedef struct dfs_iocalls dfs_iocalls;
dfs_iocalls *dfs_iocalls_new(void);
void dfs_iocalls_free(dfs_iocalls *io);
dfs_consumer *dfs_iocalls_consumer(dfs_iocalls *io);
/* After dfs_run_read; NULL when out of memory. */
const dfs_iocalls_result *dfs_iocalls_finish(dfs_iocalls *io, const dfs_run *run);
/* Is the call a data transfer (read, write and their variants) or metadata (open, close, stat,
 * seek, ...)? Both false for the rest (sync, mmap, ...). */
bool dfs_iocall_is_data(const char *name);
bool dfs_iocall_is_metadata(const char *name);
#endif
