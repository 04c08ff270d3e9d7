/* overlap.c - I/O versus compute overlap (contract and memory bound in overlap.h; spec overlap.md):
 * the analysis from its options to the consumer it hands the reader, and its defaults.
 *
 * One streaming pass with per-worker state merged in worker_end:
 *  - classification: the classes and markers become the layers of a dfs_layer_plan, answered per
 *    event by the post-read classifier behind a small direct-mapped cache;
 *  - units: a scope record per process and (when asked) per thread, with span and per-class
 *    counters, and for the exact method an interval engine without a reference class: class c
 *    at c and c ∪ C at nclasses + c − 1, so |c ∩ C| = |c| + |C| − |c ∪ C| and the engine holds
 *    only coalesced unions. The global scope is one more such engine per worker;
 *  - streaming flushes: per unit behind its watermark (overlap.h), with a snapshot of the
 *    engine's totals after each flush, so that an epoch or step [s, e) is M(e) − M(s) of two
 *    snapshots (every marker boundary is flushed exactly, in order);
 *  - approximate: Σ dur per (start bin, thread, class); G0 exact: one engine per start bin.
 * Everything that depends on -j (string ids, worker order) is settled by sorting on contents.
 *
 * The files of the analysis, in the order an event meets them (what they share is in
 * overlap_internal.h):
 *  - overlap.c: the defaults, the classes and markers as a layer plan, the life of the analysis
 *    and of a worker's state;
 *  - overlap_events.c: the consumer: a batch's events reduced, classified and accumulated;
 *  - overlap_scopes.c: the scope records and their exact measurement while streaming;
 *  - overlap_merge.c: worker states merged into the total; the unit census of distributed runs;
 *  - overlap_finish.c: whether a pass holds, and the result built from the merged state, with
 *    overlap_bins.c (its time bins, every method) and overlap_epochs.c (its epochs and steps);
 *  - overlap_pack.c: the merged state on the wire, for distributed runs.
 *
 * Invariants kept here: classes 0, 1, 2 are compute, io and app_io (DFS_OVC_*), the extra classes
 * follow; layer_class maps each layer of the plan to its class, or to LAYER_MARK + its marker
 * kind; the preset's ignore lists are emptied unless post_read is set. */
#include "analyze/overlap/overlap.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/overlap/overlap_internal.h"
#include "util/suggest.h"

static const char *const fixed_names[3] = {"compute", "io", "app_io"};

/* ===== names and defaults ======================================================================== */

const char *dfs_overlap_method_name(dfs_overlap_method m)
{
    return m == DFS_OVERLAP_APPROXIMATE ? "approximate" : m == DFS_OVERLAP_G0_EXACT ? "g0-exact" : "exact";
}

const char *dfs_overlap_scope_name(dfs_overlap_scope s)
{
    return s == DFS_OVERLAP_THREAD ? "thread" : s == DFS_OVERLAP_GLOBAL ? "global" : "process";
}

#define DEFAULT_IO "cat.str.startswith(\"posix\") | cat.str.startswith(\"stdio\")"

/* DLIO's legacy categories (TorchFramework.compute in ai_framework, DLIOBenchmark._train) and its
 * dft_ai ones (cat compute, pipeline epoch.*): reference §5 has only the former, so it is unchanged. */
#define AI_COMPUTE "func_name.isin([\"TorchFramework.compute\", \"TFFramework.compute\"]) | cat == \"compute\""
#define AI_EPOCHS "func_name == \"DLIOBenchmark._train\" | (cat == \"pipeline\" & func_name.str.startswith(\"epoch\"))"

