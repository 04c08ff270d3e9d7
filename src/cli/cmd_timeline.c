/* cmd_timeline.c - `dfscope timeline PATH... --window START:END -o FILE.svg`: an SVG picture of a
 * time window (analyze/timeline/tlwindow.h reads, analyze/timeline/timeline.h draws). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/timeline/tlwindow.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "output/format.h"
#include "output/json.h"

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: dfscope timeline [options] PATH... -o FILE.svg\n\n"
        "Draws a time window of the traces as an SVG picture: one lane per thread, grouped by\n"
        "input, host and process, spans coloured by class (compute, data wait, I/O, transfer,\n"
        "other) and stacked by nesting, one line chart per counter (system metrics), a time\n"
        "axis and a legend. Hover a span for its name, start and duration. A summary goes to\n"
        "stdout, problems to stderr.\n\n"
        "options:\n"
        "  -w, --window START:END  the window (default ':', the whole trace). Each side is\n"
        "                        empty (the trace's start or end), an absolute time on the\n"
        "                        trace's clock (seconds since the epoch for most traces), or\n"
        "                        +TIME after the trace's start; units ns, us, ms, s (default),\n"
        "                        m, h: 1623142623.636:1623142623.812, +1.5:+2, +500ms:+700ms\n"
        "  -o, --output FILE     the SVG, written atomically ('-' = stdout, no summary)\n"
        "      --lanes N         draw only the N busiest lanes (default: all)\n"
        "      --width PX        width of the time area, 200..20000 (default 1200)\n"
        "      --depth N         nesting rows per lane, 1..64 (default 6)\n"
        "      --title TEXT      the picture's heading\n"
        "      --format F        summary as table (default) or json\n"
        "      --data-wait P, --compute-dev P, --compute-host P (--compute), --transfer P, --io P\n"
        "                        replace a class's default predicate for every source\n"
        "                        (predicate language of docs/ANALYZE.md; 'off' = never)\n" DFS_CLI_COMMON_HELP
        "  -h, --help            this help\n\n"
        "Exit codes: 0 ok, 1 damaged input skipped, 2 usage, unreadable input, or a window\n"
        "outside the trace, 3 --strict and damage found, 4 output error.\n");
}

typedef struct timeline_args {
    dfs_cli_common common;
    dfs_tl_window window;
    const char *window_text, *output, *title;
    unsigned lanes, width, depth;
    bool json;
    dfs_concept_overrides concepts;
    int64_t start_ns, end_ns; /* the window, resolved */
    char **paths;
    int npaths;
} timeline_args;

static bool parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    uint64_t v;
    if (!dfs_cli_parse_uint(s, lo, hi, &v))
        return false;
    *out = (unsigned)v;
    return true;
}

enum { OPT_LANES = 3001, OPT_WIDTH, OPT_DEPTH, OPT_TITLE, OPT_FORMAT, OPT_CONCEPT };

static const struct {
    const char *name;
    dfs_concept concept;
} concept_options[] = {{"data-wait", DFS_CONCEPT_DATA_WAIT},
                       {"compute-dev", DFS_CONCEPT_COMPUTE_DEV},
                       {"compute-host", DFS_CONCEPT_COMPUTE_HOST},
                       {"compute", DFS_CONCEPT_COMPUTE_HOST}, /* as `dfscope steps` spells it */
                       {"transfer", DFS_CONCEPT_TRANSFER},
                       {"io", DFS_CONCEPT_IO}};
#define NCONCEPT_OPTIONS (sizeof concept_options / sizeof *concept_options)

