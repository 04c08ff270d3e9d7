/* gpu.c - the gpu analysis: keeps the complete events of every input (consumer), then per rank
 * prepares the device work of the semantics asked and measures the sections (gpu_sections.c).
 *
 * Under hta, as Holistic Trace Analysis 0.6.1 loads a trace: a file any of whose timestamps has a
 * fraction gets every start rounded up and every end down to whole µs (durations of 0 and -1 µs
 * follow); when the traces name at least two profiler steps, each rank keeps only its host events
 * that start before its last ProfilerStep#N and the device events those launched (once per
 * launch: two launches of one correlation count the device event twice); device work is every
 * event with a numeric args.stream, typed by its name. Under exact: every event as read, device
 * work is the timed device work of the shared classification, typed by its kind and name.
 *
 * Invariants: a trace file is one entry of the result, with the rank its distributedInfo names
 * (else 0); under exact every trace counts (files of one rank are measured apart: two profiling
 * windows of a process are not one timeline), under hta the later file (input order) of a rank
 * replaces the earlier, as HTA loads a folder; entries come out by rank, then input order. The
 * result depends on the rows and their files only, never on the order they were read in (threads,
 * MPI ranks). Nothing here prints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu_internal.h"
#include "util/vec.h"

struct dfs_gpu {
    dfs_gpu_options opt;
    dfs_consumer cons;
    gpu_kept all; /* every worker's, and under MPI every merged rank's */
    dfs_arena keep;
    dfs_gpu_result result;
};

void dfs_gpu_options_init(dfs_gpu_options *o)
{
    *o = (dfs_gpu_options){.semantics = DFS_GPU_EXACT, .sections = DFS_GPU_SEC_ALL, .top_names = 10,
                           .name_share = 0.8, .kernel_wait_ns = 30000, .cp_annotation = "ProfilerStep",
                           .seq_operator = "", .seq_min_len = 3, .straggler_candidates = 2,
                           .launch_runtime_ns = 50000, .launch_delay_ns = 100000, .queue_full = 1024};
}

enum { NSECTIONS = 11 };
static const char *const section_names[NSECTIONS] = {
    "temporal", "kernels", "overlap", "idle", "queue", "membw", "launch", "annotations", "critical-path", "sequences",
    "stragglers"};

const char *dfs_gpu_section_name(unsigned section)
{
    for (unsigned i = 0; i < NSECTIONS; i++)
        if (section == 1u << i)
            return section_names[i];
    return "?";
}

bool dfs_gpu_parse_sections(const char *list, unsigned *out, const char **bad, size_t *badlen)
{
    *out = 0;
    for (const char *p = list;;) {
        size_t n = strcspn(p, ",");
        unsigned bit = 0;
        for (unsigned i = 0; i < NSECTIONS; i++)
            if (strlen(section_names[i]) == n && strncmp(p, section_names[i], n) == 0)
                bit = 1u << i;
        if (!bit) {
            *bad = p, *badlen = n;
            return false;
        }
        *out |= bit;
        if (!p[n])
            return true;
        p += n + 1;
    }
}

const char *dfs_gpu_mask_label(unsigned mask, char *buf, size_t len)
{
    static const dfs_gpu_ktype order[] = {DFS_GPU_KT_COMPUTATION, DFS_GPU_KT_COMMUNICATION, DFS_GPU_KT_MEMORY};
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < 3; i++)
        if (mask & order[i])
            k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%s", k ? " overlapping " : "",
                                  dfs_gpu_ktype_name(order[i]));
    return buf;
}

/* ---- the consumer ---- */

static void *worker_begin(void *user)
{
    (void)user;
    return calloc(1, sizeof(gpu_kept));
}

static bool is_trace_cat(const char *s, size_t n) { return n == 5 && memcmp(s, "Trace", 5) == 0; }

void gpu_note_fraction(gpu_kept *w, uint32_t file)
{
    if (file >= w->fractional.n && !dfs_vec_extend_zeroed(&w->fractional, (size_t)file + 1)) {
        w->oom = true;
        return;
    }
    w->fractional.v[file] = true;
}

