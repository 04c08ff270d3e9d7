/* test_record.c - one JSON object to one dfs_event (src/parse/record.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "model/ids.h"
#include "parse/record.h"

typedef struct fx {
    tu_parser t;
    dfs_rec_memo memo;
    bool no_memo;
} fx;

static fx *fx_new(void)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    tu_parser_init(&f->t, 7);
    return f;
}

static void fx_free(fx *f)
{
    tu_parser_free(&f->t);
    free(f);
}

static int setup(void **state)
{
    *state = fx_new();
    return 0;
}

static int teardown(void **state)
{
    fx_free(*state);
    return 0;
}

static dfs_rec_status parse_mode(fx *f, const char *text, unsigned mode)
{
    size_t n = strlen(text);
    return dfs_parse_record_ex(&f->t.p, text, n, n, 1000, mode, f->no_memo ? NULL : &f->memo);
}

static dfs_rec_status parse(fx *f, const char *text)
{
    return parse_mode(f, text, 0);
}

/* Parses a record that must give an event, and returns it. */
static const dfs_event *event(fx *f, const char *text)
{
    size_t before = f->t.batch.events.n;
    dfs_rec_status s = parse(f, text);
    if (s != DFS_REC_EVENT)
        fail_msg("not an event (%d): %s", s, text);
    assert_int_equal(f->t.batch.events.n, before + 1);
    return &f->t.batch.events.v[f->t.batch.events.n - 1];
}

static const char *S(fx *f, dfs_str s)
{
    return dfs_strtab_get(f->t.table, s, NULL);
}

static uint64_t count(fx *f, dfs_problem p)
{
    return f->t.st.diag.counts[p];
}

static uint64_t problems(fx *f)
{
    uint64_t n = 0;
    for (int i = 0; i < DFS_PROB__COUNT; i++)
        n += f->t.st.diag.counts[i];
    return n;
}

static const dfs_value *arg(fx *f, const dfs_event *ev, const char *key)
{
    dfs_str k = dfs_strtab_find(f->t.table, key, strlen(key));
    return k ? dfs_event_arg(ev, k) : NULL;
}

/* ---- DFTracer generations ------------------------------------------------------------------ */

static const char *V1_FREAD =
    "{\"id\":8,\"name\":\"fread\",\"cat\":\"STDIO\",\"pid\":3537780,\"tid\":3537781,"
    "\"ts\":1727387307985825,\"dur\":10,\"ph\":\"X\",\"args\":{\"hhash\":5692,\"p_idx\":-1,"
    "\"level\":1,\"ret\":3107,\"fhash\":33084,\"count\":8192,\"size\":1}}";

static void test_v1_complete_event(void **state)
{
    fx *f = *state;
    const dfs_event *ev = event(f, V1_FREAD);
    assert_true(ev->id == 8);
    assert_string_equal(S(f, ev->name), "fread");
    assert_string_equal(S(f, ev->cat), "STDIO");
    assert_true(ev->pid == 3537780 && ev->tid == 3537781);
    assert_true(ev->ts == INT64_C(1727387307985825000));
    assert_true(ev->dur == 10000);
    assert_int_equal(ev->ph, 'X');
    assert_int_equal(ev->phase, DFS_PHASE_COMPLETE);
    assert_int_equal(ev->type, 3); /* inferred from STDIO */
    assert_int_equal(ev->flags, DFS_EF_HAS_ID | DFS_EF_HAS_PID | DFS_EF_HAS_TID | DFS_EF_HAS_TS |
                                    DFS_EF_HAS_DUR);
    assert_true(ev->fhash == 33084 && ev->hhash == 5692);
    assert_int_equal(ev->fname, 0);
    assert_int_equal(ev->host, 0);
    assert_int_equal(ev->nargs, 0); /* nobody asked for args */
    assert_true(ev->offset == 1000);
    assert_int_equal(ev->file, 7);
    assert_true(f->t.st.unresolved_refs == 2);
    assert_true(f->t.st.records == 1);
    assert_true(f->t.st.phase_counts[DFS_PHASE_COMPLETE] == 1);
    assert_true(f->t.st.ph_written['X'] == 1);
    assert_int_equal(f->t.st.dialect, DFS_DIALECT_DFTRACER_V1);
    assert_true(problems(f) == 0);
}

static void test_hash_resolution(void **state)
{
    fx *f = *state;
    event(f, "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
             "\"args\":{\"name\":\"corona173\",\"value\":5692}}");
    event(f, "{\"id\":2,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
             "\"args\":{\"hhash\":5692,\"name\":\"/p/file.dat\",\"value\":33084}}");
    assert_int_equal(f->t.st.defs.n, 2);
    const dfs_event *ev = event(f, V1_FREAD);
    assert_string_equal(S(f, ev->fname), "/p/file.dat");
    assert_string_equal(S(f, ev->host), "corona173");
    assert_true(f->t.st.unresolved_refs == 0);
    /* a u64 hash above INT64_MAX, written as an integer */
    event(f, "{\"id\":3,\"name\":\"SH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
             "\"args\":{\"name\":\"dlio_benchmark\",\"value\":17427260559328612924}}");
    assert_true(f->t.st.defs.v[2].hash == UINT64_C(17427260559328612924));
    assert_int_equal(f->t.st.defs.v[2].kind, DFS_HASH_STRING);
    assert_true(f->t.st.defs.v[2].offset == 1000);
    /* a 16-bit collision: the nearest preceding definition wins */
    event(f, "{\"id\":4,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
             "\"args\":{\"name\":\"/other\",\"value\":33084}}");
    assert_true(count(f, DFS_PROB_HASH_COLLISION) == 1);
    ev = event(f, V1_FREAD);
    assert_string_equal(S(f, ev->fname), "/other");
}

static void test_v2_hex_hashes(void **state)
{
    fx *f = *state;
    event(f, "{\"name\":\"HH\",\"cat\":\"dftracer\",\"type\":1,\"pid\":1,\"tid\":1,\"ph\":4,"
             "\"args\":{\"name\":\"node7\",\"value\":\"8e0caa2d595b2a4d\"}}");
    const dfs_event *ev =
        event(f, "{\"name\":\"openat\",\"cat\":\"POSIX\",\"type\":3,\"ts\":1785087679000000,"
                 "\"ph\":3,\"pid\":4165574,\"tid\":4165574,\"args\":{\"hhash\":\"8e0caa2d595b2a4d\","
                 "\"dft_cnt\":2,\"dur_min\":379,\"dur_max\":444,\"dur_sum\":1232}}");
    assert_true(ev->hhash == UINT64_C(0x8e0caa2d595b2a4d));
    assert_string_equal(S(f, ev->host), "node7");
    assert_int_equal(ev->ph, '3');
    assert_int_equal(ev->phase, DFS_PHASE_AGGREGATED);
    assert_int_equal(ev->type, 3);
    assert_int_equal(f->t.st.dialect, DFS_DIALECT_DFTRACER_V2);
    assert_true(f->t.st.ph_written['4'] == 1 && f->t.st.ph_written['3'] == 1);
}

static void test_2023_string_numbers(void **state)
{
    fx *f = *state;
    const dfs_event *ev = event(
        f, "{\"id\":\"2\",\"name\":\"open\",\"cat\":\"POSIX\",\"pid\":\"1338896\",\"tid\":\"2677792\","
           "\"ts\":\"1698080323781412\",\"dur\":\"3430\",\"ph\":\"X\",\"args\":{\"hostname\":"
           "\"corona237\",\"ret\":18,\"flags\":66,\"fname\":\"/p/lustre1/file_0-40.bat\",\"mode\":420}}");
    assert_true(ev->id == 2 && ev->pid == 1338896 && ev->tid == 2677792);
    assert_true(ev->ts == INT64_C(1698080323781412000) && ev->dur == 3430000);
    assert_string_equal(S(f, ev->fname), "/p/lustre1/file_0-40.bat");
    assert_string_equal(S(f, ev->host), "corona237");
    assert_int_equal(ev->flags & (DFS_EF_PID_STR | DFS_EF_TID_STR), 0);
    assert_true(count(f, DFS_PROB_STRING_NUMBER) == 1); /* once per record */
    assert_int_equal(f->t.st.dialect, DFS_DIALECT_DFTRACER_2023);
    assert_int_equal(f->t.st.diag.examples[DFS_PROB_STRING_NUMBER].n, 1);
}

