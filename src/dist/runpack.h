/* runpack.h - what a rank's reading taught, on the wire: the results of its pieces (each piece's
 * facts and streams: counts, problems and their first examples, hash definitions, process names,
 * file metadata, clocks), so the rank that gathers them folds every file exactly as one process
 * would (read/run.h, dfs_run_fold_results). No event travels: streams hold what the parser
 * learnt about the input, not what it delivered to the analyses. */
#ifndef DFS_RUNPACK_H
#define DFS_RUNPACK_H
#include <stdbool.h>

#include "read/run.h"
#include "wire/pack.h"

void dfs_pack_stream(dfs_pack *w, const dfs_stream *s);
/* A stream unpacked into a fresh heap stream of `run` (NULL when bad or out of memory). */
dfs_stream *dfs_unpack_stream(dfs_unpack *r, dfs_run *run);

/* Every piece result of the run (moved out of nothing: the run keeps them). */
void dfs_pack_results(dfs_pack *w, const dfs_run *run);
/* Appends the packed results to run->results. false when bad or out of memory. */
bool dfs_unpack_results(dfs_unpack *r, dfs_run *run);
#endif
