/* test_overlap.c - the overlap analysis (analyze/overlap/overlap.h) on small traces with hand-computed
 * answers: every interval rule of overlap.md §3 and the worked examples of §4 (exact, approximate
 * and G0-exact), scopes, bins, epochs, priorities, extra classes, sizes and quantiles, bad input,
 * the streaming watermark and its fallback, and a property test against a brute-force reference
 * written independently here (a bitmap per µs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/preset.h"
#include "analyze/overlap/overlap.h"
#include "output/overlap_report.h"
#include "testutil.h"

#define US 1000 /* ns per µs: the traces are written in µs */
#define BASE 1000000 /* µs: event times are BASE + the example's time */

/* ----- writing traces ------------------------------------------------------------------------- */

typedef struct tbuf {
    char *s;
    size_t n, cap;
    int id;
} tbuf;

static void tb_add(tbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char line[1024];
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof line);
    if (b->n + (size_t)n + 2 > b->cap) {
        b->cap = 2 * (b->cap + (size_t)n + 2);
        b->s = realloc(b->s, b->cap);
        assert_non_null(b->s);
    }
    memcpy(b->s + b->n, line, (size_t)n);
    b->n += (size_t)n;
    b->s[b->n++] = '\n';
    b->s[b->n] = '\0';
}

/* One complete event; args is a JSON object body ("" for none). */
static void tb_ev(tbuf *b, const char *name, const char *cat, int pid, int tid, long long ts, long long dur,
                  const char *args)
{
    tb_add(b, "{\"id\":%d,\"name\":\"%s\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":%lld,\"ph\":\"X\","
              "\"args\":{%s}}",
           ++b->id, name, cat, pid, tid, BASE + ts, dur, args ? args : "");
}

/* An event of class C, I or A (cats c, i, a) at [s, e) µs. */
static void cls_ev(tbuf *b, char cls, int pid, int tid, long long s, long long e)
{
    char cat[2] = {(char)(cls - 'A' + 'a'), 0};
    tb_ev(b, "op", cat, pid, tid, s, e - s, "");
}

/* ----- running the analysis ------------------------------------------------------------------- */

typedef struct setup {
    dfs_overlap_method method;
    dfs_overlap_scope scope;
    int64_t g_us;           /* bin width in µs, 0 none */
    const char *compute, *io, *app_io, *epochs, *steps;
    dfs_overlap_class_def extra[2];
    size_t nextra;
    bool post_read;
    int jobs;
    uint64_t chunk;
    uint64_t hold;
    bool no_streaming;
    bool no_global;         /* default: the global scope too */
    const char *preset;     /* default "posix" */
} setup;

typedef struct outcome {
    dfs_preset *preset;
    dfs_run *run;
    dfs_overlap *ov;
    const dfs_overlap_result *r;
    bool reran;
    char path[512];
} outcome;

static void std_classes(setup *s)
{
    if (!s->compute)
        s->compute = "cat == \"c\"";
    if (!s->io)
        s->io = "cat == \"i\"";
    if (!s->app_io)
        s->app_io = "cat == \"a\"";
}

static bool one_pass(const setup *s, const dfs_overlap_options *o, outcome *out)
{
    char err[256];
    out->ov = dfs_overlap_new(o, err, sizeof err);
    if (!out->ov)
        fail_msg("dfs_overlap_new: %s", err);
    out->run = tu_run(s->jobs ? s->jobs : 1, s->chunk, 0);
    assert_int_equal(dfs_run_add_path(out->run, out->path), DFS_OK);
    dfs_consumer *c[] = {dfs_overlap_consumer(out->ov)};
    int rc = dfs_run_read(out->run, c, 1);
    assert_true(rc == DFS_EXIT_OK || rc == DFS_EXIT_DAMAGED);
    out->r = dfs_overlap_finish(out->ov, out->run);
    return out->r != NULL;
}

/* Reads the trace text as the CLI does: a provisional origin (here: deliberately off by half a bin
 * when there are bins, to exercise the origin check), then a second pass when asked. */
static void run_text(setup s, const char *text, outcome *out)
{
    memset(out, 0, sizeof *out);
    std_classes(&s);
    snprintf(out->path, sizeof out->path, "%s", tu_temp_file(".pfw", text, strlen(text)));
    dfs_preset_error perr;
    out->preset = dfs_preset_load(s.preset ? s.preset : "posix", &perr);
    assert_non_null(out->preset);
    dfs_overlap_options o = {.preset = out->preset, .compute = s.compute, .io = s.io, .app_io = s.app_io,
                             .epochs = s.epochs, .steps = s.steps, .extra = s.extra, .nextra = s.nextra,
                             .post_read = s.post_read, .method = s.method, .scope = s.scope,
                             .granularity_ns = s.g_us * US, .origin_ns = (int64_t)BASE * US,
                             .no_streaming = s.no_streaming, .hold_intervals = s.hold, .global = !s.no_global};
    if (one_pass(&s, &o, out))
        return;
    dfs_overlap_rerun info;
    assert_true(dfs_overlap_needs_rerun(out->ov, &info));
    o.origin_ns = info.origin_ns;
    o.no_streaming |= info.no_streaming;
    dfs_overlap_free(out->ov);
    dfs_run_free(out->run);
    out->reran = true;
    assert_true(one_pass(&s, &o, out));
}

static void done(outcome *o)
{
    dfs_overlap_free(o->ov);
    dfs_run_free(o->run);
    dfs_preset_free(o->preset);
}

