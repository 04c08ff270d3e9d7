/* timeline.c - the collecting half of the window picture (timeline.h): lanes, spans, per-pixel
 * busy bars, counters, merging, and which lanes are drawn. The drawing is timeline_svg.c. */
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
        width < 200 || width > 20000 || opt->max_depth > 64)
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
    tl->opt.title = copy_text(tl, opt->title ? opt->title : "dfscope timeline");
    tl->opt.subtitle = copy_text(tl, opt->subtitle);
    if (!tl->opt.title || !tl->opt.subtitle) {
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

static uint32_t new_lane(dfs_timeline *tl, const dfs_tl_lane_key *k)
{
    tl_lane l;
    memset(&l, 0, sizeof l);
    l.source = copy_text(tl, k->source);
    l.host = copy_text(tl, k->host);
    l.pid_str = l.tid_str = l.process = l.thread = "";
    l.pid = k->pid;
    l.tid = k->tid;
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

/* Spreads a narrow clipped span [cs, ce) over the (at most two) columns it touches. */
static bool add_busy(dfs_timeline *tl, tl_lane *l, int64_t cs, int64_t ce, dfs_tl_class cls)
{
    if (!l->busy && !(l->busy = calloc(tl->width, sizeof *l->busy)))
        return false;
    unsigned first = dfs_tl_pixel_of(tl, cs), last = dfs_tl_pixel_of(tl, ce > cs ? ce - 1 : cs);
    l->busy[first].count[cls]++;
    for (unsigned i = first; i <= last; i++) {
        int64_t lo = dfs_tl_pixel_bound(tl, i), hi = dfs_tl_pixel_end(tl, i);
        int64_t part = (ce < hi ? ce : hi) - (cs > lo ? cs : lo);
        if (part > 0)
            l->busy[i].ns[cls] = dfs_tl_sat_add(l->busy[i].ns[cls], part);
    }
    l->n_aggregated++;
    return true;
}

dfs_status dfs_tl_add_span(dfs_timeline *tl, uint32_t lane, int64_t start, int64_t dur, const char *name,
                           size_t name_len, dfs_tl_class cls)
{
    if (lane >= tl->lanes.n || (unsigned)cls >= DFS_TL_NCLASS || dur < 0)
        return DFS_ERR_USAGE;
    int64_t end;
    if (__builtin_add_overflow(start, dur, &end))
        end = INT64_MAX;
    int64_t ws = tl->opt.start_ns, we = tl->opt.end_ns;
    bool inside = dur == 0 ? start >= ws && start < we : start < we && end > ws;
    if (!inside)
        return DFS_OK;
    tl_lane *l = &tl->lanes.v[lane];
    int64_t cs = start > ws ? start : ws, ce = end < we ? end : we;
    l->n_class[cls]++;
    l->busy_ns = dfs_tl_sat_add(l->busy_ns, ce - cs);
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

static dfs_status merge_lane(dfs_timeline *into, const dfs_timeline *from, const tl_lane *l)
{
    dfs_tl_lane_key k = {l->source, l->host, l->pid, l->tid, l->pid_str, l->tid_str, l->process, l->thread};
    uint32_t id = dfs_tl_lane(into, &k);
    if (id == UINT32_MAX || !dfs_vec_reserve(&into->lanes.v[id].spans, l->spans.n))
        return DFS_ERR_NOMEM;
    tl_lane *m = &into->lanes.v[id];
    for (size_t i = 0; i < l->spans.n; i++) {
        tl_span s = l->spans.v[i];
        const tl_text *t = &from->names.v[s.name];
        if ((s.name = intern_name(into, t->s, t->len)) == UINT32_MAX)
            return DFS_ERR_NOMEM;
        m->spans.v[m->spans.n++] = s;
    }
    for (int c = 0; c < DFS_TL_NCLASS; c++)
        m->n_class[c] += l->n_class[c];
    m->n_aggregated += l->n_aggregated;
    m->busy_ns = dfs_tl_sat_add(m->busy_ns, l->busy_ns);
    if (l->busy && !m->busy && !(m->busy = calloc(into->width, sizeof *m->busy)))
        return DFS_ERR_NOMEM;
    for (unsigned p = 0; l->busy && p < into->width; p++)
        for (int c = 0; c < DFS_TL_NCLASS; c++) {
            m->busy[p].ns[c] = dfs_tl_sat_add(m->busy[p].ns[c], l->busy[p].ns[c]);
            m->busy[p].count[c] += l->busy[p].count[c];
        }
    return DFS_OK;
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

dfs_status dfs_tl_merge(dfs_timeline *into, const dfs_timeline *from)
{
    if (into->opt.start_ns != from->opt.start_ns || into->opt.end_ns != from->opt.end_ns ||
        into->width != from->width)
        return DFS_ERR_USAGE;
    dfs_status st = DFS_OK;
    for (size_t i = 0; i < from->lanes.n && st == DFS_OK; i++)
        st = merge_lane(into, from, &from->lanes.v[i]);
    for (size_t i = 0; i < from->counters.n && st == DFS_OK; i++)
        st = merge_counter(into, from, &from->counters.v[i]);
    return st;
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

/* The lanes with spans in the window in key order; with `limit`, only the busiest max_lanes.
 * *total gets the count before the limit. NULL when out of memory. */
const tl_lane **dfs_tl_lanes_in_order(const dfs_timeline *tl, bool limit, size_t *n, size_t *total)
{
    const tl_lane **v = malloc((tl->lanes.n ? tl->lanes.n : 1) * sizeof *v);
    *n = *total = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < tl->lanes.n; i++)
        if (lane_spans(&tl->lanes.v[i]) > 0)
            v[(*n)++] = &tl->lanes.v[i];
    *total = *n;
    if (limit && tl->opt.max_lanes && *n > tl->opt.max_lanes) {
        qsort(v, *n, sizeof *v, cmp_lane_busy);
        *n = tl->opt.max_lanes;
    }
    qsort(v, *n, sizeof *v, cmp_lane_ptr);
    return v;
}

void dfs_tl_summarize(const dfs_timeline *tl, dfs_tl_summary *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < tl->lanes.n; i++)
        for (int c = 0; c < DFS_TL_NCLASS; c++)
            out->spans[c] += tl->lanes.v[i].n_class[c];
    const tl_lane **v = dfs_tl_lanes_in_order(tl, true, &out->lanes_drawn, &out->lanes);
    for (size_t i = 0; v && i < out->lanes_drawn; i++) {
        out->spans_drawn += v[i]->spans.n;
        out->spans_aggregated += v[i]->n_aggregated;
    }
    free(v);
    out->counters = tl->counters.n;
    for (size_t i = 0; i < tl->counters.n; i++)
        out->samples += tl->counters.v[i].samples;
}

static dfs_tl_lane_info lane_info(const tl_lane *l, bool drawn)
{
    dfs_tl_lane_info info;
    memset(&info, 0, sizeof info);
    info.key =
        (dfs_tl_lane_key){l->source, l->host, l->pid, l->tid, l->pid_str, l->tid_str, l->process, l->thread};
    memcpy(info.spans, l->n_class, sizeof info.spans);
    info.aggregated = l->n_aggregated;
    info.drawn = drawn;
    return info;
}

size_t dfs_tl_lanes(const dfs_timeline *tl, dfs_tl_lane_info *out, size_t cap)
{
    size_t n, drawn_n, total;
    const tl_lane **all = dfs_tl_lanes_in_order(tl, false, &n, &total);
    const tl_lane **drawn = dfs_tl_lanes_in_order(tl, true, &drawn_n, &total);
    for (size_t i = 0, d = 0; all && drawn && i < n && i < cap; i++) { /* drawn: a subsequence of all */
        bool is_drawn = d < drawn_n && drawn[d] == all[i];
        d += is_drawn;
        out[i] = lane_info(all[i], is_drawn);
    }
    bool ok = all && drawn;
    free(all);
    free(drawn);
    return ok ? n : 0; /* out of memory: nothing written, nothing claimed */
}

