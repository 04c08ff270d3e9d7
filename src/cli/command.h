/* command.h - a dfscope subcommand as a declaration (skeleton.c runs it).
 *
 * A command declares its options in a table: names, the help text, and how a value is applied
 * (by its kind, to a field of the command's args struct; or a callback for the odd ones). From
 * that one table the skeleton builds the getopt_long options, parses, prints --help (and the
 * Markdown of docs/CLI.md), and then either calls the command's run hook or, for an analysis
 * command, reads the inputs with its analysis (dfs_cli_run_analysis: two passes, MPI) and writes
 * the result: the command's report to -o or stdout, or its CSV directory, unless it writes itself.
 *
 * Every args struct starts with a dfs_cli_args (the skeleton fills it: the shared options, the
 * inputs, -o and --format when the command takes them).
 */
#ifndef DFS_CLI_COMMAND_H
#define DFS_CLI_COMMAND_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analyze/common/analysis.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "output/csv_dir.h"

/* What the skeleton fills for every command; the first member of every args struct. */
typedef struct dfs_cli_args {
    dfs_cli_common common;  /* the reading options (DFS_CLI_READING) */
    char **paths;           /* the inputs, in the order given */
    int npaths;
    const char *output;     /* -o when the command stores it here */
    dfs_cli_format format;  /* --format when the command stores it here */
} dfs_cli_args;

/* How an option's value is applied to the args struct. The integer kinds (flag, const, choice,
 * size, count) store into a field of any integer, enum or bool type: DFS_FIELD gives its offset
 * and its size. */
typedef enum dfs_cli_kind {
    DFS_OPT_FLAG,     /* = 1 (true) */
    DFS_OPT_CONST,    /* = .value (an option without a value: --no-progress, --approximate) */
    DFS_OPT_CHOICE,   /* = the value of the name given, among .choices */
    DFS_OPT_STRING,   /* const char * = the value */
    DFS_OPT_SIZE,     /* a size (512, 64k, 32M; dfs_cli_parse_size, or .parse) in [lo, hi] */
    DFS_OPT_COUNT,    /* a decimal integer (or read by .parse) in [lo, hi] */
    DFS_OPT_NUMBER,   /* double in [lo, hi] */
    DFS_OPT_PERCENT,  /* double: a percentage in [lo, hi], stored as a fraction (50 is 0.5) */
    DFS_OPT_DURATION, /* int64_t nanoseconds: 5s, 500ms, a bare number of seconds (above 0) */
    DFS_OPT_FORMAT,   /* dfs_cli_format: table or json, and csv when hi is 1 */
    DFS_OPT_INPUT,    /* one more input, as a PATH argument */
    DFS_OPT_CALL,     /* apply() */
} dfs_cli_kind;

/* Option flags. */
enum {
    DFS_OPT_TERSE = 1, /* a bad value is said without "(see 'dfscope CMD --help')" */
};

/* A name DFS_OPT_CHOICE accepts, and the value it stores; a table ends with a NULL name. */
typedef struct dfs_cli_choice {
    const char *name;
    int value;
} dfs_cli_choice;

typedef struct dfs_cli_option {
    const char *name;    /* long name, without "--" */
    char letter;         /* short name, or 0 */
    const char *metavar; /* what the value is called in the help; NULL: the option takes no value */
    /* The help text, lines separated by '\n'; NULL when the previous option's text covers it. */
    const char *help;
    dfs_cli_kind kind;
    size_t offset, size; /* of the field in the args struct (DFS_FIELD) */
    double lo, hi;       /* the bounds of a number */
    bool (*parse)(const char *s, uint64_t *out); /* a size's or a count's own syntax */
    const dfs_cli_choice *choices; /* DFS_OPT_CHOICE */
    int value;           /* DFS_OPT_CONST */
    /* A bad value's message, "--top takes a count, not" ('VALUE' follows); for a choice, by
     * default "--NAME takes a, b or c, not" (all its names). */
    const char *bad;
    /* DFS_OPT_CALL: applies the value (NULL for a flag); returns -1 to go on, else the exit code
     * to stop with (said on stderr, or the option's output printed). */
    int (*apply)(void *args, const char *cmd, const char *value);
    const char *label;   /* the help's left column, when not "-l, --name METAVAR" */
    const char *section; /* a heading printed before this option */
    unsigned flags;
} dfs_cli_option;

/* An entry of an option table: the name, letter, metavar, kind and help, then designated fields
 * (DFS_FIELD, .apply, .lo, .hi, .parse, .choices, .value, .bad, .label, .section, .flags). */
#define DFS_OPTION(NAME, LETTER, METAVAR, KIND, HELP, ...)                                                             \
    {.name = NAME, .letter = LETTER, .metavar = METAVAR, .kind = KIND, .help = HELP, __VA_ARGS__}

