/* test_predicate_args.c - args.KEY operands of the predicate language: numeric comparisons
 * against integers, floats and numeric strings, string equality, missing keys and rows without a
 * lookup (null: three-valued logic), non-numeric values, quoted and hostile keys, parse errors with
 * their columns, the key list for readers, and sets that use arguments (no memo, same answers);
 * argument tests answered apart (numbering shared and stable across sets, words that give the
 * lookup's answers, memoised by the word, the bounds on tests and keys). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/predicate.h"
#include "testutil.h"

/* A row's arguments: key=value pairs; a value is an integer ("i:12"), a float ("f:2.5") or text
 * ("s:abc"). */
typedef struct args {
    const char *const *kv; /* key, value, key, value, ..., NULL */
} args;

static bool lookup(const void *ctx, const char *key, size_t len, dfs_pred_arg *out)
{
    const args *a = ctx;
    for (size_t i = 0; a->kv[i]; i += 2) {
        if (strlen(a->kv[i]) != len || memcmp(a->kv[i], key, len) != 0)
            continue;
        const char *v = a->kv[i + 1];
        if (v[0] == 'i')
            *out = (dfs_pred_arg){.type = DFS_PRED_ARG_INT, .i = strtoll(v + 2, NULL, 10)};
        else if (v[0] == 'f')
            *out = (dfs_pred_arg){.type = DFS_PRED_ARG_FLOAT, .f = strtod(v + 2, NULL)};
        else
            *out = (dfs_pred_arg){.type = DFS_PRED_ARG_TEXT, .s = v + 2, .len = strlen(v + 2)};
        return true;
    }
    return false;
}

static const char *const kv[] = {"stream", "i:7", "device", "i:0", "bw", "f:2.5", "huge", "f:1e300", "nan", "f:nan",
                                 "num_text", "s:-12", "text", "s:0x0", "name", "s:ncclKernel", "External id", "i:5",
                                 "and", "i:1", "a\"b]c", "s:q", "big", "s:99999999999999999999", NULL};

static bool match_row(const char *text, bool with_lookup)
{
    dfs_pred_error err;
    dfs_pred *p = dfs_pred_parse(text, &err);
    if (!p)
        fail_msg("'%s' does not parse: %s", text, err.message);
    args a = {kv};
    dfs_pred_row r;
    dfs_pred_row_init(&r);
    dfs_pred_row_set_text(&r, DFS_PRED_CAT, "kernel", 6);
    if (with_lookup)
        r.args = lookup, r.args_ctx = &a;
    bool m = dfs_pred_match(p, &r);
    dfs_pred_free(p);
    return m;
}

static bool m(const char *text) { return match_row(text, true); }

static void numeric_comparisons(void **state)
{
    (void)state;
    assert_true(m("args.stream >= 0"));
    assert_true(m("args.stream == 7 & args.device == 0"));
    assert_false(m("args.stream < 7"));
    assert_true(m("args.stream != 8"));
    assert_true(m("args.bw > 2") && m("args.bw < 3") && !m("args.bw == 2") && !m("args.bw <= 2"));
    assert_true(m("args.huge > 9223372036854775807"));
    assert_true(m("args.num_text == -12") && m("args.num_text < 0"));
}

static void strings_and_types(void **state)
{
    (void)state;
    assert_true(m("args.name == \"ncclKernel\""));
    assert_true(m("args.name != 'gemm'"));
    assert_true(m("args.text == '0x0'"));
    /* a number against a string, a non-numeric string against a number: null */
    assert_false(m("args.stream == '7'"));
    assert_false(m("~(args.stream == '7')"));
    assert_false(m("args.text == 0"));
    assert_false(m("~(args.text == 0)"));
    assert_false(m("args.big > 0")); /* out of range: not a number */
    assert_false(m("args.nan == 0") || m("~(args.nan == 0)"));
    /* a float is not a string */
    assert_false(m("args.bw == '2.5'"));
}

