/* testutil.h - helpers shared by the unit tests. */
#ifndef DFS_TESTUTIL_H
#define DFS_TESTUTIL_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analyze/insights/insights.h"
#include "dfscope.h"
#include "parse/pctx.h"

/* Path of a corpus file (under ../shared/traces), or NULL when the corpus is absent. */
const char *tu_trace(const char *rel);
/* Exits with 77 (ctest: skipped) and a clear message when the corpus is absent. */
void tu_require_corpus(void);
/* Writes bytes to a fresh temporary file and returns its path (static buffer per call slot); the
 * file is removed when the test program exits. */
const char *tu_temp_file(const char *suffix, const void *data, size_t len);

/* The report's shipped rules (the test fails when they do not load); free with
 * dfs_insight_rules_free. */
dfs_insight_rules *tu_shipped_rules(void);

/* A run with `jobs` threads and, when not 0, explicit piece sizes for plain and gzip files. */
dfs_run *tu_run(int jobs, uint64_t chunk_bytes, uint64_t gzip_segment_bytes);

/* A parser context as a pipeline worker has one: string table, cache, batch, options, wants and
 * the stream being parsed (file index `file`), ready for the framer, record and DASF parsers. */
typedef struct tu_parser {
    dfs_strtab *table;
    dfs_strcache *strs;
    dfs_batchbuf batch;
    dfs_options opt;
    dfs_want_set want;
    dfs_pctx p;
    dfs_stream st;
} tu_parser;

void tu_parser_init(tu_parser *t, uint32_t file);

/* A growable byte buffer for building binary inputs (msgpack records, gzip members). */
typedef struct tu_bytes {
    unsigned char *b;
    size_t n, cap;
} tu_bytes;

void tu_put(tu_bytes *m, const void *p, size_t n);
void tu_put_byte(tu_bytes *m, unsigned v);
void tu_put_be(tu_bytes *m, uint64_t v, unsigned width); /* big-endian, `width` bytes */
void tu_parser_free(tu_parser *t);

/* Bytes of address space the process maps now (/proc/self/statm): a base for RLIMIT_AS tests. */
uint64_t tu_mapped_bytes(void);
/* Runs fn in a child process (where a limit set cannot leak into the other tests) and expects it
 * to exit 0; 77 skips the test; any other code or a signal fails it, said on stderr. Under ASan
 * (TU_UNDER_ASAN) the test is skipped: address-space limits and shadow memory do not mix. */
void tu_in_child(int (*fn)(void));
/* Address-space limits cannot be tested under AddressSanitizer (its shadow memory does not live
 * under them): TU_UNDER_ASAN is defined there. */
#if defined(__SANITIZE_ADDRESS__)
#define TU_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_UNDER_ASAN 1
#endif
#endif
#endif
