/* test_report_html.c - the report page's writing (src/output/report_html.c, html_chart.c) and its
 * two escaping contexts (escape.h: HTML text and attributes, JSON inside a script element): what
 * each writes for hostile strings, chart values with SI prefixes, and the page's size bound on a
 * detail filled to every bound with long hostile labels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "output/escape.h"
#include "output/html_chart.h"
#include "output/report_html.h"

typedef struct buf {
    char *b;
    size_t n;
} buf;

typedef void (*esc_fn)(dfs_put_fn put, void *sink, const char *s, size_t n);

/* What fn writes for s, into o (freed by the next call and by done). */
static const char *esc(esc_fn fn, const char *s, buf *o)
{
    free(o->b);
    o->b = NULL;
    FILE *f = open_memstream(&o->b, &o->n);
    assert_non_null(f);
    fn(dfs_put_file, f, s, strlen(s));
    fclose(f);
    return o->b;
}

static void done(buf *o)
{
    free(o->b);
}

static void html_text(void **state)
{
    (void)state;
    buf o = {0};
    assert_string_equal(esc(dfs_html_escape, "plain", &o), "plain");
    assert_string_equal(esc(dfs_html_escape, "</script><b a='x'>&", &o), "&lt;/script&gt;&lt;b a=&#39;x&#39;&gt;&amp;");
    assert_string_equal(esc(dfs_html_escape, "q\"uote\nline\ttab", &o), "q&quot;uote\nline\ttab");
    /* what HTML5 calls a parse error even as a character: controls, C1, noncharacters, bad UTF-8 */
    assert_string_equal(esc(dfs_html_escape, "a\x01" "b\x7f" "c\xc2\x85" "d", &o),
                        "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\xEF\xBF\xBD" "d");
    assert_string_equal(esc(dfs_html_escape, "\xef\xb7\x90|\xef\xbf\xbe|\xf0\x9f\xbf\xbf|\xff", &o),
                        "\xEF\xBF\xBD|\xEF\xBF\xBD|\xEF\xBF\xBD|\xEF\xBF\xBD");
    assert_string_equal(esc(dfs_html_escape, "caf\xc3\xa9 \xf0\x9f\x98\x80", &o), "caf\xc3\xa9 \xf0\x9f\x98\x80");
    done(&o);
}

static void script_json(void **state)
{
    (void)state;
    buf o = {0};
    assert_string_equal(esc(dfs_script_json_escape, "plain", &o), "plain");
    assert_string_equal(esc(dfs_script_json_escape, "</script><!--", &o), "\\u003c/script\\u003e\\u003c!--");
    assert_string_equal(esc(dfs_script_json_escape, "q\"b\\s\n'&", &o), "q\\\"b\\\\s\\u000a\\u0027\\u0026");
    assert_string_equal(esc(dfs_script_json_escape, "ls\xe2\x80\xa8ps\xe2\x80\xa9", &o), "ls\\u2028ps\\u2029");
    assert_string_equal(esc(dfs_script_json_escape, "bad\xff", &o), "bad\\ufffd");
    assert_string_equal(esc(dfs_script_json_escape, "caf\xc3\xa9", &o), "caf\xc3\xa9");
    done(&o);
}

static void chart_values(void **state)
{
    (void)state;
    char b[48];
    assert_string_equal(dfs_chart_value(b, sizeof b, 0.0015, DFS_CU_SECONDS), "1.50 ms");
    assert_string_equal(dfs_chart_value(b, sizeof b, 90, DFS_CU_SECONDS), "90 s");
    assert_string_equal(dfs_chart_value(b, sizeof b, 300, DFS_CU_SECONDS), "5 min");
    assert_string_equal(dfs_chart_value(b, sizeof b, 4.69e9, DFS_CU_BYTES_S), "4.69 GB/s");
    assert_string_equal(dfs_chart_value(b, sizeof b, 12500, DFS_CU_COUNT), "12.5 k");
    assert_string_equal(dfs_chart_value(b, sizeof b, NAN, DFS_CU_PER_S), "0/s");
}

/* ---- the page at every bound ---- */

/* Markup, quotes, a line break and a bad byte, then quotes only (the largest escape, 6 bytes). */
static char *long_hostile(size_t n)
{
    static const char piece[] = "</script><script>x()</script>\"'\n\xff\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"";
    char *s = malloc(n + 1);
    assert_non_null(s);
    for (size_t i = 0; i < n; i++)
        s[i] = piece[i % (sizeof piece - 1)];
    s[n] = '\0';
    return s;
}

