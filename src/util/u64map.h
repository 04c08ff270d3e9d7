/* u64map.h - open-addressing map from u64 keys to u32 values (hash resolution, id sets). */
#ifndef DFS_U64MAP_H
#define DFS_U64MAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dfs_u64map {
    uint64_t *keys;
    uint32_t *vals;
    unsigned char *used;
    size_t cap, count;
} dfs_u64map;

void dfs_u64map_init(dfs_u64map *m);
void dfs_u64map_free(dfs_u64map *m);
void dfs_u64map_clear(dfs_u64map *m);
/* Inserts or overwrites; false when out of memory. */
bool dfs_u64map_put(dfs_u64map *m, uint64_t key, uint32_t val);
/* Returns true and sets *val when present. */
bool dfs_u64map_get(const dfs_u64map *m, uint64_t key, uint32_t *val);
#endif
