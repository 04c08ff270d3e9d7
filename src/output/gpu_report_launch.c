/* gpu_report_launch.c - the output of three findings of `dfscope gpu` on launched work: the launch
 * outliers (short kernels, long launch calls, long launch delays), the time each stream's queue was
 * full, and the kernels attributed to each GPU user annotation; as table lines, JSON objects and
 * CSV files (gpu_report_internal.h). Times are ns in the result: tables scale them, JSON and CSV
 * give µs. Kernel and annotation names come from the trace and are escaped for each output.
 *
 * Invariants: a share of nothing is n/a (null, an empty field), never nan; a class with no launch
 * says so in words. */
#include <math.h>
#include <string.h>

#include "output/csv.h"
#include "output/escape.h"
#include "output/format.h"
#include "output/gpu_report_internal.h"

static double share_of(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : NAN; }

/* ---- launch outliers ---- */

/* One finding line: "312 of 4,480 launches (6.96%) waited over 100.000 us for the device: 48.200
 * ms of delay (...)." */
typedef struct phrase {
    const char *noun, *before, *after, *tail;
} phrase;

static void finding(FILE *out, const dfs_gpu_outlier_set *s, uint64_t launches, int64_t limit, const phrase *w)
{
    char a[32], b[32], c[32], p[16];
    fprintf(out, "  %s of %s %s (%s) %s %s%s", dfs_fmt_count(a, sizeof a, s->count),
            dfs_fmt_count(b, sizeof b, launches), w->noun, gpu_pct(p, sizeof p, share_of(s->count, launches)), w->before,
            dfs_fmt_duration(c, sizeof c, limit), w->after);
    if (s->count)
        fprintf(out, ": %s %s", dfs_fmt_duration(a, sizeof a, s->total_ns), w->tail);
    fputs(".\n", out);
}

void gpu_text_launch_findings(FILE *out, const dfs_gpu_rank *k)
{
    static const phrase delay = {"launches", "waited over", " for the device",
                                 "of delay (the device was busy or its queue full)"};
    static const phrase runtime = {"launches", "spent over", " in the launch call", "in those calls"};
    static const phrase shorter = {"kernels", "ran shorter than their launch call of at most", "",
                                   "in those calls (launch-bound: fuse them or use CUDA graphs)"};
    const dfs_gpu_launch_stats *l = &k->launch;
    uint64_t n = l->cpu_us.count;
    if (!n)
        return;
    finding(out, &l->outliers[DFS_GPU_OUT_DELAY], n, l->delay_ns, &delay);
    finding(out, &l->outliers[DFS_GPU_OUT_RUNTIME], n, l->runtime_ns, &runtime);
    finding(out, &l->outliers[DFS_GPU_OUT_SHORT], n, l->runtime_ns, &shorter);
}

static const char *const worst_heads[DFS_GPU_OUT_CLASSES] = {
    "short kernels (kernel shorter than its launch call), longest calls", "longest launch calls",
    "longest launch delays"};

/* The worst launches of one class, its measure first. */
static void worst_of(FILE *out, const dfs_gpu_rank *k, dfs_gpu_outlier_class c)
{
    const dfs_gpu_outlier_set *s = &k->launch.outliers[c];
    if (!s->count)
        return;
    size_t shown = s->count < DFS_GPU_OUTLIERS_SHOWN ? (size_t)s->count : DFS_GPU_OUTLIERS_SHOWN;
    fprintf(out, "  Rank %s, %s (%zu of %llu):\n", RANK(k), worst_heads[c], shown,
            (unsigned long long)s->count);
    fprintf(out, "    %12s %12s %12s %12s %14s  %s\n", c == DFS_GPU_OUT_DELAY ? "delay" : "call (CPU)",
            c == DFS_GPU_OUT_DELAY ? "call (CPU)" : "delay", "kernel (GPU)", "correlation", "at (from start)",
            "kernel");
    for (size_t i = 0; i < shown; i++) {
        const dfs_gpu_launch_outlier *r = &s->rows[i];
        char a[32], b[32], d[32], t[32];
        int64_t first = c == DFS_GPU_OUT_DELAY ? r->delay_ns : r->cpu_ns, second = c == DFS_GPU_OUT_DELAY ? r->cpu_ns : r->delay_ns;
        fprintf(out, "    %12s %12s %12s %12lld %14s  ", dfs_fmt_duration(a, sizeof a, first),
                dfs_fmt_duration(b, sizeof b, second), dfs_fmt_duration(d, sizeof d, r->gpu_ns), (long long)r->corr,
                dfs_fmt_duration(t, sizeof t, r->launch_ts - k->first_ts));
        dfs_term_puts(out, r->name);
        fputc('\n', out);
    }
}

void gpu_text_launch_worst(FILE *out, const dfs_gpu_rank *k)
{
    static const dfs_gpu_outlier_class order[] = {DFS_GPU_OUT_DELAY, DFS_GPU_OUT_RUNTIME, DFS_GPU_OUT_SHORT};
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        worst_of(out, k, order[i]);
}