static const dfs_overlap_unit *unit(const dfs_overlap_unit *u, size_t n, const char *pid, const char *tid)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(u[i].pid, pid) == 0 && (!tid || (u[i].tid && strcmp(u[i].tid, tid) == 0)))
            return &u[i];
    fail_msg("no unit pid %s tid %s", pid, tid ? tid : "-");
    return NULL;
}

/* Checks one unit's main quantities, in µs. */
static void expect(const dfs_overlap_values *v, long long C, long long I, long long A, long long IC, long long AC)
{
    const dfs_overlap_class_values *c = v->cls;
    assert_int_equal(c[DFS_OVC_COMPUTE].time, C * US);
    assert_int_equal(c[DFS_OVC_IO].time, I * US);
    assert_int_equal(c[DFS_OVC_APP_IO].time, A * US);
    assert_int_equal(c[DFS_OVC_IO].with_compute, IC * US);
    assert_int_equal(c[DFS_OVC_APP_IO].with_compute, AC * US);
    assert_int_equal(c[DFS_OVC_IO].unoverlapped, (I - IC) * US);
    assert_int_equal(c[DFS_OVC_IO].compute_unoverlapped, (C - IC) * US);
    assert_int_equal(c[DFS_OVC_APP_IO].unoverlapped, (A - AC) * US);
    assert_int_equal(c[DFS_OVC_APP_IO].compute_unoverlapped, (C - AC) * US);
}

/* G0's four "only" numbers (approximate and G0-exact), in µs. */
static void expect_only(const dfs_overlap_values *v, long long io, long long comp, long long app, long long app_comp)
{
    assert_int_equal(v->cls[DFS_OVC_IO].unoverlapped, io * US);
    assert_int_equal(v->cls[DFS_OVC_IO].compute_unoverlapped, comp * US);
    assert_int_equal(v->cls[DFS_OVC_APP_IO].unoverlapped, app * US);
    assert_int_equal(v->cls[DFS_OVC_APP_IO].compute_unoverlapped, app_comp * US);
}

/* ----- overlap.md §4, example 1 --------------------------------------------------------------- */

static void example1(tbuf *b)
{
    tb_add(b, "[");
    cls_ev(b, 'C', 1, 1, 0, 10);
    cls_ev(b, 'C', 1, 1, 20, 30);
    cls_ev(b, 'I', 1, 1, 5, 15);
    cls_ev(b, 'I', 1, 1, 25, 26);
    cls_ev(b, 'I', 1, 1, 40, 45);
    cls_ev(b, 'A', 1, 1, 12, 22);
}

static void test_example1_exact(void **state)
{
    (void)state;
    tbuf b = {0};
    example1(&b);
    static const dfs_overlap_scope scopes[] = {DFS_OVERLAP_THREAD, DFS_OVERLAP_PROCESS, DFS_OVERLAP_GLOBAL};
    for (size_t k = 0; k < 3; k++) {
        outcome o;
        run_text((setup){.scope = scopes[k]}, b.s, &o);
        assert_int_equal(o.r->method, DFS_OVERLAP_EXACT);
        expect(&o.r->summary, 20, 16, 10, 6, 2);
        expect(&o.r->global, 20, 16, 10, 6, 2);
        assert_int_equal(o.r->summary.total_time, 45 * US);
        assert_int_equal(o.r->nprocesses, 1);
        expect(&o.r->per_process[0].v, 20, 16, 10, 6, 2);
        assert_true(o.r->have_global);
        assert_int_equal(o.r->global.cls[DFS_OVC_IO].sum_dur, 16 * US);
        assert_int_equal(o.r->global.cls[DFS_OVC_IO].events, 3);
        assert_int_equal(o.r->events, 6);
        done(&o);
    }
    free(b.s);
}

static void test_example1_approximate(void **state)
{
    (void)state;
    tbuf b = {0};
    example1(&b);
    outcome o;
    run_text((setup){.method = DFS_OVERLAP_APPROXIMATE, .g_us = 100}, b.s, &o);
    expect_only(&o.r->global, 0, 4, 0, 10);
    assert_int_equal(o.r->global.cls[DFS_OVC_IO].time, 16 * US);
    done(&o);
    run_text((setup){.method = DFS_OVERLAP_APPROXIMATE, .g_us = 10}, b.s, &o);
    expect_only(&o.r->global, 5, 9, 10, 20);
    assert_int_equal(o.r->nbins, 4); /* bins 0, 1, 2 and 4 */
    assert_int_equal(o.r->bins[3].index, 4);
    done(&o);
    /* G0's "exact" mode misses the overlap of A (bin 1) with C [20,30) (bin 2) */
    run_text((setup){.method = DFS_OVERLAP_G0_EXACT, .g_us = 10}, b.s, &o);
    expect_only(&o.r->global, 10, 14, 10, 20);
    assert_int_equal(o.r->scope, DFS_OVERLAP_GLOBAL);
    done(&o);
    free(b.s);
}

/* ----- example 2: touching, zero-length, nested ------------------------------------------------ */

static void test_example2_rules(void **state)
{
    (void)state;
    tbuf b = {0};
    tb_add(&b, "[");
    cls_ev(&b, 'I', 1, 1, 0, 5);
    cls_ev(&b, 'I', 1, 1, 5, 8);   /* touching: one interval [0, 8) */
    cls_ev(&b, 'I', 1, 1, 10, 10); /* zero-length: counted, measures nothing */
    cls_ev(&b, 'I', 1, 1, 20, 40);
    cls_ev(&b, 'I', 1, 1, 25, 30); /* nested: once in the union */
    cls_ev(&b, 'C', 1, 1, 30, 50);
    outcome o;
    run_text((setup){0}, b.s, &o);
    expect(&o.r->summary, 20, 28, 0, 10, 0);
    assert_int_equal(o.r->summary.cls[DFS_OVC_IO].sum_dur, 33 * US);
    assert_int_equal(o.r->summary.cls[DFS_OVC_IO].events, 5);
    done(&o);
    run_text((setup){.method = DFS_OVERLAP_APPROXIMATE, .g_us = 100}, b.s, &o);
    assert_int_equal(o.r->global.cls[DFS_OVC_IO].time, 33 * US);
    assert_int_equal(o.r->global.cls[DFS_OVC_COMPUTE].time, 20 * US);
    assert_int_equal(o.r->global.cls[DFS_OVC_IO].unoverlapped, 13 * US);
    assert_int_equal(o.r->global.cls[DFS_OVC_IO].compute_unoverlapped, 0);
    done(&o);
    free(b.s);
}

