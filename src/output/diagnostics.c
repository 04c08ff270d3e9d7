#include "output/diagnostics.h"

#include <inttypes.h>

#include "output/escape.h"

void dfs_report_problems(FILE *out, const dfs_run *run, int verbose)
{
    for (int p = 0; p < DFS_PROB__COUNT; p++) {
        uint64_t n = dfs_run_problem_count(run, (dfs_problem)p);
        char cls = dfs_problem_class((dfs_problem)p);
        bool always = p == DFS_PROB_NOT_A_TRACE || p == DFS_PROB_UNMAPPED_READ; /* skipped input; slower reading */
        if (n == 0 || (cls == 'V' && !verbose && !always))
            continue;
        fprintf(out, "dfscope: %s: %" PRIu64 "%s\n", dfs_problem_code((dfs_problem)p), n,
                cls == 'V' ? " (legal variant)" : "");
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
