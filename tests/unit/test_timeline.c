/* test_timeline.c - the window picture (src/analyze/timeline/timeline.c, svg.c) and its reading side
 * (src/analyze/timeline/tlwindow.c): well-formed XML whatever the names hold, lanes and class counts of
 * hand-built timelines and traces, narrow spans folded into busy bars with a size bound, the lane
 * limit, empty windows, merging in any order, counters, the --window syntax, B/E pairing, lane
 * names from metadata, class overrides, clocks known only at a file's end, atomic files; the bounds
 * whatever the input: the axis of windows up to the whole int64 clock, spans far outside them, and
 * lanes beyond the limit folded into one row "other lanes", the same in any order and any merge. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#include "analyze/common/clocks.h"
#include "analyze/timeline/timeline.h"
#include "analyze/timeline/tlwindow.h"
#include "output/svg.h"

#define T0 INT64_C(1623142623000000000) /* an epoch clock: the axis names a date */
#define MS INT64_C(1000000)

/* ===== a small XML well-formedness checker ==================================================== */

typedef struct xml {
    const char *p, *end;
    const char *stack[64];
    size_t len[64];
    int depth, roots;
    char why[128];
} xml;

static bool xml_fail(xml *x, const char *why)
{
    snprintf(x->why, sizeof x->why, "%s at byte %td", why, x->p - (x->end - strlen(x->p)));
    return false;
}

static bool name_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
           (!first && ((c >= '0' && c <= '9') || c == '-' || c == '.'));
}

static size_t name_len(const char *p)
{
    size_t n = 0;
    while (name_char(p[n], n == 0))
        n++;
    return n;
}

/* Character data up to `stop`: entities must be known or numeric, no '<', valid UTF-8, no
 * control characters XML 1.0 forbids. */
static bool chars_ok(xml *x, char stop)
{
    for (; x->p < x->end && *x->p != stop && *x->p != '<';) {
        unsigned char c = (unsigned char)*x->p;
        if (c == '&') {
            static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
            bool known = false;
            for (size_t i = 0; i < 5 && !known; i++)
                known = strncmp(x->p, ents[i], strlen(ents[i])) == 0;
            if (!known && x->p[1] == '#') {
                const char *q = x->p + 2 + (x->p[2] == 'x');
                while ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F'))
                    q++;
                known = *q == ';' && q > x->p + 2;
            }
            if (!known)
                return xml_fail(x, "bad entity");
            x->p = strchr(x->p, ';') + 1;
            continue;
        }
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            return xml_fail(x, "control character");
        size_t len = 1;
        if (c >= 0x80) {
            len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
            for (size_t i = 1; i < len; i++)
                if (((unsigned char)x->p[i] & 0xC0) != 0x80)
                    len = 0;
            if (len == 0)
                return xml_fail(x, "invalid UTF-8");
        }
        x->p += len;
    }
    return true;
}

static void skip_ws(xml *x)
{
    while (x->p < x->end && (*x->p == ' ' || *x->p == '\n' || *x->p == '\t' || *x->p == '\r'))
        x->p++;
}

static bool attrs_ok(xml *x)
{
    for (;;) {
        skip_ws(x);
        if (*x->p == '>' || *x->p == '/')
            return true;
        size_t n = name_len(x->p);
        if (!n)
            return xml_fail(x, "bad attribute name");
        x->p += n;
        if (x->p[0] != '=' || x->p[1] != '"')
            return xml_fail(x, "attribute without =\"");
        x->p += 2;
        if (!chars_ok(x, '"') || *x->p != '"')
            return xml_fail(x, "unterminated attribute");
        x->p++;
    }
}

static bool tag_ok(xml *x)
{
    x->p++; /* '<' */
    if (*x->p == '/') {
        size_t n = name_len(++x->p);
        if (x->depth == 0 || n != x->len[x->depth - 1] || strncmp(x->p, x->stack[x->depth - 1], n) != 0)
            return xml_fail(x, "mismatched end tag");
        x->depth--;
        x->p += n;
        skip_ws(x);
        return *x->p++ == '>' || xml_fail(x, "bad end tag");
    }
    size_t n = name_len(x->p);
    if (!n || x->depth == 64 || (x->depth == 0 && x->roots++))
        return xml_fail(x, "bad start tag, too deep or a second root");
    x->stack[x->depth] = x->p;
    x->len[x->depth++] = n;
    x->p += n;
    if (!attrs_ok(x))
        return false;
    if (*x->p == '/') {
        x->depth--;
        x->p++;
    }
    return *x->p++ == '>' || xml_fail(x, "bad start tag end");
}

static bool xml_well_formed(const char *doc, char *why, size_t whylen)
{
    xml x = {.p = doc, .end = doc + strlen(doc)};
    if (strncmp(x.p, "<?xml ", 6) == 0) {
        const char *q = strstr(x.p, "?>");
        x.p = q ? q + 2 : x.end;
    }
    bool ok = true;
    while (ok && x.p < x.end) {
        if (*x.p == '<')
            ok = tag_ok(&x);
        else if (x.depth == 0) {
            skip_ws(&x);
            ok = x.p == x.end || *x.p == '<' || xml_fail(&x, "text outside the root");
        } else
            ok = chars_ok(&x, '<');
    }
    if (ok && (x.depth != 0 || x.roots != 1))
        ok = xml_fail(&x, "unclosed elements or no root");
    snprintf(why, whylen, "%s", ok ? "" : x.why);
    return ok;
}

/* ===== helpers ================================================================================ */

static char *render(const dfs_timeline *tl)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(dfs_tl_write(tl, f), DFS_OK);
    fclose(f);
    char why[160];
    if (!xml_well_formed(buf, why, sizeof why))
        fail_msg("not well-formed XML: %s", why);
    return buf;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The y of the rectangle whose title starts with `title`. */
static double rect_y(const char *svg, const char *title)
{
    const char *t = strstr(svg, title);
    assert_non_null(t);
    const char *r = t;
    while (r > svg && strncmp(r, "<rect ", 6) != 0)
        r--;
    double y = -1;
    assert_int_equal(sscanf(r, "<rect x=\"%*[0-9.]\" y=\"%lf\"", &y), 1);
    return y;
}

