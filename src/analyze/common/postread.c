/* postread.c - the post-read rules of layered analysis as a memoised classifier (postread.h). */
#include "analyze/common/postread.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/event_args.h"
#include "util/idtab.h"
#include "util/keymap.h"
#include "util/multisub.h"
#include "util/vec.h"

#define BASE_COLUMNS                                                                               \
    (DFS_PRED_COL_BIT(DFS_PRED_CAT) | DFS_PRED_COL_BIT(DFS_PRED_FUNC_NAME) |                       \
     DFS_PRED_COL_BIT(DFS_PRED_IO_CAT) | DFS_PRED_COL_BIT(DFS_PRED_ACC_PAT))

/* ----- the plan ----------------------------------------------------------------------------- */

/* The bit of `text` in the plan, adding it when new; -1 when the set is full. NULL texts (match
 * all) have no bit. */
static int plan_text(dfs_layer_plan *plan, const char *text)
{
    if (!text)
        return -1;
    for (size_t i = 0; i < plan->ntexts; i++)
        if (strcmp(plan->texts[i], text) == 0)
            return (int)i;
    if (plan->ntexts == DFS_PRED_MAX_SET)
        return -2;
    plan->texts[plan->ntexts] = text;
    return (int)plan->ntexts++;
}

static bool plan_fail(dfs_pred_error *err, const char *what, const char *name)
{
    if (err) {
        err->index = 0;
        err->column = 0;
        snprintf(err->message, sizeof err->message, "%s%s", what, name);
    }
    return false;
}

/* The keys the plan's argument tests read, checked against the bounds of predicate.h. */
static bool plan_arg_keys(dfs_layer_plan *plan, dfs_pred_set *set, dfs_pred_error *err)
{
    dfs_pred_arg_tests *tests = dfs_pred_arg_tests_new();
    if (!tests)
        return plan_fail(err, "out of memory", "");
    bool ok = dfs_pred_set_bind_arg_tests(set, tests, err);
    size_t nextra = 0;
    for (size_t i = 0; ok && i < dfs_pred_arg_tests_key_count(tests); i++) {
        size_t len;
        const char *key = dfs_pred_arg_tests_key(tests, i, &len);
        memcpy(plan->arg_key_text[i], key, len); /* len <= DFS_PRED_MAX_ARG_KEY; the rest is zeros */
        dfs_want w = {0};
        dfs_want_arg_key(&w, plan->arg_key_text[i], plan->want_extra, &nextra);
        plan->want_keys |= w.keys;
    }
    dfs_pred_arg_tests_free(tests);
    return ok;
}

bool dfs_layer_plan_init(dfs_layer_plan *plan, const dfs_preset *preset, const dfs_preset_layer *layers,
                         size_t nlayers, dfs_pred_error *err)
{
    memset(plan, 0, sizeof *plan);
    plan->preset = preset;
    plan->layers = layers;
    plan->nlayers = nlayers;
    if (nlayers > DFS_PRESET_MAX_LAYERS)
        return plan_fail(err, "too many layers for one analysis", "");
    for (size_t l = 0; l < nlayers; l++) {
        plan->layer_text[l] = plan_text(plan, layers[l].predicate);
        if (plan->layer_text[l] == -2)
            return plan_fail(err, "too many distinct predicates; at layer ", layers[l].name);
        for (size_t d = 0; d < layers[l].nderived && d < DFS_PRESET_MAX_DERIVED; d++) {
            plan->derived_text[l][d] = plan_text(plan, layers[l].derived[d].predicate);
            if (plan->derived_text[l][d] == -2)
                return plan_fail(err, "too many distinct predicates; at layer ", layers[l].name);
        }
    }
    for (size_t i = 0; preset && i < preset->nleft_out; i++) {
        int t = plan_text(plan, preset->left_out[i].predicate);
        if (t == -2)
            return plan_fail(err, "too many distinct predicates; at left_out ", preset->left_out[i].predicate);
        plan->left_out_texts |= UINT64_C(1) << t;
    }
    dfs_pred_set *set = dfs_pred_set_new(plan->texts, plan->ntexts, err);
    if (!set)
        return false;
    plan->columns = dfs_pred_set_columns(set);
    plan->uses_args = dfs_pred_set_uses_args(set);
    bool ok = !plan->uses_args || plan_arg_keys(plan, set, err);
    dfs_pred_set_free(set);
    plan->per_event = (plan->columns & ~(unsigned)BASE_COLUMNS) != 0 || plan->uses_args;
    return ok;
}

