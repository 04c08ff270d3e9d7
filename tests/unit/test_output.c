/* test_output.c - JSON writer escaping and nesting, number formatting, atomic files (never over an
 * input, through symlinks, keeping the mode, removed by dfs_atomic_discard_all), diagnostics. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/diag.h"
#include "output/atomic.h"
#include "output/csv.h"
#include "output/format.h"
#include "output/json.h"
#include "testutil.h"

static char *capture(void (*fn)(FILE *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(f);
    fclose(f);
    return buf;
}

static void write_nested(FILE *f)
{
    dfs_jw w;
    dfs_jw_init(&w, f, false);
    dfs_jw_object(&w, NULL);
    dfs_jw_cstr(&w, "s", "a\"b\\c\n\x01");
    dfs_jw_str(&w, "bad", "x\xff\xc3(y\xe2\x82\xac", 8);
    dfs_jw_array(&w, "a");
    dfs_jw_int(&w, NULL, -5);
    dfs_jw_uint(&w, NULL, UINT64_MAX);
    dfs_jw_double(&w, NULL, 0.5);
    dfs_jw_double(&w, NULL, 1.0 / 0.0);
    dfs_jw_bool(&w, NULL, true);
    dfs_jw_null(&w, NULL);
    dfs_jw_object(&w, NULL);
    dfs_jw_end(&w);
    dfs_jw_end(&w);
    dfs_jw_end(&w);
}

static void json_writer_escapes_and_nests(void **state)
{
    (void)state;
    char *out = capture(write_nested);
    assert_string_equal(out, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"bad\":\"x\\ufffd\\ufffd(y\xe2\x82\xac\","
                             "\"a\":[-5,18446744073709551615,0.5,null,true,null,{}]}");
    free(out);
}

/* Doubles print as the shortest JSON number that reads back (integers through a faster path,
 * decimals of microseconds through another): the edges of each path and of the plain layout. */
static const double doubles[] = {0.0, -0.0, 1.0, -1.0, 42.0, 1e16, 99999999999999984.0, 1e17, -1e17,
                                 9007199254740993.0, 123456789012345.0, 0.1, -2.5, 1e-300, 1e300,
                                 4503599627370495.5, -9.2e18, 0.022468, 1e-6, 1e-7, 1e21, 1e20,
                                 123456789.123456, 999999999.999999, 0.1 + 0.2, 2.0 / 3, -1.0 / 3,
                                 1e15 + 0.5, 5e-324};
#define NDOUBLES (sizeof doubles / sizeof *doubles)

static void write_doubles(FILE *f)
{
    dfs_jw w;
    dfs_jw_init(&w, f, false);
    dfs_jw_array(&w, NULL);
    for (size_t i = 0; i < NDOUBLES; i++)
        dfs_jw_double(&w, NULL, doubles[i]);
    dfs_jw_end(&w);
}

static void write_csv_row(FILE *f)
{
    dfs_csv_text(f, "a,\"b\"");
    static const double v[] = {0.06, 5, -0.5, 1e-7, 1e21, 2.0 / 3, NAN, INFINITY};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        dfs_csv_num(f, v[i]);
}

/* CSV numbers as JSON's, empty fields where JSON has null; text quoted as Python's csv quotes it. */
static void csv_fields(void **state)
{
    (void)state;
    char *out = capture(write_csv_row);
    assert_string_equal(out, "\"a,\"\"b\"\"\",0.06,5,-0.5,1e-7,1e21,0.6666666666666666,,");
    free(out);
}

static void doubles_print_shortest(void **state)
{
    (void)state;
    char *out = capture(write_doubles);
    assert_string_equal(out, "[0,-0,1,-1,42,10000000000000000,99999999999999984,100000000000000000,"
                             "-100000000000000000,9007199254740992,123456789012345,0.1,-2.5,1e-300,1e300,"
                             "4503599627370495.5,-9200000000000000000,0.022468,0.000001,1e-7,1e21,"
                             "100000000000000000000,123456789.123456,999999999.999999,0.30000000000000004,"
                             "0.6666666666666666,-0.3333333333333333,1000000000000000.5,5e-324]");
    const char *p = out + 1;
    for (size_t i = 0; i < NDOUBLES; i++) { /* and each reads back, bit for bit */
        char *end;
        double back = strtod(p, &end);
        assert_memory_equal(&back, &doubles[i], sizeof back);
        p = end + 1;
    }
    free(out);
}

