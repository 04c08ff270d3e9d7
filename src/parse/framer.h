/* framer.h - cuts a JSON byte stream into records (spec/formats.md section 3).
 *
 * Line mode: one record per line (DFTracer, smdebug system metrics, line-oriented arrays). Empty
 *   lines, '[', ']', '][' and trailing commas are framing. A line that does not parse is a bad
 *   line (counted with its line number) and reading goes on at the next line; a glued record
 *   (spec section 11) is split and the recovered records counted in st->recovered.
 * Structural mode: records found by bracket depth, string-aware (Kineto pretty-printed files,
 *   one-line files, the object form). Top-level keys other than traceEvents are kept as file
 *   metadata (st->meta); baseTimeNanoseconds sets the stream clock offset. On a syntax error the
 *   framer resynchronises at the next '{' at the events depth and counts bad_record.
 *
 * Feeding: the caller passes consecutive pieces of the stream. feed() returns how many bytes it
 * consumed; the caller keeps the rest and passes it again, followed by more bytes. A piece always
 * ends where the caller's buffer ended, so a record may be cut; feed() then stops before it.
 * With DFS_FEED_FULL the caller cannot grow its buffer (the record exceeds opt->max_record):
 * feed() must consume something, counting record_too_large and skipping the oversized record.
 * With DFS_FEED_FINAL the piece is the end of the stream: everything is consumed. */
#ifndef DFS_FRAMER_H
#define DFS_FRAMER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parse/pctx.h"

#define DFS_FEED_FINAL 1
#define DFS_FEED_FULL 2

typedef struct dfs_framer {
    bool structural;
    dfs_format format;
    /* private state */
    int state;
    int depth;
    bool in_string;
    bool escape;
    bool skipping;           /* dropping the rest of an oversized record/line */
    bool saw_events_key;
    uint64_t record_start;   /* stream offset of the record being scanned (structural) */
    size_t scan_pos;         /* resume point inside the caller's unconsumed bytes */
} dfs_framer;

/* format: DFS_FMT_JSON_LINES, DFS_FMT_JSON_ARRAY or DFS_FMT_JSON_OBJECT (or DFS_FMT_DASF_TEXT,
 * lines that start with "trace: "). structural: see above; JSON_OBJECT is always structural. */
void dfs_framer_init(dfs_framer *f, dfs_format format, bool structural);
size_t dfs_framer_feed(dfs_framer *f, dfs_pctx *p, const char *buf, size_t len, uint64_t offset,
                       int flags);
/* After the final feed: counts missing_close / truncated_container as the framing demands. */
void dfs_framer_finish(dfs_framer *f, dfs_pctx *p);

#endif
