/* compose.c - the report's analyses as one (analysis.h): layered, overlap, steps, the I/O
 * calls, tasks (fed DASF files only), gpu (fed profiler traces only: it keeps their events) and
 * the profiler rules (fed SageMaker Debugger files only), each with its own consumer on the same
 * dfs_run_read. A
 * second pass happens only when layered or overlap asks for one (the time origin or a file clock
 * known late) on DFTracer inputs, and then all read again, so that every number of the report
 * comes from the same pass; the reasons are joined for the report to say.
 *
 * Invariants: the composite holds no state of its own beyond its parts' objects and results; the
 * first failure of a part is the composite's; layered and overlap results are kept only for
 * DFTracer inputs, tasks' only for DASF ones, gpu's only for profiler traces, the rules' only for
 * SageMaker Debugger files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

/* A part's consumer fed only the files of some dialects: the outer consumer the read sees, the
 * part's own, and which dialects it takes. */
typedef struct filtered {
    dfs_consumer outer;
    const dfs_consumer *inner;
    bool (*takes)(dfs_dialect d);
} filtered;

typedef struct composite {
    void *lay, *ov, *st, *tk, *gpu, *rules;
    dfs_iocalls *io;
    filtered tk_dasf;     /* the tasks consumer, fed DASF files only */
    filtered gpu_profile; /* the gpu consumer, fed profiler traces only */
    filtered rules_smdebug; /* the profiler rules' consumer, fed SageMaker Debugger files only */
    dfs_report_results res;
    bool dftracer; /* some input is a DFTracer trace: layered and overlap apply */
    char reason[320];
} composite;


static void destroy(void *obj)
{
    composite *c = obj;
    if (!c)
        return;
    if (c->lay)
        dfs_layered_analysis.destroy(c->lay);
    if (c->ov)
        dfs_overlap_analysis.destroy(c->ov);
    if (c->st)
        dfs_steps_analysis.destroy(c->st);
    if (c->tk)
        dfs_tasks_analysis.destroy(c->tk);
    if (c->gpu)
        dfs_gpu_analysis.destroy(c->gpu);
    if (c->rules)
        dfs_rules_analysis.destroy(c->rules);
    dfs_iocalls_free(c->io);
    free(c);
}

static void *create(const void *opt_, char *err, size_t errlen)
{
    const dfs_report_options *o = opt_;
    composite *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->lay = dfs_layered_analysis.create(&o->lay, err, errlen);
    c->ov = c->lay ? dfs_overlap_analysis.create(&o->ov, err, errlen) : NULL;
    c->st = c->ov ? dfs_steps_analysis.create(&o->st, err, errlen) : NULL;
    c->tk = c->st ? dfs_tasks_analysis.create(&o->tk, err, errlen) : NULL;
    c->gpu = c->tk ? dfs_gpu_analysis.create(&o->gpu, err, errlen) : NULL;
    c->rules = c->gpu ? dfs_rules_analysis.create(&o->rules, err, errlen) : NULL;
    c->io = c->rules ? dfs_iocalls_new() : NULL;
    if (!c->io) {
        if (c->rules)
            snprintf(err, errlen, "out of memory");
        destroy(c);
        return NULL;
    }
    return c;
}

/* The tasks analysis reads DASF databases; other traces' events would only fill its name table. */
static bool dasf_dialect(dfs_dialect d)
{
    return d == DFS_DIALECT_DASF;
}

/* The gpu analysis reads profiler traces' device events, and keeps every event it is fed. */
static bool profiler_dialect(dfs_dialect d)
{
    return d == DFS_DIALECT_KINETO || d == DFS_DIALECT_TF_PROFILER;
}

/* The profiler rules read SageMaker Debugger system samples and framework events; the report's
 * steps answer for the other training traces. */
static bool smdebug_dialect(dfs_dialect d)
{
    return d == DFS_DIALECT_SMDEBUG_SYSTEM || d == DFS_DIALECT_SMDEBUG_FRAMEWORK || d == DFS_DIALECT_HOROVOD;
}

