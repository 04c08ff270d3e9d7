/* steps_run.c - the steps of one run: loop lane, step windows, per-step metrics (overlap engine),
 * epochs, flags and aggregates (steps.h, spec §4). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/steps/steps_internal.h"
#include "util/u64map.h"

#define BIT(k) DFS_CONCEPT_BIT(DFS_CONCEPT_##k)
#define MAX_PENDING 4096 /* open step markers remembered; older ones count as unpaired */

/* ---- lanes --------------------------------------------------------------------------------- */

typedef struct lane {
    int64_t pid, tid;
} lane;

typedef struct lane_count {
    lane l;
    uint64_t n;
} lane_count;

static bool on_lane(const st_ev *e, lane l) { return e->lane_pid == l.pid && e->lane_tid == l.tid; }

/* The lane holding most events with one of `bits` (ties: the first met, intervals being sorted
 * by start); false when there is none. *total = all such events. */
static bool busiest_lane(const st_ev *iv, size_t n, uint32_t bits, lane *out, uint64_t *total)
{
    DFS_VEC(lane_count) lanes = {0};
    *total = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(iv[i].bits & bits))
            continue;
        (*total)++;
        size_t j = 0;
        while (j < lanes.n && !on_lane(&iv[i], lanes.v[j].l))
            j++;
        if (j == lanes.n && !dfs_vec_push(&lanes, ((lane_count){{iv[i].lane_pid, iv[i].lane_tid}, 0})))
            break;
        lanes.v[j].n++;
    }
    size_t best = 0;
    for (size_t j = 1; j < lanes.n; j++)
        if (lanes.v[j].n > lanes.v[best].n)
            best = j;
    bool found = lanes.n > 0;
    if (found)
        *out = lanes.v[best].l;
    dfs_vec_free(&lanes);
    return found;
}

/* ---- step windows ---------------------------------------------------------------------------- */

typedef struct sb {
    int64_t start, end;
    int64_t number;    /* ST_NONE: the index */
    int64_t epoch_arg; /* the marker's args.epoch */
    int64_t wait_end;  /* anchored steps: the data wait is [start, wait_end) */
    int mode;          /* -1: from the windows */
} sb;

typedef DFS_VEC(sb) sb_vec;

static bool contains_text(const char *s, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (strncasecmp(s + i, needle, m) == 0)
            return true;
    return false;
}

/* smdebug Step:ModeKeys.<MODE>; -1 for other names. */
static int mode_of_step_name(const dfs_run *run, dfs_str name)
{
    size_t n;
    const char *s = dfs_str_get(run, name, &n);
    if (!contains_text(s, n, "ModeKeys."))
        return -1;
    if (contains_text(s, n, "ModeKeys.EVAL"))
        return DFS_MODE_EVAL;
    if (contains_text(s, n, "ModeKeys.PREDICT"))
        return DFS_MODE_PREDICT;
    return DFS_MODE_TRAIN;
}

/* The N of ProfilerStep#N, else the marker's key, else its args.batch; ST_NONE when none. */
static int64_t step_number(const dfs_run *run, const st_ev *e)
{
    size_t n;
    const char *s = dfs_str_get(run, e->name, &n);
    const char *hash = memchr(s, '#', n);
    if (hash && n > 12 && memcmp(s, "ProfilerStep", 12) == 0) {
        int64_t v = 0;
        size_t i = (size_t)(hash - s) + 1, digits = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9' && digits < 18; i++, digits++)
            v = v * 10 + (s[i] - '0');
        if (digits && i == n)
            return v;
    }
    return e->key != ST_NONE ? e->key : e->batch;
}

static sb step_of(const dfs_run *run, const st_ev *e, int64_t end)
{
    return (sb){e->start, end, step_number(run, e), e->epoch, e->start, mode_of_step_name(run, e->name)};
}

static bool span_steps(const dfs_run *run, const st_ev *iv, size_t n, lane loop, uint32_t bit, sb_vec *out)
{
    for (size_t i = 0; i < n; i++)
        if ((iv[i].bits & bit) && on_lane(&iv[i], loop) && !dfs_vec_push(out, step_of(run, &iv[i], iv[i].end)))
            return false;
    return true;
}

