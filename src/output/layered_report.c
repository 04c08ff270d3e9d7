/* layered_report.c - tables, JSON and CSV of a layered analysis (layered_report.h).
 *
 * Invariant: a label names one aggregation. The default (exact) mode's layer times are
 * process-seconds (Σ over processes), so its labels and keys say so ("Process time",
 * process_time_s...) and never reuse the names under which --compat prints DFAnalyzer's mixed
 * aggregations (time_s: per row the busiest process, summed over rows, or the largest process). */
#include "output/layered_report.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

#include "output/format.h"
#include "output/csv.h"
#include "output/escape.h"
#include "output/json.h"

#define MIB 1048576.0

int dfs_overlap_percent(double u, double v)
{
    if (isnan(u) || isnan(v) || v == 0)
        return -1;
    double x = 1 - u / v;
    if (x < 0)
        x = 0;
    /* nearbyint rounds half to even in the default rounding mode, as Python's round does */
    return (int)nearbyint(100 * x);
}

static const char *semantics_text(dfs_compat c)
{
    switch (c) {
    case DFS_COMPAT_DFANALYZER:
        return "dfanalyzer (DFAnalyzer's current numbers: per view row the busiest process)";
    case DFS_COMPAT_DFANALYZER_SUM:
        return "dfanalyzer-sum (DFAnalyzer's original README numbers: sums over processes)";
    default:
        return "exact (each layer's wall time, and process time: durations summed over processes; each event "
               "split over the time bins it overlaps; unoverlapped time from exact per-process interval overlap; "
               "the words are explained at the end)";
    }
}

/* What the default mode's words and marks mean: a footer, once, under the last table. */
static void exact_legend(FILE *out)
{
    fputs("\nWhat the columns mean:\n"
          "  Wall: the time during which at least one process was in the layer (the union of its events over\n"
          "    processes and threads), never more than the job time; the time view's bins add up to it.\n"
          "  Process time: a layer's event durations summed over processes and threads (4 processes busy for\n"
          "    1 s = 4 s of process time; nested or concurrent events add up), the same in every view but\n"
          "    file_name (only the events with a file name).\n"
          "  Busy: the same with each process's nested and concurrent events counted once.\n"
          "  Unoverlapped: the part of busy not covered by the same process's compute, so\n"
          "    unoverlapped <= busy <= process time; overlap % = 1 - unoverlapped/busy, in parentheses.\n"
          "  Per process: ops/s and bandwidth divide by process time (one process's rate while in the layer).\n"
          "  (----): no overlap measured (the preset does not mark the layer unoverlapped, or it has no\n"
          "    compute layer, or the layer's busy time is zero).\n"
          "  n/a: no value: the layer's events carry no size (Size, Bandwidth), the layer has no busy and\n"
          "    unoverlapped measure (as for (----)), a rate would divide by zero time, or an additional\n"
          "    metric has no non-null value.\n"
          "  Units: each value carries its own (us = microseconds, min, h); sizes are decimal (1 MB =\n"
          "    1,000,000 bytes); times of day are UTC (ISO 8601). JSON and CSV keep raw seconds and bytes.\n"
          "DFAnalyzer's numbers and table: --compat dfanalyzer.\n",
          out);
}

/* Unit words of the summary and layer tables: process time in the default mode. */
typedef struct text_units {
    const char *time, *ops, *size, *bw, *bw_label, *busy;
} text_units;

static text_units units_of(dfs_compat c)
{
    if (c == DFS_COMPAT_NONE)
        return (text_units){"Process time", "Ops/s per process", "Size", "Bandwidth per process", " Bandwidth per process",
                            "Busy"};
    return (text_units){"Time (s)", "Ops/sec", "Size (MB)", "Bandwidth (MB/s)", " Bandwidth", NULL};
}

/* The cells of both tables. --compat keeps DFAnalyzer's spelling (%.3f, MB = MiB, "-" where a
 * value is missing), which tests compare with its published tables; the default mode spells them
 * as every dfscope table does (output/format.h). */
