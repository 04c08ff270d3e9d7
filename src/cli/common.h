/* common.h - what every reading subcommand shares: input options, path handling, progress,
 * the problem report and the final exit code. */
#ifndef DFS_CLI_COMMON_H
#define DFS_CLI_COMMON_H
#include <stdbool.h>

#include "analyze/common/analysis.h"
#include "analyze/common/preset.h"
#include "analyze/common/preview.h"
#include "cli/streams.h"
#include "dfscope.h"
#include "output/atomic.h"

/* A distributed run's session (common.c): the MPI world and the listing every rank shares. */
typedef struct dfs_cli_dist dfs_cli_dist;

enum { DFS_CLI_MAX_LEFT_OUT = 8 }; /* merged traces an output lists; the others are counted on stderr */

typedef struct dfs_cli_common {
    dfs_options opt;
    int progress;   /* -1 auto, 0 off, 1 on */
    int verbose;
    bool quiet;
    int problems;   /* the problem report: -1 auto (brief on a terminal), 0 brief, 1 full */
    bool mpi_stats; /* --mpi-stats */
    bool mix;       /* --mix: inputs of several jobs are analysed together */
    bool keep_merged; /* --keep-merged: a merged trace beside its sources is read too */
    /* The merged traces left out (dfs_cli_leave_out_merges): each path, and why, for the outputs
     * that list their inputs (the report); owned, freed by dfs_cli_free_left_out. */
    char *left_out[DFS_CLI_MAX_LEFT_OUT], *left_out_why[DFS_CLI_MAX_LEFT_OUT];
    size_t nleft_out;
    /* Refuse inputs of several jobs (dfs_cli_check_jobs): a command that analyses one job
     * (DFS_CLI_JOBS), without --mix. */
    bool one_job;
    double started; /* monotonic seconds when reading started */
    /* Seconds spent by dfs_cli_run_analysis finishing (merging, views; every pass) and writing:
     * what --timing tells apart from the reading. */
    double finish_s, write_s;
    dfs_cli_dist *dist; /* under mpirun/srun (opened by the first distributed step), else NULL */
} dfs_cli_common;

void dfs_cli_common_init(dfs_cli_common *c);
/* Parses sizes such as 512, 64k, 32M, 2G (powers of 1024). */
bool dfs_cli_parse_size(const char *s, uint64_t *out);
/* Creates the run and adds the paths; names every path that is missing. Returns NULL (with
 * *exit_code set) when nothing can be read. *had_bad_path tells if some path was missing. */
dfs_run *dfs_cli_open(dfs_cli_common *c, const char *cmd, char **paths, int npaths, bool *had_bad_path,
                      int *exit_code);
/* Reads with progress, prints the problem report; returns the exit code. */
int dfs_cli_read(dfs_cli_common *c, dfs_run *run, dfs_consumer *const *consumers, size_t n, bool had_bad_path);
double dfs_cli_now(void);
uint64_t dfs_cli_peak_rss_kb(void);
/* What a command's writer gets: the last pass's run, analysis object and result. */
typedef struct dfs_cli_result {
    const dfs_run *run;
    void *obj;
    const void *result;
    bool reran;         /* a second pass ran... */
    const char *reason; /* ...for this reason */
    /* Every file a command writes is opened through it (output/atomic.h): none over an input. */
    dfs_output_guard *guard;
} dfs_cli_result;

/* The most consumers one analysis feeds from a read (dfs_analysis.consumers). */
enum { DFS_CLI_MAX_CONSUMERS = 8 };

/* One analysis run by a command (analyze/common/analysis.h): how to read, check and write. */
typedef struct dfs_cli_job {
    const char *cmd;
    const dfs_analysis *an;
    void *opt;          /* the analysis' options; a second pass changes them (prepare_rerun) */
    const char *output; /* checked not to be an input (may be NULL) */
    /* Optional, instead of the output check: true when some output would overwrite an input. */
    bool (*clashes)(const void *user, const dfs_run *run);
    /* Writes the result; returns an exit code (its failures said on stderr). */
    int (*write)(void *user, const dfs_cli_result *r);
    void *user;
} dfs_cli_job;

/* Reads the paths with the analysis, a second time when the first pass says so (without
 * repeating its problem report), refusing an output over an input, then writes. Distributed
 * under mpirun/srun when the analysis can be. Returns the exit code. */
int dfs_cli_run_analysis(dfs_cli_common *c, char **paths, int npaths, const dfs_cli_job *job);

/* Inputs of several jobs (analyze/common/jobs.h) named on stderr, each with its span and files,
 * and how to go on: DFS_EXIT_USAGE; out of memory (said): DFS_EXIT_OUTPUT; one job or none: -1
 * (mixed.c). dfs_cli_run_analysis calls it after the first pass when c->one_job. */
int dfs_cli_check_jobs(const char *cmd, const dfs_run *run);
/* Before a command that analyses one job reads (merged.c): when an input is a merge of others
 * (read/merges.h) and --keep-merged was not given, *paths and *npaths become the files the paths
 * name less the merges, each merge said on stderr, and *owned the new list (dfs_cli_free_paths);
 * else they are untouched and *owned NULL. -1 to go on, else the exit code (said). */
int dfs_cli_leave_out_merges(const char *cmd, dfs_cli_common *c, char ***paths, int *npaths, char ***owned);
void dfs_cli_free_left_out(dfs_cli_common *c);
void dfs_cli_free_paths(char **paths);

/* True when `output` (may be NULL) names one of the run's input files: never write over an input. */
bool dfs_cli_output_is_input(const dfs_run *run, const char *output);

/* True when the run's times are dates: some input was read and each is on the wall clock
 * (dfs_jobs_on_wall_clock: not relative, not starting before 2000). Tables then print times of day
 * (UTC) from the run's origin; else, the origin being on a clock near 0, they print offsets and say
 * so. */
bool dfs_cli_absolute_clock(const dfs_run *run);

/* ---- distributed runs (docs/MPI.md) ----
 * A command that runs distributed calls dfs_cli_preview (if it previews) or dfs_cli_distributed,
 * then dfs_cli_run_analysis, and returns through dfs_cli_done whatever happened. Started by an MPI
 * launcher with more than one rank, these split the inputs over the ranks and rank 0 writes;
 * otherwise they do exactly what the command did before MPI. */

/* Under an MPI launcher with more than one rank? (Opens the MPI session the first time.) */
bool dfs_cli_distributed(dfs_cli_common *c);
/* Is this the rank that writes and speaks for all (always, without MPI)? */
bool dfs_cli_is_rank0(const dfs_cli_common *c);
/* A step every rank takes on its own (loading a preset file): true when it succeeded on every
 * rank. A failure is said once, "dfscope CMD: WHY", by rank 0 if it failed, else by the ranks that
 * did (a file one node cannot read). A collective under MPI: every rank must call it. */
bool dfs_cli_agree(dfs_cli_common *c, const char *cmd, bool ok, const char *why);
/* The preview (time origin, categories) of every input: by this process, or under MPI of each
 * rank's share, combined, the same on every rank. DFS_EXIT_OK, or the exit code to stop with
 * (reported). `output` is checked not to be an input (MPI: when listing the inputs). */
int dfs_cli_preview(dfs_cli_common *c, const char *cmd, char **paths, int npaths, const char *output,
                    uint64_t bytes, dfs_preview *pv);
/* The end of a command: under MPI every rank agrees on one exit code (rank 0's, unless a rank
 * failed on its own) and MPI is finalised. Returns the code to exit with. */
int dfs_cli_done(dfs_cli_common *c, int rc);
#endif
