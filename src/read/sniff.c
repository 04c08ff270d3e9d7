/* sniff.c - recognising an input from its first bytes (spec/formats.md section 1).
 *
 * Decisions, in order:
 *  1. No bytes: not a trace ("empty file").
 *  2. DASF msgpack: byte 0 is 0x00, the big-endian u64 N at bytes 0-7 is >= 1 and fits (N <= len - 8
 *     when the head is the whole stream; otherwise N <= 64 MiB, the default record limit, because the
 *     file goes on beyond the head), and byte 8 is a msgpack map header. A TensorFlow events file
 *     (little-endian length 18 00 00 00 ...) fails the first test.
 *  3. After a UTF-8 BOM and whitespace: the literal "trace:" then '{' is old DASF text.
 *  4. '[': array framing (unless its first element is not an object). '{': the first top-level object is scanned (depth, strings, escapes);
 *     a depth-1 key "traceEvents" makes it the Chrome object form. Otherwise the object must look
 *     like an event (ph; or name with ts or cat; or the smdebug system-metric keys) to be JSON
 *     lines, else the file is not a trace.
 *     When the head ends before the first object closes and no traceEvents key was seen (Kineto
 *     writes KBs of deviceProperties first): a depth-1 key known from the Chrome/Kineto/TensorFlow
 *     object form (schemaVersion, deviceProperties, displayTimeUnit, ...) means the object form;
 *     otherwise keys that look like an event mean JSON lines (a very long record); otherwise it is
 *     not a trace.
 *  5. Anything else is not a trace, with a reason.
 *
 * Reading mode: line mode (structural = false) needs the first record to start its own line
 * (after whitespace, or after a '[' on an earlier line) and to end that line (only spaces and
 * commas after it). A first record spanning lines (pretty-printed) or followed by more data on the
 * same line (a one-line trace) makes the stream structural. The object form is always structural.
 *
 * The dialect is a best guess from the first records visible in the head (section 1 table). */
#include "read/sniff.h"

#include <stddef.h>
#include <string.h>

#define DASF_PLAUSIBLE_RECORD (64ull << 20)
#define MAX_MEMBERS 48 /* depth-1 members remembered per object (traceEvents is tracked anyway) */
#define MAX_RECORDS 64 /* records examined for the dialect */

typedef struct span {
    size_t b, e; /* [b, e) in the head */
} span;

typedef struct jmember {
    span key; /* without the quotes */
    span val; /* trimmed; may be cut by the end of the head */
} jmember;

/* What the scan of one JSON object saw at its depth 1. */
typedef struct jobj {
    size_t start, end;     /* '{' and one past '}' (or the head length when not closed) */
    bool closed;
    bool multiline;        /* a newline inside the object */
    bool has_trace_events;
    bool object_form_key;  /* a depth-1 key known from the Chrome/Kineto/TF object form */
    span trace_events;     /* the value of traceEvents */
    size_t n;
    jmember m[MAX_MEMBERS];
} jobj;

typedef struct head {
    const unsigned char *p;
    size_t len;
} head;

/* ---- small text helpers ------------------------------------------------------------------ */

