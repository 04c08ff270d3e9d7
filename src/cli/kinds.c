/* kinds.c - what the inputs are, and which commands answer questions about them.
 *
 * A command that finds nothing of what it looks for (its found_nothing hook says what: no event
 * in a layer, no training step...) has usually been given traces of another kind: `analyze` on a
 * PyTorch profiler trace, `steps` on a POSIX I/O trace. Its tables would be empty or zero and
 * look like an answer. So the skeleton says it before the report, on stderr: what was not
 * found, what the inputs are (their kinds, by file and event count), and the commands that read
 * that kind. The exit code does not change: the run worked, and the warning is its answer.
 *
 * The library names the kinds (analyze/common/input_kinds.h); one table here (kind_commands[]) gives the commands for each; a command never
 * suggests itself.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/common/input_kinds.h"
#include "cli/command_internal.h"
#include "output/format.h"

/* The commands that read each kind, "NAME (what it answers)", NULL-terminated. */
static const char *const kind_commands[DFS_KIND_COUNT][4] = {
    [DFS_KIND_DFTRACER] = {"analyze (time, operations and bandwidth by I/O layer)",
                           "overlap (how much I/O compute hides)", "timeline (a picture of a time window)"},
    [DFS_KIND_PROFILER] = {"steps (training steps, data wait, input-bound verdicts)", "rules (SageMaker Debugger's rules)",
                           "timeline (a picture of a time window)"},
    [DFS_KIND_CHROME] = {"timeline (a picture of a time window)", "steps (training steps, when the trace marks them)"},
    [DFS_KIND_COMPOSER] = {"steps (training steps, data wait, input-bound verdicts)", "timeline (a picture of a time window)"},
    [DFS_KIND_SMDEBUG_FRAMEWORK] = {"steps (training steps, data wait, input-bound verdicts)",
                                    "dataloader (data-loader calls and workers)", "rules (SageMaker Debugger's rules)"},
    [DFS_KIND_SMDEBUG_SYSTEM] = {"rules (SageMaker Debugger's rules)"},
    [DFS_KIND_DASF] = {"tasks (DASF's task and function analyses)"},
};

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
    for (int k = 0; k < DFS_KIND_COUNT; k++) {
        if (!files[k])
            continue;
        char ev[32];
        fprintf(err, "%s%s (%llu file%s, %s events)", sep, dfs_input_kind_name(k), (unsigned long long)files[k],
                files[k] == 1 ? "" : "s", dfs_fmt_count(ev, sizeof ev, events[k]));
        sep = " and ";
    }
}

/* The commands for the inputs' kinds but cmd, once each, a line each: how many were printed. */
static int suggest(FILE *err, const char *cmd, const uint64_t *files)
{
    const char *said[4 * DFS_KIND_COUNT];
    int nsaid = 0;
    for (int k = 0; k < DFS_KIND_COUNT; k++)
        for (int i = 0; files[k] && i < 4 && kind_commands[k][i]; i++) {
            const char *c = kind_commands[k][i];
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
    uint64_t files[DFS_KIND_COUNT] = {0}, events[DFS_KIND_COUNT] = {0};
    bool own_kind = false, any = false;
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        const dfs_file_info *f = dfs_run_file(run, i);
        int k = dfs_input_kind_of(f->dialect);
        if (k < 0)
            continue;
        files[k]++;
        events[k] += f->records;
        any = true;
        for (int c = 0; c < 4 && kind_commands[k][c]; c++)
            own_kind |= names(kind_commands[k][c], cmd);
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
