/* predicate.h - the predicate language of layered analysis: the pandas DataFrame.query subset that
 * the DFAnalyzer presets use to define layers and derived metrics (spec: layered-analysis.md §4).
 *
 *   expr    := or
 *   or      := and   ( ("or" | "|") and )*
 *   and     := unary ( ("and" | "&") unary )*
 *   unary   := ("~" | "not") unary | primary
 *   primary := "(" expr ")" | test
 *   test    := COL ("==" | "!=" | "<" | "<=" | ">" | ">=") literal
 *            | COL ".isin(" "[" literal ("," literal)* [","] "]" ")"
 *            | COL ".str.contains(" STRING ")"      unanchored PCRE2 search, case-sensitive
 *            | COL ".str.startswith(" STRING ")"    literal prefix
 *            | ARG ("==" | "!=" | "<" | "<=" | ">" | ">=") INTEGER
 *            | ARG ("==" | "!=") STRING
 *   ARG     := "args." KEY | "args[" STRING "]"     an event argument (KEY: letters, digits, '_',
 *                                                   not starting with a digit; any other key quoted)
 *   literal := STRING ("..." or '...') | INTEGER (decimal, optional leading '-')
 *
 * Columns: cat, func_name (alias name), file_name, proc_name, host hold strings; io_cat, acc_pat,
 * pid, tid hold integers. A test compares a column with literals of its own type only (a mismatch
 * is a parse error naming the column). Ordering on strings compares bytes (memcmp, then length).
 * String escapes: \\ \" \' \n \t \r; any other backslash is kept with the character that follows
 * it, as Python does for unknown escapes, so regular-expression escapes such as "\." survive.
 * Unlike Python, "~" applies to the whole test that follows it: `~io_cat == 3` is `~(io_cat == 3)`.
 *
 * An argument is looked up per row through the row's lookup function (dfs_pred_row.args). Against
 * an INTEGER it is compared as a number: an integer, a float (compared as a double) or a string
 * that is a whole decimal integer; against a STRING only a string value is compared (bytes). A row
 * without the key, without a lookup, or whose value is of the other type (a non-numeric string
 * against a number, a number against a string) has a null there. Keys are 1 to
 * DFS_PRED_MAX_ARG_KEY bytes.
 *
 * Nulls (absent column values) follow SQL's three-valued logic: a test on a null value is UNKNOWN,
 * ~UNKNOWN is UNKNOWN, FALSE & x is FALSE, TRUE | x is TRUE, and the other &/| combinations with
 * UNKNOWN are UNKNOWN. A row matches only when the whole predicate is TRUE. So neither `test` nor
 * `~test` matches a null value, and `~(a & b)` still matches when b alone is known to be FALSE.
 *
 * Regular expressions run under bounds (docs/RELIABILITY.md): a search of a value of n bytes may
 * take dfs_pred_regex_step_limit(n) backtracking steps from each start position (PCRE2's match
 * limit; about DFS_PRED_REGEX_BUDGET steps in all for values up to a few kB) and
 * DFS_PRED_REGEX_HEAP_KIB of backtracking memory (which also bounds its depth). A search that
 * reaches a bound has no answer: the test is UNKNOWN, the predicate is failed for good (it runs no
 * more searches) and dfs_pred_failed says why. Whoever evaluates predicates must check for that
 * and refuse its result: a failure never passes for "no match".
 *
 * Threads: a dfs_pred and a dfs_pred_set keep mutable state (PCRE2 match data, counters, the memo),
 * so each worker thread parses its own. There is no global mutable state.
 */
#ifndef DFS_PREDICATE_H
#define DFS_PREDICATE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The string columns come first so that a row can index them directly. */
typedef enum dfs_pred_col {
    DFS_PRED_CAT,
    DFS_PRED_FUNC_NAME,
    DFS_PRED_FILE_NAME,
    DFS_PRED_PROC_NAME,
    DFS_PRED_HOST,
    DFS_PRED_IO_CAT,
    DFS_PRED_ACC_PAT,
    DFS_PRED_PID,
    DFS_PRED_TID,
    DFS_PRED_NCOLS
} dfs_pred_col;

