/* partition.h - which rank reads what (docs/MPI.md, "Partitioning").
 *
 * Every rank computes the same partition from the same input list (rank 0 lists the paths and
 * broadcasts the list), so no assignment is ever sent. Inputs are balanced by size: pieces are
 * taken largest first and each goes to the least-loaded rank (ties: the lower file index, then
 * the lower rank), which is within 4/3 of the best balance. A piece weighs its bytes plus a fixed
 * cost per input (opening and sniffing it), so many small inputs still spread evenly.
 *
 * An input may be cut into byte ranges only when it can be (`unit` > 0: an uncompressed
 * line-oriented trace, unit 1, or a multi-member gzipped one whose pieces must be multiples of the
 * gzip segment size, as rank 0 sniffed it) and the analysis allows it (the exact analyses need
 * every event of a traced process on one rank and take whole files). It is cut when it is larger
 * than its piece size - piece_bytes rounded up to a multiple of its unit - into pieces of that
 * size (the last one to the end of the file).
 */
#ifndef DFS_PARTITION_H
#define DFS_PARTITION_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/run.h"

#define DFS_PARTITION_FILE_COST (UINT64_C(64) << 10)
#define DFS_PARTITION_MAX_PIECES 4096u /* per input */

typedef struct dfs_part_input {
    uint64_t size;
    uint64_t unit; /* 0: kept whole; else pieces are multiples of unit bytes */
} dfs_part_input;

typedef struct dfs_partition {
    dfs_piece *pieces; /* every piece of every input, by file and index */
    int *rank;         /* the rank that reads pieces[i] */
    size_t n;
    uint64_t *load;    /* per rank: the weight assigned */
    int nranks;
} dfs_partition;

/* The piece size for `total` bytes on `nranks` ranks: a quarter of a rank's fair share, at least
 * 32 MiB, so a cut file still gives each rank a few pieces to balance with. */
uint64_t dfs_partition_piece_bytes(uint64_t total, int nranks);
/* piece_bytes 0: nothing is cut. false when out of memory. */
bool dfs_partition_make(dfs_partition *p, const dfs_part_input *in, size_t n, int nranks, uint64_t piece_bytes);
void dfs_partition_free(dfs_partition *p);
/* The pieces of `rank`, by file and index (malloc'd into *out); returns how many. SIZE_MAX when
 * out of memory. */
size_t dfs_partition_share(const dfs_partition *p, int rank, dfs_piece **out);
#endif
