/* dups.h - exact duplicate records within a file, at any distance.
 *
 * A record is a duplicate when its bytes (as the framer cuts them: a line without its framing,
 * or a DASF record's payload) equal those of an earlier record of the same file; of two twins the
 * later one in file order is the duplicate. Records are compared by a 64-bit digest
 * (util/seenset.h): two different records of a file of n records are taken for twins with a
 * probability below n^2 / 2^65 (2e-6 at 8 million records).
 *
 * Memory is bounded: the first DFS_DUPS_MAX_RECORDS records of a file are checked, a set of at
 * most 16 bytes each (128 MiB); later records are neither checked nor remembered, and the file
 * gets one duplicates_unchecked notice at the first of them. A file read whole is checked while it
 * is read, by the worker reading it (so --dedup can drop duplicates before they become events). A
 * file read in pieces keeps each piece's digests and offsets (16 bytes a record, at most
 * DFS_DUPS_MAX_RECORDS + 1 per piece) until its pieces are folded, where they are replayed in file
 * order through the same check: the answer does not depend on how the file was cut. */
#ifndef DFS_DUPS_H
#define DFS_DUPS_H
#include <stdbool.h>
#include <stdint.h>

#include "model/diag.h"
#include "model/stream.h"
#include "util/seenset.h"

#define DFS_DUPS_MAX_RECORDS ((uint64_t)1 << 23)

/* The check of one file in progress. */
typedef struct dfs_dupcheck {
    dfs_seenset seen;
    uint64_t checked;   /* records of the file checked so far */
} dfs_dupcheck;

void dfs_dupcheck_init(dfs_dupcheck *c);
void dfs_dupcheck_free(dfs_dupcheck *c);
/* Forgets the file checked so far, for the next one. */
void dfs_dupcheck_restart(dfs_dupcheck *c);
/* Judges the next record of the file (digest d, at offset off) and remembers it: true when it is
 * a duplicate (counted as duplicate_record in diag). */
bool dfs_dupcheck_record(dfs_dupcheck *c, dfs_diag *diag, uint32_t file, uint64_t d, uint64_t off);
/* Under --dedup, before the record is parsed: true when it is a duplicate (judged and counted as
 * by dfs_dupcheck_record); false when it must be parsed and then passed to dfs_dupcheck_record. */
bool dfs_dupcheck_repeats(dfs_dupcheck *c, dfs_diag *diag, uint32_t file, uint64_t d, uint64_t off);
/* A record of a piece of a file, kept for the fold. false when out of memory. */
bool dfs_dups_keep(dfs_stream *st, uint64_t d, uint64_t off);
/* Replays the kept records of a file's pieces, in file order, into diag; frees them. */
void dfs_dups_fold(dfs_diag *diag, uint32_t file, dfs_stream *const *streams, size_t n);
#endif
