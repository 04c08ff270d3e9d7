/* stream.h - what a parser learns while reading one stream: a whole file, or one chunk of a file
 * that is read in parallel pieces. The run folds streams into its file table, in chunk order,
 * when reading ends. Everything here is private to one worker while the stream is parsed. */
#ifndef DFS_STREAM_H
#define DFS_STREAM_H
#include <stdbool.h>
#include <stdint.h>

#include "dfscope.h"
#include "model/diag.h"
#include "util/arena.h"
#include "util/twins.h"
#include "util/u64map.h"
#include "util/vec.h"

/* A DFTracer FH/HH/SH definition. */
typedef struct dfs_hashdef {
    uint64_t hash;
    uint64_t offset; /* where the definition record is */
    dfs_str str;
    uint8_t kind;    /* dfs_hash_kind */
} dfs_hashdef;

/* A process_name / thread_name (or other M record naming a pid/tid). */
typedef struct dfs_namedef {
    int64_t pid, tid;
    dfs_str str;
    uint8_t is_thread;
} dfs_namedef;

/* A top-level key of an object-form file other than traceEvents, with its raw JSON value. */
typedef struct dfs_filemeta {
    dfs_str key;
    dfs_str raw_json; /* value text, cut at DFS_FILEMETA_MAX bytes */
} dfs_filemeta;
#define DFS_FILEMETA_MAX 65536

typedef struct dfs_stream {
    uint32_t file;
    uint32_t chunk;            /* 0 for the first (or only) piece of a file */
    uint64_t lines;            /* newlines seen (line mode), for line numbers of later chunks */
    dfs_diag diag;

    dfs_dialect dialect;       /* set from the first record that tells */
    uint64_t records;          /* counted per spec section 12 */
    uint64_t bad_records;      /* unparsable lines / records */
    uint64_t recovered;        /* records recovered from glued lines (not in records) */
    uint64_t phase_counts[DFS_PHASE_COUNT];
    uint64_t ph_written[128];  /* by phase as written: 'X', '1'..'4', '?' ... */

    int64_t last_ts;           /* for ts_regression */
    bool have_last_ts;
    bool saw_close;            /* the closing ']' (or the v2 `end` record) was seen */
    bool saw_open;             /* an opening '[' was seen */

    /* Clock (spec section 4): abs = ts * scale_num / scale_den + offset. */
    bool has_clock_offset;
    int64_t clock_offset_ns;   /* Kineto baseTimeNanoseconds, smdebug start time */
    int32_t scale_num, scale_den; /* v2 time_metric; 1/1 by default */
    bool relative_time;

    /* Hash definitions in stream order, and the latest definition of each hash for resolution
     * of later references in the same stream (nearest preceding definition). */
    DFS_VEC(dfs_hashdef) defs;
    dfs_u64map latest[3];      /* per dfs_hash_kind: hash -> index in defs */
    DFS_VEC(dfs_namedef) names;
    DFS_VEC(dfs_filemeta) meta;
    uint64_t unresolved_refs;  /* references not resolved in-stream (resolved late by the run) */
    /* Definitions made in earlier chunks of the same file (found by the reader's pre-scan), in
     * chunk order, each a per-kind map hash -> string; resolution looks there, nearest chunk
     * first, after the stream's own definitions, and caches what it finds in `carried`. */
    const dfs_u64map (*before)[3];
    uint32_t nbefore;
    dfs_u64map carried[3];
    /* First and last complete-event ts, so the run can count ts_regression across chunks. */
    int64_t first_ts;
    uint64_t first_ts_offset;
    uint64_t first_ts_line;    /* its line within the stream (line mode), else 0 */
    bool have_first_ts;
    /* The first start and last end of its timed events (raw ts, before the file's clock), for
     * the file's span (dfs_file_info.have_span): noted as each batch is delivered. */
    int64_t span_min, span_max;
    bool have_span;
    uint32_t gzip_members;     /* gzip members decoded by this stream (set by the reader) */
    uint64_t bytes_in;         /* decompressed bytes read by this stream (set by the reader) */
    /* The digests and offsets of the stream's records in order, for the duplicate check of its
     * file (model/dups.h): at the end of a whole file, or when the pieces of a file are folded. */
    DFS_VEC(dfs_digest_at) dupsums;
} dfs_stream;

void dfs_stream_init(dfs_stream *s, uint32_t file, uint32_t chunk, unsigned max_examples);
void dfs_stream_free(dfs_stream *s);
/* Records a hash definition; counts hash_collision when the same hash had another string. */
void dfs_stream_define(dfs_stream *s, dfs_hash_kind kind, uint64_t hash, dfs_str str,
                       uint64_t offset, uint64_t line);
/* The nearest preceding definition: in this stream, else in the nearest earlier chunk; or 0. */
dfs_str dfs_stream_resolve(dfs_stream *s, dfs_hash_kind kind, uint64_t hash);
#endif
