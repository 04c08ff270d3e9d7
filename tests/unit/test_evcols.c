/* test_evcols.c - events as columns (analyze/evcols): input order and the same columns for any
 * number of threads and pieces, types and missing values, categories sorted by text, where and
 * limit, refused names and predicates; and a read stopped by dfs_options.cancelled. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/evcols/evcols.h"
#include "testutil.h"

enum { NEVENTS = 400 };

/* A DFTracer-like JSON-lines file of NEVENTS events: names cycling read, write, open; cat POSIX
 * but every fifth "app"; args.size an integer on reads only, args.ratio a float on writes, and
 * args.mode a text on opens. Long enough to be cut into several 4 KiB pieces. */
static const char *trace_file(void)
{
    static const char *path;
    if (path)
        return path;
    size_t cap = NEVENTS * 200, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    n += (size_t)snprintf(buf + n, cap - n, "[\n");
    static const char *const names[] = {"read", "write", "open"};
    for (int i = 0; i < NEVENTS; i++) {
        const char *name = names[i % 3];
        char args[64] = "";
        if (i % 3 == 0)
            snprintf(args, sizeof args, ",\"args\":{\"size\":%d}", i * 10);
        else if (i % 3 == 1)
            snprintf(args, sizeof args, ",\"args\":{\"ratio\":%d.5}", i);
        else
            snprintf(args, sizeof args, ",\"args\":{\"mode\":\"%s\"}", i % 2 ? "rw" : "r");
        n += (size_t)snprintf(buf + n, cap - n,
                              "{\"id\":%d,\"name\":\"%s\",\"cat\":\"%s\",\"pid\":%d,\"tid\":7,\"ts\":%d,\"dur\":%d,"
                              "\"ph\":\"X\"%s}\n",
                              i, name, i % 5 == 0 ? "app" : "POSIX", 100 + i % 2, 1000 + i, 3 + i % 4, args);
    }
    path = tu_temp_file(".pfw", buf, n);
    free(buf);
    return path;
}

static dfs_evcols *read_columns(int jobs, uint64_t chunk, const char *const *cols, size_t ncols, const char *where,
                                uint64_t limit)
{
    char err[256] = "";
    dfs_evcols *ec = dfs_evcols_new(cols, ncols, where, limit, err, sizeof err);
    assert_non_null(ec);
    dfs_run *run = tu_run(jobs, chunk, 0);
    assert_int_equal(dfs_run_add_path(run, trace_file()), DFS_OK);
    dfs_consumer *c = dfs_evcols_consumer(ec);
    assert_int_equal(dfs_run_read(run, &c, 1), DFS_EXIT_OK);
    assert_true(dfs_evcols_finish(ec, run, err, sizeof err));
    /* the category texts point into the run: copy what the tests compare before freeing it */
    for (size_t i = 0; i < dfs_evcols_ncolumns(ec); i++) {
        dfs_ec_column *col = dfs_evcols_column(ec, i);
        for (size_t k = 0; k < col->ncats; k++)
            col->cat_text[k] = strndup(col->cat_text[k], col->cat_len[k]);
    }
    dfs_run_free(run);
    return ec;
}

static void free_columns(dfs_evcols *ec)
{
    for (size_t i = 0; i < dfs_evcols_ncolumns(ec); i++) {
        dfs_ec_column *col = dfs_evcols_column(ec, i);
        for (size_t k = 0; k < col->ncats; k++)
            free((char *)col->cat_text[k]);
    }
    dfs_evcols_free(ec);
}

static const char *const all_cols[] = {"ts", "dur", "pid", "name", "cat", "offset", "phase",
                                       "args.size", "args.ratio", "args.mode"};
#define NALL (sizeof all_cols / sizeof *all_cols)

static const char *text_at(dfs_evcols *ec, size_t col, size_t row)
{
    dfs_ec_column *c = dfs_evcols_column(ec, col);
    int32_t code = ((int32_t *)c->values)[row];
    return code < 0 ? NULL : c->cat_text[code];
}

