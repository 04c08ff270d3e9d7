/*
 * dfscope.h - the public API of libdfscope.
 *
 * A run (dfs_run) reads a set of inputs (files, directories, globs) of any supported trace format
 * and streams the events to consumers. Nothing requires holding a whole trace in memory: events
 * arrive in batches, each batch holding consecutive records of one input stream, and each worker
 * thread has its own consumer state that is merged at the end (map/reduce).
 *
 * Invariants worth knowing:
 *  - Times are exact integer nanoseconds, parsed from decimal text without going through double.
 *    Event times are on the clock of their file; dfs_event_abs_ns() applies the file's clock
 *    (Kineto baseTimeNanoseconds, smdebug start time, DFTracer v2 time_metric), which may only be
 *    known when the file has been read to its end.
 *  - Strings are interned: a dfs_str is an index into the run's string table. 0 is "".
 *    String ids depend on the order threads met the strings, so never sort or hash by id when
 *    the output must be identical for any -j: compare contents (dfs_str_cmp).
 *  - An event is identified by (file, offset): the byte offset of its record in the decompressed
 *    stream. DFTracer ids are not unique (forked children reuse the parent's counter).
 */
#ifndef DFSCOPE_H
#define DFSCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DFS_VERSION_STRING "0.1.0"

/* Process exit codes of the dfscope CLI (docs/CLI.md). */
enum dfs_exit {
    DFS_EXIT_OK = 0,        /* everything read, no damage */
    DFS_EXIT_DAMAGED = 1,   /* analysis finished; damaged input was skipped and reported */
    DFS_EXIT_USAGE = 2,     /* bad command line, or an input that could not be opened or read */
    DFS_EXIT_STRICT = 3,    /* --strict and the input has damage (results are still printed) */
    DFS_EXIT_OUTPUT = 4,    /* an output could not be written, or out of memory */
};

/* Library status codes. */
typedef enum dfs_status {
    DFS_OK = 0,
    DFS_ERR_USAGE,   /* invalid argument */
    DFS_ERR_INPUT,   /* an input path does not exist or cannot be read */
    DFS_ERR_NOMEM,
    DFS_ERR_IO,      /* write error */
} dfs_status;

typedef uint32_t dfs_str; /* interned string id; 0 is the empty string */

/* ---------------------------------------------------------------------------------------------
 * Event model
 * ------------------------------------------------------------------------------------------- */

typedef enum dfs_phase {
    DFS_PHASE_COMPLETE,   /* X, v2 1 */
    DFS_PHASE_BEGIN,      /* B */
    DFS_PHASE_END,        /* E */
    DFS_PHASE_INSTANT,    /* i I R */
    DFS_PHASE_COUNTER,    /* C, v2 2 */
    DFS_PHASE_AGGREGATED, /* A, v2 3 (DFTracer) */
    DFS_PHASE_METADATA,   /* M, v2 4 */
    DFS_PHASE_FLOW,       /* s t f */
    DFS_PHASE_ASYNC,      /* b n e S T p F */
    DFS_PHASE_OTHER,      /* anything else, or no ph */
    DFS_PHASE_COUNT
} dfs_phase;

/* The JSON names of the phases, as used in `stats --json` (events_by_phase). */
const char *dfs_phase_name(dfs_phase phase);

typedef enum dfs_vtype {
    DFS_V_NONE = 0, /* absent */
    DFS_V_NULL,
    DFS_V_BOOL,     /* i = 0 or 1 */
    DFS_V_INT,      /* i: fits int64 */
    DFS_V_UINT,     /* u: above INT64_MAX (u64 hashes) */
    DFS_V_FLOAT,    /* f (also NaN / Infinity tokens) */
    DFS_V_STR,      /* s */
    DFS_V_LIST,     /* items[0..len): keys are 0 */
    DFS_V_MAP,      /* items[0..len) */
} dfs_vtype;

#define DFS_VF_FROM_STRING 0x01u /* a number written as a JSON string ("3276800") */
#define DFS_VF_SATURATED   0x02u /* integer beyond u64/i64 range, clamped */

