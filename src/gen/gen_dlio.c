/* gen_dlio.c - a simulated DLIO training run, one rank at a time.
 *
 * The shape follows the real DLIO/DFTracer traces of the corpus (dlio-unet3d-hdf5-8rank): an
 * initialisation phase (config read, storage walk, checkpoint setup), then epochs of steps where
 * each step waits for a batch (`loop.iter`: __getitem__ -> reader spans -> POSIX reads) and runs
 * the body (`loop.yield`: compute), checkpoints every few epochs, a stats log through STDIO, fork
 * pairs when the data loader starts, and the start/end bookkeeping records. The v2 generation uses
 * the dft_ai names of DFTracer 2.x instead (ai_root/train/epoch, item, fetch.iter/fetch.block,
 * compute/forward/backward/step) and aggregates the small POSIX calls.
 *
 * Records are written when a call ends: a span is pushed when it starts and written when it is
 * popped, so children precede parents and timestamps step backwards. The run stops at a step
 * boundary once the file has reached its size (or record) budget. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen/gen_model.h"

/* ---------------------------------------------------------------------------------------------
 * Random numbers
 * ------------------------------------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void gen_rng_seed(gen_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t gen_rng_next(gen_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

int64_t gen_rng_range(gen_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    uint64_t v = gen_rng_next(r);
    return span == 0 ? (int64_t)v : lo + (int64_t)(v % span);
}

/* A stable per-item value (file sizes), independent of the order items are visited in. */
static uint64_t mix_key(uint64_t a, uint64_t b)
{
    uint64_t x = a ^ (b * UINT64_C(0x9e3779b97f4a7c15));
    return splitmix64(&x);
}

/* ---------------------------------------------------------------------------------------------
 * Workloads
 * ------------------------------------------------------------------------------------------- */

struct gen_profile {
    const char *model;          /* DLIO workload name, part of the paths */
    const char *reader;         /* DLIO reader class */
    const char *ext;
    uint32_t batch;
    uint64_t sample_bytes;      /* mean file size */
    uint64_t sample_spread;     /* sizes vary uniformly by this much */
    uint64_t chunk;             /* bytes per read call */
    bool pread;                 /* pread64 loop (images) or open/seek/read (npz) */
    int64_t compute_us;         /* per step */
    uint64_t ckpt_bytes;        /* per rank and checkpoint */
    uint32_t records_per_step;  /* planning estimate, measured on generated files */
};

/* Mean record size by generation, measured on generated files: a planning estimate only. */
static const uint32_t bytes_per_record[DFS_GEN__COUNT] = {
    [DFS_GEN_2023] = 240, [DFS_GEN_V1] = 230, [DFS_GEN_V1_H16] = 205, [DFS_GEN_V2] = 224,
    [DFS_GEN_CHROME] = 190,
};

static const gen_profile profiles[DFS_GEN__WORKLOADS] = {
    [DFS_GEN_UNET3D] = {"unet3d_a100", "NPZReader", "npz", 4, 146600628, 4000000, 16u << 20,
                        false, 1360000, 64u << 20, 96},
    [DFS_GEN_RESNET50] = {"resnet50_a100", "JPEGReader", "jpeg", 64, 112640, 90000, 65536, true,
                          88000, 98u << 20, 800},
};

enum { AGG_FSTAT, AGG_LSEEK, AGG_XSTAT, AGG__COUNT };
static const char *const agg_names[AGG__COUNT] = {"__fxstat64", "lseek64", "__xstat64"};
#define NO_AGG (-1)

#define TYPE_DFTRACER 1
#define TYPE_LIBC_IO 3
#define TYPE_PYTHON 6
#define TYPE_PSUTIL 7

#define INTERVAL_US 1000000 /* v2 aggregation and counter period */
#define WRITE_CHUNK (4u << 20)
#define MAX_FILES (UINT64_C(1) << 26)
#define TAIL_RECORDS 48     /* what the run writes after the budget check stops it */

void gen_job_plan(gen_job *job, const dfs_gen_options *o)
{
    memset(job, 0, sizeof *job);
    job->format = o->format;
    job->prof = &profiles[o->workload < DFS_GEN__WORKLOADS ? o->workload : DFS_GEN_UNET3D];
    job->ranks = o->ranks ? o->ranks : 1;
    job->seed = o->seed;
    job->gzip = o->gzip;
    job->member_bytes = o->member_bytes;
    uint64_t per_rank_records;
    if (o->total_bytes) {
        job->target_bytes = o->total_bytes / job->ranks;
        per_rank_records = job->target_bytes / bytes_per_record[job->format] + 1;
    } else {
        job->target_records = o->events_per_rank ? o->events_per_rank : 1;
        per_rank_records = job->target_records;
    }
    uint64_t steps = per_rank_records / job->prof->records_per_step + 1;
    job->epochs = steps >= 10 ? 5 : (uint32_t)(steps + 1) / 2;
    job->steps_per_epoch = (uint32_t)(steps / job->epochs + 1);
    job->files = (uint64_t)job->steps_per_epoch * job->prof->batch * job->ranks;
    if (job->files > MAX_FILES)
        job->files = MAX_FILES; /* a bigger run reads the same files in more epochs */
    job->checkpoint_every = 2;

    gen_rng rng;
    gen_rng_seed(&rng, o->seed ^ UINT64_C(0x6a6f62)); /* "job" */
    job->t0 = INT64_C(1744611912000000) + gen_rng_range(&rng, 0, INT64_C(180) * 86400 * 1000000);
    job->pid0 = gen_rng_range(&rng, 100000, 3900000);
    job->perm_a = gen_rng_next(&rng);
    job->perm_b = gen_rng_next(&rng);
}

