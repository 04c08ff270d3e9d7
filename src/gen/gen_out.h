/* gen_out.h - the generator's output: a text buffer that records are formatted into directly,
 * flushed to a file descriptor either as is or through ISA-L deflate in gzip framing.
 *
 * Gzip is one member for the whole file, or (member_bytes > 0) a new member whenever a member
 * holds member_bytes of text, cut only between records so every member ends with a newline, the
 * way DFTracer 2.x flushes its write buffer. */
#ifndef DFS_GEN_OUT_H
#define DFS_GEN_OUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GEN_OUT_BUFFER (1u << 20)
#define GEN_OUT_MAX_RECORD (16u << 10) /* largest record a formatter may write at once */

typedef struct gen_out gen_out;

/* member_bytes: 0 = single member. Returns NULL when out of memory. */
gen_out *gen_out_new(int fd, bool gzip, uint64_t member_bytes);
/* Frees the writer (the descriptor stays open). */
void gen_out_free(gen_out *o);

/* Space for at least `n` (<= GEN_OUT_MAX_RECORD) bytes of text; commit what was used. */
char *gen_out_reserve(gen_out *o, size_t n);
void gen_out_commit(gen_out *o, size_t used);
/* Convenience for short constant text. */
void gen_out_put(gen_out *o, const char *s, size_t n);
/* Marks a record boundary: a gzip member may end here. */
void gen_out_record_end(gen_out *o);

/* Flushes everything and ends the last gzip member. 0 on success, else an errno value. */
int gen_out_finish(gen_out *o);
/* The first write error seen (errno value), 0 if none. */
int gen_out_error(const gen_out *o);

uint64_t gen_out_text_bytes(const gen_out *o); /* uncompressed bytes so far, buffered included */
uint64_t gen_out_disk_bytes(const gen_out *o); /* bytes written to the descriptor */
uint32_t gen_out_members(const gen_out *o);    /* gzip members begun */
#endif
