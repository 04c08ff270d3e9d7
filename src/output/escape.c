/* escape.c - the escaping of each output context (escape.h).
 *
 * Each context is one function deciding, character by character, to keep a character or to
 * replace it; two drivers apply it: one writes runs of kept characters in one piece through a
 * sink, the other fills a bounded buffer without cutting a character or a replacement. So the
 * rules of a context live in one place whichever way its text is written. */
#include "output/escape.h"

#include <stdbool.h>
#include <string.h>

#include "util/utf8.h"

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */
#define REP_MAX 8                  /* the longest replacement of one character */

/* What a context does with the character at p (left > 0 bytes available): returns 0 to keep it,
 * else the length of its replacement written to rep. *used: the character's bytes in the input
 * (1 for an invalid byte). */
typedef size_t (*char_fn)(const unsigned char *p, size_t left, unsigned flags, char *rep, size_t *used);

/* A context: its character function, and the ASCII bytes it may replace (non-zero entries; bit 1
 * of the CSV table marks the bytes that make a field quoted). Other ASCII bytes are kept without
 * a call, and a text with none of them and no byte above 0x7F, the usual case, is found by one
 * branch-free pass and written in one piece. Non-ASCII bytes always go to the function (it checks
 * the UTF-8). */
typedef struct context {
    char_fn fn;
    unsigned char special[128];
} context;

#define C0 /* the C0 controls, 0x00..0x1F */                                                            \
    [0] = 1, [1] = 1, [2] = 1, [3] = 1, [4] = 1, [5] = 1, [6] = 1, [7] = 1, [8] = 1, [9] = 1, [10] = 1,  \
    [11] = 1, [12] = 1, [13] = 1, [14] = 1, [15] = 1, [16] = 1, [17] = 1, [18] = 1, [19] = 1, [20] = 1, \
    [21] = 1, [22] = 1, [23] = 1, [24] = 1, [25] = 1, [26] = 1, [27] = 1, [28] = 1, [29] = 1, [30] = 1, \
    [31] = 1

static bool special(const context *cx, unsigned char c)
{
    return c >= 0x80 || cx->special[c];
}

/* The special entries of the bytes of s, or'ed, with 0x80 when a byte is above 0x7F. */
static unsigned specials_in(const context *cx, const unsigned char *p, size_t n)
{
    unsigned acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= cx->special[p[i] & 0x7F] | (p[i] & 0x80u);
    return acc;
}

static size_t put_lit(char *rep, const char *lit)
{
    size_t n = strlen(lit);
    memcpy(rep, lit, n);
    return n;
}

/* The UTF-8 sequence at p: its length in *used; false when invalid (then *used is 1). */
static bool valid_char(const unsigned char *p, size_t left, size_t *used)
{
    size_t len = p[0] < 0x80 ? 1 : dfs_utf8_len(p, left);
    *used = len ? len : 1;
    return len != 0;
}

static size_t csv_char(const unsigned char *p, size_t left, unsigned flags, char *rep, size_t *used)
{
    (void)flags;
    if (!valid_char(p, left, used))
        return put_lit(rep, REPLACEMENT);
    return p[0] == '"' ? put_lit(rep, "\"\"") : 0;
}

#define MARKUP "&<>\"'" /* what XML and HTML write as references */

/* The reference of a MARKUP character (c not NUL); the apostrophe's is apos, NULL to keep it. */
static size_t markup_ref(unsigned char c, const char *apos, char *rep)
{
    switch (c) {
    case '&': return put_lit(rep, "&amp;");
    case '<': return put_lit(rep, "&lt;");
    case '>': return put_lit(rep, "&gt;");
    case '"': return put_lit(rep, "&quot;");
    default: return apos ? put_lit(rep, apos) : 0;
    }
}

/* U+FFFE and U+FFFF: valid UTF-8 that XML 1.0 excludes from its characters. */
static bool xml_nonchar(const unsigned char *p, size_t len)
{
    return len == 3 && p[0] == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF);
}

