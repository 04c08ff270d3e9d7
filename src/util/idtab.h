/* idtab.h - a table indexed by string id (dfs_str): fixed-size items, zeroed until written.
 *
 * For what an analysis memoises per file name: looked up on every visit of a file, among tens of
 * thousands, where a hash map pays a hash and a probe that misses the cache. Ids are dense but
 * name every string of the run, not only the ones a table cares about, so items live in pages of
 * DFS_IDTAB_PAGE ids allocated when first written: a table costs the pages its ids fall in, and
 * a lookup is two loads. */
#ifndef DFS_IDTAB_H
#define DFS_IDTAB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/vec.h"

#define DFS_IDTAB_PAGE_BITS 10
#define DFS_IDTAB_PAGE (1u << DFS_IDTAB_PAGE_BITS)

typedef struct dfs_idtab {
    size_t item;              /* bytes per id */
    DFS_VEC(void *) pages;    /* [id >> DFS_IDTAB_PAGE_BITS], NULL until a page is written */
} dfs_idtab;

void dfs_idtab_init(dfs_idtab *t, size_t item);
void dfs_idtab_free(dfs_idtab *t);
/* Allocates the (zeroed) page of id; false when out of memory. */
bool dfs_idtab_add_page(dfs_idtab *t, uint32_t id);

/* The item of id to read; NULL when its page was never written (the item is then all zero). */
static inline const void *dfs_idtab_get(const dfs_idtab *t, uint32_t id)
{
    size_t p = id >> DFS_IDTAB_PAGE_BITS;
    if (p >= t->pages.n || !t->pages.v[p])
        return NULL;
    return (const char *)t->pages.v[p] + (size_t)(id & (DFS_IDTAB_PAGE - 1)) * t->item;
}

/* The item of id to write, zeroed when new; NULL when out of memory. */
static inline void *dfs_idtab_at(dfs_idtab *t, uint32_t id)
{
    const void *item = dfs_idtab_get(t, id);
    if (!item && !(dfs_idtab_add_page(t, id) && (item = dfs_idtab_get(t, id))))
        return NULL;
    return (void *)(uintptr_t)item;
}
#endif
