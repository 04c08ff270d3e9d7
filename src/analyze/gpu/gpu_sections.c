/* gpu_sections.c - the sections of one rank from its device work: the temporal breakdown, the
 * kernel breakdown by type (every overlap of the types) and by name, and the overlap of
 * communication with computation. Unions follow HTA's rule in both semantics: sorted by start, an
 * interval starts a new group when it starts strictly after the largest end so far (touching
 * intervals merge); a group is [first start, largest end].
 *
 * Invariants: the work array is reordered, never resized; everything the result points to lives
 * in `keep`. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu_internal.h"
#include "util/numstat.h"

typedef struct span {
    int64_t start, end;
} span;

static int cmp_start(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* The union of the work of the types in `types` (all when 0), as groups in time order. */
static span *union_of(const gpu_work *w, size_t n, unsigned types, size_t *ngroups)
{
    span *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!types || (w[i].type & types))
            s[m++] = (span){w[i].ts, w[i].end};
    qsort(s, m, sizeof *s, cmp_start);
    size_t g = 0;
    for (size_t i = 0; i < m; i++) {
        if (g && s[i].start <= s[g - 1].end) {
            if (s[i].end > s[g - 1].end)
                s[g - 1].end = s[i].end;
        } else {
            s[g++] = s[i];
        }
    }
    *ngroups = g;
    return s;
}

static int64_t covered(const span *s, size_t n)
{
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += s[i].end - s[i].start;
    return sum;
}

static double share(dfs_gpu_semantics sem, int64_t part, int64_t whole, int digits)
{
    if (whole == 0)
        return NAN;
    double r = 100.0 * ((double)part / (double)whole);
    return sem == DFS_GPU_HTA ? gpu_around(r, digits) : r;
}

static bool temporal(const dfs_gpu_options *o, const gpu_work *w, size_t n, dfs_gpu_temporal *t)
{
    size_t na, nc;
    span *all = union_of(w, n, 0, &na), *comp = union_of(w, n, DFS_GPU_KT_COMPUTATION, &nc);
    bool ok = all && comp;
    if (ok && na) {
        t->kernel_time_ns = all[na - 1].end - all[0].start;
        t->idle_ns = t->kernel_time_ns - covered(all, na);
        t->compute_ns = covered(comp, nc);
        t->non_compute_ns = t->kernel_time_ns - t->compute_ns - t->idle_ns;
        t->idle_pct = share(o->semantics, t->idle_ns, t->kernel_time_ns, 2);
        t->compute_pct = share(o->semantics, t->compute_ns, t->kernel_time_ns, 2);
        t->non_compute_pct = share(o->semantics, t->non_compute_ns, t->kernel_time_ns, 2);
    }
    free(all);
    free(comp);
    return ok;
}

/* A boundary of a type's union: at `t`, the type's bit comes (+) or goes (-). */
typedef struct edge {
    int64_t t;
    int delta;
} edge;

static int cmp_edge(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->delta > y->delta) - (x->delta < y->delta);
}

/* HTA's sweep: per type (computation, communication, memory) the starts then the ends of its
 * union are appended and the whole list sorted again (unstably under hta: a tie of an end and a
 * start may credit a zero-length segment); each segment gets the mask running at its start. */
static bool sweep_types(const dfs_gpu_options *o, const gpu_work *w, size_t n, int64_t sums[8], bool seen[8])
{
    edge *e = malloc(2 * (n ? n : 1) * sizeof *e), *tmp = malloc(2 * (n ? n : 1) * sizeof *tmp);
    int64_t *keys = malloc(2 * (n ? n : 1) * sizeof *keys);
    size_t *perm = malloc(2 * (n ? n : 1) * sizeof *perm);
    bool ok = e && tmp && keys && perm;
    size_t m = 0;
    static const unsigned order[] = {DFS_GPU_KT_COMPUTATION, DFS_GPU_KT_COMMUNICATION, DFS_GPU_KT_MEMORY};
    for (size_t k = 0; ok && k < 3; k++) {
        size_t g;
        span *u = union_of(w, n, order[k], &g);
        if (!u) {
            ok = false;
            break;
        }
        for (size_t i = 0; i < g; i++)
            e[m++] = (edge){u[i].start, (int)order[k]};
        for (size_t i = 0; i < g; i++)
            e[m++] = (edge){u[i].end, -(int)order[k]};
        free(u);
        if (o->semantics != DFS_GPU_HTA) { /* exact: ends before starts at a tie, so touching work never overlaps */
            qsort(e, m, sizeof *e, cmp_edge);
            continue;
        }
        for (size_t i = 0; i < m; i++)
            keys[i] = e[i].t;
        gpu_ssort(keys, perm, m);
        for (size_t i = 0; i < m; i++)
            tmp[i] = e[perm[i]];
        memcpy(e, tmp, m * sizeof *e);
    }
    int mask = 0;
    for (size_t i = 0; ok && i + 1 < m; i++) {
        mask += e[i].delta;
        if (mask > 0 && mask < 8 && (o->semantics == DFS_GPU_HTA || e[i + 1].t > e[i].t)) {
            sums[mask] += e[i + 1].t - e[i].t;
            seen[mask] = true;
        }
    }
    free(e);
    free(tmp);
    free(keys);
    free(perm);
    return ok;
}

