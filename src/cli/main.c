/* main.c - the dfscope command line: git-style subcommands over libdfscope. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "dfscope.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"stats", dfs_cmd_stats, "read traces and summarise them: formats, events, names, problems"},
    {"analyze", dfs_cmd_analyze, "layered analysis (DFAnalyzer-compatible): layers, views, metrics"},
    {"overlap", dfs_cmd_overlap, "I/O versus compute overlap: exact unions and differences per process, bin, epoch"},
    {"tasks", dfs_cmd_tasks, "DASF task analyses: function/task bottlenecks, worker balance, critical path"},
    {"steps", dfs_cmd_steps, "training steps: data wait, compute, TensorBoard breakdown, input-bound verdicts"},
    {"dataloader", dfs_cmd_dataloader, "SageMaker Debugger data-loader analysis: GetNext, batch time, outlier windows"},
    {"timeline", dfs_cmd_timeline, "an SVG picture of a time window: lanes per thread, classes, counters"},
    {"merge", dfs_cmd_merge, "one Chrome trace from many: clocks aligned, pids kept apart, sorted"},
    {"rules", dfs_cmd_rules, "SageMaker Debugger profiler rules: bottlenecks, GPU use, step outliers, balance"},
    {"gen", dfs_cmd_gen, "write deterministic synthetic traces (DFTracer, Chrome JSON, DASF)"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: dfscope <command> [options] PATH...\n"
                 "       dfscope help [command]\n"
                 "       dfscope --version\n\n"
                 "Trace analyzer for AI and HPC workloads (DFTracer, PyTorch profiler/Kineto,\n"
                 "Composer, SageMaker Debugger, Chrome JSON, DASF).\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nRun 'dfscope <command> --help' for the options of a command.\n"
                 "Exit codes: 0 ok, 1 damaged input skipped, 2 usage or unreadable input,\n"
                 "            3 --strict and damage found, 4 output error.\n");
}

static const command *find(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return DFS_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("dfscope %s\n", DFS_VERSION_STRING);
        return DFS_EXIT_OK;
    }
    if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        if (argc > 2) {
            const command *c = find(argv[2]);
            if (!c) {
                fprintf(stderr, "dfscope: unknown command '%s'\n", argv[2]);
                return DFS_EXIT_USAGE;
            }
            char *help_argv[] = {(char *)c->name, "--help", NULL};
            return c->run(2, help_argv);
        }
        usage(stdout);
        return DFS_EXIT_OK;
    }
    const command *c = find(name);
    if (!c) {
        fprintf(stderr, "dfscope: unknown command '%s' (see 'dfscope help')\n", name);
        return DFS_EXIT_USAGE;
    }
    return c->run(argc - 1, argv + 1);
}
