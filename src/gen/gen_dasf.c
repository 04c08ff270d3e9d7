/* gen_dasf.c - synthetic DASF databases for the `dfscope tasks` benchmark and tests (gen_dasf.h). */
#include "gen/gen_dasf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dfscope.h"
#include "gen/gen_internal.h"
#include "gen/gen_model.h"
#include "output/atomic.h"
#include "util/bytebuf.h"

#define WORKERS 4
#define BATCH_RECORDS 1000 /* DASF's default flush: a worker's records arrive in such batches */
#define STAGES 8
#define BYTES_PER_TASK 500 /* Compute + Managed Memory + a tenth of a sample, roughly */
#define SAMPLES_PER_TASK 10

static const char *const stage_names[STAGES] = {"original-array", "array-reshape", "astype", "add",
                                                "var-partial", "mean_chunk", "sum-partial", "getitem"};

/* ---- msgpack -------------------------------------------------------------------------------- */

typedef dfs_bytebuf mp; /* msgpack being written */

static void mp_be(mp *m, unsigned tag, uint64_t v, unsigned width)
{
    unsigned char b[9];
    size_t k = 0;
    if (tag <= 0xff)
        b[k++] = (unsigned char)tag;
    for (unsigned i = width; i-- > 0;)
        b[k++] = (unsigned char)(v >> (8 * i));
    dfs_bytebuf_put(m, b, k);
}

static void mp_map(mp *m, unsigned n) { mp_be(m, 0x80 | n, 0, 0); }
static void mp_arr(mp *m, unsigned n) { n < 16 ? mp_be(m, 0x90 | n, 0, 0) : mp_be(m, 0xdc, n, 2); }
static void mp_nil(mp *m) { mp_be(m, 0xc0, 0, 0); }

static void mp_strn(mp *m, const char *s, size_t n)
{
    if (n < 32)
        mp_be(m, 0xa0 | (unsigned)n, 0, 0);
    else if (n < 256)
        mp_be(m, 0xd9, n, 1);
    else
        mp_be(m, 0xda, n, 2);
    dfs_bytebuf_put(m, s, n);
}

static void mp_str(mp *m, const char *s) { mp_strn(m, s, strlen(s)); }

static void mp_uint(mp *m, uint64_t v)
{
    if (v < 128)
        mp_be(m, (unsigned)v, 0, 0);
    else if (v < 256)
        mp_be(m, 0xcc, v, 1);
    else if (v < 65536)
        mp_be(m, 0xcd, v, 2);
    else if (v <= UINT32_MAX)
        mp_be(m, 0xce, v, 4);
    else
        mp_be(m, 0xcf, v, 8);
}

static void mp_f64(mp *m, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    mp_be(m, 0xcb, v, 8);
}

static void kv_str(mp *m, const char *k, const char *v) { mp_str(m, k), mp_str(m, v); }
static void kv_f64(mp *m, const char *k, double v) { mp_str(m, k), mp_f64(m, v); }
static void kv_uint(mp *m, const char *k, uint64_t v) { mp_str(m, k), mp_uint(m, v); }

/* ---- the simulated dask run -------------------------------------------------------------------- */

typedef struct sim {
    const dfs_gen_options *o;
    gen_rng rng;
    char host[32];
    char workers[WORKERS][48];
    char hex[STAGES][33];      /* the token of each stage's keys */
    uint64_t tasks, chunks;
    double clock[WORKERS];     /* when each worker is free */
    double *prev_end, *cur_end; /* task ends of the previous and current stage, per chunk */
    uint64_t held[WORKERS], held_bytes[WORKERS];
    double t_first, t_last;
    mp batch[WORKERS];         /* framed records not yet flushed */
    unsigned batch_records[WORKERS];
    mp rec;                    /* the record being built */
    FILE *out;
    uint64_t records, bytes;
    int err;
} sim;

static double uniform(sim *s) { return (double)(gen_rng_next(&s->rng) >> 11) * 0x1p-53; }

static int key_text(const sim *s, unsigned stage, uint64_t chunk, char *buf, size_t cap)
{
    return snprintf(buf, cap, "('%s-%s', %llu, 0)", stage_names[stage], s->hex[stage],
                    (unsigned long long)chunk);
}

static void flush_worker(sim *s, unsigned w)
{
    if (s->batch[w].n && fwrite(s->batch[w].v, 1, s->batch[w].n, s->out) != s->batch[w].n && !s->err)
        s->err = errno ? errno : EIO;
    s->bytes += s->batch[w].n;
    s->batch[w].n = 0;
    s->batch_records[w] = 0;
}

