/* timeline_svg.c - the drawing half of the window picture (timeline.h): layout, header and legend,
 * time axis, lanes with their spans and busy bars, counter charts, notes; atomic files. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/timeline/timeline.h"
#include "analyze/timeline/timeline_model.h"
#include "output/atomic.h"
#include "output/format.h"
#include "output/palette.h"
#include "output/svg.h"
#include "output/timeline_report.h"

/* The x of a time, in pixels from the time area's left edge. */
static double x_of(const dfs_timeline *tl, int64_t t)
{
    return (double)(t - tl->opt.start_ns) * tl->width / (double)tl->span_ns;
}

/* ===== layout ================================================================================ */

enum {
    MARGIN = 16,
    LABEL_W = 300,  /* label column left of the time area */
    ROW_H = 14,     /* one nesting level */
    LANE_PAD = 3,
    GROUP_H = 18,   /* a process header row */
    CHART_H = 34,
    CHART_GAP = 12,
    NOTE_H = 15,
    CHAR_W = 6,     /* mean advance of an 11 px sans-serif character, to cut labels */
};

static const char *const class_fill[DFS_TL_NCLASS] = {DFS_PAL_BLUE, DFS_PAL_RED, DFS_PAL_ORANGE, DFS_PAL_GREEN,
                                                      DFS_PAL_GREY};
/* label colour inside a span of each class: white on the dark fills */
static const bool class_dark[DFS_TL_NCLASS] = {true, true, false, true, false};

typedef struct lane_draw {
    const tl_lane *lane;
    uint32_t *order;   /* spans sorted by start, longer first */
    uint8_t *depth;    /* per position in order, folded into max_depth - 1 */
    int8_t *cover;     /* [width]: deepest drawn level over each column, -1 none */
    unsigned rows;
    uint64_t folded;   /* spans deeper than max_depth */
    double y;          /* top of the lane (below its group header, if any) */
    bool header;       /* first lane of a process with several: a header row above */
    bool solo;         /* the only lane of its process: no header, the process in its label */
    bool other;        /* the row "other lanes": the folded lanes' busy bars, last */
} lane_draw;

typedef struct layout {
    const dfs_timeline *tl;
    lane_draw *lanes;
    size_t nlanes, total_lanes; /* nlanes: rows drawn, the other row included */
    double width, height;
    double x0;         /* left edge of the time area */
    double axis_y;     /* the tick labels' baseline */
    double lanes_y, lanes_end, charts_y, notes_y;
    bool absolute;     /* the clock is the epoch's: name the window start as a date */
    dfs_tl_summary sum;
} layout;

static int cmp_span(const void *a, const void *b, void *ctx)
{
    const dfs_timeline *tl = ((const void *const *)ctx)[0];
    const tl_span *spans = ((const void *const *)ctx)[1];
    const tl_span *x = &spans[*(const uint32_t *)a], *y = &spans[*(const uint32_t *)b];
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    const tl_text *p = &tl->names.v[x->name], *q = &tl->names.v[y->name];
    size_t n = p->len < q->len ? p->len : q->len;
    int c = memcmp(p->s, q->s, n);
    if (c || p->len != q->len)
        return c ? c : p->len < q->len ? -1 : 1;
    return (int)x->cls - (int)y->cls;
}

/* Nesting depth by a stack of open ends: a span starting before the top one ends sits above it. */
static bool assign_depths(const dfs_timeline *tl, lane_draw *d)
{
    const tl_lane *l = d->lane;
    DFS_VEC(int64_t) open = {0};
    unsigned cap = tl->opt.max_depth - 1, deepest = 0;
    bool ok = true;
    for (size_t i = 0; i < l->spans.n && ok; i++) {
        const tl_span *s = &l->spans.v[d->order[i]];
        while (open.n && open.v[open.n - 1] <= s->start)
            open.n--;
        size_t depth = open.n;
        d->folded += depth > cap;
        d->depth[i] = (uint8_t)(depth > cap ? cap : depth);
        deepest = d->depth[i] > deepest ? d->depth[i] : deepest;
        ok = dfs_vec_push(&open, s->end);
    }
    dfs_vec_free(&open);
    d->rows = l->spans.n ? deepest + 1 : 1;
    return ok;
}

/* Narrow spans are drawn one level below the deepest span that covers their whole pixel column:
 * there they are mostly its children. Where no span covers the column (a GPU stream between
 * kernels, a thread between calls) they are drawn on the top row. */
static void cover_columns(const dfs_timeline *tl, lane_draw *d)
{
    const tl_lane *l = d->lane;
    memset(d->cover, -1, tl->width);
    for (size_t i = 0; l->busy && i < l->spans.n; i++) {
        const tl_span *s = &l->spans.v[d->order[i]];
        for (unsigned p = dfs_tl_pixel_of(tl, s->start), last = dfs_tl_pixel_of(tl, s->end); p <= last; p++) {
            int64_t hi = dfs_tl_pixel_end(tl, p);
            if (s->start <= dfs_tl_pixel_bound(tl, p) && s->end >= hi && d->cover[p] < d->depth[i])
                d->cover[p] = (int8_t)d->depth[i];
        }
    }
    unsigned cap = tl->opt.max_depth - 1;
    for (unsigned p = 0; l->busy && p < tl->width; p++) {
        unsigned row = (unsigned)(d->cover[p] + 1);
        bool used = false;
        for (int c = 0; c < DFS_TL_NCLASS; c++)
            used |= l->busy[p].count[c] > 0;
        if (used && (row > cap ? cap : row) + 1 > d->rows)
            d->rows = (row > cap ? cap : row) + 1;
    }
}

