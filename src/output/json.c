#include "output/json.h"

#include <math.h>
#include <string.h>

#include "util/shortest.h"
#include "util/utf8.h"

/* A writer is used by one thread, and its stream by nothing else while the report is written, so
 * stdio's lock per call is not taken: a large report is tens of millions of small writes. */
#define put_c(c, f) fputc_unlocked((c), (f))
#define put_s(s, f) fputs_unlocked((s), (f))
#define put_n(p, n, f) fwrite_unlocked((p), 1, (n), (f))

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
    put_c('\n', w->out);
    for (int i = 0; i < w->depth; i++)
        put_s("  ", w->out);
}

/* Writes a JSON string body (without quotes), escaped. */
static void json_escape(FILE *out, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < len;) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') {
            put_c('\\', out);
            put_c(c, out);
            i++;
        } else if (c < 0x20) {
            switch (c) {
            case '\n': put_s("\\n", out); break;
            case '\t': put_s("\\t", out); break;
            case '\r': put_s("\\r", out); break;
            default: fprintf(out, "\\u%04x", c); break;
            }
            i++;
        } else {
            size_t n = dfs_utf8_len(s + i, len - i);
            if (n == 0) {
                put_s("\\ufffd", out);
                i++;
            } else {
                put_n(s + i, n, out);
                i += n;
            }
        }
    }
}

static void begin_value(dfs_jw *w, const char *key)
{
    if (w->depth > 0) {
        if (w->need_comma[w->depth])
            put_c(',', w->out);
        w->need_comma[w->depth] = true;
        newline(w);
    }
    if (key) {
        put_c('"', w->out);
        json_escape(w->out, key, strlen(key));
        put_s(w->pretty ? "\": " : "\":", w->out);
    }
}

static void open_container(dfs_jw *w, const char *key, char c)
{
    begin_value(w, key);
    put_c(c, w->out);
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
    put_c(closer, w->out);
    if (w->depth == 0 && w->pretty)
        put_c('\n', w->out);
}

void dfs_jw_str(dfs_jw *w, const char *key, const char *s, size_t len)
{
    begin_value(w, key);
    put_c('"', w->out);
    json_escape(w->out, s, len);
    put_c('"', w->out);
}

void dfs_jw_cstr(dfs_jw *w, const char *key, const char *s)
{
    if (!s)
        dfs_jw_null(w, key);
    else
        dfs_jw_str(w, key, s, strlen(s));
}

/* Writes |v| in decimal, after a minus sign when negative. */
static void put_integer(FILE *out, bool negative, uint64_t u)
{
    char buf[24], *p = buf + sizeof buf;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (negative)
        *--p = '-';
    put_n(p, (size_t)(buf + sizeof buf - p), out);
}

static void put_signed(FILE *out, int64_t v)
{
    put_integer(out, v < 0, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

void dfs_jw_int(dfs_jw *w, const char *key, int64_t v)
{
    begin_value(w, key);
    put_signed(w->out, v);
}

void dfs_jw_uint(dfs_jw *w, const char *key, uint64_t v)
{
    begin_value(w, key);
    put_integer(w->out, false, v);
}

/* Integral and below 1e17 in magnitude (-0 aside): counts and sizes, a third of a layered report's
 * numbers, written as the integer they are, which is also their shortest JSON. */
static bool prints_as_integer(double v)
{
    return v > -1e17 && v < 1e17 && v == (double)(long long)v && !(v == 0 && signbit(v));
}

/* The shortest number that reads back as v (util/shortest.h), null when v is not finite. */
void dfs_jw_double(dfs_jw *w, const char *key, double v)
{
    begin_value(w, key);
    if (!isfinite(v)) {
        put_s("null", w->out);
    } else if (prints_as_integer(v)) {
        put_signed(w->out, (int64_t)v);
    } else {
        char buf[DFS_PY_REPR_MAX];
        put_n(buf, dfs_shortest_json_finite(v, buf), w->out);
    }
}

void dfs_jw_bool(dfs_jw *w, const char *key, bool v)
{
    begin_value(w, key);
    put_s(v ? "true" : "false", w->out);
}

void dfs_jw_null(dfs_jw *w, const char *key)
{
    begin_value(w, key);
    put_s("null", w->out);
}
