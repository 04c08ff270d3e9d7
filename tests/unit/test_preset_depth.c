/* test_preset_depth.c - deep YAML in a preset (preset.c: MAX_YAML_DEPTH): a text nested deeper
 * than 64 sequences and mappings, in flow or block style, is refused at the collection that goes
 * too deep, with its line and column, before libyaml loads it (a megabyte of '[' used to run for
 * minutes inside libyaml); nesting up to the limit still loads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/common/preset.h"
#include "testutil.h"

#define HEAD "name: deep\nbase: posix\ndefinitions: " /* `definitions` is never walked */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* HEAD, then `n` copies of `open`, then `middle`, then `n` copies of `close`, then a newline. */
static char *nested(const char *open, size_t n, const char *middle, const char *close)
{
    size_t h = strlen(HEAD), o = strlen(open), m = strlen(middle), c = strlen(close);
    char *s = malloc(h + n * (o + c) + m + 2), *p = s;
    assert_non_null(s);
    memcpy(p, HEAD, h), p += h;
    for (size_t i = 0; i < n; i++)
        memcpy(p, open, o), p += o;
    memcpy(p, middle, m), p += m;
    for (size_t i = 0; i < n; i++)
        memcpy(p, close, c), p += c;
    memcpy(p, "\n", 2);
    return s;
}

static void refused(const char *yaml, const char *want)
{
    dfs_preset_error err;
    double t0 = now_s();
    dfs_preset *p = dfs_preset_parse(yaml, strlen(yaml), "deep.yaml", &err);
    double took = now_s() - t0;
    if (p)
        fail_msg("a preset nested too deeply loaded");
    if (strcmp(err.message, want) != 0)
        fail_msg("message '%s', expected '%s'", err.message, want);
    if (took > 2.0)
        fail_msg("refusing took %.1f s", took);
}

static void a_megabyte_of_brackets_is_refused_at_once(void **state)
{
    (void)state;
    /* The file: just under the 1 MiB cap, never closed. The root mapping is level 1, so
     * the 64th '[' (column 14 + 63) is the 65th level. */
    char *yaml = nested("[", (1 << 20) - 64, "", "");
    refused(yaml, "deep.yaml:3:77: nested deeper than 64 sequences and mappings");
    free(yaml);
}

static void every_style_counts(void **state)
{
    (void)state;
    char *yaml = nested("{a: [", 1000, "x", "]}"); /* flow mappings and sequences */
    refused(yaml, "deep.yaml:3:173: nested deeper than 64 sequences and mappings");
    free(yaml);
    /* block sequences, one level per "- " on one line */
    const char *head = "name: deep\nbase: posix\ndefinitions:\n";
    size_t n = 100000, h = strlen(head);
    char *block = malloc(h + 2 * n + 3);
    memcpy(block, head, h);
    for (size_t i = 0; i < n; i++)
        memcpy(block + h + 2 * i, "- ", 2);
    memcpy(block + h + 2 * n, "x\n", 3);
    refused(block, "deep.yaml:4:127: nested deeper than 64 sequences and mappings");
    free(block);
}

static void nesting_up_to_the_limit_loads(void **state)
{
    (void)state;
    char *yaml = nested("[", 63, "1", "]"); /* with the root mapping: 64 levels */
    dfs_preset_error err;
    dfs_preset *p = dfs_preset_parse(yaml, strlen(yaml), "deep.yaml", &err);
    if (!p)
        fail_msg("64 levels do not load: %s", err.message);
    dfs_preset_free(p);
    free(yaml);
    yaml = nested("[", 64, "1", "]");
    refused(yaml, "deep.yaml:3:77: nested deeper than 64 sequences and mappings");
    free(yaml);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_megabyte_of_brackets_is_refused_at_once),
        cmocka_unit_test(every_style_counts),
        cmocka_unit_test(nesting_up_to_the_limit_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
