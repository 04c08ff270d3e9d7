/* test_preset.c - the shipped presets against layered-analysis.md §3 and §5, user files with `base:`,
 * every loader error path (with its place), and the additional-metric formulas. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/preset.h"
#include "testutil.h"

static dfs_preset *load_ok(const char *name)
{
    dfs_preset_error err;
    dfs_preset *p = dfs_preset_load(name, &err);
    if (!p)
        fail_msg("preset '%s' does not load: %s", name, err.message);
    return p;
}

static dfs_preset *parse_ok(const char *yaml, const char *origin)
{
    dfs_preset_error err;
    dfs_preset *p = dfs_preset_parse(yaml, strlen(yaml), origin, &err);
    if (!p)
        fail_msg("does not parse: %s\n---\n%s", err.message, yaml);
    return p;
}

static bool list_has(const dfs_string_list *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return true;
    return false;
}

/* ---- the expected data, written from the spec independently of the YAML ---- */

typedef struct want_layer {
    const char *name, *parent, *predicate, *display;
    bool size, unoverlapped;
    const char *derived; /* "posix" (DERIVED_POSIX_METRICS), "" (none) or "a,b,c" */
} want_layer;

#define POSIX_OR_STDIO "cat.str.contains(\"posix|stdio\")"

static const want_layer dlio_g2[] = {
    {"app", NULL, "func_name == \"DLIOBenchmark.run\"", "App", false, false, ""},
    {"training", "app", "func_name == \"DLIOBenchmark._train\"", "Training", false, false, ""},
    {"compute", "training", "cat == \"ai_framework\"", "Compute", false, false, ""},
    {"fetch_data", "training", "func_name.isin([\"<module>.iter\", \"fetch-data.iter\", \"loop.iter\"])",
     "Fetch Data", false, true, ""},
    {"data_loader", "fetch_data", "cat == \"data_loader\" & ~func_name.isin([\"loop.iter\", \"loop.yield\"])",
     "Data Loader", false, true, "init,item"},
    {"data_loader_fork", "fetch_data", "cat == \"posix\" & func_name == \"fork\"", "Data Loader Fork", false,
     true, ""},
    {"reader", "data_loader", "cat == \"reader\"", "Reader", false, true, "close,open,preprocess,sample"},
    {"reader_posix_lustre", "reader", POSIX_OR_STDIO " & cat.str.contains(\"_reader_lustre\")",
     "Reader POSIX (Lustre)", true, true, "posix"},
    {"checkpoint", "training", "cat == \"checkpoint\"", "Checkpoint", false, true, ""},
    {"checkpoint_posix_lustre", "checkpoint", POSIX_OR_STDIO " & cat.str.contains(\"_checkpoint_lustre\")",
     "Checkpoint POSIX (Lustre)", true, true, "posix"},
    {"checkpoint_posix_ssd", "checkpoint", POSIX_OR_STDIO " & cat.str.contains(\"_checkpoint_ssd\")",
     "Checkpoint POSIX (SSD)", true, true, "posix"},
    {"other_posix", NULL, "cat.isin([\"posix\", \"stdio\"])", "Other POSIX", true, true, "posix"},
};

static const want_layer dlio_g3[] = {
    {"app", NULL, "func_name.isin([\"DLIOBenchmark.initialize\", \"DLIOBenchmark.run\"])", "App", false,
     false, ""},
    {"training", "app", "func_name == \"DLIOBenchmark.run\"", "Training", false, false, ""},
    {"epoch", "training", "func_name == \"DLIOBenchmark._train\"", "Epoch", false, false, ""},
    {"compute", "epoch", "cat == \"ai_framework\"", "Compute", false, false, ""},
    {"fetch_data", "epoch", "func_name.isin([\"<module>.iter\", \"fetch-data.iter\", \"loop.iter\"])",
     "Fetch Data", false, false, ""},
    {"checkpoint", "epoch", "cat == \"checkpoint\"", "Checkpoint", false, false, ""},
    {"data_loader", "fetch_data", "cat == \"data_loader\" & ~func_name.isin([\"loop.iter\", \"loop.yield\"])",
     "DLIO Data Loader", false, true, "init,item"},
    {"data_loader_fork", "fetch_data", "cat == \"posix\" & func_name == \"fork\"", "DLIO Data Loader Fork",
     false, true, ""},
    {"reader", "data_loader", "cat == \"reader\"", "Reader", false, true, "close,open,preprocess,sample"},
    {"posix", NULL, POSIX_OR_STDIO, "POSIX - All", true, true, "posix"},
    {"reader_posix", "reader", POSIX_OR_STDIO " & cat.str.contains(\"_reader\")", "POSIX - Reader", true,
     true, "posix"},
    {"checkpoint_posix", "checkpoint", POSIX_OR_STDIO " & cat.str.contains(\"_checkpoint\")",
     "POSIX - Checkpoint", true, false, "posix"},
};

static const want_layer ai[] = {
    {"app", NULL, "func_name == \"ai_root\"", "App", false, false, ""},
    {"training", "app", "cat == \"pipeline\" & func_name == \"train\"", "Training", false, false, ""},
    {"epoch", "training", "cat == \"pipeline\" & func_name.str.startswith(\"epoch\")", "Epoch", false, false,
     ""},
    {"compute", "epoch", "cat == \"compute\"", "Compute", false, false, ""},
    {"fetch_data", "epoch", "func_name == \"fetch.iter\"", "Fetch Data", false, false, ""},
    {"checkpoint", "epoch", "cat == \"checkpoint\"", "Checkpoint", false, false, ""},
    {"comm", "epoch", "cat == \"comm\"", "comm", false, false, ""},
    {"device", "epoch", "cat == \"device\"", "device", false, false, ""},
    {"data_loader", "fetch_data", "cat.isin([\"data\", \"data_loader\", \"dataloader\"])", "DLIO Data Loader",
     false, true, "init,item"},
    {"data_loader_fork", "fetch_data", "cat == \"posix\" & func_name == \"fork\"", "DLIO Data Loader Fork",
     false, true, ""},
    {"reader", "data_loader", "cat == \"reader\" or func_name == \"preprocess\"", "Reader", false, true,
     "close,open,preprocess,sample"},
    {"posix", NULL, POSIX_OR_STDIO, "POSIX - All", true, true, "posix"},
    {"reader_posix", "reader", POSIX_OR_STDIO " & cat.str.contains(\"_reader\")", "POSIX - Reader", true,
     true, "posix"},
    {"checkpoint_posix", "checkpoint", POSIX_OR_STDIO " & cat.str.contains(\"_checkpoint\")",
     "POSIX - Checkpoint", true, false, "posix"},
};

