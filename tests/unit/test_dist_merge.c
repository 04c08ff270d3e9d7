/* test_dist_merge.c - merge equivalence of every distributed analysis, without MPI: the inputs are
 * partitioned over N "ranks" (threads, each with its own run and string table, as ranks have),
 * each reads its share in share mode (files cut in byte ranges exchange their hash definitions
 * through the share hooks), units on several ranks are found by a census, each rank finishes its
 * own units, packs its pieces and state, and rank 0 unpacks every other rank's buffer, folds the
 * files and finishes. The JSON must equal one process reading everything: identical integers and
 * texts, other numbers within 1e-12 relative ("flushes" is how a pass ran, not a result).
 * Checked for stats, layered analysis (exact and DFAnalyzer-compatible), overlap (exact,
 * approximate, G0), steps and gpu (exact and HTA's), on 2 and 3 ranks, with and without cut files
 * (where the analysis allows). Steps folds the files of ranks other than 0 before the census
 * (dfs_analysis.fold_share) and sends finished runs, or the events of runs whose files are on
 * several ranks; gpu sends its kept events, which rank 0 analyses. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "analyze/common/preset.h"
#include "analyze/common/preview.h"
#include "analyze/gpu/gpu.h"
#include "analyze/layered/layered.h"
#include "analyze/overlap/overlap.h"
#include "analyze/stats/stats.h"
#include "analyze/steps/steps.h"
#include "dist/partition.h"
#include "dist/runpack.h"
#include "gen/gen.h"
#include "output/gpu_report.h"
#include "output/layered_report.h"
#include "output/overlap_report.h"
#include "output/stats_report.h"
#include "output/steps_report.h"
#include "read/run.h"
#include "testutil.h"
#include "wire/pack.h"

enum { MAX_RANKS = 4, MAX_FILES = 64 };

/* ---- the analyses, as the distributed pass sees them ----------------------------------------- */

typedef enum kind { K_STATS, K_LAYERED, K_OVERLAP, K_STEPS, K_GPU } kind;

typedef struct setup {
    kind k;
    dfs_options opt;
    dfs_layered_options lopt;
    dfs_overlap_options oopt;
    dfs_steps_options sopt;
    dfs_gpu_options gopt;
    char **cats_keep; /* a rerun's categories */
    size_t ncats;
    dfs_file_clock *clocks;
    unsigned reruns;   /* what the case went through, for the checks of the interesting paths */
    size_t shared;
    unsigned cut_pieces;
} setup;

static void *create(setup *s)
{
    char err[256];
    switch (s->k) {
    case K_STATS: return dfs_stats_new();
    case K_LAYERED: return dfs_layered_new(&s->lopt, err, sizeof err);
    case K_STEPS: return dfs_steps_new(&s->sopt, NULL, NULL);
    case K_GPU: return dfs_gpu_new(&s->gopt);
    default: return dfs_overlap_new(&s->oopt, err, sizeof err);
    }
}

static void destroy(setup *s, void *obj)
{
    if (s->k == K_STATS)
        dfs_stats_free(obj);
    else if (s->k == K_LAYERED)
        dfs_layered_free(obj);
    else if (s->k == K_STEPS)
        dfs_steps_free(obj);
    else if (s->k == K_GPU)
        dfs_gpu_free(obj);
    else
        dfs_overlap_free(obj);
}

static dfs_consumer *consumer_of(setup *s, void *obj)
{
    return s->k == K_STATS     ? dfs_stats_consumer(obj)
           : s->k == K_LAYERED ? dfs_layered_consumer(obj)
           : s->k == K_STEPS   ? dfs_steps_consumer(obj)
           : s->k == K_GPU     ? dfs_gpu_consumer(obj)
                               : dfs_overlap_consumer(obj);
}

static bool pack_state(setup *s, void *obj, const dfs_run *run, dfs_pack *w)
{
    return s->k == K_STATS     ? dfs_stats_pack(obj, w)
           : s->k == K_LAYERED ? dfs_layered_pack(obj, run, w)
           : s->k == K_STEPS   ? dfs_steps_pack(obj, run, w)
           : s->k == K_GPU     ? dfs_gpu_pack(obj, w)
                               : dfs_overlap_pack(obj, run, w);
}

