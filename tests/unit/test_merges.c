/* test_merges.c - a merged trace among the inputs (read/merges.h): found by content whatever its
 * name, with each process shifted onto another clock and the merger's own untimed records; not
 * found when one event is missing or changed, or when only one of its sources is given; an
 * input that is no part of the merge stays out of its sources. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/merges.h"
#include "testutil.h"

enum { EVENTS = 30 };

/* The events of process pid, its clock shifted by shift us; skip: an event left out (-1: none). */
static size_t rank_events(char *out, size_t n, int pid, long long shift, int skip, int changed)
{
    size_t used = 0;
    for (int i = 0; i < EVENTS; i++) {
        if (i == skip)
            continue;
        used += (size_t)snprintf(out + used, n - used,
                                 "{\"name\":\"step\",\"ph\":\"X\",\"ts\":%lld,\"dur\":%d,\"pid\":%d,\"tid\":1,"
                                 "\"args\":{\"i\":%d,\"loss\":%s}},\n",
                                 1700000000000000LL + 1000LL * i + 10LL * pid + shift, 100 + pid, pid,
                                 i == changed ? 99 : i, pid ? "2.0" : "1.5");
    }
    return used;
}

static const char *trace(const char *body, size_t len)
{
    char *doc = malloc(len + 64);
    assert_non_null(doc);
    int n = snprintf(doc, len + 64, "[\n%.*s{\"name\":\"end\",\"ph\":\"M\",\"pid\":9,\"tid\":9,\"args\":{}}\n]\n",
                     (int)len, body);
    const char *path = tu_temp_file(".json", doc, (size_t)n);
    free(doc);
    return path;
}

static const char *rank(int pid)
{
    static char buf[8192];
    return trace(buf, rank_events(buf, sizeof buf, pid, 0, -1, -1));
}

/* Ranks 0 and 1 merged, rank 1 shifted by -700 us, with a sort index the merger adds; skip and
 * changed spoil it (-1: not). */
static const char *merge(int skip, int changed)
{
    static char buf[16384];
    size_t n = (size_t)snprintf(buf, sizeof buf, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":1,"
                                                 "\"args\":{\"sort_index\":99999}},\n");
    n += rank_events(buf + n, sizeof buf - n, 0, 0, skip, changed);
    n += rank_events(buf + n, sizeof buf - n, 1, -700, -1, -1);
    return trace(buf, n);
}

static dfs_merges find(const char **paths, size_t n)
{
    uint64_t sizes[8];
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        assert_int_equal(stat(paths[i], &st), 0);
        sizes[i] = (uint64_t)st.st_size;
    }
    dfs_options o;
    dfs_options_init(&o);
    o.jobs = 2;
    dfs_merges m;
    assert_true(dfs_merges_find(paths, sizes, n, &o, &m));
    return m;
}

static void a_merge_is_found_by_content(void **state)
{
    (void)state;
    const char *paths[] = {rank(0), merge(-1, -1), rank(1), rank(5)};
    dfs_merges m = find(paths, 4);
    assert_int_equal(m.n, 1);
    assert_int_equal(m.v[0].merged, 1);
    assert_int_equal(m.v[0].nsources, 2);
    assert_int_equal(m.v[0].sources[0], 0);
    assert_int_equal(m.v[0].sources[1], 2); /* rank 5 is no part of it */
    dfs_merges_free(&m);
}

/* Case k of the near-merges: its inputs into paths; their count. (tu_temp_file keeps 8 paths.) */
static size_t near_merge(int k, const char **paths)
{
    paths[0] = rank(0);
    paths[1] = k == 2 ? rank(5) : rank(1);
    switch (k) {
    case 0: paths[2] = merge(7, -1); return 3;  /* an event missing */
    case 1: paths[2] = merge(-1, 3); return 3;  /* an arg changed */
    case 2: paths[2] = merge(-1, -1); return 3; /* only one of its sources given */
    default: paths[1] = merge(-1, -1); return 2; /* two inputs: nothing is checked */
    }
}

static void a_near_merge_is_none(void **state)
{
    (void)state;
    for (int k = 0; k < 4; k++) {
        const char *paths[3];
        size_t n = near_merge(k, paths);
        dfs_merges m = find(paths, n);
        assert_int_equal(m.n, 0);
        dfs_merges_free(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_merge_is_found_by_content),
        cmocka_unit_test(a_near_merge_is_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
