/* fuzz_common.h - what the parser fuzz targets share: a parser context as a pipeline worker has
 * one, a driver that feeds bytes the way the reader does, and a summary of what came out.
 *
 * The oracle of the stream parsers: the framer and DASF contracts say results do not depend on
 * how the stream is cut into pieces, so every input is read whole and again in pieces, and the two
 * summaries must agree; a disagreement aborts, which libFuzzer reports as a crash with the input
 * saved. (Whether the counts also do not depend on the args the consumers want is not checked:
 * they do, see docs/RELIABILITY.md, known differences.) */
#ifndef DFS_FUZZ_COMMON_H
#define DFS_FUZZ_COMMON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfscope.h"
#include "model/batch.h"
#include "model/stream.h"
#include "parse/pctx.h"
#include "util/strtab.h"

typedef struct fz_parser {
    dfs_strtab *table;
    dfs_strcache *strs;
    dfs_batchbuf batch;
    dfs_options opt;
    dfs_want_set want;
    dfs_pctx p;
    dfs_stream st;
    uint64_t events; /* events delivered (batches are cleared after each feed) */
    uint64_t checksum; /* of the strings read back, so that reading them is not optimised out */
} fz_parser;

/* What a reading produced, compared between readings of the same bytes. */
typedef struct fz_summary {
    uint64_t records, bad_records, recovered, events;
    uint64_t problems[DFS_PROB__COUNT];
} fz_summary;

/* A feed function: the framer or DASF parser behind one signature. */
typedef size_t (*fz_feed_fn)(void *parser, fz_parser *z, const char *buf, size_t len,
                             uint64_t offset, int flags);

void fz_parser_init(fz_parser *z, bool all_args);
void fz_parser_free(fz_parser *z);
/* Feeds data in pieces of `piece` bytes (0: the whole input in one final feed) through a buffer
 * that is exactly as long as its contents, so that ASan sees any read past what was given;
 * DFS_FEED_FULL when the buffer holds opt.max_record bytes, DFS_FEED_FINAL at the end. Aborts
 * when the parser breaks the feeding contract (consumes more than given, nothing when FULL, not
 * everything when FINAL). */
void fz_drive(fz_parser *z, fz_feed_fn feed, void *parser, const uint8_t *data, size_t len,
              size_t piece);
void fz_summarize(const fz_parser *z, fz_summary *out);
/* Aborts with a message naming the first difference (the second reading was fed in pieces). */
void fz_expect_same(const char *what, size_t piece, const fz_summary *a, const fz_summary *b);
/* Whether the consumers want every arg (else none) for this input: both paths of the record
 * parser get fuzzed. Replaying an input, FZ_ARGS=all|none and FZ_PIECE=N choose instead of the
 * input's bytes. */
bool fz_all_args(const uint8_t *data, size_t len);
/* A piece size in [1, 4096] derived from the input bytes (deterministic, so crashes replay). */
size_t fz_piece_size(const uint8_t *data, size_t len);
#endif