static bool merge_state(setup *s, void *obj, dfs_run *run, dfs_unpack *r)
{
    return s->k == K_STATS     ? dfs_stats_merge_packed(obj, r)
           : s->k == K_LAYERED ? dfs_layered_merge_packed(obj, run, r)
           : s->k == K_STEPS   ? dfs_steps_merge_packed(obj, run, r)
           : s->k == K_GPU     ? dfs_gpu_merge_packed(obj, run, r)
                               : dfs_overlap_merge_packed(obj, run, r);
}

static void census(setup *s, void *obj, const dfs_run *run, dfs_u64vec *v)
{
    if (s->k == K_LAYERED)
        assert_true(dfs_layered_census(obj, run, v));
    else if (s->k == K_OVERLAP)
        assert_true(dfs_overlap_census(obj, run, v));
    else if (s->k == K_STEPS)
        assert_true(dfs_steps_census(obj, run, v));
}

static void finish_local(setup *s, void *obj, const dfs_run *run, const uint64_t *shared, size_t n)
{
    if (s->k == K_LAYERED)
        assert_true(dfs_layered_finish_local(obj, run, shared, n));
    else if (s->k == K_OVERLAP)
        assert_true(dfs_overlap_finish_local(obj, run, shared, n));
    else if (s->k == K_STEPS)
        assert_true(dfs_steps_finish_local(obj, run, shared, n));
}

/* The result as JSON (malloc'd); NULL when a second pass is needed (its facts are applied). */
static char *finish(setup *s, void *obj, const dfs_run *run, bool reran)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    assert_non_null(m);
    bool done = true;
    if (s->k == K_STATS) {
        dfs_stats_write_json(m, run, dfs_stats_finish(obj, run), 0, NULL);
    } else if (s->k == K_STEPS) {
        const dfs_steps_result *r = dfs_steps_finish(obj, run);
        assert_non_null(r);
        dfs_steps_report_opts ro = {.opt = &s->sopt, .concepts = dfs_steps_concepts(obj)};
        dfs_steps_write_json(m, run, r, &ro);
    } else if (s->k == K_GPU) {
        const dfs_gpu_result *r = dfs_gpu_finish(obj, run);
        assert_non_null(r);
        dfs_gpu_write_json(m, r);
    } else if (s->k == K_LAYERED) {
        const dfs_layered_result *r = dfs_layered_finish(obj, run);
        dfs_report_context ctx = {.preset_source = "given", .reran = reran};
        if (r)
            dfs_layered_write_json(m, r, &ctx);
        done = r != NULL;
    } else {
        const dfs_overlap_result *r = dfs_overlap_finish(obj, run);
        dfs_overlap_report_context ctx = {.preset_source = "given", .reran = reran};
        if (r)
            dfs_overlap_write_json(m, r, &ctx);
        done = r != NULL;
    }
    fclose(m);
    if (done)
        return text;
    free(text);
    /* the facts of this pass for the next one, as the CLI's prepare_rerun does */
    assert_false(reran);
    s->reruns++;
    free(s->clocks);
    s->clocks = dfs_run_final_clocks(run);
    if (s->k == K_LAYERED) {
        assert_true(dfs_layered_needs_rerun(obj, &s->lopt.origin_ns));
        const char *const *cats;
        size_t n = dfs_layered_categories(obj, &cats);
        if (n) {
            s->cats_keep = calloc(n, sizeof *s->cats_keep);
            for (size_t i = 0; i < n; i++)
                s->cats_keep[i] = strdup(cats[i]);
            s->ncats = n;
            s->lopt.auto_categories = (const char *const *)s->cats_keep;
            s->lopt.nauto_categories = n;
        }
        s->lopt.clocks = s->clocks;
        s->lopt.nclocks = dfs_run_file_count(run);
    } else {
        dfs_overlap_rerun info;
        assert_true(dfs_overlap_needs_rerun(obj, &info));
        s->oopt.origin_ns = info.origin_ns;
        s->oopt.no_streaming |= info.no_streaming;
        s->oopt.clocks = s->clocks;
        s->oopt.nclocks = dfs_run_file_count(run);
    }
    return NULL;
}

