/* gpu_report.c - the table, JSON and CSV of `dfscope gpu` (gpu_report.h). Times are ns in the
 * result: tables scale them (output/format.h), JSON and CSV give µs as numbers (whole under hta,
 * fractions allowed under exact). A value that cannot be computed is n/a with why in a table,
 * null in JSON and an empty field in CSV, never nan. Trace strings (kernel names, paths) are
 * escaped for each output (escape.h, csv.h, json.h).
 *
 * Invariants: CSV headers and row order are HTA's (first column the row number; by-type rows
 * summed over ranks; by-name rows ordered by type, name, rank). */
#include "output/gpu_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/csv.h"
#include "output/escape.h"
#include "output/format.h"
#include "output/gpu_report_internal.h"
#include "output/json.h"
#include "util/shortest.h"

static const char *const csv_file_names[DFS_GPU_CSV__COUNT] = {
    "temporal_breakdown.csv", "gpu_kernel_breakdown_0.csv", "gpu_kernel_breakdown_1.csv", "comm_comp_overlap.csv",
    "idle_time_breakdown_0.csv", "idle_time_breakdown_1.csv", "queue_length_summary.csv",
    "memory_bw_summary.csv", "gpu_user_annotation_breakdown.csv", "critical_path.csv", "cuda_kernel_sequences.csv",
    "stragglers.csv", "cuda_kernel_launch_outliers.csv", "queue_blocked.csv", "gpu_kernels_by_annotation.csv"};

const char *dfs_gpu_csv_name(dfs_gpu_csv t) { return (unsigned)t < DFS_GPU_CSV__COUNT ? csv_file_names[t] : "?"; }

static unsigned section_of(dfs_gpu_csv t)
{
    return t == DFS_GPU_CSV_TEMPORAL                              ? DFS_GPU_SEC_TEMPORAL
           : t == DFS_GPU_CSV_OVERLAP                             ? DFS_GPU_SEC_OVERLAP
           : t == DFS_GPU_CSV_IDLE || t == DFS_GPU_CSV_IDLE_STATS ? DFS_GPU_SEC_IDLE
           : t == DFS_GPU_CSV_QUEUE || t == DFS_GPU_CSV_QUEUE_BLOCKED ? DFS_GPU_SEC_QUEUE
           : t == DFS_GPU_CSV_LAUNCH_OUTLIERS                     ? DFS_GPU_SEC_LAUNCH
           : t == DFS_GPU_CSV_MEMBW                               ? DFS_GPU_SEC_MEMBW
           : t == DFS_GPU_CSV_ANNOTATIONS || t == DFS_GPU_CSV_ANNOTATED ? DFS_GPU_SEC_ANNOTATIONS
           : t == DFS_GPU_CSV_CRITICAL                            ? DFS_GPU_SEC_CRITICAL
           : t == DFS_GPU_CSV_SEQUENCES                           ? DFS_GPU_SEC_SEQUENCES
           : t == DFS_GPU_CSV_STRAGGLERS                          ? DFS_GPU_SEC_STRAGGLERS
                                                                  : DFS_GPU_SEC_KERNELS;
}

bool dfs_gpu_csv_present(const dfs_gpu_result *r, dfs_gpu_csv t)
{
    if (!(r->sections & section_of(t)) || !r->nranks)
        return false;
    /* HTA's temporal and idle breakdowns fail when a rank has no device work; exact leaves that
     * rank out */
    if (t == DFS_GPU_CSV_TEMPORAL || t == DFS_GPU_CSV_IDLE || t == DFS_GPU_CSV_IDLE_STATS)
        return r->semantics == DFS_GPU_HTA ? r->no_device == 0 : r->no_device < r->nranks;
    if (t == DFS_GPU_CSV_ANNOTATIONS || t == DFS_GPU_CSV_ANNOTATED)
        return r->annotated;
    if (t == DFS_GPU_CSV_LAUNCH_OUTLIERS) /* new files only when they hold a row */
        return gpu_has_launch_outliers(r);
    if (t == DFS_GPU_CSV_QUEUE_BLOCKED)
        return gpu_has_queue_blocked(r);
    if (t == DFS_GPU_CSV_MEMBW) { /* HTA writes none without copies (an empty one without bandwidths) */
        for (size_t i = 0; i < r->nranks; i++)
            if (r->ranks[i].memory_rows)
                return true;
        return false;
    }
    if (t == DFS_GPU_CSV_QUEUE) { /* HTA writes no summary without launches */
        for (size_t i = 0; i < r->nranks; i++)
            if (r->ranks[i].nqueue)
                return true;
        return false;
    }
    return true;
}

/* A float as pandas writes it (Python's repr; NaN as an empty field), after a comma. */
void gpu_py_num(FILE *out, double v)
{
    fputc(',', out);
    if (isfinite(v)) {
        char buf[DFS_PY_REPR_MAX];
        fwrite(buf, 1, dfs_py_repr_finite(v, buf), out);
    }
}

/* The eight describe() fields after a comma each, then the end of the line. */
static void csv_describe(FILE *out, const dfs_gpu_stats *s)
{
    double v[] = {(double)s->count, s->mean, s->std, s->min, s->p25, s->p50, s->p75, s->max};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        gpu_py_num(out, v[i]);
    fputc('\n', out);
}

static void csv_temporal(FILE *out, const dfs_gpu_result *r)
{
    fputs(",rank,idle_time(us),compute_time(us),non_compute_time(us),kernel_time(us),idle_time_pctg,"
          "compute_time_pctg,non_compute_time_pctg\n", out);
    size_t row = 0;
    for (size_t i = 0; i < r->nranks; i++) {
        const dfs_gpu_rank *k = &r->ranks[i];
        if (!k->device_rows)
            continue;
        const dfs_gpu_temporal *t = &k->temporal;
        fprintf(out, "%zu,%lld", row++, (long long)k->rank);
        gpu_py_num(out, gpu_us(t->idle_ns)), gpu_py_num(out, gpu_us(t->compute_ns)), gpu_py_num(out, gpu_us(t->non_compute_ns));
        gpu_py_num(out, gpu_us(t->kernel_time_ns));
        gpu_py_num(out, t->idle_pct), gpu_py_num(out, t->compute_pct), gpu_py_num(out, t->non_compute_pct);
        fputc('\n', out);
    }
}

/* The by-type rows of all ranks, summed per label and ordered; NULL when out of memory. */
static dfs_gpu_type_row *all_types(const dfs_gpu_result *r, size_t *n)
{
    dfs_gpu_type_row *rows = calloc(8, sizeof *rows);
    if (!rows)
        return NULL;
    *n = 0;
    for (unsigned mask = 1; mask < 8; mask++) {
        bool seen = false;
        int64_t sum = 0;
        for (size_t i = 0; i < r->nranks; i++)
            for (size_t j = 0; j < r->ranks[i].ntypes; j++)
                if (r->ranks[i].types[j].mask == mask)
                    seen = true, sum += r->ranks[i].types[j].sum_ns;
        if (seen)
            rows[(*n)++] = (dfs_gpu_type_row){.mask = mask, .sum_ns = sum};
    }
    if (!dfs_gpu_order_types(r->semantics, rows, *n)) {
        free(rows);
        return NULL;
    }
    return rows;
}

