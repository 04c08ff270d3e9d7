/* options.c - applying an option's value to a command's args struct, by the option's kind, and
 * the shared option groups (reading, MPI) every reading command takes. A bad value is said once,
 * "dfscope CMD: ..." on stderr, and stops the command with exit code 2. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/common/preview.h"
#include "cli/command_internal.h"

/* ---- the reading options ---- */

static dfs_cli_common *common_of(void *args)
{
    return &((dfs_cli_args *)args)->common;
}

static int set_jobs(void *args, const char *cmd, const char *value)
{
    if (dfs_cli_parse_jobs(value, &common_of(args)->opt.jobs) == 0)
        return -1;
    fprintf(stderr, "dfscope %s: -j takes a number of threads from 1 to 1024, not '%s'\n", cmd, value);
    return DFS_EXIT_USAGE;
}

static int set_examples(void *args, const char *cmd, const char *value)
{
    uint64_t n;
    if (dfs_cli_parse_size(value, &n) && n <= 1000) {
        common_of(args)->opt.max_examples = (unsigned)n;
        return -1;
    }
    fprintf(stderr, "dfscope %s: --examples takes a number from 0 to 1000, not '%s'\n", cmd, value);
    return DFS_EXIT_USAGE;
}

/* --chunk and --max-record: at least 4k. */
static int set_bytes(const char *cmd, const char *option, const char *value, uint64_t *out)
{
    uint64_t n;
    if (dfs_cli_parse_size(value, &n) && n >= 4096) {
        *out = n;
        return -1;
    }
    fprintf(stderr, "dfscope %s: %s takes a size of at least 4k (e.g. 32M), not '%s'\n", cmd, option, value);
    return DFS_EXIT_USAGE;
}

static int set_chunk(void *args, const char *cmd, const char *value)
{
    return set_bytes(cmd, "--chunk", value, &common_of(args)->opt.chunk_bytes);
}

static int set_max_record(void *args, const char *cmd, const char *value)
{
    return set_bytes(cmd, "--max-record", value, &common_of(args)->opt.max_record);
}

static int set_strict(void *args, const char *cmd, const char *value)
{
    (void)cmd;
    (void)value;
    common_of(args)->opt.strict = true;
    return -1;
}

static int set_dedup(void *args, const char *cmd, const char *value)
{
    (void)cmd;
    (void)value;
    common_of(args)->opt.dedup = true;
    return -1;
}

static int set_progress(void *args, const char *cmd, const char *value)
{
    (void)cmd;
    (void)value;
    common_of(args)->progress = 1;
    return -1;
}

static int set_no_progress(void *args, const char *cmd, const char *value)
{
    (void)cmd;
    (void)value;
    common_of(args)->progress = 0;
    return -1;
}

static int set_verbose(void *args, const char *cmd, const char *value)
{
    (void)cmd;
    (void)value;
    common_of(args)->verbose++;
    return -1;
}

#define COMMON(field) offsetof(dfs_cli_args, common.field)

static const dfs_cli_option reading_options[] = {
    DFS_OPTION("jobs", 'j', "N", DFS_OPT_CALL, "worker threads (default: all cores)", .apply = set_jobs),
    DFS_OPTION("strict", 0, NULL, DFS_OPT_CALL, "fail (exit 3) when the input has damage", .apply = set_strict),
    DFS_OPTION("dedup", 0, NULL, DFS_OPT_CALL, "drop byte-identical duplicate records", .apply = set_dedup),
    DFS_OPTION("examples", 0, "N", DFS_OPT_CALL, "examples listed per problem kind (default 5)", .apply = set_examples),
    DFS_OPTION("chunk", 0, "SIZE", DFS_OPT_CALL, "read large uncompressed files in pieces of SIZE (default: automatic)",
        .apply = set_chunk),
    DFS_OPTION("max-record", 0, "SIZE", DFS_OPT_CALL, "longest record accepted (default 64M)", .apply = set_max_record),
    DFS_OPTION("progress", 0, NULL, DFS_OPT_CALL, "progress on stderr (default: when stderr is a terminal)",
        .apply = set_progress, .label = "--progress, --no-progress"),
    DFS_OPTION("no-progress", 0, NULL, DFS_OPT_CALL, NULL, .apply = set_no_progress),
    DFS_OPTION("verbose", 'v', NULL, DFS_OPT_CALL, "also list legal variants among the problems", .apply = set_verbose),
    DFS_OPTION("quiet", 'q', NULL, DFS_OPT_FLAG, "no problem report on stderr", .offset = COMMON(quiet)),
    {0},
};

static const dfs_cli_option mpi_options[] = {
    DFS_OPTION("mpi-stats", 0, NULL, DFS_OPT_FLAG, "a line per MPI rank on stderr: pieces, bytes, events, seconds",
        .offset = COMMON(mpi_stats)),
    {0},
};

static void append(dfs_cli_optlist *out, const dfs_cli_option *v)
{
    for (; v && v->name && out->n < DFS_CLI_MAX_OPTIONS; v++)
        out->v[out->n++] = v;
}

void dfs_cli_collect_options(const dfs_cli_command *cmd, dfs_cli_optlist *out)
{
    out->n = 0;
    append(out, cmd->options);
    if (cmd->groups & DFS_CLI_READING)
        append(out, reading_options);
    if (cmd->groups & DFS_CLI_MPI)
        append(out, mpi_options);
}

/* ---- values by kind ---- */

static int bad_value(const dfs_cli_command *cmd, const dfs_cli_option *o, const char *value)
{
    if (o->flags & DFS_OPT_TERSE) {
        fprintf(stderr, "dfscope %s: %s '%s'\n", cmd->name, o->bad, value);
        return DFS_EXIT_USAGE;
    }
    return dfs_cli_usage_error(cmd->name, o->bad, value);
}

int dfs_cli_apply_option(const dfs_cli_command *cmd, const dfs_cli_option *o, void *args, const char *value)
{
    char *field = (char *)args + o->offset;
    uint64_t u;
    double d;
    int64_t ns;
    switch (o->kind) {
    case DFS_OPT_FLAG: *(bool *)field = true; return -1;
    case DFS_OPT_STRING: *(const char **)field = value; return -1;
    case DFS_OPT_INPUT: { /* the skeleton made room for every argument */
        dfs_cli_args *base = args;
        base->paths[base->npaths++] = (char *)value;
        return -1;
    }
    case DFS_OPT_CALL: return o->apply(args, cmd->name, value);
    case DFS_OPT_FORMAT: {
        int rc = dfs_cli_parse_format(cmd->name, value, o->hi > 0, (dfs_cli_format *)field);
        return rc ? rc : -1;
    }
    case DFS_OPT_SIZE:
        if (!dfs_cli_parse_size(value, &u) || (double)u < o->lo || (double)u > o->hi)
            return bad_value(cmd, o, value);
        *(uint64_t *)field = u;
        return -1;
    case DFS_OPT_COUNT:
        if (!dfs_cli_parse_uint(value, (uint64_t)o->lo, (uint64_t)o->hi, &u))
            return bad_value(cmd, o, value);
        *(size_t *)field = (size_t)u;
        return -1;
    case DFS_OPT_NUMBER:
        if (!dfs_cli_parse_double(value, o->lo, o->hi, &d))
            return bad_value(cmd, o, value);
        *(double *)field = d;
        return -1;
    case DFS_OPT_DURATION:
        if (!dfs_parse_duration_ns(value, &ns))
            return bad_value(cmd, o, value);
        *(int64_t *)field = ns;
        return -1;
    }
    return -1;
}
