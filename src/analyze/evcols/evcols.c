/* evcols.c - events as columns (evcols.h).
 *
 * While reading, each worker appends the rows it keeps to its own arrays, one per column asked
 * for plus the row's (file, offset), and notes each batch as a segment: a run of consecutive rows
 * of one file in offset order. After reading, the segments sorted by (file, first offset) give the
 * rows in input order (when two segments of a file overlap, which the pieces of a file never do,
 * every row is sorted instead); the output columns are then filled segment by segment, each
 * worker array freed as soon as its column is built, so memory peaks at the rows kept plus one
 * column.
 *
 * String columns keep interned ids while reading; at the end the ids a column uses are given
 * codes in the order of their texts (ids depend on which thread met a string first; texts do
 * not). DFTracer file and host hashes not yet resolved when their event was read are resolved
 * once the run knows every definition (dfs_run_resolve_hash), as the analyses do.
 *
 * The predicate of `where` is evaluated on each event as it is read, so it may read the event's
 * arguments (args.KEY): the keys it reads are asked of the reader like the argument columns. */
#include "analyze/evcols/evcols.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/concepts.h"
#include "analyze/common/event_args.h"
#include "analyze/common/predicate.h"
#include "util/vec.h"

typedef enum kind { K_TS, K_DUR, K_PID, K_TID, K_ID, K_OFFSET, K_FILE, K_NAME, K_CAT, K_FNAME, K_HOST, K_PHASE, K_ARG } kind;

const char *const dfs_ec_builtin_columns[] = {"ts",  "dur",  "pid",   "tid",  "id",    "offset", "file",
                                              "name", "cat", "fname", "host", "phase", NULL};

/* Bytes a worker keeps per row for a column of each kind (offset and file are kept for every row). */
static const size_t kind_width[] = {8, 8, 8, 8, 8, 0, 0, 4, 4, 4, 4, 1, 16};

/* Row bits: which of the event's optional fields are there. */
enum { HAS_TS = 1, HAS_DUR = 2, HAS_PID = 4, HAS_TID = 8 };

/* An argument's value as kept: what type it had, and the value. */
enum { A_NONE, A_INT, A_FLOAT, A_STR, A_UINT };
typedef struct argval {
    uint8_t tag;
    union {
        int64_t i;
        uint64_t u;
        double f;
        dfs_str s;
    } as;
} argval;

typedef struct pending {
    size_t row;
    uint64_t hash;
    uint32_t col;
} pending;

typedef struct segment {
    uint32_t file, worker;
    uint64_t first, last;
    size_t start, count;
} segment;

typedef struct worker {
    dfs_evcols *ec;
    uint32_t index;
    dfs_pred_set *pred;
    unsigned pred_cols;
    size_t n, cap;
    uint32_t *file;
    uint64_t *offset;
    uint8_t *bits;
    char *col[DFS_EC_MAX_COLUMNS];
    dfs_str argkey[DFS_EC_MAX_COLUMNS];
    bool keys_ready, nomem;
    DFS_VEC(pending) pend;
    DFS_VEC(segment) segs;
} worker;

typedef struct colspec {
    kind kind;
    const char *key; /* K_ARG: the argument's key */
} colspec;

struct dfs_evcols {
    size_t ncol;
    colspec spec[DFS_EC_MAX_COLUMNS];
    dfs_ec_column out[DFS_EC_MAX_COLUMNS];
    const char *extra[DFS_EC_MAX_COLUMNS + DFS_EC_MAX_WHERE_KEYS + 1];
    char *where_key[DFS_EC_MAX_WHERE_KEYS]; /* the argument keys `where` reads, NUL-terminated copies */
    size_t nwhere_keys;
    char *where;
    uint64_t limit;
    dfs_consumer consumer;
    DFS_VEC(worker *) workers;
    size_t nrows;
    bool nomem;
};

/* ---- setting up ---- */

static bool find_kind(const char *name, kind *k)
{
    for (int i = 0; dfs_ec_builtin_columns[i]; i++)
        if (strcmp(name, dfs_ec_builtin_columns[i]) == 0) {
            *k = (kind)i;
            return true;
        }
    return false;
}

