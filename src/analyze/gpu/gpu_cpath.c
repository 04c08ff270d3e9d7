/* gpu_cpath.c - the critical path of one rank, as Holistic Trace Analysis 0.6.1 computes it:
 * the window (the instances of an annotation), the events it holds, a graph of their starts and
 * ends (host call stacks and the runtime's lock here, the device side in gpu_cpath_gpu.c), its
 * longest path as networkx's dag_longest_path finds it, and the path's time by what bounds it.
 *
 * The window holds the host events (no stream) that start inside it and last, the device events
 * they launched, and every "Stream Wait Event". Its events are the operators, runtime and driver
 * calls and the device events with a correlation; each has a start and an end node. Host edges:
 * within a thread's call stack each event's start and end are chained in depth-first order (an
 * operator edge spans time, a top-level gap is a zero-weight dependency; a blocking call's own
 * time weighs 0); calls that take the runtime's lock are serialised. Edge weights below zero
 * count as 0 for the path and as they are in its breakdown (HTA's). Under exact the same graph
 * at ns precision on every event as read, the pre-2022 category names (Operator, Runtime) included.
 *
 * Invariants: the graph's orders are those its header states; a failure leaves a status and no
 * path; nothing here prints. Memory: about 500 bytes per event of the window, and windows with
 * more than DFS_GPU_CP_MAX_EVENTS events are skipped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu_cpath_graph.h"

const char *dfs_gpu_cp_class_name(dfs_gpu_cp_class c)
{
    static const char *const names[DFS_GPU_CP_CLASSES] = {
        "", "cpu_bound", "data_loading", "gpu_communication_bound", "gpu_compute_bound",
        "gpu_kernel_kernel_overhead", "gpu_kernel_launch_overhead"};
    return (unsigned)c < DFS_GPU_CP_CLASSES ? names[c] : "?";
}

const char *dfs_gpu_cp_status_text(dfs_gpu_cp_status s)
{
    switch (s) {
    case DFS_GPU_CP_OK: return "ok";
    case DFS_GPU_CP_NO_ANNOTATION: return "no event's name holds the annotation";
    case DFS_GPU_CP_NO_INSTANCE: return "fewer instances of the annotation than asked";
    case DFS_GPU_CP_TOO_BIG: return "too many events in the window (skipped)";
    case DFS_GPU_CP_EMPTY: return "the window holds no dependency";
    case DFS_GPU_CP_NO_LAUNCH_NODE: return "a kernel's launch call is no event of the window (pre-2022 traces name it Runtime)";
    case DFS_GPU_CP_SYNC_SAME_STREAM: return "a synchronisation between kernels of one stream";
    case DFS_GPU_CP_CYCLE: return "the dependencies form a cycle";
    case DFS_GPU_CP_ROOT_EDGE: return "an operator edge of the path belongs to no event";
    case DFS_GPU_CP_DATA_LOAD_BOUND: return "the --cp-data-load search reached its bound on a name";
    }
    return "?";
}

/* ---- the graph ---- */

static size_t hash_uv(size_t u, size_t v)
{
    uint64_t x = (uint64_t)u * 0x9E3779B97F4A7C15u ^ ((uint64_t)v + 0x632BE59BD9B4E019u) * 0xC2B2AE3D27D4EB4Fu;
    return (size_t)(x ^ (x >> 31));
}

static size_t find_edge(const cp_graph *g, size_t u, size_t v)
{
    if (!g->nslot)
        return GPU_NO_ROW;
    for (size_t h = hash_uv(u, v) & (g->nslot - 1);; h = (h + 1) & (g->nslot - 1)) {
        size_t k = g->slot[h];
        if (!k)
            return GPU_NO_ROW;
        if (g->e[k - 1].u == u && g->e[k - 1].v == v)
            return k - 1;
    }
}

static void put_slot(cp_graph *g, size_t k)
{
    size_t h = hash_uv(g->e[k].u, g->e[k].v) & (g->nslot - 1);
    while (g->slot[h])
        h = (h + 1) & (g->nslot - 1);
    g->slot[h] = k + 1;
}

