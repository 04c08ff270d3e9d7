/* rules_system.c - the rules over system metrics: IOBottleneck, CPUBottleneck,
 * LowGPUUtilization, BatchSize, LoadBalancing, GPUMemoryIncrease, OverallSystemUsage
 * (spec/training-loop.md 1.4). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/rules/rules_internal.h"
#include "util/keymap.h"
#include "util/u64map.h"
#include "util/vec.h"

/* ---- shared pieces ---------------------------------------------------------------------------- */

#define LB_BINS 49 /* np.arange(0, 100, 2) as edges: [0,2), ..., [96,98] */

/* The values of one (node, device) pair, in reader order. */
typedef struct series {
    dfs_str node, dev;
    rl_list v;
    size_t detail_len;    /* values when it last violated (details are computed at the end) */
    double detail_diff;   /* GPUMemoryIncrease: the increase then */
    int detail_kind;      /* LowGPUUtilization: 1 under-utilized, 2 fluctuating */
    bool unused;          /* LowGPUUtilization: max 0 when checked */
    uint64_t hist[LB_BINS];
    uint64_t hist_total;
} series;

typedef struct series_set {
    dfs_keymap idx;
    DFS_VEC(series) v;
} series_set;

static void series_init(series_set *s)
{
    dfs_keymap_init(&s->idx, 2 * sizeof(dfs_str));
    s->v.v = NULL;
    s->v.n = s->v.cap = 0;
}

static void series_free(series_set *s)
{
    for (size_t i = 0; i < s->v.n; i++)
        rl_list_free(&s->v.v[i].v);
    dfs_vec_free(&s->v);
    dfs_keymap_free(&s->idx);
}

static series *series_of(series_set *s, dfs_str node, dfs_str dev)
{
    dfs_str key[2] = {node, dev};
    uint32_t at;
    bool inserted;
    if (!dfs_keymap_get_or_put(&s->idx, key, (uint32_t)s->v.n, &at, &inserted))
        return NULL;
    if (inserted && !dfs_vec_push(&s->v, ((series){.node = node, .dev = dev})))
        return NULL;
    return &s->v.v[at];
}

static series *series_find(const series_set *s, dfs_str node, dfs_str dev)
{
    dfs_str key[2] = {node, dev};
    uint32_t at;
    return dfs_keymap_get(&s->idx, key, &at) ? &s->v.v[at] : NULL;
}

/* The reference's reset: every list emptied (the series stay, in their order). */
static void series_clear(series_set *s)
{
    for (size_t i = 0; i < s->v.n; i++) {
        s->v.v[i].v.n = 0;
        s->v.v[i].hist_total = 0;
        memset(s->v.v[i].hist, 0, sizeof s->v.v[i].hist);
    }
}

static bool has_dim(const rl_ctx *c, int dim)
{
    for (size_t i = 0; i < c->nsamples; i++)
        if (c->samples[i].dim == dim)
            return true;
    return false;
}

static const char *const dim_label[RL_DIM__COUNT] = {
    "", "CPUUtilization", "GPUUtilization", "GPUMemoryUtilization", "I/OWaitPercentage", "Algorithm"};

/* The first missing dimension among dims[0..n), as the reason; false when all are there. */
static bool missing_input(const rl_ctx *c, rl_out *o, const int *dims, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!has_dim(c, dims[i])) {
            rl_set_reason(o, "no %s samples", dim_label[dims[i]]);
            return true;
        }
    return false;
}

static double last_quantile(const rl_list *l, double window, double q)
{
    size_t w = (size_t)window;
    size_t from = l->n > w ? l->n - w : 0;
    return dfs_quantile(l->v + from, l->n - from, q);
}

/* A window function checks a rule once; it adds to the rule's totals and reports what it added. */
typedef bool (*window_fn)(void *state, const rl_window *w, uint64_t *dv, uint64_t *dt);

/* The empty windows before `next`: after the first of them the state no longer changes, so the
 * second one's outcome repeats for the rest. */
static bool run_idle(void *state, window_fn fn, const rl_window *next, uint64_t *viol, uint64_t *trig)
{
    uint64_t g = next->idle_before, dv = 0, dt = 0;
    rl_window empty = {.k = next->k - g};
    for (uint64_t i = 0; i < g && i < 2; i++, empty.k++) {
        dv = dt = 0;
        if (!fn(state, &empty, &dv, &dt))
            return false;
    }
    if (g > 2) {
        *viol += dv * (g - 2);
        *trig += dt * (g - 2);
    }
    return true;
}

typedef struct window_loop {
    void *state;
    window_fn fn;
    uint64_t *viol, *trig;
} window_loop;

static bool run_windows(rl_ctx *c, dfs_rule_id r, bool (*ks)(const rl_sample *),
                        bool (*ke)(const rl_event *), window_loop l, rl_out *o)
{
    rl_windows it;
    bool ok = rl_windows_init(&it, c, rl_param(c, r, "scan_interval_us"), ks, ke);
    rl_window w;
    uint64_t dv, dt;
    while (ok && rl_windows_next(&it, &w)) {
        ok = run_idle(l.state, l.fn, &w, l.viol, l.trig);
        if (ok && !w.last)
            ok = l.fn(l.state, &w, &dv, &dt);
    }
    o->res->windows = it.nwindows;
    rl_windows_free(&it);
    return ok;
}

static bool gpu_sample(const rl_sample *s) { return s->dim == RL_DIM_GPU; }
static bool gpu_mem_sample(const rl_sample *s) { return s->dim == RL_DIM_GPU_MEM; }
static bool any_sample(const rl_sample *s) { (void)s; return true; }
static bool any_event(const rl_event *e) { (void)e; return true; }

static bool batch_sample(const rl_sample *s)
{
    return s->dim == RL_DIM_CPU || s->dim == RL_DIM_GPU || s->dim == RL_DIM_GPU_MEM;
}

