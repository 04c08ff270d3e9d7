/* framer.c - cuts a JSON byte stream into records (spec/formats.md section 3; see framer.h).
 *
 * Line mode is the hot path for DFTracer traces: line ends are found with inline SSE2 compares
 * (no library call per line), each line is trimmed and handed to the record parser as is. A line
 * cut by the end of a feed is searched on from where the last feed stopped, and runs of blank
 * lines are skipped 16 bytes a step, so every byte costs a bounded amount of work.
 * Structural mode scans by bracket depth, string-aware, and keeps its scanning state between
 * feeds so that a large record or top-level value is never rescanned from its start. */
#include "parse/framer.h"

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "parse/json.h"
#include "parse/record.h"
#include "util/seenset.h"

enum state {
    ST_START,     /* before the container */
    ST_EVENTS,    /* inside the event array, between records */
    ST_RECORD,    /* scanning a record */
    ST_RESYNC,    /* after damage: looking for the next '{' (or the closing ']') */
    ST_TOP_KEY,   /* object form: expecting a top-level key or '}' */
    ST_TOP_VALUE, /* object form: scanning a top-level value other than traceEvents */
    ST_TOP_AFTER, /* object form: after a top-level value */
    ST_END,       /* after the container */
    ST_DISCARD,   /* after damage at the top level: the rest of the stream is skipped */
};

enum { SCAN_MORE = 0, SCAN_DONE, SCAN_BROKEN };

/* What one feed call shares between the helpers. */
typedef struct feed {
    dfs_framer *f;
    dfs_pctx *p;
    const char *buf;
    size_t len;
    uint64_t offset;        /* stream offset of buf[0] */
    int flags;
    unsigned mode;          /* DFS_REC_* for the record parser */
    size_t lines_counted;   /* structural: newlines of buf[0..lines_counted) are in st->lines */
} feed;

/* ---- byte search ----------------------------------------------------------------------------- */

static inline const char *find_newline(const char *s, const char *end)
{
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n');
    while (end - s >= 32) {
        __m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)s), nl);
        __m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + 16)), nl);
        unsigned m = (unsigned)_mm_movemask_epi8(a) | (unsigned)_mm_movemask_epi8(b) << 16;
        if (m)
            return s + __builtin_ctz(m);
        s += 32;
    }
#endif
    while (s < end && *s != '\n')
        s++;
    return s < end ? s : NULL;
}

static size_t count_newlines(const char *s, size_t n)
{
    size_t count = 0, i = 0;
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n');
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i)), nl);
        count += (size_t)__builtin_popcount((unsigned)_mm_movemask_epi8(v));
    }
#endif
    for (; i < n; i++)
        count += s[i] == '\n';
    return count;
}

/* ---- problems -------------------------------------------------------------------------------- */

/* A short printable excerpt of damaged input for an example's detail. */
static void excerpt(char *out, size_t cap, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 4 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        out[o++] = c >= 0x20 && c < 0x7F ? (char)c : '.';
    }
    if (n && o + 4 >= cap) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

static void problem_at(feed *c, dfs_problem prob, uint64_t off, const char *what, const char *s,
                       size_t n)
{
    dfs_stream *st = c->p->st;
    if (st->diag.counts[prob] >= st->diag.max_examples) {
        dfs_diag_count(&st->diag, prob, 1);
        return;
    }
    char ex[64];
    excerpt(ex, sizeof ex, s, n);
    dfs_diag_add(&st->diag, prob, st->file, c->p->line, off, "%s%s%s", what, n ? ": " : "", ex);
}

/* ---- records ------------------------------------------------------------------------------- */

/* Parses one record and notes it for the duplicate check of its file (pctx.h): under --dedup a
 * twin is dropped before it is parsed, and the slot of the record in the check's set is loaded
 * while the record is parsed, which hides the cache miss of a large set. */
static dfs_rec_status record(feed *c, const char *rec, size_t n, unsigned mode)
{
    uint64_t off = c->offset + (uint64_t)(rec - c->buf);
    size_t avail = (size_t)(c->buf + c->len - rec);
    uint64_t digest = dfs_digest64(rec, n);
    if (dfs_pctx_drop_duplicate(c->p, digest, off))
        return DFS_REC_EMPTY;
    dfs_seenset_prefetch(&c->p->dups.seen, digest);
    dfs_rec_status status = dfs_parse_record_ex(c->p, rec, n, avail, off, mode, &c->f->memo);
    if (status != DFS_REC_BAD)
        dfs_pctx_note_record(c->p, digest, off);
    return status;
}

