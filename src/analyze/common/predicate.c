/* predicate.c - parser, evaluator and memoising set for the layer predicate language.
 *
 * A predicate compiles to a small tree of nodes kept in one array and linked by index. "&" and "|"
 * chains become one n-ary node, so only parentheses and negations deepen the tree: their nesting is
 * bounded at parse time, which bounds the recursion of both the parser and the evaluator.
 *
 * Every regular-expression search of dfscope runs in regex_search, under the bounds of
 * predicate.h. A search that reaches one has no answer: the predicate records the failure (which
 * analyses turn into an error naming it) and runs no more searches, so a failure costs one bounded
 * search and never passes for "no match". */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "analyze/common/predicate.h"

#include <inttypes.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/hash.h"
#include "util/suggest.h"

#define NO_NODE UINT32_MAX
#define MAX_DEPTH 100
#define MEMO_MAX_KEYS ((size_t)1 << 20)
#define MEMO_MIN_CAP 64

/* ------------------------------------------------------------------------------------------------
 * Compiled form
 * ---------------------------------------------------------------------------------------------- */

typedef enum node_kind { N_AND, N_OR, N_NOT, N_CMP, N_ISIN, N_CONTAINS, N_STARTSWITH, N_ARG } node_kind;
typedef enum cmp_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE } cmp_op;

/* Kleene's three truth values; UNKNOWN comes from a test on a null value. */
typedef enum truth { TV_FALSE, TV_TRUE, TV_UNKNOWN } truth;

typedef struct pred_node {
    node_kind kind;
    dfs_pred_col col;
    cmp_op op;
    uint32_t kid;        /* N_NOT */
    uint32_t *kids;      /* N_AND, N_OR */
    size_t nkids;
    dfs_pred_text str;   /* N_CMP on a string column, N_STARTSWITH (owned copy) */
    int64_t num;         /* N_CMP on an integer column */
    dfs_pred_text *strs; /* N_ISIN, sorted (owned copies) */
    int64_t *nums;       /* N_ISIN, sorted */
    size_t nitems;
    pcre2_code *re;      /* N_CONTAINS; its pattern is in str, for messages */
    size_t column;       /* N_CONTAINS: 1-based column of the pattern's string literal */
    dfs_pred_text key;   /* N_ARG: the argument's key (owned copy); compared with num or str */
    bool arg_int;        /* N_ARG: with an integer (else with the string str) */
    uint32_t test;       /* N_ARG: 1 + its number in the bound dfs_pred_arg_tests; 0: not bound */
} pred_node;

struct dfs_pred {
    pred_node *nodes;
    uint32_t nnodes, cap;
    uint32_t root; /* NO_NODE: match all */
    unsigned columns;
    size_t nargs;  /* N_ARG nodes */
    bool args_bound; /* every N_ARG node is bound (dfs_pred_bind_arg_tests) */
    pcre2_match_data *match; /* shared by this predicate's regexes; makes it single-threaded */
    pcre2_match_context *bounds; /* the limits of predicate.h, set per search */
    uint64_t regex_evals;
    bool failed;                 /* a search reached a bound: answers no longer count */
    dfs_pred_error failure;
};

static const char *const col_names[DFS_PRED_NCOLS] = {
    "cat", "func_name", "file_name", "proc_name", "host", "io_cat", "acc_pat", "pid", "tid",
};

const char *dfs_pred_col_name(dfs_pred_col c)
{
    return (unsigned)c < DFS_PRED_NCOLS ? col_names[c] : "?";
}

static bool is_text_col(dfs_pred_col c)
{
    return (int)c < DFS_PRED_NTEXT;
}

static int col_lookup(const char *s, size_t n)
{
    if (n == 4 && memcmp(s, "name", 4) == 0)
        return DFS_PRED_FUNC_NAME;
    for (int c = 0; c < DFS_PRED_NCOLS; c++)
        if (strlen(col_names[c]) == n && memcmp(col_names[c], s, n) == 0)
            return c;
    return -1;
}

/* ------------------------------------------------------------------------------------------------
 * Tokens
 * ---------------------------------------------------------------------------------------------- */

typedef enum tok_kind {
    T_END, T_IDENT, T_STRING, T_INT, T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_COMMA, T_DOT,
    T_AND, T_OR, T_NOT, T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
} tok_kind;

typedef struct token {
    tok_kind kind;
    size_t pos, len; /* byte offset and length in the text */
} token;

typedef struct parser {
    const char *text;
    size_t pos;
    token tok;
    dfs_pred *pred;
    dfs_pred_error *err;
    bool failed;
    unsigned depth;
} parser;

static void fail(parser *ps, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Only the first error counts: later ones are consequences of it. */
static void fail(parser *ps, size_t pos, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = true;
    ps->tok.kind = T_END;
    if (!ps->err)
        return;
    ps->err->column = pos + 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err->message, sizeof ps->err->message, fmt, ap);
    va_end(ap);
}

static void fail_nomem(parser *ps)
{
    fail(ps, 0, "out of memory");
    if (ps->err)
        ps->err->column = 0;
}

