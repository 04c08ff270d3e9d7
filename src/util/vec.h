/* vec.h - growable arrays: DFS_VEC(T) is {T *v; size_t n, cap;}. */
#ifndef DFS_VEC_H
#define DFS_VEC_H
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define DFS_VEC(T) struct { T *v; size_t n, cap; }

/* Makes room for `extra` more items; false when out of memory. */
static inline bool dfs_vec_grow_(void **v, size_t *cap, size_t n, size_t extra, size_t item)
{
    if (n + extra <= *cap)
        return true;
    size_t c = *cap ? *cap : 16;
    while (c < n + extra)
        c *= 2;
    void *nv = realloc(*v, c * item);
    if (!nv)
        return false;
    *v = nv;
    *cap = c;
    return true;
}
#define dfs_vec_reserve(vec, extra) \
    dfs_vec_grow_((void **)&(vec)->v, &(vec)->cap, (vec)->n, (extra), sizeof *(vec)->v)
#define dfs_vec_push(vec, item) \
    (dfs_vec_reserve((vec), 1) ? ((vec)->v[(vec)->n++] = (item), true) : false)
/* Makes the vector hold at least `target` items, the new ones zeroed; false when out of memory. */
static inline bool dfs_vec_extend_zeroed_(void **v, size_t *n, size_t *cap, size_t target, size_t item)
{
    if (target <= *n)
        return true;
    if (!dfs_vec_grow_(v, cap, *n, target - *n, item))
        return false;
    memset((char *)*v + *n * item, 0, (target - *n) * item);
    *n = target;
    return true;
}
#define dfs_vec_extend_zeroed(vec, target) \
    dfs_vec_extend_zeroed_((void **)&(vec)->v, &(vec)->n, &(vec)->cap, (target), sizeof *(vec)->v)
/* Appends m items of `item` bytes from src; false when out of memory. */
static inline bool dfs_vec_append_(void **v, size_t *n, size_t *cap, const void *src, size_t m, size_t item)
{
    if (m == 0)
        return true;
    if (!dfs_vec_grow_(v, cap, *n, m, item))
        return false;
    memcpy((char *)*v + *n * item, src, m * item);
    *n += m;
    return true;
}
/* Appends all of vector `src` to vector `dst` (same item type). */
#define dfs_vec_append(dst, src) \
    dfs_vec_append_((void **)&(dst)->v, &(dst)->n, &(dst)->cap, (src)->v, (src)->n, sizeof *(src)->v)
#define dfs_vec_free(vec) (free((vec)->v), (vec)->v = NULL, (vec)->n = (vec)->cap = 0)
#endif
