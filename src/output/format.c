#include "output/format.h"

#include <inttypes.h>
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

char *dfs_fmt_duration(char *buf, size_t n, int64_t ns)
{
    double v = (double)ns;
    double a = v < 0 ? -v : v;
    if (a >= 1e9)
        snprintf(buf, n, "%.3f s", v / 1e9);
    else if (a >= 1e6)
        snprintf(buf, n, "%.3f ms", v / 1e6);
    else if (a >= 1e3)
        snprintf(buf, n, "%.3f us", v / 1e3);
    else
        snprintf(buf, n, "%" PRId64 " ns", ns);
    return buf;
}

char *dfs_fmt_bytes(char *buf, size_t n, uint64_t bytes)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1000 && u < 5) {
        v /= 1000;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%" PRIu64 " B", bytes);
    else
        snprintf(buf, n, "%.1f %s", v, units[u]);
    return buf;
}

char *dfs_fmt_time(char *buf, size_t n, int64_t ns)
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
    snprintf(buf, n, "%s.%09" PRId64 "Z", date, frac);
    return buf;
}
