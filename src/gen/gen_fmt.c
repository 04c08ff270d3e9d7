/* gen_fmt.c - record layouts of the DFTracer generations and Chrome JSON (spec/formats.md 5, 6).
 *
 * Speed matters here (the benchmark inputs are gigabytes): records are assembled with memcpy of
 * literal pieces and a two-digits-at-a-time integer writer straight into the output buffer. */
#include "gen/gen_fmt.h"

#include <string.h>

#define PUT(p, lit) ((void)memcpy((p), (lit), sizeof(lit) - 1), (p) += sizeof(lit) - 1)

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static char *put_u64(char *p, uint64_t v)
{
    char tmp[20];
    char *end = tmp + sizeof tmp, *q = end;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        memcpy(q, digit_pairs + 2 * r, 2);
    }
    if (v >= 10) {
        q -= 2;
        memcpy(q, digit_pairs + 2 * v, 2);
    } else {
        *--q = (char)('0' + v);
    }
    size_t n = (size_t)(end - q);
    memcpy(p, q, n);
    return p + n;
}

static char *put_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_u64(p, 0 - (uint64_t)v);
    }
    return put_u64(p, (uint64_t)v);
}

static char *put_hex16(char *p, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 15; i >= 0; i--) {
        p[i] = hex[v & 15];
        v >>= 4;
    }
    return p + 16;
}

static char *put_quoted(char *p, const char *s, size_t n)
{
    *p++ = '"';
    memcpy(p, s, n);
    p += n;
    *p++ = '"';
    return p;
}

static char *put_cstr(char *p, const char *s)
{
    return put_quoted(p, s, strlen(s));
}

/* A number that the 2023 generation writes as a JSON string. */
static char *put_num(const gen_fmt *f, char *p, int64_t v)
{
    if (f->format != DFS_GEN_2023)
        return put_i64(p, v);
    *p++ = '"';
    p = put_i64(p, v);
    *p++ = '"';
    return p;
}

static char *put_hash(const gen_fmt *f, char *p, uint64_t h)
{
    if (f->format != DFS_GEN_V2)
        return put_u64(p, h);
    *p++ = '"';
    p = put_hex16(p, h);
    *p++ = '"';
    return p;
}

static char *put_tenths(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        v = -v;
    }
    p = put_i64(p, v / 10);
    *p++ = '.';
    *p++ = (char)('0' + v % 10);
    return p;
}

static char *put_arg_value(const gen_fmt *f, char *p, const gen_arg *a)
{
    bool quote_number = (a->kind == GA_DLIO && f->format != DFS_GEN_V2 &&
                         f->format != DFS_GEN_CHROME) ||
                        (a->kind == GA_IONUM && f->format == DFS_GEN_2023);
    switch (a->kind) {
    case GA_STR:
        return put_cstr(p, a->s);
    case GA_HASH:
        return put_hash(f, p, (uint64_t)a->i);
    case GA_TENTHS:
        return put_tenths(p, a->i);
    case GA_RAW: {
        size_t n = strlen(a->s);
        memcpy(p, a->s, n);
        return p + n;
    }
    default:
        if (!quote_number)
            return put_i64(p, a->i);
        *p++ = '"';
        p = put_i64(p, a->i);
        *p++ = '"';
        return p;
    }
}

/* Writes `,"key":value` for each arg; `comma` says whether the first one needs a separator. */
static char *put_args(const gen_fmt *f, char *p, const gen_arg *args, unsigned n, bool comma)
{
    for (unsigned i = 0; i < n; i++) {
        if (comma)
            *p++ = ',';
        comma = true;
        p = put_cstr(p, args[i].key);
        *p++ = ':';
        p = put_arg_value(f, p, &args[i]);
    }
    return p;
}

static size_t args_bound(const gen_arg *args, unsigned n)
{
    size_t b = 0;
    for (unsigned i = 0; i < n; i++)
        b += strlen(args[i].key) + 32 +
             (args[i].kind == GA_STR || args[i].kind == GA_RAW ? strlen(args[i].s) : 0);
    return b;
}

/* The pieces most records share: `{"name":N,"cat":C` opens them, `,"pid":P,"tid":T` names the
 * thread, and v2 types and dates its records with `,"type":T,"ts":TS`. */
