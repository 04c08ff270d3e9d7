#include "cli/common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "analyze/common/jobs.h"
#include "cli/capture.h"
#include "cli/cli.h"
#include "dist/dist.h"
#include "output/atomic.h"
#include "output/diagnostics.h"

void dfs_cli_common_init(dfs_cli_common *c)
{
    memset(c, 0, sizeof *c);
    dfs_options_init(&c->opt);
    dfs_cli_capture_options(&c->opt);
    c->progress = -1;
    c->problems = -1;
}

int dfs_cli_parse_jobs(const char *s, int *jobs)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 1 || v > 1024)
        return -1;
    *jobs = (int)v;
    return 0;
}

bool dfs_cli_parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-')
        return false;
    int shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: return false;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || (shift && v > (UINT64_MAX >> shift)))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

double dfs_cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t dfs_cli_peak_rss_kb(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss : 0;
}

/* The bytes read, and for decompressed input the file bytes they came from; the time left is
 * estimated from the file bytes, which are what there is to do whatever the compression. */
static void show_progress(void *ctx, uint64_t files_done, uint64_t files_total, uint64_t bytes_done,
                          uint64_t disk_done, uint64_t disk_total)
{
    dfs_cli_common *c = ctx;
    double elapsed = dfs_cli_now() - c->started;
    double rate = elapsed > 0 ? (double)bytes_done / elapsed : 0;
    double disk_rate = elapsed > 0 ? (double)disk_done / elapsed : 0;
    double left = disk_rate > 0 && disk_total > disk_done ? (double)(disk_total - disk_done) / disk_rate : 0;
    fprintf(stderr, "\r\033[Kdfscope: %llu/%llu files, ", (unsigned long long)files_done,
            (unsigned long long)files_total);
    if (bytes_done == disk_done)
        fprintf(stderr, "%.0f of %.0f MB", (double)bytes_done / 1e6, (double)disk_total / 1e6);
    else
        fprintf(stderr, "%.0f MB decompressed from %.1f of %.1f MB", (double)bytes_done / 1e6,
                (double)disk_done / 1e6, (double)disk_total / 1e6);
    fprintf(stderr, ", %.0f MB/s, ~%.0f s left", rate / 1e6, files_done == files_total ? 0.0 : left);
    if (files_done == files_total)
        fprintf(stderr, "\r\033[K");
    fflush(stderr);
}

dfs_run *dfs_cli_open(dfs_cli_common *c, const char *cmd, char **paths, int npaths, bool *had_bad_path,
                      int *exit_code)
{
    *had_bad_path = false;
    if (npaths == 0) {
        fprintf(stderr, "dfscope %s: no input given (see 'dfscope %s --help')\n", cmd, cmd);
        *exit_code = DFS_EXIT_USAGE;
        return NULL;
    }
    if (c->progress == 1 || (c->progress == -1 && isatty(fileno(stderr)))) {
        c->opt.progress = show_progress;
        c->opt.progress_ctx = c;
    }
    dfs_run *run = dfs_run_new(&c->opt);
    if (!run) {
        fprintf(stderr, "dfscope %s: out of memory\n", cmd);
        *exit_code = DFS_EXIT_OUTPUT;
        return NULL;
    }
    for (int i = 0; i < npaths; i++) {
        dfs_status st = dfs_run_add_path(run, paths[i]);
        if (st == DFS_ERR_NOMEM) {
            fprintf(stderr, "dfscope %s: out of memory\n", cmd);
            dfs_run_free(run);
            *exit_code = DFS_EXIT_OUTPUT;
            return NULL;
        }
        if (st != DFS_OK) {
            fprintf(stderr, "dfscope %s: %s\n", cmd, dfs_run_error(run));
            *had_bad_path = true;
        }
    }
    if (dfs_run_file_count(run) == 0) {
        if (!*had_bad_path)
            fprintf(stderr, "dfscope %s: no files found in the given paths\n", cmd);
        dfs_run_free(run);
        *exit_code = DFS_EXIT_USAGE;
        return NULL;
    }
    return run;
}