static bool keys_match(int64_t a, int64_t b) { return a == ST_NONE || b == ST_NONE || a == b; }

/* A STEP_END marker closes the latest open STEP marker that started before it with the same key
 * (args.count / step when both carry one): by stack, as Composer's markers nest. An end marker
 * with no open step is a step of its own span (Composer's event/batch alone). */
static bool paired_steps(const dfs_run *run, const st_ev *iv, size_t n, lane loop, sb_vec *out,
                         dfs_steps_counts *c)
{
    DFS_VEC(size_t) open = {0};
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        const st_ev *e = &iv[i];
        if (!on_lane(e, loop))
            continue;
        if (e->bits & BIT(STEP_END)) {
            size_t j = open.n;
            while (j > 0 && !keys_match(iv[open.v[j - 1]].key, e->key))
                j--;
            if (j > 0) {
                ok = dfs_vec_push(out, step_of(run, &iv[open.v[j - 1]], e->end));
                memmove(open.v + j - 1, open.v + j, (open.n - j) * sizeof *open.v);
                open.n--;
            } else {
                c->unpaired_end++;
                ok = dfs_vec_push(out, step_of(run, e, e->end));
            }
        } else if (e->bits & BIT(STEP)) {
            if (open.n == MAX_PENDING) {
                c->unpaired_start++;
                memmove(open.v, open.v + 1, (open.n - 1) * sizeof *open.v);
                open.n--;
            }
            ok = dfs_vec_push(&open, i);
        }
    }
    c->unpaired_start += open.n;
    dfs_vec_free(&open);
    return ok;
}

/* smdebug's fallback: consecutive data-wait starts on the loop lane bound a step. */
static bool wait_anchor_steps(const st_ev *iv, size_t n, lane loop, sb_vec *out)
{
    const st_ev *prev = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!(iv[i].bits & BIT(DATA_WAIT)) || !on_lane(&iv[i], loop))
            continue;
        if (prev && !dfs_vec_push(out, ((sb){prev->start, iv[i].start, ST_NONE, prev->epoch, prev->start, -1})))
            return false;
        prev = &iv[i];
    }
    return true;
}

/* ---- epoch windows ------------------------------------------------------------------------- */

typedef struct window {
    int64_t start, end, epoch;
    int mode;
    bool leaf;
} window;

typedef DFS_VEC(window) window_vec;

static int mode_of_window_name(const dfs_run *run, dfs_str name)
{
    size_t n;
    const char *s = dfs_str_get(run, name, &n);
    if (contains_text(s, n, "eval"))
        return DFS_MODE_EVAL;
    if (contains_text(s, n, "predict") || contains_text(s, n, "test"))
        return DFS_MODE_PREDICT;
    return DFS_MODE_TRAIN;
}

static int cmp_windows(const void *pa, const void *pb)
{
    const window *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->end < b->end) - (a->end > b->end); /* the container first */
}

/* The epoch windows of the run, sorted, leaves marked (a window holding no other); a leaf's mode
 * is eval or predict when it or a window around it says so; its epoch is args.epoch, else its
 * 1-based rank among the leaves. */
static bool epoch_windows(const dfs_run *run, const st_ev *iv, size_t n, window_vec *out)
{
    for (size_t i = 0; i < n; i++)
        if ((iv[i].bits & BIT(EPOCH)) &&
            !dfs_vec_push(out, ((window){iv[i].start, iv[i].end, iv[i].epoch, mode_of_window_name(run, iv[i].name), true})))
            return false;
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_windows);
    int64_t ordinal = 0;
    for (size_t i = 0; i < out->n; i++) {
        window *w = &out->v[i];
        w->leaf = !(i + 1 < out->n && out->v[i + 1].start < w->end && out->v[i + 1].end <= w->end);
        if (!w->leaf)
            continue;
        ordinal++;
        if (w->epoch == ST_NONE)
            w->epoch = ordinal;
        for (size_t j = 0; j < i; j++)
            if (!out->v[j].leaf && out->v[j].start <= w->start && w->end <= out->v[j].end &&
                out->v[j].mode != DFS_MODE_TRAIN)
                w->mode = out->v[j].mode;
    }
    size_t k = 0; /* only leaves remain */
    for (size_t i = 0; i < out->n; i++)
        if (out->v[i].leaf)
            out->v[k++] = out->v[i];
    out->n = k;
    return true;
}