static char *time_cell(char *buf, size_t n, dfs_compat c, double s)
{
    if (c == DFS_COMPAT_NONE)
        return dfs_fmt_seconds(buf, n, s);
    snprintf(buf, n, "%.3f", s);
    return buf;
}

static char *size_cell(char *buf, size_t n, dfs_compat c, double bytes)
{
    if (c == DFS_COMPAT_NONE)
        return dfs_fmt_size(buf, n, bytes);
    snprintf(buf, n, "%.3f", bytes / MIB);
    return buf;
}

static char *rate_cell(char *buf, size_t n, dfs_compat c, double bytes_per_s)
{
    if (c == DFS_COMPAT_NONE)
        return dfs_fmt_rate(buf, n, bytes_per_s);
    if (isnan(bytes_per_s))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.3f", bytes_per_s / MIB);
    return buf;
}

static char *ops_cell(char *buf, size_t n, dfs_compat c, double ops)
{
    if (c == DFS_COMPAT_NONE)
        return dfs_fmt_fixed(buf, n, ops, 3);
    if (isnan(ops))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.3f", ops);
    return buf;
}

static const char *missing_cell(dfs_compat c)
{
    return c == DFS_COMPAT_NONE ? DFS_FMT_NA : "-";
}

static const char *view_title(dfs_view_type v)
{
    static const char *const titles[DFS_VIEW__COUNT] = {"Time Period", "Process", "File",
                                                         "Host",        "Process ID", "Thread ID"};
    return (unsigned)v < DFS_VIEW__COUNT ? titles[v] : "?";
}

/* "441.967 (----)" or "126.179 ( 16%)". */
static void with_overlap(char *buf, size_t n, const char *value, int pct)
{
    if (pct < 0)
        snprintf(buf, n, "%s (----)", value);
    else
        snprintf(buf, n, "%s (%3d%%)", value, pct);
}

/* One summary row: under --compat with DFAnalyzer's Unit column, else the value carries its unit. */
static void summary_row(FILE *out, dfs_compat c, const char *label, const char *unit, const char *value)
{
    if (c == DFS_COMPAT_NONE)
        fprintf(out, "  %-44s %s\n", label, value);
    else
        fprintf(out, "  %-44s %-8s %s\n", label, unit, value);
}

/* The job's first start and last end: dates (UTC) on an absolute clock, else offsets said to be. */
static void job_times(FILE *out, const dfs_layered_result *r, const dfs_report_context *ctx)
{
    char a[64], b[64];
    int64_t end = r->origin_ns + (int64_t)llround(r->job_time_s * 1e9);
    if (ctx->absolute_clock) {
        summary_row(out, r->compat, "Job Start (UTC)", "", dfs_fmt_time(a, sizeof a, r->origin_ns));
        summary_row(out, r->compat, "Job End (UTC)", "", dfs_fmt_time(b, sizeof b, end));
        return;
    }
    char t[128];
    snprintf(t, sizeof t, "%s .. %s on the trace's relative clock (no date)",
             dfs_fmt_seconds(a, sizeof a, (double)r->origin_ns / 1e9), dfs_fmt_seconds(b, sizeof b, (double)end / 1e9));
    summary_row(out, r->compat, "Job Start .. End", "", t);
}

