/* test_dasf_tasks_corpus.c - `dfscope tasks --compat dasf` on ../shared/traces/dasf gives exactly
 * the printed reports and CSV files of reference/dasf.md section 3 (DASF's own analysis module
 * run on the same files), whatever the file order of the tutorial pair; the ResourceMonitor file
 * alone gives empty tables where DASF fails. Skips without the corpus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "analyze/tasks/tasks.h"
#include "output/tasks_report.h"

/* reference/dasf.md section 3, verbatim */
static const char setup_text[] =
    "====================Function bottleneck====================\n"
    "    Host   GPU  Function  Duration (s)  Percentage of total time (%)  Mean GPU Utilization (%)  Mean GPU Memory Used (GB)  Mean Data Size (MB)  Mean Throughput (MB/s)  Num Tasks (chunks)  Mean Task time (s)\n"
    "0  host1  gpu0       add       5.00000                      62.50000                  85.50000                    4.00000              0.00000                 0.00000                   1             5.00000\n"
    "1  host1  gpu0  multiply       3.00000                      37.50000                   0.00000                    0.00000              0.00102                 0.00034                   1             3.00000\n"
    "================================================================================\n"
    "\n"
    "====================Task bottleneck====================\n"
    "    Host   GPU Task Key  Duration (s)  Percentage of total time (%)  Memory usage (Mb)\n"
    "0  host1  gpu0   task-1       5.00000                      62.50000            0.00102\n"
    "1  host1  gpu0   task-2       3.00000                      37.50000            0.00205\n"
    "================================================================================\n"
    "\n"
    "====================Task balance====================\n"
    "   Time Interval (seconds from begin)  worker-host1-gpu0\n"
    "0                                   0                  2\n"
    "================================================================================\n"
    "\n"
    "Analyses finished!\n";

static const char setup_function[] =
    ",Host,GPU,Function,Duration (s),Percentage of total time (%),Mean GPU Utilization (%),Mean GPU Memory Used (GB),Mean Data Size (MB),Mean Throughput (MB/s),Num Tasks (chunks),Mean Task time (s)\n"
    "0,host1,gpu0,add,5.0,62.5,85.5,4.0,0.0,0.0,1,5.0\n"
    "1,host1,gpu0,multiply,3.0,37.5,0.0,0.0,0.001024,0.0003413333333333333,1,3.0\n";

static const char setup_task[] =
    ",Host,GPU,Task Key,Duration (s),Percentage of total time (%),Memory usage (Mb)\n"
    "0,host1,gpu0,task-1,5.0,62.5,0.001024\n"
    "1,host1,gpu0,task-2,3.0,37.5,0.002048\n";

static const char setup_balance[] =
    ",Time Interval (seconds from begin),worker-host1-gpu0\n"
    "0,0,2\n";

static const char integ_text[] =
    "====================Function bottleneck====================\n"
    "    Host   GPU  Function  Duration (s)  Percentage of total time (%)  Mean GPU Utilization (%)  Mean GPU Memory Used (GB)  Mean Data Size (MB)  Mean Throughput (MB/s)  Num Tasks (chunks)  Mean Task time (s)\n"
    "1  host1  gpu0  multiply       3.00000                      60.00000                         0                    0.00000              0.00100                 0.00033                   1             3.00000\n"
    "0  host1  gpu0       add       2.00000                      40.00000                         0                    0.00000              0.00000                 0.00000                   1             2.00000\n"
    "================================================================================\n"
    "\n"
    "====================Task bottleneck====================\n"
    "    Host   GPU Task Key  Duration (s)  Percentage of total time (%)  Memory usage (Mb)\n"
    "1  host1  gpu0   task-2       3.00000                      60.00000            0.00200\n"
    "0  host1  gpu0   task-1       2.00000                      40.00000            0.00100\n"
    "================================================================================\n"
    "\n"
    "====================Task balance====================\n"
    "   Time Interval (seconds from begin)  worker-host1-gpu0\n"
    "0                                   0                  1\n"
    "================================================================================\n"
    "\n"
    "Analyses finished!\n";

