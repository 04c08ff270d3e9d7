/* preset.c - layered-analysis presets (preset.h): the shipped presets, the schema of a preset
 * and loading.
 *
 * A user file with `base: NAME` is read together with the shipped preset NAME: every lookup of a
 * top-level section (and of a post_read key, and of an io_cat list) takes the user's node when the
 * user file has one and the base's otherwise, so one builder serves both cases and every message
 * names the file, line and column of the node at fault, whichever document it comes from.
 *
 * The schema is walked only along its fixed shape (never generically), so an alias that makes a
 * YAML node contain itself cannot loop: it meets a type check first. `definitions` (a place for
 * anchors) is never walked. Nodes are read with preset_yaml.c; formulas are checked with
 * preset_formula.c. */
#include "analyze/common/preset.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "analyze/common/predicate.h"
#include "analyze/common/preset_internal.h"
#include "util/arena.h"
#include "util/suggest.h"

#define MAX_YAML_BYTES ((size_t)1 << 20) /* a preset is a few KiB; more is a mistake */
#define MAX_YAML_DEPTH 64                /* nested sequences and mappings; a preset needs 6 */

/* Generated from the presets/ folder by cmake/embed_presets.cmake (build/generated/presets_builtin.c). */
extern const char *const dfs_preset_builtin_names_[];
extern const unsigned char *const dfs_preset_builtin_texts_[];
extern const size_t dfs_preset_builtin_lengths_[];
extern const size_t dfs_preset_builtin_count_;

/* ================================================================================================
 * Shipped presets
 * ============================================================================================== */

size_t dfs_preset_builtin_count(void)
{
    return dfs_preset_builtin_count_;
}

const char *dfs_preset_builtin_name(size_t i)
{
    return i < dfs_preset_builtin_count_ ? dfs_preset_builtin_names_[i] : NULL;
}

static int builtin_index(const char *name)
{
    for (size_t i = 0; i < dfs_preset_builtin_count_; i++)
        if (strcmp(dfs_preset_builtin_names_[i], name) == 0)
            return (int)i;
    return -1;
}

const char *dfs_preset_builtin_text(const char *name)
{
    int i = name ? builtin_index(name) : -1;
    return i < 0 ? NULL : (const char *)dfs_preset_builtin_texts_[i];
}

/* ================================================================================================
 * Sections
 * ============================================================================================== */

/* A top-level section: the user's when given, else the base preset's. */
static ynode section(builder *b, const char *key)
{
    ynode v = preset_map_get(b->user_root, key);
    if (!preset_present(v) && b->base.loaded)
        v = preset_map_get(b->base_root, key);
    return v;
}

static const char *const top_keys[] = {"name", "description", "base", "generation", "time_boundary",
                                       "auto_layers", "detect_categories", "layers", "additional_metrics",
                                       "post_read", "definitions", "left_out", NULL};
static const char *const layer_keys[] = {"name", "display", "predicate", "parent", "size_layer",
                                         "unoverlapped", "derived", NULL};
static const char *const derived_keys[] = {"name", "predicate", "sized", NULL};
static const char *const additional_keys[] = {"name", "view", "formula", NULL};
static const char *const left_out_keys[] = {"predicate", "reason", NULL};
static const char *const post_read_keys[] = {"ignored_file_patterns", "ignored_functions",
                                             "ignored_function_patterns", "io_cat_categories", "io_cat",
                                             "suffixes", "suffix_categories", "size_from_size_sum",
                                             "size_from_image_size", "missing_host", NULL};
static const char *const io_cat_keys[] = {"read", "write", "metadata", "pctl", "ipc", "sync", NULL};
static const int io_cat_codes[] = {DFS_IO_READ, DFS_IO_WRITE, DFS_IO_METADATA, DFS_IO_PCTL, DFS_IO_IPC,
                                   DFS_IO_SYNC};
static const char *const suffix_keys[] = {"marker", "suffix", NULL};

/* ---- predicates and formulas at load time ---- */

static bool check_predicate(builder *b, ynode v, const char *text, const char *what)
{
    dfs_pred_error perr;
    memset(&perr, 0, sizeof perr);
    dfs_pred *pred = dfs_pred_parse(text, &perr);
    if (!pred)
        return preset_fail_inside(b, v, perr.column, "%s: predicate: %s", what, perr.message);
    dfs_pred_free(pred);
    return true;
}

