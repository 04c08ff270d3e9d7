/* vec.h - growable arrays: DFS_VEC(T) is {T *v; size_t n, cap;}. */
#ifndef DFS_VEC_H
#define DFS_VEC_H
#include <stdbool.h>
#include <stdlib.h>

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
#define dfs_vec_free(vec) (free((vec)->v), (vec)->v = NULL, (vec)->n = (vec)->cap = 0)
#endif