void dfs_layer_plan_want(const dfs_layer_plan *plan, dfs_want *w)
{
    w->keys |= plan->want_keys;
    if (plan->want_extra[0])
        w->extra = plan->want_extra;
}

void dfs_layer_plan_user(const dfs_layer_plan *plan, size_t text, const char *noun, char *buf, size_t n)
{
    snprintf(buf, n, "%s ?", noun);
    for (size_t l = 0; l < plan->nlayers; l++) {
        if (plan->layer_text[l] == (int)text) {
            snprintf(buf, n, "%s %s", noun, plan->layers[l].name);
            return;
        }
        for (size_t d = 0; d < plan->layers[l].nderived && d < DFS_PRESET_MAX_DERIVED; d++)
            if (plan->derived_text[l][d] == (int)text) {
                snprintf(buf, n, "%s %s, derived metric %s", noun, plan->layers[l].name, plan->layers[l].derived[d].name);
                return;
            }
    }
}

/* ----- the classifier ------------------------------------------------------------------------ */

typedef struct file_rules {
    bool known;   /* in the files table: the path was matched */
    bool ignored;
    uint32_t markers; /* bit i: the path contains suffixes[i].marker */
} file_rules;

typedef struct key_class {
    dfs_pr_event ev;
} key_class;

/* Direct-mapped memos in front of the maps: an event's key is mostly among the last few hundred
 * seen, and a slot compare is cheaper than hashing the key and probing a map whose entries are
 * spread over memory. (A file's rules need neither: they sit in a table by name id.) */

typedef struct key_slot {
    uint64_t key[2]; /* dfs_pr_front_key (postread.h) */
    uint32_t idx;    /* + 1; 0: empty */
} key_slot;

/* The whole answer of an event by its key and its answered argument tests, when the rules read
 * no other per-event column: the key-only memo of postread.h cannot hold such answers. */
typedef struct arg_slot {
    uint64_t key[2]; /* dfs_pr_front_key; {0, 0}: empty */
    uint64_t truths;
    dfs_pr_event ev;
} arg_slot;

typedef struct cat_text {
    char *s;
    size_t len;
} cat_text;

/* Suffix markers are bits of a u32 next to the has-file bit: at most this many apply. */
#define MAX_MARKERS 31

/* The substring lists compiled for one pass over a name. A list longer than the matcher takes
 * (DFS_MULTISUB_MAX) is not compiled and is tested pattern by pattern instead. */
typedef struct name_matchers {
    size_t nmarkers;         /* suffix markers that apply: bits 0..nmarkers-1 of file_needles */
    bool file_compiled;      /* file_needles: the markers, then the ignored file patterns */
    dfs_multisub file_needles;
    bool func_compiled;      /* func_needles: the ignored function patterns */
    dfs_multisub func_needles;
} name_matchers;

struct dfs_postread {
    const dfs_layer_plan *plan;
    const dfs_post_read *rules;
    dfs_pred_set *preds;
    dfs_pred_arg_tests *arg_tests; /* the argument tests preds read; NULL when none */
    dfs_idtab files;    /* fname id -> file_rules */
    dfs_keymap keys;    /* {cat, name, markers | has-file, size_sum} -> index in classes */
    DFS_VEC(key_class) classes;
    key_slot key_front[DFS_PR_FRONT_SLOTS];
    dfs_pr_front event_front; /* (postread.h) */
    arg_slot *arg_front;      /* DFS_PR_FRONT_SLOTS, when the rules read args and no other per-event column */
    dfs_keymap cats;    /* {raw cat, markers | has-file} -> index in cat_texts */
    DFS_VEC(cat_text) cat_texts;
    name_matchers match;
};