/* ---- line mode ------------------------------------------------------------------------------- */

static bool has_glue_start(const char *s, const char *end)
{
    return (end - s >= 6 && memcmp(s, "{\"id\":", 6) == 0) ||
           (end - s >= 8 && memcmp(s, "{\"name\":", 8) == 0);
}

/* The next place after s where a glued record may start, or NULL. */
static const char *next_glue(const char *s, const char *end)
{
    for (s++; s < end; s++) {
        s = memchr(s, '{', (size_t)(end - s));
        if (!s)
            return NULL;
        if (has_glue_start(s, end))
            return s;
    }
    return NULL;
}

/* A line that does not parse may be a record cut by the writer and glued to the next one (spec
 * section 11): records starting at `{"id":` or `{"name":` inside the line are recovered. The
 * fragment before the first one counts as a normal record if it parses, else as lost. A line
 * where nothing parses is not glued (a torn line whose args hold a nested {"name": ...}): the
 * caller reports it as a bad line. Parse attempts are budgeted so that a long damaged line
 * cannot make this quadratic. */
static bool recover_glued(feed *c, const char *s, const char *end)
{
    const char *x = next_glue(s, end);
    if (!x)
        return false;
    unsigned mode = c->mode | DFS_REC_RECOVERED | DFS_REC_STRICT;
    size_t budget = 16 * (size_t)(end - s), lost = 0, recovered = 0;
    bool head_ok = record(c, s, (size_t)(x - s), c->mode | DFS_REC_STRICT) != DFS_REC_BAD;
    if (!head_ok)
        lost++;
    while (x) {
        if (!budget) {
            lost++; /* give up on the rest of the line */
            break;
        }
        size_t cost = (size_t)(end - x);
        if (record(c, x, (size_t)(end - x), mode) != DFS_REC_BAD) {
            recovered++;
            break;
        }
        const char *ok_end = NULL;
        for (const char *y = next_glue(x, end); y && cost <= budget; y = next_glue(y, end)) {
            cost += (size_t)(y - x);
            if (record(c, x, (size_t)(y - x), mode) != DFS_REC_BAD) {
                ok_end = y;
                break;
            }
        }
        budget = cost < budget ? budget - cost : 0;
        if (ok_end) {
            recovered++;
            x = ok_end;
        } else {
            lost++;
            x = next_glue(x, end);
        }
    }
    if (!head_ok && !recovered)
        return false;
    c->p->st->bad_records += lost;
    dfs_diag_add(&c->p->st->diag, DFS_PROB_GLUED_RECORD, c->p->st->file, c->p->line,
                 c->offset + (uint64_t)(s - c->buf), "%zu record(s) recovered, %zu fragment(s) lost",
                 recovered, lost);
    return true;
}

static bool is_line_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r'; }

typedef struct trimmed {
    bool comma_end;   /* the line ends with a comma (a separator unless nothing follows) */
    bool close;       /* the line has a ']' */
    bool comma_close; /* a comma right before a ']': trailing */
} trimmed;

/* Strips framing from both ends of a line: spaces, CR, BOM, the brackets of an array written
 * one record per line, and commas. */
