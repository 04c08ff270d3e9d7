/* merge_python.c - Python's json.dumps, from a record's original text: what Composer's merge
 * writes (merge_composer.c). Default separators (", " and ": "), ASCII only (\uXXXX escapes, DEL
 * included), Python's own number forms (repr of floats, integers with all their digits), keys in
 * first-seen order with the last value of a repeated key. Also the shortest float forms the
 * default merge writes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/merge/merge_internal.h"
#include "parse/json.h"
#include "util/shortest.h"
#include "util/utf8.h"

/* ---- numbers as Python prints them --------------------------------------------------------------- */

/* Python's repr, but NaN and infinities as json.dumps spells them (its allow_nan output). */
void mpy_float(double v, char *buf)
{
    if (isnan(v) || isinf(v))
        strcpy(buf, isnan(v) ? "NaN" : v < 0 ? "-Infinity" : "Infinity");
    else
        dfs_py_repr_finite(v, buf);
}

/* The shortest JSON number, zero written "0" whatever its sign. */
void mjson_float(double v, char *buf)
{
    if (v == 0)
        strcpy(buf, "0");
    else
        dfs_shortest_json_finite(v, buf);
}

/* ---- json.dumps, from the original text ------------------------------------------------------- */

#define PY_MAX_DEPTH 500