/* The field MEMBER of the args struct TYPE, for an option table entry. */
#define DFS_FIELD(TYPE, MEMBER) .offset = offsetof(TYPE, MEMBER), .size = sizeof(((TYPE *)0)->MEMBER)

/* An upper bound no size or count reaches (2^64). */
#define DFS_CLI_NO_LIMIT 18446744073709551616.0

/* What --hold N takes, in the commands that run the exact interval engine (analyze, overlap). */
#define DFS_CLI_HOLD                                                                                                   \
    .lo = 1, .hi = DFS_CLI_NO_LIMIT, .bad = "--hold takes a positive number of intervals (e.g. 1M), not",              \
    .flags = DFS_OPT_TERSE

/* --preset NAME|FILE of the commands that choose a preset (presetting.c), its name stored by
 * FIELD (a DFS_FIELD), printed after the heading SECTION (or NULL). */
#define DFS_CLI_PRESET_OPTION(FIELD, SECTION)                                                                          \
    DFS_OPTION("preset", 0, "NAME|FILE", DFS_OPT_STRING,                                                               \
               "posix, dlio, ai, auto (as dftracer-analyzer's), posix-g2, dlio-g2\n"                                   \
               "(as DFAnalyzer 0.1.0's), or a YAML file (docs/PRESETS.md);\n"                                          \
               "default: detected from the categories (printed)",                                                      \
               FIELD, .section = SECTION)
/* --list-presets and --show-preset NAME: the shipped presets, then exit. */
#define DFS_CLI_PRESET_LISTING                                                                                         \
    DFS_OPTION("list-presets", 0, NULL, DFS_OPT_CALL, "list the shipped presets and exit",                             \
               .apply = dfs_cli_list_presets),                                                                         \
        DFS_OPTION("show-preset", 0, "NAME", DFS_OPT_CALL, "print a shipped preset's YAML and exit",                   \
                   .apply = dfs_cli_show_preset)

/* The shared option groups a command takes. */
enum {
    DFS_CLI_READING = 1, /* -j, --strict, --dedup, --examples, --chunk, --max-record, progress, -v, -q */
    DFS_CLI_MPI = 2,     /* --mpi-stats (commands that run distributed under mpirun/srun) */
    DFS_CLI_JOBS = 4,    /* --mix: the command analyses one job and refuses inputs of several */
};

/* Command flags. */
enum {
    DFS_CLI_NEEDS_INPUT = 1, /* "no input" right after parsing (else dfs_cli_open says it) */
    DFS_CLI_RUN_HELP = 2,    /* a bad value is followed by "Run 'dfscope CMD --help' for the options." */
};

/* The epilogue of a command that declares none, and the end of `dfscope help`. */
#define DFS_CLI_EXIT_CODES                                                                                             \
    "Exit codes: 0 ok, 1 damaged input skipped, 2 usage or unreadable input,\n"                                        \
    "            3 --strict and damage found, 4 output error.\n"

enum { DFS_CLI_MAX_CSV_FILES = 16 }; /* the files of a CSV directory (csv_files) */

typedef struct dfs_cli_command {
    const char *name;
    const char *summary;     /* one line, for `dfscope help` */
    const char *usage;       /* after "usage: dfscope "; NULL: "NAME [options] PATH..." */
    const char *description; /* the paragraph after the usage line */
    const char *epilogue;    /* after the options; NULL: DFS_CLI_EXIT_CODES */
    const dfs_cli_option *options; /* ends with an entry without a name */
    unsigned groups, flags;
    size_t args_size;
    /* Optional: defaults, before parsing (the args struct is zeroed). */
    void (*init)(void *args);
    /* Optional: a PATH argument right after the option `prev` belongs to it (tasks' -a NAME...). */
    bool (*claim)(void *args, const dfs_cli_option *prev, const char *arg);
    /* Optional: --format csv writes a directory, which holds this ("one file per view"): without
     * -o DIR, "--format csv writes one file per view: give -o DIR" right after parsing. */
    const char *csv_dir;
    /* Optional, after parsing: -1 to go on, else the exit code to stop with. */
    int (*validate)(void *args);
    /* Either the command's own run (returns the exit code)... */
    int (*run)(void *args);
    /* ...or an analysis read through dfs_cli_run_analysis: */
    const dfs_analysis *analysis;
    /* Optional: before reading (a preview, a preset): -1 to go on, else the exit code. */
    int (*begin)(void *args);
    /* The offset of the analysis' options in the args struct (0: it has none). */
    size_t analysis_options;
    /* Optional: true when some output would overwrite an input (else -o is checked). */
    bool (*clashes)(const void *args, const dfs_run *run);
    /* Optional: after reading, when the command found nothing of what it looks for, says what in
     * buf ("no event matches a layer of preset posix") and returns true; the skeleton then warns,
     * before the report, what the inputs are and which commands read them (kinds.c). */
    bool (*found_nothing)(const void *args, const dfs_cli_result *r, char *buf, size_t len);
    /* Optional: other warnings about the result, on stderr before it is written (unless -q). */
    void (*warn)(const void *args, const dfs_cli_result *r);
    /* Optional: writes the result; returns an exit code (its failures said on stderr). Without it,
     * the report (emit) goes to -o, atomically, or to stdout; with --format csv and csv_files, the
     * files go into the directory -o. */
    int (*write)(void *args, const dfs_cli_result *r);
    /* The report, in the format asked (dfs_cli_args.format). */
    void (*emit)(FILE *out, const void *args, const dfs_cli_result *r);
    /* The files of the CSV directory (at most DFS_CLI_MAX_CSV_FILES), written with r->result. */
    size_t (*csv_files)(const void *args, const dfs_cli_result *r, dfs_csv_file *files);
    /* Optional, after reading (also when begin stopped): the final exit code from rc. */
    int (*end)(void *args, int rc);
    /* Optional: frees what the args hold. */
    void (*cleanup)(void *args);
} dfs_cli_command;

