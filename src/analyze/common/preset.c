/* preset.c - layered-analysis presets: the YAML loader (libyaml's document API, which resolves
 * anchors and aliases) with a strict schema, and the additional-metric formulas (preset.h).
 *
 * A user file with `base: NAME` is read together with the shipped preset NAME: every lookup of a
 * top-level section (and of a post_read key, and of an io_cat list) takes the user's node when the
 * user file has one and the base's otherwise, so one builder serves both cases and every message
 * names the file, line and column of the node at fault, whichever document it comes from.
 *
 * The schema is walked only along its fixed shape (never generically), so an alias that makes a
 * YAML node contain itself cannot loop: it meets a type check first. `definitions` (a place for
 * anchors) is never walked. */
#include "analyze/common/preset.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "analyze/common/predicate.h"
#include "util/arena.h"

#define MAX_YAML_BYTES ((size_t)1 << 20) /* a preset is a few KiB; more is a mistake */
#define MAX_NAME_LEN 64
#define DEFAULT_EPSILON 1e-9

/* Generated from the presets/ folder by cmake/embed_presets.cmake (build/generated/presets_builtin.c). */
extern const char *const dfs_preset_builtin_names_[];
extern const unsigned char *const dfs_preset_builtin_texts_[];
extern const size_t dfs_preset_builtin_lengths_[];
extern const size_t dfs_preset_builtin_count_;

/* ================================================================================================
 * Shipped presets
 * ============================================================================================== */

size_t dfs_preset_builtin_count(void)
{
    return dfs_preset_builtin_count_;
}

const char *dfs_preset_builtin_name(size_t i)
{
    return i < dfs_preset_builtin_count_ ? dfs_preset_builtin_names_[i] : NULL;
}

static int builtin_index(const char *name)
{
    for (size_t i = 0; i < dfs_preset_builtin_count_; i++)
        if (strcmp(dfs_preset_builtin_names_[i], name) == 0)
            return (int)i;
    return -1;
}

const char *dfs_preset_builtin_text(const char *name)
{
    int i = name ? builtin_index(name) : -1;
    return i < 0 ? NULL : (const char *)dfs_preset_builtin_texts_[i];
}

/* ================================================================================================
 * Documents and nodes
 * ============================================================================================== */

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

static bool present(ynode n)
{
    return n.n != NULL;
}

static bool is_scalar(ynode n)
{
    return n.n && n.n->type == YAML_SCALAR_NODE;
}

static const char *sval(ynode n)
{
    return (const char *)n.n->data.scalar.value;
}

static ynode doc_node(ydoc *d, int index)
{
    ynode r = {d, yaml_document_get_node(&d->doc, index)};
    return r;
}

static void set_message(dfs_preset_error *err, const char *fmt, va_list ap)
{
    vsnprintf(err->message, sizeof err->message, fmt, ap);
}

/* Every failure goes through here: the first message wins, later ones are consequences. */
static bool fail(builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(builder *b, const char *fmt, ...)
{
    if (b->failed)
        return false;
    b->failed = true;
    va_list ap;
    va_start(ap, fmt);
    set_message(b->err, fmt, ap);
    va_end(ap);
    return false;
}

/* "FILE:LINE:COLUMN: message" at a node (1-based line and column). */
static bool fail_at(builder *b, ynode at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail_at(builder *b, ynode at, const char *fmt, ...)
{
    if (b->failed)
        return false;
    char msg[224];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!at.n)
        return fail(b, "%s: %s", b->user.origin, msg);
    return fail(b, "%s:%zu:%zu: %s", at.d->origin, at.n->start_mark.line + 1, at.n->start_mark.column + 1,
                msg);
}

static bool fail_nomem(builder *b)
{
    return fail(b, "out of memory");
}

/* ---- scalar types (YAML 1.2 core schema, for plain scalars; quoted ones are strings) ---- */

typedef enum skind { SK_NULL, SK_BOOL, SK_NUMBER, SK_STRING } skind;

static bool is_any_of(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (strcmp(s, *words) == 0)
            return true;
    return false;
}

static bool looks_numeric(const char *s)
{
    static const char *const special[] = {".inf", ".Inf", ".INF", "+.inf", "-.inf", ".nan", ".NaN",
                                          ".NAN", NULL};
    if (is_any_of(s, special))
        return true;
    const char *p = s + (*s == '+' || *s == '-');
    bool digits = false;
    while (*p >= '0' && *p <= '9')
        p++, digits = true;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits = true;
    if (!digits)
        return (s[0] == '0' && (s[1] == 'x' || s[1] == 'o'));
    if (*p == 'e' || *p == 'E') {
        p += 1 + (p[1] == '+' || p[1] == '-');
        if (!(*p >= '0' && *p <= '9'))
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0' || (s[0] == '0' && (s[1] == 'x' || s[1] == 'o'));
}

static skind scalar_kind(ynode n, bool *truth)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
    static const char *const trues[] = {"true", "True", "TRUE", NULL};
    static const char *const falses[] = {"false", "False", "FALSE", NULL};
    if (n.n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return SK_STRING;
    const char *s = sval(n);
    if (is_any_of(s, nulls))
        return SK_NULL;
    if (is_any_of(s, trues) || is_any_of(s, falses)) {
        if (truth)
            *truth = is_any_of(s, trues);
        return SK_BOOL;
    }
    return looks_numeric(s) ? SK_NUMBER : SK_STRING;
}

static const char *kind_name(ynode n)
{
    if (n.n->type == YAML_SEQUENCE_NODE)
        return "a sequence";
    if (n.n->type == YAML_MAPPING_NODE)
        return "a mapping";
    switch (scalar_kind(n, NULL)) {
    case SK_NULL:
        return "null";
    case SK_BOOL:
        return "a boolean";
    case SK_NUMBER:
        return "a number";
    default:
        return "a string";
    }
}

static bool is_null(ynode n)
{
    return is_scalar(n) && scalar_kind(n, NULL) == SK_NULL;
}

/* ---- mappings ---- */

#define FOR_PAIRS(map, pair)                                                                       \
    for (yaml_node_pair_t *pair = (map).n->data.mapping.pairs.start;                               \
         pair < (map).n->data.mapping.pairs.top; pair++)

static bool expect_type(builder *b, ynode n, yaml_node_type_t type, const char *what)
{
    if (n.n->type == type)
        return true;
    const char *want = type == YAML_MAPPING_NODE    ? "a mapping"
                       : type == YAML_SEQUENCE_NODE ? "a sequence"
                                                    : "a scalar";
    return fail_at(b, n, "%s: expected %s, found %s", what, want, kind_name(n));
}

static void list_words(const char *const *words, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; words[i] && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? ", " : "", words[i]);
}

/* Strict schema: every key is a plain string from `allowed`, and no key appears twice. */
static bool check_keys(builder *b, ynode map, const char *const *allowed, const char *what)
{
    if (!expect_type(b, map, YAML_MAPPING_NODE, what))
        return false;
    FOR_PAIRS(map, pair) {
        ynode key = doc_node(map.d, pair->key);
        if (!is_scalar(key) || scalar_kind(key, NULL) == SK_NULL)
            return fail_at(b, key, "%s: a key must be a string, found %s", what, kind_name(key));
        if (!is_any_of(sval(key), allowed)) {
            char words[160];
            list_words(allowed, words, sizeof words);
            return fail_at(b, key, "unknown key '%.40s' in %s (expected one of: %s)", sval(key), what, words);
        }
        for (yaml_node_pair_t *q = map.n->data.mapping.pairs.start; q < pair; q++)
            if (strcmp((const char *)yaml_document_get_node(&map.d->doc, q->key)->data.scalar.value,
                       sval(key)) == 0)
                return fail_at(b, key, "duplicate key '%.40s' in %s", sval(key), what);
    }
    return true;
}

/* The value of `key` (keys already checked), or NO_NODE. */
static ynode map_get(ynode map, const char *key)
{
    if (!map.n || map.n->type != YAML_MAPPING_NODE)
        return NO_NODE;
    FOR_PAIRS(map, pair) {
        ynode k = doc_node(map.d, pair->key);
        if (is_scalar(k) && strcmp(sval(k), key) == 0)
            return doc_node(map.d, pair->value);
    }
    return NO_NODE;
}

/* ---- typed values, copied into the preset's arena ---- */

static void *alloc_zeroed(builder *b, size_t count, size_t size)
{
    if (count == 0)
        return NULL;
    if (size && count > SIZE_MAX / size) {
        fail_nomem(b);
        return NULL;
    }
    void *m = dfs_arena_alloc(&b->box->arena, count * size);
    if (!m)
        fail_nomem(b);
    else
        memset(m, 0, count * size);
    return m;
}

static const char *copy_text(builder *b, const char *s, size_t n)
{
    const char *c = dfs_arena_strdup(&b->box->arena, s, n);
    if (!c)
        fail_nomem(b);
    return c;
}

/* A string scalar (plain, not null/bool/number, or quoted); NUL bytes are refused. */
static bool read_string(builder *b, ynode v, const char *what, const char **out)
{
    if (!is_scalar(v) || scalar_kind(v, NULL) != SK_STRING)
        return fail_at(b, v, "%s: expected a string, found %s", what, kind_name(v));
    size_t n = v.n->data.scalar.length;
    if (strlen(sval(v)) != n)
        return fail_at(b, v, "%s: the string contains a NUL character", what);
    *out = copy_text(b, sval(v), n);
    return *out != NULL;
}

/* A string or null (*out = NULL). */
static bool read_opt_string(builder *b, ynode v, const char *what, const char **out)
{
    *out = NULL;
    if (!present(v) || is_null(v))
        return true;
    return read_string(b, v, what, out);
}

static bool read_bool(builder *b, ynode v, const char *what, bool dflt, bool *out)
{
    *out = dflt;
    if (!present(v))
        return true;
    if (!is_scalar(v) || scalar_kind(v, out) != SK_BOOL)
        return fail_at(b, v, "%s: expected true or false, found %s", what, kind_name(v));
    return true;
}

/* One of `words` (returned as its index). */
static bool read_choice(builder *b, ynode v, const char *what, const char *const *words, int *out)
{
    if (is_scalar(v) && scalar_kind(v, NULL) == SK_STRING)
        for (int i = 0; words[i]; i++)
            if (strcmp(sval(v), words[i]) == 0) {
                *out = i;
                return true;
            }
    char list[96];
    list_words(words, list, sizeof list);
    if (is_scalar(v))
        return fail_at(b, v, "%s: '%.40s' is not one of: %s", what, sval(v), list);
    return fail_at(b, v, "%s: expected one of: %s, found %s", what, list, kind_name(v));
}

static bool is_identifier(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > MAX_NAME_LEN)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* A name made of [a-z0-9_], at most 64 characters (it becomes part of column names). */
static bool read_identifier(builder *b, ynode v, const char *what, const char **out)
{
    if (!read_string(b, v, what, out))
        return false;
    if (!is_identifier(*out))
        return fail_at(b, v, "%s: '%.40s' is not a name of lower-case letters, digits and '_' (at most %d)",
                       what, *out, MAX_NAME_LEN);
    return true;
}

static bool has_upper(const char *s)
{
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'Z')
            return true;
    return false;
}