void gen_rank_host(const gen_job *job, unsigned rank, char *buf, size_t cap)
{
    snprintf(buf, cap, "corona%u", (unsigned)(100 + job->seed % 97 + rank / 8));
}

/* ---------------------------------------------------------------------------------------------
 * Simulation state
 * ------------------------------------------------------------------------------------------- */

#define MAX_DEPTH 16
#define MAX_SPAN_ARGS 6

typedef struct frame {
    const char *name;
    const char *cat;
    uint8_t type;
    bool hidden;        /* consumes an id but is never written (the Python main frame) */
    uint64_t id;
    int64_t ts;
    gen_arg args[MAX_SPAN_ARGS];
    unsigned nargs;
} frame;

typedef struct agg_slot {
    uint64_t count;
    int64_t dmin, dmax, dsum;
} agg_slot;

typedef struct io_file {
    const char *path;
    size_t len;
    uint64_t hash;
} io_file;

/* The names of the loop, which differ between legacy DLIO and dft_ai (DFTracer 2.x). */
typedef struct loop_names {
    bool ai;
    const char *item, *item_cat;
    const char *wait, *body, *loop_cat;
    const char *epoch, *epoch_cat;
    const char *run, *run_cat;
    const char *preprocess, *preprocess_cat;
    const char *ckpt;
} loop_names;

static const loop_names legacy_names = {
    false, "TorchDataset.__getitem__", "data_loader", "loop.iter", "loop.yield", "data_loader",
    "DLIOBenchmark._train", "dlio_benchmark", "DLIOBenchmark.run", "dlio_benchmark",
    "FormatReader.preprocess", "reader", "PyTorchCheckpointing.save_checkpoint",
};

static const loop_names ai_names = {
    true, "item", "data", "fetch.iter", "fetch.block", "dataloader", "epoch", "pipeline",
    "train", "pipeline", "preprocess", "data", "capture",
};

typedef struct rank_sim {
    const gen_job *job;
    const gen_profile *prof;
    const loop_names *names;
    gen_fmt *f;
    gen_rng rng;
    unsigned rank;
    int64_t pid;
    int64_t now;
    uint64_t next_id;
    frame stack[MAX_DEPTH];
    unsigned depth;
    uint8_t *fh_seen;        /* FH written, one bit per dataset file */
    uint32_t misc_seen;      /* FH written for the fixed paths (MISC_*) */
    int next_fd;
    agg_slot agg[AGG__COUNT];
    int64_t agg_start;
    int64_t next_counter;
    uint64_t next_child;     /* pid of the next forked worker */
    uint64_t epoch_a, epoch_b; /* this epoch's shuffle */
    uint32_t last_ckpt_epoch;
    bool stop;
    char prefix[128];        /* dataset directory */
    char path[256];          /* path of the current sample */
    char misc[4][192];       /* MISC_* paths */
} rank_sim;

enum { MISC_DATA_DIR, MISC_CONFIG, MISC_CKPT_DIR, MISC_LOG };

/* ---------------------------------------------------------------------------------------------
 * Record helpers
 * ------------------------------------------------------------------------------------------- */

static void gap(rank_sim *s, int64_t lo, int64_t hi)
{
    s->now += gen_rng_range(&s->rng, lo, hi);
}

static bool budget_reached(const rank_sim *s)
{
    const gen_job *j = s->job;
    if (j->target_bytes)
        return dfs_textout_text_bytes(s->f->out) + TAIL_RECORDS * bytes_per_record[j->format] >=
               j->target_bytes;
    return s->f->records + TAIL_RECORDS >= j->target_records;
}

static void emit_meta(rank_sim *s, const char *name, const char *str, size_t len, uint64_t hash,
                      const char *value_json)
{
    gen_meta m = {name, 0, s->pid, s->pid, str, len, value_json == NULL, hash, value_json};
    if (s->f->format != DFS_GEN_V2 && s->f->format != DFS_GEN_CHROME)
        m.id = s->next_id++; /* v1 metadata records take ids like events */
    gen_fmt_meta(s->f, &m);
}

/* The hash of a path, writing its FH record first when this process has not hashed it yet. */
static uint64_t file_hash(rank_sim *s, const char *path, size_t len, bool *seen)
{
    if (!gen_fmt_uses_hashes(s->f))
        return 0;
    uint64_t h = gen_fmt_hash(s->f, path, len);
    if (!*seen) {
        emit_meta(s, "FH", path, len, h, NULL);
        *seen = true;
    }
    return h;
}

static io_file misc_file(rank_sim *s, int which)
{
    io_file fl = {s->misc[which], strlen(s->misc[which]), 0};
    bool seen = (s->misc_seen >> which) & 1u;
    fl.hash = file_hash(s, fl.path, fl.len, &seen);
    s->misc_seen |= (uint32_t)seen << which;
    return fl;
}

static void flush_aggregates(rank_sim *s)
{
    for (int i = 0; i < AGG__COUNT; i++) {
        agg_slot *a = &s->agg[i];
        gen_fmt_aggregated(s->f, agg_names[i], "POSIX", TYPE_LIBC_IO, s->agg_start, s->pid,
                           s->pid, a->count, a->dmin, a->dmax, a->dsum);
        memset(a, 0, sizeof *a);
    }
}

