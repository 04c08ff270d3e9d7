/* runpack.c - piece results on the wire (runpack.h). */
#include "dist/runpack.h"

#include <stdlib.h>
#include <string.h>

/* ---- problems: counts of the kinds that occurred, and their examples ---------------------------- */

static void pack_diag(dfs_pack *w, const dfs_diag *d)
{
    size_t kinds = 0;
    for (int p = 0; p < DFS_PROB__COUNT; p++)
        kinds += d->counts[p] || d->examples[p].n;
    dfs_pack_u64(w, kinds);
    for (int p = 0; p < DFS_PROB__COUNT; p++) {
        if (!d->counts[p] && !d->examples[p].n)
            continue;
        dfs_pack_u64(w, (uint64_t)p);
        dfs_pack_u64(w, d->counts[p]);
        dfs_pack_u64(w, d->examples[p].n);
        for (size_t i = 0; i < d->examples[p].n; i++) {
            const dfs_example *ex = &d->examples[p].v[i];
            dfs_pack_u64(w, ex->file);
            dfs_pack_u64(w, ex->line);
            dfs_pack_u64(w, ex->offset);
            dfs_pack_text(w, ex->detail, strnlen(ex->detail, sizeof ex->detail));
        }
    }
}

static void unpack_diag(dfs_unpack *r, dfs_diag *d)
{
    size_t kinds = dfs_unpack_count(r, 3);
    for (size_t k = 0; k < kinds && !r->bad; k++) {
        uint64_t p = dfs_unpack_u64(r);
        if (p >= DFS_PROB__COUNT) {
            r->bad = true;
            return;
        }
        d->counts[p] += dfs_unpack_u64(r);
        size_t n = dfs_unpack_count(r, 4);
        for (size_t i = 0; i < n && !r->bad; i++) {
            dfs_example ex = {0}; /* one field after the other: initialisers are not sequenced */
            ex.file = dfs_unpack_u32(r);
            ex.line = dfs_unpack_u64(r);
            ex.offset = dfs_unpack_u64(r);
            size_t len;
            const char *t = dfs_unpack_text(r, &len);
            if (len >= sizeof ex.detail)
                len = sizeof ex.detail - 1;
            memcpy(ex.detail, t, len);
            ex.detail[len] = '\0';
            /* kept in order, at most max_examples: the sender's list already is both */
            if (i < d->max_examples && !dfs_vec_push(&d->examples[p], ex))
                r->bad = true;
        }
    }
}

/* ---- streams --------------------------------------------------------------------------------- */

static void pack_phase_letters(dfs_pack *w, const uint64_t *counts)
{
    size_t used = 0;
    for (int c = 0; c < 128; c++)
        used += counts[c] != 0;
    dfs_pack_u64(w, used);
    for (int c = 0; c < 128; c++)
        if (counts[c]) {
            dfs_pack_u64(w, (uint64_t)c);
            dfs_pack_u64(w, counts[c]);
        }
}

static void unpack_phase_letters(dfs_unpack *r, uint64_t *counts)
{
    size_t used = dfs_unpack_count(r, 2);
    for (size_t i = 0; i < used && !r->bad; i++) {
        uint64_t c = dfs_unpack_u64(r);
        uint64_t n = dfs_unpack_u64(r);
        if (c >= 128)
            r->bad = true;
        else
            counts[c] += n;
    }
}

static void pack_definitions(dfs_pack *w, const dfs_stream *s)
{
    dfs_pack_u64(w, s->defs.n);
    for (size_t i = 0; i < s->defs.n; i++) {
        dfs_pack_u64(w, s->defs.v[i].hash);
        dfs_pack_u64(w, s->defs.v[i].offset);
        dfs_pack_str(w, s->defs.v[i].str);
        dfs_pack_u64(w, s->defs.v[i].kind);
    }
    dfs_pack_u64(w, s->names.n);
    for (size_t i = 0; i < s->names.n; i++) {
        dfs_pack_i64(w, s->names.v[i].pid);
        dfs_pack_i64(w, s->names.v[i].tid);
        dfs_pack_str(w, s->names.v[i].str);
        dfs_pack_bool(w, s->names.v[i].is_thread);
    }
    dfs_pack_u64(w, s->meta.n);
    for (size_t i = 0; i < s->meta.n; i++) {
        dfs_pack_str(w, s->meta.v[i].key);
        dfs_pack_str(w, s->meta.v[i].raw_json);
    }
}