/* Frames the record being built into worker w's batch (or straight out for w = WORKERS). */
static void emit(sim *s, unsigned w)
{
    if (s->rec.oom && !s->err)
        s->err = ENOMEM;
    if (w == WORKERS) {
        unsigned char len[8];
        for (unsigned i = 0; i < 8; i++)
            len[i] = (unsigned char)((uint64_t)s->rec.n >> (8 * (7 - i)));
        if ((fwrite(len, 1, 8, s->out) != 8 || fwrite(s->rec.v, 1, s->rec.n, s->out) != s->rec.n) && !s->err)
            s->err = errno ? errno : EIO;
        s->bytes += 8 + s->rec.n;
    } else {
        mp_be(&s->batch[w], 0x100, s->rec.n, 8); /* tag 0x100: no tag byte, just the length */
        dfs_bytebuf_put(&s->batch[w], s->rec.v, s->rec.n);
        if (s->batch[w].oom && !s->err)
            s->err = ENOMEM;
        if (++s->batch_records[w] == BATCH_RECORDS)
            flush_worker(s, w);
    }
    s->records++;
    s->rec.n = 0;
}

static void record_head(sim *s, const char *name, double ts, const char *phase, unsigned w,
                        const double *dur)
{
    mp *m = &s->rec;
    mp_map(m, 7);
    kv_str(m, "name", name);
    kv_f64(m, "timestamp", ts);
    if (dur)
        kv_f64(m, "duration", *dur);
    kv_str(m, "phase", phase);
    if (!dur)
        kv_str(m, "scope", "g");
    kv_str(m, "process_id", s->host);
    mp_str(m, "thread_id");
    if (w < WORKERS)
        mp_str(m, s->workers[w]);
    else
        mp_nil(m);
    mp_str(m, "args");
}

/* Chunks `chunk` and `chunk + 1` of `stage` (one chunk when the stage has only one). */
static void key_pair(sim *s, unsigned stage, uint64_t chunk, bool exists)
{
    char key[128];
    unsigned n = !exists ? 0 : s->chunks > 1 ? 2 : 1;
    mp_arr(&s->rec, n);
    for (unsigned i = 0; i < n; i++) {
        int kn = key_text(s, stage, (chunk + i) % s->chunks, key, sizeof key);
        mp_strn(&s->rec, key, (size_t)kn);
    }
}

static void compute_record(sim *s, unsigned stage, uint64_t chunk, unsigned w, double end, double dur,
                           uint64_t side)
{
    char key[128];
    int kn = key_text(s, stage, chunk, key, sizeof key);
    record_head(s, "Compute", end, "X", w, &dur);
    mp *m = &s->rec;
    mp_map(m, 9);
    mp_str(m, "key"), mp_strn(m, key, (size_t)kn);
    kv_str(m, "name", stage_names[stage]);
    kv_str(m, "state", "memory");
    kv_uint(m, "size", 8 * side * side);
    mp_str(m, "shape"), mp_arr(m, 2), mp_uint(m, side), mp_uint(m, side);
    kv_str(m, "dtype", "float64");
    kv_str(m, "type", "<class 'numpy.ndarray'>");
    mp_str(m, "dependencies");
    /* chunk i of stage s reads chunks i and i+1 of stage s-1 */
    key_pair(s, stage ? stage - 1 : 0, chunk, stage > 0);
    mp_str(m, "dependents");
    /* ... so it feeds chunks i and i-1 of stage s+1 */
    key_pair(s, stage + 1, (chunk + s->chunks - 1) % s->chunks, stage + 1 < STAGES);
    emit(s, w);
}

static void managed_record(sim *s, unsigned stage, uint64_t chunk, unsigned w, double ts)
{
    char key[128];
    int kn = key_text(s, stage, chunk, key, sizeof key);
    record_head(s, "Managed Memory", ts, "I", w, NULL);
    mp *m = &s->rec;
    mp_map(m, 4);
    mp_str(m, "key"), mp_strn(m, key, (size_t)kn);
    kv_str(m, "state", "memory");
    kv_uint(m, "size", s->held_bytes[w]);
    kv_uint(m, "tasks", s->held[w]);
    emit(s, w);
}

