/* clocks.c - the clock each input file's times went through, tracked per file (clocks.h). */
#include "analyze/common/clocks.h"

#include <stdlib.h>
#include <string.h>

#include "wire/pack.h"

void dfs_clock_track_init(dfs_clock_track *t)
{
    memset(t, 0, sizeof *t);
    dfs_keymap_init(&t->files, sizeof(uint32_t));
}

void dfs_clock_track_free(dfs_clock_track *t)
{
    dfs_keymap_free(&t->files);
    dfs_vec_free(&t->seen);
}

static dfs_file_clock clock_of(const dfs_run *run, const dfs_file_clock *given, size_t ngiven, uint32_t file)
{
    if (given && file < ngiven)
        return given[file];
    const dfs_file_info *fi = dfs_run_file(run, file);
    return (dfs_file_clock){fi->clock_offset_ns, fi->clock_scale_num, fi->clock_scale_den};
}

dfs_file_clock *dfs_run_final_clocks(const dfs_run *run)
{
    size_t n = dfs_run_file_count(run);
    dfs_file_clock *c = calloc(n ? n : 1, sizeof *c);
    for (size_t i = 0; c && i < n; i++)
        c[i] = clock_of(run, NULL, 0, (uint32_t)i);
    return c;
}

/* The entry of a file seen with clock c, added when new; `moved` set when c differs. */
static dfs_file_seen *entry(dfs_clock_track *t, uint32_t file, const dfs_file_seen *cur)
{
    uint32_t idx;
    bool fresh;
    if (!dfs_keymap_get_or_put(&t->files, &file, (uint32_t)t->seen.n, &idx, &fresh) ||
        (fresh && !dfs_vec_push(&t->seen, *cur)))
        return NULL;
    if (!fresh && memcmp(&t->seen.v[idx].clock, &cur->clock, sizeof cur->clock) != 0)
        t->moved = true;
    return &t->seen.v[idx];
}

/* The entry in slot i of t's map, its file in *file; NULL when the slot is empty. */
static const dfs_file_seen *slot_entry(const dfs_clock_track *t, size_t i, uint32_t *file)
{
    const void *key;
    uint32_t idx;
    if (!dfs_keymap_slot(&t->files, i, &key, &idx))
        return NULL;
    memcpy(file, key, sizeof *file);
    return &t->seen.v[idx];
}

dfs_file_seen *dfs_clock_track_file(dfs_clock_track *t, const dfs_run *run, const dfs_file_clock *given,
                                    size_t ngiven, uint32_t file)
{
    dfs_file_seen cur = {.clock = clock_of(run, given, ngiven, file), .min_raw = INT64_MAX};
    return entry(t, file, &cur);
}

bool dfs_clock_track_merge(dfs_clock_track *into, const dfs_clock_track *from)
{
    into->moved |= from->moved;
    for (size_t i = 0; i < from->files.cap; i++) {
        uint32_t file;
        const dfs_file_seen *c = slot_entry(from, i, &file);
        if (!c)
            continue;
        dfs_file_seen *mine = entry(into, file, c);
        if (!mine)
            return false;
        if (c->min_raw < mine->min_raw)
            mine->min_raw = c->min_raw;
        mine->have |= c->have;
    }
    return true;
}

bool dfs_clock_track_settle(const dfs_clock_track *t, const dfs_run *run, const dfs_file_clock *given,
                            size_t ngiven, int64_t (*apply)(const dfs_file_clock *, int64_t), int64_t *origin,
                            bool *have_origin)
{
    bool moved = t->moved;
    *have_origin = false;
    for (size_t i = 0; i < t->files.cap; i++) {
        uint32_t file;
        const dfs_file_seen *c = slot_entry(t, i, &file);
        if (!c)
            continue;
        dfs_file_clock fin = clock_of(run, given, ngiven, file);
        moved |= memcmp(&c->clock, &fin, sizeof fin) != 0;
        if (!c->have)
            continue;
        int64_t start = apply(&fin, c->min_raw);
        if (!*have_origin || start < *origin)
            *origin = start;
        *have_origin = true;
    }
    return moved;
}

int64_t dfs_clock_scale(const dfs_file_clock *c, int64_t t)
{
    if (c->den > 0 && (c->num != 1 || c->den != 1))
        return (int64_t)((__int128)t * c->num / c->den);
    return t;
}

int64_t dfs_clock_apply(const dfs_file_clock *c, int64_t t)
{
    int64_t s = dfs_clock_scale(c, t), r;
    return __builtin_add_overflow(s, c->offset_ns, &r) ? (c->offset_ns > 0 ? INT64_MAX : INT64_MIN) : r;
}

void dfs_clock_track_pack(dfs_pack *w, const dfs_clock_track *t)
{
    dfs_pack_bool(w, t->moved);
    dfs_pack_u64(w, t->files.count);
    for (size_t i = 0; i < t->files.cap; i++) {
        uint32_t file;
        const dfs_file_seen *s = slot_entry(t, i, &file);
        if (!s)
            continue;
        dfs_pack_u64(w, file);
        dfs_pack_i64(w, s->clock.offset_ns);
        dfs_pack_i64(w, s->clock.num);
        dfs_pack_i64(w, s->clock.den);
        dfs_pack_i64(w, s->min_raw);
        dfs_pack_bool(w, s->have);
    }
}

bool dfs_clock_track_unpack(dfs_unpack *r, dfs_clock_track *t)
{
    t->moved = dfs_unpack_bool(r);
    size_t n = dfs_unpack_count(r, 6);
    for (size_t i = 0; i < n && !r->bad; i++) {
        uint32_t file = dfs_unpack_u32(r);
        dfs_file_seen s;
        memset(&s, 0, sizeof s);
        s.clock.offset_ns = dfs_unpack_i64(r);
        s.clock.num = (int32_t)dfs_unpack_i64(r);
        s.clock.den = (int32_t)dfs_unpack_i64(r);
        s.min_raw = dfs_unpack_i64(r);
        s.have = dfs_unpack_bool(r);
        uint32_t idx;
        bool fresh;
        if (!dfs_keymap_get_or_put(&t->files, &file, (uint32_t)t->seen.n, &idx, &fresh) || !fresh ||
            !dfs_vec_push(&t->seen, s))
            return false;
    }
    return !r->bad;
}
