/* diag.h - problem counters and the first examples of each kind.
 *
 * Each stream (a file, or a chunk of a split file) fills its own dfs_diag; the run merges them at
 * the end in file and chunk order. Examples are kept as the smallest (file, offset) per kind, so the
 * ones reported do not depend on thread scheduling. */
#ifndef DFS_DIAG_H
#define DFS_DIAG_H
#include <stdint.h>

#include "dfscope.h"
#include "util/vec.h"

typedef DFS_VEC(dfs_example) dfs_example_vec;

typedef struct dfs_diag {
    uint64_t counts[DFS_PROB__COUNT];
    unsigned max_examples;
    dfs_example_vec examples[DFS_PROB__COUNT];
} dfs_diag;

void dfs_diag_init(dfs_diag *d, unsigned max_examples);
void dfs_diag_free(dfs_diag *d);
/* Counts one occurrence and keeps it as an example if it is among the first by (file, offset). */
void dfs_diag_add(dfs_diag *d, dfs_problem p, uint32_t file, uint64_t line, uint64_t offset,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Adds counts without an example (bulk counts such as string_number). */
void dfs_diag_count(dfs_diag *d, dfs_problem p, uint64_t n);
/* Adds `from` into `into`, shifting from's line numbers by line_base. */
void dfs_diag_merge(dfs_diag *into, const dfs_diag *from, uint64_t line_base);
uint64_t dfs_diag_damage(const dfs_diag *d);
#endif
