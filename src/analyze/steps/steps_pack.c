/* steps_pack.c - `dfscope steps` in a distributed run (steps.h, docs/MPI.md, docs/STEPS.md).
 *
 * A run needs every event of its files together, and its files whole (pairing, clocks known at a
 * file's end), so inputs are never cut. A rank other than 0 finishes the runs whose files are all
 * its own (their file facts folded before the census) and sends them finished: per-step tables,
 * modes, epochs, verdicts with their items, remedies, notes, counts and the TensorBoard
 * breakdown, bit for bit, with the key that puts them in one process's order and the files they
 * cover. Only a run with files on several ranks (an smdebug node, or names that collide) travels
 * as its kept events, which rank 0 analyses with its own. Strings travel as text. */
#include <stdlib.h>
#include <string.h>

#include "analyze/steps/steps_internal.h"
#include "util/hash.h"
#include "wire/pack.h"

void dfs_steps_set_folded(dfs_steps *s) { s->folded = true; }

/* ---- the census: run names ---------------------------------------------------------------------
 * Runs join by name only when an smdebug file looks up its node's run (steps.c, run_named); any
 * run of that name joins, so a run is spread over ranks when its node name, or a name equal to a
 * node name, is on several ranks. A node name is a field between underscores: a base name with an
 * underscore can never be one, and two files of the same such name never join. */

static uint64_t name_key(const char *name)
{
    return dfs_hash64(name, strlen(name)) ^ UINT64_C(0x5354455053); /* "STEPS" */
}

/* The key of the run a folded file belongs to; false when it makes none or none can join it. */
static bool run_key(const dfs_file_info *f, uint64_t *key)
{
    char buf[256];
    bool by_node;
    if (!st_makes_run(f))
        return false;
    const char *name = st_run_name(f, false, buf, sizeof buf, &by_node);
    *key = name_key(name);
    return by_node || !strchr(name, '_');
}

/* The names a file's run may have. Folded: its key. Else (rank 0 before the combine, where the
 * parser may still turn a file's dialect into smdebug's) its node field and its base name, as
 * the dialect may have it: a name too many only sends a run unfinished. */
static bool file_names(const dfs_steps *s, const dfs_file_info *f, dfs_u64vec *units)
{
    uint64_t key;
    if (s->folded)
        return !run_key(f, &key) || dfs_vec_push(units, key);
    if (f->unreadable || f->format == DFS_FMT_UNKNOWN || f->format == DFS_FMT_NOT_A_TRACE)
        return true; /* not read here, or it makes no run */
    char buf[256];
    bool by_node;
    const char *node = st_run_name(f, true, buf, sizeof buf, &by_node);
    const char *base = st_base_name(f->path);
    if (!strchr(base, '_') && !dfs_vec_push(units, name_key(base)))
        return false;
    return !node || dfs_vec_push(units, name_key(node));
}

