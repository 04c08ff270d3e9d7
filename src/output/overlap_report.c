/* overlap_report.c - tables, JSON and CSV of an overlap analysis (overlap_report.h). */
#include "output/overlap_report.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "output/csv.h"
#include "output/escape.h"
#include "output/format.h"
#include "output/json.h"

#define MAX_FIELDS (24 + 8 * DFS_OVERLAP_MAX_EXTRA)

static double secs(int64_t ns)
{
    return (double)ns / 1e9;
}

/* ----- number formats (G0's) -------------------------------------------------------------------- */

/* v rounded to 3 significant digits. */
static double sig3(double v)
{
    if (!(v > 0) || !isfinite(v))
        return v;
    double scale = pow(10, floor(log10(v)) - 2);
    return round(v / scale) * scale;
}

static void trimmed(char *buf, size_t n, double v, const char *suffix)
{
    char t[48];
    snprintf(t, sizeof t, "%.2f", v);
    char *dot = strchr(t, '.');
    if (dot) {
        char *e = t + strlen(t) - 1;
        while (e > dot && *e == '0')
            *e-- = '\0';
        if (e == dot)
            *e = '\0';
    }
    snprintf(buf, n, "%s%s", t, suffix);
}

char *dfs_overlap_fmt_count(char *buf, size_t n, uint64_t v)
{
    static const char *const units[] = {"", "K", "M", "B", "T"};
    double x = sig3((double)v);
    int u = 0;
    while (x >= 1000 && u < 4) {
        x /= 1000;
        u++;
    }
    trimmed(buf, n, sig3(x), units[u]);
    return buf;
}

/* ----- the fields of a unit ------------------------------------------------------------------------ */

typedef struct field {
    char name[96];
    bool count;   /* an event count (u), else seconds (v) */
    double v;     /* NAN: null */
    uint64_t u;
} field;

static size_t put_s(field *f, size_t n, const char *name, int64_t ns)
{
    snprintf(f[n].name, sizeof f[n].name, "%s", name);
    f[n].count = false;
    f[n].v = secs(ns);
    return n + 1;
}

static size_t put_u(field *f, size_t n, const char *name, uint64_t u)
{
    snprintf(f[n].name, sizeof f[n].name, "%s", name);
    f[n].count = true;
    f[n].u = u;
    return n + 1;
}

static size_t extra_fields(const dfs_overlap_result *r, const dfs_overlap_values *v, bool counts, field *f, size_t n)
{
    char b[96];
    for (size_t c = DFS_OVC_EXTRA; c < r->nclasses; c++) {
        const char *x = r->class_names[c];
        const dfs_overlap_class_values *cv = &v->cls[c];
        snprintf(b, sizeof b, "%s_s", x);
        n = put_s(f, n, b, cv->time);
        snprintf(b, sizeof b, "unoverlapped_%s_s", x);
        n = put_s(f, n, b, cv->unoverlapped);
        snprintf(b, sizeof b, "unoverlapped_%s_compute_s", x);
        n = put_s(f, n, b, cv->compute_unoverlapped);
        snprintf(b, sizeof b, "%s_compute_overlap_s", x);
        n = put_s(f, n, b, cv->with_compute);
        if (!counts)
            continue;
        snprintf(b, sizeof b, "%s_sum_s", x);
        n = put_s(f, n, b, cv->sum_dur);
        snprintf(b, sizeof b, "%s_events", x);
        n = put_u(f, n, b, cv->events);
    }
    return n;
}

/* The fields of one unit, bin or segment, in the documented order. Segments have no counts. */
static size_t fields_of(const dfs_overlap_result *r, const dfs_overlap_values *v, bool counts, field *f)
{
    const dfs_overlap_class_values *C = &v->cls[DFS_OVC_COMPUTE], *I = &v->cls[DFS_OVC_IO],
                                   *A = &v->cls[DFS_OVC_APP_IO];
    size_t n = 0;
    n = put_s(f, n, "total_time_s", v->total_time);
    n = put_s(f, n, "app_io_s", A->time);
    n = put_s(f, n, "unoverlapped_app_io_s", A->unoverlapped);
    n = put_s(f, n, "unoverlapped_app_compute_s", A->compute_unoverlapped);
    n = put_s(f, n, "compute_s", C->time);
    n = put_s(f, n, "io_s", I->time);
    n = put_s(f, n, "unoverlapped_io_s", I->unoverlapped);
    n = put_s(f, n, "unoverlapped_compute_s", I->compute_unoverlapped);
    n = put_s(f, n, "io_compute_overlap_s", I->with_compute);
    n = put_s(f, n, "app_io_compute_overlap_s", A->with_compute);
    n = put_s(f, n, "overlap_fraction_io", 0);
    f[n - 1].v = I->time ? (double)I->with_compute / (double)I->time : NAN;
    if (counts) {
        n = put_s(f, n, "compute_sum_s", C->sum_dur);
        n = put_s(f, n, "io_sum_s", I->sum_dur);
        n = put_s(f, n, "app_io_sum_s", A->sum_dur);
        n = put_u(f, n, "events", v->events);
        n = put_u(f, n, "compute_events", C->events);
        n = put_u(f, n, "io_events", I->events);
        n = put_u(f, n, "app_io_events", A->events);
    }
    return extra_fields(r, v, counts, f, n);
}