static int option_value(timeline_args *a, int c, int index, const char *arg)
{
    char err[256];
    switch (c) {
    case 'w':
        a->window_text = arg;
        if (!dfs_tl_parse_window(arg, &a->window, err, sizeof err)) {
            fprintf(stderr, "dfscope timeline: --window: %s\n", err);
            return DFS_EXIT_USAGE;
        }
        return 0;
    case 'o': a->output = arg; return 0;
    case OPT_LANES:
        if (!parse_uint(arg, 0, 1000000, &a->lanes))
            return dfs_cli_usage_error("timeline", "--lanes takes a number, not", arg);
        return 0;
    case OPT_WIDTH:
        return parse_uint(arg, 200, 20000, &a->width)
                   ? 0
                   : dfs_cli_usage_error("timeline", "--width takes 200..20000 pixels, not", arg);
    case OPT_DEPTH:
        return parse_uint(arg, 1, 64, &a->depth) ? 0 : dfs_cli_usage_error("timeline", "--depth takes 1..64, not", arg);
    case OPT_TITLE: a->title = arg; return 0;
    case OPT_FORMAT: {
        dfs_cli_format f = DFS_CLI_TABLE;
        int rc = dfs_cli_parse_format("timeline", arg, false, &f);
        a->json = f == DFS_CLI_JSON;
        return rc;
    }
    case OPT_CONCEPT: a->concepts.text[concept_options[index].concept] = arg; return 0;
    default: return -1;
    }
}

static int parse_args(timeline_args *a, int argc, char **argv)
{
    static const struct option fixed[] = {
        {"window", required_argument, NULL, 'w'}, {"output", required_argument, NULL, 'o'},
        {"lanes", required_argument, NULL, OPT_LANES}, {"width", required_argument, NULL, OPT_WIDTH},
        {"depth", required_argument, NULL, OPT_DEPTH}, {"title", required_argument, NULL, OPT_TITLE},
        {"format", required_argument, NULL, OPT_FORMAT}, {"help", no_argument, NULL, 'h'},
        DFS_CLI_COMMON_LONGOPTS};
    enum { NFIXED = sizeof fixed / sizeof *fixed };
    struct option longopts[NFIXED + NCONCEPT_OPTIONS + 1];
    memcpy(longopts, fixed, sizeof fixed);
    for (size_t i = 0; i < NCONCEPT_OPTIONS; i++)
        longopts[NFIXED + i] = (struct option){concept_options[i].name, required_argument, NULL, OPT_CONCEPT};
    longopts[NFIXED + NCONCEPT_OPTIONS] = (struct option){NULL, 0, NULL, 0};
    dfs_tl_parse_window(":", &a->window, NULL, 0);
    optind = 1;
    int index = -1;
    for (int c; (c = getopt_long(argc, argv, "w:o:j:hvq", longopts, &index)) != -1; index = -1) {
        int handled = dfs_cli_common_option(&a->common, "timeline", c, optarg);
        if (handled < 0)
            return DFS_EXIT_USAGE;
        if (handled)
            continue;
        if (c == 'h') {
            usage(stdout);
            return DFS_EXIT_OK;
        }
        int rc = c == '?' || c == ':' ? -1 : option_value(a, c, index - NFIXED, optarg);
        if (rc > 0)
            return rc;
        if (rc < 0) {
            fprintf(stderr, "dfscope timeline: see 'dfscope timeline --help'\n");
            return DFS_EXIT_USAGE;
        }
    }
    a->paths = argv + optind;
    a->npaths = argc - optind;
    const char *missing = a->npaths == 0 ? "no input given"
                          : !a->output   ? "no output given (-o FILE.svg)"
                                         : NULL;
    if (missing) {
        fprintf(stderr, "dfscope timeline: %s (see 'dfscope timeline --help')\n", missing);
        return DFS_EXIT_USAGE;
    }
    return -1;
}

/* ----- the summary ----- */

/* Seconds with every digit, as --window reads them back. */
static char *fmt_seconds(char *buf, size_t n, int64_t ns)
{
    int64_t whole = ns / 1000000000, frac = ns % 1000000000;
    snprintf(buf, n, "%s%" PRId64 ".%09" PRId64, ns < 0 ? "-" : "", whole < 0 ? -whole : whole,
             frac < 0 ? -frac : frac);
    return buf;
}

typedef struct run_ctx {
    const timeline_args *a;
} run_ctx;

