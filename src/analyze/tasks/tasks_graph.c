/* tasks_graph.c - the annotated task graph of the Compute events (spec 4.1) and its critical path:
 * the longest duration-weighted path.
 *
 * Invariants: nodes are numbered in the order networkx adds them (first named, as a task or in an
 * edge), edges are kept once per (from, to) in first-insertion order (a DiGraph), and a node's
 * attributes are those of its last Compute in iteration order; the critical path leaves out the
 * nodes on or behind a cycle and breaks ties by the smallest node index. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/tasks/tasks_internal.h"
#include "util/u64map.h"
#include "util/vec.h"

/* ---- the annotated task graph (spec 4.1) ------------------------------------------------------ */

typedef struct edge {
    uint32_t from, to;
} edge;

typedef struct graph_build {
    dfs_u64map index;              /* key -> node */
    DFS_VEC(dfs_tasks_node) nodes;
    DFS_VEC(uint32_t) last;
    DFS_VEC(edge) edges;
} graph_build;

/* networkx adds a node when it is first named, as a task or in an edge. */
static bool node_of(graph_build *g, dfs_str key, uint32_t *out)
{
    if (dfs_u64map_get(&g->index, key, out))
        return true;
    dfs_tasks_node n = {.key = key, .shape = ""};
    if (!dfs_vec_push(&g->nodes, n) || !dfs_vec_push(&g->last, UINT32_MAX))
        return false;
    *out = (uint32_t)(g->nodes.n - 1);
    return dfs_u64map_put(&g->index, key, *out);
}

static bool add_edge(graph_build *g, dfs_str from, dfs_str to)
{
    edge e;
    return node_of(g, from, &e.from) && node_of(g, to, &e.to) && dfs_vec_push(&g->edges, e);
}

static bool add_task_edges(dfs_tasks *t, graph_build *g, const tk_compute *c)
{
    const dfs_str *refs = t->total.refs.v + c->refs_at;
    for (uint32_t i = 0; i < c->nin; i++)
        if (!add_edge(g, refs[i], c->key))
            return false;
    for (uint32_t i = 0; i < c->nout; i++)
        if (!add_edge(g, c->key, refs[c->nin + i]))
            return false;
    return true;
}

/* Adjacency of one direction in first-insertion order, without parallel edges (a DiGraph). */
static bool build_csr(size_t nnodes, const edge *e, size_t ne, bool by_target, uint32_t **start_out,
                      uint32_t **adj_out, size_t *nadj)
{
    uint32_t *start = calloc(nnodes + 1, sizeof *start);
    uint32_t *adj = malloc((ne ? ne : 1) * sizeof *adj);
    uint32_t *mark = malloc((nnodes ? nnodes : 1) * sizeof *mark);
    if (!start || !adj || !mark) {
        free(start), free(adj), free(mark);
        return false;
    }
    for (size_t i = 0; i < ne; i++)
        start[(by_target ? e[i].to : e[i].from) + 1]++;
    for (size_t i = 0; i < nnodes; i++)
        start[i + 1] += start[i];
    uint32_t *fill = mark; /* fill cursors first, dedup marks afterwards */
    memcpy(fill, start, nnodes * sizeof *fill);
    for (size_t i = 0; i < ne; i++) {
        uint32_t x = by_target ? e[i].to : e[i].from;
        adj[fill[x]++] = by_target ? e[i].from : e[i].to;
    }
    for (size_t i = 0; i < nnodes; i++)
        mark[i] = UINT32_MAX;
    size_t out = 0;
    for (size_t x = 0; x < nnodes; x++) {
        uint32_t a = start[x], b = start[x + 1];
        start[x] = (uint32_t)out;
        for (uint32_t k = a; k < b; k++)
            if (mark[adj[k]] != x) {
                mark[adj[k]] = (uint32_t)x;
                adj[out++] = adj[k];
            }
    }
    start[nnodes] = (uint32_t)out;
    free(mark);
    *start_out = start;
    *adj_out = adj;
    *nadj = out;
    return true;
}

static void set_node_attrs(dfs_tasks *t, dfs_tasks_node *n, const tk_compute *c)
{
    size_t len;
    n->has_attrs = true;
    n->name = c->name;
    n->type = c->type;
    n->shape = c->shape ? dfs_tasks_str(t, c->shape, &len) : "";
    n->size = tk_py_double(c->size);
    n->duration = c->dur;
}

/* input_data_size and throughput ("bandwidth") of every node, with Python's arithmetic. */
static uint64_t annotate_nodes(dfs_tasks *t, pynum *input)
{
    uint64_t zero = 0;
    for (size_t v = 0; v < t->nnodes; v++) {
        pynum sum = tk_py_int(0);
        for (uint32_t k = t->pred_start[v]; k < t->pred_start[v + 1]; k++) {
            uint32_t u = t->node_last[t->pred[k]];
            sum = tk_py_add(sum, u == UINT32_MAX ? tk_py_int(0) : t->total.computes.v[u].size);
        }
        input[v] = sum;
        dfs_tasks_node *n = &t->nodes[v];
        n->input_size = tk_py_double(sum);
        double dur = n->has_attrs ? n->duration : 1.0;
        if (dur == 0) { /* DASF: ZeroDivisionError */
            zero++;
            n->throughput = 0;
        } else {
            n->throughput = n->input_size / dur;
        }
    }
    return zero;
}