static void trim_line(feed *c, const char **ps, const char **pe, trimmed *t)
{
    const char *s = *ps, *e = *pe;
    dfs_stream *st = c->p->st;
    if (e - s >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
        s += 3;
    for (; s < e; s++) {
        if (*s == '[')
            st->saw_open = true;
        else if (*s == ']')
            t->close = st->saw_close = true; /* "][": the close of a first array */
        else if (*s != ',' && !is_line_space((unsigned char)*s))
            break;
    }
    bool after_close = false;
    for (; e > s; e--) {
        char ch = e[-1];
        if (ch == ',') {
            if (after_close)
                t->comma_close = true;
            else
                t->comma_end = true;
        } else if (ch == ']') {
            t->close = st->saw_close = true;
            after_close = true;
        } else if (!is_line_space((unsigned char)ch)) {
            break;
        }
    }
    *ps = s;
    *pe = e;
}

/* A comma followed by ']' or the end of the stream is trailing (spec section 11); commas between
 * records are separators. */
static void trailing_comma(feed *c, uint64_t off)
{
    problem_at(c, DFS_PROB_TRAILING_COMMA, off, "comma before ']' or the end", NULL, 0);
    c->f->pending_comma = false;
}

static void bad_line(feed *c, const char *s, const char *e, bool torn_tail)
{
    uint64_t off = c->offset + (uint64_t)(s - c->buf);
    c->p->st->bad_records++;
    problem_at(c, DFS_PROB_BAD_LINE, off, "unparsable line", s, (size_t)(e - s));
    if (torn_tail)
        problem_at(c, DFS_PROB_INCOMPLETE_FILE, off, "last line is cut", NULL, 0);
}

/* One line [s, e) without its '\n'. torn_tail: the last bytes of the stream, with no '\n'. */
static void line(feed *c, const char *s, const char *e, bool torn_tail)
{
    trimmed t = {0};
    const char *line_start = s;
    trim_line(c, &s, &e, &t);
    uint64_t off = c->offset + (uint64_t)(line_start - c->buf);
    if (t.comma_close)
        trailing_comma(c, off);
    if (s == e) {
        if (t.close && c->f->pending_comma)
            trailing_comma(c, off);
        else if (t.comma_end && !t.close)
            c->f->pending_comma = true;
        return;
    }
    c->f->pending_comma = false;
    if (c->f->format == DFS_FMT_DASF_TEXT) {
        if (e - s < 6 || memcmp(s, "trace:", 6) != 0) {
            /* DASF ignores lines without the prefix (its log output shares the file) */
            problem_at(c, DFS_PROB_DASF_OTHER_LINE, off, "a line without the 'trace:' prefix (ignored)", NULL, 0);
            return;
        }
        for (s += 6; s < e && is_line_space((unsigned char)*s);)
            s++;
    }
    /* Strictly first; a line that does not parse may be glued records, and only then is it
     * read leniently (a lenient reading could take a glued pair for one record). A DASF line may
     * be the prefix alone: nothing left (n is 0), and e may be the end of the buffer. */
    size_t n = (size_t)(e - s);
    if (n && *s == '{' && (record(c, s, n, c->mode | DFS_REC_STRICT) != DFS_REC_BAD ||
                      recover_glued(c, s, e) ||
                      record(c, s, n, c->mode | DFS_REC_LENIENT) != DFS_REC_BAD)) {
        c->f->pending_comma = t.comma_end && !t.close;
        return;
    }
    bad_line(c, s, e, torn_tail);
}

static void too_large(feed *c, uint64_t off, const char *what)
{
    c->p->st->bad_records++;
    problem_at(c, DFS_PROB_RECORD_TOO_LARGE, off, what, NULL, 0);
}

static bool is_blank(unsigned char c) { return c == '\n' || is_line_space(c); }

/* Past the blank lines at s (spaces, tabs and CRs, each line ended by '\n'), counting them in
 * *lines: s itself when no '\n' comes before the first other byte. A blank line does nothing
 * but count, so a run of millions of them (a decompression bomb of newlines) costs its bytes,
 * compared 16 at a time, rather than a call per line. */
static const char *skip_blank_lines(const char *s, const char *end, uint64_t *lines)
{
    const char *after = s, *p = s;
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n'), sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'),
                  cr = _mm_set1_epi8('\r');
    for (; end - p >= 16; p += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i is_nl = _mm_cmpeq_epi8(v, nl);
        if (_mm_movemask_epi8(is_nl) == 0xFFFF) { /* 16 empty lines */
            *lines += 16;
            after = p + 16;
            continue;
        }
        __m128i blank = _mm_or_si128(_mm_or_si128(is_nl, _mm_cmpeq_epi8(v, sp)),
                                     _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, cr)));
        unsigned newlines = (unsigned)_mm_movemask_epi8(is_nl);
        unsigned other = ~(unsigned)_mm_movemask_epi8(blank) & 0xFFFFu;
        if (other)
            newlines &= (1u << __builtin_ctz(other)) - 1;
        if (newlines) {
            *lines += (uint64_t)__builtin_popcount(newlines);
            after = p + 32 - __builtin_clz(newlines);
        }
        if (other)
            return after;
    }
#endif
    for (; p < end && is_blank((unsigned char)*p); p++)
        if (*p == '\n') {
            ++*lines;
            after = p + 1;
        }
    return after;
}

