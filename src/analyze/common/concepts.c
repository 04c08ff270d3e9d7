/* concepts.c - per-source concept predicates and the event classifier (concepts.h). */
#include "analyze/common/concepts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/event_args.h"

/* ---- the defaults (training-loop.md §4.2) ---------------------------------------------------- */

#define KINETO_HOST_OPS "cat.isin([\"cpu_op\", \"operator\", \"user_annotation\"])"
#define KINETO_NCCL_KERNEL "(cat == \"kernel\" & name.str.startswith(\"nccl\"))"
#define COMPOSER_D                                                                                 \
    "name == \"event/dataloader\" | name.str.startswith(\"dataloader/\") | "                      \
    "cat.str.contains(\"(^|,)dataloader(,|$)\")"
#define DFT_LOOP_START                                                                             \
    "(cat == \"dataloader\" & name == \"fetch.iter\") | (cat == \"data_loader\" & name == \"loop.iter\")"

static const char *const defaults[DFS_CSRC_COUNT][DFS_CONCEPT_COUNT] = {
    [DFS_CSRC_KINETO] = {
        [DFS_CONCEPT_STEP] = KINETO_HOST_OPS " & name.str.startswith(\"ProfilerStep#\")",
        [DFS_CONCEPT_DATA_WAIT] = KINETO_HOST_OPS
            " & (name.str.contains(\"^enumerate\\(DataLoader\\)#.*\\.__next__$\") | "
            "name.str.startswith(\"enumerate(DataPipe)#\"))",
        /* kernels and MTIA device ops: the kernel kind of analyze/common/gpu_events.h */
        [DFS_CONCEPT_COMPUTE_DEV] = "cat.isin([\"kernel\", \"mtia_ccp_events\"]) & ~name.str.startswith(\"nccl\")",
        [DFS_CONCEPT_COMPUTE_HOST] = KINETO_HOST_OPS " & ~name.str.startswith(\"ProfilerStep#\")",
        [DFS_CONCEPT_TRANSFER] =
            "cat.isin([\"gpu_memcpy\", \"memcpy\", \"gpu_memset\", \"memset\"]) | " KINETO_NCCL_KERNEL
            " | (" KINETO_HOST_OPS " & name.str.contains(\"^(nccl|gloo):\"))",
        [DFS_CONCEPT_RUNTIME] = "cat.isin([\"runtime\", \"cuda_runtime\", \"cuda_driver\", \"hip_runtime\", "
                                "\"mtia_runtime\", \"xpu_runtime\", \"xpu_driver\", \"privateuse1_runtime\", "
                                "\"privateuse1_driver\"])",
    },
    [DFS_CSRC_SMDEBUG] = {
        [DFS_CONCEPT_STEP] = "name.str.startswith(\"Step:ModeKeys.\")",
        [DFS_CONCEPT_DATA_WAIT] =
            "name.str.contains(\"DataLoaderIter::GetNext$\") | name == \"IteratorGetNextOp::DoCompute\"",
        [DFS_CONCEPT_COMPUTE_DEV] = "proc_name.str.startswith(\"gpu_functions-dev:\")",
        [DFS_CONCEPT_COMPUTE_HOST] =
            "proc_name.isin([\"Forward\", \"Backward(post-forward)\", \"Forward-SubModuleInternal\", "
            "\"Backward-SubModuleInternal\", \"cpu_functions\"])",
        [DFS_CONCEPT_TRANSFER] =
            "name.str.contains(\"NcclManager\") | "
            "name.str.contains(\"^(NCCL_|MPI_)?(ALLREDUCE|ALLGATHER|BROADCAST|ALLTOALL|REDUCESCATTER)\")",
    },
    [DFS_CSRC_COMPOSER] = {
        [DFS_CONCEPT_STEP] = "name == \"event/dataloader\" | name.str.startswith(\"dataloader/\")",
        [DFS_CONCEPT_STEP_END] = "name == \"event/batch\"",
        [DFS_CONCEPT_DATA_WAIT] = COMPOSER_D,
        [DFS_CONCEPT_COMPUTE_DEV] = "cat.isin([\"kernel\", \"Kernel\"]) & ~name.str.startswith(\"nccl\")",
        [DFS_CONCEPT_COMPUTE_HOST] =
            "name.isin([\"event/forward\", \"event/loss\", \"event/backward\", \"event/train_batch\", "
            "\"event/eval_forward\", \"event/predict_forward\"])",
        [DFS_CONCEPT_EPOCH] =
            "name.isin([\"event/epoch\", \"event/eval\", \"event/eval_all\", \"event/predict\", "
            "\"event/eval_standalone\"])",
    },
    [DFS_CSRC_DFTRACER] = {
        [DFS_CONCEPT_STEP] = DFT_LOOP_START,
        [DFS_CONCEPT_STEP_END] =
            "(cat == \"dataloader\" & name == \"fetch.block\") | (cat == \"data_loader\" & name == \"loop.yield\")",
        [DFS_CONCEPT_DATA_WAIT] = DFT_LOOP_START,
        [DFS_CONCEPT_COMPUTE_HOST] = "cat == \"compute\" | (cat == \"ai_framework\" & name.str.contains(\"\\.compute$\"))",
        [DFS_CONCEPT_TRANSFER] = "cat.isin([\"comm\", \"device\"])",
        [DFS_CONCEPT_IO] = "cat.isin([\"POSIX\", \"STDIO\", \"MPI\", \"MPIIO\", \"HDF5\"])",
        [DFS_CONCEPT_EPOCH] =
            "(cat == \"pipeline\" & name.isin([\"epoch\", \"epoch.block\", \"train\", \"evaluate\", \"test\"])) | "
            "(cat == \"dlio_benchmark\" & name.isin([\"DLIOBenchmark._train\", \"DLIOBenchmark._eval\"]))",
    },
};

