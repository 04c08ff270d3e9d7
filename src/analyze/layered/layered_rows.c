/* layered_rows.c - a view's rows and what they hold: the canonical processes, the run's time bins,
 * each view's rows, the members of each (row, layer) slot summed from the merged cells, and the
 * slots' statistics: totals, tm, distinct processes and files, exact unoverlapped time
 * (layered_internal.h says what members and tm are).
 *
 * Invariants: a view's members are ordered by slot, member id, then cell index, whatever order the
 * workers' cells were merged in, so floating-point statistics are the same for any -j; a slot has
 * totals exactly when it has members; the canonical processes and bins are made before the
 * stages, and from then on read only; a view's functions (finishing jobs of one stage, run side by
 * side: layered_views.c) write only their own view_build. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/layered/layered_internal.h"

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

bool dfs_layered_canonical_procs(dfs_layered *la, views_mem *vm, const dfs_run *run)
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

/* A table over a span of bins (dfs_layered_bin_table, dense_bins) is worth its memory while it
 * has at most a few entries per bin. */
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
int64_t *dfs_layered_distinct_bins(const acc *a, int64_t shift, size_t *count)
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
bool dfs_layered_bin_table(views_mem *vm)
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

/* Row and member of a cell in this view; false when the cell does not belong to the view. */
static bool place(const views_mem *vm, const view_build *vb, const dfs_run *run, const cell *c, int64_t shift,
                  uint32_t canon, uint32_t *row, uint32_t *id)
{
    if (c->key.kind != dfs_layered_member_kind(vb))
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
        r->nprocs += count > 0 || time > 0;
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
    if (memberless(la, vb) && dfs_layered_process_view(vb->type))
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
    return i < vb->nmembers ? dfs_layered_member_block(la, vb, &vb->members[i]) : NULL;
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
    /* tm: Σ over the row's threads, except in DFAnalyzer's current numbers (the busiest thread) */
    bool sum_mode = la->opt.compat != DFS_COMPAT_DFANALYZER, file_view = vb->type == DFS_VIEW_FILE_NAME;
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
                for (uint64_t m = dfs_block_used(dfs_layered_member_block(la, vb, mb)); m; m &= m - 1) {
                    unsigned k = (unsigned)__builtin_ctzll(m);
                    dfs_lagg_merge(dfs_fam(la, r->tot, l, k), dfs_fam(la, dfs_layered_member_block(la, vb, mb), l, k),
                                   la->fam_sized[l][k]);
                }
            }
            member_vals f = dfs_layered_member_fam(la, vb, mb, 0);
            if (f.time > best)
                best = f.time;
            r->nprocs += (f.count > 0 || f.time > 0) && !dfs_layered_process_view(vb->type);
        }
        const lagg *t = dfs_layered_slot_fam(la, r, l, 0);
        if (t->count || t->time)
            r->tm = (sum_mode || dfs_layered_process_view(vb->type)) ? dfs_layered_secs(t->time)
                                                                     : dfs_layered_secs(best);
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

bool dfs_layered_count_files(dfs_layered *la, views_mem *vm, view_build *vb, int64_t shift)
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

/* The wall time of every layer per bin, from the run's wall engine (layered_wall.c). */
static void wall_bins(const dfs_layered *la, const views_mem *vm, view_build *vb, const dfs_ovl *o, int64_t shift)
{
    for (size_t b = 0; b < dfs_ovl_nbins(o); b++) {
        int64_t bin;
        if (__builtin_add_overflow(dfs_ovl_bin_index(o, b), shift, &bin))
            continue;
        size_t row = bin_index(vm, bin);
        if (row >= vb->nrows || vb->row_bins[row] != bin)
            continue;
        for (unsigned l = 0; l < NL(la); l++) {
            rowlayer *r = &vb->rl[row * NL(la) + l];
            r->has_wall = true;
            r->wall += dfs_ovl_bin(o, b, l)->measure;
        }
    }
}

/* Exact unoverlapped time per row (exact mode): from each process's interval engine; and the
 * time view's wall time per row. */
void dfs_layered_exact_rows(dfs_layered *la, const views_mem *vm, view_build *vb, const dfs_run *run, int64_t shift)
{
    if (la->opt.compat != DFS_COMPAT_NONE || vb->type == DFS_VIEW_FILE_NAME)
        return;
    if (vb->type == DFS_VIEW_TIME_RANGE && la->total.wall)
        wall_bins(la, vm, vb, la->total.wall, shift);
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

/* ----- a view's first half -------------------------------------------------------------------- */

/* A view's first half, from the merged cells alone: its rows, members and slot statistics. */
bool dfs_layered_view_members(dfs_layered *la, views_mem *vm, view_build *vb, const dfs_run *run, int64_t shift)
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