static dfs_rv *member(rl_ctx *c, dfs_rv *obj, const char *key)
{
    for (dfs_rv *k = obj->head; k; k = k->next)
        if (k->type == DFS_RV_OBJ && k->key && strcmp(k->key, key) == 0)
            return k;
    return rl_obj(&c->tree, obj, key);
}

/* details[node][key], emptied: a later violation replaces what an earlier one wrote. */
static dfs_rv *series_detail(rl_ctx *c, dfs_rv *details, dfs_str node, const char *key)
{
    dfs_rv *obj = member(c, details, rl_label(c, node));
    dfs_rv *d = obj ? member(c, obj, key) : NULL;
    if (d) {
        d->head = d->tail = NULL;
        d->n = 0;
    }
    return d;
}

/* ---- IOBottleneck and CPUBottleneck ---------------------------------------------------------- */

typedef struct bn_entry {
    int64_t ts;
    uint32_t gpus, highs;
} bn_entry;

typedef DFS_VEC(bn_entry) bn_vec;
typedef DFS_VEC(int64_t) ts_vec;

typedef struct bn_state {
    rl_ctx *c;
    bool io, compat, checked;
    double threshold, high_thr, gpu_thr, patience, max_items;
    int64_t snap_ns, snap;
    bool have_snap;
    uint64_t datapoints, low_gpu, viol, trig;
    dfs_u64map bn_idx;             /* snapshot ts -> index in bns */
    bn_vec bns;                    /* every bottleneck so far */
    dfs_u64map low_idx, high_idx;  /* this window: snapshot ts -> index */
    bn_vec low, high;              /* this window, in order of appearance */
    rl_fw_agg *agg;
} bn_state;

static bool count_at(dfs_u64map *m, bn_vec *v, int64_t ts, bool *fresh)
{
    uint32_t at;
    *fresh = !dfs_u64map_get(m, (uint64_t)ts, &at);
    if (*fresh) {
        at = (uint32_t)v->n;
        if (!dfs_u64map_put(m, (uint64_t)ts, at) || !dfs_vec_push(v, ((bn_entry){ts, 0, 0})))
            return false;
    }
    v->v[at].gpus++;
    return true;
}

/* A sample opens a snapshot when it is more than the snapshot window from the snapshot's first
 * sample (not from the previous sample). The reference starts from timestamp 0, so a sample
 * within the window of the epoch opens none; the clean mode opens one with the first sample. */
static void bn_snapshot(bn_state *s, int64_t ts)
{
    bool have = s->have_snap || s->compat;
    uint64_t d = ts >= s->snap ? (uint64_t)ts - (uint64_t)s->snap : (uint64_t)s->snap - (uint64_t)ts;
    if (!have || d > (uint64_t)s->snap_ns) {
        s->snap = ts;
        s->have_snap = true;
        s->datapoints++;
    }
}

static bool bn_sample(bn_state *s, const rl_sample *x)
{
    bn_snapshot(s, x->ts);
    bool fresh;
    int high_dim = s->io ? RL_DIM_IO_WAIT : RL_DIM_CPU;
    if (x->dim == RL_DIM_GPU && x->value < s->gpu_thr) {
        if (!count_at(&s->low_idx, &s->low, s->snap, &fresh))
            return false;
        s->low_gpu += fresh;
    } else if (x->dim == high_dim && x->value > s->high_thr) {
        if (!count_at(&s->high_idx, &s->high, s->snap, &fresh))
            return false;
    }
    return true;
}

/* Snapshots of this window with both a low GPU and a high I/O wait (or CPU) value; their
 * timestamps go to `times`, in order of appearance. */
static bool bn_match(bn_state *s, ts_vec *times)
{
    for (size_t i = 0; i < s->high.n; i++) {
        uint32_t lo, at;
        const bn_entry *h = &s->high.v[i];
        if (!dfs_u64map_get(&s->low_idx, (uint64_t)h->ts, &lo))
            continue;
        bn_entry e = {h->ts, s->low.v[lo].gpus, h->gpus};
        if (dfs_u64map_get(&s->bn_idx, (uint64_t)h->ts, &at))
            s->bns.v[at] = e; /* a dict keeps the first position of a key */
        else if (!dfs_u64map_put(&s->bn_idx, (uint64_t)h->ts, (uint32_t)s->bns.n) || !dfs_vec_push(&s->bns, e))
            return false;
        if (!dfs_vec_push(times, h->ts))
            return false;
    }
    return true;
}

static bool bn_window(void *state, const rl_window *w, uint64_t *dv, uint64_t *dt)
{
    bn_state *s = state;
    (void)dv;
    if ((double)s->bns.n > s->max_items) {
        s->bns.n = 0;
        dfs_u64map_clear(&s->bn_idx);
    }
    dfs_u64map_clear(&s->low_idx);
    dfs_u64map_clear(&s->high_idx);
    s->low.n = s->high.n = 0;
    for (size_t i = 0; i < w->nsamples; i++)
        if (!bn_sample(s, &s->c->samples[w->samples[i]]))
            return false;
    ts_vec times = {0};
    bool ok = bn_match(s, &times);
    if (ok && (double)s->datapoints > s->patience) {
        s->checked = true;
        if ((double)s->bns.n / (double)s->datapoints * 100 > s->threshold) {
            s->trig++;
            *dt = 1;
            if (!s->agg && !(s->agg = rl_fw_agg_new()))
                ok = false;
            for (size_t i = 0; ok && i < times.n; i++)
                ok = rl_fw_agg_instant(s->agg, s->c, w, times.v[i]);
        }
    }
    dfs_vec_free(&times);
    return ok;
}

