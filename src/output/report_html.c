/* report_html.c - `dfscope report -o report.html`: the report as one self-contained page. Top to
 * bottom: the verdict and where the wall time goes, the insights (severity, evidence, remedy,
 * command), then whichever of these the inputs give: the breakdown per rank, the job over time,
 * the steps, the I/O (sizes, calls, read and write, files), the GPUs, the DASF tasks, the input's problems,
 * and the commands that reproduce each section; a glossary ends it.
 *
 * Invariants: the page needs no network (inline CSS and SVG, a content security policy that
 * forbids every fetch, a small script that only sorts tables) and reads whole without scripts;
 * light and dark follow the browser (prefers-color-scheme); every string from a trace or a path
 * is escaped for its context (escape.h: HTML text and attributes, JSON in a script) and cut to
 * TEXT_MAX characters; the page's size is bounded whatever the input (detail.h's bounds times
 * the bytes of one mark: docs/REPORT.md states the bound). */
#include "output/report_html.h"

#include <math.h>
#include <string.h>

#include "dfscope.h"
#include "output/escape.h"
#include "output/format.h"
#include "output/html_chart.h"
#include "output/job_report_internal.h"
#include "output/palette.h"
#include "output/svg.h"

enum { TEXT_MAX = 240, PATHS_MAX = 16, PATH_MAX_CHARS = 1024 };

/* ---- text ---- */

static void put_html(void *fp, const char *s, size_t n)
{
    dfs_html_escape(dfs_put_file, fp, s, n);
}

static void put_script(void *fp, const char *s, size_t n)
{
    dfs_script_json_escape(dfs_put_file, fp, s, n);
}

/* Escaped text from a trace, cut to max characters. */
static void h_cut(FILE *out, const char *s, size_t max)
{
    size_t n = s ? strlen(s) : 0;
    if (!n)
        return;
    bool cut = dfs_svg_prefix(s, n, max) < n;
    dfs_html_escape(dfs_put_file, out, s, cut ? dfs_svg_prefix(s, n, max - 1) : n);
    if (cut)
        fputs("\xE2\x80\xA6", out);
}

static void h(FILE *out, const char *s)
{
    h_cut(out, s, TEXT_MAX);
}

static const char *pct(char *buf, size_t n, double part, double whole)
{
    if (whole > 0 && isfinite(part))
        snprintf(buf, n, "%.1f %%", 100 * part / whole);
    else
        snprintf(buf, n, "n/a");
    return buf;
}

static const char *secs(char *buf, size_t n, double s)
{
    return dfs_jr_seconds(buf, n, s);
}

/* A path for a POSIX shell: as it is when it needs no quoting, else in single quotes. */
static void shell_word(FILE *out, const char *p)
{
    size_t n = strlen(p);
    if (n && strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./-=:,+@%") == n) {
        h_cut(out, p, PATH_MAX_CHARS);
        return;
    }
    fputc('\'', out);
    for (const char *q = p; *q; q++)
        if (*q == '\'')
            fputs("'\\''", out); /* HTML needs no escape for the apostrophe in text */
        else
            put_html(out, q, 1);
    fputc('\'', out);
}

/* <code>dfscope ... PATHS</code>: a command the user can paste. */
static void command(FILE *out, const dfs_job_report *r, const char *cmd)
{
    fputs("<code class=\"cmd\">", out);
    h(out, cmd);
    for (int i = 0; i < r->npaths && i < PATHS_MAX; i++) {
        fputc(' ', out);
        shell_word(out, r->paths[i]);
    }
    if (r->npaths > PATHS_MAX)
        fprintf(out, " \xE2\x80\xA6 (%d more paths)", r->npaths - PATHS_MAX);
    fputs("</code>", out);
}

static void reproduce(FILE *out, const dfs_job_report *r, const char *cmd)
{
    fputs("<p class=\"repro\">Reproduce: ", out);
    command(out, r, cmd);
    fputs("</p>\n", out);
}

/* ---- head and style ---- */

static const char style[] =
    ":root{color-scheme:light dark;--bg:#fff;--fg:#1b1b1b;--mute:#5b5b5b;--line:#d0d0d0;--card:#f5f6f8;"
    "--crit:#b3261e;--warn:#8a5a00;--info:#2f5d8a}"
    "@media (prefers-color-scheme:dark){:root{--bg:#16181c;--fg:#e6e6e6;--mute:#a8a8a8;--line:#3a3d44;"
    "--card:#20232a;--crit:#ff8a80;--warn:#ffcc66;--info:#8ab4f8}}"
    "body{background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
    "margin:0 auto;max-width:980px;padding:16px 20px 40px}"
    "h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin:1.6em 0 .4em;border-bottom:1px solid var(--line)}"
    "h3{font-size:1.02em;margin:1.1em 0 .3em}.why,.repro,.note,figcaption{color:var(--mute)}"
    "figure{margin:.6em 0 1em}figcaption{font-weight:600;color:var(--fg);margin-bottom:.2em}"
    "svg.chart{width:100%;height:auto;display:block;font:11px system-ui,sans-serif}"
    "svg text{fill:var(--fg)}svg .tk{text-anchor:middle;fill:var(--mute)}svg .yt{text-anchor:end;fill:var(--mute)}"
    "svg .rl{text-anchor:end}svg .ax{text-anchor:middle;fill:var(--mute)}svg .grid{stroke:var(--line)}"
    "svg .axis{stroke:var(--mute)}svg .mark{stroke:var(--fg);stroke-dasharray:3 3;opacity:.6}"
    "table{border-collapse:collapse;width:100%;margin:.3em 0 1em;font-size:.93em}"
    "th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "th.sort{cursor:pointer}th.sort:after{content:' \\2195';color:var(--mute)}"
    "code{font:.88em ui-monospace,Menlo,Consolas,monospace;background:var(--card);padding:1px 4px;border-radius:3px;"
    "overflow-wrap:anywhere}"
    ".ins{background:var(--card);border-left:4px solid var(--info);padding:8px 12px;margin:.6em 0;border-radius:4px}"
    ".ins.critical{border-color:var(--crit)}.ins.warning{border-color:var(--warn)}"
    ".sev{font-weight:700;text-transform:uppercase;font-size:.8em;letter-spacing:.04em}"
    ".critical .sev{color:var(--crit)}.warning .sev{color:var(--warn)}.info .sev{color:var(--info)}"
    "img.tl{max-width:100%;height:auto;border:1px solid var(--line)}.ins p{margin:.25em 0}.facts{color:var(--mute)}dl.gl dt{font-weight:600}dl.gl dd{margin:0 0 .4em 1.2em}";

