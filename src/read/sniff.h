/* sniff.h - recognising an input from its content (spec/formats.md section 1). */
#ifndef DFS_SNIFF_H
#define DFS_SNIFF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfscope.h"

typedef struct dfs_sniffed {
    dfs_format format;      /* NOT_A_TRACE, JSON_LINES, JSON_ARRAY, JSON_OBJECT, DASF, DASF_TEXT */
    bool structural;        /* JSON_ARRAY/OBJECT that must be read by bracket depth */
    dfs_dialect dialect;    /* best guess from the first records (the record parser refines it) */
    const char *why;        /* for NOT_A_TRACE: a short reason ("empty file", "protobuf", ...) */
} dfs_sniffed;

/* head: the first bytes of the (decompressed) stream, at most a few hundred KiB; at_eof: head is
 * the whole stream. The gzip layer is handled by the caller before this is called. */
dfs_sniffed dfs_sniff(const unsigned char *head, size_t len, bool at_eof);
#endif