static size_t xml_char(const unsigned char *p, size_t left, unsigned flags, char *rep, size_t *used)
{
    if (!valid_char(p, left, used) || xml_nonchar(p, *used))
        return put_lit(rep, REPLACEMENT);
    if (p[0] && strchr(MARKUP, p[0]))
        return markup_ref(p[0], flags & DFS_XML_APOS ? "&apos;" : NULL, rep);
    switch (p[0]) {
    case '\t':
    case '\n':
    case '\r': return flags & DFS_XML_ONE_LINE ? put_lit(rep, "&#x20;") : 0;
    default: return p[0] < 0x20 || p[0] == 0x7F ? put_lit(rep, REPLACEMENT) : 0;
    }
}

static size_t dot_char(const unsigned char *p, size_t left, unsigned flags, char *rep, size_t *used)
{
    (void)flags;
    if (!valid_char(p, left, used))
        return put_lit(rep, REPLACEMENT);
    switch (p[0]) {
    case '"': return put_lit(rep, "\\\"");
    case '\\': return put_lit(rep, "\\\\");
    case '\n': return put_lit(rep, "\\n");
    case '\t': return 0;
    default: return p[0] < 0x20 || p[0] == 0x7F ? put_lit(rep, REPLACEMENT) : 0;
    }
}

static size_t hex_escape(char *rep, unsigned code)
{
    static const char hex[] = "0123456789abcdef";
    rep[0] = '\\';
    rep[1] = 'x';
    rep[2] = hex[code >> 4 & 0xF];
    rep[3] = hex[code & 0xF];
    return 4;
}

static size_t term_char(const unsigned char *p, size_t left, unsigned flags, char *rep, size_t *used)
{
    (void)flags;
    if (!valid_char(p, left, used))
        return put_lit(rep, REPLACEMENT);
    if (p[0] < 0x20 || p[0] == 0x7F)
        return hex_escape(rep, p[0]);
    if (*used == 2 && p[0] == 0xC2 && p[1] < 0xA0) /* C1: U+0080..U+009F */
        return hex_escape(rep, p[1]);
    return 0;
}

/* The code point of a valid UTF-8 sequence of len bytes. */
static unsigned code_point(const unsigned char *p, size_t len)
{
    static const unsigned char lead_mask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
    unsigned c = p[0] & lead_mask[len];
    for (size_t i = 1; i < len; i++)
        c = c << 6 | (p[i] & 0x3Fu);
    return c;
}

/* What HTML5 calls a parse error in its input stream even as a character: controls (C0 but tab,
 * LF, FF and CR; DEL; C1) and noncharacters (U+FDD0..U+FDEF, U+xFFFE and U+xFFFF). */
