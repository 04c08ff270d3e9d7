/* tasks.c - DASF's task analyses, the annotated task graph and its critical path (tasks.h): the
 * analysis object, the order of the steps dfs_tasks_finish runs (tasks_internal.h names the file of
 * each), the notes for the reader, the text of labels and the derivation of function names.
 *
 * Invariants: dfs_tasks_finish puts the kept events in iteration order before any step reads them,
 * and runs each step once, in the order analyse() gives (each step reads what the earlier ones
 * built); a note is added in the order the steps meet its cause, so the notes' order is fixed. */
#include "analyze/tasks/tasks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/tasks/tasks_internal.h"
#include "util/strtab.h"
#include "util/u64map.h"
#include "util/vec.h"

/* ---- labels --------------------------------------------------------------------------------- */

const char *dfs_tasks_str(const dfs_tasks *t, dfs_str s, size_t *len)
{
    if (s & OWN_BIT)
        return dfs_strtab_get(t->own, s & ~OWN_BIT, len);
    return dfs_str_get(t->run, s, len);
}

static bool label_is_number(const dfs_tasks *t, uint32_t label)
{
    size_t n;
    const char *s = dfs_tasks_str(t, label, &n);
    if (!(label & OWN_BIT) || n == 0)
        return false;
    for (size_t i = s[0] == '-'; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

int tk_cmp_label_text(const void *a, const void *b, void *ctx)
{
    const dfs_tasks *t = ctx;
    size_t la, lb;
    const char *x = dfs_tasks_str(t, *(const uint32_t *)a, &la);
    const char *y = dfs_tasks_str(t, *(const uint32_t *)b, &lb);
    int c = memcmp(x, y, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

void tk_sort_any(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(v, n, size, cmp);
}

void tk_sort_ctx(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
                 void *ctx)
{
    if (n > 1)
        qsort_r(v, n, size, cmp, ctx);
}

/* ---- notes ------------------------------------------------------------------------------------ */

void tk_note(dfs_tasks *t, const char *fmt, ...)
{
    if (t->nnotes >= MAX_NOTES)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *s = strdup(buf);
    if (s)
        t->notes[t->nnotes++] = s;
}

void tk_count_note(dfs_tasks *t, uint64_t count, const char *what)
{
    if (count)
        tk_note(t, "%llu %s", (unsigned long long)count, what);
}

/* ---- iteration order -------------------------------------------------------------------------- */

static int cmp_compute(const void *a, const void *b) { return SEQ_CMP((const tk_compute *)a, (const tk_compute *)b); }
static int cmp_managed(const void *a, const void *b) { return SEQ_CMP((const tk_managed *)a, (const tk_managed *)b); }
static int cmp_sample(const void *a, const void *b) { return SEQ_CMP((const tk_sample *)a, (const tk_sample *)b); }

/* Workers hand over runs already in file order; one worker's reading needs no sort at all. */
static void sort_seq(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    const char *c = v;
    for (size_t i = 1; i < n; i++)
        if (cmp(c + (i - 1) * size, c + i * size) > 0) {
            tk_sort_any(v, n, size, cmp);
            return;
        }
}

/* ---- names ------------------------------------------------------------------------------------ */

static size_t copy_out(char *buf, size_t cap, const char *s, size_t n)
{
    if (cap == 0)
        return 0;
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return n;
}

size_t dfs_tasks_dasf_name(const char *key, size_t len, char *buf, size_t cap)
{
    const char *comma = memchr(key, ',', len);
    size_t head = comma ? (size_t)(comma - key) : len;
    if (head < 3) /* key[2:-1] is empty: one empty piece, dropped */
        return copy_out(buf, cap, "", 0);
    const char *s = key + 2, *dash = memrchr(s, '-', head - 3);
    return copy_out(buf, cap, s, dash ? (size_t)(dash - s) : 0);
}

static bool all_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F')))
            return false;
    return true;
}

/* "-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" at the end of s[0..n). */
static bool ends_with_uuid(const char *s, size_t n)
{
    static const size_t groups[] = {8, 4, 4, 4, 12};
    if (n < 37)
        return false;
    const char *p = s + n - 36;
    if (p[-1] != '-')
        return false;
    for (size_t g = 0; g < 5; g++) {
        if (!all_hex(p, groups[g]) || (g < 4 && p[groups[g]] != '-'))
            return false;
        p += groups[g] + 1;
    }
    return true;
}

size_t dfs_tasks_repaired_name(const char *key, size_t len, char *buf, size_t cap)
{
    const char *s = key;
    size_t n = len;
    if (n && s[0] == '(') { /* a tuple key: its first element, unquoted */
        s++, n--;
        char q = n && (s[0] == '\'' || s[0] == '"') ? s[0] : 0;
        s += q != 0, n -= q != 0;
        const char *end = q ? memchr(s, q, n) : NULL;
        for (size_t i = 0; !q && i < n && !end; i++)
            if (s[i] == ',' || s[i] == ')')
                end = s + i;
        n = end ? (size_t)(end - s) : n;
    }
    if (ends_with_uuid(s, n)) {
        n -= 37;
    } else {
        const char *dash = memrchr(s, '-', n);
        size_t tail = dash ? n - (size_t)(dash + 1 - s) : 0;
        if (dash && dash > s && tail >= 8 && all_hex(dash + 1, tail))
            n = (size_t)(dash - s);
    }
    return copy_out(buf, cap, s, n);
}

/* ---- the analysis object ---------------------------------------------------------------------- */

static const char *const analysis_names[] = {"function_bottleneck", "task_bottleneck",
                                             "task_balance", "critical_path"};

const char *dfs_tasks_analysis_name(unsigned i)
{
    return i < sizeof analysis_names / sizeof *analysis_names ? analysis_names[i] : NULL;
}

unsigned dfs_tasks_analysis_bit(const char *name)
{
    for (unsigned i = 0; i < 4; i++)
        if (strcmp(name, analysis_names[i]) == 0)
            return 1u << i;
    return 0;
}

void dfs_tasks_options_init(dfs_tasks_options *o)
{
    memset(o, 0, sizeof *o);
    o->bucket_s = 1;
}

dfs_tasks *dfs_tasks_new(const dfs_tasks_options *o)
{
    dfs_tasks *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->opt = *o;
    if (!(t->opt.bucket_s > 0) || t->opt.mode == DFS_TASKS_COMPAT)
        t->opt.bucket_s = 1;
    if (!t->opt.analyses)
        t->opt.analyses = t->opt.mode == DFS_TASKS_COMPAT ? DFS_TASKS_FUNCTION | DFS_TASKS_TASK | DFS_TASKS_BALANCE
                                                          : DFS_TASKS_ALL;
    t->own = dfs_strtab_new();
    if (!t->own) {
        free(t);
        return NULL;
    }
    tk_part_init(&t->total);
    dfs_u64map_init(&t->gpu_index);
    tk_consumer_init(t);
    return t;
}

void dfs_tasks_free(dfs_tasks *t)
{
    if (!t)
        return;
    tk_part_free(&t->total);
    free(t->nodes), free(t->node_last), free(t->compute_node), free(t->compute_fn);
    free(t->pred_start), free(t->pred), free(t->succ_start), free(t->succ);
    free(t->path), free(t->path_end);
    dfs_vec_free(&t->workers), dfs_vec_free(&t->fn), dfs_vec_free(&t->tasks);
    free(t->fn_order);
    dfs_u64map_free(&t->gpu_index);
    dfs_vec_free(&t->gpu_stats);
    free(t->bal_cols), free(t->bal), free(t->bal_col_start), free(t->bal_rows);
    free(t->bal_names), free(t->bal_types), free(t->bal_labels);
    dfs_vec_free(&t->names);
    for (size_t i = 0; i < t->nnotes; i++)
        free(t->notes[i]);
    dfs_strtab_free(t->own);
    free(t);
}

dfs_consumer *dfs_tasks_consumer(dfs_tasks *t) { return &t->consumer; }

static void input_notes(dfs_tasks *t)
{
    const tk_counts *n = &t->total.n;
    tk_count_note(t, n->compute_not_complete,
                  "Compute event(s) that are not complete events (phase X) left out");
    tk_count_note(t, n->compute_no_time, "Compute event(s) without a usable timestamp or duration left out");
    tk_count_note(t, n->compute_no_key, "Compute event(s) without a string args.key left out");
    tk_count_note(t, n->compute_no_name,
                  "Compute event(s) without args.name: named from the key as DASF's plugin does");
    tk_count_note(t, n->compute_no_size, "Compute event(s) without a numeric args.size: size 0");
    tk_count_note(t, n->compute_bad_ref, "dependency or dependent entries that are not strings ignored");
    tk_count_note(t, n->managed_bad,
                  "Managed Memory event(s) without a usable timestamp or numeric args.tasks left out");
    tk_count_note(t, n->sample_bad_time, "Resource Usage event(s) without a timestamp left out");
}

static void mode_notes(dfs_tasks *t)
{
    dfs_tasks_result *r = &t->result;
    if (r->legacy) {
        tk_note(t, "no Compute, Managed Memory or Resource Usage events (legacy DASF text format, or not "
                "a DASF trace): per-name duration statistics instead of DASF's analyses");
        return;
    }
    if (r->computes == 0 && (r->analyses & (DFS_TASKS_FUNCTION | DFS_TASKS_TASK)))
        tk_note(t, "no Compute events: the function and task tables are empty (DASF fails here)");
}

static bool host_labels_numeric(const dfs_tasks *t)
{
    for (size_t i = 0; i < t->workers.n; i++)
        if (!label_is_number(t, t->workers.v[i].host))
            return false;
    return t->workers.n > 0;
}

static bool analyse(dfs_tasks *t)
{
    pynum *input = NULL;
    bool ok = tk_build_graph(t, &input) && tk_build_rows(t, input);
    free(input);
    t->host_int = ok && host_labels_numeric(t);
    ok = ok && tk_attribute_samples(t) && tk_build_balance(t) && tk_critical_path(t) && tk_build_names(t) &&
         tk_make_tables(t);
    return ok;
}

const dfs_tasks_result *dfs_tasks_finish(dfs_tasks *t, const dfs_run *run)
{
    part *p = &t->total;
    dfs_tasks_result *r = &t->result;
    t->run = run;
    if (p->failed)
        return NULL;
    sort_seq(p->computes.v, p->computes.n, sizeof *p->computes.v, cmp_compute);
    sort_seq(p->managed.v, p->managed.n, sizeof *p->managed.v, cmp_managed);
    sort_seq(p->samples.v, p->samples.n, sizeof *p->samples.v, cmp_sample);
    r->mode = t->opt.mode;
    r->analyses = t->opt.analyses;
    r->computes = p->computes.n;
    r->managed = p->managed.n;
    r->samples = p->samples.n;
    r->legacy = !r->computes && !r->managed && !r->samples && p->other.n + p->edges.n > 0;
    mode_notes(t);
    input_notes(t);
    if (!analyse(t))
        return NULL;
    r->notes = (const char *const *)t->notes;
    r->nnotes = t->nnotes;
    r->graph = (dfs_tasks_graph){t->nodes, t->nnodes, t->succ_start, t->succ, t->nedges};
    return r;
}
