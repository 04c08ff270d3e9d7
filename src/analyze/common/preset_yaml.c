/* preset_yaml.c - typed reading of the nodes of a preset's YAML documents (libyaml's document
 * API, which resolves anchors and aliases), and the messages of every failure to load a preset.
 *
 * Scalars are typed by the YAML 1.2 core schema when plain (quoted ones are strings), mappings
 * are checked against a strict list of keys, and values are copied into the preset's arena.
 * Invariants: every message names the file, line and column of the node at fault (of the
 * character at fault inside a scalar written verbatim), whichever document the node comes from;
 * the first failure of a builder is the one reported. */
#include "analyze/common/preset_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/suggest.h"

/* ---- failures ---- */

void preset_set_message(dfs_preset_error *err, const char *fmt, va_list ap)
{
    vsnprintf(err->message, sizeof err->message, fmt, ap);
}

/* Every failure goes through here: the first message wins, later ones are consequences. */
bool preset_fail(builder *b, const char *fmt, ...)
{
    if (b->failed)
        return false;
    b->failed = true;
    va_list ap;
    va_start(ap, fmt);
    preset_set_message(b->err, fmt, ap);
    va_end(ap);
    return false;
}

/* "FILE:LINE:COLUMN: message" at a node (1-based line and column). */
bool preset_fail_at(builder *b, ynode at, const char *fmt, ...)
{
    if (b->failed)
        return false;
    char msg[224];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!at.n)
        return preset_fail(b, "%s: %s", b->user.origin, msg);
    return preset_fail(b, "%s:%zu:%zu: %s", at.d->origin, at.n->start_mark.line + 1,
                       at.n->start_mark.column + 1, msg);
}

bool preset_fail_nomem(builder *b)
{
    return preset_fail(b, "out of memory");
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
    const char *s = preset_sval(n);
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

bool preset_is_null(ynode n)
{
    return preset_is_scalar(n) && scalar_kind(n, NULL) == SK_NULL;
}

/* ---- mappings ---- */

#define FOR_PAIRS(map, pair)                                                                       \
    for (yaml_node_pair_t *pair = (map).n->data.mapping.pairs.start;                               \
         pair < (map).n->data.mapping.pairs.top; pair++)

bool preset_expect_type(builder *b, ynode n, yaml_node_type_t type, const char *what)
{
    if (n.n->type == type)
        return true;
    const char *want = type == YAML_MAPPING_NODE    ? "a mapping"
                       : type == YAML_SEQUENCE_NODE ? "a sequence"
                                                    : "a scalar";
    return preset_fail_at(b, n, "%s: expected %s, found %s", what, want, kind_name(n));
}

void preset_list_words(const char *const *words, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; words[i] && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? ", " : "", words[i]);
}

/* Strict schema: every key is a plain string from `allowed`, and no key appears twice. */
bool preset_check_keys(builder *b, ynode map, const char *const *allowed, const char *what)
{
    if (!preset_expect_type(b, map, YAML_MAPPING_NODE, what))
        return false;
    FOR_PAIRS(map, pair) {
        ynode key = preset_doc_node(map.d, pair->key);
        if (!preset_is_scalar(key) || scalar_kind(key, NULL) == SK_NULL)
            return preset_fail_at(b, key, "%s: a key must be a string, found %s", what, kind_name(key));
        if (!is_any_of(preset_sval(key), allowed)) {
            char words[160];
            preset_list_words(allowed, words, sizeof words);
            dfs_suggest s;
            dfs_suggest_init(&s, preset_sval(key));
            for (const char *const *a = allowed; *a; a++)
                dfs_suggest_offer(&s, *a);
            const char *guess = dfs_suggest_best(&s);
            return preset_fail_at(b, key, "unknown key '%.40s' in %s (expected one of: %s)%s%s%s", preset_sval(key),
                                  what, words, guess ? ". Did you mean '" : "", guess ? guess : "", guess ? "'?" : "");
        }
        for (yaml_node_pair_t *q = map.n->data.mapping.pairs.start; q < pair; q++)
            if (strcmp((const char *)yaml_document_get_node(&map.d->doc, q->key)->data.scalar.value,
                       preset_sval(key)) == 0)
                return preset_fail_at(b, key, "duplicate key '%.40s' in %s", preset_sval(key), what);
    }
    return true;
}

/* The value of `key` (keys already checked), or NO_NODE. */
ynode preset_map_get(ynode map, const char *key)
{
    if (!map.n || map.n->type != YAML_MAPPING_NODE)
        return NO_NODE;
    FOR_PAIRS(map, pair) {
        ynode k = preset_doc_node(map.d, pair->key);
        if (preset_is_scalar(k) && strcmp(preset_sval(k), key) == 0)
            return preset_doc_node(map.d, pair->value);
    }
    return NO_NODE;
}

/* ---- typed values, copied into the preset's arena ---- */

