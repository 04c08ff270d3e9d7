/* record.h - one JSON record to one dfs_event (spec/formats.md sections 4 to 9, 11, 12).
 *
 * Decodes generation-dependent fields per record: string numbers, integer or letter ph, integer
 * or hex-string hashes, decimal times (exact integer ns: µs text x 1000, smdebug Timestamp in
 * seconds). Metadata records (DFTracer FH/HH/SH, process_name/thread_name, smdebug start time,
 * v2 end record with time_metric) update the stream state and also become events (phase
 * METADATA). Hash references (args.fhash/hhash) are resolved with the stream's nearest
 * preceding definition; otherwise ev->fname/host stay 0 and st->unresolved_refs counts them.
 * 2023 records name the file and host in clear (args.fname, args.hostname).
 *
 * Choices worth knowing:
 *  - string pid/tid: interned into pid_str/tid_str with a negative id from the string's
 *    content (dfs_synthetic_id), the same for any thread count.
 *  - string_number is counted once per record whose id/pid/tid/ts/dur is a numeric string;
 *    numeric strings in args become numbers (DFS_VF_FROM_STRING) without being counted, since
 *    args are only read when wanted and counts must not depend on the consumers. The same holds
 *    for hashes and names: they are read whatever the consumers want.
 *  - control_char, invalid_utf8, repaired_quote, int_overflow, nonfinite_number: once per
 *    record, wherever in the record (skipped values included).
 *  - X without dur becomes an instant (phase INSTANT, ph still 'X'); negative or absurd
 *    (> 7 days) durations and times outside int64 ns set DFS_EF_BAD_TIME.
 *  - smdebug system metrics ({"Type","Name","Dimension","Value","NodeId","Timestamp"}): ph '?',
 *    phase COUNTER, name = Dimension (the metric), cat = Type, pid = NodeId (also the host),
 *    tid = Name (the device: cpu0, gpu1), ts = Timestamp (s); "Value" is an arg for consumers
 *    that name it. Other top-level keys unknown to the model are args only when named in
 *    want->extra (e.g. Chrome "bp", "s").
 *  - DASF text records (mode DFS_REC_DASF_TEXT): cat "dasf", ts = timestamp - duration for X
 *    (the written timestamp is the task end), pid/tid from process_id/thread_id, host = the
 *    string process id.
 *  - The dialect is set from the first record that tells (spec section 1) while it is unknown;
 *    the framer settles it to generic Chrome at the end. TF profiler and Horovod set
 *    st->relative_time. */
#ifndef DFS_RECORD_H
#define DFS_RECORD_H
#include <stddef.h>
#include <stdint.h>

#include "parse/pctx.h"

typedef enum dfs_rec_status {
    DFS_REC_EVENT,   /* an event was appended to p->batch */
    DFS_REC_EMPTY,   /* "{}": counts as a record, yields no event */
    DFS_REC_BAD,     /* not a parsable JSON object; nothing appended, nothing counted */
} dfs_rec_status;

/* rec[0] must be '{'; len covers exactly the object (trailing spaces allowed). offset is the
 * record's stream offset; p->line its line (0 if none). Counting (st->records, phase counts) and
 * the problems of the record are done here for EVENT/EMPTY; a BAD record is left to the caller
 * (bad_line, bad_record, glued_record or incomplete_file depend on where it was found). */
dfs_rec_status dfs_parse_record(dfs_pctx *p, const char *rec, size_t len, uint64_t offset);

/* Modes of dfs_parse_record_ex. */
#define DFS_REC_RECOVERED 0x1u /* recovered from a glued line: counted in st->recovered only */
#define DFS_REC_DASF_TEXT 0x2u /* a DASF text record (timestamp, duration, phase, process_id...) */
#define DFS_REC_STRICT    0x4u /* no lenient retry (the caller tries other readings first) */
#define DFS_REC_LENIENT   0x8u /* only the lenient reading (the strict one already failed) */
#define DFS_REC_GENERAL   0x10u /* tests: no fast path, the general parser only */

/* What the parser remembers from one record to the next of a stream so that the common case is
 * cheap: the previous record's key order (writers use a fixed order), recently interned short
 * strings with what the parser needs to know about them, the last hash resolutions, and which
 * arg keys the consumers want.
 * Optional (NULL works, slower); zero-initialise it for a new stream. Private to record*.c. */
#define DFS_MEMO_KEYS 12
#define DFS_MEMO_STRS 256
typedef struct dfs_memo_str {
    uint64_t w[4];   /* the bytes, zero padded (strings of at most 32 bytes) */
    uint32_t len;
    dfs_str id;
    uint8_t hints;   /* what the parser derives from the text (record_value.c) */
} dfs_memo_str;

/* The key under which an arg of at most 16 bytes is kept (0: nobody wants it). */
#define DFS_MEMO_ARGKEYS 64
typedef struct dfs_memo_argkey {
    uint64_t w[2];     /* the key's bytes, zero padded (w[0] == 0: empty slot) */
    dfs_str key;
    bool numstr;       /* a string value that is a number is kept as the number */
} dfs_memo_argkey;

typedef struct dfs_rec_memo {
    const void *table;                 /* the string table the ids belong to */
    const void *want;                  /* the want set the arg keys were looked up for */
    const void *stream;                /* the stream the resolutions belong to */
    uint8_t order[DFS_MEMO_KEYS];      /* top-level keys of the previous record */
    uint64_t hash[3];                  /* last resolved hash per dfs_hash_kind ... */
    dfs_str resolved[3];               /* ... and its resolution */
    uint64_t defs_seen;                /* st->defs.n when the resolutions were made */
    dfs_memo_str strs[DFS_MEMO_STRS];
    dfs_memo_argkey argkeys[DFS_MEMO_ARGKEYS];
} dfs_rec_memo;

/* avail: bytes readable from rec (>= len; the rest of the caller's buffer), which lets the
 * fast paths load whole vectors near the end of the record without copying it. */
dfs_rec_status dfs_parse_record_ex(dfs_pctx *p, const char *rec, size_t len, size_t avail,
                                   uint64_t offset, unsigned mode, dfs_rec_memo *memo);

/* The dfs_key whose name is [k, k + n), or -1. */
int dfs_key_lookup(const char *k, size_t n);
#endif