static bool prepare_lane(const dfs_timeline *tl, lane_draw *d)
{
    size_t n = d->lane->spans.n;
    d->order = malloc((n ? n : 1) * sizeof *d->order);
    d->depth = malloc(n ? n : 1);
    d->cover = malloc(tl->width);
    if (!d->order || !d->depth || !d->cover)
        return false;
    for (size_t i = 0; i < n; i++)
        d->order[i] = (uint32_t)i;
    const void *ctx[2] = {tl, d->lane->spans.v};
    qsort_r(d->order, n, sizeof *d->order, cmp_span, (void *)ctx);
    if (!assign_depths(tl, d))
        return false;
    cover_columns(tl, d);
    return true;
}

static double lane_height(const lane_draw *d)
{
    return d->rows * ROW_H + 2 * LANE_PAD;
}

static size_t note_count(const layout *L);

static bool make_layout(const dfs_timeline *tl, layout *L)
{
    memset(L, 0, sizeof *L);
    L->tl = tl;
    dfs_tl_summarize(tl, &L->sum);
    size_t own;
    const tl_lane **v = dfs_tl_lanes_in_order(tl, true, &own, &L->total_lanes);
    bool other = dfs_tl_other_drawn(tl);
    L->nlanes = own + other;
    L->lanes = calloc(L->nlanes ? L->nlanes : 1, sizeof *L->lanes);
    bool ok = v && L->lanes;
    for (size_t i = 0; ok && i < own; i++) {
        L->lanes[i].lane = v[i];
        bool first = i == 0 || !dfs_tl_same_group(v[i - 1], v[i]);
        L->lanes[i].solo = first && (i + 1 == own || !dfs_tl_same_group(v[i], v[i + 1]));
        L->lanes[i].header = first && !L->lanes[i].solo;
        ok = prepare_lane(tl, &L->lanes[i]);
    }
    if (ok && other) {
        L->lanes[own] = (lane_draw){.lane = &tl->other, .solo = true, .other = true};
        ok = prepare_lane(tl, &L->lanes[own]);
    }
    free(v);
    L->absolute = dfs_fmt_epoch_clock(tl->opt.start_ns);
    L->x0 = MARGIN + LABEL_W;
    L->width = L->x0 + tl->width + 3 * MARGIN; /* room for the last tick label */
    double y = 24 + (*tl->opt.subtitle ? 18 : 0) + 18 + 22; /* title, subtitle, window, legend */
    L->axis_y = y + 18;
    L->lanes_y = y = L->axis_y + 10;
    for (size_t i = 0; ok && i < L->nlanes; i++) {
        y += L->lanes[i].header ? GROUP_H : 0;
        L->lanes[i].y = y;
        y += lane_height(&L->lanes[i]);
    }
    if (L->nlanes == 0)
        y += 30; /* room for "no events" */
    L->lanes_end = y;
    L->charts_y = y + (tl->counters.n ? GROUP_H + 6 : 0);
    L->notes_y = L->charts_y + tl->counters.n * (CHART_H + CHART_GAP) + 16;
    L->height = L->notes_y + note_count(L) * NOTE_H + MARGIN;
    return ok;
}

static void free_layout(layout *L)
{
    for (size_t i = 0; L->lanes && i < L->nlanes; i++) {
        free(L->lanes[i].order);
        free(L->lanes[i].depth);
        free(L->lanes[i].cover);
    }
    free(L->lanes);
}

/* ===== drawing =============================================================================== */

static void put_text(FILE *out, const char *s, size_t max_chars)
{
    dfs_svg_text(out, s, strlen(s), max_chars);
}

static void attr_num(FILE *out, const char *name, double v)
{
    fprintf(out, " %s=\"", name);
    dfs_svg_num(out, v);
    fputc('"', out);
}

static void rect(FILE *out, double x, double y, double w, double h, const char *cls)
{
    fputs("<rect", out);
    attr_num(out, "x", x);
    attr_num(out, "y", y);
    attr_num(out, "width", w);
    attr_num(out, "height", h);
    if (cls)
        fprintf(out, " class=\"%s\"", cls);
}


/* A time on the trace's clock, as the summary names it. */
static char *fmt_clock(const layout *L, char *buf, size_t n, int64_t t)
{
    return dfs_tl_fmt_clock(buf, n, t, L->absolute);
}

/* The notes under the picture; counted only when out is NULL (the layout needs their number). */
typedef struct notes {
    FILE *out;
    double y;
    size_t n;
} notes;

