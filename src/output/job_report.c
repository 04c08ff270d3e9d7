/* job_report.c - `dfscope report` written: the terminal's answer-first page (at most about 40
 * lines, PAGE: the verdict, the job, the breakdown, as many insights of three lines each as the
 * page leaves room for (the others counted), where to look next, the glossary of what was shown) and the JSON document dfscope-report/1, which
 * carries everything (every insight, every metric, the layers, the whole glossary).
 *
 * Invariants: every string that comes from a trace or a path (where-texts, layer names, paths) is
 * escaped for its context (terminal: output/escape.h; JSON: the writer); a number that could not
 * be measured is written "n/a" (null in JSON), never nan; durations are auto-scaled
 * (dfs_fmt_duration), sizes carry units, shares are percentages. */
#include "output/job_report.h"

#include <math.h>
#include <string.h>

#include "output/escape.h"
#include "output/format.h"
#include "output/json.h"
#include "output/job_report_internal.h"

enum { PAGE = 40, BAR = 24 };

/* What each figure means: the terminal prints those it showed, the JSON all of them. */
static const struct {
    const char *id, *term, *text;
} glossary[] = {
    {"wall_time", "wall time", "first event start to last event end, over every input"},
    {"per_rank", "per rank", "summed over the processes (or runs) and divided by their number"},
    {"compute", "compute",
     "time some compute event runs (framework compute calls; GPU and CPU ops in steps; DASF Compute events)"},
    {"data_wait_exposed", "data wait not hidden",
     "time the loop waits for the next batch (app-level reads, data-loader waits) while no compute runs"},
    {"io_exposed", "I/O not hidden", "time in I/O calls outside data wait and checkpoint while no compute runs"},
    {"checkpoint_exposed", "checkpoint not hidden", "time checkpointing (outside data wait) while no compute runs"},
    {"transfer", "copies and collectives", "memory copies and communication not under compute (steps only)"},
    {"runtime", "runtime calls (launches)", "runtime calls such as kernel launches, alone (steps only)"},
    {"other", "other", "the rest of the wall time: set-up, Python, gaps between events"},
    {"time_at_stake", "at stake",
     "wall time per rank the insight could give back; severity: critical from 25 %, warning from 5 % of the wall"},
    {"exposed_wait_share", "exposed wait share",
     "data wait not hidden by compute over the step time (steps without warm-up and last)"},
    {"storage_share_of_wait", "storage share of wait", "time in I/O calls inside the data wait over the data wait"},
};

static const char *define(const char *id)
{
    for (size_t i = 0; i < sizeof glossary / sizeof *glossary; i++)
        if (strcmp(glossary[i].id, id) == 0)
            return glossary[i].text;
    return NULL;
}

/* ---- numbers ---- */

static char *fmt_seconds(char *buf, size_t n, double s)
{
    if (!isfinite(s))
        snprintf(buf, n, "n/a");
    else
        dfs_fmt_duration(buf, n, (int64_t)llround(s * 1e9));
    return buf;
}

static char *fmt_metric(char *buf, size_t n, const dfs_metric *m)
{
    if (!m) {
        snprintf(buf, n, "n/a (not measured)");
        return buf;
    }
    switch (m->unit) {
    case DFS_MU_SECONDS: return fmt_seconds(buf, n, m->value);
    case DFS_MU_SHARE: snprintf(buf, n, "%.1f %%", 100 * m->value); return buf;
    case DFS_MU_BYTES: return dfs_fmt_bytes(buf, n, m->value > 0 ? (uint64_t)m->value : 0);
    case DFS_MU_COUNT: return dfs_fmt_count(buf, n, m->value > 0 ? (uint64_t)m->value : 0);
    case DFS_MU_RATIO: snprintf(buf, n, "%.2fx", m->value); return buf;
    }
    snprintf(buf, n, "%g", m->value);
    return buf;
}

/* ---- evidence templates ---- */

typedef dfs_jr_sink sink;