/* Sorts a table by a clicked header: numbers by their data-v, text otherwise. Nothing else runs. */
static const char script[] =
    "document.querySelectorAll('table.sortable th').forEach(function(th,i){th.classList.add('sort');"
    "th.addEventListener('click',function(){var tb=th.closest('table').tBodies[0];"
    "var rows=Array.prototype.slice.call(tb.rows);var d=th.dataset.dir==='a'?-1:1;th.dataset.dir=d>0?'a':'d';"
    "rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i];var p=parseFloat(x.dataset.v),q=parseFloat(y.dataset.v);"
    "if(!isNaN(p)&&!isNaN(q))return d*(q-p);return d*x.textContent.localeCompare(y.textContent);});"
    "rows.forEach(function(r){tb.appendChild(r);});});});";

static void head(FILE *out, const dfs_job_report *r)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "script-src 'unsafe-inline'; img-src data:\">\n<title>dfscope report: ",
          out);
    h(out, r->verdict);
    fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
}

/* ---- the answer ---- */

static void verdict(FILE *out, const dfs_job_report *r)
{
    size_t crit = 0, warn = 0;
    for (size_t i = 0; i < r->insights.n; i++)
        crit += r->insights.v[i].severity == DFS_SEV_CRITICAL, warn += r->insights.v[i].severity == DFS_SEV_WARNING;
    fputs("<header id=\"verdict\">\n<p class=\"why\">dfscope report</p>\n<h1>", out);
    h(out, r->verdict);
    fprintf(out, "</h1>\n<p class=\"why\">%zu critical, %zu warning, %zu info insights; ", crit, warn,
            r->insights.n - crit - warn);
    h(out, r->verdict_why);
    fputs("</p>\n", out);
}

static void job(FILE *out, const dfs_job_report *r)
{
    char a[64], b[64], d[48], count[128];
    fputs("<p>", out);
    if (r->ranks)
        fprintf(out, "%llu %s; ", (unsigned long long)r->ranks, r->ranks_what);
    for (size_t i = 0; i < r->nkinds; i++)
        fprintf(out, "%s%s: %llu file%s, %s", i ? "; " : "", r->kinds[i].name,
                (unsigned long long)r->kinds[i].files, r->kinds[i].files == 1 ? "" : "s",
                dfs_jr_kind_count(count, sizeof count, &r->kinds[i]));
    if (r->preset) {
        fputs("; layers of preset ", out);
        h(out, r->preset);
    }
    if (r->timed)
        fprintf(out, ".<br>Span %s .. %s (%s wall time)", dfs_fmt_time(a, sizeof a, r->start_ns),
                dfs_fmt_time(b, sizeof b, r->end_ns), secs(d, sizeof d, r->wall_s));
    fputs(".</p>\n", out);
    for (size_t i = 0; i < r->nkinds; i++)
        if (!r->kinds[i].analysed)
            fprintf(out, "<p class=\"note\">Not in this report: %s (%s); %s answer for them.</p>\n", r->kinds[i].name,
                    r->kinds[i].why, r->kinds[i].commands);
    if (r->second_pass) {
        fputs("<p class=\"note\">Read twice: ", out);
        h(out, r->second_pass);
        fputs("</p>\n", out);
    }
    fputs("</header>\n", out);
}

static const char *part_color(const char *id)
{
    static const struct {
        const char *id, *color;
    } map[] = {{"compute", DFS_PAL_BLUE},     {"data_wait_exposed", DFS_PAL_RED}, {"io_exposed", DFS_PAL_PURPLE},
               {"checkpoint_exposed", DFS_PAL_ORANGE}, {"transfer", DFS_PAL_ORANGE}, {"runtime", DFS_PAL_TEAL},
               {"other", DFS_PAL_GREY}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(map[i].id, id) == 0)
            return map[i].color;
    return DFS_PAL_BROWN;
}

/* The parts as series over rows: values[k][row]. */
static void part_series(const dfs_job_report *r, dfs_chart_series *s, const double *values, size_t stride)
{
    for (size_t k = 0; k < r->nparts; k++)
        s[k] = (dfs_chart_series){r->parts[k].label, part_color(r->parts[k].id), values + k * stride};
}