static void filtered_on_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    void **st = state;
    const filtered *f = st[1];
    if (f->takes(dfs_run_file(run, b->file)->dialect))
        f->inner->on_batch(st[0], run, b);
}

static void *filtered_worker_begin(void *user)
{
    const filtered *f = user;
    void **st = malloc(2 * sizeof *st);
    if (st && !(st[0] = f->inner->worker_begin(f->inner->user))) {
        free(st);
        return NULL;
    }
    if (st)
        st[1] = (void *)f;
    return st;
}

static void filtered_worker_done(void *state, const dfs_run *run)
{
    void **st = state;
    const filtered *f = st[1];
    if (f->inner->worker_done)
        f->inner->worker_done(st[0], run);
}

static void filtered_worker_end(void *user, const dfs_run *run, void *state)
{
    const filtered *f = user;
    void **st = state;
    f->inner->worker_end(f->inner->user, run, st ? st[0] : NULL);
    free(st);
}

static dfs_consumer *filter(filtered *f, const dfs_consumer *inner, bool (*takes)(dfs_dialect))
{
    *f = (filtered){.outer = {.user = f,
                              .want = inner->want,
                              .worker_begin = filtered_worker_begin,
                              .on_batch = filtered_on_batch,
                              .worker_done = inner->worker_done ? filtered_worker_done : NULL,
                              .worker_end = filtered_worker_end},
                    .inner = inner,
                    .takes = takes};
    return &f->outer;
}

static size_t consumers(void *obj, dfs_consumer **out, size_t max)
{
    composite *c = obj;
    if (max < 7)
        return 0;
    out[0] = dfs_layered_analysis.consumer(c->lay);
    out[1] = dfs_overlap_analysis.consumer(c->ov);
    out[2] = dfs_steps_analysis.consumer(c->st);
    out[3] = dfs_iocalls_consumer(c->io);
    out[4] = filter(&c->tk_dasf, dfs_tasks_analysis.consumer(c->tk), dasf_dialect);
    out[5] = filter(&c->gpu_profile, dfs_gpu_analysis.consumer(c->gpu), profiler_dialect);
    out[6] = filter(&c->rules_smdebug, dfs_rules_analysis.consumer(c->rules), smdebug_dialect);
    return 7;
}

static dfs_consumer *first_consumer(void *obj)
{
    return dfs_layered_analysis.consumer(((composite *)obj)->lay);
}

static bool lay_rerun(const composite *c)
{
    return !c->res.lay && dfs_layered_analysis.needs_rerun(c->lay);
}

static bool ov_rerun(const composite *c)
{
    return !c->res.ov && dfs_overlap_analysis.needs_rerun(c->ov);
}

/* Layered and overlap describe DFTracer traces; on other kinds their results are left out, and a
 * second pass they ask for (a relative clock, an origin) is not read for nothing. */
static bool dftracer_dialect(dfs_dialect d)
{
    return d == DFS_DIALECT_DFTRACER_2023 || d == DFS_DIALECT_DFTRACER_V1 || d == DFS_DIALECT_DFTRACER_V2;
}

static bool any_file(const dfs_run *run, bool (*takes)(dfs_dialect))
{
    for (size_t i = 0; i < dfs_run_file_count(run); i++)
        if (takes(dfs_run_file(run, i)->dialect))
            return true;
    return false;
}