bool dfs_gpu_order_types(dfs_gpu_semantics sem, dfs_gpu_type_row *rows, size_t n)
{
    /* alphabetical first (HTA's groupby), then by descending sum */
    char a[96], b[96];
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(dfs_gpu_mask_label(rows[j].mask, a, sizeof a),
                                           dfs_gpu_mask_label(rows[j - 1].mask, b, sizeof b)) < 0;
             j--) {
            dfs_gpu_type_row x = rows[j];
            rows[j] = rows[j - 1];
            rows[j - 1] = x;
        }
    int64_t *keys = calloc(n ? n : 1, sizeof *keys), total = 0;
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    dfs_gpu_type_row *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!keys || !perm || !copy) {
        free(keys), free(perm), free(copy);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        keys[i] = rows[i].sum_ns, total += rows[i].sum_ns, copy[i] = rows[i];
    gpu_ssort_desc(keys, perm, n);
    for (size_t i = 0; i < n; i++) {
        rows[i] = copy[perm[i]];
        rows[i].percentage = total ? (double)rows[i].sum_ns / (double)total * 100 : NAN;
        if (sem == DFS_GPU_HTA)
            rows[i].percentage = gpu_around(rows[i].percentage, 1);
    }
    free(keys), free(perm), free(copy);
    return true;
}

static bool kernel_types(const dfs_gpu_options *o, const gpu_work *w, size_t n, dfs_gpu_rank *r, dfs_arena *keep)
{
    int64_t sums[8] = {0};
    bool seen[8] = {false};
    if (!sweep_types(o, w, n, sums, seen))
        return false;
    size_t m = 0;
    for (int k = 1; k < 8; k++)
        m += seen[k];
    r->types = dfs_arena_alloc(keep, (m ? m : 1) * sizeof *r->types);
    if (!r->types)
        return false;
    for (unsigned k = 1; k < 8; k++)
        if (seen[k])
            r->types[r->ntypes++] = (dfs_gpu_type_row){.mask = k, .sum_ns = sums[k]};
    return dfs_gpu_order_types(o->semantics, r->types, r->ntypes);
}

static int cmp_work_name(const void *a, const void *b)
{
    const gpu_work *x = a, *y = b;
    if (x->type != y->type)
        return strcmp(dfs_gpu_ktype_name(x->type), dfs_gpu_ktype_name(y->type));
    size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
    int c = memcmp(x->name, y->name, n);
    return c ? c : (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

/* The per-name statistics of the kernels w[0..n) (one name). */
static dfs_gpu_name_row name_stats(const dfs_gpu_options *o, const gpu_work *w, size_t n)
{
    dfs_gpu_name_row r = {.type = w[0].type, .count = n, .min_ns = INT64_MAX, .max_ns = INT64_MIN};
    for (size_t i = 0; i < n; i++) {
        int64_t d = w[i].end - w[i].ts;
        r.sum_ns += d;
        r.min_ns = d < r.min_ns ? d : r.min_ns;
        r.max_ns = d > r.max_ns ? d : r.max_ns;
    }
    r.mean_ns = (double)r.sum_ns / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)(w[i].end - w[i].ts) - r.mean_ns;
        ss += d * d;
    }
    r.std_ns = n > 1 ? sqrt(ss / (double)(n - 1)) : (o->semantics == DFS_GPU_HTA ? 0 : NAN);
    return r;
}

/* A name's row out of its kernels' row: HTA's statistics of one total when the others rule ran. */
static void as_total(dfs_gpu_name_row *r)
{
    r->max_ns = r->min_ns = r->sum_ns;
    r->mean_ns = (double)r->sum_ns;
    r->std_ns = 0;
}