/* "input · host · process (pid 12) / thread", as the picture labels the lane. */
static void lane_name(const dfs_tl_lane_info *l, char *buf, size_t n)
{
    const dfs_tl_lane_key *k = &l->key;
    char pid[48], tid[48];
    if (*k->pid_str)
        snprintf(pid, sizeof pid, "%s", k->pid_str);
    else
        snprintf(pid, sizeof pid, "pid %" PRId64, k->pid);
    if (*k->tid_str)
        snprintf(tid, sizeof tid, "%s", k->tid_str);
    else
        snprintf(tid, sizeof tid, "tid %" PRId64, k->tid);
    snprintf(buf, n, "%s%s%s%s%s%s%s%s / %s", k->source, *k->source ? " \xC2\xB7 " : "", k->host,
             *k->host ? " \xC2\xB7 " : "", k->process, *k->process ? " (" : "", pid, *k->process ? ")" : "",
             *k->thread ? k->thread : tid);
}

/* JSON keys of the classes. */
static const char *const class_keys[DFS_TL_NCLASS] = {"compute", "data_wait", "io", "transfer", "other"};

static void write_json_lanes(dfs_jw *j, const dfs_tl_lane_info *lanes, size_t n)
{
    dfs_jw_array(j, "lanes");
    for (size_t i = 0; i < n; i++) {
        const dfs_tl_lane_key *k = &lanes[i].key;
        dfs_jw_object(j, NULL);
        dfs_jw_cstr(j, "source", k->source);
        dfs_jw_cstr(j, "host", k->host);
        if (*k->pid_str)
            dfs_jw_cstr(j, "pid", k->pid_str);
        else
            dfs_jw_int(j, "pid", k->pid);
        if (*k->tid_str)
            dfs_jw_cstr(j, "tid", k->tid_str);
        else
            dfs_jw_int(j, "tid", k->tid);
        dfs_jw_cstr(j, "process", k->process);
        dfs_jw_cstr(j, "thread", k->thread);
        dfs_jw_bool(j, "drawn", lanes[i].drawn);
        dfs_jw_object(j, "spans");
        for (int c = 0; c < DFS_TL_NCLASS; c++)
            dfs_jw_uint(j, class_keys[c], lanes[i].spans[c]);
        dfs_jw_end(j);
        dfs_jw_uint(j, "aggregated", lanes[i].aggregated);
        dfs_jw_end(j);
    }
    dfs_jw_end(j);
}

static void write_json(const timeline_args *a, const dfs_tlw_result *r, const dfs_tl_lane_info *lanes, size_t n)
{
    dfs_tl_summary s;
    dfs_tl_summarize(r->tl, &s);
    dfs_jw j;
    dfs_jw_init(&j, stdout, true);
    dfs_jw_object(&j, NULL);
    dfs_jw_cstr(&j, "schema", "dfscope-timeline/1");
    dfs_jw_cstr(&j, "output", a->output);
    dfs_jw_object(&j, "window");
    dfs_jw_int(&j, "start_ns", a->start_ns);
    dfs_jw_int(&j, "end_ns", a->end_ns);
    dfs_jw_end(&j);
    dfs_jw_object(&j, "trace");
    dfs_jw_int(&j, "start_ns", r->trace_start_ns);
    dfs_jw_int(&j, "end_ns", r->trace_end_ns);
    dfs_jw_end(&j);
    dfs_jw_uint(&j, "lanes_total", s.lanes);
    dfs_jw_uint(&j, "lanes_drawn", s.lanes_drawn);
    dfs_jw_object(&j, "spans");
    for (int c = 0; c < DFS_TL_NCLASS; c++)
        dfs_jw_uint(&j, class_keys[c], s.spans[c]);
    dfs_jw_end(&j);
    dfs_jw_uint(&j, "spans_drawn", s.spans_drawn);
    dfs_jw_uint(&j, "spans_aggregated", s.spans_aggregated);
    dfs_jw_uint(&j, "counters", s.counters);
    dfs_jw_uint(&j, "samples", s.samples);
    dfs_jw_uint(&j, "unmatched_begin", r->unmatched_begin);
    dfs_jw_uint(&j, "unmatched_end", r->unmatched_end);
    dfs_jw_uint(&j, "bad_time", r->bad_time);
    write_json_lanes(&j, lanes, n);
    dfs_jw_end(&j);
    fputc('\n', stdout);
}

