/* test_multisub.c - the one-pass multi-needle matcher answers like one memmem per needle: empty
 * and one-byte needles, haystacks shorter than needles, duplicates, prefixes of one another, high
 * and NUL bytes, the 64-needle limit, the stop-at-first variant, and a randomised comparison over a
 * tiny alphabet (so that matches are frequent). Haystacks are heap copies of their exact length,
 * so ASan sees any read past their end. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util/multisub.h"

#define BIT(i) (UINT64_C(1) << (i))

/* What one memmem per needle says. */
static uint64_t naive(const char *const *needles, const size_t *lens, size_t n, const void *hay, size_t hn)
{
    uint64_t r = 0;
    for (size_t i = 0; i < n; i++)
        if (lens[i] <= hn && memmem(hay, hn, needles[i], lens[i]))
            r |= BIT(i);
    return r;
}

/* Scans a heap copy of exactly hn bytes, and checks that the any-variant agrees. */
static uint64_t scan_copy(const dfs_multisub *m, const void *hay, size_t hn)
{
    unsigned char *copy = malloc(hn ? hn : 1);
    assert_non_null(copy);
    if (hn)
        memcpy(copy, hay, hn);
    uint64_t r = dfs_multisub_scan(m, copy, hn);
    assert_int_equal(dfs_multisub_any(m, copy, hn), r != 0);
    free(copy);
    return r;
}

static uint64_t scan_str(const dfs_multisub *m, const char *hay)
{
    return scan_copy(m, hay, strlen(hay));
}

static void finds_path_patterns(void **state)
{
    (void)state;
    static const char *const needles[] = {"/data", "/checkpoint", "/lustre", "/ssd", "/dev/",
                                          "/usr/lib", "/usr/tce/backend", "__pycache__"};
    dfs_multisub m;
    assert_true(dfs_multisub_init(&m, needles, NULL, 8));
    assert_int_equal(scan_str(&m, "/p/lustre1/u/data/unet3d/train/img_1_of_168.npz"), BIT(0) | BIT(2));
    assert_int_equal(scan_str(&m, "/p/gpfs1/ckpt/x"), 0);
    assert_int_equal(scan_str(&m, "/usr/tce/backend/lib/libc.so"), BIT(6));
    assert_int_equal(scan_str(&m, "/usr/lib64/x/__pycache__/a.pyc"), BIT(5) | BIT(7));
    assert_int_equal(scan_str(&m, "/ss"), 0);        /* ends inside the needle's prefix */
    assert_int_equal(scan_str(&m, "x/ssd"), BIT(3)); /* at the very end */
    assert_int_equal(scan_str(&m, "/usr/li"), 0);    /* ends inside the compared rest */
    dfs_multisub_free(&m);
}

/* An empty needle occurs everywhere, even in an empty haystack (like memmem). */
static void empty_needle_occurs_everywhere(void **state)
{
    (void)state;
    static const char *const needles[] = {"abc", "", "x"};
    dfs_multisub m;
    assert_true(dfs_multisub_init(&m, needles, NULL, 3));
    assert_int_equal(dfs_multisub_scan(&m, NULL, 0), BIT(1));
    assert_true(dfs_multisub_any(&m, NULL, 0));
    assert_int_equal(scan_str(&m, ""), BIT(1));
    assert_int_equal(scan_str(&m, "zzz"), BIT(1));
    assert_int_equal(scan_str(&m, "zabcx"), BIT(0) | BIT(1) | BIT(2));
    dfs_multisub_free(&m);
}

static void no_needles_match_nothing(void **state)
{
    (void)state;
    dfs_multisub m;
    assert_true(dfs_multisub_init(&m, NULL, NULL, 0));
    assert_int_equal(scan_str(&m, "anything"), 0);
    assert_int_equal(dfs_multisub_scan(&m, NULL, 0), 0);
    dfs_multisub_free(&m);
}

static void one_byte_needles_at_both_ends(void **state)
{
    (void)state;
    static const char *const needles[] = {"a", "z", "/", "ab"};
    dfs_multisub m;
    assert_true(dfs_multisub_init(&m, needles, NULL, 4));
    assert_int_equal(scan_str(&m, "a"), BIT(0));
    assert_int_equal(scan_str(&m, "z"), BIT(1));
    assert_int_equal(scan_str(&m, "qqqz"), BIT(1));
    assert_int_equal(scan_str(&m, "ab"), BIT(0) | BIT(3));
    assert_int_equal(scan_str(&m, "b"), 0);
    assert_int_equal(scan_str(&m, "za/"), BIT(0) | BIT(1) | BIT(2));
    dfs_multisub_free(&m);
}

static void haystack_shorter_than_needles(void **state)
{
    (void)state;
    static const char *const needles[] = {"abcdef", "abcd", "abc"};
    dfs_multisub m;
    assert_true(dfs_multisub_init(&m, needles, NULL, 3));
    assert_int_equal(scan_str(&m, "a"), 0);
    assert_int_equal(scan_str(&m, "ab"), 0);
    assert_int_equal(scan_str(&m, "abc"), BIT(2));
    assert_int_equal(scan_str(&m, "abcde"), BIT(1) | BIT(2));
    assert_int_equal(scan_str(&m, "abcdef"), BIT(0) | BIT(1) | BIT(2));
    assert_int_equal(scan_str(&m, "xabcdeabcdef"), BIT(0) | BIT(1) | BIT(2));
    dfs_multisub_free(&m);
}

