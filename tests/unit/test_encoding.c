/* test_encoding.c - what reaches the outputs from hostile traces (issue 29, items 2 and 14): the
 * escaping of each output context (src/output/escape.c, svg.c, csv.c), names with a NUL kept whole
 * by the string table, and ends (ts + dur) beyond int64 ns counted as time_overflow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "output/csv.h"
#include "output/escape.h"
#include "output/svg.h"
#include "parse/record.h"
#include "util/strtab.h"
#include "util/utf8.h"

/* Every hostile string of the issue, as (bytes, length) since some hold a NUL. */
typedef struct hostile {
    const char *s;
    size_t n;
} hostile;

#define H(lit) {lit, sizeof lit - 1}
static const hostile all[] = {
    H("\x1b[31mred\x1b]0;title\x07"), H("bad\xff\xfe"), H("over\xc0\xaf"), H("trunc\xe2\x82"),
    H("sur\xed\xa0\x80x"), H("nc\xef\xbf\xbe\xef\xbf\xbf"), H("c1\xc2\x9b" "2J"), H("nul\0tail"),
    H("del\x7f"), H("q\"uo,te"), H("nl\nline\ttab\rcr"), H("<&>'\""), H("back\\slash"),
    H("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
};

/* ---- a sink that keeps what it is given ----------------------------------------------------- */

typedef struct buf {
    char b[1024];
    size_t n;
} buf;

static void to_buf(void *sink, const char *s, size_t n)
{
    buf *o = sink;
    assert_true(o->n + n < sizeof o->b);
    memcpy(o->b + o->n, s, n);
    o->n += n;
    o->b[o->n] = '\0';
}

static bool valid_utf8(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t k = dfs_utf8_len((const unsigned char *)s + i, n - i);
        if (!k)
            return false;
        i += k;
    }
    return true;
}

static bool has_byte_below(const char *s, size_t n, unsigned char limit, const char *allowed)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < limit && !strchr(allowed, s[i]))
            return true;
    return false;
}

typedef void (*esc_fn)(dfs_put_fn put, void *sink, const char *s, size_t n);

static const char *esc(esc_fn fn, const char *s, size_t n, buf *o)
{
    o->n = 0;
    o->b[0] = '\0';
    fn(to_buf, o, s, n);
    return o->b;
}

static void xml_graphml(dfs_put_fn put, void *sink, const char *s, size_t n) { dfs_xml_escape(put, sink, s, n, 0); }
static void xml_svg(dfs_put_fn put, void *sink, const char *s, size_t n)
{
    dfs_xml_escape(put, sink, s, n, DFS_XML_APOS | DFS_XML_ONE_LINE);
}

/* ---- what each context writes --------------------------------------------------------------------- */