static bool add_column(dfs_evcols *ec, const char *name, char *err, size_t errlen)
{
    colspec *c = &ec->spec[ec->ncol];
    ec->out[ec->ncol].name = name;
    if (strncmp(name, "args.", 5) == 0 && name[5]) {
        c->kind = K_ARG;
        c->key = name + 5;
        kind clash;
        if (!find_kind(c->key, &clash)) /* "args.size" is the column "size" unless a field has that name */
            ec->out[ec->ncol].name = c->key;
    } else if (!find_kind(name, &c->kind)) {
        snprintf(err, errlen, "unknown column '%s': the columns are ts, dur, pid, tid, id, offset, file, name, cat, "
                              "fname, host, phase, and args.KEY for an argument", name);
        return false;
    }
    ec->ncol++;
    return true;
}

static void set_want(dfs_evcols *ec)
{
    size_t nextra = 0;
    for (size_t i = 0; i < ec->ncol; i++)
        if (ec->spec[i].kind == K_ARG)
            dfs_want_arg_key(&ec->consumer.want, ec->spec[i].key, ec->extra, &nextra);
    for (size_t i = 0; i < ec->nwhere_keys; i++)
        dfs_want_arg_key(&ec->consumer.want, ec->where_key[i], ec->extra, &nextra);
}

/* The argument keys p reads, kept for the reader (false: too many, or out of memory). */
static bool keep_where_keys(dfs_evcols *ec, const dfs_pred *p, char *err, size_t errlen)
{
    size_t n = dfs_pred_arg_count(p);
    if (n > DFS_EC_MAX_WHERE_KEYS) {
        snprintf(err, errlen, "where: at most %d argument keys", DFS_EC_MAX_WHERE_KEYS);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *k = dfs_pred_arg_key(p, i, &len);
        if (!(ec->where_key[i] = strndup(k, len))) {
            snprintf(err, errlen, "out of memory");
            return false;
        }
        ec->nwhere_keys = i + 1;
    }
    return true;
}

/* The columns the events' predicate may read: those an event has while it is read, and its
 * arguments. */
static bool check_where(dfs_evcols *ec, const char *where, char *err, size_t errlen)
{
    dfs_pred_error pe;
    dfs_pred *p = dfs_pred_parse(where, &pe);
    if (!p) {
        snprintf(err, errlen, "where: %s", pe.message);
        return false;
    }
    unsigned late = DFS_PRED_COL_BIT(DFS_PRED_PROC_NAME) | DFS_PRED_COL_BIT(DFS_PRED_IO_CAT) |
                    DFS_PRED_COL_BIT(DFS_PRED_ACC_PAT);
    bool ok = (dfs_pred_columns(p) & late) == 0;
    if (!ok)
        snprintf(err, errlen, "where: proc_name, io_cat and acc_pat are not columns of events (they come "
                              "from a preset's analysis); use cat, func_name, file_name, host, pid, tid and args.KEY");
    ok = ok && keep_where_keys(ec, p, err, errlen);
    dfs_pred_free(p);
    return ok;
}

static void *worker_begin(void *user);
static void on_batch(void *state, const dfs_run *run, const dfs_batch *batch);
static void worker_end(void *user, const dfs_run *run, void *state);

dfs_evcols *dfs_evcols_new(const char *const *columns, size_t ncolumns, const char *where, uint64_t limit,
                           char *err, size_t errlen)
{
    if (ncolumns > DFS_EC_MAX_COLUMNS) {
        snprintf(err, errlen, "at most %d columns", DFS_EC_MAX_COLUMNS);
        return NULL;
    }
    dfs_evcols *ec = calloc(1, sizeof *ec);
    if (!ec) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < ncolumns; i++)
        if (!add_column(ec, columns[i], err, errlen)) {
            dfs_evcols_free(ec);
            return NULL;
        }
    bool all = !where || !*where;
    if (!all && !check_where(ec, where, err, errlen)) {
        dfs_evcols_free(ec);
        return NULL;
    }
    ec->where = all ? NULL : strdup(where);
    ec->limit = limit;
    ec->consumer = (dfs_consumer){.user = ec, .worker_begin = worker_begin, .on_batch = on_batch,
                                  .worker_end = worker_end};
    set_want(ec);
    return ec;
}

static void worker_free(worker *w)
{
    if (!w)
        return;
    dfs_pred_set_free(w->pred);
    free(w->file);
    free(w->offset);
    free(w->bits);
    for (size_t i = 0; i < DFS_EC_MAX_COLUMNS; i++)
        free(w->col[i]);
    dfs_vec_free(&w->pend);
    dfs_vec_free(&w->segs);
    free(w);
}

