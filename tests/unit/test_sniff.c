/* test_sniff.c - recognising inputs from their first bytes (read/sniff.h). */
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/diag.h"
#include "read/gzip.h"
#include "read/sniff.h"

#define HEAD (64 * 1024)

static dfs_sniffed sniff_str(const char *s, bool at_eof)
{
    return dfs_sniff((const unsigned char *)s, strlen(s), at_eof);
}

#define assert_format(s, fmt) assert_int_equal((s).format, (fmt))

/* ---- synthetic heads --------------------------------------------------------------------- */

static void test_empty_and_blank(void **state)
{
    (void)state;
    dfs_sniffed s = dfs_sniff(NULL, 0, true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
    assert_string_equal(s.why, "empty file");
    s = sniff_str(" \n\t\r\n", true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
    assert_non_null(s.why);
    s = sniff_str("\xEF\xBB\xBF", true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
}

static void test_json_lines_variants(void **state)
{
    (void)state;
    static const char *const heads[] = {
        "{\"name\":\"read\",\"ph\":\"X\",\"ts\":1,\"dur\":2}\n{\"name\":\"b\"}\n",
        "\xEF\xBB\xBF{\"name\":\"read\",\"ph\":\"X\",\"ts\":1}\n",            /* BOM */
        "{\"name\":\"read\",\"ph\":\"X\",\"ts\":1}\r\n{\"ph\":\"X\"}\r\n",    /* CRLF */
        "  {\"name\":\"read\",\"cat\":\"POSIX\",\"ts\":1}\n",                 /* leading spaces */
        "\n\n{\"name\":\"a\",\"ts\":\"5\"},\n",                                /* trailing comma */
        "{\"name\":\"a\",\"cat\":\"c\"}",                                      /* no newline at EOF */
    };
    for (size_t i = 0; i < sizeof heads / sizeof *heads; i++) {
        dfs_sniffed s = sniff_str(heads[i], true);
        assert_format(s, DFS_FMT_JSON_LINES);
        assert_false(s.structural);
    }
}

static void test_json_lines_need_events(void **state)
{
    (void)state;
    dfs_sniffed s = sniff_str("{\"steps\": {\"columns\": [1, 2]}}\n{\"steps\": 3}\n", true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
    s = sniff_str("{\"foo\": 1, \"bar\": [1, 2]}", true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
    s = sniff_str("{\"name\": \"x\", \"value\": 3}\n", true); /* name alone is not enough */
    assert_format(s, DFS_FMT_NOT_A_TRACE);
    s = sniff_str("{}\n", true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
    /* smdebug system metrics have no ph/name/ts */
    s = sniff_str("{\"Type\": \"cpu\", \"Name\":\"cpu0\", \"Dimension\": \"CPUUtilization\", "
                  "\"Value\":4.76,\"NodeId\":\"algo-1\",\"Timestamp\":1591160699.45}\n",
                  true);
    assert_format(s, DFS_FMT_JSON_LINES);
    assert_int_equal(s.dialect, DFS_DIALECT_SMDEBUG_SYSTEM);
}

static void test_object_form(void **state)
{
    (void)state;
    dfs_sniffed s = sniff_str("{\"traceEvents\": [{\"ph\":\"X\"}]}", true);
    assert_format(s, DFS_FMT_JSON_OBJECT);
    assert_true(s.structural);
    assert_int_equal(s.dialect, DFS_DIALECT_CHROME);
    s = sniff_str("\n{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n", false);
    assert_format(s, DFS_FMT_JSON_OBJECT);
    assert_int_equal(s.dialect, DFS_DIALECT_KINETO);
    /* traceEvents nested deeper, or inside strings, does not count */
    s = sniff_str("{\"a\": {\"traceEvents\": []}}", true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
    s = sniff_str("{\"name\": \"traceEvents\", \"ph\": \"X\"}\n", true);
    assert_format(s, DFS_FMT_JSON_LINES);
    s = sniff_str("{\"x\": \"\\\"traceEvents\\\": [\", \"ph\": \"i\"}\n", true);
    assert_format(s, DFS_FMT_JSON_LINES);
    /* TensorFlow profiler */
    s = sniff_str("{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},"
                  "\"traceEvents\":[{\"ph\":\"M\"}]}",
                  true);
    assert_format(s, DFS_FMT_JSON_OBJECT);
    assert_int_equal(s.dialect, DFS_DIALECT_TF_PROFILER);
}

/* The head ends inside the first object before traceEvents (Kineto puts KBs first). */
static void test_object_cut_before_trace_events(void **state)
{
    (void)state;
    char head[8192];
    int n = snprintf(head, sizeof head, "\n{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
    while ((size_t)n < sizeof head - 64)
        n += snprintf(head + n, sizeof head - (size_t)n, "    {\"id\": 0, \"name\": \"GPU\"},\n");
    for (int eof = 0; eof < 2; eof++) {
        dfs_sniffed s = dfs_sniff((const unsigned char *)head, (size_t)n, eof);
        assert_format(s, DFS_FMT_JSON_OBJECT);
        assert_true(s.structural);
        assert_int_equal(s.dialect, DFS_DIALECT_KINETO);
    }
    /* unknown keys only: not a trace */
    n = snprintf(head, sizeof head, "{\"steps\": {\"columns\": [");
    while ((size_t)n < sizeof head - 64)
        n += snprintf(head + n, sizeof head - (size_t)n, "{\"type\": \"string\"}, ");
    assert_format(dfs_sniff((const unsigned char *)head, (size_t)n, false), DFS_FMT_NOT_A_TRACE);
    /* event keys first, then a record longer than the head: JSON lines */
    n = snprintf(head, sizeof head, "{\"name\":\"x\",\"ph\":\"X\",\"ts\":1,\"args\":{\"a\":\"");
    while ((size_t)n < sizeof head - 64)
        head[n++] = 'a';
    dfs_sniffed s = dfs_sniff((const unsigned char *)head, (size_t)n, false);
    assert_format(s, DFS_FMT_JSON_LINES);
    assert_false(s.structural);
}

static void test_arrays(void **state)
{
    (void)state;
    dfs_sniffed s = sniff_str("[\n{\"name\":\"a\",\"ph\":\"X\",\"ts\":1},\n{\"ph\":\"X\"}\n]\n", true);
    assert_format(s, DFS_FMT_JSON_ARRAY);
    assert_false(s.structural);
    s = sniff_str("[\n    {\"name\": \"a\", \"ph\": \"M\"},\n    {\"ph\":\"X\"},\n", false);
    assert_format(s, DFS_FMT_JSON_ARRAY);
    assert_false(s.structural);
    /* pretty-printed */
    s = sniff_str("[\n  {\n    \"name\": \"a\",\n    \"ph\": \"X\"\n  },\n  {\n", false);
    assert_format(s, DFS_FMT_JSON_ARRAY);
    assert_true(s.structural);
    /* one line */
    s = sniff_str("[{\"name\":\"a\",\"ph\":\"X\"},{\"name\":\"b\",\"ph\":\"X\"}]", true);
    assert_format(s, DFS_FMT_JSON_ARRAY);
    assert_true(s.structural);
    s = sniff_str("[\n{\"name\":\"a\",\"ph\":\"X\"}, {\"name\":\"b\",\"ph\":\"X\"}\n", false);
    assert_true(s.structural); /* two records on the first line */
    s = sniff_str("[{\"name\":\"a\",\"ph\":\"X\"},\n{\"name\":\"b\",\"ph\":\"X\"}\n", false);
    assert_true(s.structural); /* the first record shares its line with '[' */
    s = sniff_str("[\r\n{\"name\":\"a\",\"ph\":\"X\"},\r\n", false);
    assert_false(s.structural);
    s = sniff_str("[]", true);
    assert_format(s, DFS_FMT_JSON_ARRAY);
    s = sniff_str("[\n", false);
    assert_format(s, DFS_FMT_JSON_ARRAY);
    s = sniff_str("[1, 2, 3]", true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
}

static void test_dasf(void **state)
{
    (void)state;
    unsigned char rec[32] = {0, 0, 0, 0, 0, 0, 0, 5, 0x81, 0xA1, 'a', 0xC0, 0x90};
    dfs_sniffed s = dfs_sniff(rec, 13, true);
    assert_format(s, DFS_FMT_DASF);
    assert_int_equal(s.dialect, DFS_DIALECT_DASF);
    assert_false(s.structural);
    assert_format(dfs_sniff(rec, 12, true), DFS_FMT_NOT_A_TRACE); /* N > len - 8 at EOF */
    assert_format(dfs_sniff(rec, 12, false), DFS_FMT_DASF);       /* the rest may follow */
    rec[7] = 0;                                                   /* N = 0 */
    assert_format(dfs_sniff(rec, 13, true), DFS_FMT_NOT_A_TRACE);
    rec[7] = 5;
    rec[3] = 1; /* N = 2^32 + 5: bogus */
    assert_format(dfs_sniff(rec, 13, false), DFS_FMT_NOT_A_TRACE);
    assert_format(dfs_sniff(rec, 13, true), DFS_FMT_NOT_A_TRACE);
    rec[3] = 0;
    rec[5] = 0x10; /* N = 1 MiB + 5, plausible while the file goes on */
    assert_format(dfs_sniff(rec, 13, false), DFS_FMT_DASF);
    rec[5] = 0;
    rec[8] = 0xA4; /* a string, not a map */
    assert_format(dfs_sniff(rec, 13, true), DFS_FMT_NOT_A_TRACE);
    rec[8] = 0xDE;
    assert_format(dfs_sniff(rec, 13, true), DFS_FMT_DASF);
    assert_format(dfs_sniff(rec, 8, false), DFS_FMT_NOT_A_TRACE); /* too short to tell */
}

static void test_tfevents_rejected(void **state)
{
    (void)state;
    static const unsigned char tf[] = {0x18, 0, 0, 0, 0, 0, 0, 0, 0xa3, 0x7f, 0x4b, 0x22, 0x09,
                                       0, 0, 0, 0x26, 0xc6, 0xca, 0xd7, 0x41, 0x1a, 0x0d, 'b'};
    dfs_sniffed s = dfs_sniff(tf, sizeof tf, true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
    assert_non_null(s.why);
    s = dfs_sniff(tf, sizeof tf, false);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
}

static void test_dasf_text_and_others(void **state)
{
    (void)state;
    dfs_sniffed s = sniff_str("trace: {\"name\": \"Compute\", \"phase\": \"X\"}\n", true);
    assert_format(s, DFS_FMT_DASF_TEXT);
    assert_int_equal(s.dialect, DFS_DIALECT_DASF);
    s = sniff_str("trace:{\"name\": \"Compute\"}\n", false);
    assert_format(s, DFS_FMT_DASF_TEXT);
    s = sniff_str("trace: nothing\n", true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);

    s = sniff_str("\"\xf9L\nV\x08\x01", true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
    assert_string_equal(s.why, "protobuf data");
    s = sniff_str("\xfb)\x03\xfa\x01~", true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
    assert_string_equal(s.why, "Python marshal data");
    s = sniff_str("# Trace corpus\n", true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
    s = sniff_str("\x1f\x8b\x08", true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
    s = sniff_str("\x12\x1b\x09\x08\xac\x1c", true);
    assert_format(s, DFS_FMT_NOT_A_TRACE);
}

static void test_dialects(void **state)
{
    (void)state;
    static const struct {
        const char *head;
        dfs_dialect d;
    } cases[] = {
        {"{\"id\":8,\"name\":\"a\",\"cat\":\"CPP_APP\",\"type\":9,\"ts\":1,\"ph\":1}\n",
         DFS_DIALECT_DFTRACER_V2},
        {"[\n {\"id\":\"0\",\"name\":\"read\",\"cat\":\"POSIX\",\"ts\":\"1698\",\"dur\":\"1\","
         "\"ph\":\"X\"}\n",
         DFS_DIALECT_DFTRACER_2023},
        {"[\n{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"ph\":\"M\",\"args\":{}}\n",
         DFS_DIALECT_DFTRACER_V1},
        {"[\n{\"id\":1,\"name\":\"read\",\"cat\":\"POSIX\",\"ph\":\"X\",\"ts\":1,"
         "\"args\":{\"hhash\":5,\"level\":1}}\n",
         DFS_DIALECT_DFTRACER_V1},
        {"[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": "
         "{\"start_time_since_epoch_in_micros\":1589314018457990}},\n",
         DFS_DIALECT_SMDEBUG_FRAMEWORK},
        {"[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": "
         "{\"start_time_since_epoch_in_micros\":1}},\n{\"name\": \"CYCLE_START\", \"ph\": "
         "\"i\"}\n",
         DFS_DIALECT_HOROVOD},
        {"[\n{\"name\": \"process_name\", \"ph\": \"M\", \"args\": {}},\n{\"name\": "
         "\"global_rank\", \"ph\": \"M\", \"args\": {\"value\": 0}},\n",
         DFS_DIALECT_COMPOSER},
        {"[\n{\"name\": \"event/batch\", \"ph\": \"B\", \"ts\": 1}\n", DFS_DIALECT_COMPOSER},
        {"{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\"}]}",
         DFS_DIALECT_KINETO},
        {"{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"args\":{\"name\":"
         "\"/host:CPU\"}}]}",
         DFS_DIALECT_TF_PROFILER},
        {"[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1}]", DFS_DIALECT_CHROME},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        dfs_sniffed s = sniff_str(cases[i].head, false);
        assert_int_not_equal(s.format, DFS_FMT_NOT_A_TRACE);
        if (s.dialect != cases[i].d)
            fail_msg("case %zu: dialect %d, expected %d", i, s.dialect, cases[i].d);
    }
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Every prefix of realistic heads, and random bytes, must be handled without a crash. */
static void test_prefixes_and_garbage(void **state)
{
    (void)state;
    static const char *const heads[] = {
        ("\n{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"a\": \"b\\\"}\"}],\n"
         "  \"traceEvents\": [\n  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\"\n  }\n]}\n"),
        "[\n {\"id\":\"0\",\"name\":\"__lxstat\",\"ts\":\"1\",\"args\":{\"x\":[1,{\"y\":2}]}}\n",
        "trace: {\"a\":1}\n",
        "{\"Type\": \"cpu\", \"Dimension\": \"x\", \"Timestamp\": 1}\n",
    };
    for (size_t k = 0; k < sizeof heads / sizeof *heads; k++) {
        size_t n = strlen(heads[k]);
        for (size_t len = 0; len <= n; len++) {
            unsigned char *copy = malloc(len ? len : 1); /* exact size: ASan sees overreads */
            memcpy(copy, heads[k], len);
            dfs_sniff(copy, len, false);
            dfs_sniffed s = dfs_sniff(copy, len, true);
            assert_true(s.format >= DFS_FMT_NOT_A_TRACE && s.format <= DFS_FMT_DASF_TEXT);
            assert_true(s.format != DFS_FMT_NOT_A_TRACE || s.why);
            free(copy);
        }
    }
    uint64_t seed = 42;
    static const char alphabet[] = "{}[]\":,\\ \n\t0123456789abtraceEvntsph";
    for (int round = 0; round < 3000; round++) {
        size_t len = rng_next(&seed) % 300;
        unsigned char *buf = malloc(len ? len : 1);
        for (size_t i = 0; i < len; i++) {
            uint64_t r = rng_next(&seed);
            buf[i] = round % 2 ? (unsigned char)r : (unsigned char)alphabet[r % (sizeof alphabet - 1)];
        }
        dfs_sniffed s = dfs_sniff(buf, len, round % 3 == 0);
        assert_true(s.format != DFS_FMT_NOT_A_TRACE || s.why);
        free(buf);
    }
}

/* ---- corpus ------------------------------------------------------------------------------ */

typedef struct expect {
    char path[512];
    char container[32];
} expect;

typedef struct corpus_walk {
    expect *manifest;
    size_t n_manifest;
    size_t head_cap;
    int checked, traces, not_traces;
} corpus_walk;

static size_t load_manifest(expect *out, size_t max)
{
    FILE *f = fopen(tu_trace("MANIFEST.md"), "r");
    assert_non_null(f);
    char line[2048];
    size_t n = 0;
    while (fgets(line, sizeof line, f) && n < max) {
        char path[512], bytes[64], container[32];
        if (sscanf(line, "| %511s | %63s | %31s |", path, bytes, container) == 3 &&
            strchr(path, '/') && bytes[0] >= '0' && bytes[0] <= '9') {
            snprintf(out[n].path, sizeof out[n].path, "%s", path);
            snprintf(out[n].container, sizeof out[n].container, "%s", container);
            n++;
        }
    }
    fclose(f);
    return n;
}

/* The first bytes of the (decompressed) file; *at_eof when they are all of it. */
static size_t read_head(const char *path, unsigned char *head, size_t cap, bool *at_eof)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    ssize_t n = pread(fd, head, cap, 0);
    assert_true(n >= 0);
    size_t have = (size_t)n;
    *at_eof = (uint64_t)n >= (uint64_t)st.st_size;
    if (dfs_gz_magic(head, have)) {
        dfs_diag d;
        dfs_diag_init(&d, 0);
        dfs_gzreader *r = dfs_gz_open(fd, (uint64_t)st.st_size, 0, UINT64_MAX, &d, 0);
        assert_non_null(r);
        have = 0;
        ssize_t got = 1;
        while (have < cap && (got = dfs_gz_read(r, (char *)head + have, cap - have)) > 0)
            have += (size_t)got;
        assert_true(got >= 0);
        char probe;
        *at_eof = got == 0 || dfs_gz_read(r, &probe, 1) == 0;
        dfs_gz_close(r);
        dfs_diag_free(&d);
    }
    close(fd);
    return have;
}

static const char *rel_path(const char *path)
{
    size_t base = strlen(DFS_TRACES);
    return strncmp(path, DFS_TRACES, base) == 0 && path[base] == '/' ? path + base + 1 : path;
}

static dfs_dialect expected_dialect(const char *rel)
{
    static const struct {
        const char *part;
        dfs_dialect d;
    } rules[] = {
        {"dftracer/cm1-48rank/", DFS_DIALECT_DFTRACER_V1},
        {"dftracer/dlio-unet3d", DFS_DIALECT_DFTRACER_V1},
        {"dftracer/legacy-2023/", DFS_DIALECT_DFTRACER_2023},
        {"dftracer/edge-cases/", DFS_DIALECT_DFTRACER_V2},
        {"hta/", DFS_DIALECT_KINETO},
        {"kineto/", DFS_DIALECT_KINETO},
        {"chrome-json/", DFS_DIALECT_CHROME},
        {"composer/", DFS_DIALECT_COMPOSER},
        {"dasf/", DFS_DIALECT_DASF},
        {".trace.json", DFS_DIALECT_TF_PROFILER},
        {"algo-1.json", DFS_DIALECT_SMDEBUG_SYSTEM},
        {"horovod_timeline", DFS_DIALECT_HOROVOD},
        {"model_timeline", DFS_DIALECT_SMDEBUG_FRAMEWORK},
        {"pythontimeline", DFS_DIALECT_SMDEBUG_FRAMEWORK},
    };
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (strstr(rel, rules[i].part))
            return rules[i].d;
    return DFS_DIALECT_UNKNOWN;
}

static void check_trace(const char *rel, const char *container, dfs_sniffed s)
{
    bool ok;
    if (strcmp(container, "json-lines") == 0) /* DFTracer '[' files are read line by line */
        ok = s.format == DFS_FMT_JSON_LINES || (s.format == DFS_FMT_JSON_ARRAY && !s.structural);
    else if (strcmp(container, "json-array") == 0)
        ok = s.format == DFS_FMT_JSON_ARRAY;
    else if (strcmp(container, "json-object") == 0)
        ok = s.format == DFS_FMT_JSON_OBJECT && s.structural;
    else
        ok = strcmp(container, "dasf") == 0 && s.format == DFS_FMT_DASF;
    if (!ok)
        fail_msg("%s: sniffed %s (structural %d), manifest says %s", rel, dfs_format_name(s.format),
                 s.structural, container);
    dfs_dialect want = expected_dialect(rel);
    if (want != DFS_DIALECT_UNKNOWN && s.dialect != want)
        fail_msg("%s: dialect %s, expected %s", rel, dfs_dialect_name(s.dialect),
                 dfs_dialect_name(want));
}

static void visit(corpus_walk *w, const char *path)
{
    const char *rel = rel_path(path);
    const char *container = NULL;
    for (size_t i = 0; i < w->n_manifest; i++)
        if (strcmp(w->manifest[i].path, rel) == 0)
            container = w->manifest[i].container;
    size_t len = strlen(rel);
    if (!container && len > 8 && strcmp(rel + len - 8, ".msgpack") == 0)
        container = "dasf";

    unsigned char *head = malloc(w->head_cap);
    assert_non_null(head);
    bool at_eof;
    size_t n = read_head(path, head, w->head_cap, &at_eof);
    dfs_sniffed s = dfs_sniff(head, n, at_eof);
    free(head);
    w->checked++;
    if (container) {
        check_trace(rel, container, s);
        w->traces++;
    } else {
        if (s.format != DFS_FMT_NOT_A_TRACE)
            fail_msg("%s: sniffed %s, but it is not a trace", rel, dfs_format_name(s.format));
        assert_non_null(s.why);
        w->not_traces++;
    }
}

static void walk_dir(corpus_walk *w, const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        assert_int_equal(lstat(path, &st), 0);
        if (S_ISDIR(st.st_mode))
            walk_dir(w, path);
        else if (S_ISREG(st.st_mode))
            visit(w, path);
    }
    closedir(d);
}

static void walk_corpus(size_t head_cap)
{
    expect *manifest = calloc(256, sizeof *manifest);
    assert_non_null(manifest);
    corpus_walk w = {.manifest = manifest, .head_cap = head_cap};
    w.n_manifest = load_manifest(manifest, 256);
    assert_true(w.n_manifest >= 100);
    walk_dir(&w, DFS_TRACES);
    assert_int_equal((size_t)w.traces, w.n_manifest + 4); /* + the 4 DASF files */
    assert_true(w.not_traces >= 12); /* md, txt, pb, metadata, python_stats, tfevents */
    free(manifest);
}

static bool have_corpus(void)
{
    const char *m = tu_trace("MANIFEST.md");
    struct stat st;
    return m && stat(m, &st) == 0;
}

static void test_corpus(void **state)
{
    (void)state;
    if (!have_corpus())
        skip();
    walk_corpus(HEAD);
}

/* Kineto's traceEvents key is up to 16 KB in: a 4 KiB head must still find the object form. */
static void test_corpus_short_heads(void **state)
{
    (void)state;
    if (!have_corpus())
        skip();
    walk_corpus(4096);
}

static void test_corpus_line_modes(void **state)
{
    (void)state;
    if (!have_corpus())
        skip();
    static const struct {
        const char *rel;
        bool structural;
    } cases[] = {
        {"composer/merged_trace.from_synthetic.json", false},
        {"smdebug/tests/profiler/resources/horovod_timeline_small.json", false},
        {"dftracer/legacy-2023/dfanalyzer_test.pfw", false},
        {"dftracer/edge-cases/synthetic-v1-crashed.pfw", false},
        {"chrome-json/flow_events_json_v1.json", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        unsigned char *head = malloc(HEAD);
        bool at_eof;
        size_t n = read_head(tu_trace(cases[i].rel), head, HEAD, &at_eof);
        dfs_sniffed s = dfs_sniff(head, n, at_eof);
        free(head);
        if (s.structural != cases[i].structural)
            fail_msg("%s: structural %d", cases[i].rel, s.structural);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_and_blank),
        cmocka_unit_test(test_json_lines_variants),
        cmocka_unit_test(test_json_lines_need_events),
        cmocka_unit_test(test_object_form),
        cmocka_unit_test(test_object_cut_before_trace_events),
        cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_dasf),
        cmocka_unit_test(test_tfevents_rejected),
        cmocka_unit_test(test_dasf_text_and_others),
        cmocka_unit_test(test_dialects),
        cmocka_unit_test(test_prefixes_and_garbage),
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_corpus_short_heads),
        cmocka_unit_test(test_corpus_line_modes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