static bool grow(cp_graph *g)
{
    size_t cap = g->cap ? g->cap * 2 : 1024;
    cp_edge *e = realloc(g->e, cap * sizeof *e);
    if (!e)
        return false;
    g->e = e;
    size_t *slot = calloc(cap * 2, sizeof *slot);
    if (!slot)
        return false;
    free(g->slot);
    g->slot = slot, g->nslot = cap * 2, g->cap = cap;
    for (size_t k = 0; k < g->ne; k++)
        put_slot(g, k);
    return true;
}

static void appear(cp_graph *g, size_t node)
{
    if (g->out_head[node] == GPU_NO_ROW && g->in_head[node] == GPU_NO_ROW)
        g->order[g->norder++] = node;
}

/* HTA's attribution: a kernel-kernel gap to the earlier kernel, an edge from a start to its
 * event, an edge to an end to that event, an edge from an end to a start to the parent. */
static void attribute(cp_graph *g, cp_edge *e, size_t parent)
{
    if (e->type != CP_OPERATOR && e->type != CP_KERNEL_KERNEL)
        return;
    e->attributed = true;
    e->event = e->type == CP_KERNEL_KERNEL || g->is_start[e->u] ? g->row[e->u]
               : !g->is_start[e->v]                             ? g->row[e->v]
                                                                : parent;
}

/* a + b, held at the int64 limits (hostile timestamps far apart must not overflow). */
static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t s;
    return __builtin_add_overflow(a, b, &s) ? (b > 0 ? INT64_MAX : INT64_MIN) : s;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
    int64_t s;
    return __builtin_sub_overflow(a, b, &s) ? (b < 0 ? INT64_MAX : INT64_MIN) : s;
}

bool cp_add(cp_graph *g, size_t u, size_t v, cp_type t, bool zero, size_t parent)
{
    int64_t w = t == CP_DEPENDENCY || t == CP_SYNC || zero ? 0 : sat_sub(g->ts[v], g->ts[u]);
    size_t k = find_edge(g, u, v);
    if (k != GPU_NO_ROW) {
        g->e[k].type = t, g->e[k].weight = w;
        attribute(g, &g->e[k], parent);
        return true;
    }
    if (g->ne == g->cap && !grow(g))
        return false;
    appear(g, u);
    appear(g, v);
    k = g->ne++;
    g->e[k] = (cp_edge){.u = u, .v = v, .type = t, .weight = w, .event = GPU_NO_ROW, .next_out = GPU_NO_ROW,
                        .next_in = GPU_NO_ROW};
    attribute(g, &g->e[k], parent);
    if (g->out_head[u] == GPU_NO_ROW)
        g->out_head[u] = k;
    else
        g->e[g->out_tail[u]].next_out = k;
    g->out_tail[u] = k;
    if (g->in_head[v] == GPU_NO_ROW)
        g->in_head[v] = k;
    else
        g->e[g->in_tail[v]].next_in = k;
    g->in_tail[v] = k;
    put_slot(g, k);
    return true;
}

/* ---- the window and its events ---- */

static bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* The window's bounds: the instances asked of the rows whose name holds the annotation (in row
 * order), or the whole rank for an empty annotation. */
static dfs_gpu_cp_status window(const dfs_gpu_options *o, const gpu_cp_row *r, size_t n, dfs_gpu_cpath *cp)
{
    const char *a = o->cp_annotation ? o->cp_annotation : "";
    cp->start_ns = INT64_MAX, cp->end_ns = INT64_MIN;
    size_t seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (*a && !strstr(r[i].name, a))
            continue;
        size_t k = seen++;
        if (*a && (k < o->cp_first || k > o->cp_last))
            continue;
        if (!cp->window)
            cp->window = *a ? r[i].name : "";
        cp->start_ns = r[i].ts < cp->start_ns ? r[i].ts : cp->start_ns;
        cp->end_ns = r[i].ts + r[i].dur > cp->end_ns ? r[i].ts + r[i].dur : cp->end_ns;
    }
    if (!seen)
        return DFS_GPU_CP_NO_ANNOTATION;
    return cp->window ? DFS_GPU_CP_OK : DFS_GPU_CP_NO_INSTANCE;
}

