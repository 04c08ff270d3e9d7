/* test_postread.c - the post-read rules (layered-analysis.md §3) of the shipped presets: ignored
 * files and functions, io_cat (metadata first, raw category case-sensitive), size rules, category
 * suffixes in G2 and G3 order, and layer membership through the classifier's memo. */
#include <stdio.h>
#include <string.h>

#include "analyze/common/postread.h"
#include "analyze/common/preset.h"
#include "testutil.h"

typedef struct seen {
    dfs_pr_event pe[32];
    char cat[32][96];
    size_t n;
    dfs_postread *cls;
} seen;

static void *begin(void *user)
{
    return user;
}

/* Classifies every complete event (one worker: -j 1) and keeps the answers in file order. */
static void on_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    seen *s = state;
    for (size_t i = 0; i < b->count && s->n < 32; i++) {
        const dfs_event *ev = &b->events[i];
        if (ev->phase != DFS_PHASE_COMPLETE)
            continue;
        dfs_pr_input in = {.cat = ev->cat, .name = ev->name, .fname = ev->fname, .host = ev->host,
                           .pid = ev->pid, .tid = ev->tid,
                           .has_size_sum = dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_SIZE_SUM)) != NULL};
        dfs_pr_event *pe = &s->pe[s->n];
        assert_true(dfs_postread_classify(s->cls, run, &in, pe));
        size_t len;
        const char *c = dfs_postread_cat_text(s->cls, pe->cat, &len);
        snprintf(s->cat[s->n], sizeof s->cat[s->n], "%.*s", (int)len, c);
        s->n++;
    }
}

static void end(void *user, const dfs_run *run, void *state)
{
    (void)user, (void)run, (void)state;
}

#define EV(name, cat, args)                                                                        \
    "{\"name\":\"" name "\",\"cat\":\"" cat "\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":2,\"ph\":\"X\",\"args\":{" args "}}\n"

static const char trace[] =
    "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"/p/lustre/x/data/f\",\"value\":1}}\n"
    "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"/p/checkpoint/data/c\",\"value\":2}}\n"
    "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"/x/__pycache__/m.pyc\",\"value\":3}}\n"
    EV("pread", "POSIX", "\"fhash\":1,\"ret\":4096")                 /* 0: read, sized, suffixed */
    EV("pread64", "POSIX", "\"fhash\":1,\"ret\":8")                  /* 1: read in G3 only */
    EV("fopen", "STDIO", "\"fhash\":1,\"ret\":3")                    /* 2: metadata */
    EV("pread", "posix", "\"fhash\":1,\"ret\":4096")                 /* 3: lower-case raw cat: io_cat 6 */
    EV("write", "POSIX", "\"fhash\":2,\"ret\":\"0\"")                /* 4: ret 0: no size */
    EV("read", "POSIX", "\"fhash\":3,\"ret\":5")                     /* 5: ignored file */
    EV("TFReader.next", "reader", "")                                /* 6: ignored in G2 and G3 (pattern) */
    EV("HDF5Reader.read_index", "reader", "")                        /* 7: ignored in G3 only */
    EV("crumb", "dc", "\"size_sum\":77,\"image_size\":5")            /* 8: size_sum: io_cat 6 */
    EV("load", "reader", "\"image_size\":300")                       /* 9: image size (G3) */
    EV("open_image", "reader", "\"image_size\":300")                 /* 10: 'open': no image size */
    EV("fork", "POSIX", "")                                          /* 11: PCTL, no file */
    EV("mmap", "POSIX", "\"fhash\":1")                               /* 12: unclassified */
    EV("pread", "POSIX", "\"fhash\":1,\"ret\":4096");                /* 13: same key as 0: memo */

static void classify_trace(const dfs_preset *preset, seen *s, dfs_layer_plan *plan)
{
    dfs_pred_error perr;
    assert_true(dfs_layer_plan_init(plan, preset, preset->layers, preset->nlayers, &perr));
    memset(s, 0, sizeof *s);
    s->cls = dfs_postread_new(plan);
    assert_non_null(s->cls);
    const char *path = tu_temp_file(".pfw", trace, sizeof trace - 1);
    dfs_run *run = tu_run(1, 0, 0);
    assert_int_equal(dfs_run_add_path(run, path), DFS_OK);
    dfs_consumer c = {.user = s, .want = {.keys = DFS_POSTREAD_KEYS}, .worker_begin = begin, .on_batch = on_batch,
                      .worker_end = end};
    dfs_consumer *cs[] = {&c};
    assert_int_equal(dfs_run_read(run, cs, 1), DFS_EXIT_OK);
    dfs_run_free(run);
    assert_int_equal(s->n, 14);
}

