/* timeline.c - the collecting half of the window picture (timeline.h): lanes, spans, per-pixel
 * busy bars, counters, merging, and which lanes are drawn. The drawing is timeline_svg.c.
 *
 * The lane bound: a folded lane keeps its counts only; what it receives goes to the row "other
 * lanes" as busy bars, spread over the columns each span covers exactly as a narrow span is on its
 * own lane (spread_busy), so folding early (a span arriving on a folded lane) or late (a lane
 * folded with its spans, a merge) gives the same row. Without kept lanes, every lane is folded
 * once spans reach more lanes than the limit: a timeline that saw that many sees at least as many
 * after merging, so the outcome is the same in any order and any split between threads. */
#include "analyze/timeline/timeline.h"
#include "analyze/timeline/timeline_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

/* ===== collection ============================================================================ */

typedef struct lane_hkey {
    uint64_t source, host; /* salted hashes of the strings */
    int64_t pid, tid;
} lane_hkey;

const char *dfs_tl_class_name(dfs_tl_class c)
{
    static const char *const names[DFS_TL_NCLASS] = {"compute", "data wait", "I/O", "transfer", "other"};
    return (unsigned)c < DFS_TL_NCLASS ? names[c] : "other";
}

void dfs_tl_options_init(dfs_tl_options *o)
{
    memset(o, 0, sizeof *o);
    o->width_px = 1200;
    o->max_depth = 6;
}

enum { LANE_LIMIT = 1000, LANE_PIXELS = 4000000 };