static void write_table(const timeline_args *a, const dfs_tlw_result *r, const dfs_tl_lane_info *lanes,
                        size_t n)
{
    dfs_tl_summary s;
    dfs_tl_summarize(r->tl, &s);
    char x[48], y[48], d[40], c[32];
    printf("picture    %s\n", a->output);
    printf("window     %s to %s s (%s)\n", fmt_seconds(x, sizeof x, a->start_ns),
           fmt_seconds(y, sizeof y, a->end_ns),
           dfs_fmt_duration(d, sizeof d, a->end_ns - a->start_ns));
    printf("trace      %s to %s s\n", fmt_seconds(x, sizeof x, r->trace_start_ns),
           fmt_seconds(y, sizeof y, r->trace_end_ns));
    printf("lanes      %zu drawn of %zu\n", s.lanes_drawn, s.lanes);
    printf("spans     ");
    for (int k = 0; k < DFS_TL_NCLASS; k++)
        printf(" %s %s%s", dfs_tl_class_name((dfs_tl_class)k), dfs_fmt_count(c, sizeof c, s.spans[k]),
               k + 1 < DFS_TL_NCLASS ? "," : "\n");
    printf("           %s drawn as rectangles, %s in per-pixel busy bars (drawn lanes)\n",
           dfs_fmt_count(x, sizeof x, s.spans_drawn), dfs_fmt_count(y, sizeof y, s.spans_aggregated));
    printf("counters   %zu charts, %s samples\n", s.counters, dfs_fmt_count(c, sizeof c, s.samples));
    if (r->bad_time)
        printf("skipped    %" PRIu64 " records without a usable time\n", r->bad_time);
    if (r->unmatched_begin || r->unmatched_end)
        printf("unpaired   %" PRIu64 " B without E, %" PRIu64 " E without B (not drawn)\n", r->unmatched_begin,
               r->unmatched_end);
    for (size_t i = 0; i < n; i++) {
        char name[512];
        uint64_t total = 0;
        for (int k = 0; k < DFS_TL_NCLASS; k++)
            total += lanes[i].spans[k];
        lane_name(&lanes[i], name, sizeof name);
        printf("  %s %s: %s spans\n", lanes[i].drawn ? " " : "-", name, dfs_fmt_count(c, sizeof c, total));
    }
}

