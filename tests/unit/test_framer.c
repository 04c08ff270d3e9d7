/* test_framer.c - cutting JSON streams into records (src/parse/framer.c), fed in pieces the way
 * the reader pipeline does, and corpus files read end to end through the framer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "testutil.h"

#include "model/dups.h"
#include "parse/framer.h"

/* ---- a reader: feeds a framer the way read/pipeline.c does --------------------------------- */

typedef struct reader {
    tu_parser t;
    dfs_framer fr;
    /* what came out, as text, to compare runs */
    char *digest;
    size_t dlen, dcap;
    size_t events;
} reader;

static reader *reader_new(dfs_format format, bool structural)
{
    reader *r = calloc(1, sizeof *r);
    assert_non_null(r);
    tu_parser_init(&r->t, 3);
    dfs_framer_init(&r->fr, format, structural);
    return r;
}

static void reader_free(reader *r)
{
    tu_parser_free(&r->t);
    free(r->digest);
    free(r);
}

static void say(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(reader *r, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = sizeof line - 1;
    if (r->dlen + (size_t)n + 1 > r->dcap) {
        r->dcap = (r->dcap + (size_t)n + 1) * 2;
        r->digest = realloc(r->digest, r->dcap);
        assert_non_null(r->digest);
    }
    memcpy(r->digest + r->dlen, line, (size_t)n + 1);
    r->dlen += (size_t)n;
}

static const char *S(reader *r, dfs_str s)
{
    return dfs_strtab_get(r->t.table, s, NULL);
}

static void take_batch(reader *r)
{
    for (size_t i = 0; i < r->t.batch.events.n; i++) {
        const dfs_event *e = &r->t.batch.events.v[i];
        say(r, "ev off=%llu ts=%lld dur=%lld pid=%lld tid=%lld id=%llu ph=%c/%d fl=%x ty=%u "
               "name=%s cat=%s pstr=%s fname=%s host=%s nargs=%u\n",
            (unsigned long long)e->offset, (long long)e->ts, (long long)e->dur, (long long)e->pid,
            (long long)e->tid, (unsigned long long)e->id, e->ph, e->phase, e->flags, e->type,
            S(r, e->name), S(r, e->cat), S(r, e->pid_str), S(r, e->fname), S(r, e->host), e->nargs);
    }
    r->events += r->t.batch.events.n;
    dfs_batchbuf_clear(&r->t.batch);
}

static void summarize(reader *r)
{
    dfs_stream *st = &r->t.st;
    say(r, "records=%llu bad=%llu recovered=%llu lines=%llu open=%d close=%d dialect=%d "
           "clock=%d:%lld rel=%d scale=%d/%d defs=%zu names=%zu meta=%zu unres=%llu\n",
        (unsigned long long)st->records, (unsigned long long)st->bad_records,
        (unsigned long long)st->recovered, (unsigned long long)st->lines, st->saw_open,
        st->saw_close, st->dialect, st->has_clock_offset, (long long)st->clock_offset_ns,
        st->relative_time, st->scale_num, st->scale_den, st->defs.n, st->names.n, st->meta.n,
        (unsigned long long)st->unresolved_refs);
    for (size_t i = 0; i < st->meta.n; i++)
        say(r, "meta %s=%.60s\n", S(r, st->meta.v[i].key), S(r, st->meta.v[i].raw_json));
    for (int p = 0; p < DFS_PROB__COUNT; p++) {
        if (!st->diag.counts[p])
            continue;
        say(r, "problem %s=%llu", dfs_problem_code((dfs_problem)p),
            (unsigned long long)st->diag.counts[p]);
        for (size_t k = 0; k < st->diag.examples[p].n; k++)
            say(r, " [%llu@%llu]", (unsigned long long)st->diag.examples[p].v[k].line,
                (unsigned long long)st->diag.examples[p].v[k].offset);
        say(r, "\n");
    }
}

/* Feeds data in pieces of at most `piece` bytes: the unconsumed bytes are kept and fed again in
 * front of the next piece; DFS_FEED_FULL when the buffer reaches opt.max_record, and a last
 * DFS_FEED_FINAL call when the input is exhausted. */
static void feed_pieces(reader *r, const char *data, size_t n, size_t piece)
{
    char *buf = malloc(n + 1);
    assert_non_null(buf);
    size_t have = 0, pos = 0;
    uint64_t offset = 0;
    for (;;) {
        size_t add = n - pos < piece ? n - pos : piece;
        memcpy(buf + have, data + pos, add);
        pos += add;
        have += add;
        bool final = add == 0;
        int flags = final ? DFS_FEED_FINAL : (have >= r->t.opt.max_record ? DFS_FEED_FULL : 0);
        size_t used = dfs_framer_feed(&r->fr, &r->t.p, buf, have, offset, flags);
        assert_true(used <= have);
        if (flags & DFS_FEED_FULL)
            assert_true(used > 0);
        take_batch(r);
        if (final) {
            assert_int_equal(used, have);
            break;
        }
        offset += used;
        have -= used;
        memmove(buf, buf + used, have);
    }
    dfs_framer_finish(&r->fr, &r->t.p);
    dfs_stream *whole = &r->t.st; /* the file read whole: its duplicates judged, as a worker does */
    dfs_dups_judge(&r->t.st.diag, r->t.st.file, &whole, 1);
    take_batch(r);
    summarize(r);
    free(buf);
}

static reader *read_text(dfs_format format, bool structural, const char *text)
{
    reader *r = reader_new(format, structural);
    feed_pieces(r, text, strlen(text), strlen(text) + 1);
    return r;
}

static uint64_t count(reader *r, dfs_problem p)
{
    return r->t.st.diag.counts[p];
}

static uint64_t damage(reader *r)
{
    return dfs_diag_damage(&r->t.st.diag);
}

static const dfs_example *example(reader *r, dfs_problem p, size_t i)
{
    assert_true(i < r->t.st.diag.examples[p].n);
    return &r->t.st.diag.examples[p].v[i];
}

#define REC(id) "{\"id\":" #id ",\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":2," \
                "\"ts\":" #id "00,\"dur\":5,\"ph\":\"X\",\"args\":{\"ret\":4}}"

/* ---- line mode ----------------------------------------------------------------------------- */

static void test_line_framing(void **state)
{
    (void)state;
    const char *text = "\xEF\xBB\xBF[\r\n  " REC(1) ",\r\n\n\t" REC(2) ",\n]\n";
    reader *r = read_text(DFS_FMT_JSON_ARRAY, false, text);
    assert_true(r->t.st.records == 2);
    assert_int_equal(r->events, 2);
    assert_true(r->t.st.saw_open && r->t.st.saw_close);
    assert_true(r->t.st.lines == 5);
    assert_true(count(r, DFS_PROB_TRAILING_COMMA) == 1); /* the comma before ']' */
    assert_true(damage(r) == 0);
    assert_true(count(r, DFS_PROB_MISSING_CLOSE) == 0);
    reader_free(r);
    /* one record per line with commas between them: no trailing comma */
    r = read_text(DFS_FMT_JSON_ARRAY, false, "[\n" REC(1) ",\n" REC(2) "\n]");
    assert_true(r->t.st.records == 2);
    assert_true(count(r, DFS_PROB_TRAILING_COMMA) == 0);
    reader_free(r);
    /* "},]" on one line, and a comma at the end of the stream */
    r = read_text(DFS_FMT_JSON_ARRAY, false, "[" REC(1) ",]\n");
    assert_true(r->t.st.records == 1 && count(r, DFS_PROB_TRAILING_COMMA) == 1);
    reader_free(r);
    r = read_text(DFS_FMT_JSON_LINES, false, REC(1) ",\n" REC(2) ",\n");
    assert_true(r->t.st.records == 2 && count(r, DFS_PROB_TRAILING_COMMA) == 1);
    reader_free(r);
}

static void test_concatenated_arrays(void **state)
{
    (void)state;
    reader *r = read_text(DFS_FMT_JSON_ARRAY, false, "[\n" REC(1) "\n][\n" REC(2) "\n]\n");
    assert_true(r->t.st.records == 2);
    assert_true(r->t.st.bad_records == 0);
    assert_true(damage(r) == 0);
    reader_free(r);
}

static void test_missing_close(void **state)
{
    (void)state;
    reader *r = read_text(DFS_FMT_JSON_ARRAY, false, "[\n " REC(1) "\n" REC(2) "\n");
    assert_true(r->t.st.records == 2);
    assert_true(count(r, DFS_PROB_MISSING_CLOSE) == 1);
    assert_true(damage(r) == 0); /* a legal variant */
    reader_free(r);
    r = read_text(DFS_FMT_JSON_LINES, false, REC(1) "\n");
    assert_true(count(r, DFS_PROB_MISSING_CLOSE) == 0); /* no '[' */
    reader_free(r);
}

static void test_bad_line_numbers(void **state)
{
    (void)state;
    const char *text = "[\n" REC(1) "\n{\"id\":2,oops}\n" REC(3) "\nnot json\n]\n";
    reader *r = read_text(DFS_FMT_JSON_ARRAY, false, text);
    assert_true(r->t.st.records == 2);
    assert_true(r->t.st.bad_records == 2);
    assert_true(count(r, DFS_PROB_BAD_LINE) == 2);
    assert_true(example(r, DFS_PROB_BAD_LINE, 0)->line == 3);
    assert_true(example(r, DFS_PROB_BAD_LINE, 0)->offset == strlen("[\n" REC(1) "\n"));
    assert_true(example(r, DFS_PROB_BAD_LINE, 1)->line == 5);
    assert_non_null(strstr(example(r, DFS_PROB_BAD_LINE, 1)->detail, "not json"));
    assert_true(count(r, DFS_PROB_INCOMPLETE_FILE) == 0);
    reader_free(r);
}

static void test_torn_last_line(void **state)
{
    (void)state;
    reader *r = read_text(DFS_FMT_JSON_LINES, false, "  " REC(1) "\n" REC(2) "\n{\"id\":3,\"na");
    assert_true(r->t.st.records == 2);
    assert_true(r->t.st.bad_records == 1);
    assert_true(count(r, DFS_PROB_BAD_LINE) == 1);
    assert_true(count(r, DFS_PROB_INCOMPLETE_FILE) == 1);
    assert_true(example(r, DFS_PROB_INCOMPLETE_FILE, 0)->line == 3);
    reader_free(r);
    /* a complete last line without '\n' is fine */
    r = read_text(DFS_FMT_JSON_LINES, false, REC(1) "\n" REC(2));
    assert_true(r->t.st.records == 2 && damage(r) == 0);
    reader_free(r);
}

static void test_glued_record(void **state)
{
    (void)state;
    /* a record cut by the writer, the next one glued to it */
    const char *text = REC(1) "\n{\"id\":2,\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":1,\"ti" REC(3)
                       "\n" REC(4) "\n";
    reader *r = read_text(DFS_FMT_JSON_LINES, false, text);
    assert_true(r->t.st.records == 2);
    assert_true(r->t.st.recovered == 1);
    assert_int_equal(r->events, 3);
    assert_true(count(r, DFS_PROB_GLUED_RECORD) == 1);
    assert_true(r->t.st.bad_records == 1); /* the lost fragment */
    assert_true(count(r, DFS_PROB_BAD_LINE) == 0);
    assert_true(example(r, DFS_PROB_GLUED_RECORD, 0)->line == 2);
    reader_free(r);
    /* two whole records on one line: nothing lost */
    r = read_text(DFS_FMT_JSON_LINES, false, REC(1) REC(2) "\n");
    assert_true(r->t.st.records == 1 && r->t.st.recovered == 1 && r->t.st.bad_records == 0);
    assert_true(count(r, DFS_PROB_GLUED_RECORD) == 1);
    reader_free(r);
    /* a torn line whose args hold {"name": ...} is not glued, only bad */
    r = read_text(DFS_FMT_JSON_LINES, false,
                  "{\"name\":\"PR\",\"ph\":4,\"args\":{\"name\":\"core_affinity\",\"value\":[0,1,\n");
    assert_true(r->t.st.records == 0 && r->t.st.recovered == 0 && r->t.st.bad_records == 1);
    assert_true(count(r, DFS_PROB_GLUED_RECORD) == 0 && count(r, DFS_PROB_BAD_LINE) == 1);
    reader_free(r);
}

static void test_duplicates(void **state)
{
    (void)state;
    const char *text = REC(1) "\n" REC(1) "\n" REC(2) "\n" REC(1) "\n";
    reader *r = read_text(DFS_FMT_JSON_LINES, false, text);
    assert_true(r->t.st.records == 4);
    assert_int_equal(r->events, 4); /* kept by default */
    assert_true(count(r, DFS_PROB_DUPLICATE_RECORD) == 2); /* the later twins, at any distance */
    assert_true(example(r, DFS_PROB_DUPLICATE_RECORD, 0)->offset == strlen(REC(1)) + 1);
    assert_true(example(r, DFS_PROB_DUPLICATE_RECORD, 1)->offset == 3 * strlen(REC(1)) + 3);
    reader_free(r);
    r = reader_new(DFS_FMT_JSON_LINES, false);
    r->t.opt.dedup = true;
    feed_pieces(r, text, strlen(text), 7); /* twins cut across feeds */
    assert_true(r->t.st.records == 2); /* dropped duplicates are neither records nor events */
    assert_int_equal(r->events, 2);
    assert_true(count(r, DFS_PROB_DUPLICATE_RECORD) == 2);
    reader_free(r);
}

static void test_record_too_large(void **state)
{
    (void)state;
    size_t big = 10000;
    char *text = malloc(big + 1024);
    assert_non_null(text);
    int o = sprintf(text, REC(1) "\n{\"id\":2,\"name\":\"");
    memset(text + o, 'x', big);
    o += (int)big;
    o += sprintf(text + o, "\",\"ph\":\"i\"}\n" REC(3) "\n");
    for (size_t piece = 1000; piece <= 100000; piece *= 100) {
        reader *r = reader_new(DFS_FMT_JSON_LINES, false);
        r->t.opt.max_record = 4096;
        feed_pieces(r, text, (size_t)o, piece);
        assert_true(r->t.st.records == 2);
        assert_true(r->t.st.bad_records == 1);
        assert_true(count(r, DFS_PROB_RECORD_TOO_LARGE) == 1);
        assert_true(example(r, DFS_PROB_RECORD_TOO_LARGE, 0)->line == 2);
        assert_true(r->t.st.lines == 3);
        reader_free(r);
    }
    free(text);
}

static void test_dasf_text_lines(void **state)
{
    (void)state;
    const char *text =
        "trace: {\"name\": \"Compute\", \"timestamp\": 20.0, \"duration\": 5.0, \"phase\": \"X\", "
        "\"process_id\": \"c096\", \"thread_id\": \"w-1\", \"args\": {\"key\": \"k\"}}\n"
        "some log line\n"
        "trace:{\"name\": \"Managed Memory\", \"timestamp\": 30, \"phase\": \"I\", \"process_id\": 0}\n";
    reader *r = read_text(DFS_FMT_DASF_TEXT, false, text);
    assert_true(r->t.st.records == 2);
    assert_true(count(r, DFS_PROB_BAD_LINE) == 0); /* DASF ignores lines without the prefix */
    assert_true(count(r, DFS_PROB_DASF_OTHER_LINE) == 1);
    assert_int_equal(r->t.st.dialect, DFS_DIALECT_DASF);
    /* X: timestamp (the end) and duration in seconds */
    assert_non_null(strstr(r->digest, "ts=15000000000 dur=5000000000"));
    reader_free(r);
}

/* A line that is the prefix alone ("trace:", blanks or not) holds no record: an unparsable line,
 * read without looking past its end, which for the last line of a buffer is the buffer's end
 * (fuzz_lines found the read one byte beyond). The buffer is exactly the text, so that the
 * address sanitizer sees such a read. */
static void test_dasf_prefix_without_record(void **state)
{
    (void)state;
    const char *text = "trace:   \ntrace:";
    size_t n = strlen(text);
    char *buf = malloc(n);
    assert_non_null(buf);
    memcpy(buf, text, n);
    reader *r = reader_new(DFS_FMT_DASF_TEXT, false);
    assert_int_equal(dfs_framer_feed(&r->fr, &r->t.p, buf, n, 0, DFS_FEED_FINAL), n);
    dfs_framer_finish(&r->fr, &r->t.p);
    take_batch(r);
    summarize(r);
    assert_true(r->t.st.records == 0);
    assert_true(count(r, DFS_PROB_BAD_LINE) == 2);
    assert_true(count(r, DFS_PROB_DASF_OTHER_LINE) == 0);
    free(buf);
    reader_free(r);
}

/* ---- structural mode ------------------------------------------------------------------------ */

static const char *KINETO_OBJECT =
    "\n{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU [0]\"}],\n"
    "  \"traceEvents\": [\n  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\",\n"
    "    \"pid\": 1, \"tid\": 2, \"ts\": 4203669604595.407, \"dur\": 1.5,\n"
    "    \"args\": {\"External id\": 3}\n  },\n  {\n    \"name\": \"Record Window End\", "
    "\"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"\", \"tid\": \"\", \"ts\": 4203669613175.703\n  },\n"
    "  {}\n  ],\n  \"traceName\": \"./logs/x.json\",\n  \"displayTimeUnit\": \"ms\",\n"
    "  \"baseTimeNanoseconds\": 1735632360000000000\n}\n";

static void test_object_form(void **state)
{
    (void)state;
    reader *r = read_text(DFS_FMT_JSON_OBJECT, true, KINETO_OBJECT);
    assert_true(r->t.st.records == 3);
    assert_int_equal(r->events, 2);
    assert_true(r->t.st.ph_written['?'] == 1);
    assert_int_equal(r->t.st.dialect, DFS_DIALECT_KINETO);
    assert_true(r->t.st.has_clock_offset);
    assert_true(r->t.st.clock_offset_ns == INT64_C(1735632360000000000));
    assert_int_equal(r->t.st.meta.n, 5);
    assert_string_equal(S(r, r->t.st.meta.v[0].key), "schemaVersion");
    assert_string_equal(S(r, r->t.st.meta.v[0].raw_json), "1");
    assert_string_equal(S(r, r->t.st.meta.v[1].raw_json), "[{\"id\": 0, \"name\": \"GPU [0]\"}]");
    assert_string_equal(S(r, r->t.st.meta.v[2].key), "traceName");
    assert_string_equal(S(r, r->t.st.meta.v[2].raw_json), "\"./logs/x.json\"");
    assert_string_equal(S(r, r->t.st.meta.v[4].key), "baseTimeNanoseconds");
    assert_true(r->t.st.saw_open && r->t.st.saw_close);
    assert_true(count(r, DFS_PROB_TRUNCATED_CONTAINER) == 0);
    assert_true(damage(r) == 0);
    assert_non_null(strstr(r->digest, "ts=4203669604595407 dur=1500"));
    /* line numbers of a pretty-printed file */
    assert_true(example(r, DFS_PROB_EMPTY_RECORD, 0)->line == 15);
    reader_free(r);
}

static void test_tf_profiler_metadata(void **state)
{
    (void)state;
    reader *r = read_text(DFS_FMT_JSON_OBJECT, true,
                          "{\"displayTimeUnit\": \"ns\", \"metadata\": {\"highres-ticks\": true}, "
                          "\"traceEvents\": [{\"ph\": \"X\", \"pid\": 49, \"tid\": 1, \"ts\": 1166.027, "
                          "\"name\": \"W\", \"dur\": 1.133}, {}]}");
    assert_int_equal(r->t.st.dialect, DFS_DIALECT_TF_PROFILER);
    assert_true(r->t.st.relative_time);
    assert_true(r->t.st.records == 2);
    reader_free(r);
}

static void test_array_structural_matches_lines(void **state)
{
    (void)state;
    const char *lines = "[\n" REC(1) ",\n" REC(2) ",\n{\"name\":\"x\",\"ph\":\"i\"}\n]\n";
    const char *pretty = "[\n  {\"id\":1,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\n   \"tid\":2,"
                         "\"ts\":100,\"dur\":5,\"ph\":\"X\",\"args\":{\"ret\":4}},\n" REC(2)
                         ",{\"name\":\"x\",\"ph\":\"i\"}]";
    reader *a = read_text(DFS_FMT_JSON_ARRAY, false, lines);
    reader *b = read_text(DFS_FMT_JSON_ARRAY, true, lines);
    reader *c = read_text(DFS_FMT_JSON_ARRAY, true, pretty);
    assert_true(a->t.st.records == 3 && b->t.st.records == 3 && c->t.st.records == 3);
    assert_int_equal(b->events, 3);
    assert_int_equal(c->events, 3);
    assert_true(damage(b) == 0 && damage(c) == 0);
    assert_true(b->t.st.saw_close && c->t.st.saw_close);
    reader_free(a);
    reader_free(b);
    reader_free(c);
}

static void test_structural_resync(void **state)
{
    (void)state;
    /* bytes between records, a balanced record that does not parse, a string broken by a
     * newline: each is one bad record and reading goes on */
    reader *r = read_text(DFS_FMT_JSON_ARRAY, true,
                          "[" REC(1) " garbage " REC(2) ", {\"a\" 1}, " REC(3)
                          ",\n{\"name\":\"broken\n\",\"ph\":\"i\"},\n" REC(4) "]");
    assert_true(r->t.st.records == 4);
    assert_true(r->t.st.bad_records == 3);
    assert_true(count(r, DFS_PROB_BAD_RECORD) == 3);
    assert_true(r->t.st.saw_close);
    reader_free(r);
}

static void test_structural_trailing_comma(void **state)
{
    (void)state;
    reader *r = read_text(DFS_FMT_JSON_ARRAY, true, "[" REC(1) "," REC(2) ",]");
    assert_true(r->t.st.records == 2 && count(r, DFS_PROB_TRAILING_COMMA) == 1);
    reader_free(r);
    r = read_text(DFS_FMT_JSON_ARRAY, true, "[" REC(1) "," REC(2) "]");
    assert_true(count(r, DFS_PROB_TRAILING_COMMA) == 0);
    reader_free(r);
    r = read_text(DFS_FMT_JSON_ARRAY, true, "[" REC(1) ",");
    assert_true(count(r, DFS_PROB_TRAILING_COMMA) == 1);
    assert_true(count(r, DFS_PROB_MISSING_CLOSE) == 1);
    reader_free(r);
}

static void test_truncated_container(void **state)
{
    (void)state;
    size_t n = strlen(KINETO_OBJECT);
    const char *cut = strstr(KINETO_OBJECT, "\"Record Window End\"");
    reader *r = reader_new(DFS_FMT_JSON_OBJECT, true);
    feed_pieces(r, KINETO_OBJECT, (size_t)(cut - KINETO_OBJECT), n);
    assert_true(r->t.st.records == 1);
    assert_true(r->t.st.bad_records == 1); /* the record cut in the middle */
    assert_true(count(r, DFS_PROB_TRUNCATED_CONTAINER) == 1);
    assert_false(r->t.st.has_clock_offset);
    reader_free(r);
    /* an array cut inside a record: the file is incomplete */
    r = read_text(DFS_FMT_JSON_ARRAY, true, "[" REC(1) ", {\"name\":\"a\",\"ph\"");
    assert_true(r->t.st.records == 1 && r->t.st.bad_records == 1);
    assert_true(count(r, DFS_PROB_INCOMPLETE_FILE) == 1);
    assert_true(count(r, DFS_PROB_MISSING_CLOSE) == 1);
    reader_free(r);
}

static void test_structural_too_large(void **state)
{
    (void)state;
    size_t big = 10000;
    char *text = malloc(big + 80000);
    assert_non_null(text);
    int o = sprintf(text, "{\"traceEvents\":[" REC(1) ",{\"name\":\"");
    memset(text + o, 'x', big);
    o += (int)big;
    o += sprintf(text + o, "\",\"args\":{\"a\":[1,{}]},\"ph\":\"i\"}," REC(3) "],\"big\":\"");
    memset(text + o, 'y', 70000);
    o += 70000;
    o += sprintf(text + o, "\",\"after\":true}");
    for (size_t piece = 977; piece <= 1000000; piece *= 1000) {
        reader *r = reader_new(DFS_FMT_JSON_OBJECT, true);
        r->t.opt.max_record = 4096;
        feed_pieces(r, text, (size_t)o, piece);
        assert_true(r->t.st.records == 2);
        assert_true(count(r, DFS_PROB_RECORD_TOO_LARGE) == 1);
        assert_true(count(r, DFS_PROB_TRUNCATED_CONTAINER) == 0);
        assert_int_equal(r->t.st.meta.n, 2);
        size_t len;
        dfs_strtab_get(r->t.table, r->t.st.meta.v[0].raw_json, &len);
        /* cut at DFS_FILEMETA_MAX, or earlier when the reader's buffer is smaller */
        assert_true(len >= 4096 && len <= DFS_FILEMETA_MAX);
        if (piece > (size_t)o)
            assert_int_equal(len, DFS_FILEMETA_MAX);
        assert_string_equal(S(r, r->t.st.meta.v[1].key), "after");
        reader_free(r);
    }
    free(text);
}

/* ---- any piece size gives the same result ----------------------------------------------------- */

static void check_pieces(dfs_format format, bool structural, const char *text, bool dedup)
{
    size_t n = strlen(text);
    reader *whole = reader_new(format, structural);
    whole->t.opt.dedup = dedup;
    feed_pieces(whole, text, n, n + 1);
    for (size_t piece = 1; piece <= 80; piece += piece < 40 ? 1 : 7) {
        reader *r = reader_new(format, structural);
        r->t.opt.dedup = dedup;
        feed_pieces(r, text, n, piece);
        if (r->dlen != whole->dlen || memcmp(r->digest, whole->digest, r->dlen) != 0)
            fail_msg("piece %zu differs:\n%s\n--- whole:\n%s", piece, r->digest, whole->digest);
        reader_free(r);
    }
    reader_free(whole);
}

static void test_pieces_line_mode(void **state)
{
    (void)state;
    const char *text =
        "\xEF\xBB\xBF[\r\n"
        "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
        "\"args\":{\"name\":\"host\",\"value\":9509357668201227806}}\r\n"
        " " REC(2) ",\n" REC(2) "\n\n" REC(7) "\n{\"id\":3,oops}\n"
        "{\"id\":4,\"name\":\"w\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":2,\"ts\":5,\"dur\":1,\"ph\":\"X\","
        "\"args\":{\"hhash\":9509357668201227806,\"fhash\":17427260559328612924}}\n"
        "{\"id\":5,\"name\":\"cut\",\"pid\":1" REC(6) "\n"
        "{\"name\":\"a\\\"b\",\"ph\":\"i\",\"ts\":\"17\"}\n"
        "][\n" REC(8) ",\n{\"id\":9,\"name\":\"torn";
    check_pieces(DFS_FMT_JSON_ARRAY, false, text, false);
    check_pieces(DFS_FMT_JSON_ARRAY, false, text, true);
}

static void test_pieces_structural(void **state)
{
    (void)state;
    check_pieces(DFS_FMT_JSON_OBJECT, true, KINETO_OBJECT, false);
    check_pieces(DFS_FMT_JSON_ARRAY, true,
                 "[" REC(1) " junk " REC(2) ", {\"a\" 1},\n{\"s\":\"x\\\"}\\\\\",\"ph\":\"i\"},"
                 "\n{\"name\":\"br\noken\",\"ph\":\"i\"}," REC(2) "," REC(2) ",{}][" REC(3) ",",
                 true);
    check_pieces(DFS_FMT_JSON_OBJECT, true,
                 "{\"a\":\"}\\\"]\",\"b\":[[{\"c\":1}]],\"traceEvents\":[" REC(1) "],\"n\":-1.5,"
                 "\"t\":true,\"baseTimeNanoseconds\":\"5\"}",
                 false);
}

/* ---- corpus files end to end ------------------------------------------------------------------ */

static char *load(const char *path, size_t *n)
{
    gzFile g = gzopen(path, "rb");
    if (!g)
        return NULL;
    size_t cap = 1 << 20, len = 0;
    char *b = malloc(cap);
    for (;;) {
        if (len == cap)
            b = realloc(b, cap *= 2);
        int got = gzread(g, b + len, (unsigned)(cap - len));
        if (got <= 0)
            break; /* the end, or a truncated member: keep what was inflated */
        len += (size_t)got;
    }
    gzclose(g);
    *n = len;
    return b;
}

static void phase_letters(reader *r, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = '\0';
    for (int c = 0; c < 128; c++)
        if (r->t.st.ph_written[c] && o < cap)
            o += (size_t)snprintf(out + o, cap - o, "%s%c:%llu", o ? " " : "", c,
                                  (unsigned long long)r->t.st.ph_written[c]);
}

typedef struct corpus_case {
    const char *path;
    dfs_format format;
    bool structural;
    uint64_t records, bad;
    const char *phases;
} corpus_case;

static reader *read_corpus(const corpus_case *c, bool structural)
{
    const char *path = tu_trace(c->path);
    size_t n;
    char *data = path ? load(path, &n) : NULL;
    if (!data)
        return NULL;
    reader *r = reader_new(c->format, structural);
    feed_pieces(r, data, n, 1 << 20);
    free(data);
    char letters[256];
    phase_letters(r, letters, sizeof letters);
    if (r->t.st.records != c->records || r->t.st.bad_records != c->bad ||
        strcmp(letters, c->phases) != 0)
        fail_msg("%s (%s): records %llu bad %llu phases \"%s\", want %llu %llu \"%s\"", c->path,
                 structural ? "structural" : "lines", (unsigned long long)r->t.st.records,
                 (unsigned long long)r->t.st.bad_records, letters,
                 (unsigned long long)c->records, (unsigned long long)c->bad, c->phases);
    return r;
}

static const corpus_case CORPUS[] = {
    {"dftracer/dlio-unet3d-hdf5-8rank/trace-0-of-8.pfw", DFS_FMT_JSON_ARRAY, false, 2292, 0, "M:31 X:2261"},
    {"dftracer/dlio-unet3d-hdf5-8rank/trace-5-of-8.pfw", DFS_FMT_JSON_ARRAY, false, 2284, 0, "M:30 X:2254"},
    {"dftracer/legacy-2023/dfanalyzer_test.pfw", DFS_FMT_JSON_ARRAY, false, 1012, 0, "X:1012"},
    {"dftracer/legacy-2023/dfanalyzer_test.pfw.gz", DFS_FMT_JSON_ARRAY, false, 1012, 0, "X:1012"},
    {"dftracer/legacy-2023/examples_graph_visualization_test_data1.pfw", DFS_FMT_JSON_ARRAY, false, 12, 0, "X:12"},
    {"dftracer/edge-cases/synthetic-v1-crashed.pfw", DFS_FMT_JSON_LINES, false, 3, 1, "1:1 2:1 3:1"},
    {"dftracer/edge-cases/synthetic-v2-multimember.pfw.gz", DFS_FMT_JSON_LINES, false, 20, 0, "1:4 2:4 3:8 4:4"},
    {"dftracer/edge-cases/synthetic-v2-truncated-tail.pfw.gz", DFS_FMT_JSON_LINES, false, 19, 1, "1:4 2:4 3:8 4:3"},
    {"dftracer/cm1-48rank/cm1-DEFAULT-3537780-preload.pfw.gz", DFS_FMT_JSON_ARRAY, false, 8791, 0, "M:709 X:8082"},
    {"smdebug/tests/profiler/resources/1591160699.algo-1.json", DFS_FMT_JSON_LINES, false, 14, 0, "?:14"},
    {"smdebug/tests/profiler/resources/1591160699.algo-1.json.corrupt", DFS_FMT_JSON_LINES, false, 13, 1, "?:13"},
    {"smdebug/tests/profiler/resources/horovod_timeline_small.json", DFS_FMT_JSON_ARRAY, false, 57, 0, "B:4 E:2 M:30 X:19 i:2"},
    {"smdebug/tests/profiler/resources/1589314018481947000_1234-testhost_model_timeline.json", DFS_FMT_JSON_ARRAY, false, 53, 0, "M:4 X:49"},
    {"composer/ep0-ba5-rank0.synthetic.json", DFS_FMT_JSON_ARRAY, false, 63, 0, "B:18 C:15 E:18 M:8 X:4"},
    {"composer/ep0-ba5-rank1.synthetic.json", DFS_FMT_JSON_ARRAY, false, 63, 0, "B:18 C:15 E:18 M:8 X:4"},
    {"composer/merged_trace.from_synthetic.json", DFS_FMT_JSON_ARRAY, false, 134, 0, "B:36 C:30 E:36 M:26 X:6"},
    {"chrome-json/flow_events_json_v1.json", DFS_FMT_JSON_OBJECT, true, 10, 0, "X:5 f:2 s:2 t:1"},
    {"chrome-json/flow_events_json_v2.json", DFS_FMT_JSON_OBJECT, true, 8, 0, "B:1 E:1 X:5 i:1"},
    {"smdebug/historical/ip-172-31-19-241.trace.json", DFS_FMT_JSON_OBJECT, true, 367, 0, "?:1 M:110 X:256"},
    {"hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", DFS_FMT_JSON_OBJECT, true, 220, 0, "M:60 X:113 f:25 i:2 s:20"},
    {"hta/trace_filter/sampled_rank-0.json.gz", DFS_FMT_JSON_OBJECT, true, 4855, 0, "M:44 X:4811"},
    {"hta/rank_non_gpu/rank_non_gpu.json.gz", DFS_FMT_JSON_OBJECT, true, 2467, 0, "X:2467"},
    {"kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz", DFS_FMT_JSON_OBJECT, true, 75718, 0, "M:20 X:44666 f:9096 i:12840 s:9096"},
};

static void test_corpus_counts(void **state)
{
    (void)state;
    if (!tu_trace("MANIFEST.md"))
        skip();
    for (size_t i = 0; i < sizeof CORPUS / sizeof *CORPUS; i++) {
        reader *r = read_corpus(&CORPUS[i], CORPUS[i].structural);
        if (!r)
            fail_msg("cannot read %s", CORPUS[i].path);
        reader_free(r);
        /* line-oriented arrays read by bracket depth give the same records */
        if (CORPUS[i].format == DFS_FMT_JSON_ARRAY) {
            r = read_corpus(&CORPUS[i], true);
            reader_free(r);
        }
    }
}

static const corpus_case *find_case(const char *path)
{
    for (size_t i = 0; i < sizeof CORPUS / sizeof *CORPUS; i++)
        if (strcmp(CORPUS[i].path, path) == 0)
            return &CORPUS[i];
    fail();
    return NULL;
}

static void test_corpus_details(void **state)
{
    (void)state;
    if (!tu_trace("MANIFEST.md"))
        skip();
    reader *r = read_corpus(find_case("dftracer/dlio-unet3d-hdf5-8rank/trace-0-of-8.pfw"), false);
    assert_int_equal(r->t.st.dialect, DFS_DIALECT_DFTRACER_V1);
    assert_true(count(r, DFS_PROB_TS_REGRESSION) == 547); /* spec section 5.6 */
    assert_true(r->t.st.unresolved_refs == 0);              /* every reference is defined before */
    assert_true(r->t.st.saw_open && r->t.st.saw_close);
    assert_true(damage(r) == 0);
    reader_free(r);

    r = read_corpus(find_case("dftracer/edge-cases/synthetic-v1-crashed.pfw"), false);
    assert_true(count(r, DFS_PROB_INCOMPLETE_FILE) == 1);
    assert_int_equal(r->t.st.dialect, DFS_DIALECT_DFTRACER_V2);
    reader_free(r);

    r = read_corpus(find_case("dftracer/legacy-2023/dfanalyzer_test.pfw"), false);
    assert_int_equal(r->t.st.dialect, DFS_DIALECT_DFTRACER_2023);
    assert_true(count(r, DFS_PROB_MISSING_CLOSE) == 1);
    assert_true(count(r, DFS_PROB_STRING_NUMBER) == 1012);
    reader_free(r);

    r = read_corpus(find_case("hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"), true);
    assert_int_equal(r->t.st.dialect, DFS_DIALECT_KINETO);
    assert_true(r->t.st.clock_offset_ns == INT64_C(1735632360000000000));
    reader_free(r);

    r = read_corpus(find_case("smdebug/historical/ip-172-31-19-241.trace.json"), true);
    assert_int_equal(r->t.st.dialect, DFS_DIALECT_TF_PROFILER);
    assert_true(r->t.st.relative_time);
    assert_true(count(r, DFS_PROB_EMPTY_RECORD) == 1);
    reader_free(r);

    r = read_corpus(find_case("smdebug/tests/profiler/resources/"
                              "1589314018481947000_1234-testhost_model_timeline.json"), false);
    assert_int_equal(r->t.st.dialect, DFS_DIALECT_SMDEBUG_FRAMEWORK);
    assert_true(r->t.st.clock_offset_ns == INT64_C(1589314018457990000));
    reader_free(r);

    r = read_corpus(find_case("smdebug/tests/profiler/resources/1591160699.algo-1.json.corrupt"), false);
    assert_int_equal(r->t.st.dialect, DFS_DIALECT_SMDEBUG_SYSTEM);
    assert_true(count(r, DFS_PROB_BAD_LINE) == 1);
    reader_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_framing),
        cmocka_unit_test(test_concatenated_arrays),
        cmocka_unit_test(test_missing_close),
        cmocka_unit_test(test_bad_line_numbers),
        cmocka_unit_test(test_torn_last_line),
        cmocka_unit_test(test_glued_record),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_record_too_large),
        cmocka_unit_test(test_dasf_text_lines),
        cmocka_unit_test(test_dasf_prefix_without_record),
        cmocka_unit_test(test_object_form),
        cmocka_unit_test(test_tf_profiler_metadata),
        cmocka_unit_test(test_array_structural_matches_lines),
        cmocka_unit_test(test_structural_resync),
        cmocka_unit_test(test_structural_trailing_comma),
        cmocka_unit_test(test_truncated_container),
        cmocka_unit_test(test_structural_too_large),
        cmocka_unit_test(test_pieces_line_mode),
        cmocka_unit_test(test_pieces_structural),
        cmocka_unit_test(test_corpus_counts),
        cmocka_unit_test(test_corpus_details),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
