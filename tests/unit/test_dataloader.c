/* test_dataloader.c - `dfscope dataloader` as a library (src/analyze/dataloader/dataloader.c,
 * src/output/dataloader_report.c) on a synthetic smdebug job, since no shipped trace has PyTorch
 * data-loader events: every analysis of spec training-loop.md §1.3 with hand-computed numbers
 * (medians, outliers, the pin_memory quirk, num_workers, nested GetNext calls giving a negative
 * batch gap), the row fields and de-duplication of §1.2, the reading rules of §1.1 (B/E pairing
 * per pid, the corrupt system-metric line), window reports and queries, user patterns, the Kineto
 * mapping, determinism over -j and the four outputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#include "analyze/dataloader/dataloader.h"
#include "output/dataloader_report.h"

#define S0 "1600000000000000" /* the framework file's start time, µs */
#define T(us) (INT64_C(1600000000000000000) + (int64_t)(us) * 1000) /* ns of a relative µs time */

/* The job: phases per pid, three initializations of each iterator type, four workers, seven
 * GetNext calls of which g5 nests in g4, a Step B/E pair, an E without a B and a B never closed. */
static const char framework_json[] =
    "[\n"
    "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"start_time_since_epoch_in_micros\": " S0 "}},\n"
    "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"DataLoaderIterInitialize\"}},\n"
    "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 2, \"args\": {\"name\": \"DataLoaderIter\"}},\n"
    "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 3, \"args\": {\"name\": \"DataLoaderWorker\"}},\n"
    "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 4, \"args\": {\"name\": \"Step:ModeKeys.TRAIN\"}},\n"
    /* initializations: multi 100, 120, 500 (median 120, outlier 500); single 50, 60 */
    "{\"name\": \"_MultiProcessingDataLoaderIter.__init__\", \"ph\": \"X\", \"pid\": 1, \"ts\": 0, \"dur\": 100, \"args\": {\"num_workers\": 4, \"pin_memory\": true, \"pid\": 900}},\n"
    "{\"name\": \"_MultiProcessingDataLoaderIter.__init__\", \"ph\": \"X\", \"pid\": 1, \"ts\": 200, \"dur\": 120, \"args\": {\"num_workers\": 4, \"pin_memory\": true, \"pid\": 900}},\n"
    "{\"name\": \"_MultiProcessingDataLoaderIter.__init__\", \"ph\": \"X\", \"pid\": 1, \"ts\": 400, \"dur\": 500, \"args\": {\"num_workers\": 4, \"pin_memory\": true, \"pid\": 900}},\n"
    "{\"name\": \"_SingleProcessDataLoaderIter.__init__\", \"ph\": \"X\", \"pid\": 1, \"ts\": 950, \"dur\": 50, \"args\": {\"num_workers\": 0, \"pin_memory\": \"True\", \"pid\": 900}},\n"
    "{\"name\": \"_SingleProcessDataLoaderIter.__init__\", \"ph\": \"X\", \"pid\": 1, \"ts\": 120000, \"dur\": 60, \"args\": {\"num_workers\": 0, \"pin_memory\": \"True\", \"pid\": 900}},\n"
    /* workers: 1000, 1100, 1200, 5000 (median 1150, outlier 5000 = worker 3) */
    "{\"name\": \"DataLoaderWorker\", \"ph\": \"X\", \"pid\": 3, \"ts\": 1000, \"dur\": 1000, \"args\": {\"worker_id\": 0, \"pid\": 901}},\n"
    "{\"name\": \"DataLoaderWorker\", \"ph\": \"X\", \"pid\": 3, \"ts\": 2000, \"dur\": 1100, \"args\": {\"worker_id\": 1, \"pid\": 902}},\n"
    "{\"name\": \"DataLoaderWorker\", \"ph\": \"X\", \"pid\": 3, \"ts\": 3000, \"dur\": 1200, \"args\": {\"worker_id\": 2, \"pid\": 903}},\n"
    "{\"name\": \"DataLoaderWorker\", \"ph\": \"X\", \"pid\": 3, \"ts\": 4000, \"dur\": 5000, \"args\": {\"worker_id\": 3, \"pid\": 904}},\n"
    /* GetNext: sorted by end g1 g2 g3 g5 g4 g6 g7; gaps 10000 10000 10200 -200 60000 10000 */
    "{\"name\": \"_MultiProcessingDataLoaderIter::GetNext\", \"ph\": \"X\", \"pid\": 2, \"ts\": 10000, \"dur\": 100, \"args\": {\"worker_id\": 0, \"pid\": 900, \"step_num\": \"0\"}},\n"
    "{\"name\": \"_MultiProcessingDataLoaderIter::GetNext\", \"ph\": \"X\", \"pid\": 2, \"ts\": 20000, \"dur\": 100, \"args\": {\"worker_id\": 1, \"pid\": 900, \"step_num\": \"1\", \"layer_name\": 7}},\n"
    "{\"name\": \"_MultiProcessingDataLoaderIter::GetNext\", \"ph\": \"X\", \"pid\": 2, \"ts\": 30000, \"dur\": 100, \"args\": {\"worker_id\": 2, \"pid\": 900, \"layer_name\": \"fetch\"}},\n"
    "{\"name\": \"_MultiProcessingDataLoaderIter::GetNext\", \"ph\": \"X\", \"pid\": 2, \"ts\": 40000, \"dur\": 900, \"args\": {\"worker_id\": 3, \"pid\": 900}},\n"
    "{\"name\": \"_MultiProcessingDataLoaderIter::GetNext\", \"ph\": \"X\", \"pid\": 2, \"ts\": 40200, \"dur\": 100, \"args\": {\"worker_id\": 0, \"pid\": 900}},\n"
    "{\"name\": \"_MultiProcessingDataLoaderIter::GetNext\", \"ph\": \"X\", \"pid\": 2, \"ts\": 100000, \"dur\": 100, \"args\": {\"worker_id\": 1, \"pid\": 900}},\n"
    "{\"name\": \"_MultiProcessingDataLoaderIter::GetNext\", \"ph\": \"X\", \"pid\": 2, \"ts\": 110000, \"dur\": 100, \"args\": {\"worker_id\": 2, \"pid\": 900}},\n"
    /* g7 again, written differently: a row identical in every field (dropped) */
    "{\"ph\": \"X\", \"pid\": 2, \"name\": \"_MultiProcessingDataLoaderIter::GetNext\", \"dur\": 100, \"ts\": 110000, \"args\": {\"pid\": 900, \"worker_id\": 2}},\n"
    /* a step as a B/E pair on pid 4; an E without a B on pid 5; a B never closed on pid 6 */
    "{\"name\": \"Step:ModeKeys.TRAIN\", \"ph\": \"B\", \"pid\": 4, \"ts\": 35000, \"args\": {\"step_num\": \"3\"}},\n"
    "{\"name\": \"\", \"ph\": \"E\", \"pid\": 4, \"ts\": 45000},\n"
    "{\"name\": \"\", \"ph\": \"E\", \"pid\": 5, \"ts\": 46000},\n"
    "{\"name\": \"Forward\", \"ph\": \"B\", \"pid\": 6, \"ts\": 47000},\n"
    "{\"name\": \"CYCLE_START\", \"ph\": \"i\", \"pid\": 4, \"ts\": 47000, \"s\": \"g\"}\n"
    "]\n";