/* The leaf window holding time t, or NULL. */
static const window *window_at(const window_vec *w, int64_t t)
{
    size_t lo = 0, hi = w->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->v[mid].start <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && t < w->v[lo - 1].end ? &w->v[lo - 1] : NULL;
}

/* DFTracer's fallback: per epoch window, compute calls (nested ones merged) anchor the steps;
 * step = previous compute end (or window start) to this compute's end, its wait the gap. */
static bool compute_anchor_steps(const st_ev *iv, size_t n, lane loop, const window_vec *wins, sb_vec *out)
{
    window whole = {INT64_MIN, INT64_MAX, ST_NONE, DFS_MODE_TRAIN, true};
    const window *cur = NULL;
    int64_t prev = 0, last_end = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const st_ev *e = &iv[i];
        if (!(e->bits & BIT(COMPUTE_HOST)) || !on_lane(e, loop))
            continue;
        const window *w = wins->n ? window_at(wins, e->start) : &whole;
        if (!w)
            continue;
        if (e->start < last_end && w == cur) { /* nested in the previous anchor: merge */
            if (e->end > last_end)
                out->v[out->n - 1].end = prev = last_end = e->end;
            continue;
        }
        if (w != cur) {
            cur = w;
            prev = w == &whole ? e->start : w->start;
        }
        if (!dfs_vec_push(out, ((sb){prev, e->end, ST_NONE, w->epoch, e->start, -1})))
            return false;
        prev = last_end = e->end;
    }
    return true;
}

/* Number of compute anchors and of marker steps per leaf window disagree somewhere. */
static bool counts_disagree(const st_ev *iv, size_t n, lane loop, const window_vec *wins, const sb_vec *marker_steps)
{
    sb_vec anchors = {0};
    bool differ = false;
    if (!compute_anchor_steps(iv, n, loop, wins, &anchors) || anchors.n == 0) {
        dfs_vec_free(&anchors);
        return false;
    }
    if (!wins->n) {
        differ = anchors.n != marker_steps->n;
    } else {
        for (size_t w = 0; w < wins->n && !differ; w++) {
            size_t a = 0, m = 0;
            for (size_t i = 0; i < anchors.n; i++)
                a += window_at(wins, anchors.v[i].wait_end) == &wins->v[w];
            for (size_t i = 0; i < marker_steps->n; i++)
                m += window_at(wins, marker_steps->v[i].start) == &wins->v[w];
            differ = a != m;
        }
    }
    dfs_vec_free(&anchors);
    return differ;
}

/* ---- choosing the steps ------------------------------------------------------------------- */

typedef struct run_steps {
    lane loop;
    bool have_loop;
    sb_vec steps;
    window_vec wins;
    uint64_t marker_steps; /* steps the markers gave, when compute anchors replaced them */
} run_steps;

static int cmp_sb(const void *pa, const void *pb)
{
    const sb *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->end > b->end) - (a->end < b->end);
}