void gpu_note_first(gpu_kept *w, uint32_t file, uint64_t offset)
{
    if (file >= w->first.n && !dfs_vec_extend_zeroed(&w->first, (size_t)file + 1)) {
        w->oom = true;
        return;
    }
    if (!w->first.v[file] || offset + 1 < w->first.v[file])
        w->first.v[file] = offset + 1;
}

static bool key_is(const char *k, size_t n, const char *want) { return n == strlen(want) && memcmp(k, want, n) == 0; }

/* The extra args the consumer asks for: args["memory bandwidth (GB/s)"] and a CUDA event wait's
 * stream and event record correlation (integers; anything else is none). */
static void extra_args(const dfs_run *run, const dfs_event *ev, gpu_row *r)
{
    for (uint32_t i = 0; i < ev->nargs; i++) {
        const dfs_value *v = &ev->args[i].val;
        size_t n;
        if (ev->args[i].key <= DFS_KEY__COUNT)
            continue;
        const char *k = dfs_str_get(run, ev->args[i].key, &n);
        int64_t x;
        if (key_is(k, n, GPU_BW_ARG))
            r->bw = v->type == DFS_V_FLOAT ? v->as.f : v->type == DFS_V_INT ? (double)v->as.i : 0;
        else if (key_is(k, n, GPU_WAIT_STREAM_ARG) && dfs_value_int(v, &x))
            r->wait_stream = x;
        else if (key_is(k, n, GPU_WAIT_CORR_ARG) && dfs_value_int(v, &x))
            r->wait_corr = x;
    }
}

static void on_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    gpu_kept *w = state;
    if (b->count)
        gpu_note_first(w, b->file, b->events[0].offset);
    for (size_t i = 0; i < b->count && !w->oom; i++) {
        const dfs_event *ev = &b->events[i];
        if (!(ev->flags & DFS_EF_HAS_TS) || ev->ts % 1000 != 0)
            gpu_note_fraction(w, b->file);
        if (!(ev->flags & DFS_EF_HAS_DUR) || !(ev->flags & DFS_EF_HAS_TS) || !ev->cat || (ev->flags & DFS_EF_BAD_TIME))
            continue; /* a time that overflows or a negative duration is damage, reported, left out */
        size_t n;
        const char *cat = dfs_str_get(run, ev->cat, &n);
        if (is_trace_cat(cat, n))
            continue;
        dfs_gpu_event g;
        dfs_gpu_classify(run, ev, &g);
        int64_t stream = -1;
        const dfs_value *sv = dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_STREAM));
        if (!sv || !dfs_value_int(sv, &stream))
            stream = -1; /* HTA: anything but a number (ROCm's "0x0") is no stream */
        gpu_row r = {.ts = ev->ts, .dur = ev->dur, .offset = ev->offset, .stream = stream,
                     .corr = g.correlation, .name = ev->name, .cat = ev->cat, .file = b->file,
                     .kind = (uint8_t)g.kind, .pid = ev->pid, .tid = ev->tid, .wait_stream = -1,
                     .wait_corr = -1};
        extra_args(run, ev, &r);
        if (!dfs_vec_push(&w->rows, r))
            w->oom = true;
    }
}

static void worker_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    dfs_gpu *g = user;
    gpu_kept *w = state;
    g->all.oom |= w->oom || !dfs_vec_append(&g->all.rows, &w->rows);
    if (w->fractional.n > g->all.fractional.n && !dfs_vec_extend_zeroed(&g->all.fractional, w->fractional.n))
        g->all.oom = true;
    for (size_t i = 0; i < w->fractional.n && !g->all.oom; i++)
        g->all.fractional.v[i] |= w->fractional.v[i];
    for (size_t i = 0; i < w->first.n && !g->all.oom; i++)
        if (w->first.v[i])
            gpu_note_first(&g->all, (uint32_t)i, w->first.v[i] - 1);
    dfs_vec_free(&w->rows);
    dfs_vec_free(&w->fractional);
    dfs_vec_free(&w->first);
    free(w);
}