static char *put_name_cat(char *p, const char *name, const char *cat)
{
    PUT(p, "{\"name\":");
    p = put_cstr(p, name);
    PUT(p, ",\"cat\":");
    return put_cstr(p, cat);
}

static char *put_pid_tid(char *p, int64_t pid, int64_t tid)
{
    PUT(p, ",\"pid\":");
    p = put_i64(p, pid);
    PUT(p, ",\"tid\":");
    return put_i64(p, tid);
}

static char *put_type_ts(char *p, uint8_t type, int64_t ts)
{
    PUT(p, ",\"type\":");
    p = put_u64(p, type);
    PUT(p, ",\"ts\":");
    return put_i64(p, ts);
}

/* `"hhash":H`, the host tag of DFTracer's args. */
static char *put_hhash(const gen_fmt *f, char *p)
{
    PUT(p, "\"hhash\":");
    return put_hash(f, p, f->hhash);
}

/* ------------------------------------------------------------------------------------------ */

void gen_fmt_init(gen_fmt *f, dfs_gen_format format, dfs_textout *out, const char *host)
{
    memset(f, 0, sizeof *f);
    f->format = format;
    f->out = out;
    f->host = host;
    f->first = true;
    f->hhash = gen_fmt_hash(f, host, strlen(host));
}

/* FNV-1a with a final avalanche, byte by byte so the value is the same on any machine. */
uint64_t gen_fmt_hash(const gen_fmt *f, const char *s, size_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * UINT64_C(0x100000001b3);
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    if (f->format == DFS_GEN_V1_H16) {
        h >>= 48;
        return h ? h : 1;
    }
    return h ? h : 1;
}

bool gen_fmt_uses_hashes(const gen_fmt *f)
{
    return f->format == DFS_GEN_V1 || f->format == DFS_GEN_V1_H16 || f->format == DFS_GEN_V2;
}

static bool line_format(const gen_fmt *f)
{
    return f->format != DFS_GEN_CHROME;
}

/* Reserves room for a record and writes what precedes it (indent or separator). */
static char *begin_record(gen_fmt *f, size_t bound)
{
    if (bound > DFS_TEXTOUT_MAX_RECORD - 8)
        return NULL;
    char *p = dfs_textout_reserve(f->out, bound + 8);
    if (f->format == DFS_GEN_2023 && f->first)
        *p++ = ' '; /* dlio_profiler indents its first record */
    if (f->format == DFS_GEN_CHROME && !f->first) {
        *p++ = ',';
        *p++ = '\n';
    }
    return p;
}

static void end_record(gen_fmt *f, char *p)
{
    if (line_format(f))
        *p++ = '\n';
    char *base = dfs_textout_reserve(f->out, 0); /* where begin_record's reservation starts */
    dfs_textout_commit(f->out, (size_t)(p - base));
    dfs_textout_record_end(f->out);
    f->first = false;
    f->records++;
}

void gen_fmt_open(gen_fmt *f)
{
    switch (f->format) {
    case DFS_GEN_2023:
    case DFS_GEN_V1:
    case DFS_GEN_V1_H16:
        dfs_textout_put(f->out, "[\n", 2);
        break;
    case DFS_GEN_CHROME:
        dfs_textout_put(f->out, "{\"traceEvents\":[\n", 17);
        break;
    default:
        break;
    }
}

void gen_fmt_close(gen_fmt *f)
{
    static const char chrome_tail[] =
        "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"dfscope gen\"}}\n";
    switch (f->format) {
    case DFS_GEN_V1:
    case DFS_GEN_V1_H16:
        dfs_textout_put(f->out, "]", 1); /* DFTracer writes no newline after the bracket */
        break;
    case DFS_GEN_CHROME:
        dfs_textout_put(f->out, chrome_tail, sizeof chrome_tail - 1);
        break;
    default:
        break; /* 2023 never closes its array; v2 is plain NDJSON */
    }
}

/* ------------------------------------------------------------------------------------------ */

