/* input_kinds.h - what the inputs are, as a user calls them: the kind of each dialect.
 *
 * Several dialects make one kind (DFTracer's three generations are "DFTracer traces"); the report
 * groups its inputs by kind and the CLI names the commands that read each. The kinds are few and
 * fixed, so they are an enum, numbered from 0 for tables indexed by kind. */
#ifndef DFS_INPUT_KINDS_H
#define DFS_INPUT_KINDS_H
#include "dfscope.h"

typedef enum dfs_input_kind {
    DFS_KIND_DFTRACER,
    DFS_KIND_PROFILER,          /* PyTorch (Kineto) or TensorFlow profiler */
    DFS_KIND_CHROME,            /* other Chrome trace-event files */
    DFS_KIND_COMPOSER,
    DFS_KIND_SMDEBUG_FRAMEWORK, /* and Horovod timelines */
    DFS_KIND_SMDEBUG_SYSTEM,
    DFS_KIND_DASF,
    DFS_KIND_COUNT
} dfs_input_kind;

/* The kind of a dialect; -1 when it tells nothing (no record said). */
int dfs_input_kind_of(dfs_dialect d);
/* "DFTracer traces", ...; NULL for a value that is no kind. */
const char *dfs_input_kind_name(int k);
#endif