/* ---- one process -------------------------------------------------------------------------------- */

typedef struct inputs {
    char *paths[MAX_FILES];
    uint64_t sizes[MAX_FILES];
    size_t n;
} inputs;

static dfs_options options(void)
{
    dfs_options o;
    dfs_options_init(&o);
    o.jobs = 2;
    return o;
}

static char *single(setup *s, const inputs *in)
{
    for (int pass = 0; pass < 2; pass++) {
        dfs_run *run = dfs_run_new(&s->opt);
        for (size_t i = 0; i < in->n; i++)
            assert_int_equal(dfs_run_add_listed(run, in->paths[i], in->sizes[i]), DFS_OK);
        void *obj = create(s);
        assert_non_null(obj);
        dfs_consumer *cs[] = {consumer_of(s, obj)};
        int rc = dfs_run_read(run, cs, 1);
        assert_true(rc != DFS_EXIT_OUTPUT);
        char *json = finish(s, obj, run, pass == 1);
        destroy(s, obj);
        dfs_run_free(run);
        if (json)
            return json;
    }
    fail_msg("the second pass did not settle");
    return NULL;
}

/* ---- N ranks ------------------------------------------------------------------------------------ */

/* What the threads share for the exchange of hash definitions of cut files. */
typedef struct def_row {
    uint32_t file, index, kind;
    uint64_t hash;
    char *text;
} def_row;

typedef struct world {
    int nranks;
    pthread_barrier_t barrier;
    pthread_mutex_t lock;
    def_row *rows;
    size_t nrows;
} world;

typedef struct rank {
    world *w;
    setup *s;
    dfs_run *run;
    void *obj;
    int rc;
} rank;

static bool exchange(void *ctx, dfs_run *run, dfs_carry_file *files, size_t n, bool failed)
{
    rank *me = ctx;
    world *w = me->w;
    assert_false(failed);
    pthread_mutex_lock(&w->lock);
    for (size_t f = 0; f < n; f++)
        for (uint32_t k = 0; k < files[f].count; k++)
            for (uint32_t kd = 0; files[f].known[k] && kd < 3; kd++) {
                const dfs_u64map *m = &files[f].carry[k][kd];
                for (size_t slot = 0; slot < m->cap; slot++) {
                    if (!m->used[slot])
                        continue;
                    size_t len;
                    const char *t = dfs_str_get(run, m->vals[slot], &len);
                    w->rows = realloc(w->rows, (w->nrows + 1) * sizeof *w->rows);
                    w->rows[w->nrows++] = (def_row){files[f].file, k, kd, m->keys[slot], strndup(t, len)};
                }
            }
    pthread_mutex_unlock(&w->lock);
    pthread_barrier_wait(&w->barrier);
    for (size_t i = 0; i < w->nrows; i++) {
        const def_row *d = &w->rows[i];
        for (size_t f = 0; f < n; f++)
            if (files[f].file == d->file && d->index < files[f].count && !files[f].known[d->index])
                dfs_u64map_put(&files[f].carry[d->index][d->kind], d->hash,
                               dfs_run_intern(run, d->text, strlen(d->text)));
    }
    pthread_barrier_wait(&w->barrier);
    return true;
}

