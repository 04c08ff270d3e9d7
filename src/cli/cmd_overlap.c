/* cmd_overlap.c - `dfscope overlap PATH...`: exact I/O-versus-compute overlap (overlap.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/common/preset.h"
#include "analyze/common/preview.h"
#include "analyze/layered/layered.h"
#include "analyze/overlap/overlap.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "output/atomic.h"
#include "output/overlap_report.h"

#define PREVIEW_BYTES (256u << 10)

static void usage(FILE *out)
{
    fprintf(out,
            "usage: dfscope overlap [options] PATH...\n\n"
            "How much I/O time is not hidden behind computation: events are put in classes (compute,\n"
            "I/O, app-level I/O, and any extra class) by predicates, and per process (or thread, or the\n"
            "whole run) the exact unions, intersections and differences of the classes' intervals are\n"
            "measured; also per time bin, per epoch, and the reference's approximate estimate.\n\n"
            "classes (a predicate of the layered-analysis language, a layer name of the preset, or none):\n"
            "      --compute PRED      default from the preset (DLIO: the framework's compute calls)\n"
            "      --io PRED           default: categories starting with posix or stdio\n"
            "      --app-io PRED       default from the preset (DLIO: cat == \"reader\")\n"
            "      --class NAME=PRED   an extra class compared with compute (repeatable, at most %d)\n"
            "      --epochs PRED       epoch markers (DLIO default: DLIOBenchmark._train events)\n"
            "      --steps PRED        step markers (default none)\n"
            "      --post-read         drop the preset's ignored files and functions first\n"
            "options:\n"
            "      --preset NAME|FILE  posix, dlio, dlio-g2, ai, auto, or a YAML file (docs/PRESETS.md);\n"
            "                          default: detected from the categories (printed)\n"
            "      --scope SCOPE       process (default), thread or global: what the summary sums\n"
            "      --global            also the global scope (all ranks merged; memory grows with the\n"
            "                          run's busy periods; implied by --scope global)\n"
            "      --granularity DUR   also per time bin: 5s, 500ms, 2m, 1h, 250us; a bare number is\n"
            "                          seconds (default: no bins; 1s for the approximate methods)\n"
            "      --approximate       the reference's per-bin estimate instead of exact values\n"
            "      --method M          exact (default), approximate, or g0-exact (the reference's\n"
            "                          per-bin unions, global only)\n"
            "      --format FMT        table (default), json, or csv (one file per table, needs -o DIR)\n"
            "  -o, --output PATH       write to PATH (atomically) instead of stdout; a directory for csv\n"
            "      --hold N            intervals a worker holds before flushing (default 16k)\n"
            "      --no-stream         never flush before the end (more memory, same answers)\n"
            "      --timing            print wall time and peak RSS on stderr\n" DFS_CLI_COMMON_HELP DFS_CLI_DIST_HELP
            "  -h, --help              this help\n\n"
            "Exit codes: 0 ok, 1 damaged input skipped, 2 usage or unreadable input,\n"
            "            3 --strict and damage found, 4 output error.\n",
            DFS_OVERLAP_MAX_EXTRA);
}


typedef struct overlap_args {
    dfs_cli_common common;
    const char *preset;
    const char *compute, *io, *app_io, *epochs, *steps;
    bool set_compute, set_io, set_app_io, set_epochs, set_steps;
    dfs_overlap_class_def extra[DFS_OVERLAP_MAX_EXTRA];
    char *extra_text[DFS_OVERLAP_MAX_EXTRA];
    size_t nextra;
    bool post_read, no_stream, timing, global;
    dfs_overlap_method method;
    dfs_overlap_scope scope;
    int64_t granularity_ns;
    uint64_t hold;
    dfs_cli_format format;
    const char *output;
} overlap_args;

static const char *none_or(const char *arg)
{
    return strcmp(arg, "none") == 0 ? NULL : arg;
}

static int add_class(overlap_args *a, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) {
        fprintf(stderr, "dfscope overlap: --class takes NAME=PREDICATE, not '%s'\n", arg);
        return DFS_EXIT_USAGE;
    }
    if (a->nextra == DFS_OVERLAP_MAX_EXTRA) {
        fprintf(stderr, "dfscope overlap: at most %d extra classes\n", DFS_OVERLAP_MAX_EXTRA);
        return DFS_EXIT_USAGE;
    }
    char *name = strndup(arg, (size_t)(eq - arg));
    if (!name) {
        fprintf(stderr, "dfscope overlap: out of memory\n");
        return DFS_EXIT_OUTPUT;
    }
    a->extra_text[a->nextra] = name;
    a->extra[a->nextra++] = (dfs_overlap_class_def){.name = name, .predicate = eq + 1};
    return -1;
}

static int parse_method(overlap_args *a, const char *arg)
{
    if (strcmp(arg, "exact") == 0)
        a->method = DFS_OVERLAP_EXACT;
    else if (strcmp(arg, "approximate") == 0)
        a->method = DFS_OVERLAP_APPROXIMATE;
    else if (strcmp(arg, "g0-exact") == 0)
        a->method = DFS_OVERLAP_G0_EXACT;
    else {
        fprintf(stderr, "dfscope overlap: --method takes exact, approximate or g0-exact, not '%s'\n", arg);
        return DFS_EXIT_USAGE;
    }
    return -1;
}

static int parse_scope(overlap_args *a, const char *arg)
{
    if (strcmp(arg, "process") == 0)
        a->scope = DFS_OVERLAP_PROCESS;
    else if (strcmp(arg, "thread") == 0)
        a->scope = DFS_OVERLAP_THREAD;
    else if (strcmp(arg, "global") == 0)
        a->scope = DFS_OVERLAP_GLOBAL;
    else {
        fprintf(stderr, "dfscope overlap: --scope takes process, thread or global, not '%s'\n", arg);
        return DFS_EXIT_USAGE;
    }
    return -1;
}

static int parse_format(overlap_args *a, const char *arg)
{
    int rc = dfs_cli_parse_format("overlap", arg, true, &a->format);
    return rc ? rc : -1;
}

static int parse_class_option(overlap_args *a, int c, const char *arg)
{
    switch (c) {
    case 3001: a->compute = none_or(arg); a->set_compute = true; return -1;
    case 3002: a->io = none_or(arg); a->set_io = true; return -1;
    case 3003: a->app_io = none_or(arg); a->set_app_io = true; return -1;
    case 3004: return add_class(a, arg);
    case 3005: a->epochs = none_or(arg); a->set_epochs = true; return -1;
    case 3006: a->steps = none_or(arg); a->set_steps = true; return -1;
    case 3007: a->post_read = true; return -1;
    default: return -2;
    }
}

static int parse_option(overlap_args *a, int c, const char *arg)
{
    int rc = parse_class_option(a, c, arg);
    if (rc != -2)
        return rc;
    switch (c) {
    case 3010: a->preset = arg; return -1;
    case 3011: return parse_scope(a, arg);
    case 3012:
        if (!dfs_parse_duration_ns(arg, &a->granularity_ns)) {
            fprintf(stderr, "dfscope overlap: --granularity takes a duration such as 5s, 500ms or 2m, not '%s'\n",
                    arg);
            return DFS_EXIT_USAGE;
        }
        return -1;
    case 3013: a->method = DFS_OVERLAP_APPROXIMATE; return -1;
    case 3014: return parse_method(a, arg);
    case 3015: return parse_format(a, arg);
    case 'o': a->output = arg; return -1;
    case 3016: return dfs_cli_parse_hold("overlap", arg, &a->hold);
    case 3017: a->no_stream = true; return -1;
    case 3018: a->timing = true; return -1;
    case 3019: a->global = true; return -1;
    case 'h': usage(stdout); return DFS_EXIT_OK;
    default: fprintf(stderr, "dfscope overlap: see 'dfscope overlap --help'\n"); return DFS_EXIT_USAGE;
    }
}

/* Returns -1 to go on, else an exit code. */
static int parse_args(overlap_args *a, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"compute", required_argument, NULL, 3001}, {"io", required_argument, NULL, 3002},
        {"app-io", required_argument, NULL, 3003}, {"class", required_argument, NULL, 3004},
        {"epochs", required_argument, NULL, 3005}, {"steps", required_argument, NULL, 3006},
        {"post-read", no_argument, NULL, 3007}, {"preset", required_argument, NULL, 3010},
        {"scope", required_argument, NULL, 3011}, {"granularity", required_argument, NULL, 3012},
        {"approximate", no_argument, NULL, 3013}, {"method", required_argument, NULL, 3014},
        {"format", required_argument, NULL, 3015}, {"output", required_argument, NULL, 'o'},
        {"hold", required_argument, NULL, 3016}, {"no-stream", no_argument, NULL, 3017},
        {"timing", no_argument, NULL, 3018}, {"global", no_argument, NULL, 3019}, {"help", no_argument, NULL, 'h'},
        DFS_CLI_COMMON_LONGOPTS, DFS_CLI_DIST_LONGOPTS, {NULL, 0, NULL, 0}};
    a->scope = DFS_OVERLAP_PROCESS;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "j:o:hvq", longopts, NULL)) != -1;) {
        int handled = dfs_cli_common_option(&a->common, "overlap", c, optarg);
        if (handled < 0)
            return DFS_EXIT_USAGE;
        if (handled)
            continue;
        int rc = parse_option(a, c, optarg);
        if (rc >= 0)
            return rc;
    }
    if (optind >= argc) {
        fprintf(stderr, "dfscope overlap: no input (see 'dfscope overlap --help')\n");
        return DFS_EXIT_USAGE;
    }
    if (a->format == DFS_CLI_CSV && !a->output) {
        fprintf(stderr, "dfscope overlap: --format csv writes one file per table: give -o DIR\n");
        return DFS_EXIT_USAGE;
    }
    if (a->method != DFS_OVERLAP_EXACT && !a->granularity_ns)
        a->granularity_ns = INT64_C(1000000000);
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

