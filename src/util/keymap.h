/* keymap.h - open-addressing map from small fixed-size keys (compared by content) to u32 values,
 * e.g. {layer, process, time bin} -> cell index. Keys must be fully initialised (padding too),
 * since they are hashed and compared as bytes. */
#ifndef DFS_KEYMAP_H
#define DFS_KEYMAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DFS_KEYMAP_MAX_KEY 32

typedef struct dfs_keymap {
    size_t key_size;      /* bytes per key, at most DFS_KEYMAP_MAX_KEY */
    size_t stride;        /* bytes per slot (a multiple of 8): the key, then its u32 value */
    unsigned char *slots;
    unsigned char *used;  /* per slot: 0 free, else occupied (a tag of the key's hash) */
    size_t cap, count;
} dfs_keymap;

void dfs_keymap_init(dfs_keymap *m, size_t key_size);
void dfs_keymap_free(dfs_keymap *m);
/* Returns true and sets *val when the key is present. */
bool dfs_keymap_get(const dfs_keymap *m, const void *key, uint32_t *val);
/* The value of the key, inserting `fresh` when absent (*inserted tells which). false: out of memory. */
bool dfs_keymap_get_or_put(dfs_keymap *m, const void *key, uint32_t fresh, uint32_t *val, bool *inserted);
/* For walking over all entries: false for a free slot i (i < cap), else its key (8-byte aligned, for
 * reading in place) and value. */
bool dfs_keymap_slot(const dfs_keymap *m, size_t i, const void **key, uint32_t *val);
#endif
