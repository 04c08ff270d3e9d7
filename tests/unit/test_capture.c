/* test_capture.c - a command run in-process with its output in memory (cli/capture.h): the
 * report in cap.out, the diagnostics in cap.err, the CLI's exit codes, nothing on the process'
 * own streams, and a read stopped by the capture's cancel hook. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/capture.h"
#include "testutil.h"

static const char *trace(void)
{
    static const char text[] = "[\n"
                               "{\"id\":1,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,\"ph\":\"X\"}\n"
                               "{\"id\":2,\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,"
                               "\"ph\":\"X\"}\n"
                               "{\"name\": broken\n";
    static const char *path;
    if (!path)
        path = tu_temp_file(".pfw", text, sizeof text - 1);
    return path;
}

static int run(dfs_cli_capture *cap, const char *a1, const char *a2, const char *a3, const char *a4)
{
    char *argv[] = {"dfscope", (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL};
    int argc = 1;
    while (argv[argc])
        argc++;
    return dfs_cli_capture_run(argc, argv, cap);
}

/* The process' stdout and stderr, sent to a file while fn runs: what landed there. */
static size_t leaked_bytes(void (*fn)(void))
{
    FILE *sink = tmpfile();
    assert_non_null(sink);
    fflush(dfs_cli_stdout());
    fflush(dfs_cli_stderr());
    int out = dup(1), err = dup(2);
    dup2(fileno(sink), 1);
    dup2(fileno(sink), 2);
    fn();
    fflush(dfs_cli_stdout());
    fflush(dfs_cli_stderr());
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
    struct stat st;
    assert_int_equal(fstat(fileno(sink), &st), 0);
    fclose(sink);
    return (size_t)st.st_size;
}

static void stats_json(void)
{
    dfs_cli_capture cap = {0};
    assert_int_equal(run(&cap, "stats", "--json", "--no-progress", trace()), DFS_EXIT_DAMAGED);
    assert_true(cap.out_len > 0 && cap.out[0] == '{');
    assert_non_null(strstr(cap.out, "\"events_total\": 2"));
    assert_int_equal(strlen(cap.out), cap.out_len);
    assert_non_null(strstr(cap.err, "bad_line")); /* the problem report */
    dfs_cli_capture_free(&cap);
}

static void uncaptured(void)
{
    fprintf(dfs_cli_stdout(), "to the process' stdout\n");
}

static void test_report_and_diagnostics(void **state)
{
    (void)state;
    assert_int_equal(leaked_bytes(uncaptured), strlen("to the process' stdout\n")); /* the probe sees it */
    assert_int_equal(leaked_bytes(stats_json), 0);
}

static void bad_option(void)
{
    dfs_cli_capture cap = {0};
    assert_int_equal(run(&cap, "overlap", "--no-such-option", trace(), NULL), DFS_EXIT_USAGE);
    assert_int_equal(cap.out_len, 0);
    assert_non_null(strstr(cap.err, "dfscope overlap: unknown option '--no-such-option'"));
    dfs_cli_capture_free(&cap);
    assert_int_equal(run(&cap, "stats", "/no/such/file.pfw", NULL, NULL), DFS_EXIT_USAGE);
    assert_non_null(strstr(cap.err, "/no/such/file.pfw"));
    dfs_cli_capture_free(&cap);
}

static void test_usage_errors(void **state)
{
    (void)state;
    assert_int_equal(leaked_bytes(bad_option), 0);
}

static bool always(void *ctx)
{
    (void)ctx;
    return true;
}

static void test_cancelled(void **state)
{
    (void)state;
    dfs_cli_capture cap = {.cancelled = always};
    assert_int_equal(run(&cap, "stats", "--json", "--no-progress", trace()), DFS_EXIT_OUTPUT);
    dfs_cli_capture_free(&cap);
    /* outside a capture, the streams are the process' again */
    assert_int_equal(fileno(dfs_cli_stdout()), 1);
    assert_int_equal(fileno(dfs_cli_stderr()), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_and_diagnostics),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_cancelled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
