/* strtab.h - the run-wide string table and the per-worker caches in front of it.
 *
 * Interning must not serialise the workers: each worker asks its own cache first, and takes the
 * table's lock only for a string it has not met before. Strings never move once stored, and the
 * id -> string index is a two-level array that never reallocates, so readers need no lock for an
 * id they obtained (the lock or a queue hand-off orders the accesses).
 *
 * No stored string holds a NUL byte: a NUL (a raw byte, or \u0000 decoded) is stored as U+FFFD,
 * so that a string used as a C string (names, paths, labels in the analyses and outputs) is
 * always whole. Strings with a NUL are looked up the same way, so they still intern to one id. */
#ifndef DFS_STRTAB_H
#define DFS_STRTAB_H
#include <stddef.h>
#include <stdint.h>

#include "dfscope.h"

typedef struct dfs_strtab dfs_strtab;
typedef struct dfs_strcache dfs_strcache;

/* A new table holds "" as id 0 and the well-known keys (DFS_KEY_STR) at fixed ids. */
dfs_strtab *dfs_strtab_new(void);
void dfs_strtab_free(dfs_strtab *t);
/* Thread-safe. Returns 0 for "" and also when out of memory or full (counted in dfs_strtab_lost). */
dfs_str dfs_strtab_intern(dfs_strtab *t, const char *s, size_t n);
dfs_str dfs_strtab_find(dfs_strtab *t, const char *s, size_t n);
const char *dfs_strtab_get(const dfs_strtab *t, dfs_str id, size_t *len);
uint64_t dfs_strtab_hash(const dfs_strtab *t, dfs_str id);
size_t dfs_strtab_count(dfs_strtab *t);
uint64_t dfs_strtab_lost(dfs_strtab *t);

dfs_strcache *dfs_strcache_new(dfs_strtab *t);
void dfs_strcache_free(dfs_strcache *c);
dfs_str dfs_strcache_intern(dfs_strcache *c, const char *s, size_t n);

extern const char *const dfs_key_names[DFS_KEY__COUNT];
#endif