static const char *const concept_names[DFS_CONCEPT_COUNT] = {
    "step", "step_end", "data_wait", "compute_dev", "compute_host", "transfer", "io", "runtime", "epoch",
};
static const char *const source_names[DFS_CSRC_COUNT] = {"generic", "kineto", "smdebug", "composer",
                                                          "dftracer"};
static const char *const class_names[DFS_EVCLASS_COUNT] = {"other", "compute", "data_wait", "io",
                                                            "transfer"};

const char *dfs_concept_name(dfs_concept k)
{
    return (unsigned)k < DFS_CONCEPT_COUNT ? concept_names[k] : NULL;
}

bool dfs_concept_from_name(const char *s, dfs_concept *out)
{
    for (unsigned k = 0; s && k < DFS_CONCEPT_COUNT; k++) {
        const char *n = concept_names[k];
        size_t i = 0;
        while (n[i] && (s[i] == n[i] || (s[i] == '-' && n[i] == '_')))
            i++;
        if (!n[i] && !s[i]) {
            *out = (dfs_concept)k;
            return true;
        }
    }
    return false;
}

const char *dfs_concept_source_name(dfs_concept_source s)
{
    return (unsigned)s < DFS_CSRC_COUNT ? source_names[s] : NULL;
}

const char *dfs_event_class_name(dfs_event_class c)
{
    return (unsigned)c < DFS_EVCLASS_COUNT ? class_names[c] : NULL;
}

dfs_concept_source dfs_concept_source_of(dfs_dialect d)
{
    switch (d) {
    case DFS_DIALECT_KINETO: return DFS_CSRC_KINETO;
    case DFS_DIALECT_SMDEBUG_FRAMEWORK:
    case DFS_DIALECT_SMDEBUG_SYSTEM: return DFS_CSRC_SMDEBUG;
    case DFS_DIALECT_COMPOSER: return DFS_CSRC_COMPOSER;
    case DFS_DIALECT_DFTRACER_2023:
    case DFS_DIALECT_DFTRACER_V1:
    case DFS_DIALECT_DFTRACER_V2: return DFS_CSRC_DFTRACER;
    default: return DFS_CSRC_GENERIC;
    }
}

const char *dfs_concept_default(dfs_concept_source s, dfs_concept k)
{
    if ((unsigned)s >= DFS_CSRC_COUNT || (unsigned)k >= DFS_CONCEPT_COUNT)
        return NULL;
    return defaults[s][k];
}

/* ---- the classifier ---------------------------------------------------------------------------- */

typedef struct source_preds {
    dfs_pred_set *set;
    const char *text[DFS_CONCEPT_COUNT]; /* NULL: unavailable */
    int8_t bit[DFS_CONCEPT_COUNT];       /* the concept's member of `set`, -1 when unavailable */
    unsigned columns;
    bool lower_cat;                      /* Kineto: types compare lower-cased */
} source_preds;