static bool check_formula(builder *b, ynode v, const char *text, const char *what)
{
    dfs_preset_error ferr;
    size_t col = 0;
    dfs_formula *f = preset_formula_parse_at(text, NULL, &ferr, &col);
    if (!f)
        return preset_fail_inside(b, v, col, "%s: formula: %s", what, ferr.message);
    dfs_formula_free(f);
    return true;
}

/* ---- layers ---- */

static bool is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* G2's display rule (§8.3): '_' to ' ', Python's str.title() (a letter after a non-letter is
 * upper-cased), then the substrings Posix, Stdio, Lustre and Ssd become POSIX, STDIO, (Lustre), (SSD). */
static const char *g2_display(builder *b, const char *key)
{
    static const char *const from[] = {"Posix", "Stdio", "Lustre", "Ssd"};
    static const char *const to[] = {"POSIX", "STDIO", "(Lustre)", "(SSD)"};
    char t[MAX_NAME_LEN + 1], out[4 * MAX_NAME_LEN];
    size_t n = strlen(key), o = 0; /* key is an identifier: n <= MAX_NAME_LEN */
    for (size_t i = 0; i < n; i++) {
        char c = key[i] == '_' ? ' ' : key[i];
        t[i] = (c >= 'a' && c <= 'z' && (i == 0 || !is_letter(t[i - 1]))) ? (char)(c - 'a' + 'A') : c;
    }
    t[n] = '\0';
    for (const char *s = t; *s;) {
        size_t k = 0;
        while (k < 4 && strncmp(s, from[k], strlen(from[k])) != 0)
            k++;
        size_t len = k < 4 ? strlen(to[k]) : 1;
        memcpy(out + o, k < 4 ? to[k] : s, len);
        o += len;
        s += k < 4 ? strlen(from[k]) : 1;
    }
    return preset_copy_text(b, out, o);
}

static int find_layer(const dfs_preset_layer *layers, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(layers[i].name, name) == 0)
            return (int)i;
    return -1;
}

static bool read_derived_item(builder *b, ynode item, const dfs_preset_layer *layer, dfs_derived_metric *dm,
                              const dfs_derived_metric *earlier, size_t nearlier)
{
    char what[128];
    snprintf(what, sizeof what, "derived metric of layer '%s'", layer->name);
    if (!preset_check_keys(b, item, derived_keys, what))
        return false;
    ynode name = preset_map_get(item, "name"), pred = preset_map_get(item, "predicate"),
          sized = preset_map_get(item, "sized");
    if (!preset_present(name) || !preset_present(pred))
        return preset_fail_at(b, item, "%s: needs 'name' and 'predicate'", what);
    if (!preset_read_identifier(b, name, what, &dm->name))
        return false;
    for (size_t i = 0; i < nearlier; i++)
        if (strcmp(earlier[i].name, dm->name) == 0)
            return preset_fail_at(b, name, "%s: duplicate name '%s'", what, dm->name);
    snprintf(what, sizeof what, "layer '%s', derived metric '%s'", layer->name, dm->name);
    if (preset_is_null(pred))
        return preset_fail_at(b, pred, "%s: a derived metric needs a predicate", what);
    if (!preset_read_string(b, pred, what, &dm->predicate) ||
        !check_predicate(b, pred, dm->predicate, what) ||
        !preset_read_bool(b, sized, what, false, &dm->sized))
        return false;
    if (dm->sized && !layer->size_layer)
        return preset_fail_at(b, sized, "%s: 'sized' needs a size layer (size_layer: true)", what);
    return true;
}

static bool read_derived(builder *b, ynode v, dfs_preset_layer *layer)
{
    if (!preset_present(v) || preset_is_null(v))
        return true;
    char what[96];
    snprintf(what, sizeof what, "derived metrics of layer '%s'", layer->name);
    if (!preset_expect_type(b, v, YAML_SEQUENCE_NODE, what))
        return false;
    size_t n = preset_seq_length(v);
    if (n > DFS_PRESET_MAX_DERIVED)
        return preset_fail_at(b, v, "%s: %zu derived metrics, at most %d", what, n, DFS_PRESET_MAX_DERIVED);
    dfs_derived_metric *dm = preset_alloc_zeroed(b, n, sizeof *dm);
    if (n && !dm)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!read_derived_item(b, preset_seq_item(v, i), layer, &dm[i], dm, i))
            return false;
    layer->derived = dm;
    layer->nderived = n;
    return true;
}