static char *complete_head(const gen_fmt *f, char *p, const gen_rec *r)
{
    if (f->format == DFS_GEN_CHROME) {
        p = put_name_cat(p, r->name, r->cat);
        PUT(p, ",\"ph\":\"X\",\"ts\":");
        p = put_i64(p, r->ts);
        PUT(p, ",\"dur\":");
        p = put_i64(p, r->dur);
        return put_pid_tid(p, r->pid, r->tid);
    }
    PUT(p, "{\"id\":");
    p = put_num(f, p, (int64_t)r->id);
    PUT(p, ",\"name\":");
    p = put_cstr(p, r->name);
    PUT(p, ",\"cat\":");
    p = put_cstr(p, r->cat);
    if (f->format == DFS_GEN_V2) {
        PUT(p, ",\"type\":");
        p = put_u64(p, r->type);
    }
    PUT(p, ",\"pid\":");
    p = put_num(f, p, r->pid);
    PUT(p, ",\"tid\":");
    p = put_num(f, p, r->tid);
    PUT(p, ",\"ts\":");
    p = put_num(f, p, r->ts);
    PUT(p, ",\"dur\":");
    p = put_num(f, p, r->dur);
    if (f->format == DFS_GEN_V2)
        PUT(p, ",\"ph\":1");
    else
        PUT(p, ",\"ph\":\"X\"");
    return p;
}

/* The bookkeeping args DFTracer puts first: host, parent and depth. Returns whether any was written. */
static char *complete_bookkeeping(const gen_fmt *f, char *p, const gen_rec *r, bool *wrote)
{
    *wrote = true;
    if (f->format == DFS_GEN_2023) {
        PUT(p, "\"hostname\":");
        return put_cstr(p, f->host);
    }
    if (f->format == DFS_GEN_CHROME) {
        *wrote = false;
        return p;
    }
    p = put_hhash(f, p);
    if (r->level > 0) {
        PUT(p, ",\"p_idx\":");
        p = put_i64(p, r->p_idx);
        PUT(p, ",\"level\":");
        p = put_i64(p, r->level);
    }
    return p;
}

void gen_fmt_complete(gen_fmt *f, const gen_rec *r)
{
    size_t bound = 400 + strlen(r->name) + strlen(r->cat) + strlen(f->host) + r->fname_len +
                   args_bound(r->args, r->nargs);
    char *start = begin_record(f, bound);
    if (!start)
        return;
    char *p = complete_head(f, start, r);
    bool has_args = f->format != DFS_GEN_CHROME || r->nargs > 0 || r->fname;
    if (has_args) {
        bool comma;
        PUT(p, ",\"args\":{");
        p = complete_bookkeeping(f, p, r, &comma);
        p = put_args(f, p, r->args, r->nargs, comma);
        if (r->fname) {
            if (comma || r->nargs > 0)
                *p++ = ',';
            if (gen_fmt_uses_hashes(f)) {
                PUT(p, "\"fhash\":");
                p = put_hash(f, p, r->fhash);
            } else {
                PUT(p, "\"fname\":");
                p = put_quoted(p, r->fname, r->fname_len);
            }
        }
        *p++ = '}';
    }
    *p++ = '}';
    end_record(f, p);
}

