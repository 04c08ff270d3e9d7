/* layered_views.c - from merged cells to views: canonical processes, rows per view, the per-layer
 * summaries of §8.1 under each semantics, and the flat-view columns of §6-§7.
 *
 * A view row groups "members": for time_range and file_name rows the members are processes, for
 * host/pid/tid rows the processes of the group, and for proc_name rows the process's time bins
 * (so X_proc_* in the process view is the distribution over its bins, quirk 15). The time metric
 * tm of a row is the busiest member's time (time_proc_max) in non-process views, and the row's
 * time_sum in process views; in the dfanalyzer-sum semantics it is always time_sum. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/layered/layered_internal.h"

typedef struct canon_proc {
    char *name; /* app#host#pid#tid */
    char *host;
    char pid[24], tid[24];
} canon_proc;

/* One member of one (row, layer): its families, summed over the cells that fall in it. */
typedef struct member {
    uint32_t row, layer, id;
    uint32_t at; /* its block: the index of its cell in la->total, or in view_build.units when own */
    bool own;     /* several cells fell into this member: their sum is a copy */
} member;

typedef struct rowlayer {
    uint32_t first, n; /* members[first .. first+n) */
    lunit *tot;        /* the members' families summed, a block laid out as a cell's (slot_fam); NULL
                        * when the slot has no member (tm is then NAN) */
    double tm;         /* seconds; NAN when the layer has no event in the row */
    int64_t top;       /* the largest member time (ns), where the members were summed unkept */
    uint64_t nfiles, nprocs;
    bool has_exact;
    int64_t u_exact; /* ns: an integer sum, the same in any merge order */
    uint64_t u_exact_count;
    double u_exact_size;
} rowlayer;

typedef struct view_build {
    dfs_view_type type;
    char **row_keys;
    const int64_t *row_bins; /* time view: the run's bins (views_mem.bins), not a copy */
    size_t nrows;
    member *members;
    size_t nmembers;
    rowlayer *rl; /* [nrows * nlayers] */
    DFS_VEC(char *) columns;
    DFS_VEC(double) cells;
    dfs_layer_summary *summary;
    dfs_additional_summary *additional;
    size_t nadditional;
    DFS_VEC(lunit) units;     /* blocks of members that sum several cells */
    DFS_VEC(lunit) tot_units; /* blocks of the slots' totals */
} view_build;

typedef struct views_mem {
    int64_t *bins; /* every time bin (shifted), sorted: the time view's rows, the process view's
                    * member ids */
    size_t nbins;
    /* bin_index's answers for every bin from bins[0] to bins[nbins - 1], when the bins are dense
     * enough for such a table (NULL otherwise): cells, distinct-file keys and exact bins are
     * placed by the million, a binary search each would cost more than all else they do */
    uint32_t *bin_pos;
    canon_proc *procs;
    size_t nprocs;
    uint32_t *canon; /* total.proc_v index -> canon index */
    view_build *views;
    dfs_view_result *results;
    size_t nviews;
} views_mem;

#define NL(la) ((la)->plan.nlayers)

static bool process_view(dfs_view_type v)
{
    return v == DFS_VIEW_PROC_NAME || v == DFS_VIEW_HOST_NAME || v == DFS_VIEW_PROC_ID ||
           v == DFS_VIEW_THREAD_ID;
}

/* ----- canonical processes ------------------------------------------------------------------ */

static char *host_text(const dfs_layered *la, const dfs_run *run, const proc_info *pi)
{
    dfs_str h = pi->key.host;
    if (!h && pi->key.hhash)
        h = dfs_run_resolve_hash(run, DFS_HASH_HOST, pi->file, pi->offset, pi->key.hhash);
    if (h) {
        size_t n;
        const char *s = dfs_str_get(run, h, &n);
        return strndup(s, n);
    }
    if (la->opt.preset->post_read.missing_host == DFS_MISSING_HOST_NA)
        return strdup("<NA>");
    if (!pi->key.hhash)
        return strdup("unknown");
    char buf[24];
    snprintf(buf, sizeof buf, "%016llx", (unsigned long long)pi->key.hhash);
    return strdup(buf);
}

static int cmp_canon(const void *a, const void *b)
{
    return strcmp(((const canon_proc *)a)->name, ((const canon_proc *)b)->name);
}

static int cmp_pstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool canonical_procs(dfs_layered *la, views_mem *vm, const dfs_run *run)
{
    const acc *a = &la->total;
    size_t n = a->proc_v.n;
    canon_proc *cp = calloc(n ? n : 1, sizeof *cp);
    vm->canon = calloc(n ? n : 1, sizeof *vm->canon);
    if (!cp || !vm->canon) {
        free(cp);
        return false;
    }
    for (size_t p = 0; p < n; p++) {
        const proc_info *pi = &a->proc_v.v[p];
        cp[p].host = host_text(la, run, pi);
        snprintf(cp[p].pid, sizeof cp[p].pid, "%lld", (long long)pi->key.pid);
        snprintf(cp[p].tid, sizeof cp[p].tid, "%lld", (long long)pi->key.tid);
        size_t len = (cp[p].host ? strlen(cp[p].host) : 0) + 64;
        cp[p].name = malloc(len);
        if (!cp[p].host || !cp[p].name)
            return false;
        snprintf(cp[p].name, len, "app#%s#%s#%s", cp[p].host, cp[p].pid, cp[p].tid);
    }
    /* sort a copy of the names, dedupe, then map each process to its rank */
    canon_proc *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted)
        return false;
    memcpy(sorted, cp, n * sizeof *cp);
    qsort(sorted, n, sizeof *sorted, cmp_canon);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || strcmp(sorted[m - 1].name, sorted[i].name) != 0)
            sorted[m++] = sorted[i];
    for (size_t p = 0; p < n; p++) {
        size_t lo = 0, hi = m;
        while (lo + 1 < hi) {
            size_t mid = (lo + hi) / 2;
            if (strcmp(sorted[mid].name, cp[p].name) <= 0)
                lo = mid;
            else
                hi = mid;
        }
        vm->canon[p] = (uint32_t)lo;
    }
    /* keep the strings of the representatives; free the duplicates' */
    for (size_t p = 0; p < n; p++)
        if (sorted[vm->canon[p]].name != cp[p].name) {
            free(cp[p].name);
            free(cp[p].host);
        }
    free(cp);
    vm->procs = sorted;
    vm->nprocs = m;
    return true;
}

/* ----- rows and members ------------------------------------------------------------------- */

static size_t find_text(char *const *keys, size_t n, const char *s)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(keys[mid], s);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return n;
}

/* The text key of a process's group in a logical view. */
static const char *group_of(const canon_proc *cp, dfs_view_type v)
{
    return v == DFS_VIEW_HOST_NAME ? cp->host : v == DFS_VIEW_PROC_ID ? cp->pid : v == DFS_VIEW_THREAD_ID ? cp->tid : cp->name;
}

/* Distinct sorted row texts. */
static bool text_rows(view_build *vb, char **texts, size_t n)
{
    qsort(texts, n, sizeof *texts, cmp_pstr);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || strcmp(texts[m - 1], texts[i]) != 0)
            texts[m++] = texts[i];
    vb->row_keys = malloc((m ? m : 1) * sizeof *vb->row_keys);
    if (!vb->row_keys)
        return false;
    for (size_t i = 0; i < m; i++)
        if (!(vb->row_keys[i] = strdup(texts[i])))
            return false;
    vb->nrows = m;
    return true;
}

/* A table over a span of bins (bin_table, dense_bins) is worth its memory while it has at most a
 * few entries per bin. */
enum { BIN_TABLE_SLACK = 4, BIN_TABLE_MIN = 4096 };

static bool dense_span(uint64_t span, size_t nbins)
{
    return span && span <= BIN_TABLE_SLACK * (uint64_t)nbins + BIN_TABLE_MIN;
}

/* The bin of the i-th bin total: the bins of the time cells, since a time cell is made with the
 * totals of its bin (layered_cells.c), and there are far fewer totals than time cells. */
static int64_t total_bin(const acc *a, size_t i, int64_t shift)
{
    return a->cell_v.v[a->bin_cells.v[i]].key.axis + shift;
}

/* The distinct bins of the time cells, all in [lo, lo + span), by marking them in a bitmap over
 * the span: the bins of a trace are mostly dense, and this is two linear passes. NULL when out of
 * memory. */