/* parent: null, or the name of an earlier layer; a later one is a distinct mistake. */
static bool read_parent(builder *b, ynode v, ynode seq, dfs_preset_layer *layers, size_t i)
{
    const char *name;
    layers[i].parent = -1;
    if (!preset_read_opt_string(b, v, "parent", &name))
        return false;
    if (!name)
        return true;
    layers[i].parent = find_layer(layers, i, name);
    if (layers[i].parent >= 0)
        return true;
    for (size_t j = i; j < preset_seq_length(seq); j++) {
        ynode later = preset_map_get(preset_seq_item(seq, j), "name");
        if (preset_is_scalar(later) && strcmp(preset_sval(later), name) == 0)
            return preset_fail_at(b, v, "layer '%s': parent '%.40s' must be defined before its children",
                                  layers[i].name, name);
    }
    return preset_fail_at(b, v, "layer '%s': unknown parent '%.40s'", layers[i].name, name);
}

static bool read_layer(builder *b, ynode item, ynode seq, dfs_preset_layer *layers, size_t i)
{
    dfs_preset_layer *l = &layers[i];
    if (!preset_check_keys(b, item, layer_keys, "layer"))
        return false;
    ynode name = preset_map_get(item, "name"), pred = preset_map_get(item, "predicate");
    if (!preset_present(name))
        return preset_fail_at(b, item, "layer: needs a 'name'");
    if (!preset_read_identifier(b, name, "layer name", &l->name))
        return false;
    if (find_layer(layers, i, l->name) >= 0)
        return preset_fail_at(b, name, "duplicate layer '%s'", l->name);
    char what[96];
    snprintf(what, sizeof what, "layer '%s'", l->name);
    if (!preset_present(pred))
        return preset_fail_at(b, item, "%s: needs a 'predicate' (null selects every event)", what);
    if (!preset_read_opt_string(b, pred, what, &l->predicate) ||
        (l->predicate && !check_predicate(b, pred, l->predicate, what)) ||
        !read_parent(b, preset_map_get(item, "parent"), seq, layers, i) ||
        !preset_read_bool(b, preset_map_get(item, "size_layer"), what, false, &l->size_layer) ||
        !preset_read_bool(b, preset_map_get(item, "unoverlapped"), what, false, &l->unoverlapped) ||
        !preset_read_opt_string(b, preset_map_get(item, "display"), what, &l->display) ||
        !read_derived(b, preset_map_get(item, "derived"), l))
        return false;
    if (l->display && l->display[0] == '\0')
        return preset_fail_at(b, preset_map_get(item, "display"), "%s: empty display name", what);
    if (!l->display)
        l->display = b->p->generation == DFS_GEN_G2 ? g2_display(b, l->name) : l->name;
    return l->display != NULL;
}

/* Adds a predicate text to the distinct ones seen (NULL: match all, none); false when full. */
static bool note_predicate(const char **seen, size_t *n, const char *t)
{
    size_t k = 0;
    while (t && k < *n && strcmp(seen[k], t) != 0)
        k++;
    if (!t || k < *n)
        return true;
    if (*n == DFS_PRED_MAX_SET)
        return false;
    seen[(*n)++] = t;
    return true;
}

/* The reader of the predicates evaluates them as one set of at most DFS_PRED_MAX_SET texts. */
static bool check_predicate_count(builder *b, ynode seq)
{
    const char *seen[DFS_PRED_MAX_SET];
    size_t n = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < b->p->nlayers; i++) {
        const dfs_preset_layer *l = &b->p->layers[i];
        for (size_t d = 0; ok && d <= l->nderived; d++)
            ok = note_predicate(seen, &n, d == 0 ? l->predicate : l->derived[d - 1].predicate);
    }
    for (size_t i = 0; ok && i < b->p->nleft_out; i++)
        ok = note_predicate(seen, &n, b->p->left_out[i].predicate);
    if (!ok)
        return preset_fail_at(b, seq, "more than %d distinct predicates (layers, derived metrics and left_out)",
                              DFS_PRED_MAX_SET);
    return true;
}

