/* steps_measure.c - the metrics of one step with the overlap engine (spec §4.3), which steps
 * measure what (availability), and the sums per run and per mode. */
#include <math.h>
#include <string.h>

#include "analyze/steps/steps_internal.h"
#include "util/numstat.h"

/* ---- per-step metrics ----------------------------------------------------------------------
 * One overlap engine per step, reference class D. Classes CUM0..CUM5 are the cumulative unions
 * of the priority order C_dev, X, runtime, D, C_host, I: each exclusive part is the growth of the
 * union, so the parts and `other` sum to the step time exactly. */

typedef st_piece piece;

static int64_t measure_of(const dfs_ovl *o, unsigned k) { return dfs_ovl_total(o, k)->measure; }
static int64_t with_ref(const dfs_ovl *o, unsigned k) { return dfs_ovl_total(o, k)->with_ref; }

static void read_metrics(const dfs_ovl *o, dfs_step *s)
{
    int64_t cum[6];
    for (unsigned j = 0; j < 6; j++)
        cum[j] = measure_of(o, ST_K_CUM0 + j);
    int64_t *m = s->m;
    m[DFS_SM_STEP_TIME] = s->end - s->start;
    m[DFS_SM_DATA_WAIT] = measure_of(o, ST_K_D);
    m[DFS_SM_EXPOSED_WAIT] = measure_of(o, ST_K_D) - with_ref(o, ST_K_CDX);
    m[DFS_SM_COMPUTE_DEV] = measure_of(o, ST_K_CDEV);
    m[DFS_SM_COMPUTE_HOST] = measure_of(o, ST_K_CHOST) - with_ref(o, ST_K_CHOST);
    m[DFS_SM_TRANSFER] = measure_of(o, ST_K_X);
    m[DFS_SM_IO] = measure_of(o, ST_K_I);
    m[DFS_SM_IO_IN_WAIT] = with_ref(o, ST_K_I);
    m[DFS_SM_EX_COMPUTE_DEV] = cum[0];
    m[DFS_SM_EX_TRANSFER] = cum[1] - cum[0];
    m[DFS_SM_EX_RUNTIME] = cum[2] - cum[1];
    m[DFS_SM_EX_DATA_WAIT] = cum[3] - cum[2];
    m[DFS_SM_EX_COMPUTE_HOST] = cum[4] - cum[3];
    m[DFS_SM_EX_IO] = cum[5] - cum[4];
    m[DFS_SM_EX_OTHER] = m[DFS_SM_STEP_TIME] - cum[5];
}


static int64_t overlap_with_waits(const st_io_acc *acc, int64_t s, int64_t e)
{
    int64_t sum = 0;
    for (size_t i = 0; i < acc->waits.n; i++) {
        int64_t a = s > acc->waits.v[i].start ? s : acc->waits.v[i].start;
        int64_t b = e < acc->waits.v[i].end ? e : acc->waits.v[i].end;
        sum += b > a ? b - a : 0;
    }
    return sum;
}

static bool account_io(st_io_acc *acc, const piece *p, int64_t s, int64_t e)
{
    int64_t in = overlap_with_waits(acc, s, e);
    if (in <= 0 || !p->ev)
        return true;
    uint32_t idx;
    if (!dfs_u64map_get(&acc->index, p->ev->name, &idx)) {
        idx = (uint32_t)acc->names.n;
        if (!dfs_vec_push(&acc->names, ((st_io_name){p->ev->name, 0, 0})) ||
            !dfs_u64map_put(&acc->index, p->ev->name, idx))
            return false;
    }
    acc->names.v[idx].count++;
    acc->names.v[idx].in_wait += in;
    return true;
}

static void clip(const piece *p, const dfs_step *s, int64_t *a, int64_t *b)
{
    *a = p->start > s->start ? p->start : s->start;
    *b = p->end < s->end ? p->end : s->end;
}

