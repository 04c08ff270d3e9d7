/* windowing.c - the window of `dfscope timeline` before drawing (windowing.h). A relative or open
 * window needs the trace's span, which only a reading can tell: a first pass of the timeline
 * analysis that measures the span only (bounds_only). A step window (--step N, --slowest-step)
 * needs the steps, found by a first pass of the steps analysis with the picture's concepts, so
 * that the step drawn is the step `dfscope steps` lists. What either pass learns about every
 * file's final clock and concept source is handed to the drawing pass, as a second pass of the
 * analysis would have it, so the drawing reads once more at most. */
#include "cli/windowing.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/steps/steps.h"
#include "output/format.h"
#include "output/timeline_report.h"

void dfs_cli_windowing_init(dfs_cli_windowing *w, dfs_tlw_options *opt)
{
    *w = (dfs_cli_windowing){.opt = opt};
    dfs_tl_parse_window(":", &w->window, NULL, 0);
}

/* --window, --step and --slowest-step each choose the window: one of them at most. */
static bool chosen_twice(const dfs_cli_windowing *w, const char *cmd)
{
    if (!w->text && !w->step_number && !w->slowest_step)
        return false;
    fprintf(stderr, "dfscope %s: --window, --step and --slowest-step each choose the window: give one\n", cmd);
    return true;
}

int dfs_cli_windowing_set(dfs_cli_windowing *w, const char *cmd, const char *text)
{
    char err[256];
    if (chosen_twice(w, cmd))
        return DFS_EXIT_USAGE;
    w->text = text;
    if (dfs_tl_parse_window(text, &w->window, err, sizeof err))
        return -1;
    fprintf(stderr, "dfscope %s: --window: %s\n", cmd, err);
    return DFS_EXIT_USAGE;
}

/* The trace's span as the user reads it back. */
static void print_span(const char *what, int64_t a, int64_t b)
{
    char x[48], y[48];
    fprintf(stderr, "%s %s to %s s", what, dfs_tl_fmt_seconds(x, sizeof x, a), dfs_tl_fmt_seconds(y, sizeof y, b));
}

static bool nothing_to_draw(const dfs_tlw_result *r)
{
    if (r->have_span)
        return false;
    fprintf(stderr, "dfscope timeline: the inputs hold no timed spans or counters; nothing to draw\n");
    return true;
}

bool dfs_cli_windowing_misses(const dfs_cli_windowing *w, const dfs_tlw_result *r)
{
    const dfs_tl_options *d = &w->opt->draw;
    if (nothing_to_draw(r))
        return true;
    if (d->end_ns > r->trace_start_ns && d->start_ns <= r->trace_end_ns)
        return false;
    fprintf(stderr, "dfscope timeline: ");
    print_span("the window", d->start_ns, d->end_ns);
    print_span(" lies outside the trace, which spans", r->trace_start_ns, r->trace_end_ns);
    fprintf(stderr, "; nothing written.\n  A window relative to the trace's start is written +START:+END (-w +0:+1 is its "
                    "first second); --slowest-step and --step N choose a training step\n");
    return true;
}

/* The window in absolute times (trace_start_ns and trace_end_ns are read only when it needs
 * them); false when it cannot be (said). */
static bool resolve(dfs_cli_windowing *w, int64_t trace_start_ns, int64_t trace_end_ns)
{
    char err[256];
    dfs_tl_options *d = &w->opt->draw;
    if (dfs_tl_window_resolve(&w->window, trace_start_ns, trace_end_ns, &d->start_ns, &d->end_ns, err, sizeof err))
        return true;
    fprintf(stderr, "dfscope timeline: --window %s: %s\n", w->text ? w->text : ":", err);
    return false;
}

/* The measuring pass's writer: every file's final clock and source for the drawing pass (what the
 * analysis' second pass would get), and the window on the trace's span. */
static int measured(void *user, const dfs_cli_result *res)
{
    dfs_cli_windowing *w = user;
    const dfs_tlw_result *r = res->result;
    w->clocks = dfs_run_final_clocks(res->run);
    /* Not prepare_rerun: the drawing reading is the measuring one's successor, not the analysis'
     * own second pass, and may itself need one (more lanes than a picture draws). */
    if (!w->clocks || !dfs_tlw_options_use_run(w->opt, res->run, w->clocks))
        return dfs_cli_error("timeline", DFS_EXIT_OUTPUT, "out of memory");
    if (nothing_to_draw(r) || !resolve(w, r->trace_start_ns, r->trace_end_ns) || dfs_cli_windowing_misses(w, r))
        return DFS_EXIT_USAGE;
    w->measured = true;
    return DFS_EXIT_OK;
}