static int64_t *marked_bins(const acc *a, int64_t shift, int64_t lo, uint64_t span, int64_t *bins, size_t *count)
{
    uint64_t *seen = calloc(span / 64 + 1, sizeof *seen);
    if (!seen)
        return NULL;
    for (size_t i = 0; i < a->bin_cells.n; i++) {
        uint64_t d = (uint64_t)total_bin(a, i, shift) - (uint64_t)lo;
        seen[d / 64] |= UINT64_C(1) << (d % 64);
    }
    size_t n = 0;
    for (uint64_t w = 0; w <= span / 64; w++)
        for (uint64_t m = seen[w]; m; m &= m - 1)
            bins[n++] = (int64_t)((uint64_t)lo + w * 64 + (uint64_t)__builtin_ctzll(m));
    free(seen);
    *count = n;
    return bins;
}

/* The same by sorting (radix: bins are signed, so the sign bit is flipped in the key), for bins
 * too sparse for a bitmap. */
static int64_t *sorted_bins(const acc *a, int64_t shift, int64_t *bins, size_t *count)
{
    size_t n = a->bin_cells.n;
    dfs_key128 *keys = malloc(2 * (n + 1) * sizeof *keys);
    if (!keys)
        return NULL;
    for (size_t i = 0; i < n; i++)
        keys[i] = (dfs_key128){(uint64_t)total_bin(a, i, shift) ^ UINT64_C(1) << 63, 0};
    dfs_sort128(keys, keys + n + 1, n, 0);
    n = dfs_unique128(keys, n);
    for (size_t i = 0; i < n; i++)
        bins[i] = (int64_t)(keys[i].hi ^ UINT64_C(1) << 63);
    free(keys);
    *count = n;
    return bins;
}

/* The distinct time bins of the time cells, in order. */
static int64_t *distinct_bins(const acc *a, int64_t shift, size_t *count)
{
    int64_t *bins = malloc((a->bin_cells.n + 1) * sizeof *bins), lo = INT64_MAX, hi = INT64_MIN;
    if (!bins)
        return NULL;
    size_t ntime = a->bin_cells.n;
    for (size_t i = 0; i < ntime; i++) {
        int64_t b = total_bin(a, i, shift);
        lo = b < lo ? b : lo;
        hi = b > hi ? b : hi;
    }
    if (!ntime) {
        *count = 0;
        return bins;
    }
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    int64_t *done = dense_span(span, ntime) ? marked_bins(a, shift, lo, span, bins, count)
                                            : sorted_bins(a, shift, bins, count);
    if (!done)
        free(bins);
    return done;
}

/* The time view's rows: the run's bins. */
static bool time_rows(const views_mem *vm, view_build *vb)
{
    size_t m = vm->nbins;
    vb->row_bins = vm->bins;
    vb->row_keys = calloc(m ? m : 1, sizeof *vb->row_keys);
    if (!vb->row_keys)
        return false;
    vb->nrows = m;
    for (size_t i = 0; i < m; i++) {
        char buf[24];
        snprintf(buf, sizeof buf, "%lld", (long long)vm->bins[i]);
        if (!(vb->row_keys[i] = strdup(buf)))
            return false;
    }
    return true;
}

static size_t lower_bound(const int64_t *bins, size_t n, int64_t bin)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (bins[mid] < bin)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Fills vm->bin_pos when the bins are dense enough; without it bin_index searches. false only
 * when out of memory. */
static bool bin_table(views_mem *vm)
{
    if (!vm->nbins || vm->nbins > UINT32_MAX)
        return true;
    uint64_t span = (uint64_t)vm->bins[vm->nbins - 1] - (uint64_t)vm->bins[0] + 1;
    if (!dense_span(span, vm->nbins))
        return true;
    vm->bin_pos = malloc(span * sizeof *vm->bin_pos);
    if (!vm->bin_pos)
        return false;
    size_t k = 0;
    for (uint64_t j = 0; j < span; j++) {
        int64_t bin = (int64_t)((uint64_t)vm->bins[0] + j);
        while (vm->bins[k] < bin) /* stops at the last bin, the span's end */
            k++;
        vm->bin_pos[j] = (uint32_t)k;
    }
    return true;
}

/* The index of the first bin not below `bin` (nbins if none): its row in the time view, its
 * member id in the process view. */
static size_t bin_index(const views_mem *vm, int64_t bin)
{
    if (!vm->bin_pos)
        return lower_bound(vm->bins, vm->nbins, bin);
    if (bin <= vm->bins[0])
        return 0;
    if (bin > vm->bins[vm->nbins - 1])
        return vm->nbins;
    return vm->bin_pos[(uint64_t)bin - (uint64_t)vm->bins[0]];
}

static bool file_rows(dfs_layered *la, view_build *vb, const dfs_run *run)
{
    const acc *a = &la->total;
    char **texts = malloc((a->cell_v.n + 1) * sizeof *texts);
    if (!texts)
        return false;
    size_t n = 0;
    for (size_t i = 0; i < a->cell_v.n; i++)
        if (a->cell_v.v[i].key.kind == CELL_FILE)
            texts[n++] = (char *)dfs_str_get(run, (dfs_str)a->cell_v.v[i].key.axis, &(size_t){0});
    bool ok = text_rows(vb, texts, n);
    free(texts);
    return ok;
}

static bool group_rows(views_mem *vm, view_build *vb)
{
    char **texts = malloc((vm->nprocs + 1) * sizeof *texts);
    if (!texts)
        return false;
    for (size_t p = 0; p < vm->nprocs; p++)
        texts[p] = (char *)group_of(&vm->procs[p], vb->type);
    bool ok = text_rows(vb, texts, vm->nprocs);
    free(texts);
    return ok;
}

/* The cells that are a view's members: file cells in the file view, time cells elsewhere. */
static uint32_t member_kind(const view_build *vb)
{
    return vb->type == DFS_VIEW_FILE_NAME ? CELL_FILE : CELL_TIME;
}

/* Row and member of a cell in this view; false when the cell does not belong to the view. */
static bool place(const views_mem *vm, const view_build *vb, const dfs_run *run, const cell *c, int64_t shift,
                  uint32_t canon, uint32_t *row, uint32_t *id)
{
    if (c->key.kind != member_kind(vb))
        return false;
    switch (vb->type) {
    case DFS_VIEW_TIME_RANGE:
        *row = (uint32_t)bin_index(vm, c->key.axis + shift);
        *id = canon;
        return true;
    case DFS_VIEW_PROC_NAME:
        *row = canon;
        *id = (uint32_t)bin_index(vm, c->key.axis + shift);
        return true;
    case DFS_VIEW_FILE_NAME: {
        size_t n;
        const char *s = dfs_str_get(run, (dfs_str)c->key.axis, &n);
        *row = (uint32_t)find_text(vb->row_keys, vb->nrows, s);
        *id = canon;
        return true;
    }
    default:
        *row = (uint32_t)find_text(vb->row_keys, vb->nrows, group_of(&vm->procs[canon], vb->type));
        *id = canon;
        return true;
    }
}

static lunit *member_block(const dfs_layered *la, const view_build *vb, const member *m)
{
    return m->own ? &vb->units.v[m->at] : dfs_cell_block(&la->total, &la->total.cell_v.v[m->at]);
}

/* What a view reads of a member's family: its count, time and (sized family) size. */
typedef struct member_vals {
    uint64_t count;
    int64_t time;
    uint64_t size;
} member_vals;

static member_vals member_fam(const dfs_layered *la, const view_build *vb, const member *m, unsigned f)
{
    lunit *block = member_block(la, vb, m);
    bool sized = la->fam_sized[m->layer][f];
    if (member_kind(vb) == CELL_TIME) {
        const uint64_t *w = dfs_slim(la, block, m->layer, f);
        return (member_vals){w[SLIM_COUNT], (int64_t)w[SLIM_TIME], sized ? w[SLIM_SIZE] : 0};
    }
    const lagg *a = dfs_fam(la, block, m->layer, f);
    return (member_vals){a->count, a->time, sized ? a->size : 0};
}

/* Where a placed cell falls in a view: its slot (row * layers + layer) and its member id there. */
typedef struct placement {
    uint32_t slot, id;
} placement;

/* Counting sort of the placed cells (n of them) by key (slot or id, below `limit`), stable:
 * `from` (cell indices) is read in order and written to `to` by key. */
static bool scatter_by(const placement *pl, const uint32_t *from, uint32_t *to, size_t n, size_t limit,
                       bool by_slot)
{
    size_t *start = calloc(limit + 1, sizeof *start);
    if (!start)
        return false;
    for (size_t i = 0; i < n; i++)
        start[by_slot ? pl[from[i]].slot : pl[from[i]].id]++;
    size_t at = 0;
    for (size_t k = 0; k < limit; k++) {
        size_t c = start[k];
        start[k] = at;
        at += c;
    }
    for (size_t i = 0; i < n; i++)
        to[start[by_slot ? pl[from[i]].slot : pl[from[i]].id]++] = from[i];
    free(start);
    return true;
}