/* §5.1 */
static const struct {
    const char *name, *predicate;
    bool sized;
} derived_posix[] = {
    {"data", "io_cat == 1 or io_cat == 2", true},
    {"read", "io_cat == 1", true},
    {"write", "io_cat == 2", true},
    {"metadata", "io_cat == 3", false},
    {"close", "io_cat == 3 and func_name.str.contains(\"close\") and ~func_name.str.contains(\"dir\")",
     false},
    {"open", "io_cat == 3 and func_name.str.contains(\"open\") and ~func_name.str.contains(\"dir\")", false},
    {"seek", "io_cat == 3 and func_name.str.contains(\"seek\")", false},
    {"stat", "io_cat == 3 and func_name.str.contains(\"stat\")", false},
    {"other", "io_cat == 6", false},
    {"sync", "io_cat == 7", false},
};

static void check_derived_posix(const dfs_preset_layer *l)
{
    assert_int_equal(l->nderived, sizeof derived_posix / sizeof *derived_posix);
    for (size_t i = 0; i < l->nderived; i++) {
        assert_string_equal(l->derived[i].name, derived_posix[i].name);
        assert_string_equal(l->derived[i].predicate, derived_posix[i].predicate);
        assert_int_equal(l->derived[i].sized, derived_posix[i].sized);
    }
}

static void check_derived_names(const dfs_preset_layer *l, const char *names)
{
    char buf[128];
    size_t n = 0;
    snprintf(buf, sizeof buf, "%s", names);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
        assert_true(n < l->nderived);
        assert_string_equal(l->derived[n].name, t);
        assert_false(l->derived[n].sized);
    }
    assert_int_equal(l->nderived, n);
}

static void check_layers(const dfs_preset *p, const want_layer *want, size_t n)
{
    assert_int_equal(p->nlayers, n);
    for (size_t i = 0; i < n; i++) {
        const dfs_preset_layer *l = &p->layers[i];
        assert_string_equal(l->name, want[i].name);
        assert_string_equal(l->predicate, want[i].predicate);
        assert_string_equal(l->display, want[i].display);
        assert_int_equal(l->parent, want[i].parent ? dfs_preset_layer_index(p, want[i].parent) : -1);
        assert_true(l->parent < (int)i);
        assert_int_equal(l->size_layer, want[i].size);
        assert_int_equal(l->unoverlapped, want[i].unoverlapped);
        if (strcmp(want[i].derived, "posix") == 0)
            check_derived_posix(l);
        else
            check_derived_names(l, want[i].derived);
    }
}

static const dfs_derived_metric *derived(const dfs_preset *p, const char *layer, const char *name)
{
    int l = dfs_preset_layer_index(p, layer);
    assert_true(l >= 0);
    for (size_t i = 0; i < p->layers[l].nderived; i++)
        if (strcmp(p->layers[l].derived[i].name, name) == 0)
            return &p->layers[l].derived[i];
    fail_msg("no derived metric %s in layer %s", name, layer);
    return NULL;
}

/* ---- shipped presets ---- */

static void builtin_table(void **state)
{
    (void)state;
    static const char *const names[] = {"posix", "dlio", "dlio-g2", "ai", "auto", "posix-g2"};
    assert_int_equal(dfs_preset_builtin_count(), 6);
    for (size_t i = 0; i < 6; i++) {
        assert_string_equal(dfs_preset_builtin_name(i), names[i]);
        const char *text = dfs_preset_builtin_text(names[i]);
        assert_non_null(text);
        char line[32];
        snprintf(line, sizeof line, "\nname: %s\n", names[i]);
        assert_non_null(strstr(text, line));
        dfs_preset *p = load_ok(names[i]);
        assert_string_equal(p->name, names[i]);
        assert_non_null(p->description);
        dfs_preset_free(p);
    }
    assert_null(dfs_preset_builtin_name(6));
    assert_null(dfs_preset_builtin_text("generic"));
    assert_null(dfs_preset_builtin_text(NULL));
}

static void dlio_g2_preset(void **state)
{
    (void)state;
    dfs_preset *p = load_ok("dlio-g2");
    assert_int_equal(p->generation, DFS_GEN_G2);
    check_layers(p, dlio_g2, sizeof dlio_g2 / sizeof *dlio_g2);
    assert_int_equal(p->time_boundary, 0);
    assert_int_equal(p->compute_layer, 2);
    assert_false(p->auto_layers);
    assert_string_equal(derived(p, "data_loader", "item")->predicate,
                        "func_name.str.contains(\"__getitem__\")");
    assert_string_equal(derived(p, "reader", "close")->predicate, "func_name.str.contains(\".close\")");
    assert_string_equal(derived(p, "reader", "sample")->predicate, "func_name.str.contains(\".get_sample\")");
    /* G2 size layers are those whose name contains "posix" */
    for (size_t i = 0; i < p->nlayers; i++)
        assert_int_equal(p->layers[i].size_layer, strstr(p->layers[i].name, "posix") != NULL);
    static const char *const metrics[] = {"compute", "fetch_data", "checkpoint"};
    assert_int_equal(p->nadditional, 3);
    for (size_t i = 0; i < 3; i++) {
        char name[32], formula[96];
        snprintf(name, sizeof name, "%s_util", metrics[i]);
        snprintf(formula, sizeof formula, "%s_{time_metric} / (app_{time_metric} + {epsilon})", metrics[i]);
        assert_string_equal(p->additional[i].name, name);
        assert_string_equal(p->additional[i].formula, formula);
        assert_null(p->additional[i].view);
    }
    assert_int_equal(p->detect_categories.n, 0);
    dfs_preset_free(p);
}

