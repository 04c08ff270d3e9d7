/* dups.c - the duplicate check of dups.h. Both ways of checking (while reading, and replaying the
 * pieces at the fold) go through dfs_dupcheck_record, so they agree on every count and example.
 * Examples carry the offset and no line number: a piece does not know its first line number when
 * its records are kept, and the examples must not depend on how the file was cut. */
#include "model/dups.h"

#include <stdlib.h>

void dfs_dupcheck_init(dfs_dupcheck *c)
{
    dfs_seenset_init(&c->seen, DFS_DUPS_MAX_RECORDS);
    c->checked = 0;
}

void dfs_dupcheck_free(dfs_dupcheck *c) { dfs_seenset_free(&c->seen); }

void dfs_dupcheck_restart(dfs_dupcheck *c)
{
    dfs_seenset_clear(&c->seen);
    c->checked = 0;
}

static void count_duplicate(dfs_diag *diag, uint32_t file, uint64_t off)
{
    if (diag->counts[DFS_PROB_DUPLICATE_RECORD] >= diag->max_examples)
        dfs_diag_count(diag, DFS_PROB_DUPLICATE_RECORD, 1); /* no example: spare the formatting */
    else
        dfs_diag_add(diag, DFS_PROB_DUPLICATE_RECORD, file, 0, off, "same bytes as an earlier record");
}

/* Whether the record is among the first DFS_DUPS_MAX_RECORDS of the file; says so once when not. */
static bool within_bound(dfs_dupcheck *c, dfs_diag *diag, uint32_t file, uint64_t off)
{
    if (c->checked < DFS_DUPS_MAX_RECORDS)
        return true;
    if (c->checked++ == DFS_DUPS_MAX_RECORDS)
        dfs_diag_add(diag, DFS_PROB_DUPLICATES_UNCHECKED, file, 0, off,
                     "duplicate detection stopped after %llu records of this file",
                     (unsigned long long)DFS_DUPS_MAX_RECORDS);
    return false;
}

bool dfs_dupcheck_record(dfs_dupcheck *c, dfs_diag *diag, uint32_t file, uint64_t d, uint64_t off)
{
    if (!within_bound(c, diag, file, off))
        return false;
    c->checked++;
    /* FULL here means out of memory (the bound is the one above): the record escapes the check */
    if (dfs_seenset_add(&c->seen, d) != DFS_SEEN_AGAIN)
        return false;
    count_duplicate(diag, file, off);
    return true;
}

bool dfs_dupcheck_repeats(dfs_dupcheck *c, dfs_diag *diag, uint32_t file, uint64_t d, uint64_t off)
{
    if (c->checked >= DFS_DUPS_MAX_RECORDS || !dfs_seenset_has(&c->seen, d))
        return false;
    c->checked++;
    count_duplicate(diag, file, off);
    return true;
}

bool dfs_dups_keep(dfs_stream *st, uint64_t d, uint64_t off)
{
    if (st->dupsums.n > DFS_DUPS_MAX_RECORDS) /* the file's check stops before this one */
        return true;
    dfs_dupsum s = {.digest = d, .offset = off};
    return dfs_vec_push(&st->dupsums, s);
}

void dfs_dups_fold(dfs_diag *diag, uint32_t file, dfs_stream *const *streams, size_t n)
{
    bool any = false;
    for (size_t i = 0; i < n && !any; i++)
        any = streams[i]->dupsums.n > 0;
    if (!any)
        return;
    dfs_dupcheck c;
    dfs_dupcheck_init(&c);
    enum { AHEAD = 8 }; /* slots loaded ahead: the set is larger than the caches */
    for (size_t i = 0; i < n; i++) {
        const dfs_dupsum *v = streams[i]->dupsums.v;
        size_t m = streams[i]->dupsums.n;
        for (size_t k = 0; k < m; k++) {
            if (k + AHEAD < m)
                dfs_seenset_prefetch(&c.seen, v[k + AHEAD].digest);
            dfs_dupcheck_record(&c, diag, file, v[k].digest, v[k].offset);
        }
        dfs_vec_free(&streams[i]->dupsums);
    }
    dfs_dupcheck_free(&c);
}
