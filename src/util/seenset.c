/* seenset.c - the digest set of seenset.h: open addressing with linear probing, doubled when half
 * full, up to the capacity the set was made with. */
#include "util/seenset.h"

#include <stdlib.h>

enum { FIRST_SLOTS = 4096 };

void dfs_seenset_init(dfs_seenset *s, size_t max)
{
    memset(s, 0, sizeof *s);
    s->max = max;
}

void dfs_seenset_free(dfs_seenset *s)
{
    free(s->slot);
    dfs_seenset_init(s, s->max);
}

void dfs_seenset_clear(dfs_seenset *s)
{
    if (s->count)
        memset(s->slot, 0, (s->mask + 1) * sizeof *s->slot);
    s->count = 0;
}

/* The slot of d: where it is, or the empty slot where it belongs. */
static uint64_t *find(const dfs_seenset *s, uint64_t d)
{
    size_t i = (size_t)d & s->mask;
    while (s->slot[i] && s->slot[i] != d)
        i = (i + 1) & s->mask;
    return &s->slot[i];
}

int dfs_seenset_has(const dfs_seenset *s, uint64_t d)
{
    return s->mask && *find(s, d) == d;
}

static int grow(dfs_seenset *s)
{
    size_t slots = s->mask ? 2 * (s->mask + 1) : FIRST_SLOTS;
    if (slots > SIZE_MAX / sizeof *s->slot)
        return 0;
    uint64_t *old = s->slot;
    size_t old_slots = s->mask ? s->mask + 1 : 0;
    s->slot = calloc(slots, sizeof *s->slot);
    if (!s->slot) {
        s->slot = old;
        return 0;
    }
    s->mask = slots - 1;
    for (size_t i = 0; i < old_slots; i++)
        if (old[i])
            *find(s, old[i]) = old[i];
    free(old);
    return 1;
}

dfs_seen dfs_seenset_add(dfs_seenset *s, uint64_t d)
{
    if (s->mask) {
        uint64_t *at = find(s, d);
        if (*at == d)
            return DFS_SEEN_AGAIN;
        if (s->count >= s->max)
            return DFS_SEEN_FULL;
        if (2 * (s->count + 1) <= s->mask + 1) {
            *at = d;
            s->count++;
            return DFS_SEEN_NEW;
        }
    } else if (s->count >= s->max) {
        return DFS_SEEN_FULL;
    }
    if (!grow(s))
        return DFS_SEEN_FULL;
    *find(s, d) = d;
    s->count++;
    return DFS_SEEN_NEW;
}