typedef struct by_index {
    uint64_t index;
    size_t row;
} by_index;

static int cmp_index(const void *a, const void *b)
{
    uint64_t x = ((const by_index *)a)->index, y = ((const by_index *)b)->index;
    return (x > y) - (x < y);
}

/* The rows of the window, by ascending index: host events starting in it and lasting, the device
 * events they launched, every Stream Wait Event. NULL when out of memory. */
static size_t *clip(const gpu_cp_row *r, size_t n, int64_t start, int64_t end, size_t *m)
{
    bool *keep = calloc(n ? n : 1, sizeof *keep);
    size_t *c = malloc((n ? n : 1) * sizeof *c);
    by_index *b = malloc((n ? n : 1) * sizeof *b);
    if (!keep || !c || !b) {
        free(keep), free(c), free(b);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (r[i].stream != -1 && streq(r[i].name, "Stream Wait Event"))
            keep[i] = true;
        if (r[i].stream != -1 || r[i].ts < start || r[i].ts > end || r[i].dur <= 0)
            continue;
        keep[i] = true;
        if (r[i].partner != GPU_NO_ROW && r[r[i].partner].stream != -1)
            keep[r[i].partner] = true;
    }
    *m = 0;
    for (size_t i = 0; i < n; i++)
        if (keep[i])
            b[(*m)++] = (by_index){r[i].index, i};
    qsort(b, *m, sizeof *b, cmp_index);
    for (size_t i = 0; i < *m; i++)
        c[i] = b[i].row;
    free(keep), free(b);
    return c;
}

/* An operator, a runtime or driver call (under exact also in the pre-2022 spelling, Operator and
 * Runtime, which HTA does not know), or device work with a correlation. */
static bool is_event(const cp_graph *g, const gpu_cp_row *r)
{
    return streq(r->cat, "cpu_op") || streq(r->cat, "cuda_runtime") || streq(r->cat, "cuda_driver") ||
           (!g->hta && (streq(r->cat, "Operator") || streq(r->cat, "Runtime"))) ||
           (r->stream != -1 && (r->corr >= 0 || r->partner != GPU_NO_ROW));
}

typedef struct node_key {
    int64_t ts;
    uint64_t index;
    bool start;
    size_t row;
} node_key;

static int cmp_node(const void *a, const void *b)
{
    const node_key *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return (int)y->start - (int)x->start;
}

/* Two nodes per event, numbered by (time, index), a start before the end of one event. */
static bool make_nodes(cp_graph *g)
{
    size_t ev = 0;
    for (size_t k = 0; k < g->nclip; k++)
        ev += is_event(g, &g->r[g->clip[k]]);
    if (ev > DFS_GPU_CP_MAX_EVENTS) {
        g->status = DFS_GPU_CP_TOO_BIG;
        return true;
    }
    size_t nn = 2 * ev, cells = nn ? nn : 1;
    node_key *key = malloc(cells * sizeof *key);
    g->ts = malloc(cells * sizeof *g->ts), g->row = malloc(cells * sizeof *g->row);
    g->is_start = malloc(cells * sizeof *g->is_start);
    g->start_of = malloc((g->nrows ? g->nrows : 1) * sizeof *g->start_of);
    g->end_of = malloc((g->nrows ? g->nrows : 1) * sizeof *g->end_of);
    g->out_head = malloc(cells * sizeof(size_t)), g->out_tail = malloc(cells * sizeof(size_t));
    g->in_head = malloc(cells * sizeof(size_t)), g->in_tail = malloc(cells * sizeof(size_t));
    g->order = malloc(cells * sizeof(size_t));
    if (!key || !g->ts || !g->row || !g->is_start || !g->start_of || !g->end_of || !g->out_head || !g->out_tail ||
        !g->in_head || !g->in_tail || !g->order) {
        free(key);
        return false;
    }
    size_t m = 0;
    for (size_t k = 0; k < g->nclip; k++) {
        const gpu_cp_row *r = &g->r[g->clip[k]];
        if (is_event(g, r)) {
            key[m++] = (node_key){r->ts, r->index, true, g->clip[k]};
            key[m++] = (node_key){r->ts + r->dur, r->index, false, g->clip[k]};
        }
    }
    qsort(key, m, sizeof *key, cmp_node);
    for (size_t i = 0; i < g->nrows; i++)
        g->start_of[i] = g->end_of[i] = GPU_NO_ROW;
    for (size_t i = 0; i < m; i++) {
        g->ts[i] = key[i].ts, g->row[i] = key[i].row, g->is_start[i] = key[i].start;
        *(key[i].start ? &g->start_of[key[i].row] : &g->end_of[key[i].row]) = i;
        g->out_head[i] = g->in_head[i] = GPU_NO_ROW;
    }
    g->nnodes = m;
    free(key);
    return true;
}

