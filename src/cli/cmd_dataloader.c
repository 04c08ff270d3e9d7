/* cmd_dataloader.c - `dfscope dataloader PATH...`: SageMaker Debugger's data-loader analysis
 * (iterator initializations, worker processes, GetNext calls, batch time, outlier windows). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/dataloader/dataloader.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "output/atomic.h"
#include "output/dataloader_report.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: dfscope dataloader [options] PATH...\n\n"
            "SageMaker Debugger's PT_dataloader_analysis on smdebug framework traces and system-metric\n"
            "files (give both, e.g. the job's framework/ and system/ folders): data-loader iterator\n"
            "initializations, worker processes, next-batch (GetNext) calls and batch time, each with\n"
            "its outliers (>= 2 x median), and for every GetNext and batch-time outlier a window\n"
            "report: the system metrics sampled in it and the framework events overlapping it.\n"
            "Kineto, Composer and DFTracer traces map their data-wait spans onto GetNext\n"
            "(enumerate(DataLoader)#...__next__, event/dataloader, fetch.iter), so batch time works\n"
            "there too; the report names every mapping it used.\n\n"
            "options:\n"
            "      --getnext REGEX     GetNext calls: events whose name or phase matches REGEX\n"
            "                          (default '.*DataLoaderIter::GetNext'; mapped per format)\n"
            "      --init REGEX        iterator initializations (default 'DataLoaderIterInitialize')\n"
            "      --worker REGEX      worker processes (default 'DataLoaderWorker')\n"
            "      --format FMT        table (default), json, or csv (four files, needs -o DIR)\n"
            "  -o, --output PATH       write to PATH (atomically) instead of stdout; a directory for csv\n"
            "      --windows DIR       per outlier window: a Chrome-JSON slice (<kind>-<n>.json) and an\n"
            "                          SVG picture (<kind>-<n>.svg) in DIR\n"
            "      --max-windows N     windows per outlier kind, largest first (default 10; 0 = all)\n"
            "      --window-events N   framework events listed per window (default 20; 0 = all)\n"
            DFS_CLI_COMMON_HELP
            "  -h, --help              this help\n\n"
            "A regex is searched (not anchored) in the event name and in its phase (the process name\n"
            "of its pid). A set nothing matches is reported as \"the events are not present\".\n"
            "Exit codes: 0 ok, 1 damaged input skipped (a system file's corrupt last line is such\n"
            "damage), 2 usage error, unreadable input, or a system-metric file with a corrupt line\n"
            "other than its last (left out), 3 --strict and damage found, 4 output error.\n");
}


typedef struct dl_args {
    dfs_cli_common common;
    dfs_dl_options opt;
    dfs_dl_report_options report;
    dfs_cli_format format;
    const char *output, *windows;
    char **paths;
    int npaths;
} dl_args;

static bool parse_count(const char *s, size_t *out)
{
    uint64_t v;
    if (!dfs_cli_parse_uint(s, 0, 100000000, &v))
        return false;
    *out = (size_t)v;
    return true;
}

/* 0 when handled, else an exit code. */
static int option_value(dl_args *a, int c, const char *arg)
{
    switch (c) {
    case 2001: a->opt.pattern[DFS_DL_GETNEXT] = arg; return 0;
    case 2002: a->opt.pattern[DFS_DL_INIT] = arg; return 0;
    case 2003: a->opt.pattern[DFS_DL_WORKER] = arg; return 0;
    case 2004:
        return dfs_cli_parse_format("dataloader", arg, true, &a->format);
    case 'o': a->output = arg; return 0;
    case 2005: a->windows = arg; return 0;
    case 2006:
        if (!parse_count(arg, &a->opt.max_windows))
            return dfs_cli_usage_error("dataloader", "--max-windows takes a count, not", arg);
        return 0;
    case 2007:
        if (!parse_count(arg, &a->report.window_events))
            return dfs_cli_usage_error("dataloader", "--window-events takes a count, not", arg);
        return 0;
    default:
        fprintf(stderr, "dfscope dataloader: see 'dfscope dataloader --help'\n");
        return DFS_EXIT_USAGE;
    }
}

