/* timeline_model.h - what the collecting (timeline.c) and drawing (timeline_svg.c) halves of
 * the window picture share: the collected state and the pixel geometry. */
#ifndef DFS_TIMELINE_MODEL_H
#define DFS_TIMELINE_MODEL_H
#include <stdbool.h>
#include <stdint.h>

#include "analyze/timeline/timeline.h"
#include "util/arena.h"
#include "util/keymap.h"
#include "util/vec.h"

typedef struct tl_span {
    int64_t start, end; /* as given (drawing clips to the window) */
    uint32_t name;      /* index in names */
    uint8_t cls;
} tl_span;

/* The spans narrower than a pixel that fell in one pixel column of a lane. */
typedef struct tl_busy {
    int64_t ns[DFS_TL_NCLASS];
    uint32_t count[DFS_TL_NCLASS];
} tl_busy;

typedef struct tl_lane {
    const char *source, *host, *pid_str, *tid_str, *process, *thread; /* never NULL */
    int64_t pid, tid;
    DFS_VEC(tl_span) spans;
    tl_busy *busy;       /* [width], allocated at the first narrow span */
    uint64_t n_class[DFS_TL_NCLASS];
    uint64_t n_aggregated;
    int64_t busy_ns;     /* summed clipped durations: how busy the lane is, for max_lanes */
    bool folded;         /* its spans go to the other row; spans and busy stay empty */
} tl_lane;

/* Counter samples folded into one pixel column. */
typedef struct tl_cell {
    double min, max, last;
    int64_t last_t;
    uint32_t n;
} tl_cell;

typedef struct tl_counter {
    uint32_t name;
    tl_cell *cells; /* [width] */
    uint64_t samples;
} tl_counter;

typedef struct tl_text {
    const char *s;
    uint32_t len;
} tl_text;

struct dfs_timeline {
    dfs_tl_options opt;  /* title and subtitle point into the arena */
    int64_t span_ns;     /* end - start */
    unsigned width;
    dfs_arena arena;     /* every string */
    DFS_VEC(tl_lane) lanes;
    dfs_keymap lane_index;    /* lane_hkey -> lane */
    DFS_VEC(tl_text) names;
    dfs_keymap name_index;    /* salted hash -> name */
    DFS_VEC(tl_counter) counters;
    dfs_keymap counter_index; /* name -> counter */
    /* the lane bound (timeline.h) */
    unsigned lane_limit;
    uint64_t *kept;           /* sorted copy of opt.kept (NULL: none given) */
    size_t lanes_used;        /* lanes with a span in the window */
    bool crowded;             /* more than lane_limit of them, nothing kept: every lane folded */
    tl_lane other;            /* the row "other lanes": busy bars only */
    size_t lanes_empty;       /* dfs_tl_set_empty_lanes */
};

/* Busy times are sums of durations over many spans and lanes: they saturate instead of wrapping
 * (a window may span the whole int64 clock). a, b >= 0. */
static inline int64_t dfs_tl_sat_add(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* a - b, saturated: a trace's times may lie centuries apart (the whole int64 ns clock). */
static inline int64_t dfs_tl_sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (!__builtin_sub_overflow(a, b, &r))
        return r;
    return a < b ? INT64_MIN : INT64_MAX;
}

/* t - the window start, saturated: a span may start long before the window. */
static inline int64_t dfs_tl_offset(const dfs_timeline *tl, int64_t t)
{
    return dfs_tl_sat_sub(t, tl->opt.start_ns);
}

/* ----- pixels: column i covers [bound(i), bound(i + 1)) ----- */

static inline unsigned dfs_tl_pixel_of(const dfs_timeline *tl, int64_t t)
{
    if (t <= tl->opt.start_ns)
        return 0;
    __int128 p = ((__int128)t - tl->opt.start_ns) * tl->width / tl->span_ns; /* t may be far past the end */
    return p >= tl->width ? tl->width - 1 : (unsigned)p;
}

static inline int64_t dfs_tl_pixel_bound(const dfs_timeline *tl, unsigned i)
{
    __int128 num = (__int128)tl->span_ns * i;
    return tl->opt.start_ns + (int64_t)((num + tl->width - 1) / tl->width);
}

/* The end of column i: the next column's bound, the window's end for the last. */
static inline int64_t dfs_tl_pixel_end(const dfs_timeline *tl, unsigned i)
{
    return i + 1 < tl->width ? dfs_tl_pixel_bound(tl, i + 1) : tl->opt.end_ns;
}

/* Whether the row "other lanes" is drawn: lanes were folded by the lane bound (not by a max_lanes
 * under it, whose lanes are left out as without the bound). */
bool dfs_tl_other_drawn(const dfs_timeline *tl);
/* The lanes with spans in the window in key order; with `limit`, only those drawn on their own:
 * not folded, the busiest max_lanes. *total gets the count of them all. NULL when out of memory. */
const tl_lane **dfs_tl_lanes_in_order(const dfs_timeline *tl, bool limit, size_t *n, size_t *total);
/* Same input, host and process. */
bool dfs_tl_same_group(const tl_lane *a, const tl_lane *b);
#endif