/* The token as the user wrote it, quoted and shortened, for messages. */
static void describe(const parser *ps, const token *t, char *buf, size_t n)
{
    if (t->kind == T_END) {
        snprintf(buf, n, "end of input");
        return;
    }
    size_t len = t->len > 24 ? 24 : t->len, o = 0;
    buf[o++] = '\'';
    for (size_t i = 0; i < len && o + 5 < n; i++) {
        unsigned char c = (unsigned char)ps->text[t->pos + i];
        buf[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (len < t->len && o + 5 < n) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o++] = '\'';
    buf[o] = '\0';
}

static void expected(parser *ps, const char *what)
{
    char found[40];
    describe(ps, &ps->tok, found, sizeof found);
    fail(ps, ps->tok.pos, "expected %s at column %zu, found %s", what, ps->tok.pos + 1, found);
}

static bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_ident_char(char c)
{
    return is_ident_start(c) || is_digit(c);
}

static tok_kind keyword_kind(const char *s, size_t n)
{
    if (n == 3 && memcmp(s, "and", 3) == 0)
        return T_AND;
    if (n == 2 && memcmp(s, "or", 2) == 0)
        return T_OR;
    if (n == 3 && memcmp(s, "not", 3) == 0)
        return T_NOT;
    return T_IDENT;
}

/* Scans to the closing quote; a backslash always takes the next character with it. */
static size_t lex_string(parser *ps, size_t start)
{
    const char *t = ps->text;
    char quote = t[start];
    size_t i = start + 1;
    while (t[i] && t[i] != quote)
        i += (t[i] == '\\' && t[i + 1]) ? 2 : 1;
    if (!t[i]) {
        fail(ps, start, "unterminated string starting at column %zu", start + 1);
        return i - start;
    }
    return i + 1 - start;
}

/* A number token swallows letters, digits and dots so that "1.5" or "12ab" are one bad literal. */
static size_t lex_number(const char *t, size_t start)
{
    size_t i = start + (t[start] == '-');
    while (is_ident_char(t[i]) || t[i] == '.')
        i++;
    return i - start;
}

static const struct {
    char text[3];
    tok_kind kind;
} punctuation[] = {
    {"==", T_EQ}, {"!=", T_NE}, {"<=", T_LE}, {">=", T_GE}, {"<", T_LT}, {">", T_GT},
    {"(", T_LPAREN}, {")", T_RPAREN}, {"[", T_LBRACK}, {"]", T_RBRACK}, {",", T_COMMA},
    {".", T_DOT}, {"&", T_AND}, {"|", T_OR}, {"~", T_NOT},
};

/* Python habits that are not operators here get a message that says what to write instead. */
static bool lex_misused_operator(parser *ps, size_t p)
{
    const char *t = ps->text + p;
    size_t col = p + 1;
    if (t[0] == '&' && t[1] == '&')
        fail(ps, p, "'&&' at column %zu is not an operator; use '&' or 'and'", col);
    else if (t[0] == '|' && t[1] == '|')
        fail(ps, p, "'||' at column %zu is not an operator; use '|' or 'or'", col);
    else if (t[0] == '=' && t[1] != '=')
        fail(ps, p, "'=' at column %zu is not an operator; use '=='", col);
    else if (t[0] == '!' && t[1] != '=')
        fail(ps, p, "'!' at column %zu is not an operator; use '~' or 'not'", col);
    else
        return false;
    return true;
}

static size_t lex_punctuation(parser *ps, size_t p, tok_kind *kind)
{
    const char *t = ps->text + p;
    for (size_t i = 0; i < sizeof punctuation / sizeof punctuation[0]; i++) {
        size_t n = strlen(punctuation[i].text);
        if (strncmp(t, punctuation[i].text, n) == 0) {
            *kind = punctuation[i].kind;
            return n;
        }
    }
    unsigned char c = (unsigned char)t[0];
    if (c >= 0x21 && c < 0x7f)
        fail(ps, p, "unexpected character '%c' at column %zu", c, p + 1);
    else
        fail(ps, p, "unexpected byte 0x%02x at column %zu", c, p + 1);
    return 1;
}

static void lex(parser *ps)
{
    if (ps->failed)
        return;
    const char *t = ps->text;
    while (t[ps->pos] == ' ' || t[ps->pos] == '\t' || t[ps->pos] == '\n' || t[ps->pos] == '\r')
        ps->pos++;
    size_t p = ps->pos;
    token tok = {.kind = T_END, .pos = p, .len = 0};
    char c = t[p];
    if (c == '\0') {
        tok.kind = T_END;
    } else if (is_ident_start(c)) {
        while (is_ident_char(t[p + tok.len]))
            tok.len++;
        tok.kind = keyword_kind(t + p, tok.len);
    } else if (is_digit(c) || (c == '-' && is_digit(t[p + 1]))) {
        tok.kind = T_INT;
        tok.len = lex_number(t, p);
    } else if (c == '"' || c == '\'') {
        tok.kind = T_STRING;
        tok.len = lex_string(ps, p);
    } else if (!lex_misused_operator(ps, p)) {
        tok.len = lex_punctuation(ps, p, &tok.kind);
    }
    if (ps->failed)
        return;
    ps->tok = tok;
    ps->pos = p + tok.len;
}

static bool accept(parser *ps, tok_kind kind)
{
    if (ps->failed || ps->tok.kind != kind)
        return false;
    lex(ps);
    return true;
}

static bool expect(parser *ps, tok_kind kind, const char *what)
{
    if (accept(ps, kind))
        return true;
    expected(ps, what);
    return false;
}

static bool tok_is(const parser *ps, const char *word)
{
    size_t n = strlen(word);
    return ps->tok.kind == T_IDENT && ps->tok.len == n && memcmp(ps->text + ps->tok.pos, word, n) == 0;
}

/* ------------------------------------------------------------------------------------------------
 * Literals
 * ---------------------------------------------------------------------------------------------- */

typedef struct literal {
    bool is_int;
    int64_t num;
    char *s; /* owned, NUL-terminated */
    size_t len;
    size_t pos; /* of the token */
} literal;

static char unescape(char c, bool *known)
{
    *known = true;
    switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case '\\': case '"': case '\'': return c;
    default: *known = false; return c;
    }
}

/* Decodes a string token. src_map (optional, token length entries) receives, for each decoded byte
 * and for the end, the text offset it came from, so a regex error offset can become a column. */
static char *decode_string(const char *text, const token *t, size_t *out_len, size_t *src_map)
{
    char *out = malloc(t->len);
    if (!out)
        return NULL;
    size_t o = 0, end = t->pos + t->len - 1; /* the closing quote */
    for (size_t i = t->pos + 1; i < end; i++) {
        if (src_map)
            src_map[o] = i;
        bool known = false;
        char c = text[i] == '\\' ? unescape(text[i + 1], &known) : text[i];
        if (known) {
            out[o++] = c;
            i++;
        } else {
            out[o++] = text[i];
            if (text[i] == '\\') { /* unknown escape: the backslash stays, the next byte too */
                i++;
                if (src_map)
                    src_map[o] = i;
                out[o++] = text[i];
            }
        }
    }
    if (src_map)
        src_map[o] = end;
    out[o] = '\0';
    *out_len = o;
    return out;
}

