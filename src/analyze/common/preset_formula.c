/* preset_formula.c - additional-metric formulas (preset.h, §7.5 of layered-analysis.md):
 * arithmetic over the columns of a flat-view row.
 *
 * The text is expanded (placeholders replaced) with a map from each expanded byte back to its
 * column in the original, then tokenized and parsed by recursive descent into a postfix program.
 * Invariants: nesting is bounded, which bounds both the recursion and the evaluation stack; a
 * parsed formula owns its columns and program (one arena), and its evaluation gives null (false)
 * rather than a value that is not finite. */
#include "analyze/common/preset.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/preset_internal.h"
#include "util/arena.h"

#define DEFAULT_EPSILON 1e-9

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

dfs_formula *preset_formula_parse_at(const char *text, const dfs_formula_vars *vars,
                                     dfs_preset_error *err, size_t *errcol)
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
    return preset_formula_parse_at(text, vars, err, &col);
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