/* The placed cells in member order: by slot, then member id, then cell index (two stable
 * counting passes, least significant key first; the order within a slot makes the members'
 * floating-point statistics the same whatever order the workers' cells were merged in). */
static uint32_t *member_order(dfs_layered *la, views_mem *vm, view_build *vb, const dfs_run *run, int64_t shift,
                              placement **placements, size_t *nplaced)
{
    const acc *a = &la->total;
    size_t nslots = vb->nrows * NL(la), nids = vb->type == DFS_VIEW_PROC_NAME ? vm->nbins : vm->nprocs;
    if (nslots >= UINT32_MAX || nids >= UINT32_MAX)
        return NULL;
    placement *pl = malloc((a->cell_v.n + 1) * sizeof *pl);
    uint32_t *cells = malloc((a->cell_v.n + 1) * sizeof *cells), *by_id = malloc((a->cell_v.n + 1) * sizeof *by_id);
    bool ok = pl && cells && by_id;
    size_t n = 0;
    for (size_t i = 0; ok && i < a->cell_v.n; i++) {
        const cell *c = &a->cell_v.v[i];
        uint32_t row, id;
        if (!place(vm, vb, run, c, shift, vm->canon[c->key.proc], &row, &id) || row >= vb->nrows || id >= nids)
            continue;
        pl[i] = (placement){(uint32_t)(row * NL(la) + c->key.layer), id};
        cells[n++] = (uint32_t)i;
    }
    ok = ok && scatter_by(pl, cells, by_id, n, nids, false) && scatter_by(pl, by_id, cells, n, nslots, true);
    free(by_id);
    if (!ok) {
        free(pl);
        free(cells);
        return NULL;
    }
    *placements = pl;
    *nplaced = n;
    return cells;
}

/* Row of a (canonical) process in a process-keyed view, or SIZE_MAX. */
static size_t proc_row(const views_mem *vm, const view_build *vb, uint32_t canon)
{
    if (vb->type == DFS_VIEW_PROC_NAME)
        return canon;
    size_t r = find_text(vb->row_keys, vb->nrows, group_of(&vm->procs[canon], vb->type));
    return r < vb->nrows ? r : SIZE_MAX;
}

/* The view's (row, layer) slots, empty. */
static bool new_slots(const dfs_layered *la, view_build *vb)
{
    size_t nslots = vb->nrows * NL(la);
    vb->rl = calloc(nslots ? nslots : 1, sizeof *vb->rl);
    return vb->rl != NULL;
}

/* Reserves the totals of the slots that have members (rl[s].n), as unit indices: they become
 * pointers when vb->tot_units stops growing. */
static bool slot_totals(dfs_layered *la, view_build *vb, uint32_t *tot_index)
{
    /* totals only where there are members: most (row, layer) slots of a long time view are empty */
    size_t nslots = vb->nrows * NL(la), units = 0;
    for (size_t s = 0; s < nslots; s++)
        units += vb->rl[s].n ? la->block_units[s % NL(la)] : 0;
    if (units > UINT32_MAX || !dfs_vec_reserve(&vb->tot_units, units))
        return false;
    for (size_t s = 0; s < nslots; s++) {
        unsigned l = (unsigned)(s % NL(la));
        vb->rl[s].tm = NAN;
        tot_index[s] = UINT32_MAX;
        if (!vb->rl[s].n)
            continue;
        tot_index[s] = (uint32_t)vb->tot_units.n;
        dfs_block_init(la, l, &vb->tot_units.v[vb->tot_units.n]);
        vb->tot_units.n += la->block_units[l];
    }
    return true;
}

/* Whether a view keeps no members: a run without columns, whose summaries read of its slots only
 * the totals, the number of members with events and the largest member time. A process view
 * then needs the totals only (a process row's time is its total, where a time row's is the
 * largest of its members'). The file view sums its members' full blocks into its rows. */
static bool memberless(const dfs_layered *la, const view_build *vb)
{
    return vb->type != DFS_VIEW_FILE_NAME && !dfs_layered_needs_columns(&la->opt);
}

/* The slots of a memberless process view: those of the threads' totals (a CELL_THREAD cell exists
 * exactly where its thread has time cells, the members the view would have), rl[s].n counting
 * them. */
static bool thread_slots(dfs_layered *la, const views_mem *vm, view_build *vb, uint32_t *tot_index)
{
    const acc *a = &la->total;
    if (!new_slots(la, vb))
        return false;
    for (size_t i = 0; i < a->cell_v.n; i++) {
        const cell *c = &a->cell_v.v[i];
        size_t row = c->key.kind == CELL_THREAD ? proc_row(vm, vb, vm->canon[c->key.proc]) : SIZE_MAX;
        if (row < vb->nrows)
            vb->rl[row * NL(la) + c->key.layer].n++;
    }
    return slot_totals(la, vb, tot_index);
}

/* Members are visited in row order, their cells lie anywhere in memory: each family read would
 * wait for memory. Asking for a member's block a few steps ahead overlaps those waits; its head
 * then says which families to ask for (only those are read). */
enum { PREFETCH_HEAD = 16, PREFETCH_FAMILIES = 8 };

/* The slots of a memberless time view: each member (the cells of one slot and id, consecutive in
 * `order`) is summed as it is passed, and only what the summaries read is kept per slot: rl[s].n
 * members, nprocs of them with events, top the largest time. */
static bool summed_slots(dfs_layered *la, view_build *vb, const uint32_t *order, const placement *pl, size_t n,
                         uint32_t *tot_index)
{
    const acc *a = &la->total;
    if (!new_slots(la, vb))
        return false;
    for (size_t i = 0; i < n;) {
        placement p = pl[order[i]];
        unsigned layer = p.slot % (uint32_t)NL(la);
        uint64_t count = 0;
        int64_t time = 0;
        for (; i < n && pl[order[i]].slot == p.slot && pl[order[i]].id == p.id; i++) {
            if (i + PREFETCH_HEAD < n)
                __builtin_prefetch(dfs_cell_block(a, &a->cell_v.v[order[i + PREFETCH_HEAD]]));
            const uint64_t *w = dfs_slim(la, dfs_cell_block(a, &a->cell_v.v[order[i]]), layer, 0);
            count += w[SLIM_COUNT];
            time += (int64_t)w[SLIM_TIME];
        }
        rowlayer *r = &vb->rl[p.slot];
        r->n++;
        r->nprocs += count > 0;
        if (time > r->top)
            r->top = time;
    }
    return slot_totals(la, vb, tot_index);
}

/* Whether every member of the time view is a single cell: no key has several cells, and no two
 * threads share a canonical name (a thread under two spellings of its host). */
static bool single_cell_members(const dfs_layered *la, const views_mem *vm)
{
    return !la->total.cells_repeat && vm->nprocs == la->total.proc_v.n;
}

/* The (row, layer) slot of a bin's totals in the time view; NULL when the bin is no row. */
static rowlayer *bin_slot(const dfs_layered *la, const views_mem *vm, view_build *vb, const cell *c, int64_t shift)
{
    int64_t bin = c->key.axis + shift;
    size_t row = bin_index(vm, bin);
    return row < vb->nrows && vb->row_bins[row] == bin ? &vb->rl[row * NL(la) + c->key.layer] : NULL;
}

/* The slots of a memberless time view whose members are single cells: what summed_slots keeps
 * from the members, read from the bins' totals, which kept it as the time cells were updated
 * (bin_members): a pass over the bins instead of one over every time cell. */
static bool direct_slots(dfs_layered *la, const views_mem *vm, view_build *vb, int64_t shift, uint32_t *tot_index)
{
    const acc *a = &la->total;
    if (!new_slots(la, vb))
        return false;
    for (size_t i = 0; i < a->bin_cells.n; i++) {
        const cell *c = &a->cell_v.v[a->bin_cells.v[i]];
        rowlayer *r = bin_slot(la, vm, vb, c, shift);
        if (!r)
            continue;
        const bin_members *bm = dfs_bin_members(la, dfs_cell_block(a, c), c->key.layer);
        r->n += bm->n; /* every time cell holds events: each member counts as a process */
        r->nprocs += bm->n;
        if (bm->top > r->top)
            r->top = bm->top;
    }
    return slot_totals(la, vb, tot_index);
}

/* Groups the cells of the view into members, and the members into (row, layer) slots, with their
 * totals (slot_totals); a memberless view keeps only what its summaries read of the members. */
