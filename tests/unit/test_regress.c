/* test_regress.c - replays every input the fuzzers found (tests/data/regress/TARGET-what.ext)
 * through the same checks as the fuzz target TARGET (fuzz/fuzz_TARGET.c): read whole and in
 * pieces of many sizes, with every arg wanted and none, exact-size buffers (so that ASan in
 * `make test-asan` sees any read past the bytes given), and the same counts every time. Plus the
 * fixes that came with them, checked by value. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#include "../../fuzz/fuzz_common.c"
#include "parse/dasf.h"
#include "parse/framer.h"
#include "parse/json.h"
#include "read/gzip.h"

#define REGRESS_DIR DFS_TEST_DATA "/regress"

static const size_t pieces[] = {1, 2, 3, 7, 16, 61, 64, 100, 255, 1024, 4095, 4096, 4097};

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc((size_t)n + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return data;
}

/* ---- the stream parsers: whole against pieces ------------------------------------------------- */

typedef struct framing {
    dfs_format format;
    bool structural;
} framing;

static size_t feed_framer(void *parser, fz_parser *z, const char *buf, size_t len,
                          uint64_t offset, int flags)
{
    return dfs_framer_feed(parser, &z->p, buf, len, offset, flags);
}

static size_t feed_dasf(void *parser, fz_parser *z, const char *buf, size_t len, uint64_t offset,
                        int flags)
{
    (void)parser;
    return dfs_dasf_feed(&z->p, (const unsigned char *)buf, len, offset, flags);
}

/* fr NULL: DASF msgpack. */
static fz_summary read_stream(const unsigned char *data, size_t len, const framing *fr,
                              size_t piece, bool all_args)
{
    fz_parser z;
    dfs_framer framer;
    fz_summary s;
    fz_parser_init(&z, all_args);
    if (fr) {
        dfs_framer_init(&framer, fr->format, fr->structural);
        fz_drive(&z, feed_framer, &framer, data, len, piece);
        dfs_framer_finish(&framer, &z.p);
    } else {
        fz_drive(&z, feed_dasf, NULL, data, len, piece);
    }
    fz_summarize(&z, &s);
    fz_parser_free(&z);
    return s;
}

static void replay_stream(const char *name, const unsigned char *data, size_t len,
                          const framing *fr)
{
    for (int all = 0; all < 2; all++) {
        fz_summary whole = read_stream(data, len, fr, 0, all);
        for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++) {
            fz_summary part = read_stream(data, len, fr, pieces[i], all);
            fz_expect_same(name, pieces[i], &whole, &part); /* aborts with the difference */
        }
    }
}

static framing chrome_framing(const unsigned char *data, size_t len)
{
    size_t i = 0;
    while (i < len && dfs_json_is_ws(data[i]))
        i++;
    return (framing){i < len && data[i] == '{' ? DFS_FMT_JSON_OBJECT : DFS_FMT_JSON_ARRAY, true};
}

static void replay_gzip(const unsigned char *data, size_t len)
{
    const char *path = tu_temp_file(".gz", data, len);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    dfs_diag diag;
    dfs_diag_init(&diag, 3);
    dfs_gzreader *r = dfs_gz_open(fileno(f), len, 0, UINT64_MAX, &diag, 0);
    assert_non_null(r);
    char buf[4096];
    ssize_t n;
    while ((n = dfs_gz_read(r, buf, sizeof buf)) > 0)
        ;
    assert_true(n == 0);
    assert_true(dfs_gz_end(r) <= len);
    dfs_gz_close(r);
    dfs_diag_free(&diag);
    fclose(f);
    remove(path);
}