/* Which names of a type (rows in descending-sum order) fold into "others". */
static void mark_others(const dfs_gpu_options *o, const dfs_gpu_name_row *rows, size_t n, bool *other)
{
    for (size_t i = 0; i < n; i++)
        other[i] = false;
    if (n <= o->top_names)
        return;
    double *cum = malloc(n * sizeof *cum), total = 0;
    for (size_t i = 0; i < n; i++)
        total += (double)rows[i].sum_ns;
    double run = 0, q = 0;
    if (cum && o->semantics == DFS_GPU_HTA) { /* HTA: a quantile of the cumulative sums */
        for (size_t i = 0; i < n; i++)
            cum[i] = run += (double)rows[i].sum_ns;
        q = dfs_quantile(cum, n, o->name_share);
    }
    run = 0;
    for (size_t i = 0; i < n; i++) {
        run += (double)rows[i].sum_ns;
        if (o->semantics == DFS_GPU_HTA)
            other[i] = (cum && cum[i] > q) || i >= o->top_names;
        else /* the names that make up the share, the one crossing it included */
            other[i] = i >= o->top_names || run - (double)rows[i].sum_ns >= o->name_share * total;
    }
    free(cum);
}

/* The others row of a type from its member names (hta: statistics of their totals) or kernels. */
static dfs_gpu_name_row others_row(const dfs_gpu_options *o, const dfs_gpu_name_row *rows, const bool *other,
                                   size_t n, const gpu_work *w, size_t nw)
{
    dfs_gpu_name_row r = {.name = "others", .type = rows[0].type, .min_ns = INT64_MAX, .max_ns = INT64_MIN};
    size_t members = 0;
    double ss = 0;
    if (o->semantics == DFS_GPU_HTA) {
        for (size_t i = 0; i < n; i++)
            if (other[i]) {
                members++, r.count += rows[i].count, r.sum_ns += rows[i].sum_ns;
                r.min_ns = rows[i].sum_ns < r.min_ns ? rows[i].sum_ns : r.min_ns;
                r.max_ns = rows[i].sum_ns > r.max_ns ? rows[i].sum_ns : r.max_ns;
            }
        r.mean_ns = (double)r.sum_ns / (double)members;
        for (size_t i = 0; i < n; i++)
            if (other[i])
                ss += ((double)rows[i].sum_ns - r.mean_ns) * ((double)rows[i].sum_ns - r.mean_ns);
        r.std_ns = members > 1 ? sqrt(ss / (double)(members - 1)) : 0;
        return r;
    }
    (void)w, (void)nw;
    for (size_t i = 0; i < n; i++)
        if (other[i]) {
            r.count += rows[i].count, r.sum_ns += rows[i].sum_ns;
            r.min_ns = rows[i].min_ns < r.min_ns ? rows[i].min_ns : r.min_ns;
            r.max_ns = rows[i].max_ns > r.max_ns ? rows[i].max_ns : r.max_ns;
        }
    r.mean_ns = (double)r.sum_ns / (double)r.count;
    /* pooled: each member's squares about the common mean */
    for (size_t i = 0; i < n; i++)
        if (other[i]) {
            double dm = rows[i].mean_ns - r.mean_ns;
            double own = rows[i].count > 1 ? rows[i].std_ns * rows[i].std_ns * (double)(rows[i].count - 1) : 0;
            ss += own + (double)rows[i].count * dm * dm;
        }
    r.std_ns = r.count > 1 ? sqrt(ss / (double)(r.count - 1)) : NAN;
    return r;
}

/* One type's rows (w: its kernels sorted by name) appended to out. */
static bool names_of_type(const dfs_gpu_options *o, const gpu_work *w, size_t nw, dfs_gpu_name_row *out,
                          size_t *nout)
{
    size_t n = 0;
    dfs_gpu_name_row *rows = malloc(nw * sizeof *rows);
    bool *other = malloc(nw * sizeof *other);
    int64_t *keys = calloc(nw ? nw : 1, sizeof *keys);
    size_t *perm = malloc(nw * sizeof *perm);
    dfs_gpu_name_row *sorted = malloc(nw * sizeof *sorted);
    bool ok = rows && other && keys && perm && sorted;
    for (size_t i = 0; ok && i < nw;) {
        size_t j = i + 1;
        while (j < nw && cmp_work_name(&w[i], &w[j]) == 0)
            j++;
        rows[n] = name_stats(o, w + i, j - i);
        rows[n++].name = w[i].name; /* made a C string by the caller */
        i = j;
    }
    for (size_t i = 0; ok && i < n; i++)
        keys[i] = rows[i].sum_ns;
    if (ok) {
        gpu_ssort_desc(keys, perm, n);
        for (size_t i = 0; i < n; i++)
            sorted[i] = rows[perm[i]];
        mark_others(o, sorted, n, other);
    }
    bool any = false;
    for (size_t i = 0; ok && i < n; i++) {
        any |= other[i];
        if (other[i])
            continue;
        out[*nout] = sorted[i];
        if (o->semantics == DFS_GPU_HTA && n > o->top_names)
            as_total(&out[*nout]);
        (*nout)++;
    }
    if (ok && any)
        out[(*nout)++] = others_row(o, sorted, other, n, w, nw);
    free(rows), free(other), free(keys), free(perm), free(sorted);
    return ok;
}

