#include "parse/pctx.h"

#include <stdlib.h>
#include <string.h>

void dfs_pctx_init(dfs_pctx *p, dfs_strtab *table, dfs_strcache *strs, const dfs_want_set *want,
                   const dfs_options *opt, dfs_batchbuf *batch)
{
    memset(p, 0, sizeof *p);
    p->table = table;
    p->strs = strs;
    p->want = want;
    p->opt = opt;
    p->batch = batch;
}

void dfs_pctx_free(dfs_pctx *p)
{
    free(p->scratch);
    free(p->argtmp);
    p->scratch = NULL;
    p->argtmp = NULL;
}
