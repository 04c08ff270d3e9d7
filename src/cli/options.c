/* options.c - applying an option's value to a command's args struct, by the option's kind, and
 * the shared option groups (reading, MPI, --mix) the reading commands take. A bad value is said once,
 * "dfscope CMD: ..." on stderr, and stops the command with exit code 2. An integer goes into its
 * field by the field's size (DFS_FIELD): a bool, an enum, an unsigned or a uint64_t alike. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/common/preview.h"
#include "cli/command_internal.h"
#include "util/suggest.h"

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

static int set_verbose(void *args, const char *cmd, const char *value)
{
    (void)cmd;
    (void)value;
    common_of(args)->verbose++;
    return -1;
}

#define COMMON(field) DFS_FIELD(dfs_cli_args, common.field)

static const dfs_cli_choice problem_reports[] = {{"brief", 0}, {"full", 1}, {0}};

static const dfs_cli_option reading_options[] = {
    DFS_OPTION("jobs", 'j', "N", DFS_OPT_CALL, "worker threads (default: all cores)", .apply = set_jobs),
    DFS_OPTION("strict", 0, NULL, DFS_OPT_FLAG, "fail (exit 3) when the input has damage", COMMON(opt.strict)),
    DFS_OPTION("dedup", 0, NULL, DFS_OPT_FLAG, "drop byte-identical duplicate records", COMMON(opt.dedup)),
    DFS_OPTION("examples", 0, "N", DFS_OPT_SIZE, "examples listed per problem kind (default 5)",
        COMMON(opt.max_examples), .hi = 1000, .bad = "--examples takes a number from 0 to 1000, not",
        .flags = DFS_OPT_TERSE),
    DFS_OPTION("chunk", 0, "SIZE", DFS_OPT_SIZE, "read large uncompressed files in pieces of SIZE (default: automatic)",
        COMMON(opt.chunk_bytes), .lo = 4096, .hi = DFS_CLI_NO_LIMIT,
        .bad = "--chunk takes a size of at least 4k (e.g. 32M), not", .flags = DFS_OPT_TERSE),
    DFS_OPTION("max-record", 0, "SIZE", DFS_OPT_SIZE, "longest record accepted (default 64M)", COMMON(opt.max_record),
        .lo = 4096, .hi = DFS_CLI_NO_LIMIT, .bad = "--max-record takes a size of at least 4k (e.g. 32M), not",
        .flags = DFS_OPT_TERSE),
    DFS_OPTION("progress", 0, NULL, DFS_OPT_FLAG, "progress on stderr (default: when stderr is a terminal)",
        COMMON(progress), .label = "--progress, --no-progress"),
    DFS_OPTION("no-progress", 0, NULL, DFS_OPT_CONST, NULL, COMMON(progress), .value = 0),
    DFS_OPTION("verbose", 'v', NULL, DFS_OPT_CALL, "also list legal variants among the problems", .apply = set_verbose),
    DFS_OPTION("problems", 0, "HOW", DFS_OPT_CHOICE,
        "the problem report on stderr: brief (a few lines) or full (every\n"
        "kind with examples); default: brief after the results on a\n"
        "terminal, else full",
        COMMON(problems), .choices = problem_reports, .flags = DFS_OPT_TERSE),
    DFS_OPTION("quiet", 'q', NULL, DFS_OPT_FLAG, "no problem report on stderr", COMMON(quiet)),
    {0},
};

static const dfs_cli_option mpi_options[] = {
    DFS_OPTION("mpi-stats", 0, NULL, DFS_OPT_FLAG, "a line per MPI rank on stderr: pieces, bytes, events, seconds",
        COMMON(mpi_stats)),
    {0},
};

static const dfs_cli_option jobs_options[] = {
    DFS_OPTION("mix", 0, NULL, DFS_OPT_FLAG,
        "analyze inputs of several jobs together (default: refuse them,\n"
        "naming each job; see docs/CLI.md, \"Inputs from several jobs\")",
        COMMON(mix)),
    DFS_OPTION("keep-merged", 0, NULL, DFS_OPT_FLAG,
        "also read an input whose events are those of other inputs (a\n"
        "merged trace beside its per-rank traces; default: leave it out,\n"
        "said in one line)",
        COMMON(keep_merged)),
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
    if (cmd->groups & DFS_CLI_JOBS)
        append(out, jobs_options);
}

/* ---- values by kind ---- */

/* "--NAME takes a, b or c, not". */
static void choices_message(const dfs_cli_option *o, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, "--%s takes", o->name);
    for (const dfs_cli_choice *c = o->choices; c->name && used < n; c++) {
        const char *sep = c == o->choices ? " " : c[1].name ? ", " : " or ";
        used += (size_t)snprintf(buf + used, n - used, "%s%s", sep, c->name);
    }
    if (used < n)
        snprintf(buf + used, n - used, ", not");
}

