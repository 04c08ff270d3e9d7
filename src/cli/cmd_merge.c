/* cmd_merge.c - `dfscope merge PATH... -o OUT.json[.gz]`: one Chrome trace from many
 * (docs/MERGE.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/common.h"
#include "output/atomic.h"
#include "output/merge/merge.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: dfscope merge [options] PATH... -o OUT.json[.gz]\n\n"
            "One Chrome trace from many: Composer rank files (aligned by their clock sync),\n"
            "PyTorch profiler / Kineto traces, SageMaker Debugger framework and system files,\n"
            "DFTracer traces of any generation, Chrome JSON. Every event is kept with all its\n"
            "args, on one absolute clock (µs with ns decimals), metadata first, then sorted by\n"
            "time. pid = global rank for Composer; a pid another input already uses gets a new\n"
            "number, and its process name says which file it came from. Loads in Perfetto UI\n"
            "and chrome://tracing. Sorting uses bounded memory: beyond --memory, sorted runs\n"
            "are spilled to temporary files and merged back.\n\n"
            "options:\n"
            "  -o, --output FILE     the merged trace (required); gzip when FILE ends in .gz;\n"
            "                        written atomically, never over an input\n"
            "      --compat composer Composer's merge_traces byte for byte: inputs in argument\n"
            "                        order, not sorted, its thread_sort_index records (its bugs\n"
            "                        included, except that it does not fail)\n"
            "      --memory SIZE     memory for sorting (default 256M, at least 64k)\n"
            "      --tmpdir DIR      where sorted runs are spilled (default $TMPDIR, else /tmp)\n"
            "      --format F        summary on stdout: table (default) | json\n"
            DFS_CLI_COMMON_HELP
            "  -h, --help            this help\n\n"
            "Exit codes: 0 ok, 1 damaged input skipped (reported), 2 usage or unreadable input,\n"
            "3 --strict and damage found, 4 output error.\n");
}

typedef struct merge_args {
    dfs_cli_common common;
    dfs_merge_options opt;
    char **paths;
    int npaths;
    const char *output;
    bool json;
} merge_args;

static int option_value(merge_args *a, int c, const char *arg)
{
    struct stat st;
    switch (c) {
    case 'o': a->output = arg; return 0;
    case 2001:
        if (strcmp(arg, "composer") != 0)
            return dfs_cli_usage_error("merge", "--compat knows only 'composer', not", arg);
        a->opt.compat_composer = true;
        return 0;
    case 2002:
        if (!dfs_cli_parse_size(arg, &a->opt.memory) || a->opt.memory < DFS_MERGE_MIN_MEMORY)
            return dfs_cli_usage_error("merge", "--memory takes a size of at least 64k (e.g. 512M), not", arg);
        return 0;
    case 2003:
        if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode) || access(arg, W_OK | X_OK) != 0)
            return dfs_cli_usage_error("merge", "--tmpdir needs a writable directory, not", arg);
        a->opt.tmpdir = arg;
        return 0;
    case 2004: {
        dfs_cli_format f = DFS_CLI_TABLE;
        int rc = dfs_cli_parse_format("merge", arg, false, &f);
        a->json = f == DFS_CLI_JSON;
        return rc;
    }
    default: return -1;
    }
}

/* Inputs keep their order (getopt's "-" mode): it is the order of --compat composer. */
static int parse_args(merge_args *a, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"compat", required_argument, NULL, 2001},
        {"memory", required_argument, NULL, 2002}, {"tmpdir", required_argument, NULL, 2003},
        {"format", required_argument, NULL, 2004}, {"help", no_argument, NULL, 'h'},
        DFS_CLI_COMMON_LONGOPTS, {NULL, 0, NULL, 0}};
    a->paths = calloc((size_t)argc + 1, sizeof *a->paths);
    if (!a->paths)
        return DFS_EXIT_OUTPUT;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "-o:j:hvq", longopts, NULL)) != -1;) {
        if (c == 1) {
            a->paths[a->npaths++] = optarg;
            continue;
        }
        int handled = dfs_cli_common_option(&a->common, "merge", c, optarg);
        if (handled < 0)
            return DFS_EXIT_USAGE;
        if (handled)
            continue;
        if (c == 'h') {
            usage(stdout);
            return DFS_EXIT_OK;
        }
        int rc = c == '?' || c == ':' ? -1 : option_value(a, c, optarg);
        if (rc > 0)
            return rc;
        if (rc < 0) {
            fprintf(stderr, "dfscope merge: see 'dfscope merge --help'\n");
            return DFS_EXIT_USAGE;
        }
    }
    if (!a->output) {
        fprintf(stderr, "dfscope merge: the output is missing: -o OUT.json[.gz]\n");
        return DFS_EXIT_USAGE;
    }
    return -1;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Writes the merged trace atomically; returns DFS_EXIT_OK or DFS_EXIT_OUTPUT. */