static void summary_rows(FILE *out, const dfs_layered_result *r, const dfs_view_result *v,
                         const dfs_report_context *ctx)
{
    char b[64];
    dfs_compat c = r->compat;
    summary_row(out, c, "Metric", "Unit", "Value");
    summary_row(out, c, "Job Time", "seconds", time_cell(b, sizeof b, c, r->job_time_s));
    if (c == DFS_COMPAT_NONE && r->events)
        job_times(out, r, ctx);
    summary_row(out, c, "Trace Count", "count", dfs_fmt_count(b, sizeof b, r->events));
    summary_row(out, c, "Total Count (sum of layer counts)", "count", dfs_fmt_count(b, sizeof b, r->layer_count_total));
    summary_row(out, c, "Total Files", "count", dfs_fmt_count(b, sizeof b, r->unique_files));
    summary_row(out, c, "Total Nodes", "count", dfs_fmt_count(b, sizeof b, r->unique_hosts));
    summary_row(out, c, "Total Processes", "count", dfs_fmt_count(b, sizeof b, r->unique_processes));
    for (size_t l = 0; l < r->nlayers; l++) {
        const dfs_layer_summary *s = &v->layers[l];
        const char *name = r->layers[l].display;
        char label[160];
        if (!s->count)
            continue;
        snprintf(label, sizeof label, "%s Count", name);
        summary_row(out, c, label, "count", dfs_fmt_count(b, sizeof b, s->count));
        if (!s->sized || !s->size)
            continue;
        snprintf(label, sizeof label, "%s Size", name);
        summary_row(out, c, label, "MB", size_cell(b, sizeof b, c, (double)s->size));
        snprintf(label, sizeof label, "%s%s", name, units_of(c).bw_label);
        summary_row(out, c, label, "MB/s", rate_cell(b, sizeof b, c, s->bandwidth));
        snprintf(label, sizeof label, "%s Avg Transfer Size", name);
        summary_row(out, c, label, "MB", size_cell(b, sizeof b, c, (double)s->size / s->count));
    }
}

static void layer_rows(FILE *out, const dfs_layered_result *r, const dfs_view_result *v)
{
    text_units u = units_of(r->compat);
    dfs_compat cm = r->compat;
    int ow = u.busy ? 17 : 12, bw_w = u.busy ? 21 : 16; /* --compat: DFAnalyzer's widths */
    fprintf(out, "  %-28s ", "Layer");
    if (u.busy) /* the default mode: the wall time first */
        fprintf(out, "%12s ", "Wall");
    fprintf(out, "%-20s %-18s %*s %-22s %*s", u.time, "Ops", ow, u.ops, u.size, bw_w, u.bw);
    if (u.busy)
        fprintf(out, " %16s %16s", u.busy, "Unoverlapped");
    fputc('\n', out);
    for (size_t l = 0; l < r->nlayers; l++) {
        const dfs_layer_summary *s = &v->layers[l];
        if (!s->count)
            continue;
        char num[48], t[64], c[64], sz[64], ops[48], bw[48];
        time_cell(num, sizeof num, cm, s->time_s);
        with_overlap(t, sizeof t, num, s->has_u ? dfs_overlap_percent(s->u_time_s, s->u_base_s) : -1);
        dfs_fmt_count(num, sizeof num, s->count);
        with_overlap(c, sizeof c, num, s->has_u ? dfs_overlap_percent((double)s->u_count, (double)s->count) : -1);
        if (s->sized) {
            size_cell(num, sizeof num, cm, (double)s->size);
            with_overlap(sz, sizeof sz, num,
                         s->has_u && s->size ? dfs_overlap_percent((double)s->u_size, (double)s->size) : -1);
        } else {
            snprintf(sz, sizeof sz, "%s", missing_cell(cm));
        }
        ops_cell(ops, sizeof ops, cm, s->ops);
        rate_cell(bw, sizeof bw, cm, s->bandwidth);
        fprintf(out, "  %-28s ", r->layers[l].display);
        if (u.busy && isnan(s->wall_s)) /* the file_name view, or not measured (said above) */
            fprintf(out, "%12s ", r->wall_over ? DFS_FMT_NA : "-");
        else if (u.busy)
            fprintf(out, "%12s ", time_cell(num, sizeof num, cm, s->wall_s));
        fprintf(out, "%-20s %-18s %*s %-22s %*s", t, c, ow, ops, sz, bw_w, bw);
        if (u.busy && s->has_u)
            fprintf(out, " %16s %16s", time_cell(num, sizeof num, cm, s->u_base_s),
                    time_cell(t, sizeof t, cm, s->u_time_s));
        else if (u.busy)
            fprintf(out, " %16s %16s", missing_cell(cm), missing_cell(cm));
        fputc('\n', out);
    }
}

