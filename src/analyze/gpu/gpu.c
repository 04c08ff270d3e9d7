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
 * Invariants: a file is one rank; of two files of one rank the later (input order) counts; ranks
 * come out ascending. Nothing here prints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu_internal.h"
#include "util/vec.h"

typedef DFS_VEC(gpu_row) row_vec;
typedef DFS_VEC(bool) bool_vec;

typedef struct worker {
    row_vec rows;
    bool_vec fractional; /* per file: a timestamp with a fraction of a µs (HTA rounds the file) */
    bool oom;
} worker;

struct dfs_gpu {
    dfs_gpu_options opt;
    dfs_consumer cons;
    worker all;
    dfs_arena keep;
    dfs_gpu_result result;
};

void dfs_gpu_options_init(dfs_gpu_options *o)
{
    *o = (dfs_gpu_options){.semantics = DFS_GPU_EXACT, .sections = DFS_GPU_SEC_ALL, .top_names = 10,
                           .name_share = 0.8};
}

static const char *const section_names[] = {"temporal", "kernels", "overlap"};

const char *dfs_gpu_section_name(unsigned section)
{
    for (unsigned i = 0; i < 3; i++)
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
        for (unsigned i = 0; i < 3; i++)
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
    return calloc(1, sizeof(worker));
}

static bool is_trace_cat(const char *s, size_t n) { return n == 5 && memcmp(s, "Trace", 5) == 0; }

static void note_fraction(worker *w, uint32_t file)
{
    if (file >= w->fractional.n && !dfs_vec_extend_zeroed(&w->fractional, (size_t)file + 1)) {
        w->oom = true;
        return;
    }
    w->fractional.v[file] = true;
}

static void on_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    worker *w = state;
    for (size_t i = 0; i < b->count && !w->oom; i++) {
        const dfs_event *ev = &b->events[i];
        if (!(ev->flags & DFS_EF_HAS_TS) || ev->ts % 1000 != 0)
            note_fraction(w, b->file);
        if (!(ev->flags & DFS_EF_HAS_DUR) || !(ev->flags & DFS_EF_HAS_TS) || !ev->cat)
            continue;
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
                     .kind = (uint8_t)g.kind};
        if (!dfs_vec_push(&w->rows, r))
            w->oom = true;
    }
}

static void worker_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    dfs_gpu *g = user;
    worker *w = state;
    g->all.oom |= w->oom || !dfs_vec_append(&g->all.rows, &w->rows);
    if (w->fractional.n > g->all.fractional.n && !dfs_vec_extend_zeroed(&g->all.fractional, w->fractional.n))
        g->all.oom = true;
    for (size_t i = 0; i < w->fractional.n && !g->all.oom; i++)
        g->all.fractional.v[i] |= w->fractional.v[i];
    dfs_vec_free(&w->rows);
    dfs_vec_free(&w->fractional);
    free(w);
}

dfs_gpu *dfs_gpu_new(const dfs_gpu_options *o)
{
    dfs_gpu *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->opt = *o;
    dfs_arena_init(&g->keep, 1 << 16);
    g->cons = (dfs_consumer){.user = g,
                             .want = {.keys = DFS_KEYBIT(DFS_KEY_STREAM) | DFS_KEYBIT(DFS_KEY_CORRELATION)},
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
    dfs_arena_free(&g->keep);
    free(g);
}

dfs_consumer *dfs_gpu_consumer(dfs_gpu *g) { return &g->cons; }

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

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* How many of the sorted values equal v. */
static size_t count_of(const int64_t *v, size_t n, int64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t k = lo;
    while (k < n && v[k] == key)
        k++;
    return k - lo;
}

typedef DFS_VEC(gpu_work) work_vec;

static bool add_work(const dfs_gpu_options *o, const dfs_run *run, const gpu_row *r, size_t times, work_vec *out)
{
    bool device = o->semantics == DFS_GPU_HTA ? r->stream != -1 : dfs_gpu_timed_work((dfs_gpu_kind)r->kind);
    if (!device)
        return true;
    size_t n = 0;
    const char *name = r->name ? dfs_str_get(run, r->name, &n) : "";
    gpu_work w = {.ts = r->ts, .end = r->ts + r->dur, .name = name, .name_len = n};
    w.type = o->semantics == DFS_GPU_HTA ? dfs_gpu_ktype_hta(name, n)
                                         : dfs_gpu_ktype_of((dfs_gpu_kind)r->kind, name, n);
    for (size_t i = 0; i < times; i++)
        if (!dfs_vec_push(out, w))
            return false;
    return true;
}

/* HTA's last-iteration filter of one rank's rows into its device work; *kept counts the rows. */
static bool filter_last_step(const dfs_gpu_options *o, const dfs_run *run, const gpu_row *r, size_t n,
                             work_vec *out, uint64_t *kept)
{
    int64_t t_last = INT64_MIN, first = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        if (device_side_hta(run, &r[i]))
            continue;
        first = r[i].ts < first ? r[i].ts : first;
        if (r[i].name && profiler_step_name(dfs_str_get(run, r[i].name, NULL)) && r[i].ts > t_last)
            t_last = r[i].ts;
    }
    if (t_last == INT64_MIN)
        t_last = first;
    int64_t *corrs = malloc((n ? n : 1) * sizeof *corrs);
    if (!corrs)
        return false;
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        if (!device_side_hta(run, &r[i]) && r[i].ts < t_last)
            corrs[nc++] = r[i].corr;
    qsort(corrs, nc, sizeof *corrs, cmp_i64);
    bool ok = true;
    *kept = nc;
    for (size_t i = 0; ok && i < n; i++) {
        if (!device_side_hta(run, &r[i])) {
            ok = r[i].ts >= t_last || add_work(o, run, &r[i], 1, out);
            continue;
        }
        size_t times = count_of(corrs, nc, r[i].corr);
        *kept += times;
        ok = add_work(o, run, &r[i], times, out);
    }
    free(corrs);
    return ok;
}

