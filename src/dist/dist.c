/* dist.c - the distributed reading pass and what it shares (dist.h). */
#include "dist/dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist/runpack.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ===== the binomial tree ========================================================================= */

bool dfs_dist_reduce(dfs_comm *c, const dfs_reduce_ops *ops, void *ctx, uint64_t *sent)
{
    int rank = dfs_comm_rank(c), size = dfs_comm_size(c);
    bool ok = true;
    for (int mask = 1; mask < size; mask <<= 1) {
        if (rank & mask) { /* done with the children: up to the parent, and out of the tree */
            void *buf = NULL;
            size_t len = 0;
            if (!ops->pack(ctx, &buf, &len)) {
                free(buf);
                buf = NULL;
                len = 0; /* an empty message says "failed" */
                ok = false;
            }
            dfs_comm_send(c, rank - mask, buf, len);
            if (sent)
                *sent += len;
            free(buf);
            return ok;
        }
        if (rank + mask < size) {
            void *buf = NULL;
            size_t len = 0;
            bool got = dfs_comm_recv(c, rank + mask, &buf, &len);
            ok = ops->merge(ctx, got ? buf : NULL, got ? len : 0) && got && ok;
            free(buf);
        }
    }
    return ok;
}

/* Rank 0's packed buffer to everybody: pack on rank 0, unpack everywhere (rank 0 included, so
 * every rank ends with the same value). false when this rank has no valid copy. */
static bool bcast_packed(dfs_comm *c, bool (*pack)(void *ctx, void **buf, size_t *len),
                         bool (*unpack)(void *ctx, const void *buf, size_t len), void *ctx)
{
    void *buf = NULL;
    size_t len = 0;
    if (dfs_comm_rank(c) == 0 && !pack(ctx, &buf, &len)) {
        free(buf);
        buf = NULL;
        len = 0;
    }
    bool ok = dfs_comm_bcast(c, &buf, &len) && len > 0 && unpack(ctx, buf, len);
    free(buf);
    return ok;
}

/* ===== the listing =============================================================================== */

