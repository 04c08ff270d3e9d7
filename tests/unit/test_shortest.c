/* test_shortest.c - the shortest round-trip digits (util/shortest.h): known digit counts from 1 to
 * 17, the digits Python's repr has on random doubles (they read back, no fewer do, and they are the
 * nearest of their length that do), every power of two against Python's repr (the 46 whose repr is
 * not correctly rounded written out, from python3), and the exact text of the three outputs built
 * on them (merge's Python and JSON floats, the tasks CSV repr, the rules table). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "output/merge/merge_internal.h"
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

/* A decimal m x 10^e: p-digit numbers, counted in units of their last place. */
typedef struct {
    uint64_t m;
    int e;
} decimal;

static decimal as_decimal(const char *digits, int decpt)
{
    decimal d = {strtoull(digits, NULL, 10), decpt - (int)strlen(digits)};
    return d;
}

static double decimal_value(decimal d)
{
    char text[48];
    snprintf(text, sizeof text, "%llue%d", (unsigned long long)d.m, d.e);
    return strtod(text, NULL);
}

/* The p-digit number next to d (m of p digits) on the other side of a from it. Down from 10^(p-1)
 * it is p nines of the decade below, whose unit is ten times finer; up from 99..9 it is 10^p. */
static decimal across(double a, decimal d, int p)
{
    if (decimal_value(d) < a) {
        d.m++;
        return d;
    }
    uint64_t low = 1;
    for (int i = 1; i < p; i++)
        low *= 10;
    if (d.m == low) {
        d.m *= 10;
        d.e--;
    }
    d.m--;
    return d;
}

static bool same_decimal(decimal x, decimal y)
{
    for (; x.m && x.m % 10 == 0; x.m /= 10)
        x.e++;
    for (; y.m && y.m % 10 == 0; y.m /= 10)
        y.e++;
    return x.m == y.m && x.e == y.e;
}

/* Do some p digits read back as a? Reading back is an interval around a, so the two p-digit
 * numbers nearest a on either side say: the correctly rounded one and its neighbour across a. */
static bool some_read_back(double a, int p)
{
    char d[24];
    int decpt;
    printf_digits(a, p, d, &decpt);
    decimal c = as_decimal(d, decpt);
    return decimal_value(c) == a || decimal_value(across(a, c, p)) == a;
}

/* Python's repr digits by their definition, checked without Python: d (n digits, no trailing zero)
 * reads back, no n - 1 digits do, and d is the nearest n-digit number that does - the correctly
 * rounded one when that reads back, else its neighbour across a. */
static void assert_python_digits(double a, const char *d, int n, int decpt)
{
    assert_true(n >= 1 && n <= 17);
    assert_int_equal(strlen(d), (size_t)n);
    assert_true(d[0] != '0' && d[n - 1] != '0');
    assert_true(reads_back(a, d, decpt));
    if (n > 1)
        assert_false(some_read_back(a, n - 1));
    char want[24];
    int want_decpt;
    printf_digits(a, n, want, &want_decpt);
    decimal c = as_decimal(want, want_decpt), got = as_decimal(d, decpt);
    assert_true(same_decimal(got, decimal_value(c) == a ? c : across(a, c, n)));
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
        /* powers of two whose correctly rounded 16 digits do not read back: the next 16 up do */
        {0x1p-24, "5960464477539063", -7},
        {0x1p+89, "6189700196426902", 27},
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

/* Random bit patterns (finite, positive): the digits are Python's repr ones, and printf's correctly
 * rounded ones (no power of two comes up); repr reads back too. */
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
        assert_python_digits(a, d, n, decpt);
        printf_digits(a, n, want, &want_decpt);
        assert_string_equal(d, want);
        assert_int_equal(decpt, want_decpt);
        char repr[DFS_PY_REPR_MAX];
        double v = bits & 1 ? -a : a;
        size_t len = dfs_py_repr_finite(v, repr);
        assert_int_equal(len, strlen(repr));
        assert_true(strtod(repr, NULL) == v);
    }
}

/* Decimals of at most 6 fractional digits and 15 significant ones (microsecond times in seconds,
 * byte counts, exact means), which take the path without printf: the same digits by definition,
 * and their neighbours one ulp away (no such decimal) by the other path. */
