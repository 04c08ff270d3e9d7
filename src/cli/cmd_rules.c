/* cmd_rules.c - `dfscope rules PATH...`: the SageMaker Debugger profiler rules on whatever
 * system metrics and framework events the traces hold. */
#include <stddef.h>
#include <string.h>

#include "analyze/rules/rules.h"
#include "cli/command.h"
#include "output/rules_report.h"

typedef struct rules_args {
    dfs_cli_args base;
    dfs_rules_options opt;
    bool list;
} rules_args;

static void init(void *args) { dfs_rules_options_init(&((rules_args *)args)->opt); }

static int select_rules(void *args, const char *cmd, const char *arg)
{
    char err[256];
    bool ok = dfs_rules_select(&((rules_args *)args)->opt, arg, err, sizeof err);
    return ok ? -1 : dfs_cli_usage_error(cmd, err, NULL);
}

static int set_param(void *args, const char *cmd, const char *arg)
{
    char err[256];
    bool ok = dfs_rules_set_param(&((rules_args *)args)->opt, arg, err, sizeof err);
    return ok ? -1 : dfs_cli_usage_error(cmd, err, NULL);
}

static const dfs_cli_choice smdebug[] = {{"smdebug", DFS_RULES_COMPAT}, {0}};

/* --list: the rules and their parameters, whatever else was given. */
static int validate(void *args)
{
    if (!((rules_args *)args)->list)
        return -1;
    dfs_rules_write_list(stdout);
    return fflush(stdout) == 0 ? DFS_EXIT_OK : DFS_EXIT_OUTPUT;
}

static void emit(FILE *out, const void *args, const dfs_cli_result *res)
{
    const rules_args *a = args;
    if (a->base.format == DFS_CLI_JSON)
        dfs_rules_write_json(out, res->result);
    else if (a->base.format == DFS_CLI_CSV)
        dfs_rules_write_csv(out, res->result);
    else
        dfs_rules_write_text(out, res->result);
}

static bool found_nothing(const void *args, const dfs_cli_result *res, char *buf, size_t len)
{
    (void)args;
    const dfs_rules_result *r = res->result;
    for (size_t i = 0; i < r->nrules; i++)
        if (r->rules[i].evaluated)
            return false;
    snprintf(buf, len, "no rule could be evaluated (no system samples or framework events they read)");
    return true;
}

#define ARG(field) DFS_FIELD(rules_args, field)

static const dfs_cli_option options[] = {
    DFS_OPTION("rules", 0, "LIST", DFS_OPT_CALL, "rules to run, comma-separated, case-insensitive (default all)",
               .apply = select_rules),
    DFS_OPTION("param", 0, "R.N=V", DFS_OPT_CALL,
               "set parameter N of rule R (repeatable), e.g.\n"
               "--param StepOutlier.min_steps=29",
               .apply = set_param),
    DFS_OPTION("list", 0, NULL, DFS_OPT_FLAG, "list the rules and their parameters, then exit", ARG(list)),
    DFS_OPTION("compat", 0, "smdebug", DFS_OPT_CHOICE,
               "the reference's behaviour, quirks included (default: its\n"
               "result-changing bugs fixed; see docs/RULES.md)",
               ARG(opt.mode), .choices = smdebug, .bad = "--compat knows only 'smdebug', not"),
    DFS_OPTION("format", 0, "F", DFS_OPT_FORMAT, "table (default) | json | csv", ARG(base.format),
               .hi = 1),
    DFS_OPTION("output", 'o', "FILE", DFS_OPT_STRING, "write the result to FILE (atomically) instead of stdout",
               ARG(base.output)),
    {0},
};

const dfs_cli_command dfs_cmd_rules = {
    .name = "rules",
    .summary = "SageMaker Debugger profiler rules: bottlenecks, GPU use, step outliers, balance",
    .description = "The SageMaker Debugger profiler rules (Dataloader, IOBottleneck, CPUBottleneck,\n"
                   "LowGPUUtilization, StepOutlier, MaxInitializationTime, BatchSize, LoadBalancing,\n"
                   "GPUMemoryIncrease, OverallSystemUsage) over the system metrics and framework events\n"
                   "the traces hold: smdebug system and framework files, Composer cpu/memory counters,\n"
                   "Kineto ProfilerStep#N and Composer event/batch steps. Each rule reports RuleTriggered,\n"
                   "Violations, Details, Datapoints and RuleParameters as the reference's profiler report\n"
                   "does, and says why when its inputs are missing instead of guessing.",
    .epilogue = "Exit codes: 0 ok, 1 damaged input skipped, 2 usage or unreadable input,\n"
                "3 --strict and damage found, 4 output error. A rule that triggers is a result, not an\n"
                "error.\n",
    .options = options,
    .groups = DFS_CLI_READING | DFS_CLI_JOBS,
    .args_size = sizeof(rules_args),
    .init = init,
    .validate = validate,
    .analysis = &dfs_rules_analysis,
    .analysis_options = offsetof(rules_args, opt),
    .found_nothing = found_nothing,
    .emit = emit};
