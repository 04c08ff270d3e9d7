/* html_chart.h - the report page's charts as inline SVG (html_chart.c): stacked horizontal bars
 * (a breakdown per rank, a histogram, a top list) and series over an x axis (stacked columns or
 * lines: steps, time bins). Each has axes with units, ticks with SI prefixes that never overlap,
 * a legend, a hover text per mark (an SVG title, no script needed) and the colours of palette.h;
 * its text colours follow the page's theme (CSS classes of report_html.c).
 *
 * Invariants: the SVG's size is bounded by its marks (rows x series, or points x series), never
 * by the events behind them; every label may come from a trace and is escaped (HTML rules,
 * escape.h); a value that is not finite is drawn as zero. */
#ifndef DFS_HTML_CHART_H
#define DFS_HTML_CHART_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum dfs_chart_unit {
    DFS_CU_SECONDS,  /* 1.5 ms, 12 s, 3 min */
    DFS_CU_BYTES_S,  /* 1.2 GB/s */
    DFS_CU_PER_S,    /* 3.4 k/s */
    DFS_CU_COUNT,    /* 12 k */
    DFS_CU_PLAIN,    /* 2.5 (mean busy processes) */
} dfs_chart_unit;

typedef struct dfs_chart_series {
    const char *name;
    const char *color; /* "#RRGGBB" (palette.h) */
    const double *v;   /* one value per row or point */
} dfs_chart_series;

/* Rows of stacked bars, top to bottom. */
typedef struct dfs_chart_bars {
    const char *id;            /* the svg element's id (ASCII, no trace text) */
    const char *const *labels; /* one per row */
    size_t nrows;
    const dfs_chart_series *series;
    size_t nseries;
    dfs_chart_unit unit;
    const char *axis;          /* what the x axis measures, e.g. "time per rank" */
} dfs_chart_bars;

/* Points 0..n-1 over an x axis: stacked columns, or lines. */
typedef struct dfs_chart_xy {
    const char *id;
    size_t n;
    const dfs_chart_series *series;
    size_t nseries;
    bool lines;                /* lines (series compared) rather than stacked columns (parts) */
    dfs_chart_unit unit;
    const char *y_axis;
    /* the x of point i: x0 + i * dx in x_unit, or a category number (x_numbers[i]) */
    double x0, dx;
    dfs_chart_unit x_unit;
    const long long *x_numbers; /* e.g. step numbers; NULL: x0 + i * dx */
    const char *x_axis;
    const bool *flagged;        /* points marked with a triangle (outliers); NULL: none */
    const char *flag_name;
    const double *marks;        /* vertical lines at these x values (epoch starts) */
    size_t nmarks;
    const char *mark_name;
} dfs_chart_xy;

void dfs_chart_bars_svg(FILE *out, const dfs_chart_bars *c);
void dfs_chart_xy_svg(FILE *out, const dfs_chart_xy *c);
/* A value with its unit, as the charts label it ("1.5 ms"). */
char *dfs_chart_value(char *buf, size_t n, double v, dfs_chart_unit unit);
#endif
