/* cmd_steps.c - `dfscope steps PATH...`: training steps of the unified model (data wait, compute,
 * transfers, I/O), the TensorBoard plugin's breakdown for Kineto traces and the verdicts. */
#include <stddef.h>

#include "analyze/steps/steps.h"
#include "cli/command.h"
#include "output/steps_report.h"

typedef struct steps_args {
    dfs_cli_args base;
    dfs_steps_options opt;
    size_t head;
    bool details;
    bool list_concepts;
    dfs_steps *proto; /* an analysis of the options, for the predicates in force */
} steps_args;

static void init(void *args)
{
    steps_args *a = args;
    dfs_steps_options_init(&a->opt);
    a->head = 50;
}

static int set_head(void *args, const char *cmd, const char *arg)
{
    double v;
    if (!dfs_cli_parse_double(arg, 0, 1e9, &v) || v != (double)(size_t)v)
        return dfs_cli_usage_error(cmd, "--head takes a number of rows, not", arg);
    ((steps_args *)args)->head = (size_t)v;
    return -1;
}

/* --concepts: every rank of a launcher prints them, as any command that reads nothing. */
static int list_concepts(const steps_args *a)
{
    char why[512];
    dfs_steps *s = dfs_steps_analysis.create(&a->opt, why, sizeof why);
    if (!s)
        return dfs_cli_error("steps", DFS_EXIT_USAGE, why);
    dfs_steps_write_concepts(stdout, dfs_steps_concepts(s));
    dfs_steps_free(s);
    return DFS_EXIT_OK;
}

static int validate(void *args)
{
    const steps_args *a = args;
    if (a->list_concepts)
        return list_concepts(a);
    return a->base.npaths ? -1 : dfs_cli_no_input("steps");
}

static int begin(void *args)
{
    steps_args *a = args;
    dfs_cli_distributed(&a->base.common); /* under a launcher, every rank from here on */
    char why[512] = "out of memory";
    a->proto = dfs_steps_analysis.create(&a->opt, why, sizeof why);
    return dfs_cli_agree(&a->base.common, "steps", a->proto != NULL, why) ? -1 : DFS_EXIT_USAGE;
}

static void emit(FILE *out, const void *args, const dfs_cli_result *res)
{
    const steps_args *a = args;
    dfs_steps_report_opts ro = {
        .head = a->head, .details = a->details, .opt = &a->opt, .concepts = dfs_steps_concepts(a->proto)};
    if (a->base.format == DFS_CLI_JSON)
        dfs_steps_write_json(out, res->run, res->result, &ro);
    else if (a->base.format == DFS_CLI_CSV)
        dfs_steps_write_csv(out, res->result);
    else
        dfs_steps_write_text(out, res->run, res->result, &ro);
}

static int end(void *args, int rc)
{
    dfs_steps_free(((steps_args *)args)->proto);
    return rc;
}

static bool found_nothing(const void *args, const dfs_cli_result *res, char *buf, size_t len)
{
    (void)args;
    const dfs_steps_result *r = res->result;
    if (r->total.steps)
        return false;
    snprintf(buf, len, "no training step found");
    return true;
}

#define ARG(field) DFS_FIELD(steps_args, field)
#define CONCEPT(c) ARG(opt.concepts.text[c])

