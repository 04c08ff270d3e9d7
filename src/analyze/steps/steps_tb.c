/* steps_tb.c - the TensorBoard plugin's step-time breakdown of a Kineto trace (spec §3.2):
 * device-shifted steps, roles in priority order, the tail rule, and the averages and percentages
 * rounded as the plugin rounds them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/common/gpu_events.h"
#include "analyze/steps/steps_internal.h"
#include "util/numstat.h"
#include "util/u64map.h"

typedef enum tb_type {
    T_NONE, T_OPERATOR, T_RUNTIME, T_KERNEL, T_MEMCPY, T_MEMSET, T_PYTHON, T_PYFUNC, T_ANNOTATION,
    T_GPU_ANNOTATION, T_TRACE, T_RANGE
} tb_type;

const char *dfs_tb_role_name(dfs_tb_role r)
{
    static const char *const names[DFS_TB_ROLE_COUNT] = {"Kernel",  "Memcpy",     "Memset",   "Communication",
                                                         "Runtime", "DataLoader", "CPU Exec", "Other"};
    return (unsigned)r < DFS_TB_ROLE_COUNT ? names[r] : NULL;
}

static bool text_is(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && strncasecmp(s, lit, n) == 0;
}

static bool starts_with(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n >= m && memcmp(s, lit, m) == 0;
}

static bool ends_with(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n >= m && memcmp(s + n - m, lit, m) == 0;
}

/* The plugin's event type from the category: the host categories here, the GPU ones from the
 * shared classification (analyze/common/gpu_events.h), which also knows MTIA's device ops and
 * runtime. A CUPTI range measurement has its own type: a device event, but not timed work. */
static tb_type type_of(const dfs_run *run, dfs_str cat)
{
    static const struct {
        const char *cat;
        tb_type t;
    } host[] = {{"cpu_op", T_OPERATOR},         {"operator", T_OPERATOR}, {"python", T_PYTHON},
                {"python_function", T_PYFUNC},  {"user_annotation", T_ANNOTATION}, {"trace", T_TRACE}};
    size_t n;
    const char *s = dfs_str_get(run, cat, &n);
    switch (dfs_gpu_kind_of(s, n)) {
    case DFS_GPU_KERNEL: return T_KERNEL;
    case DFS_GPU_MEMCPY: return T_MEMCPY;
    case DFS_GPU_MEMSET: return T_MEMSET;
    case DFS_GPU_RANGE: return T_RANGE;
    case DFS_GPU_ANNOTATION: return T_GPU_ANNOTATION;
    case DFS_GPU_RUNTIME:
    case DFS_GPU_DRIVER: return T_RUNTIME;
    default: break;
    }
    for (size_t i = 0; i < sizeof host / sizeof *host; i++)
        if (text_is(s, n, host[i].cat))
            return host[i].t;
    return T_NONE;
}

static bool is_host_op(tb_type t) { return t == T_OPERATOR || t == T_ANNOTATION; }
static bool is_device(tb_type t) { return t == T_KERNEL || t == T_MEMCPY || t == T_MEMSET; }

static bool is_step_name(const char *s, size_t n) { return starts_with(s, n, "ProfilerStep#"); }

static bool is_comm_op(const char *s, size_t n)
{
    static const char *const ops[] = {"broadcast", "reduce", "all_reduce", "all_gather", "reduce_scatter"};
    const char *p = starts_with(s, n, "nccl:") ? s + 5 : starts_with(s, n, "gloo:") ? s + 5 : NULL;
    for (size_t i = 0; p && i < sizeof ops / sizeof *ops; i++)
        if ((size_t)(s + n - p) == strlen(ops[i]) && memcmp(p, ops[i], strlen(ops[i])) == 0)
            return true;
    return false;
}

static bool is_dataloader(const char *s, size_t n)
{
    return (starts_with(s, n, "enumerate(DataLoader)#") && ends_with(s, n, ".__next__")) ||
           starts_with(s, n, "enumerate(DataPipe)#");
}

/* ---- the events, typed ------------------------------------------------------------------------ */

typedef struct tb_ev {
    const st_ev *e;
    tb_type type;
    bool step, comm, loader;
} tb_ev;

typedef struct tb_work {
    const dfs_run *run;
    DFS_VEC(tb_ev) evs;      /* complete events with a type, by start */
    DFS_VEC(size_t) steps;   /* indices of host ProfilerStep events */
    dfs_u64map comm_ext;     /* External ids of communication operators */
    dfs_u64map launched;     /* correlation ids of runtime calls inside a step -> step + 1 */
    bool any_device_or_runtime;
    uint64_t device_events;
    uint64_t range_events;
} tb_work;