/* Samples at 40.5 ms (both windows), 60 ms and 80 ms (batch window), 200 ms (none). */
static const char system_json[] =
    "{\"Type\": \"cpu\", \"Name\": \"cpu0\", \"Dimension\": \"CPUUtilization\", \"Value\": 10, \"NodeId\": \"algo-1\", \"Timestamp\": 1600000000.0405}\n"
    "{\"Type\": \"cpu\", \"Name\": \"cpu0\", \"Dimension\": \"CPUUtilization\", \"Value\": 30, \"NodeId\": \"algo-1\", \"Timestamp\": 1600000000.06}\n"
    "{\"Type\": \"cpu\", \"Name\": \"cpu1\", \"Dimension\": \"CPUUtilization\", \"Value\": 50.5, \"NodeId\": \"algo-1\", \"Timestamp\": 1600000000.06}\n"
    "{\"Type\": \"gpu\", \"Name\": \"gpu0\", \"Dimension\": \"GPUUtilization\", \"Value\": 5, \"NodeId\": \"algo-1\", \"Timestamp\": 1600000000.08}\n"
    "{\"Type\": \"cpu\", \"Name\": \"cpu0\", \"Dimension\": \"CPUUtilization\", \"Value\": 99, \"NodeId\": \"algo-1\", \"Timestamp\": 1600000000.2}\n";

