/* test_tasks.c - `dfscope tasks` as a library (src/analyze/tasks/tasks.c, src/output/tasks_report.c):
 * the msgpack framing as the analyses see it, every msgpack number width in the fields they use,
 * the sort-and-sweep resource attribution against DASF's quadratic scan, task_balance rows and
 * columns, the critical path of a hand-built graph, CPU-only traces, zero durations, legacy text,
 * determinism over -j, Python's float repr and the pandas table layout rules. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#include "analyze/tasks/tasks.h"
#include "gen/gen.h"
#include "gen/gen_dasf.h"
#include "output/tasks_report.h"

/* ---- a msgpack writer ------------------------------------------------------------------------ */

typedef tu_bytes mp;

static void w_str(mp *m, const char *s)
{
    size_t n = strlen(s);
    if (n < 32) {
        tu_put_byte(m, 0xa0 | (unsigned)n);
    } else {
        tu_put_byte(m, 0xd9);
        tu_put_byte(m, (unsigned)n);
    }
    tu_put(m, s, n);
}

static void w_map(mp *m, unsigned n) { tu_put_byte(m, 0x80 | n); }
static void w_arr(mp *m, unsigned n)
{
    if (n < 16) {
        tu_put_byte(m, 0x90 | n);
    } else {
        tu_put_byte(m, 0xdc);
        tu_put_be(m, n, 2);
    }
}
static void w_nil(mp *m) { tu_put_byte(m, 0xc0); }

static void w_f64(mp *m, double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    tu_put_byte(m, 0xcb);
    tu_put_be(m, v, 8);
}

static void w_f32(mp *m, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    tu_put_byte(m, 0xca);
    tu_put_be(m, v, 4);
}

/* Every integer form: kind 'p' positive fixint, 'n' negative fixint, 'u' uint<width>, 'i' int<width>. */
static void w_intw(mp *m, char kind, unsigned width, int64_t v)
{
    static const unsigned utag[] = {0, 0xcc, 0xcd, 0, 0xce, 0, 0, 0, 0xcf};
    static const unsigned itag[] = {0, 0xd0, 0xd1, 0, 0xd2, 0, 0, 0, 0xd3};
    if (kind == 'p' || kind == 'n') {
        tu_put_byte(m, (unsigned)(v & 0xff));
        return;
    }
    tu_put_byte(m, kind == 'u' ? utag[width] : itag[width]);
    tu_put_be(m, (uint64_t)v, width);
}

static void w_uint(mp *m, uint64_t v)
{
    if (v < 128)
        w_intw(m, 'p', 0, (int64_t)v);
    else
        w_intw(m, 'u', v < 65536 ? 2 : v <= UINT32_MAX ? 4 : 8, (int64_t)v);
}

static void frame(mp *file, const mp *payload)
{
    tu_put_be(file, payload->n, 8);
    tu_put(file, payload->b, payload->n);
}

static void kv_str(mp *m, const char *k, const char *v)
{
    w_str(m, k);
    w_str(m, v);
}

static void w_keys(mp *m, const char *const *keys)
{
    unsigned n = 0;
    while (keys && keys[n])
        n++;
    w_arr(m, n);
    for (unsigned i = 0; i < n; i++)
        w_str(m, keys[i]);
}

/* A Compute event; `size`, `ts` and `dur` are written by the callbacks when given. */
typedef struct compute_spec {
    const char *host, *worker, *key, *name;
    double end, dur;
    uint64_t size;
    const char *const *deps, *const *outs;
    const char *phase;
    void (*write_size)(mp *m);
    void (*write_end)(mp *m);
    void (*write_dur)(mp *m);
    void (*write_shape)(mp *m);
} compute_spec;

static void compute(mp *file, const compute_spec *c)
{
    mp pl = {0};
    w_map(&pl, 7);
    kv_str(&pl, "name", "Compute");
    w_str(&pl, "timestamp");
    c->write_end ? c->write_end(&pl) : w_f64(&pl, c->end);
    w_str(&pl, "duration");
    c->write_dur ? c->write_dur(&pl) : w_f64(&pl, c->dur);
    kv_str(&pl, "phase", c->phase ? c->phase : "X");
    kv_str(&pl, "process_id", c->host ? c->host : "host1");
    kv_str(&pl, "thread_id", c->worker ? c->worker : "worker-host1-gpu0");
    w_str(&pl, "args");
    w_map(&pl, 9);
    kv_str(&pl, "key", c->key);
    kv_str(&pl, "name", c->name ? c->name : "f");
    kv_str(&pl, "state", "memory");
    w_str(&pl, "size");
    c->write_size ? c->write_size(&pl) : w_uint(&pl, c->size);
    w_str(&pl, "shape");
    if (c->write_shape) {
        c->write_shape(&pl);
    } else {
        w_arr(&pl, 2);
        w_uint(&pl, 10);
        w_uint(&pl, 20);
    }
    kv_str(&pl, "dtype", "float64");
    kv_str(&pl, "type", "<class 'numpy.ndarray'>");
    w_str(&pl, "dependencies");
    w_keys(&pl, c->deps);
    w_str(&pl, "dependents");
    w_keys(&pl, c->outs);
    frame(file, &pl);
    free(pl.b);
}

static void managed_w(mp *file, const char *host, const char *worker, double ts, void (*write_tasks)(mp *),
                      uint64_t tasks)
{
    mp pl = {0};
    w_map(&pl, 7);
    kv_str(&pl, "name", "Managed Memory");
    w_str(&pl, "timestamp");
    w_f64(&pl, ts);
    kv_str(&pl, "phase", "I");
    kv_str(&pl, "scope", "g");
    kv_str(&pl, "process_id", host);
    kv_str(&pl, "thread_id", worker);
    w_str(&pl, "args");
    w_map(&pl, 2);
    kv_str(&pl, "key", "k");
    w_str(&pl, "tasks");
    write_tasks ? write_tasks(&pl) : w_uint(&pl, tasks);
    frame(file, &pl);
    free(pl.b);
}

static void managed(mp *file, const char *worker, double ts, uint64_t tasks)
{
    managed_w(file, "host1", worker, ts, NULL, tasks);
}

