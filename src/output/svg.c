#include "output/svg.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/utf8.h"

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* True for a valid sequence XML 1.0 cannot carry: U+FFFE and U+FFFF. */
static int is_nonchar(const unsigned char *p, size_t len)
{
    return len == 3 && p[0] == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF);
}

/* Writes one character starting at p (at most `left` bytes); returns the bytes consumed. */
static size_t put_char(FILE *out, const unsigned char *p, size_t left)
{
    unsigned c = p[0];
    switch (c) {
    case '&': fputs("&amp;", out); return 1;
    case '<': fputs("&lt;", out); return 1;
    case '>': fputs("&gt;", out); return 1;
    case '"': fputs("&quot;", out); return 1;
    case '\'': fputs("&apos;", out); return 1;
    case '\t':
    case '\n':
    case '\r': fputs("&#x20;", out); return 1; /* one line: titles and labels */
    default: break;
    }
    size_t len = dfs_utf8_len(p, left);
    if (len == 0 || c < 0x20 || c == 0x7F || is_nonchar(p, len)) {
        fputs(replacement, out);
        return len ? len : 1;
    }
    fwrite(p, 1, len, out);
    return len;
}

size_t dfs_svg_chars(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t chars = 0;
    for (size_t i = 0; i < n; chars++) {
        size_t len = dfs_utf8_len(p + i, n - i);
        i += len ? len : 1;
    }
    return chars;
}

void dfs_svg_text(FILE *out, const char *s, size_t n, size_t max_chars)
{
    const unsigned char *p = (const unsigned char *)s;
    bool cut = max_chars > 0 && dfs_svg_chars(s, n) > max_chars;
    size_t keep = cut ? max_chars - 1 : SIZE_MAX;
    for (size_t i = 0, chars = 0; i < n && chars < keep; chars++)
        i += put_char(out, p + i, n - i);
    if (cut)
        fputs("\xE2\x80\xA6", out); /* U+2026 */
}

void dfs_svg_num(FILE *out, double v)
{
    if (!isfinite(v))
        v = 0;
    double r = round(v * 10) / 10;
    if (r == floor(r))
        fprintf(out, "%.0f", r == 0 ? 0.0 : r);
    else
        fprintf(out, "%.1f", r);
}
