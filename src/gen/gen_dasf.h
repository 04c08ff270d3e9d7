/* gen_dasf.h - deterministic synthetic DASF profiler databases (`dfscope gen --format dasf`).
 *
 * Per host (rank) two files in DASF's framing (8-byte big-endian length + one msgpack map):
 *   dasf-TracePlugin-<host>.msgpack      N Compute events (a dask array graph of 8 stages, each
 *                                        task depending on two of the previous stage), each
 *                                        followed by a Managed Memory event; 4 workers whose
 *                                        batches of 1,000 records interleave as DASF's writers do
 *   dasf-ResourceMonitor-<host>.msgpack  N / 10 Resource Usage samples over the same time span,
 *                                        with gpu_utilization and gpu_memory_used
 * N is dfs_gen_options.events_per_rank (or derived from total_bytes, ~500 bytes per task).
 * The bytes depend only on the options. Memory is O(N / 8) for the graph's last stage. */
#ifndef DFS_GEN_DASF_H
#define DFS_GEN_DASF_H
#include <stddef.h>

#include "gen/gen.h"

/* Same contract as dfs_gen_write; gzip is refused (DASF never compresses). */
int dfs_gen_dasf_write(const dfs_gen_options *o, dfs_gen_report *out, char *err, size_t errlen);
#endif