/* The trace's span as the user reads it back. */
static void print_span(const char *what, int64_t a, int64_t b)
{
    char x[48], y[48];
    fprintf(stderr, "%s %s to %s s", what, fmt_seconds(x, sizeof x, a), fmt_seconds(y, sizeof y, b));
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

static int write_result(void *user, const dfs_cli_result *res)
{
    const run_ctx *ctx = user;
    const timeline_args *a = ctx->a;
    const dfs_tlw_result *r = res->result;
    if (outside(a, r))
        return DFS_EXIT_USAGE;
    char err[512];
    bool to_stdout = strcmp(a->output, "-") == 0;
    dfs_status st = to_stdout ? dfs_tl_write(r->tl, stdout) : DFS_OK;
    if ((to_stdout && st != DFS_OK) ||
        (!to_stdout && dfs_tl_write_file(r->tl, a->output, err, sizeof err) != 0)) {
        fprintf(stderr, "dfscope timeline: %s\n", to_stdout ? "cannot write the picture" : err);
        return DFS_EXIT_OUTPUT;
    }
    if (to_stdout)
        return DFS_EXIT_OK;
    size_t n = dfs_tl_lanes(r->tl, NULL, 0);
    dfs_tl_lane_info *lanes = calloc(n ? n : 1, sizeof *lanes);
    if (!lanes) {
        fprintf(stderr, "dfscope timeline: out of memory\n");
        return DFS_EXIT_OUTPUT;
    }
    n = dfs_tl_lanes(r->tl, lanes, n);
    if (a->json)
        write_json(a, r, lanes, n);
    else
        write_table(a, r, lanes, n);
    free(lanes);
    return fflush(stdout) != 0 || ferror(stdout) ? DFS_EXIT_OUTPUT : DFS_EXIT_OK;
}

/* A first pass for a relative or open window: the trace's span, and every file's final clock and
 * source for the drawing pass. Returns an exit code; DFS_EXIT_OK lets the drawing go on. */
static int measure_trace(timeline_args *a, dfs_tlw_options *opt, dfs_file_clock **clocks)
{
    bool bad_path;
    int rc;
    dfs_run *run = dfs_cli_open(&a->common, "timeline", a->paths, a->npaths, &bad_path, &rc);
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
        rc = dfs_cli_read(&a->common, run, cs, 1, bad_path);
    }
    const dfs_tlw_result *r = w && rc != DFS_EXIT_OUTPUT ? dfs_tlw_finish(w, run) : NULL;
    *clocks = r ? dfs_run_final_clocks(run) : NULL;
    opt->sources = r ? dfs_tlw_final_sources(run) : NULL;
    opt->clocks = *clocks;
    opt->nfiles = dfs_run_file_count(run);
    if (!r || !*clocks || !opt->sources) {
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
static void inputs_text(const timeline_args *a, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, "inputs:");
    for (int i = 0; i < a->npaths && used < n; i++) {
        const char *slash = strrchr(a->paths[i], '/');
        const char *name = slash && slash[1] ? slash + 1 : a->paths[i];
        if (i == 3) {
            snprintf(buf + used, n - used, " and %d more", a->npaths - i);
            return;
        }
        used += (size_t)snprintf(buf + used, n - used, "%s %s", i ? "," : "", name);
    }
}

static int draw(timeline_args *a)
{
    dfs_tlw_options opt;
    dfs_tlw_options_init(&opt);
    dfs_file_clock *clocks = NULL;
    char err[256], subtitle[512];
    int rc = DFS_EXIT_OK;
    bool quiet = a->common.quiet;
    if (dfs_tl_window_needs_span(&a->window)) {
        rc = measure_trace(a, &opt, &clocks);
        a->common.quiet = true; /* the problems are reported once */
    } else if (!dfs_tl_window_resolve(&a->window, 0, 0, &a->start_ns, &a->end_ns, err, sizeof err)) {
        fprintf(stderr, "dfscope timeline: --window %s: %s\n", a->window_text, err);
        rc = DFS_EXIT_USAGE;
    }
    if (rc == DFS_EXIT_OK) {
        inputs_text(a, subtitle, sizeof subtitle);
        opt.draw.start_ns = a->start_ns;
        opt.draw.end_ns = a->end_ns;
        opt.draw.width_px = a->width ? a->width : 1200;
        opt.draw.max_lanes = a->lanes;
        opt.draw.max_depth = a->depth ? a->depth : 6;
        opt.draw.title = a->title;
        opt.draw.subtitle = subtitle;
        opt.concepts = &a->concepts;
        run_ctx ctx = {a};
        const dfs_cli_job job = {.cmd = "timeline", .an = &dfs_timeline_analysis, .opt = &opt,
                                 .output = strcmp(a->output, "-") ? a->output : NULL, .write = write_result,
                                 .user = &ctx};
        rc = dfs_cli_run_analysis(&a->common, a->paths, a->npaths, &job);
    }
    a->common.quiet = quiet;
    free((void *)opt.sources);
    free(clocks);
    return rc;
}

int dfs_cmd_timeline(int argc, char **argv)
{
    timeline_args a;
    memset(&a, 0, sizeof a);
    dfs_cli_common_init(&a.common);
    int rc = parse_args(&a, argc, argv);
    return rc >= 0 ? rc : draw(&a);
}