void dfs_overlap_defaults_for(const dfs_preset *p, dfs_overlap_defaults *out)
{
    memset(out, 0, sizeof *out);
    out->io = DEFAULT_IO;
    const char *name = p ? p->name : "";
    if (strcmp(name, "dlio") == 0 || strcmp(name, "dlio-g2") == 0 || strcmp(name, "ai") == 0) {
        out->compute = AI_COMPUTE;
        out->app_io = strcmp(name, "ai") == 0 ? "cat == \"reader\" or func_name == \"preprocess\"" : "cat == \"reader\"";
        out->epochs = AI_EPOCHS;
    } else if (p && dfs_preset_layer_index(p, "compute") >= 0) {
        out->compute = "compute";
        if (dfs_preset_layer_index(p, "reader") >= 0)
            out->app_io = "reader";
    }
}

/* ===== the classes as a layer plan ============================================================== */

static bool is_identifier(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

/* "'X' is neither a predicate nor a layer", with the preset's layers and the one meant. */
static void not_a_layer(const dfs_preset *p, const char *given, const char *word, char *err, size_t errlen,
                        const char *what)
{
    dfs_suggest s;
    dfs_suggest_init(&s, word);
    size_t n = (size_t)snprintf(err, errlen, "%s: '%s' is neither a predicate nor a layer of preset %s (its layers:",
                                what, given, p->name);
    for (size_t i = 0; i < p->nlayers && n < errlen; i++) {
        dfs_suggest_offer(&s, p->layers[i].name);
        n += (size_t)snprintf(err + n, errlen - n, "%s%s", i ? ", " : " ", p->layers[i].name);
    }
    const char *guess = dfs_suggest_best(&s);
    if (n < errlen)
        snprintf(err + n, errlen - n, guess ? "). Did you mean '%s'?" : ")%s", guess ? guess : "");
}

/* A class text: a layer name of the preset (its predicate; NULL means every event), or a
 * predicate. *text is set to what is analysed. */
static bool resolve_text(const dfs_preset *p, const char *given, const char **text, bool *all, char *err,
                         size_t errlen, const char *what)
{
    const char *t = given;
    while (*t == ' ' || *t == '\t')
        t++;
    *all = false;
    if (!is_identifier(t)) {
        *text = given;
        return true;
    }
    int l = dfs_preset_layer_index(p, t);
    if (l < 0) {
        not_a_layer(p, given, t, err, errlen, what);
        return false;
    }
    *text = p->layers[l].predicate;
    *all = *text == NULL;
    return true;
}

static bool add_layer(dfs_overlap *ov, const char *name, const char *given, int cls, char *err, size_t errlen)
{
    if (!given)
        return true;
    const char *text;
    bool all;
    if (!resolve_text(ov->opt.preset, given, &text, &all, err, errlen, name))
        return false;
    dfs_preset_layer *L = &ov->layers[ov->nlayers];
    memset(L, 0, sizeof *L);
    L->name = L->display = name;
    L->predicate = text;
    L->parent = -1;
    ov->layer_class[ov->nlayers++] = cls;
    if (cls < LAYER_MARK)
        ov->class_texts[cls] = all ? "(every event)" : text;
    else
        ov->mark_texts[cls - LAYER_MARK] = all ? "(every event)" : text;
    return true;
}

static bool check_extra_name(const dfs_overlap *ov, const char *name, char *err, size_t errlen)
{
    if (!name || !is_identifier(name)) {
        snprintf(err, errlen, "class name '%s': use letters, digits and '_'", name ? name : "");
        return false;
    }
    for (size_t c = 0; c < ov->nclasses; c++)
        if (strcmp(ov->class_names[c], name) == 0) {
            snprintf(err, errlen, "class name '%s' is used twice", name);
            return false;
        }
    return true;
}

static bool build_plan(dfs_overlap *ov, char *err, size_t errlen)
{
    const dfs_overlap_options *o = &ov->opt;
    const char *fixed[3] = {o->compute, o->io, o->app_io};
    for (int c = 0; c < 3; c++) {
        ov->class_names[c] = fixed_names[c];
        if (!add_layer(ov, fixed_names[c], fixed[c], c, err, errlen))
            return false;
    }
    ov->nclasses = 3;
    for (size_t i = 0; i < o->nextra; i++) {
        if (!check_extra_name(ov, o->extra[i].name, err, errlen))
            return false;
        ov->class_names[ov->nclasses] = o->extra[i].name;
        if (!add_layer(ov, o->extra[i].name, o->extra[i].predicate, (int)ov->nclasses, err, errlen))
            return false;
        ov->nclasses++;
    }
    if (!add_layer(ov, "epochs", o->epochs, LAYER_MARK + MARK_EPOCH, err, errlen) ||
        !add_layer(ov, "steps", o->steps, LAYER_MARK + MARK_STEP, err, errlen))
        return false;
    dfs_pred_error perr;
    if (!dfs_layer_plan_init(&ov->plan, &ov->raw_preset, ov->layers, ov->nlayers, &perr)) {
        char what[160];
        dfs_layer_plan_user(&ov->plan, perr.index, "class", what, sizeof what);
        snprintf(err, errlen, "%s: %s", what, perr.message);
        return false;
    }
    unsigned file_cols = DFS_PRED_COL_BIT(DFS_PRED_CAT) | DFS_PRED_COL_BIT(DFS_PRED_FILE_NAME);
    ov->needs_fname = o->post_read || (ov->plan.columns & file_cols);
    ov->expect_markers = o->epochs || o->steps;
    ov->canon_files = !o->post_read && !(ov->plan.columns & DFS_PRED_COL_BIT(DFS_PRED_FILE_NAME)) &&
                      ov->raw_preset.post_read.nsuffixes <= 32;
    return true;
}

/* ===== worker state ============================================================================= */

void dfs_overlap_wstate_init(wstate *w, dfs_overlap *ov)
{
    memset(w, 0, sizeof *w);
    w->ov = ov;
    dfs_keymap_init(&w->pmap, sizeof(unit_key));
    dfs_keymap_init(&w->tmap, sizeof(unit_key));
    dfs_keymap_init(&w->amap, sizeof(approx_key));
    dfs_u64map_init(&w->g0map);
    dfs_keymap_init(&w->fmap, sizeof(dfs_str));
    dfs_keymap_init(&w->smap, sizeof(size_key));
    dfs_keymap_init(&w->rmap, 2 * sizeof(dfs_str));
    dfs_keymap_init(&w->canon, sizeof(dfs_str));
    dfs_keyset_init(&w->files, 2 * sizeof(uint64_t));
    dfs_keyset_init(&w->hosts, 2 * sizeof(uint64_t));
    dfs_keyset_init(&w->pids, sizeof(int64_t));
    dfs_keyset_init(&w->ctids, sizeof(int64_t));
    dfs_keyset_init(&w->itids, sizeof(int64_t));
    dfs_clock_track_init(&w->clocks);
    w->min_ts = INT64_MAX;
    w->max_end = INT64_MIN;
    w->budget = dfs_hold_of(ov->opt.hold_intervals);
    w->check_every = dfs_hold_check_every(w->budget);
}

void dfs_overlap_wstate_free(wstate *w)
{
    dfs_postread_free(w->cls);
    for (size_t i = 0; i < w->procs.n; i++)
        dfs_overlap_scope_free(&w->procs.v[i]);
    for (size_t i = 0; i < w->threads.n; i++)
        dfs_overlap_scope_free(&w->threads.v[i]);
    dfs_vec_free(&w->procs);
    dfs_vec_free(&w->threads);
    dfs_keymap_free(&w->pmap);
    dfs_keymap_free(&w->tmap);
    dfs_ovl_free(w->global);
    dfs_ovl_free(w->spare);
    dfs_keymap_free(&w->amap);
    dfs_vec_free(&w->akeys);
    dfs_vec_free(&w->asums);
    dfs_u64map_free(&w->g0map);
    for (size_t i = 0; i < w->g0.n; i++)
        dfs_ovl_free(w->g0.v[i]);
    dfs_vec_free(&w->g0);
    dfs_vec_free(&w->g0bins);
    dfs_keymap_free(&w->fmap);
    dfs_vec_free(&w->funcs);
    dfs_keymap_free(&w->smap);
    dfs_vec_free(&w->skeys);
    dfs_vec_free(&w->scounts);
    dfs_keymap_free(&w->rmap);
    dfs_keymap_free(&w->canon);
    dfs_vec_free(&w->canon_bits);
    dfs_keyset_free(&w->files);
    dfs_keyset_free(&w->hosts);
    dfs_keyset_free(&w->pids);
    dfs_keyset_free(&w->ctids);
    dfs_keyset_free(&w->itids);
    dfs_vec_free(&w->pending);
    dfs_clock_track_free(&w->clocks);
    dfs_vec_free(&w->active);
    memset(w, 0, sizeof *w);
}

/* ===== the public API ============================================================================== */

dfs_overlap *dfs_overlap_new(const dfs_overlap_options *opt, char *err, size_t errlen)
{
    if (!opt->preset) {
        snprintf(err, errlen, "no preset");
        return NULL;
    }
    if (opt->nextra > DFS_OVERLAP_MAX_EXTRA) {
        snprintf(err, errlen, "at most %d extra classes", DFS_OVERLAP_MAX_EXTRA);
        return NULL;
    }
    if (opt->granularity_ns < 0 || (opt->method != DFS_OVERLAP_EXACT && opt->granularity_ns == 0)) {
        snprintf(err, errlen, "the %s method needs a positive time granularity", dfs_overlap_method_name(opt->method));
        return NULL;
    }
    dfs_overlap *ov = calloc(1, sizeof *ov);
    if (!ov) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ov->opt = *opt;
    ov->raw_preset = *opt->preset;
    if (!opt->post_read) { /* classes are taken on the raw events: nothing is ignored */
        dfs_post_read *pr = &ov->raw_preset.post_read;
        pr->ignored_file_patterns.n = pr->ignored_functions.n = pr->ignored_function_patterns.n = 0;
    }
    ov->exact = opt->method == DFS_OVERLAP_EXACT;
    ov->want_global = !ov->exact || opt->global || opt->scope == DFS_OVERLAP_GLOBAL;
    ov->need_bins = opt->granularity_ns > 0;
    atomic_init(&ov->bins_counted, 0);
    dfs_arena_init(&ov->mem, 64 << 10);
    dfs_overlap_wstate_init(&ov->total, ov);
    if (!build_plan(ov, err, errlen)) {
        dfs_overlap_free(ov);
        return NULL;
    }
    ov->need_threads = opt->scope == DFS_OVERLAP_THREAD || opt->method == DFS_OVERLAP_APPROXIMATE ||
                       (ov->plan.columns & DFS_PRED_COL_BIT(DFS_PRED_PROC_NAME));
    ov->consumer = (dfs_consumer){.user = ov,
                                  .want = {.keys = DFS_KEYBIT(DFS_KEY_RET) | DFS_KEYBIT(DFS_KEY_SIZE_SUM) |
                                                   DFS_KEYBIT(DFS_KEY_IMAGE_SIZE) | DFS_KEYBIT(DFS_KEY_EPOCH) |
                                                   DFS_KEYBIT(DFS_KEY_STEP)},
                                  .worker_begin = dfs_ov_worker_begin,
                                  .on_batch = dfs_ov_on_batch,
                                  .worker_end = dfs_ov_worker_end};
    dfs_layer_plan_want(&ov->plan, &ov->consumer.want);
    return ov;
}

void dfs_overlap_free(dfs_overlap *ov)
{
    if (!ov)
        return;
    dfs_overlap_wstate_free(&ov->total);
    dfs_arena_free(&ov->mem);
    free(ov);
}

dfs_consumer *dfs_overlap_consumer(dfs_overlap *ov)
{
    return &ov->consumer;
}