enum { LIST_PLAIN = 0, LIST_NONEMPTY = 1, LIST_LOWER = 2 };

/* A sequence of strings; absent or null gives the empty list. */
static bool read_string_list(builder *b, ynode v, const char *what, unsigned flags, dfs_string_list *out)
{
    memset(out, 0, sizeof *out);
    if (!present(v) || is_null(v))
        return true;
    if (!expect_type(b, v, YAML_SEQUENCE_NODE, what))
        return false;
    yaml_node_item_t *items = v.n->data.sequence.items.start;
    size_t n = (size_t)(v.n->data.sequence.items.top - items);
    const char **list = alloc_zeroed(b, n, sizeof *list);
    if (n && !list)
        return false;
    for (size_t i = 0; i < n; i++) {
        ynode item = doc_node(v.d, items[i]);
        if (!read_string(b, item, what, &list[i]))
            return false;
        if ((flags & LIST_NONEMPTY) && list[i][0] == '\0')
            return fail_at(b, item, "%s: an empty string would match everything", what);
        if ((flags & LIST_LOWER) && has_upper(list[i]))
            return fail_at(b, item, "%s: '%.40s' must be lower-case (it meets lower-cased categories)", what,
                           list[i]);
    }
    out->v = list;
    out->n = n;
    return true;
}

static size_t seq_length(ynode v)
{
    return (size_t)(v.n->data.sequence.items.top - v.n->data.sequence.items.start);
}

static ynode seq_item(ynode v, size_t i)
{
    return doc_node(v.d, v.n->data.sequence.items.start[i]);
}

/* ================================================================================================
 * Places inside a scalar (for predicate and formula errors)
 * ============================================================================================== */

static size_t utf8_chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* Byte offset of (line, column) in the source, counting columns in characters as libyaml does;
 * false when the line is not there. */
static bool source_offset(const ydoc *d, size_t line, size_t column, size_t *off)
{
    size_t i = 0;
    for (size_t l = 0; l < line; l++) {
        const char *nl = memchr(d->text + i, '\n', d->len - i);
        if (!nl)
            return false;
        i = (size_t)(nl - d->text) + 1;
    }
    for (size_t c = 0; c < column; c++) {
        if (i >= d->len || d->text[i] == '\n')
            return false;
        for (i++; i < d->len && ((unsigned char)d->text[i] & 0xC0) == 0x80; i++)
            ;
    }
    *off = i;
    return true;
}

/* Whether the scalar's value is written verbatim on one line of the source (no escapes, no line
 * folding), and how many characters its opening quote takes. */
static bool scalar_verbatim(ynode s, size_t *quote)
{
    const char *v = sval(s);
    size_t n = s.n->data.scalar.length;
    yaml_scalar_style_t st = s.n->data.scalar.style;
    if (memchr(v, '\n', n) || (st != YAML_PLAIN_SCALAR_STYLE && st != YAML_SINGLE_QUOTED_SCALAR_STYLE &&
                               st != YAML_DOUBLE_QUOTED_SCALAR_STYLE))
        return false;
    if (st == YAML_SINGLE_QUOTED_SCALAR_STYLE && memchr(v, '\'', n))
        return false;
    if (st == YAML_DOUBLE_QUOTED_SCALAR_STYLE && (memchr(v, '\\', n) || memchr(v, '"', n)))
        return false;
    *quote = st == YAML_PLAIN_SCALAR_STYLE ? 0 : 1;
    size_t off;
    if (!source_offset(s.d, s.n->start_mark.line, s.n->start_mark.column, &off))
        return false;
    off += *quote;
    return off + n <= s.d->len && memcmp(s.d->text + off, v, n) == 0;
}

