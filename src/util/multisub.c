/* multisub.c - one-pass multi-needle substring test (multisub.h). */
#include "util/multisub.h"

#include <stdlib.h>
#include <string.h>

enum { PREFIX = DFS_MULTISUB_PREFIX };

/* Fills the masks of needle `i`: its first PREFIX bytes, and the offsets past its end, which
 * every byte satisfies. */
static void add_needle_masks(dfs_multisub *m, size_t i)
{
    uint64_t bit = UINT64_C(1) << i;
    size_t len = m->len[i];
    if (len == 0) {
        m->empty |= bit;
        return;
    }
    m->nonempty |= bit;
    for (size_t k = 0; k < PREFIX; k++) {
        if (k < len) {
            m->at[k][m->needle[i][k]] |= bit;
            continue;
        }
        m->shorter[k] |= bit;
        for (size_t b = 0; b < 256; b++)
            m->at[k][b] |= bit;
    }
}

bool dfs_multisub_init(dfs_multisub *m, const char *const *needles, const size_t *lens, size_t n)
{
    memset(m, 0, sizeof *m);
    if (n > DFS_MULTISUB_MAX)
        return false;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        m->len[i] = lens ? lens[i] : strlen(needles[i]);
        if (m->len[i] > SIZE_MAX - total)
            return false;
        total += m->len[i];
    }
    m->bytes = malloc(total ? total : 1);
    if (!m->bytes)
        return false;
    m->n = n;
    unsigned char *at = m->bytes;
    for (size_t i = 0; i < n; i++) {
        if (m->len[i])
            memcpy(at, needles[i], m->len[i]);
        m->needle[i] = at;
        at += m->len[i];
        add_needle_masks(m, i);
    }
    return true;
}

void dfs_multisub_free(dfs_multisub *m)
{
    free(m->bytes);
    memset(m, 0, sizeof *m);
}

/* The needles whose first PREFIX bytes (or all of them, when shorter) match at p, with `left`
 * haystack bytes from p on (at least 1). */
static uint64_t prefix_matches(const dfs_multisub *m, const unsigned char *p, size_t left)
{
    uint64_t c = m->at[0][p[0]];
    if (left >= PREFIX) {
        for (size_t k = 1; k < PREFIX; k++)
            c &= m->at[k][p[k]];
        return c;
    }
    for (size_t k = 1; k < left; k++)
        c &= m->at[k][p[k]];
    return c & m->shorter[left];
}

/* Of the candidates whose prefix matched at p, those that match whole. */
static uint64_t whole_matches(const dfs_multisub *m, const unsigned char *p, size_t left, uint64_t cand)
{
    uint64_t hits = 0;
    while (cand) {
        unsigned i = (unsigned)__builtin_ctzll(cand);
        uint64_t bit = cand & -cand;
        cand ^= bit;
        size_t len = m->len[i];
        /* prefix_matches let through only needles that fit when fewer than PREFIX bytes are left */
        if (len <= PREFIX || (len <= left && memcmp(p + PREFIX, m->needle[i] + PREFIX, len - PREFIX) == 0))
            hits |= bit;
    }
    return hits;
}

/* Inlined into both entry points, so the stop_at_first tests fold away. */
static inline uint64_t scan(const dfs_multisub *m, const unsigned char *h, size_t n, bool stop_at_first)
{
    uint64_t found = m->empty;
    uint64_t missing = m->nonempty;
    if ((stop_at_first && found) || !missing)
        return found;
    for (size_t i = 0; i < n; i++) {
        if (!m->at[0][h[i]]) /* the common case: no needle starts with this byte */
            continue;
        uint64_t cand = prefix_matches(m, h + i, n - i) & missing;
        if (!cand)
            continue;
        uint64_t hits = whole_matches(m, h + i, n - i, cand);
        found |= hits;
        missing &= ~hits;
        if (!missing || (stop_at_first && hits))
            break;
    }
    return found;
}

uint64_t dfs_multisub_scan(const dfs_multisub *m, const void *hay, size_t n)
{
    return scan(m, hay, n, false);
}

bool dfs_multisub_any(const dfs_multisub *m, const void *hay, size_t n)
{
    return scan(m, hay, n, true) != 0;
}
