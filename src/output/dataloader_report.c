/* dataloader_report.c - tables, JSON, CSV and window slices of `dfscope dataloader`
 * (dataloader_report.h). */
#include "output/dataloader_report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/common/concepts.h"
#include "analyze/timeline/timeline.h"
#include "output/atomic.h"
#include "output/csv.h"
#include "output/csv_dir.h"
#include "output/escape.h"
#include "output/format.h"
#include "output/json.h"

static const char *const analysis_titles[] = {"Iterator initializations", "Worker processes", "GetNext calls",
                                              "Batch time"};

/* ---- numbers and times ------------------------------------------------------------------------ */

char *dfs_dl_fmt_time(char *buf, size_t n, int64_t ns)
{
    char iso[64];
    dfs_fmt_time_ns(iso, sizeof iso, ns); /* 2020-07-13T17:50:14.814909000Z */
    char *dot = strchr(iso, '.');
    if (dot && strlen(dot) >= 7) {
        *dot = ':';
        dot[7] = '\0'; /* microseconds, truncated */
    }
    size_t len = strlen(iso);
    if (n == 0)
        return buf;
    if (len >= n)
        len = n - 1;
    memcpy(buf, iso, len);
    buf[len] = '\0';
    return buf;
}

/* ns as µs: "5332", or "5332.125" below the microsecond. */
static char *us_text(char *buf, size_t n, int64_t ns)
{
    int64_t whole = ns / 1000, frac = ns % 1000;
    if (frac == 0)
        snprintf(buf, n, "%" PRId64, whole);
    else
        snprintf(buf, n, "%s%" PRId64 ".%03" PRId64, ns < 0 && whole == 0 ? "-" : "", whole, frac < 0 ? -frac : frac);
    return buf;
}

/* ns as seconds with every significant digit: "2.608205", "-0.000012". */
static char *sec_text(char *buf, size_t n, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    int digits = a % 1000 ? 9 : 6;
    uint64_t frac = digits == 9 ? a % 1000000000 : a % 1000000000 / 1000;
    snprintf(buf, n, "%s%" PRIu64 ".%0*" PRIu64, ns < 0 ? "-" : "", a / 1000000000, digits, frac);
    return buf;
}

/* A double in µs with at most three decimals, trailing zeros dropped. */
static char *num_text(char *buf, size_t n, double v)
{
    if (!isfinite(v)) { /* a statistic of no values; the lines that print one say "none" first */
        snprintf(buf, n, "%s", DFS_FMT_NA);
        return buf;
    }
    snprintf(buf, n, "%.3f", v);
    char *e = buf + strlen(buf) - 1;
    while (*e == '0')
        *e-- = '\0';
    if (*e == '.')
        *e = '\0';
    return buf;
}

static const char *str_of(const dfs_run *run, dfs_str s)
{
    size_t n;
    return s ? dfs_str_get(run, s, &n) : "";
}

static const char *phase_of(const dfs_run *run, const dfs_dl_result *r, size_t event)
{
    dfs_str p = r->events[event].phase;
    return p ? str_of(run, p) : "Unknown";
}

static const char *file_path(const dfs_run *run, uint32_t file)
{
    const dfs_file_info *fi = dfs_run_file(run, file);
    return fi ? fi->path : "?";
}

/* Text of the trace (names, nodes, paths) as the terminal shows it (output/escape.h). */
typedef char term_buf[DFS_TERM_STR_MAX];
#define TERM(buf, s) dfs_term_str((buf), sizeof(buf), (s))

static const char *sys_status_name(dfs_dl_sys_status s)
{
    return s == DFS_DL_SYS_LAST_LINE_SKIPPED ? "last_line_skipped" : s == DFS_DL_SYS_REJECTED ? "rejected" : "ok";
}

/* The patterns a set was matched with, for the absence message: "'a' or 'b'". */
static void set_patterns_text(const dfs_dl_result *r, dfs_dl_set set, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r->nmappings && used < n; i++) {
        if (r->mappings[i].set != set)
            continue;
        int k = snprintf(buf + used, n - used, "%s%s '%s'", used ? " or" : "", r->mappings[i].how,
                         r->mappings[i].pattern);
        used += k > 0 ? (size_t)k : 0;
    }
}

/* ---- text ------------------------------------------------------------------------------------- */

static void text_inputs(FILE *out, const dfs_run *run, const dfs_dl_result *r)
{
    char a[32], b[32], t[64];
    term_buf p;
    uint64_t sys_samples = 0;
    for (size_t i = 0; i < r->nsysfiles; i++)
        sys_samples += r->sysfiles[i].samples;
    fprintf(out, "inputs: %zu framework files (%s events), %zu system-metric files (%s samples)\n",
            r->framework_files, dfs_fmt_count(a, sizeof a, r->nevents), r->nsysfiles,
            dfs_fmt_count(b, sizeof b, sys_samples));
    if (r->origin_file >= 0)
        fprintf(out, "time origin of the *_us columns: %s (%s), the first system-metric file\n",
                dfs_dl_fmt_time(t, sizeof t, r->origin), TERM(p, file_path(run, (uint32_t)r->origin_file)));
    else
        fprintf(out, "time origin of the *_us columns: none (no system-metric file): absolute microseconds\n");
    if (r->orphan_ends || r->unclosed_begins || r->negative_durations || r->bad_times || r->samples_without_value)
        fprintf(out,
                "dropped while reading: %" PRIu64 " E without a B, %" PRIu64 " B never closed, %" PRIu64
                " negative durations, %" PRIu64 " times out of range, %" PRIu64 " system lines without a value\n",
                r->orphan_ends, r->unclosed_begins, r->negative_durations, r->bad_times, r->samples_without_value);
    for (size_t i = 0; i < r->nsysfiles; i++) {
        const dfs_dl_sysfile *s = &r->sysfiles[i];
        if (s->status == DFS_DL_SYS_LAST_LINE_SKIPPED)
            fprintf(out, "system file %s: corrupt last line skipped (%" PRIu64 " samples read)\n",
                    TERM(p, file_path(run, s->file)), s->samples);
        else if (s->status == DFS_DL_SYS_REJECTED)
            fprintf(out, "error: system file %s: %" PRIu64 " corrupt lines, not only the last one: the file is "
                         "left out (smdebug fails on it)\n", TERM(p, file_path(run, s->file)), s->bad_lines);
    }
}

