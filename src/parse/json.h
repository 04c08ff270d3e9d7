/* json.h - tolerant JSON primitives for the record parser and other readers.
 *
 * Everything works on a byte range [s, end) that is NOT NUL-terminated and never reads past end.
 * Damage that the readers accept (spec/formats.md sections 4 and 11) is reported through flag
 * bits the caller ORs together and turns into problem counts; nothing here touches dfs_diag.
 *
 * Times are converted from decimal text to integer nanoseconds with integer arithmetic only
 * (dfs_json_time_ns), never through double. */
#ifndef DFS_JSON_H
#define DFS_JSON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "dfscope.h"
#include "parse/pctx.h"

/* Flags reported by the scanners (OR them into a per-record accumulator). */
#define DFS_JF_ESCAPES      0x001u /* the string has backslash escapes: decode before use */
#define DFS_JF_CONTROL      0x002u /* a raw control byte (< 0x20) inside a string */
#define DFS_JF_BAD_UTF8     0x004u /* invalid UTF-8 inside a string (kept as bytes) */
#define DFS_JF_REPAIRED     0x008u /* lenient mode took a quote or backslash literally */
#define DFS_JF_NONFINITE    0x010u /* NaN, Infinity or -Infinity token */
#define DFS_JF_INT_OVERFLOW 0x020u /* an integer beyond the u64/i64 range was saturated */

static inline bool dfs_json_is_ws(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline const char *dfs_json_ws(const char *s, const char *end)
{
    while (s < end && dfs_json_is_ws((unsigned char)*s))
        s++;
    return s;
}

/* ---- strings ------------------------------------------------------------------------------- */

/* s points at an opening quote. Returns the position just after the closing quote, or NULL when
 * the string is not terminated before end or (strict mode) has an invalid escape. The body is
 * [s + 1, result - 1). Lenient mode (the retry of spec section 11): a quote is a closing quote
 * only when the next non-space byte is , } ] : or the end of the range; other quotes and invalid
 * escapes are taken literally and DFS_JF_REPAIRED is set. */
const char *dfs_json_string_end(const char *s, const char *end, bool lenient, unsigned *flags);

/* The common case of dfs_json_string_end, inlined: the closing quote lies within 16 bytes with
 * no escape, control or non-ASCII byte before it. Bytes up to `readable` (>= end) may be
 * looked at, but the string must end by `end`; anything else takes the full scan. */
static inline const char *dfs_json_string_end_fast(const char *s, const char *end,
                                                   const char *readable, bool lenient,
                                                   unsigned *flags)
{
#ifdef __SSE2__
    if (!lenient && readable - s > 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + 1));
        __m128i q = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
        __m128i b = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
        __m128i c = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, b), c));
        if (m) {
            unsigned i = (unsigned)__builtin_ctz(m);
            if (s[1 + i] == '"' && s + 2 + i <= end)
                return s + 2 + i;
        }
    }
#else
    (void)readable;
#endif
    return dfs_json_string_end(s, end, lenient, flags);
}

/* The structural index of a short record: the positions of the quotes of [s, s + n) in pos
 * (room for n + 32 entries: some versions store whole vectors), when the range holds no
 * backslash, control byte or non-ASCII byte, so that every quote opens or closes a plain string.
 * Returns the number of quotes, or -1 when such a byte is present or n > DFS_JSON_QIDX_MAX.
 * Whole 64-byte groups are loaded, up to s + n rounded up to 64, which must be readable; bytes
 * past n do not count. */
#define DFS_JSON_QIDX_MAX 1024
int dfs_json_quote_index(const char *s, size_t n, uint16_t *pos);
/* The same with the instruction set chosen at run time capped at level: 0 SSE2 (or portable C),
 * 1 AVX2, 2 AVX-512 (the default). Exposed so that the tests cover every version. */
int dfs_json_quote_index_at(unsigned level, const char *s, size_t n, uint16_t *pos);

/* Decodes the escapes of a string body into out, which must hold n bytes (decoding never grows
 * a string). \uXXXX surrogate pairs become one UTF-8 sequence; lone surrogates become U+FFFD;
 * invalid escapes are copied literally. Returns the decoded length. */
size_t dfs_json_unescape(const char *body, size_t n, char *out);

/* Interns a string body, decoding escapes first when sflags has DFS_JF_ESCAPES (through
 * p->scratch). Returns 0 for "" (and when out of memory). */
dfs_str dfs_json_intern(dfs_pctx *p, const char *body, size_t n, unsigned sflags);