static const struct example {
    esc_fn fn;
    const char *in, *want;
} examples[] = {
    {dfs_csv_escape, "plain", "plain"},
    {dfs_csv_escape, "q\"uo,te", "\"q\"\"uo,te\""},
    {dfs_csv_escape, "a\nb", "\"a\nb\""},
    {dfs_csv_escape, "a\rb", "\"a\rb\""},
    {dfs_csv_escape, "bad\xff\xfe", "bad\xEF\xBF\xBD\xEF\xBF\xBD"},
    {dfs_csv_escape, "over\xc0\xaf,", "\"over\xEF\xBF\xBD\xEF\xBF\xBD,\""},
    {dfs_csv_escape, "esc\x1b[0m", "esc\x1b[0m"}, /* data, kept as written */
    {xml_graphml, "<&>'\"", "&lt;&amp;&gt;'&quot;"},
    {xml_svg, "<&>'\"", "&lt;&amp;&gt;&apos;&quot;"},
    {xml_graphml, "nc\xef\xbf\xbe\xef\xbf\xbf", "nc\xEF\xBF\xBD\xEF\xBF\xBD"},
    {xml_graphml, "a\x01\x1b\x7f" "b", "a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" "b"},
    {xml_graphml, "t\tn\nr\r", "t\tn\nr\r"},
    {xml_svg, "t\tn\nr\r", "t&#x20;n&#x20;r&#x20;"},
    {xml_graphml, "\xef\xbf\xbd ok \xe2\x82\xac", "\xef\xbf\xbd ok \xe2\x82\xac"},
    {dfs_dot_escape, "a\"b\\c", "a\\\"b\\\\c"},
    {dfs_dot_escape, "l1\nl2\tt", "l1\\nl2\tt"},
    {dfs_dot_escape, "e\x1b\r\x7f", "e\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},
    {dfs_term_escape, "\x1b[31mred\x1b]0;title\x07", "\\x1b[31mred\\x1b]0;title\\x07"},
    {dfs_term_escape, "c1\xc2\x9b" "2J", "c1\\x9b2J"},
    {dfs_term_escape, "t\tn\nr\r\x7f", "t\\x09n\\x0ar\\x0d\\x7f"},
    {dfs_term_escape, "bad\xff", "bad\xEF\xBF\xBD"},
    {dfs_term_escape, "back\\slash \xc2\xa0 \xef\xbf\xbe", "back\\slash \xc2\xa0 \xef\xbf\xbe"},
};

static void written_forms(void **state)
{
    (void)state;
    buf o;
    for (size_t i = 0; i < sizeof examples / sizeof *examples; i++)
        assert_string_equal(esc(examples[i].fn, examples[i].in, strlen(examples[i].in), &o), examples[i].want);
}

/* ---- what holds for every hostile string ------------------------------------------------------------ */

/* XML 1.0's Char production, over UTF-8 that is valid. */
static bool xml_chars(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t k = dfs_utf8_len(p + i, n - i);
        if (!k)
            return false;
        if (k == 1 && p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
            return false;
        if (k == 3 && p[i] == 0xEF && p[i + 1] == 0xBF && p[i + 2] >= 0xBE)
            return false;
        i += k;
    }
    return true;
}

/* Every " of a DOT string body follows an odd number of backslashes. */
static bool dot_quotes_escaped(const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        size_t bs = 0;
        while (s[k] == '"' && bs < k && s[k - 1 - bs] == '\\')
            bs++;
        if (s[k] == '"' && bs % 2 == 0)
            return false;
    }
    return true;
}

static void hostile_strings(void **state)
{
    (void)state;
    buf o;
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        const char *s = all[i].s;
        size_t n = all[i].n;
        esc(dfs_csv_escape, s, n, &o);
        assert_true(valid_utf8(o.b, o.n));
        esc(xml_graphml, s, n, &o);
        assert_true(xml_chars(o.b, o.n));
        assert_null(memchr(o.b, '<', o.n));
        esc(xml_svg, s, n, &o);
        assert_true(xml_chars(o.b, o.n));
        assert_false(has_byte_below(o.b, o.n, 0x20, ""));
        esc(dfs_dot_escape, s, n, &o);
        assert_true(valid_utf8(o.b, o.n));
        assert_false(has_byte_below(o.b, o.n, 0x20, "\t"));
        assert_true(dot_quotes_escaped(o.b, o.n));
        esc(dfs_term_escape, s, n, &o);
        assert_true(valid_utf8(o.b, o.n));
        assert_false(has_byte_below(o.b, o.n, 0x20, ""));
        assert_null(memchr(o.b, 0x7f, o.n));
        assert_null(strstr(o.b, "\xc2\x9b"));
        assert_int_equal(dfs_term_len(s, n), o.n);
    }
}

/* ---- files ------------------------------------------------------------------------------------------- */

/* What `write` puts in a file: one line. */
static void written_is(void (*write)(FILE *), const char *want)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    write(f);
    rewind(f);
    char line[128] = {0};
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, want);
    fclose(f);
}

static void write_text_field(FILE *f)
{
    dfs_csv_text(f, "x\xff,y");
    dfs_csv_num(f, 1.5);
}

static void csv_file(void **state)
{
    (void)state;
    written_is(write_text_field, "\"x\xEF\xBF\xBD,y\",1.5");
}

static void write_svg(FILE *f)
{
    dfs_svg_text(f, "\x1b<b>\xef\xbf\xbf\xff" "abcdef", 12, 6); /* 10 characters, cut to 5 + ellipsis */
}