/* Writes the template with {metric} as its value and {metric.where} as its place. */
static void render(const sink *k, const char *t, const dfs_metrics *ms)
{
    while (*t) {
        const char *open = strchr(t, '{');
        const char *close = open ? strchr(open, '}') : NULL;
        if (!open || !close) {
            k->put(k->ctx, t, strlen(t));
            return;
        }
        k->put(k->ctx, t, (size_t)(open - t));
        size_t len = strcspn(open + 1, ".}");
        bool where = open[1 + len] == '.';
        const dfs_metric *m = NULL;
        for (size_t i = 0; i < ms->n && !m; i++)
            if (strlen(ms->v[i].name) == len && memcmp(ms->v[i].name, open + 1, len) == 0)
                m = &ms->v[i];
        char buf[64];
        if (where && m && m->where)
            k->put_raw(k->ctx, m->where, strlen(m->where));
        else if (where)
            k->put(k->ctx, "n/a", 3);
        else {
            fmt_metric(buf, sizeof buf, m);
            k->put(k->ctx, buf, strlen(buf));
        }
        t = close + 1;
    }
}

void dfs_jr_render(const dfs_jr_sink *k, const char *t, const dfs_metrics *ms)
{
    render(k, t, ms);
}

const char *dfs_jr_define(const char *id)
{
    return define(id);
}

char *dfs_jr_kind_count(char *buf, size_t n, const dfs_report_kind *k)
{
    char ev[32], md[32], all[32];
    if (k->metadata)
        snprintf(buf, n, "%s records (%s events, %s metadata)", dfs_fmt_count(all, sizeof all, k->events),
                 dfs_fmt_count(ev, sizeof ev, k->events - k->metadata), dfs_fmt_count(md, sizeof md, k->metadata));
    else
        snprintf(buf, n, "%s events", dfs_fmt_count(ev, sizeof ev, k->events));
    return buf;
}

char *dfs_jr_seconds(char *buf, size_t n, double s)
{
    return fmt_seconds(buf, n, s);
}

static void put_file(void *fp, const char *s, size_t n)
{
    fwrite(s, 1, n, fp);
}

static void put_term(void *fp, const char *s, size_t n)
{
    dfs_term_escape(dfs_put_file, fp, s, n);
}

typedef struct strbuf {
    char *s;
    size_t n, cap;
} strbuf;

