#include "output/diagnostics.h"

#include <inttypes.h>

#include "output/escape.h"

/* Variants listed without -v: an input skipped, slower reading, and duplicates (which change
 * every sum unless dropped) with where their check stopped. */
static bool listed_always(dfs_problem p)
{
    return p == DFS_PROB_NOT_A_TRACE || p == DFS_PROB_UNMAPPED_READ || p == DFS_PROB_DUPLICATE_RECORD ||
           p == DFS_PROB_DUPLICATES_UNCHECKED;
}

/* What the duplicates do to the numbers, and what --dedup does about it. */
static void duplicates_hint(FILE *out, const dfs_run *run, uint64_t n, bool dedup)
{
    uint64_t events = 0;
    for (size_t i = 0; i < dfs_run_file_count(run); i++)
        events += dfs_run_file(run, i)->records;
    if (dedup) {
        fprintf(out, "  %" PRIu64 " exact duplicate record%s dropped (--dedup): not counted as events, in no analysis\n",
                n, n == 1 ? "" : "s");
        return;
    }
    double share = events ? 100.0 * (double)n / (double)events : 0;
    fprintf(out, "  %" PRIu64 " exact duplicate record%s (%.1f %% of events), kept and counted by every analysis;"
                 " --dedup drops them\n", n, n == 1 ? "" : "s", share);
}

void dfs_report_problems(FILE *out, const dfs_run *run, int verbose, bool dedup)
{
    for (int p = 0; p < DFS_PROB__COUNT; p++) {
        uint64_t n = dfs_run_problem_count(run, (dfs_problem)p);
        char cls = dfs_problem_class((dfs_problem)p);
        if (n == 0 || (cls == 'V' && !verbose && !listed_always((dfs_problem)p)))
            continue;
        fprintf(out, "dfscope: %s: %" PRIu64 "%s\n", dfs_problem_code((dfs_problem)p), n,
                cls == 'V' ? " (legal variant)" : "");
        if (p == DFS_PROB_DUPLICATE_RECORD)
            duplicates_hint(out, run, n, dedup);
        const dfs_example *ex;
        size_t k = dfs_run_problem_examples(run, (dfs_problem)p, &ex);
        for (size_t i = 0; i < k; i++) {
            const dfs_file_info *f = dfs_run_file(run, ex[i].file);
            fputs("  ", out);
            dfs_term_puts(out, f ? f->path : "?"); /* a path or a detail may quote the trace */
            if (ex[i].line)
                fprintf(out, ":%" PRIu64, ex[i].line);
            fprintf(out, " (offset %" PRIu64 "): ", ex[i].offset);
            dfs_term_puts(out, ex[i].detail);
            fputc('\n', out);
        }
        if (n > k && k)
            fprintf(out, "  ... and %" PRIu64 " more\n", n - k);
    }
}