static void breakdown(FILE *out, const dfs_job_report *r)
{
    fputs("<section id=\"breakdown\">\n<h2>Where the wall time goes</h2>\n", out);
    if (!r->nparts || !(r->breakdown_wall_s > 0)) {
        fputs("<p class=\"note\">No breakdown: the analyses found no compute and no training steps to weigh the time "
              "against.</p>\n</section>\n",
              out);
        return;
    }
    size_t big = 0, next = r->nparts > 1 ? 1 : 0;
    for (size_t k = 0; k < r->nparts; k++)
        if (r->parts[k].seconds > r->parts[big].seconds)
            big = k;
    for (size_t k = 0; k < r->nparts; k++)
        if (k != big && (next == big || r->parts[k].seconds > r->parts[next].seconds))
            next = k;
    char p1[32], p2[32], d[48];
    fprintf(out, "<figure><figcaption>%s takes %s of the wall time per rank", r->parts[big].label,
            pct(p1, sizeof p1, r->parts[big].seconds, r->breakdown_wall_s));
    if (next != big)
        fprintf(out, "; %s %s", r->parts[next].label, pct(p2, sizeof p2, r->parts[next].seconds, r->breakdown_wall_s));
    fputs("</figcaption>\n", out);
    double v[DFS_REPORT_MAX_PARTS];
    dfs_chart_series s[DFS_REPORT_MAX_PARTS];
    for (size_t k = 0; k < r->nparts; k++)
        v[k] = r->parts[k].seconds;
    part_series(r, s, v, 1);
    const char *label = "per rank (mean)";
    dfs_chart_bars_svg(out, &(dfs_chart_bars){"chart-breakdown", &label, 1, s, r->nparts, DFS_CU_SECONDS,
                                              "wall time per rank"});
    fputs("</figure>\n<table><thead><tr><th>part</th><th class=\"n\">time per rank</th><th class=\"n\">share</th>"
          "<th>what it is</th></tr></thead><tbody>\n",
          out);
    for (size_t k = 0; k < r->nparts; k++) {
        const char *def = dfs_jr_define(r->parts[k].id);
        fprintf(out, "<tr><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td>%s</td></tr>\n",
                r->parts[k].label, secs(d, sizeof d, r->parts[k].seconds),
                pct(p1, sizeof p1, r->parts[k].seconds, r->breakdown_wall_s), def ? def : "");
    }
    fprintf(out, "</tbody></table>\n<p class=\"note\">Basis: %s; the parts sum to %s.</p>\n</section>\n",
            r->breakdown_basis, secs(d, sizeof d, r->breakdown_wall_s));
}

/* ---- insights ---- */

static void insight(FILE *out, const dfs_job_report *r, const dfs_insight *x)
{
    char d[48];
    const char *sev = dfs_severity_name(x->severity);
    fprintf(out, "<div class=\"ins %s\" data-id=\"", sev);
    h(out, x->id);
    fprintf(out, "\"><p><span class=\"sev\">%s</span> <strong>", sev);
    h(out, x->title);
    fputs("</strong>", out);
    if (isfinite(x->stake_s))
        fprintf(out, " \xE2\x80\x94 %s at stake", secs(d, sizeof d, x->stake_s));
    fputs("</p>\n<p>", out);
    dfs_jr_sink k = {put_html, put_html, out};
    dfs_jr_render(&k, x->evidence, r->metrics);
    fputs("</p>\n<p><em>Remedy:</em> ", out);
    h(out, x->remedy);
    fputs("</p>\n<p><em>More:</em> ", out);
    command(out, r, x->command);
    fputs("</p></div>\n", out);
}

static void insights(FILE *out, const dfs_job_report *r)
{
    fputs("<section id=\"insights\">\n<h2>Insights, most time at stake first</h2>\n", out);
    if (!r->insights.n)
        fprintf(out, "<p>No rule fired (%zu evaluated).</p>\n", r->insights.evaluated);
    for (size_t i = 0; i < r->insights.n; i++)
        insight(out, r, &r->insights.v[i]);
    if (r->insights.nskipped)
        fprintf(out, "<p class=\"note\">%zu rules were not evaluated: the metrics they need were not measured on these "
                     "inputs.</p>\n",
                r->insights.nskipped);
    fputs("</section>\n", out);
}

/* ---- per rank ---- */

static double median_span(const dfs_report_detail *d)
{
    size_t n = d->nranks;
    return n ? (d->ranks[(n - 1) / 2].span_s + d->ranks[n / 2].span_s) / 2 : NAN;
}