/* Makes p->scratch at least n bytes; false when out of memory. */
bool dfs_json_scratch(dfs_pctx *p, size_t n);

/* ---- numbers ------------------------------------------------------------------------------- */

typedef struct dfs_jnum {
    const char *text;   /* the token */
    size_t len;
    uint64_t mag;       /* |value| of an integer token, saturated at UINT64_MAX */
    bool neg;
    bool is_int;        /* no fraction and no exponent */
    bool overflow;      /* integer magnitude beyond u64 */
    bool nonfinite;     /* NaN / Infinity / -Infinity */
} dfs_jnum;

/* Scans a number token at s (JSON grammar, tolerating a leading '+' and leading zeros, and the
 * bare tokens NaN, Infinity, -Infinity). Returns the end of the token, or NULL when s does not
 * start a number or the token is malformed. */
const char *dfs_json_number(const char *s, const char *end, dfs_jnum *out);

/* The number as a dfs_value: INT when it fits int64, UINT above INT64_MAX, saturated (flag
 * DFS_VF_SATURATED, DFS_JF_INT_OVERFLOW) beyond; FLOAT for fractions, exponents and non-finite
 * tokens (DFS_JF_NONFINITE). */
void dfs_jnum_value(const dfs_jnum *n, dfs_value *out, unsigned *flags);
double dfs_jnum_double(const dfs_jnum *n);

/* ---- fast digit runs (the hot path of DFTracer lines) ---------------------------------------- */

static inline bool dfs_is_digit(char c) { return (unsigned)(c - '0') < 10; }

static inline uint64_t dfs_load64(const char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
}

/* Are the 8 bytes of w (little-endian) all ASCII digits? */
static inline bool dfs_eight_digits(uint64_t w)
{
    return ((w & UINT64_C(0xF0F0F0F0F0F0F0F0)) |
            (((w + UINT64_C(0x0606060606060606)) & UINT64_C(0xF0F0F0F0F0F0F0F0)) >> 4)) ==
           UINT64_C(0x3333333333333333);
}

/* The value of eight ASCII digits (the first byte is the most significant): digit pairs, then
 * quads, then the whole, each step one multiply-and-shift over all lanes at once. */
static inline uint64_t dfs_eight_digits_value(uint64_t w)
{
    w = (w & UINT64_C(0x0F0F0F0F0F0F0F0F)) * 2561 >> 8;
    w = (w & UINT64_C(0x00FF00FF00FF00FF)) * 6553601 >> 16;
    return (w & UINT64_C(0x0000FFFF0000FFFF)) * UINT64_C(42949672960001) >> 32;
}

/* How many of the 16 bytes at s are leading digits (16 if all are). */
static inline unsigned dfs_digit_run16(const char *s)
{
#ifdef __SSE2__
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
    /* c - '0' < 10 as an unsigned compare: move both sides by 0x80 and compare signed. */
    __m128i d = _mm_xor_si128(_mm_sub_epi8(v, _mm_set1_epi8('0')), _mm_set1_epi8((char)0x80));
    __m128i digit = _mm_cmplt_epi8(d, _mm_set1_epi8((char)(0x80 + 10)));
    unsigned other = ~(unsigned)_mm_movemask_epi8(digit) & 0xFFFF;
    return other ? (unsigned)__builtin_ctz(other) : 16;
#else
    unsigned n = 0;
    while (n < 16 && dfs_is_digit(s[n]))
        n++;
    return n;
#endif
}

/* The value of n (1..8) digits at s when 8 bytes are readable there: the digits are moved to
 * the top of the word (the units end of the number) and the bytes after them shifted out. */
static inline uint64_t dfs_short_digits_value(const char *s, unsigned n)
{
    return dfs_eight_digits_value(dfs_load64(s) << (8 * (8 - n)));
}

/* A run of 1 to 16 digits at s followed by a non-digit, when 17 bytes are readable: its value
 * and length (0 when the run is empty or longer). */
static inline unsigned dfs_digits16(const char *s, uint64_t *v)
{
    static const uint64_t pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                      100000000};
    unsigned n = dfs_digit_run16(s);
    if (n == 0 || (n == 16 && dfs_is_digit(s[16])))
        return 0;
    *v = n <= 8 ? dfs_short_digits_value(s, n)
                : dfs_eight_digits_value(dfs_load64(s)) * pow10[n - 8] +
                      dfs_short_digits_value(s + 8, n - 8);
    return n;
}

