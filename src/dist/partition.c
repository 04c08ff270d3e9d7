/* partition.c - balancing the inputs over the ranks (partition.h). */
#include "dist/partition.h"

#include <stdlib.h>
#include <string.h>

uint64_t dfs_partition_piece_bytes(uint64_t total, int nranks)
{
    uint64_t per_rank = total / (uint64_t)(nranks > 0 ? nranks : 1);
    uint64_t piece = per_rank / 4;
    const uint64_t min = UINT64_C(32) << 20;
    return piece < min ? min : piece;
}

/* The piece size of an input: piece_bytes rounded up to its unit (0: kept whole). */
static uint64_t piece_of(const dfs_part_input *in, uint64_t piece_bytes)
{
    if (!in->unit || !piece_bytes)
        return 0;
    uint64_t piece = (piece_bytes + in->unit - 1) / in->unit * in->unit;
    /* no more than DFS_PARTITION_MAX_PIECES pieces: larger ones, still multiples of the unit */
    uint64_t min = (in->size / DFS_PARTITION_MAX_PIECES + in->unit) / in->unit * in->unit;
    return piece > min ? piece : min;
}

static uint32_t pieces_of(const dfs_part_input *in, uint64_t piece_bytes)
{
    uint64_t piece = piece_of(in, piece_bytes);
    if (!piece || in->size <= piece)
        return 1;
    return (uint32_t)((in->size + piece - 1) / piece);
}

static uint64_t weight_of(const dfs_piece *p, uint64_t size)
{
    uint64_t stop = p->stop < size ? p->stop : size;
    return (stop > p->start ? stop - p->start : 0) + DFS_PARTITION_FILE_COST;
}

typedef struct order_item {
    uint64_t weight;
    size_t at; /* index in pieces (by file and index) */
} order_item;

static int heavier_first(const void *pa, const void *pb)
{
    const order_item *a = pa, *b = pb;
    if (a->weight != b->weight)
        return a->weight > b->weight ? -1 : 1;
    return (a->at > b->at) - (a->at < b->at);
}

/* A binary min-heap of ranks by (load, rank). */
typedef struct rank_heap {
    int *v;
    int n;
    const uint64_t *load;
} rank_heap;

static bool lighter(const rank_heap *h, int a, int b)
{
    return h->load[a] != h->load[b] ? h->load[a] < h->load[b] : a < b;
}

static void sift_down(rank_heap *h, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && lighter(h, h->v[l], h->v[m]))
            m = l;
        if (r < h->n && lighter(h, h->v[r], h->v[m]))
            m = r;
        if (m == i)
            return;
        int t = h->v[i];
        h->v[i] = h->v[m];
        h->v[m] = t;
        i = m;
    }
}

static bool cut_inputs(dfs_partition *p, const dfs_part_input *in, size_t n, uint64_t piece_bytes)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += pieces_of(&in[i], piece_bytes);
    p->pieces = malloc((total ? total : 1) * sizeof *p->pieces);
    p->rank = malloc((total ? total : 1) * sizeof *p->rank);
    if (!p->pieces || !p->rank)
        return false;
    for (size_t i = 0; i < n; i++) {
        uint32_t count = pieces_of(&in[i], piece_bytes);
        uint64_t piece = piece_of(&in[i], piece_bytes);
        for (uint32_t k = 0; k < count; k++) {
            dfs_piece *pc = &p->pieces[p->n++];
            pc->file = (uint32_t)i;
            pc->index = k;
            pc->count = count;
            pc->start = count == 1 ? 0 : (uint64_t)k * piece;
            pc->stop = k + 1 == count ? UINT64_MAX : (uint64_t)(k + 1) * piece;
        }
    }
    return true;
}

bool dfs_partition_make(dfs_partition *p, const dfs_part_input *in, size_t n, int nranks, uint64_t piece_bytes)
{
    memset(p, 0, sizeof *p);
    p->nranks = nranks > 0 ? nranks : 1;
    p->load = calloc((size_t)p->nranks, sizeof *p->load);
    rank_heap h = {.v = malloc((size_t)p->nranks * sizeof *h.v), .n = p->nranks, .load = p->load};
    order_item *order = NULL;
    bool ok = p->load && h.v && n <= UINT32_MAX && cut_inputs(p, in, n, piece_bytes);
    if (ok)
        ok = (order = malloc((p->n ? p->n : 1) * sizeof *order)) != NULL;
    for (size_t i = 0; ok && i < p->n; i++)
        order[i] = (order_item){weight_of(&p->pieces[i], in[p->pieces[i].file].size), i};
    if (ok && p->n)
        qsort(order, p->n, sizeof *order, heavier_first);
    for (int r = 0; ok && r < h.n; r++)
        h.v[r] = r; /* all loads are 0: already a heap in rank order */
    for (size_t i = 0; ok && i < p->n; i++) {
        int r = h.v[0];
        p->rank[order[i].at] = r;
        p->load[r] += order[i].weight;
        sift_down(&h, 0);
    }
    free(order);
    free(h.v);
    if (!ok)
        dfs_partition_free(p);
    return ok;
}

void dfs_partition_free(dfs_partition *p)
{
    free(p->pieces);
    free(p->rank);
    free(p->load);
    memset(p, 0, sizeof *p);
}

size_t dfs_partition_share(const dfs_partition *p, int rank, dfs_piece **out)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n; i++)
        n += p->rank[i] == rank;
    *out = malloc((n ? n : 1) * sizeof **out);
    if (!*out)
        return SIZE_MAX;
    n = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->rank[i] == rank)
            (*out)[n++] = p->pieces[i];
    return n;
}
