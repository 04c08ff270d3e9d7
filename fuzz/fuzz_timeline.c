/* fuzz_timeline.c - the timeline picture (analyze/timeline: --window syntax, the reading consumer,
 * the picture; output/timeline_svg.c and timeline_report.c: the SVG and the summary) driven as
 * `dfscope timeline` drives it.
 *
 * Input: a first line "WINDOW [WIDTH [DEPTH [LANES]]]" (the --window text and the drawing options;
 * width 200..2000 here, to keep runs short), then either a trace (any text: written to a memory
 * file and read by the library with one worker, measured first when the window is relative or open, drawn,
 * and read again with the final clocks when the drawing pass asks to) or, after a NUL byte, binary
 * spans and counter samples given to the picture directly, split between two pictures that are
 * then merged (20 bytes each: start and duration as int64, lane, kind, name). The binary form
 * reaches times and durations the trace parsers never produce.
 *
 * Oracles besides "no crash, no sanitizer report, no timeout": a window that does not parse has a
 * message; a resolved window is not empty; a trace's span does not end before it starts; a second
 * pass settles; writing succeeds (dfs_tl_new may refuse a window, as the command does: one wider
 * than INT64_MAX ns); the SVG and the summary stay under 64 MiB (far above what the
 * bounds of timeline.h allow for these inputs: the writer aborts the run as soon as it passes). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fopencookie, memfd_create */
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/common/clocks.h"
#include "analyze/timeline/tlwindow.h"
#include "output/timeline_report.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

#define MAX_INPUT 65536
#define MAX_OUTPUT ((uint64_t)64 << 20)
#define RECORD 20

static int trace_fd = -1; /* a memory file: nothing is left on disk, even when a run aborts */
static char trace_path[64]; /* /proc/self/fd/N, which the library opens as any path */

static void die(const char *what)
{
    fprintf(stderr, "fuzz_timeline: %s\n", what);
    abort();
}

/* ---- an output that counts what it is given, and refuses to grow without bound ---- */

static ssize_t count_write(void *cookie, const char *buf, size_t n)
{
    (void)buf;
    uint64_t *total = cookie;
    *total += n;
    if (*total > MAX_OUTPUT)
        die("the output grows beyond 64 MiB");
    return (ssize_t)n;
}

static FILE *counting_file(uint64_t *total)
{
    *total = 0;
    cookie_io_functions_t io = {.write = count_write};
    FILE *f = fopencookie(total, "w", io);
    if (!f)
        die("fopencookie");
    return f;
}

/* ---- the first line ---- */

typedef struct settings {
    char window[256];
    unsigned width, depth, lanes;
} settings;

/* The first line's fields; false when it is too long to be a command line's. */
static bool read_settings(const uint8_t *data, size_t len, settings *s, size_t *used)
{
    const uint8_t *nl = memchr(data, '\n', len);
    size_t n = nl ? (size_t)(nl - data) : len;
    *used = nl ? n + 1 : n;
    if (n >= sizeof s->window)
        return false;
    memcpy(s->window, data, n);
    s->window[n] = '\0';
    if (memchr(s->window, '\0', n))
        return false;
    long v[3] = {1200, 6, 0};
    char *sp = strchr(s->window, ' ');
    if (sp) {
        *sp = '\0';
        char *p = sp + 1;
        for (int i = 0; i < 3 && *p; i++)
            v[i] = strtol(p, &p, 10);
    }
    s->width = v[0] < 200 ? 200 : v[0] > 2000 ? 2000 : (unsigned)v[0];
    s->depth = v[1] < 1 ? 1 : v[1] > 64 ? 64 : (unsigned)v[1];
    s->lanes = v[2] < 0 ? 0 : v[2] > 1000 ? 1000 : (unsigned)v[2];
    return true;
}

static void draw_options(const settings *s, int64_t start, int64_t end, dfs_tl_options *o)
{
    dfs_tl_options_init(o);
    o->start_ns = start;
    o->end_ns = end;
    o->width_px = s->width;
    o->max_depth = s->depth;
    o->max_lanes = s->lanes;
    o->title = "fuzz";
    o->subtitle = "inputs: trace.json";
}

