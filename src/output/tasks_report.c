/* tasks_report.c - `dfscope tasks` output (tasks_report.h).
 *
 * DASF prints pandas DataFrames with display.float_format '%.5f', width 1000, at most 100 columns
 * and max_colwidth 50, and writes them with to_csv. The layout rules copied here, so that the
 * compatible output is byte-identical: every text cell gets a leading space and numeric headers
 * too; a column is as wide as its widest cell (cells above 50 characters are cut to 47 plus
 * "..."), cells are right-aligned, columns are joined by one space after the left-aligned row
 * label; more than 100 columns keep the first and last 50 around a " ..." column, and a table wider
 * than 1000 characters is wrapped into blocks ending in " \". */
#include "output/tasks_report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/atomic.h"
#include "output/csv_dir.h"
#include "output/escape.h"
#include "output/json.h"
#include "util/bytebuf.h"
#include "util/shortest.h"
#include "util/utf8.h"

#define MAX_COLWIDTH 50   /* pandas display.max_colwidth */
#define MAX_COLUMNS 100   /* DASF's display.max_columns */
#define LINE_WIDTH 1000   /* DASF's display.width */

/* ---- numbers as Python prints them --------------------------------------------------------------- */

/* Decimal text of v into buf (at least 24 bytes); returns the length. */
static size_t format_int(char *buf, long long v)
{
    char tmp[24];
    size_t n = 0, k = 0;
    unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
    do
        tmp[n++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        buf[k++] = '-';
    while (n)
        buf[k++] = tmp[--n];
    buf[k] = '\0';
    return k;
}

/* NaN and infinities as repr() spells them, which is what to_csv writes too. */
size_t dfs_py_float_repr(double v, char *buf, size_t cap)
{
    char text[DFS_PY_REPR_MAX];
    dfs_py_repr(v, text);
    return (size_t)snprintf(buf, cap, "%s", text);
}

/* ---- columns of text -------------------------------------------------------------------------- */

typedef struct textcol {
    char *buf;
    size_t len, cap;
    size_t *off;   /* start of each string: the header first, then the rows */
    size_t n, ncap;
    size_t width;  /* widest string, in characters */
} textcol;

/* Characters as Python counts them: UTF-8 sequences (a stray byte counts as one). */
static size_t char_len(const char *s, size_t n)
{
    size_t chars = 0;
    for (size_t i = 0; i < n; chars++) {
        size_t k = dfs_utf8_len((const unsigned char *)s + i, n - i);
        i += k ? k : 1;
    }
    return chars;
}

static size_t char_prefix(const char *s, size_t n, size_t chars)
{
    size_t i = 0;
    while (i < n && chars--) {
        size_t k = dfs_utf8_len((const unsigned char *)s + i, n - i);
        i += k ? k : 1;
    }
    return i;
}

static bool tc_add(textcol *c, const char *s, size_t n, size_t pad_left, size_t pad_right)
{
    size_t need = c->len + pad_left + n + pad_right + 1;
    if (need > c->cap) {
        size_t cap = c->cap ? c->cap : 256;
        while (cap < need)
            cap *= 2;
        char *b = realloc(c->buf, cap);
        if (!b)
            return false;
        c->buf = b, c->cap = cap;
    }
    if (c->n == c->ncap) {
        size_t ncap = c->ncap ? 2 * c->ncap : 32;
        size_t *o = realloc(c->off, ncap * sizeof *o);
        if (!o)
            return false;
        c->off = o, c->ncap = ncap;
    }
    c->off[c->n++] = c->len;
    memset(c->buf + c->len, ' ', pad_left);
    memcpy(c->buf + c->len + pad_left, s, n);
    memset(c->buf + c->len + pad_left + n, ' ', pad_right);
    c->len += pad_left + n + pad_right;
    c->buf[c->len++] = '\0';
    size_t w = char_len(s, n) + pad_left + pad_right;
    if (w > c->width)
        c->width = w;
    return true;
}

static const char *tc_get(const textcol *c, size_t i)
{
    return c->buf + c->off[i];
}

static void tc_free(textcol *c)
{
    free(c->buf);
    free(c->off);
}

/* Length of string i of c (they may hold NUL bytes from a trace). */
static size_t tc_len(const textcol *c, size_t i)
{
    return (i + 1 < c->n ? c->off[i + 1] : c->len) - c->off[i] - 1;
}

/* A text cell as the terminal shows it (output/escape.h), with pandas' leading space. */
static bool add_text_cell(textcol *raw, const char *s, size_t n)
{
    char local[256], *buf = local;
    size_t cap = 4 * n + 1; /* an escape is at most 4 bytes a byte */
    if (cap > sizeof local && !(buf = malloc(cap)))
        return false;
    dfs_term_cell(buf, cap, s, n);
    bool ok = tc_add(raw, buf, strlen(buf), 1, 0);
    if (buf != local)
        free(buf);
    return ok;
}

/* A cell as pandas shows it: text and integers with a leading space, floats with %.5f. */
static bool add_shown_cell(const dfs_tk_table *t, size_t row, size_t col, textcol *raw)
{
    dfs_tk_cell c;
    memset(&c, 0, sizeof c);
    t->cell(t, row, col, &c);
    char buf[400];
    int n;
    if (c.missing)
        n = snprintf(buf, sizeof buf, "n/a");
    else if (t->types[col] == DFS_TK_INT)
        n = snprintf(buf, sizeof buf, "% lld", (long long)c.i);
    else if (t->types[col] == DFS_TK_FLOAT)
        n = isnan(c.f) ? snprintf(buf, sizeof buf, "NaN") : snprintf(buf, sizeof buf, "%.5f", c.f);
    else
        return add_text_cell(raw, c.s, c.len);
    return tc_add(raw, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1, 0, 0);
}

/* pandas' _make_fixed_width: cells right-aligned to the widest cell or the header, at most 50
 * characters (longer cells cut to 47 + "..."); the header right-aligned over the column. */
static bool build_column(const dfs_tk_table *t, size_t col, size_t nrows, textcol *out)
{
    textcol raw = {0};
    bool ok = true;
    for (size_t r = 0; ok && r < nrows; r++)
        ok = add_shown_cell(t, r, col, &raw);
    char header[256];
    int hn = snprintf(header, sizeof header, "%s%s", t->types[col] != DFS_TK_TEXT ? " " : "", t->cols[col]);
    size_t hlen = hn < 0 ? 0 : (size_t)hn >= sizeof header ? sizeof header - 1 : (size_t)hn;
    size_t hw = char_len(header, hlen), max_len = raw.width > hw ? raw.width : hw;
    if (max_len > MAX_COLWIDTH)
        max_len = MAX_COLWIDTH;
    size_t col_width = max_len > hw ? max_len : hw;
    ok = ok && tc_add(out, header, hlen, col_width - hw, 0);
    for (size_t r = 0; ok && r < nrows; r++) {
        const char *s = tc_get(&raw, r);
        size_t n = tc_len(&raw, r), w = char_len(s, n);
        char cut[4 * MAX_COLWIDTH + 4];
        if (w > max_len) {
            size_t keep = char_prefix(s, n, max_len - 3);
            memcpy(cut, s, keep);
            memcpy(cut + keep, "...", 3);
            s = cut, n = keep + 3, w = max_len;
        }
        ok = tc_add(out, s, n, max_len - w, 0);
    }
    tc_free(&raw);
    return ok;
}

/* Row labels, left-aligned under an empty header. */
static bool build_index(const dfs_tk_table *t, size_t nrows, textcol *out)
{
    size_t widest = 0;
    char buf[24];
    for (size_t r = 0; r < nrows; r++) {
        size_t n = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)t->label(t, r));
        widest = n > widest ? n : widest;
    }
    bool ok = tc_add(out, "", 0, 0, 0);
    for (size_t r = 0; ok && r < nrows; r++) {
        size_t n = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)t->label(t, r));
        ok = tc_add(out, buf, n, 0, widest - n);
    }
    return ok;
}