static void svg_cut(void **state)
{
    (void)state;
    written_is(write_svg, "\xEF\xBF\xBD&lt;b&gt;\xEF\xBF\xBD\xE2\x80\xA6");
    assert_int_equal(dfs_svg_chars("\xff\xc3\xa9x", 4), 3);
}

/* ---- terminal cells ---------------------------------------------------------------------------------- */

static void term_cells(void **state)
{
    (void)state;
    char cell[8];
    /* an escape is never cut: "ab\x1b" does not fit 7 bytes whole */
    assert_string_equal(dfs_term_cell(cell, sizeof cell, "abcd\x1bz", 6), "abcd");
    /* nor a character: the euro sign (3 bytes) after 5 bytes */
    assert_string_equal(dfs_term_cell(cell, sizeof cell, "abcde\xe2\x82\xac", 8), "abcde");
    assert_string_equal(dfs_term_cell(cell, sizeof cell, "abcdefghij", 10), "abcdefg");
    assert_string_equal(dfs_term_cell(cell, 1, "abc", 3), "");
    assert_string_equal(dfs_term_str(cell, sizeof cell, NULL), "");
    buf whole;
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        esc(dfs_term_escape, all[i].s, all[i].n, &whole);
        bool backslash = memchr(all[i].s, '\\', all[i].n) != NULL;
        for (size_t cap = 1; cap <= 24; cap++) {
            char b[24];
            size_t n = strlen(dfs_term_cell(b, cap, all[i].s, all[i].n));
            assert_true(n < cap);
            assert_memory_equal(b, whole.b, n); /* a prefix of the whole text */
            assert_true(valid_utf8(b, n));
            assert_true(n == whole.n || (whole.b[n] & 0xC0) != 0x80); /* cut between characters */
            if (!backslash) /* nor inside an escape */
                assert_true(n == whole.n || whole.b[n] == '\\' || (n >= 4 && b[n - 4] == '\\') ||
                            !memchr(b + (n > 3 ? n - 3 : 0), '\\', n > 3 ? 3 : n));
        }
    }
}

/* ---- NUL in names ------------------------------------------------------------------------------------ */

static void strtab_nul(void **state)
{
    (void)state;
    dfs_strtab *t = dfs_strtab_new();
    dfs_strcache *c = dfs_strcache_new(t);
    assert_non_null(t);
    assert_non_null(c);
    dfs_str a = dfs_strtab_intern(t, "ab\0cd", 5);
    size_t n;
    const char *s = dfs_strtab_get(t, a, &n);
    assert_int_equal(n, 7);
    assert_memory_equal(s, "ab\xEF\xBF\xBD" "cd", 7);
    assert_int_equal(strlen(s), 7); /* whole as a C string */
    assert_int_equal(dfs_strcache_intern(c, "ab\0cd", 5), a);
    assert_int_equal(dfs_strcache_intern(c, "ab\0cd", 5), a); /* again, past the cache */
    assert_int_equal(dfs_strcache_intern(c, "ab\xEF\xBF\xBD" "cd", 7), a);
    assert_int_equal(dfs_strtab_find(t, "ab\0cd", 5), a);
    char big[1000];
    memset(big, 0, sizeof big);
    dfs_str b = dfs_strcache_intern(c, big, sizeof big); /* longer than the local copy */
    s = dfs_strtab_get(t, b, &n);
    assert_int_equal(n, 3 * sizeof big);
    assert_int_equal(strlen(s), n);
    dfs_strcache_free(c);
    dfs_strtab_free(t);
}

typedef struct fx {
    tu_parser t;
    dfs_rec_memo memo;
} fx;

static int fx_setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    tu_parser_init(&f->t, 0);
    *state = f;
    return 0;
}

static int fx_teardown(void **state)
{
    fx *f = *state;
    tu_parser_free(&f->t);
    free(f);
    return 0;
}

static const dfs_event *parse(fx *f, const char *text, size_t n)
{
    size_t before = f->t.batch.events.n;
    assert_int_equal(dfs_parse_record_ex(&f->t.p, text, n, n, 0, 0, &f->memo), DFS_REC_EVENT);
    assert_int_equal(f->t.batch.events.n, before + 1);
    return &f->t.batch.events.v[before];
}