static bool build_members(dfs_layered *la, views_mem *vm, view_build *vb, const dfs_run *run, int64_t shift,
                          uint32_t *tot_index)
{
    if (memberless(la, vb) && process_view(vb->type))
        return thread_slots(la, vm, vb, tot_index);
    if (memberless(la, vb) && vb->type == DFS_VIEW_TIME_RANGE && single_cell_members(la, vm))
        return direct_slots(la, vm, vb, shift, tot_index);
    const acc *a = &la->total;
    size_t n = 0;
    placement *pl = NULL;
    uint32_t *order = member_order(la, vm, vb, run, shift, &pl, &n);
    if (!order)
        return false;
    if (memberless(la, vb)) {
        bool ok = summed_slots(la, vb, order, pl, n, tot_index);
        free(order);
        free(pl);
        return ok;
    }
    vb->members = malloc((n + 1) * sizeof *vb->members);
    bool ok = vb->members != NULL;
    size_t m = 0;
    for (size_t i = 0; ok && i < n; i++) {
        const cell *c = &a->cell_v.v[order[i]];
        uint32_t row = pl[order[i]].slot / (uint32_t)NL(la), layer = c->key.layer, id = pl[order[i]].id;
        bool same = m && vb->members[m - 1].row == row && vb->members[m - 1].layer == layer &&
                    vb->members[m - 1].id == id;
        if (!same) { /* most members are one cell: point at it instead of copying */
            vb->members[m++] = (member){row, layer, id, order[i], false};
            continue;
        }
        member *mb = &vb->members[m - 1];
        if (!mb->own) {
            uint32_t nu = dfs_cell_units(la, c->key.kind, layer), idx = (uint32_t)vb->units.n;
            if (vb->units.n + nu > UINT32_MAX || !dfs_vec_reserve(&vb->units, nu)) {
                ok = false;
                break;
            }
            memcpy(&vb->units.v[idx], dfs_cell_block(a, &a->cell_v.v[mb->at]), nu * sizeof(lunit));
            vb->units.n += nu;
            *mb = (member){mb->row, mb->layer, mb->id, idx, true};
        }
        if (c->key.kind == CELL_TIME)
            dfs_slim_block_merge(la, layer, &vb->units.v[mb->at], dfs_cell_block(a, c));
        else
            dfs_block_merge(la, layer, &vb->units.v[mb->at], dfs_cell_block(a, c));
    }
    free(order);
    free(pl);
    if (!ok)
        return false;
    vb->nmembers = m;
    if (!new_slots(la, vb))
        return false;
    for (size_t i = 0; i < m; i++) {
        rowlayer *r = &vb->rl[(size_t)vb->members[i].row * NL(la) + vb->members[i].layer];
        if (!r->n)
            r->first = (uint32_t)i;
        r->n++;
    }
    return slot_totals(la, vb, tot_index);
}

static double secs(int64_t ns)
{
    return (double)ns / 1e9;
}

/* Asks for the used families of a block (called where the loop has side effects: a function
 * doing only prefetches counts as pure to the compiler, and its calls are dropped). */
#define PREFETCH_FAMILIES_OF(la, block, l)                                                        \
    for (uint64_t m_ = dfs_block_used(block); m_; m_ &= m_ - 1) {                                  \
        const lagg *f_ = dfs_fam((la), (block), (l), (unsigned)__builtin_ctzll(m_));               \
        __builtin_prefetch(f_);                                                                    \
        __builtin_prefetch((const char *)f_ + 64);                                                 \
    }

static lunit *block_at(const dfs_layered *la, const view_build *vb, size_t i)
{
    return i < vb->nmembers ? member_block(la, vb, &vb->members[i]) : NULL;
}

/* Family f of the totals of a slot of layer l (a slot with members). */
static const lagg *slot_fam(const dfs_layered *la, const rowlayer *r, size_t l, unsigned f)
{
    return dfs_fam(la, r->tot, (unsigned)l, f);
}

/* The bytes of a slot: only a size layer's first family has the size fields. */
static uint64_t slot_size(const dfs_layered *la, const rowlayer *r, size_t l)
{
    return la->fam_sized[l][0] ? slot_fam(la, r, l, 0)->size : 0;
}

/* The slots' totals in the time and process views: the sums of their rows' events, kept per bin
 * (CELL_BIN) and per thread (CELL_THREAD) beside the slim time cells. */
static void totals_from_sums(dfs_layered *la, const views_mem *vm, view_build *vb, int64_t shift)
{
    const acc *a = &la->total;
    if (vb->type == DFS_VIEW_TIME_RANGE) {
        for (size_t i = 0; i < a->bin_cells.n; i++) {
            const cell *c = &a->cell_v.v[a->bin_cells.v[i]];
            rowlayer *r = bin_slot(la, vm, vb, c, shift);
            if (r && r->tot) /* (a slot without members has no totals, and no events) */
                dfs_block_merge(la, c->key.layer, r->tot, dfs_cell_block(a, c));
        }
        return;
    }
    for (size_t i = 0; i < a->cell_v.n; i++) {
        const cell *c = &a->cell_v.v[i];
        if (c->key.kind != CELL_THREAD)
            continue;
        size_t row = proc_row(vm, vb, vm->canon[c->key.proc]);
        rowlayer *r = row < vb->nrows ? &vb->rl[row * NL(la) + c->key.layer] : NULL;
        if (r && r->tot)
            dfs_block_merge(la, c->key.layer, r->tot, dfs_cell_block(a, c));
    }
}

/* tm, totals and distinct processes of every slot. */
static void slot_stats(dfs_layered *la, const views_mem *vm, view_build *vb, const uint32_t *tot_index,
                       int64_t shift)
{
    bool sum_mode = la->opt.compat == DFS_COMPAT_DFANALYZER_SUM, file_view = vb->type == DFS_VIEW_FILE_NAME;
    bool members = !memberless(la, vb); /* otherwise build_members kept each slot's top */
    for (size_t s = 0; s < vb->nrows * NL(la); s++)
        if (vb->rl[s].n) /* no totals otherwise (build_members) */
            vb->rl[s].tot = &vb->tot_units.v[tot_index[s]];
    if (!file_view)
        totals_from_sums(la, vm, vb, shift);
    for (size_t s = 0; s < vb->nrows * NL(la); s++) {
        rowlayer *r = &vb->rl[s];
        if (!r->n)
            continue;
        int64_t best = r->top;
        unsigned l = (unsigned)(s % NL(la));
        for (uint32_t i = r->first; members && i < r->first + r->n; i++) {
            lunit *ahead = block_at(la, vb, i + PREFETCH_HEAD);
            if (ahead)
                __builtin_prefetch(ahead);
            const member *mb = &vb->members[i];
            if (file_view) { /* the file view's rows sum their members */
                if ((ahead = block_at(la, vb, i + PREFETCH_FAMILIES)))
                    PREFETCH_FAMILIES_OF(la, ahead, vb->members[i + PREFETCH_FAMILIES].layer);
                for (uint64_t m = dfs_block_used(member_block(la, vb, mb)); m; m &= m - 1) {
                    unsigned k = (unsigned)__builtin_ctzll(m);
                    dfs_lagg_merge(dfs_fam(la, r->tot, l, k), dfs_fam(la, member_block(la, vb, mb), l, k),
                                   la->fam_sized[l][k]);
                }
            }
            member_vals f = member_fam(la, vb, mb, 0);
            if (f.time > best)
                best = f.time;
            r->nprocs += f.count > 0 && !process_view(vb->type);
        }
        const lagg *t = slot_fam(la, r, l, 0);
        if (t->count)
            r->tm = (sum_mode || process_view(vb->type)) ? secs(t->time) : secs(best);
    }
}

/* A distinct file of a row and layer, when several axes fall into one row (threads of a process). */
typedef struct row_file {
    uint32_t layer, pad;
    uint64_t row, file;
} row_file;

/* The row of a distinct-file key in this view; SIZE_MAX when it has none. */
static size_t nuniq_row(const views_mem *vm, const view_build *vb, const nuniq_key *k, int64_t shift)
{
    if (vb->type == DFS_VIEW_TIME_RANGE)
        return k->kind == CELL_TIME ? bin_index(vm, k->axis + shift) : SIZE_MAX;
    return k->kind == CELL_FILE ? proc_row(vm, vb, vm->canon[k->axis]) : SIZE_MAX;
}