static void *rank_main(void *arg)
{
    rank *me = arg;
    dfs_consumer *cs[] = {consumer_of(me->s, me->obj)};
    me->rc = dfs_run_read(me->run, cs, 1);
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The units listed by more than one rank (each rank's list made distinct first). */
static void shared_units(setup *s, rank *ranks, int n, dfs_u64vec *shared)
{
    dfs_u64vec all = {0};
    for (int r = 0; r < n; r++) {
        dfs_u64vec mine = {0};
        census(s, ranks[r].obj, ranks[r].run, &mine);
        if (mine.n)
            qsort(mine.v, mine.n, sizeof *mine.v, cmp_u64);
        for (size_t i = 0; i < mine.n; i++)
            if (i == 0 || mine.v[i] != mine.v[i - 1])
                assert_true(dfs_vec_push(&all, mine.v[i]));
        dfs_vec_free(&mine);
    }
    if (all.n)
        qsort(all.v, all.n, sizeof *all.v, cmp_u64);
    for (size_t i = 1; i < all.n; i++)
        if (all.v[i] == all.v[i - 1] && (!shared->n || shared->v[shared->n - 1] != all.v[i]))
            assert_true(dfs_vec_push(shared, all.v[i]));
    dfs_vec_free(&all);
}

/* Rank r's pieces and state, packed and merged into rank 0, as on the way up the tree. */
static void send_to_root(setup *s, rank *ranks, int r)
{
    dfs_pack w;
    dfs_pack_init(&w, ranks[r].run);
    dfs_pack_results(&w, ranks[r].run);
    assert_true(pack_state(s, ranks[r].obj, ranks[r].run, &w));
    void *buf;
    size_t len;
    assert_true(dfs_pack_finish(&w, &buf, &len));
    dfs_pack_free(&w);
    dfs_unpack u;
    assert_true(dfs_unpack_init(&u, ranks[0].run, buf, len));
    assert_true(dfs_unpack_results(&u, ranks[0].run));
    assert_true(merge_state(s, ranks[0].obj, ranks[0].run, &u));
    assert_true(dfs_unpack_ok(&u));
    dfs_unpack_free(&u);
    free(buf);
}

static char *split_pass(setup *s, const inputs *in, const dfs_partition *part, bool reran)
{
    world w = {.nranks = part->nranks};
    pthread_barrier_init(&w.barrier, NULL, (unsigned)part->nranks);
    pthread_mutex_init(&w.lock, NULL);
    rank ranks[MAX_RANKS];
    pthread_t threads[MAX_RANKS];
    for (int r = 0; r < part->nranks; r++) {
        ranks[r] = (rank){.w = &w, .s = s, .run = dfs_run_new(&s->opt)};
        for (size_t i = 0; i < in->n; i++)
            assert_int_equal(dfs_run_add_listed(ranks[r].run, in->paths[i], in->sizes[i]), DFS_OK);
        dfs_piece *mine;
        size_t n = dfs_partition_share(part, r, &mine);
        dfs_share_hooks hooks = {exchange, &ranks[r]};
        assert_true(dfs_run_set_share(ranks[r].run, mine, n, &hooks));
        free(mine);
        ranks[r].obj = create(s);
        assert_non_null(ranks[r].obj);
        if (s->k == K_STEPS && r > 0)
            dfs_steps_set_folded(ranks[r].obj);
    }
    for (int r = 0; r < part->nranks; r++)
        assert_int_equal(pthread_create(&threads[r], NULL, rank_main, &ranks[r]), 0);
    for (int r = 0; r < part->nranks; r++) {
        pthread_join(threads[r], NULL);
        assert_int_equal(ranks[r].rc, DFS_EXIT_OK);
        if (s->k == K_STEPS && r > 0) /* as dfs_dist_read does with fold_share */
            dfs_run_fold_results(ranks[r].run);
    }
    dfs_u64vec shared = {0};
    shared_units(s, ranks, part->nranks, &shared);
    s->shared += shared.n;
    for (int r = 0; r < part->nranks; r++)
        finish_local(s, ranks[r].obj, ranks[r].run, shared.v, shared.n);
    for (int r = 1; r < part->nranks; r++)
        send_to_root(s, ranks, r);
    assert_true(dfs_run_fold_results(ranks[0].run) != DFS_EXIT_OUTPUT);
    char *json = finish(s, ranks[0].obj, ranks[0].run, reran);
    for (int r = 0; r < part->nranks; r++) {
        destroy(s, ranks[r].obj);
        dfs_run_free(ranks[r].run);
    }
    dfs_vec_free(&shared);
    for (size_t i = 0; i < w.nrows; i++)
        free(w.rows[i].text);
    free(w.rows);
    pthread_barrier_destroy(&w.barrier);
    pthread_mutex_destroy(&w.lock);
    return json;
}

static char *split(setup *s, const inputs *in, int nranks, uint64_t piece_bytes)
{
    dfs_part_input parts[MAX_FILES];
    for (size_t i = 0; i < in->n; i++) {
        dfs_cut cut = piece_bytes ? dfs_input_cut(in->paths[i], in->sizes[i], s->opt.gzip_segment_bytes) : DFS_CUT_NONE;
        parts[i] = (dfs_part_input){in->sizes[i], cut == DFS_CUT_PLAIN  ? 1
                                                  : cut == DFS_CUT_GZIP ? s->opt.gzip_segment_bytes
                                                                        : 0};
    }
    dfs_partition part;
    assert_true(dfs_partition_make(&part, parts, in->n, nranks, piece_bytes));
    for (size_t i = 0; i < part.n; i++)
        s->cut_pieces += part.pieces[i].count > 1;
    char *json = split_pass(s, in, &part, false);
    if (!json)
        json = split_pass(s, in, &part, true);
    assert_non_null(json);
    dfs_partition_free(&part);
    return json;
}

/* ---- comparing ---------------------------------------------------------------------------------- */

static bool number_start(char c)
{
    return (c >= '0' && c <= '9') || c == '-';
}

/* How a streaming pass went (docs/CLI.md): when a worker flushes depends on what the other
 * workers of its process have read by then, so these may differ between two runs of the same
 * analysis, never the numbers. */
static const char *const run_dependent[] = {"\"flushes\":", "\"streamed\":", "\"second_pass\":",
                                            "\"second_pass_reason\":"};

/* The length of the key of run_dependent that text starts with, 0 if none. */
static size_t run_dependent_key(const char *text)
{
    for (size_t i = 0; i < sizeof run_dependent / sizeof *run_dependent; i++)
        if (strncmp(text, run_dependent[i], strlen(run_dependent[i])) == 0)
            return strlen(run_dependent[i]);
    return 0;
}

/* Past a scalar JSON value (number, true, false, null, or a string without escaped quotes). */
static const char *skip_scalar(const char *v)
{
    v += strspn(v, " ");
    if (*v == '"') {
        const char *end = strchr(v + 1, '"');
        return end ? end + 1 : v + strlen(v);
    }
    return v + strcspn(v, ",}] ");
}

/* The JSON texts are equal but for numbers with a fraction or exponent, within 1e-12 relative;
 * the values of the run_dependent keys are skipped. */
static void expect_same_json(const char *a, const char *b, const char *what)
{
    bool in_string = false;
    while (*a && *b) {
        size_t key = in_string ? 0 : run_dependent_key(a);
        if (key && run_dependent_key(b) == key && strncmp(a, b, key) == 0) {
            a = skip_scalar(a + key);
            b = skip_scalar(b + key);
            continue;
        }
        if (!in_string && number_start(*a) && number_start(*b)) {
            char *ea, *eb;
            double x = strtod(a, &ea), y = strtod(b, &eb);
            if (ea == a || eb == b)
                fail_msg("%s: not a number at \"%.40s\"", what, a);
            bool integer = !memchr(a, '.', (size_t)(ea - a)) && !memchr(a, 'e', (size_t)(ea - a));
            bool same_text = ea - a == eb - b && memcmp(a, b, (size_t)(ea - a)) == 0;
            if (!same_text && (integer || fabs(x - y) > 1e-12 * fmax(fabs(x), fabs(y))))
                fail_msg("%s: %.40s differs from %.40s", what, a, b);
            a = ea;
            b = eb;
            continue;
        }
        if (*a != *b)
            fail_msg("%s: differs at \"%.60s\" and \"%.60s\"", what, a, b);
        if (*a == '\\' && in_string && a[1] && b[1]) { /* an escaped character, compared as it is */
            if (a[1] != b[1])
                fail_msg("%s: differs at \"%.60s\"", what, a);
            a++;
            b++;
        } else if (*a == '"') {
            in_string = !in_string;
        }
        a++;
        b++;
    }
    if (*a || *b)
        fail_msg("%s: one document is longer", what);
}

/* ---- the cases ---------------------------------------------------------------------------------- */

static void add_dir(inputs *in, const char *rel)
{
    dfs_run *run = dfs_run_new(NULL);
    assert_int_equal(dfs_run_add_path(run, tu_trace(rel)), DFS_OK);
    for (size_t i = 0; i < dfs_run_file_count(run) && in->n < MAX_FILES; i++) {
        in->paths[in->n] = strdup(dfs_run_file(run, i)->path);
        in->sizes[in->n++] = dfs_run_file(run, i)->size;
    }
    dfs_run_free(run);
}

static void free_inputs(inputs *in)
{
    for (size_t i = 0; i < in->n; i++)
        free(in->paths[i]);
    in->n = 0;
}

static void prepare(setup *s, const inputs *in, kind k, const dfs_preset *preset, uint64_t gzip_segment)
{
    memset(s, 0, sizeof *s);
    s->k = k;
    s->opt = options();
    if (gzip_segment)
        s->opt.gzip_segment_bytes = gzip_segment;
    dfs_preview pv;
    assert_int_equal(dfs_preview_run(in->paths, in->n, &s->opt, 256 << 10, &pv), DFS_EXIT_OK);
    int64_t origin = pv.have_origin ? pv.origin_ns : 0;
    dfs_preview_free(&pv);
    s->lopt = (dfs_layered_options){.preset = preset, .granularity_ns = INT64_C(1000000000), .origin_ns = origin};
    s->lopt.order[s->lopt.norder++] = DFS_VIEW_TIME_RANGE;
    s->lopt.order[s->lopt.norder++] = DFS_VIEW_PROC_NAME;
    s->lopt.views = 1u << DFS_VIEW_TIME_RANGE | 1u << DFS_VIEW_PROC_NAME;
    dfs_overlap_defaults d;
    dfs_overlap_defaults_for(preset, &d);
    s->oopt = (dfs_overlap_options){.preset = preset, .compute = d.compute, .io = d.io, .app_io = d.app_io,
                                    .epochs = d.epochs, .steps = d.steps, .origin_ns = origin};
    dfs_steps_options_init(&s->sopt);
    dfs_gpu_options_init(&s->gopt);
    s->gopt.sections |= DFS_GPU_SEC_CRITICAL | DFS_GPU_SEC_SEQUENCES | DFS_GPU_SEC_STRAGGLERS;
}

static void free_setup(setup *s)
{
    for (size_t i = 0; i < s->ncats; i++)
        free(s->cats_keep[i]);
    free(s->cats_keep);
    free(s->clocks);
}

typedef void (*tweak)(setup *s);

typedef struct seen {
    unsigned reruns, cut_pieces;
    size_t shared;
    uint64_t gzip_segment; /* 0: the default; small ones make small gzipped inputs cut */
    uint64_t piece;        /* the piece size of cut inputs */
} seen;

/* One process, then 2 ranks with whole files, then 3 ranks with files cut when the analysis
 * allows it (whole files otherwise). */
static void check_case(const inputs *in, kind k, tweak t, bool may_cut, const char *what, seen *saw)
{
    dfs_preset_error err;
    dfs_preset *preset = dfs_preset_load("dlio", &err);
    assert_non_null(preset);
    setup s1;
    prepare(&s1, in, k, preset, saw->gzip_segment);
    if (t)
        t(&s1);
    char *whole = single(&s1, in);
    for (int nranks = 2; nranks <= 3; nranks++) {
        bool cut = may_cut && nranks == 3;
        setup s2;
        prepare(&s2, in, k, preset, saw->gzip_segment);
        if (t)
            t(&s2);
        char *parts = split(&s2, in, nranks, cut ? (saw->piece ? saw->piece : 64 << 10) : 0);
        char label[160];
        snprintf(label, sizeof label, "%s on %d ranks%s", what, nranks, cut ? ", files cut" : "");
        expect_same_json(whole, parts, label);
        saw->reruns += s2.reruns;
        saw->shared += s2.shared;
        saw->cut_pieces += s2.cut_pieces;
        free(parts);
        free_setup(&s2);
    }
    free(whole);
    free_setup(&s1);
    dfs_preset_free(preset);
}

static void compat(setup *s) { s->lopt.compat = DFS_COMPAT_DFANALYZER; }
static void approximate(setup *s)
{
    s->oopt.method = DFS_OVERLAP_APPROXIMATE;
    s->oopt.granularity_ns = INT64_C(1000000000);
}
static void g0(setup *s)
{
    s->oopt.method = DFS_OVERLAP_G0_EXACT;
    s->oopt.granularity_ns = INT64_C(1000000000);
}
static void binned_threads(setup *s)
{
    s->oopt.granularity_ns = INT64_C(1000000000);
    s->oopt.scope = DFS_OVERLAP_THREAD;
    s->oopt.global = true;
    s->oopt.hold_intervals = 64; /* flush often: units finished where they were read */
}

/* The table output's run (no columns): its time view takes a thread's members from the bins'
 * totals while every member is one cell, which a merge of packed states must turn off
 * (layered_pack.c sets cells_repeat). */
static void table_run(setup *s)
{
    s->lopt.summaries_only = true;
}

static seen analyses_of(inputs *in, seen saw)
{
    check_case(in, K_STATS, NULL, true, "stats", &saw);
    check_case(in, K_LAYERED, NULL, false, "analyze (exact)", &saw);
    check_case(in, K_LAYERED, compat, true, "analyze --compat dfanalyzer", &saw);
    check_case(in, K_LAYERED, table_run, true, "analyze, table run", &saw);
    check_case(in, K_OVERLAP, NULL, false, "overlap (exact)", &saw);
    check_case(in, K_OVERLAP, binned_threads, false, "overlap (bins, threads, global, streaming)", &saw);
    check_case(in, K_OVERLAP, approximate, true, "overlap --approximate", &saw);
    check_case(in, K_OVERLAP, g0, true, "overlap --method g0-exact", &saw);
    check_case(in, K_STEPS, NULL, false, "steps", &saw);
    return saw;
}

static seen all_analyses(const char *rel)
{
    tu_require_corpus();
    inputs in = {0};
    add_dir(&in, rel);
    seen saw = analyses_of(&in, (seen){0});
    free_inputs(&in);
    return saw;
}

/* Every `member` bytes of src (wherever lines are) as one gzip member of dst. */
static void gzip_in_members(const char *src, const char *dst, size_t member)
{
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    assert_true(in && out);
    unsigned char *buf = malloc(member), *z = malloc(2 * member + 1024);
    for (size_t n; (n = fread(buf, 1, member, in)) > 0;) {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
        zs.next_in = buf;
        zs.avail_in = (uInt)n;
        zs.next_out = z;
        zs.avail_out = (uInt)(2 * member + 1024);
        assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
        assert_int_equal(fwrite(z, 1, zs.total_out, out), zs.total_out);
        deflateEnd(&zs);
    }
    free(buf);
    free(z);
    fclose(in);
    fclose(out);
}

/* Generated traces (dfs_gen) in a temporary directory, removed afterwards. */
static seen generated(dfs_gen_format format, bool gzip, uint64_t member, seen how, size_t regzip)
{
    char dir[] = "/tmp/dfscope-dist-XXXXXX";
    assert_non_null(mkdtemp(dir));
    dfs_gen_options g;
    dfs_gen_options_init(&g);
    g.out_dir = dir;
    g.format = format;
    g.ranks = 3;
    g.total_bytes = 3u << 20;
    g.gzip = gzip;
    if (member)
        g.member_bytes = member;
    char err[256];
    dfs_gen_report rep;
    assert_int_equal(dfs_gen_write(&g, &rep, err, sizeof err), DFS_OK);
    inputs in = {0};
    for (size_t i = 0; i < rep.nfiles; i++) {
        char gz[4200];
        snprintf(gz, sizeof gz, "%s.gz", rep.files[i].path);
        if (regzip)
            gzip_in_members(rep.files[i].path, gz, regzip);
        struct stat st;
        in.paths[in.n] = strdup(regzip ? gz : rep.files[i].path);
        assert_int_equal(stat(in.paths[in.n], &st), 0);
        in.sizes[in.n++] = (uint64_t)st.st_size;
    }
    seen saw = analyses_of(&in, how);
    for (size_t i = 0; i < in.n; i++)
        remove(in.paths[i]);
    for (size_t i = 0; i < rep.nfiles; i++)
        remove(rep.files[i].path);
    remove(dir);
    dfs_gen_report_free(&rep);
    free_inputs(&in);
    return saw;
}

/* Eight files of about 520 KB: cut in pieces of 64 KiB between ranks where allowed. */
static void dlio_unet3d(void **state)
{
    (void)state;
    seen saw = all_analyses("dftracer/dlio-unet3d-hdf5-8rank");
    assert_true(saw.cut_pieces > 0);
}

/* The same processes in two files (a trace and its gzipped copy): on two ranks they are shared
 * units, which travel unfinished and merge exactly. */
static void legacy_shared_processes(void **state)
{
    (void)state;
    seen saw = all_analyses("dftracer/legacy-2023");
    assert_true(saw.shared > 0);
}

/* Kineto's clock is known only at the end of each file: a second pass on every rank. */
static void kineto_second_pass(void **state)
{
    (void)state;
    seen saw = all_analyses("kineto");
    assert_true(saw.reruns > 0);
}

/* DFTracer v1 files of 1 MiB cut in pieces of 64 KiB. */
static void generated_plain(void **state)
{
    (void)state;
    seen saw = generated(DFS_GEN_V1, false, 0, (seen){0}, 0);
    assert_true(saw.cut_pieces > 0);
}

/* DFTracer 2.x gzipped in members of 8 KiB of text, read in segments of 16 KiB by one process:
 * ranks take pieces of 32 KiB and must find the same member starts, and parse the lines cut by
 * segments other ranks read. */
static void generated_gzip_members(void **state)
{
    (void)state;
    seen saw = generated(DFS_GEN_V2, true, 8 << 10, (seen){.gzip_segment = 16 << 10, .piece = 32 << 10}, 0);
    assert_true(saw.cut_pieces > 0);
}

/* DFTracer v1 text gzipped every 5000 bytes, lines cut across members: the junction of a segment
 * other ranks read joins its tail to a head read again. */
static void generated_gzip_cut_lines(void **state)
{
    (void)state;
    seen saw = generated(DFS_GEN_V1, false, 0, (seen){.gzip_segment = 16 << 10, .piece = 48 << 10}, 5000);
    assert_true(saw.cut_pieces > 0);
}

static void hta(setup *s) { s->gopt.semantics = DFS_GPU_HTA; }

/* gpu, exact and HTA's, every section: Kineto traces of two ranks (HTA's trace filter), windows
 * of one process without distributedInfo, fractional timestamps HTA rounds, a Triton trace. */
static void gpu_kineto(void **state)
{
    (void)state;
    tu_require_corpus();
    const char *rel[] = {"hta/trace_filter", "kineto", "hta/ns_resolution_trace", "hta/triton_example"};
    inputs in = {0};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++)
        add_dir(&in, rel[i]);
    seen saw = {0};
    check_case(&in, K_GPU, NULL, false, "gpu", &saw);
    check_case(&in, K_GPU, hta, false, "gpu --compat hta", &saw);
    free_inputs(&in);
}

/* Steps alone on a corpus folder: whole files, finished runs from ranks other than 0. */
static seen steps_of(const char *const *rel, size_t n)
{
    tu_require_corpus();
    inputs in = {0};
    for (size_t i = 0; i < n; i++)
        add_dir(&in, rel[i]);
    seen saw = {0};
    check_case(&in, K_STEPS, NULL, false, "steps", &saw);
    free_inputs(&in);
    return saw;
}

/* smdebug framework files of one node are one run: spread over ranks, their events travel to
 * rank 0 (the census finds the node on several ranks); system files, TF profiler and Horovod
 * timelines and files that are not traces come along. */
static void steps_smdebug_nodes(void **state)
{
    (void)state;
    const char *rel[] = {"smdebug"};
    seen saw = steps_of(rel, 1);
    assert_true(saw.shared > 0);
}

/* A merged Composer trace makes a run per rank (pid), ordered after every file's first run;
 * Kineto traces of HTA (Kineto's own folder is in kineto_second_pass). */
static void steps_composer_hta(void **state)
{
    (void)state;
    const char *rel[] = {"composer", "hta/trace_filter", "hta/cpu_only", "hta/rank_non_gpu"};
    steps_of(rel, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generated_plain),
        cmocka_unit_test(generated_gzip_members),
        cmocka_unit_test(generated_gzip_cut_lines),
        cmocka_unit_test(dlio_unet3d),
        cmocka_unit_test(legacy_shared_processes),
        cmocka_unit_test(kineto_second_pass),
        cmocka_unit_test(steps_smdebug_nodes),
        cmocka_unit_test(steps_composer_hta),
        cmocka_unit_test(gpu_kineto),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
