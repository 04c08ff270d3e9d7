/* merge.c - the merge consumer: what each reading thread keeps of the events (encoded records
 * in its buffer, spilled when its share of the budget is used) and learns about them (lanes,
 * threads, Composer ranks and clocks, flow ids), merged when the threads end. */
#include <stdlib.h>
#include <string.h>

#include "output/merge/merge_internal.h"
#include "util/memlimit.h"

/* Top-level keys the model has no field for that a Chrome viewer needs (instant scope, flow
 * binding, flow v2) and the value of an smdebug system-metric sample. */
static const char *const extra_keys[] = {"Value", "s", "bp", "bind_id", "flow_in", "flow_out", NULL};
static const char *const no_extra[] = {NULL};

void dfs_merge_options_init(dfs_merge_options *o)
{
    memset(o, 0, sizeof *o);
}

/* The default budget; under an address-space limit, a quarter of what is left of it (sorted runs
 * are spilled sooner), leaving the rest to the reading threads (a stack, an allocator arena and a
 * read buffer each), the string table and the lanes. */
static uint64_t default_budget(uint64_t *limit)
{
    dfs_memlimit lim;
    *limit = 0;
    if (!dfs_memlimit_get(&lim))
        return DFS_MERGE_DEFAULT_MEMORY;
    uint64_t quarter = dfs_memlimit_left(&lim) / 4;
    if (quarter >= DFS_MERGE_DEFAULT_MEMORY)
        return DFS_MERGE_DEFAULT_MEMORY;
    *limit = lim.limit;
    return quarter < DFS_MERGE_MIN_MEMORY ? DFS_MERGE_MIN_MEMORY : quarter;
}

/* ---- encoding ------------------------------------------------------------------------------------- */

static size_t flat_count(const dfs_arg *args, uint32_t n)
{
    size_t c = n;
    for (uint32_t i = 0; i < n; i++)
        if (args[i].val.type == DFS_V_LIST || args[i].val.type == DFS_V_MAP)
            c += flat_count(args[i].val.as.items, args[i].val.len);
    return c;
}

static unsigned char *flat_put(unsigned char *p, const dfs_arg *args, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        const dfs_value *v = &args[i].val;
        mflat f = {args[i].key, v->type, v->flags, 0, v->len, 0, 0};
        bool container = v->type == DFS_V_LIST || v->type == DFS_V_MAP;
        if (!container)
            memcpy(&f.bits, &v->as, sizeof f.bits);
        memcpy(p, &f, sizeof f);
        p += sizeof f;
        if (container)
            p = flat_put(p, v->as.items, v->len);
    }
    return p;
}

static bool encode(mbuf *b, const dfs_event *ev)
{
    size_t nflat = flat_count(ev->args, ev->nargs);
    size_t size = sizeof(mhdr) + sizeof(mbody) + nflat * sizeof(mflat);
    if (size > UINT32_MAX)
        return false;
    bool meta = ev->phase == DFS_PHASE_METADATA;
    mhdr h = {(uint32_t)size, ev->file, (ev->flags & DFS_EF_HAS_TS) ? ev->ts : INT64_MIN,
              ev->offset, meta ? MCLS_META : MCLS_EVENT, {0}};
    unsigned char *rec = mbuf_add(b, &h);
    if (!rec)
        return false;
    mbody body = {ev->ts, ev->dur, ev->pid, ev->tid, ev->id, ev->fhash, ev->hhash,
                  ev->name, ev->cat, ev->pid_str, ev->tid_str, ev->fname, ev->host,
                  ev->flags, (uint32_t)nflat, ev->nargs, ev->type, ev->phase, ev->ph};
    memcpy(rec + sizeof h, &body, sizeof body);
    flat_put(rec + sizeof h + sizeof body, ev->args, ev->nargs);
    return true;
}

