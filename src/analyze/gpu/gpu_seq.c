/* gpu_seq.c - the frequent CUDA kernel sequences of one rank, as Holistic Trace Analysis 0.6.1's
 * get_frequent_cuda_kernel_sequences finds them: the operators whose name holds a text, at the
 * shallowest depth any such operator has, that launched at least a minimum number of kernels (in
 * their whole call tree); each one's pattern is its name and its kernels' names in start order.
 * Per pattern: how often it ran, the kernels' total time and the operators' total time.
 *
 * The call tree: per host thread (a thread whose rows all have a stream > 0, or whose pid or tid
 * is 0, is a device thread and has none), its host rows nested by time (at one start the longer
 * first; an event that starts when its predecessor ends follows it; one of no duration nests in a
 * longer one starting with it); a launch's kernels (stream > 0) are its children. When exactly one
 * thread holds ProfilerStep#N rows and exactly one other thread autograd:: rows, the top-level
 * operators of the latter that start inside a "## backward ##" row (else a ProfilerStep#N row) of
 * the former move under it. A negative duration stops HTA ("Unexpected case"): the rank then has
 * no sequences under hta.
 *
 * Invariants: patterns come out by count (descending) then pattern (code-point order of the
 * joined text); nothing here prints. Memory: a few words per row, and the distinct patterns' text. */
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu_internal.h"

#define NO GPU_NO_ROW

typedef struct tree {
    size_t *parent, *first, *next, *last;
    int *depth;
    uint64_t *nkern;
    int64_t *kdur;
    bool *in_tree;
} tree;

static void link_child(tree *t, size_t parent, size_t row)
{
    t->parent[row] = parent;
    t->next[row] = NO;
    if (parent == NO)
        return;
    if (t->first[parent] == NO)
        t->first[parent] = row;
    else
        t->next[t->last[parent]] = row;
    t->last[parent] = row;
}

typedef struct thread_row {
    int64_t pid, tid, ts, dur;
    uint64_t index;
    size_t row;
} thread_row;

/* By thread, then start, the longer first, then the earlier row. */
static int cmp_thread_row(const void *a, const void *b)
{
    const thread_row *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Nests one thread's host rows k[0..n) (sorted) with a stack of open rows. */
static void nest_thread(const gpu_cp_row *r, const thread_row *k, size_t n, tree *t, size_t *stack)
{
    size_t top = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t ts = k[i].ts;
        while (top && r[stack[top - 1]].ts + r[stack[top - 1]].dur <= ts)
            top--;
        link_child(t, top ? stack[top - 1] : NO, k[i].row);
        t->in_tree[k[i].row] = true;
        stack[top++] = k[i].row;
    }
}

/* Builds the host trees; false when out of memory; *negative when a host row has a negative
 * duration. */