static void dlio_g3_preset(void **state)
{
    (void)state;
    dfs_preset *p = load_ok("dlio");
    assert_int_equal(p->generation, DFS_GEN_G3);
    check_layers(p, dlio_g3, sizeof dlio_g3 / sizeof *dlio_g3);
    assert_int_equal(p->time_boundary, 0);
    assert_int_equal(p->compute_layer, 3);
    assert_int_equal(p->nadditional, 0);
    assert_string_equal(derived(p, "data_loader", "item")->predicate, "func_name.str.contains(\"item\")");
    assert_int_equal(dfs_preset_layer_index(p, "other_posix"), -1);
    assert_int_equal(p->detect_categories.n, 2);
    assert_string_equal(p->detect_categories.v[0], "dlio_benchmark");
    assert_string_equal(p->detect_categories.v[1], "ai_framework");
    dfs_preset_free(p);
}

static void ai_preset(void **state)
{
    (void)state;
    dfs_preset *p = load_ok("ai");
    assert_int_equal(p->generation, DFS_GEN_G3);
    check_layers(p, ai, sizeof ai / sizeof *ai);
    assert_int_equal(p->time_boundary, 0);
    assert_int_equal(p->compute_layer, 3);
    static const char *const cats[] = {"pipeline", "compute", "data", "dataloader", "comm", "device"};
    assert_int_equal(p->detect_categories.n, 6);
    for (size_t i = 0; i < 6; i++)
        assert_true(list_has(&p->detect_categories, cats[i]));
    dfs_preset_free(p);
}

static void posix_and_auto_presets(void **state)
{
    (void)state;
    dfs_preset *p = load_ok("posix");
    assert_int_equal(p->nlayers, 1);
    assert_string_equal(p->layers[0].name, "posix");
    assert_string_equal(p->layers[0].predicate, POSIX_OR_STDIO);
    assert_string_equal(p->layers[0].display, "POSIX - All");
    assert_true(p->layers[0].size_layer);
    assert_false(p->layers[0].unoverlapped);
    assert_int_equal(p->layers[0].parent, -1);
    check_derived_posix(&p->layers[0]);
    assert_int_equal(p->time_boundary, 0);
    assert_int_equal(p->compute_layer, -1);
    assert_false(p->auto_layers);
    dfs_preset_free(p);

    p = load_ok("auto");
    assert_int_equal(p->nlayers, 1);
    assert_string_equal(p->layers[0].name, "app");
    assert_null(p->layers[0].predicate);
    assert_int_equal(p->layers[0].nderived, 0);
    assert_true(p->auto_layers);
    assert_int_equal(p->time_boundary, 0);
    assert_int_equal(p->detect_categories.n, 0);
    assert_true(list_has(&p->post_read.io_cat_names[DFS_IO_READ], "pread64"));
    dfs_preset_free(p);
}

/* ---- post-read rules (§3) ---- */

static void check_common_post_read(const dfs_post_read *r)
{
    static const char *const files[] = {
        "/dev/", "/etc/",    "/gapps/python",    "/lib/python",       "/proc/", "/software/",
        "/sys/", "/usr/lib", "/usr/tce/backend", "/usr/tce/packages", "/venv",  "__pycache__"};
    assert_int_equal(r->ignored_file_patterns.n, 12);
    for (size_t i = 0; i < 12; i++)
        assert_string_equal(r->ignored_file_patterns.v[i], files[i]);
    assert_int_equal(r->io_cat_categories.n, 2);
    assert_string_equal(r->io_cat_categories.v[0], "POSIX");
    assert_string_equal(r->io_cat_categories.v[1], "STDIO");
    assert_int_equal(r->suffix_categories.n, 2);
    assert_string_equal(r->suffix_categories.v[0], "posix");
    assert_string_equal(r->suffix_categories.v[1], "stdio");
    assert_int_equal(r->io_cat_names[DFS_IO_SYNC].n, 4);
    assert_int_equal(r->io_cat_names[DFS_IO_PCTL].n, 6);
    assert_int_equal(r->io_cat_names[DFS_IO_IPC].n, 11);
    assert_int_equal(r->io_cat_names[DFS_IO_OTHER].n, 0);
    assert_false(list_has(&r->io_cat_names[DFS_IO_OTHER], "mmap"));
    for (int c = 1; c <= 7; c++)
        assert_false(list_has(&r->io_cat_names[c], "mmap"));
    assert_true(list_has(&r->io_cat_names[DFS_IO_PCTL], "fork"));
    assert_true(list_has(&r->io_cat_names[DFS_IO_METADATA], "close"));
    assert_true(list_has(&r->io_cat_names[DFS_IO_METADATA], "__xstat64"));
    assert_true(r->size_from_size_sum);
    assert_int_equal(r->nsuffixes, 4);
}

static void check_suffixes(const dfs_post_read *r, const char *const *markers)
{
    static const char *const order_names[] = {"/data", "/checkpoint", "/lustre", "/ssd"};
    static const char *const suffixes[] = {"_reader", "_checkpoint", "_lustre", "_ssd"};
    for (size_t i = 0; i < 4; i++) {
        size_t k = 0;
        while (strcmp(order_names[k], markers[i]) != 0)
            k++;
        assert_string_equal(r->suffixes[i].marker, markers[i]);
        assert_string_equal(r->suffixes[i].suffix, suffixes[k]);
    }
}

static void post_read_g2(void **state)
{
    (void)state;
    dfs_preset *p = load_ok("dlio-g2");
    const dfs_post_read *r = &p->post_read;
    check_common_post_read(r);
    static const char *const order[] = {"/checkpoint", "/data", "/lustre", "/ssd"};
    check_suffixes(r, order);
    assert_int_equal(r->io_cat_names[DFS_IO_READ].n, 5);
    assert_int_equal(r->io_cat_names[DFS_IO_WRITE].n, 5);
    assert_int_equal(r->io_cat_names[DFS_IO_METADATA].n, 33);
    static const char *const g3_only[] = {"pread64",     "preadv64",  "pwrite64",  "pwritev64", "fseeko",
                                          "fseeko64",    "fstat64",   "fstatat64", "ftello",    "ftello64",
                                          "ftruncate64", "readdir64", "stat64"};
    for (size_t i = 0; i < sizeof g3_only / sizeof *g3_only; i++)
        for (int c = 1; c <= 7; c++)
            assert_false(list_has(&r->io_cat_names[c], g3_only[i]));
    assert_true(list_has(&r->io_cat_names[DFS_IO_READ], "pread"));
    assert_int_equal(r->ignored_functions.n, 39);
    assert_true(list_has(&r->ignored_functions, "TorchDataLoader.read"));
    assert_true(list_has(&r->ignored_functions, "IndexedBinaryMMapReader.load_index"));
    assert_false(list_has(&r->ignored_functions, "HDF5Reader.read_index"));
    assert_int_equal(r->ignored_function_patterns.n, 3);
    assert_string_equal(r->ignored_function_patterns.v[0], ".save_state");
    assert_false(r->size_from_image_size);
    assert_int_equal(r->missing_host, DFS_MISSING_HOST_NA);
    dfs_preset_free(p);
}