bool dfs_steps_census(const dfs_steps *s, const dfs_run *run, dfs_u64vec *units)
{
    for (size_t f = 0; f < dfs_run_file_count(run); f++)
        if (!file_names(s, dfs_run_file(run, f), units))
            return false;
    return !s->failed;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Files whose run is on several ranks: their events stay unfinished. */
static uint8_t *shared_files(const dfs_run *run, const uint64_t *shared, size_t nshared)
{
    size_t nfiles = dfs_run_file_count(run);
    uint8_t *skip = calloc(nfiles ? nfiles : 1, 1);
    for (size_t f = 0; skip && nshared && f < nfiles; f++) {
        uint64_t key;
        skip[f] = run_key(dfs_run_file(run, f), &key) &&
                  bsearch(&key, shared, nshared, sizeof *shared, cmp_u64) != NULL;
    }
    return skip;
}

bool dfs_steps_finish_local(dfs_steps *s, const dfs_run *run, const uint64_t *shared, size_t nshared)
{
    if (!s->folded || s->failed)
        return !s->failed; /* rank 0 finishes everything it holds at the end */
    uint8_t *skip = shared_files(run, shared, nshared);
    st_ev_vec kept = {0};
    bool ok = skip != NULL;
    size_t w = 0, nfiles = dfs_run_file_count(run);
    for (size_t i = 0; ok && i < s->evs.n; i++) {
        const st_ev *k = &s->evs.v[i];
        if (k->file < nfiles && skip[k->file])
            ok = dfs_vec_push(&kept, *k);
        else
            s->evs.v[w++] = *k;
    }
    if (ok) {
        s->evs.n = w;
        ok = st_finish_runs(s, run, skip, &s->done, &s->covered);
    }
    dfs_vec_free(&s->evs);
    s->evs = kept;
    free(skip);
    s->failed |= !ok;
    return ok;
}

/* ---- writing ------------------------------------------------------------------------------------ */

static void pack_text(dfs_pack *w, const char *t)
{
    dfs_pack_text(w, t ? t : "", t ? strlen(t) : 0);
}

static void pack_agg(dfs_pack *w, const dfs_steps_agg *a)
{
    dfs_pack_u64(w, a->steps);
    dfs_pack_u64(w, a->waits);
    for (int m = 0; m < DFS_SM_COUNT; m++)
        dfs_pack_i64(w, a->sum[m]);
    dfs_pack_f64(w, a->median_step_time);
    dfs_pack_f64(w, a->median_data_wait);
}

static void pack_step(dfs_pack *w, const dfs_step *st)
{
    dfs_pack_i64(w, st->number);
    dfs_pack_i64(w, st->start);
    dfs_pack_i64(w, st->end);
    dfs_pack_i64(w, st->epoch);
    dfs_pack_u64(w, st->mode);
    dfs_pack_u64(w, st->flags);
    dfs_pack_bool(w, st->has_wait);
    for (int m = 0; m < DFS_SM_COUNT; m++)
        dfs_pack_i64(w, st->m[m]);
}

static void pack_epoch(dfs_pack *w, const dfs_steps_epoch *e)
{
    int64_t v[] = {e->epoch, e->start, e->end, e->step_time, e->data_wait, e->compute_host, e->io_in_wait,
                   e->marked_wait, e->lead, e->tail};
    dfs_pack_u64(w, e->mode);
    dfs_pack_u64(w, e->steps);
    dfs_pack_i64s(w, v, sizeof v / sizeof *v);
}

static void pack_verdict(dfs_pack *w, const dfs_steps_verdict *v)
{
    dfs_pack_u64(w, v->state);
    dfs_pack_f64(w, v->value);
    dfs_pack_f64(w, v->threshold);
    dfs_pack_f64(w, v->reference);
    dfs_pack_u64(w, v->datapoints);
    pack_text(w, v->evidence);
    dfs_pack_u64(w, v->nitems);
    for (size_t i = 0; i < v->nitems; i++) {
        const dfs_verdict_item *it = &v->items[i];
        dfs_pack_i64(w, it->step);
        dfs_pack_i64(w, it->start);
        dfs_pack_i64(w, it->end);
        dfs_pack_f64(w, it->value);
        dfs_pack_str(w, it->name);
        dfs_pack_u64(w, it->count);
    }
}

static void pack_counts(dfs_pack *w, const dfs_steps_counts *c)
{
    uint64_t v[] = {c->orphan_end,    c->unterminated,  c->negative,    c->unpaired_start,
                    c->unpaired_end,  c->overlapping_waits, c->negative_gaps, c->other_lanes,
                    c->pageable_h2d,  c->pinned_h2d};
    dfs_pack_u64s(w, v, sizeof v / sizeof *v);
    dfs_pack_bool(w, c->single_process_loader);
}

static void pack_tb(dfs_pack *w, const dfs_tb_result *tb)
{
    dfs_pack_bool(w, tb != NULL);
    if (!tb)
        return;
    dfs_pack_bool(w, tb->device_shifted);
    dfs_pack_u64(w, tb->tail_removed);
    dfs_pack_bool(w, tb->synthetic_step);
    dfs_pack_u64(w, tb->nsteps);
    for (size_t i = 0; i < tb->nsteps; i++) {
        const dfs_tb_step *st = &tb->steps[i];
        dfs_pack_i64(w, st->number);
        dfs_pack_i64(w, st->start);
        dfs_pack_i64(w, st->end);
        dfs_pack_i64(w, st->total);
        for (int r = 0; r < DFS_TB_ROLE_COUNT; r++)
            dfs_pack_i64(w, st->cost[r]);
    }
    for (int r = 0; r < DFS_TB_ROLE_COUNT; r++) {
        dfs_pack_f64(w, tb->avg[r]);
        dfs_pack_f64(w, tb->pct[r]);
        dfs_pack_bool(w, tb->shown[r]);
    }
    dfs_pack_f64(w, tb->avg_total);
    dfs_pack_f64(w, tb->gpu_utilization);
    dfs_pack_u64(w, tb->device_events);
    dfs_pack_u64(w, tb->range_events);
    dfs_pack_bool(w, tb->input_hint);
    dfs_pack_bool(w, tb->comm_hint);
}

static void pack_run(dfs_pack *w, const st_done *d)
{
    const dfs_steps_run *r = &d->run;
    dfs_pack_u64(w, d->key.tier);
    dfs_pack_u64(w, d->key.file);
    dfs_pack_i64(w, d->key.pid);
    pack_text(w, r->name);
    dfs_pack_i64(w, r->rank);
    dfs_pack_u64(w, r->source);
    dfs_pack_u64(w, r->strategy);
    dfs_pack_i64(w, r->loop_pid);
    dfs_pack_i64(w, r->loop_tid);
    for (int m = 0; m < DFS_SM_COUNT; m++)
        dfs_pack_bool(w, r->available[m]);
    dfs_pack_u64(w, r->nsteps);
    for (size_t i = 0; i < r->nsteps; i++)
        pack_step(w, &r->steps[i]);
    pack_agg(w, &r->all);
    pack_agg(w, &r->counted);
    dfs_pack_bool(w, r->counted_is_all);
    dfs_pack_u64(w, r->nmodes);
    for (size_t i = 0; i < r->nmodes; i++) {
        dfs_pack_u64(w, r->modes[i].mode);
        pack_agg(w, &r->modes[i].all);
        pack_agg(w, &r->modes[i].counted);
    }
    dfs_pack_u64(w, r->nepochs);
    for (size_t i = 0; i < r->nepochs; i++)
        pack_epoch(w, &r->epochs[i]);
    for (int v = 0; v < DFS_V_COUNT; v++)
        pack_verdict(w, &r->verdicts[v]);
    dfs_pack_bool(w, r->input_bound);
    dfs_pack_f64(w, r->data_wait_fraction);
    dfs_pack_texts(w, r->remedies, r->nremedies);
    dfs_pack_texts(w, r->notes, r->nnotes);
    pack_counts(w, &r->counts);
    pack_tb(w, r->tensorboard);
}

static void pack_event(dfs_pack *w, const st_ev *k)
{
    int64_t v[] = {k->start, k->end, k->pid, k->tid, k->lane_pid, k->lane_tid, k->key, k->epoch, k->batch,
                   k->corr, k->ext};
    dfs_pack_i64s(w, v, sizeof v / sizeof *v);
    dfs_pack_u64(w, k->offset);
    dfs_pack_u64(w, k->file);
    dfs_pack_str(w, k->name);
    dfs_pack_str(w, k->cat);
    dfs_pack_str(w, k->fname);
    dfs_pack_str(w, k->host);
    dfs_pack_u64(w, k->phase);
    dfs_pack_u64(w, k->arg_truths);
}

bool dfs_steps_pack(const dfs_steps *s, const dfs_run *run, dfs_pack *w)
{
    (void)run;
    if (s->failed)
        return false;
    dfs_pack_u64(w, s->done.n);
    for (size_t i = 0; i < s->done.n; i++)
        pack_run(w, &s->done.v[i]);
    dfs_pack_u64(w, s->covered.n);
    for (size_t i = 0; i < s->covered.n; i++)
        dfs_pack_u64(w, s->covered.v[i]);
    dfs_pack_u64(w, s->evs.n);
    for (size_t i = 0; i < s->evs.n; i++)
        pack_event(w, &s->evs.v[i]);
    return !w->failed;
}

/* ---- reading ------------------------------------------------------------------------------------ */

typedef struct reader {
    dfs_unpack *r;
    st_owned *owned;
    size_t nfiles;
} reader;

/* A value below `limit` (an enum, a file index), else the message is damaged. */
static uint32_t bounded(reader *x, uint64_t limit)
{
    uint64_t v = dfs_unpack_u64(x->r);
    if (v >= limit) {
        x->r->bad = true;
        return 0;
    }
    return (uint32_t)v;
}

/* n items of `size` bytes, owned by the analysis; NULL (and bad) when out of memory. */
static void *items(reader *x, size_t n, size_t size)
{
    void *p = x->r->bad ? NULL : st_alloc(x->owned, n, size);
    if (!p)
        x->r->bad = true;
    return p;
}

/* Inline text as a NUL-terminated copy owned by the analysis ("" when bad). */
static const char *text(reader *x)
{
    size_t n;
    const char *t = dfs_unpack_text(x->r, &n);
    char *copy = items(x, n + 1, 1);
    if (!copy)
        return "";
    memcpy(copy, t, n);
    copy[n] = '\0';
    return copy;
}

static void unpack_agg(reader *x, dfs_steps_agg *a)
{
    a->steps = dfs_unpack_u64(x->r);
    a->waits = dfs_unpack_u64(x->r);
    for (int m = 0; m < DFS_SM_COUNT; m++)
        a->sum[m] = dfs_unpack_i64(x->r);
    a->median_step_time = dfs_unpack_f64(x->r);
    a->median_data_wait = dfs_unpack_f64(x->r);
}

static void unpack_step(reader *x, dfs_step *st)
{
    st->number = dfs_unpack_i64(x->r);
    st->start = dfs_unpack_i64(x->r);
    st->end = dfs_unpack_i64(x->r);
    st->epoch = dfs_unpack_i64(x->r);
    st->mode = (uint8_t)bounded(x, DFS_MODE_COUNT);
    st->flags = (uint8_t)bounded(x, 256);
    st->has_wait = dfs_unpack_bool(x->r);
    for (int m = 0; m < DFS_SM_COUNT; m++)
        st->m[m] = dfs_unpack_i64(x->r);
}

static void unpack_epoch(reader *x, dfs_steps_epoch *e)
{
    e->mode = (dfs_step_mode)bounded(x, DFS_MODE_COUNT);
    e->steps = dfs_unpack_u64(x->r);
    int64_t *v[] = {&e->epoch, &e->start, &e->end, &e->step_time, &e->data_wait, &e->compute_host,
                    &e->io_in_wait, &e->marked_wait, &e->lead, &e->tail};
    dfs_unpack_i64s(x->r, v, sizeof v / sizeof *v);
}

static void unpack_verdict(reader *x, dfs_steps_verdict *v)
{
    v->state = (dfs_verdict_state)bounded(x, DFS_VERDICT_UNAVAILABLE + 1);
    v->value = dfs_unpack_f64(x->r);
    v->threshold = dfs_unpack_f64(x->r);
    v->reference = dfs_unpack_f64(x->r);
    v->datapoints = dfs_unpack_u64(x->r);
    size_t n;
    const char *t = dfs_unpack_text(x->r, &n);
    if (n >= sizeof v->evidence)
        n = sizeof v->evidence - 1;
    memcpy(v->evidence, t, n);
    v->evidence[n] = '\0';
    v->nitems = dfs_unpack_count(x->r, 13);
    dfs_verdict_item *it = v->nitems ? items(x, v->nitems, sizeof *it) : NULL;
    for (size_t i = 0; it && i < v->nitems; i++) {
        it[i].step = dfs_unpack_i64(x->r);
        it[i].start = dfs_unpack_i64(x->r);
        it[i].end = dfs_unpack_i64(x->r);
        it[i].value = dfs_unpack_f64(x->r);
        it[i].name = dfs_unpack_str(x->r);
        it[i].count = dfs_unpack_u64(x->r);
    }
    v->items = it;
    if (!it)
        v->nitems = 0;
}

static const char *const *unpack_texts(reader *x, size_t *n)
{
    *n = dfs_unpack_count(x->r, 1);
    const char **t = items(x, *n, sizeof *t);
    for (size_t i = 0; t && i < *n; i++)
        t[i] = text(x);
    if (!t)
        *n = 0;
    return t;
}

static void unpack_counts(reader *x, dfs_steps_counts *c)
{
    uint64_t *v[] = {&c->orphan_end,   &c->unterminated,      &c->negative,      &c->unpaired_start,
                     &c->unpaired_end, &c->overlapping_waits, &c->negative_gaps, &c->other_lanes,
                     &c->pageable_h2d, &c->pinned_h2d};
    dfs_unpack_u64s(x->r, v, sizeof v / sizeof *v);
    c->single_process_loader = dfs_unpack_bool(x->r);
}

static const dfs_tb_result *unpack_tb(reader *x)
{
    if (!dfs_unpack_bool(x->r))
        return NULL;
    dfs_tb_result *tb = items(x, 1, sizeof *tb);
    if (!tb)
        return NULL;
    tb->device_shifted = dfs_unpack_bool(x->r);
    tb->tail_removed = (size_t)dfs_unpack_u64(x->r);
    tb->synthetic_step = dfs_unpack_bool(x->r);
    tb->nsteps = dfs_unpack_count(x->r, 4 + DFS_TB_ROLE_COUNT);
    dfs_tb_step *st = items(x, tb->nsteps, sizeof *st);
    for (size_t i = 0; st && i < tb->nsteps; i++) {
        st[i].number = dfs_unpack_i64(x->r);
        st[i].start = dfs_unpack_i64(x->r);
        st[i].end = dfs_unpack_i64(x->r);
        st[i].total = dfs_unpack_i64(x->r);
        for (int r = 0; r < DFS_TB_ROLE_COUNT; r++)
            st[i].cost[r] = dfs_unpack_i64(x->r);
    }
    tb->steps = st;
    for (int r = 0; r < DFS_TB_ROLE_COUNT; r++) {
        tb->avg[r] = dfs_unpack_f64(x->r);
        tb->pct[r] = dfs_unpack_f64(x->r);
        tb->shown[r] = dfs_unpack_bool(x->r);
    }
    tb->avg_total = dfs_unpack_f64(x->r);
    tb->gpu_utilization = dfs_unpack_f64(x->r);
    tb->device_events = dfs_unpack_u64(x->r);
    tb->range_events = dfs_unpack_u64(x->r);
    tb->input_hint = dfs_unpack_bool(x->r);
    tb->comm_hint = dfs_unpack_bool(x->r);
    return tb;
}

static void unpack_run_body(reader *x, dfs_steps_run *r)
{
    r->name = text(x);
    r->rank = dfs_unpack_i64(x->r);
    r->source = (dfs_concept_source)bounded(x, DFS_CSRC_COUNT);
    r->strategy = (dfs_step_strategy)bounded(x, DFS_STRAT_COMPUTE_ANCHORS + 1);
    r->loop_pid = dfs_unpack_i64(x->r);
    r->loop_tid = dfs_unpack_i64(x->r);
    for (int m = 0; m < DFS_SM_COUNT; m++)
        r->available[m] = dfs_unpack_bool(x->r);
    r->nsteps = dfs_unpack_count(x->r, 7 + DFS_SM_COUNT);
    dfs_step *steps = items(x, r->nsteps, sizeof *steps);
    for (size_t i = 0; steps && i < r->nsteps; i++)
        unpack_step(x, &steps[i]);
    r->steps = steps;
    unpack_agg(x, &r->all);
    unpack_agg(x, &r->counted);
    r->counted_is_all = dfs_unpack_bool(x->r);
    r->nmodes = dfs_unpack_count(x->r, 2 * (18 + DFS_SM_COUNT));
    dfs_steps_mode_agg *modes = items(x, r->nmodes, sizeof *modes);
    for (size_t i = 0; modes && i < r->nmodes; i++) {
        modes[i].mode = (dfs_step_mode)bounded(x, DFS_MODE_COUNT);
        unpack_agg(x, &modes[i].all);
        unpack_agg(x, &modes[i].counted);
    }
    r->modes = modes;
    r->nepochs = dfs_unpack_count(x->r, 12);
    dfs_steps_epoch *epochs = items(x, r->nepochs, sizeof *epochs);
    for (size_t i = 0; epochs && i < r->nepochs; i++)
        unpack_epoch(x, &epochs[i]);
    r->epochs = epochs;
    for (int v = 0; v < DFS_V_COUNT; v++)
        unpack_verdict(x, &r->verdicts[v]);
    r->input_bound = dfs_unpack_bool(x->r);
    r->data_wait_fraction = dfs_unpack_f64(x->r);
    r->remedies = unpack_texts(x, &r->nremedies);
    r->notes = unpack_texts(x, &r->nnotes);
    unpack_counts(x, &r->counts);
    r->tensorboard = unpack_tb(x);
}

static void unpack_run(reader *x, st_done *d)
{
    memset(d, 0, sizeof *d);
    d->key.tier = bounded(x, 2);
    d->key.file = bounded(x, x->nfiles);
    d->key.pid = dfs_unpack_i64(x->r);
    unpack_run_body(x, &d->run);
}

static void unpack_event(reader *x, st_ev *k)
{
    memset(k, 0, sizeof *k);
    int64_t *v[] = {&k->start, &k->end, &k->pid, &k->tid, &k->lane_pid, &k->lane_tid, &k->key, &k->epoch,
                    &k->batch, &k->corr, &k->ext};
    dfs_unpack_i64s(x->r, v, sizeof v / sizeof *v);
    k->offset = dfs_unpack_u64(x->r);
    k->file = bounded(x, x->nfiles);
    k->name = dfs_unpack_str(x->r);
    k->cat = dfs_unpack_str(x->r);
    k->fname = dfs_unpack_str(x->r);
    k->host = dfs_unpack_str(x->r);
    k->phase = (uint8_t)bounded(x, DFS_PHASE_COUNT);
    k->arg_truths = dfs_unpack_u64(x->r);
}

bool dfs_steps_merge_packed(dfs_steps *s, dfs_run *run, dfs_unpack *r)
{
    reader x = {r, &s->owned, dfs_run_file_count(run)};
    size_t n = dfs_unpack_count(r, 40);
    for (size_t i = 0; i < n && !r->bad; i++) {
        st_done d;
        unpack_run(&x, &d);
        if (!r->bad && !dfs_vec_push(&s->done, d))
            r->bad = true;
    }
    n = dfs_unpack_count(r, 1);
    for (size_t i = 0; i < n && !r->bad; i++) {
        uint32_t f = bounded(&x, x.nfiles);
        if (!r->bad && !dfs_vec_push(&s->covered, f))
            r->bad = true;
    }
    n = dfs_unpack_count(r, 18);
    for (size_t i = 0; i < n && !r->bad; i++) {
        st_ev k;
        unpack_event(&x, &k);
        if (!r->bad && !dfs_vec_push(&s->evs, k))
            r->bad = true;
    }
    s->failed |= r->bad;
    return !r->bad;
}
