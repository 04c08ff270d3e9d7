/* cmd_tasks.c - `dfscope tasks PATH...`: DASF's task analyses (function and task bottlenecks,
 * worker balance) and the critical path of the task graph. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/tasks/tasks.h"
#include "cli/command.h"
#include "output/atomic.h"
#include "output/tasks_report.h"
#include "util/suggest.h"

typedef struct tasks_args {
    dfs_cli_args base; /* base.output: the CSV directory */
    dfs_tasks_options opt;
    const char *graph;
    dfs_graph_format graph_format;
    size_t head;
} tasks_args;

static void init(void *args)
{
    tasks_args *a = args;
    dfs_tasks_options_init(&a->opt);
    a->head = 30;
}

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

/* Names the first name of the list that is no analysis, every analysis, and the one it most
 * likely meant. */
static int unknown_analysis(const char *cmd, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    const char *word = list;
    for (char *name = copy ? strtok_r(copy, ",", &save) : NULL; name; name = strtok_r(NULL, ",", &save))
        if (strcmp(name, "all") != 0 && !dfs_tasks_analysis_bit(name)) {
            word = name;
            break;
        }
    dfs_suggest s;
    dfs_suggest_init(&s, word);
    dfs_suggest_offer(&s, "all");
    fprintf(stderr, "dfscope %s: unknown analysis '%s'; the analyses are", cmd, word);
    for (unsigned i = 0; dfs_tasks_analysis_name(i); i++) {
        dfs_suggest_offer(&s, dfs_tasks_analysis_name(i));
        fprintf(stderr, " %s,", dfs_tasks_analysis_name(i));
    }
    fprintf(stderr, " or all");
    dfs_cli_end_with_guess("", dfs_suggest_best(&s), "");
    free(copy);
    return DFS_EXIT_USAGE;
}

static int set_analyses(void *args, const char *cmd, const char *arg)
{
    return parse_analyses(arg, &((tasks_args *)args)->opt.analyses) ? -1 : unknown_analysis(cmd, arg);
}

/* Names right after -a NAME that are analyses belong to -a (DASF's nargs="+"). */
static bool claim(void *args, const dfs_cli_option *prev, const char *arg)
{
    return prev->letter == 'a' && parse_analyses(arg, &((tasks_args *)args)->opt.analyses);
}

static int set_head(void *args, const char *cmd, const char *arg)
{
    char *end;
    unsigned long long n = strtoull(arg, &end, 10);
    if (*arg == '-' || *end || end == arg || n > 100000000)
        return dfs_cli_usage_error(cmd, "--head takes a number of rows, not", arg);
    ((tasks_args *)args)->head = (size_t)n;
    return -1;
}

static const dfs_cli_choice dasf[] = {{"dasf", DFS_TASKS_COMPAT}, {0}};
static const dfs_cli_choice graph_formats[] = {{"graphml", DFS_GRAPH_GRAPHML}, {"dot", DFS_GRAPH_DOT}, {0}};

/* The graph's annotations are kept only when it is written. */
static int validate(void *args)
{
    tasks_args *a = args;
    a->opt.graph_attrs = a->graph != NULL;
    if (a->opt.mode == DFS_TASKS_COMPAT && (a->opt.fill_seconds || a->opt.bucket_s != 1))
        fprintf(stderr, "dfscope tasks: --fill-seconds and --bucket are ignored with --compat dasf\n");
    return -1;
}

static bool clashes(const void *args, const dfs_run *run)
{
    static const char *const names[] = {"function_bottleneck", "task_bottleneck", "task_balance",
                                        "critical_path", "event_durations"};
    const tasks_args *a = args;
    char path[4096];
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        const char *in = dfs_run_file(run, i)->path;
        if (a->graph && dfs_same_file(in, a->graph))
            return true;
        for (size_t k = 0; a->base.output && k < sizeof names / sizeof *names; k++) {
            snprintf(path, sizeof path, "%s/%s.csv", a->base.output, names[k]);
            if (dfs_same_file(in, path))
                return true;
        }
    }
    return false;
}

static void emit(FILE *out, const void *args, const dfs_cli_result *res)
{
    const tasks_args *a = args;
    if (a->base.format == DFS_CLI_JSON)
        dfs_tasks_write_json(out, res->result, a->head);
    else
        dfs_tasks_write_text(out, res->result, a->head);
}

