/* layered_cells.c - where the cells of the layered analysis live and how an event finds its own.
 *
 * Most cells are time cells (layer, thread, bin), and every classified event looks one up per
 * layer it belongs to, so this is the hot path of `dfscope analyze`. A hash lookup per event and
 * layer (a table of millions of keys, each probe a cache miss) cost more than parsing the event.
 * So each (thread, layer) has a time row: a window of consecutive bins holding each bin's cell
 * index. A thread's events arrive nearly in time order, so its next event's bin is in the window
 * and is found by a subtraction. The window only grows while it stays within a few times the
 * row's cells (WINDOW_SLACK); a bin far away from the others (an absurd clock) is kept in the
 * cells map instead ("spilled"), so memory stays proportional to the cells whatever the clocks.
 *
 * Invariant: a time cell whose bin is in its row's window is in its window slot (once looked up
 * through the window); any other time cell is in the map. A row with spilled cells therefore
 * checks the map before creating a cell in an empty slot, since the window may have grown over a
 * bin spilled earlier (that cell then moves into the slot; the map's entry is never used again).
 * File cells (layer, thread, file) are always in the map. The bin totals (CELL_BIN) of a layer
 * live in a row of their own the same way; a thread's total (CELL_THREAD) is found from its row.
 *
 * A key has one cell within a worker's state. Merging workers appends cells (layered.c), so in the
 * total a key may have several; the views sum them like any member made of several cells.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/layered/layered_internal.h"

#define WINDOW_MIN 4096u  /* bins any row may span (16 KiB) */
#define WINDOW_SLACK 4u   /* a wider window needs at least one cell per WINDOW_SLACK bins */

static lunit *block_of(acc *a, uint32_t idx)
{
    return dfs_cell_block(a, &a->cell_v.v[idx]);
}

/* Units of a pool. Blocks go to the pool being filled until it is full, then to a new one: pools
 * never grow, because growing one by realloc copied it (and faulted its pages in twice) at every
 * doubling, which cost more than filling the blocks. */
#define POOL_UNITS (UINT32_C(1) << 18) /* 4 MiB */

/* The pool that takes a new block of nu units, started when the one being filled for `stream`
 * lacks room. The totals (CELL_BIN, CELL_THREAD) fill pools of their own: a bin's totals then lie
 * next to those of the bins before and after it, and reading a file walks through them in order
 * (interleaved with the time cells, each of the run's files missed the cache on every bin). */
static unit_pool *pool_with_room(acc *a, uint32_t nu, unsigned stream)
{
    uint32_t *fill = &a->filling[stream];
    unit_pool *cur = *fill ? &a->pools.v[*fill - 1] : NULL;
    if (cur && cur->cap - cur->n >= nu)
        return cur;
    size_t cap = nu > POOL_UNITS ? nu : POOL_UNITS;
    unit_pool fresh = {.v = malloc(cap * sizeof(lunit)), .cap = cap};
    if (!fresh.v || a->pools.n >= UINT32_MAX || !dfs_vec_push(&a->pools, fresh)) {
        free(fresh.v);
        return NULL;
    }
    *fill = (uint32_t)a->pools.n;
    return &a->pools.v[a->pools.n - 1];
}

/* Appends a cell with empty families; its index in *idx. */
static bool new_cell(dfs_layered *la, acc *a, const cell_key *k, uint32_t *idx)
{
    uint32_t nu = dfs_cell_units(la, k->kind, k->layer);
    unit_pool *units = pool_with_room(a, nu, k->kind == CELL_BIN || k->kind == CELL_THREAD);
    if (!units) {
        a->failed = true;
        return false;
    }
    cell c = {.key = *k, .agg = (uint32_t)units->n, .pool = (uint32_t)(units - a->pools.v)};
    if (a->cell_v.n >= UINT32_MAX || !dfs_vec_push(&a->cell_v, c) ||
        (k->kind == CELL_BIN && !dfs_vec_push(&a->bin_cells, (uint32_t)(a->cell_v.n - 1)))) {
        a->failed = true;
        return false;
    }
    units->n += nu;
    dfs_cell_init(la, k->kind, k->layer, &units->v[c.agg]);
    *idx = (uint32_t)(a->cell_v.n - 1);
    return true;
}

/* The cell of k in the cells map, created when new. */
static lunit *map_cell(dfs_layered *la, acc *a, const cell_key *k, bool *fresh)
{
    uint32_t idx;
    if (!dfs_keymap_get_or_put(&a->cells, k, (uint32_t)a->cell_v.n, &idx, fresh)) {
        a->failed = true;
        return NULL;
    }
    if (*fresh && !new_cell(la, a, k, &idx))
        return NULL;
    return block_of(a, idx);
}

