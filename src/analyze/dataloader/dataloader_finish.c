/* dataloader_finish.c - dfs_dl_finish: from what the workers kept to the published result. Labels
 * (node ids and device names), framework events (X records and B/E pairs on the absolute clock),
 * the three row sets with their mappings, de-duplication, the system-metric files and samples;
 * then the analyses and windows of dataloader_outliers.c.
 *
 * Invariants: the steps run once, in dfs_dl_finish's order (a failed finish is not retried half
 * built); events and samples end in a total order by time, file and offset, and rows in start
 * order, so nothing depends on -j; a label is interned once, and its index is its identity. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "analyze/common/concepts.h"
#include "analyze/common/predicate.h"
#include "analyze/common/stack_key.h"
#include "analyze/dataloader/dataloader_internal.h"
#include "util/hash.h"
#include "util/keymap.h"
#include "util/u64map.h"
#include "util/vec.h"

/* Mapping kinds of the GetNext set (init and worker are always REGEX or USER). */
enum { KIND_REGEX, KIND_KINETO, KIND_COMPOSER, KIND_DFTRACER, KIND_USER, KIND_COUNT };
static const char *const kind_names[KIND_COUNT] = {"smdebug", "kineto", "composer", "dftracer", "user"};

/* ---- labels ----------------------------------------------------------------------------------- */

static uint32_t label_intern(label_tab *t, const char *s, size_t n)
{
    uint64_t h = dfs_hash64(s, n);
    for (;;) {
        uint32_t at;
        if (!dfs_u64map_get(&t->index, h, &at))
            break;
        if (strlen(t->v.v[at]) == n && memcmp(t->v.v[at], s, n) == 0)
            return at;
        h = dfs_mix64(h + 1); /* a different text with the same hash: probe on */
    }
    char *copy = malloc(n + 1);
    if (!copy)
        return NO_LABEL;
    memcpy(copy, s, n);
    copy[n] = '\0';
    if (!dfs_vec_push(&t->v, copy) || !dfs_u64map_put(&t->index, h, (uint32_t)(t->v.n - 1))) {
        if (t->v.n && t->v.v[t->v.n - 1] == copy)
            t->v.n--;
        free(copy);
        return NO_LABEL;
    }
    return (uint32_t)(t->v.n - 1);
}