static void test_types_and_values(void **state)
{
    (void)state;
    dfs_evcols *ec = read_columns(1, 0, all_cols, NALL, NULL, 0);
    assert_int_equal(dfs_evcols_rows(ec), NEVENTS);
    dfs_ec_column *ts = dfs_evcols_column(ec, 0), *size = dfs_evcols_column(ec, 7);
    dfs_ec_column *ratio = dfs_evcols_column(ec, 8), *mode = dfs_evcols_column(ec, 9);
    assert_int_equal(ts->type, DFS_EC_INT64);
    assert_null(ts->missing);
    assert_int_equal(size->type, DFS_EC_INT64);
    assert_int_equal(ratio->type, DFS_EC_FLOAT64);
    assert_int_equal(mode->type, DFS_EC_CATEGORY);
    assert_int_equal(dfs_evcols_column(ec, 5)->type, DFS_EC_UINT64);
    for (size_t i = 0; i < NEVENTS; i++) {
        assert_int_equal(((int64_t *)ts->values)[i], (int64_t)(1000 + i) * 1000); /* us to ns */
        assert_string_equal(text_at(ec, 3, i), i % 3 == 0 ? "read" : i % 3 == 1 ? "write" : "open");
        assert_string_equal(text_at(ec, 4, i), i % 5 == 0 ? "app" : "POSIX");
        assert_string_equal(text_at(ec, 6, i), "complete");
        assert_int_equal(size->missing[i], i % 3 != 0);
        if (i % 3 == 0)
            assert_int_equal(((int64_t *)size->values)[i], (int64_t)i * 10);
        double r = ((double *)ratio->values)[i];
        assert_true(i % 3 == 1 ? r == (double)i + 0.5 : isnan(r));
        const char *m = text_at(ec, 9, i);
        if (i % 3 == 2)
            assert_string_equal(m, i % 2 ? "rw" : "r");
        else
            assert_null(m);
    }
    dfs_ec_column *name = dfs_evcols_column(ec, 3);
    assert_int_equal(name->ncats, 3); /* sorted by text */
    assert_string_equal(name->cat_text[0], "open");
    assert_string_equal(name->cat_text[2], "write");
    free_columns(ec);
}

static void assert_same(dfs_evcols *a, dfs_evcols *b)
{
    assert_int_equal(dfs_evcols_rows(a), dfs_evcols_rows(b));
    size_t rows = dfs_evcols_rows(a);
    for (size_t i = 0; i < dfs_evcols_ncolumns(a); i++) {
        dfs_ec_column *x = dfs_evcols_column(a, i), *y = dfs_evcols_column(b, i);
        assert_int_equal(x->type, y->type);
        size_t width = x->type == DFS_EC_CATEGORY ? 4 : 8;
        assert_memory_equal(x->values, y->values, rows * width);
        assert_int_equal(x->missing != NULL, y->missing != NULL);
        if (x->missing)
            assert_memory_equal(x->missing, y->missing, rows);
        assert_int_equal(x->ncats, y->ncats);
        for (size_t k = 0; k < x->ncats; k++)
            assert_string_equal(x->cat_text[k], y->cat_text[k]);
    }
}

static void test_same_for_any_jobs_and_pieces(void **state)
{
    (void)state;
    dfs_evcols *one = read_columns(1, 0, all_cols, NALL, NULL, 0);
    dfs_evcols *cut = read_columns(3, 4096, all_cols, NALL, NULL, 0);
    assert_same(one, cut);
    uint64_t *off = dfs_evcols_column(cut, 5)->values;
    for (size_t i = 1; i < dfs_evcols_rows(cut); i++)
        assert_true(off[i] > off[i - 1]);
    free_columns(one);
    free_columns(cut);
}

