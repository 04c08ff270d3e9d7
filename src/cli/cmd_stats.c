/* cmd_stats.c - `dfscope stats PATH...`: what is in a set of traces. */
#include <stddef.h>
#include <unistd.h>

#include "analyze/stats/stats.h"
#include "cli/command.h"
#include "output/stats_report.h"

typedef struct stats_args {
    dfs_cli_args base;
    bool json, timing;
    size_t top;
} stats_args;

static void init(void *args)
{
    ((stats_args *)args)->top = 10;
}

static void fill_timing(const stats_args *a, const dfs_run *run, dfs_timing *t)
{
    const dfs_cli_common *c = &a->base.common;
    *t = (dfs_timing){.enabled = a->timing, .jobs = c->opt.jobs > 0 ? c->opt.jobs : (int)sysconf(_SC_NPROCESSORS_ONLN)};
    if (!a->timing)
        return;
    t->wall_s = dfs_cli_now() - c->started;
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        t->disk_bytes += dfs_run_file(run, i)->size;
        t->text_bytes += dfs_run_file(run, i)->bytes;
    }
    t->peak_rss_kb = dfs_cli_peak_rss_kb();
}

static void emit(FILE *out, const void *args, const dfs_cli_result *res)
{
    const stats_args *a = args;
    dfs_timing t;
    fill_timing(a, res->run, &t);
    if (a->json)
        dfs_stats_write_json(out, res->run, res->result, a->top, &t);
    else
        dfs_stats_write_text(out, res->run, res->result, a->top, &t);
}

#define ARG(field) DFS_FIELD(stats_args, field)

static const dfs_cli_option options[] = {
    DFS_OPTION("json", 0, NULL, DFS_OPT_FLAG, "print the JSON document described in docs/CLI.md", ARG(json)),
    DFS_OPTION("output", 'o', "FILE", DFS_OPT_STRING, "write the result to FILE (atomically) instead of stdout",
        ARG(base.output)),
    DFS_OPTION("top", 0, "N", DFS_OPT_SIZE, "categories and names listed (default 10, 0 = all)",
        ARG(top), .hi = 1000000, .bad = "--top takes a count, not", .flags = DFS_OPT_TERSE),
    DFS_OPTION("timing", 0, NULL, DFS_OPT_FLAG, "add wall time, MB/s, events/s and peak RSS", ARG(timing)),
    {0},
};

const dfs_cli_command dfs_cmd_stats = {
    .name = "stats",
    .summary = "read traces and summarise them: formats, events, names, problems",
    .description = "Reads traces (files, directories, globs; any supported format, gzipped or not) and\n"
                   "prints files by format, events by phase, top categories and names with counts and\n"
                   "total duration, processes, threads, hosts, accessed files, the time span and the\n"
                   "problems found. Problem details go to stderr.",
    .options = options,
    .groups = DFS_CLI_READING | DFS_CLI_MPI | DFS_CLI_JOBS,
    .args_size = sizeof(stats_args),
    .init = init,
    .analysis = &dfs_stats_analysis,
    .emit = emit};
