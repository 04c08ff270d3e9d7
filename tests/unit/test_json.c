/* test_json.c - the tolerant JSON primitives (src/parse/json.c, json.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "parse/json.h"

/* ---- a parser context for the value tests -------------------------------------------------- */

typedef struct fixture {
    tu_parser t;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    tu_parser_init(&f->t, 0);
    f->t.p.st = NULL; /* the value tests need no stream */
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    tu_parser_free(&f->t);
    free(f);
    return 0;
}

static const char *text_of(fixture *f, dfs_str s)
{
    return dfs_strtab_get(f->t.table, s, NULL);
}

/* ---- strings ------------------------------------------------------------------------------- */

/* Scans a JSON string literal given as C text; returns the body length (-1 when it fails). */
static long scan(const char *lit, bool lenient, unsigned *flags)
{
    size_t n = strlen(lit);
    *flags = 0;
    const char *e = dfs_json_string_end(lit, lit + n, lenient, flags);
    return e ? (long)(e - lit - 2) : -1;
}

static void test_string_end_plain(void **state)
{
    (void)state;
    unsigned fl;
    assert_int_equal(scan("\"abc\"", false, &fl), 3);
    assert_int_equal(fl, 0);
    assert_int_equal(scan("\"\"", false, &fl), 0);
    assert_int_equal(scan("\"a long string that crosses sixteen bytes\"", false, &fl), 40);
    assert_int_equal(scan("\"unterminated", false, &fl), -1);
    /* the string ends at its first unescaped quote, whatever follows */
    assert_int_equal(scan("\"ab\"cd\"", false, &fl), 2);
}

static void test_string_end_escapes(void **state)
{
    (void)state;
    unsigned fl;
    assert_int_equal(scan("\"a\\\"b\"", false, &fl), 4);
    assert_true(fl & DFS_JF_ESCAPES);
    assert_int_equal(scan("\"\\\\\"", false, &fl), 2);
    assert_int_equal(scan("\"\\u00e9\\n\"", false, &fl), 8);
    /* an invalid escape fails strictly, is kept leniently */
    assert_int_equal(scan("\"C:\\path\"", false, &fl), -1);
    assert_int_equal(scan("\"C:\\path\"", true, &fl), 7);
    assert_true(fl & DFS_JF_REPAIRED);
    assert_int_equal(scan("\"\\u12\"", false, &fl), -1);
    /* an escape cut by the end of the range */
    assert_int_equal(scan("\"ab\\", false, &fl), -1);
}

