/* test_predicate.c - the layer predicate language: presets, operators, regexes, nulls, errors with
 * their columns, and the memoising set against direct evaluation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/predicate.h"
#include "testutil.h"

#define NULL_NUM INT64_MIN /* "no value" in the row helpers below */

static dfs_pred_row make_row(const char *cat, const char *func, int64_t io_cat)
{
    dfs_pred_row r;
    dfs_pred_row_init(&r);
    if (cat)
        dfs_pred_row_set_text(&r, DFS_PRED_CAT, cat, strlen(cat));
    if (func)
        dfs_pred_row_set_text(&r, DFS_PRED_FUNC_NAME, func, strlen(func));
    if (io_cat != NULL_NUM)
        dfs_pred_row_set_num(&r, DFS_PRED_IO_CAT, io_cat);
    return r;
}

static dfs_pred *parse_ok(const char *text)
{
    dfs_pred_error err;
    dfs_pred *p = dfs_pred_parse(text, &err);
    if (!p)
        fail_msg("'%s' does not parse: %s", text, err.message);
    return p;
}

static bool matches(const char *text, const dfs_pred_row *row)
{
    dfs_pred *p = parse_ok(text);
    bool m = dfs_pred_match(p, row);
    dfs_pred_free(p);
    return m;
}

static bool m3(const char *text, const char *cat, const char *func, int64_t io_cat)
{
    dfs_pred_row r = make_row(cat, func, io_cat);
    return matches(text, &r);
}

/* ---- presets (layered-analysis.md §5) ---- */

static const char *const preset_predicates[] = {
    /* 5.1 DERIVED_POSIX_METRICS */
    "io_cat == 1 or io_cat == 2",
    "io_cat == 1",
    "io_cat == 2",
    "io_cat == 3",
    "io_cat == 3 and func_name.str.contains(\"close\") and ~func_name.str.contains(\"dir\")",
    "io_cat == 3 and func_name.str.contains(\"open\") and ~func_name.str.contains(\"dir\")",
    "io_cat == 3 and func_name.str.contains(\"seek\")",
    "io_cat == 3 and func_name.str.contains(\"stat\")",
    "io_cat == 6",
    "io_cat == 7",
    /* 5.2 posix */
    "cat.str.contains(\"posix|stdio\")",
    /* 5.3 dlio G2 */
    "func_name == \"DLIOBenchmark.run\"",
    "func_name == \"DLIOBenchmark._train\"",
    "cat == \"ai_framework\"",
    "func_name.isin([\"<module>.iter\", \"fetch-data.iter\", \"loop.iter\"])",
    "cat == \"data_loader\" & ~func_name.isin([\"loop.iter\", \"loop.yield\"])",
    "cat == \"posix\" & func_name == \"fork\"",
    "cat == \"reader\"",
    "cat.str.contains(\"posix|stdio\") & cat.str.contains(\"_reader_lustre\")",
    "cat == \"checkpoint\"",
    "cat.str.contains(\"posix|stdio\") & cat.str.contains(\"_checkpoint_lustre\")",
    "cat.str.contains(\"posix|stdio\") & cat.str.contains(\"_checkpoint_ssd\")",
    "cat.isin([\"posix\", \"stdio\"])",
    "func_name.str.contains(\"init\")",
    "func_name.str.contains(\"__getitem__\")",
    "func_name.str.contains(\".close\")",
    "func_name.str.contains(\".open\")",
    "func_name.str.contains(\".preprocess\")",
    "func_name.str.contains(\".get_sample\")",
    /* 5.4 dlio G3 */
    "func_name.isin([\"DLIOBenchmark.initialize\", \"DLIOBenchmark.run\"])",
    "cat.str.contains(\"posix|stdio\") & cat.str.contains(\"_reader\")",
    "cat.str.contains(\"posix|stdio\") & cat.str.contains(\"_checkpoint\")",
    "func_name.str.contains(\"item\")",
    /* 5.5 ai */
    "func_name == \"ai_root\"",
    "cat == \"pipeline\" & func_name == \"train\"",
    "cat == \"pipeline\" & func_name.str.startswith(\"epoch\")",
    "cat == \"compute\"",
    "func_name == \"fetch.iter\"",
    "cat == \"comm\"",
    "cat == \"device\"",
    "cat.isin([\"data\", \"data_loader\", \"dataloader\"])",
    "cat == \"reader\" or func_name == \"preprocess\"",
    /* 5.6 auto: None and the generated parent/leaf shapes */
    "None",
    "cat == \"a\" | cat.str.startswith(\"a.\")",
    "cat == \"a.b.c\"",
};