/* ---- host edges ---- */

static bool takes_lock(const char *name)
{
    return streq(name, "cudaHostAlloc") || streq(name, "cudaLaunchKernel") || streq(name, "cudaMemcpyAsync");
}

static bool blocking(const char *name)
{
    static const char *const calls[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery",
                                        "cudaEventSynchronize",  "cudaMemcpy",            "cudaMemcpyAsync"};
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        if (streq(name, calls[i]))
            return true;
    return false;
}

static bool lock_node(const cp_graph *g, size_t node) { return takes_lock(g->r[g->row[node]].name); }

/* Two nodes the lock rule already chained (the call stacks leave them alone). */
static bool lock_shared(const cp_graph *g, size_t a, size_t b)
{
    return lock_node(g, a) && lock_node(g, b) && !(!g->is_start[a] && g->is_start[b]);
}

/* Calls taking the runtime's lock run one at a time: in node order, each end follows every start
 * pending and the end before it. */
static bool lock_edges(cp_graph *g)
{
    size_t *p = malloc((g->nnodes ? g->nnodes : 1) * sizeof *p), np = 0, prev = GPU_NO_ROW;
    bool ok = p != NULL;
    for (size_t k = 0; ok && k < g->nnodes; k++) {
        if (!lock_node(g, k))
            continue;
        if (g->is_start[k]) {
            p[np++] = k;
        } else {
            while (ok && np) {
                size_t s = p[--np];
                ok = cp_add(g, s, k, s == g->start_of[g->row[k]] ? CP_OPERATOR : CP_DEPENDENCY, false, GPU_NO_ROW);
            }
            if (ok && prev != GPU_NO_ROW && !g->is_start[prev])
                ok = cp_add(g, prev, k, CP_DEPENDENCY, false, GPU_NO_ROW);
        }
        prev = k;
    }
    free(p);
    return ok;
}

typedef struct thread_key {
    int64_t pid, tid;
    uint64_t index;
    size_t row;
} thread_key;

static int cmp_thread(const void *a, const void *b)
{
    const thread_key *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* HTA folds the backward thread into the forward one when exactly one thread has operators
 * named "forward" and exactly one other "autograd": the tid to fold and the tid it joins. */
static bool autograd_fold(const cp_graph *g, int64_t *from, int64_t *to)
{
    int64_t f[2] = {0}, b[2] = {0};
    size_t nf = 0, nb = 0;
    for (size_t k = 0; k < g->nclip; k++) {
        const gpu_cp_row *r = &g->r[g->clip[k]];
        if (!streq(r->cat, "cpu_op") && !streq(r->cat, "user_annotation"))
            continue;
        if (strstr(r->name, "forward") && !(nf && f[0] == r->tid) && !(nf > 1 && f[1] == r->tid) && nf < 2)
            f[nf++] = r->tid;
        if (strstr(r->name, "autograd") && !(nb && b[0] == r->tid) && !(nb > 1 && b[1] == r->tid) && nb < 2)
            b[nb++] = r->tid;
    }
    *from = b[0], *to = f[0];
    return nf == 1 && nb == 1 && f[0] != b[0];
}

typedef struct span_pt {
    int64_t t, dur;
    uint64_t index;
    bool start;
    size_t row;
} span_pt;

/* A thread's stack in time: at one time ends before starts, longer starts first (then the earlier
 * row), shorter ends first (then the later row). */
static int cmp_span(const void *a, const void *b)
{
    const span_pt *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->start != y->start)
        return x->start ? 1 : -1;
    if (x->dur != y->dur)
        return x->start ? (x->dur > y->dur ? -1 : 1) : (x->dur < y->dur ? -1 : 1);
    if (x->start)
        return (x->index > y->index) - (x->index < y->index);
    return (x->index < y->index) - (x->index > y->index);
}

