/* cmd_dataloader.c - `dfscope dataloader PATH...`: SageMaker Debugger's data-loader analysis
 * (iterator initializations, worker processes, GetNext calls, batch time, outlier windows). */
#include <stddef.h>

#include "analyze/dataloader/dataloader.h"
#include "cli/command.h"
#include "output/dataloader_report.h"

typedef struct dl_args {
    dfs_cli_args base;
    dfs_dl_options opt;
    dfs_dl_report_options report;
} dl_args;

static void init(void *args)
{
    dl_args *a = args;
    dfs_dl_options_init(&a->opt);
    a->report.window_events = 20;
}

/* The patterns must compile (checked before any input). */
static int validate(void *args)
{
    const dl_args *a = args;
    char err[512];
    void *d = dfs_dataloader_analysis.create(&a->opt, err, sizeof err);
    if (!d)
        return dfs_cli_error("dataloader", DFS_EXIT_USAGE, err);
    dfs_dataloader_analysis.destroy(d);
    return -1;
}

static bool clashes(const void *args, const dfs_run *run)
{
    const dl_args *a = args;
    return dfs_cli_output_is_input(run, a->base.output) ||
           (a->report.windows_dir && dfs_cli_output_is_input(run, a->report.windows_dir));
}

static void emit(FILE *out, const void *args, const dfs_cli_result *res)
{
    const dl_args *a = args;
    if (a->base.format == DFS_CLI_JSON)
        dfs_dl_write_json(out, res->run, res->result, &a->report);
    else
        dfs_dl_write_text(out, res->run, res->result, &a->report);
}

static int write_outputs(const dl_args *a, const dfs_cli_result *res)
{
    char err[512];
    if (a->report.windows_dir &&
        dfs_dl_write_windows(a->report.windows_dir, res->run, res->result, res->guard, err, sizeof err))
        return dfs_cli_write_error("dataloader", res, err);
    if (a->base.format != DFS_CLI_CSV)
        return dfs_cli_emit(&dfs_cmd_dataloader, a, res, a->base.output);
    if (dfs_dl_write_csv_dir(a->base.output, res->run, res->result, res->guard, err, sizeof err) != 0)
        return dfs_cli_write_error("dataloader", res, err);
    return DFS_EXIT_OK;
}

/* Then a system-metric file with a corrupt line that is not its last is an error (spec 1.1). */
static int write_report(void *args, const dfs_cli_result *res)
{
    int rc = write_outputs(args, res);
    const dfs_dl_result *r = res->result;
    for (size_t i = 0; i < r->nsysfiles; i++) {
        const dfs_dl_sysfile *s = &r->sysfiles[i];
        if (s->status != DFS_DL_SYS_REJECTED)
            continue;
        fprintf(stderr, "dfscope dataloader: error: %s: %llu corrupt lines, not only the last one: the "
                        "system-metric file is left out\n",
                dfs_run_file(res->run, s->file)->path, (unsigned long long)s->bad_lines);
        if (rc == DFS_EXIT_OK)
            rc = DFS_EXIT_USAGE;
    }
    return rc;
}

static bool found_nothing(const void *args, const dfs_cli_result *res, char *buf, size_t len)
{
    (void)args;
    const dfs_dl_result *r = res->result;
    for (size_t s = 0; s < DFS_DL_NSETS; s++)
        if (r->nrows[s])
            return false;
    snprintf(buf, len, "no data-loader event found (GetNext calls, iterator initializations, workers)");
    return true;
}

#define ARG(field) DFS_FIELD(dl_args, field)

static const dfs_cli_option options[] = {
    DFS_OPTION("getnext", 0, "REGEX", DFS_OPT_STRING,
               "GetNext calls: events whose name or phase matches REGEX\n"
               "(default '.*DataLoaderIter::GetNext'; mapped per format)",
               ARG(opt.pattern[DFS_DL_GETNEXT])),
    DFS_OPTION("init", 0, "REGEX", DFS_OPT_STRING, "iterator initializations (default 'DataLoaderIterInitialize')",
               ARG(opt.pattern[DFS_DL_INIT])),
    DFS_OPTION("worker", 0, "REGEX", DFS_OPT_STRING, "worker processes (default 'DataLoaderWorker')",
               ARG(opt.pattern[DFS_DL_WORKER])),
    DFS_OPTION("format", 0, "FMT", DFS_OPT_FORMAT, "table (default), json, or csv (four files, needs -o DIR)",
               ARG(base.format), .hi = 1),
    DFS_OPTION("output", 'o', "PATH", DFS_OPT_STRING,
               "write to PATH (atomically) instead of stdout; a directory for csv", ARG(base.output)),
    DFS_OPTION("windows", 0, "DIR", DFS_OPT_STRING,
               "per outlier window: a Chrome-JSON slice (<kind>-<n>.json) and an\n"
               "SVG picture (<kind>-<n>.svg) in DIR",
               ARG(report.windows_dir)),
    DFS_OPTION("max-windows", 0, "N", DFS_OPT_COUNT, "windows per outlier kind, largest first (default 10; 0 = all)",
               ARG(opt.max_windows), .hi = 100000000, .bad = "--max-windows takes a count, not"),
    DFS_OPTION("window-events", 0, "N", DFS_OPT_COUNT, "framework events listed per window (default 20; 0 = all)",
               ARG(report.window_events), .hi = 100000000, .bad = "--window-events takes a count, not"),
    {0},
};

const dfs_cli_command dfs_cmd_dataloader = {
    .name = "dataloader",
    .summary = "SageMaker Debugger data-loader analysis: GetNext, batch time, outlier windows",
    .description =
        "SageMaker Debugger's PT_dataloader_analysis on smdebug framework traces and system-metric\n"
        "files (give both, e.g. the job's framework/ and system/ folders): data-loader iterator\n"
        "initializations, worker processes, next-batch (GetNext) calls and batch time, each with\n"
        "its outliers (>= 2 x median), and for every GetNext and batch-time outlier a window\n"
        "report: the system metrics sampled in it and the framework events overlapping it.\n"
        "Kineto, Composer and DFTracer traces map their data-wait spans onto GetNext\n"
        "(enumerate(DataLoader)#...__next__, event/dataloader, fetch.iter), so batch time works\n"
        "there too; the report names every mapping it used.",
    .epilogue = "A regex is searched (not anchored) in the event name and in its phase (the process name\n"
                "of its pid). A set nothing matches is reported as \"the events are not present\".\n"
                "Exit codes: 0 ok, 1 damaged input skipped (a system file's corrupt last line is such\n"
                "damage), 2 usage error, unreadable input, or a system-metric file with a corrupt line\n"
                "other than its last (left out), 3 --strict and damage found, 4 output error.\n",
    .options = options,
    .groups = DFS_CLI_READING | DFS_CLI_JOBS,
    .args_size = sizeof(dl_args),
    .init = init,
    .csv_dir = "four files",
    .validate = validate,
    .analysis = &dfs_dataloader_analysis,
    .analysis_options = offsetof(dl_args, opt),
    .clashes = clashes,
    .write = write_report,
    .found_nothing = found_nothing,
    .emit = emit};