static void post_read_g3(void **state)
{
    (void)state;
    static const char *const g3_presets[] = {"posix", "dlio", "ai", "auto"};
    for (size_t k = 0; k < 4; k++) {
        dfs_preset *p = load_ok(g3_presets[k]);
        const dfs_post_read *r = &p->post_read;
        check_common_post_read(r);
        static const char *const order[] = {"/data", "/checkpoint", "/lustre", "/ssd"};
        check_suffixes(r, order);
        assert_int_equal(r->io_cat_names[DFS_IO_READ].n, 7);
        assert_true(list_has(&r->io_cat_names[DFS_IO_READ], "pread64"));
        assert_true(list_has(&r->io_cat_names[DFS_IO_WRITE], "pwritev64"));
        assert_int_equal(r->io_cat_names[DFS_IO_METADATA].n, 42);
        assert_true(list_has(&r->io_cat_names[DFS_IO_METADATA], "ftello64"));
        assert_int_equal(r->ignored_functions.n, 4);
        assert_true(list_has(&r->ignored_functions, "TorchDataset.__init__"));
        assert_false(list_has(&r->ignored_functions, "TorchDataLoader.read"));
        assert_int_equal(r->ignored_function_patterns.n, 18);
        assert_true(list_has(&r->ignored_function_patterns, "Reader.read_index"));
        assert_true(list_has(&r->ignored_function_patterns, "DataLoader.next"));
        assert_true(list_has(&r->ignored_function_patterns, "checkpoint_start_"));
        assert_true(r->size_from_image_size);
        assert_int_equal(r->missing_host, DFS_MISSING_HOST_HASH);
        dfs_preset_free(p);
    }
}

/* ---- user files ---- */

static void user_file_with_base(void **state)
{
    (void)state;
    const char *yaml = "base: dlio\n"
                       "description: my DLIO\n"
                       "post_read:\n"
                       "  ignored_functions: [A.b]\n"
                       "  io_cat:\n"
                       "    read: [myread]\n"
                       "  missing_host: na\n";
    const char *path = tu_temp_file(".yaml", yaml, strlen(yaml));
    dfs_preset *p = load_ok(path);
    const char *stem = strrchr(path, '/') + 1;
    assert_memory_equal(p->name, stem, strlen(p->name));
    assert_int_equal(strlen(p->name), strlen(stem) - 5);
    assert_string_equal(p->description, "my DLIO");
    check_layers(p, dlio_g3, sizeof dlio_g3 / sizeof *dlio_g3); /* from the base */
    assert_int_equal(p->time_boundary, 0);
    const dfs_post_read *r = &p->post_read;
    assert_int_equal(r->ignored_functions.n, 1);
    assert_string_equal(r->ignored_functions.v[0], "A.b");
    assert_int_equal(r->ignored_function_patterns.n, 18); /* kept */
    assert_int_equal(r->io_cat_names[DFS_IO_READ].n, 1);
    assert_string_equal(r->io_cat_names[DFS_IO_READ].v[0], "myread");
    assert_int_equal(r->io_cat_names[DFS_IO_METADATA].n, 42); /* kept */
    assert_int_equal(r->missing_host, DFS_MISSING_HOST_NA);
    assert_true(r->size_from_image_size);
    dfs_preset_free(p);
}

static void user_file_replaces_layers(void **state)
{
    (void)state;
    const char *yaml = "name: mine\n"
                       "base: dlio-g2\n"
                       "time_boundary: root\n"
                       "layers:\n"
                       "  - {name: root, predicate: null}\n"
                       "  - name: reader_posix_lustre\n"
                       "    predicate: 'cat.str.contains(\"posix\")'\n"
                       "    parent: root\n"
                       "    size_layer: true\n"
                       "    derived: [{name: data, predicate: 'io_cat == 1', sized: true}]\n"
                       "additional_metrics:\n"
                       "  - {name: x_gbps, view: time_range, formula: 'root_{time_metric} * 2'}\n";
    dfs_preset *p = parse_ok(yaml, "mine.yaml");
    assert_string_equal(p->name, "mine");
    assert_int_equal(p->generation, DFS_GEN_G2);
    assert_string_equal(p->description, "DLIO benchmark (DFAnalyzer 0.1.0 layer set, README table)");
    assert_int_equal(p->nlayers, 2);
    assert_null(p->layers[0].predicate);
    assert_string_equal(p->layers[0].display, "Root");                  /* G2 rule */
    assert_string_equal(p->layers[1].display, "Reader POSIX (Lustre)"); /* G2 rule */
    assert_int_equal(p->layers[1].parent, 0);
    assert_int_equal(p->time_boundary, 0);
    assert_int_equal(p->compute_layer, -1);
    assert_int_equal(p->nadditional, 1);
    assert_string_equal(p->additional[0].view, "time_range");
    assert_int_equal(p->post_read.io_cat_names[DFS_IO_READ].n, 5); /* G2 lists from the base */
    dfs_preset_free(p);
}

/* The G2 display rule of §8.3 gives the names written in dlio-g2.yaml. */
static void g2_display_rule(void **state)
{
    (void)state;
    char yaml[4096];
    size_t o = (size_t)snprintf(yaml, sizeof yaml, "base: dlio-g2\nlayers:\n");
    for (size_t i = 0; i < sizeof dlio_g2 / sizeof *dlio_g2; i++)
        o +=
            (size_t)snprintf(yaml + o, sizeof yaml - o, "  - {name: %s, predicate: null}\n", dlio_g2[i].name);
    dfs_preset *p = parse_ok(yaml, "g2.yaml");
    for (size_t i = 0; i < p->nlayers; i++)
        assert_string_equal(p->layers[i].display, dlio_g2[i].display);
    dfs_preset_free(p);
    /* G3 falls back to the raw key */
    p = parse_ok("base: dlio\nlayers: [{name: reader_posix_lustre, predicate: null}]\ntime_boundary: null\n",
                 "g3.yaml");
    assert_string_equal(p->layers[0].display, "reader_posix_lustre");
    assert_int_equal(p->time_boundary, -1);
    dfs_preset_free(p);
}