static void ranks(FILE *out, const dfs_job_report *r, const dfs_report_detail *d)
{
    if (d->nranks < 2)
        return;
    double med = median_span(d), v[DFS_REPORT_MAX_PARTS][DFS_DETAIL_RANKS];
    const char *labels[DFS_DETAIL_RANKS];
    for (size_t i = 0; i < d->nranks; i++) {
        labels[i] = d->ranks[i].label;
        for (size_t k = 0; k < r->nparts; k++)
            v[k][i] = d->ranks[i].part_s[k];
    }
    dfs_chart_series s[DFS_REPORT_MAX_PARTS];
    part_series(r, s, &v[0][0], DFS_DETAIL_RANKS);
    char a[48], b[48];
    fputs("<section id=\"ranks\">\n<h2>Per rank</h2>\n<figure><figcaption>", out);
    h(out, d->ranks[0].label);
    fprintf(out, " spans the longest: %s, %.2fx the median %s (longest first)</figcaption>\n",
            secs(a, sizeof a, d->ranks[0].span_s), med > 0 ? d->ranks[0].span_s / med : 0, secs(b, sizeof b, med));
    dfs_chart_bars_svg(out, &(dfs_chart_bars){"chart-ranks", labels, d->nranks, s, r->nparts, DFS_CU_SECONDS,
                                              "time per rank"});
    fputs("</figure>\n", out);
    if (d->ranks_total > d->nranks)
        fprintf(out, "<p class=\"note\">The %zu longest of %zu ranks are drawn.</p>\n", d->nranks, d->ranks_total);
    reproduce(out, r, strstr(r->breakdown_basis, "steps") ? "dfscope steps" : "dfscope overlap");
    fputs("</section>\n", out);
}

/* ---- over time ---- */

static void time_charts(FILE *out, const dfs_job_report *r, const dfs_report_detail *d)
{
    const dfs_detail_time *t = &d->time;
    if (!t->n || !t->nlayers)
        return;
    static const char *const colors[] = DFS_PALETTE;
    dfs_chart_series s[DFS_DETAIL_SERIES];
    size_t busiest = 0, peak = 0;
    double sum[DFS_DETAIL_SERIES] = {0};
    for (size_t k = 0; k < t->nlayers; k++) {
        s[k] = (dfs_chart_series){t->layers[k].name, colors[k % DFS_PALETTE_N], t->layers[k].busy};
        for (size_t i = 0; i < t->n; i++)
            sum[k] += t->layers[k].busy[i];
        busiest = sum[k] > sum[busiest] ? k : busiest;
    }
    char a[48], b[48];
    fputs("<section id=\"time\">\n<h2>Over time</h2>\n<figure><figcaption>", out);
    h(out, t->layers[busiest].name);
    fprintf(out, " is the busiest layer: %.2f processes busy in it on average (bins of %s)</figcaption>\n",
            sum[busiest] / (double)t->n, secs(a, sizeof a, t->bin_s));
    dfs_chart_xy_svg(out, &(dfs_chart_xy){.id = "chart-layers", .n = t->n, .series = s, .nseries = t->nlayers,
                                          .lines = true, .unit = DFS_CU_PLAIN,
                                          .y_axis = "busy processes", .x0 = 0,
                                          .dx = t->bin_s, .x_unit = DFS_CU_SECONDS, .x_axis = "time since the job's start",
                                          .marks = t->marks_s, .nmarks = t->nmarks, .mark_name = "epoch start"});
    fputs("</figure>\n", out);
    if (t->io_layer) {
        for (size_t i = 0; i < t->n; i++)
            peak = t->bytes_per_s[i] > t->bytes_per_s[peak] ? i : peak;
        dfs_chart_series io[2] = {{"bytes moved", DFS_PAL_PURPLE, t->bytes_per_s}, {"operations", DFS_PAL_GREEN, t->ops_per_s}};
        fputs("<figure><figcaption>", out);
        h(out, t->io_layer);
        fprintf(out, " I/O peaks at %s around %s</figcaption>\n",
                dfs_chart_value(a, sizeof a, t->bytes_per_s[peak], DFS_CU_BYTES_S),
                dfs_chart_value(b, sizeof b, (double)peak * t->bin_s, DFS_CU_SECONDS));
        dfs_chart_xy_svg(out, &(dfs_chart_xy){.id = "chart-bandwidth", .n = t->n, .series = io, .nseries = 1,
                                              .unit = DFS_CU_BYTES_S, .y_axis = "bandwidth", .dx = t->bin_s,
                                              .x_unit = DFS_CU_SECONDS, .x_axis = "time since the job's start",
                                              .marks = t->marks_s, .nmarks = t->nmarks, .mark_name = "epoch start"});
        dfs_chart_xy_svg(out, &(dfs_chart_xy){.id = "chart-ops", .n = t->n, .series = io + 1, .nseries = 1,
                                              .unit = DFS_CU_PER_S, .y_axis = "operations per second", .dx = t->bin_s,
                                              .x_unit = DFS_CU_SECONDS, .x_axis = "time since the job's start",
                                              .marks = t->marks_s, .nmarks = t->nmarks, .mark_name = "epoch start"});
        fputs("</figure>\n", out);
    }
    reproduce(out, r, "dfscope analyze --views time_range --format csv -o time/");
    fputs("</section>\n", out);
}

/* ---- steps ---- */