static void test_replay_all(void **state)
{
    (void)state;
    DIR *d = opendir(REGRESS_DIR);
    assert_non_null(d);
    size_t replayed = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", REGRESS_DIR, e->d_name);
        size_t len;
        unsigned char *data = slurp(path, &len);
        if (strncmp(e->d_name, "lines-", 6) == 0) {
            framing fr = {DFS_FMT_JSON_LINES, false};
            replay_stream(e->d_name, data, len, &fr);
        } else if (strncmp(e->d_name, "chrome-", 7) == 0) {
            framing fr = chrome_framing(data, len);
            replay_stream(e->d_name, data, len, &fr);
        } else if (strncmp(e->d_name, "dasf-", 5) == 0) {
            replay_stream(e->d_name, data, len, NULL);
        } else if (strncmp(e->d_name, "gzip-", 5) == 0) {
            replay_gzip(data, len);
        } else {
            fail_msg("%s: name it TARGET-what (lines, chrome, dasf, gzip)", e->d_name);
        }
        free(data);
        replayed++;
    }
    closedir(d);
    assert_true(replayed >= 8);
}

/* ---- the fixes, by value ------------------------------------------------------------------------ */

static fz_summary read_text(const char *text, dfs_format format, bool structural, size_t piece)
{
    framing fr = {format, structural};
    return read_stream((const unsigned char *)text, strlen(text), &fr, piece, false);
}

/* Damage after the last top-level value is counted once, whatever pieces the rest comes in. */
static void test_top_level_damage_counted_once(void **state)
{
    (void)state;
    const char *text = "{\"traceEvents\":[{\"name\":\"x\",\"ph\":\"X\",\"ts\":1,\"dur\":2}],"
                       "garbage \"a\": [1, 2, 3], more garbage } ] {\"traceEvents\":[]}";
    for (size_t piece = 0; piece < 40; piece += 3) {
        fz_summary s = read_text(text, DFS_FMT_JSON_OBJECT, true, piece);
        assert_true(s.records == 1);
        assert_true(s.problems[DFS_PROB_BAD_RECORD] == 1);
        assert_true(s.problems[DFS_PROB_TRUNCATED_CONTAINER] == 0);
    }
}

/* A top-level key without ':' is damage at once (it used to wait for more bytes until the end,
 * or until a full buffer that the framer then could not consume). */
static void test_top_key_without_colon(void **state)
{
    (void)state;
    fz_summary s = read_text("{\"traceName\" \"b\": 1, \"traceEvents\":[{\"ph\":\"X\"}]}",
                             DFS_FMT_JSON_OBJECT, true, 0);
    assert_true(s.problems[DFS_PROB_BAD_RECORD] == 1);
    assert_true(s.records == 0);
    /* a key longer than the record limit (4096 here) */
    char *text = malloc(9000);
    assert_non_null(text);
    strcpy(text, "{\"");
    memset(text + 2, 'k', 8000);
    strcpy(text + 8002, "\": 1}");
    for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++) {
        s = read_text(text, DFS_FMT_JSON_OBJECT, true, pieces[i]);
        assert_true(s.problems[DFS_PROB_BAD_RECORD] == 1);
    }
    free(text);
}

/* A record of the array form cut by a raw newline after more bytes than the record limit is too
 * large (a reader with a buffer of that size cannot see the break); a comma before a skipped
 * record is not a trailing comma. */
static void test_oversized_records_in_arrays(void **state)
{
    (void)state;
    char *text = malloc(12000);
    assert_non_null(text);
    strcpy(text, "[{\"name\":\"a\",\"ph\":\"X\"},\n{\"name\":\"");
    size_t n = strlen(text);
    memset(text + n, 'x', 5000);
    strcpy(text + n + 5000, "\n\"},\n{\"name\":\"b\",\"ph\":\"X\"},\n{\"name\":\"");
    n = strlen(text);
    memset(text + n, 'y', 5000);
    strcpy(text + n + 5000, "\"}\n]\n");
    for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++) {
        fz_summary s = read_text(text, DFS_FMT_JSON_ARRAY, true, pieces[i]);
        assert_true(s.records == 2);
        assert_true(s.problems[DFS_PROB_RECORD_TOO_LARGE] == 2);
        assert_true(s.problems[DFS_PROB_TRAILING_COMMA] == 0);
    }
    free(text);
}

/* Records cut right after a key or inside args: read to their last byte, not one past it
 * (ASan checks the bytes past the end are never read: the buffers are exact). */
