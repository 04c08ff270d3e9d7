/* test_merge.c - `dfscope merge` on small synthetic inputs: Python's number and string forms of
 * the Composer-compatible mode, sorting (metadata first), every arg kept and escaped, pid
 * collisions, clocks (Kineto base time, smdebug start time, Composer clock sync), phases a
 * viewer understands, spilling with a tiny budget, and the error paths. */
#include <math.h>

#include "mergetest.h"

#include "output/merge/merge_internal.h"

static const char RANK0[] =
    "[\n"
    "{\"name\": \"process_name\", \"cat\": \"\", \"ph\": \"M\", \"ts\": 100, \"pid\": 0, \"tid\": 11, \"args\": {\"name\": \"Rank 0 training loop process\"}},\n"
    "{\"name\": \"global_rank\", \"cat\": \"\", \"ph\": \"M\", \"ts\": 100, \"pid\": 0, \"tid\": 11, \"args\": {\"value\": 0}},\n"
    "{\"name\": \"clock_sync_timestamp_us\", \"cat\": \"\", \"ph\": \"M\", \"ts\": 100, \"pid\": 0, \"tid\": 11, \"args\": {\"value\": 1000}},\n"
    "{\"name\":\"caf\\u00e9 \\ud83d\\ude00 \xc3""\xa9""\xe2""\x98""\x83""\",\"cat\":\"a\\/b\",\"ph\":\"X\",\"ts\":150.25,\"dur\":1e2,\"pid\":0,\"tid\":11,\"args\":{\"s\":\"q\\\"uote\\\\ \\u0041\\t\x7f""\",\"n\":[1,-0,2.50,1E3,true,false,null,{}],\"big\":123456789012345678901234567890,\"f\":0.1,\"tiny\":1e-7,\"huge\":1.5e300,\"x\":1,\"x\":2}},\n"
    "{\"ph\": \"X\", \"name\": \"MulBackward0\", \"pid\": 0, \"tid\": \"12\", \"ts\": 160, \"dur\": 1, \"args\": {}},\n"
    "{\"ph\": \"X\", \"name\": \"noname-skip\", \"pid\": 0, \"ts\": 170, \"dur\": 1},\n"
    "{\"ph\": \"i\", \"pid\": 0, \"tid\": 7.0, \"ts\": 180, \"s\": \"t\"},\n"
    "{\"ph\": \"i\", \"name\": \"seven\", \"pid\": 0, \"tid\": 7, \"ts\": 190}\n"
    "]\n";

static const char RANK1[] =
    "[\n"
    "{\"name\": \"global_rank\", \"ph\": \"M\", \"ts\": 100, \"pid\": 1, \"tid\": 21, \"args\": {\"value\": 1}},\n"
    "{\"name\": \"clock_sync_timestamp_us\", \"ph\": \"M\", \"ts\": 100, \"pid\": 1, \"tid\": 21, \"args\": {\"value\": 1250}},\n"
    "{\"name\": \"event/batch\", \"cat\": \"\", \"ph\": \"B\", \"ts\": 400, \"pid\": 1, \"tid\": 21, \"args\": {\"epoch\": 0}},\n"
    "{\"name\": \"MulBackward0\", \"ph\": \"X\", \"ts\": 410, \"dur\": 2, \"pid\": 1, \"tid\": 22, \"args\": {}},\n"
    "{\"name\": \"junk\", \"ph\": \"X\", \"ts\": 420, \"dur\": 2, \"pid\": 1, \"tid\": \"PyTorch Profiler (0)\"}\n"
    "]\n";

