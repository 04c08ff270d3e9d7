/* memlimit.h - the address space a process may still take under its limit (RLIMIT_AS, what
 * `ulimit -v` sets), so that code with a choice between a fast path that reserves address space
 * (a file mapping, a large sort buffer) and a slower bounded one can choose before it fails. */
#ifndef DFS_MEMLIMIT_H
#define DFS_MEMLIMIT_H
#include <stdbool.h>
#include <stdint.h>

typedef struct dfs_memlimit {
    uint64_t limit; /* bytes of address space allowed */
    uint64_t used;  /* bytes in use when asked (0 when the system does not say) */
} dfs_memlimit;

/* true, with the numbers, when the address space is limited; false when it is not. */
bool dfs_memlimit_get(dfs_memlimit *m);
/* The bytes still free under the limit (0 when it is already reached). */
uint64_t dfs_memlimit_left(const dfs_memlimit *m);
#endif
