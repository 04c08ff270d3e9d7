/* pctx.h - everything a parser needs while it turns bytes into events on one worker.
 *
 * The framer (framer.h) cuts a byte stream into records; the record parser (record.h) turns one
 * record into a dfs_event appended to `batch`, records metadata and problems in `st`, and interns
 * strings through the worker's cache. Nothing here is shared between workers. */
#ifndef DFS_PCTX_H
#define DFS_PCTX_H
#include <stdbool.h>
#include <stdint.h>

#include "dfscope.h"
#include "model/batch.h"
#include "model/dups.h"
#include "model/stream.h"
#include "util/strtab.h"

#define DFS_WANT_MAX_EXTRA 64

/* The union of what the consumers of a run want (dfs_want), compiled once per run. */
typedef struct dfs_want_set {
    uint64_t keys;                          /* DFS_KEYBIT of well-known keys */
    bool all;                               /* keep every arg */
    size_t nextra;
    const char *extra[DFS_WANT_MAX_EXTRA];  /* other key names ... */
    size_t extra_len[DFS_WANT_MAX_EXTRA];
    dfs_str extra_id[DFS_WANT_MAX_EXTRA];   /* ... and their interned ids */
} dfs_want_set;

typedef struct dfs_pctx {
    dfs_strtab *table;
    dfs_strcache *strs;
    const dfs_want_set *want;
    const dfs_options *opt;
    dfs_stream *st;           /* the stream being parsed */
    dfs_batchbuf *batch;      /* events go here */
    uint64_t line;            /* 1-based line of the current record within the stream; 0 if none */
    /* Scratch space owned by the parser (unescaped strings, args under construction). */
    char *scratch;
    size_t scratch_cap;
    dfs_arg *argtmp;
    size_t argtmp_cap;
    /* Under --dedup, the duplicate check of the file being read whole; otherwise, and for a piece
     * of a file (dups_later), the records are kept in the stream for the judgement of the file
     * (model/dups.h). */
    dfs_dupcheck dups;
    bool dups_later;
    bool dups_off;            /* no check at all (a piece of a file cut between MPI ranks) */
    /* DASF: bytes of an oversized or unfittable record still to be skipped by the next feeds. */
    uint64_t skip_pending;
    /* An allocation failed while parsing: a record was left unread for want of memory, not for
     * bad bytes, so the run cannot be trusted (the reader ends it with exit 4, never counting
     * the record as a bad line). Sticky until the parser is freed. */
    bool nomem;
} dfs_pctx;

void dfs_pctx_init(dfs_pctx *p, dfs_strtab *table, dfs_strcache *strs, const dfs_want_set *want,
                   const dfs_options *opt, dfs_batchbuf *batch);
void dfs_pctx_free(dfs_pctx *p);
/* A new stream: a whole file (piece false) or a piece of one, whose duplicate check is left to
 * the fold. */
void dfs_pctx_begin_dups(dfs_pctx *p, bool piece);
/* Under --dedup, before a record of a file read whole is parsed: whether it repeats an earlier
 * record of the file (counted as duplicate_record); the caller then drops it unparsed, so it is
 * neither an event nor a record of the file. */
bool dfs_pctx_drop_duplicate(dfs_pctx *p, uint64_t digest, uint64_t offset);
/* After a record was parsed (not a bad one): its duplicate check, or kept for the file's
 * judgement. */
void dfs_pctx_note_record(dfs_pctx *p, uint64_t digest, uint64_t offset);
#endif