static size_t feed_lines(feed *c)
{
    dfs_framer *f = c->f;
    dfs_stream *st = c->p->st;
    const char *buf = c->buf, *end = buf + c->len, *s = buf;
    uint64_t max = c->p->opt && c->p->opt->max_record ? c->p->opt->max_record : UINT64_MAX;
    /* bytes at buf[0] the last feed found no '\n' in: the line it stopped before, fed again */
    size_t scanned = f->scan_pos < c->len ? f->scan_pos : c->len;
    f->scan_pos = 0;
    if (f->skipping) {
        const char *nl = find_newline(s, end);
        if (!nl)
            return c->len;
        st->lines++;
        s = nl + 1;
        f->skipping = false;
    }
    while (s < end) {
        if (is_blank((unsigned char)*s) && !(s == buf && scanned)) {
            s = skip_blank_lines(s, end, &st->lines);
            if (s == end)
                break;
        }
        const char *nl = find_newline(s == buf ? s + scanned : s, end);
        c->p->line = st->lines + 1;
        if (!nl) {
            if (c->flags & DFS_FEED_FINAL) {
                line(c, s, end, true);
                s = end;
            } else if ((c->flags & DFS_FEED_FULL) && s == buf) {
                too_large(c, c->offset, "line longer than the record limit");
                f->skipping = true;
                s = end;
            } else {
                f->scan_pos = (size_t)(end - s); /* fed again, longer: resume the search there */
            }
            break;
        }
        if ((uint64_t)(nl - s) > max)
            too_large(c, c->offset + (uint64_t)(s - buf), "line longer than the record limit");
        else
            line(c, s, nl, false);
        st->lines++;
        s = nl + 1;
    }
    return (size_t)(s - buf);
}

/* ---- structural mode --------------------------------------------------------------------------- */

static bool special_in_container(unsigned char ch, bool in_string)
{
    if (in_string)
        return ch == '"' || ch == '\\' || ch == '\n';
    return ch == '"' || ch == '{' || ch == '}' || ch == '[' || ch == ']';
}

/* The next byte at or after i that the container scan must look at. */
static size_t next_special(const char *buf, size_t i, size_t len, bool in_string)
{
#ifdef __SSE2__
    while (i + 16 <= len) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(buf + i));
        __m128i m = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
        if (in_string) {
            m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
            m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
        } else {
            m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('{')));
            m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('}')));
            m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('[')));
            m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8(']')));
        }
        unsigned bits = (unsigned)_mm_movemask_epi8(m);
        if (bits)
            return i + (size_t)__builtin_ctz(bits);
        i += 16;
    }
#endif
    while (i < len && !special_in_container((unsigned char)buf[i], in_string))
        i++;
    return i;
}

/* Continues scanning a container from f->scan_pos. SCAN_DONE: *end is one past its close.
 * SCAN_BROKEN: a raw newline inside a string (quote parity is lost); *end is that newline. */
static int scan_container(dfs_framer *f, const char *buf, size_t len, size_t *end)
{
    size_t i = f->scan_pos;
    if (f->escape && i < len) {
        f->escape = false;
        i++;
    }
    for (;;) {
        i = next_special(buf, i, len, f->in_string);
        if (i >= len)
            break;
        char ch = buf[i];
        if (f->in_string) {
            if (ch == '"') {
                f->in_string = false;
            } else if (ch == '\\') {
                if (i + 1 >= len) {
                    f->escape = true;
                    i++;
                    break;
                }
                i++;
            } else {
                f->in_string = false;
                *end = i;
                return SCAN_BROKEN;
            }
        } else if (ch == '"') {
            f->in_string = true;
        } else if (ch == '{' || ch == '[') {
            f->depth++;
        } else if (--f->depth == 0) {
            *end = i + 1;
            return SCAN_DONE;
        }
        i++;
    }
    f->scan_pos = len;
    return SCAN_MORE;
}

/* A top-level scalar or string value. Scalars end at a delimiter, strings at their quote. */
static int scan_scalar(dfs_framer *f, const char *buf, size_t len, size_t *end)
{
    size_t i = f->scan_pos;
    if (f->unit_kind == '"') {
        if (f->escape && i < len) {
            f->escape = false;
            i++;
        }
        for (; i < len; i++) {
            if (buf[i] == '\\') {
                if (i + 1 >= len) {
                    f->escape = true;
                    i++;
                    break;
                }
                i++;
            } else if (buf[i] == '"' && (i > f->scan_pos || f->in_string)) {
                f->in_string = false;
                *end = i + 1;
                return SCAN_DONE;
            }
            f->in_string = true;
        }
    } else {
        for (; i < len; i++) {
            char ch = buf[i];
            if (ch == ',' || ch == '}' || ch == ']' || dfs_json_is_ws((unsigned char)ch)) {
                *end = i;
                return SCAN_DONE;
            }
        }
    }
    f->scan_pos = len;
    return SCAN_MORE;
}

