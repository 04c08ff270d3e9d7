/* cmd_timeline.c - `dfscope timeline PATH... --window START:END -o FILE.svg`: an SVG picture of a
 * time window (analyze/timeline/tlwindow.h reads, analyze/timeline/timeline.h draws). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/timeline/tlwindow.h"
#include "cli/command.h"
#include "output/timeline_report.h"

typedef struct timeline_args {
    dfs_cli_args base;      /* base.output: the picture, NULL for stdout */
    dfs_tl_window window;
    const char *window_text, *picture, *title;
    size_t lanes, width, depth;
    dfs_concept_overrides concepts;
    int64_t start_ns, end_ns; /* the window, resolved */
    bool quiet;               /* -q as given (the drawing pass is quiet after a measuring one) */
    dfs_tlw_options opt;
    dfs_file_clock *clocks;   /* of the measuring pass */
    char subtitle[512];
} timeline_args;

static void init(void *args)
{
    timeline_args *a = args;
    dfs_tl_parse_window(":", &a->window, NULL, 0);
    dfs_tlw_options_init(&a->opt);
}

static int set_window(void *args, const char *cmd, const char *arg)
{
    timeline_args *a = args;
    char err[256];
    a->window_text = arg;
    if (dfs_tl_parse_window(arg, &a->window, err, sizeof err))
        return -1;
    fprintf(stderr, "dfscope %s: --window: %s\n", cmd, err);
    return DFS_EXIT_USAGE;
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

/* The trace's span as the user reads it back. */
static void print_span(const char *what, int64_t a, int64_t b)
{
    char x[48], y[48];
    fprintf(stderr, "%s %s to %s s", what, dfs_tl_fmt_seconds(x, sizeof x, a), dfs_tl_fmt_seconds(y, sizeof y, b));
}

static bool outside(const timeline_args *a, const dfs_tlw_result *r)
{
    if (!r->have_span) {
        fprintf(stderr, "dfscope timeline: the inputs hold no timed spans or counters; nothing to draw\n");
        return true;
    }
    if (a->end_ns > r->trace_start_ns && a->start_ns <= r->trace_end_ns)
        return false;
    fprintf(stderr, "dfscope timeline: ");
    print_span("the window", a->start_ns, a->end_ns);
    print_span(" lies outside the trace, which spans", r->trace_start_ns, r->trace_end_ns);
    fprintf(stderr, "; nothing written\n");
    return true;
}

/* A first pass for a relative or open window: the trace's span, and every file's final clock and
 * source for the drawing pass. Returns an exit code; DFS_EXIT_OK lets the drawing go on. */
static int measure_trace(timeline_args *a)
{
    dfs_cli_args *b = &a->base;
    bool bad_path;
    int rc;
    dfs_run *run = dfs_cli_open(&b->common, "timeline", b->paths, b->npaths, &bad_path, &rc);
    if (!run)
        return rc;
    dfs_tlw_options bo;
    dfs_tlw_options_init(&bo);
    bo.bounds_only = true;
    char err[256];
    dfs_tlw *w = dfs_tlw_new(&bo, err, sizeof err);
    rc = DFS_EXIT_OUTPUT;
    if (w) {
        dfs_consumer *cs[] = {dfs_tlw_consumer(w)};
        rc = dfs_cli_read(&b->common, run, cs, 1, bad_path);
    }
    const dfs_tlw_result *r = w && rc != DFS_EXIT_OUTPUT ? dfs_tlw_finish(w, run) : NULL;
    a->clocks = r ? dfs_run_final_clocks(run) : NULL;
    a->opt.sources = r ? dfs_tlw_final_sources(run) : NULL;
    a->opt.clocks = a->clocks;
    a->opt.nfiles = dfs_run_file_count(run);
    if (!r || !a->clocks || !a->opt.sources) {
        fprintf(stderr, "dfscope timeline: out of memory\n");
        rc = DFS_EXIT_OUTPUT;
    } else if (!r->have_span) {
        fprintf(stderr, "dfscope timeline: the inputs hold no timed spans or counters; nothing to draw\n");
        rc = DFS_EXIT_USAGE;
    } else if (!dfs_tl_window_resolve(&a->window, r->trace_start_ns, r->trace_end_ns, &a->start_ns, &a->end_ns,
                                      err, sizeof err)) {
        fprintf(stderr, "dfscope timeline: --window %s: %s\n", a->window_text ? a->window_text : ":", err);
        rc = DFS_EXIT_USAGE;
    } else {
        /* known before drawing: no second reading. Damage and missing paths: the drawing pass
         * reads the same inputs and gives their exit code. */
        rc = outside(a, r) ? DFS_EXIT_USAGE : DFS_EXIT_OK;
    }
    dfs_tlw_free(w);
    dfs_run_free(run);
    return rc;
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

/* The window in absolute times (a first pass when it depends on the trace), then the options. */
static int begin(void *args)
{
    timeline_args *a = args;
    char err[256];
    a->quiet = a->base.common.quiet;
    if (dfs_tl_window_needs_span(&a->window)) {
        int rc = measure_trace(a);
        a->base.common.quiet = true; /* the problems are reported once */
        if (rc != DFS_EXIT_OK)
            return rc;
    } else if (!dfs_tl_window_resolve(&a->window, 0, 0, &a->start_ns, &a->end_ns, err, sizeof err)) {
        fprintf(stderr, "dfscope timeline: --window %s: %s\n", a->window_text, err);
        return DFS_EXIT_USAGE;
    }
    inputs_text(&a->base, a->subtitle, sizeof a->subtitle);
    dfs_tlw_options *o = &a->opt;
    o->draw.start_ns = a->start_ns;
    o->draw.end_ns = a->end_ns;
    o->draw.width_px = a->width ? (unsigned)a->width : 1200;
    o->draw.max_lanes = (unsigned)a->lanes;
    o->draw.max_depth = a->depth ? (unsigned)a->depth : 6;
    o->draw.title = a->title;
    o->draw.subtitle = a->subtitle;
    o->concepts = &a->concepts;
    return -1;
}

static void *options_of(void *args) { return &((timeline_args *)args)->opt; }

static int write_report(void *args, const dfs_cli_result *res)
{
    const timeline_args *a = args;
    const dfs_tlw_result *r = res->result;
    if (outside(a, r))
        return DFS_EXIT_USAGE;
    char err[512];
    if (!a->base.output) {
        if (dfs_tl_write(r->tl, stdout) == DFS_OK)
            return DFS_EXIT_OK;
        fprintf(stderr, "dfscope timeline: cannot write the picture\n");
        return DFS_EXIT_OUTPUT;
    }
    if (dfs_tl_write_file(r->tl, a->base.output, err, sizeof err) != 0) {
        fprintf(stderr, "dfscope timeline: %s\n", err);
        return DFS_EXIT_OUTPUT;
    }
    if (!dfs_tl_write_summary(stdout, a->base.format == DFS_CLI_JSON, a->picture, a->start_ns, a->end_ns, r)) {
        fprintf(stderr, "dfscope timeline: out of memory\n");
        return DFS_EXIT_OUTPUT;
    }
    return fflush(stdout) != 0 || ferror(stdout) ? DFS_EXIT_OUTPUT : DFS_EXIT_OK;
}

static int end(void *args, int rc)
{
    timeline_args *a = args;
    a->base.common.quiet = a->quiet;
    free((void *)a->opt.sources);
    free((void *)a->opt.draw.kept); /* the busiest lanes of a second pass (timeline_analysis.c) */
    free(a->clocks);
    return rc;
}

#define ARG(field) offsetof(timeline_args, field)
#define CONCEPT(c) .offset = ARG(concepts.text[c])

static const dfs_cli_option options[] = {
    DFS_OPTION("window", 'w', "START:END", DFS_OPT_CALL,
               "the window (default ':', the whole trace). Each side is\n"
               "empty (the trace's start or end), an absolute time on the\n"
               "trace's clock (seconds since the epoch for most traces), or\n"
               "+TIME after the trace's start; units ns, us, ms, s (default),\n"
               "m, h: 1623142623.636:1623142623.812, +1.5:+2, +500ms:+700ms",
               .apply = set_window),
    DFS_OPTION("output", 'o', "FILE", DFS_OPT_STRING, "the SVG, written atomically ('-' = stdout, no summary)",
               .offset = ARG(picture)),
    DFS_OPTION("lanes", 0, "N", DFS_OPT_COUNT, "draw only the N busiest lanes (default: all)", .offset = ARG(lanes),
               .hi = 1000000, .bad = "--lanes takes a number, not"),
    DFS_OPTION("width", 0, "PX", DFS_OPT_COUNT, "width of the time area, 200..20000 (default 1200)",
               .offset = ARG(width), .lo = 200, .hi = 20000, .bad = "--width takes 200..20000 pixels, not"),
    DFS_OPTION("depth", 0, "N", DFS_OPT_COUNT, "nesting rows per lane, 1..64 (default 6)", .offset = ARG(depth),
               .lo = 1, .hi = 64, .bad = "--depth takes 1..64, not"),
    DFS_OPTION("title", 0, "TEXT", DFS_OPT_STRING, "the picture's heading", .offset = ARG(title)),
    DFS_OPTION("format", 0, "F", DFS_OPT_FORMAT, "summary as table (default) or json", .offset = ARG(base.format)),
    DFS_OPTION("data-wait", 0, "P", DFS_OPT_STRING,
               "replace a class's default predicate for every source\n"
               "(predicate language of docs/ANALYZE.md; 'off' = never)",
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
    .groups = DFS_CLI_READING,
    .args_size = sizeof(timeline_args),
    .init = init,
    .validate = validate,
    .analysis = &dfs_timeline_analysis,
    .begin = begin,
    .options_of = options_of,
    .write = write_report,
    .end = end};