static void py_char(dfs_bytebuf *b, uint32_t c)
{
    char esc[16];
    switch (c) {
    case '"': dfs_bytebuf_puts(b, "\\\""); return;
    case '\\': dfs_bytebuf_puts(b, "\\\\"); return;
    case '\n': dfs_bytebuf_puts(b, "\\n"); return;
    case '\r': dfs_bytebuf_puts(b, "\\r"); return;
    case '\t': dfs_bytebuf_puts(b, "\\t"); return;
    case '\b': dfs_bytebuf_puts(b, "\\b"); return;
    case '\f': dfs_bytebuf_puts(b, "\\f"); return;
    default: break;
    }
    if (c >= 0x20 && c < 0x7F) {
        char ch = (char)c;
        dfs_bytebuf_put(b, &ch, 1);
    } else if (c <= 0xFFFF) {
        snprintf(esc, sizeof esc, "\\u%04x", c);
        dfs_bytebuf_puts(b, esc);
    } else {
        c -= 0x10000;
        snprintf(esc, sizeof esc, "\\u%04x\\u%04x", 0xD800 + (c >> 10), 0xDC00 + (c & 0x3FF));
        dfs_bytebuf_puts(b, esc);
    }
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A UTF-8 sequence decoded (n bytes, valid). */
static uint32_t utf8_code(const unsigned char *s, size_t n)
{
    uint32_t c = s[0] & (0x7Fu >> n);
    for (size_t i = 1; i < n; i++)
        c = c << 6 | (s[i] & 0x3Fu);
    return c;
}

/* The string token at s (s[0] == '"'), ensure_ascii. Returns its end, or NULL. */
static const char *py_string(dfs_bytebuf *b, const char *s, const char *end)
{
    dfs_bytebuf_put(b, "\"", 1);
    for (s++; s < end;) {
        unsigned char c = (unsigned char)*s;
        if (c == '"') {
            dfs_bytebuf_put(b, "\"", 1);
            return s + 1;
        }
        if (c == '\\') {
            if (end - s < 2)
                return NULL;
            char e = s[1];
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *k = strchr(from, e);
            if (e && k) {
                py_char(b, (unsigned char)to[k - from]);
                s += 2;
                continue;
            }
            if (e != 'u' || end - s < 6)
                return NULL;
            int v = 0;
            for (int i = 2; i < 6; i++) {
                int h = hexval(s[i]);
                if (h < 0)
                    return NULL;
                v = v << 4 | h;
            }
            py_char(b, (uint32_t)v); /* surrogate halves stay \u escapes, as Python keeps them */
            s += 6;
            continue;
        }
        size_t n = c < 0x80 ? 1 : dfs_utf8_len((const unsigned char *)s, (size_t)(end - s));
        py_char(b, n == 0 ? 0xFFFD : n == 1 ? c : utf8_code((const unsigned char *)s, n));
        s += n ? n : 1;
    }
    return NULL;
}

/* A number token: ints keep their digits, floats are printed as Python's repr. */
static const char *py_number(dfs_bytebuf *b, const char *s, const char *end)
{
    dfs_jnum num;
    const char *e = dfs_json_number(s, end, &num);
    if (!e)
        return NULL;
    if (num.nonfinite) {
        dfs_bytebuf_puts(b, *s == '-' ? "-Infinity" : (s[0] == 'N' ? "NaN" : "Infinity"));
        return e;
    }
    if (num.is_int) {
        const char *d = s + (*s == '-' || *s == '+');
        while (d + 1 < e && *d == '0')
            d++;
        if (*s == '-' && !(e - d == 1 && *d == '0'))
            dfs_bytebuf_put(b, "-", 1);
        dfs_bytebuf_put(b, d, (size_t)(e - d));
        return e;
    }
    char buf[40];
    mpy_float(dfs_jnum_double(&num), buf);
    dfs_bytebuf_puts(b, buf);
    return e;
}

/* The members of the object at s: keys, canonical keys (in keys) and value spans. */
const char *mpy_members(const char *s, const char *end, pymembers *ms, dfs_bytebuf *keys)
{
    s = dfs_json_ws(s + 1, end);
    if (s < end && *s == '}')
        return s + 1;
    for (;;) {
        if (s >= end || *s != '"')
            return NULL;
        pymember m = {.k = s, .ck = keys->n};
        s = py_string(keys, s, end);
        if (!s)
            return NULL;
        m.ckn = keys->n - m.ck;
        s = dfs_json_ws(s, end);
        if (s >= end || *s != ':')
            return NULL;
        m.v = dfs_json_ws(s + 1, end);
        unsigned flags = 0;
        m.vend = m.v < end ? dfs_json_skip(m.v, end, false, &flags) : NULL;
        if (!m.vend || !dfs_vec_push(ms, m))
            return NULL;
        s = dfs_json_ws(m.vend, end);
        if (s < end && *s == '}')
            return s + 1;
        if (s >= end || *s != ',')
            return NULL;
        s = dfs_json_ws(s + 1, end);
    }
}

typedef struct pykeys {
    const pymembers *ms;
    const dfs_bytebuf *keys;
} pykeys;

static int cmp_member(const void *pa, const void *pb, void *ctx)
{
    const pykeys *k = ctx;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const pymember *x = &k->ms->v[a], *y = &k->ms->v[b];
    size_t n = x->ckn < y->ckn ? x->ckn : y->ckn;
    int c = memcmp(k->keys->v + x->ck, k->keys->v + y->ck, n);
    if (!c)
        c = (x->ckn > y->ckn) - (x->ckn < y->ckn);
    return c ? c : (a > b) - (a < b);
}

/* A Python dict keeps a repeated key where it first came, with its last value. Sorting the
 * members by key keeps this linear-logarithmic whatever the record holds. */
static bool resolve_repeats(pymembers *ms, const dfs_bytebuf *keys)
{
    size_t n = ms->n;
    for (size_t i = 0; i < n; i++)
        ms->v[i].use = i;
    if (n < 2)
        return true;
    size_t *order = malloc(n * sizeof *order);
    if (!order)
        return false;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    pykeys ctx = {ms, keys};
    qsort_r(order, n, sizeof *order, cmp_member, &ctx);
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && ms->v[order[b]].ckn == ms->v[order[a]].ckn &&
               memcmp(keys->v + ms->v[order[b]].ck, keys->v + ms->v[order[a]].ck, ms->v[order[a]].ckn) == 0)
            b++;
        ms->v[order[a]].use = order[b - 1];
        for (size_t k = a + 1; k < b; k++)
            ms->v[order[k]].use = SIZE_MAX;
        a = b;
    }
    free(order);
    return true;
}

bool mpy_key_is(const dfs_bytebuf *keys, const pymember *m, const char *lit)
{
    size_t n = strlen(lit);
    return m->ckn == n + 2 && memcmp(keys->v + m->ck + 1, lit, n) == 0;
}