static bool is_ws(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static size_t skip_ws(head h, size_t i)
{
    while (i < h.len && is_ws(h.p[i]))
        i++;
    return i;
}

static bool span_is(head h, span s, const char *lit)
{
    size_t n = strlen(lit);
    return s.e - s.b == n && memcmp(h.p + s.b, lit, n) == 0;
}

static bool span_starts(head h, span s, const char *lit)
{
    size_t n = strlen(lit);
    return s.e - s.b >= n && memcmp(h.p + s.b, lit, n) == 0;
}

/* The contents of a string value (quotes stripped), or an empty span at the value's start. */
static span string_body(head h, span v)
{
    if (v.e - v.b >= 2 && h.p[v.b] == '"' && h.p[v.e - 1] == '"')
        return (span){v.b + 1, v.e - 1};
    return (span){v.b, v.b};
}

static bool is_string(head h, span v) { return v.e > v.b && h.p[v.b] == '"'; }

static bool is_number(head h, span v)
{
    return v.e > v.b && (h.p[v.b] == '-' || (h.p[v.b] >= '0' && h.p[v.b] <= '9'));
}

static bool is_digit_string(head h, span v)
{
    span s = string_body(h, v);
    if (s.e == s.b)
        return false;
    for (size_t i = s.b; i < s.e; i++)
        if (h.p[i] < '0' || h.p[i] > '9')
            return false;
    return true;
}

/* ---- scanning one object ----------------------------------------------------------------- */

/* A literal with its length, so that a key is told apart by its length first: the sniffer checks
 * every depth-1 key of up to 64 records against this table, twice per file in analyze. */
typedef struct literal {
    const char *s;
    size_t n;
} literal;
#define LITERAL(x) {x, sizeof x - 1}

static const literal object_form_keys[] = {
    LITERAL("traceEvents"), LITERAL("displayTimeUnit"), LITERAL("systemTraceEvents"), LITERAL("otherData"),
    LITERAL("stackFrames"), LITERAL("samples"), LITERAL("metadata"), LITERAL("schemaVersion"),
    LITERAL("deviceProperties"), LITERAL("distributedInfo"), LITERAL("traceName"),
    LITERAL("baseTimeNanoseconds"), LITERAL("record_shapes"), LITERAL("profile_memory"),
    LITERAL("with_stack"), LITERAL("with_flops"), LITERAL("with_modules"), LITERAL("trace_id"),
    LITERAL("cupti_version"), LITERAL("cuda_runtime_version"), LITERAL("cuda_driver_version"),
    LITERAL("roctracer_version"), LITERAL("hip_runtime_version"), LITERAL("powerTraceAsString"),
    LITERAL("controllerTraceDataKey"),
};

static bool is_object_form_key(head h, span key)
{
    size_t n = key.e - key.b;
    for (size_t i = 0; i < sizeof object_form_keys / sizeof *object_form_keys; i++)
        if (object_form_keys[i].n == n && memcmp(h.p + key.b, object_form_keys[i].s, n) == 0)
            return true;
    return false;
}

static span trim(head h, size_t b, size_t e)
{
    while (b < e && is_ws(h.p[b]))
        b++;
    while (e > b && is_ws(h.p[e - 1]))
        e--;
    return (span){b, e};
}

typedef enum member_state { EXPECT_KEY, IN_KEY, EXPECT_COLON, IN_VALUE } member_state;

typedef struct scan_state {
    member_state st;
    span key;
    size_t val_b;
} scan_state;

static void key_done(head h, jobj *o, scan_state *s, size_t i)
{
    s->key.e = i;
    s->st = EXPECT_COLON;
    if (span_is(h, s->key, "traceEvents"))
        o->has_trace_events = true;
    if (is_object_form_key(h, s->key))
        o->object_form_key = true;
}

static void value_done(head h, jobj *o, scan_state *s, size_t end)
{
    span v = trim(h, s->val_b, end);
    if (span_is(h, s->key, "traceEvents"))
        o->trace_events = v;
    if (o->n < MAX_MEMBERS)
        o->m[o->n++] = (jmember){s->key, v};
    s->st = EXPECT_KEY;
}

/* Structural characters outside strings. Returns true when the object closed at i. */
static bool scan_structural(head h, jobj *o, scan_state *s, int *depth, size_t i)
{
    switch (h.p[i]) {
    case '{':
    case '[':
        ++*depth;
        return false;
    case '}':
    case ']':
        if (--*depth > 0)
            return false;
        if (s->st == IN_VALUE)
            value_done(h, o, s, i);
        o->closed = true;
        o->end = i + 1;
        return true;
    case ':':
        if (*depth == 1 && s->st == EXPECT_COLON) {
            s->st = IN_VALUE;
            s->val_b = i + 1;
        }
        return false;
    case ',':
        if (*depth == 1 && s->st == IN_VALUE)
            value_done(h, o, s, i);
        return false;
    default:
        return false;
    }
}

/* Scans the object whose '{' is at `start`, tolerating anything (the head may cut it). */
static void scan_object(head h, size_t start, jobj *o)
{
    memset(o, 0, offsetof(jobj, m));
    o->start = start;
    o->end = h.len;
    scan_state s = {.st = EXPECT_KEY};
    int depth = 1;
    bool in_string = false, escape = false;
    for (size_t i = start + 1; i < h.len; i++) {
        unsigned char c = h.p[i];
        if (c == '\n')
            o->multiline = true;
        if (in_string) {
            if (escape)
                escape = false;
            else if (c == '\\')
                escape = true;
            else if (c == '"') {
                in_string = false;
                if (depth == 1 && s.st == IN_KEY)
                    key_done(h, o, &s, i);
            }
        } else if (c == '"') {
            in_string = true;
            if (depth == 1 && s.st == EXPECT_KEY) {
                s.st = IN_KEY;
                s.key.b = i + 1;
            }
        } else if (scan_structural(h, o, &s, &depth, i)) {
            return;
        }
    }
    if (s.st == IN_VALUE)
        value_done(h, o, &s, h.len);
}

static const jmember *member(head h, const jobj *o, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < o->n; i++)
        if (o->m[i].key.e - o->m[i].key.b == n && memcmp(h.p + o->m[i].key.b, key, n) == 0)
            return &o->m[i];
    return NULL;
}