/* A Resource Usage sample; gpu: 0 none, 1 both keys, 2 utilization only. */
static void sample(mp *file, const char *host, double ts, int gpu, int64_t util, int64_t mem)
{
    mp pl = {0};
    w_map(&pl, 7);
    kv_str(&pl, "name", "Resource Usage");
    w_str(&pl, "timestamp");
    w_f64(&pl, ts);
    kv_str(&pl, "phase", "I");
    kv_str(&pl, "scope", "g");
    kv_str(&pl, "process_id", host);
    w_str(&pl, "thread_id");
    w_nil(&pl);
    w_str(&pl, "args");
    w_map(&pl, 2 + (gpu ? 1 : 0) + (gpu == 1 ? 1 : 0));
    w_str(&pl, "cpu");
    w_f64(&pl, 12.5);
    w_str(&pl, "memory");
    w_uint(&pl, 123456);
    if (gpu) {
        w_str(&pl, "gpu_utilization");
        w_uint(&pl, (uint64_t)util);
    }
    if (gpu == 1) {
        w_str(&pl, "gpu_memory_used");
        w_uint(&pl, (uint64_t)mem);
    }
    frame(file, &pl);
    free(pl.b);
}

/* ---- running the analysis -------------------------------------------------------------------- */

typedef struct fx {
    dfs_run *run;
    dfs_tasks *t;
    const dfs_tasks_result *r;
    int verdict;
    char paths[4][256];
    size_t npaths;
} fx;

static void fx_run_opts(fx *x, const mp *files, size_t nfiles, const dfs_tasks_options *o, int jobs,
                        uint64_t max_record)
{
    dfs_options opt;
    dfs_options_init(&opt);
    opt.jobs = jobs;
    if (max_record)
        opt.max_record = max_record;
    x->run = dfs_run_new(&opt);
    assert_non_null(x->run);
    assert_true(nfiles <= 4);
    x->npaths = nfiles;
    for (size_t i = 0; i < nfiles; i++) {
        snprintf(x->paths[i], sizeof x->paths[i], "%s", tu_temp_file(".msgpack", files[i].b, files[i].n));
        assert_int_equal(dfs_run_add_path(x->run, x->paths[i]), DFS_OK);
    }
    x->t = dfs_tasks_new(o);
    assert_non_null(x->t);
    dfs_consumer *c[] = {dfs_tasks_consumer(x->t)};
    x->verdict = dfs_run_read(x->run, c, 1);
    x->r = dfs_tasks_finish(x->t, x->run);
    assert_non_null(x->r);
}

static void fx_run(fx *x, const mp *files, size_t nfiles, dfs_tasks_mode mode)
{
    dfs_tasks_options o;
    dfs_tasks_options_init(&o);
    o.mode = mode;
    o.graph_attrs = true;
    fx_run_opts(x, files, nfiles, &o, 2, 0);
}

static void fx_free(fx *x)
{
    dfs_tasks_free(x->t);
    dfs_run_free(x->run);
    for (size_t i = 0; i < x->npaths; i++)
        remove(x->paths[i]);
}

static size_t col(const dfs_tk_table *t, const char *name)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (strcmp(t->cols[c], name) == 0)
            return c;
    fail_msg("no column '%s' in %s", name, t->name);
    return 0;
}

static dfs_tk_cell cell(const dfs_tk_table *t, size_t row, const char *name)
{
    dfs_tk_cell c;
    memset(&c, 0, sizeof c);
    assert_true(row < t->nrows);
    t->cell(t, row, col(t, name), &c);
    return c;
}

static double fcell(const dfs_tk_table *t, size_t row, const char *name) { return cell(t, row, name).f; }
static int64_t icell(const dfs_tk_table *t, size_t row, const char *name) { return cell(t, row, name).i; }

static bool scell_is(const dfs_tk_table *t, size_t row, const char *name, const char *want)
{
    dfs_tk_cell c = cell(t, row, name);
    return c.len == strlen(want) && memcmp(c.s, want, c.len) == 0;
}

/* The row whose text column `name` is `want`. */
static size_t row_where(const dfs_tk_table *t, const char *name, const char *want)
{
    for (size_t r = 0; r < t->nrows; r++)
        if (scell_is(t, r, name, want))
            return r;
    fail_msg("no row with %s = %s in %s", name, want, t->name);
    return 0;
}

static bool has_note(const dfs_tasks_result *r, const char *part)
{
    for (size_t i = 0; i < r->nnotes; i++)
        if (strstr(r->notes[i], part))
            return true;
    return false;
}

/* The whole text of a writer into a malloc'd string. */
static char *capture_csv(const dfs_tk_table *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_true(dfs_tasks_write_csv(f, t));
    fclose(f);
    return buf;
}

static char *capture_table(const dfs_tk_table *t, size_t head)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    dfs_tasks_print_table(f, t, head);
    fclose(f);
    return buf;
}

/* ---- framing as the analyses see it ---------------------------------------------------------- */

static void two_tasks(mp *file)
{
    static const char *const out1[] = {"b", NULL}, *const in2[] = {"a", NULL};
    compute(file, &(compute_spec){.key = "a", .name = "f", .end = 10, .dur = 2, .size = 100, .outs = out1});
    compute(file, &(compute_spec){.key = "b", .name = "g", .end = 13, .dur = 1, .size = 200, .deps = in2});
    managed(file, "worker-host1-gpu0", 13.5, 2);
}

/* A torn last record (crash mid-write): the records before it are analysed, the damage reported. */
static void test_truncated_record(void **state)
{
    (void)state;
    mp file = {0};
    two_tasks(&file);
    mp extra = {0};
    compute(&extra, &(compute_spec){.key = "c", .end = 20, .dur = 1, .size = 1});
    tu_put(&file, extra.b, extra.n / 2);
    fx x;
    fx_run(&x, &file, 1, DFS_TASKS_COMPAT);
    assert_int_equal(x.r->computes, 2);
    assert_int_equal(x.r->managed, 1);
    assert_int_equal(x.verdict, DFS_EXIT_DAMAGED);
    assert_int_equal(dfs_run_problem_count(x.run, DFS_PROB_TORN_RECORD), 1);
    assert_int_equal(x.r->function.nrows, 2);
    assert_int_equal(x.r->task.nrows, 2);
    fx_free(&x);
    free(file.b);
    free(extra.b);
}