/* Compiles the file and function substring lists that fit the matcher; false when out of memory. */
static bool name_matchers_init(name_matchers *nm, const dfs_post_read *r)
{
    memset(nm, 0, sizeof *nm);
    nm->nmarkers = r->nsuffixes < MAX_MARKERS ? r->nsuffixes : MAX_MARKERS;
    const dfs_string_list *ign = &r->ignored_file_patterns;
    if (nm->nmarkers + ign->n <= DFS_MULTISUB_MAX) {
        const char *needles[DFS_MULTISUB_MAX];
        for (size_t i = 0; i < nm->nmarkers; i++)
            needles[i] = r->suffixes[i].marker;
        for (size_t i = 0; i < ign->n; i++)
            needles[nm->nmarkers + i] = ign->v[i];
        if (!dfs_multisub_init(&nm->file_needles, needles, NULL, nm->nmarkers + ign->n))
            return false;
        nm->file_compiled = true;
    }
    const dfs_string_list *fn = &r->ignored_function_patterns;
    if (fn->n <= DFS_MULTISUB_MAX) {
        if (!dfs_multisub_init(&nm->func_needles, fn->v, NULL, fn->n))
            return false;
        nm->func_compiled = true;
    }
    return true;
}

static void name_matchers_free(name_matchers *nm)
{
    dfs_multisub_free(&nm->file_needles);
    dfs_multisub_free(&nm->func_needles);
}

dfs_postread *dfs_postread_new(const dfs_layer_plan *plan)
{
    dfs_postread *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->plan = plan;
    c->rules = &plan->preset->post_read;
    c->preds = dfs_pred_set_new(plan->texts, plan->ntexts, NULL);
    if (c->preds && plan->uses_args) { /* bound as the plan bound them: the same numbers */
        c->arg_tests = dfs_pred_arg_tests_new();
        if (!c->arg_tests || !dfs_pred_set_bind_arg_tests(c->preds, c->arg_tests, NULL)) {
            dfs_pred_set_free(c->preds);
            c->preds = NULL;
        }
    }
    if (!c->preds || !name_matchers_init(&c->match, c->rules)) {
        name_matchers_free(&c->match);
        dfs_pred_set_free(c->preds);
        dfs_pred_arg_tests_free(c->arg_tests);
        free(c);
        return NULL;
    }
    if (plan->uses_args && !(plan->columns & ~(unsigned)BASE_COLUMNS) &&
        !(c->arg_front = calloc(DFS_PR_FRONT_SLOTS, sizeof *c->arg_front))) {
        dfs_postread_free(c);
        return NULL;
    }
    dfs_idtab_init(&c->files, sizeof(file_rules));
    dfs_keymap_init(&c->keys, 4 * sizeof(uint32_t));
    dfs_keymap_init(&c->cats, 2 * sizeof(uint32_t));
    return c;
}

void dfs_postread_free(dfs_postread *c)
{
    if (!c)
        return;
    dfs_pred_set_free(c->preds);
    dfs_pred_arg_tests_free(c->arg_tests);
    free(c->arg_front);
    name_matchers_free(&c->match);
    dfs_idtab_free(&c->files);
    dfs_keymap_free(&c->keys);
    dfs_keymap_free(&c->cats);
    dfs_vec_free(&c->classes);
    for (size_t i = 0; i < c->cat_texts.n; i++)
        free(c->cat_texts.v[i].s);
    dfs_vec_free(&c->cat_texts);
    free(c);
}

static bool contains(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    return m <= n && memmem(hay, n, needle, m) != NULL;
}

static bool contains_any(const char *hay, size_t n, const dfs_string_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (contains(hay, n, l->v[i]))
            return true;
    return false;
}

static bool equals_any(const char *s, size_t n, const dfs_string_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (strlen(l->v[i]) == n && memcmp(l->v[i], s, n) == 0)
            return true;
    return false;
}

/* The ignored-file verdict and suffix markers of a path: one pass over it when compiled. */
static file_rules match_file(const dfs_postread *c, const char *path, size_t n)
{
    const name_matchers *nm = &c->match;
    if (nm->file_compiled) {
        uint64_t hits = dfs_multisub_scan(&nm->file_needles, path, n);
        uint64_t marker_bits = (UINT64_C(1) << nm->nmarkers) - 1;
        return (file_rules){.ignored = (hits & ~marker_bits) != 0, .markers = (uint32_t)(hits & marker_bits)};
    }
    file_rules fr = {.ignored = contains_any(path, n, &c->rules->ignored_file_patterns)};
    for (size_t i = 0; i < nm->nmarkers; i++)
        if (contains(path, n, c->rules->suffixes[i].marker))
            fr.markers |= 1u << i;
    return fr;
}

