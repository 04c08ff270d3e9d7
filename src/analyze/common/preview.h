/* preview.h - a cheap look at the heads of the inputs before the real pass, for the analyses that
 * need a time origin or the categories present before they read (layered analysis, overlap), and
 * the duration syntax their --granularity options share. */
#ifndef DFS_PREVIEW_H
#define DFS_PREVIEW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfscope.h"

/* The preview before the real pass: the earliest event start and the lower-cased categories of
 * the first `bytes` of every input (cheap: no file is read to its end). */
typedef struct dfs_preview {
    bool have_origin;
    int64_t origin_ns;
    char **categories; /* sorted, distinct, lower-cased */
    size_t ncategories;
} dfs_preview;

int dfs_preview_run(char *const *paths, size_t npaths, const dfs_options *opt, uint64_t bytes,
                    dfs_preview *out);
void dfs_preview_free(dfs_preview *p);
/* Granularity text: "5s", "500ms", "2m", "1h", "250us", "100ns", a bare number of seconds
 * (fractions allowed). false on anything else, zero or overflow. */
bool dfs_parse_duration_ns(const char *text, int64_t *ns);
#endif