/* Exact duplicates (re-flushed buffers) are absorbed by the union, not by Σ dur and counts. */
static void test_duplicates_and_negative(void **state)
{
    (void)state;
    tbuf b = {0};
    tb_add(&b, "[");
    cls_ev(&b, 'I', 1, 1, 0, 10);
    cls_ev(&b, 'I', 1, 1, 0, 10);
    tb_ev(&b, "op", "i", 1, 1, 20, -5, ""); /* negative: a zero-length event, with a warning */
    cls_ev(&b, 'C', 1, 1, 5, 30);
    outcome o;
    run_text((setup){0}, b.s, &o);
    expect(&o.r->summary, 25, 10, 0, 5, 0);
    assert_int_equal(o.r->summary.cls[DFS_OVC_IO].sum_dur, 20 * US);
    assert_int_equal(o.r->summary.cls[DFS_OVC_IO].events, 3);
    assert_int_equal(o.r->negative_durations, 1);
    done(&o);
    free(b.s);
}

/* ----- example 3: scopes ---------------------------------------------------------------------- */

static void example3(tbuf *b)
{
    tb_add(b, "[");
    cls_ev(b, 'C', 1, 1, 0, 100);
    cls_ev(b, 'I', 1, 2, 50, 150);
    cls_ev(b, 'I', 2, 3, 0, 40);
}

static void test_example3_scopes(void **state)
{
    (void)state;
    tbuf b = {0};
    example3(&b);
    outcome o;
    run_text((setup){.scope = DFS_OVERLAP_THREAD}, b.s, &o);
    assert_int_equal(o.r->nthreads, 3);
    expect(&unit(o.r->per_thread, o.r->nthreads, "1", "1")->v, 100, 0, 0, 0, 0);
    expect(&unit(o.r->per_thread, o.r->nthreads, "1", "2")->v, 0, 100, 0, 0, 0);
    expect(&unit(o.r->per_thread, o.r->nthreads, "2", "3")->v, 0, 40, 0, 0, 0);
    expect(&o.r->summary, 100, 140, 0, 0, 0); /* Σ threads */
    assert_int_equal(o.r->summary_units, 3);
    expect(&unit(o.r->per_process, o.r->nprocesses, "1", NULL)->v, 100, 100, 0, 50, 0);
    expect(&unit(o.r->per_process, o.r->nprocesses, "2", NULL)->v, 0, 40, 0, 0, 0);
    expect(&o.r->global, 100, 140, 0, 90, 0);
    assert_int_equal(o.r->global.cls[DFS_OVC_IO].unoverlapped, 50 * US);
    assert_int_equal(o.r->global.cls[DFS_OVC_IO].compute_unoverlapped, 10 * US);
    done(&o);
    run_text((setup){.scope = DFS_OVERLAP_PROCESS}, b.s, &o);
    expect(&o.r->summary, 100, 140, 0, 50, 0); /* Σ processes */
    assert_int_equal(o.r->summary.cls[DFS_OVC_IO].unoverlapped, 90 * US);
    assert_int_equal(o.r->max.cls[DFS_OVC_IO].time, 100 * US);
    assert_int_equal(o.r->max.cls[DFS_OVC_IO].unoverlapped, 50 * US);
    assert_int_equal(o.r->max.cls[DFS_OVC_IO].with_compute, 50 * US);
    assert_int_equal(o.r->min.cls[DFS_OVC_IO].time, 40 * US);
    assert_int_equal(o.r->max.cls[DFS_OVC_IO].compute_unoverlapped, 50 * US);
    assert_null(o.r->per_thread);
    done(&o);
    run_text((setup){.scope = DFS_OVERLAP_GLOBAL, .no_global = true}, b.s, &o); /* implied */
    expect(&o.r->summary, 100, 140, 0, 90, 0);
    assert_int_equal(o.r->summary_units, 1);
    assert_true(o.r->have_global);
    done(&o);
    /* the exact global scope is only computed when asked; its span and counts are always there */
    run_text((setup){.no_global = true}, b.s, &o);
    assert_false(o.r->have_global);
    expect(&o.r->global, 0, 0, 0, 0, 0);
    assert_int_equal(o.r->global.total_time, 150 * US);
    assert_int_equal(o.r->global.cls[DFS_OVC_IO].sum_dur, 140 * US);
    done(&o);
    /* the approximate estimate sees "full overlap": per bin, the busiest threads total 100 each */
    run_text((setup){.method = DFS_OVERLAP_APPROXIMATE, .g_us = 1000}, b.s, &o);
    expect_only(&o.r->global, 0, 0, 0, 100); /* no app I/O: all compute is "unoverlapped" by it */
    assert_int_equal(o.r->global.cls[DFS_OVC_IO].time, 100 * US);
    /* per process: pid 1's busiest threads are C 100 and I 100; pid 2 has I only */
    expect_only(&unit(o.r->per_process, o.r->nprocesses, "1", NULL)->v, 0, 0, 0, 100);
    expect_only(&unit(o.r->per_process, o.r->nprocesses, "2", NULL)->v, 40, 0, 0, 0);
    done(&o);
    free(b.s);
}

