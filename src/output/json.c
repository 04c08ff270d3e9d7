#include "output/json.h"

#include <math.h>
#include <string.h>

#include "util/utf8.h"

void dfs_jw_init(dfs_jw *w, FILE *out, bool pretty)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->pretty = pretty;
}

static void newline(dfs_jw *w)
{
    if (!w->pretty)
        return;
    fputc('\n', w->out);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->out);
}

/* Writes a JSON string body (without quotes), escaped. */
static void json_escape(FILE *out, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < len;) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc(c, out);
            i++;
        } else if (c < 0x20) {
            switch (c) {
            case '\n': fputs("\\n", out); break;
            case '\t': fputs("\\t", out); break;
            case '\r': fputs("\\r", out); break;
            default: fprintf(out, "\\u%04x", c); break;
            }
            i++;
        } else {
            size_t n = dfs_utf8_len(s + i, len - i);
            if (n == 0) {
                fputs("\\ufffd", out);
                i++;
            } else {
                fwrite(s + i, 1, n, out);
                i += n;
            }
        }
    }
}

static void begin_value(dfs_jw *w, const char *key)
{
    if (w->depth > 0) {
        if (w->need_comma[w->depth])
            fputc(',', w->out);
        w->need_comma[w->depth] = true;
        newline(w);
    }
    if (key) {
        fputc('"', w->out);
        json_escape(w->out, key, strlen(key));
        fputs(w->pretty ? "\": " : "\":", w->out);
    }
}

static void open_container(dfs_jw *w, const char *key, char c)
{
    begin_value(w, key);
    fputc(c, w->out);
    if (w->depth < 63)
        w->depth++;
    w->need_comma[w->depth] = false;
    w->closer[w->depth] = c == '{' ? '}' : ']';
}

void dfs_jw_object(dfs_jw *w, const char *key) { open_container(w, key, '{'); }
void dfs_jw_array(dfs_jw *w, const char *key) { open_container(w, key, '['); }

void dfs_jw_end(dfs_jw *w)
{
    if (w->depth == 0)
        return;
    bool had_items = w->need_comma[w->depth];
    char closer = w->closer[w->depth];
    w->depth--;
    if (had_items)
        newline(w);
    fputc(closer, w->out);
    if (w->depth == 0 && w->pretty)
        fputc('\n', w->out);
}

void dfs_jw_str(dfs_jw *w, const char *key, const char *s, size_t len)
{
    begin_value(w, key);
    fputc('"', w->out);
    json_escape(w->out, s, len);
    fputc('"', w->out);
}

void dfs_jw_cstr(dfs_jw *w, const char *key, const char *s)
{
    if (!s)
        dfs_jw_null(w, key);
    else
        dfs_jw_str(w, key, s, strlen(s));
}

void dfs_jw_int(dfs_jw *w, const char *key, int64_t v)
{
    begin_value(w, key);
    fprintf(w->out, "%lld", (long long)v);
}

void dfs_jw_uint(dfs_jw *w, const char *key, uint64_t v)
{
    begin_value(w, key);
    fprintf(w->out, "%llu", (unsigned long long)v);
}

/* Whether "%.17g" would print v as a plain integer: integral and below 1e17 (from there on it
 * switches to an exponent). Such values (counts, sizes) are a third of a layered report's
 * numbers, and printing them as integers costs a fraction of formatting a double. */
static bool prints_as_integer(double v)
{
    return v > -1e17 && v < 1e17 && v == (double)(long long)v && !(v == 0 && signbit(v));
}

static void put_integer(FILE *out, long long x)
{
    char buf[24], *p = buf + sizeof buf;
    unsigned long long u = x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (x < 0)
        *--p = '-';
    fwrite(p, 1, (size_t)(buf + sizeof buf - p), out);
}

void dfs_jw_double(dfs_jw *w, const char *key, double v)
{
    begin_value(w, key);
    if (!isfinite(v))
        fputs("null", w->out);
    else if (prints_as_integer(v))
        put_integer(w->out, (long long)v);
    else
        fprintf(w->out, "%.17g", v);
}

void dfs_jw_bool(dfs_jw *w, const char *key, bool v)
{
    begin_value(w, key);
    fputs(v ? "true" : "false", w->out);
}

void dfs_jw_null(dfs_jw *w, const char *key)
{
    begin_value(w, key);
    fputs("null", w->out);
}