/* A pid or tid as the trace wrote it: its string, else its number. */
static uint32_t id_label(dfs_dataloader *d, dfs_str s, int64_t num)
{
    if (s) {
        size_t n;
        const char *t = dfs_str_get(d->run, s, &n);
        return label_intern(&d->labels, t, n);
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%" PRId64, num);
    return label_intern(&d->labels, buf, (size_t)n);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* smdebug: the second '_'-separated field of the file name ("<end_us>_<node>_<suffix>.json");
 * other files (and smdebug files not named that way): the file name. */
static uint32_t node_of_file(dfs_dataloader *d, const dfs_file_info *fi)
{
    const char *b = base_name(fi->path);
    const char *u1 = strchr(b, '_');
    const char *u2 = u1 ? strchr(u1 + 1, '_') : NULL;
    if (fi->dialect == DFS_DIALECT_SMDEBUG_FRAMEWORK && u1 && u2 && u2 > u1 + 1)
        return label_intern(&d->labels, u1 + 1, (size_t)(u2 - u1 - 1));
    return label_intern(&d->labels, b, strlen(b));
}

const char *dfs_dl_label(const dfs_dl_result *r, uint32_t label)
{
    return label < r->nlabels ? r->labels[label] : "";
}

/* ---- framework events: X records and B/E pairs ---------------------------------------------- */

static int cmp_file_offset(const void *a, const void *b)
{
    const raw_ev *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return (x->ph > y->ph) - (x->ph < y->ph);
}

/* The stack a B or E record belongs to: smdebug pairs per pid, Composer per (pid, tid, name),
 * everything else per (pid, tid). Sorted by stack, then file order. */
typedef struct mark {
    dfs_stack_key stack;
    size_t ev; /* index in total.evs */
} mark;

static int cmp_mark(const void *a, const void *b)
{
    const mark *x = a, *y = b;
    int c = dfs_stack_key_cmp(&x->stack, &y->stack);
    return c ? c : (x->ev > y->ev) - (x->ev < y->ev);
}

/* Whether dfs_file_abs_ns(fi, ts) stays in the int64 range: it does not check, and a huge
 * start time in a file's metadata would make it overflow. */
static bool abs_in_range(const dfs_file_info *fi, int64_t ts)
{
    bool scaled = fi->clock_scale_den > 0 && (fi->clock_scale_num != 1 || fi->clock_scale_den != 1);
    __int128 t = scaled ? (__int128)ts * fi->clock_scale_num / fi->clock_scale_den : ts;
    int64_t sum;
    return t >= INT64_MIN && t <= INT64_MAX && !__builtin_add_overflow((int64_t)t, fi->clock_offset_ns, &sum);
}

static bool add_event(dfs_dataloader *d, const dfs_file_info *fi, const raw_ev *first, int64_t raw_end,
                      bool bad_time)
{
    if (bad_time || !abs_in_range(fi, first->ts) || !abs_in_range(fi, raw_end)) {
        d->bad_times++;
        return true;
    }
    if (raw_end < first->ts) {
        d->result.negative_durations++;
        return true;
    }
    dfs_dl_event e = {.start = dfs_file_abs_ns(fi, first->ts), .end = dfs_file_abs_ns(fi, raw_end),
                      .pid = first->pid, .tid = first->tid, .offset = first->offset, .file = first->file,
                      .name = first->name, .cat = first->cat};
    int64_t dur;
    if (__builtin_sub_overflow(e.end, e.start, &dur)) { /* durations must fit: they are subtracted */
        d->bad_times++;
        return true;
    }
    if (dur > d->result.max_duration)
        d->result.max_duration = dur;
    return dfs_vec_push(&d->events, e) && dfs_vec_push(&d->event_args, first->args);
}

static bool pair_marks(dfs_dataloader *d, const dfs_file_info *fi, mark *m, size_t n)
{
    qsort(m, n, sizeof *m, cmp_mark);
    DFS_VEC(size_t) stack = {0};
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        if (i > 0 && !dfs_stack_key_same(&m[i].stack, &m[i - 1].stack)) {
            d->result.unclosed_begins += stack.n;
            stack.n = 0;
        }
        const raw_ev *r = &d->total.evs.v[m[i].ev];
        if (r->ph == 'B') {
            ok = dfs_vec_push(&stack, m[i].ev);
        } else if (stack.n == 0) {
            d->result.orphan_ends++;
        } else {
            const raw_ev *b = &d->total.evs.v[stack.v[--stack.n]];
            ok = add_event(d, fi, b, r->ts, b->bad_time || r->bad_time);
        }
    }
    d->result.unclosed_begins += stack.n;
    dfs_vec_free(&stack);
    return ok;
}

static mark mark_of(const raw_ev *r, size_t index, dfs_dialect dialect)
{
    mark m = {.stack.pid = r->pid, .ev = index};
    if (dialect != DFS_DIALECT_SMDEBUG_FRAMEWORK)
        m.stack.tid = r->tid;
    if (dialect == DFS_DIALECT_COMPOSER)
        m.stack.name = r->name;
    return m;
}

/* One file's records (evs[from, to), in file order) into events. */
static bool file_events(dfs_dataloader *d, size_t from, size_t to)
{
    const raw_ev *evs = d->total.evs.v;
    const dfs_file_info *fi = dfs_run_file(d->run, evs[from].file);
    mark *marks = malloc((to - from) * sizeof *marks);
    if (!marks)
        return false;
    size_t nm = 0;
    bool ok = true;
    for (size_t i = from; i < to && ok; i++) {
        int64_t end;
        if (evs[i].ph != 'X')
            marks[nm++] = mark_of(&evs[i], i, fi->dialect);
        else if (!dfs_span_end(evs[i].ts, evs[i].dur, &end))
            d->bad_times++;
        else
            ok = add_event(d, fi, &evs[i], end, evs[i].bad_time);
    }
    ok = ok && pair_marks(d, fi, marks, nm);
    free(marks);
    return ok;
}

typedef struct event_slot {
    dfs_dl_event e;
    size_t args;
} event_slot;

static int cmp_event_start(const void *a, const void *b)
{
    const dfs_dl_event *x = &((const event_slot *)a)->e, *y = &((const event_slot *)b)->e;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Sorts the events (with their args indices) by start, file and offset: a total order. */
static bool sort_events(dfs_dataloader *d)
{
    size_t n = d->events.n;
    if (n == 0)
        return true;
    event_slot *slots = malloc(n * sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < n; i++)
        slots[i] = (event_slot){d->events.v[i], d->event_args.v[i]};
    qsort(slots, n, sizeof *slots, cmp_event_start);
    for (size_t i = 0; i < n; i++) {
        d->events.v[i] = slots[i].e;
        d->event_args.v[i] = slots[i].args;
    }
    free(slots);
    return true;
}

static bool build_events(dfs_dataloader *d)
{
    raw_ev *evs = d->total.evs.v;
    size_t n = d->total.evs.n;
    if (n > 1)
        qsort(evs, n, sizeof *evs, cmp_file_offset);
    for (size_t from = 0; from < n;) {
        size_t to = from;
        while (to < n && evs[to].file == evs[from].file)
            to++;
        if (!file_events(d, from, to))
            return false;
        from = to;
    }
    return sort_events(d);
}

/* ---- the three row sets ----------------------------------------------------------------------- */

typedef struct phase_key {
    uint32_t file, pad;
    int64_t pid;
} phase_key;

/* The phase of a pid in a file: its process name (0 = "Unknown"), memoised. */
static bool phase_of(dfs_dataloader *d, dfs_keymap *memo, uint32_t file, int64_t pid, dfs_str *out)
{
    phase_key k = {.file = file, .pid = pid};
    uint32_t v;
    if (dfs_keymap_get(memo, &k, &v)) {
        *out = v;
        return true;
    }
    bool inserted;
    return dfs_keymap_get_or_put(memo, &k, dfs_run_process_name(d->run, file, pid), out, &inserted);
}

static int getnext_kind(const dfs_dataloader *d, dfs_dialect dialect)
{
    if (d->opt.pattern[DFS_DL_GETNEXT])
        return KIND_USER;
    dfs_concept_source src = dfs_concept_source_of(dialect);
    if (!dfs_concepts_available(d->concepts, src, DFS_CONCEPT_DATA_WAIT))
        return KIND_REGEX;
    switch (src) {
    case DFS_CSRC_KINETO: return KIND_KINETO;
    case DFS_CSRC_COMPOSER: return KIND_COMPOSER;
    case DFS_CSRC_DFTRACER: return KIND_DFTRACER;
    default: return KIND_REGEX;
    }
}

/* Per file: its node label and GetNext mapping, on first sight. */
static bool file_facts(dfs_dataloader *d, uint32_t file)
{
    if (d->file_node[file] != NO_LABEL)
        return true;
    const dfs_file_info *fi = dfs_run_file(d->run, file);
    d->file_node[file] = node_of_file(d, fi);
    d->file_kind[file] = (uint8_t)getnext_kind(d, fi->dialect);
    d->result.framework_files++;
    return d->file_node[file] != NO_LABEL;
}

static void set_text(const dfs_run *run, dfs_pred_row *row, uint32_t *ids, dfs_pred_col c, dfs_str s,
                     const char *fallback)
{
    size_t n = 0;
    const char *t = s ? dfs_str_get(run, s, &n) : fallback;
    if (!s)
        n = strlen(fallback);
    dfs_pred_row_set_text(row, c, t, n);
    ids[c] = s ? s : UINT32_MAX;
}

/* Bit s set: the event belongs to set s. Also sets its class for pictures. */
static unsigned match_event(dfs_dataloader *d, dfs_dl_event *e)
{
    const dfs_file_info *fi = dfs_run_file(d->run, e->file);
    dfs_pred_row row;
    uint32_t ids[DFS_PRED_NTEXT] = {0};
    dfs_pred_row_init(&row);
    set_text(d->run, &row, ids, DFS_PRED_FUNC_NAME, e->name, "");
    set_text(d->run, &row, ids, DFS_PRED_PROC_NAME, e->phase, "Unknown");
    unsigned bits = (unsigned)dfs_pred_set_eval(d->match, &row, ids);
    dfs_event fake = {.ts = e->start, .dur = e->end - e->start, .pid = e->pid, .tid = e->tid,
                      .name = e->name, .cat = e->cat, .file = e->file,
                      .flags = DFS_EF_HAS_TS | DFS_EF_HAS_DUR, .phase = DFS_PHASE_COMPLETE, .ph = 'X'};
    dfs_concept_source src = dfs_concept_source_of(fi->dialect);
    uint32_t concepts = dfs_concepts_match(d->concepts, d->run, src, &fake);
    int kind = d->file_kind[e->file];
    if (kind != KIND_REGEX && kind != KIND_USER) {
        bits &= ~1u;
        if (concepts & DFS_CONCEPT_BIT(DFS_CONCEPT_DATA_WAIT))
            bits |= 1u;
    }
    e->cls = (uint8_t)((bits & 1u) ? DFS_EVCLASS_DATA_WAIT : dfs_event_class_of(concepts));
    return bits;
}

static dfs_dl_row make_row(const dfs_dataloader *d, size_t i)
{
    const dfs_dl_event *e = &d->events.v[i];
    size_t ai = d->event_args.v[i];
    const raw_args *a = ai != NO_ARGS ? &d->total.args.v[ai] : NULL;
    dfs_dl_row r = {.start = e->start, .end = e->end, .pid = e->pid, .metric = e->name, .step = -1,
                    .worker_id = -1, .num_workers = -1, .pin_memory = DFS_DL_PIN_NA, .node = e->node,
                    .event = i};
    if (!a)
        return r;
    if (a->has_pid)
        r.pid = a->pid;
    r.metric = a->layer_name ? a->layer_name : a->name ? a->name : e->name;
    r.step = a->step;
    r.worker_id = a->worker_id;
    r.num_workers = a->num_workers;
    r.pin_memory = a->pin;
    return r;
}

/* Mapping counters: [set][kind] files and rows. */
typedef struct map_count {
    size_t files[DFS_DL_NSETS][KIND_COUNT];
    size_t rows[DFS_DL_NSETS][KIND_COUNT];
} map_count;

static int set_kind(const dfs_dataloader *d, int set, int file_kind)
{
    if (d->opt.pattern[set])
        return KIND_USER;
    return set == DFS_DL_GETNEXT ? file_kind : KIND_REGEX;
}

static bool classify_events(dfs_dataloader *d, map_count *mc)
{
    dfs_keymap memo;
    dfs_keymap_init(&memo, sizeof(phase_key));
    bool ok = true;
    for (size_t i = 0; i < d->events.n && ok; i++) {
        dfs_dl_event *e = &d->events.v[i];
        bool first = d->file_node[e->file] == NO_LABEL;
        ok = file_facts(d, e->file) && phase_of(d, &memo, e->file, e->pid, &e->phase);
        if (!ok)
            break;
        e->node = d->file_node[e->file];
        int fk = d->file_kind[e->file];
        for (int s = 0; first && s < DFS_DL_NSETS; s++)
            mc->files[s][set_kind(d, s, fk)]++;
        unsigned bits = match_event(d, e);
        for (int s = 0; s < DFS_DL_NSETS && ok; s++) {
            if (!(bits >> s & 1u))
                continue;
            mc->rows[s][set_kind(d, s, fk)]++;
            ok = dfs_vec_push(&d->rows[s], make_row(d, i));
        }
    }
    dfs_keymap_free(&memo);
    return ok;
}

/* Did a regular expression reach its bound while classifying (predicate.h)? Then the sets are
 * void, and d->failure names the pattern or concept. */
static bool matching_failed(dfs_dataloader *d)
{
    dfs_pred_error err;
    if (dfs_pred_set_failed(d->match, &err)) {
        dfs_dl_set s = (dfs_dl_set)err.index;
        snprintf(d->failure, sizeof d->failure, "the %s pattern '%s': %s", dfs_dl_set_name(s),
                 d->opt.pattern[s] ? d->opt.pattern[s] : dfs_dl_default_pattern(s), err.message);
        return true;
    }
    return dfs_concepts_failed(d->concepts, d->failure, sizeof d->failure);
}

static const char *mapping_pattern(dfs_dataloader *d, int set, int kind)
{
    switch (kind) {
    case KIND_USER: return d->opt.pattern[set];
    case KIND_KINETO: return dfs_concepts_text(d->concepts, DFS_CSRC_KINETO, DFS_CONCEPT_DATA_WAIT);
    case KIND_COMPOSER: return dfs_concepts_text(d->concepts, DFS_CSRC_COMPOSER, DFS_CONCEPT_DATA_WAIT);
    case KIND_DFTRACER: return dfs_concepts_text(d->concepts, DFS_CSRC_DFTRACER, DFS_CONCEPT_DATA_WAIT);
    default: return dfs_dl_default_pattern((dfs_dl_set)set);
    }
}

/* The mappings that applied to some file; with no framework file, the ones that would have. */
static bool list_mappings(dfs_dataloader *d, const map_count *mc)
{
    for (int s = 0; s < DFS_DL_NSETS; s++) {
        for (int k = 0; k < KIND_COUNT; k++) {
            bool fallback = d->result.framework_files == 0 && k == set_kind(d, s, KIND_REGEX);
            if (!mc->files[s][k] && !fallback)
                continue;
            bool concept = k != KIND_USER && k != KIND_REGEX;
            dfs_dl_mapping m = {.set = (dfs_dl_set)s, .source = kind_names[k],
                                .how = concept ? "concept" : "regex", .pattern = mapping_pattern(d, s, k),
                                .files = mc->files[s][k], .rows = mc->rows[s][k]};
            if (!dfs_vec_push(&d->mappings, m))
                return false;
        }
    }
    return true;
}

/* ---- de-duplication: rows identical in every field ------------------------------------------ */

/* Equal fields give 0 before the last key (the event index, i.e. start order). */
static int cmp_row_fields(const dfs_dataloader *d, const dfs_dl_row *x, const dfs_dl_row *y)
{
    int c;
    if ((c = dl_cmp_i64(x->start, y->start)) || (c = dl_cmp_i64(x->end, y->end)) ||
        (c = dl_cmp_i64(x->pid, y->pid)) || (c = dl_cmp_i64(x->metric, y->metric)) ||
        (c = dl_cmp_i64(x->step, y->step)) || (c = dl_cmp_i64(x->worker_id, y->worker_id)) ||
        (c = dl_cmp_i64(x->num_workers, y->num_workers)) || (c = dl_cmp_i64(x->pin_memory, y->pin_memory)) ||
        (c = dl_cmp_i64(x->node, y->node)))
        return c;
    return dl_cmp_i64(d->events.v[x->event].phase, d->events.v[y->event].phase);
}

static int cmp_row_dedup(const void *a, const void *b, void *ctx)
{
    const dfs_dl_row *x = a, *y = b;
    int c = cmp_row_fields(ctx, x, y);
    return c ? c : dl_cmp_i64((int64_t)x->event, (int64_t)y->event);
}

static int cmp_row_event(const void *a, const void *b)
{
    const dfs_dl_row *x = a, *y = b;
    return (x->event > y->event) - (x->event < y->event);
}

/* Drops rows identical in every field, keeping the earliest in start order; the rows stay in
 * start order (interned ids only group equal texts here; they never decide the output order). */
static void dedup_rows(dfs_dataloader *d, int s)
{
    dfs_dl_row *v = d->rows[s].v;
    size_t n = d->rows[s].n, kept = 0;
    if (n < 2)
        return;
    qsort_r(v, n, sizeof *v, cmp_row_dedup, d);
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || cmp_row_fields(d, &v[i], &v[kept - 1]) != 0)
            v[kept++] = v[i];
    d->result.duplicates[s] = n - kept;
    d->rows[s].n = kept;
    qsort(v, kept, sizeof *v, cmp_row_event);
}

/* ---- system-metric files ---------------------------------------------------------------------- */

/* Whether text follows the line that starts at `offset` (the file's last good record): then the
 * one bad line is the last line. gzread reads plain and gzip files alike. */
static bool bad_line_is_last(const char *path, uint64_t last_record)
{
    if (last_record == 0)
        return true; /* no good line at all: the bad line is the only one */
    gzFile f = gzopen(path, "rb");
    if (!f)
        return true; /* read a moment ago; the reader's verdict (one bad line) stands */
    bool after_newline = false, text = false;
    if (gzseek(f, (z_off_t)(last_record - 1), SEEK_SET) >= 0) {
        char buf[4096];
        int n;
        while (!text && (n = gzread(f, buf, sizeof buf)) > 0) {
            for (int i = 0; i < n && !text; i++) {
                if (buf[i] == '\n')
                    after_newline = true;
                else if (after_newline && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\r')
                    text = true;
            }
        }
    }
    gzclose(f);
    return text;
}

static dfs_dl_sys_status sys_status(const dfs_dataloader *d, uint32_t file, const dfs_file_info *fi)
{
    if (fi->bad_records == 0)
        return DFS_DL_SYS_OK;
    uint64_t last = file < d->total.nfiles ? d->total.last_record[file] : 0;
    if (fi->bad_records == 1 && bad_line_is_last(fi->path, last))
        return DFS_DL_SYS_LAST_LINE_SKIPPED;
    return DFS_DL_SYS_REJECTED;
}

static bool check_system_files(dfs_dataloader *d)
{
    size_t nf = dfs_run_file_count(d->run);
    for (size_t f = 0; f < nf; f++) {
        const dfs_file_info *fi = dfs_run_file(d->run, f);
        if (fi->dialect != DFS_DIALECT_SMDEBUG_SYSTEM)
            continue;
        dfs_dl_sysfile s = {.file = (uint32_t)f, .bad_lines = fi->bad_records, .samples = 0,
                            .status = sys_status(d, (uint32_t)f, fi)};
        d->result.last_lines_skipped += s.status == DFS_DL_SYS_LAST_LINE_SKIPPED;
        d->result.rejected_files += s.status == DFS_DL_SYS_REJECTED;
        d->file_sys[f] = (uint32_t)d->sysfiles.n;
        if (!dfs_vec_push(&d->sysfiles, s))
            return false;
    }
    return true;
}

static dfs_dl_sysfile *sysfile_of(dfs_dataloader *d, uint32_t file)
{
    uint32_t at = file < dfs_run_file_count(d->run) ? d->file_sys[file] : NO_LABEL;
    return at == NO_LABEL ? NULL : &d->sysfiles.v[at];
}

/* "<minute_epoch_s>.algo-<n>.json": the time in the name, in ns; false when not named so. */
static bool name_time(const char *path, int64_t *ns)
{
    const char *b = base_name(path);
    int64_t s = 0;
    size_t i = 0;
    for (; b[i] >= '0' && b[i] <= '9' && i < 11; i++) /* epoch seconds: ten digits until 2286 */
        s = s * 10 + (b[i] - '0');
    if (i == 0 || i > 10 || b[i] != '.')
        return false;
    *ns = s * 1000000000;
    return true;
}

/* The *_us columns count from the first system-metric file (its name's time, else its first
 * sample); without one they are absolute. */
static void set_origin(dfs_dataloader *d)
{
    d->result.origin = 0;
    d->result.origin_file = -1;
    for (size_t i = 0; i < d->sysfiles.n; i++) {
        const dfs_dl_sysfile *s = &d->sysfiles.v[i];
        int64_t t;
        if (s->status == DFS_DL_SYS_REJECTED)
            continue;
        if (!name_time(dfs_run_file(d->run, s->file)->path, &t)) {
            size_t k = 0;
            while (k < d->samples.n && d->samples.v[k].file != s->file)
                k++;
            if (k == d->samples.n)
                continue;
            t = d->samples.v[k].t;
        }
        if (d->result.origin_file < 0 || t < d->result.origin) {
            d->result.origin = t;
            d->result.origin_file = (int)s->file;
        }
    }
}

static int cmp_raw_sample(const void *a, const void *b)
{
    const raw_sample *x = a, *y = b;
    int c = dl_cmp_i64(x->ts, y->ts);
    if (!c)
        c = dl_cmp_i64(x->file, y->file);
    return c ? c : (x->offset > y->offset) - (x->offset < y->offset);
}

static bool build_samples(dfs_dataloader *d)
{
    raw_sample *raw = d->total.samples.v;
    size_t n = d->total.samples.n, kept = 0;
    for (size_t i = 0; i < n; i++) {
        dfs_dl_sysfile *sf = sysfile_of(d, raw[i].file);
        const dfs_file_info *fi = dfs_run_file(d->run, raw[i].file);
        if ((sf && sf->status == DFS_DL_SYS_REJECTED) || !abs_in_range(fi, raw[i].ts))
            continue;
        if (sf)
            sf->samples++;
        raw[kept] = raw[i];
        raw[kept++].ts = dfs_file_abs_ns(fi, raw[i].ts);
    }
    if (kept > 1)
        qsort(raw, kept, sizeof *raw, cmp_raw_sample);
    if (!dfs_vec_reserve(&d->samples, kept))
        return false;
    for (size_t i = 0; i < kept; i++) {
        dfs_dl_sample s = {.t = raw[i].ts, .value = raw[i].value, .type = raw[i].type, .dim = raw[i].dim,
                           .node = id_label(d, raw[i].pid_str, raw[i].pid),
                           .name = id_label(d, raw[i].tid_str, raw[i].tid), .file = raw[i].file};
        if (s.node == NO_LABEL || s.name == NO_LABEL)
            return false;
        d->samples.v[d->samples.n++] = s;
    }
    return true;
}

/* ---- finish ----------------------------------------------------------------------------------- */

static void publish(dfs_dataloader *d)
{
    dfs_dl_result *r = &d->result;
    r->events = d->events.v;
    r->nevents = d->events.n;
    r->samples = d->samples.v;
    r->nsamples = d->samples.n;
    r->labels = (const char *const *)d->labels.v.v;
    r->nlabels = d->labels.v.n;
    r->sysfiles = d->sysfiles.v;
    r->nsysfiles = d->sysfiles.n;
    r->mappings = d->mappings.v;
    r->nmappings = d->mappings.n;
    for (int s = 0; s < DFS_DL_NSETS; s++) {
        r->rows[s] = d->rows[s].v;
        r->nrows[s] = d->rows[s].n;
    }
    r->gaps = d->gaps.v;
    r->ngaps = d->gaps.n;
    r->windows = d->windows.v;
    r->nwindows = d->windows.n;
    r->samples_without_value = d->total.no_value;
    r->bad_times = d->bad_times + d->total.no_time;
}

static bool per_file_tables(dfs_dataloader *d)
{
    size_t nf = dfs_run_file_count(d->run);
    d->file_node = malloc((nf ? nf : 1) * sizeof *d->file_node);
    d->file_sys = malloc((nf ? nf : 1) * sizeof *d->file_sys);
    d->file_kind = calloc(nf ? nf : 1, sizeof *d->file_kind);
    if (!d->file_node || !d->file_sys || !d->file_kind)
        return false;
    for (size_t f = 0; f < nf; f++)
        d->file_node[f] = d->file_sys[f] = NO_LABEL;
    return true;
}

const char *dfs_dl_failure(const dfs_dataloader *d)
{
    return d->failure[0] ? d->failure : NULL;
}

const dfs_dl_result *dfs_dl_finish(dfs_dataloader *d, const dfs_run *run)
{
    if (d->finished || d->failed)
        return d->finished ? &d->result : NULL; /* a failed finish is not retried half-built */
    d->run = run;
    map_count mc;
    memset(&mc, 0, sizeof mc);
    bool ok = !d->total.failed && per_file_tables(d) && build_events(d) && classify_events(d, &mc) &&
              !matching_failed(d) && list_mappings(d, &mc);
    for (int s = 0; ok && s < DFS_DL_NSETS; s++)
        dedup_rows(d, s);
    ok = ok && check_system_files(d) && build_samples(d);
    if (ok) {
        publish(d);
        set_origin(d);
    }
    ok = ok && dl_analyse(d);
    if (ok)
        publish(d);
    ok = ok && dl_build_windows(d);
    if (!ok) {
        d->failed = true;
        return NULL;
    }
    publish(d);
    d->finished = true;
    return &d->result;
}