static void presets_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof preset_predicates / sizeof *preset_predicates; i++)
        dfs_pred_free(parse_ok(preset_predicates[i]));
}

static void presets_behave(void **state)
{
    (void)state;
    const char *close = preset_predicates[4], *open = preset_predicates[5];
    assert_true(m3(close, "posix", "fclose", 3));
    assert_true(m3(close, "posix", "close", 3));
    assert_false(m3(close, "posix", "closedir", 3));
    assert_false(m3(close, "posix", "fclose", 1));
    assert_true(m3(open, "posix", "open64", 3));
    assert_false(m3(open, "posix", "opendir", 3));
    assert_true(m3("io_cat == 1 or io_cat == 2", "posix", "read", 2));
    assert_false(m3("io_cat == 1 or io_cat == 2", "posix", "read", 3));

    const char *reader_lustre = preset_predicates[18];
    assert_true(m3(reader_lustre, "posix_reader_lustre", "read", 1));
    assert_true(m3(reader_lustre, "stdio_reader_lustre", "fread", 1));
    assert_false(m3(reader_lustre, "posix_checkpoint_lustre", "read", 1));
    assert_false(m3(reader_lustre, "reader_lustre", "read", 1));

    const char *data_loader = preset_predicates[15];
    assert_true(m3(data_loader, "data_loader", "TorchDataset.__getitem__", 6));
    assert_false(m3(data_loader, "data_loader", "loop.iter", 6));
    assert_false(m3(data_loader, "data_loader", "loop.yield", 6));
    assert_false(m3(data_loader, "reader", "x", 6));

    assert_true(m3("cat.isin([\"posix\", \"stdio\"])", "stdio", "f", 6));
    assert_false(m3("cat.isin([\"posix\", \"stdio\"])", "posix_lustre", "f", 6));
    assert_true(m3(preset_predicates[35], "pipeline", "epoch_3", 6));
    assert_false(m3(preset_predicates[35], "pipeline", "train_epoch", 6));
    assert_true(m3(preset_predicates[41], "x", "preprocess", 6));

    /* auto: a parent matches itself and its descendants but not a longer name */
    const char *parent = "cat == \"ai\" | cat.str.startswith(\"ai.\")";
    assert_true(m3(parent, "ai", "f", 6));
    assert_true(m3(parent, "ai.compute", "f", 6));
    assert_false(m3(parent, "airflow", "f", 6));
    assert_false(m3("cat == \"compute\"", "ai.compute", "f", 6));
}

/* ---- operators and precedence: truth tables over three independent tests ---- */

static dfs_pred_row abc_row(int bits)
{
    return make_row(bits & 1 ? "a" : "x", bits & 2 ? "b" : "y", bits & 4 ? 1 : 2);
}

#define A "cat == \"a\""
#define B "func_name == \"b\""
#define C "io_cat == 1"

static void operator_truth_tables(void **state)
{
    (void)state;
    for (int bits = 0; bits < 8; bits++) {
        bool a = bits & 1, b = bits & 2, c = bits & 4;
        dfs_pred_row r = abc_row(bits);
        assert_int_equal(matches(A, &r), a);
        assert_int_equal(matches(A " & " B, &r), a && b);
        assert_int_equal(matches(A " and " B, &r), a && b);
        assert_int_equal(matches(A " | " B, &r), a || b);
        assert_int_equal(matches(A " or " B, &r), a || b);
        assert_int_equal(matches("~" A, &r), !a);
        assert_int_equal(matches("not " A, &r), !a);
        assert_int_equal(matches("~~" A, &r), a);
        assert_int_equal(matches("not not " A, &r), a);
        assert_int_equal(matches(A " | " B " & " C, &r), a || (b && c));
        assert_int_equal(matches(A " & " B " | " C, &r), (a && b) || c);
        assert_int_equal(matches(A " or " B " and " C, &r), a || (b && c));
        assert_int_equal(matches("~" A " & " B, &r), !a && b);
        assert_int_equal(matches("not " A " or " B, &r), !a || b);
        assert_int_equal(matches("~(" A " | " B ") & " C, &r), !(a || b) && c);
        assert_int_equal(matches("(" A " | " B ") & " C, &r), (a || b) && c);
        assert_int_equal(matches("((" A "))", &r), a);
        assert_int_equal(matches("~(" A " & ~(" B " | ~" C "))", &r), !(a && !(b || !c)));
        assert_int_equal(matches(A " & " B " & " C, &r), a && b && c);
        assert_int_equal(matches(A " | " B " | " C, &r), a || b || c);
        assert_int_equal(matches("(" A ")&(" B ")|(" C ")", &r), (a && b) || c);
        assert_int_equal(matches("cat != \"a\" | " C, &r), !a || c);
    }
}

