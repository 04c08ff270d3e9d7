/* test_shortest.c - the shortest round-trip digits (util/shortest.h): known digit counts from 1 to
 * 17, the round trip and minimality on random doubles, every power of two against a plain scan of
 * the digit counts, and the exact text of the three outputs built on them (merge's Python and JSON
 * floats, the tasks CSV repr, the rules table). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "output/merge_internal.h"
#include "output/rules_report.h"
#include "output/tasks_report.h"
#include "util/shortest.h"

/* printf's p correctly rounded digits of a > 0 (no point), *decpt as dfs_shortest_digits gives it. */
static void printf_digits(double a, int p, char *digits, int *decpt)
{
    char sci[40];
    snprintf(sci, sizeof sci, "%.*e", p - 1, a);
    int k = 0;
    const char *q = sci;
    for (; *q != 'e'; q++)
        if (*q != '.')
            digits[k++] = *q;
    digits[k] = '\0';
    *decpt = atoi(q + 1) + 1;
}

/* Does 0.digits x 10^decpt read back as a? */
static bool reads_back(double a, const char *digits, int decpt)
{
    char text[48];
    snprintf(text, sizeof text, "0.%se%d", digits, decpt);
    return strtod(text, NULL) == a;
}

/* The fewest correctly rounded digits that read back, by trying every count from 1. */
static int scanned_count(double a)
{
    char d[24];
    int decpt, p = 1;
    for (; p < 17; p++) {
        printf_digits(a, p, d, &decpt);
        if (reads_back(a, d, decpt))
            break;
    }
    return p;
}

static void shortest_known_digits(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *digits;
        int decpt;
    } cases[] = {
        {0.1, "1", 0},
        {0.3, "3", 0},
        {1 / 3.0, "3333333333333333", 0},
        {2 / 3.0, "6666666666666666", 0},
        {0.1 + 0.2, "30000000000000004", 0},
        {0.123456789012345, "123456789012345", 0},
        {5e-324, "5", -323},
        {DBL_MAX, "17976931348623157", 309},
        {DBL_MIN, "22250738585072014", -307},
        {123456789012345678.0, "12345678901234568", 18},
        {1e16, "1", 17},
        {1e17, "1", 18},
        {1e-5, "1", -4},
        {0.0001, "1", -3},
        {100.0, "1", 3},
        {1e22, "1", 23},
        {1234.5, "12345", 4},
        /* a power of two: its 15 digits read back, its 16 do not */
        {0x1p-645, "684940421565126", -194},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char d[18];
        int decpt, n = dfs_shortest_digits(cases[i].v, d, &decpt);
        assert_string_equal(d, cases[i].digits);
        assert_int_equal(n, (int)strlen(cases[i].digits));
        assert_int_equal(decpt, cases[i].decpt);
    }
}

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random bit patterns (finite, positive): the digits read back, are printf's correctly rounded
 * ones, have no trailing zero, and one digit fewer does not read back; repr reads back too. */
static void shortest_random_round_trip(void **state)
{
    (void)state;
    uint64_t seed = 0x9E3779B97F4A7C15u;
    for (int i = 0; i < 100000; i++) {
        uint64_t bits = next_random(&seed) & ~(UINT64_C(1) << 63);
        double a;
        memcpy(&a, &bits, sizeof a);
        if (!isfinite(a) || a == 0) {
            i--;
            continue;
        }
        char d[18], want[24];
        int decpt, want_decpt, n = dfs_shortest_digits(a, d, &decpt);
        assert_true(n >= 1 && n <= 17);
        assert_int_equal(strlen(d), (size_t)n);
        assert_true(n == 1 || d[n - 1] != '0');
        assert_true(reads_back(a, d, decpt));
        printf_digits(a, n, want, &want_decpt);
        assert_string_equal(d, want);
        assert_int_equal(decpt, want_decpt);
        if (n > 1) {
            printf_digits(a, n - 1, want, &want_decpt);
            assert_false(reads_back(a, want, want_decpt));
        }
        char repr[DFS_PY_REPR_MAX];
        double v = bits & 1 ? -a : a;
        size_t len = dfs_py_repr_finite(v, repr);
        assert_int_equal(len, strlen(repr));
        assert_true(strtod(repr, NULL) == v);
    }
}

/* At a power of two reading back is not monotonic in the digit count (the lower neighbour is
 * nearer): every one, subnormal ones included, against a scan from one digit up. */
static void shortest_powers_of_two(void **state)
{
    (void)state;
    for (int e = -1074; e <= 1023; e++) {
        double a = ldexp(1, e);
        char d[18];
        int decpt;
        assert_int_equal(dfs_shortest_digits(a, d, &decpt), scanned_count(a));
        assert_true(reads_back(a, d, decpt));
    }
}