/* "FILE:LINE:COLUMN: " of byte `col` (1-based; 0 = none) inside a scalar's value: exact when the
 * value is written verbatim, else the scalar's own place. */
static bool fail_inside(builder *b, ynode s, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool fail_inside(builder *b, ynode s, size_t col, const char *fmt, ...)
{
    char msg[224];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t line = s.n->start_mark.line + 1, column = s.n->start_mark.column + 1, quote;
    if (col > 0 && col <= s.n->data.scalar.length + 1 && scalar_verbatim(s, &quote))
        column += quote + utf8_chars(sval(s), col - 1);
    return fail(b, "%s:%zu:%zu: %s", s.d->origin, line, column, msg);
}

/* ================================================================================================
 * Sections
 * ============================================================================================== */

/* A top-level section: the user's when given, else the base preset's. */
static ynode section(builder *b, const char *key)
{
    ynode v = map_get(b->user_root, key);
    if (!present(v) && b->base.loaded)
        v = map_get(b->base_root, key);
    return v;
}

static const char *const top_keys[] = {"name", "description", "base", "generation", "time_boundary",
                                       "auto_layers", "detect_categories", "layers", "additional_metrics",
                                       "post_read", "definitions", NULL};
static const char *const layer_keys[] = {"name", "display", "predicate", "parent", "size_layer",
                                         "unoverlapped", "derived", NULL};
static const char *const derived_keys[] = {"name", "predicate", "sized", NULL};
static const char *const additional_keys[] = {"name", "view", "formula", NULL};
static const char *const post_read_keys[] = {"ignored_file_patterns", "ignored_functions",
                                             "ignored_function_patterns", "io_cat_categories", "io_cat",
                                             "suffixes", "suffix_categories", "size_from_size_sum",
                                             "size_from_image_size", "missing_host", NULL};
static const char *const io_cat_keys[] = {"read", "write", "metadata", "pctl", "ipc", "sync", NULL};
static const int io_cat_codes[] = {DFS_IO_READ, DFS_IO_WRITE, DFS_IO_METADATA, DFS_IO_PCTL, DFS_IO_IPC,
                                   DFS_IO_SYNC};
static const char *const suffix_keys[] = {"marker", "suffix", NULL};

/* ---- predicates and formulas at load time ---- */

static bool check_predicate(builder *b, ynode v, const char *text, const char *what)
{
    dfs_pred_error perr;
    memset(&perr, 0, sizeof perr);
    dfs_pred *pred = dfs_pred_parse(text, &perr);
    if (!pred)
        return fail_inside(b, v, perr.column, "%s: predicate: %s", what, perr.message);
    dfs_pred_free(pred);
    return true;
}

static dfs_formula *formula_parse_at(const char *text, const dfs_formula_vars *vars, dfs_preset_error *err,
                                     size_t *errcol);

static bool check_formula(builder *b, ynode v, const char *text, const char *what)
{
    dfs_preset_error ferr;
    size_t col = 0;
    dfs_formula *f = formula_parse_at(text, NULL, &ferr, &col);
    if (!f)
        return fail_inside(b, v, col, "%s: formula: %s", what, ferr.message);
    dfs_formula_free(f);
    return true;
}

/* ---- layers ---- */

static bool is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* G2's display rule (§8.3): '_' to ' ', Python's str.title() (a letter after a non-letter is
 * upper-cased), then the substrings Posix, Stdio, Lustre and Ssd become POSIX, STDIO, (Lustre), (SSD). */
static const char *g2_display(builder *b, const char *key)
{
    static const char *const from[] = {"Posix", "Stdio", "Lustre", "Ssd"};
    static const char *const to[] = {"POSIX", "STDIO", "(Lustre)", "(SSD)"};
    char t[MAX_NAME_LEN + 1], out[4 * MAX_NAME_LEN];
    size_t n = strlen(key), o = 0; /* key is an identifier: n <= MAX_NAME_LEN */
    for (size_t i = 0; i < n; i++) {
        char c = key[i] == '_' ? ' ' : key[i];
        t[i] = (c >= 'a' && c <= 'z' && (i == 0 || !is_letter(t[i - 1]))) ? (char)(c - 'a' + 'A') : c;
    }
    t[n] = '\0';
    for (const char *s = t; *s;) {
        size_t k = 0;
        while (k < 4 && strncmp(s, from[k], strlen(from[k])) != 0)
            k++;
        size_t len = k < 4 ? strlen(to[k]) : 1;
        memcpy(out + o, k < 4 ? to[k] : s, len);
        o += len;
        s += k < 4 ? strlen(from[k]) : 1;
    }
    return copy_text(b, out, o);
}

static int find_layer(const dfs_preset_layer *layers, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(layers[i].name, name) == 0)
            return (int)i;
    return -1;
}

static bool read_derived_item(builder *b, ynode item, const dfs_preset_layer *layer, dfs_derived_metric *dm,
                              const dfs_derived_metric *earlier, size_t nearlier)
{
    char what[128];
    snprintf(what, sizeof what, "derived metric of layer '%s'", layer->name);
    if (!check_keys(b, item, derived_keys, what))
        return false;
    ynode name = map_get(item, "name"), pred = map_get(item, "predicate"), sized = map_get(item, "sized");
    if (!present(name) || !present(pred))
        return fail_at(b, item, "%s: needs 'name' and 'predicate'", what);
    if (!read_identifier(b, name, what, &dm->name))
        return false;
    for (size_t i = 0; i < nearlier; i++)
        if (strcmp(earlier[i].name, dm->name) == 0)
            return fail_at(b, name, "%s: duplicate name '%s'", what, dm->name);
    snprintf(what, sizeof what, "layer '%s', derived metric '%s'", layer->name, dm->name);
    if (is_null(pred))
        return fail_at(b, pred, "%s: a derived metric needs a predicate", what);
    if (!read_string(b, pred, what, &dm->predicate) || !check_predicate(b, pred, dm->predicate, what) ||
        !read_bool(b, sized, what, false, &dm->sized))
        return false;
    if (dm->sized && !layer->size_layer)
        return fail_at(b, sized, "%s: 'sized' needs a size layer (size_layer: true)", what);
    return true;
}

static bool read_derived(builder *b, ynode v, dfs_preset_layer *layer)
{
    if (!present(v) || is_null(v))
        return true;
    char what[96];
    snprintf(what, sizeof what, "derived metrics of layer '%s'", layer->name);
    if (!expect_type(b, v, YAML_SEQUENCE_NODE, what))
        return false;
    size_t n = seq_length(v);
    if (n > DFS_PRESET_MAX_DERIVED)
        return fail_at(b, v, "%s: %zu derived metrics, at most %d", what, n, DFS_PRESET_MAX_DERIVED);
    dfs_derived_metric *dm = alloc_zeroed(b, n, sizeof *dm);
    if (n && !dm)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!read_derived_item(b, seq_item(v, i), layer, &dm[i], dm, i))
            return false;
    layer->derived = dm;
    layer->nderived = n;
    return true;
}

