#include "output/stats_report.h"

#include <inttypes.h>
#include <string.h>

#include "output/escape.h"
#include "output/format.h"
#include "output/json.h"

typedef struct totals {
    uint64_t events, bad, recovered, traces, skipped, unreadable;
    uint64_t phase[DFS_PHASE_COUNT];
} totals;

static totals sum_files(const dfs_run *run)
{
    totals t = {0};
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        const dfs_file_info *f = dfs_run_file(run, i);
        t.events += f->records;
        t.bad += f->bad_records;
        t.recovered += f->recovered;
        if (f->unreadable)
            t.unreadable++;
        else if (f->format == DFS_FMT_NOT_A_TRACE || f->format == DFS_FMT_UNKNOWN)
            t.skipped++;
        else
            t.traces++;
        for (int p = 0; p < DFS_PHASE_COUNT; p++)
            t.phase[p] += f->phase_counts[p];
    }
    return t;
}

static const char *str(const dfs_run *run, dfs_str s, size_t *len) { return dfs_str_get(run, s, len); }

static size_t shown(size_t n, size_t top) { return top && top < n ? top : n; }

/* ---- text ------------------------------------------------------------------------------------ */

typedef struct format_row {
    char key[64];
    uint64_t files, events;
} format_row;

static size_t group_formats(const dfs_run *run, format_row *rows, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        const dfs_file_info *f = dfs_run_file(run, i);
        char key[64];
        if (f->unreadable)
            snprintf(key, sizeof key, "unreadable");
        else if (f->format == DFS_FMT_NOT_A_TRACE)
            snprintf(key, sizeof key, "not a trace");
        else
            snprintf(key, sizeof key, "%s%s %s", dfs_format_name(f->format), f->gzip ? ".gz" : "",
                     dfs_dialect_name(f->dialect));
        size_t j = 0;
        while (j < n && strcmp(rows[j].key, key) != 0)
            j++;
        if (j == n) {
            if (n == max)
                continue;
            memset(&rows[n], 0, sizeof rows[n]);
            snprintf(rows[n].key, sizeof rows[n].key, "%s", key);
            n++;
        }
        rows[j].files++;
        rows[j].events += f->records;
    }
    return n;
}

static void text_names(FILE *out, const dfs_run *run, const char *title, const dfs_stats_name *v,
                       size_t n, size_t top, bool with_name)
{
    char c1[32], c2[32], c3[32];
    fprintf(out, "\n%s (%zu of %zu, by total time)\n", title, shown(n, top), n);
    fprintf(out, "  %-40s %-16s %14s %14s %12s\n", with_name ? "name" : "category",
            with_name ? "category" : "", "count", "total time", "mean");
    for (size_t i = 0; i < shown(n, top); i++) {
        size_t ln, lc;
        const char *name = str(run, with_name ? v[i].name : v[i].cat, &ln);
        const char *cat = str(run, v[i].cat, &lc);
        if (!ln) /* an event without one: a blank cell would read as a missing row */
            name = "(none)", ln = 6;
        if (!lc)
            cat = "(none)", lc = 6;
        int64_t mean = v[i].count ? v[i].dur_ns / (int64_t)v[i].count : 0;
        char nb[41], cb[17]; /* cells of 40 and 16 bytes */
        fprintf(out, "  %-40s %-16s %14s %14s %12s\n", dfs_term_cell(nb, sizeof nb, name, ln),
                dfs_term_cell(cb, with_name ? sizeof cb : 1, cat, lc), dfs_fmt_count(c1, sizeof c1, v[i].count),
                dfs_fmt_duration(c2, sizeof c2, v[i].dur_ns), dfs_fmt_duration(c3, sizeof c3, mean));
    }
}

static void text_timing(FILE *out, const dfs_timing *t, uint64_t events)
{
    char a[32], b[32];
    double mb = (double)t->text_bytes / 1e6;
    fprintf(out, "\nTiming (-j %d)\n", t->jobs);
    fprintf(out, "  wall time %.3f s, read %s on disk, parsed %s of text\n", t->wall_s,
            dfs_fmt_bytes(a, sizeof a, t->disk_bytes), dfs_fmt_bytes(b, sizeof b, t->text_bytes));
    if (t->wall_s > 0)
        fprintf(out, "  %.1f MB/s of text, %.2f M events/s, peak RSS %" PRIu64 " MB\n",
                mb / t->wall_s, (double)events / t->wall_s / 1e6, t->peak_rss_kb / 1024);
}