/* ----- JSON ----------------------------------------------------------------------------------------- */

static void json_fields(dfs_jw *w, const dfs_overlap_result *r, const dfs_overlap_values *v, bool counts)
{
    field f[MAX_FIELDS];
    size_t n = fields_of(r, v, counts, f);
    for (size_t i = 0; i < n; i++) {
        if (f[i].count)
            dfs_jw_uint(w, f[i].name, f[i].u);
        else
            dfs_jw_double(w, f[i].name, f[i].v); /* NAN: null */
    }
}

static double rel_s(const dfs_overlap_result *r, int64_t t)
{
    return secs(t - r->origin_ns);
}

/* Where bin k starts (and bin k - 1 ends), in seconds from the origin. */
static double bin_edge_s(const dfs_overlap_result *r, int64_t k)
{
    return secs((int64_t)((__int128)k * r->granularity_ns));
}

static void json_segments(dfs_jw *w, const dfs_overlap_result *r, const char *key, const dfs_overlap_segment *s,
                          size_t n, bool totals)
{
    dfs_jw_array(w, key);
    for (size_t i = 0; i < n; i++) {
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "label", s[i].label);
        if (totals)
            dfs_jw_uint(w, "processes", s[i].units);
        dfs_jw_double(w, "start_s", rel_s(r, s[i].v.start));
        dfs_jw_double(w, "end_s", rel_s(r, s[i].v.end));
        json_fields(w, r, &s[i].v, false);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_units(dfs_jw *w, const dfs_overlap_result *r, const char *key, const dfs_overlap_unit *u, size_t n)
{
    dfs_jw_object(w, key);
    for (size_t i = 0; i < n; i++) {
        dfs_jw_object(w, u[i].key);
        dfs_jw_cstr(w, "host", u[i].host);
        dfs_jw_cstr(w, "pid", u[i].pid);
        if (u[i].tid)
            dfs_jw_cstr(w, "tid", u[i].tid);
        dfs_jw_double(w, "start_s", rel_s(r, u[i].v.start));
        dfs_jw_double(w, "end_s", rel_s(r, u[i].v.end));
        json_fields(w, r, &u[i].v, true);
        if (u[i].nepochs)
            json_segments(w, r, "epochs", u[i].epochs, u[i].nepochs, false);
        if (u[i].nsteps)
            json_segments(w, r, "steps", u[i].steps, u[i].nsteps, false);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_analysis(dfs_jw *w, const dfs_overlap_result *r, const dfs_overlap_report_context *ctx)
{
    dfs_jw_object(w, "analysis");
    dfs_jw_cstr(w, "tool", "dfscope " DFS_VERSION_STRING);
    dfs_jw_cstr(w, "preset", r->preset->name);
    dfs_jw_cstr(w, "preset_source", ctx->preset_source);
    dfs_jw_cstr(w, "scope", dfs_overlap_scope_name(r->scope));
    dfs_jw_bool(w, "post_read", r->post_read);
    dfs_jw_double(w, "granularity_s", r->granularity_ns ? secs(r->granularity_ns) : NAN);
    dfs_jw_int(w, "origin_ns", r->origin_ns);
    dfs_jw_object(w, "classes");
    for (size_t c = 0; c < r->nclasses; c++)
        dfs_jw_cstr(w, r->class_names[c], r->class_texts[c]);
    dfs_jw_end(w);
    dfs_jw_cstr(w, "epochs", r->epochs_text);
    dfs_jw_cstr(w, "steps", r->steps_text);
    dfs_jw_bool(w, "streamed", r->streamed);
    dfs_jw_uint(w, "flushes", r->flushes);
    dfs_jw_bool(w, "second_pass", ctx->reran);
    dfs_jw_cstr(w, "second_pass_reason", ctx->reran ? ctx->rerun_reason : NULL);
    dfs_jw_end(w);
}

static void json_counts(dfs_jw *w, const dfs_overlap_result *r)
{
    char b[32];
    dfs_jw_object(w, "allocation");
    dfs_jw_uint(w, "nodes", r->nodes);
    dfs_jw_uint(w, "processes", r->processes);
    dfs_jw_uint(w, "compute_threads", r->compute_threads);
    dfs_jw_uint(w, "io_threads", r->io_threads);
    dfs_jw_uint(w, "events", r->events);
    dfs_jw_cstr(w, "events_text", dfs_overlap_fmt_count(b, sizeof b, r->events));
    dfs_jw_end(w);
    dfs_jw_object(w, "dataset");
    dfs_jw_uint(w, "files", r->files);
    dfs_jw_end(w);
    dfs_jw_object(w, "records");
    dfs_jw_uint(w, "without_duration", r->no_duration);
    dfs_jw_uint(w, "other_phases", r->other_phases);
    dfs_jw_uint(w, "bad_time", r->bad_time);
    dfs_jw_uint(w, "negative_durations", r->negative_durations);
    dfs_jw_uint(w, "dropped_ignored_files", r->dropped_files);
    dfs_jw_uint(w, "dropped_ignored_functions", r->dropped_functions);
    dfs_jw_end(w);
}

static void json_summary(dfs_jw *w, const dfs_overlap_result *r)
{
    dfs_jw_object(w, "summary");
    dfs_jw_uint(w, "units", r->summary_units);
    json_fields(w, r, &r->summary, true);
    dfs_jw_object(w, "max");
    json_fields(w, r, &r->max, true);
    dfs_jw_end(w);
    dfs_jw_object(w, "min");
    json_fields(w, r, &r->min, true);
    dfs_jw_end(w);
    dfs_jw_end(w);
    if (r->have_global) {
        dfs_jw_object(w, "global");
        json_fields(w, r, &r->global, true);
        dfs_jw_end(w);
    } else {
        dfs_jw_null(w, "global");
    }
}

static void json_bins(dfs_jw *w, const dfs_overlap_result *r)
{
    dfs_jw_array(w, "bins");
    for (size_t i = 0; i < r->nbins; i++) {
        const dfs_overlap_bin *b = &r->bins[i];
        dfs_jw_object(w, NULL);
        dfs_jw_int(w, "index", b->index);
        dfs_jw_double(w, "start_s", bin_edge_s(r, b->index));
        dfs_jw_double(w, "end_s", bin_edge_s(r, b->index + 1));
        json_fields(w, r, &b->v, true);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_functions(dfs_jw *w, const dfs_overlap_result *r)
{
    dfs_jw_object(w, "functions");
    for (size_t i = 0; i < r->nfunctions; i++) {
        const dfs_overlap_function *f = &r->functions[i];
        dfs_jw_object(w, f->name);
        dfs_jw_uint(w, "count", f->count);
        dfs_jw_uint(w, "sized", f->sized);
        dfs_jw_uint(w, "bytes", f->bytes);
        dfs_jw_double(w, "min", f->min);
        dfs_jw_double(w, "p25", f->p25);
        dfs_jw_double(w, "mean", f->mean);
        dfs_jw_double(w, "median", f->median);
        dfs_jw_double(w, "p75", f->p75);
        dfs_jw_double(w, "max", f->max);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

void dfs_overlap_write_json(FILE *out, const dfs_overlap_result *r, const dfs_overlap_report_context *ctx)
{
    dfs_jw w;
    dfs_jw_init(&w, out, false);
    dfs_jw_object(&w, NULL);
    dfs_jw_cstr(&w, "schema_version", "1");
    dfs_jw_cstr(&w, "schema", DFS_OVERLAP_SCHEMA);
    dfs_jw_cstr(&w, "method", dfs_overlap_method_name(r->method));
    json_analysis(&w, r, ctx);
    json_counts(&w, r);
    json_summary(&w, r);
    json_units(&w, r, "per_process", r->per_process, r->nprocesses);
    if (r->scope == DFS_OVERLAP_THREAD)
        json_units(&w, r, "per_thread", r->per_thread, r->nthreads);
    json_segments(&w, r, "epochs", r->epochs, r->nepochs, true);
    json_segments(&w, r, "steps", r->steps, r->nsteps, true);
    json_bins(&w, r);
    json_functions(&w, r);
    if (r->method == DFS_OVERLAP_APPROXIMATE) {
        dfs_jw_double(&w, "max_bin_thread_io_s", secs(r->max_bin_thread_io));
        dfs_jw_double(&w, "suggested_granularity_s",
                      r->suggested_granularity_ns ? secs(r->suggested_granularity_ns) : NAN);
    }
    dfs_jw_end(&w);
    fputc('\n', out);
}

/* ----- CSV ------------------------------------------------------------------------------------------ */

static void csv_header(FILE *out, const dfs_overlap_result *r, const char *lead, bool counts)
{
    field f[MAX_FIELDS];
    size_t n = fields_of(r, &r->global, counts, f);
    fputs(lead, out);
    for (size_t i = 0; i < n; i++) {
        fputc(',', out);
        dfs_csv_text(out, f[i].name);
    }
    fputc('\n', out);
}

static void csv_values(FILE *out, const dfs_overlap_result *r, const dfs_overlap_values *v, bool counts)
{
    field f[MAX_FIELDS];
    size_t n = fields_of(r, v, counts, f);
    for (size_t i = 0; i < n; i++) {
        if (f[i].count)
            fprintf(out, ",%" PRIu64, f[i].u);
        else
            dfs_csv_num(out, f[i].v);
    }
    fputc('\n', out);
}

static void csv_units(FILE *out, const dfs_overlap_result *r)
{
    csv_header(out, r, "row,scope,host,pid,tid", true);
    const dfs_overlap_unit *lists[2] = {r->per_process, r->per_thread};
    size_t counts[2] = {r->nprocesses, r->scope == DFS_OVERLAP_THREAD ? r->nthreads : 0};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < counts[k]; i++) {
            const dfs_overlap_unit *u = &lists[k][i];
            dfs_csv_text(out, u->key);
            fputs(k ? ",thread," : ",process,", out);
            dfs_csv_text(out, u->host);
            fputc(',', out);
            dfs_csv_text(out, u->pid);
            fputc(',', out);
            dfs_csv_text(out, u->tid);
            csv_values(out, r, &u->v, true);
        }
    const char *names[4] = {"summary", "max", "min", "global"};
    const dfs_overlap_values *vals[4] = {&r->summary, &r->max, &r->min, &r->global};
    for (int i = 0; i < (r->have_global ? 4 : 3); i++) {
        fprintf(out, "%s,%s,,,", names[i], i == 3 ? "global" : dfs_overlap_scope_name(r->scope));
        csv_values(out, r, vals[i], true);
    }
}

static void csv_segment_rows(FILE *out, const dfs_overlap_result *r, const char *unit, const dfs_overlap_segment *s,
                             size_t n)
{
    for (size_t i = 0; i < n; i++) {
        dfs_csv_text(out, unit);
        fputc(',', out);
        dfs_csv_text(out, s[i].label);
        fprintf(out, ",%" PRIu64, s[i].units);
        dfs_csv_num(out, rel_s(r, s[i].v.start));
        dfs_csv_num(out, rel_s(r, s[i].v.end));
        csv_values(out, r, &s[i].v, false);
    }
}

static void csv_segments(FILE *out, const dfs_overlap_result *r, bool steps)
{
    csv_header(out, r, "unit,label,processes,start_s,end_s", false);
    for (size_t i = 0; i < r->nprocesses; i++) {
        const dfs_overlap_unit *u = &r->per_process[i];
        csv_segment_rows(out, r, u->key, steps ? u->steps : u->epochs, steps ? u->nsteps : u->nepochs);
    }
    csv_segment_rows(out, r, "total", steps ? r->steps : r->epochs, steps ? r->nsteps : r->nepochs);
}

static void csv_bins(FILE *out, const dfs_overlap_result *r)
{
    csv_header(out, r, "bin,start_s,end_s", true);
    for (size_t i = 0; i < r->nbins; i++) {
        const dfs_overlap_bin *b = &r->bins[i];
        fprintf(out, "%" PRId64, b->index);
        dfs_csv_num(out, bin_edge_s(r, b->index));
        dfs_csv_num(out, bin_edge_s(r, b->index + 1));
        csv_values(out, r, &b->v, true);
    }
}

static void csv_functions(FILE *out, const dfs_overlap_result *r)
{
    fputs("function,count,sized,bytes,min,p25,mean,median,p75,max\n", out);
    for (size_t i = 0; i < r->nfunctions; i++) {
        const dfs_overlap_function *f = &r->functions[i];
        dfs_csv_text(out, f->name);
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, f->count, f->sized, f->bytes);
        double v[6] = {f->min, f->p25, f->mean, f->median, f->p75, f->max};
        for (int k = 0; k < 6; k++)
            dfs_csv_num(out, v[k]);
        fputc('\n', out);
    }
}

const char *dfs_overlap_csv_name(dfs_overlap_csv t)
{
    static const char *const names[DFS_OVERLAP_CSV__COUNT] = {"overlap.csv", "bins.csv", "epochs.csv", "steps.csv",
                                                              "functions.csv"};
    return (unsigned)t < DFS_OVERLAP_CSV__COUNT ? names[t] : "?";
}

bool dfs_overlap_csv_present(const dfs_overlap_result *r, dfs_overlap_csv t)
{
    switch (t) {
    case DFS_OVERLAP_CSV_BINS: return r->nbins > 0;
    case DFS_OVERLAP_CSV_EPOCHS: return r->nepochs > 0;
    case DFS_OVERLAP_CSV_STEPS: return r->nsteps > 0;
    default: return true;
    }
}

void dfs_overlap_write_csv(FILE *out, const dfs_overlap_result *r, dfs_overlap_csv t)
{
    switch (t) {
    case DFS_OVERLAP_CSV_UNITS: csv_units(out, r); break;
    case DFS_OVERLAP_CSV_BINS: csv_bins(out, r); break;
    case DFS_OVERLAP_CSV_EPOCHS: csv_segments(out, r, false); break;
    case DFS_OVERLAP_CSV_STEPS: csv_segments(out, r, true); break;
    case DFS_OVERLAP_CSV_FUNCTIONS: csv_functions(out, r); break;
    default: break;
    }
}

/* ----- the console summary ------------------------------------------------------------------------ */

static const char *method_text(dfs_overlap_method m)
{
    switch (m) {
    case DFS_OVERLAP_APPROXIMATE:
        return "approximate (the reference's estimate: per start bin, the busiest thread of each class)";
    case DFS_OVERLAP_G0_EXACT:
        return "g0-exact (the reference's per-bin unions of all processes by start bin; counts spills twice)";
    default:
        return "exact (interval algebra: unions, intersections and differences per unit)";
    }
}

static void text_header(FILE *out, const dfs_overlap_result *r, const dfs_overlap_report_context *ctx)
{
    char b[32];
    fprintf(out, "method %s\nscope %s, preset %s (%s), %s\n", method_text(r->method), dfs_overlap_scope_name(r->scope),
            r->preset->name, ctx->preset_source,
            r->post_read ? "after the preset's post-read filter" : "raw events (no post-read filter)");
    fprintf(out, "classes (compute > io > app_io by priority; extra classes independent):\n");
    for (size_t c = 0; c < r->nclasses; c++)
        fprintf(out, "  %-12s %-9s %s\n", r->class_names[c], dfs_fmt_count(b, sizeof b, r->global.cls[c].events),
                r->class_texts[c] ? r->class_texts[c] : "(none)");
    if (r->epochs_text)
        fprintf(out, "  %-12s %-9zu %s\n", "epochs", r->nepochs, r->epochs_text);
    if (r->steps_text)
        fprintf(out, "  %-12s %-9zu %s\n", "steps", r->nsteps, r->steps_text);
    if (r->granularity_ns)
        fprintf(out, "time bins of %s%s\n", dfs_fmt_duration(b, sizeof b, r->granularity_ns),
                r->method == DFS_OVERLAP_EXACT ? " (unions clipped to each bin)" : " (events in the bin of their start)");
    if (ctx->reran)
        fprintf(out, "read twice: %s\n", ctx->rerun_reason ? ctx->rerun_reason : "");
    if (r->negative_durations || r->bad_time || r->dropped_files || r->dropped_functions)
        fprintf(out,
                "records: %" PRIu64 " negative durations counted as 0, %" PRIu64 " with bad times skipped, %" PRIu64
                " on ignored files and %" PRIu64 " ignored functions dropped\n",
                r->negative_durations, r->bad_time, r->dropped_files, r->dropped_functions);
}

static void text_allocation(FILE *out, const dfs_overlap_result *r)
{
    char b[32], k[32];
    fprintf(out, "\nAllocation\n");
    fprintf(out, "  %-28s %s\n", "Nodes", dfs_fmt_count(b, sizeof b, r->nodes));
    fprintf(out, "  %-28s %s\n", "Processes", dfs_fmt_count(b, sizeof b, r->processes));
    fprintf(out, "  %-28s %s\n", "Thread allocations: Compute", dfs_fmt_count(b, sizeof b, r->compute_threads));
    fprintf(out, "  %-28s %s\n", "Thread allocations: I/O", dfs_fmt_count(b, sizeof b, r->io_threads));
    fprintf(out, "  %-28s %s (%s)\n", "Events Recorded", dfs_overlap_fmt_count(k, sizeof k, r->events),
            dfs_fmt_count(b, sizeof b, r->events));
    fprintf(out, "Dataset\n  %-28s %s\n", "Files", dfs_fmt_count(b, sizeof b, r->files));
}

typedef int64_t (*class_get)(const dfs_overlap_class_values *cv);
static int64_t get_time(const dfs_overlap_class_values *cv) { return cv->time; }
static int64_t get_unov(const dfs_overlap_class_values *cv) { return cv->unoverlapped; }
static int64_t get_cunov(const dfs_overlap_class_values *cv) { return cv->compute_unoverlapped; }
static int64_t get_with(const dfs_overlap_class_values *cv) { return cv->with_compute; }
static int64_t get_sum(const dfs_overlap_class_values *cv) { return cv->sum_dur; }

/* A duration cell of the console tables (output/format.h: each value in its own unit). */
static char *dur(char *buf, size_t n, int64_t ns)
{
    return dfs_fmt_seconds(buf, n, secs(ns));
}

static void split_row(FILE *out, const dfs_overlap_result *r, const char *label, size_t c, class_get get)
{
    char s[32], x[32], m[32], g[32] = "-";
    if (r->scope == DFS_OVERLAP_GLOBAL) { /* one unit, the run: its value once */
        fprintf(out, "  %-34s %14s\n", label, dur(s, sizeof s, get(&r->summary.cls[c])));
        return;
    }
    if (r->have_global || get == get_sum)
        dur(g, sizeof g, get(&r->global.cls[c]));
    fprintf(out, "  %-34s %14s %12s %12s %12s\n", label, dur(s, sizeof s, get(&r->summary.cls[c])),
            dur(x, sizeof x, get(&r->max.cls[c])), dur(m, sizeof m, get(&r->min.cls[c])), g);
}

static void text_split(FILE *out, const dfs_overlap_result *r)
{
    char head[48], a[32], b[32], m[32], d[32];
    bool global = r->scope == DFS_OVERLAP_GLOBAL;
    if (global)
        snprintf(head, sizeof head, "global");
    else
        snprintf(head, sizeof head, "sum (%" PRIu64 " %s)", r->summary_units,
                 r->scope == DFS_OVERLAP_THREAD ? "threads" : "processes");
    if (global) {
        fprintf(out, "\nSplit of Time in application\n  %-34s %14s\n", "", head);
        fprintf(out, "  %-34s %14s\n", "Total Time", dur(a, sizeof a, r->summary.total_time));
    } else {
        fprintf(out, "\nSplit of Time in application\n  %-34s %14s %12s %12s %12s\n", "", head, "max", "min",
                "global");
        fprintf(out, "  %-34s %14s %12s %12s %12s\n", "Total Time", dur(a, sizeof a, r->summary.total_time),
                dur(b, sizeof b, r->max.total_time), dur(m, sizeof m, r->min.total_time),
                dur(d, sizeof d, r->global.total_time));
    }
    split_row(out, r, "Overall App Level I/O", DFS_OVC_APP_IO, get_time);
    split_row(out, r, "Unoverlapped App I/O", DFS_OVC_APP_IO, get_unov);
    split_row(out, r, "Unoverlapped App Compute", DFS_OVC_APP_IO, get_cunov);
    split_row(out, r, "Compute", DFS_OVC_COMPUTE, get_time);
    split_row(out, r, "Overall I/O", DFS_OVC_IO, get_time);
    split_row(out, r, "Unoverlapped I/O", DFS_OVC_IO, get_unov);
    split_row(out, r, "Unoverlapped Compute", DFS_OVC_IO, get_cunov);
    split_row(out, r, "I/O-Compute Overlap", DFS_OVC_IO, get_with);
    split_row(out, r, "App I/O-Compute Overlap", DFS_OVC_APP_IO, get_with);
    split_row(out, r, "Sum of durations: Compute", DFS_OVC_COMPUTE, get_sum);
    split_row(out, r, "Sum of durations: I/O", DFS_OVC_IO, get_sum);
    split_row(out, r, "Sum of durations: App I/O", DFS_OVC_APP_IO, get_sum);
    for (size_t c = DFS_OVC_EXTRA; c < r->nclasses; c++) {
        char label[128];
        const char *x = r->class_names[c];
        split_row(out, r, x, c, get_time);
        snprintf(label, sizeof label, "Unoverlapped %s", x);
        split_row(out, r, label, c, get_unov);
        snprintf(label, sizeof label, "Unoverlapped Compute vs %s", x);
        split_row(out, r, label, c, get_cunov);
        snprintf(label, sizeof label, "%s-Compute Overlap", x);
        split_row(out, r, label, c, get_with);
    }
    fprintf(out, global ? "  (Total Time: the run's span, first start to last end)\n"
                        : "  (Total Time: the run's span, first start to last end; max and min: the units' spans)\n");
    if (!r->have_global && !global)
        fprintf(out, "  (global: not computed; --global adds it, with memory for the run's busy periods)\n");
}

/* Two header lines, the words a reader needs; unit_legend says what they mean. */
static void unit_columns(FILE *out, const char *first, int width)
{
    fprintf(out, "  %-*s %12s %12s %12s %12s %12s %12s %12s %12s\n", width, first, "span", "compute", "I/O", "I/O",
            "compute", "app I/O", "app I/O", "compute");
    fprintf(out, "  %-*s %12s %12s %12s %12s %12s %12s %12s %12s\n", width, "", "(wall)", "", "", "alone", "w/o I/O", "",
            "alone", "w/o app I/O");
}

/* What the columns hold, under a table; `summed` names what the class columns add up. */
static void unit_legend(FILE *out, const char *summed)
{
    fprintf(out, "  (span: the wall time, first start to last end; the other columns: the time some event of the "
                 "class runs%s;\n   alone: not overlapped by compute; w/o I/O: compute not overlapped by I/O)\n",
            summed);
}

static void unit_row(FILE *out, const char *name, int width, const dfs_overlap_values *v)
{
    const dfs_overlap_class_values *C = &v->cls[DFS_OVC_COMPUTE], *I = &v->cls[DFS_OVC_IO],
                                   *A = &v->cls[DFS_OVC_APP_IO];
    fputs("  ", out);
    dfs_term_pad(out, name, strlen(name), (size_t)width); /* unit keys and epoch labels quote the trace */
    const int64_t ns[8] = {v->total_time, C->time, I->time, I->unoverlapped, I->compute_unoverlapped, A->time,
                           A->unoverlapped, A->compute_unoverlapped};
    for (int k = 0; k < 8; k++) {
        char b[32];
        fprintf(out, " %12s", dur(b, sizeof b, ns[k]));
    }
    fputc('\n', out);
}

static int key_width(const dfs_overlap_unit *u, size_t n, int least)
{
    int w = least;
    for (size_t i = 0; i < n; i++) {
        int k = (int)dfs_term_len(u[i].key, strlen(u[i].key)); /* as the table shows it */
        w = k > w ? k : w;
    }
    return w > 60 ? 60 : w;
}

static void text_units(FILE *out, const dfs_overlap_result *r)
{
    bool threads = r->scope == DFS_OVERLAP_THREAD;
    const dfs_overlap_unit *u = threads ? r->per_thread : r->per_process;
    size_t n = threads ? r->nthreads : r->nprocesses;
    if (!n)
        return;
    int w = key_width(u, n, 12);
    fprintf(out, "\nPer %s\n", threads ? "thread" : "process");
    unit_columns(out, threads ? "thread" : "process", w);
    for (size_t i = 0; i < n; i++)
        unit_row(out, u[i].key, w, &u[i].v);
    unit_legend(out, "");
}

static void text_segments(FILE *out, const dfs_overlap_result *r)
{
    if (r->nepochs) {
        fprintf(out, "\nEpochs (each process's unions clipped to its epoch marker)\n");
        unit_columns(out, "epoch (procs)", 14);
        for (size_t i = 0; i < r->nepochs; i++) {
            char name[64];
            snprintf(name, sizeof name, "%s (%" PRIu64 ")", r->epochs[i].label, r->epochs[i].units);
            unit_row(out, name, 14, &r->epochs[i].v);
        }
        unit_legend(out, ", summed over the processes (process-seconds: they can exceed the span)");
    }
    if (r->nsteps)
        fprintf(out, "\n%zu steps: see --format json or csv for their values\n", r->nsteps);
}

/* The decimals of seconds that tell bins of width g apart. */
static int decimals_for(int64_t g)
{
    return g >= INT64_C(1000000000) ? 0 : g >= 1000000 ? 3 : g >= 1000 ? 6 : 9;
}

/* A bin's start: a time of day (UTC) on an absolute clock, else an offset from the run's start, in
 * dfscope's durations unless their three decimals of minutes or hours cannot tell bins this narrow
 * apart (a file near 0 beside wall-clock traces puts bins 54 years from the start): then in
 * seconds, to the bin. */
static void bin_start(char *buf, size_t n, const dfs_overlap_result *r, int64_t k, bool absolute)
{
    int64_t off = (int64_t)((__int128)k * r->granularity_ns);
    char t[48];
    if (absolute)
        dfs_fmt_time(buf, n, r->origin_ns + off);
    else if ((off >= INT64_C(3600000000000) && r->granularity_ns < INT64_C(3600000000)) ||
             (off >= INT64_C(60000000000) && r->granularity_ns < INT64_C(60000000)))
        snprintf(buf, n, "+%s s", dfs_fmt_fixed(t, sizeof t, secs(off), decimals_for(r->granularity_ns)));
    else
        snprintf(buf, n, "+%s", dfs_fmt_seconds(t, sizeof t, secs(off)));
}

static void text_bins(FILE *out, const dfs_overlap_result *r, bool absolute)
{
    if (!r->nbins)
        return;
    char g[32], t[48];
    fprintf(out, "\nTime bins of %s (%s)\n", dfs_fmt_duration(g, sizeof g, r->granularity_ns),
            r->scope == DFS_OVERLAP_GLOBAL ? "global" : r->scope == DFS_OVERLAP_THREAD ? "sum over threads"
                                                                                      : "sum over processes");
    int w = absolute ? 30 : 12;
    for (size_t i = 0; i < r->nbins; i++) { /* the widest label sets the column */
        int len = (int)strlen((bin_start(t, sizeof t, r, r->bins[i].index, absolute), t));
        w = len + 1 > w ? len + 1 : w;
    }
    unit_columns(out, absolute ? "bin start (UTC)" : "bin start", w);
    for (size_t i = 0; i < r->nbins; i++) {
        bin_start(t, sizeof t, r, r->bins[i].index, absolute);
        unit_row(out, t, w, &r->bins[i].v);
    }
    unit_legend(out, r->scope == DFS_OVERLAP_GLOBAL ? " in the bin"
                                                    : ", summed over the units (process-seconds: they can exceed the bin)");
    if (!absolute)
        fprintf(out, "  (bin start: from the run's first event; the trace's clock is relative, so no time of day)\n");
}

static void text_functions(FILE *out, const dfs_overlap_result *r)
{
    if (!r->nfunctions)
        return;
    fprintf(out, "\nI/O sizes by function (class io; per call)\n  %-20s %10s %10s %10s %10s %10s %10s %10s\n",
            "function", "count", "min", "25%", "mean", "median", "75%", "max");
    size_t unsized = 0;
    for (size_t i = 0; i < r->nfunctions; i++) {
        const dfs_overlap_function *f = &r->functions[i];
        char c[32], v[6][32];
        const double x[6] = {f->min, f->p25, f->mean, f->median, f->p75, f->max};
        for (int k = 0; k < 6; k++)
            dfs_fmt_size(v[k], sizeof v[k], x[k]);
        unsized += !f->sized;
        fputs("  ", out);
        dfs_term_pad(out, f->short_name, strlen(f->short_name), 20);
        fprintf(out, " %10s %10s %10s %10s %10s %10s %10s\n", dfs_fmt_count(c, sizeof c, f->count),
                v[0], v[1], v[2], v[3], v[4], v[5]);
    }
    fprintf(out, "  (sizes decimal: 1 KB = 1,000 bytes%s)\n",
            unsized ? "; n/a: the function's calls carry no size (stat, open, close...)" : "");
}

void dfs_overlap_write_text(FILE *out, const dfs_overlap_result *r, const dfs_overlap_report_context *ctx)
{
    text_header(out, r, ctx);
    text_allocation(out, r);
    text_split(out, r);
    text_units(out, r);
    text_segments(out, r);
    text_bins(out, r, ctx->absolute_clock);
    text_functions(out, r);
    char a[32], b[32], c[32];
    if (r->suggested_granularity_ns)
        fprintf(out, "\nSuggested time granularity: %s (the busiest thread's I/O in one bin, %s, exceeds the %s bin)\n",
                dfs_fmt_duration(a, sizeof a, r->suggested_granularity_ns), dfs_fmt_duration(b, sizeof b, r->max_bin_thread_io),
                dfs_fmt_duration(c, sizeof c, r->granularity_ns));
}
