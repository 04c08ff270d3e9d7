/* insights_internal.h - what the files of the insights engine share: the rule set as loaded
 * (insights_yaml.c builds it, insights.c evaluates it). Every string is owned by the set. */
#ifndef DFS_INSIGHTS_INTERNAL_H
#define DFS_INSIGHTS_INTERNAL_H
#include <stdio.h>

#include "analyze/insights/insights.h"

enum { INSIGHT_MAX_CONDS = 8 };

typedef struct insight_cond {
    char *metric;
    bool at_most;     /* value <= threshold; else value >= threshold */
    double threshold;
    char *param;      /* "ID.NAME" */
} insight_cond;

typedef struct insight_rule {
    char *id, *title, *verdict, *stake, *evidence, *remedy, *command;
    dfs_severity severity; /* when the rule has no time at stake */
    insight_cond conds[INSIGHT_MAX_CONDS];
    size_t nconds;
} insight_rule;

struct dfs_insight_rules {
    insight_rule *v;
    size_t n, cap;
    double critical, warning;
};

/* The placeholders of an evidence template: their count, and up to max pointers to their names
 * (the text after '{'; a name ends at '.' or '}'). */
size_t insights_placeholders(const char *tmpl, const char **names, size_t max);
/* "unknown parameter NAME" with the closest known one, into err. */
void insights_unknown_param(const dfs_insight_rules *r, const char *name, char *err, size_t errlen);
#endif