dfs_gpu *dfs_gpu_new(const dfs_gpu_options *o)
{
    dfs_gpu *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->opt = *o;
    dfs_arena_init(&g->keep, 1 << 16);
    static const char *const extra[] = {GPU_BW_ARG, NULL};
    static const char *const extra_cp[] = {GPU_BW_ARG, GPU_WAIT_STREAM_ARG, GPU_WAIT_CORR_ARG, NULL};
    g->cons = (dfs_consumer){.user = g,
                             .want = {.keys = DFS_KEYBIT(DFS_KEY_STREAM) | DFS_KEYBIT(DFS_KEY_CORRELATION),
                                      .extra = (o->sections & DFS_GPU_SEC_CRITICAL) ? extra_cp : extra},
                             .worker_begin = worker_begin,
                             .on_batch = on_batch,
                             .worker_end = worker_end};
    return g;
}

void dfs_gpu_free(dfs_gpu *g)
{
    if (!g)
        return;
    dfs_vec_free(&g->all.rows);
    dfs_vec_free(&g->all.fractional);
    dfs_vec_free(&g->all.first);
    dfs_arena_free(&g->keep);
    free(g);
}

dfs_consumer *dfs_gpu_consumer(dfs_gpu *g) { return &g->cons; }

gpu_kept *gpu_kept_of(dfs_gpu *g) { return &g->all; }

/* ---- per rank ---- */

static int cmp_rows(const void *a, const void *b)
{
    const gpu_row *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* The rank a file names in its distributedInfo ("rank": N); HTA wants a blank after the colon.
 * -1 when it names none. */
static int64_t file_rank(const dfs_run *run, uint32_t file, bool hta)
{
    dfs_str info = dfs_run_file_meta(run, file, "distributedInfo");
    size_t n;
    const char *s = info ? dfs_str_get(run, info, &n) : NULL;
    for (size_t i = 0; s && i + 7 < n; i++) {
        if (memcmp(s + i, "\"rank\":", 7) != 0)
            continue;
        size_t j = i + 7, blanks = 0;
        while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r'))
            j++, blanks++;
        if ((hta && !blanks) || j >= n || s[j] < '0' || s[j] > '9')
            continue;
        int64_t v = 0;
        while (j < n && s[j] >= '0' && s[j] <= '9' && v < INT64_MAX / 10 - 9)
            v = v * 10 + (s[j++] - '0');
        return v;
    }
    return -1;
}

/* The double strtod makes of a time written in µs with its ns digits (what HTA reads). */
static double us_double(int64_t ns)
{
    char buf[48];
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, sizeof buf, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000),
             (unsigned long long)(a % 1000));
    return strtod(buf, NULL);
}

/* HTA's rounding of a file with fractional timestamps: start up, end down, to whole µs. */
static void round_rows(gpu_row *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double ts = us_double(r[i].ts), end = ts + us_double(r[i].dur);
        if (fabs(ts) > 9e15 || fabs(end) > 9e15)
            continue; /* whole µs would not fit in ns: left as read */
        int64_t t = (int64_t)ceil(ts), e = (int64_t)floor(end);
        r[i].ts = t * 1000;
        r[i].dur = (e - t) * 1000;
    }
}

static bool profiler_step_name(const char *s)
{
    if (strncmp(s, "ProfilerStep#", 13) != 0)
        return false;
    return s[13] >= '0' && s[13] <= '9';
}

static bool device_side_hta(const dfs_run *run, const gpu_row *r)
{
    if (r->stream >= 0 && r->corr >= 0)
        return true;
    const char *name = r->name ? dfs_str_get(run, r->name, NULL) : "";
    return strcmp(name, "Event Sync") == 0 || strcmp(name, "Context Sync") == 0;
}


/* The entries of correlation corr in the sorted h[0..n): [*lo, *hi). */
static void corr_range(const gpu_corr_pos *h, size_t n, int64_t corr, size_t *lo, size_t *hi)
{
    *lo = *hi = gpu_lower_bound(h, n, sizeof *h, corr);
    while (*hi < n && h[*hi].corr == corr)
        (*hi)++;
}

