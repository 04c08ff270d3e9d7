/* cmd_report.c - `dfscope report PATH...`: what the job is, where its wall time goes, the verdict
 * and the insights ranked by the time at stake, from the layered, overlap, steps, I/O-call, tasks,
 * gpu and profiler-rules analyses of one read (report/compose.c), the rules of insights/
 * (analyze/insights/insights.h) and the presentation of output/job_report.c. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu.h"
#include "analyze/timeline/tlwindow.h"
#include "cli/command.h"
#include "cli/windowing.h"
#include "report/detail.h"
#include "report/report.h"
#include "output/job_report.h"
#include "output/report_html.h"

enum { MAX_PARAMS = 32 };

typedef struct report_args {
    dfs_cli_args base;
    const char *preset;
    const char *rules_file;
    const char *params[MAX_PARAMS]; /* NAME=VALUE, as given */
    size_t nparams;
    bool list_rules;
    bool html;         /* --format html, or -o FILE.html without --format */
    bool format_given;
    dfs_insight_rules *rules;
    dfs_cli_presetting ps;
    dfs_report_options opt;
    /* what write builds for emit */
    dfs_metrics metrics;
    dfs_job_report rep;
    dfs_report_detail *detail; /* the page's charts (html only) */
    bool built;
} report_args;

static void init(void *args)
{
    report_args *a = args;
    dfs_layered_options *l = &a->opt.lay;
    l->granularity_ns = INT64_C(1000000000);
    l->order[0] = DFS_VIEW_TIME_RANGE;
    l->views = 1u << DFS_VIEW_TIME_RANGE;
    l->norder = 1;
    l->summaries_only = true;
    l->views_fixed = true; /* the page's views: report has no --views */
    a->opt.ov.scope = DFS_OVERLAP_PROCESS;
    dfs_steps_options_init(&a->opt.st);
    dfs_tasks_options_init(&a->opt.tk);
    dfs_gpu_options_init(&a->opt.gpu);
    a->opt.gpu.sections = DFS_GPU_SEC_TEMPORAL | DFS_GPU_SEC_KERNELS | DFS_GPU_SEC_IDLE;
    a->opt.gpu.skip_empty_files = true;
    dfs_rules_options_init(&a->opt.rules);
    dfs_metrics_init(&a->metrics);
}

static int add_param(void *args, const char *cmd, const char *arg)
{
    report_args *a = args;
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return dfs_cli_usage_error(cmd, "--param takes NAME=VALUE (e.g. input-bound.share=0.1), not", arg);
    if (a->nparams == MAX_PARAMS)
        return dfs_cli_usage_error(cmd, "at most 32 --param options", NULL);
    a->params[a->nparams++] = arg;
    return -1;
}

static int set_format(void *args, const char *cmd, const char *arg)
{
    report_args *a = args;
    a->format_given = true;
    a->html = strcmp(arg, "html") == 0;
    if (a->html || strcmp(arg, "table") == 0)
        a->base.format = DFS_CLI_TABLE;
    else if (strcmp(arg, "json") == 0)
        a->base.format = DFS_CLI_JSON;
    else
        return dfs_cli_usage_error(cmd, "--format is table, json or html, not", arg);
    return -1;
}

/* -o FILE.html asks for the page unless --format says otherwise. */
static bool html_name(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return (n > 5 && strcmp(path + n - 5, ".html") == 0) || (n > 4 && strcmp(path + n - 4, ".htm") == 0);
}

/* The page's time series and access sizes: the rows of the layered analysis's time view, which
 * the terminal and JSON outputs do not need (their numbers do not change). */
static void ask_page_views(dfs_layered_options *l)
{
    l->summaries_only = false;
}

/* The shipped rules, the --rules file's, then the --param values: usage errors when they fail. */
static int load_rules(report_args *a)
{
    char err[512];
    a->rules = dfs_insight_rules_new();
    if (!a->rules)
        return dfs_cli_error("report", DFS_EXIT_OUTPUT, "out of memory");
    if (!dfs_insight_rules_add_builtin(a->rules, err, sizeof err) ||
        (a->rules_file && !dfs_insight_rules_add_file(a->rules, a->rules_file, err, sizeof err)))
        return dfs_cli_error("report", DFS_EXIT_USAGE, err);
    for (size_t i = 0; i < a->nparams; i++) {
        const char *eq = strchr(a->params[i], '=');
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(eq - a->params[i]), a->params[i]);
        if (!dfs_insight_rules_set_param(a->rules, name, eq + 1, err, sizeof err))
            return dfs_cli_error("report", DFS_EXIT_USAGE, err);
    }
    return -1;
}

/* --list-rules: the rules in force and their parameters, then exit. */
static int list_rules(const report_args *a)
{
    fprintf(stdout, "%zu rules; parameters (--param NAME=VALUE):\n", dfs_insight_rules_count(a->rules));
    double v;
    const char *name;
    for (size_t i = 0; (name = dfs_insight_rules_param(a->rules, i, &v)); i++)
        fprintf(stdout, "  %s=%g\n", name, v);
    return DFS_EXIT_OK;
}