static void csv_types(FILE *out, const dfs_gpu_result *r)
{
    fputs(",kernel_type,sum,percentage\n", out);
    size_t n;
    dfs_gpu_type_row *rows = all_types(r, &n);
    char label[96];
    for (size_t i = 0; rows && i < n; i++) {
        fprintf(out, "%zu,%s,", i, dfs_gpu_mask_label(rows[i].mask, label, sizeof label));
        if (r->semantics == DFS_GPU_HTA && rows[i].sum_ns % 1000 == 0)
            fprintf(out, "%lld", (long long)(rows[i].sum_ns / 1000)); /* HTA's column is integral */
        else
            gpu_py_num(out, gpu_us(rows[i].sum_ns));
        gpu_py_num(out, rows[i].percentage);
        fputc('\n', out);
    }
    free(rows);
}

typedef struct name_ref {
    const dfs_gpu_name_row *row;
    int64_t rank;
} name_ref;

static int cmp_name_ref(const void *a, const void *b)
{
    const name_ref *x = a, *y = b;
    int c = strcmp(dfs_gpu_ktype_name(x->row->type), dfs_gpu_ktype_name(y->row->type));
    if (!c)
        c = strcmp(x->row->name, y->row->name);
    return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

static void csv_names(FILE *out, const dfs_gpu_result *r)
{
    fputs(",name,sum (us),max (us),min (us),stddev,mean (us),kernel_type,rank\n", out);
    size_t n = 0;
    for (size_t i = 0; i < r->nranks; i++)
        n += r->ranks[i].nnames;
    name_ref *refs = malloc((n ? n : 1) * sizeof *refs);
    if (!refs)
        return;
    n = 0;
    for (size_t i = 0; i < r->nranks; i++)
        for (size_t j = 0; j < r->ranks[i].nnames; j++)
            refs[n++] = (name_ref){&r->ranks[i].names[j], r->ranks[i].rank};
    qsort(refs, n, sizeof *refs, cmp_name_ref); /* ranks ascending, so ties are already in order */
    for (size_t i = 0; i < n; i++) {
        const dfs_gpu_name_row *k = refs[i].row;
        fprintf(out, "%zu,", i);
        dfs_csv_text(out, k->name);
        gpu_py_num(out, gpu_us(k->sum_ns)), gpu_py_num(out, gpu_us(k->max_ns)), gpu_py_num(out, gpu_us(k->min_ns));
        gpu_py_num(out, k->std_ns / 1000), gpu_py_num(out, k->mean_ns / 1000);
        fprintf(out, ",%s,%lld\n", dfs_gpu_ktype_name(k->type), (long long)refs[i].rank);
    }
    free(refs);
}

static void csv_overlap(FILE *out, const dfs_gpu_result *r)
{
    fputs(",rank,comp_comm_overlap_pctg\n", out);
    size_t row = 0;
    for (size_t i = 0; i < r->nranks; i++) { /* a rank without device work: no value, as HTA */
        fprintf(out, "%zu,%lld", row++, (long long)r->ranks[i].rank);
        gpu_py_num(out, r->ranks[i].overlap_pct);
        fputc('\n', out);
    }
}

static void csv_idle(FILE *out, const dfs_gpu_result *r)
{
    fputs(",rank,stream,idle_category,idle_time,idle_time_ratio\n", out);
    for (size_t i = 0; i < r->nranks; i++)
        for (size_t j = 0; j < r->ranks[i].nidle; j++) { /* HTA numbers each rank's rows from 0 */
            const dfs_gpu_idle_row *d = &r->ranks[i].idle[j];
            fprintf(out, "%zu,%lld,%lld,%s", j, (long long)r->ranks[i].rank, (long long)d->stream,
                    dfs_gpu_idle_cat_name(d->category));
            gpu_py_num(out, d->idle_us), gpu_py_num(out, d->ratio);
            fputc('\n', out);
        }
}

static void csv_idle_stats(FILE *out, const dfs_gpu_result *r)
{
    fputs("idle_category,rank,stream,count,mean,std,min,25%,50%,75%,max\n", out);
    for (size_t i = 0; i < r->nranks; i++)
        for (size_t j = 0; j < r->ranks[i].nidle; j++) {
            const dfs_gpu_idle_row *d = &r->ranks[i].idle[j];
            fprintf(out, "%s,%lld,%lld", dfs_gpu_idle_cat_name(d->category), (long long)r->ranks[i].rank,
                    (long long)d->stream);
            gpu_py_num(out, (double)d->count), gpu_py_num(out, d->mean_us), gpu_py_num(out, d->std_us);
            gpu_py_num(out, d->min_us), gpu_py_num(out, d->p25_us), gpu_py_num(out, d->p50_us), gpu_py_num(out, d->p75_us);
            gpu_py_num(out, d->max_us);
            fputc('\n', out);
        }
}

static void csv_queue(FILE *out, const dfs_gpu_result *r)
{
    fputs(",,queue_length,queue_length,queue_length,queue_length,queue_length,queue_length,queue_length,"
          "queue_length\n,,count,mean,std,min,25%,50%,75%,max\nrank,stream,,,,,,,,\n", out);
    for (size_t i = 0; i < r->nranks; i++)
        for (size_t j = 0; j < r->ranks[i].nqueue; j++) {
            const dfs_gpu_queue_row *q = &r->ranks[i].queue[j];
            fprintf(out, "%lld,%lld", (long long)r->ranks[i].rank, (long long)q->stream);
            csv_describe(out, &q->s);
        }
}

static void csv_membw(FILE *out, const dfs_gpu_result *r)
{
    size_t rows = 0;
    for (size_t i = 0; i < r->nranks; i++)
        rows += r->ranks[i].nmembw;
    if (!rows) { /* pandas' describe() of nothing: no index column names */
        fputs(",memory_bw_gbps,memory_bw_gbps,memory_bw_gbps,memory_bw_gbps,memory_bw_gbps,memory_bw_gbps,"
              "memory_bw_gbps,memory_bw_gbps\n,count,mean,std,min,25%,50%,75%,max\n", out);
        return;
    }
    fputs(",,memory_bw_gbps,memory_bw_gbps,memory_bw_gbps,memory_bw_gbps,memory_bw_gbps,memory_bw_gbps,"
          "memory_bw_gbps,memory_bw_gbps\n,,count,mean,std,min,25%,50%,75%,max\nrank,name,,,,,,,,\n", out);
    for (size_t i = 0; i < r->nranks; i++)
        for (size_t j = 0; j < r->ranks[i].nmembw; j++) {
            const dfs_gpu_membw_row *b = &r->ranks[i].membw[j];
            fprintf(out, "%lld,", (long long)r->ranks[i].rank);
            dfs_csv_text(out, b->name);
            csv_describe(out, &b->s);
        }
}

static void csv_annotations(FILE *out, const dfs_gpu_result *r)
{
    fputs(",name,sum (us),max (us),min (us),stddev,mean (us),rank\n", out);
    size_t row = 0;
    for (size_t i = 0; i < r->nranks; i++)
        for (size_t j = 0; j < r->ranks[i].nannotations; j++) {
            const dfs_gpu_name_row *k = &r->ranks[i].annotations[j];
            fprintf(out, "%zu,", row++);
            dfs_csv_text(out, k->name);
            gpu_py_num(out, gpu_us(k->sum_ns)), gpu_py_num(out, gpu_us(k->max_ns)), gpu_py_num(out, gpu_us(k->min_ns));
            gpu_py_num(out, k->std_ns / 1000), gpu_py_num(out, k->mean_ns / 1000);
            fprintf(out, ",%lld\n", (long long)r->ranks[i].rank);
        }
}

static void launch_rows(FILE *out, const dfs_gpu_launch_stats *l, const char *prefix)
{
    const dfs_gpu_stats *c[4] = {&l->correlation, &l->cpu_us, &l->gpu_us, &l->delay_us};
    static const char *const names[] = {"count", "mean", "std", "min", "25%", "50%", "75%", "max"};
    for (int row = 0; row < 8; row++) {
        fprintf(out, "%s%s", prefix, names[row]);
        for (int k = 0; k < 4; k++) {
            const dfs_gpu_stats *s = c[k];
            double v[] = {(double)s->count, s->mean, s->std, s->min, s->p25, s->p50, s->p75, s->max};
            gpu_py_num(out, v[row]);
        }
        fputc('\n', out);
    }
}

void dfs_gpu_write_launch_csv(FILE *out, const dfs_gpu_result *r, size_t rank)
{
    if (rank < r->nranks) {
        fputs(",correlation,cpu_duration,gpu_duration,launch_delay\n", out);
        launch_rows(out, &r->ranks[rank].launch, "");
        return;
    }
    fputs("rank,statistic,correlation,cpu_duration,gpu_duration,launch_delay\n", out);
    for (size_t i = 0; i < r->nranks; i++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "%lld,", (long long)r->ranks[i].rank);
        launch_rows(out, &r->ranks[i].launch, prefix);
    }
}

