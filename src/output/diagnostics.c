/* diagnostics.c - the problem report on stderr: in full (every kind, its count and first
 * examples) or brief (a few lines for a terminal). Both list the same kinds, in the order of
 * dfscope_problems.def, and escape what they quote from the trace. */
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

/* Is kind p reported? Legal variants only when verbose, except those listed_always. */
static bool reported(const dfs_run *run, int p, int verbose, uint64_t *n)
{
    *n = dfs_run_problem_count(run, (dfs_problem)p);
    char cls = dfs_problem_class((dfs_problem)p);
    return *n > 0 && (cls != 'V' || verbose || listed_always((dfs_problem)p));
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

/* "  path:line (offset N): detail" */
static void put_example(FILE *out, const dfs_run *run, const dfs_example *ex)
{
    const dfs_file_info *f = dfs_run_file(run, ex->file);
    fputs("  ", out);
    dfs_term_puts(out, f ? f->path : "?"); /* a path or a detail may quote the trace */
    if (ex->line)
        fprintf(out, ":%" PRIu64, ex->line);
    fprintf(out, " (offset %" PRIu64 "): ", ex->offset);
    dfs_term_puts(out, ex->detail);
    fputc('\n', out);
}

void dfs_report_problems(FILE *out, const dfs_run *run, int verbose, bool dedup)
{
    for (int p = 0; p < DFS_PROB__COUNT; p++) {
        uint64_t n;
        if (!reported(run, p, verbose, &n))
            continue;
        fprintf(out, "dfscope: %s: %" PRIu64 "%s\n", dfs_problem_code((dfs_problem)p), n,
                dfs_problem_class((dfs_problem)p) == 'V' ? " (legal variant)" : "");
        if (p == DFS_PROB_DUPLICATE_RECORD)
            duplicates_hint(out, run, n, dedup);
        const dfs_example *ex;
        size_t k = dfs_run_problem_examples(run, (dfs_problem)p, &ex);
        for (size_t i = 0; i < k; i++)
            put_example(out, run, &ex[i]);
        if (n > k && k)
            fprintf(out, "  ... and %" PRIu64 " more\n", n - k);
    }
}

enum { BRIEF_EXAMPLES = 2 }; /* the first example of this many kinds */

void dfs_report_problems_brief(FILE *out, const dfs_run *run, int verbose, bool dedup, const char *more)
{
    uint64_t total = 0, shown = 0;
    for (int p = 0; p < DFS_PROB__COUNT; p++) {
        uint64_t n;
        if (!reported(run, p, verbose, &n))
            continue;
        fprintf(out, "%s%s %" PRIu64 "%s", total ? ", " : "dfscope: problems: ", dfs_problem_code((dfs_problem)p), n,
                dfs_problem_class((dfs_problem)p) == 'V' ? " (legal variant)" : "");
        total += n;
    }
    if (!total)
        return;
    fputc('\n', out);
    uint64_t dups = dfs_run_problem_count(run, DFS_PROB_DUPLICATE_RECORD);
    if (dups)
        duplicates_hint(out, run, dups, dedup);
    for (int p = 0; p < DFS_PROB__COUNT && shown < BRIEF_EXAMPLES; p++) {
        uint64_t n;
        const dfs_example *ex;
        if (reported(run, p, verbose, &n) && dfs_run_problem_examples(run, (dfs_problem)p, &ex) > 0) {
            put_example(out, run, &ex[0]);
            shown++;
        }
    }
    if (total > shown && more) /* some problem is only counted */
        fprintf(out, "dfscope: %s\n", more);
}
