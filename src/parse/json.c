/* json.c - tolerant JSON primitives (see json.h). */
#include "parse/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

/* ---- strings ------------------------------------------------------------------------------- */

/* Bit i set when s[i] is a quote, a backslash, a control byte or a non-ASCII byte: the bytes a
 * string scan must look at. The signed compare catches both < 0x20 and >= 0x80. */
#ifdef __SSE2__
static inline unsigned string_stops16(const char *s)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i q = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i b = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    __m128i c = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, b), c));
}
#endif

static inline bool is_string_stop(unsigned char c)
{
    return c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
}

/* The next byte at or after s that a string scan must look at, or end. */
static inline const char *next_string_stop(const char *s, const char *end)
{
#ifdef __SSE2__
    while (end - s >= 16) {
        unsigned m = string_stops16(s);
        if (m)
            return s + __builtin_ctz(m);
        s += 16;
    }
#endif
    while (s < end && !is_string_stop((unsigned char)*s))
        s++;
    return s;
}

/* The quote bits and the bits of bytes that a plain string may not hold, of 16 bytes. */
static inline void quote_block16(const char *s, unsigned *quotes, unsigned *bad)
{
#ifdef __SSE2__
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i b = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    __m128i c = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
    *quotes = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
    *bad = (unsigned)_mm_movemask_epi8(_mm_or_si128(b, c));
#else
    unsigned q = 0, x = 0;
    for (unsigned i = 0; i < 16; i++) {
        unsigned char ch = (unsigned char)s[i];
        q |= (unsigned)(ch == '"') << i;
        x |= (unsigned)(ch == '\\' || ch < 0x20 || ch >= 0x80) << i;
    }
    *quotes = q;
    *bad = x;
#endif
}

/* Whole 64-byte groups of four blocks: the loads are independent, so the scan runs at the
 * machine's throughput rather than at the latency of one string scan after another, and a
 * record's length rarely changes the number of rounds (no mispredicted loop exit per block). */
static int quote_index_base(const char *s, size_t n, uint16_t *pos)
{
    size_t count = 0;
    uint64_t bad = 0;
    for (size_t base = 0; base < n; base += 64) {
        uint64_t quotes = 0, stops = 0;
        for (unsigned k = 0; k < 64; k += 16) {
            unsigned q, b;
            quote_block16(s + base + k, &q, &b);
            quotes |= (uint64_t)q << k;
            stops |= (uint64_t)b << k;
        }
        uint64_t keep = n - base >= 64 ? UINT64_MAX : (UINT64_C(1) << (n - base)) - 1;
        bad |= stops & keep;
        for (quotes &= keep; quotes; quotes &= quotes - 1)
            pos[count++] = (uint16_t)(base + (size_t)__builtin_ctzll(quotes));
    }
    return bad ? -1 : (int)count;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define QUOTE_INDEX_AVX2 1
/* The same with 32-byte blocks, and BMI's one-instruction lowest-bit clear, which makes the
 * listing loop's chain of dependent steps half as long. Chosen at run time. */
__attribute__((target("avx2,bmi"))) static int quote_index_avx2(const char *s, size_t n,
                                                                 uint16_t *pos)
{
    size_t count = 0;
    uint64_t bad = 0;
    const __m256i quote = _mm256_set1_epi8('"'), bslash = _mm256_set1_epi8('\\');
    const __m256i space = _mm256_set1_epi8(0x20);
    for (size_t base = 0; base < n; base += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + base));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + base + 32));
        uint64_t quotes = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, quote)) |
                          (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, quote))
                              << 32;
        /* signed compare: below 0x20 or at least 0x80 */
        __m256i sa = _mm256_or_si256(_mm256_cmpeq_epi8(a, bslash), _mm256_cmpgt_epi8(space, a));
        __m256i sb = _mm256_or_si256(_mm256_cmpeq_epi8(b, bslash), _mm256_cmpgt_epi8(space, b));
        uint64_t stops = (uint32_t)_mm256_movemask_epi8(sa) |
                         (uint64_t)(uint32_t)_mm256_movemask_epi8(sb) << 32;
        uint64_t keep = n - base >= 64 ? UINT64_MAX : (UINT64_C(1) << (n - base)) - 1;
        bad |= stops & keep;
        for (quotes &= keep; quotes; quotes &= quotes - 1)
            pos[count++] = (uint16_t)(base + (size_t)__builtin_ctzll(quotes));
    }
    return bad ? -1 : (int)count;
}
#endif