void dfs_evcols_free(dfs_evcols *ec)
{
    if (!ec)
        return;
    for (size_t i = 0; i < ec->workers.n; i++)
        worker_free(ec->workers.v[i]);
    dfs_vec_free(&ec->workers);
    for (size_t i = 0; i < ec->ncol; i++) {
        free(ec->out[i].values);
        free(ec->out[i].missing);
        free(ec->out[i].cat_text);
        free(ec->out[i].cat_len);
    }
    for (size_t i = 0; i < ec->nwhere_keys; i++)
        free(ec->where_key[i]);
    free(ec->where);
    free(ec);
}

dfs_consumer *dfs_evcols_consumer(dfs_evcols *ec)
{
    return &ec->consumer;
}

size_t dfs_evcols_rows(const dfs_evcols *ec)
{
    return ec->nrows;
}

size_t dfs_evcols_ncolumns(const dfs_evcols *ec)
{
    return ec->ncol;
}

dfs_ec_column *dfs_evcols_column(dfs_evcols *ec, size_t i)
{
    return i < ec->ncol ? &ec->out[i] : NULL;
}

/* ---- reading ---- */

static void *worker_begin(void *user)
{
    dfs_evcols *ec = user;
    worker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->ec = ec;
    if (ec->where) {
        const char *text = ec->where;
        dfs_pred_error pe;
        w->pred = dfs_pred_set_new(&text, 1, &pe);
        w->nomem = !w->pred; /* the text parsed in dfs_evcols_new: only memory can fail here */
        w->pred_cols = w->pred ? dfs_pred_set_columns(w->pred) : 0;
    }
    return w;
}

static bool grow(worker *w)
{
    size_t cap = w->cap ? w->cap * 2 : 4096;
    void *f = realloc(w->file, cap * sizeof *w->file);
    if (f)
        w->file = f;
    void *o = realloc(w->offset, cap * sizeof *w->offset);
    if (o)
        w->offset = o;
    void *b = realloc(w->bits, cap);
    if (b)
        w->bits = b;
    bool ok = f && o && b;
    for (size_t i = 0; ok && i < w->ec->ncol; i++) {
        size_t width = kind_width[w->ec->spec[i].kind];
        if (!width)
            continue;
        void *c = realloc(w->col[i], cap * width);
        if (c)
            w->col[i] = c;
        ok = c != NULL;
    }
    if (ok)
        w->cap = cap;
    return ok;
}

/* An argument of the event being selected, for the predicate (dfs_pred_arg_lookup). */
static bool selected(worker *w, const dfs_run *run, const dfs_event *ev)
{
    if (!w->pred)
        return true;
    dfs_pred_row row;
    uint32_t ids[DFS_PRED_NTEXT] = {0};
    dfs_concepts_event_row(&row, ids, run, ev, w->pred_cols);
    dfs_event_args a = {run, ev};
    if (w->ec->nwhere_keys) {
        row.args = dfs_event_args_lookup;
        row.args_ctx = &a;
    }
    return dfs_pred_set_eval(w->pred, &row, ids) & 1;
}

static argval arg_value(const dfs_event *ev, dfs_str key)
{
    /* what each value type is kept as; A_NONE (0): null, lists and maps are missing */
    static const uint8_t kept[] = {[DFS_V_BOOL] = A_INT, [DFS_V_INT] = A_INT, [DFS_V_UINT] = A_UINT,
                                   [DFS_V_FLOAT] = A_FLOAT, [DFS_V_STR] = A_STR};
    argval a = {.tag = A_NONE};
    const dfs_value *v = key ? dfs_event_arg(ev, key) : NULL;
    if (!v || v->type >= sizeof kept || kept[v->type] == A_NONE)
        return a;
    a.tag = kept[v->type];
    if (a.tag == A_STR)
        a.as.s = v->as.s;
    else
        a.as.u = v->as.u; /* the 8 bytes of the integer or the double */
    return a;
}

static void keep_str(worker *w, size_t c, dfs_str s, uint64_t hash)
{
    memcpy(w->col[c] + w->n * 4, &s, 4);
    if (!s && hash) {
        pending p = {.row = w->n, .hash = hash, .col = (uint32_t)c};
        w->nomem |= !dfs_vec_push(&w->pend, p);
    }
}

