/* gpu_membw.c - the memory bandwidth of one rank per kind of copy: each copy or set adds its
 * bandwidth (args "memory bandwidth (GB/s)") to its kind's total at its start and takes it off at its
 * end; the totals above 0 after each of these events are the samples, summarised per kind (pandas'
 * describe()). Kinds: Memset, else the first 11 characters of a Memcpy name (Memcpy HtoD, DtoH,
 * DtoD, ...), else Memcpy Unknown.
 *
 * hta: every start (row order) then every end, sorted by time with numpy's unstable sort; a
 * zero-length copy lasts 1 µs; the running sums keep floating-point residues (1e-16 counts as
 * above 0). exact: sorted by time, ends before starts at the same instant; zero-length copies are
 * left out (they move nothing over time). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gpu/gpu_internal.h"

typedef struct sample {
    int64_t t;
    double bw;
    int kind;   /* index into the kind names */
    size_t seq; /* its place in the unsorted list */
} sample;

static const char *const kinds[] = {"Memcpy DtoD", "Memcpy DtoH", "Memcpy HtoD", "Memcpy Unknown", "Memset"};
enum { NKINDS = 5, OTHER_MEMCPY = 5 };

/* The kind of a copy's name; names whose 11 first characters are none of the above come after. */
static int kind_of(const gpu_work *w, const char **names, size_t *nnames)
{
    char head[12];
    const char *name = w->name;
    if (strncmp(name, "Memset", 6) == 0)
        return 4;
    if (strncmp(name, "Memcpy", 6) != 0)
        return 3;
    snprintf(head, sizeof head, "%.11s", name);
    for (int k = 0; k < NKINDS; k++)
        if (strcmp(head, kinds[k]) == 0)
            return k;
    for (size_t k = 0; k < *nnames; k++) /* Memcpy PtoP and the like: by their own prefix */
        if (strncmp(names[k], name, 11) == 0)
            return OTHER_MEMCPY + (int)k;
    names[*nnames] = name;
    return OTHER_MEMCPY + (int)(*nnames)++;
}

static int cmp_order(const void *a, const void *b)
{
    const gpu_work *x = a, *y = b;
    return (x->order > y->order) - (x->order < y->order);
}

static int cmp_sample(const void *a, const void *b)
{
    const sample *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if ((x->bw < 0) != (y->bw < 0))
        return x->bw < 0 ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static bool sort_samples(const dfs_gpu_options *o, sample *s, size_t m)
{
    if (o->semantics == DFS_GPU_HTA)
        return gpu_ssort_items(s, m, sizeof *s);
    qsort(s, m, sizeof *s, cmp_sample);
    return true;
}

/* The kind's name as a C string in keep (the shared names, or an 11-character prefix). */
static const char *kind_name(int k, const char **names, dfs_arena *keep)
{
    return k < NKINDS ? kinds[k] : dfs_arena_strdup(keep, names[k - OTHER_MEMCPY], 11);
}

static int cmp_rows(const void *a, const void *b)
{
    return strcmp(((const dfs_gpu_membw_row *)a)->name, ((const dfs_gpu_membw_row *)b)->name);
}

bool gpu_membw(const dfs_gpu_options *o, gpu_work *w, size_t n, dfs_gpu_rank *out, dfs_arena *keep)
{
    qsort(w, n, sizeof *w, cmp_order);
    bool hta = o->semantics == DFS_GPU_HTA;
    sample *s = malloc(2 * (n ? n : 1) * sizeof *s);
    const char **names = malloc((n ? n : 1) * sizeof *names);
    double *v = malloc(2 * (n ? n : 1) * sizeof *v);
    bool ok = s && names && v;
    size_t m = 0, nnames = 0, rows = 0;
    for (size_t i = 0; ok && i < n; i++) { /* the starts, then the ends */
        if (w[i].type != DFS_GPU_KT_MEMORY || (!hta && w[i].end <= w[i].ts))
            continue;
        s[m] = (sample){w[i].ts, w[i].bw, kind_of(&w[i], names, &nnames), m};
        m++, rows++;
    }
    for (size_t i = 0, k = 0; ok && i < n; i++) {
        if (w[i].type != DFS_GPU_KT_MEMORY || (!hta && w[i].end <= w[i].ts))
            continue;
        int64_t end = w[i].end == w[i].ts ? w[i].ts + 1000 : w[i].end; /* HTA: a 0 µs copy lasts 1 µs */
        s[m] = (sample){end, -w[i].bw, s[k++].kind, m};
        m++;
    }
    out->memory_rows = rows;
    ok = ok && sort_samples(o, s, m);
    size_t nk = NKINDS + nnames;
    out->membw = ok ? dfs_arena_alloc(keep, (nk ? nk : 1) * sizeof *out->membw) : NULL;
    ok = ok && out->membw;
    for (size_t k = 0; ok && k < nk; k++) {
        double run = 0;
        size_t c = 0;
        for (size_t i = 0; i < m; i++)
            if (s[i].kind == (int)k && (run += s[i].bw) > 0)
                v[c++] = run;
        if (!c)
            continue;
        dfs_gpu_membw_row *row = &out->membw[out->nmembw++];
        row->name = kind_name((int)k, names, keep);
        ok = row->name != NULL;
        gpu_describe(v, c, &row->s);
    }
    if (ok)
        qsort(out->membw, out->nmembw, sizeof *out->membw, cmp_rows);
    free(s), free(names), free(v);
    return ok;
}