/* Rebuilds `n` args from the flat values at *p (bounded by end). */
static dfs_arg *flat_get(const unsigned char **p, const unsigned char *end, uint32_t n,
                         dfs_arena *a, unsigned depth)
{
    dfs_arg *args = dfs_arena_alloc(a, (n ? n : 1) * sizeof *args);
    if (!args || depth > 64)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        mflat f;
        if ((size_t)(end - *p) < sizeof f)
            return NULL;
        memcpy(&f, *p, sizeof f);
        *p += sizeof f;
        dfs_value v = {.type = f.type, .flags = f.flags, .len = f.len};
        if (f.type == DFS_V_LIST || f.type == DFS_V_MAP) {
            if (f.len > (size_t)(end - *p) / sizeof f)
                return NULL;
            v.as.items = flat_get(p, end, f.len, a, depth + 1);
            if (!v.as.items)
                return NULL;
        } else {
            memcpy(&v.as, &f.bits, sizeof f.bits);
        }
        args[i] = (dfs_arg){f.key, v};
    }
    return args;
}

bool mdecode(const unsigned char *rec, size_t size, dfs_event *ev, dfs_arena *a)
{
    mhdr h;
    mbody body;
    if (size < sizeof h + sizeof body)
        return false;
    memcpy(&h, rec, sizeof h);
    memcpy(&body, rec + sizeof h, sizeof body);
    memset(ev, 0, sizeof *ev);
    *ev = (dfs_event){.ts = body.ts, .dur = body.dur, .pid = body.pid, .tid = body.tid,
                      .id = body.id, .offset = h.offset, .fhash = body.fhash, .hhash = body.hhash,
                      .name = body.name, .cat = body.cat, .pid_str = body.pid_str,
                      .tid_str = body.tid_str, .fname = body.fname, .host = body.host,
                      .file = h.file, .flags = body.flags, .nargs = body.nargs,
                      .type = body.type, .phase = body.phase, .ph = body.ph};
    const unsigned char *p = rec + sizeof h + sizeof body, *end = rec + size;
    if (body.nflat > (size_t)(end - p) / sizeof(mflat))
        return false;
    ev->args = flat_get(&p, end, body.nargs, a, 0);
    return ev->args != NULL;
}

/* ---- what the threads learn ------------------------------------------------------------------------ */

static void seen_init(mseen *s)
{
    memset(s, 0, sizeof *s);
    dfs_keymap_init(&s->lane_map, sizeof(mlane_key));
    dfs_keymap_init(&s->thread_map, sizeof(mthread_key));
}

static void seen_free(mseen *s)
{
    dfs_keymap_free(&s->lane_map);
    dfs_keymap_free(&s->thread_map);
    dfs_vec_free(&s->lanes);
    dfs_vec_free(&s->threads);
    dfs_vec_free(&s->ids);
}

static mlane *lane_at(mseen *s, const mlane_key *k)
{
    uint32_t idx;
    bool fresh;
    if (!dfs_keymap_get_or_put(&s->lane_map, k, (uint32_t)s->lanes.n, &idx, &fresh))
        return NULL;
    if (fresh) {
        mlane l = {.key = *k};
        if (!dfs_vec_push(&s->lanes, l))
            return NULL;
    }
    return &s->lanes.v[idx];
}

static mthread *thread_at(mseen *s, const mthread_key *k)
{
    uint32_t idx;
    bool fresh;
    if (!dfs_keymap_get_or_put(&s->thread_map, k, (uint32_t)s->threads.n, &idx, &fresh))
        return NULL;
    if (fresh) {
        mthread t = {.key = *k, .first_off = UINT64_MAX};
        if (!dfs_vec_push(&s->threads, t))
            return NULL;
    }
    return &s->threads.v[idx];
}

static mfile_ids *ids_at(mseen *s, uint32_t file)
{
    while (s->ids.n <= file) {
        mfile_ids none = {0, 0, false};
        if (!dfs_vec_push(&s->ids, none))
            return NULL;
    }
    return &s->ids.v[file];
}

