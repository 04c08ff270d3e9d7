/* overlap.c - I/O versus compute overlap (contract and memory bound in overlap.h; spec overlap.md).
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
 * Everything that depends on -j (string ids, worker order) is settled by sorting on contents. */
#include "analyze/overlap/overlap.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/overlap/overlap_internal.h"
#include "wire/pack.h"

static const char *const fixed_names[3] = {"compute", "io", "app_io"};

/* ===== small arithmetic ========================================================================= */

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_sub_overflow(a, b, &r) ? (b < 0 ? INT64_MAX : INT64_MIN) : r;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

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
        snprintf(err, errlen, "%s: '%s' is neither a predicate nor a layer of preset %s", what, given, p->name);
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

static const char *layer_of_text(const dfs_overlap *ov, size_t t)
{
    for (size_t l = 0; l < ov->nlayers; l++)
        if (ov->plan.layer_text[l] == (int)t)
            return ov->layers[l].name;
    return "?";
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
        snprintf(err, errlen, "class %s: %s", layer_of_text(ov, perr.index), perr.message);
        return false;
    }
    unsigned file_cols = DFS_PRED_COL_BIT(DFS_PRED_CAT) | DFS_PRED_COL_BIT(DFS_PRED_FILE_NAME);
    ov->needs_fname = o->post_read || (ov->plan.columns & file_cols);
    ov->expect_markers = o->epochs || o->steps;
    ov->canon_files = !o->post_read && !(ov->plan.columns & DFS_PRED_COL_BIT(DFS_PRED_FILE_NAME)) &&
                      ov->raw_preset.post_read.nsuffixes <= 32;
    return true;
}

/* The class bits of an event from its layer bits, with the priority C > I > A (overlap.md §1),
 * and its marker bits. */
