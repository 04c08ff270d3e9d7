/* rules_report.h - output of `dfscope rules`: a table (a summary line per rule, then each rule's
 * parameters and details), JSON (schema "dfscope-rules/1": per rule the reference report's
 * RuleTriggered, Violations, Details, Datapoints and RuleParameters, plus evaluated and reason),
 * CSV (one row per rule), and the list of rules and parameters. */
#ifndef DFS_RULES_REPORT_H
#define DFS_RULES_REPORT_H
#include <stdio.h>

#include "analyze/rules/rules.h"

void dfs_rules_write_text(FILE *out, const dfs_rules_result *r);
void dfs_rules_write_json(FILE *out, const dfs_rules_result *r);
void dfs_rules_write_csv(FILE *out, const dfs_rules_result *r);
/* Every rule with its parameters and defaults (`--list`). */
void dfs_rules_write_list(FILE *out);
#endif
