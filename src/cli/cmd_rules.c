/* cmd_rules.c - `dfscope rules PATH...`: the SageMaker Debugger profiler rules on whatever
 * system metrics and framework events the traces hold. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/rules/rules.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "output/atomic.h"
#include "output/rules_report.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: dfscope rules [options] PATH...\n\n"
            "The SageMaker Debugger profiler rules (Dataloader, IOBottleneck, CPUBottleneck,\n"
            "LowGPUUtilization, StepOutlier, MaxInitializationTime, BatchSize, LoadBalancing,\n"
            "GPUMemoryIncrease, OverallSystemUsage) over the system metrics and framework events\n"
            "the traces hold: smdebug system and framework files, Composer cpu/memory counters,\n"
            "Kineto ProfilerStep#N and Composer event/batch steps. Each rule reports RuleTriggered,\n"
            "Violations, Details, Datapoints and RuleParameters as the reference's profiler report\n"
            "does, and says why when its inputs are missing instead of guessing.\n\n"
            "options:\n"
            "      --rules LIST      rules to run, comma-separated, case-insensitive (default all)\n"
            "      --param R.N=V     set parameter N of rule R (repeatable), e.g.\n"
            "                        --param StepOutlier.min_steps=29\n"
            "      --list            list the rules and their parameters, then exit\n"
            "      --compat smdebug  the reference's behaviour, quirks included (default: its\n"
            "                        result-changing bugs fixed; see docs/RULES.md)\n"
            "      --format F        table (default) | json | csv\n"
            "  -o, --output FILE     write the result to FILE (atomically) instead of stdout\n"
            DFS_CLI_COMMON_HELP
            "  -h, --help            this help\n\n"
            "Exit codes: 0 ok, 1 damaged input skipped, 2 usage or unreadable input,\n"
            "3 --strict and damage found, 4 output error. A rule that triggers is a result, not an\n"
            "error.\n");
}


typedef struct rules_args {
    dfs_cli_common common;
    dfs_rules_options opt;
    char **paths;
    int npaths;
    const char *output;
    dfs_cli_format format;
    bool list;
} rules_args;

static int option_value(rules_args *a, int c, const char *arg)
{
    char err[256];
    switch (c) {
    case 'o': a->output = arg; return 0;
    case 2001:
        return dfs_rules_select(&a->opt, arg, err, sizeof err) ? 0 : dfs_cli_usage_error("rules", err, NULL);
    case 2002:
        return dfs_rules_set_param(&a->opt, arg, err, sizeof err) ? 0 : dfs_cli_usage_error("rules", err, NULL);
    case 2003:
        if (strcmp(arg, "smdebug") != 0)
            return dfs_cli_usage_error("rules", "--compat knows only 'smdebug', not", arg);
        a->opt.mode = DFS_RULES_COMPAT;
        return 0;
    case 2004:
        return dfs_cli_parse_format("rules", arg, true, &a->format);
    default: return dfs_cli_usage_error("rules", "unknown option", NULL);
    }
}

/* Returns -1 to go on, else an exit code. */
static int parse_args(rules_args *a, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"rules", required_argument, NULL, 2001}, {"param", required_argument, NULL, 2002},
        {"compat", required_argument, NULL, 2003}, {"format", required_argument, NULL, 2004},
        {"list", no_argument, NULL, 2005}, {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'}, DFS_CLI_COMMON_LONGOPTS, {NULL, 0, NULL, 0}};
    a->paths = calloc((size_t)argc + 1, sizeof *a->paths);
    if (!a->paths)
        return DFS_EXIT_OUTPUT;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "-o:j:hvq", longopts, NULL)) != -1;) {
        if (c == 1) {
            a->paths[a->npaths++] = optarg;
            continue;
        }
        int handled = dfs_cli_common_option(&a->common, "rules", c, optarg);
        if (handled < 0)
            return DFS_EXIT_USAGE;
        if (handled)
            continue;
        if (c == 'h') {
            usage(stdout);
            return DFS_EXIT_OK;
        }
        if (c == 2005) {
            a->list = true;
            continue;
        }
        if (c == '?' || c == ':')
            return dfs_cli_usage_error("rules", "bad option", NULL);
        int rc = option_value(a, c, optarg);
        if (rc)
            return rc;
    }
    return -1;
}

static void write_result(FILE *out, const rules_args *a, const dfs_rules_result *r)
{
    if (a->format == DFS_CLI_JSON)
        dfs_rules_write_json(out, r);
    else if (a->format == DFS_CLI_CSV)
        dfs_rules_write_csv(out, r);
    else
        dfs_rules_write_text(out, r);
}

static int write_outputs(const rules_args *a, const dfs_rules_result *r)
{
    char err[512];
    if (!a->output) {
        write_result(stdout, a, r);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "dfscope rules: cannot write the output\n");
            return DFS_EXIT_OUTPUT;
        }
        return DFS_EXIT_OK;
    }
    dfs_atomic_file f;
    if (dfs_atomic_open(&f, a->output, err, sizeof err) != 0) {
        fprintf(stderr, "dfscope rules: %s\n", err);
        return DFS_EXIT_OUTPUT;
    }
    write_result(f.fp, a, r);
    bool ok = !ferror(f.fp);
    if (dfs_atomic_close(&f, ok, err, sizeof err) != 0 || !ok) {
        fprintf(stderr, "dfscope rules: %s\n", ok ? err : "cannot write the output");
        return DFS_EXIT_OUTPUT;
    }
    return DFS_EXIT_OK;
}

static int an_write(void *user, const dfs_cli_result *res)
{
    return write_outputs(user, res->result);
}

static int run_rules(rules_args *a)
{
    const dfs_cli_job job = {.cmd = "rules", .an = &dfs_rules_analysis, .opt = &a->opt, .output = a->output,
                             .write = an_write, .user = a};
    return dfs_cli_run_analysis(&a->common, a->paths, a->npaths, &job);
}

int dfs_cmd_rules(int argc, char **argv)
{
    rules_args a;
    memset(&a, 0, sizeof a);
    dfs_cli_common_init(&a.common);
    dfs_rules_options_init(&a.opt);
    int rc = parse_args(&a, argc, argv);
    if (rc < 0 && a.list) {
        dfs_rules_write_list(stdout);
        rc = fflush(stdout) == 0 ? DFS_EXIT_OK : DFS_EXIT_OUTPUT;
    } else if (rc < 0) {
        rc = run_rules(&a);
    }
    free(a.paths);
    return rc;
}
