/* test_suggest.c - "did you mean" (util/suggest.h): the distance (swaps of neighbours cost one,
 * case does not count, bounded length), unique prefixes before distances, the threshold that grows
 * with the word, ties to the first name offered, and the words that get no suggestion. */
#include <stdint.h>
#include <string.h>

#include "testutil.h"
#include "util/suggest.h"

static const char *const commands[] = {"stats", "analyze", "overlap", "tasks", "steps",
                                       "dataloader", "timeline", "merge", "rules", "gen"};
#define NCOMMANDS (sizeof commands / sizeof *commands)

static void distance_counts_edits_and_swaps(void **state)
{
    (void)state;
    assert_int_equal(dfs_suggest_distance("analyse", "analyze"), 1);
    assert_int_equal(dfs_suggest_distance("prest", "preset"), 1);
    assert_int_equal(dfs_suggest_distance("stast", "stats"), 1); /* neighbours swapped */
    assert_int_equal(dfs_suggest_distance("poxis", "posix"), 2);
    assert_int_equal(dfs_suggest_distance("", "json"), 4);
    assert_int_equal(dfs_suggest_distance("JSON", "json"), 0);
    assert_int_equal(dfs_suggest_distance("kitten", "sitting"), 3);
}

static void distance_refuses_long_strings(void **state)
{
    (void)state;
    char longer[DFS_SUGGEST_MAX + 2];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_true(dfs_suggest_distance(longer, "a") == SIZE_MAX);
    assert_null(dfs_suggest_among(longer, commands, NCOMMANDS));
}

static void suggests_the_closest_command(void **state)
{
    (void)state;
    assert_string_equal(dfs_suggest_among("analyse", commands, NCOMMANDS), "analyze");
    assert_string_equal(dfs_suggest_among("stast", commands, NCOMMANDS), "stats");
    assert_string_equal(dfs_suggest_among("timelien", commands, NCOMMANDS), "timeline");
    assert_string_equal(dfs_suggest_among("Merge", commands, NCOMMANDS), "merge");
}

static void a_unique_prefix_wins(void **state)
{
    (void)state;
    assert_string_equal(dfs_suggest_among("data", commands, NCOMMANDS), "dataloader");
    assert_string_equal(dfs_suggest_among("over", commands, NCOMMANDS), "overlap");
    /* "st" begins stats and steps: no prefix answer, and both are too far */
    assert_null(dfs_suggest_among("st", commands, NCOMMANDS));
}

static void far_words_get_nothing(void **state)
{
    (void)state;
    assert_null(dfs_suggest_among("", commands, NCOMMANDS));
    assert_null(dfs_suggest_among(NULL, commands, NCOMMANDS));
    assert_null(dfs_suggest_among("frobnicate", commands, NCOMMANDS));
    assert_null(dfs_suggest_among("xml", (const char *const[]){"table", "json", "csv"}, 3));
    /* a name no longer than the distance is not a suggestion: "x" is not "io" */
    assert_null(dfs_suggest_among("x", (const char *const[]){"io"}, 1));
}

static void the_threshold_grows_with_the_word(void **state)
{
    (void)state;
    const char *const presets[] = {"posix", "dlio", "dlio-g2", "ai", "auto"};
    assert_string_equal(dfs_suggest_among("poxis", presets, 5), "posix"); /* 2 edits in 5 letters */
    assert_null(dfs_suggest_among("pxxxs", presets, 5));                 /* 3 edits */
    const char *const views[] = {"time_range", "proc_name", "file_name"};
    assert_string_equal(dfs_suggest_among("tme_rnge", views, 3), "time_range"); /* 2 edits in 8 */
    assert_string_equal(dfs_suggest_among("fle_nme", views, 3), "file_name");
}

static void ties_go_to_the_first_name(void **state)
{
    (void)state;
    const char *const names[] = {"cat", "car", NULL, "cap"};
    assert_string_equal(dfs_suggest_among("caz", names, 4), "cat");
    const char *const reversed[] = {"car", "cat"};
    assert_string_equal(dfs_suggest_among("caz", reversed, 2), "car");
}

static void names_offered_one_by_one(void **state)
{
    (void)state;
    dfs_suggest s;
    dfs_suggest_init(&s, "jsno");
    dfs_suggest_offer(&s, "table");
    dfs_suggest_offer(&s, NULL);
    dfs_suggest_offer(&s, "");
    assert_null(dfs_suggest_best(&s));
    dfs_suggest_offer(&s, "json");
    assert_string_equal(dfs_suggest_best(&s), "json");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(distance_counts_edits_and_swaps),
        cmocka_unit_test(distance_refuses_long_strings),
        cmocka_unit_test(suggests_the_closest_command),
        cmocka_unit_test(a_unique_prefix_wins),
        cmocka_unit_test(far_words_get_nothing),
        cmocka_unit_test(the_threshold_grows_with_the_word),
        cmocka_unit_test(ties_go_to_the_first_name),
        cmocka_unit_test(names_offered_one_by_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
