/* cmd_gpu.c - `dfscope gpu PATH...`: GPU analyses of PyTorch profiler (Kineto) traces, one file
 * per rank: temporal breakdown, kernel breakdowns, communication/computation overlap, idle time
 * per stream, ..., and when named the critical path of a window (--cp-annotation, --cp-instance),
 * the frequent kernel sequences (--seq-operator, --seq-min-len) and the stragglers (--stragglers);
 * exact by default, Holistic Trace Analysis' numbers under --compat hta. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/gpu/gpu.h"
#include "cli/command.h"
#include "output/escape.h"
#include "output/gpu_report.h"

typedef struct gpu_args {
    dfs_cli_args base;
    dfs_gpu_options opt;
    size_t names;
} gpu_args;

static void init(void *args)
{
    gpu_args *a = args;
    dfs_gpu_options_init(&a->opt);
    a->names = 10;
}

static int set_only(void *args, const char *cmd, const char *value)
{
    const char *bad;
    size_t len;
    if (dfs_gpu_parse_sections(value, &((gpu_args *)args)->opt.sections, &bad, &len))
        return -1;
    char what[224];
    snprintf(what, sizeof what, "--only takes sections among temporal, kernels, overlap, idle, queue, membw, launch, annotations, critical-path, sequences, stragglers; '%.*s' is none of them in",
             (int)(len > 40 ? 40 : len), bad);
    return dfs_cli_usage_error(cmd, what, value);
}

/* A regular expression for the critical path's data-loading events, checked now. */
static int set_data_load(void *args, const char *cmd, const char *value)
{
    dfs_pred_error err;
    dfs_pred *p = dfs_gpu_data_load_pred(value, &err);
    if (!p) {
        char what[256];
        snprintf(what, sizeof what, "--cp-data-load: %s; the regular expression was", err.message);
        return dfs_cli_usage_error(cmd, what, value);
    }
    dfs_pred_free(p);
    ((gpu_args *)args)->opt.cp_data_load = value;
    return -1;
}

/* "N" or "A-B": the instances of the critical path's annotation, numbered from 0. */
static int set_instance(void *args, const char *cmd, const char *value)
{
    gpu_args *a = args;
    char *end;
    errno = 0;
    unsigned long long lo = strtoull(value, &end, 10), hi = lo;
    bool ok = end != value && value[0] != '-' && value[0] != '+' && errno == 0;
    if (ok && *end == '-') {
        const char *p = end + 1;
        ok = *p >= '0' && *p <= '9';
        hi = strtoull(p, &end, 10);
        ok = ok && errno == 0 && hi >= lo;
    }
    if (!ok || *end || lo > SIZE_MAX || hi > SIZE_MAX)
        return dfs_cli_usage_error(cmd, "--cp-instance takes an instance number N or a range A-B (from 0), not", value);
    a->opt.cp_first = (size_t)lo, a->opt.cp_last = (size_t)hi;
    return -1;
}

static void emit(FILE *out, const void *args, const dfs_cli_result *res)
{
    const gpu_args *a = args;
    if (a->base.format == DFS_CLI_JSON)
        dfs_gpu_write_json(out, res->result);
    else
        dfs_gpu_write_text(out, res->result, a->names);
}

static bool write_csv(FILE *out, const void *result, size_t table)
{
    dfs_gpu_write_csv(out, result, (dfs_gpu_csv)table);
    return true;
}

static bool write_launch_csv(FILE *out, const void *result, size_t rank)
{
    dfs_gpu_write_launch_csv(out, result, rank);
    return true;
}

/* One file per table, then HTA's launch statistics: one file per rank, or all ranks in one file
 * when the directory would hold more files than a command writes or two entries have one rank
 * (their files would have one name). */
