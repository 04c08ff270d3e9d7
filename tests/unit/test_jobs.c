/* test_jobs.c - inputs grouped into jobs (analyze/common/jobs.h): by wall-clock span with a gap
 * that grows with the job, by DASF database name, inputs with neither left unplaced; and the
 * spans the reading keeps per file (dfs_file_info.have_span), on the file's clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/jobs.h"
#include "testutil.h"

#define S (INT64_C(1000000000))
#define H (3600 * S)
#define T0 (INT64_C(1700000000) * S) /* 2023-11-14T22:13:20Z */

static dfs_job_input timed(int64_t start, int64_t end)
{
    return (dfs_job_input){.timed = true, .start_ns = start, .end_ns = end};
}

static dfs_job_input named(const char *id)
{
    return (dfs_job_input){.identity = id, .identity_len = strlen(id)};
}

/* The inputs of job k as a string of indexes, e.g. "0 2". */
static const char *members(const dfs_jobs *j, size_t k)
{
    static char buf[128];
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < j->v[k].count; i++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%zu", i ? " " : "", j->inputs[j->v[k].first + i]);
    return buf;
}

static void days_apart_are_two_jobs_in_start_order(void **state)
{
    (void)state;
    /* given out of order: Thursday's file first, then two of Monday's */
    dfs_job_input in[] = {timed(T0 + 72 * H, T0 + 73 * H), timed(T0, T0 + H), timed(T0 + H / 2, T0 + 2 * H)};
    dfs_jobs j;
    assert_true(dfs_jobs_group(in, 3, &j));
    assert_int_equal(j.n, 2);
    assert_string_equal(members(&j, 0), "1 2");
    assert_true(j.v[0].timed);
    assert_true(j.v[0].start_ns == T0 && j.v[0].end_ns == T0 + 2 * H);
    assert_string_equal(members(&j, 1), "0");
    assert_true(j.v[1].start_ns == T0 + 72 * H);
    assert_int_equal(j.unplaced, 0);
    dfs_jobs_free(&j);
}

/* The gap allowed is an hour, or the job's own span when longer. */
static void the_gap_grows_with_the_job(void **state)
{
    (void)state;
    dfs_jobs j;
    dfs_job_input hour_later[] = {timed(T0, T0 + S), timed(T0 + S + H, T0 + 2 * H)};
    assert_true(dfs_jobs_group(hour_later, 2, &j));
    assert_int_equal(j.n, 1); /* exactly an hour after: still the job */
    dfs_jobs_free(&j);
    dfs_job_input just_over[] = {timed(T0, T0 + S), timed(T0 + 2 * S + H, T0 + 2 * H)};
    assert_true(dfs_jobs_group(just_over, 2, &j));
    assert_int_equal(j.n, 2);
    dfs_jobs_free(&j);
    dfs_job_input long_run[] = {timed(T0, T0 + 5 * H), timed(T0 + 9 * H, T0 + 10 * H)}; /* 4 h pause */
    assert_true(dfs_jobs_group(long_run, 2, &j));
    assert_int_equal(j.n, 1);
    dfs_jobs_free(&j);
    dfs_job_input longer_pause[] = {timed(T0, T0 + 5 * H), timed(T0 + 11 * H, T0 + 12 * H)}; /* 6 h */
    assert_true(dfs_jobs_group(longer_pause, 2, &j));
    assert_int_equal(j.n, 2);
    dfs_jobs_free(&j);
    /* a file inside a long one (a system-metrics file spanning a whole run) joins it */
    dfs_job_input inside[] = {timed(T0, T0 + 10 * H), timed(T0 + 9 * H, T0 + 9 * H + S), timed(T0 + 12 * H, T0 + 13 * H)};
    assert_true(dfs_jobs_group(inside, 3, &j));
    assert_int_equal(j.n, 1);
    dfs_jobs_free(&j);
}

static void identities_group_and_follow_the_timed_jobs(void **state)
{
    (void)state;
    dfs_job_input in[] = {named("b"), timed(T0, T0 + S), named("a"), named("b"), (dfs_job_input){0}};
    dfs_jobs j;
    assert_true(dfs_jobs_group(in, 5, &j));
    assert_int_equal(j.n, 3);
    assert_true(j.v[0].timed);
    assert_string_equal(members(&j, 0), "1");
    assert_false(j.v[1].timed);
    assert_memory_equal(j.v[1].identity, "a", 1);
    assert_string_equal(members(&j, 1), "2");
    assert_string_equal(members(&j, 2), "0 3");
    assert_int_equal(j.unplaced, 1);
    dfs_jobs_free(&j);
}

