/* overlap_events.c - the consumer of an overlap analysis: what a worker does with each batch.
 *
 * An event is reduced to an oev (absolute times under its file's clock, and the few args the
 * analysis reads) and counted for the allocation census; then the post-read classifier answers
 * its layers (file names canonicalised first when only their suffix markers matter), which
 * classes_of turns into class and marker bits. The event then feeds its process and thread units
 * (counters and, with the exact method, their engines or markers), the global engine, the
 * approximate sums or the G0 engines, and the I/O functions' sizes.
 *
 * Invariants: everything here runs per event, so what it calls is in this file or static inline in
 * overlap_internal.h, but for what runs rarely (a unit's first engine, a marker's boundaries, a
 * flush over budget: overlap_scopes.c). Neighbouring events mostly repeat their unit, function
 * and sets, hence the one-entry and direct-mapped caches, which only spare lookups. An event whose
 * file name is defined elsewhere waits in `pending` (overlap_finish.c analyses it). Out of memory
 * sets failed, and the pass then gives no result. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/overlap/overlap_internal.h"

/* ===== units ==================================================================================== */

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

/* dfs_ov_key_of(e, thread) == *k, field by field: a memcmp against a key just built on the stack
 * stalls on store forwarding (per event). */
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
        unit_key k = dfs_ov_key_of(e, thread);
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
        dfs_ov_maybe_flush(w);
}

/* A binned unit grew: with the workers' bins over the bound, this one stops analysing (timebins.h). */
static void count_bins(wstate *w, uint64_t *counted, uint64_t events, int64_t start, int64_t end)
{
    uint64_t add = dfs_bins_grow(counted, events, start, end, w->ov->opt.granularity_ns);
    if (add && !w->ov->opt.bins_settled &&
        atomic_fetch_add_explicit(&w->ov->bins_counted, add, memory_order_relaxed) + add > DFS_TIME_BINS_MAX)
        w->bins_over = true;
}