static dfs_timeline *window(int64_t start, int64_t end)
{
    dfs_tl_options o;
    dfs_tl_options_init(&o);
    o.start_ns = start;
    o.end_ns = end;
    o.title = "test";
    dfs_timeline *tl = dfs_tl_new(&o);
    assert_non_null(tl);
    return tl;
}

static uint32_t lane(dfs_timeline *tl, const char *host, int64_t pid, int64_t tid, const char *proc, const char *thread)
{
    dfs_tl_lane_key k = {.source = "", .host = host, .pid = pid, .tid = tid, .process = proc, .thread = thread};
    uint32_t id = dfs_tl_lane(tl, &k);
    assert_int_not_equal(id, UINT32_MAX);
    return id;
}

static void span(dfs_timeline *tl, uint32_t l, int64_t start, int64_t dur, const char *name, dfs_tl_class c)
{
    assert_int_equal(dfs_tl_add_span(tl, l, start, dur, name, strlen(name), c), DFS_OK);
}

/* ===== the picture ============================================================================ */

/* A loop thread waiting for data then computing, a loader thread reading, a GPU stream. */
static dfs_timeline *training_window(void)
{
    dfs_timeline *tl = window(T0, T0 + 100 * MS);
    uint32_t loop = lane(tl, "node1", 42, 42, "python", "main");
    uint32_t loader = lane(tl, "node1", 42, 43, "python", "loader");
    uint32_t gpu = lane(tl, "node1", 0, 7, "GPU 0", "stream 7");
    span(tl, loop, T0 - 10 * MS, 60 * MS, "ProfilerStep#1", DFS_TL_OTHER);      /* starts before */
    span(tl, loop, T0 + 50 * MS, 60 * MS, "ProfilerStep#2", DFS_TL_OTHER);      /* ends after */
    span(tl, loop, T0 + 1 * MS, 20 * MS, "enumerate(DataLoader)#next", DFS_TL_DATA_WAIT);
    span(tl, loop, T0 + 22 * MS, 25 * MS, "forward", DFS_TL_COMPUTE);
    span(tl, loader, T0 + 2 * MS, 10 * MS, "read", DFS_TL_IO);
    span(tl, gpu, T0 + 23 * MS, 20 * MS, "volta_sgemm", DFS_TL_COMPUTE);
    span(tl, gpu, T0 + 44 * MS, 2 * MS, "Memcpy HtoD", DFS_TL_TRANSFER);
    span(tl, gpu, T0 + 200 * MS, 2 * MS, "after the window", DFS_TL_COMPUTE);   /* ignored */
    span(tl, gpu, T0 - 20 * MS, 2 * MS, "before the window", DFS_TL_COMPUTE);  /* ignored */
    return tl;
}

static void test_lanes_and_classes(void **state)
{
    (void)state;
    dfs_timeline *tl = training_window();
    dfs_tl_summary s;
    dfs_tl_summarize(tl, &s);
    assert_int_equal(s.lanes, 3);
    assert_int_equal(s.lanes_drawn, 3);
    assert_int_equal(s.spans[DFS_TL_COMPUTE], 2);
    assert_int_equal(s.spans[DFS_TL_DATA_WAIT], 1);
    assert_int_equal(s.spans[DFS_TL_IO], 1);
    assert_int_equal(s.spans[DFS_TL_TRANSFER], 1);
    assert_int_equal(s.spans[DFS_TL_OTHER], 2);
    assert_int_equal(s.spans_drawn, 7);
    assert_int_equal(s.spans_aggregated, 0);

    dfs_tl_lane_info info[4];
    assert_int_equal(dfs_tl_lanes(tl, info, 4), 3);
    assert_string_equal(info[0].key.thread, "stream 7"); /* pid 0 sorts first */
    assert_string_equal(info[1].key.thread, "main");
    assert_string_equal(info[2].key.thread, "loader");
    assert_int_equal(info[1].spans[DFS_TL_OTHER], 2);

    char *svg = render(tl);
    /* one rectangle per span, by class; the legend's swatch is one more of each */
    assert_int_equal(count(svg, "class=\"k0\""), 2 + 1 + 1);
    assert_int_equal(count(svg, "class=\"k1\""), 1 + 1);
    assert_int_equal(count(svg, "class=\"k2\""), 1 + 1);
    assert_int_equal(count(svg, "class=\"k3\""), 1 + 1);
    assert_int_equal(count(svg, "class=\"k4\""), 2 + 1);
    assert_non_null(strstr(svg, ">main</text>"));
    assert_non_null(strstr(svg, ">loader</text>"));
    assert_non_null(strstr(svg, "node1 \xC2\xB7 python (pid 42)"));
    assert_non_null(strstr(svg, "node1 \xC2\xB7 GPU 0 (pid 0)"));
    assert_null(strstr(svg, "after the window"));
    /* hover titles: name, class, start and duration */
    assert_non_null(strstr(svg, "<title>forward&#10;compute&#10;start +22.000 ms (2021-06-08T08:57:03.022Z)"
                                "&#10;duration 25.000 ms</title>"));
    assert_non_null(strstr(svg, "start -10.000 ms")); /* a span that began before the window */
    assert_non_null(strstr(svg, "window 2021-06-08T08:57:03Z to 2021-06-08T08:57:03.100Z"));
    assert_non_null(strstr(svg, ">+20 ms</text>"));   /* ticks every 20 ms in ms */
    assert_non_null(strstr(svg, "data wait (1)"));
    free(svg);
    dfs_tl_free(tl);
}

static void test_nesting_depth(void **state)
{
    (void)state;
    dfs_timeline *tl = window(0, 1000 * MS); /* not an epoch clock: seconds on the axis */
    uint32_t l = lane(tl, NULL, 1, 1, NULL, NULL);
    span(tl, l, 0, 900 * MS, "outer", DFS_TL_OTHER);
    span(tl, l, 100 * MS, 500 * MS, "middle", DFS_TL_COMPUTE);
    span(tl, l, 200 * MS, 100 * MS, "inner", DFS_TL_DATA_WAIT);
    span(tl, l, 700 * MS, 100 * MS, "sibling", DFS_TL_COMPUTE);
    char *svg = render(tl);
    /* rows are 14 px apart */
    double y_outer = rect_y(svg, "<title>outer"), y_inner = rect_y(svg, "<title>inner");
    double y_sibling = rect_y(svg, "<title>sibling"), y_middle = rect_y(svg, "<title>middle");
    assert_true(y_inner - y_outer == 28);  /* depth 2 */
    assert_true(y_sibling - y_outer == 14); /* depth 1, like middle */
    assert_true(y_middle == y_sibling);
    assert_non_null(strstr(svg, "window 0.000000000 s to 1.000000000 s"));
    assert_non_null(strstr(svg, ">pid 1 \xC2\xB7 tid 1</text>")); /* a lone lane: no header row */
    free(svg);
    dfs_tl_free(tl);
}