static int scan_unit(dfs_framer *f, const char *buf, size_t len, size_t *end)
{
    return f->unit_kind == '{' ? scan_container(f, buf, len, end) : scan_scalar(f, buf, len, end);
}

static void begin_unit(dfs_framer *f, const feed *c, size_t at)
{
    char ch = c->buf[at];
    f->unit_kind = ch == '{' || ch == '[' ? '{' : ch == '"' ? '"' : '0';
    f->depth = 0;
    f->in_string = false;
    f->escape = false;
    f->scan_pos = at;
    f->record_start = c->offset + at;
}

/* Newlines up to `at` (a unit start or the consumed end) go to st->lines; p->line follows. */
static void count_lines_to(feed *c, size_t at)
{
    if (at > c->lines_counted) {
        c->p->st->lines += count_newlines(c->buf + c->lines_counted, at - c->lines_counted);
        c->lines_counted = at;
    }
    c->p->line = c->p->st->lines + 1;
}

static void set_dialect_from_key(dfs_stream *st, const char *k, size_t n)
{
    static const char *const kineto[] = {"schemaVersion", "deviceProperties", "traceName",
                                         "baseTimeNanoseconds"};
    if (st->dialect != DFS_DIALECT_UNKNOWN && st->dialect != DFS_DIALECT_CHROME)
        return;
    for (size_t i = 0; i < sizeof kineto / sizeof kineto[0]; i++)
        if (strlen(kineto[i]) == n && memcmp(kineto[i], k, n) == 0)
            st->dialect = DFS_DIALECT_KINETO;
}

/* A top-level value [s, s + n) of the object form, kept as file metadata. */
static void top_value(feed *c, const char *s, size_t n, bool cut)
{
    dfs_pctx *p = c->p;
    dfs_stream *st = p->st;
    size_t klen;
    const char *key = dfs_strtab_get(p->table, c->f->meta_key, &klen);
    if (klen == 19 && memcmp(key, "baseTimeNanoseconds", 19) == 0 && !cut) {
        const char *t = s, *e = s + n;
        if (n >= 2 && *s == '"') {
            t++;
            e--;
        }
        if (dfs_json_time_ns(t, (size_t)(e - t), 0, &st->clock_offset_ns) == DFS_TIME_OK)
            st->has_clock_offset = true;
    }
    if (klen == 8 && memcmp(key, "metadata", 8) == 0 && memmem(s, n, "\"highres-ticks\"", 15) &&
        (st->dialect == DFS_DIALECT_UNKNOWN || st->dialect == DFS_DIALECT_CHROME)) {
        st->dialect = DFS_DIALECT_TF_PROFILER;
        st->relative_time = true;
    }
    dfs_filemeta m = {c->f->meta_key,
                      dfs_strcache_intern(p->strs, s, n < DFS_FILEMETA_MAX ? n : DFS_FILEMETA_MAX)};
    dfs_vec_push(&st->meta, m);
}

/* Skips spaces (and, between records, commas). Returns false when buf ends first. */
static bool skip_between(feed *c, size_t *pos, bool commas)
{
    size_t i = *pos;
    for (; i < c->len; i++) {
        unsigned char ch = (unsigned char)c->buf[i];
        if (commas && ch == ',') {
            c->f->pending_comma = true;
            continue;
        }
        if (!dfs_json_is_ws(ch) && !(ch == 0xEF || ch == 0xBB || ch == 0xBF))
            break;
    }
    *pos = i;
    return i < c->len;
}

static void structural_damage(feed *c, size_t at, const char *what)
{
    count_lines_to(c, at);
    c->p->st->bad_records++;
    problem_at(c, DFS_PROB_BAD_RECORD, c->offset + at, what, c->buf + at,
               c->len - at < 40 ? c->len - at : 40);
}

