/* postread.h - DFAnalyzer's post-read rules (layered-analysis.md §3) as a classifier.
 *
 * An event's fate depends only on (raw cat, name, file name, whether it carries size_sum): whether
 * it is dropped (ignored file or function), its io_cat, its lower-cased suffixed category and which
 * layer and derived-metric predicates hold. The classifier memoises that per distinct key, so the
 * hot loop costs one hash lookup per event and no string or regular-expression work after the
 * first sighting of a key. Predicates that read other columns (file_name, proc_name, host, pid,
 * tid) or event arguments (args.KEY) are evaluated per event through the predicate set's own memo
 * (dfs_pred_set_eval). Arguments are answered while the event is read (dfs_postread_arg_truths),
 * into a word the caller keeps with its copy of the event, since an event may be classified
 * after its arguments are gone (waiting for its file name, or on another MPI rank); when the
 * rules read no other per-event column, a memo keyed with that word answers the event whole.
 *
 * One classifier per worker thread (it holds mutable memos); classifications are identical in
 * every worker because they depend only on string contents. */
#ifndef DFS_POSTREAD_H
#define DFS_POSTREAD_H
#include <stdbool.h>
#include <stdint.h>

#include "analyze/common/predicate.h"
#include "analyze/common/preset.h"
#include "dfscope.h"

/* The layer set after `auto` expansion: layer predicates and derived metrics with their texts
 * de-duplicated into one predicate set (a bit per distinct text). Immutable, shared by workers. */
typedef struct dfs_layer_plan {
    const dfs_preset *preset;
    size_t nlayers;
    const dfs_preset_layer *layers; /* preset->layers, or the expanded auto layers */
    const char *texts[DFS_PRED_MAX_SET];
    size_t ntexts;
    int layer_text[DFS_PRESET_MAX_LAYERS];                          /* -1: match all */
    int derived_text[DFS_PRESET_MAX_LAYERS][DFS_PRESET_MAX_DERIVED]; /* bit of each derived metric */
    uint64_t left_out_texts; /* the bits of the preset's left_out predicates (events left out on purpose) */
    unsigned columns;   /* union of the predicates' columns (DFS_PRED_COL_BIT) */
    bool per_event;     /* some predicate reads a column outside (cat, func_name, io_cat, acc_pat), or args */
    bool uses_args;     /* some predicate reads event arguments (args.KEY) */
    uint64_t want_keys; /* the well-known keys they read (DFS_KEYBIT), for dfs_want.keys */
    const char *want_extra[DFS_PRED_MAX_ARG_KEYS + 1];                  /* the others, NULL-terminated */
    char arg_key_text[DFS_PRED_MAX_ARG_KEYS][DFS_PRED_MAX_ARG_KEY + 1]; /* where want_extra points */
} dfs_layer_plan;

/* Builds the plan for `layers` (the preset's, or an expanded auto set). false and *err when a
 * predicate does not parse, the distinct predicate texts exceed DFS_PRED_MAX_SET or their argument
 * tests the bounds of predicate.h. The plan points into itself: it stays where it was built. */
bool dfs_layer_plan_init(dfs_layer_plan *plan, const dfs_preset *preset, const dfs_preset_layer *layers,
                         size_t nlayers, dfs_pred_error *err);

/* Asks the reader for the arguments the plan's predicates read: their keys join w (whose extra
 * list, if any, becomes the plan's: the analyses calling this ask for no other named key). */
void dfs_layer_plan_want(const dfs_layer_plan *plan, dfs_want *w);

/* "<noun> <layer>" (or "<noun> <layer>, derived metric <name>") for the first layer that uses
 * plan->texts[text], for messages; "<noun> ?" when none does. */
void dfs_layer_plan_user(const dfs_layer_plan *plan, size_t text, const char *noun, char *buf, size_t n);

/* Where an event's size comes from (§3.5). */
typedef enum dfs_size_rule {
    DFS_SIZE_NONE,
    DFS_SIZE_FROM_SIZE_SUM, /* args.size_sum (DataCrumbs) */
    DFS_SIZE_FROM_RET,      /* POSIX/STDIO read or write: args.ret when > 0 */
    DFS_SIZE_FROM_IMAGE,    /* args.image_size when > 0 (G3) */
} dfs_size_rule;

/* What the post-read rules say about one event. */
typedef struct dfs_pr_event {
    bool dropped_file;  /* file name matches an ignored pattern */
    bool dropped_func;  /* name is ignored */
    uint8_t io_cat;     /* dfs_io_cat */
    uint8_t size_rule;  /* dfs_size_rule */
    uint32_t cat;       /* classifier-local id of the suffixed lower-cased category (dfs_postread_cat_text) */
    uint64_t match;     /* bit t set: plan->texts[t] holds for the event */
    uint64_t layers;    /* bit l set: layer l holds */
} dfs_pr_event;

