/* idtab.c - the paged table by string id of idtab.h. */
#include "util/idtab.h"

#include <stdlib.h>

void dfs_idtab_init(dfs_idtab *t, size_t item)
{
    *t = (dfs_idtab){.item = item};
}

void dfs_idtab_free(dfs_idtab *t)
{
    for (size_t i = 0; i < t->pages.n; i++)
        free(t->pages.v[i]);
    dfs_vec_free(&t->pages);
}

bool dfs_idtab_add_page(dfs_idtab *t, uint32_t id)
{
    size_t p = id >> DFS_IDTAB_PAGE_BITS;
    if (!dfs_vec_extend_zeroed(&t->pages, p + 1))
        return false;
    if (!t->pages.v[p])
        t->pages.v[p] = calloc(DFS_IDTAB_PAGE, t->item);
    return t->pages.v[p] != NULL;
}
