/* test_pipeline.c - reading in parallel pieces gives the same events, counts and diagnostics as
 * reading whole files on one thread: byte-range chunks of uncompressed files, gzip segments whose
 * members cut lines, any -j. Also inputs: directories, globs, missing paths, FIFOs. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "testutil.h"

#include "read/run.h"
#include "util/strtab.h"

/* A consumer that fingerprints everything it is given; the sum is order independent. */
typedef struct fingerprint {
    uint64_t events, sum_ts, sum_offset, sum_name_len, complete;
    uint64_t done, events_at_done; /* worker_done calls, and the events seen by then */
    uint64_t in_pieces;            /* events of batches marked as from a file read in pieces */
} fingerprint;

static void *fp_begin(void *user)
{
    (void)user;
    return calloc(1, sizeof(fingerprint));
}

static void fp_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    fingerprint *f = state;
    f->in_pieces += b->in_pieces ? b->count : 0;
    for (size_t i = 0; i < b->count; i++) {
        const dfs_event *ev = &b->events[i];
        size_t len;
        dfs_str_get(run, ev->name, &len);
        f->events++;
        f->sum_ts += (uint64_t)ev->ts;
        f->sum_offset += ev->offset * 31 + ev->file;
        f->sum_name_len += len;
        f->complete += ev->phase == DFS_PHASE_COMPLETE;
    }
}

static void fp_done(void *state, const dfs_run *run)
{
    (void)run;
    fingerprint *f = state;
    f->done++;
    f->events_at_done = f->events;
}

static void fp_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    fingerprint *t = user, *f = state;
    /* at most once, after the worker's last batch (a worker whose thread never ran has none) */
    assert_true(f->done <= 1);
    assert_true(!f->done || f->events_at_done == f->events);
    t->done += f->done;
    t->events += f->events;
    t->sum_ts += f->sum_ts;
    t->sum_offset += f->sum_offset;
    t->sum_name_len += f->sum_name_len;
    t->complete += f->complete;
    t->in_pieces += f->in_pieces;
    free(f);
}

typedef struct result {
    fingerprint fp;
    uint64_t records, bad;
    uint64_t first_bad_line;
    int verdict;
} result;

static result read_paths(const char *const *paths, int jobs, uint64_t chunk, uint64_t gzseg)
{
    result r = {0};
    dfs_run *run = tu_run(jobs, chunk, gzseg);
    for (const char *const *p = paths; *p; p++)
        assert_int_equal(dfs_run_add_path(run, *p), DFS_OK);
    dfs_consumer c = {.user = &r.fp, .worker_begin = fp_begin, .on_batch = fp_batch, .worker_done = fp_done,
                      .worker_end = fp_end};
    dfs_consumer *cs[] = {&c};
    r.verdict = dfs_run_read(run, cs, 1);
    assert_true(r.fp.done >= 1 && r.fp.done <= (uint64_t)jobs); /* every reading worker, once */
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        r.records += dfs_run_file(run, i)->records;
        r.bad += dfs_run_file(run, i)->bad_records;
    }
    const dfs_example *ex;
    if (dfs_run_problem_examples(run, DFS_PROB_BAD_LINE, &ex))
        r.first_bad_line = ex[0].line;
    /* damage is every class D problem: here the bad line, plus a torn tail when there is one */
    assert_true(dfs_run_damage_total(run) >= dfs_run_problem_count(run, DFS_PROB_BAD_LINE));
    assert_int_not_equal(dfs_str_find(run, "read", 4), 0);     /* met while reading */
    assert_int_equal(dfs_str_find(run, "never-seen", 10), 0);
    dfs_run_free(run);
    return r;
}

static void assert_same(const result *a, const result *b)
{
    assert_int_equal(a->fp.events, b->fp.events);
    assert_int_equal(a->fp.sum_ts, b->fp.sum_ts);
    assert_int_equal(a->fp.sum_name_len, b->fp.sum_name_len);
    assert_int_equal(a->fp.complete, b->fp.complete);
    assert_int_equal(a->records, b->records);
    assert_int_equal(a->bad, b->bad);
    assert_int_equal(a->first_bad_line, b->first_bad_line);
    assert_int_equal(a->verdict, b->verdict);
}

