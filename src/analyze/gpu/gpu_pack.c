/* gpu_pack.c - `dfscope gpu` in a distributed run (gpu.h, docs/MPI.md, docs/GPU.md).
 *
 * A Kineto trace is one JSON document, read whole by one rank, so every rank keeps the complete
 * rows of whole files, exactly as one process's worker threads keep them. What travels up the
 * tree is that kept state as it is: every row (names and categories as text), and per file
 * whether a timestamp had a fraction of a µs and the offset of its first event. Rank 0 merges
 * the states and runs the unchanged analysis on them: rows are put in (file, offset) order by
 * dfs_gpu_finish whatever order they arrive in, and file indices are the same on every rank (one
 * listing), so the result is one process's, byte for byte, with no result field on the wire.
 *
 * Invariant: a merge only adds rows and ORs or takes the minimum of per-file facts, so merging in
 * any tree order gives the same state. */
#include <string.h>

#include "analyze/gpu/gpu_internal.h"
#include "wire/pack.h"

bool dfs_gpu_pack(dfs_gpu *g, dfs_pack *w)
{
    const gpu_kept *k = gpu_kept_of(g);
    if (k->oom)
        return false;
    dfs_pack_u64(w, k->rows.n);
    for (size_t i = 0; i < k->rows.n; i++) {
        const gpu_row *r = &k->rows.v[i];
        int64_t ints[] = {r->ts, r->dur, r->stream, r->corr, r->pid, r->tid, r->wait_stream, r->wait_corr};
        dfs_pack_i64s(w, ints, sizeof ints / sizeof *ints);
        dfs_pack_u64(w, r->offset);
        dfs_pack_u64(w, r->file);
        dfs_pack_u64(w, r->kind);
        dfs_pack_str(w, r->name);
        dfs_pack_str(w, r->cat);
        dfs_pack_f64(w, r->bw);
    }
    size_t nfrac = 0, nfirst = 0;
    for (size_t f = 0; f < k->fractional.n; f++)
        nfrac += k->fractional.v[f];
    for (size_t f = 0; f < k->first.n; f++)
        nfirst += k->first.v[f] != 0;
    dfs_pack_u64(w, nfrac);
    for (size_t f = 0; f < k->fractional.n; f++)
        if (k->fractional.v[f])
            dfs_pack_u64(w, f);
    dfs_pack_u64(w, nfirst);
    for (size_t f = 0; f < k->first.n; f++)
        if (k->first.v[f]) {
            dfs_pack_u64(w, f);
            dfs_pack_u64(w, k->first.v[f] - 1);
        }
    return !w->failed;
}

/* A packed file index: one of the listing's, not a size to allocate. */
static uint32_t unpack_file(dfs_unpack *r, const dfs_run *run)
{
    uint32_t f = dfs_unpack_u32(r);
    if (f >= dfs_run_file_count(run))
        r->bad = true;
    return r->bad ? 0 : f;
}

static void unpack_row(dfs_unpack *r, const dfs_run *run, gpu_row *row)
{
    memset(row, 0, sizeof *row); /* field by field: initialisers are not sequenced */
    int64_t *const to[] = {&row->ts, &row->dur, &row->stream, &row->corr,
                           &row->pid, &row->tid, &row->wait_stream, &row->wait_corr};
    dfs_unpack_i64s(r, to, sizeof to / sizeof *to);
    row->offset = dfs_unpack_u64(r);
    row->file = unpack_file(r, run);
    uint64_t kind = dfs_unpack_u64(r);
    r->bad |= kind > UINT8_MAX;
    row->kind = (uint8_t)kind;
    row->name = dfs_unpack_str(r);
    row->cat = dfs_unpack_str(r);
    row->bw = dfs_unpack_f64(r);
}

bool dfs_gpu_merge_packed(dfs_gpu *g, const dfs_run *run, dfs_unpack *r)
{
    gpu_kept *k = gpu_kept_of(g);
    size_t n = dfs_unpack_count(r, 21); /* 8 ints, offset, file, kind, 2 strings: a byte each; bw 8 */
    if (!dfs_vec_reserve(&k->rows, n))
        k->oom = true;
    for (size_t i = 0; i < n && !r->bad && !k->oom; i++)
        unpack_row(r, run, &k->rows.v[k->rows.n++]);
    n = dfs_unpack_count(r, 1);
    for (size_t i = 0; i < n && !r->bad && !k->oom; i++) {
        uint32_t f = unpack_file(r, run);
        if (!r->bad)
            gpu_note_fraction(k, f);
    }
    n = dfs_unpack_count(r, 2);
    for (size_t i = 0; i < n && !r->bad && !k->oom; i++) {
        uint32_t f = unpack_file(r, run);
        uint64_t offset = dfs_unpack_u64(r);
        if (!r->bad)
            gpu_note_first(k, f, offset);
    }
    return !r->bad && !k->oom;
}