/* Files first (CSV, graph), then stdout. */
static int write_report(void *args, const dfs_cli_result *res)
{
    const tasks_args *a = args;
    char err[512];
    int rc = DFS_EXIT_OK;
    if (a->base.output && dfs_tasks_write_csv_dir(a->base.output, res->result, res->guard, err, sizeof err) != 0)
        rc = dfs_cli_write_error("tasks", res, err);
    if (a->graph &&
        dfs_tasks_write_graph(a->graph, a->graph_format, res->obj, res->result, res->guard, err, sizeof err) != 0)
        rc = dfs_cli_write_error("tasks", res, err);
    int wrc = dfs_cli_emit(&dfs_cmd_tasks, a, res, NULL);
    return wrc != DFS_EXIT_OK ? wrc : rc;
}

#define ARG(field) DFS_FIELD(tasks_args, field)

static const dfs_cli_option options[] = {
    DFS_OPTION("analyses", 'a', "NAME...", DFS_OPT_CALL,
               "function_bottleneck, task_bottleneck, task_balance,\n"
               "critical_path or all (several names, or commas); always run\n"
               "in that order (default: DASF's three with --compat, else all)",
               .apply = set_analyses),
    DFS_OPTION("databases", 'd', "PATH", DFS_OPT_INPUT, "an input (DASF's spelling; PATH arguments work as well)"),
    DFS_OPTION("output", 'o', "DIR", DFS_OPT_STRING,
               "also write <analysis>.csv into DIR (created if missing),\n"
               "each file atomically, with DASF's column names",
               ARG(base.output)),
    DFS_OPTION("head", 0, "N", DFS_OPT_CALL, "rows printed per table (default 30, as DASF; 0 = all)",
               .apply = set_head),
    DFS_OPTION("compat", 0, "dasf", DFS_OPT_CHOICE,
               "DASF's exact numbers, quirks included (per-worker\n"
               "percentages, resource window after the task end, first match\n"
               "by function name); default: DASF's bugs fixed",
               ARG(opt.mode), .choices = dasf, .bad = "--compat knows only 'dasf', not"),
    DFS_OPTION("graph", 0, "FILE", DFS_OPT_STRING, "write the annotated task graph (.graphml, or .dot / .gv)",
               ARG(graph)),
    DFS_OPTION("graph-format", 0, "F", DFS_OPT_CHOICE, "graphml | dot (default: from the file name)",
               ARG(graph_format), .choices = graph_formats, .bad = "--graph-format is graphml or dot, not"),
    DFS_OPTION("format", 0, "F", DFS_OPT_FORMAT, "table (default) | json", ARG(base.format)),
    DFS_OPTION("fill-seconds", 0, NULL, DFS_OPT_FLAG,
               "task_balance: a row for every second, each worker's value\n"
               "carried forward (default mode only)",
               ARG(opt.fill_seconds)),
    DFS_OPTION("bucket", 0, "SECONDS", DFS_OPT_NUMBER, "task_balance slot width, e.g. 0.1 (default 1; default mode)",
               ARG(opt.bucket_s), .lo = 0.001, .hi = 86400,
               .bad = "--bucket takes seconds from 0.001 to 86400, not"),
    {0},
};

const dfs_cli_command dfs_cmd_tasks = {
    .name = "tasks",
    .summary = "DASF task analyses: function/task bottlenecks, worker balance, critical path",
    .description = "DASF profiler traces (length-prefixed msgpack, or the older \"trace: <json>\" text):\n"
                   "the analyses of DASF's TraceAnalyser - function_bottleneck, task_bottleneck,\n"
                   "task_balance - with DASF's columns, units and sort order, plus the critical path of\n"
                   "the task graph. Several databases are read one after the other in the order given,\n"
                   "as DASF's MultiEventDatabase does. Tables go to stdout, problems to stderr.",
    .epilogue = "The first line of the output names the mode that ran; notes follow (e.g. GPU columns\n"
                "unavailable on CPU-only traces). Exit codes: 0 ok, 1 damaged input skipped, 2 usage or\n"
                "unreadable input, 3 --strict and damage found, 4 output error.\n",
    .options = options,
    .groups = DFS_CLI_READING | DFS_CLI_JOBS,
    .args_size = sizeof(tasks_args),
    .init = init,
    .claim = claim,
    .validate = validate,
    .analysis = &dfs_tasks_analysis,
    .analysis_options = offsetof(tasks_args, opt),
    .clashes = clashes,
    .write = write_report,
    .emit = emit};
