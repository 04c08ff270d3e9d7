/* cmd_timeline.c - `dfscope timeline PATH... --window START:END -o FILE.svg`: an SVG picture of a
 * time window (analyze/timeline/tlwindow.h reads, analyze/timeline/timeline.h draws; the window
 * is resolved by windowing.c). */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli/windowing.h"
#include "output/timeline_report.h"

typedef struct timeline_args {
    dfs_cli_args base;      /* base.output: the picture, NULL for stdout */
    const char *picture;    /* -o as given */
    dfs_cli_windowing w;    /* --window */
    dfs_concept_overrides concepts;
    dfs_tlw_options opt;    /* the drawing pass's */
    char subtitle[512];
} timeline_args;

static void init(void *args)
{
    timeline_args *a = args;
    dfs_tlw_options_init(&a->opt);
    dfs_cli_windowing_init(&a->w, &a->opt);
    a->opt.draw.subtitle = a->subtitle;
    a->opt.concepts = &a->concepts;
}

static int set_window(void *args, const char *cmd, const char *arg)
{
    return dfs_cli_windowing_set(&((timeline_args *)args)->w, cmd, arg);
}

static int set_step(void *args, const char *cmd, const char *arg)
{
    char *end;
    long long n = strtoll(arg, &end, 10);
    if (end == arg || *end || n < 0 || n == LLONG_MAX)
        return dfs_cli_usage_error(cmd, "--step takes a step number (as 'dfscope steps' lists them), not", arg);
    return dfs_cli_windowing_set_step(&((timeline_args *)args)->w, cmd, n, false);
}

static int set_slowest_step(void *args, const char *cmd, const char *arg)
{
    (void)arg;
    return dfs_cli_windowing_set_step(&((timeline_args *)args)->w, cmd, 0, true);
}

static int validate(void *args)
{
    timeline_args *a = args;
    if (a->base.npaths == 0)
        return dfs_cli_usage_error("timeline", "no input given", NULL);
    if (!a->picture)
        return dfs_cli_usage_error("timeline", "no output given (-o FILE.svg)", NULL);
    a->base.output = strcmp(a->picture, "-") ? a->picture : NULL;
    return -1;
}

/* "inputs: a.json, b.json and 3 more" */
static void inputs_text(const dfs_cli_args *b, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, "inputs:");
    for (int i = 0; i < b->npaths && used < n; i++) {
        const char *slash = strrchr(b->paths[i], '/');
        const char *name = slash && slash[1] ? slash + 1 : b->paths[i];
        if (i == 3) {
            snprintf(buf + used, n - used, " and %d more", b->npaths - i);
            return;
        }
        used += (size_t)snprintf(buf + used, n - used, "%s %s", i ? "," : "", name);
    }
}

/* The window in absolute times (a first pass when it depends on the trace), and the inputs. */
static int begin(void *args)
{
    timeline_args *a = args;
    int rc = dfs_cli_windowing_resolve(&a->w, &a->base);
    if (rc != DFS_EXIT_OK)
        return rc;
    size_t used = a->w.step_text[0] ? (size_t)snprintf(a->subtitle, sizeof a->subtitle, "%s; ", a->w.step_text) : 0;
    inputs_text(&a->base, a->subtitle + used, sizeof a->subtitle - used);
    return -1;
}

static int write_report(void *args, const dfs_cli_result *res)
{
    const timeline_args *a = args;
    const dfs_tlw_result *r = res->result;
    const dfs_tl_options *d = &a->opt.draw;
    if (dfs_cli_windowing_misses(&a->w, r))
        return DFS_EXIT_USAGE;
    char err[512];
    if (!a->base.output)
        return dfs_tl_write(r->tl, stdout) == DFS_OK
                   ? DFS_EXIT_OK
                   : dfs_cli_error("timeline", DFS_EXIT_OUTPUT, "cannot write the picture");
    if (dfs_tl_write_file(r->tl, a->base.output, res->guard, err, sizeof err) != 0)
        return dfs_cli_write_error("timeline", res, err);
    if (!dfs_tl_write_summary(stdout, a->base.format == DFS_CLI_JSON, a->picture, d->start_ns, d->end_ns, r))
        return dfs_cli_error("timeline", DFS_EXIT_OUTPUT, "out of memory");
    return fflush(stdout) != 0 || ferror(stdout) ? DFS_EXIT_OUTPUT : DFS_EXIT_OK;
}

static int end(void *args, int rc)
{
    timeline_args *a = args;
    dfs_cli_windowing_free(&a->w);
    free((void *)a->opt.draw.kept); /* the busiest lanes of a second pass (timeline_analysis.c) */
    return rc;
}