static size_t csv_files(const void *args, const dfs_cli_result *res, dfs_csv_file *f)
{
    (void)args;
    const dfs_gpu_result *r = res->result;
    size_t n = 0;
    for (int t = 0; t < DFS_GPU_CSV__COUNT; t++) {
        if (!dfs_gpu_csv_present(r, (dfs_gpu_csv)t))
            continue;
        f[n] = (dfs_csv_file){.write = write_csv, .which = (size_t)t};
        snprintf(f[n++].name, sizeof f->name, "%s", dfs_gpu_csv_name((dfs_gpu_csv)t));
    }
    if (!(r->sections & DFS_GPU_SEC_LAUNCH) || !r->nranks)
        return n;
    if (n + r->nranks > DFS_CLI_MAX_CSV_FILES || r->shared) {
        f[n] = (dfs_csv_file){.write = write_launch_csv, .which = r->nranks};
        snprintf(f[n++].name, sizeof f->name, "cuda_kernel_launch_stats_describe.csv");
        return n;
    }
    for (size_t i = 0; i < r->nranks; i++) {
        f[n] = (dfs_csv_file){.write = write_launch_csv, .which = i};
        snprintf(f[n++].name, sizeof f->name, "cuda_kernel_launch_stats_describe_%lld.csv", (long long)r->ranks[i].rank);
    }
    return n;
}

static bool found_nothing(const void *args, const dfs_cli_result *res, char *buf, size_t len)
{
    (void)args;
    const dfs_gpu_result *r = res->result;
    if (r->nranks && r->no_device < r->nranks)
        return false;
    snprintf(buf, len, "no device (GPU) event: no kernel, copy or set");
    return true;
}

static void warn(const void *args, const dfs_cli_result *res)
{
    (void)args;
    const dfs_gpu_result *r = res->result;
    for (size_t i = 0; i < r->nranks; i++) {
        if (r->ranks[i].device_rows)
            continue;
        fprintf(stderr, "dfscope gpu: rank %lld (", (long long)r->ranks[i].rank);
        dfs_term_puts(stderr, r->ranks[i].path);
        fprintf(stderr, ") has no device events; 'dfscope steps' or 'dfscope stats' read its host side\n");
    }
}

static const dfs_cli_choice compat_choices[] = {{"hta", DFS_GPU_HTA}, {"none", DFS_GPU_EXACT}, {NULL, 0}};

#define ARG(field) DFS_FIELD(gpu_args, field)