static const char integ_function[] =
    ",Host,GPU,Function,Duration (s),Percentage of total time (%),Mean GPU Utilization (%),Mean GPU Memory Used (GB),Mean Data Size (MB),Mean Throughput (MB/s),Num Tasks (chunks),Mean Task time (s)\n"
    "1,host1,gpu0,multiply,3.0,60.0,0,0.0,0.001,0.0003333333333333333,1,3.0\n"
    "0,host1,gpu0,add,2.0,40.0,0,0.0,0.0,0.0,1,2.0\n";

static const char integ_task[] =
    ",Host,GPU,Task Key,Duration (s),Percentage of total time (%),Memory usage (Mb)\n"
    "1,host1,gpu0,task-2,3.0,60.0,0.002\n"
    "0,host1,gpu0,task-1,2.0,40.0,0.001\n";

static const char integ_balance[] =
    ",Time Interval (seconds from begin),worker-host1-gpu0\n"
    "0,0,1\n";

static const char tut_text[] =
    "====================Function bottleneck====================\n"
    "   Host GPU                       Function  Duration (s)  Percentage of total time (%)  Mean GPU Utilization (%)  Mean GPU Memory Used (GB)  Mean Data Size (MB)  Mean Throughput (MB/s)  Num Tasks (chunks)  Mean Task time (s)\n"
    "0  c096   2  tGPUs-42237764-1836-4be8-ae62       0.05052                     100.00000                         0                    0.00000              0.00000                 0.00000                   1             0.05052\n"
    "2  c096   1                  array-reshape       0.00010                      84.32540                         0                    0.00000              0.00001                 0.16040                   2             0.00005\n"
    "1  c096   1                   iginal-array       0.00001                      11.30952                         0                    0.00000              0.00000                 0.00000                   2             0.00001\n"
    "3  c096   1                        reshape       0.00001                       4.36508                         0                    0.00000              0.00001                 1.52520                   1             0.00001\n"
    "================================================================================\n"
    "\n"
    "====================Task bottleneck====================\n"
    "   Host GPU                                           Task Key  Duration (s)  Percentage of total time (%)  Memory usage (Mb)\n"
    "0  c096   2       getGPUs-42237764-1836-4be8-ae62-948ce02e1d6a       0.05052                     100.00000            0.00028\n"
    "3  c096   1  ('array-reshape-22612059257db170fa304ae3f48840...       0.00006                      47.42063            0.00001\n"
    "4  c096   1  ('array-reshape-f70b70b2e4718d09ca3086bb97bec0...       0.00004                      36.90476            0.00001\n"
    "1  c096   1    original-array-64bef1cc631f078a2e8f3d2c24d62e99       0.00001                       6.74603            0.00001\n"
    "2  c096   1    original-array-808dd9f17eb2378b6fb7a3aeddc6cb36       0.00001                       4.56349            0.00001\n"
    "5  c096   1  ('reshape-22612059257db170fa304ae3f488407c', 0...       0.00001                       4.36508            0.00001\n"
    "================================================================================\n"
    "\n"
    "====================Task balance====================\n"
    "   Time Interval (seconds from begin)  worker-c096-1\n"
    "0                                   0             16\n"
    "================================================================================\n"
    "\n"
    "Analyses finished!\n";

static const char tut_function[] =
    ",Host,GPU,Function,Duration (s),Percentage of total time (%),Mean GPU Utilization (%),Mean GPU Memory Used (GB),Mean Data Size (MB),Mean Throughput (MB/s),Num Tasks (chunks),Mean Task time (s)\n"
    "0,c096,2,tGPUs-42237764-1836-4be8-ae62,0.050518035888671875,100.0,0,0.0,0.0,0.0,1,0.050518035888671875\n"
    "2,c096,1,array-reshape,0.00010132789611816406,84.32539682539682,0,0.0,8e-06,0.160397642506861,2,5.066394805908203e-05\n"
    "1,c096,1,iginal-array,1.3589859008789062e-05,11.30952380952381,0,0.0,0.0,0.0,2,6.794929504394531e-06\n"
    "3,c096,1,reshape,5.245208740234375e-06,4.365079365079365,0,0.0,8e-06,1.5252014545454546,1,5.245208740234375e-06\n";