static void classify_all(const char *preset_name, seen *s, dfs_preset **preset, dfs_layer_plan *plan)
{
    dfs_preset_error err;
    *preset = dfs_preset_load(preset_name, &err);
    assert_non_null(*preset);
    classify_trace(*preset, s, plan);
}

static bool in_layer(const dfs_preset *p, const dfs_pr_event *pe, const char *layer)
{
    int l = dfs_preset_layer_index(p, layer);
    assert_true(l >= 0);
    return (pe->layers >> l) & 1;
}

static void test_g3_rules(void **state)
{
    (void)state;
    seen s;
    dfs_preset *p;
    dfs_layer_plan plan;
    classify_all("dlio", &s, &p, &plan);
    assert_int_equal(s.pe[0].io_cat, DFS_IO_READ);
    assert_int_equal(s.pe[0].size_rule, DFS_SIZE_FROM_RET);
    assert_string_equal(s.cat[0], "posix_reader_lustre"); /* G3 order: /data, /checkpoint, /lustre */
    assert_true(in_layer(p, &s.pe[0], "reader_posix") && in_layer(p, &s.pe[0], "posix"));
    assert_int_equal(s.pe[1].io_cat, DFS_IO_READ); /* pread64 is a G3 name */
    assert_int_equal(s.pe[2].io_cat, DFS_IO_METADATA);
    assert_string_equal(s.cat[2], "stdio_reader_lustre");
    assert_int_equal(s.pe[3].io_cat, DFS_IO_OTHER); /* quirk 8: raw cat must be exactly POSIX */
    assert_int_equal(s.pe[3].size_rule, DFS_SIZE_FROM_IMAGE); /* rule 3 applies; no image_size: no size */
    assert_int_equal(s.pe[4].io_cat, DFS_IO_WRITE);
    assert_string_equal(s.cat[4], "posix_reader_checkpoint");
    assert_true(in_layer(p, &s.pe[4], "checkpoint_posix") && in_layer(p, &s.pe[4], "reader_posix"));
    assert_true(s.pe[5].dropped_file);
    assert_true(s.pe[6].dropped_func);
    assert_true(s.pe[7].dropped_func);
    assert_int_equal(s.pe[8].size_rule, DFS_SIZE_FROM_SIZE_SUM);
    assert_int_equal(s.pe[8].io_cat, DFS_IO_OTHER);
    assert_int_equal(s.pe[9].size_rule, DFS_SIZE_FROM_IMAGE);
    assert_true(in_layer(p, &s.pe[9], "reader"));
    assert_int_equal(s.pe[10].size_rule, DFS_SIZE_NONE);
    assert_int_equal(s.pe[11].io_cat, DFS_IO_PCTL);
    assert_string_equal(s.cat[11], "posix"); /* no file: no suffix */
    assert_true(in_layer(p, &s.pe[11], "data_loader_fork"));
    assert_int_equal(s.pe[12].io_cat, DFS_IO_OTHER);  /* mmap is unclassified */
    assert_memory_equal(&s.pe[13], &s.pe[0], sizeof s.pe[0]);
    dfs_postread_free(s.cls);
    dfs_preset_free(p);
}

static void test_g2_rules(void **state)
{
    (void)state;
    seen s;
    dfs_preset *p;
    dfs_layer_plan plan;
    classify_all("dlio-g2", &s, &p, &plan);
    assert_int_equal(s.pe[1].io_cat, DFS_IO_OTHER); /* pread64 is not in G2's lists */
    assert_string_equal(s.cat[4], "posix_checkpoint_reader"); /* G2 order: /checkpoint, /data */
    assert_false(s.pe[7].dropped_func);                     /* read_index is kept in G2 */
    assert_int_equal(s.pe[9].size_rule, DFS_SIZE_NONE);     /* no image-size rule in G2 */
    assert_true(in_layer(p, &s.pe[0], "reader_posix_lustre"));
    assert_true(in_layer(p, &s.pe[11], "other_posix") && in_layer(p, &s.pe[11], "data_loader_fork"));
    dfs_postread_free(s.cls);
    dfs_preset_free(p);
}