static void standalone_user_file(void **state)
{
    (void)state;
    const char *yaml = "name: tiny\n"
                       "generation: g2\n"
                       "layers:\n"
                       "  - name: all\n"
                       "    predicate: ~\n"
                       "post_read:\n"
                       "  io_cat: {read: [read]}\n";
    dfs_preset *p = parse_ok(yaml, "tiny.yaml");
    assert_int_equal(p->nlayers, 1);
    assert_null(p->description);
    assert_int_equal(p->time_boundary, -1);
    assert_int_equal(p->post_read.ignored_functions.n, 0);
    assert_int_equal(p->post_read.io_cat_names[DFS_IO_READ].n, 1);
    assert_int_equal(p->post_read.missing_host, DFS_MISSING_HOST_NA); /* G2 default */
    assert_true(p->post_read.size_from_size_sum);
    assert_false(p->post_read.size_from_image_size); /* G2 default */
    dfs_preset_free(p);
    /* without `name:`, the file name without directory and extension */
    p = parse_ok("base: posix\n", "some/dir/my.preset.yaml");
    assert_string_equal(p->name, "my.preset");
    assert_int_equal(p->generation, DFS_GEN_G3);
    dfs_preset_free(p);
}

/* ---- errors ---- */

typedef struct bad_case {
    const char *yaml;
    const char *expect[3]; /* substrings of the message */
} bad_case;

#define MIN_POST "post_read: {}\n"

