/* jsoncmp.c - compares two JSON documents as the MPI tests need (tests/cli/mpi.sh):
 *
 *   dfs_jsoncmp [-i KEY]... [-r REL] A.json B.json
 *
 * Objects must have the same members (in any order), arrays the same length, strings, booleans
 * and nulls must be equal; integers (numbers written without '.', 'e' or 'E') must be identical,
 * other numbers equal within REL relative (default 1e-12; |a - b| <= REL * max(|a|, |b|)).
 * A member named KEY is ignored wherever it is (its value may differ or be missing).
 * Exit 0 when equal, 1 with the first differences (up to 20, by JSON path) on stderr, 2 on a
 * usage or parse error. Deliberately self-contained C: tests must not need Python.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum kind { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } kind;

typedef struct node {
    kind k;
    const char *text; /* NUM: the number as written; STR: the decoded bytes (not NUL-safe: len) */
    size_t len;
    bool b;
    struct node **items; /* ARR: values; OBJ: values */
    char **keys;         /* OBJ: member names */
    size_t n;
} node;

typedef struct parser {
    const char *p, *end;
    const char *err;
} parser;

static void skip_ws(parser *ps)
{
    while (ps->p < ps->end && isspace((unsigned char)*ps->p))
        ps->p++;
}

static node *new_node(kind k)
{
    node *n = calloc(1, sizeof *n);
    if (!n) {
        fprintf(stderr, "dfs_jsoncmp: out of memory\n");
        exit(2);
    }
    n->k = k;
    return n;
}

static void *grow(void *v, size_t n)
{
    void *p = realloc(v, n);
    if (!p) {
        fprintf(stderr, "dfs_jsoncmp: out of memory\n");
        exit(2);
    }
    return p;
}

static node *parse_value(parser *ps, int depth);

/* A string's raw bytes between the quotes, escapes kept as written: both documents come from the
 * same writer, so equal strings are written alike. */
static char *parse_string(parser *ps, size_t *len)
{
    if (ps->p >= ps->end || *ps->p != '"') {
        ps->err = "expected a string";
        return NULL;
    }
    const char *start = ++ps->p;
    while (ps->p < ps->end && *ps->p != '"')
        ps->p += *ps->p == '\\' && ps->p + 1 < ps->end ? 2 : 1;
    if (ps->p >= ps->end) {
        ps->err = "unterminated string";
        return NULL;
    }
    *len = (size_t)(ps->p - start);
    char *s = grow(NULL, *len + 1);
    memcpy(s, start, *len);
    s[*len] = '\0';
    ps->p++;
    return s;
}

static node *parse_number(parser *ps)
{
    const char *start = ps->p;
    while (ps->p < ps->end && (isdigit((unsigned char)*ps->p) || strchr("+-.eE", *ps->p)))
        ps->p++;
    if (ps->p == start) {
        ps->err = "unexpected character";
        return NULL;
    }
    node *n = new_node(J_NUM);
    n->text = start;
    n->len = (size_t)(ps->p - start);
    return n;
}

static bool literal(parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return false;
    ps->p += n;
    return true;
}

static node *parse_container(parser *ps, int depth, bool object)
{
    node *n = new_node(object ? J_OBJ : J_ARR);
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == (object ? '}' : ']')) {
        ps->p++;
        return n;
    }
    for (;;) {
        skip_ws(ps);
        char *key = NULL;
        size_t klen;
        if (object) {
            if (!(key = parse_string(ps, &klen)))
                return NULL;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p++ != ':') {
                ps->err = "expected ':'";
                return NULL;
            }
        }
        node *v = parse_value(ps, depth + 1);
        if (!v)
            return NULL;
        n->items = grow(n->items, (n->n + 1) * sizeof *n->items);
        n->keys = grow(n->keys, (n->n + 1) * sizeof *n->keys);
        n->items[n->n] = v;
        n->keys[n->n++] = key;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == (object ? '}' : ']')) {
            ps->p++;
            return n;
        }
        ps->err = object ? "expected ',' or '}'" : "expected ',' or ']'";
        return NULL;
    }
}

static node *parse_value(parser *ps, int depth)
{
    skip_ws(ps);
    if (depth > 512) {
        ps->err = "nested too deep";
        return NULL;
    }
    if (ps->p >= ps->end) {
        ps->err = "unexpected end";
        return NULL;
    }
    char c = *ps->p;
    if (c == '{' || c == '[')
        return parse_container(ps, depth, c == '{');
    if (c == '"') {
        node *n = new_node(J_STR);
        n->text = parse_string(ps, &n->len);
        return n->text ? n : NULL;
    }
    if (literal(ps, "null"))
        return new_node(J_NULL);
    bool is_true = literal(ps, "true");
    if (is_true || literal(ps, "false")) {
        node *n = new_node(J_BOOL);
        n->b = is_true;
        return n;
    }
    return parse_number(ps);
}

static void free_node(node *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++) {
        free_node(n->items[i]);
        free(n->keys[i]);
    }
    free(n->items);
    free(n->keys);
    if (n->k == J_STR)
        free((char *)n->text);
    free(n);
}

/* The document, and the text its numbers point into (*buf, freed by the caller). */
static node *load(const char *path, char **text)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "dfs_jsoncmp: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap)
            buf = grow(buf, cap = 2 * cap + 65536);
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    parser ps = {buf, buf + n, NULL};
    node *root = parse_value(&ps, 0);
    skip_ws(&ps);
    if (!root || ps.p != ps.end) {
        fprintf(stderr, "dfs_jsoncmp: %s: not JSON (%s at byte %zu)\n", path, ps.err ? ps.err : "trailing data",
                (size_t)(ps.p - buf));
        exit(2);
    }
    *text = buf;
    return root;
}

