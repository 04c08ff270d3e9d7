/* ids.h - synthetic numeric ids for string pids and tids, shared by every reader. */
#ifndef DFS_IDS_H
#define DFS_IDS_H
#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

/* A stable negative id for a non-numeric pid/tid string. It is derived from the string's bytes,
 * not from its intern id, so it is the same for any -j and in every reader; being negative, it
 * never collides with a real pid. */
static inline int64_t dfs_synthetic_id(const char *s, size_t n)
{
    return -(int64_t)(dfs_hash64(s, n) >> 2) - 1;
}
#endif