static bool type_events(tb_work *w, const st_ev *iv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (iv[i].phase != DFS_PHASE_COMPLETE)
            continue;
        tb_ev t = {.e = &iv[i], .type = type_of(w->run, iv[i].cat)};
        if (t.type == T_NONE)
            continue;
        size_t len;
        const char *name = dfs_str_get(w->run, iv[i].name, &len);
        t.step = is_host_op(t.type) && is_step_name(name, len);
        t.comm = is_host_op(t.type) && is_comm_op(name, len);
        t.loader = is_host_op(t.type) && is_dataloader(name, len);
        w->any_device_or_runtime |= is_device(t.type) || t.type == T_RUNTIME;
        w->device_events += is_device(t.type);
        w->range_events += t.type == T_RANGE;
        if (!dfs_vec_push(&w->evs, t) || (t.step && !dfs_vec_push(&w->steps, w->evs.n - 1)) ||
            (t.comm && iv[i].ext != ST_NONE && !dfs_u64map_put(&w->comm_ext, (uint64_t)iv[i].ext, 1)))
            return false;
    }
    return true;
}

/* ---- device-shifted steps ---------------------------------------------------------------------- */

typedef struct dev_span {
    int64_t min_start, max_end;
    uint64_t count;
} dev_span;

typedef DFS_VEC(dfs_tb_step) tb_step_vec;

