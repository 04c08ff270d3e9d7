/* test_util.c - arena, string table (also under threads), u64 map, key map, key set, vectors. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "util/numstat.h"
#include "util/arena.h"
#include "util/idtab.h"
#include "util/keymap.h"
#include "util/keyset.h"
#include "util/sort128.h"
#include "util/sortset.h"
#include "util/strtab.h"
#include "util/u64map.h"
#include "util/vec.h"

static void arena_aligns_and_grows(void **state)
{
    (void)state;
    dfs_arena a;
    dfs_arena_init(&a, 128);
    for (int i = 1; i < 200; i++) {
        char *p = dfs_arena_alloc(&a, (size_t)i);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        memset(p, 0xAB, (size_t)i);
    }
    char *big = dfs_arena_alloc(&a, 10000); /* larger than a block */
    assert_non_null(big);
    memset(big, 1, 10000);
    assert_string_equal(dfs_arena_strdup(&a, "hello", 3), "hel");
    dfs_arena_free(&a);
}

/* A reset arena hands out the same memory again instead of allocating more. */
static void arena_reuses_blocks_after_reset(void **state)
{
    (void)state;
    dfs_arena a;
    dfs_arena_init(&a, 1024);
    void *first[40];
    for (int i = 0; i < 40; i++)
        first[i] = dfs_arena_alloc(&a, 100 + (size_t)i);
    void *big = dfs_arena_alloc(&a, 5000);
    for (int round = 0; round < 3; round++) {
        dfs_arena_reset(&a);
        for (int i = 0; i < 40; i++)
            assert_ptr_equal(dfs_arena_alloc(&a, 100 + (size_t)i), first[i]);
        assert_ptr_equal(dfs_arena_alloc(&a, 5000), big);
    }
    dfs_arena_reset(&a);
    char *p = dfs_arena_alloc(&a, 3000); /* larger than a block: a new one, or the big one */
    memset(p, 7, 3000);
    dfs_arena_free(&a);
}

static void strtab_interns_and_fixes_well_known_keys(void **state)
{
    (void)state;
    dfs_strtab *t = dfs_strtab_new();
    size_t len;
    assert_int_equal(dfs_strtab_intern(t, "", 0), 0);
    assert_string_equal(dfs_strtab_get(t, 0, &len), "");
    assert_int_equal(dfs_strtab_intern(t, "ret", 3), DFS_KEY_STR(DFS_KEY_RET));
    assert_int_equal(dfs_strtab_intern(t, "dtype", 5), DFS_KEY_STR(DFS_KEY_DTYPE));
    assert_int_equal(dfs_strtab_find(t, "External id", 11), DFS_KEY_STR(DFS_KEY_EXTERNAL_ID));
    dfs_str a = dfs_strtab_intern(t, "read", 4);
    dfs_str b = dfs_strtab_intern(t, "read\0x", 6); /* embedded NUL is part of the string */
    assert_int_not_equal(a, b);
    assert_int_equal(dfs_strtab_intern(t, "read", 4), a);
    assert_int_equal(dfs_strtab_find(t, "nope", 4), 0);
    dfs_strcache *c = dfs_strcache_new(t);
    assert_int_equal(dfs_strcache_intern(c, "read", 4), a);
    for (int i = 0; i < 100000; i++) { /* grows both the table and the cache */
        char s[32];
        int n = snprintf(s, sizeof s, "name-%d", i);
        dfs_str id = dfs_strcache_intern(c, s, (size_t)n);
        assert_int_equal(dfs_strtab_intern(t, s, (size_t)n), id);
        assert_memory_equal(dfs_strtab_get(t, id, &len), s, (size_t)n);
    }
    dfs_strcache_free(c);
    dfs_strtab_free(t);
}

typedef struct intern_job {
    dfs_strtab *t;
    dfs_str ids[5000];
} intern_job;

static void *intern_many(void *arg)
{
    intern_job *j = arg;
    dfs_strcache *c = dfs_strcache_new(j->t);
    for (int i = 0; i < 5000; i++) {
        char s[32];
        int n = snprintf(s, sizeof s, "k%d", i % 2500 * 7);
        j->ids[i] = dfs_strcache_intern(c, s, (size_t)n);
    }
    dfs_strcache_free(c);
    return NULL;
}