/* ts + diff as Python computes it: int + int, or float + int. */
static bool py_shifted_ts(dfs_bytebuf *b, const char *v, const char *vend, int64_t diff)
{
    dfs_jnum num;
    if (dfs_json_number(v, vend, &num) != vend || num.nonfinite)
        return false;
    char buf[48];
    if (num.is_int && !num.overflow) {
        __int128 t = num.neg ? -(__int128)num.mag : (__int128)num.mag;
        t += diff;
        bool neg = t < 0;
        unsigned __int128 mag = neg ? (unsigned __int128)-t : (unsigned __int128)t;
        char digits[48];
        int n = 0;
        do {
            digits[n++] = (char)('0' + (int)(mag % 10));
            mag /= 10;
        } while (mag);
        int k = 0;
        if (neg)
            buf[k++] = '-';
        while (n)
            buf[k++] = digits[--n];
        buf[k] = '\0';
    } else if (!num.is_int) {
        mpy_float(dfs_jnum_double(&num) + (double)diff, buf);
    } else {
        return false;
    }
    dfs_bytebuf_puts(b, buf);
    return true;
}

const char *mpy_object(dfs_bytebuf *b, const char *s, const char *end, unsigned depth,
                             const pyover *ov)
{
    pymembers ms = {0};
    dfs_bytebuf keys = {0};
    const char *after = mpy_members(s, end, &ms, &keys);
    bool ok = after && !keys.oom && resolve_repeats(&ms, &keys);
    dfs_bytebuf_put(b, "{", 1);
    bool first = true;
    for (size_t i = 0; ok && i < ms.n; i++) {
        if (ms.v[i].use == SIZE_MAX)
            continue;
        if (!first)
            dfs_bytebuf_put(b, ", ", 2);
        first = false;
        const pymember *m = &ms.v[ms.v[i].use];
        dfs_bytebuf_put(b, keys.v + ms.v[i].ck, ms.v[i].ckn);
        dfs_bytebuf_put(b, ": ", 2);
        if (ov && ov->pid && mpy_key_is(&keys, &ms.v[i], "pid"))
            dfs_bytebuf_puts(b, ov->pid);
        else if (!(ov && mpy_key_is(&keys, &ms.v[i], "ts") && py_shifted_ts(b, m->v, m->vend, ov->ts_diff)))
            ok = mpy_value(b, m->v, m->vend, depth + 1) == m->vend;
    }
    dfs_bytebuf_put(b, "}", 1);
    dfs_vec_free(&ms);
    dfs_bytebuf_free(&keys);
    return ok ? after : NULL;
}

static const char *py_array(dfs_bytebuf *b, const char *s, const char *end, unsigned depth)
{
    dfs_bytebuf_put(b, "[", 1);
    s = dfs_json_ws(s + 1, end);
    if (s < end && *s == ']') {
        dfs_bytebuf_put(b, "]", 1);
        return s + 1;
    }
    for (bool first = true;; first = false) {
        if (!first)
            dfs_bytebuf_put(b, ", ", 2);
        s = mpy_value(b, s, end, depth + 1);
        if (!s)
            return NULL;
        s = dfs_json_ws(s, end);
        if (s < end && *s == ']') {
            dfs_bytebuf_put(b, "]", 1);
            return s + 1;
        }
        if (s >= end || *s != ',')
            return NULL;
        s = dfs_json_ws(s + 1, end);
    }
}

static const char *py_literal(dfs_bytebuf *b, const char *s, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(end - s) < n || memcmp(s, lit, n) != 0)
        return NULL;
    dfs_bytebuf_put(b, lit, n);
    return s + n;
}

const char *mpy_value(dfs_bytebuf *b, const char *s, const char *end, unsigned depth)
{
    if (depth > PY_MAX_DEPTH || s >= end)
        return NULL;
    switch (*s) {
    case '{': return mpy_object(b, s, end, depth, NULL);
    case '[': return py_array(b, s, end, depth);
    case '"': return py_string(b, s, end);
    case 't': return py_literal(b, s, end, "true");
    case 'f': return py_literal(b, s, end, "false");
    case 'n': return py_literal(b, s, end, "null");
    default: return py_number(b, s, end);
    }
}