static void comparisons(void **state)
{
    (void)state;
    for (int64_t io = 1; io <= 7; io++) {
        assert_int_equal(m3("io_cat < 3", "c", "f", io), io < 3);
        assert_int_equal(m3("io_cat <= 3", "c", "f", io), io <= 3);
        assert_int_equal(m3("io_cat > 3", "c", "f", io), io > 3);
        assert_int_equal(m3("io_cat >= 3", "c", "f", io), io >= 3);
        assert_int_equal(m3("io_cat != 3", "c", "f", io), io != 3);
        assert_int_equal(m3("io_cat.isin([1, 2, 7])", "c", "f", io), io == 1 || io == 2 || io == 7);
    }
    /* strings order by bytes, a prefix first */
    assert_true(m3("cat < \"b\"", "abc", "f", 1));
    assert_false(m3("cat < \"b\"", "b", "f", 1));
    assert_true(m3("cat <= \"b\"", "b", "f", 1));
    assert_true(m3("cat > \"b\"", "ba", "f", 1));
    assert_false(m3("cat >= \"ba\"", "b", "f", 1));
    assert_true(m3("cat != \"posix\"", "POSIX", "f", 1));

    dfs_pred_row r = make_row("c", "f", 1);
    dfs_pred_row_set_num(&r, DFS_PRED_PID, -5);
    dfs_pred_row_set_num(&r, DFS_PRED_TID, INT64_MAX);
    assert_true(matches("pid == -5", &r));
    assert_true(matches("pid.isin([-5, 3])", &r));
    assert_true(matches("pid < 0 & tid == 9223372036854775807", &r));
    assert_true(matches("pid >= -9223372036854775808", &r));
    assert_true(matches("name == 'f'", &r)); /* alias and single quotes */
}

static void string_methods(void **state)
{
    (void)state;
    const char *close = "func_name.str.contains(\".close\")";
    assert_true(m3(close, "c", "fclose", 3));
    assert_true(m3(close, "c", "xclose", 3));
    assert_true(m3(close, "c", "NPZReader.close", 3));
    assert_false(m3(close, "c", "close", 3)); /* "." needs a character before "close" */
    assert_false(m3(close, "c", "Close", 3));

    const char *posix = "cat.str.contains(\"posix|stdio\")";
    assert_true(m3(posix, "posix", "f", 1));
    assert_true(m3(posix, "stdio_reader", "f", 1));
    assert_true(m3(posix, "x_posix", "f", 1));
    assert_false(m3(posix, "POSIX", "f", 1));
    assert_false(m3(posix, "std", "f", 1));

    assert_true(m3("func_name.str.contains(\"\")", "c", "", 1));
    assert_true(m3("func_name.str.startswith(\"epoch\")", "c", "epoch", 1));
    assert_true(m3("func_name.str.startswith(\"epoch\")", "c", "epoch.1", 1));
    assert_false(m3("func_name.str.startswith(\"epoch\")", "c", "epo", 1));
    assert_false(m3("func_name.str.startswith(\"epoch\")", "c", "my_epoch", 1));
    assert_true(m3("func_name.str.startswith('')", "c", "", 1));
    /* the pattern is not a literal prefix test: "." matches anything */
    assert_false(m3("func_name.str.startswith(\"a.\")", "c", "ab", 1));
    assert_true(m3("func_name.str.contains(\"^a.$\")", "c", "ab", 1));

    /* escapes: known ones decode, unknown ones keep their backslash for the regex engine */
    assert_true(m3("func_name == \"a\\\"b\"", "c", "a\"b", 1));
    assert_true(m3("func_name == 'it\\'s'", "c", "it's", 1));
    assert_true(m3("func_name == \"a\\\\b\"", "c", "a\\b", 1));
    assert_true(m3("func_name == \"a\\tb\"", "c", "a\tb", 1));
    assert_true(m3("func_name.str.contains(\"a\\.b\")", "c", "a.b", 1));
    assert_false(m3("func_name.str.contains(\"a\\.b\")", "c", "axb", 1));
    assert_true(m3("func_name.str.contains(\"\\d+\")", "c", "read64", 1));

    /* values may hold any byte, NUL included */
    dfs_pred_row r = make_row("c", NULL, 1);
    dfs_pred_row_set_text(&r, DFS_PRED_FUNC_NAME, "a\0close", 7);
    assert_true(matches(close, &r));
    assert_false(matches("func_name == \"a\"", &r));
    assert_true(matches("func_name.str.startswith(\"a\")", &r));

    assert_true(m3("cat.isin([\"x\", \"posix\", \"a\"])", "posix", "f", 1));
    assert_false(m3("cat.isin([\"x\", \"posix\", \"a\"])", "posi", "f", 1));
    assert_true(m3("cat.isin([\"x\",])", "x", "f", 1)); /* Python's trailing comma */
}