static void bn_outcome(bn_state *s, rl_out *o)
{
    rl_ctx *c = s->c;
    const char *high = s->io ? "I/OWaitPercentage" : "CPUUtilization";
    rl_int(&c->tree, o->details, "low_gpu_utilization", (int64_t)s->low_gpu);
    dfs_rv *arr = rl_arr(&c->tree, o->details, "bottlenecks");
    for (size_t i = 0; i < s->bns.n; i++) {
        dfs_rv *b = rl_obj(&c->tree, arr, NULL);
        rl_num(&c->tree, b, "timestamp", dfs_rules_seconds(s->bns.v[i].ts));
        rl_int(&c->tree, b, "GPUs", s->bns.v[i].gpus);
        rl_int(&c->tree, b, s->io && !s->compat ? "IOs" : "CPUs", s->bns.v[i].highs);
    }
    if (s->agg)
        rl_fw_agg_details(s->agg, c, o->details);
    o->res->datapoints = s->datapoints;
    o->res->violations = s->bns.n;
    o->res->triggered = s->trig;
    int dims[2] = {RL_DIM_GPU, s->io ? RL_DIM_IO_WAIT : RL_DIM_CPU};
    bool missing = missing_input(c, o, dims, 2);
    o->res->evaluated = !missing && s->checked;
    if (!missing && !s->checked) {
        rl_set_reason(o, "%llu snapshots (needs more than patience=%g)", (unsigned long long)s->datapoints,
                      s->patience);
        rl_set_enable(o, (size_t)s->datapoints, "patience", NULL);
    }
    rl_set_summary(o, "%zu bottlenecks (low GPU and high %s) in %llu snapshots", s->bns.n, high,
                   (unsigned long long)s->datapoints);
}

bool rl_rule_bottleneck(rl_ctx *c, rl_out *o, bool io)
{
    const dfs_rule_id R = io ? DFS_RULE_IO_BOTTLENECK : DFS_RULE_CPU_BOTTLENECK;
    bn_state s = {.c = c, .io = io, .compat = c->opt->mode == DFS_RULES_COMPAT,
                  .threshold = rl_param(c, R, "threshold"),
                  .high_thr = rl_param(c, R, io ? "io_threshold" : "cpu_threshold"),
                  .gpu_thr = rl_param(c, R, "gpu_threshold"), .patience = rl_param(c, R, "patience"),
                  .max_items = rl_param(c, R, "max_datapoints"),
                  .snap_ns = llround(rl_param(c, R, "snapshot_window_s") * 1e9)};
    dfs_u64map_init(&s.bn_idx);
    dfs_u64map_init(&s.low_idx);
    dfs_u64map_init(&s.high_idx);
    bool ok = run_windows(c, R, any_sample, any_event, (window_loop){&s, bn_window, &s.viol, &s.trig}, o);
    if (ok)
        bn_outcome(&s, o);
    dfs_u64map_free(&s.bn_idx);
    dfs_u64map_free(&s.low_idx);
    dfs_u64map_free(&s.high_idx);
    dfs_vec_free(&s.bns);
    dfs_vec_free(&s.low);
    dfs_vec_free(&s.high);
    rl_fw_agg_free(s.agg);
    return ok && !c->tree.failed;
}

/* ---- LowGPUUtilization ----------------------------------------------------------------------- */

typedef struct lg_state {
    rl_ctx *c;
    double thr95, thr5, window, patience, max_items;
    series_set set;
    uint64_t datapoints, viol, trig;
    bool checked;
    dfs_rv *details;
} lg_state;

/* The reference's record_violations, over the values the GPU had when it last violated. */
static void lg_details(lg_state *s, series *g)
{
    rl_ctx *c = s->c;
    size_t n = g->detail_len;
    if (!n)
        return;
    dfs_rv *d = series_detail(c, s->details, g->node, rl_label(c, g->dev));
    const double *v = g->v.v;
    size_t w = (size_t)s->window, from = n > w ? n - w : 0;
    rl_str(&c->tree, d, "condition", g->detail_kind == 1 ? "under-utilized" : "fluctuating");
    rl_num(&c->tree, d, "gpu_max", rl_max(v, n));
    rl_num(&c->tree, d, "gpu_95", dfs_quantile(v + from, n - from, 0.95));
    rl_num(&c->tree, d, "gpu_5", dfs_quantile(v + from, n - from, 0.05));
    rl_box(&c->tree, d, v, n, NAN);
    g->detail_len = 0;
}

static void lg_reset(lg_state *s)
{
    for (size_t i = 0; i < s->set.v.n; i++)
        lg_details(s, &s->set.v.v[i]);
    series_clear(&s->set);
}

static void lg_check(lg_state *s, series *g, uint64_t *dv, uint64_t *dt)
{
    s->checked = true;
    double p95 = last_quantile(&g->v, s->window, 0.95);
    g->unused |= rl_max(g->v.v, g->v.n) == 0;
    int kind = p95 < s->thr95 ? 1 : p95 > s->thr95 && last_quantile(&g->v, s->window, 0.05) < s->thr5 ? 2 : 0;
    if (!kind)
        return;
    s->viol++;
    s->trig++;
    (*dv)++;
    (*dt)++;
    g->detail_len = g->v.n;
    g->detail_kind = kind;
}

static bool lg_window(void *state, const rl_window *w, uint64_t *dv, uint64_t *dt)
{
    lg_state *s = state;
    for (size_t i = 0; i < w->nsamples; i++) {
        const rl_sample *x = &s->c->samples[w->samples[i]];
        series *g = series_of(&s->set, x->node, x->dev);
        if (!g || !rl_list_push(&g->v, x->value))
            return false;
    }
    bool reset = false;
    for (size_t i = 0; i < s->set.v.n; i++) {
        series *g = &s->set.v.v[i];
        s->datapoints = g->v.n;
        reset |= (double)g->v.n > s->max_items;
        if ((double)g->v.n > s->patience)
            lg_check(s, g, dv, dt);
    }
    if (reset)
        lg_reset(s);
    return !s->c->tree.failed;
}