static int validate(void *args)
{
    report_args *a = args;
    int rc = load_rules(a);
    if (rc >= 0)
        return rc;
    if (a->list_rules)
        return list_rules(a);
    if (!a->format_given && html_name(a->base.output))
        a->html = true;
    if (a->html)
        ask_page_views(&a->opt.lay);
    return a->base.npaths ? -1 : dfs_cli_no_input("report");
}

static int begin(void *args)
{
    report_args *a = args;
    /* The preset matters only when the inputs are DFTracer traces, which is known after reading:
     * the report names it then, rather than an auto-detected "posix" for a profiler trace here. */
    bool quiet = a->base.common.quiet;
    a->base.common.quiet = true;
    int rc = dfs_cli_choose_preset(&a->base, "report", UINT64_C(256) << 10, a->preset, &a->ps);
    a->base.common.quiet = quiet;
    if (rc != DFS_EXIT_OK)
        return rc;
    dfs_report_options *o = &a->opt;
    o->lay.preset = a->ps.preset;
    o->lay.origin_ns = a->ps.pv.have_origin ? a->ps.pv.origin_ns : 0;
    o->lay.auto_categories = (const char *const *)a->ps.pv.categories;
    o->lay.nauto_categories = a->ps.pv.ncategories;
    dfs_overlap_defaults d;
    dfs_overlap_defaults_for(a->ps.preset, &d);
    o->ov.preset = a->ps.preset;
    o->ov.compute = d.compute, o->ov.io = d.io, o->ov.app_io = d.app_io;
    o->ov.epochs = d.epochs, o->ov.steps = d.steps;
    o->ov.origin_ns = o->lay.origin_ns;
    dfs_report_overlap_classes(o);
    return -1;
}

static void emit(FILE *out, const void *args, const dfs_cli_result *res)
{
    const report_args *a = args;
    (void)res;
    if (a->html)
        dfs_job_report_write_html(out, &a->rep, a->detail);
    else if (a->base.format == DFS_CLI_JSON)
        dfs_job_report_write_json(out, &a->rep);
    else
        dfs_job_report_write_text(out, &a->rep);
}

/* The drawing pass's writer: the picture as an SVG document in memory, for the page. */
static int keep_picture(void *user, const dfs_cli_result *res)
{
    dfs_report_detail *d = user;
    const dfs_tlw_result *t = res->result;
    FILE *f = open_memstream(&d->timeline_svg, &d->timeline_len);
    if (!f)
        return DFS_EXIT_OUTPUT;
    bool ok = t->tl && dfs_tl_write(t->tl, f) == DFS_OK;
    if (fclose(f) != 0 || !ok || d->timeline_len > DFS_DETAIL_PICTURE_MAX) {
        free(d->timeline_svg);
        d->timeline_svg = NULL;
    }
    return DFS_EXIT_OK;
}

/* The page's picture of the slowest step, drawn as `dfscope timeline --slowest-step` draws it (its
 * window, the report's final clocks), on another read; its lanes and width bounded for the page,
 * and left out (the page names the command) when it would exceed DFS_DETAIL_PICTURE_MAX bytes.
 * Quiet: the first read reported the problems. Without it the page names the command. */
static void timeline_pass(report_args *a, const dfs_cli_result *res)
{
    const dfs_report_results *r = res->result;
    const dfs_steps_run *run = NULL;
    const dfs_step *step = r->st ? dfs_cli_slowest_step(r->st, &run) : NULL;
    if (!step || step->end <= step->start)
        return;
    dfs_tlw_options o;
    dfs_tlw_options_init(&o);
    dfs_file_clock *clocks = dfs_run_final_clocks(res->run);
    if (!clocks || !dfs_tlw_options_use_run(&o, res->run, clocks)) {
        free(clocks);
        return;
    }
    char *what = a->detail->timeline_what;
    if (run->rank >= 0)
        snprintf(what, sizeof a->detail->timeline_what, "step %lld of rank %lld, %.120s", (long long)step->number,
                 (long long)run->rank, run->name);
    else
        snprintf(what, sizeof a->detail->timeline_what, "step %lld of %.120s", (long long)step->number, run->name);
    o.draw.start_ns = step->start, o.draw.end_ns = step->end;
    o.draw.width_px = 900, o.draw.max_lanes = 16, o.draw.max_depth = 4;
    o.draw.title = "the slowest step";
    o.draw.subtitle = what;
    o.concepts = NULL;
    const dfs_cli_job job = {.cmd = "report", .an = &dfs_timeline_analysis, .opt = &o, .write = keep_picture,
                             .user = a->detail};
    bool quiet = a->base.common.quiet;
    a->base.common.quiet = true;
    dfs_cli_run_analysis(&a->base.common, a->base.paths, a->base.npaths, &job);
    a->base.common.quiet = quiet;
    free((void *)o.sources);
    free((void *)o.draw.kept);
    free(clocks);
}