static bool build_repeat(textcol *out, const char *first, const char *rest, size_t n)
{
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++)
        ok = tc_add(out, i ? rest : first, strlen(i ? rest : first), 0, 0);
    return ok;
}

/* pandas' adjoin: every column but the last padded to its width plus one space. */
static void adjoin(FILE *out, textcol *const *cols, size_t ncols)
{
    size_t lines = 0;
    for (size_t i = 0; i < ncols; i++)
        lines = cols[i]->n > lines ? cols[i]->n : lines;
    for (size_t k = 0; k < lines; k++) {
        if (k)
            fputc('\n', out);
        for (size_t i = 0; i < ncols; i++) {
            size_t width = cols[i]->width + (i + 1 < ncols), w = 0;
            if (k < cols[i]->n) {
                const char *s = tc_get(cols[i], k);
                size_t n = tc_len(cols[i], k);
                fwrite(s, 1, n, out);
                w = char_len(s, n);
            }
            for (; w < width; w++)
                fputc(' ', out);
        }
    }
}

/* pandas' _binify: where the columns wrap at the line width. */
static size_t binify(textcol *const *cols, size_t n, size_t line_width, size_t *ends)
{
    size_t nbins = 0, curr = 0;
    for (size_t i = 0; i < n; i++) {
        size_t w = cols[i]->width + 1;
        curr += w;
        bool wrap = i > 0 && curr + (i + 1 == n ? 1 : 2) > line_width;
        if (wrap) {
            ends[nbins++] = i;
            curr = w;
        }
    }
    ends[nbins++] = n;
    return nbins;
}