static void unpack_definitions(dfs_unpack *r, dfs_stream *s)
{
    size_t n = dfs_unpack_count(r, 4);
    for (size_t i = 0; i < n && !r->bad; i++) {
        dfs_hashdef d = {0};
        d.hash = dfs_unpack_u64(r);
        d.offset = dfs_unpack_u64(r);
        d.str = dfs_unpack_str(r);
        uint64_t kind = dfs_unpack_u64(r);
        d.kind = (uint8_t)kind;
        if (kind > DFS_HASH_STRING || !dfs_vec_push(&s->defs, d))
            r->bad = true;
    }
    n = dfs_unpack_count(r, 4);
    for (size_t i = 0; i < n && !r->bad; i++) {
        dfs_namedef d = {0};
        d.pid = dfs_unpack_i64(r);
        d.tid = dfs_unpack_i64(r);
        d.str = dfs_unpack_str(r);
        d.is_thread = dfs_unpack_bool(r);
        if (!dfs_vec_push(&s->names, d))
            r->bad = true;
    }
    n = dfs_unpack_count(r, 2);
    for (size_t i = 0; i < n && !r->bad; i++) {
        dfs_filemeta m = {0};
        m.key = dfs_unpack_str(r);
        m.raw_json = dfs_unpack_str(r);
        if (!dfs_vec_push(&s->meta, m))
            r->bad = true;
    }
}

void dfs_pack_stream(dfs_pack *w, const dfs_stream *s)
{
    dfs_pack_u64(w, s->file);
    dfs_pack_u64(w, s->chunk);
    dfs_pack_u64(w, s->lines);
    pack_diag(w, &s->diag);
    dfs_pack_u64(w, (uint64_t)s->dialect);
    dfs_pack_u64(w, s->records);
    dfs_pack_u64(w, s->bad_records);
    dfs_pack_u64(w, s->recovered);
    for (int p = 0; p < DFS_PHASE_COUNT; p++)
        dfs_pack_u64(w, s->phase_counts[p]);
    pack_phase_letters(w, s->ph_written);
    dfs_pack_i64(w, s->last_ts);
    dfs_pack_bool(w, s->have_last_ts);
    dfs_pack_bool(w, s->saw_close);
    dfs_pack_bool(w, s->saw_open);
    dfs_pack_bool(w, s->has_clock_offset);
    dfs_pack_i64(w, s->clock_offset_ns);
    dfs_pack_i64(w, s->scale_num);
    dfs_pack_i64(w, s->scale_den);
    dfs_pack_bool(w, s->relative_time);
    pack_definitions(w, s);
    dfs_pack_u64(w, s->unresolved_refs);
    dfs_pack_i64(w, s->first_ts);
    dfs_pack_u64(w, s->first_ts_offset);
    dfs_pack_u64(w, s->first_ts_line);
    dfs_pack_bool(w, s->have_first_ts);
    dfs_pack_i64(w, s->span_min);
    dfs_pack_i64(w, s->span_max);
    dfs_pack_bool(w, s->have_span);
    dfs_pack_u64(w, s->gzip_members);
    dfs_pack_u64(w, s->bytes_in);
}

static int32_t i32_of(dfs_unpack *r)
{
    int64_t v = dfs_unpack_i64(r);
    if (v < INT32_MIN || v > INT32_MAX) {
        r->bad = true;
        return 1;
    }
    return (int32_t)v;
}

dfs_stream *dfs_unpack_stream(dfs_unpack *r, dfs_run *run)
{
    dfs_stream *s = malloc(sizeof *s);
    if (!s) {
        r->bad = true;
        return NULL;
    }
    uint32_t file = dfs_unpack_u32(r), chunk = dfs_unpack_u32(r);
    dfs_stream_init(s, file, chunk, run->opt.max_examples);
    s->lines = dfs_unpack_u64(r);
    unpack_diag(r, &s->diag);
    uint64_t dialect = dfs_unpack_u64(r);
    s->dialect = dialect < DFS_DIALECT_COUNT ? (dfs_dialect)dialect : DFS_DIALECT_UNKNOWN;
    s->records = dfs_unpack_u64(r);
    s->bad_records = dfs_unpack_u64(r);
    s->recovered = dfs_unpack_u64(r);
    for (int p = 0; p < DFS_PHASE_COUNT; p++)
        s->phase_counts[p] = dfs_unpack_u64(r);
    unpack_phase_letters(r, s->ph_written);
    s->last_ts = dfs_unpack_i64(r);
    s->have_last_ts = dfs_unpack_bool(r);
    s->saw_close = dfs_unpack_bool(r);
    s->saw_open = dfs_unpack_bool(r);
    s->has_clock_offset = dfs_unpack_bool(r);
    s->clock_offset_ns = dfs_unpack_i64(r);
    s->scale_num = i32_of(r);
    s->scale_den = i32_of(r);
    s->relative_time = dfs_unpack_bool(r);
    unpack_definitions(r, s);
    s->unresolved_refs = dfs_unpack_u64(r);
    s->first_ts = dfs_unpack_i64(r);
    s->first_ts_offset = dfs_unpack_u64(r);
    s->first_ts_line = dfs_unpack_u64(r);
    s->have_first_ts = dfs_unpack_bool(r);
    s->span_min = dfs_unpack_i64(r);
    s->span_max = dfs_unpack_i64(r);
    s->have_span = dfs_unpack_bool(r);
    s->gzip_members = dfs_unpack_u32(r);
    s->bytes_in = dfs_unpack_u64(r);
    if (r->bad || file >= run->inputs.n) {
        r->bad = true;
        dfs_stream_free(s);
        free(s);
        return NULL;
    }
    return s;
}