static void strtab_is_consistent_across_threads(void **state)
{
    (void)state;
    dfs_strtab *t = dfs_strtab_new();
    static intern_job jobs[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        jobs[i].t = t;
        pthread_create(&th[i], NULL, intern_many, &jobs[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    for (int i = 1; i < 4; i++)
        assert_memory_equal(jobs[i].ids, jobs[0].ids, sizeof jobs[0].ids);
    assert_int_equal(dfs_strtab_count(t), 1 + DFS_KEY__COUNT + 2500);
    dfs_strtab_free(t);
}

static void u64map_puts_gets_and_overwrites(void **state)
{
    (void)state;
    dfs_u64map m;
    dfs_u64map_init(&m);
    uint32_t v;
    assert_false(dfs_u64map_get(&m, 1, &v));
    for (uint64_t k = 0; k < 10000; k++)
        assert_true(dfs_u64map_put(&m, k * UINT64_C(0x9E3779B97F4A7C15), (uint32_t)k));
    assert_true(dfs_u64map_put(&m, UINT64_MAX, 7));
    assert_true(dfs_u64map_put(&m, UINT64_MAX, 8));
    assert_true(dfs_u64map_get(&m, UINT64_MAX, &v));
    assert_int_equal(v, 8);
    for (uint64_t k = 0; k < 10000; k++) {
        assert_true(dfs_u64map_get(&m, k * UINT64_C(0x9E3779B97F4A7C15), &v));
        assert_int_equal(v, k);
    }
    assert_int_equal(m.count, 10001);
    dfs_u64map_clear(&m);
    assert_false(dfs_u64map_get(&m, 0, &v));
    dfs_u64map_free(&m);
}

static void keyset_adds_once_and_iterates(void **state)
{
    (void)state;
    dfs_keyset s;
    dfs_keyset_init(&s, 16);
    for (int64_t i = 0; i < 1000; i++) {
        int64_t key[2] = {i, -i};
        assert_int_equal(dfs_keyset_add(&s, key), 1);
        assert_int_equal(dfs_keyset_add(&s, key), 0);
    }
    int64_t missing[2] = {5, 5};
    assert_false(dfs_keyset_has(&s, missing));
    size_t it = 0, n = 0;
    for (const int64_t *k; (k = dfs_keyset_next(&s, &it)) != NULL; n++)
        assert_int_equal(k[0], -k[1]);
    assert_int_equal(n, 1000);
    dfs_keyset_free(&s);
}

/* A vector extended to an index: the new items are zero, the old ones kept, and never shrunk. */
static void vec_extends_zeroed(void **state)
{
    (void)state;
    DFS_VEC(int64_t) v = {0};
    assert_true(dfs_vec_push(&v, 7));
    assert_true(dfs_vec_extend_zeroed(&v, 1000));
    assert_int_equal(v.n, 1000);
    assert_int_equal(v.v[0], 7);
    for (size_t i = 1; i < v.n; i++)
        assert_int_equal(v.v[i], 0);
    v.v[999] = 5;
    assert_true(dfs_vec_extend_zeroed(&v, 10));
    assert_int_equal(v.n, 1000);
    assert_int_equal(v.v[999], 5);
    dfs_vec_free(&v);
}

/* Keys of every size class the map compares apart (4 bytes, whole words, and others by memcmp)
 * that differ only in their last byte: each is found with its own value, and a walk over the
 * slots meets each once. */
static void keymap_sizes_values_and_walk(void **state)
{
    (void)state;
    static const size_t sizes[] = {4, 8, 12, 16, 24, 31, 32};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        size_t n = sizes[z];
        dfs_keymap m;
        dfs_keymap_init(&m, n);
        unsigned char key[DFS_KEYMAP_MAX_KEY];
        for (uint32_t i = 0; i < 2000; i++) {
            memset(key, 0x5a, n);
            memcpy(key + n - 2, &(uint16_t){(uint16_t)i}, 2); /* the last two bytes */
            uint32_t v;
            bool fresh;
            assert_true(dfs_keymap_get_or_put(&m, key, i * 3, &v, &fresh));
            assert_true(fresh);
            assert_int_equal(v, i * 3);
            assert_true(dfs_keymap_get_or_put(&m, key, 7, &v, &fresh));
            assert_false(fresh);
            assert_int_equal(v, i * 3);
        }
        memset(key, 0x5a, n);
        memcpy(key + n - 2, &(uint16_t){2000}, 2);
        uint32_t v;
        assert_false(dfs_keymap_get(&m, key, &v));
        memcpy(key + n - 2, &(uint16_t){1999}, 2);
        assert_true(dfs_keymap_get(&m, key, &v));
        assert_int_equal(v, 1999 * 3);
        unsigned char *seen = calloc(2000, 1);
        assert_non_null(seen);
        const void *k;
        for (size_t i = 0; i < m.cap; i++)
            if (dfs_keymap_slot(&m, i, &k, &v)) {
                uint16_t id;
                memcpy(&id, (const unsigned char *)k + n - 2, 2);
                assert_int_equal(v, id * 3u);
                assert_int_equal(seen[id]++, 0);
            }
        for (size_t i = 0; i < 2000; i++)
            assert_int_equal(seen[i], 1);
        assert_false(dfs_keymap_slot(&m, m.cap, &k, &v));
        free(seen);
        dfs_keymap_free(&m);
    }
}

/* ---- numstat: NumPy's and Python's statistics --------------------------------------------- */

/* A small deterministic generator, so a failure reproduces. */
static uint64_t next_rand(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static int cmp_key128(const void *a, const void *b)
{
    const dfs_key128 *x = a, *y = b;
    if (x->hi != y->hi)
        return x->hi < y->hi ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Against qsort, on keys narrow in some bytes and wide in others (skipped and sorted passes). */
static void sort128_matches_a_comparison_sort(void **state)
{
    (void)state;
    uint64_t seed = 88172645463325252ull;
    for (size_t n = 0; n < 3000; n = n * 2 + 1) {
        dfs_key128 *v = malloc((n + 1) * sizeof *v), *tmp = malloc((n + 1) * sizeof *tmp),
                   *ref = malloc((n + 1) * sizeof *ref);
        assert_non_null(v);
        assert_non_null(tmp);
        assert_non_null(ref);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = next_rand(&seed);
            v[i] = (dfs_key128){(r % 7) << 40 | (r >> 60), next_rand(&seed) % (n + 3)};
            if (i % 5 == 0)
                v[i].hi = UINT64_MAX - (r & 3); /* the top bytes differ too */
        }
        memcpy(ref, v, n * sizeof *v);
        qsort(ref, n, sizeof *ref, cmp_key128);
        dfs_sort128(v, tmp, n, 0);
        assert_true(n == 0 || memcmp(v, ref, n * sizeof *v) == 0);
        size_t m = dfs_unique128(v, n);
        for (size_t i = 1; i < m; i++)
            assert_true(cmp_key128(&v[i - 1], &v[i]) < 0);
        free(v);
        free(tmp);
        free(ref);
    }
}

/* Payload bytes are not sorted: keys equal above them keep their input order. */
static void sort128_keeps_payload_order(void **state)
{
    (void)state;
    dfs_key128 v[6] = {{2, 0x100 | 0}, {1, 0x200 | 1}, {2, 0x100 | 2}, {1, 0x100 | 3}, {2, 0x000 | 4}, {1, 0x200 | 5}};
    dfs_key128 tmp[6];
    dfs_sort128(v, tmp, 6, 1);
    const uint64_t want[6] = {0x100 | 3, 0x200 | 1, 0x200 | 5, 0x000 | 4, 0x100 | 0, 0x100 | 2};
    for (int i = 0; i < 6; i++)
        assert_int_equal(v[i].lo, want[i]);
}

/* Many repeats of few keys, then many distinct keys: the count is exact and memory stays near
 * the distinct keys whatever the repeats. */
static void sortset_counts_distinct_keys_in_bounded_memory(void **state)
{
    (void)state;
    dfs_sortset s;
    dfs_sortset_init(&s);
    assert_int_equal(dfs_sortset_count(&s), 0);
    for (uint64_t i = 0; i < 1000000; i++)
        assert_true(dfs_sortset_add(&s, (dfs_key128){i % 10, i % 3}));
    assert_true(s.cap <= 4 * DFS_SORTSET_MIN_TAIL);
    assert_int_equal(dfs_sortset_count(&s), 30);
    bool(*seen)[50] = calloc(1000, sizeof *seen);
    assert_non_null(seen);
    size_t marked = 0;
    uint64_t seed = 2463534242ull;
    for (uint64_t i = 0; i < 200000; i++) {
        uint64_t r = next_rand(&seed) % 1000;
        marked += !seen[r][i % 50];
        seen[r][i % 50] = true;
        assert_true(dfs_sortset_add(&s, (dfs_key128){r, 1000 + i % 50}));
    }
    free(seen);
    size_t n = dfs_sortset_count(&s);
    assert_int_equal(n, 30 + marked);
    for (size_t i = 1; i < s.n; i++)
        assert_true(cmp_key128(&s.v[i - 1], &s.v[i]) < 0);
    /* every key added is present: re-adding them all changes nothing */
    seed = 2463534242ull;
    for (uint64_t i = 0; i < 200000; i++)
        assert_true(dfs_sortset_add(&s, (dfs_key128){next_rand(&seed) % 1000, 1000 + i % 50}));
    assert_int_equal(dfs_sortset_count(&s), n);
    dfs_sortset_free(&s);
    assert_int_equal(s.n, 0);
}

/* Appending a whole set (a worker's, at the merge): keys of both, repeats within and across
 * them, come out distinct and sorted at the next compaction. */
static void sortset_append_merges_two_sets(void **state)
{
    (void)state;
    dfs_sortset a, b;
    dfs_sortset_init(&a);
    dfs_sortset_init(&b);
    for (uint64_t i = 0; i < 100; i++)
        assert_true(dfs_sortset_add(&a, (dfs_key128){i % 40, 0})); /* 40 keys, repeated */
    assert_int_equal(dfs_sortset_count(&a), 40);
    for (uint64_t i = 0; i < 300; i++)
        assert_true(dfs_sortset_add(&b, (dfs_key128){20 + i % 60, 0})); /* 20..79: 20 shared */
    assert_true(dfs_sortset_append(&a, b.v, 0)); /* nothing */
    assert_int_equal(a.n, 40);
    assert_true(dfs_sortset_append(&a, b.v, b.n));
    assert_int_equal(a.n, 40 + 300); /* appended as they are */
    assert_int_equal(dfs_sortset_count(&a), 80);
    for (size_t i = 0; i < a.n; i++)
        assert_true(a.v[i].hi == i && a.v[i].lo == 0);
    dfs_sortset_free(&a);
    dfs_sortset_free(&b);
}

/* Keys lo = 1 are moved by rekey_add (hi + the context), the others stay. */
static bool rekey_add(dfs_key128 *k, void *ctx)
{
    if (k->lo != 1)
        return false;
    k->hi += *(const uint64_t *)ctx;
    return true;
}

/* Rekeying keeps a compacted set compacted when the moved keys keep their order among themselves
 * (a shift, merged back among the others), and leaves it for the next compaction otherwise (a
 * shift that wraps some keys around) or when it was not compacted; the keys are the same. */
static void sortset_rekey_keeps_order_where_it_can(void **state)
{
    (void)state;
    const uint64_t shifts[] = {25, UINT64_MAX - 9}; /* the second: hi - 10, hi < 10 wrapping around */
    for (int c = 0; c < 3; c++) {
        dfs_sortset s;
        dfs_sortset_init(&s);
        for (uint64_t i = 0; i < 60; i++) /* hi 0..29 twice: lo 0 stays, lo 1 moves */
            assert_true(dfs_sortset_add(&s, (dfs_key128){i % 30, i / 30}));
        if (c < 2)
            assert_int_equal(dfs_sortset_count(&s), 60);
        uint64_t shift = shifts[c == 1];
        assert_true(dfs_sortset_rekey(&s, rekey_add, &shift));
        assert_int_equal(s.n, 60);
        assert_int_equal(s.sorted, c == 0 ? 60 : 0); /* kept only for the compacted set and the shift */
        assert_int_equal(dfs_sortset_count(&s), 60);
        for (size_t i = 1; i < s.n; i++)
            assert_true(cmp_key128(&s.v[i - 1], &s.v[i]) < 0);
        size_t moved = 0;
        for (size_t i = 0; i < s.n; i++) {
            moved += s.v[i].lo == 1;
            if (s.v[i].lo == 1)
                assert_true(c == 1 ? s.v[i].hi < 20 || s.v[i].hi >= UINT64_MAX - 9 : s.v[i].hi >= 25 && s.v[i].hi < 55);
        }
        assert_int_equal(moved, 30);
        dfs_sortset_free(&s);
    }
}

/* Many distinct keys in random order come out exact and sorted, in an array within a small
 * factor of them, and so does a tail longer than the set appended at once (a worker's set merged
 * in), repeats and all. */
static void sortset_compacts_random_keys_and_long_tails(void **state)
{
    (void)state;
    dfs_sortset s, t;
    dfs_sortset_init(&s);
    dfs_sortset_init(&t);
    uint64_t seed = 88172645463325252ull, n = 8 * DFS_SORTSET_MIN_TAIL;
    for (uint64_t i = 0; i < n; i++) /* distinct keys in random order */
        assert_true(dfs_sortset_add(&s, (dfs_key128){next_rand(&seed), i}));
    assert_int_equal(dfs_sortset_count(&s), n);
    assert_true(s.cap <= 4 * n);
    for (size_t i = 1; i < s.n; i++)
        assert_true(cmp_key128(&s.v[i - 1], &s.v[i]) < 0);
    for (uint64_t i = 0; i < 3 * n; i++) /* a tail three times the prefix, half of it repeats */
        assert_true(dfs_sortset_add(&t, (dfs_key128){next_rand(&seed) % (2 * n), 0}));
    assert_true(dfs_sortset_append(&s, t.v, t.n));
    size_t distinct = dfs_sortset_count(&t), before = n;
    assert_true(dfs_sortset_count(&s) >= before && s.n <= before + distinct);
    for (size_t i = 1; i < s.n; i++)
        assert_true(cmp_key128(&s.v[i - 1], &s.v[i]) < 0);
    /* exactly the union: every key of t is found */
    size_t union_n = s.n;
    for (size_t i = 0; i < t.n; i++)
        assert_true(dfs_sortset_add(&s, t.v[i]));
    assert_int_equal(dfs_sortset_count(&s), union_n);
    dfs_sortset_free(&s);
    dfs_sortset_free(&t);
}

/* Items by id: absent ones read as no page, written ones are zeroed first, pages are allocated
 * only where ids fall, and ids far apart do not share items. */
static void idtab_pages_items_by_id(void **state)
{
    (void)state;
    dfs_idtab t;
    dfs_idtab_init(&t, sizeof(uint64_t));
    assert_null(dfs_idtab_get(&t, 0));
    assert_null(dfs_idtab_get(&t, UINT32_MAX));
    uint64_t *a = dfs_idtab_at(&t, 5);
    assert_non_null(a);
    assert_int_equal(*a, 0);
    *a = 55;
    uint64_t *b = dfs_idtab_at(&t, 5 + DFS_IDTAB_PAGE * 3);
    assert_non_null(b);
    assert_int_equal(*b, 0);
    *b = 77;
    assert_int_equal(t.pages.n, 4);
    assert_non_null(t.pages.v[0]);
    assert_null(t.pages.v[1]); /* no id written there */
    assert_null(t.pages.v[2]);
    assert_null(dfs_idtab_get(&t, 5 + DFS_IDTAB_PAGE)); /* its page was never written */
    assert_int_equal(*(const uint64_t *)dfs_idtab_get(&t, 5), 55);
    assert_int_equal(*(const uint64_t *)dfs_idtab_get(&t, 6), 0); /* same page, never written */
    assert_int_equal(*(const uint64_t *)dfs_idtab_at(&t, 5 + DFS_IDTAB_PAGE * 3), 77);
    uint32_t far = (UINT32_C(1) << 24) + DFS_IDTAB_PAGE - 1; /* the last item of its page */
    uint64_t *last = dfs_idtab_at(&t, far);
    assert_non_null(last);
    assert_int_equal(*last, 0);
    *last = 99;
    assert_int_equal(*(const uint64_t *)dfs_idtab_get(&t, far), 99);
    assert_null(dfs_idtab_get(&t, far + 1)); /* beyond the pages */
    assert_int_equal(*(const uint64_t *)dfs_idtab_get(&t, 5), 55);
    dfs_idtab_free(&t);
    assert_int_equal(t.pages.n, 0);
    assert_null(dfs_idtab_get(&t, 5));
}

static void test_numstat(void **state)
{
    (void)state;
    double a[] = {1, 2, 3, 4};
    assert_true(dfs_quantile_sorted(a, 4, 0.5) == 2.5);   /* even count: mean of the middle two */
    assert_true(dfs_quantile_sorted(a, 4, 0.0) == 1);
    assert_true(dfs_quantile_sorted(a, 4, 1.0) == 4);
    double b[] = {5, 80, 80, 80};
    assert_true(dfs_quantile_sorted(b, 4, 0.95) == 80);   /* index 2.85: between the two 80s */
    assert_true(dfs_quantile_sorted(b, 4, 0.05) == 16.25); /* 5 + 75 * 0.15 */
    double c[] = {0, 10};
    assert_true(dfs_quantile_sorted(c, 2, 0.75) == 7.5);  /* counted down from the upper value */
    assert_true(dfs_mean_np(a, 4) == 2.5);
    assert_true(dfs_std_np(a, 4) == sqrt(1.25));
    double d[] = {1, 1, 1, 1, 5};
    assert_true(dfs_mean_np(d, 5) == 1.8);
    assert_true(fabs(dfs_std_np(d, 5) - 1.6) < 1e-15);
    /* Python's round(x, 2): the exact binary value decides, exact ties go to even */
    assert_true(dfs_py_round(2.675, 2) == 2.67);
    assert_true(dfs_py_round(1.005, 2) == 1.0);
    assert_true(dfs_py_round(0.125, 2) == 0.12);
    assert_true(dfs_py_round(0.375, 2) == 0.38);
    assert_true(dfs_py_round(55.555, 2) == 55.55);
    /* medians: the middle value, or the mean of the two middle ones; NaN when empty */
    double odd[] = {9, 1, 5};
    assert_true(dfs_median(odd, 3) == 5 && odd[0] == 9); /* the copy is sorted, not the input */
    double even[] = {4, 1, 3, 2};
    assert_true(dfs_median_inplace(even, 4) == 2.5 && even[0] == 1 && even[3] == 4);
    assert_true(isnan(dfs_median(odd, 0)) && isnan(dfs_quantile(odd, 0, 0.5)));
    assert_true(isnan(dfs_mean_np(odd, 0)) && isnan(dfs_std_np(odd, 0)));
    assert_true(dfs_quantile(odd, 3, 0.25) == 3);
    /* round: digits outside 0..6 and non-finite values come back unchanged */
    assert_true(dfs_py_round(2.5, 0) == 2 && dfs_py_round(3.5, 0) == 4);
    assert_true(dfs_py_round(1.23456789, 7) == 1.23456789 && isinf(dfs_py_round(INFINITY, 2)));
    /* pairwise summation: 200 values of 0.1 as NumPy sums them */
    double many[200];
    for (int i = 0; i < 200; i++)
        many[i] = 0.1;
    double seq = 0;
    for (int i = 0; i < 200; i++)
        seq += 0.1;
    assert_true(fabs(dfs_mean_np(many, 200) - 0.1) <= fabs(seq / 200 - 0.1));
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arena_aligns_and_grows),
        cmocka_unit_test(arena_reuses_blocks_after_reset),
        cmocka_unit_test(strtab_interns_and_fixes_well_known_keys),
        cmocka_unit_test(strtab_is_consistent_across_threads),
        cmocka_unit_test(u64map_puts_gets_and_overwrites),
        cmocka_unit_test(keyset_adds_once_and_iterates),
        cmocka_unit_test(keymap_sizes_values_and_walk),
        cmocka_unit_test(vec_extends_zeroed),
        cmocka_unit_test(test_numstat),
        cmocka_unit_test(sort128_matches_a_comparison_sort),
        cmocka_unit_test(sort128_keeps_payload_order),
        cmocka_unit_test(sortset_counts_distinct_keys_in_bounded_memory),
        cmocka_unit_test(sortset_append_merges_two_sets),
        cmocka_unit_test(sortset_rekey_keeps_order_where_it_can),
        cmocka_unit_test(sortset_compacts_random_keys_and_long_tails),
        cmocka_unit_test(idtab_pages_items_by_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
