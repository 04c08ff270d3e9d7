/* run.c - the public dfs_run API: options, inputs, strings, files, problems and resolution.
 * Reading itself is in pipeline.c; dfs_run_fold() gathers what the streams learnt. */
#include "read/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dups.h"
#include "util/sort128.h"

void dfs_options_init(dfs_options *o)
{
    memset(o, 0, sizeof *o);
    o->jobs = 0;
    o->max_examples = 5;
    o->chunk_bytes = 0; /* automatic */
    o->gzip_segment_bytes = UINT64_C(64) << 20;
    o->max_record = UINT64_C(64) << 20;
}

dfs_run *dfs_run_new(const dfs_options *opt)
{
    dfs_run *run = calloc(1, sizeof *run);
    if (!run)
        return NULL;
    if (opt)
        run->opt = *opt;
    else
        dfs_options_init(&run->opt);
    if (run->opt.chunk_bytes && run->opt.chunk_bytes < 4096)
        run->opt.chunk_bytes = 4096;
    if (run->opt.gzip_segment_bytes < 64)
        run->opt.gzip_segment_bytes = 64;
    if (run->opt.max_record < 4096)
        run->opt.max_record = 4096;
    run->strs = dfs_strtab_new();
    if (!run->strs) {
        free(run);
        return NULL;
    }
    dfs_diag_init(&run->diag, run->opt.max_examples);
    for (int k = 0; k < 3; k++)
        dfs_u64map_init(&run->global_defs[k]);
    dfs_keyset_init(&run->seen_files, 2 * sizeof(uint64_t));
    dfs_arena_init(&run->texts, 4096);
    return run;
}

void dfs_run_free(dfs_run *run)
{
    if (!run)
        return;
    for (size_t i = 0; i < run->inputs.n; i++) {
        dfs_input *in = &run->inputs.v[i];
        free(in->path);
        for (int k = 0; k < 3; k++)
            dfs_u64map_free(&in->defs.first[k]);
        dfs_vec_free(&in->defs.defs);
        dfs_vec_free(&in->names);
        dfs_vec_free(&in->meta);
    }
    dfs_vec_free(&run->inputs);
    dfs_keyset_free(&run->seen_files);
    for (int k = 0; k < 3; k++)
        dfs_u64map_free(&run->global_defs[k]);
    dfs_diag_free(&run->diag);
    for (size_t i = 0; i < run->results.n; i++)
        dfs_piece_result_free(&run->results.v[i]);
    dfs_vec_free(&run->results);
    free(run->share);
    dfs_arena_free(&run->texts);
    dfs_strtab_free(run->strs);
    free(run);
}

dfs_str dfs_run_intern(dfs_run *run, const char *s, size_t n)
{
    return n ? dfs_strtab_intern(run->strs, s, n) : 0;
}

const char *dfs_run_keep_text(dfs_run *run, const char *s, size_t n)
{
    return dfs_arena_strdup(&run->texts, s, n);
}

dfs_status dfs_run_add_path(dfs_run *run, const char *path)
{
    if (!path || !*path) {
        snprintf(run->error, sizeof run->error, "empty path");
        return DFS_ERR_USAGE;
    }
    if (run->read_done) {
        snprintf(run->error, sizeof run->error, "inputs cannot be added after reading");
        return DFS_ERR_USAGE;
    }
    return dfs_inputs_add(run, path);
}

const char *dfs_run_error(const dfs_run *run) { return run->error; }
size_t dfs_run_file_count(const dfs_run *run) { return run->inputs.n; }

const dfs_file_info *dfs_run_file(const dfs_run *run, size_t index)
{
    return index < run->inputs.n ? &run->inputs.v[index].info : NULL;
}

const char *dfs_str_get(const dfs_run *run, dfs_str s, size_t *len)
{
    return dfs_strtab_get(run->strs, s, len);
}

