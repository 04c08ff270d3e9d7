/* cmd_steps.c - `dfscope steps PATH...`: training steps of the unified model (data wait, compute,
 * transfers, I/O), the TensorBoard plugin's breakdown for Kineto traces and the verdicts. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/steps/steps.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "output/atomic.h"
#include "output/steps_report.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: dfscope steps [options] PATH...\n\n"
            "Training steps of PyTorch profiler (Kineto), Composer, SageMaker Debugger and DFTracer\n"
            "(dft_ai categories, legacy DLIO) traces: per step the wall time, the data wait, the part of\n"
            "it no device work hides, device and host compute, transfers and I/O; per run (input file\n"
            "or rank) the sums, the TensorBoard plugin's step breakdown (Kineto) and the verdicts:\n"
            "input-bound, Composer's rule, slow fetches and batches, step outliers, storage-bound\n"
            "waits, with the usual remedies. The concepts are predicates (the `analyze` language)\n"
            "whose defaults follow the file's dialect; any of them can be replaced.\n\n"
            "options:\n"
            "      --format F        table (default) | json | csv (one row per step)\n"
            "  -o, --output FILE     write to FILE (atomically) instead of stdout\n"
            "      --head N          per-step rows shown per run in tables (default 50, 0 = all)\n"
            "      --step PRED       step markers (a span, or the marker opening a step)\n"
            "      --step-end PRED   markers closing a step opened by a --step marker\n"
            "      --data-wait PRED  data wait (D)\n"
            "      --compute PRED    host compute (C_host); --compute-dev PRED: device compute\n"
            "      --transfer PRED   copies and collectives (X)\n"
            "      --io PRED         storage calls (I)\n"
            "      --runtime PRED    runtime calls; --epoch PRED: epoch and mode windows\n"
            "                        (PRED 'off' makes a concept unavailable)\n"
            "      --concepts        print the predicates in force for every source and exit\n"
            "      --include-flagged use warm-up and last steps in the verdicts too\n"
            "      --threshold PCT   input-bound above PCT %% exposed data wait (default 5)\n"
            "      --storage-threshold PCT\n"
            "                        storage-bound above PCT %% of the wait in I/O (default 50)\n"
            "      --outlier-factor F  slow fetches / batches at >= F x median (default 2)\n" DFS_CLI_COMMON_HELP
                DFS_CLI_DIST_HELP
            "  -h, --help            this help\n\n"
            "Exit codes: 0 ok, 1 damaged input skipped, 2 usage or unreadable input, 3 --strict and\n"
            "damage found, 4 output error.\n");
}


typedef struct steps_args {
    dfs_cli_common common;
    dfs_steps_options opt;
    char **paths;
    int npaths;
    const char *output;
    dfs_cli_format format;
    size_t head;
    bool list_concepts;
} steps_args;

enum {
    O_FORMAT = 3001, O_HEAD, O_STEP, O_STEP_END, O_DATA_WAIT, O_COMPUTE, O_COMPUTE_DEV, O_TRANSFER, O_IO,
    O_RUNTIME, O_EPOCH, O_CONCEPTS, O_INCLUDE, O_THRESHOLD, O_STORAGE, O_FACTOR
};

static const struct {
    int opt;
    dfs_concept concept;
} concept_opts[] = {{O_STEP, DFS_CONCEPT_STEP},           {O_STEP_END, DFS_CONCEPT_STEP_END},
                    {O_DATA_WAIT, DFS_CONCEPT_DATA_WAIT}, {O_COMPUTE, DFS_CONCEPT_COMPUTE_HOST},
                    {O_COMPUTE_DEV, DFS_CONCEPT_COMPUTE_DEV}, {O_TRANSFER, DFS_CONCEPT_TRANSFER},
                    {O_IO, DFS_CONCEPT_IO},               {O_RUNTIME, DFS_CONCEPT_RUNTIME},
                    {O_EPOCH, DFS_CONCEPT_EPOCH}};

static int option_value(steps_args *a, int c, const char *arg)
{
    double v;
    for (size_t i = 0; i < sizeof concept_opts / sizeof *concept_opts; i++)
        if (concept_opts[i].opt == c) {
            a->opt.concepts.text[concept_opts[i].concept] = arg;
            return 0;
        }
    switch (c) {
    case 'o': a->output = arg; return 0;
    case O_FORMAT:
        return dfs_cli_parse_format("steps", arg, true, &a->format);
    case O_HEAD:
        if (!dfs_cli_parse_double(arg, 0, 1e9, &v) || v != (double)(size_t)v)
            return dfs_cli_usage_error("steps", "--head takes a number of rows, not", arg);
        a->head = (size_t)v;
        return 0;
    case O_THRESHOLD:
        if (!dfs_cli_parse_double(arg, 0, 100, &v))
            return dfs_cli_usage_error("steps", "--threshold takes a percentage from 0 to 100, not", arg);
        a->opt.wait_threshold = v / 100;
        return 0;
    case O_STORAGE:
        if (!dfs_cli_parse_double(arg, 0, 100, &v))
            return dfs_cli_usage_error("steps", "--storage-threshold takes a percentage from 0 to 100, not", arg);
        a->opt.storage_threshold = v / 100;
        return 0;
    case O_FACTOR:
        if (!dfs_cli_parse_double(arg, 1, 1e6, &v))
            return dfs_cli_usage_error("steps", "--outlier-factor takes a factor of at least 1, not", arg);
        a->opt.outlier_factor = v;
        return 0;
    default: return -1;
    }
}

static int parse_args(steps_args *a, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, O_FORMAT},       {"output", required_argument, NULL, 'o'},
        {"head", required_argument, NULL, O_HEAD},           {"step", required_argument, NULL, O_STEP},
        {"step-end", required_argument, NULL, O_STEP_END},   {"data-wait", required_argument, NULL, O_DATA_WAIT},
        {"compute", required_argument, NULL, O_COMPUTE},     {"compute-host", required_argument, NULL, O_COMPUTE},
        {"compute-dev", required_argument, NULL, O_COMPUTE_DEV}, {"transfer", required_argument, NULL, O_TRANSFER},
        {"io", required_argument, NULL, O_IO},               {"runtime", required_argument, NULL, O_RUNTIME},
        {"epoch", required_argument, NULL, O_EPOCH},         {"concepts", no_argument, NULL, O_CONCEPTS},
        {"include-flagged", no_argument, NULL, O_INCLUDE},   {"threshold", required_argument, NULL, O_THRESHOLD},
        {"storage-threshold", required_argument, NULL, O_STORAGE},
        {"outlier-factor", required_argument, NULL, O_FACTOR}, {"help", no_argument, NULL, 'h'},
        DFS_CLI_COMMON_LONGOPTS,                             DFS_CLI_DIST_LONGOPTS,
        {NULL, 0, NULL, 0}};
    a->head = 50;
    a->paths = calloc((size_t)argc + 1, sizeof *a->paths);
    if (!a->paths)
        return DFS_EXIT_OUTPUT;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "-o:j:hvq", longopts, NULL)) != -1;) {
        if (c == 1) {
            a->paths[a->npaths++] = optarg;
            continue;
        }
        int handled = dfs_cli_common_option(&a->common, "steps", c, optarg);
        if (handled < 0)
            return DFS_EXIT_USAGE;
        if (handled)
            continue;
        if (c == 'h') {
            usage(stdout);
            return DFS_EXIT_OK;
        }
        if (c == O_CONCEPTS || c == O_INCLUDE) {
            *(c == O_CONCEPTS ? &a->list_concepts : &a->opt.include_flagged) = true;
            continue;
        }
        int rc = c == '?' || c == ':' ? -1 : option_value(a, c, optarg);
        if (rc > 0)
            return rc;
        if (rc < 0) {
            fprintf(stderr, "dfscope steps: see 'dfscope steps --help'\n");
            return DFS_EXIT_USAGE;
        }
    }
    if (a->npaths == 0 && !a->list_concepts) {
        fprintf(stderr, "dfscope steps: no input (see 'dfscope steps --help')\n");
        return DFS_EXIT_USAGE;
    }
    return -1;
}

/* The analysis, or NULL with why (a predicate that does not parse, or no memory). */
static dfs_steps *new_analysis(const steps_args *a, char *why, size_t len)
{
    return dfs_steps_analysis.create(&a->opt, why, len);
}