static void test_escaping(void **state)
{
    (void)state;
    dfs_tl_options o;
    dfs_tl_options_init(&o);
    o.start_ns = T0;
    o.end_ns = T0 + MS;
    o.title = "a <title> & \"quotes\"";
    o.subtitle = "bad \x01 byte \xff and U+FFFE \xEF\xBF\xBE";
    dfs_timeline *tl = dfs_tl_new(&o);
    assert_non_null(tl);
    dfs_tl_lane_key k = {.host = "h<1>", .pid = 1, .tid = 2, .process = "p&q", .thread = "t\"'\n"};
    uint32_t l = dfs_tl_lane(tl, &k);
    const char name[] = "std::vector<int>& \"x\" 'y'\t\x7f\xc3\x28";
    span(tl, l, T0, MS / 2, name, DFS_TL_COMPUTE);
    assert_int_equal(dfs_tl_add_counter(tl, "<cpu> & \"load\"", 15, T0 + 10, 1.5), DFS_OK);
    char *svg = render(tl); /* well-formed: checked by render */
    assert_non_null(strstr(svg, "a &lt;title&gt; &amp; &quot;quotes&quot;"));
    assert_non_null(strstr(svg, "std::vector&lt;int&gt;&amp; &quot;x&quot; &apos;y&apos;"));
    assert_non_null(strstr(svg, "h&lt;1&gt;"));
    assert_non_null(strstr(svg, "p&amp;q"));
    assert_non_null(strstr(svg, "&lt;cpu&gt; &amp; &quot;load&quot;"));
    assert_non_null(strstr(svg, "bad \xEF\xBF\xBD byte \xEF\xBF\xBD and U+FFFE \xEF\xBF\xBD"));
    assert_null(strstr(svg, "\xc3\x28"));
    free(svg);
    dfs_tl_free(tl);
}

static void test_svg_text_cut(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    dfs_svg_text(f, "h\xC3\xA9llo world", 12, 5); /* 4 characters and an ellipsis, é kept whole */
    fputc('|', f);
    dfs_svg_text(f, "abc", 3, 3);
    fputc('|', f);
    dfs_svg_num(f, 12.04);
    fputc('|', f);
    dfs_svg_num(f, -0.04);
    fputc('|', f);
    dfs_svg_num(f, 3.25);
    fclose(f);
    assert_string_equal(buf, "h\xC3\xA9ll\xE2\x80\xA6|abc|12|0|3.3");
    assert_int_equal(dfs_svg_chars("h\xC3\xA9llo", 6), 5);
    free(buf);
}

/* Narrow spans go into busy bars: the picture's size depends on the pixels, not the events. */
static void test_narrow_spans_bounded(void **state)
{
    (void)state;
    size_t sizes[2];
    for (int round = 0; round < 2; round++) {
        int n = round ? 200000 : 20000;
        dfs_timeline *tl = window(T0, T0 + 1000 * MS);
        uint32_t l = lane(tl, "h", 1, 1, "p", "t");
        for (int i = 0; i < n; i++) /* 1 us each, far below a pixel (833 us) */
            span(tl, l, T0 + (int64_t)i * (1000 * MS / n), 1000, "tiny", i % 3 ? DFS_TL_COMPUTE : DFS_TL_IO);
        span(tl, l, T0, 1000 * MS, "wide", DFS_TL_OTHER);
        dfs_tl_summary s;
        dfs_tl_summarize(tl, &s);
        assert_int_equal(s.spans_aggregated, (uint64_t)n);
        assert_int_equal(s.spans_drawn, 1);
        char *svg = render(tl);
        sizes[round] = strlen(svg);
        assert_true(count(svg, "<rect") <= 1200 + 20);
        assert_non_null(strstr(svg, "spans narrower than one pixel"));
        free(svg);
        dfs_tl_free(tl);
    }
    assert_true(sizes[1] < sizes[0] * 3 / 2);
    assert_true(sizes[1] < 400000);
}

static void test_lane_limit(void **state)
{
    (void)state;
    dfs_tl_options o;
    dfs_tl_options_init(&o);
    o.start_ns = 0;
    o.end_ns = 100 * MS;
    o.max_lanes = 2;
    dfs_timeline *tl = dfs_tl_new(&o);
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "worker-%d", i);
        uint32_t l = lane(tl, "h", 7, i, "p", name);
        span(tl, l, 0, (i == 1 || i == 3 ? 50 : 5) * MS, "busy", DFS_TL_COMPUTE);
    }
    dfs_tl_summary s;
    dfs_tl_summarize(tl, &s);
    assert_int_equal(s.lanes, 5);
    assert_int_equal(s.lanes_drawn, 2);
    assert_int_equal(s.spans[DFS_TL_COMPUTE], 5); /* counts cover every lane */
    assert_int_equal(s.spans_drawn, 2);
    dfs_tl_lane_info info[5];
    assert_int_equal(dfs_tl_lanes(tl, info, 5), 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(info[i].drawn, i == 1 || i == 3);
    char *svg = render(tl);
    assert_non_null(strstr(svg, ">worker-1</text>"));
    assert_non_null(strstr(svg, ">worker-3</text>"));
    assert_null(strstr(svg, ">worker-0</text>"));
    assert_non_null(strstr(svg, "3 lanes omitted: the 2 busiest of 5 are drawn"));
    free(svg);
    dfs_tl_free(tl);
}