typedef struct dfs_arg dfs_arg;

typedef struct dfs_value {
    uint8_t type;  /* dfs_vtype */
    uint8_t flags; /* DFS_VF_* */
    uint32_t len;  /* LIST/MAP: number of items */
    union {
        int64_t i;
        uint64_t u;
        double f;
        dfs_str s;
        const dfs_arg *items;
    } as;
} dfs_value;

struct dfs_arg {
    dfs_str key;
    dfs_value val;
};

/* Well-known argument keys. Their dfs_str ids are fixed (DFS_KEY_x + 1), so a consumer can ask
 * for them by bit and find them without a string lookup. Keep in sync with dfs_key_names[]. */
typedef enum dfs_key {
    DFS_KEY_RET, DFS_KEY_SIZE, DFS_KEY_SIZE_SUM, DFS_KEY_OFFSET, DFS_KEY_COUNT, DFS_KEY_FHASH,
    DFS_KEY_HHASH, DFS_KEY_EPOCH, DFS_KEY_STEP, DFS_KEY_CORRELATION, DFS_KEY_STREAM, DFS_KEY_FNAME,
    DFS_KEY_HOSTNAME, DFS_KEY_LEVEL, DFS_KEY_P_IDX, DFS_KEY_DFT_CNT, DFS_KEY_DUR_SUM, DFS_KEY_RET_SUM,
    DFS_KEY_IMAGE_IDX, DFS_KEY_IMAGE_SIZE, DFS_KEY_STEP_NUM, DFS_KEY_EXTERNAL_ID, DFS_KEY_KEY,
    DFS_KEY_DEPENDENCIES, DFS_KEY_DEPENDENTS, DFS_KEY_NAME, DFS_KEY_VALUE, DFS_KEY_SORT_INDEX,
    DFS_KEY_CMD_HASH, DFS_KEY_EXEC_HASH, DFS_KEY_CWD, DFS_KEY_PID, DFS_KEY_THREAD_ID,
    DFS_KEY_BATCH, DFS_KEY_FD, DFS_KEY_STATE, DFS_KEY_TYPE, DFS_KEY_SHAPE, DFS_KEY_DTYPE,
    DFS_KEY__COUNT
} dfs_key;
#define DFS_KEYBIT(k) (UINT64_C(1) << (k))
#define DFS_KEY_STR(k) ((dfs_str)((k) + 1))

#define DFS_EF_HAS_TS      0x0001u /* ts is valid */
#define DFS_EF_HAS_DUR     0x0002u /* dur is valid (it may still be negative or absurd) */
#define DFS_EF_BAD_TIME    0x0004u /* time overflow, negative or absurd dur: keep out of time analyses */
#define DFS_EF_PID_STR     0x0008u /* pid was a non-numeric string; pid is a stable synthetic id */
#define DFS_EF_TID_STR     0x0010u
#define DFS_EF_HAS_ID      0x0020u
#define DFS_EF_HAS_PID     0x0040u
#define DFS_EF_HAS_TID     0x0080u

typedef struct dfs_event {
    int64_t ts;        /* ns on the file's clock (see dfs_event_abs_ns) */
    int64_t dur;       /* ns */
    int64_t pid;       /* numeric pid, or a synthetic negative id for string pids (DFS_EF_PID_STR) */
    int64_t tid;
    uint64_t id;       /* record id (DFTracer id, Chrome id when numeric) */
    uint64_t offset;   /* byte offset of the record in the decompressed stream of its file */
    uint64_t fhash;    /* DFTracer hashes normalised to u64 (0 = none) */
    uint64_t hhash;
    dfs_str name;
    dfs_str cat;
    dfs_str pid_str;   /* the string form when DFS_EF_PID_STR, else 0 */
    dfs_str tid_str;
    dfs_str fname;     /* resolved file name (FH or 2023 args.fname); 0 = none or unresolved */
    dfs_str host;      /* resolved host name (HH or 2023 args.hostname) */
    uint32_t file;     /* index of the input file (dfs_run_file) */
    uint32_t flags;    /* DFS_EF_* */
    uint32_t nargs;    /* only the args the consumers asked for */
    uint16_t type;     /* DFTracer v2 instrumentation type (0 = unknown) */
    uint8_t phase;     /* dfs_phase */
    char ph;           /* phase as written: the letter, '1'..'4' for v2 integers, '?' if absent */
    const dfs_arg *args;
} dfs_event;