static void name_is(fx *f, const dfs_event *ev, const char *want)
{
    size_t n;
    const char *s = dfs_strtab_get(f->t.table, ev->name, &n);
    assert_int_equal(n, strlen(want));
    assert_string_equal(s, want);
}

static void json_nul(void **state)
{
    fx *f = *state;
    static const char escaped[] = "{\"name\":\"ab\\u0000cd\",\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1}";
    name_is(f, parse(f, escaped, sizeof escaped - 1), "ab\xEF\xBF\xBD" "cd");
    static const char raw[] = "{\"name\":\"ab\0cd\",\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1}";
    name_is(f, parse(f, raw, sizeof raw - 1), "ab\xEF\xBF\xBD" "cd");
    static const char longer[] = "{\"name\":\"\\u0000a name longer than the memo of short strings\\u0000\","
                                 "\"ph\":\"X\",\"ts\":1,\"dur\":1}";
    name_is(f, parse(f, longer, sizeof longer - 1),
            "\xEF\xBF\xBD" "a name longer than the memo of short strings\xEF\xBF\xBD");
}

/* ---- ends beyond int64 ns ---------------------------------------------------------------------------- */

static void span_end(void **state)
{
    (void)state;
    int64_t end;
    assert_true(dfs_span_end(10, 5, &end));
    assert_int_equal(end, 15);
    assert_true(dfs_span_end(INT64_MAX - 5, 5, &end));
    assert_int_equal(end, INT64_MAX);
    assert_false(dfs_span_end(INT64_MAX - 5, 6, &end));
    assert_false(dfs_span_end(INT64_MIN, -1, &end));
}

static void end_overflow_counted(void **state)
{
    fx *f = *state;
    /* 9223372036854775 us = 9223372036854775000 ns: 0.807 us more is the int64 limit */
    static const char fits[] = "{\"name\":\"a\",\"ph\":\"X\",\"ts\":9223372036854775,\"dur\":0.807,\"pid\":1}";
    const dfs_event *ev = parse(f, fits, sizeof fits - 1);
    assert_int_equal(ev->flags & DFS_EF_BAD_TIME, 0);
    assert_int_equal(f->t.st.diag.counts[DFS_PROB_TIME_OVERFLOW], 0);
    static const char over[] = "{\"name\":\"a\",\"ph\":\"X\",\"ts\":9223372036854775,\"dur\":0.808,\"pid\":1}";
    ev = parse(f, over, sizeof over - 1);
    assert_int_equal(ev->flags & DFS_EF_BAD_TIME, DFS_EF_BAD_TIME);
    assert_int_equal(f->t.st.diag.counts[DFS_PROB_TIME_OVERFLOW], 1);
    /* below the range too, and once per record whatever else is wrong */
    static const char under[] = "{\"name\":\"a\",\"ph\":\"X\",\"ts\":-9223372036854775,\"dur\":-1,\"pid\":1}";
    ev = parse(f, under, sizeof under - 1);
    assert_int_equal(ev->flags & DFS_EF_BAD_TIME, DFS_EF_BAD_TIME);
    assert_int_equal(f->t.st.diag.counts[DFS_PROB_TIME_OVERFLOW], 1);
    assert_int_equal(f->t.st.diag.counts[DFS_PROB_NEGATIVE_DUR], 1);
    /* an aggregated record's dur is a sum, not a span: no end to check */
    static const char agg[] = "{\"name\":\"a\",\"ph\":\"A\",\"ts\":9223372036854775,\"dur\":5,\"pid\":1}";
    ev = parse(f, agg, sizeof agg - 1);
    assert_int_equal(ev->flags & DFS_EF_BAD_TIME, 0);
    assert_int_equal(f->t.st.diag.counts[DFS_PROB_TIME_OVERFLOW], 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(written_forms), cmocka_unit_test(hostile_strings), cmocka_unit_test(csv_file),
        cmocka_unit_test(svg_cut),       cmocka_unit_test(term_cells),      cmocka_unit_test(strtab_nul),
        cmocka_unit_test_setup_teardown(json_nul, fx_setup, fx_teardown), cmocka_unit_test(span_end),
        cmocka_unit_test_setup_teardown(end_overflow_counted, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
