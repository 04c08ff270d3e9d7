/* sortset.c - the append-then-sort set of sortset.h.
 *
 * Invariant: v[0..sorted) is sorted and distinct; v[sorted..n) is the tail, in any order, possibly
 * repeating itself or the prefix. Compaction sorts the tail, drops its repeats, merges it with the
 * prefix from the back (so no second array of the whole set is needed) and drops keys present in
 * both. */
#include "util/sortset.h"

#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

void dfs_sortset_init(dfs_sortset *s)
{
    memset(s, 0, sizeof *s);
}

void dfs_sortset_free(dfs_sortset *s)
{
    free(s->v);
    dfs_sortset_init(s);
}

static int cmp128(const dfs_key128 *a, const dfs_key128 *b)
{
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Whether v[0..n) is sorted and distinct already. */
static bool ascending(const dfs_key128 *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (cmp128(&v[i - 1], &v[i]) >= 0)
            return false;
    return true;
}

/* Merges the sorted distinct tail t[0..m) into the prefix v[0..p), in v[0..p+m), from the back. */
static void merge_back(dfs_key128 *v, size_t p, const dfs_key128 *t, size_t m)
{
    size_t out = p + m;
    while (m) {
        if (p && cmp128(&v[p - 1], &t[m - 1]) > 0)
            v[--out] = v[--p];
        else
            v[--out] = t[--m];
    }
}

bool dfs_sortset_compact(dfs_sortset *s)
{
    size_t m = s->n - s->sorted;
    if (!m)
        return true;
    dfs_key128 *tmp = malloc(2 * m * sizeof *tmp);
    if (!tmp)
        return false;
    dfs_key128 *tail = tmp + m;
    memcpy(tail, s->v + s->sorted, m * sizeof *tail);
    if (!ascending(tail, m)) { /* a compacted set appended whole needs only the merge */
        dfs_sort128(tail, tmp, m, 0);
        m = dfs_unique128(tail, m);
    }
    merge_back(s->v, s->sorted, tail, m);
    free(tmp);
    s->n = dfs_unique128(s->v, s->sorted + m);
    s->sorted = s->n;
    return true;
}

bool dfs_sortset_add(dfs_sortset *s, dfs_key128 k)
{
    size_t tail = s->n - s->sorted;
    if (tail >= DFS_SORTSET_MIN_TAIL && tail >= s->sorted && !dfs_sortset_compact(s))
        return false;
    return dfs_vec_push(s, k);
}

bool dfs_sortset_append(dfs_sortset *s, const dfs_key128 *keys, size_t n)
{
    if (!n)
        return true;
    if (!dfs_vec_reserve(s, n))
        return false;
    memcpy(s->v + s->n, keys, n * sizeof *keys);
    s->n += n;
    return true;
}

bool dfs_sortset_rekey(dfs_sortset *s, bool (*rekey)(dfs_key128 *k, void *ctx), void *ctx)
{
    bool compacted = s->sorted == s->n;
    dfs_key128 *moved = compacted ? malloc((s->n + 1) * sizeof *moved) : NULL;
    size_t kept = 0, nmoved = 0;
    bool in_order = true;
    for (size_t i = 0; i < s->n; i++) {
        dfs_key128 k = s->v[i];
        if (!rekey(&k, ctx)) {
            s->v[kept++] = k;
            continue;
        }
        if (moved) {
            in_order &= !nmoved || cmp128(&moved[nmoved - 1], &k) < 0;
            moved[nmoved++] = k;
        } else {
            s->v[i] = k;
        }
    }
    if (!moved) {
        s->sorted = 0;
        return !compacted;
    }
    /* v[0..kept) holds the unchanged keys, still in order */
    if (in_order)
        merge_back(s->v, kept, moved, nmoved);
    else
        memcpy(s->v + kept, moved, nmoved * sizeof *moved);
    s->sorted = in_order ? s->n : 0;
    free(moved);
    return true;
}

size_t dfs_sortset_count(dfs_sortset *s)
{
    return dfs_sortset_compact(s) ? s->n : SIZE_MAX;
}
