/* stats_internal.h - the state of `dfscope stats` shared by stats.c (streaming, merging,
 * finishing) and stats_pack.c (the same state on the wire, for distributed runs). */
#ifndef DFS_STATS_INTERNAL_H
#define DFS_STATS_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>

#include "analyze/stats/stats.h"
#include "util/keyset.h"
#include "util/u64map.h"
#include "util/vec.h"

typedef struct span {
    int64_t min, max;
    bool have;
} span;

/* A process (tid 0) or thread. While its host is unresolved, the key holds the host hash and the
 * file it was met in; an event with no host at all keeps its file (hhash 0) and takes the host
 * seen for the same pid in the same file. dfs_stats_finish resolves both and keys again by host. */
typedef struct proc_key {
    int64_t pid, tid;
    uint64_t hhash;
    uint32_t host, file;
} proc_key;

typedef DFS_VEC(dfs_stats_name) name_vec;
typedef DFS_VEC(span) span_vec;

/* One worker's partial result; the run-wide result is the same structure, merged. */
typedef struct part {
    dfs_u64map name_index, cat_index; /* (cat << 32 | name) -> index */
    name_vec names, cats;             /* cats: only in the total, made when finishing */
    dfs_keyset procs;     /* proc_key with tid 0 */
    dfs_keyset threads;   /* proc_key */
    dfs_u64map hosts, fnames;
    dfs_keyset unresolved; /* {file, kind, hash} */
    dfs_keyset pid_hosts;  /* proc_key {pid, 0, hhash, host, file}: hosts seen per (file, pid) */
    span_vec spans;       /* per input file, on the file's clock */
    /* Consecutive events mostly share a thread and a host: remember the last keys added. */
    proc_key last_thread;
    bool have_last_thread;
    dfs_str last_host, last_fname;
} part;


typedef struct ref_key {
    uint64_t hash;
    uint32_t file, kind;
} ref_key;

struct dfs_stats {
    dfs_consumer consumer;
    part total;
    dfs_stats_result result;
};

void dfs_stats_part_init(part *p);
void dfs_stats_part_free(part *p);
/* Adds `p` (another worker's or another rank's) into `t`. */
void dfs_stats_merge_part(part *t, const part *p);
void dfs_stats_add_named(dfs_u64map *index, name_vec *v, dfs_str cat, dfs_str name, uint64_t count, int64_t dur);
void dfs_stats_add_span(part *p, uint32_t file, int64_t start, int64_t end);
#endif
