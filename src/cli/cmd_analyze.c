/* cmd_analyze.c - `dfscope analyze PATH...`: DFAnalyzer-style layered analysis. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/layered/layered.h"
#include "cli/command.h"
#include "output/layered_report.h"
#include "util/suggest.h"

typedef struct analyze_args {
    dfs_cli_args base;
    const char *preset;
    bool timing;
    uint64_t preview;
    dfs_cli_presetting ps;   /* before reading */
    dfs_layered_options opt; /* the analysis' */
} analyze_args;

/* Adds a view unless it is there already. */
static void add_view(dfs_layered_options *o, dfs_view_type v)
{
    if (!(o->views & 1u << v)) {
        o->order[o->norder++] = v;
        o->views |= 1u << v;
    }
}

static void init(void *args)
{
    analyze_args *a = args;
    a->opt.granularity_ns = INT64_C(1000000000);
    a->preview = UINT64_C(256) << 10;
    add_view(&a->opt, DFS_VIEW_TIME_RANGE);
}

static const dfs_cli_choice compats[] = {{"dfanalyzer", DFS_COMPAT_DFANALYZER},
                                         {"dfanalyzer-sum", DFS_COMPAT_DFANALYZER_SUM},
                                         {"none", DFS_COMPAT_NONE},
                                         {"exact", DFS_COMPAT_NONE},
                                         {0}};

/* Names every view (and its short name) and the one the word most likely meant. */
static void unknown_view(const char *cmd, const char *word)
{
    dfs_suggest s;
    dfs_suggest_init(&s, word);
    fprintf(stderr, "dfscope %s: unknown view '%s'; the views are", cmd, word);
    for (int v = 0; v < DFS_VIEW__COUNT; v++) {
        dfs_suggest_offer(&s, dfs_view_name((dfs_view_type)v));
        dfs_suggest_offer(&s, dfs_view_alias((dfs_view_type)v));
        fprintf(stderr, "%s%s (%s)", v ? ", " : " ", dfs_view_name((dfs_view_type)v),
                dfs_view_alias((dfs_view_type)v));
    }
    dfs_cli_end_with_guess("", dfs_suggest_best(&s), "");
}

static int set_views(void *args, const char *cmd, const char *list)
{
    dfs_layered_options *o = &((analyze_args *)args)->opt;
    char *copy = strdup(list), *save = NULL;
    o->norder = 0;
    o->views = 0;
    bool ok = copy != NULL;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; ok && t; t = strtok_r(NULL, ",", &save)) {
        int v = dfs_view_parse(t);
        if (v < 0) {
            unknown_view(cmd, t);
            ok = false;
            break;
        }
        add_view(o, (dfs_view_type)v);
    }
    free(copy);
    return ok && o->norder > 0 ? -1 : DFS_EXIT_USAGE;
}

static int begin(void *args)
{
    analyze_args *a = args;
    dfs_cli_args *b = &a->base;
    int rc = dfs_cli_choose_preset(b, "analyze", a->preview, a->preset, &a->ps);
    if (rc != DFS_EXIT_OK)
        return rc;
    dfs_layered_options *o = &a->opt;
    o->preset = a->ps.preset;
    o->origin_ns = a->ps.pv.have_origin ? a->ps.pv.origin_ns : 0;
    o->auto_categories = (const char *const *)a->ps.pv.categories;
    o->nauto_categories = a->ps.pv.ncategories;
    o->summaries_only = b->format == DFS_CLI_TABLE;
    return -1;
}

static void emit(FILE *out, const void *args, const dfs_cli_result *res)
{
    const analyze_args *a = args;
    dfs_report_context ctx = {.preset_source = a->ps.source,
                              .reran = res->reran,
                              .rerun_reason = res->reason,
                              .absolute_clock = dfs_cli_absolute_clock(res->run)};
    if (a->base.format == DFS_CLI_JSON)
        dfs_layered_write_json(out, res->result, &ctx);
    else
        dfs_layered_write_text(out, res->result, &ctx);
}

static bool write_csv(FILE *out, const void *result, size_t i)
{
    const dfs_layered_result *r = result;
    if (i % 2)
        dfs_layered_write_summary_csv(out, r, &r->views[i / 2]);
    else
        dfs_layered_write_view_csv(out, &r->views[i / 2]);
    return true;
}

/* One file per view and one for its summary. */
static size_t csv_files(const void *args, const dfs_cli_result *res, dfs_csv_file *f)
{
    (void)args;
    const dfs_layered_result *r = res->result;
    for (size_t i = 0; i < 2 * r->nviews; i++) {
        f[i] = (dfs_csv_file){.write = write_csv, .which = i};
        snprintf(f[i].name, sizeof f[i].name, "%s%s.csv", dfs_view_name(r->views[i / 2].type), i % 2 ? "_summary" : "");
    }
    return 2 * r->nviews;
}

static int end(void *args, int rc)
{
    analyze_args *a = args;
    return dfs_cli_presetting_end(&a->base, "analyze", &a->ps, a->timing && a->ps.preset, rc);
}

