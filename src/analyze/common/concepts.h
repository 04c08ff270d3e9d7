/* concepts.h - the unified training-loop model's concepts (spec: training-loop.md §4.1, §4.2) as
 * predicates of the predicate language (analyze/common/predicate.h), with per-source defaults.
 *
 * A concept says what an event IS for the step analysis: a step marker, data wait (D), device
 * compute (C_dev), host compute (C_host), transfer or collective (X), storage I/O (I), a runtime
 * call (Kineto), or an epoch / mode window. Every concept is one predicate per source; the source
 * follows from the file's dialect (dfs_concept_source_of), and the user may replace any
 * predicate for every source (dfs_concept_overrides, the `--step`, `--data-wait`... options).
 * A source that lacks a concept has no predicate for it (dfs_concepts_available is false): the
 * analyses report the concept as unavailable, never as zero.
 *
 * What the predicates see of an event (columns of predicate.h):
 *   cat        the category as written; for the Kineto source lower-cased, as the TensorBoard
 *              plugin does ("Kernel" and "kernel" are one type)
 *   func_name  the event name (alias `name`)
 *   proc_name  the process name of the event's pid in its file (smdebug: the event's phase);
 *              known only once the file has been read, null before
 *   file_name, host, pid, tid  as in the event (pid and tid as read, not smdebug's args.pid)
 *   io_cat, acc_pat  always null
 *   args.KEY   the event's arguments (the caller asks the reader for them: dfs_concepts_want);
 *              an event classified after its arguments are gone carries their tests' answers,
 *              taken while it was read (dfs_concepts_arg_truths, dfs_concepts_match_answered)
 * Lane restrictions (D and C_host on the loop lane) and the pairing of step markers are the step
 * analysis' business (analyze/steps/steps.h), not the predicates'.
 *
 * Use: one dfs_concepts per thread (the predicate sets keep memos); classification is memoised
 * by the columns' string ids, so a hot loop costs a hash lookup per event. No global state.
 *
 *     dfs_concepts *c = dfs_concepts_new(NULL, &err, NULL);        // defaults only
 *     dfs_concept_source src = dfs_concept_source_of(dfs_run_file(run, ev->file)->dialect);
 *     dfs_event_class k = dfs_concepts_classify(c, run, src, ev);   // colour of the event
 *     dfs_concepts_free(c);
 */
#ifndef DFS_CONCEPTS_H
#define DFS_CONCEPTS_H
#include <stdbool.h>
#include <stdint.h>

#include "analyze/common/predicate.h"
#include "dfscope.h"

typedef enum dfs_concept {
    DFS_CONCEPT_STEP,         /* a step span, or the marker that opens a step (paired sources) */
    DFS_CONCEPT_STEP_END,     /* the marker that closes a step opened by a STEP marker */
    DFS_CONCEPT_DATA_WAIT,    /* D: the loop waits for the next batch */
    DFS_CONCEPT_COMPUTE_DEV,  /* C_dev: device compute (kernels, communication kernels excluded) */
    DFS_CONCEPT_COMPUTE_HOST, /* C_host: host framework work (D is subtracted by the analysis) */
    DFS_CONCEPT_TRANSFER,     /* X: copies, memsets, collectives */
    DFS_CONCEPT_IO,           /* I: storage calls */
    DFS_CONCEPT_RUNTIME,      /* runtime API calls (Kineto cudaLaunchKernel...) */
    DFS_CONCEPT_EPOCH,        /* epoch and mode windows (train / eval / predict) enclosing steps */
    DFS_CONCEPT_COUNT
} dfs_concept;

#define DFS_CONCEPT_BIT(k) (1u << (unsigned)(k))

/* Where the defaults come from. DFTRACER covers both the dft_ai categories (fetch.iter /
 * fetch.block, compute, comm, device, pipeline) and the legacy DLIO names (loop.iter /
 * loop.yield, *.compute, DLIOBenchmark._train): they never collide. GENERIC has no defaults. */
typedef enum dfs_concept_source {
    DFS_CSRC_GENERIC = 0,
    DFS_CSRC_KINETO,   /* PyTorch profiler / Kineto, also HTA traces */
    DFS_CSRC_SMDEBUG,  /* SageMaker Debugger framework files */
    DFS_CSRC_COMPOSER, /* MosaicML Composer profiler traces */
    DFS_CSRC_DFTRACER, /* DFTracer AI categories and legacy DLIO */
    DFS_CSRC_COUNT
} dfs_concept_source;

/* The class of an event for pictures and summaries, one per event. When an event matches
 * several concepts the first of DATA_WAIT, IO, TRANSFER, COMPUTE wins (a Kineto data-loader span
 * is also an operator); steps, epochs and runtime calls are OTHER. */
