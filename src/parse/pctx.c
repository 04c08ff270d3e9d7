/* pctx.c - a parser's working state, and the duplicate check of the records it parses. */
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
    dfs_dupcheck_init(&p->dups);
}

void dfs_pctx_free(dfs_pctx *p)
{
    free(p->scratch);
    free(p->argtmp);
    p->scratch = NULL;
    p->argtmp = NULL;
    dfs_dupcheck_free(&p->dups);
}

void dfs_pctx_begin_dups(dfs_pctx *p, bool piece)
{
    if (p->dups.checked)
        dfs_dupcheck_restart(&p->dups);
    p->dups_later = piece;
    p->dups_off = false;
}

/* --dedup drops duplicates as they come, which only a whole file allows (--dedup does not cut) */
static bool checked_as_read(const dfs_pctx *p) { return p->opt && p->opt->dedup && !p->dups_later; }

bool dfs_pctx_drop_duplicate(dfs_pctx *p, uint64_t digest, uint64_t offset)
{
    return checked_as_read(p) && dfs_dupcheck_repeats(&p->dups, &p->st->diag, p->st->file, digest, offset);
}

void dfs_pctx_note_record(dfs_pctx *p, uint64_t digest, uint64_t offset)
{
    if (checked_as_read(p))
        dfs_dupcheck_record(&p->dups, &p->st->diag, p->st->file, digest, offset);
    else if (!p->dups_off)
        (void)dfs_dups_keep(p->st, digest, offset); /* out of memory: the record goes unchecked */
}