/* DFTracer v1 lines of varying length; line `bad_at` (1-based, counting the '[' line) is damaged. */
static char *make_lines(int n, int bad_at, size_t *len)
{
    size_t cap = (size_t)n * 300 + 64, used = 0;
    char *s = malloc(cap);
    used += (size_t)snprintf(s + used, cap - used, "[\n");
    for (int i = 0; i < n; i++) {
        if (i + 2 == bad_at) {
            used += (size_t)snprintf(s + used, cap - used, "{\"id\":%d,\"name\":\"broken\n", i);
            continue;
        }
        used += (size_t)snprintf(s + used, cap - used,
                                 "{\"id\":%d,\"name\":\"%s\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":%d,"
                                 "\"ts\":%lld,\"dur\":%d,\"ph\":\"X\",\"args\":{\"ret\":%d,\"pad\":\"%.*s\"}}\n",
                                 i, i % 3 ? "read" : "__xstat64", 100 + i % 4, 100 + i % 4,
                                 1700000000000000LL + i * 10, i % 97, i, i % 60,
                                 "............................................................");
    }
    used += (size_t)snprintf(s + used, cap - used, "]\n");
    *len = used;
    return s;
}

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* gzip members of `piece` bytes each: they cut lines anywhere, as split tools do. */
static void write_gzip_members(const char *path, const char *data, size_t len, size_t piece)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (size_t at = 0; at < len; at += piece) {
        size_t n = len - at < piece ? len - at : piece;
        z_stream z = {0};
        assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
        unsigned char *out = malloc(deflateBound(&z, n) + 64);
        z.next_in = (unsigned char *)(data + at);
        z.avail_in = (uInt)n;
        z.next_out = out;
        z.avail_out = (uInt)(deflateBound(&z, n) + 64);
        assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
        fwrite(out, 1, z.total_out, f);
        deflateEnd(&z);
        free(out);
    }
    fclose(f);
}

static char tmpdir[256];

static int make_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/dfscope-pipe-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void chunks_give_the_same_answers(void **state)
{
    (void)state;
    size_t len;
    char *data = make_lines(6000, 4321, &len);
    char path[300];
    snprintf(path, sizeof path, "%s/big.pfw", tmpdir);
    write_file(path, data, len);
    const char *paths[] = {path, NULL};
    result whole = read_paths(paths, 1, 0, 0);
    assert_int_equal(whole.records, 5999);
    assert_int_equal(whole.bad, 1);
    assert_int_equal(whole.first_bad_line, 4321);
    {
        const char *one[] = {path, NULL};
        dfs_run *run = tu_run(1, 0, 0);
        assert_int_equal(dfs_run_add_path(run, one[0]), DFS_OK);
        dfs_run_read(run, NULL, 0);
        assert_int_equal(dfs_run_damage_total(run), 1); /* just the bad line */
        dfs_run_free(run);
    }
    assert_int_equal(whole.verdict, DFS_EXIT_DAMAGED);
    assert_int_equal(whole.fp.in_pieces, 0);
    for (int jobs = 1; jobs <= 3; jobs++) {
        result a = read_paths(paths, jobs, 4096, 0);
        assert_same(&whole, &a);
        assert_int_equal(a.fp.in_pieces, a.fp.events); /* every batch of a cut file says so */
        result b = read_paths(paths, jobs, 65536 + 17, 0);
        assert_same(&whole, &b);
        assert_int_equal(b.fp.in_pieces, b.fp.events);
    }
    free(data);
}

static void gzip_segments_stitch_lines_across_members(void **state)
{
    (void)state;
    size_t len;
    char *data = make_lines(3000, 1000, &len);
    char plain[300], gz[300];
    snprintf(plain, sizeof plain, "%s/ref.pfw", tmpdir);
    snprintf(gz, sizeof gz, "%s/multi.pfw.gz", tmpdir);
    write_file(plain, data, len);
    write_gzip_members(gz, data, len, 10007); /* members end mid-line */
    const char *p1[] = {plain, NULL}, *p2[] = {gz, NULL};
    result ref = read_paths(p1, 1, 0, 0);
    result one = read_paths(p2, 1, 0, 0);
    assert_same(&ref, &one);
    assert_int_equal(one.fp.in_pieces, 0);
    for (int jobs = 1; jobs <= 3; jobs++) {
        result seg = read_paths(p2, jobs, 0, 3000); /* many segments */
        assert_same(&ref, &seg);
        assert_int_equal(seg.fp.in_pieces, seg.fp.events); /* the junctions' lines too */
    }
    free(data);
}