/* ----- pattern lists too long for the one-pass matcher are tested pattern by pattern ---------- */

#define LONG_LIST 80

/* `l` followed by patterns that match nothing in the trace, LONG_LIST in all. */
static dfs_string_list padded(dfs_string_list l, const char **out)
{
    assert_true(l.n < LONG_LIST);
    for (size_t i = 0; i < LONG_LIST; i++)
        out[i] = i < l.n ? l.v[i] : "\x01never";
    return (dfs_string_list){out, LONG_LIST};
}

static void long_pattern_lists_answer_the_same(void **state)
{
    (void)state;
    seen fast, slow;
    dfs_preset *p;
    dfs_layer_plan plan, long_plan;
    classify_all("dlio", &fast, &p, &plan);
    dfs_post_read *r = &p->post_read;
    dfs_string_list files = r->ignored_file_patterns, funcs = r->ignored_function_patterns;
    const char *long_files[LONG_LIST], *long_funcs[LONG_LIST];
    r->ignored_file_patterns = padded(files, long_files);
    r->ignored_function_patterns = padded(funcs, long_funcs);
    classify_trace(p, &slow, &long_plan);
    for (size_t i = 0; i < fast.n; i++) {
        assert_int_equal(slow.pe[i].dropped_file, fast.pe[i].dropped_file);
        assert_int_equal(slow.pe[i].dropped_func, fast.pe[i].dropped_func);
        assert_int_equal(slow.pe[i].io_cat, fast.pe[i].io_cat);
        assert_int_equal(slow.pe[i].size_rule, fast.pe[i].size_rule);
        assert_int_equal(slow.pe[i].layers, fast.pe[i].layers);
        assert_string_equal(slow.cat[i], fast.cat[i]);
    }
    assert_true(slow.pe[5].dropped_file && slow.pe[6].dropped_func && slow.pe[7].dropped_func);
    r->ignored_file_patterns = files;
    r->ignored_function_patterns = funcs;
    dfs_postread_free(fast.cls);
    dfs_postread_free(slow.cls);
    dfs_preset_free(p);
}

/* ----- the memos: answers stay right when many files and keys share memo slots -------------- */

#define MANY_FILES 600

typedef struct many {
    dfs_postread *cls;
    size_t n, wrong;
} many;

static void on_many(void *state, const dfs_run *run, const dfs_batch *b)
{
    many *m = state;
    for (size_t i = 0; i < b->count; i++) {
        const dfs_event *ev = &b->events[i];
        if (ev->phase != DFS_PHASE_COMPLETE)
            continue;
        dfs_pr_input in = {.cat = ev->cat, .name = ev->name, .fname = ev->fname, .pid = ev->pid, .tid = ev->tid};
        dfs_pr_event pe;
        assert_true(dfs_postread_classify(m->cls, run, &in, &pe));
        unsigned f = (unsigned)(ev->ts / 10000); /* the file's number: the event's time is 10 f µs */
        size_t len;
        const char *cat = dfs_postread_cat_text(m->cls, pe.cat, &len);
        bool ignored = f % 2 == 1;
        uint8_t io = f % 3 == 0 ? DFS_IO_READ : f % 3 == 1 ? DFS_IO_WRITE : DFS_IO_METADATA;
        const char *want_cat = ignored ? "posix" : "posix_reader";
        m->wrong += pe.dropped_file != ignored || pe.io_cat != io || len != strlen(want_cat) ||
                    memcmp(cat, want_cat, len) != 0;
        m->n++;
    }
}