static void other_columns(void **state)
{
    (void)state;
    dfs_pred_row r;
    dfs_pred_row_init(&r);
    dfs_pred_row_set_text(&r, DFS_PRED_FILE_NAME, "/p/lustre/data/f.h5", 19);
    dfs_pred_row_set_text(&r, DFS_PRED_PROC_NAME, "app#h1#7#8", 10);
    dfs_pred_row_set_text(&r, DFS_PRED_HOST, "h1", 2);
    dfs_pred_row_set_num(&r, DFS_PRED_ACC_PAT, 0);
    dfs_pred_row_set_num(&r, DFS_PRED_PID, 7);
    dfs_pred_row_set_num(&r, DFS_PRED_TID, 8);
    assert_true(matches("file_name.str.contains(\"/data/\") & host == \"h1\"", &r));
    assert_true(matches("proc_name.str.startswith(\"app#h1#\") & acc_pat == 0", &r));
    assert_true(matches("pid == 7 and tid == 8", &r));
    assert_false(matches("cat == \"x\"", &r)); /* cat is null */

    dfs_pred *p = parse_ok("cat == \"a\" & name.str.contains(\"x\") | io_cat > 2 | ~(pid == 1)");
    assert_int_equal(dfs_pred_columns(p), DFS_PRED_COL_BIT(DFS_PRED_CAT) | DFS_PRED_COL_BIT(DFS_PRED_FUNC_NAME) |
                                              DFS_PRED_COL_BIT(DFS_PRED_IO_CAT) | DFS_PRED_COL_BIT(DFS_PRED_PID));
    assert_false(dfs_pred_matches_all(p));
    dfs_pred_free(p);
    assert_string_equal(dfs_pred_col_name(DFS_PRED_FUNC_NAME), "func_name");
    assert_string_equal(dfs_pred_col_name(DFS_PRED_TID), "tid");
}

/* ---- nulls: SQL three-valued logic ---- */

static void nulls(void **state)
{
    (void)state;
    dfs_pred_row none = make_row(NULL, NULL, NULL_NUM);
    const char *tests[] = {
        A, "~" A, "not " A, "cat != \"a\"", "cat.isin([\"a\"])", "~cat.isin([\"a\"])",
        "cat.str.contains(\"\")", "~cat.str.contains(\"x\")", "cat.str.startswith(\"\")",
        C, "~(" C ")", "io_cat != 1", "io_cat.isin([1])", "~io_cat.isin([1])", "io_cat < 100",
    };
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++)
        assert_false(matches(tests[i], &none));

    /* cat null, func_name "b" or "y" */
    dfs_pred_row fb = make_row(NULL, "b", 1), fy = make_row(NULL, "y", 1);
    assert_false(matches(A " & " B, &fb));  /* UNKNOWN & TRUE = UNKNOWN */
    assert_false(matches(A " & " B, &fy));  /* FALSE */
    assert_false(matches("~(" A " & " B ")", &fb)); /* ~UNKNOWN */
    assert_true(matches("~(" A " & " B ")", &fy));  /* ~FALSE: b alone decides */
    assert_true(matches(A " | " B, &fb));   /* UNKNOWN | TRUE = TRUE */
    assert_false(matches(A " | " B, &fy));  /* UNKNOWN */
    assert_false(matches("~(" A " | " B ")", &fy));
    assert_false(matches("~(" A " | " B ")", &fb));
    assert_true(matches("~" A " | " B, &fb));

    /* match-all predicates match even rows with no values */
    const char *all[] = {NULL, "", "  ", "None", " None\n"};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        dfs_pred *p = parse_ok(all[i]);
        assert_true(dfs_pred_matches_all(p));
        assert_int_equal(dfs_pred_columns(p), 0);
        assert_true(dfs_pred_match(p, &none));
        dfs_pred_free(p);
    }
    assert_true(dfs_pred_parse("none", NULL) == NULL); /* only Python's spelling */
}

/* ---- parse errors and their columns ---- */

