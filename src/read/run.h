/* run.h - the insides of a dfs_run, shared by the reading modules (inputs, pipeline, finish). */
#ifndef DFS_RUN_H
#define DFS_RUN_H
#include <stdint.h>

#include "dfscope.h"
#include "model/diag.h"
#include "model/stream.h"
#include "parse/pctx.h"
#include "util/arena.h"
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

/* A piece of an input that one rank of a distributed run reads (dist/partition.h): a whole file
 * (count 1), or the nominal byte range [start, stop) of a file cut in `count` pieces, numbered
 * from 0 in file order (stop UINT64_MAX: to the end). Like the chunks of one run, pieces start at
 * the first line start at or after their nominal start, so neighbours never share a line. */
typedef struct dfs_piece {
    uint32_t file, index, count;
    uint64_t start, stop;
} dfs_piece;

/* What reading one piece taught a rank (share mode): the file's facts as that rank found them and
 * the piece's streams in order, ready to be folded by the rank that gathers every piece. */
typedef struct dfs_piece_result {
    dfs_piece piece;
    uint64_t size;
    dfs_format format;
    dfs_dialect dialect;
    bool gzip, unreadable;
    const char *error, *why;   /* static texts, or texts owned by the run (dfs_run_keep_text) */
    DFS_VEC(dfs_stream *) streams;
} dfs_piece_result;

/* Hash definitions of the pieces of files cut between ranks (carry[k] for piece k), exchanged
 * between reading the definitions of every rank's pieces and reading the pieces themselves, so a
 * piece resolves hashes defined before it in pieces other ranks read. `known[k]` tells the pieces
 * whose definitions are filled (this rank's, or received). */
typedef struct dfs_carry_file {
    uint32_t file, count;
    dfs_u64map (*carry)[3];
    bool *known;
} dfs_carry_file;

/* The distributed layer's part in reading (share mode). exchange is called exactly once per
 * dfs_run_read, even when the rank has no cut file or failed (failed true), because every rank
 * must take part; it fills the other ranks' definitions and returns false when it could not. */
typedef struct dfs_share_hooks {
    bool (*exchange)(void *ctx, dfs_run *run, dfs_carry_file *files, size_t n, bool failed);
    void *ctx;
} dfs_share_hooks;

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
    /* share mode (a rank of a distributed run): read only these pieces and keep what each taught
     * in `results` instead of folding it into the file table */
    dfs_piece *share;
    size_t nshare;
    dfs_share_hooks hooks;
    DFS_VEC(dfs_piece_result) results;
    dfs_arena texts;             /* texts of results from other ranks */
};

/* inputs.c */
dfs_status dfs_inputs_add(dfs_run *run, const char *path);
/* Does the named path give something to read: a file or a directory that exists, or a pattern
 * that matches? false with the reason in why ("PATH: No such file or directory", "PATH: no file
 * matches", "PATH: not a regular file"), the words dfs_inputs_add uses. Nothing is opened. */
bool dfs_inputs_exist(const char *path, char *why, size_t n);
/* A file another rank already listed (no stat, no check for a file named twice). */
dfs_status dfs_run_add_listed(dfs_run *run, const char *path, uint64_t size);

/* share.c: distributed runs. set_share copies the pieces (sorted by file and index) and the
 * hooks; dfs_run_read then fills run->results and returns DFS_EXIT_OK or DFS_EXIT_OUTPUT (out of
 * memory). fold_results folds every rank's results (moved into run->results) into the file
 * table as dfs_run_read would, and returns the verdict (DFS_EXIT_OUTPUT also when a piece is
 * missing). */
bool dfs_run_set_share(dfs_run *run, const dfs_piece *pieces, size_t n, const dfs_share_hooks *hooks);
int dfs_run_fold_results(dfs_run *run);
void dfs_piece_result_free(dfs_piece_result *r);
/* How an input can be cut between ranks, by its first 64 KiB (decompressed): an uncompressed
 * line-oriented trace in line-aligned byte ranges; a gzipped one that one process would read in
 * segments (larger than gzip_segment_bytes) at the same member starts, so the ranks' pieces must
 * be multiples of gzip_segment_bytes. NONE when it cannot be read or cut. */
typedef enum dfs_cut { DFS_CUT_NONE, DFS_CUT_PLAIN, DFS_CUT_GZIP } dfs_cut;
dfs_cut dfs_input_cut(const char *path, uint64_t size, uint64_t gzip_segment_bytes);
/* A string interned in the run's table (thread-safe); 0 for "" or when the table is full. */
dfs_str dfs_run_intern(dfs_run *run, const char *s, size_t n);
/* A NUL-terminated copy owned by the run; NULL when out of memory. */
const char *dfs_run_keep_text(dfs_run *run, const char *s, size_t n);

/* run.c: folds the streams of one file (in chunk order) into its dfs_file_info, the run's
 * diagnostics and the hash indexes. Called once per file, in file order, after reading. */
void dfs_run_fold_file(dfs_run *run, uint32_t file, dfs_stream *const *streams, size_t n);
/* Everything reading concludes about one input from its streams in order: the problems of an
 * unreadable input or of one that is not a trace (`why`), the fold, and the gzip members. */
void dfs_run_conclude_input(dfs_run *run, uint32_t file, const char *why, dfs_stream *const *streams, size_t n,
                            bool read);
/* The verdict of a finished read (a dfs_exit code); `failed` when memory ran out. */
int dfs_run_verdict(dfs_run *run, bool failed);
#endif
