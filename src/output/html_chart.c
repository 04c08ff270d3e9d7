/* html_chart.c - the report page's charts as inline SVG (html_chart.h): stacked bars per row and
 * series over an x axis, with their axes, ticks, legends and hover texts.
 *
 * How labels never overlap: a value axis picks "nice" ticks (1, 2 or 5 times a power of ten, in
 * the unit its largest value reads best in) and halves their number until the widest label,
 * estimated at CHAR_W pixels a character, fits its spacing; a category axis labels every k-th
 * point for the same reason; row labels are cut to LABEL_CHARS with an ellipsis (the hover text
 * keeps them whole). Invariants: html_chart.h's. */
#include "output/html_chart.h"

#include <math.h>
#include <string.h>

#include "output/escape.h"
#include "output/svg.h"

enum { WIDTH = 720, ROW_H = 18, LEGEND_H = 20, AXIS_H = 34, LABEL_CHARS = 42, TEXT_CHARS = 120, PLOT_H = 180, Y_LABEL_W = 70 };
#define CHAR_W 6.2 /* mean advance of an 11 px sans-serif character */

/* A label cut to max characters, an ellipsis marking the cut. */
static void label(FILE *out, const char *s, size_t max)
{
    size_t n = s ? strlen(s) : 0;
    if (dfs_svg_prefix(s, n, max) == n) {
        dfs_html_escape(dfs_put_file, out, s, n);
        return;
    }
    dfs_html_escape(dfs_put_file, out, s, dfs_svg_prefix(s, n, max - 1));
    fputs("\xE2\x80\xA6", out);
}

/* Any other text: names in legends and hover texts, cut so that a mark's bytes stay bounded. */
static void text(FILE *out, const char *s)
{
    label(out, s, TEXT_CHARS);
}

static double fin(double v)
{
    return isfinite(v) ? v : 0;
}

/* ---- units and ticks ---- */

typedef struct scale {
    double div;         /* a value divided by this reads in the unit */
    const char *suffix; /* " ms", " GB/s", " k" */
} scale;

static scale scale_of(double top, dfs_chart_unit unit)
{
    static const scale secs[] = {{1e-9, " ns"}, {1e-6, " \xC2\xB5s"}, {1e-3, " ms"}, {1, " s"}, {60, " min"}, {3600, " h"}};
    static const scale rate[] = {{1, " B/s"}, {1e3, " kB/s"}, {1e6, " MB/s"}, {1e9, " GB/s"}, {1e12, " TB/s"}};
    static const scale per[] = {{1, "/s"}, {1e3, " k/s"}, {1e6, " M/s"}, {1e9, " G/s"}};
    static const scale count[] = {{1, ""}, {1e3, " k"}, {1e6, " M"}, {1e9, " G"}};
    const scale *v = unit == DFS_CU_SECONDS ? secs : unit == DFS_CU_BYTES_S ? rate : unit == DFS_CU_PER_S ? per : count;
    size_t n = unit == DFS_CU_SECONDS ? 6 : unit == DFS_CU_BYTES_S ? 5 : 4;
    if (unit == DFS_CU_PLAIN)
        return (scale){1, ""};
    size_t k = 0;
    /* seconds move to minutes only from 2 min, so that 90 s is not "1.5 min" */
    while (k + 1 < n && top >= v[k + 1].div * (unit == DFS_CU_SECONDS && v[k + 1].div >= 60 ? 2 : 1))
        k++;
    return v[k];
}

char *dfs_chart_value(char *buf, size_t n, double v, dfs_chart_unit unit)
{
    v = fin(v);
    scale s = scale_of(fabs(v), unit);
    double x = v / s.div;
    snprintf(buf, n, "%.*f%s", fabs(x) >= 100 || x == floor(x) ? 0 : fabs(x) >= 10 ? 1 : 2, x, s.suffix);
    return buf;
}

typedef struct ticks {
    double step, top; /* in the axis's values */
    int count, decimals;
    scale s;
} ticks;