/* The arg with the given interned key, or NULL. Linear in nargs (which is small: only wanted keys). */
const dfs_value *dfs_event_arg(const dfs_event *ev, dfs_str key);
/* Integer view of a value (numbers, numeric strings already parsed); false if not numeric. */
bool dfs_value_int(const dfs_value *v, int64_t *out);

/* The end of a span [start, start + dur) in ns; false when it does not fit int64. Every end time
 * is computed here, on the file's clock or after it: the reader flags an event whose end does not
 * fit as a time_overflow (DFS_EF_BAD_TIME), and an analysis whose clock pushes an end out of range
 * leaves that event out as it leaves out every event with bad times. Inline: it runs per event. */
static inline bool dfs_span_end(int64_t start, int64_t dur, int64_t *end)
{
    return !__builtin_add_overflow(start, dur, end);
}

/* ---------------------------------------------------------------------------------------------
 * Inputs
 * ------------------------------------------------------------------------------------------- */

typedef enum dfs_format {
    DFS_FMT_UNKNOWN = 0,
    DFS_FMT_NOT_A_TRACE,
    DFS_FMT_JSON_LINES,  /* DFTracer v1/v2/2023 lines, smdebug system metrics */
    DFS_FMT_JSON_ARRAY,  /* [ {..}, ... ] */
    DFS_FMT_JSON_OBJECT, /* {"traceEvents": [...], ...} */
    DFS_FMT_DASF,        /* length-prefixed msgpack */
    DFS_FMT_DASF_TEXT,   /* older DASF "trace: {json}" lines */
} dfs_format;

typedef enum dfs_dialect {
    DFS_DIALECT_UNKNOWN = 0,
    DFS_DIALECT_DFTRACER_2023,
    DFS_DIALECT_DFTRACER_V1,
    DFS_DIALECT_DFTRACER_V2,
    DFS_DIALECT_SMDEBUG_SYSTEM,
    DFS_DIALECT_SMDEBUG_FRAMEWORK,
    DFS_DIALECT_HOROVOD,
    DFS_DIALECT_COMPOSER,
    DFS_DIALECT_KINETO,
    DFS_DIALECT_TF_PROFILER,
    DFS_DIALECT_CHROME,
    DFS_DIALECT_DASF,
    DFS_DIALECT_COUNT
} dfs_dialect;

const char *dfs_format_name(dfs_format f);
const char *dfs_dialect_name(dfs_dialect d);

typedef struct dfs_file_info {
    const char *path;
    uint64_t size;            /* bytes on disk */
    uint64_t bytes;           /* decompressed bytes read */
    dfs_format format;
    dfs_dialect dialect;
    bool gzip;
    uint32_t gzip_members;
    uint64_t records;         /* records counted per spec section 12 (events incl. metadata) */
    uint64_t bad_records;     /* unparsable lines or records */
    uint64_t recovered;       /* records recovered from glued lines (not in `records`) */
    uint64_t problems;        /* damage found in this file */
    uint64_t phase_counts[DFS_PHASE_COUNT];
    char phase_letters[128];  /* counts by phase as written, e.g. "M:31 X:2261" (see stats) */
    int64_t clock_offset_ns;  /* added to event ts to get absolute ns */
    int32_t clock_scale_num;  /* v2 time_metric: ts_abs = ts * num / den + offset */
    int32_t clock_scale_den;
    bool relative_time;       /* times are not on an absolute clock */
    bool incomplete;          /* crashed / truncated file */
    bool unreadable;          /* could not be opened or read */
    const char *error;        /* why, when unreadable */
    /* The first start and the last end of the file's timed events (metadata and bad times left
     * out), on its clock (dfs_file_abs_ns: absolute ns unless relative_time); have_span false
     * when no event has a time. What tells the inputs of different jobs apart (docs/CLI.md). */
    bool have_span;
    int64_t span_start_ns, span_end_ns;
} dfs_file_info;

