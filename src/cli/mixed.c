/* mixed.c - the refusal of inputs that hold several jobs (analyze/common/jobs.h decides which
 * inputs go together; docs/CLI.md, "Inputs from several jobs").
 *
 * A command that analyses one job (every reading command but merge) reads its inputs, and when
 * they are of several jobs and --mix was not given, writes no result: it names each job (its span
 * on the wall clock, its files) and says how to go on, exit 2. The check runs on the facts the
 * reading already gathered, so refusing costs no second read; single-job inputs are untouched.
 * Paths come from the file system and are escaped for the terminal. */
#include <stdio.h>
#include <string.h>

#include "analyze/common/jobs.h"
#include "cli/common.h"
#include "output/escape.h"
#include "output/format.h"

enum { PATHS_SHOWN = 3 }; /* the paths named per job; the others are counted */

/* A long span in the unit a reader thinks of it in: days, hours, else dfscope's durations. */
static char *human_span(char *buf, size_t n, int64_t ns)
{
    double s = (double)ns / 1e9;
    if (s >= 2 * 86400.0)
        snprintf(buf, n, "%.1f days", s / 86400.0);
    else if (s >= 2 * 3600.0)
        snprintf(buf, n, "%.1f hours", s / 3600.0);
    else
        dfs_fmt_duration(buf, n, ns);
    return buf;
}

/* "job 2: 2020-05-19T23:29:48.000000Z .. 2020-05-19T23:29:52.000000Z (4.000 s), 4 files:" */
static void say_job_head(FILE *err, size_t k, const dfs_job *job)
{
    fprintf(err, "  job %zu: ", k + 1);
    if (job->timed) {
        char a[64], b[64], d[48];
        fprintf(err, "%s .. %s (%s)", dfs_fmt_time(a, sizeof a, job->start_ns), dfs_fmt_time(b, sizeof b, job->end_ns),
                human_span(d, sizeof d, job->end_ns - job->start_ns));
    } else {
        fputs("DASF database '", err);
        dfs_term_escape(dfs_put_file, err, job->identity, job->identity_len);
        fputs("' (per-host clocks)", err);
    }
    fprintf(err, ", %zu file%s:\n", job->count, job->count == 1 ? "" : "s");
}

static void say_job(FILE *err, const dfs_run *run, const dfs_jobs *jobs, size_t k)
{
    const dfs_job *job = &jobs->v[k];
    say_job_head(err, k, job);
    for (size_t i = 0; i < job->count && i < PATHS_SHOWN; i++) {
        fputs("      ", err);
        dfs_term_puts(err, dfs_run_file(run, jobs->inputs[job->first + i])->path);
        fputc('\n', err);
    }
    if (job->count > PATHS_SHOWN)
        fprintf(err, "      and %zu more\n", job->count - PATHS_SHOWN);
}

int dfs_cli_check_jobs(const char *cmd, const dfs_run *run)
{
    dfs_jobs jobs;
    if (!dfs_jobs_of_run(run, &jobs)) {
        fprintf(stderr, "dfscope %s: out of memory\n", cmd);
        return DFS_EXIT_OUTPUT;
    }
    bool mixed = jobs.n > 1;
    if (mixed) {
        fprintf(stderr,
                "dfscope %s: these inputs hold %zu jobs (far apart in time, or of different runs); "
                "their results together would describe none of them, so none is written:\n",
                cmd, jobs.n);
        for (size_t k = 0; k < jobs.n; k++)
            say_job(stderr, run, &jobs, k);
        if (jobs.unplaced)
            fprintf(stderr, "  and %zu file%s without wall-clock times (relative clocks), of no job in particular\n",
                    jobs.unplaced, jobs.unplaced == 1 ? "" : "s");
        fprintf(stderr, "  Analyze one job at a time (name its files or folder), or give --mix to analyze them "
                        "together.\n");
    }
    dfs_jobs_free(&jobs);
    return mixed ? DFS_EXIT_USAGE : -1;
}