static const bad_case bad_cases[] = {
    /* YAML syntax */
    {"name: x\nlayers: [\n", {"bad.yaml:3:1: YAML syntax error"}},
    {"name: x\n  bad: indent\n", {"bad.yaml:2:6: YAML syntax error"}},
    {"layers: *nowhere\n", {"bad.yaml:1:9:", "undefined alias"}},
    {"", {"bad.yaml: empty preset"}},
    {"name: a\n---\nname: b\n", {"more than one YAML document"}},
    {"- a\n- b\n", {"bad.yaml:1:1: the preset: expected a mapping, found a sequence"}},
    /* schema */
    {"name: x\nlayer: []\n", {"bad.yaml:2:1: unknown key 'layer' in the preset", "layers"}},
    {"name: x\nname: y\n", {"bad.yaml:2:1: duplicate key 'name'"}},
    {"layers:\n  - name: a\n    predicate: null\n    colour: red\n" MIN_POST,
     {"bad.yaml:4:5: unknown key 'colour' in layer"}},
    {"layers: [{name: a, predicate: null, derived: [{name: d, predicate: 'io_cat == 1', size: "
     "true}]}]\n" MIN_POST,
     {"bad.yaml:1:83: unknown key 'size' in derived metric of layer 'a'"}},
    {"layers: [{name: a, predicate: null}]\npost_read: {ignored_functions: [a], io_cat: {rread: [x]}}\n",
     {"bad.yaml:2:46: unknown key 'rread' in post_read.io_cat"}},
    {"layers: [{name: a, predicate: null}]\npost_read: {suffixes: [{marker: /d, sufix: _d}]}\n",
     {"bad.yaml:2:37: unknown key 'sufix' in suffix rule"}},
    {"layers: [{name: a, predicate: null}]\n", {"no 'post_read' section"}},
    {"name: x\n" MIN_POST, {"no 'layers' section"}},
    {"layers: []\n" MIN_POST, {"bad.yaml:1:9: layers: at least one layer"}},
    {"{1: x}\n", {"bad.yaml:1:2: unknown key '1'"}},
    /* types */
    {"layers: {a: 1}\n" MIN_POST, {"bad.yaml:1:9: layers: expected a sequence, found a mapping"}},
    {"layers: [{name: a, predicate: null, size_layer: yes}]\n" MIN_POST,
     {"bad.yaml:1:49: layer 'a': expected true or false, found a string"}},
    {"layers: [{name: a, predicate: null}]\npost_read: {size_from_size_sum: 1}\n",
     {"bad.yaml:2:33: post_read.size_from_size_sum: expected true or false, found a number"}},
    {"layers: [{name: a, predicate: 12}]\n" MIN_POST,
     {"bad.yaml:1:31: layer 'a': expected a string, found a number"}},
    {"layers: [{name: a, predicate: [x]}]\n" MIN_POST,
     {"bad.yaml:1:31: layer 'a': expected a string, found a sequence"}},
    {"layers: [{name: a, predicate: true}]\n" MIN_POST, {"expected a string, found a boolean"}},
    {"layers: [{name: a, predicate: null}]\npost_read: {ignored_functions: x}\n",
     {"bad.yaml:2:32: post_read.ignored_functions: expected a sequence, found a string"}},
    {"layers: [{name: a, predicate: null}]\npost_read: {ignored_functions: [[x]]}\n",
     {"post_read.ignored_functions: expected a string, found a sequence"}},
    {"layers: [{name: a, predicate: null}]\npost_read: {ignored_file_patterns: ['']}\n",
     {"bad.yaml:2:37: post_read.ignored_file_patterns: an empty string would match everything"}},
    {"layers: [{name: a, predicate: null}]\npost_read: {missing_host: none}\n",
     {"bad.yaml:2:27: post_read.missing_host: 'none' is not one of: hash, na"}},
    {"generation: g4\nlayers: [{name: a, predicate: null}]\n" MIN_POST,
     {"bad.yaml:1:13: generation: 'g4' is not one of: g2, g3"}},
    {"detect_categories: [DLIO]\nlayers: [{name: a, predicate: null}]\n" MIN_POST,
     {"bad.yaml:1:21:", "must be lower-case"}},
    {"layers: [{name: a, predicate: \"x\\0y\"}]\n" MIN_POST, {"NUL character"}},
    {"name: ''\nlayers: [{name: a, predicate: null}]\n" MIN_POST, {"bad.yaml:1:7: name: empty"}},
    /* layers */
    {"layers: [{name: a, predicate: null}, {name: a, predicate: null}]\n" MIN_POST,
     {"bad.yaml:1:45: duplicate layer 'a'"}},
    {"layers: [{name: Big, predicate: null}]\n" MIN_POST, {"bad.yaml:1:17: layer name: 'Big' is not a name"}},
    {"layers: [{name: a}]\n" MIN_POST, {"bad.yaml:1:10: layer 'a': needs a 'predicate'"}},
    {"layers: [{predicate: null}]\n" MIN_POST, {"bad.yaml:1:10: layer: needs a 'name'"}},
    {"layers: [{name: a, predicate: null, parent: zz}]\n" MIN_POST,
     {"bad.yaml:1:45: layer 'a': unknown parent 'zz'"}},
    {"layers: [{name: a, predicate: null, parent: b}, {name: b, predicate: null}]\n" MIN_POST,
     {"bad.yaml:1:45: layer 'a': parent 'b' must be defined before its children"}},
    {"layers: [{name: a, predicate: null, parent: a}]\n" MIN_POST, {"parent 'a' must be defined before"}},
    {"layers: [{name: a, predicate: null}]\ntime_boundary: b\n" MIN_POST,
     {"bad.yaml:2:16: time_boundary: 'b' is not a layer"}},
    {"layers: [{name: a, predicate: null, derived: [{name: data, predicate: 'io_cat == 1', sized: "
     "true}]}]\n" MIN_POST,
     {"bad.yaml:1:93: layer 'a', derived metric 'data': 'sized' needs a size layer"}},
    {"layers: [{name: a, predicate: null, derived: [{name: d, predicate: null}]}]\n" MIN_POST,
     {"bad.yaml:1:68: layer 'a', derived metric 'd': a derived metric needs a predicate"}},
    {"layers: [{name: a, predicate: null, derived: [{name: d, predicate: 'io_cat == 1'}, {name: d, "
     "predicate: 'io_cat == 2'}]}]\n" MIN_POST,
     {"bad.yaml:1:91: derived metric of layer 'a': duplicate name 'd'"}},
    /* predicates: the file column of the offending token, and the predicate's own column */
    {"layers:\n  - name: a\n    predicate: 'cat = \"x\"'\n" MIN_POST,
     {"bad.yaml:3:21: layer 'a': predicate:", "column 5"}},
    {"layers:\n  - name: a\n    predicate: cat == \"x\" & fun == 1\n" MIN_POST,
     {"bad.yaml:3:29: layer 'a': predicate: unknown column 'fun' at column 14"}},
    {"layers:\n  - name: a\n    predicate: \"cat == \\\"x\\\" & fun == 1\"\n" MIN_POST,
     {"bad.yaml:3:16: layer 'a': predicate: unknown column 'fun' at column 14"}}, /* escapes: the scalar */
    {"layers: [{name: a, predicate: null, derived: [{name: d, predicate: 'io_cat == \"x\"'}]}]\n" MIN_POST,
     {"bad.yaml:1:79: layer 'a', derived metric 'd': predicate: type mismatch at column 11"}},
    /* additional metrics */
    {"layers: [{name: a, predicate: null}]\nadditional_metrics: [{name: u, formula: 'a_{time_metric} / / "
     "2'}]\n" MIN_POST,
     {"bad.yaml:2:60: additional metric 'u': formula: expected a number", "found '/' at column 19"}},
    {"layers: [{name: a, predicate: null}]\nadditional_metrics: [{name: u, formula: '{tm} + 1'}]\n" MIN_POST,
     {"bad.yaml:2:42: additional metric 'u': formula: unknown placeholder '{tm}'"}},
    {"layers: [{name: a, predicate: null}]\nadditional_metrics: [{name: u, formula: '1'}, {name: u, formula: "
     "'2'}]\n" MIN_POST,
     {"bad.yaml:2:54: duplicate additional metric 'u'"}},
    {"layers: [{name: a, predicate: null}]\nadditional_metrics: [{name: u}]\n" MIN_POST,
     {"needs 'name' and 'formula'"}},
    /* base */
    {"base: nosuch\n", {"bad.yaml:1:7: base: 'nosuch' is not a shipped preset"}},
    {"base: dlio\nlayers: [{name: a, predicate: null}]\n",
     {"presets/dlio.yaml:", "time_boundary: 'app' is not a layer"}},
    {"base: dlio\npost_read: {io_cat: {reed: []}}\n",
     {"bad.yaml:2:22: unknown key 'reed' in post_read.io_cat"}},
    /* an alias that makes a node contain itself meets a type check */
    {"layers: &l [{name: a, predicate: null, derived: *l}]\n" MIN_POST,
     {"bad.yaml:1:40: unknown key 'derived' in derived metric of layer 'a'"}},
    {"definitions: &d {x: *d}\nlayers: [{name: a, predicate: null}]\n" MIN_POST, {NULL}},
};

static void error_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
        const bad_case *c = &bad_cases[i];
        dfs_preset_error err;
        memset(&err, 0, sizeof err);
        dfs_preset *p = dfs_preset_parse(c->yaml, strlen(c->yaml), "bad.yaml", &err);
        if (!c->expect[0]) { /* a valid file among the error cases: it must load */
            if (!p)
                fail_msg("case %zu should load: %s", i, err.message);
            dfs_preset_free(p);
            continue;
        }
        if (p)
            fail_msg("case %zu loaded but should fail:\n%s", i, c->yaml);
        for (size_t k = 0; k < 3 && c->expect[k]; k++)
            if (!strstr(err.message, c->expect[k]))
                fail_msg("case %zu: message '%s' lacks '%s'", i, err.message, c->expect[k]);
    }
}

