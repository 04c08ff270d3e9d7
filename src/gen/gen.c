/* gen.c - the public side of the generator: options, file names, workers, atomic files, and what
 * gen_dasf.c shares with it (gen_internal.h). */
#include "gen/gen.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dfscope.h"
#include "gen/gen_fmt.h"
#include "gen/gen_internal.h"
#include "gen/gen_model.h"
#include "output/atomic.h"
#include "output/textout.h"

#define DEFAULT_MEMBER_BYTES (UINT64_C(16) << 20)
#define MAX_RANKS 65536u

static const char *const format_names[DFS_GEN__COUNT] = {"2023", "v1", "v1-h16", "v2", "chrome"};
static const char *const workload_names[DFS_GEN__WORKLOADS] = {"unet3d", "resnet50"};

void dfs_gen_options_init(dfs_gen_options *o)
{
    memset(o, 0, sizeof *o);
    o->format = DFS_GEN_V1;
    o->workload = DFS_GEN_UNET3D;
    o->ranks = 8;
    o->events_per_rank = 20000;
    o->seed = 1;
    o->member_bytes = DEFAULT_MEMBER_BYTES;
}

const char *dfs_gen_format_name(dfs_gen_format f)
{
    return f < DFS_GEN__COUNT ? format_names[f] : "?";
}

bool dfs_gen_parse_format(const char *s, dfs_gen_format *out)
{
    for (int i = 0; i < DFS_GEN__COUNT; i++) {
        if (strcmp(s, format_names[i]) == 0) {
            *out = (dfs_gen_format)i;
            return true;
        }
    }
    return false;
}

const char *dfs_gen_workload_name(dfs_gen_workload w)
{
    return w < DFS_GEN__WORKLOADS ? workload_names[w] : "?";
}

bool dfs_gen_parse_workload(const char *s, dfs_gen_workload *out)
{
    for (int i = 0; i < DFS_GEN__WORKLOADS; i++) {
        if (strcmp(s, workload_names[i]) == 0) {
            *out = (dfs_gen_workload)i;
            return true;
        }
    }
    return false;
}

static int unit_shift(const char *u)
{
    static const char units[] = "kmgt";
    if (*u == '\0')
        return 0;
    const char *hit = strchr(units, u[0] | 0x20);
    if (!hit)
        return -1;
    const char *rest = u + 1;
    if (strcmp(rest, "") != 0 && strcmp(rest, "B") != 0 && strcmp(rest, "iB") != 0)
        return -1;
    return 10 * (int)(hit - units + 1);
}

bool dfs_gen_parse_size(const char *s, uint64_t *out)
{
    uint64_t whole = 0, frac = 0, frac_div = 1;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return false;
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++) {
            if (frac_div < UINT64_C(1000000)) { /* keeps frac << 40 within 64 bits */
                frac = frac * 10 + (uint64_t)(*p - '0');
                frac_div *= 10;
            }
        }
    }
    int shift = unit_shift(p);
    if (shift < 0 || (shift > 0 && whole > (UINT64_MAX >> shift) - 1))
        return false;
    uint64_t v = (whole << shift) + ((frac << shift) / frac_div);
    if (v == 0)
        return false;
    *out = v;
    return true;
}

int dfs_gen_file_name(const dfs_gen_options *o, unsigned rank, char *buf, size_t cap)
{
    const char *gz = o->gzip ? ".gz" : "";
    switch (o->format) {
    case DFS_GEN_V2: {
        gen_rng rng; /* DFTracer 2.x names files by a hash of the process */
        gen_rng_seed(&rng, o->seed * UINT64_C(0x9e3779b97f4a7c15) + rank);
        return snprintf(buf, cap, "trace-%016llx-app.pfw%s", (unsigned long long)gen_rng_next(&rng),
                        gz);
    }
    case DFS_GEN_CHROME:
        return snprintf(buf, cap, "rank%u.trace.json%s", rank, gz);
    default:
        return snprintf(buf, cap, "trace-%u-of-%u.pfw%s", rank, o->ranks, gz);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Shared with gen_dasf.c (gen_internal.h)
 * ------------------------------------------------------------------------------------------- */

int gen_fail(char *err, size_t errlen, int status, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return status;
}

char *gen_join_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

void gen_report_sum(dfs_gen_report *r)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        r->records += r->files[i].records;
        r->bytes += r->files[i].bytes;
        r->disk_bytes += r->files[i].disk_bytes;
    }
}

