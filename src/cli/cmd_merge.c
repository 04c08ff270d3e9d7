/* cmd_merge.c - `dfscope merge PATH... -o OUT.json[.gz]`: one Chrome trace from many
 * (docs/MERGE.md). Inputs keep the order given: it is the order of --compat composer. */
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/command.h"
#include "output/atomic.h"
#include "output/merge/merge.h"

typedef struct merge_args {
    dfs_cli_args base;
    dfs_merge_options opt;
} merge_args;

static void init(void *args) { dfs_merge_options_init(&((merge_args *)args)->opt); }

static const dfs_cli_choice composer[] = {{"composer", true}, {0}};

static int set_tmpdir(void *args, const char *cmd, const char *arg)
{
    struct stat st;
    if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode) || access(arg, W_OK | X_OK) != 0)
        return dfs_cli_usage_error(cmd, "--tmpdir needs a writable directory, not", arg);
    ((merge_args *)args)->opt.tmpdir = arg;
    return -1;
}

static int validate(void *args)
{
    if (((merge_args *)args)->base.output)
        return -1;
    fprintf(stderr, "dfscope merge: the output is missing: -o OUT.json[.gz]\n");
    return DFS_EXIT_USAGE;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Writes the merged trace atomically; returns DFS_EXIT_OK, DFS_EXIT_OUTPUT, or DFS_EXIT_USAGE when
 * the output is an input. */
static int write_trace(const char *output, const dfs_cli_result *res, dfs_merge_report *rep)
{
    char err[512] = "";
    dfs_merge *m = res->obj;
    const dfs_run *run = res->run;
    dfs_atomic_file af;
    if (dfs_atomic_open(&af, output, res->guard, err, sizeof err) != 0)
        return dfs_cli_write_error("merge", res, err);
    FILE *sink = dfs_merge_sink(fileno(af.fp), ends_with(output, ".gz"));
    dfs_status st = sink ? dfs_merge_write(m, run, sink, rep, err, sizeof err) : DFS_ERR_NOMEM;
    if (!sink)
        snprintf(err, sizeof err, "out of memory");
    bool ok = st == DFS_OK && fclose(sink) == 0;
    if (st == DFS_OK && !ok)
        snprintf(err, sizeof err, "%s: write failed", output);
    else if (st != DFS_OK && sink)
        fclose(sink);
    char cerr[512];
    if (dfs_atomic_close(&af, ok, cerr, sizeof cerr) != 0 && ok) {
        snprintf(err, sizeof err, "%s", cerr);
        ok = false;
    }
    return ok ? DFS_EXIT_OK : dfs_cli_error("merge", DFS_EXIT_OUTPUT, err);
}

/* The trace, its warnings, then the summary on stdout. */
static int write_report(void *args, const dfs_cli_result *res)
{
    const merge_args *a = args;
    dfs_merge_report rep;
    memset(&rep, 0, sizeof rep);
    int rc = write_trace(a->base.output, res, &rep);
    for (size_t i = 0; !a->base.common.quiet && i < rep.nwarnings; i++)
        fprintf(stderr, "dfscope merge: warning: %s\n", rep.warnings[i]);
    if (rc == DFS_EXIT_OK) {
        if (a->base.format == DFS_CLI_JSON)
            dfs_merge_report_json(stdout, &rep, res->run);
        else
            dfs_merge_report_text(stdout, &rep, res->run);
        if (fflush(stdout) != 0 || ferror(stdout))
            rc = DFS_EXIT_OUTPUT;
    }
    dfs_merge_report_free(&rep);
    return rc;
}

#define ARG(field) DFS_FIELD(merge_args, field)

static const dfs_cli_option options[] = {
    DFS_OPTION("output", 'o', "FILE", DFS_OPT_STRING,
               "the merged trace (required); gzip when FILE ends in .gz;\n"
               "written atomically, never over an input",
               ARG(base.output)),
    DFS_OPTION("compat", 0, "composer", DFS_OPT_CHOICE,
               "Composer's merge_traces byte for byte: inputs in argument\n"
               "order, not sorted, its thread_sort_index records (its bugs\n"
               "included, except that it does not fail)",
               ARG(opt.compat_composer), .choices = composer, .bad = "--compat knows only 'composer', not"),
    DFS_OPTION("memory", 0, "SIZE", DFS_OPT_SIZE, "memory for sorting (default 256M, at least 64k)",
               ARG(opt.memory), .lo = DFS_MERGE_MIN_MEMORY, .hi = 1.8e19,
               .bad = "--memory takes a size of at least 64k (e.g. 512M), not"),
    DFS_OPTION("tmpdir", 0, "DIR", DFS_OPT_CALL, "where sorted runs are spilled (default $TMPDIR, else /tmp)",
               .apply = set_tmpdir),
    DFS_OPTION("format", 0, "F", DFS_OPT_FORMAT, "summary on stdout: table (default) | json", ARG(base.format)),
    {0},
};

const dfs_cli_command dfs_cmd_merge = {
    .name = "merge",
    .summary = "one Chrome trace from many: clocks aligned, pids kept apart, sorted",
    .usage = "merge [options] PATH... -o OUT.json[.gz]",
    .description = "One Chrome trace from many: Composer rank files (aligned by their clock sync),\n"
                   "PyTorch profiler / Kineto traces, SageMaker Debugger framework and system files,\n"
                   "DFTracer traces of any generation, Chrome JSON. Every event is kept with all its\n"
                   "args, on one absolute clock (\xC2\xB5s with ns decimals), metadata first, then sorted by\n"
                   "time. pid = global rank for Composer; a pid another input already uses gets a new\n"
                   "number, and its process name says which file it came from. Loads in Perfetto UI\n"
                   "and chrome://tracing. Sorting uses bounded memory: beyond --memory, sorted runs\n"
                   "are spilled to temporary files and merged back.",
    .epilogue = "Exit codes: 0 ok, 1 damaged input skipped (reported), 2 usage or unreadable input,\n"
                "3 --strict and damage found, 4 output error.\n",
    .options = options,
    .groups = DFS_CLI_READING,
    .args_size = sizeof(merge_args),
    .init = init,
    .validate = validate,
    .analysis = &dfs_merge_analysis,
    .analysis_options = offsetof(merge_args, opt),
    .write = write_report};