static void steps(FILE *out, const dfs_job_report *r, const dfs_report_detail *d)
{
    const dfs_detail_steps *st = &d->steps;
    if (!st->n)
        return;
    double rest[DFS_DETAIL_STEPS], wait[DFS_DETAIL_STEPS], marks[DFS_DETAIL_STEPS];
    long long num[DFS_DETAIL_STEPS];
    bool flag[DFS_DETAIL_STEPS];
    size_t nmarks = 0, outliers = 0;
    for (size_t i = 0; i < st->n; i++) {
        wait[i] = fmin(st->v[i].wait_s, st->v[i].step_s);
        rest[i] = st->v[i].step_s - wait[i];
        num[i] = st->v[i].first;
        flag[i] = st->v[i].outlier;
        outliers += flag[i];
        if (st->v[i].epoch_start)
            marks[nmarks++] = (double)i;
    }
    dfs_chart_series s[2] = {{"data wait not hidden", DFS_PAL_RED, wait}, {"rest of the step", DFS_PAL_BLUE, rest}};
    char a[48], b[48];
    fputs("<section id=\"steps\">\n<h2>Steps</h2>\n<figure><figcaption>", out);
    fprintf(out, "Step %lld is the slowest%s: %s, %.2fx the median step %s (", (long long)st->slowest,
            st->past_warmup ? " past the warm-up" : "", secs(a, sizeof a, st->slowest_s),
            st->median_s > 0 ? st->slowest_s / st->median_s : 0, secs(b, sizeof b, st->median_s));
    h(out, st->run);
    fputs(st->past_warmup ? "; the first step of each epoch and the last one are slower and left out, as the "
                            "verdicts leave them out)</figcaption>\n"
                          : ")</figcaption>\n",
          out);
    dfs_chart_xy_svg(out, &(dfs_chart_xy){.id = "chart-steps", .n = st->n, .series = st->have_wait ? s : s + 1,
                                          .nseries = st->have_wait ? 2 : 1, .unit = DFS_CU_SECONDS,
                                          .y_axis = "step time", .x_numbers = num, .x_axis = "step",
                                          .flagged = outliers ? flag : NULL, .flag_name = "outlier (2x the median or more)",
                                          .marks = marks, .nmarks = nmarks, .mark_name = "epoch start"});
    fputs("</figure>\n", out);
    if (st->per_bin > 1)
        fprintf(out, "<p class=\"note\">%zu steps, %zu to a column: each column shows the slowest of its steps.</p>\n",
                st->total, st->per_bin);
    reproduce(out, r, "dfscope steps --details");
    if (!d->timeline_svg) {
        fputs("<p class=\"repro\">The slowest step drawn: ", out);
        command(out, r, "dfscope timeline --slowest-step -o slow.svg");
        fputs("</p>\n", out);
    }
    fputs("</section>\n", out);
}

/* ---- the slowest step, drawn ---- */

/* Base64 (RFC 4648) of n bytes: the picture as a data: URL, isolated from the page's styles. */
static void base64(FILE *out, const unsigned char *p, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        char q[4] = {abc[v >> 18 & 63], abc[v >> 12 & 63], i + 1 < n ? abc[v >> 6 & 63] : '=', i + 2 < n ? abc[v & 63] : '='};
        fwrite(q, 1, 4, out);
    }
}

static void timeline(FILE *out, const dfs_job_report *r, const dfs_report_detail *d)
{
    if (!d->timeline_svg || !d->timeline_len)
        return;
    fputs("<section id=\"timeline\">\n<h2>The slowest step, drawn</h2>\n<figure><figcaption>What runs in ", out);
    h(out, d->timeline_what);
    fputs("</figcaption>\n<img id=\"chart-timeline\" class=\"tl\" alt=\"timeline of ", out);
    h(out, d->timeline_what);
    fputs("\" src=\"data:image/svg+xml;base64,", out);
    base64(out, (const unsigned char *)d->timeline_svg, d->timeline_len);
    fputs("\"></figure>\n<p class=\"note\">Drawn by the timeline analysis on another read of the inputs, its lanes "
          "limited to the 16 busiest.</p>\n",
          out);
    reproduce(out, r, "dfscope timeline --slowest-step -o slow.svg");
    fputs("</section>\n", out);
}

/* ---- I/O ---- */

/* "4kib_16kib" as "4 KiB – 16 KiB", "4gib_plus" as "4 GiB and more". */
static void size_label(char *buf, size_t n, const char *raw)
{
    size_t o = 0;
    for (const char *p = raw; *p && o + 8 < n; p++) {
        if (*p == '_') {
            o += (size_t)snprintf(buf + o, n - o, strcmp(p + 1, "plus") == 0 ? " and more" : " \xE2\x80\x93 ");
            if (strcmp(p + 1, "plus") == 0)
                break;
        } else if (*p == 'k' || *p == 'm' || *p == 'g') {
            o += (size_t)snprintf(buf + o, n - o, " %cIB", *p - 32);
            p += 2; /* "ib" */
        } else
            buf[o++] = *p;
    }
    buf[o < n ? o : n - 1] = '\0';
    for (char *q = buf; (q = strstr(q, "IB")); q++)
        q[0] = 'i', q[1] = 'B';
}

static void io_sizes(FILE *out, const dfs_detail_io *io)
{
    if (!io->nsizes)
        return;
    char labels_buf[DFS_DETAIL_SIZES][40];
    const char *labels[DFS_DETAIL_SIZES];
    double v[DFS_DETAIL_SIZES];
    uint64_t all = 0, small = 0;
    size_t last = 0;
    for (size_t i = 0; i < io->nsizes; i++) {
        size_label(labels_buf[i], sizeof labels_buf[i], io->size_label[i]);
        labels[i] = labels_buf[i];
        v[i] = (double)io->size_count[i];
        all += io->size_count[i];
        small += i == 0 ? io->size_count[i] : 0;
        last = io->size_count[i] ? i + 1 : last;
    }
    char p[32];
    fputs("<figure><figcaption>", out);
    fprintf(out, "%s of the sized ", pct(p, sizeof p, (double)small, (double)all));
    h(out, io->size_layer);
    fprintf(out, " calls move under 4 KiB</figcaption>\n");
    dfs_chart_series s = {"calls", DFS_PAL_PURPLE, v};
    dfs_chart_bars_svg(out, &(dfs_chart_bars){"chart-sizes", labels, last ? last : io->nsizes, &s, 1, DFS_CU_COUNT,
                                              "calls by access size"});
    fputs("</figure>\n", out);
}

