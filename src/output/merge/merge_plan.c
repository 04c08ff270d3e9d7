/* merge_plan.c - what the default merge decides once reading is over: each file's clock shift
 * (Composer clock sync), each lane's output pid (docs/MERGE.md, Lanes), the flow-id moves and the
 * metadata records it inserts (Composer's thread_sort_index, names of renumbered lanes). */
#include <stdlib.h>
#include <string.h>

#include "output/merge/merge_internal.h"
#include "util/keyset.h"

/* ---- clocks ------------------------------------------------------------------------------------------ */

static int64_t clamp128(__int128 v)
{
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

int64_t mplan_abs(const void *ctx, uint32_t file, int64_t ts)
{
    const mplan *p = ctx;
    const mfileplan *f = &p->files[file];
    const dfs_file_info *fi = f->fi;
    __int128 t = ts;
    if (fi->clock_scale_den > 0 && (fi->clock_scale_num != 1 || fi->clock_scale_den != 1))
        t = t * fi->clock_scale_num / fi->clock_scale_den;
    return clamp128(t + fi->clock_offset_ns + f->shift_ns);
}

/* What a Composer file says about its rank and clock. */
typedef struct crank {
    bool has_rank, has_clock, single;
    int64_t rank, clock;
    uint64_t clock_off;      /* of the first clock-sync record */
} crank;

/* Each Composer file's lowest rank (single: it has no other) and its clock: the clock-sync record
 * of that rank's lane, else the file's first one. Two passes over the lanes. */
static void file_ranks(const mplan *p, crank *cr)
{
    const mseen *s = &p->m->seen;
    for (size_t i = 0; i < s->lanes.n; i++) {
        const mlane *l = &s->lanes.v[i];
        crank *c = &cr[l->key.file];
        if (!p->files[l->key.file].composer)
            continue;
        if (l->has_rank && c->has_rank && l->rank != c->rank)
            c->single = false;
        if (l->has_rank && (!c->has_rank || l->rank < c->rank)) {
            c->has_rank = true;
            c->rank = l->rank;
        }
        if (l->has_clock && (!c->has_clock || l->clock_off < c->clock_off)) {
            c->has_clock = true;
            c->clock = l->clock_us;
            c->clock_off = l->clock_off;
        }
    }
    for (size_t i = 0; i < s->lanes.n; i++) {
        const mlane *l = &s->lanes.v[i];
        crank *c = &cr[l->key.file];
        if (c->has_rank && l->key.has_pid && l->key.pid == c->rank && l->has_clock)
            c->clock = l->clock_us;
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The element of the sorted array nearest to v. */
static int64_t nearest(const int64_t *v, size_t n, int64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n)
        return v[n - 1];
    if (lo == 0)
        return v[0];
    __int128 up = (__int128)v[lo] - x, down = (__int128)x - v[lo - 1];
    return down <= up ? v[lo - 1] : v[lo];
}

/* Composer ranks are aligned on the lowest rank: rank r's times move by clock(lowest) - clock(r),
 * taking the lowest rank's clock of the same profiling cycle (the nearest one), so that a merged
 * file re-merged with newer rank files keeps its alignment. */
static bool composer_shifts(mplan *p, dfs_merge_report *rep)
{
    size_t n = p->nfiles, nlow = 0;
    crank *cr = calloc(n ? n : 1, sizeof *cr);
    int64_t *low_clocks = calloc(n ? n : 1, sizeof *low_clocks);
    if (!cr || !low_clocks) {
        free(cr);
        free(low_clocks);
        return false;
    }
    for (size_t f = 0; f < n; f++)
        cr[f].single = true;
    file_ranks(p, cr);
    bool have_low = false;
    int64_t low = 0;
    for (size_t f = 0; f < n; f++)
        if (cr[f].has_rank && cr[f].has_clock && (!have_low || cr[f].rank < low)) {
            have_low = true;
            low = cr[f].rank;
        }
    for (size_t f = 0; f < n; f++)
        if (cr[f].has_rank && cr[f].has_clock && cr[f].rank == low)
            low_clocks[nlow++] = cr[f].clock;
    qsort(low_clocks, nlow, sizeof *low_clocks, cmp_i64);
    for (uint32_t f = 0; f < n; f++) {
        mfileplan *fp = &p->files[f];
        if (!fp->composer)
            continue;
        fp->forced = cr[f].has_rank && cr[f].single;
        fp->rank = cr[f].rank;
        rep->files[f].has_rank = cr[f].has_rank;
        rep->files[f].rank = cr[f].rank;
        if (!cr[f].has_clock || !cr[f].has_rank) {
            rep->files[f].aligned = false;
            mreport_warn(rep, "%s: Composer trace without %s: merged unaligned", fp->fi->path,
                         cr[f].has_clock ? "global_rank" : "clock_sync_timestamp_us");
            continue;
        }
        int64_t base = nearest(low_clocks, nlow, cr[f].clock);
        fp->shift_ns = clamp128(((__int128)base - cr[f].clock) * 1000);
        rep->files[f].shift_ns = fp->shift_ns;
    }
    free(cr);
    free(low_clocks);
    return true;
}

/* Flow and async ids of a file whose range meets an earlier file's move above every earlier
 * id: two profiles' flows never join. */
static void id_shifts(mplan *p)
{
    const mseen *s = &p->m->seen;
    uint64_t top = 0;
    bool any = false;
    for (uint32_t f = 0; f < p->nfiles && f < s->ids.n; f++) {
        const mfile_ids *ids = &s->ids.v[f];
        if (!ids->have)
            continue;
        bool meets = false;
        for (uint32_t g = 0; g < f && g < s->ids.n && !meets; g++) {
            const mfile_ids *o = &s->ids.v[g];
            uint64_t sh = p->files[g].id_shift;
            meets = o->have && ids->lo <= o->hi + sh && o->lo + sh <= ids->hi;
        }
        if (meets && top < UINT64_MAX && ids->hi - ids->lo <= UINT64_MAX - (top + 1))
            p->files[f].id_shift = top + 1 - ids->lo;
        uint64_t hi = ids->hi + p->files[f].id_shift;
        if (!any || hi > top)
            top = hi;
        any = true;
    }
}

int64_t mplan_dur(const mplan *p, uint32_t file, int64_t dur)
{
    const dfs_file_info *fi = p->files[file].fi;
    __int128 d = dur;
    if (fi->clock_scale_den > 0 && (fi->clock_scale_num != 1 || fi->clock_scale_den != 1))
        d = d * fi->clock_scale_num / fi->clock_scale_den;
    return clamp128(d);
}

/* ---- lanes ------------------------------------------------------------------------------------------- */

/* Where a pid means the same thing in every file: Composer pids are global ranks, smdebug
 * system-metric pids are node ids. Elsewhere a pid belongs to its file. */
static uint32_t namespace_of(const dfs_file_info *fi, uint32_t file)
{
    if (fi->dialect == DFS_DIALECT_COMPOSER)
        return 0;
    if (fi->dialect == DFS_DIALECT_SMDEBUG_SYSTEM)
        return 1;
    return 2 + file;
}

static int cmp_lane_index(const void *pa, const void *pb)
{
    const mlane *a = *(const mlane *const *)pa, *b = *(const mlane *const *)pb;
    if (a->key.file != b->key.file)
        return a->key.file < b->key.file ? -1 : 1;
    if (a->key.has_pid != b->key.has_pid)
        return a->key.has_pid < b->key.has_pid ? -1 : 1;
    return (a->key.pid > b->key.pid) - (a->key.pid < b->key.pid);
}

typedef struct ns_key {
    uint32_t ns, has_pid;
    int64_t pid;
} ns_key;

typedef struct taken_key {
    uint32_t kind, pad; /* 0 a number, 1 a string (synthetic id), 2 no pid */
    int64_t value;
} taken_key;

static int64_t max_numeric_pid(const mseen *s)
{
    int64_t top = 0;
    for (size_t i = 0; i < s->lanes.n; i++) {
        const mlane *l = &s->lanes.v[i];
        if (l->key.has_pid && !l->is_str && l->key.pid > top)
            top = l->key.pid;
    }
    return top;
}

/* The pid a lane is written with before collisions: a Composer rank file's rank, else its own. */
static ns_key lane_identity(const mplan *p, const mlane *l)
{
    const mfileplan *fp = &p->files[l->key.file];
    ns_key k = {fp->ns, l->key.has_pid, l->key.pid};
    if (fp->forced) {
        k.has_pid = 1;
        k.pid = fp->rank;
    }
    return k;
}

/* A new output lane for l: its own pid when no earlier lane took it, else a fresh number. */
static bool add_out_lane(mplan *p, const mlane *l, const ns_key *id, dfs_keyset *taken, int64_t *fresh)
{
    bool is_str = l->is_str && !p->files[l->key.file].forced;
    taken_key tk = {id->has_pid ? (is_str ? 1u : 0u) : 2u, 0, id->pid};
    int added = dfs_keyset_add(taken, &tk);
    if (added < 0)
        return false;
    moutlane o = {id->pid, l->pid_str, id->has_pid != 0, is_str, false, false, l->key.file, id->pid, is_str};
    if (added == 0) {
        o.pid = (*fresh)++;
        o.has_pid = true;
        o.is_str = false;
        o.remapped = true;
    }
    return dfs_vec_push(&p->out, o);
}

static bool plan_lanes(mplan *p)
{
    mseen *s = &p->m->seen;
    size_t n = s->lanes.n;
    mlane **order = malloc((n ? n : 1) * sizeof *order);
    dfs_keymap by_ns;
    dfs_keyset taken;
    dfs_keymap_init(&by_ns, sizeof(ns_key));
    dfs_keyset_init(&taken, sizeof(taken_key));
    bool ok = order != NULL;
    for (size_t i = 0; ok && i < n; i++)
        order[i] = &s->lanes.v[i];
    if (ok)
        qsort(order, n, sizeof *order, cmp_lane_index);
    int64_t top = max_numeric_pid(s);
    for (uint32_t f = 0; f < p->nfiles; f++)
        if (p->files[f].forced && p->files[f].rank > top)
            top = p->files[f].rank;
    int64_t fresh = top < INT64_MAX ? top + 1 : top;
    for (size_t i = 0; ok && i < n; i++) {
        mlane *l = order[i];
        ns_key k = lane_identity(p, l);
        uint32_t idx;
        bool is_new;
        ok = dfs_keymap_get_or_put(&by_ns, &k, (uint32_t)p->out.n, &idx, &is_new) &&
             (!is_new || add_out_lane(p, l, &k, &taken, &fresh));
        if (ok) {
            l->out = idx;
            p->out.v[idx].has_pname |= l->has_pname;
        }
    }
    dfs_keymap_free(&by_ns);
    dfs_keyset_free(&taken);
    free(order);
    return ok;
}

const moutlane *mplan_lane(const mplan *p, const dfs_event *ev)
{
    mlane_key k = mlane_key_of(ev);
    uint32_t idx;
    if (!dfs_keymap_get(&p->m->seen.lane_map, &k, &idx))
        return NULL;
    return &p->out.v[p->m->seen.lanes.v[idx].out];
}

/* ---- inserted records ------------------------------------------------------------------------------- */

static int cmp_mark(const void *pa, const void *pb)
{
    const mmark *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return (a->out > b->out) - (a->out < b->out);
}

typedef struct mark_key {
    uint32_t out, tflags;
    int64_t tid;
} mark_key;

/* Composer's thread_sort_index 99999 before each (rank, thread), once per output lane and
 * thread, in the order the threads first appear; and a process name for a renumbered lane
 * that had none. */
static bool plan_pre_marks(mplan *p)
{
    const mseen *s = &p->m->seen;
    for (size_t i = 0; i < s->threads.n; i++) {
        const mthread *t = &s->threads.v[i];
        if (!p->files[t->key.file].composer)
            continue;
        mlane_key lk = {t->key.file, t->key.flags & 1u, t->key.pid};
        uint32_t idx;
        if (!dfs_keymap_get(&s->lane_map, &lk, &idx))
            continue;
        mmark mk = {MARK_SORT_LAST, s->lanes.v[idx].out,
                    DFS_EF_HAS_TID | (t->tid_is_str ? DFS_EF_TID_STR : 0u), t->key.tid,
                    t->tid_str, t->key.file, t->first_off};
        if (!dfs_vec_push(&p->pre, mk))
            return false;
    }
    for (uint32_t o = 0; o < p->out.n; o++) {
        const moutlane *l = &p->out.v[o];
        mmark mk = {MARK_PROCESS_NAME, o, 0, 0, 0, l->file, 0};
        if (l->remapped && !l->has_pname && !dfs_vec_push(&p->pre, mk))
            return false;
    }
    if (p->pre.n)
        qsort(p->pre.v, p->pre.n, sizeof *p->pre.v, cmp_mark);
    dfs_keyset seen;
    dfs_keyset_init(&seen, sizeof(mark_key));
    size_t keep = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < p->pre.n; i++) {
        mmark *mk = &p->pre.v[i];
        mark_key k = {mk->out, mk->tflags, mk->tid};
        int added = mk->kind == MARK_SORT_LAST ? dfs_keyset_add(&seen, &k) : 1;
        ok = added >= 0;
        if (added > 0)
            p->pre.v[keep++] = *mk;
    }
    p->pre.n = keep;
    dfs_keyset_free(&seen);
    return ok;
}

/* Composer's thread_sort_index 1 for the thread of each rank's last MulBackward0 (the backward
 * pass), after every other metadata record. */
static bool plan_post_marks(mplan *p)
{
    const mseen *s = &p->m->seen;
    DFS_VEC(const mlane *) best = {0};
    if (!dfs_vec_reserve(&best, p->out.n ? p->out.n : 1))
        return false;
    best.n = p->out.n;
    memset(best.v, 0, best.n * sizeof *best.v);
    for (size_t i = 0; i < s->lanes.n; i++) {
        const mlane *l = &s->lanes.v[i];
        if (!l->has_mul || !p->files[l->key.file].composer)
            continue;
        const mlane *b = best.v[l->out];
        if (!b || l->key.file > b->key.file || (l->key.file == b->key.file && l->mul_off > b->mul_off))
            best.v[l->out] = l;
    }
    bool ok = true;
    for (uint32_t o = 0; ok && o < best.n; o++) {
        const mlane *l = best.v[o];
        if (!l)
            continue;
        mmark mk = {MARK_SORT_FIRST, o, l->mul_tflags, l->mul_tid, l->mul_tid_str, 0, 0};
        ok = dfs_vec_push(&p->post, mk);
    }
    dfs_vec_free(&best);
    return ok;
}

/* ---- the plan ---------------------------------------------------------------------------------------- */

static void plan_strings(mplan *p)
{
    const dfs_run *r = p->run;
    p->str = (mstrs){dfs_str_find(r, "Value", 5), dfs_str_find(r, "s", 1), dfs_str_find(r, "bp", 2),
                     dfs_str_find(r, "bind_id", 7), dfs_str_find(r, "flow_in", 7),
                     dfs_str_find(r, "flow_out", 8), DFS_KEY_STR(DFS_KEY_FNAME),
                     DFS_KEY_STR(DFS_KEY_HOSTNAME), dfs_str_find(r, "process_name", 12)};
}

void mplan_free(mplan *p)
{
    free(p->files);
    dfs_vec_free(&p->out);
    dfs_vec_free(&p->pre);
    dfs_vec_free(&p->post);
}

bool mplan_make(mplan *p, dfs_merge *m, const dfs_run *run, dfs_merge_report *rep)
{
    memset(p, 0, sizeof *p);
    p->run = run;
    p->m = m;
    p->nfiles = dfs_run_file_count(run);
    p->files = calloc(p->nfiles ? p->nfiles : 1, sizeof *p->files);
    if (!p->files)
        return false;
    for (uint32_t f = 0; f < p->nfiles; f++) {
        mfileplan *fp = &p->files[f];
        fp->fi = dfs_run_file(run, f);
        const char *slash = strrchr(fp->fi->path, '/');
        fp->base = slash ? slash + 1 : fp->fi->path;
        fp->composer = fp->fi->dialect == DFS_DIALECT_COMPOSER;
        fp->ns = namespace_of(fp->fi, f);
        rep->files[f].composer = fp->composer;
        rep->files[f].aligned = !fp->fi->relative_time || fp->fi->clock_offset_ns != 0;
        if (!rep->files[f].aligned)
            mreport_warn(rep, "%s: times are relative to an unknown start: merged unaligned",
                         fp->fi->path);
    }
    id_shifts(p);
    plan_strings(p);
    return composer_shifts(p, rep) && plan_lanes(p) && plan_pre_marks(p) && plan_post_marks(p);
}

void mplan_counts(const mplan *p, dfs_merge_report *rep)
{
    const mseen *s = &p->m->seen;
    for (size_t i = 0; i < s->lanes.n; i++) {
        const mlane *l = &s->lanes.v[i];
        rep->files[l->key.file].events_in += l->events;
        rep->events_in += l->events;
        rep->files[l->key.file].lanes++;
        if (p->out.v[l->out].remapped)
            rep->files[l->key.file].remapped++;
    }
    rep->lanes = p->out.n;
    for (size_t o = 0; o < p->out.n; o++)
        rep->remapped += p->out.v[o].remapped;
}
