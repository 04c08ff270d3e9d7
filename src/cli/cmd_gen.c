/* cmd_gen.c - `dfscope gen`: write deterministic synthetic DLIO-like traces. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "dfscope.h"
#include "gen/gen.h"
#include "gen/gen_dasf.h"

static void gen_usage(FILE *out)
{
    fprintf(out,
            "usage: dfscope gen -o DIR [options]\n\n"
            "Write deterministic synthetic traces of a DLIO training run (one file per rank):\n"
            "epochs, data-loader and reader spans, compute, checkpoints and the POSIX/STDIO calls\n"
            "underneath. The same options always give byte-identical files.\n\n"
            "options:\n"
            "  -o, --output DIR    directory for the files (created if missing; required)\n"
            "  --format F          2023 | v1 | v1-h16 | v2 | chrome (default v1)\n"
            "                        2023    dlio_profiler 2023: string numbers, no ']'\n"
            "                        v1      DFTracer 1.0.8: u64 hashes, FH/HH/SH records\n"
            "                        v1-h16  DFTracer 2024 develop: 16-bit hashes\n"
            "                        v2      DFTracer 2.x NDJSON: integer ph, hex hashes,\n"
            "                                aggregated and counter records, end record\n"
            "                        chrome  Chrome JSON object form {\"traceEvents\":[...]}\n"
            "                        dasf    DASF profiler databases (msgpack) per host: --events\n"
            "                                Compute tasks + Managed Memory, events/10 samples\n"
            "  --workload W        unet3d (default) | resnet50\n"
            "  --ranks N           number of ranks = files (default 8)\n"
            "  --size SIZE         total uncompressed bytes over all files: 4096, 128M, 2G\n"
            "                      (k, M, G, T are powers of 1024)\n"
            "  --events N          records per file instead of --size (default 20000)\n"
            "  --seed S            random seed (default 1)\n"
            "  --gzip              compress: .gz, one member per file, except v2 which gets a\n"
            "                      member per 16 MiB of text like DFTracer 2.x\n"
            "  --member-size SIZE  text per gzip member for v2 (default 16M)\n"
            "  -j, --jobs N        files written in parallel (default: one per core)\n"
            "  --list              print the paths of the written files on stdout\n"
            "  -q, --quiet         no summary on stderr\n"
            "  -h, --help          this help\n\n"
            "File names: trace-<rank>-of-<N>.pfw (2023, v1, v1-h16), trace-<16 hex>-app.pfw (v2),\n"
            "rank<r>.trace.json (chrome), plus .gz with --gzip.\n");
}

typedef struct gen_cli {
    dfs_gen_options opt;
    bool size_given, events_given, list, quiet;
    bool dasf; /* --format dasf: gen_dasf.c, not the DLIO generator */
} gen_cli;

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

static bool parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

/* Applies one option that takes a value. Returns 0 or an exit code. */
static int apply_value(gen_cli *c, const char *name, const char *val)
{
    dfs_gen_options *o = &c->opt;
    uint64_t n;
    if (strcmp(name, "output") == 0) {
        o->out_dir = val;
    } else if (strcmp(name, "format") == 0) {
        c->dasf = strcmp(val, "dasf") == 0;
        if (!c->dasf && !dfs_gen_parse_format(val, &o->format))
            return usage_error("unknown format '%s' (2023, v1, v1-h16, v2, chrome, dasf)", val);
    } else if (strcmp(name, "workload") == 0) {
        if (!dfs_gen_parse_workload(val, &o->workload))
            return usage_error("unknown workload '%s' (unet3d, resnet50)", val);
    } else if (strcmp(name, "ranks") == 0) {
        if (!parse_u64(val, &n) || n == 0 || n > 65536)
            return usage_error("--ranks needs a number from 1 to 65536, not '%s'", val);
        o->ranks = (unsigned)n;
    } else if (strcmp(name, "size") == 0) {
        if (!dfs_gen_parse_size(val, &o->total_bytes))
            return usage_error("--size needs a positive size such as 128M or 2G, not '%s'", val);
        c->size_given = true;
    } else if (strcmp(name, "member-size") == 0) {
        if (!dfs_gen_parse_size(val, &o->member_bytes))
            return usage_error("--member-size needs a positive size such as 16M, not '%s'", val);
    } else if (strcmp(name, "events") == 0) {
        if (!parse_u64(val, &n) || n == 0)
            return usage_error("--events needs a positive number, not '%s'", val);
        o->events_per_rank = n;
        c->events_given = true;
    } else if (strcmp(name, "seed") == 0) {
        if (!parse_u64(val, &o->seed))
            return usage_error("--seed needs a non-negative integer, not '%s'", val);
    } else if (strcmp(name, "jobs") == 0) {
        if (!parse_u64(val, &n) || n == 0 || n > 1024)
            return usage_error("--jobs needs a number from 1 to 1024, not '%s'", val);
        o->jobs = (int)n;
    } else {
        return usage_error("unknown option '--%s'", name);
    }
    return 0;
}

