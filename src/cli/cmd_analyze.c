/* cmd_analyze.c - `dfscope analyze PATH...`: DFAnalyzer-style layered analysis. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/common/preset.h"
#include "analyze/common/preview.h"
#include "analyze/layered/layered.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "output/atomic.h"
#include "output/layered_report.h"

#define PREVIEW_BYTES (UINT64_C(256) << 10)

static void usage(FILE *out)
{
    fprintf(out,
            "usage: dfscope analyze [options] PATH...\n\n"
            "Layered analysis of DFTracer traces, compatible with DFAnalyzer: events are filtered by\n"
            "the preset's post-read rules, classified into layers (app, training, compute, reader,\n"
            "POSIX, ...) and summarised per view (time bins, processes, files) with time, count,\n"
            "size, ops/s, bandwidth and unoverlapped (u_) time per layer.\n\n"
            "options:\n"
            "      --preset NAME|FILE  posix, dlio, dlio-g2, ai, auto, or a YAML file (docs/PRESETS.md);\n"
            "                          default: detected from the categories (printed)\n"
            "      --compat MODE       dfanalyzer: DFAnalyzer's current numbers (busiest process per\n"
            "                          view row); dfanalyzer-sum: its README numbers (sums over\n"
            "                          processes). Default: exact (true counts, exact u_ overlap)\n"
            "      --views LIST        comma-separated: time_range, proc_name, file_name, host_name,\n"
            "                          proc_id, thread_id (aliases time, proc, file, host, pid, tid);\n"
            "                          default time_range\n"
            "      --granularity DUR   time bin width: 5s, 500ms, 2m, 1h, 250us; a bare number is\n"
            "                          seconds (default 1s)\n"
            "      --format FMT        table (default), json, or csv (one file per view, needs -o DIR)\n"
            "  -o, --output PATH       write to PATH (atomically) instead of stdout; a directory for csv\n"
            "      --keep-ignored      do not drop the preset's ignored files and functions\n"
            "      --hold N            exact u_: intervals a worker holds before flushing (default 16k)\n"
            "      --no-stream         exact u_: keep every interval to the end (memory grows with the\n"
            "                          trace; the second pass does this when events are out of order)\n"
            "      --preview SIZE      bytes of each input read first for the time origin and the\n"
            "                          preset detection (default 256k); a wrong guess costs a second pass\n"
            "      --list-presets      list the shipped presets and exit\n"
            "      --show-preset NAME  print a shipped preset's YAML and exit\n"
            "      --timing            print wall time and peak RSS on stderr\n" DFS_CLI_COMMON_HELP DFS_CLI_DIST_HELP
            "  -h, --help              this help\n\n"
            "Exit codes: 0 ok, 1 damaged input skipped, 2 usage or unreadable input,\n"
            "            3 --strict and damage found, 4 output error.\n");
}


typedef struct analyze_args {
    dfs_cli_common common;
    const char *preset;
    dfs_compat compat;
    dfs_view_type views[DFS_VIEW__COUNT];
    size_t nviews;
    int64_t granularity_ns;
    dfs_cli_format format;
    const char *output;
    bool keep_ignored, timing, no_stream;
    uint64_t preview, hold;
} analyze_args;

static bool parse_views(analyze_args *a, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    a->nviews = 0;
    bool ok = copy != NULL;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; ok && t; t = strtok_r(NULL, ",", &save)) {
        int v = dfs_view_parse(t);
        if (v < 0) {
            fprintf(stderr, "dfscope analyze: unknown view '%s' (see --help)\n", t);
            ok = false;
            break;
        }
        bool dup = false;
        for (size_t i = 0; i < a->nviews; i++)
            dup |= a->views[i] == (dfs_view_type)v;
        if (!dup)
            a->views[a->nviews++] = (dfs_view_type)v;
    }
    free(copy);
    return ok && a->nviews > 0;
}

static int list_presets(void)
{
    for (size_t i = 0; i < dfs_preset_builtin_count(); i++) {
        dfs_preset_error err;
        dfs_preset *p = dfs_preset_load(dfs_preset_builtin_name(i), &err);
        printf("%-8s %s\n", dfs_preset_builtin_name(i), p && p->description ? p->description : "");
        dfs_preset_free(p);
    }
    return DFS_EXIT_OK;
}

static int show_preset(const char *name)
{
    const char *text = dfs_preset_builtin_text(name);
    if (!text) {
        fprintf(stderr, "dfscope analyze: no shipped preset named '%s' (see --list-presets)\n", name);
        return DFS_EXIT_USAGE;
    }
    fputs(text, stdout);
    return DFS_EXIT_OK;
}

static int parse_option(analyze_args *a, int c, const char *arg)
{
    switch (c) {
    case 2001: a->preset = arg; return -1;
    case 2002:
        if (strcmp(arg, "dfanalyzer") == 0)
            a->compat = DFS_COMPAT_DFANALYZER;
        else if (strcmp(arg, "dfanalyzer-sum") == 0)
            a->compat = DFS_COMPAT_DFANALYZER_SUM;
        else if (strcmp(arg, "none") == 0 || strcmp(arg, "exact") == 0)
            a->compat = DFS_COMPAT_NONE;
        else {
            fprintf(stderr, "dfscope analyze: --compat takes dfanalyzer or dfanalyzer-sum, not '%s'\n", arg);
            return DFS_EXIT_USAGE;
        }
        return -1;
    case 2003: return parse_views(a, arg) ? -1 : DFS_EXIT_USAGE;
    case 2004:
        if (!dfs_parse_duration_ns(arg, &a->granularity_ns)) {
            fprintf(stderr, "dfscope analyze: --granularity takes a duration such as 5s, 500ms or 2m, not '%s'\n",
                    arg);
            return DFS_EXIT_USAGE;
        }
        return -1;
    case 2005: {
        int rc = dfs_cli_parse_format("analyze", arg, true, &a->format);
        return rc ? rc : -1;
    }
    case 'o': a->output = arg; return -1;
    case 2006: a->keep_ignored = true; return -1;
    case 2011: return dfs_cli_parse_hold("analyze", arg, &a->hold);
    case 2012: a->no_stream = true; return -1;
    case 2007: return list_presets();
    case 2008: return show_preset(arg);
    case 2009: a->timing = true; return -1;
    case 2010:
        if (!dfs_cli_parse_size(arg, &a->preview) || a->preview == 0) {
            fprintf(stderr, "dfscope analyze: --preview takes a size such as 256k, not '%s'\n", arg);
            return DFS_EXIT_USAGE;
        }
        return -1;
    case 'h': usage(stdout); return DFS_EXIT_OK;
    default: fprintf(stderr, "dfscope analyze: see 'dfscope analyze --help'\n"); return DFS_EXIT_USAGE;
    }
}

/* Returns -1 to go on, else an exit code. */
static int parse_args(analyze_args *a, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"preset", required_argument, NULL, 2001}, {"compat", required_argument, NULL, 2002},
        {"views", required_argument, NULL, 2003}, {"granularity", required_argument, NULL, 2004},
        {"format", required_argument, NULL, 2005}, {"output", required_argument, NULL, 'o'},
        {"keep-ignored", no_argument, NULL, 2006}, {"list-presets", no_argument, NULL, 2007},
        {"show-preset", required_argument, NULL, 2008}, {"timing", no_argument, NULL, 2009},
        {"preview", required_argument, NULL, 2010}, {"hold", required_argument, NULL, 2011},
        {"no-stream", no_argument, NULL, 2012},
        {"help", no_argument, NULL, 'h'}, DFS_CLI_COMMON_LONGOPTS, DFS_CLI_DIST_LONGOPTS, {NULL, 0, NULL, 0}};
    a->granularity_ns = INT64_C(1000000000);
    a->preview = PREVIEW_BYTES;
    a->views[0] = DFS_VIEW_TIME_RANGE;
    a->nviews = 1;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "j:o:hvq", longopts, NULL)) != -1;) {
        int handled = dfs_cli_common_option(&a->common, "analyze", c, optarg);
        if (handled < 0)
            return DFS_EXIT_USAGE;
        if (handled)
            continue;
        int rc = parse_option(a, c, optarg);
        if (rc >= 0)
            return rc;
    }
    if (optind >= argc) {
        fprintf(stderr, "dfscope analyze: no input (see 'dfscope analyze --help')\n");
        return DFS_EXIT_USAGE;
    }
    if (a->format == DFS_CLI_CSV && !a->output) {
        fprintf(stderr, "dfscope analyze: --format csv writes one file per view: give -o DIR\n");
        return DFS_EXIT_USAGE;
    }
    return -1;
}