static int cmp_name_rows(const void *a, const void *b)
{
    const dfs_gpu_name_row *x = a, *y = b;
    int c = strcmp(dfs_gpu_ktype_name(x->type), dfs_gpu_ktype_name(y->type));
    return c ? c : strcmp(x->name, y->name);
}

static bool kernel_names(const dfs_gpu_options *o, gpu_work *w, size_t n, dfs_gpu_rank *r, dfs_arena *keep)
{
    qsort(w, n, sizeof *w, cmp_work_name);
    r->names = dfs_arena_alloc(keep, (n ? n : 1) * sizeof *r->names);
    if (!r->names)
        return false;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && w[j].type == w[i].type)
            j++;
        if (w[i].type != DFS_GPU_KT_OTHER && !names_of_type(o, w + i, j - i, r->names, &r->nnames))
            return false;
        i = j;
    }
    qsort(r->names, r->nnames, sizeof *r->names, cmp_name_rows);
    return true;
}

static bool comm_overlap(const dfs_gpu_options *o, const gpu_work *w, size_t n, dfs_gpu_rank *r)
{
    size_t nm, nc;
    span *comm = union_of(w, n, DFS_GPU_KT_COMMUNICATION, &nm), *comp = union_of(w, n, DFS_GPU_KT_COMPUTATION, &nc);
    bool ok = comm && comp;
    int64_t both = 0;
    for (size_t i = 0, j = 0; ok && i < nm && j < nc;) { /* two sorted disjoint lists */
        int64_t lo = comm[i].start > comp[j].start ? comm[i].start : comp[j].start;
        int64_t hi = comm[i].end < comp[j].end ? comm[i].end : comp[j].end;
        both += hi > lo ? hi - lo : 0;
        if (comm[i].end < comp[j].end)
            i++;
        else
            j++;
    }
    r->has_comm = ok && nm > 0;
    r->overlap_pct = ok ? share(o->semantics, both, covered(comm, nm), 2) : NAN;
    if (!r->has_comm)
        r->overlap_pct = NAN;
    free(comm);
    free(comp);
    return ok;
}

bool gpu_annotations(const dfs_gpu_options *o, gpu_work *w, size_t n, const gpu_work *work, size_t nwork,
                     dfs_gpu_rank *out, dfs_arena *keep)
{
    if (!gpu_annotated_kernels(o, w, n, work, nwork, out, keep))
        return false;
    /* HTA: the by-name rule with 1000 names; exact: every name */
    dfs_gpu_options ao = *o;
    ao.top_names = o->semantics == DFS_GPU_HTA ? 1000 : SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        w[i].type = DFS_GPU_KT_COMPUTATION; /* one group: names are compared whatever their type */
    if (n)
        qsort(w, n, sizeof *w, cmp_work_name);
    out->annotations = dfs_arena_alloc(keep, (n ? n : 1) * sizeof *out->annotations);
    if (!out->annotations)
        return false;
    if (n && !names_of_type(&ao, w, n, out->annotations, &out->nannotations))
        return false;
    qsort(out->annotations, out->nannotations, sizeof *out->annotations, cmp_name_rows);
    return true;
}

bool gpu_sections(const dfs_gpu_options *o, gpu_work *w, size_t n, dfs_gpu_rank *out, dfs_arena *keep)
{
    if ((o->sections & DFS_GPU_SEC_TEMPORAL) && !temporal(o, w, n, &out->temporal))
        return false;
    if ((o->sections & DFS_GPU_SEC_OVERLAP) && !comm_overlap(o, w, n, out))
        return false;
    if ((o->sections & DFS_GPU_SEC_IDLE) && !gpu_idle(o, w, n, out, keep))
        return false;
    if ((o->sections & DFS_GPU_SEC_KERNELS) && !kernel_types(o, w, n, out, keep))
        return false;
    return !(o->sections & DFS_GPU_SEC_KERNELS) || kernel_names(o, w, n, out, keep);
}