/* One rank's rows and what the preparation found about them. */
typedef struct rank_rows {
    const dfs_gpu_options *o;
    const dfs_run *run;
    const gpu_row *r;
    size_t n;
    bool *device;      /* HTA's device side: a stream and a correlation, or a sync */
    size_t *partner;   /* the launch of a device-side row (the last host row of its correlation) */
    bool *linked;      /* a host row with a device-side row of its correlation */
    bool filter;       /* hta: the last-iteration filter runs */
    int64_t t_last;    /* ...and keeps the host rows before this */
    gpu_corr_pos *kept;    /* ...the correlations of the host rows it keeps, sorted */
    size_t nkept;
} rank_rows;

/* How many times the row stays: once, none (a dropped host row, a device row without a kept
 * launch) or several (a device row whose correlation several kept host rows share). */
static size_t times_kept(const rank_rows *rr, size_t i)
{
    if (!rr->filter)
        return 1;
    if (!rr->device[i])
        return rr->r[i].ts < rr->t_last;
    size_t lo, hi;
    corr_range(rr->kept, rr->nkept, rr->r[i].corr, &lo, &hi);
    return hi - lo;
}

/* Links every device-side row with a correlation to the last host row of that correlation; under
 * hta a correlation without a host row links to the file's first record when that is a row (HTA
 * takes partner index 0 for "none"). */
static bool link_launches(rank_rows *rr, uint64_t first_offset)
{
    gpu_corr_pos *h = malloc((rr->n ? rr->n : 1) * sizeof *h);
    if (!h)
        return false;
    size_t nh = 0, row0 = GPU_NO_ROW;
    for (size_t i = 0; i < rr->n; i++) {
        if (first_offset && rr->r[i].offset + 1 == first_offset)
            row0 = i;
        if (!rr->device[i] && rr->r[i].corr != -1)
            h[nh++] = (gpu_corr_pos){rr->r[i].corr, i};
    }
    qsort(h, nh, sizeof *h, gpu_cmp_corr_pos);
    for (size_t i = 0; i < rr->n; i++) {
        rr->partner[i] = GPU_NO_ROW;
        if (!rr->device[i] || rr->r[i].corr == -1)
            continue;
        size_t lo, hi;
        corr_range(h, nh, rr->r[i].corr, &lo, &hi);
        for (size_t k = lo; k < hi; k++)
            rr->linked[h[k].pos] = true;
        if (hi > lo)
            rr->partner[i] = h[hi - 1].pos; /* HTA: the last pair wins */
        else if (rr->o->semantics == DFS_GPU_HTA && rr->r[i].corr >= 0)
            rr->partner[i] = row0;
    }
    free(h);
    return true;
}

/* HTA's last-iteration filter: the last ProfilerStep#N's start, and the correlations of the host
 * rows before it. */
static bool plan_filter(rank_rows *rr)
{
    int64_t t_last = INT64_MIN, first = INT64_MAX;
    for (size_t i = 0; i < rr->n; i++) {
        if (rr->device[i])
            continue;
        first = rr->r[i].ts < first ? rr->r[i].ts : first;
        if (rr->r[i].name && profiler_step_name(dfs_str_get(rr->run, rr->r[i].name, NULL)) && rr->r[i].ts > t_last)
            t_last = rr->r[i].ts;
    }
    rr->t_last = t_last == INT64_MIN ? first : t_last;
    rr->kept = malloc((rr->n ? rr->n : 1) * sizeof *rr->kept);
    if (!rr->kept)
        return false;
    for (size_t i = 0; i < rr->n; i++)
        if (!rr->device[i] && rr->r[i].ts < rr->t_last)
            rr->kept[rr->nkept++] = (gpu_corr_pos){rr->r[i].corr, i};
    qsort(rr->kept, rr->nkept, sizeof *rr->kept, gpu_cmp_corr_pos);
    return true;
}

typedef DFS_VEC(gpu_work) work_vec;