static void named_table(FILE *out, const char *caption, const dfs_detail_named *v, size_t n, bool counts)
{
    char a[48], b[48], c[32];
    fprintf(out, "<h3>%s</h3>\n<table class=\"sortable\"><thead><tr><th>name</th><th class=\"n\">time</th>"
                 "<th class=\"n\">bytes</th>%s</tr></thead><tbody>\n",
            caption, counts ? "<th class=\"n\">calls</th>" : "");
    for (size_t i = 0; i < n; i++) {
        fputs("<tr><td>", out);
        h(out, v[i].name);
        fprintf(out, "</td><td class=\"n\" data-v=\"%.9g\">%s</td><td class=\"n\" data-v=\"%llu\">%s</td>", v[i].s,
                secs(a, sizeof a, v[i].s), (unsigned long long)v[i].bytes, dfs_fmt_bytes(b, sizeof b, v[i].bytes));
        if (counts)
            fprintf(out, "<td class=\"n\" data-v=\"%llu\">%s</td>", (unsigned long long)v[i].count,
                    dfs_fmt_count(c, sizeof c, v[i].count));
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
}

static void io_split(FILE *out, const dfs_detail_io *io)
{
    double total = io->read_s + io->write_s + io->metadata_s + io->other_s;
    if (!(total > 0))
        return;
    double v[4] = {io->read_s, io->write_s, io->metadata_s, io->other_s};
    dfs_chart_series s[4] = {{"read", DFS_PAL_BLUE, v}, {"write", DFS_PAL_ORANGE, v + 1},
                             {"metadata (open, stat, seek, close...)", DFS_PAL_RED, v + 2},
                             {"other (sync, mmap...)", DFS_PAL_GREY, v + 3}};
    char p[32], a[32], b[32];
    fprintf(out, "<figure><figcaption>Metadata takes %s of the I/O call time; %s read, %s written</figcaption>\n",
            pct(p, sizeof p, io->metadata_s, total), dfs_fmt_bytes(a, sizeof a, io->read_bytes),
            dfs_fmt_bytes(b, sizeof b, io->write_bytes));
    const char *label = "I/O calls";
    dfs_chart_bars_svg(out, &(dfs_chart_bars){"chart-rw", &label, 1, s, 4, DFS_CU_SECONDS,
                                              "time in I/O calls, summed over the processes"});
    fputs("</figure>\n", out);
}

static void io_section(FILE *out, const dfs_job_report *r, const dfs_report_detail *d)
{
    const dfs_detail_io *io = &d->io;
    if (!d->have_io)
        return;
    fputs("<section id=\"io\">\n<h2>I/O</h2>\n", out);
    io_split(out, io);
    io_sizes(out, io);
    if (io->ncalls)
        named_table(out, "I/O calls, most time first", io->calls, io->ncalls, true);
    if (io->calls_total > io->ncalls)
        fprintf(out, "<p class=\"note\">%zu more calls not listed.</p>\n", io->calls_total - io->ncalls);
    if (io->nfiles) {
        named_table(out, "Top files by time", io->files_by_time, io->nfiles, false);
        named_table(out, "Top files by bytes", io->files_by_bytes, io->nfiles, false);
        fprintf(out, "<p class=\"note\">%zu files accessed in all.</p>\n", io->files_total);
    }
    reproduce(out, r, "dfscope analyze --views file_name");
    fputs("</section>\n", out);
}

/* ---- DASF ---- */

static void dasf(FILE *out, const dfs_job_report *r, const dfs_report_detail *d)
{
    const dfs_detail_dasf *t = &d->dasf;
    if (!d->have_dasf || !t->nfunctions)
        return;
    const char *fl[DFS_DETAIL_TOP], *wl[DFS_DETAIL_RANKS];
    double total = 0;
    for (size_t i = 0; i < t->nfunctions; i++)
        fl[i] = t->function_label[i];
    for (size_t i = 0; i < t->nworkers; i++)
        wl[i] = t->worker_label[i], total += t->worker_s[i];
    char p[32], a[48], b[48];
    fputs("<section id=\"dasf\">\n<h2>Tasks (DASF)</h2>\n<figure><figcaption>", out);
    h(out, t->function_label[0]);
    fprintf(out, " is the bottleneck function: %s of the task time</figcaption>\n",
            pct(p, sizeof p, t->function_s[0], total));
    dfs_chart_series fs = {"task time", DFS_PAL_BLUE, t->function_s};
    dfs_chart_bars_svg(out, &(dfs_chart_bars){"chart-functions", fl, t->nfunctions, &fs, 1, DFS_CU_SECONDS,
                                              "Compute time per function, summed over the workers"});
    fputs("</figure>\n<figure><figcaption>", out);
    fprintf(out, "Worker balance: the busiest worker has %s of the task time across %zu workers</figcaption>\n",
            pct(p, sizeof p, t->worker_s[0], total), t->workers_total);
    dfs_chart_series ws = {"task time", DFS_PAL_BLUE, t->worker_s};
    dfs_chart_bars_svg(out, &(dfs_chart_bars){"chart-workers", wl, t->nworkers, &ws, 1, DFS_CU_SECONDS,
                                              "Compute time per worker (host, GPU)"});
    fputs("</figure>\n", out);
    if (t->path_tasks)
        fprintf(out, "<p>Critical path: %zu tasks, %s, %s of the longest database span (%s).</p>\n", t->path_tasks,
                secs(a, sizeof a, t->path_s), pct(p, sizeof p, t->path_s, t->wall_s), secs(b, sizeof b, t->wall_s));
    reproduce(out, r, "dfscope tasks");
    fputs("</section>\n", out);
}

/* ---- GPU ---- */

static void gpu_temporal(FILE *out, const dfs_detail_gpu *g, const char **labels)
{
    double v[3][DFS_DETAIL_RANKS], busy = 0, all = 0;
    for (size_t i = 0; i < g->nranks; i++) {
        v[0][i] = g->ranks[i].compute_s, v[1][i] = g->ranks[i].other_busy_s, v[2][i] = g->ranks[i].idle_s;
        busy += v[0][i], all += v[0][i] + v[1][i] + v[2][i];
    }
    dfs_chart_series s[3] = {{"kernels computing", DFS_PAL_BLUE, v[0]},
                             {"other device work (copies, communication)", DFS_PAL_ORANGE, v[1]},
                             {"idle", DFS_PAL_GREY, v[2]}};
    char p[32];
    fprintf(out, "<figure><figcaption>The GPUs compute %s of their time</figcaption>\n", pct(p, sizeof p, busy, all));
    dfs_chart_bars_svg(out, &(dfs_chart_bars){"chart-gpu-temporal", labels, g->nranks, s, 3, DFS_CU_SECONDS,
                                              "device time per rank"});
    fputs("</figure>\n", out);
}

static void gpu_kernels(FILE *out, const dfs_detail_gpu *g, const char **labels)
{
    static const char *const names[] = {"", "computation", "communication", "computation with communication",
                                        "memory", "computation with memory", "communication with memory",
                                        "all three"};
    static const char *const colors[] = DFS_PALETTE;
    double v[8][DFS_DETAIL_RANKS] = {{0}}, sum[8] = {0};
    dfs_chart_series s[8];
    size_t n = 0, top = 1;
    for (unsigned m = 1; m < 8; m++) {
        for (size_t i = 0; i < g->nranks; i++)
            v[n][i] = g->ranks[i].type_s[m], sum[m] += v[n][i];
        if (sum[m] > 0)
            s[n] = (dfs_chart_series){names[m], colors[(m - 1) % DFS_PALETTE_N], v[n]}, n++;
        top = sum[m] > sum[top] ? m : top;
    }
    if (!n)
        return;
    double all = 0;
    for (unsigned m = 1; m < 8; m++)
        all += sum[m];
    char p[32];
    fprintf(out, "<figure><figcaption>Kernel time by type: %s takes %s</figcaption>\n", names[top],
            pct(p, sizeof p, sum[top], all));
    dfs_chart_bars_svg(out, &(dfs_chart_bars){"chart-gpu-kernels", labels, g->nranks, s, n, DFS_CU_SECONDS,
                                              "kernel time per rank, by the types running at once"});
    fputs("</figure>\n", out);
}

static void gpu_idle(FILE *out, const dfs_detail_gpu *g, const char **labels)
{
    double v[3][DFS_DETAIL_RANKS], host = 0, all = 0;
    for (size_t i = 0; i < g->nranks; i++)
        for (int c = 0; c < 3; c++) {
            v[c][i] = g->ranks[i].idle_cause_s[c];
            all += v[c][i], host += c == 0 ? v[c][i] : 0;
        }
    if (!(all > 0))
        return;
    dfs_chart_series s[3] = {{"waiting on the host (launch late)", DFS_PAL_RED, v[0]},
                             {"short gaps between kernels", DFS_PAL_TEAL, v[1]}, {"other", DFS_PAL_GREY, v[2]}};
    char p[32];
    fprintf(out, "<figure><figcaption>%s of the streams' idle time waits on the host</figcaption>\n",
            pct(p, sizeof p, host, all));
    dfs_chart_bars_svg(out, &(dfs_chart_bars){"chart-gpu-idle", labels, g->nranks, s, 3, DFS_CU_SECONDS,
                                              "stream idle time per rank, summed over its streams"});
    fputs("</figure>\n", out);
}

static void gpu(FILE *out, const dfs_job_report *r, const dfs_report_detail *d)
{
    const dfs_detail_gpu *g = &d->gpu;
    if (!d->have_gpu)
        return;
    char buf[DFS_DETAIL_RANKS][32];
    const char *labels[DFS_DETAIL_RANKS];
    for (size_t i = 0; i < g->nranks; i++) {
        snprintf(buf[i], sizeof buf[i], "rank %lld", g->ranks[i].rank);
        labels[i] = buf[i];
    }
    fputs("<section id=\"gpu\">\n<h2>GPU</h2>\n<p class=\"note\">From the GPU analysis of the profiler traces, on the "
          "report's read.</p>\n",
          out);
    gpu_temporal(out, g, labels);
    gpu_kernels(out, g, labels);
    gpu_idle(out, g, labels);
    if (g->ranks_total > g->nranks)
        fprintf(out, "<p class=\"note\">The first %zu of %zu ranks are drawn.</p>\n", g->nranks, g->ranks_total);
    reproduce(out, r, "dfscope gpu");
    fputs("</section>\n", out);
}

/* ---- input health ---- */

static void health(FILE *out, const dfs_job_report *r, const dfs_report_detail *d)
{
    fputs("<section id=\"health\">\n<h2>Input health</h2>\n", out);
    for (size_t i = 0; i < r->nleft_out; i++) {
        fputs("<p>Left out: <code>", out);
        h(out, r->left_out[i]);
        fputs("</code>, ", out);
        h(out, r->left_out_why[i]);
        fputs("; <code>--keep-merged</code> reads it too.</p>\n", out);
    }
    if (!d->nproblems)
        fputs("<p>No problem found in the inputs.</p>\n", out);
    else
        fputs("<table class=\"sortable\"><thead><tr><th>problem</th><th>kind</th><th class=\"n\">count</th>"
              "<th>first example</th></tr></thead><tbody>\n",
              out);
    for (size_t i = 0; i < d->nproblems; i++) {
        const dfs_detail_problem *x = &d->problems[i];
        char c[32];
        fprintf(out, "<tr><td>%s</td><td>%s</td><td class=\"n\" data-v=\"%llu\">%s</td><td>", x->code,
                x->damage ? "damage (skipped)" : "legal variant", (unsigned long long)x->count,
                dfs_fmt_count(c, sizeof c, x->count));
        if (x->file) {
            h(out, x->file);
            if (x->line)
                fprintf(out, ", line %llu", (unsigned long long)x->line);
            else
                fprintf(out, ", offset %llu", (unsigned long long)x->offset);
            fputs(": ", out);
            h(out, x->detail);
        }
        fputs("</td></tr>\n", out);
    }
    if (d->nproblems)
        fputs("</tbody></table>\n", out);
    reproduce(out, r, "dfscope stats");
    fputs("</section>\n", out);
}

/* ---- the end ---- */

static void commands(FILE *out, const dfs_job_report *r)
{
    fputs("<section id=\"commands\">\n<h2>Commands</h2>\n<ul>\n<li>This page: ", out);
    command(out, r, "dfscope report -o report.html");
    fputs("</li>\n<li>The same as JSON: ", out);
    command(out, r, "dfscope report --format json");
    fputs("</li>\n", out);
    for (size_t i = 0; i < r->nmore; i++) {
        fputs("<li>", out);
        h(out, r->more[i]);
        fputs("</li>\n", out);
    }
    fputs("</ul>\n</section>\n", out);
}

static void glossary(FILE *out, const dfs_job_report *r)
{
    static const char *const ids[] = {"wall_time", "per_rank", "time_at_stake", "exposed_wait_share",
                                      "storage_share_of_wait"};
    fputs("<footer>\n<h2>What the figures mean</h2>\n<dl class=\"gl\">\n", out);
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        fprintf(out, "<dt>%s</dt><dd>%s</dd>\n", ids[i], dfs_jr_define(ids[i]));
    for (size_t k = 0; k < r->nparts; k++)
        if (dfs_jr_define(r->parts[k].id))
            fprintf(out, "<dt>%s</dt><dd>%s</dd>\n", r->parts[k].label, dfs_jr_define(r->parts[k].id));
    fprintf(out, "</dl>\n<p class=\"note\">Analyses: %s. Charts aggregate: the page's size does not grow with the "
                 "events. dfscope %s.</p>\n</footer>\n",
            r->analyses ? r->analyses : "", DFS_VERSION_STRING);
}

/* The verdict and the insights for a machine reading the page: JSON in a script element. */
static void data_block(FILE *out, const dfs_job_report *r)
{
    fputs("<script type=\"application/json\" id=\"dfscope-data\">{\"schema\":\"dfscope-report-page/1\",\"verdict\":\"",
          out);
    dfs_script_json_escape(dfs_put_file, out, r->verdict, strlen(r->verdict));
    fputs("\",\"insights\":[", out);
    for (size_t i = 0; i < r->insights.n; i++) {
        const dfs_insight *x = &r->insights.v[i];
        fprintf(out, "%s{\"id\":\"", i ? "," : "");
        dfs_script_json_escape(dfs_put_file, out, x->id, strlen(x->id));
        fprintf(out, "\",\"severity\":\"%s\",\"evidence\":\"", dfs_severity_name(x->severity));
        dfs_jr_sink k = {put_script, put_script, out};
        dfs_jr_render(&k, x->evidence, r->metrics);
        fputs("\"}", out);
    }
    fputs("]}</script>\n", out);
}

void dfs_job_report_write_html(FILE *out, const dfs_job_report *r, const dfs_report_detail *d)
{
    head(out, r);
    verdict(out, r);
    job(out, r);
    breakdown(out, r);
    insights(out, r);
    ranks(out, r, d);
    time_charts(out, r, d);
    steps(out, r, d);
    timeline(out, r, d);
    io_section(out, r, d);
    gpu(out, r, d);
    dasf(out, r, d);
    health(out, r, d);
    commands(out, r);
    glossary(out, r);
    data_block(out, r);
    fprintf(out, "<script>%s</script>\n</body>\n</html>\n", script);
}