/* parent: null, or the name of an earlier layer; a later one is a distinct mistake. */
static bool read_parent(builder *b, ynode v, ynode seq, dfs_preset_layer *layers, size_t i)
{
    const char *name;
    layers[i].parent = -1;
    if (!read_opt_string(b, v, "parent", &name))
        return false;
    if (!name)
        return true;
    layers[i].parent = find_layer(layers, i, name);
    if (layers[i].parent >= 0)
        return true;
    for (size_t j = i; j < seq_length(seq); j++) {
        ynode later = map_get(seq_item(seq, j), "name");
        if (is_scalar(later) && strcmp(sval(later), name) == 0)
            return fail_at(b, v, "layer '%s': parent '%.40s' must be defined before its children",
                           layers[i].name, name);
    }
    return fail_at(b, v, "layer '%s': unknown parent '%.40s'", layers[i].name, name);
}

static bool read_layer(builder *b, ynode item, ynode seq, dfs_preset_layer *layers, size_t i)
{
    dfs_preset_layer *l = &layers[i];
    if (!check_keys(b, item, layer_keys, "layer"))
        return false;
    ynode name = map_get(item, "name"), pred = map_get(item, "predicate");
    if (!present(name))
        return fail_at(b, item, "layer: needs a 'name'");
    if (!read_identifier(b, name, "layer name", &l->name))
        return false;
    if (find_layer(layers, i, l->name) >= 0)
        return fail_at(b, name, "duplicate layer '%s'", l->name);
    char what[96];
    snprintf(what, sizeof what, "layer '%s'", l->name);
    if (!present(pred))
        return fail_at(b, item, "%s: needs a 'predicate' (null selects every event)", what);
    if (!read_opt_string(b, pred, what, &l->predicate) ||
        (l->predicate && !check_predicate(b, pred, l->predicate, what)) ||
        !read_parent(b, map_get(item, "parent"), seq, layers, i) ||
        !read_bool(b, map_get(item, "size_layer"), what, false, &l->size_layer) ||
        !read_bool(b, map_get(item, "unoverlapped"), what, false, &l->unoverlapped) ||
        !read_opt_string(b, map_get(item, "display"), what, &l->display) ||
        !read_derived(b, map_get(item, "derived"), l))
        return false;
    if (l->display && l->display[0] == '\0')
        return fail_at(b, map_get(item, "display"), "%s: empty display name", what);
    if (!l->display)
        l->display = b->p->generation == DFS_GEN_G2 ? g2_display(b, l->name) : l->name;
    return l->display != NULL;
}

/* The reader of the predicates evaluates them as one set of at most DFS_PRED_MAX_SET texts. */
static bool check_predicate_count(builder *b, ynode seq)
{
    const char *seen[DFS_PRED_MAX_SET];
    size_t n = 0;
    for (size_t i = 0; i < b->p->nlayers; i++) {
        const dfs_preset_layer *l = &b->p->layers[i];
        for (size_t d = 0; d <= l->nderived; d++) {
            const char *t = d == 0 ? l->predicate : l->derived[d - 1].predicate;
            size_t k = 0;
            while (t && k < n && strcmp(seen[k], t) != 0)
                k++;
            if (!t || k < n)
                continue;
            if (n == DFS_PRED_MAX_SET)
                return fail_at(b, seq, "more than %d distinct predicates (layers and derived metrics)",
                               DFS_PRED_MAX_SET);
            seen[n++] = t;
        }
    }
    return true;
}

static bool read_layers(builder *b)
{
    ynode seq = section(b, "layers");
    if (!present(seq))
        return fail(b, "%s: no 'layers' section", b->user.origin);
    if (!expect_type(b, seq, YAML_SEQUENCE_NODE, "layers"))
        return false;
    size_t n = seq_length(seq);
    if (n == 0)
        return fail_at(b, seq, "layers: at least one layer is needed");
    if (n > DFS_PRESET_MAX_LAYERS)
        return fail_at(b, seq, "layers: %zu layers, at most %d", n, DFS_PRESET_MAX_LAYERS);
    dfs_preset_layer *layers = alloc_zeroed(b, n, sizeof *layers);
    if (!layers)
        return false;
    b->p->layers = layers;
    for (size_t i = 0; i < n; i++) {
        if (!read_layer(b, seq_item(seq, i), seq, layers, i))
            return false;
        b->p->nlayers = i + 1;
    }
    b->p->compute_layer = find_layer(layers, n, "compute");
    return check_predicate_count(b, seq);
}

/* ---- additional metrics ---- */

static bool read_additional_item(builder *b, ynode item, dfs_additional_metric *am,
                                 const dfs_additional_metric *earlier, size_t nearlier)
{
    if (!check_keys(b, item, additional_keys, "additional metric"))
        return false;
    ynode name = map_get(item, "name"), formula = map_get(item, "formula"), view = map_get(item, "view");
    if (!present(name) || !present(formula))
        return fail_at(b, item, "additional metric: needs 'name' and 'formula'");
    if (!read_identifier(b, name, "additional metric name", &am->name))
        return false;
    for (size_t i = 0; i < nearlier; i++)
        if (strcmp(earlier[i].name, am->name) == 0 &&
            (!earlier[i].view || !am->view || strcmp(earlier[i].view, am->view) == 0))
            return fail_at(b, name, "duplicate additional metric '%s'", am->name);
    char what[96];
    snprintf(what, sizeof what, "additional metric '%s'", am->name);
    if (present(view) && !is_null(view)) {
        if (!read_identifier(b, view, what, &am->view))
            return false;
        if (strcmp(am->view, "all") == 0)
            am->view = NULL;
    }
    return read_string(b, formula, what, &am->formula) && check_formula(b, formula, am->formula, what);
}

static bool read_additional(builder *b)
{
    ynode seq = section(b, "additional_metrics");
    if (!present(seq) || is_null(seq))
        return true;
    if (!expect_type(b, seq, YAML_SEQUENCE_NODE, "additional_metrics"))
        return false;
    size_t n = seq_length(seq);
    if (n > DFS_PRESET_MAX_ADDITIONAL)
        return fail_at(b, seq, "additional_metrics: %zu metrics, at most %d", n, DFS_PRESET_MAX_ADDITIONAL);
    dfs_additional_metric *am = alloc_zeroed(b, n, sizeof *am);
    if (n && !am)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!read_additional_item(b, seq_item(seq, i), &am[i], am, i))
            return false;
    b->p->additional = am;
    b->p->nadditional = n;
    return true;
}

/* ---- post_read ---- */

typedef struct post_maps {
    ynode user, base;          /* the post_read mappings, when present */
    ynode user_io, base_io;    /* their io_cat mappings */
} post_maps;

static ynode post_key(const post_maps *m, const char *key)
{
    ynode v = map_get(m->user, key);
    return present(v) ? v : map_get(m->base, key);
}

static bool check_post_maps(builder *b, post_maps *m)
{
    m->user = map_get(b->user_root, "post_read");
    m->base = b->base.loaded ? map_get(b->base_root, "post_read") : NO_NODE;
    if (!present(m->user) && !present(m->base))
        return fail(b, "%s: no 'post_read' section (or start from a shipped preset with 'base:')",
                    b->user.origin);
    ynode *maps[2][2] = {{&m->user, &m->user_io}, {&m->base, &m->base_io}};
    for (int i = 0; i < 2; i++) {
        if (!present(*maps[i][0]))
            continue;
        if (!check_keys(b, *maps[i][0], post_read_keys, "post_read"))
            return false;
        *maps[i][1] = map_get(*maps[i][0], "io_cat");
        if (present(*maps[i][1]) && !check_keys(b, *maps[i][1], io_cat_keys, "post_read.io_cat"))
            return false;
    }
    return true;
}