static void emit_counters(rank_sim *s, int64_t ts)
{
    int64_t user = gen_rng_range(&s->rng, 550, 950), sys = gen_rng_range(&s->rng, 20, 90);
    int64_t iow = gen_rng_range(&s->rng, 0, 60);
    gen_arg cpu[4] = {{"user_pct", GA_TENTHS, user, NULL},
                      {"system_pct", GA_TENTHS, sys, NULL},
                      {"iowait_pct", GA_TENTHS, iow, NULL},
                      {"idle_pct", GA_TENTHS, 1000 - user - sys - iow, NULL}};
    gen_fmt_counter(s->f, "cpu", "sys", TYPE_PSUTIL, ts, s->pid, 0, cpu, 4);
    gen_arg mem[1] = {{"rss_bytes", GA_INT,
                       INT64_C(6442450944) + gen_rng_range(&s->rng, 0, 1 << 28), NULL}};
    gen_fmt_counter(s->f, "memory", "sys", TYPE_PSUTIL, ts, s->pid, 0, mem, 1);
}

/* Periodic records: counter samples and v2 aggregation intervals that have ended. */
static void tick(rank_sim *s)
{
    dfs_gen_format fm = s->f->format;
    if (fm != DFS_GEN_V2 && fm != DFS_GEN_CHROME)
        return;
    if (fm == DFS_GEN_V2 && s->now >= s->agg_start + INTERVAL_US) {
        flush_aggregates(s);
        s->agg_start = s->now - s->now % INTERVAL_US;
    }
    while (s->next_counter <= s->now) {
        emit_counters(s, s->next_counter);
        s->next_counter += INTERVAL_US;
    }
}

static void write_event(rank_sim *s, const char *name, const char *cat, uint8_t type, uint64_t id,
                        int64_t ts, int64_t dur, const io_file *fl, const gen_arg *args,
                        unsigned nargs)
{
    const frame *parent = s->depth ? &s->stack[s->depth - 1] : NULL;
    gen_rec r = {name, cat, type, id, s->pid, s->pid, ts, dur,
                 parent ? (int64_t)parent->id : -1, (int32_t)s->depth + 1,
                 fl ? fl->path : NULL, fl ? fl->len : 0, fl ? fl->hash : 0, args, nargs};
    gen_fmt_complete(s->f, &r);
}

static frame *span_open(rank_sim *s, const char *name, const char *cat)
{
    if (s->depth == MAX_DEPTH)
        abort(); /* the model nests far less deep: a bug, not an input problem */
    frame *fr = &s->stack[s->depth++];
    fr->name = name;
    fr->cat = cat;
    fr->type = TYPE_PYTHON;
    fr->hidden = false;
    fr->id = s->next_id++;
    fr->ts = s->now;
    fr->nargs = 0;
    gap(s, 2, 12);
    return fr;
}

static void span_arg(frame *fr, const char *key, gen_argk kind, int64_t v)
{
    if (fr->nargs < MAX_SPAN_ARGS)
        fr->args[fr->nargs++] = (gen_arg){key, kind, v, NULL};
}

static void span_close(rank_sim *s)
{
    gap(s, 2, 15);
    tick(s);
    frame fr = s->stack[--s->depth];
    if (!fr.hidden)
        write_event(s, fr.name, fr.cat, fr.type, fr.id, fr.ts, s->now - fr.ts, NULL, fr.args,
                    fr.nargs);
}

/* A call without children: Python functions and libc I/O. */
static void leaf(rank_sim *s, const char *name, const char *cat, int64_t dur, const io_file *fl,
                 const gen_arg *args, unsigned nargs, int agg)
{
    tick(s);
    uint64_t id = s->next_id++;
    int64_t ts = s->now;
    s->now += dur;
    if (agg != NO_AGG && s->f->format == DFS_GEN_V2) {
        agg_slot *a = &s->agg[agg];
        a->dmin = a->count == 0 || dur < a->dmin ? dur : a->dmin;
        a->dmax = a->count == 0 || dur > a->dmax ? dur : a->dmax;
        a->dsum += dur;
        a->count++;
    } else {
        uint8_t type = strcmp(cat, "POSIX") == 0 || strcmp(cat, "STDIO") == 0 ? TYPE_LIBC_IO
                                                                               : TYPE_PYTHON;
        write_event(s, name, cat, type, id, ts, dur, fl, args, nargs);
    }
    gap(s, 1, 8);
}

static void py(rank_sim *s, const char *name, const char *cat, int64_t lo, int64_t hi)
{
    leaf(s, name, cat, gen_rng_range(&s->rng, lo, hi), NULL, NULL, 0, NO_AGG);
}

/* Transfer time of `bytes` at a Lustre-like 1.2-4 GB/s, with a rare straggler. */
static int64_t io_time(rank_sim *s, uint64_t bytes)
{
    int64_t t = gen_rng_range(&s->rng, 8, 40) + (int64_t)(bytes / (uint64_t)gen_rng_range(
                                                                         &s->rng, 1200, 4000));
    if (gen_rng_range(&s->rng, 0, 499) == 0)
        t *= gen_rng_range(&s->rng, 5, 20);
    return t;
}

/* ---------------------------------------------------------------------------------------------
 * POSIX and STDIO calls
 * ------------------------------------------------------------------------------------------- */

static int sys_open(rank_sim *s, const io_file *fl, int64_t flags, int64_t mode)
{
    int fd = s->next_fd;
    gen_arg a[3] = {{"ret", GA_INT, fd, NULL}, {"flags", GA_INT, flags, NULL},
                    {"mode", GA_INT, mode, NULL}};
    leaf(s, "open64", "POSIX", gen_rng_range(&s->rng, 150, 1600), fl, a, mode ? 3 : 2, NO_AGG);
    return fd;
}

