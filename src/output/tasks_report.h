/* tasks_report.h - output of `dfscope tasks`: DASF's printed report (pandas' layout), CSV files with
 * DASF's column names and number formats, JSON, and the task graph as GraphML or DOT. */
#ifndef DFS_TASKS_REPORT_H
#define DFS_TASKS_REPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analyze/tasks/tasks.h"
#include "output/atomic.h"

typedef enum dfs_graph_format {
    DFS_GRAPH_AUTO = 0, /* from the file name: .dot / .gv are DOT, anything else GraphML */
    DFS_GRAPH_GRAPHML,
    DFS_GRAPH_DOT,
} dfs_graph_format;

/* The report DASF prints (banners, the first `head` rows of each table, "Analyses finished!"),
 * preceded by the mode and the notes. head 0 prints every row. */
void dfs_tasks_write_text(FILE *out, const dfs_tasks_result *r, size_t head);
/* The same content as one JSON document; head 0 = every row. */
void dfs_tasks_write_json(FILE *out, const dfs_tasks_result *r, size_t head);

/* One table as pandas prints a DataFrame under DASF's display options. */
void dfs_tasks_print_table(FILE *out, const dfs_tk_table *t, size_t head);
/* One table as pandas' to_csv writes it (index column first, floats as Python's repr); false
 * when out of memory. */
bool dfs_tasks_write_csv(FILE *out, const dfs_tk_table *t);
/* Creates dir (and its parents) and writes <name>.csv of every table that ran, each atomically.
 * None is written over an input of guard (may be NULL). Returns 0, or -1 with a message in err. */
int dfs_tasks_write_csv_dir(const char *dir, const dfs_tasks_result *r, dfs_output_guard *guard, char *err,
                            size_t errlen);

/* The annotated task graph, atomically, not over an input of guard (may be NULL). Returns 0, or -1
 * with a message in err. */
int dfs_tasks_write_graph(const char *path, dfs_graph_format f, const dfs_tasks *t, const dfs_tasks_result *r,
                          dfs_output_guard *guard, char *err, size_t errlen);

/* Python's repr() of a float ("5.0", "8e-06", "0.0003413333333333333"); returns the length. */
size_t dfs_py_float_repr(double v, char *buf, size_t cap);
#endif
