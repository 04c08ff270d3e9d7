/* cmd_gen.c - `dfscope gen`: write deterministic synthetic DLIO-like traces. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "gen/gen.h"
#include "gen/gen_dasf.h"
#include "util/suggest.h"

typedef struct gen_args {
    dfs_cli_args base;
    dfs_gen_options opt;
    uint64_t events; /* --events, 0 when not given (opt.total_bytes: --size, the same) */
    bool list, quiet;
    bool dasf; /* --format dasf: gen_dasf.c, not the DLIO generator */
} gen_args;

static void init(void *args) { dfs_gen_options_init(&((gen_args *)args)->opt); }

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "dfscope gen: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nRun 'dfscope gen --help' for the options.\n");
    va_end(ap);
    return DFS_EXIT_USAGE;
}

/* A number: decimal, 0x hex or 0 octal; no sign. */
static bool parse_number(const char *s, uint64_t *out)
{
    if (!*s || *s == '-' || *s == '+')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

/* ". Did you mean 'GUESS'?" for the closest name, or nothing. */
static const char *guess_text(const dfs_suggest *s, char *buf, size_t n)
{
    const char *guess = dfs_suggest_best(s);
    snprintf(buf, n, guess ? ". Did you mean '%s'?" : "%s", guess ? guess : "");
    return buf;
}

static int set_format(void *args, const char *cmd, const char *val)
{
    (void)cmd;
    gen_args *g = args;
    g->dasf = strcmp(val, "dasf") == 0;
    if (g->dasf || dfs_gen_parse_format(val, &g->opt.format))
        return -1;
    dfs_suggest s;
    dfs_suggest_init(&s, val);
    for (int i = 0; i < DFS_GEN__COUNT; i++)
        dfs_suggest_offer(&s, dfs_gen_format_name((dfs_gen_format)i));
    dfs_suggest_offer(&s, "dasf");
    char guess[96];
    return usage_error("unknown format '%s' (2023, v1, v1-h16, v2, chrome, dasf)%s", val,
                       guess_text(&s, guess, sizeof guess));
}

static int set_workload(void *args, const char *cmd, const char *val)
{
    (void)cmd;
    if (dfs_gen_parse_workload(val, &((gen_args *)args)->opt.workload))
        return -1;
    dfs_suggest s;
    dfs_suggest_init(&s, val);
    for (int i = 0; i < DFS_GEN__WORKLOADS; i++)
        dfs_suggest_offer(&s, dfs_gen_workload_name((dfs_gen_workload)i));
    char guess[96];
    return usage_error("unknown workload '%s' (unet3d, resnet50)%s", val, guess_text(&s, guess, sizeof guess));
}

static int validate(void *args)
{
    gen_args *g = args;
    if (g->base.npaths)
        return usage_error("unexpected argument '%s'", g->base.paths[0]);
    if (!g->opt.out_dir)
        return usage_error("%s", "an output directory is required (-o DIR)");
    if (g->opt.total_bytes && g->events)
        return usage_error("%s", "--size and --events cannot be combined");
    if (g->opt.total_bytes || g->events)
        g->opt.events_per_rank = g->events;
    return -1;
}

static void print_summary(const gen_args *g, const dfs_gen_report *r)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        const dfs_gen_file *f = &r->files[i];
        if (g->list)
            fprintf(stdout, "%s\n", f->path);
        if (g->quiet)
            continue;
        fprintf(stderr, "%s: %llu events, %llu bytes", f->path, (unsigned long long)f->records,
                (unsigned long long)f->bytes);
        if (g->opt.gzip)
            fprintf(stderr, " (%llu compressed, %u gzip member%s)", (unsigned long long)f->disk_bytes,
                    f->gzip_members, f->gzip_members == 1 ? "" : "s");
        fputc('\n', stderr);
    }
    if (g->quiet)
        return;
    double mb = (double)r->bytes / 1e6;
    fprintf(stderr, "total: %zu files, %llu events, %llu bytes (%.1f MB", r->nfiles, (unsigned long long)r->records,
            (unsigned long long)r->bytes, mb);
    if (g->opt.gzip)
        fprintf(stderr, ", %.1f MB compressed", (double)r->disk_bytes / 1e6);
    fprintf(stderr, ") in %.2f s, %.0f MB/s\n", r->seconds, r->seconds > 0 ? mb / r->seconds : 0.0);
}

static int run(void *args)
{
    const gen_args *g = args;
    dfs_gen_report report;
    char err[512];
    int st = g->dasf ? dfs_gen_dasf_write(&g->opt, &report, err, sizeof err)
                     : dfs_gen_write(&g->opt, &report, err, sizeof err);
    if (st != DFS_OK) {
        dfs_gen_report_free(&report);
        return dfs_cli_error("gen", st == DFS_ERR_USAGE ? DFS_EXIT_USAGE : DFS_EXIT_OUTPUT, err);
    }
    print_summary(g, &report);
    dfs_gen_report_free(&report);
    return fflush(stdout) == 0 ? DFS_EXIT_OK : DFS_EXIT_OUTPUT;
}