/* The device work of row i, `times` times, into out. */
static bool add_work(const rank_rows *rr, size_t i, size_t times, work_vec *out)
{
    const gpu_row *r = &rr->r[i];
    dfs_gpu_kind kind = (dfs_gpu_kind)r->kind;
    bool hta = rr->o->semantics == DFS_GPU_HTA;
    if (!(hta ? r->stream != -1 : dfs_gpu_timed_work(kind)))
        return true;
    size_t n = 0;
    const char *name = r->name ? dfs_str_get(rr->run, r->name, &n) : "";
    gpu_work w = {.ts = r->ts, .end = r->ts + r->dur, .name = name, .name_len = n, .stream = r->stream,
                  .queued = dfs_gpu_timed_work(kind), .corr = r->corr, .bw = r->bw, .pid = r->pid, .tid = r->tid};
    w.type = hta ? dfs_gpu_ktype_hta(name, n) : dfs_gpu_ktype_of(kind, name, n);
    size_t p = rr->partner[i];
    if (p != GPU_NO_ROW && times_kept(rr, p) > 0)
        w.has_launch = true, w.launch_ts = rr->r[p].ts;
    /* HTA's rows after its filter: the device side first, then the host side */
    w.order = rr->filter && !rr->device[i] ? rr->n + i : i;
    for (size_t k = 0; k < times; k++)
        if (!dfs_vec_push(out, w))
            return false;
    return true;
}

typedef DFS_VEC(gpu_launch) launch_vec;

/* A kept launch call whose device work is in the trace, for the queue lengths. */
static bool add_launch(const rank_rows *rr, size_t i, size_t times, launch_vec *out)
{
    const gpu_row *r = &rr->r[i];
    if (!times || rr->device[i] || !rr->linked[i] || !r->name)
        return true;
    size_t n;
    const char *name = dfs_str_get(rr->run, r->name, &n);
    if (!dfs_gpu_is_launch(name, n))
        return true;
    for (size_t k = 0; k < times; k++)
        if (!dfs_vec_push(out, ((gpu_launch){r->ts, r->corr})))
            return false;
    return true;
}

typedef DFS_VEC(gpu_host) host_vec;

/* HTA's launch statistics list only these calls (neither cuLaunchKernel nor HIP's). */
static bool hta_listed_launch(const char *name)
{
    static const char *const calls[] = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync",
                                        "cudaMemsetAsync", "runFunction - job_prep_and_submit_for_execution"};
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        if (strcmp(name, calls[i]) == 0)
            return true;
    return false;
}

/* A kept host event with a correlation, for the launch statistics. */
static bool add_host(const rank_rows *rr, size_t i, size_t times, host_vec *out)
{
    const gpu_row *r = &rr->r[i];
    if (!times || r->stream != -1 || r->corr == -1)
        return true;
    size_t n = 0;
    const char *name = r->name ? dfs_str_get(rr->run, r->name, &n) : "";
    bool listed = rr->o->semantics == DFS_GPU_HTA ? hta_listed_launch(name) : dfs_gpu_is_launch(name, n);
    if (rr->o->semantics != DFS_GPU_HTA && !listed)
        return true; /* exact: the launch call itself, not other host events of its correlation */
    for (size_t k = 0; k < times; k++)
        if (!dfs_vec_push(out, ((gpu_host){r->ts, r->dur, r->corr, listed})))
            return false;
    return true;
}

/* A kept GPU user annotation (a range on a device lane), for the annotations section. */
static bool add_annotation(const rank_rows *rr, size_t i, size_t times, work_vec *out)
{
    const gpu_row *r = &rr->r[i];
    if (!times || r->kind != DFS_GPU_ANNOTATION)
        return true;
    size_t n = 0;
    const char *name = r->name ? dfs_str_get(rr->run, r->name, &n) : "";
    gpu_work w = {.ts = r->ts, .end = r->ts + r->dur, .name = name, .name_len = n, .pid = r->pid, .tid = r->tid,
                  .order = rr->filter && !rr->device[i] ? rr->n + i : i};
    for (size_t k = 0; k < times; k++)
        if (!dfs_vec_push(out, w))
            return false;
    return true;
}

