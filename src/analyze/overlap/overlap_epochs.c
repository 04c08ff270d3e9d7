/* overlap_epochs.c - the epochs and steps of an overlap result (exact method): per process, each
 * marker is a segment whose values are the differences of its engine's snapshots at the marker's
 * two ends (overlap_scopes.c); then the segments of all processes with the same label are summed.
 *
 * Invariants: a segment is labelled by its marker's args.epoch or args.step, else by its ordinal
 * among its unit's markers of that kind in time order; a unit without class events leaves its
 * segments' class values at zero; the totals are ordered by first start, then label. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/overlap/overlap_internal.h"

static int cmp_marker(const void *a, const void *b)
{
    const marker *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return (x->e > y->e) - (x->e < y->e);
}

static const char *label_text(dfs_overlap *ov, const dfs_run *run, const label *l, size_t ordinal)
{
    char buf[32];
    size_t n;
    if (l->kind == 2) {
        const char *t = dfs_str_get(run, l->s, &n);
        return dfs_arena_strdup(&ov->mem, t, n);
    }
    if (l->kind == 1)
        snprintf(buf, sizeof buf, "%" PRId64, l->i);
    else
        snprintf(buf, sizeof buf, "%zu", ordinal);
    return dfs_arena_strdup(&ov->mem, buf, strlen(buf));
}

/* A segment's values: the differences of the snapshots at its ends (overlap.h). */
static void segment_values(const dfs_overlap *ov, const scope *s, const marker *m, dfs_overlap_values *v)
{
    dfs_ov_set_span(v, m->s, m->e);
    const int64_t *a = s->eng ? dfs_ov_snap_at(ov, s, m->s) : NULL, *b = s->eng ? dfs_ov_snap_at(ov, s, m->e) : NULL;
    if (!a || !b)
        return; /* no class event in the unit (or a pass that is read again) */
    int64_t cm = b[1] - a[1];
    for (size_t c = 0; c < ov->nclasses; c++)
        dfs_ov_exact_class(&v->cls[c], c, b[1 + 2 * c] - a[1 + 2 * c], b[2 + 2 * c] - a[2 + 2 * c], cm);
}

/* The unit's epochs and steps, in time order. */
bool dfs_ov_unit_segments(dfs_overlap *ov, const dfs_run *run, scope *s, dfs_overlap_unit *u)
{
    if (!s->markers.n)
        return true;
    qsort(s->markers.v, s->markers.n, sizeof *s->markers.v, cmp_marker);
    dfs_overlap_segment *seg = dfs_arena_alloc(&ov->mem, s->markers.n * sizeof *seg);
    if (!seg)
        return false;
    size_t ordinal[NMARKS] = {0};
    for (size_t i = 0; i < s->markers.n; i++) {
        const marker *m = &s->markers.v[i];
        memset(&seg[i], 0, sizeof seg[i]);
        seg[i].units = 1;
        seg[i].label = label_text(ov, run, &m->lab, ++ordinal[m->kind]);
        if (!seg[i].label || !dfs_ov_values_init(ov, &seg[i].v))
            return false;
        segment_values(ov, s, m, &seg[i].v);
    }
    u->epochs = seg;
    u->nepochs = ordinal[MARK_EPOCH];
    u->steps = seg + ordinal[MARK_EPOCH];
    u->nsteps = ordinal[MARK_STEP];
    return true;
}

typedef struct seg_ref {
    const dfs_overlap_segment *seg;
} seg_ref;

static int cmp_seg_label(const void *a, const void *b)
{
    const dfs_overlap_segment *x = ((const seg_ref *)a)->seg, *y = ((const seg_ref *)b)->seg;
    int c = strcmp(x->label, y->label);
    return c ? c : (x->v.start > y->v.start) - (x->v.start < y->v.start);
}

static int cmp_seg_start(const void *a, const void *b)
{
    const dfs_overlap_segment *x = a, *y = b;
    if (x->v.start != y->v.start)
        return x->v.start < y->v.start ? -1 : 1;
    return strcmp(x->label, y->label);
}

/* Totals over processes of the segments with the same label, ordered by their first start. */
bool dfs_ov_segment_totals(dfs_overlap *ov, const dfs_overlap_unit *u, size_t nu, bool steps,
                           const dfs_overlap_segment **out, size_t *nout)
{
    size_t n = 0;
    for (size_t i = 0; i < nu; i++)
        n += steps ? u[i].nsteps : u[i].nepochs;
    seg_ref *refs = malloc((n + 1) * sizeof *refs);
    dfs_overlap_segment *tot = dfs_arena_alloc(&ov->mem, (n + 1) * sizeof *tot);
    if (!refs || !tot) {
        free(refs);
        return false;
    }
    size_t k = 0;
    for (size_t i = 0; i < nu; i++)
        for (size_t j = 0; j < (steps ? u[i].nsteps : u[i].nepochs); j++)
            refs[k++].seg = steps ? &u[i].steps[j] : &u[i].epochs[j];
    qsort(refs, n, sizeof *refs, cmp_seg_label);
    size_t m = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        const dfs_overlap_segment *s = refs[i].seg;
        if (!m || strcmp(tot[m - 1].label, s->label) != 0) {
            memset(&tot[m], 0, sizeof tot[m]);
            tot[m].label = s->label;
            ok = dfs_ov_values_init(ov, &tot[m++].v);
        }
        if (ok) {
            dfs_ov_values_add(ov, &tot[m - 1].v, &s->v);
            tot[m - 1].units++;
        }
    }
    free(refs);
    for (size_t i = 0; i < m; i++)
        tot[i].v.total_time = sat_sub(tot[i].v.end, tot[i].v.start);
    qsort(tot, m, sizeof *tot, cmp_seg_start);
    *out = tot;
    *nout = m;
    return ok;
}