static void missing_keys_are_null(void **state)
{
    (void)state;
    assert_false(m("args.missing == 1"));
    assert_false(m("~(args.missing == 1)"));
    assert_true(m("args.missing == 1 | args.stream == 7"));
    assert_false(m("args.missing == 1 & args.stream == 7"));
    assert_true(m("~(args.missing == 1 & args.stream == 8)")); /* FALSE decides the & */
    /* without a lookup every argument is null */
    assert_false(match_row("args.stream == 7", false));
    assert_false(match_row("~(args.stream == 7)", false));
    assert_true(match_row("cat == 'kernel' | args.stream == 7", false));
}

static void quoted_and_hostile_keys(void **state)
{
    (void)state;
    assert_true(m("args[\"External id\"] == 5"));
    assert_true(m("args['External id'] >= 5"));
    assert_true(m("args.and == 1"));      /* a keyword is a key after the dot */
    assert_true(m("args[\"a\\\"b]c\"] == 'q'"));
    char key[DFS_PRED_MAX_ARG_KEY + 64];
    memset(key, 'k', DFS_PRED_MAX_ARG_KEY);
    key[DFS_PRED_MAX_ARG_KEY] = '\0';
    char text[sizeof key + 32];
    snprintf(text, sizeof text, "args.%s == 1", key);
    assert_false(m(text)); /* the longest key parses; no such argument */
}

static void parse_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t column;
        const char *words;
    } bad[] = {
        {"args == 1", 6, "'.' or '[' after 'args'"},
        {"args.", 6, "an argument name"},
        {"args.7 == 1", 6, "an argument name"},
        {"args.& == 1", 6, "an argument name"},
        {"args[7] == 1", 6, "a quoted key"},
        {"args[\"\"] == 1", 6, "empty"},
        {"args['x' == 1", 10, "']'"},
        {"args.x < 'a'", 10, "'==' or '!='"},
        {"args.x.isin([1])", 7, "a comparison operator"},
        {"args.x == cat", 11, "a literal"},
        {"args.x ==", 10, "a literal"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        dfs_pred_error err;
        dfs_pred *p = dfs_pred_parse(bad[i].text, &err);
        if (p)
            fail_msg("'%s' parses", bad[i].text);
        if (err.column != bad[i].column || !strstr(err.message, bad[i].words))
            fail_msg("'%s': column %zu, '%s'", bad[i].text, err.column, err.message);
    }
    char text[DFS_PRED_MAX_ARG_KEY + 64] = "args.";
    memset(text + 5, 'k', DFS_PRED_MAX_ARG_KEY + 1);
    strcpy(text + 5 + DFS_PRED_MAX_ARG_KEY + 1, " == 1");
    dfs_pred_error err;
    assert_null(dfs_pred_parse(text, &err));
    assert_non_null(strstr(err.message, "too long"));
    assert_int_equal(err.column, 6);
}

static void keys_for_readers(void **state)
{
    (void)state;
    dfs_pred *p = dfs_pred_parse("cat == 'kernel' & (args.stream >= 0 | args['External id'] == 3)", NULL);
    assert_non_null(p);
    assert_true(dfs_pred_uses_args(p));
    assert_int_equal(dfs_pred_columns(p), DFS_PRED_COL_BIT(DFS_PRED_CAT)); /* no column of its own */
    assert_int_equal(dfs_pred_arg_count(p), 2);
    size_t len;
    const char *k = dfs_pred_arg_key(p, 1, &len);
    assert_true(len == 11 && memcmp(k, "External id", 11) == 0);
    assert_null(dfs_pred_arg_key(p, 2, &len));
    dfs_pred_free(p);
    p = dfs_pred_parse("cat == 'x'", NULL);
    assert_false(dfs_pred_uses_args(p));
    assert_int_equal(dfs_pred_arg_count(p), 0);
    dfs_pred_free(p);
}

static void sets_answer_directly(void **state)
{
    (void)state;
    const char *texts[] = {"args.stream == 7", "cat == 'kernel'", "args.device != 0"};
    dfs_pred_set *s = dfs_pred_set_new(texts, 3, NULL);
    assert_non_null(s);
    assert_true(dfs_pred_set_uses_args(s));
    args a = {kv};
    static const char *const other_kv[] = {"stream", "i:3", "device", "i:1", NULL};
    args b = {other_kv};
    dfs_pred_row r;
    dfs_pred_row_init(&r);
    dfs_pred_row_set_text(&r, DFS_PRED_CAT, "kernel", 6);
    uint32_t ids[DFS_PRED_NTEXT] = {1};
    r.args = lookup, r.args_ctx = &a;
    assert_int_equal(dfs_pred_set_eval(s, &r, ids), 3);
    r.args_ctx = &b; /* same columns, other arguments: not a memoised answer */
    assert_int_equal(dfs_pred_set_eval(s, &r, ids), 6);
    dfs_pred_set_stats st;
    dfs_pred_set_stats_get(s, &st);
    assert_int_equal(st.keys, 0);
    dfs_pred_set_free(s);
}