static bool has_category(const dfs_preview *pv, const dfs_string_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        for (size_t k = 0; k < pv->ncategories; k++)
            if (strcmp(pv->categories[k], l->v[i]) == 0)
                return true;
    return false;
}

/* The preset named on the command line, or the first shipped one whose categories appear; NULL
 * with the reason in err. */
static dfs_preset *choose_preset(const analyze_args *a, const dfs_preview *pv, const char **source,
                                 dfs_preset_error *err)
{
    if (a->preset) {
        *source = "given";
        return dfs_preset_load(a->preset, err);
    }
    *source = "auto-detected";
    static const char *const candidates[] = {"dlio", "ai"};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
        dfs_preset *p = dfs_preset_load(candidates[i], err);
        if (p && has_category(pv, &p->detect_categories))
            return p;
        dfs_preset_free(p);
    }
    return dfs_preset_load("posix", err);
}

static int write_csv_dir(const char *dir, const dfs_layered_result *r)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "dfscope analyze: cannot create %s: %s\n", dir, strerror(errno));
        return DFS_EXIT_OUTPUT;
    }
    for (size_t i = 0; i < 2 * r->nviews; i++) {
        const dfs_view_result *v = &r->views[i / 2];
        char path[4096], err[512];
        snprintf(path, sizeof path, "%s/%s%s.csv", dir, dfs_view_name(v->type), i % 2 ? "_summary" : "");
        dfs_atomic_file af;
        if (dfs_atomic_open(&af, path, err, sizeof err) != 0) {
            fprintf(stderr, "dfscope analyze: %s\n", err);
            return DFS_EXIT_OUTPUT;
        }
        if (i % 2)
            dfs_layered_write_summary_csv(af.fp, r, v);
        else
            dfs_layered_write_view_csv(af.fp, v);
        if (dfs_atomic_close(&af, true, err, sizeof err) != 0) {
            fprintf(stderr, "dfscope analyze: %s\n", err);
            return DFS_EXIT_OUTPUT;
        }
    }
    return DFS_EXIT_OK;
}

