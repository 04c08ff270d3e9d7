/* preset.h - layered-analysis presets: the layer set, derived metrics, additional metrics and
 * post-read rules of one workload type (spec: layered-analysis.md §3, §5), loaded from YAML.
 *
 * The presets shipped with dfscope (presets/NAME.yaml: posix, dlio, dlio-g2, ai, auto, posix-g2) are compiled
 * into the binary, so the tool needs no installed data files; a user preset is a YAML file of the
 * same schema (docs/PRESETS.md). A user file may start from a shipped preset with `base: NAME` and
 * then replace any top-level section (layers, post_read or any of its lists, ...).
 *
 * Invariants after a successful load:
 *  - layer names are unique identifiers ([a-z0-9_]+), every parent names an EARLIER layer, so
 *    layers[] is in a topological order (parents first) and has no cycles;
 *  - every predicate text (layers, derived metrics) parses with dfs_pred_parse (NULL = match all);
 *  - every additional-metric formula parses (dfs_formula_parse below);
 *  - at most DFS_PRESET_MAX_LAYERS layers, DFS_PRESET_MAX_DERIVED derived metrics per layer,
 *    DFS_PRESET_MAX_ADDITIONAL additional metrics, DFS_PRESET_MAX_SUFFIXES suffix rules, and at
 *    most DFS_PRED_MAX_SET (64) distinct predicate texts over all layers and derived metrics (so
 *    that one dfs_pred_set can answer them all);
 *  - derived-metric names are unique within their layer, a `sized` derived metric belongs to a
 *    size layer, and additional-metric names are unique;
 *  - pattern lists hold no empty string (it would match everything); detect_categories,
 *    suffix_categories and suffixes are lower-case (they meet lower-cased categories).
 * A loaded preset is immutable and owns all its strings (one allocation arena; free with
 * dfs_preset_free). */
#ifndef DFS_PRESET_H
#define DFS_PRESET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DFS_PRESET_MAX_LAYERS 64
#define DFS_PRESET_MAX_DERIVED 32
#define DFS_PRESET_MAX_ADDITIONAL 64 /* additional metrics */
#define DFS_PRESET_MAX_SUFFIXES 16   /* post_read.suffixes rules */

/* DFTracer I/O categories (spec §3.4). */
typedef enum dfs_io_cat {
    DFS_IO_READ = 1,
    DFS_IO_WRITE = 2,
    DFS_IO_METADATA = 3,
    DFS_IO_PCTL = 4,
    DFS_IO_IPC = 5,
    DFS_IO_OTHER = 6,
    DFS_IO_SYNC = 7,
} dfs_io_cat;

typedef struct dfs_derived_metric {
    const char *name;      /* e.g. "read": columns are prefixed "read_" */
    const char *predicate; /* never NULL */
    bool sized;            /* carries size columns (DERIVED_POSIX_SIZE_METRICS: data, read, write) */
} dfs_derived_metric;

typedef struct dfs_preset_layer {
    const char *name;      /* key, e.g. "reader_posix_lustre" */
    const char *display;   /* console name, e.g. "Reader POSIX (Lustre)"; never NULL */
    const char *predicate; /* NULL: every post-read event */
    int parent;            /* index of the parent layer in layers[], or -1 */
    bool size_layer;       /* keeps size columns, counts files */
    bool unoverlapped;     /* gets u_ columns (compared with the compute layer) */
    const dfs_derived_metric *derived;
    size_t nderived;
} dfs_preset_layer;

typedef struct dfs_additional_metric {
    const char *view;    /* view type it applies to ("time_range", "proc_name", ...); NULL = all */
    const char *name;    /* e.g. "compute_util"; unit from the suffix (_gbps, _mbps, _gb, _mb) */
    const char *formula; /* e.g. "compute_{time_metric} / (app_{time_metric} + {epsilon})" */
} dfs_additional_metric;

typedef struct dfs_string_list {
    const char *const *v;
    size_t n;
} dfs_string_list;

typedef struct dfs_suffix_rule {
    const char *marker; /* substring of the file path, e.g. "/data" */
    const char *suffix; /* appended to the category, e.g. "_reader" */
} dfs_suffix_rule;

/* What proc_name uses when an event's host hash is not defined (spec §3.2). */
typedef enum dfs_missing_host {
    DFS_MISSING_HOST_HASH, /* G3: the hash in hex, else "unknown" */
    DFS_MISSING_HOST_NA,   /* G2: the text "<NA>" */
} dfs_missing_host;

/* Post-read rules (spec §3), in the order they apply. */
typedef struct dfs_post_read {
    dfs_string_list ignored_file_patterns;     /* substrings of file_name: event dropped */
    dfs_string_list ignored_functions;         /* exact names: dropped */
    dfs_string_list ignored_function_patterns; /* substrings of the name: dropped */
    dfs_string_list io_cat_categories;         /* raw, case-sensitive cats that get an io_cat ("POSIX", "STDIO") */
    dfs_string_list io_cat_names[8];           /* indexed by dfs_io_cat (1..7); METADATA is tested first */
    const dfs_suffix_rule *suffixes;           /* cumulative, in this order */
    size_t nsuffixes;
    dfs_string_list suffix_categories;         /* suffixes apply when the lower-cased cat contains one of these ("posix", "stdio") */
    bool size_from_size_sum;                   /* rule 1 of §3.5 */
    bool size_from_image_size;                 /* rule 3 of §3.5 */
    dfs_missing_host missing_host;
} dfs_post_read;