static bool read_layers(builder *b)
{
    ynode seq = section(b, "layers");
    if (!preset_present(seq))
        return preset_fail(b, "%s: no 'layers' section", b->user.origin);
    if (!preset_expect_type(b, seq, YAML_SEQUENCE_NODE, "layers"))
        return false;
    size_t n = preset_seq_length(seq);
    if (n == 0)
        return preset_fail_at(b, seq, "layers: at least one layer is needed");
    if (n > DFS_PRESET_MAX_LAYERS)
        return preset_fail_at(b, seq, "layers: %zu layers, at most %d", n, DFS_PRESET_MAX_LAYERS);
    dfs_preset_layer *layers = preset_alloc_zeroed(b, n, sizeof *layers);
    if (!layers)
        return false;
    b->p->layers = layers;
    for (size_t i = 0; i < n; i++) {
        if (!read_layer(b, preset_seq_item(seq, i), seq, layers, i))
            return false;
        b->p->nlayers = i + 1;
    }
    b->p->compute_layer = find_layer(layers, n, "compute");
    return check_predicate_count(b, seq);
}

/* ---- lists ---- */

/* A list section `what` at v: absent or null is empty (*items NULL); else a sequence of at most
 * `max` items, allocated zeroed, `size` bytes each. False, said, for another type, a longer list
 * ("WHAT: N NOUN, at most MAX") or no memory. */
static bool read_list(builder *b, ynode v, const char *what, const char *noun, size_t max, size_t size, size_t *n,
                      void **items)
{
    *n = 0;
    *items = NULL;
    if (!preset_present(v) || preset_is_null(v))
        return true;
    if (!preset_expect_type(b, v, YAML_SEQUENCE_NODE, what))
        return false;
    *n = preset_seq_length(v);
    if (*n > max)
        return preset_fail_at(b, v, "%s: %zu %s, at most %zu", what, *n, noun, max);
    *items = preset_alloc_zeroed(b, *n, size);
    return !*n || *items;
}

/* ---- additional metrics ---- */

static bool read_additional_item(builder *b, ynode item, dfs_additional_metric *am,
                                 const dfs_additional_metric *earlier, size_t nearlier)
{
    if (!preset_check_keys(b, item, additional_keys, "additional metric"))
        return false;
    ynode name = preset_map_get(item, "name"), formula = preset_map_get(item, "formula"),
          view = preset_map_get(item, "view");
    if (!preset_present(name) || !preset_present(formula))
        return preset_fail_at(b, item, "additional metric: needs 'name' and 'formula'");
    if (!preset_read_identifier(b, name, "additional metric name", &am->name))
        return false;
    for (size_t i = 0; i < nearlier; i++)
        if (strcmp(earlier[i].name, am->name) == 0 &&
            (!earlier[i].view || !am->view || strcmp(earlier[i].view, am->view) == 0))
            return preset_fail_at(b, name, "duplicate additional metric '%s'", am->name);
    char what[96];
    snprintf(what, sizeof what, "additional metric '%s'", am->name);
    if (preset_present(view) && !preset_is_null(view)) {
        if (!preset_read_identifier(b, view, what, &am->view))
            return false;
        if (strcmp(am->view, "all") == 0)
            am->view = NULL;
    }
    return preset_read_string(b, formula, what, &am->formula) && check_formula(b, formula, am->formula, what);
}

static bool read_additional(builder *b)
{
    ynode seq = section(b, "additional_metrics");
    size_t n;
    void *items;
    if (!read_list(b, seq, "additional_metrics", "metrics", DFS_PRESET_MAX_ADDITIONAL, sizeof(dfs_additional_metric),
                   &n, &items))
        return false;
    dfs_additional_metric *am = items;
    for (size_t i = 0; i < n; i++)
        if (!read_additional_item(b, preset_seq_item(seq, i), &am[i], am, i))
            return false;
    b->p->additional = am;
    b->p->nadditional = n;
    return true;
}

/* ---- events left out on purpose ---- */