static void sys_fstat(rank_sim *s, const io_file *fl, int fd)
{
    gen_arg a[1] = {{"fd", GA_INT, fd, NULL}};
    leaf(s, "__fxstat64", "POSIX", gen_rng_range(&s->rng, 1, 40), fl, a, 1, AGG_FSTAT);
}

static void sys_lseek(rank_sim *s, const io_file *fl, int fd, int64_t off, int whence, int64_t ret)
{
    gen_arg a[4] = {{"fd", GA_INT, fd, NULL}, {"ret", GA_INT, ret, NULL},
                    {"whence", GA_INT, whence, NULL}, {"offset", GA_INT, off, NULL}};
    leaf(s, "lseek64", "POSIX", gen_rng_range(&s->rng, 1, 4), fl, a, 4, AGG_LSEEK);
}

static void sys_read(rank_sim *s, const io_file *fl, int fd, uint64_t count, uint64_t ret)
{
    gen_arg a[3] = {{"fd", GA_INT, fd, NULL}, {"count", GA_IONUM, (int64_t)count, NULL},
                    {"ret", GA_IONUM, (int64_t)ret, NULL}};
    leaf(s, "read", "POSIX", io_time(s, ret), fl, a, 3, NO_AGG);
}

static void sys_pread(rank_sim *s, const io_file *fl, int fd, uint64_t count, uint64_t off,
                      uint64_t ret)
{
    gen_arg a[4] = {{"fd", GA_INT, fd, NULL}, {"count", GA_IONUM, (int64_t)count, NULL},
                    {"offset", GA_INT, (int64_t)off, NULL}, {"ret", GA_IONUM, (int64_t)ret, NULL}};
    leaf(s, "pread64", "POSIX", io_time(s, ret), fl, a, 4, NO_AGG);
}

static void sys_write(rank_sim *s, const io_file *fl, int fd, uint64_t count)
{
    gen_arg a[3] = {{"fd", GA_INT, fd, NULL}, {"count", GA_IONUM, (int64_t)count, NULL},
                    {"ret", GA_IONUM, (int64_t)count, NULL}};
    int64_t dur = gen_rng_range(&s->rng, 20, 60) +
                  (int64_t)(count / (uint64_t)gen_rng_range(&s->rng, 800, 2000));
    leaf(s, "write", "POSIX", dur, fl, a, 3, NO_AGG);
}

static void sys_close(rank_sim *s, const io_file *fl, int fd)
{
    gen_arg a[2] = {{"ret", GA_INT, 0, NULL}, {"fd", GA_INT, fd, NULL}};
    leaf(s, "close", "POSIX", gen_rng_range(&s->rng, 90, 600), fl, a, 2, NO_AGG);
}

static void sys_path(rank_sim *s, const char *name, const io_file *fl, int64_t lo, int64_t hi,
                     int agg)
{
    leaf(s, name, "POSIX", gen_rng_range(&s->rng, lo, hi), fl, NULL, 0, agg);
}

/* fopen/fread or fwrite/fclose of a small text file, like Python's config and log handling. */
static void stdio_file(rank_sim *s, const io_file *fl, bool writing, int64_t bytes)
{
    gen_arg mode[1] = {{"mode", GA_STR, 0, writing ? "a" : "r"}};
    leaf(s, "fopen", "STDIO", gen_rng_range(&s->rng, 120, 400), fl, mode, 1, NO_AGG);
    gen_arg io[3] = {{"ret", GA_INT, bytes, NULL}, {"count", GA_INT, writing ? bytes : 8192, NULL},
                     {"size", GA_INT, 1, NULL}};
    const char *call = writing ? "fwrite" : "fread";
    leaf(s, call, "STDIO", gen_rng_range(&s->rng, 3, 15), fl, io, 3, NO_AGG);
    if (!writing) {
        io[0].i = 0; /* the read loop ends on a zero-length read */
        leaf(s, call, "STDIO", gen_rng_range(&s->rng, 1, 3), fl, io, 3, NO_AGG);
    }
    leaf(s, "fclose", "STDIO", gen_rng_range(&s->rng, 2, 60), fl, NULL, 0, NO_AGG);
}

/* ---------------------------------------------------------------------------------------------
 * Dataset
 * ------------------------------------------------------------------------------------------- */

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Each epoch visits the files in a new order: an affine permutation modulo the file count. */
static void shuffle_epoch(rank_sim *s, uint32_t epoch)
{
    uint64_t n = s->job->files;
    uint64_t a = (mix_key(s->job->perm_a, epoch) % n) | 1u;
    while (n > 1 && gcd_u64(a, n) != 1)
        a += 2;
    s->epoch_a = a % n ? a % n : 1;
    s->epoch_b = mix_key(s->job->perm_b, epoch) % n;
}

static uint64_t sample_index(const rank_sim *s, uint64_t position)
{
    uint64_t n = s->job->files;
    uint64_t g = (position * s->job->ranks + s->rank) % n;
    /* (a*g + b) mod n without overflow: a, g < n <= 2^26 */
    return (s->epoch_a * g + s->epoch_b) % n;
}

static uint64_t sample_size(const rank_sim *s, uint64_t idx)
{
    const gen_profile *p = s->prof;
    return p->sample_bytes - p->sample_spread / 2 + mix_key(s->job->seed, idx) % p->sample_spread;
}