static bool count_files(dfs_layered *la, views_mem *vm, view_build *vb, int64_t shift)
{
    if (vb->type == DFS_VIEW_FILE_NAME)
        return true;
    /* the keys are distinct per (bin or process, file); rows that are bins, or processes that are
     * their own canonical process, need no second set to stay distinct */
    bool one_to_one = vb->type == DFS_VIEW_TIME_RANGE ||
                      (vb->type == DFS_VIEW_PROC_NAME && vm->nprocs == la->total.proc_v.n);
    dfs_keyset seen;
    dfs_keyset_init(&seen, sizeof(row_file));
    const dfs_sortset *keys = &la->total.nuniq; /* compacted: distinct keys, in order */
    bool ok = true;
    for (size_t i = 0; ok && i < keys->n;) {
        nuniq_key k = dfs_nuniq_decode(keys->v[i]);
        uint32_t layers = 0; /* the layers the file was seen in, over the keys that differ only there */
        for (; i < keys->n && dfs_nuniq_same_file(keys->v[i], dfs_nuniq_encode(&k)); i++)
            layers |= dfs_nuniq_decode(keys->v[i]).layers;
        size_t row = nuniq_row(vm, vb, &k, shift);
        if (row >= vb->nrows)
            continue;
        for (uint32_t m = layers; ok && m; m &= m - 1) {
            uint32_t l = k.group * NUNIQ_GROUP + (uint32_t)__builtin_ctz(m);
            row_file d = {.layer = l, .row = row, .file = k.file};
            int fresh = one_to_one ? 1 : dfs_keyset_add(&seen, &d);
            ok = fresh >= 0;
            vb->rl[row * NL(la) + l].nfiles += fresh == 1;
        }
    }
    dfs_keyset_free(&seen);
    return ok;
}

static void add_exact(rowlayer *r, const dfs_ovl_measure *m)
{
    r->has_exact = true;
    r->u_exact += m->measure - m->with_ref;
    r->u_exact_count += m->exposed_count;
    r->u_exact_size += m->exposed_weight;
}

/* The row of a process (host, pid) in the host and pid views; SIZE_MAX in the others, whose
 * rows are threads or files: exact overlap is measured per process (overlap.md §3.2). */
static size_t process_row(const dfs_layered *la, const view_build *vb, const dfs_run *run, const proc_info *pi)
{
    if (vb->type == DFS_VIEW_PROC_ID) {
        char pid[24];
        snprintf(pid, sizeof pid, "%lld", (long long)pi->key.pid);
        size_t r = find_text(vb->row_keys, vb->nrows, pid);
        return r < vb->nrows ? r : SIZE_MAX;
    }
    if (vb->type != DFS_VIEW_HOST_NAME)
        return SIZE_MAX;
    char *host = host_text(la, run, pi);
    size_t r = host ? find_text(vb->row_keys, vb->nrows, host) : vb->nrows;
    free(host);
    return r < vb->nrows ? r : SIZE_MAX;
}

/* The bins of a process's engine into the time view's rows. An engine bin that is no row (an
 * event crossing into a bin where no event starts) has no row to report it in. */
static void exact_bins(const dfs_layered *la, const views_mem *vm, view_build *vb, const dfs_ovl *o,
                       uint64_t layers, int64_t shift)
{
    for (size_t b = 0; b < dfs_ovl_nbins(o); b++) {
        int64_t bin;
        if (__builtin_add_overflow(dfs_ovl_bin_index(o, b), shift, &bin))
            continue; /* beyond every row */
        size_t row = bin_index(vm, bin);
        if (row >= vb->nrows || vb->row_bins[row] != bin)
            continue;
        for (uint64_t m = layers; m; m &= m - 1) {
            unsigned l = (unsigned)__builtin_ctzll(m);
            add_exact(&vb->rl[row * NL(la) + l], dfs_ovl_bin(o, b, la->ovl_class[l]));
        }
    }
}

/* Exact unoverlapped time per row (exact mode): from each process's interval engine. */
static void exact_rows(dfs_layered *la, const views_mem *vm, view_build *vb, const dfs_run *run, int64_t shift)
{
    if (la->opt.compat != DFS_COMPAT_NONE || vb->type == DFS_VIEW_FILE_NAME)
        return;
    uint64_t layers = 0;
    for (unsigned l = 0; l < NL(la); l++)
        if (la->plan.layers[l].unoverlapped && (la->ovl_classes >> l & 1))
            layers |= UINT64_C(1) << l;
    const acc *a = &la->total;
    for (size_t p = 0; p < a->ovl.n; p++) {
        dfs_ovl *o = a->ovl.v[p];
        if (!o)
            continue;
        if (vb->type == DFS_VIEW_TIME_RANGE) {
            exact_bins(la, vm, vb, o, layers, shift);
            continue;
        }
        size_t prow = process_row(la, vb, run, &a->pproc_v.v[p]);
        for (uint64_t m = layers; m && prow != SIZE_MAX; m &= m - 1) {
            unsigned l = (unsigned)__builtin_ctzll(m);
            add_exact(&vb->rl[prow * NL(la) + l], dfs_ovl_total(o, la->ovl_class[l]));
        }
    }
}

/* ----- per-layer summaries (§8.1) ----------------------------------------------------------- */

static int layer_named(const dfs_layered *la, const char *name)
{
    for (size_t l = 0; l < NL(la); l++)
        if (strcmp(la->plan.layers[l].name, name) == 0)
            return (int)l;
    return -1;
}

static bool has_children(const dfs_layered *la, size_t l)
{
    for (size_t c = 0; c < NL(la); c++)
        if (la->plan.layers[c].parent == (int)l)
            return true;
    return false;
}

static bool gets_u(const dfs_layered *la, const view_build *vb, size_t l, int compute)
{
    if (compute < 0 || (int)l == compute || !la->plan.layers[l].unoverlapped)
        return false;
    return la->opt.compat != DFS_COMPAT_NONE || vb->type != DFS_VIEW_FILE_NAME;
}

static double nz(double x)
{
    return isnan(x) ? 0 : x;
}

static double slot_tm(const dfs_layered *la, const view_build *vb, size_t row, int l)
{
    return l < 0 ? NAN : vb->rl[row * NL(la) + (size_t)l].tm;
}

static double overhead(const dfs_layered *la, const view_build *vb, size_t row, size_t l)
{
    double tm = slot_tm(la, vb, row, (int)l);
    if (isnan(tm))
        return NAN;
    double kids = 0;
    for (size_t c = 0; c < NL(la); c++)
        if (la->plan.layers[c].parent == (int)l)
            kids += nz(slot_tm(la, vb, row, (int)c));
    return tm - kids > 0 ? tm - kids : 0;
}

/* The reference's unoverlapped time of a slot: max(L tm − compute tm, 0); NAN without L. */
static double ref_u(const dfs_layered *la, const view_build *vb, size_t row, size_t l, int compute)
{
    double tm = slot_tm(la, vb, row, (int)l);
    if (isnan(tm))
        return NAN;
    double u = tm - nz(slot_tm(la, vb, row, compute));
    return u > 0 ? u : 0;
}

static void exact_summary(const dfs_layered *la, size_t l, dfs_layer_summary *s)
{
    const acc *a = &la->total;
    s->u_count = s->u_size = 0;
    int64_t u = 0, base = 0; /* integer ns: the same sum in any process order */
    double size = 0;
    for (size_t p = 0; p < a->ovl.n; p++) {
        if (!a->ovl.v[p])
            continue;
        const dfs_ovl_measure *m = dfs_ovl_total(a->ovl.v[p], la->ovl_class[l]);
        u += m->measure - m->with_ref;
        base += m->measure;
        s->u_count += m->exposed_count;
        size += m->exposed_weight;
    }
    s->u_size = (uint64_t)size;
    s->u_time_s = secs(u);
    s->u_base_s = secs(base);
}

static void summarize(const dfs_layered *la, const view_build *vb, size_t l, int compute, dfs_layer_summary *s)
{
    const dfs_preset_layer *L = &la->plan.layers[l];
    bool max_mode = process_view(vb->type) && la->opt.compat != DFS_COMPAT_DFANALYZER_SUM;
    memset(s, 0, sizeof *s);
    s->sized = L->size_layer;
    s->has_u = gets_u(la, vb, l, compute);
    s->overhead_s = has_children(la, l) ? 0 : NAN;
    int64_t time_sum = 0;
    for (size_t r = 0; r < vb->nrows; r++) {
        const rowlayer *rl = &vb->rl[r * NL(la) + l];
        if (isnan(rl->tm))
            continue;
        s->count += slot_fam(la, rl, l, 0)->count;
        time_sum += slot_fam(la, rl, l, 0)->time;
        s->size += slot_size(la, rl, l);
        s->time_s = max_mode ? fmax(s->time_s, rl->tm) : s->time_s + rl->tm;
        s->num_files = rl->nfiles > s->num_files ? rl->nfiles : s->num_files;
        s->num_processes = rl->nprocs > s->num_processes ? rl->nprocs : s->num_processes;
        if (!isnan(s->overhead_s))
            s->overhead_s += overhead(la, vb, r, l);
        double u = s->has_u ? ref_u(la, vb, r, l, compute) : NAN;
        if (!(u > 0) || la->opt.compat == DFS_COMPAT_NONE)
            continue;
        s->u_time_s = max_mode ? fmax(s->u_time_s, u) : s->u_time_s + u;
        s->u_count += slot_fam(la, rl, l, 0)->count;
        s->u_size += slot_size(la, rl, l);
    }
    s->time_sum_s = secs(time_sum);
    s->u_base_s = s->time_s;
    if (s->has_u && la->opt.compat == DFS_COMPAT_NONE)
        exact_summary(la, l, s);
    if (!L->size_layer)
        s->size = s->u_size = 0;
    if (vb->type == DFS_VIEW_FILE_NAME || !L->size_layer)
        s->num_files = 0;
    s->ops = s->time_s > 0 ? (double)s->count / s->time_s : NAN;
    s->bandwidth = L->size_layer && s->size > 0 && s->time_s > 0 ? (double)s->size / s->time_s : NAN;
}

