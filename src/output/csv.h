/* csv.h - CSV fields as RFC 4180 and Python's csv module write them. */
#ifndef DFS_CSV_H
#define DFS_CSV_H
#include <stdio.h>

/* A text field: quoted (quotes doubled) when it holds a comma, a quote or a line break, invalid
 * UTF-8 as U+FFFD (output/escape.h); nothing for NULL. */
void dfs_csv_text(FILE *out, const char *s);
/* A separator then the shortest number that reads back as v, as JSON has it ("0.06", "5", "1e-7"),
 * or an empty field for NaN and infinities. */
void dfs_csv_num(FILE *out, double v);
#endif