static int write_report(const analyze_args *a, const dfs_layered_result *r, const dfs_report_context *ctx)
{
    if (a->format == DFS_CLI_CSV)
        return write_csv_dir(a->output, r);
    FILE *out = stdout;
    dfs_atomic_file af;
    char err[512];
    if (a->output) {
        if (dfs_atomic_open(&af, a->output, err, sizeof err) != 0) {
            fprintf(stderr, "dfscope analyze: %s\n", err);
            return DFS_EXIT_OUTPUT;
        }
        out = af.fp;
    }
    if (a->format == DFS_CLI_JSON)
        dfs_layered_write_json(out, r, ctx);
    else
        dfs_layered_write_text(out, r, ctx);
    if (a->output) {
        if (dfs_atomic_close(&af, true, err, sizeof err) != 0) {
            fprintf(stderr, "dfscope analyze: %s\n", err);
            return DFS_EXIT_OUTPUT;
        }
    } else if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "dfscope analyze: cannot write the output\n");
        return DFS_EXIT_OUTPUT;
    }
    return DFS_EXIT_OK;
}

static void fill_options(const analyze_args *a, const dfs_preset *preset, const dfs_preview *pv, dfs_layered_options *o)
{
    memset(o, 0, sizeof *o);
    o->preset = preset;
    o->compat = a->compat;
    for (size_t i = 0; i < a->nviews; i++) {
        o->order[o->norder++] = a->views[i];
        o->views |= 1u << a->views[i];
    }
    o->granularity_ns = a->granularity_ns;
    o->origin_ns = pv->have_origin ? pv->origin_ns : 0;
    o->auto_categories = (const char *const *)pv->categories;
    o->nauto_categories = pv->ncategories;
    o->keep_ignored = a->keep_ignored;
    o->no_streaming = a->no_stream;
    o->hold_intervals = a->hold;
    o->summaries_only = a->format == DFS_CLI_TABLE;
}

typedef struct write_ctx {
    const analyze_args *a;
    const char *source;
} write_ctx;

static int an_write(void *user, const dfs_cli_result *res)
{
    const write_ctx *w = user;
    dfs_report_context ctx = {.preset_source = w->source, .reran = res->reran, .rerun_reason = res->reason};
    return write_report(w->a, res->result, &ctx);
}

/* Reads once; when the provisional origin, clocks or categories turn out wrong, reads again with
 * the facts of the first pass (dfs_cli_run_analysis). */
static int analyse(analyze_args *a, char **paths, int npaths, const dfs_preset *preset, const dfs_preview *pv,
                   const char *source)
{
    dfs_layered_options opt;
    fill_options(a, preset, pv, &opt);
    write_ctx w = {a, source};
    const dfs_cli_job job = {.cmd = "analyze", .an = &dfs_layered_analysis, .opt = &opt, .output = a->output,
                             .write = an_write, .user = &w};
    return dfs_cli_run_analysis(&a->common, paths, npaths, &job);
}

static int analyze_main(analyze_args *a, char **paths, int npaths)
{
    double started = dfs_cli_now();
    dfs_preview pv;
    int rc = dfs_cli_preview(&a->common, "analyze", paths, npaths, a->output, a->preview, &pv);
    if (rc != DFS_EXIT_OK)
        return rc;
    const char *source;
    dfs_preset_error err;
    dfs_preset *preset = choose_preset(a, &pv, &source, &err);
    if (!dfs_cli_agree(&a->common, "analyze", preset != NULL, err.message)) {
        dfs_preset_free(preset);
        dfs_preview_free(&pv);
        return DFS_EXIT_USAGE;
    }
    bool speak = dfs_cli_is_rank0(&a->common);
    if (!a->common.quiet && !a->preset && speak)
        fprintf(stderr, "dfscope analyze: preset %s (auto-detected; choose another with --preset)\n", preset->name);
    rc = analyse(a, paths, npaths, preset, &pv, source);
    if (a->timing && speak)
        fprintf(stderr, "dfscope analyze: %.3f s wall (finishing %.3f, writing %.3f), peak RSS %llu MB\n",
                dfs_cli_now() - started, a->common.finish_s, a->common.write_s,
                (unsigned long long)(dfs_cli_peak_rss_kb() / 1024));
    dfs_preset_free(preset);
    dfs_preview_free(&pv);
    return rc;
}

int dfs_cmd_analyze(int argc, char **argv)
{
    analyze_args a = {0};
    dfs_cli_common_init(&a.common);
    int rc = parse_args(&a, argc, argv);
    if (rc >= 0)
        return rc;
    rc = analyze_main(&a, argv + optind, argc - optind);
    return dfs_cli_done(&a.common, rc);
}