static void close_events(feed *c)
{
    dfs_framer *f = c->f;
    c->p->st->saw_close = true;
    if (f->pending_comma)
        problem_at(c, DFS_PROB_TRAILING_COMMA, c->offset, "comma before ']'", NULL, 0);
    f->pending_comma = false;
    f->state = f->saw_events_key ? ST_TOP_AFTER : ST_END;
}

/* Between records. Returns false when more input is needed. */
static bool in_events(feed *c, size_t *pos)
{
    dfs_framer *f = c->f;
    if (!skip_between(c, pos, true))
        return false;
    char ch = c->buf[*pos];
    if (ch == '{') {
        begin_unit(f, c, *pos);
        f->state = ST_RECORD;
    } else if (ch == ']') {
        (*pos)++;
        close_events(c);
    } else {
        structural_damage(c, *pos, "unexpected bytes between records");
        f->state = ST_RESYNC;
    }
    return true;
}

static bool resync(feed *c, size_t *pos)
{
    size_t i = *pos;
    while (i < c->len && c->buf[i] != '{' && c->buf[i] != ']')
        i++;
    *pos = i;
    if (i >= c->len)
        return false;
    c->f->state = ST_EVENTS;
    c->f->pending_comma = false;
    return true;
}

/* A unit (record or top-level value) that does not end in buf: wait for more bytes, or skip it
 * when it cannot fit. Returns the new consumed position. */
static size_t unit_incomplete(feed *c, size_t unit)
{
    dfs_framer *f = c->f;
    uint64_t max = c->p->opt && c->p->opt->max_record ? c->p->opt->max_record : UINT64_MAX;
    bool full = (c->flags & DFS_FEED_FULL) && unit == 0;
    if (f->state == ST_TOP_VALUE) {
        if (c->len - unit > DFS_FILEMETA_MAX || full) {
            top_value(c, c->buf + unit, (c->len - unit) < DFS_FILEMETA_MAX ? c->len - unit : DFS_FILEMETA_MAX, true);
            f->skipping = true;
            f->scan_pos = 0;
            return c->len;
        }
        return unit;
    }
    if ((uint64_t)(c->len - unit) > max || full) {
        count_lines_to(c, unit);
        too_large(c, c->offset + unit, "record longer than the record limit");
        f->skipping = true;
        f->scan_pos = 0;
        return c->len;
    }
    return unit;
}

/* Scans the current unit; returns false when more input is needed (*pos is then the consumed
 * position). */
static bool in_unit(feed *c, size_t *pos)
{
    dfs_framer *f = c->f;
    size_t unit = f->skipping ? 0 : *pos, end;
    if (f->scan_pos < *pos)
        f->scan_pos = *pos;
    int r = scan_unit(f, c->buf, c->len, &end);
    if (r == SCAN_MORE) {
        if (f->skipping) {
            f->scan_pos = 0;
            *pos = c->len;
        } else {
            *pos = unit_incomplete(c, unit);
            if (!f->skipping)
                f->scan_pos -= unit; /* the caller re-feeds from the unit start */
        }
        return false;
    }
    bool skipped = f->skipping;
    f->skipping = false;
    f->scan_pos = 0;
    if (r == SCAN_BROKEN) {
        /* A skipped record was reported as too large; a top-level value cut to the metadata
         * limit was not reported, and whole it would have been. A record whose bytes before
         * the break fill the record limit is too large: a reader whose buffer holds just that
         * many bytes cannot see the break. */
        uint64_t max = c->p->opt && c->p->opt->max_record ? c->p->opt->max_record : UINT64_MAX;
        if (!skipped && f->state == ST_RECORD && (uint64_t)(end - unit) >= max) {
            count_lines_to(c, unit);
            too_large(c, c->offset + unit, "record longer than the record limit");
        } else if (!skipped || f->state == ST_TOP_VALUE) {
            structural_damage(c, unit, "string broken by a newline");
        }
        *pos = end + 1;
        f->state = ST_RESYNC;
        return true;
    }
    *pos = end;
    if (f->state == ST_TOP_VALUE) {
        if (!skipped)
            top_value(c, c->buf + unit, end - unit, false);
        f->state = ST_TOP_AFTER;
        return true;
    }
    f->state = ST_EVENTS;
    f->pending_comma = false; /* a record came after the comma, skipped or not */
    if (skipped)
        return true;
    count_lines_to(c, unit);
    uint64_t max = c->p->opt && c->p->opt->max_record ? c->p->opt->max_record : UINT64_MAX;
    if ((uint64_t)(end - unit) > max) /* the same verdict whatever the caller's buffer size */
        too_large(c, c->offset + unit, "record longer than the record limit");
    else if (record(c, c->buf + unit, end - unit, c->mode) == DFS_REC_BAD)
        structural_damage(c, unit, "record does not parse");
    return true;
}