mlane_key mlane_key_of(const dfs_event *ev)
{
    mlane_key k = {ev->file, (ev->flags & DFS_EF_HAS_PID) ? 1u : 0u,
                   (ev->flags & DFS_EF_HAS_PID) ? ev->pid : 0};
    return k;
}

mthread_key mthread_key_of(const dfs_event *ev)
{
    mthread_key k = {ev->file, (ev->flags & DFS_EF_HAS_PID) ? 1u : 0u,
                     (ev->flags & DFS_EF_HAS_PID) ? ev->pid : 0, ev->tid};
    return k;
}

bool mstr_is(const dfs_run *run, dfs_str s, const char *lit)
{
    size_t n;
    const char *t = dfs_str_get(run, s, &n);
    return t && n == strlen(lit) && memcmp(t, lit, n) == 0;
}

bool mcomposer_junk(const dfs_run *run, const dfs_event *ev)
{
    if (!(ev->flags & DFS_EF_HAS_PID) || !(ev->flags & DFS_EF_HAS_TID))
        return true;
    if (!(ev->flags & DFS_EF_TID_STR))
        return false;
    size_t n;
    const char *t = dfs_str_get(run, ev->tid_str, &n);
    return t && memmem(t, n, "PyTorch Profiler", 16) != NULL;
}

/* The integer args.value of a Composer metadata record. */
static bool meta_value(const dfs_event *ev, int64_t *v, bool *is_int)
{
    const dfs_value *val = dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_VALUE));
    if (!dfs_value_int(val, v))
        return false;
    *is_int = val->type == DFS_V_INT && !(val->flags & DFS_VF_FROM_STRING);
    return true;
}

static void see_meta(mlane *l, const dfs_run *run, const dfs_event *ev)
{
    int64_t v;
    bool is_int;
    if (mstr_is(run, ev->name, "process_name")) {
        l->has_pname = true;
    } else if (mstr_is(run, ev->name, "global_rank")) {
        if ((!l->has_rank || ev->offset < l->rank_off) && meta_value(ev, &v, &is_int)) {
            l->has_rank = true;
            l->rank = v;
            l->rank_off = ev->offset;
            l->rank_is_int = is_int;
        }
    } else if (mstr_is(run, ev->name, "clock_sync_timestamp_us")) {
        if ((!l->has_clock || ev->offset < l->clock_off) && meta_value(ev, &v, &is_int)) {
            l->has_clock = true;
            l->clock_us = v;
            l->clock_off = ev->offset;
        }
    }
}

static bool see_event(mseen *s, const dfs_run *run, const dfs_event *ev)
{
    mlane_key lk = mlane_key_of(ev);
    mlane *l = lane_at(s, &lk);
    if (!l)
        return false;
    l->events++;
    l->is_str = (ev->flags & DFS_EF_PID_STR) != 0;
    l->pid_str = ev->pid_str;
    if (ev->phase == DFS_PHASE_METADATA)
        see_meta(l, run, ev);
    if (mstr_is(run, ev->name, "MulBackward0") && (!l->has_mul || ev->offset > l->mul_off)) {
        l->has_mul = true;
        l->mul_off = ev->offset;
        l->mul_tid = ev->tid;
        l->mul_tid_str = ev->tid_str;
        l->mul_tflags = ev->flags & (DFS_EF_HAS_TID | DFS_EF_TID_STR);
    }
    if (!mcomposer_junk(run, ev)) {
        mthread_key tk = mthread_key_of(ev);
        mthread *t = thread_at(s, &tk);
        if (!t)
            return false;
        if (ev->offset < t->first_off) {
            t->first_off = ev->offset;
            t->tid_str = ev->tid_str;
            t->tid_is_str = (ev->flags & DFS_EF_TID_STR) != 0;
        }
    }
    if ((ev->phase == DFS_PHASE_FLOW || ev->phase == DFS_PHASE_ASYNC) && (ev->flags & DFS_EF_HAS_ID)) {
        mfile_ids *ids = ids_at(s, ev->file);
        if (!ids)
            return false;
        if (!ids->have || ev->id < ids->lo)
            ids->lo = ev->id;
        if (!ids->have || ev->id > ids->hi)
            ids->hi = ev->id;
        ids->have = true;
    }
    return true;
}