typedef struct bad_case {
    const char *text;
    size_t column;
    const char *message; /* a substring of the message */
} bad_case;

static const bad_case bad_cases[] = {
    {"cat == \"posix", 8, "unterminated string starting at column 8"},
    {"cat == 'posix\\'", 8, "unterminated string"},
    {"foo == \"x\"", 1, "unknown column 'foo' at column 1"},
    {"cat == \"a\" & func == \"x\"", 14, "unknown column 'func'"},
    {"(cat == \"a\" & pid == 1", 23, "expected ')' at column 23, found end of input"},
    {"cat.isin([\"a\"] and", 16, "expected ')' at column 16, found 'and'"},
    {"cat == \"a\" )", 12, "found ')'"},
    {"cat.isin([])", 11, "empty list in .isin() at column 11"},
    {"cat.str.contains(\"(posix\")", 25, "invalid regular expression at column 25"},
    {"cat.str.contains(\"\\ta)b\")", 22, "invalid regular expression at column 22"},
    {"cat.str.contains(\"\\.(\")", 22, "invalid regular expression at column 22"},
    {"cat.str.contains(\"a{2,1}\")", 24, "invalid regular expression"},
    {"io_cat == \"1\"", 11, "column 'io_cat' holds integers"},
    {"cat == 1", 8, "column 'cat' holds strings"},
    {"cat.isin([\"a\", 1])", 16, "column 'cat' holds strings"},
    {"pid.isin([1, 'x'])", 14, "column 'pid' holds integers"},
    {"cat == \"a\" b", 12, "at column 12, found 'b'"},
    {"cat == \"a\" & pid == 1 xyz", 23, "found 'xyz'"},
    {"cat == & pid == 1", 8, "expected a literal (a quoted string or an integer) at column 8, found '&'"},
    {"cat == ", 8, "found end of input"},
    {"func_name.str.endswith(\"x\")", 15, "unknown method '.str.endswith' at column 15"},
    {"cat.upper()", 5, "unknown method '.upper'"},
    {"cat == \"a\" && pid == 1", 12, "'&&' at column 12"},
    {"cat == \"a\" || pid == 1", 12, "'||' at column 12"},
    {"~", 2, "at column 2, found end of input"},
    {"not", 4, "found end of input"},
    {"io_cat == 1.5", 11, "invalid integer '1.5' at column 11"},
    {"io_cat == 12ab", 11, "invalid integer"},
    {"io_cat == 99999999999999999999", 11, "integer out of range"},
    {"io_cat == -9223372036854775809", 11, "integer out of range"},
    {"io_cat.str.contains(\"1\")", 8, "'io_cat' holds integers"},
    {"cat = \"a\"", 5, "'=' at column 5"},
    {"!(cat == \"a\")", 1, "'!' at column 1"},
    {"cat \"a\"", 5, "expected a comparison operator"},
    {"cat == \"a\" $", 12, "unexpected character '$' at column 12"},
    {"cat.str.contains(1)", 18, "expected a quoted string at column 18, found '1'"},
    {"and == 1", 1, "expected a column name"},
    {"\"a\" == cat", 1, "expected a column name"},
    {"cat.isin(\"a\")", 10, "expected '[' (a list)"},
    {"cat.isin([\"a\" \"b\"])", 15, "expected ',' or ']'"},
    {"cat.str", 8, "expected '.'"},
    {"cat.str.contains", 17, "expected '('"},
    {"cat.str.contains(\"a\"", 21, "expected ')'"},
    {"()", 2, "expected a column name"},
    {"cat == \"a\" & ", 14, "found end of input"},
    {"cat == \"a\" - 1", 12, "unexpected character '-'"},
    {"cat == \"\x01\"x", 11, "found 'x'"},
    {"cat == \"a\" \x80", 12, "unexpected byte 0x80"},
};

static void parse_errors_have_columns(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
        const bad_case *c = &bad_cases[i];
        dfs_pred_error err;
        dfs_pred *p = dfs_pred_parse(c->text, &err);
        if (p)
            fail_msg("'%s' parsed but should not", c->text);
        if (err.column != c->column || !strstr(err.message, c->message))
            fail_msg("'%s': got column %zu \"%s\", want column %zu \"%s\"", c->text, err.column, err.message,
                     c->column, c->message);
        assert_null(dfs_pred_parse(c->text, NULL)); /* err is optional */
    }
}