static bool read_left_out(builder *b)
{
    ynode seq = section(b, "left_out");
    size_t n;
    void *items;
    if (!read_list(b, seq, "left_out", "entries", DFS_PRESET_MAX_LEFT_OUT, sizeof(dfs_preset_left_out), &n, &items))
        return false;
    if (!n)
        return true;
    dfs_preset_left_out *lo = items;
    for (size_t i = 0; i < n; i++) {
        ynode item = preset_seq_item(seq, i);
        if (!preset_check_keys(b, item, left_out_keys, "left_out entry"))
            return false;
        ynode pred = preset_map_get(item, "predicate"), reason = preset_map_get(item, "reason");
        if (!preset_present(pred) || !preset_present(reason))
            return preset_fail_at(b, item, "left_out entry: needs 'predicate' and 'reason'");
        if (!preset_read_string(b, pred, "left_out predicate", &lo[i].predicate) ||
            !check_predicate(b, pred, lo[i].predicate, "left_out") ||
            !preset_read_string(b, reason, "left_out reason", &lo[i].reason))
            return false;
    }
    b->p->left_out = lo;
    b->p->nleft_out = n;
    return check_predicate_count(b, seq);
}

/* ---- post_read ---- */

typedef struct post_maps {
    ynode user, base;          /* the post_read mappings, when present */
    ynode user_io, base_io;    /* their io_cat mappings */
} post_maps;

static ynode post_key(const post_maps *m, const char *key)
{
    ynode v = preset_map_get(m->user, key);
    return preset_present(v) ? v : preset_map_get(m->base, key);
}

static bool check_post_maps(builder *b, post_maps *m)
{
    m->user = preset_map_get(b->user_root, "post_read");
    m->base = b->base.loaded ? preset_map_get(b->base_root, "post_read") : NO_NODE;
    if (!preset_present(m->user) && !preset_present(m->base))
        return preset_fail(b, "%s: no 'post_read' section (or start from a shipped preset with 'base:')",
                           b->user.origin);
    ynode *maps[2][2] = {{&m->user, &m->user_io}, {&m->base, &m->base_io}};
    for (int i = 0; i < 2; i++) {
        if (!preset_present(*maps[i][0]))
            continue;
        if (!preset_check_keys(b, *maps[i][0], post_read_keys, "post_read"))
            return false;
        *maps[i][1] = preset_map_get(*maps[i][0], "io_cat");
        if (preset_present(*maps[i][1]) &&
            !preset_check_keys(b, *maps[i][1], io_cat_keys, "post_read.io_cat"))
            return false;
    }
    return true;
}

static bool read_io_cats(builder *b, const post_maps *m, dfs_post_read *pr)
{
    for (size_t i = 0; io_cat_keys[i]; i++) {
        ynode v = preset_map_get(m->user_io, io_cat_keys[i]);
        if (!preset_present(v))
            v = preset_map_get(m->base_io, io_cat_keys[i]);
        char what[48];
        snprintf(what, sizeof what, "post_read.io_cat.%s", io_cat_keys[i]);
        if (!preset_read_string_list(b, v, what, LIST_NONEMPTY, &pr->io_cat_names[io_cat_codes[i]]))
            return false;
    }
    return true;
}

static bool read_suffixes(builder *b, ynode v, dfs_post_read *pr)
{
    size_t n;
    void *items;
    if (!read_list(b, v, "post_read.suffixes", "rules", DFS_PRESET_MAX_SUFFIXES, sizeof(dfs_suffix_rule), &n, &items))
        return false;
    if (!preset_present(v) || preset_is_null(v))
        return true;
    dfs_suffix_rule *rules = items;
    for (size_t i = 0; i < n; i++) {
        ynode item = preset_seq_item(v, i), marker, suffix;
        if (!preset_check_keys(b, item, suffix_keys, "suffix rule"))
            return false;
        marker = preset_map_get(item, "marker");
        suffix = preset_map_get(item, "suffix");
        if (!preset_present(marker) || !preset_present(suffix))
            return preset_fail_at(b, item, "suffix rule: needs 'marker' and 'suffix'");
        if (!preset_read_string(b, marker, "suffix rule marker", &rules[i].marker) ||
            !preset_read_string(b, suffix, "suffix rule suffix", &rules[i].suffix))
            return false;
        if (rules[i].marker[0] == '\0' || rules[i].suffix[0] == '\0')
            return preset_fail_at(b, item, "suffix rule: empty marker or suffix");
        if (preset_has_upper(rules[i].suffix))
            return preset_fail_at(b, suffix, "suffix rule: the suffix '%.40s' must be lower-case",
                                  rules[i].suffix);
    }
    pr->suffixes = rules;
    pr->nsuffixes = n;
    return true;
}