static bool merge_lane(mseen *into, const mlane *l)
{
    mlane *g = lane_at(into, &l->key);
    if (!g)
        return false;
    g->events += l->events;
    g->is_str = l->is_str;
    g->pid_str = l->pid_str;
    g->has_pname |= l->has_pname;
    if (l->has_rank && (!g->has_rank || l->rank_off < g->rank_off)) {
        g->has_rank = true;
        g->rank = l->rank;
        g->rank_off = l->rank_off;
        g->rank_is_int = l->rank_is_int;
    }
    if (l->has_clock && (!g->has_clock || l->clock_off < g->clock_off)) {
        g->has_clock = true;
        g->clock_us = l->clock_us;
        g->clock_off = l->clock_off;
    }
    if (l->has_mul && (!g->has_mul || l->mul_off > g->mul_off)) {
        g->has_mul = true;
        g->mul_off = l->mul_off;
        g->mul_tid = l->mul_tid;
        g->mul_tid_str = l->mul_tid_str;
        g->mul_tflags = l->mul_tflags;
    }
    return true;
}

static bool seen_merge(mseen *into, const mseen *from)
{
    for (size_t i = 0; i < from->lanes.n; i++)
        if (!merge_lane(into, &from->lanes.v[i]))
            return false;
    for (size_t i = 0; i < from->threads.n; i++) {
        const mthread *t = &from->threads.v[i];
        mthread *g = thread_at(into, &t->key);
        if (!g)
            return false;
        if (t->first_off < g->first_off) {
            g->first_off = t->first_off;
            g->tid_str = t->tid_str;
            g->tid_is_str = t->tid_is_str;
        }
    }
    for (uint32_t f = 0; f < from->ids.n; f++) {
        const mfile_ids *t = &from->ids.v[f];
        mfile_ids *g = t->have ? ids_at(into, f) : NULL;
        if (t->have && !g)
            return false;
        if (!t->have)
            continue;
        g->lo = !g->have || t->lo < g->lo ? t->lo : g->lo;
        g->hi = !g->have || t->hi > g->hi ? t->hi : g->hi;
        g->have = true;
    }
    return true;
}

/* ---- the consumer ------------------------------------------------------------------------------------ */

typedef struct mworker {
    dfs_merge *m;
    mbuf buf;
    mseen seen;
    uint64_t share;   /* this thread's part of the budget */
} mworker;

static void *worker_begin(void *user)
{
    dfs_merge *m = user;
    mworker *w = calloc(1, sizeof *w);
    if (!w) {
        atomic_store(&m->failed, 1);
        return NULL;
    }
    w->m = m;
    m->nworkers++; /* worker_begin is called for every thread before any of them reads */
    uint64_t block = m->opt.memory / 16;
    mbuf_init(&w->buf, block < (16u << 10) ? (16u << 10) : block > (4u << 20) ? (4u << 20) : block);
    seen_init(&w->seen);
    return w;
}

/* Encodes an event into the thread's buffer. When memory runs short first (a limit the budget
 * did not foresee), the buffer is spilled, its blocks kept for reuse, and the thread's share
 * lowered to what it held: reading goes on in the memory there is, spilling sooner. */
static bool encode_or_spill(mworker *w, const dfs_event *ev)
{
    if (encode(&w->buf, ev))
        return true;
    uint64_t held = w->buf.bytes;
    if (!held || !mstore_spill(&w->m->store, &w->buf))
        return false;
    w->share = held;
    atomic_store(&w->m->squeezed, 1);
    return encode(&w->buf, ev);
}