static void test_empty_window(void **state)
{
    (void)state;
    dfs_timeline *tl = window(T0, T0 + MS);
    uint32_t l = lane(tl, "h", 1, 1, NULL, NULL);
    span(tl, l, T0 + 2 * MS, MS, "later", DFS_TL_COMPUTE);
    dfs_tl_summary s;
    dfs_tl_summarize(tl, &s);
    assert_int_equal(s.lanes, 0);
    char *svg = render(tl);
    assert_non_null(strstr(svg, "no events in this window"));
    assert_int_equal(count(svg, "<title>"), 1); /* the document's only */
    free(svg);
    dfs_tl_free(tl);
}

/* Merging per-thread timelines in any order gives the same picture, byte for byte. */
static void fill_part(dfs_timeline *tl, int part)
{
    for (int i = part; i < 400; i += 3) {
        uint32_t l = lane(tl, "h", 1 + i % 4, 1, "p", i % 4 ? NULL : "named");
        span(tl, l, T0 + (int64_t)i * 250000, i % 5 ? 30000 : 2 * MS, i % 2 ? "a" : "b", (dfs_tl_class)(i % 5));
        assert_int_equal(dfs_tl_add_counter(tl, "cpu", 3, T0 + (int64_t)i * 250000, i % 17), DFS_OK);
    }
}

static void test_merge_order(void **state)
{
    (void)state;
    char *svg[2];
    for (int order = 0; order < 2; order++) {
        dfs_timeline *all = window(T0, T0 + 100 * MS);
        for (int k = 0; k < 3; k++) {
            dfs_timeline *part = window(T0, T0 + 100 * MS);
            fill_part(part, order ? 2 - k : k);
            assert_int_equal(dfs_tl_merge(all, part), DFS_OK);
            dfs_tl_free(part);
        }
        svg[order] = render(all);
        dfs_tl_free(all);
    }
    assert_string_equal(svg[0], svg[1]);
    dfs_timeline *other = window(T0, T0 + 50 * MS), *tl = window(T0, T0 + 100 * MS);
    assert_int_equal(dfs_tl_merge(tl, other), DFS_ERR_USAGE);
    dfs_tl_free(other);
    dfs_tl_free(tl);
    free(svg[0]);
    free(svg[1]);
}

static void test_counters(void **state)
{
    (void)state;
    dfs_timeline *tl = window(T0, T0 + 10 * MS);
    for (int i = 0; i <= 10; i++)
        assert_int_equal(dfs_tl_add_counter(tl, "gpu util", 8, T0 + i * MS, i * 10.0), DFS_OK);
    assert_int_equal(dfs_tl_add_counter(tl, "gpu util", 8, T0 + 11 * MS, 999), DFS_OK); /* outside */
    assert_int_equal(dfs_tl_add_counter(tl, "gpu util", 8, T0 + 5 * MS, 0.0 / 0.0), DFS_OK); /* NaN */
    assert_int_equal(dfs_tl_add_counter(tl, "mem", 3, T0 + 3 * MS, 7), DFS_OK);
    dfs_tl_summary s;
    dfs_tl_summarize(tl, &s);
    assert_int_equal(s.counters, 2);
    assert_int_equal(s.samples, 12);
    char *svg = render(tl);
    assert_non_null(strstr(svg, ">max 100</text>"));
    assert_non_null(strstr(svg, ">min 0</text>"));
    assert_non_null(strstr(svg, ">max 7</text>"));
    assert_non_null(strstr(svg, "gpu util: 11 samples, min 0, max 100"));
    assert_int_equal(count(svg, "<circle"), 12);
    assert_true(strstr(svg, ">gpu util</text>") < strstr(svg, ">mem</text>")); /* by name */
    free(svg);
    dfs_tl_free(tl);
}

/* Charts of one quantity share a scale (utilizations 0..100), sort naturally (cpu2 before cpu10),
 * and large values carry an SI prefix. */
static void test_counter_scales(void **state)
{
    (void)state;
    dfs_timeline *tl = window(T0, T0 + 10 * MS);
    static const char *const names[] = {"n1 CPUUtilization cpu10", "n1 CPUUtilization cpu2", "n1 MemoryBytes m0",
                                        "n1 MemoryBytes m1"};
    static const double values[][2] = {{10, 20}, {40, 50}, {2e9, 3e9}, {5e9, 6e9}};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 2; i++)
            assert_int_equal(dfs_tl_add_counter(tl, names[k], strlen(names[k]), T0 + (i + 1) * MS, values[k][i]),
                             DFS_OK);
    char *svg = render(tl);
    /* both CPU charts 0..100; both memory charts 2 G..6 G */
    assert_int_equal(count(svg, ">max 100</text>"), 2);
    assert_int_equal(count(svg, ">min 0</text>"), 2);
    assert_int_equal(count(svg, ">max 6 G</text>"), 2);
    assert_int_equal(count(svg, ">min 2 G</text>"), 2);
    assert_true(strstr(svg, ">n1 CPUUtilization cpu2</text>") < strstr(svg, ">n1 CPUUtilization cpu10</text>"));
    assert_non_null(strstr(svg, "share a scale"));
    free(svg);
    dfs_tl_free(tl);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    dfs_tl_options o;
    dfs_tl_options_init(&o);
    o.start_ns = 10;
    o.end_ns = 10;
    assert_null(dfs_tl_new(&o));
    o.end_ns = 20;
    o.width_px = 100;
    assert_null(dfs_tl_new(&o));
    o.width_px = 0; /* default */
    o.start_ns = INT64_MIN;
    o.end_ns = INT64_MAX; /* span overflows */
    assert_null(dfs_tl_new(&o));
    dfs_timeline *tl = window(0, 1000);
    uint32_t l = lane(tl, "h", 1, 1, NULL, NULL);
    assert_int_equal(dfs_tl_add_span(tl, l + 1, 0, 10, "x", 1, DFS_TL_OTHER), DFS_ERR_USAGE);
    assert_int_equal(dfs_tl_add_span(tl, l, 0, -1, "x", 1, DFS_TL_OTHER), DFS_ERR_USAGE);
    assert_int_equal(dfs_tl_add_span(tl, l, 0, 10, "x", 1, (dfs_tl_class)9), DFS_ERR_USAGE);
    assert_int_equal(dfs_tl_add_span(tl, l, INT64_MAX - 5, 100, "x", 1, DFS_TL_OTHER), DFS_OK); /* no overflow */
    assert_string_equal(dfs_tl_class_name(DFS_TL_IO), "I/O");
    dfs_tl_free(tl);
}