static void fill_detail(dfs_report_detail *d, const char *name)
{
    memset(d, 0, sizeof *d);
    d->nranks = d->ranks_total = DFS_DETAIL_RANKS;
    for (size_t i = 0; i < DFS_DETAIL_RANKS; i++) {
        snprintf(d->ranks[i].label, sizeof d->ranks[i].label, "%s", name);
        d->ranks[i].span_s = 100 - (double)i;
        for (size_t k = 0; k < DFS_REPORT_MAX_PARTS; k++)
            d->ranks[i].part_s[k] = (100 - (double)i) / DFS_REPORT_MAX_PARTS;
    }
    dfs_detail_time *t = &d->time;
    t->n = DFS_DETAIL_BINS, t->bin_s = 1, t->io_layer = name, t->nlayers = DFS_DETAIL_SERIES;
    for (size_t k = 0; k < DFS_DETAIL_SERIES; k++) {
        t->layers[k].name = name;
        for (size_t i = 0; i < DFS_DETAIL_BINS; i++)
            t->layers[k].busy[i] = 1.0 + (double)((i * 7 + k) % 13);
    }
    for (size_t i = 0; i < DFS_DETAIL_BINS; i++)
        t->bytes_per_s[i] = 1e9 * (double)(i % 5), t->ops_per_s[i] = 1e3 * (double)(i % 3);
    t->nmarks = DFS_DETAIL_MARKS;
    for (size_t i = 0; i < DFS_DETAIL_MARKS; i++)
        t->marks_s[i] = (double)i * 2;
    dfs_detail_steps *s = &d->steps;
    snprintf(s->run, sizeof s->run, "%s", name);
    s->n = DFS_DETAIL_STEPS, s->total = 1000000, s->per_bin = 6250, s->median_s = 1, s->have_wait = true;
    for (size_t i = 0; i < DFS_DETAIL_STEPS; i++)
        s->v[i] = (dfs_detail_step){(int64_t)i * 6250, (int64_t)i * 6250 + 6249, 1 + (double)(i % 4), 0.5, i % 4 == 3,
                                    i % 10 == 0};
    dfs_detail_io *io = &d->io;
    d->have_io = true;
    io->size_layer = name, io->nsizes = DFS_DETAIL_SIZES;
    for (size_t i = 0; i < DFS_DETAIL_SIZES; i++)
        snprintf(io->size_label[i], sizeof io->size_label[i], "%s", i + 1 < DFS_DETAIL_SIZES ? "4kib_16kib" : "4gib_plus"),
            io->size_count[i] = i * 1000;
    io->ncalls = io->nfiles = DFS_DETAIL_TOP, io->calls_total = io->files_total = 100000;
    for (size_t i = 0; i < DFS_DETAIL_TOP; i++)
        io->calls[i] = io->files_by_time[i] = io->files_by_bytes[i] = (dfs_detail_named){name, 7, 1u << 20, 3.5};
    io->read_s = 1, io->write_s = 2, io->metadata_s = 3, io->other_s = 4;
    d->have_dasf = true;
    dfs_detail_dasf *k = &d->dasf;
    k->nfunctions = DFS_DETAIL_TOP, k->nworkers = DFS_DETAIL_RANKS, k->path_tasks = 3, k->path_s = 2, k->wall_s = 9;
    for (size_t i = 0; i < DFS_DETAIL_TOP; i++)
        snprintf(k->function_label[i], sizeof k->function_label[i], "%s", name), k->function_s[i] = 1;
    for (size_t i = 0; i < DFS_DETAIL_RANKS; i++)
        snprintf(k->worker_label[i], sizeof k->worker_label[i], "%s", name), k->worker_s[i] = 1;
    d->timeline_len = DFS_DETAIL_PICTURE_MAX;
    d->timeline_svg = malloc(d->timeline_len);
    assert_non_null(d->timeline_svg);
    memset(d->timeline_svg, '<', d->timeline_len);
    snprintf(d->timeline_what, sizeof d->timeline_what, "%s", name);
    d->nproblems = DFS_DETAIL_PROBLEMS;
    for (size_t i = 0; i < DFS_DETAIL_PROBLEMS; i++)
        d->problems[i] = (dfs_detail_problem){"invalid_utf8", 5, true, name, 3, 9, ""};
}

static void page_bound(void **state)
{
    (void)state;
    char *name = long_hostile(100000);
    dfs_report_detail *d = malloc(sizeof *d);
    dfs_job_report *r = calloc(1, sizeof *r);
    assert_non_null(d);
    assert_non_null(r);
    fill_detail(d, name);
    static const char *const ids[] = {"compute", "data_wait_exposed", "io_exposed", "checkpoint_exposed",
                                      "transfer", "runtime", "other", "x"};
    r->nparts = DFS_REPORT_MAX_PARTS;
    for (size_t k = 0; k < DFS_REPORT_MAX_PARTS; k++)
        r->parts[k] = (dfs_report_part){ids[k], ids[k], 10};
    r->breakdown_wall_s = 80, r->breakdown_basis = "exact per process (interval overlap)";
    snprintf(r->verdict, sizeof r->verdict, "balanced");
    r->preset = name, r->second_pass = name;
    char *paths[] = {(char *)"traces/a b", (char *)"x"};
    r->paths = paths, r->npaths = 2;
    dfs_metrics m;
    dfs_metrics_init(&m);
    r->metrics = &m;
    char *page = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&page, &size);
    assert_non_null(out);
    dfs_job_report_write_html(out, r, d);
    fclose(out);
    if (getenv("DFS_PAGE_DUMP")) {
        FILE *f = fopen(getenv("DFS_PAGE_DUMP"), "w");
        fwrite(page, 1, size, f);
        fclose(f);
    }
    assert_true(size < 2000000);
    assert_null(strstr(page, "<script>x()"));
    assert_null(strstr(page, "\xff"));
    free(page);
    dfs_metrics_free(&m);
    free(d->timeline_svg);
    free(r);
    free(d);
    free(name);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(html_text), cmocka_unit_test(script_json),
                                       cmocka_unit_test(chart_values), cmocka_unit_test(page_bound)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