static void print_rank_stats(const dfs_dist_rank_stats *s, int size)
{
    fprintf(stderr,
            "dfscope: mpi rank %u/%d: pieces=%llu bytes=%llu events=%llu read_s=%.3f combine_s=%.3f sent=%llu\n",
            s->rank, size, (unsigned long long)s->pieces, (unsigned long long)s->bytes,
            (unsigned long long)s->events, s->read_s, s->combine_s, (unsigned long long)s->sent);
}

/* --mpi-stats without MPI: the one rank's line. */
static void print_single_stats(const dfs_run *run, double read_s)
{
    dfs_dist_rank_stats s = {.read_s = read_s};
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        const dfs_file_info *f = dfs_run_file(run, i);
        s.pieces++;
        s.bytes += f->bytes;
        s.events += f->records;
    }
    print_rank_stats(&s, 1);
}

/* On a terminal the problem report comes after the results, where it is seen, and brief unless
 * --problems full says otherwise; into a file or a pipe it comes in full as soon as the inputs
 * are read, as it always did. */
static bool report_later(void)
{
    return isatty(fileno(stderr));
}

static void report(const dfs_cli_common *c, const dfs_run *run)
{
    if (c->quiet || !run)
        return;
    if (c->problems == 0 || (c->problems < 0 && report_later()))
        dfs_report_problems_brief(stderr, run, c->verbose, c->opt.dedup, "every example: --problems full");
    else
        dfs_report_problems(stderr, run, c->verbose, c->opt.dedup);
}

int dfs_cli_read(dfs_cli_common *c, dfs_run *run, dfs_consumer *const *consumers, size_t n, bool had_bad_path)
{
    c->started = dfs_cli_now();
    int code = dfs_run_read(run, consumers, n);
    if (c->mpi_stats)
        print_single_stats(run, dfs_cli_now() - c->started);
    if (code == DFS_EXIT_OUTPUT)
        fprintf(stderr, "dfscope: out of memory while reading; no result is written\n");
    if (!report_later())
        report(c, run);
    if (had_bad_path && code != DFS_EXIT_OUTPUT)
        code = DFS_EXIT_USAGE;
    return code;
}

bool dfs_cli_output_is_input(const dfs_run *run, const char *output)
{
    return output && dfs_run_holds_file(run, output);
}

bool dfs_cli_absolute_clock(const dfs_run *run)
{
    bool any = false;
    for (size_t i = 0; run && i < dfs_run_file_count(run); i++) {
        const dfs_file_info *fi = dfs_run_file(run, i);
        if (!fi || fi->unreadable || !fi->records)
            continue;
        if (fi->relative_time) /* a clock near 0 would put the run's origin, and every label, in 1970 */
            return false;
        if (fi->have_span && !dfs_jobs_on_wall_clock(fi, dfs_file_abs_ns(fi, fi->span_start_ns)))
            return false;
        any = true;
    }
    return any;
}

/* Would writing overwrite an input? Said on stderr when so. */
static bool refuses_output(const dfs_cli_job *job, const dfs_run *run)
{
    if (job->clashes ? !job->clashes(job->user, run) : !dfs_cli_output_is_input(run, job->output))
        return false;
    if (job->clashes)
        fprintf(stderr, "dfscope %s: refusing to write an output over one of the inputs\n", job->cmd);
    else
        fprintf(stderr, "dfscope %s: refusing to write the output over the input %s\n", job->cmd, job->output);
    return true;
}

/* Did the input void the analysis' result (analysis.h: failure)? Said; the exit code is 2. */
static bool refused(const dfs_cli_job *job, void *obj, int *rc)
{
    const char *why = job->an->failure ? job->an->failure(obj) : NULL;
    if (!why)
        return false;
    fprintf(stderr, "dfscope %s: %s\n", job->cmd, why);
    *rc = DFS_EXIT_USAGE;
    return true;
}