static void test_v2_phases(void **state)
{
    fx *f = *state;
    static const struct { const char *ph; char written; dfs_phase phase; } cases[] = {
        {"1", '1', DFS_PHASE_COMPLETE}, {"2", '2', DFS_PHASE_COUNTER},
        {"3", '3', DFS_PHASE_AGGREGATED}, {"4", '4', DFS_PHASE_METADATA},
        {"0", '0', DFS_PHASE_OTHER}, {"12", '?', DFS_PHASE_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[160];
        snprintf(text, sizeof text, "{\"name\":\"n\",\"cat\":\"c\",\"ts\":1,\"dur\":1,\"ph\":%s}",
                 cases[i].ph);
        const dfs_event *ev = event(f, text);
        assert_int_equal(ev->ph, cases[i].written);
        assert_int_equal(ev->phase, cases[i].phase);
    }
    assert_true(count(f, DFS_PROB_UNKNOWN_PHASE) == 2);
}

static void test_type(void **state)
{
    fx *f = *state;
    assert_int_equal(event(f, "{\"name\":\"a\",\"cat\":\"x\",\"type\":14,\"ph\":1,\"dur\":1}")->type, 14);
    assert_int_equal(event(f, "{\"name\":\"a\",\"cat\":\"POSIX\",\"type\":99,\"ph\":1,\"dur\":1}")->type, 0);
    assert_true(count(f, DFS_PROB_UNKNOWN_TYPE) == 1);
    assert_int_equal(event(f, "{\"name\":\"a\",\"cat\":\"sys\",\"ph\":\"C\"}")->type, 7);
    assert_int_equal(event(f, "{\"name\":\"a\",\"cat\":\"MPI\",\"ph\":\"i\"}")->type, 10);
    assert_int_equal(event(f, "{\"name\":\"a\",\"cat\":\"POSIX\",\"ph\":\"i\"}")->type, 3);
    assert_int_equal(event(f, "{\"name\":\"a\",\"cat\":\"FUNC\",\"ph\":\"i\"}")->type, 0);
    /* a type given is not overridden by the category */
    assert_int_equal(event(f, "{\"name\":\"a\",\"cat\":\"POSIX\",\"type\":5,\"ph\":\"i\"}")->type, 5);
    assert_true(count(f, DFS_PROB_UNKNOWN_TYPE) == 1);
}

/* ---- pids, ids, numbers -------------------------------------------------------------------- */

static void test_string_pid_tid(void **state)
{
    fx *f = *state;
    const dfs_event *ev = event(f, "{\"name\":\"k\",\"ph\":\"X\",\"ts\":1,\"dur\":2,"
                                   "\"pid\":\"Spans\",\"tid\":\"stream 7\",\"cat\":\"kernel\"}");
    assert_true(ev->flags & DFS_EF_PID_STR);
    assert_true(ev->flags & DFS_EF_TID_STR);
    assert_true(ev->flags & DFS_EF_HAS_PID);
    assert_string_equal(S(f, ev->pid_str), "Spans");
    assert_string_equal(S(f, ev->tid_str), "stream 7");
    assert_true(ev->pid < 0 && ev->tid < 0);
    assert_true(ev->pid == dfs_synthetic_id("Spans", 5));
    assert_true(ev->tid == dfs_synthetic_id("stream 7", 8));
    assert_true(count(f, DFS_PROB_STRING_NUMBER) == 0);
    ev = event(f, "{\"name\":\"e\",\"ph\":\"i\",\"ts\":1,\"pid\":\"\",\"tid\":\"0\"}");
    assert_true(ev->flags & DFS_EF_PID_STR);
    assert_int_equal(ev->pid_str, 0);
    assert_true(ev->pid == dfs_synthetic_id("", 0));
    assert_false(ev->flags & DFS_EF_TID_STR);
    assert_true(ev->tid == 0);
    assert_true(count(f, DFS_PROB_STRING_NUMBER) == 1);

    /* the synthetic id does not depend on the intern order: a second table, other strings first */
    fx *g = fx_new();
    dfs_strcache_intern(g->t.strs, "zzz", 3);
    dfs_strcache_intern(g->t.strs, "stream 7", 8);
    const dfs_event *ev2 = event(g, "{\"name\":\"k\",\"ph\":\"X\",\"ts\":1,\"dur\":2,"
                                    "\"pid\":\"Spans\",\"tid\":\"stream 7\",\"cat\":\"kernel\"}");
    assert_true(ev2->pid == dfs_synthetic_id("Spans", 5));
    assert_true(ev2->tid == dfs_synthetic_id("stream 7", 8));
    fx_free(g);
}

static void test_ids_and_decimals(void **state)
{
    fx *f = *state;
    const dfs_event *ev = event(f, "{\"name\":\"IPC\",\"cat\":\"ipc\",\"ph\":\"s\",\"id\":\"0x402\","
                                   "\"pid\":1,\"tid\":2,\"ts\":3002}");
    assert_true(ev->id == 0x402 && (ev->flags & DFS_EF_HAS_ID));
    assert_int_equal(ev->phase, DFS_PHASE_FLOW);
    ev = event(f, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"MeanBackward0\",\"pid\":4037,"
                  "\"tid\":23695,\"ts\":1682725898236567,\"dur\":68.0}");
    assert_true(ev->dur == 68000);
    ev = event(f, "{\"ph\":\"X\",\"name\":\"k\",\"ts\":1712195495519689.047,\"dur\":1.5}");
    assert_true(ev->ts == INT64_C(1712195495519689047));
    assert_true(ev->dur == 1500);
    ev = event(f, "{\"ph\":\"X\",\"name\":\"tiny\",\"ts\":171365,\"dur\":1e-06}");
    assert_true(ev->dur == 0 && (ev->flags & DFS_EF_HAS_DUR));
    ev = event(f, "{\"ph\":\"i\",\"name\":\"neg\",\"ts\":-5,\"pid\":-1,\"tid\":7.0}");
    assert_true(ev->ts == -5000 && ev->pid == -1 && ev->tid == 7);
    /* 171365 after 1712195495519689: one step back among the complete events */
    assert_true(count(f, DFS_PROB_TS_REGRESSION) == 1);
    assert_true(problems(f) == count(f, DFS_PROB_MISSING_CAT) + 1);
}

static void test_int_overflow(void **state)
{
    fx *f = *state;
    const dfs_event *ev = event(f, "{\"id\":99999999999999999999999,\"name\":\"a\",\"cat\":\"c\","
                                   "\"ph\":\"i\",\"ts\":1}");
    assert_true(ev->id == UINT64_MAX);
    assert_true(count(f, DFS_PROB_INT_OVERFLOW) == 1);
    f->t.want.all = true;
    ev = event(f, "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"i\",\"args\":{\"big\":-99999999999999999999}}");
    assert_true(arg(f, ev, "big")->as.i == INT64_MIN);
    assert_true(arg(f, ev, "big")->flags & DFS_VF_SATURATED);
    assert_true(count(f, DFS_PROB_INT_OVERFLOW) == 2);
}

static void test_nonfinite(void **state)
{
    fx *f = *state;
    /* a time that no int64 holds is damage (time_overflow), never a time nor a missing one */
    const dfs_event *ev = event(f, "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":1,\"dur\":NaN}");
    assert_false(ev->flags & DFS_EF_HAS_DUR);
    assert_true(ev->flags & DFS_EF_BAD_TIME);
    assert_true(count(f, DFS_PROB_TIME_OVERFLOW) == 1);
    assert_true(count(f, DFS_PROB_X_WITHOUT_DUR) == 0);
    ev = event(f, "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":-Infinity,\"dur\":1}");
    assert_false(ev->flags & DFS_EF_HAS_TS);
    assert_true(ev->flags & DFS_EF_BAD_TIME);
    assert_true(count(f, DFS_PROB_TIME_OVERFLOW) == 2);
    assert_true(count(f, DFS_PROB_NONFINITE_NUMBER) == 0);
    f->t.want.all = true;
    ev = event(f, "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"C\",\"args\":{\"v\":-Infinity}}");
    assert_true(arg(f, ev, "v")->type == DFS_V_FLOAT && arg(f, ev, "v")->as.f < 0);
    assert_true(count(f, DFS_PROB_NONFINITE_NUMBER) == 1);
}

/* ---- problems: one test per rule ------------------------------------------------------------ */

static void test_missing_cat(void **state)
{
    fx *f = *state;
    const dfs_event *ev = event(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,"
                                   "\"args\":{\"name\":\"x\"}}");
    assert_int_equal(ev->cat, 0);
    event(f, "{\"name\":\"a\",\"cat\":\"\",\"ph\":\"i\",\"ts\":1}"); /* present though empty */
    assert_true(count(f, DFS_PROB_MISSING_CAT) == 1);
    assert_int_equal(f->t.st.diag.examples[DFS_PROB_MISSING_CAT].n, 0); /* a bulk count */
    assert_true(f->t.st.records == 2);
}

static void test_ts_regression(void **state)
{
    fx *f = *state;
    event(f, "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":10,\"dur\":1}");
    event(f, "{\"name\":\"b\",\"cat\":\"c\",\"ph\":\"i\",\"ts\":1}"); /* not a complete event */
    event(f, "{\"name\":\"c\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":5,\"dur\":1}");
    event(f, "{\"name\":\"d\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":7,\"dur\":1}");
    event(f, "{\"name\":\"e\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":7,\"dur\":1}");
    assert_true(count(f, DFS_PROB_TS_REGRESSION) == 1);
    assert_true(f->t.st.last_ts == 7000);
}

static void test_x_without_dur(void **state)
{
    fx *f = *state;
    const dfs_event *ev = event(f, "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":10}");
    assert_int_equal(ev->ph, 'X');
    assert_int_equal(ev->phase, DFS_PHASE_INSTANT); /* kept as an instant */
    assert_false(ev->flags & DFS_EF_HAS_DUR);
    assert_true(count(f, DFS_PROB_X_WITHOUT_DUR) == 1);
    assert_true(f->t.st.phase_counts[DFS_PHASE_INSTANT] == 1);
    assert_true(f->t.st.ph_written['X'] == 1);
}

static void test_negative_and_absurd_dur(void **state)
{
    fx *f = *state;
    const dfs_event *ev = event(f, "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":1,\"dur\":-5}");
    assert_true(ev->dur == -5000);
    assert_true(ev->flags & DFS_EF_BAD_TIME);
    assert_true(ev->flags & DFS_EF_HAS_DUR);
    assert_true(count(f, DFS_PROB_NEGATIVE_DUR) == 1);
    ev = event(f, "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":1,\"dur\":604800000000}");
    assert_false(ev->flags & DFS_EF_BAD_TIME); /* exactly 7 days is not absurd */
    ev = event(f, "{\"name\":\"4\",\"ph\":\"X\",\"ts\":77575718043,\"pid\":1,\"dur\":812355471858}");
    assert_true(ev->flags & DFS_EF_BAD_TIME);
    assert_true(count(f, DFS_PROB_ABSURD_DUR) == 1);
    assert_true(f->t.st.diag.examples[DFS_PROB_ABSURD_DUR].n == 1);
}

static void test_time_overflow(void **state)
{
    fx *f = *state;
    const dfs_event *ev = event(f, "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\","
                                   "\"ts\":99999999999999999,\"dur\":1}");
    assert_false(ev->flags & DFS_EF_HAS_TS);
    assert_true(ev->flags & DFS_EF_BAD_TIME);
    assert_true(count(f, DFS_PROB_TIME_OVERFLOW) == 1);
    ev = event(f, "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":1,\"dur\":\"1e400\"}");
    assert_false(ev->flags & DFS_EF_HAS_DUR);
    assert_int_equal(ev->phase, DFS_PHASE_COMPLETE); /* the dur was there, only too large */
    assert_true(count(f, DFS_PROB_TIME_OVERFLOW) == 2);
    assert_true(count(f, DFS_PROB_X_WITHOUT_DUR) == 0);
    assert_true(f->t.st.records == 2);
}

static void test_phase_letters(void **state)
{
    fx *f = *state;
    static const struct { char ph; dfs_phase phase; } cases[] = {
        {'X', DFS_PHASE_COMPLETE}, {'B', DFS_PHASE_BEGIN}, {'E', DFS_PHASE_END},
        {'i', DFS_PHASE_INSTANT}, {'I', DFS_PHASE_INSTANT}, {'R', DFS_PHASE_INSTANT},
        {'C', DFS_PHASE_COUNTER}, {'A', DFS_PHASE_AGGREGATED}, {'M', DFS_PHASE_METADATA},
        {'s', DFS_PHASE_FLOW}, {'t', DFS_PHASE_FLOW}, {'f', DFS_PHASE_FLOW},
        {'b', DFS_PHASE_ASYNC}, {'n', DFS_PHASE_ASYNC}, {'e', DFS_PHASE_ASYNC},
        {'S', DFS_PHASE_ASYNC}, {'T', DFS_PHASE_ASYNC}, {'p', DFS_PHASE_ASYNC},
        {'F', DFS_PHASE_ASYNC},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[128];
        snprintf(text, sizeof text, "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"%c\",\"ts\":1,\"dur\":1}",
                 cases[i].ph);
        const dfs_event *ev = event(f, text);
        assert_int_equal(ev->phase, cases[i].phase);
        assert_int_equal(ev->ph, cases[i].ph);
    }
    assert_true(problems(f) == 0);
    const char *ignored = "PNODVvc()=";
    for (const char *c = ignored; *c; c++) {
        char text[128];
        snprintf(text, sizeof text, "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"%c\",\"ts\":1}", *c);
        assert_int_equal(event(f, text)->phase, DFS_PHASE_OTHER);
    }
    assert_true(count(f, DFS_PROB_IGNORED_PHASE) == strlen(ignored));
    assert_int_equal(event(f, "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"Q\"}")->ph, 'Q');
    const dfs_event *ev = event(f, "{\"name\":\"a\",\"cat\":\"c\"}");
    assert_int_equal(ev->ph, '?');
    assert_int_equal(ev->phase, DFS_PHASE_OTHER);
    assert_int_equal(event(f, "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"XX\"}")->ph, '?');
    assert_true(count(f, DFS_PROB_UNKNOWN_PHASE) == 3);
    assert_true(f->t.st.ph_written['?'] == 2);
}

static void test_control_char_and_invalid_utf8(void **state)
{
    fx *f = *state;
    const dfs_event *ev = event(f, "{\"name\":\"a\x01" "b\",\"cat\":\"c\",\"ph\":\"i\"}");
    assert_string_equal(S(f, ev->name), "a\x01" "b");
    assert_true(count(f, DFS_PROB_CONTROL_CHAR) == 1);
    ev = event(f, "{\"name\":\"caf\xe9\",\"cat\":\"c\",\"ph\":\"i\"}");
    assert_string_equal(S(f, ev->name), "caf\xe9"); /* kept as bytes */
    assert_true(count(f, DFS_PROB_INVALID_UTF8) == 1);
    /* damage in a value nobody reads is still seen */
    event(f, "{\"name\":\"n\",\"cat\":\"c\",\"ph\":\"i\",\"args\":{\"path\":\"\xff\"}}");
    assert_true(count(f, DFS_PROB_INVALID_UTF8) == 2);
    event(f, "{\"name\":\"caf\xc3\xa9\",\"cat\":\"c\",\"ph\":\"i\"}");
    assert_true(count(f, DFS_PROB_INVALID_UTF8) == 2);
}

static void test_repaired_quote(void **state)
{
    fx *f = *state;
    const dfs_event *ev = event(f, "{\"name\":\"say \"hi\" now\",\"cat\":\"FUNC\",\"ph\":\"i\",\"ts\":1}");
    assert_string_equal(S(f, ev->name), "say \"hi\" now");
    assert_true(count(f, DFS_PROB_REPAIRED_QUOTE) == 1);
    ev = event(f, "{\"name\":\"open\",\"cat\":\"POSIX\",\"ph\":\"X\",\"ts\":1,\"dur\":2,"
                  "\"args\":{\"path\":\"C:\\dir\\x\"}}");
    assert_string_equal(S(f, ev->name), "open");
    assert_true(count(f, DFS_PROB_REPAIRED_QUOTE) == 2);
    f->t.want.all = true;
    ev = event(f, "{\"name\":\"open\",\"cat\":\"POSIX\",\"ph\":\"i\",\"args\":{\"path\":\"C:\\dir\"}}");
    assert_string_equal(S(f, arg(f, ev, "path")->as.s), "C:\\dir");
    /* still unparsable leniently */
    assert_int_equal(parse(f, "{\"name\":\"x\" \"y\":1,\"ph\":\"i\"}"), DFS_REC_BAD);
    /* lenient quotes may still give a record (this is the best reading of broken text) */
    ev = event(f, "{\"name\":\"a\"b\"c\" \"d\",\"ph\":\"i\"}");
    assert_string_equal(S(f, ev->name), "a\"b\"c\" \"d");
}

static void test_empty_record(void **state)
{
    fx *f = *state;
    assert_int_equal(parse(f, "{}"), DFS_REC_EMPTY);
    assert_int_equal(parse(f, "{ \n }  "), DFS_REC_EMPTY);
    assert_int_equal(f->t.batch.events.n, 0);
    assert_true(f->t.st.records == 2);
    assert_true(f->t.st.ph_written['?'] == 2);
    assert_true(f->t.st.phase_counts[DFS_PHASE_OTHER] == 2);
    assert_true(count(f, DFS_PROB_EMPTY_RECORD) == 2);
    assert_true(count(f, DFS_PROB_UNKNOWN_PHASE) == 0);
}

static void test_bad_records(void **state)
{
    fx *f = *state;
    const char *bad[] = {
        "{\"a\":1",       "{\"a\" 1}",   "[1]",          "{\"a\":1}x",     "{\"a\":tru}",
        "{\"a\":1,,}",     "{\"a\":}",    "{a:1}",        "",               "   ",
        "{\"name\":\"unterminated}", "{\"args\":{\"x\":[1,2}}", "{\"id\":1 2}", "{\"ts\":12ab}",
        ("{\"id\":1,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
         "\"ph\":\"X\",\"args\":{\"a\":1}"),
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (parse(f, bad[i]) != DFS_REC_BAD)
            fail_msg("accepted: %s", bad[i]);
    assert_int_equal(f->t.batch.events.n, 0);
    assert_true(f->t.st.records == 0);
    assert_true(f->t.st.bad_records == 0); /* the caller counts those */
    assert_true(problems(f) == 0);
}

static void test_whitespace_and_key_order(void **state)
{
    fx *f = *state;
    dfs_event a = *event(f, V1_FREAD);
    const dfs_event *b = event(
        f, "{ \"args\" : { \"size\" : 1 , \"fhash\" : 33084, \"hhash\":5692 } ,\n \"ph\": \"X\",\t"
           "\"dur\":10, \"ts\" :1727387307985825, \"tid\":3537781,\r\n\"pid\":3537780, \"cat\": "
           "\"STDIO\", \"name\":\"fread\", \"id\": 8 }");
    assert_true(a.ts == b->ts && a.dur == b->dur && a.pid == b->pid && a.tid == b->tid);
    assert_true(a.id == b->id && a.name == b->name && a.cat == b->cat && a.ph == b->ph);
    assert_true(a.fhash == b->fhash && a.hhash == b->hhash && a.flags == b->flags);
    assert_true(a.type == b->type);
}

/* ---- args ---------------------------------------------------------------------------------- */

static void test_args_wanted_keys(void **state)
{
    fx *f = *state;
    f->t.want.keys = DFS_KEYBIT(DFS_KEY_RET) | DFS_KEYBIT(DFS_KEY_SIZE) | DFS_KEYBIT(DFS_KEY_STEP);
    const dfs_event *ev = event(f, V1_FREAD);
    assert_int_equal(ev->nargs, 2);
    assert_int_equal(ev->args[0].key, DFS_KEY_STR(DFS_KEY_RET));
    assert_true(ev->args[0].val.type == DFS_V_INT && ev->args[0].val.as.i == 3107);
    assert_int_equal(ev->args[1].key, DFS_KEY_STR(DFS_KEY_SIZE));
    assert_true(ev->fhash == 33084); /* read whatever is wanted */
    ev = event(f, "{\"id\":3,\"name\":\"step\",\"cat\":\"dlio\",\"pid\":1,\"tid\":1,\"ts\":5,"
                  "\"dur\":1,\"ph\":\"X\",\"args\":{\"ret\":\"3276800\",\"step\":\"1\"}}");
    int64_t v;
    const dfs_value *ret = dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_RET));
    assert_true(ret->type == DFS_V_INT && ret->as.i == 3276800);
    assert_true(ret->flags & DFS_VF_FROM_STRING);
    assert_true(dfs_value_int(dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_STEP)), &v) && v == 1);
}

