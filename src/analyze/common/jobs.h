/* jobs.h - which of a run's inputs belong to the same job, so that a command can refuse to mix
 * runs that have nothing to do with each other (a folder of several training runs, two unrelated
 * DASF databases): their results together are an answer to no question.
 *
 * Two facts place an input, and nothing else (docs/CLI.md, "Inputs from several jobs"):
 *   - its span (dfs_file_info.have_span) when its clock is absolute: sorted by start, an input
 *     opens a new job when it starts more than DFS_JOBS_MIN_GAP_NS, or the job's own span if that
 *     is longer, after the end of the job so far;
 *   - a run identity where the format writes one: a DASF database's name (DASF names a run's
 *     files <name>-TracePlugin-<host>.msgpack and <name>-ResourceMonitor-<host>.msgpack; a DASF
 *     file named otherwise is a database of its own). DASF clocks are per-host monotonic clocks,
 *     so time cannot tell its runs apart.
 * An input with neither (a relative clock, times before 2000, no event with a time) joins no job:
 * it is counted as unplaced and never makes a run mixed. Unreadable inputs and files that are not
 * traces are left out. Jobs are ordered by start, then by identity; a job's inputs keep the run's
 * order. */
#ifndef DFS_JOBS_H
#define DFS_JOBS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfscope.h"

#define DFS_JOBS_MIN_GAP_NS (INT64_C(3600) * 1000000000)
/* 2000-01-01T00:00:00Z: a clock that puts events before it is not a wall clock (a trace starting
 * near 0, a steady clock since boot). */
#define DFS_JOBS_WALL_CLOCK_FLOOR_NS (INT64_C(946684800) * 1000000000)

/* Is file f on a wall clock: an absolute clock (not relative) whose first time, start_abs_ns, is
 * after DFS_JOBS_WALL_CLOCK_FLOOR_NS? Jobs, the report's span and stats' span all ask this. */
static inline bool dfs_jobs_on_wall_clock(const dfs_file_info *f, int64_t start_abs_ns)
{
    return !f->relative_time && start_abs_ns >= DFS_JOBS_WALL_CLOCK_FLOOR_NS;
}

/* What places one input. */
typedef struct dfs_job_input {
    bool timed;               /* start_ns..end_ns is an absolute span */
    int64_t start_ns, end_ns;
    const char *identity;     /* a run identity (not NUL-terminated), or NULL */
    size_t identity_len;
} dfs_job_input;

typedef struct dfs_job {
    size_t first, count;      /* its inputs: dfs_jobs.inputs[first .. first + count) */
    bool timed;               /* placed by time: start_ns..end_ns */
    int64_t start_ns, end_ns;
    const char *identity;     /* else by this identity */
    size_t identity_len;
} dfs_job;

typedef struct dfs_jobs {
    dfs_job *v;
    size_t n;
    size_t *inputs;           /* input indexes, job after job */
    size_t unplaced;          /* inputs that join no job */
} dfs_jobs;

/* Groups n inputs into jobs. False when out of memory (out is then empty). */
bool dfs_jobs_group(const dfs_job_input *in, size_t n, dfs_jobs *out);
/* The jobs of a read run's files (indexes into its file table). False when out of memory. */
bool dfs_jobs_of_run(const dfs_run *run, dfs_jobs *out);
/* The run identity of a DASF file at path: the <name> of DASF's <name>-<plugin>-<host> files,
 * else the file name without its directory and its ".msgpack". Points into path. */
const char *dfs_jobs_dasf_identity(const char *path, size_t *len);
void dfs_jobs_free(dfs_jobs *j);
#endif