static void note(notes *ns, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(notes *ns, const char *fmt, ...)
{
    if (ns->out) {
        fprintf(ns->out, "<text x=\"%d\" y=\"", MARGIN);
        dfs_svg_num(ns->out, ns->y + ns->n * NOTE_H);
        fputs("\" class=\"s\">", ns->out);
        va_list ap;
        va_start(ap, fmt);
        vfprintf(ns->out, fmt, ap); /* numbers and fixed words: nothing to escape */
        va_end(ap);
        fputs("</text>\n", ns->out);
    }
    ns->n++;
}

static size_t write_notes(FILE *out, const layout *L)
{
    const dfs_timeline *tl = L->tl;
    char a[40], c[48];
    uint64_t folded = 0;
    for (size_t i = 0; i < L->nlanes; i++)
        folded += L->lanes[i].folded;
    notes ns = {out, L->notes_y, 0};
    size_t omitted = L->sum.lanes - L->sum.lanes_drawn - L->sum.lanes_other;
    if (omitted)
        note(&ns, "%s lanes omitted: the %zu busiest of %zu are drawn (busy = summed span time in the window)",
             dfs_fmt_count(c, sizeof c, omitted), L->sum.lanes_drawn, L->sum.lanes);
    if (L->sum.lanes_empty)
        note(&ns, "%s %s of the trace %s nothing in this window and %s left out",
             dfs_fmt_count(c, sizeof c, L->sum.lanes_empty), L->sum.lanes_empty == 1 ? "lane" : "lanes",
             L->sum.lanes_empty == 1 ? "has" : "have", L->sum.lanes_empty == 1 ? "is" : "are");
    if (L->sum.lanes_other && tl->crowded)
        note(&ns, "more than %u lanes: all %s are drawn together as busy bars in one row, 'other lanes'",
             tl->lane_limit, dfs_fmt_count(c, sizeof c, L->sum.lanes_other));
    else if (L->sum.lanes_other)
        note(&ns, "%s lanes beyond the busiest %zu share the last row, 'other lanes' (a picture draws at most %u "
                  "lanes on their own)", dfs_fmt_count(c, sizeof c, L->sum.lanes_other), L->sum.lanes_drawn,
             tl->lane_limit);
    if (L->sum.spans_aggregated)
        note(&ns,
             "%s spans narrower than one pixel (%s) are drawn as per-pixel busy bars; "
             "opacity = busy share of the pixel",
             dfs_fmt_count(c, sizeof c, L->sum.spans_aggregated),
             dfs_fmt_duration(a, sizeof a, tl->span_ns / tl->width));
    if (folded)
        note(&ns, "%s spans nested deeper than %u levels are drawn in the last row of their lane",
             dfs_fmt_count(c, sizeof c, folded), tl->opt.max_depth);
    if (L->sum.samples)
        note(&ns, "counters: %s samples in %zu charts; the charts of one quantity (names alike but for the last word) "
                  "share a scale, utilizations and percentages 0 to 100",
             dfs_fmt_count(c, sizeof c, L->sum.samples), L->sum.counters);
    return ns.n;
}

static size_t note_count(const layout *L)
{
    return write_notes(NULL, L);
}

static void write_style(FILE *out)
{
    fputs("<style>\n"
          "text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;font-size:11px;fill:#222}\n"
          ".t{font-size:16px;font-weight:bold}\n"
          ".s{fill:#555}\n"
          ".g{font-weight:bold}\n.ll{fill:#222}\n"
          ".ax{font-size:10px;fill:#444}\n"
          ".nl{font-size:10px;fill:#fff}\n"
          ".nd{font-size:10px;fill:#111}\n"
          ".mm{font-size:9px;fill:#666}\n"
          ".grid{stroke:#d8d8d8;stroke-width:1}\n"
          ".bg0{fill:#ffffff}.bg1{fill:#f3f4f6}.gh{fill:#e4e7eb}.cb{fill:none;stroke:#ccc}\n"
          ".ln{fill:none;stroke:#2b6f8e;stroke-width:1.2}\n"
          ".pt{fill:#2b6f8e}\n",
          out);
    for (int c = 0; c < DFS_TL_NCLASS; c++)
        fprintf(out, ".k%d{fill:%s}\n", c, class_fill[c]);
    fputs("</style>\n", out);
}

static void write_legend(FILE *out, const layout *L, double y)
{
    double x = MARGIN;
    char n[32];
    for (int c = 0; c < DFS_TL_NCLASS; c++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", c);
        rect(out, x, y - 10, 12, 12, k);
        fputs("/>", out);
        fprintf(out, "<text x=\"");
        dfs_svg_num(out, x + 17);
        fprintf(out, "\" y=\"");
        dfs_svg_num(out, y);
        fprintf(out, "\">%s (%s)</text>\n", dfs_tl_class_name((dfs_tl_class)c),
                dfs_fmt_count(n, sizeof n, L->sum.spans[c]));
        x += 17 + (strlen(dfs_tl_class_name((dfs_tl_class)c)) + strlen(n) + 3) * CHAR_W + 20;
    }
    rect(out, x, y - 10, 12, 12, "k0");
    fputs(" fill-opacity=\"0.4\"/>", out);
    fprintf(out, "<text x=\"");
    dfs_svg_num(out, x + 17);
    fprintf(out, "\" y=\"");
    dfs_svg_num(out, y);
    fputs("\">faint: spans under 1 px, opacity = busy share</text>\n", out);
}

static void write_header(FILE *out, const layout *L)
{
    const dfs_timeline *tl = L->tl;
    char a[64], b[64], d[40];
    double y = 24;
    fprintf(out, "<text x=\"%d\" y=\"24\" class=\"t\">", MARGIN);
    put_text(out, tl->opt.title, 0);
    fputs("</text>\n", out);
    if (*tl->opt.subtitle) {
        y += 18;
        fprintf(out, "<text x=\"%d\" y=\"", MARGIN);
        dfs_svg_num(out, y);
        fputs("\" class=\"s\">", out);
        put_text(out, tl->opt.subtitle, (size_t)(L->width - 2 * MARGIN) / CHAR_W);
        fputs("</text>\n", out);
    }
    y += 18;
    fprintf(out, "<text x=\"%d\" y=\"", MARGIN);
    dfs_svg_num(out, y);
    fprintf(out, "\">window %s to %s (%s)</text>\n", fmt_clock(L, a, sizeof a, tl->opt.start_ns),
            fmt_clock(L, b, sizeof b, tl->opt.end_ns), dfs_fmt_duration(d, sizeof d, tl->span_ns));
    write_legend(out, L, y + 22);
}

/* The grid: a tick every `step` ns from the window start (1, 2 or 5 x 10^k ns, about every 110 px),
 * `count` of them. The count is computed, never found by stepping, and tick i sits at i x step <=
 * span: no window, up to the whole int64 clock, can make the loop long or the arithmetic overflow. */
typedef struct axis_ticks {
    int64_t step, count;
} axis_ticks;

static axis_ticks tick_plan(const dfs_timeline *tl)
{
    double raw = (double)tl->span_ns * 110.0 / tl->width;
    double mag = pow(10, floor(log10(raw > 1 ? raw : 1)));
    double f = raw / mag;
    double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
    axis_ticks t;
    if (step >= 0x1p63) /* the second tick lies beyond any window */
        return (axis_ticks){INT64_MAX, 1};
    t.step = step < 1 ? 1 : (int64_t)llround(step);
    t.count = tl->span_ns / t.step + 1; /* about width / 110 + 1 */
    if (t.count > tl->width)            /* never: at most one tick per pixel, whatever the rounding */
        t.count = tl->width;
    return t;
}

/* "+1.4 s", "+20 ms": in the largest unit the window reaches, with the decimals the step needs. */
static void tick_label(char *buf, size_t n, int64_t off, int64_t step, int64_t span)
{
    static const struct { int64_t div; const char *unit; } units[] = {
        {1000000000, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};
    size_t u = 0;
    while (units[u].div > span && u + 1 < sizeof units / sizeof *units)
        u++;
    int decimals = 0;
    for (int64_t d = units[u].div; d > 1 && step % d != 0 && decimals < 9; d /= 10)
        decimals++;
    if (off == 0)
        snprintf(buf, n, "0");
    else
        snprintf(buf, n, "+%.*f %s", decimals, (double)off / (double)units[u].div, units[u].unit);
}

static void write_axis(FILE *out, const layout *L)
{
    const dfs_timeline *tl = L->tl;
    axis_ticks t = tick_plan(tl);
    double bottom = L->charts_y + tl->counters.n * (CHART_H + CHART_GAP);
    fprintf(out, "<text x=\"%d\" y=\"", MARGIN);
    dfs_svg_num(out, L->axis_y);
    fputs("\" class=\"ax\">time from the window start</text>\n<g class=\"grid\">\n", out);
    for (int64_t i = 0; i < t.count; i++) {
        double x = L->x0 + x_of(tl, tl->opt.start_ns + i * t.step);
        fputs("<line", out);
        attr_num(out, "x1", x);
        attr_num(out, "x2", x);
        attr_num(out, "y1", L->axis_y + 4);
        attr_num(out, "y2", bottom);
        fputs("/>\n", out);
    }
    fputs("</g>\n", out);
    char lab[48];
    for (int64_t i = 0; i < t.count; i++) {
        double x = L->x0 + x_of(tl, tl->opt.start_ns + i * t.step);
        tick_label(lab, sizeof lab, i * t.step, t.step, tl->span_ns);
        fputs("<text class=\"ax\" text-anchor=\"middle\"", out);
        attr_num(out, "x", x);
        attr_num(out, "y", L->axis_y);
        fprintf(out, ">%s</text>\n", lab);
    }
}

/* ----- lanes ----- */

/* "input · host · process (pid 12)" */
static void group_text(const tl_lane *l, char *buf, size_t n)
{
    char pid[64];
    if (*l->pid_str)
        snprintf(pid, sizeof pid, "%.60s", l->pid_str);
    else
        snprintf(pid, sizeof pid, "pid %" PRId64, l->pid);
    snprintf(buf, n, "%.200s%s%.200s%s%.200s%s%s%s", l->source, *l->source ? " \xC2\xB7 " : "", l->host,
             *l->host ? " \xC2\xB7 " : "", l->process, *l->process ? " (" : "", pid, *l->process ? ")" : "");
}

/* The thread name, else the tid as written. */
static void lane_text(const tl_lane *l, char *buf, size_t n)
{
    if (*l->thread || *l->tid_str)
        snprintf(buf, n, "%.200s", *l->thread ? l->thread : l->tid_str);
    else
        snprintf(buf, n, "tid %" PRId64, l->tid);
}

/* A label in the label column, cut to fit, whole in its hover title. */
static void label(FILE *out, const char *cls, double x, double y, const char *text, size_t max_chars)
{
    fprintf(out, "<text class=\"%s\"", cls);
    attr_num(out, "x", x);
    attr_num(out, "y", y);
    fputs("><title>", out);
    put_text(out, text, 0);
    fputs("</title>", out);
    put_text(out, text, max_chars);
    fputs("</text>\n", out);
}

/* A process with several lanes gets a header row; a lone lane carries its process in its label. */
static void write_lane_frame(FILE *out, const layout *L, const lane_draw *d, size_t index)
{
    char group[1024], lane[256], both[1300];
    group_text(d->lane, group, sizeof group);
    lane_text(d->lane, lane, sizeof lane);
    double width = L->x0 + L->tl->width - MARGIN;
    if (d->other) {
        char n[32];
        snprintf(both, sizeof both, "%s other lanes", dfs_fmt_count(n, sizeof n, L->sum.lanes_other));
        rect(out, MARGIN, d->y, width, lane_height(d), index % 2 ? "bg1" : "bg0");
        fputs("/>\n", out);
        label(out, "g", MARGIN + 4, d->y + LANE_PAD + ROW_H - 3, both, (LABEL_W - 24) / CHAR_W);
        return;
    }
    if (d->header) {
        rect(out, MARGIN, d->y - GROUP_H, width, GROUP_H, "gh");
        fputs("/>\n", out);
        label(out, "g", MARGIN + 4, d->y - 5, group, (size_t)(width / (CHAR_W + 1)));
    }
    rect(out, MARGIN, d->y, width, lane_height(d), index % 2 ? "bg1" : "bg0");
    fputs("/>\n", out);
    if (d->solo)
        snprintf(both, sizeof both, "%s \xC2\xB7 %s", group, lane);
    label(out, "ll", d->solo ? MARGIN + 4 : MARGIN + 14, d->y + LANE_PAD + ROW_H - 3, d->solo ? both : lane,
          (LABEL_W - 24) / CHAR_W);
}

static void write_span(FILE *out, const layout *L, const lane_draw *d, size_t i)
{
    const dfs_timeline *tl = L->tl;
    const tl_span *s = &d->lane->spans.v[d->order[i]];
    const tl_text *name = &tl->names.v[s->name];
    int64_t cs = s->start > tl->opt.start_ns ? s->start : tl->opt.start_ns;
    int64_t ce = s->end < tl->opt.end_ns ? s->end : tl->opt.end_ns;
    double x = x_of(tl, cs), w = x_of(tl, ce) - x;
    char k[16], a[48], b[48], c[64];
    snprintf(k, sizeof k, "k%d", s->cls);
    rect(out, L->x0 + x, d->y + LANE_PAD + d->depth[i] * ROW_H, w < 1 ? 1 : w, ROW_H - 2, k);
    fputs("><title>", out);
    dfs_svg_text(out, name->s, name->len, 200);
    fprintf(out, "&#10;%s&#10;start %s (%s)&#10;duration %s</title></rect>\n", dfs_tl_class_name(s->cls),
            dfs_fmt_offset(a, sizeof a, dfs_tl_offset(tl, s->start)), fmt_clock(L, c, sizeof c, s->start),
            dfs_fmt_duration(b, sizeof b, s->end - s->start));
    if (w < 5 * CHAR_W)
        return;
    fprintf(out, "<text class=\"%s\"", class_dark[s->cls] ? "nl" : "nd");
    attr_num(out, "x", L->x0 + x + 3);
    attr_num(out, "y", d->y + LANE_PAD + d->depth[i] * ROW_H + ROW_H - 5);
    fputc('>', out);
    dfs_svg_text(out, name->s, name->len, (size_t)((w - 6) / (CHAR_W - 0.5)));
    fputs("</text>\n", out);
}

/* One column's busy bar: dominant class, opacity level 1..4, row. */
typedef struct busy_px {
    int cls, level;
    unsigned row;
    bool used;
} busy_px;

static busy_px busy_at(const dfs_timeline *tl, const lane_draw *d, unsigned p)
{
    const tl_busy *b = &d->lane->busy[p];
    busy_px r = {0, 0, 0, false};
    int64_t total = 0;
    for (int c = 0; c < DFS_TL_NCLASS; c++) {
        total = dfs_tl_sat_add(total, b->ns[c]);
        r.used |= b->count[c] > 0;
        if (b->ns[c] > b->ns[r.cls] || (b->ns[r.cls] == 0 && b->count[c] > b->count[r.cls]))
            r.cls = c;
    }
    int64_t width = dfs_tl_pixel_end(tl, p) - dfs_tl_pixel_bound(tl, p);
    double frac = width > 0 ? (double)total / (double)width : 1;
    r.level = frac >= 0.75 ? 4 : frac >= 0.5 ? 3 : frac >= 0.25 ? 2 : 1;
    unsigned row = (unsigned)(d->cover[p] + 1), cap = d->rows - 1;
    r.row = row > cap ? cap : row;
    return r;
}

static void write_busy_run(FILE *out, const layout *L, const lane_draw *d, unsigned p0, unsigned p1,
                           busy_px r)
{
    const dfs_timeline *tl = L->tl;
    uint64_t counts[DFS_TL_NCLASS] = {0}, total = 0;
    int64_t ns = 0;
    for (unsigned p = p0; p < p1; p++)
        for (int c = 0; c < DFS_TL_NCLASS; c++) {
            counts[c] += d->lane->busy[p].count[c];
            total += d->lane->busy[p].count[c];
            ns = dfs_tl_sat_add(ns, d->lane->busy[p].ns[c]);
        }
    int64_t lo = dfs_tl_pixel_bound(tl, p0), hi = dfs_tl_pixel_end(tl, p1 - 1);
    char k[16], a[48], b[48];
    snprintf(k, sizeof k, "k%d", r.cls);
    rect(out, L->x0 + p0, d->y + LANE_PAD + r.row * ROW_H, p1 - p0, ROW_H - 2, k);
    fprintf(out, " fill-opacity=\"%.2f\"><title>%" PRIu64 " spans %s from %s to %s:", r.level * 0.25, total,
            d->other ? "of other lanes" : "under 1 px", dfs_fmt_offset(a, sizeof a, lo - tl->opt.start_ns),
            dfs_fmt_offset(b, sizeof b, hi - tl->opt.start_ns));
    for (int c = 0; c < DFS_TL_NCLASS; c++)
        if (counts[c])
            fprintf(out, " %s %" PRIu64, dfs_tl_class_name((dfs_tl_class)c), counts[c]);
    fprintf(out, "; busy %.0f%%</title></rect>\n", hi > lo ? 100.0 * (double)ns / (double)(hi - lo) : 0.0);
}

static void write_busy(FILE *out, const layout *L, const lane_draw *d)
{
    const dfs_timeline *tl = L->tl;
    for (unsigned p = 0; d->lane->busy && p < tl->width;) {
        busy_px r = busy_at(tl, d, p);
        if (!r.used) {
            p++;
            continue;
        }
        unsigned q = p + 1;
        for (; q < tl->width; q++) {
            busy_px n = busy_at(tl, d, q);
            if (!n.used || n.cls != r.cls || n.level != r.level || n.row != r.row)
                break;
        }
        write_busy_run(out, L, d, p, q, r);
        p = q;
    }
}

static void write_lane_frames(FILE *out, const layout *L)
{
    for (size_t i = 0; i < L->nlanes; i++)
        write_lane_frame(out, L, &L->lanes[i], i);
    if (L->nlanes == 0) {
        fputs("<text text-anchor=\"middle\" class=\"s\"", out);
        attr_num(out, "x", L->x0 + L->tl->width / 2.0);
        attr_num(out, "y", L->lanes_y + 20);
        fputs(">no events in this window</text>\n", out);
    }
}

static void write_lane_contents(FILE *out, const layout *L)
{
    fputs("<g shape-rendering=\"crispEdges\">\n", out);
    for (size_t i = 0; i < L->nlanes; i++) {
        const lane_draw *d = &L->lanes[i];
        for (size_t k = 0; k < d->lane->spans.n; k++)
            write_span(out, L, d, k);
        write_busy(out, L, d);
    }
    fputs("</g>\n", out);
}

/* ----- counters ----- */

static void counter_range(const dfs_timeline *tl, const tl_counter *c, double *lo, double *hi, size_t *cols)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    *cols = 0;
    for (unsigned p = 0; p < tl->width; p++) {
        const tl_cell *x = &c->cells[p];
        if (!x->n)
            continue;
        *lo = x->min < *lo ? x->min : *lo;
        *hi = x->max > *hi ? x->max : *hi;
        (*cols)++;
    }
}

static double value_y(double v, double lo, double hi, double top)
{
    if (!(hi > lo) || !isfinite(hi - lo))
        return top + CHART_H / 2.0;
    return top + CHART_H - (v - lo) / (hi - lo) * CHART_H;
}

static void point(FILE *out, double x, double y)
{
    dfs_svg_num(out, x);
    fputc(',', out);
    dfs_svg_num(out, y);
    fputc(' ', out);
}

/* A value with an SI prefix past a thousand (12.5 k, 3.2 G): a reader compares charts at a glance. */
static const char *si_value(char *buf, size_t n, double v)
{
    static const char *const prefix[] = {"", " k", " M", " G", " T", " P", " E"};
    double a = fabs(v);
    int k = 0;
    while (a >= 1000 && k < 6) {
        a /= 1000;
        v /= 1000;
        k++;
    }
    snprintf(buf, n, "%.4g%s", v, prefix[k]);
    return buf;
}

static void write_chart_labels(FILE *out, const layout *L, const tl_text *name, double top, double lo,
                               double hi)
{
    char a[32], b[32];
    label(out, "ll", MARGIN + 14, top + 12, name->s, (LABEL_W - 110) / CHAR_W);
    fputs("<text class=\"mm\" text-anchor=\"end\"", out);
    attr_num(out, "x", L->x0 - 6);
    attr_num(out, "y", top + 8);
    fprintf(out, ">max %s</text>\n<text class=\"mm\" text-anchor=\"end\"", si_value(a, sizeof a, hi));
    attr_num(out, "x", L->x0 - 6);
    attr_num(out, "y", top + CHART_H);
    fprintf(out, ">min %s</text>\n", si_value(b, sizeof b, lo));
}

/* A counter's quantity: its name without the last word ("algo-1 CPUUtilization cpu3" is one of
 * "algo-1 CPUUtilization"): the charts of one quantity share a scale, so they compare. */
static size_t quantity_len(const tl_text *t)
{
    const char *sp = memrchr(t->s, ' ', t->len);
    return sp ? (size_t)(sp - t->s) : t->len;
}

static bool same_quantity(const tl_text *a, const tl_text *b)
{
    size_t n = quantity_len(a);
    return n == quantity_len(b) && memcmp(a->s, b->s, n) == 0;
}

/* Utilizations and percentages run 0 to 100 when their values do. */
static bool percent_like(const tl_text *t)
{
    size_t n = quantity_len(t);
    return memmem(t->s, n, "Utilization", 11) || memmem(t->s, n, "Percent", 7) || memmem(t->s, n, "percent", 7) ||
           memmem(t->s, n, "%", 1);
}

/* A chart's scale (the range of every counter of its quantity) and its own values. */
typedef struct chart_scale {
    double lo, hi;         /* the scale */
    double own_lo, own_hi; /* the chart's own values, for its title */
    size_t cols;           /* its sampled pixels */
} chart_scale;

/* The scales of the n charts v[], each counter's cells scanned once. */
static void chart_scales(const dfs_timeline *tl, const tl_counter *const *v, size_t n, chart_scale *s)
{
    for (size_t i = 0; i < n; i++) {
        counter_range(tl, v[i], &s[i].own_lo, &s[i].own_hi, &s[i].cols);
        s[i].lo = s[i].own_lo;
        s[i].hi = s[i].own_hi;
    }
    for (size_t i = 0; i < n; i++) {
        const tl_text *name = &tl->names.v[v[i]->name];
        for (size_t j = 0; j < n; j++)
            if (j != i && same_quantity(name, &tl->names.v[v[j]->name])) {
                s[i].lo = s[j].own_lo < s[i].lo ? s[j].own_lo : s[i].lo;
                s[i].hi = s[j].own_hi > s[i].hi ? s[j].own_hi : s[i].hi;
            }
        if (percent_like(name) && s[i].lo >= 0 && s[i].hi <= 100) {
            s[i].lo = 0;
            s[i].hi = 100;
        }
    }
}

static void write_chart(FILE *out, const layout *L, const tl_counter *c, const chart_scale *s, double top)
{
    const dfs_timeline *tl = L->tl;
    const tl_text *name = &tl->names.v[c->name];
    double lo = s->lo, hi = s->hi, own_lo = s->own_lo, own_hi = s->own_hi;
    size_t cols = s->cols;
    rect(out, L->x0, top, tl->width, CHART_H, "cb");
    fputs("/>\n", out);
    write_chart_labels(out, L, name, top, lo, hi);
    fputs("<polyline class=\"ln\" points=\"", out);
    for (unsigned p = 0; p < tl->width; p++) {
        const tl_cell *x = &c->cells[p];
        double px = L->x0 + p + 0.5;
        if (x->n > 1 && x->min != x->max) {
            point(out, px, value_y(x->min, lo, hi, top));
            point(out, px, value_y(x->max, lo, hi, top));
        }
        if (x->n)
            point(out, px, value_y(x->last, lo, hi, top));
    }
    fputs("\"><title>", out);
    dfs_svg_text(out, name->s, name->len, 200);
    fprintf(out, ": %" PRIu64 " samples, min %.6g, max %.6g</title></polyline>\n", c->samples, own_lo, own_hi);
    if (cols > 150) /* dense: the line says it all */
        return;
    char a[48];
    for (unsigned p = 0; p < tl->width; p++) {
        const tl_cell *x = &c->cells[p];
        if (!x->n)
            continue;
        fputs("<circle class=\"pt\" r=\"2\"", out);
        attr_num(out, "cx", L->x0 + p + 0.5);
        attr_num(out, "cy", value_y(x->last, lo, hi, top));
        fputs("><title>", out);
        dfs_svg_text(out, name->s, name->len, 200);
        fprintf(out, " = %.6g at %s</title></circle>\n", x->last,
                dfs_fmt_offset(a, sizeof a, x->last_t - tl->opt.start_ns));
    }
}

/* Natural order: digit runs compare as numbers, so cpu2 comes before cpu10. */
static int natural_cmp(const char *a, size_t na, const char *b, size_t nb)
{
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        if (isdigit((unsigned char)a[i]) && isdigit((unsigned char)b[j])) {
            size_t si = i, sj = j;
            while (si < na && a[si] == '0')
                si++;
            while (sj < nb && b[sj] == '0')
                sj++;
            size_t ei = si, ej = sj;
            while (ei < na && isdigit((unsigned char)a[ei]))
                ei++;
            while (ej < nb && isdigit((unsigned char)b[ej]))
                ej++;
            if (ei - si != ej - sj) /* fewer significant digits: smaller */
                return ei - si < ej - sj ? -1 : 1;
            int c = memcmp(a + si, b + sj, ei - si);
            if (c)
                return c;
            i = ei;
            j = ej;
            continue;
        }
        if (a[i] != b[j])
            return (unsigned char)a[i] < (unsigned char)b[j] ? -1 : 1;
        i++;
        j++;
    }
    if (i < na || j < nb)
        return i < na ? 1 : -1;
    size_t m = na < nb ? na : nb; /* equal but for leading zeros: by bytes, so the order is total */
    int c = memcmp(a, b, m);
    return c ? c : (na > nb) - (na < nb);
}

