/* dispatch.c - the dfscope command line: git-style subcommands over libdfscope, each a declaration
 * (command.h) that the skeleton runs. What main does after catching the signals (main.c), and
 * what an in-process caller runs with its output in memory (capture.h). */
#include <stdio.h>
#include <string.h>

#include "cli/capture.h"
#include "cli/command.h"
#include "dfscope.h"
#include "util/suggest.h"

static const dfs_cli_command *const commands[] = {
    &dfs_cmd_report, &dfs_cmd_stats, &dfs_cmd_analyze,  &dfs_cmd_overlap, &dfs_cmd_tasks, &dfs_cmd_steps,
    &dfs_cmd_gpu, &dfs_cmd_dataloader, &dfs_cmd_timeline, &dfs_cmd_merge, &dfs_cmd_rules, &dfs_cmd_gen,
};

#define COUNT(a) (sizeof a / sizeof *a)

static void usage(FILE *out)
{
    fprintf(out, "usage: dfscope <command> [options] PATH...\n"
                 "       dfscope help [command]\n"
                 "       dfscope --version\n\n"
                 "Trace analyzer for AI and HPC workloads (DFTracer, PyTorch profiler/Kineto,\n"
                 "Composer, SageMaker Debugger, Chrome JSON, DASF).\n\ncommands:\n");
    for (size_t i = 0; i < COUNT(commands); i++)
        fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(out, "\nRun 'dfscope <command> --help' for the options of a command.\n" DFS_CLI_EXIT_CODES);
}

static const dfs_cli_command *find(const char *name)
{
    for (size_t i = 0; i < COUNT(commands); i++)
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    return NULL;
}

/* git's message: "'analyse' is not a command. Did you mean 'analyze'?"; a usage error. */
static int not_a_command(const char *name)
{
    dfs_suggest s;
    dfs_suggest_init(&s, name);
    for (size_t i = 0; i < COUNT(commands); i++)
        dfs_suggest_offer(&s, commands[i]->name);
    fprintf(stderr, "dfscope: '%s' is not a command", name);
    dfs_cli_end_with_guess("", dfs_suggest_best(&s), ". See 'dfscope help'.");
    return DFS_EXIT_USAGE;
}

/* `dfscope help --markdown CMD`: the block of docs/CLI.md (scripts/cli-doc.sh); "shared" for the
 * options every reading command takes. */
static int markdown(const char *name)
{
    const dfs_cli_command *c = find(name);
    if (strcmp(name, "shared") == 0)
        dfs_cli_help_markdown_shared(stdout);
    else if (c)
        dfs_cli_help_markdown(c, stdout);
    else
        return not_a_command(name);
    return fflush(stdout) == 0 ? DFS_EXIT_OK : DFS_EXIT_OUTPUT;
}

static int help(int argc, char **argv)
{
    if (argc > 3 && strcmp(argv[2], "--markdown") == 0)
        return markdown(argv[3]);
    if (argc <= 2) {
        usage(stdout);
        return DFS_EXIT_OK;
    }
    const dfs_cli_command *c = find(argv[2]);
    if (!c)
        return not_a_command(argv[2]);
    char *help_argv[] = {(char *)argv[2], "--help", NULL};
    return dfs_cli_main(c, 2, help_argv);
}

int dfs_cli_dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return DFS_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        fprintf(stdout, "dfscope %s\n", DFS_VERSION_STRING);
        return DFS_EXIT_OK;
    }
    if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        return help(argc, argv);
    const dfs_cli_command *c = find(name);
    if (!c)
        return not_a_command(name);
    return dfs_cli_main(c, argc - 1, argv + 1);
}