int dfs_cli_windowing_set_step(dfs_cli_windowing *w, const char *cmd, int64_t number, bool slowest)
{
    if (chosen_twice(w, cmd))
        return DFS_EXIT_USAGE;
    w->step_number = number;
    w->slowest_step = slowest;
    return -1;
}

/* ===== a step as the window ======================================================================= */

typedef struct step_choice {
    int64_t start, end;        /* the window */
    const dfs_steps_run *run;  /* the slowest step's run; --step: the first run that has it */
    const dfs_step *step;      /* NULL: none */
    size_t runs;               /* --step: the runs that have it */
    uint64_t steps;            /* steps of every run */
    int64_t lowest, highest;   /* their numbers */
} step_choice;

static bool steady(const dfs_step *s)
{
    return !(s->flags & (DFS_STEP_WARMUP | DFS_STEP_LAST));
}

static int64_t step_length(const dfs_step *s)
{
    int64_t len;
    return __builtin_sub_overflow(s->end, s->start, &len) ? INT64_MAX : len;
}

/* The slowest step: the longest of the steady ones (neither warm-up nor last) when there are
 * any, else of all; the first of equals, in run order. */
static void choose_slowest(const dfs_steps_result *r, step_choice *c)
{
    bool any_steady = false;
    for (size_t i = 0; i < r->nruns; i++)
        for (size_t j = 0; j < r->runs[i].nsteps; j++)
            any_steady |= steady(&r->runs[i].steps[j]);
    for (size_t i = 0; i < r->nruns; i++)
        for (size_t j = 0; j < r->runs[i].nsteps; j++) {
            const dfs_step *s = &r->runs[i].steps[j];
            if ((any_steady && !steady(s)) || (c->step && step_length(s) <= step_length(c->step)))
                continue;
            c->step = s;
            c->run = &r->runs[i];
            c->start = s->start;
            c->end = s->end;
        }
}

const dfs_step *dfs_cli_slowest_step(const dfs_steps_result *r, const dfs_steps_run **run)
{
    step_choice c = {0};
    choose_slowest(r, &c);
    *run = c.run;
    return c.step;
}

/* Step N: in each run its first step numbered N; the window spans them all. */
static void choose_number(const dfs_steps_result *r, int64_t number, step_choice *c)
{
    for (size_t i = 0; i < r->nruns; i++)
        for (size_t j = 0; j < r->runs[i].nsteps; j++) {
            const dfs_step *s = &r->runs[i].steps[j];
            if (s->number != number)
                continue;
            if (!c->step) {
                c->step = s;
                c->run = &r->runs[i];
                c->start = s->start;
                c->end = s->end;
            }
            c->start = s->start < c->start ? s->start : c->start;
            c->end = s->end > c->end ? s->end : c->end;
            c->runs++;
            break;
        }
}

static void choose_step(const dfs_steps_result *r, const dfs_cli_windowing *w, step_choice *c)
{
    *c = (step_choice){.lowest = INT64_MAX, .highest = INT64_MIN};
    for (size_t i = 0; i < r->nruns; i++)
        for (size_t j = 0; j < r->runs[i].nsteps; j++) {
            int64_t n = r->runs[i].steps[j].number;
            c->steps++;
            c->lowest = n < c->lowest ? n : c->lowest;
            c->highest = n > c->highest ? n : c->highest;
        }
    if (w->slowest_step)
        choose_slowest(r, c);
    else
        choose_number(r, w->step_number, c);
    if (c->step && c->end <= c->start) { /* an instant step still draws a window: 1 ns */
        if (c->start == INT64_MAX)
            c->start--;
        c->end = c->start + 1;
    }
}