static bool html_bad(unsigned c)
{
    if (c < 0x20)
        return c != '\t' && c != '\n' && c != '\f' && c != '\r';
    return (c >= 0x7F && c <= 0x9F) || (c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE;
}

static size_t html_char(const unsigned char *p, size_t left, unsigned flags, char *rep, size_t *used)
{
    (void)flags;
    if (!valid_char(p, left, used) || html_bad(code_point(p, *used)))
        return put_lit(rep, REPLACEMENT);
    return p[0] && strchr(MARKUP, p[0]) ? markup_ref(p[0], "&#39;", rep) : 0;
}

/* JSON string characters that stay inert inside a script element: markup characters and the
 * line separators JavaScript once refused in strings as \u escapes. */
static size_t script_char(const unsigned char *p, size_t left, unsigned flags, char *rep, size_t *used)
{
    static const char hex[] = "0123456789abcdef";
    (void)flags;
    if (!valid_char(p, left, used))
        return put_lit(rep, "\\ufffd");
    unsigned c = code_point(p, *used);
    if (c == '"' || c == '\\')
        return rep[0] = '\\', rep[1] = (char)c, 2;
    if (c >= 0x20 && c != '<' && c != '>' && c != '&' && c != '\'' && c != 0x7F && c != 0x2028 && c != 0x2029)
        return 0;
    memcpy(rep, "\\u", 2);
    for (int i = 0; i < 4; i++)
        rep[2 + i] = hex[c >> (12 - 4 * i) & 0xF];
    return 6;
}

static const context csv_cx = {csv_char, {['"'] = 3, [','] = 2, ['\n'] = 2, ['\r'] = 2}};
static const context xml_cx = {xml_char, {C0, ['"'] = 1, ['&'] = 1, ['\''] = 1, ['<'] = 1, ['>'] = 1, [0x7F] = 1}};
static const context dot_cx = {dot_char, {C0, ['"'] = 1, ['\\'] = 1, [0x7F] = 1}};
static const context html_cx = {html_char,
                                {C0, ['"'] = 1, ['&'] = 1, ['\''] = 1, ['<'] = 1, ['>'] = 1, [0x7F] = 1}};
static const context script_cx = {script_char,
                                  {C0, ['"'] = 1, ['\\'] = 1, ['&'] = 1, ['\''] = 1, ['<'] = 1, ['>'] = 1, [0x7F] = 1}};
static const context term_cx = {term_char, {C0, [0x7F] = 1}};

/* Kept characters go out in runs, replacements one by one. */
static void escape_runs(const context *cx, unsigned flags, dfs_put_fn put, void *sink, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    if (!(specials_in(cx, p, n) & (0x80 | 1))) {
        if (n)
            put(sink, s, n);
        return;
    }
    size_t run = 0, i = 0;
    char rep[REP_MAX];
    while (i < n) {
        if (!special(cx, p[i])) {
            i++;
            continue;
        }
        size_t used, k = cx->fn(p + i, n - i, flags, rep, &used);
        if (k) {
            if (i > run)
                put(sink, s + run, i - run);
            put(sink, rep, k);
            run = i + used;
        }
        i += used;
    }
    if (n > run)
        put(sink, s + run, n - run);
}

/* Into buf (cap >= 1), NUL-terminated, stopping before what does not fit whole. */
static size_t escape_cut(const context *cx, unsigned flags, char *buf, size_t cap, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    char rep[REP_MAX];
    for (size_t i = 0; i < n;) {
        size_t used = 1, k = special(cx, p[i]) ? cx->fn(p + i, n - i, flags, rep, &used) : 0;
        size_t len = k ? k : used;
        if (o + len >= cap)
            break;
        memcpy(buf + o, k ? rep : s + i, len);
        o += len;
        i += used;
    }
    buf[o] = '\0';
    return o;
}

void dfs_put_file(void *fp, const char *s, size_t n)
{
    fwrite_unlocked(s, 1, n, (FILE *)fp);
}

void dfs_csv_escape(dfs_put_fn put, void *sink, const char *s, size_t n)
{
    unsigned found = specials_in(&csv_cx, (const unsigned char *)s, n);
    if (found & 2)
        put(sink, "\"", 1);
    if (!(found & (0x80 | 1)))
        put(sink, s, n);
    else
        escape_runs(&csv_cx, 0, put, sink, s, n);
    if (found & 2)
        put(sink, "\"", 1);
}

void dfs_xml_escape(dfs_put_fn put, void *sink, const char *s, size_t n, unsigned flags)
{
    escape_runs(&xml_cx, flags, put, sink, s, n);
}

void dfs_html_escape(dfs_put_fn put, void *sink, const char *s, size_t n)
{
    escape_runs(&html_cx, 0, put, sink, s, n);
}

void dfs_script_json_escape(dfs_put_fn put, void *sink, const char *s, size_t n)
{
    escape_runs(&script_cx, 0, put, sink, s, n);
}

void dfs_dot_escape(dfs_put_fn put, void *sink, const char *s, size_t n)
{
    escape_runs(&dot_cx, 0, put, sink, s, n);
}

void dfs_term_escape(dfs_put_fn put, void *sink, const char *s, size_t n)
{
    escape_runs(&term_cx, 0, put, sink, s, n);
}

char *dfs_term_cell(char *buf, size_t cap, const char *s, size_t n)
{
    escape_cut(&term_cx, 0, buf, cap, s, n);
    return buf;
}

char *dfs_term_str(char *buf, size_t cap, const char *s)
{
    return dfs_term_cell(buf, cap, s ? s : "", s ? strlen(s) : 0);
}

static void count_bytes(void *total, const char *s, size_t n)
{
    (void)s;
    *(size_t *)total += n;
}

size_t dfs_term_len(const char *s, size_t n)
{
    size_t total = 0;
    escape_runs(&term_cx, 0, count_bytes, &total, s, n);
    return total;
}

void dfs_term_pad(FILE *out, const char *s, size_t n, size_t width)
{
    dfs_term_escape(dfs_put_file, out, s, n);
    for (size_t w = dfs_term_len(s, n); w < width; w++)
        fputc(' ', out);
}

void dfs_term_puts(FILE *out, const char *s)
{
    if (s)
        dfs_term_escape(dfs_put_file, out, s, strlen(s));
}