static void text_mappings(FILE *out, const dfs_dl_result *r)
{
    fprintf(out, "\nrow sets (a regex searches the event name or its phase; a concept is a predicate of the\n"
                 "model of `dfscope steps` (docs/STEPS.md), mapped onto GetNext):\n");
    fprintf(out, "  %-10s  %-8s  %-7s  %5s  %7s  %s\n", "set", "source", "how", "files", "rows", "pattern");
    for (size_t i = 0; i < r->nmappings; i++) {
        const dfs_dl_mapping *m = &r->mappings[i];
        fprintf(out, "  %-10s  %-8s  %-7s  %5zu  %7zu  %s\n", dfs_dl_set_name(m->set), m->source, m->how, m->files,
                m->rows, m->pattern);
    }
    for (int s = 0; s < DFS_DL_NSETS; s++)
        if (r->duplicates[s])
            fprintf(out, "  %s: %zu rows identical in every field dropped\n", dfs_dl_set_name((dfs_dl_set)s),
                    r->duplicates[s]);
}

static void text_absent(FILE *out, const dfs_dl_result *r, dfs_dl_set set)
{
    char pats[1024];
    set_patterns_text(r, set, pats, sizeof pats);
    fprintf(out, "  the events are not present: no event matches the %s set (%s)\n", dfs_dl_set_name(set), pats);
}

static void text_stats(FILE *out, const char *what, const dfs_dl_stats *st)
{
    char a[48], b[48];
    if (!st->count) {
        fprintf(out, "  %s: none\n", what);
        return;
    }
    fprintf(out, "  %s: %zu, median %s us, max %s us; outliers (>= 2 x median): %zu\n", what, st->count,
            num_text(a, sizeof a, st->median_us), num_text(b, sizeof b, st->max_us), st->noutliers);
}

enum { COL_WORKER = 1, COL_WHERE = 2 };

static void text_row_outliers(FILE *out, const dfs_dl_result *r, const dfs_dl_row *rows,
                              const dfs_dl_stats *st, unsigned cols)
{
    if (!st->noutliers)
        return;
    fprintf(out, "    %-26s  %-26s  %12s%s%s\n", "start_time", "end_time", "duration_us",
            cols & COL_WORKER ? "  worker_id" : "", cols & COL_WHERE ? "  node_id / pid" : "");
    for (size_t k = 0; k < st->noutliers; k++) {
        const dfs_dl_row *row = &rows[st->outliers[k]];
        char a[48], b[48], c[32];
        term_buf node;
        fprintf(out, "    %-26s  %-26s  %12s", dfs_dl_fmt_time(a, sizeof a, row->start),
                dfs_dl_fmt_time(b, sizeof b, row->end), us_text(c, sizeof c, row->end - row->start));
        if (cols & COL_WORKER)
            fprintf(out, "  %9" PRId64, row->worker_id);
        if (cols & COL_WHERE)
            fprintf(out, "  %s / %" PRId64, TERM(node, dfs_dl_label(r, row->node)), row->pid);
        fputc('\n', out);
    }
}

static void text_inits(FILE *out, const dfs_dl_result *r)
{
    fprintf(out, "\n1. %s\n", analysis_titles[0]);
    if (!r->nrows[DFS_DL_INIT]) {
        text_absent(out, r, DFS_DL_INIT);
        return;
    }
    for (int k = 0; k < DFS_DL_NINIT_TYPES; k++) {
        const dfs_dl_init_type *it = &r->init[k];
        if (!it->stats.count) {
            fprintf(out, "  %s: not used\n", it->type);
            continue;
        }
        fprintf(out, "  %s: used; pin_memory %s, num_workers %" PRId64 "\n", it->type,
                dfs_dl_pin_name((dfs_dl_pin)it->pin_memory), it->num_workers);
        text_stats(out, "  initializations", &it->stats);
        text_row_outliers(out, r, r->rows[DFS_DL_INIT], &it->stats, 0);
    }
    if (r->init_other)
        fprintf(out, "  %zu initialize rows of another iterator type\n", r->init_other);
}

static void text_rows_analysis(FILE *out, const dfs_dl_result *r, int n, dfs_dl_set set,
                               const char *what, const dfs_dl_stats *st, unsigned cols)
{
    fprintf(out, "\n%d. %s\n", n, analysis_titles[n - 1]);
    if (!r->nrows[set]) {
        text_absent(out, r, set);
        return;
    }
    text_stats(out, what, st);
    text_row_outliers(out, r, r->rows[set], st, cols);
}

static void text_batches(FILE *out, const dfs_dl_result *r)
{
    fprintf(out, "\n4. %s (from one GetNext start to the next, per node and pid, rows sorted by end)\n",
            analysis_titles[3]);
    if (!r->nrows[DFS_DL_GETNEXT]) {
        text_absent(out, r, DFS_DL_GETNEXT);
        return;
    }
    if (!r->ngaps) {
        fprintf(out, "  no batch time: fewer than two GetNext calls in every (node, pid)\n");
        return;
    }
    char a[48], b[48];
    fprintf(out, "  batches: %zu in %zu (node, pid) groups, median %s us, max %s us; negative gaps (nested calls): %zu;"
                 " outliers (>= 2 x median): %zu\n",
            r->ngaps, r->batch_groups, num_text(a, sizeof a, r->batch.median_us),
            num_text(b, sizeof b, r->batch.max_us), r->negative_gaps, r->batch.noutliers);
    if (!r->batch.noutliers)
        return;
    fprintf(out, "    %-26s  %-26s  %20s  %9s  %s\n", "previous_batch_start", "start_time", "BatchTime_in_seconds",
            "worker_id", "node_id / pid");
    for (size_t k = 0; k < r->batch.noutliers; k++) {
        const dfs_dl_gap *g = &r->gaps[r->batch.outliers[k]];
        const dfs_dl_row *row = &r->rows[DFS_DL_GETNEXT][g->row];
        char t1[48], t2[48], s[48];
        term_buf node;
        fprintf(out, "    %-26s  %-26s  %20s  %9" PRId64 "  %s / %" PRId64 "\n", dfs_dl_fmt_time(t1, sizeof t1, g->prev_start),
                dfs_dl_fmt_time(t2, sizeof t2, g->start), sec_text(s, sizeof s, g->gap), row->worker_id,
                TERM(node, dfs_dl_label(r, row->node)), row->pid);
    }
}