/* ----- flat-view columns (§6.4-§7) ---------------------------------------------------------- */

/* Emission runs once with `names` set (collecting column names, row = SIZE_MAX) and once per
 * row (collecting values), so names and values cannot drift apart. */
typedef struct emitter {
    const dfs_layered *la;
    view_build *vb;
    bool names;
    bool failed;
    const char *tmname;
    int compute, top;
    double *col_total; /* per layer: Σ rows of count, tm, time_sum, size (4 each) */
} emitter;

static void put(emitter *e, double v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(emitter *e, double v, const char *fmt, ...)
{
    if (e->names) {
        char buf[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        char *name = strdup(buf);
        if (!name || !dfs_vec_push(&e->vb->columns, name)) {
            free(name);
            e->failed = true;
        }
        return;
    }
    if (isinf(v))
        v = NAN;
    if (!dfs_vec_push(&e->vb->cells, v))
        e->failed = true;
}

typedef struct dist {
    double sum, min, max, mean, std;
} dist;

/* A value's distribution over a slot's members, as it is summed. */
typedef struct dist_acc {
    double sum, sq, min, max;
} dist_acc;

static void dist_add(dist_acc *d, double x, bool first)
{
    d->min = first ? x : fmin(d->min, x);
    d->max = first ? x : fmax(d->max, x);
    d->sum += x;
    d->sq += x * x;
}

/* sum/min/max/mean/std (ddof = 1; NAN for one value) of n values. */
static dist dist_of(const dist_acc *d, uint32_t n)
{
    if (!n)
        return (dist){0, NAN, NAN, NAN, NAN};
    double std = n > 1 ? sqrt(fmax((d->sq - d->sum * d->sum / n) / (n - 1), 0)) : NAN;
    return (dist){d->sum, d->min, d->max, d->sum / n, std};
}

/* The distributions of a family's count, time and size over the slot's members, in one pass. */
static void member_dists(const dfs_layered *la, const view_build *vb, const rowlayer *rl, unsigned f, dist *count,
                         dist *time, dist *size)
{
    dist_acc c = {0}, t = {0}, s = {0};
    uint32_t n = rl ? rl->n : 0;
    for (uint32_t i = 0; i < n; i++) {
        member_vals a = member_fam(la, vb, &vb->members[rl->first + i], f);
        dist_add(&c, (double)a.count, i == 0);
        dist_add(&t, secs(a.time), i == 0);
        dist_add(&s, (double)a.size, i == 0);
    }
    *count = dist_of(&c, n);
    *time = dist_of(&t, n);
    *size = dist_of(&s, n);
}

static void put_dist(emitter *e, const dist *d, const char *p, const char *what)
{
    put(e, d->min, "%s%s_proc_min", p, what);
    put(e, d->max, "%s%s_proc_max", p, what);
    put(e, d->mean, "%s%s_proc_mean", p, what);
    put(e, d->std, "%s%s_proc_std", p, what);
}

static double ratio(double a, double b)
{
    return b != 0 && !isnan(a) && !isnan(b) ? a / b : NAN;
}

static void put_family(emitter *e, const rowlayer *rl, size_t l, unsigned f, const char *p, bool sized)
{
    const lagg *t = rl && rl->n ? slot_fam(e->la, rl, l, f) : NULL;
    bool any = t && t->count;
    dist dc, dt, ds;
    member_dists(e->la, e->vb, rl, f, &dc, &dt, &ds);
    put(e, any ? (double)t->count : NAN, "%scount_sum", p);
    put_dist(e, &dc, p, "count");
    double time = any ? secs(t->time) : NAN, n = any ? (double)t->count : NAN;
    double mean = ratio(time, n);
    put(e, time, "%stime_sum", p);
    put_dist(e, &dt, p, "time");
    put(e, any ? secs(t->time_min) : NAN, "%stime_call_min", p);
    put(e, any ? secs(t->time_max) : NAN, "%stime_call_max", p);
    put(e, mean, "%stime_call_mean", p);
    put(e, any ? sqrt(fmax((double)t->time_sq / 1e18 / n - mean * mean, 0)) : NAN, "%stime_call_std", p);
    double tm = strcmp(e->tmname, "time_sum") == 0 ? time : (any ? dt.max : NAN);
    put(e, ratio(n, tm), "%sops", p);
    if (!sized)
        return;
    bool has_size = any && t->sized;
    double size = has_size ? (double)t->size : NAN;
    double per = e->la->opt.compat == DFS_COMPAT_NONE ? (has_size ? (double)t->sized : NAN) : n;
    double smean = ratio(size, per);
    put(e, size, "%ssize_sum", p);
    put_dist(e, &ds, p, "size");
    put(e, has_size ? (double)t->size_min : NAN, "%ssize_call_min", p);
    put(e, has_size ? (double)t->size_max : NAN, "%ssize_call_max", p);
    put(e, smean, "%ssize_call_mean", p);
    put(e, has_size ? sqrt(fmax((double)t->size_sq / per - smean * smean, 0)) : NAN, "%ssize_call_std", p);
    put(e, ratio(size, tm), "%sbw", p);
    put(e, ratio(n, size), "%sintensity", p);
    for (int b = 0; b < DFS_SIZE_BINS; b++)
        put(e, any ? (double)t->bins[b] : NAN, "%ssize_bin_%s_sum", p, dfs_size_bin_suffix[b]);
}

static void put_layer(emitter *e, size_t row, size_t l)
{
    const dfs_layered *la = e->la;
    const dfs_preset_layer *L = &la->plan.layers[l];
    const view_build *vb = e->vb;
    const rowlayer *rl = e->names ? NULL : &vb->rl[row * NL(la) + l];
    char p[192];
    snprintf(p, sizeof p, "%s_", L->name);
    put_family(e, rl, l, 0, p, L->size_layer);
    for (size_t d = 0; d < L->nderived && d < DFS_PRESET_MAX_DERIVED; d++) {
        snprintf(p, sizeof p, "%s_%s_", L->name, L->derived[d].name);
        put_family(e, rl, l, (unsigned)d + 1, p, L->size_layer && L->derived[d].sized);
    }
    const lagg *t = rl && rl->n ? slot_fam(la, rl, l, 0) : NULL;
    bool any = t && t->count;
    if (!process_view(vb->type))
        put(e, any ? (double)rl->nprocs : NAN, "%s_proc_name_nunique", L->name);
    if (L->size_layer && vb->type != DFS_VIEW_FILE_NAME)
        put(e, any ? (double)rl->nfiles : NAN, "%s_file_name_nunique", L->name);
    const double *tot = &e->col_total[4 * l];
    double count = any ? (double)t->count : NAN, tm = rl ? rl->tm : NAN;
    double tsum = any ? secs(t->time) : NAN;
    put(e, ratio(count, tot[0]), "%s_count_frac_total", L->name);
    put(e, ratio(tm, tot[1]), "%s_time_proc_frac_total", L->name);
    put(e, ratio(tsum, tot[2]), "%s_time_call_frac_total", L->name);
    if (L->size_layer)
        put(e, ratio(any ? (double)slot_size(la, rl, l) : NAN, tot[3]), "%s_size_call_frac_total", L->name);
    put(e, ratio(ratio(tm, tot[1]), ratio(count, tot[0])), "%s_ops_slope", L->name);
    if (e->top >= 0) {
        const char *top = la->plan.layers[e->top].name;
        const rowlayer *tr = rl ? &vb->rl[row * NL(la) + (size_t)e->top] : NULL;
        put(e, ratio(tm, tr ? tr->tm : NAN), "%s_time_proc_frac_%s", L->name, top);
        double top_sum = tr && tr->n ? secs(slot_fam(la, tr, (size_t)e->top, 0)->time) : NAN;
        put(e, ratio(tsum, top_sum), "%s_time_call_frac_%s", L->name, top);
    }
    if (has_children(la, l))
        put(e, rl ? overhead(la, vb, row, l) : NAN, "o_%s_%s", L->name, e->tmname);
    if (gets_u(la, vb, l, e->compute)) {
        put(e, rl ? ref_u(la, vb, row, l, e->compute) : NAN, "u_%s_%s", L->name, e->tmname);
        if (la->opt.compat == DFS_COMPAT_NONE) {
            put(e, rl && rl->has_exact ? secs(rl->u_exact) : NAN, "u_%s_time_exact", L->name);
            put(e, rl && rl->has_exact ? (double)rl->u_exact_count : NAN, "u_%s_count_exact", L->name);
            if (L->size_layer)
                put(e, rl && rl->has_exact ? rl->u_exact_size : NAN, "u_%s_size_exact", L->name);
        }
    }
}

static void column_totals(emitter *e)
{
    const dfs_layered *la = e->la;
    const view_build *vb = e->vb;
    for (size_t l = 0; l < NL(la); l++)
        for (size_t r = 0; r < vb->nrows; r++) {
            const rowlayer *rl = &vb->rl[r * NL(la) + l];
            if (isnan(rl->tm))
                continue;
            e->col_total[4 * l] += (double)slot_fam(la, rl, l, 0)->count;
            e->col_total[4 * l + 1] += rl->tm;
            e->col_total[4 * l + 2] += secs(slot_fam(la, rl, l, 0)->time);
            e->col_total[4 * l + 3] += (double)slot_size(la, rl, l);
        }
}

/* ----- additional metrics (§7.5) ------------------------------------------------------------ */

/* A formula's columns resolved to indices once per view, so rows are evaluated without
 * searching the (often thousand) column names. */
typedef struct formula_row {
    const dfs_formula *f;
    const size_t *index; /* per formula column: its index, or SIZE_MAX when absent */
    const double *values; /* this row's cells */
} formula_row;

static bool lookup_column(void *user, const char *column, double *value)
{
    const formula_row *fr = user;
    for (size_t i = 0; i < dfs_formula_ncolumns(fr->f); i++)
        if (strcmp(dfs_formula_column(fr->f, i), column) == 0) {
            if (fr->index[i] == SIZE_MAX)
                return false;
            *value = fr->values[fr->index[i]];
            return !isnan(*value);
        }
    return false;
}

static size_t *resolve_columns(const view_build *vb, const dfs_formula *f)
{
    size_t n = dfs_formula_ncolumns(f);
    size_t *index = malloc((n + 1) * sizeof *index);
    for (size_t i = 0; index && i < n; i++) {
        index[i] = SIZE_MAX;
        for (size_t c = 0; c < vb->columns.n && index[i] == SIZE_MAX; c++)
            if (strcmp(vb->columns.v[c], dfs_formula_column(f, i)) == 0)
                index[i] = c;
    }
    return index;
}

static const char *unit_of(const char *name)
{
    static const struct { const char *suffix, *unit; } units[] = {
        {"_gbps", "GB/s"}, {"_mbps", "MB/s"}, {"_gb", "GB"}, {"_mb", "MB"}};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        size_t m = strlen(units[i].suffix);
        if (n >= m && strcmp(name + n - m, units[i].suffix) == 0)
            return units[i].unit;
    }
    return "";
}

/* Parses the view's formulas; NULL entries for formulas of other views. */
static dfs_formula **view_formulas(const dfs_layered *la, const view_build *vb, const char *tmname)
{
    const dfs_preset *ps = la->opt.preset;
    dfs_formula **f = calloc(ps->nadditional + 1, sizeof *f);
    dfs_formula_vars vars = {.time_metric = tmname, .epsilon = 1e-9,
                             .time_interval = (double)la->opt.granularity_ns / 1e9};
    for (size_t i = 0; f && i < ps->nadditional; i++) {
        const dfs_additional_metric *m = &ps->additional[i];
        if (m->view && strcmp(m->view, dfs_view_name(vb->type)) != 0)
            continue;
        dfs_preset_error err;
        f[i] = dfs_formula_parse(m->formula, &vars, &err); /* validated at load: NULL only on OOM */
    }
    return f;
}

static void put_additional(emitter *e, dfs_formula **f, size_t **index, size_t row_start)
{
    const dfs_preset *ps = e->la->opt.preset;
    for (size_t i = 0; i < ps->nadditional; i++) {
        if (!f[i])
            continue;
        double v = NAN;
        if (!e->names && !index[i])
            index[i] = resolve_columns(e->vb, f[i]);
        if (!e->names && index[i]) {
            formula_row fr = {f[i], index[i], e->vb->cells.v + row_start};
            if (!dfs_formula_eval(f[i], lookup_column, &fr, &v))
                v = NAN;
        }
        put(e, v, "%s", ps->additional[i].name);
    }
}

static bool summarize_additional(const dfs_layered *la, view_build *vb, dfs_formula **f)
{
    const dfs_preset *ps = la->opt.preset;
    vb->additional = calloc(ps->nadditional + 1, sizeof *vb->additional);
    if (!vb->additional)
        return false;
    size_t ncol = vb->columns.n;
    for (size_t i = 0; i < ps->nadditional; i++) {
        if (!f[i])
            continue;
        dfs_additional_summary *s = &vb->additional[vb->nadditional++];
        s->name = ps->additional[i].name;
        s->unit = unit_of(s->name);
        s->min = s->max = s->mean = NAN;
        size_t c = 0;
        while (c < ncol && strcmp(vb->columns.v[c], s->name) != 0)
            c++;
        double sum = 0;
        for (size_t r = 0; r < vb->nrows && c < ncol; r++) {
            double v = vb->cells.v[r * ncol + c];
            if (isnan(v))
                continue;
            s->min = s->non_null ? fmin(s->min, v) : v;
            s->max = s->non_null ? fmax(s->max, v) : v;
            sum += v;
            s->non_null++;
        }
        if (s->non_null)
            s->mean = sum / (double)s->non_null;
    }
    return true;
}

static bool emit_columns(dfs_layered *la, view_build *vb)
{
    bool sum_mode = la->opt.compat == DFS_COMPAT_DFANALYZER_SUM;
    emitter e = {.la = la, .vb = vb, .names = true,
                 .tmname = (sum_mode || process_view(vb->type)) ? "time_sum" : "time_proc_max",
                 .compute = layer_named(la, "compute"),
                 .top = la->opt.preset->auto_layers ? 0 : la->opt.preset->time_boundary};
    e.col_total = calloc(4 * NL(la) + 1, sizeof *e.col_total);
    dfs_formula **f = view_formulas(la, vb, e.tmname);
    size_t **index = calloc(la->opt.preset->nadditional + 1, sizeof *index);
    if (!e.col_total || !f || !index) {
        free(e.col_total);
        free(f);
        free(index);
        return false;
    }
    column_totals(&e);
    for (size_t row = SIZE_MAX;; row++) { /* SIZE_MAX: the names pass; then rows 0..nrows-1 */
        e.names = row == SIZE_MAX;
        if (!e.names && row >= vb->nrows)
            break;
        size_t start = vb->cells.n;
        for (size_t l = 0; l < NL(la); l++)
            put_layer(&e, row, l);
        put_additional(&e, f, index, start);
    }
    bool ok = !e.failed && summarize_additional(la, vb, f);
    for (size_t i = 0; i < la->opt.preset->nadditional; i++) {
        dfs_formula_free(f[i]);
        free(index[i]);
    }
    free(f);
    free(index);
    free(e.col_total);
    return ok;
}

/* ----- assembly ------------------------------------------------------------------------------ */

/* A view's first half, from the merged cells alone: its rows, members and slot statistics. */
static bool view_members(dfs_layered *la, views_mem *vm, view_build *vb, const dfs_run *run, int64_t shift)
{
    bool ok;
    switch (vb->type) {
    case DFS_VIEW_TIME_RANGE:
        ok = time_rows(vm, vb);
        break;
    case DFS_VIEW_FILE_NAME:
        ok = file_rows(la, vb, run);
        break;
    default:
        ok = group_rows(vm, vb);
        break;
    }
    size_t nslots = vb->nrows * NL(la);
    uint32_t *tot_index = malloc((nslots + 1) * sizeof *tot_index);
    ok = ok && tot_index && build_members(la, vm, vb, run, shift, tot_index);
    if (ok)
        slot_stats(la, vm, vb, tot_index, shift);
    free(tot_index);
    return ok;
}

/* Its second half, once the distinct-file keys are compacted and the engines finished. */
static bool view_rest(dfs_layered *la, views_mem *vm, view_build *vb, const dfs_run *run, int64_t shift)
{
    if (!count_files(la, vm, vb, shift))
        return false;
    exact_rows(la, vm, vb, run, shift);
    int compute = layer_named(la, "compute");
    vb->summary = calloc(NL(la) + 1, sizeof *vb->summary);
    if (!vb->summary)
        return false;
    for (size_t l = 0; l < NL(la); l++)
        summarize(la, vb, l, compute, &vb->summary[l]);
    if (!dfs_layered_needs_columns(&la->opt))
        return true;
    return emit_columns(la, vb);
}

/* The finishing steps after the merge run as jobs that workers take in turn, in two stages.
 * Stage 1 holds what reads only the merged cells and what stage 2 waits for: each view's first
 * half, the compaction of the distinct-file keys (the views' and the raw statistics'), and each
 * process's last engine flush (often most of its work). Stage 2 holds each view's second half. A
 * job writes only its own view, set or engine, and reads what no job of its stage writes. The
 * largest jobs (the views, then the keys) come first, so that the many small ones fill in behind
 * them: the time view's members (when it keeps them, or groups cells) and the keys' sort then run
 * side by side. */
typedef struct finish_plan {
    dfs_layered *la;
    views_mem *vm;
    const dfs_run *run;
    int64_t shift;
    int stage;
    atomic_size_t next;
    atomic_bool failed;
} finish_plan;

static size_t stage_jobs(const finish_plan *p)
{
    return p->stage == 1 ? p->vm->nviews + 1 + p->la->total.ovl.n : p->vm->nviews;
}

static bool run_job(finish_plan *p, size_t j)
{
    views_mem *vm = p->vm;
    acc *a = &p->la->total;
    if (j < vm->nviews)
        return p->stage == 1 ? view_members(p->la, vm, &vm->views[j], p->run, p->shift)
                             : view_rest(p->la, vm, &vm->views[j], p->run, p->shift);
    if (j == vm->nviews)
        return dfs_sortset_compact(&a->nuniq) && dfs_sortset_compact(&a->fhashes);
    dfs_ovl *o = a->ovl.v[j - vm->nviews - 1];
    return !o || dfs_ovl_finish(o);
}

static void *finish_worker(void *arg)
{
    finish_plan *p = *(finish_plan **)arg;
    size_t j;
    while (!atomic_load(&p->failed) && (j = atomic_fetch_add(&p->next, 1)) < stage_jobs(p))
        if (!run_job(p, j))
            atomic_store(&p->failed, true);
    return NULL;
}

#define MAX_WORKERS 8 /* threads of the finishing steps, at most */

/* Runs fn on n workers (w: n items of `size` bytes): worker 0 here, the others on threads of
 * their own, or here as well when a thread cannot start (slower, same answer). */
static void run_workers(void *(*fn)(void *), void *w, size_t size, size_t n)
{
    pthread_t threads[MAX_WORKERS];
    bool started[MAX_WORKERS] = {false};
    for (size_t i = 1; i < n; i++)
        started[i] = pthread_create(&threads[i], NULL, fn, (char *)w + i * size) == 0;
    fn(w);
    for (size_t i = 1; i < n; i++) {
        if (started[i])
            pthread_join(threads[i], NULL);
        else
            fn((char *)w + i * size);
    }
}

/* How many workers share `jobs` independent jobs: the run's jobs, at most one per job. */
static size_t workers_for(const dfs_run *run, size_t jobs)
{
    size_t n = dfs_run_jobs(run);
    if (n > jobs)
        n = jobs;
    if (n > MAX_WORKERS)
        n = MAX_WORKERS;
    return n < 1 ? 1 : n;
}

static bool run_stage(finish_plan *p, int stage)
{
    p->stage = stage;
    atomic_store(&p->next, 0);
    finish_plan *w[MAX_WORKERS];
    size_t n = workers_for(p->run, stage_jobs(p));
    for (size_t i = 0; i < n; i++)
        w[i] = p;
    run_workers(finish_worker, w, sizeof *w, n);
    return !atomic_load(&p->failed);
}

static void view_totals(const dfs_layered *la, const views_mem *vm, dfs_view_result *r)
{
    for (size_t v = 0; v < vm->nviews; v++) {
        if (vm->views[v].type == DFS_VIEW_FILE_NAME)
            r->total_files = vm->views[v].nrows;
        if (vm->views[v].type == DFS_VIEW_PROC_NAME)
            r->total_processes = vm->views[v].nrows;
    }
    bool have_files = la->opt.views >> DFS_VIEW_FILE_NAME & 1, have_procs = la->opt.views >> DFS_VIEW_PROC_NAME & 1;
    for (size_t l = 0; l < NL(la); l++) {
        if (!have_files)
            r->total_files += r->layers[l].num_files;
        if (!have_procs && r->layers[l].num_processes > r->total_processes)
            r->total_processes = r->layers[l].num_processes;
    }
}

static void raw_result(dfs_layered *la, views_mem *vm)
{
    dfs_layered_result *res = &la->result;
    const acc *a = &la->total;
    res->compat = la->opt.compat;
    res->preset = la->opt.preset;
    res->layers = la->plan.layers;
    res->nlayers = NL(la);
    res->origin_ns = a->have_time ? a->min_ts : 0;
    res->job_time_s = a->have_time ? secs(a->max_end - a->min_ts) : 0;
    res->events = a->events;
    res->unique_files = a->fhashes.n; /* compacted by a finishing job */
    res->unique_hosts = a->hhashes.count;
    res->unique_processes = a->pids.count;
    res->no_duration = a->no_duration;
    res->bad_time = a->bad_time;
    res->other_phases = a->other_phases;
    res->dropped_files = a->dropped_files;
    res->dropped_functions = a->dropped_functions;
    res->post_read_events = a->post_read;
    res->granularity_s = (double)la->opt.granularity_ns / 1e9;
    res->threads = vm->nprocs;
    res->layer_count_total = a->layer_events;
}

bool dfs_layered_build_views(dfs_layered *la, const dfs_run *run, int64_t shift)
{

    views_mem *vm = calloc(1, sizeof *vm);
    if (!vm)
        return false;
    la->views_mem = vm;
    if (!canonical_procs(la, vm, run) || !(vm->bins = distinct_bins(&la->total, shift, &vm->nbins)) ||
        !bin_table(vm))
        return false;
    vm->views = calloc(la->opt.norder + 1, sizeof *vm->views);
    vm->results = calloc(la->opt.norder + 1, sizeof *vm->results);
    if (!vm->views || !vm->results)
        return false;
    for (size_t v = 0; v < la->opt.norder; v++)
        vm->views[v].type = la->opt.order[v];
    vm->nviews = la->opt.norder;
    finish_plan plan = {.la = la, .vm = vm, .run = run, .shift = shift};
    atomic_init(&plan.next, 0);
    atomic_init(&plan.failed, false);
    if (!run_stage(&plan, 1) || !run_stage(&plan, 2))
        return false;
    raw_result(la, vm);
    for (size_t v = 0; v < vm->nviews; v++) {
        view_build *vb = &vm->views[v];
        dfs_view_result *r = &vm->results[v];
        *r = (dfs_view_result){.type = vb->type, .layers = vb->summary, .row_keys = (const char *const *)vb->row_keys,
                               .row_bins = vb->type == DFS_VIEW_TIME_RANGE ? vb->row_bins : NULL,
                               .nrows = vb->nrows, .columns = (const char *const *)vb->columns.v,
                               .ncolumns = vb->columns.n, .cells = vb->cells.v,
                               .additional = vb->additional, .nadditional = vb->nadditional};
        view_totals(la, vm, r);
    }
    la->result.views = vm->results;
    la->result.nviews = vm->nviews;
    return true;
}

void dfs_layered_free_views(dfs_layered *la)
{
    views_mem *vm = la->views_mem;
    if (!vm)
        return;
    for (size_t v = 0; v < vm->nviews; v++) {
        view_build *vb = &vm->views[v];
        for (size_t i = 0; vb->row_keys && i < vb->nrows; i++)
            free(vb->row_keys[i]);
        free(vb->row_keys);
        free(vb->members);
        free(vb->rl);
        for (size_t c = 0; c < vb->columns.n; c++)
            free(vb->columns.v[c]);
        dfs_vec_free(&vb->columns);
        dfs_vec_free(&vb->cells);
        free(vb->summary);
        free(vb->additional);
        dfs_vec_free(&vb->tot_units);
        dfs_vec_free(&vb->units);
    }
    free(vm->views);
    free(vm->results);
    for (size_t p = 0; p < vm->nprocs; p++) {
        free(vm->procs[p].name);
        free(vm->procs[p].host);
    }
    free(vm->procs);
    free(vm->canon);
    free(vm->bins);
    free(vm->bin_pos);
    free(vm);
    la->views_mem = NULL;
}
