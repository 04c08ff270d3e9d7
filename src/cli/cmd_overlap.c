/* cmd_overlap.c - `dfscope overlap PATH...`: exact I/O-versus-compute overlap (overlap.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/overlap/overlap.h"
#include "cli/command.h"
#include "output/overlap_report.h"

#define STR(x) #x
#define XSTR(x) STR(x)

typedef struct overlap_args {
    dfs_cli_args base;
    const char *preset;
    /* the class predicates as given ("none": no class), NULL when not given */
    const char *compute, *io, *app_io, *epochs, *steps;
    dfs_overlap_class_def extra[DFS_OVERLAP_MAX_EXTRA]; /* their names malloc'd */
    bool timing;
    dfs_cli_presetting ps;
    dfs_overlap_options opt;
} overlap_args;

static void init(void *args)
{
    overlap_args *a = args;
    a->opt.scope = DFS_OVERLAP_PROCESS;
    a->opt.extra = a->extra;
}

static void cleanup(void *args)
{
    overlap_args *a = args;
    for (size_t i = 0; i < a->opt.nextra; i++)
        free((char *)a->extra[i].name);
}

static int add_class(void *args, const char *cmd, const char *arg)
{
    overlap_args *a = args;
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) {
        fprintf(stderr, "dfscope %s: --class takes NAME=PREDICATE, not '%s'\n", cmd, arg);
        return DFS_EXIT_USAGE;
    }
    if (a->opt.nextra == DFS_OVERLAP_MAX_EXTRA) {
        fprintf(stderr, "dfscope %s: at most %d extra classes\n", cmd, DFS_OVERLAP_MAX_EXTRA);
        return DFS_EXIT_USAGE;
    }
    char *name = strndup(arg, (size_t)(eq - arg));
    if (!name) {
        fprintf(stderr, "dfscope %s: out of memory\n", cmd);
        return DFS_EXIT_OUTPUT;
    }
    a->extra[a->opt.nextra++] = (dfs_overlap_class_def){.name = name, .predicate = eq + 1};
    return -1;
}

static const dfs_cli_choice methods[] = {
    {"exact", DFS_OVERLAP_EXACT}, {"approximate", DFS_OVERLAP_APPROXIMATE}, {"g0-exact", DFS_OVERLAP_G0_EXACT}, {0}};
static const dfs_cli_choice scopes[] = {
    {"process", DFS_OVERLAP_PROCESS}, {"thread", DFS_OVERLAP_THREAD}, {"global", DFS_OVERLAP_GLOBAL}, {0}};

/* A class as given ("none": no class), else the preset's default. */
static const char *predicate(const char *given, const char *preset_default)
{
    return !given ? preset_default : strcmp(given, "none") == 0 ? NULL : given;
}

static int begin(void *args)
{
    overlap_args *a = args;
    int rc = dfs_cli_choose_preset(&a->base, "overlap", 256u << 10, a->preset, &a->ps);
    if (rc != DFS_EXIT_OK)
        return rc;
    dfs_overlap_defaults d;
    dfs_overlap_defaults_for(a->ps.preset, &d);
    dfs_overlap_options *o = &a->opt;
    o->preset = a->ps.preset;
    o->compute = predicate(a->compute, d.compute);
    o->io = predicate(a->io, d.io);
    o->app_io = predicate(a->app_io, d.app_io);
    o->epochs = predicate(a->epochs, d.epochs);
    o->steps = predicate(a->steps, d.steps);
    o->origin_ns = a->ps.pv.have_origin ? a->ps.pv.origin_ns : 0;
    if (o->method != DFS_OVERLAP_EXACT && !o->granularity_ns)
        o->granularity_ns = INT64_C(1000000000); /* the approximate methods need bins */
    return -1;
}

static void emit(FILE *out, const void *args, const dfs_cli_result *res)
{
    const overlap_args *a = args;
    dfs_overlap_report_context ctx = {.preset_source = a->ps.source,
                                      .reran = res->reran,
                                      .rerun_reason = res->reason,
                                      .absolute_clock = dfs_cli_absolute_clock(res->run)};
    if (a->base.format == DFS_CLI_JSON)
        dfs_overlap_write_json(out, res->result, &ctx);
    else
        dfs_overlap_write_text(out, res->result, &ctx);
}

static bool write_csv(FILE *out, const void *result, size_t table)
{
    dfs_overlap_write_csv(out, result, (dfs_overlap_csv)table);
    return true;
}

/* One file per table the result has. */
static size_t csv_files(const void *args, const dfs_cli_result *res, dfs_csv_file *f)
{
    (void)args;
    size_t n = 0;
    for (int t = 0; t < DFS_OVERLAP_CSV__COUNT; t++) {
        if (!dfs_overlap_csv_present(res->result, (dfs_overlap_csv)t))
            continue;
        f[n] = (dfs_csv_file){.write = write_csv, .which = (size_t)t};
        snprintf(f[n++].name, sizeof f->name, "%s", dfs_overlap_csv_name((dfs_overlap_csv)t));
    }
    return n;
}

static int end(void *args, int rc)
{
    overlap_args *a = args;
    return dfs_cli_presetting_end(&a->base, "overlap", &a->ps, a->timing && a->ps.previewed, rc);
}