/* The keys steps asks for by name, beside the arguments the predicates read. */
#define MAX_BASE_EXTRA 4

struct dfs_concepts {
    source_preds src[DFS_CSRC_COUNT];
    char *owned[DFS_CONCEPT_COUNT]; /* copies of the user's texts */
    dfs_pred_arg_tests *arg_tests;  /* every source's argument tests; NULL when none reads args */
    const char *want_extra[MAX_BASE_EXTRA + DFS_PRED_MAX_ARG_KEYS + 1];
};

static void set_error(dfs_pred_error *err, const char *msg)
{
    if (!err)
        return;
    memset(err, 0, sizeof *err);
    snprintf(err->message, sizeof err->message, "%s", msg);
}

/* Checks every user text alone first, so that the error names the concept. */
static bool check_overrides(const dfs_concept_overrides *ov, dfs_pred_error *err, dfs_concept *bad)
{
    for (unsigned k = 0; ov && k < DFS_CONCEPT_COUNT; k++) {
        const char *t = ov->text[k];
        if (!t || strcmp(t, "off") == 0)
            continue;
        dfs_pred *p = dfs_pred_parse(t, err);
        bool parsed = p != NULL;
        dfs_pred_free(p);
        if (!parsed) {
            if (bad)
                *bad = (dfs_concept)k;
            return false;
        }
    }
    return true;
}

static bool build_source(dfs_concepts *c, dfs_concept_source s, const dfs_concept_overrides *ov,
                         dfs_pred_error *err, dfs_concept *bad)
{
    source_preds *sp = &c->src[s];
    const char *texts[DFS_CONCEPT_COUNT];
    size_t n = 0;
    sp->lower_cat = s == DFS_CSRC_KINETO;
    for (unsigned k = 0; k < DFS_CONCEPT_COUNT; k++) {
        const char *t = ov && ov->text[k] ? c->owned[k] : defaults[s][k];
        if (t && strcmp(t, "off") == 0)
            t = NULL;
        sp->text[k] = t;
        sp->bit[k] = t ? (int8_t)n : -1;
        if (t)
            texts[n++] = t;
    }
    sp->set = dfs_pred_set_new(texts, n, err);
    if (!sp->set) {
        if (bad && err && err->index < n)
            for (unsigned k = 0; k < DFS_CONCEPT_COUNT; k++)
                if (sp->bit[k] == (int8_t)err->index)
                    *bad = (dfs_concept)k;
        return false;
    }
    sp->columns = dfs_pred_set_columns(sp->set);
    return true;
}

/* One numbering of the argument tests for every source, sources in order: any dfs_concepts of the
 * same overrides numbers them alike (predicate.h), so a word answered by one is read by another. */
static bool bind_arg_tests(dfs_concepts *c, dfs_pred_error *err, dfs_concept *bad)
{
    bool any = false;
    for (unsigned s = 0; s < DFS_CSRC_COUNT; s++)
        any |= dfs_pred_set_uses_args(c->src[s].set);
    if (!any)
        return true;
    if (!(c->arg_tests = dfs_pred_arg_tests_new())) {
        set_error(err, "out of memory");
        return false;
    }
    for (unsigned s = 0; s < DFS_CSRC_COUNT; s++) {
        source_preds *sp = &c->src[s];
        if (dfs_pred_set_bind_arg_tests(sp->set, c->arg_tests, err))
            continue;
        for (unsigned k = 0; bad && err && k < DFS_CONCEPT_COUNT; k++)
            if (sp->bit[k] == (int8_t)err->index)
                *bad = (dfs_concept)k;
        return false;
    }
    return true;
}

dfs_concepts *dfs_concepts_new(const dfs_concept_overrides *ov, dfs_pred_error *err, dfs_concept *bad)
{
    if (!check_overrides(ov, err, bad))
        return NULL;
    dfs_concepts *c = calloc(1, sizeof *c);
    if (!c) {
        set_error(err, "out of memory");
        return NULL;
    }
    for (unsigned k = 0; ov && k < DFS_CONCEPT_COUNT; k++) {
        if (ov->text[k] && !(c->owned[k] = strdup(ov->text[k]))) {
            set_error(err, "out of memory");
            dfs_concepts_free(c);
            return NULL;
        }
    }
    for (unsigned s = 0; s < DFS_CSRC_COUNT; s++) {
        if (!build_source(c, (dfs_concept_source)s, ov, err, bad)) {
            dfs_concepts_free(c);
            return NULL;
        }
    }
    if (!bind_arg_tests(c, err, bad)) {
        dfs_concepts_free(c);
        return NULL;
    }
    return c;
}