static double nice(double raw)
{
    double p = pow(10, floor(log10(raw))), f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

static ticks ticks_for(double max, dfs_chart_unit unit, int target)
{
    ticks t = {.s = scale_of(max > 0 ? max : 1, unit)};
    double m = (max > 0 ? max : 1) / t.s.div;
    double step = nice(m / (target > 0 ? target : 1));
    t.count = (int)ceil(m / step - 1e-9);
    t.count = t.count < 1 ? 1 : t.count;
    t.step = step * t.s.div, t.top = t.count * t.step;
    t.decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    return t;
}

static size_t tick_label(char *buf, size_t n, const ticks *t, int i)
{
    return (size_t)snprintf(buf, n, "%.*f%s", t->decimals, i * t->step / t->s.div, t->s.suffix);
}

/* Ticks whose widest label fits the spacing along `length` pixels (horizontal axes). */
static ticks fitting_ticks(double max, dfs_chart_unit unit, double length)
{
    for (int target = 8;; target /= 2) {
        ticks t = ticks_for(max, unit, target);
        char buf[48];
        size_t widest = tick_label(buf, sizeof buf, &t, t.count);
        if (target <= 1 || widest * CHAR_W + 10 < length / t.count)
            return t;
    }
}

/* ---- legend ---- */

typedef struct legend_item {
    const char *name, *color;
    char shape; /* 'r' square, 't' triangle, 'l' dashed line */
} legend_item;

/* Draws the items in rows across the width; returns the height used. */
static double legend(FILE *out, const legend_item *items, size_t n, double x0)
{
    double x = x0, y = 4;
    for (size_t i = 0; i < n; i++) {
        double w = 18 + CHAR_W * (double)dfs_svg_chars(items[i].name, strlen(items[i].name)) + 14;
        if (x + w > WIDTH && x > x0)
            x = x0, y += LEGEND_H - 4;
        if (items[i].shape == 't')
            fprintf(out, "<path d=\"M%.1f %.1fl5 9h-10z\" fill=\"%s\"/>", x + 5, y + 1, items[i].color);
        else if (items[i].shape == 'l')
            fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"mark\"/>", x + 5, y, x + 5, y + 11);
        else
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"11\" height=\"11\" fill=\"%s\"/>", x, y, items[i].color);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", x + 16, y + 10);
        text(out, items[i].name);
        fputs("</text>", out);
        x += w;
    }
    return y + LEGEND_H - 4;
}

static double series_legend(FILE *out, const dfs_chart_series *s, size_t n, const char *flag, const char *mark,
                            double x0)
{
    legend_item items[16];
    size_t k = 0;
    for (size_t i = 0; i < n && k < 14; i++)
        items[k++] = (legend_item){s[i].name, s[i].color, 'r'};
    if (flag)
        items[k++] = (legend_item){flag, "#E45756", 't'};
    if (mark)
        items[k++] = (legend_item){mark, "", 'l'};
    return legend(out, items, k, x0);
}

static void svg_open(FILE *out, const char *id, double height, const char *aria)
{
    fprintf(out, "<svg id=\"%s\" class=\"chart\" viewBox=\"0 0 %d %.0f\" width=\"%d\" height=\"%.0f\" role=\"img\" "
                 "aria-label=\"",
            id, WIDTH, height, WIDTH, height);
    text(out, aria);
    fputs("\">", out);
}

/* ---- bars ---- */

static double row_total(const dfs_chart_bars *c, size_t r)
{
    double t = 0;
    for (size_t k = 0; k < c->nseries; k++)
        t += fmax(fin(c->series[k].v[r]), 0);
    return t;
}

static void bar_row(FILE *out, const dfs_chart_bars *c, size_t r, double x0, double y, double px_per)
{
    fprintf(out, "<text class=\"rl\" x=\"%.1f\" y=\"%.1f\">", x0 - 6, y + ROW_H - 6);
    label(out, c->labels[r], LABEL_CHARS);
    fputs("</text>", out);
    double x = x0;
    char v[48], tot[48];
    dfs_chart_value(tot, sizeof tot, row_total(c, r), c->unit);
    for (size_t k = 0; k < c->nseries; k++) {
        double w = fmax(fin(c->series[k].v[r]), 0) * px_per;
        if (w <= 0)
            continue;
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>", x, y + 2, w,
                ROW_H - 4, c->series[k].color);
        text(out, c->labels[r]);
        fprintf(out, " \xE2\x80\x94 ");
        text(out, c->series[k].name);
        fprintf(out, ": %s of %s</title></rect>", dfs_chart_value(v, sizeof v, c->series[k].v[r], c->unit), tot);
        x += w;
    }
}