static bool steps_from_markers(dfs_steps_run *r, const st_ev *iv, size_t n, const st_run_ctx *ctx, run_steps *rs)
{
    const dfs_concepts *c = ctx->concepts;
    bool paired = dfs_concepts_available(c, r->source, DFS_CONCEPT_STEP_END);
    uint64_t total = 0;
    if (dfs_concepts_available(c, r->source, DFS_CONCEPT_STEP) && busiest_lane(iv, n, BIT(STEP), &rs->loop, &total)) {
        rs->have_loop = true;
        for (size_t i = 0; i < n; i++)
            total -= (iv[i].bits & BIT(STEP)) && on_lane(&iv[i], rs->loop);
        r->counts.other_lanes = total;
        r->strategy = paired ? DFS_STRAT_PAIRED : DFS_STRAT_SPAN;
        return paired ? paired_steps(ctx->run, iv, n, rs->loop, &rs->steps, &r->counts)
                      : span_steps(ctx->run, iv, n, rs->loop, BIT(STEP), &rs->steps);
    }
    if (paired && busiest_lane(iv, n, BIT(STEP_END), &rs->loop, &total)) {
        rs->have_loop = true;
        r->strategy = DFS_STRAT_END_SPANS;
        return span_steps(ctx->run, iv, n, rs->loop, BIT(STEP_END), &rs->steps);
    }
    return true;
}

static bool steps_from_anchors(dfs_steps_run *r, const st_ev *iv, size_t n, const st_run_ctx *ctx, run_steps *rs)
{
    uint64_t total;
    if (r->source == DFS_CSRC_DFTRACER) {
        if (!rs->have_loop && !busiest_lane(iv, n, BIT(COMPUTE_HOST), &rs->loop, &total))
            return true;
        rs->have_loop = true;
        rs->marker_steps = rs->steps.n;
        rs->steps.n = 0;
        r->strategy = DFS_STRAT_COMPUTE_ANCHORS;
        return compute_anchor_steps(iv, n, rs->loop, &rs->wins, &rs->steps);
    }
    if (!dfs_concepts_available(ctx->concepts, r->source, DFS_CONCEPT_DATA_WAIT) ||
        !busiest_lane(iv, n, BIT(DATA_WAIT), &rs->loop, &total))
        return true;
    rs->have_loop = true;
    r->strategy = DFS_STRAT_WAIT_ANCHORS;
    return wait_anchor_steps(iv, n, rs->loop, &rs->steps);
}

static bool build_steps(dfs_steps_run *r, const st_ev *iv, size_t n, const st_run_ctx *ctx, run_steps *rs)
{
    r->strategy = DFS_STRAT_NONE;
    if (!epoch_windows(ctx->run, iv, n, &rs->wins) || !steps_from_markers(r, iv, n, ctx, rs))
        return false;
    bool anchors = rs->steps.n == 0 ||
                   (r->source == DFS_CSRC_DFTRACER && r->strategy == DFS_STRAT_PAIRED &&
                    counts_disagree(iv, n, rs->loop, &rs->wins, &rs->steps));
    if (anchors && !steps_from_anchors(r, iv, n, ctx, rs))
        return false;
    if (rs->steps.n == 0)
        r->strategy = DFS_STRAT_NONE;
    else
        qsort(rs->steps.v, rs->steps.n, sizeof *rs->steps.v, cmp_sb);
    return true;
}

/* Epoch, mode, number and flags of the final steps. */
static void describe_steps(dfs_step *out, const sb_vec *steps, const window_vec *wins)
{
    for (size_t i = 0; i < steps->n; i++) {
        const sb *b = &steps->v[i];
        const window *w = window_at(wins, b->start);
        dfs_step *s = &out[i];
        s->start = b->start;
        s->end = b->end;
        s->number = b->number != ST_NONE ? b->number : (int64_t)i + 1;
        s->epoch = w ? w->epoch : b->epoch_arg != ST_NONE ? b->epoch_arg : -1;
        s->mode = (uint8_t)(b->mode >= 0 ? b->mode : w ? w->mode : DFS_MODE_TRAIN);
        if (i == 0 || s->epoch != out[i - 1].epoch || s->mode != out[i - 1].mode)
            s->flags |= DFS_STEP_WARMUP;
        if (i + 1 == steps->n)
            s->flags |= DFS_STEP_LAST;
    }
}

/* ---- the pieces measured per step ----------------------------------------------------- */

static int cmp_pieces(const void *pa, const void *pb)
{
    const st_piece *a = pa, *b = pb;
    return (a->start > b->start) - (a->start < b->start);
}

/* D and C_host count on the loop lane only, except for smdebug, whose phases are pids of their
 * own (§4.2). With compute anchors the waits are the gaps, not the markers. */