static void run_task(sim *s, unsigned stage, uint64_t chunk)
{
    unsigned w = (unsigned)(chunk % WORKERS);
    double ready = s->clock[w];
    if (stage > 0) {
        double a = s->prev_end[chunk], b = s->prev_end[(chunk + 1) % s->chunks];
        ready = a > ready ? a : ready;
        ready = b > ready ? b : ready;
    }
    double dur = (0.0004 + 0.002 * uniform(s)) * (1 + stage % 3);
    double end = ready + dur;
    s->clock[w] = end + 0.00002 + 0.0001 * uniform(s);
    s->cur_end[chunk] = end;
    uint64_t side = 64u << (stage % 3);
    s->held[w]++;
    s->held_bytes[w] += 8 * side * side;
    if (s->held[w] > 24 && uniform(s) < 0.5) { /* results consumed downstream are released */
        s->held[w] -= 8;
        s->held_bytes[w] -= s->held_bytes[w] / 3;
    }
    compute_record(s, stage, chunk, w, end, dur, side);
    managed_record(s, stage, chunk, w, end + 0.00001);
    if (end > s->t_last)
        s->t_last = end;
}

static void run_graph(sim *s)
{
    uint64_t done = 0;
    for (unsigned stage = 0; done < s->tasks && !s->err; stage++) {
        for (uint64_t c = 0; c < s->chunks && done < s->tasks && !s->err; c++, done++)
            run_task(s, stage, c);
        double *t = s->prev_end;
        s->prev_end = s->cur_end;
        s->cur_end = t;
    }
    for (unsigned w = 0; w < WORKERS; w++)
        flush_worker(s, w);
}

/* The client's resource monitor: samples spread over the run, GPU fields included. */
static void run_monitor(sim *s, uint64_t samples)
{
    double span = s->t_last - s->t_first;
    for (uint64_t k = 0; k < samples && !s->err; k++) {
        double ts = s->t_first + span * ((double)k + 0.5 * uniform(s)) / (double)samples;
        record_head(s, "Resource Usage", ts, "I", WORKERS, NULL);
        mp *m = &s->rec;
        mp_map(m, 10);
        kv_f64(m, "cpu", 20 + 80 * uniform(s));
        kv_uint(m, "memory", 3000000000u + (gen_rng_next(&s->rng) % 500000000u));
        kv_f64(m, "time", 1690000000.0 + ts);
        kv_f64(m, "host_net_io.read_bps", 1e6 * uniform(s));
        kv_f64(m, "host_net_io.write_bps", 1e6 * uniform(s));
        kv_f64(m, "host_disk_io.read_bps", 1e7 * uniform(s));
        kv_f64(m, "host_disk_io.write_bps", 1e7 * uniform(s));
        kv_uint(m, "num_fds", 40 + gen_rng_next(&s->rng) % 20);
        kv_uint(m, "gpu_utilization", gen_rng_next(&s->rng) % 101);
        kv_uint(m, "gpu_memory_used", 3158966272u + (gen_rng_next(&s->rng) % 1000000000u));
        emit(s, WORKERS);
    }
}

/* ---- files --------------------------------------------------------------------------------------- */

typedef void (*body_fn)(sim *s, uint64_t n);

static void graph_body(sim *s, uint64_t n)
{
    (void)n;
    run_graph(s);
}

/* Writes one file atomically through `body`; fills fi. Returns a dfs_status. */
static int write_file(sim *s, const char *name, body_fn body, uint64_t n, dfs_gen_file *fi, char *err,
                      size_t errlen)
{
    fi->path = gen_join_path(s->o->out_dir, name);
    if (!fi->path)
        return gen_fail(err, errlen, DFS_ERR_NOMEM, "%s: out of memory", name);
    dfs_atomic_file af; /* a fatal signal removes its temporary (atomic.h) */
    int rc = dfs_atomic_open(&af, fi->path, NULL, err, errlen);
    if (rc != 0)
        return rc == ENOMEM ? DFS_ERR_NOMEM : DFS_ERR_IO;
    s->out = af.fp;
    s->records = s->bytes = 0;
    s->err = 0;
    body(s, n);
    char why[256];
    rc = dfs_atomic_close(&af, !s->err, why, sizeof why);
    s->out = NULL;
    if (!s->err)
        s->err = rc;
    fi->records = s->records;
    fi->bytes = fi->disk_bytes = s->bytes;
    if (s->err)
        return gen_fail(err, errlen, s->err == ENOMEM ? DFS_ERR_NOMEM : DFS_ERR_IO, "%s: %s", fi->path,
                    strerror(s->err));
    return DFS_OK;
}