static const dfs_cli_option options[] = {
    DFS_OPTION("format", 0, "F", DFS_OPT_FORMAT,
               "table (default) | json (schema dfscope-gpu/1) | csv (one file\n"
               "per section, HTA's names and columns; needs -o DIR)",
               ARG(base.format), .hi = 1),
    DFS_OPTION("output", 'o', "FILE", DFS_OPT_STRING, "write to FILE (atomically) instead of stdout; a directory for csv",
               ARG(base.output)),
    DFS_OPTION("only", 0, "LIST", DFS_OPT_CALL, "sections, comma-separated: temporal, kernels, overlap, idle,\nqueue, membw, launch, annotations (default: these all),\ncritical-path, sequences, stragglers (only when named)",
               .apply = set_only),
    DFS_OPTION("cp-annotation", 0, "TEXT", DFS_OPT_STRING,
               "critical path: the window is an event whose name holds TEXT\n(default ProfilerStep; \"\" = the whole trace)",
               ARG(opt.cp_annotation)),
    DFS_OPTION("cp-instance", 0, "N|A-B", DFS_OPT_CALL,
               "critical path: which of those events, numbered from 0 in the\nrank's order (default 0); A-B spans several",
               .apply = set_instance),
    DFS_OPTION("cp-data-load", 0, "REGEX", DFS_OPT_CALL,
               "critical path: host events whose name REGEX finds load data: their\n"
               "time is data_loading, not cpu_bound (HTA's data_load_events)",
               .apply = set_data_load),
    DFS_OPTION("seq-operator", 0, "TEXT", DFS_OPT_STRING,
               "kernel sequences: of the operators whose name holds TEXT, at the\n"
               "shallowest depth such operators have (default \"\": top-level ones)",
               ARG(opt.seq_operator)),
    DFS_OPTION("seq-min-len", 0, "N", DFS_OPT_SIZE,
               "kernel sequences: of operators that launched at least N kernels\n(default 3)",
               ARG(opt.seq_min_len), .hi = 1000000000, .bad = "--seq-min-len takes a count, not"),
    DFS_OPTION("stragglers", 0, "N", DFS_OPT_SIZE,
               "stragglers: the N latest ranks of each step are late; at most N\nranks are named (default 2)",
               ARG(opt.straggler_candidates), .lo = 1, .hi = 1000000, .bad = "--stragglers takes a count of ranks, not"),
    DFS_OPTION("launch-runtime", 0, "TIME", DFS_OPT_DURATION,
               "launch outliers: a launch call longer than TIME is a runtime\n"
               "outlier; a shorter one that outlasts its kernel launched a short\n"
               "kernel (default 50us)",
               ARG(opt.launch_runtime_ns)),
    DFS_OPTION("launch-delay", 0, "TIME", DFS_OPT_DURATION,
               "launch outliers: a kernel starting more than TIME after its\n"
               "launch call ended is a delay outlier (default 100us)",
               ARG(opt.launch_delay_ns)),
    DFS_OPTION("queue-full", 0, "N", DFS_OPT_COUNT,
               "queue: the time each stream holds at least N launched kernels\n"
               "not yet started (default 1024)",
               ARG(opt.queue_full), .lo = 1, .hi = 1e12, .bad = "--queue-full takes a count of kernels (1 or more), not"),
    DFS_OPTION("compat", 0, "hta", DFS_OPT_CHOICE,
               "hta: Holistic Trace Analysis' numbers (last profiler step dropped,\n"
               "times rounded to whole µs, its event selection); none: exact (default)",
               ARG(opt.semantics), .choices = compat_choices),
    DFS_OPTION("names", 0, "N", DFS_OPT_SIZE,
               "kernel and annotation names shown per rank in the table\n(default 10, 0 = all)",
               ARG(names), .hi = 1000000, .bad = "--names takes a count, not", .flags = DFS_OPT_TERSE),
    {0},
};

const dfs_cli_command dfs_cmd_gpu = {
    .name = "gpu",
    .summary = "GPU time of Kineto traces: idle/compute breakdown, kernel types and names, comm overlap",
    .description =
        "GPU analyses of PyTorch profiler (Kineto) traces, one file per rank (the rank its\n"
        "distributedInfo names, else 0; files of one rank, such as profiling windows of one\n"
        "process, are measured apart): the temporal breakdown of each device's time (idle,\n"
        "compute, other work), the kernel breakdown by type (computation, communication, memory\n"
        "and every overlap of them) and by name (the biggest names, the rest as \"others\"),\n"
        "the share of communication hidden under computation, why each stream idled (waiting for\n"
        "the host, short gaps between kernels, other), the queue length of each stream (and the\n"
        "time it was full), the memory bandwidth per kind of copy, the launch statistics (CPU and\n"
        "GPU durations, launch delays, with HTA's outliers: short kernels, long launch calls, long\n"
        "delays) and the GPU user annotations by name (and the kernels under each); with\n"
        "--only critical-path, the critical path of a step and what bounds it (CPU, GPU kernels,\n"
        "launch and kernel-to-kernel overhead); with --only sequences, the most frequent sequences of kernels operators launch;\n"
        "with --only stragglers, the ranks that start the collectives latest. By default the whole trace at ns precision; --compat hta gives Holistic Trace\n"
        "Analysis' numbers (docs/GPU.md).",
    .options = options,
    .groups = DFS_CLI_READING | DFS_CLI_MPI | DFS_CLI_JOBS,
    .flags = DFS_CLI_NEEDS_INPUT,
    .args_size = sizeof(gpu_args),
    .init = init,
    .csv_dir = "one file per section",
    .analysis = &dfs_gpu_analysis,
    .analysis_options = offsetof(gpu_args, opt),
    .found_nothing = found_nothing,
    .warn = warn,
    .emit = emit,
    .csv_files = csv_files};