static void keep(worker *w, const dfs_event *ev)
{
    const dfs_evcols *ec = w->ec;
    size_t r = w->n;
    w->file[r] = ev->file;
    w->offset[r] = ev->offset;
    w->bits[r] = (uint8_t)((ev->flags & DFS_EF_HAS_TS ? HAS_TS : 0) | (ev->flags & DFS_EF_HAS_DUR ? HAS_DUR : 0) |
                           (ev->flags & DFS_EF_HAS_PID ? HAS_PID : 0) | (ev->flags & DFS_EF_HAS_TID ? HAS_TID : 0));
    for (size_t c = 0; c < ec->ncol; c++) {
        char *p = w->col[c];
        switch (ec->spec[c].kind) {
        case K_TS: memcpy(p + r * 8, &ev->ts, 8); break;
        case K_DUR: memcpy(p + r * 8, &ev->dur, 8); break;
        case K_PID: memcpy(p + r * 8, &ev->pid, 8); break;
        case K_TID: memcpy(p + r * 8, &ev->tid, 8); break;
        case K_ID: memcpy(p + r * 8, &ev->id, 8); break;
        case K_NAME: memcpy(p + r * 4, &ev->name, 4); break;
        case K_CAT: memcpy(p + r * 4, &ev->cat, 4); break;
        case K_FNAME: keep_str(w, c, ev->fname, ev->fhash); break;
        case K_HOST: keep_str(w, c, ev->host, ev->hhash); break;
        case K_PHASE: p[r] = (char)ev->phase; break;
        case K_ARG: {
            argval a = arg_value(ev, w->argkey[c]);
            memcpy(p + r * 16, &a, sizeof a);
            break;
        }
        case K_OFFSET:
        case K_FILE:
            break;
        }
    }
    w->n++;
}

static void on_batch(void *state, const dfs_run *run, const dfs_batch *batch)
{
    worker *w = state;
    if (!w || w->nomem || batch->count == 0)
        return;
    if (!w->keys_ready) { /* the keys were interned before reading began */
        for (size_t c = 0; c < w->ec->ncol; c++)
            if (w->ec->spec[c].kind == K_ARG)
                w->argkey[c] = dfs_str_find(run, w->ec->spec[c].key, strlen(w->ec->spec[c].key));
        w->keys_ready = true;
    }
    size_t start = w->n;
    for (size_t i = 0; i < batch->count; i++) {
        const dfs_event *ev = &batch->events[i];
        if (!selected(w, run, ev))
            continue;
        if (w->n == w->cap && !grow(w)) {
            w->nomem = true;
            return;
        }
        keep(w, ev);
    }
    if (w->n > start) {
        segment s = {.file = batch->file, .first = w->offset[start], .last = w->offset[w->n - 1],
                     .start = start, .count = w->n - start};
        w->nomem |= !dfs_vec_push(&w->segs, s);
    }
}

static void worker_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    dfs_evcols *ec = user;
    worker *w = state;
    if (!w) {
        ec->nomem = true;
        return;
    }
    w->index = (uint32_t)ec->workers.n;
    if (!dfs_vec_push(&ec->workers, w)) {
        ec->nomem = true;
        worker_free(w);
    }
}

/* ---- ordering ---- */

static int cmp_segment(const void *a, const void *b)
{
    const segment *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    if (x->last != y->last)
        return x->last < y->last ? -1 : 1;
    return x->worker < y->worker ? -1 : x->worker > y->worker;
}

/* The rows in input order, as segments of worker rows; when segments of a file overlap, one
 * segment per row, sorted by (file, offset). */