static bool value_is(head h, const jobj *o, const char *key, const char *str)
{
    const jmember *m = member(h, o, key);
    return m && span_is(h, string_body(h, m->val), str) && is_string(h, m->val);
}

/* ---- what a record looks like ------------------------------------------------------------ */

static bool smdebug_system_keys(head h, const jobj *o)
{
    return member(h, o, "Dimension") && member(h, o, "Timestamp") &&
           (member(h, o, "Type") || member(h, o, "NodeId"));
}

static bool looks_like_event(head h, const jobj *o)
{
    if (member(h, o, "ph"))
        return true;
    if (member(h, o, "name") && (member(h, o, "ts") || member(h, o, "cat")))
        return true;
    return smdebug_system_keys(h, o);
}

/* Evidence for the dialect collected over the first records. */
typedef struct clues {
    bool v2, y2023, v1, sm_system, sm_framework, horovod, composer, kineto, tf, event;
} clues;

/* args of a record, scanned one level deep; false when absent. */
static bool record_args(head h, const jobj *o, jobj *args)
{
    const jmember *a = member(h, o, "args");
    if (!a || a->val.e == a->val.b || h.p[a->val.b] != '{')
        return false;
    scan_object(h, a->val.b, args);
    return true;
}

static bool dftracer_v1_marks(head h, const jobj *o, const jobj *args, bool has_args)
{
    if (value_is(h, o, "cat", "dftracer") || member(h, o, "hhash") || member(h, o, "fhash"))
        return true;
    return has_args && (member(h, args, "hhash") || member(h, args, "fhash") ||
                        member(h, args, "p_idx") || member(h, args, "level"));
}

static bool kineto_category(head h, const jobj *o)
{
    static const char *const cats[] = {"cpu_op", "kernel", "ac2g", "Operator", "Runtime",
                                       "Kernel", "cuda_runtime", "user_annotation",
                                       "gpu_memcpy", "gpu_memset", "python_function"};
    const jmember *cat = member(h, o, "cat"); /* looked up once, not once per category */
    if (!cat || !is_string(h, cat->val))
        return false;
    span body = string_body(h, cat->val);
    for (size_t i = 0; i < sizeof cats / sizeof *cats; i++)
        if (span_is(h, body, cats[i]))
            return true;
    return false;
}

static void metadata_clues(head h, const jobj *o, const jobj *args, bool has_args, bool first,
                           clues *c)
{
    if (!value_is(h, o, "ph", "M"))
        return;
    if (value_is(h, o, "name", "global_rank") || value_is(h, o, "name", "clock_sync_timestamp_us"))
        c->composer = true;
    if (!has_args)
        return;
    if (first && value_is(h, o, "name", "process_name") &&
        (member(h, args, "start_time_since_epoch_in_micros") ||
         value_is(h, args, "name", "start_time_since_epoch_in_micros")))
        c->sm_framework = true;
    const jmember *n = member(h, args, "name");
    if (value_is(h, o, "name", "process_name") && n &&
        (span_starts(h, string_body(h, n->val), "/host:") ||
         span_starts(h, string_body(h, n->val), "/device:")))
        c->tf = true;
}

static void record_clues(head h, const jobj *o, bool first, clues *c)
{
    jobj args;
    bool has_args = record_args(h, o, &args);
    const jmember *ph = member(h, o, "ph");
    const jmember *name = member(h, o, "name");
    if ((ph && is_number(h, ph->val)) || member(h, o, "type"))
        c->v2 = true;
    const jmember *ts = member(h, o, "ts"), *dur = member(h, o, "dur");
    if ((ts && is_digit_string(h, ts->val)) || (dur && is_digit_string(h, dur->val)))
        c->y2023 = true;
    if ((value_is(h, o, "ph", "X") || value_is(h, o, "ph", "M")) &&
        dftracer_v1_marks(h, o, &args, has_args))
        c->v1 = true;
    if (smdebug_system_keys(h, o))
        c->sm_system = true;
    if (name && (span_is(h, string_body(h, name->val), "CYCLE_START") ||
                 span_starts(h, string_body(h, name->val), "NEGOTIATE_")))
        c->horovod = true;
    if ((value_is(h, o, "ph", "B") || value_is(h, o, "ph", "E")) && name &&
        span_starts(h, string_body(h, name->val), "event/"))
        c->composer = true;
    if (kineto_category(h, o))
        c->kineto = true;
    metadata_clues(h, o, &args, has_args, first, c);
    if (looks_like_event(h, o))
        c->event = true;
}