static bool build_pieces(const dfs_steps_run *r, const st_ev *iv, size_t n, const run_steps *rs, st_piece_vec *out)
{
    bool anchored = r->strategy == DFS_STRAT_COMPUTE_ANCHORS;
    bool restrict_lane = r->source != DFS_CSRC_SMDEBUG;
    for (size_t i = 0; i < n; i++) {
        const st_ev *e = &iv[i];
        bool lane_ok = !restrict_lane || (rs->have_loop && on_lane(e, rs->loop));
        uint64_t m = 0;
        m |= (e->bits & BIT(DATA_WAIT)) && lane_ok && !anchored ? ST_MASK_D : 0;
        m |= (e->bits & BIT(COMPUTE_DEV)) ? ST_MASK_CDEV : 0;
        m |= (e->bits & BIT(COMPUTE_HOST)) && lane_ok ? ST_MASK_CHOST : 0;
        m |= (e->bits & BIT(TRANSFER)) ? ST_MASK_X : 0;
        m |= (e->bits & BIT(RUNTIME)) ? ST_MASK_RT : 0;
        m |= (e->bits & BIT(IO)) ? ST_MASK_I : 0;
        if (m && !dfs_vec_push(out, ((st_piece){e->start, e->end, m, e})))
            return false;
    }
    for (size_t i = 0; anchored && i < rs->steps.n; i++)
        if (!dfs_vec_push(out, ((st_piece){rs->steps.v[i].start, rs->steps.v[i].wait_end, ST_MASK_D, NULL})))
            return false;
    if (anchored && out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_pieces);
    return true;
}

/* ---- epochs ---------------------------------------------------------------------------------- */

static int64_t marked_wait_in(const st_wait_marker *mk, size_t n, const window *w)
{
    dfs_ovl *o = dfs_ovl_new(1, -1, 0, 0);
    if (!o)
        return DFS_STEPS_NA;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        int64_t a = mk[i].start > w->start ? mk[i].start : w->start;
        int64_t b = mk[i].end < w->end ? mk[i].end : w->end;
        if (b > a)
            ok = dfs_ovl_add(o, 0, a, b, 0);
    }
    int64_t v = ok && dfs_ovl_finish(o) ? dfs_ovl_total(o, 0)->measure : DFS_STEPS_NA;
    dfs_ovl_free(o);
    return v;
}

static void fill_epoch(dfs_steps_epoch *e, const window *w, const dfs_steps_run *r, const window_vec *wins)
{
    e->epoch = w->epoch;
    e->mode = (dfs_step_mode)w->mode;
    e->start = w->start;
    e->end = w->end;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i = 0; i < r->nsteps; i++) {
        const dfs_step *s = &r->steps[i];
        if (window_at(wins, s->start) != w)
            continue;
        e->steps++;
        e->step_time += s->m[DFS_SM_STEP_TIME];
        e->data_wait += r->available[DFS_SM_DATA_WAIT] ? s->m[DFS_SM_DATA_WAIT] : 0;
        e->compute_host += r->available[DFS_SM_COMPUTE_HOST] ? s->m[DFS_SM_COMPUTE_HOST] : 0;
        e->io_in_wait += r->available[DFS_SM_IO_IN_WAIT] ? s->m[DFS_SM_IO_IN_WAIT] : 0;
        first = s->start < first ? s->start : first;
        last = s->end > last ? s->end : last;
    }
    e->lead = e->steps ? first - w->start : 0;
    e->tail = e->steps ? w->end - last : w->end - w->start;
}

static bool build_epochs(dfs_steps_run *r, const window_vec *wins, const st_wait_marker *mk, size_t nmk, st_owned *owned)
{
    dfs_steps_epoch *ep = st_alloc(owned, wins->n, sizeof *ep);
    if (!ep)
        return false;
    for (size_t i = 0; i < wins->n; i++) {
        fill_epoch(&ep[i], &wins->v[i], r, wins);
        ep[i].marked_wait = marked_wait_in(mk, nmk, &wins->v[i]);
        if (ep[i].marked_wait == DFS_STEPS_NA)
            return false;
    }
    r->epochs = ep;
    r->nepochs = wins->n;
    return true;
}