static void text_window_metrics(FILE *out, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_window *w)
{
    if (!w->nmetrics) {
        fprintf(out, "    system samples: none in the window\n");
        return;
    }
    fprintf(out, "    system samples (start <= t <= end):\n      %-16s  %-22s  %-8s  %6s  %10s  %10s  %10s\n", "node_id",
            "dimension", "name", "count", "min", "mean", "max");
    for (size_t i = 0; i < w->nmetrics; i++) {
        const dfs_dl_metric *m = &w->metrics[i];
        char a[48], b[48], c[48];
        term_buf node, dim, name;
        fprintf(out, "      %-16s  %-22s  %-8s  %6zu  %10s  %10s  %10s\n", TERM(node, dfs_dl_label(r, m->node)),
                TERM(dim, str_of(run, m->dim)), TERM(name, dfs_dl_label(r, m->name)), m->count,
                num_text(a, sizeof a, m->min), num_text(b, sizeof b, m->mean), num_text(c, sizeof c, m->max));
    }
}

static void text_window_events(FILE *out, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_window *w,
                               size_t limit)
{
    fprintf(out, "    framework events overlapping: %zu (%zu finish inside, marked *)\n", w->nevents,
            w->finishing_inside);
    size_t n = limit && limit < w->nevents ? limit : w->nevents;
    for (size_t i = 0; i < n; i++) {
        const dfs_dl_event *e = &r->events[w->events[i]];
        bool inside = e->end >= w->start && e->end <= w->end;
        char a[48], c[32];
        term_buf name, phase, node;
        fprintf(out, "    %c %-26s  %12s us  %s  [%s]  %s / %" PRId64 "\n", inside ? '*' : ' ',
                dfs_dl_fmt_time(a, sizeof a, e->start), us_text(c, sizeof c, e->end - e->start),
                TERM(name, str_of(run, e->name)), TERM(phase, phase_of(run, r, w->events[i])),
                TERM(node, dfs_dl_label(r, e->node)), e->pid);
    }
    if (n < w->nevents)
        fprintf(out, "      ... and %zu more (--window-events 0 lists all)\n", w->nevents - n);
}

static void text_windows(FILE *out, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_report_options *o)
{
    fprintf(out, "\n5. Outlier windows (GetNext: [start, end]; batch: [previous_batch_start, start_time])\n");
    if (!r->nwindows)
        fprintf(out, "  no outlier, no window\n");
    for (size_t i = 0; i < r->nwindows; i++) {
        const dfs_dl_window *w = &r->windows[i];
        char a[48], b[48], c[48], f[64];
        fprintf(out, "  %s outlier #%zu: %s .. %s (%s s)\n", w->kind == DFS_DL_WIN_GETNEXT ? "GetNext" : "batch",
                w->rank + 1, dfs_dl_fmt_time(a, sizeof a, w->start), dfs_dl_fmt_time(b, sizeof b, w->end),
                sec_text(c, sizeof c, w->end - w->start));
        text_window_metrics(out, run, r, w);
        text_window_events(out, run, r, w, o->window_events);
        if (o->windows_dir) {
            dfs_dl_window_file(f, sizeof f, w, NULL);
            fprintf(out, "    slice: %s/%s.json, picture: %s/%s.svg\n", o->windows_dir, f, o->windows_dir, f);
        }
    }
    if (r->windows_skipped)
        fprintf(out, "  %zu more outlier windows not reported (--max-windows)\n", r->windows_skipped);
}

void dfs_dl_write_text(FILE *out, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_report_options *o)
{
    fprintf(out, "SageMaker Debugger data-loader analysis (PT_dataloader_analysis)\n");
    text_inputs(out, run, r);
    text_mappings(out, r);
    text_inits(out, r);
    text_rows_analysis(out, r, 2, DFS_DL_WORKER, "workers spun off", &r->workers, COL_WORKER);
    text_rows_analysis(out, r, 3, DFS_DL_GETNEXT, "calls", &r->getnext, COL_WORKER | COL_WHERE);
    text_batches(out, r);
    text_windows(out, run, r, o);
}

/* ---- JSON ------------------------------------------------------------------------------------- */

/* µs exactly: an integer when whole. */
static void json_us(dfs_jw *w, const char *key, int64_t ns)
{
    if (ns % 1000 == 0)
        dfs_jw_int(w, key, ns / 1000);
    else
        dfs_jw_double(w, key, (double)ns / 1000.0);
}

static void json_time(dfs_jw *w, const char *key, int64_t ns)
{
    char t[48];
    dfs_jw_cstr(w, key, dfs_dl_fmt_time(t, sizeof t, ns));
}

static void json_interval(dfs_jw *w, const dfs_dl_result *r, int64_t start, int64_t end)
{
    json_time(w, "start_time", start);
    json_time(w, "end_time", end);
    json_us(w, "start_time_us", start - r->origin);
    json_us(w, "end_time_us", end - r->origin);
    json_us(w, "duration_us", end - start);
}