/* ----- example 4: bin edges -------------------------------------------------------------------- */

static void test_example4_bins(void **state)
{
    (void)state;
    tbuf b = {0};
    tb_add(&b, "[");
    cls_ev(&b, 'C', 1, 1, 0, 60);
    cls_ev(&b, 'I', 1, 1, 60, 100);
    cls_ev(&b, 'I', 1, 1, 90, 130);
    outcome o;
    run_text((setup){.g_us = 100}, b.s, &o);
    expect(&o.r->summary, 60, 70, 0, 0, 0);
    assert_int_equal(o.r->nbins, 2);
    assert_int_equal(o.r->bins[0].index, 0);
    assert_int_equal(o.r->bins[0].v.cls[DFS_OVC_IO].time, 40 * US);
    assert_int_equal(o.r->bins[0].v.cls[DFS_OVC_COMPUTE].time, 60 * US);
    assert_int_equal(o.r->bins[1].v.cls[DFS_OVC_IO].time, 30 * US);
    assert_int_equal(o.r->bins[1].v.cls[DFS_OVC_COMPUTE].time, 0);
    assert_int_equal(o.r->bins[1].v.total_time, 30 * US); /* clipped to the run's end */
    assert_false(o.r->suggested_granularity_ns);
    done(&o);
    run_text((setup){.method = DFS_OVERLAP_APPROXIMATE, .g_us = 100}, b.s, &o);
    assert_int_equal(o.r->global.cls[DFS_OVC_IO].time, 80 * US);
    expect_only(&o.r->global, 20, 0, 0, 60);
    assert_int_equal(o.r->max_bin_thread_io, 80 * US);
    done(&o);
    /* 30 µs bins: the busiest thread's I/O in one bin (40) exceeds the bin: suggest 2·40 µs, in
     * whole seconds rounded up */
    run_text((setup){.method = DFS_OVERLAP_APPROXIMATE, .g_us = 30}, b.s, &o);
    assert_int_equal(o.r->max_bin_thread_io, 40 * US);
    assert_int_equal(o.r->suggested_granularity_ns, INT64_C(1000000000));
    done(&o);
    free(b.s);
}

/* ----- classes ---------------------------------------------------------------------------------- */

/* An event matching several class predicates goes to the first by priority C > I > A; extra
 * classes are independent and compared with C. */
static void test_priority_and_extra(void **state)
{
    (void)state;
    tbuf b = {0};
    tb_add(&b, "[");
    tb_ev(&b, "both", "x", 1, 1, 0, 10, "");  /* C and I and A: C */
    tb_ev(&b, "io_app", "y", 1, 1, 20, 10, ""); /* I and A: I */
    tb_ev(&b, "app", "z", 1, 1, 40, 10, "");  /* A */
    outcome o;
    setup s = {.compute = "func_name == \"both\"", .io = "cat.isin([\"x\", \"y\"])",
               .app_io = "cat.isin([\"x\", \"y\", \"z\"])", .nextra = 1,
               .extra = {{.name = "everything", .predicate = "cat != \"nothing\""}}};
    run_text(s, b.s, &o);
    expect(&o.r->summary, 10, 10, 10, 0, 0);
    assert_int_equal(o.r->nclasses, 4);
    assert_string_equal(o.r->class_names[3], "everything");
    const dfs_overlap_class_values *x = &o.r->summary.cls[3];
    assert_int_equal(x->time, 30 * US);
    assert_int_equal(x->with_compute, 10 * US);
    assert_int_equal(x->unoverlapped, 20 * US);
    assert_int_equal(x->compute_unoverlapped, 0);
    assert_int_equal(x->events, 3);
    done(&o);
    free(b.s);
}

static void test_bad_classes(void **state)
{
    (void)state;
    dfs_preset_error perr;
    dfs_preset *p = dfs_preset_load("dlio", &perr);
    assert_non_null(p);
    char err[256];
    dfs_overlap_options o = {.preset = p, .compute = "cat == ", .io = "cat == \"i\""};
    assert_null(dfs_overlap_new(&o, err, sizeof err));
    assert_non_null(strstr(err, "compute"));
    o.compute = "no_such_layer";
    assert_null(dfs_overlap_new(&o, err, sizeof err));
    assert_non_null(strstr(err, "no_such_layer"));
    o.compute = "compute"; /* a layer name: its predicate */
    dfs_overlap *ov = dfs_overlap_new(&o, err, sizeof err);
    assert_non_null(ov);
    dfs_overlap_free(ov);
    dfs_overlap_class_def twice[2] = {{"x", "cat == \"a\""}, {"x", "cat == \"b\""}};
    o.extra = twice;
    o.nextra = 2;
    assert_null(dfs_overlap_new(&o, err, sizeof err));
    dfs_overlap_class_def bad[1] = {{"io", "cat == \"a\""}};
    o.extra = bad;
    o.nextra = 1;
    assert_null(dfs_overlap_new(&o, err, sizeof err));
    o.nextra = 0;
    o.method = DFS_OVERLAP_APPROXIMATE; /* needs bins */
    assert_null(dfs_overlap_new(&o, err, sizeof err));
    dfs_preset_free(p);
}