static int cmp_counter(const void *a, const void *b, void *ctx)
{
    const dfs_timeline *tl = ctx;
    const tl_text *p = &tl->names.v[(*(const tl_counter *const *)a)->name];
    const tl_text *q = &tl->names.v[(*(const tl_counter *const *)b)->name];
    return natural_cmp(p->s, p->len, q->s, q->len);
}

static bool write_counters(FILE *out, const layout *L)
{
    const dfs_timeline *tl = L->tl;
    if (!tl->counters.n)
        return true;
    const tl_counter **v = malloc(tl->counters.n * sizeof *v);
    chart_scale *scales = malloc(tl->counters.n * sizeof *scales);
    if (!v || !scales) {
        free(v);
        free(scales);
        return false;
    }
    for (size_t i = 0; i < tl->counters.n; i++)
        v[i] = &tl->counters.v[i];
    qsort_r(v, tl->counters.n, sizeof *v, cmp_counter, (void *)tl);
    chart_scales(tl, v, tl->counters.n, scales);
    rect(out, MARGIN, L->charts_y - GROUP_H - 6, L->x0 + tl->width - MARGIN, GROUP_H, "gh");
    fputs("/>\n<text class=\"g\"", out);
    attr_num(out, "x", MARGIN + 4);
    attr_num(out, "y", L->charts_y - 11);
    fputs(">counters</text>\n", out);
    for (size_t i = 0; i < tl->counters.n; i++)
        write_chart(out, L, v[i], &scales[i], L->charts_y + i * (CHART_H + CHART_GAP));
    free(v);
    free(scales);
    return true;
}