#define DFS_PRED_NTEXT ((int)DFS_PRED_IO_CAT)                   /* string columns */
#define DFS_PRED_NNUM ((int)DFS_PRED_NCOLS - (int)DFS_PRED_IO_CAT) /* integer columns */
#define DFS_PRED_COL_BIT(c) (1u << (unsigned)(c))
#define DFS_PRED_MAX_SET 64 /* predicates in one dfs_pred_set (one bit each in the answer) */
#define DFS_PRED_REGEX_BUDGET 10000000u /* backtracking steps a search may share out among positions */
#define DFS_PRED_REGEX_MIN_STEPS 1000u  /* per position, beyond the value's length */
#define DFS_PRED_REGEX_HEAP_KIB 16384u  /* backtracking memory of one search (kept by its match data) */
#define DFS_PRED_MAX_ARG_KEY 256        /* bytes of an args key */

typedef struct dfs_pred_text {
    const char *s; /* NULL: the value is null */
    size_t len;
} dfs_pred_text;

typedef struct dfs_pred_num {
    int64_t v;
    bool present; /* false: the value is null */
} dfs_pred_num;

/* An event argument's value as a row's lookup gives it. */
typedef enum dfs_pred_arg_type { DFS_PRED_ARG_INT, DFS_PRED_ARG_FLOAT, DFS_PRED_ARG_TEXT } dfs_pred_arg_type;
typedef struct dfs_pred_arg {
    dfs_pred_arg_type type;
    int64_t i;
    double f;
    const char *s;
    size_t len;
} dfs_pred_arg;
/* Finds the argument `key` (key_len bytes, not NUL-terminated) of the row's event: false when the
 * event has none. */
typedef bool (*dfs_pred_arg_lookup)(const void *ctx, const char *key, size_t key_len, dfs_pred_arg *out);

/* One row to classify. Only the columns the predicates use (dfs_pred_columns) need filling, and
 * the lookup only when they use arguments (dfs_pred_uses_args). */
typedef struct dfs_pred_row {
    dfs_pred_text text[DFS_PRED_NTEXT]; /* indexed by dfs_pred_col */
    dfs_pred_num num[DFS_PRED_NNUM];    /* indexed by dfs_pred_col - DFS_PRED_IO_CAT */
    dfs_pred_arg_lookup args;           /* NULL: every argument is null */
    const void *args_ctx;
    /* Instead of a lookup: the answers of the argument tests, evaluated earlier
     * (dfs_pred_arg_tests_eval), for sets bound to those tests (dfs_pred_set_bind_arg_tests). */
    bool has_arg_truths;
    uint64_t arg_truths;
} dfs_pred_row;

/* Every column and argument null. */
static inline void dfs_pred_row_init(dfs_pred_row *r)
{
    memset(r, 0, sizeof *r);
}

static inline void dfs_pred_row_set_text(dfs_pred_row *r, dfs_pred_col c, const char *s, size_t n)
{
    r->text[c].s = s;
    r->text[c].len = n;
}

static inline void dfs_pred_row_set_num(dfs_pred_row *r, dfs_pred_col c, int64_t v)
{
    r->num[c - DFS_PRED_IO_CAT].v = v;
    r->num[c - DFS_PRED_IO_CAT].present = true;
}

typedef struct dfs_pred_error {
    size_t index;      /* dfs_pred_set_new: which text failed */
    size_t column;     /* 1-based byte column of the offending token; 0 when no place applies */
    char message[192]; /* e.g. "expected ')' at column 17, found 'and'" */
} dfs_pred_error;

typedef struct dfs_pred dfs_pred;