/* The choice a mistyped value most likely meant, or NULL. */
static const char *guess_choice(const dfs_cli_option *o, const char *value)
{
    dfs_suggest s;
    dfs_suggest_init(&s, value);
    for (const dfs_cli_choice *c = o->choices; o->kind == DFS_OPT_CHOICE && c->name; c++)
        dfs_suggest_offer(&s, c->name);
    return dfs_suggest_best(&s);
}

static int bad_value(const dfs_cli_command *cmd, const dfs_cli_option *o, const char *value)
{
    char message[256];
    const char *what = o->bad;
    if (!what && o->kind == DFS_OPT_CHOICE) {
        choices_message(o, message, sizeof message);
        what = message;
    } else if (!what) { /* an option without its own words: its kind says what it takes */
        static const char *const takes[] = {[DFS_OPT_SIZE] = "a size such as 64k or 32M",
                                            [DFS_OPT_COUNT] = "a count",
                                            [DFS_OPT_NUMBER] = "a number",
                                            [DFS_OPT_PERCENT] = "a percentage",
                                            [DFS_OPT_DURATION] = "a duration above 0 such as 5s or 500ms"};
        const char *t = (size_t)o->kind < sizeof takes / sizeof *takes && takes[o->kind] ? takes[o->kind] : "a value";
        snprintf(message, sizeof message, "--%s takes %s, not", o->name, t);
        what = message;
    }
    const char *guess = guess_choice(o, value);
    if (guess) {
        fprintf(stderr, "dfscope %s: %s '%s'", cmd->name, what, value);
        dfs_cli_end_with_guess("", guess, "");
        return DFS_EXIT_USAGE;
    }
    if (cmd->flags & DFS_CLI_RUN_HELP) {
        fprintf(stderr, "dfscope %s: %s '%s'\nRun 'dfscope %s --help' for the options.\n", cmd->name, what, value,
                cmd->name);
        return DFS_EXIT_USAGE;
    }
    if (o->flags & DFS_OPT_TERSE) {
        fprintf(stderr, "dfscope %s: %s '%s'\n", cmd->name, what, value);
        return DFS_EXIT_USAGE;
    }
    return dfs_cli_usage_error(cmd->name, what, value);
}

/* An integer into a field of o->size bytes (bool, int, an enum, uint64_t, ...). */
static int store(const dfs_cli_command *cmd, const dfs_cli_option *o, void *field, uint64_t v)
{
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    switch (o->size) {
    case 1: memcpy(field, &u8, 1); return -1;
    case 2: memcpy(field, &u16, 2); return -1;
    case 4: memcpy(field, &u32, 4); return -1;
    case 8: memcpy(field, &v, 8); return -1;
    }
    fprintf(stderr, "dfscope %s: internal error: --%s has no integer field\n", cmd->name, o->name);
    return DFS_EXIT_OUTPUT;
}

/* The value of an integer kind, within [lo, hi]. */
static bool read_integer(const dfs_cli_option *o, const char *value, uint64_t *u)
{
    bool ok = o->parse                  ? o->parse(value, u)
              : o->kind == DFS_OPT_SIZE ? dfs_cli_parse_size(value, u)
                                        : dfs_cli_parse_uint(value, 0, UINT64_MAX, u);
    return ok && (double)*u >= o->lo && (double)*u <= o->hi;
}

static int choose(const dfs_cli_command *cmd, const dfs_cli_option *o, void *field, const char *value)
{
    for (const dfs_cli_choice *c = o->choices; c->name; c++)
        if (strcmp(value, c->name) == 0)
            return store(cmd, o, field, (uint64_t)(int64_t)c->value);
    return bad_value(cmd, o, value);
}

int dfs_cli_apply_option(const dfs_cli_command *cmd, const dfs_cli_option *o, void *args, const char *value)
{
    char *field = (char *)args + o->offset;
    uint64_t u;
    double d;
    int64_t ns;
    switch (o->kind) {
    case DFS_OPT_FLAG: return store(cmd, o, field, 1);
    case DFS_OPT_CONST: return store(cmd, o, field, (uint64_t)(int64_t)o->value);
    case DFS_OPT_CHOICE: return choose(cmd, o, field, value);
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
    case DFS_OPT_COUNT:
        if (!read_integer(o, value, &u))
            return bad_value(cmd, o, value);
        return store(cmd, o, field, u);
    case DFS_OPT_NUMBER:
    case DFS_OPT_PERCENT:
        if (!dfs_cli_parse_double(value, o->lo, o->hi, &d))
            return bad_value(cmd, o, value);
        *(double *)field = o->kind == DFS_OPT_PERCENT ? d / 100 : d;
        return -1;
    case DFS_OPT_DURATION:
        if (!dfs_parse_duration_ns(value, &ns))
            return bad_value(cmd, o, value);
        *(int64_t *)field = ns;
        return -1;
    }
    return -1;
}