/* Did the pass end without a result, and without a reason to read again? */
static bool out_of_memory(const dfs_analysis *an, void *obj, const void *result)
{
    return !result && !(an->needs_rerun && an->needs_rerun(obj));
}

/* Writes through the job's writer, timed for --timing; the exit code is rc unless writing fails. */
static int write_result(dfs_cli_common *c, const dfs_cli_job *job, const dfs_cli_result *r, int rc)
{
    double t0 = dfs_cli_now();
    int wrc = job->write(job->user, r);
    c->write_s += dfs_cli_now() - t0;
    return wrc != DFS_EXIT_OK ? wrc : rc;
}

/* Finishes a pass, timed for --timing: false when out of memory (said, and *rc set). */
static bool finish_pass(dfs_cli_common *c, const dfs_cli_job *job, void *obj, const dfs_run *run,
                        const void **result, int *rc)
{
    double t0 = dfs_cli_now();
    *result = job->an->finish(obj, run);
    c->finish_s += dfs_cli_now() - t0;
    if (refused(job, obj, rc)) {
        *result = NULL;
        return false;
    }
    if (!out_of_memory(job->an, obj, *result))
        return true;
    fprintf(stderr, "dfscope %s: out of memory\n", job->cmd);
    *rc = DFS_EXIT_OUTPUT;
    return false;
}

typedef struct pass {
    dfs_run *run;
    void *obj;
    const void *result;
    int rc;
} pass;

static void pass_free(const dfs_analysis *an, pass *p)
{
    if (p->obj)
        an->destroy(p->obj);
    dfs_run_free(p->run);
    memset(p, 0, sizeof *p);
}

/* One reading pass; p->result is NULL when a rerun is needed or on failure (p->rc says which). */
static bool run_pass(dfs_cli_common *c, char **paths, int npaths, const dfs_cli_job *job, pass *p)
{
    const dfs_analysis *an = job->an;
    bool bad_path;
    p->run = dfs_cli_open(c, job->cmd, paths, npaths, &bad_path, &p->rc);
    if (!p->run)
        return false;
    if (refuses_output(job, p->run)) {
        p->rc = DFS_EXIT_USAGE;
        return false;
    }
    char err[512];
    p->obj = an->create(job->opt, err, sizeof err);
    if (!p->obj) {
        fprintf(stderr, "dfscope %s: %s\n", job->cmd, err);
        p->rc = DFS_EXIT_USAGE;
        return false;
    }
    dfs_consumer *consumers[DFS_CLI_MAX_CONSUMERS] = {NULL};
    size_t n = an->consumers ? an->consumers(p->obj, consumers, DFS_CLI_MAX_CONSUMERS) : 1;
    if (!an->consumers)
        consumers[0] = an->consumer(p->obj);
    p->rc = dfs_cli_read(c, p->run, consumers, n, bad_path);
    return p->rc != DFS_EXIT_OUTPUT && finish_pass(c, job, p->obj, p->run, &p->result, &p->rc);
}

static int dist_run_analysis(dfs_cli_common *c, char **paths, int npaths, const dfs_cli_job *job);