/* ===== the document ========================================================================== */

dfs_status dfs_tl_write(const dfs_timeline *tl, FILE *out)
{
    layout L;
    if (!make_layout(tl, &L)) {
        free_layout(&L);
        return DFS_ERR_NOMEM;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"", out);
    attr_num(out, "width", L.width);
    attr_num(out, "height", L.height);
    fprintf(out, " viewBox=\"0 0 ");
    dfs_svg_num(out, L.width);
    fputc(' ', out);
    dfs_svg_num(out, L.height);
    fputs("\">\n<title>", out);
    put_text(out, tl->opt.title, 0);
    fputs("</title>\n", out);
    write_style(out);
    rect(out, 0, 0, L.width, L.height, "bg0");
    fputs("/>\n", out);
    write_header(out, &L);
    write_lane_frames(out, &L);
    write_axis(out, &L);
    write_lane_contents(out, &L);
    bool ok = write_counters(out, &L);
    write_notes(out, &L);
    fputs("</svg>\n", out);
    free_layout(&L);
    if (!ok)
        return DFS_ERR_NOMEM;
    return fflush(out) != 0 || ferror(out) ? DFS_ERR_IO : DFS_OK;
}

int dfs_tl_write_file(const dfs_timeline *tl, const char *path, dfs_output_guard *guard, char *err, size_t errlen)
{
    dfs_atomic_file f;
    if (dfs_atomic_open(&f, path, guard, err, errlen) != 0)
        return -1;
    dfs_status st = dfs_tl_write(tl, f.fp);
    if (st != DFS_OK) {
        dfs_atomic_close(&f, false, err, errlen);
        snprintf(err, errlen, "%s: %s", path,
                 st == DFS_ERR_NOMEM ? "out of memory while drawing" : "write failed");
        return -1;
    }
    return dfs_atomic_close(&f, true, err, errlen) == 0 ? 0 : -1;
}