static void formats_numbers_for_people(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(dfs_fmt_count(b, sizeof b, 0), "0");
    assert_string_equal(dfs_fmt_count(b, sizeof b, 1234567), "1,234,567");
    assert_string_equal(dfs_fmt_count(b, sizeof b, 999), "999");
    assert_string_equal(dfs_fmt_duration(b, sizeof b, 350), "350 ns");
    assert_string_equal(dfs_fmt_duration(b, sizeof b, 1200000), "1.200 ms");
    assert_string_equal(dfs_fmt_duration(b, sizeof b, 12345678901), "12.346 s");
    assert_string_equal(dfs_fmt_bytes(b, sizeof b, 999), "999 B");
    assert_string_equal(dfs_fmt_bytes(b, sizeof b, 1500000), "1.5 MB");
    assert_string_equal(dfs_fmt_time(b, sizeof b, INT64_C(1698080323775554000)),
                        "2023-10-23T16:58:43.775554Z");
    /* the fraction in groups of three, as many as the time holds; the full form keeps nine */
    assert_string_equal(dfs_fmt_time(b, sizeof b, INT64_C(1698080323000000000)), "2023-10-23T16:58:43Z");
    assert_string_equal(dfs_fmt_time(b, sizeof b, INT64_C(1698080323120000000)), "2023-10-23T16:58:43.120Z");
    assert_string_equal(dfs_fmt_time(b, sizeof b, INT64_C(1698080323000000001)), "2023-10-23T16:58:43.000000001Z");
    assert_string_equal(dfs_fmt_time(b, sizeof b, INT64_C(-1)), "1969-12-31T23:59:59.999999999Z");
    assert_string_equal(dfs_fmt_time_ns(b, sizeof b, INT64_C(1698080323000000000)), "2023-10-23T16:58:43.000000000Z");
}

static char *fixed3(char *buf, size_t n, double v) { return dfs_fmt_fixed(buf, n, v, 3); }
static char *fixed0(char *buf, size_t n, double v) { return dfs_fmt_fixed(buf, n, v, 0); }
static char *duration(char *buf, size_t n, double ns) { return dfs_fmt_duration(buf, n, (int64_t)ns); }
static char *bytes(char *buf, size_t n, double v) { return dfs_fmt_bytes(buf, n, (uint64_t)v); }

/* Each value in the unit that keeps its number under 1000 (60 for s and min), never in exponent
 * form, n/a for what does not exist. */
static void formats_scale_their_units(void **state)
{
    (void)state;
    static const struct {
        char *(*fmt)(char *, size_t, double);
        double v;
        const char *want;
    } cases[] = {
        {dfs_fmt_seconds, 441.967, "7.366 min"},     {dfs_fmt_seconds, 11231.679, "3.120 h"},
        {dfs_fmt_seconds, 11231679.0, "3,119.911 h"}, {dfs_fmt_seconds, 56.695, "56.695 s"},
        {dfs_fmt_seconds, 59.9999, "1.000 min"}, /* not 60.000 s */
        {dfs_fmt_seconds, 0.0139968, "13.997 ms"},    {dfs_fmt_seconds, 2.5e-7, "250 ns"},
        {dfs_fmt_seconds, 0, "0 s"},                  {dfs_fmt_seconds, -90, "-1.500 min"},
        {dfs_fmt_seconds, NAN, "n/a"},                {duration, 11231679e6, "3.120 h"},
        {duration, 0, "0 ns"},                        {duration, 122483500, "122.484 ms"},
        {dfs_fmt_size, 117265727488.0, "117.3 GB"},   {dfs_fmt_size, 999999, "1.0 MB"}, /* not 1000.0 KB */
        {dfs_fmt_size, 253.6, "254 B"},               {dfs_fmt_size, 4e18, "4,000.0 PB"},
        {dfs_fmt_size, NAN, "n/a"},                   {bytes, 11420, "11.4 KB"},
        {dfs_fmt_rate, 900519612.0, "900.5 MB/s"},    {dfs_fmt_rate, 2.5e9, "2.5 GB/s"},
        {dfs_fmt_rate, NAN, "n/a"},                   {fixed3, 3268.6861, "3,268.686"},
        {fixed3, -0.0001, "0.000"}, /* no "-0.000" */
        {fixed0, 1e21, "1000000000000000000000"},     {dfs_fmt_plain, 1.234e-7, "0.0000001234"},
        {dfs_fmt_plain, 1234.5678, "1,234.568"},      {dfs_fmt_plain, INFINITY, "n/a"},
    };
    char b[64];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_string_equal(cases[i].fmt(b, sizeof b, cases[i].v), cases[i].want);
}

