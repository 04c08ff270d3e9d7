/* args.c - option-value parsing every subcommand shares (cli.h): usage errors in one form, the
 * --format values, bounded numbers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "dfscope.h"
#include "util/suggest.h"

int dfs_cli_usage_error(const char *cmd, const char *what, const char *arg)
{
    if (arg)
        fprintf(stderr, "dfscope %s: %s '%s' (see 'dfscope %s --help')\n", cmd, what, arg, cmd);
    else
        fprintf(stderr, "dfscope %s: %s (see 'dfscope %s --help')\n", cmd, what, cmd);
    return DFS_EXIT_USAGE;
}

void dfs_cli_end_with_guess(const char *quoted, const char *guess, const char *otherwise)
{
    if (guess)
        fprintf(stderr, ". Did you mean '%s%s'?\n", quoted, guess);
    else
        fprintf(stderr, "%s\n", otherwise);
}

int dfs_cli_parse_format(const char *cmd, const char *arg, bool csv_ok, dfs_cli_format *out)
{
    static const char *const names[] = {"table", "json", "csv"};
    for (int f = DFS_CLI_TABLE; f <= DFS_CLI_CSV; f++) {
        if (strcmp(arg, names[f]) == 0 && (csv_ok || f != DFS_CLI_CSV)) {
            *out = (dfs_cli_format)f;
            return 0;
        }
    }
    const char *what = csv_ok ? "--format is table, json or csv, not" : "--format is table or json, not";
    const char *guess = dfs_suggest_among(arg, names, csv_ok ? 3 : 2);
    if (!guess)
        return dfs_cli_usage_error(cmd, what, arg);
    fprintf(stderr, "dfscope %s: %s '%s'", cmd, what, arg);
    dfs_cli_end_with_guess("", guess, "");
    return DFS_EXIT_USAGE;
}

bool dfs_cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return false; /* no sign, no blanks: strtoull would take " -1" as a huge number */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool dfs_cli_parse_double(const char *s, double lo, double hi, double *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !(v >= lo && v <= hi)) /* also refuses NaN */
        return false;
    *out = v;
    return true;
}