static bool ignored_by_function_pattern(const dfs_postread *c, const char *name, size_t n)
{
    if (c->match.func_compiled)
        return dfs_multisub_any(&c->match.func_needles, name, n);
    return contains_any(name, n, &c->rules->ignored_function_patterns);
}

/* io_cat per §3.4: only for the listed raw categories; METADATA is tested first. */
static uint8_t io_cat_of(const dfs_post_read *r, const char *cat, size_t cn, const char *name, size_t nn)
{
    if (!equals_any(cat, cn, &r->io_cat_categories))
        return DFS_IO_OTHER;
    if (equals_any(name, nn, &r->io_cat_names[DFS_IO_METADATA]))
        return DFS_IO_METADATA;
    static const uint8_t order[] = {DFS_IO_READ, DFS_IO_WRITE, DFS_IO_SYNC, DFS_IO_PCTL, DFS_IO_IPC};
    for (size_t i = 0; i < sizeof order; i++)
        if (equals_any(name, nn, &r->io_cat_names[order[i]]))
            return order[i];
    return DFS_IO_OTHER;
}

static bool name_has_open(const char *s, size_t n)
{
    for (size_t i = 0; i + 4 <= n; i++)
        if (tolower((unsigned char)s[i]) == 'o' && tolower((unsigned char)s[i + 1]) == 'p' &&
            tolower((unsigned char)s[i + 2]) == 'e' && tolower((unsigned char)s[i + 3]) == 'n')
            return true;
    return false;
}

/* The suffixed lower-cased category (§3.6): its classifier-local id. UINT32_MAX: out of memory. */
static uint32_t suffixed_cat(dfs_postread *c, const dfs_run *run, dfs_str cat, uint32_t markers, bool has_file)
{
    uint32_t key[2] = {cat, markers | (has_file ? 0x80000000u : 0)};
    uint32_t idx;
    bool fresh;
    if (!dfs_keymap_get_or_put(&c->cats, key, (uint32_t)c->cat_texts.n, &idx, &fresh))
        return UINT32_MAX;
    if (!fresh)
        return idx;
    size_t n;
    const char *raw = dfs_str_get(run, cat, &n);
    size_t cap = n + 1;
    for (size_t i = 0; i < c->rules->nsuffixes; i++)
        cap += strlen(c->rules->suffixes[i].suffix);
    cat_text t = {.s = malloc(cap), .len = n};
    if (!t.s)
        return UINT32_MAX;
    for (size_t i = 0; i < n; i++)
        t.s[i] = (char)tolower((unsigned char)raw[i]);
    t.s[n] = '\0';
    if (has_file && contains_any(t.s, n, &c->rules->suffix_categories)) {
        for (size_t i = 0; i < c->match.nmarkers; i++) {
            if (!(markers & (1u << i)))
                continue;
            size_t sl = strlen(c->rules->suffixes[i].suffix);
            memcpy(t.s + t.len, c->rules->suffixes[i].suffix, sl + 1);
            t.len += sl;
        }
    }
    if (!dfs_vec_push(&c->cat_texts, t)) {
        free(t.s);
        return UINT32_MAX;
    }
    return idx;
}

uint32_t dfs_postread_cat_count(const dfs_postread *c)
{
    return (uint32_t)c->cat_texts.n;
}

const char *dfs_postread_cat_text(const dfs_postread *c, uint32_t cat, size_t *len)
{
    *len = c->cat_texts.v[cat].len;
    return c->cat_texts.v[cat].s;
}

static uint64_t layers_of(const dfs_layer_plan *plan, uint64_t match)
{
    uint64_t layers = 0;
    for (size_t l = 0; l < plan->nlayers; l++) {
        int t = plan->layer_text[l];
        if (t < 0 || (match >> t & 1))
            layers |= UINT64_C(1) << l;
    }
    return layers;
}