static void shortest_short_decimals(void **state)
{
    (void)state;
    uint64_t seed = 0x2545F4914F6CDD1Du;
    for (int i = 0; i < 100000; i++) {
        uint64_t r = next_random(&seed);
        uint64_t m = 1 + r % (i % 2 ? UINT64_C(999999999999999) : UINT64_C(99999999)); /* small ones too */
        double base = (double)m / 1e6;
        double cases[] = {base, nextafter(base, 0), nextafter(base, INFINITY)};
        for (size_t k = 0; k < 3; k++) {
            char d[18];
            int decpt, n = dfs_shortest_digits(cases[k], d, &decpt);
            assert_python_digits(cases[k], d, n, decpt);
        }
    }
}

/* The powers of two whose repr is not correctly rounded: 16 digits, one unit above the correctly
 * rounded 16, which do not read back (a power of two's lower neighbour is twice as near as its
 * upper one). From python3, over 2^-1074 .. 2^1023. */
static const struct {
    int e;
    const char *repr;
} odd_powers[] = {
    {-1017, "7.120236347223045e-307"}, {-1007, "7.291122019556398e-304"}, {-957, "8.209073602596753e-289"},
    {-921, "5.641232424577593e-278"}, {-808, "5.858190679279809e-244"}, {-791, "7.678447687145631e-239"},
    {-788, "6.142758149716505e-238"}, {-778, "6.290184345309701e-235"}, {-705, "5.940911144672375e-213"},
    {-695, "6.083493012144512e-210"}, {-662, "5.225680706521042e-200"}, {-652, "5.351097043477547e-197"},
    {-549, "5.426657103235053e-166"}, {-509, "5.966672584960166e-154"}, {-496, "4.887898181599368e-150"},
    {-489, "6.256509672447191e-148"}, {-383, "5.075883674631299e-116"}, {-366, "6.653062250012736e-111"},
    {-296, "7.854549544476363e-90"}, {-140, "7.174648137343064e-43"}, {-97, "6.310887241768095e-30"},
    {-77, "6.617444900424222e-24"}, {-44, "5.684341886080802e-14"}, {-24, "5.960464477539063e-08"},
    {89, "6.189700196426902e+26"}, {122, "5.316911983139664e+36"}, {132, "5.444517870735016e+39"},
    {172, "5.986310706507379e+51"}, {182, "6.129982163463556e+54"}, {275, "6.070840288205404e+82"},
    {305, "6.518515124270356e+91"}, {345, "7.167183174968974e+103"}, {378, "6.156563468186638e+113"},
    {398, "6.455624695217272e+119"}, {405, "8.263199609878108e+121"}, {481, "6.243497100631985e+144"},
    {534, "5.623642243178996e+160"}, {544, "5.758609657015292e+163"}, {554, "5.896816288783659e+166"},
    {574, "6.183260036827614e+172"}, {594, "6.483618076376552e+178"}, {710, "5.386379163185535e+213"},
    {803, "5.334411546303884e+241"}, {863, "6.150157786156811e+259"}, {896, "5.282945311356653e+269"},
    {976, "6.386688990511104e+293"},
};

/* The fewest correctly rounded digits that read back, by trying every count from 1 (at a power of
 * two this count is not monotonic: 15 digits of 2^-645 read back, its 16 do not). */
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

/* Every power of two, subnormal ones included: Python's repr, which is the correctly rounded
 * shortest but at the 46 above. */
static void shortest_powers_of_two(void **state)
{
    (void)state;
    size_t odd = 0, nodd = sizeof odd_powers / sizeof *odd_powers;
    for (int e = -1074; e <= 1023; e++) {
        double a = ldexp(1, e);
        char d[18], repr[DFS_PY_REPR_MAX], want[24];
        int decpt, want_decpt, n = dfs_shortest_digits(a, d, &decpt);
        assert_python_digits(a, d, n, decpt);
        if (odd < nodd && odd_powers[odd].e == e) {
            dfs_py_repr_finite(a, repr);
            assert_string_equal(repr, odd_powers[odd++].repr);
            assert_int_equal(n, 16);
            continue;
        }
        assert_int_equal(n, scanned_count(a));
        printf_digits(a, n, want, &want_decpt);
        assert_string_equal(d, want);
        assert_int_equal(decpt, want_decpt);
    }
    assert_int_equal(odd, nodd);
}