/* What the picture shows, for its subtitle and stderr: "step 37 of rank 3, the slowest of 120 (1.234 s)". */
static void describe_step(dfs_cli_windowing *w, const step_choice *c)
{
    char len[32], where[96] = "";
    dfs_fmt_duration(len, sizeof len, c->end - c->start);
    if (w->slowest_step && c->run->rank >= 0)
        snprintf(where, sizeof where, " of rank %lld", (long long)c->run->rank);
    else if (w->slowest_step)
        snprintf(where, sizeof where, " of %s", c->run->name ? c->run->name : "a run");
    else if (c->runs > 1)
        snprintf(where, sizeof where, " on %zu runs", c->runs);
    if (w->slowest_step)
        snprintf(w->step_text, sizeof w->step_text, "step %lld%s, the slowest of %llu (%s)", (long long)c->step->number,
                 where, (unsigned long long)c->steps, len);
    else
        snprintf(w->step_text, sizeof w->step_text, "step %lld%s (%s)", (long long)c->step->number, where, len);
}

/* Why there is no such step, and what to give instead. */
static int no_step(const dfs_cli_windowing *w, const step_choice *c)
{
    if (!c->steps)
        fprintf(stderr, "dfscope timeline: %s: no training step found in these inputs ('dfscope steps' says "
                        "why); give a --window instead\n",
                w->slowest_step ? "--slowest-step" : "--step");
    else
        fprintf(stderr, "dfscope timeline: --step %lld: no step has that number; the %llu steps are numbered %lld to %lld\n",
                (long long)w->step_number, (unsigned long long)c->steps, (long long)c->lowest, (long long)c->highest);
    return DFS_EXIT_USAGE;
}

/* The steps pass's writer: the window on the step chosen, and every file's final clock and
 * source for the drawing pass. */
static int stepped(void *user, const dfs_cli_result *res)
{
    dfs_cli_windowing *w = user;
    step_choice c;
    choose_step(res->result, w, &c);
    if (!c.step)
        return no_step(w, &c);
    w->clocks = dfs_run_final_clocks(res->run);
    if (!w->clocks || !dfs_tlw_options_use_run(w->opt, res->run, w->clocks))
        return dfs_cli_error("timeline", DFS_EXIT_OUTPUT, "out of memory");
    w->opt->draw.start_ns = c.start;
    w->opt->draw.end_ns = c.end;
    describe_step(w, &c);
    char a[48], b[48];
    fprintf(stderr, "dfscope timeline: window: %s, %s to %s s\n", w->step_text,
            dfs_tl_fmt_seconds(a, sizeof a, c.start), dfs_tl_fmt_seconds(b, sizeof b, c.end));
    w->measured = true;
    return DFS_EXIT_OK;
}

static int resolve_step(dfs_cli_windowing *w, dfs_cli_args *b)
{
    dfs_steps_options opt;
    dfs_steps_options_init(&opt);
    if (w->opt->concepts)
        opt.concepts = *w->opt->concepts;
    const dfs_cli_job job = {.cmd = "timeline", .an = &dfs_steps_analysis, .opt = &opt, .write = stepped, .user = w};
    int rc = dfs_cli_run_analysis(&b->common, b->paths, b->npaths, &job);
    b->common.quiet = true; /* the problems are reported once */
    return w->measured ? DFS_EXIT_OK : rc;
}

int dfs_cli_windowing_resolve(dfs_cli_windowing *w, dfs_cli_args *b)
{
    if (w->step_number || w->slowest_step)
        return resolve_step(w, b);
    if (!dfs_tl_window_needs_span(&w->window))
        return resolve(w, 0, 0) ? DFS_EXIT_OK : DFS_EXIT_USAGE;
    dfs_tlw_options bounds;
    dfs_tlw_options_init(&bounds);
    bounds.bounds_only = true;
    const dfs_cli_job job = {
        .cmd = "timeline", .an = &dfs_timeline_analysis, .opt = &bounds, .write = measured, .user = w};
    int rc = dfs_cli_run_analysis(&b->common, b->paths, b->npaths, &job);
    b->common.quiet = true; /* the problems are reported once */
    /* damage and missing paths are left to the drawing pass, which reads the same inputs */
    return w->measured ? DFS_EXIT_OK : rc;
}

void dfs_cli_windowing_free(dfs_cli_windowing *w)
{
    free((void *)w->opt->sources);
    w->opt->sources = NULL;
    free(w->clocks);
    w->clocks = NULL;
}