/* The preset's formulas: of no known unit, so four significant digits (--compat: %g, as before). */
static void additional_rows(FILE *out, const dfs_view_result *v, dfs_compat c)
{
    if (!v->nadditional)
        return;
    fprintf(out, "\n  Additional Metrics\n  %-28s %-6s %9s %12s %12s %12s\n", "Metric", "Unit", "Non-null", "Min",
            "Mean", "Max");
    for (size_t i = 0; i < v->nadditional; i++) {
        const dfs_additional_summary *a = &v->additional[i];
        char n[32], x[3][64];
        const double vals[3] = {a->min, a->mean, a->max};
        for (int k = 0; k < 3; k++)
            if (c == DFS_COMPAT_NONE)
                dfs_fmt_plain(x[k], sizeof x[k], vals[k]);
            else
                snprintf(x[k], sizeof x[k], "%.6g", vals[k]);
        if (c == DFS_COMPAT_NONE)
            dfs_fmt_count(n, sizeof n, a->non_null);
        else
            snprintf(n, sizeof n, "%llu", (unsigned long long)a->non_null);
        fprintf(out, "  %-28s %-6s %9s %12s %12s %12s\n", a->name, a->unit, n, x[0], x[1], x[2]);
    }
}

static void post_read_line(FILE *out, const dfs_layered_result *r)
{
    if (r->compat != DFS_COMPAT_NONE) {
        fprintf(out,
                "post-read: %llu events kept of %llu; dropped %llu on ignored files and %llu ignored functions;"
                " %llu records without duration and %llu with bad times not analysed\n",
                (unsigned long long)r->post_read_events, (unsigned long long)r->events,
                (unsigned long long)r->dropped_files, (unsigned long long)r->dropped_functions,
                (unsigned long long)r->no_duration, (unsigned long long)r->bad_time);
        return;
    }
    char a[32], b[32], c[32], d[32], e[32], f[32];
    fprintf(out,
            "post-read: %s events kept of %s; dropped %s on ignored files and %s ignored functions;"
            " %s records without duration and %s with bad times not analysed\n",
            dfs_fmt_count(a, sizeof a, r->post_read_events), dfs_fmt_count(b, sizeof b, r->events),
            dfs_fmt_count(c, sizeof c, r->dropped_files), dfs_fmt_count(d, sizeof d, r->dropped_functions),
            dfs_fmt_count(e, sizeof e, r->no_duration), dfs_fmt_count(f, sizeof f, r->bad_time));
}

/* The events the preset's left_out selects: in no layer on purpose, and why. */
static void on_purpose_line(FILE *out, const dfs_layered_result *r)
{
    char n[32];
    fprintf(out, "left out on purpose by preset %s: %s events in no layer, since ", r->preset->name,
            dfs_fmt_count(n, sizeof n, r->on_purpose_events));
    for (size_t i = 0; i < r->preset->nleft_out; i++)
        fprintf(out, "%s%s", i ? "; " : "", r->preset->left_out[i].reason);
    fputc('\n', out);
}