double gen_seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* ---------------------------------------------------------------------------------------------
 * Writing one file
 * ------------------------------------------------------------------------------------------- */

typedef struct gen_shared {
    const dfs_gen_options *opt;
    gen_job job;
    dfs_gen_file *files;
    pthread_mutex_t lock;
    unsigned next_rank;
    unsigned char *written; /* per rank: the final file was renamed into place */
    int failed_rank;        /* lowest failing rank, -1 if none */
    int failed_status;      /* its dfs_status */
    char err[256];
} gen_shared;

/* Generates into an open descriptor; returns an errno value. */
static int generate(const gen_shared *sh, unsigned rank, int fd, dfs_gen_file *fi)
{
    const dfs_gen_options *o = sh->opt;
    uint64_t member = o->format == DFS_GEN_V2 ? o->member_bytes : 0;
    dfs_textout *out = dfs_textout_new(fd, o->gzip, member);
    if (!out)
        return ENOMEM;
    char host[64];
    gen_rank_host(&sh->job, rank, host, sizeof host);
    gen_fmt fmt;
    gen_fmt_init(&fmt, o->format, out, host);
    int rc = gen_rank_run(&sh->job, rank, &fmt);
    int werr = dfs_textout_finish(out);
    fi->records = fmt.records;
    fi->bytes = dfs_textout_text_bytes(out);
    fi->disk_bytes = dfs_textout_disk_bytes(out);
    fi->gzip_members = o->gzip ? dfs_textout_members(out) : 0;
    dfs_textout_free(out);
    return rc ? rc : werr;
}

static int write_rank(gen_shared *sh, unsigned rank, char *why, size_t whylen)
{
    dfs_gen_file *fi = &sh->files[rank];
    char name[128];
    dfs_gen_file_name(sh->opt, rank, name, sizeof name);
    fi->path = gen_join_path(sh->opt->out_dir, name);
    if (!fi->path) {
        snprintf(why, whylen, "out of memory");
        return DFS_ERR_NOMEM;
    }
    /* through the atomic writer, so that a fatal signal removes the temporary (atomic.h); the
     * text goes to its descriptor, past the stream, which stays empty */
    dfs_atomic_file af;
    int rc = dfs_atomic_open(&af, fi->path, NULL, why, whylen);
    if (rc != 0)
        return rc == ENOMEM ? DFS_ERR_NOMEM : DFS_ERR_IO;
    rc = generate(sh, rank, fileno(af.fp), fi);
    int closed = dfs_atomic_close(&af, rc == 0, why, whylen);
    if (rc != 0)
        snprintf(why, whylen, "%s: %s", name, strerror(rc));
    else
        rc = closed;
    return rc == 0 ? DFS_OK : rc == ENOMEM ? DFS_ERR_NOMEM : DFS_ERR_IO;
}