static bool read_io_cats(builder *b, const post_maps *m, dfs_post_read *pr)
{
    for (size_t i = 0; io_cat_keys[i]; i++) {
        ynode v = map_get(m->user_io, io_cat_keys[i]);
        if (!present(v))
            v = map_get(m->base_io, io_cat_keys[i]);
        char what[48];
        snprintf(what, sizeof what, "post_read.io_cat.%s", io_cat_keys[i]);
        if (!read_string_list(b, v, what, LIST_NONEMPTY, &pr->io_cat_names[io_cat_codes[i]]))
            return false;
    }
    return true;
}

static bool read_suffixes(builder *b, ynode v, dfs_post_read *pr)
{
    if (!present(v) || is_null(v))
        return true;
    if (!expect_type(b, v, YAML_SEQUENCE_NODE, "post_read.suffixes"))
        return false;
    size_t n = seq_length(v);
    if (n > DFS_PRESET_MAX_SUFFIXES)
        return fail_at(b, v, "post_read.suffixes: %zu rules, at most %d", n, DFS_PRESET_MAX_SUFFIXES);
    dfs_suffix_rule *rules = alloc_zeroed(b, n, sizeof *rules);
    if (n && !rules)
        return false;
    for (size_t i = 0; i < n; i++) {
        ynode item = seq_item(v, i), marker, suffix;
        if (!check_keys(b, item, suffix_keys, "suffix rule"))
            return false;
        marker = map_get(item, "marker");
        suffix = map_get(item, "suffix");
        if (!present(marker) || !present(suffix))
            return fail_at(b, item, "suffix rule: needs 'marker' and 'suffix'");
        if (!read_string(b, marker, "suffix rule marker", &rules[i].marker) ||
            !read_string(b, suffix, "suffix rule suffix", &rules[i].suffix))
            return false;
        if (rules[i].marker[0] == '\0' || rules[i].suffix[0] == '\0')
            return fail_at(b, item, "suffix rule: empty marker or suffix");
        if (has_upper(rules[i].suffix))
            return fail_at(b, suffix, "suffix rule: the suffix '%.40s' must be lower-case", rules[i].suffix);
    }
    pr->suffixes = rules;
    pr->nsuffixes = n;
    return true;
}

static bool read_post_lists(builder *b, const post_maps *m, dfs_post_read *pr)
{
    struct {
        const char *key;
        dfs_string_list *out;
        unsigned flags;
    } lists[] = {
        {"ignored_file_patterns", &pr->ignored_file_patterns, LIST_NONEMPTY},
        {"ignored_functions", &pr->ignored_functions, LIST_NONEMPTY},
        {"ignored_function_patterns", &pr->ignored_function_patterns, LIST_NONEMPTY},
        {"io_cat_categories", &pr->io_cat_categories, LIST_NONEMPTY},
        {"suffix_categories", &pr->suffix_categories, LIST_NONEMPTY | LIST_LOWER},
    };
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        char what[48];
        snprintf(what, sizeof what, "post_read.%s", lists[i].key);
        if (!read_string_list(b, post_key(m, lists[i].key), what, lists[i].flags, lists[i].out))
            return false;
    }
    return true;
}

static bool read_post_read(builder *b)
{
    post_maps m = {NO_NODE, NO_NODE, NO_NODE, NO_NODE};
    dfs_post_read *pr = &b->p->post_read;
    static const char *const hosts[] = {"hash", "na", NULL};
    int host = b->p->generation == DFS_GEN_G2 ? DFS_MISSING_HOST_NA : DFS_MISSING_HOST_HASH;
    ynode host_node;
    if (!check_post_maps(b, &m) || !read_post_lists(b, &m, pr) || !read_io_cats(b, &m, pr) ||
        !read_suffixes(b, post_key(&m, "suffixes"), pr) ||
        !read_bool(b, post_key(&m, "size_from_size_sum"), "post_read.size_from_size_sum", true,
                   &pr->size_from_size_sum) ||
        !read_bool(b, post_key(&m, "size_from_image_size"), "post_read.size_from_image_size",
                   b->p->generation == DFS_GEN_G3, &pr->size_from_image_size))
        return false;
    host_node = post_key(&m, "missing_host");
    if (present(host_node) && !read_choice(b, host_node, "post_read.missing_host", hosts, &host))
        return false;
    pr->missing_host = host == 1 ? DFS_MISSING_HOST_NA : DFS_MISSING_HOST_HASH;
    return true;
}

/* ---- the top level ---- */

/* The default name of a user preset: its file name without directory and extension. */
static const char *origin_stem(builder *b)
{
    const char *s = strrchr(b->user.origin, '/');
    s = s ? s + 1 : b->user.origin;
    const char *dot = strrchr(s, '.');
    size_t n = dot ? (size_t)(dot - s) : strlen(s);
    return n ? copy_text(b, s, n) : "user";
}

static bool read_header(builder *b)
{
    static const char *const gens[] = {"g2", "g3", NULL};
    ynode gen = section(b, "generation");
    int g = 1;
    if (present(gen) && !read_choice(b, gen, "generation", gens, &g))
        return false;
    b->p->generation = g == 0 ? DFS_GEN_G2 : DFS_GEN_G3;
    /* a user file never inherits the base's name: it is a different preset */
    ynode name = map_get(b->user_root, "name");
    if (present(name)) {
        if (!read_string(b, name, "name", &b->p->name))
            return false;
        if (b->p->name[0] == '\0')
            return fail_at(b, name, "name: empty");
    } else if (!(b->p->name = origin_stem(b))) {
        return false;
    }
    return read_opt_string(b, section(b, "description"), "description", &b->p->description) &&
           read_bool(b, section(b, "auto_layers"), "auto_layers", false, &b->p->auto_layers) &&
           read_string_list(b, section(b, "detect_categories"), "detect_categories",
                            LIST_NONEMPTY | LIST_LOWER, &b->p->detect_categories);
}

static bool read_time_boundary(builder *b)
{
    ynode v = section(b, "time_boundary");
    const char *name;
    b->p->time_boundary = -1;
    if (!read_opt_string(b, v, "time_boundary", &name))
        return false;
    if (!name)
        return true;
    b->p->time_boundary = find_layer(b->p->layers, b->p->nlayers, name);
    if (b->p->time_boundary < 0)
        return fail_at(b, v, "time_boundary: '%.40s' is not a layer", name);
    return true;
}

static bool build(builder *b)
{
    return read_header(b) && read_layers(b) && read_time_boundary(b) && read_additional(b) &&
           read_post_read(b);
}

/* ================================================================================================
 * Loading
 * ============================================================================================== */

static bool yaml_error(builder *b, ydoc *d, const yaml_parser_t *ps)
{
    if (ps->error == YAML_MEMORY_ERROR)
        return fail_nomem(b);
    if (ps->error == YAML_READER_ERROR)
        return fail(b, "%s: invalid YAML input at byte %zu: %s", d->origin, ps->problem_offset,
                    ps->problem ? ps->problem : "?");
    if (ps->context)
        return fail(b, "%s:%zu:%zu: YAML syntax error: %s %s", d->origin, ps->problem_mark.line + 1,
                    ps->problem_mark.column + 1, ps->problem ? ps->problem : "?", ps->context);
    return fail(b, "%s:%zu:%zu: YAML syntax error: %s", d->origin, ps->problem_mark.line + 1,
                ps->problem_mark.column + 1, ps->problem ? ps->problem : "?");
}