/* ---- comparing ---- */

typedef struct cmp_ctx {
    char **ignore;
    size_t nignore;
    double rel;
    unsigned differences;
} cmp_ctx;

static void differ(cmp_ctx *c, const char *path, const char *what)
{
    if (++c->differences <= 20)
        fprintf(stderr, "%s: %s\n", *path ? path : "/", what);
}

static bool is_integer(const node *n)
{
    for (size_t i = 0; i < n->len; i++)
        if (n->text[i] == '.' || n->text[i] == 'e' || n->text[i] == 'E')
            return false;
    return true;
}

static void compare_numbers(cmp_ctx *c, const char *path, const node *a, const node *b)
{
    char what[256];
    if (a->len == b->len && memcmp(a->text, b->text, a->len) == 0)
        return;
    if (is_integer(a) && is_integer(b)) {
        snprintf(what, sizeof what, "integers %.*s and %.*s", (int)a->len, a->text, (int)b->len, b->text);
        differ(c, path, what);
        return;
    }
    char ta[64], tb[64];
    snprintf(ta, sizeof ta, "%.*s", (int)(a->len < 63 ? a->len : 63), a->text);
    snprintf(tb, sizeof tb, "%.*s", (int)(b->len < 63 ? b->len : 63), b->text);
    double x = strtod(ta, NULL), y = strtod(tb, NULL);
    double scale = fmax(fabs(x), fabs(y));
    if (fabs(x - y) <= c->rel * scale)
        return;
    snprintf(what, sizeof what, "numbers %s and %s differ by %.3g relative", ta, tb, fabs(x - y) / scale);
    differ(c, path, what);
}

static bool ignored(const cmp_ctx *c, const char *key)
{
    for (size_t i = 0; i < c->nignore; i++)
        if (strcmp(c->ignore[i], key) == 0)
            return true;
    return false;
}

static void compare(cmp_ctx *c, const char *path, const node *a, const node *b);

static const node *member(const node *o, const char *key)
{
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->keys[i], key) == 0)
            return o->items[i];
    return NULL;
}

static void compare_objects(cmp_ctx *c, const char *path, const node *a, const node *b)
{
    char sub[4096];
    for (size_t i = 0; i < a->n; i++) {
        if (ignored(c, a->keys[i]))
            continue;
        snprintf(sub, sizeof sub, "%s/%s", path, a->keys[i]);
        const node *other = member(b, a->keys[i]);
        if (!other)
            differ(c, sub, "missing in the second document");
        else
            compare(c, sub, a->items[i], other);
    }
    for (size_t i = 0; i < b->n; i++)
        if (!ignored(c, b->keys[i]) && !member(a, b->keys[i])) {
            snprintf(sub, sizeof sub, "%s/%s", path, b->keys[i]);
            differ(c, sub, "missing in the first document");
        }
}

static void compare(cmp_ctx *c, const char *path, const node *a, const node *b)
{
    static const char *const names[] = {"null", "boolean", "number", "string", "array", "object"};
    char what[256];
    if (a->k != b->k) {
        snprintf(what, sizeof what, "%s and %s", names[a->k], names[b->k]);
        differ(c, path, what);
        return;
    }
    switch (a->k) {
    case J_NULL: return;
    case J_BOOL:
        if (a->b != b->b)
            differ(c, path, a->b ? "true and false" : "false and true");
        return;
    case J_NUM: compare_numbers(c, path, a, b); return;
    case J_STR:
        if (a->len != b->len || memcmp(a->text, b->text, a->len) != 0) {
            snprintf(what, sizeof what, "strings \"%.60s\" and \"%.60s\"", a->text, b->text);
            differ(c, path, what);
        }
        return;
    case J_ARR: {
        if (a->n != b->n) {
            snprintf(what, sizeof what, "arrays of %zu and %zu items", a->n, b->n);
            differ(c, path, what);
            return;
        }
        char sub[4096];
        for (size_t i = 0; i < a->n; i++) {
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            compare(c, sub, a->items[i], b->items[i]);
        }
        return;
    }
    case J_OBJ: compare_objects(c, path, a, b); return;
    }
}

int main(int argc, char **argv)
{
    cmp_ctx c = {.rel = 1e-12};
    c.ignore = calloc((size_t)argc, sizeof *c.ignore);
    const char *files[2];
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-i") == 0 && i + 1 < argc)
            c.ignore[c.nignore++] = argv[++i];
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
            c.rel = strtod(argv[++i], NULL);
        else if (nfiles < 2 && argv[i][0] != '-')
            files[nfiles++] = argv[i];
        else
            nfiles = 3;
    }
    if (nfiles != 2 || !(c.rel >= 0)) {
        fprintf(stderr, "usage: dfs_jsoncmp [-i KEY]... [-r REL] A.json B.json\n");
        return 2;
    }
    char *ta, *tb;
    node *a = load(files[0], &ta), *b = load(files[1], &tb);
    compare(&c, "", a, b);
    if (c.differences > 20)
        fprintf(stderr, "... %u differences in all\n", c.differences);
    free_node(a);
    free_node(b);
    free(ta);
    free(tb);
    free(c.ignore);
    return c.differences ? 1 : 0;
}