/* ---- facts for the verdicts and notes ---------------------------------------------------- */

typedef DFS_VEC(st_wait_marker) marker_vec;

static int cmp_markers_by_lane(const void *pa, const void *pb)
{
    const st_wait_marker *a = pa, *b = pb;
    if (a->lane_pid != b->lane_pid)
        return a->lane_pid < b->lane_pid ? -1 : 1;
    if (a->lane_tid != b->lane_tid)
        return a->lane_tid < b->lane_tid ? -1 : 1;
    return (a->start > b->start) - (a->start < b->start);
}

/* The data-wait markers (loop lane; every lane for smdebug), sorted by start, and how many
 * overlap an earlier one of their lane. */
static bool wait_markers(const dfs_steps_run *r, const st_ev *iv, size_t n, const run_steps *rs, marker_vec *out,
                         uint64_t *overlapping)
{
    for (size_t i = 0; i < n; i++) {
        const st_ev *e = &iv[i];
        bool lane_ok = r->source == DFS_CSRC_SMDEBUG || (rs->have_loop && on_lane(e, rs->loop));
        if ((e->bits & BIT(DATA_WAIT)) && lane_ok &&
            !dfs_vec_push(out, ((st_wait_marker){e->start, e->end, e->lane_pid, e->lane_tid})))
            return false;
    }
    marker_vec by_lane = {0};
    if (out->n && !dfs_vec_reserve(&by_lane, out->n))
        return false;
    if (out->n)
        memcpy(by_lane.v, out->v, out->n * sizeof *out->v);
    by_lane.n = out->n;
    if (by_lane.n > 1)
        qsort(by_lane.v, by_lane.n, sizeof *by_lane.v, cmp_markers_by_lane);
    for (size_t i = 1; i < by_lane.n; i++) {
        st_wait_marker *p = &by_lane.v[i - 1], *c = &by_lane.v[i];
        bool same = p->lane_pid == c->lane_pid && p->lane_tid == c->lane_tid;
        if (same && c->start < p->end) {
            (*overlapping)++;
            c->end = c->end > p->end ? c->end : p->end; /* carry the lane's furthest end */
        }
    }
    dfs_vec_free(&by_lane);
    return true;
}

static void kineto_facts(dfs_steps_run *r, const dfs_run *run, const st_ev *iv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *s = dfs_str_get(run, iv[i].name, &len);
        if (contains_text(s, len, "Memcpy HtoD (Pageable"))
            r->counts.pageable_h2d++;
        else if (contains_text(s, len, "Memcpy HtoD (Pinned"))
            r->counts.pinned_h2d++;
        if ((iv[i].bits & BIT(DATA_WAIT)) && contains_text(s, len, "_SingleProcessDataLoaderIter"))
            r->counts.single_process_loader = true;
    }
}

static int64_t parse_rank_after(const char *s, size_t n, const char *key)
{
    size_t m = strlen(key);
    for (size_t i = 0; i + m < n; i++) {
        if (memcmp(s + i, key, m) != 0)
            continue;
        const char *p = s + i + m;
        while (p < s + n && (*p == ' ' || *p == ':' || *p == '"'))
            p++;
        char *end;
        long long v = strtoll(p, &end, 10);
        return end > p && v >= 0 ? v : -1;
    }
    return -1;
}

static int64_t rank_of(const dfs_steps_run *r, const run_steps *rs, const dfs_run *run, uint32_t file)
{
    if (r->source == DFS_CSRC_COMPOSER && rs->have_loop)
        return rs->loop.pid;
    if (r->source == DFS_CSRC_KINETO) {
        size_t n;
        dfs_str info = dfs_run_file_meta(run, file, "distributedInfo");
        const char *s = info ? dfs_str_get(run, info, &n) : NULL;
        return s ? parse_rank_after(s, n, "\"rank\"") : -1;
    }
    if (r->source == DFS_CSRC_DFTRACER) {
        const char *p = strstr(dfs_run_file(run, file)->path, "trace-");
        int rank, size;
        if (p && sscanf(p, "trace-%d-of-%d", &rank, &size) == 2 && rank >= 0)
            return rank;
    }
    return -1;
}