static segment *order(dfs_evcols *ec, size_t *nseg)
{
    size_t n = 0, rows = 0;
    for (size_t i = 0; i < ec->workers.n; i++) {
        n += ec->workers.v[i]->segs.n;
        rows += ec->workers.v[i]->n;
    }
    segment *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < ec->workers.n; i++)
        for (size_t j = 0; j < ec->workers.v[i]->segs.n; j++) {
            s[k] = ec->workers.v[i]->segs.v[j];
            s[k++].worker = (uint32_t)i;
        }
    qsort(s, n, sizeof *s, cmp_segment);
    bool overlap = false;
    for (size_t i = 1; i < n && !overlap; i++)
        overlap = s[i].file == s[i - 1].file && s[i].first < s[i - 1].last;
    if (overlap) {
        free(s);
        s = malloc((rows ? rows : 1) * sizeof *s);
        if (!s)
            return NULL;
        k = 0;
        for (size_t i = 0; i < ec->workers.n; i++) {
            const worker *w = ec->workers.v[i];
            for (size_t r = 0; r < w->n; r++)
                s[k++] = (segment){.file = w->file[r], .worker = (uint32_t)i, .first = w->offset[r],
                                   .last = w->offset[r], .start = r, .count = 1};
        }
        n = rows;
        qsort(s, n, sizeof *s, cmp_segment);
    }
    /* the limit: the first rows in input order */
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (ec->limit && total + s[i].count >= ec->limit) {
            s[i].count = (size_t)(ec->limit - total);
            n = i + 1;
        }
        total += s[i].count;
    }
    ec->nrows = total;
    *nseg = n;
    return s;
}

/* ---- building the columns ---- */

typedef struct building {
    dfs_evcols *ec;
    const dfs_run *run;
    const segment *seg;
    size_t nseg;
} building;

static bool alloc_column(dfs_ec_column *o, dfs_ec_type type, size_t rows, bool with_missing)
{
    size_t width = type == DFS_EC_CATEGORY ? 4 : 8;
    o->type = type;
    o->values = malloc((rows ? rows : 1) * width);
    o->missing = with_missing ? calloc(rows ? rows : 1, 1) : NULL;
    return o->values && (!with_missing || o->missing);
}

/* A column of 8-byte integers (ts, dur, pid, tid, id, offset): missing where the row lacks `bit`. */
static bool build_int(building *b, size_t c, kind k)
{
    static const uint8_t bit_of[] = {[K_TS] = HAS_TS, [K_DUR] = HAS_DUR, [K_PID] = HAS_PID, [K_TID] = HAS_TID};
    uint8_t bit = k <= K_TID ? bit_of[k] : 0;
    dfs_ec_column *o = &b->ec->out[c];
    if (!alloc_column(o, k == K_ID || k == K_OFFSET ? DFS_EC_UINT64 : DFS_EC_INT64, b->ec->nrows, bit != 0))
        return false;
    int64_t *out = o->values;
    size_t at = 0, nmissing = 0;
    for (size_t s = 0; s < b->nseg; s++) {
        const segment *sg = &b->seg[s];
        const worker *w = b->ec->workers.v[sg->worker];
        const dfs_file_info *f = dfs_run_file(b->run, sg->file);
        for (size_t r = sg->start; r < sg->start + sg->count; r++, at++) {
            int64_t v;
            if (k == K_OFFSET)
                memcpy(&v, &w->offset[r], 8);
            else
                memcpy(&v, w->col[c] + r * 8, 8);
            if (bit && !(w->bits[r] & bit)) {
                o->missing[at] = 1;
                nmissing++;
                v = 0;
            } else if (k == K_TS) {
                v = dfs_file_abs_ns(f, v);
            }
            out[at] = v;
        }
    }
    if (o->missing && nmissing == 0) {
        free(o->missing);
        o->missing = NULL;
    }
    return true;
}

/* Codes for the values of a column given as ids in [0, nids): used ids get codes in the order of
 * their texts (text_of). */
typedef struct coder {
    int32_t *code; /* by id */
    size_t nids;
} coder;

typedef struct textref {
    const char *s;
    size_t len;
    uint32_t id;
} textref;

static int cmp_text(const void *a, const void *b)
{
    const textref *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, n);
    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

/* Gives o its categories from the ids marked in used[0..nids) (1 = used), texts from text_of. */
static bool make_categories(dfs_ec_column *o, coder *cd, const uint8_t *used,
                            const char *(*text_of)(const dfs_run *, uint32_t, size_t *), const dfs_run *run)
{
    size_t n = 0;
    for (size_t i = 0; i < cd->nids; i++)
        n += used[i];
    textref *t = malloc((n ? n : 1) * sizeof *t);
    o->cat_text = malloc((n ? n : 1) * sizeof *o->cat_text);
    o->cat_len = malloc((n ? n : 1) * sizeof *o->cat_len);
    if (!t || !o->cat_text || !o->cat_len) {
        free(t);
        return false;
    }
    size_t k = 0;
    for (size_t i = 0; i < cd->nids; i++)
        if (used[i]) {
            t[k].id = (uint32_t)i;
            t[k].s = text_of(run, (uint32_t)i, &t[k].len);
            k++;
        }
    qsort(t, n, sizeof *t, cmp_text);
    for (size_t i = 0; i < n; i++) {
        cd->code[t[i].id] = (int32_t)i;
        o->cat_text[i] = t[i].s;
        o->cat_len[i] = t[i].len;
    }
    o->ncats = n;
    free(t);
    return true;
}