/* index: the row labels' column, or NULL for none. */
static void join_multiline(FILE *out, textcol *index, textcol *const *cols, size_t n, size_t nrows)
{
    size_t *ends = malloc((n + 1) * sizeof *ends);
    textcol **row = malloc((n + 2) * sizeof *row);
    if (!ends || !row) {
        free(ends), free(row);
        return;
    }
    size_t iw = index ? index->width + 1 : 0;
    size_t lw = LINE_WIDTH > iw ? LINE_WIDTH - iw : 1;
    size_t nbins = binify(cols, n, lw, ends), start = 0;
    for (size_t b = 0; b < nbins; b++) {
        textcol cont = {0};
        size_t k = 0;
        if (index)
            row[k++] = index;
        for (size_t i = start; i < ends[b]; i++)
            row[k++] = (textcol *)cols[i];
        if (nbins > 1) {
            bool more = b + 1 < nbins;
            build_repeat(&cont, more ? " \\" : " ", more ? "  " : " ", nrows ? nrows : 1);
            row[k++] = &cont;
        }
        if (b)
            fputs("\n\n", out);
        adjoin(out, row, k);
        tc_free(&cont);
        start = ends[b];
    }
    free(ends), free(row);
}

void dfs_tasks_print_table(FILE *out, const dfs_tk_table *t, size_t head)
{
    size_t nrows = head && head < t->nrows ? head : t->nrows;
    bool truncated = t->ncols > MAX_COLUMNS;
    size_t half = MAX_COLUMNS / 2, nshow = truncated ? MAX_COLUMNS + 1 : t->ncols;
    textcol index = {0}, *cols = calloc(nshow ? nshow : 1, sizeof *cols);
    textcol **ptrs = malloc((nshow ? nshow : 1) * sizeof *ptrs);
    bool ok = cols && ptrs && (!t->show_index || build_index(t, nrows, &index));
    for (size_t i = 0; ok && i < nshow; i++) {
        ptrs[i] = &cols[i];
        if (truncated && i == half)
            ok = build_repeat(&cols[i], " ...", " ...", nrows + 1);
        else
            ok = build_column(t, truncated && i > half ? t->ncols - (nshow - i) : i, nrows, &cols[i]);
    }
    if (ok) {
        join_multiline(out, t->show_index ? &index : NULL, ptrs, nshow, nrows);
        if (truncated)
            fprintf(out, "\n\n[%zu rows x %zu columns]", nrows, t->ncols);
        fputc('\n', out);
    } else {
        fprintf(out, "(out of memory printing the table)\n");
    }
    for (size_t i = 0; cols && i < nshow; i++)
        tc_free(&cols[i]);
    tc_free(&index);
    free(cols), free(ptrs);
}

/* ---- CSV ---------------------------------------------------------------------------------------- */

/* One CSV row is built here and written with one fwrite: per-character stdio calls lock the
 * stream every time, which dominates a million-row table. */
typedef dfs_bytebuf line;

static void line_char(line *l, char c) { dfs_bytebuf_put(l, &c, 1); }

static void line_sink(void *l, const char *s, size_t n) { dfs_bytebuf_put(l, s, n); }

/* Python's csv: a field with a comma, a quote or a line break is quoted, quotes doubled. */
static void csv_text(line *l, const char *s, size_t n)
{
    dfs_csv_escape(line_sink, l, s, n);
}

static void csv_cell(line *l, const dfs_tk_table *t, size_t row, size_t col)
{
    dfs_tk_cell c;
    memset(&c, 0, sizeof c);
    t->cell(t, row, col, &c);
    if (c.missing)
        return;
    char buf[48];
    switch (t->types[col]) {
    case DFS_TK_INT: dfs_bytebuf_put(l, buf, format_int(buf, c.i)); break;
    case DFS_TK_FLOAT:
        if (!isnan(c.f)) /* pandas writes NaN as an empty field */
            dfs_bytebuf_put(l, buf, dfs_py_float_repr(c.f, buf, sizeof buf));
        break;
    default: csv_text(l, c.s, c.len); break;
    }
}