int dfs_str_cmp(const dfs_run *run, dfs_str a, dfs_str b)
{
    if (a == b)
        return 0;
    size_t la, lb;
    const char *sa = dfs_strtab_get(run->strs, a, &la);
    const char *sb = dfs_strtab_get(run->strs, b, &lb);
    int c = memcmp(sa, sb, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

dfs_str dfs_str_find(const dfs_run *run, const char *s, size_t len)
{
    return dfs_strtab_find(run->strs, s, len);
}

uint64_t dfs_run_problem_count(const dfs_run *run, dfs_problem p)
{
    return p < DFS_PROB__COUNT ? run->diag.counts[p] : 0;
}

size_t dfs_run_problem_examples(const dfs_run *run, dfs_problem p, const dfs_example **out)
{
    if (p >= DFS_PROB__COUNT) {
        *out = NULL;
        return 0;
    }
    *out = run->diag.examples[p].v;
    return run->diag.examples[p].n;
}

uint64_t dfs_run_damage_total(const dfs_run *run) { return dfs_diag_damage(&run->diag); }

/* ---- resolution ------------------------------------------------------------------------------ */

static int compare_defs(const void *pa, const void *pb)
{
    const dfs_hashdef *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    return (a->offset > b->offset) - (a->offset < b->offset);
}

/* Sorts definitions that are in file order, as a fold leaves them (stream by stream, each in
 * order), by (hash, kind) with a stable radix sort, which keeps each one's in file order: at the
 * end of a run, serially, a comparison sort of a few hundred thousand definitions cost more than
 * the rest of the fold. false (nothing changed) for definitions out of order or out of memory. */
static bool radix_sort_definitions(dfs_defidx *d)
{
    size_t n = d->defs.n;
    if (n > UINT32_MAX)
        return false;
    for (size_t i = 1; i < n; i++)
        if (d->defs.v[i].offset < d->defs.v[i - 1].offset)
            return false;
    dfs_key128 *keys = malloc(2 * n * sizeof *keys);
    dfs_hashdef *sorted = malloc(n * sizeof *sorted);
    if (!keys || !sorted) {
        free(keys);
        free(sorted);
        return false;
    }
    for (size_t i = 0; i < n; i++) /* the index rides in the low 4 bytes, not compared */
        keys[i] = (dfs_key128){d->defs.v[i].hash, (uint64_t)d->defs.v[i].kind << 32 | i};
    dfs_sort128(keys, keys + n, n, 4);
    for (size_t i = 0; i < n; i++)
        sorted[i] = d->defs.v[(uint32_t)keys[i].lo];
    memcpy(d->defs.v, sorted, n * sizeof *sorted);
    free(keys);
    free(sorted);
    return true;
}

/* Sorts a file's definitions, each (kind, hash)'s in file order, and indexes the first definition
 * of each. */
static void index_definitions(dfs_defidx *d)
{
    if (d->defs.n == 0)
        return;
    if (!radix_sort_definitions(d))
        qsort(d->defs.v, d->defs.n, sizeof *d->defs.v, compare_defs);
    for (size_t i = 0; i < d->defs.n; i++) {
        const dfs_hashdef *h = &d->defs.v[i];
        if (i == 0 || h->kind != d->defs.v[i - 1].kind || h->hash != d->defs.v[i - 1].hash)
            dfs_u64map_put(&d->first[h->kind], h->hash, (uint32_t)i);
    }
}

dfs_str dfs_run_resolve_hash(const dfs_run *run, dfs_hash_kind kind, uint32_t file,
                             uint64_t offset, uint64_t hash)
{
    if ((unsigned)kind > DFS_HASH_STRING)
        return 0;
    uint32_t at;
    if (file < run->inputs.n) {
        const dfs_defidx *d = &run->inputs.v[file].defs;
        if (dfs_u64map_get(&d->first[kind], hash, &at)) {
            /* the nearest definition before offset; the first one if all follow it */
            dfs_str best = d->defs.v[at].str;
            for (size_t i = at; i < d->defs.n && d->defs.v[i].kind == kind && d->defs.v[i].hash == hash;
                 i++) {
                if (d->defs.v[i].offset > offset)
                    break;
                best = d->defs.v[i].str;
            }
            return best;
        }
    }
    return dfs_u64map_get(&run->global_defs[kind], hash, &at) ? (dfs_str)at : 0;
}

static dfs_str find_name(const dfs_run *run, uint32_t file, int64_t pid, int64_t tid, bool thread)
{
    if (file >= run->inputs.n)
        return 0;
    const dfs_input *in = &run->inputs.v[file];
    dfs_str found = 0;
    for (size_t i = 0; i < in->names.n; i++) {
        const dfs_namedef *n = &in->names.v[i];
        if (n->is_thread == thread && n->pid == pid && (!thread || n->tid == tid))
            found = n->str; /* the last one wins, as in trace viewers */
    }
    return found;
}

dfs_str dfs_run_process_name(const dfs_run *run, uint32_t file, int64_t pid)
{
    return find_name(run, file, pid, 0, false);
}

dfs_str dfs_run_thread_name(const dfs_run *run, uint32_t file, int64_t pid, int64_t tid)
{
    return find_name(run, file, pid, tid, true);
}

/* ---- folding streams into files -------------------------------------------------------------- */

static void format_phase_letters(dfs_file_info *f, const uint64_t *counts)
{
    size_t used = 0;
    f->phase_letters[0] = '\0';
    for (int c = 0; c < 128 && used < sizeof f->phase_letters; c++) {
        if (!counts[c])
            continue;
        int n = snprintf(f->phase_letters + used, sizeof f->phase_letters - used, "%s%c:%llu",
                         used ? " " : "", c, (unsigned long long)counts[c]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* What only the whole file can tell when it was read in pieces: a closing ']' missing from the
 * file (each piece saw only part of the framing) and time going back across a piece boundary. */
static void fold_boundaries(dfs_diag *fd, uint32_t file, dfs_stream *const *streams, size_t n)
{
    uint64_t line_base = 0, end = 0; /* end: the stream offset past the last piece */
    bool opened = false, closed = false, have_last = false;
    int64_t last = 0; /* the last complete-event time of the pieces so far */
    for (size_t i = 0; i < n; i++) {
        const dfs_stream *cur = streams[i];
        end += cur->bytes_in;
        opened |= cur->saw_open;
        closed |= cur->saw_close;
        if (have_last && cur->have_first_ts && cur->first_ts < last)
            dfs_diag_add(fd, DFS_PROB_TS_REGRESSION, file,
                         cur->first_ts_line ? line_base + cur->first_ts_line : 0, cur->first_ts_offset,
                         "ts goes back %lld us", (long long)((last - cur->first_ts) / 1000));
        if (cur->have_last_ts) {
            last = cur->last_ts;
            have_last = true;
        }
        line_base += cur->lines;
    }
    bool counted_by_last = streams[n - 1]->saw_open && !streams[n - 1]->saw_close;
    if (n > 1 && opened && !closed && !counted_by_last)
        dfs_diag_add(fd, DFS_PROB_MISSING_CLOSE, file, 0, end, "no closing ']' before the end");
}

/* The file's span on its clock; a clock that takes a time out of int64 leaves no span. */
static void set_span(dfs_file_info *f, int64_t min, int64_t max)
{
    f->span_start_ns = dfs_file_abs_ns(f, min);
    f->span_end_ns = dfs_file_abs_ns(f, max);
    f->have_span = f->span_start_ns <= f->span_end_ns;
}

void dfs_run_fold_file(dfs_run *run, uint32_t file, dfs_stream *const *streams, size_t n)
{
    dfs_input *in = &run->inputs.v[file];
    dfs_file_info *f = &in->info;
    dfs_diag fd;
    dfs_diag_init(&fd, run->opt.max_examples);
    uint64_t written[128] = {0};
    uint64_t line_base = 0;
    bool dialect_known = false, have_span = false;
    int64_t span_min = 0, span_max = 0;
    for (size_t i = 0; i < n; i++) {
        dfs_stream *s = streams[i];
        f->records += s->records;
        f->bytes += s->bytes_in;
        f->bad_records += s->bad_records;
        f->recovered += s->recovered;
        for (int p = 0; p < DFS_PHASE_COUNT; p++)
            f->phase_counts[p] += s->phase_counts[p];
        for (int c = 0; c < 128; c++)
            written[c] += s->ph_written[c];
        if (s->dialect != DFS_DIALECT_UNKNOWN && !dialect_known) {
            f->dialect = s->dialect; /* the parser's verdict over the sniffer's guess */
            dialect_known = true;
        }
        if (s->has_clock_offset)
            f->clock_offset_ns = s->clock_offset_ns;
        if (s->scale_num != 1 || s->scale_den != 1) {
            f->clock_scale_num = s->scale_num;
            f->clock_scale_den = s->scale_den;
        }
        if (i == 0) /* later pieces lack the records that set the clock */
            f->relative_time = s->relative_time;
        if (s->have_span && (!have_span || s->span_min < span_min))
            span_min = s->span_min;
        if (s->have_span && (!have_span || s->span_max > span_max))
            span_max = s->span_max;
        have_span |= s->have_span;
        dfs_diag_merge(&fd, &s->diag, line_base);
        line_base += s->lines;
        for (size_t d = 0; d < s->defs.n; d++)
            dfs_vec_push(&in->defs.defs, s->defs.v[d]);
        for (size_t d = 0; d < s->names.n; d++)
            dfs_vec_push(&in->names, s->names.v[d]);
        for (size_t d = 0; d < s->meta.n; d++)
            dfs_vec_push(&in->meta, s->meta.v[d]);
    }
    if (have_span) /* the clock is known now, at the end of the file */
        set_span(f, span_min, span_max);
    if (n)
        fold_boundaries(&fd, file, streams, n);
    if (n > 1) /* gzip segments: their duplicate check (whole files and ranges were judged as read) */
        dfs_dups_judge(&fd, file, streams, n);
    format_phase_letters(f, written);
    f->problems = dfs_diag_damage(&fd);
    f->incomplete = fd.counts[DFS_PROB_INCOMPLETE_FILE] || fd.counts[DFS_PROB_GZIP_TRUNCATED] ||
                    fd.counts[DFS_PROB_TRUNCATED_CONTAINER] || fd.counts[DFS_PROB_TORN_RECORD];
    dfs_diag_merge(&run->diag, &fd, 0);
    dfs_diag_free(&fd);
    /* Definitions in file order feed the run-wide map: the first definition of a hash wins. */
    for (size_t d = 0; d < in->defs.defs.n; d++) {
        const dfs_hashdef *h = &in->defs.defs.v[d];
        uint32_t existing;
        if (!dfs_u64map_get(&run->global_defs[h->kind], h->hash, &existing))
            dfs_u64map_put(&run->global_defs[h->kind], h->hash, h->str);
    }
    index_definitions(&in->defs);
}

void dfs_run_conclude_input(dfs_run *run, uint32_t file, const char *why, dfs_stream *const *streams, size_t n,
                            bool read)
{
    dfs_input *in = &run->inputs.v[file];
    if (in->info.unreadable)
        dfs_diag_add(&run->diag, DFS_PROB_UNREADABLE, file, 0, 0, "%s", in->info.error);
    else if (in->info.format == DFS_FMT_NOT_A_TRACE)
        dfs_diag_add(&run->diag, DFS_PROB_NOT_A_TRACE, file, 0, 0, "%s", why ? why : "not a trace");
    dfs_run_fold_file(run, file, streams, n);
    if (read && in->info.gzip) {
        in->info.gzip_members = 0;
        for (size_t k = 0; k < n; k++)
            in->info.gzip_members += streams[k]->gzip_members;
    }
}

int dfs_run_verdict(dfs_run *run, bool failed)
{
    /* a string the full (or out of memory) table could not keep would read as "": fail instead */
    if (failed || dfs_strtab_lost(run->strs))
        return DFS_EXIT_OUTPUT;
    bool unreadable = run->diag.counts[DFS_PROB_UNREADABLE] > 0;
    for (size_t i = 0; i < run->inputs.n; i++)
        unreadable |= run->inputs.v[i].info.unreadable;
    if (unreadable)
        return DFS_EXIT_USAGE;
    if (dfs_diag_damage(&run->diag))
        return run->opt.strict ? DFS_EXIT_STRICT : DFS_EXIT_DAMAGED;
    return DFS_EXIT_OK;
}

dfs_str dfs_run_file_meta(const dfs_run *run, uint32_t file, const char *key)
{
    if (file >= run->inputs.n)
        return 0;
    const dfs_input *in = &run->inputs.v[file];
    for (size_t i = 0; i < in->meta.n; i++) {
        size_t len;
        const char *k = dfs_strtab_get(run->strs, in->meta.v[i].key, &len);
        if (strlen(key) == len && memcmp(k, key, len) == 0)
            return in->meta.v[i].raw_json;
    }
    return 0;
}