static io_file sample_file(rank_sim *s, uint64_t idx)
{
    int width = snprintf(NULL, 0, "%llu", (unsigned long long)s->job->files);
    int n = snprintf(s->path, sizeof s->path, "%s/img_%0*llu_of_%llu.%s", s->prefix, width,
                     (unsigned long long)idx, (unsigned long long)s->job->files, s->prof->ext);
    io_file fl = {s->path, (size_t)n, 0};
    if (gen_fmt_uses_hashes(s->f)) {
        bool seen = (s->fh_seen[idx >> 3] >> (idx & 7)) & 1u;
        fl.hash = file_hash(s, fl.path, fl.len, &seen);
        s->fh_seen[idx >> 3] |= (uint8_t)(1u << (idx & 7));
    }
    return fl;
}

/* ---------------------------------------------------------------------------------------------
 * The run
 * ------------------------------------------------------------------------------------------- */

static void date_string(int64_t ts_us, char *buf, size_t cap)
{
    time_t t = (time_t)(ts_us / 1000000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%a %b %e %H:%M:%S %Y", &tm);
}

static void preamble_metadata(rank_sim *s, uint64_t cmd_hash, uint64_t exec_hash,
                              const char *cmd, const char *exec)
{
    char pid[24], rank[16];
    snprintf(pid, sizeof pid, "%lld", (long long)s->pid);
    snprintf(rank, sizeof rank, "\"%u\"", s->rank);
    emit_meta(s, "HH", s->f->host, strlen(s->f->host), s->f->hhash, NULL);
    emit_meta(s, "thread_name", pid, strlen(pid), 0, "\"thread_name\"");
    emit_meta(s, "SH", cmd, strlen(cmd), cmd_hash, NULL);
    emit_meta(s, "SH", exec, strlen(exec), exec_hash, NULL);
    if (s->f->format == DFS_GEN_V2) {
        emit_meta(s, "PR", "rank", 4, 0, rank);
        emit_meta(s, "PR", "core_affinity", 13, 0, "[0,1,2,3,4,5,6,7,8,9,10,11]");
    }
}

static void preamble(rank_sim *s)
{
    if (s->f->format == DFS_GEN_CHROME) {
        char proc[32];
        int n = snprintf(proc, sizeof proc, "Rank %u", s->rank);
        emit_meta(s, "process_name", proc, (size_t)n, 0, NULL);
        emit_meta(s, "thread_name", "MainThread", 10, 0, NULL);
        return;
    }
    if (!gen_fmt_uses_hashes(s->f))
        return; /* the 2023 generation starts straight with events */
    char cmd[320];
    snprintf(cmd, sizeof cmd,
             "/usr/workspace/dlio/.venv/bin/python;/usr/workspace/dlio/.venv/bin/dlio_benchmark;"
             "workload=%s;++workload.dataset.num_files_train=%llu;"
             "++workload.dataset.data_folder=/p/lustre3/dlio/%s/data;"
             "++workload.reader.read_threads=0;++workload.train.epochs=%u",
             s->prof->model, (unsigned long long)s->job->files, s->prof->model, s->job->epochs);
    uint64_t ch = gen_fmt_hash(s->f, cmd, strlen(cmd));
    uint64_t eh = gen_fmt_hash(s->f, "dlio_benchmark", 14);
    preamble_metadata(s, ch, eh, cmd, "dlio_benchmark");

    char date[64];
    date_string(s->now, date, sizeof date);
    bool v2 = s->f->format == DFS_GEN_V2;
    gen_arg a[5] = {{"cmd_hash", GA_HASH, (int64_t)ch, NULL},
                    {"exec_hash", GA_HASH, (int64_t)eh, NULL},
                    v2 ? (gen_arg){"version", GA_STR, 0, "2.0.1"}
                       : (gen_arg){"version", GA_INT,
                                   s->f->format == DFS_GEN_V1_H16 ? 100005 : 100008, NULL},
                    {"date", GA_STR, 0, date},
                    {"ppid", GA_INT, s->pid - 2, NULL}};
    write_event(s, "start", "dftracer", TYPE_DFTRACER, s->next_id++, s->now, 0, NULL, a, 5);
    gap(s, 1000000, 1400000); /* Python imports */
}

static void init_storage(rank_sim *s)
{
    span_open(s, "FileStorage.walk_node", "storage");
    py(s, "FileStorage.get_uri", "storage", 6, 12);
    io_file dir = misc_file(s, MISC_DATA_DIR);
    sys_path(s, "opendir", &dir, 800, 4000, NO_AGG);
    span_close(s);
    span_open(s, "FileStorage.get_node", "storage");
    py(s, "FileStorage.get_uri", "storage", 6, 12);
    io_file first = sample_file(s, 0);
    sys_path(s, "__xstat64", &first, 60, 1300, AGG_XSTAT);
    sys_path(s, "__xstat64", &first, 30, 80, AGG_XSTAT);
    span_close(s);
}

static void init_checkpointing(rank_sim *s)
{
    span_open(s, "PyTorchCheckpointing.__init__", "checkpoint");
    span_open(s, "FileStorage.__init__", "storage");
    py(s, "TorchFramework.is_nativeio_available", "ai_framework", 4, 9);
    span_close(s);
    span_open(s, "FileStorage.create_namespace", "storage");
    io_file dir = misc_file(s, MISC_CKPT_DIR);
    gen_arg mode[1] = {{"mode", GA_INT, 511, NULL}};
    leaf(s, "mkdir", "POSIX", gen_rng_range(&s->rng, 60, 200), &dir, mode, 1, NO_AGG);
    span_close(s);
    py(s, "PyTorchCheckpointing.get_tensor", "checkpoint", 30000, 45000);
    span_close(s);
}

static void init_phase(rank_sim *s)
{
    span_open(s, "DLIOBenchmark.__init__", "dlio_benchmark");
    io_file cfg = misc_file(s, MISC_CONFIG);
    stdio_file(s, &cfg, false, 3107);
    span_close(s);
    gap(s, 5000, 20000);
    span_open(s, "DLIOBenchmark.initialize", "dlio_benchmark");
    init_storage(s);
    py(s, "ConfigArguments.derive_configurations", "config", 5000, 9000);
    py(s, "ConfigArguments.validate", "config", 10, 20);
    gap(s, 40000, 70000);
    init_checkpointing(s);
    span_close(s);
}

/* An NPZ archive: find the array through the zip directory at the end. */
static void npz_locate(rank_sim *s, const io_file *fl, int fd, uint64_t size)
{
    sys_lseek(s, fl, fd, 0, 2, (int64_t)size);
    sys_lseek(s, fl, fd, (int64_t)size - 22, 0, (int64_t)size - 22);
    sys_read(s, fl, fd, 22, 22); /* zip end-of-central-directory */
}

/* An NPZ array: its header, then the data in chunks. */
static void npz_read(rank_sim *s, const io_file *fl, int fd, uint64_t size)
{
    sys_lseek(s, fl, fd, 0, 0, 0);
    sys_read(s, fl, fd, 128, 128); /* npy header */
    for (uint64_t off = 128; off < size; off += s->prof->chunk) {
        uint64_t n = size - off < s->prof->chunk ? size - off : s->prof->chunk;
        sys_read(s, fl, fd, s->prof->chunk, n);
    }
}

/* An image: positioned reads in chunks up to the one that finds the end. */
static void image_read(rank_sim *s, const io_file *fl, int fd, uint64_t size)
{
    uint64_t off = 0;
    for (;;) {
        uint64_t n = size - off < s->prof->chunk ? size - off : s->prof->chunk;
        sys_pread(s, fl, fd, s->prof->chunk, off, n);
        if (n == 0)
            break;
        off += n;
    }
}

/* One file of the dataset through the reader's spans: open (an NPZ's array found), get_sample
 * (the reads), preprocessing (an image's decode and resize cost more), close. */
static void read_sample_file(rank_sim *s, const io_file *fl, uint64_t size)
{
    const char *reader = s->prof->reader;
    bool image = s->prof->pread;
    char name[64]; /* a span keeps the pointer to its name: each is closed before it is rewritten */
    snprintf(name, sizeof name, "%s.open", reader);
    span_open(s, name, "reader");
    int fd = sys_open(s, fl, 0, 0);
    sys_fstat(s, fl, fd);
    if (!image)
        npz_locate(s, fl, fd, size);
    span_close(s);
    snprintf(name, sizeof name, "%s.get_sample", reader);
    frame *get = span_open(s, name, "reader");
    span_arg(get, "image_size", GA_DLIO, (int64_t)size);
    if (image)
        image_read(s, fl, fd, size);
    else
        npz_read(s, fl, fd, size);
    span_close(s);
    if (image)
        py(s, s->names->preprocess, s->names->preprocess_cat, 300, 900);
    else
        py(s, s->names->preprocess, s->names->preprocess_cat, 25, 60);
    snprintf(name, sizeof name, "%s.close", reader);
    span_open(s, name, "reader");
    sys_close(s, fl, fd);
    span_close(s);
}

static void sample(rank_sim *s, uint32_t epoch, uint32_t step, uint64_t position)
{
    uint64_t idx = sample_index(s, position);
    uint64_t size = sample_size(s, idx);
    frame *item = span_open(s, s->names->item, s->names->item_cat);
    span_arg(item, "step", GA_DLIO, step);
    span_arg(item, "image_idx", GA_DLIO, (int64_t)idx);
    char name[64];
    snprintf(name, sizeof name, "%s.read_index", s->prof->reader);
    frame *ri = span_open(s, name, "reader");
    span_arg(ri, "epoch", GA_DLIO, epoch);
    span_arg(ri, "image_idx", GA_DLIO, (int64_t)idx);
    span_arg(ri, "step", GA_DLIO, step);
    span_arg(ri, "image_size", GA_DLIO, (int64_t)size);
    io_file fl = sample_file(s, idx);
    s->next_fd = (int)gen_rng_range(&s->rng, 16, 19); /* Python keeps a few files open */
    read_sample_file(s, &fl, size);
    span_close(s);
    span_close(s);
}

/* A record covering [ts, now) at the current depth: the loop's wait and body regions. */
static void region(rank_sim *s, const char *name, int64_t ts, uint32_t epoch, uint32_t step)
{
    gen_arg a[2];
    if (s->names->ai) {
        a[0] = (gen_arg){"count", GA_INT, step, NULL};
        a[1] = (gen_arg){"epoch", GA_INT, epoch, NULL};
    } else {
        a[0] = (gen_arg){"step", GA_DLIO, step, NULL};
        a[1] = (gen_arg){"epoch", GA_DLIO, epoch, NULL};
    }
    tick(s);
    write_event(s, name, s->names->loop_cat, TYPE_PYTHON, s->next_id++, ts, s->now - ts, NULL, a,
                2);
}

static void compute(rank_sim *s, uint32_t epoch)
{
    int64_t c = s->prof->compute_us;
    int64_t dur = gen_rng_range(&s->rng, c - c / 30, c + c / 30);
    if (!s->names->ai) {
        gen_arg a[1] = {{"epoch", GA_DLIO, epoch, NULL}};
        leaf(s, "TorchFramework.trace_object", "ai_framework", gen_rng_range(&s->rng, 8, 20), NULL,
             a, 1, NO_AGG);
        leaf(s, "TorchFramework.compute", "ai_framework", dur, NULL, a, 1, NO_AGG);
        return;
    }
    frame *fr = span_open(s, "compute", "compute");
    span_arg(fr, "epoch", GA_INT, epoch);
    py(s, "forward", "compute", dur * 2 / 5, dur * 2 / 5 + 200);
    py(s, "backward", "compute", dur / 2, dur / 2 + 300);
    py(s, "step", "compute", dur / 12, dur / 12 + 100);
    span_close(s);
}

/* One iteration: wait for a batch (the samples are read on this thread), then compute. Legacy
 * DLIO loses both loop records of the last step of an epoch; dft_ai writes them all. */
static void step(rank_sim *s, uint32_t epoch, uint32_t k, bool last)
{
    int64_t wait_start = s->now;
    gap(s, 20, 80);
    uint64_t first = (uint64_t)(k - 1) * s->prof->batch;
    for (uint32_t i = 0; i < s->prof->batch && !s->stop; i++) {
        sample(s, epoch, k, first + i);
        s->stop = budget_reached(s);
    }
    bool loop_records = s->names->ai || !last;
    if (loop_records)
        region(s, s->names->wait, wait_start, epoch, k);
    gap(s, 10, 60);
    int64_t body_start = s->now;
    compute(s, epoch);
    gap(s, 20, 120);
    if (loop_records)
        region(s, s->names->body, body_start, epoch, k);
    s->stop = s->stop || budget_reached(s);
}

static void fork_workers(rank_sim *s, unsigned workers)
{
    bool child_record = s->f->format != DFS_GEN_V2 && s->f->format != DFS_GEN_CHROME;
    for (unsigned w = 0; w < workers; w++) {
        int64_t child = (int64_t)s->next_child++;
        uint64_t id = s->next_id++;
        int64_t ts = s->now, dur = gen_rng_range(&s->rng, 15000, 25000);
        gen_arg parent[1] = {{"ret", GA_INT, child, NULL}};
        tick(s);
        write_event(s, "fork", "POSIX", TYPE_LIBC_IO, id, ts, dur, NULL, parent, 1);
        if (child_record) { /* v1 children keep writing into the parent's file, same id */
            gen_arg kid[1] = {{"ret", GA_INT, 0, NULL}};
            gen_rec r = {"fork", "POSIX", TYPE_LIBC_IO, id, s->pid, child, ts,
                         dur + gen_rng_range(&s->rng, 100, 400), (int64_t)s->stack[s->depth - 1].id,
                         (int32_t)s->depth + 1, NULL, 0, 0, kid, 1};
            gen_fmt_complete(s->f, &r);
        }
        s->now += dur + gen_rng_range(&s->rng, 20000, 60000);
    }
}

static void checkpoint(rank_sim *s, uint32_t epoch)
{
    frame *save = span_open(s, s->names->ckpt, "checkpoint");
    span_arg(save, "epoch", GA_DLIO, epoch);
    py(s, "FileStorage.create_node", "storage", 300, 700);
    frame *state = span_open(s, "PyTorchCheckpointing.save_state", "checkpoint");
    span_arg(state, "epoch", GA_DLIO, epoch);
    char path[256];
    int n = snprintf(path, sizeof path, "%s/epoch-%u/model-rank%u-of-%u.pt", s->misc[MISC_CKPT_DIR],
                     epoch, s->rank, s->job->ranks);
    bool seen = false; /* a new file every time */
    io_file fl = {path, (size_t)n, 0};
    fl.hash = file_hash(s, path, fl.len, &seen);
    int fd = sys_open(s, &fl, 524865, 438); /* O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666 */
    sys_fstat(s, &fl, fd);
    sys_lseek(s, &fl, fd, 0, 1, 0);
    for (uint64_t left = s->prof->ckpt_bytes; left > 0;) {
        uint64_t c = left < WRITE_CHUNK ? left : WRITE_CHUNK;
        sys_write(s, &fl, fd, c);
        left -= c;
    }
    sys_close(s, &fl, fd);
    span_close(s);
    span_close(s);
    s->last_ckpt_epoch = epoch;
}

static void epoch_setup(rank_sim *s, uint32_t epoch)
{
    span_open(s, "ConfigArguments.reconfigure", "config");
    py(s, "ConfigArguments.get_global_map_index", "config", 150, 320);
    span_close(s);
    gen_arg a[1] = {{"epoch", GA_DLIO, epoch - 1, NULL}};
    if (epoch == 1) {
        frame *fr = span_open(s, "TorchFramework.init_loader", "ai_framework");
        span_arg(fr, "epoch", GA_DLIO, 0);
        gap(s, 100000, 140000);
        py(s, "TorchDataLoader.__init__", "data_loader", 12, 30);
        span_close(s);
    }
    leaf(s, "TorchFramework.get_loader", "ai_framework", gen_rng_range(&s->rng, 5, 9), NULL, a, 1,
         NO_AGG);
    if (epoch == 1) {
        span_open(s, "TorchDataLoader.read", "data_loader");
        span_open(s, "TorchDataset.__init__", "data_loader");
        span_open(s, "TorchDataset.worker_init", "data_loader");
        gap(s, 120000, 160000);
        char name[64];
        snprintf(name, sizeof name, "%s.__init__", s->prof->reader);
        py(s, name, "reader", 20, 40);
        span_close(s);
        span_close(s);
        span_close(s);
    }
}

static void epoch(rank_sim *s, uint32_t e)
{
    shuffle_epoch(s, e);
    epoch_setup(s, e);
    gen_fmt_edge(s->f, 'B', "epoch", "pipeline", s->now, s->pid, s->pid);
    frame *fr = span_open(s, s->names->epoch, s->names->epoch_cat);
    span_arg(fr, "epoch", GA_DLIO, e);
    py(s, "TorchDataLoader.next", "data_loader", 4, 9);
    fork_workers(s, 2);
    uint32_t steps = s->job->steps_per_epoch;
    for (uint32_t k = 1; k <= steps && !s->stop; k++)
        step(s, e, k, k == steps);
    py(s, "TorchDataLoader.finalize", "data_loader", 4, 9);
    span_close(s);
    gen_fmt_edge(s->f, 'E', "epoch", "pipeline", s->now, s->pid, s->pid);
    if (e % s->job->checkpoint_every == 0 || s->stop)
        checkpoint(s, e);
    io_file log = misc_file(s, MISC_LOG);
    stdio_file(s, &log, true, gen_rng_range(&s->rng, 180, 420));
}

static void finish(rank_sim *s, uint32_t epochs)
{
    frame *run = &s->stack[s->depth - 1];
    span_arg(run, "epoch", GA_DLIO, epochs);
    span_close(s);
    py(s, "PyTorchCheckpointing.finalize", "checkpoint", 5, 10);
    if (s->names->ai)
        span_close(s); /* ai_root */
    if (s->f->format == DFS_GEN_V2) {
        flush_aggregates(s);
        emit_counters(s, s->now);
    }
    if (!gen_fmt_uses_hashes(s->f))
        return;
    char cfg[192];
    snprintf(cfg, sizeof cfg,
             "{\"time_metric\":\"US\",\"compression\":%s,\"write_buffer_size\":%llu,"
             "\"aggregation_enable\":true}",
             s->job->gzip ? "true" : "false", (unsigned long long)s->job->member_bytes);
    gen_arg a[4] = {{"num_events", GA_INT, (int64_t)s->next_id - 1, NULL},
                    {"cfg", GA_RAW, 0, cfg},
                    {"build", GA_RAW, 0, "{\"version\":\"2.0.1\",\"hash\":\"dfscope-gen\"}"},
                    {"used", GA_RAW, 0, "{\"DFTRACER\":1,\"LIBC_IO\":1,\"PYTHON\":1,\"PSUTIL\":1}"}};
    unsigned n = s->f->format == DFS_GEN_V2 ? 4 : 1;
    write_event(s, "end", "dftracer", TYPE_DFTRACER, s->next_id++, s->now, 0, NULL, a, n);
}

static void run(rank_sim *s)
{
    preamble(s);
    /* The Python main frame: it owns the top-level calls but is never written. */
    frame *root = span_open(s, s->names->ai ? "ai_root" : "<module>", "pipeline");
    root->hidden = !s->names->ai;
    init_phase(s);
    gap(s, 400, 900);
    span_open(s, s->names->run, s->names->run_cat);
    uint32_t e = 0;
    while (!s->stop)
        epoch(s, ++e);
    finish(s, e);
}

static void setup_paths(rank_sim *s)
{
    const char *m = s->prof->model;
    snprintf(s->prefix, sizeof s->prefix, "/p/lustre3/dlio/%s/data/train", m);
    snprintf(s->misc[MISC_DATA_DIR], sizeof s->misc[0], "%s", s->prefix);
    snprintf(s->misc[MISC_CONFIG], sizeof s->misc[0], "/usr/workspace/dlio/configs/workload/%s.yaml",
             m);
    snprintf(s->misc[MISC_CKPT_DIR], sizeof s->misc[0], "/p/lustre3/dlio/%s/checkpoint", m);
    snprintf(s->misc[MISC_LOG], sizeof s->misc[0], "/usr/workspace/dlio/outputs/%s/rank%u.log", m,
             s->rank);
}

int gen_rank_run(const gen_job *job, unsigned rank, gen_fmt *f)
{
    rank_sim *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->fh_seen = calloc((size_t)(job->files / 8 + 1), 1);
    if (!s->fh_seen) {
        free(s);
        return ENOMEM;
    }
    s->job = job;
    s->prof = job->prof;
    s->names = job->format == DFS_GEN_V2 ? &ai_names : &legacy_names;
    s->f = f;
    s->rank = rank;
    gen_rng_seed(&s->rng, mix_key(job->seed, rank + 1));
    s->pid = job->pid0 + rank;
    s->now = job->t0 + gen_rng_range(&s->rng, 0, 7000); /* ranks start a few ms apart */
    s->next_id = job->format == DFS_GEN_2023 ? 0 : 1;
    s->next_child = (uint64_t)job->pid0 + job->ranks + 1000 + (uint64_t)rank * 64;
    s->agg_start = s->now - s->now % INTERVAL_US;
    s->next_counter = s->agg_start + INTERVAL_US;
    setup_paths(s);

    gen_fmt_open(f);
    run(s);
    gen_fmt_close(f);
    free(s->fh_seen);
    free(s);
    return 0;
}