static bool read_post_lists(builder *b, const post_maps *m, dfs_post_read *pr)
{
    struct {
        const char *key;
        dfs_string_list *out;
        unsigned flags;
    } lists[] = {
        {"ignored_file_patterns", &pr->ignored_file_patterns, LIST_NONEMPTY},
        {"ignored_functions", &pr->ignored_functions, LIST_NONEMPTY},
        {"ignored_function_patterns", &pr->ignored_function_patterns, LIST_NONEMPTY},
        {"io_cat_categories", &pr->io_cat_categories, LIST_NONEMPTY},
        {"suffix_categories", &pr->suffix_categories, LIST_NONEMPTY | LIST_LOWER},
    };
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        char what[48];
        snprintf(what, sizeof what, "post_read.%s", lists[i].key);
        if (!preset_read_string_list(b, post_key(m, lists[i].key), what, lists[i].flags, lists[i].out))
            return false;
    }
    return true;
}

static bool read_post_read(builder *b)
{
    post_maps m = {NO_NODE, NO_NODE, NO_NODE, NO_NODE};
    dfs_post_read *pr = &b->p->post_read;
    static const char *const hosts[] = {"hash", "na", NULL};
    int host = b->p->generation == DFS_GEN_G2 ? DFS_MISSING_HOST_NA : DFS_MISSING_HOST_HASH;
    ynode host_node;
    if (!check_post_maps(b, &m) || !read_post_lists(b, &m, pr) || !read_io_cats(b, &m, pr) ||
        !read_suffixes(b, post_key(&m, "suffixes"), pr) ||
        !preset_read_bool(b, post_key(&m, "size_from_size_sum"), "post_read.size_from_size_sum", true,
                          &pr->size_from_size_sum) ||
        !preset_read_bool(b, post_key(&m, "size_from_image_size"), "post_read.size_from_image_size",
                          b->p->generation == DFS_GEN_G3, &pr->size_from_image_size))
        return false;
    host_node = post_key(&m, "missing_host");
    if (preset_present(host_node) &&
        !preset_read_choice(b, host_node, "post_read.missing_host", hosts, &host))
        return false;
    pr->missing_host = host == 1 ? DFS_MISSING_HOST_NA : DFS_MISSING_HOST_HASH;
    return true;
}

/* ---- the top level ---- */

/* The default name of a user preset: its file name without directory and extension. */
static const char *origin_stem(builder *b)
{
    const char *s = strrchr(b->user.origin, '/');
    s = s ? s + 1 : b->user.origin;
    const char *dot = strrchr(s, '.');
    size_t n = dot ? (size_t)(dot - s) : strlen(s);
    return n ? preset_copy_text(b, s, n) : "user";
}

static bool read_header(builder *b)
{
    static const char *const gens[] = {"g2", "g3", NULL};
    ynode gen = section(b, "generation");
    int g = 1;
    if (preset_present(gen) && !preset_read_choice(b, gen, "generation", gens, &g))
        return false;
    b->p->generation = g == 0 ? DFS_GEN_G2 : DFS_GEN_G3;
    /* a user file never inherits the base's name: it is a different preset */
    ynode name = preset_map_get(b->user_root, "name");
    if (preset_present(name)) {
        if (!preset_read_string(b, name, "name", &b->p->name))
            return false;
        if (b->p->name[0] == '\0')
            return preset_fail_at(b, name, "name: empty");
    } else if (!(b->p->name = origin_stem(b))) {
        return false;
    }
    return preset_read_opt_string(b, section(b, "description"), "description", &b->p->description) &&
           preset_read_bool(b, section(b, "auto_layers"), "auto_layers", false, &b->p->auto_layers) &&
           preset_read_string_list(b, section(b, "detect_categories"), "detect_categories",
                                   LIST_NONEMPTY | LIST_LOWER, &b->p->detect_categories);
}

static bool read_time_boundary(builder *b)
{
    ynode v = section(b, "time_boundary");
    const char *name;
    b->p->time_boundary = -1;
    if (!preset_read_opt_string(b, v, "time_boundary", &name))
        return false;
    if (!name)
        return true;
    b->p->time_boundary = find_layer(b->p->layers, b->p->nlayers, name);
    if (b->p->time_boundary < 0)
        return preset_fail_at(b, v, "time_boundary: '%.40s' is not a layer", name);
    return true;
}

static bool build(builder *b)
{
    return read_header(b) && read_layers(b) && read_time_boundary(b) && read_additional(b) &&
           read_left_out(b) && read_post_read(b);
}