static void test_records_cut_anywhere(void **state)
{
    (void)state;
    const char *rec = "{\"id\":1,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":7,\"tid\":7,"
                      "\"ts\":10,\"dur\":5,\"ph\":\"X\",\"args\":{\"hhash\":11,\"ret\":4}}";
    size_t n = strlen(rec);
    for (size_t cut = 1; cut < n; cut++) {
        char *copy = malloc(cut);
        assert_non_null(copy);
        memcpy(copy, rec, cut);
        for (int all = 0; all < 2; all++) {
            framing fr = {DFS_FMT_JSON_LINES, false};
            fz_summary s = read_stream((const unsigned char *)copy, cut, &fr, 0, all);
            assert_true(s.records == 0);
            assert_true(s.problems[DFS_PROB_INCOMPLETE_FILE] == 1);
        }
        free(copy);
    }
}

/* A gzip file cut in its header inflates to nothing: still damage (gzip_truncated, exit 1), not
 * only "not a trace, empty file". */
static void test_gzip_cut_in_header(void **state)
{
    (void)state;
    static const unsigned char head[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    const char *path = tu_temp_file(".pfw.gz", head, sizeof head);
    dfs_run *run = tu_run(1, 0, 0);
    assert_int_equal(dfs_run_add_path(run, path), DFS_OK);
    assert_int_equal(dfs_run_read(run, NULL, 0), DFS_EXIT_DAMAGED);
    assert_true(dfs_run_problem_count(run, DFS_PROB_GZIP_TRUNCATED) == 1);
    assert_true(dfs_run_problem_count(run, DFS_PROB_NOT_A_TRACE) == 1);
    const dfs_file_info *f = dfs_run_file(run, 0);
    assert_true(f->incomplete && f->problems == 1);
    dfs_run_free(run);
    remove(path);
}

/* An empty directory named as an input: nothing to read, said as such (UBSan used to flag the
 * sort of its empty entry list). */
static void test_empty_directory(void **state)
{
    (void)state;
    char dir[] = "/tmp/dfscope-test-emptyXXXXXX";
    assert_non_null(mkdtemp(dir));
    dfs_run *run = tu_run(1, 0, 0);
    dfs_status st = dfs_run_add_path(run, dir);
    assert_true(st == DFS_OK || st == DFS_ERR_INPUT);
    assert_int_equal(dfs_run_file_count(run), 0);
    dfs_run_free(run);
    rmdir(dir);
}

/* A file whose clock starts near the end of int64 ns (an smdebug start_time_since_epoch_in_micros
 * of 9223372036854775): absolute times saturate instead of wrapping (UBSan flagged the sum). */
static void test_absolute_time_saturates(void **state)
{
    (void)state;
    dfs_file_info f = {.clock_offset_ns = INT64_C(9223372036854775000), .clock_scale_num = 1,
                       .clock_scale_den = 1};
    assert_true(dfs_file_abs_ns(&f, 0) == INT64_C(9223372036854775000));
    assert_true(dfs_file_abs_ns(&f, INT64_C(1000000000)) == INT64_MAX);
    f.clock_offset_ns = INT64_MIN + 5;
    assert_true(dfs_file_abs_ns(&f, -10) == INT64_MIN);
    f = (dfs_file_info){.clock_offset_ns = 0, .clock_scale_num = 1000, .clock_scale_den = 1};
    assert_true(dfs_file_abs_ns(&f, INT64_MAX / 10) == INT64_MAX);
    assert_true(dfs_file_abs_ns(&f, 7) == 7000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_all),
        cmocka_unit_test(test_top_level_damage_counted_once),
        cmocka_unit_test(test_top_key_without_colon),
        cmocka_unit_test(test_oversized_records_in_arrays),
        cmocka_unit_test(test_records_cut_anywhere),
        cmocka_unit_test(test_gzip_cut_in_header),
        cmocka_unit_test(test_empty_directory),
        cmocka_unit_test(test_absolute_time_saturates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