/* Compiles a predicate. NULL, empty, blank and "None" texts give the match-all predicate (which
 * also matches rows whose columns are null). Returns NULL and fills *err (if not NULL) on any
 * syntax error, unknown column or method, bad literal, type mismatch, invalid regular expression
 * (the column then points into the string literal) or out of memory (column 0). */
dfs_pred *dfs_pred_parse(const char *text, dfs_pred_error *err);
void dfs_pred_free(dfs_pred *p);
/* The columns the predicate reads, as DFS_PRED_COL_BIT bits; 0 for match-all. */
unsigned dfs_pred_columns(const dfs_pred *p);
bool dfs_pred_matches_all(const dfs_pred *p);
/* Does it read event arguments? Then rows need a lookup; the keys it reads are
 * dfs_pred_arg_key(p, 0..n-1) (n = dfs_pred_arg_count), for a reader that extracts only those. */
bool dfs_pred_uses_args(const dfs_pred *p);
size_t dfs_pred_arg_count(const dfs_pred *p);
const char *dfs_pred_arg_key(const dfs_pred *p, size_t i, size_t *len);
/* The text of `COLUMN.str.contains("REGEX")` with the regular expression quoted so that it reaches
 * the engine as given (backslashes and double quotes escaped): how an option that takes a bare
 * regular expression gets the language's bounds and messages. NULL when out of memory. */
char *dfs_pred_contains_text(const char *column, const char *regex);
/* Direct evaluation (regular expressions run every time; use a dfs_pred_set in hot loops). */
bool dfs_pred_match(dfs_pred *p, const dfs_pred_row *row);
/* Number of regular-expression searches run so far (a debug counter). */
uint64_t dfs_pred_regex_evals(const dfs_pred *p);
/* Did a search reach a bound? Then *err (if not NULL) says which regular expression (its column
 * in err->column) on which value, and which bound: the message names no predicate, which the
 * caller adds (dfs_pred_note_failure). */
bool dfs_pred_failed(const dfs_pred *p, dfs_pred_error *err);
/* The match limit of one search of a value of len bytes: max(DFS_PRED_REGEX_BUDGET / (len + 1),
 * len + DFS_PRED_REGEX_MIN_STEPS) steps from each start position, so that a search costs about
 * the budget in all, and a pattern that takes linear time from a position never reaches it. */
uint32_t dfs_pred_regex_step_limit(size_t len);
/* The user's message for a failed predicate, "<what>: predicate <text>: <err's message>" (text
 * shortened), written into buf only when buf is empty, so that the first failure among an
 * analysis' workers is the one kept. */
void dfs_pred_note_failure(char *buf, size_t n, const char *what, const char *text, const dfs_pred_error *err);
const char *dfs_pred_col_name(dfs_pred_col c);

/* A set of up to 64 predicates answered together as a bitmask (bit i = texts[i] matches), with a
 * memo so that each distinct key is classified once: the key is the tuple of the columns the set
 * uses, strings identified by ids the caller supplies (e.g. dfs_str), integers by value, nulls
 * distinguished. A hot loop then costs one hash lookup per row and no regular-expression work
 * after the first sighting of a key. The memo stops growing at a fixed size (over a million keys);
 * rows with new keys are then evaluated directly, with the same answers. */
typedef struct dfs_pred_set dfs_pred_set;

/* NULL and *err (err->index = the failing text) on error; n == 0 is a valid empty set. */
dfs_pred_set *dfs_pred_set_new(const char *const *texts, size_t n, dfs_pred_error *err);
void dfs_pred_set_free(dfs_pred_set *s);
size_t dfs_pred_set_count(const dfs_pred_set *s);
/* Union of the members' columns: which fields of a row and of text_ids the caller must fill. */
unsigned dfs_pred_set_columns(const dfs_pred_set *s);
/* Does a member read event arguments? Such a set answers rows that look arguments up directly
 * (arguments are not part of the memo's key); rows carrying answered argument tests
 * (dfs_pred_row.arg_truths, for a set bound to them) are memoised with that word in the key. */