void dfs_stats_write_text(FILE *out, const dfs_run *run, const dfs_stats_result *r, size_t top,
                          const dfs_timing *t)
{
    totals tot = sum_files(run);
    char c1[32], c2[64], c3[64], c4[32];
    fprintf(out, "%zu inputs: %" PRIu64 " traces, %" PRIu64 " not traces, %" PRIu64
                 " unreadable; %s events",
            dfs_run_file_count(run), tot.traces, tot.skipped, tot.unreadable,
            dfs_fmt_count(c1, sizeof c1, tot.events));
    if (tot.bad)
        fprintf(out, ", %s unparsable", dfs_fmt_count(c4, sizeof c4, tot.bad));
    fprintf(out, "\n\nFiles by format\n  %-40s %8s %14s\n", "format", "files", "events");
    format_row rows[64];
    size_t nrows = group_formats(run, rows, 64);
    for (size_t i = 0; i < nrows; i++)
        fprintf(out, "  %-40s %8" PRIu64 " %14s\n", rows[i].key, rows[i].files,
                dfs_fmt_count(c1, sizeof c1, rows[i].events));
    fprintf(out, "\nEvents by phase\n");
    for (int p = 0; p < DFS_PHASE_COUNT; p++)
        if (tot.phase[p])
            fprintf(out, "  %-12s %14s\n", dfs_phase_name((dfs_phase)p),
                    dfs_fmt_count(c1, sizeof c1, tot.phase[p]));
    text_names(out, run, "Categories", r->cats, r->ncats, top, false);
    text_names(out, run, "Names", r->names, r->nnames, top, true);
    fprintf(out, "\nProcesses %" PRIu64 ", threads %" PRIu64 ", hosts %" PRIu64
                 ", files accessed %" PRIu64 "\n",
            r->processes, r->threads, r->hosts, r->files_accessed);
    if (r->have_time && r->relative_time) /* offsets from the clock's own zero, not 1970's dates */
        fprintf(out, "Time span %s .. %s on a relative clock, no date (%s)\n",
                dfs_fmt_duration(c2, sizeof c2, r->start_ns), dfs_fmt_duration(c3, sizeof c3, r->end_ns),
                dfs_fmt_duration(c1, sizeof c1, r->end_ns - r->start_ns));
    else if (r->have_time)
        fprintf(out, "Time span %s .. %s (%s)\n", dfs_fmt_time(c2, sizeof c2, r->start_ns),
                dfs_fmt_time(c3, sizeof c3, r->end_ns), dfs_fmt_duration(c1, sizeof c1, r->end_ns - r->start_ns));
    bool any = false;
    for (int p = 0; p < DFS_PROB__COUNT; p++) {
        uint64_t n = dfs_run_problem_count(run, (dfs_problem)p);
        if (!n)
            continue;
        if (!any)
            fprintf(out, "\nProblems (D = damage, V = legal variant)\n");
        any = true;
        fprintf(out, "  %-22s %c %14s\n", dfs_problem_code((dfs_problem)p),
                dfs_problem_class((dfs_problem)p), dfs_fmt_count(c1, sizeof c1, n));
    }
    if (r->unresolved_hashes)
        fprintf(out, "  %-22s %c %14" PRIu64 " (distinct hashes never defined)\n", "unresolved_hash", 'D',
                r->unresolved_hashes);
    if (t && t->enabled)
        text_timing(out, t, tot.events);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static void json_str(dfs_jw *w, const char *key, const dfs_run *run, dfs_str s)
{
    size_t len;
    const char *p = str(run, s, &len);
    dfs_jw_str(w, key, p, len);
}

static void json_files(dfs_jw *w, const dfs_run *run)
{
    dfs_jw_array(w, "files");
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        const dfs_file_info *f = dfs_run_file(run, i);
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "path", f->path);
        dfs_jw_cstr(w, "format", f->unreadable ? "unreadable" : dfs_format_name(f->format));
        dfs_jw_cstr(w, "dialect", dfs_dialect_name(f->dialect));
        dfs_jw_bool(w, "gzip", f->gzip);
        if (f->gzip)
            dfs_jw_uint(w, "gzip_members", f->gzip_members);
        dfs_jw_uint(w, "size", f->size);
        dfs_jw_uint(w, "bytes", f->bytes);
        dfs_jw_uint(w, "events", f->records);
        dfs_jw_uint(w, "unparsable", f->bad_records);
        dfs_jw_uint(w, "recovered", f->recovered);
        dfs_jw_uint(w, "problems", f->problems);
        dfs_jw_bool(w, "incomplete", f->incomplete);
        dfs_jw_bool(w, "relative_time", f->relative_time);
        if (f->unreadable)
            dfs_jw_cstr(w, "error", f->error);
        dfs_jw_cstr(w, "phases", f->phase_letters);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_names(dfs_jw *w, const char *key, const dfs_run *run, const dfs_stats_name *v,
                       size_t n, size_t top, bool with_name)
{
    dfs_jw_array(w, key);
    for (size_t i = 0; i < shown(n, top); i++) {
        dfs_jw_object(w, NULL);
        if (with_name)
            json_str(w, "name", run, v[i].name);
        json_str(w, "cat", run, v[i].cat);
        dfs_jw_uint(w, "count", v[i].count);
        dfs_jw_int(w, "dur_ns", v[i].dur_ns);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_problems(dfs_jw *w, const dfs_run *run, const dfs_stats_result *r)
{
    dfs_jw_object(w, "problems");
    for (int p = 0; p < DFS_PROB__COUNT; p++) {
        uint64_t n = dfs_run_problem_count(run, (dfs_problem)p);
        if (p == DFS_PROB_UNRESOLVED_HASH)
            n += r->unresolved_hashes;
        if (n)
            dfs_jw_uint(w, dfs_problem_code((dfs_problem)p), n);
    }
    dfs_jw_end(w);
    dfs_jw_object(w, "problem_examples");
    for (int p = 0; p < DFS_PROB__COUNT; p++) {
        const dfs_example *ex;
        size_t k = dfs_run_problem_examples(run, (dfs_problem)p, &ex);
        if (!k)
            continue;
        dfs_jw_array(w, dfs_problem_code((dfs_problem)p));
        for (size_t i = 0; i < k; i++) {
            const dfs_file_info *f = dfs_run_file(run, ex[i].file);
            dfs_jw_object(w, NULL);
            dfs_jw_cstr(w, "path", f ? f->path : "");
            dfs_jw_uint(w, "line", ex[i].line);
            dfs_jw_uint(w, "offset", ex[i].offset);
            dfs_jw_cstr(w, "detail", ex[i].detail);
            dfs_jw_end(w);
        }
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

void dfs_stats_write_json(FILE *out, const dfs_run *run, const dfs_stats_result *r, size_t top,
                          const dfs_timing *t)
{
    totals tot = sum_files(run);
    dfs_jw w;
    dfs_jw_init(&w, out, true);
    dfs_jw_object(&w, NULL);
    dfs_jw_cstr(&w, "dfscope_version", DFS_VERSION_STRING);
    dfs_jw_uint(&w, "events_total", tot.events);
    dfs_jw_uint(&w, "unparsable_total", tot.bad);
    dfs_jw_uint(&w, "recovered_total", tot.recovered);
    dfs_jw_uint(&w, "inputs", dfs_run_file_count(run));
    dfs_jw_uint(&w, "traces", tot.traces);
    dfs_jw_uint(&w, "not_traces", tot.skipped);
    dfs_jw_uint(&w, "unreadable", tot.unreadable);
    json_files(&w, run);
    dfs_jw_object(&w, "events_by_phase");
    for (int p = 0; p < DFS_PHASE_COUNT; p++)
        dfs_jw_uint(&w, dfs_phase_name((dfs_phase)p), tot.phase[p]);
    dfs_jw_end(&w);
    json_names(&w, "categories", run, r->cats, r->ncats, top, false);
    json_names(&w, "names", run, r->names, r->nnames, top, true);
    dfs_jw_uint(&w, "processes", r->processes);
    dfs_jw_uint(&w, "threads", r->threads);
    dfs_jw_uint(&w, "hosts", r->hosts);
    dfs_jw_uint(&w, "files_accessed", r->files_accessed);
    if (r->have_time) {
        dfs_jw_int(&w, "start_ns", r->start_ns);
        dfs_jw_int(&w, "end_ns", r->end_ns);
        dfs_jw_int(&w, "time_span_ns", r->end_ns - r->start_ns);
        dfs_jw_bool(&w, "relative_time", r->relative_time);
    } else {
        dfs_jw_null(&w, "time_span_ns");
    }
    json_problems(&w, run, r);
    if (t && t->enabled) {
        dfs_jw_object(&w, "timing");
        dfs_jw_int(&w, "jobs", t->jobs);
        dfs_jw_double(&w, "wall_s", t->wall_s);
        dfs_jw_uint(&w, "disk_bytes", t->disk_bytes);
        dfs_jw_uint(&w, "text_bytes", t->text_bytes);
        dfs_jw_double(&w, "text_mb_per_s", t->wall_s > 0 ? (double)t->text_bytes / 1e6 / t->wall_s : 0);
        dfs_jw_double(&w, "events_per_s", t->wall_s > 0 ? (double)tot.events / t->wall_s : 0);
        dfs_jw_uint(&w, "peak_rss_kb", t->peak_rss_kb);
        dfs_jw_end(&w);
    }
    dfs_jw_end(&w);
}