static void duplicates_and_prefixes_get_their_own_bits(void **state)
{
    (void)state;
    static const char *const needles[] = {"/da", "/data", "/data", "/data/x", "/d"};
    dfs_multisub m;
    assert_true(dfs_multisub_init(&m, needles, NULL, 5));
    assert_int_equal(scan_str(&m, "/p/data"), BIT(0) | BIT(1) | BIT(2) | BIT(4));
    assert_int_equal(scan_str(&m, "/data/x"), BIT(0) | BIT(1) | BIT(2) | BIT(3) | BIT(4));
    assert_int_equal(scan_str(&m, "/dat"), BIT(0) | BIT(4));
    dfs_multisub_free(&m);
}

static void high_and_nul_bytes_are_ordinary(void **state)
{
    (void)state;
    static const char *const needles[] = {"\xc3\xa9t\xc3\xa9", "\xff", "a\0b", "\0", "\x80\0\x80q"};
    static const size_t lens[] = {5, 1, 3, 1, 4};
    dfs_multisub m;
    assert_true(dfs_multisub_init(&m, needles, lens, 5));
    assert_int_equal(scan_copy(&m, "l'\xc3\xa9t\xc3\xa9", 7), BIT(0));
    assert_int_equal(scan_copy(&m, "x\xffy", 3), BIT(1));
    assert_int_equal(scan_copy(&m, "za\0bz", 5), BIT(2) | BIT(3));
    assert_int_equal(scan_copy(&m, "ab", 2), 0);
    assert_int_equal(scan_copy(&m, "\x80\0\x80q", 4), BIT(3) | BIT(4));
    assert_int_equal(scan_copy(&m, "\x80\0\x80", 3), BIT(3));
    dfs_multisub_free(&m);
}

static void sixty_four_needles_fit_and_sixty_five_do_not(void **state)
{
    (void)state;
    char text[65][4];
    const char *needles[65];
    for (int i = 0; i < 65; i++) {
        text[i][0] = (char)('A' + i / 26), text[i][1] = (char)('a' + i % 26), text[i][2] = '\0';
        needles[i] = text[i];
    }
    dfs_multisub m;
    assert_false(dfs_multisub_init(&m, needles, NULL, 65));
    dfs_multisub_free(&m); /* safe after a failed init */
    assert_true(dfs_multisub_init(&m, needles, NULL, 64));
    assert_int_equal(scan_str(&m, "xxCl"), BIT(63)); /* needle 63: 'A' + 2, 'a' + 11 */
    assert_int_equal(scan_str(&m, "AaCl"), BIT(0) | BIT(63));
    dfs_multisub_free(&m);
}

/* The any-variant stops at the first hit; it still says the same as scan() != 0. */
static void any_agrees_with_scan(void **state)
{
    (void)state;
    static const char *const needles[] = {"/venv", "/sys/", "/proc/"};
    dfs_multisub m;
    assert_true(dfs_multisub_init(&m, needles, NULL, 3));
    assert_true(dfs_multisub_any(&m, "/proc/self/venv", 15));
    assert_false(dfs_multisub_any(&m, "/proc", 5));
    assert_false(dfs_multisub_any(&m, "", 0));
    dfs_multisub_free(&m);
}

/* xorshift64*: a deterministic stream local to the test. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static void random_bytes(uint64_t *seed, char *out, size_t n)
{
    static const char alphabet[] = {'/', 'a', 'b', '\0', (char)0xe9};
    for (size_t i = 0; i < n; i++)
        out[i] = alphabet[next_random(seed) % sizeof alphabet];
}

/* One random needle set against many random haystacks. */
static void compare_one_set(uint64_t *seed)
{
    char text[DFS_MULTISUB_MAX][8];
    const char *needles[DFS_MULTISUB_MAX];
    size_t lens[DFS_MULTISUB_MAX];
    size_t n = next_random(seed) % (DFS_MULTISUB_MAX + 1);
    size_t max_len = 1 + next_random(seed) % sizeof text[0];
    for (size_t i = 0; i < n; i++) {
        lens[i] = next_random(seed) % (max_len + 1);
        random_bytes(seed, text[i], lens[i]);
        needles[i] = text[i];
    }
    dfs_multisub m;
    assert_true(dfs_multisub_init(&m, needles, lens, n));
    for (int h = 0; h < 40; h++) {
        char hay[48];
        size_t hn = next_random(seed) % (sizeof hay + 1);
        random_bytes(seed, hay, hn);
        assert_int_equal(scan_copy(&m, hay, hn), naive(needles, lens, n, hay, hn));
    }
    dfs_multisub_free(&m);
}

static void matches_memmem_on_random_sets(void **state)
{
    (void)state;
    uint64_t seed = UINT64_C(0x9e3779b97f4a7c15);
    for (int set = 0; set < 3000; set++)
        compare_one_set(&seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_path_patterns),
        cmocka_unit_test(empty_needle_occurs_everywhere),
        cmocka_unit_test(no_needles_match_nothing),
        cmocka_unit_test(one_byte_needles_at_both_ends),
        cmocka_unit_test(haystack_shorter_than_needles),
        cmocka_unit_test(duplicates_and_prefixes_get_their_own_bits),
        cmocka_unit_test(high_and_nul_bytes_are_ordinary),
        cmocka_unit_test(sixty_four_needles_fit_and_sixty_five_do_not),
        cmocka_unit_test(any_agrees_with_scan),
        cmocka_unit_test(matches_memmem_on_random_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
