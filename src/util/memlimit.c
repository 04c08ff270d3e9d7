/* memlimit.c - the address-space limit and what is used of it. The use is the process's virtual
 * size as Linux counts it against RLIMIT_AS (/proc/self/statm, first field); elsewhere it reads as
 * 0, which only makes the caller's choice less cautious. */
#include "util/memlimit.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

static uint64_t virtual_size(void)
{
    FILE *f = fopen("/proc/self/statm", "re");
    if (!f)
        return 0;
    unsigned long long pages = 0;
    int got = fscanf(f, "%llu", &pages);
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return got == 1 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

bool dfs_memlimit_get(dfs_memlimit *m)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return false;
    m->limit = (uint64_t)rl.rlim_cur;
    m->used = virtual_size();
    return true;
}

uint64_t dfs_memlimit_left(const dfs_memlimit *m)
{
    return m->used < m->limit ? m->limit - m->used : 0;
}