static dfs_dialect dialect_of(const clues *c)
{
    if (c->v2)
        return DFS_DIALECT_DFTRACER_V2;
    if (c->y2023)
        return DFS_DIALECT_DFTRACER_2023;
    if (c->v1)
        return DFS_DIALECT_DFTRACER_V1;
    if (c->sm_system)
        return DFS_DIALECT_SMDEBUG_SYSTEM;
    if (c->horovod)
        return DFS_DIALECT_HOROVOD;
    if (c->composer)
        return DFS_DIALECT_COMPOSER;
    if (c->sm_framework)
        return DFS_DIALECT_SMDEBUG_FRAMEWORK;
    if (c->tf)
        return DFS_DIALECT_TF_PROFILER;
    if (c->kineto)
        return DFS_DIALECT_KINETO;
    return c->event ? DFS_DIALECT_CHROME : DFS_DIALECT_UNKNOWN;
}

/* Index of the next record's '{' from i, skipping whitespace, commas and array brackets;
 * h.len when something else comes first. */
static size_t next_record(head h, size_t i)
{
    while (i < h.len && (is_ws(h.p[i]) || h.p[i] == ',' || h.p[i] == '[' || h.p[i] == ']'))
        i++;
    return i < h.len && h.p[i] == '{' ? i : h.len;
}

/* Collects clues from the records starting at or after `from`. */
static void stream_clues(head h, size_t from, clues *c)
{
    jobj o;
    size_t i = next_record(h, from);
    for (int k = 0; k < MAX_RECORDS && i < h.len; k++) {
        scan_object(h, i, &o);
        record_clues(h, &o, k == 0, c);
        if (!o.closed)
            break;
        i = next_record(h, o.end);
    }
}

/* ---- reading mode ------------------------------------------------------------------------ */

/* True when the record at o starts its own line and ends it (see the top comment). */
static bool record_owns_line(head h, const jobj *o, size_t text_start, bool at_eof)
{
    if (!o->closed || o->multiline)
        return false;
    for (size_t i = o->start; i > text_start && h.p[i - 1] != '\n'; i--)
        if (!is_ws(h.p[i - 1]))
            return false;
    size_t i = o->end;
    while (i < h.len && (h.p[i] == ' ' || h.p[i] == '\t' || h.p[i] == '\r' || h.p[i] == ','))
        i++;
    return i < h.len ? h.p[i] == '\n' : at_eof;
}

/* ---- the decisions ----------------------------------------------------------------------- */

static dfs_sniffed not_a_trace(const char *why)
{
    return (dfs_sniffed){.format = DFS_FMT_NOT_A_TRACE, .why = why};
}

static uint64_t load_be64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static bool is_dasf(head h, bool at_eof)
{
    if (h.len < 9 || h.p[0] != 0x00)
        return false;
    uint64_t n = load_be64(h.p);
    uint64_t limit = at_eof ? h.len - 8 : DASF_PLAUSIBLE_RECORD;
    unsigned char m = h.p[8];
    bool map = (m >= 0x80 && m <= 0x8F) || m == 0xDE || m == 0xDF;
    return n >= 1 && n <= limit && map;
}

static bool is_dasf_text(head h, size_t i)
{
    static const char prefix[] = "trace:";
    if (h.len - i < sizeof prefix - 1 || memcmp(h.p + i, prefix, sizeof prefix - 1) != 0)
        return false;
    i += sizeof prefix - 1;
    while (i < h.len && (h.p[i] == ' ' || h.p[i] == '\t'))
        i++;
    return i < h.len && h.p[i] == '{';
}

/* A TFRecord starts with a little-endian u64 length and a masked CRC (events.out.tfevents). */
static bool looks_like_tfrecord(head h)
{
    if (h.len < 12 || h.p[0] == 0)
        return false;
    for (int i = 4; i < 8; i++)
        if (h.p[i] != 0)
            return false;
    return true;
}

