/* timeline_report.c - the summary of a timeline picture (timeline_report.h). Lanes are named as
 * the picture labels them; the JSON (schema dfscope-timeline/1) keys the classes by name. */
#include "output/timeline_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/timeline/timeline_model.h"
#include "output/escape.h"
#include "output/format.h"
#include "output/json.h"

char *dfs_tl_fmt_seconds(char *buf, size_t n, int64_t ns)
{
    int64_t whole = ns / 1000000000, frac = ns % 1000000000;
    snprintf(buf, n, "%s%" PRId64 ".%09" PRId64, ns < 0 ? "-" : "", whole < 0 ? -whole : whole,
             frac < 0 ? -frac : frac);
    return buf;
}

typedef struct summary {
    const char *picture;
    int64_t start_ns, end_ns;
    const dfs_tlw_result *r;
    const dfs_tl_lane_info *lanes;
    size_t n;
} summary;

/* "input · host · process (pid 12) / thread", as the picture labels the lane. */
static void lane_name(const dfs_tl_lane_info *l, char *buf, size_t n)
{
    const dfs_tl_lane_key *k = &l->key;
    char pid[48], tid[48];
    if (*k->pid_str)
        snprintf(pid, sizeof pid, "%s", k->pid_str);
    else
        snprintf(pid, sizeof pid, "pid %" PRId64, k->pid);
    if (*k->tid_str)
        snprintf(tid, sizeof tid, "%s", k->tid_str);
    else
        snprintf(tid, sizeof tid, "tid %" PRId64, k->tid);
    snprintf(buf, n, "%s%s%s%s%s%s%s%s / %s", k->source, *k->source ? " \xC2\xB7 " : "", k->host,
             *k->host ? " \xC2\xB7 " : "", k->process, *k->process ? " (" : "", pid, *k->process ? ")" : "",
             *k->thread ? k->thread : tid);
}

/* JSON keys of the classes. */
static const char *const class_keys[DFS_TL_NCLASS] = {"compute", "data_wait", "io", "transfer", "other"};

static void write_json_lanes(dfs_jw *j, const dfs_tl_lane_info *lanes, size_t n)
{
    dfs_jw_array(j, "lanes");
    for (size_t i = 0; i < n; i++) {
        const dfs_tl_lane_key *k = &lanes[i].key;
        dfs_jw_object(j, NULL);
        dfs_jw_cstr(j, "source", k->source);
        dfs_jw_cstr(j, "host", k->host);
        if (*k->pid_str)
            dfs_jw_cstr(j, "pid", k->pid_str);
        else
            dfs_jw_int(j, "pid", k->pid);
        if (*k->tid_str)
            dfs_jw_cstr(j, "tid", k->tid_str);
        else
            dfs_jw_int(j, "tid", k->tid);
        dfs_jw_cstr(j, "process", k->process);
        dfs_jw_cstr(j, "thread", k->thread);
        dfs_jw_bool(j, "drawn", lanes[i].drawn);
        if (lanes[i].other)
            dfs_jw_bool(j, "other_row", true);
        dfs_jw_object(j, "spans");
        for (int c = 0; c < DFS_TL_NCLASS; c++)
            dfs_jw_uint(j, class_keys[c], lanes[i].spans[c]);
        dfs_jw_end(j);
        dfs_jw_uint(j, "aggregated", lanes[i].aggregated);
        dfs_jw_end(j);
    }
    dfs_jw_end(j);
}

static void write_json(FILE *out, const summary *x)
{
    const dfs_tlw_result *r = x->r;
    dfs_tl_summary s;
    dfs_tl_summarize(r->tl, &s);
    dfs_jw j;
    dfs_jw_init(&j, out, true);
    dfs_jw_object(&j, NULL);
    dfs_jw_cstr(&j, "schema", "dfscope-timeline/1");
    dfs_jw_cstr(&j, "output", x->picture);
    dfs_jw_object(&j, "window");
    dfs_jw_int(&j, "start_ns", x->start_ns);
    dfs_jw_int(&j, "end_ns", x->end_ns);
    dfs_jw_end(&j);
    dfs_jw_object(&j, "trace");
    dfs_jw_int(&j, "start_ns", r->trace_start_ns);
    dfs_jw_int(&j, "end_ns", r->trace_end_ns);
    dfs_jw_end(&j);
    dfs_jw_uint(&j, "lanes_total", s.lanes);
    dfs_jw_uint(&j, "lanes_drawn", s.lanes_drawn);
    if (s.lanes_other) /* only then: the document of an ordinary picture stays as it was */
        dfs_jw_uint(&j, "lanes_other_row", s.lanes_other);
    if (s.lanes_empty) /* likewise */
        dfs_jw_uint(&j, "lanes_empty", s.lanes_empty);
    dfs_jw_object(&j, "spans");
    for (int c = 0; c < DFS_TL_NCLASS; c++)
        dfs_jw_uint(&j, class_keys[c], s.spans[c]);
    dfs_jw_end(&j);
    dfs_jw_uint(&j, "spans_drawn", s.spans_drawn);
    dfs_jw_uint(&j, "spans_aggregated", s.spans_aggregated);
    if (s.lanes_other)
        dfs_jw_uint(&j, "spans_other_row", s.spans_other);
    dfs_jw_uint(&j, "counters", s.counters);
    dfs_jw_uint(&j, "samples", s.samples);
    dfs_jw_uint(&j, "unmatched_begin", r->unmatched_begin);
    dfs_jw_uint(&j, "unmatched_end", r->unmatched_end);
    dfs_jw_uint(&j, "bad_time", r->bad_time);
    write_json_lanes(&j, x->lanes, x->n);
    dfs_jw_end(&j);
    fputc('\n', out);
}

