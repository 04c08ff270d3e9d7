/* report.h - the job report as a library: the composite analysis that feeds the layered,
 * overlap, steps, I/O-call, (on DASF inputs) tasks, (on profiler traces) gpu and (on SageMaker
 * Debugger files) profiler-rules consumers from one read (compose.c), and
 * the building of the job report (job_report.h) from their results (build.c). `dfscope report`
 * (cli/cmd_report.c) declares the command over them; output/job_report.c writes the report.
 *
 * This folder sits above the analyses (it composes several, which no analysis may do) and below
 * the presentation and the CLI. */
#ifndef DFS_REPORT_H
#define DFS_REPORT_H
#include "analyze/common/analysis.h"
#include "analyze/gpu/gpu.h"
#include "analyze/insights/insights.h"
#include "analyze/insights/iocalls.h"
#include "analyze/layered/layered.h"
#include "analyze/overlap/overlap.h"
#include "analyze/rules/rules.h"
#include "analyze/steps/steps.h"
#include "analyze/tasks/tasks.h"
#include "report/job_report.h"

/* The overlap classes the breakdown adds to the preset's: data wait or checkpoint, and those or
 * any I/O (build.c subtracts their unions). */
#define DFS_REPORT_CLASS_WAIT_CKPT "report_wait_ckpt"
#define DFS_REPORT_CLASS_STALL "report_stall"

typedef struct dfs_report_options {
    dfs_layered_options lay;
    dfs_overlap_options ov;
    dfs_steps_options st;
    dfs_tasks_options tk;
    dfs_overlap_class_def extra[2];
    char extra_text[2][1024];
    char rerun_reason[320]; /* why a second pass was read (outlives the first pass's objects) */
    dfs_gpu_options gpu;    /* exact semantics; the sections the report's metrics read */
    dfs_rules_options rules; /* the profiler rules, clean mode, all of them */
} dfs_report_options;

typedef struct dfs_report_results {
    const dfs_layered_result *lay;
    const dfs_overlap_result *ov;
    const dfs_steps_result *st;
    const dfs_iocalls_result *io;
    const dfs_tasks_result *tk; /* NULL without DASF inputs */
    const dfs_gpu_result *gpu;  /* NULL without profiler traces */
    const dfs_rules_result *rules; /* NULL without SageMaker Debugger files */
} dfs_report_results;

/* The analyses of the report on one read (analysis.h: consumers), opt: dfs_report_options; its
 * result is a dfs_report_results. */
extern const dfs_analysis dfs_report_analysis;

/* Sets the overlap options' classes for preset p: its defaults plus the breakdown's two unions. */
void dfs_report_overlap_classes(dfs_report_options *o);

/* Builds the report from the results: job facts, breakdown, metrics, insights and verdict.
 * metrics must be initialised; false when out of memory. Free with dfs_report_build_free. */
bool dfs_report_build(const dfs_run *run, const dfs_report_results *r, const dfs_insight_rules *rules,
                      dfs_metrics *metrics, dfs_job_report *out);
void dfs_report_build_free(dfs_job_report *rep);

/* The GPU metrics (gpu_*) of the ranks with device work in g (gpu_metrics.c); the launch wait
 * leaves out the data wait, so exposed_wait_s must be set before when measured. false when out of
 * memory. */
bool dfs_report_gpu_metrics(dfs_metrics *m, const dfs_gpu_result *g);

/* The system metrics (sys_*) of the profiler rules' result r (system_metrics.c): utilization and
 * I/O wait quantiles from OverallSystemUsage, the bottleneck shares of CPUBottleneck and
 * IOBottleneck where they were evaluated. false when out of memory. */
bool dfs_report_system_metrics(dfs_metrics *m, const dfs_rules_result *r);
#endif