void dfs_layered_write_text(FILE *out, const dfs_layered_result *r, const dfs_report_context *ctx)
{
    char g[32] = "";
    if (r->compat != DFS_COMPAT_NONE) /* DFAnalyzer's header as it was */
        snprintf(g, sizeof g, "%g s", r->granularity_s);
    fprintf(out, "preset %s (%s), semantics %s, granularity %s\n", r->preset->name, ctx->preset_source,
            semantics_text(r->compat), *g ? g : dfs_fmt_seconds(g, sizeof g, r->granularity_s));
    if (r->dropped_files || r->dropped_functions || r->no_duration || r->bad_time)
        post_read_line(out, r);
    if (r->on_purpose_events)
        on_purpose_line(out, r);
    if (r->wall_over) {
        char n[32];
        fprintf(out,
                "Wall: not measured (%s): the layers were busy in more than %s separate periods per worker (the bound"
                " set by --wall-periods); every other number is complete\n",
                DFS_FMT_NA, dfs_fmt_count(n, sizeof n, r->wall_max_periods));
    }
    for (size_t i = 0; i < r->nviews; i++) {
        const dfs_view_result *v = &r->views[i];
        fprintf(out, "\n%s Summary (%s view)\n", view_title(v->type), dfs_view_name(v->type));
        summary_rows(out, r, v, ctx);
        fprintf(out, "\nLayer Breakdown (w/ overlap %%) (%s view)\n", dfs_view_name(v->type));
        layer_rows(out, r, v);
        additional_rows(out, v, r->compat);
    }
    if (r->compat == DFS_COMPAT_NONE)
        exact_legend(out);
}

/* ----- JSON ------------------------------------------------------------------------------- */

static void json_nullable_u(dfs_jw *w, const char *key, bool present, uint64_t v)
{
    if (present)
        dfs_jw_uint(w, key, v);
    else
        dfs_jw_null(w, key);
}

/* The keys of a layer's time-like fields: DFAnalyzer's under --compat, words saying the
 * aggregation (process-seconds, Σ over processes) in the default mode. */
typedef struct layer_keys {
    const char *time, *ops, *bw, *u_time, *base, *overhead;
} layer_keys;

static layer_keys keys_of(dfs_compat c)
{
    if (c == DFS_COMPAT_NONE)
        return (layer_keys){"process_time_s",   "ops_per_process_s",   "bytes_per_process_s",
                            "u_process_time_s", "busy_process_time_s", "overhead_process_s"};
    return (layer_keys){"time_s", "ops_per_s", "bandwidth_bps", "u_time_s", "u_base_s", "overhead_s"};
}

static void json_layer(dfs_jw *w, dfs_compat c, const dfs_preset_layer *L, const dfs_layer_summary *s)
{
    layer_keys k = keys_of(c);
    dfs_jw_object(w, L->name);
    dfs_jw_cstr(w, "display", L->display);
    if (c == DFS_COMPAT_NONE) /* (--compat outputs stay DFAnalyzer's) */
        dfs_jw_double(w, "wall_time_s", s->wall_s);
    dfs_jw_double(w, k.time, s->time_s);
    dfs_jw_uint(w, "count", s->count);
    json_nullable_u(w, "size_bytes", s->sized && s->size, s->size);
    dfs_jw_double(w, k.ops, s->ops);
    dfs_jw_double(w, k.bw, s->bandwidth);
    dfs_jw_uint(w, "num_files", s->num_files);
    dfs_jw_uint(w, "num_processes", s->num_processes);
    dfs_jw_double(w, k.u_time, s->has_u ? s->u_time_s : NAN);
    json_nullable_u(w, "u_count", s->has_u, s->u_count);
    json_nullable_u(w, "u_size_bytes", s->has_u && s->sized && s->size, s->u_size);
    if (c != DFS_COMPAT_NONE) /* (the default's time is this sum) */
        dfs_jw_double(w, "time_sum_s", s->time_sum_s);
    dfs_jw_double(w, k.base, s->has_u ? s->u_base_s : NAN);
    int pct = s->has_u ? dfs_overlap_percent(s->u_time_s, s->u_base_s) : -1;
    if (pct >= 0)
        dfs_jw_int(w, "overlap_time_pct", pct);
    else
        dfs_jw_null(w, "overlap_time_pct");
    dfs_jw_double(w, k.overhead, s->overhead_s);
    dfs_jw_end(w);
}