/* Parses one YAML document; a second document in the same text is refused. */
static bool load_doc(builder *b, ydoc *d, const char *origin, const char *text, size_t len, ynode *root)
{
    snprintf(d->origin, sizeof d->origin, "%s", origin);
    d->text = text;
    d->len = len;
    if (len > MAX_YAML_BYTES)
        return fail(b, "%s: %zu bytes, a preset has at most %zu", d->origin, len, MAX_YAML_BYTES);
    yaml_parser_t ps;
    if (!yaml_parser_initialize(&ps))
        return fail_nomem(b);
    yaml_parser_set_input_string(&ps, (const unsigned char *)text, len);
    bool ok = yaml_parser_load(&ps, &d->doc);
    if (!ok) {
        yaml_error(b, d, &ps);
    } else {
        d->loaded = true;
        yaml_document_t extra;
        if (!yaml_parser_load(&ps, &extra)) {
            ok = yaml_error(b, d, &ps);
        } else {
            bool more = yaml_document_get_root_node(&extra) != NULL;
            yaml_document_delete(&extra);
            if (more)
                ok = fail(b, "%s: more than one YAML document", d->origin);
        }
    }
    yaml_parser_delete(&ps);
    if (!ok)
        return false;
    root->d = d;
    root->n = yaml_document_get_root_node(&d->doc);
    if (!root->n)
        return fail(b, "%s: empty preset", d->origin);
    return check_keys(b, *root, top_keys, "the preset");
}

static bool load_base(builder *b)
{
    ynode v = map_get(b->user_root, "base");
    const char *name;
    if (!present(v))
        return true;
    if (!read_string(b, v, "base", &name))
        return false;
    int i = builtin_index(name);
    if (i < 0)
        return fail_at(b, v, "base: '%.40s' is not a shipped preset", name);
    char origin[64];
    snprintf(origin, sizeof origin, "presets/%s.yaml", name);
    if (!load_doc(b, &b->base, origin, (const char *)dfs_preset_builtin_texts_[i],
                  dfs_preset_builtin_lengths_[i], &b->base_root))
        return false;
    if (present(map_get(b->base_root, "base")))
        return fail_at(b, map_get(b->base_root, "base"), "a shipped preset cannot itself have a base");
    return true;
}

static void builder_free(builder *b)
{
    if (b->user.loaded)
        yaml_document_delete(&b->user.doc);
    if (b->base.loaded)
        yaml_document_delete(&b->base.doc);
    if (b->box) {
        dfs_arena_free(&b->box->arena);
        free(b->box);
    }
}

dfs_preset *dfs_preset_parse(const char *yaml, size_t len, const char *origin, dfs_preset_error *err)
{
    dfs_preset_error scratch;
    builder b;
    memset(&b, 0, sizeof b);
    b.err = err ? err : &scratch;
    b.err->message[0] = '\0';
    b.box = calloc(1, sizeof *b.box);
    if (!b.box) {
        fail_nomem(&b);
        return NULL;
    }
    dfs_arena_init(&b.box->arena, 16 * 1024);
    b.p = &b.box->pub;
    b.p->time_boundary = b.p->compute_layer = -1;
    if (!yaml) {
        yaml = "";
        len = 0;
    }
    bool ok = load_doc(&b, &b.user, origin ? origin : "<preset>", yaml, len, &b.user_root) && load_base(&b) &&
              build(&b);
    dfs_preset *p = NULL;
    if (ok) {
        p = b.p;
        b.box = NULL;
    }
    builder_free(&b);
    return p;
}

void dfs_preset_free(dfs_preset *p)
{
    if (!p)
        return;
    preset_box *box = (preset_box *)p;
    dfs_arena_free(&box->arena);
    free(box);
}

static bool is_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n > 5 && strcmp(s + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(s + n - 4, ".yml") == 0);
}