static const char tut_task[] =
    ",Host,GPU,Task Key,Duration (s),Percentage of total time (%),Memory usage (Mb)\n"
    "0,c096,2,getGPUs-42237764-1836-4be8-ae62-948ce02e1d6a,0.050518035888671875,100.0,0.00028\n"
    "3,c096,1,\"('array-reshape-22612059257db170fa304ae3f488407c', 0, 0)\",5.698204040527344e-05,47.42063492063492,8e-06\n"
    "4,c096,1,\"('array-reshape-f70b70b2e4718d09ca3086bb97bec087', 0, 0)\",4.4345855712890625e-05,36.904761904761905,8e-06\n"
    "1,c096,1,original-array-64bef1cc631f078a2e8f3d2c24d62e99,8.106231689453125e-06,6.746031746031746,8e-06\n"
    "2,c096,1,original-array-808dd9f17eb2378b6fb7a3aeddc6cb36,5.4836273193359375e-06,4.563492063492063,8e-06\n"
    "5,c096,1,\"('reshape-22612059257db170fa304ae3f488407c', 0, 0)\",5.245208740234375e-06,4.365079365079365,8e-06\n";

static const char tut_balance[] =
    ",Time Interval (seconds from begin),worker-c096-1\n"
    "0,0,16\n";

#define SETUP "dasf/test_analysis_setUp_events.synthetic.msgpack"
#define INTEG "dasf/test_analysis_integration_events.synthetic.msgpack"
#define MONITOR "dasf/Tutorial_5_Profile-ResourceMonitor-c096.reconstructed.msgpack"
#define PLUGIN "dasf/Tutorial_5_Profile-TracePlugin-c096.reconstructed.msgpack"

typedef struct analysis {
    dfs_run *run;
    dfs_tasks *t;
    const dfs_tasks_result *r;
} analysis;

