/* insights.c - the metric set and the evaluation of the report's rules (insights.h).
 *
 * Invariants: conditions compare with >= (at_least) and <= (at_most), so a rule fires at its
 * threshold exactly; a rule missing a metric is skipped with the metric named, never fired on a
 * default; the order of insights depends only on their values and ids. */
#include "analyze/insights/insights.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/insights/insights_internal.h"

const char *dfs_metric_unit_name(dfs_metric_unit u)
{
    static const char *const names[] = {"s", "share", "bytes", "count", "ratio"};
    return (unsigned)u < sizeof names / sizeof *names ? names[u] : "?";
}

const char *dfs_severity_name(dfs_severity s)
{
    static const char *const names[] = {"info", "warning", "critical"};
    return (unsigned)s < 3 ? names[s] : "?";
}

/* ---- metrics ---- */

void dfs_metrics_init(dfs_metrics *m)
{
    memset(m, 0, sizeof *m);
}

void dfs_metrics_free(dfs_metrics *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].name);
        free(m->v[i].where);
    }
    free(m->v);
    memset(m, 0, sizeof *m);
}

static dfs_metric *find_metric(const dfs_metrics *m, const char *name, size_t len)
{
    for (size_t i = 0; i < m->n; i++)
        if (strlen(m->v[i].name) == len && memcmp(m->v[i].name, name, len) == 0)
            return &m->v[i];
    return NULL;
}

const dfs_metric *dfs_metrics_get(const dfs_metrics *m, const char *name)
{
    return find_metric(m, name, strlen(name));
}

bool dfs_metrics_set(dfs_metrics *m, const char *name, double value, dfs_metric_unit unit, const char *where)
{
    if (!isfinite(value))
        return true;
    char *w = where ? strdup(where) : NULL;
    if (where && !w)
        return !(m->nomem = true);
    dfs_metric *x = find_metric(m, name, strlen(name));
    if (x) {
        free(x->where);
        *x = (dfs_metric){x->name, value, unit, w};
        return true;
    }
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 32;
        dfs_metric *v = realloc(m->v, cap * sizeof *v);
        if (!v) {
            free(w);
            return !(m->nomem = true);
        }
        m->v = v;
        m->cap = cap;
    }
    char *n = strdup(name);
    if (!n) {
        free(w);
        return !(m->nomem = true);
    }
    m->v[m->n++] = (dfs_metric){n, value, unit, w};
    return true;
}

/* ---- parameters ---- */

size_t dfs_insight_rules_count(const dfs_insight_rules *r)
{
    return r->n;
}

/* The i-th parameter: the two severity shares, then every condition's threshold. */
static double *param_at(dfs_insight_rules *r, size_t i, const char **name)
{
    if (i == 0) {
        *name = "severity.critical";
        return &r->critical;
    }
    if (i == 1) {
        *name = "severity.warning";
        return &r->warning;
    }
    i -= 2;
    for (size_t k = 0; k < r->n; k++) {
        if (i < r->v[k].nconds) {
            *name = r->v[k].conds[i].param;
            return &r->v[k].conds[i].threshold;
        }
        i -= r->v[k].nconds;
    }
    return NULL;
}

const char *dfs_insight_rules_param(const dfs_insight_rules *r, size_t i, double *value)
{
    const char *name = NULL;
    double *v = param_at((dfs_insight_rules *)r, i, &name);
    if (!v)
        return NULL;
    *value = *v;
    return name;
}

bool dfs_insight_rules_set_param(dfs_insight_rules *r, const char *name, const char *value, char *err, size_t errlen)
{
    char *end;
    double x = strtod(value, &end);
    if (end == value || *end || !isfinite(x)) {
        snprintf(err, errlen, "--param %s takes a number, not '%s'", name, value);
        return false;
    }
    const char *pname;
    double *slot;
    for (size_t i = 0; (slot = param_at(r, i, &pname)); i++)
        if (strcmp(pname, name) == 0) {
            *slot = x;
            return true;
        }
    insights_unknown_param(r, name, err, errlen);
    return false;
}

/* ---- evaluation ---- */

static bool holds(const insight_cond *c, double v)
{
    return c->at_most ? v <= c->threshold : v >= c->threshold;
}

/* Adds a fact unless its metric is there already; conditions come first, so they keep theirs. */
static void add_fact(dfs_insight_fact *f, size_t *n, const dfs_insight_fact *x)
{
    for (size_t i = 0; i < *n; i++)
        if (f[i].metric == x->metric)
            return;
    f[(*n)++] = *x;
}

