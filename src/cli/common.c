#include "cli/common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "output/atomic.h"
#include "output/diagnostics.h"

void dfs_cli_common_init(dfs_cli_common *c)
{
    memset(c, 0, sizeof *c);
    dfs_options_init(&c->opt);
    c->progress = -1;
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

int dfs_cli_common_option(dfs_cli_common *c, const char *cmd, int opt, const char *arg)
{
    uint64_t size;
    switch (opt) {
    case 'j':
        if (dfs_cli_parse_jobs(arg, &c->opt.jobs) != 0) {
            fprintf(stderr, "dfscope %s: -j takes a number of threads from 1 to 1024, not '%s'\n", cmd, arg);
            return -1;
        }
        return 1;
    case 1001: c->opt.strict = true; return 1;
    case 1002: c->opt.dedup = true; return 1;
    case 1003: c->progress = 1; return 1;
    case 1004: c->progress = 0; return 1;
    case 1005:
        if (!dfs_cli_parse_size(arg, &size) || size > 1000) {
            fprintf(stderr, "dfscope %s: --examples takes a number from 0 to 1000, not '%s'\n", cmd, arg);
            return -1;
        }
        c->opt.max_examples = (unsigned)size;
        return 1;
    case 1006:
    case 1007:
        if (!dfs_cli_parse_size(arg, &size) || size < 4096) {
            fprintf(stderr, "dfscope %s: %s takes a size of at least 4k (e.g. 32M), not '%s'\n", cmd,
                    opt == 1006 ? "--chunk" : "--max-record", arg);
            return -1;
        }
        if (opt == 1006)
            c->opt.chunk_bytes = size;
        else
            c->opt.max_record = size;
        return 1;
    case 'v': c->verbose++; return 1;
    case 'q': c->quiet = true; return 1;
    default: return 0;
    }
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

static void show_progress(void *ctx, uint64_t files_done, uint64_t files_total, uint64_t bytes_done,
                          uint64_t bytes_total)
{
    dfs_cli_common *c = ctx;
    double elapsed = dfs_cli_now() - c->started;
    double rate = elapsed > 0 ? (double)bytes_done / elapsed : 0;
    /* bytes_done counts decompressed bytes and bytes_total disk bytes: the estimate is rough for
     * gzip input, so it is only shown for the fraction of files still to do. */
    double left = rate > 0 && bytes_total > bytes_done ? (double)(bytes_total - bytes_done) / rate : 0;
    fprintf(stderr, "\r\033[Kdfscope: %llu/%llu files, %.0f MB, %.0f MB/s, ~%.0f s left",
            (unsigned long long)files_done, (unsigned long long)files_total, (double)bytes_done / 1e6,
            rate / 1e6, files_done == files_total ? 0.0 : left);
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
    if (c->progress == 1 || (c->progress == -1 && isatty(STDERR_FILENO))) {
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

int dfs_cli_read(dfs_cli_common *c, dfs_run *run, dfs_consumer *const *consumers, size_t n, bool had_bad_path)
{
    c->started = dfs_cli_now();
    int code = dfs_run_read(run, consumers, n);
    if (code == DFS_EXIT_OUTPUT)
        fprintf(stderr, "dfscope: out of memory while reading; no result is written\n");
    if (!c->quiet)
        dfs_report_problems(stderr, run, c->verbose);
    if (had_bad_path && code != DFS_EXIT_OUTPUT)
        code = DFS_EXIT_USAGE;
    return code;
}

bool dfs_cli_output_is_input(const dfs_run *run, const char *output)
{
    for (size_t i = 0; output && i < dfs_run_file_count(run); i++)
        if (dfs_same_file(dfs_run_file(run, i)->path, output))
            return true;
    return false;
}

typedef struct pass {
    dfs_run *run;
    void *obj;
    const void *result;
    int rc;
} pass;

static void pass_free(const dfs_cli_analysis *an, pass *p)
{
    if (p->obj)
        an->destroy(p->obj);
    dfs_run_free(p->run);
    memset(p, 0, sizeof *p);
}

/* One reading pass; p->result is NULL when a rerun is needed or on failure (p->rc says which). */
static bool run_pass(dfs_cli_common *c, char **paths, int npaths, const char *output, const dfs_cli_analysis *an,
                     const void *opt, pass *p)
{
    bool bad_path;
    p->run = dfs_cli_open(c, an->cmd, paths, npaths, &bad_path, &p->rc);
    if (!p->run)
        return false;
    if (dfs_cli_output_is_input(p->run, output)) {
        fprintf(stderr, "dfscope %s: refusing to write the output over the input %s\n", an->cmd, output);
        p->rc = DFS_EXIT_USAGE;
        return false;
    }
    char err[512];
    p->obj = an->create(opt, err, sizeof err);
    if (!p->obj) {
        fprintf(stderr, "dfscope %s: %s\n", an->cmd, err);
        p->rc = DFS_EXIT_USAGE;
        return false;
    }
    dfs_consumer *consumers[] = {an->consumer(p->obj)};
    p->rc = dfs_cli_read(c, p->run, consumers, 1, bad_path);
    if (p->rc == DFS_EXIT_OUTPUT)
        return false;
    p->result = an->finish(p->obj, p->run);
    if (!p->result && !an->needs_rerun(p->obj)) {
        fprintf(stderr, "dfscope %s: out of memory\n", an->cmd);
        p->rc = DFS_EXIT_OUTPUT;
        return false;
    }
    return true;
}

int dfs_cli_run_analysis(dfs_cli_common *c, char **paths, int npaths, const char *output,
                         const dfs_cli_analysis *an, void *opt)
{
    pass p = {0}, again = {0};
    dfs_file_clock *clocks = NULL;
    const char *reason = NULL;
    bool ok = run_pass(c, paths, npaths, output, an, opt, &p);
    int rc = p.rc;
    const void *r = p.result;
    if (ok && !r) {
        clocks = dfs_run_final_clocks(p.run);
        reason = clocks ? an->prepare_rerun(p.obj, p.run, clocks, opt) : NULL;
        bool quiet = c->quiet;
        c->quiet = true;
        ok = clocks && run_pass(c, paths, npaths, output, an, opt, &again);
        c->quiet = quiet;
        r = again.result;
        if (ok && !r) { /* the facts of the first pass must settle the second: a bug if not */
            fprintf(stderr, "dfscope %s: internal error: the second pass did not settle (%s)\n", an->cmd,
                    reason ? reason : "?");
            ok = false;
            again.rc = DFS_EXIT_OUTPUT;
        }
        if (!ok)
            rc = again.rc ? again.rc : DFS_EXIT_OUTPUT;
    }
    if (ok && r) {
        int wrc = an->write(an->user, r, again.obj != NULL, reason);
        if (wrc != DFS_EXIT_OK)
            rc = wrc;
    }
    pass_free(an, &again);
    pass_free(an, &p);
    free(clocks);
    return rc;
}