static void analyse(analysis *a, dfs_tasks_mode mode, const char *const *files, size_t n)
{
    a->run = tu_run(2, 0, 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(dfs_run_add_path(a->run, tu_trace(files[i])), DFS_OK);
    dfs_tasks_options o;
    dfs_tasks_options_init(&o);
    o.mode = mode;
    a->t = dfs_tasks_new(&o);
    assert_non_null(a->t);
    dfs_consumer *c[] = {dfs_tasks_consumer(a->t)};
    assert_int_equal(dfs_run_read(a->run, c, 1), DFS_EXIT_OK);
    a->r = dfs_tasks_finish(a->t, a->run);
    assert_non_null(a->r);
}

static void release(analysis *a)
{
    dfs_tasks_free(a->t);
    dfs_run_free(a->run);
}

/* The printed report from its first banner on: the mode and note lines before it are dfscope's. */
static char *report_body(const dfs_tasks_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    dfs_tasks_write_text(f, r, 30);
    fclose(f);
    assert_true(strncmp(buf, "mode: compatible", 16) == 0);
    char *body = strstr(buf, "====================");
    assert_non_null(body);
    memmove(buf, body, strlen(body) + 1);
    return buf;
}

static char *csv_of(const dfs_tk_table *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_true(dfs_tasks_write_csv(f, t));
    fclose(f);
    return buf;
}

static void expect_csv(const dfs_tk_table *t, const char *want)
{
    char *got = csv_of(t);
    assert_string_equal(got, want);
    free(got);
}

static void expect_reference(const char *const *files, size_t n, const char *text, const char *fn,
                             const char *task, const char *balance)
{
    analysis a;
    analyse(&a, DFS_TASKS_COMPAT, files, n);
    char *body = report_body(a.r);
    assert_string_equal(body, text);
    free(body);
    expect_csv(&a.r->function, fn);
    expect_csv(&a.r->task, task);
    expect_csv(&a.r->balance, balance);
    release(&a);
}

static void test_setup_events(void **state)
{
    (void)state;
    const char *files[] = {SETUP};
    expect_reference(files, 1, setup_text, setup_function, setup_task, setup_balance);
}

static void test_integration_events(void **state)
{
    (void)state;
    const char *files[] = {INTEG};
    expect_reference(files, 1, integ_text, integ_function, integ_task, integ_balance);
}

/* DASF's order (monitor first), the reverse, and the plugin file alone: byte-identical output. */
static void test_tutorial_pair(void **state)
{
    (void)state;
    const char *pair[] = {MONITOR, PLUGIN}, *reverse[] = {PLUGIN, MONITOR}, *alone[] = {PLUGIN};
    expect_reference(pair, 2, tut_text, tut_function, tut_task, tut_balance);
    expect_reference(reverse, 2, tut_text, tut_function, tut_task, tut_balance);
    expect_reference(alone, 1, tut_text, tut_function, tut_task, tut_balance);
}

/* No Compute and no Managed Memory event: DASF fails (spec quirks 7 and 18); empty tables with
 * their full headers here. */
static void test_monitor_alone(void **state)
{
    (void)state;
    const char *files[] = {MONITOR};
    analysis a;
    analyse(&a, DFS_TASKS_COMPAT, files, 1);
    expect_csv(&a.r->function, ",Host,GPU,Function,Duration (s),Percentage of total time (%),"
                               "Mean GPU Utilization (%),Mean GPU Memory Used (GB),Mean Data Size (MB),"
                               "Mean Throughput (MB/s),Num Tasks (chunks),Mean Task time (s)\n");
    expect_csv(&a.r->task, ",Host,GPU,Task Key,Duration (s),Percentage of total time (%),Memory usage (Mb)\n");
    expect_csv(&a.r->balance, ",Time Interval (seconds from begin)\n");
    assert_int_equal(a.r->samples, 10);
    assert_int_equal(a.r->samples_attributed, 0);
    release(&a);
}

static size_t column(const dfs_tk_table *t, const char *name)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (strcmp(t->cols[c], name) == 0)
            return c;
    fail_msg("no column %s", name);
    return 0;
}

/* The default mode on the setUp events: the sample at 102.0 lies in no task's own interval
 * ([95, 100] and [107, 110]), so add's GPU columns are 0; everything else is unchanged. */
static void test_setup_default_mode(void **state)
{
    (void)state;
    const char *files[] = {SETUP};
    analysis clean, compat;
    analyse(&clean, DFS_TASKS_DEFAULT, files, 1);
    analyse(&compat, DFS_TASKS_COMPAT, files, 1);
    assert_int_equal(clean.r->samples_attributed, 0);
    const dfs_tk_table *a = &clean.r->function, *b = &compat.r->function;
    assert_int_equal(a->nrows, b->nrows);
    for (size_t r = 0; r < a->nrows; r++) {
        assert_int_equal(a->label(a, r), b->label(b, r));
        for (size_t c = 0; c < b->ncols; c++) {
            dfs_tk_cell x, y;
            memset(&x, 0, sizeof x), memset(&y, 0, sizeof y);
            a->cell(a, r, c, &x);
            b->cell(b, r, c, &y);
            bool gpu = c == column(b, "Mean GPU Utilization (%)") || c == column(b, "Mean GPU Memory Used (GB)");
            if (gpu)
                assert_true(x.f == 0.0);
            else if (b->types[c] == DFS_TK_TEXT)
                assert_true(x.len == y.len && memcmp(x.s, y.s, x.len) == 0);
            else
                assert_true(x.f == y.f && x.i == y.i);
        }
    }
    release(&clean);
    release(&compat);
}

int main(void)
{
    tu_require_corpus();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_setup_events),
        cmocka_unit_test(test_integration_events),
        cmocka_unit_test(test_tutorial_pair),
        cmocka_unit_test(test_monitor_alone),
        cmocka_unit_test(test_setup_default_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
