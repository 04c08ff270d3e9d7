/* skeleton.c - runs a declared command (command.h): builds the getopt_long table from the
 * declaration, parses (inputs keep the order given), answers -h/--help, checks (an input, -o DIR
 * for a CSV directory, every named input there), then runs the command or reads its analysis and
 * writes: the command's report to -o or stdout, or its CSV directory. What getopt refuses is said
 * here, in the command's words, with the option a mistyped one most likely meant (util/suggest.h).
 *
 * Invariants: every exit code is an enum dfs_exit; a usage error is said once on stderr; under
 * MPI every rank ends through dfs_cli_done (one agreed exit code). */
#include "cli/command.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/command_internal.h"
#include "dist/comm.h"
#include "output/atomic.h"
#include "read/run.h"
#include "util/suggest.h"

enum { CODE_BASE = 256 }; /* getopt_long's value of option i without a letter: CODE_BASE + i */

typedef struct parser {
    dfs_cli_optlist list;
    struct option longopts[DFS_CLI_MAX_OPTIONS + 2];
    char shortopts[2 * DFS_CLI_MAX_OPTIONS + 5];
} parser;

static void build(const dfs_cli_command *cmd, parser *p)
{
    dfs_cli_collect_options(cmd, &p->list);
    size_t k = 0;
    p->shortopts[k++] = '-'; /* PATH arguments come back in place, as value 1 */
    p->shortopts[k++] = ':'; /* a missing value comes back as ':', told apart from an unknown option */
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

/* "-o" or "--output": how the help names an option. */
static void put_name(const dfs_cli_option *o)
{
    if (o->letter)
        fprintf(stderr, "-%c", o->letter);
    else
        fprintf(stderr, "--%s", o->name);
}

/* A long option getopt did not take: a name it does not know (with the closest one), a prefix of
 * several (with all of them), or a value given to an option that takes none. */
static void say_bad_long(const char *cmd, const parser *p, const char *word)
{
    char name[DFS_SUGGEST_MAX + 1];
    size_t len = strcspn(word, "=");
    snprintf(name, sizeof name, "%.*s", (int)(len < DFS_SUGGEST_MAX ? len : DFS_SUGGEST_MAX), word);
    dfs_suggest s;
    dfs_suggest_init(&s, name);
    dfs_suggest_offer(&s, "help");
    bool known = strcmp(name, "help") == 0;
    for (size_t i = 0; i < p->list.n; i++) {
        known |= strcmp(p->list.v[i]->name, name) == 0;
        dfs_suggest_offer(&s, p->list.v[i]->name);
    }
    if (known) { /* getopt refuses a known name only when it is given a value it does not take */
        fprintf(stderr, "dfscope %s: --%s takes no value (see 'dfscope %s --help')\n", cmd, name, cmd);
        return;
    }
    if (s.nprefixed > 1) {
        fprintf(stderr, "dfscope %s: '--%s' is ambiguous; it could be", cmd, name);
        for (size_t i = 0, k = 0; i < p->list.n; i++)
            if (strncmp(p->list.v[i]->name, name, len) == 0)
                fprintf(stderr, "%s--%s", k++ ? ", " : " ", p->list.v[i]->name);
        fprintf(stderr, " (see 'dfscope %s --help')\n", cmd);
        return;
    }
    fprintf(stderr, "dfscope %s: unknown option '--%s'", cmd, name);
    char see[96];
    snprintf(see, sizeof see, " (see 'dfscope %s --help')", cmd);
    dfs_cli_end_with_guess("--", dfs_suggest_best(&s), see);
}

/* What getopt refused, said once. getopt's optopt tells the cases apart: with ':' the option
 * whose value is missing; with '?' an unknown letter, or a known option given a value it does not
 * take (--json=1), or 0 for a long name that is unknown or ambiguous. */
static int bad_option(const dfs_cli_command *cmd, const parser *p, int c, const char *word)
{
    const dfs_cli_option *o = optopt ? option_of(p, optopt) : NULL;
    if (c == ':' && o) {
        fprintf(stderr, "dfscope %s: ", cmd->name);
        put_name(o);
        fprintf(stderr, " needs a value (%s; see 'dfscope %s --help')\n", o->metavar, cmd->name);
    } else if (optopt && !o && optopt != 'h') {
        fprintf(stderr, "dfscope %s: unknown option '-%c' (see 'dfscope %s --help')\n", cmd->name, optopt,
                cmd->name);
    } else if (word && strncmp(word, "--", 2) == 0) {
        say_bad_long(cmd->name, p, word + 2);
    } else {
        fprintf(stderr, "dfscope %s: bad option (see 'dfscope %s --help')\n", cmd->name, cmd->name);
    }
    return DFS_EXIT_USAGE;
}

/* Parses argv into args: -1 to go on, else the exit code (help printed, or a usage error said). */
static int parse(const dfs_cli_command *cmd, void *args, int argc, char **argv)
{
    dfs_cli_args *base = args;
    parser p;
    build(cmd, &p);
    const dfs_cli_option *prev = NULL;
    optind = 1;
    opterr = 0; /* bad_option says it, in the command's words */
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
        prev = c == '?' || c == ':' ? NULL : option_of(&p, c);
        if (!prev)
            return bad_option(cmd, &p, c, optind > 1 && optind <= argc ? argv[optind - 1] : NULL);
        int rc = dfs_cli_apply_option(cmd, prev, args, prev->metavar ? optarg : NULL);
        if (rc >= 0)
            return rc;
    }
    for (int i = optind; i < argc; i++) /* after "--" */
        base->paths[base->npaths++] = argv[i];
    return -1;
}

