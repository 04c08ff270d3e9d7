/* merged.c - a merged trace given beside the traces it was made from is left out
 * (read/merges.h decides by content; docs/CLI.md, "A merged trace beside its sources").
 *
 * It runs for the commands that analyse one job, before anything else reads, and replaces the
 * inputs by the files they name less the merges, so every step after it (the preview, both
 * passes, the job check) sees the same inputs. Each merge left out is said in one line, unless -q,
 * and kept in the common options for the outputs that list their inputs (the report);
 * --keep-merged keeps the inputs as given. When no merge is found the inputs are untouched, as
 * given. Paths come from the file system and are escaped for the terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "dist/comm.h"
#include "output/escape.h"
#include "read/merges.h"

enum { SOURCES_NAMED = 3 }; /* the sources named per merge; the others are counted */

/* A source's path as read beside the merge: without the folder they share. */
static const char *beside(const char *merged, const char *path)
{
    const char *slash = strrchr(merged, '/');
    size_t dir = slash ? (size_t)(slash - merged) + 1 : 0;
    return dir && strncmp(path, merged, dir) == 0 && !strchr(path + dir, '/') ? path + dir : path;
}

/* Why a merge is left out: "a merge of the 2 inputs a.json, b.json (the same events, counted
 * once)", raw (whoever writes it escapes it); NULL when out of memory. */
static char *merge_why(const dfs_run *run, const dfs_merge *m)
{
    char *why = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&why, &len);
    if (!s)
        return NULL;
    const char *merged = dfs_run_file(run, m->merged)->path;
    fprintf(s, "a merge of the %zu inputs ", m->nsources);
    for (size_t i = 0; i < m->nsources && i < SOURCES_NAMED; i++)
        fprintf(s, "%s%s", i ? ", " : "", beside(merged, dfs_run_file(run, m->sources[i])->path));
    if (m->nsources > SOURCES_NAMED)
        fprintf(s, " and %zu more", m->nsources - SOURCES_NAMED);
    fputs(" (the same events, counted once)", s);
    bool ok = !ferror(s);
    if (fclose(s) != 0 || !ok) {
        free(why);
        return NULL;
    }
    return why;
}

/* "dfscope stats: left out DIR/merged.json, a merge of the 2 inputs a.json, b.json (the same
 * events, counted once); --keep-merged reads it too" */
static void say_merge(const char *cmd, const char *merged, const char *why)
{
    fprintf(stderr, "dfscope %s: left out ", cmd);
    dfs_term_puts(stderr, merged);
    fputs(", ", stderr);
    dfs_term_puts(stderr, why);
    fputs("; --keep-merged reads it too\n", stderr);
}

/* Says the merges and keeps them for the outputs; false when out of memory. */
static bool note_merges(const char *cmd, dfs_cli_common *c, const dfs_run *run, const dfs_merges *m)
{
    for (size_t k = 0; k < m->n; k++) {
        const char *merged = dfs_run_file(run, m->v[k].merged)->path;
        char *why = merge_why(run, &m->v[k]);
        if (!why)
            return false;
        if (!c->quiet && !dfs_comm_launched_other_rank())
            say_merge(cmd, merged, why);
        if (c->nleft_out == DFS_CLI_MAX_LEFT_OUT) {
            free(why);
            continue;
        }
        c->left_out_why[c->nleft_out] = why;
        if (!(c->left_out[c->nleft_out++] = strdup(merged)))
            return false;
    }
    return true;
}

/* The run's files less the merges, as a new list of paths (owned: every string and the array). */
static char **kept_paths(const dfs_run *run, const dfs_merges *m, int *n)
{
    size_t files = dfs_run_file_count(run);
    char **v = calloc(files + 1, sizeof *v);
    *n = 0;
    for (size_t i = 0; v && i < files; i++) {
        bool merged = false;
        for (size_t k = 0; k < m->n; k++)
            merged |= m->v[k].merged == i;
        if (merged)
            continue;
        v[*n] = strdup(dfs_run_file(run, i)->path);
        if (!v[(*n)++]) {
            dfs_cli_free_paths(v);
            return NULL;
        }
    }
    return v;
}

/* The merges among the inputs the paths name; the run lists them (NULL: none to look for). */
static dfs_run *list_inputs(const dfs_cli_common *c, char *const *paths, int npaths, dfs_merges *m, bool *ok)
{
    dfs_options o = c->opt;
    o.progress = NULL;
    dfs_run *run = dfs_run_new(&o);
    *ok = run != NULL;
    bool usable = *ok;
    for (int i = 0; usable && i < npaths; i++)
        usable = dfs_run_add_path(run, paths[i]) == DFS_OK;
    size_t n = usable ? dfs_run_file_count(run) : 0;
    const char **names = n >= 3 ? malloc(n * sizeof *names) : NULL;
    uint64_t *sizes = names ? malloc(n * sizeof *sizes) : NULL;
    for (size_t i = 0; sizes && i < n; i++) {
        const dfs_file_info *f = dfs_run_file(run, i);
        names[i] = f->path;
        sizes[i] = f->size;
        usable &= !f->unreadable; /* a walk's unreadable entry is said by the reading itself */
    }
    if (n >= 3 && !sizes)
        *ok = false;
    else if (sizes && usable)
        *ok = dfs_merges_find(names, sizes, n, &c->opt, m);
    free(names);
    free(sizes);
    return run;
}

int dfs_cli_leave_out_merges(const char *cmd, dfs_cli_common *c, char ***paths, int *npaths, char ***owned)
{
    *owned = NULL;
    if (c->keep_merged)
        return -1;
    dfs_merges m = {0};
    bool ok;
    dfs_run *run = list_inputs(c, *paths, *npaths, &m, &ok);
    if (ok && m.n) {
        int n;
        *owned = kept_paths(run, &m, &n);
        ok = *owned != NULL;
        if (ok) {
            *paths = *owned;
            *npaths = n;
        }
        ok = ok && note_merges(cmd, c, run, &m);
    }
    dfs_merges_free(&m);
    dfs_run_free(run);
    if (ok)
        return -1;
    fprintf(stderr, "dfscope %s: out of memory looking for merged inputs\n", cmd);
    return DFS_EXIT_OUTPUT;
}

void dfs_cli_free_left_out(dfs_cli_common *c)
{
    for (size_t i = 0; i < c->nleft_out; i++) {
        free(c->left_out[i]);
        free(c->left_out_why[i]);
    }
    c->nleft_out = 0;
}

void dfs_cli_free_paths(char **paths)
{
    for (size_t i = 0; paths && paths[i]; i++)
        free(paths[i]);
    free(paths);
}