unsigned dfs_tl_lane_limit(unsigned width_px)
{
    unsigned w = width_px ? width_px : 1200;
    return LANE_PIXELS / w < LANE_LIMIT ? LANE_PIXELS / w : LANE_LIMIT;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The sorted copy of the kept lanes; false when out of memory. */
static bool copy_kept(dfs_timeline *tl, const uint64_t *kept, size_t n)
{
    tl->opt.kept = NULL;
    tl->opt.nkept = 0;
    if (!kept)
        return true;
    if (!(tl->kept = malloc((n ? n : 1) * sizeof *tl->kept)))
        return false;
    if (n)
        memcpy(tl->kept, kept, n * sizeof *kept);
    qsort(tl->kept, n, sizeof *tl->kept, cmp_u64);
    tl->opt.nkept = n;
    return true;
}

static const char *copy_text(dfs_timeline *tl, const char *s)
{
    if (!s)
        return "";
    return dfs_arena_strdup(&tl->arena, s, strlen(s));
}

dfs_timeline *dfs_tl_new(const dfs_tl_options *opt)
{
    unsigned width = opt->width_px ? opt->width_px : 1200;
    int64_t span;
    if (opt->end_ns <= opt->start_ns || __builtin_sub_overflow(opt->end_ns, opt->start_ns, &span) ||
        width < 200 || width > 20000 || opt->max_depth > 64 || opt->nkept > dfs_tl_lane_limit(width))
        return NULL;
    dfs_timeline *tl = calloc(1, sizeof *tl);
    if (!tl)
        return NULL;
    tl->opt = *opt;
    tl->opt.width_px = tl->width = width;
    if (!tl->opt.max_depth)
        tl->opt.max_depth = 6;
    tl->span_ns = span;
    dfs_arena_init(&tl->arena, 1 << 16);
    dfs_keymap_init(&tl->lane_index, sizeof(lane_hkey));
    dfs_keymap_init(&tl->name_index, sizeof(uint64_t));
    dfs_keymap_init(&tl->counter_index, sizeof(uint32_t));
    tl->lane_limit = dfs_tl_lane_limit(width);
    tl->other.source = tl->other.host = tl->other.pid_str = tl->other.tid_str = "";
    tl->other.process = tl->other.thread = "";
    tl->opt.title = copy_text(tl, opt->title ? opt->title : "dfscope timeline");
    tl->opt.subtitle = copy_text(tl, opt->subtitle);
    if (!tl->opt.title || !tl->opt.subtitle || !copy_kept(tl, opt->kept, opt->nkept)) {
        dfs_tl_free(tl);
        return NULL;
    }
    return tl;
}

void dfs_tl_free(dfs_timeline *tl)
{
    if (!tl)
        return;
    for (size_t i = 0; i < tl->lanes.n; i++) {
        dfs_vec_free(&tl->lanes.v[i].spans);
        free(tl->lanes.v[i].busy);
    }
    for (size_t i = 0; i < tl->counters.n; i++)
        free(tl->counters.v[i].cells);
    free(tl->other.busy);
    free(tl->kept);
    dfs_vec_free(&tl->lanes);
    dfs_vec_free(&tl->names);
    dfs_vec_free(&tl->counters);
    dfs_keymap_free(&tl->lane_index);
    dfs_keymap_free(&tl->name_index);
    dfs_keymap_free(&tl->counter_index);
    dfs_arena_free(&tl->arena);
    free(tl);
}

static uint64_t salted(const char *s, size_t n, uint64_t salt)
{
    return dfs_mix64(dfs_hash64(s, n) + salt);
}

/* The id of a name, interned on first sight; UINT32_MAX when out of memory. A 64-bit hash
 * collision moves on to the next salt, so ids always stand for one text. */
static uint32_t intern_name(dfs_timeline *tl, const char *s, size_t n)
{
    if (n > UINT32_MAX)
        n = UINT32_MAX;
    for (uint64_t salt = 0;; salt++) {
        uint64_t key = salted(s, n, salt);
        uint32_t id;
        bool fresh;
        if (!dfs_keymap_get_or_put(&tl->name_index, &key, (uint32_t)tl->names.n, &id, &fresh))
            return UINT32_MAX;
        if (!fresh && id >= tl->names.n)
            return UINT32_MAX; /* an earlier insertion ran out of memory */
        if (!fresh) {
            const tl_text *t = &tl->names.v[id];
            if (t->len == n && memcmp(t->s, s, n) == 0)
                return id;
            continue;
        }
        tl_text t = {dfs_arena_strdup(&tl->arena, s ? s : "", s ? n : 0), (uint32_t)n};
        if (!t.s || !dfs_vec_push(&tl->names, t))
            return UINT32_MAX; /* the index now names a missing slot: the timeline is unusable */
        return id;
    }
}

static const char *nz(const char *s)
{
    return s ? s : "";
}

static bool same_lane(const tl_lane *l, const dfs_tl_lane_key *k)
{
    return l->pid == k->pid && l->tid == k->tid && strcmp(l->source, nz(k->source)) == 0 &&
           strcmp(l->host, nz(k->host)) == 0;
}

/* Fills a label the lane still lacks; false when out of memory. */
static bool fill_label(dfs_timeline *tl, const char **slot, const char *given)
{
    if (**slot || !given || !*given)
        return true;
    *slot = copy_text(tl, given);
    return *slot != NULL;
}

static bool fill_labels(dfs_timeline *tl, tl_lane *l, const dfs_tl_lane_key *k)
{
    return fill_label(tl, &l->pid_str, k->pid_str) && fill_label(tl, &l->tid_str, k->tid_str) &&
           fill_label(tl, &l->process, k->process) && fill_label(tl, &l->thread, k->thread);
}

uint64_t dfs_tl_lane_fingerprint(const dfs_tl_lane_key *k)
{
    const char *src = nz(k->source), *host = nz(k->host);
    uint64_t h = dfs_mix64(dfs_hash64(src, strlen(src)) + UINT64_C(0x9e3779b97f4a7c15));
    h = dfs_mix64(h ^ dfs_hash64(host, strlen(host)));
    h = dfs_mix64(h ^ (uint64_t)k->pid);
    return dfs_mix64(h ^ (uint64_t)k->tid * UINT64_C(0xff51afd7ed558ccd));
}

static bool is_kept(const dfs_timeline *tl, const dfs_tl_lane_key *k)
{
    uint64_t fp = dfs_tl_lane_fingerprint(k);
    return bsearch(&fp, tl->kept, tl->opt.nkept, sizeof fp, cmp_u64) != NULL;
}

static uint32_t new_lane(dfs_timeline *tl, const dfs_tl_lane_key *k)
{
    tl_lane l;
    memset(&l, 0, sizeof l);
    l.source = copy_text(tl, k->source);
    l.host = copy_text(tl, k->host);
    l.pid_str = l.tid_str = l.process = l.thread = "";
    l.pid = k->pid;
    l.tid = k->tid;
    l.folded = tl->kept ? !is_kept(tl, k) : tl->crowded;
    if (!l.source || !l.host || !fill_labels(tl, &l, k) || !dfs_vec_push(&tl->lanes, l))
        return UINT32_MAX;
    return (uint32_t)(tl->lanes.n - 1);
}

uint32_t dfs_tl_lane(dfs_timeline *tl, const dfs_tl_lane_key *k)
{
    const char *src = nz(k->source), *host = nz(k->host);
    for (uint64_t salt = 0;; salt++) {
        lane_hkey hk = {salted(src, strlen(src), salt), salted(host, strlen(host), salt), k->pid, k->tid};
        uint32_t id;
        bool fresh;
        if (!dfs_keymap_get_or_put(&tl->lane_index, &hk, (uint32_t)tl->lanes.n, &id, &fresh))
            return UINT32_MAX;
        if (fresh || id >= tl->lanes.n)
            return fresh ? new_lane(tl, k) : UINT32_MAX;
        if (id < tl->lanes.n && same_lane(&tl->lanes.v[id], k))
            return fill_labels(tl, &tl->lanes.v[id], k) ? id : UINT32_MAX;
    }
}

static bool narrow(const dfs_timeline *tl, int64_t cs, int64_t ce)
{
    return (__int128)(ce - cs) * tl->width < tl->span_ns;
}

static uint64_t lane_spans(const tl_lane *l);

static void count_add(uint32_t *count, uint32_t n)
{
    *count = n > UINT32_MAX - *count ? UINT32_MAX : *count + n;
}

/* Spreads a clipped span [cs, ce) over the columns it touches (two at most for a narrow one): its
 * time to each by overlap, the span itself counted in the first. */
static void spread_busy(const dfs_timeline *tl, tl_busy *busy, int64_t cs, int64_t ce, dfs_tl_class cls)
{
    unsigned first = dfs_tl_pixel_of(tl, cs), last = dfs_tl_pixel_of(tl, ce > cs ? ce - 1 : cs);
    count_add(&busy[first].count[cls], 1);
    for (unsigned i = first; i <= last; i++) {
        int64_t lo = dfs_tl_pixel_bound(tl, i), hi = dfs_tl_pixel_end(tl, i);
        int64_t part = (ce < hi ? ce : hi) - (cs > lo ? cs : lo);
        if (part > 0)
            busy[i].ns[cls] = dfs_tl_sat_add(busy[i].ns[cls], part);
    }
}

static bool has_busy(const dfs_timeline *tl, tl_lane *l)
{
    return l->busy || (l->busy = calloc(tl->width, sizeof *l->busy)) != NULL;
}

/* A narrow clipped span [cs, ce) into its lane's busy bars. */
static bool add_busy(dfs_timeline *tl, tl_lane *l, int64_t cs, int64_t ce, dfs_tl_class cls)
{
    if (!has_busy(tl, l))
        return false;
    spread_busy(tl, l->busy, cs, ce, cls);
    l->n_aggregated++;
    return true;
}

static void busy_add(const dfs_timeline *tl, tl_busy *into, const tl_busy *from)
{
    for (unsigned p = 0; from && p < tl->width; p++)
        for (int c = 0; c < DFS_TL_NCLASS; c++) {
            into[p].ns[c] = dfs_tl_sat_add(into[p].ns[c], from[p].ns[c]);
            count_add(&into[p].count[c], from[p].count[c]);
        }
}

/* Spans and busy bars of a lane (of `from`, the same window) into the other row of tl. */
static bool fold_into_other(dfs_timeline *tl, const dfs_timeline *from, const tl_lane *l)
{
    if (!l->spans.n && !l->busy)
        return true;
    if (!has_busy(tl, &tl->other))
        return false;
    int64_t ws = tl->opt.start_ns, we = tl->opt.end_ns;
    for (size_t i = 0; i < l->spans.n; i++) {
        const tl_span *s = &l->spans.v[i];
        spread_busy(tl, tl->other.busy, s->start > ws ? s->start : ws, s->end < we ? s->end : we, s->cls);
    }
    busy_add(from, tl->other.busy, l->busy);
    return true;
}

/* A lane of tl folded: its content into the other row, its counts kept. */
static bool fold_lane(dfs_timeline *tl, tl_lane *l)
{
    if (!fold_into_other(tl, tl, l))
        return false;
    dfs_vec_free(&l->spans);
    free(l->busy);
    l->busy = NULL;
    l->n_aggregated = lane_spans(l);
    l->folded = true;
    return true;
}

/* More lanes than the limit and none kept: every lane is folded, now and from now on. */
static bool crowd(dfs_timeline *tl)
{
    tl->crowded = true;
    for (size_t i = 0; i < tl->lanes.n; i++)
        if (!tl->lanes.v[i].folded && !fold_lane(tl, &tl->lanes.v[i]))
            return false;
    return true;
}

/* A lane received its first span: over the limit, fold them all. */
static bool lane_used(dfs_timeline *tl)
{
    tl->lanes_used++;
    return tl->kept || tl->crowded || tl->lanes_used <= tl->lane_limit || crowd(tl);
}

dfs_status dfs_tl_add_span(dfs_timeline *tl, uint32_t lane, int64_t start, int64_t dur, const char *name,
                           size_t name_len, dfs_tl_class cls)
{
    if (lane >= tl->lanes.n || (unsigned)cls >= DFS_TL_NCLASS || dur < 0)
        return DFS_ERR_USAGE;
    int64_t end;
    if (!dfs_span_end(start, dur, &end))
        end = INT64_MAX;
    int64_t ws = tl->opt.start_ns, we = tl->opt.end_ns;
    bool inside = dur == 0 ? start >= ws && start < we : start < we && end > ws;
    if (!inside)
        return DFS_OK;
    tl_lane *l = &tl->lanes.v[lane];
    int64_t cs = start > ws ? start : ws, ce = end < we ? end : we;
    if (lane_spans(l) == 0 && !lane_used(tl))
        return DFS_ERR_NOMEM;
    l->n_class[cls]++;
    l->busy_ns = dfs_tl_sat_add(l->busy_ns, ce - cs);
    if (l->folded) {
        if (!has_busy(tl, &tl->other))
            return DFS_ERR_NOMEM;
        spread_busy(tl, tl->other.busy, cs, ce, cls);
        l->n_aggregated++;
        return DFS_OK;
    }
    if (narrow(tl, cs, ce))
        return add_busy(tl, l, cs, ce, cls) ? DFS_OK : DFS_ERR_NOMEM;
    uint32_t id = intern_name(tl, name ? name : "", name ? name_len : 0);
    tl_span s = {start, end, id, (uint8_t)cls};
    if (id == UINT32_MAX || !dfs_vec_push(&l->spans, s))
        return DFS_ERR_NOMEM;
    return DFS_OK;
}

static tl_counter *counter_of(dfs_timeline *tl, const char *name, size_t len)
{
    uint32_t id = intern_name(tl, name ? name : "", name ? len : 0), idx;
    bool fresh;
    if (id == UINT32_MAX ||
        !dfs_keymap_get_or_put(&tl->counter_index, &id, (uint32_t)tl->counters.n, &idx, &fresh))
        return NULL;
    if (!fresh)
        return idx < tl->counters.n ? &tl->counters.v[idx] : NULL;
    tl_counter c = {id, calloc(tl->width, sizeof(tl_cell)), 0};
    if (!c.cells || !dfs_vec_push(&tl->counters, c)) {
        free(c.cells);
        return NULL;
    }
    return &tl->counters.v[idx];
}

static void cell_add(tl_cell *c, int64_t t, double v)
{
    if (c->n == 0) {
        c->min = c->max = c->last = v;
        c->last_t = t;
    } else {
        c->min = v < c->min ? v : c->min;
        c->max = v > c->max ? v : c->max;
        /* the latest sample, the larger value on a tie so that any merge order agrees */
        if (t > c->last_t || (t == c->last_t && v > c->last)) {
            c->last = v;
            c->last_t = t;
        }
    }
    c->n++;
}

dfs_status dfs_tl_add_counter(dfs_timeline *tl, const char *name, size_t len, int64_t t, double v)
{
    if (t < tl->opt.start_ns || t > tl->opt.end_ns || isnan(v))
        return DFS_OK;
    tl_counter *c = counter_of(tl, name, len);
    if (!c)
        return DFS_ERR_NOMEM;
    cell_add(&c->cells[dfs_tl_pixel_of(tl, t)], t, v);
    c->samples++;
    return DFS_OK;
}

/* ----- merge ----- */

/* A lane's spans and busy bars into the same lane of `into`, kept on its own there. */
static dfs_status merge_content(dfs_timeline *into, const dfs_timeline *from, tl_lane *m, const tl_lane *l)
{
    if (!dfs_vec_reserve(&m->spans, l->spans.n))
        return DFS_ERR_NOMEM;
    for (size_t i = 0; i < l->spans.n; i++) {
        tl_span s = l->spans.v[i];
        const tl_text *t = &from->names.v[s.name];
        if ((s.name = intern_name(into, t->s, t->len)) == UINT32_MAX)
            return DFS_ERR_NOMEM;
        m->spans.v[m->spans.n++] = s;
    }
    m->n_aggregated += l->n_aggregated;
    if (l->busy && !has_busy(into, m))
        return DFS_ERR_NOMEM;
    busy_add(into, m->busy, l->busy);
    return DFS_OK;
}

static dfs_status merge_lane(dfs_timeline *into, const dfs_timeline *from, const tl_lane *l)
{
    dfs_tl_lane_key k = {l->source, l->host, l->pid, l->tid, l->pid_str, l->tid_str, l->process, l->thread};
    uint32_t id = dfs_tl_lane(into, &k);
    if (id == UINT32_MAX)
        return DFS_ERR_NOMEM;
    tl_lane *m = &into->lanes.v[id];
    bool first_use = lane_spans(m) == 0 && lane_spans(l) > 0;
    for (int c = 0; c < DFS_TL_NCLASS; c++)
        m->n_class[c] += l->n_class[c];
    m->busy_ns = dfs_tl_sat_add(m->busy_ns, l->busy_ns);
    into->lanes_used += first_use;
    if (!m->folded)
        return merge_content(into, from, m, l);
    m->n_aggregated += lane_spans(l);
    return fold_into_other(into, from, l) ? DFS_OK : DFS_ERR_NOMEM;
}

static void cell_merge(tl_cell *y, const tl_cell *x)
{
    if (x->n == 0)
        return;
    if (y->n == 0) {
        *y = *x;
        return;
    }
    y->min = x->min < y->min ? x->min : y->min;
    y->max = x->max > y->max ? x->max : y->max;
    if (x->last_t > y->last_t || (x->last_t == y->last_t && x->last > y->last)) {
        y->last = x->last;
        y->last_t = x->last_t;
    }
    y->n += x->n;
}

static dfs_status merge_counter(dfs_timeline *into, const dfs_timeline *from, const tl_counter *c)
{
    const tl_text *t = &from->names.v[c->name];
    tl_counter *m = counter_of(into, t->s, t->len);
    if (!m)
        return DFS_ERR_NOMEM;
    for (unsigned p = 0; p < into->width; p++)
        cell_merge(&m->cells[p], &c->cells[p]);
    m->samples += c->samples;
    return DFS_OK;
}

static bool same_kept(const dfs_timeline *a, const dfs_timeline *b)
{
    return !a->kept == !b->kept && a->opt.nkept == b->opt.nkept &&
           (!a->opt.nkept || memcmp(a->kept, b->kept, a->opt.nkept * sizeof *a->kept) == 0);
}

dfs_status dfs_tl_merge(dfs_timeline *into, const dfs_timeline *from)
{
    if (into->opt.start_ns != from->opt.start_ns || into->opt.end_ns != from->opt.end_ns ||
        into->width != from->width || !same_kept(into, from))
        return DFS_ERR_USAGE;
    /* a crowded side folded lanes the other may keep: it has too many for both */
    if (from->crowded && !into->crowded && !crowd(into))
        return DFS_ERR_NOMEM;
    dfs_status st = DFS_OK;
    for (size_t i = 0; i < from->lanes.n && st == DFS_OK; i++)
        st = merge_lane(into, from, &from->lanes.v[i]);
    if (st == DFS_OK && from->other.busy) {
        if (!has_busy(into, &into->other))
            return DFS_ERR_NOMEM;
        busy_add(into, into->other.busy, from->other.busy);
    }
    if (st == DFS_OK && !into->kept && !into->crowded && into->lanes_used > into->lane_limit && !crowd(into))
        st = DFS_ERR_NOMEM;
    for (size_t i = 0; i < from->counters.n && st == DFS_OK; i++)
        st = merge_counter(into, from, &from->counters.v[i]);
    into->lanes_empty = from->lanes_empty > into->lanes_empty ? from->lanes_empty : into->lanes_empty;
    return st;
}

void dfs_tl_set_empty_lanes(dfs_timeline *tl, size_t n)
{
    tl->lanes_empty = n;
}

bool dfs_tl_crowded(const dfs_timeline *tl)
{
    return tl->crowded;
}

/* ===== which lanes are drawn ================================================================= */

static int cmp_num_or_text(int64_t a, const char *as, int64_t b, const char *bs)
{
    if (*as || *bs) /* a written string sorts after every number, by its text */
        return !*as ? -1 : !*bs ? 1 : strcmp(as, bs);
    return a < b ? -1 : a > b;
}

static int cmp_lane_key(const tl_lane *a, const tl_lane *b)
{
    int c = strcmp(a->source, b->source);
    if (!c)
        c = strcmp(a->host, b->host);
    if (!c)
        c = cmp_num_or_text(a->pid, a->pid_str, b->pid, b->pid_str);
    if (!c)
        c = cmp_num_or_text(a->tid, a->tid_str, b->tid, b->tid_str);
    return c;
}

bool dfs_tl_same_group(const tl_lane *a, const tl_lane *b)
{
    return strcmp(a->source, b->source) == 0 && strcmp(a->host, b->host) == 0 && a->pid == b->pid &&
           strcmp(a->pid_str, b->pid_str) == 0;
}

static uint64_t lane_spans(const tl_lane *l)
{
    uint64_t n = 0;
    for (int c = 0; c < DFS_TL_NCLASS; c++)
        n += l->n_class[c];
    return n;
}

/* qsort has no context argument: sort pointers, which carry everything the order needs. */
static int cmp_lane_ptr(const void *a, const void *b)
{
    return cmp_lane_key(*(const tl_lane *const *)a, *(const tl_lane *const *)b);
}

static int cmp_lane_busy(const void *a, const void *b)
{
    const tl_lane *x = *(const tl_lane *const *)a, *y = *(const tl_lane *const *)b;
    if (x->busy_ns != y->busy_ns)
        return x->busy_ns > y->busy_ns ? -1 : 1;
    return cmp_lane_key(x, y);
}

/* The lanes with spans in the window in key order; with `limit`, only those drawn on their own:
 * not folded, the busiest max_lanes. *total gets the count of them all. NULL when out of memory. */
const tl_lane **dfs_tl_lanes_in_order(const dfs_timeline *tl, bool limit, size_t *n, size_t *total)
{
    const tl_lane **v = malloc((tl->lanes.n ? tl->lanes.n : 1) * sizeof *v);
    *n = *total = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < tl->lanes.n; i++)
        if (lane_spans(&tl->lanes.v[i]) > 0) {
            (*total)++;
            if (!limit || !tl->lanes.v[i].folded)
                v[(*n)++] = &tl->lanes.v[i];
        }
    if (limit && tl->opt.max_lanes && *n > tl->opt.max_lanes) {
        qsort(v, *n, sizeof *v, cmp_lane_busy);
        *n = tl->opt.max_lanes;
    }
    qsort(v, *n, sizeof *v, cmp_lane_ptr);
    return v;
}