static void json_outlier_row(dfs_jw *w, const dfs_gpu_launch_outlier *r)
{
    dfs_jw_object(w, NULL);
    dfs_jw_cstr(w, "name", r->name);
    dfs_jw_int(w, "correlation", r->corr);
    dfs_jw_double(w, "launch_ts_us", gpu_us(r->launch_ts));
    dfs_jw_double(w, "cpu_duration_us", gpu_us(r->cpu_ns));
    dfs_jw_double(w, "gpu_duration_us", gpu_us(r->gpu_ns));
    dfs_jw_double(w, "launch_delay_us", gpu_us(r->delay_ns));
    dfs_jw_end(w);
}

void gpu_json_launch_outliers(dfs_jw *w, const dfs_gpu_launch_stats *l)
{
    dfs_jw_object(w, "outliers");
    dfs_jw_double(w, "runtime_threshold_us", gpu_us(l->runtime_ns));
    dfs_jw_double(w, "delay_threshold_us", gpu_us(l->delay_ns));
    for (int c = 0; c < DFS_GPU_OUT_CLASSES; c++) {
        const dfs_gpu_outlier_set *s = &l->outliers[c];
        dfs_jw_object(w, dfs_gpu_outlier_class_name((dfs_gpu_outlier_class)c));
        dfs_jw_uint(w, "count", s->count);
        dfs_jw_double(w, "share_pct", share_of(s->count, l->cpu_us.count));
        dfs_jw_double(w, "total_us", gpu_us(s->total_ns));
        dfs_jw_array(w, "worst");
        for (size_t i = 0; i < s->count && i < DFS_GPU_OUTLIERS_SHOWN; i++)
            json_outlier_row(w, &s->rows[i]);
        dfs_jw_end(w);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

bool gpu_has_launch_outliers(const dfs_gpu_result *r)
{
    if (!(r->sections & DFS_GPU_SEC_LAUNCH))
        return false;
    for (size_t i = 0; i < r->nranks; i++)
        for (int c = 0; c < DFS_GPU_OUT_CLASSES; c++)
            if (r->ranks[i].launch.outliers[c].count)
                return true;
    return false;
}

void gpu_csv_launch_outliers(FILE *out, const dfs_gpu_result *r)
{
    fputs(",rank,class,name,correlation,launch_ts(us),cpu_duration,gpu_duration,launch_delay\n", out);
    size_t row = 0;
    for (size_t i = 0; i < r->nranks; i++)
        for (int c = 0; c < DFS_GPU_OUT_CLASSES; c++) {
            const dfs_gpu_outlier_set *s = &r->ranks[i].launch.outliers[c];
            for (size_t j = 0; j < s->count; j++) {
                const dfs_gpu_launch_outlier *x = &s->rows[j];
                fprintf(out, "%zu,%lld,%s,", row++, (long long)r->ranks[i].rank,
                        dfs_gpu_outlier_class_name((dfs_gpu_outlier_class)c));
                dfs_csv_text(out, x->name);
                fprintf(out, ",%lld", (long long)x->corr);
                gpu_py_num(out, gpu_us(x->launch_ts)), gpu_py_num(out, gpu_us(x->cpu_ns));
                gpu_py_num(out, gpu_us(x->gpu_ns)), gpu_py_num(out, gpu_us(x->delay_ns));
                fputc('\n', out);
            }
        }
}

/* ---- time blocked on a full queue ---- */

void gpu_text_queue_blocked(FILE *out, const dfs_gpu_result *r, const dfs_gpu_rank *k)
{
    char a[32], b[32], p[16];
    dfs_fmt_count(a, sizeof a, k->queue_full);
    if (!k->nblocked) {
        fprintf(out, "  No stream held %s or more launched kernels: the host never blocked on a full queue.\n", a);
        return;
    }
    for (size_t i = 0; i < k->nblocked; i++) {
        const dfs_gpu_queue_blocked *q = &k->blocked[i];
        fprintf(out, "  Stream %lld held %s or more launched kernels for %s (%s of the rank's trace).\n",
                (long long)q->stream, a, dfs_fmt_duration(b, sizeof b, q->blocked_ns),
                gpu_pct(p, sizeof p, 100 * q->relative));
    }
    fprintf(out, "  (a launch into a full queue blocks the host in the launch call%s)\n",
            r->semantics == DFS_GPU_HTA ? "; hta: HTA's one row per rank, the last stream that reached it" : "");
}

void gpu_json_queue_blocked(dfs_jw *w, const dfs_gpu_rank *k)
{
    dfs_jw_object(w, "queue_blocked");
    dfs_jw_uint(w, "threshold", k->queue_full);
    dfs_jw_array(w, "streams");
    for (size_t i = 0; i < k->nblocked; i++) {
        dfs_jw_object(w, NULL);
        dfs_jw_int(w, "stream", k->blocked[i].stream);
        dfs_jw_double(w, "blocked_us", gpu_us(k->blocked[i].blocked_ns));
        dfs_jw_double(w, "relative", k->blocked[i].relative);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_end(w);
}

bool gpu_has_queue_blocked(const dfs_gpu_result *r)
{
    for (size_t i = 0; (r->sections & DFS_GPU_SEC_QUEUE) && i < r->nranks; i++)
        if (r->ranks[i].nblocked)
            return true;
    return false;
}

void gpu_csv_queue_blocked(FILE *out, const dfs_gpu_result *r)
{
    fputs(",rank,stream,duration_at_max_queue_length,relative_duration_at_max_queue_length\n", out);
    size_t row = 0;
    for (size_t i = 0; i < r->nranks; i++)
        for (size_t j = 0; j < r->ranks[i].nblocked; j++) {
            const dfs_gpu_queue_blocked *q = &r->ranks[i].blocked[j];
            fprintf(out, "%zu,%lld,%lld", row++, (long long)r->ranks[i].rank, (long long)q->stream);
            gpu_py_num(out, gpu_us(q->blocked_ns)), gpu_py_num(out, q->relative);
            fputc('\n', out);
        }
}

/* ---- kernels per GPU user annotation ---- */

static int64_t annotated_total(const dfs_gpu_rank *k, uint64_t *kernels)
{
    int64_t ns = 0;
    *kernels = 0;
    for (size_t i = 0; i < k->nannotated; i++)
        ns += k->annotated[i].kernel_ns, *kernels += k->annotated[i].kernels;
    return ns;
}

void gpu_text_annotated(FILE *out, const dfs_gpu_rank *k, size_t names)
{
    if (!k->nannotated)
        return;
    uint64_t all;
    int64_t total = annotated_total(k, &all);
    const dfs_gpu_annotated *none = &k->annotated[k->nannotated - 1];
    char a[32], b[32], c[32], p[16];
    fprintf(out, "\nRank %s, device time by GPU user annotation (each kernel to the shortest annotation of its"
                 " lane that overlaps it):\n", RANK(k));
    fprintf(out, "  %s of the kernel time (%s of %s kernels) ran inside annotations; %s in none.\n",
            gpu_pct(p, sizeof p, total ? 100.0 * (double)(total - none->kernel_ns) / (double)total : NAN),
            dfs_fmt_count(a, sizeof a, all - none->kernels), dfs_fmt_count(b, sizeof b, all),
            dfs_fmt_duration(c, sizeof c, none->kernel_ns));
    fprintf(out, "  %12s %8s %8s  %s\n", "kernel time", "share", "kernels", "annotation");
    size_t named = k->nannotated - 1;
    for (size_t i = 0; i < k->nannotated; i++) {
        const dfs_gpu_annotated *x = &k->annotated[i];
        if (x->name && names && i >= names)
            continue;
        fprintf(out, "  %12s %8s %8llu  ", dfs_fmt_duration(a, sizeof a, x->kernel_ns),
                gpu_pct(p, sizeof p, total ? 100.0 * (double)x->kernel_ns / (double)total : NAN),
                (unsigned long long)x->kernels);
        if (x->name)
            dfs_term_puts(out, x->name);
        else
            fputs("(no annotation)", out);
        fputc('\n', out);
    }
    if (names && named > names)
        fprintf(out, "  (%zu more annotations: --format json or csv for all)\n", named - names);
}

void gpu_json_annotated(dfs_jw *w, const dfs_gpu_rank *k)
{
    if (!k->nannotated)
        return;
    const dfs_gpu_annotated *none = &k->annotated[k->nannotated - 1];
    dfs_jw_object(w, "annotation_kernels");
    dfs_jw_array(w, "annotated");
    for (size_t i = 0; i + 1 < k->nannotated; i++) {
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "name", k->annotated[i].name);
        dfs_jw_uint(w, "kernels", k->annotated[i].kernels);
        dfs_jw_double(w, "kernel_us", gpu_us(k->annotated[i].kernel_ns));
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_object(w, "unannotated");
    dfs_jw_uint(w, "kernels", none->kernels);
    dfs_jw_double(w, "kernel_us", gpu_us(none->kernel_ns));
    dfs_jw_end(w);
    dfs_jw_end(w);
}

void gpu_csv_annotated(FILE *out, const dfs_gpu_result *r)
{
    fputs(",rank,annotated,annotation,kernels,kernel_time(us)\n", out);
    size_t row = 0;
    for (size_t i = 0; i < r->nranks; i++)
        for (size_t j = 0; j < r->ranks[i].nannotated; j++) {
            const dfs_gpu_annotated *x = &r->ranks[i].annotated[j];
            fprintf(out, "%zu,%lld,%s,", row++, (long long)r->ranks[i].rank, x->name ? "True" : "False");
            if (x->name)
                dfs_csv_text(out, x->name);
            fprintf(out, ",%llu", (unsigned long long)x->kernels);
            gpu_py_num(out, gpu_us(x->kernel_ns));
            fputc('\n', out);
        }
}