void *preset_alloc_zeroed(builder *b, size_t count, size_t size)
{
    if (count == 0)
        return NULL;
    if (size && count > SIZE_MAX / size) {
        preset_fail_nomem(b);
        return NULL;
    }
    void *m = dfs_arena_alloc(&b->box->arena, count * size);
    if (!m)
        preset_fail_nomem(b);
    else
        memset(m, 0, count * size);
    return m;
}

const char *preset_copy_text(builder *b, const char *s, size_t n)
{
    const char *c = dfs_arena_strdup(&b->box->arena, s, n);
    if (!c)
        preset_fail_nomem(b);
    return c;
}

/* A string scalar (plain, not null/bool/number, or quoted); NUL bytes are refused. */
bool preset_read_string(builder *b, ynode v, const char *what, const char **out)
{
    if (!preset_is_scalar(v) || scalar_kind(v, NULL) != SK_STRING)
        return preset_fail_at(b, v, "%s: expected a string, found %s", what, kind_name(v));
    size_t n = v.n->data.scalar.length;
    if (strlen(preset_sval(v)) != n)
        return preset_fail_at(b, v, "%s: the string contains a NUL character", what);
    *out = preset_copy_text(b, preset_sval(v), n);
    return *out != NULL;
}

/* A string or null (*out = NULL). */
bool preset_read_opt_string(builder *b, ynode v, const char *what, const char **out)
{
    *out = NULL;
    if (!preset_present(v) || preset_is_null(v))
        return true;
    return preset_read_string(b, v, what, out);
}

bool preset_read_bool(builder *b, ynode v, const char *what, bool dflt, bool *out)
{
    *out = dflt;
    if (!preset_present(v))
        return true;
    if (!preset_is_scalar(v) || scalar_kind(v, out) != SK_BOOL)
        return preset_fail_at(b, v, "%s: expected true or false, found %s", what, kind_name(v));
    return true;
}

/* One of `words` (returned as its index). */
bool preset_read_choice(builder *b, ynode v, const char *what, const char *const *words, int *out)
{
    if (preset_is_scalar(v) && scalar_kind(v, NULL) == SK_STRING)
        for (int i = 0; words[i]; i++)
            if (strcmp(preset_sval(v), words[i]) == 0) {
                *out = i;
                return true;
            }
    char list[96];
    preset_list_words(words, list, sizeof list);
    if (preset_is_scalar(v))
        return preset_fail_at(b, v, "%s: '%.40s' is not one of: %s", what, preset_sval(v), list);
    return preset_fail_at(b, v, "%s: expected one of: %s, found %s", what, list, kind_name(v));
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
bool preset_read_identifier(builder *b, ynode v, const char *what, const char **out)
{
    if (!preset_read_string(b, v, what, out))
        return false;
    if (!is_identifier(*out))
        return preset_fail_at(b, v,
                              "%s: '%.40s' is not a name of lower-case letters, digits and '_' (at most %d)",
                              what, *out, MAX_NAME_LEN);
    return true;
}

bool preset_has_upper(const char *s)
{
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'Z')
            return true;
    return false;
}

/* A sequence of strings; absent or null gives the empty list. */
bool preset_read_string_list(builder *b, ynode v, const char *what, unsigned flags, dfs_string_list *out)
{
    memset(out, 0, sizeof *out);
    if (!preset_present(v) || preset_is_null(v))
        return true;
    if (!preset_expect_type(b, v, YAML_SEQUENCE_NODE, what))
        return false;
    yaml_node_item_t *items = v.n->data.sequence.items.start;
    size_t n = (size_t)(v.n->data.sequence.items.top - items);
    const char **list = preset_alloc_zeroed(b, n, sizeof *list);
    if (n && !list)
        return false;
    for (size_t i = 0; i < n; i++) {
        ynode item = preset_doc_node(v.d, items[i]);
        if (!preset_read_string(b, item, what, &list[i]))
            return false;
        if ((flags & LIST_NONEMPTY) && list[i][0] == '\0')
            return preset_fail_at(b, item, "%s: an empty string would match everything", what);
        if ((flags & LIST_LOWER) && preset_has_upper(list[i]))
            return preset_fail_at(b, item, "%s: '%.40s' must be lower-case (it meets lower-cased categories)",
                                  what, list[i]);
    }
    out->v = list;
    out->n = n;
    return true;
}

/* ---- places inside a scalar (for predicate and formula errors) ---- */

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
    const char *v = preset_sval(s);
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
bool preset_fail_inside(builder *b, ynode s, size_t col, const char *fmt, ...)
{
    char msg[224];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t line = s.n->start_mark.line + 1, column = s.n->start_mark.column + 1, quote;
    if (col > 0 && col <= s.n->data.scalar.length + 1 && scalar_verbatim(s, &quote))
        column += quote + utf8_chars(preset_sval(s), col - 1);
    return preset_fail(b, "%s:%zu:%zu: %s", s.d->origin, line, column, msg);
}
