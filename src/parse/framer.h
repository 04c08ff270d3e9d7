/* framer.h - cuts a JSON byte stream into records (spec/formats.md section 3).
 *
 * Line mode: one record per line (DFTracer, smdebug system metrics, line-oriented arrays, DASF
 *   "trace: {json}" lines). Spaces, CR, a BOM, '[', ']', '][' and commas around a record are
 *   framing; only a comma before ']' or at the end of the stream counts as trailing_comma.
 *   A line is parsed strictly first; if that fails and records start inside it (`{"id":` or
 *   `{"name":`), it is split as a glued line (the recovered records go to st->recovered, lost
 *   fragments to st->bad_records); otherwise it is read leniently (repaired_quote); otherwise it
 *   is a bad line, and also incomplete_file when it is the last bytes of the stream with no
 *   '\n'. Lines longer than opt->max_record are skipped as record_too_large.
 * Structural mode: records found by bracket depth, string-aware (Kineto pretty-printed files,
 *   one-line files, the object form). Newlines are not boundaries. Top-level keys other than
 *   traceEvents are kept as file metadata (st->meta, values cut at DFS_FILEMETA_MAX);
 *   baseTimeNanoseconds sets the stream clock offset, schemaVersion/deviceProperties/traceName/
 *   baseTimeNanoseconds make the dialect Kineto and metadata.highres-ticks TF profiler. Damage
 *   (bytes between records, a record that does not parse, a raw newline inside a string, which
 *   means the quotes no longer pair up) counts bad_record, and reading resumes at the next '{'.
 *   p->line is the line where a record starts, for examples.
 *
 * Feeding: the caller passes consecutive pieces of the stream. feed() returns how many bytes it
 * consumed; the caller keeps the rest and passes it again, followed by more bytes. A piece always
 * ends where the caller's buffer ended, so a record may be cut; feed() then stops before it, and
 * resumes its scan where it stopped (the search for the end of that line, or of that structural
 * unit): the bytes passed again must be the same, and no byte is scanned twice however long the
 * record grows. Blank lines cost their bytes only (no work per line). Results do not depend on how
 * the stream is cut into pieces. The bytes after a record in the caller's buffer may be read
 * (never written) by the record parser's fast paths.
 * With DFS_FEED_FULL the caller cannot grow its buffer (the record exceeds opt->max_record):
 * feed() must consume something, counting record_too_large and skipping the oversized record.
 * With DFS_FEED_FINAL the piece is the end of the stream: everything is consumed.
 *
 * finish() judges the stream as a whole (missing_close, truncated_container, incomplete_file,
 * a trailing comma at the end) and settles the dialect to generic Chrome when no record told
 * another one: call it once, after the final feed of the last piece of a file. For a file read
 * in chunks, the framing of the first chunk (saw_open) is only known to that chunk's stream. */
#ifndef DFS_FRAMER_H
#define DFS_FRAMER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parse/pctx.h"
#include "parse/record.h"

#define DFS_FEED_FINAL 1
#define DFS_FEED_FULL 2

typedef struct dfs_framer {
    bool structural;
    dfs_format format;
    /* private state */
    int state;
    int64_t depth;
    bool in_string;
    bool escape;
    bool skipping;           /* dropping the rest of an oversized record/line/value */
    bool saw_events_key;
    uint64_t record_start;   /* stream offset of the unit being scanned (structural) */
    size_t scan_pos;         /* resume point inside the caller's unconsumed bytes */
    char unit_kind;          /* structural: '{' container, '"' string, '0' scalar */
    bool pending_comma;      /* structural: a comma not yet followed by a record */
    bool torn;               /* the stream ended inside a record */
    uint64_t end_offset;     /* stream offset just past the bytes fed: where finish() finds the end */
    dfs_str meta_key;        /* object form: the top-level key whose value is being scanned */
    dfs_rec_memo memo;       /* the record parser's memory for this stream */
} dfs_framer;

/* format: DFS_FMT_JSON_LINES, DFS_FMT_JSON_ARRAY or DFS_FMT_JSON_OBJECT (or DFS_FMT_DASF_TEXT,
 * lines that start with "trace: "). structural: see above; JSON_OBJECT is always structural. */
void dfs_framer_init(dfs_framer *f, dfs_format format, bool structural);
size_t dfs_framer_feed(dfs_framer *f, dfs_pctx *p, const char *buf, size_t len, uint64_t offset,
                       int flags);
/* After the final feed: counts missing_close / truncated_container as the framing demands. */
void dfs_framer_finish(dfs_framer *f, dfs_pctx *p);

#endif