#define ARG(field) DFS_FIELD(timeline_args, field)
#define CONCEPT(c) ARG(concepts.text[c])

static const dfs_cli_option options[] = {
    DFS_OPTION("window", 'w', "START:END", DFS_OPT_CALL,
               "the window (default ':', the whole trace). Each side is\n"
               "empty (the trace's start or end), an absolute time on the\n"
               "trace's clock (seconds since the epoch for most traces), or\n"
               "+TIME after the trace's start; units ns, us, ms, s (default),\n"
               "m, h: 1623142623.636:1623142623.812, +1.5:+2, +500ms:+700ms",
               .apply = set_window),
    DFS_OPTION("step", 0, "N", DFS_OPT_CALL,
               "the window is training step N (of every run that has it;\n"
               "the numbers 'dfscope steps' lists), found by a first reading",
               .apply = set_step),
    DFS_OPTION("slowest-step", 0, NULL, DFS_OPT_CALL,
               "the window is the slowest step of any run (warm-up and\n"
               "last steps left out when there are others)",
               .apply = set_slowest_step),
    DFS_OPTION("output", 'o', "FILE", DFS_OPT_STRING, "the SVG, written atomically ('-' = stdout, no summary)",
               ARG(picture)),
    DFS_OPTION("lanes", 0, "N", DFS_OPT_COUNT, "draw only the N busiest lanes (default: all)", ARG(opt.draw.max_lanes),
               .hi = 1000000, .bad = "--lanes takes a number, not"),
    DFS_OPTION("width", 0, "PX", DFS_OPT_COUNT, "width of the time area, 200..20000 (default 1200)",
               ARG(opt.draw.width_px), .lo = 200, .hi = 20000, .bad = "--width takes 200..20000 pixels, not"),
    DFS_OPTION("depth", 0, "N", DFS_OPT_COUNT, "nesting rows per lane, 1..64 (default 6)", ARG(opt.draw.max_depth),
               .lo = 1, .hi = 64, .bad = "--depth takes 1..64, not"),
    DFS_OPTION("title", 0, "TEXT", DFS_OPT_STRING, "the picture's heading", ARG(opt.draw.title)),
    DFS_OPTION("format", 0, "F", DFS_OPT_FORMAT, "summary as table (default) or json", ARG(base.format)),
    DFS_OPTION("data-wait", 0, "P", DFS_OPT_STRING,
               "replace a class's default predicate for every source\n"
               "(docs/PREDICATES.md; 'off' = never)",
               CONCEPT(DFS_CONCEPT_DATA_WAIT),
               .label = "--data-wait P, --compute-dev P, --compute-host P (--compute), --transfer P, --io P"),
    DFS_OPTION("compute-dev", 0, "P", DFS_OPT_STRING, NULL, CONCEPT(DFS_CONCEPT_COMPUTE_DEV)),
    DFS_OPTION("compute-host", 0, "P", DFS_OPT_STRING, NULL, CONCEPT(DFS_CONCEPT_COMPUTE_HOST)),
    DFS_OPTION("compute", 0, "P", DFS_OPT_STRING, NULL, CONCEPT(DFS_CONCEPT_COMPUTE_HOST)),
    DFS_OPTION("transfer", 0, "P", DFS_OPT_STRING, NULL, CONCEPT(DFS_CONCEPT_TRANSFER)),
    DFS_OPTION("io", 0, "P", DFS_OPT_STRING, NULL, CONCEPT(DFS_CONCEPT_IO)),
    {0},
};

const dfs_cli_command dfs_cmd_timeline = {
    .name = "timeline",
    .summary = "an SVG picture of a time window: lanes per thread, classes, counters",
    .usage = "timeline [options] PATH... -o FILE.svg",
    .description = "Draws a time window of the traces as an SVG picture: one lane per thread, grouped by\n"
                   "input, host and process, spans coloured by class (compute, data wait, I/O, transfer,\n"
                   "other) and stacked by nesting, one line chart per counter (system metrics), a time\n"
                   "axis and a legend. Hover a span for its name, start and duration. A summary goes to\n"
                   "stdout, problems to stderr.",
    .epilogue = "Exit codes: 0 ok, 1 damaged input skipped, 2 usage, unreadable input, or a window\n"
                "outside the trace, 3 --strict and damage found, 4 output error.\n",
    .options = options,
    .groups = DFS_CLI_READING | DFS_CLI_JOBS,
    .args_size = sizeof(timeline_args),
    .init = init,
    .validate = validate,
    .analysis = &dfs_timeline_analysis,
    .begin = begin,
    .analysis_options = offsetof(timeline_args, opt),
    .write = write_report,
    .end = end};
