/* test_dedup.c - the digest set (util/seenset.h), the later twins of a sequence (util/twins.h) and
 * the duplicate check of a file (model/dups.h): later twins at any distance, the bound and its
 * notice, and the judgement of a file's pieces giving the same counts and examples as the check
 * of the whole file as it is read, however the file is cut. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "model/dups.h"
#include "util/seenset.h"
#include "util/twins.h"

static void seenset_adds_once_grows_and_stops_at_its_bound(void **state)
{
    (void)state;
    dfs_seenset s;
    dfs_seenset_init(&s, 10000);
    for (uint64_t d = 1; d <= 10000; d++) /* past the first table: it grows */
        assert_int_equal(dfs_seenset_add(&s, d * UINT64_C(0x9e3779b97f4a7c15) | 1), DFS_SEEN_NEW);
    for (uint64_t d = 1; d <= 10000; d++)
        assert_int_equal(dfs_seenset_add(&s, d * UINT64_C(0x9e3779b97f4a7c15) | 1), DFS_SEEN_AGAIN);
    assert_int_equal(dfs_seenset_add(&s, 2), DFS_SEEN_FULL); /* even digests were never added */
    assert_false(dfs_seenset_has(&s, 2));
    assert_int_equal(s.count, 10000);
    assert_true(s.mask + 1 <= 2 * 16384); /* at most half full, a power of two */
    dfs_seenset_clear(&s);
    assert_false(dfs_seenset_has(&s, UINT64_C(0x9e3779b97f4a7c15) | 1));
    assert_int_equal(dfs_seenset_add(&s, 2), DFS_SEEN_NEW);
    dfs_seenset_free(&s);
}

static void digest_tells_bytes_apart_and_is_never_zero(void **state)
{
    (void)state;
    char a[100], b[100];
    memset(a, 'x', sizeof a);
    memcpy(b, a, sizeof b);
    for (size_t n = 0; n <= sizeof a; n++) {
        assert_true(dfs_digest64(a, n) != 0);
        assert_true(dfs_digest64(a, n) == dfs_digest64(b, n));
        if (n)
            assert_true(dfs_digest64(a, n) != dfs_digest64(a, n - 1)); /* length counts */
        for (size_t i = 0; i < n; i++) { /* one byte changed anywhere, in every lane and the tail */
            b[i] = 'y';
            assert_true(dfs_digest64(a, n) != dfs_digest64(b, n));
            b[i] = 'x';
        }
    }
}

typedef struct found {
    size_t n;
    uint64_t sum; /* of the positions reported */
} found;

static void note_twin(void *ctx, uint64_t at)
{
    found *f = ctx;
    f->n++;
    f->sum += at;
}

/* Enough entries for the buckets: every 97th entry repeats the one 50,000 before it. */
static void twins_finds_the_later_twins_across_buckets(void **state)
{
    (void)state;
    enum { N = 300000, FAR = 50000 };
    dfs_digest_at *v = malloc(N * sizeof *v);
    assert_non_null(v);
    size_t want = 0;
    uint64_t want_sum = 0;
    for (size_t i = 0; i < N; i++) {
        uint64_t key = i;
        if (i >= FAR && i % 97 == 0) {
            key = i - FAR;
            want++;
            want_sum += i;
        }
        v[i].digest = dfs_digest64(&key, sizeof key);
        v[i].at = i;
    }
    found f = {0};
    const dfs_digest_at *part[] = {v, v + 1000, v + 1000}; /* one part empty */
    const size_t len[] = {1000, 0, N - 1000};
    assert_int_equal(dfs_twins((dfs_twins_seq){.part = part, .len = len, .nparts = 3}, note_twin, &f), want);
    assert_int_equal(f.n, want);
    assert_int_equal(f.sum, want_sum); /* the later one of each pair, never the first */
    free(v);
}

/* A record sequence with twins near and far: digests of "r<k>", k from the table. */
static const int seq[] = {1, 2, 1, 3, 4, 5, 2, 6, 7, 8, 9, 1, 10, 4, 11, 12, 13, 13, 14, 3};
enum { NSEQ = sizeof seq / sizeof *seq, WANT_DUPS = 6 };

static uint64_t digest_of(int k)
{
    char s[16];
    int n = snprintf(s, sizeof s, "r%d", k);
    return dfs_digest64(s, (size_t)n);
}