static const void *finish(void *obj, const dfs_run *run)
{
    composite *c = obj;
    c->dftracer = any_file(run, dftracer_dialect);
    c->res.lay = dfs_layered_analysis.finish(c->lay, run);
    c->res.ov = dfs_overlap_analysis.finish(c->ov, run);
    c->res.st = dfs_steps_analysis.finish(c->st, run);
    c->res.io = dfs_iocalls_finish(c->io, run);
    bool dasf = any_file(run, dasf_dialect);
    c->res.tk = dasf ? dfs_tasks_analysis.finish(c->tk, run) : NULL;
    if (dasf && !c->res.tk)
        return NULL;
    bool profile = any_file(run, profiler_dialect);
    c->res.gpu = profile ? dfs_gpu_analysis.finish(c->gpu, run) : NULL;
    if (profile && !c->res.gpu)
        return NULL;
    bool smdebug = any_file(run, smdebug_dialect);
    c->res.rules = smdebug ? dfs_rules_analysis.finish(c->rules, run) : NULL;
    if (smdebug && !c->res.rules)
        return NULL;
    if (!c->dftracer)
        c->res.lay = NULL, c->res.ov = NULL;
    bool all = (!c->dftracer || (c->res.lay && c->res.ov)) && c->res.st && c->res.io;
    return all ? &c->res : NULL;
}

static const char *failure(const void *obj)
{
    const composite *c = obj;
    const char *why = dfs_layered_analysis.failure(c->lay);
    if (!why)
        why = dfs_overlap_analysis.failure(c->ov);
    if (!why)
        why = dfs_steps_analysis.failure(c->st);
    return why;
}

static bool needs_rerun(const void *obj)
{
    const composite *c = obj;
    return c->dftracer && (lay_rerun(c) || ov_rerun(c)) && c->res.st && c->res.io;
}

static const char *prepare_rerun(const void *obj, const dfs_run *run, const dfs_file_clock *clocks, void *opt_)
{
    composite *c = (composite *)obj;
    dfs_report_options *o = opt_;
    const char *a = lay_rerun(c) ? dfs_layered_analysis.prepare_rerun(c->lay, run, clocks, &o->lay) : NULL;
    const char *b = ov_rerun(c) ? dfs_overlap_analysis.prepare_rerun(c->ov, run, clocks, &o->ov) : NULL;
    if (a && b && strcmp(a, b) != 0)
        snprintf(c->reason, sizeof c->reason, "layered analysis: %s; overlap: %s", a, b);
    else
        snprintf(c->reason, sizeof c->reason, "%s", a ? a : b ? b : "a part asked for it");
    snprintf(o->rerun_reason, sizeof o->rerun_reason, "%s", c->reason);
    return o->rerun_reason;
}

const dfs_analysis dfs_report_analysis = {
    .name = "report",
    .create = create,
    .destroy = destroy,
    .consumer = first_consumer,
    .consumers = consumers,
    .finish = finish,
    .failure = failure,
    .needs_rerun = needs_rerun,
    .prepare_rerun = prepare_rerun,
};

/* "(A) | (B)" of the texts that are not NULL, into buf; false when none is. */
static bool join(char *buf, size_t n, const char *const *texts, size_t k)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < k; i++)
        if (texts[i] && used < n)
            used += (size_t)snprintf(buf + used, n - used, "%s(%s)", used ? " | " : "", texts[i]);
    return used > 0 && used < n;
}

void dfs_report_overlap_classes(dfs_report_options *o)
{
    static const char checkpoint[] = "cat.str.contains(\"checkpoint\") | func_name.str.contains(\"checkpoint\")";
    dfs_overlap_options *ov = &o->ov;
    const char *wait_ckpt[] = {ov->app_io, checkpoint};
    const char *stall[] = {ov->app_io, checkpoint, ov->io};
    ov->nextra = 0;
    if (join(o->extra_text[0], sizeof o->extra_text[0], wait_ckpt, 2))
        o->extra[ov->nextra++] = (dfs_overlap_class_def){DFS_REPORT_CLASS_WAIT_CKPT, o->extra_text[0]};
    if (join(o->extra_text[1], sizeof o->extra_text[1], stall, 3))
        o->extra[ov->nextra++] = (dfs_overlap_class_def){DFS_REPORT_CLASS_STALL, o->extra_text[1]};
    ov->extra = o->extra;
}