bool dfs_tasks_write_csv(FILE *out, const dfs_tk_table *t)
{
    line l = {0};
    char buf[32];
    for (size_t c = 0; c < t->ncols; c++) {
        if (c || t->show_index) /* pandas' index column has an empty header */
            line_char(&l, ',');
        csv_text(&l, t->cols[c], strlen(t->cols[c]));
    }
    line_char(&l, '\n');
    for (size_t r = 0; r < t->nrows && !l.oom; r++) {
        fwrite(l.v, 1, l.n, out);
        l.n = 0;
        if (t->show_index)
            dfs_bytebuf_put(&l, buf, format_int(buf, t->label(t, r)));
        for (size_t c = 0; c < t->ncols; c++) {
            if (c || t->show_index)
                line_char(&l, ',');
            csv_cell(&l, t, r, c);
        }
        line_char(&l, '\n');
    }
    if (!l.oom)
        fwrite(l.v, 1, l.n, out);
    dfs_bytebuf_free(&l);
    return !l.oom;
}

static bool write_table(FILE *out, const void *tables, size_t which)
{
    return dfs_tasks_write_csv(out, ((const dfs_tk_table *const *)tables)[which]);
}

/* The tables that ran, in DASF's order. */
static size_t tables_of(const dfs_tasks_result *r, const dfs_tk_table **out)
{
    size_t n = 0;
    if (r->legacy) {
        out[n++] = &r->names;
        return n;
    }
    if (r->analyses & DFS_TASKS_FUNCTION)
        out[n++] = &r->function;
    if (r->analyses & DFS_TASKS_TASK)
        out[n++] = &r->task;
    if (r->analyses & DFS_TASKS_BALANCE)
        out[n++] = &r->balance;
    if (r->analyses & DFS_TASKS_CRITICAL)
        out[n++] = &r->critical;
    return n;
}

int dfs_tasks_write_csv_dir(const char *dir, const dfs_tasks_result *r, dfs_output_guard *guard, char *err,
                            size_t errlen)
{
    const dfs_tk_table *tabs[4];
    dfs_csv_file files[4];
    size_t n = tables_of(r, tabs);
    for (size_t i = 0; i < n; i++) {
        files[i] = (dfs_csv_file){.write = write_table, .which = i};
        snprintf(files[i].name, sizeof files[i].name, "%s.csv", tabs[i]->name);
    }
    return dfs_csv_dir_write(dir, true, files, n, tabs, guard, err, errlen);
}

/* ---- the report ------------------------------------------------------------------------------- */

static const char *mode_line(const dfs_tasks_result *r)
{
    return r->mode == DFS_TASKS_COMPAT
               ? "mode: compatible (--compat dasf): DASF TraceAnalyser's tables, quirks included"
               : "mode: default: DASF's analyses with its bugs fixed (--compat dasf gives DASF's numbers)";
}

static void print_path_summary(FILE *out, const dfs_tasks_result *r)
{
    fprintf(out, "Length %.6f s over %zu of %zu task(s)", r->path_seconds, r->path_tasks,
            r->graph.nnodes);
    if (r->cycle_nodes)
        fprintf(out, "; %zu on dependency cycles left out", r->cycle_nodes);
    fputc('\n', out);
}

void dfs_tasks_write_text(FILE *out, const dfs_tasks_result *r, size_t head)
{
    fprintf(out, "%s\n", mode_line(r));
    if (r->mode == DFS_TASKS_DEFAULT)
        fprintf(out, "units: seconds; MB and Mb = 1e6 bytes, GB = 1e9 bytes; Percentage of total time = "
                     "of the worker's (Host, GPU) compute time, Share of job time = of all workers'\n");
    for (size_t i = 0; i < r->nnotes; i++)
        fprintf(out, "note: %s\n", r->notes[i]);
    const dfs_tk_table *tabs[4];
    size_t n = tables_of(r, tabs);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "====================%s====================\n", tabs[i]->title);
        if (tabs[i] == &r->critical)
            print_path_summary(out, r);
        dfs_tasks_print_table(out, tabs[i], head);
        fprintf(out, "================================================================================\n\n");
    }
    fprintf(out, "Analyses finished!\n");
}