static void memos_answer_right_for_many_files_and_keys(void **state)
{
    (void)state;
    size_t cap = 400 * (MANY_FILES + 2 * MANY_FILES), len = 0;
    char *trace_text = malloc(cap);
    assert_non_null(trace_text);
    for (unsigned f = 0; f < MANY_FILES; f++)
        len += (size_t)snprintf(trace_text + len, cap - len,
                                "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
                                "\"args\":{\"name\":\"%s%u\",\"value\":%u}}\n",
                                f % 2 ? "/x/__pycache__/m" : "/p/data/f", f, f + 1);
    /* every file in order, then in a scrambled order: the second visit goes through the memos */
    for (unsigned pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < MANY_FILES; i++) {
            unsigned f = pass ? (i * 7919u) % MANY_FILES : i;
            const char *name = f % 3 == 0 ? "pread" : f % 3 == 1 ? "write" : "lseek";
            len += (size_t)snprintf(trace_text + len, cap - len,
                                    "{\"name\":\"%s\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%u,"
                                    "\"dur\":1,\"ph\":\"X\",\"args\":{\"fhash\":%u,\"ret\":1}}\n",
                                    name, f * 10, f + 1);
        }
    dfs_preset_error err;
    dfs_preset *p = dfs_preset_load("dlio", &err);
    assert_non_null(p);
    dfs_pred_error perr;
    dfs_layer_plan plan;
    assert_true(dfs_layer_plan_init(&plan, p, p->layers, p->nlayers, &perr));
    many m = {.cls = dfs_postread_new(&plan)};
    assert_non_null(m.cls);
    const char *path = tu_temp_file(".pfw", trace_text, len);
    dfs_run *run = tu_run(1, 0, 0);
    assert_int_equal(dfs_run_add_path(run, path), DFS_OK);
    dfs_consumer c = {.user = &m, .want = {.keys = DFS_POSTREAD_KEYS}, .worker_begin = begin, .on_batch = on_many,
                      .worker_end = end};
    dfs_consumer *cs[] = {&c};
    assert_int_equal(dfs_run_read(run, cs, 1), DFS_EXIT_OK);
    dfs_run_free(run);
    assert_int_equal(m.n, 2 * MANY_FILES);
    assert_int_equal(m.wrong, 0);
    dfs_postread_free(m.cls);
    dfs_preset_free(p);
    free(trace_text);
}

/* A layer whose predicate reads a process column (pid) is answered per event: two events with
 * the same (cat, name, file, size_sum) but other pids must not share a memoised answer. */
static void per_event_columns_are_not_memoised_by_key(void **state)
{
    (void)state;
    static const char yaml[] = "name: by-pid\n"
                               "generation: g3\n"
                               "base: posix\n"
                               "time_boundary: two\n"
                               "additional_metrics: []\n"
                               "layers:\n"
                               "  - name: two\n"
                               "    predicate: 'cat.str.contains(\"posix\") and pid == 2'\n"
                               "    size_layer: true\n";
#define PID_EV(pid)                                                                                \
    "{\"name\":\"pread\",\"cat\":\"POSIX\",\"pid\":" #pid ",\"tid\":1,\"ts\":10,\"dur\":2,\"ph\":\"X\","     \
    "\"args\":{\"fhash\":1,\"ret\":4096}}\n"
    static const char by_pid[] =
        "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"/p/f\",\"value\":1}}\n"
        PID_EV(1) PID_EV(2) PID_EV(1) PID_EV(2);
#undef PID_EV
    dfs_preset_error err;
    dfs_preset *p = dfs_preset_parse(yaml, sizeof yaml - 1, "by-pid.yaml", &err);
    if (!p)
        fail_msg("%s", err.message);
    dfs_pred_error perr;
    dfs_layer_plan plan;
    assert_true(dfs_layer_plan_init(&plan, p, p->layers, p->nlayers, &perr));
    assert_true(plan.per_event);
    seen s = {.cls = dfs_postread_new(&plan)};
    assert_non_null(s.cls);
    assert_null(dfs_postread_front(s.cls));
    dfs_run *run = tu_run(1, 0, 0);
    assert_int_equal(dfs_run_add_path(run, tu_temp_file(".pfw", by_pid, sizeof by_pid - 1)), DFS_OK);
    dfs_consumer c = {.user = &s, .want = {.keys = DFS_POSTREAD_KEYS}, .worker_begin = begin, .on_batch = on_batch,
                      .worker_end = end};
    dfs_consumer *cs[] = {&c};
    assert_int_equal(dfs_run_read(run, cs, 1), DFS_EXIT_OK);
    dfs_run_free(run);
    assert_int_equal(s.n, 4);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(s.pe[i].layers, i % 2 ? 1 : 0);
    dfs_postread_free(s.cls);
    dfs_preset_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_g3_rules),
        cmocka_unit_test(test_g2_rules),
        cmocka_unit_test(long_pattern_lists_answer_the_same),
        cmocka_unit_test(memos_answer_right_for_many_files_and_keys),
        cmocka_unit_test(per_event_columns_are_not_memoised_by_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