/* The counted step's waits, coalesced (a few intervals: sorted by insertion). */
static bool collect_waits(st_io_acc *acc, const piece *const *act, size_t n, const dfs_step *s)
{
    acc->waits.n = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t a, b;
        clip(act[i], s, &a, &b);
        if (!(act[i]->mask & ST_KB(ST_K_D)) || b <= a)
            continue;
        if (acc->waits.n && a <= acc->waits.v[acc->waits.n - 1].end) {
            piece *last = &acc->waits.v[acc->waits.n - 1];
            last->end = b > last->end ? b : last->end;
        } else if (!dfs_vec_push(&acc->waits, ((piece){a, b, 0, NULL}))) {
            return false;
        }
    }
    return true;
}

bool st_piece_overlaps(const st_piece *p, int64_t start, int64_t end)
{
    if (p->start == p->end)
        return p->start >= start && p->start < end;
    return p->start < end && p->end > start;
}

dfs_ovl *st_engine(const st_piece *const *act, size_t n, int64_t start, int64_t end, unsigned nclasses, int ref)
{
    dfs_ovl *o = dfs_ovl_new(nclasses, ref, 0, 0);
    bool ok = o != NULL;
    for (size_t i = 0; i < n && ok; i++) {
        int64_t a = act[i]->start > start ? act[i]->start : start;
        int64_t b = act[i]->end < end ? act[i]->end : end;
        if (b > a)
            ok = dfs_ovl_add_mask(o, act[i]->mask, a, b, 0);
    }
    if (ok && dfs_ovl_finish(o))
        return o;
    dfs_ovl_free(o);
    return NULL;
}

bool st_sweep(const st_piece *pieces, size_t np, size_t nwin, const st_sweep_fns *fns, void *ctx)
{
    DFS_VEC(const st_piece *) act = {0};
    size_t next = 0;
    bool ok = true;
    for (size_t k = 0; k < nwin && ok; k++) {
        int64_t s, e;
        fns->bounds(ctx, k, &s, &e);
        while (ok && next < np && pieces[next].start <= e)
            ok = dfs_vec_push(&act, &pieces[next++]);
        size_t w = 0;
        for (size_t i = 0; i < act.n; i++)
            if (act.v[i]->end >= s)
                act.v[w++] = act.v[i];
        act.n = w;
        ok = ok && fns->visit(ctx, k, act.v, act.n);
    }
    dfs_vec_free(&act);
    return ok;
}

typedef struct measure_ctx {
    dfs_step *steps;
    st_io_acc *acc;
    const bool *counted;
} measure_ctx;

static void step_bounds(const void *ctx, size_t k, int64_t *s, int64_t *e)
{
    const measure_ctx *m = ctx;
    *s = m->steps[k].start;
    *e = m->steps[k].end;
}

static bool account_step_io(st_io_acc *acc, const piece *const *act, size_t n, const dfs_step *s)
{
    if (!collect_waits(acc, act, n, s))
        return false;
    for (size_t i = 0; i < n; i++) {
        int64_t a, b;
        clip(act[i], s, &a, &b);
        if ((act[i]->mask & ST_KB(ST_K_I)) && b > a && !account_io(acc, act[i], a, b))
            return false;
    }
    return true;
}

static bool measure_step(void *ctx, size_t k, const piece *const *act, size_t n)
{
    measure_ctx *m = ctx;
    dfs_step *s = &m->steps[k];
    for (size_t i = 0; i < n; i++)
        s->has_wait |= (act[i]->mask & ST_KB(ST_K_D)) && st_piece_overlaps(act[i], s->start, s->end);
    if (m->counted[k] && !account_step_io(m->acc, act, n, s))
        return false;
    dfs_ovl *o = st_engine(act, n, s->start, s->end, ST_K_N, ST_K_D);
    if (!o)
        return false;
    read_metrics(o, s);
    dfs_ovl_free(o);
    return true;
}

bool st_measure_steps(dfs_step *steps, size_t nsteps, const st_piece *pieces, size_t np, st_io_acc *acc,
                      const bool *counted)
{
    measure_ctx m = {steps, acc, counted};
    static const st_sweep_fns fns = {step_bounds, measure_step};
    return st_sweep(pieces, np, nsteps, &fns, &m);
}

/* ---- availability and aggregates ---------------------------------------------------------- */