static void nesting_is_bounded(void **state)
{
    (void)state;
    /* a long flat chain is fine: it is one node */
    size_t n = 20000;
    char *chain = malloc(n * 24 + 16);
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        o += (size_t)sprintf(chain + o, "%sio_cat == %zu", i ? " | " : "", i);
    dfs_pred *p = parse_ok(chain);
    assert_true(m3(chain, "c", "f", 19999));
    dfs_pred_free(p);

    /* deep parentheses and negations are refused, not a stack overflow */
    o = 0;
    for (size_t i = 0; i < 5000; i++)
        chain[o++] = i % 2 ? '(' : '~';
    strcpy(chain + o, "cat == \"a\"");
    dfs_pred_error err;
    assert_null(dfs_pred_parse(chain, &err));
    assert_non_null(strstr(err.message, "nested too deeply"));
    assert_int_equal(err.column, 101);
    free(chain);

    /* moderate nesting works */
    assert_true(m3("((((((((((~~~~~~~~~~(cat == \"c\")))))))))))", "c", "f", 1));
}

/* Token soup: whatever parses must evaluate, whatever fails must say where. */
static void random_token_soup(void **state)
{
    (void)state;
    static const char *const toks[] = {
        "cat", "func_name", "io_cat", "pid", "name", "foo", ".", "str", "contains", "startswith", "isin",
        "(", ")", "[", "]", ",", "==", "!=", "<", ">=", "&", "|", "~", "and", "or", "not", "\"a|b\"",
        "'x'", "\"(\"", "1", "-2", "\"", "None", " ", "\\", "\"\\",
    };
    size_t ntoks = sizeof toks / sizeof *toks;
    uint64_t seed = 12345;
    dfs_pred_row r = make_row("a", "x", 1);
    size_t parsed = 0;
    for (int iter = 0; iter < 20000; iter++) {
        char text[256];
        size_t o = 0, len = 1 + (size_t)iter % 12;
        for (size_t k = 0; k < len; k++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            const char *t = toks[(seed >> 33) % ntoks];
            size_t tl = strlen(t);
            memcpy(text + o, t, tl);
            o += tl;
        }
        text[o] = '\0';
        dfs_pred_error err;
        dfs_pred *p = dfs_pred_parse(text, &err);
        if (p) {
            parsed++;
            (void)dfs_pred_match(p, &r);
            dfs_pred_free(p);
        } else {
            assert_true(err.column >= 1 && err.column <= o + 1);
            assert_true(err.message[0] != '\0');
        }
    }
    assert_true(parsed > 0);
}

/* ---- the memoising set ---- */

static const char *const cats[] = {
    "posix", "posix_reader_lustre", "stdio_checkpoint_ssd", "posix_lustre", "reader", "data_loader",
    "checkpoint", "ai_framework", "pipeline", "ai.compute", NULL,
};
static const char *const funcs[] = {
    "fclose", "close", "opendir", "open64", "lseek", "__xstat64", "read", "DLIOBenchmark.run", "loop.iter",
    "fetch.iter", "epoch_1", "TorchDataset.__getitem__", "HDF5Reader.close", "fork", "preprocess", NULL,
};
static const char *const files[] = {"/p/lustre/data/a.h5", "/ssd/ckpt", NULL};

static const char *const set_texts[] = {
    "func_name.isin([\"DLIOBenchmark.initialize\", \"DLIOBenchmark.run\"])",
    "cat == \"data_loader\" & ~func_name.isin([\"loop.iter\", \"loop.yield\"])",
    "cat == \"posix\" & func_name == \"fork\"",
    "cat.str.contains(\"posix|stdio\")",
    "cat.str.contains(\"posix|stdio\") & cat.str.contains(\"_reader\")",
    "cat.str.contains(\"posix|stdio\") & cat.str.contains(\"_checkpoint\")",
    "cat == \"reader\" or func_name == \"preprocess\"",
    "io_cat == 3 and func_name.str.contains(\"close\") and ~func_name.str.contains(\"dir\")",
    "io_cat == 3 and func_name.str.contains(\"open\") and ~func_name.str.contains(\"dir\")",
    "io_cat == 3 and func_name.str.contains(\"stat\")",
    "func_name.str.contains(\".close\")",
    "io_cat == 1 or io_cat == 2",
    "cat == \"a\" | cat.str.startswith(\"ai.\")",
    "~(file_name.str.contains(\"/data/\") & pid > 1)",
    "None",
};

static size_t pick(uint64_t *seed, size_t n)
{
    *seed = *seed * 6364136223846793005u + 1442695040888963407u;
    return (size_t)(*seed >> 33) % n;
}

typedef struct sample {
    size_t cat, func, file;
    int64_t io_cat, pid; /* NULL_NUM: null */
} sample;