static void set_error(dfs_preset_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(dfs_preset_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    set_message(err, fmt, ap);
    va_end(ap);
}

/* The whole file in a malloc'd buffer (NUL-terminated), refusing files over the size limit. */
static char *read_file(const char *path, size_t *len, dfs_preset_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        set_error(err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(MAX_YAML_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_YAML_BYTES + 1, f) : 0;
    bool bad = !buf || ferror(f) || n > MAX_YAML_BYTES;
    fclose(f);
    if (bad) {
        const char *why = !buf ? "out of memory" : n > MAX_YAML_BYTES ? "larger than 1 MiB" : "read error";
        set_error(err, "%s: %s", path, why);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

dfs_preset *dfs_preset_load(const char *name_or_path, dfs_preset_error *err)
{
    if (!name_or_path) {
        set_error(err, "no preset named");
        return NULL;
    }
    if (is_path(name_or_path)) {
        size_t len;
        char *text = read_file(name_or_path, &len, err);
        if (!text)
            return NULL;
        dfs_preset *p = dfs_preset_parse(text, len, name_or_path, err);
        free(text);
        return p;
    }
    int i = builtin_index(name_or_path);
    if (i < 0) {
        char names[128];
        list_words(dfs_preset_builtin_names_, names, sizeof names);
        set_error(err, "unknown preset '%.40s' (shipped: %s; a file path contains '/' or ends in .yaml)",
                  name_or_path, names);
        return NULL;
    }
    char origin[64];
    snprintf(origin, sizeof origin, "presets/%s.yaml", name_or_path);
    return dfs_preset_parse((const char *)dfs_preset_builtin_texts_[i], dfs_preset_builtin_lengths_[i],
                            origin, err);
}

int dfs_preset_layer_index(const dfs_preset *p, const char *name)
{
    return p && name ? find_layer(p->layers, p->nlayers, name) : -1;
}

/* ================================================================================================
 * Formulas
 *
 * The text is expanded (placeholders replaced) with a map from each expanded byte back to its
 * column in the original, then tokenized and parsed by recursive descent into a postfix program.
 * Nesting is bounded, which bounds both the recursion and the evaluation stack.
 * ============================================================================================== */

#define FORMULA_MAX_TEXT 4096
#define FORMULA_MAX_EXPANDED 16384
#define FORMULA_MAX_DEPTH 64
#define FORMULA_MAX_COLUMNS 64
#define FORMULA_MAX_STACK 256

typedef enum fop_kind { F_NUM, F_COL, F_ADD, F_SUB, F_MUL, F_DIV, F_NEG } fop_kind;

typedef struct fop {
    fop_kind kind;
    uint32_t col; /* F_COL */
    double num;   /* F_NUM */
} fop;

struct dfs_formula {
    fop *ops;
    size_t nops;
    char **cols;
    size_t ncols;
    dfs_arena arena;
};

typedef enum ftok_kind {
    FT_END, FT_NUM, FT_IDENT, FT_PLUS, FT_MINUS, FT_STAR, FT_SLASH, FT_LP, FT_RP
} ftok_kind;

typedef struct ftok {
    ftok_kind kind;
    size_t pos, len; /* in the expanded text */
    double num;
} ftok;

typedef struct fparser {
    char *text;     /* expanded, NUL-terminated */
    size_t len;
    size_t *orig;   /* orig[i]: 1-based column in the original text of expanded byte i (len + 1 entries) */
    ftok tok;
    size_t next;    /* scan position */
    unsigned depth;
    size_t stack, max_stack;
    dfs_formula *f;
    dfs_preset_error *err;
    size_t errcol;
    bool failed;
} fparser;

static void ffail_v(fparser *ps, size_t col, const char *fmt, va_list ap)
{
    if (ps->failed)
        return;
    ps->failed = true;
    ps->tok.kind = FT_END;
    ps->errcol = col;
    char msg[200];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (col)
        snprintf(ps->err->message, sizeof ps->err->message, "%s at column %zu", msg, col);
    else
        snprintf(ps->err->message, sizeof ps->err->message, "%s", msg);
}

/* An error at 1-based column `col` of the original text (0: no place). */
static void ffail_col(fparser *ps, size_t col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ffail_col(fparser *ps, size_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ffail_v(ps, col, fmt, ap);
    va_end(ap);
}

/* An error at byte `pos` of the expanded text, placed in the original. */
static void ffail(fparser *ps, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ffail(fparser *ps, size_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ffail_v(ps, ps->orig[pos], fmt, ap);
    va_end(ap);
}

/* ---- placeholder expansion ---- */

typedef struct growbuf {
    char *s;
    size_t *orig;
    size_t len;
} growbuf;

static bool emit_bytes(growbuf *g, const char *s, size_t n, size_t col)
{
    if (g->len + n > FORMULA_MAX_EXPANDED)
        return false;
    for (size_t i = 0; i < n; i++) {
        g->s[g->len] = s[i];
        g->orig[g->len++] = col;
    }
    return true;
}

/* The text that replaces the placeholder `name` (between the braces); NULL when unknown. */
static const char *placeholder_value(const dfs_formula_vars *vars, const char *name, size_t n, char *buf,
                                     size_t cap)
{
    if (n == 11 && memcmp(name, "time_metric", 11) == 0)
        return vars->time_metric;
    if (n == 7 && memcmp(name, "epsilon", 7) == 0)
        snprintf(buf, cap, "%.17g", vars->epsilon);
    else if (n == 13 && memcmp(name, "time_interval", 13) == 0)
        snprintf(buf, cap, "%.17g", vars->time_interval);
    else
        return NULL;
    return buf;
}

static bool expand(fparser *ps, const char *text, const dfs_formula_vars *vars)
{
    size_t n = strlen(text);
    growbuf g = {malloc(FORMULA_MAX_EXPANDED + 1), malloc((FORMULA_MAX_EXPANDED + 1) * sizeof(size_t)), 0};
    ps->text = g.s;
    ps->orig = g.orig;
    if (!g.s || !g.orig) {
        ffail_col(ps, 0, "out of memory");
        return false;
    }
    char number[40];
    for (size_t i = 0; i < n;) {
        size_t take = 1, piece_len = 1;
        const char *piece = text + i;
        if (text[i] == '{') {
            const char *close = memchr(text + i, '}', n - i);
            if (!close) {
                ffail_col(ps, i + 1, "unterminated placeholder '{'");
                return false;
            }
            take = (size_t)(close - text) + 1 - i;
            piece = placeholder_value(vars, text + i + 1, take - 2, number, sizeof number);
            if (!piece) {
                ffail_col(ps, i + 1,
                          "unknown placeholder '%.*s' (expected {time_metric}, {epsilon} or {time_interval})",
                          (int)(take > 40 ? 40 : take), text + i);
                return false;
            }
            piece_len = strlen(piece);
        }
        if (!emit_bytes(&g, piece, piece_len, i + 1)) {
            ffail_col(ps, i + 1, "formula too long after placeholder substitution");
            return false;
        }
        i += take;
    }
    g.s[g.len] = '\0';
    g.orig[g.len] = n + 1; /* the end of the formula */
    ps->len = g.len;
    return true;
}

/* ---- tokens ---- */

static bool fis_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool fis_ident(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && fis_digit(c));
}

/* A decimal number: digits [. digits] [e [+-] digits], at least one digit before the exponent. */
static void scan_number(fparser *ps, ftok *t)
{
    const char *s = ps->text;
    size_t i = t->pos, digits = 0;
    for (; fis_digit(s[i]); i++)
        digits++;
    if (s[i] == '.')
        for (i++; fis_digit(s[i]); i++)
            digits++;
    if (digits && (s[i] == 'e' || s[i] == 'E')) {
        size_t e = i + 1 + (s[i + 1] == '+' || s[i + 1] == '-');
        if (fis_digit(s[e]))
            for (i = e; fis_digit(s[i]); i++)
                ;
    }
    t->len = i - t->pos;
    if (!digits || fis_ident(s[i], false) || s[i] == '.') {
        ffail(ps, t->pos, "invalid number");
        return;
    }
    t->num = strtod(s + t->pos, NULL);
    if (!isfinite(t->num))
        ffail(ps, t->pos, "number out of range");
}

static void next_token(fparser *ps)
{
    const char *s = ps->text;
    while (s[ps->next] == ' ' || s[ps->next] == '\t' || s[ps->next] == '\n' || s[ps->next] == '\r')
        ps->next++;
    ftok t = {FT_END, ps->next, 1, 0};
    char c = s[ps->next];
    static const char ops[] = "+-*/()";
    static const ftok_kind kinds[] = {FT_PLUS, FT_MINUS, FT_STAR, FT_SLASH, FT_LP, FT_RP};
    const char *op = c ? strchr(ops, c) : NULL;
    if (c == '\0') {
        t.len = 0;
    } else if (op) {
        t.kind = kinds[op - ops];
    } else if (fis_digit(c) || c == '.') {
        t.kind = FT_NUM;
        scan_number(ps, &t);
    } else if (fis_ident(c, true)) {
        t.kind = FT_IDENT;
        while (fis_ident(s[t.pos + t.len], false))
            t.len++;
    } else {
        ffail(ps, t.pos, (unsigned char)c >= 0x20 && (unsigned char)c < 0x7f ? "unexpected character '%c'"
                                                                            : "unexpected byte 0x%02x",
              (unsigned char)c);
    }
    if (ps->failed)
        return;
    ps->next = t.pos + t.len;
    ps->tok = t;
}

static void describe_token(const fparser *ps, char *buf, size_t n)
{
    if (ps->tok.kind == FT_END)
        snprintf(buf, n, "the end of the formula");
    else
        snprintf(buf, n, "'%.*s'", (int)(ps->tok.len > 24 ? 24 : ps->tok.len), ps->text + ps->tok.pos);
}

/* ---- parser: emits the postfix program ---- */

static void emit(fparser *ps, fop op)
{
    if (ps->failed)
        return;
    if (op.kind == F_NUM || op.kind == F_COL)
        ps->stack++;
    else if (op.kind != F_NEG)
        ps->stack--;
    if (ps->stack > ps->max_stack)
        ps->max_stack = ps->stack;
    if (ps->max_stack > FORMULA_MAX_STACK) {
        ffail(ps, ps->tok.pos, "formula too complex");
        return;
    }
    ps->f->ops[ps->f->nops++] = op; /* ops has room for one op per token */
}

static uint32_t intern_column(fparser *ps, const char *s, size_t n, size_t pos)
{
    dfs_formula *f = ps->f;
    for (size_t i = 0; i < f->ncols; i++)
        if (strlen(f->cols[i]) == n && memcmp(f->cols[i], s, n) == 0)
            return (uint32_t)i;
    if (f->ncols == FORMULA_MAX_COLUMNS) {
        ffail(ps, pos, "more than %d distinct columns", FORMULA_MAX_COLUMNS);
        return 0;
    }
    f->cols[f->ncols] = dfs_arena_strdup(&f->arena, s, n);
    if (!f->cols[f->ncols]) {
        ffail(ps, pos, "out of memory");
        return 0;
    }
    return (uint32_t)f->ncols++;
}

static void parse_expr(fparser *ps);

static bool enter(fparser *ps)
{
    if (++ps->depth > FORMULA_MAX_DEPTH) {
        ffail(ps, ps->tok.pos, "formula nested too deeply");
        return false;
    }
    return true;
}

static void parse_factor(fparser *ps)
{
    char found[40];
    ftok t = ps->tok;
    if (t.kind == FT_NUM || t.kind == FT_IDENT) {
        fop op = {t.kind == FT_NUM ? F_NUM : F_COL, 0, t.num};
        if (t.kind == FT_IDENT)
            op.col = intern_column(ps, ps->text + t.pos, t.len, t.pos);
        next_token(ps);
        emit(ps, op);
    } else if ((t.kind == FT_MINUS || t.kind == FT_LP) && enter(ps)) {
        next_token(ps);
        if (t.kind == FT_MINUS) {
            parse_factor(ps);
            emit(ps, (fop){F_NEG, 0, 0});
        } else {
            parse_expr(ps);
            if (!ps->failed && ps->tok.kind != FT_RP) {
                describe_token(ps, found, sizeof found);
                ffail(ps, ps->tok.pos, "expected ')' to close the '(' at column %zu, found %s",
                      ps->orig[t.pos], found);
            }
            next_token(ps);
        }
        ps->depth--;
    } else if (!ps->failed) {
        describe_token(ps, found, sizeof found);
        ffail(ps, t.pos, "expected a number, a column, '(' or '-', found %s", found);
    }
}

static void parse_term(fparser *ps)
{
    parse_factor(ps);
    while (!ps->failed && (ps->tok.kind == FT_STAR || ps->tok.kind == FT_SLASH)) {
        fop op = {ps->tok.kind == FT_STAR ? F_MUL : F_DIV, 0, 0};
        next_token(ps);
        parse_factor(ps);
        emit(ps, op);
    }
}

static void parse_expr(fparser *ps)
{
    parse_term(ps);
    while (!ps->failed && (ps->tok.kind == FT_PLUS || ps->tok.kind == FT_MINUS)) {
        fop op = {ps->tok.kind == FT_PLUS ? F_ADD : F_SUB, 0, 0};
        next_token(ps);
        parse_term(ps);
        emit(ps, op);
    }
}

static bool parse_program(fparser *ps)
{
    dfs_formula *f = ps->f;
    /* every token gives at most one op, and a token takes at least one byte */
    f->ops = dfs_arena_alloc(&f->arena, (ps->len + 1) * sizeof *f->ops);
    f->cols = dfs_arena_alloc(&f->arena, FORMULA_MAX_COLUMNS * sizeof *f->cols);
    if (!f->ops || !f->cols) {
        ffail_col(ps, 0, "out of memory");
        return false;
    }
    next_token(ps);
    if (!ps->failed && ps->tok.kind == FT_END)
        ffail_col(ps, 0, "empty formula");
    parse_expr(ps);
    if (!ps->failed && ps->tok.kind != FT_END) {
        char found[40];
        describe_token(ps, found, sizeof found);
        ffail(ps, ps->tok.pos, "expected an operator or the end of the formula, found %s", found);
    }
    return !ps->failed;
}

static bool vars_ok(fparser *ps, const dfs_formula_vars *vars)
{
    if (!vars->time_metric || !isfinite(vars->epsilon) || !isfinite(vars->time_interval)) {
        ffail_col(ps, 0, "invalid placeholder values (time_metric missing, or a value not finite)");
        return false;
    }
    return true;
}

static dfs_formula *formula_parse_at(const char *text, const dfs_formula_vars *vars, dfs_preset_error *err,
                                     size_t *errcol)
{
    static const dfs_formula_vars defaults = {"time_sum", DEFAULT_EPSILON, 1.0};
    dfs_preset_error scratch;
    fparser ps;
    memset(&ps, 0, sizeof ps);
    ps.err = err ? err : &scratch;
    ps.err->message[0] = '\0';
    if (!text || strlen(text) > FORMULA_MAX_TEXT) {
        if (text)
            ffail_col(&ps, 0, "formula longer than %d bytes", FORMULA_MAX_TEXT);
        else
            ffail_col(&ps, 0, "no formula");
        *errcol = 0;
        return NULL;
    }
    ps.f = calloc(1, sizeof *ps.f);
    if (ps.f)
        dfs_arena_init(&ps.f->arena, 4096);
    bool ok = ps.f && vars_ok(&ps, vars ? vars : &defaults) && expand(&ps, text, vars ? vars : &defaults) &&
              parse_program(&ps);
    if (!ps.f)
        ffail_col(&ps, 0, "out of memory");
    free(ps.text);
    free(ps.orig);
    *errcol = ps.errcol;
    if (!ok) {
        dfs_formula_free(ps.f);
        return NULL;
    }
    return ps.f;
}

dfs_formula *dfs_formula_parse(const char *text, const dfs_formula_vars *vars, dfs_preset_error *err)
{
    size_t col;
    return formula_parse_at(text, vars, err, &col);
}

void dfs_formula_free(dfs_formula *f)
{
    if (!f)
        return;
    dfs_arena_free(&f->arena);
    free(f);
}

size_t dfs_formula_ncolumns(const dfs_formula *f)
{
    return f ? f->ncols : 0;
}

const char *dfs_formula_column(const dfs_formula *f, size_t i)
{
    return f && i < f->ncols ? f->cols[i] : NULL;
}

/* Null (false) on a null column, a division by zero and a result that is not finite. */
bool dfs_formula_eval(const dfs_formula *f, dfs_formula_lookup lookup, void *user, double *out)
{
    double vals[FORMULA_MAX_COLUMNS], st[FORMULA_MAX_STACK];
    size_t sp = 0;
    if (!f || !lookup)
        return false;
    for (size_t i = 0; i < f->ncols; i++)
        if (!lookup(user, f->cols[i], &vals[i]) || !isfinite(vals[i]))
            return false;
    for (size_t i = 0; i < f->nops; i++) {
        const fop *op = &f->ops[i];
        if (op->kind == F_NUM || op->kind == F_COL) {
            st[sp++] = op->kind == F_NUM ? op->num : vals[op->col];
            continue;
        }
        if (op->kind == F_NEG) {
            st[sp - 1] = -st[sp - 1];
            continue;
        }
        double r = st[--sp], l = st[sp - 1];
        if (op->kind == F_DIV && r == 0)
            return false;
        st[sp - 1] = op->kind == F_ADD   ? l + r
                     : op->kind == F_SUB ? l - r
                     : op->kind == F_MUL ? l * r
                                         : l / r;
    }
    if (sp != 1 || !isfinite(st[0]))
        return false;
    *out = st[0];
    return true;
}