static void test_write_file_atomically(void **state)
{
    (void)state;
    dfs_timeline *tl = training_window();
    char dir[] = "/tmp/dfscope-tl-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/out.svg", dir);
    FILE *f = fopen(path, "w");
    fputs("old", f);
    fclose(f);
    assert_int_equal(dfs_tl_write_file(tl, path, NULL, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > 1000);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) = 1", dir); /* no temporary left behind */
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/missing/out.svg", dir);
    assert_int_equal(dfs_tl_write_file(tl, path, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "missing/out.svg"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    dfs_tl_free(tl);
}

/* ===== the --window syntax ==================================================================== */

static void test_window_syntax(void **state)
{
    (void)state;
    dfs_tl_window w;
    char err[256];
    assert_true(dfs_tl_parse_window("1623142623.636318:1623142623.810379", &w, err, sizeof err));
    assert_int_equal(w.start.kind, DFS_TLB_ABSOLUTE);
    assert_int_equal(w.start.ns, INT64_C(1623142623636318000)); /* exact, no floating point */
    assert_int_equal(w.end.ns, INT64_C(1623142623810379000));
    assert_false(dfs_tl_window_needs_span(&w));
    assert_true(dfs_tl_parse_window("+1.5:+2.0", &w, err, sizeof err));
    assert_int_equal(w.start.kind, DFS_TLB_RELATIVE);
    assert_int_equal(w.start.ns, 1500 * MS);
    assert_int_equal(w.end.ns, 2000 * MS);
    assert_true(dfs_tl_parse_window("+500ms:", &w, err, sizeof err));
    assert_int_equal(w.start.ns, 500 * MS);
    assert_int_equal(w.end.kind, DFS_TLB_OPEN);
    assert_true(dfs_tl_parse_window("12.3s:1m", &w, err, sizeof err));
    assert_int_equal(w.start.ns, 12300 * MS);
    assert_int_equal(w.end.ns, 60000 * MS);
    assert_true(dfs_tl_parse_window(":", &w, err, sizeof err));
    assert_true(dfs_tl_window_needs_span(&w));
    assert_true(dfs_tl_parse_window("+250us:+1h", &w, err, sizeof err));
    assert_int_equal(w.start.ns, 250000);
    assert_int_equal(w.end.ns, INT64_C(3600000000000));
    assert_true(dfs_tl_parse_window("0.0000000015:7ns", &w, err, sizeof err));
    assert_int_equal(w.start.ns, 1); /* below a ns: cut */

    static const char *const bad[] = {"", "12", "1:2:3", "a:b", "-1:2", "1:-2", "1x:2", "+:2", ".:1",
                                      "1.2.3:4", "99999999999999999999:", "9300000000:", "1 :2", "+1e3:"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        if (dfs_tl_parse_window(bad[i], &w, err, sizeof err))
            fail_msg("'%s' was accepted", bad[i]);
        assert_true(strlen(err) > 10);
    }

    int64_t s, e;
    assert_true(dfs_tl_parse_window("+1:+2", &w, err, sizeof err));
    assert_true(dfs_tl_window_resolve(&w, 100 * MS, 5000 * MS, &s, &e, err, sizeof err));
    assert_int_equal(s, 1100 * MS);
    assert_int_equal(e, 2100 * MS);
    assert_true(dfs_tl_parse_window(":", &w, err, sizeof err));
    assert_true(dfs_tl_window_resolve(&w, 100, 100, &s, &e, err, sizeof err));
    assert_int_equal(s, 100);
    assert_int_equal(e, 101); /* a trace of one instant */
    assert_true(dfs_tl_parse_window("+2:+1", &w, err, sizeof err));
    assert_false(dfs_tl_window_resolve(&w, 0, 10, &s, &e, err, sizeof err));
    assert_non_null(strstr(err, "empty"));
    assert_true(dfs_tl_parse_window("5:5", &w, err, sizeof err));
    assert_false(dfs_tl_window_resolve(&w, 0, 0, &s, &e, err, sizeof err));
}

/* ===== reading traces ========================================================================= */

typedef struct read_result {
    dfs_run *run;
    dfs_tlw *tlw;
    const dfs_tlw_result *r;
    int passes;
} read_result;

static dfs_run *open_run(const char *path)
{
    dfs_options o;
    dfs_options_init(&o);
    o.jobs = 2;
    dfs_run *run = dfs_run_new(&o);
    assert_int_equal(dfs_run_add_path(run, path), DFS_OK);
    return run;
}

/* Reads as the CLI does: a second pass with the final clocks when the first asks for one. */
static void read_window(const char *path, dfs_tlw_options *opt, read_result *out)
{
    memset(out, 0, sizeof *out);
    dfs_file_clock *clocks = NULL;
    uint8_t *sources = NULL;
    for (int pass = 0; pass < 2 && !out->r; pass++) {
        if (out->tlw) {
            clocks = dfs_run_final_clocks(out->run);
            sources = dfs_tlw_final_sources(out->run);
            opt->clocks = clocks;
            opt->sources = sources;
            opt->nfiles = dfs_run_file_count(out->run);
            dfs_tlw_free(out->tlw);
            dfs_run_free(out->run);
        }
        char err[256];
        out->run = open_run(path);
        out->tlw = dfs_tlw_new(opt, err, sizeof err);
        assert_non_null(out->tlw);
        dfs_consumer *cs[] = {dfs_tlw_consumer(out->tlw)};
        dfs_run_read(out->run, cs, 1);
        out->r = dfs_tlw_finish(out->tlw, out->run);
        out->passes++;
        if (!out->r)
            assert_true(dfs_tlw_needs_rerun(out->tlw));
    }
    assert_non_null(out->r);
    opt->clocks = NULL;
    opt->sources = NULL;
    free(clocks);
    free(sources);
}

static void read_free(read_result *r)
{
    dfs_tlw_free(r->tlw);
    dfs_run_free(r->run);
}

/* A PyTorch-profiler trace: data-loader wait, operators, kernels, a copy, counters, names. */
static const char kineto_trace[] =
    "{\"schemaVersion\": 1, \"traceEvents\": [\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 10, \"tid\": 0, \"args\": {\"name\": \"python <main>\"}},\n"
    "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 10, \"tid\": 10, \"args\": {\"name\": \"loop & co\"}},\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 10, \"tid\": 10, \"ts\": 1000, \"dur\": 900},\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\", \"pid\": 10, \"tid\": 10, \"ts\": 1010, \"dur\": 400},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::conv2d\", \"pid\": 10, \"tid\": 10, \"ts\": 1420, \"dur\": 300},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 10, \"tid\": 10, \"ts\": 1430, \"dur\": 5},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"volta_sgemm\", \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 1440, \"dur\": 200},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 1415, \"dur\": 20},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"far later\", \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 9000, \"dur\": 20},\n"
    "{\"ph\": \"B\", \"cat\": \"user_annotation\", \"name\": \"batch\", \"pid\": 10, \"tid\": 11, \"ts\": 1100},\n"
    "{\"ph\": \"B\", \"cat\": \"user_annotation\", \"name\": \"inner\", \"pid\": 10, \"tid\": 11, \"ts\": 1150},\n"
    "{\"ph\": \"E\", \"cat\": \"user_annotation\", \"name\": \"inner\", \"pid\": 10, \"tid\": 11, \"ts\": 1250},\n"
    "{\"ph\": \"E\", \"cat\": \"user_annotation\", \"name\": \"batch\", \"pid\": 10, \"tid\": 11, \"ts\": 1600},\n"
    "{\"ph\": \"E\", \"cat\": \"user_annotation\", \"name\": \"orphan\", \"pid\": 10, \"tid\": 11, \"ts\": 1700},\n"
    "{\"ph\": \"B\", \"cat\": \"user_annotation\", \"name\": \"never closed\", \"pid\": 10, \"tid\": 11, \"ts\": 1800},\n"
    "{\"ph\": \"C\", \"name\": \"gpu\", \"pid\": 10, \"ts\": 1200, \"args\": {\"util\": 40, \"mem\": 2.5}},\n"
    "{\"ph\": \"C\", \"name\": \"gpu\", \"pid\": 10, \"ts\": 1500, \"args\": {\"util\": 90, \"mem\": 3.5}},\n"
    "{\"ph\": \"i\", \"name\": \"instant\", \"pid\": 10, \"tid\": 10, \"ts\": 1300, \"s\": \"t\"}\n"
    "], \"baseTimeNanoseconds\": 1623142623000000000}\n";

static void kineto_options(dfs_tlw_options *o, int64_t start_us, int64_t end_us)
{
    dfs_tlw_options_init(o);
    o->draw.start_ns = T0 + start_us * 1000;
    o->draw.end_ns = T0 + end_us * 1000;
}

static void test_read_kineto_window(void **state)
{
    (void)state;
    const char *path = tu_temp_file(".json", kineto_trace, sizeof kineto_trace - 1);
    dfs_tlw_options o;
    kineto_options(&o, 1000, 2000);
    read_result rr;
    read_window(path, &o, &rr);
    /* the base time is at the file's end: the first pass could not place the events */
    assert_int_equal(rr.passes, 2);
    const dfs_tlw_result *r = rr.r;
    assert_true(r->have_span);
    assert_int_equal(r->trace_start_ns, T0 + 1000 * 1000);
    assert_int_equal(r->trace_end_ns, T0 + 9020 * 1000);
    assert_int_equal(r->unmatched_begin, 1);
    assert_int_equal(r->unmatched_end, 1);
    dfs_tl_summary s;
    dfs_tl_summarize(r->tl, &s);
    assert_int_equal(s.lanes, 3);
    assert_int_equal(s.spans[DFS_TL_DATA_WAIT], 1);
    /* conv2d and the annotations batch and inner (host), sgemm (device) */
    assert_int_equal(s.spans[DFS_TL_COMPUTE], 4);
    assert_int_equal(s.spans[DFS_TL_TRANSFER], 1); /* the copy */
    assert_int_equal(s.spans[DFS_TL_OTHER], 2);    /* the step, the runtime call */
    assert_int_equal(s.counters, 2);               /* gpu: util, gpu: mem */
    assert_int_equal(s.samples, 4);
    dfs_tl_lane_info l[3];
    assert_int_equal(dfs_tl_lanes(r->tl, l, 3), 3);
    assert_int_equal(l[0].key.pid, 0);
    assert_string_equal(l[0].key.tid_str, "stream 7");
    assert_string_equal(l[1].key.process, "python <main>");
    assert_string_equal(l[1].key.thread, "loop & co");
    assert_int_equal(l[1].spans[DFS_TL_DATA_WAIT], 1);
    assert_int_equal(l[2].key.tid, 11);
    assert_int_equal(l[2].spans[DFS_TL_COMPUTE], 2); /* the B/E pairs batch and inner */
    char *svg = render(r->tl);
    assert_non_null(strstr(svg, "python &lt;main&gt; (pid 10)"));
    assert_non_null(strstr(svg, ">loop &amp; co</text>"));
    /* the device lane is named by device and stream, not by the host program's name */
    assert_string_equal(l[0].key.process, "GPU 0");
    assert_non_null(strstr(svg, ">GPU 0 (pid 0) \xC2\xB7 stream 7</text>"));
    assert_non_null(strstr(svg, ">gpu: util</text>"));
    assert_null(strstr(svg, "far later"));
    assert_null(strstr(svg, "never closed"));
    free(svg);
    read_free(&rr);
}

/* The user's predicates replace the defaults: here the kernels become data wait. */
static void test_read_with_overrides(void **state)
{
    (void)state;
    const char *path = tu_temp_file(".json", kineto_trace, sizeof kineto_trace - 1);
    dfs_concept_overrides ov;
    memset(&ov, 0, sizeof ov);
    ov.text[DFS_CONCEPT_DATA_WAIT] = "cat == \"kernel\"";
    ov.text[DFS_CONCEPT_TRANSFER] = "off";
    dfs_tlw_options o;
    kineto_options(&o, 1000, 2000);
    o.concepts = &ov;
    read_result rr;
    read_window(path, &o, &rr);
    dfs_tl_summary s;
    dfs_tl_summarize(rr.r->tl, &s);
    assert_int_equal(s.spans[DFS_TL_DATA_WAIT], 1); /* sgemm; the loader span is no longer D */
    assert_int_equal(s.spans[DFS_TL_TRANSFER], 0);
    read_free(&rr);

    ov.text[DFS_CONCEPT_DATA_WAIT] = "name.str.contains(\"(\")"; /* bad regular expression */
    char err[256];
    assert_null(dfs_tlw_new(&o, err, sizeof err));
    assert_non_null(strstr(err, "data_wait"));
}

/* Counters of smdebug system metrics and bounds-only measuring. */
static const char smdebug_system[] =
    "{\"Type\": \"cpu\", \"Name\": \"cpu0\", \"Dimension\": \"CPUUtilization\", \"Value\": 4.5, \"NodeId\": \"algo-1\", \"Timestamp\": 1591160699.5}\n"
    "{\"Type\": \"cpu\", \"Name\": \"cpu0\", \"Dimension\": \"CPUUtilization\", \"Value\": 8.5, \"NodeId\": \"algo-1\", \"Timestamp\": 1591160700.0}\n"
    "{\"Type\": \"gpu\", \"Name\": \"gpu0\", \"Dimension\": \"GPUUtilization\", \"Value\": 80, \"NodeId\": \"algo-1\", \"Timestamp\": 1591160700.25}\n";

static void test_read_system_metrics(void **state)
{
    (void)state;
    const char *path = tu_temp_file(".json", smdebug_system, sizeof smdebug_system - 1);
    dfs_tlw_options o;
    dfs_tlw_options_init(&o);
    o.bounds_only = true;
    read_result rr;
    read_window(path, &o, &rr);
    assert_null(rr.r->tl);
    assert_int_equal(rr.r->trace_start_ns, INT64_C(1591160699500000000));
    assert_int_equal(rr.r->trace_end_ns, INT64_C(1591160700250000000));
    read_free(&rr);

    dfs_tlw_options_init(&o);
    o.draw.start_ns = INT64_C(1591160699000000000);
    o.draw.end_ns = INT64_C(1591160701000000000);
    read_window(path, &o, &rr);
    assert_int_equal(rr.passes, 1);
    dfs_tl_summary s;
    dfs_tl_summarize(rr.r->tl, &s);
    assert_int_equal(s.lanes, 0);
    assert_int_equal(s.counters, 2);
    assert_int_equal(s.samples, 3);
    char *svg = render(rr.r->tl);
    assert_non_null(strstr(svg, ">algo-1 CPUUtilization cpu0</text>"));
    assert_non_null(strstr(svg, ">max 100</text>")); /* a utilization: 0 to 100 */
    assert_non_null(strstr(svg, ">min 0</text>"));
    assert_non_null(strstr(svg, "min 4.5, max 8.5</title>")); /* its own values on hover */
    free(svg);
    read_free(&rr);
}

/* ===== bounds: the axis of any window, the lane limit ========================================= */

static dfs_timeline *window_of(int64_t start, int64_t end, unsigned width, const uint64_t *kept, size_t nkept)
{
    dfs_tl_options o;
    dfs_tl_options_init(&o);
    o.start_ns = start;
    o.end_ns = end;
    o.width_px = width;
    o.title = "bounds";
    o.kept = kept;
    o.nkept = nkept;
    dfs_timeline *tl = dfs_tl_new(&o);
    assert_non_null(tl);
    return tl;
}

static uint32_t lane_xy(dfs_timeline *tl, int64_t pid, int64_t tid)
{
    return lane(tl, "h", pid, tid, NULL, NULL);
}


static void test_axis_whole_clock(void **state)
{
    (void)state;
    static const struct {
        int64_t start, end;
    } windows[] = {{0, INT64_MAX}, {INT64_MIN, -1}, {INT64_MIN / 2, INT64_MAX / 2}, {-5, 5}, {0, 1}};
    static const unsigned widths[] = {200, 1200, 20000};
    for (size_t w = 0; w < sizeof windows / sizeof *windows; w++)
        for (size_t k = 0; k < 3; k++) {
            dfs_timeline *tl = window_of(windows[w].start, windows[w].end, widths[k], NULL, 0);
            uint32_t l = lane_xy(tl, 1, 1);
            /* spans reaching far outside the window, both ways, wide and narrow */
            span(tl, l, INT64_MIN, INT64_MAX, "s", DFS_TL_COMPUTE);
            span(tl, l, windows[w].start, INT64_MAX, "s", DFS_TL_IO);
            span(tl, l, windows[w].end - 1, 0, "s", DFS_TL_OTHER);
            char *svg = render(tl);
            size_t ticks = count(svg, "<line");
            assert_true(ticks >= 1);
            assert_true(ticks <= widths[k] / 100 + 2); /* about one per 110 px */
            free(svg);
            dfs_tl_free(tl);
        }
}

static void test_lane_limit_by_width(void **state)
{
    (void)state;
    assert_int_equal(dfs_tl_lane_limit(1200), 1000);
    assert_int_equal(dfs_tl_lane_limit(4000), 1000);
    assert_int_equal(dfs_tl_lane_limit(5000), 800);
    assert_int_equal(dfs_tl_lane_limit(20000), 200);
    dfs_tl_options o;
    dfs_tl_options_init(&o);
    o.end_ns = 1;
    uint64_t kept[201] = {0};
    o.width_px = 20000;
    o.kept = kept;
    o.nkept = 201; /* more than the limit: refused */
    assert_null(dfs_tl_new(&o));
}

enum { NLANES = 1300 };

/* Lane i gets a span of its own length (busier lanes have larger i % 7), narrow or wide, plus a
 * nested one on every fifth; spans are cut into `parts` groups, given part by part. */
static void fill(dfs_timeline *tl, int part, int parts)
{
    for (int i = part; i < NLANES; i += parts) {
        uint32_t l = lane_xy(tl, 1 + i % 9, i);
        int64_t start = (int64_t)(i % 97) * MS;
        span(tl, l, start, (i % 7 + 1) * (i % 3 ? 10000 : MS), "s", (dfs_tl_class)(i % DFS_TL_NCLASS));
        if (i % 5 == 0)
            span(tl, l, start + 1000, 3 * MS, "s", DFS_TL_IO);
    }
}

/* The picture of the same spans, given in `parts` timelines merged in order or backwards. */
static char *picture(int parts, bool backwards, const uint64_t *kept, size_t nkept, dfs_tl_summary *sum)
{
    dfs_timeline *all = window_of(0, 100 * MS, 1200, kept, nkept);
    for (int k = 0; k < parts; k++) {
        dfs_timeline *p = window_of(0, 100 * MS, 1200, kept, nkept);
        fill(p, backwards ? parts - 1 - k : k, parts);
        assert_int_equal(dfs_tl_merge(all, p), DFS_OK);
        dfs_tl_free(p);
    }
    dfs_tl_summarize(all, sum);
    char *svg = render(all);
    dfs_tl_free(all);
    return svg;
}

static void test_crowded(void **state)
{
    (void)state;
    dfs_tl_summary s;
    char *one = picture(1, false, NULL, 0, &s);
    assert_int_equal(s.lanes, NLANES);
    assert_int_equal(s.lanes_drawn, 0);
    assert_int_equal(s.lanes_other, NLANES);
    assert_int_equal(s.spans_other, NLANES + (NLANES + 4) / 5);
    assert_non_null(strstr(one, ">1,300 other lanes</text>"));
    assert_non_null(strstr(one, "more than 1000 lanes: all 1,300 are drawn together"));
    assert_int_equal(count(one, "class=\"ll\""), 0); /* no lane of its own */
    /* the same whatever the split and the order */
    for (int parts = 2; parts <= 7; parts += 5)
        for (int back = 0; back < 2; back++) {
            char *svg = picture(parts, back, NULL, 0, &s);
            assert_string_equal(one, svg);
            free(svg);
        }
    free(one);
}

static void test_not_crowded_at_the_limit(void **state)
{
    (void)state;
    dfs_timeline *tl = window_of(0, 100 * MS, 1200, NULL, 0);
    for (int i = 0; i < 1000; i++)
        span(tl, lane_xy(tl, 1, i), i * 1000, 500, "s", DFS_TL_COMPUTE);
    for (int i = 0; i < 1000; i++) /* lanes without a span in the window do not count */
        span(tl, lane_xy(tl, 2, i), 200 * MS, 500, "s", DFS_TL_COMPUTE);
    assert_false(dfs_tl_crowded(tl));
    dfs_tl_summary s;
    dfs_tl_summarize(tl, &s);
    assert_int_equal(s.lanes_drawn, 1000);
    assert_int_equal(s.lanes_other, 0);
    span(tl, lane_xy(tl, 3, 0), 0, 500, "s", DFS_TL_COMPUTE); /* one more */
    assert_true(dfs_tl_crowded(tl));
    dfs_tl_free(tl);
}

static void test_kept_busiest(void **state)
{
    (void)state;
    dfs_timeline *first = window_of(0, 100 * MS, 1200, NULL, 0);
    fill(first, 0, 1);
    assert_true(dfs_tl_crowded(first));
    size_t n;
    uint64_t *kept = dfs_tl_busiest(first, 1000, &n);
    assert_non_null(kept);
    assert_int_equal(n, 1000);
    dfs_tl_free(first);
    dfs_tl_summary s;
    char *one = picture(1, false, kept, n, &s);
    assert_int_equal(s.lanes, NLANES);
    assert_int_equal(s.lanes_drawn, 1000);
    assert_int_equal(s.lanes_other, NLANES - 1000);
    assert_non_null(strstr(one, ">300 other lanes</text>"));
    assert_non_null(strstr(one, "300 lanes beyond the busiest 1000 share the last row"));
    for (int back = 0; back < 2; back++) {
        char *svg = picture(5, back, kept, n, &s);
        assert_string_equal(one, svg);
        free(svg);
    }
    /* the busiest are kept: every lane with a 7-step span (i % 7 == 6 and wide) is drawn */
    dfs_timeline *tl = window_of(0, 100 * MS, 1200, kept, n);
    fill(tl, 0, 1);
    dfs_tl_lane_info *info = calloc(NLANES, sizeof *info);
    assert_int_equal(dfs_tl_lanes(tl, info, NLANES), NLANES);
    size_t drawn = 0, other = 0;
    for (size_t i = 0; i < NLANES; i++) {
        drawn += info[i].drawn;
        other += info[i].other;
        assert_true(info[i].drawn != info[i].other);
        if (info[i].key.tid % 7 == 6 && info[i].key.tid % 3 == 0)
            assert_true(info[i].drawn);
    }
    assert_int_equal(drawn, 1000);
    assert_int_equal(other, NLANES - 1000);
    free(info);
    dfs_tl_free(tl);
    /* kept lanes and max_lanes below the limit: the others are left out, no other row */
    dfs_tl_options o;
    dfs_tl_options_init(&o);
    o.end_ns = 100 * MS;
    o.max_lanes = 10;
    o.kept = kept;
    o.nkept = n;
    tl = dfs_tl_new(&o);
    fill(tl, 0, 1);
    dfs_tl_summarize(tl, &s);
    assert_int_equal(s.lanes_drawn, 10);
    assert_int_equal(s.lanes_other, 0);
    char *svg = render(tl);
    assert_non_null(strstr(svg, "1,290 lanes omitted: the 10 busiest of 1300 are drawn"));
    assert_null(strstr(svg, "other lanes"));
    free(svg);
    dfs_tl_free(tl);
    free(kept);
    free(one);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lanes_and_classes),
        cmocka_unit_test(test_nesting_depth),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_svg_text_cut),
        cmocka_unit_test(test_narrow_spans_bounded),
        cmocka_unit_test(test_lane_limit),
        cmocka_unit_test(test_empty_window),
        cmocka_unit_test(test_merge_order),
        cmocka_unit_test(test_counters),
        cmocka_unit_test(test_counter_scales),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_write_file_atomically),
        cmocka_unit_test(test_window_syntax),
        cmocka_unit_test(test_read_kineto_window),
        cmocka_unit_test(test_read_with_overrides),
        cmocka_unit_test(test_read_system_metrics),
        cmocka_unit_test(test_axis_whole_clock),
        cmocka_unit_test(test_lane_limit_by_width),
        cmocka_unit_test(test_crowded),
        cmocka_unit_test(test_not_crowded_at_the_limit),
        cmocka_unit_test(test_kept_busiest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