/* Composer's merge_traces on RANK0, RANK1 (computed with Python's json module) */
static const char EXPECTED[] =
    "[\n"
    "    {\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 0, \"tid\": 11, \"args\": {\"sort_index\": 99999}},\n"
    "    {\"name\": \"process_name\", \"cat\": \"\", \"ph\": \"M\", \"ts\": 100, \"pid\": 0, \"tid\": 11, \"args\": {\"name\": \"Rank 0 training loop process\"}},\n"
    "    {\"name\": \"global_rank\", \"cat\": \"\", \"ph\": \"M\", \"ts\": 100, \"pid\": 0, \"tid\": 11, \"args\": {\"value\": 0}},\n"
    "    {\"name\": \"clock_sync_timestamp_us\", \"cat\": \"\", \"ph\": \"M\", \"ts\": 100, \"pid\": 0, \"tid\": 11, \"args\": {\"value\": 1000}},\n"
    "    {\"name\": \"caf\\u00e9 \\ud83d\\ude00 \\u00e9\\u2603\", \"cat\": \"a/b\", \"ph\": \"X\", \"ts\": 150.25, \"dur\": 100.0, \"pid\": 0, \"tid\": 11, \"args\": {\"s\": \"q\\\"uote\\\\ A\\t\\u007f\", \"n\": [1, 0, 2.5, 1000.0, true, false, null, {}], \"big\": 123456789012345678901234567890, \"f\": 0.1, \"tiny\": 1e-07, \"huge\": 1.5e+300, \"x\": 2}},\n"
    "    {\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 0, \"tid\": \"12\", \"args\": {\"sort_index\": 99999}},\n"
    "    {\"ph\": \"X\", \"name\": \"MulBackward0\", \"pid\": 0, \"tid\": \"12\", \"ts\": 160, \"dur\": 1, \"args\": {}},\n"
    "    {\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 0, \"tid\": 7.0, \"args\": {\"sort_index\": 99999}},\n"
    "    {\"ph\": \"i\", \"pid\": 0, \"tid\": 7.0, \"ts\": 180, \"s\": \"t\"},\n"
    "    {\"ph\": \"i\", \"name\": \"seven\", \"pid\": 0, \"tid\": 7, \"ts\": 190},\n"
    "    {\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 1, \"tid\": 21, \"args\": {\"sort_index\": 99999}},\n"
    "    {\"name\": \"global_rank\", \"ph\": \"M\", \"ts\": -150, \"pid\": 1, \"tid\": 21, \"args\": {\"value\": 1}},\n"
    "    {\"name\": \"clock_sync_timestamp_us\", \"ph\": \"M\", \"ts\": -150, \"pid\": 1, \"tid\": 21, \"args\": {\"value\": 1250}},\n"
    "    {\"name\": \"event/batch\", \"cat\": \"\", \"ph\": \"B\", \"ts\": 150, \"pid\": 1, \"tid\": 21, \"args\": {\"epoch\": 0}},\n"
    "    {\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 1, \"tid\": 22, \"args\": {\"sort_index\": 99999}},\n"
    "    {\"name\": \"MulBackward0\", \"ph\": \"X\", \"ts\": 160, \"dur\": 2, \"pid\": 1, \"tid\": 22, \"args\": {}},\n"
    "    {\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 0, \"tid\": \"12\", \"args\": {\"sort_index\": 1}},\n"
    "    {\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 1, \"tid\": 22, \"args\": {\"sort_index\": 1}}\n"
    "]\n";

static const char *write_input(const char *suffix, const char *text)
{
    return tu_temp_file(suffix, text, strlen(text));
}

static const char *fresh_output(const char *suffix)
{
    return tu_temp_file(suffix, "", 0);
}

/* Merges the texts (each written to its own file) and returns the output's text. */
static char *merge_texts(const char *const *texts, size_t n, bool compat, uint64_t memory, int *rc,
                         dfs_merge_report *rep)
{
    const char *paths[8];
    for (size_t i = 0; i < n; i++)
        paths[i] = write_input(".json", texts[i]);
    const char *out = fresh_output(".json");
    *rc = mt_merge(paths, n, memory, compat, 2, out, rep);
    size_t len;
    char *text = mt_slurp(out, &len);
    unlink(out);
    for (size_t i = 0; i < n; i++)
        unlink(paths[i]);
    return text;
}

/* ---- numbers -------------------------------------------------------------------------------- */