/* Row i of `rows`, which grows with empty rows up to it. */
static time_row *row_at(acc *a, time_row_vec *rows, size_t i)
{
    if (!dfs_vec_extend_zeroed(rows, i + 1)) {
        a->failed = true;
        return NULL;
    }
    return &rows->v[i];
}

time_row *dfs_layered_row(dfs_layered *la, acc *a, uint32_t layer, uint32_t proc)
{
    return row_at(a, &a->rows, (size_t)proc * la->plan.nlayers + layer);
}

static bool window_reserve(acc *a, time_row *r, size_t need)
{
    if (need <= r->cap)
        return true;
    size_t cap = r->cap ? 2 * (size_t)r->cap : 16;
    if (cap < need)
        cap = need;
    uint32_t *s = realloc(r->slot, cap * sizeof *s);
    if (!s) {
        a->failed = true;
        return false;
    }
    r->slot = s;
    r->cap = (uint32_t)cap;
    return true;
}

/* The window slot of `bin`, the window grown over it when that keeps it dense enough; NULL when
 * the bin stays outside (or memory ran out: a->failed). */
static uint32_t *window_slot(acc *a, time_row *r, int64_t bin)
{
    if (r->len && bin >= r->base && (uint64_t)(bin - r->base) < r->len)
        return &r->slot[bin - r->base];
    uint64_t limit = WINDOW_SLACK * ((uint64_t)r->ncells + 1);
    if (limit < WINDOW_MIN)
        limit = WINDOW_MIN;
    if (!r->len) {
        if (!window_reserve(a, r, 1))
            return NULL;
        r->base = bin;
        r->len = 1;
        r->slot[0] = 0;
        return &r->slot[0];
    }
    /* the span of the grown window; it cannot overflow once it is compared in 128 bits */
    __int128 lo = bin < r->base ? bin : r->base, hi = bin < r->base ? r->base + (__int128)r->len - 1 : bin;
    if (hi - lo + 1 > (__int128)limit)
        return NULL;
    size_t len = (size_t)(hi - lo + 1);
    if (!window_reserve(a, r, len))
        return NULL;
    if (bin < r->base) { /* grow downwards: the slots move up */
        size_t shift = (size_t)(r->base - bin);
        memmove(r->slot + shift, r->slot, r->len * sizeof *r->slot);
        memset(r->slot, 0, shift * sizeof *r->slot);
        r->base = bin;
    } else {
        memset(r->slot + r->len, 0, (len - r->len) * sizeof *r->slot);
    }
    r->len = (uint32_t)len;
    return &r->slot[bin - r->base];
}

/* A cell of a row of bins: a time cell in its (thread, layer) row, a bin total in its layer's. */
static lunit *window_cell(dfs_layered *la, acc *a, const cell_key *k)
{
    time_row *r = k->kind == CELL_TIME ? dfs_layered_row(la, a, k->layer, k->proc)
                                       : row_at(a, &a->bin_rows, k->layer);
    if (!r)
        return NULL;
    uint32_t *slot = window_slot(a, r, k->axis);
    if (slot && *slot)
        return block_of(a, *slot - 1);
    if (a->failed)
        return NULL;
    uint32_t idx;
    if (!slot) { /* outside the window: a spilled cell */
        bool fresh;
        lunit *b = map_cell(la, a, k, &fresh);
        r->spilled += b && fresh;
        r->ncells += b && fresh;
        return b;
    }
    bool spilled_here = r->spilled && dfs_keymap_get(&a->cells, k, &idx);
    if (!spilled_here) {
        if (!new_cell(la, a, k, &idx))
            return NULL;
        r->ncells++;
    }
    *slot = idx + 1;
    return block_of(a, idx);
}

/* The CELL_THREAD cell of a (thread, layer), found through its time row. */
static lunit *thread_cell(dfs_layered *la, acc *a, const cell_key *k)
{
    time_row *r = dfs_layered_row(la, a, k->layer, k->proc);
    if (!r)
        return NULL;
    uint32_t idx;
    if (!r->total) {
        if (!new_cell(la, a, k, &idx))
            return NULL;
        r->total = idx + 1;
    }
    return block_of(a, r->total - 1);
}

lunit *dfs_layered_cell(dfs_layered *la, acc *a, const cell_key *k)
{
    switch (k->kind) {
    case CELL_TIME:
    case CELL_BIN:
        return window_cell(la, a, k);
    case CELL_THREAD:
        return thread_cell(la, a, k);
    default: {
        bool fresh;
        return map_cell(la, a, k, &fresh);
    }
    }
}

static void rows_free(time_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(rows[i].slot);
}