static void atomic_file_replaces_only_on_success(void **state)
{
    (void)state;
    const char *path = tu_temp_file(".json", "old", 3);
    char err[256];
    dfs_atomic_file f;
    assert_int_equal(dfs_atomic_open(&f, path, NULL, err, sizeof err), 0);
    fputs("new", f.fp);
    assert_int_equal(dfs_atomic_close(&f, false, err, sizeof err), 0); /* discarded */
    FILE *in = fopen(path, "r");
    char got[8] = {0};
    assert_int_equal(fread(got, 1, 7, in), 3);
    fclose(in);
    assert_string_equal(got, "old");
    assert_int_equal(dfs_atomic_open(&f, path, NULL, err, sizeof err), 0);
    fputs("new!", f.fp);
    assert_int_equal(dfs_atomic_close(&f, true, err, sizeof err), 0);
    in = fopen(path, "r");
    memset(got, 0, sizeof got);
    assert_int_equal(fread(got, 1, 7, in), 4);
    fclose(in);
    assert_string_equal(got, "new!");
    assert_true(dfs_same_file(path, path));
    assert_int_not_equal(dfs_atomic_open(&f, "/nonexistent-dir/x.json", NULL, err, sizeof err), 0);
    assert_non_null(strstr(err, "/nonexistent-dir/x.json"));
    unlink(path);
}

/* The guard refuses an input by identity (a hard link to it too), before creating anything. */
static void atomic_file_refuses_an_input(void **state)
{
    (void)state;
    const char *in = tu_temp_file(".pfw", "x\n", 2);
    char alias[300], err[512];
    snprintf(alias, sizeof alias, "%s.link", in);
    assert_int_equal(link(in, alias), 0);
    dfs_options o;
    dfs_options_init(&o);
    dfs_run *run = dfs_run_new(&o);
    assert_int_equal(dfs_run_add_path(run, in), DFS_OK);
    dfs_output_guard guard = {.inputs = run};
    dfs_atomic_file f;
    assert_int_equal(dfs_atomic_open(&f, alias, &guard, err, sizeof err), EEXIST);
    assert_true(guard.refused);
    assert_non_null(strstr(err, "refusing to write the output over the input"));
    assert_null(f.fp);
    guard.refused = false;
    snprintf(alias, sizeof alias, "%s.other", in);
    assert_int_equal(dfs_atomic_open(&f, alias, &guard, err, sizeof err), 0);
    assert_false(guard.refused);
    assert_int_equal(dfs_atomic_close(&f, false, err, sizeof err), 0);
    unlink(in);
    snprintf(alias, sizeof alias, "%s.link", in);
    unlink(alias);
    dfs_run_free(run);
}