static void json_raw_stats(dfs_jw *w, const dfs_layered_result *r)
{
    dfs_jw_double(w, "job_time_s", r->job_time_s);
    dfs_jw_double(w, "time_granularity_s", r->granularity_s);
    dfs_jw_int(w, "time_resolution_ns", 1000000); /* µs per second, as the reference writes it */
    dfs_jw_uint(w, "total_event_count", r->events);
    dfs_jw_uint(w, "unique_file_count", r->unique_files);
    dfs_jw_uint(w, "unique_host_count", r->unique_hosts);
    dfs_jw_uint(w, "unique_process_count", r->unique_processes);
}

static void json_view(dfs_jw *w, const dfs_layered_result *r, const dfs_view_result *v)
{
    dfs_jw_object(w, dfs_view_name(v->type));
    dfs_jw_object(w, "summary");
    json_raw_stats(w, r);
    dfs_jw_uint(w, "total_count", r->layer_count_total);
    /* The default mode's keys hold what the table prints under the same labels; the compatible
     * modes keep DFAnalyzer's G2 summary rows there (the file view's rows or the layers' distinct
     * files summed, the proc_name view's rows), as before. */
    bool g2_rows = r->compat != DFS_COMPAT_NONE;
    dfs_jw_uint(w, "total_files", g2_rows ? v->total_files : r->unique_files);
    dfs_jw_uint(w, "total_processes", g2_rows ? v->total_processes : r->unique_processes);
    dfs_jw_object(w, "layers");
    for (size_t l = 0; l < r->nlayers; l++)
        json_layer(w, r->compat, &r->layers[l], &v->layers[l]);
    dfs_jw_end(w);
    dfs_jw_end(w);
    dfs_jw_object(w, "additional_metrics");
    for (size_t i = 0; i < v->nadditional; i++) {
        const dfs_additional_summary *a = &v->additional[i];
        dfs_jw_object(w, a->name);
        dfs_jw_cstr(w, "unit", a->unit);
        dfs_jw_uint(w, "non_null", a->non_null);
        dfs_jw_double(w, "min", a->min);
        dfs_jw_double(w, "mean", a->mean);
        dfs_jw_double(w, "max", a->max);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_array(w, "columns");
    dfs_jw_cstr(w, NULL, dfs_view_name(v->type));
    for (size_t c = 0; c < v->ncolumns; c++)
        dfs_jw_cstr(w, NULL, v->columns[c]);
    dfs_jw_end(w);
    dfs_jw_array(w, "rows");
    for (size_t row = 0; row < v->nrows; row++) {
        dfs_jw_array(w, NULL);
        if (v->row_bins)
            dfs_jw_int(w, NULL, v->row_bins[row]);
        else
            dfs_jw_cstr(w, NULL, v->row_keys[row]);
        for (size_t c = 0; c < v->ncolumns; c++)
            dfs_jw_double(w, NULL, v->cells[row * v->ncolumns + c]);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_end(w);
}

/* ---- events in no layer ----------------------------------------------------------------------- */

static double share_of(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / (double)whole : 0;
}

/* The preset's layers whose predicate names the category (as a quoted literal), up to two. */
static void layers_naming(FILE *err, const dfs_layered_result *r, const char *cat)
{
    char quoted[160];
    snprintf(quoted, sizeof quoted, "\"%s\"", cat);
    int shown = 0;
    for (size_t l = 0; l < r->nlayers && shown < 2; l++) {
        const char *p = r->layers[l].predicate;
        if (!p || !strstr(p, quoted))
            continue;
        fprintf(err, "%s layer %s selects ", shown ? ";" : "; its", r->layers[l].name);
        dfs_term_puts(err, p);
        shown++;
    }
}

bool dfs_layered_warn_left_out(FILE *err, const char *cmd, const dfs_layered_result *r)
{
    double ev = share_of(r->unlayered_events, r->post_read_events);
    double tm = share_of(r->unlayered_dur_ns, r->post_read_dur_ns);
    if (!r->unlayered_events || (ev <= DFS_LEFT_OUT_SHARE && tm <= DFS_LEFT_OUT_SHARE))
        return false;
    char a[32], b[32], t[32];
    fprintf(err, "dfscope %s: warning: %s of %s events (%.1f %%), %.1f %% of their time, fall in no layer of preset %s: "
                 "no layer's numbers count them.\n",
            cmd, dfs_fmt_count(a, sizeof a, r->unlayered_events), dfs_fmt_count(b, sizeof b, r->post_read_events),
            100 * ev, 100 * tm, r->preset->name);
    for (size_t i = 0; i < r->nunlayered && i < 3; i++) {
        const dfs_layered_unlayered *u = &r->unlayered[i];
        fputs(i ? "\n  " : "  Most left out: ", err);
        dfs_term_puts(err, *u->category ? u->category : "(no category)");
        fprintf(err, ", %s events, %s", dfs_fmt_count(a, sizeof a, u->events),
                dfs_fmt_duration(t, sizeof t, (int64_t)(u->dur_ns > INT64_MAX ? INT64_MAX : u->dur_ns)));
        layers_naming(err, r, u->category);
    }
    fprintf(err, "\n  To count them: a preset whose layers select them (dfscope %s --show-preset %s shows "
                 "its layers; docs/PRESETS.md), or --preset posix for every POSIX and STDIO call.\n",
            cmd, r->preset->name);
    return true;
}

static void json_left_out(dfs_jw *w, const dfs_layered_result *r)
{
    dfs_jw_object(w, "left_out");
    dfs_jw_uint(w, "events", r->unlayered_events);
    dfs_jw_double(w, "events_share", share_of(r->unlayered_events, r->post_read_events));
    dfs_jw_double(w, "time_s", (double)r->unlayered_dur_ns / 1e9);
    dfs_jw_double(w, "time_share", share_of(r->unlayered_dur_ns, r->post_read_dur_ns));
    dfs_jw_bool(w, "warned", share_of(r->unlayered_events, r->post_read_events) > DFS_LEFT_OUT_SHARE ||
                                 share_of(r->unlayered_dur_ns, r->post_read_dur_ns) > DFS_LEFT_OUT_SHARE);
    dfs_jw_object(w, "on_purpose"); /* the preset's left_out: not part of the counts above */
    dfs_jw_uint(w, "events", r->on_purpose_events);
    dfs_jw_double(w, "time_s", (double)r->on_purpose_dur_ns / 1e9);
    dfs_jw_array(w, "reasons");
    for (size_t i = 0; i < r->preset->nleft_out; i++)
        dfs_jw_cstr(w, NULL, r->preset->left_out[i].reason);
    dfs_jw_end(w);
    dfs_jw_end(w);
    dfs_jw_array(w, "categories");
    for (size_t i = 0; i < r->nunlayered; i++) {
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "category", r->unlayered[i].category);
        dfs_jw_uint(w, "events", r->unlayered[i].events);
        dfs_jw_double(w, "time_s", (double)r->unlayered[i].dur_ns / 1e9);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_end(w);
}

void dfs_layered_write_json(FILE *out, const dfs_layered_result *r, const dfs_report_context *ctx)
{
    dfs_jw w;
    dfs_jw_init(&w, out, false);
    dfs_jw_object(&w, NULL);
    dfs_jw_cstr(&w, "schema_version", "1");
    dfs_jw_cstr(&w, "schema", DFS_ANALYZE_SCHEMA);
    dfs_jw_object(&w, "analysis");
    dfs_jw_cstr(&w, "tool", "dfscope " DFS_VERSION_STRING);
    dfs_jw_cstr(&w, "preset", r->preset->name);
    dfs_jw_cstr(&w, "preset_source", ctx->preset_source);
    dfs_jw_cstr(&w, "semantics", dfs_compat_name(r->compat));
    dfs_jw_double(&w, "granularity_s", r->granularity_s);
    dfs_jw_bool(&w, "second_pass", ctx->reran);
    if (r->compat == DFS_COMPAT_NONE) {
        dfs_jw_uint(&w, "flushes", r->flushes);
        dfs_jw_bool(&w, "wall_time_measured", !r->wall_over);
    }
    if (ctx->reran && ctx->rerun_reason)
        dfs_jw_cstr(&w, "second_pass_reason", ctx->rerun_reason);
    dfs_jw_array(&w, "views");
    for (size_t i = 0; i < r->nviews; i++)
        dfs_jw_cstr(&w, NULL, dfs_view_name(r->views[i].type));
    dfs_jw_end(&w);
    dfs_jw_end(&w);
    dfs_jw_object(&w, "raw_stats");
    json_raw_stats(&w, r);
    dfs_jw_int(&w, "origin_ns", r->origin_ns);
    dfs_jw_uint(&w, "events_without_duration", r->no_duration);
    dfs_jw_uint(&w, "events_bad_time", r->bad_time);
    dfs_jw_uint(&w, "other_phase_records", r->other_phases);
    dfs_jw_uint(&w, "dropped_ignored_files", r->dropped_files);
    dfs_jw_uint(&w, "dropped_ignored_functions", r->dropped_functions);
    dfs_jw_uint(&w, "post_read_event_count", r->post_read_events);
    dfs_jw_uint(&w, "layer_count_total", r->layer_count_total);
    dfs_jw_uint(&w, "unique_proc_name_count", r->threads);
    dfs_jw_end(&w);
    if (r->compat == DFS_COMPAT_NONE) /* the compatible documents keep DFAnalyzer's shape */
        json_left_out(&w, r);
    dfs_jw_object(&w, "views");
    for (size_t i = 0; i < r->nviews; i++)
        json_view(&w, r, &r->views[i]);
    dfs_jw_end(&w);
    dfs_jw_end(&w);
    fputc('\n', out);
}

/* ----- CSV ---------------------------------------------------------------------------------- */

void dfs_layered_write_view_csv(FILE *out, const dfs_view_result *v)
{
    fputs(dfs_view_name(v->type), out);
    for (size_t c = 0; c < v->ncolumns; c++) {
        fputc(',', out);
        dfs_csv_text(out, v->columns[c]);
    }
    fputc('\n', out);
    for (size_t row = 0; row < v->nrows; row++) {
        dfs_csv_text(out, v->row_keys[row]);
        for (size_t c = 0; c < v->ncolumns; c++)
            dfs_csv_num(out, v->cells[row * v->ncolumns + c]);
        fputc('\n', out);
    }
}

void dfs_layered_write_summary_csv(FILE *out, const dfs_layered_result *r, const dfs_view_result *v)
{
    layer_keys k = keys_of(r->compat);
    fprintf(out, "layer,%s,count,size_bytes,%s,%s,num_files,num_processes,%s,u_count,u_size_bytes,%s,%s,%s\n", k.time,
            k.ops, k.bw, k.u_time, r->compat == DFS_COMPAT_NONE ? "process_time_sum_s" : "time_sum_s", k.base,
            k.overhead);
    for (size_t l = 0; l < r->nlayers; l++) {
        const dfs_layer_summary *s = &v->layers[l];
        dfs_csv_text(out, r->layers[l].name);
        dfs_csv_num(out, s->time_s);
        fprintf(out, ",%llu", (unsigned long long)s->count);
        dfs_csv_num(out, s->sized && s->size ? (double)s->size : NAN);
        dfs_csv_num(out, s->ops);
        dfs_csv_num(out, s->bandwidth);
        fprintf(out, ",%llu,%llu", (unsigned long long)s->num_files, (unsigned long long)s->num_processes);
        dfs_csv_num(out, s->has_u ? s->u_time_s : NAN);
        dfs_csv_num(out, s->has_u ? (double)s->u_count : NAN);
        dfs_csv_num(out, s->has_u && s->sized && s->size ? (double)s->u_size : NAN);
        dfs_csv_num(out, s->time_sum_s);
        dfs_csv_num(out, s->has_u ? s->u_base_s : NAN);
        dfs_csv_num(out, s->overhead_s);
        fputc('\n', out);
    }
}
