/* pack.c - packed buffers with a string dictionary (pack.h). */
#include "wire/pack.h"

#include <stdlib.h>
#include <string.h>

#include "read/run.h"
#include "util/hash.h"

static const unsigned char magic[4] = {'D', 'F', 'S', '1'};

/* ---- writing --------------------------------------------------------------------------------- */

void dfs_pack_init(dfs_pack *w, const dfs_run *run)
{
    memset(w, 0, sizeof *w);
    w->run = run;
    dfs_u64map_init(&w->index);
}

void dfs_pack_free(dfs_pack *w)
{
    dfs_vec_free(&w->body);
    dfs_vec_free(&w->dict);
    dfs_u64map_free(&w->index);
}

static void put(dfs_pack *w, const void *p, size_t n)
{
    if (w->failed || !dfs_vec_reserve(&w->body, n)) {
        w->failed = true;
        return;
    }
    if (n)
        memcpy(w->body.v + w->body.n, p, n);
    w->body.n += n;
}

void dfs_pack_u64(dfs_pack *w, uint64_t v)
{
    unsigned char b[10];
    size_t n = 0;
    do {
        b[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            b[n] |= 0x80;
        n++;
    } while (v);
    put(w, b, n);
}

void dfs_pack_i64(dfs_pack *w, int64_t v)
{
    dfs_pack_u64(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void dfs_pack_u128(dfs_pack *w, unsigned __int128 v)
{
    dfs_pack_u64(w, (uint64_t)v);
    dfs_pack_u64(w, (uint64_t)(v >> 64));
}

void dfs_pack_f64(dfs_pack *w, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(bits >> (8 * i));
    put(w, b, 8);
}

void dfs_pack_bool(dfs_pack *w, bool v)
{
    unsigned char b = v ? 1 : 0;
    put(w, &b, 1);
}

void dfs_pack_str(dfs_pack *w, dfs_str s)
{
    if (s == 0) {
        dfs_pack_u64(w, 0);
        return;
    }
    uint32_t at;
    if (!dfs_u64map_get(&w->index, s, &at)) {
        if (!dfs_vec_push(&w->dict, s) || !dfs_u64map_put(&w->index, s, (uint32_t)w->dict.n)) {
            w->failed = true;
            return;
        }
        at = (uint32_t)w->dict.n;
    }
    dfs_pack_u64(w, at);
}

void dfs_pack_text(dfs_pack *w, const char *s, size_t n)
{
    dfs_pack_u64(w, n);
    put(w, s, n);
}

void dfs_pack_cstr(dfs_pack *w, const char *s)
{
    dfs_pack_bool(w, s != NULL);
    if (s)
        dfs_pack_text(w, s, strlen(s));
}

bool dfs_pack_finish(dfs_pack *w, void **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    dfs_pack head;
    dfs_pack_init(&head, w->run);
    put(&head, magic, sizeof magic);
    dfs_pack_u64(&head, w->dict.n);
    for (size_t i = 0; i < w->dict.n; i++) {
        size_t n;
        const char *t = dfs_str_get(w->run, w->dict.v[i], &n);
        dfs_pack_text(&head, t, n);
    }
    bool ok = !w->failed && !head.failed;
    unsigned char *out = ok ? malloc(head.body.n + w->body.n) : NULL;
    if (out) {
        memcpy(out, head.body.v, head.body.n);
        if (w->body.n)
            memcpy(out + head.body.n, w->body.v, w->body.n);
        *buf = out;
        *len = head.body.n + w->body.n;
    }
    dfs_pack_free(&head);
    w->failed |= out == NULL;
    return out != NULL;
}

/* ---- reading --------------------------------------------------------------------------------- */

static bool take(dfs_unpack *r, void *out, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        memset(out, 0, n);
        return false;
    }
    memcpy(out, r->p, n);
    r->p += n;
    return true;
}

uint64_t dfs_unpack_u64(dfs_unpack *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0; !r->bad; shift += 7) {
        if (r->p == r->end || shift > 63) {
            r->bad = true;
            break;
        }
        unsigned char b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    return 0;
}

int64_t dfs_unpack_i64(dfs_unpack *r)
{
    uint64_t u = dfs_unpack_u64(r);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

uint32_t dfs_unpack_u32(dfs_unpack *r)
{
    uint64_t v = dfs_unpack_u64(r);
    if (v > UINT32_MAX) {
        r->bad = true;
        return 0;
    }
    return (uint32_t)v;
}

unsigned __int128 dfs_unpack_u128(dfs_unpack *r)
{
    uint64_t lo = dfs_unpack_u64(r), hi = dfs_unpack_u64(r);
    return (unsigned __int128)hi << 64 | lo;
}

double dfs_unpack_f64(dfs_unpack *r)
{
    unsigned char b[8];
    if (!take(r, b, 8))
        return 0;
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++)
        bits |= (uint64_t)b[i] << (8 * i);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

bool dfs_unpack_bool(dfs_unpack *r)
{
    unsigned char b;
    if (!take(r, &b, 1))
        return false;
    if (b > 1)
        r->bad = true;
    return b == 1;
}

dfs_str dfs_unpack_str(dfs_unpack *r)
{
    uint64_t at = dfs_unpack_u64(r);
    if (at == 0)
        return 0;
    if (at > r->ndict) {
        r->bad = true;
        return 0;
    }
    return r->dict[at - 1];
}

const char *dfs_unpack_text(dfs_unpack *r, size_t *n)
{
    uint64_t len = dfs_unpack_u64(r);
    if (r->bad || len > (uint64_t)(r->end - r->p)) {
        r->bad = true;
        *n = 0;
        return "";
    }
    const char *s = (const char *)r->p;
    r->p += len;
    *n = (size_t)len;
    return s;
}

char *dfs_unpack_cstr(dfs_unpack *r, dfs_arena *a)
{
    if (!dfs_unpack_bool(r))
        return NULL;
    size_t n;
    const char *s = dfs_unpack_text(r, &n);
    if (r->bad)
        return NULL;
    char *copy = dfs_arena_strdup(a, s, n);
    if (!copy)
        r->bad = true;
    return copy;
}

size_t dfs_unpack_count(dfs_unpack *r, size_t min_bytes)
{
    uint64_t n = dfs_unpack_u64(r);
    size_t left = (size_t)(r->end - r->p);
    if (r->bad || (min_bytes && n > left / min_bytes) || n > SIZE_MAX / 64) {
        r->bad = true;
        return 0;
    }
    return (size_t)n;
}

bool dfs_unpack_ok(const dfs_unpack *r)
{
    return !r->bad && r->p == r->end;
}

bool dfs_unpack_init(dfs_unpack *r, dfs_run *run, const void *buf, size_t len)
{
    memset(r, 0, sizeof *r);
    r->p = buf;
    r->end = r->p + len;
    unsigned char m[sizeof magic];
    if (!buf || !take(r, m, sizeof m) || memcmp(m, magic, sizeof m) != 0) {
        r->bad = true;
        return false;
    }
    size_t n = dfs_unpack_count(r, 1);
    if (n && !run) { /* a buffer of numbers and inline texts only has no dictionary */
        r->bad = true;
        return false;
    }
    r->dict = malloc((n ? n : 1) * sizeof *r->dict);
    if (!r->dict) {
        r->bad = true;
        return false;
    }
    for (size_t i = 0; i < n && !r->bad; i++) {
        size_t tn;
        const char *t = dfs_unpack_text(r, &tn);
        r->dict[i] = dfs_run_intern(run, t, tn);
        if (!r->dict[i] && tn)
            r->bad = true; /* the string table is full or out of memory */
        r->ndict = i + 1;
    }
    return !r->bad;
}

void dfs_unpack_free(dfs_unpack *r)
{
    free(r->dict);
    r->dict = NULL;
    r->ndict = 0;
}

uint64_t dfs_unit_hash(const dfs_run *run, uint64_t hhash, dfs_str host, int64_t pid, int64_t tid)
{
    size_t n = 0;
    const char *t = host ? dfs_str_get(run, host, &n) : "";
    uint64_t h = dfs_hash64(t, n);
    uint64_t k[4] = {hhash, h, (uint64_t)pid, (uint64_t)tid};
    return dfs_hash64(k, sizeof k);
}

static void pack_named_key(dfs_pack *w, uint64_t kind, uint64_t value)
{
    dfs_pack_u64(w, kind);
    if (kind == 2)
        dfs_pack_str(w, (dfs_str)value);
    else
        dfs_pack_u64(w, value);
}

/* One key into k; false on a bad buffer or kind. */
static bool unpack_named_key(dfs_unpack *r, uint64_t k[2])
{
    k[0] = dfs_unpack_u64(r);
    k[1] = k[0] == 2 ? dfs_unpack_str(r) : dfs_unpack_u64(r);
    return !r->bad && (k[0] == 1 || k[0] == 2);
}

void dfs_pack_named_keys(dfs_pack *w, const dfs_keyset *set)
{
    dfs_pack_u64(w, set->count);
    size_t it = 0;
    for (const uint64_t *k; (k = dfs_keyset_next(set, &it)) != NULL;)
        pack_named_key(w, k[0], k[1]);
}

bool dfs_unpack_named_keys(dfs_unpack *r, dfs_keyset *set)
{
    size_t n = dfs_unpack_count(r, 2);
    for (size_t i = 0; i < n && !r->bad; i++) {
        uint64_t k[2];
        if (!unpack_named_key(r, k) || dfs_keyset_add(set, k) < 0)
            return false;
    }
    return !r->bad;
}

void dfs_pack_named_sortset(dfs_pack *w, const dfs_sortset *set)
{
    dfs_pack_u64(w, set->n);
    for (size_t i = 0; i < set->n; i++)
        pack_named_key(w, set->v[i].hi, set->v[i].lo);
}

bool dfs_unpack_named_sortset(dfs_unpack *r, dfs_sortset *set)
{
    size_t n = dfs_unpack_count(r, 2);
    for (size_t i = 0; i < n && !r->bad; i++) {
        uint64_t k[2];
        if (!unpack_named_key(r, k) || !dfs_sortset_add(set, (dfs_key128){k[0], k[1]}))
            return false;
    }
    return !r->bad;
}

void dfs_pack_i64_keys(dfs_pack *w, const dfs_keyset *set)
{
    dfs_pack_u64(w, set->count);
    size_t it = 0;
    for (const int64_t *v; (v = dfs_keyset_next(set, &it)) != NULL;)
        dfs_pack_i64(w, *v);
}

bool dfs_unpack_i64_keys(dfs_unpack *r, dfs_keyset *set)
{
    size_t n = dfs_unpack_count(r, 1);
    for (size_t i = 0; i < n && !r->bad; i++) {
        int64_t v = dfs_unpack_i64(r);
        if (dfs_keyset_add(set, &v) < 0)
            return false;
    }
    return !r->bad;
}

void dfs_pack_u64s(dfs_pack *w, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dfs_pack_u64(w, v[i]);
}

void dfs_pack_i64s(dfs_pack *w, const int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dfs_pack_i64(w, v[i]);
}

void dfs_unpack_u64s(dfs_unpack *r, uint64_t *const *to, size_t n)
{
    for (size_t i = 0; i < n; i++)
        *to[i] = dfs_unpack_u64(r);
}

void dfs_unpack_i64s(dfs_unpack *r, int64_t *const *to, size_t n)
{
    for (size_t i = 0; i < n; i++)
        *to[i] = dfs_unpack_i64(r);
}

void dfs_pack_texts(dfs_pack *w, const char *const *t, size_t n)
{
    dfs_pack_u64(w, n);
    for (size_t i = 0; i < n; i++)
        dfs_pack_text(w, t[i] ? t[i] : "", t[i] ? strlen(t[i]) : 0);
}
