/* help.c - a command's --help and its Markdown for docs/CLI.md, both from the declaration's option
 * table (command.h), so that the two never disagree (tests/cli/docs.sh checks the document). */
#include <string.h>

#include "cli/command_internal.h"

enum { HELP_COLUMN = 26 }; /* where the help text starts; a longer left side gets a line of its own */

/* "-o, --output FILE", "    --json" (aligned under the long names), or the option's own label. */
static void left_side(const dfs_cli_option *o, char *buf, size_t n)
{
    char name[128];
    if (o->label)
        snprintf(name, sizeof name, "%s", o->label);
    else
        snprintf(name, sizeof name, "--%s%s%s", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
    if (o->letter)
        snprintf(buf, n, "-%c, %s", o->letter, name);
    else
        snprintf(buf, n, "    %s", name);
}

static void print_option(FILE *out, const char *left, const char *help)
{
    int width = fprintf(out, "  %s", left);
    if (width > HELP_COLUMN - 2) {
        fputc('\n', out);
        width = 0;
    }
    for (const char *line = help; line; width = 0) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        fprintf(out, "%*s%.*s\n", HELP_COLUMN - width, "", len, line);
        line = nl ? nl + 1 : NULL;
    }
}

/* The usage line after "dfscope ". */
static const char *usage(const dfs_cli_command *cmd, char *buf, size_t n)
{
    if (cmd->usage)
        return cmd->usage;
    snprintf(buf, n, "%s [options] PATH...", cmd->name);
    return buf;
}

void dfs_cli_help(const dfs_cli_command *cmd, FILE *out)
{
    dfs_cli_optlist list;
    dfs_cli_collect_options(cmd, &list);
    char buf[64];
    fprintf(out, "usage: dfscope %s\n\n%s\n\n", usage(cmd, buf, sizeof buf), cmd->description);
    if (!list.n || !list.v[0]->section)
        fprintf(out, "options:\n");
    for (size_t i = 0; i < list.n; i++) {
        const dfs_cli_option *o = list.v[i];
        char left[160];
        if (o->section)
            fprintf(out, "%s\n", o->section);
        if (!o->help)
            continue;
        left_side(o, left, sizeof left);
        print_option(out, left, o->help);
    }
    print_option(out, "-h, --help", "this help");
    fprintf(out, "\n%s", cmd->epilogue ? cmd->epilogue : DFS_CLI_EXIT_CODES);
}

/* Text for a Markdown table cell: '|' escaped, runs of blanks folded (Markdown would fold them
 * anyway), and the help's lines joined: a line indented by exactly two blanks starts an item of a
 * list in the terminal (gen's --format), so it starts a new line of the cell; any other line goes
 * on the one before. */
static void cell(FILE *out, const char *text)
{
    for (const char *c = text; *c; c++) {
        if (*c == '\n') {
            size_t indent = strspn(c + 1, " ");
            fputs(indent == 2 ? "<br>" : " ", out);
            c += indent;
        } else if (*c == ' ') {
            fputc(' ', out);
            c += strspn(c + 1, " ");
        } else if (*c == '|') {
            fputs("\\|", out);
        } else {
            fputc(*c, out);
        }
    }
}

static void markdown_rows(FILE *out, const dfs_cli_option *const *v, size_t n)
{
    fprintf(out, "| option | meaning |\n|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        char left[160];
        if (!v[i]->help)
            continue;
        left_side(v[i], left, sizeof left);
        fputs("| `", out);
        cell(out, left + strspn(left, " "));
        fputs("` | ", out);
        cell(out, v[i]->help);
        fputs(" |\n", out);
    }
}

void dfs_cli_help_markdown(const dfs_cli_command *cmd, FILE *out)
{
    dfs_cli_optlist list;
    dfs_cli_collect_options(cmd, &list);
    size_t own = 0;
    while (cmd->options && cmd->options[own].name)
        own++;
    char buf[64];
    fprintf(out, "`dfscope %s`\n\n", usage(cmd, buf, sizeof buf));
    markdown_rows(out, list.v, own);
    if (cmd->groups & DFS_CLI_READING)
        fprintf(out, "\nAnd the options shared by every reading command (above)%s%s.\n",
                cmd->groups & DFS_CLI_JOBS ? ", `--mix` ([Inputs from several jobs](#inputs-from-several-jobs)), "
                                             "`--keep-merged` ([A merged trace beside its sources](#a-merged-trace-beside-its-sources))"
                                           : "",
                cmd->groups & DFS_CLI_MPI ? ", and `--mpi-stats` under mpirun/srun ([MPI.md](MPI.md))" : "");
}

void dfs_cli_help_markdown_shared(FILE *out)
{
    static const dfs_cli_command reading = {.groups = DFS_CLI_READING};
    dfs_cli_optlist list;
    dfs_cli_collect_options(&reading, &list);
    markdown_rows(out, list.v, list.n);
}
