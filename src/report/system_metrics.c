/* system_metrics.c - the report's system metrics, from the profiler rules' result over SageMaker
 * Debugger system samples: CPU and GPU utilization and I/O wait (OverallSystemUsage's quantiles
 * over time of each node's mean over its cores or GPUs), and the shares of snapshots CPUBottleneck
 * and IOBottleneck found bottlenecked.
 *
 * Invariants: a metric is set only when the rules measured it (a rule not evaluated, or a metric
 * with no samples, leaves it missing: never a zero); percentages become shares (0..1); of several
 * nodes, the one that makes the rule's case best is kept (the busiest CPU or I/O wait, the least
 * busy GPU) and named as the metric's where. */
#include <stdio.h>
#include <string.h>

#include "report/report.h"

static const dfs_rv *member(const dfs_rv *obj, const char *key)
{
    for (const dfs_rv *c = obj && obj->type == DFS_RV_OBJ ? obj->head : NULL; c; c = c->next)
        if (c->key && strcmp(c->key, key) == 0)
            return c;
    return NULL;
}

static bool number(const dfs_rv *obj, const char *key, double *out)
{
    const dfs_rv *v = member(obj, key);
    if (v && v->type == DFS_RV_NUM)
        *out = v->as.d;
    else if (v && v->type == DFS_RV_INT)
        *out = (double)v->as.i;
    else
        return false;
    return true;
}

static const dfs_rule_result *rule(const dfs_rules_result *r, dfs_rule_id id)
{
    for (size_t i = 0; i < r->nrules; i++)
        if (r->rules[i].id == id && r->rules[i].evaluated)
            return &r->rules[i];
    return NULL;
}

/* The node of a usage group ("CPU", "GPU", "I/O") whose p95 is the highest (lowest when low), its
 * p50 and p95 as shares into the metrics NAME_p50 and NAME_p95; nodes how many had one. */
static void usage(dfs_metrics *m, const dfs_rv *details, const char *group, const char *name, bool low,
                  size_t *nodes)
{
    const dfs_rv *g = member(details, group), *best = NULL;
    double p95 = 0, p50 = 0;
    size_t n = 0;
    for (const dfs_rv *node = g && g->type == DFS_RV_OBJ ? g->head : NULL; node; node = node->next) {
        double a, b;
        if (!number(node, "p95", &a) || !number(node, "p50", &b))
            continue;
        n++;
        if (!best || (low ? a < p95 : a > p95))
            best = node, p95 = a, p50 = b;
    }
    if (!best)
        return;
    char key[96];
    snprintf(key, sizeof key, "%s_p95", name);
    dfs_metrics_set(m, key, p95 / 100, DFS_MU_SHARE, best->key);
    snprintf(key, sizeof key, "%s_p50", name);
    dfs_metrics_set(m, key, p50 / 100, DFS_MU_SHARE, best->key);
    *nodes = n > *nodes ? n : *nodes;
}

static void bottleneck(dfs_metrics *m, const dfs_rule_result *x, const char *name)
{
    if (x && x->datapoints)
        dfs_metrics_set(m, name, (double)x->violations / (double)x->datapoints, DFS_MU_SHARE, NULL);
}

bool dfs_report_system_metrics(dfs_metrics *m, const dfs_rules_result *r)
{
    if (!r || !r->samples)
        return !m->nomem;
    const dfs_rule_result *os = rule(r, DFS_RULE_OVERALL_SYSTEM_USAGE);
    size_t nodes = 0;
    if (os) {
        usage(m, os->details, "CPU", "sys_cpu", false, &nodes);
        usage(m, os->details, "GPU", "sys_gpu", true, &nodes);
        usage(m, os->details, "I/O", "sys_io_wait", false, &nodes);
    }
    dfs_metrics_set(m, "sys_samples", (double)r->samples, DFS_MU_COUNT, NULL);
    if (nodes)
        dfs_metrics_set(m, "sys_nodes", (double)nodes, DFS_MU_COUNT, NULL);
    bottleneck(m, rule(r, DFS_RULE_CPU_BOTTLENECK), "sys_cpu_bottleneck_share");
    bottleneck(m, rule(r, DFS_RULE_IO_BOTTLENECK), "sys_io_bottleneck_share");
    return !m->nomem;
}
