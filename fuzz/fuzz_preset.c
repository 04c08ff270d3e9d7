/* fuzz_preset.c - preset YAML (dfs_preset_parse) and additional-metric formulas: any text either
 * loads or fails with a message; a loaded preset keeps the invariants preset.h promises. The same
 * input is also compiled as a formula and, when it compiles, evaluated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/predicate.h"
#include "analyze/common/preset.h"

static void die(const char *what)
{
    fprintf(stderr, "fuzz: %s\n", what);
    abort();
}

static void check_preset(const dfs_preset *p)
{
    if (p->nlayers > DFS_PRESET_MAX_LAYERS || p->nadditional > DFS_PRESET_MAX_ADDITIONAL)
        die("limits exceeded");
    for (size_t i = 0; i < p->nlayers; i++) {
        const dfs_preset_layer *l = &p->layers[i];
        if (!l->name || !l->display)
            die("a layer without a name");
        if (l->parent >= (int)i)
            die("a parent that is not an earlier layer");
        if (dfs_preset_layer_index(p, l->name) != (int)i)
            die("layer names are not unique");
        if (l->nderived > DFS_PRESET_MAX_DERIVED)
            die("too many derived metrics");
        dfs_pred *pred = dfs_pred_parse(l->predicate, NULL);
        if (!pred)
            die("a loaded layer predicate does not compile");
        dfs_pred_free(pred);
    }
    for (size_t i = 0; i < p->nadditional; i++) {
        dfs_formula *f = dfs_formula_parse(p->additional[i].formula, NULL, NULL);
        if (!f)
            die("a loaded formula does not compile");
        dfs_formula_free(f);
    }
}

/* Columns get values from their names, some null, some zero (division by zero). */
static bool lookup(void *user, const char *column, double *value)
{
    (void)user;
    size_t n = strlen(column);
    if (n % 5 == 0)
        return false;
    *value = n % 3 == 0 ? 0.0 : (double)n * 1.5;
    return true;
}

static void formula(const char *text)
{
    dfs_preset_error err;
    err.message[0] = '\0';
    dfs_formula_vars vars = {"time_proc_max", 1e-9, 0.5};
    dfs_formula *f = dfs_formula_parse(text, &vars, &err);
    if (!f) {
        if (!err.message[0])
            die("a formula error without a message");
        return;
    }
    for (size_t i = 0; i < dfs_formula_ncolumns(f); i++)
        if (!dfs_formula_column(f, i))
            die("a formula column without a name");
    double out;
    if (dfs_formula_eval(f, lookup, NULL, &out) && !isfinite(out))
        die("a formula gave a non-finite value");
    dfs_formula_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    if (len > 65536)
        return 0;
    dfs_preset_error err;
    err.message[0] = '\0';
    dfs_preset *p = dfs_preset_parse((const char *)data, len, "fuzz.yaml", &err);
    if (p) {
        check_preset(p);
        dfs_preset_free(p);
    } else if (!err.message[0]) {
        die("a preset error without a message");
    }
    char *text = malloc(len + 1);
    if (!text)
        die("out of memory");
    memcpy(text, data, len);
    text[len] = '\0';
    formula(text);
    free(text);
    return 0;
}