static void test_defaults(void **state)
{
    (void)state;
    dfs_preset_error perr;
    dfs_preset *p = dfs_preset_load("dlio", &perr);
    dfs_overlap_defaults d;
    dfs_overlap_defaults_for(p, &d);
    assert_non_null(strstr(d.compute, "TorchFramework.compute"));
    assert_string_equal(d.app_io, "cat == \"reader\"");
    assert_non_null(strstr(d.epochs, "DLIOBenchmark._train"));
    assert_null(d.steps);
    dfs_preset_free(p);
    p = dfs_preset_load("posix", &perr);
    dfs_overlap_defaults_for(p, &d);
    assert_null(d.compute);
    assert_null(d.app_io);
    assert_non_null(d.io);
    dfs_preset_free(p);
}

/* The default I/O class is on the raw category: POSIX and STDIO whatever the file; --post-read
 * drops the preset's ignored functions and files first. */
static void test_post_read(void **state)
{
    (void)state;
    tbuf b = {0};
    tb_add(&b, "[");
    tb_add(&b, "{\"id\":1,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
               "\"args\":{\"name\":\"/usr/lib/x.so\",\"value\":5}}");
    tb_ev(&b, "read", "POSIX", 1, 1, 0, 10, "\"fhash\":5,\"ret\":100");
    tb_ev(&b, "fread", "STDIO", 1, 1, 20, 10, "");
    tb_ev(&b, "TorchFramework.compute", "ai_framework", 1, 1, 40, 10, "");
    tb_ev(&b, "TorchFramework.trace_object", "ai_framework", 1, 1, 60, 10, "");
    tb_ev(&b, "HDF5Reader.read_index", "reader", 1, 1, 80, 10, "");
    outcome o;
    setup raw = {.preset = "dlio", .compute = "compute", .io = NULL, .app_io = "reader"};
    dfs_overlap_defaults d;
    dfs_preset_error perr;
    dfs_preset *p = dfs_preset_load("dlio", &perr);
    dfs_overlap_defaults_for(p, &d);
    dfs_preset_free(p);
    raw.io = d.io;
    run_text(raw, b.s, &o);
    expect(&o.r->summary, 20, 20, 10, 0, 0); /* compute layer = cat "ai_framework": both */
    done(&o);
    raw.post_read = true;
    run_text(raw, b.s, &o);
    expect(&o.r->summary, 10, 10, 0, 0, 0); /* ignored file, trace_object and read_index dropped */
    assert_int_equal(o.r->dropped_files, 1);
    assert_int_equal(o.r->dropped_functions, 2);
    done(&o);
    free(b.s);
}

/* ----- sizes: G0's rule and exact quantiles ------------------------------------------------------ */

static void test_function_sizes(void **state)
{
    (void)state;
    tbuf b = {0};
    tb_add(&b, "[");
    static const int sizes[] = {40, 10, 30, 20};
    for (int i = 0; i < 4; i++) {
        char args[64];
        snprintf(args, sizeof args, "\"ret\":%d", sizes[i]);
        tb_ev(&b, "pread", "POSIX", 1, 1, 10 * i, 5, args);
    }
    tb_ev(&b, "pread", "POSIX", 1, 1, 50, 5, "\"ret\":0");           /* no size */
    tb_ev(&b, "readdir", "POSIX", 1, 1, 60, 5, "\"ret\":99");       /* not a read */
    tb_ev(&b, "write", "POSIX", 1, 1, 70, 5, "\"ret\":\"7\"");      /* string number */
    tb_ev(&b, "x.get", "POSIX", 1, 1, 80, 5, "\"image_size\":1000"); /* image_size */
    tb_ev(&b, "fread", "STDIO", 1, 1, 90, 5, "\"ret\":50");         /* not raw POSIX */
    outcome o;
    run_text((setup){.io = "cat.isin([\"posix\", \"stdio\"])"}, b.s, &o);
    assert_int_equal(o.r->nfunctions, 5);
    const dfs_overlap_function *f = &o.r->functions[1];
    assert_string_equal(f->name, "pread");
    assert_int_equal(f->count, 5);
    assert_int_equal(f->sized, 4);
    assert_int_equal(f->bytes, 100);
    assert_true(f->min == 10 && f->max == 40 && f->mean == 25);
    assert_true(f->p25 == 17.5 && f->median == 25 && f->p75 == 32.5); /* linear interpolation */
    assert_string_equal(o.r->functions[0].name, "fread");
    assert_true(isnan(o.r->functions[0].median));
    assert_string_equal(o.r->functions[2].name, "readdir");
    assert_int_equal(o.r->functions[2].sized, 0);
    assert_true(o.r->functions[3].median == 7);
    assert_string_equal(o.r->functions[4].name, "x.get");
    assert_string_equal(o.r->functions[4].short_name, "get");
    assert_true(o.r->functions[4].max == 1000);
    done(&o);
    free(b.s);
}

static void test_formats(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(dfs_overlap_fmt_count(buf, sizeof buf, 18039), "18K");
    assert_string_equal(dfs_overlap_fmt_count(buf, sizeof buf, 999), "999");
    assert_string_equal(dfs_overlap_fmt_count(buf, sizeof buf, 1234567), "1.23M");
    assert_string_equal(dfs_overlap_fmt_count(buf, sizeof buf, 999999), "1M");
}

/* ----- allocation counts ------------------------------------------------------------------------ */

