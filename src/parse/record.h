/* record.h - one JSON record to one dfs_event (spec/formats.md sections 4 to 9).
 *
 * Decodes generation-dependent fields per record: string numbers, integer or letter ph, integer
 * or hex-string hashes. Metadata records (DFTracer FH/HH/SH, process_name/thread_name, smdebug
 * start time, v2 end record with time_metric) update the stream state and also become events
 * (phase METADATA). Hash references (args.fhash/hhash) are resolved with the stream's nearest
 * preceding definition; otherwise ev->fname/host stay 0 and st->unresolved_refs counts them. */
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
 * record's stream offset. Counting (st->records, phase counts) is done here for EVENT/EMPTY. */
dfs_rec_status dfs_parse_record(dfs_pctx *p, const char *rec, size_t len, uint64_t offset);
#endif