typedef struct tree {
    size_t *parent, *first, *next, *last; /* per row: parent, first child, next sibling, last child */
    size_t root_first, root_last;
} tree;

static void tree_link(tree *t, size_t parent, size_t row)
{
    t->parent[row] = parent;
    t->next[row] = GPU_NO_ROW;
    size_t *first = parent == GPU_NO_ROW ? &t->root_first : &t->first[parent];
    size_t *last = parent == GPU_NO_ROW ? &t->root_last : &t->last[parent];
    if (*first == GPU_NO_ROW)
        *first = row;
    else
        t->next[*last] = row;
    *last = row;
}

/* The call tree of the rows rows[0..n) of one thread. */
static bool build_tree(const cp_graph *g, const size_t *rows, size_t n, tree *t, size_t *stack)
{
    span_pt *pt = malloc((n ? 2 * n : 1) * sizeof *pt);
    if (!pt)
        return false;
    for (size_t k = 0; k < n; k++) {
        const gpu_cp_row *r = &g->r[rows[k]];
        int64_t d = r->dur > 0 ? r->dur : 0;
        pt[2 * k] = (span_pt){r->ts, d, r->index, true, rows[k]};
        pt[2 * k + 1] = (span_pt){r->ts + d, d, r->index, false, rows[k]};
        t->first[rows[k]] = GPU_NO_ROW;
    }
    qsort(pt, 2 * n, sizeof *pt, cmp_span);
    t->root_first = t->root_last = GPU_NO_ROW;
    size_t top = 0;
    for (size_t k = 0; k < 2 * n; k++) {
        if (!pt[k].start) {
            top -= top > 0;
            continue;
        }
        tree_link(t, top ? stack[top - 1] : GPU_NO_ROW, pt[k].row);
        stack[top++] = pt[k].row;
    }
    free(pt);
    return true;
}

typedef struct walk {
    size_t last, parent;
    size_t depth;
} walk;

static bool enter(cp_graph *g, walk *w, const tree *t, size_t row)
{
    size_t s = g->start_of[row];
    if (s == GPU_NO_ROW)
        return true;
    if (w->last != GPU_NO_ROW && !lock_shared(g, w->last, s) &&
        !cp_add(g, w->last, s, w->depth ? CP_OPERATOR : CP_DEPENDENCY, false, w->parent))
        return false;
    w->last = s, w->parent = t->parent[row], w->depth++;
    return true;
}

static bool leave(cp_graph *g, walk *w, const tree *t, size_t row)
{
    size_t e = g->end_of[row];
    if (e == GPU_NO_ROW)
        return true;
    if (w->last != GPU_NO_ROW && !lock_shared(g, w->last, e) &&
        !cp_add(g, w->last, e, CP_OPERATOR, blocking(g->r[row].name), w->parent))
        return false;
    w->last = e, w->parent = t->parent[row], w->depth--;
    return true;
}

