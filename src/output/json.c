#include "output/json.h"

#include <math.h>
#include <string.h>

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

/* Length of a valid UTF-8 sequence at s, or 0 when it is invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, min = 0x10000;
    else
        return 0;
    if (n < len)
        return 0;
    unsigned cp = c & (0x3Fu >> (len - 1));
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

void dfs_json_escape(FILE *out, const char *str, size_t len)
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
            size_t n = utf8_len(s + i, len - i);
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
        dfs_json_escape(w->out, key, strlen(key));
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
    dfs_json_escape(w->out, s, len);
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

void dfs_jw_double(dfs_jw *w, const char *key, double v)
{
    begin_value(w, key);
    if (isfinite(v))
        fprintf(w->out, "%.17g", v);
    else
        fputs("null", w->out);
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