static void *worker(void *arg)
{
    gen_shared *sh = arg;
    for (;;) {
        pthread_mutex_lock(&sh->lock);
        unsigned rank = sh->next_rank++;
        bool stop = sh->failed_rank >= 0 || rank >= sh->opt->ranks;
        pthread_mutex_unlock(&sh->lock);
        if (stop)
            return NULL;
        char why[256];
        int st = write_rank(sh, rank, why, sizeof why);
        if (st != DFS_OK) {
            pthread_mutex_lock(&sh->lock);
            if (sh->failed_rank < 0 || (int)rank < sh->failed_rank) {
                sh->failed_rank = (int)rank;
                sh->failed_status = st;
                snprintf(sh->err, sizeof sh->err, "%s", why);
            }
            pthread_mutex_unlock(&sh->lock);
        } else {
            sh->written[rank] = 1;
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Entry point
 * ------------------------------------------------------------------------------------------- */

static int check_options(const dfs_gen_options *o, char *err, size_t errlen)
{
    if (!o->out_dir || !*o->out_dir)
        return gen_fail(err, errlen, DFS_ERR_USAGE, "no output directory");
    if (o->format >= DFS_GEN__COUNT)
        return gen_fail(err, errlen, DFS_ERR_USAGE, "unknown format");
    if (o->workload >= DFS_GEN__WORKLOADS)
        return gen_fail(err, errlen, DFS_ERR_USAGE, "unknown workload");
    if (o->ranks == 0 || o->ranks > MAX_RANKS)
        return gen_fail(err, errlen, DFS_ERR_USAGE, "ranks must be between 1 and %u", MAX_RANKS);
    if (o->total_bytes == 0 && o->events_per_rank == 0)
        return gen_fail(err, errlen, DFS_ERR_USAGE, "a size or an event count is needed");
    if (o->format == DFS_GEN_V2 && o->gzip && o->member_bytes == 0)
        return gen_fail(err, errlen, DFS_ERR_USAGE, "gzip member size must be positive");
    return DFS_OK;
}

static unsigned worker_count(const dfs_gen_options *o)
{
    long n = o->jobs > 0 ? o->jobs : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if ((unsigned long)n > o->ranks)
        n = (long)o->ranks;
    return n > 64 ? 64u : (unsigned)n;
}

static void run_workers(gen_shared *sh, unsigned n)
{
    pthread_t threads[64];
    unsigned started = 0;
    for (unsigned i = 1; i < n; i++) {
        if (pthread_create(&threads[started], NULL, worker, sh) != 0)
            break; /* fewer threads only makes it slower */
        started++;
    }
    worker(sh);
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
}

static void remove_outputs(const gen_shared *sh, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (sh->written[i])
            unlink(sh->files[i].path);
    }
}

int dfs_gen_write(const dfs_gen_options *o, dfs_gen_report *out, char *err, size_t errlen)
{
    dfs_gen_report local = {0};
    dfs_gen_report *r = out ? out : &local;
    memset(r, 0, sizeof *r);
    int st = check_options(o, err, errlen);
    if (st != DFS_OK)
        return st;
    char why[512];
    if (dfs_make_dirs(o->out_dir, why, sizeof why) != 0)
        return gen_fail(err, errlen, DFS_ERR_IO, "%s", why);

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    gen_shared *sh = calloc(1, sizeof *sh);
    r->files = calloc(o->ranks, sizeof *r->files);
    unsigned char *written = calloc(o->ranks, 1);
    if (!sh || !r->files || !written) {
        free(sh);
        free(written);
        return gen_fail(err, errlen, DFS_ERR_NOMEM, "out of memory");
    }
    r->nfiles = o->ranks;
    sh->opt = o;
    sh->files = r->files;
    sh->written = written;
    sh->failed_rank = -1;
    gen_job_plan(&sh->job, o);
    pthread_mutex_init(&sh->lock, NULL);
    run_workers(sh, worker_count(o));
    pthread_mutex_destroy(&sh->lock);

    if (sh->failed_rank >= 0) {
        st = gen_fail(err, errlen, sh->failed_status, "%s", sh->err);
        remove_outputs(sh, r->nfiles);
    } else {
        gen_report_sum(r);
    }
    free(sh);
    free(written);
    r->seconds = gen_seconds_since(&t0);
    if (r == &local)
        dfs_gen_report_free(&local);
    return st;
}

void dfs_gen_report_free(dfs_gen_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nfiles; i++)
        free(r->files[i].path);
    free(r->files);
    memset(r, 0, sizeof *r);
}