/* At least two distinct names of profiler steps in all ranks: HTA's filter runs. */
static bool several_steps(const dfs_run *run, const gpu_row *r, size_t n)
{
    dfs_str first = 0;
    for (size_t i = 0; i < n; i++) {
        if (!r[i].name || r[i].name == first || !profiler_step_name(dfs_str_get(run, r[i].name, NULL)))
            continue;
        if (first)
            return true;
        first = r[i].name;
    }
    return false;
}

static bool measure_rank(dfs_gpu *g, const dfs_run *run, gpu_row *r, size_t n, bool filter, dfs_gpu_rank *out)
{
    work_vec w = {0};
    bool ok = true;
    const dfs_gpu_options *o = &g->opt;
    if (o->semantics == DFS_GPU_HTA && filter) {
        out->filtered = true;
        ok = filter_last_step(o, run, r, n, &w, &out->rows);
    } else {
        out->rows = n;
        for (size_t i = 0; ok && i < n; i++)
            ok = add_work(o, run, &r[i], 1, &w);
    }
    out->device_rows = w.n;
    out->overlap_pct = NAN;
    out->temporal = (dfs_gpu_temporal){.idle_pct = NAN, .compute_pct = NAN, .non_compute_pct = NAN};
    if (ok && w.n)
        ok = gpu_sections(o, w.v, w.n, out, &g->keep);
    dfs_vec_free(&w);
    return ok;
}

static int cmp_ranks(const void *a, const void *b)
{
    const dfs_gpu_rank *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

const dfs_gpu_result *dfs_gpu_finish(dfs_gpu *g, const dfs_run *run)
{
    if (g->all.oom)
        return NULL;
    gpu_row *r = g->all.rows.v;
    size_t n = g->all.rows.n, nfiles = dfs_run_file_count(run);
    qsort(r, n, sizeof *r, cmp_rows);
    dfs_gpu_result *res = &g->result;
    *res = (dfs_gpu_result){.semantics = g->opt.semantics, .sections = g->opt.sections};
    res->ranks = dfs_arena_alloc(&g->keep, (nfiles ? nfiles : 1) * sizeof *res->ranks);
    if (!res->ranks)
        return NULL;
    bool hta = g->opt.semantics == DFS_GPU_HTA, filter = hta && several_steps(run, r, n);
    for (size_t i = 0, f = 0; f < nfiles; f++) {
        size_t j = i;
        while (j < n && r[j].file == f)
            j++;
        if (hta && f < g->all.fractional.n && g->all.fractional.v[f])
            round_rows(r + i, j - i);
        int64_t rank = file_rank(run, (uint32_t)f, hta);
        rank = rank < 0 ? 0 : rank;
        dfs_gpu_rank *slot = NULL;
        for (size_t k = 0; k < res->nranks; k++)
            if (res->ranks[k].rank == rank)
                slot = &res->ranks[k], res->replaced++;
        if (!slot)
            slot = &res->ranks[res->nranks++];
        *slot = (dfs_gpu_rank){.rank = rank, .path = dfs_run_file(run, f)->path};
        if (!measure_rank(g, run, r + i, j - i, filter, slot))
            return NULL;
        i = j;
    }
    qsort(res->ranks, res->nranks, sizeof *res->ranks, cmp_ranks);
    for (size_t k = 0; k < res->nranks; k++)
        res->no_device += res->ranks[k].device_rows == 0;
    return res;
}