void dfs_dist_listing_free(dfs_dist_listing *l)
{
    for (size_t i = 0; l->paths && i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    free(l->sizes);
    free(l->cut);
    memset(l, 0, sizeof *l);
}

static bool listing_alloc(dfs_dist_listing *l, size_t n)
{
    l->n = 0;
    l->paths = calloc(n ? n : 1, sizeof *l->paths);
    l->sizes = calloc(n ? n : 1, sizeof *l->sizes);
    l->cut = calloc(n ? n : 1, sizeof *l->cut);
    return l->paths && l->sizes && l->cut;
}

bool dfs_dist_listing_of(dfs_dist_listing *l, const dfs_run *run, int nranks, uint64_t piece_bytes)
{
    size_t n = dfs_run_file_count(run);
    if (!listing_alloc(l, n))
        return false;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += dfs_run_file(run, i)->size;
    l->piece_bytes = piece_bytes ? piece_bytes : dfs_partition_piece_bytes(total, nranks);
    l->gz_unit = run->opt.gzip_segment_bytes;
    for (size_t i = 0; i < n; i++) {
        const dfs_file_info *f = dfs_run_file(run, i);
        if (!(l->paths[i] = strdup(f->path)))
            return false;
        l->n = i + 1;
        l->sizes[i] = f->size;
        l->cut[i] = f->size > l->piece_bytes ? (uint8_t)dfs_input_cut(f->path, f->size, l->gz_unit) : DFS_CUT_NONE;
    }
    return true;
}

static bool pack_listing(void *ctx, void **buf, size_t *len)
{
    const dfs_dist_listing *l = ctx;
    dfs_pack w;
    dfs_pack_init(&w, NULL);
    dfs_pack_i64(&w, l->rc);
    dfs_pack_bool(&w, l->bad_path);
    dfs_pack_u64(&w, l->piece_bytes);
    dfs_pack_u64(&w, l->gz_unit);
    dfs_pack_u64(&w, l->n);
    for (size_t i = 0; i < l->n; i++) {
        dfs_pack_text(&w, l->paths[i], strlen(l->paths[i]));
        dfs_pack_u64(&w, l->sizes[i]);
        dfs_pack_u64(&w, l->cut[i]);
    }
    bool ok = dfs_pack_finish(&w, buf, len);
    dfs_pack_free(&w);
    return ok;
}

static bool unpack_listing(void *ctx, const void *buf, size_t len)
{
    dfs_dist_listing *l = ctx;
    dfs_unpack r;
    dfs_unpack_init(&r, NULL, buf, len);
    dfs_dist_listing_free(l);
    l->rc = (int)dfs_unpack_i64(&r);
    l->bad_path = dfs_unpack_bool(&r);
    l->piece_bytes = dfs_unpack_u64(&r);
    l->gz_unit = dfs_unpack_u64(&r);
    size_t n = dfs_unpack_count(&r, 3);
    bool ok = listing_alloc(l, n);
    for (size_t i = 0; ok && i < n && !r.bad; i++) {
        size_t tn;
        const char *t = dfs_unpack_text(&r, &tn);
        l->paths[i] = r.bad ? NULL : strndup(t, tn);
        l->sizes[i] = dfs_unpack_u64(&r);
        uint64_t cut = dfs_unpack_u64(&r);
        l->cut[i] = cut <= DFS_CUT_GZIP ? (uint8_t)cut : DFS_CUT_NONE;
        ok = l->paths[i] != NULL;
        l->n = i + 1;
    }
    ok = ok && dfs_unpack_ok(&r);
    dfs_unpack_free(&r);
    return ok;
}

bool dfs_dist_share_listing(dfs_comm *c, dfs_dist_listing *l)
{
    if (dfs_comm_size(c) == 1)
        return true;
    return bcast_packed(c, pack_listing, unpack_listing, l);
}

dfs_run *dfs_dist_listing_run(const dfs_dist_listing *l, const dfs_options *opt)
{
    dfs_run *run = dfs_run_new(opt);
    for (size_t i = 0; run && i < l->n; i++)
        if (dfs_run_add_listed(run, l->paths[i], l->sizes[i]) != DFS_OK) {
            dfs_run_free(run);
            return NULL;
        }
    return run;
}

bool dfs_dist_partition(const dfs_dist_listing *l, int nranks, bool may_cut, dfs_partition *p)
{
    dfs_part_input *in = malloc((l->n ? l->n : 1) * sizeof *in);
    if (!in)
        return false;
    for (size_t i = 0; i < l->n; i++)
        in[i] = (dfs_part_input){l->sizes[i], l->cut[i] == DFS_CUT_PLAIN ? 1 : l->cut[i] == DFS_CUT_GZIP ? l->gz_unit : 0};
    bool ok = dfs_partition_make(p, in, l->n, nranks, may_cut ? l->piece_bytes : 0);
    free(in);
    return ok;
}

/* ===== the preview =============================================================================== */

typedef struct preview_ctx {
    dfs_preview pv;
    bool failed;
} preview_ctx;

static bool pack_preview(void *ctx, void **buf, size_t *len)
{
    const preview_ctx *p = ctx;
    if (p->failed)
        return false;
    dfs_pack w;
    dfs_pack_init(&w, NULL);
    dfs_pack_bool(&w, p->pv.have_origin);
    dfs_pack_i64(&w, p->pv.origin_ns);
    dfs_pack_texts(&w, (const char *const *)p->pv.categories, p->pv.ncategories);
    bool ok = dfs_pack_finish(&w, buf, len);
    dfs_pack_free(&w);
    return ok;
}

/* The union of two sorted, distinct category lists (their texts are moved or freed). */
static bool union_categories(dfs_preview *into, char **add, size_t nadd)
{
    char **out = malloc((into->ncategories + nadd + 1) * sizeof *out);
    if (!out) {
        for (size_t i = 0; i < nadd; i++)
            free(add[i]);
        return false;
    }
    size_t i = 0, j = 0, n = 0;
    while (i < into->ncategories || j < nadd) {
        int cmp = i == into->ncategories ? 1 : j == nadd ? -1 : strcmp(into->categories[i], add[j]);
        if (cmp <= 0)
            out[n++] = into->categories[i++];
        if (cmp >= 0 && cmp != 0)
            out[n++] = add[j++];
        else if (cmp == 0)
            free(add[j++]);
    }
    free(into->categories);
    into->categories = out;
    into->ncategories = n;
    return true;
}

static bool merge_preview(void *ctx, const void *buf, size_t len)
{
    preview_ctx *p = ctx;
    if (!len) {
        p->failed = true;
        return false;
    }
    dfs_unpack r;
    dfs_unpack_init(&r, NULL, buf, len);
    bool have = dfs_unpack_bool(&r);
    int64_t origin = dfs_unpack_i64(&r);
    size_t n = dfs_unpack_count(&r, 1);
    char **cats = calloc(n ? n : 1, sizeof *cats);
    bool ok = cats != NULL;
    for (size_t i = 0; ok && i < n && !r.bad; i++) {
        size_t tn;
        const char *t = dfs_unpack_text(&r, &tn);
        ok = (cats[i] = strndup(t, tn)) != NULL;
    }
    ok = ok && dfs_unpack_ok(&r);
    if (ok && have && (!p->pv.have_origin || origin < p->pv.origin_ns))
        p->pv.origin_ns = origin;
    p->pv.have_origin |= ok && have;
    if (ok)
        ok = union_categories(&p->pv, cats, n);
    else
        for (size_t i = 0; cats && i < n; i++)
            free(cats[i]);
    free(cats);
    dfs_unpack_free(&r);
    p->failed |= !ok;
    return ok;
}

static bool unpack_preview(void *ctx, const void *buf, size_t len)
{
    preview_ctx *p = ctx;
    dfs_preview_free(&p->pv);
    p->failed = false;
    return merge_preview(ctx, buf, len);
}

int dfs_dist_preview(dfs_comm *c, const dfs_dist_listing *l, const dfs_partition *part, const dfs_options *opt,
                     uint64_t bytes, dfs_preview *out)
{
    int rank = dfs_comm_rank(c);
    char **mine = malloc((part->n ? part->n : 1) * sizeof *mine);
    size_t n = 0;
    for (size_t i = 0; mine && i < part->n; i++)
        if (part->rank[i] == rank && part->pieces[i].index == 0)
            mine[n++] = l->paths[part->pieces[i].file];
    preview_ctx p = {0};
    p.failed = !mine || dfs_preview_run(mine, n, opt, bytes, &p.pv) != DFS_EXIT_OK;
    free(mine);
    static const dfs_reduce_ops ops = {merge_preview, pack_preview};
    bool ok = dfs_dist_reduce(c, &ops, &p, NULL);
    ok = bcast_packed(c, pack_preview, unpack_preview, &p) && ok;
    *out = p.pv;
    if (!ok) {
        dfs_preview_free(out);
        return DFS_EXIT_OUTPUT;
    }
    return DFS_EXIT_OK;
}

/* ===== the unit census =========================================================================== */

/* Unit identities, sorted and distinct, each with "seen on more than one rank". */
typedef struct census {
    dfs_u64vec keys;
    DFS_VEC(uint8_t) multi;
    bool failed;
} census;

static bool pack_census(void *ctx, void **buf, size_t *len)
{
    const census *cs = ctx;
    if (cs->failed)
        return false;
    dfs_pack w;
    dfs_pack_init(&w, NULL);
    dfs_pack_u64(&w, cs->keys.n);
    for (size_t i = 0; i < cs->keys.n; i++) {
        dfs_pack_f64(&w, 0); /* reserve 8 bytes, then overwrite: keys are hashes, a varint saves nothing */
        memcpy(w.body.v + w.body.n - 8, &cs->keys.v[i], 8);
        dfs_pack_bool(&w, cs->multi.v[i]);
    }
    bool ok = !w.failed && dfs_pack_finish(&w, buf, len);
    dfs_pack_free(&w);
    return ok;
}

static bool merge_census(void *ctx, const void *buf, size_t len)
{
    census *cs = ctx;
    if (!len) {
        cs->failed = true;
        return false;
    }
    dfs_unpack r;
    dfs_unpack_init(&r, NULL, buf, len);
    size_t n = dfs_unpack_count(&r, 9);
    census out = {0};
    bool ok = dfs_vec_reserve(&out.keys, cs->keys.n + n + 1) && dfs_vec_reserve(&out.multi, cs->keys.n + n + 1);
    size_t i = 0, j = 0;
    uint64_t key = 0;
    bool have = false, multi = false;
    while (ok && (i < cs->keys.n || j < n || have)) {
        if (!have && j < n && !r.bad) {
            if ((size_t)(r.end - r.p) < 8) {
                r.bad = true;
                break;
            }
            memcpy(&key, r.p, 8);
            r.p += 8;
            multi = dfs_unpack_bool(&r);
            have = true;
            j++;
        }
        if (have && (i == cs->keys.n || key < cs->keys.v[i])) {
            out.keys.v[out.keys.n++] = key;
            out.multi.v[out.multi.n++] = multi;
            have = false;
        } else if (have && key == cs->keys.v[i]) {
            out.keys.v[out.keys.n++] = key;
            out.multi.v[out.multi.n++] = 1; /* on this side and on that one */
            have = false;
            i++;
        } else if (i < cs->keys.n) {
            out.keys.v[out.keys.n++] = cs->keys.v[i];
            out.multi.v[out.multi.n++] = cs->multi.v[i];
            i++;
        } else {
            break;
        }
    }
    ok = ok && dfs_unpack_ok(&r);
    dfs_unpack_free(&r);
    if (!ok) {
        dfs_vec_free(&out.keys);
        dfs_vec_free(&out.multi);
        cs->failed = true;
        return false;
    }
    dfs_vec_free(&cs->keys);
    dfs_vec_free(&cs->multi);
    cs->keys = out.keys;
    cs->multi = out.multi;
    return true;
}

/* After the reduction, rank 0 keeps only the shared units, which everybody then receives. */
static bool pack_shared(void *ctx, void **buf, size_t *len)
{
    census *cs = ctx;
    size_t kept = 0;
    for (size_t i = 0; i < cs->keys.n; i++)
        if (cs->multi.v[i]) {
            cs->keys.v[kept] = cs->keys.v[i];
            cs->multi.v[kept++] = 1;
        }
    cs->keys.n = cs->multi.n = kept;
    return pack_census(ctx, buf, len);
}

static bool unpack_shared(void *ctx, const void *buf, size_t len)
{
    census *cs = ctx;
    dfs_vec_free(&cs->keys);
    dfs_vec_free(&cs->multi);
    cs->failed = false;
    return merge_census(ctx, buf, len);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Which units are on more than one rank: the exact state of the others is finished here. */
static bool unit_census(dfs_comm *c, dfs_run *run, void *obj, const dfs_analysis *an, bool ok)
{
    census cs = {0};
    cs.failed = !ok || !an->census(obj, run, &cs.keys);
    if (!cs.failed && cs.keys.n) {
        qsort(cs.keys.v, cs.keys.n, sizeof *cs.keys.v, cmp_u64);
        size_t m = 0;
        for (size_t i = 0; i < cs.keys.n; i++)
            if (!m || cs.keys.v[m - 1] != cs.keys.v[i])
                cs.keys.v[m++] = cs.keys.v[i];
        cs.keys.n = m;
        cs.failed = !dfs_vec_reserve(&cs.multi, m);
        for (size_t i = 0; !cs.failed && i < m; i++)
            cs.multi.v[cs.multi.n++] = 0;
    }
    static const dfs_reduce_ops rops = {merge_census, pack_census};
    bool tree = dfs_dist_reduce(c, &rops, &cs, NULL);
    bool shared = bcast_packed(c, pack_shared, unpack_shared, &cs);
    ok = ok && tree && shared && an->finish_local(obj, run, cs.keys.v, cs.keys.n);
    dfs_vec_free(&cs.keys);
    dfs_vec_free(&cs.multi);
    return ok;
}

/* ===== hash definitions of cut files ============================================================= */

typedef struct def_entry {
    uint32_t file, index;
    uint8_t kind;
    uint64_t hash;
    dfs_str str;
} def_entry;

typedef struct exchange_ctx {
    dfs_comm *comm;
    dfs_run *run;
    DFS_VEC(def_entry) defs;
    bool failed;
} exchange_ctx;

static bool pack_defs(void *ctx, void **buf, size_t *len)
{
    exchange_ctx *x = ctx;
    if (x->failed)
        return false;
    dfs_pack w;
    dfs_pack_init(&w, x->run);
    dfs_pack_u64(&w, x->defs.n);
    for (size_t i = 0; i < x->defs.n; i++) {
        const def_entry *d = &x->defs.v[i];
        dfs_pack_u64(&w, d->file);
        dfs_pack_u64(&w, d->index);
        dfs_pack_u64(&w, d->kind);
        dfs_pack_u64(&w, d->hash);
        dfs_pack_str(&w, d->str);
    }
    bool ok = dfs_pack_finish(&w, buf, len);
    dfs_pack_free(&w);
    return ok;
}

static bool merge_defs(void *ctx, const void *buf, size_t len)
{
    exchange_ctx *x = ctx;
    if (!len) {
        x->failed = true;
        return false;
    }
    dfs_unpack r;
    dfs_unpack_init(&r, x->run, buf, len);
    size_t n = dfs_unpack_count(&r, 5);
    for (size_t i = 0; i < n && !r.bad; i++) {
        def_entry d = {0};
        d.file = dfs_unpack_u32(&r);
        d.index = dfs_unpack_u32(&r);
        uint64_t kind = dfs_unpack_u64(&r);
        d.kind = (uint8_t)kind;
        d.hash = dfs_unpack_u64(&r);
        d.str = dfs_unpack_str(&r);
        if (kind > DFS_HASH_STRING || !dfs_vec_push(&x->defs, d))
            r.bad = true;
    }
    bool ok = dfs_unpack_ok(&r);
    dfs_unpack_free(&r);
    x->failed |= !ok;
    return ok;
}

static bool unpack_all_defs(void *ctx, const void *buf, size_t len)
{
    exchange_ctx *x = ctx;
    x->defs.n = 0;
    x->failed = false;
    return merge_defs(ctx, buf, len);
}

/* The definitions this rank found in its pieces of cut files. */
static bool collect_defs(exchange_ctx *x, const dfs_carry_file *files, size_t n)
{
    for (size_t f = 0; f < n; f++)
        for (uint32_t k = 0; k < files[f].count; k++) {
            if (!files[f].known[k])
                continue;
            for (uint8_t kind = 0; kind < 3; kind++) {
                const dfs_u64map *m = &files[f].carry[k][kind];
                for (size_t s = 0; s < m->cap; s++) {
                    def_entry d = {files[f].file, k, kind, m->keys[s], m->vals[s]};
                    if (m->used[s] && !dfs_vec_push(&x->defs, d))
                        return false;
                }
            }
        }
    return true;
}

/* Fills the pieces this rank did not scan with what the others found. */
static bool fill_defs(const exchange_ctx *x, dfs_carry_file *files, size_t n)
{
    for (size_t i = 0; i < x->defs.n; i++) {
        const def_entry *d = &x->defs.v[i];
        for (size_t f = 0; f < n; f++) {
            if (files[f].file != d->file || d->index >= files[f].count || files[f].known[d->index])
                continue;
            if (!dfs_u64map_put(&files[f].carry[d->index][d->kind], d->hash, d->str))
                return false;
        }
    }
    return true;
}

static bool exchange_defs(void *ctx, dfs_run *run, dfs_carry_file *files, size_t n, bool failed)
{
    exchange_ctx *x = ctx;
    x->run = run;
    x->failed = failed || !collect_defs(x, files, n);
    static const dfs_reduce_ops ops = {merge_defs, pack_defs};
    bool ok = dfs_dist_reduce(x->comm, &ops, x, NULL);
    ok = bcast_packed(x->comm, pack_defs, unpack_all_defs, x) && ok;
    ok = ok && fill_defs(x, files, n);
    dfs_vec_free(&x->defs);
    return ok;
}

/* ===== the combine =============================================================================== */

typedef struct combine_ctx {
    dfs_run *run;
    void *obj;
    const dfs_analysis *an;
    dfs_dist_pass *out;
} combine_ctx;

static void note_failure(dfs_dist_pass *out, const char *why, bool refused)
{
    if (!out->failed || !out->why[0]) {
        snprintf(out->why, sizeof out->why, "%s", why);
        out->refused = refused;
    }
    out->failed = true;
}

static void pack_stats(dfs_pack *w, const dfs_dist_pass *out)
{
    dfs_pack_u64(w, out->stats.n);
    for (size_t i = 0; i < out->stats.n; i++) {
        const dfs_dist_rank_stats *s = &out->stats.v[i];
        dfs_pack_u64(w, s->rank);
        dfs_pack_u64(w, s->pieces);
        dfs_pack_u64(w, s->bytes);
        dfs_pack_u64(w, s->events);
        dfs_pack_u64(w, s->sent);
        dfs_pack_f64(w, s->read_s);
        dfs_pack_f64(w, s->combine_s);
    }
}

static void unpack_stats(dfs_unpack *r, dfs_dist_pass *out)
{
    size_t n = dfs_unpack_count(r, 7);
    for (size_t i = 0; i < n && !r->bad; i++) {
        dfs_dist_rank_stats s = {0}; /* one field after the other: initialisers are not sequenced */
        s.rank = dfs_unpack_u32(r);
        s.pieces = dfs_unpack_u64(r);
        s.bytes = dfs_unpack_u64(r);
        s.events = dfs_unpack_u64(r);
        s.sent = dfs_unpack_u64(r);
        s.read_s = dfs_unpack_f64(r);
        s.combine_s = dfs_unpack_f64(r);
        if (!dfs_vec_push(&out->stats, s))
            r->bad = true;
    }
}

/* This rank's message: its failure if any, the statistics, then its pieces and state (with
 * everything its children sent merged in). */
static bool pack_combined(void *ctx, void **buf, size_t *len)
{
    combine_ctx *x = ctx;
    dfs_pack w;
    dfs_pack_init(&w, x->run);
    dfs_pack_bool(&w, x->out->failed);
    dfs_pack_bool(&w, x->out->refused);
    dfs_pack_cstr(&w, x->out->why);
    if (!x->out->failed) {
        dfs_pack_results(&w, x->run);
        if (!x->an->pack(x->obj, x->run, &w))
            w.failed = true;
    }
    bool ok = dfs_pack_finish(&w, buf, len);
    dfs_pack_free(&w);
    return ok; /* a failure travels as a valid message that says so */
}

static bool merge_combined(void *ctx, const void *buf, size_t len)
{
    combine_ctx *x = ctx;
    if (!len) {
        note_failure(x->out, "a rank could not send its results (out of memory)", false);
        return false;
    }
    dfs_unpack r;
    dfs_unpack_init(&r, x->run, buf, len);
    bool failed = dfs_unpack_bool(&r), refused = dfs_unpack_bool(&r);
    dfs_arena tmp;
    dfs_arena_init(&tmp, 1024);
    const char *why = dfs_unpack_cstr(&r, &tmp);
    if (failed)
        note_failure(x->out, why && *why ? why : "a rank failed", refused);
    else if (!x->out->failed && (!dfs_unpack_results(&r, x->run) || !x->an->merge(x->obj, x->run, &r)))
        r.bad = true;
    bool ok = !r.bad && (failed || x->out->failed || dfs_unpack_ok(&r));
    if (!ok)
        note_failure(x->out, "a rank's results could not be merged (damaged message or out of memory)", false);
    dfs_arena_free(&tmp);
    dfs_unpack_free(&r);
    return ok && !failed;
}

static int cmp_stats(const void *a, const void *b)
{
    const dfs_dist_rank_stats *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

void dfs_dist_pass_free(dfs_dist_pass *p)
{
    dfs_vec_free(&p->stats);
}

static bool has_cut_input(const dfs_partition *part)
{
    for (size_t i = 0; i < part->n; i++)
        if (part->pieces[i].count > 1)
            return true;
    return false;
}

static void my_stats(const dfs_run *run, int rank, dfs_dist_rank_stats *s)
{
    memset(s, 0, sizeof *s);
    s->rank = (uint32_t)rank;
    if (!run)
        return;
    s->pieces = run->nshare;
    for (size_t i = 0; i < run->results.n; i++)
        for (size_t k = 0; k < run->results.v[i].streams.n; k++) {
            s->bytes += run->results.v[i].streams.v[k]->bytes_in;
            s->events += run->results.v[i].streams.v[k]->records;
        }
}

/* This rank's share read with the consumer; false on a local failure (the carry exchange, a
 * collective, happened either way). */
static bool read_share(dfs_comm *c, dfs_run *run, const dfs_partition *part, dfs_consumer *consumer,
                       exchange_ctx *x)
{
    dfs_piece *mine = NULL;
    size_t n = dfs_partition_share(part, dfs_comm_rank(c), &mine);
    dfs_share_hooks hooks = {has_cut_input(part) ? exchange_defs : NULL, x};
    bool ok = run && consumer && n != SIZE_MAX && dfs_run_set_share(run, mine, n, &hooks);
    free(mine);
    if (!ok) {
        if (hooks.exchange) /* dfs_run_read would have taken part: do it for it */
            exchange_defs(x, run, NULL, 0, true);
        return false;
    }
    dfs_consumer *cs[] = {consumer};
    return dfs_run_read(run, cs, 1) == DFS_EXIT_OK;
}

/* Has the input voided the analysis here (analysis.h: failure)? Then that is this rank's failure. */
static bool voided(void *obj, const dfs_analysis *an, int rank, dfs_dist_pass *out)
{
    const char *why = obj && an->failure ? an->failure(obj) : NULL;
    if (why) {
        out->refused = true;
        snprintf(out->why, sizeof out->why, "rank %d: %s", rank, why);
    }
    return why != NULL;
}

bool dfs_dist_read(dfs_comm *c, dfs_run *run, const dfs_partition *part, dfs_consumer *consumer, void *obj,
                   const dfs_analysis *an, const void *opt, dfs_dist_pass *out)
{
    memset(out, 0, sizeof *out);
    int rank = dfs_comm_rank(c);
    exchange_ctx x = {.comm = c};
    double t0 = now_s();
    bool ok = read_share(c, run, part, consumer, &x);
    my_stats(run, rank, &out->mine);
    out->own_results = run ? run->results.n : 0;
    out->mine.read_s = now_s() - t0;
    if (!ok)
        snprintf(out->why, sizeof out->why, "rank %d: out of memory while reading its share", rank);
    else if (voided(obj, an, rank, out))
        ok = false;
    double t1 = now_s();
    if (ok && an->fold_share && rank != 0) {
        dfs_run_fold_results(run); /* the facts of its own files; the verdict is rank 0's to make */
        if (obj)
            an->fold_share(obj);
    }
    if (dfs_analysis_takes_census(an, opt) && !unit_census(c, run, obj, an, ok) && ok) {
        ok = false;
        if (!voided(obj, an, rank, out)) /* finish_local found it */
            snprintf(out->why, sizeof out->why, "rank %d: the unit census failed (out of memory)", rank);
    }
    out->failed = !ok;
    combine_ctx cx = {run, obj, an, out};
    static const dfs_reduce_ops rops = {merge_combined, pack_combined};
    bool tree = dfs_dist_reduce(c, &rops, &cx, &out->mine.sent);
    out->mine.combine_s = now_s() - t1;
    return tree && !out->failed;
}

/* ===== statistics ================================================================================ */

typedef struct stats_ctx {
    dfs_dist_pass *out;
    bool failed;
} stats_ctx;

static bool pack_all_stats(void *ctx, void **buf, size_t *len)
{
    stats_ctx *x = ctx;
    dfs_pack w;
    dfs_pack_init(&w, NULL);
    pack_stats(&w, x->out);
    bool ok = dfs_pack_finish(&w, buf, len);
    dfs_pack_free(&w);
    return ok;
}

static bool merge_all_stats(void *ctx, const void *buf, size_t len)
{
    stats_ctx *x = ctx;
    if (!len)
        return false;
    dfs_unpack r;
    dfs_unpack_init(&r, NULL, buf, len);
    unpack_stats(&r, x->out);
    bool ok = dfs_unpack_ok(&r);
    dfs_unpack_free(&r);
    return ok;
}

bool dfs_dist_gather_stats(dfs_comm *c, dfs_dist_pass *p)
{
    p->stats.n = 0;
    if (!dfs_vec_push(&p->stats, p->mine))
        return false;
    stats_ctx x = {p, false};
    static const dfs_reduce_ops ops = {merge_all_stats, pack_all_stats};
    bool ok = dfs_dist_reduce(c, &ops, &x, NULL);
    if (p->stats.n)
        qsort(p->stats.v, p->stats.n, sizeof *p->stats.v, cmp_stats);
    return ok;
}