static bool host_trees(const gpu_cp_row *r, size_t n, tree *t, bool *negative)
{
    thread_row *k = malloc((n ? n : 1) * sizeof *k);
    size_t *stack = malloc((n ? n : 1) * sizeof *stack), m = 0;
    if (!k || !stack) {
        free(k), free(stack);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        k[m++] = (thread_row){r[i].pid, r[i].tid, r[i].ts, r[i].dur, r[i].index, i};
    qsort(k, m, sizeof *k, cmp_thread_row);
    *negative = false;
    for (size_t i = 0; i < m;) {
        size_t j = i;
        bool device = k[i].pid == 0 || k[i].tid == 0, all_streams = true;
        for (; j < m && k[j].pid == k[i].pid && k[j].tid == k[i].tid; j++)
            all_streams = all_streams && r[k[j].row].stream > 0;
        if (!device && !all_streams) {
            size_t h = i;
            for (size_t x = i; x < j; x++) /* its host rows, in order */
                if (r[k[x].row].stream == -1) {
                    *negative = *negative || r[k[x].row].dur < 0;
                    k[h++] = k[x];
                }
            nest_thread(r, k + i, h - i, t, stack);
        }
        i = j;
    }
    free(k), free(stack);
    return true;
}

/* The one thread holding rows whose name has `what` (at the start when `prefix`): false when none
 * or several. */
static bool only_thread(const gpu_cp_row *r, size_t n, const tree *t, const char *what, bool prefix, int64_t *pid,
                        int64_t *tid)
{
    bool found = false;
    for (size_t i = 0; i < n; i++) {
        if (!t->in_tree[i] || !(prefix ? strncmp(r[i].name, what, strlen(what)) == 0 : strstr(r[i].name, what) != NULL))
            continue;
        if (found && (r[i].pid != *pid || r[i].tid != *tid))
            return false;
        found = true, *pid = r[i].pid, *tid = r[i].tid;
    }
    return found;
}

static bool is_step(const char *name)
{
    return strncmp(name, "ProfilerStep#", 13) == 0;
}

typedef struct span {
    int64_t ts, end;
    size_t row;
} span;

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The latest-starting span of s[0..n) (by start) that holds t, looking back over a few: steps and
 * backward passes do not overlap, so the nearest one decides. NO when none. */
static size_t holder(const span *s, size_t n, int64_t t)
{
    size_t lo = t == INT64_MAX ? n : gpu_lower_bound(s, n, sizeof *s, t + 1); /* past the last start <= t */
    for (size_t k = lo, seen = 0; k-- > 0 && seen < 16; seen++)
        if (t < s[k].end)
            return s[k].row;
    return NO;
}

/* The backward pass on its own thread joins the step's tree: each top-level operator of the
 * autograd thread moves under the backward (else step) row of the step thread it starts in. */
static bool fold_autograd(const gpu_cp_row *r, size_t n, tree *t)
{
    int64_t sp, st, ap, at;
    if (!only_thread(r, n, t, "ProfilerStep#", true, &sp, &st) || !only_thread(r, n, t, "autograd::", false, &ap, &at) ||
        (sp == ap && st == at))
        return true;
    bool backward = false;
    for (size_t i = 0; i < n && !backward; i++)
        backward = t->in_tree[i] && r[i].pid == sp && r[i].tid == st && strstr(r[i].name, "## backward ##");
    span *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return false;
    size_t ns = 0;
    for (size_t b = 0; b < n; b++)
        if (t->in_tree[b] && r[b].pid == sp && r[b].tid == st &&
            (backward ? strstr(r[b].name, "## backward ##") != NULL : is_step(r[b].name)))
            s[ns++] = (span){r[b].ts, r[b].ts + r[b].dur, b};
    qsort(s, ns, sizeof *s, cmp_span);
    for (size_t i = 0; i < n; i++) {
        if (!t->in_tree[i] || r[i].pid != ap || r[i].tid != at || t->parent[i] != NO)
            continue;
        size_t b = holder(s, ns, r[i].ts);
        if (b != NO)
            link_child(t, b, i);
    }
    free(s);
    return true;
}

/* Kernels (stream > 0) under the launch that queued them. */
static void add_kernels(const gpu_cp_row *r, size_t n, tree *t)
{
    for (size_t i = 0; i < n; i++) {
        size_t l = r[i].partner;
        if (r[i].stream > 0 && l != NO && t->in_tree[l]) {
            link_child(t, l, i);
            t->in_tree[i] = true;
        }
    }
}

/* Depths from the roots and the kernels under every row (iteratively: trees can be deep). */
static bool measure(const gpu_cp_row *r, size_t n, tree *t)
{
    size_t *order = malloc((n ? n : 1) * sizeof *order), m = 0;
    if (!order)
        return false;
    for (size_t i = 0; i < n; i++)
        if (t->in_tree[i] && t->parent[i] == NO)
            order[m++] = i, t->depth[i] = 0;
    for (size_t q = 0; q < m; q++) /* breadth first: parents before children */
        for (size_t c = t->first[order[q]]; c != NO; c = t->next[c])
            order[m++] = c, t->depth[c] = t->depth[order[q]] + 1;
    for (size_t q = m; q-- > 0;) { /* children before parents */
        size_t i = order[q];
        if (r[i].stream > 0)
            t->nkern[i] = 1, t->kdur[i] = r[i].dur;
        if (t->parent[i] != NO)
            t->nkern[t->parent[i]] += t->nkern[i], t->kdur[t->parent[i]] += t->kdur[i];
    }
    free(order);
    return true;
}

/* ---- patterns ---- */

typedef struct root {
    size_t row;
    const char **names; /* the operator's name, then its kernels' by start */
    size_t nnames;
} root;

typedef struct kern {
    int64_t ts;
    uint64_t index;
    const char *name;
} kern;

static int cmp_kern(const void *a, const void *b)
{
    const kern *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The next character of the names joined by '|', -1 at the end. */
static int next_char(const root *x, size_t *k, size_t *p)
{
    while (*k < x->nnames) {
        const char *s = x->names[*k];
        if (s[*p])
            return (unsigned char)s[(*p)++];
        (*k)++, *p = 0;
        if (*k < x->nnames)
            return '|';
    }
    return -1;
}

/* Code-point order of the joined patterns. */
static int cmp_pattern(const root *x, const root *y)
{
    size_t kx = 0, px = 0, ky = 0, py = 0;
    for (;;) {
        int a = next_char(x, &kx, &px), b = next_char(y, &ky, &py);
        if (a != b)
            return a < b ? -1 : 1;
        if (a < 0)
            return 0;
    }
}

static int cmp_root(const void *a, const void *b) { return cmp_pattern(a, b); }

/* The kernels under row i, by start, after the operator's name. */
static bool pattern_of(const gpu_cp_row *r, const tree *t, size_t i, root *out, size_t *stack)
{
    kern *k = malloc((t->nkern[i] + 1) * sizeof *k);
    out->names = malloc((t->nkern[i] + 1) * sizeof *out->names);
    if (!k || !out->names) {
        free(k);
        return false;
    }
    size_t nk = 0, top = 0;
    for (size_t c = t->first[i]; c != NO; c = t->next[c])
        stack[top++] = c;
    while (top) {
        size_t x = stack[--top];
        if (r[x].stream > 0 && nk < t->nkern[i])
            k[nk++] = (kern){r[x].ts, r[x].index, r[x].name};
        for (size_t c = t->first[x]; c != NO; c = t->next[c])
            stack[top++] = c;
    }
    qsort(k, nk, sizeof *k, cmp_kern);
    out->row = i;
    out->names[0] = r[i].name;
    for (size_t j = 0; j < nk; j++)
        out->names[1 + j] = k[j].name;
    out->nnames = 1 + nk;
    free(k);
    return true;
}

static char *join(dfs_arena *keep, const root *x)
{
    size_t len = 0;
    for (size_t k = 0; k < x->nnames; k++)
        len += strlen(x->names[k]) + 1;
    char *s = dfs_arena_alloc(keep, len ? len : 1), *p = s;
    for (size_t k = 0; s && k < x->nnames; k++) {
        size_t l = strlen(x->names[k]);
        memcpy(p, x->names[k], l);
        p += l;
        *p++ = k + 1 < x->nnames ? '|' : '\0';
    }
    return s;
}

static int cmp_seq(const void *a, const void *b)
{
    const dfs_gpu_seq_row *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->pattern, y->pattern);
}

/* Groups the roots by pattern into the rank's rows. */
static bool group(const gpu_cp_row *r, const tree *t, root *roots, size_t nr, dfs_gpu_rank *out, dfs_arena *keep)
{
    qsort(roots, nr, sizeof *roots, cmp_root);
    out->seqs = dfs_arena_alloc(keep, (nr ? nr : 1) * sizeof *out->seqs);
    if (!out->seqs)
        return false;
    for (size_t i = 0; i < nr;) {
        size_t j = i;
        dfs_gpu_seq_row s = {.kernels = roots[i].nnames - 1};
        for (; j < nr && cmp_pattern(&roots[i], &roots[j]) == 0; j++)
            s.count++, s.cpu_ns += r[roots[j].row].dur, s.gpu_ns += t->kdur[roots[j].row];
        s.pattern = join(keep, &roots[i]);
        if (!s.pattern)
            return false;
        out->seqs[out->nseqs++] = s;
        i = j;
    }
    return true;
}

static void free_tree(tree *t)
{
    free(t->parent), free(t->first), free(t->next), free(t->last), free(t->depth), free(t->nkern), free(t->kdur);
    free(t->in_tree);
}

bool gpu_sequences(const dfs_gpu_options *o, const gpu_cp_row *r, size_t n, dfs_gpu_rank *out, dfs_arena *keep)
{
    size_t cells = n ? n : 1;
    tree t = {.parent = malloc(cells * sizeof(size_t)), .first = malloc(cells * sizeof(size_t)),
              .next = malloc(cells * sizeof(size_t)), .last = malloc(cells * sizeof(size_t)),
              .depth = calloc(cells, sizeof(int)), .nkern = calloc(cells, sizeof(uint64_t)),
              .kdur = calloc(cells, sizeof(int64_t)), .in_tree = calloc(cells, sizeof(bool))};
    root *roots = malloc(cells * sizeof *roots);
    size_t *stack = malloc(cells * sizeof *stack), nr = 0;
    bool negative = false, ok = t.parent && t.first && t.next && t.last && t.depth && t.nkern && t.kdur &&
                                t.in_tree && roots && stack;
    for (size_t i = 0; ok && i < n; i++)
        t.parent[i] = t.first[i] = t.next[i] = t.last[i] = NO;
    ok = ok && host_trees(r, n, &t, &negative);
    out->seq_failed = negative && o->semantics == DFS_GPU_HTA;
    if (ok && !out->seq_failed) {
        ok = fold_autograd(r, n, &t);
        add_kernels(r, n, &t);
        ok = ok && measure(r, n, &t);
    }
    const char *op = o->seq_operator ? o->seq_operator : "";
    int dmin = -1;
    for (size_t i = 0; ok && !out->seq_failed && i < n; i++)
        if (t.in_tree[i] && r[i].stream == -1 && strstr(r[i].name, op) && (dmin < 0 || t.depth[i] < dmin))
            dmin = t.depth[i];
    for (size_t i = 0; ok && !out->seq_failed && i < n; i++) {
        if (!t.in_tree[i] || r[i].stream != -1 || t.depth[i] != dmin || !strstr(r[i].name, op) ||
            t.nkern[i] < o->seq_min_len)
            continue;
        ok = pattern_of(r, &t, i, &roots[nr], stack);
        if (ok)
            nr++;
    }
    ok = ok && group(r, &t, roots, nr, out, keep);
    if (ok)
        qsort(out->seqs, out->nseqs, sizeof *out->seqs, cmp_seq);
    for (size_t i = 0; i < nr; i++)
        free(roots[i].names);
    free(roots), free(stack);
    free_tree(&t);
    return ok;
}