typedef struct dfs_postread dfs_postread;

dfs_postread *dfs_postread_new(const dfs_layer_plan *plan);
void dfs_postread_free(dfs_postread *c);

/* The per-event inputs the rules read. fname is the resolved file name (0 = none); the
 * process columns are only read when plan->per_event. */
typedef struct dfs_pr_input {
    dfs_str cat, name, fname, host;
    const char *proc_name; /* NULL unless needed */
    size_t proc_name_len;
    uint32_t proc_id;      /* identifies proc_name for the memo */
    int64_t pid, tid;
    bool has_size_sum;
    uint64_t arg_truths; /* dfs_postread_arg_truths of the event, when plan->uses_args */
} dfs_pr_input;

/* The answers of the plan's argument tests on ev, read while ev is at hand, for dfs_pr_input's
 * arg_truths; 0 when the plan reads no arguments. Any classifier of the same plan reads the word
 * right (predicate.h numbers the tests alike). */
uint64_t dfs_postread_arg_truths(const dfs_postread *c, const dfs_run *run, const dfs_event *ev);

/* Classifies; false only when out of memory. */
bool dfs_postread_classify(dfs_postread *c, const dfs_run *run, const dfs_pr_input *in, dfs_pr_event *out);
/* The same for an event its caller already looked up in vain (dfs_pr_front_find, below). */
bool dfs_postread_classify_miss(dfs_postread *c, const dfs_run *run, const dfs_pr_input *in, dfs_pr_event *out);

/* An event's whole answer by (cat, name, file, size_sum), when the rules read nothing else: a
 * thread cycles through a few such keys (open, lseek, read, close of one file), so most events
 * are answered by this direct-mapped memo, which dfs_postread_classify fills. Looked up inline,
 * so that an answered event costs its caller neither a call nor a dfs_pr_input. */
#define DFS_PR_FRONT_SLOTS 256

typedef struct dfs_pr_front_slot {
    uint64_t key[2]; /* dfs_pr_front_key; {0, 0}: empty */
    dfs_pr_event ev;
} dfs_pr_front_slot;

typedef struct dfs_pr_front {
    dfs_pr_front_slot slot[DFS_PR_FRONT_SLOTS];
} dfs_pr_front;

/* The classifier's memo; NULL when the rules read per-event columns (plan->per_event). */
const dfs_pr_front *dfs_postread_front(const dfs_postread *c);

/* A memo key of four 32-bit parts in two words, compared two at a time; never {0, 0} (the flag's
 * word holds flag + 1). */
static inline void dfs_pr_front_key(uint32_t a, uint32_t b, uint32_t c, uint32_t flag, uint64_t key[2])
{
    key[0] = a | (uint64_t)b << 32;
    key[1] = c | (uint64_t)(flag + 1) << 32;
}

static inline unsigned dfs_pr_front_index(const uint64_t key[2])
{
    uint64_t h = (key[0] ^ key[1] * UINT64_C(0x9e3779b97f4a7c15)) * UINT64_C(0xc2b2ae3d27d4eb4f);
    return (unsigned)(h >> 56) & (DFS_PR_FRONT_SLOTS - 1);
}

/* The memo's answer for a key into *out; false when it has none (front may be NULL). */
static inline bool dfs_pr_front_find(const dfs_pr_front *front, dfs_str cat, dfs_str name, dfs_str fname,
                                     bool has_size_sum, dfs_pr_event *out)
{
    if (!front)
        return false;
    uint64_t key[2];
    dfs_pr_front_key(cat, name, fname, has_size_sum, key);
    const dfs_pr_front_slot *s = &front->slot[dfs_pr_front_index(key)];
    if (s->key[0] != key[0] || s->key[1] != key[1])
        return false;
    *out = s->ev;
    return true;
}

/* Has a layer or derived-metric predicate reached its regular-expression bound (predicate.h)?
 * Then the classifications are void, and, when buf is empty, buf gets the user's message naming
 * the predicate and the layer that uses it ("<noun> <layer>: predicate ...": noun is what the
 * caller calls its layers, e.g. "layer" or "class"). */
bool dfs_postread_failed(const dfs_postread *c, const char *noun, char *buf, size_t n);

const char *dfs_postread_cat_text(const dfs_postread *c, uint32_t cat, size_t *len);
uint32_t dfs_postread_cat_count(const dfs_postread *c);

/* The args the rules read (for dfs_want.keys). */
#define DFS_POSTREAD_KEYS                                                                          \
    (DFS_KEYBIT(DFS_KEY_RET) | DFS_KEYBIT(DFS_KEY_SIZE_SUM) | DFS_KEYBIT(DFS_KEY_IMAGE_SIZE))
#endif