bool dfs_tl_other_drawn(const dfs_timeline *tl)
{
    if (!tl->other.busy)
        return false;
    return tl->crowded || !tl->opt.max_lanes || tl->opt.max_lanes > tl->lane_limit;
}

uint64_t *dfs_tl_busiest(const dfs_timeline *tl, size_t k, size_t *n)
{
    size_t all, total;
    const tl_lane **v = dfs_tl_lanes_in_order(tl, false, &all, &total);
    uint64_t *out = malloc((k ? k : 1) * sizeof *out);
    *n = 0;
    if (!v || !out) {
        free(v);
        free(out);
        return NULL;
    }
    qsort(v, all, sizeof *v, cmp_lane_busy);
    for (size_t i = 0; i < all && i < k; i++) {
        const tl_lane *l = v[i];
        dfs_tl_lane_key key = {.source = l->source, .host = l->host, .pid = l->pid, .tid = l->tid};
        out[(*n)++] = dfs_tl_lane_fingerprint(&key);
    }
    free(v);
    qsort(out, *n, sizeof *out, cmp_u64);
    return out;
}

void dfs_tl_summarize(const dfs_timeline *tl, dfs_tl_summary *out)
{
    memset(out, 0, sizeof *out);
    bool other = dfs_tl_other_drawn(tl);
    for (size_t i = 0; i < tl->lanes.n; i++) {
        const tl_lane *l = &tl->lanes.v[i];
        for (int c = 0; c < DFS_TL_NCLASS; c++)
            out->spans[c] += l->n_class[c];
        if (other && l->folded && lane_spans(l)) {
            out->lanes_other++;
            out->spans_other += lane_spans(l);
        }
    }
    const tl_lane **v = dfs_tl_lanes_in_order(tl, true, &out->lanes_drawn, &out->lanes);
    for (size_t i = 0; v && i < out->lanes_drawn; i++) {
        out->spans_drawn += v[i]->spans.n;
        out->spans_aggregated += v[i]->n_aggregated;
    }
    free(v);
    out->lanes_empty = tl->lanes_empty;
    out->counters = tl->counters.n;
    for (size_t i = 0; i < tl->counters.n; i++)
        out->samples += tl->counters.v[i].samples;
}