/* A length above max_record is skipped by its length; the records after it still count. A length
 * prefix beyond the end of the file ends the reading, keeping what came before. */
static void test_oversized_length(void **state)
{
    (void)state;
    mp file = {0};
    compute(&file, &(compute_spec){.key = "a", .end = 10, .dur = 2, .size = 1});
    char keys[600][16];
    const char *deps[601];
    for (int i = 0; i < 600; i++) {
        snprintf(keys[i], sizeof keys[i], "dep-%d", i);
        deps[i] = keys[i];
    }
    deps[600] = NULL;
    compute(&file, &(compute_spec){.key = "big", .end = 11, .dur = 1, .size = 1, .deps = deps});
    compute(&file, &(compute_spec){.key = "c", .end = 12, .dur = 3, .size = 1});
    tu_put_be(&file, UINT64_C(1) << 62, 8); /* a length no file holds */
    tu_put(&file, "xxxxxxxxxxxx", 12);
    dfs_tasks_options o;
    dfs_tasks_options_init(&o);
    o.mode = DFS_TASKS_COMPAT;
    fx x;
    fx_run_opts(&x, &file, 1, &o, 1, 4096);
    assert_int_equal(x.r->computes, 2); /* a and c; big is over 4 KiB */
    assert_true(dfs_run_problem_count(x.run, DFS_PROB_BAD_RECORD) >= 1);
    assert_int_equal(x.verdict, DFS_EXIT_DAMAGED);
    size_t r = row_where(&x.r->task, "Task Key", "c");
    assert_true(fcell(&x.r->task, r, "Duration (s)") == 3.0);
    fx_free(&x);
    free(file.b);
}

/* An unknown phase is skipped with a warning (DASF fails on it): the Compute is left out. */
static void test_unknown_phase(void **state)
{
    (void)state;
    mp file = {0};
    two_tasks(&file);
    compute(&file, &(compute_spec){.key = "q", .end = 20, .dur = 1, .size = 1, .phase = "Q"});
    fx x;
    fx_run(&x, &file, 1, DFS_TASKS_DEFAULT);
    assert_int_equal(x.r->computes, 2);
    assert_int_equal(dfs_run_problem_count(x.run, DFS_PROB_UNKNOWN_PHASE), 1);
    assert_true(has_note(x.r, "not complete events"));
    fx_free(&x);
    free(file.b);
}

/* ---- every msgpack number width in the fields the analyses read ------------------------------ */

typedef struct width_case {
    char kind;
    unsigned width;
    int64_t v;
} width_case;

static const width_case widths[] = {
    {'p', 0, 7},       {'n', 0, -3},         {'u', 1, 200},           {'u', 2, 60000},
    {'u', 4, 4000000000LL}, {'u', 8, 9000000000LL}, {'i', 1, -100}, {'i', 2, -30000},
    {'i', 4, -2000000000}, {'i', 8, -9000000000LL},
};
static const width_case *current_width;

static void write_width(mp *m) { w_intw(m, current_width->kind, current_width->width, current_width->v); }
static void write_f32_dur(mp *m) { w_f32(m, 1.5f); }
static void write_f32_end(mp *m) { w_f32(m, 1000.25f); }
static void write_int_end(mp *m) { w_intw(m, 'u', 2, 2000); }
static void write_int_dur(mp *m) { w_intw(m, 'i', 1, 4); }

static void test_number_widths(void **state)
{
    (void)state;
    size_t n = sizeof widths / sizeof *widths;
    for (size_t i = 0; i < n; i++) {
        mp file = {0};
        current_width = &widths[i];
        compute(&file, &(compute_spec){.key = "w", .end = 10, .dur = 2, .write_size = write_width});
        compute(&file, &(compute_spec){.key = "f32", .write_end = write_f32_end, .write_dur = write_f32_dur, .size = 1});
        compute(&file, &(compute_spec){.key = "int", .write_end = write_int_end, .write_dur = write_int_dur, .size = 1});
        managed_w(&file, "host1", "worker-host1-gpu0", 50.5, write_width, 0);
        fx x;
        fx_run(&x, &file, 1, DFS_TASKS_COMPAT);
        const dfs_tk_table *t = &x.r->task;
        assert_int_equal(t->nrows, 3);
        size_t r = row_where(t, "Task Key", "w");
        assert_true(fcell(t, r, "Memory usage (Mb)") == (double)widths[i].v / 1e6);
        r = row_where(t, "Task Key", "f32");
        assert_true(fcell(t, r, "Duration (s)") == 1.5);
        r = row_where(t, "Task Key", "int");
        assert_true(fcell(t, r, "Duration (s)") == 4.0);
        const dfs_tk_table *b = &x.r->balance;
        assert_int_equal(b->nrows, 1);
        assert_int_equal(b->types[1], DFS_TK_INT);
        assert_int_equal(icell(b, 0, "worker-host1-gpu0"), widths[i].v);
        fx_free(&x);
        free(file.b);
    }
}

/* ---- resource attribution: sweep vs DASF's scan ---------------------------------------------- */

typedef struct rnd {
    uint64_t s;
} rnd;

static uint64_t next(rnd *r)
{
    r->s = r->s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    return r->s >> 33;
}

static double unit(rnd *r) { return (double)next(r) / 2147483648.0; }

typedef struct ev {
    int kind; /* 0 Compute, 1 sample */
    double ts, dur;
    int name, worker, host;
    int64_t util, mem;
} ev;

#define NEV 600

static void make_events(ev *e, size_t n, uint64_t seed)
{
    rnd r = {seed};
    for (size_t i = 0; i < n; i++) {
        e[i].kind = next(&r) % 3 == 0;
        e[i].ts = floor(unit(&r) * 2000) / 20; /* ties happen */
        e[i].dur = e[i].kind ? 0 : 0.05 + floor(unit(&r) * 60) / 20;
        e[i].name = (int)(next(&r) % 5);
        e[i].worker = (int)(next(&r) % 3);
        e[i].host = (int)(next(&r) % 2);
        e[i].util = (int64_t)(next(&r) % 101);
        e[i].mem = (int64_t)(next(&r) % 4000000000u);
    }
}