static void test_allocation(void **state)
{
    (void)state;
    tbuf b = {0};
    tb_add(&b, "[");
    tb_add(&b, "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
               "\"args\":{\"name\":\"node1\",\"value\":11}}");
    tb_add(&b, "{\"id\":2,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
               "\"args\":{\"name\":\"node2\",\"value\":12}}");
    tb_add(&b, "{\"id\":3,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
               "\"args\":{\"name\":\"/d/f1\",\"value\":21}}");
    tb_add(&b, "{\"id\":4,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
               "\"args\":{\"name\":\"/d/f2\",\"value\":22}}");
    tb_ev(&b, "c", "c", 1, 1, 0, 10, "\"hhash\":11");
    tb_ev(&b, "c", "c", 2, 1, 0, 10, "\"hhash\":12"); /* tid 1 again: G0 counts tids alone */
    tb_ev(&b, "r", "i", 1, 2, 0, 10, "\"hhash\":11,\"fhash\":21");
    tb_ev(&b, "r", "i", 1, 3, 0, 10, "\"hhash\":11,\"fhash\":22");
    tb_ev(&b, "r", "i", 2, 3, 0, 10, "\"hhash\":12,\"fhash\":22");
    tb_ev(&b, "other", "x", 3, 9, 0, 10, "");
    tb_add(&b, "{\"id\":99,\"name\":\"i\",\"cat\":\"i\",\"pid\":1,\"tid\":1,\"ts\":5,\"ph\":\"i\"}");
    outcome o;
    run_text((setup){0}, b.s, &o);
    assert_int_equal(o.r->nodes, 2);
    assert_int_equal(o.r->processes, 3);
    assert_int_equal(o.r->compute_threads, 1);
    assert_int_equal(o.r->io_threads, 2);
    assert_int_equal(o.r->events, 6);
    assert_int_equal(o.r->files, 2);
    assert_int_equal(o.r->no_duration, 1);
    assert_int_equal(o.r->nprocesses, 3);
    const dfs_overlap_unit *u = unit(o.r->per_process, o.r->nprocesses, "1", NULL);
    assert_string_equal(u->host, "node1");
    assert_string_equal(u->key, "node1:1");
    assert_string_equal(unit(o.r->per_process, o.r->nprocesses, "3", NULL)->key, "unknown:3");
    done(&o);
    free(b.s);
}

/* ----- epochs and steps ------------------------------------------------------------------------- */

static void pads(tbuf *b, int pid, int from, int n)
{
    for (int k = 0; k < n; k++)
        tb_ev(b, "pad", "p", pid, 1, from + 2 * k, 1, "");
}

/* Two processes, each with two epochs [0,100) and [100,200) and a step [10,30), written in
 * completion order (a marker when it ends, after the events inside it), with events of a class
 * "pad" that only fill the worker's budget. Shuffled: epoch 1's marker comes last. */
static void epochs_trace(tbuf *b, bool shuffled)
{
    tb_add(b, "[");
    for (int pid = 1; pid <= 2; pid++) {
        cls_ev(b, 'I', pid, 1, 10, 30);
        tb_ev(b, "step", "s", pid, 1, 10, 20, "\"step\":7");
        cls_ev(b, 'C', pid, 1, 20, 60);
        if (!shuffled)
            tb_ev(b, "epoch", "m", pid, 1, 0, 100, "\"epoch\":\"1\"");
        cls_ev(b, 'I', pid, 1, 90, 130); /* spans the epoch boundary */
        pads(b, pid, 131, 20);
        cls_ev(b, 'C', pid, 1, 120, 180);
        tb_ev(b, "epoch", "m", pid, 1, 100, 100, "\"epoch\":\"2\"");
        cls_ev(b, 'A', pid, 1, 150, 210 + pid); /* spills past the last epoch */
        pads(b, pid, 215, 100);
        if (shuffled)
            tb_ev(b, "epoch", "m", pid, 1, 0, 100, "\"epoch\":\"1\"");
    }
}

static void check_epochs(const dfs_overlap_result *r)
{
    assert_int_equal(r->nepochs, 2);
    assert_string_equal(r->epochs[0].label, "1");
    assert_int_equal(r->epochs[0].units, 2);
    /* per process, epoch 1: I [10,30)+[90,100) = 30, C [20,60) = 40, I∩C 10 */
    expect(&r->epochs[0].v, 80, 60, 0, 20, 0);
    /* epoch 2: I [100,130) = 30, C [120,180) = 60, A [150,200) = 50, I∩C 10, A∩C 30 */
    expect(&r->epochs[1].v, 120, 60, 100, 20, 60);
    assert_int_equal(r->epochs[1].v.total_time, 100 * US);
    const dfs_overlap_unit *u = unit(r->per_process, r->nprocesses, "1", NULL);
    assert_int_equal(u->nepochs, 2);
    expect(&u->epochs[0].v, 40, 30, 0, 10, 0);
    assert_int_equal(u->nsteps, 1);
    assert_string_equal(u->steps[0].label, "7");
    expect(&u->steps[0].v, 10, 20, 0, 10, 0); /* [10,30): I 20, C [20,30) */
    assert_int_equal(r->nsteps, 1);
    assert_int_equal(r->steps[0].units, 2);
}

static void test_epochs(void **state)
{
    (void)state;
    tbuf b = {0};
    epochs_trace(&b, false);
    setup s = {.epochs = "func_name == \"epoch\"", .steps = "func_name == \"step\"", .nextra = 1,
               .extra = {{"pad", "cat == \"p\""}}};
    outcome o;
    run_text(s, b.s, &o);
    assert_false(o.reran);
    check_epochs(o.r);
    done(&o);
    /* flushing behind the watermark at every chance gives the same answers */
    s.hold = 1;
    run_text(s, b.s, &o);
    assert_false(o.reran);
    check_epochs(o.r);
    assert_true(o.r->flushes > 0);
    done(&o);
    s.no_streaming = true;
    run_text(s, b.s, &o);
    check_epochs(o.r);
    done(&o);
    free(b.s);
}

/* A marker that arrives after the unit was flushed past its start: the pass asks for a second one
 * without streaming, which gives the right answer. */