#ifdef QUOTE_INDEX_AVX2
/* With AVX-512 the positions are listed without a loop per quote: the lane numbers of each
 * 32-byte half are compressed by its quote bits and stored whole (up to 32 entries past the
 * count are written). */
__attribute__((target("avx512f,avx512bw,avx512vbmi2,popcnt"))) static int
quote_index_avx512(const char *s, size_t n, uint16_t *pos)
{
    size_t count = 0;
    uint64_t bad = 0;
    const __m512i quote = _mm512_set1_epi8('"'), bslash = _mm512_set1_epi8('\\');
    const __m512i space = _mm512_set1_epi8(0x20);
    const __m512i lanes = _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19,
                                           18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4,
                                           3, 2, 1, 0);
    for (size_t base = 0; base < n; base += 64) {
        __m512i v = _mm512_loadu_si512((const void *)(s + base));
        uint64_t keep = n - base >= 64 ? UINT64_MAX : (UINT64_C(1) << (n - base)) - 1;
        uint64_t quotes = _mm512_cmpeq_epi8_mask(v, quote) & keep;
        bad |= (_mm512_cmpeq_epi8_mask(v, bslash) | _mm512_cmplt_epi8_mask(v, space)) & keep;
        __m512i at = _mm512_add_epi16(lanes, _mm512_set1_epi16((short)base));
        _mm512_storeu_si512((void *)(pos + count),
                            _mm512_maskz_compress_epi16((__mmask32)quotes, at));
        count += (size_t)__builtin_popcount((unsigned)quotes);
        at = _mm512_add_epi16(at, _mm512_set1_epi16(32));
        _mm512_storeu_si512((void *)(pos + count),
                            _mm512_maskz_compress_epi16((__mmask32)(quotes >> 32), at));
        count += (size_t)__builtin_popcount((unsigned)(quotes >> 32));
    }
    return bad ? -1 : (int)count;
}
#endif

int dfs_json_quote_index_at(unsigned level, const char *s, size_t n, uint16_t *pos)
{
    if (n > DFS_JSON_QIDX_MAX)
        return -1;
#ifdef QUOTE_INDEX_AVX2
    if (level >= 2 && __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("avx512bw"))
        return quote_index_avx512(s, n, pos);
    if (level >= 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi"))
        return quote_index_avx2(s, n, pos);
#else
    (void)level;
#endif
    return quote_index_base(s, n, pos);
}

int dfs_json_quote_index(const char *s, size_t n, uint16_t *pos)
{
    return dfs_json_quote_index_at(2, s, n, pos);
}

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

static bool hex4(const char *s, const char *end, unsigned *out)
{
    if (end - s < 4)
        return false;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval((unsigned char)s[i]);
        if (h < 0)
            return false;
        v = v << 4 | (unsigned)h;
    }
    *out = v;
    return true;
}