/* The device-side row of each host row's correlation (the last in row order), GPU_NO_ROW none. */
static bool host_partners(const rank_rows *rr, size_t *out)
{
    gpu_corr_pos *d = malloc((rr->n ? rr->n : 1) * sizeof *d);
    if (!d)
        return false;
    size_t nd = 0;
    for (size_t i = 0; i < rr->n; i++)
        if (rr->device[i] && rr->r[i].corr != -1)
            d[nd++] = (gpu_corr_pos){rr->r[i].corr, i};
    qsort(d, nd, sizeof *d, gpu_cmp_corr_pos);
    for (size_t i = 0; i < rr->n; i++) {
        out[i] = GPU_NO_ROW;
        if (rr->device[i] || rr->r[i].corr == -1)
            continue;
        size_t lo, hi;
        corr_range(d, nd, rr->r[i].corr, &lo, &hi);
        if (hi > lo)
            out[i] = d[hi - 1].pos;
    }
    free(d);
    return true;
}

/* The critical path and the kernel sequences of the rank: its rows (hta: those the filter keeps,
 * device side first) with their partners. */
static bool trees_and_paths(dfs_gpu *g, const rank_rows *rr, dfs_gpu_rank *out)
{
    size_t n = rr->n;
    gpu_cp_row *cp = malloc((n ? n : 1) * sizeof *cp);
    size_t *pos = malloc((n ? n : 1) * sizeof *pos), *hp = malloc((n ? n : 1) * sizeof *hp);
    bool ok = cp && pos && hp && host_partners(rr, hp);
    size_t m = 0;
    for (int pass = 0; ok && pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            if (pass == 0)
                pos[i] = GPU_NO_ROW;
            if ((rr->filter && rr->device[i] != (pass == 0)) || (!rr->filter && pass == 1) || !times_kept(rr, i))
                continue;
            const gpu_row *r = &rr->r[i];
            pos[i] = m;
            cp[m++] = (gpu_cp_row){.ts = r->ts, .dur = r->dur, .index = r->offset, .stream = r->stream,
                                   .corr = r->corr, .pid = r->pid, .tid = r->tid, .wait_stream = r->wait_stream,
                                   .wait_corr = r->wait_corr, .partner = i,
                                   .name = r->name ? dfs_str_get(rr->run, r->name, NULL) : "",
                                   .cat = r->cat ? dfs_str_get(rr->run, r->cat, NULL) : ""};
        }
    for (size_t k = 0; ok && k < m; k++) {
        size_t i = cp[k].partner, p = rr->device[i] ? rr->partner[i] : hp[i];
        cp[k].partner = p == GPU_NO_ROW ? GPU_NO_ROW : pos[p];
    }
    if (ok && (g->opt.sections & DFS_GPU_SEC_CRITICAL))
        ok = gpu_cpath(&g->opt, cp, m, out, &g->keep);
    if (ok && (g->opt.sections & DFS_GPU_SEC_SEQUENCES))
        ok = gpu_sequences(&g->opt, cp, m, out, &g->keep);
    if (ok && (g->opt.sections & DFS_GPU_SEC_STRAGGLERS))
        ok = gpu_straggler_rows(cp, m, out, &g->keep);
    free(cp), free(pos), free(hp);
    return ok;
}

/* The rank's extent: its earliest start, latest start and latest end (the queue's blocked time is
 * relative to it). */
static void note_extent(dfs_gpu_rank *out, const gpu_row *r, bool first)
{
    if (first) {
        out->first_ts = out->last_ts = r->ts, out->last_end = r->ts + r->dur;
        return;
    }
    out->first_ts = r->ts < out->first_ts ? r->ts : out->first_ts;
    out->last_ts = r->ts > out->last_ts ? r->ts : out->last_ts;
    out->last_end = r->ts + r->dur > out->last_end ? r->ts + r->dur : out->last_end;
}