static void write_events(mp *file, const ev *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char host[16], worker[32], key[32], name[16];
        snprintf(host, sizeof host, "h%d", e[i].host);
        snprintf(worker, sizeof worker, "worker-h%d-%d", e[i].host, e[i].worker);
        snprintf(key, sizeof key, "k-%zu", i);
        snprintf(name, sizeof name, "fn%d", e[i].name);
        if (e[i].kind == 0)
            compute(file, &(compute_spec){.host = host, .worker = worker, .key = key, .name = name,
                                           .end = e[i].ts, .dur = e[i].dur, .size = 8});
        else
            sample(file, host, e[i].ts, 1, e[i].util, e[i].mem);
    }
}

/* DASF: each sample to the first Compute (file order) with ts <= t <= ts + dur, by name. */
static void dasf_scan(const ev *e, size_t n, double *util_sum, int *util_n)
{
    for (size_t i = 0; i < n; i++) {
        if (e[i].kind != 1)
            continue;
        for (size_t j = 0; j < n; j++)
            if (e[j].kind == 0 && e[j].ts <= e[i].ts && e[i].ts <= e[j].ts + e[j].dur) {
                util_sum[e[j].name] += (double)e[i].util;
                util_n[e[j].name]++;
                break;
            }
    }
}

static void test_sweep_matches_dasf_scan(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        ev e[NEV];
        make_events(e, NEV, seed);
        mp file = {0};
        write_events(&file, e, NEV);
        double sum[5] = {0};
        int cnt[5] = {0};
        dasf_scan(e, NEV, sum, cnt);
        fx x;
        fx_run(&x, &file, 1, DFS_TASKS_COMPAT);
        const dfs_tk_table *t = &x.r->function;
        for (size_t r = 0; r < t->nrows; r++) {
            dfs_tk_cell name = cell(t, r, "Function");
            int k = name.s[2] - '0';
            double want = cnt[k] ? sum[k] / cnt[k] : 0;
            assert_true(fcell(t, r, "Mean GPU Utilization (%)") == want);
        }
        fx_free(&x);
        free(file.b);
    }
}

/* Default mode: a sample counts for every (host, worker, function) with a task running then on
 * that host, in the task's own interval [end - duration, end], once per row. */
static void test_clean_attribution(void **state)
{
    (void)state;
    ev e[NEV];
    make_events(e, NEV, 42);
    mp file = {0};
    write_events(&file, e, NEV);
    fx x;
    fx_run(&x, &file, 1, DFS_TASKS_DEFAULT);
    const dfs_tk_table *t = &x.r->function;
    size_t checked = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        dfs_tk_cell h = cell(t, r, "Host"), g = cell(t, r, "GPU"), f = cell(t, r, "Function");
        int host = h.s[1] - '0', worker = g.s[0] - '0', name = f.s[2] - '0';
        double sum = 0;
        int n = 0;
        for (size_t i = 0; i < NEV; i++) {
            if (e[i].kind != 1 || e[i].host != host)
                continue;
            for (size_t j = 0; j < NEV; j++)
                if (e[j].kind == 0 && e[j].host == host && e[j].worker == worker && e[j].name == name &&
                    e[j].ts - e[j].dur <= e[i].ts && e[i].ts <= e[j].ts) {
                    sum += (double)e[i].util;
                    n++;
                    break;
                }
        }
        double want = n ? sum / n : 0, got = fcell(t, r, "Mean GPU Utilization (%)");
        assert_true(fabs(got - want) <= 1e-9 * (1 + fabs(want)));
        checked += n > 0;
    }
    assert_true(checked > 0);
    fx_free(&x);
    free(file.b);
}

/* CPU-only traces work: the default mode says the GPU columns are unavailable; the compatible
 * mode shows DASF's integer 0 (DASF itself fails) and says why. */
static void test_cpu_only(void **state)
{
    (void)state;
    mp file = {0};
    two_tasks(&file);
    sample(&file, "host1", 10.5, 0, 0, 0);
    sample(&file, "host1", 12.5, 0, 0, 0);
    fx x;
    fx_run(&x, &file, 1, DFS_TASKS_DEFAULT);
    assert_false(x.r->gpu_available);
    assert_true(has_note(x.r, "CPU-only"));
    assert_true(cell(&x.r->function, 0, "Mean GPU Utilization (%)").missing);
    assert_true(cell(&x.r->function, 0, "Mean GPU Memory Used (GB)").missing);
    char *csv = capture_csv(&x.r->function);
    assert_non_null(strstr(csv, ",,")); /* unavailable = empty CSV fields */
    free(csv);
    fx_free(&x);
    fx_run(&x, &file, 1, DFS_TASKS_COMPAT);
    assert_true(has_note(x.r, "CPU-only"));
    const dfs_tk_table *t = &x.r->function;
    assert_int_equal(t->types[col(t, "Mean GPU Utilization (%)")], DFS_TK_INT);
    assert_int_equal(icell(t, 0, "Mean GPU Utilization (%)"), 0);
    assert_true(fcell(t, 0, "Mean GPU Memory Used (GB)") == 0.0);
    fx_free(&x);
    free(file.b);
}

/* A sample with only one of the GPU keys adds to that column alone. */
static void test_partial_gpu_sample(void **state)
{
    (void)state;
    mp file = {0};
    two_tasks(&file);
    sample(&file, "host1", 10.5, 2, 40, 0); /* in a's DASF window [10, 12] */
    sample(&file, "host1", 11.5, 1, 80, 2000000000);
    fx x;
    fx_run(&x, &file, 1, DFS_TASKS_COMPAT);
    size_t r = row_where(&x.r->function, "Function", "f");
    assert_true(fcell(&x.r->function, r, "Mean GPU Utilization (%)") == 60.0);
    assert_true(fcell(&x.r->function, r, "Mean GPU Memory Used (GB)") == 2.0);
    assert_true(has_note(x.r, "lack gpu_utilization or gpu_memory_used"));
    fx_free(&x);
    free(file.b);
}

/* ---- task_balance ------------------------------------------------------------------------------ */

static void balance_file(mp *file)
{
    managed(file, "w1", 100.7, 2);
    managed(file, "w1", 100.2, 1); /* same second, later in the file, earlier in time */
    managed(file, "w2", 101.5, 3);
    managed(file, "w1", 105.1, 4);
}