/* Length of the valid UTF-8 sequence starting at s (lead byte >= 0x80), or 0 when invalid. */
static size_t utf8_sequence(const unsigned char *s, const unsigned char *end)
{
    unsigned c = s[0];
    size_t n;
    unsigned min;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if ((size_t)(end - s) < n)
        return 0;
    unsigned cp = c & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* In lenient mode a quote closes the string only when what follows looks like JSON structure. */
static bool quote_closes(const char *q, const char *end)
{
    const char *t = dfs_json_ws(q + 1, end);
    return t == end || *t == ',' || *t == '}' || *t == ']' || *t == ':';
}

/* Handles the escape at s (s[0] == '\\'); returns the position after it or NULL when invalid. */
static const char *escape_end(const char *s, const char *end)
{
    if (end - s < 2)
        return NULL;
    switch (s[1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        return s + 2;
    case 'u': {
        unsigned v;
        return hex4(s + 2, end, &v) ? s + 6 : NULL;
    }
    default:
        return NULL;
    }
}

const char *dfs_json_string_end(const char *s, const char *end, bool lenient, unsigned *flags)
{
    s++;
    for (;;) {
        s = next_string_stop(s, end);
        if (s >= end)
            return NULL;
        unsigned char c = (unsigned char)*s;
        if (c == '"') {
            if (!lenient || quote_closes(s, end))
                return s + 1;
            *flags |= DFS_JF_REPAIRED;
            s++;
        } else if (c == '\\') {
            const char *e = escape_end(s, end);
            if (e) {
                *flags |= DFS_JF_ESCAPES;
                s = e;
            } else if (lenient) {
                /* A raw backslash (a Windows path, a regex): keep it as a byte. */
                *flags |= DFS_JF_REPAIRED | DFS_JF_ESCAPES;
                s++;
            } else {
                return NULL;
            }
        } else if (c < 0x20) {
            *flags |= DFS_JF_CONTROL;
            s++;
        } else {
            size_t n = utf8_sequence((const unsigned char *)s, (const unsigned char *)end);
            if (n == 0) {
                *flags |= DFS_JF_BAD_UTF8;
                n = 1;
            }
            s += n;
        }
    }
}

static size_t put_utf8(char *out, unsigned cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Decodes \uXXXX (and a following low surrogate) at s; *used = bytes consumed, 0 if invalid. */
static unsigned decode_u_escape(const char *s, const char *end, size_t *used)
{
    unsigned hi;
    *used = 0;
    if (!hex4(s + 2, end, &hi))
        return 0;
    *used = 6;
    if (hi < 0xD800 || hi > 0xDFFF)
        return hi;
    unsigned lo;
    if (hi <= 0xDBFF && end - s >= 12 && s[6] == '\\' && s[7] == 'u' && hex4(s + 8, end, &lo) &&
        lo >= 0xDC00 && lo <= 0xDFFF) {
        *used = 12;
        return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
    }
    return 0xFFFD; /* a lone surrogate */
}

size_t dfs_json_unescape(const char *body, size_t n, char *out)
{
    const char *s = body, *end = body + n;
    size_t o = 0;
    while (s < end) {
        const char *bs = memchr(s, '\\', (size_t)(end - s));
        if (!bs)
            bs = end;
        memcpy(out + o, s, (size_t)(bs - s));
        o += (size_t)(bs - s);
        s = bs;
        if (s >= end)
            break;
        char c = s + 1 < end ? s[1] : 0;
        const char *simple = strchr("\"\\/bfnrt", c);
        if (c && simple) {
            static const char decoded[] = "\"\\/\b\f\n\r\t";
            out[o++] = decoded[simple - "\"\\/bfnrt"];
            s += 2;
            continue;
        }
        size_t used = 0;
        unsigned cp = c == 'u' ? decode_u_escape(s, end, &used) : 0;
        if (used) {
            o += put_utf8(out + o, cp);
            s += used;
        } else {
            out[o++] = '\\'; /* invalid escape: keep the backslash as a byte */
            s++;
        }
    }
    return o;
}

bool dfs_json_scratch(dfs_pctx *p, size_t n)
{
    if (n <= p->scratch_cap)
        return true;
    size_t cap = p->scratch_cap ? p->scratch_cap : 4096;
    while (cap < n)
        cap *= 2;
    char *s = realloc(p->scratch, cap);
    if (!s) {
        p->nomem = true;
        return false;
    }
    p->scratch = s;
    p->scratch_cap = cap;
    return true;
}

dfs_str dfs_json_intern(dfs_pctx *p, const char *body, size_t n, unsigned sflags)
{
    if ((sflags & DFS_JF_ESCAPES) && dfs_json_scratch(p, n)) {
        n = dfs_json_unescape(body, n, p->scratch);
        body = p->scratch;
    }
    return dfs_strcache_intern(p->strs, body, n);
}

/* ---- numbers ------------------------------------------------------------------------------- */

static inline bool is_digit(unsigned char c) { return (unsigned)(c - '0') < 10; }

static const char *digits_end(const char *s, const char *end)
{
    while (s < end && is_digit((unsigned char)*s))
        s++;
    return s;
}

static bool literal_at(const char *s, const char *end, const char *lit, size_t n)
{
    return (size_t)(end - s) >= n && memcmp(s, lit, n) == 0;
}

/* The number ends at a byte that cannot continue a token. */
static bool token_boundary(const char *s, const char *end)
{
    if (s >= end)
        return true;
    unsigned char c = (unsigned char)*s;
    return !(is_digit(c) || c == '.' || c == '+' || c == '-' ||
             ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'));
}

static const char *nonfinite_token(const char *s, const char *end, dfs_jnum *out)
{
    const char *t = s;
    bool neg = false;
    if (t < end && (*t == '-' || *t == '+')) {
        neg = *t == '-';
        t++;
    }
    size_t n = 0;
    if (literal_at(t, end, "Infinity", 8))
        n = 8;
    else if (t == s && literal_at(t, end, "NaN", 3))
        n = 3;
    if (!n || !token_boundary(t + n, end))
        return NULL;
    *out = (dfs_jnum){.text = s, .len = (size_t)(t + n - s), .neg = neg, .nonfinite = true};
    return t + n;
}

const char *dfs_json_number(const char *s, const char *end, dfs_jnum *out)
{
    const char *t = s;
    bool neg = false;
    if (t < end && (*t == '-' || *t == '+')) {
        neg = *t == '-';
        t++;
    }
    if (t < end && (*t == 'I' || *t == 'N'))
        return nonfinite_token(s, end, out);
    const char *d = t;
    uint64_t mag = 0;
    bool overflow = false;
    for (; t < end && is_digit((unsigned char)*t); t++) {
        unsigned dig = (unsigned)(*t - '0');
        if (mag > (UINT64_MAX - dig) / 10)
            overflow = true;
        else
            mag = mag * 10 + dig;
    }
    bool have_int = t > d, is_int = true;
    if (t < end && *t == '.') {
        const char *f = digits_end(t + 1, end);
        if (f == t + 1 && !have_int)
            return NULL;
        t = f;
        is_int = false;
    } else if (!have_int) {
        return NULL;
    }
    if (t < end && (*t == 'e' || *t == 'E')) {
        const char *x = t + 1;
        if (x < end && (*x == '+' || *x == '-'))
            x++;
        const char *xe = digits_end(x, end);
        if (xe == x)
            return NULL;
        t = xe;
        is_int = false;
    }
    if (!token_boundary(t, end))
        return NULL;
    *out = (dfs_jnum){.text = s, .len = (size_t)(t - s), .mag = overflow ? UINT64_MAX : mag,
                      .neg = neg, .is_int = is_int, .overflow = overflow};
    return t;
}

static const double exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The exponent digits of a validated token, capped far beyond any double range. */
static long read_exponent(const char *s, const char *end)
{
    bool neg = false;
    if (s < end && (*s == '-' || *s == '+'))
        neg = *s++ == '-';
    long x = 0;
    for (; s < end && is_digit((unsigned char)*s); s++)
        if (x < 100000)
            x = x * 10 + (*s - '0');
    return neg ? -x : x;
}

/* Exact when the significand fits 2^53 and the power of ten is exact (Clinger's fast path);
 * otherwise strtod on a NUL-terminated copy (the C locale is assumed). */
double dfs_jnum_double(const dfs_jnum *n)
{
    if (n->nonfinite)
        return n->len == 3 ? NAN : (n->neg ? -INFINITY : INFINITY);
    if (n->is_int && !n->overflow && n->mag <= (UINT64_C(1) << 53))
        return n->neg ? -(double)n->mag : (double)n->mag;
    uint64_t mant = 0;
    int digits = 0, exp10 = 0;
    const char *s = n->text, *end = n->text + n->len;
    if (s < end && (*s == '-' || *s == '+'))
        s++;
    bool frac = false, simple = true;
    for (; s < end && *s != 'e' && *s != 'E'; s++) {
        if (*s == '.') {
            frac = true;
            continue;
        }
        if (digits || *s != '0') {
            if (++digits > 15)
                simple = false;
            mant = mant * 10 + (uint64_t)(*s - '0');
        }
        if (frac)
            exp10--;
    }
    if (s < end) {
        long x = read_exponent(s + 1, end);
        if (x > 300 || x < -300)
            simple = false;
        else
            exp10 += (int)x;
    }
    if (simple && exp10 >= -22 && exp10 <= 22) {
        double v = exp10 >= 0 ? (double)mant * exact_pow10[exp10] : (double)mant / exact_pow10[-exp10];
        return n->neg ? -v : v;
    }
    char small[128];
    char *buf = n->len < sizeof small ? small : malloc(n->len + 1);
    if (!buf)
        return NAN;
    memcpy(buf, n->text, n->len);
    buf[n->len] = '\0';
    double v = strtod(buf[0] == '+' ? buf + 1 : buf, NULL);
    if (buf != small)
        free(buf);
    return v;
}

void dfs_jnum_value(const dfs_jnum *n, dfs_value *out, unsigned *flags)
{
    *out = (dfs_value){0};
    if (!n->is_int || n->nonfinite) {
        if (n->nonfinite)
            *flags |= DFS_JF_NONFINITE;
        out->type = DFS_V_FLOAT;
        out->as.f = dfs_jnum_double(n);
        return;
    }
    if (n->neg) {
        out->type = DFS_V_INT;
        if (n->overflow || n->mag > (uint64_t)INT64_MAX + 1) {
            out->as.i = INT64_MIN;
            out->flags = DFS_VF_SATURATED;
            *flags |= DFS_JF_INT_OVERFLOW;
        } else {
            out->as.i = n->mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)n->mag;
        }
        return;
    }
    if (n->overflow) {
        out->flags = DFS_VF_SATURATED;
        *flags |= DFS_JF_INT_OVERFLOW;
    }
    if (n->mag > (uint64_t)INT64_MAX) {
        out->type = DFS_V_UINT;
        out->as.u = n->mag;
    } else {
        out->type = DFS_V_INT;
        out->as.i = (int64_t)n->mag;
    }
}

bool dfs_json_is_number_text(const char *s, size_t n)
{
    dfs_jnum num;
    const char *e = dfs_json_number(s, s + n, &num);
    return e == s + n && n > 0 && !num.nonfinite;
}

bool dfs_json_string_number(const char *s, size_t n, dfs_value *out, unsigned *flags)
{
    dfs_jnum num;
    if (n == 0 || dfs_json_number(s, s + n, &num) != s + n || num.nonfinite)
        return false;
    dfs_jnum_value(&num, out, flags);
    out->flags |= DFS_VF_FROM_STRING;
    return true;
}

/* High bit of each byte of x (all bytes < 0x80) set where the byte lies in [lo, hi]. */
static inline uint64_t bytes_in_range(uint64_t x, unsigned lo, unsigned hi)
{
    const uint64_t ones = UINT64_C(0x0101010101010101);
    uint64_t at_least_lo = x + ones * (0x80 - lo);
    uint64_t above_hi = x + ones * (0x7F - hi);
    return at_least_lo & ~above_hi & (ones * 0x80);
}

/* Eight hex digits in a row (first digit most significant) to their value, without a branch
 * per digit; false if any byte is not a hex digit. v2 hashes are 16 digits on every event. */
static inline bool hex8(const char *s, uint32_t *out)
{
    const uint64_t ones = UINT64_C(0x0101010101010101);
    uint64_t x;
    memcpy(&x, s, 8);
    if (x & (ones * 0x80))
        return false;
    uint64_t ok = bytes_in_range(x, '0', '9') | bytes_in_range(x, 'a', 'f') | bytes_in_range(x, 'A', 'F');
    if (ok != ones * 0x80)
        return false;
    uint64_t v = (x & (ones * 0x0F)) + ((x >> 6) & ones) * 9; /* letters have bit 6 set */
    v = __builtin_bswap64(v); /* first digit in the top byte */
    v = (v | (v >> 4)) & UINT64_C(0x00FF00FF00FF00FF);
    v = (v | (v >> 8)) & UINT64_C(0x0000FFFF0000FFFF);
    v = (v | (v >> 16)) & UINT64_C(0x00000000FFFFFFFF);
    *out = (uint32_t)v;
    return true;
}

bool dfs_json_hex_u64(const char *s, size_t n, uint64_t *out)
{
    uint32_t hi, lo;
    if (n == 16 && hex8(s, &hi) && hex8(s + 8, &lo)) {
        *out = (uint64_t)hi << 32 | lo;
        return true;
    }
    if (n > 2 && s[0] == '0' && (s[1] | 0x20) == 'x') {
        s += 2;
        n -= 2;
    }
    if (n == 0 || n > 16)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int h = hexval((unsigned char)s[i]);
        if (h < 0)
            return false;
        v = v << 4 | (uint64_t)h;
    }
    *out = v;
    return true;
}

/* ---- exact decimal time -------------------------------------------------------------------- */

#define SIG_KEPT 21 /* significant digits kept: 19 for the value, one for rounding, one spare */

typedef struct decimal {
    bool neg;
    unsigned char sig[SIG_KEPT]; /* first significant digits */
    size_t nsig;                 /* significant digits in total (may exceed SIG_KEPT) */
    long exp10;                  /* value = 0.d1d2d3... is not used: value = D * 10^exp10 */
} decimal;

static void add_digit(decimal *d, unsigned char c, bool fraction)
{
    if (d->nsig == 0 && c == '0') {
        if (fraction)
            d->exp10--;
        return;
    }
    if (d->nsig < SIG_KEPT)
        d->sig[d->nsig] = (unsigned char)(c - '0');
    d->nsig++;
    if (fraction)
        d->exp10--;
}

/* Reads [s, end) as sign, digits, fraction and exponent; false when it is not a decimal. */
static bool read_decimal(const char *s, const char *end, decimal *d)
{
    memset(d, 0, sizeof *d);
    if (s < end && (*s == '-' || *s == '+'))
        d->neg = *s++ == '-';
    size_t ndig = 0;
    for (; s < end && is_digit((unsigned char)*s); s++, ndig++)
        add_digit(d, (unsigned char)*s, false);
    if (s < end && *s == '.')
        for (s++; s < end && is_digit((unsigned char)*s); s++, ndig++)
            add_digit(d, (unsigned char)*s, true);
    if (ndig == 0)
        return false;
    if (s < end && (*s == 'e' || *s == 'E')) {
        s++;
        bool xneg = false;
        if (s < end && (*s == '-' || *s == '+'))
            xneg = *s++ == '-';
        if (s >= end || !is_digit((unsigned char)*s))
            return false;
        long x = read_exponent(s, end);
        s = digits_end(s, end);
        d->exp10 += xneg ? -x : x;
    }
    /* Digits beyond the kept ones only shift the scale. */
    if (d->nsig > SIG_KEPT)
        d->exp10 += (long)(d->nsig - SIG_KEPT);
    return s == end;
}

/* value = D * 10^exp10 where D is the kept significant digits. */
static dfs_time_status decimal_to_int(const decimal *d, long scale, int64_t *out)
{
    size_t nd = d->nsig < SIG_KEPT ? d->nsig : SIG_KEPT;
    long k = d->exp10 + scale;
    uint64_t limit = d->neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    if (nd == 0) {
        *out = 0;
        return DFS_TIME_OK;
    }
    if (k >= 0) {
        if ((long)nd + k > 19)
            return DFS_TIME_OVERFLOW;
        for (size_t i = 0; i < nd; i++)
            v = v * 10 + d->sig[i];
        for (long i = 0; i < k; i++)
            v *= 10;
    } else {
        /* Keep nd + k digits and round on the first dropped one. The digits dropped because
         * there were more than SIG_KEPT lie after the rounding digit, so they never matter. */
        long keep = (long)nd + k;
        if (keep > 19)
            return DFS_TIME_OVERFLOW;
        if (keep < 0) {
            *out = 0;
            return DFS_TIME_OK;
        }
        for (long i = 0; i < keep; i++)
            v = v * 10 + d->sig[i];
        if (d->sig[keep] >= 5)
            v++;
    }
    if (v > limit)
        return DFS_TIME_OVERFLOW;
    *out = d->neg ? (int64_t)(0 - v) : (int64_t)v;
    return DFS_TIME_OK;
}

static const uint64_t pow10_u64[10] = {1,      10,      100,      1000,      10000,
                                       100000, 1000000, 10000000, 100000000, 1000000000};

dfs_time_status dfs_json_time_ns(const char *text, size_t n, unsigned scale_pow10, int64_t *out)
{
    /* The common case: a plain integer of at most 18 digits. */
    if (n > 0 && n <= 18 && scale_pow10 <= 9) {
        uint64_t v = 0;
        size_t i = 0;
        for (; i < n && is_digit((unsigned char)text[i]); i++)
            v = v * 10 + (uint64_t)(text[i] - '0');
        if (i == n) {
            uint64_t r;
            if (__builtin_mul_overflow(v, pow10_u64[scale_pow10], &r) || r > (uint64_t)INT64_MAX)
                return DFS_TIME_OVERFLOW;
            *out = (int64_t)r;
            return DFS_TIME_OK;
        }
    }
    decimal d;
    if (!read_decimal(text, text + n, &d))
        return DFS_TIME_INVALID;
    return decimal_to_int(&d, (long)scale_pow10, out);
}

/* ---- skipping values ----------------------------------------------------------------------- */

static const char *skip_scalar(const char *s, const char *end)
{
    unsigned char c = (unsigned char)*s;
    if (c == 't')
        return literal_at(s, end, "true", 4) && token_boundary(s + 4, end) ? s + 4 : NULL;
    if (c == 'f')
        return literal_at(s, end, "false", 5) && token_boundary(s + 5, end) ? s + 5 : NULL;
    if (c == 'n')
        return literal_at(s, end, "null", 4) && token_boundary(s + 4, end) ? s + 4 : NULL;
    dfs_jnum num;
    return dfs_json_number(s, end, &num);
}

/* The next quote or bracket at or after s, or end. */
static inline const char *next_bracket_or_quote(const char *s, const char *end)
{
#ifdef __SSE2__
    while (end - s >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
        /* '{' '[' and '}' ']' differ only in bit 5: fold them together. */
        __m128i f = _mm_or_si128(v, _mm_set1_epi8(0x20));
        __m128i m = _mm_or_si128(_mm_cmpeq_epi8(f, _mm_set1_epi8('{')),
                                 _mm_cmpeq_epi8(f, _mm_set1_epi8('}')));
        m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
        unsigned bits = (unsigned)_mm_movemask_epi8(m);
        if (bits)
            return s + __builtin_ctz(bits);
        s += 16;
    }
#endif
    while (s < end && *s != '"' && (*s | 0x20) != '{' && (*s | 0x20) != '}')
        s++;
    return s;
}

/* Skips a container without recursion: strings are scanned, brackets counted. */
static const char *skip_container(const char *s, const char *end, bool lenient, unsigned *flags)
{
    size_t depth = 0;
    while ((s = next_bracket_or_quote(s, end)) < end) {
        char c = (char)(*s | 0x20);
        if (*s == '"') {
            s = dfs_json_string_end(s, end, lenient, flags);
            if (!s)
                return NULL;
            continue;
        }
        if (c == '{')
            depth++;
        else if (--depth == 0)
            return s + 1;
        s++;
    }
    return NULL;
}

const char *dfs_json_skip(const char *s, const char *end, bool lenient, unsigned *flags)
{
    if (s >= end)
        return NULL;
    if (*s == '"')
        return dfs_json_string_end(s, end, lenient, flags);
    if (*s == '{' || *s == '[')
        return skip_container(s, end, lenient, flags);
    return skip_scalar(s, end);
}

/* ---- generic values ------------------------------------------------------------------------ */

bool dfs_json_argtmp(dfs_pctx *p, size_t n)
{
    if (n <= p->argtmp_cap)
        return true;
    size_t cap = p->argtmp_cap ? p->argtmp_cap : 64;
    while (cap < n)
        cap *= 2;
    dfs_arg *a = realloc(p->argtmp, cap * sizeof *a);
    if (!a) {
        p->nomem = true;
        return false;
    }
    p->argtmp = a;
    p->argtmp_cap = cap;
    return true;
}

typedef struct vparse {
    dfs_pctx *p;
    const char *end;
    unsigned opts;
    unsigned *flags;
    size_t sp;  /* top of the item stack in p->argtmp */
    int depth;
} vparse;

static const char *parse_value(vparse *v, const char *s, dfs_value *out);

static const char *parse_string_value(vparse *v, const char *s, dfs_value *out)
{
    unsigned sf = 0;
    const char *e = dfs_json_string_end(s, v->end, v->opts & DFS_JV_LENIENT, &sf);
    if (!e)
        return NULL;
    *v->flags |= sf & ~DFS_JF_ESCAPES;
    const char *body = s + 1;
    size_t n = (size_t)(e - 1 - body);
    if ((v->opts & DFS_JV_NUMSTR) && !(sf & DFS_JF_ESCAPES) &&
        dfs_json_string_number(body, n, out, v->flags))
        return e;
    *out = (dfs_value){.type = DFS_V_STR};
    out->as.s = dfs_json_intern(v->p, body, n, sf);
    return e;
}

/* A container nested deeper than DFS_JV_MAX_DEPTH: kept as its raw text. */
static const char *raw_value(vparse *v, const char *s, dfs_value *out)
{
    const char *e = dfs_json_skip(s, v->end, v->opts & DFS_JV_LENIENT, v->flags);
    if (!e)
        return NULL;
    *out = (dfs_value){.type = DFS_V_STR};
    out->as.s = dfs_strcache_intern(v->p->strs, s, (size_t)(e - s));
    return e;
}

static const char *parse_item_key(vparse *v, const char *s, dfs_str *key)
{
    if (s >= v->end || *s != '"')
        return NULL;
    unsigned sf = 0;
    const char *e = dfs_json_string_end(s, v->end, v->opts & DFS_JV_LENIENT, &sf);
    if (!e)
        return NULL;
    *v->flags |= sf & ~DFS_JF_ESCAPES;
    *key = dfs_json_intern(v->p, s + 1, (size_t)(e - 1 - (s + 1)), sf);
    e = dfs_json_ws(e, v->end);
    if (e >= v->end || *e != ':')
        return NULL;
    return dfs_json_ws(e + 1, v->end);
}

/* Items are pushed on the p->argtmp stack and copied to the pool when the container closes. */
static const char *parse_container(vparse *v, const char *s, dfs_value *out)
{
    bool is_map = *s == '{';
    char close = is_map ? '}' : ']';
    size_t base = v->sp;
    unsigned opts = v->opts;
    v->opts &= ~DFS_JV_NUMSTR;
    v->depth++;
    s = dfs_json_ws(s + 1, v->end);
    while (s && s < v->end && *s != close) {
        dfs_arg item = {0};
        if (is_map)
            s = parse_item_key(v, s, &item.key);
        if (s)
            s = parse_value(v, s, &item.val);
        if (!s || !dfs_json_argtmp(v->p, v->sp + 1)) {
            s = NULL;
            break;
        }
        v->p->argtmp[v->sp++] = item;
        s = dfs_json_ws(s, v->end);
        if (s < v->end && *s == ',')
            s = dfs_json_ws(s + 1, v->end); /* a trailing comma before the close is tolerated */
        else if (s < v->end && *s != close)
            s = NULL;
    }
    v->depth--;
    v->opts = opts;
    size_t n = v->sp - base;
    v->sp = base;
    if (!s || s >= v->end)
        return NULL;
    dfs_arg *items = NULL;
    if (n) {
        items = dfs_arena_alloc(&v->p->batch->pool, n * sizeof *items);
        if (!items)
            return NULL;
        memcpy(items, v->p->argtmp + base, n * sizeof *items);
    }
    *out = (dfs_value){.type = is_map ? DFS_V_MAP : DFS_V_LIST, .len = (uint32_t)n};
    out->as.items = items;
    return s + 1;
}

static const char *parse_value(vparse *v, const char *s, dfs_value *out)
{
    *out = (dfs_value){0};
    if (s >= v->end)
        return NULL;
    unsigned char c = (unsigned char)*s;
    if (c == '"')
        return parse_string_value(v, s, out);
    if (c == '{' || c == '[')
        return v->depth >= DFS_JV_MAX_DEPTH ? raw_value(v, s, out) : parse_container(v, s, out);
    if (c == 't' || c == 'f') {
        const char *e = skip_scalar(s, v->end);
        if (e) {
            out->type = DFS_V_BOOL;
            out->as.i = c == 't';
        }
        return e;
    }
    if (c == 'n') {
        const char *e = skip_scalar(s, v->end);
        if (e)
            out->type = DFS_V_NULL;
        return e;
    }
    dfs_jnum num;
    const char *e = dfs_json_number(s, v->end, &num);
    if (e)
        dfs_jnum_value(&num, out, v->flags);
    return e;
}

const char *dfs_json_value(dfs_pctx *p, const char *s, const char *end, unsigned opts,
                           size_t stack_base, dfs_value *out, unsigned *flags)
{
    vparse v = {p, end, opts, flags, stack_base, 0};
    return parse_value(&v, s, out);
}

const char *dfs_json_object_get(const char *obj, const char *end, const char *key, size_t keylen)
{
    unsigned flags = 0;
    if (obj >= end || *obj != '{')
        return NULL;
    const char *s = dfs_json_ws(obj + 1, end);
    while (s < end && *s == '"') {
        const char *ke = dfs_json_string_end(s, end, false, &flags);
        if (!ke)
            return NULL;
        bool match = (size_t)(ke - 1 - (s + 1)) == keylen && memcmp(s + 1, key, keylen) == 0;
        s = dfs_json_ws(ke, end);
        if (s >= end || *s != ':')
            return NULL;
        s = dfs_json_ws(s + 1, end);
        if (match)
            return s < end ? s : NULL;
        s = dfs_json_skip(s, end, false, &flags);
        if (!s)
            return NULL;
        s = dfs_json_ws(s, end);
        if (s < end && *s == ',')
            s = dfs_json_ws(s + 1, end);
    }
    return NULL;
}