int dfs_cli_run_analysis(dfs_cli_common *c, char **paths, int npaths, const dfs_cli_job *job)
{
    const dfs_analysis *an = job->an;
    if (dfs_analysis_distributed(an) && dfs_cli_distributed(c))
        return dist_run_analysis(c, paths, npaths, job);
    pass p = {0}, again = {0};
    dfs_file_clock *clocks = NULL;
    const char *reason = NULL;
    bool ok = run_pass(c, paths, npaths, job, &p);
    int rc = p.rc;
    int mixed = ok && c->one_job ? dfs_cli_check_jobs(job->cmd, p.run) : -1;
    if (mixed >= 0) { /* said: no result, no second pass */
        ok = false;
        rc = mixed;
    }
    const void *r = ok ? p.result : NULL;
    if (ok && !r) {
        clocks = dfs_run_final_clocks(p.run);
        reason = clocks ? an->prepare_rerun(p.obj, p.run, clocks, job->opt) : NULL;
        bool quiet = c->quiet;
        c->quiet = true;
        ok = clocks && run_pass(c, paths, npaths, job, &again);
        c->quiet = quiet;
        r = again.result;
        if (ok && !r) { /* the facts of the first pass must settle the second: a bug if not */
            fprintf(stderr, "dfscope %s: internal error: the second pass did not settle (%s)\n", job->cmd,
                    reason ? reason : "?");
            ok = false;
            again.rc = DFS_EXIT_OUTPUT;
        }
        if (!ok)
            rc = again.rc ? again.rc : DFS_EXIT_OUTPUT;
    }
    if (ok && r) {
        const pass *last = again.obj ? &again : &p;
        dfs_output_guard guard = {.inputs = last->run};
        const dfs_cli_result res = {last->run, last->obj, r, again.obj != NULL, reason, &guard};
        rc = write_result(c, job, &res, rc);
    }
    if (report_later()) /* the first pass's problems: the second pass reads the same input */
        report(c, p.run);
    pass_free(an, &again);
    pass_free(an, &p);
    free(clocks);
    return rc;
}

/* ===== distributed runs (docs/MPI.md) ============================================================= */

struct dfs_cli_dist {
    dfs_comm *comm;
    int rank, size;
    bool listed;
    dfs_dist_listing listing;
};

static const char *rc_meaning(int rc)
{
    switch (rc) {
    case DFS_EXIT_OK: return "ok";
    case DFS_EXIT_DAMAGED: return "damaged input skipped";
    case DFS_EXIT_USAGE: return "usage error or unreadable input";
    case DFS_EXIT_STRICT: return "--strict and damage found";
    default: return "output error, out of memory or a failed rank";
    }
}

/* The session, opened the first time (MPI_Init) when started by an MPI launcher; NULL otherwise
 * or when MPI cannot start (then the command runs as one process, and says why). */
static dfs_cli_dist *session(dfs_cli_common *c)
{
    if (c->dist || !dfs_comm_launched())
        return c->dist;
    char err[256];
    dfs_cli_dist *d = calloc(1, sizeof *d);
    if (!d || !(d->comm = dfs_comm_open(err, sizeof err))) {
        fprintf(stderr, "dfscope: MPI cannot start (%s): running as a single process\n", d ? err : "out of memory");
        free(d);
        return NULL;
    }
    d->rank = dfs_comm_rank(d->comm);
    d->size = dfs_comm_size(d->comm);
    d->listing.rc = -1;
    if (c->opt.jobs <= 0) { /* the node's cores shared by the ranks on it */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        int per = (int)((cores > 0 ? cores : 1) / dfs_comm_local_size(d->comm));
        c->opt.jobs = per > 0 ? per : 1;
    }
    if (d->rank != 0) /* one progress line is enough: rank 0's */
        c->progress = 0;
    c->dist = d;
    return d;
}

bool dfs_cli_distributed(dfs_cli_common *c)
{
    dfs_cli_dist *d = session(c);
    return d && d->size > 1;
}

bool dfs_cli_is_rank0(const dfs_cli_common *c)
{
    return !c->dist || c->dist->rank == 0;
}

bool dfs_cli_agree(dfs_cli_common *c, const char *cmd, bool ok, const char *why)
{
    dfs_cli_dist *d = c->dist;
    if (!d || d->size == 1) {
        if (!ok)
            fprintf(stderr, "dfscope %s: %s\n", cmd, why);
        return ok;
    }
    int64_t worst = dfs_comm_max(d->comm, ok ? 0 : d->rank == 0 ? 2 : 1); /* 2: rank 0 failed */
    if (!ok && d->rank == 0)
        fprintf(stderr, "dfscope %s: %s\n", cmd, why);
    else if (!ok && worst == 1)
        fprintf(stderr, "dfscope %s: rank %d: %s\n", cmd, d->rank, why);
    return worst == 0;
}