static void put_buf(void *ctx, const char *s, size_t n)
{
    strbuf *b = ctx;
    if (b->n + n + 1 > b->cap)
        n = b->cap > b->n + 1 ? b->cap - b->n - 1 : 0;
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

/* ---- terminal ---- */

static void put_paths(FILE *out, const dfs_job_report *r)
{
    for (int i = 0; i < r->npaths && i < 2; i++) {
        fputc(' ', out);
        dfs_term_puts(out, r->paths[i]);
    }
    if (r->npaths > 2)
        fputs(" ...", out);
}

static void text_head(FILE *out, const dfs_job_report *r)
{
    size_t crit = 0, warn = 0;
    for (size_t i = 0; i < r->insights.n; i++)
        crit += r->insights.v[i].severity == DFS_SEV_CRITICAL, warn += r->insights.v[i].severity == DFS_SEV_WARNING;
    fprintf(out, "verdict: ");
    for (const char *p = r->verdict; *p; p++)
        fputc(*p >= 'a' && *p <= 'z' ? *p - 32 : *p, out);
    fprintf(out, " (%zu critical, %zu warning, %zu info insights)\n  %s\n\n", crit, warn,
            r->insights.n - crit - warn, r->verdict_why);
}

static void text_job(FILE *out, const dfs_job_report *r)
{
    fprintf(out, "job: ");
    if (r->ranks)
        fprintf(out, "%llu %s; ", (unsigned long long)r->ranks, r->ranks_what);
    for (size_t i = 0; i < r->nkinds; i++) {
        const dfs_report_kind *k = &r->kinds[i];
        char count[128];
        fprintf(out, "%s%s: %llu file%s, %s", i ? "; " : "", k->name, (unsigned long long)k->files,
                k->files == 1 ? "" : "s", dfs_jr_kind_count(count, sizeof count, k));
    }
    if (!r->nkinds)
        fprintf(out, "%llu file%s of no known kind", (unsigned long long)r->files, r->files == 1 ? "" : "s");
    if (r->preset) {
        fputs("; layers of preset ", out);
        dfs_term_puts(out, r->preset);
    }
    fputc('\n', out);
    char a[64], b[64], d[48];
    if (r->timed)
        fprintf(out, "span: %s .. %s (%s wall time)\n", dfs_fmt_time(a, sizeof a, r->start_ns),
                dfs_fmt_time(b, sizeof b, r->end_ns), fmt_seconds(d, sizeof d, r->wall_s));
    else
        fprintf(out, "span: n/a (%s)\n", r->nkinds ? "the inputs' clocks are relative, not wall-clock times"
                                                   : "no timed event in the inputs");
    for (size_t i = 0; i < r->nkinds; i++)
        if (!r->kinds[i].analysed)
            fprintf(out, "not in this report: %s (%llu file%s), %s: %s answer%s for them\n", r->kinds[i].name,
                    (unsigned long long)r->kinds[i].files, r->kinds[i].files == 1 ? "" : "s", r->kinds[i].why,
                    r->kinds[i].commands, strchr(r->kinds[i].commands, ',') ? "" : "s");
    for (size_t i = 0; i < r->nleft_out; i++) {
        fputs("left out: ", out);
        dfs_term_puts(out, r->left_out[i]);
        fputs(", ", out);
        dfs_term_puts(out, r->left_out_why[i]);
        fputs("; --keep-merged reads it too\n", out);
    }
    if (r->second_pass)
        fprintf(out, "read twice: %s\n", r->second_pass);
    fputc('\n', out);
}

static void text_breakdown(FILE *out, const dfs_job_report *r)
{
    char d[48];
    if (!r->nparts) {
        fprintf(out, "where the wall time goes: n/a (no compute events and no training steps were found)\n\n");
        return;
    }
    fprintf(out, "where the wall time goes (%s per rank; %s)\n", fmt_seconds(d, sizeof d, r->breakdown_wall_s),
            r->breakdown_basis);
    for (size_t i = 0; i < r->nparts; i++) {
        double share = r->breakdown_wall_s > 0 ? r->parts[i].seconds / r->breakdown_wall_s : 0;
        int bar = (int)lround(share * BAR);
        fprintf(out, "  %-26s %12s %6.1f %%  ", r->parts[i].label, fmt_seconds(d, sizeof d, r->parts[i].seconds),
                100 * share);
        for (int k = 0; k < bar && k < BAR; k++)
            fputc('#', out);
        fputc('\n', out);
    }
    fputc('\n', out);
}

static void text_insight(FILE *out, const dfs_job_report *r, size_t i)
{
    const dfs_insight *x = &r->insights.v[i];
    char d[48];
    fprintf(out, "  %zu. [%s] %s", i + 1, dfs_severity_name(x->severity), x->title);
    if (isfinite(x->stake_s))
        fprintf(out, ", %s at stake", fmt_seconds(d, sizeof d, x->stake_s));
    fputs(": ", out);
    sink k = {put_file, put_term, out};
    render(&k, x->evidence, r->metrics);
    fprintf(out, "\n     remedy: %s\n     more:   %s", x->remedy, x->command);
    put_paths(out, r);
    fputc('\n', out);
}

static void text_glossary(FILE *out, const dfs_job_report *r)
{
    fprintf(out, "what the figures mean\n  wall time: %s; per rank: %s\n", define("wall_time"), define("per_rank"));
    for (size_t i = 0; i < r->nparts; i++)
        fprintf(out, "  %s: %s\n", r->parts[i].label, define(r->parts[i].id));
    if (r->insights.n)
        fprintf(out, "  at stake: %s\n", define("time_at_stake"));
}

/* The lines of the page but the insights' (text_head ... text_glossary below, line for line). */
static size_t fixed_lines(const dfs_job_report *r)
{
    size_t n = 3 + 3 + (r->second_pass != NULL) + r->nleft_out + 2; /* head; job, span, blank; insights header, blank */
    for (size_t i = 0; i < r->nkinds; i++)
        n += !r->kinds[i].analysed;
    n += r->nparts ? r->nparts + 2 : 2;              /* breakdown */
    n += r->nmore ? 2 : 0;
    n += 2 + r->nparts + (r->insights.n > 0);        /* glossary */
    return n;
}

/* How many insights the page shows: all when they fit, else what fits with the "and N more" line. */
static size_t shown(const dfs_job_report *r)
{
    size_t fixed = fixed_lines(r), n = r->insights.n;
    if (fixed + 3 * n <= PAGE)
        return n;
    size_t room = PAGE > fixed + 1 ? (PAGE - fixed - 1) / 3 : 0;
    return room < n ? room : n;
}

void dfs_job_report_write_text(FILE *out, const dfs_job_report *r)
{
    text_head(out, r);
    text_job(out, r);
    text_breakdown(out, r);
    if (r->insights.n) {
        fprintf(out, "insights, most time at stake first\n");
        size_t k = shown(r);
        for (size_t i = 0; i < k; i++)
            text_insight(out, r, i);
        if (r->insights.n > k)
            fprintf(out, "  and %zu more: --format json lists them all\n", r->insights.n - k);
    } else {
        fprintf(out, "insights: none (%zu rules evaluated, %zu not evaluated for want of a metric)\n",
                r->insights.evaluated, r->insights.nskipped);
    }
    fputc('\n', out);
    if (r->nmore) {
        fprintf(out, "more:");
        for (size_t i = 0; i < r->nmore; i++) {
            size_t len = strcspn(r->more[i], ":");
            fprintf(out, "%s%.*s", i ? ", " : " ", (int)len, r->more[i]);
        }
        fprintf(out, "\n\n");
    }
    text_glossary(out, r);
}

/* ---- JSON ---- */

static void json_time(dfs_jw *w, const char *key, bool timed, int64_t ns)
{
    char buf[64];
    if (timed)
        dfs_jw_cstr(w, key, dfs_fmt_time(buf, sizeof buf, ns));
    else
        dfs_jw_null(w, key);
}

static void json_job(dfs_jw *w, const dfs_job_report *r)
{
    dfs_jw_object(w, "job");
    dfs_jw_uint(w, "files", r->files);
    dfs_jw_uint(w, "events", r->events);
    dfs_jw_uint(w, "metadata_records", r->metadata);
    dfs_jw_uint(w, "ranks", r->ranks);
    if (r->ranks_what)
        dfs_jw_cstr(w, "ranks_are", r->ranks_what);
    else
        dfs_jw_null(w, "ranks_are");
    json_time(w, "start", r->timed, r->start_ns);
    json_time(w, "end", r->timed, r->end_ns);
    dfs_jw_double(w, "wall_time_s", r->wall_s);
    dfs_jw_array(w, "sources");
    for (size_t i = 0; i < r->nkinds; i++) {
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "kind", r->kinds[i].name);
        dfs_jw_uint(w, "files", r->kinds[i].files);
        dfs_jw_uint(w, "events", r->kinds[i].events);
        dfs_jw_uint(w, "metadata_records", r->kinds[i].metadata);
        dfs_jw_bool(w, "analysed", r->kinds[i].analysed);
        if (!r->kinds[i].analysed) {
            dfs_jw_cstr(w, "why_not", r->kinds[i].why);
            dfs_jw_cstr(w, "answered_by", r->kinds[i].commands);
        }
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_array(w, "left_out");
    for (size_t i = 0; i < r->nleft_out; i++) {
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "path", r->left_out[i]);
        dfs_jw_cstr(w, "why", r->left_out_why[i]);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_end(w);
}

static void json_breakdown(dfs_jw *w, const dfs_job_report *r)
{
    dfs_jw_object(w, "breakdown");
    if (r->nparts)
        dfs_jw_cstr(w, "basis", r->breakdown_basis);
    else
        dfs_jw_cstr(w, "basis", "n/a: no compute events and no training steps were found");
    dfs_jw_double(w, "wall_time_s", r->nparts ? r->breakdown_wall_s : NAN);
    dfs_jw_array(w, "parts");
    for (size_t i = 0; i < r->nparts; i++) {
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "id", r->parts[i].id);
        dfs_jw_cstr(w, "label", r->parts[i].label);
        dfs_jw_double(w, "seconds", r->parts[i].seconds);
        dfs_jw_double(w, "share", r->breakdown_wall_s > 0 ? r->parts[i].seconds / r->breakdown_wall_s : NAN);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_end(w);
}

static void json_metric(dfs_jw *w, const dfs_metric *m)
{
    dfs_jw_cstr(w, "metric", m->name);
    dfs_jw_double(w, "value", m->value);
    dfs_jw_cstr(w, "unit", dfs_metric_unit_name(m->unit));
    if (m->where)
        dfs_jw_cstr(w, "where", m->where);
    else
        dfs_jw_null(w, "where");
}

static void json_insight(dfs_jw *w, const dfs_job_report *r, const dfs_insight *x)
{
    dfs_jw_object(w, NULL);
    dfs_jw_cstr(w, "id", x->id);
    dfs_jw_cstr(w, "title", x->title);
    dfs_jw_cstr(w, "severity", dfs_severity_name(x->severity));
    dfs_jw_double(w, "time_at_stake_s", x->stake_s);
    double wall = r->breakdown_wall_s > 0 ? r->breakdown_wall_s : r->wall_s;
    dfs_jw_double(w, "share_of_wall", isfinite(x->stake_s) && wall > 0 ? x->stake_s / wall : NAN);
    char text[1024];
    strbuf b = {text, 0, sizeof text};
    text[0] = '\0';
    sink k = {put_buf, put_buf, &b};
    render(&k, x->evidence, r->metrics);
    dfs_jw_object(w, "evidence");
    dfs_jw_cstr(w, "text", text);
    dfs_jw_array(w, "facts");
    for (size_t i = 0; i < x->nfacts; i++) {
        dfs_jw_object(w, NULL);
        json_metric(w, x->facts[i].metric);
        if (x->facts[i].condition) {
            dfs_jw_cstr(w, "condition", x->facts[i].at_most ? "at_most" : "at_least");
            dfs_jw_double(w, "threshold", x->facts[i].threshold);
            dfs_jw_cstr(w, "param", x->facts[i].param);
        }
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_end(w);
    dfs_jw_cstr(w, "remedy", x->remedy);
    dfs_jw_cstr(w, "command", x->command);
    dfs_jw_end(w);
}

static void json_layers(dfs_jw *w, const dfs_job_report *r)
{
    dfs_jw_array(w, "layers");
    for (size_t i = 0; i < r->nlayers; i++) {
        const dfs_report_layer *l = &r->layers[i];
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "name", l->name);
        dfs_jw_double(w, "wall_time_s", l->wall_s);
        dfs_jw_double(w, "process_s", l->process_s);
        dfs_jw_double(w, "busy_s", l->busy_s);
        dfs_jw_double(w, "unoverlapped_s", l->unoverlapped_s);
        dfs_jw_uint(w, "ops", l->ops);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

static void json_insights(dfs_jw *w, const dfs_job_report *r)
{
    dfs_jw_array(w, "insights");
    for (size_t i = 0; i < r->insights.n; i++)
        json_insight(w, r, &r->insights.v[i]);
    dfs_jw_end(w);
    dfs_jw_array(w, "not_evaluated");
    for (size_t i = 0; i < r->insights.nskipped; i++) {
        dfs_jw_object(w, NULL);
        dfs_jw_cstr(w, "id", r->insights.skipped[i].id);
        dfs_jw_cstr(w, "missing_metric", r->insights.skipped[i].missing);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
    dfs_jw_array(w, "metrics");
    for (size_t i = 0; i < r->metrics->n; i++) {
        dfs_jw_object(w, NULL);
        json_metric(w, &r->metrics->v[i]);
        dfs_jw_end(w);
    }
    dfs_jw_end(w);
}

void dfs_job_report_write_json(FILE *out, const dfs_job_report *r)
{
    dfs_jw w;
    dfs_jw_init(&w, out, true);
    dfs_jw_object(&w, NULL);
    dfs_jw_cstr(&w, "schema", "dfscope-report/1");
    json_job(&w, r);
    dfs_jw_cstr(&w, "analyses", r->analyses);
    if (r->second_pass)
        dfs_jw_cstr(&w, "second_pass", r->second_pass);
    else
        dfs_jw_null(&w, "second_pass");
    if (r->preset)
        dfs_jw_cstr(&w, "preset", r->preset);
    else
        dfs_jw_null(&w, "preset");
    json_breakdown(&w, r);
    dfs_jw_object(&w, "verdict");
    dfs_jw_cstr(&w, "label", r->verdict);
    dfs_jw_cstr(&w, "why", r->verdict_why);
    dfs_jw_end(&w);
    json_insights(&w, r);
    json_layers(&w, r);
    dfs_jw_array(&w, "more");
    for (size_t i = 0; i < r->nmore; i++)
        dfs_jw_cstr(&w, NULL, r->more[i]);
    dfs_jw_end(&w);
    dfs_jw_object(&w, "glossary");
    for (size_t i = 0; i < sizeof glossary / sizeof *glossary; i++)
        dfs_jw_cstr(&w, glossary[i].term, glossary[i].text);
    dfs_jw_end(&w);
    dfs_jw_end(&w);
    fputc('\n', out);
}