/* The step whose host span holds [s, e] entirely, or -1 (steps sorted by start). */
static long step_holding(const tb_step_vec *steps, int64_t s, int64_t e)
{
    size_t lo = 0, hi = steps->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (steps->v[mid].start <= s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && e <= steps->v[lo - 1].end ? (long)lo - 1 : -1;
}

/* Runtime calls inside a step link that step to the device events of their correlation id. */
static bool link_launches(tb_work *w, const tb_step_vec *steps, dev_span *dev)
{
    for (size_t i = 0; i < w->evs.n; i++) {
        const st_ev *e = w->evs.v[i].e;
        if (w->evs.v[i].type != T_RUNTIME || e->corr == ST_NONE)
            continue;
        long k = step_holding(steps, e->start, e->end);
        if (k >= 0 && !dfs_u64map_put(&w->launched, (uint64_t)e->corr, (uint32_t)k + 1))
            return false;
    }
    for (size_t i = 0; i < w->evs.n; i++) {
        const st_ev *e = w->evs.v[i].e;
        uint32_t k;
        if (!is_device(w->evs.v[i].type) || e->corr == ST_NONE || !dfs_u64map_get(&w->launched, (uint64_t)e->corr, &k))
            continue;
        dev_span *d = &dev[k - 1];
        d->min_start = d->count == 0 || e->start < d->min_start ? e->start : d->min_start;
        d->max_end = d->count == 0 || e->end > d->max_end ? e->end : d->max_end;
        d->count++;
    }
    return true;
}

/* Step 0 starts no earlier than the end of device work launched outside every step that ended
 * before step 0's first device event. */
static int64_t first_previous_end(const tb_work *w, const tb_step_vec *steps, const dev_span *dev)
{
    int64_t prev = steps->v[0].start;
    for (size_t i = 0; dev[0].count && i < w->evs.n; i++) {
        const st_ev *e = w->evs.v[i].e;
        uint32_t k;
        bool launched = e->corr != ST_NONE && dfs_u64map_get(&w->launched, (uint64_t)e->corr, &k);
        if (is_device(w->evs.v[i].type) && !launched && e->end < dev[0].min_start && e->end > prev)
            prev = e->end;
    }
    return prev;
}

static void shift_steps(tb_step_vec *steps, const dev_span *dev, int64_t prev)
{
    for (size_t i = 0; i < steps->n; i++) {
        dfs_tb_step *s = &steps->v[i];
        int64_t start = prev > s->start ? prev : s->start;
        int64_t end = dev[i].count ? (s->end > dev[i].max_end ? s->end : dev[i].max_end) : (s->end > start ? s->end : start);
        s->start = start;
        s->end = end < start ? start : end;
        prev = s->end;
    }
}

/* Trailing steps that launched nothing go; then a last step with fewer than 0.8 x the device
 * events of the one before it. */
static size_t tail_rule(tb_step_vec *steps, const dev_span *dev)
{
    size_t before = steps->n;
    while (steps->n && dev[steps->n - 1].count == 0)
        steps->n--;
    if (steps->n >= 2 && (double)dev[steps->n - 1].count < 0.8 * (double)dev[steps->n - 2].count)
        steps->n--;
    return before - steps->n;
}

static bool host_steps(tb_work *w, tb_step_vec *steps, dfs_tb_result *res)
{
    for (size_t i = 0; i < w->steps.n; i++) {
        const tb_ev *t = &w->evs.v[w->steps.v[i]];
        size_t len;
        const char *name = dfs_str_get(w->run, t->e->name, &len);
        dfs_tb_step s = {.number = (int64_t)i + 1, .start = t->e->start, .end = t->e->end};
        const char *hash = memchr(name, '#', len);
        if (hash)
            s.number = strtoll(hash + 1, NULL, 10);
        if (!dfs_vec_push(steps, s))
            return false;
    }
    if (steps->n)
        return true;
    int64_t lo = INT64_MAX, hi = INT64_MIN; /* no ProfilerStep: one step over the host events */
    for (size_t i = 0; i < w->evs.n; i++) {
        tb_type t = w->evs.v[i].type;
        if (t != T_OPERATOR && t != T_ANNOTATION && t != T_PYTHON)
            continue;
        lo = w->evs.v[i].e->start < lo ? w->evs.v[i].e->start : lo;
        hi = w->evs.v[i].e->end > hi ? w->evs.v[i].e->end : hi;
    }
    res->synthetic_step = lo <= hi;
    return lo > hi || dfs_vec_push(steps, ((dfs_tb_step){.number = 1, .start = lo, .end = hi}));
}

static bool device_steps(tb_work *w, tb_step_vec *steps, dfs_tb_result *res)
{
    if (!host_steps(w, steps, res))
        return false;
    if (steps->n == 0)
        return true;
    dev_span *dev = calloc(steps->n, sizeof *dev);
    if (!dev || !link_launches(w, steps, dev)) {
        free(dev);
        return false;
    }
    for (size_t i = 0; i < steps->n && !res->device_shifted; i++)
        res->device_shifted = dev[i].count > 0;
    if (res->device_shifted) {
        shift_steps(steps, dev, first_previous_end(w, steps, dev));
        res->tail_removed = tail_rule(steps, dev);
    }
    free(dev);
    return true;
}

/* ---- priority assignment -------------------------------------------------------------------- */

#define K_ALL_KERNELS DFS_TB_OTHER /* one more class: every kernel, for the GPU utilization */
#define ROLE_MASK(r) ((((UINT64_C(1) << DFS_TB_OTHER) - 1)) & ~((UINT64_C(1) << (r)) - 1))

static int role_of(const tb_work *w, const tb_ev *t)
{
    uint32_t one;
    switch (t->type) {
    case T_KERNEL:
        return t->e->ext != ST_NONE && dfs_u64map_get(&w->comm_ext, (uint64_t)t->e->ext, &one) ? DFS_TB_COMMUNICATION
                                                                                                 : DFS_TB_KERNEL;
    case T_MEMCPY: return DFS_TB_MEMCPY;
    case T_MEMSET: return DFS_TB_MEMSET;
    case T_RUNTIME: return DFS_TB_RUNTIME;
    case T_OPERATOR:
    case T_ANNOTATION:
    case T_GPU_ANNOTATION:
        if (t->step)
            return -1;
        return t->comm ? DFS_TB_COMMUNICATION : t->loader ? DFS_TB_DATALOADER : DFS_TB_CPU_EXEC;
    case T_PYTHON: return DFS_TB_CPU_EXEC;
    default: return -1;
    }
}

static bool role_pieces(const tb_work *w, st_piece_vec *out)
{
    for (size_t i = 0; i < w->evs.n; i++) {
        const tb_ev *t = &w->evs.v[i];
        size_t len;
        const char *name = dfs_str_get(w->run, t->e->name, &len);
        if (t->type == T_GPU_ANNOTATION && is_step_name(name, len))
            continue;
        int r = role_of(w, t);
        if (r < 0)
            continue;
        uint64_t m = ROLE_MASK(r) | (t->type == T_KERNEL ? UINT64_C(1) << K_ALL_KERNELS : 0);
        if (!dfs_vec_push(out, ((st_piece){t->e->start, t->e->end, m, t->e})))
            return false;
    }
    return true;
}

typedef struct cost_ctx {
    dfs_tb_step *steps;
    int64_t kernel_in_steps;
} cost_ctx;

static void tb_bounds(const void *ctx, size_t k, int64_t *s, int64_t *e)
{
    const cost_ctx *c = ctx;
    *s = c->steps[k].start;
    *e = c->steps[k].end;
}

static bool tb_costs(void *ctx, size_t k, const st_piece *const *act, size_t n)
{
    cost_ctx *c = ctx;
    dfs_tb_step *s = &c->steps[k];
    dfs_ovl *o = st_engine(act, n, s->start, s->end, K_ALL_KERNELS + 1, -1);
    if (!o)
        return false;
    int64_t prev = 0;
    for (unsigned r = 0; r < DFS_TB_OTHER; r++) {
        int64_t cum = dfs_ovl_total(o, r)->measure;
        s->cost[r] = cum - prev;
        prev = cum;
    }
    s->total = s->end - s->start;
    s->cost[DFS_TB_OTHER] = s->total - prev;
    c->kernel_in_steps += dfs_ovl_total(o, K_ALL_KERNELS)->measure;
    dfs_ovl_free(o);
    return true;
}

static int cmp_piece_start(const void *pa, const void *pb)
{
    const st_piece *a = pa, *b = pb;
    return (a->start > b->start) - (a->start < b->start);
}

static void summarise(dfs_tb_result *res, const tb_work *w, int64_t kernel_in_steps)
{
    double n = (double)res->nsteps, total = 0, sum[DFS_TB_ROLE_COUNT] = {0};
    for (size_t i = 0; i < res->nsteps; i++) {
        total += (double)res->steps[i].total;
        for (int r = 0; r < DFS_TB_ROLE_COUNT; r++)
            sum[r] += (double)res->steps[i].cost[r];
    }
    double mean_total = n > 0 ? total / n / 1000 : 0;
    res->avg_total = dfs_py_round(mean_total, 0);
    for (int r = 0; r < DFS_TB_ROLE_COUNT; r++) {
        double mean = n > 0 ? sum[r] / n / 1000 : 0;
        res->avg[r] = dfs_py_round(mean, 0);
        res->pct[r] = mean_total > 0 ? dfs_py_round(100 * mean / mean_total, 2) : 0;
        res->shown[r] = true;
    }
    res->shown[DFS_TB_KERNEL] = res->shown[DFS_TB_MEMCPY] = res->shown[DFS_TB_MEMSET] =
        res->shown[DFS_TB_RUNTIME] = w->any_device_or_runtime;
    res->shown[DFS_TB_COMMUNICATION] = sum[DFS_TB_COMMUNICATION] > 0;
    res->gpu_utilization = total > 0 ? dfs_py_round(100 * (double)kernel_in_steps / total, 2) : 0;
    res->device_events = w->device_events;
    res->range_events = w->range_events;
    res->input_hint = total > 0 && sum[DFS_TB_DATALOADER] / total > 0.05;
    res->comm_hint = total > 0 && sum[DFS_TB_COMMUNICATION] / total > 0.10;
}

static bool breakdown(tb_work *w, dfs_tb_result *res, st_owned *owned)
{
    tb_step_vec steps = {0};
    st_piece_vec pieces = {0};
    bool ok = device_steps(w, &steps, res) && role_pieces(w, &pieces);
    if (ok && pieces.n > 1)
        qsort(pieces.v, pieces.n, sizeof *pieces.v, cmp_piece_start);
    dfs_tb_step *kept = ok ? st_alloc(owned, steps.n, sizeof *kept) : NULL;
    ok = kept != NULL;
    if (ok) {
        if (steps.n)
            memcpy(kept, steps.v, steps.n * sizeof *kept);
        cost_ctx c = {kept, 0};
        static const st_sweep_fns fns = {tb_bounds, tb_costs};
        ok = st_sweep(pieces.v, pieces.n, steps.n, &fns, &c);
        res->steps = kept;
        res->nsteps = steps.n;
        if (ok)
            summarise(res, w, c.kernel_in_steps);
    }
    dfs_vec_free(&steps);
    dfs_vec_free(&pieces);
    return ok;
}

const dfs_tb_result *st_tensorboard(const dfs_run *run, const st_ev *iv, size_t n, st_owned *owned)
{
    dfs_tb_result *res = st_alloc(owned, 1, sizeof *res);
    if (!res)
        return NULL;
    tb_work w = {.run = run};
    dfs_u64map_init(&w.comm_ext);
    dfs_u64map_init(&w.launched);
    bool ok = type_events(&w, iv, n) && breakdown(&w, res, owned);
    dfs_vec_free(&w.evs);
    dfs_vec_free(&w.steps);
    dfs_u64map_free(&w.comm_ext);
    dfs_u64map_free(&w.launched);
    return ok ? res : NULL;
}
