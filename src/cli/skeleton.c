/* skeleton.c - runs a declared command (command.h): builds the getopt_long table from the
 * declaration, parses (inputs keep the order given), answers -h/--help, checks, then runs the
 * command or reads its analysis and writes. Also the writing helpers every command shares.
 *
 * Invariants: every exit code is an enum dfs_exit; a usage error is said once on stderr; under
 * MPI every rank ends through dfs_cli_done (one agreed exit code). */
#include "cli/command.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/command_internal.h"
#include "output/atomic.h"

enum { CODE_BASE = 256 }; /* getopt_long's value of option i without a letter: CODE_BASE + i */

typedef struct parser {
    dfs_cli_optlist list;
    struct option longopts[DFS_CLI_MAX_OPTIONS + 2];
    char shortopts[2 * DFS_CLI_MAX_OPTIONS + 4];
} parser;

static void build(const dfs_cli_command *cmd, parser *p)
{
    dfs_cli_collect_options(cmd, &p->list);
    size_t k = 0;
    p->shortopts[k++] = '-'; /* PATH arguments come back in place, as value 1 */
    for (size_t i = 0; i < p->list.n; i++) {
        const dfs_cli_option *o = p->list.v[i];
        int val = o->letter ? o->letter : CODE_BASE + (int)i;
        p->longopts[i] = (struct option){o->name, o->metavar ? required_argument : no_argument, NULL, val};
        if (o->letter) {
            p->shortopts[k++] = o->letter;
            if (o->metavar)
                p->shortopts[k++] = ':';
        }
    }
    p->longopts[p->list.n] = (struct option){"help", no_argument, NULL, 'h'};
    p->longopts[p->list.n + 1] = (struct option){NULL, 0, NULL, 0};
    p->shortopts[k++] = 'h';
    p->shortopts[k] = '\0';
}

static const dfs_cli_option *option_of(const parser *p, int c)
{
    for (size_t i = 0; i < p->list.n; i++)
        if (p->list.v[i]->letter ? p->list.v[i]->letter == c : CODE_BASE + (int)i == c)
            return p->list.v[i];
    return NULL;
}

/* Parses argv into args: -1 to go on, else the exit code (help printed, or a usage error said). */
static int parse(const dfs_cli_command *cmd, void *args, int argc, char **argv)
{
    dfs_cli_args *base = args;
    parser p;
    build(cmd, &p);
    const dfs_cli_option *prev = NULL;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, p.shortopts, p.longopts, NULL)) != -1;) {
        if (c == 1) {
            if (!(prev && cmd->claim && cmd->claim(args, prev, optarg))) {
                base->paths[base->npaths++] = optarg;
                prev = NULL;
            }
            continue;
        }
        if (c == 'h') {
            dfs_cli_help(cmd, stdout);
            return DFS_EXIT_OK;
        }
        prev = option_of(&p, c);
        if (!prev) { /* getopt said what is wrong */
            fprintf(stderr, "dfscope %s: see 'dfscope %s --help'\n", cmd->name, cmd->name);
            return DFS_EXIT_USAGE;
        }
        int rc = dfs_cli_apply_option(cmd, prev, args, prev->metavar ? optarg : NULL);
        if (rc >= 0)
            return rc;
    }
    for (int i = optind; i < argc; i++) /* after "--" */
        base->paths[base->npaths++] = argv[i];
    return -1;
}

static int run_analysis(const dfs_cli_command *cmd, void *args)
{
    dfs_cli_args *base = args;
    int rc = cmd->begin ? cmd->begin(args) : -1;
    if (rc < 0) {
        const dfs_cli_job job = {.cmd = cmd->name,
                                 .an = cmd->analysis,
                                 .opt = cmd->options_of ? cmd->options_of(args) : NULL,
                                 .output = base->output,
                                 .clashes = cmd->clashes,
                                 .write = cmd->write,
                                 .user = args};
        rc = dfs_cli_run_analysis(&base->common, base->paths, base->npaths, &job);
    }
    return cmd->end ? cmd->end(args, rc) : rc;
}

int dfs_cli_main(const dfs_cli_command *cmd, int argc, char **argv)
{
    dfs_cli_args *base = calloc(1, cmd->args_size);
    char **paths = calloc((size_t)argc + 1, sizeof *paths);
    if (!base || !paths) {
        free(base);
        free(paths);
        fprintf(stderr, "dfscope %s: out of memory\n", cmd->name);
        return DFS_EXIT_OUTPUT;
    }
    dfs_cli_common_init(&base->common);
    base->paths = paths;
    if (cmd->init)
        cmd->init(base);
    int rc = parse(cmd, base, argc, argv);
    if (rc < 0 && (cmd->flags & DFS_CLI_NEEDS_INPUT) && base->npaths == 0)
        rc = dfs_cli_no_input(cmd->name);
    if (rc < 0 && cmd->validate)
        rc = cmd->validate(base);
    if (rc < 0) {
        rc = cmd->run ? cmd->run(base) : run_analysis(cmd, base);
        rc = dfs_cli_done(&base->common, rc);
    }
    if (cmd->cleanup)
        cmd->cleanup(base);
    free(paths);
    free(base);
    return rc;
}

/* ---- writing ---- */

static int output_error(const char *cmd, const char *why)
{
    fprintf(stderr, "dfscope %s: %s\n", cmd, why);
    return DFS_EXIT_OUTPUT;
}

int dfs_cli_write_output(const char *cmd, const char *output, void (*emit)(FILE *out, const void *ctx),
                         const void *ctx)
{
    if (!output) {
        emit(stdout, ctx);
        return fflush(stdout) == 0 && !ferror(stdout) ? DFS_EXIT_OK : output_error(cmd, "cannot write the output");
    }
    char err[512];
    dfs_atomic_file af;
    if (dfs_atomic_open(&af, output, err, sizeof err) != 0)
        return output_error(cmd, err);
    emit(af.fp, ctx);
    if (dfs_atomic_close(&af, true, err, sizeof err) != 0)
        return output_error(cmd, err);
    return DFS_EXIT_OK;
}

int dfs_cli_make_dir(const char *cmd, const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST)
        return DFS_EXIT_OK;
    fprintf(stderr, "dfscope %s: cannot create %s: %s\n", cmd, dir, strerror(errno));
    return DFS_EXIT_OUTPUT;
}

int dfs_cli_no_input(const char *cmd)
{
    fprintf(stderr, "dfscope %s: no input (see 'dfscope %s --help')\n", cmd, cmd);
    return DFS_EXIT_USAGE;
}