static void test_missed_epoch_rerun(void **state)
{
    (void)state;
    tbuf b = {0};
    epochs_trace(&b, true);
    setup s = {.epochs = "func_name == \"epoch\"", .steps = "func_name == \"step\"", .hold = 1, .nextra = 1,
               .extra = {{"pad", "cat == \"p\""}}};
    outcome o;
    run_text(s, b.s, &o);
    assert_true(o.reran);
    assert_false(o.r->streamed);
    check_epochs(o.r);
    done(&o);
    free(b.s);
}

/* Events far out of order: late for the watermark, so the second pass decides. */
static void test_late_events_rerun(void **state)
{
    (void)state;
    tbuf b = {0};
    tb_add(&b, "[");
    for (int i = 0; i < 50; i++)
        cls_ev(&b, 'I', 1, 1, 1000 + 10 * i, 1005 + 10 * i);
    cls_ev(&b, 'C', 1, 1, 0, 1200); /* long and last, but shorter than... nothing before it */
    cls_ev(&b, 'I', 1, 1, 0, 5);
    outcome o;
    run_text((setup){.hold = 1}, b.s, &o);
    assert_true(o.reran);
    expect(&o.r->summary, 1200, 255, 0, 105, 0);
    done(&o);
    run_text((setup){.no_streaming = true}, b.s, &o);
    assert_false(o.reran);
    expect(&o.r->summary, 1200, 255, 0, 105, 0);
    done(&o);
    free(b.s);
}

/* Bins relative to the true origin: the provisional one here is BASE, the trace starts 7 µs later. */
static void test_origin_rerun(void **state)
{
    (void)state;
    tbuf b = {0};
    tb_add(&b, "[");
    cls_ev(&b, 'I', 1, 1, 7, 27);
    cls_ev(&b, 'C', 1, 1, 17, 37);
    outcome o;
    run_text((setup){.g_us = 10}, b.s, &o);
    assert_true(o.reran);
    assert_int_equal(o.r->origin_ns, (int64_t)(BASE + 7) * US);
    assert_int_equal(o.r->nbins, 3);
    assert_int_equal(o.r->bins[0].index, 0);
    assert_int_equal(o.r->bins[0].v.cls[DFS_OVC_IO].time, 10 * US);
    assert_int_equal(o.r->bins[1].v.cls[DFS_OVC_IO].with_compute, 10 * US);
    assert_int_equal(o.r->bins[2].v.cls[DFS_OVC_COMPUTE].time, 10 * US);
    done(&o);
    free(b.s);
}

/* ----- bad input: never crash, keep what can be read ------------------------------------------- */

static void test_bad_input(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "",
        "[\n",
        "not a trace at all\n",
        "[\n{\"id\":1,\"name\":\"a\",\"cat\":\"i\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,\"ph\":\"X\"}\n{\"id\":2,\"na",
        "[\n{\"name\":\"a\",\"cat\":\"i\",\"ph\":\"X\",\"ts\":\"x\",\"dur\":1}\n{\"name\":\"a\",\"cat\":\"i\",\"ph\":\"X\"}\n",
        ("[\n{\"name\":\"a\",\"cat\":\"i\",\"pid\":\"w1\",\"tid\":\"t\",\"ph\":\"X\",\"ts\":9223372036854775,\"dur\":1}\n"
         "{\"name\":\"a\",\"cat\":\"i\",\"pid\":1,\"ph\":\"X\",\"ts\":-5,\"dur\":99999999999999}\n"),
        "[\n{\"name\":\"a\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ph\":\"X\",\"ts\":1,\"dur\":1,\"args\":{\"epoch\":[1,2]}}\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        for (int m = 0; m < 3; m++) {
            setup s = {.method = (dfs_overlap_method)m, .g_us = m ? 1000 : 0, .epochs = "cat == \"c\"",
                       .scope = DFS_OVERLAP_THREAD};
            outcome o;
            memset(&o, 0, sizeof o);
            std_classes(&s);
            snprintf(o.path, sizeof o.path, "%s", tu_temp_file(".pfw", texts[i], strlen(texts[i])));
            dfs_preset_error perr;
            o.preset = dfs_preset_load("posix", &perr);
            dfs_overlap_options opt = {.preset = o.preset, .compute = s.compute, .io = s.io, .app_io = s.app_io,
                                       .epochs = s.epochs, .method = s.method, .scope = s.scope,
                                       .granularity_ns = s.g_us * US, .no_streaming = true};
            char err[128];
            o.ov = dfs_overlap_new(&opt, err, sizeof err);
            assert_non_null(o.ov);
            o.run = tu_run(1, 0, 0);
            (void)dfs_run_add_path(o.run, o.path);
            dfs_consumer *c[] = {dfs_overlap_consumer(o.ov)};
            (void)dfs_run_read(o.run, c, 1);
            o.r = dfs_overlap_finish(o.ov, o.run);
            if (o.r) { /* the report writers must cope with whatever came out */
                FILE *sink = fopen("/dev/null", "w");
                dfs_overlap_report_context ctx = {.preset_source = "given"};
                dfs_overlap_write_text(sink, o.r, &ctx);
                dfs_overlap_write_json(sink, o.r, &ctx);
                for (int t = 0; t < DFS_OVERLAP_CSV__COUNT; t++)
                    dfs_overlap_write_csv(sink, o.r, (dfs_overlap_csv)t);
                fclose(sink);
            }
            done(&o);
        }
    }
}

/* ----- property test: random interval sets against a brute-force reference ----------------------- */

#define GRID 240   /* µs */
#define NPID 3
#define NTID 2
#define GBIN 25    /* µs */