static void on_batch(void *ws, const dfs_run *run, const dfs_batch *batch)
{
    mworker *w = ws;
    if (!w || atomic_load(&w->m->failed))
        return;
    dfs_merge *m = w->m;
    if (!w->share)
        w->share = m->opt.memory / (m->nworkers ? m->nworkers : 1);
    for (size_t i = 0; i < batch->count; i++) {
        const dfs_event *ev = &batch->events[i];
        bool ok = see_event(&w->seen, run, ev) && (m->opt.compat_composer || encode_or_spill(w, ev));
        if (ok && w->buf.bytes >= w->share)
            ok = mstore_spill(&m->store, &w->buf);
        if (!ok) {
            atomic_store(&m->failed, 1);
            return;
        }
    }
}

static void worker_end(void *user, const dfs_run *run, void *ws)
{
    (void)run;
    dfs_merge *m = user;
    mworker *w = ws;
    if (!w)
        return;
    if (!atomic_load(&m->failed) &&
        (!seen_merge(&m->seen, &w->seen) || !mstore_take(&m->store, &w->buf)))
        atomic_store(&m->failed, 1);
    mbuf_free(&w->buf);
    seen_free(&w->seen);
    free(w);
}

dfs_merge *dfs_merge_new(const dfs_merge_options *o, char *err, size_t errlen)
{
    if (o->memory && o->memory < DFS_MERGE_MIN_MEMORY) {
        snprintf(err, errlen, "the memory budget must be at least 64k");
        return NULL;
    }
    uint64_t limit = 0;
    uint64_t memory = o->memory ? o->memory : default_budget(&limit);
    const char *tmp = o->tmpdir ? o->tmpdir : getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    dfs_merge *m = calloc(1, sizeof *m);
    if (!m || !mstore_init(&m->store, memory, tmp)) {
        free(m);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    m->opt = *o;
    m->opt.memory = memory;
    m->limit = limit;
    m->opt.tmpdir = m->store.tmpdir;
    atomic_init(&m->failed, 0);
    atomic_init(&m->squeezed, 0);
    seen_init(&m->seen);
    m->consumer.user = m;
    m->consumer.worker_begin = worker_begin;
    m->consumer.on_batch = on_batch;
    m->consumer.worker_end = worker_end;
    if (o->compat_composer) {
        m->consumer.want.keys = DFS_KEYBIT(DFS_KEY_VALUE);
        m->consumer.want.extra = no_extra;
    } else {
        m->consumer.want.all_args = true;
        m->consumer.want.extra = extra_keys;
    }
    return m;
}

void dfs_merge_free(dfs_merge *m)
{
    if (!m)
        return;
    mstore_free(&m->store);
    seen_free(&m->seen);
    free(m);
}

dfs_consumer *dfs_merge_consumer(dfs_merge *m)
{
    return &m->consumer;
}

dfs_status dfs_merge_write(dfs_merge *m, const dfs_run *run, FILE *out, dfs_merge_report *rep,
                           char *err, size_t errlen)
{
    dfs_merge_report local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    dfs_status st;
    if (atomic_load(&m->failed)) {
        snprintf(err, errlen, "%s", m->store.err ? m->store.errmsg
                                                 : "out of memory while reading (a smaller --memory spills sooner)");
        st = m->store.err ? DFS_ERR_IO : DFS_ERR_NOMEM;
    } else {
        st = m->opt.compat_composer ? dfs_merge_write_composer(m, run, out, rep, err, errlen)
                                    : mwrite_default(m, run, out, rep, err, errlen);
    }
    if (atomic_load(&m->squeezed))
        mreport_warn(rep, "memory ran short while reading: sorted runs were spilled sooner than --memory asks");
    if (m->limit && !m->opt.compat_composer)
        mreport_warn(rep, "the address space is limited to %llu MiB (ulimit -v): sorting in %llu MiB, not %u MiB "
                          "(--memory sets it)",
                     (unsigned long long)(m->limit >> 20), (unsigned long long)(m->opt.memory >> 20),
                     DFS_MERGE_DEFAULT_MEMORY >> 20);
    if (rep == &local)
        dfs_merge_report_free(&local);
    return st;
}