static bool found_nothing(const void *args, const dfs_cli_result *res, char *buf, size_t len)
{
    const analyze_args *a = args;
    const dfs_layered_result *r = res->result;
    if (r->layer_count_total)
        return false;
    snprintf(buf, len, "no event matches a layer of preset %s", a->ps.preset ? a->ps.preset->name : "(none)");
    return true;
}

static void warn(const void *args, const dfs_cli_result *res)
{
    (void)args;
    dfs_layered_warn_left_out(stderr, "analyze", res->result);
}

#define ARG(field) DFS_FIELD(analyze_args, field)

static const dfs_cli_option options[] = {
    DFS_CLI_PRESET_OPTION(ARG(preset), NULL),
    DFS_OPTION("compat", 0, "MODE", DFS_OPT_CHOICE,
        "dfanalyzer: dftracer-analyzer's numbers, DFAnalyzer 0.1.0's with\n"
        "--preset dlio-g2 (busiest process per view row, events in their\n"
        "start bin); dfanalyzer-sum: DFAnalyzer 0.1.0's README numbers\n"
        "(sums over processes). Default: exact (times in\n"
        "process-seconds, events split over the bins they overlap, true\n"
        "counts, exact u_ overlap)",
        ARG(opt.compat), .choices = compats, .bad = "--compat takes dfanalyzer or dfanalyzer-sum, not",
        .flags = DFS_OPT_TERSE),
    DFS_OPTION("views", 0, "LIST", DFS_OPT_CALL,
        "comma-separated: time_range, proc_name, file_name, host_name,\n"
        "proc_id, thread_id (aliases time, proc, file, host, pid, tid);\n"
        "default time_range",
        .apply = set_views),
    DFS_OPTION("granularity", 0, "DUR", DFS_OPT_DURATION,
        "time bin width: 5s, 500ms, 2m, 1h, 250us; a bare number is\n"
        "seconds (default 1s)",
        ARG(opt.granularity_ns), .bad = "--granularity takes a duration such as 5s, 500ms or 2m, not",
        .flags = DFS_OPT_TERSE),
    DFS_OPTION("format", 0, "FMT", DFS_OPT_FORMAT, "table (default), json, or csv (one file per view, needs -o DIR)",
        ARG(base.format), .hi = 1),
    DFS_OPTION("output", 'o', "PATH", DFS_OPT_STRING,
        "write to PATH (atomically) instead of stdout; a directory for csv",
        ARG(base.output)),
    DFS_OPTION("keep-ignored", 0, NULL, DFS_OPT_FLAG, "do not drop the preset's ignored files and functions",
        ARG(opt.keep_ignored)),
    DFS_OPTION("hold", 0, "N", DFS_OPT_SIZE, "exact u_: intervals a worker holds before flushing (default 16k)",
        ARG(opt.hold_intervals), DFS_CLI_HOLD),
    DFS_OPTION("wall-periods", 0, "N", DFS_OPT_SIZE,
        "wall time: separate busy periods a worker keeps (default 4M, about\n"
        "100 MB); past them the layers' wall times are n/a",
        ARG(opt.wall_max_periods), .lo = 1, .hi = DFS_CLI_NO_LIMIT,
        .bad = "--wall-periods takes a positive number of periods (e.g. 1M), not", .flags = DFS_OPT_TERSE),
    DFS_OPTION("no-stream", 0, NULL, DFS_OPT_FLAG,
        "exact u_: keep every interval to the end (memory grows with the\n"
        "trace; the second pass does this when events are out of order)",
        ARG(opt.no_streaming)),
    DFS_OPTION("preview", 0, "SIZE", DFS_OPT_SIZE,
        "bytes of each input read first for the time origin and the\n"
        "preset detection (default 256k); a wrong guess costs a second pass",
        ARG(preview), .lo = 1, .hi = 1.8e19, .bad = "--preview takes a size such as 256k, not",
        .flags = DFS_OPT_TERSE),
    DFS_CLI_PRESET_LISTING,
    DFS_OPTION("timing", 0, NULL, DFS_OPT_FLAG, "print wall time and peak RSS on stderr", ARG(timing)),
    {0},
};

const dfs_cli_command dfs_cmd_analyze = {
    .name = "analyze",
    .summary = "layered analysis (DFAnalyzer-compatible): layers, views, metrics",
    .description = "Layered analysis of DFTracer traces, compatible with DFAnalyzer: events are filtered by\n"
                   "the preset's post-read rules, classified into layers (app, training, compute, reader,\n"
                   "POSIX, ...) and summarised per view (time bins, processes, files) with time, count,\n"
                   "size, ops/s, bandwidth and unoverlapped (u_) time per layer.",
    .options = options,
    .groups = DFS_CLI_READING | DFS_CLI_MPI | DFS_CLI_JOBS,
    .flags = DFS_CLI_NEEDS_INPUT,
    .args_size = sizeof(analyze_args),
    .init = init,
    .csv_dir = "one file per view",
    .analysis = &dfs_layered_analysis,
    .begin = begin,
    .analysis_options = offsetof(analyze_args, opt),
    .found_nothing = found_nothing,
    .warn = warn,
    .emit = emit,
    .csv_files = csv_files,
    .end = end};
