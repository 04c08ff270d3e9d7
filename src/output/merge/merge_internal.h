/* merge_internal.h - what the merge modules share:
 *   merge.c           the consumer (encoding, lanes), the plan (clocks, pids, markers), writing;
 *   merge_spill.c     sorted runs in memory and in temporary files, and their k-way merge;
 *   merge_composer.c  Composer's byte-compatible merge, and Python's number formatting. */
#ifndef DFS_MERGE_INTERNAL_H
#define DFS_MERGE_INTERNAL_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "output/merge/merge.h"
#include "util/arena.h"
#include "util/bytebuf.h"
#include "util/keymap.h"
#include "util/vec.h"

/* ---- encoded records ---------------------------------------------------------------------------
 * A record is a header, then a body that only merge.c reads. Records are read with memcpy: in a
 * read buffer they may sit at any address. Within one input file the sort order (metadata by
 * offset, then events by time and offset) is the order of the global key, whatever the file's
 * clock turns out to be, since a clock only scales and shifts. */

enum { MCLS_META = 1, MCLS_EVENT = 3 };

typedef struct mhdr {
    uint32_t size;    /* the whole record, header included (a multiple of 8) */
    uint32_t file;
    int64_t ts;       /* sort time on the file's own clock; INT64_MIN when the event has none */
    uint64_t offset;  /* of the record in its file: the tie-break, and the metadata order */
    uint8_t cls;      /* MCLS_* */
    uint8_t pad[7];
} mhdr;

/* The body of an event record: the dfs_event without its pointers, then its args tree in
 * preorder, one mflat per value (containers are followed by their items). */
typedef struct mbody {
    int64_t ts, dur, pid, tid;
    uint64_t id, fhash, hhash;
    dfs_str name, cat, pid_str, tid_str, fname, host;
    uint32_t flags, nflat, nargs;
    uint16_t type;
    uint8_t phase;
    char ph;
} mbody;

typedef struct mflat {
    dfs_str key;
    uint8_t type, flags;
    uint16_t pad;
    uint32_t len;
    uint32_t pad2;
    uint64_t bits;    /* the scalar's union member */
} mflat;

/* Rebuilds the event of a record; its args live in the arena. false on a damaged record. */
bool mdecode(const unsigned char *rec, size_t size, dfs_event *ev, dfs_arena *a);

/* The global order: metadata by (file, offset), then events by (time, file, offset). */
typedef struct mkey {
    uint8_t cls;
    int64_t t;        /* absolute ns for events, 0 for metadata */
    uint32_t file;
    uint64_t offset;
} mkey;

/* The absolute time of a file time; (void *ctx) is the plan of merge.c. */
typedef int64_t (*mabs_fn)(const void *ctx, uint32_t file, int64_t ts);

/* ---- one reading thread's buffer --------------------------------------------------------------- */

typedef struct mentry {
    int64_t ts;
    uint64_t offset;
    uint32_t file;
    uint8_t cls;
    const unsigned char *rec;
} mentry;

typedef struct msrc msrc; /* a temporary file */

typedef struct mbuf {
    dfs_arena arena;
    uint64_t bytes;           /* encoded bytes held (the budget is charged with these) */
    DFS_VEC(mentry) idx;
    msrc *spill;              /* this thread's temporary file, once it spilled */
} mbuf;

/* ---- the store of sorted runs ------------------------------------------------------------------- */

typedef struct mseg {
    msrc *src;                /* NULL: in memory */
    uint64_t off, len;        /* in the temporary file */
    const mentry *recs;       /* in memory: sorted entries */
    size_t nrecs;
} mseg;

typedef struct mkeep {        /* an in-memory buffer handed over by a thread */
    dfs_arena arena;
    mentry *idx;
} mkeep;

typedef struct mstore {
    uint64_t memory;
    char *tmpdir;
    pthread_mutex_t lock;     /* threads spill concurrently */
    DFS_VEC(mseg) segs;
    DFS_VEC(mkeep) kept;
    DFS_VEC(msrc *) srcs;     /* every temporary file, to close and free at the end */
    atomic_bool spilled;
    uint64_t runs_spilled, bytes_spilled;
    unsigned passes;
    int err;                  /* first errno of a temporary file */
    char errmsg[256];
} mstore;

bool mstore_init(mstore *s, uint64_t memory, const char *tmpdir);
void mstore_free(mstore *s);

