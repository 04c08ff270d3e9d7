/* testutil.h - helpers shared by the unit tests. */
#ifndef DFS_TESTUTIL_H
#define DFS_TESTUTIL_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dfscope.h"

/* Path of a corpus file (under ../shared/traces), or NULL when the corpus is absent. */
const char *tu_trace(const char *rel);
/* Exits with 77 (ctest: skipped) and a clear message when the corpus is absent. */
void tu_require_corpus(void);
/* Writes bytes to a fresh temporary file and returns its path (static buffer per call slot). */
const char *tu_temp_file(const char *suffix, const void *data, size_t len);
#endif
