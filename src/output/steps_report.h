/* steps_report.h - output of `dfscope steps`: tables, JSON (schema "dfscope-steps/1") and CSV
 * (one row per step). Durations are integer ns in JSON and CSV (exact), ms in the tables; an
 * unavailable metric is null in JSON, empty in CSV and "-" in tables. */
#ifndef DFS_STEPS_REPORT_H
#define DFS_STEPS_REPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analyze/steps/steps.h"

typedef struct dfs_steps_report_opts {
    size_t head;                  /* per-step rows printed per run in tables (0: all) */
    bool details;                 /* tables: every run's steps, verdicts and notes even when there
                                     are several (one run: always) */
    const dfs_steps_options *opt; /* echoed in JSON */
    const dfs_concepts *concepts; /* the predicates in force, echoed in JSON */
} dfs_steps_report_opts;

/* Leads with the job (runs, steps, the verdict over every run); several runs then give one line
 * each, slowest first, unless o->details asks for every run's report. */
void dfs_steps_write_text(FILE *out, const dfs_run *run, const dfs_steps_result *r, const dfs_steps_report_opts *o);
void dfs_steps_write_json(FILE *out, const dfs_run *run, const dfs_steps_result *r, const dfs_steps_report_opts *o);
void dfs_steps_write_csv(FILE *out, const dfs_steps_result *r);
/* The default predicates of every source, as a table (`dfscope steps --concepts`). */
void dfs_steps_write_concepts(FILE *out, const dfs_concepts *c);
#endif