typedef enum dfs_generation {
    DFS_GEN_G2, /* DFAnalyzer 0.1.0 (July 2025): the README table */
    DFS_GEN_G3, /* dftracer-analyzer (late 2025-2026) */
} dfs_generation;

/* Events a preset leaves out of every layer on purpose (e.g. DLIO's loop.yield spans, which last
 * while the training step uses a batch): they are counted apart, not warned about as left out. */
#define DFS_PRESET_MAX_LEFT_OUT 8
typedef struct dfs_preset_left_out {
    const char *predicate;
    const char *reason; /* one sentence a user reads */
} dfs_preset_left_out;

typedef struct dfs_preset {
    const char *name;        /* "dlio", or the user file's `name:` */
    const char *description;
    dfs_generation generation;
    const dfs_preset_layer *layers; /* parents first */
    size_t nlayers;
    int time_boundary;       /* layer index of the time boundary (§7.1), -1 when none */
    int compute_layer;       /* index of the layer named "compute", -1 when none (u_ needs it) */
    bool auto_layers;        /* `auto`: one layer per post-read category is added at run time (§5.6) */
    const dfs_additional_metric *additional;
    size_t nadditional;
    dfs_string_list detect_categories; /* auto-detection: lower-cased categories that select this preset */
    dfs_post_read post_read;
    const dfs_preset_left_out *left_out;
    size_t nleft_out;
} dfs_preset;

typedef struct dfs_preset_error {
    char message[256]; /* "FILE:LINE:COLUMN: what is wrong", or a message without place */
} dfs_preset_error;

/* Loads a shipped preset by name ("posix", "dlio", "dlio-g2", "ai", "auto") or, when `name_or_path`
 * contains a '/' or ends in .yaml/.yml, the YAML file at that path (at most 1 MiB). NULL and *err
 * (if err is not NULL) on error; messages name FILE:LINE:COLUMN (1-based) of the offending node, and
 * for a bad predicate or formula the column of the offending token inside it. */
dfs_preset *dfs_preset_load(const char *name_or_path, dfs_preset_error *err);
/* Parses YAML text (`origin` names it in messages). */
dfs_preset *dfs_preset_parse(const char *yaml, size_t len, const char *origin, dfs_preset_error *err);
void dfs_preset_free(dfs_preset *p);

/* The names of the shipped presets, in a fixed order (posix, dlio, dlio-g2, ai, auto, posix-g2, then any other
 * presets/NAME.yaml alphabetically); their YAML text (for `--show-preset`), NULL for an unknown name.
 * The texts are generated at build time from the presets/ folder by cmake/embed_presets.cmake. */
size_t dfs_preset_builtin_count(void);
const char *dfs_preset_builtin_name(size_t i);
const char *dfs_preset_builtin_text(const char *name);

/* Index of the layer with this name, or -1. */
int dfs_preset_layer_index(const dfs_preset *p, const char *name);

/* ---------------------------------------------------------------------------------------------
 * Additional-metric formulas (§7.5): arithmetic over the columns of a flat-view row.
 *   expr := term (("+" | "-") term)*;  term := factor (("*" | "/") factor)*;
 *   factor := NUMBER | COLUMN | "(" expr ")" | "-" factor
 * COLUMN is an identifier ([A-Za-z_][A-Za-z0-9_]*) after the placeholders {time_metric},
 * {epsilon} (1e-9) and {time_interval} have been substituted by the caller's values.
 * Evaluation: a null column, or a division by zero or by null, gives null (false).
 * ------------------------------------------------------------------------------------------- */
typedef struct dfs_formula dfs_formula;

typedef struct dfs_formula_vars {
    const char *time_metric;  /* e.g. "time_proc_max" */
    double epsilon;           /* 1e-9 */
    double time_interval;     /* bin width in seconds */
} dfs_formula_vars;

/* Column lookup: returns false when the column is null or unknown. Called once per distinct column
 * per evaluation, in the order of dfs_formula_column. */
typedef bool (*dfs_formula_lookup)(void *user, const char *column, double *value);

/* vars NULL: time_metric "time_sum", epsilon 1e-9, time_interval 1 (what the loader validates with).
 * Errors say "... at column N" (1-based, in `text` before substitution; a token that came from a
 * placeholder is placed at its '{'). Limits: 4096 bytes, nesting 64, 64 distinct columns. */
dfs_formula *dfs_formula_parse(const char *text, const dfs_formula_vars *vars, dfs_preset_error *err);
void dfs_formula_free(dfs_formula *f);
/* The columns the formula reads (after substitution), for validation against a view. */
size_t dfs_formula_ncolumns(const dfs_formula *f);
const char *dfs_formula_column(const dfs_formula *f, size_t i);
/* False (null) when a column is null or not finite, on a division by zero, and when the result is
 * not finite; else *out. Thread-safe: a parsed formula is immutable. */
bool dfs_formula_eval(const dfs_formula *f, dfs_formula_lookup lookup, void *user, double *out);
#endif
