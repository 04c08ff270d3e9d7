/* run.h - the insides of a dfs_run, shared by the reading modules (inputs, pipeline, finish). */
#ifndef DFS_RUN_H
#define DFS_RUN_H
#include <stdint.h>

#include "dfscope.h"
#include "model/diag.h"
#include "model/stream.h"
#include "parse/pctx.h"
#include "util/strtab.h"
#include "util/keyset.h"
#include "util/u64map.h"
#include "util/vec.h"

/* The definitions of one (kind, hash) in one file, sorted by offset, for late resolution. */
typedef struct dfs_defidx {
    dfs_u64map first[3];          /* hash -> index of its first definition in defs */
    DFS_VEC(dfs_hashdef) defs;    /* sorted by (kind, hash, offset) */
} dfs_defidx;

typedef struct dfs_namekey {
    int64_t pid, tid;
    dfs_str str;
    uint8_t is_thread;
} dfs_namekey;

typedef struct dfs_input {
    dfs_file_info info;
    char *path;
    dfs_defidx defs;
    DFS_VEC(dfs_namedef) names;
    DFS_VEC(dfs_filemeta) meta;
} dfs_input;

struct dfs_run {
    dfs_options opt;
    dfs_strtab *strs;
    DFS_VEC(dfs_input) inputs;
    dfs_keyset seen_files;       /* {dev, ino} of the inputs, so a file named twice is read once */
    char error[1024];
    dfs_diag diag;               /* all streams merged, after dfs_run_read */
    dfs_u64map global_defs[3];   /* run-wide hash -> string (first definition) */
    bool read_done;
};

/* inputs.c */
dfs_status dfs_inputs_add(dfs_run *run, const char *path);

/* run.c: folds the streams of one file (in chunk order) into its dfs_file_info, the run's
 * diagnostics and the hash indexes. Called once per file, in file order, after reading. */
void dfs_run_fold_file(dfs_run *run, uint32_t file, dfs_stream *const *streams, size_t n);
#endif