/* Seconds without events are skipped, not zero-filled; a worker column that needed a 0 is float;
 * the last event of a second in file order wins; labels follow pandas' row construction. */
static void test_balance_compat(void **state)
{
    (void)state;
    mp file = {0};
    balance_file(&file);
    fx x;
    fx_run(&x, &file, 1, DFS_TASKS_COMPAT);
    const dfs_tk_table *b = &x.r->balance;
    assert_int_equal(b->ncols, 3);
    assert_string_equal(b->cols[1], "w1");
    assert_string_equal(b->cols[2], "w2");
    assert_int_equal(b->nrows, 3);
    int64_t want_offset[] = {0, 1, 5}, want_label[] = {0, 2, 1};
    double w1[] = {1, 0, 4}, w2[] = {0, 3, 0};
    for (size_t r = 0; r < 3; r++) {
        assert_int_equal(icell(b, r, "Time Interval (seconds from begin)"), want_offset[r]);
        assert_int_equal(b->label(b, r), want_label[r]);
        assert_true(fcell(b, r, "w1") == w1[r]);
        assert_true(fcell(b, r, "w2") == w2[r]);
    }
    assert_int_equal(b->types[1], DFS_TK_FLOAT);
    char *csv = capture_csv(b);
    assert_string_equal(csv, ",Time Interval (seconds from begin),w1,w2\n0,0,1.0,0.0\n2,1,0.0,3.0\n1,5,4.0,0.0\n");
    free(csv);
    fx_free(&x);
    free(file.b);
}

/* Default mode: the last event in time wins; --fill-seconds gives every second, values carried
 * forward; each host counts from its own first second. */
static void test_balance_default(void **state)
{
    (void)state;
    mp file = {0};
    balance_file(&file);
    managed_w(&file, "host2", "w3", 500.5, NULL, 7);
    dfs_tasks_options o;
    dfs_tasks_options_init(&o);
    fx x;
    fx_run_opts(&x, &file, 1, &o, 1, 0);
    const dfs_tk_table *b = &x.r->balance;
    assert_int_equal(b->nrows, 3);
    assert_int_equal(icell(b, 0, "w1"), 2);
    assert_int_equal(icell(b, 0, "w3"), 7); /* host2's second 0 */
    assert_int_equal(b->types[1], DFS_TK_INT); /* the 0-fill keeps integers here */
    fx_free(&x);
    o.fill_seconds = true;
    fx_run_opts(&x, &file, 1, &o, 1, 0);
    b = &x.r->balance;
    assert_int_equal(b->nrows, 6);
    int64_t w1[] = {2, 2, 2, 2, 2, 4}, w2[] = {0, 3, 3, 3, 3, 3};
    for (size_t r = 0; r < 6; r++) {
        assert_int_equal(icell(b, r, "Time Interval (seconds from begin)"), (int64_t)r);
        assert_int_equal(icell(b, r, "w1"), w1[r]);
        assert_int_equal(icell(b, r, "w2"), w2[r]);
    }
    fx_free(&x);
    o.fill_seconds = false;
    o.bucket_s = 0.5;
    fx_run_opts(&x, &file, 1, &o, 1, 0);
    b = &x.r->balance;
    assert_int_equal(b->types[0], DFS_TK_FLOAT);
    assert_int_equal(b->nrows, 4); /* 100.0, 100.5, 101.5, 105.0 */
    assert_true(fcell(b, 1, "Time Interval (seconds from begin)") == 0.5);
    fx_free(&x);
    free(file.b);
}

/* No Managed Memory events: DASF fails; here an empty table with only the time column. */
static void test_balance_without_events(void **state)
{
    (void)state;
    mp file = {0};
    compute(&file, &(compute_spec){.key = "a", .end = 10, .dur = 2, .size = 1});
    for (int mode = 0; mode < 2; mode++) {
        fx x;
        fx_run(&x, &file, 1, mode ? DFS_TASKS_COMPAT : DFS_TASKS_DEFAULT);
        assert_int_equal(x.r->balance.nrows, 0);
        assert_int_equal(x.r->balance.ncols, 1);
        assert_true(has_note(x.r, "no Managed Memory events"));
        char *csv = capture_csv(&x.r->balance);
        /* DASF's to_csv writes pandas' index column (compat); the default leaves it out */
        assert_string_equal(csv, mode ? ",Time Interval (seconds from begin)\n" : "Time Interval (seconds from begin)\n");
        free(csv);
        fx_free(&x);
    }
    free(file.b);
}

/* DASF's plugin records key[2:last '-'] as a function's name: the default names such a function
 * (and a nameless one) by its repaired key, a name of its own stays; the compatible mode keeps
 * DASF's cut name; only the compatible mode has the pandas index column. */
static void test_default_function_names(void **state)
{
    (void)state;
    mp file = {0};
    compute(&file, &(compute_spec){.key = "getGPUs-42237764-1836-4be8-ae62-948ce02e1d6a",
                                   .name = "tGPUs-42237764-1836-4be8-ae62", .end = 10, .dur = 3, .size = 1});
    compute(&file, &(compute_spec){.key = "original-array-64bef1cc631f078a2e8f3d2c24d62e99", .name = "iginal-array",
                                   .end = 11, .dur = 2, .size = 1});
    compute(&file, &(compute_spec){.key = "task-1", .name = "add", .end = 12, .dur = 1, .size = 1});
    static const char *const want[2][3] = {{"getGPUs", "original-array", "add"},
                                           {"tGPUs-42237764-1836-4be8-ae62", "iginal-array", "add"}};
    for (int mode = 0; mode < 2; mode++) {
        fx x;
        fx_run(&x, &file, 1, mode ? DFS_TASKS_COMPAT : DFS_TASKS_DEFAULT);
        const dfs_tk_table *t = &x.r->function;
        assert_int_equal(t->nrows, 3);
        for (size_t r = 0; r < 3; r++) /* by duration, descending */
            assert_true(scell_is(t, r, "Function", want[mode][r]));
        assert_int_equal(t->show_index, mode == 1);
        char *csv = capture_csv(t);
        assert_true(mode ? csv[0] == ',' : strncmp(csv, "Host,GPU,Function,", 18) == 0);
        free(csv);
        fx_free(&x);
    }
    free(file.b);
}

