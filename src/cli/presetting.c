/* presetting.c - what `analyze` and `overlap` do before reading: preview the inputs (the time
 * origin, the categories), choose the preset (the one named, or the first shipped one whose
 * categories appear, else posix) and say which was auto-detected; their --timing line; and
 * analyze's listing of the shipped presets. */
#include <stdio.h>
#include <string.h>

#include "cli/command.h"
#include "util/suggest.h"

static bool has_category(const dfs_preview *pv, const dfs_string_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        for (size_t k = 0; k < pv->ncategories; k++)
            if (strcmp(pv->categories[k], l->v[i]) == 0)
                return true;
    return false;
}

/* NULL with the reason in err. */
static dfs_preset *choose(const char *given, const dfs_preview *pv, dfs_preset_error *err)
{
    if (given)
        return dfs_preset_load(given, err);
    static const char *const candidates[] = {"dlio", "ai"};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
        dfs_preset *p = dfs_preset_load(candidates[i], err);
        if (p && has_category(pv, &p->detect_categories))
            return p;
        dfs_preset_free(p);
    }
    return dfs_preset_load("posix", err);
}

int dfs_cli_choose_preset(dfs_cli_args *b, const char *cmd, uint64_t bytes, const char *given,
                          dfs_cli_presetting *ps)
{
    dfs_cli_common *c = &b->common;
    memset(ps, 0, sizeof *ps);
    ps->started = dfs_cli_now();
    ps->source = given ? "given" : "auto-detected";
    int rc = dfs_cli_preview(c, cmd, b->paths, b->npaths, b->output, bytes, &ps->pv);
    if (rc != DFS_EXIT_OK)
        return rc;
    ps->previewed = true;
    dfs_preset_error err;
    ps->preset = choose(given, &ps->pv, &err);
    if (!dfs_cli_agree(c, cmd, ps->preset != NULL, err.message)) {
        dfs_preset_free(ps->preset);
        ps->preset = NULL;
        return DFS_EXIT_USAGE;
    }
    if (!c->quiet && !given && dfs_cli_is_rank0(c))
        fprintf(stderr, "dfscope %s: preset %s (auto-detected; choose another with --preset)\n", cmd,
                ps->preset->name);
    return DFS_EXIT_OK;
}

int dfs_cli_presetting_end(const dfs_cli_args *b, const char *cmd, dfs_cli_presetting *ps, bool timing, int rc)
{
    const dfs_cli_common *c = &b->common;
    if (timing && dfs_cli_is_rank0(c))
        fprintf(stderr, "dfscope %s: %.3f s wall (finishing %.3f, writing %.3f), peak RSS %llu MB\n", cmd,
                dfs_cli_now() - ps->started, c->finish_s, c->write_s,
                (unsigned long long)(dfs_cli_peak_rss_kb() / 1024));
    dfs_preset_free(ps->preset);
    if (ps->previewed)
        dfs_preview_free(&ps->pv);
    memset(ps, 0, sizeof *ps);
    return rc;
}

int dfs_cli_list_presets(void *args, const char *cmd, const char *value)
{
    (void)args, (void)cmd, (void)value;
    for (size_t i = 0; i < dfs_preset_builtin_count(); i++) {
        dfs_preset_error err;
        dfs_preset *p = dfs_preset_load(dfs_preset_builtin_name(i), &err);
        fprintf(stdout, "%-8s %s\n", dfs_preset_builtin_name(i), p && p->description ? p->description : "");
        dfs_preset_free(p);
    }
    return DFS_EXIT_OK;
}

int dfs_cli_show_preset(void *args, const char *cmd, const char *name)
{
    (void)args;
    const char *text = dfs_preset_builtin_text(name);
    if (!text) {
        dfs_suggest s;
        dfs_suggest_init(&s, name);
        fprintf(stderr, "dfscope %s: no shipped preset named '%s'; the shipped presets are", cmd, name);
        for (size_t i = 0; i < dfs_preset_builtin_count(); i++) {
            dfs_suggest_offer(&s, dfs_preset_builtin_name(i));
            fprintf(stderr, "%s%s", i ? ", " : " ", dfs_preset_builtin_name(i));
        }
        dfs_cli_end_with_guess("", dfs_suggest_best(&s), "");
        return DFS_EXIT_USAGE;
    }
    fputs(text, stdout);
    return DFS_EXIT_OK;
}