/* ---- fixtures --------------------------------------------------------------------------------- */

typedef struct job {
    char dir[64];
    char framework[128], system[128];
} job;

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void make_job(job *j)
{
    snprintf(j->dir, sizeof j->dir, "/tmp/dfscope-dl-XXXXXX");
    assert_non_null(mkdtemp(j->dir));
    snprintf(j->framework, sizeof j->framework, "%s/1600000000200000_algo-1_pythontimeline.json", j->dir);
    snprintf(j->system, sizeof j->system, "%s/1600000000.algo-1.json", j->dir);
    write_file(j->framework, framework_json, sizeof framework_json - 1);
    write_file(j->system, system_json, sizeof system_json - 1);
}

static void remove_tree(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

typedef struct analysis {
    dfs_run *run;
    dfs_dataloader *d;
    const dfs_dl_result *r;
    int rc;
} analysis;

static void analyse_with(analysis *a, const char *const *paths, size_t n, const dfs_dl_options *o, int jobs,
                         uint64_t chunk)
{
    char err[256];
    a->run = tu_run(jobs, chunk, 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(dfs_run_add_path(a->run, paths[i]), DFS_OK);
    a->d = dfs_dl_new(o, err, sizeof err);
    assert_non_null(a->d);
    dfs_consumer *c[] = {dfs_dl_consumer(a->d)};
    a->rc = dfs_run_read(a->run, c, 1);
    a->r = dfs_dl_finish(a->d, a->run);
    assert_non_null(a->r);
}

static void analyse(analysis *a, const char *const *paths, size_t n)
{
    analyse_with(a, paths, n, NULL, 2, 0);
}

static void done(analysis *a)
{
    dfs_dl_free(a->d);
    dfs_run_free(a->run);
}

static const char *text(const analysis *a, dfs_str s)
{
    size_t n;
    return dfs_str_get(a->run, s, &n);
}

/* The job, analysed with both files (each test gets a fresh one). */
typedef struct fixture {
    job j;
    analysis a;
} fixture;

static int setup_job(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    make_job(&f->j);
    const char *paths[] = {f->j.framework, f->j.system};
    analyse(&f->a, paths, 2);
    *state = f;
    return 0;
}

static int teardown_job(void **state)
{
    fixture *f = *state;
    done(&f->a);
    remove_tree(f->j.dir);
    free(f);
    return 0;
}

/* ---- the analyses ----------------------------------------------------------------------------- */

static void t_rows(void **state)
{
    fixture *f = *state;
    const analysis *a = &f->a;
    const dfs_dl_result *r = a->r;
    assert_int_equal(r->framework_files, 1);
    assert_int_equal(r->nrows[DFS_DL_INIT], 5);
    assert_int_equal(r->nrows[DFS_DL_WORKER], 4);
    assert_int_equal(r->nrows[DFS_DL_GETNEXT], 7);
    assert_int_equal(r->duplicates[DFS_DL_GETNEXT], 1);
    const dfs_dl_row *g = r->rows[DFS_DL_GETNEXT];
    assert_int_equal(g[0].start, T(10000));
    assert_int_equal(g[0].end, T(10100));
    assert_int_equal(g[0].pid, 900); /* args.pid */
    assert_int_equal(g[0].step, 0);
    assert_int_equal(g[1].step, 1);
    /* a wanted arg of the wrong type (layer_name 7) last: the others stay */
    assert_int_equal(g[1].pid, 900);
    assert_int_equal(g[1].worker_id, 1);
    assert_string_equal(text(a, g[1].metric), "_MultiProcessingDataLoaderIter::GetNext");
    assert_int_equal(g[2].step, -1);
    assert_string_equal(text(a, g[2].metric), "fetch"); /* args.layer_name */
    assert_string_equal(text(a, g[0].metric), "_MultiProcessingDataLoaderIter::GetNext");
    assert_int_equal(g[3].worker_id, 3);
    assert_int_equal(g[0].pin_memory, DFS_DL_PIN_NA);
    assert_int_equal(g[0].num_workers, -1);
    assert_string_equal(dfs_dl_label(r, g[0].node), "algo-1");
    assert_string_equal(text(a, r->events[g[0].event].phase), "DataLoaderIter");
    /* the mappings: smdebug's three regexes on the one framework file */
    assert_int_equal(r->nmappings, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_string_equal(r->mappings[i].source, "smdebug");
        assert_string_equal(r->mappings[i].how, "regex");
        assert_int_equal(r->mappings[i].files, 1);
    }
    assert_string_equal(r->mappings[0].pattern, ".*DataLoaderIter::GetNext");
    assert_int_equal(r->mappings[0].rows, 8); /* before de-duplication */
}

static void t_inits(void **state)
{
    fixture *f = *state;
    const analysis *a = &f->a;
    const dfs_dl_init_type *m = &a->r->init[0], *s = &a->r->init[1];
    assert_string_equal(m->type, "_MultiProcessingDataLoaderIter.__init__");
    assert_int_equal(m->stats.count, 3);
    assert_true(m->stats.median_us == 120 && m->stats.max_us == 500);
    assert_int_equal(m->pin_memory, DFS_DL_PIN_TRUE);
    assert_int_equal(m->num_workers, 4);
    assert_int_equal(m->stats.noutliers, 1);
    const dfs_dl_row *o = &a->r->rows[DFS_DL_INIT][m->stats.outliers[0]];
    assert_int_equal(o->start, T(400));
    assert_int_equal(o->end, T(900));
    /* the quirk: a string "True" is "False" */
    assert_string_equal(s->type, "_SingleProcessDataLoaderIter.__init__");
    assert_int_equal(s->stats.count, 2);
    assert_true(s->stats.median_us == 55 && s->stats.max_us == 60);
    assert_int_equal(s->pin_memory, DFS_DL_PIN_FALSE);
    assert_string_equal(dfs_dl_pin_name((dfs_dl_pin)s->pin_memory), "False");
    assert_int_equal(s->num_workers, 0);
    assert_int_equal(s->stats.noutliers, 0);
    assert_int_equal(a->r->init_other, 0);
}

static void t_workers_and_getnext(void **state)
{
    fixture *f = *state;
    const analysis *a = &f->a;
    const dfs_dl_stats *w = &a->r->workers, *g = &a->r->getnext;
    assert_int_equal(w->count, 4);
    assert_true(w->median_us == 1150 && w->max_us == 5000);
    assert_int_equal(w->noutliers, 1);
    assert_int_equal(a->r->rows[DFS_DL_WORKER][w->outliers[0]].worker_id, 3);
    assert_int_equal(g->count, 7);
    assert_true(g->median_us == 100 && g->max_us == 900);
    assert_int_equal(g->noutliers, 1);
    const dfs_dl_row *o = &a->r->rows[DFS_DL_GETNEXT][g->outliers[0]];
    assert_int_equal(o->start, T(40000));
    assert_int_equal(o->worker_id, 3);
}

static void t_batches(void **state)
{
    fixture *f = *state;
    const analysis *a = &f->a;
    const dfs_dl_result *r = a->r;
    static const int64_t gaps_us[] = {10000, 10000, 10200, -200, 60000, 10000};
    assert_int_equal(r->ngaps, 6);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(r->gaps[i].gap, gaps_us[i] * 1000);
    assert_int_equal(r->batch_groups, 1);
    assert_int_equal(r->negative_gaps, 1); /* g4 ends after the nested g5: kept, never clamped */
    assert_int_equal(r->gaps[3].prev_start, T(40200));
    assert_int_equal(r->gaps[3].start, T(40000));
    assert_true(r->batch.median_us == 10000 && r->batch.max_us == 60000);
    assert_int_equal(r->batch.noutliers, 1);
    const dfs_dl_gap *o = &r->gaps[r->batch.outliers[0]];
    assert_int_equal(o->prev_start, T(40000));
    assert_int_equal(o->start, T(100000));
    assert_int_equal(r->rows[DFS_DL_GETNEXT][o->row].worker_id, 1);
}

static void t_reading(void **state)
{
    fixture *f = *state;
    const analysis *a = &f->a;
    const dfs_dl_result *r = a->r;
    assert_int_equal(r->orphan_ends, 1);
    assert_int_equal(r->unclosed_begins, 1);
    assert_int_equal(r->negative_durations, 0);
    assert_int_equal(r->nevents, 5 + 4 + 8 + 1); /* X events and the one B/E pair; `i` ignored */
    size_t *idx = NULL;
    assert_int_equal(dfs_dl_events_in(r, T(45000), T(45000), &idx), 1); /* touching the end */
    assert_string_equal(text(a, r->events[idx[0]].name), "Step:ModeKeys.TRAIN");
    assert_int_equal(r->events[idx[0]].start, T(35000));
    free(idx);
    /* the origin: the first system-metric file's name */
    assert_int_equal(r->origin, INT64_C(1600000000000000000));
    assert_int_equal(r->origin_file, 1);
    assert_int_equal(r->nsamples, 5);
    assert_int_equal(r->nsysfiles, 1);
    assert_int_equal(r->sysfiles[0].status, DFS_DL_SYS_OK);
    assert_int_equal(dfs_dl_samples_in(r, a->run, T(0), T(200000), "cpu", NULL), 4);
    assert_int_equal(dfs_dl_samples_in(r, a->run, T(60000), T(60000), NULL, NULL), 2);
    assert_int_equal(dfs_dl_samples_in(r, a->run, T(60001), T(79999), NULL, NULL), 0);
    assert_int_equal(dfs_dl_events_in(r, T(200001), T(300000), NULL), 0);
}

static void t_windows(void **state)
{
    fixture *f = *state;
    const analysis *a = &f->a;
    const dfs_dl_result *r = a->r;
    assert_int_equal(r->nwindows, 2);
    assert_int_equal(r->windows_skipped, 0);
    const dfs_dl_window *g = &r->windows[0], *b = &r->windows[1];
    /* GetNext outlier g4: [40000, 40900] */
    assert_int_equal(g->kind, DFS_DL_WIN_GETNEXT);
    assert_int_equal(g->start, T(40000));
    assert_int_equal(g->end, T(40900));
    assert_int_equal(g->nmetrics, 1);
    assert_string_equal(text(a, g->metrics[0].dim), "CPUUtilization");
    assert_string_equal(dfs_dl_label(r, g->metrics[0].name), "cpu0");
    assert_string_equal(dfs_dl_label(r, g->metrics[0].node), "algo-1");
    assert_true(g->metrics[0].count == 1 && g->metrics[0].min == 10 && g->metrics[0].max == 10);
    assert_int_equal(g->nevents, 3); /* the step, g4, g5 */
    assert_int_equal(g->finishing_inside, 2);
    assert_string_equal(text(a, r->events[g->events[0]].name), "Step:ModeKeys.TRAIN");
    /* batch outlier g4 -> g6: [40000, 100000] */
    assert_int_equal(b->kind, DFS_DL_WIN_BATCH);
    assert_int_equal(b->start, T(40000));
    assert_int_equal(b->end, T(100000));
    assert_int_equal(b->nmetrics, 3);
    assert_string_equal(dfs_dl_label(r, b->metrics[0].name), "cpu0");
    assert_true(b->metrics[0].count == 2 && b->metrics[0].min == 10 && b->metrics[0].mean == 20 &&
                b->metrics[0].max == 30);
    assert_string_equal(dfs_dl_label(r, b->metrics[1].name), "cpu1");
    assert_true(b->metrics[1].mean == 50.5);
    assert_string_equal(text(a, b->metrics[2].dim), "GPUUtilization");
    assert_int_equal(b->nevents, 4); /* the step, g4, g5, g6 (starting at the end) */
    assert_int_equal(b->finishing_inside, 3);
}

static void t_max_windows(void **state)
{
    fixture *f = *state;
    analysis a;
    dfs_dl_options o;
    dfs_dl_options_init(&o);
    o.max_windows = 0; /* all */
    const char *paths[] = {f->j.framework};
    analyse_with(&a, paths, 1, &o, 1, 0);
    assert_int_equal(a.r->nwindows, 2);
    done(&a);
    o.max_windows = 1;
    analyse_with(&a, paths, 1, &o, 1, 0);
    assert_int_equal(a.r->nwindows, 2); /* one of each kind */
    done(&a);
}

/* ---- patterns and mappings -------------------------------------------------------------------- */

static void t_user_patterns(void **state)
{
    fixture *f = *state;
    analysis a;
    dfs_dl_options o;
    dfs_dl_options_init(&o);
    o.pattern[DFS_DL_GETNEXT] = "^Step:";                 /* a phase or a name */
    o.pattern[DFS_DL_WORKER] = "DataLoaderWorker\"x\\\\"; /* quotes and backslashes survive */
    const char *paths[] = {f->j.framework};
    analyse_with(&a, paths, 1, &o, 1, 0);
    assert_int_equal(a.r->nrows[DFS_DL_GETNEXT], 1);
    assert_int_equal(a.r->nrows[DFS_DL_WORKER], 0);
    assert_string_equal(a.r->mappings[0].source, "user");
    assert_string_equal(a.r->mappings[0].pattern, "^Step:");
    assert_int_equal(a.r->ngaps, 0);
    done(&a);
    /* matching the phase alone: every event of pid 2 */
    o.pattern[DFS_DL_GETNEXT] = "^DataLoaderIter$";
    analyse_with(&a, paths, 1, &o, 1, 0);
    assert_int_equal(a.r->nrows[DFS_DL_GETNEXT], 7);
    done(&a);
    char err[256];
    o.pattern[DFS_DL_INIT] = "(unclosed";
    assert_null(dfs_dl_new(&o, err, sizeof err));
    assert_non_null(strstr(err, "initialize pattern '(unclosed'"));
}

/* Kineto: the data-loader spans are mapped onto GetNext (the data-wait concept). */
static void t_kineto_mapping(void **state)
{
    (void)state;
    static const char kineto[] =
        "{\"schemaVersion\": 1, \"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 7, \"tid\": 7, \"ts\": 1000, \"dur\": 50},\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\", \"pid\": 7, \"tid\": 7, \"ts\": 1000, \"dur\": 300},\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\", \"pid\": 7, \"tid\": 7, \"ts\": 2000, \"dur\": 300},\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\", \"pid\": 7, \"tid\": 7, \"ts\": 3000, \"dur\": 900},\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\", \"pid\": 7, \"tid\": 7, \"ts\": 8000, \"dur\": 300},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"volta_gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 1100, \"dur\": 20, \"args\": {\"correlation\": 1}}\n"
        "], \"baseTimeNanoseconds\": 1700000000000000000}\n";
    const char *path = tu_temp_file(".pt.trace.json", kineto, sizeof kineto - 1);
    analysis a;
    analyse(&a, &path, 1);
    const dfs_dl_result *r = a.r;
    assert_string_equal(r->mappings[0].source, "kineto");
    assert_string_equal(r->mappings[0].how, "concept");
    assert_int_equal(r->mappings[0].rows, 4);
    assert_int_equal(r->nrows[DFS_DL_GETNEXT], 4);
    assert_true(r->getnext.median_us == 300 && r->getnext.max_us == 900);
    assert_int_equal(r->getnext.noutliers, 1);
    /* gaps 1000, 1000, 5000: median 1000, outlier 5000 */
    assert_int_equal(r->ngaps, 3);
    assert_true(r->batch.median_us == 1000);
    assert_int_equal(r->batch.noutliers, 1);
    assert_int_equal(r->gaps[r->batch.outliers[0]].gap, 5000000);
    assert_int_equal(r->rows[DFS_DL_GETNEXT][0].start, INT64_C(1700000000000000000) + 1000000);
    assert_string_equal(dfs_dl_label(r, r->rows[DFS_DL_GETNEXT][0].node), strrchr(path, '/') + 1);
    assert_int_equal(r->nrows[DFS_DL_INIT], 0);
    assert_string_equal(r->mappings[1].source, "smdebug");
    unlink(path);
    done(&a);
}

/* ---- the system-metric files ------------------------------------------------------------------ */

static void system_file_case(const char *lines, dfs_dl_sys_status want, uint64_t samples)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/dfscope-dl-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/1591160699.algo-1.json", dir);
    write_file(path, lines, strlen(lines));
    analysis a;
    const char *paths[] = {path};
    analyse(&a, paths, 1);
    assert_int_equal(a.r->nsysfiles, 1);
    assert_int_equal(a.r->sysfiles[0].status, want);
    assert_int_equal(a.r->sysfiles[0].samples, samples);
    assert_int_equal(a.r->nsamples, samples);
    assert_int_equal(a.r->last_lines_skipped, want == DFS_DL_SYS_LAST_LINE_SKIPPED);
    assert_int_equal(a.r->rejected_files, want == DFS_DL_SYS_REJECTED);
    assert_int_equal(a.r->framework_files, 0);
    assert_int_equal(a.r->nmappings, 3); /* the defaults, applied to no file */
    assert_int_equal(a.r->mappings[0].files, 0);
    done(&a);
    remove_tree(dir);
}

#define LINE(v, t) "{\"Type\": \"cpu\", \"Name\": \"cpu0\", \"Dimension\": \"CPUUtilization\", \"Value\": " v ", \"NodeId\": \"algo-1\", \"Timestamp\": " t "}\n"

static void t_system_files(void **state)
{
    (void)state;
    system_file_case(LINE("1", "1591160699.5") LINE("2", "1591160700.5"), DFS_DL_SYS_OK, 2);
    /* a cut last line (a file being written): skipped, counted */
    system_file_case(LINE("1", "1591160699.5") LINE("2", "1591160700.5") "{\"Type\": \"cpu\", \"Na",
                     DFS_DL_SYS_LAST_LINE_SKIPPED, 2);
    system_file_case(LINE("1", "1591160699.5") "{\"Type\": \"cpu\", \"Na\n\n  \n", DFS_DL_SYS_LAST_LINE_SKIPPED, 1);
    /* a corrupt line elsewhere (a file of nothing but a corrupt line is not a trace at all): the
     * file is left out */
    system_file_case(LINE("1", "1591160699.5") "{\"Type\": \"cpu\", \"Na\n" LINE("2", "1591160700.5"),
                     DFS_DL_SYS_REJECTED, 0);
    system_file_case(LINE("1", "1591160699.5") "garbage\n{\"Type\"", DFS_DL_SYS_REJECTED, 0);
}

/* ---- determinism and outputs ------------------------------------------------------------------ */

static char *render(const analysis *a, int format, const dfs_dl_report_options *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    if (format)
        dfs_dl_write_json(f, a->run, a->r, o);
    else
        dfs_dl_write_text(f, a->run, a->r, o);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void t_jobs(void **state)
{
    fixture *f = *state;
    const char *paths[] = {f->j.system, f->j.framework};
    dfs_dl_report_options o = {.window_events = 0};
    analysis a1, a2;
    analyse_with(&a1, paths, 2, NULL, 1, 0);
    analyse_with(&a2, paths, 2, NULL, 2, 4096); /* the framework file in two pieces */
    char *x = render(&a1, 1, &o), *y = render(&a2, 1, &o);
    assert_string_equal(x, y);
    free(x);
    free(y);
    x = render(&a1, 0, &o);
    y = render(&a2, 0, &o);
    assert_string_equal(x, y);
    free(x);
    free(y);
    done(&a1);
    done(&a2);
}

static void t_outputs(void **state)
{
    fixture *f = *state;
    const analysis *a = &f->a;
    char wdir[128], cdir[128], err[256];
    snprintf(wdir, sizeof wdir, "%s/windows", f->j.dir);
    snprintf(cdir, sizeof cdir, "%s/csv", f->j.dir);
    dfs_dl_report_options o = {.window_events = 2, .windows_dir = wdir};
    char *t = render(a, 0, &o);
    assert_non_null(strstr(t, "_MultiProcessingDataLoaderIter.__init__: used; pin_memory True, num_workers 4"));
    assert_non_null(strstr(t, "_SingleProcessDataLoaderIter.__init__: used; pin_memory False, num_workers 0"));
    assert_non_null(strstr(t, "initializations: 3, median 120 us, max 500 us; outliers (>= 2 x median): 1"));
    assert_non_null(strstr(t, "2020-09-13T12:26:40:000400  2020-09-13T12:26:40:000900           500"));
    assert_non_null(strstr(t, "workers spun off: 4, median 1150 us, max 5000 us"));
    assert_non_null(strstr(t, "negative gaps (nested calls): 1"));
    assert_non_null(strstr(t, "2020-09-13T12:26:40:040000  2020-09-13T12:26:40:100000              0.060000"));
    assert_non_null(strstr(t, "... and 1 more"));
    assert_non_null(strstr(t, "/getnext-1.json"));
    free(t);
    char *js = render(a, 1, &o);
    assert_non_null(strstr(js, "\"schema\": \"dfscope-dataloader/1\""));
    assert_non_null(strstr(js, "\"BatchTime_in_seconds\": 0.06"));
    assert_non_null(strstr(js, "\"start_time_us\": 40000"));
    free(js);
    assert_int_equal(dfs_dl_write_csv_dir(cdir, a->run, a->r, NULL, err, sizeof err), 0);
    assert_int_equal(dfs_dl_write_windows(wdir, a->run, a->r, NULL, err, sizeof err), 0);
    static const char *const files[] = {"csv/summary.csv", "csv/outliers.csv", "csv/rows.csv",
                                        "csv/window_metrics.csv", "windows/getnext-1.json", "windows/getnext-1.svg",
                                        "windows/batch-1.json", "windows/batch-1.svg"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char p[256];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", f->j.dir, files[i]);
        assert_int_equal(stat(p, &st), 0);
        assert_true(st.st_size > 0);
    }
    /* a file where a directory is wanted */
    assert_int_equal(dfs_dl_write_csv_dir(f->j.framework, a->run, a->r, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a directory"));
}

static void t_fmt_time(void **state)
{
    (void)state;
    char b[48];
    assert_string_equal(dfs_dl_fmt_time(b, sizeof b, INT64_C(1594662614814909000)), "2020-07-13T17:50:14:814909");
    assert_string_equal(dfs_dl_fmt_time(b, sizeof b, INT64_C(1594662614814909999)), "2020-07-13T17:50:14:814909");
    assert_string_equal(dfs_dl_fmt_time(b, sizeof b, 0), "1970-01-01T00:00:00:000000");
}

static void t_empty(void **state)
{
    (void)state;
    const char *path = tu_temp_file(".json", "[]\n", 3);
    analysis a;
    analyse(&a, &path, 1);
    assert_int_equal(a.r->nevents, 0);
    assert_int_equal(a.r->getnext.count, 0);
    assert_true(isnan(a.r->getnext.median_us));
    assert_int_equal(a.r->nwindows, 0);
    dfs_dl_report_options o = {0};
    char *t = render(&a, 0, &o);
    assert_non_null(strstr(t, "the events are not present"));
    free(t);
    assert_ptr_equal(dfs_dl_finish(a.d, a.run), a.r); /* finishing twice is harmless */
    done(&a);
    unlink(path);
}

int main(void)
{
#define WITH_JOB(t) cmocka_unit_test_setup_teardown(t, setup_job, teardown_job)
    const struct CMUnitTest tests[] = {
        WITH_JOB(t_rows),          WITH_JOB(t_inits),          WITH_JOB(t_workers_and_getnext),
        WITH_JOB(t_batches),       WITH_JOB(t_reading),        WITH_JOB(t_windows),
        WITH_JOB(t_max_windows),   WITH_JOB(t_user_patterns),  cmocka_unit_test(t_kineto_mapping),
        cmocka_unit_test(t_system_files), WITH_JOB(t_jobs),    WITH_JOB(t_outputs),
        cmocka_unit_test(t_fmt_time),     cmocka_unit_test(t_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