static dfs_tl_lane_info lane_info(const tl_lane *l, bool drawn, bool other)
{
    dfs_tl_lane_info info;
    memset(&info, 0, sizeof info);
    info.key =
        (dfs_tl_lane_key){l->source, l->host, l->pid, l->tid, l->pid_str, l->tid_str, l->process, l->thread};
    memcpy(info.spans, l->n_class, sizeof info.spans);
    info.aggregated = l->n_aggregated;
    info.drawn = drawn;
    info.other = other && l->folded;
    return info;
}

size_t dfs_tl_lanes(const dfs_timeline *tl, dfs_tl_lane_info *out, size_t cap)
{
    size_t n, drawn_n, total;
    const tl_lane **all = dfs_tl_lanes_in_order(tl, false, &n, &total);
    const tl_lane **drawn = dfs_tl_lanes_in_order(tl, true, &drawn_n, &total);
    bool other = dfs_tl_other_drawn(tl);
    for (size_t i = 0, d = 0; all && drawn && i < n && i < cap; i++) { /* drawn: a subsequence of all */
        bool is_drawn = d < drawn_n && drawn[d] == all[i];
        d += is_drawn;
        out[i] = lane_info(all[i], is_drawn, other);
    }
    bool ok = all && drawn;
    free(all);
    free(drawn);
    return ok ? n : 0; /* out of memory: nothing written, nothing claimed */
}