char *dfs_tl_fmt_clock(char *buf, size_t n, int64_t t, bool epoch)
{
    if (epoch)
        return dfs_fmt_time(buf, n, t);
    size_t len = strlen(dfs_tl_fmt_seconds(buf, n, t));
    snprintf(buf + len, n - len, " s");
    return buf;
}

/* The window from the trace's start (what --window +A:+B takes) and on the trace's clock; the trace's
 * span. */
static void window_lines(FILE *out, const summary *x)
{
    const dfs_tlw_result *r = x->r;
    bool epoch = dfs_fmt_epoch_clock(r->trace_start_ns);
    char a[48], b[48], c[48], d[48], w[40];
    fprintf(out, "window     %s to %s from the trace's start (%s): %s to %s\n",
            dfs_fmt_offset(a, sizeof a, dfs_tl_sat_sub(x->start_ns, r->trace_start_ns)),
            dfs_fmt_offset(b, sizeof b, dfs_tl_sat_sub(x->end_ns, r->trace_start_ns)),
            dfs_fmt_duration(w, sizeof w, dfs_tl_sat_sub(x->end_ns, x->start_ns)), dfs_tl_fmt_clock(c, sizeof c, x->start_ns, epoch),
            dfs_tl_fmt_clock(d, sizeof d, x->end_ns, epoch));
    fprintf(out, "trace      %s: %s to %s%s\n", dfs_fmt_duration(w, sizeof w, dfs_tl_sat_sub(r->trace_end_ns, r->trace_start_ns)),
            dfs_tl_fmt_clock(c, sizeof c, r->trace_start_ns, epoch), dfs_tl_fmt_clock(d, sizeof d, r->trace_end_ns, epoch),
            epoch ? " (UTC)" : " on the trace's clock (no date)");
}

static void write_table(FILE *out, const summary *x)
{
    const dfs_tlw_result *r = x->r;
    dfs_tl_summary s;
    dfs_tl_summarize(r->tl, &s);
    char a[48], b[48], c[32];
    fprintf(out, "picture    %s\n", x->picture);
    window_lines(out, x);
    fprintf(out, "lanes      %zu drawn of %zu", s.lanes_drawn, s.lanes);
    if (s.lanes_other)
        fprintf(out, ", %zu more together in one row, 'other lanes' (%s spans)", s.lanes_other,
                dfs_fmt_count(c, sizeof c, s.spans_other));
    if (s.lanes_empty)
        fprintf(out, "; %zu more with nothing in this window left out", s.lanes_empty);
    fputc('\n', out);
    fprintf(out, "spans     ");
    for (int k = 0; k < DFS_TL_NCLASS; k++)
        fprintf(out, " %s %s%s", dfs_tl_class_name((dfs_tl_class)k), dfs_fmt_count(c, sizeof c, s.spans[k]),
                k + 1 < DFS_TL_NCLASS ? "," : "\n");
    fprintf(out, "           %s drawn as rectangles, %s in per-pixel busy bars (drawn lanes)\n",
            dfs_fmt_count(a, sizeof a, s.spans_drawn), dfs_fmt_count(b, sizeof b, s.spans_aggregated));
    fprintf(out, "counters   %zu charts, %s samples\n", s.counters, dfs_fmt_count(c, sizeof c, s.samples));
    if (r->bad_time)
        fprintf(out, "skipped    %" PRIu64 " records without a usable time\n", r->bad_time);
    if (r->unmatched_begin || r->unmatched_end)
        fprintf(out, "unpaired   %" PRIu64 " B without E, %" PRIu64 " E without B (not drawn)\n", r->unmatched_begin,
                r->unmatched_end);
    for (size_t i = 0; i < x->n; i++) {
        char name[512];
        uint64_t total = 0;
        for (int k = 0; k < DFS_TL_NCLASS; k++)
            total += x->lanes[i].spans[k];
        lane_name(&x->lanes[i], name, sizeof name);
        fprintf(out, "  %s ", x->lanes[i].drawn ? " " : x->lanes[i].other ? "~" : "-");
        dfs_term_puts(out, name); /* hosts, processes and threads as the trace names them */
        fprintf(out, ": %s span%s\n", dfs_fmt_count(c, sizeof c, total), total == 1 ? "" : "s");
    }
}

bool dfs_tl_write_summary(FILE *out, bool json, const char *picture, int64_t start_ns, int64_t end_ns,
                          const dfs_tlw_result *r)
{
    size_t n = dfs_tl_lanes(r->tl, NULL, 0);
    dfs_tl_lane_info *lanes = calloc(n ? n : 1, sizeof *lanes);
    if (!lanes)
        return false;
    summary x = {picture, start_ns, end_ns, r, lanes, dfs_tl_lanes(r->tl, lanes, n)};
    if (json)
        write_json(out, &x);
    else
        write_table(out, &x);
    free(lanes);
    return true;
}