/* ---------------------------------------------------------------------------------------------
 * Diagnostics: every problem kind of spec/formats.md section 11
 * ------------------------------------------------------------------------------------------- */

typedef enum dfs_problem {
#define DFS_PROBLEM(id, code, cls) DFS_PROB_##id,
#include "dfscope_problems.def"
#undef DFS_PROBLEM
    DFS_PROB__COUNT
} dfs_problem;

const char *dfs_problem_code(dfs_problem p);
/* 'V' for a legal variant (reported, never an error), 'D' for damage (fails --strict). */
char dfs_problem_class(dfs_problem p);

typedef struct dfs_example {
    uint32_t file;     /* index in the run's file table */
    uint64_t line;     /* 1-based line, 0 if not line oriented */
    uint64_t offset;   /* byte offset (decompressed stream, or compressed for gzip framing) */
    char detail[96];   /* short human text */
} dfs_example;

/* ---------------------------------------------------------------------------------------------
 * Runs and consumers
 * ------------------------------------------------------------------------------------------- */

typedef struct dfs_run dfs_run;

typedef struct dfs_options {
    int jobs;                 /* worker threads; <= 0: all cores */
    bool strict;              /* damage makes dfs_run_read's verdict DFS_EXIT_STRICT */
    unsigned max_examples;    /* examples kept per problem kind (default 5) */
    uint64_t chunk_bytes;     /* split unit for large uncompressed files; 0 (default): automatic,
                                 about 4 pieces per worker, 32 MiB to 1 GiB */
    uint64_t gzip_segment_bytes; /* split unit for large multi-member gzip files (default 64 MiB) */
    uint64_t max_record;      /* longest record accepted (default 64 MiB) */
    bool dedup;               /* drop byte-identical neighbouring duplicate records */
    uint64_t preview_bytes;   /* 0: read everything. Else read only about the first preview_bytes
                                 of each input (decompressed), ending at a line start: a cheap
                                 look at the heads (damage at the cut is counted as usual) */
    /* Called about four times a second while reading and once at the end: bytes_done counts the
       bytes read (decompressed), disk_done the bytes of the files they came from, of disk_total. */
    void (*progress)(void *ctx, uint64_t files_done, uint64_t files_total, uint64_t bytes_done,
                     uint64_t disk_done, uint64_t disk_total);
    void *progress_ctx;
    /* Optional: asked before each piece of reading (a file, a chunk or a gzip segment) is read,
       from the worker threads. Once it returns true the pieces left are not read: the run ends
       soon, its results are incomplete, and dfs_run_read returns DFS_EXIT_OUTPUT. What an
       interrupted caller (Ctrl-C in a notebook) uses to stop a long read without killing it. */
    bool (*cancelled)(void *ctx);
    void *cancel_ctx;
} dfs_options;

void dfs_options_init(dfs_options *o);

/* What a consumer needs parsed into dfs_event.args. The hot path parses no more than this. */
typedef struct dfs_want {
    uint64_t keys;              /* DFS_KEYBIT(DFS_KEY_x) | ... */
    const char *const *extra;   /* NULL-terminated list of other arg names, or NULL */
    bool all_args;              /* keep every arg */
} dfs_want;

typedef struct dfs_batch {
    const dfs_event *events;
    size_t count;
    uint32_t file;              /* all events of a batch come from one file, in file order */
    /* The file is read in pieces (byte ranges or gzip segments, and the lines across their cuts
     * last), by one worker or several, or by several MPI ranks: the events of its other pieces
     * reach the consumers in no set order. false when it is read whole, from start to end. */
    bool in_pieces;
} dfs_batch;