static void fill_row(dfs_pred_row *row, uint32_t *ids, const dfs_postread *c, const dfs_run *run,
                     const dfs_pr_input *in, const dfs_pr_event *pe)
{
    dfs_pred_row_init(row);
    size_t n;
    const char *s = dfs_postread_cat_text(c, pe->cat, &n);
    dfs_pred_row_set_text(row, DFS_PRED_CAT, s, n);
    ids[DFS_PRED_CAT] = pe->cat;
    s = dfs_str_get(run, in->name, &n);
    dfs_pred_row_set_text(row, DFS_PRED_FUNC_NAME, s, n);
    ids[DFS_PRED_FUNC_NAME] = in->name;
    dfs_pred_row_set_num(row, DFS_PRED_IO_CAT, pe->io_cat);
    dfs_pred_row_set_num(row, DFS_PRED_ACC_PAT, 0);
    if (!c->plan->per_event)
        return;
    if (in->fname) {
        s = dfs_str_get(run, in->fname, &n);
        dfs_pred_row_set_text(row, DFS_PRED_FILE_NAME, s, n);
        ids[DFS_PRED_FILE_NAME] = in->fname;
    }
    if (in->host) {
        s = dfs_str_get(run, in->host, &n);
        dfs_pred_row_set_text(row, DFS_PRED_HOST, s, n);
        ids[DFS_PRED_HOST] = in->host;
    }
    if (in->proc_name) {
        dfs_pred_row_set_text(row, DFS_PRED_PROC_NAME, in->proc_name, in->proc_name_len);
        ids[DFS_PRED_PROC_NAME] = in->proc_id;
    }
    dfs_pred_row_set_num(row, DFS_PRED_PID, in->pid);
    dfs_pred_row_set_num(row, DFS_PRED_TID, in->tid);
    row->has_arg_truths = c->plan->uses_args;
    row->arg_truths = in->arg_truths;
}

uint64_t dfs_postread_arg_truths(const dfs_postread *c, const dfs_run *run, const dfs_event *ev)
{
    return c->arg_tests ? dfs_event_arg_truths(c->arg_tests, run, ev) : 0;
}

/* Everything but the file's own verdict depends on (cat, name, size_sum, the file's markers). */
static bool classify_key(dfs_postread *c, const dfs_run *run, const dfs_pr_input *in, uint32_t markers,
                         dfs_pr_event *pe)
{
    memset(pe, 0, sizeof *pe);
    size_t cn, nn;
    const char *cat = dfs_str_get(run, in->cat, &cn);
    const char *name = dfs_str_get(run, in->name, &nn);
    pe->dropped_func = equals_any(name, nn, &c->rules->ignored_functions) ||
                       ignored_by_function_pattern(c, name, nn);
    bool io_listed = equals_any(cat, cn, &c->rules->io_cat_categories);
    pe->io_cat = io_cat_of(c->rules, cat, cn, name, nn);
    if (in->has_size_sum && c->rules->size_from_size_sum) {
        pe->size_rule = DFS_SIZE_FROM_SIZE_SUM;
        pe->io_cat = DFS_IO_OTHER; /* quirk 9: DataCrumbs events stay out of data/read/write */
    } else if (io_listed) {
        pe->size_rule = (pe->io_cat == DFS_IO_READ || pe->io_cat == DFS_IO_WRITE) ? DFS_SIZE_FROM_RET
                                                                                   : DFS_SIZE_NONE;
    } else if (c->rules->size_from_image_size && !name_has_open(name, nn)) {
        pe->size_rule = DFS_SIZE_FROM_IMAGE;
    }
    pe->cat = suffixed_cat(c, run, in->cat, markers, in->fname != 0);
    if (pe->cat == UINT32_MAX)
        return false;
    if (!c->plan->per_event) {
        dfs_pred_row row;
        uint32_t ids[DFS_PRED_NTEXT] = {0};
        fill_row(&row, ids, c, run, in, pe);
        pe->match = dfs_pred_set_eval(c->preds, &row, ids);
        pe->layers = layers_of(c->plan, pe->match);
    }
    return true;
}

bool dfs_postread_failed(const dfs_postread *c, const char *noun, char *buf, size_t n)
{
    dfs_pred_error err;
    if (!c || !dfs_pred_set_failed(c->preds, &err))
        return false;
    char what[160];
    dfs_layer_plan_user(c->plan, err.index, noun, what, sizeof what);
    dfs_pred_note_failure(buf, n, what, c->plan->texts[err.index], &err);
    return true;
}

const dfs_pr_front *dfs_postread_front(const dfs_postread *c)
{
    return c->plan->per_event ? NULL : &c->event_front;
}

