/* mergetest.h - what test_merge.c and test_merge_corpus.c share: merging files into a file, and
 * reading a trace back as one canonical text line per event (name, cat, ph, ts, dur, pid, tid,
 * id and every arg), so that two traces can be compared as multisets of events. */
#ifndef DFS_MERGETEST_H
#define DFS_MERGETEST_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#include "output/merge/merge.h"

/* Merges paths into out (gzip when it ends in .gz). Returns the read verdict, or
 * DFS_EXIT_OUTPUT when writing failed. rep may be NULL. */
static int mt_merge(const char *const *paths, size_t n, uint64_t memory, bool compat, int jobs,
                    const char *out, dfs_merge_report *rep)
{
    dfs_run *run = tu_run(jobs, 0, 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(dfs_run_add_path(run, paths[i]), DFS_OK);
    dfs_merge_options o;
    dfs_merge_options_init(&o);
    o.memory = memory;
    o.compat_composer = compat;
    char err[512];
    dfs_merge *m = dfs_merge_new(&o, err, sizeof err);
    assert_non_null(m);
    dfs_consumer *cs[] = {dfs_merge_consumer(m)};
    int rc = dfs_run_read(run, cs, 1);
    FILE *f = fopen(out, "w");
    assert_non_null(f);
    size_t len = strlen(out);
    FILE *sink = dfs_merge_sink(fileno(f), len > 3 && strcmp(out + len - 3, ".gz") == 0);
    assert_non_null(sink);
    dfs_merge_report local;
    dfs_status st = dfs_merge_write(m, run, sink, rep ? rep : &local, err, sizeof err);
    if (st != DFS_OK)
        fprintf(stderr, "merge: %s\n", err);
    if (fclose(sink) != 0 || fclose(f) != 0)
        st = DFS_ERR_IO;
    if (!rep)
        dfs_merge_report_free(&local);
    dfs_merge_free(m);
    dfs_run_free(run);
    return st == DFS_OK ? rc : DFS_EXIT_OUTPUT;
}

/* ---- canonical events --------------------------------------------------------------------- */

typedef struct mt_text {
    char *p;
    size_t n, cap;
} mt_text;

static void mt_put(mt_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void mt_put(mt_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->n + (size_t)n + 1 > t->cap) {
        t->cap = (t->n + (size_t)n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        assert_non_null(t->p);
    }
    va_start(ap, fmt);
    vsnprintf(t->p + t->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->n += (size_t)n;
}

static void mt_value(mt_text *t, const dfs_run *run, const dfs_value *v)
{
    switch (v->type) {
    case DFS_V_NULL: mt_put(t, "null"); break;
    case DFS_V_BOOL: mt_put(t, v->as.i ? "true" : "false"); break;
    case DFS_V_INT: mt_put(t, "%lld", (long long)v->as.i); break;
    case DFS_V_UINT: mt_put(t, "%llu", (unsigned long long)v->as.u); break;
    case DFS_V_FLOAT: mt_put(t, "%.17g", v->as.f); break;
    case DFS_V_STR: mt_put(t, "'%s'", dfs_str_get(run, v->as.s, NULL)); break;
    case DFS_V_LIST:
    case DFS_V_MAP:
        mt_put(t, v->type == DFS_V_MAP ? "{" : "[");
        for (uint32_t i = 0; i < v->len; i++) {
            if (v->type == DFS_V_MAP)
                mt_put(t, "%s:", dfs_str_get(run, v->as.items[i].key, NULL));
            mt_value(t, run, &v->as.items[i].val);
            mt_put(t, ",");
        }
        mt_put(t, v->type == DFS_V_MAP ? "}" : "]");
        break;
    default: break;
    }
}

typedef struct mt_event {
    char *text;   /* canonical line */
    int64_t ts;   /* absolute ns (INT64_MIN without ts) */
    bool meta;
    int64_t pid;
} mt_event;

typedef struct mt_events {
    mt_event *v;
    size_t n, cap;
    uint64_t damage;
    uint64_t problems[DFS_PROB__COUNT];
    int rc;
} mt_events;

static void mt_on_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    mt_events *es = state;
    for (size_t i = 0; i < b->count; i++) {
        const dfs_event *e = &b->events[i];
        mt_text t = {0};
        mt_put(&t, "%c|%s|%s|", e->ph, dfs_str_get(run, e->name, NULL), dfs_str_get(run, e->cat, NULL));
        if (e->flags & DFS_EF_HAS_TS)
            mt_put(&t, "ts=%lld|", (long long)e->ts);
        if (e->flags & DFS_EF_HAS_DUR)
            mt_put(&t, "dur=%lld|", (long long)e->dur);
        if (e->flags & DFS_EF_PID_STR)
            mt_put(&t, "pid='%s'|", dfs_str_get(run, e->pid_str, NULL));
        else if (e->flags & DFS_EF_HAS_PID)
            mt_put(&t, "pid=%lld|", (long long)e->pid);
        if (e->flags & DFS_EF_TID_STR)
            mt_put(&t, "tid='%s'|", dfs_str_get(run, e->tid_str, NULL));
        else if (e->flags & DFS_EF_HAS_TID)
            mt_put(&t, "tid=%lld|", (long long)e->tid);
        for (uint32_t a = 0; a < e->nargs; a++) {
            mt_put(&t, "%s=", dfs_str_get(run, e->args[a].key, NULL));
            mt_value(&t, run, &e->args[a].val);
            mt_put(&t, ",");
        }
        if (es->n == es->cap) {
            es->cap = es->cap ? es->cap * 2 : 256;
            es->v = realloc(es->v, es->cap * sizeof *es->v);
            assert_non_null(es->v);
        }
        es->v[es->n++] = (mt_event){t.p, (e->flags & DFS_EF_HAS_TS) ? e->ts : INT64_MIN,
                                    e->phase == DFS_PHASE_METADATA, e->pid};
    }
}

static void *mt_begin(void *user) { return user; }

/* Every event of path, in file order (one thread), with all args. */
static mt_events mt_read(const char *path)
{
    mt_events es = {0};
    dfs_run *run = tu_run(1, 0, 0);
    assert_int_equal(dfs_run_add_path(run, path), DFS_OK);
    dfs_consumer c = {.user = &es, .want = {.all_args = true}, .worker_begin = mt_begin,
                      .on_batch = mt_on_batch};
    dfs_consumer *cs[] = {&c};
    es.rc = dfs_run_read(run, cs, 1);
    es.damage = dfs_run_damage_total(run);
    for (int p = 0; p < DFS_PROB__COUNT; p++)
        es.problems[p] = dfs_run_problem_count(run, (dfs_problem)p);
    const dfs_file_info *fi = dfs_run_file(run, 0);
    for (size_t i = 0; i < es.n; i++)
        if (es.v[i].ts != INT64_MIN)
            es.v[i].ts = dfs_file_abs_ns(fi, es.v[i].ts);
    dfs_run_free(run);
    return es;
}

static void mt_free(mt_events *es)
{
    for (size_t i = 0; i < es->n; i++)
        free(es->v[i].text);
    free(es->v);
    memset(es, 0, sizeof *es);
}

static int mt_cmp_text(const void *a, const void *b)
{
    return strcmp(((const mt_event *)a)->text, ((const mt_event *)b)->text);
}

/* The two traces hold the same events (as multisets); prints the first difference. */
static bool mt_same_events(mt_events *a, mt_events *b)
{
    qsort(a->v, a->n, sizeof *a->v, mt_cmp_text);
    qsort(b->v, b->n, sizeof *b->v, mt_cmp_text);
    for (size_t i = 0; i < a->n && i < b->n; i++) {
        if (strcmp(a->v[i].text, b->v[i].text) != 0) {
            fprintf(stderr, "first difference:\n  %s\n  %s\n", a->v[i].text, b->v[i].text);
            return false;
        }
    }
    if (a->n != b->n)
        fprintf(stderr, "%zu events against %zu\n", a->n, b->n);
    return a->n == b->n;
}

/* Metadata first, then events by time (in file order, as written). */
static bool mt_sorted(const mt_events *es)
{
    bool in_meta = true;
    int64_t last = INT64_MIN;
    for (size_t i = 0; i < es->n; i++) {
        if (es->v[i].meta) {
            if (!in_meta)
                return false;
            continue;
        }
        in_meta = false;
        if (es->v[i].ts < last)
            return false;
        last = es->v[i].ts;
    }
    return true;
}

static char *mt_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    p[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return p;
}
#endif