static void test_string_control_and_utf8(void **state)
{
    (void)state;
    unsigned fl;
    assert_int_equal(scan("\"a\tb\"", false, &fl), 3);
    assert_int_equal(fl, DFS_JF_CONTROL);
    assert_int_equal(scan("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"", false, &fl), 14);
    assert_int_equal(fl, 0);
    const char *bad[] = {
        "\"\xff\"",             /* never valid */
        "\"\xc0\x80\"",         /* overlong NUL */
        "\"\xed\xa0\x80\"",     /* a surrogate encoded in UTF-8 */
        "\"\xe2\x82\"",         /* cut sequence */
        "\"\xf4\x90\x80\x80\"", /* beyond U+10FFFF */
        "\"a\x80z\"",           /* lone continuation byte */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_true(scan(bad[i], false, &fl) >= 0);
        assert_true(fl & DFS_JF_BAD_UTF8);
    }
}

static void test_string_lenient_quotes(void **state)
{
    (void)state;
    unsigned fl;
    /* a quote not followed by , } ] : is literal in lenient mode */
    const char *t = "\"say \"hi\" now\",";
    const char *e = dfs_json_string_end(t, t + strlen(t), true, &fl);
    assert_non_null(e);
    assert_int_equal(*e, ',');
    assert_true(fl & DFS_JF_REPAIRED);
    /* a quote at the end of the range closes */
    assert_int_equal(scan("\"abc\"", true, &fl), 3);
    assert_int_equal(fl, 0);
}

static void test_string_fast_matches_full(void **state)
{
    (void)state;
    const char *cases[] = {"\"short\"", "\"sixteen bytes!!!\"", "\"a\\\"b\" and more padding text",
                           "\"x\x01y\" padding padding padding", "\"\xc3\xa9t\xc3\xa9\"         ",
                           "\"no end at all"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *s = cases[i], *end = s + strlen(s);
        unsigned f1 = 0, f2 = 0;
        const char *a = dfs_json_string_end(s, end, false, &f1);
        const char *b = dfs_json_string_end_fast(s, end, end, false, &f2);
        assert_ptr_equal(a, b);
        assert_int_equal(f1, f2);
    }
    /* a quote beyond the range end is not the end, even when it can be read */
    const char *s = "\"abc\"defghijklmnopqrstuvwxyz";
    unsigned fl = 0;
    assert_null(dfs_json_string_end_fast(s, s + 3, s + strlen(s), false, &fl));
}

static size_t unescape(const char *body, char *out)
{
    return dfs_json_unescape(body, strlen(body), out);
}

static void test_unescape(void **state)
{
    (void)state;
    char out[64];
    size_t n = unescape("a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t", out);
    assert_int_equal(n, 12);
    assert_memory_equal(out, "a\"b\\c/d\b\f\n\r\t", 12);
    n = unescape("\\u0041\\u00e9\\u20ac", out);
    assert_int_equal(n, 1 + 2 + 3);
    assert_memory_equal(out, "A\xc3\xa9\xe2\x82\xac", n);
    n = unescape("\\ud83d\\ude00", out); /* a surrogate pair: U+1F600 */
    assert_int_equal(n, 4);
    assert_memory_equal(out, "\xf0\x9f\x98\x80", 4);
    n = unescape("\\ud800x", out); /* a lone surrogate */
    assert_int_equal(n, 4);
    assert_memory_equal(out, "\xef\xbf\xbdx", 4);
    n = unescape("\\ude00", out);
    assert_memory_equal(out, "\xef\xbf\xbd", n);
    n = unescape("C:\\path\\u12", out); /* invalid escapes stay as bytes */
    assert_int_equal(n, 11);
    assert_memory_equal(out, "C:\\path\\u12", 11);
    n = unescape("end\\", out);
    assert_memory_equal(out, "end\\", n);
}

static void test_intern_decodes(void **state)
{
    fixture *f = *state;
    const char *body = "tab\\there";
    dfs_str a = dfs_json_intern(&f->t.p, body, strlen(body), DFS_JF_ESCAPES);
    assert_string_equal(text_of(f, a), "tab\there");
    dfs_str b = dfs_json_intern(&f->t.p, "tab\there", 8, 0);
    assert_int_equal(a, b);
    assert_int_equal(dfs_json_intern(&f->t.p, "", 0, 0), 0);
}

/* ---- numbers ------------------------------------------------------------------------------- */

static dfs_value number(const char *text, unsigned *flags)
{
    dfs_jnum n;
    const char *end = text + strlen(text);
    const char *e = dfs_json_number(text, end, &n);
    assert_ptr_equal(e, end);
    dfs_value v;
    *flags = 0;
    dfs_jnum_value(&n, &v, flags);
    return v;
}

static void test_number_integers(void **state)
{
    (void)state;
    unsigned fl;
    dfs_value v = number("0", &fl);
    assert_int_equal(v.type, DFS_V_INT);
    assert_int_equal(v.as.i, 0);
    v = number("-1", &fl);
    assert_int_equal(v.as.i, -1);
    v = number("9223372036854775807", &fl);
    assert_int_equal(v.type, DFS_V_INT);
    assert_true(v.as.i == INT64_MAX);
    v = number("9223372036854775808", &fl);
    assert_int_equal(v.type, DFS_V_UINT);
    assert_true(v.as.u == UINT64_C(9223372036854775808));
    v = number("17427260559328612924", &fl); /* the largest hash in the DLIO corpus */
    assert_int_equal(v.type, DFS_V_UINT);
    assert_true(v.as.u == UINT64_C(17427260559328612924));
    assert_int_equal(fl, 0);
    v = number("18446744073709551615", &fl);
    assert_true(v.as.u == UINT64_MAX);
    assert_int_equal(v.flags, 0);
    v = number("-9223372036854775808", &fl);
    assert_int_equal(v.type, DFS_V_INT);
    assert_true(v.as.i == INT64_MIN);
    assert_int_equal(fl, 0);
}

static void test_number_overflow(void **state)
{
    (void)state;
    unsigned fl;
    dfs_value v = number("18446744073709551616", &fl);
    assert_int_equal(v.type, DFS_V_UINT);
    assert_true(v.as.u == UINT64_MAX);
    assert_true(v.flags & DFS_VF_SATURATED);
    assert_true(fl & DFS_JF_INT_OVERFLOW);
    v = number("123456789012345678901234567890", &fl);
    assert_true(v.as.u == UINT64_MAX);
    assert_true(fl & DFS_JF_INT_OVERFLOW);
    v = number("-9223372036854775809", &fl);
    assert_true(v.as.i == INT64_MIN);
    assert_true(v.flags & DFS_VF_SATURATED);
    assert_true(fl & DFS_JF_INT_OVERFLOW);
}

static void test_number_floats_and_nonfinite(void **state)
{
    (void)state;
    unsigned fl;
    dfs_value v = number("1.5", &fl);
    assert_int_equal(v.type, DFS_V_FLOAT);
    assert_true(v.as.f == 1.5);
    v = number("-2.5e3", &fl);
    assert_true(v.as.f == -2500.0);
    v = number("1E-2", &fl);
    assert_true(fabs(v.as.f - 0.01) < 1e-15);
    v = number("68.0", &fl);
    assert_true(v.as.f == 68.0);
    v = number("1712195495519689.047", &fl); /* more digits than a fast double path */
    assert_true(fabs(v.as.f - 1712195495519689.047) < 1.0);
    v = number("NaN", &fl);
    assert_true(isnan(v.as.f));
    assert_true(fl & DFS_JF_NONFINITE);
    v = number("Infinity", &fl);
    assert_true(isinf(v.as.f) && v.as.f > 0);
    v = number("-Infinity", &fl);
    assert_true(isinf(v.as.f) && v.as.f < 0);
    assert_true(fl & DFS_JF_NONFINITE);
}

static void test_number_malformed(void **state)
{
    (void)state;
    const char *bad[] = {"-", "1x", "--1", "1e", "1e+", "e5", ".", "-.", "Inf", "nan", "-NaN",
                         "1.2.3x", "tru"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        dfs_jnum n;
        const char *end = bad[i] + strlen(bad[i]);
        const char *e = dfs_json_number(bad[i], end, &n);
        assert_true(e == NULL || e != end);
    }
    /* a number stops at a delimiter */
    dfs_jnum n;
    const char *t = "42,";
    assert_ptr_equal(dfs_json_number(t, t + 3, &n), t + 2);
    assert_true(n.is_int && n.mag == 42);
    assert_true(dfs_json_is_number_text("-0.5e-3", 7));
    assert_false(dfs_json_is_number_text(" 1", 2));
    assert_false(dfs_json_is_number_text("NaN", 3));
}

static void test_string_number(void **state)
{
    (void)state;
    dfs_value v;
    unsigned fl = 0;
    assert_true(dfs_json_string_number("3276800", 7, &v, &fl));
    assert_int_equal(v.type, DFS_V_INT);
    assert_int_equal(v.as.i, 3276800);
    assert_true(v.flags & DFS_VF_FROM_STRING);
    assert_true(dfs_json_string_number("-1", 2, &v, &fl));
    assert_int_equal(v.as.i, -1);
    assert_true(dfs_json_string_number("1.25", 4, &v, &fl));
    assert_int_equal(v.type, DFS_V_FLOAT);
    assert_true(v.flags & DFS_VF_FROM_STRING);
    const char *not_numbers[] = {"", "Spans", "stream 7", " 1", "1 ", "NaN", "0x10", "1e"};
    for (size_t i = 0; i < sizeof not_numbers / sizeof *not_numbers; i++)
        assert_false(dfs_json_string_number(not_numbers[i], strlen(not_numbers[i]), &v, &fl));
}

static void test_hex(void **state)
{
    (void)state;
    uint64_t h;
    assert_true(dfs_json_hex_u64("8e0caa2d595b2a4d", 16, &h));
    assert_true(h == UINT64_C(0x8e0caa2d595b2a4d));
    assert_true(dfs_json_hex_u64("0x402", 5, &h));
    assert_true(h == 0x402);
    assert_true(dfs_json_hex_u64("FFFFFFFFFFFFFFFF", 16, &h));
    assert_true(h == UINT64_MAX);
    assert_false(dfs_json_hex_u64("", 0, &h));
    assert_false(dfs_json_hex_u64("12345678901234567", 17, &h));
    assert_false(dfs_json_hex_u64("xyz", 3, &h));
    assert_false(dfs_json_hex_u64("0x", 2, &h));
    /* the 16-digit fast path: every byte value in every position, against a digit-by-digit reading */
    char text[17] = "1123456789abcdef"; /* one changed byte cannot make a "0x" prefix */
    for (int pos = 0; pos < 16; pos++) {
        for (int c = 0; c < 256; c++) {
            char t[17];
            memcpy(t, text, 17);
            t[pos] = (char)c;
            uint64_t want = 0;
            bool valid = true;
            for (int i = 0; i < 16; i++) {
                unsigned char d = (unsigned char)t[i];
                int v = d >= '0' && d <= '9' ? d - '0' : d >= 'a' && d <= 'f' ? d - 'a' + 10
                      : d >= 'A' && d <= 'F' ? d - 'A' + 10 : -1;
                valid &= v >= 0;
                want = want << 4 | (uint64_t)(v & 15);
            }
            bool got = dfs_json_hex_u64(t, 16, &h);
            assert_int_equal(got, valid);
            if (valid)
                assert_true(h == want);
        }
    }
    assert_true(dfs_json_hex_u64("0000000000000000", 16, &h) && h == 0);
    assert_true(dfs_json_hex_u64("aBcDeF0123456789", 16, &h) && h == UINT64_C(0xabcdef0123456789));
}

/* ---- exact time ------------------------------------------------------------------------------ */

typedef struct time_case {
    const char *text;
    unsigned scale;
    dfs_time_status status;
    int64_t ns;
} time_case;

static void test_time_exact(void **state)
{
    (void)state;
    static const time_case cases[] = {
        {"1698080323775554", 3, DFS_TIME_OK, INT64_C(1698080323775554000)},
        {"1712195495519689.047", 3, DFS_TIME_OK, INT64_C(1712195495519689047)},
        {"4203669604595.407", 3, DFS_TIME_OK, INT64_C(4203669604595407)},
        {"1591160699.4570894", 9, DFS_TIME_OK, INT64_C(1591160699457089400)},
        {"68.0", 3, DFS_TIME_OK, 68000},
        {"68", 3, DFS_TIME_OK, 68000},
        {"0", 3, DFS_TIME_OK, 0},
        {"-0", 3, DFS_TIME_OK, 0},
        {"1.5e3", 3, DFS_TIME_OK, 1500000},
        {"15E+2", 0, DFS_TIME_OK, 1500},
        {"1e-3", 3, DFS_TIME_OK, 1},
        {"2500e-3", 0, DFS_TIME_OK, 3},
        {"0.000000000000000000000000000000000015e36", 0, DFS_TIME_OK, 15},
        {"123456789012345678901234567890e-20", 0, DFS_TIME_OK, 1234567890},
        {"+5", 3, DFS_TIME_OK, 5000},
        {".5", 3, DFS_TIME_OK, 500},
        {"9223372036854775807", 0, DFS_TIME_OK, INT64_MAX},
        {"-9223372036854775808", 0, DFS_TIME_OK, INT64_MIN},
        {"9223372036854775.807", 3, DFS_TIME_OK, INT64_MAX},
        {"1e-400", 0, DFS_TIME_OK, 0},
        {"9223372036854775808", 0, DFS_TIME_OVERFLOW, 0},
        {"-9223372036854775809", 0, DFS_TIME_OVERFLOW, 0},
        {"9223372036854775.808", 3, DFS_TIME_OVERFLOW, 0},
        {"12345678901234567", 3, DFS_TIME_OVERFLOW, 0},
        {"1e400", 0, DFS_TIME_OVERFLOW, 0},
        {"99999999999", 9, DFS_TIME_OVERFLOW, 0},
        {"", 3, DFS_TIME_INVALID, 0},
        {"abc", 3, DFS_TIME_INVALID, 0},
        {"1.2.3", 3, DFS_TIME_INVALID, 0},
        {"NaN", 3, DFS_TIME_INVALID, 0},
        {"1e", 3, DFS_TIME_INVALID, 0},
        {"-", 3, DFS_TIME_INVALID, 0},
        {" 1", 3, DFS_TIME_INVALID, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int64_t ns = -12345;
        dfs_time_status st = dfs_json_time_ns(cases[i].text, strlen(cases[i].text),
                                               cases[i].scale, &ns);
        if (st != cases[i].status || (st == DFS_TIME_OK && ns != cases[i].ns))
            fail_msg("%s (scale %u): status %d ns %lld, want %d %lld", cases[i].text,
                     cases[i].scale, st, (long long)ns, cases[i].status, (long long)cases[i].ns);
    }
}

static void test_time_rounding(void **state)
{
    (void)state;
    /* digits beyond the unit round half away from zero */
    static const time_case cases[] = {
        {"0.0005", 3, DFS_TIME_OK, 1},      {"0.0004999", 3, DFS_TIME_OK, 0},
        {"-0.0005", 3, DFS_TIME_OK, -1},    {"-0.0004999", 3, DFS_TIME_OK, 0},
        {"2.5", 0, DFS_TIME_OK, 3},         {"-2.5", 0, DFS_TIME_OK, -3},
        {"1.49999999", 0, DFS_TIME_OK, 1},  {"1.5000000001", 0, DFS_TIME_OK, 2},
        {"0.9999995", 6, DFS_TIME_OK, 1000000}, {"1.0000004", 6, DFS_TIME_OK, 1000000},
        {"1e-6", 3, DFS_TIME_OK, 0},        {"5e-4", 3, DFS_TIME_OK, 1},
        {"9223372036854775.8074", 3, DFS_TIME_OK, INT64_MAX},
        {"9223372036854775.8075", 3, DFS_TIME_OVERFLOW, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int64_t ns = 0;
        dfs_time_status st = dfs_json_time_ns(cases[i].text, strlen(cases[i].text),
                                               cases[i].scale, &ns);
        if (st != cases[i].status || (st == DFS_TIME_OK && ns != cases[i].ns))
            fail_msg("%s (scale %u): status %d ns %lld, want %lld", cases[i].text,
                     cases[i].scale, st, (long long)ns, (long long)cases[i].ns);
    }
}

/* A reference with 128-bit integers: D digits, f of them after the point, exponent x. */
static bool reference_ns(const char *digits, int frac, int x, unsigned scale, bool neg,
                         __int128 *out)
{
    __int128 d = 0;
    for (const char *c = digits; *c; c++)
        d = d * 10 + (*c - '0');
    int k = x - frac + (int)scale;
    for (; k > 0; k--)
        d *= 10;
    if (k < 0) {
        __int128 p = 1;
        for (; k < 0; k++)
            p *= 10;
        __int128 q = d / p, rem = d % p;
        d = q + (2 * rem >= p);
    }
    *out = neg ? -d : d;
    return true;
}

static void test_time_random_against_reference(void **state)
{
    (void)state;
    unsigned seed = 12345;
    for (int iter = 0; iter < 20000; iter++) {
        char digits[24], text[64];
        seed = seed * 1103515245 + 12345;
        int nd = 1 + (int)(seed >> 16) % 18;
        for (int i = 0; i < nd; i++) {
            seed = seed * 1103515245 + 12345;
            digits[i] = (char)('0' + (seed >> 16) % 10);
        }
        digits[nd] = '\0';
        seed = seed * 1103515245 + 12345;
        int frac = (int)(seed >> 16) % (nd + 1);
        int x = (int)((seed >> 8) % 9) - 4;
        bool neg = (seed >> 4) & 1;
        static const unsigned scales[3] = {0, 3, 9};
        unsigned scale = scales[(seed >> 12) % 3];
        int o = snprintf(text, sizeof text, "%s%.*s%s%s", neg ? "-" : "", nd - frac, digits,
                         frac ? "." : "", digits + nd - frac);
        if (x)
            snprintf(text + o, sizeof text - (size_t)o, "e%d", x);
        __int128 want;
        reference_ns(digits, frac, x, scale, neg, &want);
        int64_t got = 0;
        dfs_time_status st = dfs_json_time_ns(text, strlen(text), scale, &got);
        bool fits = want <= INT64_MAX && want >= INT64_MIN;
        if (fits ? (st != DFS_TIME_OK || got != (int64_t)want) : st != DFS_TIME_OVERFLOW)
            fail_msg("%s scale %u: status %d got %lld", text, scale, st, (long long)got);
    }
}

/* ---- fast digit runs ------------------------------------------------------------------------ */

static void test_digit_runs(void **state)
{
    (void)state;
    char buf[64];
    unsigned seed = 99;
    for (int iter = 0; iter < 20000; iter++) {
        seed = seed * 1103515245 + 12345;
        int nd = 1 + (int)(seed >> 16) % 21;
        for (int i = 0; i < nd; i++) {
            seed = seed * 1103515245 + 12345;
            buf[i] = (char)('0' + (seed >> 16) % 10);
        }
        buf[nd] = (seed & 1) ? ',' : '}';
        memset(buf + nd + 1, 'x', sizeof buf - (size_t)nd - 1);
        char *endp;
        char tmp[32];
        memcpy(tmp, buf, (size_t)nd);
        tmp[nd] = '\0';
        errno = 0;
        unsigned long long want = strtoull(tmp, &endp, 10);
        bool fits = errno == 0;
        uint64_t v = 0;
        unsigned n16 = dfs_digits16(buf, &v);
        if (nd <= 16) {
            assert_int_equal(n16, nd);
            assert_true(v == want);
        } else {
            assert_int_equal(n16, 0);
        }
        unsigned n20 = dfs_digits20(buf, &v);
        if (nd <= 20 && fits) {
            assert_int_equal(n20, nd);
            assert_true(v == want);
        } else {
            assert_int_equal(n20, 0);
        }
        const char *e = dfs_json_digits(buf, buf + sizeof buf, &v);
        if (nd <= 19) {
            assert_ptr_equal(e, buf + nd);
            assert_true(v == want);
        }
    }
    assert_int_equal(dfs_digits16(",123456789012345", &(uint64_t){0}), 0);
}

/* ---- skipping and values ------------------------------------------------------------------- */

static const char *skip_text(const char *t, bool lenient, unsigned *flags)
{
    *flags = 0;
    return dfs_json_skip(t, t + strlen(t), lenient, flags);
}

static void test_skip(void **state)
{
    (void)state;
    unsigned fl;
    const char *t = "{\"a\":[1,{\"b\":\"}]\"}],\"c\":null} tail";
    const char *e = skip_text(t, false, &fl);
    assert_non_null(e);
    assert_string_equal(e, " tail");
    t = "[[[[]]]],";
    assert_string_equal(skip_text(t, false, &fl), ",");
    t = "\"x\\\"y\"z";
    assert_string_equal(skip_text(t, false, &fl), "z");
    assert_string_equal(skip_text("true}", false, &fl), "}");
    assert_string_equal(skip_text("null,", false, &fl), ",");
    assert_string_equal(skip_text("-1.5e3]", false, &fl), "]");
    assert_null(skip_text("{\"a\":1", false, &fl));
    assert_null(skip_text("[\"unterminated]", false, &fl));
    assert_null(skip_text("tru", false, &fl));
    assert_null(skip_text("", false, &fl));
    /* string damage inside a skipped value is still reported */
    skip_text("{\"a\":\"\x01\"}", false, &fl);
    assert_true(fl & DFS_JF_CONTROL);
    /* a long container crosses many vector blocks */
    char big[16384];
    size_t o = 0;
    big[o++] = '[';
    for (int i = 0; i < 300; i++)
        o += (size_t)snprintf(big + o, sizeof big - o, "{\"k%d\":\"v}]%d\"},", i, i);
    big[o - 1] = ']';
    big[o] = '\0';
    assert_ptr_equal(skip_text(big, false, &fl), big + o);
}

static const dfs_arg *item(const dfs_value *v, size_t i)
{
    assert_true(i < v->len);
    return &v->as.items[i];
}

static void test_value_nested(void **state)
{
    fixture *f = *state;
    const char *t = "{\"a\":[1,\"two\",3.5,true,false,null],\"b\":{\"c\":\"7\"},\"d\":[]} rest";
    dfs_value v;
    unsigned fl = 0;
    const char *e = dfs_json_value(&f->t.p, t, t + strlen(t), DFS_JV_NUMSTR, 0, &v, &fl);
    assert_non_null(e);
    assert_string_equal(e, " rest");
    assert_int_equal(v.type, DFS_V_MAP);
    assert_int_equal(v.len, 3);
    const dfs_arg *a = item(&v, 0);
    assert_string_equal(text_of(f, a->key), "a");
    assert_int_equal(a->val.type, DFS_V_LIST);
    assert_int_equal(a->val.len, 6);
    assert_int_equal(item(&a->val, 0)->val.type, DFS_V_INT);
    assert_int_equal(item(&a->val, 0)->key, 0);
    assert_string_equal(text_of(f, item(&a->val, 1)->val.as.s), "two");
    assert_true(item(&a->val, 2)->val.as.f == 3.5);
    assert_int_equal(item(&a->val, 3)->val.type, DFS_V_BOOL);
    assert_int_equal(item(&a->val, 3)->val.as.i, 1);
    assert_int_equal(item(&a->val, 4)->val.as.i, 0);
    assert_int_equal(item(&a->val, 5)->val.type, DFS_V_NULL);
    /* numeric strings become numbers at the top level only */
    const dfs_arg *b = item(&v, 1);
    assert_int_equal(b->val.type, DFS_V_MAP);
    assert_int_equal(item(&b->val, 0)->val.type, DFS_V_STR);
    assert_int_equal(item(&v, 2)->val.type, DFS_V_LIST);
    assert_int_equal(item(&v, 2)->val.len, 0);

    const char *s7 = "\"7\"";
    e = dfs_json_value(&f->t.p, s7, s7 + 3, DFS_JV_NUMSTR, 0, &v, &fl);
    assert_int_equal(v.type, DFS_V_INT);
    assert_int_equal(v.as.i, 7);
    assert_true(v.flags & DFS_VF_FROM_STRING);
    e = dfs_json_value(&f->t.p, s7, s7 + 3, 0, 0, &v, &fl);
    assert_int_equal(v.type, DFS_V_STR);
}

static void test_value_keeps_stack_below_base(void **state)
{
    fixture *f = *state;
    assert_true(dfs_json_argtmp(&f->t.p, 4));
    for (int i = 0; i < 3; i++)
        f->t.p.argtmp[i] = (dfs_arg){(dfs_str)(100 + i), {.type = DFS_V_INT}};
    const char *t = "{\"x\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23]}";
    dfs_value v;
    unsigned fl = 0;
    assert_non_null(dfs_json_value(&f->t.p, t, t + strlen(t), 0, 3, &v, &fl));
    for (int i = 0; i < 3; i++)
        assert_int_equal(f->t.p.argtmp[i].key, 100 + i);
    assert_int_equal(item(&v, 0)->val.len, 23);
    assert_int_equal(item(&item(&v, 0)->val, 22)->val.as.i, 23);
}

static void test_value_depth_limit(void **state)
{
    fixture *f = *state;
    char t[256];
    size_t n = 0;
    for (int i = 0; i < 40; i++)
        t[n++] = '[';
    t[n++] = '1';
    for (int i = 0; i < 40; i++)
        t[n++] = ']';
    t[n] = '\0';
    dfs_value v;
    unsigned fl = 0;
    assert_ptr_equal(dfs_json_value(&f->t.p, t, t + n, 0, 0, &v, &fl), t + n);
    const dfs_value *x = &v;
    int depth = 0;
    while (x->type == DFS_V_LIST) {
        x = &x->as.items[0].val;
        depth++;
    }
    assert_int_equal(depth, DFS_JV_MAX_DEPTH);
    assert_int_equal(x->type, DFS_V_STR); /* the rest, kept as its text */
    assert_int_equal(strlen(text_of(f, x->as.s)), (size_t)(2 * (40 - DFS_JV_MAX_DEPTH) + 1));
}

static void test_value_errors(void **state)
{
    fixture *f = *state;
    const char *bad[] = {"{\"a\" 1}", "{\"a\":}", "[1,,2]", "{a:1}", "[1 2]", "{\"a\":1",
                         "\"open", "nul", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        dfs_value v;
        unsigned fl = 0;
        assert_null(dfs_json_value(&f->t.p, bad[i], bad[i] + strlen(bad[i]), 0, 0, &v, &fl));
    }
    /* a trailing comma inside a container is tolerated */
    const char *t = "[1,2,]";
    dfs_value v;
    unsigned fl = 0;
    assert_ptr_equal(dfs_json_value(&f->t.p, t, t + 6, 0, 0, &v, &fl), t + 6);
    assert_int_equal(v.len, 2);
}

static void test_object_get(void **state)
{
    (void)state;
    const char *t = "{\"compression\":true, \"nested\":{\"time_metric\":\"X\"},\"time_metric\" : \"NS\"}";
    const char *end = t + strlen(t);
    const char *v = dfs_json_object_get(t, end, "time_metric", 11);
    assert_non_null(v);
    assert_memory_equal(v, "\"NS\"", 4);
    assert_null(dfs_json_object_get(t, end, "missing", 7));
    const char *list = "[1]";
    assert_null(dfs_json_object_get(list, list + 3, "a", 1));
}

/* ---- structural index ----------------------------------------------------------------------- */

/* The quote index against a byte loop, for random mixes of quotes, plain bytes and the bytes that
 * rule a record out, at every length up to the limit (and just past it), with bytes past n that
 * must not count. Every instruction-set version the machine can run. */
static void test_quote_index(void **state)
{
    (void)state;
    static const char mix[] = "\"\"\"abc{}:,0123 \\\x01\x1f\x7f\x80\xc3\n";
    static char buf[DFS_JSON_QIDX_MAX + 128];
    static uint16_t got[DFS_JSON_QIDX_MAX + 32], want[DFS_JSON_QIDX_MAX + 32];
    uint64_t rng = 12345;
    for (size_t n = 0; n <= DFS_JSON_QIDX_MAX + 1; n += 1 + n / 64) {
        for (int round = 0; round < 8; round++) {
            /* in odd rounds, rarely a byte that may rule the range out */
            for (size_t i = 0; i < sizeof buf; i++) {
                rng = rng * 6364136223846793005u + 1442695040888963407u;
                unsigned r = (unsigned)(rng >> 40);
                bool rare = round % 2 && r % 64 == 0;
                buf[i] = rare ? mix[14 + r / 64 % (sizeof mix - 15)] : mix[r / 64 % 14];
            }
            int nq = 0;
            bool bad = false;
            for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)buf[i];
                if (c == '"')
                    want[nq++] = (uint16_t)i;
                bad |= c == '\\' || c < 0x20 || c >= 0x80;
            }
            if (bad || n > DFS_JSON_QIDX_MAX)
                nq = -1;
            assert_int_equal(dfs_json_quote_index(buf, n, got), nq);
            if (nq > 0)
                assert_memory_equal(got, want, (size_t)nq * sizeof *got);
            for (unsigned level = 0; level < 3; level++) {
                assert_int_equal(dfs_json_quote_index_at(level, buf, n, got), nq);
                if (nq > 0)
                    assert_memory_equal(got, want, (size_t)nq * sizeof *got);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_string_end_plain),
        cmocka_unit_test(test_string_end_escapes),
        cmocka_unit_test(test_string_control_and_utf8),
        cmocka_unit_test(test_string_lenient_quotes),
        cmocka_unit_test(test_string_fast_matches_full),
        cmocka_unit_test(test_unescape),
        cmocka_unit_test_setup_teardown(test_intern_decodes, setup, teardown),
        cmocka_unit_test(test_number_integers),
        cmocka_unit_test(test_number_overflow),
        cmocka_unit_test(test_number_floats_and_nonfinite),
        cmocka_unit_test(test_number_malformed),
        cmocka_unit_test(test_string_number),
        cmocka_unit_test(test_hex),
        cmocka_unit_test(test_time_exact),
        cmocka_unit_test(test_time_rounding),
        cmocka_unit_test(test_time_random_against_reference),
        cmocka_unit_test(test_digit_runs),
        cmocka_unit_test(test_skip),
        cmocka_unit_test_setup_teardown(test_value_nested, setup, teardown),
        cmocka_unit_test_setup_teardown(test_value_keeps_stack_below_base, setup, teardown),
        cmocka_unit_test_setup_teardown(test_value_depth_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_value_errors, setup, teardown),
        cmocka_unit_test(test_object_get),
        cmocka_unit_test(test_quote_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