/* Python's repr of some powers of two and their neighbours, 2 ulps down to 2 ulps up, from python3. */
static void shortest_python_repr_near_powers(void **state)
{
    (void)state;
    static const struct {
        int e;
        const char *repr[5];
    } cases[] = {
        {-24, {"5.960464477539061e-08", "5.960464477539062e-08", "5.960464477539063e-08", "5.960464477539064e-08",
               "5.960464477539065e-08"}},
        {89, {"6.1897001964269e+26", "6.189700196426901e+26", "6.189700196426902e+26", "6.189700196426903e+26",
              "6.189700196426904e+26"}},
        {-1017, {"7.120236347223043e-307", "7.120236347223044e-307", "7.120236347223045e-307",
                 "7.120236347223046e-307", "7.120236347223048e-307"}},
        {976, {"6.386688990511102e+293", "6.386688990511103e+293", "6.386688990511104e+293",
               "6.386688990511105e+293", "6.386688990511106e+293"}},
        {-645, {"6.849404215651258e-195", "6.849404215651259e-195", "6.84940421565126e-195",
                "6.849404215651261e-195", "6.849404215651263e-195"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double v = nextafter(nextafter(ldexp(1, cases[i].e), 0), 0);
        for (int k = 0; k < 5; k++, v = nextafter(v, INFINITY)) {
            char repr[DFS_PY_REPR_MAX];
            dfs_py_repr_finite(v, repr);
            assert_string_equal(repr, cases[i].repr[k]);
            dfs_py_repr_finite(-v, repr);
            assert_int_equal(repr[0], '-');
            assert_string_equal(repr + 1, cases[i].repr[k]);
        }
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

/* The text each output printed before the three digit generators became one, but where Python's
 * repr differs: the tasks repr of 2^-645 had 17 digits (now Python's 15), and all four of 2^-24
 * and 2^89 had the 17 correctly rounded ones (now Python's 16, which are not). The rules table
 * spells in fixed notation what would take an exponent, within 1e-12 <= |v| < 1e18, where a fixed
 * spelling still reads; outside, the shortest text keeps its exponent. */
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
        {123456789012345678.0, "1.2345678901234568e+17", "123456789012345680", "1.2345678901234568e+17", "123,456,789,012,345,680"},
        {1e16, "1e+16", "10000000000000000", "1e+16", "10,000,000,000,000,000"},
        {1e-5, "1e-05", "0.00001", "1e-05", "0.00001000"},
        {0.0001, "0.0001", "0.0001", "0.0001", "0.0001"},
        {100.0, "100.0", "100", "100.0", "100"},
        {1e20, "1e+20", "100000000000000000000", "1e+20", "1e+20"},
        {1e22, "1e+22", "1e22", "1e+22", "1e+22"},
        {-2.5, "-2.5", "-2.5", "-2.5", "-2.5"},
        {0.0, "0.0", "0", "0.0", "0"},
        {-0.0, "-0.0", "0", "-0.0", "-0"},
        {1.5e-7, "1.5e-07", "1.5e-7", "1.5e-07", "0.0000001500"},
        {1234.5, "1234.5", "1234.5", "1234.5", "1234.5"},
        {0.1 + 0.2, "0.30000000000000004", "0.30000000000000004", "0.30000000000000004", "0.30000000000000004"},
        {0x1p-24, "5.960464477539063e-08", "5.960464477539063e-8", "5.960464477539063e-08", "0.00000005960"},
        {0x1p+89, "6.189700196426902e+26", "6.189700196426902e26", "6.189700196426902e+26", "6.189700196426902e+26"},
        {12345678.0, "12345678.0", "12345678", "12345678.0", "12345678"},
        {-0.00125, "-0.00125", "-0.00125", "-0.00125", "-0.00125"},
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
    /* NaN and infinities: json.dumps' spelling in merge, repr's in tasks, "n/a" in the rules table */
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
        assert_string_equal(text + at + 7, i < n ? cases[i].rules : "n/a");
        at += len + 1;
    }
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shortest_known_digits),
        cmocka_unit_test(shortest_random_round_trip),
        cmocka_unit_test(shortest_short_decimals),
        cmocka_unit_test(shortest_powers_of_two),
        cmocka_unit_test(shortest_python_repr_near_powers),
        cmocka_unit_test(shortest_outputs_keep_their_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