static int cmp_io_names(const void *pa, const void *pb)
{
    const st_io_name *a = pa, *b = pb;
    if (a->in_wait != b->in_wait)
        return a->in_wait > b->in_wait ? -1 : 1;
    return (a->count < b->count) - (a->count > b->count);
}

typedef DFS_VEC(const char *) note_vec;

static bool note(note_vec *v, const char *text) { return text && dfs_vec_push(v, text); }

static bool notes_for(dfs_steps_run *r, const run_steps *rs, const st_run_ctx *ctx)
{
    note_vec v = {0};
    st_owned *o = ctx->owned;
    const char *src = dfs_concept_source_name(r->source);
    bool ok = true;
    if (r->strategy == DFS_STRAT_NONE)
        ok = note(&v, st_printf(o, "no steps: no step marker of the %s source matched (give --step)", src));
    if (ok && r->strategy == DFS_STRAT_COMPUTE_ANCHORS && rs->marker_steps)
        ok = note(&v, st_printf(o, "steps anchored on compute calls: the loop markers give %llu steps, the compute "
                                      "calls %zu (legacy DLIO drops the markers of each epoch's last batch)",
                                   (unsigned long long)rs->marker_steps, r->nsteps));
    if (ok && r->strategy == DFS_STRAT_WAIT_ANCHORS)
        ok = note(&v, st_printf(o, "no step markers: steps run from one data-wait start to the next"));
    if (ok && r->strategy == DFS_STRAT_END_SPANS)
        ok = note(&v, st_printf(o, "no data-wait markers open the steps: steps are the end markers' spans"));
    static const dfs_concept listed[] = {DFS_CONCEPT_DATA_WAIT, DFS_CONCEPT_COMPUTE_DEV, DFS_CONCEPT_COMPUTE_HOST,
                                         DFS_CONCEPT_TRANSFER, DFS_CONCEPT_IO};
    for (size_t i = 0; ok && i < sizeof listed / sizeof *listed; i++) {
        if (dfs_concepts_available(ctx->concepts, r->source, listed[i]) ||
            (listed[i] == DFS_CONCEPT_DATA_WAIT && r->available[DFS_SM_DATA_WAIT]))
            continue;
        ok = note(&v, st_printf(o, "%s unavailable: the %s source does not record it%s", dfs_concept_name(listed[i]),
                                   src, listed[i] == DFS_CONCEPT_IO && r->source == DFS_CSRC_SMDEBUG
                                            ? " (only I/OWaitPercentage samples, a rate)" : ""));
    }
    if (ok && r->counts.other_lanes)
        ok = note(&v, st_printf(o, "%llu step markers on other lanes than the loop lane were ignored",
                                   (unsigned long long)r->counts.other_lanes));
    if (ok && r->counted_is_all && r->nsteps)
        ok = note(&v, st_printf(o, "the verdicts use every step (warm-up and last included)"));
    if (!ok) {
        dfs_vec_free(&v);
        return false;
    }
    const char **arr = st_alloc(o, v.n, sizeof *arr);
    if (arr && v.n)
        memcpy(arr, v.v, v.n * sizeof *arr);
    r->notes = arr;
    r->nnotes = v.n;
    dfs_vec_free(&v);
    return arr != NULL;
}

/* ---- one run ---------------------------------------------------------------------------- */

typedef struct run_work {
    run_steps rs;
    st_piece_vec pieces;
    st_io_acc io;
    marker_vec markers;
    bool *counted;
    double *scratch;
} run_work;

static void work_free(run_work *w)
{
    dfs_vec_free(&w->rs.steps);
    dfs_vec_free(&w->rs.wins);
    dfs_vec_free(&w->pieces);
    dfs_vec_free(&w->io.names);
    dfs_vec_free(&w->io.waits);
    dfs_u64map_free(&w->io.index);
    dfs_vec_free(&w->markers);
    free(w->counted);
    free(w->scratch);
}

