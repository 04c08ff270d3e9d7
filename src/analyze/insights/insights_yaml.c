/* insights_yaml.c - reading rule files (docs/REPORT.md, "Rule files") with libyaml's document
 * API, against a strict schema: unknown keys, a condition without a threshold, a rule without a
 * remedy or an evidence template naming no metric are refused with FILE:LINE:COLUMN.
 *
 * Invariants: a text is added whole or not at all (it is read into a set of its own first); a
 * rule whose id exists replaces it in place, so the shipped order stays stable. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "analyze/insights/insights_internal.h"
#include "util/suggest.h"

extern const char *const dfs_insights_builtin_names_[];
extern const unsigned char *const dfs_insights_builtin_texts_[];
extern const size_t dfs_insights_builtin_lengths_[];
extern const size_t dfs_insights_builtin_count_;

typedef struct reader {
    yaml_document_t doc;
    const char *origin;
    char *err;
    size_t errlen;
    bool failed;
} reader;

static bool fail_at(reader *rd, const yaml_node_t *n, const char *fmt, ...)
{
    if (rd->failed)
        return false;
    rd->failed = true;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n)
        snprintf(rd->err, rd->errlen, "%s:%zu:%zu: %s", rd->origin, n->start_mark.line + 1, n->start_mark.column + 1,
                 msg);
    else
        snprintf(rd->err, rd->errlen, "%s: %s", rd->origin, msg);
    return false;
}

static yaml_node_t *node(reader *rd, int index)
{
    return yaml_document_get_node(&rd->doc, index);
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static bool want_string(reader *rd, const yaml_node_t *n, const char *key, char **out)
{
    const char *s = scalar(n);
    if (!s || !*s)
        return fail_at(rd, n, "%s takes a text", key);
    free(*out);
    *out = strdup(s);
    return *out || fail_at(rd, n, "out of memory");
}

static bool want_number(reader *rd, const yaml_node_t *n, const char *key, double *out)
{
    const char *s = scalar(n);
    char *end = NULL;
    errno = 0;
    double v = s ? strtod(s, &end) : NAN;
    if (!s || end == s || *end || errno || !isfinite(v))
        return fail_at(rd, n, "%s takes a number", key);
    *out = v;
    return true;
}

static bool valid_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '-'))
            return false;
    return true;
}

size_t insights_placeholders(const char *tmpl, const char **names, size_t max)
{
    size_t n = 0;
    for (const char *p = tmpl ? strchr(tmpl, '{') : NULL; p; p = strchr(p + 1, '{')) {
        if (names && n < max)
            names[n] = p + 1;
        n++;
    }
    return n;
}

/* Every placeholder is {name} or {name.where}, and there is one at least. */
static bool check_template(reader *rd, const yaml_node_t *at, const char *t)
{
    size_t n = 0;
    for (const char *p = strchr(t, '{'); p; p = strchr(p + 1, '{'), n++) {
        const char *close = strchr(p, '}');
        size_t len = strcspn(p + 1, ".}");
        const char *after = p + 1 + len;
        bool ok = close && len > 0 && (after == close || (strncmp(after, ".where}", 7) == 0));
        for (const char *c = p + 1; ok && c < p + 1 + len; c++)
            ok = *c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9');
        if (!ok)
            return fail_at(rd, at, "evidence: '{' opens {metric} or {metric.where} only");
    }
    return n > 0 || fail_at(rd, at, "evidence names no metric: write its numbers as {metric}");
}

static bool read_cond(reader *rd, insight_rule *rule, const yaml_node_t *map)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return fail_at(rd, map, "a condition is {metric: NAME, at_least|at_most: NUMBER, param: NAME}");
    if (rule->nconds == INSIGHT_MAX_CONDS)
        return fail_at(rd, map, "at most %d conditions per rule", INSIGHT_MAX_CONDS);
    insight_cond *c = &rule->conds[rule->nconds++];
    bool have_threshold = false;
    char *param = NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(rd, p->key), *v = node(rd, p->value);
        const char *key = scalar(k) ? scalar(k) : "";
        if (strcmp(key, "metric") == 0)
            want_string(rd, v, key, &c->metric);
        else if (strcmp(key, "at_least") == 0 || strcmp(key, "at_most") == 0) {
            c->at_most = key[3] == 'm';
            have_threshold = want_number(rd, v, key, &c->threshold);
        } else if (strcmp(key, "param") == 0)
            want_string(rd, v, key, &param);
        else
            fail_at(rd, k, "unknown key '%s' in a condition (metric, at_least, at_most, param)", key);
    }
    if (!rd->failed && (!c->metric || !have_threshold || !param || !valid_name(param)))
        fail_at(rd, map, "a condition needs metric, at_least or at_most, and param (a name)");
    if (!rd->failed) {
        size_t len = strlen(rule->id) + strlen(param) + 2;
        c->param = malloc(len);
        if (c->param)
            snprintf(c->param, len, "%s.%s", rule->id, param);
        else
            fail_at(rd, map, "out of memory");
    }
    free(param);
    return !rd->failed;
}