/* One row per rank and class of its critical path (HTA's class names; "" = dependencies and
 * synchronisations); a rank without a path has no row. */
static void csv_critical(FILE *out, const dfs_gpu_result *r)
{
    fputs(",rank,window,bound_by,duration(us),pctg,edges\n", out);
    size_t row = 0;
    for (size_t i = 0; i < r->nranks; i++) {
        const dfs_gpu_cpath *c = &r->ranks[i].cpath;
        for (int k = 0; c->status == DFS_GPU_CP_OK && k < DFS_GPU_CP_CLASSES; k++) {
            if (!c->class_edges[k])
                continue;
            fprintf(out, "%zu,%lld,", row++, (long long)r->ranks[i].rank);
            dfs_csv_text(out, c->window);
            fprintf(out, ",%s", dfs_gpu_cp_class_name(k));
            gpu_py_num(out, gpu_us(c->class_ns[k])), gpu_py_num(out, c->class_pct[k]);
            fprintf(out, ",%llu\n", (unsigned long long)c->class_edges[k]);
        }
    }
}

/* HTA's columns (pattern, count, GPU kernel and CPU op durations), then the rank. */
static void csv_sequences(FILE *out, const dfs_gpu_result *r)
{
    fputs(",pattern,count,GPU kernel duration (us),CPU op duration (us),rank\n", out);
    size_t row = 0;
    for (size_t i = 0; i < r->nranks; i++)
        for (size_t k = 0; k < r->ranks[i].nseqs; k++) {
            const dfs_gpu_seq_row *s = &r->ranks[i].seqs[k];
            fprintf(out, "%zu,", row++);
            dfs_csv_text(out, s->pattern);
            fprintf(out, ",%llu", (unsigned long long)s->count);
            gpu_py_num(out, gpu_us(s->gpu_ns)), gpu_py_num(out, gpu_us(s->cpu_ns));
            fprintf(out, ",%lld\n", (long long)r->ranks[i].rank);
        }
}

/* The stragglers named, most late steps first. */
static void csv_stragglers(FILE *out, const dfs_gpu_result *r)
{
    const dfs_gpu_stragglers *s = &r->stragglers;
    fputs(",rank,late_steps,steps,metric_kernel,stream\n", out);
    for (size_t i = 0; !s->status && i < s->nranks; i++) {
        fprintf(out, "%zu,%lld,%llu,%llu,", i, (long long)s->ranks[i].rank, (unsigned long long)s->ranks[i].late_steps,
                (unsigned long long)s->iterations);
        dfs_csv_text(out, s->kernel);
        fprintf(out, ",%lld\n", (long long)s->stream);
    }
}

void dfs_gpu_write_csv(FILE *out, const dfs_gpu_result *r, dfs_gpu_csv t)
{
    switch (t) {
    case DFS_GPU_CSV_TEMPORAL: csv_temporal(out, r); break;
    case DFS_GPU_CSV_TYPES: csv_types(out, r); break;
    case DFS_GPU_CSV_NAMES: csv_names(out, r); break;
    case DFS_GPU_CSV_OVERLAP: csv_overlap(out, r); break;
    case DFS_GPU_CSV_IDLE: csv_idle(out, r); break;
    case DFS_GPU_CSV_IDLE_STATS: csv_idle_stats(out, r); break;
    case DFS_GPU_CSV_QUEUE: csv_queue(out, r); break;
    case DFS_GPU_CSV_MEMBW: csv_membw(out, r); break;
    case DFS_GPU_CSV_ANNOTATIONS: csv_annotations(out, r); break;
    case DFS_GPU_CSV_CRITICAL: csv_critical(out, r); break;
    case DFS_GPU_CSV_SEQUENCES: csv_sequences(out, r); break;
    case DFS_GPU_CSV_STRAGGLERS: csv_stragglers(out, r); break;
    case DFS_GPU_CSV_LAUNCH_OUTLIERS: gpu_csv_launch_outliers(out, r); break;
    case DFS_GPU_CSV_QUEUE_BLOCKED: gpu_csv_queue_blocked(out, r); break;
    case DFS_GPU_CSV_ANNOTATED: gpu_csv_annotated(out, r); break;
    default: break;
    }
}

/* ---- across ranks ---- */

/* The spread of the ranks with device work: the slowest (longest span) and the least and most idle
 * and computing ranks. */
typedef struct spread {
    size_t n;
    const dfs_gpu_rank *slowest, *fastest, *idle_lo, *idle_hi, *comp_lo, *comp_hi;
} spread;

static void spread_of(const dfs_gpu_result *r, spread *x)
{
    *x = (spread){0};
    for (size_t i = 0; i < r->nranks; i++) {
        const dfs_gpu_rank *k = &r->ranks[i];
        if (!k->device_rows || !isfinite(k->temporal.idle_pct))
            continue;
        const dfs_gpu_temporal *t = &k->temporal;
        if (!x->n++) {
            x->slowest = x->fastest = x->idle_lo = x->idle_hi = x->comp_lo = x->comp_hi = k;
            continue;
        }
        if (t->kernel_time_ns > x->slowest->temporal.kernel_time_ns)
            x->slowest = k;
        if (t->kernel_time_ns < x->fastest->temporal.kernel_time_ns)
            x->fastest = k;
        if (t->idle_pct < x->idle_lo->temporal.idle_pct)
            x->idle_lo = k;
        if (t->idle_pct > x->idle_hi->temporal.idle_pct)
            x->idle_hi = k;
        if (t->compute_pct < x->comp_lo->temporal.compute_pct)
            x->comp_lo = k;
        if (t->compute_pct > x->comp_hi->temporal.compute_pct)
            x->comp_hi = k;
    }
}

static void json_extreme(dfs_jw *w, const char *key, const dfs_gpu_rank *k, double v)
{
    dfs_jw_object(w, key);
    dfs_jw_int(w, "rank", k->rank);
    dfs_jw_double(w, "value", v);
    dfs_jw_end(w);
}

static void json_spread(dfs_jw *w, const dfs_gpu_result *r)
{
    spread x;
    spread_of(r, &x);
    if (x.n < 2 || !(r->sections & DFS_GPU_SEC_TEMPORAL))
        return;
    dfs_jw_object(w, "across_ranks");
    dfs_jw_uint(w, "ranks", x.n);
    json_extreme(w, "slowest_span_us", x.slowest, gpu_us(x.slowest->temporal.kernel_time_ns));
    json_extreme(w, "fastest_span_us", x.fastest, gpu_us(x.fastest->temporal.kernel_time_ns));
    json_extreme(w, "min_idle_pct", x.idle_lo, x.idle_lo->temporal.idle_pct);
    json_extreme(w, "max_idle_pct", x.idle_hi, x.idle_hi->temporal.idle_pct);
    json_extreme(w, "min_compute_pct", x.comp_lo, x.comp_lo->temporal.compute_pct);
    json_extreme(w, "max_compute_pct", x.comp_hi, x.comp_hi->temporal.compute_pct);
    dfs_jw_end(w);
}

