/* shortest.c - the shortest digits that read back as a double, and Python's repr (shortest.h).
 *
 * printf's 17 correctly rounded digits always read back; fewer digits are got by rounding those 17
 * again (printf is asked only for the exact ties), and strtod says whether they read back. Most
 * measured values need 16 or 17 digits, so those are tried first, and as reading back is monotonic
 * in the digit count the rest is a binary search: a few strtod calls a number instead of up to 17
 * printf and strtod pairs. Not monotonic at powers of two, whose lower neighbour is twice as near
 * as the upper one: 15 digits of 2^-645 read back (they lie above it) while 16 do not (below), so
 * those few numbers are checked from one digit up. */
#include "util/shortest.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes "e+05", "e-324" at p: sign always and two digits at least, Python's exponent form, which
 * strtod reads as well. Returns the end. */
static char *put_exp(char *p, int e)
{
    *p++ = 'e';
    *p++ = e < 0 ? '-' : '+';
    if (e < 0)
        e = -e;
    if (e >= 100)
        *p++ = (char)('0' + e / 100);
    *p++ = (char)('0' + e / 10 % 10);
    *p++ = (char)('0' + e % 10);
    return p;
}

/* The p-digit form of a correctly rounded, from its 17-digit form d17 (exponent e17 of d.ddd):
 * rounding the 17 digits again is exact unless the dropped digits are exactly 5000..., where the
 * exact binary value decides and printf is asked. Writes the digits (NUL-terminated); returns the
 * exponent. */
static int round_to(double a, const char *d17, int e17, int p, char *out)
{
    int cmp = d17[p] - '5';
    for (int i = p + 1; i < 17 && cmp == 0; i++)
        cmp = d17[i] != '0';
    if (cmp == 0) {
        char sci[32];
        snprintf(sci, sizeof sci, "%.*e", p - 1, a);
        int k = 0;
        for (const char *q = sci; *q != 'e'; q++)
            if (*q != '.')
                out[k++] = *q;
        out[k] = '\0';
        return atoi(strchr(sci, 'e') + 1);
    }
    memcpy(out, d17, (size_t)p);
    out[p] = '\0';
    if (cmp < 0)
        return e17;
    int i = p - 1;
    for (; i >= 0 && out[i] == '9'; i--)
        out[i] = '0';
    if (i >= 0) {
        out[i]++;
        return e17;
    }
    out[0] = '1'; /* 99..9 became 100..0 */
    return e17 + 1;
}

/* Do a's p digits, rounded from d17 (exponent e17), read back as a? */
static bool reads_back(double a, const char *d17, int e17, int p)
{
    char digits[18], text[32], *t = text;
    int exp = round_to(a, d17, e17, p, digits);
    *t++ = digits[0];
    *t++ = '.';
    memcpy(t, digits + 1, (size_t)p - 1);
    *put_exp(t + p - 1, exp) = '\0';
    return strtod(text, NULL) == a;
}

int dfs_shortest_digits(double a, char digits[18], int *decpt)
{
    char s17[32], d17[18];
    snprintf(s17, sizeof s17, "%.16e", a); /* d.dddddddddddddddde±XX */
    d17[0] = s17[0];
    memcpy(d17 + 1, s17 + 2, 16);
    d17[17] = '\0';
    int e17 = atoi(s17 + 19), lo = 1, hi = 17, e2; /* hi digits read back: 17 always do */
    if (frexp(a, &e2) == 0.5) {
        while (lo < hi && !reads_back(a, d17, e17, lo))
            lo++;
        hi = lo;
    } else if (!reads_back(a, d17, e17, 16)) {
        lo = 17;
    } else if (!reads_back(a, d17, e17, 15)) {
        lo = hi = 16;
    } else {
        hi = 15;
    }
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (reads_back(a, d17, e17, mid))
            hi = mid;
        else
            lo = mid + 1;
    }
    *decpt = round_to(a, d17, e17, hi, digits) + 1;
    return hi;
}

/* Python's float_repr_style 'short': exponent form when decpt <= -4 or decpt > 16, else plain with
 * at least one digit after the point. */
size_t dfs_py_repr_finite(double v, char *buf)
{
    char *p = buf;
    if (signbit(v))
        *p++ = '-';
    if (v == 0) {
        memcpy(p, "0.0", 4);
        return (size_t)(p - buf) + 3;
    }
    char d[18];
    int decpt, n = dfs_shortest_digits(fabs(v), d, &decpt);
    if (decpt <= -4 || decpt > 16) { /* d[.ddd]e+XX */
        *p++ = d[0];
        if (n > 1) {
            *p++ = '.';
            memcpy(p, d + 1, (size_t)n - 1);
            p += n - 1;
        }
        p = put_exp(p, decpt - 1);
    } else if (decpt <= 0) { /* 0.000ddd */
        *p++ = '0';
        *p++ = '.';
        memset(p, '0', (size_t)-decpt);
        memcpy(p - decpt, d, (size_t)n);
        p += n - decpt;
    } else if (decpt >= n) { /* ddd000.0 */
        memcpy(p, d, (size_t)n);
        memset(p + n, '0', (size_t)(decpt - n));
        p += decpt;
        *p++ = '.';
        *p++ = '0';
    } else { /* ddd.ddd */
        memcpy(p, d, (size_t)decpt);
        p[decpt] = '.';
        memcpy(p + decpt + 1, d + decpt, (size_t)(n - decpt));
        p += n + 1;
    }
    *p = '\0';
    return (size_t)(p - buf);
}
