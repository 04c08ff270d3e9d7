/* insights.h - the report's insights engine: rules as data, evaluated over named metrics.
 *
 * The analyses a report runs (layered, overlap, steps, the I/O calls of iocalls.h) are reduced to a
 * flat set of named metrics (dfs_metrics: a value, its unit, and where it was measured: a rank, a
 * file, a call, a step). Rules are YAML (the shipped ones in the insights/ folder, compiled in; a user's
 * file with --rules): each has a stable id, conditions over metrics ("metric at least T" or "at
 * most T", every condition must hold), the metric holding the time at stake, an evidence template
 * naming metrics, a remedy and the command that shows more. Every threshold is a parameter
 * ("ID.PARAM") that --param NAME=VALUE overrides.
 *
 * Invariants: a rule fires exactly when each of its conditions holds, at the threshold included
 * (at_least: value >= T; at_most: value <= T); a rule one of whose metrics is missing does not
 * fire and is listed as not evaluated with the metric named; severity comes from the time at
 * stake as a share of the wall time (severity.critical and severity.warning, parameters too), or
 * from the rule's own severity when it has no time at stake; insights are ordered by time at
 * stake, largest first, then by id. The library never prints: failures come back as text.
 */
#ifndef DFS_INSIGHTS_H
#define DFS_INSIGHTS_H
#include <stdbool.h>
#include <stddef.h>

typedef enum dfs_metric_unit {
    DFS_MU_SECONDS, /* a duration in seconds */
    DFS_MU_SHARE,   /* a fraction 0..1, shown as a percentage */
    DFS_MU_BYTES,
    DFS_MU_COUNT,
    DFS_MU_RATIO,   /* a factor, shown as "3.2x" */
} dfs_metric_unit;

const char *dfs_metric_unit_name(dfs_metric_unit u); /* "s", "share", "bytes", "count", "ratio" */

typedef struct dfs_metric {
    char *name;
    double value; /* finite */
    dfs_metric_unit unit;
    char *where;  /* where it was measured ("rank 4", "pread64"), may come from a trace; NULL: job-wide */
} dfs_metric;

typedef struct dfs_metrics {
    dfs_metric *v;
    size_t n, cap;
    bool nomem; /* a set failed for want of memory */
} dfs_metrics;

void dfs_metrics_init(dfs_metrics *m);
void dfs_metrics_free(dfs_metrics *m);
/* Sets (or replaces) a metric; a value that is not finite is not set (the metric stays missing).
 * where is copied (NULL: none). false when out of memory (m->nomem). */
bool dfs_metrics_set(dfs_metrics *m, const char *name, double value, dfs_metric_unit unit, const char *where);
const dfs_metric *dfs_metrics_get(const dfs_metrics *m, const char *name);

typedef enum dfs_severity { DFS_SEV_INFO, DFS_SEV_WARNING, DFS_SEV_CRITICAL } dfs_severity;
const char *dfs_severity_name(dfs_severity s); /* "info", "warning", "critical" */

typedef struct dfs_insight_rules dfs_insight_rules;

/* An empty rule set (severity.critical 0.25, severity.warning 0.05); NULL when out of memory. */
dfs_insight_rules *dfs_insight_rules_new(void);
/* Adds the rules of YAML text (origin names it in messages: "ORIGIN:LINE:COLUMN: ..."); a rule
 * whose id is already there replaces it, and the text's severity shares replace the set's. false
 * with the reason in err (the set is then unchanged). */
bool dfs_insight_rules_add_text(dfs_insight_rules *r, const char *text, size_t len, const char *origin, char *err,
                                size_t errlen);
/* The shipped rules (the insights/ folder, compiled in), or a file's (--rules FILE). */
bool dfs_insight_rules_add_builtin(dfs_insight_rules *r, char *err, size_t errlen);
bool dfs_insight_rules_add_file(dfs_insight_rules *r, const char *path, char *err, size_t errlen);
void dfs_insight_rules_free(dfs_insight_rules *r);
/* Overrides a parameter, "ID.PARAM" (or "severity.critical", "severity.warning"), from text;
 * false with the reason (an unknown name, with the closest known one; a value that is not a
 * number) in err. */
bool dfs_insight_rules_set_param(dfs_insight_rules *r, const char *name, const char *value, char *err, size_t errlen);
size_t dfs_insight_rules_count(const dfs_insight_rules *r);
/* The i-th parameter's name ("ID.PARAM") and value, NULL past the last. */
const char *dfs_insight_rules_param(const dfs_insight_rules *r, size_t i, double *value);

/* One metric an insight rests on, as evaluated. */
typedef struct dfs_insight_fact {
    const dfs_metric *metric;   /* into the metrics evaluated */
    bool condition;             /* a condition of the rule (else the stake or the evidence) */
    bool at_most;               /* the condition's direction */
    double threshold;           /* the condition's threshold */
    const char *param;          /* its parameter, "ID.PARAM" */
} dfs_insight_fact;

typedef struct dfs_insight {
    const char *id, *title;
    const char *verdict;        /* the verdict label the rule gives the job, or NULL */
    dfs_severity severity;
    double stake_s;             /* time at stake, seconds; NAN when the rule has none */
    const char *evidence;       /* the template: {metric} a value with its unit, {metric.where} its place */
    const char *remedy, *command;
    const dfs_insight_fact *facts;
    size_t nfacts;
} dfs_insight;

/* A rule not evaluated: a metric it needs is missing. */
typedef struct dfs_insight_skip {
    const char *id;
    const char *missing; /* the first missing metric */
} dfs_insight_skip;

typedef struct dfs_insights {
    dfs_insight *v;
    size_t n;
    dfs_insight_skip *skipped;
    size_t nskipped;
    size_t evaluated;   /* rules evaluated (fired or not) */
    double critical, warning; /* the severity shares in force */
} dfs_insights;

/* Evaluates every rule over the metrics; wall_s (> 0) is what time at stake is a share of. The
 * result points into rules and metrics: free it first. false when out of memory. */
bool dfs_insights_eval(const dfs_insight_rules *r, const dfs_metrics *m, double wall_s, dfs_insights *out);
void dfs_insights_free(dfs_insights *in);
#endif