static void lg_outcome(lg_state *s, rl_out *o)
{
    rl_ctx *c = s->c;
    size_t most = 0;
    dfs_rv *unused = NULL;
    for (size_t i = 0; i < s->set.v.n; i++) {
        series *g = &s->set.v.v[i];
        lg_details(s, g);
        most = g->v.n > most ? g->v.n : most;
        if (g->unused && (unused || (unused = rl_arr(&c->tree, o->details, "not_used"))))
            rl_str(&c->tree, unused, NULL, rl_fmt(&c->tree, "%s/%s", rl_label(c, g->node), rl_label(c, g->dev)));
    }
    o->res->datapoints = s->datapoints;
    o->res->violations = s->viol;
    o->res->triggered = s->trig;
    o->res->evaluated = s->checked;
    int dims[1] = {RL_DIM_GPU};
    if (!missing_input(c, o, dims, 1) && !s->checked) {
        rl_set_reason(o, "at most %zu GPUUtilization values per GPU (needs more than patience=%g)", most,
                      s->patience);
        rl_set_enable(o, most, "patience", NULL);
    }
    rl_set_summary(o, "%zu GPUs", s->set.v.n);
}

bool rl_rule_low_gpu(rl_ctx *c, rl_out *o)
{
    const dfs_rule_id R = DFS_RULE_LOW_GPU;
    lg_state s = {.c = c, .thr95 = rl_param(c, R, "threshold_p95"), .thr5 = rl_param(c, R, "threshold_p5"),
                  .window = rl_param(c, R, "window"), .patience = rl_param(c, R, "patience"),
                  .max_items = rl_param(c, R, "max_datapoints"), .details = o->details};
    series_init(&s.set);
    bool ok = run_windows(c, R, gpu_sample, NULL, (window_loop){&s, lg_window, &s.viol, &s.trig}, o);
    if (ok)
        lg_outcome(&s, o);
    series_free(&s.set);
    return ok && !c->tree.failed;
}

/* ---- BatchSize ------------------------------------------------------------------------------- */

typedef struct bs_total {
    dfs_str node;
    int64_t ts;
    double sum;
} bs_total;

typedef struct bs_state {
    rl_ctx *c;
    bool compat, checked;
    double cpu95, gpu95, mem95, patience, window, max_items;
    series_set gpu, mem, cpu; /* cpu: (node, 0) -> total CPU per timestamp */
    dfs_u64map mem_nodes;
    uint64_t datapoints, viol, trig;
    dfs_rv *details;
    /* this window: total CPU per (node, timestamp), and the cores of each node */
    dfs_keymap tot_idx, cores;
    DFS_VEC(bs_total) totals;
    dfs_u64map ncores;        /* node -> distinct core names this window */
} bs_state;

static void bs_details(bs_state *s, series *cpu)
{
    rl_ctx *c = s->c;
    if (cpu->detail_len)
        rl_box(&c->tree, series_detail(c, s->details, cpu->node, "cpu"), cpu->v.v, cpu->detail_len, NAN);
    cpu->detail_len = 0;
    for (size_t i = 0; i < s->gpu.v.n; i++) {
        series *g = &s->gpu.v.v[i];
        series *m = series_find(&s->mem, g->node, g->dev);
        if (g->node != cpu->node || !g->detail_len || !m)
            continue;
        const char *dev = rl_label(c, g->dev);
        rl_box(&c->tree, series_detail(c, s->details, g->node, dev), g->v.v, g->detail_len, NAN);
        double low = s->compat ? dfs_quantile(g->v.v, g->detail_len, 0.25) : NAN;
        rl_box(&c->tree, series_detail(c, s->details, g->node, rl_fmt(&c->tree, "%s_memory", dev)), m->v.v,
               m->detail_len, low);
        g->detail_len = m->detail_len = 0;
    }
}

static void bs_reset(bs_state *s)
{
    for (size_t i = 0; i < s->cpu.v.n; i++)
        bs_details(s, &s->cpu.v.v[i]);
    series_clear(&s->gpu);
    series_clear(&s->mem);
    series_clear(&s->cpu);
    dfs_u64map_clear(&s->mem_nodes);
}

static bool bs_cpu_sample(bs_state *s, const rl_sample *x)
{
    uint32_t at, n = 0;
    bool inserted;
    dfs_str core[2] = {x->node, x->dev};
    if (!dfs_keymap_get_or_put(&s->cores, core, 0, &at, &inserted))
        return false;
    if (inserted) {
        dfs_u64map_get(&s->ncores, x->node, &n);
        if (!dfs_u64map_put(&s->ncores, x->node, n + 1))
            return false;
    }
    struct {
        dfs_str node, pad;
        int64_t ts;
    } key = {x->node, 0, x->ts};
    if (!dfs_keymap_get_or_put(&s->tot_idx, &key, (uint32_t)s->totals.n, &at, &inserted) ||
        (inserted && !dfs_vec_push(&s->totals, ((bs_total){x->node, x->ts, 0}))))
        return false;
    s->totals.v[at].sum += x->value;
    return true;
}

static bool bs_sample(bs_state *s, const rl_sample *x)
{
    if (x->dim == RL_DIM_CPU)
        return bs_cpu_sample(s, x);
    series *g = series_of(x->dim == RL_DIM_GPU ? &s->gpu : &s->mem, x->node, x->dev);
    if (!g || !rl_list_push(&g->v, x->value))
        return false;
    if (x->dim == RL_DIM_GPU_MEM) {
        if (!dfs_u64map_put(&s->mem_nodes, x->node, 1))
            return false;
        if ((double)s->mem_nodes.count > s->max_items) /* the reference counts nodes here */
            bs_reset(s);
    }
    return true;
}

typedef struct bs_order {
    uint32_t rank, idx;
} bs_order;