static void json_inputs(dfs_jw *w, const dfs_run *run, const dfs_dl_result *r)
{
    dfs_jw_object(w, "inputs");
    dfs_jw_uint(w, "framework_files", r->framework_files);
    dfs_jw_uint(w, "framework_events", r->nevents);
    dfs_jw_uint(w, "system_files", r->nsysfiles);
    dfs_jw_uint(w, "system_samples", r->nsamples);
    json_us(w, "origin_us", r->origin);
    dfs_jw_cstr(w, "origin_file", r->origin_file >= 0 ? file_path(run, (uint32_t)r->origin_file) : NULL);
    dfs_jw_uint(w, "orphan_ends", r->orphan_ends);
    dfs_jw_uint(w, "unclosed_begins", r->unclosed_begins);
    dfs_jw_uint(w, "negative_durations", r->negative_durations);
    dfs_jw_uint(w, "bad_times", r->bad_times);
    dfs_jw_uint(w, "samples_without_value", r->samples_without_value);
    dfs_jw_uint(w, "last_lines_skipped", r->last_lines_skipped);
    dfs_jw_uint(w, "rejected_files", r->rejected_files);
    dfs_jw_array(w, "system_file_list");
    for (size_t i = 0; i < r->nsysfiles; i++) {
        const dfs_dl_sysfile *s = &r->sysfiles[i];
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "path", file_path(run, s->file));
        dfs_jw_uint(w, "samples", s->samples);
        dfs_jw_uint(w, "bad_lines", s->bad_lines);
        dfs_jw_cstr(w, "status", sys_status_name(s->status));
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_end(w);
}

