/* stats_pack.c - the state of `dfscope stats` on the wire (stats.h, docs/MPI.md). Every string
 * (categories, names, hosts, file names) travels as text; file indices are the same on every
 * rank (one listing). */
#include <stdlib.h>
#include <string.h>

#include "analyze/stats/stats_internal.h"
#include "wire/pack.h"

static void pack_keys(dfs_pack *w, const dfs_keyset *set)
{
    dfs_pack_u64(w, set->count);
    size_t it = 0;
    for (const proc_key *k; (k = dfs_keyset_next(set, &it)) != NULL;) {
        dfs_pack_i64(w, k->pid);
        dfs_pack_i64(w, k->tid);
        dfs_pack_u64(w, k->hhash);
        dfs_pack_str(w, k->host);
        dfs_pack_u64(w, k->file);
    }
}

static void unpack_keys(dfs_unpack *r, dfs_keyset *set)
{
    size_t n = dfs_unpack_count(r, 5);
    for (size_t i = 0; i < n && !r->bad; i++) {
        proc_key k; /* field by field: initialisers are not sequenced */
        memset(&k, 0, sizeof k);
        k.pid = dfs_unpack_i64(r);
        k.tid = dfs_unpack_i64(r);
        k.hhash = dfs_unpack_u64(r);
        k.host = dfs_unpack_str(r);
        k.file = dfs_unpack_u32(r);
        if (dfs_keyset_add(set, &k) < 0)
            r->bad = true;
    }
}

static void pack_names(dfs_pack *w, const dfs_u64map *set)
{
    dfs_pack_u64(w, set->count);
    for (size_t i = 0; i < set->cap; i++)
        if (set->used[i])
            dfs_pack_str(w, (dfs_str)set->keys[i]);
}

static void unpack_names(dfs_unpack *r, dfs_u64map *set)
{
    size_t n = dfs_unpack_count(r, 1);
    for (size_t i = 0; i < n && !r->bad; i++)
        if (!dfs_u64map_put(set, dfs_unpack_str(r), 1))
            r->bad = true;
}

bool dfs_stats_pack(const dfs_stats *s, dfs_pack *w)
{
    const part *p = &s->total;
    dfs_pack_u64(w, p->names.n);
    for (size_t i = 0; i < p->names.n; i++) {
        dfs_pack_str(w, p->names.v[i].cat);
        dfs_pack_str(w, p->names.v[i].name);
        dfs_pack_u64(w, p->names.v[i].count);
        dfs_pack_i64(w, p->names.v[i].dur_ns);
    }
    pack_keys(w, &p->procs);
    pack_keys(w, &p->threads);
    pack_keys(w, &p->pid_hosts);
    pack_names(w, &p->hosts);
    pack_names(w, &p->fnames);
    dfs_pack_u64(w, p->unresolved.count);
    size_t it = 0;
    for (const ref_key *k; (k = dfs_keyset_next(&p->unresolved, &it)) != NULL;) {
        dfs_pack_u64(w, k->hash);
        dfs_pack_u64(w, k->file);
        dfs_pack_u64(w, k->kind);
    }
    size_t spans = 0;
    for (size_t f = 0; f < p->spans.n; f++)
        spans += p->spans.v[f].have;
    dfs_pack_u64(w, spans);
    for (size_t f = 0; f < p->spans.n; f++)
        if (p->spans.v[f].have) {
            dfs_pack_u64(w, f);
            dfs_pack_i64(w, p->spans.v[f].min);
            dfs_pack_i64(w, p->spans.v[f].max);
        }
    return !w->failed;
}

static void unpack_part(dfs_unpack *r, part *p)
{
    size_t n = dfs_unpack_count(r, 4);
    for (size_t i = 0; i < n && !r->bad; i++) {
        dfs_str cat = dfs_unpack_str(r), name = dfs_unpack_str(r);
        uint64_t count = dfs_unpack_u64(r);
        int64_t dur = dfs_unpack_i64(r);
        dfs_stats_add_named(&p->name_index, &p->names, cat, name, count, dur);
    }
    unpack_keys(r, &p->procs);
    unpack_keys(r, &p->threads);
    unpack_keys(r, &p->pid_hosts);
    unpack_names(r, &p->hosts);
    unpack_names(r, &p->fnames);
    n = dfs_unpack_count(r, 3);
    for (size_t i = 0; i < n && !r->bad; i++) {
        ref_key k;
        memset(&k, 0, sizeof k);
        k.hash = dfs_unpack_u64(r);
        k.file = dfs_unpack_u32(r);
        k.kind = dfs_unpack_u32(r);
        if (dfs_keyset_add(&p->unresolved, &k) < 0)
            r->bad = true;
    }
    n = dfs_unpack_count(r, 3);
    for (size_t i = 0; i < n && !r->bad; i++) {
        uint32_t f = dfs_unpack_u32(r);
        int64_t lo = dfs_unpack_i64(r), hi = dfs_unpack_i64(r);
        if (f > (1u << 30)) /* a file index, not a size to allocate */
            r->bad = true;
        else
            dfs_stats_add_span(p, f, lo, hi);
    }
}

bool dfs_stats_merge_packed(dfs_stats *s, dfs_unpack *r)
{
    part p;
    dfs_stats_part_init(&p);
    unpack_part(r, &p);
    if (!r->bad)
        dfs_stats_merge_part(&s->total, &p);
    dfs_stats_part_free(&p);
    return !r->bad;
}
