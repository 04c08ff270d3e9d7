/* format.c - the human formats of format.h: one place decides how every table spells a number. */
#include "output/format.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

char *dfs_fmt_count(char *buf, size_t n, uint64_t v)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%" PRIu64, v);
    size_t o = 0;
    for (int i = 0; i < len && o + 1 < n; i++) {
        if (i > 0 && (len - i) % 3 == 0 && o + 2 < n)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* %.*f with the integer part grouped; values past 2^64 keep %f's digits ungrouped (they never
 * come from a trace, and %f still prints no exponent). */
char *dfs_fmt_fixed(char *buf, size_t n, double v, int decimals)
{
    if (!isfinite(v)) {
        snprintf(buf, n, "%s", DFS_FMT_NA);
        return buf;
    }
    char t[400];
    snprintf(t, sizeof t, "%.*f", decimals, fabs(v));
    const char *dot = strchr(t, '.');
    size_t ilen = dot ? (size_t)(dot - t) : strlen(t);
    bool negative = v < 0 && strspn(t, "0.") != strlen(t); /* no "-0.000" */
    uint64_t whole = 0;
    if (ilen > 19 || sscanf(t, "%" SCNu64, &whole) != 1) {
        snprintf(buf, n, "%s%s", negative ? "-" : "", t);
        return buf;
    }
    char g[40];
    snprintf(buf, n, "%s%s%s", negative ? "-" : "", dfs_fmt_count(g, sizeof g, whole), dot ? dot : "");
    return buf;
}

/* For a number of no known unit or scale (a preset's formula): enough decimals for four significant
 * digits, at least three, so 1e-7 reads 0.0000001000 and never in exponent form. */
char *dfs_fmt_plain(char *buf, size_t n, double v)
{
    int decimals = 3;
    if (isfinite(v) && v != 0 && fabs(v) < 1) {
        decimals = 3 - (int)floor(log10(fabs(v)));
        decimals = decimals > 20 ? 20 : decimals;
    }
    return dfs_fmt_fixed(buf, n, v, decimals);
}

/* ns (a double: analyses sum seconds as doubles) in its unit; divisions from ns, so a duration
 * given in ns reads digit for digit as ns / 1e6 etc. */
static char *scaled_ns(char *buf, size_t n, double ns)
{
    static const struct {
        double below, per; /* ns; a unit serves values under `below` and holds `per` ns */
        const char *unit;
    } units[] = {{1e3, 1, "ns"}, {1e6, 1e3, "us"}, {1e9, 1e6, "ms"}, {60e9, 1e9, "s"}, {3600e9, 60e9, "min"}};
    char num[64];
    double a = fabs(ns);
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        double half = i ? 0.0005 : 0.5; /* of the last digit: 59.9999 s reads 1.000 min, not 60.000 s */
        if (a / units[i].per < units[i].below / units[i].per - half) {
            dfs_fmt_fixed(num, sizeof num, ns / units[i].per, i ? 3 : 0);
            snprintf(buf, n, "%s %s", num, units[i].unit);
            return buf;
        }
    }
    snprintf(buf, n, "%s h", dfs_fmt_fixed(num, sizeof num, ns / 3600e9, 3));
    return buf;
}

char *dfs_fmt_seconds(char *buf, size_t n, double s)
{
    if (!isfinite(s)) {
        snprintf(buf, n, "%s", DFS_FMT_NA);
        return buf;
    }
    if (s == 0) {
        snprintf(buf, n, "0 s");
        return buf;
    }
    return scaled_ns(buf, n, s * 1e9);
}

char *dfs_fmt_duration(char *buf, size_t n, int64_t ns)
{
    if (ns > -1000 && ns < 1000) { /* whole nanoseconds, 0 included: a measured duration */
        snprintf(buf, n, "%" PRId64 " ns", ns);
        return buf;
    }
    return scaled_ns(buf, n, (double)ns);
}

char *dfs_fmt_offset(char *buf, size_t n, int64_t ns)
{
    char d[40];
    dfs_fmt_duration(d, sizeof d, ns);
    snprintf(buf, n, "%s%s", ns >= 0 ? "+" : "", d);
    return buf;
}

char *dfs_fmt_size(char *buf, size_t n, double bytes)
{
    static const char *const units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    if (!isfinite(bytes)) {
        snprintf(buf, n, "%s", DFS_FMT_NA);
        return buf;
    }
    double v = bytes;
    int u = 0;
    while (fabs(v) >= 999.95 && u < 5) { /* 999,999 B is 1.0 MB, not 1000.0 KB */
        v /= 1000;
        u++;
    }
    char num[64];
    if (u == 0)
        snprintf(buf, n, "%s B", dfs_fmt_fixed(num, sizeof num, round(bytes), 0));
    else
        snprintf(buf, n, "%s %s", dfs_fmt_fixed(num, sizeof num, v, 1), units[u]);
    return buf;
}

char *dfs_fmt_bytes(char *buf, size_t n, uint64_t bytes)
{
    if (bytes < 1000) { /* exact below a kilobyte, whatever a double would round */
        snprintf(buf, n, "%" PRIu64 " B", bytes);
        return buf;
    }
    return dfs_fmt_size(buf, n, (double)bytes);
}

char *dfs_fmt_rate(char *buf, size_t n, double bytes_per_s)
{
    char size[64];
    if (!isfinite(bytes_per_s))
        snprintf(buf, n, "%s", DFS_FMT_NA);
    else
        snprintf(buf, n, "%s/s", dfs_fmt_size(size, sizeof size, bytes_per_s));
    return buf;
}

static char *iso_time(char *buf, size_t n, int64_t ns, bool trim);

char *dfs_fmt_time(char *buf, size_t n, int64_t ns)
{
    return iso_time(buf, n, ns, true);
}

char *dfs_fmt_time_ns(char *buf, size_t n, int64_t ns)
{
    return iso_time(buf, n, ns, false);
}

static char *iso_time(char *buf, size_t n, int64_t ns, bool trim)
{
    time_t secs = (time_t)(ns / 1000000000);
    int64_t frac = ns % 1000000000;
    if (frac < 0) {
        frac += 1000000000;
        secs--;
    }
    struct tm tm;
    if (!gmtime_r(&secs, &tm)) {
        snprintf(buf, n, "%" PRId64 " ns", ns);
        return buf;
    }
    char date[40];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    /* as many fraction digits as the time holds, in groups of three: microsecond traces read
     * .967057Z, whole seconds no fraction; nothing is rounded away */
    int digits = 9;
    while (trim && digits > 0 && frac % 1000 == 0) {
        frac /= 1000;
        digits -= 3;
    }
    if (digits)
        snprintf(buf, n, "%s.%0*" PRId64 "Z", date, digits, frac);
    else
        snprintf(buf, n, "%sZ", date);
    return buf;
}