/* p_idx and level, in every DFTracer record: skipped when no consumer asks for them, whatever else
 * it wants, and kept when one does, by bit or by name (each want on a parser of its own, as a run
 * compiles its wants once). The general parser's side: test_indexed_layout_matches_general. */
static const dfs_event *v1_fread_wanting(fx **f, uint64_t keys, const char *extra)
{
    *f = fx_new();
    (*f)->t.want.keys = keys;
    if (extra) {
        (*f)->t.want.nextra = 1;
        (*f)->t.want.extra[0] = extra;
        (*f)->t.want.extra_len[0] = strlen(extra);
        (*f)->t.want.extra_id[0] = dfs_strcache_intern((*f)->t.strs, extra, strlen(extra));
    }
    size_t n = strlen(V1_FREAD);
    char buf[512];
    memcpy(buf, V1_FREAD, n);
    memset(buf + n, '\n', 64); /* readable look-ahead: the indexed layout reads the record */
    assert_int_equal(dfs_parse_record_ex(&(*f)->t.p, buf, n, n + 64, 0, 0, &(*f)->memo), DFS_REC_EVENT);
    return &(*f)->t.batch.events.v[0];
}

static void test_args_marker_keys(void **state)
{
    (void)state;
    fx *f;
    const dfs_event *ev = v1_fread_wanting(&f, DFS_KEYBIT(DFS_KEY_RET), NULL);
    assert_int_equal(ev->nargs, 1);
    assert_int_equal(ev->args[0].key, DFS_KEY_STR(DFS_KEY_RET));
    assert_int_equal(f->t.batch.events.v[0].fhash, 33084);
    fx_free(f);

    ev = v1_fread_wanting(&f, DFS_KEYBIT(DFS_KEY_RET) | DFS_KEYBIT(DFS_KEY_LEVEL), NULL);
    assert_int_equal(ev->nargs, 2);
    const dfs_value *level = dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_LEVEL));
    assert_true(level && level->type == DFS_V_INT && level->as.i == 1);
    fx_free(f);

    ev = v1_fread_wanting(&f, DFS_KEYBIT(DFS_KEY_P_IDX), NULL);
    assert_int_equal(ev->nargs, 1);
    const dfs_value *p_idx = dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_P_IDX));
    assert_true(p_idx && p_idx->type == DFS_V_INT && p_idx->as.i == -1);
    fx_free(f);

    ev = v1_fread_wanting(&f, DFS_KEYBIT(DFS_KEY_RET), "level");
    assert_int_equal(ev->nargs, 2);
    level = arg(f, ev, "level");
    assert_true(level && level->type == DFS_V_INT && level->as.i == 1);
    fx_free(f);
}