static bool parse_int(parser *ps, const token *t, int64_t *out)
{
    const char *s = ps->text + t->pos;
    bool neg = s[0] == '-';
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, v = 0;
    for (size_t i = neg; i < t->len; i++) {
        if (!is_digit(s[i])) {
            fail(ps, t->pos, "invalid integer '%.*s' at column %zu", (int)t->len, s, t->pos + 1);
            return false;
        }
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (limit - d) / 10) {
            fail(ps, t->pos, "integer out of range at column %zu", t->pos + 1);
            return false;
        }
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static bool parse_literal(parser *ps, literal *lit)
{
    memset(lit, 0, sizeof *lit);
    token t = ps->tok;
    lit->pos = t.pos;
    if (t.kind == T_INT) {
        lit->is_int = true;
        if (!parse_int(ps, &t, &lit->num))
            return false;
    } else if (t.kind == T_STRING) {
        lit->s = decode_string(ps->text, &t, &lit->len, NULL);
        if (!lit->s) {
            fail_nomem(ps);
            return false;
        }
    } else {
        expected(ps, "a literal (a quoted string or an integer)");
        return false;
    }
    lex(ps);
    return !ps->failed;
}

/* A test compares a column with literals of its own type; say which column when it does not. */
static bool check_type(parser *ps, dfs_pred_col col, const literal *lit)
{
    if (is_text_col(col) == !lit->is_int)
        return true;
    fail(ps, lit->pos, "type mismatch at column %zu: column '%s' holds %s, the literal is %s",
         lit->pos + 1, col_names[col], is_text_col(col) ? "strings" : "integers",
         lit->is_int ? "an integer" : "a string");
    return false;
}

/* ------------------------------------------------------------------------------------------------
 * Nodes
 * ---------------------------------------------------------------------------------------------- */

static uint32_t new_node(parser *ps, node_kind kind, dfs_pred_col col)
{
    dfs_pred *p = ps->pred;
    if (p->nnodes == p->cap) {
        uint32_t cap = p->cap ? p->cap * 2 : 8;
        pred_node *n = realloc(p->nodes, cap * sizeof *n);
        if (!n) {
            fail_nomem(ps);
            return NO_NODE;
        }
        p->nodes = n;
        p->cap = cap;
    }
    pred_node *n = &p->nodes[p->nnodes];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->col = col;
    n->kid = NO_NODE;
    if (kind >= N_CMP && kind != N_ARG) /* a test of a column, not a connective */
        p->columns |= DFS_PRED_COL_BIT(col);
    p->nargs += kind == N_ARG;
    return p->nnodes++;
}

static void free_node(pred_node *n)
{
    free(n->kids);
    free((char *)n->str.s);
    free((char *)n->key.s);
    for (size_t i = 0; n->strs && i < n->nitems; i++)
        free((char *)n->strs[i].s);
    free(n->strs);
    free(n->nums);
    if (n->re)
        pcre2_code_free(n->re);
}

void dfs_pred_free(dfs_pred *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->nnodes; i++)
        free_node(&p->nodes[i]);
    free(p->nodes);
    if (p->match)
        pcre2_match_data_free(p->match);
    if (p->bounds)
        pcre2_match_context_free(p->bounds);
    free(p);
}

/* Byte order first, then length: a prefix sorts first. */
static int text_cmp(dfs_pred_text a, dfs_pred_text b)
{
    size_t n = a.len < b.len ? a.len : b.len;
    int c = n ? memcmp(a.s, b.s, n) : 0;
    if (c)
        return c;
    return (a.len > b.len) - (a.len < b.len);
}

static int text_qcmp(const void *a, const void *b)
{
    return text_cmp(*(const dfs_pred_text *)a, *(const dfs_pred_text *)b);
}

static int num_qcmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ------------------------------------------------------------------------------------------------
 * Grammar
 * ---------------------------------------------------------------------------------------------- */

static uint32_t parse_or(parser *ps);

static uint32_t parse_compare(parser *ps, dfs_pred_col col, cmp_op op)
{
    literal lit;
    if (!parse_literal(ps, &lit) || !check_type(ps, col, &lit)) {
        free(lit.s);
        return NO_NODE;
    }
    uint32_t i = new_node(ps, N_CMP, col);
    if (i == NO_NODE) {
        free(lit.s);
        return NO_NODE;
    }
    pred_node *n = &ps->pred->nodes[i];
    n->op = op;
    n->num = lit.num;
    n->str.s = lit.s;
    n->str.len = lit.len;
    return i;
}