static bool read_severity_name(reader *rd, const yaml_node_t *v, dfs_severity *out)
{
    const char *s = scalar(v);
    for (int i = 0; s && i < 3; i++)
        if (strcmp(s, dfs_severity_name((dfs_severity)i)) == 0) {
            *out = (dfs_severity)i;
            return true;
        }
    return fail_at(rd, v, "severity takes critical, warning or info");
}

static bool read_rule_key(reader *rd, insight_rule *rule, const char *key, yaml_node_t *k, yaml_node_t *v,
                          bool *has_severity)
{
    struct {
        const char *name;
        char **field;
    } texts[] = {{"title", &rule->title},       {"verdict", &rule->verdict}, {"stake", &rule->stake},
                 {"evidence", &rule->evidence}, {"remedy", &rule->remedy},   {"command", &rule->command}};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (strcmp(key, texts[i].name) == 0)
            return want_string(rd, v, key, texts[i].field);
    if (strcmp(key, "severity") == 0)
        return (*has_severity = true) && read_severity_name(rd, v, &rule->severity);
    if (strcmp(key, "when") == 0) {
        if (!v || v->type != YAML_SEQUENCE_NODE)
            return fail_at(rd, v, "when takes a list of conditions");
        for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++)
            if (!read_cond(rd, rule, node(rd, *it)))
                return false;
        return true;
    }
    if (strcmp(key, "id") == 0)
        return true;
    return fail_at(rd, k,
                   "unknown key '%s' in a rule (id, title, verdict, severity, when, stake, evidence, remedy, "
                   "command)",
                   key);
}

static void rule_free(insight_rule *r)
{
    free(r->id), free(r->title), free(r->verdict), free(r->stake);
    free(r->evidence), free(r->remedy), free(r->command);
    for (size_t i = 0; i < r->nconds; i++)
        free(r->conds[i].metric), free(r->conds[i].param);
    memset(r, 0, sizeof *r);
}

static yaml_node_t *lookup(reader *rd, const yaml_node_t *map, const char *key)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const char *k = scalar(node(rd, p->key));
        if (k && strcmp(k, key) == 0)
            return node(rd, p->value);
    }
    return NULL;
}

static bool read_rule(reader *rd, const yaml_node_t *map, insight_rule *rule)
{
    memset(rule, 0, sizeof *rule);
    if (!map || map->type != YAML_MAPPING_NODE)
        return fail_at(rd, map, "a rule is a mapping (id, when, evidence, remedy, ...)");
    yaml_node_t *id = lookup(rd, map, "id");
    if (!id || !want_string(rd, id, "id", &rule->id) || !valid_name(rule->id))
        return fail_at(rd, id ? id : map, "a rule needs an id (letters, digits, '-' and '_')");
    bool has_severity = false;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top && !rd->failed; p++) {
        yaml_node_t *k = node(rd, p->key);
        read_rule_key(rd, rule, scalar(k) ? scalar(k) : "", k, node(rd, p->value), &has_severity);
    }
    if (!rd->failed && (!rule->nconds || !rule->evidence || !rule->remedy || !rule->command))
        fail_at(rd, map, "rule %s needs when, evidence, remedy and command", rule->id);
    if (!rd->failed && !rule->stake && !has_severity)
        fail_at(rd, map, "rule %s has no stake (a metric in seconds): give it a severity", rule->id);
    if (!rd->failed)
        check_template(rd, lookup(rd, map, "evidence"), rule->evidence);
    if (!rule->title && !rd->failed)
        rule->title = strdup(rule->id);
    if (rd->failed)
        rule_free(rule);
    return !rd->failed;
}

static bool push(dfs_insight_rules *r, insight_rule *rule)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].id, rule->id) == 0) {
            rule_free(&r->v[i]);
            r->v[i] = *rule;
            return true;
        }
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        insight_rule *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return false;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = *rule;
    return true;
}

static bool read_severity_shares(reader *rd, const yaml_node_t *map, dfs_insight_rules *into)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return fail_at(rd, map, "severity is {critical: SHARE, warning: SHARE}");
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(rd, p->key), *v = node(rd, p->value);
        const char *key = scalar(k) ? scalar(k) : "";
        if (strcmp(key, "critical") == 0)
            want_number(rd, v, key, &into->critical);
        else if (strcmp(key, "warning") == 0)
            want_number(rd, v, key, &into->warning);
        else
            fail_at(rd, k, "unknown key '%s' in severity (critical, warning)", key);
    }
    return !rd->failed;
}