static int cmp_bs_order(const void *a, const void *b)
{
    const bs_order *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Totals per node (sum over the cores / the node's distinct cores in the window), in the order
 * the nodes and then their timestamps appeared in the window. */
static bool bs_append_totals(bs_state *s)
{
    size_t n = s->totals.n;
    bs_order *ord = malloc((n ? n : 1) * sizeof *ord);
    dfs_u64map rank;
    dfs_u64map_init(&rank);
    bool ok = ord != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        uint32_t r;
        if (!dfs_u64map_get(&rank, s->totals.v[i].node, &r)) {
            r = (uint32_t)rank.count;
            ok = dfs_u64map_put(&rank, s->totals.v[i].node, r);
        }
        ord[i] = (bs_order){r, (uint32_t)i};
    }
    if (ok && n > 1)
        qsort(ord, n, sizeof *ord, cmp_bs_order);
    series *g = NULL;
    for (size_t i = 0; ok && i < n; i++) {
        const bs_total *t = &s->totals.v[ord[i].idx];
        if (!g || g->node != t->node)
            g = series_of(&s->cpu, t->node, 0);
        uint32_t cores = 1;
        dfs_u64map_get(&s->ncores, t->node, &cores);
        ok = g && rl_list_push(&g->v, t->sum / cores);
    }
    dfs_u64map_free(&rank);
    free(ord);
    return ok;
}

static void bs_check_gpu(bs_state *s, series *g, uint64_t *dv, uint64_t *dt)
{
    series *m = series_find(&s->mem, g->node, g->dev);
    if ((double)g->v.n <= s->window || !m || !m->v.n)
        return;
    if (last_quantile(&g->v, s->window, 0.95) < s->gpu95 && last_quantile(&m->v, s->window, 0.95) < s->mem95) {
        s->viol++;
        s->trig++;
        (*dv)++;
        (*dt)++;
        g->detail_len = g->v.n;
        m->detail_len = m->v.n;
        series *cpu = series_find(&s->cpu, g->node, 0);
        if (cpu)
            cpu->detail_len = cpu->v.n;
    }
}

static bool bs_window(void *state, const rl_window *w, uint64_t *dv, uint64_t *dt)
{
    bs_state *s = state;
    dfs_keymap_free(&s->tot_idx);
    dfs_keymap_free(&s->cores);
    dfs_keymap_init(&s->tot_idx, 2 * sizeof(dfs_str) + sizeof(int64_t));
    dfs_keymap_init(&s->cores, 2 * sizeof(dfs_str));
    dfs_u64map_clear(&s->ncores);
    s->totals.n = 0;
    for (size_t i = 0; i < w->nsamples; i++)
        if (!bs_sample(s, &s->c->samples[w->samples[i]]))
            return false;
    if (!bs_append_totals(s))
        return false;
    for (size_t i = 0; i < s->cpu.v.n; i++) {
        series *cpu = &s->cpu.v.v[i];
        s->datapoints = cpu->v.n;
        if ((double)cpu->v.n <= s->window || (double)cpu->v.n <= s->patience)
            continue;
        s->checked = true;
        if (last_quantile(&cpu->v, s->window, 0.95) >= s->cpu95)
            continue;
        for (size_t k = 0; k < s->gpu.v.n; k++)
            if (s->gpu.v.v[k].node == cpu->node)
                bs_check_gpu(s, &s->gpu.v.v[k], dv, dt);
    }
    return !s->c->tree.failed;
}

static void bs_outcome(bs_state *s, rl_out *o)
{
    rl_ctx *c = s->c;
    size_t most = 0;
    for (size_t i = 0; i < s->cpu.v.n; i++) {
        bs_details(s, &s->cpu.v.v[i]);
        most = s->cpu.v.v[i].v.n > most ? s->cpu.v.v[i].v.n : most;
    }
    o->res->datapoints = s->datapoints;
    o->res->violations = s->viol;
    o->res->triggered = s->trig;
    o->res->evaluated = s->checked;
    int dims[3] = {RL_DIM_CPU, RL_DIM_GPU, RL_DIM_GPU_MEM};
    if (!missing_input(c, o, dims, 3) && !s->checked) {
        rl_set_reason(o, "at most %zu total-CPU values per node (needs more than window=%g and patience=%g)",
                      most, s->window, s->patience);
        rl_set_enable(o, most, "window", "patience");
    }
    rl_set_summary(o, "%zu nodes, %zu GPUs", s->cpu.v.n, s->gpu.v.n);
}

bool rl_rule_batch_size(rl_ctx *c, rl_out *o)
{
    const dfs_rule_id R = DFS_RULE_BATCH_SIZE;
    bs_state s = {.c = c, .compat = c->opt->mode == DFS_RULES_COMPAT,
                  .cpu95 = rl_param(c, R, "cpu_threshold_p95"), .gpu95 = rl_param(c, R, "gpu_threshold_p95"),
                  .mem95 = rl_param(c, R, "gpu_memory_threshold_p95"), .patience = rl_param(c, R, "patience"),
                  .window = rl_param(c, R, "window"), .max_items = rl_param(c, R, "max_datapoints"),
                  .details = o->details};
    series_init(&s.gpu);
    series_init(&s.mem);
    series_init(&s.cpu);
    dfs_u64map_init(&s.mem_nodes);
    dfs_u64map_init(&s.ncores);
    dfs_keymap_init(&s.tot_idx, 2 * sizeof(dfs_str) + sizeof(int64_t));
    dfs_keymap_init(&s.cores, 2 * sizeof(dfs_str));
    bool ok = run_windows(c, R, batch_sample, NULL, (window_loop){&s, bs_window, &s.viol, &s.trig}, o);
    if (ok)
        bs_outcome(&s, o);
    series_free(&s.gpu);
    series_free(&s.mem);
    series_free(&s.cpu);
    dfs_u64map_free(&s.mem_nodes);
    dfs_u64map_free(&s.ncores);
    dfs_keymap_free(&s.tot_idx);
    dfs_keymap_free(&s.cores);
    dfs_vec_free(&s.totals);
    return ok && !c->tree.failed;
}

/* ---- LoadBalancing ---------------------------------------------------------------------------- */

typedef struct lb_pair {
    uint32_t a, b;    /* series indices */
    double distance;  /* the last distance above the threshold */
} lb_pair;

typedef struct lb_state {
    rl_ctx *c;
    bool compat, checked;
    double threshold, patience, max_items;
    series_set set;
    uint64_t datapoints, viol, trig, empty_pairs;
    dfs_keymap pair_idx;
    DFS_VEC(lb_pair) pairs;
} lb_state;

/* np.histogram(values, bins=np.arange(0, 100, 2)): [0,2) ... [96,98]; other values dropped. */
static void lb_count(series *g, double v)
{
    if (!(v >= 0 && v <= 98))
        return;
    size_t bin = v >= 96 ? LB_BINS - 1 : (size_t)(v / 2);
    g->hist[bin]++;
    g->hist_total++;
}

/* Jensen-Shannon distance of the two normalized histograms (natural log). */
static double js_distance(const series *a, const series *b)
{
    double kl_a = 0, kl_b = 0;
    for (size_t i = 0; i < LB_BINS; i++) {
        double p = (double)a->hist[i] / (double)a->hist_total, q = (double)b->hist[i] / (double)b->hist_total;
        double m = (p + q) / 2;
        if (p > 0)
            kl_a += p * log(p / m);
        if (q > 0)
            kl_b += q * log(q / m);
    }
    double d = (kl_a + kl_b) / 2;
    return sqrt(d > 0 ? d : 0);
}

static bool lb_pair_check(lb_state *s, uint32_t i, uint32_t k, uint64_t *dv, uint64_t *dt)
{
    const series *a = &s->set.v.v[i], *b = &s->set.v.v[k];
    if (!a->hist_total || !b->hist_total) {
        s->empty_pairs++;
        return true;
    }
    s->checked = true;
    double d = js_distance(a, b);
    if (!(d > s->threshold))
        return true;
    s->viol++;
    s->trig++;
    (*dv)++;
    (*dt)++;
    uint32_t key[2] = {i, k}, at;
    bool inserted;
    if (!dfs_keymap_get_or_put(&s->pair_idx, key, (uint32_t)s->pairs.n, &at, &inserted) ||
        (inserted && !dfs_vec_push(&s->pairs, ((lb_pair){i, k, 0}))))
        return false;
    s->pairs.v[at].distance = d;
    return true;
}

/* Clean mode: every pair of GPUs of a node, both with more than `patience` values. */
static bool lb_compare(lb_state *s, uint64_t *dv, uint64_t *dt)
{
    size_t n = s->set.v.n;
    for (size_t i = 0; i < n; i++) {
        const series *a = &s->set.v.v[i];
        if ((double)a->v.n <= s->patience)
            continue;
        for (size_t k = i + 1; k < n; k++) {
            const series *b = &s->set.v.v[k];
            if (b->node == a->node && (double)b->v.n > s->patience &&
                !lb_pair_check(s, (uint32_t)i, (uint32_t)k, dv, dt))
                return false;
        }
    }
    return true;
}

static bool lb_window(void *state, const rl_window *w, uint64_t *dv, uint64_t *dt)
{
    lb_state *s = state;
    for (size_t i = 0; i < w->nsamples; i++) {
        const rl_sample *x = &s->c->samples[w->samples[i]];
        series *g = series_of(&s->set, x->node, x->dev);
        if (!g || !rl_list_push(&g->v, x->value))
            return false;
        lb_count(g, x->value);
        s->datapoints = g->v.n;
        if ((double)g->v.n > s->max_items)
            series_clear(&s->set);
    }
    return s->compat || lb_compare(s, dv, dt);
}

static void lb_details(lb_state *s, rl_out *o)
{
    rl_ctx *c = s->c;
    for (size_t i = 0; i < s->pairs.n; i++) {
        const series *a = &s->set.v.v[s->pairs.v[i].a], *b = &s->set.v.v[s->pairs.v[i].b];
        dfs_rv *node = member(c, o->details, rl_label(c, a->node));
        dfs_rv *work = member(c, node, "workloads"), *dist = member(c, node, "distances");
        const series *both[2] = {a, b};
        for (int k = 0; k < 2; k++) {
            const char *dev = rl_label(c, both[k]->dev);
            bool seen = false;
            for (dfs_rv *x = work->head; x && !seen; x = x->next)
                seen = strcmp(x->key, dev) == 0;
            if (!seen)
                rl_counts(&c->tree, work, dev, both[k]->hist, LB_BINS);
        }
        rl_num(&c->tree, member(c, dist, rl_label(c, a->dev)), rl_label(c, b->dev), s->pairs.v[i].distance);
    }
}

/* The most values both GPUs of a node's pair have: what patience must stay below for a check. */
static size_t lb_best_pair(const lb_state *s)
{
    size_t best = 0, n = s->set.v.n;
    for (size_t i = 0; i < n; i++)
        for (size_t k = i + 1; k < n; k++) {
            const series *a = &s->set.v.v[i], *b = &s->set.v.v[k];
            size_t both = a->v.n < b->v.n ? a->v.n : b->v.n;
            if (a->node == b->node && both > best)
                best = both;
        }
    return best;
}

static void lb_outcome(lb_state *s, rl_out *o)
{
    rl_ctx *c = s->c;
    lb_details(s, o);
    o->res->datapoints = s->datapoints;
    o->res->violations = s->viol;
    o->res->triggered = s->trig;
    o->res->evaluated = s->checked && !s->compat;
    int dims[1] = {RL_DIM_GPU};
    if (missing_input(c, o, dims, 1))
        o->res->evaluated = false;
    else if (s->compat)
        rl_set_reason(o, "compatible mode: the reference compares each GPU only with itself (a "
                         "mis-indented loop), so the rule never fires");
    else if (!s->checked && s->empty_pairs)
        rl_set_reason(o, "every GPU pair has a GPU without values in [0, 98]");
    else if (!s->checked) {
        rl_set_reason(o, "no node has two GPUs with more than patience=%g GPUUtilization values", s->patience);
        rl_set_enable(o, lb_best_pair(s), "patience", NULL);
    }
    rl_set_summary(o, "%zu GPU pairs above the threshold", s->pairs.n);
}

bool rl_rule_load_balancing(rl_ctx *c, rl_out *o)
{
    const dfs_rule_id R = DFS_RULE_LOAD_BALANCING;
    lb_state s = {.c = c, .compat = c->opt->mode == DFS_RULES_COMPAT, .threshold = rl_param(c, R, "threshold"),
                  .patience = rl_param(c, R, "patience"), .max_items = rl_param(c, R, "max_datapoints")};
    series_init(&s.set);
    dfs_keymap_init(&s.pair_idx, 2 * sizeof(uint32_t));
    bool ok = run_windows(c, R, gpu_sample, NULL, (window_loop){&s, lb_window, &s.viol, &s.trig}, o);
    if (ok)
        lb_outcome(&s, o);
    series_free(&s.set);
    dfs_keymap_free(&s.pair_idx);
    dfs_vec_free(&s.pairs);
    return ok && !c->tree.failed;
}

/* ---- GPUMemoryIncrease ----------------------------------------------------------------------- */

typedef struct gm_state {
    rl_ctx *c;
    bool compat, checked;
    double increase, patience, window, max_items;
    series_set set;
    uint64_t datapoints, viol, trig;
    dfs_rv *details;
} gm_state;

static void gm_details(gm_state *s, series *g)
{
    rl_ctx *c = s->c;
    size_t n = g->detail_len;
    if (!n)
        return;
    dfs_rv *d = series_detail(c, s->details, g->node, rl_label(c, g->dev));
    rl_num(&c->tree, d, "increase", g->detail_diff);
    rl_num(&c->tree, d, "gpu_max", rl_max(g->v.v, n));
    rl_num(&c->tree, d, "p05", dfs_quantile(g->v.v, n, 0.05));
    rl_box(&c->tree, d, g->v.v, n, NAN);
    g->detail_len = 0;
}

/* mean(last window values) - mean(the previous moving average's values). The reference takes
 * values[-window-1:-2] for the previous one: window-1 values, ending two before the last. */
static void gm_check(gm_state *s, series *g)
{
    size_t n = g->v.n, w = (size_t)s->window;
    if (s->compat ? n <= w + 1 : n <= w)
        return;
    const double *v = g->v.v;
    double last = dfs_mean_np(v + n - w, w);
    double prev = s->compat ? dfs_mean_np(v + n - w - 1, w - 1) : dfs_mean_np(v + n - w - 1, w);
    double diff = last - prev;
    if ((double)n > s->patience)
        s->checked = true;
    if (!(diff > s->increase) || (double)n <= s->patience)
        return;
    s->viol++;
    s->trig++;
    g->detail_len = n;
    g->detail_diff = diff;
}

static bool gm_window(void *state, const rl_window *w, uint64_t *dv, uint64_t *dt)
{
    gm_state *s = state;
    (void)dv;
    (void)dt;
    for (size_t i = 0; i < w->nsamples; i++) {
        const rl_sample *x = &s->c->samples[w->samples[i]];
        series *g = series_of(&s->set, x->node, x->dev);
        if (!g || !rl_list_push(&g->v, x->value))
            return false;
        s->datapoints = g->v.n;
        gm_check(s, g);
        if ((double)g->v.n > s->max_items) {
            for (size_t k = 0; k < s->set.v.n; k++)
                gm_details(s, &s->set.v.v[k]);
            series_clear(&s->set);
        }
    }
    return !s->c->tree.failed;
}

bool rl_rule_gpu_memory_increase(rl_ctx *c, rl_out *o)
{
    const dfs_rule_id R = DFS_RULE_GPU_MEMORY_INCREASE;
    gm_state s = {.c = c, .compat = c->opt->mode == DFS_RULES_COMPAT, .increase = rl_param(c, R, "increase"),
                  .patience = rl_param(c, R, "patience"), .window = rl_param(c, R, "window"),
                  .max_items = rl_param(c, R, "max_datapoints"), .details = o->details};
    series_init(&s.set);
    bool ok = run_windows(c, R, gpu_mem_sample, NULL, (window_loop){&s, gm_window, &s.viol, &s.trig}, o);
    size_t most = 0;
    for (size_t i = 0; ok && i < s.set.v.n; i++) {
        gm_details(&s, &s.set.v.v[i]);
        most = s.set.v.v[i].v.n > most ? s.set.v.v[i].v.n : most;
    }
    if (ok) {
        o->res->datapoints = s.datapoints;
        o->res->violations = s.viol;
        o->res->triggered = s.trig;
        o->res->evaluated = s.checked;
        int dims[1] = {RL_DIM_GPU_MEM};
        if (!missing_input(c, o, dims, 1) && !s.checked) {
            rl_set_reason(o, "at most %zu GPUMemoryUtilization values per GPU (needs more than patience=%g "
                             "and window=%g + %d)", most, s.patience, s.window, s.compat ? 1 : 0);
            rl_set_enable(o, most > (s.compat ? 1u : 0u) ? most - (s.compat ? 1 : 0) : 0, "window", "patience");
        }
        rl_set_summary(o, "%zu GPUs", s.set.v.n);
    }
    series_free(&s.set);
    return ok && !c->tree.failed;
}

/* ---- OverallSystemUsage ---------------------------------------------------------------------- */

enum { OS_NETWORK, OS_GPU, OS_CPU, OS_CPU_MEM, OS_GPU_MEM, OS_IO, OS__COUNT };
static const char *const os_names[OS__COUNT] = {"Network", "GPU", "CPU", "CPU memory", "GPU memory", "I/O"};

typedef struct os_state {
    rl_ctx *c;
    double max_items;
    series_set groups[OS__COUNT]; /* (node, 0) -> sums per timestamp, in order of appearance */
    dfs_keymap at_ts[OS__COUNT];  /* {node, ts} -> index in the group's sums */
    dfs_u64map gpu_ids, core_ids; /* distinct Names (over all nodes, as the reference) */
    uint64_t datapoints, viol, trig;
} os_state;

static bool os_add(os_state *s, int metric, const rl_sample *x)
{
    series *g = series_of(&s->groups[metric], x->node, 0);
    struct {
        dfs_str node, pad;
        int64_t ts;
    } key = {x->node, 0, x->ts};
    uint32_t at;
    bool inserted;
    if (!g || !dfs_keymap_get_or_put(&s->at_ts[metric], &key, (uint32_t)g->v.n, &at, &inserted) ||
        (inserted && !rl_list_push(&g->v, 0)))
        return false;
    g->v.v[at] += x->value;
    return true;
}

static bool os_sample(os_state *s, const rl_sample *x)
{
    static const int metric_of[RL_DIM__COUNT] = {-1, OS_CPU, OS_GPU, OS_GPU_MEM, OS_IO, OS_NETWORK};
    int m = metric_of[x->dim];
    if (x->dim == RL_DIM_GPU && !dfs_u64map_put(&s->gpu_ids, x->dev, 1))
        return false;
    if (x->dim == RL_DIM_CPU && !dfs_u64map_put(&s->core_ids, x->dev, 1))
        return false;
    if (m >= 0 && !os_add(s, m, x))
        return false;
    return !x->mem_used || os_add(s, OS_CPU_MEM, x);
}

static bool os_window(void *state, const rl_window *w, uint64_t *dv, uint64_t *dt)
{
    os_state *s = state;
    (void)dv;
    (void)dt;
    for (size_t i = 0; i < w->nsamples; i++)
        if (!os_sample(s, &s->c->samples[w->samples[i]]))
            return false;
    if (!s->groups[OS_CPU].v.n)
        return true;
    s->datapoints = s->groups[OS_CPU].v.v[0].v.n;
    if ((double)s->datapoints > s->max_items)
        for (int m = 0; m < OS__COUNT; m++) {
            series_free(&s->groups[m]);
            series_init(&s->groups[m]);
            dfs_keymap_free(&s->at_ts[m]);
            dfs_keymap_init(&s->at_ts[m], 2 * sizeof(dfs_str) + sizeof(int64_t));
        }
    return true;
}

/* max, p99, p95, p50, min divided by n, negatives (and NaN) as 0, rounded to 2 decimals. */
static void os_stat(rl_ctx *c, dfs_rv *obj, const char *key, double v, double n)
{
    double x = v / n;
    rl_num(&c->tree, obj, key, dfs_py_round(x > 0 ? x : 0, 2));
}

static void os_outcome(os_state *s, rl_out *o)
{
    rl_ctx *c = s->c;
    double div[OS__COUNT] = {1, (double)s->gpu_ids.count, (double)s->core_ids.count, 1,
                             (double)s->gpu_ids.count, (double)s->core_ids.count};
    bool any = false;
    for (int m = 0; m < OS__COUNT; m++) {
        const series_set *set = &s->groups[m];
        if (!set->v.n)
            continue;
        any = true;
        if (div[m] == 0) {
            rl_str(&c->tree, o->details, os_names[m],
                   m == OS_IO ? "no CPUUtilization samples: the number of cores is unknown"
                              : "no GPUUtilization samples: the number of GPUs is unknown");
            continue;
        }
        dfs_rv *metric = rl_obj(&c->tree, o->details, os_names[m]);
        for (size_t i = 0; i < set->v.n; i++) {
            const rl_list *v = &set->v.v[i].v;
            dfs_rv *node = rl_obj(&c->tree, metric, rl_label(c, set->v.v[i].node));
            os_stat(c, node, "max", rl_max(v->v, v->n), div[m]);
            os_stat(c, node, "p99", dfs_quantile(v->v, v->n, 0.99), div[m]);
            os_stat(c, node, "p95", dfs_quantile(v->v, v->n, 0.95), div[m]);
            os_stat(c, node, "p50", dfs_quantile(v->v, v->n, 0.50), div[m]);
            os_stat(c, node, "min", rl_min(v->v, v->n), div[m]);
        }
    }
    o->res->datapoints = s->datapoints;
    o->res->evaluated = any;
    if (!any)
        rl_set_reason(o, "no GPUUtilization, GPUMemoryUtilization, CPUUtilization, MemoryUsedPercent, "
                         "Algorithm or I/OWaitPercentage samples");
    rl_set_summary(o, "%zu GPUs, %zu cores (never triggers)", s->gpu_ids.count, s->core_ids.count);
}

bool rl_rule_overall_system_usage(rl_ctx *c, rl_out *o)
{
    const dfs_rule_id R = DFS_RULE_OVERALL_SYSTEM_USAGE;
    os_state s = {.c = c, .max_items = rl_param(c, R, "max_datapoints")};
    for (int m = 0; m < OS__COUNT; m++) {
        series_init(&s.groups[m]);
        dfs_keymap_init(&s.at_ts[m], 2 * sizeof(dfs_str) + sizeof(int64_t));
    }
    dfs_u64map_init(&s.gpu_ids);
    dfs_u64map_init(&s.core_ids);
    bool ok = run_windows(c, R, any_sample, NULL, (window_loop){&s, os_window, &s.viol, &s.trig}, o);
    if (ok)
        os_outcome(&s, o);
    for (int m = 0; m < OS__COUNT; m++) {
        series_free(&s.groups[m]);
        dfs_keymap_free(&s.at_ts[m]);
    }
    dfs_u64map_free(&s.gpu_ids);
    dfs_u64map_free(&s.core_ids);
    return ok && !c->tree.failed;
}
