/* escape.h - one escaping function per output context, shared by every writer of that context:
 * CSV, XML (GraphML and SVG), DOT and the terminal (tables, summaries, problem reports; JSON has
 * its own in output/json.c). Whatever bytes a trace holds, what dfscope writes stays valid for its
 * reader, and a trace cannot drive the user's terminal:
 *
 *  - everywhere, invalid UTF-8 (stray or truncated sequences, overlong forms, surrogates) becomes
 *    U+FFFD, one per bad byte, as in JSON;
 *  - CSV: a field holding a comma, a quote or a line break is quoted, quotes doubled (RFC 4180,
 *    Python's csv module); every other character is kept;
 *  - XML 1.0: & < > " escaped (and ' with DFS_XML_APOS); what XML 1.0 cannot carry even as a
 *    reference (C0 controls other than tab, LF and CR; DEL; U+FFFE and U+FFFF) becomes U+FFFD;
 *    DFS_XML_ONE_LINE writes tab, LF and CR as a space reference (one-line labels and titles);
 *  - HTML (text and attribute values in either quote): & < > " ' escaped; what HTML5 calls a
 *    parse error even as a character (C0 controls other than tab, LF, FF and CR; DEL; C1 controls;
 *    noncharacters) becomes U+FFFD; line breaks are kept (whitespace to HTML);
 *  - JSON inside an HTML script element: the body of a JSON string whose " \ and control
 *    characters are escaped as JSON does, and < > & ' U+2028 U+2029 as \uXXXX, so that no text can
 *    close the element or open a comment; invalid UTF-8 becomes \ufffd;
 *  - DOT quoted strings: " and \ escaped, LF as \n, tab kept, other control characters U+FFFD;
 *  - terminal: control characters (C0 including tab and LF, DEL, and C1 U+0080..U+009F) are shown
 *    as \xHH, HH their code point in lowercase hex (ESC is \x1b); a backslash stays as it is.
 *
 * NUL never reaches these: the string table holds none (util/strtab.h). Text that needs no
 * escaping costs one pass and one write. */
#ifndef DFS_ESCAPE_H
#define DFS_ESCAPE_H
#include <stddef.h>
#include <stdio.h>

/* Where escaped text goes: called with consecutive pieces of the output. */
typedef void (*dfs_put_fn)(void *sink, const char *s, size_t n);
/* The sink of a FILE * (buffered writes; errors are the stream's, checked when it is closed). */
void dfs_put_file(void *fp, const char *s, size_t n);

/* A CSV field: the text, quoted when needed. */
void dfs_csv_escape(dfs_put_fn put, void *sink, const char *s, size_t n);

#define DFS_XML_APOS 1u     /* also ' as &apos; (attribute values in either quote) */
#define DFS_XML_ONE_LINE 2u /* tab and line breaks as &#x20; */
/* XML 1.0 character data or attribute value. */
void dfs_xml_escape(dfs_put_fn put, void *sink, const char *s, size_t n, unsigned flags);

/* HTML text or attribute value. */
void dfs_html_escape(dfs_put_fn put, void *sink, const char *s, size_t n);
/* The body of a JSON string inside an HTML <script> element. */
void dfs_script_json_escape(dfs_put_fn put, void *sink, const char *s, size_t n);

/* The body of a DOT quoted string. */
void dfs_dot_escape(dfs_put_fn put, void *sink, const char *s, size_t n);

/* Text for the terminal. */
void dfs_term_escape(dfs_put_fn put, void *sink, const char *s, size_t n);
/* The same into buf as a C string of at most cap - 1 bytes (cap >= 1), cut before the first
 * character or escape that does not fit whole: a table cell. Returns buf. */
char *dfs_term_cell(char *buf, size_t cap, const char *s, size_t n);
/* dfs_term_cell of a C string (NULL as ""). */
char *dfs_term_str(char *buf, size_t cap, const char *s);
#define DFS_TERM_STR_MAX 1024 /* a buffer for dfs_term_str where a field has no width of its own */
/* The bytes dfs_term_escape writes for s (a column's width). */
size_t dfs_term_len(const char *s, size_t n);
/* dfs_term_escape to a FILE, then spaces up to `width` bytes: printf's %-*s, escaped. */
void dfs_term_pad(FILE *out, const char *s, size_t n, size_t width);
/* dfs_term_escape of a C string to a FILE (NULL writes nothing). */
void dfs_term_puts(FILE *out, const char *s);
#endif