/* A plain unsigned integer of up to 20 digits (the whole u64 range) at s, when 32 bytes are
 * readable there: its length, or 0 when it is empty, longer or beyond u64. */
static inline unsigned dfs_digits20(const char *s, uint64_t *v)
{
    static const uint64_t pow10[5] = {1, 10, 100, 1000, 10000};
    unsigned n = dfs_digits16(s, v);
    if (n || !dfs_is_digit(s[0]))
        return n;
    unsigned m = dfs_digit_run16(s + 16); /* 16 digits, and m more */
    if (m == 0 || m > 4)
        return 0;
    uint64_t x = dfs_eight_digits_value(dfs_load64(s)) * 100000000 +
                 dfs_eight_digits_value(dfs_load64(s + 8));
    if (__builtin_mul_overflow(x, pow10[m], &x) ||
        __builtin_add_overflow(x, dfs_short_digits_value(s + 16, m), &x))
        return 0;
    *v = x;
    return 16 + m;
}

/* A run of at most 19 digits at s (so the value fits u64); returns its end. */
static inline const char *dfs_json_digits(const char *s, const char *end, uint64_t *v)
{
    if (end - s > 16) {
        unsigned n = dfs_digits16(s, v);
        if (n)
            return s + n;
    }
    uint64_t x = 0;
    const char *t = s;
    while (end - t >= 8 && t - s <= 8 && dfs_eight_digits(dfs_load64(t))) {
        x = x * 100000000 + dfs_eight_digits_value(dfs_load64(t));
        t += 8;
    }
    while (t < end && dfs_is_digit(*t) && t - s < 19)
        x = x * 10 + (uint64_t)(*t++ - '0');
    *v = x;
    return t;
}

/* The whole of [s, s + n) is a number (no spaces, no other bytes). */
bool dfs_json_is_number_text(const char *s, size_t n);

/* A string body that holds a number (spec section 4, string_number): the value with
 * DFS_VF_FROM_STRING. False (out untouched) for any other string, including NaN/Infinity. */
bool dfs_json_string_number(const char *s, size_t n, dfs_value *out, unsigned *flags);

/* Parses a hexadecimal string (optionally 0x-prefixed, at most 16 digits) into a u64. */
bool dfs_json_hex_u64(const char *s, size_t n, uint64_t *out);

typedef enum dfs_time_status {
    DFS_TIME_OK = 0,
    DFS_TIME_OVERFLOW,   /* the value does not fit int64 ns */
    DFS_TIME_INVALID,    /* not a decimal number */
} dfs_time_status;

/* Exact decimal time: the number written in text (such as "1712195495519689.047" or "1.5e3")
 * times 10^scale_pow10, as an integer: scale_pow10 is 0 for ns, 3 for µs, 9 for s input.
 * Integer, fraction and exponent are combined with integer arithmetic; digits beyond the unit
 * are rounded half away from zero. */
dfs_time_status dfs_json_time_ns(const char *text, size_t n, unsigned scale_pow10, int64_t *out);

/* ---- values ---------------------------------------------------------------------------------- */

/* Skips any value at s (string and bracket aware, not building anything). Returns its end or
 * NULL on a syntax error or a value cut by end. String damage is reported in flags. */
const char *dfs_json_skip(const char *s, const char *end, bool lenient, unsigned *flags);

#define DFS_JV_LENIENT 0x1u /* lenient strings (see dfs_json_string_end) */
#define DFS_JV_NUMSTR  0x2u /* numeric strings become numbers (DFS_VF_FROM_STRING); top level only */
#define DFS_JV_MAX_DEPTH 32 /* deeper containers are kept as their raw JSON text (a string) */

/* Parses one value at s into out. List and map items are allocated from p->batch->pool; strings
 * and map keys are interned through p->strs. p->argtmp is used as a stack from index stack_base
 * up (items below it are left alone). Returns the end of the value, or NULL on a syntax error. */
const char *dfs_json_value(dfs_pctx *p, const char *s, const char *end, unsigned opts,
                           size_t stack_base, dfs_value *out, unsigned *flags);

/* Makes p->argtmp hold at least n items; false when out of memory. */
bool dfs_json_argtmp(dfs_pctx *p, size_t n);

/* In the object at obj (obj[0] == '{'), the value of the first depth-1 key equal to key, or NULL
 * when absent or when the object does not parse. */
const char *dfs_json_object_get(const char *obj, const char *end, const char *key, size_t keylen);

#endif
