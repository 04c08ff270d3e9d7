/* shortest.c - the shortest digits that read back as a double, and Python's repr (shortest.h).
 *
 * The 17 correctly rounded digits always read back; fewer digits are got by rounding those 17
 * again, and whether they read back is what strtod would say. Most measured values need 16 or 17
 * digits, so those are tried first, and the rest is a binary search. Reports print tens of millions
 * of numbers, so each step has an exact fast path and leaves to printf or strtod only what it
 * cannot decide for certain: short decimals are recognised outright (short_decimal), the 17 digits
 * come from a long double product (digits17), ties are asked of printf (round_to), and reading back
 * is decided against the interval's bounds in long double (reads_back_as). The search needs reading
 * back to be monotonic in the digit count, which holds when a count is asked whether any of its
 * numbers reads back (p digits that do, and a zero, are p + 1 that do), not only the correctly
 * rounded one: 15 digits of 2^-645 read back (they lie above it) while its correctly rounded 16 do
 * not (below; a power of two's lower neighbour is twice as near). fits() asks the right question. */
#include "util/shortest.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes an exponent at p and returns the end: "e+05", "e-324" (padded: a sign always and two
 * digits at least, as Python and printf write it, which strtod reads as well), or "e5", "e-324"
 * (bare, as JavaScript writes it). |e| < 1000. */
static char *put_exp(char *p, int e, bool padded)
{
    *p++ = 'e';
    if (e < 0 || padded)
        *p++ = e < 0 ? '-' : '+';
    if (e < 0)
        e = -e;
    if (e >= 100)
        *p++ = (char)('0' + e / 100);
    if (e >= 10 || padded)
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
    *put_exp(t + p - 1, exp, true) = '\0';
    return strtod(text, NULL);
}

#if LDBL_MANT_DIG >= 64
/* The powers of ten that a long double holds exactly (5^27 < 2^63). */
static const long double pow10[] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
                                    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
                                    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
#define MAX_POW10 27
#endif

/* a's 17 correctly rounded significant digits (as printf's "%.16e" has them) and their exponent
 * (of d.ddd), mostly without printf. With a scaled into [10^16, 10^17) by an exact power of ten, the
 * long double product is a x 10^k within 2^-64 of it, under 0.01 in absolute terms: rounding it to
 * an integer gives the correctly rounded digits unless its fraction lies that near one half. */
static void digits17(double a, char d17[18], int *e17)
{
#if LDBL_MANT_DIG >= 64
    int e10 = (int)floor(log10(a)), k = 16 - e10;
    for (int tries = 0; tries < 2 && k >= -MAX_POW10 && k <= MAX_POW10 && a >= DBL_MIN; tries++) {
        long double x = k >= 0 ? (long double)a * pow10[k] : (long double)a / pow10[-k];
        if (x < 1e16L || x >= 1e17L) { /* log10 was one off */
            k += x < 1e16L ? 1 : -1;
            continue;
        }
        long double whole = floorl(x), frac = x - whole;
        if (fabsl(frac - 0.5L) <= x * 0x1p-62L)
            break;
        /* whole is an integer below 2^57: llrintl converts it exactly, without the two changes of
         * the x87 rounding mode that a cast (truncation) costs */
        uint64_t d = (uint64_t)llrintl(whole) + (frac > 0.5L);
        *e17 = 16 - k;
        if (d == UINT64_C(100000000000000000)) { /* rounded up to the next decade */
            d /= 10;
            ++*e17;
        }
        for (int i = 16; i >= 0; i--, d /= 10)
            d17[i] = (char)('0' + d % 10);
        d17[17] = '\0';
        return;
    }
#endif
    char s17[32];
    snprintf(s17, sizeof s17, "%.16e", a); /* d.dddddddddddddddde±XX */
    d17[0] = s17[0];
    memcpy(d17 + 1, s17 + 2, 16);
    d17[17] = '\0';
    *e17 = atoi(s17 + 19);
}

/* Whether digits (p of them, exponent exp of d.ddd) read back as a, which is not a power of two
 * (whose interval is lopsided): strtod's answer, mostly without strtod. The decimal D = d x 10^k is within
 * a's read-back interval, a +- half an ulp, or not. In a long double (64-bit significand) d is
 * exact, so are 10^|k| up to 10^27 and both bounds (54 bits), and D comes out of one rounding,
 * within 2^-64 D: so D is inside or outside for certain when it lies further than 2^-62 D from
 * either bound. Nearer (a tie, or within rounding) or out of that range, strtod decides. */