static void value_axis(FILE *out, const ticks *t, double x0, double width, double y_top, double y_axis,
                       const char *what)
{
    char buf[48];
    for (int i = 0; i <= t->count; i++) {
        double x = x0 + width * i / t->count;
        fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, y_top, x, y_axis);
        tick_label(buf, sizeof buf, t, i);
        fprintf(out, "<text class=\"tk\" x=\"%.1f\" y=\"%.1f\">%s</text>", x, y_axis + 13, buf);
    }
    fprintf(out, "<text class=\"ax\" x=\"%.1f\" y=\"%.1f\">", x0 + width / 2, y_axis + 28);
    text(out, what);
    fputs("</text>", out);
}

void dfs_chart_bars_svg(FILE *out, const dfs_chart_bars *c)
{
    size_t widest = 0;
    double max = 0;
    for (size_t r = 0; r < c->nrows; r++) {
        size_t w = dfs_svg_chars(c->labels[r], strlen(c->labels[r]));
        widest = w > widest ? w : widest;
        max = fmax(max, row_total(c, r));
    }
    double x0 = 12 + CHAR_W * (double)(widest < LABEL_CHARS ? widest : LABEL_CHARS), width = WIDTH - x0 - 24;
    ticks t = fitting_ticks(max, c->unit, width);
    double legend_h = c->nseries > 1 ? LEGEND_H * (1 + (double)c->nseries / 6) : 4;
    double height = legend_h + (double)c->nrows * ROW_H + AXIS_H + 4;
    svg_open(out, c->id, height, c->axis);
    double top = c->nseries > 1 ? series_legend(out, c->series, c->nseries, NULL, NULL, x0) : 4;
    double px_per = width / t.top;
    value_axis(out, &t, x0, width, top, top + (double)c->nrows * ROW_H, c->axis);
    for (size_t r = 0; r < c->nrows; r++)
        bar_row(out, c, r, x0, top + (double)r * ROW_H, px_per);
    fputs("</svg>\n", out);
}

/* ---- series over x ---- */

typedef struct xy_frame {
    double x0, y0, w, h; /* the plot area: left, bottom, width, height */
    double col_w;        /* pixels per point */
    ticks y;
} xy_frame;

static double stack_top(const dfs_chart_xy *c, size_t i)
{
    double t = 0, m = 0;
    for (size_t k = 0; k < c->nseries; k++) {
        t += fmax(fin(c->series[k].v[i]), 0);
        m = fmax(m, fin(c->series[k].v[i]));
    }
    return c->lines ? m : t;
}

static void y_axis(FILE *out, const dfs_chart_xy *c, const xy_frame *f)
{
    char buf[48];
    for (int i = 0; i <= f->y.count; i++) {
        double y = f->y0 - f->h * i / f->y.count;
        fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", f->x0, y, f->x0 + f->w, y);
        tick_label(buf, sizeof buf, &f->y, i);
        fprintf(out, "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\">%s</text>", f->x0 - 5, y + 4, buf);
    }
    fprintf(out, "<text class=\"ax\" transform=\"translate(12 %.1f) rotate(-90)\">", f->y0 - f->h / 2);
    text(out, c->y_axis);
    fputs("</text>", out);
}

static void x_axis_numbers(FILE *out, const dfs_chart_xy *c, const xy_frame *f)
{
    size_t widest = 1;
    char buf[48];
    for (size_t i = 0; i < c->n; i++) {
        size_t w = (size_t)snprintf(buf, sizeof buf, "%lld", c->x_numbers[i]);
        widest = w > widest ? w : widest;
    }
    size_t every = (size_t)ceil((widest * CHAR_W + 10) / f->col_w);
    every = every < 1 ? 1 : every;
    for (size_t i = 0; i < c->n; i += every)
        fprintf(out, "<text class=\"tk\" x=\"%.1f\" y=\"%.1f\">%lld</text>", f->x0 + (i + 0.5) * f->col_w, f->y0 + 13,
                c->x_numbers[i]);
}

static void x_axis_values(FILE *out, const dfs_chart_xy *c, const xy_frame *f)
{
    double span = c->dx * (double)c->n;
    ticks t = fitting_ticks(span, c->x_unit, f->w);
    char buf[48];
    for (int i = 0; i <= t.count && i * t.step <= span * (1 + 1e-9); i++) {
        double x = f->x0 + f->w * (i * t.step) / span;
        tick_label(buf, sizeof buf, &t, i);
        fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, f->y0, x, f->y0 + 4);
        fprintf(out, "<text class=\"tk\" x=\"%.1f\" y=\"%.1f\">%s</text>", x, f->y0 + 13, buf);
    }
}