static void limits(void **state)
{
    (void)state;
    char *yaml = malloc(64 * 1024);
    assert_non_null(yaml);
    size_t o = (size_t)sprintf(yaml, "post_read: {}\nlayers:\n");
    for (int i = 0; i <= DFS_PRESET_MAX_LAYERS; i++)
        o += (size_t)sprintf(yaml + o, "  - {name: l%d, predicate: null}\n", i);
    dfs_preset_error err;
    assert_null(dfs_preset_parse(yaml, o, "big.yaml", &err));
    assert_non_null(strstr(err.message, "big.yaml:3:3: layers: 65 layers, at most 64"));

    o = (size_t)sprintf(yaml, "post_read: {}\nlayers:\n  - name: a\n    predicate: null\n    derived:\n");
    for (int i = 0; i <= DFS_PRESET_MAX_DERIVED; i++)
        o += (size_t)sprintf(yaml + o, "      - {name: d%d, predicate: 'io_cat == %d'}\n", i, i);
    assert_null(dfs_preset_parse(yaml, o, "big.yaml", &err));
    assert_non_null(strstr(err.message, "33 derived metrics, at most 32"));

    /* 64 layers with distinct predicates plus one derived: 65 distinct texts */
    o = (size_t)sprintf(yaml, "post_read: {}\nlayers:\n");
    for (int i = 0; i < DFS_PRESET_MAX_LAYERS; i++)
        o += (size_t)sprintf(yaml + o, "  - {name: l%d, predicate: 'io_cat == %d'%s}\n", i, i,
                             i == 0 ? ", derived: [{name: d, predicate: 'io_cat == 99'}]" : "");
    assert_null(dfs_preset_parse(yaml, o, "big.yaml", &err));
    assert_non_null(strstr(err.message, "more than 64 distinct predicates"));

    /* 64 layers with shared predicates is fine */
    o = (size_t)sprintf(yaml, "post_read: {}\nlayers:\n");
    for (int i = 0; i < DFS_PRESET_MAX_LAYERS; i++)
        o += (size_t)sprintf(yaml + o, "  - {name: l%d, predicate: 'io_cat == %d'}\n", i, i % 8);
    dfs_preset *p = dfs_preset_parse(yaml, o, "big.yaml", &err);
    assert_non_null(p);
    assert_int_equal(p->nlayers, 64);
    dfs_preset_free(p);
    free(yaml);
}

static void load_errors(void **state)
{
    (void)state;
    dfs_preset_error err;
    assert_null(dfs_preset_load("nosuch", &err));
    assert_non_null(strstr(err.message, "unknown preset 'nosuch'"));
    assert_non_null(strstr(err.message, "posix, dlio, dlio-g2, ai, auto"));
    assert_null(dfs_preset_load("/nonexistent/dir/p.yaml", &err));
    assert_non_null(strstr(err.message, "/nonexistent/dir/p.yaml: No such file"));
    assert_null(dfs_preset_load(NULL, &err));
    assert_null(dfs_preset_load("nosuch", NULL)); /* err may be NULL */
    /* a file error names the path */
    const char *bad = "layers: [\n";
    const char *path = tu_temp_file(".yml", bad, strlen(bad));
    assert_null(dfs_preset_load(path, &err));
    assert_memory_equal(err.message, path, strlen(path));
    /* invalid UTF-8 */
    assert_null(dfs_preset_parse("name: \xff\xfe\n", 9, "u.yaml", &err));
    assert_non_null(strstr(err.message, "u.yaml: invalid YAML input"));
    /* NULL text */
    assert_null(dfs_preset_parse(NULL, 0, NULL, &err));
    assert_non_null(strstr(err.message, "empty preset"));
    dfs_preset_free(NULL);
}

/* ---- formulas ---- */

typedef struct row {
    const char *names[6];
    double values[6];
    bool null[6];
    int lookups;
} row;

static bool row_lookup(void *user, const char *column, double *value)
{
    row *r = user;
    r->lookups++;
    for (size_t i = 0; i < 6 && r->names[i]; i++)
        if (strcmp(r->names[i], column) == 0) {
            *value = r->values[i];
            return !r->null[i];
        }
    return false;
}

static const dfs_formula_vars vars = {"time_proc_max", 1e-9, 5.0};

static bool eval_text(const char *text, row *r, double *out)
{
    dfs_preset_error err;
    dfs_formula *f = dfs_formula_parse(text, &vars, &err);
    if (!f)
        fail_msg("formula '%s' does not parse: %s", text, err.message);
    bool ok = dfs_formula_eval(f, row_lookup, r, out);
    dfs_formula_free(f);
    return ok;
}

static double eval_num(const char *text)
{
    row r = {{"a", "b", "c"}, {2, 3, 4}, {false}, 0};
    double v = NAN;
    assert_true(eval_text(text, &r, &v));
    return v;
}

static void formula_arithmetic(void **state)
{
    (void)state;
    assert_true(eval_num("1 + 2 * 3") == 7);
    assert_true(eval_num("(1 + 2) * 3") == 9);
    assert_true(eval_num("a - b - c") == -5); /* left-associative */
    assert_true(eval_num("c / a / a") == 1);  /* left-associative */
    assert_true(eval_num("-a * b") == -6);
    assert_true(eval_num("a - -b") == 5);
    assert_true(eval_num("-(a + b) * -c") == 20);
    assert_true(eval_num("--a") == 2);
    assert_true(eval_num("a*b+c") == 10);
    assert_true(eval_num("a + b * c - 8 / a") == 10);
    assert_true(eval_num("1.5e1 + .5 + 2.") == 17.5);
    assert_true(eval_num("\t1 +\n 2 ") == 3);
}

static void formula_placeholders(void **state)
{
    (void)state;
    dfs_preset_error err;
    dfs_formula *f =
        dfs_formula_parse("compute_{time_metric} / (app_{time_metric} + {epsilon})", &vars, &err);
    assert_non_null(f);
    assert_int_equal(dfs_formula_ncolumns(f), 2);
    assert_string_equal(dfs_formula_column(f, 0), "compute_time_proc_max");
    assert_string_equal(dfs_formula_column(f, 1), "app_time_proc_max");
    assert_null(dfs_formula_column(f, 2));
    row r = {{"compute_time_proc_max", "app_time_proc_max"}, {1, 4}, {false}, 0};
    double v;
    assert_true(dfs_formula_eval(f, row_lookup, &r, &v));
    assert_true(fabs(v - 1 / (4 + 1e-9)) < 1e-15);
    assert_int_equal(r.lookups, 2);
    /* app = 0: the epsilon keeps the denominator non-zero */
    r.values[1] = 0;
    assert_true(dfs_formula_eval(f, row_lookup, &r, &v));
    assert_true(fabs(v - 1e9) < 1e-3);
    dfs_formula_free(f);

    row none = {{"x"}, {0}, {false}, 0};
    assert_true(eval_text("{time_interval} * 2", &none, &v));
    assert_true(v == 10);
    assert_true(eval_text("{epsilon}", &none, &v));
    assert_true(v == 1e-9);

    /* the loader's defaults */
    f = dfs_formula_parse("a_{time_metric} + {time_interval}", NULL, &err);
    assert_non_null(f);
    assert_string_equal(dfs_formula_column(f, 0), "a_time_sum");
    dfs_formula_free(f);
}