typedef struct dfs_consumer {
    void *user;
    dfs_want want;
    /* Called once per worker thread; returns that worker's private state. */
    void *(*worker_begin)(void *user);
    /* Called from a worker with a batch of events. The batch memory is valid during the call only. */
    void (*on_batch)(void *worker_state, const dfs_run *run, const dfs_batch *batch);
    /* Optional: called from a worker's own thread once it has no more input to read, while the
     * others may still be reading: the place for finishing work private to worker_state (sorting,
     * flushing buffers), so that it runs side by side rather than in worker_end. A worker that
     * never ran (its thread could not start) gets no call: worker_end must not depend on it. */
    void (*worker_done)(void *worker_state, const dfs_run *run);
    /* Called once per worker after reading, serially: merge worker_state into user and free it. */
    void (*worker_end)(void *user, const dfs_run *run, void *worker_state);
} dfs_consumer;

dfs_run *dfs_run_new(const dfs_options *opt);
void dfs_run_free(dfs_run *run);

/* Adds a file, a directory (read recursively) or a glob pattern. Returns DFS_ERR_INPUT when the
 * path matches nothing; the reason is in dfs_run_error(). */
dfs_status dfs_run_add_path(dfs_run *run, const char *path);
const char *dfs_run_error(const dfs_run *run);

/* Reads every input once, feeding all consumers. Returns the verdict as a dfs_exit code. */
int dfs_run_read(dfs_run *run, dfs_consumer *const *consumers, size_t n_consumers);

size_t dfs_run_file_count(const dfs_run *run);
const dfs_file_info *dfs_run_file(const dfs_run *run, size_t index);
/* True when path names one of the run's input files (by device and inode, symlinks followed),
 * whether read or not: what no output may overwrite. */
bool dfs_run_holds_file(const dfs_run *run, const char *path);
/* The worker threads the run reads with (dfs_options.jobs, or the cores), for analyses that
 * spread their final work the same way. */
unsigned dfs_run_jobs(const dfs_run *run);

/* Strings */
const char *dfs_str_get(const dfs_run *run, dfs_str s, size_t *len);
int dfs_str_cmp(const dfs_run *run, dfs_str a, dfs_str b);
dfs_str dfs_str_find(const dfs_run *run, const char *s, size_t len); /* 0 if never seen */

/* Problems after dfs_run_read. Examples are the first ones by (file, offset) for any -j. */
uint64_t dfs_run_problem_count(const dfs_run *run, dfs_problem p);
size_t dfs_run_problem_examples(const dfs_run *run, dfs_problem p, const dfs_example **out);
uint64_t dfs_run_damage_total(const dfs_run *run);

/* Absolute time of an event time (ns), using its file's clock. */
int64_t dfs_file_abs_ns(const dfs_file_info *f, int64_t ts);

/* Late resolution of a DFTracer hash that was not resolved while streaming (its definition was
 * in an earlier chunk or in another file of the run): the nearest definition preceding `offset`
 * in `file`, else the run-wide definition. Returns 0 when the hash is not defined anywhere. */
typedef enum dfs_hash_kind { DFS_HASH_FILE, DFS_HASH_HOST, DFS_HASH_STRING } dfs_hash_kind;
dfs_str dfs_run_resolve_hash(const dfs_run *run, dfs_hash_kind kind, uint32_t file,
                             uint64_t offset, uint64_t hash);

/* A top-level key of an object-form file (e.g. "distributedInfo"), as raw JSON text; 0 if absent. */
dfs_str dfs_run_file_meta(const dfs_run *run, uint32_t file, const char *key);

/* Process and thread names seen in metadata records (0 if none). */
dfs_str dfs_run_process_name(const dfs_run *run, uint32_t file, int64_t pid);
dfs_str dfs_run_thread_name(const dfs_run *run, uint32_t file, int64_t pid, int64_t tid);

#ifdef __cplusplus
}
#endif
#endif