static dfs_pred_row sample_row(const sample *s, uint32_t *ids)
{
    dfs_pred_row r = make_row(cats[s->cat], funcs[s->func], s->io_cat);
    if (files[s->file])
        dfs_pred_row_set_text(&r, DFS_PRED_FILE_NAME, files[s->file], strlen(files[s->file]));
    if (s->pid != NULL_NUM)
        dfs_pred_row_set_num(&r, DFS_PRED_PID, s->pid);
    memset(ids, 0, DFS_PRED_NTEXT * sizeof *ids);
    ids[DFS_PRED_CAT] = (uint32_t)s->cat + 1;
    ids[DFS_PRED_FUNC_NAME] = (uint32_t)s->func + 100;
    ids[DFS_PRED_FILE_NAME] = (uint32_t)s->file + 1000;
    return r;
}

static size_t count_distinct(const sample *s, size_t n)
{
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = memcmp(&s[i], &s[j], sizeof *s) == 0;
        distinct += !seen;
    }
    return distinct;
}

static void memo_set_matches_direct(void **state)
{
    (void)state;
    size_t n = sizeof set_texts / sizeof *set_texts;
    dfs_pred_error err;
    dfs_pred_set *memo = dfs_pred_set_new(set_texts, n, &err);
    dfs_pred_set *direct = dfs_pred_set_new(set_texts, n, &err);
    assert_non_null(memo);
    assert_non_null(direct);
    assert_int_equal(dfs_pred_set_count(memo), n);
    assert_int_equal(dfs_pred_set_columns(memo),
                     DFS_PRED_COL_BIT(DFS_PRED_CAT) | DFS_PRED_COL_BIT(DFS_PRED_FUNC_NAME) |
                         DFS_PRED_COL_BIT(DFS_PRED_FILE_NAME) | DFS_PRED_COL_BIT(DFS_PRED_IO_CAT) |
                         DFS_PRED_COL_BIT(DFS_PRED_PID));

    enum { NROWS = 4000 };
    sample *rows = calloc(NROWS, sizeof *rows);
    uint64_t seed = 42;
    for (size_t i = 0; i < NROWS; i++) {
        memset(&rows[i], 0, sizeof rows[i]);
        rows[i].cat = pick(&seed, sizeof cats / sizeof *cats);
        rows[i].func = pick(&seed, sizeof funcs / sizeof *funcs);
        rows[i].file = rows[i].cat % 3; /* correlated columns keep the number of keys small */
        size_t io = pick(&seed, 5);
        rows[i].io_cat = io == 0 ? NULL_NUM : io == 4 ? 6 : (int64_t)io;
        rows[i].pid = rows[i].func % 3 == 0 ? NULL_NUM : (int64_t)(rows[i].func % 3);
    }
    size_t distinct = count_distinct(rows, NROWS);
    assert_true(distinct < NROWS); /* the vocabulary is small enough to repeat keys */

    uint64_t seen_bits = 0;
    for (size_t i = 0; i < NROWS; i++) {
        uint32_t ids[DFS_PRED_NTEXT];
        dfs_pred_row r = sample_row(&rows[i], ids);
        uint64_t got = dfs_pred_set_eval(memo, &r, ids), want = dfs_pred_set_eval_direct(direct, &r);
        if (got != want)
            fail_msg("row %zu: memo %#llx, direct %#llx", i, (unsigned long long)got, (unsigned long long)want);
        seen_bits |= got;
        assert_true(got & (UINT64_C(1) << 14)); /* None */
    }
    assert_int_equal(seen_bits, (UINT64_C(1) << n) - 1); /* every layer matched something */

    dfs_pred_set_stats st, sd;
    dfs_pred_set_stats_get(memo, &st);
    dfs_pred_set_stats_get(direct, &sd);
    assert_int_equal(st.lookups, NROWS);
    assert_int_equal(st.misses, distinct);
    assert_int_equal(st.keys, distinct);
    assert_true(st.regex_evals <= distinct * 12); /* at most 12 regex tests in the set, per key */
    assert_true(st.regex_evals * 3 < sd.regex_evals);

    /* a second pass does no regex work at all */
    for (size_t i = 0; i < NROWS; i++) {
        uint32_t ids[DFS_PRED_NTEXT];
        dfs_pred_row r = sample_row(&rows[i], ids);
        assert_int_equal(dfs_pred_set_eval(memo, &r, ids), dfs_pred_set_eval_direct(direct, &r));
    }
    dfs_pred_set_stats st2;
    dfs_pred_set_stats_get(memo, &st2);
    assert_int_equal(st2.regex_evals, st.regex_evals);
    assert_int_equal(st2.misses, distinct);
    assert_int_equal(st2.lookups, 2 * NROWS);

    free(rows);
    dfs_pred_set_free(memo);
    dfs_pred_set_free(direct);
}