static void inputs_directories_globs_and_errors(void **state)
{
    (void)state;
    char sub[300], a[300], b[300], fifo[300], pattern[300];
    snprintf(sub, sizeof sub, "%s/d/e", tmpdir);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", sub);
    assert_int_equal(system(cmd), 0);
    snprintf(a, sizeof a, "%s/d/a.pfw", tmpdir);
    snprintf(b, sizeof b, "%s/d/e/b.pfw", tmpdir);
    snprintf(fifo, sizeof fifo, "%s/d/e/pipe.pfw", tmpdir);
    const char *line = "{\"id\":1,\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\"}\n";
    write_file(a, line, strlen(line));
    write_file(b, line, strlen(line));
    assert_int_equal(mkfifo(fifo, 0600), 0);

    dfs_run *run = dfs_run_new(NULL);
    char dir[300];
    snprintf(dir, sizeof dir, "%s/d", tmpdir);
    assert_int_equal(dfs_run_add_path(run, dir), DFS_OK); /* the FIFO inside is skipped */
    assert_int_equal(dfs_run_add_path(run, a), DFS_OK);   /* named twice: read once */
    assert_int_equal(dfs_run_file_count(run), 2);
    assert_non_null(strstr(dfs_run_file(run, 0)->path, "/d/a.pfw")); /* name order */
    assert_int_equal(dfs_run_add_path(run, "/nonexistent/x.pfw"), DFS_ERR_INPUT);
    assert_non_null(strstr(dfs_run_error(run), "/nonexistent/x.pfw"));
    assert_int_equal(dfs_run_add_path(run, fifo), DFS_ERR_INPUT);
    assert_non_null(strstr(dfs_run_error(run), "not a regular file"));
    snprintf(pattern, sizeof pattern, "%s/d/*/b*.pfw", tmpdir);
    assert_int_equal(dfs_run_add_path(run, pattern), DFS_OK);
    snprintf(pattern, sizeof pattern, "%s/d/*.none", tmpdir);
    assert_int_equal(dfs_run_add_path(run, pattern), DFS_ERR_INPUT);
    assert_int_equal(dfs_run_read(run, NULL, 0), DFS_EXIT_OK);
    assert_int_equal(dfs_run_file(run, 0)->records + dfs_run_file(run, 1)->records, 2);
    assert_int_equal(dfs_run_add_path(run, a), DFS_ERR_USAGE); /* after reading */
    dfs_run_free(run);
}

static void empty_and_unreadable_files(void **state)
{
    (void)state;
    char empty[300], gone[300];
    snprintf(empty, sizeof empty, "%s/empty.pfw", tmpdir);
    snprintf(gone, sizeof gone, "%s/gone.pfw", tmpdir);
    write_file(empty, "", 0);
    write_file(gone, "x", 1);
    dfs_run *run = dfs_run_new(NULL);
    assert_int_equal(dfs_run_add_path(run, empty), DFS_OK);
    assert_int_equal(dfs_run_add_path(run, gone), DFS_OK);
    unlink(gone); /* vanishes between listing and reading */
    assert_int_equal(dfs_run_read(run, NULL, 0), DFS_EXIT_USAGE);
    assert_int_equal(dfs_run_file(run, 0)->format, DFS_FMT_NOT_A_TRACE);
    assert_true(dfs_run_file(run, 1)->unreadable);
    assert_int_equal(dfs_run_problem_count(run, DFS_PROB_NOT_A_TRACE), 1);
    assert_int_equal(dfs_run_problem_count(run, DFS_PROB_UNREADABLE), 1);
    dfs_run_free(run);
}

/* Counts events per resolved file name ("/a", "/b") and keeps the unresolved references. */
typedef struct names_seen {
    uint64_t a, b, unresolved;
    uint64_t unresolved_offset;
    uint32_t unresolved_file;
} names_seen;

static void *ns_begin(void *user)
{
    (void)user;
    return calloc(1, sizeof(names_seen));
}

static void ns_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    names_seen *n = state;
    for (size_t i = 0; i < b->count; i++) {
        const dfs_event *ev = &b->events[i];
        if (ev->phase != DFS_PHASE_COMPLETE)
            continue;
        size_t len;
        const char *s = dfs_str_get(run, ev->fname, &len);
        if (len == 2 && s[1] == 'a')
            n->a++;
        else if (len == 2 && s[1] == 'b')
            n->b++;
        else if (ev->fhash) {
            n->unresolved++;
            n->unresolved_offset = ev->offset;
            n->unresolved_file = ev->file;
        }
    }
}