static void formula_nulls(void **state)
{
    (void)state;
    double v = 42;
    row r = {{"a", "b", "z"}, {2, 0, 0}, {false, false, true}, 0};
    assert_false(eval_text("a + z", &r, &v)); /* null column */
    assert_false(eval_text("z * 0", &r, &v));
    assert_false(eval_text("a + nope", &r, &v)); /* unknown column */
    assert_false(eval_text("a / b", &r, &v));    /* division by zero */
    assert_false(eval_text("a / (b - b)", &r, &v));
    assert_false(eval_text("a / 0", &r, &v));
    assert_true(eval_text("b / a", &r, &v));
    assert_true(v == 0);
    r.values[0] = INFINITY; /* a column that is not finite */
    assert_false(eval_text("a - a", &r, &v));
    r.values[0] = 1e300; /* overflow */
    assert_false(eval_text("a * a", &r, &v));
    assert_false(dfs_formula_eval(NULL, row_lookup, &r, &v));
    assert_int_equal(dfs_formula_ncolumns(NULL), 0);
}

static void formula_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *expect;
    } cases[] = {
        {"", "empty formula"},
        {"   ", "empty formula"},
        {"a +", "expected a number, a column, '(' or '-', found the end of the formula at column 4"},
        {"a + * b", "found '*' at column 5"},
        {"(a + b", "expected ')' to close the '(' at column 1, found the end of the formula at column 7"},
        {"a + b)", "expected an operator or the end of the formula, found ')' at column 6"},
        {"a b", "found 'b' at column 3"},
        {"a % b", "unexpected character '%' at column 3"},
        {"a ** b", "found '*' at column 4"},
        {"+a", "found '+' at column 1"},
        {"1.2.3", "invalid number at column 1"},
        {"2x", "invalid number at column 1"},
        {"1e", "invalid number at column 1"},
        {".", "invalid number at column 1"},
        {"1e999", "number out of range at column 1"},
        {"a + {nope}",
         "unknown placeholder '{nope}' (expected {time_metric}, {epsilon} or {time_interval}) at column 5"},
        {"a + {epsilon", "unterminated placeholder '{' at column 5"},
        {"a + }", "unexpected character '}' at column 5"},
        {"x_{time_metric} + +", "found '+' at column 19"}, /* columns of the original text */
        {"{epsilon} {epsilon}", "found '1.0000000000000001e-09' at column 11"},
        {"a + \x01", "unexpected byte 0x01 at column 5"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        dfs_preset_error err;
        dfs_formula *f = dfs_formula_parse(cases[i].text, &vars, &err);
        if (f)
            fail_msg("'%s' parsed", cases[i].text);
        if (!strstr(err.message, cases[i].expect))
            fail_msg("'%s': message '%s' lacks '%s'", cases[i].text, err.message, cases[i].expect);
    }
    assert_null(dfs_formula_parse(NULL, NULL, NULL));
    dfs_formula_vars bad = {NULL, 1e-9, 1};
    dfs_preset_error err;
    assert_null(dfs_formula_parse("a", &bad, &err));
    bad.time_metric = "t";
    bad.epsilon = NAN;
    assert_null(dfs_formula_parse("a", &bad, &err));
}

static void formula_limits(void **state)
{
    (void)state;
    char text[8192];
    size_t o = 0;
    for (int i = 0; i < 64; i++)
        text[o++] = '(';
    text[o++] = '1';
    for (int i = 0; i < 64; i++)
        text[o++] = ')';
    text[o] = '\0';
    assert_true(eval_num(text) == 1);
    dfs_preset_error err;
    memmove(text + 1, text, o + 1);
    text[0] = '(';
    strcat(text, ")");
    assert_null(dfs_formula_parse(text, &vars, &err));
    assert_non_null(strstr(err.message, "nested too deeply at column 65"));
    memset(text, '-', 100);
    strcpy(text + 100, "1");
    assert_null(dfs_formula_parse(text, &vars, &err));
    assert_non_null(strstr(err.message, "nested too deeply"));
    /* a long flat sum stays within the evaluation stack */
    o = 0;
    for (int i = 0; i < 1000; i++)
        o += (size_t)sprintf(text + o, "%s1", i ? "+" : "");
    assert_true(eval_num(text) == 1000);
    /* 65 distinct columns */
    o = 0;
    for (int i = 0; i < 65; i++)
        o += (size_t)sprintf(text + o, "%sc%d", i ? "+" : "", i);
    assert_null(dfs_formula_parse(text, &vars, &err));
    assert_non_null(strstr(err.message, "more than 64 distinct columns"));
    /* too long */
    memset(text, '1', 5000);
    text[5000] = '\0';
    assert_null(dfs_formula_parse(text, &vars, &err));
    assert_non_null(strstr(err.message, "longer than 4096"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtin_table),
        cmocka_unit_test(dlio_g2_preset),
        cmocka_unit_test(dlio_g3_preset),
        cmocka_unit_test(ai_preset),
        cmocka_unit_test(posix_and_auto_presets),
        cmocka_unit_test(post_read_g2),
        cmocka_unit_test(post_read_g3),
        cmocka_unit_test(user_file_with_base),
        cmocka_unit_test(user_file_replaces_layers),
        cmocka_unit_test(g2_display_rule),
        cmocka_unit_test(standalone_user_file),
        cmocka_unit_test(error_cases),
        cmocka_unit_test(limits),
        cmocka_unit_test(load_errors),
        cmocka_unit_test(formula_arithmetic),
        cmocka_unit_test(formula_placeholders),
        cmocka_unit_test(formula_nulls),
        cmocka_unit_test(formula_errors),
        cmocka_unit_test(formula_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