/* The rules table's text of each value: the "v: ..." lines of one rule's details. */
static char *rules_text(const double *v, size_t n)
{
    dfs_rv kids[32] = {{0}}, obj = {.type = DFS_RV_OBJ};
    assert_true(n <= 32);
    for (size_t i = 0; i < n; i++) {
        kids[i].type = DFS_RV_NUM;
        kids[i].key = "v";
        kids[i].as.d = v[i];
        if (i)
            kids[i - 1].next = &kids[i];
        obj.n++;
    }
    obj.head = &kids[0];
    obj.tail = &kids[n - 1];
    dfs_rule_result rule = {.name = "r", .evaluated = true, .parameters = "", .details = &obj, .summary = ""};
    dfs_rules_result res = {.rules = &rule, .nrules = 1};
    /* a temporary file, not open_memstream: gcc takes the pointer that the latter fills in for one
     * into this frame and warns of a dangling pointer in the caller */
    FILE *f = tmpfile();
    assert_non_null(f);
    dfs_rules_write_text(f, &res);
    long len = ftell(f);
    assert_true(len > 0);
    char *text = malloc((size_t)len + 1);
    assert_non_null(text);
    rewind(f);
    assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
    text[len] = '\0';
    fclose(f);
    return text;
}

/* The text each output printed before the three digit generators became one (all but the tasks
 * repr of 2^-645, which had 17 digits and now has Python's 15). */
static void shortest_outputs_keep_their_text(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *py, *json, *tasks, *rules;
    } cases[] = {
        {0.1, "0.1", "0.1", "0.1", "0.1"},
        {1 / 3.0, "0.3333333333333333", "0.3333333333333333", "0.3333333333333333", "0.3333333333333333"},
        {5e-324, "5e-324", "5e-324", "5e-324", "5e-324"},
        {DBL_MAX, "1.7976931348623157e+308", "1.7976931348623157e308", "1.7976931348623157e+308", "1.7976931348623157e+308"},
        {DBL_MIN, "2.2250738585072014e-308", "2.2250738585072014e-308", "2.2250738585072014e-308", "2.2250738585072014e-308"},
        {123456789012345678.0, "1.2345678901234568e+17", "123456789012345680", "1.2345678901234568e+17", "1.2345678901234568e+17"},
        {1e16, "1e+16", "10000000000000000", "1e+16", "1e+16"},
        {1e-5, "1e-05", "0.00001", "1e-05", "1e-05"},
        {0.0001, "0.0001", "0.0001", "0.0001", "0.0001"},
        {100.0, "100.0", "100", "100.0", "1e+02"},
        {1e20, "1e+20", "100000000000000000000", "1e+20", "1e+20"},
        {1e22, "1e+22", "1e22", "1e+22", "1e+22"},
        {-2.5, "-2.5", "-2.5", "-2.5", "-2.5"},
        {0.0, "0.0", "0", "0.0", "0"},
        {-0.0, "-0.0", "0", "-0.0", "-0"},
        {1.5e-7, "1.5e-07", "1.5e-7", "1.5e-07", "1.5e-07"},
        {1234.5, "1234.5", "1234.5", "1234.5", "1234.5"},
        {0.1 + 0.2, "0.30000000000000004", "0.30000000000000004", "0.30000000000000004", "0.30000000000000004"},
        {0x1p-24, "5.9604644775390625e-08", "5.9604644775390625e-8", "5.9604644775390625e-08", "5.9604644775390625e-08"},
        {0x1p-645, "6.84940421565126e-195", "6.84940421565126e-195", "6.84940421565126e-195", "6.84940421565126e-195"},
    };
    size_t n = sizeof cases / sizeof *cases;
    double v[32];
    char buf[64];
    for (size_t i = 0; i < n; i++) {
        v[i] = cases[i].v;
        mpy_float(cases[i].v, buf);
        assert_string_equal(buf, cases[i].py);
        mjson_float(cases[i].v, buf);
        assert_string_equal(buf, cases[i].json);
        assert_int_equal(dfs_py_float_repr(cases[i].v, buf, sizeof buf), strlen(cases[i].tasks));
        assert_string_equal(buf, cases[i].tasks);
    }
    /* NaN and infinities: json.dumps' spelling in merge, repr's in tasks, "nan" in the rules table */
    static const double odd[] = {NAN, INFINITY, -INFINITY};
    static const char *const py[] = {"NaN", "Infinity", "-Infinity"}, *const tasks[] = {"nan", "inf", "-inf"};
    for (size_t i = 0; i < 3; i++) {
        mpy_float(odd[i], buf);
        assert_string_equal(buf, py[i]);
        dfs_py_float_repr(odd[i], buf, sizeof buf);
        assert_string_equal(buf, tasks[i]);
        v[n + i] = odd[i];
    }
    char *text = rules_text(v, n + 3);
    const char *details = strstr(text, "  details:\n");
    assert_non_null(details);
    size_t at = (size_t)(details - text) + strlen("  details:\n");
    for (size_t i = 0; i < n + 3; i++) {
        size_t len = strcspn(text + at, "\n");
        assert_int_equal(text[at + len], '\n');
        text[at + len] = '\0';
        assert_int_equal(strncmp(text + at, "    v: ", 7), 0);
        assert_string_equal(text + at + 7, i < n ? cases[i].rules : "nan");
        at += len + 1;
    }
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shortest_known_digits),
        cmocka_unit_test(shortest_random_round_trip),
        cmocka_unit_test(shortest_powers_of_two),
        cmocka_unit_test(shortest_outputs_keep_their_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