static bool measure_rank(dfs_gpu *g, const dfs_run *run, gpu_row *r, size_t n, bool filter, uint64_t first,
                         dfs_gpu_rank *out)
{
    rank_rows rr = {.o = &g->opt, .run = run, .r = r, .n = n, .filter = filter};
    rr.device = malloc((n ? n : 1) * sizeof *rr.device);
    rr.partner = malloc((n ? n : 1) * sizeof *rr.partner);
    rr.linked = calloc(n ? n : 1, sizeof *rr.linked);
    bool ok = rr.device && rr.partner && rr.linked;
    for (size_t i = 0; ok && i < n; i++)
        rr.device[i] = device_side_hta(run, &r[i]);
    ok = ok && link_launches(&rr, first) && (!filter || plan_filter(&rr));
    work_vec w = {0};
    launch_vec l = {0};
    host_vec h = {0};
    work_vec a = {0};
    out->filtered = filter;
    for (size_t i = 0; ok && i < n; i++) {
        size_t times = times_kept(&rr, i);
        out->rows += times;
        if (times)
            note_extent(out, &r[i], out->rows == times);
        ok = add_work(&rr, i, times, &w) && add_launch(&rr, i, times, &l) && add_host(&rr, i, times, &h) &&
             add_annotation(&rr, i, times, &a);
    }
    out->annotation_rows = a.n;
    out->device_rows = w.n;
    out->overlap_pct = NAN;
    out->temporal = (dfs_gpu_temporal){.idle_pct = NAN, .compute_pct = NAN, .non_compute_pct = NAN};
    if (ok && w.n)
        ok = gpu_sections(&g->opt, w.v, w.n, out, &g->keep);
    if (ok && w.n && (g->opt.sections & DFS_GPU_SEC_QUEUE))
        ok = gpu_queue(&g->opt, l.v, l.n, w.v, w.n, out, &g->keep);
    if (ok && w.n && (g->opt.sections & DFS_GPU_SEC_MEMBW))
        ok = gpu_membw(&g->opt, w.v, w.n, out, &g->keep);
    if (ok && (g->opt.sections & DFS_GPU_SEC_LAUNCH))
        ok = gpu_launch_stats(&g->opt, h.v, h.n, w.v, w.n, out, &g->keep);
    if (ok && (g->opt.sections & DFS_GPU_SEC_ANNOTATIONS))
        ok = gpu_annotations(&g->opt, a.v, a.n, w.v, w.n, out, &g->keep);
    if (ok && (g->opt.sections & (DFS_GPU_SEC_CRITICAL | DFS_GPU_SEC_SEQUENCES | DFS_GPU_SEC_STRAGGLERS)))
        ok = trees_and_paths(g, &rr, out);
    dfs_vec_free(&a);
    dfs_vec_free(&w);
    dfs_vec_free(&l);
    dfs_vec_free(&h);
    free(rr.device), free(rr.partner), free(rr.linked), free(rr.kept);
    return ok;
}

/* An input that makes an entry of the result: its file, its rows [lo, hi) and the rank it names. */
typedef struct entry {
    int64_t rank;
    uint32_t file;
    size_t lo, hi;
} entry;

/* By rank, then input order. */
static int cmp_entries(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->file > y->file) - (x->file < y->file);
}

/* The entries of the result, by rank then input order, in e (one per file). A file that is not a
 * trace (a README beside the traces) or could not be read (reported) is none. Under exact every
 * other file is one (two files naming one rank, as two profiling windows of one process do, are
 * measured apart and marked shares_rank); under hta, as HTA loads a folder, only the last file
 * (input order) of each rank, the others counted in res->replaced. */