static dfs_sniffed sniff_array(head h, size_t text_start, size_t open, bool at_eof)
{
    dfs_sniffed r = {.format = DFS_FMT_JSON_ARRAY};
    size_t first = next_record(h, open + 1);
    if (first < h.len) {
        jobj o;
        scan_object(h, first, &o);
        r.structural = !record_owns_line(h, &o, text_start, at_eof);
    } else {
        size_t after = skip_ws(h, open + 1);
        if (after < h.len && h.p[after] != ']')
            return not_a_trace("JSON array of non-objects");
    }
    clues c = {0};
    stream_clues(h, open + 1, &c);
    r.dialect = dialect_of(&c);
    /* DFTracer writes one record per line between a '[' line and a ']' line: the corpus manifest
     * and the spec (section 12) count these files as JSON lines, with the brackets as framing. */
    bool dftracer = r.dialect == DFS_DIALECT_DFTRACER_2023 || r.dialect == DFS_DIALECT_DFTRACER_V1 ||
                    r.dialect == DFS_DIALECT_DFTRACER_V2;
    if (dftracer && !r.structural)
        r.format = DFS_FMT_JSON_LINES;
    return r;
}

static dfs_dialect object_dialect(head h, const jobj *o)
{
    const jmember *meta = member(h, o, "metadata");
    if (meta && memmem(h.p + meta->val.b, meta->val.e - meta->val.b, "highres-ticks", 13))
        return DFS_DIALECT_TF_PROFILER;
    static const char *const kineto_keys[] = {"schemaVersion", "deviceProperties", "traceName",
                                              "baseTimeNanoseconds", "distributedInfo"};
    for (size_t i = 0; i < sizeof kineto_keys / sizeof *kineto_keys; i++)
        if (member(h, o, kineto_keys[i]))
            return DFS_DIALECT_KINETO;
    clues c = {0};
    if (o->has_trace_events && o->trace_events.e > o->trace_events.b)
        stream_clues(h, o->trace_events.b + 1, &c);
    dfs_dialect d = dialect_of(&c);
    return d == DFS_DIALECT_UNKNOWN ? DFS_DIALECT_CHROME : d;
}

static dfs_sniffed json_lines(head h, const jobj *o, size_t text_start, bool at_eof)
{
    dfs_sniffed r = {.format = DFS_FMT_JSON_LINES};
    r.structural = o->closed ? !record_owns_line(h, o, text_start, at_eof) : o->multiline;
    clues c = {0};
    stream_clues(h, o->start, &c);
    r.dialect = dialect_of(&c);
    return r;
}

static dfs_sniffed sniff_object(head h, size_t text_start, size_t open, bool at_eof)
{
    jobj o;
    scan_object(h, open, &o);
    bool object_form = o.has_trace_events || (!o.closed && o.object_form_key);
    if (object_form)
        return (dfs_sniffed){.format = DFS_FMT_JSON_OBJECT, .structural = true,
                             .dialect = object_dialect(h, &o)};
    if (looks_like_event(h, &o))
        return json_lines(h, &o, text_start, at_eof);
    if (o.closed)
        return not_a_trace("JSON without trace events");
    return not_a_trace("JSON object without traceEvents in the first bytes");
}

static dfs_sniffed sniff_other(head h, size_t i)
{
    unsigned char c = h.p[i];
    if (c == 0x1F && i + 1 < h.len && h.p[i + 1] == 0x8B)
        return not_a_trace("gzip data inside gzip");
    if (c == '"')
        return not_a_trace("protobuf data");
    if (c == 0xFB)
        return not_a_trace("Python marshal data");
    if (i == 0 && looks_like_tfrecord(h))
        return not_a_trace("TFRecord data (TensorFlow events)");
    if (c < 0x20 || c >= 0x7F)
        return not_a_trace("binary data");
    return not_a_trace("text that is not JSON");
}

static size_t skip_bom_and_ws(head h, size_t *text_start)
{
    size_t i = 0;
    if (h.len >= 3 && h.p[0] == 0xEF && h.p[1] == 0xBB && h.p[2] == 0xBF)
        i = 3;
    *text_start = i;
    return skip_ws(h, i);
}

dfs_sniffed dfs_sniff(const unsigned char *bytes, size_t len, bool at_eof)
{
    head h = {bytes, len};
    if (len == 0)
        return not_a_trace("empty file");
    if (is_dasf(h, at_eof))
        return (dfs_sniffed){.format = DFS_FMT_DASF, .dialect = DFS_DIALECT_DASF};
    size_t text_start;
    size_t i = skip_bom_and_ws(h, &text_start);
    if (i == len)
        return not_a_trace(at_eof ? "only whitespace" : "no data in the first bytes");
    if (is_dasf_text(h, i))
        return (dfs_sniffed){.format = DFS_FMT_DASF_TEXT, .dialect = DFS_DIALECT_DASF};
    if (h.p[i] == '[')
        return sniff_array(h, text_start, i, at_eof);
    if (h.p[i] == '{')
        return sniff_object(h, text_start, i, at_eof);
    return sniff_other(h, i);
}