/* -1 to go on, else an exit code. */
static int parse_args(dl_args *a, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"getnext", required_argument, NULL, 2001}, {"init", required_argument, NULL, 2002},
        {"worker", required_argument, NULL, 2003}, {"format", required_argument, NULL, 2004},
        {"output", required_argument, NULL, 'o'}, {"windows", required_argument, NULL, 2005},
        {"max-windows", required_argument, NULL, 2006}, {"window-events", required_argument, NULL, 2007},
        {"help", no_argument, NULL, 'h'}, DFS_CLI_COMMON_LONGOPTS, {NULL, 0, NULL, 0}};
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "j:o:hvq", longopts, NULL)) != -1;) {
        int handled = dfs_cli_common_option(&a->common, "dataloader", c, optarg);
        if (handled < 0)
            return DFS_EXIT_USAGE;
        if (handled)
            continue;
        if (c == 'h') {
            usage(stdout);
            return DFS_EXIT_OK;
        }
        int rc = option_value(a, c, optarg);
        if (rc)
            return rc;
    }
    a->paths = argv + optind;
    a->npaths = argc - optind;
    if (a->format == DFS_CLI_CSV && !a->output) {
        fprintf(stderr, "dfscope dataloader: --format csv writes four files: give -o DIR\n");
        return DFS_EXIT_USAGE;
    }
    return -1;
}

static int fail_output(const char *err)
{
    fprintf(stderr, "dfscope dataloader: %s\n", err);
    return DFS_EXIT_OUTPUT;
}

static int write_report(const dl_args *a, const dfs_run *run, const dfs_dl_result *r)
{
    char err[512];
    if (a->windows && dfs_dl_write_windows(a->windows, run, r, err, sizeof err) != 0)
        return fail_output(err);
    if (a->format == DFS_CLI_CSV)
        return dfs_dl_write_csv_dir(a->output, run, r, err, sizeof err) == 0 ? DFS_EXIT_OK : fail_output(err);
    FILE *out = stdout;
    dfs_atomic_file af;
    if (a->output) {
        if (dfs_atomic_open(&af, a->output, err, sizeof err) != 0)
            return fail_output(err);
        out = af.fp;
    }
    if (a->format == DFS_CLI_JSON)
        dfs_dl_write_json(out, run, r, &a->report);
    else
        dfs_dl_write_text(out, run, r, &a->report);
    if (a->output)
        return dfs_atomic_close(&af, true, err, sizeof err) == 0 ? DFS_EXIT_OK : fail_output(err);
    return fflush(stdout) == 0 && !ferror(stdout) ? DFS_EXIT_OK : fail_output("cannot write the output");
}

/* A system-metric file with a corrupt line that is not its last is an error (spec 1.1). */
static int report_rejected(const dfs_run *run, const dfs_dl_result *r, int rc)
{
    for (size_t i = 0; i < r->nsysfiles; i++) {
        const dfs_dl_sysfile *s = &r->sysfiles[i];
        if (s->status != DFS_DL_SYS_REJECTED)
            continue;
        fprintf(stderr, "dfscope dataloader: error: %s: %llu corrupt lines, not only the last one: the "
                        "system-metric file is left out\n",
                dfs_run_file(run, s->file)->path, (unsigned long long)s->bad_lines);
        if (rc != DFS_EXIT_OUTPUT)
            rc = DFS_EXIT_USAGE;
    }
    return rc;
}

static bool output_clashes(const dfs_run *run, const dl_args *a)
{
    return dfs_cli_output_is_input(run, a->output) ||
           (a->windows && dfs_cli_output_is_input(run, a->windows));
}

static int run_dataloader(dl_args *a)
{
    char err[512];
    dfs_dataloader *d = dfs_dl_new(&a->opt, err, sizeof err); /* checks the patterns first */
    if (!d) {
        fprintf(stderr, "dfscope dataloader: %s\n", err);
        return DFS_EXIT_USAGE;
    }
    bool bad_path;
    int rc;
    dfs_run *run = dfs_cli_open(&a->common, "dataloader", a->paths, a->npaths, &bad_path, &rc);
    if (!run || output_clashes(run, a)) {
        if (run)
            fprintf(stderr, "dfscope dataloader: refusing to write an output over one of the inputs\n");
        dfs_dl_free(d);
        dfs_run_free(run);
        return run ? DFS_EXIT_USAGE : rc;
    }
    dfs_consumer *consumers[] = {dfs_dl_consumer(d)};
    rc = dfs_cli_read(&a->common, run, consumers, 1, bad_path);
    if (rc != DFS_EXIT_OUTPUT) {
        const dfs_dl_result *r = dfs_dl_finish(d, run);
        int wrc = r ? write_report(a, run, r) : fail_output("out of memory while analysing");
        if (r)
            rc = report_rejected(run, r, rc);
        if (wrc != DFS_EXIT_OK)
            rc = wrc;
    }
    dfs_dl_free(d);
    dfs_run_free(run);
    return rc;
}

int dfs_cmd_dataloader(int argc, char **argv)
{
    dl_args a;
    memset(&a, 0, sizeof a);
    dfs_cli_common_init(&a.common);
    dfs_dl_options_init(&a.opt);
    a.report.window_events = 20;
    int rc = parse_args(&a, argc, argv);
    if (rc < 0) {
        a.report.windows_dir = a.windows;
        rc = run_dataloader(&a);
    }
    return rc;
}