static const char *const value_options[] = {"output", "format", "workload", "ranks", "size",
                                            "member-size", "events", "seed", "jobs", NULL};

static bool takes_value(const char *name)
{
    for (int i = 0; value_options[i]; i++)
        if (strcmp(value_options[i], name) == 0)
            return true;
    return false;
}

static int apply_flag(gen_cli *c, const char *name)
{
    if (strcmp(name, "gzip") == 0)
        c->opt.gzip = true;
    else if (strcmp(name, "list") == 0)
        c->list = true;
    else if (strcmp(name, "quiet") == 0)
        c->quiet = true;
    else
        return usage_error("unknown option '--%s'", name);
    return 0;
}

/* Maps short options to long names; NULL if unknown. */
static const char *long_name(const char *arg)
{
    if (strcmp(arg, "-o") == 0)
        return "output";
    if (strcmp(arg, "-j") == 0)
        return "jobs";
    if (strcmp(arg, "-q") == 0)
        return "quiet";
    if (strncmp(arg, "--", 2) == 0)
        return arg + 2;
    return NULL;
}

/* Returns -1 to go on, or an exit code (help printed, or a usage error). */
static int parse_args(gen_cli *c, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            gen_usage(stdout);
            return DFS_EXIT_OK;
        }
        const char *name = long_name(arg);
        if (!name)
            return usage_error("unexpected argument '%s'", arg);
        char key[32];
        const char *eq = strchr(name, '=');
        size_t klen = eq ? (size_t)(eq - name) : strlen(name);
        if (klen >= sizeof key)
            return usage_error("unknown option '%s'", arg);
        memcpy(key, name, klen);
        key[klen] = '\0';
        int rc;
        if (takes_value(key)) {
            const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val)
                return usage_error("option '%s' needs a value", arg);
            rc = apply_value(c, key, val);
        } else {
            rc = eq ? usage_error("option '%s' takes no value", arg) : apply_flag(c, key);
        }
        if (rc)
            return rc;
    }
    if (!c->opt.out_dir)
        return usage_error("%s", "an output directory is required (-o DIR)");
    if (c->size_given && c->events_given)
        return usage_error("%s", "--size and --events cannot be combined");
    if (c->size_given)
        c->opt.events_per_rank = 0;
    return -1;
}

static void print_summary(const gen_cli *c, const dfs_gen_report *r)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        const dfs_gen_file *f = &r->files[i];
        if (c->list)
            printf("%s\n", f->path);
        if (c->quiet)
            continue;
        fprintf(stderr, "%s: %llu events, %llu bytes", f->path, (unsigned long long)f->records,
                (unsigned long long)f->bytes);
        if (c->opt.gzip)
            fprintf(stderr, " (%llu compressed, %u gzip member%s)",
                    (unsigned long long)f->disk_bytes, f->gzip_members,
                    f->gzip_members == 1 ? "" : "s");
        fputc('\n', stderr);
    }
    if (c->quiet)
        return;
    double mb = (double)r->bytes / 1e6;
    fprintf(stderr, "total: %zu files, %llu events, %llu bytes (%.1f MB", r->nfiles,
            (unsigned long long)r->records, (unsigned long long)r->bytes, mb);
    if (c->opt.gzip)
        fprintf(stderr, ", %.1f MB compressed", (double)r->disk_bytes / 1e6);
    fprintf(stderr, ") in %.2f s, %.0f MB/s\n", r->seconds,
            r->seconds > 0 ? mb / r->seconds : 0.0);
}

int dfs_cmd_gen(int argc, char **argv)
{
    gen_cli c = {0};
    dfs_gen_options_init(&c.opt);
    int rc = parse_args(&c, argc, argv);
    if (rc >= 0)
        return rc;
    dfs_gen_report report;
    char err[512];
    int st = c.dasf ? dfs_gen_dasf_write(&c.opt, &report, err, sizeof err)
                    : dfs_gen_write(&c.opt, &report, err, sizeof err);
    if (st != DFS_OK) {
        fprintf(stderr, "dfscope gen: %s\n", err);
        dfs_gen_report_free(&report);
        return st == DFS_ERR_USAGE ? DFS_EXIT_USAGE : DFS_EXIT_OUTPUT;
    }
    print_summary(&c, &report);
    dfs_gen_report_free(&report);
    if (fflush(stdout) != 0)
        return DFS_EXIT_OUTPUT;
    return DFS_EXIT_OK;
}
