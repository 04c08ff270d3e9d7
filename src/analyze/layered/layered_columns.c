/* layered_columns.c - a view's second half: the per-layer summaries of §8.1 under each semantics,
 * the flat-view columns of §6.4-§7 and the additional metrics of §7.5, from the slots that
 * layered_rows.c filled.
 *
 * Invariants: column names and values come from one emission pass run once for the names and
 * once per row, so they cannot drift apart; these functions write only their own view_build and
 * read the slots, which stage 1 finished (layered_views.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/layered/layered_internal.h"

/* The bytes of a slot: only a size layer's first family has the size fields. */
static uint64_t slot_size(const dfs_layered *la, const rowlayer *r, size_t l)
{
    return la->fam_sized[l][0] ? dfs_layered_slot_fam(la, r, l, 0)->size : 0;
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
    s->u_time_s = dfs_layered_secs(u);
    s->u_base_s = dfs_layered_secs(base);
}

/* The layer's wall time (layered_wall.c): NAN under --compat or past the engine's bound. */
static double wall_of(const dfs_layered *la, size_t l)
{
    const acc *a = &la->total;
    if (la->opt.compat != DFS_COMPAT_NONE || a->wall_over)
        return NAN;
    return a->wall ? dfs_layered_secs(dfs_ovl_total(a->wall, (unsigned)l)->measure) : 0;
}

static void summarize(const dfs_layered *la, const view_build *vb, size_t l, int compute, dfs_layer_summary *s)
{
    const dfs_preset_layer *L = &la->plan.layers[l];
    bool max_mode = dfs_layered_process_view(vb->type) && la->opt.compat == DFS_COMPAT_DFANALYZER;
    memset(s, 0, sizeof *s);
    s->sized = L->size_layer;
    s->has_u = gets_u(la, vb, l, compute);
    s->overhead_s = has_children(la, l) ? 0 : NAN;
    int64_t time_sum = 0;
    for (size_t r = 0; r < vb->nrows; r++) {
        const rowlayer *rl = &vb->rl[r * NL(la) + l];
        if (isnan(rl->tm))
            continue;
        s->count += dfs_layered_slot_fam(la, rl, l, 0)->count;
        time_sum += dfs_layered_slot_fam(la, rl, l, 0)->time;
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
        s->u_count += dfs_layered_slot_fam(la, rl, l, 0)->count;
        s->u_size += slot_size(la, rl, l);
    }
    s->time_sum_s = dfs_layered_secs(time_sum);
    if (la->opt.compat == DFS_COMPAT_NONE) /* Σ over the rows' threads: the same sum in every view */
        s->time_s = s->time_sum_s;
    s->u_base_s = s->time_s;
    if (s->has_u && la->opt.compat == DFS_COMPAT_NONE)
        exact_summary(la, l, s);
    if (!L->size_layer)
        s->size = s->u_size = 0;
    if (vb->type == DFS_VIEW_FILE_NAME || !L->size_layer)
        s->num_files = 0;
    s->wall_s = vb->type == DFS_VIEW_FILE_NAME ? NAN : wall_of(la, l); /* (only events with a file there) */
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
    bool count_only; /* the names pass only counts the columns (dfs_layered_time_columns) */
    size_t ncolumns;
    bool failed;
    const char *tmname;
    int compute, top;
    double *col_total; /* per layer: Σ rows of count, tm, time_sum, size (4 each) */
} emitter;

