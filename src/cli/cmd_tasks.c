/* cmd_tasks.c - `dfscope tasks PATH...`: DASF's task analyses (function and task bottlenecks,
 * worker balance) and the critical path of the task graph. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/tasks/tasks.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "output/atomic.h"
#include "output/tasks_report.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: dfscope tasks [options] PATH...\n\n"
            "DASF profiler traces (length-prefixed msgpack, or the older \"trace: <json>\" text):\n"
            "the analyses of DASF's TraceAnalyser - function_bottleneck, task_bottleneck,\n"
            "task_balance - with DASF's columns, units and sort order, plus the critical path of\n"
            "the task graph. Several databases are read one after the other in the order given,\n"
            "as DASF's MultiEventDatabase does. Tables go to stdout, problems to stderr.\n\n"
            "options:\n"
            "  -a, --analyses NAME...  function_bottleneck, task_bottleneck, task_balance,\n"
            "                        critical_path or all (several names, or commas); always run\n"
            "                        in that order (default: DASF's three with --compat, else all)\n"
            "  -d, --databases PATH  an input (DASF's spelling; PATH arguments work as well)\n"
            "  -o, --output DIR      also write <analysis>.csv into DIR (created if missing),\n"
            "                        each file atomically, with DASF's column names\n"
            "      --head N          rows printed per table (default 30, as DASF; 0 = all)\n"
            "      --compat dasf     DASF's exact numbers, quirks included (spec: per-worker\n"
            "                        percentages, resource window after the task end, first match\n"
            "                        by function name); default: DASF's bugs fixed\n"
            "      --graph FILE      write the annotated task graph (.graphml, or .dot / .gv)\n"
            "      --graph-format F  graphml | dot (default: from the file name)\n"
            "      --format F        table (default) | json\n"
            "      --fill-seconds    task_balance: a row for every second, each worker's value\n"
            "                        carried forward (default mode only)\n"
            "      --bucket SECONDS  task_balance slot width, e.g. 0.1 (default 1; default mode)\n"
            DFS_CLI_COMMON_HELP
            "  -h, --help            this help\n\n"
            "The first line of the output names the mode that ran; notes follow (e.g. GPU columns\n"
            "unavailable on CPU-only traces). Exit codes: 0 ok, 1 damaged input skipped, 2 usage or\n"
            "unreadable input, 3 --strict and damage found, 4 output error.\n");
}

typedef struct tasks_args {
    dfs_cli_common common;
    dfs_tasks_options opt;
    char **paths;
    int npaths;
    const char *outdir, *graph;
    dfs_graph_format graph_format;
    bool json;
    size_t head;
} tasks_args;

/* NAME[,NAME...]; returns false when some name is unknown (nothing is changed then). */
static bool parse_analyses(const char *list, unsigned *bits)
{
    unsigned add = 0;
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return false;
    bool ok = true;
    for (char *name = strtok_r(copy, ",", &save); name && ok; name = strtok_r(NULL, ",", &save)) {
        unsigned b = strcmp(name, "all") == 0 ? DFS_TASKS_ALL : dfs_tasks_analysis_bit(name);
        ok = b != 0;
        add |= b;
    }
    free(copy);
    if (ok && add)
        *bits |= add;
    return ok && add;
}

static int option_value(tasks_args *a, int c, const char *arg)
{
    char *end;
    switch (c) {
    case 'a':
        return parse_analyses(arg, &a->opt.analyses) ? 0 : dfs_cli_usage_error("tasks", "unknown analysis", arg);
    case 'o': a->outdir = arg; return 0;
    case 2001: {
        unsigned long long n = strtoull(arg, &end, 10);
        if (*arg == '-' || *end || end == arg || n > 100000000)
            return dfs_cli_usage_error("tasks", "--head takes a number of rows, not", arg);
        a->head = (size_t)n;
        return 0;
    }
    case 2002:
        if (strcmp(arg, "dasf") != 0)
            return dfs_cli_usage_error("tasks", "--compat knows only 'dasf', not", arg);
        a->opt.mode = DFS_TASKS_COMPAT;
        return 0;
    case 2003:
        a->graph = arg;
        a->opt.graph_attrs = true;
        return 0;
    case 2004:
        if (strcmp(arg, "graphml") == 0)
            a->graph_format = DFS_GRAPH_GRAPHML;
        else if (strcmp(arg, "dot") == 0)
            a->graph_format = DFS_GRAPH_DOT;
        else
            return dfs_cli_usage_error("tasks", "--graph-format is graphml or dot, not", arg);
        return 0;
    case 2005: {
        dfs_cli_format f = DFS_CLI_TABLE;
        int rc = dfs_cli_parse_format("tasks", arg, false, &f);
        a->json = f == DFS_CLI_JSON;
        return rc;
    }
    case 2007:
        a->opt.bucket_s = strtod(arg, &end);
        if (*end || end == arg || !(a->opt.bucket_s >= 0.001 && a->opt.bucket_s <= 86400))
            return dfs_cli_usage_error("tasks", "--bucket takes seconds from 0.001 to 86400, not", arg);
        return 0;
    default: return -1;
    }
}

/* Inputs keep their order: getopt's "-" mode hands over every PATH where it stands. Names right
 * after -a NAME that are analyses belong to -a (DASF's nargs="+"). */
