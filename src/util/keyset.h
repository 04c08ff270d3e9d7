/* keyset.h - a set of small fixed-size keys (e.g. {host, pid, tid}) compared by content: a key map
 * whose values are unused. Keys must be fully initialised (padding too). */
#ifndef DFS_KEYSET_H
#define DFS_KEYSET_H
#include <stdbool.h>
#include <stddef.h>

#include "util/keymap.h"

#define DFS_KEYSET_MAX_KEY DFS_KEYMAP_MAX_KEY

typedef struct dfs_keyset {
    dfs_keymap map;
    size_t count; /* keys in the set */
} dfs_keyset;

void dfs_keyset_init(dfs_keyset *s, size_t key_size);
void dfs_keyset_free(dfs_keyset *s);
/* Adds the key; returns 1 if it was new, 0 if present, -1 when out of memory. */
int dfs_keyset_add(dfs_keyset *s, const void *key);
bool dfs_keyset_has(const dfs_keyset *s, const void *key);
/* Iterates: *i starts at 0; returns the next key or NULL at the end. */
const void *dfs_keyset_next(const dfs_keyset *s, size_t *i);
#endif