/* The facts of a fired rule: its conditions, its stake, the metrics its evidence names. */
static dfs_insight_fact *facts_of(const insight_rule *rule, const dfs_metrics *m, size_t *n)
{
    size_t cap = rule->nconds + 1 + insights_placeholders(rule->evidence, NULL, 0);
    dfs_insight_fact *f = calloc(cap ? cap : 1, sizeof *f);
    if (!f)
        return NULL;
    *n = 0;
    for (size_t i = 0; i < rule->nconds; i++) {
        const insight_cond *c = &rule->conds[i];
        add_fact(f, n,
                 &(dfs_insight_fact){dfs_metrics_get(m, c->metric), true, c->at_most, c->threshold, c->param});
    }
    const dfs_metric *stake = rule->stake ? dfs_metrics_get(m, rule->stake) : NULL;
    if (stake)
        add_fact(f, n, &(dfs_insight_fact){.metric = stake});
    const char *names[64];
    size_t k = insights_placeholders(rule->evidence, names, 64);
    for (size_t i = 0; i < k && i < 64; i++) {
        const char *e = names[i] + strcspn(names[i], ".}");
        const dfs_metric *x = find_metric(m, names[i], (size_t)(e - names[i]));
        if (x)
            add_fact(f, n, &(dfs_insight_fact){.metric = x});
    }
    return f;
}

static dfs_severity severity_of(const dfs_insight_rules *r, const insight_rule *rule, double stake, double wall)
{
    if (!isfinite(stake))
        return rule->severity;
    double share = wall > 0 ? stake / wall : 0;
    return share >= r->critical ? DFS_SEV_CRITICAL : share >= r->warning ? DFS_SEV_WARNING : DFS_SEV_INFO;
}

/* The first metric of the rule that is missing, or NULL. */
static const char *missing_metric(const insight_rule *rule, const dfs_metrics *m)
{
    for (size_t i = 0; i < rule->nconds; i++)
        if (!dfs_metrics_get(m, rule->conds[i].metric))
            return rule->conds[i].metric;
    return rule->stake && !dfs_metrics_get(m, rule->stake) ? rule->stake : NULL;
}

static bool fires(const insight_rule *rule, const dfs_metrics *m)
{
    for (size_t i = 0; i < rule->nconds; i++)
        if (!holds(&rule->conds[i], dfs_metrics_get(m, rule->conds[i].metric)->value))
            return false;
    return true;
}

static int by_stake(const void *a, const void *b)
{
    const dfs_insight *x = a, *y = b;
    bool fx = isfinite(x->stake_s), fy = isfinite(y->stake_s);
    if (fx != fy)
        return fx ? -1 : 1;
    if (fx && x->stake_s != y->stake_s)
        return x->stake_s > y->stake_s ? -1 : 1;
    if (x->severity != y->severity)
        return x->severity > y->severity ? -1 : 1;
    return strcmp(x->id, y->id);
}

bool dfs_insights_eval(const dfs_insight_rules *r, const dfs_metrics *m, double wall_s, dfs_insights *out)
{
    memset(out, 0, sizeof *out);
    out->critical = r->critical;
    out->warning = r->warning;
    out->v = calloc(r->n ? r->n : 1, sizeof *out->v);
    out->skipped = calloc(r->n ? r->n : 1, sizeof *out->skipped);
    if (!out->v || !out->skipped) {
        dfs_insights_free(out);
        return false;
    }
    for (size_t i = 0; i < r->n; i++) {
        const insight_rule *rule = &r->v[i];
        const char *missing = missing_metric(rule, m);
        if (missing) {
            out->skipped[out->nskipped++] = (dfs_insight_skip){rule->id, missing};
            continue;
        }
        out->evaluated++;
        if (!fires(rule, m))
            continue;
        dfs_insight *x = &out->v[out->n];
        double stake = rule->stake ? dfs_metrics_get(m, rule->stake)->value : NAN;
        *x = (dfs_insight){rule->id, rule->title, rule->verdict, severity_of(r, rule, stake, wall_s), stake,
                           rule->evidence, rule->remedy, rule->command, NULL, 0};
        dfs_insight_fact *f = facts_of(rule, m, &x->nfacts);
        if (!f) {
            dfs_insights_free(out);
            return false;
        }
        x->facts = f;
        out->n++;
    }
    qsort(out->v, out->n, sizeof *out->v, by_stake);
    return true;
}

void dfs_insights_free(dfs_insights *in)
{
    for (size_t i = 0; in->v && i < in->n; i++)
        free((void *)in->v[i].facts);
    free(in->v);
    free(in->skipped);
    memset(in, 0, sizeof *in);
}