/* What the reading driver hands back to the command's hooks. */
typedef struct running {
    const dfs_cli_command *cmd;
    void *args;
} running;

static bool clashes(const void *user, const dfs_run *run)
{
    const running *x = user;
    return x->cmd->clashes(x->args, run);
}

static int write_csv_dir(const dfs_cli_command *cmd, const dfs_cli_args *base, const dfs_cli_result *r);

static int write_result(void *user, const dfs_cli_result *r)
{
    const running *x = user;
    const dfs_cli_args *base = x->args;
    char nothing[256];
    if (!base->common.quiet && x->cmd->found_nothing && x->cmd->found_nothing(x->args, r, nothing, sizeof nothing))
        dfs_cli_say_found_nothing(stderr, x->cmd->name, nothing, r->run);
    else if (!base->common.quiet && x->cmd->warn)
        x->cmd->warn(x->args, r);
    if (x->cmd->write)
        return x->cmd->write(x->args, r);
    if (base->format == DFS_CLI_CSV && x->cmd->csv_files)
        return write_csv_dir(x->cmd, base, r);
    return dfs_cli_emit(x->cmd, x->args, r, base->output);
}

static int run_analysis(const dfs_cli_command *cmd, void *args)
{
    dfs_cli_args *base = args;
    int rc = cmd->begin ? cmd->begin(args) : -1;
    if (rc < 0) {
        running x = {cmd, args};
        const dfs_cli_job job = {.cmd = cmd->name,
                                 .an = cmd->analysis,
                                 .opt = cmd->analysis_options ? (char *)args + cmd->analysis_options : NULL,
                                 .output = base->output,
                                 .clashes = cmd->clashes ? clashes : NULL,
                                 .write = write_result,
                                 .user = &x};
        rc = dfs_cli_run_analysis(&base->common, base->paths, base->npaths, &job);
    }
    return cmd->end ? cmd->end(args, rc) : rc;
}

/* The checks every command gets right after parsing: -1 to go on, else the exit code (said). */
static int check(const dfs_cli_command *cmd, const dfs_cli_args *base)
{
    if ((cmd->flags & DFS_CLI_NEEDS_INPUT) && base->npaths == 0)
        return dfs_cli_no_input(cmd->name);
    if (cmd->csv_dir && base->format == DFS_CLI_CSV && !base->output) {
        fprintf(stderr, "dfscope %s: --format csv writes %s: give -o DIR\n", cmd->name, cmd->csv_dir);
        return DFS_EXIT_USAGE;
    }
    return -1;
}