static uint64_t classes_of(const dfs_overlap *ov, uint64_t layers, unsigned *marks)
{
    uint64_t m = 0;
    *marks = 0;
    for (; layers; layers &= layers - 1) {
        int c = ov->layer_class[__builtin_ctzll(layers)];
        if (c >= LAYER_MARK)
            *marks |= 1u << (c - LAYER_MARK);
        else
            m |= UINT64_C(1) << c;
    }
    if (m & (UINT64_C(1) << DFS_OVC_COMPUTE))
        m &= ~((UINT64_C(1) << DFS_OVC_IO) | (UINT64_C(1) << DFS_OVC_APP_IO));
    else if (m & (UINT64_C(1) << DFS_OVC_IO))
        m &= ~(UINT64_C(1) << DFS_OVC_APP_IO);
    return m;
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

void dfs_overlap_scope_free(scope *s)
{
    dfs_ovl_free(s->eng);
    s->eng = NULL;
    dfs_vec_free(&s->markers);
    dfs_vec_free(&s->bounds);
    dfs_vec_free(&s->snaps);
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

void dfs_overlap_scope_init(scope *s, const unit_key *k)
{
    memset(s, 0, sizeof *s);
    s->key = *k;
    s->start = INT64_MAX;
    s->end = INT64_MIN;
    s->mark = dfs_stream_mark_new();
    s->wm = INT64_MIN;
}

static unit_key key_of(const oev *e, bool thread)
{
    unit_key k = {.hhash = e->hhash, .host = e->hhash ? 0 : e->host, .pid = e->pid, .tid = thread ? e->tid : 0};
    return k;
}

/* The index of the unit with key k, created when new (first seen at e); UINT32_MAX when out of
 * memory. */
static uint32_t unit_index(wstate *w, bool thread, const unit_key *k, const oev *e)
{
    dfs_keymap *map = thread ? &w->tmap : &w->pmap;
    scope_vec *vec = thread ? &w->threads : &w->procs;
    uint32_t idx;
    bool fresh;
    if (!dfs_keymap_get_or_put(map, k, (uint32_t)vec->n, &idx, &fresh) || (fresh && !dfs_vec_reserve(vec, 1))) {
        w->failed = true;
        return UINT32_MAX;
    }
    if (fresh) {
        scope *s = &vec->v[vec->n++];
        dfs_overlap_scope_init(s, k);
        s->file = e->file;
        s->offset = e->offset;
        s->pid_str = e->pid_str;
        s->tid_str = e->tid_str;
    }
    return idx;
}

/* key_of(e, thread) == *k, field by field: a memcmp against a key just built on the stack stalls
 * on store forwarding (per event). */
static bool same_unit(const unit_key *k, const oev *e, bool thread)
{
    return k->pid == e->pid && k->tid == (thread ? e->tid : 0) && k->hhash == e->hhash &&
           k->host == (e->hhash ? 0 : e->host);
}

/* The unit of an event, with a one-entry cache (events of a unit come in runs). */
static scope *unit_of(wstate *w, const oev *e, bool thread)
{
    uint32_t *last = thread ? &w->last_thread : &w->last_proc;
    bool *have = thread ? &w->have_last_thread : &w->have_last_proc;
    scope_vec *vec = thread ? &w->threads : &w->procs;
    if (!*have || !same_unit(&vec->v[*last].key, e, thread)) {
        unit_key k = key_of(e, thread);
        uint32_t idx = unit_index(w, thread, &k, e);
        if (idx == UINT32_MAX)
            return NULL;
        *last = idx;
        *have = true;
    }
    scope *s = &vec->v[*last];
    if (!s->host)
        s->host = e->host;
    return s;
}

/* ===== streaming flushes and snapshots ========================================================= */

static dfs_ovl *new_engine(const dfs_overlap *ov, unsigned nclasses, int ref, bool binned)
{
    return dfs_ovl_new(nclasses, ref, binned ? ov->opt.granularity_ns : 0, ov->opt.origin_ns);
}

/* The engine of a unit or of the global scope has no reference class: class c is at c, and c ∪ C
 * at nclasses + c − 1, so that |c ∩ C| = |c| + |C| − |c ∪ C|. Nothing but coalesced unions is
 * ever held (a reference class would also hold every event not yet known to be covered). */
static dfs_ovl *unit_engine(const dfs_overlap *ov)
{
    return new_engine(ov, (unsigned)(2 * ov->nclasses - 1), -1, ov->need_bins);
}

static uint64_t union_mask(const dfs_overlap *ov, uint64_t cm)
{
    size_t n = ov->nclasses;
    uint64_t m = cm;
    for (size_t c = 1; c < n; c++)
        if ((cm >> c & 1) || (cm & 1))
            m |= UINT64_C(1) << (n + c - 1);
    return m;
}

/* |c ∩ C| from the measures m[] of a unit engine's classes (totals or one bin). */
static int64_t union_with(const dfs_overlap *ov, const dfs_ovl_measure *const *m, size_t c)
{
    int64_t cm = m[DFS_OVC_COMPUTE]->measure;
    return c == DFS_OVC_COMPUTE ? cm : m[c]->measure + cm - m[ov->nclasses + c - 1]->measure;
}

static void engine_measures(const dfs_overlap *ov, const dfs_ovl *eng, const dfs_ovl_measure **m)
{
    for (size_t c = 0; c < 2 * ov->nclasses - 1; c++)
        m[c] = dfs_ovl_total(eng, (unsigned)c);
}

static size_t snap_stride(const dfs_overlap *ov)
{
    return 1 + 2 * ov->nclasses;
}

/* Records the engine's totals after a flush at t: M(t) = measure and |X ∩ C| before t. */
static void snapshot(wstate *w, scope *s, int64_t t)
{
    size_t stride = snap_stride(w->ov);
    if (!dfs_vec_reserve(&s->snaps, stride)) {
        w->failed = true;
        return;
    }
    int64_t *v = s->snaps.v + s->snaps.n;
    const dfs_ovl_measure *m[2 * NCLS];
    engine_measures(w->ov, s->eng, m);
    v[0] = t;
    for (size_t c = 0; c < w->ov->nclasses; c++) {
        v[1 + 2 * c] = m[c]->measure;
        v[2 + 2 * c] = union_with(w->ov, m, c);
    }
    s->snaps.n += stride;
}

/* The snapshot taken at exactly t, or NULL (snapshots are in ascending time). */
static const int64_t *snap_at(const dfs_overlap *ov, const scope *s, int64_t t)
{
    size_t stride = snap_stride(ov), lo = 0, hi = s->snaps.n / stride;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t mt = s->snaps.v[mid * stride];
        if (mt == t)
            return s->snaps.v + mid * stride;
        if (mt < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void flush_to(wstate *w, scope *s, int64_t t)
{
    if (!dfs_ovl_flush(s->eng, t)) {
        w->failed = true;
        return;
    }
    snapshot(w, s, t);
    s->wm = t;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Flushes exactly at every pending marker boundary up to `upto`, in order. */
static void flush_bounds(wstate *w, scope *s, int64_t upto)
{
    if (!s->bounds.n)
        return;
    qsort(s->bounds.v, s->bounds.n, sizeof *s->bounds.v, cmp_i64);
    size_t kept = 0;
    for (size_t i = 0; i < s->bounds.n; i++) {
        int64_t b = s->bounds.v[i];
        if (b > upto)
            s->bounds.v[kept++] = b;
        else if (b > s->wm)
            flush_to(w, s, b);
    }
    s->bounds.n = kept;
}

/* A marker boundary: flushed exactly later, or already snapshotted, or missed (the unit was
 * flushed past it before the marker arrived: a second pass without streaming is needed). */
static void add_bound(wstate *w, scope *s, int64_t b)
{
    if (s->eng && b < s->wm) {
        if (!snap_at(w->ov, s, b))
            s->missed = true;
        return;
    }
    if (!dfs_vec_push(&s->bounds, b))
        w->failed = true;
}

/* Flushes a unit behind its watermark (analyze/common/watermark.h: W = T − max(2L, M), L its longest
 * class event and M its longest marker, while its input is being read; W = T once the worker has
 * moved on). A process that expects epoch or step markers is not flushed before its first one. */
static void flush_scope(wstate *w, scope *s, bool thread)
{
    if (!s->eng || s->finalized || s->pinned) /* pinned: listed before it was */
        return;
    if (!s->mark.idle && !thread && w->ov->expect_markers && !s->markers.n)
        return;
    int64_t W = dfs_stream_mark_watermark(&s->mark);
    if (W <= s->wm)
        return;
    flush_bounds(w, s, W);
    if (W > s->wm)
        flush_to(w, s, W);
    w->flushes++;
}

/* Measures everything of a unit (its remaining boundaries first), at the end. */
static void finalize_scope(wstate *w, scope *s)
{
    if (s->finalized)
        return;
    s->finalized = true;
    s->active = false;
    if (!s->eng)
        return;
    flush_bounds(w, s, INT64_MAX);
    if (!dfs_ovl_finish(s->eng))
        w->failed = true;
    s->wm = INT64_MAX;
}

static scope *active_scope(wstate *w, active_ref r)
{
    return r.thread ? &w->threads.v[r.idx] : &w->procs.v[r.idx];
}

/* The worker moved to another input: the units it was reading become idle. */
static void stream_ended(wstate *w)
{
    for (size_t i = 0; i < w->active.n; i++)
        active_scope(w, w->active.v[i])->mark.idle = true;
}

static size_t held_intervals(wstate *w)
{
    size_t held = 0;
    for (size_t i = 0; i < w->active.n; i++)
        held += dfs_ovl_held(active_scope(w, w->active.v[i])->eng);
    return held;
}

/* An idle unit whose intervals are all measured leaves the list; the buffers its engine grew to
 * the unit's peak serve the worker's next unit (dfs_ovl_renew). */
static void retire(wstate *w, scope *s)
{
    s->active = false;
    if (s->eng)
        dfs_ovl_renew(&s->eng, unit_engine(w->ov), &w->spare);
}

/* Over budget: flushes every unit holding intervals; idle units that hold nothing more leave the
 * list. Nothing is flushed while the budget holds, so small runs never depend on order. */
static void maybe_flush(wstate *w)
{
    w->since_check = 0;
    if (held_intervals(w) <= w->budget)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < w->active.n; i++) {
        active_ref r = w->active.v[i];
        scope *s = active_scope(w, r);
        flush_scope(w, s, r.thread);
        if (s->mark.idle && !dfs_ovl_held(s->eng))
            retire(w, s);
        else
            w->active.v[kept++] = r;
    }
    w->active.n = kept;
    w->budget = dfs_hold_next_budget(held_intervals(w), dfs_hold_of(w->ov->opt.hold_intervals));
}

/* Streaming bookkeeping after an interval [start, end) went into a unit's engine or a marker was
 * seen: the unit's latest end and longest event, and its place in the worker's list. */
static void note_stream(wstate *w, scope *s, bool thread, uint32_t idx, int64_t start, int64_t end, bool is_marker)
{
    s->pinned |= w->in_pieces;
    if (w->ov->opt.no_streaming || w->no_stream || s->pinned)
        return;
    dfs_stream_mark_note(&s->mark, start, end, is_marker);
    if (!s->active) {
        active_ref r = {.thread = thread, .idx = idx};
        if (!dfs_vec_push(&w->active, r)) {
            w->failed = true;
            return;
        }
        s->active = true;
    }
    if (++w->since_check >= w->check_every)
        maybe_flush(w);
}

/* ===== adding events ============================================================================= */

static int64_t int_value(const dfs_value *v)
{
    int64_t i;
    if (v->type == DFS_V_UINT)
        return v->as.u > INT64_MAX ? INT64_MAX : (int64_t)v->as.u;
    if (v->type == DFS_V_FLOAT)
        return v->as.f > 0 && v->as.f < 9.2e18 ? (int64_t)v->as.f : 0;
    return dfs_value_int(v, &i) ? i : 0;
}

static label label_value(const dfs_value *v)
{
    label l = {0};
    if (v->type == DFS_V_STR) {
        l.kind = 2;
        l.s = v->as.s;
    } else if (dfs_value_int(v, &l.i)) {
        l.kind = 1;
    }
    return l;
}

/* The args the analysis reads (I/O sizes, marker labels, whether size_sum is there), in one pass
 * over the few wanted keys the parser kept; the first of a repeated key counts, as in
 * dfs_event_arg. */
static void read_args(oev *e, const dfs_event *ev)
{
    unsigned seen = 0;
    for (uint32_t i = 0; i < ev->nargs; i++) {
        const dfs_arg *a = &ev->args[i];
        unsigned bit = 0;
        switch (a->key) {
        case DFS_KEY_STR(DFS_KEY_RET):
            bit = 1;
            if (!(seen & bit))
                e->ret = int_value(&a->val);
            break;
        case DFS_KEY_STR(DFS_KEY_IMAGE_SIZE):
            bit = 2;
            if (!(seen & bit))
                e->image_size = int_value(&a->val);
            break;
        case DFS_KEY_STR(DFS_KEY_EPOCH):
            bit = 4;
            if (!(seen & bit))
                e->lab[MARK_EPOCH] = label_value(&a->val);
            break;
        case DFS_KEY_STR(DFS_KEY_STEP):
            bit = 8;
            if (!(seen & bit))
                e->lab[MARK_STEP] = label_value(&a->val);
            break;
        case DFS_KEY_STR(DFS_KEY_SIZE_SUM):
            e->has_size_sum = true;
            break;
        default:
            break;
        }
        seen |= bit;
    }
}

/* Counters of a unit, and (exact method) its intervals. */
static void unit_add(wstate *w, scope *s, bool thread, uint64_t cm, const oev *e)
{
    dfs_overlap *ov = w->ov;
    s->events++;
    s->start = min64(s->start, e->ts);
    s->end = max64(s->end, e->end);
    for (uint64_t m = cm; m; m &= m - 1) {
        unsigned c = (unsigned)__builtin_ctzll(m);
        s->count[c]++;
        s->sum[c] = sat_add(s->sum[c], e->end - e->ts);
    }
    if (!ov->exact || !cm)
        return;
    if (!s->eng) {
        s->eng = w->spare ? w->spare : unit_engine(ov);
        w->spare = NULL;
    }
    if (!s->eng) {
        w->failed = true;
        return;
    }
    if (!dfs_ovl_add_mask(s->eng, union_mask(ov, cm), e->ts, e->end, 0)) {
        w->failed = true;
        return;
    }
    scope_vec *vec = thread ? &w->threads : &w->procs;
    note_stream(w, s, thread, (uint32_t)(s - vec->v), e->ts, e->end, false);
}

static void add_marker(wstate *w, scope *s, unsigned kind, const oev *e)
{
    marker mk = {.s = e->ts, .e = e->end, .lab = e->lab[kind], .kind = (uint8_t)kind};
    if (!dfs_vec_push(&s->markers, mk)) {
        w->failed = true;
        return;
    }
    if (!w->ov->exact)
        return;
    add_bound(w, s, mk.s);
    add_bound(w, s, mk.e);
    note_stream(w, s, false, (uint32_t)(s - w->procs.v), e->ts, e->end, true);
}

static void global_add(wstate *w, uint64_t cm, const oev *e)
{
    dfs_overlap *ov = w->ov;
    if (!w->global && !(w->global = unit_engine(ov))) {
        w->failed = true;
        return;
    }
    if (!dfs_ovl_add_mask(w->global, union_mask(ov, cm), e->ts, e->end, 0))
        w->failed = true;
}

static int64_t bin_of(const dfs_overlap *ov, int64_t ts)
{
    return floor_div(sat_sub(ts, ov->opt.origin_ns), ov->opt.granularity_ns);
}

/* Approximate: Σ dur per (start bin, thread, class). */
static void approx_add(wstate *w, uint32_t thread, uint64_t cm, const oev *e)
{
    size_t n = w->ov->nclasses;
    approx_key k = {.bin = bin_of(w->ov, e->ts), .thread = thread};
    uint32_t idx;
    bool fresh;
    if (!dfs_keymap_get_or_put(&w->amap, &k, (uint32_t)w->akeys.n, &idx, &fresh) ||
        (fresh && (!dfs_vec_push(&w->akeys, k) || !dfs_vec_reserve(&w->asums, n)))) {
        w->failed = true;
        return;
    }
    if (fresh) {
        memset(w->asums.v + w->asums.n, 0, n * sizeof *w->asums.v);
        w->asums.n += n;
    }
    for (uint64_t m = cm; m; m &= m - 1) {
        int64_t *sum = &w->asums.v[(size_t)idx * n + (size_t)__builtin_ctzll(m)];
        *sum = sat_add(*sum, e->end - e->ts);
    }
}

/* G0 exact: unclipped unions per start bin over all processes. */
static void g0_add(wstate *w, uint64_t cm, const oev *e)
{
    int64_t bin = bin_of(w->ov, e->ts);
    uint32_t idx;
    if (!dfs_u64map_get(&w->g0map, (uint64_t)bin, &idx)) {
        dfs_ovl *o = new_engine(w->ov, (unsigned)(2 * w->ov->nclasses - 1), -1, false);
        if (!o || !dfs_vec_reserve(&w->g0, 1) || !dfs_vec_reserve(&w->g0bins, 1) ||
            !dfs_u64map_put(&w->g0map, (uint64_t)bin, (uint32_t)w->g0.n)) {
            dfs_ovl_free(o);
            w->failed = true;
            return;
        }
        idx = (uint32_t)w->g0.n;
        w->g0.v[w->g0.n++] = o;
        w->g0bins.v[w->g0bins.n++] = bin;
    }
    if (!dfs_ovl_add_mask(w->g0.v[idx], union_mask(w->ov, cm), e->ts, e->end, 0))
        w->failed = true;
}

static bool contains(const char *s, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    return m <= n && memmem(s, n, needle, m) != NULL;
}

/* Whether G0's ret rule applies to (cat, name): a raw POSIX read or write (overlap.md §1). */
static uint32_t ret_rule(const dfs_run *run, dfs_str cat_id, dfs_str name_id)
{
    size_t cn, nn;
    const char *cat = dfs_str_get(run, cat_id, &cn);
    const char *name = dfs_str_get(run, name_id, &nn);
    return cn == 5 && memcmp(cat, "POSIX", 5) == 0 &&
           (contains(name, nn, "write") || (contains(name, nn, "read") && !contains(name, nn, "readdir")));
}

/* The rule of (cat, name), memoised in rmap. */
static bool size_rule(wstate *w, const dfs_run *run, dfs_str cat, dfs_str name)
{
    dfs_str key[2] = {cat, name};
    uint32_t rule;
    bool fresh;
    if (!dfs_keymap_get(&w->rmap, key, &rule)) {
        rule = ret_rule(run, cat, name);
        if (!dfs_keymap_get_or_put(&w->rmap, key, rule, &rule, &fresh))
            w->failed = true;
    }
    return rule != 0;
}

/* The function record and size rule of an event's (cat, name), behind a direct-mapped cache:
 * an I/O stream cycles through a few names (open, lseek, read, close), which a one-entry cache
 * would miss at every change. NULL when out of memory. */
static const struct func_memo *function_of(wstate *w, const dfs_run *run, const oev *e)
{
    struct func_memo *m = &w->fmemo[(e->name * 31u + e->cat) % FUNC_MEMO];
    if (m->used && m->name == e->name && m->cat == e->cat)
        return m;
    uint32_t idx;
    bool fresh;
    if (!dfs_keymap_get_or_put(&w->fmap, &e->name, (uint32_t)w->funcs.n, &idx, &fresh) ||
        (fresh && !dfs_vec_push(&w->funcs, ((func_acc){.name = e->name})))) {
        w->failed = true;
        return NULL;
    }
    *m = (struct func_memo){.cat = e->cat, .name = e->name, .func = idx,
                            .rule = size_rule(w, run, e->cat, e->name), .used = true};
    return m;
}

/* One more event of (name, size), behind a direct-mapped cache (a file's reads repeat a few
 * sizes: header, chunk, remainder). */
static void size_add(wstate *w, dfs_str name, uint64_t size)
{
    size_key k = {.name = name, .size = size};
    uint64_t h = (size ^ (uint64_t)name << 40) * UINT64_C(0x9e3779b97f4a7c15);
    struct size_memo *m = &w->smemo[(h >> 48) % SIZE_MEMO];
    if (m->used && m->key.name == name && m->key.size == size) {
        w->scounts.v[m->idx]++;
        return;
    }
    uint32_t idx;
    bool fresh;
    if (!dfs_keymap_get_or_put(&w->smap, &k, (uint32_t)w->skeys.n, &idx, &fresh) ||
        (fresh && (!dfs_vec_push(&w->skeys, k) || !dfs_vec_push(&w->scounts, 0)))) {
        w->failed = true;
        return;
    }
    w->scounts.v[idx]++;
    *m = (struct size_memo){.key = k, .idx = idx, .used = true};
}

/* G0's size (overlap.md §1): ret > 0 where the ret rule applies, else args.image_size when > 0. */
static void function_add(wstate *w, const dfs_run *run, const oev *e)
{
    const struct func_memo *m = function_of(w, run, e);
    if (!m)
        return;
    func_acc *f = &w->funcs.v[m->func];
    f->count++;
    uint64_t size = m->rule && e->ret > 0 ? (uint64_t)e->ret : e->image_size > 0 ? (uint64_t)e->image_size : 0;
    if (!size)
        return;
    f->sized++;
    f->bytes += size;
    size_add(w, e->name, size);
}

static void set_add(wstate *w, dfs_keyset *set, const void *key)
{
    if (dfs_keyset_add(set, key) < 0)
        w->failed = true;
}

static void set_add_cached(wstate *w, dfs_keyset *set, int64_t v, int64_t *last, bool *have)
{
    if (*have && *last == v)
        return;
    set_add(w, set, &v);
    *last = v;
    *have = true;
}

/* DFAnalyzer's proc_name "app#host#pid#tid", for predicates that read it. */
static size_t proc_name(const dfs_run *run, const oev *e, char *buf, size_t cap)
{
    size_t hn = 0;
    const char *host = e->host ? dfs_str_get(run, e->host, &hn) : "unknown";
    if (!e->host)
        hn = strlen(host);
    int n = snprintf(buf, cap, "app#%.*s#%" PRId64 "#%" PRId64, (int)(hn < 128 ? hn : 128), host, e->pid, e->tid);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* The suffix markers of a file name (layered-analysis.md §3.6). */
static uint32_t file_markers(const dfs_overlap *ov, const dfs_run *run, dfs_str fname)
{
    const dfs_post_read *pr = &ov->raw_preset.post_read;
    size_t n;
    const char *path = dfs_str_get(run, fname, &n);
    uint32_t bits = 0;
    for (size_t i = 0; i < pr->nsuffixes; i++)
        if (contains(path, n, pr->suffixes[i].marker))
            bits |= 1u << i;
    return bits;
}

/* When only its suffix markers matter, every file name stands for the first one with the same
 * markers: the classifier's memo then holds a few keys per (cat, name) instead of one per file. */
static dfs_str canonical_file(wstate *w, const dfs_run *run, dfs_str fname)
{
    if (!fname || !w->ov->canon_files)
        return fname;
    if (fname == w->last_fname)
        return w->last_canon;
    uint32_t canon;
    if (!dfs_keymap_get(&w->canon, &fname, &canon)) {
        uint32_t bits = file_markers(w->ov, run, fname);
        canon = fname;
        for (size_t i = 0; i < w->canon_bits.n; i += 2)
            if (w->canon_bits.v[i] == bits)
                canon = w->canon_bits.v[i + 1];
        bool fresh;
        if (canon == fname && (!dfs_vec_push(&w->canon_bits, bits) || !dfs_vec_push(&w->canon_bits, fname)))
            w->failed = true;
        if (!dfs_keymap_get_or_put(&w->canon, &fname, canon, &canon, &fresh))
            w->failed = true;
    }
    w->last_fname = fname;
    w->last_canon = canon;
    return canon;
}

static bool classify(wstate *w, const dfs_run *run, const oev *e, uint32_t thread, dfs_pr_event *pe)
{
    dfs_pr_input in = {.cat = e->cat, .name = e->name, .fname = canonical_file(w, run, e->fname), .host = e->host,
                       .pid = e->pid, .tid = e->tid, .has_size_sum = e->has_size_sum};
    char buf[256];
    if (w->ov->plan.columns & DFS_PRED_COL_BIT(DFS_PRED_PROC_NAME)) {
        in.proc_name = buf;
        in.proc_name_len = proc_name(run, e, buf, sizeof buf);
        in.proc_id = thread + 1;
    }
    if (!dfs_postread_classify(w->cls, run, &in, pe)) { /* memoised there */
        w->failed = true;
        return false;
    }
    return true;
}

/* Classification and every accumulation of one event whose file name is settled. */
static void analyse(wstate *w, const dfs_run *run, oev *e)
{
    dfs_overlap *ov = w->ov;
    scope *t = ov->need_threads ? unit_of(w, e, true) : NULL;
    if (ov->need_threads && !t)
        return;
    uint32_t ti = t ? (uint32_t)(t - w->threads.v) : 0;
    dfs_pr_event pe;
    if (!classify(w, run, e, ti, &pe))
        return;
    if (ov->opt.post_read && (pe.dropped_file || pe.dropped_func)) {
        w->dropped_files += pe.dropped_file;
        w->dropped_functions += !pe.dropped_file;
        return;
    }
    unsigned marks;
    uint64_t cm = classes_of(ov, pe.layers, &marks);
    scope *p = unit_of(w, e, false);
    if (!p)
        return;
    unit_add(w, p, false, cm, e);
    for (unsigned k = 0; k < NMARKS && ov->exact; k++)
        if (marks >> k & 1)
            add_marker(w, p, k, e);
    if (t)
        unit_add(w, t, true, cm, e);
    if (!cm)
        return;
    if (ov->exact) {
        if (ov->want_global)
            global_add(w, cm, e);
    } else if (ov->opt.method == DFS_OVERLAP_APPROXIMATE)
        approx_add(w, ti, cm, e);
    else
        g0_add(w, cm, e);
    if (cm & (UINT64_C(1) << DFS_OVC_COMPUTE))
        set_add_cached(w, &w->ctids, e->tid, &w->last_ctid, &w->have_ctid);
    if (cm & (UINT64_C(1) << DFS_OVC_IO)) {
        set_add_cached(w, &w->itids, e->tid, &w->last_itid, &w->have_itid);
        function_add(w, run, e);
    }
}

/* ===== reading =================================================================================== */

static void to_oev(const dfs_event *ev, const dfs_file_clock *clk, int64_t dur, oev *e)
{
    int64_t ts = dfs_clock_apply(clk, ev->ts);
    /* field by field: a memset of the whole record costs more than the copies (per event) */
    *e = (oev){.ts = ts, .end = sat_add(ts, dfs_clock_scale(clk, dur)), .fhash = ev->fhash, .hhash = ev->hhash,
               .offset = ev->offset, .pid = ev->pid, .tid = ev->tid, .cat = ev->cat, .name = ev->name,
               .fname = ev->fname, .host = ev->host, .pid_str = ev->pid_str, .tid_str = ev->tid_str,
               .file = ev->file};
    read_args(e, ev);
}

/* Allocation and dataset counts (overlap.md §2.4) on every complete event. */
static void raw_stats(wstate *w, const oev *e)
{
    w->events++;
    w->have_time = true;
    w->min_ts = min64(w->min_ts, e->ts);
    w->max_end = max64(w->max_end, e->end);
    uint64_t file[2] = {e->fhash ? 1 : 2, e->fhash ? e->fhash : e->fname};
    uint64_t host[2] = {e->hhash ? 1 : 2, e->hhash ? e->hhash : e->host};
    if (file[1] && memcmp(file, w->last_file, sizeof file) != 0) {
        set_add(w, &w->files, file);
        memcpy(w->last_file, file, sizeof file);
    }
    if (host[1] && memcmp(host, w->last_host, sizeof host) != 0) {
        set_add(w, &w->hosts, host);
        memcpy(w->last_host, host, sizeof host);
    }
    set_add_cached(w, &w->pids, e->pid, &w->last_pid, &w->have_pid);
}

static void on_event(wstate *w, const dfs_run *run, const dfs_event *ev, const dfs_file_clock *clk,
                     dfs_file_seen *fs)
{
    if (ev->phase == DFS_PHASE_METADATA)
        return;
    if (ev->phase != DFS_PHASE_COMPLETE || !(ev->flags & DFS_EF_HAS_TS) || !(ev->flags & DFS_EF_HAS_DUR)) {
        if (!(ev->flags & DFS_EF_HAS_DUR) && ev->phase != DFS_PHASE_COUNTER)
            w->no_duration++;
        else
            w->other_phases++;
        return;
    }
    int64_t dur = ev->dur;
    if (dur < 0) { /* overlap.md §3.1: a zero-length event, with a warning */
        w->negative++;
        dur = 0;
    } else if (ev->flags & DFS_EF_BAD_TIME) {
        w->bad_time++;
        return;
    }
    oev e;
    to_oev(ev, clk, dur, &e);
    raw_stats(w, &e);
    fs->min_raw = min64(fs->min_raw, ev->ts);
    fs->have = true;
    if (e.fhash && !e.fname && w->ov->needs_fname) { /* defined elsewhere: resolved at the end */
        if (!dfs_vec_push(&w->pending, e))
            w->failed = true;
        return;
    }
    analyse(w, run, &e);
}

static void on_batch(void *state, const dfs_run *run, const dfs_batch *batch)
{
    wstate *w = state;
    if (!w)
        return;
    /* another input: the units of the previous one may be flushed entirely (overlap.h) */
    if (w->have_file && batch->file != w->cur_file)
        stream_ended(w);
    w->have_file = true;
    w->cur_file = batch->file;
    w->in_pieces = batch->in_pieces;
    const dfs_overlap_options *o = &w->ov->opt;
    dfs_file_seen *fs = dfs_clock_track_file(&w->clocks, run, o->clocks, o->nclocks, batch->file);
    if (!fs) {
        w->failed = true;
        return;
    }
    dfs_file_clock clk = fs->clock;
    for (size_t i = 0; i < batch->count; i++)
        on_event(w, run, &batch->events[i], &clk, fs);
}

static void *worker_begin(void *user)
{
    dfs_overlap *ov = user;
    wstate *w = malloc(sizeof *w);
    if (!w)
        return NULL;
    dfs_overlap_wstate_init(w, ov);
    w->cls = dfs_postread_new(&ov->plan);
    if (!w->cls) {
        dfs_overlap_wstate_free(w);
        free(w);
        return NULL;
    }
    return w;
}

/* ===== merging worker states ===================================================================== */

static void merge_counters(scope *d, const scope *s)
{
    d->events += s->events;
    d->start = min64(d->start, s->start);
    d->end = max64(d->end, s->end);
    for (size_t c = 0; c < NCLS; c++) {
        d->sum[c] = sat_add(d->sum[c], s->sum[c]);
        d->count[c] += s->count[c];
    }
    if (!d->host)
        d->host = s->host;
    /* the earliest sighting wins, so late host resolution does not depend on -j */
    if (s->file < d->file || (s->file == d->file && s->offset < d->offset)) {
        d->file = s->file;
        d->offset = s->offset;
    }
}

static bool has_intervals(const scope *s)
{
    return s->eng || s->markers.n;
}

/* Two workers saw the unit: their intervals combine only if neither was flushed (a flushed engine
 * has measured its past without the other's events). Otherwise the pass is not exact. */
static void merge_intervals(wstate *into, scope *d, scope *s)
{
    if ((d->wm != INT64_MIN && has_intervals(s)) || (s->wm != INT64_MIN && has_intervals(d)))
        into->conflict = true;
    if (!d->eng) { /* the engine moves with its snapshots (d had none without an engine) */
        d->eng = s->eng;
        s->eng = NULL;
        d->wm = max64(d->wm, s->wm);
        i64_vec snaps = d->snaps;
        d->snaps = s->snaps;
        s->snaps = snaps;
    } else if (s->eng && !into->conflict && !dfs_ovl_merge(d->eng, s->eng)) {
        into->failed = true;
    }
    for (size_t i = 0; i < s->markers.n; i++)
        if (!dfs_vec_push(&d->markers, s->markers.v[i]))
            into->failed = true;
    for (size_t i = 0; i < s->bounds.n; i++)
        if (!dfs_vec_push(&d->bounds, s->bounds.v[i]))
            into->failed = true;
    d->missed |= s->missed;
}

/* Moves the units of `from` into `into`; map[i] = into's index of from's unit i. */
static bool merge_units(wstate *into, wstate *from, bool thread, uint32_t *map)
{
    scope_vec *src = thread ? &from->threads : &from->procs;
    scope_vec *dst = thread ? &into->threads : &into->procs;
    dfs_keymap *km = thread ? &into->tmap : &into->pmap;
    for (size_t i = 0; i < src->n; i++) {
        scope *s = &src->v[i];
        bool fresh;
        if (!dfs_keymap_get_or_put(km, &s->key, (uint32_t)dst->n, &map[i], &fresh) ||
            (fresh && !dfs_vec_reserve(dst, 1)))
            return false;
        if (fresh) {
            dst->v[dst->n++] = *s;
            s->eng = NULL; /* ownership moved */
            memset(&s->markers, 0, sizeof s->markers);
            memset(&s->bounds, 0, sizeof s->bounds);
            memset(&s->snaps, 0, sizeof s->snaps);
        } else {
            scope *d = &dst->v[map[i]];
            merge_counters(d, s);
            merge_intervals(into, d, s);
        }
        scope *d = &dst->v[map[i]];
        d->active = d->mark.idle = false;
        d->finalized = d->wm == INT64_MAX;
    }
    return true;
}

static void merge_approx(wstate *into, const wstate *from, const uint32_t *tmap)
{
    size_t n = into->ov->nclasses;
    for (size_t i = 0; i < from->akeys.n && !into->failed; i++) {
        approx_key k = from->akeys.v[i];
        k.thread = tmap[k.thread];
        uint32_t idx;
        bool fresh;
        if (!dfs_keymap_get_or_put(&into->amap, &k, (uint32_t)into->akeys.n, &idx, &fresh) ||
            (fresh && (!dfs_vec_push(&into->akeys, k) || !dfs_vec_reserve(&into->asums, n)))) {
            into->failed = true;
            return;
        }
        if (fresh) {
            memset(into->asums.v + into->asums.n, 0, n * sizeof *into->asums.v);
            into->asums.n += n;
        }
        for (size_t c = 0; c < n; c++)
            into->asums.v[(size_t)idx * n + c] =
                sat_add(into->asums.v[(size_t)idx * n + c], from->asums.v[i * n + c]);
    }
}

static void merge_g0(wstate *into, wstate *from)
{
    for (size_t i = 0; i < from->g0.n && !into->failed; i++) {
        uint32_t idx;
        if (dfs_u64map_get(&into->g0map, (uint64_t)from->g0bins.v[i], &idx)) {
            into->failed |= !dfs_ovl_merge(into->g0.v[idx], from->g0.v[i]);
            continue;
        }
        if (!dfs_vec_reserve(&into->g0, 1) || !dfs_vec_reserve(&into->g0bins, 1) ||
            !dfs_u64map_put(&into->g0map, (uint64_t)from->g0bins.v[i], (uint32_t)into->g0.n)) {
            into->failed = true;
            return;
        }
        into->g0.v[into->g0.n++] = from->g0.v[i];
        into->g0bins.v[into->g0bins.n++] = from->g0bins.v[i];
        from->g0.v[i] = NULL;
    }
}

#define SWAP(T, a, b) \
    do {               \
        T swap_ = (a); \
        (a) = (b);     \
        (b) = swap_;   \
    } while (0)

static void merge_functions(wstate *into, wstate *from)
{
    if (!into->funcs.n && !into->skeys.n) { /* the first state merged: taken over whole */
        SWAP(dfs_keymap, into->fmap, from->fmap);
        SWAP(dfs_keymap, into->smap, from->smap);
        SWAP(func_vec, into->funcs, from->funcs);
        SWAP(size_key_vec, into->skeys, from->skeys);
        SWAP(u64_vec, into->scounts, from->scounts);
        return;
    }
    for (size_t i = 0; i < from->funcs.n && !into->failed; i++) {
        const func_acc *f = &from->funcs.v[i];
        uint32_t idx;
        bool fresh;
        if (!dfs_keymap_get_or_put(&into->fmap, &f->name, (uint32_t)into->funcs.n, &idx, &fresh) ||
            (fresh && !dfs_vec_push(&into->funcs, ((func_acc){.name = f->name})))) {
            into->failed = true;
            return;
        }
        into->funcs.v[idx].count += f->count;
        into->funcs.v[idx].sized += f->sized;
        into->funcs.v[idx].bytes += f->bytes;
    }
    for (size_t i = 0; i < from->skeys.n && !into->failed; i++) {
        uint32_t idx;
        bool fresh;
        if (!dfs_keymap_get_or_put(&into->smap, &from->skeys.v[i], (uint32_t)into->skeys.n, &idx, &fresh) ||
            (fresh && (!dfs_vec_push(&into->skeys, from->skeys.v[i]) || !dfs_vec_push(&into->scounts, 0)))) {
            into->failed = true;
            return;
        }
        into->scounts.v[idx] += from->scounts.v[i];
    }
}

static void merge_set(wstate *into, dfs_keyset *d, dfs_keyset *s)
{
    if (!d->count) { /* taken over whole (key sizes agree: the same set of another state) */
        SWAP(dfs_keyset, *d, *s);
        return;
    }
    const void *k;
    size_t it = 0;
    while ((k = dfs_keyset_next(s, &it)))
        set_add(into, d, k);
}

static void merge_scalars(wstate *into, const wstate *from)
{
    into->events += from->events;
    into->no_duration += from->no_duration;
    into->other_phases += from->other_phases;
    into->bad_time += from->bad_time;
    into->negative += from->negative;
    into->dropped_files += from->dropped_files;
    into->dropped_functions += from->dropped_functions;
    into->flushes += from->flushes;
    into->conflict |= from->conflict;
    into->failed |= from->failed;
    if (from->have_time) {
        into->have_time = true;
        into->min_ts = min64(into->min_ts, from->min_ts);
        into->max_end = max64(into->max_end, from->max_end);
    }
}

static void merge_engines(wstate *into, wstate *from)
{
    if (!into->global) {
        into->global = from->global;
        from->global = NULL;
    } else if (from->global && !dfs_ovl_merge(into->global, from->global)) {
        into->failed = true;
    }
    merge_g0(into, from);
}

void dfs_overlap_merge_state(wstate *into, wstate *from)
{
    merge_scalars(into, from);
    uint32_t *pmap = malloc((from->procs.n + 1) * sizeof *pmap);
    uint32_t *tmap = malloc((from->threads.n + 1) * sizeof *tmap);
    if (!pmap || !tmap || !merge_units(into, from, false, pmap) || !merge_units(into, from, true, tmap))
        into->failed = true;
    else
        merge_approx(into, from, tmap);
    free(pmap);
    free(tmap);
    merge_engines(into, from);
    merge_functions(into, from);
    merge_set(into, &into->files, &from->files);
    merge_set(into, &into->hosts, &from->hosts);
    merge_set(into, &into->pids, &from->pids);
    merge_set(into, &into->ctids, &from->ctids);
    merge_set(into, &into->itids, &from->itids);
    into->failed |= !dfs_clock_track_merge(&into->clocks, &from->clocks);
    for (size_t i = 0; i < from->pending.n; i++)
        if (!dfs_vec_push(&into->pending, from->pending.v[i]))
            into->failed = true;
}

static void worker_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    dfs_overlap *ov = user;
    wstate *w = state;
    if (!w) {
        ov->total.failed = true;
        return;
    }
    dfs_overlap_merge_state(&ov->total, w);
    dfs_overlap_wstate_free(w);
    free(w);
}

/* ===== finishing: checks =========================================================================== */

/* Events whose file hash was defined in another piece or file: resolved now, then analysed. */
static bool analyse_pending(dfs_overlap *ov, const dfs_run *run)
{
    wstate *t = &ov->total;
    if (!t->pending.n)
        return true;
    if (!t->cls && !(t->cls = dfs_postread_new(&ov->plan)))
        return false;
    t->have_last_proc = t->have_last_thread = false;
    for (size_t i = 0; i < t->pending.n && !t->failed; i++) {
        oev e = t->pending.v[i];
        e.fname = dfs_run_resolve_hash(run, DFS_HASH_FILE, e.file, e.offset, e.fhash);
        analyse(t, run, &e);
    }
    dfs_vec_free(&t->pending);
    return !t->failed;
}

/* Did a file's clock change after its events were read? Also the true origin under every file's
 * final clock, for a second pass. */
static bool clocks_moved(const dfs_overlap *ov, const dfs_run *run, int64_t *origin)
{
    bool have;
    int64_t o = 0;
    bool moved = dfs_clock_track_settle(&ov->total.clocks, run, ov->opt.clocks, ov->opt.nclocks, dfs_clock_apply, &o,
                                        &have);
    if (have)
        *origin = o;
    return moved;
}

/* Did a streaming assumption fail in some unit (overlap.h)? */
static const char *order_problem(const wstate *t)
{
    if (t->conflict)
        return "a process was flushed in one input stream and also seen in another";
    const scope_vec *vecs[2] = {&t->procs, &t->threads};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < vecs[k]->n; i++) {
            const scope *s = &vecs[k]->v[i];
            if (s->missed)
                return "an epoch or step started before the streaming watermark";
            if (dfs_ovl_late_events(s->eng))
                return "events arrived behind the streaming watermark";
        }
    return NULL;
}

static void finalize_all(wstate *t)
{
    scope_vec *vecs[2] = {&t->procs, &t->threads};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < vecs[k]->n; i++)
            finalize_scope(t, &vecs[k]->v[i]);
    if (t->global && !dfs_ovl_finish(t->global))
        t->failed = true;
    for (size_t i = 0; i < t->g0.n; i++)
        if (!dfs_ovl_finish(t->g0.v[i]))
            t->failed = true;
}

static void ask_rerun(dfs_overlap *ov, const char *reason, bool no_streaming)
{
    if (!ov->rerun)
        ov->rerun_info.reason = reason;
    ov->rerun = true;
    ov->rerun_info.no_streaming |= no_streaming;
}

/* Decides whether this pass holds; *shift converts the engines' provisional bin numbers. */
static void check_pass(dfs_overlap *ov, const dfs_run *run, int64_t *shift)
{
    wstate *t = &ov->total;
    ov->rerun_info.origin_ns = t->have_time ? t->min_ts : ov->opt.origin_ns;
    ov->rerun_info.no_streaming = ov->opt.no_streaming;
    *shift = 0;
    if (ov->need_bins && t->have_time) {
        __int128 d = (__int128)ov->opt.origin_ns - t->min_ts, g = ov->opt.granularity_ns;
        if (d % g != 0 || d / g > INT32_MAX || d / g < INT32_MIN)
            ask_rerun(ov, "the time origin differs from the preview's", false);
        else
            *shift = (int64_t)(d / g);
    }
    int64_t origin = ov->rerun_info.origin_ns;
    if (clocks_moved(ov, run, &origin)) { /* includes batches of one file with different clocks */
        ov->rerun_info.origin_ns = origin;
        ask_rerun(ov, "a file's clock became known only at its end", false);
    }
    const char *why = ov->opt.no_streaming ? NULL : order_problem(t);
    if (why)
        ask_rerun(ov, why, true);
}

/* ===== finishing: values ============================================================================ */

static bool values_init(dfs_overlap *ov, dfs_overlap_values *v)
{
    memset(v, 0, sizeof *v);
    v->start = INT64_MAX;
    v->end = INT64_MIN;
    v->cls = dfs_arena_alloc(&ov->mem, ov->nclasses * sizeof *v->cls);
    if (!v->cls)
        return false;
    memset(v->cls, 0, ov->nclasses * sizeof *v->cls);
    return true;
}

static void set_span(dfs_overlap_values *v, int64_t start, int64_t end)
{
    v->start = start;
    v->end = end;
    v->total_time = end > start ? sat_sub(end, start) : 0;
}

/* Exact class values from measures: |X|, |X ∩ C| and |C|. */
static void exact_class(dfs_overlap_class_values *cv, size_t c, int64_t measure, int64_t with, int64_t cmeasure)
{
    bool is_c = c == DFS_OVC_COMPUTE;
    cv->time = measure;
    cv->with_compute = is_c ? measure : with;
    cv->unoverlapped = is_c ? 0 : measure - with;
    cv->compute_unoverlapped = is_c ? 0 : cmeasure - with;
}

static void class_add(dfs_overlap_class_values *d, const dfs_overlap_class_values *s)
{
    d->time = sat_add(d->time, s->time);
    d->with_compute = sat_add(d->with_compute, s->with_compute);
    d->unoverlapped = sat_add(d->unoverlapped, s->unoverlapped);
    d->compute_unoverlapped = sat_add(d->compute_unoverlapped, s->compute_unoverlapped);
    d->sum_dur = sat_add(d->sum_dur, s->sum_dur);
    d->events += s->events;
}

static void values_add(const dfs_overlap *ov, dfs_overlap_values *d, const dfs_overlap_values *s)
{
    d->start = min64(d->start, s->start);
    d->end = max64(d->end, s->end);
    d->total_time = sat_add(d->total_time, s->total_time);
    d->events += s->events;
    for (size_t c = 0; c < ov->nclasses; c++)
        class_add(&d->cls[c], &s->cls[c]);
}

/* Measures of a unit engine (overlap of c with C from |c| + |C| − |c ∪ C|) into class values. */
static void union_values(const dfs_overlap *ov, const dfs_ovl_measure *const *m, dfs_overlap_class_values *cls)
{
    int64_t cm = m[DFS_OVC_COMPUTE]->measure;
    for (size_t c = 0; c < ov->nclasses; c++)
        exact_class(&cls[c], c, m[c]->measure, union_with(ov, m, c), cm);
}

static void engine_values(const dfs_overlap *ov, const dfs_ovl *eng, dfs_overlap_values *v)
{
    const dfs_ovl_measure *m[2 * NCLS];
    if (!eng)
        return;
    engine_measures(ov, eng, m);
    union_values(ov, m, v->cls);
}

static void counters_values(const dfs_overlap *ov, const scope *s, dfs_overlap_values *v)
{
    set_span(v, s->start, s->end);
    v->events = s->events;
    for (size_t c = 0; c < ov->nclasses; c++) {
        v->cls[c].sum_dur = s->sum[c];
        v->cls[c].events = s->count[c];
    }
}

/* ----- unit names ----- */

static const char *host_text(dfs_overlap *ov, const dfs_run *run, const scope *s)
{
    dfs_str h = s->host;
    if (!h && s->key.hhash)
        h = dfs_run_resolve_hash(run, DFS_HASH_HOST, s->file, s->offset, s->key.hhash);
    if (!h && s->key.host)
        h = s->key.host;
    char buf[32];
    size_t n;
    if (h) {
        const char *t = dfs_str_get(run, h, &n);
        return dfs_arena_strdup(&ov->mem, t, n);
    }
    if (s->key.hhash) {
        snprintf(buf, sizeof buf, "%016" PRIx64, s->key.hhash);
        return dfs_arena_strdup(&ov->mem, buf, strlen(buf));
    }
    return "unknown";
}

static const char *id_text(dfs_overlap *ov, const dfs_run *run, dfs_str str, int64_t id)
{
    char buf[32];
    size_t n;
    if (str) {
        const char *t = dfs_str_get(run, str, &n);
        return dfs_arena_strdup(&ov->mem, t, n);
    }
    snprintf(buf, sizeof buf, "%" PRId64, id);
    return dfs_arena_strdup(&ov->mem, buf, strlen(buf));
}

static bool unit_init(dfs_overlap *ov, const dfs_run *run, const scope *s, bool thread, dfs_overlap_unit *u)
{
    memset(u, 0, sizeof *u);
    if (!values_init(ov, &u->v))
        return false;
    counters_values(ov, s, &u->v);
    u->host = host_text(ov, run, s);
    u->pid = id_text(ov, run, s->pid_str, s->key.pid);
    u->tid = thread ? id_text(ov, run, s->tid_str, s->key.tid) : NULL;
    if (!u->host || !u->pid || (thread && !u->tid))
        return false;
    size_t n = strlen(u->host) + strlen(u->pid) + (thread ? strlen(u->tid) : 0) + 3;
    char *key = dfs_arena_alloc(&ov->mem, n);
    if (!key)
        return false;
    if (thread)
        snprintf(key, n, "%s:%s:%s", u->host, u->pid, u->tid);
    else
        snprintf(key, n, "%s:%s", u->host, u->pid);
    u->key = key;
    return true;
}

static dfs_overlap_unit *make_units(dfs_overlap *ov, const dfs_run *run, const scope_vec *v, bool thread)
{
    dfs_overlap_unit *u = dfs_arena_alloc(&ov->mem, (v->n + 1) * sizeof *u);
    for (size_t i = 0; u && i < v->n; i++) {
        if (!unit_init(ov, run, &v->v[i], thread, &u[i]))
            return NULL;
        if (ov->exact)
            engine_values(ov, v->v[i].eng, &u[i].v);
    }
    return u;
}

/* ----- bins ----- */

typedef struct bin_acc {
    dfs_u64map index;
    DFS_VEC(dfs_overlap_bin) v;
    bool failed;
} bin_acc;

static dfs_overlap_values *bin_values(dfs_overlap *ov, bin_acc *b, int64_t index)
{
    uint32_t slot;
    if (dfs_u64map_get(&b->index, (uint64_t)index, &slot))
        return &b->v.v[slot].v;
    dfs_overlap_bin nb = {.index = index};
    if (!values_init(ov, &nb.v) || !dfs_u64map_put(&b->index, (uint64_t)index, (uint32_t)b->v.n) ||
        !dfs_vec_push(&b->v, nb)) {
        b->failed = true;
        return NULL;
    }
    return &b->v.v[b->v.n - 1].v;
}

/* The binned measures of a unit's engine added to the bins. */
static void engine_bins(dfs_overlap *ov, const dfs_ovl *eng, int64_t shift, bin_acc *b)
{
    for (size_t i = 0; eng && i < dfs_ovl_nbins(eng); i++) {
        dfs_overlap_values *v = bin_values(ov, b, dfs_ovl_bin_index(eng, i) + shift);
        if (!v)
            return;
        const dfs_ovl_measure *m[2 * NCLS];
        dfs_overlap_class_values cls[NCLS];
        for (size_t c = 0; c < 2 * ov->nclasses - 1; c++)
            m[c] = dfs_ovl_bin(eng, i, (unsigned)c);
        memset(cls, 0, sizeof cls);
        union_values(ov, m, cls);
        for (size_t c = 0; c < ov->nclasses; c++) {
            cls[c].sum_dur = m[c]->sum_dur;
            cls[c].events = m[c]->count;
            class_add(&v->cls[c], &cls[c]);
        }
    }
}

static int cmp_bin(const void *a, const void *b)
{
    int64_t x = ((const dfs_overlap_bin *)a)->index, y = ((const dfs_overlap_bin *)b)->index;
    return (x > y) - (x < y);
}

/* Sorted bins into the result; each bin's span is its interval clipped to the run. */
static bool bins_finish(dfs_overlap *ov, bin_acc *b)
{
    dfs_overlap_result *r = &ov->result;
    if (b->failed)
        return false;
    if (b->v.n)
        qsort(b->v.v, b->v.n, sizeof *b->v.v, cmp_bin);
    for (size_t i = 0; i < b->v.n; i++) {
        dfs_overlap_bin *bin = &b->v.v[i];
        int64_t lo = sat_add(r->origin_ns, (int64_t)((__int128)bin->index * ov->opt.granularity_ns));
        int64_t hi = sat_add(lo, ov->opt.granularity_ns);
        set_span(&bin->v, max64(lo, ov->total.min_ts), min64(hi, ov->total.max_end));
    }
    dfs_overlap_bin *copy = dfs_arena_alloc(&ov->mem, (b->v.n + 1) * sizeof *copy);
    if (!copy)
        return false;
    if (b->v.n)
        memcpy(copy, b->v.v, b->v.n * sizeof *copy);
    r->bins = copy;
    r->nbins = b->v.n;
    return true;
}

static bool exact_bins(dfs_overlap *ov, int64_t shift)
{
    bin_acc b = {0};
    dfs_u64map_init(&b.index);
    const wstate *t = &ov->total;
    if (ov->opt.scope == DFS_OVERLAP_GLOBAL) {
        engine_bins(ov, t->global, shift, &b);
    } else {
        const scope_vec *v = ov->opt.scope == DFS_OVERLAP_THREAD ? &t->threads : &t->procs;
        for (size_t i = 0; i < v->n; i++)
            engine_bins(ov, v->v[i].eng, shift, &b);
    }
    bool ok = bins_finish(ov, &b);
    dfs_u64map_free(&b.index);
    dfs_vec_free(&b.v);
    return ok;
}

/* ----- approximate (G0, overlap.md §2.2) ----- */

static void approx_contrib(size_t n, dfs_overlap_class_values *cls, const int64_t *x)
{
    for (size_t c = 0; c < n; c++) {
        cls[c].time = sat_add(cls[c].time, x[c]);
        if (c == DFS_OVC_COMPUTE) {
            cls[c].with_compute = sat_add(cls[c].with_compute, x[c]);
            continue;
        }
        int64_t un = max64(x[c] - x[0], 0), cun = max64(x[0] - x[c], 0);
        cls[c].unoverlapped = sat_add(cls[c].unoverlapped, un);
        cls[c].compute_unoverlapped = sat_add(cls[c].compute_unoverlapped, cun);
        cls[c].with_compute = sat_add(cls[c].with_compute, x[c] - un);
    }
}

static void max_into(size_t n, int64_t *m, const int64_t *x)
{
    for (size_t c = 0; c < n; c++)
        m[c] = max64(m[c], x[c]);
}

typedef struct aentry {
    int64_t bin;
    uint32_t proc, thread, entry;
} aentry;

static int cmp_aentry(const void *a, const void *b)
{
    const aentry *x = a, *y = b;
    if (x->bin != y->bin)
        return x->bin < y->bin ? -1 : 1;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

static aentry *approx_entries(const dfs_overlap *ov)
{
    const wstate *t = &ov->total;
    aentry *e = malloc((t->akeys.n + 1) * sizeof *e);
    for (size_t i = 0; e && i < t->akeys.n; i++) {
        const scope *th = &t->threads.v[t->akeys.v[i].thread];
        unit_key k = th->key;
        k.tid = 0;
        uint32_t p = UINT32_MAX;
        dfs_keymap_get(&t->pmap, &k, &p);
        e[i] = (aentry){.bin = t->akeys.v[i].bin, .proc = p, .thread = t->akeys.v[i].thread, .entry = (uint32_t)i};
    }
    if (e)
        qsort(e, t->akeys.n, sizeof *e, cmp_aentry);
    return e;
}

/* One bin: the units' busiest-thread values, the global one, and the bin's row (the summary's
 * scope). Entries [a, b) are this bin's, by process. */
static void approx_bin(dfs_overlap *ov, const aentry *e, size_t a, size_t b, dfs_overlap_unit *pu,
                       dfs_overlap_unit *tu, dfs_overlap_values *row)
{
    size_t n = ov->nclasses;
    const int64_t *sums = ov->total.asums.v;
    int64_t gmax[NCLS] = {0}, pmax[NCLS];
    dfs_overlap_result *r = &ov->result;
    for (size_t i = a; i < b;) {
        memset(pmax, 0, sizeof pmax);
        size_t j = i;
        for (; j < b && e[j].proc == e[i].proc; j++) {
            const int64_t *x = sums + (size_t)e[j].entry * n;
            max_into(n, pmax, x);
            r->max_bin_thread_io = max64(r->max_bin_thread_io, x[DFS_OVC_IO]);
            for (size_t c = 0; row && c < n; c++)
                row->cls[c].sum_dur = sat_add(row->cls[c].sum_dur, x[c]);
            if (tu)
                approx_contrib(n, tu[e[j].thread].v.cls, x);
            if (tu && row && ov->opt.scope == DFS_OVERLAP_THREAD)
                approx_contrib(n, row->cls, x);
        }
        if (e[i].proc != UINT32_MAX)
            approx_contrib(n, pu[e[i].proc].v.cls, pmax);
        if (row && ov->opt.scope == DFS_OVERLAP_PROCESS)
            approx_contrib(n, row->cls, pmax);
        max_into(n, gmax, pmax);
        i = j;
    }
    approx_contrib(n, r->global.cls, gmax);
    if (row && ov->opt.scope == DFS_OVERLAP_GLOBAL)
        approx_contrib(n, row->cls, gmax);
}

static bool approx_fill(dfs_overlap *ov, int64_t shift, dfs_overlap_unit *pu, dfs_overlap_unit *tu)
{
    const wstate *t = &ov->total;
    aentry *e = approx_entries(ov);
    bin_acc b = {0};
    dfs_u64map_init(&b.index);
    bool ok = e != NULL;
    for (size_t i = 0; ok && i < t->akeys.n;) {
        size_t j = i;
        while (j < t->akeys.n && e[j].bin == e[i].bin)
            j++;
        dfs_overlap_values *row = bin_values(ov, &b, e[i].bin + shift);
        ok = row != NULL;
        if (ok)
            approx_bin(ov, e, i, j, pu, tu, row);
        i = j;
    }
    free(e);
    ok = ok && bins_finish(ov, &b);
    dfs_u64map_free(&b.index);
    dfs_vec_free(&b.v);
    dfs_overlap_result *r = &ov->result;
    if (r->max_bin_thread_io > ov->opt.granularity_ns) { /* 2m in whole seconds, rounded up */
        int64_t s = (int64_t)(((__int128)2 * r->max_bin_thread_io + 999999999) / 1000000000);
        r->suggested_granularity_ns = (int64_t)((__int128)s * 1000000000 > INT64_MAX ? INT64_MAX : s * 1000000000);
    }
    return ok;
}

/* ----- G0 exact (§2.3): per start bin, unclipped unions over all processes ----- */

static bool g0_fill(dfs_overlap *ov, int64_t shift)
{
    const wstate *t = &ov->total;
    bin_acc b = {0};
    dfs_u64map_init(&b.index);
    bool ok = true;
    for (size_t i = 0; ok && i < t->g0.n; i++) {
        dfs_overlap_values *row = bin_values(ov, &b, t->g0bins.v[i] + shift);
        ok = row != NULL;
        if (!ok)
            break;
        engine_values(ov, t->g0.v[i], row);
        for (size_t c = 0; c < ov->nclasses; c++) {
            const dfs_ovl_measure *m = dfs_ovl_total(t->g0.v[i], (unsigned)c);
            row->cls[c].sum_dur = m->sum_dur;
            row->cls[c].events = m->count;
            class_add(&ov->result.global.cls[c], &row->cls[c]);
        }
    }
    ok = ok && bins_finish(ov, &b);
    dfs_u64map_free(&b.index);
    dfs_vec_free(&b.v);
    return ok;
}

/* ----- epochs and steps ----- */

static int cmp_marker(const void *a, const void *b)
{
    const marker *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return (x->e > y->e) - (x->e < y->e);
}

static const char *label_text(dfs_overlap *ov, const dfs_run *run, const label *l, size_t ordinal)
{
    char buf[32];
    size_t n;
    if (l->kind == 2) {
        const char *t = dfs_str_get(run, l->s, &n);
        return dfs_arena_strdup(&ov->mem, t, n);
    }
    if (l->kind == 1)
        snprintf(buf, sizeof buf, "%" PRId64, l->i);
    else
        snprintf(buf, sizeof buf, "%zu", ordinal);
    return dfs_arena_strdup(&ov->mem, buf, strlen(buf));
}

/* A segment's values: the differences of the snapshots at its ends (overlap.h). */
static void segment_values(const dfs_overlap *ov, const scope *s, const marker *m, dfs_overlap_values *v)
{
    set_span(v, m->s, m->e);
    const int64_t *a = s->eng ? snap_at(ov, s, m->s) : NULL, *b = s->eng ? snap_at(ov, s, m->e) : NULL;
    if (!a || !b)
        return; /* no class event in the unit (or a pass that is read again) */
    int64_t cm = b[1] - a[1];
    for (size_t c = 0; c < ov->nclasses; c++)
        exact_class(&v->cls[c], c, b[1 + 2 * c] - a[1 + 2 * c], b[2 + 2 * c] - a[2 + 2 * c], cm);
}

/* The unit's epochs and steps, in time order. */
static bool unit_segments(dfs_overlap *ov, const dfs_run *run, scope *s, dfs_overlap_unit *u)
{
    if (!s->markers.n)
        return true;
    qsort(s->markers.v, s->markers.n, sizeof *s->markers.v, cmp_marker);
    dfs_overlap_segment *seg = dfs_arena_alloc(&ov->mem, s->markers.n * sizeof *seg);
    if (!seg)
        return false;
    size_t ordinal[NMARKS] = {0};
    for (size_t i = 0; i < s->markers.n; i++) {
        const marker *m = &s->markers.v[i];
        memset(&seg[i], 0, sizeof seg[i]);
        seg[i].units = 1;
        seg[i].label = label_text(ov, run, &m->lab, ++ordinal[m->kind]);
        if (!seg[i].label || !values_init(ov, &seg[i].v))
            return false;
        segment_values(ov, s, m, &seg[i].v);
    }
    u->epochs = seg;
    u->nepochs = ordinal[MARK_EPOCH];
    u->steps = seg + ordinal[MARK_EPOCH];
    u->nsteps = ordinal[MARK_STEP];
    return true;
}

typedef struct seg_ref {
    const dfs_overlap_segment *seg;
} seg_ref;

static int cmp_seg_label(const void *a, const void *b)
{
    const dfs_overlap_segment *x = ((const seg_ref *)a)->seg, *y = ((const seg_ref *)b)->seg;
    int c = strcmp(x->label, y->label);
    return c ? c : (x->v.start > y->v.start) - (x->v.start < y->v.start);
}

static int cmp_seg_start(const void *a, const void *b)
{
    const dfs_overlap_segment *x = a, *y = b;
    if (x->v.start != y->v.start)
        return x->v.start < y->v.start ? -1 : 1;
    return strcmp(x->label, y->label);
}

/* Totals over processes of the segments with the same label, ordered by their first start. */
static bool segment_totals(dfs_overlap *ov, const dfs_overlap_unit *u, size_t nu, bool steps,
                           const dfs_overlap_segment **out, size_t *nout)
{
    size_t n = 0;
    for (size_t i = 0; i < nu; i++)
        n += steps ? u[i].nsteps : u[i].nepochs;
    seg_ref *refs = malloc((n + 1) * sizeof *refs);
    dfs_overlap_segment *tot = dfs_arena_alloc(&ov->mem, (n + 1) * sizeof *tot);
    if (!refs || !tot) {
        free(refs);
        return false;
    }
    size_t k = 0;
    for (size_t i = 0; i < nu; i++)
        for (size_t j = 0; j < (steps ? u[i].nsteps : u[i].nepochs); j++)
            refs[k++].seg = steps ? &u[i].steps[j] : &u[i].epochs[j];
    qsort(refs, n, sizeof *refs, cmp_seg_label);
    size_t m = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        const dfs_overlap_segment *s = refs[i].seg;
        if (!m || strcmp(tot[m - 1].label, s->label) != 0) {
            memset(&tot[m], 0, sizeof tot[m]);
            tot[m].label = s->label;
            ok = values_init(ov, &tot[m++].v);
        }
        if (ok) {
            values_add(ov, &tot[m - 1].v, &s->v);
            tot[m - 1].units++;
        }
    }
    free(refs);
    for (size_t i = 0; i < m; i++)
        tot[i].v.total_time = sat_sub(tot[i].v.end, tot[i].v.start);
    qsort(tot, m, sizeof *tot, cmp_seg_start);
    *out = tot;
    *nout = m;
    return ok;
}

/* ----- I/O functions ----- */

typedef struct size_count {
    dfs_str name;
    uint64_t size, count;
} size_count;

static int cmp_size_count(const void *a, const void *b)
{
    const size_count *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return (x->size > y->size) - (x->size < y->size);
}

/* The value at 0-based rank r of sizes [a, b) sorted with multiplicities. */
static double size_at_rank(const size_count *v, size_t a, size_t b, uint64_t r)
{
    for (size_t i = a; i < b; i++) {
        if (r < v[i].count)
            return (double)v[i].size;
        r -= v[i].count;
    }
    return b > a ? (double)v[b - 1].size : NAN;
}

/* Linear interpolation between the order statistics, as pandas' quantile does. */
static double quantile(const size_count *v, size_t a, size_t b, uint64_t n, double p)
{
    double pos = p * (double)(n - 1);
    uint64_t k = (uint64_t)pos;
    double frac = pos - (double)k, lo = size_at_rank(v, a, b, k);
    if (frac == 0 || k + 1 >= n)
        return lo;
    return lo + frac * (size_at_rank(v, a, b, k + 1) - lo);
}

static int cmp_function(const void *a, const void *b)
{
    return strcmp(((const dfs_overlap_function *)a)->name, ((const dfs_overlap_function *)b)->name);
}

/* The run of sc (sorted by name, then size) that holds the sizes of `name`: [*lo, *hi). */
static void size_run(const size_count *sc, size_t n, dfs_str name, size_t *lo, size_t *hi)
{
    size_t a = 0, b = n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (sc[mid].name < name)
            a = mid + 1;
        else
            b = mid;
    }
    for (b = a; b < n && sc[b].name == name;)
        b++;
    *lo = a;
    *hi = b;
}

static bool fill_function(dfs_overlap *ov, const dfs_run *run, const func_acc *a, const size_count *sc, size_t n,
                          dfs_overlap_function *f)
{
    size_t len, lo, hi;
    const char *name = dfs_str_get(run, a->name, &len);
    *f = (dfs_overlap_function){.count = a->count, .sized = a->sized,
                                .bytes = a->bytes > UINT64_MAX ? UINT64_MAX : (uint64_t)a->bytes};
    f->name = dfs_arena_strdup(&ov->mem, name, len);
    if (!f->name)
        return false;
    const char *dot = strrchr(f->name, '.');
    f->short_name = dot ? dot + 1 : f->name;
    size_run(sc, n, a->name, &lo, &hi);
    bool any = a->sized > 0 && hi > lo;
    f->min = any ? (double)sc[lo].size : NAN;
    f->max = any ? (double)sc[hi - 1].size : NAN;
    f->mean = any ? (double)a->bytes / (double)a->sized : NAN;
    f->p25 = any ? quantile(sc, lo, hi, a->sized, 0.25) : NAN;
    f->median = any ? quantile(sc, lo, hi, a->sized, 0.5) : NAN;
    f->p75 = any ? quantile(sc, lo, hi, a->sized, 0.75) : NAN;
    return true;
}

static bool function_stats(dfs_overlap *ov, const dfs_run *run)
{
    const wstate *t = &ov->total;
    size_count *sc = malloc((t->skeys.n + 1) * sizeof *sc);
    dfs_overlap_function *f = dfs_arena_alloc(&ov->mem, (t->funcs.n + 1) * sizeof *f);
    if (!sc || !f) {
        free(sc);
        return false;
    }
    for (size_t i = 0; i < t->skeys.n; i++)
        sc[i] = (size_count){t->skeys.v[i].name, t->skeys.v[i].size, t->scounts.v[i]};
    qsort(sc, t->skeys.n, sizeof *sc, cmp_size_count);
    bool ok = true;
    for (size_t i = 0; ok && i < t->funcs.n; i++)
        ok = fill_function(ov, run, &t->funcs.v[i], sc, t->skeys.n, &f[i]);
    free(sc);
    if (!ok)
        return false;
    qsort(f, t->funcs.n, sizeof *f, cmp_function);
    ov->result.functions = f;
    ov->result.nfunctions = t->funcs.n;
    return true;
}

/* ----- summary and order ----- */

static int64_t pick(int64_t a, int64_t b, bool max) { return max ? max64(a, b) : min64(a, b); }

static uint64_t pick_u(uint64_t a, uint64_t b, bool max) { return max ? (a > b ? a : b) : (a < b ? a : b); }

/* Field by field maximum or minimum (the first unit initialises). */
static void values_extreme(const dfs_overlap *ov, dfs_overlap_values *d, const dfs_overlap_values *s, bool max,
                           bool first)
{
    d->total_time = first ? s->total_time : pick(d->total_time, s->total_time, max);
    d->events = first ? s->events : pick_u(d->events, s->events, max);
    for (size_t c = 0; c < ov->nclasses; c++) {
        dfs_overlap_class_values *x = &d->cls[c];
        const dfs_overlap_class_values *y = &s->cls[c];
        if (first) {
            *x = *y;
            continue;
        }
        x->time = pick(x->time, y->time, max);
        x->with_compute = pick(x->with_compute, y->with_compute, max);
        x->unoverlapped = pick(x->unoverlapped, y->unoverlapped, max);
        x->compute_unoverlapped = pick(x->compute_unoverlapped, y->compute_unoverlapped, max);
        x->sum_dur = pick(x->sum_dur, y->sum_dur, max);
        x->events = pick_u(x->events, y->events, max);
    }
}

static void values_copy(const dfs_overlap *ov, dfs_overlap_values *d, const dfs_overlap_values *s)
{
    dfs_overlap_class_values *cls = d->cls;
    *d = *s;
    d->cls = cls;
    memcpy(cls, s->cls, ov->nclasses * sizeof *cls);
}

static void summarise(dfs_overlap *ov, const dfs_overlap_unit *u, size_t n)
{
    dfs_overlap_result *r = &ov->result;
    if (ov->result.scope == DFS_OVERLAP_GLOBAL) {
        values_copy(ov, &r->summary, &r->global);
        values_copy(ov, &r->max, &r->global);
        values_copy(ov, &r->min, &r->global);
        r->summary_units = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        values_add(ov, &r->summary, &u[i].v);
        values_extreme(ov, &r->max, &u[i].v, true, i == 0);
        values_extreme(ov, &r->min, &u[i].v, false, i == 0);
    }
    r->summary_units = n;
    set_span(&r->summary, r->global.start, r->global.end); /* the run's span, not a sum */
    r->max.start = r->min.start = r->global.start;
    r->max.end = r->min.end = r->global.end;
}

/* Numbers as numbers, anything else as text. */
static int cmp_id(const char *a, const char *b)
{
    char *ea, *eb;
    long long x = strtoll(a, &ea, 10), y = strtoll(b, &eb, 10);
    if (*a && *b && !*ea && !*eb && x != y)
        return x < y ? -1 : 1;
    return strcmp(a, b);
}

static int cmp_unit(const void *a, const void *b)
{
    const dfs_overlap_unit *x = a, *y = b;
    int c = strcmp(x->host, y->host);
    if (!c)
        c = cmp_id(x->pid, y->pid);
    if (!c && x->tid && y->tid)
        c = cmp_id(x->tid, y->tid);
    return c;
}

/* Drops units that kept no event (a thread seen only in dropped events) and sorts the rest. */
static size_t units_final(dfs_overlap_unit *u, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (u[i].v.events)
            u[m++] = u[i];
    qsort(u, m, sizeof *u, cmp_unit);
    return m;
}

/* ===== finishing: the result ======================================================================= */

static void result_header(dfs_overlap *ov)
{
    dfs_overlap_result *r = &ov->result;
    const wstate *t = &ov->total;
    r->method = ov->opt.method;
    r->scope = ov->opt.method == DFS_OVERLAP_G0_EXACT ? DFS_OVERLAP_GLOBAL : ov->opt.scope;
    r->preset = ov->opt.preset;
    r->nclasses = ov->nclasses;
    r->class_names = ov->class_names;
    r->class_texts = ov->class_texts;
    r->epochs_text = ov->mark_texts[MARK_EPOCH];
    r->steps_text = ov->mark_texts[MARK_STEP];
    r->post_read = ov->opt.post_read;
    r->granularity_ns = ov->need_bins ? ov->opt.granularity_ns : 0;
    r->origin_ns = t->have_time ? t->min_ts : 0;
    r->nodes = t->hosts.count;
    r->processes = t->pids.count;
    r->compute_threads = t->ctids.count;
    r->io_threads = t->itids.count;
    r->events = t->events;
    r->files = t->files.count;
    r->no_duration = t->no_duration;
    r->other_phases = t->other_phases;
    r->bad_time = t->bad_time;
    r->negative_durations = t->negative;
    r->dropped_files = t->dropped_files;
    r->dropped_functions = t->dropped_functions;
    r->streamed = !ov->opt.no_streaming && ov->exact;
    r->have_global = ov->want_global;
    r->flushes = t->flushes;
}

/* The global unit's span and counters (Σ over processes). */
static void global_counters(dfs_overlap *ov, const dfs_overlap_unit *pu, size_t np)
{
    dfs_overlap_values *g = &ov->result.global;
    const wstate *t = &ov->total;
    if (t->have_time)
        set_span(g, t->min_ts, t->max_end);
    g->events = t->events;
    for (size_t c = 0; c < ov->nclasses; c++) {
        g->cls[c].sum_dur = 0;
        g->cls[c].events = 0;
        for (size_t i = 0; i < np; i++) {
            g->cls[c].sum_dur = sat_add(g->cls[c].sum_dur, pu[i].v.cls[c].sum_dur);
            g->cls[c].events += pu[i].v.cls[c].events;
        }
    }
}

static bool fill_method(dfs_overlap *ov, const dfs_run *run, int64_t shift, dfs_overlap_unit *pu, dfs_overlap_unit *tu)
{
    wstate *t = &ov->total;
    switch (ov->opt.method) {
    case DFS_OVERLAP_APPROXIMATE:
        return approx_fill(ov, shift, pu, ov->opt.scope == DFS_OVERLAP_THREAD ? tu : NULL);
    case DFS_OVERLAP_G0_EXACT:
        return g0_fill(ov, shift);
    default:
        engine_values(ov, t->global, &ov->result.global);
        for (size_t i = 0; i < t->procs.n; i++)
            if (!unit_segments(ov, run, &t->procs.v[i], &pu[i]))
                return false;
        return !ov->need_bins || exact_bins(ov, shift);
    }
}

static bool build_result(dfs_overlap *ov, const dfs_run *run, int64_t shift)
{
    dfs_overlap_result *r = &ov->result;
    wstate *t = &ov->total;
    result_header(ov);
    if (!values_init(ov, &r->summary) || !values_init(ov, &r->max) || !values_init(ov, &r->min) ||
        !values_init(ov, &r->global))
        return false;
    dfs_overlap_unit *pu = make_units(ov, run, &t->procs, false);
    dfs_overlap_unit *tu = ov->opt.scope == DFS_OVERLAP_THREAD ? make_units(ov, run, &t->threads, true) : NULL;
    if (!pu || (ov->opt.scope == DFS_OVERLAP_THREAD && !tu) || !fill_method(ov, run, shift, pu, tu))
        return false;
    global_counters(ov, pu, t->procs.n);
    size_t np = units_final(pu, t->procs.n), nt = tu ? units_final(tu, t->threads.n) : 0;
    if (ov->opt.method != DFS_OVERLAP_G0_EXACT) {
        r->per_process = pu;
        r->nprocesses = np;
    }
    r->per_thread = tu;
    r->nthreads = nt;
    summarise(ov, r->scope == DFS_OVERLAP_THREAD ? tu : pu, r->scope == DFS_OVERLAP_THREAD ? nt : np);
    if (ov->exact && (!segment_totals(ov, pu, np, false, &r->epochs, &r->nepochs) ||
                      !segment_totals(ov, pu, np, true, &r->steps, &r->nsteps)))
        return false;
    return function_stats(ov, run);
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
                                  .worker_begin = worker_begin,
                                  .on_batch = on_batch,
                                  .worker_end = worker_end};
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

const dfs_overlap_result *dfs_overlap_finish(dfs_overlap *ov, const dfs_run *run)
{
    wstate *t = &ov->total;
    t->no_stream = true;
    if (t->failed || !analyse_pending(ov, run))
        return NULL;
    finalize_all(t);
    if (t->failed)
        return NULL;
    int64_t shift;
    check_pass(ov, run, &shift);
    if (ov->rerun || !build_result(ov, run, shift))
        return NULL;
    return &ov->result;
}

/* ===== distributed runs: the unit census ========================================================= */

/* A unit's identity across ranks: its key with the host as text; threads salted apart. */
static uint64_t unit_id(const dfs_run *run, const unit_key *k, bool thread)
{
    return dfs_unit_hash(run, k->hhash, k->host, k->pid, k->tid) ^ (thread ? UINT64_C(0x5bd1e9955bd1e995) : 0);
}

/* The units a pending event will join when it is analysed on the rank that finishes. */
static bool pending_units(const dfs_overlap *ov, const dfs_run *run, dfs_u64vec *out)
{
    for (size_t i = 0; i < ov->total.pending.n; i++) {
        const oev *e = &ov->total.pending.v[i];
        unit_key p = key_of(e, false), t = key_of(e, true);
        if (!dfs_vec_push(out, unit_id(run, &p, false)) ||
            (ov->need_threads && !dfs_vec_push(out, unit_id(run, &t, true))))
            return false;
    }
    return true;
}

bool dfs_overlap_census(const dfs_overlap *ov, const dfs_run *run, dfs_u64vec *units)
{
    const scope_vec *vecs[2] = {&ov->total.procs, &ov->total.threads};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < vecs[k]->n; i++) {
            const scope *sc = &vecs[k]->v[i];
            if (has_intervals(sc) && !dfs_vec_push(units, unit_id(run, &sc->key, k == 1)))
                return false;
        }
    return pending_units(ov, run, units);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static bool listed(const uint64_t *v, size_t n, uint64_t key)
{
    return n && bsearch(&key, v, n, sizeof *v, cmp_u64) != NULL;
}

bool dfs_overlap_finish_local(dfs_overlap *ov, const dfs_run *run, const uint64_t *shared, size_t nshared)
{
    wstate *t = &ov->total;
    dfs_u64vec waiting = {0};
    bool ok = pending_units(ov, run, &waiting);
    if (ok && waiting.n)
        qsort(waiting.v, waiting.n, sizeof *waiting.v, cmp_u64);
    scope_vec *vecs[2] = {&t->procs, &t->threads};
    for (int k = 0; ok && k < 2; k++)
        for (size_t i = 0; i < vecs[k]->n; i++) {
            scope *sc = &vecs[k]->v[i];
            uint64_t id = unit_id(run, &sc->key, k == 1);
            if (has_intervals(sc) && !listed(shared, nshared, id) && !listed(waiting.v, waiting.n, id))
                finalize_scope(t, sc);
        }
    dfs_vec_free(&waiting);
    return ok && !t->failed;
}

bool dfs_overlap_needs_rerun(const dfs_overlap *ov, dfs_overlap_rerun *out)
{
    if (ov->rerun && out)
        *out = ov->rerun_info;
    return ov->rerun;
}