static const char *str_text(const dfs_run *run, uint32_t id, size_t *len)
{
    return dfs_str_get(run, id, len);
}

static const char *file_text(const dfs_run *run, uint32_t id, size_t *len)
{
    const char *p = dfs_run_file(run, id)->path;
    *len = strlen(p);
    return p;
}

static const char *phase_text(const dfs_run *run, uint32_t id, size_t *len)
{
    (void)run;
    const char *p = dfs_phase_name((dfs_phase)id);
    *len = strlen(p);
    return p;
}

/* The id of row r of column c: a string, a file, a phase, or the text of an argument (0 when the
 * argument is not a text). */
static uint32_t id_at(const worker *w, size_t c, kind k, size_t r)
{
    if (k == K_FILE)
        return w->file[r];
    if (k == K_PHASE)
        return (uint8_t)w->col[c][r];
    if (k == K_ARG) {
        argval a;
        memcpy(&a, w->col[c] + r * 16, sizeof a);
        return a.tag == A_STR ? a.as.s : 0;
    }
    uint32_t id;
    memcpy(&id, w->col[c] + r * 4, 4);
    return id;
}

/* Late resolution of the hashes unresolved while reading (fname, host). */
static void resolve_pending(building *b, size_t c, kind k)
{
    for (size_t i = 0; i < b->ec->workers.n; i++) {
        worker *w = b->ec->workers.v[i];
        for (size_t j = 0; j < w->pend.n; j++) {
            const pending *p = &w->pend.v[j];
            if (p->col != c)
                continue;
            dfs_str s = dfs_run_resolve_hash(b->run, k == K_FNAME ? DFS_HASH_FILE : DFS_HASH_HOST, w->file[p->row],
                                             w->offset[p->row], p->hash);
            memcpy(w->col[c] + p->row * 4, &s, 4);
        }
    }
}

/* A categorical column: the ids its rows use get codes in the order of their texts. Names and
 * categories keep "" (id 0) as a category; elsewhere id 0 is a missing value. */
static bool build_category(building *b, size_t c, kind k)
{
    if (k == K_FNAME || k == K_HOST)
        resolve_pending(b, c, k);
    bool zero_missing = k != K_FILE && k != K_PHASE && k != K_NAME && k != K_CAT;
    uint32_t max = 0;
    for (size_t s = 0; s < b->nseg; s++) {
        const segment *sg = &b->seg[s];
        const worker *w = b->ec->workers.v[sg->worker];
        for (size_t r = sg->start; r < sg->start + sg->count; r++) {
            uint32_t id = id_at(w, c, k, r);
            max = id > max ? id : max;
        }
    }
    coder cd = {.nids = (size_t)max + 1};
    cd.code = malloc(cd.nids * sizeof *cd.code);
    uint8_t *used = calloc(cd.nids, 1);
    dfs_ec_column *o = &b->ec->out[c];
    bool ok = cd.code && used && alloc_column(o, DFS_EC_CATEGORY, b->ec->nrows, false);
    for (size_t s = 0; ok && s < b->nseg; s++) {
        const segment *sg = &b->seg[s];
        const worker *w = b->ec->workers.v[sg->worker];
        for (size_t r = sg->start; r < sg->start + sg->count; r++) {
            uint32_t id = id_at(w, c, k, r);
            used[id] = !(zero_missing && id == 0);
        }
    }
    ok = ok && make_categories(o, &cd, used,
                               k == K_FILE ? file_text : k == K_PHASE ? phase_text : str_text, b->run);
    int32_t *out = o->values;
    size_t at = 0;
    for (size_t s = 0; ok && s < b->nseg; s++) {
        const segment *sg = &b->seg[s];
        const worker *w = b->ec->workers.v[sg->worker];
        for (size_t r = sg->start; r < sg->start + sg->count; r++) {
            uint32_t id = id_at(w, c, k, r);
            out[at++] = used[id] ? cd.code[id] : -1;
        }
    }
    free(cd.code);
    free(used);
    return ok;
}

