/* svg.h - the little an SVG writer needs beyond fprintf: XML-safe text and compact numbers.
 * Whatever bytes a trace holds, the output stays well-formed XML 1.0 (output/escape.h's XML
 * rules): markup characters are escaped, invalid UTF-8 and the characters XML 1.0 forbids even as
 * references (control characters other than tab and line breaks, DEL, U+FFFE, U+FFFF) become
 * U+FFFD, and tab and line breaks a space: SVG text here is one line. */
#ifndef DFS_SVG_H
#define DFS_SVG_H
#include <stddef.h>
#include <stdio.h>

/* Text or attribute content (escapes & < > " '). At most max_chars characters are written; a
 * longer text ends with an ellipsis (max_chars 0 = no limit). */
void dfs_svg_text(FILE *out, const char *s, size_t n, size_t max_chars);
/* The number of characters (code points) dfs_svg_text would see in s. */
size_t dfs_svg_chars(const char *s, size_t n);
/* The bytes of the first `chars` characters of s (an invalid byte counts as one character). */
size_t dfs_svg_prefix(const char *s, size_t n, size_t chars);
/* A coordinate with at most one decimal and no trailing zeros ("12", "12.5", "-3"). */
void dfs_svg_num(FILE *out, double v);
#endif