/* Every row of `rows` answers alike through the lookup and through the word of answered tests. */
static void answered_tests_equal_lookups(void **state)
{
    (void)state;
    const char *texts[] = {"args.stream == 7 & cat == 'kernel'", "~(args.device != 0) | args.name == 'x'",
                           "args.stream == 7", "args.bw > 2 & args['External id'] == 5"};
    dfs_pred_set *direct = dfs_pred_set_new(texts, 4, NULL), *answered = dfs_pred_set_new(texts, 4, NULL);
    dfs_pred_arg_tests *t = dfs_pred_arg_tests_new();
    assert_true(direct && answered && t);
    assert_true(dfs_pred_set_bind_arg_tests(answered, t, NULL));
    assert_int_equal(dfs_pred_arg_tests_count(t), 5); /* args.stream == 7 twice: one test */
    assert_int_equal(dfs_pred_arg_tests_key_count(t), 5);
    size_t len;
    assert_string_equal(dfs_pred_arg_tests_key(t, 4, &len), "External id");
    assert_null(dfs_pred_arg_tests_key(t, 5, &len));
    static const char *const none[] = {NULL};
    static const char *const other[] = {"stream", "i:3", "device", "s:0", "name", "s:x", NULL};
    static const char *const *rows[] = {kv, none, other};
    for (size_t i = 0; i < 3; i++) {
        args a = {rows[i]};
        dfs_pred_row r;
        dfs_pred_row_init(&r);
        dfs_pred_row_set_text(&r, DFS_PRED_CAT, "kernel", 6);
        uint32_t ids[DFS_PRED_NTEXT] = {1};
        r.args = lookup, r.args_ctx = &a;
        uint64_t want = dfs_pred_set_eval(direct, &r, ids);
        dfs_pred_row w;
        dfs_pred_row_init(&w);
        dfs_pred_row_set_text(&w, DFS_PRED_CAT, "kernel", 6);
        w.has_arg_truths = true;
        w.arg_truths = dfs_pred_arg_tests_eval(t, lookup, &a);
        assert_int_equal(dfs_pred_set_eval(answered, &w, ids), want);
        assert_int_equal(dfs_pred_set_eval(answered, &w, ids), want); /* from the memo */
    }
    dfs_pred_set_stats st;
    dfs_pred_set_stats_get(answered, &st);
    assert_int_equal(st.keys, 3); /* memoised by (cat, word) */
    assert_int_equal(st.misses, 3);
    /* a NULL lookup answers every test unknown: 2 in each test's two bits */
    assert_int_equal(dfs_pred_arg_tests_eval(t, NULL, NULL), 0x2AA);
    dfs_pred_arg_tests_free(t);
    dfs_pred_set_free(direct);
    dfs_pred_set_free(answered);
}

/* Sets bound in the same order from the same texts number alike, whoever binds them: a word
 * answered by one set's tests is read right by another's. */
static void numbering_is_stable(void **state)
{
    (void)state;
    const char *texts[] = {"args.b == 1", "args.a == 'x' | args.b == 1"};
    dfs_pred_arg_tests *t1 = dfs_pred_arg_tests_new(), *t2 = dfs_pred_arg_tests_new();
    dfs_pred_set *s1 = dfs_pred_set_new(texts, 2, NULL), *s2 = dfs_pred_set_new(texts, 2, NULL);
    assert_true(dfs_pred_set_bind_arg_tests(s1, t1, NULL) && dfs_pred_set_bind_arg_tests(s2, t2, NULL));
    static const char *const row[] = {"a", "s:x", "b", "i:2", NULL};
    args a = {row};
    dfs_pred_row r;
    dfs_pred_row_init(&r);
    r.has_arg_truths = true;
    r.arg_truths = dfs_pred_arg_tests_eval(t1, lookup, &a);
    assert_int_equal(r.arg_truths, dfs_pred_arg_tests_eval(t2, lookup, &a));
    assert_int_equal(r.arg_truths, 0 | 1 << 2); /* b == 1 false, a == 'x' true */
    assert_int_equal(dfs_pred_set_eval(s2, &r, NULL), 2);
    dfs_pred_set_free(s1);
    dfs_pred_set_free(s2);
    dfs_pred_arg_tests_free(t1);
    dfs_pred_arg_tests_free(t2);
}

