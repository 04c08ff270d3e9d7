/* gpu_cpath_graph.h - the graph of the critical path (gpu_cpath.c builds it, gpu_cpath_gpu.c
 * adds the device side): a node is the start or the end of an event of the window; an edge
 * carries a type, the time it spans (its weight) and the event it is attributed to.
 *
 * Invariants: the graph's nodes are the nodes some edge touches, in the order they first
 * appeared as an endpoint (the source before the destination); each node's successors and
 * predecessors are in the order their edges were first added; adding an edge again keeps its
 * place and replaces its type, weight and (operator and kernel-kernel edges) attribution. These
 * orders decide ties of the longest path, as networkx's do. */
#ifndef DFS_GPU_CPATH_GRAPH_H
#define DFS_GPU_CPATH_GRAPH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/gpu/gpu_internal.h"

typedef enum cp_type { CP_OPERATOR, CP_DEPENDENCY, CP_LAUNCH, CP_KERNEL_KERNEL, CP_SYNC } cp_type;

typedef struct cp_edge {
    size_t u, v;
    cp_type type;
    int64_t weight;      /* the time from u to v (0 for dependencies and forced edges); may be < 0 */
    size_t event;        /* the row it is attributed to, GPU_NO_ROW the call stacks' root */
    bool attributed;
    size_t next_out, next_in;
} cp_edge;

typedef struct cp_graph {
    const gpu_cp_row *r; /* every row of the rank (launches and queues are looked up there) */
    size_t nrows;
    const size_t *clip;  /* the rows of the window, by ascending index */
    size_t nclip;
    /* nodes: 2 per event, numbered by (time, row index), starts before ends */
    size_t nnodes;
    int64_t *ts;
    size_t *row;
    bool *is_start;
    size_t *start_of, *end_of; /* per row: its nodes, GPU_NO_ROW when it is no event */
    /* edges */
    cp_edge *e;
    size_t ne, cap;
    size_t *out_head, *out_tail, *in_head, *in_tail;
    size_t *order;       /* the graph's nodes in order of appearance */
    size_t norder;
    size_t *slot;        /* hash of (u, v) -> edge */
    size_t nslot;
    int64_t slack_ns;    /* a kernel this close after the previous one of its stream follows it */
    bool hta;
    dfs_pred *data_load;  /* the host events that load data (cp_data_load), or NULL */
    dfs_gpu_cp_status status;
} cp_graph;

/* Adds u->v (or updates it); `parent` is the call-stack parent recorded with u, for an edge from
 * an end to a start. False when out of memory. */
bool cp_add(cp_graph *g, size_t u, size_t v, cp_type t, bool zero, size_t parent);

/* The device side: kernels per stream, launches, synchronisations. False when out of memory. */
bool cp_add_device(cp_graph *g);
#endif