/* The rules of a named file, matched at its first visit; false when out of memory. */
static bool file_rules_of(dfs_postread *c, const dfs_run *run, dfs_str fname, file_rules *fr)
{
    const file_rules *known = dfs_idtab_get(&c->files, fname);
    if (known && known->known) {
        *fr = *known;
        return true;
    }
    file_rules *slot = dfs_idtab_at(&c->files, fname);
    if (!slot)
        return false;
    size_t n;
    const char *path = dfs_str_get(run, fname, &n);
    *slot = match_file(c, path, n);
    slot->known = true;
    *fr = *slot;
    return true;
}

/* The class index of a key, classified when new; false when out of memory. */
static bool class_of(dfs_postread *c, const dfs_run *run, const dfs_pr_input *in, uint32_t markers,
                     const uint32_t key[4], uint32_t *idx)
{
    uint64_t packed[2];
    dfs_pr_front_key(key[0], key[1], key[2], key[3], packed);
    key_slot *slot = &c->key_front[dfs_pr_front_index(packed)];
    if (slot->idx && slot->key[0] == packed[0] && slot->key[1] == packed[1]) {
        *idx = slot->idx - 1;
        return true;
    }
    bool fresh;
    if (!dfs_keymap_get_or_put(&c->keys, key, (uint32_t)c->classes.n, idx, &fresh))
        return false;
    if (fresh) {
        key_class kc;
        if (!classify_key(c, run, in, markers, &kc.ev) || !dfs_vec_push(&c->classes, kc))
            return false;
    }
    slot->key[0] = packed[0];
    slot->key[1] = packed[1];
    slot->idx = *idx + 1;
    return true;
}

/* Three memos: the whole answer by the event's key (most events stop there, mostly in the
 * caller: postread.h), and on a miss, per file name its rules (many files: a table by id) and per
 * (cat, name, file markers, size_sum) the rest (few keys, so the table stays in cache). */
bool dfs_postread_classify(dfs_postread *c, const dfs_run *run, const dfs_pr_input *in, dfs_pr_event *out)
{
    return dfs_pr_front_find(dfs_postread_front(c), in->cat, in->name, in->fname, in->has_size_sum, out) ||
           dfs_postread_classify_miss(c, run, in, out);
}

bool dfs_postread_classify_miss(dfs_postread *c, const dfs_run *run, const dfs_pr_input *in, dfs_pr_event *out)
{
    arg_slot *memo = NULL;
    uint64_t ekey[2];
    dfs_pr_front_key(in->cat, in->name, in->fname, in->has_size_sum, ekey);
    if (c->arg_front) {
        uint64_t mixed[2] = {ekey[0], ekey[1] ^ in->arg_truths * UINT64_C(0x9e3779b97f4a7c15)};
        memo = &c->arg_front[dfs_pr_front_index(mixed)];
        if (memo->key[0] == ekey[0] && memo->key[1] == ekey[1] && memo->truths == in->arg_truths) {
            *out = memo->ev;
            return true;
        }
    }
    file_rules fr = {0};
    if (in->fname && !file_rules_of(c, run, in->fname, &fr))
        return false;
    uint32_t markers = in->fname ? fr.markers | 0x80000000u : 0;
    uint32_t key[4] = {in->cat, in->name, markers, in->has_size_sum};
    uint32_t idx;
    if (!class_of(c, run, in, fr.markers, key, &idx))
        return false;
    *out = c->classes.v[idx].ev;
    out->dropped_file = fr.ignored;
    if (c->plan->per_event && !out->dropped_file && !out->dropped_func) {
        dfs_pred_row row;
        uint32_t ids[DFS_PRED_NTEXT] = {0};
        fill_row(&row, ids, c, run, in, out);
        out->match = dfs_pred_set_eval(c->preds, &row, ids);
        out->layers = layers_of(c->plan, out->match);
    }
    if (dfs_postread_front(c)) /* the memo exists: remember the whole answer */
        c->event_front.slot[dfs_pr_front_index(ekey)] = (dfs_pr_front_slot){.key = {ekey[0], ekey[1]}, .ev = *out};
    else if (memo && !dfs_pred_set_failed(c->preds, NULL))
        *memo = (arg_slot){.key = {ekey[0], ekey[1]}, .truths = in->arg_truths, .ev = *out};
    return true;
}