int dfs_cli_done(dfs_cli_common *c, int rc)
{
    dfs_cli_dist *d = c->dist;
    if (!d)
        return rc;
    if (d->size > 1) {
        /* rank 0 knows every rank's outcome; another rank only adds a failure of its own */
        int64_t agreed = dfs_comm_max(d->comm, d->rank == 0 || rc == DFS_EXIT_OUTPUT ? rc : 0);
        rc = (int)agreed;
        if (rc != DFS_EXIT_OK && d->rank == 0)
            fprintf(stderr, "dfscope: all %d ranks exit with code %d (%s)\n", d->size, rc, rc_meaning(rc));
    }
    dfs_dist_listing_free(&d->listing);
    dfs_comm_close(d->comm);
    free(d);
    c->dist = NULL;
    return rc;
}

/* Does any rank say no? (every rank calls it: a collective) */
static bool anyone_failed(dfs_cli_dist *d, bool failed)
{
    return dfs_comm_max(d->comm, failed ? 1 : 0) != 0;
}

/* DFSCOPE_MPI_PIECE=SIZE: the size inputs are cut at between ranks (0 or unset: automatic). Read
 * by rank 0 only, which sends it with the listing, so the ranks cannot disagree. */
static uint64_t piece_override(const char *cmd)
{
    const char *v = getenv("DFSCOPE_MPI_PIECE");
    uint64_t size = 0;
    if (v && *v && (!dfs_cli_parse_size(v, &size) || (size && size < 4096))) {
        fprintf(stderr, "dfscope %s: DFSCOPE_MPI_PIECE takes a size of at least 4k, not '%s' (ignored)\n", cmd, v);
        size = 0;
    }
    return size;
}

/* Rank 0 lists the paths (naming the missing ones), refuses an output over an input, and sends
 * the list to everybody. -1 to go on, else the exit code every rank stops with. */
static int dist_list(dfs_cli_common *c, dfs_cli_dist *d, const char *cmd, char **paths, int npaths,
                     const dfs_cli_job *job)
{
    if (d->listed)
        return d->listing.rc;
    d->listed = true;
    dfs_dist_listing *l = &d->listing;
    if (d->rank == 0) {
        bool bad = false;
        int rc = -1;
        dfs_run *run = dfs_cli_open(c, cmd, paths, npaths, &bad, &rc);
        if (run && refuses_output(job, run)) {
            rc = DFS_EXIT_USAGE;
        } else if (run) {
            if (!dfs_dist_listing_of(l, run, d->size, piece_override(cmd)))
                rc = DFS_EXIT_OUTPUT;
            l->bad_path = bad;
        }
        l->rc = rc;
        dfs_run_free(run);
    }
    bool got = dfs_dist_share_listing(d->comm, l);
    if (anyone_failed(d, !got)) {
        if (d->rank == 0)
            fprintf(stderr, "dfscope %s: a rank ran out of memory receiving the list of inputs\n", cmd);
        l->rc = DFS_EXIT_OUTPUT;
    }
    return l->rc;
}

/* The partition of the listing, the same on every rank (or a failure every rank knows of). */
static bool dist_partition(dfs_cli_dist *d, const char *cmd, bool cut, dfs_partition *part)
{
    bool ok = dfs_dist_partition(&d->listing, d->size, cut, part);
    if (anyone_failed(d, !ok)) {
        if (d->rank == 0)
            fprintf(stderr, "dfscope %s: out of memory partitioning the inputs\n", cmd);
        if (ok)
            dfs_partition_free(part);
        return false;
    }
    return true;
}