/* What writing needs: the options, and an analysis of them for the predicates in force. */
typedef struct steps_ctx {
    const steps_args *a;
    const dfs_steps *proto;
} steps_ctx;

static void write_result(FILE *out, const steps_ctx *x, const dfs_run *run, const dfs_steps_result *r)
{
    const steps_args *a = x->a;
    dfs_steps_report_opts ro = {.head = a->head, .opt = &a->opt, .concepts = dfs_steps_concepts(x->proto)};
    if (a->format == DFS_CLI_JSON)
        dfs_steps_write_json(out, run, r, &ro);
    else if (a->format == DFS_CLI_CSV)
        dfs_steps_write_csv(out, r);
    else
        dfs_steps_write_text(out, run, r, &ro);
}

static int write_outputs(void *user, const dfs_cli_result *res)
{
    const steps_ctx *x = user;
    const dfs_run *run = res->run;
    const void *result = res->result;
    const char *output = x->a->output;
    char err[512];
    if (!output) {
        write_result(stdout, x, run, result);
        if (fflush(stdout) == 0 && !ferror(stdout))
            return DFS_EXIT_OK;
        fprintf(stderr, "dfscope steps: cannot write the output\n");
        return DFS_EXIT_OUTPUT;
    }
    dfs_atomic_file af;
    if (dfs_atomic_open(&af, output, err, sizeof err) != 0) {
        fprintf(stderr, "dfscope steps: %s\n", err);
        return DFS_EXIT_OUTPUT;
    }
    write_result(af.fp, x, run, result);
    if (dfs_atomic_close(&af, true, err, sizeof err) != 0) {
        fprintf(stderr, "dfscope steps: %s\n", err);
        return DFS_EXIT_OUTPUT;
    }
    return DFS_EXIT_OK;
}