static bool reads_back_as(double a, const char *digits, int p, int exp)
{
#if LDBL_MANT_DIG >= 64
    int k = exp - p + 1, e2;
    if (k >= -MAX_POW10 && k <= MAX_POW10 && a >= DBL_MIN) {
        uint64_t d = 0;
        for (int i = 0; i < p; i++)
            d = d * 10 + (uint64_t)(digits[i] - '0');
        long double x = k >= 0 ? (long double)d * pow10[k] : (long double)d / pow10[-k];
        frexp(a, &e2);
        long double half = ldexpl(1.0L, e2 - 54), margin = x * 0x1p-62L;
        long double lo = (long double)a - half, hi = (long double)a + half;
        if (x > lo + margin && x < hi - margin)
            return true;
        if (x < lo - margin || x > hi + margin)
            return false;
    }
#endif
    return read_back(digits, p, exp) == a;
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
    if (!lopsided)
        return reads_back_as(a, out, p, *exp);
    double back = read_back(out, p, *exp);
    if (back == a)
        return true;
    *exp = step(out, p, *exp, back < a);
    return read_back(out, p, *exp) == a;
}

/* The digits of a when a is m / 10^k read back, for an integer m < 10^15 and k <= 6: times of
 * microsecond traces in seconds, byte counts, means of a few of them - most numbers a report
 * prints. Two decimals of at most 15 significant digits lie further apart (10^-15 a at least) than
 * a's read-back interval is wide (2^-52 a at most), so such a decimal is the only one of its length
 * or shorter that reads back: the answer, found without printf or strtod. (m / 10^6 computed in
 * doubles is the double nearest to the decimal, as strtod's is.) 0 when a is no such decimal. */
static int short_decimal(double a, char digits[18], int *decpt)
{
    double r = nearbyint(a * 1e6);
    if (!(r < 1e15) || r / 1e6 != a)
        return 0;
    uint64_t m = (uint64_t)r; /* a > 0: m >= 1 */
    int zeros = 0, n = 0;
    for (; m % 10 == 0; zeros++)
        m /= 10;
    char rev[16];
    do
        rev[n++] = (char)('0' + m % 10);
    while (m /= 10);
    for (int i = 0; i < n; i++)
        digits[i] = rev[n - 1 - i];
    digits[n] = '\0';
    *decpt = n + zeros - 6; /* a = 0.digits x 10^(n + zeros - 6) */
    return n;
}

int dfs_shortest_digits(double a, char digits[18], int *decpt)
{
    int n = short_decimal(a, digits, decpt);
    if (n)
        return n;
    char d17[18], cand[18];
    int e17;
    digits17(a, d17, &e17);
    memcpy(digits, d17, sizeof d17);
    /* hi digits read back (17 always do) and digits holds them; fewer than lo do not */
    int exp = e17, lo = 1, hi = 17, e2;
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

/* How the digits are laid out: Python's repr, printf's %g, or JavaScript's number to string
 * (the shortest JSON). Python stays plain up to 16 digits before the point and ends an integer in
 * ".0" ("5.0"); %g turns to exponent form past its precision (here the digit count) and writes
 * "5"; both use exponent form below 1e-4, with a sign and at least two exponent digits. JSON stays
 * plain from 1e-6 to 1e21 and writes exponents bare ("1e-7", "1e+21" as "1e21"). */
typedef enum style { PYTHON, PRINTF_G, JSON } style;

static bool exponent_form(style s, int decpt, int n)
{
    switch (s) {
    case PYTHON: return decpt <= -4 || decpt > 16;
    case PRINTF_G: return decpt <= -4 || decpt > n;
    case JSON: return decpt <= -6 || decpt > 21;
    }
    return false;
}

/* v's shortest digits laid out in style s, into buf. Zero has the digit "0" and decpt 1: "0.0",
 * "0" and "0". */
static size_t layout(double v, char *buf, style s)
{
    char *p = buf, d[18] = "0";
    if (signbit(v))
        *p++ = '-';
    int decpt = 1, n = v == 0 ? 1 : dfs_shortest_digits(fabs(v), d, &decpt);
    if (exponent_form(s, decpt, n)) { /* d[.ddd]e+XX */
        *p++ = d[0];
        if (n > 1) {
            *p++ = '.';
            memcpy(p, d + 1, (size_t)n - 1);
            p += n - 1;
        }
        p = put_exp(p, decpt - 1, s != JSON);
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
        if (s == PYTHON) {
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
    return layout(v, buf, PYTHON);
}

size_t dfs_py_repr(double v, char *buf)
{
    const char *odd = isnan(v) ? "nan" : isinf(v) ? (v < 0 ? "-inf" : "inf") : NULL;
    if (!odd)
        return layout(v, buf, PYTHON);
    strcpy(buf, odd);
    return strlen(odd);
}

size_t dfs_shortest_g_finite(double v, char *buf)
{
    return layout(v, buf, PRINTF_G);
}

size_t dfs_shortest_json_finite(double v, char *buf)
{
    return layout(v, buf, JSON);
}