static void test_python_numbers(void **state)
{
    (void)state;
    static const struct { double v; const char *py, *json; } cases[] = {
        {0.0, "0.0", "0"}, {1.0, "1.0", "1"}, {39.5, "39.5", "39.5"}, {1.2345, "1.2345", "1.2345"},
        {123456789.0, "123456789.0", "123456789"}, {0.1, "0.1", "0.1"},
        {1e16, "1e+16", "10000000000000000"}, {1234567890123456.0, "1234567890123456.0", "1234567890123456"},
        {1e-5, "1e-05", "0.00001"}, {0.0001, "0.0001", "0.0001"}, {1.5e-7, "1.5e-07", "1.5e-7"},
        {-3.25, "-3.25", "-3.25"}, {2.5e300, "2.5e+300", "2.5e300"}, {1e22, "1e+22", "1e22"},
        {1.0 / 3, "0.3333333333333333", "0.3333333333333333"}, {1714000000000050.5, "1714000000000050.5", "1714000000000050.5"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mpy_float(cases[i].v, buf);
        assert_string_equal(buf, cases[i].py);
        mjson_float(cases[i].v, buf);
        assert_string_equal(buf, cases[i].json);
        assert_true(strtod(buf, NULL) == cases[i].v);
    }
    mpy_float(-0.0, buf);
    assert_string_equal(buf, "-0.0");
    mpy_float(NAN, buf);
    assert_string_equal(buf, "NaN");
    mpy_float(-INFINITY, buf);
    assert_string_equal(buf, "-Infinity");
}

/* ---- Composer's merge, byte for byte ----------------------------------------------------------- */

static void test_compat_python_layout(void **state)
{
    (void)state;
    const char *texts[] = {RANK0, RANK1};
    int rc;
    dfs_merge_report rep;
    char *got = merge_texts(texts, 2, true, 1 << 20, &rc, &rep);
    assert_int_equal(rc, DFS_EXIT_OK);
    assert_string_equal(got, EXPECTED);
    assert_int_equal(rep.events_out, 11);
    assert_int_equal(rep.inserted, 7);
    assert_int_equal(rep.dropped, 2);
    assert_int_equal(rep.files[1].shift_ns, -250000);
    assert_int_equal(rep.nwarnings, 0);
    assert_string_equal(rep.mode, "composer");
    dfs_merge_report_free(&rep);
    free(got);
}

/* Where Composer fails (no clock sync, a missing ']'), this mode goes on and says so. */
static void test_compat_keeps_going(void **state)
{
    (void)state;
    const char *no_clock = "[\n{\"name\": \"global_rank\", \"ph\": \"M\", \"pid\": 3, \"tid\": 1, \"args\": {\"value\": 3}},\n"
                           "{\"name\": \"x\", \"ph\": \"i\", \"ts\": 5, \"pid\": 3, \"tid\": 1},\n";
    const char *texts[] = {no_clock, RANK1};
    int rc;
    dfs_merge_report rep;
    char *got = merge_texts(texts, 2, true, 1 << 20, &rc, &rep);
    assert_int_equal(rc, DFS_EXIT_OK); /* a missing ']' and a trailing comma are legal variants */
    assert_int_equal(rep.nwarnings, 1);
    assert_non_null(strstr(rep.warnings[0], "clock_sync_timestamp_us"));
    assert_false(rep.files[0].aligned);
    assert_int_equal(rep.files[1].shift_ns, 0); /* rank 1 is the lowest rank with a clock */
    assert_non_null(strstr(got, "    {\"name\": \"x\", \"ph\": \"i\", \"ts\": 5, \"pid\": 3, \"tid\": 1}"));
    assert_int_equal(strncmp(got + strlen(got) - 3, "\n]\n", 3), 0);
    dfs_merge_report_free(&rep);
    free(got);
}

/* ---- the default mode ---------------------------------------------------------------------------- */

/* The same events as the inputs hold (read back by the project's reader), sorted. */
static void test_default_sorted_all_args(void **state)
{
    (void)state;
    const char *dft =
        "[\n"
        "{\"id\":1,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":7,\"tid\":7,\"ph\":\"M\",\"args\":{\"name\":\"/data/a\",\"value\":42}}\n"
        "{\"id\":4,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":7,\"tid\":8,\"ts\":300,\"dur\":5,\"ph\":\"X\",\"args\":{\"fhash\":42,\"ret\":\"4096\",\"level\":1}}\n"
        "{\"id\":2,\"name\":\"open\",\"cat\":\"POSIX\",\"pid\":7,\"tid\":7,\"ts\":100,\"dur\":5,\"ph\":\"X\",\"args\":{\"fhash\":42,\"m\":{\"a\":[1,2.5,\"x\"],\"b\":null,\"c\":true}}}\n"
        "{\"id\":3,\"name\":\"close\",\"cat\":\"POSIX\",\"pid\":7,\"tid\":7,\"ts\":200,\"dur\":1,\"ph\":\"X\"}\n"
        "]\n";
    const char *chrome = "[{\"name\":\"q\\\"uo\\\\te\\u0001\\u00e9\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":150.5,\"dur\":2,\"pid\":9,\"tid\":9,"
                         "\"args\":{\"k\\n\":\"v\\t\",\"neg\":-3,\"f\":1e-9}},\n"
                         "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":9,\"tid\":9,\"args\":{\"name\":\"main\"}}]";
    const char *in[] = {write_input(".pfw", dft), write_input(".json", chrome)};
    const char *out = fresh_output(".json");
    assert_int_equal(mt_merge(in, 2, 1 << 20, false, 2, out, NULL), DFS_EXIT_OK);
    mt_events got = mt_read(out), a = mt_read(in[0]), b = mt_read(in[1]);
    assert_int_equal(got.rc, DFS_EXIT_OK);
    assert_int_equal(got.damage, 0);
    assert_true(mt_sorted(&got));
    assert_true(got.v[0].meta && got.v[1].meta && !got.v[2].meta);
    assert_int_equal(got.v[2].ts, 100000);
    assert_int_equal(got.v[3].ts, 150500);
    mt_events both = {0};
    both.n = a.n + b.n;
    both.v = malloc(both.n * sizeof *both.v);
    assert_non_null(both.v);
    memcpy(both.v, a.v, a.n * sizeof *a.v);
    memcpy(both.v + a.n, b.v, b.n * sizeof *b.v);
    free(a.v);
    free(b.v);
    for (size_t i = 0; i < both.n; i++) {
        if (!strstr(both.v[i].text, "fhash=42,"))
            continue;
        mt_text t = {0}; /* the writer adds the file name it resolved from the hash */
        mt_put(&t, "%sfname='/data/a',", both.v[i].text);
        free(both.v[i].text);
        both.v[i].text = t.p;
    }
    assert_true(mt_same_events(&got, &both));
    size_t len;
    char *text = mt_slurp(out, &len);
    assert_non_null(strstr(text, "\"name\":\"q\\\"uo\\\\te\\u0001\xc3\xa9\""));
    assert_non_null(strstr(text, "\"ret\":\"4096\""));
    assert_non_null(strstr(text, "\"k\\n\":\"v\\t\"")); /* an escaped arg key, decoded once, escaped once */
    assert_non_null(strstr(text, "\"displayTimeUnit\":\"ns\""));
    free(text);
    mt_free(&got);
    mt_free(&both);
    unlink(in[0]);
    unlink(in[1]);
    unlink(out);
}

/* Two files using the same pid are two processes: the second one gets a new number, and its
 * process name says where it came from. */
static void test_pid_collision(void **state)
{
    (void)state;
    const char *a = "[{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":100,\"tid\":0,\"args\":{\"name\":\"main\"}},"
                    "{\"name\":\"w\",\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":100,\"tid\":1},"
                    "{\"name\":\"s\",\"ph\":\"X\",\"ts\":2,\"dur\":1,\"pid\":\"Spans\",\"tid\":1}]";
    const char *b = "[{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":100,\"tid\":0,\"args\":{\"name\":\"main\"}},"
                    "{\"name\":\"w\",\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":100,\"tid\":1},"
                    "{\"name\":\"s\",\"ph\":\"X\",\"ts\":2,\"dur\":1,\"pid\":\"Spans\",\"tid\":1},"
                    "{\"name\":\"o\",\"ph\":\"X\",\"ts\":3,\"dur\":1,\"pid\":101,\"tid\":1}]";
    const char *texts[] = {a, b};
    int rc;
    dfs_merge_report rep;
    char *got = merge_texts(texts, 2, false, 1 << 20, &rc, &rep);
    assert_int_equal(rc, DFS_EXIT_OK);
    assert_int_equal(rep.lanes, 5);
    assert_int_equal(rep.remapped, 2);
    assert_int_equal(rep.files[0].remapped, 0);
    assert_int_equal(rep.files[1].remapped, 2);
    /* above every pid read (101 is b's own): b's "Spans" becomes 102, b's 100 becomes 103 */
    assert_non_null(strstr(got, "\"pid\":103,\"tid\":0,\"args\":{\"name\":\"main ("));
    assert_non_null(strstr(got, "{\"name\":\"process_name\",\"cat\":\"\",\"ph\":\"M\",\"pid\":102,\"args\":{\"name\":\"Spans ("));
    assert_non_null(strstr(got, "\"name\":\"o\",\"cat\":\"\",\"ph\":\"X\",\"ts\":3,\"dur\":1,\"pid\":101"));
    assert_non_null(strstr(got, "\"pid\":\"Spans\""));
    dfs_merge_report_free(&rep);
    free(got);
}

/* Kineto's base time (after traceEvents) and smdebug's start time put relative times on the
 * epoch clock; sub-microsecond times keep their nanoseconds. */
static void test_clocks(void **state)
{
    (void)state;
    const char *kineto = "{\"schemaVersion\":1,\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\","
                         "\"pid\":5,\"tid\":5,\"ts\":4203669604595.407,\"dur\":1.5}],"
                         "\"baseTimeNanoseconds\":1735632360000000000}";
    const char *smdebug = "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"start_time_since_epoch_in_micros\": 1594662605425850}},\n"
                          "{\"name\": \"Step:ModeKeys.TRAIN\", \"pid\": 1, \"ph\": \"X\", \"ts\": 2664345, \"dur\": 9020725, \"args\": {\"pid\": 905, \"step_num\": \"0\"}}\n]\n";
    const char *system = "{\"Type\": \"cpu\", \"Name\":\"cpu0\", \"Dimension\": \"CPUUtilization\", \"Value\":4.76,\"NodeId\":\"algo-1\",\"Timestamp\":1591160699.4570894}\n"
                         "{\"Type\": \"cpu\", \"Name\":\"cpu1\", \"Dimension\": \"CPUUtilization\", \"Value\":5.5,\"NodeId\":\"algo-1\",\"Timestamp\":1591160699.4570894}\n";
    const char *texts[] = {kineto, smdebug, system};
    int rc;
    dfs_merge_report rep;
    char *got = merge_texts(texts, 3, false, 1 << 20, &rc, &rep);
    assert_int_equal(rc, DFS_EXIT_OK);
    assert_non_null(strstr(got, "\"name\":\"aten::mm\",\"cat\":\"cpu_op\",\"ph\":\"X\",\"ts\":1739836029604595.407,\"dur\":1.5,"));
    assert_non_null(strstr(got, "\"ts\":1594662608090195,\"dur\":9020725,"));
    assert_non_null(strstr(got, "{\"name\":\"CPUUtilization\",\"cat\":\"cpu\",\"ph\":\"C\",\"ts\":1591160699457089.4,\"pid\":\"algo-1\",\"args\":{\"cpu0\":4.76}}"));
    assert_non_null(strstr(got, "\"args\":{\"cpu1\":5.5}}"));
    assert_non_null(strstr(got, "\"displayTimeUnit\":\"ns\""));
    /* the system samples come first (2020-06-03), then smdebug (2020-07), then Kineto (2025) */
    assert_true(strstr(got, "CPUUtilization") < strstr(got, "Step:ModeKeys") &&
                strstr(got, "Step:ModeKeys") < strstr(got, "aten::mm"));
    dfs_merge_report_free(&rep);
    free(got);
}

/* Composer files without clock sync are merged unaligned, with a warning. */
static void test_composer_without_clock(void **state)
{
    (void)state;
    const char *r0 = "[\n{\"name\": \"global_rank\", \"cat\": \"\", \"ph\": \"M\", \"ts\": 10, \"pid\": 0, \"tid\": 1, \"args\": {\"value\": 0}},\n"
                     "{\"name\": \"event/batch\", \"cat\": \"\", \"ph\": \"B\", \"ts\": 20, \"pid\": 0, \"tid\": 1, \"args\": {}},\n"
                     "{\"name\": \"kernel\", \"ph\": \"X\", \"ts\": 30, \"dur\": 1, \"pid\": 5, \"tid\": 7}\n]\n";
    const char *texts[] = {r0, RANK1};
    int rc;
    dfs_merge_report rep;
    char *got = merge_texts(texts, 2, false, 1 << 20, &rc, &rep);
    assert_int_equal(rc, DFS_EXIT_OK);
    assert_int_equal(rep.nwarnings, 1);
    assert_non_null(strstr(rep.warnings[0], "clock_sync_timestamp_us"));
    assert_false(rep.files[0].aligned);
    assert_true(rep.files[1].aligned);
    assert_int_equal(rep.files[1].shift_ns, 0);
    assert_int_equal(rep.dropped, 1); /* the profiler's own span */
    assert_null(strstr(got, "junk"));
    /* a rank file's records are on its rank, as Composer writes them (pid := rank) */
    assert_non_null(strstr(got, "\"name\":\"kernel\",\"cat\":\"\",\"ph\":\"X\",\"ts\":30,\"dur\":1,\"pid\":0,\"tid\":7"));
    /* a thread_sort_index 99999 per (rank, thread), 1 for the backward thread of rank 1 */
    assert_non_null(strstr(got, "{\"name\":\"thread_sort_index\",\"cat\":\"\",\"ph\":\"M\",\"pid\":0,\"tid\":1,\"args\":{\"sort_index\":99999}}"));
    assert_non_null(strstr(got, "{\"name\":\"thread_sort_index\",\"cat\":\"\",\"ph\":\"M\",\"pid\":1,\"tid\":22,\"args\":{\"sort_index\":1}}"));
    dfs_merge_report_free(&rep);
    free(got);
}

/* Phases a viewer understands: DFTracer v2 integers as letters, aggregated records and X without
 * dur as instants, records without ph left out; instant scope and flow binding kept at the top
 * level; flow ids of two files kept apart. */
static void test_phases_and_flows(void **state)
{
    (void)state;
    const char *v2 = "{\"id\":1,\"name\":\"read\",\"cat\":\"POSIX\",\"type\":3,\"pid\":4,\"tid\":4,\"ts\":10,\"dur\":2,\"ph\":1}\n"
                     "{\"name\":\"cpu\",\"cat\":\"sys\",\"type\":7,\"ts\":11,\"ph\":2,\"pid\":4,\"tid\":0,\"args\":{\"user_pct\":1.5}}\n"
                     "{\"name\":\"openat\",\"cat\":\"POSIX\",\"type\":3,\"ts\":12,\"ph\":3,\"pid\":4,\"tid\":4,\"args\":{\"dft_cnt\":2}}\n"
                     "{\"name\":\"PR\",\"cat\":\"dftracer\",\"type\":1,\"pid\":4,\"tid\":4,\"ph\":4,\"args\":{\"name\":\"rank\",\"value\":\"0\"}}\n";
    const char *chrome = "[{\"name\":\"m\",\"cat\":\"c\",\"ph\":\"i\",\"s\":\"p\",\"ts\":1,\"pid\":1,\"tid\":1},"
                         "{\"name\":\"x\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":2,\"dur\":1,\"pid\":1,\"tid\":1,\"args\":{\"s\":\"g\"}},"
                         "{\"name\":\"nodur\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":3,\"pid\":1,\"tid\":1},"
                         "{\"name\":\"noph\",\"cat\":\"c\",\"ts\":3,\"pid\":1,\"tid\":1},"
                         "{\"name\":\"fl\",\"cat\":\"c\",\"ph\":\"s\",\"id\":5,\"ts\":4,\"pid\":1,\"tid\":1},"
                         "{\"name\":\"fl\",\"cat\":\"c\",\"ph\":\"f\",\"bp\":\"e\",\"id\":5,\"ts\":5,\"pid\":1,\"tid\":1}]";
    const char *chrome2 = "[{\"name\":\"fl\",\"cat\":\"c\",\"ph\":\"s\",\"id\":\"0x5\",\"ts\":6,\"pid\":2,\"tid\":1},"
                          "{\"name\":\"fl\",\"cat\":\"c\",\"ph\":\"f\",\"bp\":\"e\",\"id\":\"0x5\",\"ts\":7,\"pid\":2,\"tid\":1}]";
    const char *texts[] = {v2, chrome, chrome2};
    int rc;
    dfs_merge_report rep;
    char *got = merge_texts(texts, 3, false, 1 << 20, &rc, &rep);
    assert_int_equal(rc, DFS_EXIT_DAMAGED); /* the X without dur, the record without ph */
    assert_int_equal(rep.dropped, 1);
    assert_non_null(strstr(got, "\"name\":\"read\",\"cat\":\"POSIX\",\"ph\":\"X\",\"ts\":10,\"dur\":2,"));
    assert_non_null(strstr(got, "\"name\":\"cpu\",\"cat\":\"sys\",\"ph\":\"C\",\"ts\":11,"));
    assert_non_null(strstr(got, "\"name\":\"openat\",\"cat\":\"POSIX\",\"ph\":\"i\",\"ts\":12,"));
    assert_non_null(strstr(got, "{\"name\":\"PR\",\"cat\":\"dftracer\",\"ph\":\"M\",\"pid\":4,"));
    assert_non_null(strstr(got, "\"name\":\"m\",\"cat\":\"c\",\"ph\":\"i\",\"ts\":1,\"pid\":1,\"tid\":1,\"s\":\"p\",\"args\":{}"));
    assert_non_null(strstr(got, "\"name\":\"x\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":2,\"dur\":1,\"pid\":1,\"tid\":1,\"args\":{\"s\":\"g\"}"));
    assert_non_null(strstr(got, "\"name\":\"nodur\",\"cat\":\"c\",\"ph\":\"i\",\"ts\":3,"));
    assert_null(strstr(got, "noph"));
    assert_non_null(strstr(got, "\"ph\":\"f\",\"ts\":5,\"pid\":1,\"tid\":1,\"id\":5,\"bp\":\"e\""));
    assert_non_null(strstr(got, "\"ph\":\"f\",\"ts\":7,\"pid\":2,\"tid\":1,\"id\":6,\"bp\":\"e\""));
    assert_non_null(strstr(got, "\"displayTimeUnit\":\"ms\""));
    dfs_merge_report_free(&rep);
    free(got);
}

/* Invalid UTF-8 and control bytes in the input come out as valid JSON. */
static void test_bad_strings(void **state)
{
    (void)state;
    const char *bad = "[{\"name\":\"a\xff\x01z\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1,"
                      "\"args\":{\"p\":\"\xc3\x28\"}}]";
    const char *in[] = {write_input(".json", bad)};
    const char *out = fresh_output(".json");
    assert_int_equal(mt_merge(in, 1, 1 << 20, false, 1, out, NULL), DFS_EXIT_DAMAGED);
    mt_events got = mt_read(out);
    assert_int_equal(got.rc, DFS_EXIT_OK);
    assert_int_equal(got.damage, 0);
    assert_int_equal(got.n, 1);
    assert_non_null(strstr(got.v[0].text, "a\xef\xbf\xbd\x01z"));
    mt_free(&got);
    unlink(in[0]);
    unlink(out);
}

/* ---- bounded memory ------------------------------------------------------------------------------- */

static char *unsorted_trace(unsigned seed, unsigned n, int pid)
{
    mt_text t = {0};
    mt_put(&t, "[\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":1,\"args\":{\"name\":\"t%u\"}},\n", pid, seed);
    unsigned x = seed;
    for (unsigned i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        mt_put(&t, "{\"name\":\"e%u\",\"cat\":\"k\",\"ph\":\"X\",\"ts\":%u.%03u,\"dur\":%u,\"pid\":%d,\"tid\":%u,"
                   "\"args\":{\"i\":%u,\"s\":\"%08x\",\"l\":[%u,{\"d\":%u.5}]}}%s\n",
               i % 17, (x >> 8) % 100000, x % 1000, x % 50, pid, x % 3, i, x, i, i, i + 1 < n ? "," : "");
    }
    mt_put(&t, "]\n");
    return t.p;
}

/* A budget so small that every thread spills many runs and the merge needs intermediate passes
 * writes exactly what the in-memory path writes, with one or two threads. */
static void test_spill_equals_memory(void **state)
{
    (void)state;
    char *t1 = unsorted_trace(1, 6000, 10), *t2 = unsorted_trace(2, 5000, 20), *t3 = unsorted_trace(3, 4000, 10);
    const char *in[] = {write_input(".json", t1), write_input(".json", t2), write_input(".json", t3)};
    const char *a = fresh_output(".json"), *b = fresh_output(".json"), *c = fresh_output(".json.gz");
    dfs_merge_report rep;
    assert_int_equal(mt_merge(in, 3, 1ull << 30, false, 2, a, &rep), DFS_EXIT_OK);
    assert_int_equal(rep.runs_spilled, 0);
    assert_int_equal(rep.events_out, 15003);
    dfs_merge_report_free(&rep);
    assert_int_equal(mt_merge(in, 3, DFS_MERGE_MIN_MEMORY, false, 2, b, &rep), DFS_EXIT_OK);
    assert_true(rep.runs_spilled > 20);
    assert_true(rep.merge_passes > 1);
    assert_true(rep.bytes_spilled > 1000000);
    dfs_merge_report_free(&rep);
    assert_int_equal(mt_merge(in, 3, DFS_MERGE_MIN_MEMORY, false, 1, c, NULL), DFS_EXIT_OK);
    size_t na, nb;
    char *ta = mt_slurp(a, &na), *tb = mt_slurp(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(ta, tb, na);
    mt_events ga = mt_read(a), gc = mt_read(c); /* the gzip output holds the same */
    assert_int_equal(ga.damage, 0);
    assert_int_equal(gc.damage, 0);
    assert_true(mt_sorted(&ga));
    assert_true(mt_same_events(&ga, &gc));
    mt_free(&ga);
    mt_free(&gc);
    free(ta);
    free(tb);
    free(t1);
    free(t2);
    free(t3);
    for (size_t i = 0; i < 3; i++)
        unlink(in[i]);
    unlink(a);
    unlink(b);
    unlink(c);
}

/* ---- errors ------------------------------------------------------------------------------------------- */

static void test_errors(void **state)
{
    (void)state;
    char err[256];
    dfs_merge_options o;
    dfs_merge_options_init(&o);
    o.memory = 1000;
    assert_null(dfs_merge_new(&o, err, sizeof err));
    assert_non_null(strstr(err, "64k"));

    /* spilling into a directory that does not exist */
    char *t = unsorted_trace(4, 3000, 1);
    const char *in = write_input(".json", t);
    dfs_run *run = tu_run(1, 0, 0);
    assert_int_equal(dfs_run_add_path(run, in), DFS_OK);
    dfs_merge_options_init(&o);
    o.memory = DFS_MERGE_MIN_MEMORY;
    o.tmpdir = "/nonexistent/dfscope-merge";
    dfs_merge *m = dfs_merge_new(&o, err, sizeof err);
    assert_non_null(m);
    dfs_consumer *cs[] = {dfs_merge_consumer(m)};
    assert_int_equal(dfs_run_read(run, cs, 1), DFS_EXIT_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    dfs_merge_report rep;
    assert_int_equal(dfs_merge_write(m, run, f, &rep, err, sizeof err), DFS_ERR_IO);
    assert_non_null(strstr(err, "/nonexistent/dfscope-merge"));
    dfs_merge_report_free(&rep);
    fclose(f);
    free(buf);
    dfs_merge_free(m);
    dfs_run_free(run);
    free(t);
    unlink(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_python_numbers),      cmocka_unit_test(test_compat_python_layout),
        cmocka_unit_test(test_compat_keeps_going),  cmocka_unit_test(test_default_sorted_all_args),
        cmocka_unit_test(test_pid_collision),       cmocka_unit_test(test_clocks),
        cmocka_unit_test(test_composer_without_clock), cmocka_unit_test(test_phases_and_flows),
        cmocka_unit_test(test_bad_strings),         cmocka_unit_test(test_spill_equals_memory),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