void st_set_availability(dfs_steps_run *r, const dfs_concepts *c)
{
    bool *a = r->available;
    dfs_concept_source s = r->source;
    bool d = r->strategy == DFS_STRAT_COMPUTE_ANCHORS || dfs_concepts_available(c, s, DFS_CONCEPT_DATA_WAIT);
    bool io = dfs_concepts_available(c, s, DFS_CONCEPT_IO);
    a[DFS_SM_STEP_TIME] = a[DFS_SM_EX_OTHER] = true;
    a[DFS_SM_DATA_WAIT] = a[DFS_SM_EXPOSED_WAIT] = a[DFS_SM_EX_DATA_WAIT] = d;
    a[DFS_SM_COMPUTE_DEV] = a[DFS_SM_EX_COMPUTE_DEV] = dfs_concepts_available(c, s, DFS_CONCEPT_COMPUTE_DEV);
    a[DFS_SM_COMPUTE_HOST] = a[DFS_SM_EX_COMPUTE_HOST] = dfs_concepts_available(c, s, DFS_CONCEPT_COMPUTE_HOST);
    a[DFS_SM_TRANSFER] = a[DFS_SM_EX_TRANSFER] = dfs_concepts_available(c, s, DFS_CONCEPT_TRANSFER);
    a[DFS_SM_IO] = a[DFS_SM_EX_IO] = io;
    a[DFS_SM_IO_IN_WAIT] = io && d;
    a[DFS_SM_EX_RUNTIME] = dfs_concepts_available(c, s, DFS_CONCEPT_RUNTIME);
}

void st_blank_unavailable(dfs_step *steps, size_t n, const bool *avail)
{
    for (size_t i = 0; i < n; i++)
        for (int m = 0; m < DFS_SM_COUNT; m++)
            if (!avail[m])
                steps[i].m[m] = DFS_STEPS_NA;
}

void st_aggregate(dfs_steps_agg *a, const dfs_step *st, size_t n, const bool *sel, int mode,
                      const bool *avail, double *scratch)
{
    memset(a, 0, sizeof *a);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if ((sel && !sel[i]) || (mode >= 0 && st[i].mode != mode))
            continue;
        a->steps++;
        a->waits += st[i].has_wait;
        for (int m = 0; m < DFS_SM_COUNT; m++)
            a->sum[m] += avail[m] ? st[i].m[m] : 0;
        scratch[k++] = (double)st[i].m[DFS_SM_STEP_TIME];
    }
    for (int m = 0; m < DFS_SM_COUNT; m++)
        if (!avail[m])
            a->sum[m] = DFS_STEPS_NA;
    a->median_step_time = dfs_median_inplace(scratch, k);
    k = 0;
    for (size_t i = 0; avail[DFS_SM_DATA_WAIT] && i < n; i++)
        if ((!sel || sel[i]) && (mode < 0 || st[i].mode == mode))
            scratch[k++] = (double)st[i].m[DFS_SM_DATA_WAIT];
    a->median_data_wait = avail[DFS_SM_DATA_WAIT] ? dfs_median_inplace(scratch, k) : NAN;
}

bool st_aggregate_modes(dfs_steps_run *r, const bool *counted, double *scratch, st_owned *owned)
{
    bool present[DFS_MODE_COUNT] = {false};
    size_t nmodes = 0;
    for (size_t i = 0; i < r->nsteps; i++)
        if (!present[r->steps[i].mode])
            present[r->steps[i].mode] = true, nmodes++;
    dfs_steps_mode_agg *modes = st_alloc(owned, nmodes, sizeof *modes);
    if (!modes)
        return false;
    size_t k = 0;
    for (int m = 0; m < DFS_MODE_COUNT; m++) {
        if (!present[m])
            continue;
        modes[k].mode = (dfs_step_mode)m;
        st_aggregate(&modes[k].all, r->steps, r->nsteps, NULL, m, r->available, scratch);
        st_aggregate(&modes[k].counted, r->steps, r->nsteps, counted, m, r->available, scratch);
        k++;
    }
    r->modes = modes;
    r->nmodes = nmodes;
    return true;
}