static void test_args_extra_and_all(void **state)
{
    fx *f = *state;
    f->t.want.nextra = 1;
    f->t.want.extra[0] = "user_pct";
    f->t.want.extra_len[0] = 8;
    f->t.want.extra_id[0] = dfs_strcache_intern(f->t.strs, "user_pct", 8);
    const char *cpu = "{\"name\":\"cpu\",\"cat\":\"sys\",\"type\":7,\"ts\":1727286231145121,\"ph\":2,"
                      "\"pid\":3308801,\"tid\":0,\"args\":{\"hhash\":\"8e0caa2d595b2a4d\","
                      "\"user_pct\":12.5,\"nice_pct\":0.0,\"list\":[1,{\"a\":\"b\"}]}}";
    const dfs_event *ev = event(f, cpu);
    assert_int_equal(ev->nargs, 1);
    assert_true(arg(f, ev, "user_pct")->as.f == 12.5);
    f->t.want.all = true;
    ev = event(f, cpu);
    assert_int_equal(ev->nargs, 4);
    assert_int_equal(ev->args[0].key, DFS_KEY_STR(DFS_KEY_HHASH));
    assert_true(ev->args[0].val.as.u == UINT64_C(0x8e0caa2d595b2a4d));
    assert_true(ev->args[0].val.flags & DFS_VF_FROM_STRING);
    const dfs_value *list = arg(f, ev, "list");
    assert_int_equal(list->type, DFS_V_LIST);
    assert_int_equal(list->len, 2);
    assert_int_equal(list->as.items[1].val.type, DFS_V_MAP);
    /* names stay strings even when they look like numbers */
    ev = event(f, "{\"id\":2,\"name\":\"thread_name\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,"
                  "\"ph\":\"M\",\"args\":{\"name\":\"1028567\",\"value\":\"thread_name\"}}");
    assert_int_equal(arg(f, ev, "name")->type, DFS_V_STR);
    /* a u64 hash as an arg */
    ev = event(f, "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
                  "\"args\":{\"hhash\":9509357668201227806}}");
    assert_int_equal(ev->args[0].val.type, DFS_V_UINT);
    assert_true(ev->args[0].val.as.u == UINT64_C(9509357668201227806));
}