void dfs_concepts_free(dfs_concepts *c)
{
    if (!c)
        return;
    for (unsigned s = 0; s < DFS_CSRC_COUNT; s++)
        dfs_pred_set_free(c->src[s].set);
    for (unsigned k = 0; k < DFS_CONCEPT_COUNT; k++)
        free(c->owned[k]);
    dfs_pred_arg_tests_free(c->arg_tests);
    free(c);
}

bool dfs_concepts_available(const dfs_concepts *c, dfs_concept_source s, dfs_concept k)
{
    return dfs_concepts_text(c, s, k) != NULL;
}

const char *dfs_concepts_text(const dfs_concepts *c, dfs_concept_source s, dfs_concept k)
{
    if (!c || (unsigned)s >= DFS_CSRC_COUNT || (unsigned)k >= DFS_CONCEPT_COUNT)
        return NULL;
    return c->src[s].text[k];
}

bool dfs_concepts_need_proc_name(const dfs_concepts *c, dfs_concept_source s)
{
    return (unsigned)s < DFS_CSRC_COUNT && (c->src[s].columns & DFS_PRED_COL_BIT(DFS_PRED_PROC_NAME));
}

static bool may_match(const dfs_event *ev)
{
    return ev->phase == DFS_PHASE_COMPLETE || ev->phase == DFS_PHASE_BEGIN || ev->phase == DFS_PHASE_END ||
           ev->phase == DFS_PHASE_INSTANT;
}

static void set_text(dfs_pred_row *row, uint32_t *ids, const dfs_run *run, dfs_pred_col col, dfs_str s)
{
    if (!s)
        return;
    size_t n;
    const char *p = dfs_str_get(run, s, &n);
    dfs_pred_row_set_text(row, col, p, n);
    ids[col] = s;
}

/* Kineto types are compared lower-cased; the id still identifies the text, since lower-casing is
 * a function of it. Categories too long for the buffer are left as written (no type is long). */
static void set_cat(dfs_pred_row *row, uint32_t *ids, const dfs_run *run, dfs_str cat, bool lower,
                    char *buf, size_t cap)
{
    set_text(row, ids, run, DFS_PRED_CAT, cat);
    if (!lower || !cat || row->text[DFS_PRED_CAT].len >= cap)
        return;
    size_t n = row->text[DFS_PRED_CAT].len;
    const char *s = row->text[DFS_PRED_CAT].s;
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    dfs_pred_row_set_text(row, DFS_PRED_CAT, buf, n);
}

void dfs_concepts_event_row(dfs_pred_row *row, uint32_t *ids, const dfs_run *run, const dfs_event *ev,
                            unsigned cols)
{
    dfs_pred_row_init(row);
    if (cols & DFS_PRED_COL_BIT(DFS_PRED_CAT))
        set_text(row, ids, run, DFS_PRED_CAT, ev->cat);
    if (cols & DFS_PRED_COL_BIT(DFS_PRED_FUNC_NAME))
        set_text(row, ids, run, DFS_PRED_FUNC_NAME, ev->name);
    if (cols & DFS_PRED_COL_BIT(DFS_PRED_FILE_NAME))
        set_text(row, ids, run, DFS_PRED_FILE_NAME, ev->fname);
    if (cols & DFS_PRED_COL_BIT(DFS_PRED_HOST))
        set_text(row, ids, run, DFS_PRED_HOST, ev->host);
    if (cols & DFS_PRED_COL_BIT(DFS_PRED_PROC_NAME))
        set_text(row, ids, run, DFS_PRED_PROC_NAME, dfs_run_process_name(run, ev->file, ev->pid));
    dfs_pred_row_set_num(row, DFS_PRED_PID, ev->pid);
    dfs_pred_row_set_num(row, DFS_PRED_TID, ev->tid);
}

bool dfs_concepts_uses_args(const dfs_concepts *c)
{
    return c && c->arg_tests;
}

