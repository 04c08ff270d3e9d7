/* jobs.c - the inputs of a run grouped into jobs (jobs.h says by what). Timed inputs are sorted
 * by start and cut where the gap after a job is long for it; identified inputs are sorted by
 * identity and cut where it changes. Sorting is by content with the input index last, so the
 * jobs never depend on the order the inputs were named in beyond their index. */
#include "analyze/common/jobs.h"

#include <stdlib.h>
#include <string.h>

typedef struct placed {
    const dfs_job_input *in;
    size_t index;
} placed;

static int by_start(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    if (x->in->start_ns != y->in->start_ns)
        return x->in->start_ns < y->in->start_ns ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int identity_cmp(const dfs_job_input *x, const dfs_job_input *y)
{
    size_t n = x->identity_len < y->identity_len ? x->identity_len : y->identity_len;
    int c = memcmp(x->identity, y->identity, n);
    if (c)
        return c;
    return x->identity_len < y->identity_len ? -1 : x->identity_len > y->identity_len;
}

static int by_identity(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    int c = identity_cmp(x->in, y->in);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int by_index(const void *a, const void *b)
{
    const size_t *x = a, *y = b;
    return *x < *y ? -1 : *x > *y;
}

/* Does p start a new job after `job` (timed)? The gap allowed grows with the job: a run with a
 * long pause (a restart from a checkpoint) stays one job when the pause is shorter than the run. */
static bool opens_timed(const dfs_job *job, const dfs_job_input *p)
{
    int64_t span = job->end_ns - job->start_ns;
    int64_t gap = span > DFS_JOBS_MIN_GAP_NS ? span : DFS_JOBS_MIN_GAP_NS;
    return p->start_ns > job->end_ns && p->start_ns - job->end_ns > gap;
}

/* Cuts the sorted inputs v[0..n) into jobs appended to out (whose arrays have room). */
static void cut(dfs_jobs *out, const placed *v, size_t n, bool timed)
{
    for (size_t i = 0; i < n; i++) {
        const dfs_job_input *p = v[i].in;
        dfs_job *job = out->n ? &out->v[out->n - 1] : NULL;
        bool same = job && job->timed == timed && i > 0 &&
                    (timed ? !opens_timed(job, p) : identity_cmp(v[i - 1].in, p) == 0);
        if (!same) {
            size_t first = job ? job->first + job->count : 0;
            job = &out->v[out->n++];
            *job = (dfs_job){.first = first,
                             .timed = timed,
                             .start_ns = p->start_ns,
                             .end_ns = p->end_ns,
                             .identity = timed ? NULL : p->identity,
                             .identity_len = timed ? 0 : p->identity_len};
        }
        out->inputs[job->first + job->count++] = v[i].index;
        if (timed && p->end_ns > job->end_ns)
            job->end_ns = p->end_ns;
    }
}

bool dfs_jobs_group(const dfs_job_input *in, size_t n, dfs_jobs *out)
{
    memset(out, 0, sizeof *out);
    placed *timed = malloc((n ? n : 1) * sizeof *timed), *named = malloc((n ? n : 1) * sizeof *named);
    out->v = malloc((n ? n : 1) * sizeof *out->v);
    out->inputs = malloc((n ? n : 1) * sizeof *out->inputs);
    if (!timed || !named || !out->v || !out->inputs) {
        free(timed);
        free(named);
        dfs_jobs_free(out);
        return false;
    }
    size_t nt = 0, nn = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i].identity)
            named[nn++] = (placed){&in[i], i};
        else if (in[i].timed)
            timed[nt++] = (placed){&in[i], i};
        else
            out->unplaced++;
    }
    qsort(timed, nt, sizeof *timed, by_start);
    qsort(named, nn, sizeof *named, by_identity);
    cut(out, timed, nt, true);
    cut(out, named, nn, false);
    for (size_t j = 0; j < out->n; j++)
        qsort(out->inputs + out->v[j].first, out->v[j].count, sizeof *out->inputs, by_index);
    free(timed);
    free(named);
    return true;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

const char *dfs_jobs_dasf_identity(const char *path, size_t *len)
{
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    size_t n = strlen(name);
    if (ends_with(name, n, ".msgpack"))
        n -= strlen(".msgpack");
    static const char *const plugins[] = {"-TracePlugin-", "-ResourceMonitor-"};
    for (size_t k = 0; k < sizeof plugins / sizeof *plugins; k++) {
        const char *at = NULL;
        for (const char *p = name; (p = strstr(p, plugins[k])) != NULL && p < name + n; p++)
            at = p;
        if (at) {
            *len = (size_t)(at - name);
            return name;
        }
    }
    *len = n;
    return name;
}

/* Is f a trace that was read (else it is left out, not even unplaced)? */
static bool is_read_trace(const dfs_file_info *f)
{
    return !f->unreadable && f->format != DFS_FMT_NOT_A_TRACE && f->format != DFS_FMT_UNKNOWN;
}

/* What places file f of the run (jobs.h). */
static dfs_job_input input_of(const dfs_file_info *f)
{
    dfs_job_input in = {0};
    if (!is_read_trace(f) || !f->have_span)
        return in;
    if (f->dialect == DFS_DIALECT_DASF || f->format == DFS_FMT_DASF || f->format == DFS_FMT_DASF_TEXT) {
        in.identity = dfs_jobs_dasf_identity(f->path, &in.identity_len);
        return in;
    }
    in.timed = dfs_jobs_on_wall_clock(f, f->span_start_ns);
    in.start_ns = f->span_start_ns;
    in.end_ns = f->span_end_ns;
    return in;
}

bool dfs_jobs_of_run(const dfs_run *run, dfs_jobs *out)
{
    size_t n = dfs_run_file_count(run);
    dfs_job_input *in = malloc((n ? n : 1) * sizeof *in);
    if (!in) {
        memset(out, 0, sizeof *out);
        return false;
    }
    size_t left_out = 0;
    for (size_t i = 0; i < n; i++) {
        const dfs_file_info *f = dfs_run_file(run, i);
        in[i] = input_of(f);
        left_out += !is_read_trace(f);
    }
    bool ok = dfs_jobs_group(in, n, out);
    out->unplaced -= ok ? left_out : 0;
    free(in);
    return ok;
}

void dfs_jobs_free(dfs_jobs *j)
{
    free(j->v);
    free(j->inputs);
    memset(j, 0, sizeof *j);
}