/* ---- the task graph -------------------------------------------------------------------------- */

static void graph_file(mp *file)
{
    static const char *const ab[] = {"B", "C", NULL}, *const a[] = {"A", NULL}, *const d[] = {"D", NULL},
                             *const bc[] = {"B", "C", NULL}, *const e[] = {"E", NULL}, *const f[] = {"F", NULL},
                             *const ref[] = {"only-referenced", NULL};
    compute(file, &(compute_spec){.key = "A", .name = "a", .end = 1, .dur = 1, .size = 10, .outs = ab});
    compute(file, &(compute_spec){.key = "B", .name = "b", .end = 6, .dur = 5, .size = 20, .deps = a, .outs = d});
    compute(file, &(compute_spec){.key = "C", .name = "c", .end = 3, .dur = 2, .size = 30, .deps = a, .outs = d});
    compute(file, &(compute_spec){.key = "D", .name = "d", .end = 7, .dur = 1, .size = 40, .deps = bc});
    compute(file, &(compute_spec){.key = "E", .name = "e", .end = 9, .dur = 3, .size = 1, .deps = f, .outs = f});
    compute(file, &(compute_spec){.key = "F", .name = "f", .end = 9, .dur = 4, .size = 1, .deps = e});
    compute(file, &(compute_spec){.key = "G", .name = "g", .end = 9, .dur = 0.5, .size = 1, .deps = ref});
}

static const dfs_tasks_node *node(const dfs_tasks_result *r, const dfs_tasks *t, const char *key)
{
    for (size_t i = 0; i < r->graph.nnodes; i++) {
        size_t n;
        const char *s = dfs_tasks_str(t, r->graph.nodes[i].key, &n);
        if (n == strlen(key) && memcmp(s, key, n) == 0)
            return &r->graph.nodes[i];
    }
    fail_msg("no node %s", key);
    return NULL;
}

