/* shortest.c - the shortest digits that read back as a double, and Python's repr (shortest.h).
 *
 * printf's 17 correctly rounded digits always read back; fewer digits are got by rounding those 17
 * again (printf is asked only for the exact ties), and strtod says whether they read back. Most
 * measured values need 16 or 17 digits, so those are tried first, and the rest is a binary search:
 * a few strtod calls a number instead of up to 17 printf and strtod pairs. The search needs reading
 * back to be monotonic in the digit count, which holds when a count is asked whether any of its
 * numbers reads back (p digits that do, and a zero, are p + 1 that do), not only the correctly
 * rounded one: 15 digits of 2^-645 read back (they lie above it) while its correctly rounded 16 do
 * not (below; a power of two's lower neighbour is twice as near). fits() asks the right question. */
#include "util/shortest.h"

#include <float.h>
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

/* The double that digits (p of them, exponent exp of d.ddd) read back as. */
static double read_back(const char *digits, int p, int exp)
{
    char text[32], *t = text;
    *t++ = digits[0];
    *t++ = '.';
    memcpy(t, digits + 1, (size_t)p - 1);
    *put_exp(t + p - 1, exp) = '\0';
    return strtod(text, NULL);
}

/* Moves the p digits (exponent exp) one unit in the last place up or down; returns the exponent.
 * Up from 99..9 gives 10^(exp+1). Down from 10..0 = 10^exp, which a's digits are only when a lies
 * in the decade below and rounded up, lands in that decade, whose unit is ten times finer: p nines
 * (exponent exp - 1), not p - 1 of them. */
static int step(char *d, int p, int exp, bool up)
{
    int i = p - 1;
    if (up) {
        for (; i >= 0 && d[i] == '9'; i--)
            d[i] = '0';
        if (i < 0) {
            d[0] = '1';
            return exp + 1;
        }
        d[i]++;
        return exp;
    }
    for (; d[i] == '0'; i--) /* stops: d[0] is not '0' */
        d[i] = '9';
    d[i]--;
    if (d[0] != '0')
        return exp;
    memset(d, '9', (size_t)p);
    return exp - 1;
}

/* Finds p digits that read back as a, the nearest to a if several do, into out (exponent *exp);
 * false if none does. What reads back is an interval around a, so if any p-digit number does, the
 * nearest on one side of a does: the correctly rounded one (the nearest of all), else the nearest
 * on the other side. That one can read back only where the interval is lopsided - a power of two,
 * whose lower neighbour is twice as near as its upper one: the correctly rounded 16 digits of 2^-24
 * fall below its lower bound, the next 16 digits up are within its upper one, and Python prints
 * those. Elsewhere both bounds are half an ulp away, so the other side, never nearer than the
 * correctly rounded one, reads back only if that one does. */
static bool fits(double a, const char *d17, int e17, int p, bool lopsided, char *out, int *exp)
{
    *exp = round_to(a, d17, e17, p, out);
    double back = read_back(out, p, *exp);
    if (back == a)
        return true;
    if (!lopsided)
        return false;
    *exp = step(out, p, *exp, back < a);
    return read_back(out, p, *exp) == a;
}

int dfs_shortest_digits(double a, char digits[18], int *decpt)
{
    char s17[32], d17[18], cand[18];
    snprintf(s17, sizeof s17, "%.16e", a); /* d.dddddddddddddddde±XX */
    d17[0] = s17[0];
    memcpy(d17 + 1, s17 + 2, 16);
    d17[17] = '\0';
    memcpy(digits, d17, sizeof d17);
    /* hi digits read back (17 always do) and digits holds them; fewer than lo do not */
    int e17 = atoi(s17 + 19), exp = e17, lo = 1, hi = 17, e2;
    /* at DBL_MIN and the subnormal powers the lower neighbour is as near as the upper one */
    bool lopsided = frexp(a, &e2) == 0.5 && a > DBL_MIN;
    while (lo < hi) {
        int mid = hi > 15 ? hi - 1 : (lo + hi) / 2, e; /* 16, 15, then halves */
        if (fits(a, d17, e17, mid, lopsided, cand, &e)) {
            memcpy(digits, cand, (size_t)mid + 1);
            exp = e;
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    *decpt = exp + 1;
    return hi;
}

/* v's shortest digits laid out as Python's repr or printf's %g does, into buf. The two differ in
 * two points only: Python stays plain up to 16 digits before the point and ends an integer in ".0"
 * ("5.0"); %g turns to exponent form past its precision (here the digit count) and writes "5".
 * Both use exponent form below 1e-4, with a sign and at least two exponent digits. Zero has the
 * digit "0" and decpt 1: "0.0" and "0". */
static size_t layout(double v, char *buf, bool python)
{
    char *p = buf, d[18] = "0";
    if (signbit(v))
        *p++ = '-';
    int decpt = 1, n = v == 0 ? 1 : dfs_shortest_digits(fabs(v), d, &decpt);
    if (decpt <= -4 || decpt > (python ? 16 : n)) { /* d[.ddd]e+XX */
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
    } else if (decpt >= n) { /* ddd000.0, or ddd for %g */
        memcpy(p, d, (size_t)n);
        memset(p + n, '0', (size_t)(decpt - n));
        p += decpt;
        if (python) {
            *p++ = '.';
            *p++ = '0';
        }
    } else { /* ddd.ddd */
        memcpy(p, d, (size_t)decpt);
        p[decpt] = '.';
        memcpy(p + decpt + 1, d + decpt, (size_t)(n - decpt));
        p += n + 1;
    }
    *p = '\0';
    return (size_t)(p - buf);
}

size_t dfs_py_repr_finite(double v, char *buf)
{
    return layout(v, buf, true);
}

size_t dfs_shortest_g_finite(double v, char *buf)
{
    return layout(v, buf, false);
}