/* ================================================================================================
 * Loading
 * ============================================================================================== */

static bool yaml_error(builder *b, ydoc *d, const yaml_parser_t *ps)
{
    if (ps->error == YAML_MEMORY_ERROR)
        return preset_fail_nomem(b);
    if (ps->error == YAML_READER_ERROR)
        return preset_fail(b, "%s: invalid YAML input at byte %zu: %s", d->origin, ps->problem_offset,
                           ps->problem ? ps->problem : "?");
    if (ps->context)
        return preset_fail(b, "%s:%zu:%zu: YAML syntax error: %s %s", d->origin, ps->problem_mark.line + 1,
                           ps->problem_mark.column + 1, ps->problem ? ps->problem : "?", ps->context);
    return preset_fail(b, "%s:%zu:%zu: YAML syntax error: %s", d->origin, ps->problem_mark.line + 1,
                       ps->problem_mark.column + 1, ps->problem ? ps->problem : "?");
}

/* Refuses a text nested deeper than MAX_YAML_DEPTH at the collection that goes too deep, from
 * libyaml's events, before anything is loaded: yaml_parser_load would build the whole tree first,
 * and libyaml's scanner spends time in the depth on every token (a megabyte of '[' takes minutes).
 * The pass stops there, so it costs a few tokens of that depth. Syntax errors are left to the
 * load, which reports them. */
static bool check_depth(builder *b, const ydoc *d)
{
    yaml_parser_t ps;
    if (!yaml_parser_initialize(&ps))
        return preset_fail_nomem(b);
    yaml_parser_set_input_string(&ps, (const unsigned char *)d->text, d->len);
    bool ok = true, end = false;
    for (int depth = 0; ok && !end;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&ps, &ev))
            break;
        if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
            if (++depth > MAX_YAML_DEPTH)
                ok = preset_fail(b, "%s:%zu:%zu: nested deeper than %d sequences and mappings", d->origin,
                                 ev.start_mark.line + 1, ev.start_mark.column + 1, MAX_YAML_DEPTH);
        } else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) {
            depth--;
        }
        end = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&ps);
    return ok;
}

/* Parses one YAML document; a second document in the same text is refused. */
static bool load_doc(builder *b, ydoc *d, const char *origin, const char *text, size_t len, ynode *root)
{
    snprintf(d->origin, sizeof d->origin, "%s", origin);
    d->text = text;
    d->len = len;
    if (len > MAX_YAML_BYTES)
        return preset_fail(b, "%s: %zu bytes, a preset has at most %zu", d->origin, len, MAX_YAML_BYTES);
    if (!check_depth(b, d))
        return false;
    yaml_parser_t ps;
    if (!yaml_parser_initialize(&ps))
        return preset_fail_nomem(b);
    yaml_parser_set_input_string(&ps, (const unsigned char *)text, len);
    bool ok = yaml_parser_load(&ps, &d->doc);
    if (!ok) {
        yaml_error(b, d, &ps);
    } else {
        d->loaded = true;
        yaml_document_t extra;
        if (!yaml_parser_load(&ps, &extra)) {
            ok = yaml_error(b, d, &ps);
        } else {
            bool more = yaml_document_get_root_node(&extra) != NULL;
            yaml_document_delete(&extra);
            if (more)
                ok = preset_fail(b, "%s: more than one YAML document", d->origin);
        }
    }
    yaml_parser_delete(&ps);
    if (!ok)
        return false;
    root->d = d;
    root->n = yaml_document_get_root_node(&d->doc);
    if (!root->n)
        return preset_fail(b, "%s: empty preset", d->origin);
    return preset_check_keys(b, *root, top_keys, "the preset");
}

