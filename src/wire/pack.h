/* pack.h - the wire format of a distributed run (docs/MPI.md).
 *
 * What one rank sends another is one packed buffer: a magic word, a dictionary of the strings the
 * body refers to (each distinct string once, as text: interned ids differ between ranks), then
 * the body of unsigned LEB128 varints, zigzag signed varints, IEEE doubles (8 bytes, little
 * endian) and inline texts. The reader interns the dictionary into its own run and translates
 * every string reference on the way in.
 *
 * Reading is defensive: a truncated or malformed buffer sets `bad`, after which every read returns
 * zero, so an unpacker needs no check per field, only one at the end (dfs_unpack_ok). Counts are
 * checked against the bytes left before anything is allocated for them.
 */
#ifndef DFS_PACK_H
#define DFS_PACK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfscope.h"
#include "util/arena.h"
#include "util/keyset.h"
#include "util/sortset.h"
#include "util/u64map.h"
#include "util/vec.h"

/* A growable array of u64 (a DFS_VEC), named so headers can declare it ahead. */
typedef struct dfs_u64vec {
    uint64_t *v;
    size_t n, cap;
} dfs_u64vec;

typedef struct dfs_pack {
    DFS_VEC(unsigned char) body;
    dfs_u64map index;      /* dfs_str -> position in dict + 1 */
    DFS_VEC(dfs_str) dict;
    const dfs_run *run;    /* where the strings come from */
    bool failed;           /* out of memory: the buffer is incomplete */
} dfs_pack;

void dfs_pack_init(dfs_pack *w, const dfs_run *run);
void dfs_pack_free(dfs_pack *w);
void dfs_pack_u64(dfs_pack *w, uint64_t v);
void dfs_pack_i64(dfs_pack *w, int64_t v);
void dfs_pack_u128(dfs_pack *w, unsigned __int128 v);
void dfs_pack_f64(dfs_pack *w, double v);
void dfs_pack_bool(dfs_pack *w, bool v);
/* A string of the run, through the dictionary (0, the empty string, costs one byte). */
void dfs_pack_str(dfs_pack *w, dfs_str s);
/* Inline bytes with their length; dfs_pack_cstr also tells NULL from "". */
void dfs_pack_text(dfs_pack *w, const char *s, size_t n);
void dfs_pack_cstr(dfs_pack *w, const char *s);
/* The buffer (malloc'd): magic, dictionary, body. false when out of memory (w->failed). */
bool dfs_pack_finish(dfs_pack *w, void **buf, size_t *len);

typedef struct dfs_unpack {
    const unsigned char *p, *end;
    dfs_str *dict;         /* dictionary position -> the reader's dfs_str */
    size_t ndict;
    bool bad;
} dfs_unpack;

/* Checks the magic and interns the dictionary into run (dfs_run_intern). false when the buffer
 * is malformed or memory runs out. */
bool dfs_unpack_init(dfs_unpack *r, dfs_run *run, const void *buf, size_t len);
void dfs_unpack_free(dfs_unpack *r);
uint64_t dfs_unpack_u64(dfs_unpack *r);
int64_t dfs_unpack_i64(dfs_unpack *r);
uint32_t dfs_unpack_u32(dfs_unpack *r);   /* a varint that must fit 32 bits */
unsigned __int128 dfs_unpack_u128(dfs_unpack *r);
double dfs_unpack_f64(dfs_unpack *r);
bool dfs_unpack_bool(dfs_unpack *r);
dfs_str dfs_unpack_str(dfs_unpack *r);
/* Inline text: a pointer into the buffer (not NUL-terminated), "" when bad. */
const char *dfs_unpack_text(dfs_unpack *r, size_t *n);
/* Inline text as a NUL-terminated copy in `a`; NULL for a packed NULL (or bad). */
char *dfs_unpack_cstr(dfs_unpack *r, dfs_arena *a);
/* A count of items that each take at least min_bytes of what is left: 0 (and bad) if it cannot
 * be, so a corrupt count never allocates much. */
size_t dfs_unpack_count(dfs_unpack *r, size_t min_bytes);
/* Everything read, nothing left over, never bad. */
bool dfs_unpack_ok(const dfs_unpack *r);

/* A set of {1, hash} or {2, name} keys (files and hosts known by hash, or by name where the trace
 * writes names), names as text; unpacking adds them to `set` (false: bad buffer or no memory). */
void dfs_pack_named_keys(dfs_pack *w, const dfs_keyset *set);
bool dfs_unpack_named_keys(dfs_unpack *r, dfs_keyset *set);
/* The same keys kept in a sortset as {hi, lo}, on the wire as above; repeats may travel (a set
 * not compacted yet), and the receiving set drops them when it compacts. */
void dfs_pack_named_sortset(dfs_pack *w, const dfs_sortset *set);
bool dfs_unpack_named_sortset(dfs_unpack *r, dfs_sortset *set);

/* A set of int64 keys (pids, tids); unpacking adds them to `set` (false: bad buffer or no memory). */
void dfs_pack_i64_keys(dfs_pack *w, const dfs_keyset *set);
bool dfs_unpack_i64_keys(dfs_unpack *r, dfs_keyset *set);

/* A block of fields whose number both sides know (a struct's counters or times): no count
 * travels. Unpacking stores through `to`, one pointer per field. */
void dfs_pack_u64s(dfs_pack *w, const uint64_t *v, size_t n);
void dfs_pack_i64s(dfs_pack *w, const int64_t *v, size_t n);
void dfs_unpack_u64s(dfs_unpack *r, uint64_t *const *to, size_t n);
void dfs_unpack_i64s(dfs_unpack *r, int64_t *const *to, size_t n);

/* A list of texts: the count, then each as dfs_pack_text (NULL travels as ""). */
void dfs_pack_texts(dfs_pack *w, const char *const *t, size_t n);

/* The packed 64-bit identity of a traced unit (host, pid, tid) for the unit census: the host as
 * text, so that equal units on different ranks agree (dist/dist.h). */
uint64_t dfs_unit_hash(const dfs_run *run, uint64_t hhash, dfs_str host, int64_t pid, int64_t tid);
#endif