int dfs_cli_preview(dfs_cli_common *c, const char *cmd, char **paths, int npaths, const char *output,
                    uint64_t bytes, dfs_preview *pv)
{
    memset(pv, 0, sizeof *pv);
    if (!dfs_cli_distributed(c)) {
        if (dfs_preview_run(paths, (size_t)npaths, &c->opt, bytes, pv) == DFS_EXIT_OK)
            return DFS_EXIT_OK;
        fprintf(stderr, "dfscope %s: out of memory\n", cmd);
        return DFS_EXIT_OUTPUT;
    }
    dfs_cli_dist *d = c->dist;
    const dfs_cli_job listing = {.cmd = cmd, .output = output};
    int rc = dist_list(c, d, cmd, paths, npaths, &listing);
    if (rc >= 0)
        return rc;
    dfs_partition part;
    if (!dist_partition(d, cmd, false, &part))
        return DFS_EXIT_OUTPUT;
    dfs_options o = c->opt;
    o.progress = NULL;
    rc = dfs_dist_preview(d->comm, &d->listing, &part, &o, bytes, pv);
    dfs_partition_free(&part);
    if (anyone_failed(d, rc != DFS_EXIT_OK)) {
        if (d->rank == 0)
            fprintf(stderr, "dfscope %s: out of memory in the preview\n", cmd);
        dfs_preview_free(pv);
        return DFS_EXIT_OUTPUT;
    }
    return DFS_EXIT_OK;
}

/* ---- one distributed pass ---- */

typedef struct dist_pass {
    dfs_run *run;
    void *obj;
    const void *result;
    int rc;                 /* rank 0: the verdict, or why there is no result */
    bool refused;           /* rank 0: inputs of several jobs (dfs_cli_check_jobs), said */
    dfs_dist_pass info;
} dist_pass;

static void dist_pass_free(const dfs_analysis *an, dist_pass *p)
{
    if (p->obj)
        an->destroy(p->obj);
    dfs_run_free(p->run);
    dfs_dist_pass_free(&p->info);
    memset(p, 0, sizeof *p);
}

static void no_batch(void *state, const dfs_run *run, const dfs_batch *batch)
{
    (void)state;
    (void)run;
    (void)batch;
}

/* What rank 0 does with every rank's pieces and the merged state: fold, report, finish. */
static void conclude_pass(dfs_cli_common *c, const dfs_cli_job *job, dist_pass *p, bool had_bad_path)
{
    p->rc = dfs_run_fold_results(p->run);
    if (had_bad_path && p->rc != DFS_EXIT_OUTPUT)
        p->rc = DFS_EXIT_USAGE;
    if (!report_later())
        report(c, p->run);
    if (p->rc == DFS_EXIT_OUTPUT) {
        fprintf(stderr, "dfscope: out of memory while reading; no result is written\n");
        return;
    }
    finish_pass(c, job, p->obj, p->run, &p->result, &p->rc);
}

/* The inputs a rank could not read, named by that rank (the report of rank 0 names them too). */
static void name_unreadable(const dfs_cli_common *c, const dfs_cli_dist *d, const char *cmd, const dist_pass *p)
{
    const dfs_run *run = p->run;
    for (size_t i = 0; !c->quiet && run && i < p->info.own_results && i < run->results.n; i++) {
        const dfs_piece_result *r = &run->results.v[i];
        if (r->unreadable && r->piece.index == 0)
            fprintf(stderr, "dfscope %s: rank %d cannot read %s: %s\n", cmd, d->rank,
                    run->inputs.v[r->piece.file].path, r->error ? r->error : "cannot open");
    }
}

static void report_stats(dfs_cli_dist *d, dist_pass *p)
{
    if (!dfs_dist_gather_stats(d->comm, &p->info) || d->rank != 0)
        return;
    uint64_t max = 0, sum = 0;
    for (size_t i = 0; i < p->info.stats.n; i++) {
        print_rank_stats(&p->info.stats.v[i], d->size);
        sum += p->info.stats.v[i].bytes;
        if (p->info.stats.v[i].bytes > max)
            max = p->info.stats.v[i].bytes;
    }
    double mean = p->info.stats.n ? (double)sum / (double)p->info.stats.n : 0;
    fprintf(stderr, "dfscope: mpi %d ranks (%s): bytes max/mean %.3f\n", d->size, dfs_comm_library(d->comm),
            mean > 0 ? (double)max / mean : 1.0);
}