/* Longest duration-weighted path of a diamond A -> {B, C} -> D, a cycle E <-> F left out. */
static void test_critical_path(void **state)
{
    (void)state;
    mp file = {0};
    graph_file(&file);
    fx x;
    fx_run(&x, &file, 1, DFS_TASKS_DEFAULT);
    const dfs_tasks_result *r = x.r;
    assert_int_equal(r->graph.nnodes, 8);
    assert_true(r->path_seconds == 7.0);
    assert_int_equal(r->path_tasks, 3);
    assert_int_equal(r->cycle_nodes, 2);
    assert_true(has_note(r, "dependency cycles"));
    const dfs_tk_table *p = &r->critical;
    assert_int_equal(p->nrows, 3);
    const char *keys[] = {"A", "B", "D"};
    double cum[] = {1, 6, 7};
    for (size_t i = 0; i < 3; i++) {
        assert_true(scell_is(p, i, "Task Key", keys[i]));
        assert_true(fcell(p, i, "Path time (s)") == cum[i]);
    }
    assert_true(node(r, x.t, "B")->on_path);
    assert_false(node(r, x.t, "C")->on_path);
    const dfs_tasks_node *d = node(r, x.t, "D");
    assert_true(d->input_size == 50.0); /* B and C, each counted once */
    assert_true(d->throughput == 50.0);
    assert_false(node(r, x.t, "only-referenced")->has_attrs);
    assert_string_equal(d->shape, "[10, 20]");
    fx_free(&x);
    free(file.b);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static void test_graph_export(void **state)
{
    (void)state;
    mp file = {0};
    graph_file(&file);
    fx x;
    fx_run(&x, &file, 1, DFS_TASKS_DEFAULT);
    char err[256];
    const char *gml = tu_temp_file(".graphml", "", 0), *dot = tu_temp_file(".dot", "", 0);
    assert_int_equal(dfs_tasks_write_graph(gml, DFS_GRAPH_AUTO, x.t, x.r, NULL, err, sizeof err), 0);
    assert_int_equal(dfs_tasks_write_graph(dot, DFS_GRAPH_AUTO, x.t, x.r, NULL, err, sizeof err), 0);
    char *g = read_file(gml), *d = read_file(dot);
    assert_non_null(strstr(g, "<graphml"));
    assert_non_null(strstr(g, "edgedefault=\"directed\""));
    size_t edges = 0;
    for (const char *s = g; (s = strstr(s, "<edge ")) != NULL; s++)
        edges++;
    assert_int_equal(edges, x.r->graph.nedges);
    assert_int_equal(edges, 7); /* A-B A-C B-D C-D E-F F-E ref-G: each named twice, kept once */
    assert_non_null(strstr(d, "digraph dasf"));
    assert_non_null(strstr(d, "critical=true"));
    free(g), free(d);
    remove(gml), remove(dot);
    fx_free(&x);
    free(file.b);
}

/* ---- rows: zero durations, duplicate keys ------------------------------------------------------ */

static void test_zero_duration(void **state)
{
    (void)state;
    mp file = {0};
    static const char *const in[] = {"a", NULL};
    compute(&file, &(compute_spec){.key = "a", .end = 1, .dur = 1, .size = 5});
    compute(&file, &(compute_spec){.key = "z", .name = "zero", .end = 2, .dur = 0, .size = 5, .deps = in});
    compute(&file, &(compute_spec){.worker = "worker-host1-idle", .key = "y", .end = 3, .dur = 0, .size = 5});
    fx x;
    fx_run(&x, &file, 1, DFS_TASKS_COMPAT);
    size_t r = row_where(&x.r->function, "Function", "zero");
    assert_true(fcell(&x.r->function, r, "Mean Throughput (MB/s)") == 0.0);
    r = row_where(&x.r->function, "GPU", "idle");
    assert_true(fcell(&x.r->function, r, "Percentage of total time (%)") == 0.0);
    assert_true(has_note(x.r, "duration 0"));
    assert_true(has_note(x.r, "total duration of 0"));
    fx_free(&x);
    free(file.b);
}

static void test_duplicate_keys(void **state)
{
    (void)state;
    mp file = {0};
    compute(&file, &(compute_spec){.key = "k", .name = "f", .end = 1, .dur = 1, .size = 5});
    compute(&file, &(compute_spec){.key = "k", .name = "f", .end = 3, .dur = 2, .size = 7000000});
    fx x;
    fx_run(&x, &file, 1, DFS_TASKS_DEFAULT);
    assert_int_equal(icell(&x.r->function, 0, "Num Tasks (chunks)"), 2);
    assert_int_equal(icell(&x.r->function, 0, "Distinct Keys"), 1);
    assert_int_equal(x.r->task.nrows, 1);
    assert_int_equal(icell(&x.r->task, 0, "Executions"), 2);
    assert_true(fcell(&x.r->task, 0, "Duration (s)") == 3.0);
    assert_true(fcell(&x.r->task, 0, "Memory usage (Mb)") == 7.0); /* the last Compute's size */
    fx_free(&x);
    free(file.b);
}

/* ---- legacy text format -------------------------------------------------------------------------- */

static void test_legacy_text(void **state)
{
    (void)state;
    static const char text[] =
        "trace: {\"name\": \"Dask task\", \"phase\": \"X\", \"timestamp\": 1674000000.5, \"process_id\": "
        "\"c096\", \"thread_id\": \"worker-c096-1\", \"category\": [\"worker\"], \"data\": {\"key\": \"x\"}, "
        "\"duration\": 0.25}\n"
        "trace: {\"name\": \"Processing\", \"phase\": \"B\", \"timestamp\": 1674000002000.0, \"process_id\": "
        "\"c096\", \"thread_id\": \"worker-c096-1\"}\n"
        "trace: {\"name\": \"Processing\", \"phase\": \"E\", \"timestamp\": 1674000002500.0, \"process_id\": "
        "\"c096\", \"thread_id\": \"worker-c096-1\"}\n"
        "trace: {\"name\": \"Processing\", \"phase\": \"E\", \"timestamp\": 1674000003500.0, \"process_id\": "
        "\"c096\", \"thread_id\": \"worker-c096-1\"}\n";
    mp file = {0};
    tu_put(&file, text, sizeof text - 1);
    fx x;
    fx_run(&x, &file, 1, DFS_TASKS_DEFAULT);
    assert_true(x.r->legacy);
    assert_true(has_note(x.r, "legacy DASF text format"));
    assert_true(has_note(x.r, "without a partner"));
    const dfs_tk_table *t = &x.r->names;
    assert_int_equal(t->nrows, 2);
    size_t r = row_where(t, "Name", "Processing");
    assert_int_equal(icell(t, r, "Count"), 1);
    assert_true(fabs(fcell(t, r, "Total Duration (s)") - 0.5) < 1e-9); /* B/E in epoch ms */
    r = row_where(t, "Name", "Dask task");
    assert_int_equal(icell(t, r, "Count"), 1);
    assert_true(fabs(fcell(t, r, "Total Duration (s)") - 0.25) < 1e-9); /* X in seconds */
    fx_free(&x);
    free(file.b);
}

/* ---- the same result for any -j --------------------------------------------------------------- */

static void test_jobs_invariant(void **state)
{
    (void)state;
    char dir[] = "/tmp/dfscope-test-tasks-XXXXXX";
    assert_non_null(mkdtemp(dir));
    dfs_gen_options g;
    dfs_gen_options_init(&g);
    g.out_dir = dir;
    g.ranks = 2;
    g.events_per_rank = 3000;
    g.total_bytes = 0;
    dfs_gen_report rep;
    char err[256];
    assert_int_equal(dfs_gen_dasf_write(&g, &rep, err, sizeof err), DFS_OK);
    assert_int_equal(rep.nfiles, 4);
    for (int mode = 0; mode < 2; mode++) {
        char *first[4] = {0};
        for (int jobs = 1; jobs <= 2; jobs++) {
            dfs_options o;
            dfs_options_init(&o);
            o.jobs = jobs;
            dfs_run *run = dfs_run_new(&o);
            assert_int_equal(dfs_run_add_path(run, dir), DFS_OK);
            dfs_tasks_options to;
            dfs_tasks_options_init(&to);
            to.mode = mode ? DFS_TASKS_COMPAT : DFS_TASKS_DEFAULT;
            dfs_tasks *t = dfs_tasks_new(&to);
            dfs_consumer *c[] = {dfs_tasks_consumer(t)};
            assert_int_equal(dfs_run_read(run, c, 1), DFS_EXIT_OK);
            const dfs_tasks_result *r = dfs_tasks_finish(t, run);
            assert_non_null(r);
            assert_int_equal(r->computes, 6000);
            assert_int_equal(r->samples, 600);
            assert_true(r->gpu_available);
            const dfs_tk_table *tabs[] = {&r->function, &r->task, &r->balance, &r->critical};
            for (int k = 0; k < 4; k++) {
                char *csv = capture_csv(tabs[k]);
                if (jobs == 1)
                    first[k] = csv;
                else {
                    assert_string_equal(first[k], csv);
                    free(csv);
                    free(first[k]);
                }
            }
            assert_int_equal(r->path_tasks, 8); /* eight stages */
            dfs_tasks_free(t);
            dfs_run_free(run);
        }
    }
    for (size_t i = 0; i < rep.nfiles; i++)
        remove(rep.files[i].path);
    dfs_gen_report_free(&rep);
    rmdir(dir);
}

/* ---- names, numbers and layout ---------------------------------------------------------------- */

static void test_dasf_name(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"('var-e4678ef53eb782384180081aa58da0be', 13, 0)", "var"},
        {"('array-reshape-22612059257db170fa304ae3f488407c', 0, 0)", "array-reshape"},
        {"getGPUs-42237764-1836-4be8-ae62-948ce02e1d6a", "tGPUs-42237764-1836-4be8-ae62"},
        {"original-array-64bef1cc631f078a2e8f3d2c24d62e99", "iginal-array"},
        {"_func_fit-62a75b12-6b7a-49b0-b279-160a8ff3ee3b", "unc_fit-62a75b12-6b7a-49b0-b279"},
        {"abc-def", "c"},
        {"x", ""},
        {"('a', 1)", ""},
    };
    char buf[128];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        dfs_tasks_dasf_name(cases[i][0], strlen(cases[i][0]), buf, sizeof buf);
        assert_string_equal(buf, cases[i][1]);
    }
    static const char *const repaired[][2] = {
        {"('var-e4678ef53eb782384180081aa58da0be', 13, 0)", "var"},
        {"getGPUs-42237764-1836-4be8-ae62-948ce02e1d6a", "getGPUs"},
        {"original-array-64bef1cc631f078a2e8f3d2c24d62e99", "original-array"},
        {"_func_fit-62a75b12-6b7a-49b0-b279-160a8ff3ee3b", "_func_fit"},
        {"task-1", "task-1"},
        {"(7, 1)", "7"},
    };
    for (size_t i = 0; i < sizeof repaired / sizeof *repaired; i++) {
        dfs_tasks_repaired_name(repaired[i][0], strlen(repaired[i][0]), buf, sizeof buf);
        assert_string_equal(buf, repaired[i][1]);
    }
}