static bool sim_init(sim *s, const dfs_gen_options *o, unsigned rank, uint64_t tasks)
{
    memset(s, 0, sizeof *s);
    s->o = o;
    gen_rng_seed(&s->rng, o->seed * UINT64_C(0x9e3779b97f4a7c15) + rank + 1);
    snprintf(s->host, sizeof s->host, "node%02u", rank);
    for (unsigned w = 0; w < WORKERS; w++)
        snprintf(s->workers[w], sizeof s->workers[w], "worker-%s-%u", s->host, w);
    for (unsigned st = 0; st < STAGES; st++)
        snprintf(s->hex[st], sizeof s->hex[st], "%016llx%016llx",
                 (unsigned long long)gen_rng_next(&s->rng), (unsigned long long)gen_rng_next(&s->rng));
    s->tasks = tasks;
    s->chunks = (tasks + STAGES - 1) / STAGES;
    s->t_first = 3800.0 + 0.37 * rank;
    for (unsigned w = 0; w < WORKERS; w++)
        s->clock[w] = s->t_first;
    s->prev_end = calloc(s->chunks ? s->chunks : 1, sizeof *s->prev_end);
    s->cur_end = calloc(s->chunks ? s->chunks : 1, sizeof *s->cur_end);
    return s->prev_end && s->cur_end;
}

static void sim_free(sim *s)
{
    free(s->prev_end), free(s->cur_end), dfs_bytebuf_free(&s->rec);
    for (unsigned w = 0; w < WORKERS; w++)
        dfs_bytebuf_free(&s->batch[w]);
}

static int write_host(const dfs_gen_options *o, unsigned rank, uint64_t tasks, dfs_gen_file *files,
                      size_t *written, char *err, size_t errlen)
{
    sim s;
    char name[96];
    if (!sim_init(&s, o, rank, tasks)) {
        sim_free(&s);
        return gen_fail(err, errlen, DFS_ERR_NOMEM, "out of memory");
    }
    snprintf(name, sizeof name, "dasf-TracePlugin-%s.msgpack", s.host);
    int st = write_file(&s, name, graph_body, tasks, &files[0], err, errlen);
    *written += st == DFS_OK;
    if (st == DFS_OK) {
        snprintf(name, sizeof name, "dasf-ResourceMonitor-%s.msgpack", s.host);
        st = write_file(&s, name, run_monitor, tasks / SAMPLES_PER_TASK, &files[1], err, errlen);
        *written += st == DFS_OK;
    }
    sim_free(&s);
    return st;
}

int dfs_gen_dasf_write(const dfs_gen_options *o, dfs_gen_report *out, char *err, size_t errlen)
{
    dfs_gen_report local = {0};
    dfs_gen_report *r = out ? out : &local;
    memset(r, 0, sizeof *r);
    if (!o->out_dir || !*o->out_dir)
        return gen_fail(err, errlen, DFS_ERR_USAGE, "no output directory");
    if (o->gzip)
        return gen_fail(err, errlen, DFS_ERR_USAGE, "DASF databases are not compressed (no --gzip)");
    if (o->ranks == 0 || o->ranks > 4096)
        return gen_fail(err, errlen, DFS_ERR_USAGE, "ranks (hosts) must be between 1 and 4096");
    uint64_t tasks = o->total_bytes ? o->total_bytes / o->ranks / BYTES_PER_TASK : o->events_per_rank;
    if (tasks == 0)
        return gen_fail(err, errlen, DFS_ERR_USAGE, "a size or an event count is needed");
    char why[512];
    if (dfs_make_dirs(o->out_dir, why, sizeof why) != 0)
        return gen_fail(err, errlen, DFS_ERR_IO, "%s", why);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    r->files = calloc(2 * (size_t)o->ranks, sizeof *r->files);
    if (!r->files)
        return gen_fail(err, errlen, DFS_ERR_NOMEM, "out of memory");
    r->nfiles = 2 * (size_t)o->ranks;
    int st = DFS_OK;
    size_t written = 0;
    for (unsigned rank = 0; rank < o->ranks && st == DFS_OK; rank++)
        st = write_host(o, rank, tasks, &r->files[2 * rank], &written, err, errlen);
    for (size_t i = 0; st != DFS_OK && i < written; i++) /* no partial output */
        unlink(r->files[i].path);
    gen_report_sum(r);
    r->seconds = gen_seconds_since(&t0);
    if (r == &local)
        dfs_gen_report_free(&local);
    return st;
}