typedef enum dfs_event_class {
    DFS_EVCLASS_OTHER = 0,
    DFS_EVCLASS_COMPUTE,   /* C_dev or C_host */
    DFS_EVCLASS_DATA_WAIT, /* D */
    DFS_EVCLASS_IO,        /* I */
    DFS_EVCLASS_TRANSFER,  /* X */
    DFS_EVCLASS_COUNT
} dfs_event_class;

/* "step", "step_end", "data_wait", "compute_dev", "compute_host", "transfer", "io", "runtime",
 * "epoch"; NULL out of range. */
const char *dfs_concept_name(dfs_concept k);
/* The reverse; also accepts '-' for '_' ("data-wait"). false when unknown. */
bool dfs_concept_from_name(const char *s, dfs_concept *out);
/* "generic", "kineto", "smdebug", "composer", "dftracer". */
const char *dfs_concept_source_name(dfs_concept_source s);
/* "other", "compute", "data_wait", "io", "transfer". */
const char *dfs_event_class_name(dfs_event_class c);

/* The source whose defaults apply to a file of this dialect (GENERIC for the others). */
dfs_concept_source dfs_concept_source_of(dfs_dialect d);
/* The default predicate text of concept k for source s; NULL when the source lacks it. */
const char *dfs_concept_default(dfs_concept_source s, dfs_concept k);

/* User overrides: text[k] NULL keeps every source's default for k; "off" makes k unavailable
 * everywhere; any other text is a predicate that replaces k's default for every source. */
typedef struct dfs_concept_overrides {
    const char *text[DFS_CONCEPT_COUNT];
} dfs_concept_overrides;

typedef struct dfs_concepts dfs_concepts;

/* ov may be NULL (defaults only). NULL on error: *err says why (err->index is unused) and *bad
 * (may be NULL) names the concept whose predicate failed; out of memory gives column 0 and the
 * message "out of memory". */
dfs_concepts *dfs_concepts_new(const dfs_concept_overrides *ov, dfs_pred_error *err, dfs_concept *bad);
void dfs_concepts_free(dfs_concepts *c);

/* Whether source s has a predicate for k (after the overrides). */
bool dfs_concepts_available(const dfs_concepts *c, dfs_concept_source s, dfs_concept k);
/* The predicate text in force for (s, k); NULL when unavailable. */
const char *dfs_concepts_text(const dfs_concepts *c, dfs_concept_source s, dfs_concept k);
/* Whether some predicate of source s reads proc_name (then classify after reading). */
bool dfs_concepts_need_proc_name(const dfs_concepts *c, dfs_concept_source s);

/* The predicate row of an event: the columns `cols` (DFS_PRED_COL_BIT) of cat, func_name (its
 * name), file_name, host and proc_name (the process name of its pid in its file), each text's
 * dfs_str in ids[column]; pid and tid always. The row is initialised here. */
void dfs_concepts_event_row(dfs_pred_row *row, uint32_t *ids, const dfs_run *run, const dfs_event *ev,
                            unsigned cols);

/* Does some predicate read event arguments (args.KEY)? */
bool dfs_concepts_uses_args(const dfs_concepts *c);
/* Asks the reader for the arguments the predicates read: w's extra list becomes `extra` (the
 * caller's other named keys, at most 4, or NULL) followed by those keys, kept in c. */
void dfs_concepts_want(dfs_concepts *c, dfs_want *w, const char *const *extra);
/* The answers of the predicates' argument tests on ev, while its arguments are at hand, for a
 * later dfs_concepts_match_answered by this or any dfs_concepts of the same overrides; 0 when
 * no predicate reads arguments. */
uint64_t dfs_concepts_arg_truths(const dfs_concepts *c, const dfs_run *run, const dfs_event *ev);

/* The concepts the event belongs to under source s, as DFS_CONCEPT_BIT bits, its arguments read
 * from ev. Metadata, counter, flow and async records match nothing. */
uint32_t dfs_concepts_match(dfs_concepts *c, const dfs_run *run, dfs_concept_source s,
                            const dfs_event *ev);
/* The same for a copy of an event without its arguments, with their tests answered earlier. */
uint32_t dfs_concepts_match_answered(dfs_concepts *c, const dfs_run *run, dfs_concept_source s,
                                     const dfs_event *ev, uint64_t arg_truths);
/* The event's class under source s (see dfs_event_class for the priority). */
dfs_event_class dfs_concepts_classify(dfs_concepts *c, const dfs_run *run, dfs_concept_source s,
                                      const dfs_event *ev);
dfs_event_class dfs_concepts_classify_answered(dfs_concepts *c, const dfs_run *run, dfs_concept_source s,
                                               const dfs_event *ev, uint64_t arg_truths);
/* Has a predicate's regular expression reached its bound (predicate.h)? Then the answers are void,
 * and, when buf is empty, buf gets the user's message naming the concept and its predicate. */
bool dfs_concepts_failed(const dfs_concepts *c, char *buf, size_t n);
/* The class of a dfs_concepts_match answer. */
dfs_event_class dfs_event_class_of(uint32_t concept_bits);
#endif