const char *gpu_rank_name(const dfs_gpu_rank *k, char *buf, size_t n)
{
    if (!k->shares_rank) {
        snprintf(buf, n, "%lld", (long long)k->rank);
        return buf;
    }
    const char *base = strrchr(k->path, '/');
    char file[DFS_TERM_STR_MAX];
    snprintf(buf, n, "%lld (%s)", (long long)k->rank, dfs_term_str(file, sizeof file, base ? base + 1 : k->path));
    return buf;
}

static void text_spread(FILE *out, const dfs_gpu_result *r)
{
    spread x;
    spread_of(r, &x);
    if (x.n < 2)
        return;
    char a[32], b[32];
    fprintf(out, "Across %zu ranks: span %s (rank %s) to %s (rank %s, the slowest);\n"
                 "  idle %.2f%% (rank %s) to %.2f%% (rank %s); compute %.2f%% (rank %s) to %.2f%% (rank %s).\n",
            x.n, dfs_fmt_duration(a, sizeof a, x.fastest->temporal.kernel_time_ns), RANK(x.fastest),
            dfs_fmt_duration(b, sizeof b, x.slowest->temporal.kernel_time_ns), RANK(x.slowest),
            x.idle_lo->temporal.idle_pct, RANK(x.idle_lo), x.idle_hi->temporal.idle_pct,
            RANK(x.idle_hi), x.comp_lo->temporal.compute_pct, RANK(x.comp_lo),
            x.comp_hi->temporal.compute_pct, RANK(x.comp_hi));
}

/* ---- JSON ---- */

/* PREFIXmeanSUFFIX ... PREFIXmaxSUFFIX, after "count" when asked. */
static void json_stats(dfs_jw *w, const char *prefix, const char *suffix, const dfs_gpu_stats *s, bool count)
{
    static const char *const names[] = {"mean", "std", "min", "p25", "p50", "p75", "max"};
    double v[] = {s->mean, s->std, s->min, s->p25, s->p50, s->p75, s->max};
    char key[64];
    if (count)
        dfs_jw_uint(w, "count", s->count);
    for (int i = 0; i < 7; i++) {
        snprintf(key, sizeof key, "%s%s%s", prefix, names[i], suffix);
        dfs_jw_double(w, key, v[i]);
    }
}