/* Runs a command on argv (argv[0] is its name); returns the process exit code. */
int dfs_cli_main(const dfs_cli_command *cmd, int argc, char **argv);
/* The command's --help. */
void dfs_cli_help(const dfs_cli_command *cmd, FILE *out);
/* Its options as Markdown, for docs/CLI.md (`dfscope help --markdown CMD`). */
void dfs_cli_help_markdown(const dfs_cli_command *cmd, FILE *out);
/* The options shared by every reading command, as Markdown (`dfscope help --markdown shared`). */
void dfs_cli_help_markdown_shared(FILE *out);

/* ---- helpers of command files ---- */

/* The report through cmd->emit to output (atomically), or to stdout when output is NULL, for a
 * command whose own writer also writes other things; failures are said as "dfscope CMD: ..." and
 * give DFS_EXIT_OUTPUT (DFS_EXIT_USAGE when the output is an input: dfs_cli_write_error). */
int dfs_cli_emit(const dfs_cli_command *cmd, const void *args, const dfs_cli_result *r, const char *output);
/* Says "dfscope CMD: WHY" on stderr; returns rc. */
int dfs_cli_error(const char *cmd, int rc, const char *why);
/* Says a failed write of r's outputs: DFS_EXIT_USAGE when r's guard refused a file as an input
 * (as for -o FILE before reading), else DFS_EXIT_OUTPUT. */
int dfs_cli_write_error(const char *cmd, const dfs_cli_result *r, const char *why);
/* "dfscope CMD: no input (see 'dfscope CMD --help')": DFS_EXIT_USAGE. */
int dfs_cli_no_input(const char *cmd);

/* ---- before reading, for the commands that take a preset (presetting.c) ---- */
typedef struct dfs_cli_presetting {
    double started;     /* when the preview began (--timing) */
    bool previewed;     /* pv holds the preview */
    dfs_preview pv;
    dfs_preset *preset; /* the preset chosen, or NULL */
    const char *source; /* "given" or "auto-detected" */
} dfs_cli_presetting;

/* Previews the command's inputs (dfs_cli_preview, `bytes` of each; -o checked not to be one) and
 * chooses the preset: `given` (a name or a file), else the first shipped one whose categories
 * appear, else posix; an auto-detected one is said on stderr. DFS_EXIT_OK, or the exit code to
 * stop with (said). End with dfs_cli_presetting_end either way. */
int dfs_cli_choose_preset(dfs_cli_args *b, const char *cmd, uint64_t bytes, const char *given,
                          dfs_cli_presetting *ps);
/* Prints --timing's line on stderr when `timing` (rank 0: wall seconds since the preview began,
 * finishing, writing, peak RSS) and frees ps; returns rc. */
int dfs_cli_presetting_end(const dfs_cli_args *b, const char *cmd, dfs_cli_presetting *ps, bool timing, int rc);
/* --list-presets (the shipped presets and their descriptions) and --show-preset NAME (its YAML)
 * on stdout, as option callbacks: DFS_EXIT_OK, or a usage error's code (said). */
int dfs_cli_list_presets(void *args, const char *cmd, const char *value);
int dfs_cli_show_preset(void *args, const char *cmd, const char *name);

/* The shipped commands (cmd_*.c), in the order `dfscope help` lists them. */
extern const dfs_cli_command dfs_cmd_report, dfs_cmd_stats, dfs_cmd_analyze, dfs_cmd_overlap, dfs_cmd_tasks, dfs_cmd_steps,
    dfs_cmd_gpu, dfs_cmd_dataloader, dfs_cmd_timeline, dfs_cmd_merge, dfs_cmd_rules, dfs_cmd_gen;
#endif