/* The preset named on the command line, or the first shipped one whose categories appear (as
 * `dfscope analyze` chooses); NULL with the reason in err. */
static dfs_preset *choose_preset(const overlap_args *a, const dfs_preview *pv, dfs_preset_error *err)
{
    if (a->preset)
        return dfs_preset_load(a->preset, err);
    static const char *const candidates[] = {"dlio", "ai"};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
        dfs_preset *p = dfs_preset_load(candidates[i], err);
        if (p && has_category(pv, &p->detect_categories))
            return p;
        dfs_preset_free(p);
    }
    return dfs_preset_load("posix", err);
}

static void fill_options(const overlap_args *a, const dfs_preset *preset, const dfs_preview *pv,
                         dfs_overlap_options *o)
{
    dfs_overlap_defaults d;
    dfs_overlap_defaults_for(preset, &d);
    memset(o, 0, sizeof *o);
    o->preset = preset;
    o->compute = a->set_compute ? a->compute : d.compute;
    o->io = a->set_io ? a->io : d.io;
    o->app_io = a->set_app_io ? a->app_io : d.app_io;
    o->epochs = a->set_epochs ? a->epochs : d.epochs;
    o->steps = a->set_steps ? a->steps : d.steps;
    o->extra = a->extra;
    o->nextra = a->nextra;
    o->post_read = a->post_read;
    o->global = a->global;
    o->method = a->method;
    o->scope = a->scope;
    o->granularity_ns = a->granularity_ns;
    o->origin_ns = pv->have_origin ? pv->origin_ns : 0;
    o->no_streaming = a->no_stream;
    o->hold_intervals = a->hold;
}