static bool load_base(builder *b)
{
    ynode v = preset_map_get(b->user_root, "base");
    const char *name;
    if (!preset_present(v))
        return true;
    if (!preset_read_string(b, v, "base", &name))
        return false;
    int i = builtin_index(name);
    if (i < 0) {
        char names[128];
        preset_list_words(dfs_preset_builtin_names_, names, sizeof names);
        const char *guess = dfs_suggest_among(name, dfs_preset_builtin_names_, dfs_preset_builtin_count_);
        return preset_fail_at(b, v, "base: '%.40s' is not a shipped preset (shipped: %s)%s%s%s", name, names,
                              guess ? ". Did you mean '" : "", guess ? guess : "", guess ? "'?" : "");
    }
    char origin[64];
    snprintf(origin, sizeof origin, "presets/%s.yaml", name);
    if (!load_doc(b, &b->base, origin, (const char *)dfs_preset_builtin_texts_[i],
                  dfs_preset_builtin_lengths_[i], &b->base_root))
        return false;
    if (preset_present(preset_map_get(b->base_root, "base")))
        return preset_fail_at(b, preset_map_get(b->base_root, "base"),
                              "a shipped preset cannot itself have a base");
    return true;
}

static void builder_free(builder *b)
{
    if (b->user.loaded)
        yaml_document_delete(&b->user.doc);
    if (b->base.loaded)
        yaml_document_delete(&b->base.doc);
    if (b->box) {
        dfs_arena_free(&b->box->arena);
        free(b->box);
    }
}

dfs_preset *dfs_preset_parse(const char *yaml, size_t len, const char *origin, dfs_preset_error *err)
{
    dfs_preset_error scratch;
    builder b;
    memset(&b, 0, sizeof b);
    b.err = err ? err : &scratch;
    b.err->message[0] = '\0';
    b.box = calloc(1, sizeof *b.box);
    if (!b.box) {
        preset_fail_nomem(&b);
        return NULL;
    }
    dfs_arena_init(&b.box->arena, 16 * 1024);
    b.p = &b.box->pub;
    b.p->time_boundary = b.p->compute_layer = -1;
    if (!yaml) {
        yaml = "";
        len = 0;
    }
    bool ok = load_doc(&b, &b.user, origin ? origin : "<preset>", yaml, len, &b.user_root) && load_base(&b) &&
              build(&b);
    dfs_preset *p = NULL;
    if (ok) {
        p = b.p;
        b.box = NULL;
    }
    builder_free(&b);
    return p;
}

void dfs_preset_free(dfs_preset *p)
{
    if (!p)
        return;
    preset_box *box = (preset_box *)p;
    dfs_arena_free(&box->arena);
    free(box);
}

static bool is_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n > 5 && strcmp(s + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(s + n - 4, ".yml") == 0);
}

static void set_error(dfs_preset_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(dfs_preset_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    preset_set_message(err, fmt, ap);
    va_end(ap);
}

/* The whole file in a malloc'd buffer (NUL-terminated), refusing files over the size limit. */
static char *read_file(const char *path, size_t *len, dfs_preset_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        set_error(err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(MAX_YAML_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_YAML_BYTES + 1, f) : 0;
    bool bad = !buf || ferror(f) || n > MAX_YAML_BYTES;
    fclose(f);
    if (bad) {
        const char *why = !buf ? "out of memory" : n > MAX_YAML_BYTES ? "larger than 1 MiB" : "read error";
        set_error(err, "%s: %s", path, why);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

dfs_preset *dfs_preset_load(const char *name_or_path, dfs_preset_error *err)
{
    if (!name_or_path) {
        set_error(err, "no preset named");
        return NULL;
    }
    if (is_path(name_or_path)) {
        size_t len;
        char *text = read_file(name_or_path, &len, err);
        if (!text)
            return NULL;
        dfs_preset *p = dfs_preset_parse(text, len, name_or_path, err);
        free(text);
        return p;
    }
    int i = builtin_index(name_or_path);
    if (i < 0) {
        char names[128];
        preset_list_words(dfs_preset_builtin_names_, names, sizeof names);
        const char *guess =
            dfs_suggest_among(name_or_path, dfs_preset_builtin_names_, dfs_preset_builtin_count_);
        set_error(err, "unknown preset '%.40s' (shipped: %s; a file path contains '/' or ends in .yaml)%s%s%s",
                  name_or_path, names, guess ? ". Did you mean '" : "", guess ? guess : "", guess ? "'?" : "");
        return NULL;
    }
    char origin[64];
    snprintf(origin, sizeof origin, "presets/%s.yaml", name_or_path);
    return dfs_preset_parse((const char *)dfs_preset_builtin_texts_[i], dfs_preset_builtin_lengths_[i],
                            origin, err);
}

int dfs_preset_layer_index(const dfs_preset *p, const char *name)
{
    return p && name ? find_layer(p->layers, p->nlayers, name) : -1;
}