/* Every named input is there, before anything else is said or read: a mistyped path stops the
 * command (exit 2) with each missing one named, instead of a run over the others. Under an MPI
 * launcher every rank stops, and rank 0 speaks. */
static int check_paths(const dfs_cli_command *cmd, const dfs_cli_args *base)
{
    int rc = -1;
    bool speak = !dfs_comm_launched_other_rank();
    for (int i = 0; i < base->npaths; i++) {
        char why[600];
        if (!dfs_inputs_exist(base->paths[i], why, sizeof why)) {
            if (speak)
                fprintf(stderr, "dfscope %s: %s\n", cmd->name, why);
            rc = DFS_EXIT_USAGE;
        }
    }
    /* The launcher ends the whole job when a rank exits non-zero, rank 0 included, and what rank 0
     * wrote may not have been forwarded yet: the silent ranks leave a moment after it. (No barrier:
     * a rank that finds every path, on another node, would wait in it forever.) */
    if (rc >= 0 && !speak)
        nanosleep(&(struct timespec){.tv_sec = 1}, NULL);
    return rc;
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
    if (rc < 0)
        rc = check(cmd, base);
    if (rc < 0 && cmd->validate)
        rc = cmd->validate(base);
    if (rc < 0)
        rc = check_paths(cmd, base);
    char **kept = NULL;
    if (rc < 0 && (cmd->groups & DFS_CLI_JOBS))
        rc = dfs_cli_leave_out_merges(cmd->name, &base->common, &base->paths, &base->npaths, &kept);
    if (rc < 0) {
        base->common.one_job = (cmd->groups & DFS_CLI_JOBS) && !base->common.mix;
        rc = cmd->run ? cmd->run(base) : run_analysis(cmd, base);
        rc = dfs_cli_done(&base->common, rc);
    }
    dfs_cli_free_paths(kept);
    dfs_cli_free_left_out(&base->common);
    if (cmd->cleanup)
        cmd->cleanup(base);
    free(paths);
    free(base);
    return rc;
}

/* ---- writing ---- */

int dfs_cli_error(const char *cmd, int rc, const char *why)
{
    fprintf(stderr, "dfscope %s: %s\n", cmd, why);
    return rc;
}

static int output_error(const char *cmd, const char *why)
{
    return dfs_cli_error(cmd, DFS_EXIT_OUTPUT, why);
}

int dfs_cli_write_error(const char *cmd, const dfs_cli_result *r, const char *why)
{
    return dfs_cli_error(cmd, r->guard && r->guard->refused ? DFS_EXIT_USAGE : DFS_EXIT_OUTPUT, why);
}

int dfs_cli_emit(const dfs_cli_command *cmd, const void *args, const dfs_cli_result *r, const char *output)
{
    if (!output) {
        cmd->emit(stdout, args, r);
        return fflush(stdout) == 0 && !ferror(stdout) ? DFS_EXIT_OK
                                                      : output_error(cmd->name, "cannot write the output");
    }
    char err[512];
    dfs_atomic_file af;
    if (dfs_atomic_open(&af, output, r->guard, err, sizeof err) != 0)
        return dfs_cli_write_error(cmd->name, r, err);
    cmd->emit(af.fp, args, r);
    if (dfs_atomic_close(&af, true, err, sizeof err) != 0)
        return output_error(cmd->name, err);
    return DFS_EXIT_OK;
}

static int write_csv_dir(const dfs_cli_command *cmd, const dfs_cli_args *base, const dfs_cli_result *r)
{
    dfs_csv_file files[DFS_CLI_MAX_CSV_FILES];
    size_t n = cmd->csv_files(base, r, files);
    char err[512];
    if (dfs_csv_dir_write(base->output, false, files, n, r->result, r->guard, err, sizeof err) != 0)
        return dfs_cli_write_error(cmd->name, r, err);
    return DFS_EXIT_OK;
}

int dfs_cli_no_input(const char *cmd)
{
    fprintf(stderr, "dfscope %s: no input (see 'dfscope %s --help')\n", cmd, cmd);
    return DFS_EXIT_USAGE;
}