void mbuf_init(mbuf *b, size_t block);
void mbuf_free(mbuf *b);
/* Room for a record of `size` bytes (header included) whose header is h: the caller writes the
 * body after the header. NULL when out of memory. */
unsigned char *mbuf_add(mbuf *b, const mhdr *h);
/* Sorts the buffer and writes it as one run to the thread's temporary file. false on error. */
bool mstore_spill(mstore *s, mbuf *b);
/* At the end of reading: the buffer becomes in-memory runs, or is spilled when some thread
 * spilled (so that the merge only buffers reads). false on error. */
bool mstore_take(mstore *s, mbuf *b);
/* Calls emit for every record in the global order; stops at the first non-zero return, which
 * it returns (or -1 on a temporary-file error, see s->errmsg). */
int mstore_merge(mstore *s, mabs_fn abs_ts, const void *ctx,
                 int (*emit)(void *ectx, const unsigned char *rec, size_t size), void *ectx);

/* ---- Python's json.dumps (merge_python.c) ------------------------------------------------------ */


typedef struct pymember {
    const char *k, *v, *vend;  /* the key token and the value's text */
    size_t ck, ckn;            /* the key's canonical text in the keys buffer */
    size_t use;                /* the member whose value is written here; SIZE_MAX: a repeat */
} pymember;

typedef DFS_VEC(pymember) pymembers;

/* Replacements of top-level values (the record itself). */
typedef struct pyover {
    int64_t ts_diff;           /* added to "ts" */
    const char *pid;           /* replacement text of "pid", or NULL */
} pyover;

/* Each writes the value at s as json.dumps would and returns its end, or NULL when the text is
 * not JSON (or nests deeper than Python could). */
const char *mpy_value(dfs_bytebuf *b, const char *s, const char *end, unsigned depth);
const char *mpy_object(dfs_bytebuf *b, const char *s, const char *end, unsigned depth, const pyover *ov);
/* The members of the object at s (s[0] == '{'): their canonical keys (quoted, escaped) go to
 * keys. Returns the end of the object, or NULL. */
const char *mpy_members(const char *s, const char *end, pymembers *ms, dfs_bytebuf *keys);
/* Is the member's key lit (plain ASCII)? */
bool mpy_key_is(const dfs_bytebuf *keys, const pymember *m, const char *lit);

/* ---- numbers as Python prints them ------------------------------------------------------------ */

/* repr(float) of Python 3, NaN and infinities as json.dumps writes them; buf of at least
 * DFS_PY_REPR_MAX (32) bytes. */
void mpy_float(double v, char *buf);
/* The shortest text that reads back as v, for JSON output (not NaN or infinite). */
void mjson_float(double v, char *buf);

/* ---- the merge object ---------------------------------------------------------------------------- */

typedef struct mlane_key {
    uint32_t file;
    uint32_t has_pid;
    int64_t pid;
} mlane_key;

typedef struct mlane {
    mlane_key key;
    uint64_t events;
    dfs_str pid_str;
    bool is_str, has_pname;
    bool has_rank, has_clock, has_mul;
    uint64_t rank_off, clock_off, mul_off;
    int64_t rank, clock_us;
    int64_t mul_tid;
    dfs_str mul_tid_str;
    uint32_t mul_tflags;       /* DFS_EF_HAS_TID | DFS_EF_TID_STR of that event */
    bool rank_is_int;          /* args.value was a JSON integer (Composer's compatible mode) */
    uint32_t out;              /* after planning: index of its output lane */
} mlane;

typedef struct mthread_key {
    uint32_t file;
    uint32_t flags;            /* bit 0 has pid */
    int64_t pid;
    int64_t tid;
} mthread_key;

typedef struct mthread {
    mthread_key key;
    dfs_str tid_str;
    bool tid_is_str;
    uint64_t first_off;
} mthread;

typedef struct mfile_ids {    /* flow and async ids of one file */
    uint64_t lo, hi;
    bool have;
} mfile_ids;

/* Lanes, threads and id ranges seen by one thread, or all of them after reading. */
typedef struct mseen {
    dfs_keymap lane_map;       /* mlane_key -> index in lanes */
    DFS_VEC(mlane) lanes;
    dfs_keymap thread_map;     /* mthread_key -> index in threads */
    DFS_VEC(mthread) threads;
    DFS_VEC(mfile_ids) ids;    /* by file */
    DFS_VEC(uint64_t) dropped_noph; /* by file: records left out for lack of a phase */
} mseen;

