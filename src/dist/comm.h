/* comm.h - the message layer of a distributed run (docs/MPI.md).
 *
 * A world of ranks: MPI's COMM_WORLD when dfscope was built with MPI and started by an MPI
 * launcher (mpirun, mpiexec, srun), else a single rank of its own that never touches MPI, so a
 * plain run is exactly what it was before MPI existed. Messages are byte buffers of any length
 * (sent in pieces below MPI's int counts). Every rank calls the collectives in the same order:
 * that is what keeps one failing rank from hanging the others. MPI errors abort the whole job
 * (MPI's default handler), so no rank waits for a dead one. Called from one thread only.
 */
#ifndef DFS_COMM_H
#define DFS_COMM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dfs_comm dfs_comm;

/* Was this process started by an MPI launcher? DFSCOPE_MPI=0 says no and =1 yes whatever the
 * environment; otherwise the launchers' variables decide (OMPI_COMM_WORLD_SIZE, PMI_SIZE,
 * PMI_RANK, PMI_FD, PMIX_RANK, MPI_LOCALNRANKS). Always false when built without MPI. */
bool dfs_comm_launched(void);
/* Before MPI starts: is this a launched process whose rank, as its launcher's variables say
 * (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK), is not 0? What lets one process speak for all
 * before there is a world to agree in. */
bool dfs_comm_launched_other_rank(void);

/* The world: MPI (initialised here, MPI_THREAD_FUNNELED) when launched, else one rank. NULL
 * with a message in err when MPI cannot start or memory runs out. */
dfs_comm *dfs_comm_open(char *err, size_t errlen);
/* Ends the world (MPI_Finalize when this opened MPI). */
void dfs_comm_close(dfs_comm *c);

int dfs_comm_rank(const dfs_comm *c);
int dfs_comm_size(const dfs_comm *c);
/* Ranks sharing this rank's node (MPI_COMM_TYPE_SHARED); 1 for a single rank. */
int dfs_comm_local_size(const dfs_comm *c);
/* "Open MPI v4.1.4, ..." (the library's own words, first line), or "none". */
const char *dfs_comm_library(const dfs_comm *c);

/* Point to point, for the reduction tree. recv returns a malloc'd buffer (freed by the caller;
 * NULL with *len 0 for an empty message). false when out of memory. */
bool dfs_comm_send(dfs_comm *c, int to, const void *buf, size_t len);
bool dfs_comm_recv(dfs_comm *c, int from, void **buf, size_t *len);
/* Rank 0's buffer to every rank: on rank 0 *buf and *len are read, elsewhere they receive a malloc'd
 * copy. false when out of memory (the rank still took part). */
bool dfs_comm_bcast(dfs_comm *c, void **buf, size_t *len);
/* The maximum of every rank's value, on every rank. */
int64_t dfs_comm_max(dfs_comm *c, int64_t v);
/* Ends every rank of the job now with `code` (a last resort: a protocol that cannot go on). */
void dfs_comm_abort(dfs_comm *c, int code);
#endif
