/* dups.c - the duplicate check of dups.h. Both ways count the same duplicates and give the same
 * examples: the smallest offsets, whatever order the duplicates are found in. Examples carry the
 * offset and no line number: a piece does not know its first line number while it is read, and
 * the examples must not depend on how the file was cut. */
#include "model/dups.h"

#include <stdlib.h>

typedef struct reporter {
    dfs_diag *diag;
    uint32_t file;
} reporter;

/* Counts a duplicate; formats an example only when it would be kept (diag keeps the smallest
 * offsets, and all of these are of one file). */
static void count_duplicate(dfs_diag *diag, uint32_t file, uint64_t off)
{
    const dfs_example_vec *ex = &diag->examples[DFS_PROB_DUPLICATE_RECORD];
    if (ex->n >= diag->max_examples && (ex->n == 0 || off >= ex->v[ex->n - 1].offset))
        dfs_diag_count(diag, DFS_PROB_DUPLICATE_RECORD, 1);
    else
        dfs_diag_add(diag, DFS_PROB_DUPLICATE_RECORD, file, 0, off, "same bytes as an earlier record");
}

static void report_later_twin(void *ctx, uint64_t off)
{
    reporter *r = ctx;
    count_duplicate(r->diag, r->file, off);
}

static void report_unchecked(dfs_diag *diag, uint32_t file, uint64_t off)
{
    dfs_diag_add(diag, DFS_PROB_DUPLICATES_UNCHECKED, file, 0, off,
                 "duplicate detection stopped after %llu records of this file",
                 (unsigned long long)DFS_DUPS_MAX_RECORDS);
}

bool dfs_dups_keep(dfs_stream *st, uint64_t digest, uint64_t offset)
{
    if (st->dupsums.n > DFS_DUPS_MAX_RECORDS) /* the file's check stops before this one */
        return true;
    dfs_digest_at e = {.digest = digest, .at = offset};
    return dfs_vec_push(&st->dupsums, e);
}

/* The offset of the first record past the bound, or UINT64_MAX when the file is within it. */
static uint64_t first_unchecked(dfs_stream *const *streams, size_t n)
{
    uint64_t seen = 0;
    for (size_t i = 0; i < n; i++) {
        size_t m = streams[i]->dupsums.n;
        if (seen + m > DFS_DUPS_MAX_RECORDS)
            return streams[i]->dupsums.v[DFS_DUPS_MAX_RECORDS - seen].at;
        seen += m;
    }
    return UINT64_MAX;
}

void dfs_dups_judge(dfs_diag *diag, uint32_t file, dfs_stream *const *streams, size_t n)
{
    const dfs_digest_at **part = malloc((n ? n : 1) * sizeof *part);
    size_t *len = malloc((n ? n : 1) * sizeof *len);
    uint64_t past = first_unchecked(streams, n);
    if (past != UINT64_MAX)
        report_unchecked(diag, file, past);
    uint64_t left = DFS_DUPS_MAX_RECORDS; /* the first records of the file, in order */
    for (size_t i = 0; part && len && i < n; i++) {
        part[i] = streams[i]->dupsums.v;
        len[i] = streams[i]->dupsums.n < left ? streams[i]->dupsums.n : (size_t)left;
        left -= len[i];
    }
    reporter r = {.diag = diag, .file = file};
    if (part && len) /* out of memory: no duplicate found */
        (void)dfs_twins((dfs_twins_seq){.part = part, .len = len, .nparts = n}, report_later_twin, &r);
    free(part);
    free(len);
    for (size_t i = 0; i < n; i++)
        dfs_vec_free(&streams[i]->dupsums);
}

/* ---- as records come (--dedup) ------------------------------------------------------------- */

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

/* Whether the record is among the first DFS_DUPS_MAX_RECORDS of the file; says so once when not. */
static bool within_bound(dfs_dupcheck *c, dfs_diag *diag, uint32_t file, uint64_t off)
{
    if (c->checked < DFS_DUPS_MAX_RECORDS)
        return true;
    if (c->checked++ == DFS_DUPS_MAX_RECORDS)
        report_unchecked(diag, file, off);
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