/* By-name rows (kernels, with their type; annotations) as the array `key`. */
static void json_names(dfs_jw *w, const char *key, const dfs_gpu_name_row *rows, size_t n, bool typed)
{
    dfs_jw_array(w, key);
    for (size_t i = 0; i < n; i++) {
        const dfs_gpu_name_row *x = &rows[i];
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "name", x->name);
        if (typed)
            dfs_jw_cstr(w, "kernel_type", dfs_gpu_ktype_name(x->type));
        dfs_jw_uint(w, "count", x->count);
        dfs_jw_double(w, "sum_us", gpu_us(x->sum_ns));
        dfs_jw_double(w, "max_us", gpu_us(x->max_ns));
        dfs_jw_double(w, "min_us", gpu_us(x->min_ns));
        dfs_jw_double(w, "stddev_us", x->std_ns / 1000);
        dfs_jw_double(w, "mean_us", x->mean_ns / 1000);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_cpath(dfs_jw *w, const dfs_gpu_cpath *c)
{
    dfs_jw_object(w, "critical_path");
    dfs_jw_cstr(w, "status", c->status == DFS_GPU_CP_OK ? "ok" : dfs_gpu_cp_status_text(c->status));
    if (c->window) {
        dfs_jw_cstr(w, "window", c->window);
        dfs_jw_double(w, "window_start_us", gpu_us(c->start_ns));
        dfs_jw_double(w, "window_end_us", gpu_us(c->end_ns));
        dfs_jw_uint(w, "events", c->events);
        dfs_jw_uint(w, "graph_nodes", c->graph_nodes);
        dfs_jw_uint(w, "graph_edges", c->edges);
    }
    if (c->status == DFS_GPU_CP_OK) {
        dfs_jw_uint(w, "path_nodes", c->path_nodes);
        dfs_jw_double(w, "length_us", gpu_us(c->length_ns));
        dfs_jw_array(w, "bound_by");
        for (int i = 0; i < DFS_GPU_CP_CLASSES; i++) {
            if (!c->class_edges[i])
                continue;
            dfs_jw_object(w, NULL);
            dfs_jw_cstr(w, "class", i == DFS_GPU_CP_DEPENDENCY ? "dependency" : dfs_gpu_cp_class_name(i));
            dfs_jw_uint(w, "edges", c->class_edges[i]);
            dfs_jw_double(w, "duration_us", gpu_us(c->class_ns[i]));
            dfs_jw_double(w, "pct", c->class_pct[i]);
            dfs_jw_end(w);
        }
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_sequences(dfs_jw *w, const dfs_gpu_rank *k)
{
    if (k->seq_failed) {
        dfs_jw_null(w, "kernel_sequences");
        dfs_jw_cstr(w, "kernel_sequences_note", "a host event of negative duration (HTA fails)");
        return;
    }
    dfs_jw_array(w, "kernel_sequences");
    for (size_t i = 0; i < k->nseqs; i++) {
        const dfs_gpu_seq_row *s = &k->seqs[i];
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "pattern", s->pattern);
        dfs_jw_uint(w, "kernels", s->kernels);
        dfs_jw_uint(w, "count", s->count);
        dfs_jw_double(w, "gpu_us", gpu_us(s->gpu_ns));
        dfs_jw_double(w, "cpu_us", gpu_us(s->cpu_ns));
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_rank(dfs_jw *w, const dfs_gpu_result *r, const dfs_gpu_rank *k)
{
    char label[96];
    dfs_jw_object(w, NULL);
    dfs_jw_int(w, "rank", k->rank);
    dfs_jw_cstr(w, "file", k->path);
    dfs_jw_uint(w, "rows", k->rows);
    dfs_jw_uint(w, "device_rows", k->device_rows);
    if (r->semantics == DFS_GPU_HTA)
        dfs_jw_bool(w, "last_step_dropped", k->filtered);
    if (r->sections & DFS_GPU_SEC_CRITICAL) /* host work has a critical path without the device's */
        json_cpath(w, &k->cpath);
    if (r->sections & DFS_GPU_SEC_SEQUENCES)
        json_sequences(w, k);
    if (!k->device_rows) { /* nothing to measure: said, not zeros */
        dfs_jw_cstr(w, "note", "no device events (kernels, copies, sets)");
        dfs_jw_end(w);
        return;
    }
    if (r->sections & DFS_GPU_SEC_TEMPORAL) {
        const dfs_gpu_temporal *t = &k->temporal;
        dfs_jw_object(w, "temporal");
        dfs_jw_double(w, "idle_us", gpu_us(t->idle_ns));
        dfs_jw_double(w, "compute_us", gpu_us(t->compute_ns));
        dfs_jw_double(w, "non_compute_us", gpu_us(t->non_compute_ns));
        dfs_jw_double(w, "kernel_time_us", gpu_us(t->kernel_time_ns));
        dfs_jw_double(w, "idle_pct", t->idle_pct);
        dfs_jw_double(w, "compute_pct", t->compute_pct);
        dfs_jw_double(w, "non_compute_pct", t->non_compute_pct);
        dfs_jw_end(w);
    }
    if (r->sections & DFS_GPU_SEC_KERNELS) {
        dfs_jw_array(w, "kernel_types");
        for (size_t i = 0; i < k->ntypes; i++) {
            dfs_jw_object(w, NULL);
            dfs_jw_cstr(w, "kernel_type", dfs_gpu_mask_label(k->types[i].mask, label, sizeof label));
            dfs_jw_double(w, "sum_us", gpu_us(k->types[i].sum_ns));
            dfs_jw_double(w, "percentage", k->types[i].percentage);
            dfs_jw_end(w);
        }
        dfs_jw_end(w);
        json_names(w, "kernels", k->names, k->nnames, true);
    }
    if (r->sections & DFS_GPU_SEC_OVERLAP)
        dfs_jw_double(w, "comm_comp_overlap_pct", k->overlap_pct);
    if (r->sections & DFS_GPU_SEC_QUEUE) {
        dfs_jw_array(w, "queue_length");
        for (size_t i = 0; i < k->nqueue; i++) {
            dfs_jw_object(w, NULL);
            dfs_jw_int(w, "stream", k->queue[i].stream);
            json_stats(w, "", "", &k->queue[i].s, true);
            dfs_jw_end(w);
        }
        dfs_jw_end(w);
        gpu_json_queue_blocked(w, k);
    }
    if (r->sections & DFS_GPU_SEC_LAUNCH) {
        const dfs_gpu_launch_stats *l = &k->launch;
        dfs_jw_object(w, "launch");
        dfs_jw_uint(w, "count", l->cpu_us.count);
        json_stats(w, "cpu_duration_", "_us", &l->cpu_us, false);
        json_stats(w, "gpu_duration_", "_us", &l->gpu_us, false);
        json_stats(w, "launch_delay_", "_us", &l->delay_us, false);
        gpu_json_launch_outliers(w, l);
        dfs_jw_end(w);
    }
    if (r->sections & DFS_GPU_SEC_ANNOTATIONS) {
        json_names(w, "annotations", k->annotations, k->nannotations, false);
        gpu_json_annotated(w, k);
    }
    if (r->sections & DFS_GPU_SEC_MEMBW) {
        dfs_jw_array(w, "memory_bw");
        for (size_t i = 0; i < k->nmembw; i++) {
            dfs_jw_object(w, NULL);
            dfs_jw_cstr(w, "name", k->membw[i].name);
            json_stats(w, "", "_gbps", &k->membw[i].s, true);
            dfs_jw_end(w);
        }
        dfs_jw_end(w);
    }
    if (r->sections & DFS_GPU_SEC_IDLE) {
        dfs_jw_array(w, "idle");
        for (size_t i = 0; i < k->nidle; i++) {
            const dfs_gpu_idle_row *d = &k->idle[i];
            dfs_jw_object(w, NULL);
            dfs_jw_int(w, "stream", d->stream);
            dfs_jw_cstr(w, "category", dfs_gpu_idle_cat_name(d->category));
            dfs_jw_double(w, "idle_us", d->idle_us);
            dfs_jw_double(w, "ratio", d->ratio);
            dfs_jw_uint(w, "count", d->count);
            dfs_jw_double(w, "mean_us", d->mean_us);
            dfs_jw_double(w, "std_us", d->std_us);
            dfs_jw_double(w, "min_us", d->min_us);
            dfs_jw_double(w, "p25_us", d->p25_us);
            dfs_jw_double(w, "p50_us", d->p50_us);
            dfs_jw_double(w, "p75_us", d->p75_us);
            dfs_jw_double(w, "max_us", d->max_us);
            dfs_jw_end(w);
        }
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_stragglers(dfs_jw *w, const dfs_gpu_result *r)
{
    const dfs_gpu_stragglers *s = &r->stragglers;
    dfs_jw_object(w, "stragglers");
    dfs_jw_cstr(w, "status", s->status ? s->status : "ok");
    dfs_jw_uint(w, "candidates", s->candidates);
    if (!s->status) {
        dfs_jw_cstr(w, "metric_kernel", s->kernel);
        dfs_jw_int(w, "stream", s->stream);
        dfs_jw_uint(w, "steps", s->iterations);
        dfs_jw_double(w, "mean_step_us", s->mean_iter_ns / 1000);
        dfs_jw_array(w, "ranks");
        for (size_t i = 0; i < s->nranks; i++) {
            dfs_jw_object(w, NULL);
            dfs_jw_int(w, "rank", s->ranks[i].rank);
            dfs_jw_uint(w, "late_steps", s->ranks[i].late_steps);
            dfs_jw_end(w);
        }
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

void dfs_gpu_write_json(FILE *out, const dfs_gpu_result *r)
{
    dfs_jw w;
    dfs_jw_init(&w, out, true);
    dfs_jw_object(&w, NULL);
    dfs_jw_cstr(&w, "schema", "dfscope-gpu/1");
    dfs_jw_cstr(&w, "semantics", r->semantics == DFS_GPU_HTA ? "hta" : "exact");
    json_spread(&w, r);
    if (r->sections & DFS_GPU_SEC_STRAGGLERS)
        json_stragglers(&w, r);
    dfs_jw_array(&w, "ranks");
    for (size_t i = 0; i < r->nranks; i++)
        json_rank(&w, r, &r->ranks[i]);
    dfs_jw_end(&w);
    dfs_jw_end(&w);
    fputc('\n', out);
}

/* ---- table ---- */

const char *gpu_pct(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(buf, n, "n/a");
    else
        snprintf(buf, n, "%.2f%%", v);
    return buf;
}

static void text_temporal(FILE *out, const dfs_gpu_result *r)
{
    char a[32], b[32], c[32], d[32], p1[16], p2[16], p3[16];
    /* the rank column fits its longest label (a file's name when files share a rank), numbers
     * right-aligned as usual, labels with a name left-aligned */
    int width = 6;
    bool named = false;
    for (size_t i = 0; i < r->nranks; i++) {
        int len = (int)strlen(RANK(&r->ranks[i]));
        width = len > width ? len : width;
        named |= r->ranks[i].shares_rank;
    }
    int w = named ? -width : width;
    fprintf(out, "Device time per rank (from the first device event to the last):\n");
    fprintf(out, "  %*s  %12s  %12s %8s  %12s %8s  %12s %8s\n", w, "rank", "span", "idle", "%", "compute", "%",
            "non-compute", "%");
    for (size_t i = 0; i < r->nranks; i++) {
        const dfs_gpu_rank *k = &r->ranks[i];
        if (!k->device_rows) {
            fprintf(out, "  %*s  no device events\n", w, RANK(k));
            continue;
        }
        const dfs_gpu_temporal *t = &k->temporal;
        fprintf(out, "  %*s  %12s  %12s %8s  %12s %8s  %12s %8s\n", w, RANK(k),
                dfs_fmt_duration(a, sizeof a, t->kernel_time_ns), dfs_fmt_duration(b, sizeof b, t->idle_ns),
                gpu_pct(p1, sizeof p1, t->idle_pct), dfs_fmt_duration(c, sizeof c, t->compute_ns),
                gpu_pct(p2, sizeof p2, t->compute_pct), dfs_fmt_duration(d, sizeof d, t->non_compute_ns),
                gpu_pct(p3, sizeof p3, t->non_compute_pct));
    }
}

/* The finding first: the rank whose device idles most, and what dominates it. */
static void text_headline(FILE *out, const dfs_gpu_result *r)
{
    const dfs_gpu_rank *worst = NULL;
    for (size_t i = 0; i < r->nranks; i++) {
        const dfs_gpu_rank *k = &r->ranks[i];
        if (k->device_rows && isfinite(k->temporal.idle_pct) &&
            (!worst || k->temporal.idle_pct > worst->temporal.idle_pct))
            worst = k;
    }
    char a[32], b[32];
    if (!worst && r->no_device < r->nranks) {
        fprintf(out, "The device work takes no time (its span is 0): no share to give.\n");
        return;
    }
    if (!worst) {
        fprintf(out, "No device events (kernels, copies, sets): no GPU work to break down; 'dfscope stats'\n"
                     "and 'dfscope steps' read the host side of these traces.\n");
        return;
    }
    const dfs_gpu_temporal *t = &worst->temporal;
    fprintf(out, "%s %s: the device idles %.1f%% of its %s span (%s idle, %s computing).\n",
            r->nranks > 1 ? "Most idle, rank" : "Rank", RANK(worst), t->idle_pct,
            dfs_fmt_duration(a, sizeof a, t->kernel_time_ns), dfs_fmt_duration(b, sizeof b, t->idle_ns),
            gpu_pct((char[16]){0}, 16, t->compute_pct));
}

/* Biggest total first; "others" after the names it gathers; then by name. */
static int cmp_by_sum(const void *a, const void *b)
{
    const dfs_gpu_name_row *x = *(const dfs_gpu_name_row *const *)a, *y = *(const dfs_gpu_name_row *const *)b;
    if (x->sum_ns != y->sum_ns)
        return x->sum_ns > y->sum_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void text_kernels(FILE *out, const dfs_gpu_rank *k, size_t limit)
{
    char a[32], label[96], p[16];
    fprintf(out, "\nRank %s, device time by kernel type (overlaps counted once, in their own rows):\n",
            RANK(k));
    for (size_t i = 0; i < k->ntypes; i++)
        fprintf(out, "  %-58s %12s %8s\n", dfs_gpu_mask_label(k->types[i].mask, label, sizeof label),
                dfs_fmt_duration(a, sizeof a, k->types[i].sum_ns), gpu_pct(p, sizeof p, k->types[i].percentage));
    fprintf(out, "Rank %s, kernels by name (the biggest of each type; \"others\" groups the rest):\n",
            RANK(k));
    fprintf(out, "  %-14s %12s %8s %12s  %s\n", "type", "total", "count", "mean", "name");
    const dfs_gpu_name_row **by_sum = malloc((k->nnames ? k->nnames : 1) * sizeof *by_sum);
    if (!by_sum)
        return;
    for (size_t i = 0; i < k->nnames; i++)
        by_sum[i] = &k->names[i];
    qsort(by_sum, k->nnames, sizeof *by_sum, cmp_by_sum);
    for (size_t i = 0; i < k->nnames && (!limit || i < limit); i++) {
        const dfs_gpu_name_row *n = by_sum[i];
        char b[32];
        fprintf(out, "  %-14s %12s %8llu %12s  ", dfs_gpu_ktype_name(n->type), dfs_fmt_duration(a, sizeof a, n->sum_ns),
                (unsigned long long)n->count, dfs_fmt_duration(b, sizeof b, (int64_t)llround(n->mean_ns)));
        dfs_term_puts(out, n->name);
        fputc('\n', out);
    }
    free(by_sum);
    if (limit && k->nnames > limit)
        fprintf(out, "  (%zu more rows: --format json or csv for all)\n", k->nnames - limit);
}

/* A rank's idle time per category, over its streams (µs). */
static void idle_totals(const dfs_gpu_rank *k, double tot[DFS_GPU_IDLE_CATS])
{
    for (int c = 0; c < DFS_GPU_IDLE_CATS; c++)
        tot[c] = 0;
    for (size_t i = 0; i < k->nidle; i++)
        tot[k->idle[i].category] += k->idle[i].idle_us;
}

/* The streams of a rank's idle table (its rows are per stream and category, by stream). */
static size_t idle_streams(const dfs_gpu_rank *k)
{
    size_t n = 0;
    for (size_t i = 0; i < k->nidle; i++)
        n += i == 0 || k->idle[i].stream != k->idle[i - 1].stream;
    return n;
}

static const char *const idle_words[DFS_GPU_IDLE_CATS] = {
    "waiting for the host to launch (host_wait)", "short gaps between kernels (kernel_wait)",
    "other gaps (other)"};

/* The biggest idle cause over all ranks, in words. */
static void text_idle_headline(FILE *out, const dfs_gpu_result *r)
{
    double all[DFS_GPU_IDLE_CATS] = {0}, sum = 0;
    for (size_t i = 0; i < r->nranks; i++) {
        double t[DFS_GPU_IDLE_CATS];
        idle_totals(&r->ranks[i], t);
        for (int c = 0; c < DFS_GPU_IDLE_CATS; c++)
            all[c] += t[c], sum += t[c];
    }
    int big = 0;
    for (int c = 1; c < DFS_GPU_IDLE_CATS; c++)
        big = all[c] > all[big] ? c : big;
    char a[32], over[160] = "";
    size_t streams = 0;
    for (size_t i = 0; i < r->nranks; i++)
        streams += idle_streams(&r->ranks[i]);
    /* streams idle side by side: their sum may exceed the span, which the words must explain */
    size_t ranks = 0; /* distinct rank numbers: files that share a rank are entries of their own */
    for (size_t i = 0; i < r->nranks; i++)
        ranks += i == 0 || r->ranks[i].rank != r->ranks[i - 1].rank;
    if (streams > 1 && ranks == 1 && r->nranks > 1)
        snprintf(over, sizeof over, " summed over the %zu streams of %zu files of rank %lld", streams, r->nranks,
                 (long long)r->ranks[0].rank);
    else if (streams > 1 && ranks < r->nranks)
        snprintf(over, sizeof over, " summed over the %zu streams of %zu files of %zu ranks", streams, r->nranks,
                 ranks);
    else if (streams > 1 && r->nranks > 1)
        snprintf(over, sizeof over, " summed over the %zu streams of %zu ranks", streams, r->nranks);
    else if (streams > 1)
        snprintf(over, sizeof over, " summed over %zu streams", streams);
    if (sum > 0)
        fprintf(out, "Biggest idle cause: %s, %s%s (%.1f%% of the streams' idle time).\n", idle_words[big],
                dfs_fmt_duration(a, sizeof a, (int64_t)llround(all[big] * 1000)), over, 100 * all[big] / sum);
}

static void text_idle(FILE *out, const dfs_gpu_rank *k)
{
    char a[32], b[32], c[32], p[16];
    fprintf(out, "\nRank %s, idle time per stream (the gap before each kernel, copy or set):\n", RANK(k));
    fprintf(out, "  %8s  %-12s %12s %8s %8s %12s %12s\n", "stream", "category", "idle", "share", "gaps", "median",
            "max");
    for (size_t i = 0; i < k->nidle; i++) {
        const dfs_gpu_idle_row *d = &k->idle[i];
        bool gaps = d->count > 0;
        fprintf(out, "  %8lld  %-12s %12s %8s %8llu %12s %12s\n", (long long)d->stream,
                dfs_gpu_idle_cat_name(d->category), dfs_fmt_duration(a, sizeof a, (int64_t)llround(d->idle_us * 1000)),
                isfinite(d->ratio) ? gpu_pct(p, sizeof p, 100 * d->ratio) : "n/a", (unsigned long long)d->count,
                gaps ? dfs_fmt_duration(b, sizeof b, (int64_t)llround(d->p50_us * 1000)) : "-",
                gaps ? dfs_fmt_duration(c, sizeof c, (int64_t)llround(d->max_us * 1000)) : "-");
    }
    for (size_t i = 0; i < k->nidle; i++)
        if (!isfinite(k->idle[i].ratio)) {
            fprintf(out, "  (share n/a: the stream never idled, e.g. it ran one kernel)\n");
            break;
        }
}

static void text_queue(FILE *out, const dfs_gpu_result *r, const dfs_gpu_rank *k)
{
    fprintf(out, "\nRank %s, queue length per stream (kernels launched, not yet started; at each launch and start):\n",
            RANK(k));
    if (!k->nqueue) {
        fprintf(out, "  n/a: no launch call of the trace has its device work in it\n");
        return;
    }
    gpu_text_queue_blocked(out, r, k);
    fprintf(out, "  %8s %10s %8s %8s %8s\n", "stream", "samples", "mean", "median", "max");
    for (size_t i = 0; i < k->nqueue; i++) {
        const dfs_gpu_stats *q = &k->queue[i].s;
        fprintf(out, "  %8lld %10llu %8.2f %8.1f %8.0f\n", (long long)k->queue[i].stream, (unsigned long long)q->count,
                q->mean, q->p50, q->max);
    }
}

static void text_membw(FILE *out, const dfs_gpu_rank *k)
{
    fprintf(out, "\nRank %s, memory bandwidth in use per kind of copy (GB/s, while above 0):\n", RANK(k));
    if (!k->nmembw) {
        fprintf(out, "  n/a: %s\n", k->memory_rows ? "the copies carry no bandwidth" : "no copies or sets");
        return;
    }
    fprintf(out, "  %-16s %10s %10s %10s %10s\n", "kind", "samples", "mean", "median", "max");
    for (size_t i = 0; i < k->nmembw; i++) {
        const dfs_gpu_membw_row *b = &k->membw[i];
        fputs("  ", out);
        dfs_term_pad(out, b->name, strlen(b->name), 16); /* a prefix of the trace's name */
        fprintf(out, " %10llu %10.3f %10.3f %10.3f\n", (unsigned long long)b->s.count, b->s.mean, b->s.p50, b->s.max);
    }
}

static void text_annotations(FILE *out, const dfs_gpu_rank *k, size_t limit)
{
    if (!k->nannotations)
        return;
    fprintf(out, "\nRank %s, GPU user annotations by name (the ranges marked on device lanes):\n", RANK(k));
    fprintf(out, "  %12s %8s %12s  %s\n", "total", "count", "mean", "name");
    const dfs_gpu_name_row **by_sum = malloc(k->nannotations * sizeof *by_sum);
    if (!by_sum)
        return;
    for (size_t i = 0; i < k->nannotations; i++)
        by_sum[i] = &k->annotations[i];
    qsort(by_sum, k->nannotations, sizeof *by_sum, cmp_by_sum);
    for (size_t i = 0; i < k->nannotations && (!limit || i < limit); i++) {
        char a[32], b[32];
        fprintf(out, "  %12s %8llu %12s  ", dfs_fmt_duration(a, sizeof a, by_sum[i]->sum_ns),
                (unsigned long long)by_sum[i]->count, dfs_fmt_duration(b, sizeof b, (int64_t)llround(by_sum[i]->mean_ns)));
        dfs_term_puts(out, by_sum[i]->name);
        fputc('\n', out);
    }
    if (limit && k->nannotations > limit)
        fprintf(out, "  (%zu more names: --format json or csv for all)\n", k->nannotations - limit);
    free(by_sum);
    gpu_text_annotated(out, k, limit);
}

static void text_launch(FILE *out, const dfs_gpu_rank *k)
{
    const dfs_gpu_launch_stats *l = &k->launch;
    fprintf(out, "\nRank %s, kernel launches (launch call and its device work):\n", RANK(k));
    if (!l->cpu_us.count) {
        fprintf(out, "  n/a: no launch call of the list has its device work in the trace\n");
        return;
    }
    gpu_text_launch_findings(out, k);
    const dfs_gpu_stats *c[3] = {&l->cpu_us, &l->gpu_us, &l->delay_us};
    static const char *const what[3] = {"launch call (CPU)", "device work (GPU)", "launch delay"};
    char count[32], head[48];
    snprintf(head, sizeof head, "%s launches", dfs_fmt_count(count, sizeof count, l->cpu_us.count));
    fprintf(out, "  %-30s %12s %12s %12s\n", head, "mean", "median", "max");
    for (int i = 0; i < 3; i++) {
        char a[32], b[32], d[32];
        fprintf(out, "  %-30s %12s %12s %12s\n", what[i], dfs_fmt_duration(a, sizeof a, (int64_t)llround(c[i]->mean * 1000)),
                dfs_fmt_duration(b, sizeof b, (int64_t)llround(c[i]->p50 * 1000)),
                dfs_fmt_duration(d, sizeof d, (int64_t)llround(c[i]->max * 1000)));
    }
    gpu_text_launch_worst(out, k);
}

/* The finding of each rank's critical path: its length and where its time goes. */
static void text_cpath_headline(FILE *out, const dfs_gpu_result *r)
{
    for (size_t i = 0; i < r->nranks; i++) {
        const dfs_gpu_cpath *c = &r->ranks[i].cpath;
        fprintf(out, "Rank %s: ", RANK(&r->ranks[i]));
        if (c->status != DFS_GPU_CP_OK) {
            fprintf(out, "no critical path: %s%s.\n", dfs_gpu_cp_status_text(c->status),
                    c->status == DFS_GPU_CP_NO_ANNOTATION || c->status == DFS_GPU_CP_NO_INSTANCE
                        ? " (the window is set by --cp-annotation, ProfilerStep by default, and --cp-instance; "
                          "--cp-annotation '' takes the whole trace)"
                        : "");
            continue;
        }
        char a[32], gpu[16], cpu[16], over[16], load[48] = "", dl[16];
        const double *p = c->class_pct;
        if (c->class_edges[DFS_GPU_CP_DATA_LOADING])
            snprintf(load, sizeof load, " (%s loading data)", gpu_pct(dl, sizeof dl, p[DFS_GPU_CP_DATA_LOADING]));
        fprintf(out, "the critical path of ");
        dfs_term_puts(out, *c->window ? c->window : "the whole trace");
        fprintf(out, " is %s: %s on the GPU (kernels, copies), %s on the CPU%s, %s launch and kernel-to-kernel overhead.\n",
                dfs_fmt_duration(a, sizeof a, c->length_ns),
                gpu_pct(gpu, sizeof gpu, p[DFS_GPU_CP_COMPUTE] + p[DFS_GPU_CP_COMMUNICATION]),
                gpu_pct(cpu, sizeof cpu, p[DFS_GPU_CP_CPU] + p[DFS_GPU_CP_DATA_LOADING]), load,
                gpu_pct(over, sizeof over, p[DFS_GPU_CP_LAUNCH] + p[DFS_GPU_CP_KERNEL_KERNEL]));
    }
}

static const char *const cp_words[DFS_GPU_CP_CLASSES] = {
    "waits (dependency, sync)", "CPU (cpu_bound)", "data loading (CPU)", "GPU communication",
    "GPU compute, copies", "between kernels", "launch delay"};

static void text_cpath(FILE *out, const dfs_gpu_rank *k)
{
    const dfs_gpu_cpath *c = &k->cpath;
    if (c->status != DFS_GPU_CP_OK)
        return;
    char a[32];
    fprintf(out, "\nRank %s, critical path of ", RANK(k));
    dfs_term_puts(out, *c->window ? c->window : "the whole trace");
    fprintf(out, " (%llu events; graph of %llu nodes, %llu edges; path of %llu nodes):\n",
            (unsigned long long)c->events, (unsigned long long)c->graph_nodes, (unsigned long long)c->edges,
            (unsigned long long)c->path_nodes);
    fprintf(out, "  %-26s %-28s %12s %8s %8s\n", "bound by", "(HTA)", "time", "share", "edges");
    for (int i = 0; i < DFS_GPU_CP_CLASSES; i++) {
        if (!c->class_edges[i])
            continue;
        char p[16];
        fprintf(out, "  %-26s %-28s %12s %8s %8llu\n", cp_words[i], i ? dfs_gpu_cp_class_name(i) : "\"\"",
                dfs_fmt_duration(a, sizeof a, c->class_ns[i]), gpu_pct(p, sizeof p, c->class_pct[i]),
                (unsigned long long)c->class_edges[i]);
    }
}

/* The finding: each rank's most frequent sequence. */
static void text_seq_headline(FILE *out, const dfs_gpu_result *r)
{
    for (size_t i = 0; i < r->nranks; i++) {
        const dfs_gpu_rank *k = &r->ranks[i];
        fprintf(out, "Rank %s: ", RANK(k));
        if (k->seq_failed || !k->nseqs) {
            fprintf(out, "no kernel sequence: %s.\n",
                    k->seq_failed ? "a host event has a negative duration (HTA's call graph fails)"
                                  : "no operator of the kind asked launched enough kernels");
            continue;
        }
        char a[32];
        const dfs_gpu_seq_row *s = &k->seqs[0];
        fprintf(out, "the most frequent kernel sequence ran %llu times (%s on the GPU, %zu kernels each): ",
                (unsigned long long)s->count, dfs_fmt_duration(a, sizeof a, s->gpu_ns), s->kernels);
        dfs_term_puts(out, s->pattern);
        fputc('\n', out);
    }
}

static void text_sequences(FILE *out, const dfs_gpu_rank *k, size_t limit)
{
    if (!k->nseqs)
        return;
    fprintf(out, "\nRank %s, frequent kernel sequences (an operator, then the kernels it launched):\n",
            RANK(k));
    fprintf(out, "  %8s %12s %12s  %s\n", "count", "GPU", "CPU", "operator|kernel|...");
    for (size_t i = 0; i < k->nseqs && (!limit || i < limit); i++) {
        char a[32], b[32];
        fprintf(out, "  %8llu %12s %12s  ", (unsigned long long)k->seqs[i].count,
                dfs_fmt_duration(a, sizeof a, k->seqs[i].gpu_ns), dfs_fmt_duration(b, sizeof b, k->seqs[i].cpu_ns));
        dfs_term_puts(out, k->seqs[i].pattern);
        fputc('\n', out);
    }
    if (limit && k->nseqs > limit)
        fprintf(out, "  (%zu more sequences: --format json or csv for all)\n", k->nseqs - limit);
}

/* The finding: which ranks start the most variable collective latest, in how many steps. */
static void text_stragglers(FILE *out, const dfs_gpu_result *r)
{
    const dfs_gpu_stragglers *s = &r->stragglers;
    if (s->status) {
        fprintf(out, "Stragglers: none found: %s.\n", s->status);
        return;
    }
    fprintf(out, "Stragglers:");
    for (size_t i = 0; i < s->nranks; i++)
        fprintf(out, "%s rank %lld (late in %llu of %llu steps)", i ? ";" : "", (long long)s->ranks[i].rank,
                (unsigned long long)s->ranks[i].late_steps, (unsigned long long)s->iterations);
    fprintf(out, ".\n  Late: among the %zu last ranks to start, in a step, the collective whose duration varies\n"
                 "  most between ranks (stream %lld, ", s->candidates, (long long)s->stream);
    dfs_term_puts(out, s->kernel);
    fprintf(out, ").\n");
}

void dfs_gpu_write_text(FILE *out, const dfs_gpu_result *r, size_t names)
{
    if (r->sections & DFS_GPU_SEC_STRAGGLERS)
        text_stragglers(out, r);
    if (r->sections & DFS_GPU_SEC_CRITICAL)
        text_cpath_headline(out, r);
    if (r->sections & DFS_GPU_SEC_SEQUENCES)
        text_seq_headline(out, r);
    if (r->no_device == r->nranks) {
        text_headline(out, r);
        return;
    }
    if (r->sections & DFS_GPU_SEC_TEMPORAL)
        text_headline(out, r);
    if (r->sections & DFS_GPU_SEC_IDLE)
        text_idle_headline(out, r);
    fprintf(out, "Semantics: %s.\n",
            r->semantics == DFS_GPU_HTA
                ? "hta (Holistic Trace Analysis' numbers: last profiler step dropped, whole-µs times)"
                : "exact (the whole trace, ns precision)");
    if (r->sections & DFS_GPU_SEC_TEMPORAL) {
        fputc('\n', out);
        text_temporal(out, r);
        text_spread(out, r);
    }
    if (r->sections & DFS_GPU_SEC_OVERLAP) {
        fprintf(out, "\nCommunication hidden under computation:\n");
        for (size_t i = 0; i < r->nranks; i++) {
            const dfs_gpu_rank *k = &r->ranks[i];
            char p[16];
            if (k->device_rows)
                fprintf(out, "  rank %s: %s\n", RANK(k),
                        k->has_comm ? gpu_pct(p, sizeof p, k->overlap_pct) : "n/a (no communication kernels)");
        }
    }
    if (r->sections & DFS_GPU_SEC_KERNELS)
        for (size_t i = 0; i < r->nranks; i++)
            if (r->ranks[i].device_rows)
                text_kernels(out, &r->ranks[i], names);
    if (r->sections & DFS_GPU_SEC_IDLE)
        for (size_t i = 0; i < r->nranks; i++)
            if (r->ranks[i].device_rows)
                text_idle(out, &r->ranks[i]);
    if (r->sections & DFS_GPU_SEC_QUEUE)
        for (size_t i = 0; i < r->nranks; i++)
            if (r->ranks[i].device_rows)
                text_queue(out, r, &r->ranks[i]);
    if (r->sections & DFS_GPU_SEC_MEMBW)
        for (size_t i = 0; i < r->nranks; i++)
            if (r->ranks[i].device_rows)
                text_membw(out, &r->ranks[i]);
    if (r->sections & DFS_GPU_SEC_LAUNCH)
        for (size_t i = 0; i < r->nranks; i++)
            if (r->ranks[i].device_rows)
                text_launch(out, &r->ranks[i]);
    if (r->sections & DFS_GPU_SEC_ANNOTATIONS)
        for (size_t i = 0; i < r->nranks; i++)
            if (r->ranks[i].device_rows)
                text_annotations(out, &r->ranks[i], names);
    if (r->sections == DFS_GPU_SEC_ANNOTATIONS && !r->annotated) /* asked for alone: said why it is empty */
        fprintf(out, "\nNo GPU user annotation (gpu_user_annotation event) in the traces: no kernel to attribute to one.\n");
    if (r->sections & DFS_GPU_SEC_CRITICAL)
        for (size_t i = 0; i < r->nranks; i++)
            text_cpath(out, &r->ranks[i]);
    if (r->sections & DFS_GPU_SEC_SEQUENCES)
        for (size_t i = 0; i < r->nranks; i++)
            text_sequences(out, &r->ranks[i], names);
    if (r->replaced)
        fprintf(out, "\nNote: %zu input(s) named a rank a later input also names; as HTA, the later one counts.\n",
                r->replaced);
    if (r->shared)
        fprintf(out, "\nNote: %zu inputs name a rank another input also names (profiling windows of one\n"
                     "process, or files without distributedInfo, which are rank 0): each is measured apart,\n"
                     "labelled by its file.\n",
                r->shared);
}