static size_t plan_entries(const dfs_gpu *g, const dfs_run *run, const gpu_row *r, size_t n, entry *e,
                           dfs_gpu_result *res)
{
    size_t ne = 0, nfiles = dfs_run_file_count(run);
    bool hta = g->opt.semantics == DFS_GPU_HTA;
    for (size_t i = 0, f = 0; f < nfiles; f++) {
        size_t j = i;
        while (j < n && r[j].file == f)
            j++;
        const dfs_file_info *info = dfs_run_file(run, f);
        bool trace = !info->unreadable && info->format != DFS_FMT_UNKNOWN && info->format != DFS_FMT_NOT_A_TRACE;
        int64_t rank = file_rank(run, (uint32_t)f, hta);
        if (j > i || (trace && !g->opt.skip_empty_files))
            e[ne++] = (entry){.rank = rank < 0 ? 0 : rank, .file = (uint32_t)f, .lo = i, .hi = j};
        i = j;
    }
    qsort(e, ne, sizeof *e, cmp_entries);
    size_t kept = 0;
    for (size_t k = 0; k < ne; k++) {
        bool later = k + 1 < ne && e[k + 1].rank == e[k].rank;
        if (hta && later)
            res->replaced++;
        else
            e[kept++] = e[k];
    }
    return kept;
}

/* At least two distinct names of profiler steps in the entries' rows: HTA's filter runs. */
static bool several_steps(const dfs_run *run, const gpu_row *r, const entry *e, size_t ne)
{
    dfs_str first = 0;
    for (size_t k = 0; k < ne; k++)
        for (size_t i = e[k].lo; i < e[k].hi; i++) {
            if (!r[i].name || r[i].name == first || !profiler_step_name(dfs_str_get(run, r[i].name, NULL)))
                continue;
            if (first)
                return true;
            first = r[i].name;
        }
    return false;
}

static bool annotated(const gpu_row *r, const entry *e, size_t ne)
{
    for (size_t k = 0; k < ne; k++)
        for (size_t i = e[k].lo; i < e[k].hi; i++)
            if (r[i].kind == DFS_GPU_ANNOTATION)
                return true;
    return false;
}

static bool measure_entries(dfs_gpu *g, const dfs_run *run, gpu_row *r, const entry *e, size_t ne,
                            dfs_gpu_result *res)
{
    bool hta = g->opt.semantics == DFS_GPU_HTA, filter = hta && several_steps(run, r, e, ne);
    res->annotated = annotated(r, e, ne);
    for (size_t k = 0; k < ne; k++) {
        uint32_t f = e[k].file;
        if (hta && f < g->all.fractional.n && g->all.fractional.v[f])
            round_rows(r + e[k].lo, e[k].hi - e[k].lo);
        dfs_gpu_rank *slot = &res->ranks[res->nranks++];
        bool shared = (k > 0 && e[k - 1].rank == e[k].rank) || (k + 1 < ne && e[k + 1].rank == e[k].rank);
        *slot = (dfs_gpu_rank){.rank = e[k].rank, .path = dfs_run_file(run, f)->path, .shares_rank = shared};
        uint64_t first_offset = f < g->all.first.n ? g->all.first.v[f] : 0;
        if (!measure_rank(g, run, r + e[k].lo, e[k].hi - e[k].lo, filter, first_offset, slot))
            return false;
        res->shared += shared;
    }
    return true;
}

const dfs_gpu_result *dfs_gpu_finish(dfs_gpu *g, const dfs_run *run)
{
    if (g->all.oom)
        return NULL;
    gpu_row *r = g->all.rows.v;
    size_t n = g->all.rows.n, nfiles = dfs_run_file_count(run);
    if (n)
        qsort(r, n, sizeof *r, cmp_rows);
    dfs_gpu_result *res = &g->result;
    *res = (dfs_gpu_result){.semantics = g->opt.semantics, .sections = g->opt.sections};
    res->ranks = dfs_arena_alloc(&g->keep, (nfiles ? nfiles : 1) * sizeof *res->ranks);
    entry *e = malloc((nfiles ? nfiles : 1) * sizeof *e);
    bool ok = res->ranks && e && measure_entries(g, run, r, e, plan_entries(g, run, r, n, e, res), res);
    free(e);
    if (!ok)
        return NULL;
    for (size_t k = 0; k < res->nranks; k++)
        res->no_device += res->ranks[k].device_rows == 0;
    if ((g->opt.sections & DFS_GPU_SEC_STRAGGLERS) && !gpu_stragglers(&g->opt, res, &g->keep))
        return NULL;
    return res;
}