/* ----- output ----- */

static int fail_output(const char *err)
{
    fprintf(stderr, "dfscope overlap: %s\n", err);
    return DFS_EXIT_OUTPUT;
}

static int write_csv_dir(const char *dir, const dfs_overlap_result *r)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "dfscope overlap: cannot create %s: %s\n", dir, strerror(errno));
        return DFS_EXIT_OUTPUT;
    }
    for (int t = 0; t < DFS_OVERLAP_CSV__COUNT; t++) {
        if (!dfs_overlap_csv_present(r, (dfs_overlap_csv)t))
            continue;
        char path[4096], err[512];
        snprintf(path, sizeof path, "%s/%s", dir, dfs_overlap_csv_name((dfs_overlap_csv)t));
        dfs_atomic_file af;
        if (dfs_atomic_open(&af, path, err, sizeof err) != 0)
            return fail_output(err);
        dfs_overlap_write_csv(af.fp, r, (dfs_overlap_csv)t);
        if (dfs_atomic_close(&af, true, err, sizeof err) != 0)
            return fail_output(err);
    }
    return DFS_EXIT_OK;
}

static int write_report(const overlap_args *a, const dfs_overlap_result *r, const dfs_overlap_report_context *ctx)
{
    if (a->format == DFS_CLI_CSV)
        return write_csv_dir(a->output, r);
    FILE *out = stdout;
    dfs_atomic_file af;
    char err[512];
    if (a->output) {
        if (dfs_atomic_open(&af, a->output, err, sizeof err) != 0)
            return fail_output(err);
        out = af.fp;
    }
    if (a->format == DFS_CLI_JSON)
        dfs_overlap_write_json(out, r, ctx);
    else
        dfs_overlap_write_text(out, r, ctx);
    if (a->output) {
        if (dfs_atomic_close(&af, true, err, sizeof err) != 0)
            return fail_output(err);
    } else if (fflush(stdout) != 0 || ferror(stdout)) {
        return fail_output("cannot write the output");
    }
    return DFS_EXIT_OK;
}