static int write_report(void *args, const dfs_cli_result *res)
{
    report_args *a = args;
    /* Under an MPI launcher every rank reads the whole inputs (the report is not distributed
     * yet): rank 0 speaks for all, with the answer of one process. */
    if (!dfs_cli_is_rank0(&a->base.common))
        return DFS_EXIT_OK;
    a->built = true;
    if (!dfs_report_build(res->run, res->result, a->rules, &a->metrics, &a->rep))
        return dfs_cli_error("report", DFS_EXIT_OUTPUT, "out of memory");
    a->rep.second_pass = res->reran ? res->reason : NULL;
    a->rep.analyses = "layered, overlap, steps, I/O calls, tasks, gpu and profiler rules, on one read";
    a->rep.paths = a->base.paths;
    a->rep.npaths = a->base.npaths;
    for (size_t i = 0; i < a->base.common.nleft_out && i < DFS_REPORT_MAX_LEFT_OUT; i++) {
        a->rep.left_out[a->rep.nleft_out] = a->base.common.left_out[i];
        a->rep.left_out_why[a->rep.nleft_out++] = a->base.common.left_out_why[i];
    }
    if (a->html && (!(a->detail = malloc(sizeof *a->detail)) ||
                    !dfs_report_detail_build(res->run, res->result, &a->rep, a->detail)))
        return dfs_cli_error("report", DFS_EXIT_OUTPUT, "out of memory");
    const dfs_report_results *rr = res->result;
    if (a->html && rr->gpu && dfs_report_detail_wants_gpu(rr)) /* the composite's gpu consumer, same read */
        dfs_report_detail_gpu(rr->gpu, a->detail);
    if (a->html)
        timeline_pass(a, res);
    return dfs_cli_emit(&dfs_cmd_report, args, res, a->base.output);
}

static int end(void *args, int rc)
{
    report_args *a = args;
    return dfs_cli_presetting_end(&a->base, "report", &a->ps, false, rc);
}

static void cleanup(void *args)
{
    report_args *a = args;
    if (a->built)
        dfs_report_build_free(&a->rep);
    if (a->detail)
        free(a->detail->timeline_svg);
    free(a->detail);
    dfs_metrics_free(&a->metrics);
    dfs_insight_rules_free(a->rules);
}

#define ARG(field) DFS_FIELD(report_args, field)
static const dfs_cli_option options[] = {
    DFS_OPTION("format", 0, "FMT", DFS_OPT_CALL,
               "table (default), json (schema dfscope-report/1) or html (one\n"
               "self-contained page with charts; the default for -o FILE.html)",
               .apply = set_format),
    DFS_OPTION("output", 'o', "FILE", DFS_OPT_STRING, "write to FILE (atomically) instead of stdout", ARG(base.output)),
    DFS_OPTION("granularity", 0, "DUR", DFS_OPT_DURATION,
               "time bin width of the page's time series (default 1s; a job\n"
               "of days needs a coarser one: the page's table of bins is bounded)",
               ARG(opt.lay.granularity_ns), .bad = "--granularity takes a duration such as 5s, 500ms or 2m, not",
               .flags = DFS_OPT_TERSE),
    DFS_CLI_PRESET_OPTION(ARG(preset), NULL),
    DFS_OPTION("rules", 0, "FILE", DFS_OPT_STRING,
               "a rule file (YAML, docs/REPORT.md) added to the shipped rules;\n"
               "a rule of the same id replaces the shipped one",
               ARG(rules_file)),
    DFS_OPTION("param", 0, "NAME=VALUE", DFS_OPT_CALL,
               "a rule's threshold, e.g. input-bound.share=0.1, or\n"
               "severity.critical=0.3 (repeatable; --list-rules names them)",
               .apply = add_param),
    DFS_OPTION("list-rules", 0, NULL, DFS_OPT_FLAG, "print the rules' parameters and their values, and exit",
               ARG(list_rules)),
    {0},
};

const dfs_cli_command dfs_cmd_report = {
    .name = "report",
    .summary = "the answer first: where the job's time goes, the verdict, insights with remedies",
    .description =
        "What the job is (sources, ranks, span, events), where its wall time goes (compute, data wait\n"
        "and I/O not hidden by compute, checkpoint, other), the verdict (input-bound, storage-bound,\n"
        "imbalanced, launch-bound, communication-bound, CPU-bound, compute-bound, balanced) and the\n"
        "insights ranked by the time at stake, each with its evidence, a remedy and the command that\n"
        "shows more. The layered, overlap, steps, (DASF) tasks, (profiler traces' device events) gpu\n"
        "and (SageMaker Debugger) profiler-rules analyses run on one read of the inputs; the rules\n"
        "are data (docs/REPORT.md).",
    .options = options,
    .groups = DFS_CLI_READING | DFS_CLI_JOBS,
    .args_size = sizeof(report_args),
    .init = init,
    .validate = validate,
    .analysis = &dfs_report_analysis,
    .begin = begin,
    .analysis_options = offsetof(report_args, opt),
    .write = write_report,
    .emit = emit,
    .end = end,
    .cleanup = cleanup};