#define ARG(field) DFS_FIELD(gen_args, field)

static const dfs_cli_option options[] = {
    DFS_OPTION("output", 'o', "DIR", DFS_OPT_STRING, "directory for the files (created if missing; required)",
               ARG(opt.out_dir)),
    DFS_OPTION("format", 0, "F", DFS_OPT_CALL,
               "2023 | v1 | v1-h16 | v2 | chrome (default v1)\n"
               "  2023    dlio_profiler 2023: string numbers, no ']'\n"
               "  v1      DFTracer 1.0.8: u64 hashes, FH/HH/SH records\n"
               "  v1-h16  DFTracer 2024 develop: 16-bit hashes\n"
               "  v2      DFTracer 2.x NDJSON: integer ph, hex hashes,\n"
               "          aggregated and counter records, end record\n"
               "  chrome  Chrome JSON object form {\"traceEvents\":[...]}\n"
               "  dasf    DASF profiler databases (msgpack) per host: --events\n"
               "          Compute tasks + Managed Memory, events/10 samples",
               .apply = set_format),
    DFS_OPTION("workload", 0, "W", DFS_OPT_CALL, "unet3d (default) | resnet50", .apply = set_workload),
    DFS_OPTION("ranks", 0, "N", DFS_OPT_COUNT, "number of ranks = files (default 8)", ARG(opt.ranks), .lo = 1,
               .hi = 65536, .parse = parse_number, .bad = "--ranks needs a number from 1 to 65536, not"),
    DFS_OPTION("size", 0, "SIZE", DFS_OPT_SIZE,
               "total uncompressed bytes over all files: 4096, 128M, 2G\n"
               "(k, M, G, T are powers of 1024)",
               ARG(opt.total_bytes), .hi = DFS_CLI_NO_LIMIT, .parse = dfs_gen_parse_size,
               .bad = "--size needs a positive size such as 128M or 2G, not"),
    DFS_OPTION("events", 0, "N", DFS_OPT_COUNT, "records per file instead of --size (default 20000)", ARG(events),
               .lo = 1, .hi = DFS_CLI_NO_LIMIT, .parse = parse_number, .bad = "--events needs a positive number, not"),
    DFS_OPTION("seed", 0, "S", DFS_OPT_COUNT, "random seed (default 1)", ARG(opt.seed), .hi = DFS_CLI_NO_LIMIT,
               .parse = parse_number, .bad = "--seed needs a non-negative integer, not"),
    DFS_OPTION("gzip", 0, NULL, DFS_OPT_FLAG,
               "compress: .gz, one member per file, except v2 which gets a\n"
               "member per 16 MiB of text like DFTracer 2.x",
               ARG(opt.gzip)),
    DFS_OPTION("member-size", 0, "SIZE", DFS_OPT_SIZE, "text per gzip member for v2 (default 16M)",
               ARG(opt.member_bytes), .hi = DFS_CLI_NO_LIMIT, .parse = dfs_gen_parse_size,
               .bad = "--member-size needs a positive size such as 16M, not"),
    DFS_OPTION("jobs", 'j', "N", DFS_OPT_COUNT, "files written in parallel (default: one per core)", ARG(opt.jobs),
               .lo = 1, .hi = 1024, .parse = parse_number, .bad = "--jobs needs a number from 1 to 1024, not"),
    DFS_OPTION("list", 0, NULL, DFS_OPT_FLAG, "print the paths of the written files on stdout", ARG(list)),
    DFS_OPTION("quiet", 'q', NULL, DFS_OPT_FLAG, "no summary on stderr", ARG(quiet)),
    {0},
};

const dfs_cli_command dfs_cmd_gen = {
    .name = "gen",
    .summary = "write deterministic synthetic traces (DFTracer, Chrome JSON, DASF)",
    .usage = "gen -o DIR [options]",
    .description = "Write deterministic synthetic traces of a DLIO training run (one file per rank):\n"
                   "epochs, data-loader and reader spans, compute, checkpoints and the POSIX/STDIO calls\n"
                   "underneath. The same options always give byte-identical files.",
    .epilogue = "File names: trace-<rank>-of-<N>.pfw (2023, v1, v1-h16), trace-<16 hex>-app.pfw (v2),\n"
                "rank<r>.trace.json (chrome), plus .gz with --gzip.\n",
    .options = options,
    .flags = DFS_CLI_RUN_HELP,
    .args_size = sizeof(gen_args),
    .init = init,
    .validate = validate,
    .run = run};