/* An argument column takes the type of its values: texts when any is a text (categories; the
 * numbers among them missing), else floats when any is a float (NaN where absent), else unsigned
 * integers when any is above INT64_MAX, else integers (missing where absent). */
static bool build_arg(building *b, size_t c)
{
    bool any_float = false, any_text = false, any_uint = false;
    for (size_t s = 0; s < b->nseg; s++) {
        const segment *sg = &b->seg[s];
        const worker *w = b->ec->workers.v[sg->worker];
        for (size_t r = sg->start; r < sg->start + sg->count; r++) {
            uint8_t tag = (uint8_t)w->col[c][r * 16];
            any_float |= tag == A_FLOAT;
            any_text |= tag == A_STR;
            any_uint |= tag == A_UINT;
        }
    }
    if (any_text) /* the numbers among texts are missing */
        return build_category(b, c, K_ARG);
    dfs_ec_column *o = &b->ec->out[c];
    dfs_ec_type type = any_float ? DFS_EC_FLOAT64 : any_uint ? DFS_EC_UINT64 : DFS_EC_INT64;
    if (!alloc_column(o, type, b->ec->nrows, !any_float))
        return false;
    size_t at = 0, nmissing = 0;
    for (size_t s = 0; s < b->nseg; s++) {
        const segment *sg = &b->seg[s];
        const worker *w = b->ec->workers.v[sg->worker];
        for (size_t r = sg->start; r < sg->start + sg->count; r++, at++) {
            argval a;
            memcpy(&a, w->col[c] + r * 16, sizeof a);
            if (type == DFS_EC_FLOAT64) {
                ((double *)o->values)[at] = a.tag == A_FLOAT ? a.as.f
                                            : a.tag == A_INT ? (double)a.as.i
                                            : a.tag == A_UINT ? (double)a.as.u
                                                              : NAN;
                continue;
            }
            bool have = a.tag == A_INT || a.tag == A_UINT;
            ((int64_t *)o->values)[at] = have ? a.as.i : 0; /* the same bits for a u64 */
            o->missing[at] = !have;
            nmissing += !have;
        }
    }
    if (o->missing && nmissing == 0) {
        free(o->missing);
        o->missing = NULL;
    }
    return true;
}

static bool finish_column(building *b, size_t c)
{
    kind k = b->ec->spec[c].kind;
    switch (k) {
    case K_TS:
    case K_DUR:
    case K_PID:
    case K_TID:
    case K_ID:
    case K_OFFSET:
        return build_int(b, c, k);
    case K_ARG:
        return build_arg(b, c);
    default:
        return build_category(b, c, k);
    }
}

/* The workers' array of column c, once its output is built. */
static void drop_worker_column(dfs_evcols *ec, size_t c)
{
    for (size_t i = 0; i < ec->workers.n; i++) {
        free(ec->workers.v[i]->col[c]);
        ec->workers.v[i]->col[c] = NULL;
    }
}

bool dfs_evcols_finish(dfs_evcols *ec, const dfs_run *run, char *err, size_t errlen)
{
    bool nomem = ec->nomem;
    for (size_t i = 0; i < ec->workers.n; i++) {
        worker *w = ec->workers.v[i];
        nomem |= w->nomem;
        dfs_pred_error pe;
        if (w->pred && dfs_pred_set_failed(w->pred, &pe)) {
            char why[512] = "";
            dfs_pred_note_failure(why, sizeof why, "where", ec->where, &pe);
            snprintf(err, errlen, "%s", why);
            return false;
        }
    }
    if (nomem) {
        snprintf(err, errlen, "out of memory while keeping the events");
        return false;
    }
    size_t nseg = 0;
    segment *seg = order(ec, &nseg);
    if (!seg) {
        snprintf(err, errlen, "out of memory while ordering the events");
        return false;
    }
    building b = {.ec = ec, .run = run, .seg = seg, .nseg = nseg};
    bool ok = true;
    for (size_t c = 0; c < ec->ncol && ok; c++) {
        ok = finish_column(&b, c);
        if (!ok)
            snprintf(err, errlen, "out of memory building the column '%s'", ec->out[c].name);
        drop_worker_column(ec, c);
    }
    free(seg);
    return ok;
}