/* A symlink's target is replaced and the link kept; the replaced file keeps its mode. */
static void atomic_file_follows_links_and_keeps_mode(void **state)
{
    (void)state;
    const char *target = tu_temp_file(".json", "old", 3);
    char link[300], err[512];
    snprintf(link, sizeof link, "%s.link", target);
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(chmod(target, 0604), 0);
    dfs_atomic_file f;
    assert_int_equal(dfs_atomic_open(&f, link, NULL, err, sizeof err), 0);
    fputs("new", f.fp);
    assert_int_equal(dfs_atomic_close(&f, true, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(stat(target, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0604);
    assert_int_equal(st.st_size, 3);
    unlink(link);
    unlink(target);
}

/* What a signal handler calls: every live temporary goes (in a child: the call is final). */
static void atomic_discard_all_removes_temporaries(void **state)
{
    (void)state;
    const char *target = tu_temp_file(".json", "old", 3);
    char temp[300];
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char err[512];
        dfs_atomic_file f;
        if (dfs_atomic_open(&f, target, NULL, err, sizeof err) != 0 || access(f.temp, F_OK) != 0)
            _exit(2);
        snprintf(temp, sizeof temp, "%s", f.temp);
        dfs_atomic_discard_all();
        _exit(access(temp, F_OK) == 0 ? 1 : 0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    unlink(target);
}

static void diag_keeps_first_examples_by_position(void **state)
{
    (void)state;
    dfs_diag a, b, all;
    dfs_diag_init(&a, 2);
    dfs_diag_init(&b, 2);
    dfs_diag_init(&all, 2);
    dfs_diag_add(&a, DFS_PROB_BAD_LINE, 1, 9, 900, "late");
    dfs_diag_add(&a, DFS_PROB_BAD_LINE, 1, 3, 300, "third");
    dfs_diag_add(&a, DFS_PROB_BAD_LINE, 1, 5, 500, "fifth");
    dfs_diag_add(&b, DFS_PROB_BAD_LINE, 0, 2, 200, "file0");
    dfs_diag_count(&b, DFS_PROB_STRING_NUMBER, 7);
    dfs_diag_merge(&all, &a, 100);
    dfs_diag_merge(&all, &b, 0);
    assert_int_equal(all.counts[DFS_PROB_BAD_LINE], 4);
    assert_int_equal(all.examples[DFS_PROB_BAD_LINE].n, 2);
    assert_string_equal(all.examples[DFS_PROB_BAD_LINE].v[0].detail, "file0");
    assert_string_equal(all.examples[DFS_PROB_BAD_LINE].v[1].detail, "third");
    assert_int_equal(all.examples[DFS_PROB_BAD_LINE].v[1].line, 103);
    assert_int_equal(dfs_diag_damage(&all), 4); /* string_number is a legal variant */
    assert_string_equal(dfs_problem_code(DFS_PROB_GZIP_TRUNCATED), "gzip_truncated");
    assert_int_equal(dfs_problem_class(DFS_PROB_MISSING_CLOSE), 'V');
    dfs_diag_free(&a);
    dfs_diag_free(&b);
    dfs_diag_free(&all);
}

/* mkdir -p: parents made, an existing directory is fine, a file in the way is named. */
static void make_dirs_creates_parents(void **state)
{
    (void)state;
    char root[] = "/tmp/dfscope-dirs-XXXXXX", path[256], err[256];
    assert_non_null(mkdtemp(root));
    snprintf(path, sizeof path, "%s/a/b/c", root);
    assert_int_equal(dfs_make_dirs(path, err, sizeof err), 0);
    assert_int_equal(dfs_make_dirs(path, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/a/file", root);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(dfs_make_dirs(path, err, sizeof err), ENOTDIR);
    assert_non_null(strstr(err, "is not a directory"));
    snprintf(path, sizeof path, "%s/a/file/below", root);
    assert_int_not_equal(dfs_make_dirs(path, err, sizeof err), 0);
    assert_non_null(strstr(err, "cannot create"));
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_writer_escapes_and_nests),
        cmocka_unit_test(doubles_print_shortest),
        cmocka_unit_test(csv_fields),
        cmocka_unit_test(formats_numbers_for_people),
        cmocka_unit_test(formats_scale_their_units),
        cmocka_unit_test(atomic_file_replaces_only_on_success),
        cmocka_unit_test(atomic_file_refuses_an_input),
        cmocka_unit_test(atomic_file_follows_links_and_keeps_mode),
        cmocka_unit_test(atomic_discard_all_removes_temporaries),
        cmocka_unit_test(diag_keeps_first_examples_by_position),
        cmocka_unit_test(make_dirs_creates_parents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