void dfs_layered_rows_free(acc *a)
{
    rows_free(a->rows.v, a->rows.n);
    dfs_vec_free(&a->rows);
    rows_free(a->bin_rows.v, a->bin_rows.n);
    dfs_vec_free(&a->bin_rows);
}

/* ----- staging ----------------------------------------------------------------------------------
 * A thread's events of one bin mostly share a few kinds (read, lseek, open, close...), and each
 * event used to update every family of every layer it belongs to: six sized families for a read
 * under posix and reader_posix. Staged, it updates one sum of its kind; the sums move into the
 * cells when the thread's bin changes, or its slot is needed, or the run ends. Every family is
 * integer sums, minima and maxima, so the cells end up exactly as if updated event by event. */

static void flush_slot(dfs_layered *la, acc *a, stage_slot *s)
{
    uint64_t layers = 0;
    for (unsigned i = 0; i < s->nkinds; i++) {
        layers |= s->kind[i].layers;
        for (uint64_t m = s->kind[i].layers; m; m &= m - 1) /* each event once per layer */
            a->layer_events += s->kind[i].sum.count;
    }
    for (uint64_t m = layers; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        cell_key kt = {.layer = l, .proc = s->proc, .axis = s->bin, .kind = CELL_TIME};
        cell_key kb = {.layer = l, .axis = s->bin, .kind = CELL_BIN};
        cell_key kp = {.layer = l, .proc = s->proc, .kind = CELL_THREAD};
        /* blocks stay where they are: pools never move (new_cell) */
        lunit *tb = dfs_layered_cell(la, a, &kt), *bb = tb ? dfs_layered_cell(la, a, &kb) : NULL;
        lunit *pb = bb ? dfs_layered_cell(la, a, &kp) : NULL;
        if (!pb)
            return; /* out of memory: a->failed is set */
        const uint64_t *own = dfs_slim(la, tb, l, 0); /* family 0 takes every event */
        bool fresh = !own[SLIM_COUNT] && !own[SLIM_TIME]; /* a piece alone has no count */
        for (unsigned i = 0; i < s->nkinds; i++) {
            const stage_kind *k = &s->kind[i];
            if (!(k->layers >> l & 1))
                continue;
            for (unsigned f = 0; f < la->nfam[l]; f++)
                if (dfs_fam_takes(la, l, f, k->match)) {
                    dfs_slim_merge(la, tb, l, f, &k->sum);
                    dfs_fam_merge(la, bb, l, f, &k->sum);
                    dfs_fam_merge(la, pb, l, f, &k->sum);
                }
        }
        bin_members *bm = dfs_bin_members(la, bb, l);
        bm->n += fresh && (own[SLIM_COUNT] || own[SLIM_TIME]);
        if ((int64_t)own[SLIM_TIME] > bm->top)
            bm->top = (int64_t)own[SLIM_TIME];
    }
    s->nkinds = 0;
}

/* A kind is what the families see of an event: its layers and the derived texts a family takes
 * (a run without derived families stages a read and a close of the same layers as one kind). */
static bool same_kind(const stage_kind *k, uint64_t layers, uint64_t match)
{
    return k->layers == layers && k->match == match;
}

void dfs_stage_add(dfs_layered *la, acc *a, dfs_stage *st, uint32_t proc, int64_t bin, const dfs_pr_event *pe,
                   const stage_piece *e)
{
    stage_slot *s = &st->slot[proc % DFS_STAGE_SLOTS];
    if (!s->used || s->proc != proc || s->bin != bin) {
        flush_slot(la, a, s);
        s->used = true;
        s->proc = proc;
        s->bin = bin;
    }
    uint64_t match = pe->match & la->fam_texts;
    unsigned i = s->last;
    if (i >= s->nkinds || !same_kind(&s->kind[i], pe->layers, match))
        for (i = 0; i < s->nkinds && !same_kind(&s->kind[i], pe->layers, match); i++)
            ;
    if (i == DFS_STAGE_KINDS) {
        flush_slot(la, a, s);
        i = 0;
    }
    if (i == s->nkinds) {
        s->kind[i].layers = pe->layers;
        s->kind[i].match = match;
        dfs_lagg_init(&s->kind[i].sum, true);
        s->nkinds++;
    }
    lagg *sum = &s->kind[i].sum;
    if (e->start) {
        dfs_fam_add(la, sum, e->dur, e->size, true);
        sum->time += e->piece - e->dur;
    } else {
        sum->time += e->piece;
    }
    s->last = i;
}

void dfs_stage_flush(dfs_layered *la, acc *a, dfs_stage *st)
{
    for (unsigned i = 0; i < DFS_STAGE_SLOTS; i++)
        flush_slot(la, a, &st->slot[i]);
}