static void test_args_top_level_extra(void **state)
{
    fx *f = *state;
    f->t.want.nextra = 1;
    f->t.want.extra[0] = "bp";
    f->t.want.extra_len[0] = 2;
    f->t.want.extra_id[0] = dfs_strcache_intern(f->t.strs, "bp", 2);
    const dfs_event *ev = event(f, "{\"name\":\"f\",\"cat\":\"ac2g\",\"ph\":\"f\",\"id\":7,\"bp\":\"e\","
                                   "\"ts\":1,\"pid\":1,\"tid\":2}");
    assert_int_equal(ev->nargs, 1);
    assert_string_equal(S(f, arg(f, ev, "bp")->as.s), "e");
    /* top-level keys are not args for want.all */
    f->t.want.nextra = 0;
    f->t.want.all = true;
    ev = event(f, "{\"name\":\"f\",\"cat\":\"ac2g\",\"ph\":\"f\",\"id\":7,\"bp\":\"e\",\"ts\":1}");
    assert_int_equal(ev->nargs, 0);
}

/* A key written with escapes is the key it decodes to, at the first level of args as deeper. */
static void test_args_escaped_keys(void **state)
{
    fx *f = *state;
    f->t.want.all = true;
    const dfs_event *ev = event(f, "{\"name\":\"read\",\"cat\":\"POSIX\",\"ph\":\"X\",\"ts\":1,\"dur\":1,"
                                   "\"pid\":1,\"tid\":1,\"args\":{\"s\\u0069ze\":7,\"m\\u00e9ta\":1,"
                                   "\"in\":{\"m\\u00e9ta\":2}}}");
    assert_int_equal(ev->nargs, 3);
    assert_int_equal(ev->args[0].key, DFS_KEY_STR(DFS_KEY_SIZE)); /* a known key, once decoded */
    assert_true(arg(f, ev, "size")->as.i == 7);
    assert_true(arg(f, ev, "m\xc3\xa9ta")->as.i == 1);
    const dfs_value *in = arg(f, ev, "in");
    assert_int_equal(in->type, DFS_V_MAP);
    assert_int_equal(in->as.items[0].key, ev->args[1].key); /* the same interned key at both levels */
}

/* ---- metadata -------------------------------------------------------------------------------- */

static void test_process_and_thread_names(void **state)
{
    fx *f = *state;
    event(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":3,\"tid\":0,\"args\":{\"name\":\"DataIterator\"}}");
    event(f, "{\"name\":\"thread_name\",\"cat\":\"\",\"ph\":\"M\",\"pid\":0,\"tid\":4242,"
             "\"args\":{\"name\":\"Training Loop\"}}");
    event(f, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":3,\"args\":{\"sort_index\":3}}");
    assert_int_equal(f->t.st.names.n, 2);
    assert_true(f->t.st.names.v[0].pid == 3 && !f->t.st.names.v[0].is_thread);
    assert_string_equal(S(f, f->t.st.names.v[0].str), "DataIterator");
    assert_true(f->t.st.names.v[1].tid == 4242 && f->t.st.names.v[1].is_thread);
    assert_string_equal(S(f, f->t.st.names.v[1].str), "Training Loop");
    assert_true(f->t.st.phase_counts[DFS_PHASE_METADATA] == 3);
}

static void test_smdebug_framework_start(void **state)
{
    fx *f = *state;
    event(f, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": "
             "{\"start_time_since_epoch_in_micros\":1589314018457990}}");
    assert_true(f->t.st.has_clock_offset);
    assert_true(f->t.st.clock_offset_ns == INT64_C(1589314018457990000));
    assert_int_equal(f->t.st.dialect, DFS_DIALECT_SMDEBUG_FRAMEWORK);
    assert_int_equal(f->t.st.names.n, 0);
    fx *g = fx_new();
    event(g, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":"
             "\"start_time_since_epoch_in_micros\",\"value\":1589314018457991}}");
    assert_true(g->t.st.clock_offset_ns == INT64_C(1589314018457991000));
    assert_int_equal(g->t.st.dialect, DFS_DIALECT_SMDEBUG_FRAMEWORK);
    fx_free(g);
}