/* Many distinct integer keys make the memo grow many times; answers stay right. */
static void memo_set_grows(void **state)
{
    (void)state;
    const char *texts[] = {"pid % 2", "pid > 5000 & cat.str.contains(\"x\")"};
    dfs_pred_error err;
    assert_null(dfs_pred_set_new(texts, 2, &err));
    assert_int_equal(err.index, 0);
    assert_int_equal(err.column, 5);

    dfs_pred_set *s = dfs_pred_set_new(texts + 1, 1, &err);
    assert_non_null(s);
    uint32_t ids[DFS_PRED_NTEXT] = {7};
    for (int round = 0; round < 2; round++) {
        for (int64_t pid = 0; pid < 10000; pid++) {
            dfs_pred_row r = make_row("x", NULL, NULL_NUM);
            dfs_pred_row_set_num(&r, DFS_PRED_PID, pid);
            assert_int_equal(dfs_pred_set_eval(s, &r, ids), pid > 5000);
        }
    }
    dfs_pred_set_stats st;
    dfs_pred_set_stats_get(s, &st);
    assert_int_equal(st.keys, 10000);
    assert_int_equal(st.misses, 10000);
    assert_int_equal(st.regex_evals, 4999);

    /* a set that needs string ids but gets none still answers, directly */
    dfs_pred_row r = make_row("x", NULL, NULL_NUM);
    dfs_pred_row_set_num(&r, DFS_PRED_PID, 6000);
    assert_int_equal(dfs_pred_set_eval(s, &r, NULL), 1);
    dfs_pred_set_free(s);
}

static void set_edge_cases(void **state)
{
    (void)state;
    dfs_pred_error err;
    dfs_pred_set *empty = dfs_pred_set_new(NULL, 0, &err);
    assert_non_null(empty);
    dfs_pred_row r = make_row("a", "b", 1);
    assert_int_equal(dfs_pred_set_eval(empty, &r, NULL), 0);
    assert_int_equal(dfs_pred_set_columns(empty), 0);
    dfs_pred_set_free(empty);

    const char *many[65];
    for (size_t i = 0; i < 65; i++)
        many[i] = "io_cat == 1";
    assert_null(dfs_pred_set_new(many, 65, &err));
    assert_non_null(strstr(err.message, "at most 64"));

    /* 64 members: the top bit is usable; integer-only sets need no ids */
    char texts[64][32];
    const char *ptrs[64];
    for (int i = 0; i < 64; i++) {
        snprintf(texts[i], sizeof texts[i], "io_cat %s %d", i % 2 ? "<=" : ">=", i);
        ptrs[i] = texts[i];
    }
    dfs_pred_set *s = dfs_pred_set_new(ptrs, 64, &err);
    assert_non_null(s);
    for (int64_t io = -1; io < 70; io++) {
        dfs_pred_row row = make_row(NULL, NULL, io);
        uint64_t want = 0;
        for (int i = 0; i < 64; i++)
            if (i % 2 ? io <= i : io >= i)
                want |= UINT64_C(1) << i;
        assert_int_equal(dfs_pred_set_eval(s, &row, NULL), want);
    }
    dfs_pred_row nul = make_row(NULL, NULL, NULL_NUM);
    assert_int_equal(dfs_pred_set_eval(s, &nul, NULL), 0);
    dfs_pred_set_free(s);

    const char *bad[] = {"cat == \"a\"", "None", "cat.str.contains(\"[\")"};
    assert_null(dfs_pred_set_new(bad, 3, &err));
    assert_int_equal(err.index, 2);
    assert_int_equal(err.column, 20); /* PCRE2 reports the end of the pattern: the closing quote */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(presets_parse),
        cmocka_unit_test(presets_behave),
        cmocka_unit_test(operator_truth_tables),
        cmocka_unit_test(comparisons),
        cmocka_unit_test(string_methods),
        cmocka_unit_test(other_columns),
        cmocka_unit_test(nulls),
        cmocka_unit_test(parse_errors_have_columns),
        cmocka_unit_test(nesting_is_bounded),
        cmocka_unit_test(random_token_soup),
        cmocka_unit_test(memo_set_matches_direct),
        cmocka_unit_test(memo_set_grows),
        cmocka_unit_test(set_edge_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