static void dupcheck_counts_later_twins_at_any_distance(void **state)
{
    (void)state;
    dfs_diag diag;
    dfs_diag_init(&diag, 3);
    dfs_dupcheck c;
    dfs_dupcheck_init(&c);
    size_t dups = 0;
    for (size_t i = 0; i < NSEQ; i++)
        dups += dfs_dupcheck_record(&c, &diag, 4, digest_of(seq[i]), 100 * i);
    assert_int_equal(dups, WANT_DUPS);
    assert_int_equal(diag.counts[DFS_PROB_DUPLICATE_RECORD], WANT_DUPS);
    assert_int_equal(diag.examples[DFS_PROB_DUPLICATE_RECORD].n, 3);
    assert_int_equal(diag.examples[DFS_PROB_DUPLICATE_RECORD].v[0].offset, 200); /* the later twin */
    assert_int_equal(diag.examples[DFS_PROB_DUPLICATE_RECORD].v[0].file, 4);
    /* --dedup asks first: a twin is judged (and counted) without being added again */
    assert_true(dfs_dupcheck_repeats(&c, &diag, 4, digest_of(12), 9999));
    assert_false(dfs_dupcheck_repeats(&c, &diag, 4, digest_of(99), 9999));
    assert_int_equal(diag.counts[DFS_PROB_DUPLICATE_RECORD], WANT_DUPS + 1);
    dfs_dupcheck_restart(&c); /* the next file starts afresh */
    assert_false(dfs_dupcheck_record(&c, &diag, 5, digest_of(1), 0));
    dfs_dupcheck_free(&c);
    dfs_diag_free(&diag);
}

static void dupcheck_stops_at_its_bound_and_says_so_once(void **state)
{
    (void)state;
    dfs_diag diag;
    dfs_diag_init(&diag, 5);
    dfs_dupcheck c;
    dfs_dupcheck_init(&c);
    assert_false(dfs_dupcheck_record(&c, &diag, 0, digest_of(1), 0));
    c.checked = DFS_DUPS_MAX_RECORDS - 1; /* as if the file had that many records so far */
    assert_true(dfs_dupcheck_record(&c, &diag, 0, digest_of(1), 10)); /* the last one checked */
    assert_false(dfs_dupcheck_record(&c, &diag, 0, digest_of(1), 20)); /* past the bound */
    assert_false(dfs_dupcheck_repeats(&c, &diag, 0, digest_of(1), 30));
    assert_false(dfs_dupcheck_record(&c, &diag, 0, digest_of(1), 40));
    assert_int_equal(diag.counts[DFS_PROB_DUPLICATE_RECORD], 1);
    assert_int_equal(diag.counts[DFS_PROB_DUPLICATES_UNCHECKED], 1);
    assert_int_equal(diag.examples[DFS_PROB_DUPLICATES_UNCHECKED].v[0].offset, 20);
    assert_int_equal(dfs_problem_class(DFS_PROB_DUPLICATE_RECORD), 'V');
    assert_int_equal(dfs_problem_class(DFS_PROB_DUPLICATES_UNCHECKED), 'V');
    dfs_dupcheck_free(&c);
    dfs_diag_free(&diag);
}

/* The pieces of a file, cut at every pair of places, folded: the same as the file in one pass. */
static void fold_of_pieces_equals_one_pass(void **state)
{
    (void)state;
    for (size_t cut1 = 0; cut1 <= NSEQ; cut1++)
        for (size_t cut2 = cut1; cut2 <= NSEQ; cut2++) {
            dfs_stream pieces[3];
            dfs_stream *ordered[3] = {&pieces[0], &pieces[1], &pieces[2]};
            const size_t ends[3] = {cut1, cut2, NSEQ};
            for (size_t p = 0, i = 0; p < 3; p++) {
                dfs_stream_init(&pieces[p], 2, (uint32_t)p, 0);
                for (; i < ends[p]; i++)
                    assert_true(dfs_dups_keep(&pieces[p], digest_of(seq[i]), 100 * i));
            }
            dfs_diag diag;
            dfs_diag_init(&diag, 4);
            dfs_dups_judge(&diag, 2, ordered, 3);
            assert_int_equal(diag.counts[DFS_PROB_DUPLICATE_RECORD], WANT_DUPS);
            const uint64_t first[4] = {200, 600, 1100, 1300};
            for (size_t k = 0; k < 4; k++)
                assert_int_equal(diag.examples[DFS_PROB_DUPLICATE_RECORD].v[k].offset, first[k]);
            for (size_t p = 0; p < 3; p++) {
                assert_int_equal(pieces[p].dupsums.n, 0); /* freed by the fold */
                dfs_stream_free(&pieces[p]);
            }
            dfs_diag_free(&diag);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seenset_adds_once_grows_and_stops_at_its_bound),
        cmocka_unit_test(digest_tells_bytes_apart_and_is_never_zero),
        cmocka_unit_test(twins_finds_the_later_twins_across_buckets),
        cmocka_unit_test(dupcheck_counts_later_twins_at_any_distance),
        cmocka_unit_test(dupcheck_stops_at_its_bound_and_says_so_once),
        cmocka_unit_test(fold_of_pieces_equals_one_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