static void unplaced_inputs_make_no_job(void **state)
{
    (void)state;
    dfs_job_input in[] = {(dfs_job_input){0}, timed(T0, T0 + S), (dfs_job_input){0}};
    dfs_jobs j;
    assert_true(dfs_jobs_group(in, 3, &j));
    assert_int_equal(j.n, 1);
    assert_int_equal(j.unplaced, 2);
    dfs_jobs_free(&j);
    assert_true(dfs_jobs_group(NULL, 0, &j));
    assert_int_equal(j.n, 0);
    dfs_jobs_free(&j);
}

static void dasf_identity_is_the_database_name(void **state)
{
    (void)state;
    size_t n;
    const char *id = dfs_jobs_dasf_identity("runs/Tutorial_5_Profile-TracePlugin-c096.msgpack", &n);
    assert_int_equal(n, strlen("Tutorial_5_Profile"));
    assert_memory_equal(id, "Tutorial_5_Profile", n);
    id = dfs_jobs_dasf_identity("Tutorial_5_Profile-ResourceMonitor-c096.reconstructed.msgpack", &n);
    assert_memory_equal(id, "Tutorial_5_Profile", n);
    assert_int_equal(n, strlen("Tutorial_5_Profile"));
    id = dfs_jobs_dasf_identity("/x/traces-1a2b3c4d.msgpack", &n);
    assert_int_equal(n, strlen("traces-1a2b3c4d"));
    assert_memory_equal(id, "traces-1a2b3c4d", n);
    id = dfs_jobs_dasf_identity("a-TracePlugin-x-TracePlugin-h1.msgpack", &n); /* the last plugin word */
    assert_int_equal(n, strlen("a-TracePlugin-x"));
}

/* What the reading keeps: each file's span on its clock, the end of a complete event included;
 * the jobs of the run come from it. */
static void the_reading_keeps_each_files_span(void **state)
{
    (void)state;
    const char *monday = "[{\"name\":\"a\",\"ph\":\"M\",\"ts\":1,\"pid\":1,\"args\":{\"name\":\"p\"}},\n"
                         "{\"name\":\"s\",\"ph\":\"X\",\"ts\":1700000000000000,\"dur\":1500000,\"pid\":1,\"tid\":1},\n"
                         "{\"name\":\"i\",\"ph\":\"i\",\"ts\":1700000000200000,\"pid\":1,\"tid\":1}]\n";
    const char *thursday = "[{\"name\":\"s\",\"ph\":\"X\",\"ts\":1700259200000000,\"dur\":1,\"pid\":1,\"tid\":1}]\n";
    const char *relative = "[{\"name\":\"s\",\"ph\":\"X\",\"ts\":5,\"dur\":1,\"pid\":1,\"tid\":1}]\n";
    dfs_run *run = tu_run(2, 0, 0);
    assert_int_equal(dfs_run_add_path(run, tu_temp_file(".json", monday, strlen(monday))), DFS_OK);
    assert_int_equal(dfs_run_add_path(run, tu_temp_file(".json", thursday, strlen(thursday))), DFS_OK);
    assert_int_equal(dfs_run_add_path(run, tu_temp_file(".json", relative, strlen(relative))), DFS_OK);
    assert_int_equal(dfs_run_read(run, NULL, 0), DFS_EXIT_OK);
    const dfs_file_info *f = dfs_run_file(run, 0);
    assert_true(f->have_span);
    assert_true(f->span_start_ns == T0 && f->span_end_ns == T0 + 1500 * INT64_C(1000000));
    dfs_jobs j;
    assert_true(dfs_jobs_of_run(run, &j));
    assert_int_equal(j.n, 2);
    assert_string_equal(members(&j, 0), "0");
    assert_string_equal(members(&j, 1), "1");
    assert_int_equal(j.unplaced, 1);
    dfs_jobs_free(&j);
    dfs_run_free(run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(days_apart_are_two_jobs_in_start_order),
        cmocka_unit_test(the_gap_grows_with_the_job),
        cmocka_unit_test(identities_group_and_follow_the_timed_jobs),
        cmocka_unit_test(unplaced_inputs_make_no_job),
        cmocka_unit_test(dasf_identity_is_the_database_name),
        cmocka_unit_test(the_reading_keeps_each_files_span),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