static void point_title(FILE *out, const dfs_chart_xy *c, size_t i, size_t k)
{
    char v[48], x[48];
    fputs("<title>", out);
    if (c->x_numbers)
        fprintf(out, "%lld: ", c->x_numbers[i]);
    else
        fprintf(out, "%s: ", dfs_chart_value(x, sizeof x, c->x0 + c->dx * (double)i, c->x_unit));
    text(out, c->series[k].name);
    fprintf(out, " %s</title>", dfs_chart_value(v, sizeof v, c->series[k].v[i], c->unit));
}

static void columns(FILE *out, const dfs_chart_xy *c, const xy_frame *f)
{
    double gap = f->col_w > 4 ? 1 : 0;
    for (size_t i = 0; i < c->n; i++) {
        double y = f->y0;
        for (size_t k = 0; k < c->nseries; k++) {
            double h = fmax(fin(c->series[k].v[i]), 0) / f->y.top * f->h;
            if (h <= 0)
                continue;
            y -= h;
            fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">",
                    f->x0 + (double)i * f->col_w, y, fmax(f->col_w - gap, 0.5), h, c->series[k].color);
            point_title(out, c, i, k);
            fputs("</rect>", out);
        }
    }
}

static void lines(FILE *out, const dfs_chart_xy *c, const xy_frame *f)
{
    for (size_t k = 0; k < c->nseries; k++) {
        fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" points=\"", c->series[k].color);
        for (size_t i = 0; i < c->n; i++)
            fprintf(out, "%s%.1f,%.1f", i ? " " : "", f->x0 + (i + 0.5) * f->col_w,
                    f->y0 - fmax(fin(c->series[k].v[i]), 0) / f->y.top * f->h);
        fputs("\"><title>", out);
        text(out, c->series[k].name);
        fputs("</title></polyline>", out);
    }
}

static void flags_and_marks(FILE *out, const dfs_chart_xy *c, const xy_frame *f)
{
    for (size_t i = 0; c->flagged && i < c->n; i++)
        if (c->flagged[i]) {
            double x = f->x0 + (i + 0.5) * f->col_w, y = f->y0 - stack_top(c, i) / f->y.top * f->h - 3;
            fprintf(out, "<path d=\"M%.1f %.1fl4 -7h-8z\" fill=\"#E45756\"><title>", x, y);
            text(out, c->flag_name);
            fputs("</title></path>", out);
        }
    for (size_t i = 0; i < c->nmarks; i++) {
        double x = c->x_numbers ? f->x0 + c->marks[i] * f->col_w
                                : f->x0 + (c->marks[i] - c->x0) / (c->dx * (double)c->n) * f->w;
        if (x < f->x0 || x > f->x0 + f->w)
            continue;
        fprintf(out, "<line class=\"mark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>", x, f->y0 - f->h, x,
                f->y0);
        text(out, c->mark_name);
        fputs("</title></line>", out);
    }
}

void dfs_chart_xy_svg(FILE *out, const dfs_chart_xy *c)
{
    double max = 0;
    for (size_t i = 0; i < c->n; i++)
        max = fmax(max, stack_top(c, i));
    xy_frame f = {.x0 = Y_LABEL_W + 16, .w = WIDTH - Y_LABEL_W - 16 - 16, .h = PLOT_H};
    f.col_w = f.w / (double)(c->n ? c->n : 1);
    f.y = ticks_for(max, c->unit, 5);
    double legend_h = LEGEND_H * (1 + (double)(c->nseries + 2) / 6);
    double height = legend_h + PLOT_H + AXIS_H + 8;
    svg_open(out, c->id, height, c->y_axis);
    double top = series_legend(out, c->series, c->nseries, c->flagged ? c->flag_name : NULL,
                               c->nmarks ? c->mark_name : NULL, f.x0);
    f.y0 = top + 8 + PLOT_H;
    y_axis(out, c, &f);
    if (c->lines)
        lines(out, c, &f);
    else
        columns(out, c, &f);
    flags_and_marks(out, c, &f);
    fprintf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", f.x0, f.y0, f.x0 + f.w, f.y0);
    if (c->x_numbers)
        x_axis_numbers(out, c, &f);
    else
        x_axis_values(out, c, &f);
    fprintf(out, "<text class=\"ax\" x=\"%.1f\" y=\"%.1f\">", f.x0 + f.w / 2, f.y0 + 28);
    text(out, c->x_axis);
    fputs("</text></svg>\n", out);
}
