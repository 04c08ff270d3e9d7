/* textout.h - text output as fast as it can be formatted (the generator's traces, merge's
 * gzip output): a text buffer that records are formatted into directly,
 * flushed to a file descriptor either as is or through ISA-L deflate in gzip framing.
 *
 * Gzip is one member for the whole file, or (member_bytes > 0) a new member whenever a member
 * holds member_bytes of text, cut only between records so every member ends with a newline, the
 * way DFTracer 2.x flushes its write buffer. */
#ifndef DFS_TEXTOUT_H
#define DFS_TEXTOUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DFS_TEXTOUT_BUFFER (1u << 20)
#define DFS_TEXTOUT_MAX_RECORD (16u << 10) /* largest record a formatter may write at once */

typedef struct dfs_textout dfs_textout;

/* member_bytes: 0 = single member. Returns NULL when out of memory. */
dfs_textout *dfs_textout_new(int fd, bool gzip, uint64_t member_bytes);
/* Frees the writer (the descriptor stays open). */
void dfs_textout_free(dfs_textout *o);

/* Space for at least `n` (<= DFS_TEXTOUT_MAX_RECORD) bytes of text; commit what was used. */
char *dfs_textout_reserve(dfs_textout *o, size_t n);
void dfs_textout_commit(dfs_textout *o, size_t used);
/* Convenience for short constant text. */
void dfs_textout_put(dfs_textout *o, const char *s, size_t n);
/* Marks a record boundary: a gzip member may end here. */
void dfs_textout_record_end(dfs_textout *o);

/* Flushes everything and ends the last gzip member. 0 on success, else an errno value. */
int dfs_textout_finish(dfs_textout *o);
/* The first write error seen (errno value), 0 if none. */
int dfs_textout_error(const dfs_textout *o);

uint64_t dfs_textout_text_bytes(const dfs_textout *o); /* uncompressed bytes so far, buffered included */
uint64_t dfs_textout_disk_bytes(const dfs_textout *o); /* bytes written to the descriptor */
uint32_t dfs_textout_members(const dfs_textout *o);    /* gzip members begun */
#endif