/* Depth first through one thread's tree, chaining the starts and ends of its events. */
static bool walk_tree(cp_graph *g, const tree *t, size_t *stack)
{
    walk w = {.last = GPU_NO_ROW, .parent = GPU_NO_ROW};
    size_t top = 0, cur = t->root_first;
    for (;;) {
        if (cur != GPU_NO_ROW) {
            if (!enter(g, &w, t, cur))
                return false;
            stack[top++] = cur;
            cur = t->first[cur];
            continue;
        }
        if (!top)
            return true;
        size_t done = stack[--top];
        if (!leave(g, &w, t, done))
            return false;
        cur = t->next[done];
    }
}

/* The call stacks of the window's host threads (a thread with any stream is left out). */
static bool stack_edges(cp_graph *g)
{
    size_t n = g->nclip;
    thread_key *k = malloc((n ? n : 1) * sizeof *k);
    size_t *rows = malloc((n ? n : 1) * sizeof *rows), *stack = malloc((n ? n : 1) * sizeof *stack);
    size_t cells = g->nrows ? g->nrows : 1;
    tree t = {.parent = malloc(cells * sizeof(size_t)), .first = malloc(cells * sizeof(size_t)),
              .next = malloc(cells * sizeof(size_t)), .last = malloc(cells * sizeof(size_t))};
    bool ok = k && rows && stack && t.parent && t.first && t.next && t.last;
    int64_t from = 0, to = 0;
    bool fold = ok && autograd_fold(g, &from, &to);
    for (size_t i = 0; ok && i < n; i++) {
        const gpu_cp_row *r = &g->r[g->clip[i]];
        k[i] = (thread_key){r->pid, fold && r->tid == from ? to : r->tid, r->index, g->clip[i]};
    }
    if (ok)
        qsort(k, n, sizeof *k, cmp_thread);
    for (size_t i = 0; ok && i < n;) {
        size_t j = i, m = 0;
        bool host = true;
        for (; j < n && k[j].pid == k[i].pid && k[j].tid == k[i].tid; j++) {
            host = host && g->r[k[j].row].stream < 0;
            rows[m++] = k[j].row;
        }
        if (host)
            ok = build_tree(g, rows, m, &t, stack) && walk_tree(g, &t, stack);
        i = j;
    }
    free(k), free(rows), free(stack), free(t.parent), free(t.first), free(t.next), free(t.last);
    return ok;
}

/* ---- the longest path ---- */

static int64_t graph_weight(const cp_edge *e) { return e->weight < 0 ? 0 : e->weight; }

/* networkx's topological order: generations of nodes reaching in-degree 0, in graph order, then
 * children in edge order. False on a cycle (topo then holds fewer nodes). */
static bool topo_order(const cp_graph *g, size_t *indeg, size_t *topo)
{
    for (size_t i = 0; i < g->norder; i++)
        indeg[g->order[i]] = 0;
    for (size_t k = 0; k < g->ne; k++)
        indeg[g->e[k].v]++;
    size_t n = 0;
    for (size_t i = 0; i < g->norder; i++)
        if (!indeg[g->order[i]])
            topo[n++] = g->order[i];
    for (size_t i = 0; i < n; i++)
        for (size_t k = g->out_head[topo[i]]; k != GPU_NO_ROW; k = g->e[k].next_out)
            if (!--indeg[g->e[k].v])
                topo[n++] = g->e[k].v;
    return n == g->norder;
}

/* The path into path[] (its length in *len); false on a cycle. */
static bool longest(const cp_graph *g, size_t *path, size_t *len, size_t *indeg, size_t *topo, int64_t *dist,
                    size_t *best)
{
    if (!topo_order(g, indeg, topo))
        return false;
    size_t end = GPU_NO_ROW;
    for (size_t i = 0; i < g->norder; i++) {
        size_t v = topo[i];
        dist[v] = 0, best[v] = v;
        bool any = false;
        for (size_t k = g->in_head[v]; k != GPU_NO_ROW; k = g->e[k].next_in) {
            int64_t d = sat_add(dist[g->e[k].u], graph_weight(&g->e[k]));
            if (!any || d > dist[v])
                dist[v] = d, best[v] = g->e[k].u, any = true;
        }
        if (dist[v] < 0)
            dist[v] = 0, best[v] = v;
        if (end == GPU_NO_ROW || dist[v] > dist[end])
            end = v;
    }
    size_t n = 0;
    for (size_t v = end, u = GPU_NO_ROW; v != GPU_NO_ROW && u != v; u = v, v = best[v])
        path[n++] = v;
    for (size_t i = 0; i < n / 2; i++) {
        size_t t = path[i];
        path[i] = path[n - 1 - i], path[n - 1 - i] = t;
    }
    *len = n;
    return true;
}

