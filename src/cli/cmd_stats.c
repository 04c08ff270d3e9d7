/* cmd_stats.c - `dfscope stats PATH...`: what is in a set of traces. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/stats/stats.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "output/atomic.h"
#include "output/stats_report.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: dfscope stats [options] PATH...\n\n"
            "Reads traces (files, directories, globs; any supported format, gzipped or not) and\n"
            "prints files by format, events by phase, top categories and names with counts and\n"
            "total duration, processes, threads, hosts, accessed files, the time span and the\n"
            "problems found. Problem details go to stderr.\n\n"
            "options:\n"
            "      --json            print the JSON document described in docs/CLI.md\n"
            "  -o, --output FILE     write the result to FILE (atomically) instead of stdout\n"
            "      --top N           categories and names listed (default 10, 0 = all)\n"
            "      --timing          add wall time, MB/s, events/s and peak RSS\n" DFS_CLI_COMMON_HELP
                DFS_CLI_DIST_HELP
            "  -h, --help            this help\n\n"
            "Exit codes: 0 ok, 1 damaged input skipped, 2 usage or unreadable input,\n"
            "            3 --strict and damage found, 4 output error.\n");
}

typedef struct stats_args {
    dfs_cli_common common;
    bool json, timing;
    size_t top;
    const char *output;
} stats_args;

/* Returns -1 to go on, else an exit code. */
static int parse_args(stats_args *a, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 2001}, {"output", required_argument, NULL, 'o'},
        {"top", required_argument, NULL, 2002}, {"timing", no_argument, NULL, 2003},
        {"help", no_argument, NULL, 'h'}, DFS_CLI_COMMON_LONGOPTS, DFS_CLI_DIST_LONGOPTS, {NULL, 0, NULL, 0}};
    a->top = 10;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "j:o:hvq", longopts, NULL)) != -1;) {
        int handled = dfs_cli_common_option(&a->common, "stats", c, optarg);
        if (handled < 0)
            return DFS_EXIT_USAGE;
        if (handled)
            continue;
        uint64_t n;
        switch (c) {
        case 2001: a->json = true; break;
        case 2003: a->timing = true; break;
        case 'o': a->output = optarg; break;
        case 2002:
            if (!dfs_cli_parse_size(optarg, &n) || n > 1000000) {
                fprintf(stderr, "dfscope stats: --top takes a count, not '%s'\n", optarg);
                return DFS_EXIT_USAGE;
            }
            a->top = (size_t)n;
            break;
        case 'h': usage(stdout); return DFS_EXIT_OK;
        default:
            fprintf(stderr, "dfscope stats: see 'dfscope stats --help'\n");
            return DFS_EXIT_USAGE;
        }
    }
    return -1;
}

static int write_report(const stats_args *a, const dfs_run *run, const dfs_stats_result *r,
                        const dfs_timing *t)
{
    FILE *out = stdout;
    dfs_atomic_file af;
    char err[512];
    if (a->output) {
        if (dfs_atomic_open(&af, a->output, err, sizeof err) != 0) {
            fprintf(stderr, "dfscope stats: %s\n", err);
            return DFS_EXIT_OUTPUT;
        }
        out = af.fp;
    }
    if (a->json)
        dfs_stats_write_json(out, run, r, a->top, t);
    else
        dfs_stats_write_text(out, run, r, a->top, t);
    if (a->output) {
        if (dfs_atomic_close(&af, true, err, sizeof err) != 0) {
            fprintf(stderr, "dfscope stats: %s\n", err);
            return DFS_EXIT_OUTPUT;
        }
    } else if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "dfscope stats: cannot write the output\n");
        return DFS_EXIT_OUTPUT;
    }
    return DFS_EXIT_OK;
}

static void fill_timing(const stats_args *a, const dfs_run *run, dfs_timing *t)
{
    *t = (dfs_timing){.enabled = a->timing,
                      .jobs = a->common.opt.jobs > 0 ? a->common.opt.jobs : (int)sysconf(_SC_NPROCESSORS_ONLN)};
    if (!a->timing)
        return;
    t->wall_s = dfs_cli_now() - a->common.started;
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        t->disk_bytes += dfs_run_file(run, i)->size;
        t->text_bytes += dfs_run_file(run, i)->bytes;
    }
    t->peak_rss_kb = dfs_cli_peak_rss_kb();
}

static int write_run(void *user, const dfs_cli_result *res)
{
    const stats_args *a = user;
    dfs_timing t;
    fill_timing(a, res->run, &t);
    return write_report(a, res->run, res->result, &t);
}

int dfs_cmd_stats(int argc, char **argv)
{
    stats_args a = {0};
    dfs_cli_common_init(&a.common);
    int rc = parse_args(&a, argc, argv);
    if (rc >= 0)
        return rc;
    char **paths = argv + optind;
    int npaths = argc - optind;
    const dfs_cli_job job = {.cmd = "stats", .an = &dfs_stats_analysis, .output = a.output, .write = write_run, .user = &a};
    rc = dfs_cli_run_analysis(&a.common, paths, npaths, &job);
    return dfs_cli_done(&a.common, rc);
}
