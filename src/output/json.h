/* json.h - a small streaming JSON writer. Strings are re-escaped: control characters as \u00XX,
 * invalid UTF-8 as U+FFFD, so output is always valid JSON whatever the trace held. */
#ifndef DFS_OUT_JSON_H
#define DFS_OUT_JSON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct dfs_jw {
    FILE *out;
    int depth;
    bool need_comma[64];
    char closer[64];
    bool pretty;
} dfs_jw;

void dfs_jw_init(dfs_jw *w, FILE *out, bool pretty);
/* key is NULL inside arrays and at the top level */
void dfs_jw_object(dfs_jw *w, const char *key);
void dfs_jw_array(dfs_jw *w, const char *key);
void dfs_jw_end(dfs_jw *w); /* closes the innermost object or array */
void dfs_jw_str(dfs_jw *w, const char *key, const char *s, size_t len);
void dfs_jw_cstr(dfs_jw *w, const char *key, const char *s);
void dfs_jw_int(dfs_jw *w, const char *key, int64_t v);
void dfs_jw_uint(dfs_jw *w, const char *key, uint64_t v);
void dfs_jw_double(dfs_jw *w, const char *key, double v); /* shortest that reads back; null when not finite */
void dfs_jw_bool(dfs_jw *w, const char *key, bool v);
void dfs_jw_null(dfs_jw *w, const char *key);
#endif
