/* dasf.h - DASF length-prefixed msgpack records (spec/formats.md section 10). */
#ifndef DFS_DASF_H
#define DFS_DASF_H
#include <stddef.h>
#include <stdint.h>

#include "parse/pctx.h"

/* Same feeding contract as dfs_framer_feed (framer.h): returns the bytes consumed; a record cut by
 * the end of buf is left for the next call unless flags has DFS_FEED_FINAL (then torn_record or
 * trailing_garbage is counted) or DFS_FEED_FULL (the record exceeds opt->max_record: bad_record,
 * skipped by its length). `offset` is the stream offset of buf[0]. */
/* Pseudo-args a consumer may ask for by name (dfs_want.extra): the record's `timestamp` and
 * `duration` exactly as written (float or integer seconds), delivered before the real args. The
 * event's ts and dur are rounded to ns, which analyses that must reproduce DASF's floating sums
 * bit for bit cannot use. The '@' keeps them apart from the args DASF writes. */
#define DFS_DASF_RAW_TIMESTAMP "@timestamp"
#define DFS_DASF_RAW_DURATION "@duration"

size_t dfs_dasf_feed(dfs_pctx *p, const unsigned char *buf, size_t len, uint64_t offset, int flags);
#endif