static void test_where_and_limit(void **state)
{
    (void)state;
    const char *const cols[] = {"name", "cat", "ts"};
    dfs_evcols *ec = read_columns(2, 4096, cols, 3, "cat == \"POSIX\" & func_name != \"open\"", 0);
    size_t want = 0;
    for (int i = 0; i < NEVENTS; i++)
        want += i % 5 != 0 && i % 3 != 2;
    assert_int_equal(dfs_evcols_rows(ec), want);
    for (size_t i = 0; i < want; i++)
        assert_string_not_equal(text_at(ec, 0, i), "open");
    free_columns(ec);
    dfs_evcols *head = read_columns(2, 4096, cols, 3, NULL, 7);
    assert_int_equal(dfs_evcols_rows(head), 7);
    assert_int_equal(((int64_t *)dfs_evcols_column(head, 2)->values)[6], 1006 * 1000);
    free_columns(head);
}

/* `where` reads the events' arguments: a number (args.size, args.ratio), a string (args.mode), a
 * key not among the columns asked for, a quoted key; a missing key is null (not selected). */
static void test_where_args(void **state)
{
    (void)state;
    const char *const cols[] = {"ts"};
    dfs_evcols *ec = read_columns(2, 4096, cols, 1, "args.size >= 300 | args.mode == \"rw\"", 0);
    size_t want = 0;
    for (int i = 0; i < NEVENTS; i++)
        want += (i % 3 == 0 && i * 10 >= 300) || (i % 3 == 2 && i % 2);
    assert_int_equal(dfs_evcols_rows(ec), want);
    free_columns(ec);
    ec = read_columns(1, 0, cols, 1, "args[\"ratio\"] > 10", 0);
    want = 0;
    for (int i = 0; i < NEVENTS; i++)
        want += i % 3 == 1 && i + 0.5 > 10;
    assert_int_equal(dfs_evcols_rows(ec), want);
    free_columns(ec);
    ec = read_columns(1, 0, cols, 1, "args.nosuchkey == 1", 0);
    assert_int_equal(dfs_evcols_rows(ec), 0);
    free_columns(ec);
}

static void test_refused(void **state)
{
    (void)state;
    char err[256];
    const char *const bad[] = {"nmae"};
    assert_null(dfs_evcols_new(bad, 1, NULL, 0, err, sizeof err));
    assert_non_null(strstr(err, "unknown column 'nmae'"));
    const char *const ok[] = {"ts"};
    assert_null(dfs_evcols_new(ok, 1, "cat ==", 0, err, sizeof err));
    assert_non_null(strstr(err, "where:"));
    assert_null(dfs_evcols_new(ok, 1, "io_cat == 1", 0, err, sizeof err));
    assert_non_null(strstr(err, "io_cat"));
}

/* ---- dfs_options.cancelled ---- */

typedef struct counting {
    atomic_size_t events;
} counting;

static void *count_begin(void *user)
{
    return user;
}

static void count_batch(void *state, const dfs_run *run, const dfs_batch *batch)
{
    (void)run;
    atomic_fetch_add(&((counting *)state)->events, batch->count);
}

static void count_end(void *user, const dfs_run *run, void *state)
{
    (void)user, (void)run, (void)state;
}

static bool always(void *ctx)
{
    atomic_fetch_add((atomic_int *)ctx, 1);
    return true;
}

static void test_cancelled_read_stops(void **state)
{
    (void)state;
    dfs_options o;
    dfs_options_init(&o);
    o.jobs = 2;
    o.chunk_bytes = 4096;
    atomic_int asked = 0;
    o.cancelled = always;
    o.cancel_ctx = &asked;
    dfs_run *run = dfs_run_new(&o);
    assert_int_equal(dfs_run_add_path(run, trace_file()), DFS_OK);
    counting n = {0};
    dfs_consumer c = {.user = &n, .worker_begin = count_begin, .on_batch = count_batch, .worker_end = count_end};
    dfs_consumer *cs = &c;
    assert_int_equal(dfs_run_read(run, &cs, 1), DFS_EXIT_OUTPUT);
    assert_int_equal(atomic_load(&n.events), 0); /* no piece was read */
    assert_true(atomic_load(&asked) >= 1);
    dfs_run_free(run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types_and_values),
        cmocka_unit_test(test_same_for_any_jobs_and_pieces),
        cmocka_unit_test(test_where_and_limit),
        cmocka_unit_test(test_where_args),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_cancelled_read_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