/* The closing quote of the string at s by escapes alone (whatever they are), or NULL when the
 * string goes on past end: tells a key that is not finished from one that does not parse. */
static const char *raw_string_end(const char *s, const char *end)
{
    for (s++; s < end; s++) {
        if (*s == '\\')
            s++;
        else if (*s == '"')
            return s + 1;
    }
    return NULL;
}

/* Damage among the top-level keys: nothing after it can be placed, so the rest is skipped. */
static bool top_key_damage(feed *c, size_t at, const char *what)
{
    structural_damage(c, at, what);
    c->f->state = ST_DISCARD;
    return true;
}

/* A top-level key of the object form. Returns false when more input is needed. Verdicts do not
 * depend on where the caller's buffer ends: a key with its ':' and the spaces around it is at
 * most opt->max_record bytes (so that a full buffer always moves on). */
static bool top_key(feed *c, size_t *pos)
{
    dfs_framer *f = c->f;
    if (!skip_between(c, pos, false))
        return false;
    size_t i = *pos;
    const char *s = c->buf + i, *end = c->buf + c->len;
    uint64_t max = c->p->opt && c->p->opt->max_record ? c->p->opt->max_record : UINT64_MAX;
    if (*s == '}') {
        *pos = i + 1;
        f->state = ST_END;
        return true;
    }
    if (*s != '"')
        return top_key_damage(c, i, "unexpected bytes among the top-level keys");
    unsigned flags = 0;
    const char *ke = dfs_json_string_end(s, end, false, &flags);
    if (!ke && raw_string_end(s, end))
        return top_key_damage(c, i, "a top-level key that does not parse");
    const char *v = ke ? dfs_json_ws(ke, end) : NULL;
    if (v && v < end) {
        if (*v != ':')
            return top_key_damage(c, i, "a top-level key without ':'");
        v = dfs_json_ws(v + 1, end);
    }
    if (!v || v >= end) {
        if ((uint64_t)(end - s) >= max)
            return top_key_damage(c, i, "a top-level key longer than the record limit");
        return false;
    }
    if ((uint64_t)(v - s) >= max)
        return top_key_damage(c, i, "a top-level key longer than the record limit");
    const char *k = s + 1;
    size_t kn = (size_t)(ke - 1 - k);
    *pos = (size_t)(v - c->buf);
    if (kn == 11 && memcmp(k, "traceEvents", 11) == 0 && *v == '[') {
        f->saw_events_key = true;
        c->p->st->saw_open = true;
        f->state = ST_EVENTS;
        (*pos)++;
        return true;
    }
    set_dialect_from_key(c->p->st, k, kn);
    f->meta_key = dfs_json_intern(c->p, k, kn, flags);
    begin_unit(f, c, *pos);
    f->state = ST_TOP_VALUE;
    return true;
}

static bool top_after(feed *c, size_t *pos)
{
    if (!skip_between(c, pos, false))
        return false;
    char ch = c->buf[*pos];
    if (ch == ',' || ch == '}') {
        (*pos)++;
        c->f->state = ch == ',' ? ST_TOP_KEY : ST_END;
        return true;
    }
    structural_damage(c, *pos, "unexpected bytes after a top-level value");
    c->f->state = ST_DISCARD;
    return true;
}

static bool at_start(feed *c, size_t *pos)
{
    dfs_framer *f = c->f;
    if (!skip_between(c, pos, false))
        return false;
    char ch = c->buf[*pos];
    if (ch == '[') {
        c->p->st->saw_open = true;
        f->state = ST_EVENTS;
        (*pos)++;
    } else if (ch == '{' && f->format == DFS_FMT_JSON_OBJECT) {
        f->state = ST_TOP_KEY;
        (*pos)++;
    } else if (ch == '{') {
        f->state = ST_EVENTS; /* records without brackets */
    } else {
        structural_damage(c, *pos, "not a JSON array or object");
        f->state = ST_RESYNC;
    }
    return true;
}