/* Counters of a unit, and (exact method) its intervals. */
static void unit_add(wstate *w, scope *s, bool thread, uint64_t cm, const oev *e)
{
    dfs_overlap *ov = w->ov;
    s->events++;
    s->start = min64(s->start, e->ts);
    s->end = max64(s->end, e->end);
    if (dfs_ov_binned_units(ov, thread)) { /* engines spread an event over its bins, approx keys its start */
        if (cm)
            s->bin_events =
                dfs_bins_add(s->bin_events, ov->exact ? dfs_bins_event(e->end - e->ts, ov->opt.granularity_ns) : 1);
        count_bins(w, &s->bins, s->bin_events, s->start, s->end);
    }
    for (uint64_t m = cm; m; m &= m - 1) {
        unsigned c = (unsigned)__builtin_ctzll(m);
        s->count[c]++;
        s->sum[c] = sat_add(s->sum[c], e->end - e->ts);
    }
    if (!ov->exact || !cm || w->bins_over)
        return;
    if (!s->eng) {
        s->eng = w->spare ? w->spare : dfs_ov_unit_engine(ov);
        w->spare = NULL;
    }
    if (!s->eng) {
        w->failed = true;
        return;
    }
    if (!dfs_ovl_add_mask(s->eng, dfs_ov_union_mask(ov, cm), e->ts, e->end, 0)) {
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
    dfs_ov_add_bound(w, s, mk.s);
    dfs_ov_add_bound(w, s, mk.e);
    note_stream(w, s, false, (uint32_t)(s - w->procs.v), e->ts, e->end, true);
}

static void global_add(wstate *w, uint64_t cm, const oev *e)
{
    dfs_overlap *ov = w->ov;
    if (!w->global && !(w->global = dfs_ov_unit_engine(ov))) {
        w->failed = true;
        return;
    }
    if (!dfs_ovl_add_mask(w->global, dfs_ov_union_mask(ov, cm), e->ts, e->end, 0))
        w->failed = true;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
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
        dfs_ovl *o = dfs_ov_new_engine(w->ov, (unsigned)(2 * w->ov->nclasses - 1), -1, false);
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
    if (!dfs_ovl_add_mask(w->g0.v[idx], dfs_ov_union_mask(w->ov, cm), e->ts, e->end, 0))
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

void dfs_ov_set_add(wstate *w, dfs_keyset *set, const void *key)
{
    if (dfs_keyset_add(set, key) < 0)
        w->failed = true;
}

static void set_add_cached(wstate *w, dfs_keyset *set, int64_t v, int64_t *last, bool *have)
{
    if (*have && *last == v)
        return;
    dfs_ov_set_add(w, set, &v);
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

static bool classify(wstate *w, const dfs_run *run, const oev *e, uint32_t thread, dfs_pr_event *pe)
{
    dfs_pr_input in = {.cat = e->cat, .name = e->name, .fname = canonical_file(w, run, e->fname), .host = e->host,
                       .pid = e->pid, .tid = e->tid, .has_size_sum = e->has_size_sum,
                       .arg_truths = e->arg_truths};
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
void dfs_ov_analyse(wstate *w, const dfs_run *run, oev *e)
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
    for (unsigned k = 0; k < NMARKS && ov->exact && !w->bins_over; k++)
        if (marks >> k & 1)
            add_marker(w, p, k, e);
    if (t)
        unit_add(w, t, true, cm, e);
    if (!cm || w->bins_over) /* over the bin bound: the units' spans are all that is followed */
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

/* false when the file's clock takes the end out of int64: the event is then left out as bad time */
static bool to_oev(const dfs_event *ev, const dfs_file_clock *clk, int64_t dur, oev *e)
{
    int64_t ts = dfs_clock_apply(clk, ev->ts), end;
    if (!dfs_span_end(ts, dfs_clock_scale(clk, dur), &end))
        return false;
    /* field by field: a memset of the whole record costs more than the copies (per event) */
    *e = (oev){.ts = ts, .end = end, .fhash = ev->fhash, .hhash = ev->hhash,
               .offset = ev->offset, .pid = ev->pid, .tid = ev->tid, .cat = ev->cat, .name = ev->name,
               .fname = ev->fname, .host = ev->host, .pid_str = ev->pid_str, .tid_str = ev->tid_str,
               .file = ev->file};
    read_args(e, ev);
    return true;
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
        dfs_ov_set_add(w, &w->files, file);
        memcpy(w->last_file, file, sizeof file);
    }
    if (host[1] && memcmp(host, w->last_host, sizeof host) != 0) {
        dfs_ov_set_add(w, &w->hosts, host);
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
    if (!to_oev(ev, clk, dur, &e)) {
        w->bad_time++;
        return;
    }
    if (w->ov->plan.uses_args) /* the arguments are gone once the batch is: answered now */
        e.arg_truths = dfs_postread_arg_truths(w->cls, run, ev);
    raw_stats(w, &e);
    if (w->ov->need_bins) { /* the exact method spreads an event over its bins, the others bin its start */
        uint64_t reach = w->ov->exact ? dfs_bins_event(e.end - e.ts, w->ov->opt.granularity_ns) : 1;
        w->run_bin_events = dfs_bins_add(w->run_bin_events, reach);
        count_bins(w, &w->run_bins, w->run_bin_events, w->min_ts, w->max_end);
    }
    fs->min_raw = min64(fs->min_raw, ev->ts);
    fs->have = true;
    if (e.fhash && !e.fname && w->ov->needs_fname) { /* defined elsewhere: resolved at the end */
        if (!dfs_vec_push(&w->pending, e))
            w->failed = true;
        return;
    }
    dfs_ov_analyse(w, run, &e);
}

void dfs_ov_on_batch(void *state, const dfs_run *run, const dfs_batch *batch)
{
    wstate *w = state;
    if (!w)
        return;
    /* another input: the units of the previous one may be flushed entirely (overlap.h) */
    if (w->have_file && batch->file != w->cur_file)
        dfs_ov_stream_ended(w);
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

void *dfs_ov_worker_begin(void *user)
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

void dfs_ov_worker_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    dfs_overlap *ov = user;
    wstate *w = state;
    if (!w) {
        ov->total.failed = true;
        return;
    }
    dfs_postread_failed(w->cls, "class", ov->failure, sizeof ov->failure);
    dfs_overlap_merge_state(&ov->total, w);
    dfs_overlap_wstate_free(w);
    free(w);
}