/* Makes room for one more item in whichever array the column type uses. */
static bool isin_reserve(pred_node *n, size_t *cap)
{
    if (n->nitems < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 4;
    if (is_text_col(n->col)) {
        dfs_pred_text *strs = realloc(n->strs, c * sizeof *strs);
        if (!strs)
            return false;
        n->strs = strs;
    } else {
        int64_t *nums = realloc(n->nums, c * sizeof *nums);
        if (!nums)
            return false;
        n->nums = nums;
    }
    *cap = c;
    return true;
}

/* Takes ownership of the literal's string. */
static bool isin_push(parser *ps, pred_node *n, size_t *cap, const literal *lit)
{
    if (!isin_reserve(n, cap)) {
        fail_nomem(ps);
        return false;
    }
    if (is_text_col(n->col))
        n->strs[n->nitems++] = (dfs_pred_text){lit->s, lit->len};
    else
        n->nums[n->nitems++] = lit->num;
    return true;
}

/* The list after ".isin(["; a trailing comma is accepted, as in Python. */
static bool parse_isin_items(parser *ps, uint32_t i)
{
    size_t cap = 0;
    if (ps->tok.kind == T_RBRACK) {
        fail(ps, ps->tok.pos, "empty list in .isin() at column %zu", ps->tok.pos + 1);
        return false;
    }
    while (ps->tok.kind != T_RBRACK) {
        literal lit;
        pred_node *n = &ps->pred->nodes[i];
        if (!parse_literal(ps, &lit) || !check_type(ps, n->col, &lit) || !isin_push(ps, n, &cap, &lit)) {
            free(lit.s);
            return false;
        }
        if (!accept(ps, T_COMMA) && ps->tok.kind != T_RBRACK) {
            expected(ps, "',' or ']'");
            return false;
        }
    }
    return true;
}

static uint32_t parse_isin(parser *ps, dfs_pred_col col)
{
    if (!expect(ps, T_LPAREN, "'(' after 'isin'") || !expect(ps, T_LBRACK, "'[' (a list)"))
        return NO_NODE;
    uint32_t i = new_node(ps, N_ISIN, col);
    if (i == NO_NODE || !parse_isin_items(ps, i))
        return NO_NODE;
    if (!expect(ps, T_RBRACK, "']'") || !expect(ps, T_RPAREN, "')'"))
        return NO_NODE;
    pred_node *n = &ps->pred->nodes[i];
    if (n->strs)
        qsort(n->strs, n->nitems, sizeof *n->strs, text_qcmp);
    if (n->nums)
        qsort(n->nums, n->nitems, sizeof *n->nums, num_qcmp);
    return i;
}

static bool compile_regex(parser *ps, pred_node *n, const token *t)
{
    size_t *map = malloc(t->len * sizeof *map), len = 0;
    char *pat = map ? decode_string(ps->text, t, &len, map) : NULL;
    int code = 0;
    PCRE2_SIZE off = 0;
    if (pat)
        n->re = pcre2_compile((PCRE2_SPTR)pat, len, 0, &code, &off, NULL);
    if (!pat) {
        fail_nomem(ps);
    } else if (!n->re) {
        PCRE2_UCHAR msg[120];
        if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
            snprintf((char *)msg, sizeof msg, "error %d", code);
        size_t pos = map[off <= len ? off : len];
        fail(ps, pos, "invalid regular expression at column %zu: %s", pos + 1, (const char *)msg);
    }
    free(map);
    if (!n->re) {
        free(pat);
        return false;
    }
    n->str = (dfs_pred_text){pat, len}; /* freed with the node */
    n->column = t->pos + 1;
    return true;
}

static bool ensure_match_data(parser *ps)
{
    dfs_pred *p = ps->pred;
    if (!p->match)
        p->match = pcre2_match_data_create(1, NULL);
    if (!p->bounds && (p->bounds = pcre2_match_context_create(NULL)) != NULL)
        pcre2_set_heap_limit(p->bounds, DFS_PRED_REGEX_HEAP_KIB);
    if (!p->match || !p->bounds)
        fail_nomem(ps);
    return p->match && p->bounds;
}

/* ".str.contains(...)" or ".str.startswith(...)", from the method name on. */
static uint32_t parse_str_method(parser *ps, dfs_pred_col col)
{
    token name = ps->tok;
    node_kind kind = tok_is(ps, "contains") ? N_CONTAINS : N_STARTSWITH;
    if (!tok_is(ps, "contains") && !tok_is(ps, "startswith")) {
        if (name.kind != T_IDENT) {
            expected(ps, "a method name ('contains' or 'startswith')");
            return NO_NODE;
        }
        fail(ps, name.pos, "unknown method '.str.%.*s' at column %zu (expected 'contains' or 'startswith')",
             (int)(name.len > 24 ? 24 : name.len), ps->text + name.pos, name.pos + 1);
        return NO_NODE;
    }
    lex(ps);
    if (!expect(ps, T_LPAREN, "'('"))
        return NO_NODE;
    token arg = ps->tok;
    if (arg.kind != T_STRING) {
        expected(ps, "a quoted string");
        return NO_NODE;
    }
    uint32_t i = new_node(ps, kind, col);
    if (i == NO_NODE)
        return NO_NODE;
    pred_node *n = &ps->pred->nodes[i];
    if (kind == N_CONTAINS) {
        if (!compile_regex(ps, n, &arg) || !ensure_match_data(ps))
            return NO_NODE;
    } else {
        n->str.s = decode_string(ps->text, &arg, &n->str.len, NULL);
        if (!n->str.s) {
            fail_nomem(ps);
            return NO_NODE;
        }
    }
    lex(ps);
    return expect(ps, T_RPAREN, "')'") ? i : NO_NODE;
}

/* After "COL.": "isin(...)" or "str.<method>(...)". */
static uint32_t parse_method(parser *ps, dfs_pred_col col)
{
    token name = ps->tok;
    if (tok_is(ps, "isin")) {
        lex(ps);
        return parse_isin(ps, col);
    }
    if (tok_is(ps, "str")) {
        if (!is_text_col(col)) {
            fail(ps, name.pos, "'.str' at column %zu needs a string column; '%s' holds integers",
                 name.pos + 1, col_names[col]);
            return NO_NODE;
        }
        lex(ps);
        return expect(ps, T_DOT, "'.'") ? parse_str_method(ps, col) : NO_NODE;
    }
    if (name.kind != T_IDENT) {
        expected(ps, "a method name ('isin' or 'str')");
        return NO_NODE;
    }
    fail(ps, name.pos, "unknown method '.%.*s' at column %zu (expected 'isin' or 'str')",
         (int)(name.len > 24 ? 24 : name.len), ps->text + name.pos, name.pos + 1);
    return NO_NODE;
}

static bool comparison_op(tok_kind k, cmp_op *op)
{
    switch (k) {
    case T_EQ: *op = OP_EQ; return true;
    case T_NE: *op = OP_NE; return true;
    case T_LT: *op = OP_LT; return true;
    case T_LE: *op = OP_LE; return true;
    case T_GT: *op = OP_GT; return true;
    case T_GE: *op = OP_GE; return true;
    default: return false;
    }
}

/* Names the column a mistyped one most likely meant, or every column. */
static void unknown_column(parser *ps, token t)
{
    char word[DFS_SUGGEST_MAX + 1], valid[160] = "did you mean '";
    snprintf(word, sizeof word, "%.*s", (int)(t.len < DFS_SUGGEST_MAX ? t.len : DFS_SUGGEST_MAX), ps->text + t.pos);
    dfs_suggest s;
    dfs_suggest_init(&s, word);
    dfs_suggest_offer(&s, "name");
    for (int c = 0; c < DFS_PRED_NCOLS; c++)
        dfs_suggest_offer(&s, col_names[c]);
    const char *guess = dfs_suggest_best(&s);
    if (guess) {
        size_t n = strlen(valid);
        snprintf(valid + n, sizeof valid - n, "%s'?", guess);
    } else {
        size_t n = (size_t)snprintf(valid, sizeof valid, "the columns are name");
        for (int c = 0; c < DFS_PRED_NCOLS && n < sizeof valid; c++)
            n += (size_t)snprintf(valid + n, sizeof valid - n, ", %s", col_names[c]);
    }
    fail(ps, t.pos, "unknown column '%.*s' at column %zu (%s)", (int)(t.len > 24 ? 24 : t.len), ps->text + t.pos,
         t.pos + 1, valid);
}

/* The key after "args": ".KEY" (an identifier, keywords included) or "[STRING]"; NULL on error. */
static char *parse_arg_key(parser *ps, size_t *len, size_t *pos)
{
    char *key = NULL;
    token k;
    if (accept(ps, T_DOT)) {
        k = ps->tok;
        bool word = k.kind == T_IDENT || k.kind == T_AND || k.kind == T_OR || k.kind == T_NOT;
        if (!word || !is_ident_start(ps->text[k.pos])) {
            expected(ps, "an argument name after 'args.' (other keys are quoted: args[\"KEY\"])");
            return NULL;
        }
        key = malloc(k.len + 1);
        if (key)
            memcpy(key, ps->text + k.pos, k.len), key[k.len] = '\0', *len = k.len;
    } else if (accept(ps, T_LBRACK)) {
        k = ps->tok;
        if (k.kind != T_STRING) {
            expected(ps, "a quoted key after 'args['");
            return NULL;
        }
        key = decode_string(ps->text, &k, len, NULL);
    } else {
        expected(ps, "'.' or '[' after 'args' (an argument: args.KEY or args[\"KEY\"])");
        return NULL;
    }
    if (!key) {
        fail_nomem(ps);
        return NULL;
    }
    *pos = k.pos;
    lex(ps);
    if (k.kind == T_STRING && !expect(ps, T_RBRACK, "']'")) {
        free(key);
        return NULL;
    }
    if (*len == 0 || *len > DFS_PRED_MAX_ARG_KEY) {
        fail(ps, *pos, "the args key at column %zu is %s (1 to %d bytes)", *pos + 1, *len ? "too long" : "empty",
             DFS_PRED_MAX_ARG_KEY);
        free(key);
        return NULL;
    }
    return key;
}

/* "args.KEY OP literal", from "args" on: integers with any comparison, strings with == and !=. */
static uint32_t parse_arg(parser *ps)
{
    lex(ps);
    size_t len = 0, pos = 0;
    char *key = parse_arg_key(ps, &len, &pos);
    if (!key)
        return NO_NODE;
    cmp_op op;
    literal lit = {0};
    uint32_t i = NO_NODE;
    if (!comparison_op(ps->tok.kind, &op)) {
        expected(ps, "a comparison operator after the argument (its methods: none)");
    } else {
        lex(ps);
        if (parse_literal(ps, &lit) && !lit.is_int && op != OP_EQ && op != OP_NE)
            fail(ps, lit.pos, "an argument compares with a string by '==' or '!=' only (column %zu)", lit.pos + 1);
        else if (!ps->failed)
            i = new_node(ps, N_ARG, DFS_PRED_CAT);
    }
    if (i == NO_NODE) {
        free(key), free(lit.s);
        return NO_NODE;
    }
    pred_node *n = &ps->pred->nodes[i];
    n->op = op;
    n->num = lit.num;
    n->str = (dfs_pred_text){lit.s, lit.len};
    n->key = (dfs_pred_text){key, len};
    n->arg_int = lit.is_int;
    return i;
}

static uint32_t parse_test(parser *ps)
{
    token t = ps->tok;
    if (t.kind != T_IDENT) {
        expected(ps, "a column name, '(', '~' or 'not'");
        return NO_NODE;
    }
    if (tok_is(ps, "args"))
        return parse_arg(ps);
    int col = col_lookup(ps->text + t.pos, t.len);
    if (col < 0) {
        unknown_column(ps, t);
        return NO_NODE;
    }
    lex(ps);
    cmp_op op;
    if (accept(ps, T_DOT))
        return parse_method(ps, (dfs_pred_col)col);
    if (comparison_op(ps->tok.kind, &op)) {
        lex(ps);
        return parse_compare(ps, (dfs_pred_col)col, op);
    }
    expected(ps, "a comparison operator, '.isin' or '.str' after the column name");
    return NO_NODE;
}

static bool enter(parser *ps)
{
    if (++ps->depth <= MAX_DEPTH)
        return true;
    fail(ps, ps->tok.pos, "expression nested too deeply at column %zu", ps->tok.pos + 1);
    return false;
}

static uint32_t parse_unary(parser *ps)
{
    if (!enter(ps))
        return NO_NODE;
    uint32_t r;
    if (accept(ps, T_NOT)) {
        uint32_t kid = parse_unary(ps);
        r = kid == NO_NODE ? NO_NODE : new_node(ps, N_NOT, DFS_PRED_CAT);
        if (r != NO_NODE)
            ps->pred->nodes[r].kid = kid;
    } else if (accept(ps, T_LPAREN)) {
        r = parse_or(ps);
        if (r != NO_NODE && !expect(ps, T_RPAREN, "')'"))
            r = NO_NODE;
    } else {
        r = parse_test(ps);
    }
    ps->depth--;
    return ps->failed ? NO_NODE : r;
}

static bool push_kid(parser *ps, uint32_t **kids, size_t *n, size_t *cap, uint32_t kid)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 4;
        uint32_t *k = realloc(*kids, c * sizeof *k);
        if (!k) {
            fail_nomem(ps);
            return false;
        }
        *kids = k;
        *cap = c;
    }
    (*kids)[(*n)++] = kid;
    return true;
}