static int parse_args(tasks_args *a, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"analyses", required_argument, NULL, 'a'}, {"databases", required_argument, NULL, 'd'},
        {"output", required_argument, NULL, 'o'}, {"head", required_argument, NULL, 2001},
        {"compat", required_argument, NULL, 2002}, {"graph", required_argument, NULL, 2003},
        {"graph-format", required_argument, NULL, 2004}, {"format", required_argument, NULL, 2005},
        {"fill-seconds", no_argument, NULL, 2006}, {"bucket", required_argument, NULL, 2007},
        {"help", no_argument, NULL, 'h'}, DFS_CLI_COMMON_LONGOPTS, {NULL, 0, NULL, 0}};
    a->head = 30;
    a->paths = calloc((size_t)argc + 1, sizeof *a->paths);
    if (!a->paths)
        return DFS_EXIT_OUTPUT;
    bool after_a = false;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "-a:d:o:j:hvq", longopts, NULL)) != -1;) {
        if (c == 1 && after_a && parse_analyses(optarg, &a->opt.analyses))
            continue;
        after_a = c == 'a';
        if (c == 1 || c == 'd') {
            a->paths[a->npaths++] = optarg;
            continue;
        }
        int handled = dfs_cli_common_option(&a->common, "tasks", c, optarg);
        if (handled < 0)
            return DFS_EXIT_USAGE;
        if (handled)
            continue;
        if (c == 'h') {
            usage(stdout);
            return DFS_EXIT_OK;
        }
        if (c == 2006) {
            a->opt.fill_seconds = true;
            continue;
        }
        int rc = c == '?' || c == ':' ? -1 : option_value(a, c, optarg);
        if (rc > 0)
            return rc;
        if (rc < 0) {
            fprintf(stderr, "dfscope tasks: see 'dfscope tasks --help'\n");
            return DFS_EXIT_USAGE;
        }
    }
    return -1;
}

static bool output_clashes(const dfs_run *run, const tasks_args *a)
{
    static const char *const names[] = {"function_bottleneck", "task_bottleneck", "task_balance",
                                        "critical_path", "event_durations"};
    char path[4096];
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        const char *in = dfs_run_file(run, i)->path;
        if (a->graph && dfs_same_file(in, a->graph))
            return true;
        for (size_t k = 0; a->outdir && k < sizeof names / sizeof *names; k++) {
            snprintf(path, sizeof path, "%s/%s.csv", a->outdir, names[k]);
            if (dfs_same_file(in, path))
                return true;
        }
    }
    return false;
}

/* Files first (CSV, graph), then stdout; returns DFS_EXIT_OK or DFS_EXIT_OUTPUT. */
static int write_outputs(const tasks_args *a, const dfs_tasks *t, const dfs_tasks_result *r)
{
    char err[512];
    int rc = DFS_EXIT_OK;
    if (a->outdir && dfs_tasks_write_csv_dir(a->outdir, r, err, sizeof err) != 0) {
        fprintf(stderr, "dfscope tasks: %s\n", err);
        rc = DFS_EXIT_OUTPUT;
    }
    if (a->graph && dfs_tasks_write_graph(a->graph, a->graph_format, t, r, err, sizeof err) != 0) {
        fprintf(stderr, "dfscope tasks: %s\n", err);
        rc = DFS_EXIT_OUTPUT;
    }
    if (a->json)
        dfs_tasks_write_json(stdout, r, a->head);
    else
        dfs_tasks_write_text(stdout, r, a->head);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "dfscope tasks: cannot write the output\n");
        rc = DFS_EXIT_OUTPUT;
    }
    return rc;
}

static int run_tasks(tasks_args *a)
{
    bool bad_path;
    int rc;
    dfs_run *run = dfs_cli_open(&a->common, "tasks", a->paths, a->npaths, &bad_path, &rc);
    if (!run)
        return rc;
    if (output_clashes(run, a)) {
        fprintf(stderr, "dfscope tasks: refusing to write an output over one of the inputs\n");
        dfs_run_free(run);
        return DFS_EXIT_USAGE;
    }
    dfs_tasks *t = dfs_tasks_new(&a->opt);
    if (!t) {
        fprintf(stderr, "dfscope tasks: out of memory\n");
        dfs_run_free(run);
        return DFS_EXIT_OUTPUT;
    }
    dfs_consumer *consumers[] = {dfs_tasks_consumer(t)};
    rc = dfs_cli_read(&a->common, run, consumers, 1, bad_path);
    if (rc != DFS_EXIT_OUTPUT) {
        const dfs_tasks_result *r = dfs_tasks_finish(t, run);
        int wrc = r ? write_outputs(a, t, r) : DFS_EXIT_OUTPUT;
        if (!r)
            fprintf(stderr, "dfscope tasks: out of memory while analysing\n");
        if (wrc != DFS_EXIT_OK)
            rc = wrc;
    }
    dfs_tasks_free(t);
    dfs_run_free(run);
    return rc;
}

int dfs_cmd_tasks(int argc, char **argv)
{
    tasks_args a;
    memset(&a, 0, sizeof a);
    dfs_cli_common_init(&a.common);
    dfs_tasks_options_init(&a.opt);
    int rc = parse_args(&a, argc, argv);
    if (rc < 0) {
        if (a.opt.mode == DFS_TASKS_COMPAT && (a.opt.fill_seconds || a.opt.bucket_s != 1))
            fprintf(stderr, "dfscope tasks: --fill-seconds and --bucket are ignored with --compat dasf\n");
        rc = run_tasks(&a);
    }
    free(a.paths);
    return rc;
}
