#include "model/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *code;
    char cls;
} problems[DFS_PROB__COUNT] = {
#define DFS_PROBLEM(id, code, cls) {code, cls},
#include "dfscope_problems.def"
#undef DFS_PROBLEM
};

const char *dfs_problem_code(dfs_problem p) { return p < DFS_PROB__COUNT ? problems[p].code : "?"; }
char dfs_problem_class(dfs_problem p) { return p < DFS_PROB__COUNT ? problems[p].cls : 'D'; }

void dfs_diag_init(dfs_diag *d, unsigned max_examples)
{
    memset(d, 0, sizeof *d);
    d->max_examples = max_examples;
}

void dfs_diag_free(dfs_diag *d)
{
    for (int p = 0; p < DFS_PROB__COUNT; p++)
        dfs_vec_free(&d->examples[p]);
}

static int example_before(const dfs_example *a, const dfs_example *b)
{
    if (a->file != b->file)
        return a->file < b->file;
    return a->offset < b->offset;
}

/* Keeps the examples sorted and at most max_examples long. */
static void keep_example(dfs_diag *d, dfs_problem p, const dfs_example *ex)
{
    dfs_example_vec *v = &d->examples[p];
    if (v->n == d->max_examples && (v->n == 0 || !example_before(ex, &v->v[v->n - 1])))
        return;
    if (v->n < d->max_examples && !dfs_vec_reserve(v, 1))
        return;
    size_t i = v->n < d->max_examples ? v->n++ : v->n - 1;
    while (i > 0 && example_before(ex, &v->v[i - 1])) {
        v->v[i] = v->v[i - 1];
        i--;
    }
    v->v[i] = *ex;
}

void dfs_diag_add(dfs_diag *d, dfs_problem p, uint32_t file, uint64_t line, uint64_t offset,
                  const char *fmt, ...)
{
    d->counts[p]++;
    if (d->max_examples == 0)
        return;
    dfs_example ex = {.file = file, .line = line, .offset = offset};
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ex.detail, sizeof ex.detail, fmt, ap);
        va_end(ap);
    }
    keep_example(d, p, &ex);
}

void dfs_diag_count(dfs_diag *d, dfs_problem p, uint64_t n) { d->counts[p] += n; }

void dfs_diag_merge(dfs_diag *into, const dfs_diag *from, uint64_t line_base)
{
    for (int p = 0; p < DFS_PROB__COUNT; p++) {
        into->counts[p] += from->counts[p];
        for (size_t i = 0; i < from->examples[p].n; i++) {
            dfs_example ex = from->examples[p].v[i];
            if (ex.line)
                ex.line += line_base;
            keep_example(into, (dfs_problem)p, &ex);
        }
    }
}

uint64_t dfs_diag_damage(const dfs_diag *d)
{
    uint64_t n = 0;
    for (int p = 0; p < DFS_PROB__COUNT; p++)
        if (problems[p].cls == 'D')
            n += d->counts[p];
    return n;
}