typedef struct write_ctx {
    const overlap_args *a;
    const char *source;
} write_ctx;

static int ov_write(void *user, const dfs_cli_result *res)
{
    const write_ctx *w = user;
    dfs_overlap_report_context ctx = {.preset_source = w->source, .reran = res->reran, .rerun_reason = res->reason};
    return write_report(w->a, res->result, &ctx);
}

/* Reads once; when the provisional origin, a clock or the streaming assumptions fail, reads again
 * with the facts of the first pass (dfs_cli_run_analysis). */
static int analyse(overlap_args *a, char **paths, int npaths, dfs_overlap_options *opt, const char *source)
{
    write_ctx w = {a, source};
    const dfs_cli_job job = {.cmd = "overlap", .an = &dfs_overlap_analysis, .opt = opt, .output = a->output,
                             .write = ov_write, .user = &w};
    return dfs_cli_run_analysis(&a->common, paths, npaths, &job);
}

static void args_free(overlap_args *a)
{
    for (size_t i = 0; i < a->nextra; i++)
        free(a->extra_text[i]);
}

static int overlap_main(overlap_args *a, char **paths, int npaths)
{
    double started = dfs_cli_now();
    dfs_preview pv;
    int rc = dfs_cli_preview(&a->common, "overlap", paths, npaths, a->output, PREVIEW_BYTES, &pv);
    if (rc != DFS_EXIT_OK)
        return rc;
    bool speak = dfs_cli_is_rank0(&a->common);
    dfs_preset_error err;
    dfs_preset *preset = choose_preset(a, &pv, &err);
    if (dfs_cli_agree(&a->common, "overlap", preset != NULL, err.message)) {
        if (!a->common.quiet && !a->preset && speak)
            fprintf(stderr, "dfscope overlap: preset %s (auto-detected; choose another with --preset)\n",
                    preset->name);
        dfs_overlap_options opt;
        fill_options(a, preset, &pv, &opt);
        rc = analyse(a, paths, npaths, &opt, a->preset ? "given" : "auto-detected");
    } else {
        rc = DFS_EXIT_USAGE;
    }
    if (a->timing && speak)
        fprintf(stderr, "dfscope overlap: %.3f s wall (finishing %.3f, writing %.3f), peak RSS %llu MB\n",
                dfs_cli_now() - started, a->common.finish_s, a->common.write_s,
                (unsigned long long)(dfs_cli_peak_rss_kb() / 1024));
    dfs_preset_free(preset);
    dfs_preview_free(&pv);
    return rc;
}

int dfs_cmd_overlap(int argc, char **argv)
{
    overlap_args a = {0};
    dfs_cli_common_init(&a.common);
    int rc = parse_args(&a, argc, argv);
    if (rc < 0)
        rc = dfs_cli_done(&a.common, overlap_main(&a, argv + optind, argc - optind));
    args_free(&a);
    return rc;
}
