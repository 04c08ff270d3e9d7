/* svg.c - XML-safe SVG text and compact numbers (svg.h). The characters are output/escape.c's XML
 * rules, on one line, apostrophes escaped; this file only counts and cuts. */
#include "output/svg.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "output/escape.h"
#include "util/utf8.h"

size_t dfs_svg_prefix(const char *s, size_t n, size_t chars)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    for (; i < n && chars; chars--) {
        size_t len = dfs_utf8_len(p + i, n - i);
        i += len ? len : 1;
    }
    return i;
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
    bool cut = max_chars > 0 && dfs_svg_chars(s, n) > max_chars;
    size_t keep = cut ? dfs_svg_prefix(s, n, max_chars - 1) : n;
    dfs_xml_escape(dfs_put_file, out, s, keep, DFS_XML_APOS | DFS_XML_ONE_LINE);
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
