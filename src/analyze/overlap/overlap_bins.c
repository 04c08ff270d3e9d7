/* overlap_bins.c - the time bins of an overlap result, for each method (overlap.md §2, §3.4):
 *  - exact: the binned measures of the units' engines (or of the global one), summed per bin;
 *  - approximate (G0, §2.2): from Σ dur per (start bin, thread, class), the busiest thread of each
 *    class standing for its process and the busiest process for the run;
 *  - G0 exact (§2.3): one engine per start bin over all processes, unclipped.
 *
 * Invariants: a bin's index is the engines' provisional number plus the pass's shift
 * (overlap_finish.c); bins are listed ascending, once each, with their span clipped to the run. */
#include <stdlib.h>
#include <string.h>

#include "analyze/overlap/overlap_internal.h"

/* ----- the bins, and those of the exact method ----- */

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
    if (!dfs_ov_values_init(ov, &nb.v) || !dfs_u64map_put(&b->index, (uint64_t)index, (uint32_t)b->v.n) ||
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
        dfs_ov_union_values(ov, m, cls);
        for (size_t c = 0; c < ov->nclasses; c++) {
            cls[c].sum_dur = m[c]->sum_dur;
            cls[c].events = m[c]->count;
            dfs_ov_class_add(&v->cls[c], &cls[c]);
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
        dfs_ov_set_span(&bin->v, max64(lo, ov->total.min_ts), min64(hi, ov->total.max_end));
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

bool dfs_ov_exact_bins(dfs_overlap *ov, int64_t shift)
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

bool dfs_ov_approx_fill(dfs_overlap *ov, int64_t shift, dfs_overlap_unit *pu, dfs_overlap_unit *tu)
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

bool dfs_ov_g0_fill(dfs_overlap *ov, int64_t shift)
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
        dfs_ov_engine_values(ov, t->g0.v[i], row);
        for (size_t c = 0; c < ov->nclasses; c++) {
            const dfs_ovl_measure *m = dfs_ovl_total(t->g0.v[i], (unsigned)c);
            row->cls[c].sum_dur = m->sum_dur;
            row->cls[c].events = m->count;
            dfs_ov_class_add(&ov->result.global.cls[c], &row->cls[c]);
        }
    }
    ok = ok && bins_finish(ov, &b);
    dfs_u64map_free(&b.index);
    dfs_vec_free(&b.v);
    return ok;
}