/* HTA's short name of a kernel: no "->", no <...> or (...) groups, the last blank-separated word. */
static size_t short_name(const char *s, char *buf, size_t cap)
{
    size_t n = 0;
    int angle = 0, paren = 0;
    for (size_t i = 0; s[i] && n + 1 < cap; i++) {
        if (s[i] == '-' && s[i + 1] == '>') {
            i++;
            continue;
        }
        char c = s[i];
        angle += c == '<', paren += c == '(';
        bool inside = angle > 0 || paren > 0;
        angle -= c == '>' && angle > 0, paren -= c == ')' && paren > 0;
        if (!inside)
            buf[n++] = c;
    }
    while (n && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
    const char *w = strrchr(buf, ' ');
    if (w) {
        size_t k = strlen(w + 1);
        memmove(buf, w + 1, k + 1);
        n = k;
    }
    return n;
}

/* Does the data-loading search find the name? (A search past the language's bounds finds
 * nothing; gpu_cpath then fails the path rather than call it CPU time.) */
static bool loads_data(dfs_pred *p, const char *name, size_t n)
{
    dfs_pred_row row;
    dfs_pred_row_init(&row);
    dfs_pred_row_set_text(&row, DFS_PRED_FUNC_NAME, name, n);
    return dfs_pred_match(p, &row);
}

static dfs_gpu_cp_class class_of(const cp_graph *g, const cp_edge *e)
{
    switch (e->type) {
    case CP_KERNEL_KERNEL: return DFS_GPU_CP_KERNEL_KERNEL;
    case CP_LAUNCH: return DFS_GPU_CP_LAUNCH;
    case CP_DEPENDENCY:
    case CP_SYNC: return DFS_GPU_CP_DEPENDENCY;
    case CP_OPERATOR: break;
    }
    const gpu_cp_row *r = &g->r[e->event];
    char buf[512];
    size_t n = short_name(r->name, buf, sizeof buf);
    if (r->stream < 0)
        return g->data_load && loads_data(g->data_load, buf, n) ? DFS_GPU_CP_DATA_LOADING : DFS_GPU_CP_CPU;
    dfs_gpu_ktype t = g->hta ? dfs_gpu_ktype_hta(buf, n) : dfs_gpu_ktype_of(DFS_GPU_KERNEL, buf, n);
    return t == DFS_GPU_KT_COMMUNICATION ? DFS_GPU_CP_COMMUNICATION : DFS_GPU_CP_COMPUTE;
}

/* The path's time by class. */
static void breakdown(const cp_graph *g, const size_t *path, size_t len, dfs_gpu_cpath *cp)
{
    for (size_t i = 0; i + 1 < len; i++) {
        const cp_edge *e = &g->e[find_edge(g, path[i], path[i + 1])];
        if (e->type == CP_OPERATOR && (!e->attributed || e->event == GPU_NO_ROW)) {
            cp->status = DFS_GPU_CP_ROOT_EDGE;
            return;
        }
        dfs_gpu_cp_class c = class_of(g, e);
        cp->class_ns[c] = sat_add(cp->class_ns[c], e->weight);
        cp->class_edges[c]++;
        cp->length_ns = sat_add(cp->length_ns, e->weight);
    }
    for (int c = 0; c < DFS_GPU_CP_CLASSES; c++) {
        double pct = (double)cp->class_ns[c] / (double)cp->length_ns * 100;
        cp->class_pct[c] = g->hta ? gpu_around(pct, 2) : pct;
    }
}

/* A synchronisation between two kernels of one stream makes HTA give up. */
static bool sync_on_one_stream(const cp_graph *g)
{
    for (size_t k = 0; k < g->ne; k++) {
        if (g->e[k].type != CP_SYNC)
            continue;
        int64_t a = g->r[g->row[g->e[k].u]].stream, b = g->r[g->row[g->e[k].v]].stream;
        if (a != -1 && a == b)
            return true;
    }
    return false;
}

static bool find_path(cp_graph *g, dfs_gpu_cpath *cp)
{
    size_t cells = g->nnodes ? g->nnodes : 1;
    size_t *path = malloc(cells * sizeof *path), *indeg = malloc(cells * sizeof *indeg);
    size_t *topo = malloc(cells * sizeof *topo), *best = malloc(cells * sizeof *best);
    int64_t *dist = malloc(cells * sizeof *dist);
    bool ok = path && indeg && topo && best && dist;
    size_t len = 0;
    if (ok && !longest(g, path, &len, indeg, topo, dist, best))
        cp->status = DFS_GPU_CP_CYCLE;
    else if (ok) {
        cp->path_nodes = len;
        breakdown(g, path, len, cp);
    }
    free(path), free(indeg), free(topo), free(best), free(dist);
    return ok;
}

static void graph_free(cp_graph *g)
{
    free(g->ts), free(g->row), free(g->is_start), free(g->start_of), free(g->end_of), free(g->e);
    free(g->out_head), free(g->out_tail), free(g->in_head), free(g->in_tail), free(g->order), free(g->slot);
}

static bool build(cp_graph *g, dfs_gpu_cpath *cp)
{
    if (!make_nodes(g))
        return false;
    if (g->status != DFS_GPU_CP_OK)
        return true;
    cp->events = g->nnodes / 2;
    if (!lock_edges(g) || !stack_edges(g) || !cp_add_device(g))
        return false;
    cp->graph_nodes = g->norder, cp->edges = g->ne;
    if (g->status == DFS_GPU_CP_OK && !g->ne)
        g->status = DFS_GPU_CP_EMPTY;
    if (g->status == DFS_GPU_CP_OK && sync_on_one_stream(g))
        g->status = DFS_GPU_CP_SYNC_SAME_STREAM;
    return true;
}

bool gpu_cpath(const dfs_gpu_options *o, const gpu_cp_row *r, size_t n, dfs_gpu_rank *out, dfs_arena *keep)
{
    dfs_gpu_cpath *cp = &out->cpath;
    *cp = (dfs_gpu_cpath){0};
    cp->status = window(o, r, n, cp);
    if (cp->status != DFS_GPU_CP_OK)
        return true;
    if (cp->window && !(cp->window = dfs_arena_strdup(keep, cp->window, strlen(cp->window))))
        return false;
    cp_graph g = {.r = r, .nrows = n, .hta = o->semantics == DFS_GPU_HTA, .slack_ns = 1500000};
    if (o->cp_data_load && *o->cp_data_load && !(g.data_load = dfs_gpu_data_load_pred(o->cp_data_load, NULL)))
        return false;
    g.clip = clip(r, n, cp->start_ns, cp->end_ns, &g.nclip);
    bool ok = g.clip && build(&g, cp);
    cp->status = g.status;
    if (ok && cp->status == DFS_GPU_CP_OK)
        ok = find_path(&g, cp);
    if (ok && cp->status == DFS_GPU_CP_OK && g.data_load && dfs_pred_failed(g.data_load, NULL))
        cp->status = DFS_GPU_CP_DATA_LOAD_BOUND;
    dfs_pred_free(g.data_load);
    graph_free(&g);
    free((void *)g.clip);
    return ok;
}

dfs_pred *dfs_gpu_data_load_pred(const char *regex, dfs_pred_error *err)
{
    char *text = dfs_pred_contains_text("func_name", regex);
    if (!text) {
        if (err)
            *err = (dfs_pred_error){.message = "out of memory"};
        return NULL;
    }
    dfs_pred *p = dfs_pred_parse(text, err);
    free(text);
    return p;
}