typedef struct rnd {
    uint64_t s;
} rnd;

static uint32_t next(rnd *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 11);
}

typedef struct ref_ev {
    int pid, tid, cls; /* cls 0 C, 1 I, 2 A */
    int s, e;
} ref_ev;

/* Brute force: a µs cell [t, t+1) is in X when an event of X covers it; measures count cells. */
static void brute(const ref_ev *ev, size_t n, int pid, int lo, int hi, long long *C, long long *I, long long *A,
                  long long *IC, long long *AC)
{
    *C = *I = *A = *IC = *AC = 0;
    for (int t = lo; t < hi; t++) {
        bool in[3] = {false, false, false};
        for (size_t k = 0; k < n; k++)
            if ((pid < 0 || ev[k].pid == pid) && ev[k].s <= t && t < ev[k].e)
                in[ev[k].cls] = true;
        *C += in[0];
        *I += in[1];
        *A += in[2];
        *IC += in[0] && in[1];
        *AC += in[0] && in[2];
    }
}

static void check_brute(const dfs_overlap_values *v, const ref_ev *ev, size_t n, int pid, int lo, int hi)
{
    long long C, I, A, IC, AC;
    brute(ev, n, pid, lo, hi, &C, &I, &A, &IC, &AC);
    expect(v, C, I, A, IC, AC);
}

static int cmp_end(const void *a, const void *b)
{
    const ref_ev *x = a, *y = b;
    return (x->e > y->e) - (x->e < y->e);
}

static size_t random_events(rnd *r, ref_ev *ev, size_t cap, bool completion_order)
{
    size_t n = 5 + next(r) % (cap - 5);
    for (size_t k = 0; k < n; k++) {
        ev[k].pid = 1 + (int)(next(r) % NPID);
        ev[k].tid = 1 + (int)(next(r) % NTID);
        ev[k].cls = (int)(next(r) % 3);
        ev[k].s = (int)(next(r) % GRID);
        int len = (int)(next(r) % 4 == 0 ? 0 : next(r) % 40); /* some zero-length */
        ev[k].e = ev[k].s + len < GRID ? ev[k].s + len : GRID;
        if (k > 0 && next(r) % 8 == 0) /* exact duplicates and touching neighbours */
            ev[k] = ev[k - 1];
        else if (k > 0 && next(r) % 8 == 0 && ev[k - 1].e < GRID) {
            ev[k].s = ev[k - 1].e;
            ev[k].pid = ev[k - 1].pid;
        }
    }
    if (completion_order)
        qsort(ev, n, sizeof *ev, cmp_end);
    return n;
}

static void test_property_random(void **state)
{
    (void)state;
    rnd r = {0x9e3779b97f4a7c15ull};
    ref_ev ev[60];
    for (int round = 0; round < 60; round++) {
        size_t n = random_events(&r, ev, 60, round % 2 == 0);
        tbuf b = {0};
        tb_add(&b, "[");
        cls_ev(&b, 'A', 9, 9, 0, 0); /* pins the origin at BASE (pid 9 is otherwise empty) */
        for (size_t k = 0; k < n; k++)
            cls_ev(&b, "CIA"[ev[k].cls], ev[k].pid, ev[k].tid, ev[k].s, ev[k].e);
        setup s = {.g_us = GBIN, .hold = round % 3 == 0 ? 1 : 0, .jobs = 1 + round % 2,
                   .chunk = round % 4 == 1 ? 4096 : 0, .scope = round % 5 == 0 ? DFS_OVERLAP_GLOBAL
                                                                              : DFS_OVERLAP_PROCESS};
        outcome o;
        run_text(s, b.s, &o);
        check_brute(&o.r->global, ev, n, -1, 0, GRID);
        for (int pid = 1; pid <= NPID; pid++) {
            char p[8];
            snprintf(p, sizeof p, "%d", pid);
            for (size_t i = 0; i < o.r->nprocesses; i++)
                if (strcmp(o.r->per_process[i].pid, p) == 0)
                    check_brute(&o.r->per_process[i].v, ev, n, pid, 0, GRID);
        }
        /* bins: the summary's scope, each clipped to [k·g, (k+1)·g) */
        for (size_t i = 0; i < o.r->nbins; i++) {
            int lo = (int)o.r->bins[i].index * GBIN;
            if (s.scope == DFS_OVERLAP_GLOBAL) {
                check_brute(&o.r->bins[i].v, ev, n, -1, lo, lo + GBIN);
                continue;
            }
            long long sum[5] = {0};
            for (int pid = 1; pid <= NPID; pid++) {
                long long x[5];
                brute(ev, n, pid, lo, lo + GBIN, &x[0], &x[1], &x[2], &x[3], &x[4]);
                for (int k = 0; k < 5; k++)
                    sum[k] += x[k];
            }
            expect(&o.r->bins[i].v, sum[0], sum[1], sum[2], sum[3], sum[4]);
        }
        done(&o);
        free(b.s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example1_exact),
        cmocka_unit_test(test_example1_approximate),
        cmocka_unit_test(test_example2_rules),
        cmocka_unit_test(test_duplicates_and_negative),
        cmocka_unit_test(test_example3_scopes),
        cmocka_unit_test(test_example4_bins),
        cmocka_unit_test(test_priority_and_extra),
        cmocka_unit_test(test_bad_classes),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_post_read),
        cmocka_unit_test(test_function_sizes),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_allocation),
        cmocka_unit_test(test_epochs),
        cmocka_unit_test(test_missed_epoch_rerun),
        cmocka_unit_test(test_late_events_rerun),
        cmocka_unit_test(test_origin_rerun),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_property_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