/* One pass over every rank's share: read, combine to rank 0, and there fold, report, finish. */
static void dist_pass_run(dfs_cli_common *c, dfs_cli_dist *d, const dfs_partition *part,
                          const dfs_cli_job *job, dist_pass *p)
{
    const dfs_analysis *an = job->an;
    memset(p, 0, sizeof *p);
    c->started = dfs_cli_now();
    p->run = dfs_dist_listing_run(&d->listing, &c->opt);
    char err[512] = "out of memory";
    p->obj = p->run ? an->create(job->opt, err, sizeof err) : NULL;
    if (!p->obj && d->rank == 0) /* the same options fail the same way on every rank */
        fprintf(stderr, "dfscope %s: %s\n", job->cmd, err);
    dfs_consumer idle = {.on_batch = no_batch};
    dfs_consumer *consumer = p->obj ? an->consumer(p->obj) : &idle;
    bool ok = dfs_dist_read(d->comm, p->run, part, consumer, p->obj, an, job->opt, &p->info);
    name_unreadable(c, d, job->cmd, p);
    if (c->mpi_stats)
        report_stats(d, p);
    if (d->rank != 0)
        return;
    if (!p->obj) {
        p->rc = p->run ? DFS_EXIT_USAGE : DFS_EXIT_OUTPUT;
    } else if (!ok) {
        fprintf(stderr, "dfscope %s: %s\n", job->cmd, p->info.why[0] ? p->info.why : "a rank failed");
        p->rc = p->info.refused ? DFS_EXIT_USAGE : DFS_EXIT_OUTPUT;
    } else {
        conclude_pass(c, job, p, d->listing.bad_path);
        int mixed = c->one_job && p->rc != DFS_EXIT_OUTPUT ? dfs_cli_check_jobs(job->cmd, p->run) : -1;
        if (mixed >= 0) { /* said: rank 0 decides to stop */
            p->rc = mixed;
            p->result = NULL;
            p->refused = true;
        }
    }
}

/* ---- rank 0's decision after a pass ---- */

enum { GO_WRITE = 1, GO_RERUN = 2, GO_STOP = 3 };

typedef struct decision {
    int what, rc;
    const dfs_analysis *an;
    dist_pass *pass;        /* rank 0: the pass decided on */
    dfs_file_clock *clocks; /* a rerun: every file's final clock (owned) */
    size_t nclocks;
    const char *reason;     /* kept in `keep` */
    void *opt;
    dfs_arena keep;         /* what the second pass's options point to */
} decision;

static bool pack_decision(void *ctx, void **buf, size_t *len)
{
    decision *x = ctx;
    dist_pass *p = x->pass;
    dfs_pack w;
    dfs_pack_init(&w, p->run);
    dfs_pack_u64(&w, (uint64_t)x->what);
    dfs_pack_i64(&w, x->rc);
    if (x->what == GO_RERUN) {
        dfs_file_clock *clocks = dfs_run_final_clocks(p->run);
        size_t n = dfs_run_file_count(p->run);
        w.failed |= !clocks;
        dfs_pack_u64(&w, clocks ? n : 0);
        for (size_t i = 0; clocks && i < n; i++) {
            dfs_pack_i64(&w, clocks[i].offset_ns);
            dfs_pack_i64(&w, clocks[i].num);
            dfs_pack_i64(&w, clocks[i].den);
        }
        free(clocks);
        w.failed |= !x->an->rerun_pack || !x->an->rerun_pack(p->obj, p->run, &w);
    }
    bool ok = dfs_pack_finish(&w, buf, len);
    dfs_pack_free(&w);
    return ok;
}