static int write_trace(const merge_args *a, dfs_merge *m, const dfs_run *run, dfs_merge_report *rep)
{
    char err[512] = "";
    dfs_atomic_file af;
    if (dfs_atomic_open(&af, a->output, err, sizeof err) != 0) {
        fprintf(stderr, "dfscope merge: %s\n", err);
        return DFS_EXIT_OUTPUT;
    }
    FILE *sink = dfs_merge_sink(fileno(af.fp), ends_with(a->output, ".gz"));
    dfs_status st = sink ? dfs_merge_write(m, run, sink, rep, err, sizeof err) : DFS_ERR_NOMEM;
    if (!sink)
        snprintf(err, sizeof err, "out of memory");
    bool ok = st == DFS_OK && fclose(sink) == 0;
    if (st == DFS_OK && !ok)
        snprintf(err, sizeof err, "%s: write failed", a->output);
    else if (st != DFS_OK && sink)
        fclose(sink);
    char cerr[512];
    if (dfs_atomic_close(&af, ok, cerr, sizeof cerr) != 0 && ok) {
        snprintf(err, sizeof err, "%s", cerr);
        ok = false;
    }
    if (!ok)
        fprintf(stderr, "dfscope merge: %s\n", err);
    return ok ? DFS_EXIT_OK : DFS_EXIT_OUTPUT;
}

static int run_merge(merge_args *a)
{
    bool bad_path;
    int rc;
    dfs_run *run = dfs_cli_open(&a->common, "merge", a->paths, a->npaths, &bad_path, &rc);
    if (!run)
        return rc;
    if (dfs_cli_output_is_input(run, a->output)) {
        fprintf(stderr, "dfscope merge: refusing to write the output over the input %s\n", a->output);
        dfs_run_free(run);
        return DFS_EXIT_USAGE;
    }
    char err[512];
    dfs_merge *m = dfs_merge_new(&a->opt, err, sizeof err);
    if (!m) {
        fprintf(stderr, "dfscope merge: %s\n", err);
        dfs_run_free(run);
        return DFS_EXIT_USAGE;
    }
    dfs_consumer *consumers[] = {dfs_merge_consumer(m)};
    rc = dfs_cli_read(&a->common, run, consumers, 1, bad_path);
    if (rc != DFS_EXIT_OUTPUT) {
        dfs_merge_report rep;
        memset(&rep, 0, sizeof rep);
        int wrc = write_trace(a, m, run, &rep);
        for (size_t i = 0; !a->common.quiet && i < rep.nwarnings; i++)
            fprintf(stderr, "dfscope merge: warning: %s\n", rep.warnings[i]);
        if (wrc == DFS_EXIT_OK) {
            if (a->json)
                dfs_merge_report_json(stdout, &rep, run);
            else
                dfs_merge_report_text(stdout, &rep, run);
            if (fflush(stdout) != 0 || ferror(stdout))
                wrc = DFS_EXIT_OUTPUT;
        }
        dfs_merge_report_free(&rep);
        if (wrc != DFS_EXIT_OK)
            rc = wrc;
    }
    dfs_merge_free(m);
    dfs_run_free(run);
    return rc;
}

int dfs_cmd_merge(int argc, char **argv)
{
    merge_args a;
    memset(&a, 0, sizeof a);
    dfs_cli_common_init(&a.common);
    dfs_merge_options_init(&a.opt);
    int rc = parse_args(&a, argc, argv);
    if (rc < 0)
        rc = run_merge(&a);
    free(a.paths);
    return rc;
}
