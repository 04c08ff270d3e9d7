/* merge_report.c - what `dfscope merge` tells about its work: per input, events read and
 * written, dropped records, clock shifts and renumbered pids; spills; warnings. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "output/escape.h"
#include "output/format.h"
#include "output/json.h"
#include "output/merge/merge_internal.h"

bool mreport_init(dfs_merge_report *rep, const dfs_run *run, const char *mode)
{
    memset(rep, 0, sizeof *rep);
    rep->mode = mode;
    rep->nfiles = dfs_run_file_count(run);
    rep->files = calloc(rep->nfiles ? rep->nfiles : 1, sizeof *rep->files);
    for (size_t f = 0; rep->files && f < rep->nfiles; f++)
        rep->files[f].aligned = true;
    return rep->files != NULL;
}

void mreport_warn(dfs_merge_report *rep, const char *fmt, ...)
{
    char *line = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    char **nw = n >= 0 ? realloc(rep->warnings, (rep->nwarnings + 1) * sizeof *nw) : NULL;
    if (!nw) {
        free(n >= 0 ? line : NULL);
        return;
    }
    rep->warnings = nw;
    rep->warnings[rep->nwarnings++] = line;
}

void dfs_merge_report_free(dfs_merge_report *rep)
{
    for (size_t i = 0; i < rep->nwarnings; i++)
        free(rep->warnings[i]);
    free(rep->warnings);
    free(rep->files);
    memset(rep, 0, sizeof *rep);
}

void dfs_merge_report_text(FILE *out, const dfs_merge_report *rep, const dfs_run *run)
{
    char a[32], b[32], c[32], d[32];
    fprintf(out, "mode: %s\n", rep->mode ? rep->mode : "default");
    fprintf(out, "%-10s %-10s %-18s %12s %12s %9s %14s %s\n", "events in", "written", "dialect",
            "dropped", "shift (us)", "pids", "renumbered", "path");
    for (size_t f = 0; f < rep->nfiles; f++) {
        const dfs_merge_file *m = &rep->files[f];
        const dfs_file_info *fi = dfs_run_file(run, f);
        char shift[40];
        snprintf(shift, sizeof shift, "%s%.3f", m->aligned ? "" : "!", (double)m->shift_ns / 1000.0);
        fprintf(out, "%-10s %-10s %-18s %12s %12s %9u %14u ",
                dfs_fmt_count(a, sizeof a, m->events_in), dfs_fmt_count(b, sizeof b, m->events_out),
                dfs_dialect_name(fi->dialect), dfs_fmt_count(c, sizeof c, m->dropped), shift,
                m->lanes, m->remapped);
        dfs_term_puts(out, fi->path);
        fputc('\n', out);
    }
    fprintf(out, "total: %s events read, %s written, %s dropped, %s metadata records inserted\n",
            dfs_fmt_count(a, sizeof a, rep->events_in), dfs_fmt_count(b, sizeof b, rep->events_out),
            dfs_fmt_count(c, sizeof c, rep->dropped), dfs_fmt_count(d, sizeof d, rep->inserted));
    if (rep->runs_spilled)
        fprintf(out, "spilled: %s runs, %s, %u intermediate merge(s)\n",
                dfs_fmt_count(a, sizeof a, rep->runs_spilled),
                dfs_fmt_bytes(b, sizeof b, rep->bytes_spilled), rep->merge_passes);
    for (size_t i = 0; i < rep->nwarnings; i++) {
        fputs("warning: ", out);
        dfs_term_puts(out, rep->warnings[i]); /* they quote paths and names */
        fputc('\n', out);
    }
}

void dfs_merge_report_json(FILE *out, const dfs_merge_report *rep, const dfs_run *run)
{
    dfs_jw w;
    dfs_jw_init(&w, out, true);
    dfs_jw_object(&w, NULL);
    dfs_jw_cstr(&w, "schema", DFS_MERGE_SCHEMA);
    dfs_jw_cstr(&w, "dfscope_version", DFS_VERSION_STRING);
    dfs_jw_cstr(&w, "mode", rep->mode ? rep->mode : "default");
    dfs_jw_uint(&w, "events_in", rep->events_in);
    dfs_jw_uint(&w, "events_out", rep->events_out);
    dfs_jw_uint(&w, "dropped", rep->dropped);
    dfs_jw_uint(&w, "inserted", rep->inserted);
    dfs_jw_uint(&w, "lanes", rep->lanes);
    dfs_jw_uint(&w, "renumbered", rep->remapped);
    dfs_jw_uint(&w, "runs_spilled", rep->runs_spilled);
    dfs_jw_uint(&w, "bytes_spilled", rep->bytes_spilled);
    dfs_jw_uint(&w, "merge_passes", rep->merge_passes);
    dfs_jw_array(&w, "files");
    for (size_t f = 0; f < rep->nfiles; f++) {
        const dfs_merge_file *m = &rep->files[f];
        const dfs_file_info *fi = dfs_run_file(run, f);
        dfs_jw_object(&w, NULL);
        dfs_jw_cstr(&w, "path", fi->path);
        dfs_jw_cstr(&w, "dialect", dfs_dialect_name(fi->dialect));
        dfs_jw_uint(&w, "events_in", m->events_in);
        dfs_jw_uint(&w, "events_out", m->events_out);
        dfs_jw_uint(&w, "dropped", m->dropped);
        dfs_jw_bool(&w, "composer", m->composer);
        if (m->has_rank)
            dfs_jw_int(&w, "rank", m->rank);
        else
            dfs_jw_null(&w, "rank");
        dfs_jw_int(&w, "clock_shift_ns", m->shift_ns);
        dfs_jw_bool(&w, "aligned", m->aligned);
        dfs_jw_uint(&w, "pids", m->lanes);
        dfs_jw_uint(&w, "renumbered", m->remapped);
        dfs_jw_end(&w);
    }
    dfs_jw_end(&w);
    dfs_jw_array(&w, "warnings");
    for (size_t i = 0; i < rep->nwarnings; i++)
        dfs_jw_cstr(&w, NULL, rep->warnings[i]);
    dfs_jw_end(&w);
    dfs_jw_end(&w);
}