/* One n-ary node for a whole "a & b & c" (or "|") chain keeps the tree shallow. */
static uint32_t parse_chain(parser *ps, tok_kind op)
{
    uint32_t first = op == T_OR ? parse_chain(ps, T_AND) : parse_unary(ps);
    if (first == NO_NODE || ps->tok.kind != op)
        return first;
    uint32_t *kids = NULL;
    size_t n = 0, cap = 0;
    bool ok = push_kid(ps, &kids, &n, &cap, first);
    while (ok && accept(ps, op)) {
        uint32_t kid = op == T_OR ? parse_chain(ps, T_AND) : parse_unary(ps);
        ok = kid != NO_NODE && push_kid(ps, &kids, &n, &cap, kid);
    }
    uint32_t r = ok && !ps->failed ? new_node(ps, op == T_OR ? N_OR : N_AND, DFS_PRED_CAT) : NO_NODE;
    if (r == NO_NODE) {
        free(kids);
        return NO_NODE;
    }
    ps->pred->nodes[r].kids = kids;
    ps->pred->nodes[r].nkids = n;
    return r;
}

static uint32_t parse_or(parser *ps)
{
    return parse_chain(ps, T_OR);
}

/* NULL, blank and pandas' None select every row. */
static bool is_match_all_text(const char *text)
{
    if (!text)
        return true;
    while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r')
        text++;
    size_t n = strlen(text);
    while (n && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\n' || text[n - 1] == '\r'))
        n--;
    return n == 0 || (n == 4 && memcmp(text, "None", 4) == 0);
}

dfs_pred *dfs_pred_parse(const char *text, dfs_pred_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    dfs_pred *p = calloc(1, sizeof *p);
    parser ps = {.text = text, .pred = p, .err = err};
    if (!p) {
        fail_nomem(&ps);
        return NULL;
    }
    p->root = NO_NODE;
    if (is_match_all_text(text))
        return p;
    lex(&ps);
    p->root = parse_or(&ps);
    if (!ps.failed && ps.tok.kind != T_END)
        expected(&ps, "'&', '|', 'and', 'or' or the end of the predicate");
    if (ps.failed) {
        dfs_pred_free(p);
        return NULL;
    }
    return p;
}

unsigned dfs_pred_columns(const dfs_pred *p)
{
    return p->columns;
}

bool dfs_pred_uses_args(const dfs_pred *p)
{
    return p->nargs > 0;
}

size_t dfs_pred_arg_count(const dfs_pred *p)
{
    return p->nargs;
}

const char *dfs_pred_arg_key(const dfs_pred *p, size_t i, size_t *len)
{
    for (uint32_t k = 0; k < p->nnodes; k++)
        if (p->nodes[k].kind == N_ARG && i-- == 0) {
            *len = p->nodes[k].key.len;
            return p->nodes[k].key.s;
        }
    *len = 0;
    return NULL;
}

bool dfs_pred_matches_all(const dfs_pred *p)
{
    return p->root == NO_NODE;
}

uint64_t dfs_pred_regex_evals(const dfs_pred *p)
{
    return p->regex_evals;
}

bool dfs_pred_failed(const dfs_pred *p, dfs_pred_error *err)
{
    if (p->failed && err)
        *err = p->failure;
    return p->failed;
}

void dfs_pred_note_failure(char *buf, size_t n, const char *what, const char *text, const dfs_pred_error *err)
{
    if (!n || buf[0])
        return;
    size_t len = strlen(text);
    int shown = len > 80 ? 77 : (int)len;
    snprintf(buf, n, "%s: predicate %.*s%s: %s", what, shown, text, len > 80 ? "..." : "", err->message);
}

/* ------------------------------------------------------------------------------------------------
 * Evaluation
 * ---------------------------------------------------------------------------------------------- */

static truth truth_of(bool b)
{
    return b ? TV_TRUE : TV_FALSE;
}

static truth apply_op(cmp_op op, int c)
{
    switch (op) {
    case OP_EQ: return truth_of(c == 0);
    case OP_NE: return truth_of(c != 0);
    case OP_LT: return truth_of(c < 0);
    case OP_LE: return truth_of(c <= 0);
    case OP_GT: return truth_of(c > 0);
    case OP_GE: return truth_of(c >= 0);
    }
    return TV_FALSE;
}

uint32_t dfs_pred_regex_step_limit(size_t len)
{
    uint64_t share = DFS_PRED_REGEX_BUDGET / ((uint64_t)len + 1), linear = (uint64_t)len + DFS_PRED_REGEX_MIN_STEPS;
    uint64_t limit = share > linear ? share : linear;
    return limit > UINT32_MAX ? UINT32_MAX : (uint32_t)limit;
}

/* At most `max` bytes of a value as text for a message: control and non-ASCII bytes as '?'. */
static void quote_value(dfs_pred_text v, char *buf, size_t n, size_t max)
{
    size_t o = 0, len = v.len < max ? v.len : max;
    for (size_t i = 0; i < len && o + 4 < n; i++) {
        unsigned char c = (unsigned char)v.s[i];
        buf[o++] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
    }
    if (len < v.len && o + 4 < n) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
}

static void record_failure(dfs_pred *p, const pred_node *n, dfs_pred_text v, int rc, uint32_t limit)
{
    char bound[64], value[40], pattern[40], text[sizeof p->failure.message + 128];
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT)
        snprintf(bound, sizeof bound, "over %" PRIu32 " backtracking steps from one position", limit);
    else if (rc == PCRE2_ERROR_HEAPLIMIT)
        snprintf(bound, sizeof bound, "over %u KiB of backtracking memory", DFS_PRED_REGEX_HEAP_KIB);
    else if (rc == PCRE2_ERROR_NOMEMORY)
        snprintf(bound, sizeof bound, "out of memory");
    else
        snprintf(bound, sizeof bound, "PCRE2 error %d", rc);
    quote_value(v, value, sizeof value, 24);
    quote_value(n->str, pattern, sizeof pattern, 24);
    snprintf(text, sizeof text, "the regular expression '%s' gave up on %s '%s' (%zu bytes): %s", pattern,
             col_names[n->col], value, v.len, bound);
    size_t len = strnlen(text, sizeof p->failure.message - 1); /* cut short rather than fail */
    memcpy(p->failure.message, text, len);
    p->failure.message[len] = '\0';
    p->failure.column = n->column;
    p->failed = true;
}