bool tk_build_graph(dfs_tasks *t, pynum **input_out)
{
    graph_build g;
    memset(&g, 0, sizeof g);
    dfs_u64map_init(&g.index);
    const part *p = &t->total;
    bool ok = (t->compute_node = malloc((p->computes.n ? p->computes.n : 1) * sizeof(uint32_t))) != NULL;
    for (size_t i = 0; ok && i < p->computes.n; i++) {
        const tk_compute *c = &p->computes.v[i];
        ok = node_of(&g, c->key, &t->compute_node[i]) && add_task_edges(t, &g, c);
        if (ok)
            g.last.v[t->compute_node[i]] = (uint32_t)i;
    }
    t->nodes = g.nodes.v;
    t->nnodes = g.nodes.n;
    t->node_last = g.last.v;
    size_t np = 0;
    ok = ok && build_csr(t->nnodes, g.edges.v, g.edges.n, true, &t->pred_start, &t->pred, &np) &&
         build_csr(t->nnodes, g.edges.v, g.edges.n, false, &t->succ_start, &t->succ, &t->nedges);
    dfs_vec_free(&g.edges);
    dfs_u64map_free(&g.index);
    pynum *input = ok ? malloc((t->nnodes ? t->nnodes : 1) * sizeof *input) : NULL;
    if (!input)
        return false;
    for (size_t v = 0; v < t->nnodes; v++)
        if (t->node_last[v] != UINT32_MAX)
            set_node_attrs(t, &t->nodes[v], &p->computes.v[t->node_last[v]]);
    dfs_vec_free(&t->total.refs); /* the edges hold them now */
    tk_count_note(t, annotate_nodes(t, input),
                  "task(s) with duration 0: throughput counted as 0 (DASF fails on them)");
    *input_out = input;
    return true;
}

/* ---- critical path ---------------------------------------------------------------------------- */

double tk_node_weight(const dfs_tasks_node *n)
{
    return n->has_attrs && isfinite(n->duration) && n->duration > 0 ? n->duration : 0;
}

/* Longest duration-weighted paths by Kahn's topological order: dist[v] is the longest path ending
 * with v, from[v] its predecessor on it (the first one reached on ties). Nodes on a cycle, or
 * behind one, never enter the order. */
typedef struct longest {
    uint32_t *order;   /* the nodes reached, in topological order */
    size_t reached;
    uint32_t *from;
    double *dist;
} longest;

static bool longest_paths(const dfs_tasks *t, longest *lp)
{
    size_t n = t->nnodes ? t->nnodes : 1, tail = 0;
    uint32_t *indeg = malloc(n * sizeof *indeg);
    double *into = calloc(n, sizeof *into);
    lp->order = malloc(n * sizeof *lp->order);
    lp->from = malloc(n * sizeof *lp->from);
    lp->dist = calloc(n, sizeof *lp->dist);
    bool ok = indeg && into && lp->order && lp->from && lp->dist;
    for (size_t v = 0; ok && v < t->nnodes; v++) {
        indeg[v] = t->pred_start[v + 1] - t->pred_start[v];
        lp->from[v] = UINT32_MAX;
        if (!indeg[v])
            lp->order[tail++] = (uint32_t)v;
    }
    for (size_t head = 0; ok && head < tail; head++) {
        uint32_t u = lp->order[head];
        lp->dist[u] = into[u] + tk_node_weight(&t->nodes[u]);
        for (uint32_t k = t->succ_start[u]; k < t->succ_start[u + 1]; k++) {
            uint32_t v = t->succ[k];
            if (lp->from[v] == UINT32_MAX || lp->dist[u] > into[v])
                into[v] = lp->dist[u], lp->from[v] = u;
            if (--indeg[v] == 0)
                lp->order[tail++] = v;
        }
    }
    lp->reached = tail;
    free(indeg), free(into);
    return ok;
}

/* The path ending at the farthest node (the smallest index on ties), from its first task. */
static bool extract_path(dfs_tasks *t, const longest *lp)
{
    size_t best = SIZE_MAX;
    for (size_t k = 0; k < lp->reached; k++) {
        uint32_t v = lp->order[k];
        if (best == SIZE_MAX || lp->dist[v] > lp->dist[best] || (lp->dist[v] == lp->dist[best] && v < best))
            best = v;
    }
    for (uint32_t v = (uint32_t)best; best != SIZE_MAX && v != UINT32_MAX; v = lp->from[v])
        t->npath++;
    t->path = malloc((t->npath ? t->npath : 1) * sizeof *t->path);
    t->path_end = malloc((t->npath ? t->npath : 1) * sizeof *t->path_end);
    if (!t->path || !t->path_end)
        return false;
    size_t k = t->npath;
    for (uint32_t v = (uint32_t)best; best != SIZE_MAX && v != UINT32_MAX; v = lp->from[v]) {
        t->path[--k] = v;
        t->path_end[k] = lp->dist[v];
        t->nodes[v].on_path = true;
    }
    t->result.path_seconds = t->npath ? t->path_end[t->npath - 1] : 0;
    t->result.path_tasks = t->npath;
    return true;
}

bool tk_critical_path(dfs_tasks *t)
{
    longest lp = {0};
    bool ok = longest_paths(t, &lp) && extract_path(t, &lp);
    free(lp.order), free(lp.from), free(lp.dist);
    if (!ok)
        return false;
    t->result.cycle_nodes = t->nnodes - lp.reached;
    if (t->result.cycle_nodes)
        tk_note(t, "%zu task(s) on or behind dependency cycles are left out of the critical path",
                t->result.cycle_nodes);
    return true;
}
