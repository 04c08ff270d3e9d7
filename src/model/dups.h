/* dups.h - exact duplicate records within a file, at any distance.
 *
 * A record is a duplicate when its bytes (as the framer cuts them: a line without its framing,
 * or a DASF record's payload) equal those of an earlier record of the same file; of two twins the
 * later one in file order is the duplicate. Records are compared by a 64-bit digest
 * (util/seenset.h): two different records of a file of n records are taken for twins with a
 * probability below n^2 / 2^65 (2e-6 at 8 million records).
 *
 * Memory is bounded: the first DFS_DUPS_MAX_RECORDS records of a file are checked; later ones
 * are neither checked nor remembered, and the file gets one duplicates_unchecked notice at the
 * first of them. Two ways, with the same answers:
 *  - by default, each stream keeps its records' digests and offsets (16 bytes a record, at most
 *    DFS_DUPS_MAX_RECORDS + 1 per stream, 128 MiB) and the file is judged at its end: in the
 *    worker for a file read whole (dfs_dups_judge on its one stream), by the worker that reads the
 *    last range of a file read in ranges, at the fold for a gzip file read in segments (whose
 *    junction lines are parsed last); each time on its pieces in file order, in passes that
 *    stream through memory (util/twins.h),
 *    so reading pays one digest and one append per record. The answer does not depend on how the
 *    file was cut.
 *  - under --dedup (files are then read whole), a duplicate must be known before it becomes an
 *    event: dfs_dupcheck judges each record as it comes, in a digest set of at most 16 bytes a
 *    record (128 MiB) per file being read. */
#ifndef DFS_DUPS_H
#define DFS_DUPS_H
#include <stdbool.h>
#include <stdint.h>

#include "model/diag.h"
#include "model/stream.h"
#include "util/seenset.h"

#define DFS_DUPS_MAX_RECORDS ((uint64_t)1 << 23)

/* A record of a stream, kept for the judgement of its file. false when out of memory. */
bool dfs_dups_keep(dfs_stream *st, uint64_t digest, uint64_t offset);
/* Judges the records kept by the streams of one file, in file order, into diag (duplicate_record,
 * duplicates_unchecked); frees them. */
void dfs_dups_judge(dfs_diag *diag, uint32_t file, dfs_stream *const *streams, size_t n);

/* The check of one file as it is read (--dedup). */
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
/* Before the record is parsed: true when it is a duplicate (judged and counted as by
 * dfs_dupcheck_record); false when it must be parsed and then passed to dfs_dupcheck_record. */
bool dfs_dupcheck_repeats(dfs_dupcheck *c, dfs_diag *diag, uint32_t file, uint64_t d, uint64_t off);
#endif