static void ns_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    names_seen *t = user, *n = state;
    t->a += n->a;
    t->b += n->b;
    t->unresolved += n->unresolved;
    if (n->unresolved) {
        t->unresolved_offset = n->unresolved_offset;
        t->unresolved_file = n->unresolved_file;
    }
    free(n);
}

static void hashes_resolve_across_chunks_and_files(void **state)
{
    (void)state;
    /* parent: 16-bit hash 5 is "/a", then (a collision) "/b"; 300 events after each definition */
    char parent[300], child[300];
    snprintf(parent, sizeof parent, "%s/parent.pfw", tmpdir);
    snprintf(child, sizeof child, "%s/child.pfw", tmpdir);
    FILE *f = fopen(parent, "w");
    fprintf(f, "[\n{\"id\":1,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"/a\",\"value\":5}}\n");
    fprintf(f, "{\"id\":2,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"/other\",\"value\":77}}\n");
    for (int i = 0; i < 600; i++) {
        if (i == 300)
            fprintf(f, "{\"id\":3,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"/b\",\"value\":5}}\n");
        fprintf(f, "{\"id\":%d,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,\"ph\":\"X\",\"args\":{\"fhash\":5}}\n", i + 10, i);
    }
    fprintf(f, "]\n");
    fclose(f);
    /* forked child writing its own file: references 77, defined only in the parent */
    f = fopen(child, "w");
    fprintf(f, "{\"id\":1,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":2,\"tid\":2,\"ts\":1,\"dur\":1,\"ph\":\"X\",\"args\":{\"fhash\":77}}\n");
    fclose(f);

    for (uint64_t chunk = 0; chunk <= 4096; chunk += 4096) {
        /* with chunk 4096 the parent is cut into ~25 pieces: definitions come from the pre-scan */
        dfs_run *run = tu_run(0, chunk, 0);
        assert_int_equal(dfs_run_add_path(run, parent), DFS_OK);
        assert_int_equal(dfs_run_add_path(run, child), DFS_OK);
        names_seen seen = {0};
        dfs_consumer c = {.user = &seen, .want = {.keys = DFS_KEYBIT(DFS_KEY_FHASH)},
                          .worker_begin = ns_begin, .on_batch = ns_batch, .worker_end = ns_end};
        dfs_consumer *cs[] = {&c};
        assert_int_equal(dfs_run_read(run, cs, 1), DFS_EXIT_OK);
        assert_int_equal(seen.a, 300);
        assert_int_equal(seen.b, 300);
        assert_int_equal(seen.unresolved, 1);
        assert_int_equal(dfs_run_problem_count(run, DFS_PROB_HASH_COLLISION), 1);
        dfs_str late = dfs_run_resolve_hash(run, DFS_HASH_FILE, seen.unresolved_file, seen.unresolved_offset, 77);
        size_t len;
        assert_string_equal(dfs_str_get(run, late, &len), "/other");
        /* in the parent, late resolution is positional too */
        assert_string_equal(dfs_str_get(run, dfs_run_resolve_hash(run, DFS_HASH_FILE, 0, 1000, 5), &len), "/a");
        assert_string_equal(dfs_str_get(run, dfs_run_resolve_hash(run, DFS_HASH_FILE, 0, UINT64_MAX, 5), &len), "/b");
        assert_int_equal(dfs_run_resolve_hash(run, DFS_HASH_FILE, 0, 0, 999), 0);
        dfs_run_free(run);
    }
}

/* A fold indexes a file's definitions for late resolution: each (kind, hash)'s in file order, so
 * that a reference finds the nearest definition before it. Streams fold in order, so their
 * definitions come in file order (the sort that keeps it then needs no comparison); definitions
 * that do not (streams folded out of order) are sorted by offset as well. */
