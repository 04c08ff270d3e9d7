/* pipeline.h - the insides of the reading pipeline, shared by its modules:
 *   pipeline.c  the worker pool, the phases, planning the tasks, folding the results;
 *   prepare.c   phase 1: sniffing each file and finding where it can be cut;
 *   prescan.c   the hash definitions of earlier chunks of a cut file;
 *   task.c      reading one task (a file, a chunk or a gzip segment) into its stream;
 *   mapguard.c  (mapguard.h) mapped windows of files that shrink while they are read. */
#ifndef DFS_PIPELINE_H
#define DFS_PIPELINE_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/batch.h"
#include "parse/framer.h"
#include "read/gzip.h"
#include "read/run.h"
#include "read/sniff.h"

enum {
    BLOCK = 1 << 20,          /* bytes read per step */
    HEAD = 64 * 1024,         /* bytes sniffed */
    MAP_WINDOW = 16 << 20,    /* bytes of a plain file mapped at a time */
    MAX_SEGMENTS = 4096,
};

typedef enum task_kind { TASK_WHOLE, TASK_RANGE, TASK_GZ_SEGMENT } task_kind;

typedef struct task {
    uint32_t file;
    uint32_t chunk;
    uint32_t nchunks;
    task_kind kind;
    uint64_t start, stop;      /* RANGE: nominal byte range; GZ_SEGMENT: compressed range */
    uint64_t from, to;         /* RANGE: the line-aligned range read, once range_known */
    bool range_known;
    size_t piece;              /* share mode: the piece of run->share it reads */
    dfs_stream st;
    /* A gzip segment cannot know whether the previous one ended inside a line: it keeps its
     * first line (head) and its unfinished last line (tail) for the junction pass. */
    char *head, *tail;
    size_t head_len, tail_len;
    uint64_t tail_offset;
    bool shrank;               /* its file was found shorter than listed (reported) */
} task;

typedef DFS_VEC(dfs_stream *) stream_vec;
typedef DFS_VEC(task) task_vec;

typedef struct prepared {
    dfs_sniffed sniff;
    bool gzip;
    uint64_t *points;          /* gzip segment starts, when the file is cut (else NULL) */
    size_t npoints;            /* 1 when the file is read whole */
    /* A gzip file whose head (all of it, for a small file) inflates to something that is not a
     * trace because the gzip layer is damaged (cut in its header, corrupt): the file is not read
     * again, so the damage the head read found is folded from here. NULL otherwise. */
    dfs_stream *gz_damage;
    /* Share mode, a gzipped input cut between ranks (share.c): pairs (j, the first member start at
     * or after j * gzip_segment_bytes) for every multiple j in this rank's pieces, by j. */
    uint64_t *marks;
    size_t nmarks;
} prepared;

typedef struct worker {
    struct pool *pool;
    unsigned index;
    dfs_strcache *strs;
    dfs_batchbuf batch;
    dfs_pctx pctx;
    void **states;             /* one per consumer */
    char *buf;
    size_t cap;
} worker;

typedef struct pool {
    dfs_run *run;
    dfs_consumer *const *consumers;
    size_t nconsumers;
    dfs_want_set want;
    prepared *prep;            /* one per input */
    uint32_t *prep_files;      /* share mode: the inputs to prepare (else all of them) */
    size_t nprep;
    task *tasks;
    size_t ntasks;
    /* Definitions found by the pre-scan (hash -> string): one block per input read in ranges,
     * one entry per chunk or piece of it, the block of input i at carry_at[i] (SIZE_MAX: none) */
    dfs_u64map (*carry)[3];
    size_t ncarry;
    size_t *carry_at;
    size_t *scan_items;        /* tasks to pre-scan */
    atomic_size_t next;        /* next item of the current phase */
    size_t nitems;
    int phase;                 /* 1 prepare, 2 read, 3 pre-scan */
    bool seams;                /* some input is read in pieces: worker 0 parses their seams last */
    atomic_uint_fast64_t bytes_done;  /* read (decompressed) */
    atomic_uint_fast64_t disk_done;   /* of the files, what the bytes read came from */
    atomic_uint_fast64_t files_done;
    atomic_int failed_alloc;
    atomic_int cancelled;      /* dfs_options.cancelled said so: tasks were left unread */
    /* Per input read in ranges: its ranges not yet read. The worker that reads the last one judges
     * the file's duplicates (model/dups.h), so that what the ranges keep for it is freed while
     * the other inputs are read rather than after all of them. */
    atomic_uint *ranges_left;
    /* Why plain files are read with read() rather than mapped (the address space is limited),
     * or NULL when they are mapped. Points into unmapped_why. */
    const char *unmapped;
    char unmapped_why[64];
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned running;
} pool;

/* A byte source: a plain file range, or a gzip reader. */
typedef struct source {
    int fd;
    dfs_gzreader *gz;
    uint64_t pos, end;         /* plain files: the byte range still to read */
} source;

/* prepare.c */
void dfs_prepare_file(pool *pl, size_t i);

/* task.c */
ssize_t dfs_source_read(source *s, char *out, size_t cap);
uint64_t dfs_line_start_at_or_after(int fd, uint64_t pos, uint64_t limit);
/* Sets a RANGE task's from and to (once: the pre-scan and the read share them). A byte is scanned
 * a bounded number of times whatever the chunking, also inside a line longer than many chunks. */
void dfs_task_range(task *t, int fd, uint64_t size);
bool dfs_worker_buffer(worker *w, size_t need);
/* A new stream: a whole file, or a piece of one (piece), whose duplicate check waits for the fold. */
void dfs_worker_begin_stream(worker *w, dfs_stream *st, bool piece);
/* Hands the worker's batch of events of `file` to the consumers (dfs_batch.in_pieces as given). */
void dfs_worker_deliver(worker *w, uint32_t file, bool in_pieces);
/* Whether a task is one of several that read its file (ranges, gzip segments, or a piece of a
 * file cut between ranks), as opposed to the whole file. */
bool dfs_task_in_pieces(const task *t);
void dfs_task_run(worker *w, task *t);

/* prescan.c */
void dfs_task_prescan(worker *w, task *t, dfs_u64map carry[3]);

/* share.c: gzipped inputs cut between ranks. gz_marks (prepare) looks up the member starts at
 * the multiples of the gzip segment size in this rank's pieces of input i; gz_plan makes a
 * piece's segment tasks, the same segments one process would read; gz_junction parses the line
 * cut by the end of segment t (its tail, and the head of the next segment read again here, since
 * another rank may read that one): NULL when there is none. */
bool dfs_share_cuts(const dfs_run *run, uint32_t file);
void dfs_share_gz_marks(pool *pl, prepared *pr, int fd, uint32_t i);
bool dfs_share_gz_plan(pool *pl, const dfs_piece *p, task_vec *tasks);
dfs_stream *dfs_share_gz_junction(pool *pl, worker *w, const task *t);
#endif