static int steps_main(steps_args *a)
{
    dfs_cli_distributed(&a->common); /* under a launcher, every rank from here on */
    char why[512] = "out of memory";
    dfs_steps *proto = new_analysis(a, why, sizeof why);
    if (!dfs_cli_agree(&a->common, "steps", proto != NULL, why)) {
        dfs_steps_free(proto);
        return DFS_EXIT_USAGE;
    }
    steps_ctx x = {a, proto};
    const dfs_cli_job job = {.cmd = "steps", .an = &dfs_steps_analysis, .opt = &a->opt, .output = a->output,
                             .write = write_outputs, .user = &x};
    int rc = dfs_cli_run_analysis(&a->common, a->paths, a->npaths, &job);
    dfs_steps_free(proto);
    return rc;
}

/* --concepts: every rank of a launcher prints them, as any command that reads nothing. */
static int list_concepts(const steps_args *a)
{
    char why[512];
    dfs_steps *s = new_analysis(a, why, sizeof why);
    if (!s) {
        fprintf(stderr, "dfscope steps: %s\n", why);
        return DFS_EXIT_USAGE;
    }
    dfs_steps_write_concepts(stdout, dfs_steps_concepts(s));
    dfs_steps_free(s);
    return DFS_EXIT_OK;
}

int dfs_cmd_steps(int argc, char **argv)
{
    steps_args a;
    memset(&a, 0, sizeof a);
    dfs_cli_common_init(&a.common);
    dfs_steps_options_init(&a.opt);
    int rc = parse_args(&a, argc, argv);
    if (rc < 0)
        rc = a.list_concepts ? list_concepts(&a) : dfs_cli_done(&a.common, steps_main(&a));
    free(a.paths);
    return rc;
}