/* ---- piece results --------------------------------------------------------------------------- */

static void pack_result(dfs_pack *w, const dfs_piece_result *res)
{
    const dfs_piece *p = &res->piece;
    dfs_pack_u64(w, p->file);
    dfs_pack_u64(w, p->index);
    dfs_pack_u64(w, p->count);
    dfs_pack_u64(w, p->start);
    dfs_pack_u64(w, p->stop);
    dfs_pack_u64(w, res->size);
    dfs_pack_u64(w, (uint64_t)res->format);
    dfs_pack_u64(w, (uint64_t)res->dialect);
    dfs_pack_bool(w, res->gzip);
    dfs_pack_bool(w, res->unreadable);
    dfs_pack_cstr(w, res->error);
    dfs_pack_cstr(w, res->why);
    dfs_pack_u64(w, res->streams.n);
    for (size_t s = 0; s < res->streams.n; s++)
        dfs_pack_stream(w, res->streams.v[s]);
}

void dfs_pack_results(dfs_pack *w, const dfs_run *run)
{
    dfs_pack_u64(w, run->results.n);
    for (size_t i = 0; i < run->results.n; i++)
        pack_result(w, &run->results.v[i]);
}

/* A text of the sender's (error, reason) kept by the run. */
static const char *kept_text(dfs_unpack *r, dfs_run *run)
{
    if (!dfs_unpack_bool(r))
        return NULL;
    size_t n;
    const char *t = dfs_unpack_text(r, &n);
    const char *kept = r->bad ? NULL : dfs_run_keep_text(run, t, n);
    if (!kept)
        r->bad = true;
    return kept;
}

static bool unpack_result(dfs_unpack *r, dfs_run *run, dfs_piece_result *res)
{
    memset(res, 0, sizeof *res);
    dfs_piece *p = &res->piece;
    p->file = dfs_unpack_u32(r);
    p->index = dfs_unpack_u32(r);
    p->count = dfs_unpack_u32(r);
    p->start = dfs_unpack_u64(r);
    p->stop = dfs_unpack_u64(r);
    res->size = dfs_unpack_u64(r);
    uint64_t format = dfs_unpack_u64(r), dialect = dfs_unpack_u64(r);
    res->format = format <= DFS_FMT_DASF_TEXT ? (dfs_format)format : DFS_FMT_UNKNOWN;
    res->dialect = dialect < DFS_DIALECT_COUNT ? (dfs_dialect)dialect : DFS_DIALECT_UNKNOWN;
    res->gzip = dfs_unpack_bool(r);
    res->unreadable = dfs_unpack_bool(r);
    res->error = kept_text(r, run);
    res->why = kept_text(r, run);
    size_t n = dfs_unpack_count(r, 8);
    for (size_t s = 0; s < n && !r->bad; s++) {
        dfs_stream *st = dfs_unpack_stream(r, run);
        if (st && !dfs_vec_push(&res->streams, st)) {
            dfs_stream_free(st);
            free(st);
            r->bad = true;
        }
    }
    if (p->file >= run->inputs.n || p->index >= p->count)
        r->bad = true;
    return !r->bad;
}

bool dfs_unpack_results(dfs_unpack *r, dfs_run *run)
{
    size_t n = dfs_unpack_count(r, 8);
    for (size_t i = 0; i < n && !r->bad; i++) {
        dfs_piece_result res;
        bool ok = unpack_result(r, run, &res);
        if (!ok || !dfs_vec_push(&run->results, res)) {
            dfs_piece_result_free(&res);
            r->bad = true;
        }
    }
    return !r->bad;
}