static void put(emitter *e, double v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(emitter *e, double v, const char *fmt, ...)
{
    if (e->count_only) {
        e->ncolumns++;
        return;
    }
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
        member_vals a = dfs_layered_member_fam(la, vb, &vb->members[rl->first + i], f);
        dist_add(&c, (double)a.count, i == 0);
        dist_add(&t, dfs_layered_secs(a.time), i == 0);
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
    const lagg *t = rl && rl->n ? dfs_layered_slot_fam(e->la, rl, l, f) : NULL;
    /* a row may hold only pieces of calls that started in an earlier bin (the default mode): time
     * without calls, so no per-call statistics */
    bool any = t && (t->count || t->time), calls = t && t->count;
    dist dc, dt, ds;
    member_dists(e->la, e->vb, rl, f, &dc, &dt, &ds);
    put(e, any ? (double)t->count : NAN, "%scount_sum", p);
    put_dist(e, &dc, p, "count");
    double time = any ? dfs_layered_secs(t->time) : NAN, n = any ? (double)t->count : NAN;
    double mean = ratio(time, n);
    put(e, time, "%stime_sum", p);
    put_dist(e, &dt, p, "time");
    put(e, calls ? dfs_layered_secs(t->time_min) : NAN, "%stime_call_min", p);
    put(e, calls ? dfs_layered_secs(t->time_max) : NAN, "%stime_call_max", p);
    put(e, mean, "%stime_call_mean", p);
    put(e, calls ? sqrt(fmax((double)t->time_sq / 1e18 / n - mean * mean, 0)) : NAN, "%stime_call_std", p);
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
    const lagg *t = rl && rl->n ? dfs_layered_slot_fam(la, rl, l, 0) : NULL;
    bool any = t && (t->count || t->time);
    if (!dfs_layered_process_view(vb->type))
        put(e, any ? (double)rl->nprocs : NAN, "%s_proc_name_nunique", L->name);
    if (vb->type == DFS_VIEW_TIME_RANGE && la->opt.compat == DFS_COMPAT_NONE) /* layered_wall.c */
        put(e, any && !la->total.wall_over ? dfs_layered_secs(rl->has_wall ? rl->wall : 0) : NAN, "%s_wall_time",
            L->name);
    if (L->size_layer && vb->type != DFS_VIEW_FILE_NAME)
        put(e, any ? (double)rl->nfiles : NAN, "%s_file_name_nunique", L->name);
    const double *tot = &e->col_total[4 * l];
    double count = any ? (double)t->count : NAN, tm = rl ? rl->tm : NAN;
    double tsum = any ? dfs_layered_secs(t->time) : NAN;
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
        double top_sum = tr && tr->n ? dfs_layered_secs(dfs_layered_slot_fam(la, tr, (size_t)e->top, 0)->time) : NAN;
        put(e, ratio(tsum, top_sum), "%s_time_call_frac_%s", L->name, top);
    }
    if (has_children(la, l))
        put(e, rl ? overhead(la, vb, row, l) : NAN, "o_%s_%s", L->name, e->tmname);
    if (gets_u(la, vb, l, e->compute)) {
        /* the reference's u_ subtracts aggregates of different processes: --compat only */
        if (la->opt.compat != DFS_COMPAT_NONE)
            put(e, rl ? ref_u(la, vb, row, l, e->compute) : NAN, "u_%s_%s", L->name, e->tmname);
        else {
            put(e, rl && rl->has_exact ? dfs_layered_secs(rl->u_exact) : NAN, "u_%s_time_exact", L->name);
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
            e->col_total[4 * l] += (double)dfs_layered_slot_fam(la, rl, l, 0)->count;
            e->col_total[4 * l + 1] += rl->tm;
            e->col_total[4 * l + 2] += dfs_layered_secs(dfs_layered_slot_fam(la, rl, l, 0)->time);
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
    bool sum_mode = la->opt.compat != DFS_COMPAT_DFANALYZER;
    emitter e = {.la = la, .vb = vb, .names = true,
                 .tmname = (sum_mode || dfs_layered_process_view(vb->type)) ? "time_sum" : "time_proc_max",
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

size_t dfs_layered_time_columns(const dfs_layered *la)
{
    view_build vb = {.type = DFS_VIEW_TIME_RANGE};
    emitter e = {.la = la, .vb = &vb, .names = true, .count_only = true,
                 .col_total = calloc(4 * NL(la) + 1, sizeof(double)),
                 .tmname = "time_sum", .compute = layer_named(la, "compute"),
                 .top = la->opt.preset->auto_layers ? 0 : la->opt.preset->time_boundary};
    if (!e.col_total)
        return SIZE_MAX; /* out of memory: nothing fits, which the caller says */
    for (size_t l = 0; l < NL(la); l++)
        put_layer(&e, SIZE_MAX, l);
    free(e.col_total);
    const dfs_preset *ps = la->opt.preset;
    for (size_t i = 0; i < ps->nadditional; i++)
        e.ncolumns += !ps->additional[i].view || strcmp(ps->additional[i].view, dfs_view_name(DFS_VIEW_TIME_RANGE)) == 0;
    return e.ncolumns;
}

/* ----- a view's second half ------------------------------------------------------------------- */

/* Its second half, once the distinct-file keys are compacted and the engines finished. */
bool dfs_layered_view_rest(dfs_layered *la, views_mem *vm, view_build *vb, const dfs_run *run, int64_t shift)
{
    if (!dfs_layered_count_files(la, vm, vb, shift))
        return false;
    dfs_layered_exact_rows(la, vm, vb, run, shift);
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
