/* gzip.h - RFC 1952 member framing over ISA-L inflate (spec/formats.md section 2).
 *
 * A reader decodes the members that start at a compressed offset, one after the other, streaming
 * into the caller's buffer with small reused buffers (pread of about 1 MiB at a time). Damage is
 * reported into a dfs_diag with compressed offsets: gzip_truncated (keep what was inflated),
 * gzip_crc (CRC32/ISIZE mismatch, data kept), gzip_corrupt (invalid deflate data: stop there),
 * trailing_garbage (bytes after the last member that are not a gzip header). */
#ifndef DFS_GZIP_H
#define DFS_GZIP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/diag.h"

typedef struct dfs_gzreader dfs_gzreader;

/* True when the bytes start with the gzip magic 1F 8B. */
bool dfs_gz_magic(const unsigned char *p, size_t n);

/* Decodes members starting at compressed offset `start` (which must be a member start) and stops
 * at the first member boundary at or after `stop` (UINT64_MAX: the end of the file); nothing is
 * decoded when start >= stop. Only the reader that runs to the end of the file checks what follows
 * the last member (trailing_garbage). `file` is the run's file index used in diagnostics; diag may
 * be NULL (problems are then only counted internally). Memory: one 1 MiB input window plus ISA-L's
 * ~90 KB state, whatever the file size. Returns NULL when out of memory. */
dfs_gzreader *dfs_gz_open(int fd, uint64_t file_size, uint64_t start, uint64_t stop,
                          dfs_diag *diag, uint32_t file);
/* Writes up to cap (> 0) decompressed bytes, filling the buffer unless the end comes first;
 * returns the count, 0 at the end, -1 on a read error (errno set; a read error after some output
 * returns that output first). Damage is reported once, at the compressed offset it concerns:
 * gzip_truncated (at the cut member's start), gzip_crc (member start), gzip_corrupt (where
 * inflation failed; the stream then ends early, keeping what was decoded) and trailing_garbage
 * (where the garbage starts). */
ssize_t dfs_gz_read(dfs_gzreader *r, char *out, size_t cap);
uint32_t dfs_gz_members(const dfs_gzreader *r);   /* members begun so far */
bool dfs_gz_truncated(const dfs_gzreader *r);     /* the last member was cut */
/* Compressed offset where decoding stopped: just past the last trailer read (for a segment:
 * the member boundary >= stop; before trailing garbage: where it starts), the end of the input
 * for a truncated member, or about where invalid deflate data was found. */
uint64_t dfs_gz_end(const dfs_gzreader *r);
/* Compressed offset of the next byte the reader will consume (progress in the file). */
uint64_t dfs_gz_consumed(const dfs_gzreader *r);
void dfs_gz_close(dfs_gzreader *r);

/* Split points for parallel decoding of a multi-member file: compressed offsets where a member
 * really starts (a candidate 1F 8B 08 header confirmed by inflating that member completely with a
 * matching CRC32 and ISIZE, and followed by the end of the file or another valid member header),
 * the first at or after each multiple of `target` bytes. out[0] is always 0. Returns how many
 * points were written (1 when the file cannot be split, 0 only when max is 0).
 * Limit: a whole multi-member .gz stored verbatim inside another member could still pass for
 * its inner members; a caller can detect a wrong point because the segment before it then ends
 * (dfs_gz_end) beyond it. */
size_t dfs_gz_split_points(int fd, uint64_t file_size, uint64_t target, uint64_t *out, size_t max);
/* The first confirmed member start at or after pos (as split points are confirmed): 0 for pos 0,
 * file_size when none follows, UINT64_MAX when out of memory. The distinct values at the
 * multiples of `target` are exactly dfs_gz_split_points's points, so ranks that each look up the
 * multiples in their share of a file cut it where one process would. */
uint64_t dfs_gz_member_at_or_after(int fd, uint64_t file_size, uint64_t pos);
#endif