static void json_mappings(dfs_jw *w, const dfs_dl_result *r)
{
    dfs_jw_array(w, "mappings");
    for (size_t i = 0; i < r->nmappings; i++) {
        const dfs_dl_mapping *m = &r->mappings[i];
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "set", dfs_dl_set_name(m->set));
        dfs_jw_cstr(w, "source", m->source);
        dfs_jw_cstr(w, "how", m->how);
        dfs_jw_cstr(w, "pattern", m->pattern);
        dfs_jw_uint(w, "files", m->files);
        dfs_jw_uint(w, "rows", m->rows);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_object(w, "rows");
    for (int s = 0; s < DFS_DL_NSETS; s++) {
        dfs_jw_object(w, dfs_dl_set_name((dfs_dl_set)s));
        dfs_jw_uint(w, "count", r->nrows[s]);
        dfs_jw_uint(w, "duplicates_dropped", r->duplicates[s]);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_stats(dfs_jw *w, const dfs_dl_stats *st, double scale)
{
    dfs_jw_uint(w, "count", st->count);
    dfs_jw_double(w, scale == 1 ? "median_us" : "median_s", st->median_us / scale);
    dfs_jw_double(w, scale == 1 ? "max_us" : "max_s", st->max_us / scale);
}

static void json_row_outliers(dfs_jw *w, const dfs_dl_result *r, const dfs_dl_row *rows, const dfs_dl_stats *st,
                              unsigned cols)
{
    dfs_jw_array(w, "outliers");
    for (size_t k = 0; k < st->noutliers; k++) {
        const dfs_dl_row *row = &rows[st->outliers[k]];
        dfs_jw_object(w, NULL);
        json_interval(w, r, row->start, row->end);
        if (cols & COL_WORKER)
            dfs_jw_int(w, "worker_id", row->worker_id);
        if (cols & COL_WHERE) {
            dfs_jw_cstr(w, "node_id", dfs_dl_label(r, row->node));
            dfs_jw_int(w, "pid", row->pid);
        }
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_inits(dfs_jw *w, const dfs_dl_result *r)
{
    dfs_jw_object(w, "initializations");
    dfs_jw_bool(w, "present", r->nrows[DFS_DL_INIT] > 0);
    dfs_jw_uint(w, "rows", r->nrows[DFS_DL_INIT]);
    dfs_jw_uint(w, "other_type_rows", r->init_other);
    dfs_jw_array(w, "types");
    for (int k = 0; k < DFS_DL_NINIT_TYPES; k++) {
        const dfs_dl_init_type *it = &r->init[k];
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "type", it->type);
        dfs_jw_bool(w, "used", it->stats.count > 0);
        dfs_jw_cstr(w, "pin_memory", dfs_dl_pin_name((dfs_dl_pin)it->pin_memory));
        dfs_jw_int(w, "num_workers", it->num_workers);
        json_stats(w, &it->stats, 1);
        json_row_outliers(w, r, r->rows[DFS_DL_INIT], &it->stats, 0);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_end(w);
}

static void json_rows_analysis(dfs_jw *w, const dfs_dl_result *r, const char *key, dfs_dl_set set,
                               const dfs_dl_stats *st, unsigned cols)
{
    dfs_jw_object(w, key);
    dfs_jw_bool(w, "present", r->nrows[set] > 0);
    json_stats(w, st, 1);
    json_row_outliers(w, r, r->rows[set], st, cols);
    dfs_jw_end(w);
}

static void json_batches(dfs_jw *w, const dfs_dl_result *r)
{
    dfs_jw_object(w, "batch_time");
    dfs_jw_bool(w, "present", r->ngaps > 0);
    dfs_jw_uint(w, "groups", r->batch_groups);
    dfs_jw_uint(w, "negative_gaps", r->negative_gaps);
    json_stats(w, &r->batch, 1e6);
    dfs_jw_array(w, "outliers");
    for (size_t k = 0; k < r->batch.noutliers; k++) {
        const dfs_dl_gap *g = &r->gaps[r->batch.outliers[k]];
        const dfs_dl_row *row = &r->rows[DFS_DL_GETNEXT][g->row];
        dfs_jw_object(w, NULL);
        json_time(w, "previous_batch_start", g->prev_start);
        json_time(w, "start_time", g->start);
        json_us(w, "previous_batch_start_us", g->prev_start - r->origin);
        json_us(w, "start_time_us", g->start - r->origin);
        dfs_jw_double(w, "BatchTime_in_seconds", (double)g->gap / 1e9);
        dfs_jw_int(w, "worker_id", row->worker_id);
        dfs_jw_cstr(w, "node_id", dfs_dl_label(r, row->node));
        dfs_jw_int(w, "pid", row->pid);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_end(w);
}

static void json_window_metrics(dfs_jw *w, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_window *win)
{
    dfs_jw_array(w, "system");
    for (size_t i = 0; i < win->nmetrics; i++) {
        const dfs_dl_metric *m = &win->metrics[i];
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "node_id", dfs_dl_label(r, m->node));
        dfs_jw_cstr(w, "type", str_of(run, m->type));
        dfs_jw_cstr(w, "dimension", str_of(run, m->dim));
        dfs_jw_cstr(w, "name", dfs_dl_label(r, m->name));
        dfs_jw_uint(w, "count", m->count);
        dfs_jw_double(w, "min", m->min);
        dfs_jw_double(w, "mean", m->mean);
        dfs_jw_double(w, "max", m->max);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_window_events(dfs_jw *w, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_window *win,
                               size_t limit)
{
    size_t n = limit && limit < win->nevents ? limit : win->nevents;
    dfs_jw_array(w, "events");
    for (size_t i = 0; i < n; i++) {
        const dfs_dl_event *e = &r->events[win->events[i]];
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "name", str_of(run, e->name));
        dfs_jw_cstr(w, "phase", phase_of(run, r, win->events[i]));
        json_interval(w, r, e->start, e->end);
        dfs_jw_cstr(w, "node_id", dfs_dl_label(r, e->node));
        dfs_jw_int(w, "pid", e->pid);
        dfs_jw_bool(w, "finishes_inside", e->end >= win->start && e->end <= win->end);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_windows(dfs_jw *w, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_report_options *o)
{
    dfs_jw_uint(w, "windows_not_reported", r->windows_skipped);
    dfs_jw_array(w, "windows");
    for (size_t i = 0; i < r->nwindows; i++) {
        const dfs_dl_window *win = &r->windows[i];
        char f[64], path[4200];
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "kind", win->kind == DFS_DL_WIN_GETNEXT ? "getnext" : "batch");
        dfs_jw_uint(w, "rank", win->rank + 1);
        json_interval(w, r, win->start, win->end);
        json_window_metrics(w, run, r, win);
        dfs_jw_uint(w, "events_total", win->nevents);
        dfs_jw_uint(w, "events_finishing_inside", win->finishing_inside);
        json_window_events(w, run, r, win, o->window_events);
        if (o->windows_dir) {
            dfs_dl_window_file(f, sizeof f, win, "json");
            snprintf(path, sizeof path, "%s/%s", o->windows_dir, f);
            dfs_jw_cstr(w, "slice", path);
            dfs_dl_window_file(f, sizeof f, win, "svg");
            snprintf(path, sizeof path, "%s/%s", o->windows_dir, f);
            dfs_jw_cstr(w, "picture", path);
        }
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

void dfs_dl_write_json(FILE *out, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_report_options *o)
{
    dfs_jw w;
    dfs_jw_init(&w, out, true);
    dfs_jw_object(&w, NULL);
    dfs_jw_cstr(&w, "schema", "dfscope-dataloader/1");
    dfs_jw_cstr(&w, "dfscope_version", DFS_VERSION_STRING);
    json_inputs(&w, run, r);
    json_mappings(&w, r);
    json_inits(&w, r);
    json_rows_analysis(&w, r, "workers", DFS_DL_WORKER, &r->workers, COL_WORKER);
    json_rows_analysis(&w, r, "getnext", DFS_DL_GETNEXT, &r->getnext, COL_WORKER | COL_WHERE);
    json_batches(&w, r);
    json_windows(&w, run, r, o);
    dfs_jw_end(&w);
    fputc('\n', out);
}

/* ---- CSV -------------------------------------------------------------------------------------- */

static void csv_us(FILE *out, int64_t ns)
{
    char b[32];
    fprintf(out, ",%s", us_text(b, sizeof b, ns));
}

static void csv_time(FILE *out, int64_t ns)
{
    char t[48];
    fprintf(out, ",%s", dfs_dl_fmt_time(t, sizeof t, ns));
}

static void csv_interval(FILE *out, const dfs_dl_result *r, int64_t start, int64_t end)
{
    csv_time(out, start);
    csv_time(out, end);
    csv_us(out, start - r->origin);
    csv_us(out, end - r->origin);
    csv_us(out, end - start);
}

static void csv_summary_line(FILE *out, const char *analysis, const char *type, bool present, const dfs_dl_stats *st,
                             const char *pin, int64_t nw)
{
    dfs_csv_text(out, analysis);
    fputc(',', out);
    dfs_csv_text(out, type);
    fprintf(out, ",%s,%zu", present ? "true" : "false", st->count);
    dfs_csv_num(out, st->median_us);
    dfs_csv_num(out, st->max_us);
    fprintf(out, ",%zu,%s,", st->noutliers, pin ? pin : "");
    if (pin)
        fprintf(out, "%" PRId64, nw);
    fputc('\n', out);
}

static bool csv_summary(FILE *out, const dfs_run *run, const dfs_dl_result *r)
{
    (void)run;
    fprintf(out, "analysis,type,present,count,median_us,max_us,outliers,pin_memory,num_workers\n");
    for (int k = 0; k < DFS_DL_NINIT_TYPES; k++) {
        const dfs_dl_init_type *it = &r->init[k];
        csv_summary_line(out, "initialization", it->type, it->stats.count > 0, &it->stats,
                         dfs_dl_pin_name((dfs_dl_pin)it->pin_memory), it->num_workers);
    }
    csv_summary_line(out, "workers", "", r->nrows[DFS_DL_WORKER] > 0, &r->workers, NULL, 0);
    csv_summary_line(out, "getnext", "", r->nrows[DFS_DL_GETNEXT] > 0, &r->getnext, NULL, 0);
    csv_summary_line(out, "batch_time", "", r->ngaps > 0, &r->batch, NULL, 0);
    return true;
}

static void csv_row_outliers(FILE *out, const dfs_dl_result *r, const char *analysis, const char *type,
                             const dfs_dl_row *rows, const dfs_dl_stats *st)
{
    for (size_t k = 0; k < st->noutliers; k++) {
        const dfs_dl_row *row = &rows[st->outliers[k]];
        fprintf(out, "%s,", analysis);
        dfs_csv_text(out, type);
        fprintf(out, ",%zu", k + 1);
        csv_interval(out, r, row->start, row->end);
        fprintf(out, ",%" PRId64 ",", row->worker_id);
        dfs_csv_text(out, dfs_dl_label(r, row->node));
        fprintf(out, ",%" PRId64 "\n", row->pid);
    }
}

/* For batch_time the interval is [previous_batch_start, start_time] and duration_us the batch time. */
static bool csv_outliers(FILE *out, const dfs_run *run, const dfs_dl_result *r)
{
    (void)run;
    fprintf(out, "analysis,type,rank,start_time,end_time,start_time_us,end_time_us,duration_us,worker_id,node_id,pid\n");
    for (int k = 0; k < DFS_DL_NINIT_TYPES; k++)
        csv_row_outliers(out, r, "initialization", r->init[k].type, r->rows[DFS_DL_INIT], &r->init[k].stats);
    csv_row_outliers(out, r, "workers", "", r->rows[DFS_DL_WORKER], &r->workers);
    csv_row_outliers(out, r, "getnext", "", r->rows[DFS_DL_GETNEXT], &r->getnext);
    for (size_t k = 0; k < r->batch.noutliers; k++) {
        const dfs_dl_gap *g = &r->gaps[r->batch.outliers[k]];
        const dfs_dl_row *row = &r->rows[DFS_DL_GETNEXT][g->row];
        fprintf(out, "batch_time,,%zu", k + 1);
        csv_interval(out, r, g->prev_start, g->start);
        fprintf(out, ",%" PRId64 ",", row->worker_id);
        dfs_csv_text(out, dfs_dl_label(r, row->node));
        fprintf(out, ",%" PRId64 "\n", row->pid);
    }
    return true;
}

static bool csv_rows(FILE *out, const dfs_run *run, const dfs_dl_result *r)
{
    fprintf(out, "set,start_time,end_time,start_time_us,end_time_us,duration_us,pid,framework_metric,step,"
                 "worker_id,num_workers,pin_memory,process,node_id\n");
    for (int s = 0; s < DFS_DL_NSETS; s++) {
        for (size_t i = 0; i < r->nrows[s]; i++) {
            const dfs_dl_row *row = &r->rows[s][i];
            fputs(dfs_dl_set_name((dfs_dl_set)s), out);
            csv_interval(out, r, row->start, row->end);
            fprintf(out, ",%" PRId64 ",", row->pid);
            dfs_csv_text(out, str_of(run, row->metric));
            fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,", row->step, row->worker_id, row->num_workers,
                    dfs_dl_pin_name((dfs_dl_pin)row->pin_memory));
            dfs_csv_text(out, phase_of(run, r, row->event));
            fputc(',', out);
            dfs_csv_text(out, dfs_dl_label(r, row->node));
            fputc('\n', out);
        }
    }
    return true;
}

static bool csv_window_metrics(FILE *out, const dfs_run *run, const dfs_dl_result *r)
{
    fprintf(out, "kind,rank,start_time,end_time,node_id,type,dimension,name,count,min,mean,max\n");
    for (size_t i = 0; i < r->nwindows; i++) {
        const dfs_dl_window *w = &r->windows[i];
        for (size_t k = 0; k < w->nmetrics; k++) {
            const dfs_dl_metric *m = &w->metrics[k];
            fprintf(out, "%s,%zu", w->kind == DFS_DL_WIN_GETNEXT ? "getnext" : "batch", w->rank + 1);
            csv_time(out, w->start);
            csv_time(out, w->end);
            fputc(',', out);
            dfs_csv_text(out, dfs_dl_label(r, m->node));
            fputc(',', out);
            dfs_csv_text(out, str_of(run, m->type));
            fputc(',', out);
            dfs_csv_text(out, str_of(run, m->dim));
            fputc(',', out);
            dfs_csv_text(out, dfs_dl_label(r, m->name));
            fprintf(out, ",%zu", m->count);
            dfs_csv_num(out, m->min);
            dfs_csv_num(out, m->mean);
            dfs_csv_num(out, m->max);
            fputc('\n', out);
        }
    }
    return true;
}

typedef struct csv_source {
    const dfs_run *run;
    const dfs_dl_result *r;
} csv_source;

static bool write_csv(FILE *out, const void *ctx, size_t which)
{
    static bool (*const writers[])(FILE *, const dfs_run *, const dfs_dl_result *) = {
        csv_summary, csv_outliers, csv_rows, csv_window_metrics};
    const csv_source *x = ctx;
    return writers[which](out, x->run, x->r);
}

int dfs_dl_write_csv_dir(const char *dir, const dfs_run *run, const dfs_dl_result *r, dfs_output_guard *guard,
                         char *err, size_t errlen)
{
    static const dfs_csv_file files[] = {{"summary.csv", write_csv, 0},
                                         {"outliers.csv", write_csv, 1},
                                         {"rows.csv", write_csv, 2},
                                         {"window_metrics.csv", write_csv, 3}};
    const csv_source x = {run, r};
    return dfs_csv_dir_write(dir, true, files, sizeof files / sizeof *files, &x, guard, err, errlen);
}

/* ---- window slices and pictures --------------------------------------------------------------- */

void dfs_dl_window_file(char *buf, size_t n, const dfs_dl_window *w, const char *ext)
{
    snprintf(buf, n, "%s-%zu%s%s", w->kind == DFS_DL_WIN_GETNEXT ? "getnext" : "batch", w->rank + 1,
             ext && *ext ? "." : "", ext ? ext : "");
}

/* The processes of a slice: one per (node, pid) of the events, then one per node of the samples. */
typedef struct slice_lanes {
    struct {
        uint32_t node;
        dfs_str phase; /* smdebug pids are phases local to a file */
        int64_t pid;
    } *v;
    size_t n;
    uint32_t *sys_nodes;
    size_t nsys;
} slice_lanes;

static size_t lane_of(const slice_lanes *l, const dfs_dl_event *e)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].node == e->node && l->v[i].phase == e->phase && l->v[i].pid == e->pid)
            return i;
    return l->n;
}

static size_t sys_lane_of(const slice_lanes *l, uint32_t node)
{
    for (size_t i = 0; i < l->nsys; i++)
        if (l->sys_nodes[i] == node)
            return i;
    return l->nsys;
}

static bool collect_lanes(slice_lanes *l, const dfs_dl_result *r, const dfs_dl_window *w, const size_t *samples,
                          size_t ns)
{
    l->v = malloc((w->nevents ? w->nevents : 1) * sizeof *l->v);
    l->sys_nodes = malloc((ns ? ns : 1) * sizeof *l->sys_nodes);
    if (!l->v || !l->sys_nodes)
        return false;
    for (size_t i = 0; i < w->nevents; i++) {
        const dfs_dl_event *e = &r->events[w->events[i]];
        if (lane_of(l, e) == l->n) {
            l->v[l->n].node = e->node;
            l->v[l->n].phase = e->phase;
            l->v[l->n++].pid = e->pid;
        }
    }
    for (size_t i = 0; i < ns; i++)
        if (sys_lane_of(l, r->samples[samples[i]].node) == l->nsys)
            l->sys_nodes[l->nsys++] = r->samples[samples[i]].node;
    return true;
}

static void slice_process_names(dfs_jw *w, const dfs_run *run, const dfs_dl_result *r, const slice_lanes *l)
{
    char name[512];
    for (size_t i = 0; i < l->n + l->nsys; i++) {
        if (i < l->n)
            snprintf(name, sizeof name, "%s %s (pid %" PRId64 ")", dfs_dl_label(r, l->v[i].node),
                     l->v[i].phase ? str_of(run, l->v[i].phase) : "Unknown", l->v[i].pid);
        else
            snprintf(name, sizeof name, "system %s", dfs_dl_label(r, l->sys_nodes[i - l->n]));
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "name", "process_name");
        dfs_jw_cstr(w, "ph", "M");
        dfs_jw_uint(w, "pid", i + 1);
        dfs_jw_object(w, "args");
        dfs_jw_cstr(w, "name", name);
        dfs_jw_end(w);
        dfs_jw_end(w);
    }
}

static void slice_events(dfs_jw *w, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_window *win,
                         const slice_lanes *l)
{
    for (size_t i = 0; i < win->nevents; i++) {
        const dfs_dl_event *e = &r->events[win->events[i]];
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "name", str_of(run, e->name));
        dfs_jw_cstr(w, "cat", str_of(run, e->cat));
        dfs_jw_cstr(w, "ph", "X");
        json_us(w, "ts", e->start);
        json_us(w, "dur", e->end - e->start);
        dfs_jw_uint(w, "pid", lane_of(l, e) + 1);
        dfs_jw_int(w, "tid", e->tid);
        dfs_jw_object(w, "args");
        dfs_jw_cstr(w, "node_id", dfs_dl_label(r, e->node));
        dfs_jw_cstr(w, "phase", phase_of(run, r, win->events[i]));
        dfs_jw_int(w, "pid", e->pid);
        dfs_jw_cstr(w, "class", dfs_event_class_name((dfs_event_class)e->cls));
        dfs_jw_bool(w, "finishes_inside", e->end >= win->start && e->end <= win->end);
        dfs_jw_end(w);
        dfs_jw_end(w);
    }
}

static void slice_samples(dfs_jw *w, const dfs_run *run, const dfs_dl_result *r, const size_t *idx, size_t ns,
                          const slice_lanes *l)
{
    for (size_t i = 0; i < ns; i++) {
        const dfs_dl_sample *s = &r->samples[idx[i]];
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "name", str_of(run, s->dim));
        dfs_jw_cstr(w, "cat", str_of(run, s->type));
        dfs_jw_cstr(w, "ph", "C");
        json_us(w, "ts", s->t);
        dfs_jw_uint(w, "pid", l->n + sys_lane_of(l, s->node) + 1);
        dfs_jw_object(w, "args");
        dfs_jw_double(w, dfs_dl_label(r, s->name), s->value);
        dfs_jw_end(w);
        dfs_jw_end(w);
    }
}

static bool write_slice(FILE *out, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_window *win)
{
    size_t *idx = NULL;
    size_t ns = dfs_dl_samples_in(r, run, win->start, win->end, NULL, &idx);
    slice_lanes l = {0};
    bool ok = (ns == 0 || idx) && collect_lanes(&l, r, win, idx, ns);
    if (ok) {
        dfs_jw w;
        dfs_jw_init(&w, out, false);
        dfs_jw_object(&w, NULL);
        dfs_jw_array(&w, "traceEvents");
        slice_process_names(&w, run, r, &l);
        slice_events(&w, run, r, win, &l);
        slice_samples(&w, run, r, idx, ns, &l);
        dfs_jw_end(&w);
        dfs_jw_cstr(&w, "displayTimeUnit", "ms");
        dfs_jw_object(&w, "otherData");
        dfs_jw_cstr(&w, "dfscope", "dataloader outlier window");
        dfs_jw_cstr(&w, "kind", win->kind == DFS_DL_WIN_GETNEXT ? "getnext" : "batch");
        dfs_jw_uint(&w, "rank", win->rank + 1);
        json_time(&w, "start_time", win->start);
        json_time(&w, "end_time", win->end);
        dfs_jw_end(&w);
        dfs_jw_end(&w);
        fputc('\n', out);
    }
    free(l.v);
    free(l.sys_nodes);
    free(idx);
    return ok;
}

static dfs_tl_class tl_class_of(uint8_t cls)
{
    switch ((dfs_event_class)cls) {
    case DFS_EVCLASS_COMPUTE: return DFS_TL_COMPUTE;
    case DFS_EVCLASS_DATA_WAIT: return DFS_TL_DATA_WAIT;
    case DFS_EVCLASS_IO: return DFS_TL_IO;
    case DFS_EVCLASS_TRANSFER: return DFS_TL_TRANSFER;
    default: return DFS_TL_OTHER;
    }
}

static bool picture_spans(dfs_timeline *tl, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_window *win)
{
    for (size_t i = 0; i < win->nevents; i++) {
        const dfs_dl_event *e = &r->events[win->events[i]];
        /* smdebug pids are phases local to a file: the phase is part of the lane's identity */
        dfs_tl_lane_key key = {.source = dfs_dl_label(r, e->node), .host = e->phase ? str_of(run, e->phase) : "",
                               .pid = e->pid, .tid = e->tid};
        uint32_t lane = dfs_tl_lane(tl, &key);
        size_t n;
        const char *name = dfs_str_get(run, e->name, &n);
        if (lane == UINT32_MAX ||
            dfs_tl_add_span(tl, lane, e->start, e->end - e->start, name, n, tl_class_of(e->cls)) != DFS_OK)
            return false;
    }
    return true;
}

static bool picture_counters(dfs_timeline *tl, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_window *win)
{
    size_t *idx = NULL;
    size_t ns = dfs_dl_samples_in(r, run, win->start, win->end, NULL, &idx);
    bool ok = ns == 0 || idx;
    bool nodes = false; /* name the node only when the window has samples of several */
    for (size_t i = 1; ok && i < ns; i++)
        nodes |= r->samples[idx[i]].node != r->samples[idx[0]].node;
    for (size_t i = 0; ok && i < ns; i++) {
        const dfs_dl_sample *s = &r->samples[idx[i]];
        char name[256];
        int n = snprintf(name, sizeof name, "%s%s%s %s", nodes ? dfs_dl_label(r, s->node) : "", nodes ? " " : "",
                         str_of(run, s->dim), dfs_dl_label(r, s->name));
        size_t len = n < 0 ? 0 : (size_t)n < sizeof name ? (size_t)n : sizeof name - 1;
        ok = dfs_tl_add_counter(tl, name, len, s->t, s->value) == DFS_OK;
    }
    free(idx);
    return ok;
}

static int write_picture(const char *path, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_window *win,
                         dfs_output_guard *guard, char *err, size_t errlen)
{
    char title[128], sub[160], a[48], b[48], c[48];
    dfs_tl_options o;
    dfs_tl_options_init(&o);
    o.start_ns = win->start;
    o.end_ns = win->end > win->start ? win->end : win->start + 1000; /* a zero-length call: 1 µs */
    snprintf(title, sizeof title, "dfscope dataloader: %s outlier #%zu",
             win->kind == DFS_DL_WIN_GETNEXT ? "GetNext" : "batch time", win->rank + 1);
    snprintf(sub, sizeof sub, "%s .. %s (%s s)", dfs_dl_fmt_time(a, sizeof a, win->start),
             dfs_dl_fmt_time(b, sizeof b, win->end), sec_text(c, sizeof c, win->end - win->start));
    o.title = title;
    o.subtitle = sub;
    dfs_timeline *tl = dfs_tl_new(&o);
    bool ok = tl && picture_spans(tl, run, r, win) && picture_counters(tl, run, r, win);
    int rc = ok ? dfs_tl_write_file(tl, path, guard, err, errlen) : -1;
    if (!ok)
        snprintf(err, errlen, "out of memory drawing %s", path);
    dfs_tl_free(tl);
    return rc;
}

/* The path of a window's slice or picture; -1 when too long (said). */
static int window_path(char *path, size_t size, const char *dir, const dfs_dl_window *win, const char *ext, char *err,
                       size_t errlen)
{
    char f[64];
    dfs_dl_window_file(f, sizeof f, win, ext);
    if (snprintf(path, size, "%s/%s", dir, f) < (int)size)
        return 0;
    snprintf(err, errlen, "output path too long");
    return -1;
}

static int window_files(const char *dir, const dfs_run *run, const dfs_dl_result *r, const dfs_dl_window *win,
                        dfs_output_guard *guard, char *err, size_t errlen)
{
    char path[4096];
    if (window_path(path, sizeof path, dir, win, "json", err, errlen) != 0)
        return -1;
    dfs_atomic_file af;
    if (dfs_atomic_open(&af, path, guard, err, errlen) != 0)
        return -1;
    bool ok = write_slice(af.fp, run, r, win);
    if (!ok)
        snprintf(err, errlen, "out of memory writing %s", path);
    if (dfs_atomic_close(&af, ok, err, errlen) != 0 || !ok)
        return -1;
    window_path(path, sizeof path, dir, win, "svg", err, errlen);
    return write_picture(path, run, r, win, guard, err, errlen);
}

/* True when some file of the windows would be written over an input (said in err). */
static bool windows_refused(const char *dir, const dfs_dl_result *r, dfs_output_guard *guard, char *err, size_t errlen)
{
    char path[4096];
    for (size_t i = 0; i < r->nwindows; i++)
        for (int k = 0; k < 2; k++)
            if (window_path(path, sizeof path, dir, &r->windows[i], k ? "svg" : "json", err, errlen) != 0 ||
                dfs_output_refused(guard, path, err, errlen))
                return true;
    return false;
}

int dfs_dl_write_windows(const char *dir, const dfs_run *run, const dfs_dl_result *r, dfs_output_guard *guard,
                         char *err, size_t errlen)
{
    if (windows_refused(dir, r, guard, err, errlen) || dfs_make_dirs(dir, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < r->nwindows; i++)
        if (window_files(dir, run, r, &r->windows[i], guard, err, errlen) != 0)
            return -1;
    return 0;
}
