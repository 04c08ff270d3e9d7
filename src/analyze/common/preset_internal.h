/* preset_internal.h - what the files of the preset loader share (preset.h is its interface):
 *   preset.c         the shipped presets, the schema (sections, layers, derived and additional
 *                    metrics, post_read) and loading (documents, `base:`, files);
 *   preset_yaml.c    typed reading of libyaml's document nodes against a strict schema, and the
 *                    messages that name FILE:LINE:COLUMN of the node (or character) at fault;
 *   preset_formula.c the additional-metric formulas: expansion, parsing, evaluation.
 *
 * A builder reads one preset from the user's document and, with `base:`, a shipped one. Every
 * function shared between the files is named preset_*.
 * Invariants: a builder fails once (the first message wins, later failures are its
 * consequences), and everything a loaded preset holds lives in its box's arena. */
#ifndef DFS_PRESET_INTERNAL_H
#define DFS_PRESET_INTERNAL_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "analyze/common/preset.h"
#include "util/arena.h"

#define MAX_NAME_LEN 64 /* of layer, metric and view names (they become parts of column names) */

typedef struct ydoc {
    char origin[128]; /* file name in messages */
    const char *text;
    size_t len;
    yaml_document_t doc;
    bool loaded;
} ydoc;

/* A node and the document it lives in; n == NULL: absent. */
typedef struct ynode {
    ydoc *d;
    yaml_node_t *n;
} ynode;

static const ynode NO_NODE = {NULL, NULL};

typedef struct preset_box {
    dfs_preset pub; /* first: dfs_preset_free casts back */
    dfs_arena arena;
} preset_box;

typedef struct builder {
    ydoc user, base;
    ynode user_root, base_root;
    preset_box *box;
    dfs_preset *p;
    dfs_preset_error *err;
    bool failed;
} builder;

/* ---- nodes ---- */

static inline bool preset_present(ynode n)
{
    return n.n != NULL;
}

static inline bool preset_is_scalar(ynode n)
{
    return n.n && n.n->type == YAML_SCALAR_NODE;
}

static inline const char *preset_sval(ynode n)
{
    return (const char *)n.n->data.scalar.value;
}

static inline ynode preset_doc_node(ydoc *d, int index)
{
    ynode r = {d, yaml_document_get_node(&d->doc, index)};
    return r;
}

static inline size_t preset_seq_length(ynode v)
{
    return (size_t)(v.n->data.sequence.items.top - v.n->data.sequence.items.start);
}

static inline ynode preset_seq_item(ynode v, size_t i)
{
    return preset_doc_node(v.d, v.n->data.sequence.items.start[i]);
}

/* ---- failures (preset_yaml.c) ---- */

/* The message of a failure without a builder. */
void preset_set_message(dfs_preset_error *err, const char *fmt, va_list ap);
/* Every failure goes through here: the first message wins, later ones are consequences. */
bool preset_fail(builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "FILE:LINE:COLUMN: message" at a node (1-based line and column). */
bool preset_fail_at(builder *b, ynode at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "out of memory". */
bool preset_fail_nomem(builder *b);
/* "FILE:LINE:COLUMN: " of byte `col` (1-based; 0 = none) inside a scalar's value: exact when the
 * value is written verbatim, else the scalar's own place. */
bool preset_fail_inside(builder *b, ynode s, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- scalars and mappings (preset_yaml.c) ---- */

/* A plain null scalar (YAML 1.2 core schema). */
bool preset_is_null(ynode n);
/* The node is of `type`, else a failure naming what was found. */
bool preset_expect_type(builder *b, ynode n, yaml_node_type_t type, const char *what);
/* words (NULL-terminated) joined by ", " into buf. */
void preset_list_words(const char *const *words, char *buf, size_t n);
/* Strict schema: every key is a plain string from `allowed`, and no key appears twice. */
bool preset_check_keys(builder *b, ynode map, const char *const *allowed, const char *what);
/* The value of `key` (keys already checked), or NO_NODE. */
ynode preset_map_get(ynode map, const char *key);

/* ---- typed values, copied into the preset's arena (preset_yaml.c) ---- */

/* count zeroed items (NULL for none, or a failure). */
void *preset_alloc_zeroed(builder *b, size_t count, size_t size);
/* A copy of [s, s + n) with a NUL (NULL, a failure, when out of memory). */
const char *preset_copy_text(builder *b, const char *s, size_t n);
/* A string scalar (plain, not null/bool/number, or quoted); NUL bytes are refused. */
bool preset_read_string(builder *b, ynode v, const char *what, const char **out);
/* A string or null (*out = NULL). */
bool preset_read_opt_string(builder *b, ynode v, const char *what, const char **out);
/* true or false; absent gives dflt. */
bool preset_read_bool(builder *b, ynode v, const char *what, bool dflt, bool *out);
/* One of `words` (returned as its index). */
bool preset_read_choice(builder *b, ynode v, const char *what, const char *const *words, int *out);
/* A name made of [a-z0-9_], at most 64 characters (it becomes part of column names). */
bool preset_read_identifier(builder *b, ynode v, const char *what, const char **out);
/* Whether s holds an upper-case ASCII letter. */
bool preset_has_upper(const char *s);

enum { LIST_PLAIN = 0, LIST_NONEMPTY = 1, LIST_LOWER = 2 };
/* A sequence of strings (flags: LIST_*); absent or null gives the empty list. */
bool preset_read_string_list(builder *b, ynode v, const char *what, unsigned flags, dfs_string_list *out);

/* ---- formulas (preset_formula.c) ---- */

/* dfs_formula_parse that also gives the 1-based column of an error in the text (*errcol, 0: none). */
dfs_formula *preset_formula_parse_at(const char *text, const dfs_formula_vars *vars,
                                     dfs_preset_error *err, size_t *errcol);
#endif