/* Everything the command writes of a finished picture, to a counting sink. */
static void write_picture(const dfs_timeline *tl, const dfs_tlw_result *r, int64_t start, int64_t end)
{
    uint64_t total;
    FILE *f = counting_file(&total);
    if (dfs_tl_write(tl, f) != DFS_OK)
        die("dfs_tl_write failed");
    dfs_tl_summary sum;
    dfs_tl_summarize(tl, &sum);
    if (sum.lanes_drawn > sum.lanes)
        die("more lanes drawn than there are");
    dfs_tl_lane_info info[4];
    (void)dfs_tl_lanes(tl, info, 4);
    if (r && (!dfs_tl_write_summary(f, false, "t.svg", start, end, r) ||
              !dfs_tl_write_summary(f, true, "t.svg", start, end, r)))
        die("the summary could not be written");
    char a[48], b[48];
    fprintf(f, "%s %s\n", dfs_tl_fmt_seconds(a, sizeof a, start), dfs_tl_fmt_seconds(b, sizeof b, end));
    fclose(f);
}

/* ---- the reading path, as cmd_timeline.c runs it ---- */

static dfs_run *open_run(void)
{
    dfs_options o;
    dfs_options_init(&o);
    o.jobs = 1;
    dfs_run *run = dfs_run_new(&o);
    if (!run)
        die("out of memory");
    if (dfs_run_add_path(run, trace_path) != DFS_OK)
        die("the trace file vanished");
    return run;
}

typedef struct pass {
    dfs_run *run;
    dfs_tlw *w;
    const dfs_tlw_result *r;
} pass;

static void pass_free(pass *p)
{
    dfs_tlw_free(p->w);
    dfs_run_free(p->run);
    memset(p, 0, sizeof *p);
}

static bool run_pass(const dfs_tlw_options *o, pass *p)
{
    char err[256];
    p->run = open_run();
    p->w = dfs_tlw_new(o, err, sizeof err);
    if (!p->w)
        die(err);
    dfs_consumer *cs[] = {dfs_tlw_consumer(p->w)};
    int rc = dfs_run_read(p->run, cs, 1);
    if (rc < DFS_EXIT_OK || rc > DFS_EXIT_OUTPUT)
        die("an exit code outside 0..4");
    p->r = rc == DFS_EXIT_OUTPUT ? NULL : dfs_tlw_finish(p->w, p->run);
    if (p->r && p->r->have_span && p->r->trace_end_ns < p->r->trace_start_ns)
        die("the trace ends before it starts");
    return rc != DFS_EXIT_OUTPUT;
}

/* The window in absolute times, from a measuring pass when it depends on the trace (whose final
 * clocks and sources, [*nfiles], the drawing pass then uses, as cmd_timeline.c does). */
static bool resolve(const dfs_tl_window *win, int64_t *start, int64_t *end, dfs_file_clock **clocks,
                    uint8_t **sources, size_t *nfiles)
{
    char err[256] = "";
    int64_t first = 0, last = 0;
    if (dfs_tl_window_needs_span(win)) {
        dfs_tlw_options bo;
        dfs_tlw_options_init(&bo);
        bo.bounds_only = true;
        pass p = {0};
        bool ok = run_pass(&bo, &p) && p.r && p.r->have_span;
        if (ok) {
            first = p.r->trace_start_ns;
            last = p.r->trace_end_ns;
            *clocks = dfs_run_final_clocks(p.run);
            *sources = dfs_tlw_final_sources(p.run);
            *nfiles = dfs_run_file_count(p.run);
        }
        pass_free(&p);
        if (!ok)
            return false;
    }
    if (!dfs_tl_window_resolve(win, first, last, start, end, err, sizeof err)) {
        if (!err[0])
            die("a window refused without a message");
        return false;
    }
    if (*end <= *start)
        die("an empty window resolved");
    return true;
}

static void draw_trace(const settings *s, const dfs_tl_window *win, const uint8_t *trace, size_t len)
{
    if (ftruncate(trace_fd, 0) != 0 || (len && pwrite(trace_fd, trace, len, 0) != (ssize_t)len))
        die("cannot write the trace");
    int64_t start, end;
    dfs_file_clock *clocks = NULL;
    uint8_t *sources = NULL;
    size_t nfiles = 0;
    if (resolve(win, &start, &end, &clocks, &sources, &nfiles)) {
        dfs_tlw_options o;
        dfs_tlw_options_init(&o);
        draw_options(s, start, end, &o.draw);
        o.clocks = clocks;
        o.sources = sources;
        o.nfiles = nfiles;
        pass p = {0}, again = {0};
        dfs_file_clock *final = NULL;
        uint8_t *final_sources = NULL;
        const dfs_tlw_result *r = NULL;
        if (run_pass(&o, &p)) {
            r = p.r;
            if (!r && dfs_tlw_needs_rerun(p.w)) { /* timeline_analysis.c: prepare_rerun */
                o.clocks = final = dfs_run_final_clocks(p.run);
                o.sources = final_sources = dfs_tlw_final_sources(p.run);
                o.nfiles = dfs_run_file_count(p.run);
                if (final && final_sources && run_pass(&o, &again)) {
                    r = again.r;
                    if (!r && dfs_tlw_needs_rerun(again.w))
                        die("the second pass did not settle");
                }
            }
        }
        if (r && r->tl)
            write_picture(r->tl, r, start, end);
        pass_free(&again);
        pass_free(&p);
        free(final);
        free(final_sources);
    }
    free(clocks);
    free(sources);
}