/* ---- JSON --------------------------------------------------------------------------------------- */

static void json_cell(dfs_jw *w, const dfs_tk_table *t, size_t row, size_t col)
{
    dfs_tk_cell c;
    memset(&c, 0, sizeof c);
    t->cell(t, row, col, &c);
    if (c.missing) {
        dfs_jw_null(w, t->cols[col]);
        return;
    }
    switch (t->types[col]) {
    case DFS_TK_INT: dfs_jw_int(w, t->cols[col], c.i); break;
    case DFS_TK_FLOAT: dfs_jw_double(w, t->cols[col], c.f); break;
    default: dfs_jw_str(w, t->cols[col], c.s, c.len); break;
    }
}

static void json_table(dfs_jw *w, const dfs_tk_table *t, size_t head)
{
    size_t nrows = head && head < t->nrows ? head : t->nrows;
    dfs_jw_object(w, t->name);
    dfs_jw_array(w, "columns");
    for (size_t c = 0; c < t->ncols; c++)
        dfs_jw_cstr(w, NULL, t->cols[c]);
    dfs_jw_end(w);
    dfs_jw_uint(w, "rows_total", t->nrows);
    dfs_jw_array(w, "rows");
    for (size_t r = 0; r < nrows; r++) {
        dfs_jw_object(w, NULL);
        dfs_jw_int(w, "label", t->label(t, r));
        for (size_t c = 0; c < t->ncols; c++)
            json_cell(w, t, r, c);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_end(w);
}

void dfs_tasks_write_json(FILE *out, const dfs_tasks_result *r, size_t head)
{
    dfs_jw w;
    dfs_jw_init(&w, out, true);
    dfs_jw_object(&w, NULL);
    dfs_jw_cstr(&w, "mode", r->mode == DFS_TASKS_COMPAT ? "compat" : "default");
    dfs_jw_bool(&w, "legacy", r->legacy);
    dfs_jw_bool(&w, "gpu_available", r->gpu_available);
    dfs_jw_uint(&w, "compute_events", r->computes);
    dfs_jw_uint(&w, "managed_memory_events", r->managed);
    dfs_jw_uint(&w, "resource_samples", r->samples);
    dfs_jw_uint(&w, "resource_samples_attributed", r->samples_attributed);
    dfs_jw_array(&w, "notes");
    for (size_t i = 0; i < r->nnotes; i++)
        dfs_jw_cstr(&w, NULL, r->notes[i]);
    dfs_jw_end(&w);
    if (r->analyses & DFS_TASKS_CRITICAL && !r->legacy) {
        dfs_jw_object(&w, "critical_path_summary");
        dfs_jw_double(&w, "seconds", r->path_seconds);
        dfs_jw_uint(&w, "tasks", r->path_tasks);
        dfs_jw_uint(&w, "graph_nodes", r->graph.nnodes);
        dfs_jw_uint(&w, "graph_edges", r->graph.nedges);
        dfs_jw_uint(&w, "cycle_nodes", r->cycle_nodes);
        dfs_jw_end(&w);
    }
    dfs_jw_object(&w, "tables");
    const dfs_tk_table *tabs[4];
    size_t n = tables_of(r, tabs);
    for (size_t i = 0; i < n; i++)
        json_table(&w, tabs[i], head);
    dfs_jw_end(&w);
    dfs_jw_end(&w);
    fputc('\n', out);
}

/* ---- the task graph ------------------------------------------------------------------------------ */

/* GraphML character data and DOT quoted strings: output/escape.h's rules. */
static void xml_text(FILE *out, const char *s, size_t n)
{
    dfs_xml_escape(dfs_put_file, out, s, n, 0);
}

static void dot_text(FILE *out, const char *s, size_t n)
{
    dfs_dot_escape(dfs_put_file, out, s, n);
}

typedef void (*text_fn)(FILE *, const char *, size_t);

static void graph_str(FILE *out, const dfs_tasks *t, dfs_str s, text_fn esc)
{
    size_t n;
    const char *p = dfs_tasks_str(t, s, &n);
    esc(out, p, n);
}

static void graphml_data(FILE *out, const char *key, double v)
{
    char buf[40];
    dfs_py_float_repr(v, buf, sizeof buf);
    fprintf(out, "<data key=\"%s\">%s</data>", key, buf);
}

static void write_graphml(FILE *out, const dfs_tasks *t, const dfs_tasks_graph *g)
{
    static const char *const keys[][2] = {
        {"key", "string"}, {"name", "string"}, {"size", "double"}, {"shape", "string"},
        {"type", "string"}, {"duration", "double"}, {"input_data_size", "double"},
        {"throughput", "double"}, {"critical", "boolean"}};
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n");
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        fprintf(out, "  <key id=\"%s\" for=\"node\" attr.name=\"%s\" attr.type=\"%s\"/>\n", keys[i][0],
                keys[i][0], keys[i][1]);
    fprintf(out, "  <graph id=\"dasf\" edgedefault=\"directed\">\n");
    for (size_t i = 0; i < g->nnodes; i++) {
        const dfs_tasks_node *n = &g->nodes[i];
        fprintf(out, "    <node id=\"n%zu\"><data key=\"key\">", i);
        graph_str(out, t, n->key, xml_text);
        fputs("</data>", out);
        if (n->has_attrs) {
            fputs("<data key=\"name\">", out);
            graph_str(out, t, n->name, xml_text);
            fputs("</data>", out);
            graphml_data(out, "size", n->size);
            fputs("<data key=\"shape\">", out);
            xml_text(out, n->shape, strlen(n->shape));
            fputs("</data><data key=\"type\">", out);
            graph_str(out, t, n->type, xml_text);
            fputs("</data>", out);
            graphml_data(out, "duration", n->duration);
        }
        graphml_data(out, "input_data_size", n->input_size);
        graphml_data(out, "throughput", n->throughput);
        fprintf(out, "<data key=\"critical\">%s</data></node>\n", n->on_path ? "true" : "false");
    }
    for (size_t u = 0; u < g->nnodes; u++)
        for (uint32_t k = g->succ_start[u]; k < g->succ_start[u + 1]; k++)
            fprintf(out, "    <edge source=\"n%zu\" target=\"n%u\"/>\n", u, g->succ[k]);
    fprintf(out, "  </graph>\n</graphml>\n");
}

static void write_dot(FILE *out, const dfs_tasks *t, const dfs_tasks_graph *g)
{
    char size[40], dur[40], in[40], thr[40];
    fprintf(out, "digraph dasf {\n  node [shape=box];\n");
    for (size_t i = 0; i < g->nnodes; i++) {
        const dfs_tasks_node *n = &g->nodes[i];
        fprintf(out, "  n%zu [label=\"", i);
        graph_str(out, t, n->key, dot_text);
        fputs("\"", out);
        dfs_py_float_repr(n->input_size, in, sizeof in);
        dfs_py_float_repr(n->throughput, thr, sizeof thr);
        if (n->has_attrs) {
            dfs_py_float_repr(n->size, size, sizeof size);
            dfs_py_float_repr(n->duration, dur, sizeof dur);
            fputs(", name=\"", out);
            graph_str(out, t, n->name, dot_text);
            fprintf(out, "\", size=%s, shape_=\"", size);
            dot_text(out, n->shape, strlen(n->shape));
            fputs("\", type=\"", out);
            graph_str(out, t, n->type, dot_text);
            fprintf(out, "\", duration=%s", dur);
        }
        fprintf(out, ", input_data_size=%s, throughput=%s%s];\n", in, thr,
                n->on_path ? ", critical=true, color=red, penwidth=2" : "");
    }
    for (size_t u = 0; u < g->nnodes; u++)
        for (uint32_t k = g->succ_start[u]; k < g->succ_start[u + 1]; k++) {
            bool hot = g->nodes[u].on_path && g->nodes[g->succ[k]].on_path;
            fprintf(out, "  n%zu -> n%u%s;\n", u, g->succ[k], hot ? " [color=red, penwidth=2]" : "");
        }
    fprintf(out, "}\n");
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

int dfs_tasks_write_graph(const char *path, dfs_graph_format f, const dfs_tasks *t, const dfs_tasks_result *r,
                          dfs_output_guard *guard, char *err, size_t errlen)
{
    if (f == DFS_GRAPH_AUTO)
        f = ends_with(path, ".dot") || ends_with(path, ".gv") ? DFS_GRAPH_DOT : DFS_GRAPH_GRAPHML;
    dfs_atomic_file af;
    if (dfs_atomic_open(&af, path, guard, err, errlen) != 0)
        return -1;
    if (f == DFS_GRAPH_DOT)
        write_dot(af.fp, t, &r->graph);
    else
        write_graphml(af.fp, t, &r->graph);
    return dfs_atomic_close(&af, true, err, errlen) == 0 ? 0 : -1;
}