bool dfs_pred_set_uses_args(const dfs_pred_set *s);
/* text_ids[c] identifies the string in row->text[c] for every used string column c that is not
 * null: within one set's life, equal ids must mean equal strings (for the same column). May be
 * NULL when the set uses no string column. */
uint64_t dfs_pred_set_eval(dfs_pred_set *s, const dfs_pred_row *row, const uint32_t *text_ids);
/* The same answer without the memo (for checking). */
uint64_t dfs_pred_set_eval_direct(dfs_pred_set *s, const dfs_pred_row *row);
/* Has a member failed (dfs_pred_failed)? *err (if not NULL) as there, err->index = the member. Its
 * answers since then are not memoised. */
bool dfs_pred_set_failed(const dfs_pred_set *s, dfs_pred_error *err);

typedef struct dfs_pred_set_stats {
    uint64_t lookups;     /* dfs_pred_set_eval calls */
    uint64_t misses;      /* of which the key was not memoised */
    uint64_t regex_evals; /* regular-expression searches by all members, direct ones included */
    size_t keys;          /* distinct keys memoised */
} dfs_pred_set_stats;

void dfs_pred_set_stats_get(const dfs_pred_set *s, dfs_pred_set_stats *out);

/* Argument tests answered apart. An analysis that classifies an event after its arguments are
 * gone (a kept copy of it, or an event waiting for its file name) answers the argument tests of
 * its predicates while the event is read, into one word of 2 bits per test (false, true or
 * unknown), and hands that word over in the row later (dfs_pred_row.arg_truths). A set bound to
 * the tests then reads the word instead of looking arguments up, and memoises by it.
 *
 * The tests are numbered in the order they are bound (dfs_pred_set_bind_arg_tests binds a set's
 * members in order, and their tests in the order written); equal tests (key, operator, literal)
 * share a number. So tests bound alike from the same texts are numbered alike in any thread,
 * process or MPI rank, and a word answered by one is read right by another. Once bound, a
 * dfs_pred_arg_tests is read-only: dfs_pred_arg_tests_eval may run in many threads at once. */
#define DFS_PRED_MAX_ARG_TESTS 32 /* distinct tests (2 bits each in a word) */
#define DFS_PRED_MAX_ARG_KEYS 16  /* distinct keys among them */

typedef struct dfs_pred_arg_tests dfs_pred_arg_tests;

dfs_pred_arg_tests *dfs_pred_arg_tests_new(void);
void dfs_pred_arg_tests_free(dfs_pred_arg_tests *t);
/* Numbers p's argument tests in t (new ones are added) and binds p to them. false and *err (naming
 * the first test over a bound) when t would hold more than DFS_PRED_MAX_ARG_TESTS tests or
 * DFS_PRED_MAX_ARG_KEYS keys, or out of memory. */
bool dfs_pred_bind_arg_tests(dfs_pred *p, dfs_pred_arg_tests *t, dfs_pred_error *err);
/* The same for every member of s, in order; err->index names the member. */
bool dfs_pred_set_bind_arg_tests(dfs_pred_set *s, dfs_pred_arg_tests *t, dfs_pred_error *err);
size_t dfs_pred_arg_tests_count(const dfs_pred_arg_tests *t);
/* The distinct keys the tests read (i < dfs_pred_arg_tests_key_count), for the reader. */
size_t dfs_pred_arg_tests_key_count(const dfs_pred_arg_tests *t);
const char *dfs_pred_arg_tests_key(const dfs_pred_arg_tests *t, size_t i, size_t *len);
/* Every test's answer on the event that `lookup` (with ctx) reads: the word for
 * dfs_pred_row.arg_truths. A NULL lookup answers every test unknown. */
uint64_t dfs_pred_arg_tests_eval(const dfs_pred_arg_tests *t, dfs_pred_arg_lookup lookup, const void *ctx);
#endif