/* ---- the binary path: spans and samples given to the picture directly ---- */

typedef struct record {
    int64_t start, dur;
    uint8_t lane, kind;
    uint16_t name;
} record;

static record record_at(const uint8_t *p)
{
    record r;
    memcpy(&r.start, p, 8);
    memcpy(&r.dur, p + 8, 8);
    r.lane = p[16];
    r.kind = p[17];
    memcpy(&r.name, p + 18, 2);
    return r;
}

static int64_t end_of(const record *r)
{
    int64_t e;
    return __builtin_add_overflow(r->start, r->dur > 0 ? r->dur : 0, &e) ? INT64_MAX : e;
}

static void add_record(dfs_timeline *tl, const record *r, const uint32_t *lanes)
{
    char name[16];
    int n = snprintf(name, sizeof name, "n%u", (unsigned)(r->name % 50));
    unsigned kind = r->kind % (DFS_TL_NCLASS + 1);
    if (kind == DFS_TL_NCLASS) { /* a counter sample: the duration's bits as its value */
        double v;
        memcpy(&v, &r->dur, sizeof v);
        (void)dfs_tl_add_counter(tl, name, (size_t)n, r->start, v);
    } else {
        (void)dfs_tl_add_span(tl, lanes[r->lane % 8], r->start, r->dur, name, (size_t)n, (dfs_tl_class)kind);
    }
}

static bool make_lanes(dfs_timeline *tl, uint32_t *lanes)
{
    static const char *const threads[] = {"main", NULL, "worker", "", NULL, "io", "gpu", NULL};
    for (unsigned i = 0; i < 8; i++) {
        char pid[16];
        snprintf(pid, sizeof pid, "p%u", i % 3);
        dfs_tl_lane_key k = {.source = i < 4 ? "a" : "b", .host = i % 2 ? "node1" : NULL, .pid = i % 3,
                             .tid = (int64_t)i - 4, .pid_str = i == 7 ? pid : NULL, .thread = threads[i]};
        lanes[i] = dfs_tl_lane(tl, &k);
        if (lanes[i] == UINT32_MAX)
            return false;
    }
    return true;
}

static void draw_records(const settings *s, const dfs_tl_window *win, const uint8_t *data, size_t len)
{
    size_t n = len / RECORD;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        record r = record_at(data + i * RECORD);
        first = r.start < first ? r.start : first;
        last = end_of(&r) > last ? end_of(&r) : last;
    }
    if (!n)
        first = last = 0;
    int64_t start, end;
    char err[256] = "";
    if (!dfs_tl_window_resolve(win, first, last, &start, &end, err, sizeof err)) {
        if (!err[0])
            die("a window refused without a message");
        return;
    }
    if (end <= start)
        die("an empty window resolved");
    dfs_tl_options o;
    draw_options(s, start, end, &o);
    dfs_timeline *a = dfs_tl_new(&o), *b = dfs_tl_new(&o);
    uint32_t la[8], lb[8];
    if (a && b && make_lanes(a, la) && make_lanes(b, lb)) { /* a window wider than INT64_MAX ns is refused */
        for (size_t i = 0; i < n; i++) {
            record r = record_at(data + i * RECORD);
            add_record(i % 2 ? b : a, &r, i % 2 ? lb : la);
        }
        if (dfs_tl_merge(a, b) != DFS_OK)
            die("two pictures of one window do not merge");
        write_picture(a, NULL, start, end);
    }
    dfs_tl_free(a);
    dfs_tl_free(b);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    trace_fd = memfd_create("trace.json", 0);
    if (trace_fd < 0)
        die(strerror(errno));
    snprintf(trace_path, sizeof trace_path, "/proc/self/fd/%d", trace_fd);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    if (len > MAX_INPUT)
        return 0;
    settings s;
    size_t used;
    if (!read_settings(data, len, &s, &used))
        return 0;
    dfs_tl_window win;
    char err[256] = "";
    if (!dfs_tl_parse_window(s.window, &win, err, sizeof err)) {
        if (!err[0])
            die("a window refused without a message");
        return 0;
    }
    if (used < len && data[used] == '\0')
        draw_records(&s, &win, data + used + 1, len - used - 1);
    else
        draw_trace(&s, &win, data + used, len - used);
    return 0;
}