void dfs_concepts_want(dfs_concepts *c, dfs_want *w, const char *const *extra)
{
    size_t n = 0;
    for (; extra && extra[n] && n < MAX_BASE_EXTRA; n++)
        c->want_extra[n] = extra[n];
    c->want_extra[n] = NULL;
    w->extra = n ? c->want_extra : NULL;
    for (size_t i = 0; c->arg_tests && i < dfs_pred_arg_tests_key_count(c->arg_tests); i++) {
        size_t len;
        dfs_want_arg_key(w, dfs_pred_arg_tests_key(c->arg_tests, i, &len), c->want_extra, &n);
    }
}

uint64_t dfs_concepts_arg_truths(const dfs_concepts *c, const dfs_run *run, const dfs_event *ev)
{
    return c && c->arg_tests ? dfs_event_arg_truths(c->arg_tests, run, ev) : 0;
}

uint32_t dfs_concepts_match(dfs_concepts *c, const dfs_run *run, dfs_concept_source s, const dfs_event *ev)
{
    return dfs_concepts_match_answered(c, run, s, ev, dfs_concepts_arg_truths(c, run, ev));
}

uint32_t dfs_concepts_match_answered(dfs_concepts *c, const dfs_run *run, dfs_concept_source s,
                                     const dfs_event *ev, uint64_t arg_truths)
{
    if (!c || (unsigned)s >= DFS_CSRC_COUNT || !may_match(ev))
        return 0;
    source_preds *sp = &c->src[s];
    if (dfs_pred_set_count(sp->set) == 0)
        return 0;
    dfs_pred_row row;
    uint32_t ids[DFS_PRED_NTEXT] = {0};
    char lowered[128];
    unsigned cols = sp->columns;
    dfs_concepts_event_row(&row, ids, run, ev, cols & ~DFS_PRED_COL_BIT(DFS_PRED_CAT));
    if (cols & DFS_PRED_COL_BIT(DFS_PRED_CAT))
        set_cat(&row, ids, run, ev->cat, sp->lower_cat, lowered, sizeof lowered);
    row.has_arg_truths = c->arg_tests != NULL;
    row.arg_truths = arg_truths;
    uint64_t hits = dfs_pred_set_eval(sp->set, &row, ids);
    uint32_t bits = 0;
    for (unsigned k = 0; k < DFS_CONCEPT_COUNT; k++)
        if (sp->bit[k] >= 0 && (hits >> sp->bit[k] & 1))
            bits |= DFS_CONCEPT_BIT(k);
    return bits;
}

bool dfs_concepts_failed(const dfs_concepts *c, char *buf, size_t n)
{
    for (unsigned s = 0; c && s < DFS_CSRC_COUNT; s++) {
        const source_preds *sp = &c->src[s];
        dfs_pred_error err;
        if (!sp->set || !dfs_pred_set_failed(sp->set, &err))
            continue;
        for (unsigned k = 0; k < DFS_CONCEPT_COUNT; k++)
            if (sp->bit[k] == (int8_t)err.index) {
                char what[64];
                snprintf(what, sizeof what, "concept %s", dfs_concept_name((dfs_concept)k));
                dfs_pred_note_failure(buf, n, what, sp->text[k], &err);
            }
        return true;
    }
    return false;
}

dfs_event_class dfs_event_class_of(uint32_t bits)
{
    if (bits & DFS_CONCEPT_BIT(DFS_CONCEPT_DATA_WAIT))
        return DFS_EVCLASS_DATA_WAIT;
    if (bits & DFS_CONCEPT_BIT(DFS_CONCEPT_IO))
        return DFS_EVCLASS_IO;
    if (bits & DFS_CONCEPT_BIT(DFS_CONCEPT_TRANSFER))
        return DFS_EVCLASS_TRANSFER;
    if (bits & (DFS_CONCEPT_BIT(DFS_CONCEPT_COMPUTE_DEV) | DFS_CONCEPT_BIT(DFS_CONCEPT_COMPUTE_HOST)))
        return DFS_EVCLASS_COMPUTE;
    return DFS_EVCLASS_OTHER;
}

dfs_event_class dfs_concepts_classify(dfs_concepts *c, const dfs_run *run, dfs_concept_source s,
                                      const dfs_event *ev)
{
    return dfs_event_class_of(dfs_concepts_match(c, run, s, ev));
}

dfs_event_class dfs_concepts_classify_answered(dfs_concepts *c, const dfs_run *run, dfs_concept_source s,
                                               const dfs_event *ev, uint64_t arg_truths)
{
    return dfs_event_class_of(dfs_concepts_match_answered(c, run, s, ev, arg_truths));
}