static bool found_nothing(const void *args, const dfs_cli_result *res, char *buf, size_t len)
{
    (void)args;
    const dfs_overlap_result *r = res->result;
    for (size_t c = 0; c < r->nclasses; c++)
        if (r->summary.cls[c].events)
            return false;
    snprintf(buf, len, "no event is in any class (compute, I/O, app I/O)");
    return true;
}

#define ARG(field) DFS_FIELD(overlap_args, field)

static const dfs_cli_option options[] = {
    DFS_OPTION("compute", 0, "PRED", DFS_OPT_STRING, "default from the preset (DLIO: the framework's compute calls)",
        ARG(compute),
        .section = "classes (a predicate of the layered-analysis language, a layer name of the preset, or none):"),
    DFS_OPTION("io", 0, "PRED", DFS_OPT_STRING, "default: categories starting with posix or stdio", ARG(io)),
    DFS_OPTION("app-io", 0, "PRED", DFS_OPT_STRING, "default from the preset (DLIO: cat == \"reader\")", ARG(app_io)),
    DFS_OPTION("class", 0, "NAME=PRED", DFS_OPT_CALL,
        "an extra class compared with compute (repeatable, at most " XSTR(DFS_OVERLAP_MAX_EXTRA) ")",
        .apply = add_class),
    DFS_OPTION("epochs", 0, "PRED", DFS_OPT_STRING, "epoch markers (DLIO default: DLIOBenchmark._train events)",
        ARG(epochs)),
    DFS_OPTION("steps", 0, "PRED", DFS_OPT_STRING, "step markers (default none)", ARG(steps)),
    DFS_OPTION("post-read", 0, NULL, DFS_OPT_FLAG, "drop the preset's ignored files and functions first",
        ARG(opt.post_read)),
    DFS_CLI_PRESET_OPTION(ARG(preset), "options:"),
    DFS_OPTION("scope", 0, "SCOPE", DFS_OPT_CHOICE, "process (default), thread or global: what the summary sums",
        ARG(opt.scope), .choices = scopes, .flags = DFS_OPT_TERSE),
    DFS_OPTION("global", 0, NULL, DFS_OPT_FLAG,
        "also the global scope (all ranks merged; memory grows with the\n"
        "run's busy periods; implied by --scope global)",
        ARG(opt.global)),
    DFS_OPTION("granularity", 0, "DUR", DFS_OPT_DURATION,
        "also per time bin: 5s, 500ms, 2m, 1h, 250us; a bare number is\n"
        "seconds (default: no bins; 1s for the approximate methods)",
        ARG(opt.granularity_ns), .bad = "--granularity takes a duration such as 5s, 500ms or 2m, not",
        .flags = DFS_OPT_TERSE),
    DFS_OPTION("approximate", 0, NULL, DFS_OPT_CONST, "the reference's per-bin estimate instead of exact values",
        ARG(opt.method), .value = DFS_OVERLAP_APPROXIMATE),
    DFS_OPTION("method", 0, "M", DFS_OPT_CHOICE,
        "exact (default), approximate, or g0-exact (the reference's\n"
        "per-bin unions, global only)",
        ARG(opt.method), .choices = methods, .flags = DFS_OPT_TERSE),
    DFS_OPTION("format", 0, "FMT", DFS_OPT_FORMAT, "table (default), json, or csv (one file per table, needs -o DIR)",
        ARG(base.format), .hi = 1),
    DFS_OPTION("output", 'o', "PATH", DFS_OPT_STRING,
        "write to PATH (atomically) instead of stdout; a directory for csv",
        ARG(base.output)),
    DFS_OPTION("hold", 0, "N", DFS_OPT_SIZE, "intervals a worker holds before flushing (default 16k)", ARG(opt.hold_intervals), DFS_CLI_HOLD),
    DFS_OPTION("no-stream", 0, NULL, DFS_OPT_FLAG, "never flush before the end (more memory, same answers)",
        ARG(opt.no_streaming)),
    DFS_OPTION("timing", 0, NULL, DFS_OPT_FLAG, "print wall time and peak RSS on stderr", ARG(timing)),
    {0},
};

const dfs_cli_command dfs_cmd_overlap = {
    .name = "overlap",
    .summary = "I/O versus compute overlap: exact unions and differences per process, bin, epoch",
    .description =
        "How much I/O time is not hidden behind computation: events are put in classes (compute,\n"
        "I/O, app-level I/O, and any extra class) by predicates, and per process (or thread, or the\n"
        "whole run) the exact unions, intersections and differences of the classes' intervals are\n"
        "measured; also per time bin, per epoch, and the reference's approximate estimate.",
    .options = options,
    .groups = DFS_CLI_READING | DFS_CLI_MPI | DFS_CLI_JOBS,
    .flags = DFS_CLI_NEEDS_INPUT,
    .args_size = sizeof(overlap_args),
    .init = init,
    .csv_dir = "one file per table",
    .analysis = &dfs_overlap_analysis,
    .begin = begin,
    .analysis_options = offsetof(overlap_args, opt),
    .found_nothing = found_nothing,
    .emit = emit,
    .csv_files = csv_files,
    .end = end,
    .cleanup = cleanup};