static bool at_end(feed *c, size_t *pos)
{
    dfs_framer *f = c->f;
    if (!skip_between(c, pos, false))
        return false;
    char ch = c->buf[*pos];
    if (ch == '[' && f->format != DFS_FMT_JSON_OBJECT) {
        c->p->st->saw_open = true; /* "][": two arrays concatenated */
        f->state = ST_EVENTS;
        (*pos)++;
    } else if (ch == '{' && f->format == DFS_FMT_JSON_OBJECT) {
        f->saw_events_key = false;
        f->state = ST_TOP_KEY;
        (*pos)++;
    } else {
        structural_damage(c, *pos, "bytes after the end of the trace");
        f->state = ST_DISCARD;
    }
    return true;
}

/* Counted once where the damage began, whatever pieces the rest comes in. */
static bool discard(feed *c, size_t *pos)
{
    *pos = c->len;
    return false;
}

static bool step(feed *c, size_t *pos)
{
    switch (c->f->state) {
    case ST_START: return at_start(c, pos);
    case ST_EVENTS: return in_events(c, pos);
    case ST_RECORD:
    case ST_TOP_VALUE: return in_unit(c, pos);
    case ST_RESYNC: return resync(c, pos);
    case ST_TOP_KEY: return top_key(c, pos);
    case ST_TOP_AFTER: return top_after(c, pos);
    case ST_DISCARD: return discard(c, pos);
    default: return at_end(c, pos);
    }
}

static size_t feed_structural(feed *c)
{
    dfs_framer *f = c->f;
    size_t pos = 0;
    while (step(c, &pos))
        ;
    if ((c->flags & DFS_FEED_FINAL) && pos < c->len) {
        if (f->state == ST_RECORD && !f->skipping) {
            count_lines_to(c, pos);
            c->p->st->bad_records++;
            problem_at(c, DFS_PROB_BAD_RECORD, c->offset + pos, "record cut by the end of the stream",
                       c->buf + pos, c->len - pos < 40 ? c->len - pos : 40);
            f->torn = true;
            f->state = ST_EVENTS;
        } else if (f->state == ST_TOP_VALUE && !f->skipping) {
            f->torn = true;
        }
        pos = c->len;
    }
    count_lines_to(c, pos);
    return pos;
}

/* ---- public -------------------------------------------------------------------------------- */

void dfs_framer_init(dfs_framer *f, dfs_format format, bool structural)
{
    memset(f, 0, sizeof *f);
    f->format = format;
    f->structural = structural || format == DFS_FMT_JSON_OBJECT;
    f->state = ST_START;
}

size_t dfs_framer_feed(dfs_framer *f, dfs_pctx *p, const char *buf, size_t len, uint64_t offset,
                       int flags)
{
    feed c = {.f = f, .p = p, .buf = buf, .len = len, .offset = offset, .flags = flags,
              .mode = f->format == DFS_FMT_DASF_TEXT ? DFS_REC_DASF_TEXT : 0};
    size_t used = f->structural ? feed_structural(&c) : feed_lines(&c);
    f->end_offset = offset + len;
    return used;
}

void dfs_framer_finish(dfs_framer *f, dfs_pctx *p)
{
    dfs_stream *st = p->st;
    feed c = {.f = f, .p = p};
    p->line = 0;
    uint64_t end = f->end_offset; /* what is missing is missing at the end of the stream */
    if (f->structural && f->format == DFS_FMT_JSON_OBJECT) {
        if (f->state != ST_END && f->state != ST_START && f->state != ST_DISCARD)
            problem_at(&c, DFS_PROB_TRUNCATED_CONTAINER, end, "the trace object is not closed by the end", NULL, 0);
    } else {
        if (f->pending_comma)
            problem_at(&c, DFS_PROB_TRAILING_COMMA, end, "comma at the end", NULL, 0);
        if (st->saw_open && !st->saw_close)
            problem_at(&c, DFS_PROB_MISSING_CLOSE, end, "no closing ']' before the end", NULL, 0);
        if (f->torn)
            problem_at(&c, DFS_PROB_INCOMPLETE_FILE, end, "the stream ends inside a record", NULL, 0);
    }
    if (st->dialect == DFS_DIALECT_UNKNOWN && st->records)
        st->dialect = f->format == DFS_FMT_DASF_TEXT ? DFS_DIALECT_DASF : DFS_DIALECT_CHROME;
}