static void test_v2_end_record(void **state)
{
    fx *f = *state;
    static const struct { const char *unit; int32_t num, den; } cases[] = {
        {"NS", 1, 1000}, {"MS", 1000, 1}, {"SEC", 1000000, 1}, {"US", 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fx *g = fx_new();
        char text[320];
        snprintf(text, sizeof text,
                 "{\"id\":99,\"name\":\"end\",\"cat\":\"dftracer\",\"type\":1,\"pid\":1,\"tid\":1,"
                 "\"ts\":5,\"dur\":0,\"ph\":1,\"args\":{\"num_events\":9,\"cfg\":{\"compression\":"
                 "true,\"time_metric\":\"%s\"},\"used\":{\"POSIX\":1}}}", cases[i].unit);
        event(g, text);
        assert_true(g->t.st.saw_close);
        assert_int_equal(g->t.st.scale_num, cases[i].num);
        assert_int_equal(g->t.st.scale_den, cases[i].den);
        fx_free(g);
    }
    (void)f;
}

/* ---- other formats ----------------------------------------------------------------------- */

static void test_smdebug_system_metric(void **state)
{
    fx *f = *state;
    f->t.want.nextra = 1;
    f->t.want.extra[0] = "Value";
    f->t.want.extra_len[0] = 5;
    f->t.want.extra_id[0] = dfs_strcache_intern(f->t.strs, "Value", 5);
    const dfs_event *ev = event(f, "{\"Type\": \"cpu\", \"Name\":\"cpu0\", \"Dimension\": "
                                   "\"CPUUtilization\", \"Value\":4.76,\"NodeId\":\"algo-1\","
                                   "\"Timestamp\":1591160699.4570894}");
    assert_int_equal(ev->ph, '?');
    assert_int_equal(ev->phase, DFS_PHASE_COUNTER);
    assert_string_equal(S(f, ev->name), "CPUUtilization");
    assert_string_equal(S(f, ev->cat), "cpu");
    assert_string_equal(S(f, ev->pid_str), "algo-1");
    assert_int_equal(ev->host, ev->pid_str);
    assert_string_equal(S(f, ev->tid_str), "cpu0");
    assert_true(ev->pid == dfs_synthetic_id("algo-1", 6));
    assert_true(ev->ts == INT64_C(1591160699457089400));
    assert_true(arg(f, ev, "Value")->as.f == 4.76);
    assert_int_equal(f->t.st.dialect, DFS_DIALECT_SMDEBUG_SYSTEM);
    assert_true(f->t.st.ph_written['?'] == 1);
    assert_true(f->t.st.phase_counts[DFS_PHASE_COUNTER] == 1);
    assert_true(problems(f) == 0);
}

static void test_dasf_text(void **state)
{
    fx *f = *state;
    const char *x = "{\"name\": \"Compute\", \"timestamp\": 1000.5, \"duration\": 0.5, \"phase\": \"X\", "
                    "\"process_id\": \"c096\", \"thread_id\": \"worker-c096-0\", \"args\": "
                    "{\"key\": \"('getitem-4223', 0)\", \"size\": 8}}";
    assert_int_equal(parse_mode(f, x, DFS_REC_DASF_TEXT), DFS_REC_EVENT);
    const dfs_event *ev = &f->t.batch.events.v[0];
    assert_string_equal(S(f, ev->cat), "dasf");
    assert_string_equal(S(f, ev->name), "Compute");
    /* seconds (dasf-tasks.md §2): the written timestamp is the task end */
    assert_true(ev->ts == INT64_C(1000000000000) && ev->dur == 500000000);
    assert_true(ev->ts + ev->dur == INT64_C(1000500000000));
    assert_int_equal(ev->phase, DFS_PHASE_COMPLETE);
    assert_string_equal(S(f, ev->pid_str), "c096");
    assert_int_equal(ev->host, ev->pid_str);
    assert_string_equal(S(f, ev->tid_str), "worker-c096-0");
    assert_int_equal(f->t.st.dialect, DFS_DIALECT_DASF);
    const char *i = "{\"name\":\"Resource Usage\",\"timestamp\":2000,\"phase\":\"I\",\"process_id\":0,"
                    "\"thread_id\":null,\"args\":{\"cpu\":3.5}}";
    assert_int_equal(parse_mode(f, i, DFS_REC_DASF_TEXT), DFS_REC_EVENT);
    ev = &f->t.batch.events.v[1];
    assert_int_equal(ev->phase, DFS_PHASE_INSTANT);
    assert_true(ev->ts == INT64_C(2000000000000) && ev->pid == 0);
    assert_false(ev->flags & DFS_EF_HAS_TID);
    const char *b = "{\"name\":\"Processing\",\"timestamp\":1674000002000.5,\"phase\":\"B\",\"process_id\":\"c\"}";
    assert_int_equal(parse_mode(f, b, DFS_REC_DASF_TEXT), DFS_REC_EVENT);
    ev = &f->t.batch.events.v[2];
    assert_true(ev->ts == INT64_C(1674000002000500000)); /* B/E: epoch milliseconds */
    assert_true(problems(f) == 0);
    /* outside DASF text mode these keys are not the event's fields */
    assert_int_equal(parse(f, x), DFS_REC_EVENT);
    assert_false(f->t.batch.events.v[3].flags & DFS_EF_HAS_TS);
}

static dfs_dialect dialect_of(const char *const *records, size_t n)
{
    fx *f = fx_new();
    for (size_t i = 0; i < n; i++)
        event(f, records[i]);
    dfs_dialect d = f->t.st.dialect;
    fx_free(f);
    return d;
}

static void test_dialects(void **state)
{
    (void)state;
    const char *composer[] = {
        "{\"name\": \"process_name\", \"cat\": \"\", \"ph\": \"M\", \"ts\": 1714000000000000, "
        "\"pid\": 0, \"tid\": 4242, \"args\": {\"name\": \"Rank 0 training loop process\"}}",
        "{\"name\": \"global_rank\", \"cat\": \"\", \"ph\": \"M\", \"ts\": 1714000000000000, "
        "\"pid\": 0, \"tid\": 4242, \"args\": {\"value\": 0}}"};
    assert_int_equal(dialect_of(composer, 2), DFS_DIALECT_COMPOSER);
    const char *composer_b[] = {"{\"name\":\"event/batch\",\"cat\":\"\",\"ph\":\"B\",\"ts\":1,\"pid\":0,\"tid\":1}"};
    assert_int_equal(dialect_of(composer_b, 1), DFS_DIALECT_COMPOSER);
    const char *kineto[] = {"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::zeros\",\"pid\":1,"
                            "\"tid\":1,\"ts\":1661203462598738,\"dur\":19}"};
    assert_int_equal(dialect_of(kineto, 1), DFS_DIALECT_KINETO);
    const char *tf[] = {"{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:0\"}}"};
    fx *f = fx_new();
    event(f, tf[0]);
    assert_int_equal(f->t.st.dialect, DFS_DIALECT_TF_PROFILER);
    assert_true(f->t.st.relative_time);
    fx_free(f);
    const char *horovod[] = {"{\"ph\": \"i\", \"name\": \"CYCLE_START\", \"ts\": 77567277433, \"s\": \"g\"}"};
    assert_int_equal(dialect_of(horovod, 1), DFS_DIALECT_HOROVOD);
    const char *horovod_x[] = {"{\"ph\": \"X\", \"name\": \"4\", \"ts\": 77575718043, \"pid\": 1, \"dur\": 0}"};
    assert_int_equal(dialect_of(horovod_x, 1), DFS_DIALECT_HOROVOD);
    const char *generic[] = {"{\"cat\":\"ipc\",\"pid\":1,\"tid\":2,\"ts\":3002,\"ph\":\"X\",\"name\":\"SenderA\",\"dur\":10}"};
    assert_int_equal(dialect_of(generic, 1), DFS_DIALECT_UNKNOWN); /* the framer settles it */
    const char *v1_meta[] = {"{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,"
                             "\"ph\":\"M\",\"args\":{\"name\":\"h\",\"value\":1}}"};
    assert_int_equal(dialect_of(v1_meta, 1), DFS_DIALECT_DFTRACER_V1);
    /* the first record that tells decides */
    const char *mixed[] = {generic[0], kineto[0], v1_meta[0]};
    assert_int_equal(dialect_of(mixed, 3), DFS_DIALECT_KINETO);
}

static void test_recovered_mode(void **state)
{
    fx *f = *state;
    assert_int_equal(parse_mode(f, V1_FREAD, DFS_REC_RECOVERED), DFS_REC_EVENT);
    assert_int_equal(parse_mode(f, "{}", DFS_REC_RECOVERED), DFS_REC_EMPTY);
    assert_true(f->t.st.recovered == 2);
    assert_true(f->t.st.records == 0);
    assert_true(f->t.st.ph_written['X'] == 0);
    assert_int_equal(f->t.batch.events.n, 1);
}

/* ---- fast paths give the same results as the general parser ---------------------------------- */

static const char *const VARIED[] = {
    "{\"id\":1,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":4,\"ph\":\"X\"}",
    "{\"id\":12345678901234567890,\"name\":\"TorchDataset.__getitem__ with a long name\",\"cat\":"
    "\"ai_framework\",\"pid\":1028567,\"tid\":1028570,\"ts\":1712195495519981,\"dur\":8272,"
    "\"ph\":\"X\",\"args\":{\"hhash\":18446744073709551615,\"p_idx\":-1,\"level\":1,\"step\":\"1\","
    "\"epoch\":\"2\",\"fhash\":99999999999999999999}}",
    "{\"id\":7,\"name\":\"w\\u00e9\",\"cat\":\"STDIO\",\"pid\":\"12\",\"tid\":\"x\",\"ts\":\"17\","
    "\"dur\":\"0.5\",\"ph\":\"X\",\"args\":{\"ret\":-3,\"count\":0,\"offset\":1234567890123456,"
    "\"fname\":\"/a/b\",\"value\":[1,2],\"x\":{\"y\":1}}}",
    "{\"id\":0,\"name\":\"\",\"cat\":\"\",\"pid\":0,\"tid\":0,\"ph\":\"M\",\"args\":{}}",
    "{\"id\":9,\"name\":\"n\",\"cat\":\"c\",\"type\":3,\"pid\":5,\"tid\":6,\"ts\":123456789012345678,"
    "\"dur\":1.25e2,\"ph\":1,\"args\":{\"hhash\":\"00ff\",\"name\":\"nm\",\"level\":3}}",
    "{\"id\":10,\"name\":\"a\",\"cat\":\"b\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\","
    "\"args\":{\"key\":\"va\\\"lue\",\"k2\":\"\x7f\",\"k3\":true,\"k4\":null,\"k5\":0.5}}",
    "{\"id\":11,\"name\":\"a\",\"cat\":\"b\",\"pid\":1,\"tid\":1,\"ts\":0001,\"dur\":00,\"ph\":\"X\"}",
};

static void compare_streams(fx *a, fx *b)
{
    assert_int_equal(a->t.batch.events.n, b->t.batch.events.n);
    for (size_t i = 0; i < a->t.batch.events.n; i++) {
        const dfs_event *x = &a->t.batch.events.v[i], *y = &b->t.batch.events.v[i];
        assert_true(x->ts == y->ts && x->dur == y->dur && x->pid == y->pid && x->tid == y->tid);
        assert_true(x->id == y->id && x->fhash == y->fhash && x->hhash == y->hhash);
        assert_true(x->flags == y->flags && x->type == y->type && x->ph == y->ph &&
                    x->phase == y->phase);
        assert_string_equal(S(a, x->name), S(b, y->name));
        assert_string_equal(S(a, x->cat), S(b, y->cat));
        assert_string_equal(S(a, x->pid_str), S(b, y->pid_str));
        assert_string_equal(S(a, x->fname), S(b, y->fname));
        assert_int_equal(x->nargs, y->nargs);
        for (uint32_t k = 0; k < x->nargs; k++) {
            assert_string_equal(S(a, x->args[k].key), S(b, y->args[k].key));
            assert_int_equal(x->args[k].val.type, y->args[k].val.type);
            assert_int_equal(x->args[k].val.flags, y->args[k].val.flags);
            if (x->args[k].val.type == DFS_V_INT || x->args[k].val.type == DFS_V_UINT)
                assert_true(x->args[k].val.as.u == y->args[k].val.as.u);
        }
    }
    for (int p = 0; p < DFS_PROB__COUNT; p++)
        if (a->t.st.diag.counts[p] != b->t.st.diag.counts[p])
            fail_msg("%s: %llu vs %llu", dfs_problem_code((dfs_problem)p),
                     (unsigned long long)a->t.st.diag.counts[p],
                     (unsigned long long)b->t.st.diag.counts[p]);
    assert_true(a->t.st.records == b->t.st.records);
    assert_int_equal(a->t.st.dialect, b->t.st.dialect);
}

/* With and without the memo, with and without bytes readable past the record (digits there must
 * not leak into the last value), for each want. */
static void test_fast_paths_match(void **state)
{
    (void)state;
    for (int want = 0; want < 3; want++) {
        fx *a = fx_new(), *b = fx_new();
        b->no_memo = true;
        for (fx *x = a; x; x = x == a ? b : NULL) {
            x->t.want.all = want == 2;
            x->t.want.keys = want == 1 ? DFS_KEYBIT(DFS_KEY_RET) | DFS_KEYBIT(DFS_KEY_FHASH) : 0;
        }
        for (int round = 0; round < 2; round++)
            for (size_t i = 0; i < sizeof VARIED / sizeof *VARIED; i++) {
                size_t n = strlen(VARIED[i]);
                char buf[1024];
                memcpy(buf, VARIED[i], n);
                memset(buf + n, '7', 64); /* readable look-ahead full of digits */
                assert_int_equal(dfs_parse_record_ex(&a->t.p, buf, n, n + 64, 0, 0, &a->memo),
                                 dfs_parse_record_ex(&b->t.p, VARIED[i], n, n, 0, 0, NULL));
            }
        compare_streams(a, b);
        fx_free(a);
        fx_free(b);
    }
}

/* ---- the indexed layout against the general parser ------------------------------------------ */

static const char *const TRICKY[] = {
    /* the plain v1 layout, with and without the optional keys */
    "{\"id\":5,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":3014461,\"tid\":3014461,"
    "\"ts\":1759387941842016,\"dur\":12,\"ph\":\"X\",\"args\":{\"hhash\":7389220539935392818,"
    "\"p_idx\":7,\"level\":3,\"ret\":3107,\"count\":8192,\"size\":1,\"mode\":\"r\","
    "\"fhash\":17288502665531596787}}",
    "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":3,\"tid\":3,\"ph\":\"M\",\"args\":{"
    "\"hhash\":7389220539935392818,\"name\":\"corona107\",\"value\":7389220539935392818}}",
    "{\"id\":16,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":3,\"tid\":3,\"ph\":\"M\",\"args\":{"
    "\"hhash\":7389220539935392818,\"name\":\"/p/data/train\",\"value\":17288502665531596787}}",
    "{\"id\":17,\"name\":\"open64\",\"cat\":\"POSIX\",\"pid\":3,\"tid\":3,\"ts\":1759387941851045,"
    "\"dur\":3194,\"ph\":\"X\",\"args\":{\"hhash\":7389220539935392818,\"fhash\":17288502665531596787}}",
    "{\"id\":2,\"name\":\"n\",\"cat\":\"c\",\"type\":3,\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":4,\"ph\":1,"
    "\"args\":{}}",
    "{\"id\":2,\"name\":\"n\",\"cat\":\"c\",\"pid\":1,\"tid\":2,\"ph\":\"i\"}",
    "{\"id\":2,\"name\":\"n\",\"cat\":\"c\",\"pid\":1,\"tid\":2,\"ts\":3,\"ph\":1}",
    "{\"id\":2,\"name\":\"n\",\"cat\":\"c\",\"pid\":1,\"tid\":2,\"dur\":3,\"ph\":\"X\",\"args\":{\"a\":1}}",
    /* keys out of order, missing, repeated, extra */
    "{\"name\":\"read\",\"id\":5,\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\"}",
    "{\"id\":5,\"name\":\"read\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\"}",
    "{\"id\":5,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":1,\"ts\":2,\"dur\":1,"
    "\"ph\":\"X\"}",
    "{\"id\":5,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\","
    "\"args\":{\"ret\":1},\"bp\":\"e\"}",
    "{\"id\":5,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\","
    "\"dur\":7}",
    /* escapes, non-ASCII, control bytes, strings full of structure */
    "{\"id\":5,\"name\":\"a\\\"b\",\"cat\":\"P\\u00e9\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
    "\"ph\":\"X\",\"args\":{\"fname\":\"/a\\/b\"}}",
    "{\"id\":5,\"name\":\"\xc3\xa9t\xc3\xa9\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
    "\"ph\":\"X\"}",
    "{\"id\":5,\"name\":\"bad\xff\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\"}",
    "{\"id\":5,\"name\":\"t\tab\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\"}",
    "{\"id\":5,\"name\":\"a,b:c{d}[e]\",\"cat\":\",\\\"x\\\":\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
    "\"ph\":\"X\",\"args\":{\"k\":\"},{\\\"\",\"mode\":\"r,w:{}\"}}",
    "{\"id\":5,\"name\":\"\",\"cat\":\"\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"\","
    "\"args\":{\"\":\"\"}}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\" \"}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"\x7f\"}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"XY\"}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"\\u0058\"}",
    /* numbers as strings, odd numbers, huge numbers */
    "{\"id\":\"5\",\"name\":\"x\",\"cat\":\"c\",\"pid\":\"12\",\"tid\":\"main\",\"ts\":\"1712\","
    "\"dur\":\"0.5\",\"ph\":\"X\",\"args\":{\"size\":\"4096\",\"ret\":\"-1\"}}",
    /* numbers written as strings under wanted keys, and keys of 9 to 17 bytes: the indexed
     * layout reads them itself, and remembers long keys by both their words (image_sizeac
     * shares image_size's first word and memo slot, and only one of them is wanted) */
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\",\"args\":{"
    "\"size\":\"4096\",\"ret\":\"-0\",\"count\":\"007\",\"offset\":\"123456789012345\","
    "\"mode\":\"1234567890123456\",\"a\":\"-\",\"cwd\":\"12\",\"key\":\"-3\",\"x\":\"\"}}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\",\"args\":{"
    "\"image_size\":\"12\",\"image_sizeac\":\"13\",\"image_sizes\":\"13\",\"image_idx\":7,\"level\":2,\"ret\":3,"
    "\"sixteen_bytes_ab\":\"-9\",\"seventeen_bytes_x\":\"8\",\"image_sizes\":14,\"mode\":\"2\"}}",
    "{\"id\":123456789012345678901,\"name\":7,\"cat\":null,\"pid\":-4,\"tid\":007,"
    "\"ts\":9223372036854775,\"dur\":9223372036854776,\"ph\":\"X\"}",
    "{\"id\":0x10,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1.5,\"dur\":1e3,\"ph\":\"X\"}",
    "{\"id\":12345678901234567,\"name\":\"x\",\"cat\":\"c\",\"pid\":12345678901234567890,"
    "\"tid\":99999999999999999999,\"ts\":17593879418420160000,\"dur\":-5,\"ph\":\"X\"}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\",\"args\":{"
    "\"hhash\":18446744073709551616,\"fhash\":\"00ff\",\"ret\":-0,\"count\":00,\"size\":1.0,"
    "\"offset\":123456789012345678901234567890,\"x\":-,\"y\":NaN}}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\",\"args\":{"
    "\"hhash\":1844674407370955161,\"fhash\":12345678901234567890,\"ret\":1234567890123456,"
    "\"count\":123456789012345,\"size\":-123456789012345,\"p_idx\":-1,\"level\":0}}",
    /* nested args, other values, keys the parser reads itself */
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\",\"args\":{"
    "\"a\":{\"b\":[1,2,{\"c\":\"d\"}]},\"e\":[],\"f\":true,\"g\":false,\"h\":null,\"ret\":5}}",
    "{\"id\":5,\"name\":\"end\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
    "\"ph\":\"X\",\"args\":{\"cfg\":{\"time_metric\":\"NS\"}}}",
    "{\"id\":5,\"name\":\"process_name\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{"
    "\"start_time_since_epoch_in_micros\":1712195495519689,\"name\":\"p\"}}",
    "{\"id\":5,\"name\":\"thread_name\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{"
    "\"name\":\"worker\"}}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\",\"args\":{"
    "\"hostname\":\"h1\",\"fname\":\"/f\",\"name\":5,\"value\":\"v\",\"epoch\":\"2\",\"step\":3}}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\","
    "\"args\":[1]}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\","
    "\"args\":null}",
    /* spaces, trailing commas, damage */
    "{\"id\": 5, \"name\": \"x\", \"cat\": \"c\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1, "
    "\"ph\": \"X\", \"args\": {\"ret\": 1}}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\","
    "\"args\":{\"ret\":1 }}  ",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\","
    "\"args\":{\"ret\":1,}}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\",}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\","
    "\"args\":{\"ret\":1}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\","
    "\"args\":{\"ret\":1}}}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\","
    "\"args\":{\"ret\"1}}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\","
    "\"args\":{\"ret\":1\"x\":2}}",
    "{\"id\":5,\"name\":\"x,\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\"}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":,\"ph\":\"X\"}",
    "{\"id\":5,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\"",
    "{\"id\":5}",
    "{}",
};

static void compare_values(fx *a, fx *b, const dfs_value *x, const dfs_value *y)
{
    assert_int_equal(x->type, y->type);
    assert_int_equal(x->flags, y->flags);
    switch (x->type) {
    case DFS_V_BOOL: case DFS_V_INT: case DFS_V_UINT:
        assert_true(x->as.u == y->as.u);
        break;
    case DFS_V_FLOAT:
        assert_memory_equal(&x->as.f, &y->as.f, sizeof x->as.f);
        break;
    case DFS_V_STR:
        assert_string_equal(S(a, x->as.s), S(b, y->as.s));
        break;
    case DFS_V_LIST: case DFS_V_MAP:
        assert_int_equal(x->len, y->len);
        for (uint32_t i = 0; i < x->len; i++) {
            assert_string_equal(S(a, x->as.items[i].key), S(b, y->as.items[i].key));
            compare_values(a, b, &x->as.items[i].val, &y->as.items[i].val);
        }
        break;
    default:
        break;
    }
}

/* Everything a record leaves behind: events (all fields, args deep), counts, stream state. */
static void compare_all(fx *a, fx *b)
{
    compare_streams(a, b);
    for (size_t i = 0; i < a->t.batch.events.n; i++) {
        const dfs_event *x = &a->t.batch.events.v[i], *y = &b->t.batch.events.v[i];
        assert_true(x->offset == y->offset && x->file == y->file);
        assert_string_equal(S(a, x->tid_str), S(b, y->tid_str));
        assert_string_equal(S(a, x->host), S(b, y->host));
        for (uint32_t k = 0; k < x->nargs; k++)
            compare_values(a, b, &x->args[k].val, &y->args[k].val);
    }
    assert_true(a->t.st.recovered == b->t.st.recovered);
    assert_true(a->t.st.unresolved_refs == b->t.st.unresolved_refs);
    assert_true(a->t.st.defs.n == b->t.st.defs.n);
    assert_true(a->t.st.names.n == b->t.st.names.n);
    assert_true(a->t.st.has_clock_offset == b->t.st.has_clock_offset &&
                a->t.st.clock_offset_ns == b->t.st.clock_offset_ns);
    assert_true(a->t.st.scale_num == b->t.st.scale_num && a->t.st.scale_den == b->t.st.scale_den);
    assert_memory_equal(a->t.st.phase_counts, b->t.st.phase_counts, sizeof a->t.st.phase_counts);
    assert_memory_equal(a->t.st.ph_written, b->t.st.ph_written, sizeof a->t.st.ph_written);
}

/* Parses text with the fast paths into a (the bytes after it readable and set to `after`, or
 * none readable when after is 0) and with the general parser only into b; the statuses and the
 * events must agree. The buffer is exactly as long as the parser is told, so that ASan sees a
 * read past it; the slack is just what the indexed layout needs or a bit more. */
static void parse_both(fx *a, fx *b, const char *text, size_t n, char after)
{
    size_t avail = after ? n + 64 + n % 3 : n;
    char *buf = malloc(avail ? avail : 1);
    assert_non_null(buf);
    memcpy(buf, text, n);
    memset(buf + n, after, avail - n);
    dfs_rec_status sa = dfs_parse_record_ex(&a->t.p, buf, n, avail, n, 0, &a->memo);
    free(buf);
    dfs_rec_status sb = dfs_parse_record_ex(&b->t.p, text, n, n, n, DFS_REC_GENERAL, NULL);
    if (sa != sb)
        fail_msg("status %d vs %d: %.*s", sa, sb, (int)n, text);
    if (sa == DFS_REC_EVENT) {
        const dfs_event *x = &a->t.batch.events.v[a->t.batch.events.n - 1];
        const dfs_event *y = &b->t.batch.events.v[b->t.batch.events.n - 1];
        if (x->id != y->id || x->fhash != y->fhash || x->hhash != y->hhash || x->ts != y->ts ||
            x->dur != y->dur || x->pid != y->pid || x->tid != y->tid || x->flags != y->flags ||
            x->ph != y->ph || x->phase != y->phase || x->type != y->type || x->nargs != y->nargs ||
            strcmp(S(a, x->name), S(b, y->name)) || strcmp(S(a, x->cat), S(b, y->cat)))
            fail_msg("events differ: %.*s", (int)n, text);
    }
}

static void want_mode(fx *f, int want)
{
    static const char *const extra[] = {"mode",         "a",           "", "image_sizeac",
                                        "sixteen_bytes_ab", "image_sizes", "level", NULL};
    f->t.want.all = want == 2;
    f->t.want.keys = want == 1 ? DFS_KEYBIT(DFS_KEY_RET) | DFS_KEYBIT(DFS_KEY_SIZE) |
                                   DFS_KEYBIT(DFS_KEY_COUNT) | DFS_KEYBIT(DFS_KEY_OFFSET) |
                                   DFS_KEYBIT(DFS_KEY_FHASH) | DFS_KEYBIT(DFS_KEY_NAME)
                     : want == 4 ? DFS_KEYBIT(DFS_KEY_RET) | DFS_KEYBIT(DFS_KEY_LEVEL) | DFS_KEYBIT(DFS_KEY_P_IDX)
                                 : 0;
    if (want == 3) {
        f->t.want.nextra = 7;
        for (size_t i = 0; i < 7; i++) {
            f->t.want.extra[i] = extra[i];
            f->t.want.extra_len[i] = strlen(extra[i]);
            f->t.want.extra_id[i] = dfs_strcache_intern(f->t.strs, extra[i], strlen(extra[i]));
        }
    }
}

static void test_indexed_layout_matches_general(void **state)
{
    (void)state;
    static const char afters[] = {'7', '"', '}', '\n', ',', 0};
    for (int want = 0; want < 5; want++)
        for (size_t k = 0; k < sizeof afters; k++) {
            fx *a = fx_new(), *b = fx_new();
            want_mode(a, want);
            want_mode(b, want);
            for (int round = 0; round < 2; round++)
                for (size_t i = 0; i < sizeof TRICKY / sizeof *TRICKY; i++)
                    parse_both(a, b, TRICKY[i], strlen(TRICKY[i]), afters[k]);
            compare_all(a, b);
            fx_free(a);
            fx_free(b);
        }
}

/* Random damage to plain DFTracer lines: bytes replaced, inserted or dropped, drawn mostly from
 * JSON structure. Whatever the result, both readings must agree (and ASan checks the reads). */
static void test_indexed_layout_mutations(void **state)
{
    (void)state;
    static const char alphabet[] = "{}[]\":,\\ 0123456789-.eE+xnul\x01\x7f\xc3\xa9";
    uint64_t rng = 0x9E3779B97F4A7C15u;
    for (int want = 0; want < 5; want++) {
        fx *a = fx_new(), *b = fx_new();
        want_mode(a, want);
        want_mode(b, want);
        for (int iter = 0; iter < 5000; iter++) {
            const char *base = TRICKY[iter % 12];
            char rec[1024];
            size_t n = strlen(base);
            memcpy(rec, base, n);
            for (int m = 0; m < 1 + iter % 3; m++) {
                rng = rng * 6364136223846793005u + 1442695040888963407u;
                size_t at = (size_t)(rng >> 33) % n;
                char c = alphabet[(rng >> 20) % (sizeof alphabet - 1)];
                switch ((rng >> 8) % 3) {
                case 0: rec[at] = c; break;
                case 1: memmove(rec + at + 1, rec + at, n - at); rec[at] = c; n++; break;
                default: if (n > 2) { memmove(rec + at, rec + at + 1, n - at - 1); n--; } break;
                }
            }
            if (rec[0] != '{')
                continue;
            parse_both(a, b, rec, n, "7\"},"[iter % 5]); /* the 5th: nothing readable */
        }
        compare_all(a, b);
        fx_free(a);
        fx_free(b);
    }
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_v1_complete_event),
        T(test_hash_resolution),
        T(test_v2_hex_hashes),
        T(test_2023_string_numbers),
        T(test_v2_phases),
        T(test_type),
        T(test_string_pid_tid),
        T(test_ids_and_decimals),
        T(test_int_overflow),
        T(test_nonfinite),
        T(test_missing_cat),
        T(test_ts_regression),
        T(test_x_without_dur),
        T(test_negative_and_absurd_dur),
        T(test_time_overflow),
        T(test_phase_letters),
        T(test_control_char_and_invalid_utf8),
        T(test_repaired_quote),
        T(test_empty_record),
        T(test_bad_records),
        T(test_whitespace_and_key_order),
        T(test_args_wanted_keys),
        T(test_args_marker_keys),
        T(test_args_extra_and_all),
        T(test_args_top_level_extra),
        T(test_args_escaped_keys),
        T(test_process_and_thread_names),
        T(test_smdebug_framework_start),
        T(test_v2_end_record),
        T(test_smdebug_system_metric),
        T(test_dasf_text),
        T(test_dialects),
        T(test_recovered_mode),
        T(test_fast_paths_match),
        T(test_indexed_layout_matches_general),
        T(test_indexed_layout_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