/* The one place where a regular expression runs: bounded by p->bounds, with every outcome other
 * than a match or a clean non-match recorded as the predicate's failure (UNKNOWN, never FALSE). */
static truth regex_search(dfs_pred *p, const pred_node *n, dfs_pred_text v)
{
    if (p->failed)
        return TV_UNKNOWN;
    p->regex_evals++;
    uint32_t limit = dfs_pred_regex_step_limit(v.len);
    pcre2_set_match_limit(p->bounds, limit);
    int rc = pcre2_match(n->re, (PCRE2_SPTR)v.s, v.len, 0, 0, p->match, p->bounds);
    if (rc >= 0)
        return TV_TRUE;
    if (rc == PCRE2_ERROR_NOMATCH)
        return TV_FALSE;
    record_failure(p, n, v, rc, limit);
    return TV_UNKNOWN;
}

static truth test_text(dfs_pred *p, const pred_node *n, dfs_pred_text v)
{
    switch (n->kind) {
    case N_CMP:
        return apply_op(n->op, text_cmp(v, n->str));
    case N_ISIN:
        return truth_of(bsearch(&v, n->strs, n->nitems, sizeof *n->strs, text_qcmp) != NULL);
    case N_STARTSWITH:
        return truth_of(v.len >= n->str.len && (n->str.len == 0 || memcmp(v.s, n->str.s, n->str.len) == 0));
    case N_CONTAINS:
        return regex_search(p, n, v);
    default:
        return TV_FALSE;
    }
}

static truth test_num(const pred_node *n, int64_t v)
{
    if (n->kind == N_ISIN)
        return truth_of(bsearch(&v, n->nums, n->nitems, sizeof *n->nums, num_qcmp) != NULL);
    return apply_op(n->op, (v > n->num) - (v < n->num));
}

/* f against v exactly (no rounding of v to a double). */
static int cmp_double_int(double f, int64_t v)
{
    if (f < -9223372036854775808.0)
        return -1;
    if (f >= 9223372036854775808.0)
        return 1;
    int64_t t = (int64_t)f; /* toward zero, in range */
    if (t != v)
        return t < v ? -1 : 1;
    return (f > (double)t) - (f < (double)t);
}