static void folded_definitions_resolve_by_position(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/defs.pfw", tmpdir);
    FILE *f = fopen(path, "w");
    fprintf(f, "[\n]\n");
    fclose(f);
    for (int order = 0; order < 2; order++) {
        dfs_run *run = tu_run(1, 0, 0);
        assert_int_equal(dfs_run_add_path(run, path), DFS_OK);
        dfs_stream a, b;
        dfs_stream_init(&a, 0, 0, 4);
        dfs_stream_init(&b, 0, 1, 4);
        const char *names[] = {"/one", "/two", "/three", "/host"};
        dfs_str s[4];
        for (int i = 0; i < 4; i++)
            s[i] = dfs_strtab_intern(run->strs, names[i], strlen(names[i]));
        dfs_stream_define(&a, DFS_HASH_FILE, 5, s[0], 100, 2);
        dfs_stream_define(&a, DFS_HASH_HOST, 5, s[3], 150, 3); /* the same hash, another kind */
        dfs_stream_define(&a, DFS_HASH_FILE, 9, s[2], 200, 4);
        dfs_stream_define(&b, DFS_HASH_FILE, 5, s[1], 500, 1);
        dfs_stream *streams[2] = {order ? &b : &a, order ? &a : &b}; /* order 1: the later stream first */
        dfs_run_fold_file(run, 0, streams, 2);
        size_t len;
        assert_string_equal(dfs_str_get(run, dfs_run_resolve_hash(run, DFS_HASH_FILE, 0, 50, 5), &len), "/one");
        assert_string_equal(dfs_str_get(run, dfs_run_resolve_hash(run, DFS_HASH_FILE, 0, 300, 5), &len), "/one");
        assert_string_equal(dfs_str_get(run, dfs_run_resolve_hash(run, DFS_HASH_FILE, 0, 600, 5), &len), "/two");
        assert_string_equal(dfs_str_get(run, dfs_run_resolve_hash(run, DFS_HASH_HOST, 0, 600, 5), &len), "/host");
        assert_string_equal(dfs_str_get(run, dfs_run_resolve_hash(run, DFS_HASH_FILE, 0, 0, 9), &len), "/three");
        assert_int_equal(dfs_run_resolve_hash(run, DFS_HASH_HOST, 0, 600, 9), 0);
        dfs_stream_free(&a);
        dfs_stream_free(&b);
        dfs_run_free(run);
    }
}

/* Kineto object form: the base time comes after the events, so it reaches events through the
 * file clock; other top-level keys are file metadata; M records name processes and threads. */
typedef struct first_ts {
    int64_t ts;
    uint32_t file;
    bool have;
} first_ts;

static void *ft_begin(void *user)
{
    (void)user;
    return calloc(1, sizeof(first_ts));
}

static void ft_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    (void)run;
    first_ts *f = state;
    for (size_t i = 0; i < b->count && !f->have; i++) {
        if (b->events[i].phase == DFS_PHASE_COMPLETE) {
            f->ts = b->events[i].ts;
            f->file = b->events[i].file;
            f->have = true;
        }
    }
}

static void ft_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    first_ts *t = user, *f = state;
    if (f->have)
        *t = *f;
    free(f);
}

static void kineto_clock_metadata_and_names(void **state)
{
    (void)state;
    const char *text =
        "{\n  \"schemaVersion\": 1,\n  \"distributedInfo\": {\"rank\": 3, \"world_size\": 8},\n"
        "  \"traceEvents\": [\n"
        "  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 42, \"tid\": 0, \"args\": {\"name\": \"trainer\"}},\n"
        "  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 42, \"tid\": 7, \"args\": {\"name\": \"loader\"}},\n"
        "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 42, \"tid\": 7,\n"
        "    \"ts\": 4203669604595.407, \"dur\": 12.5\n  }\n  ],\n"
        "  \"baseTimeNanoseconds\": 1735632360000000000\n}\n";
    char path[300];
    snprintf(path, sizeof path, "%s/kineto.json", tmpdir);
    write_file(path, text, strlen(text));
    dfs_run *run = dfs_run_new(NULL);
    assert_int_equal(dfs_run_add_path(run, path), DFS_OK);
    first_ts seen = {0};
    dfs_consumer c = {.user = &seen, .worker_begin = ft_begin, .on_batch = ft_batch, .worker_end = ft_end};
    dfs_consumer *cs[] = {&c};
    assert_int_equal(dfs_run_read(run, cs, 1), DFS_EXIT_OK);
    const dfs_file_info *f = dfs_run_file(run, 0);
    assert_int_equal(f->format, DFS_FMT_JSON_OBJECT);
    assert_int_equal(f->dialect, DFS_DIALECT_KINETO);
    assert_int_equal(f->records, 3);
    assert_true(seen.have);
    assert_true(seen.ts == INT64_C(4203669604595407)); /* file-relative, exact */
    assert_true(dfs_file_abs_ns(f, seen.ts) == INT64_C(1739836029604595407));
    size_t len;
    dfs_str info = dfs_run_file_meta(run, 0, "distributedInfo");
    assert_non_null(strstr(dfs_str_get(run, info, &len), "\"rank\": 3"));
    assert_int_equal(dfs_run_file_meta(run, 0, "nothing"), 0);
    assert_string_equal(dfs_str_get(run, dfs_run_process_name(run, 0, 42), &len), "trainer");
    assert_string_equal(dfs_str_get(run, dfs_run_thread_name(run, 0, 42, 7), &len), "loader");
    assert_int_equal(dfs_run_thread_name(run, 0, 42, 8), 0);
    dfs_run_free(run);
}