static void write_float_shape(mp *m)
{
    w_arr(m, 3);
    w_f64(m, 2.0);
    w_f64(m, 0.1);
    w_f64(m, 1e16);
}

/* A node's shape is Python's repr of what DASF recorded, floats included ("2.0", not "2"). */
static void test_float_shape(void **state)
{
    (void)state;
    mp file = {0};
    compute(&file, &(compute_spec){.key = "s", .end = 10, .dur = 2, .size = 1, .write_shape = write_float_shape});
    fx x;
    fx_run(&x, &file, 1, DFS_TASKS_COMPAT);
    assert_string_equal(node(x.r, x.t, "s")->shape, "[2.0, 0.1, 1e+16]");
    fx_free(&x);
    free(file.b);
}

static void test_py_float_repr(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {5.0, "5.0"},         {0.0003413333333333333, "0.0003413333333333333"},
        {8e-06, "8e-06"},     {1e16, "1e+16"},
        {1e15, "1000000000000000.0"}, {0.0001, "0.0001"},
        {1e-05, "1e-05"},     {-2.5, "-2.5"},
        {100.0, "100.0"},     {0.1 + 0.2, "0.30000000000000004"},
        {0.050518035888671875, "0.050518035888671875"}, {1.5e-07, "1.5e-07"},
        {123456789.125, "123456789.125"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
        {5e-324, "5e-324"},   {0.0, "0.0"},
        {-0.0, "-0.0"},       {84.32539682539682, "84.32539682539682"},
    };
    char buf[48];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        dfs_py_float_repr(cases[i].v, buf, sizeof buf);
        assert_string_equal(buf, cases[i].want);
    }
    dfs_py_float_repr(NAN, buf, sizeof buf);
    assert_string_equal(buf, "nan");
    dfs_py_float_repr(-INFINITY, buf, sizeof buf);
    assert_string_equal(buf, "-inf");
}

/* pandas: a text cell of 50+ characters prints as 46 + "...", text and integers get a leading
 * space, numeric headers too, floats %.5f, the label column left-aligned. */
static void test_table_layout(void **state)
{
    (void)state;
    mp file = {0};
    compute(&file, &(compute_spec){.key = "('a-very-long-key-0123456789abcdef0123456789abcdef', 0, 0)",
                                   .name = "f", .end = 1, .dur = 0.5, .size = 8});
    compute(&file, &(compute_spec){.key = "short", .name = "f", .end = 2, .dur = 1.25, .size = 8});
    fx x;
    fx_run(&x, &file, 1, DFS_TASKS_COMPAT);
    char *s = capture_table(&x.r->task, 30);
    /* pandas 1.5.3 under DASF's display options printed exactly this for the same events */
    assert_string_equal(
        s, "    Host   GPU                                           Task Key  Duration (s)  "
           "Percentage of total time (%)  Memory usage (Mb)\n"
           "1  host1  gpu0                                              short       1.25000        "
           "              71.42857            0.00001\n"
           "0  host1  gpu0  ('a-very-long-key-0123456789abcdef0123456789ab...       0.50000        "
           "              28.57143            0.00001\n");
    free(s);
    fx_free(&x);
    free(file.b);
}

/* More than 100 columns: the first and last 50 around " ...", and the dimensions below; lines
 * wider than 1000 characters wrap into blocks. */
static void test_wide_table(void **state)
{
    (void)state;
    mp file = {0};
    for (int w = 0; w < 130; w++) {
        char worker[64];
        snprintf(worker, sizeof worker, "worker-a-rather-long-host-name-%03d", w);
        managed(&file, worker, 10.0 + w % 3, (uint64_t)w);
    }
    fx x;
    fx_run(&x, &file, 1, DFS_TASKS_COMPAT);
    char *s = capture_table(&x.r->balance, 30);
    assert_non_null(strstr(s, " ..."));
    assert_non_null(strstr(s, "\n\n[3 rows x 131 columns]\n"));
    assert_non_null(strstr(s, " \\\n"));
    size_t longest = 0, cur = 0;
    for (const char *p = s; *p; p++) {
        cur = *p == '\n' ? 0 : cur + 1;
        longest = cur > longest ? cur : longest;
    }
    assert_true(longest <= 1000);
    free(s);
    fx_free(&x);
    free(file.b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated_record),
        cmocka_unit_test(test_oversized_length),
        cmocka_unit_test(test_unknown_phase),
        cmocka_unit_test(test_number_widths),
        cmocka_unit_test(test_sweep_matches_dasf_scan),
        cmocka_unit_test(test_clean_attribution),
        cmocka_unit_test(test_cpu_only),
        cmocka_unit_test(test_partial_gpu_sample),
        cmocka_unit_test(test_balance_compat),
        cmocka_unit_test(test_balance_default),
        cmocka_unit_test(test_balance_without_events),
        cmocka_unit_test(test_default_function_names),
        cmocka_unit_test(test_critical_path),
        cmocka_unit_test(test_graph_export),
        cmocka_unit_test(test_zero_duration),
        cmocka_unit_test(test_duplicate_keys),
        cmocka_unit_test(test_legacy_text),
        cmocka_unit_test(test_jobs_invariant),
        cmocka_unit_test(test_dasf_name),
        cmocka_unit_test(test_py_float_repr),
        cmocka_unit_test(test_float_shape),
        cmocka_unit_test(test_table_layout),
        cmocka_unit_test(test_wide_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