/* A string that is a whole decimal integer ("-12"; no blanks, no '+', in range). */
static bool whole_int(const char *s, size_t len, int64_t *out)
{
    bool neg = len && s[0] == '-';
    size_t i = neg;
    if (i == len)
        return false;
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < len; i++) {
        if (!is_digit(s[i]) || v > (limit - (uint64_t)(s[i] - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static truth eval_arg(const pred_node *n, const dfs_pred_row *row)
{
    if (row->has_arg_truths && n->test) {
        truth t = (truth)(row->arg_truths >> (2 * (n->test - 1)) & 3);
        return t > TV_UNKNOWN ? TV_UNKNOWN : t;
    }
    dfs_pred_arg a;
    memset(&a, 0, sizeof a);
    if (!row->args || !row->args(row->args_ctx, n->key.s, n->key.len, &a))
        return TV_UNKNOWN;
    if (!n->arg_int)
        return a.type == DFS_PRED_ARG_TEXT && a.s ? apply_op(n->op, text_cmp((dfs_pred_text){a.s, a.len}, n->str))
                                                  : TV_UNKNOWN;
    int64_t v;
    switch (a.type) {
    case DFS_PRED_ARG_INT: return apply_op(n->op, (a.i > n->num) - (a.i < n->num));
    case DFS_PRED_ARG_FLOAT: return a.f == a.f ? apply_op(n->op, cmp_double_int(a.f, n->num)) : TV_UNKNOWN;
    case DFS_PRED_ARG_TEXT:
        return a.s && whole_int(a.s, a.len, &v) ? apply_op(n->op, (v > n->num) - (v < n->num)) : TV_UNKNOWN;
    }
    return TV_UNKNOWN;
}

static truth eval_test(dfs_pred *p, const pred_node *n, const dfs_pred_row *row)
{
    if (n->kind == N_ARG)
        return eval_arg(n, row);
    if (is_text_col(n->col)) {
        dfs_pred_text v = row->text[n->col];
        return v.s ? test_text(p, n, v) : TV_UNKNOWN;
    }
    dfs_pred_num v = row->num[n->col - DFS_PRED_IO_CAT];
    return v.present ? test_num(n, v.v) : TV_UNKNOWN;
}

static truth eval_node(dfs_pred *p, uint32_t i, const dfs_pred_row *row)
{
    const pred_node *n = &p->nodes[i];
    truth r;
    switch (n->kind) {
    case N_NOT:
        r = eval_node(p, n->kid, row);
        return r == TV_UNKNOWN ? TV_UNKNOWN : truth_of(r == TV_FALSE);
    case N_AND:
    case N_OR: {
        /* The value that decides the chain on its own: FALSE for "&", TRUE for "|". */
        truth decisive = n->kind == N_AND ? TV_FALSE : TV_TRUE, acc = n->kind == N_AND ? TV_TRUE : TV_FALSE;
        for (size_t k = 0; k < n->nkids; k++) {
            r = eval_node(p, n->kids[k], row);
            if (r == decisive)
                return r;
            if (r == TV_UNKNOWN)
                acc = TV_UNKNOWN;
        }
        return acc;
    }
    default:
        return eval_test(p, n, row);
    }
}

bool dfs_pred_match(dfs_pred *p, const dfs_pred_row *row)
{
    return p->root == NO_NODE || eval_node(p, p->root, row) == TV_TRUE;
}

/* ------------------------------------------------------------------------------------------------
 * Memoising set
 * ---------------------------------------------------------------------------------------------- */

/* The memo is one flat array of slots, each holding the key words then the answer. A key is the
 * null mask of the used columns followed by one word per used column (string id or integer). */
struct dfs_pred_set {
    dfs_pred **preds;
    size_t n;
    unsigned columns;
    bool uses_args;  /* a member reads arguments: no memo, unless the row carries their answers */
    bool args_bound; /* every member's argument tests are bound (dfs_pred_set_bind_arg_tests) */
    dfs_pred_col used[DFS_PRED_NCOLS];
    size_t nused, key_words;
    uint64_t *slots;
    unsigned char *occupied;
    size_t cap, count;
    uint64_t lookups, misses;
};

void dfs_pred_set_free(dfs_pred_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        dfs_pred_free(s->preds[i]);
    free(s->preds);
    free(s->slots);
    free(s->occupied);
    free(s);
}

static void set_error(dfs_pred_error *err, size_t index, const char *msg)
{
    if (!err)
        return;
    memset(err, 0, sizeof *err);
    err->index = index;
    snprintf(err->message, sizeof err->message, "%s", msg);
}

static void set_index_used_columns(dfs_pred_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        s->columns |= dfs_pred_columns(s->preds[i]);
        s->uses_args |= dfs_pred_uses_args(s->preds[i]);
    }
    for (int c = 0; c < DFS_PRED_NCOLS; c++)
        if (s->columns & DFS_PRED_COL_BIT(c))
            s->used[s->nused++] = (dfs_pred_col)c;
    s->key_words = 1 + s->nused + s->uses_args; /* the answered argument tests, last */
}

dfs_pred_set *dfs_pred_set_new(const char *const *texts, size_t n, dfs_pred_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    if (n > DFS_PRED_MAX_SET) {
        set_error(err, DFS_PRED_MAX_SET, "too many predicates in one set (at most 64)");
        return NULL;
    }
    dfs_pred_set *s = calloc(1, sizeof *s);
    if (s && n)
        s->preds = calloc(n, sizeof *s->preds);
    if (!s || (n && !s->preds)) {
        free(s);
        set_error(err, 0, "out of memory");
        return NULL;
    }
    for (; s->n < n; s->n++) {
        s->preds[s->n] = dfs_pred_parse(texts[s->n], err);
        if (!s->preds[s->n]) {
            if (err)
                err->index = s->n;
            dfs_pred_set_free(s);
            return NULL;
        }
    }
    set_index_used_columns(s);
    return s;
}

size_t dfs_pred_set_count(const dfs_pred_set *s)
{
    return s->n;
}

unsigned dfs_pred_set_columns(const dfs_pred_set *s)
{
    return s->columns;
}

bool dfs_pred_set_uses_args(const dfs_pred_set *s)
{
    return s->uses_args;
}

uint64_t dfs_pred_set_eval_direct(dfs_pred_set *s, const dfs_pred_row *row)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < s->n; i++)
        if (dfs_pred_match(s->preds[i], row))
            bits |= UINT64_C(1) << i;
    return bits;
}

static void make_key(const dfs_pred_set *s, const dfs_pred_row *row, const uint32_t *ids, uint64_t *key)
{
    uint64_t nulls = 0;
    for (size_t k = 0; k < s->nused; k++) {
        dfs_pred_col c = s->used[k];
        uint64_t v = 0;
        if (is_text_col(c)) {
            if (row->text[c].s)
                v = ids[c];
            else
                nulls |= UINT64_C(1) << k;
        } else {
            dfs_pred_num num = row->num[c - DFS_PRED_IO_CAT];
            if (num.present)
                v = (uint64_t)num.v;
            else
                nulls |= UINT64_C(1) << k;
        }
        key[1 + k] = v;
    }
    key[0] = nulls;
    if (s->uses_args)
        key[1 + s->nused] = row->arg_truths;
}

static uint64_t *slot(const dfs_pred_set *s, size_t i)
{
    return s->slots + i * (s->key_words + 1);
}

/* Index of the key's slot, or of the empty slot where it belongs. cap must be > count. */
static size_t memo_probe(const dfs_pred_set *s, const uint64_t *key)
{
    size_t mask = s->cap - 1, bytes = s->key_words * sizeof *key;
    size_t i = (size_t)dfs_hash64(key, bytes) & mask;
    while (s->occupied[i] && memcmp(slot(s, i), key, bytes) != 0)
        i = (i + 1) & mask;
    return i;
}

static bool memo_grow(dfs_pred_set *s)
{
    size_t cap = s->cap ? s->cap * 2 : MEMO_MIN_CAP, stride = s->key_words + 1;
    uint64_t *slots = malloc(cap * stride * sizeof *slots);
    unsigned char *occupied = calloc(cap, 1);
    if (!slots || !occupied) {
        free(slots);
        free(occupied);
        return false;
    }
    dfs_pred_set old = *s;
    s->slots = slots;
    s->occupied = occupied;
    s->cap = cap;
    for (size_t i = 0; i < old.cap; i++) {
        if (!old.occupied[i])
            continue;
        size_t j = memo_probe(s, slot(&old, i));
        memcpy(slot(s, j), slot(&old, i), stride * sizeof *slots);
        s->occupied[j] = 1;
    }
    free(old.slots);
    free(old.occupied);
    return true;
}

/* A full memo or a failed allocation only costs speed: the caller already has the answer. */
static void memo_insert(dfs_pred_set *s, const uint64_t *key, uint64_t answer)
{
    if (s->count >= MEMO_MAX_KEYS)
        return;
    if ((s->count + 1) * 2 > s->cap && !memo_grow(s))
        return;
    size_t i = memo_probe(s, key);
    memcpy(slot(s, i), key, s->key_words * sizeof *key);
    slot(s, i)[s->key_words] = answer;
    s->occupied[i] = 1;
    s->count++;
}

uint64_t dfs_pred_set_eval(dfs_pred_set *s, const dfs_pred_row *row, const uint32_t *text_ids)
{
    s->lookups++;
    bool needs_ids = (s->columns & (DFS_PRED_COL_BIT(DFS_PRED_IO_CAT) - 1)) != 0;
    bool args_known = !s->uses_args || (s->args_bound && row->has_arg_truths);
    if (s->n == 0 || !args_known || (needs_ids && !text_ids)) {
        s->misses++;
        return dfs_pred_set_eval_direct(s, row);
    }
    uint64_t key[2 + DFS_PRED_NCOLS];
    make_key(s, row, text_ids, key);
    if (s->cap) {
        size_t i = memo_probe(s, key);
        if (s->occupied[i])
            return slot(s, i)[s->key_words];
    }
    s->misses++;
    uint64_t answer = dfs_pred_set_eval_direct(s, row);
    if (!dfs_pred_set_failed(s, NULL)) /* a failed member's answer is no answer to remember */
        memo_insert(s, key, answer);
    return answer;
}

bool dfs_pred_set_failed(const dfs_pred_set *s, dfs_pred_error *err)
{
    for (size_t i = 0; i < s->n; i++)
        if (dfs_pred_failed(s->preds[i], err)) {
            if (err)
                err->index = i;
            return true;
        }
    return false;
}

void dfs_pred_set_stats_get(const dfs_pred_set *s, dfs_pred_set_stats *out)
{
    memset(out, 0, sizeof *out);
    out->lookups = s->lookups;
    out->misses = s->misses;
    out->keys = s->count;
    for (size_t i = 0; i < s->n; i++)
        out->regex_evals += dfs_pred_regex_evals(s->preds[i]);
}

/* ------------------------------------------------------------------------------------------------
 * Argument tests answered apart (predicate.h)
 * ---------------------------------------------------------------------------------------------- */

struct dfs_pred_arg_tests {
    pred_node test[DFS_PRED_MAX_ARG_TESTS]; /* N_ARG nodes with owned copies of key and string */
    size_t n;
    dfs_pred_text key[DFS_PRED_MAX_ARG_KEYS]; /* the distinct keys, pointing into test[].key */
    size_t nkeys;
};

dfs_pred_arg_tests *dfs_pred_arg_tests_new(void)
{
    return calloc(1, sizeof(dfs_pred_arg_tests));
}

void dfs_pred_arg_tests_free(dfs_pred_arg_tests *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        free_node(&t->test[i]);
    free(t);
}

static bool same_test(const pred_node *a, const pred_node *b)
{
    if (text_cmp(a->key, b->key) != 0 || a->op != b->op || a->arg_int != b->arg_int)
        return false;
    return a->arg_int ? a->num == b->num : text_cmp(a->str, b->str) == 0;
}

static bool has_key(const dfs_pred_arg_tests *t, dfs_pred_text key)
{
    for (size_t i = 0; i < t->nkeys; i++)
        if (text_cmp(t->key[i], key) == 0)
            return true;
    return false;
}

static char *copy_bytes(const char *s, size_t len)
{
    char *c = malloc(len + 1);
    if (c) {
        if (len)
            memcpy(c, s, len);
        c[len] = 0;
    }
    return c;
}

/* The number of n's test in t, added when new; -1 with *err when a bound is reached. */
static int arg_test_number(dfs_pred_arg_tests *t, const pred_node *n, dfs_pred_error *err)
{
    for (size_t i = 0; i < t->n; i++)
        if (same_test(&t->test[i], n))
            return (int)i;
    bool new_key = !has_key(t, n->key);
    if (t->n == DFS_PRED_MAX_ARG_TESTS || (new_key && t->nkeys == DFS_PRED_MAX_ARG_KEYS)) {
        char msg[128];
        bool tests = t->n == DFS_PRED_MAX_ARG_TESTS;
        snprintf(msg, sizeof msg, "too many distinct argument %s in this command's predicates (at most %d)",
                 tests ? "tests" : "keys", tests ? DFS_PRED_MAX_ARG_TESTS : DFS_PRED_MAX_ARG_KEYS);
        set_error(err, 0, msg);
        return -1;
    }
    pred_node *c = &t->test[t->n];
    *c = (pred_node){.kind = N_ARG, .op = n->op, .num = n->num, .arg_int = n->arg_int};
    c->key = (dfs_pred_text){copy_bytes(n->key.s, n->key.len), n->key.len};
    c->str = (dfs_pred_text){n->str.s ? copy_bytes(n->str.s, n->str.len) : NULL, n->str.len};
    if (!c->key.s || (n->str.s && !c->str.s)) {
        free_node(c);
        set_error(err, 0, "out of memory");
        return -1;
    }
    if (new_key)
        t->key[t->nkeys++] = c->key;
    return (int)t->n++;
}

bool dfs_pred_bind_arg_tests(dfs_pred *p, dfs_pred_arg_tests *t, dfs_pred_error *err)
{
    for (uint32_t k = 0; k < p->nnodes; k++) {
        pred_node *n = &p->nodes[k];
        if (n->kind != N_ARG)
            continue;
        int i = arg_test_number(t, n, err);
        if (i < 0)
            return false;
        n->test = (uint32_t)i + 1;
    }
    p->args_bound = true;
    return true;
}

bool dfs_pred_set_bind_arg_tests(dfs_pred_set *s, dfs_pred_arg_tests *t, dfs_pred_error *err)
{
    for (size_t i = 0; i < s->n; i++)
        if (!dfs_pred_bind_arg_tests(s->preds[i], t, err)) {
            if (err)
                err->index = i;
            return false;
        }
    s->args_bound = true;
    return true;
}

size_t dfs_pred_arg_tests_count(const dfs_pred_arg_tests *t)
{
    return t->n;
}

size_t dfs_pred_arg_tests_key_count(const dfs_pred_arg_tests *t)
{
    return t->nkeys;
}

const char *dfs_pred_arg_tests_key(const dfs_pred_arg_tests *t, size_t i, size_t *len)
{
    *len = i < t->nkeys ? t->key[i].len : 0;
    return i < t->nkeys ? t->key[i].s : NULL;
}

uint64_t dfs_pred_arg_tests_eval(const dfs_pred_arg_tests *t, dfs_pred_arg_lookup lookup, const void *ctx)
{
    dfs_pred_row row;
    dfs_pred_row_init(&row);
    row.args = lookup;
    row.args_ctx = ctx;
    uint64_t word = 0;
    for (size_t i = 0; i < t->n; i++)
        word |= (uint64_t)eval_arg(&t->test[i], &row) << (2 * i);
    return word;
}

char *dfs_pred_contains_text(const char *column, const char *regex)
{
    size_t n = strlen(regex), len = strlen(column) + 2 * n + 20;
    char *text = malloc(len);
    if (!text)
        return NULL;
    size_t k = (size_t)snprintf(text, len, "%s.str.contains(\"", column);
    for (size_t i = 0; i < n; i++) {
        if (regex[i] == '\\' || regex[i] == '"')
            text[k++] = '\\';
        text[k++] = regex[i];
    }
    snprintf(text + k, len - k, "\")");
    return text;
}