static bool read_root(reader *rd, dfs_insight_rules *into)
{
    yaml_node_t *root = yaml_document_get_root_node(&rd->doc);
    if (!root || root->type != YAML_MAPPING_NODE)
        return fail_at(rd, root, "a rule file is a mapping with 'rules' (and optionally 'severity')");
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top && !rd->failed;
         p++) {
        yaml_node_t *k = node(rd, p->key), *v = node(rd, p->value);
        const char *key = scalar(k) ? scalar(k) : "";
        if (strcmp(key, "severity") == 0) {
            read_severity_shares(rd, v, into);
        } else if (strcmp(key, "rules") == 0 && v && v->type == YAML_SEQUENCE_NODE) {
            for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
                insight_rule rule;
                if (!read_rule(rd, node(rd, *it), &rule))
                    break;
                if (!push(into, &rule)) {
                    rule_free(&rule);
                    fail_at(rd, NULL, "out of memory");
                }
            }
        } else if (strcmp(key, "rules") == 0) {
            fail_at(rd, v, "rules takes a list of rules");
        } else {
            fail_at(rd, k, "unknown key '%s' (rules, severity)", key);
        }
    }
    return !rd->failed;
}

dfs_insight_rules *dfs_insight_rules_new(void)
{
    dfs_insight_rules *r = calloc(1, sizeof *r);
    if (r) {
        r->critical = 0.25;
        r->warning = 0.05;
    }
    return r;
}

void dfs_insight_rules_free(dfs_insight_rules *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        rule_free(&r->v[i]);
    free(r->v);
    free(r);
}

/* Moves the rules of src into dst (replacing by id), and its severity shares. */
static bool absorb(dfs_insight_rules *dst, dfs_insight_rules *src)
{
    dst->critical = src->critical;
    dst->warning = src->warning;
    for (size_t i = 0; i < src->n; i++) {
        if (!push(dst, &src->v[i])) {
            for (size_t k = i; k < src->n; k++)
                rule_free(&src->v[k]);
            src->n = 0;
            return false;
        }
    }
    src->n = 0;
    return true;
}

bool dfs_insight_rules_add_text(dfs_insight_rules *r, const char *text, size_t len, const char *origin, char *err,
                                size_t errlen)
{
    reader rd = {.origin = origin, .err = err, .errlen = errlen};
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return fail_at(&rd, NULL, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &rd.doc)) {
        snprintf(err, errlen, "%s:%zu:%zu: %s", origin, parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                 parser.problem ? parser.problem : "not YAML");
        yaml_parser_delete(&parser);
        return false;
    }
    yaml_parser_delete(&parser);
    dfs_insight_rules *tmp = dfs_insight_rules_new();
    if (tmp) {
        tmp->critical = r->critical;
        tmp->warning = r->warning;
    }
    bool ok = tmp ? read_root(&rd, tmp) : fail_at(&rd, NULL, "out of memory");
    if (ok && !(tmp->critical > tmp->warning && tmp->warning >= 0))
        ok = fail_at(&rd, NULL, "severity: critical must be above warning, and warning at least 0");
    if (ok && !absorb(r, tmp))
        ok = fail_at(&rd, NULL, "out of memory");
    dfs_insight_rules_free(tmp);
    yaml_document_delete(&rd.doc);
    return ok;
}

bool dfs_insight_rules_add_builtin(dfs_insight_rules *r, char *err, size_t errlen)
{
    for (size_t i = 0; i < dfs_insights_builtin_count_; i++) {
        char origin[96];
        snprintf(origin, sizeof origin, "insights/%s.yaml (shipped)", dfs_insights_builtin_names_[i]);
        if (!dfs_insight_rules_add_text(r, (const char *)dfs_insights_builtin_texts_[i],
                                        dfs_insights_builtin_lengths_[i], origin, err, errlen))
            return false;
    }
    return true;
}

bool dfs_insight_rules_add_file(dfs_insight_rules *r, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read the rule file %s: %s", path, strerror(errno));
        return false;
    }
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    for (size_t got; text && (got = fread(text + len, 1, cap - len, f)) > 0;) {
        len += got;
        if (len == cap && cap < ((size_t)16 << 20)) {
            char *t = realloc(text, cap *= 2);
            if (!t)
                free(text);
            text = t;
        } else if (len == cap) {
            break;
        }
    }
    bool too_big = text && len == cap;
    bool bad = ferror(f);
    fclose(f);
    bool ok = false;
    if (!text)
        snprintf(err, errlen, "out of memory");
    else if (bad || too_big)
        snprintf(err, errlen, "cannot read the rule file %s: %s", path, too_big ? "over 16 MiB" : "read error");
    else
        ok = dfs_insight_rules_add_text(r, text, len, path, err, errlen);
    free(text);
    return ok;
}

void insights_unknown_param(const dfs_insight_rules *r, const char *name, char *err, size_t errlen)
{
    dfs_suggest s;
    dfs_suggest_init(&s, name);
    double v;
    const char *p;
    for (size_t i = 0; (p = dfs_insight_rules_param(r, i, &v)); i++)
        dfs_suggest_offer(&s, p);
    const char *best = dfs_suggest_best(&s);
    if (best)
        snprintf(err, errlen, "unknown parameter '%s'. Did you mean '%s'?", name, best);
    else
        snprintf(err, errlen, "unknown parameter '%s' (the parameters are ID.PARAM of the rules: docs/REPORT.md)",
                 name);
}