struct dfs_merge {
    dfs_merge_options opt;
    dfs_consumer consumer;
    mstore store;
    mseen seen;                /* every thread's, merged at worker_end */
    unsigned nworkers;         /* worker_begin calls */
    atomic_int failed;         /* out of memory or a spill error while reading */
    atomic_int squeezed;       /* a thread spilled early because memory ran short */
    uint64_t limit;            /* the address-space limit the default budget was fitted to (0: none) */
};

/* merge.c: keys and predicates shared with the writer. */
mlane_key mlane_key_of(const dfs_event *ev);
mthread_key mthread_key_of(const dfs_event *ev);
bool mstr_is(const dfs_run *run, dfs_str s, const char *lit);
/* Composer's merge drops records without pid or tid, and those whose tid names the PyTorch
 * profiler (its own "PyTorch Profiler (N)" spans). */
bool mcomposer_junk(const dfs_run *run, const dfs_event *ev);

/* ---- the plan of the default mode (merge_plan.c) -------------------------------------------------- */

enum { MARK_SORT_LAST, MARK_SORT_FIRST, MARK_PROCESS_NAME }; /* kinds of mmark */

/* An inserted metadata record. */
typedef struct mmark {
    uint8_t kind;
    uint32_t out;              /* output lane */
    uint32_t tflags;           /* DFS_EF_HAS_TID | DFS_EF_TID_STR */
    int64_t tid;
    dfs_str tid_str;
    uint32_t file;             /* order: where the thread first appears */
    uint64_t offset;
} mmark;

typedef struct mfileplan {
    const dfs_file_info *fi;
    const char *base;          /* the file name without its directory */
    bool composer;
    uint32_t ns;               /* pid namespace (see docs/MERGE.md) */
    int64_t shift_ns;          /* Composer clock sync */
    uint64_t id_shift;         /* added to flow and async ids */
    bool forced;               /* a Composer rank file: every pid := its rank, as Composer does */
    int64_t rank;
} mfileplan;

typedef struct moutlane {
    int64_t pid;
    dfs_str pid_str;
    bool has_pid, is_str;
    bool remapped;
    bool has_pname;
    uint32_t file;             /* the first file of the lane */
    int64_t orig_pid;          /* as read (a string pid: orig_is_str, and pid_str) */
    bool orig_is_str;
} moutlane;

/* The well-known strings the writer compares args with (0 when the inputs never had them). */
typedef struct mstrs {
    dfs_str value, s, bp, bind_id, flow_in, flow_out, fname, hostname, process_name;
} mstrs;

typedef struct mplan {
    const dfs_run *run;
    dfs_merge *m;
    mfileplan *files;
    size_t nfiles;
    DFS_VEC(moutlane) out;
    DFS_VEC(mmark) pre, post;  /* written before and after the inputs' metadata */
    mstrs str;
} mplan;

/* Makes the plan (warnings go to rep, whose files must exist); false when out of memory. */
bool mplan_make(mplan *p, dfs_merge *m, const dfs_run *run, dfs_merge_report *rep);
void mplan_free(mplan *p);
/* The absolute time of a file time (an mabs_fn: ctx is the plan), and a duration's length. */
int64_t mplan_abs(const void *ctx, uint32_t file, int64_t ts);
int64_t mplan_dur(const mplan *p, uint32_t file, int64_t dur);
/* The output lane of an event (NULL when unknown). */
const moutlane *mplan_lane(const mplan *p, const dfs_event *ev);
/* Events read, lanes and renumbered lanes, per file and in all. */
void mplan_counts(const mplan *p, dfs_merge_report *rep);

/* merge_write.c: the default mode. */
dfs_status mwrite_default(dfs_merge *m, const dfs_run *run, FILE *out, dfs_merge_report *rep,
                          char *err, size_t errlen);

/* merge_composer.c: the compatible mode. */
dfs_status dfs_merge_write_composer(dfs_merge *m, const dfs_run *run, FILE *out,
                                    dfs_merge_report *rep, char *err, size_t errlen);
/* merge.c: a report with one entry per file, and a warning added to it. */
bool mreport_init(dfs_merge_report *rep, const dfs_run *run, const char *mode);
void mreport_warn(dfs_merge_report *rep, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