static bool unpack_decision(decision *x, dfs_run *run, const void *buf, size_t len)
{
    dfs_unpack r;
    dfs_unpack_init(&r, run, buf, len);
    x->what = (int)dfs_unpack_u64(&r);
    x->rc = (int)dfs_unpack_i64(&r);
    if (x->what == GO_RERUN) {
        x->nclocks = dfs_unpack_count(&r, 3);
        x->clocks = calloc(x->nclocks ? x->nclocks : 1, sizeof *x->clocks);
        for (size_t i = 0; x->clocks && i < x->nclocks; i++) {
            x->clocks[i].offset_ns = dfs_unpack_i64(&r);
            x->clocks[i].num = (int32_t)dfs_unpack_i64(&r);
            x->clocks[i].den = (int32_t)dfs_unpack_i64(&r);
        }
        const dfs_analysis *an = x->an;
        if (!x->clocks || !an->rerun_apply || !an->rerun_apply(x->opt, &r, x->clocks, x->nclocks, &x->keep, &x->reason))
            r.bad = true;
    }
    bool ok = dfs_unpack_ok(&r) && x->what >= GO_WRITE && x->what <= GO_STOP;
    dfs_unpack_free(&r);
    return ok;
}

/* Rank 0 decides (write, read again, or stop) and every rank learns it. */
static void decide(dfs_cli_dist *d, decision *x, dist_pass *p)
{
    x->pass = p;
    if (d->rank == 0) {
        x->rc = p->rc;
        bool stop = p->rc == DFS_EXIT_OUTPUT || p->refused || !p->obj || out_of_memory(x->an, p->obj, NULL) ||
                    (x->an->failure && x->an->failure(p->obj));
        x->what = p->result ? GO_WRITE : stop ? GO_STOP : GO_RERUN;
    }
    void *buf = NULL;
    size_t len = 0;
    if (d->rank == 0 && !pack_decision(x, &buf, &len)) {
        free(buf);
        buf = NULL;
        len = 0;
    }
    bool got = dfs_comm_bcast(d->comm, &buf, &len) && len && unpack_decision(x, p->run, buf, len);
    free(buf);
    if (anyone_failed(d, !got)) {
        x->what = GO_STOP;
        x->rc = DFS_EXIT_OUTPUT;
    }
}

/* Rank 0 writes; the exit code is the first pass's verdict unless writing fails. */
static int dist_run_analysis(dfs_cli_common *c, char **paths, int npaths, const dfs_cli_job *job)
{
    const dfs_analysis *an = job->an;
    void *opt = job->opt;
    dfs_cli_dist *d = c->dist;
    int rc = dist_list(c, d, job->cmd, paths, npaths, job);
    if (rc >= 0)
        return rc;
    dfs_partition part;
    bool cut = an->may_cut && an->may_cut(opt);
    if (!dist_partition(d, job->cmd, cut, &part))
        return DFS_EXIT_OUTPUT;
    dist_pass p, again = {0};
    decision x = {.an = an, .opt = opt};
    dfs_arena_init(&x.keep, 4096);
    dist_pass_run(c, d, &part, job, &p);
    decide(d, &x, &p);
    dist_pass *last = &p;
    if (x.what == GO_RERUN) {
        bool quiet = c->quiet;
        c->quiet = true; /* the problems were reported by the first pass */
        dist_pass_run(c, d, &part, job, &again);
        c->quiet = quiet;
        last = &again;
        decision y = {.an = an, .opt = opt};
        dfs_arena_init(&y.keep, 64);
        decide(d, &y, &again);
        if (y.what == GO_RERUN) { /* the facts of the first pass must settle the second */
            if (d->rank == 0)
                fprintf(stderr, "dfscope %s: internal error: the second pass did not settle\n", job->cmd);
            y.what = GO_STOP;
            y.rc = DFS_EXIT_OUTPUT;
        }
        x.what = y.what;
        x.rc = y.what == GO_WRITE ? p.rc : y.rc;
        free(y.clocks);
        dfs_arena_free(&y.keep);
    }
    rc = x.rc;
    if (d->rank == 0 && x.what == GO_WRITE) {
        dfs_output_guard guard = {.inputs = last->run};
        const dfs_cli_result res = {last->run, last->obj, last->result, last == &again, x.reason, &guard};
        rc = write_result(c, job, &res, p.rc);
    }
    if (d->rank == 0 && report_later())
        report(c, p.run);
    dist_pass_free(an, &again);
    dist_pass_free(an, &p);
    dfs_partition_free(&part);
    free(x.clocks);
    dfs_arena_free(&x.keep);
    return rc;
}