/* A 20 MB record is longer than the 16 MiB mapping window: the window grows and the record is
 * read; with a 1 MiB --max-record it is skipped as record_too_large and reading goes on. */
static void records_longer_than_the_window(void **state)
{
    (void)state;
    size_t big = 20u << 20;
    char *data = malloc(big + 1024);
    size_t n = (size_t)sprintf(data, "{\"id\":1,\"name\":\"a\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\"}\n");
    n += (size_t)sprintf(data + n, "{\"id\":2,\"name\":\"big\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,\"ph\":\"X\",\"args\":{\"s\":\"");
    memset(data + n, 'x', big);
    n += big;
    n += (size_t)sprintf(data + n, "\"}}\n{\"id\":3,\"name\":\"z\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1,\"ph\":\"X\"}\n");
    char path[300];
    snprintf(path, sizeof path, "%s/long.pfw", tmpdir);
    write_file(path, data, n);
    free(data);

    dfs_run *run = dfs_run_new(NULL);
    assert_int_equal(dfs_run_add_path(run, path), DFS_OK);
    assert_int_equal(dfs_run_read(run, NULL, 0), DFS_EXIT_OK);
    assert_int_equal(dfs_run_file(run, 0)->records, 3);
    assert_int_equal(dfs_run_file(run, 0)->bytes, n);
    dfs_run_free(run);

    dfs_options o;
    dfs_options_init(&o);
    o.max_record = 1 << 20;
    run = dfs_run_new(&o);
    assert_int_equal(dfs_run_add_path(run, path), DFS_OK);
    assert_int_equal(dfs_run_read(run, NULL, 0), DFS_EXIT_DAMAGED);
    assert_int_equal(dfs_run_file(run, 0)->records, 2);
    assert_int_equal(dfs_run_problem_count(run, DFS_PROB_RECORD_TOO_LARGE), 1);
    const dfs_example *ex;
    assert_int_equal(dfs_run_problem_examples(run, DFS_PROB_RECORD_TOO_LARGE, &ex), 1);
    assert_int_equal(ex[0].line, 2);
    dfs_run_free(run);
}

/* A gzip file cut inside its first header, or right after it: no members, reported, no crash. */
static void gzip_cut_in_the_first_member(void **state)
{
    (void)state;
    static const unsigned char header[] = {0x1f, 0x8b, 0x08, 0x08, 0, 0, 0, 0, 0, 0x03, 't', 'e', 's', 't', 0};
    for (size_t cut = 3; cut <= sizeof header + 2; cut++) {
        unsigned char bytes[sizeof header + 2] = {0};
        memcpy(bytes, header, sizeof header);
        bytes[sizeof header] = 0x4b; /* the start of a deflate block */
        char path[300];
        snprintf(path, sizeof path, "%s/cut%zu.pfw.gz", tmpdir, cut);
        write_file(path, (const char *)bytes, cut);
        dfs_run *run = tu_run(1, 0, 0);
        assert_int_equal(dfs_run_add_path(run, path), DFS_OK);
        int verdict = dfs_run_read(run, NULL, 0);
        const dfs_file_info *f = dfs_run_file(run, 0);
        assert_true(verdict == DFS_EXIT_OK || verdict == DFS_EXIT_DAMAGED);
        assert_true(f->gzip_members <= 1);
        assert_int_equal(f->records, 0);
        dfs_run_free(run);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chunks_give_the_same_answers),
        cmocka_unit_test(gzip_segments_stitch_lines_across_members),
        cmocka_unit_test(inputs_directories_globs_and_errors),
        cmocka_unit_test(empty_and_unreadable_files),
        cmocka_unit_test(records_longer_than_the_window),
        cmocka_unit_test(hashes_resolve_across_chunks_and_files),
        cmocka_unit_test(folded_definitions_resolve_by_position),
        cmocka_unit_test(kineto_clock_metadata_and_names),
        cmocka_unit_test(gzip_cut_in_the_first_member),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