void gen_fmt_meta(gen_fmt *f, const gen_meta *m)
{
    if (f->format == DFS_GEN_2023)
        return; /* the 2023 generation has no metadata records */
    size_t bound = 320 + strlen(m->name) + m->str_len +
                   (m->value_json ? strlen(m->value_json) : 0);
    char *start = begin_record(f, bound);
    if (!start)
        return;
    char *p = start;
    if (f->format == DFS_GEN_CHROME) {
        PUT(p, "{\"name\":");
        p = put_cstr(p, m->name);
        PUT(p, ",\"ph\":\"M\"");
        p = put_pid_tid(p, m->pid, m->tid);
        PUT(p, ",\"args\":{\"name\":");
        p = put_quoted(p, m->str, m->str_len);
        PUT(p, "}}");
        end_record(f, p);
        return;
    }
    if (f->format != DFS_GEN_V2) {
        PUT(p, "{\"id\":");
        p = put_u64(p, m->id);
        PUT(p, ",\"name\":");
    } else {
        PUT(p, "{\"name\":");
    }
    p = put_cstr(p, m->name);
    if (f->format == DFS_GEN_V2)
        PUT(p, ",\"cat\":\"dftracer\",\"type\":1");
    else
        PUT(p, ",\"cat\":\"dftracer\"");
    p = put_pid_tid(p, m->pid, m->tid);
    if (f->format == DFS_GEN_V2) {
        PUT(p, ",\"ph\":4,\"args\":{");
    } else if (f->format == DFS_GEN_V1) {
        PUT(p, ",\"ph\":\"M\",\"args\":{"); /* 1.0.7+ tags metadata with the host */
        p = put_hhash(f, p);
        *p++ = ',';
    } else {
        PUT(p, ",\"ph\":\"M\",\"args\":{");
    }
    PUT(p, "\"name\":");
    p = put_quoted(p, m->str, m->str_len);
    PUT(p, ",\"value\":");
    if (m->value_is_hash)
        p = put_hash(f, p, m->hash);
    else {
        size_t n = strlen(m->value_json);
        memcpy(p, m->value_json, n);
        p += n;
    }
    PUT(p, "}}");
    end_record(f, p);
}

void gen_fmt_aggregated(gen_fmt *f, const char *name, const char *cat, uint8_t type, int64_t ts,
                        int64_t pid, int64_t tid, uint64_t count, int64_t dmin, int64_t dmax,
                        int64_t dsum)
{
    if (f->format != DFS_GEN_V2 || count == 0)
        return;
    char *start = begin_record(f, 320 + strlen(name) + strlen(cat));
    if (!start)
        return;
    char *p = put_name_cat(start, name, cat);
    p = put_type_ts(p, type, ts);
    PUT(p, ",\"ph\":3");
    p = put_pid_tid(p, pid, tid);
    PUT(p, ",\"args\":{");
    p = put_hhash(f, p);
    PUT(p, ",\"dft_cnt\":");
    p = put_u64(p, count);
    if (count == 1) { /* a single call is written plainly, several as min/max/sum */
        PUT(p, ",\"dur\":");
        p = put_i64(p, dsum);
    } else {
        PUT(p, ",\"dur_min\":");
        p = put_i64(p, dmin);
        PUT(p, ",\"dur_max\":");
        p = put_i64(p, dmax);
        PUT(p, ",\"dur_sum\":");
        p = put_i64(p, dsum);
    }
    PUT(p, "}}");
    end_record(f, p);
}

void gen_fmt_counter(gen_fmt *f, const char *name, const char *cat, uint8_t type, int64_t ts,
                     int64_t pid, int64_t tid, const gen_arg *args, unsigned nargs)
{
    if (f->format != DFS_GEN_V2 && f->format != DFS_GEN_CHROME)
        return;
    char *start = begin_record(f, 320 + strlen(name) + strlen(cat) + args_bound(args, nargs));
    if (!start)
        return;
    char *p = put_name_cat(start, name, cat);
    if (f->format == DFS_GEN_V2) {
        p = put_type_ts(p, type, ts);
        PUT(p, ",\"ph\":2");
    } else {
        PUT(p, ",\"ph\":\"C\",\"ts\":");
        p = put_i64(p, ts);
    }
    p = put_pid_tid(p, pid, tid);
    PUT(p, ",\"args\":{");
    bool comma = f->format == DFS_GEN_V2;
    if (comma)
        p = put_hhash(f, p);
    p = put_args(f, p, args, nargs, comma);
    PUT(p, "}}");
    end_record(f, p);
}

void gen_fmt_edge(gen_fmt *f, char ph, const char *name, const char *cat, int64_t ts, int64_t pid,
                  int64_t tid)
{
    if (f->format != DFS_GEN_CHROME)
        return;
    char *start = begin_record(f, 160 + strlen(name) + strlen(cat));
    if (!start)
        return;
    char *p = put_name_cat(start, name, cat);
    PUT(p, ",\"ph\":\"");
    *p++ = ph;
    PUT(p, "\",\"ts\":");
    p = put_i64(p, ts);
    p = put_pid_tid(p, pid, tid);
    *p++ = '}';
    end_record(f, p);
}