static const dfs_cli_option options[] = {
    DFS_OPTION("format", 0, "F", DFS_OPT_FORMAT, "table (default) | json | csv (one row per step)",
               ARG(base.format), .hi = 1),
    DFS_OPTION("output", 'o', "FILE", DFS_OPT_STRING, "write to FILE (atomically) instead of stdout", ARG(base.output)),
    DFS_OPTION("details", 0, NULL, DFS_OPT_FLAG,
               "tables: every run's steps, epochs, verdicts and notes (one\n"
               "run: always; several: one line each, slowest first, without it)",
               ARG(details)),
    DFS_OPTION("head", 0, "N", DFS_OPT_CALL, "per-step rows shown per run in tables (default 50, 0 = all)",
               .apply = set_head),
    DFS_OPTION("step", 0, "PRED", DFS_OPT_STRING, "step markers (a span, or the marker opening a step)",
               CONCEPT(DFS_CONCEPT_STEP)),
    DFS_OPTION("step-end", 0, "PRED", DFS_OPT_STRING, "markers closing a step opened by a --step marker",
               CONCEPT(DFS_CONCEPT_STEP_END)),
    DFS_OPTION("data-wait", 0, "PRED", DFS_OPT_STRING, "data wait (D)", CONCEPT(DFS_CONCEPT_DATA_WAIT)),
    DFS_OPTION("compute", 0, "PRED", DFS_OPT_STRING,
               "host compute (C_host; alias --compute-host); --compute-dev PRED: device compute",
               CONCEPT(DFS_CONCEPT_COMPUTE_HOST)),
    DFS_OPTION("compute-host", 0, "PRED", DFS_OPT_STRING, NULL, CONCEPT(DFS_CONCEPT_COMPUTE_HOST)),
    DFS_OPTION("compute-dev", 0, "PRED", DFS_OPT_STRING, NULL, CONCEPT(DFS_CONCEPT_COMPUTE_DEV)),
    DFS_OPTION("transfer", 0, "PRED", DFS_OPT_STRING, "copies and collectives (X)", CONCEPT(DFS_CONCEPT_TRANSFER)),
    DFS_OPTION("io", 0, "PRED", DFS_OPT_STRING, "storage calls (I)", CONCEPT(DFS_CONCEPT_IO)),
    DFS_OPTION("runtime", 0, "PRED", DFS_OPT_STRING,
               "runtime calls; --epoch PRED: epoch and mode windows\n"
               "(PRED 'off' makes a concept unavailable)",
               CONCEPT(DFS_CONCEPT_RUNTIME)),
    DFS_OPTION("epoch", 0, "PRED", DFS_OPT_STRING, NULL, CONCEPT(DFS_CONCEPT_EPOCH)),
    DFS_OPTION("concepts", 0, NULL, DFS_OPT_FLAG, "print the predicates in force for every source and exit",
               ARG(list_concepts)),
    DFS_OPTION("include-flagged", 0, NULL, DFS_OPT_FLAG, "use warm-up and last steps in the verdicts too",
               ARG(opt.include_flagged)),
    DFS_OPTION("threshold", 0, "PCT", DFS_OPT_PERCENT, "input-bound above PCT % exposed data wait (default 5)",
               ARG(opt.wait_threshold), .hi = 100, .bad = "--threshold takes a percentage from 0 to 100, not"),
    DFS_OPTION("storage-threshold", 0, "PCT", DFS_OPT_PERCENT,
               "storage-bound above PCT % of the wait in I/O (default 50)", ARG(opt.storage_threshold), .hi = 100,
               .bad = "--storage-threshold takes a percentage from 0 to 100, not"),
    DFS_OPTION("outlier-factor", 0, "F", DFS_OPT_NUMBER, "slow fetches / batches at >= F x median (default 2)",
               ARG(opt.outlier_factor), .lo = 1, .hi = 1e6,
               .bad = "--outlier-factor takes a factor of at least 1, not"),
    DFS_OPTION("outlier-floor", 0, "TIME", DFS_OPT_DURATION,
               "...and at least TIME long (default 1ms): a ratio of tiny\n"
               "waits is not a slowness worth acting on", ARG(opt.outlier_floor_ns)),
    {0},
};

const dfs_cli_command dfs_cmd_steps = {
    .name = "steps",
    .summary = "training steps: data wait, compute, TensorBoard breakdown, input-bound verdicts",
    .description =
        "Training steps of PyTorch profiler (Kineto), Composer, SageMaker Debugger and DFTracer\n"
        "(dft_ai categories, legacy DLIO) traces: per step the wall time, the data wait, the part of\n"
        "it no device work hides, device and host compute, transfers and I/O; per run (input file\n"
        "or rank) the sums, the TensorBoard plugin's step breakdown (Kineto) and the verdicts:\n"
        "input-bound, Composer's rule, slow fetches and batches, step outliers, storage-bound\n"
        "waits, with the usual remedies. The concepts are predicates (the `analyze` language)\n"
        "whose defaults follow the file's dialect; any of them can be replaced.",
    .epilogue = "Exit codes: 0 ok, 1 damaged input skipped, 2 usage or unreadable input, 3 --strict and\n"
                "damage found, 4 output error.\n",
    .options = options,
    .groups = DFS_CLI_READING | DFS_CLI_MPI | DFS_CLI_JOBS,
    .args_size = sizeof(steps_args),
    .init = init,
    .validate = validate,
    .analysis = &dfs_steps_analysis,
    .begin = begin,
    .analysis_options = offsetof(steps_args, opt),
    .found_nothing = found_nothing,
    .emit = emit,
    .end = end};
