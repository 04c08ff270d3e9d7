/* kinds.c - what the inputs are, and which commands answer questions about them.
 *
 * A command that finds nothing of what it looks for (its found_nothing hook says what: no event
 * in a layer, no training step...) has usually been given traces of another kind: `analyze` on a
 * PyTorch profiler trace, `steps` on a POSIX I/O trace. Its tables would be empty or zero and
 * look like an answer. So the skeleton says it before the report, on stderr: what was not
 * found, what the inputs are (their kinds, by file and event count), and the commands that read
 * that kind. The exit code does not change: the run worked, and the warning is its answer.
 *
 * One table (kinds[]) maps each dialect to its kind and the commands for it; a command never
 * suggests itself.
 */
#include <stdio.h>
#include <string.h>

#include "cli/command_internal.h"
#include "output/format.h"

typedef struct kind {
    const char *name;         /* what a user calls these traces */
    const char *commands[4];  /* "NAME (what it answers)", NULL-terminated */
} kind;

enum {
    K_DFTRACER = DFS_CLI_K_DFTRACER,
    K_PROFILER = DFS_CLI_K_PROFILER,
    K_CHROME = DFS_CLI_K_CHROME,
    K_COMPOSER = DFS_CLI_K_COMPOSER,
    K_SMDEBUG_FRAMEWORK = DFS_CLI_K_SMDEBUG_FRAMEWORK,
    K_SMDEBUG_SYSTEM = DFS_CLI_K_SMDEBUG_SYSTEM,
    K_DASF = DFS_CLI_K_DASF,
    K_COUNT = DFS_CLI_K_COUNT
};

static const kind kinds[K_COUNT] = {
    [K_DFTRACER] = {"DFTracer traces",
                    {"analyze (time, operations and bandwidth by I/O layer)",
                     "overlap (how much I/O compute hides)", "timeline (a picture of a time window)"}},
    [K_PROFILER] = {"PyTorch or TensorFlow profiler traces",
                    {"steps (training steps, data wait, input-bound verdicts)", "rules (SageMaker Debugger's rules)",
                     "timeline (a picture of a time window)"}},
    [K_CHROME] = {"Chrome trace-event files",
                  {"timeline (a picture of a time window)", "steps (training steps, when the trace marks them)"}},
    [K_COMPOSER] = {"Composer traces",
                    {"steps (training steps, data wait, input-bound verdicts)", "timeline (a picture of a time window)"}},
    [K_SMDEBUG_FRAMEWORK] = {"SageMaker Debugger framework traces",
                             {"steps (training steps, data wait, input-bound verdicts)",
                              "dataloader (data-loader calls and workers)", "rules (SageMaker Debugger's rules)"}},
    [K_SMDEBUG_SYSTEM] = {"SageMaker Debugger system metrics", {"rules (SageMaker Debugger's rules)"}},
    [K_DASF] = {"DASF event databases", {"tasks (DASF's task and function analyses)"}},
};

int dfs_cli_kind_of(dfs_dialect d)
{
    switch (d) {
    case DFS_DIALECT_DFTRACER_2023:
    case DFS_DIALECT_DFTRACER_V1:
    case DFS_DIALECT_DFTRACER_V2: return K_DFTRACER;
    case DFS_DIALECT_KINETO:
    case DFS_DIALECT_TF_PROFILER: return K_PROFILER;
    case DFS_DIALECT_CHROME: return K_CHROME;
    case DFS_DIALECT_COMPOSER: return K_COMPOSER;
    case DFS_DIALECT_SMDEBUG_FRAMEWORK:
    case DFS_DIALECT_HOROVOD: return K_SMDEBUG_FRAMEWORK;
    case DFS_DIALECT_SMDEBUG_SYSTEM: return K_SMDEBUG_SYSTEM;
    case DFS_DIALECT_DASF: return K_DASF;
    default: return -1;
    }
}

const char *dfs_cli_kind_name(int k)
{
    return k >= 0 && k < K_COUNT ? kinds[k].name : NULL;
}

/* "analyze (...)" is command "analyze"? */
static bool names(const char *entry, const char *cmd)
{
    size_t n = strlen(cmd);
    return strncmp(entry, cmd, n) == 0 && entry[n] == ' ';
}

/* The inputs' kinds, as "DFTracer traces (48 files, 316,702 events)" joined by "and". */
static void describe(FILE *err, const uint64_t *files, const uint64_t *events)
{
    const char *sep = "";
    for (int k = 0; k < K_COUNT; k++) {
        if (!files[k])
            continue;
        char ev[32];
        fprintf(err, "%s%s (%llu file%s, %s events)", sep, kinds[k].name, (unsigned long long)files[k],
                files[k] == 1 ? "" : "s", dfs_fmt_count(ev, sizeof ev, events[k]));
        sep = " and ";
    }
}

/* The commands for the inputs' kinds but cmd, once each, a line each: how many were printed. */
static int suggest(FILE *err, const char *cmd, const uint64_t *files)
{
    const char *said[4 * K_COUNT];
    int nsaid = 0;
    for (int k = 0; k < K_COUNT; k++)
        for (int i = 0; files[k] && i < 4 && kinds[k].commands[i]; i++) {
            const char *c = kinds[k].commands[i];
            bool dup = names(c, cmd);
            for (int j = 0; j < nsaid && !dup; j++)
                dup = strcmp(said[j], c) == 0;
            if (dup)
                continue;
            int len = (int)strcspn(c, " ");
            const char *why = c + len + 2; /* after " (" */
            fprintf(err, "    dfscope %-12.*s %.*s\n", len, c, (int)strlen(why) - 1, why);
            said[nsaid++] = c;
        }
    return nsaid;
}

void dfs_cli_say_found_nothing(FILE *err, const char *cmd, const char *what, const dfs_run *run)
{
    uint64_t files[K_COUNT] = {0}, events[K_COUNT] = {0};
    bool own_kind = false, any = false;
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        const dfs_file_info *f = dfs_run_file(run, i);
        int k = dfs_cli_kind_of(f->dialect);
        if (k < 0)
            continue;
        files[k]++;
        events[k] += f->records;
        any = true;
        for (int c = 0; c < 4 && kinds[k].commands[c]; c++)
            own_kind |= names(kinds[k].commands[c], cmd);
    }
    fprintf(err, "dfscope %s: warning: %s in these inputs", cmd, what);
    if (!any) {
        fputs(" (no record said which kind of trace they are)\n", err);
        return;
    }
    fputs(".\n  They are ", err);
    describe(err, files, events);
    fputs(".\n", err);
    if (own_kind)
        fprintf(err, "  '%s' reads this kind: check the options that select events (see 'dfscope %s --help').\n", cmd,
                cmd);
    fputs("  Commands for them:\n", err);
    if (!suggest(err, cmd, files))
        fputs("    dfscope stats        what the traces hold\n", err);
}
