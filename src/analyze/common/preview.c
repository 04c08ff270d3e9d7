/* preview.c - a cheap look at the heads of the inputs before the real pass: the earliest event
 * start (the provisional time origin of layered analysis) and the categories present (preset
 * auto-detection and the `auto` layer set). Also the duration syntax of --granularity. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/preview.h"
#include "util/vec.h"

typedef struct preview_state {
    bool have;
    int64_t min_ts;
    dfs_str *cats;
    size_t ncats, cap;
} preview_state;

typedef struct preview_ctx {
    preview_state total;
    bool failed;
} preview_ctx;

static void *preview_begin(void *user)
{
    (void)user;
    return calloc(1, sizeof(preview_state));
}

static void add_cat(preview_state *s, dfs_str c, bool *failed)
{
    for (size_t i = 0; i < s->ncats; i++)
        if (s->cats[i] == c)
            return;
    if (s->ncats == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        dfs_str *v = realloc(s->cats, cap * sizeof *v);
        if (!v) {
            *failed = true;
            return;
        }
        s->cats = v;
        s->cap = cap;
    }
    s->cats[s->ncats++] = c;
}

static void preview_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    preview_state *s = state;
    bool failed = false;
    const dfs_file_info *fi = dfs_run_file(run, b->file);
    dfs_str last = UINT32_MAX;
    for (size_t i = 0; i < b->count; i++) {
        const dfs_event *ev = &b->events[i];
        if (ev->phase != DFS_PHASE_COMPLETE || !(ev->flags & DFS_EF_HAS_TS) || !(ev->flags & DFS_EF_HAS_DUR) ||
            (ev->flags & DFS_EF_BAD_TIME) || ev->dur < 0)
            continue;
        int64_t t = dfs_file_abs_ns(fi, ev->ts);
        if (!s->have || t < s->min_ts)
            s->min_ts = t;
        s->have = true;
        if (ev->cat != last)
            add_cat(s, ev->cat, &failed);
        last = ev->cat;
    }
    (void)failed;
}

static void preview_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    preview_ctx *ctx = user;
    preview_state *s = state;
    if (!s) {
        ctx->failed = true;
        return;
    }
    if (s->have && (!ctx->total.have || s->min_ts < ctx->total.min_ts))
        ctx->total.min_ts = s->min_ts;
    ctx->total.have |= s->have;
    for (size_t i = 0; i < s->ncats; i++)
        add_cat(&ctx->total, s->cats[i], &ctx->failed);
    free(s->cats);
    free(s);
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool collect_categories(const dfs_run *run, const preview_state *s, dfs_preview *out)
{
    out->categories = calloc(s->ncats + 1, sizeof *out->categories);
    if (!out->categories)
        return false;
    for (size_t i = 0; i < s->ncats; i++) {
        size_t n;
        const char *t = dfs_str_get(run, s->cats[i], &n);
        char *lower = malloc(n + 1);
        if (!lower)
            return false;
        for (size_t k = 0; k < n; k++)
            lower[k] = (char)tolower((unsigned char)t[k]);
        lower[n] = '\0';
        out->categories[out->ncategories++] = lower;
    }
    qsort(out->categories, out->ncategories, sizeof *out->categories, cmp_text);
    size_t m = 0;
    for (size_t i = 0; i < out->ncategories; i++) {
        if (m && strcmp(out->categories[m - 1], out->categories[i]) == 0)
            free(out->categories[i]);
        else
            out->categories[m++] = out->categories[i];
    }
    out->ncategories = m;
    return true;
}

int dfs_preview_run(char *const *paths, size_t npaths, const dfs_options *opt, uint64_t bytes, dfs_preview *out)
{
    memset(out, 0, sizeof *out);
    dfs_options o = *opt;
    o.preview_bytes = bytes ? bytes : 1;
    o.progress = NULL;
    dfs_run *run = dfs_run_new(&o);
    if (!run)
        return DFS_EXIT_OUTPUT;
    for (size_t i = 0; i < npaths; i++)
        (void)dfs_run_add_path(run, paths[i]); /* missing paths are the real pass's to report */
    preview_ctx ctx = {0};
    dfs_consumer c = {.user = &ctx, .worker_begin = preview_begin, .on_batch = preview_batch,
                      .worker_end = preview_end};
    dfs_consumer *cs[] = {&c};
    dfs_run_read(run, cs, 1); /* damage in a cut head is expected and not reported */
    bool ok = !ctx.failed && collect_categories(run, &ctx.total, out);
    out->have_origin = ctx.total.have;
    out->origin_ns = ctx.total.min_ts;
    free(ctx.total.cats);
    dfs_run_free(run);
    return ok ? DFS_EXIT_OK : DFS_EXIT_OUTPUT;
}

void dfs_preview_free(dfs_preview *p)
{
    for (size_t i = 0; i < p->ncategories; i++)
        free(p->categories[i]);
    free(p->categories);
    memset(p, 0, sizeof *p);
}

bool dfs_parse_duration_ns(const char *text, int64_t *ns)
{
    static const struct { const char *unit; double scale; } units[] = {
        {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"min", 60e9}, {"h", 3600e9}, {"", 1e9}};
    if (!text || !*text || isspace((unsigned char)*text))
        return false;
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    if (errno || end == text || !isfinite(v) || v <= 0)
        return false;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        if (strcmp(end, units[i].unit) != 0)
            continue;
        double x = v * units[i].scale;
        if (!(x >= 1) || x > 9.2e18)
            return false;
        *ns = (int64_t)llround(x);
        return true;
    }
    return false;
}