/* Which steps the project's verdicts use: the unflagged ones, or all when asked or none is left. */
static void choose_counted(dfs_steps_run *r, bool *counted, bool include_flagged)
{
    size_t k = 0;
    for (size_t i = 0; i < r->nsteps; i++)
        k += counted[i] = include_flagged || r->steps[i].flags == 0;
    r->counted_is_all = k == 0 || include_flagged;
    for (size_t i = 0; k == 0 && i < r->nsteps; i++)
        counted[i] = true;
}

static bool steps_and_metrics(dfs_steps_run *r, const st_ev *iv, size_t n, const st_run_ctx *ctx, run_work *w)
{
    size_t ns = w->rs.steps.n;
    dfs_step *steps = st_alloc(ctx->owned, ns, sizeof *steps);
    w->counted = calloc(ns ? ns : 1, sizeof *w->counted);
    w->scratch = calloc(ns ? ns : 1, sizeof *w->scratch);
    if (!steps || !w->counted || !w->scratch)
        return false;
    describe_steps(steps, &w->rs.steps, &w->rs.wins);
    r->steps = steps;
    r->nsteps = ns;
    r->loop_pid = w->rs.have_loop ? w->rs.loop.pid : -1;
    r->loop_tid = w->rs.have_loop ? w->rs.loop.tid : -1;
    choose_counted(r, w->counted, ctx->opt->include_flagged);
    st_set_availability(r, ctx->concepts);
    if (!build_pieces(r, iv, n, &w->rs, &w->pieces) || !st_measure_steps(steps, ns, w->pieces.v, w->pieces.n, &w->io, w->counted))
        return false;
    st_blank_unavailable(steps, ns, r->available);
    st_aggregate(&r->all, steps, ns, NULL, -1, r->available, w->scratch);
    st_aggregate(&r->counted, steps, ns, w->counted, -1, r->available, w->scratch);
    int64_t t = r->counted.sum[DFS_SM_STEP_TIME], d = r->counted.sum[DFS_SM_DATA_WAIT];
    r->data_wait_fraction = d != DFS_STEPS_NA && t > 0 ? (double)d / (double)t : NAN;
    return st_aggregate_modes(r, w->counted, w->scratch, ctx->owned);
}

static bool run_verdicts(dfs_steps_run *r, const st_run_ctx *ctx, run_work *w)
{
    if (w->io.names.n > 1)
        qsort(w->io.names.v, w->io.names.n, sizeof *w->io.names.v, cmp_io_names);
    st_verdict_input in = {.opt = ctx->opt,
                           .run = ctx->run,
                           .markers = w->markers.v,
                           .nmarkers = w->markers.n,
                           .io_names = w->io.names.v,
                           .nio_names = w->io.names.n};
    return st_verdicts(r, &in, ctx->owned);
}

bool st_analyse_run(dfs_steps_run *r, const st_ev *iv, size_t n, const st_run_ctx *ctx)
{
    run_work w;
    memset(&w, 0, sizeof w);
    dfs_u64map_init(&w.io.index);
    bool ok = build_steps(r, iv, n, ctx, &w.rs) && steps_and_metrics(r, iv, n, ctx, &w) &&
              wait_markers(r, iv, n, &w.rs, &w.markers, &r->counts.overlapping_waits) &&
              build_epochs(r, &w.rs.wins, w.markers.v, w.markers.n, ctx->owned);
    if (ok && n)
        r->rank = rank_of(r, &w.rs, ctx->run, iv[0].file);
    if (ok && r->source == DFS_CSRC_KINETO) {
        kineto_facts(r, ctx->run, iv, n);
        r->tensorboard = st_tensorboard(ctx->run, iv, n, ctx->owned);
        ok = r->tensorboard != NULL;
    }
    ok = ok && run_verdicts(r, ctx, &w) && notes_for(r, &w.rs, ctx);
    work_free(&w);
    return ok;
}