static void bounds_on_tests_and_keys(void **state)
{
    (void)state;
    char text[4096];
    size_t n = 0;
    for (int i = 0; i < DFS_PRED_MAX_ARG_TESTS; i++) /* 32 tests over one key: within the bounds */
        n += (size_t)snprintf(text + n, sizeof text - n, "%sargs.k == %d", i ? " | " : "", i);
    dfs_pred *p = dfs_pred_parse(text, NULL);
    dfs_pred_arg_tests *t = dfs_pred_arg_tests_new();
    assert_true(p && t && dfs_pred_bind_arg_tests(p, t, NULL));
    assert_int_equal(dfs_pred_arg_tests_count(t), DFS_PRED_MAX_ARG_TESTS);
    dfs_pred_free(p);
    p = dfs_pred_parse("args.k == 32", NULL); /* the 33rd */
    dfs_pred_error err;
    assert_false(dfs_pred_bind_arg_tests(p, t, &err));
    assert_non_null(strstr(err.message, "too many distinct argument tests"));
    dfs_pred_free(p);
    p = dfs_pred_parse("args.k == 0", NULL); /* a test it holds still binds */
    assert_true(dfs_pred_bind_arg_tests(p, t, NULL));
    dfs_pred_free(p);
    dfs_pred_arg_tests_free(t);

    n = 0;
    for (int i = 0; i <= DFS_PRED_MAX_ARG_KEYS; i++) /* 17 keys */
        n += (size_t)snprintf(text + n, sizeof text - n, "%sargs.k%d == 1", i ? " | " : "", i);
    const char *texts[] = {"cat == 'x'", text};
    dfs_pred_set *s = dfs_pred_set_new(texts, 2, NULL);
    t = dfs_pred_arg_tests_new();
    assert_false(dfs_pred_set_bind_arg_tests(s, t, &err));
    assert_non_null(strstr(err.message, "too many distinct argument keys"));
    assert_int_equal(err.index, 1);
    dfs_pred_set_free(s);
    dfs_pred_arg_tests_free(t);
}

/* A bare regular expression quoted into a predicate reaches the engine as given. */
static void contains_text_quotes(void **state)
{
    (void)state;
    char *text = dfs_pred_contains_text("func_name", "^a\"b\\\\c\\.d$"); /* ^a"b\\c\.d$ */
    assert_non_null(text);
    dfs_pred *p = dfs_pred_parse(text, NULL);
    assert_non_null(p);
    dfs_pred_row r;
    dfs_pred_row_init(&r);
    dfs_pred_row_set_text(&r, DFS_PRED_FUNC_NAME, "a\"b\\c.d", 7);
    assert_true(dfs_pred_match(p, &r));
    dfs_pred_row_set_text(&r, DFS_PRED_FUNC_NAME, "a\"b\\cxd", 7); /* \. is a literal dot */
    assert_false(dfs_pred_match(p, &r));
    dfs_pred_free(p);
    free(text);
    text = dfs_pred_contains_text("func_name", "load(");
    dfs_pred_error err;
    assert_null(dfs_pred_parse(text, &err));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numeric_comparisons),  cmocka_unit_test(strings_and_types),
        cmocka_unit_test(missing_keys_are_null), cmocka_unit_test(quoted_and_hostile_keys),
        cmocka_unit_test(parse_errors),          cmocka_unit_test(keys_for_readers),
        cmocka_unit_test(sets_answer_directly),  cmocka_unit_test(answered_tests_equal_lookups),
        cmocka_unit_test(numbering_is_stable),   cmocka_unit_test(bounds_on_tests_and_keys),
        cmocka_unit_test(contains_text_quotes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
